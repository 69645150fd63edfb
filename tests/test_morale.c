// SPDX-License-Identifier: MIT
// Units, morale and rout (issue 34, item 4; throng/units.h,
// docs/ARMIES.md "Morale and rout"): losses alone rout a unit at
// breaks_at, worked by hand; a routing unit runs for its refuge and
// rallies after rally_time without a hit, once; a hit weighs by where its
// attacker stands (front 0, flank, rear), and shock recovers; panic
// spreads to units of the same army within panic_radius only; a unit
// attacked in the rear routs sooner than one attacked in front (measured);
// a battle of units the same bit for bit in both engines and on one and
// two threads; an army that has lost army_breaks_at of its strength
// killed breaks (those taken out do not count); bad input refused naming
// the field.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/checkpoint.h"
#include "throng/throng.h"
#include "world_internal.h"

/// Soldiers who stand (no slots, no contacts), health 100 and no attack.
static throng_controller standing(void)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	c.combat.enabled = true;
	c.combat.health = 100.0f;
	return c;
}

/// A unit with the morale defaults but no panic, no recovery and no
/// rally unless the test says so.
static throng_unit_def quiet_unit(uint32_t archetype, uint32_t rout_archetype, float breaks_at)
{
	throng_unit_def u = throng_unit_default_def();
	u.archetype = archetype;
	u.rout_archetype = rout_archetype;
	u.morale.breaks_at = breaks_at;
	u.morale.panic = 0.0f;
	u.morale.recovery = 0.0f;
	u.morale.rally_time = 1.0e6f;
	return u;
}

static uint32_t add_unit(throng_world* w, const throng_unit_def* def)
{
	uint32_t id = 0;
	cr_assert_eq(throng_world_add_unit(w, def, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

/// `n` soldiers of `unit` on the line x, from y0 up 1 m apart, facing +x;
/// the first id.
static uint32_t file_of(throng_world* w, uint32_t archetype, uint32_t unit, uint32_t group, uint32_t n, float x,
                        float y0)
{
	throng_agent_def* defs = calloc(n, sizeof *defs);
	cr_assert_not_null(defs);
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){x, y0 + (float)k};
		a.heading = (throng_vec2){1.0f, 0.0f};
		a.target = a.position;
		a.archetype = archetype;
		a.unit = unit;
		a.group = group;
		defs[k] = a;
	}
	uint32_t first = 0;
	cr_assert_eq(throng_world_spawn(w, defs, n, &first), THRONG_OK, "%s", throng_last_error());
	free(defs);
	return first;
}

static void remove_ids(throng_world* w, uint32_t first, uint32_t n)
{
	uint32_t ids[16];
	cr_assert_leq(n, 16u);
	for (uint32_t k = 0; k < n; ++k) {
		ids[k] = first + k;
	}
	cr_assert_eq(throng_world_remove_agents(w, ids, n), THRONG_OK, "%s", throng_last_error());
}

static const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};

/// A battlefield (seed 5) with standing soldiers and their routing
/// archetype (throng_controller_routing), into *arch and *rout.
static throng_world* standing_world(throng_engine engine, uint32_t* arch, uint32_t* rout)
{
	throng_world* w = thr_test_battlefield(engine, 1, 5);
	const throng_controller c = standing();
	*arch = thr_test_archetype(w, &c);
	const throng_controller rc = throng_controller_routing(&c);
	*rout = thr_test_archetype(w, &rc);
	return w;
}

