// SPDX-License-Identifier: MIT
// Formations and orders (issue 34, item 5; throng/units.h,
// docs/ARMIES.md "Formations and orders"): slots worked by hand for a
// line, a wedge and a short last rank; the ranks close up when a soldier
// falls; a move order advances the anchor at the formation's speed and
// the soldiers keep their slots; a turn wheels at the turn rate; a unit
// that is struck charges, one told to hold keeps its ranks; a battle of
// units in formation is the same bit for bit in both engines and on one
// and two threads; bad input refused naming the field.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/throng.h"

/// A foot soldier: personal space first, then its target agent (pursuit),
/// melee (health 100, damage 10 every second, always hits, reach 0.3 m),
/// the nearest of group `enemy` within 30 m chosen every 4 steps.
static throng_controller fighter(uint32_t enemy)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.priority = true;
	sep.weight = 4.0f;
	sep.params.neighbor_radius = 0.7f;
	throng_controller_add(&c, sep);
	throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
	chase.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&c, chase);
	c.target_rule = (throng_target_rule){true, enemy, 30.0f, 4u, 0u};
	c.combat.enabled = true;
	c.combat.health = 100.0f;
	c.combat.attack = THRONG_ATTACK_MELEE;
	c.combat.reach = 0.3f;
	c.combat.damage = 10.0f;
	c.combat.cooldown = 1.0f;
	c.combat.accuracy = 1.0f;
	return c;
}

typedef struct army {
	uint32_t fight, march, rout;
} army;

static army add_army(throng_world* w, uint32_t enemy)
{
	const throng_controller c = fighter(enemy);
	const throng_controller m = throng_controller_formation(&c);
	const throng_controller r = throng_controller_routing(&c);
	return (army){thr_test_archetype(w, &c), thr_test_archetype(w, &m), thr_test_archetype(w, &r)};
}

static uint32_t add_unit(throng_world* w, army a, uint32_t side, throng_formation_kind kind, uint32_t files)
{
	throng_unit_def def = throng_unit_default_def();
	def.archetype = a.fight;
	def.march_archetype = a.march;
	def.rout_archetype = a.rout;
	def.army = side;
	def.formation.kind = kind;
	def.formation.files = files;
	def.morale.panic = 0.0f;
	uint32_t id = 0;
	cr_assert_eq(throng_world_add_unit(w, &def, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

/// n soldiers of `unit` at the given points, facing +x; the first id.
static uint32_t soldiers_at(throng_world* w, army a, uint32_t unit, uint32_t group, const throng_vec2* at, uint32_t n)
{
	throng_agent_def defs[64];
	cr_assert_leq(n, 64u);
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def d = throng_agent_default_def();
		d.position = at[k];
		d.target = at[k];
		d.heading = (throng_vec2){1.0f, 0.0f};
		d.archetype = a.march;
		d.group = group;
		d.unit = unit;
		d.max_speed = 2.0f;
		defs[k] = d;
	}
	uint32_t first = 0;
	cr_assert_eq(throng_world_spawn(w, defs, n, &first), THRONG_OK, "%s", throng_last_error());
	return first;
}

static void expect_target(const throng_world* w, uint32_t id, float x, float y)
{
	const throng_agent_state a = thr_test_agent(w, id);
	cr_assert_float_eq(a.target.x, x, 1e-5f, "agent %u: target (%g, %g), expected (%g, %g)", id, (double)a.target.x,
	                   (double)a.target.y, (double)x, (double)y);
	cr_assert_float_eq(a.target.y, y, 1e-5f, "agent %u: target (%g, %g), expected (%g, %g)", id, (double)a.target.x,
	                   (double)a.target.y, (double)x, (double)y);
}

/// Six soldiers whose centre is (10, 5): two rows of three, 2 m apart,
/// so that they are far from their slots at first.
static const throng_vec2 six[6] = {{8, 3}, {10, 3}, {12, 3}, {8, 7}, {10, 7}, {12, 7}};

static const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};

Test(formation, a_line_of_three_files_worked_by_hand_closes_up_when_one_falls)
{
	// After the first step the unit forms where it stands: its anchor the
	// centre (10, 5), its heading +x (right of it is -y). A line of 6 in
	// files of 3 has 2 ranks 1 m apart: the first 0.5 m ahead of the
	// anchor, the second 0.5 m behind; files at -1, 0, 1 m to the right.
	// Slot k goes to the k-th live soldier in id order.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = thr_test_battlefield(engines[e], 1, 9);
		const army a = add_army(w, 1);
		const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_LINE, 3);
		const uint32_t first = soldiers_at(w, a, u, 0, six, 6);
		thr_test_step(w);
		const throng_unit_state s = thr_test_unit(w, u);
		cr_assert_float_eq(s.anchor.x, 10.0f, 1e-5f);
		cr_assert_float_eq(s.anchor.y, 5.0f, 1e-5f);
		cr_assert_float_eq(s.heading.x, 1.0f, 1e-6f);
		cr_assert_eq(s.order.kind, THRONG_ORDER_HALT);
		cr_assert(!s.charging);
		const float want[6][2] = {{10.5f, 6.0f}, {10.5f, 5.0f}, {10.5f, 4.0f},
		                          {9.5f, 6.0f},  {9.5f, 5.0f},  {9.5f, 4.0f}};
		for (uint32_t k = 0; k < 6; ++k) {
			expect_target(w, first + k, want[k][0], want[k][1]);
			cr_assert_eq(thr_test_agent(w, first + k).archetype, a.march);
		}
		// One falls: the five left fill slots 0 to 4, the second rank's
		// two centred (-0.5 and 0.5 m to the right).
		const uint32_t gone = first + 1;
		cr_assert_eq(throng_world_remove_agents(w, &gone, 1), THRONG_OK);
		thr_test_step(w);
		const throng_vec2 anchor = thr_test_unit(w, u).anchor;
		cr_assert_float_eq(anchor.x, 10.0f, 1e-5f); // a halt: the anchor stays
		expect_target(w, first + 0, 10.5f, 6.0f);
		expect_target(w, first + 2, 10.5f, 5.0f);
		expect_target(w, first + 3, 10.5f, 4.0f);
		expect_target(w, first + 4, 9.5f, 5.5f);
		expect_target(w, first + 5, 9.5f, 4.5f);
		// They walk to their slots and stand there.
		for (int k = 0; k < 80; ++k) {
			thr_test_step(w);
		}
		for (uint32_t id = first; id < first + 6; ++id) {
			if (id == gone) {
				continue;
			}
			const throng_agent_state st = thr_test_agent(w, id);
			const float dx = st.position.x - st.target.x, dy = st.position.y - st.target.y;
			cr_assert_lt(sqrtf(dx * dx + dy * dy), 0.25f, "engine %d: agent %u is %g m from its slot", e, id,
			             (double)sqrtf(dx * dx + dy * dy));
		}
		throng_world_destroy(w);
	}
}

