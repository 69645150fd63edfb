// SPDX-License-Identifier: MIT
// Bodies (issue 34, item 3; throng_combat.body_radius, throng_world_bodies,
// docs/ARMIES.md): a soldier killed in combat leaves a body where it fell,
// an obstacle the living walk round, laid down away from its killer; none
// for those who left by game code or had no body_radius; the same bodies in
// both engines, on any thread count and across a checkpoint; bad input and
// damaged checkpoints refused; part worlds refuse bodies.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/checkpoint.h"
#include "throng/metrics.h"
#include "throng/part.h"
#include "throng/throng.h"

/// A still archetype (no slots, no contacts) with `combat`.
static uint32_t stander(throng_world* w, throng_combat combat)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	c.combat = combat;
	return thr_test_archetype(w, &c);
}

static uint32_t place(throng_world* w, uint32_t archetype, uint32_t group, float x, float y)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = (throng_vec2){x, y};
	a.radius = 0.3f;
	a.archetype = archetype;
	a.group = group;
	a.target = a.position;
	uint32_t id = 0;
	cr_assert_eq(throng_world_spawn(w, &a, 1, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

static uint32_t body_count(const throng_world* w)
{
	const throng_body* b = NULL;
	uint32_t n = 0;
	cr_assert_eq(throng_world_bodies(w, &b, &n), THRONG_OK, "%s", throng_last_error());
	cr_assert((n == 0) == (b == NULL));
	return n;
}

/// A killer at (0, 0) that always hits for 30 with cooldown 1 s (4 steps)
/// and a victim of health 50 at (x, y) with `body_radius`: struck in steps
/// 1 and 5, the victim dies in step 5. Returns the world after step 5; the
/// killer's id is 0, the victim's 1.
static throng_world* duel(throng_engine engine, float x, float y, float body_radius)
{
	throng_world* w = thr_test_battlefield(engine, 1, 7);
	const uint32_t killer = stander(w, thr_test_melee(100.0f, 0.0f, 30.0f, 1.0f, 1.0f));
	throng_combat c = thr_test_melee(50.0f, 0.0f, 0.0f, 1.0f, 1.0f);
	c.attack = THRONG_ATTACK_NONE;
	c.reach = 0.0f;
	c.body_radius = body_radius;
	const uint32_t victim = stander(w, c);
	cr_assert_eq(place(w, killer, 0, 0.0f, 0.0f), 0u);
	cr_assert_eq(place(w, victim, 3, x, y), 1u);
	cr_assert_eq(throng_world_set_target_agent(w, 0, 1), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < 4; ++k) {
		thr_test_step(w);
		cr_assert_eq(body_count(w), 0u, "step %d: the victim still stands", k + 1);
	}
	thr_test_step(w);
	cr_assert_eq(throng_world_agent_count(w), 1u, "the second blow killed it");
	return w;
}

Test(bodies, a_soldier_killed_leaves_a_body_where_it_fell_away_from_its_killer)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD;
		// The victim stands 0.6 m from the killer along (3, 4) / 5: centres
		// 0.6 m apart, a gap of 0 between the bodies of 0.3 m.
		throng_world* w = duel(engine, 0.36f, 0.48f, 0.4f);
		const throng_body* b = NULL;
		uint32_t n = 0;
		cr_assert_eq(throng_world_bodies(w, &b, &n), THRONG_OK);
		cr_assert_eq(n, 1u);
		cr_assert(b[0].position.x == 0.36f && b[0].position.y == 0.48f, "it fell where it stood: (%g, %g)",
		          (double)b[0].position.x, (double)b[0].position.y);
		cr_assert(fabsf(b[0].facing.x - 0.6f) < 1e-6f && fabsf(b[0].facing.y - 0.8f) < 1e-6f,
		          "it lies from its killer outwards: (%g, %g), (0.6, 0.8) by hand", (double)b[0].facing.x,
		          (double)b[0].facing.y);
		cr_assert(b[0].radius == 0.4f && b[0].agent == 1u && b[0].killer == 0u && b[0].group == 3u &&
		          b[0].archetype == 1u && b[0].unit == THRONG_NO_UNIT && b[0].step == 5u);
		// Its obstacle is the world's, like any other.
		cr_assert_eq(throng_world_obstacle_count(w), 1u);
		cr_assert_eq(b[0].obstacle, 0u);
		throng_vec2 c;
		float r = 0.0f;
		cr_assert_eq(throng_world_get_obstacle(w, 0, &c, &r), THRONG_OK);
		cr_assert(c.x == 0.36f && c.y == 0.48f && r == 0.4f);
		// Game code may clear the field; the record keeps where it fell.
		cr_assert_eq(throng_world_set_obstacle(w, 0, (throng_vec2){90.0f, 90.0f}, 0.1f), THRONG_OK);
		cr_assert_eq(throng_world_bodies(w, &b, &n), THRONG_OK);
		cr_assert(n == 1u && b[0].position.x == 0.36f && b[0].radius == 0.4f);
		throng_world_destroy(w);
	}
}