Test(morale, a_world_takes_its_first_unit_late)
{
	// No unit column before the first unit (core/store.h): agents tell
	// THRONG_NO_UNIT through steps, a removal and a checkpoint; the first
	// unit makes the column, all THRONG_NO_UNIT, and its soldiers keep
	// their unit through the reorders after.
	for (int e = 0; e < 2; ++e) {
		uint32_t arch = 0, rout = 0;
		throng_world* w = standing_world(engines[e], &arch, &rout);
		const uint32_t loose = file_of(w, arch, THRONG_NO_UNIT, 0, 10, -20.0f, -5.0f);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		remove_ids(w, loose + 2, 1);
		cr_assert_null(w->unit);
		const uint64_t hash = throng_world_hash(w);
		size_t bytes = 0;
		cr_assert_eq(throng_world_write_checkpoint(w, NULL, 0, &bytes), THRONG_OK, "%s", throng_last_error());
		void* buf = malloc(bytes);
		cr_assert_not_null(buf);
		cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &bytes), THRONG_OK, "%s", throng_last_error());
		throng_world* back = NULL;
		cr_assert_eq(throng_world_read_checkpoint(buf, bytes, &back), THRONG_OK, "%s", throng_last_error());
		free(buf);
		cr_assert_null(back->unit);
		cr_assert_eq(throng_world_hash(back), hash);
		throng_world_destroy(back);
		const throng_unit_def u = quiet_unit(arch, rout, 0.1f);
		const uint32_t unit = add_unit(w, &u);
		cr_assert_not_null(w->unit);
		const uint32_t first = file_of(w, arch, unit, 1, 100, 20.0f, -90.0f);
		cr_assert_eq(file_of(w, arch, unit, 1, 100, 22.0f, -90.0f), first + 100u);
		for (int k = 0; k < 3; ++k) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		throng_agent_state a;
		for (uint32_t id = loose; id < first + 200u; ++id) {
			if (id == loose + 2u) {
				continue;
			}
			cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
			cr_assert_eq(a.unit, id >= first ? unit : THRONG_NO_UNIT, "engine %d, agent %u: unit %u", e, id, a.unit);
		}
		throng_world_destroy(w);
	}
}

Test(morale, losses_alone_rout_it_at_breaks_at_and_it_runs_for_its_refuge)
{
	// 12 standing soldiers, breaks_at 0.25: morale = 1 - lost / 3. Two
	// lost: 1/3 left, still in order; the third: 0, it routs. Its centre
	// is then the mean of the 9 left (x 0, y -2.5 .. 5.5: 1.5), its
	// facing +x, so without a refuge it runs 1 km behind its facing, held
	// 1 m inside the world: (-99, 1.5).
	for (int e = 0; e < 2; ++e) {
		uint32_t arch = 0, rout = 0;
		throng_world* w = standing_world(engines[e], &arch, &rout);
		const throng_unit_def def = quiet_unit(arch, rout, 0.25f);
		const uint32_t u = add_unit(w, &def);
		const uint32_t first = file_of(w, arch, u, 0, 12, 0.0f, -5.5f);
		cr_assert_eq(thr_test_agent(w, first).unit, u);
		thr_test_step(w);
		throng_unit_state s = thr_test_unit(w, u);
		cr_assert_eq(s.count, 12u);
		cr_assert_eq(s.most, 12u);
		cr_assert_float_eq(s.morale, 1.0f, 1e-6f);
		cr_assert(!s.routing);
		cr_assert_eq(s.routed_step, UINT64_MAX);
		cr_assert_float_eq(s.centre.x, 0.0f, 1e-6f);
		cr_assert_float_eq(s.centre.y, 0.0f, 1e-6f);
		cr_assert_float_eq(s.facing.x, 1.0f, 1e-6f);

		remove_ids(w, first, 2);
		thr_test_step(w);
		s = thr_test_unit(w, u);
		cr_assert_eq(s.count, 10u);
		cr_assert_float_eq(s.morale, 1.0f / 3.0f, 1e-6f, "engine %d: %g", e, (double)s.morale);
		cr_assert(!s.routing);

		remove_ids(w, first + 2, 1);
		thr_test_step(w);
		s = thr_test_unit(w, u);
		cr_assert_eq(s.count, 9u);
		cr_assert_float_eq(s.morale, 0.0f, 1e-6f, "engine %d: %g", e, (double)s.morale);
		cr_assert(s.routing);
		cr_assert_eq(s.routed_step, 3u);
		cr_assert_float_eq(s.centre.y, 1.5f, 1e-6f);
		cr_assert_float_eq(s.refuge.x, -99.0f, 1e-6f);
		cr_assert_float_eq(s.refuge.y, 1.5f, 1e-6f);
		for (uint32_t id = first + 3; id < first + 12; ++id) {
			const throng_agent_state a = thr_test_agent(w, id);
			cr_assert_eq(a.archetype, rout);
			cr_assert_float_eq(a.target.x, -99.0f, 1e-6f);
			cr_assert_float_eq(a.target.y, 1.5f, 1e-6f);
			cr_assert_eq(a.target_agent, THRONG_NO_AGENT);
			cr_assert(a.combat_state & THRONG_COMBAT_ROUTING);
			cr_assert_float_eq(a.health, 100.0f, 0.0f); // a routing soldier keeps its health
		}
		// A soldier who joins the routing unit (a spawn, a source) runs
		// with it.
		const uint32_t late = file_of(w, arch, u, 0, 1, 0.0f, 8.0f);
		thr_test_step(w);
		cr_assert_eq(thr_test_agent(w, late).archetype, rout);
		cr_assert_float_eq(thr_test_agent(w, late).target.x, -99.0f, 1e-6f);
		cr_assert(thr_test_agent(w, late).combat_state & THRONG_COMBAT_ROUTING);
		// They run: the routing controller seeks the refuge.
		for (int k = 0; k < 7; ++k) {
			thr_test_step(w);
		}
		for (uint32_t id = first + 3; id < first + 12; ++id) {
			const throng_agent_state a = thr_test_agent(w, id);
			cr_assert_lt(a.position.x, -1.0f, "agent %u at %g", id, (double)a.position.x);
			cr_assert(a.combat_state & THRONG_COMBAT_ROUTING);
		}
		throng_world_destroy(w);
	}
}

