// SPDX-License-Identifier: MIT
// Combat (issue 34, items 1 to 3; throng_combat, docs/ARMIES.md): melee
// strikes worked by hand, damage summed in the order of the attackers'
// ids, the killer named in the event, hits drawn from (seed, id, step);
// a battle the same bit for bit in both engines, on any thread count and
// across a checkpoint; bad input refused naming the field.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "throng/checkpoint.h"
#include "throng/export.h"
#include "throng/part.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"
#include "world_internal.h"

/// An archetype that stands still (no slots, no contacts) with `combat`.
static uint32_t still_fighter(throng_world* w, throng_combat combat)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	c.combat = combat;
	uint32_t id = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

static uint32_t spawn_at(throng_world* w, uint32_t archetype, float x, float y)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = (throng_vec2){x, y};
	a.radius = 0.3f;
	a.archetype = archetype;
	a.target = a.position;
	uint32_t id = 0;
	cr_assert_eq(throng_world_spawn(w, &a, 1, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

static float health_of(const throng_world* w, uint32_t id)
{
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK, "%s", throng_last_error());
	return a.health;
}

/// The REMOVED events of the last step: their agents and killers, in order.
static uint32_t removed(const throng_world* w, uint32_t* ids, uint32_t* killers, uint32_t cap)
{
	const throng_event* e = NULL;
	uint32_t n = 0, got = 0;
	cr_assert_eq(throng_world_events(w, &e, &n), THRONG_OK);
	for (uint32_t k = 0; k < n; ++k) {
		if (e[k].kind == THRONG_EVENT_REMOVED) {
			cr_assert_lt(got, cap);
			ids[got] = e[k].agent;
			killers[got++] = e[k].other;
		}
	}
	return got;
}

/// The duel's two archetypes: a fighter (health 100, damage 30, cooldown
/// 1 s, always hits, reach 0.5 m) and a victim (health 100, armour 5, no
/// attack).
static void duel_archetypes(throng_world* w, uint32_t* fighter, uint32_t* victim)
{
	*fighter = still_fighter(w, thr_test_melee(100.0f, 0.0f, 30.0f, 1.0f, 1.0f));
	throng_combat target = thr_test_melee(100.0f, 5.0f, 0.0f, 0.0f, 1.0f);
	target.attack = THRONG_ATTACK_NONE;
	target.reach = 0.0f;
	*victim = still_fighter(w, target);
}

Test(melee, a_duel_worked_by_hand)
{
	// A (damage 30, cooldown 1 s = 4 steps of 0.25 s, always hits) and B
	// (health 100, armour 5, no attack) 0.4 m apart between their bodies,
	// within A's reach of 0.5 m. A strikes in steps 0, 4, 8 and 12, each
	// hit 30 - 5 = 25: B has 75 after the first step, 50 after the fifth,
	// 25 after the ninth and is removed by the thirteenth, A named.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	uint32_t fighter = 0, victim = 0;
	duel_archetypes(w, &fighter, &victim);
	const uint32_t a = spawn_at(w, fighter, 0.0f, 0.0f), b = spawn_at(w, victim, 1.0f, 0.0f);
	cr_assert_eq(health_of(w, a), 100.0f, "an agent starts with its archetype's health");
	cr_assert_eq(throng_world_set_target_agent(w, a, b), THRONG_OK, "%s", throng_last_error());
	const float expect[12] = {75, 75, 75, 75, 50, 50, 50, 50, 25, 25, 25, 25};
	uint32_t ids[4], killers[4];
	for (int k = 0; k < 12; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(health_of(w, b), expect[k], "after step %d: health %g, %g by hand", k + 1,
		             (double)health_of(w, b), (double)expect[k]);
		cr_assert_eq(removed(w, ids, killers, 4), 0u);
	}
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(removed(w, ids, killers, 4), 1u);
	cr_assert(ids[0] == b && killers[0] == a, "removed %u by %u", ids[0], killers[0]);
	cr_assert_eq(throng_world_agent_count(w), 1u);
	cr_assert_eq(health_of(w, a), 100.0f, "B never struck back");
	throng_agent_state s;
	cr_assert_eq(throng_world_get_agent(w, a, &s), THRONG_OK);
	cr_assert_eq(s.target_agent, THRONG_NO_AGENT, "the dead are nobody's target");
	const throng_world_stats st = throng_world_get_stats(w);
	cr_assert_eq(st.agents_removed, 1u);
	throng_world_destroy(w);
}

Test(melee, a_world_that_takes_up_combat_late_keeps_every_health_with_its_agent)
{
	// A world without combat leaves its combat columns untouched (all 0,
	// not moved by reorders, removals or growth: core/store.h); an agent
	// that takes an archetype with combat after reorders, a removal and a
	// growth gets its health, and the reorders after carry it, and only
	// it, with the agent.
	throng_world_def d = throng_world_default_def();
	d.engine = THRONG_ENGINE_SIMD;
	d.threads = 1;
	d.bounds_min = (throng_vec2){-100.0f, -100.0f};
	d.bounds_max = (throng_vec2){100.0f, 100.0f};
	d.capacity = 64;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller plain = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	const uint32_t walker = thr_test_archetype(w, &plain);
	uint32_t fighter = 0, victim = 0;
	duel_archetypes(w, &fighter, &victim);
	enum { N = 200 };
	uint32_t ids[N];
	for (uint32_t k = 0; k < N; ++k) { // scattered, in id order against the cells: reorders move them
		ids[k] = spawn_at(w, walker, (float)((k * 37u) % 190u) - 95.0f, (float)((k * 53u) % 190u) - 95.0f);
	}
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_remove_agent(w, ids[7]), THRONG_OK, "%s", throng_last_error());
	cr_assert(!w->store.combat_live, "no value but 0 was written in the combat columns");
	cr_assert_eq(throng_world_set_archetype(w, ids[150], victim), THRONG_OK, "%s", throng_last_error());
	cr_assert(w->store.combat_live);
	for (uint32_t k = N; k < 4 * N; ++k) { // grows the store
		(void)spawn_at(w, walker, (float)((k * 41u) % 190u) - 95.0f, (float)((k * 29u) % 190u) - 95.0f);
	}
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	const throng_view v = throng_world_view(w);
	uint32_t with = 0;
	for (uint32_t i = 0; i < v.count; ++i) {
		const float want = v.id[i] == ids[150] ? 100.0f : 0.0f;
		cr_assert_eq(v.health[i], want, "agent %u: health %g", v.id[i], (double)v.health[i]);
		cr_assert_eq(v.combat_state[i], 0u);
		with += v.health[i] != 0.0f;
	}
	cr_assert_eq(with, 1u);
	cr_assert_eq(health_of(w, ids[150]), 100.0f);
	throng_world_destroy(w);
}