Test(formation, a_wedge_has_its_point_forward)
{
	// A wedge of 4: rank 0 holds 1, rank 1 holds 3; 2 ranks: the point
	// 0.5 m ahead of the anchor, the rank behind at -1, 0, 1 m right.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 9);
	const army a = add_army(w, 1);
	const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_WEDGE, 0);
	const throng_vec2 four[4] = {{9, 4}, {11, 4}, {9, 6}, {11, 6}};
	const uint32_t first = soldiers_at(w, a, u, 0, four, 4);
	thr_test_step(w);
	expect_target(w, first + 0, 10.5f, 5.0f);
	expect_target(w, first + 1, 9.5f, 6.0f);
	expect_target(w, first + 2, 9.5f, 5.0f);
	expect_target(w, first + 3, 9.5f, 4.0f);
	throng_world_destroy(w);
}

Test(formation, a_move_advances_the_anchor_at_the_formation_speed_and_the_ranks_follow)
{
	// Speed 1 m/s, dt 0.25 s: 0.25 m a step straight ahead; 5 m takes 20
	// steps, and the order then becomes a halt.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = thr_test_battlefield(engines[e], 1, 9);
		const army a = add_army(w, 1);
		const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_LINE, 3);
		const uint32_t first = soldiers_at(w, a, u, 0, six, 6);
		for (int k = 0; k < 40; ++k) {
			thr_test_step(w); // formed, on their slots
		}
		cr_assert_eq(throng_world_order_unit(w, u, (throng_order){THRONG_ORDER_MOVE, {15.0f, 5.0f}}), THRONG_OK, "%s",
		             throng_last_error());
		for (int k = 1; k <= 19; ++k) {
			thr_test_step(w);
			const throng_unit_state s = thr_test_unit(w, u);
			cr_assert_float_eq(s.anchor.x, 10.0f + 0.25f * (float)k, 1e-4f, "step %d: %g", k, (double)s.anchor.x);
			cr_assert_eq(s.order.kind, THRONG_ORDER_MOVE);
		}
		thr_test_step(w);
		throng_unit_state s = thr_test_unit(w, u);
		cr_assert_float_eq(s.anchor.x, 15.0f, 0.0f);
		cr_assert_eq(s.order.kind, THRONG_ORDER_HALT);
		for (int k = 0; k < 20; ++k) {
			thr_test_step(w);
		}
		for (uint32_t id = first; id < first + 6; ++id) {
			const throng_agent_state st = thr_test_agent(w, id);
			const float dx = st.position.x - st.target.x, dy = st.position.y - st.target.y;
			cr_assert_lt(sqrtf(dx * dx + dy * dy), 0.25f, "engine %d: agent %u is %g m from its slot", e, id,
			             (double)sqrtf(dx * dx + dy * dy));
			cr_assert_gt(st.position.x, 14.0f);
		}
		// A quarter turn at 0.5 rad/s, 0.125 rad a step: 13 steps.
		cr_assert_eq(throng_world_order_unit(w, u, (throng_order){THRONG_ORDER_TURN, {0.0f, 2.0f}}), THRONG_OK);
		for (int k = 1; k <= 12; ++k) {
			thr_test_step(w);
			cr_assert_eq(thr_test_unit(w, u).order.kind, THRONG_ORDER_TURN, "step %d", k);
		}
		thr_test_step(w);
		s = thr_test_unit(w, u);
		cr_assert_eq(s.order.kind, THRONG_ORDER_HALT);
		cr_assert_float_eq(s.heading.x, 0.0f, 0.0f);
		cr_assert_float_eq(s.heading.y, 1.0f, 0.0f);
		// Facing +y, the first rank is 0.5 m up and the files run from
		// -x (its left) to +x.
		expect_target(w, first + 0, 14.0f, 5.5f);
		expect_target(w, first + 2, 16.0f, 5.5f);
		throng_world_destroy(w);
	}
}