Test(bodies, none_without_body_radius_nor_for_agents_removed_by_game_code)
{
	throng_world* w = duel(THRONG_ENGINE_SIMD, 0.6f, 0.0f, 0.0f);
	cr_assert_eq(body_count(w), 0u, "body_radius 0 leaves none");
	cr_assert_eq(throng_world_obstacle_count(w), 0u);
	throng_world_destroy(w);

	w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 7);
	throng_combat c = thr_test_melee(50.0f, 0.0f, 0.0f, 1.0f, 1.0f);
	c.body_radius = 0.4f;
	const uint32_t a = place(w, stander(w, c), 0, 5.0f, 5.0f);
	thr_test_step(w);
	cr_assert_eq(throng_world_remove_agent(w, a), THRONG_OK);
	thr_test_step(w);
	cr_assert_eq(body_count(w), 0u, "an agent removed by game code leaves no body");
	cr_assert_eq(throng_world_obstacle_count(w), 0u);
	throng_world_destroy(w);
}

Test(bodies, the_living_walk_round_a_body)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD;
		// A body of 0.5 m at (0.6, 0); then a walker (0.3 m, contacts and
		// obstacle avoidance on) from (-6, 0.05) to (8, 0) straight through it.
		throng_world* w = duel(engine, 0.6f, 0.0f, 0.5f);
		cr_assert_eq(throng_world_remove_agent(w, 0), THRONG_OK, "the killer leaves the field");
		throng_controller walk = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot avoid = throng_slot_default_def(THRONG_OBSTACLE_AVOID);
		avoid.weight = 3.0f;
		cr_assert_geq(throng_controller_add(&walk, avoid), 0);
		cr_assert_geq(throng_controller_add(&walk, throng_slot_default_def(THRONG_ARRIVE)), 0);
		const uint32_t arch = thr_test_archetype(w, &walk);
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){-6.0f, 0.05f};
		a.target = (throng_vec2){8.0f, 0.0f};
		a.radius = 0.3f;
		a.max_speed = 1.3f;
		a.archetype = arch;
		uint32_t id = 0;
		cr_assert_eq(throng_world_spawn(w, &a, 1, &id), THRONG_OK, "%s", throng_last_error());
		float nearest = 1e9f;
		for (int k = 0; k < 80; ++k) { // 20 s: 14 m at 1.3 m/s with room to spare
			thr_test_step(w);
			const throng_agent_state s = thr_test_agent(w, id);
			nearest = fminf(nearest, hypotf(s.position.x - 0.6f, s.position.y));
		}
		const throng_agent_state s = thr_test_agent(w, id);
		cr_assert_gt(s.position.x, 6.0f, "%s: the walker got past (x = %g)", throng_engine_name(engine),
		             (double)s.position.x);
		cr_assert_geq(nearest, 0.8f * (1.0f - THRONG_PENETRATION_TOLERANCE),
		              "%s: the walker came within %g m of the body's centre (0.8 m touching)",
		              throng_engine_name(engine), (double)nearest);
		throng_world_destroy(w);
	}
}

/// Two lines of `per_side` swordsmen who leave bodies of 0.35 m, charging
/// each other with contacts on, 40 a row, 1.2 m apart.
static throng_world* field(throng_engine engine, uint32_t threads, uint32_t per_side)
{
	throng_world* w = thr_test_battlefield(engine, threads, 11);
	for (uint32_t side = 0; side < 2; ++side) {
		throng_controller c = thr_test_charger(1u - side, 40.0f, 4);
		c.combat = thr_test_melee(50.0f, 0.0f, 15.0f, 1.0f, 0.5f);
		c.combat.body_radius = 0.35f;
		thr_test_archetype(w, &c);
	}
	for (uint32_t k = 0; k < 2u * per_side; ++k) {
		const uint32_t side = k % 2u, i = k / 2u;
		const float x = (side == 0 ? -3.0f : 3.0f) + (side == 0 ? -1.2f : 1.2f) * (float)(i / 40u);
		place(w, side, side, x, -60.0f + 3.0f * (float)(i % 40u) + 0.6f * (float)side);
	}
	return w;
}