Test(morale, a_routing_unit_rallies_after_rally_time_once)
{
	// Three lost at once: it routs in step 2. rally_time 2 s is 8 steps of
	// 0.25 s without a hit, so it rallies in step 10: its archetype back, morale
	// rally_morale 0.5, its losses counted from its 9. Two more lost:
	// 0.5 - 2/3 < 0, it routs again, and with no rally left it runs for
	// good.
	for (int e = 0; e < 2; ++e) {
		uint32_t arch = 0, rout = 0;
		throng_world* w = standing_world(engines[e], &arch, &rout);
		throng_unit_def def = quiet_unit(arch, rout, 0.25f);
		def.morale.rally_time = 2.0f;
		def.morale.rally_morale = 0.5f;
		def.morale.rallies = 1;
		const uint32_t u = add_unit(w, &def);
		const uint32_t first = file_of(w, arch, u, 0, 12, 0.0f, -5.5f);
		thr_test_step(w);
		remove_ids(w, first, 3);
		thr_test_step(w); // most 12, 3 lost: routs at step 2
		cr_assert(thr_test_unit(w, u).routing);
		cr_assert_eq(thr_test_unit(w, u).routed_step, 2u);
		for (int k = 3; k <= 9; ++k) {
			thr_test_step(w);
			cr_assert(thr_test_unit(w, u).routing, "engine %d: rallied at step %d", e, k);
		}
		thr_test_step(w); // step 10: 8 quiet steps since it routed
		throng_unit_state s = thr_test_unit(w, u);
		cr_assert(!s.routing, "engine %d", e);
		cr_assert_eq(s.rallies_left, 0u);
		cr_assert_float_eq(s.morale, 0.5f, 1e-6f);
		cr_assert_eq(s.routed_step, 2u);
		for (uint32_t id = first + 3; id < first + 12; ++id) {
			const throng_agent_state a = thr_test_agent(w, id);
			cr_assert_eq(a.archetype, arch);
			cr_assert_eq(a.combat_state & THRONG_COMBAT_ROUTING, 0u);
			// It stops where it rallied: its target point is where it
			// stands, no longer the refuge it ran for.
			cr_assert(a.target.x == a.position.x && a.target.y == a.position.y,
			          "engine %d: agent %u targets (%g, %g), stands at (%g, %g)", e, id, (double)a.target.x,
			          (double)a.target.y, (double)a.position.x, (double)a.position.y);
			cr_assert_gt(hypotf(a.target.x - s.refuge.x, a.target.y - s.refuge.y), 5.0f);
		}
		thr_test_step(w);
		cr_assert_float_eq(thr_test_unit(w, u).morale, 0.5f, 1e-6f);
		remove_ids(w, first + 3, 2);
		thr_test_step(w);
		s = thr_test_unit(w, u);
		cr_assert(s.routing);
		cr_assert_float_eq(s.morale, 0.5f - 2.0f / 3.0f, 1e-6f);
		cr_assert_eq(s.routed_step, 2u); // the first rout's
		for (int k = 0; k < 60; ++k) {
			thr_test_step(w);
		}
		cr_assert(thr_test_unit(w, u).routing); // no rally left
		throng_world_destroy(w);
	}
}