Test(melee, reach_is_measured_between_the_bodies)
{
	// Bodies of 0.3 m: centres 1.1 m apart leave a gap of exactly 0.5 m
	// (in reach), 1.2 m apart 0.6 m (out of reach).
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SCALAR, 1, 3);
	const uint32_t f = still_fighter(w, thr_test_melee(10.0f, 0.0f, 1.0f, 1.0f, 1.0f));
	const uint32_t a = spawn_at(w, f, 0.0f, 0.0f), near = spawn_at(w, f, 1.0f, 0.0f);
	const uint32_t b = spawn_at(w, f, 0.0f, 10.0f), far = spawn_at(w, f, 1.25f, 10.0f);
	cr_assert_eq(throng_world_set_target_agent(w, a, near), THRONG_OK);
	cr_assert_eq(throng_world_set_target_agent(w, b, far), THRONG_OK);
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(health_of(w, near), 9.0f);
	cr_assert_eq(health_of(w, far), 10.0f);
	throng_world_destroy(w);
}

Test(melee, hits_on_one_target_sum_in_the_order_of_the_attackers_ids)
{
	// Three attackers, each 30 a hit, on a target of 50: after the lowest
	// id 20 is left, the second takes it to -10: the second is the killer,
	// the third's hit finds it dead. Ids are given in spawn order, the
	// attackers' places are not.
	for (int en = 0; en < 2; ++en) {
		throng_world* w = thr_test_battlefield(en == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD, 1, 3);
		const uint32_t f = still_fighter(w, thr_test_melee(50.0f, 0.0f, 30.0f, 1.0f, 1.0f));
		const uint32_t t = spawn_at(w, f, 0.0f, 0.0f);
		const uint32_t x = spawn_at(w, f, 0.0f, -0.8f), y = spawn_at(w, f, 0.8f, 0.0f), z = spawn_at(w, f, -0.8f, 0.0f);
		cr_assert(x < y && y < z);
		for (uint32_t k = 0; k < 3; ++k) {
			cr_assert_eq(throng_world_set_target_agent(w, (uint32_t[]){x, y, z}[k], t), THRONG_OK);
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		uint32_t ids[4], killers[4];
		cr_assert_eq(removed(w, ids, killers, 4), 1u);
		cr_assert(ids[0] == t && killers[0] == y, "engine %d: %u removed by %u (expected %u by %u)", en, ids[0],
		          killers[0], t, y);
		throng_world_destroy(w);
	}
}

Test(melee, accuracy_is_a_draw_per_strike)
{
	// 2,000 duels of one strike each at accuracy 0.5: the hits are a
	// binomial draw, 1,000 expected, sd 22.4; within 5 sd.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	const uint32_t f = still_fighter(w, thr_test_melee(10.0f, 0.0f, 1.0f, 1000.0f, 0.5f));
	uint32_t target[2000];
	for (uint32_t k = 0; k < 2000; ++k) {
		const float x = -95.0f + 4.0f * (float)(k % 48), y = -95.0f + 4.0f * (float)(k / 48);
		const uint32_t a = spawn_at(w, f, x, y);
		target[k] = spawn_at(w, f, x + 1.0f, y);
		cr_assert_eq(throng_world_set_target_agent(w, a, target[k]), THRONG_OK);
	}
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	uint32_t hits = 0;
	for (uint32_t k = 0; k < 2000; ++k) {
		hits += health_of(w, target[k]) == 9.0f;
	}
	cr_assert(hits > 888 && hits < 1112, "%u hits of 2,000 at accuracy 0.5", hits);
	throng_world_destroy(w);
}

Test(melee, strikes_that_all_miss_change_nothing_but_the_cooldown)
{
	// Accuracy 0: every strike misses (the draw is never below 0), health
	// stays, and the next strike waits for the cooldown all the same.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	const uint32_t f = still_fighter(w, thr_test_melee(10.0f, 0.0f, 5.0f, 0.5f, 0.0f));
	const uint32_t a = spawn_at(w, f, 0.0f, 0.0f), b = spawn_at(w, f, 1.0f, 0.0f);
	cr_assert_eq(throng_world_set_target_agent(w, a, b), THRONG_OK);
	cr_assert_eq(throng_world_set_target_agent(w, b, a), THRONG_OK);
	for (int k = 0; k < 20; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert(health_of(w, a) == 10.0f && health_of(w, b) == 10.0f);
	cr_assert_eq(throng_world_agent_count(w), 2u);
	throng_world_destroy(w);
}

static throng_combat archer(float damage, float range, float speed, float spread, float cooldown)
{
	throng_combat c = thr_test_melee(50.0f, 0.0f, damage, cooldown, 1.0f);
	c.attack = THRONG_ATTACK_MISSILE;
	c.reach = range;
	c.missile_speed = speed;
	c.spread = spread;
	return c;
}

Test(missiles, a_volley_worked_by_hand)
{
	// An archer 30 m from a still target (centres), missiles at 60 m/s: 15
	// m a step of 0.25 s, so a shot in step s lands in step s + 2. Cooldown
	// 1 s (4 steps), 40 a hit, no spread: shots in steps 0, 4 and 8 land
	// in 2, 6 and 10: the target (100) has 60 after the third step, 20
	// after the seventh, and is removed by the eleventh, the archer named.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	const uint32_t bow = still_fighter(w, archer(40.0f, 50.0f, 60.0f, 0.0f, 1.0f));
	const uint32_t stand = still_fighter(w, thr_test_melee(100.0f, 0.0f, 0.0f, 1.0f, 1.0f));
	const uint32_t a = spawn_at(w, bow, 0.0f, 0.0f), b = spawn_at(w, stand, 30.0f, 0.0f);
	cr_assert_eq(throng_world_set_target_agent(w, a, b), THRONG_OK);
	const float expect[10] = {100, 100, 60, 60, 60, 60, 20, 20, 20, 20};
	uint32_t ids[4], killers[4];
	for (int k = 0; k < 10; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(health_of(w, b), expect[k], "after step %d: health %g, %g by hand", k + 1,
		             (double)health_of(w, b), (double)expect[k]);
		// In the air: the shot of step 0 during steps 1 and 2, and so on.
		cr_assert_eq(w->missile_n, (uint32_t)(k % 4 < 2), "after step %d: %u in flight", k + 1, w->missile_n);
	}
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(removed(w, ids, killers, 4), 1u);
	cr_assert(ids[0] == b && killers[0] == a);
	throng_world_destroy(w);
}

Test(missiles, a_target_that_moves_away_is_missed)
{
	// The target walks north at 1.3 m/s across the line of fire: in the 2
	// steps of flight it moves 0.65 m, more than its radius of 0.3 m, so
	// the missile falls to the ground.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SCALAR, 1, 3);
	const uint32_t bow = still_fighter(w, archer(40.0f, 50.0f, 60.0f, 0.0f, 1.0f));
	throng_controller walk = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_assert_geq(throng_controller_add(&walk, throng_slot_default_def(THRONG_SEEK)), 0);
	walk.contact.enabled = false;
	walk.combat = thr_test_melee(100.0f, 0.0f, 0.0f, 1.0f, 1.0f);
	uint32_t walker = 0;
	cr_assert_eq(throng_world_add_archetype(w, &walk, &walker), THRONG_OK);
	throng_agent_def d = throng_agent_default_def();
	d.position = (throng_vec2){30.0f, 0.0f};
	d.velocity = (throng_vec2){0.0f, 1.3f};
	d.max_speed = 1.3f;
	d.radius = 0.3f;
	d.archetype = walker;
	d.target = (throng_vec2){30.0f, 90.0f};
	uint32_t b = 0;
	cr_assert_eq(throng_world_spawn(w, &d, 1, &b), THRONG_OK, "%s", throng_last_error());
	const uint32_t a = spawn_at(w, bow, 0.0f, 0.0f);
	cr_assert_eq(throng_world_set_target_agent(w, a, b), THRONG_OK);
	for (int k = 0; k < 12; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(health_of(w, b), 100.0f, "every missile fell behind the walker");
	throng_world_destroy(w);
}

Test(missiles, spread_lands_uniformly_in_its_disc)
{
	// 2,000 archers shoot once, each at its own still target of radius 0.3
	// m, with a spread of 2 m: a missile hits when it lands within 0.3 m
	// of the centre, (0.3 / 2)^2 = 2.25 % of a uniform disc: 45 hits
	// expected, sd 6.6; within 5 sd.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	const uint32_t bow = still_fighter(w, archer(1.0f, 10.0f, 60.0f, 2.0f, 1000.0f));
	const uint32_t stand = still_fighter(w, thr_test_melee(10.0f, 0.0f, 0.0f, 1.0f, 1.0f));
	uint32_t target[2000];
	for (uint32_t k = 0; k < 2000; ++k) {
		const float x = -95.0f + 4.0f * (float)(k % 48), y = -95.0f + 4.0f * (float)(k / 48);
		const uint32_t a = spawn_at(w, bow, x, y);
		target[k] = spawn_at(w, stand, x + 3.0f, y + 1.0f);
		cr_assert_eq(throng_world_set_target_agent(w, a, target[k]), THRONG_OK);
	}
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	cr_assert_eq(w->missile_n, 0u, "all came down");
	uint32_t hits = 0;
	for (uint32_t k = 0; k < 2000; ++k) {
		hits += health_of(w, target[k]) == 9.0f;
	}
	cr_assert(hits >= 12 && hits <= 78, "%u hits of 2,000 at 2.25 %%", hits);
	throng_world_destroy(w);
}

/// Two armies of `per_side` that charge each other, every soldier
/// pursuing the nearest enemy (a target rule) and striking it.
static throng_world* battle(throng_engine engine, uint32_t threads, uint32_t per_side)
{
	throng_world* w = thr_test_battlefield(engine, threads, 3);
	for (uint32_t side = 0; side < 2; ++side) {
		throng_controller c = thr_test_charger(1u - side, 30.0f, 4);
		c.combat = thr_test_melee(60.0f, side == 0 ? 2.0f : 0.0f, 12.0f, 1.0f, 0.6f);
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	}
	// Archetype 2: side 0's archers, who stand and shoot at blue in range.
	throng_controller bows = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	bows.target_rule.enabled = true;
	bows.target_rule.group = 1;
	bows.target_rule.sight_radius = 40.0f;
	bows.target_rule.every = 4;
	bows.combat = archer(15.0f, 35.0f, 50.0f, 1.5f, 1.5f);
	bows.combat.accuracy = 0.8f;
	cr_assert_eq(throng_world_add_archetype(w, &bows, NULL), THRONG_OK, "%s", throng_last_error());
	const uint32_t rows = 40;
	for (uint32_t k = 0; k < 2u * per_side; ++k) {
		const uint32_t side = k % 2u, i = k / 2u;
		throng_agent_def a = throng_agent_default_def();
		a.radius = 0.3f;
		a.archetype = side == 0 && i % 5u == 4u ? 2u : side; // a fifth of red shoot
		a.group = side;
		a.position = (throng_vec2){(side == 0 ? -8.0f : 8.0f) + (side == 0 ? -1.0f : 1.0f) * 1.0f * (float)(i / rows),
		                           -80.0f + 4.0f * (float)(i % rows) + 0.5f * (float)side};
		a.target = a.position;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

Test(battle, the_same_bits_in_both_engines_on_any_thread_count_and_across_a_checkpoint, .timeout = 300)
{
	// 2 x 2,500 soldiers: above THR_PARALLEL_MIN_AGENTS (4,096) while the
	// battle lasts, so the parallel regions run.
	const struct {
		throng_engine engine;
		uint32_t threads;
	} runs[] = {{THRONG_ENGINE_SCALAR, 1}, {THRONG_ENGINE_SIMD, 1}, {THRONG_ENGINE_SIMD, 2}};
	uint64_t ref = 0;
	uint64_t ref_removed = 0, ref_marks = 0;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
		throng_world* w = battle(runs[r].engine, runs[r].threads, 2500);
		uint64_t deaths = 0, killed = 0, marks = 0;
		for (int k = 0; k < 160; ++k) { // 40 s
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			// Each step's combat_state marks, by id (not in the hash): the
			// same in every run whatever the storage order.
			const throng_view v = throng_world_view(w);
			for (uint32_t j = 0; j < v.count; ++j) {
				marks += (uint64_t)v.combat_state[j] * ((uint64_t)v.id[j] * 2654435761u + (uint64_t)k + 1u);
			}
			uint32_t ids[5000], killers[5000];
			const uint32_t n = removed(w, ids, killers, 5000);
			deaths += n;
			for (uint32_t j = 0; j < n; ++j) {
				killed += killers[j] != THRONG_NO_AGENT;
			}
		}
		const throng_world_stats st = throng_world_get_stats(w);
		cr_assert_eq(deaths, st.agents_removed, "every death appears once in the events");
		cr_assert_eq(killed, deaths, "every death names its killer");
		cr_assert_eq(throng_world_agent_count(w) + st.agents_removed, 5000u);
		const uint64_t h = throng_world_hash(w);
		if (r == 0) {
			ref = h;
			ref_removed = st.agents_removed;
			ref_marks = marks;
			cr_assert_gt(marks, 0u, "strikes and hits were marked");
			cr_assert_gt(st.agents_removed, 500u, "the battle killed %llu", (unsigned long long)st.agents_removed);
		} else {
			cr_assert_eq(h, ref, "run %zu: hash 0x%016llx, the scalar engine's 0x%016llx", r, (unsigned long long)h,
			             (unsigned long long)ref);
			cr_assert_eq(st.agents_removed, ref_removed);
			cr_assert_eq(marks, ref_marks, "run %zu: the combat_state marks differ from the scalar engine's", r);
		}
		throng_world_destroy(w);
	}
	// A checkpoint in the middle of the battle steps on to the same bits.
	throng_world* w = battle(THRONG_ENGINE_SIMD, 2, 2500);
	for (int k = 0; k < 80; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	cr_assert_gt(w->missile_n, 0u, "missiles in the air at the checkpoint");
	size_t bytes = 0, written = 0;
	cr_assert_eq(throng_world_checkpoint_size(w, &bytes), THRONG_OK);
	void* buf = malloc(bytes);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &written), THRONG_OK, "%s", throng_last_error());
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(buf, written, &back), THRONG_OK, "%s", throng_last_error());
	free(buf);
	cr_assert_eq(throng_world_hash(back), throng_world_hash(w));
	for (int k = 0; k < 80; ++k) {
		cr_assert_eq(throng_world_step(back), THRONG_OK);
	}
	cr_assert_eq(throng_world_hash(back), ref, "resumed 0x%016llx, never stopped 0x%016llx",
	             (unsigned long long)throng_world_hash(back), (unsigned long long)ref);
	throng_world_destroy(back);
	throng_world_destroy(w);
}

/// Fails unless adding an archetype with `combat` is refused naming `field`.
static void refused(throng_world* w, throng_combat combat, const char* field)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.combat = combat;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT, "%s accepted", field);
	cr_assert(strstr(throng_last_error(), field) != NULL, "\"%s\" does not name %s", throng_last_error(), field);
}