/// The bodies of w as one hash (every byte of every record), and their count.
static uint64_t bodies_hash(const throng_world* w, uint32_t* count)
{
	const throng_body* b = NULL;
	cr_assert_eq(throng_world_bodies(w, &b, count), THRONG_OK);
	uint64_t h = 1469598103934665603ull;
	for (uint32_t k = 0; k < *count; ++k) {
		const unsigned char* p = (const unsigned char*)&b[k];
		// Field by field (the struct may have padding).
		const void* f[] = {&b[k].position, &b[k].facing, &b[k].radius, &b[k].agent, &b[k].killer,
		                   &b[k].group, &b[k].archetype, &b[k].unit, &b[k].obstacle, &b[k].step};
		const size_t s[] = {8, 8, 4, 4, 4, 4, 4, 4, 4, 8};
		for (size_t j = 0; j < sizeof s / sizeof s[0]; ++j) {
			const unsigned char* q = f[j];
			for (size_t i = 0; i < s[j]; ++i) {
				h = (h ^ q[i]) * 1099511628211ull;
			}
		}
		(void)p;
	}
	return h;
}

Test(bodies, the_same_in_both_engines_on_any_thread_count_and_across_a_checkpoint, .timeout = 300)
{
	// 2 x 2,200 soldiers: above THR_PARALLEL_MIN_AGENTS (4,096) at the
	// start, so the parallel regions run.
	const struct {
		throng_engine engine;
		uint32_t threads;
	} runs[] = {{THRONG_ENGINE_SCALAR, 1}, {THRONG_ENGINE_SIMD, 1}, {THRONG_ENGINE_SIMD, 2}};
	uint64_t ref = 0, ref_bodies = 0;
	uint32_t ref_n = 0;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
		throng_world* w = field(runs[r].engine, runs[r].threads, 2200);
		for (int k = 0; k < 100; ++k) {
			thr_test_step(w);
		}
		uint32_t n = 0;
		const uint64_t hb = bodies_hash(w, &n);
		const throng_world_stats st = throng_world_get_stats(w);
		cr_assert_eq(n, (uint32_t)st.agents_removed, "every dead soldier left one body");
		cr_assert_eq(throng_world_obstacle_count(w), n);
		if (r == 0) {
			ref = throng_world_hash(w);
			ref_bodies = hb;
			ref_n = n;
			cr_assert_gt(n, 200u, "the battle killed %u", n);
			cr_assert_gt(st.shape_pushes, 0u, "the living were pushed off the bodies");
			const throng_body* b = NULL;
			cr_assert_eq(throng_world_bodies(w, &b, &n), THRONG_OK);
			for (uint32_t k = 1; k < n; ++k) {
				cr_assert(b[k - 1].step < b[k].step || (b[k - 1].step == b[k].step && b[k - 1].agent < b[k].agent),
				          "bodies listed by step, then id");
				cr_assert_eq(b[k].obstacle, k);
			}
		} else {
			cr_assert_eq(throng_world_hash(w), ref, "run %zu: hash differs from the scalar engine's", r);
			cr_assert_eq(n, ref_n);
			cr_assert_eq(hb, ref_bodies, "run %zu: the bodies differ from the scalar engine's", r);
		}
		throng_world_destroy(w);
	}
	// Without bodies the same battle goes otherwise: they are in the way.
	throng_world* w = field(THRONG_ENGINE_SIMD, 2, 2200);
	for (uint32_t a = 0; a < 2; ++a) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(w, a, &c), THRONG_OK);
		c.combat.body_radius = 0.0f;
		cr_assert_eq(throng_world_set_controller(w, a, &c), THRONG_OK);
	}
	for (int k = 0; k < 100; ++k) {
		thr_test_step(w);
	}
	cr_assert_neq(throng_world_hash(w), ref);
	cr_assert_eq(body_count(w), 0u);
	throng_world_destroy(w);

	// A checkpoint in the middle steps on to the same bits and bodies.
	w = field(THRONG_ENGINE_SIMD, 2, 2200);
	for (int k = 0; k < 50; ++k) {
		thr_test_step(w);
	}
	cr_assert_gt(body_count(w), 0u, "bodies on the ground at the checkpoint");
	size_t bytes = 0, written = 0;
	cr_assert_eq(throng_world_checkpoint_size(w, &bytes), THRONG_OK);
	void* buf = malloc(bytes);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &written), THRONG_OK, "%s", throng_last_error());
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(buf, written, &back), THRONG_OK, "%s", throng_last_error());
	free(buf);
	uint32_t n0 = 0, n1 = 0;
	cr_assert_eq(bodies_hash(back, &n1), bodies_hash(w, &n0));
	cr_assert_eq(n0, n1);
	for (int k = 0; k < 50; ++k) {
		thr_test_step(back);
	}
	cr_assert_eq(throng_world_hash(back), ref, "resumed 0x%016llx, never stopped 0x%016llx",
	             (unsigned long long)throng_world_hash(back), (unsigned long long)ref);
	cr_assert_eq(bodies_hash(back, &n1), ref_bodies);
	throng_world_destroy(back);
	throng_world_destroy(w);
}