/// Army 0: unit A, 4 soldiers of health 1 at x 0 (y 0..3), and unit B, 4
/// more at x 50, both with army_breaks_at 0.5 (their army's strength is
/// 8) and breaks_at 1 (A's own losses never rout it before it is gone);
/// B rallies after 0.5 s if it can. Four killers of army 1 stand 0.8 m
/// in front of A's soldiers and kill one each in the first step that
/// they strike (damage 1000, always hits), unless `take_out`, when A's
/// soldiers are removed by game code instead. Returns B's state after
/// 20 steps (5 s), and A's into *a.
static throng_unit_state army_break(throng_engine engine, bool take_out, throng_unit_state* a)
{
	uint32_t arch = 0, rout = 0;
	throng_world* w = standing_world(engine, &arch, &rout);
	throng_unit_def def = quiet_unit(arch, rout, 1.0f);
	def.morale.army_breaks_at = 0.5f;
	def.morale.rally_time = 0.5f;
	const uint32_t ua = add_unit(w, &def), ub = add_unit(w, &def);
	const uint32_t first = file_of(w, arch, ua, 0, 4, 0.0f, 0.0f);
	for (uint32_t id = first; id < first + 4; ++id) {
		cr_assert_eq(throng_world_set_health(w, id, 1.0f), THRONG_OK);
	}
	file_of(w, arch, ub, 0, 4, 50.0f, 0.0f);
	if (!take_out) {
		throng_controller k = standing();
		k.combat.attack = THRONG_ATTACK_MELEE;
		k.combat.reach = 1.0f;
		k.combat.damage = 1000.0f;
		k.combat.cooldown = 0.25f;
		k.combat.accuracy = 1.0f;
		k.target_rule = (throng_target_rule){true, 0u, 3.0f, 1u, 0u};
		file_of(w, thr_test_archetype(w, &k), THRONG_NO_UNIT, 1, 4, 0.8f, 0.0f);
	} else {
		thr_test_step(w);
		remove_ids(w, first, 4);
	}
	for (int k = 0; k < 20; ++k) {
		thr_test_step(w);
	}
	*a = thr_test_unit(w, ua);
	const throng_unit_state b = thr_test_unit(w, ub);
	throng_world_destroy(w);
	return b;
}

Test(morale, an_army_that_has_lost_army_breaks_at_killed_breaks_and_does_not_rally)
{
	// Half of army 0 killed in front of A: B, 50 m away and untouched,
	// routs with it and never rallies (quiet for 4.5 s, rally_time 0.5 s).
	// The same four taken out by game code (as a sink takes routers off
	// the field) are not killed: B stands.
	for (int e = 0; e < 2; ++e) {
		throng_unit_state a;
		throng_unit_state b = army_break(engines[e], false, &a);
		cr_assert_eq(a.count, 0u, "engine %d: %u of A alive", e, a.count);
		cr_assert_eq(a.killed, 4u, "engine %d", e);
		cr_assert_eq(b.count, 4u);
		cr_assert_eq(b.killed, 0u);
		cr_assert(b.routing, "engine %d: B stands with half its army killed", e);
		cr_assert_eq(b.rallies_left, 1u, "engine %d: B rallied", e);
		cr_assert_float_eq(b.shock, 0.0f, 0.0f); // no hit, no panic: the army's break alone
		b = army_break(engines[e], true, &a);
		cr_assert_eq(a.count, 0u);
		cr_assert_eq(a.killed, 0u);
		cr_assert(!b.routing, "engine %d: B routs when A's soldiers were taken out, not killed", e);
	}
}

/// A unit of 10 standing soldiers (x 0, y 0..9, facing +x; breaks_at
/// 0.5, flank 1, rear 3, recovery `recovery`) and one attacker at `at`
/// that strikes soldier 0 once (damage 10, always hits). Its morale
/// after each of `steps` steps into morale[].
static void one_hit(throng_engine engine, throng_vec2 at, float recovery, float* morale, int steps)
{
	uint32_t arch = 0, rout = 0;
	throng_world* w = standing_world(engine, &arch, &rout);
	throng_controller hitter = standing();
	hitter.combat.attack = THRONG_ATTACK_MELEE;
	hitter.combat.reach = 0.5f;
	hitter.combat.damage = 10.0f;
	hitter.combat.cooldown = 1000.0f;
	hitter.combat.accuracy = 1.0f;
	const uint32_t harch = thr_test_archetype(w, &hitter);
	throng_unit_def def = quiet_unit(arch, rout, 0.5f);
	def.morale.flank = 1.0f;
	def.morale.rear = 3.0f;
	def.morale.recovery = recovery;
	const uint32_t u = add_unit(w, &def);
	const uint32_t first = file_of(w, arch, u, 0, 10, 0.0f, 0.0f);
	throng_agent_def a = throng_agent_default_def();
	a.position = at;
	a.target = at;
	a.archetype = harch;
	a.target_agent = first;
	a.group = 1;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < steps; ++k) {
		thr_test_step(w);
		morale[k] = thr_test_unit(w, u).morale;
	}
	cr_assert_float_eq(thr_test_agent(w, first).health, 90.0f, 0.0f);
	throng_world_destroy(w);
}