/// A unit of 6 in formation with one enemy standing 0.5 m in front of its
/// first rank's middle soldier (within reach once it is on its slot),
/// ordered `order`. Whether it charged after 60 steps, and the archetype
/// of its soldier `first + 1` then.
static bool struck(throng_order_kind order, uint32_t* arch, army* a_out)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 9);
	const army a = add_army(w, 1);
	*a_out = a;
	const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_LINE, 3);
	const uint32_t first = soldiers_at(w, a, u, 0, six, 6);
	throng_controller post = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	post.contact.enabled = false;
	post.combat.enabled = true;
	post.combat.health = 1.0e6f;
	const uint32_t still = thr_test_archetype(w, &post);
	throng_agent_def foe = throng_agent_default_def();
	foe.position = (throng_vec2){11.1f, 5.0f};
	foe.target = foe.position;
	foe.archetype = still;
	foe.group = 1;
	cr_assert_eq(throng_world_spawn(w, &foe, 1, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_order_unit(w, u, (throng_order){order, {0.0f, 0.0f}}), THRONG_OK, "%s",
	             throng_last_error());
	for (int k = 0; k < 60; ++k) {
		thr_test_step(w);
	}
	const bool charging = thr_test_unit(w, u).charging;
	*arch = thr_test_agent(w, first + 1).archetype;
	throng_world_destroy(w);
	return charging;
}

Test(formation, a_unit_that_is_engaged_charges_and_one_told_to_hold_keeps_its_ranks)
{
	uint32_t arch = 0;
	army a;
	cr_assert(struck(THRONG_ORDER_HALT, &arch, &a), "a halted unit struck in front did not charge");
	cr_assert_eq(arch, a.fight);
	cr_assert(!struck(THRONG_ORDER_HOLD, &arch, &a), "a unit told to hold charged");
	cr_assert_eq(arch, a.march);
	cr_assert(struck(THRONG_ORDER_CHARGE, &arch, &a));
	cr_assert_eq(arch, a.fight);
}