Test(bad, body_radius_is_refused_naming_it)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 1);
	const float bad[] = {-1.0f, 1e-9f, 2e6f, NAN, INFINITY};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.combat = thr_test_melee(10.0f, 0.0f, 1.0f, 1.0f, 1.0f);
		c.combat.body_radius = bad[k];
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT, "%g accepted",
		             (double)bad[k]);
		cr_assert(strstr(throng_last_error(), "body_radius") != NULL, "%s", throng_last_error());
	}
	const throng_body* b = (const throng_body*)1;
	uint32_t n = 7;
	cr_assert_eq(throng_world_bodies(NULL, &b, &n), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_bodies(w, NULL, &n), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_bodies(w, &b, NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(w);

	// In a file: FILE:LINE:COL and the key.
	char dir[256], path[300], out[2048], err[2048];
	thr_test_make_dir(dir, sizeof dir, "bodies");
	snprintf(path, sizeof path, "%s/bad.yaml", dir);
	thr_test_write_text(path, "version: 2\n"
	                          "world: {bounds: {min: [-20, -20], max: [20, 20], mode: contain}}\n"
	                          "archetypes:\n"
	                          "  red:\n"
	                          "    combat: {attack: melee, damage: 9,\n"
	                          "             body_radius: -0.3}\n"
	                          "    slots: [{kind: separation}]\n"
	                          "groups:\n"
	                          "  red: {count: 4, archetype: red, spawn: {shape: grid, center: [0, 0], spacing: [1, 1], "
	                          "columns: 2}}\n");
	char args[400];
	snprintf(args, sizeof args, "run %s --steps 1", path);
	cr_assert_neq(thr_test_cli(args, out, sizeof out, err, sizeof err), 0);
	char want[400];
	snprintf(want, sizeof want, "%s:6:", path);
	cr_assert(strstr(err, want) != NULL && strstr(err, "body_radius") != NULL, "%s", err);
	cr_assert(strstr(err, "more problem") == NULL, "the file's one fault is its body_radius: %s", err);
	thr_test_remove_dir(dir);
}

static void sync_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)user;
	(void)at;
	(void)op;
	(void)values;
	(void)count; // one part: its sums are the whole's
}

static const void* sync_share(void* user, throng_part_point at, const void* mine, size_t bytes, size_t* got)
{
	(void)user;
	(void)at;
	(void)mine;
	(void)bytes;
	*got = 0; // one part: nobody else sent anything
	return NULL;
}

Test(bad, part_worlds_refuse_bodies)
{
	throng_world* whole = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 1);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	c.combat = thr_test_melee(10.0f, 0.0f, 1.0f, 1.0f, 1.0f);
	c.combat.body_radius = 0.3f;
	thr_test_archetype(whole, &c);
	place(whole, 0, 0, 0.0f, 0.0f);
	throng_world* p = NULL;
	cr_assert_eq(throng_part_create(whole, 1, 16, &p), THRONG_OK, "%s", throng_last_error());
	const throng_part_sync sync = {NULL, sync_reduce, sync_share};
	cr_assert_eq(throng_part_set_sync(p, &sync), THRONG_OK, "%s", throng_last_error());
	throng_agent_record r;
	cr_assert_eq(throng_agent_record_of(whole, 0, &r), THRONG_OK);
	cr_assert_eq(throng_part_load(p, &r, NULL, 1, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "body_radius") != NULL, "%s", throng_last_error());
	// Nor can game code give a part's archetype a body later.
	c.combat.body_radius = 0.0f;
	throng_world* q = NULL;
	throng_world* plain = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 1);
	thr_test_archetype(plain, &c);
	place(plain, 0, 0, 0.0f, 0.0f);
	cr_assert_eq(throng_part_create(plain, 1, 16, &q), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_part_set_sync(q, &sync), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_agent_record_of(plain, 0, &r), THRONG_OK);
	cr_assert_eq(throng_part_load(q, &r, NULL, 1, 0), THRONG_OK, "%s", throng_last_error());
	c.combat.body_radius = 0.3f;
	cr_assert_eq(throng_world_set_controller(q, 0, &c), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "body_radius") != NULL, "%s", throng_last_error());
	throng_world_destroy(q);
	throng_world_destroy(plain);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}