Test(morale, a_hit_weighs_by_where_its_attacker_stands)
{
	// One hit on a unit of 10 with breaks_at 0.5 (a loss is worth
	// 1 / (0.5 * 10) = 0.2 of morale): from the front nothing, from a
	// flank 1 loss (0.8 left), from behind 3 (0.4 left). With recovery
	// 0.4/s the rear's shock of 0.6 falls by 0.1 a step.
	for (int e = 0; e < 2; ++e) {
		float m[3];
		one_hit(engines[e], (throng_vec2){0.7f, 0.0f}, 0.0f, m, 1);
		cr_assert_float_eq(m[0], 1.0f, 1e-6f, "front: %g", (double)m[0]);
		one_hit(engines[e], (throng_vec2){0.0f, -0.7f}, 0.0f, m, 1);
		cr_assert_float_eq(m[0], 0.8f, 1e-6f, "flank: %g", (double)m[0]);
		one_hit(engines[e], (throng_vec2){-0.7f, 0.0f}, 0.0f, m, 1);
		cr_assert_float_eq(m[0], 0.4f, 1e-6f, "rear: %g", (double)m[0]);
		one_hit(engines[e], (throng_vec2){-0.7f, 0.0f}, 0.4f, m, 3);
		cr_assert_float_eq(m[0], 0.4f, 1e-6f, "rear, recovering: %g", (double)m[0]);
		cr_assert_float_eq(m[1], 0.5f, 1e-6f, "%g", (double)m[1]);
		cr_assert_float_eq(m[2], 0.6f, 1e-6f, "%g", (double)m[2]);
	}
}

Test(morale, panic_spreads_to_units_of_its_army_within_panic_radius)
{
	// A (army 0) routs in step 2 and stays where it is (its refuge is its
	// own centre, its rout archetype stands). B (army 0, 10 m away, panic
	// 0.125/s: 0.03125 a step) loses morale from step 3 and routs when
	// its shock reaches 1, in step 2 + 32 = 34. C (army 1, as near) and D
	// (army 0, 50 m away, beyond panic_radius 30) keep theirs.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = thr_test_battlefield(engines[e], 1, 5);
		const throng_controller c = standing();
		const uint32_t arch = thr_test_archetype(w, &c);
		uint32_t units[4];
		const float xs[4] = {0.0f, 10.0f, -10.0f, 50.0f};
		const uint32_t army[4] = {0, 0, 1, 0};
		uint32_t first[4];
		for (int k = 0; k < 4; ++k) {
			throng_unit_def def = quiet_unit(arch, arch, 0.5f);
			def.army = army[k];
			def.morale.panic = 0.125f;
			def.morale.panic_radius = 30.0f;
			if (k == 0) {
				def.has_refuge = true;
				def.refuge = (throng_vec2){0.0f, 1.5f};
			}
			units[k] = add_unit(w, &def);
			first[k] = file_of(w, arch, units[k], army[k], 4, xs[k], 0.0f);
		}
		thr_test_step(w);
		remove_ids(w, first[0], 2);
		thr_test_step(w);
		cr_assert(thr_test_unit(w, units[0]).routing);
		for (int s = 3; s <= 33; ++s) {
			thr_test_step(w);
			cr_assert(!thr_test_unit(w, units[1]).routing, "engine %d: B routed at step %d", e, s);
		}
		cr_assert_float_eq(thr_test_unit(w, units[1]).morale, 1.0f - 31.0f * 0.03125f, 1e-6f);
		thr_test_step(w);
		const throng_unit_state b = thr_test_unit(w, units[1]);
		cr_assert(b.routing, "engine %d: morale %g", e, (double)b.morale);
		cr_assert_eq(b.routed_step, 34u);
		cr_assert_float_eq(b.shock, 1.0f, 1e-6f);
		cr_assert_float_eq(thr_test_unit(w, units[2]).morale, 1.0f, 0.0f);
		cr_assert_float_eq(thr_test_unit(w, units[3]).morale, 1.0f, 0.0f);
		cr_assert(!thr_test_unit(w, units[2]).routing && !thr_test_unit(w, units[3]).routing);
		throng_world_destroy(w);
	}
}