Test(formation, a_unit_in_its_ranks_faces_as_its_slots_do_whatever_its_soldiers_heads_do)
{
	// Six soldiers on the slots of a line of 3 files facing +x (as in the
	// first test, but standing on them), told to hold. After the first
	// step every one of them is turned to face -x: their mean heading is
	// the unit's back. An enemy 0.6 m in front of the middle of its first
	// rank strikes it every second: the blows come from the unit's front,
	// so they weigh nothing (flank 1, rear 3 by default), and the unit
	// reports its formation's facing.
	static const throng_vec2 slots[6] = {{10.5f, 6}, {10.5f, 5}, {10.5f, 4}, {9.5f, 6}, {9.5f, 5}, {9.5f, 4}};
	for (int e = 0; e < 2; ++e) {
		throng_world* w = thr_test_battlefield(engines[e], 1, 9);
		const army a = add_army(w, 1);
		const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_LINE, 3);
		const uint32_t first = soldiers_at(w, a, u, 0, slots, 6);
		cr_assert_eq(throng_world_order_unit(w, u, (throng_order){THRONG_ORDER_HOLD, {0.0f, 0.0f}}), THRONG_OK);
		throng_controller foe_ctl = fighter(0);
		foe_ctl.slot_count = 0; // it stands where it is and strikes
		foe_ctl.contact.enabled = false;
		foe_ctl.combat.health = 1.0e6f;
		foe_ctl.combat.reach = 1.0f;
		foe_ctl.combat.damage = 1.0f;
		throng_agent_def foe = throng_agent_default_def();
		foe.position = (throng_vec2){11.1f, 5.0f};
		foe.target = foe.position;
		foe.archetype = thr_test_archetype(w, &foe_ctl);
		foe.group = 1;
		cr_assert_eq(throng_world_spawn(w, &foe, 1, NULL), THRONG_OK, "%s", throng_last_error());
		thr_test_step(w);
		cr_assert_float_eq(thr_test_unit(w, u).heading.x, 1.0f, 1e-6f);
		for (uint32_t id = first; id < first + 6; ++id) {
			cr_assert_eq(throng_world_set_heading(w, id, (throng_vec2){-1.0f, 0.0f}), THRONG_OK);
		}
		uint32_t hits = 0;
		for (int k = 0; k < 40; ++k) { // 10 s
			thr_test_step(w);
			const throng_view v = throng_world_view(w);
			for (uint32_t i = 0; i < v.count; ++i) {
				hits += v.group[i] == 0 && (v.combat_state[i] & THRONG_COMBAT_HIT) != 0;
			}
		}
		const throng_unit_state s = thr_test_unit(w, u);
		cr_assert_geq(hits, 8u, "engine %d: the enemy hit the unit %u times in 10 s", e, hits);
		cr_assert(!s.charging);
		cr_assert_float_eq(s.facing.x, 1.0f, 1e-6f, "engine %d: facing (%g, %g)", e, (double)s.facing.x,
		                   (double)s.facing.y);
		cr_assert_float_eq(s.shock, 0.0f, 0.0f, "engine %d: %u blows on its front rank gave it shock %g", e, hits,
		                   (double)s.shock);
		// Its soldiers still face its back (standing on their slots, they
		// did not turn), so the mean heading would have counted them as
		// blows from the rear.
		float mean = 0.0f;
		for (uint32_t id = first; id < first + 6; ++id) {
			mean += thr_test_agent(w, id).heading.x / 6.0f;
		}
		cr_assert_lt(mean, 0.0f, "engine %d: the soldiers turned back to the front (mean heading x %g)", e,
		             (double)mean);
		throng_world_destroy(w);
	}
}

/// Two armies of 3 units of `per` (blocks 38 wide), 40 m apart, in lines,
/// each ordered to advance on the other's start; the hash every 50 of
/// `steps` steps, and how many units charged.
static void formation_battle(throng_engine engine, uint32_t threads, uint32_t per, uint32_t steps, uint64_t* hashes,
                             uint32_t* charged)
{
	throng_world* w = thr_test_battlefield(engine, threads, 9);
	army armies[2] = {add_army(w, 1), add_army(w, 0)};
	uint32_t units[2][3];
	throng_agent_def* defs = calloc(per, sizeof *defs);
	cr_assert_not_null(defs);
	for (uint32_t side = 0; side < 2; ++side) {
		const float sign = side == 0 ? -1.0f : 1.0f;
		for (uint32_t k = 0; k < 3; ++k) {
			units[side][k] = add_unit(w, armies[side], side, THRONG_FORMATION_LINE, 0);
			for (uint32_t i = 0; i < per; ++i) {
				throng_agent_def d = throng_agent_default_def();
				d.position = (throng_vec2){sign * (20.0f + (float)(i / 38u)), -59.0f + 40.0f * (float)k + (float)(i % 38u)};
				d.target = d.position;
				d.heading = (throng_vec2){-sign, 0.0f};
				d.archetype = armies[side].march;
				d.group = side;
				d.unit = units[side][k];
				d.max_speed = 1.6f;
				defs[i] = d;
			}
			cr_assert_eq(throng_world_spawn(w, defs, per, NULL), THRONG_OK, "%s", throng_last_error());
		}
	}
	free(defs);
	thr_test_step(w);
	for (uint32_t side = 0; side < 2; ++side) {
		for (uint32_t k = 0; k < 3; ++k) {
			const throng_vec2 at = thr_test_unit(w, units[side][k]).anchor;
			const throng_order go = {THRONG_ORDER_MOVE, {-at.x, at.y}};
			cr_assert_eq(throng_world_order_unit(w, units[side][k], go), THRONG_OK, "%s", throng_last_error());
		}
	}
	for (uint32_t s = 0; s < steps; ++s) {
		thr_test_step(w);
		if ((s + 1u) % 50u == 0u) {
			hashes[s / 50u] = throng_world_hash(w);
		}
	}
	*charged = 0;
	for (uint32_t side = 0; side < 2; ++side) {
		for (uint32_t k = 0; k < 3; ++k) {
			*charged += thr_test_unit(w, units[side][k]).charging;
		}
	}
	throng_world_destroy(w);
}