Test(bad, combat_fields_and_setters_are_refused_naming_them)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	const throng_combat good = thr_test_melee(10.0f, 1.0f, 2.0f, 1.0f, 0.5f);
	throng_combat c = good;
	c.health = 0.0f;
	refused(w, c, "combat.health");
	c = good;
	c.armour = NAN;
	refused(w, c, "combat.armour");
	c = good;
	c.reach = -1.0f;
	refused(w, c, "combat.reach");
	c = good;
	c.damage = INFINITY;
	refused(w, c, "combat.damage");
	c = good;
	c.cooldown = -0.5f;
	refused(w, c, "combat.cooldown");
	c = good;
	c.accuracy = 1.5f;
	refused(w, c, "combat.accuracy");
	c = good;
	c.attack = (throng_attack_kind)9;
	refused(w, c, "combat.attack");
	c = good;
	c.enabled = false;
	refused(w, c, "combat.attack"); // an attack without combat
	c = archer(1.0f, 10.0f, 0.0f, 0.0f, 1.0f);
	refused(w, c, "combat.missile_speed"); // a missile needs a speed
	c = archer(1.0f, 10.0f, 50.0f, -1.0f, 1.0f);
	refused(w, c, "combat.spread");
	// Setters.
	const uint32_t plain = still_fighter(w, throng_controller_default_def(THRONG_BLEND_WEIGHTED).combat);
	const uint32_t f = still_fighter(w, good);
	const uint32_t a = spawn_at(w, plain, 0.0f, 0.0f), b = spawn_at(w, f, 5.0f, 0.0f);
	cr_assert_eq(health_of(w, a), 0.0f);
	cr_assert_eq(throng_world_set_health(w, a, 5.0f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "health: its archetype") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_set_health(w, b, NAN), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_set_health(w, b, 0.0f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_set_health(w, b, 25.0f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(health_of(w, b), 25.0f);
	// A new archetype: health kept between two with combat, the new
	// one's when only it has combat, 0 without.
	cr_assert_eq(throng_world_set_archetype(w, a, f), THRONG_OK);
	cr_assert_eq(health_of(w, a), 10.0f);
	cr_assert_eq(throng_world_set_health(w, a, 3.0f), THRONG_OK);
	const uint32_t f2 = still_fighter(w, thr_test_melee(80.0f, 0.0f, 1.0f, 1.0f, 1.0f));
	cr_assert_eq(throng_world_set_archetype(w, a, f2), THRONG_OK);
	cr_assert_eq(health_of(w, a), 3.0f);
	cr_assert_eq(throng_world_set_archetype(w, a, plain), THRONG_OK);
	cr_assert_eq(health_of(w, a), 0.0f);
	throng_world_destroy(w);
}

// ---------------------------------------------------------------------------
// Scenario files: an archetype's `combat` mapping
// ---------------------------------------------------------------------------

static const char battle_file[] = "version: 2\n"
                                  "world:\n"
                                  "  bounds: {min: [-30, -30], max: [30, 30], mode: contain}\n"
                                  "archetypes:\n"
                                  "  red:\n"
                                  "    target_rule: {group: blue, sight_radius: 20}\n"
                                  "    combat: {health: 40, armour: 1, attack: melee, reach: 0.4, damage: 9, cooldown: 0.5,"
                                  " accuracy: 0.75}\n"
                                  "    slots: [{kind: pursuit, target: agent}, {kind: separation}]\n"
                                  "  blue:\n"
                                  "    target_rule: {group: red, sight_radius: 20}\n"
                                  "    combat: {attack: melee, damage: 12}\n"
                                  "    slots: [{kind: pursuit, target: agent}, {kind: separation}]\n"
                                  "groups:\n"
                                  "  red: {count: 60, archetype: red, spawn: {shape: rectangle, center: [-8, 0], size: [8, 20]}}\n"
                                  "  blue: {count: 60, archetype: blue, spawn: {shape: rectangle, center: [8, 0], size: [8, 20]}}\n";

Test(files, combat_keys_build_run_and_save_to_the_same_hash)
{
	throng_scene* s = thr_test_load_text("battle.yaml", battle_file);
	throng_world* w = throng_scene_world(s);
	throng_controller red, blue;
	cr_assert_eq(throng_world_get_controller(w, 0, &red), THRONG_OK);
	cr_assert_eq(throng_world_get_controller(w, 1, &blue), THRONG_OK);
	cr_assert(red.combat.enabled && red.combat.health == 40.0f && red.combat.armour == 1.0f &&
	          red.combat.attack == THRONG_ATTACK_MELEE && red.combat.reach == 0.4f && red.combat.damage == 9.0f &&
	          red.combat.cooldown == 0.5f && red.combat.accuracy == 0.75f);
	// Keys left out: health 100, armour 0, reach 0, cooldown 1 s, accuracy 1.
	cr_assert(blue.combat.enabled && blue.combat.health == 100.0f && blue.combat.armour == 0.0f &&
	          blue.combat.reach == 0.0f && blue.combat.cooldown == 1.0f && blue.combat.accuracy == 1.0f);
	for (int k = 0; k < 600; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_gt(throng_world_get_stats(w).agents_removed, 10u, "the armies met and fought (%llu dead)",
	             (unsigned long long)throng_world_get_stats(w).agents_removed);
	char* text = NULL;
	cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert(strstr(text, "combat: {health: 40, armour: 1, attack: melee, reach: 0.4, damage: 9, cooldown: 0.5, "
	                       "accuracy: 0.75, missile_speed: 60, spread: 0, body_radius: 0}") != NULL,
	          "%s", text);
	throng_scene* again = thr_test_load_text("saved.yaml", text);
	free(text);
	for (int k = 0; k < 600; ++k) {
		cr_assert_eq(throng_scene_step(again), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), throng_world_hash(w));
	throng_scene_destroy(again);
	throng_scene_destroy(s);
}

/// Fails unless `text` is refused with a message that holds `want`.
static void refused_file(const char* text, const char* want)
{
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("bad.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT, "accepted:\n%s", text);
	cr_assert_null(s);
	cr_assert(strstr(throng_last_error(), want) != NULL, "\"%s\" lacks \"%s\"", throng_last_error(), want);
}

Test(files, bad_combat_keys_are_refused_at_their_line)
{
	static const char head[] = "version: 2\n"
	                           "archetypes:\n"
	                           "  a:\n";
	static const char tail[] = "    slots: [{kind: seek}]\n"
	                           "groups:\n"
	                           "  g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [0, 0]}}\n";
	const struct {
		const char* line;
		const char* want;
	} cases[] = {
	    {"    combat: {health: 0}\n", "bad.yaml:4:22: archetypes.a.combat.health: got 0"},
	    {"    combat: {attack: ranged}\n", "bad.yaml:4:22: archetypes.a.combat.attack: "},
	    {"    combat: {accuracy: 2}\n", "bad.yaml:4:24: archetypes.a.combat.accuracy: got 2"},
	    {"    combat: {reach: -1}\n", "bad.yaml:4:21: archetypes.a.combat.reach: got -1"},
	    {"    combat: {helth: 5}\n", "bad.yaml:4:14: archetypes.a.combat.helth: unknown key, did you mean health?"},
	    {"    combat: 5\n", "bad.yaml:4:13: archetypes.a.combat: "},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		char text[512];
		snprintf(text, sizeof text, "%s%s%s", head, cases[k].line, tail);
		refused_file(text, cases[k].want);
	}
	// A version 1 file cannot fight.
	refused_file("archetypes:\n"
	             "  a:\n"
	             "    combat: {health: 5}\n"
	             "    slots: [{kind: seek}]\n"
	             "groups:\n"
	             "  g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [0, 0]}}\n",
	             "bad.yaml:3:13: archetypes.a.combat: a version 2 key in a version 1 file");
}

// ---------------------------------------------------------------------------
// Outputs: health and combat state (THRONG_FIELD_HEALTH and
// THRONG_FIELD_COMBAT_STATE, stream and feed 2.1, CSV).

Test(outputs, health_and_state_reach_the_stream_the_csv_and_the_feed_as_the_world_has_them)
{
	// The duel worked by hand above (B: 100, then 75 after step 1 and 50
	// after step 5) beside a walker without combat (health 0), written
	// every step with every field to a stream and a CSV file and published
	// to a feed; each read back must hold the world's health bit for bit.
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 3);
	uint32_t fighter = 0, victim = 0;
	duel_archetypes(w, &fighter, &victim);
	throng_controller plain = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	uint32_t walker = 0;
	cr_assert_eq(throng_world_add_archetype(w, &plain, &walker), THRONG_OK, "%s", throng_last_error());
	const uint32_t a = spawn_at(w, fighter, 0.0f, 0.0f), b = spawn_at(w, victim, 1.0f, 0.0f);
	spawn_at(w, walker, 10.0f, 10.0f);
	cr_assert_eq(throng_world_set_target_agent(w, a, b), THRONG_OK, "%s", throng_last_error());

	char dir[256], bin[320], csv[320], feed_name[64];
	thr_test_make_dir(dir, sizeof dir, "throng-combat-out");
	snprintf(bin, sizeof bin, "%s/run.thr", dir);
	snprintf(csv, sizeof csv, "%s/run.csv", dir);
	snprintf(feed_name, sizeof feed_name, "/throng_test_health_%d", (int)getpid());
	throng_export_def def = throng_export_default_def();
	def.world = w;
	def.fields = THRONG_FIELDS_ALL;
	throng_exporter *eb = NULL, *ec = NULL;
	throng_feed* feed = NULL;
	throng_feed_reader* fr = NULL;
	cr_assert_eq(throng_exporter_create(bin, &def, &eb), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_create(csv, &def, &ec), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_create(feed_name, &def, &feed), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_open(feed_name, &fr), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_get_info(fr)->version_minor, 1, "a feed with health is 2.1");
	enum { FRAMES = 7 };
	float want[FRAMES][3];
	uint32_t state[FRAMES][3];
	for (int k = 0; k < FRAMES; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		for (uint32_t id = 0; id < 3; ++id) {
			throng_agent_state s;
			cr_assert_eq(throng_world_get_agent(w, id, &s), THRONG_OK);
			want[k][id] = s.health;
			state[k][id] = s.combat_state;
		}
		cr_assert_eq(throng_exporter_write(eb, w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_exporter_write(ec, w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_feed_publish(feed, w), THRONG_OK, "%s", throng_last_error());
		throng_frame f;
		bool got = false;
		cr_assert_eq(throng_feed_read(fr, &f, &got), THRONG_OK, "%s", throng_last_error());
		cr_assert(got && f.count == 3 && f.health != NULL);
		cr_assert_eq(memcmp(f.health, want[k], sizeof want[k]), 0, "feed frame %d: health %g %g %g", k,
		             (double)f.health[0], (double)f.health[1], (double)f.health[2]);
		cr_assert(f.combat_state != NULL && memcmp(f.combat_state, state[k], sizeof state[k]) == 0, "feed frame %d", k);
	}
	// A strikes in steps 0 and 4 (the frames after steps 1 and 5): it is
	// marked struck and B hit in those frames only; the walker never.
	for (int k = 0; k < FRAMES; ++k) {
		const bool blow = k == 1 || k == 5;
		cr_assert_eq(state[k][a], blow ? THRONG_COMBAT_STRUCK : 0u, "frame %d: A's state %u", k, state[k][a]);
		cr_assert_eq(state[k][b], blow ? THRONG_COMBAT_HIT : 0u, "frame %d: B's state %u", k, state[k][b]);
		cr_assert_eq(state[k][2], 0u);
	}
	cr_assert_eq(want[0][b], 100.0f);
	cr_assert_eq(want[1][b], 75.0f, "the hand-worked duel");
	cr_assert_eq(want[6][b], 50.0f);
	cr_assert_eq(want[6][2], 0.0f, "no combat: health 0");
	cr_assert_eq(throng_exporter_finish(eb), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_finish(ec), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(eb);
	throng_exporter_destroy(ec);
	throng_feed_reader_destroy(fr);
	cr_assert_eq(throng_feed_finish(feed), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(feed);

	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(bin, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_stream_get_info(r)->version_minor, 1, "a stream with health is 2.1");
	for (int k = 0; k < FRAMES; ++k) {
		throng_frame f;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_OK, "%s", throng_last_error());
		cr_assert(got && f.count == 3 && f.health != NULL && f.combat_state != NULL);
		cr_assert_eq(memcmp(f.health, want[k], sizeof want[k]), 0, "stream frame %d", k);
		cr_assert_eq(memcmp(f.combat_state, state[k], sizeof state[k]), 0, "stream frame %d", k);
	}
	throng_stream_reader_destroy(r);

	FILE* in = fopen(csv, "r");
	cr_assert_not_null(in);
	char line[512];
	cr_assert_not_null(fgets(line, sizeof line, in));
	cr_assert_not_null(strstr(line, ",archetype,health,combat_state\n"), "%s", line);
	for (int row = 0; row < FRAMES * 3; ++row) {
		cr_assert_not_null(fgets(line, sizeof line, in), "row %d missing", row);
		char* last = strrchr(line, ',');
		cr_assert_not_null(last);
		cr_assert_eq(strtoul(last + 1, NULL, 10), state[row / 3][row % 3], "CSV row %d: state %s", row, last + 1);
		*last = '\0';
		const char* health = strrchr(line, ',');
		cr_assert_not_null(health);
		const float h = strtof(health + 1, NULL);
		cr_assert_eq(h, want[row / 3][row % 3], "CSV row %d: health %s", row, health + 1);
	}
	fclose(in);
	throng_world_destroy(w);
	thr_test_remove_dir(dir);
}

Test(outputs, a_health_that_is_not_finite_is_refused_by_the_readers)
{
	// A stream of one frame, agent 7 with health NaN (written through a
	// view: the world never holds one): every reader refuses the frame,
	// naming the byte offset, the agent and the field.
	char dir[256], bin[320];
	thr_test_make_dir(dir, sizeof dir, "throng-combat-nan");
	snprintf(bin, sizeof bin, "%s/nan.thr", dir);
	throng_export_def def = throng_export_default_def();
	def.format = THRONG_FORMAT_BINARY;
	def.fields = THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_HEALTH;
	def.agents = 2;
	def.dt = 0.25f;
	def.bounds_max = (throng_vec2){10.0f, 10.0f};
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(bin, &def, &ex), THRONG_OK, "%s", throng_last_error());
	const uint32_t id[2] = {3, 7};
	const float x[2] = {1, 2}, y[2] = {1, 2}, health[2] = {50.0f, NAN};
	throng_view v = {.count = 2, .step = 0, .id = id, .x = x, .y = y, .health = health};
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(bin, &r), THRONG_OK, "%s", throng_last_error());
	throng_frame f;
	bool got = false;
	cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_ERR_CORRUPT);
	// header 88 + pad, the frame's head 48, ids 8, x 8, y 8, then health: agent 7 is the second.
	const size_t header = 88;
	char want[160];
	snprintf(want, sizeof want, "byte offset %zu: frame 0: agent 7's health is nan", header + 48 + 8 + 8 + 8 + 4);
	cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
	throng_stream_reader_destroy(r);
	thr_test_remove_dir(dir);
}