/// A unit of 40 standing soldiers (4 files of 10, facing +x, health 30,
/// no attack; breaks_at 0.5, flank 1, rear 3) attacked by 20 soldiers
/// (health 1e6, damage 10 at accuracy 0.5 every second, each pursuing the
/// nearest of the unit) starting 6 m in front of it (x > 0) or behind it.
/// Returns the step it routed in (0: not in 3,000 steps) and its losses
/// then, and the world's hash.
static uint64_t attacked(throng_engine engine, bool from_behind, uint32_t* lost, uint64_t* hash)
{
	throng_world* w = thr_test_battlefield(engine, 1, 5);
	throng_controller c = standing();
	c.combat.health = 30.0f;
	const uint32_t arch = thr_test_archetype(w, &c);
	const throng_controller rc = throng_controller_routing(&c);
	const uint32_t rout = thr_test_archetype(w, &rc);
	throng_controller foe = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.priority = true;
	sep.weight = 4.0f;
	sep.params.neighbor_radius = 0.9f;
	throng_controller_add(&foe, sep);
	throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
	chase.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&foe, chase);
	foe.target_rule = (throng_target_rule){true, 0u, 100.0f, 4u, 0u};
	foe.combat = c.combat;
	foe.combat.health = 1.0e6f;
	foe.combat.attack = THRONG_ATTACK_MELEE;
	foe.combat.reach = 0.3f;
	foe.combat.damage = 10.0f;
	foe.combat.cooldown = 1.0f;
	foe.combat.accuracy = 0.5f;
	const uint32_t farch = thr_test_archetype(w, &foe);
	throng_unit_def def = quiet_unit(arch, rout, 0.5f);
	def.morale.flank = 1.0f;
	def.morale.rear = 3.0f;
	def.morale.recovery = 0.02f;
	const uint32_t u = add_unit(w, &def);
	for (int f = 0; f < 4; ++f) {
		file_of(w, arch, u, 0, 10, -0.8f * (float)f, -4.5f);
	}
	const float x0 = from_behind ? -2.4f - 6.0f : 6.0f;
	for (int f = 0; f < 2; ++f) {
		file_of(w, farch, THRONG_NO_UNIT, 1, 10, x0 + (from_behind ? -0.8f : 0.8f) * (float)f, -4.5f);
	}
	uint64_t routed = 0;
	for (int k = 0; k < 3000 && routed == 0; ++k) {
		thr_test_step(w);
		const throng_unit_state s = thr_test_unit(w, u);
		if (s.routing) {
			routed = s.routed_step;
			*lost = s.most - s.count;
		}
	}
	*hash = throng_world_hash(w);
	throng_world_destroy(w);
	return routed;
}

Test(morale, a_unit_attacked_in_the_rear_routs_sooner_than_one_attacked_in_front)
{
	uint32_t lost[2][2];
	uint64_t hash[2][2], when[2][2];
	for (int e = 0; e < 2; ++e) {
		for (int r = 0; r < 2; ++r) {
			when[e][r] = attacked(engines[e], r == 1, &lost[e][r], &hash[e][r]);
		}
	}
	for (int r = 0; r < 2; ++r) {
		cr_assert_eq(when[0][r], when[1][r], "the engines differ");
		cr_assert_eq(hash[0][r], hash[1][r], "the engines differ");
		cr_assert_gt(when[0][r], 0u, "%s: never routed", r ? "rear" : "front");
	}
	printf("morale: front routs at step %llu with %u of 40 lost, rear at step %llu with %u lost\n",
	       (unsigned long long)when[0][0], lost[0][0], (unsigned long long)when[0][1], lost[0][1]);
	cr_assert_lt(when[0][1], when[0][0]);
	cr_assert_lt(lost[0][1], lost[0][0]);
	// From the front, losses do most of it: about breaks_at's 20 (a few
	// hits land on the flanks as the attackers spread round it).
	cr_assert_geq(lost[0][0], 12u);
	cr_assert_leq(lost[0][0], 20u);
}