Test(formation, a_battle_in_formation_is_the_same_in_both_engines_and_on_any_thread_count, .timeout = 300)
{
	enum { PER = 800, STEPS = 400 };
	uint64_t h[3][STEPS / 50];
	uint32_t charged[3];
	formation_battle(THRONG_ENGINE_SIMD, 2, PER, STEPS, h[0], &charged[0]);
	formation_battle(THRONG_ENGINE_SIMD, 1, PER, STEPS, h[1], &charged[1]);
	formation_battle(THRONG_ENGINE_SCALAR, 1, PER, STEPS, h[2], &charged[2]);
	for (int k = 0; k < STEPS / 50; ++k) {
		cr_assert_eq(h[0][k], h[1][k], "1 and 2 threads differ after step %d", 50 * (k + 1));
		cr_assert_eq(h[0][k], h[2][k], "the engines differ after step %d", 50 * (k + 1));
	}
	cr_assert_eq(charged[0], charged[2]);
	printf("formation: 2 x 3 lines of %d advanced on each other; %u of 6 units charged in %d steps\n", PER,
	       charged[0], STEPS);
	cr_assert_gt(charged[0], 0u, "the lines never met");
}

Test(formation, a_march_resumes_from_a_checkpoint_to_the_same_bits)
{
	// Two units: one moving in a line (its anchor mid-way), one that has
	// turned and holds; saved at step 12, read back, 120 steps more in
	// both: the same hash and the same anchors every step.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = thr_test_battlefield(engines[e], 1, 9);
		const army a = add_army(w, 1);
		const uint32_t mover = add_unit(w, a, 0, THRONG_FORMATION_LINE, 3);
		const uint32_t holder = add_unit(w, a, 0, THRONG_FORMATION_WEDGE, 0);
		soldiers_at(w, a, mover, 0, six, 6);
		const throng_vec2 four[4] = {{-9, 4}, {-11, 4}, {-9, 6}, {-11, 6}};
		soldiers_at(w, a, holder, 0, four, 4);
		thr_test_step(w);
		cr_assert_eq(throng_world_order_unit(w, mover, (throng_order){THRONG_ORDER_MOVE, {10.0f, 30.0f}}), THRONG_OK);
		cr_assert_eq(throng_world_order_unit(w, holder, (throng_order){THRONG_ORDER_TURN, {-1.0f, 1.0f}}), THRONG_OK);
		for (int k = 0; k < 11; ++k) {
			thr_test_step(w);
		}
		cr_assert_eq(thr_test_unit(w, mover).order.kind, THRONG_ORDER_MOVE);
		cr_assert_eq(thr_test_unit(w, holder).order.kind, THRONG_ORDER_TURN);
		size_t bytes = 0, written = 0;
		cr_assert_eq(throng_world_checkpoint_size(w, &bytes), THRONG_OK, "%s", throng_last_error());
		void* buf = malloc(bytes);
		cr_assert_not_null(buf);
		cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &written), THRONG_OK, "%s", throng_last_error());
		throng_world* r = NULL;
		cr_assert_eq(throng_world_read_checkpoint(buf, written, &r), THRONG_OK, "%s", throng_last_error());
		free(buf);
		cr_assert_eq(throng_world_hash(r), throng_world_hash(w));
		for (int k = 0; k < 120; ++k) {
			thr_test_step(w);
			thr_test_step(r);
			cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "engine %d: step %d after the checkpoint", e, k + 1);
			for (uint32_t u = 0; u < 2; ++u) {
				const throng_unit_state p = thr_test_unit(w, u), q = thr_test_unit(r, u);
				cr_assert(p.anchor.x == q.anchor.x && p.anchor.y == q.anchor.y && p.heading.x == q.heading.x &&
				          p.order.kind == q.order.kind && p.charging == q.charging);
			}
		}
		cr_assert_eq(thr_test_unit(r, mover).order.kind, THRONG_ORDER_HALT);
		throng_world_destroy(r);
		throng_world_destroy(w);
	}
}

Test(formation, bad_input_is_refused_naming_the_field)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 9);
	const army a = add_army(w, 1);
	const throng_controller plain = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	const uint32_t no_combat = thr_test_archetype(w, &plain);
	const uint32_t loose = add_unit(w, a, 0, THRONG_FORMATION_NONE, 0);
	cr_assert_eq(throng_world_order_unit(w, loose, (throng_order){THRONG_ORDER_HALT, {0, 0}}),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "has no formation"), "%s", throng_last_error());
	const uint32_t u = add_unit(w, a, 0, THRONG_FORMATION_LINE, 0);
	cr_assert_eq(throng_world_order_unit(w, 9, (throng_order){THRONG_ORDER_HALT, {0, 0}}), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_order_unit(w, u, (throng_order){THRONG_ORDER_MOVE, {NAN, 0}}),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "order.point"), "%s", throng_last_error());
	cr_assert_eq(throng_world_order_unit(w, u, (throng_order){THRONG_ORDER_TURN, {0, 0}}),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_order_unit(w, u, (throng_order){(throng_order_kind)9, {0, 0}}),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "order.kind"), "%s", throng_last_error());
	cr_assert_eq(thr_test_unit(w, u).order.kind, THRONG_ORDER_HALT); // nothing changed
	throng_unit_def d = throng_unit_default_def();
	d.archetype = a.fight;
	d.rout_archetype = a.rout;
	d.march_archetype = a.march;
	d.formation.kind = THRONG_FORMATION_LINE;
	const struct {
		const char* field;
		float* at;
		float bad;
	} cases[] = {{"def.formation.spacing", &d.formation.spacing, 0.0f},
	             {"def.formation.rank_spacing", &d.formation.rank_spacing, NAN},
	             {"def.formation.speed", &d.formation.speed, -1.0f},
	             {"def.formation.turn_rate", &d.formation.turn_rate, 2.0e3f}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		const float keep = *cases[k].at;
		*cases[k].at = cases[k].bad;
		uint32_t id = 0;
		cr_assert_eq(throng_world_add_unit(w, &d, &id), THRONG_ERR_INVALID_ARGUMENT, "%s accepted", cases[k].field);
		cr_assert_not_null(strstr(throng_last_error(), cases[k].field), "%s", throng_last_error());
		*cases[k].at = keep;
	}
	uint32_t id = 0;
	d.formation.kind = (throng_formation_kind)7;
	cr_assert_eq(throng_world_add_unit(w, &d, &id), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "def.formation.kind"), "%s", throng_last_error());
	d.formation.kind = THRONG_FORMATION_WEDGE;
	d.march_archetype = 40;
	cr_assert_eq(throng_world_add_unit(w, &d, &id), THRONG_ERR_NOT_FOUND);
	cr_assert_not_null(strstr(throng_last_error(), "def.march_archetype"), "%s", throng_last_error());
	d.march_archetype = no_combat;
	cr_assert_eq(throng_world_add_unit(w, &d, &id), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "def.march_archetype"), "%s", throng_last_error());
	cr_assert_eq(throng_world_unit_count(w), 2u);
	throng_world_destroy(w);
}

Test(formation, the_formation_controller_keeps_the_fight_and_marches_to_the_slot)
{
	const throng_controller c = fighter(1);
	const throng_controller m = throng_controller_formation(&c);
	cr_assert_eq(m.slot_count, 2u);
	cr_assert_eq(m.slots[0].kind, THRONG_SEPARATION);
	cr_assert_eq(m.slots[1].kind, THRONG_ARRIVE);
	cr_assert_eq(m.slots[1].params.target, THRONG_TARGET_POINT);
	cr_assert_float_eq(m.slots[1].params.slow_radius, 1.0f, 0.0f);
	cr_assert(m.target_rule.enabled);
	cr_assert_eq(m.combat.attack, THRONG_ATTACK_MELEE);
}