/// Two armies of 4 units of `per` soldiers that charge each other
/// (pursuit of the nearest enemy, melee), morale at its defaults; the
/// hashes after every 50 of `steps` steps into hashes[], and how many
/// units routed.
static uint32_t battle(throng_engine engine, uint32_t threads, uint32_t per, uint32_t steps, uint64_t* hashes)
{
	throng_world* w = thr_test_battlefield(engine, threads, 5);
	uint32_t arch[2], rout[2];
	for (int side = 0; side < 2; ++side) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
		throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
		sep.priority = true;
		sep.weight = 4.0f;
		sep.params.neighbor_radius = 0.9f;
		throng_controller_add(&c, sep);
		throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
		chase.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&c, chase);
		c.target_rule = (throng_target_rule){true, (uint32_t)(1 - side), 150.0f, 8u, 0u};
		c.combat.enabled = true;
		c.combat.health = 60.0f;
		c.combat.attack = THRONG_ATTACK_MELEE;
		c.combat.reach = 0.3f;
		c.combat.damage = 20.0f;
		c.combat.cooldown = 1.0f;
		c.combat.accuracy = side == 0 ? 0.55f : 0.45f;
		arch[side] = thr_test_archetype(w, &c);
		const throng_controller rc = throng_controller_routing(&c);
		rout[side] = thr_test_archetype(w, &rc);
	}
	const uint32_t rows = 6;
	const uint32_t cols = (per + rows - 1u) / rows;
	for (int side = 0; side < 2; ++side) {
		for (uint32_t k = 0; k < 4; ++k) {
			throng_unit_def def = throng_unit_default_def();
			def.archetype = arch[side];
			def.rout_archetype = rout[side];
			def.army = (uint32_t)side;
			const uint32_t u = add_unit(w, &def);
			throng_agent_def* defs = calloc(per, sizeof *defs);
			cr_assert_not_null(defs);
			for (uint32_t i = 0; i < per; ++i) {
				throng_agent_def a = throng_agent_default_def();
				const float sign = side == 0 ? -1.0f : 1.0f;
				a.position = (throng_vec2){sign * (4.0f + 0.8f * (float)(i % rows)),
				                           -60.0f + 30.0f * (float)k + 0.8f * (float)(i / rows) - 0.4f * (float)cols};
				a.heading = (throng_vec2){-sign, 0.0f};
				a.archetype = arch[side];
				a.group = (uint32_t)side;
				a.unit = u;
				a.max_speed = 1.5f;
				defs[i] = a;
			}
			cr_assert_eq(throng_world_spawn(w, defs, per, NULL), THRONG_OK, "%s", throng_last_error());
			free(defs);
		}
	}
	for (uint32_t s = 0; s < steps; ++s) {
		thr_test_step(w);
		if ((s + 1u) % 50u == 0u) {
			hashes[s / 50u] = throng_world_hash(w);
		}
	}
	uint32_t routed = 0;
	for (uint32_t u = 0; u < throng_world_unit_count(w); ++u) {
		routed += thr_test_unit(w, u).routed_step != UINT64_MAX;
	}
	throng_world_destroy(w);
	return routed;
}

Test(morale, a_battle_of_units_is_the_same_in_both_engines_and_on_any_thread_count, .timeout = 300)
{
	// 4,800 soldiers: above the agent count from which the SIMD engine's
	// passes run in parallel.
	enum { PER = 600, STEPS = 600 };
	uint64_t h[3][STEPS / 50];
	const uint32_t routed = battle(THRONG_ENGINE_SIMD, 2, PER, STEPS, h[0]);
	cr_assert_eq(battle(THRONG_ENGINE_SIMD, 1, PER, STEPS, h[1]), routed);
	cr_assert_eq(battle(THRONG_ENGINE_SCALAR, 1, PER, STEPS, h[2]), routed);
	for (int k = 0; k < STEPS / 50; ++k) {
		cr_assert_eq(h[0][k], h[1][k], "1 and 2 threads differ after step %d", 50 * (k + 1));
		cr_assert_eq(h[0][k], h[2][k], "the engines differ after step %d", 50 * (k + 1));
	}
	printf("morale: battle of 2 x 4 x %d: %u units routed in %d steps, hash %016llx\n", PER, routed, STEPS,
	       (unsigned long long)h[0][STEPS / 50 - 1]);
	cr_assert_gt(routed, 0u, "no unit routed: the battle does not test rout");
}

Test(morale, the_routing_controller_keeps_the_body_and_drops_the_goal)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.priority = true;
	throng_controller_add(&c, sep);
	throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
	chase.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&c, chase);
	throng_controller_add(&c, throng_slot_default_def(THRONG_WALL_AVOID));
	c.target_rule = (throng_target_rule){true, 1u, 50.0f, 4u, 0u};
	c.combat.enabled = true;
	c.combat.health = 80.0f;
	c.combat.armour = 3.0f;
	c.combat.attack = THRONG_ATTACK_MELEE;
	const throng_controller r = throng_controller_routing(&c);
	cr_assert_eq(r.mode, THRONG_BLEND_HYBRID);
	cr_assert_eq(r.slot_count, 3u);
	cr_assert_eq(r.slots[0].kind, THRONG_SEPARATION);
	cr_assert(r.slots[0].priority);
	cr_assert_eq(r.slots[1].kind, THRONG_WALL_AVOID);
	cr_assert_eq(r.slots[2].kind, THRONG_SEEK);
	cr_assert_eq(r.slots[2].params.target, THRONG_TARGET_POINT);
	cr_assert(!r.target_rule.enabled);
	cr_assert(r.combat.enabled);
	cr_assert_eq(r.combat.attack, THRONG_ATTACK_NONE);
	cr_assert_float_eq(r.combat.health, 80.0f, 0.0f);
	cr_assert_float_eq(r.combat.armour, 3.0f, 0.0f);
}

/// throng_world_add_unit's error for def, which must name `field`.
static void refused(throng_world* w, throng_unit_def def, const char* field)
{
	uint32_t id = 77;
	cr_assert_neq(throng_world_add_unit(w, &def, &id), THRONG_OK, "%s accepted", field);
	cr_assert_eq(id, 77u);
	cr_assert_not_null(strstr(throng_last_error(), field), "'%s' does not name %s", throng_last_error(), field);
	cr_assert_eq(throng_world_unit_count(w), 0u);
}

Test(morale, bad_input_is_refused_naming_the_field)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 5);
	const throng_controller c = standing();
	const uint32_t arch = thr_test_archetype(w, &c);
	const throng_controller plain = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	const uint32_t no_combat = thr_test_archetype(w, &plain);
	const throng_unit_def good = quiet_unit(arch, arch, 0.4f);
	throng_unit_def d = good;
	d.internal_cookie = 0;
	refused(w, d, "throng_unit_default_def");
	d = good;
	d.archetype = 9;
	refused(w, d, "def.archetype: no archetype 9");
	d = good;
	d.rout_archetype = no_combat;
	refused(w, d, "def.rout_archetype");
	d = good;
	d.has_refuge = true;
	d.refuge = (throng_vec2){NAN, 0.0f};
	refused(w, d, "def.refuge");
	const struct {
		const char* field;
		float* at;
		float bad;
	} cases[] = {{"breaks_at", &d.morale.breaks_at, 0.0f},      {"breaks_at", &d.morale.breaks_at, 1.5f},
	             {"flank", &d.morale.flank, -1.0f},             {"rear", &d.morale.rear, NAN},
	             {"panic", &d.morale.panic, INFINITY},          {"panic_radius", &d.morale.panic_radius, -2.0f},
	             {"recovery", &d.morale.recovery, 2.0e6f},      {"rally_time", &d.morale.rally_time, NAN},
	             {"rally_morale", &d.morale.rally_morale, 0.0f}, {"rally_morale", &d.morale.rally_morale, 1.01f},
	             {"army_breaks_at", &d.morale.army_breaks_at, 0.0f}, {"army_breaks_at", &d.morale.army_breaks_at, NAN}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		d = good;
		*cases[k].at = cases[k].bad;
		char field[64];
		snprintf(field, sizeof field, "def.morale.%s", cases[k].field);
		refused(w, d, field);
	}
	uint32_t id = 0;
	cr_assert_eq(throng_world_add_unit(w, NULL, &id), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_add_unit(w, &good, NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_unit_state s;
	cr_assert_eq(throng_world_get_unit(w, 0, &s), THRONG_ERR_NOT_FOUND);
	cr_assert_not_null(strstr(throng_last_error(), "unit: no unit 0"));
	// An agent of a unit that does not exist.
	throng_agent_def a = throng_agent_default_def();
	a.archetype = arch;
	a.unit = 3;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_ERR_NOT_FOUND);
	cr_assert_not_null(strstr(throng_last_error(), "agents[0].unit: no unit 3"), "%s", throng_last_error());
	cr_assert_eq(throng_world_agent_count(w), 0u);
	throng_world_destroy(w);
}
