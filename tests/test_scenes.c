// SPDX-License-Identifier: MIT
// The scenarios of issue 4 (crossing, bottleneck, hallway, charge, flock),
// every built-in scenario in both engines at small N, and `dense`'s
// density (issue 37).
//
// Each test runs a scene through the crowd-quality metrics
// (throng/metrics.h) and checks what the scenario's comment promises: the
// speed limit, finite values and the charge's battle resolving
// (scenario_charge.c defines the measure). The walled scenes run to their
// end in test_scene_walls.c, the acceptance runs at 1,000 agents in
// test_scene_accept.c.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/events.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/throng.h"

Test(scenes, new_scenarios_are_listed)
{
	static const char* const names[] = {"herd",    "circle", "field",  "crossing", "bottleneck",
	                                    "hallway", "armies", "charge", "flock"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		const throng_scenario_info* info = throng_scenario_find(names[k]);
		cr_assert_not_null(info, "%s", names[k]);
		cr_assert_gt(info->default_agents, 0u);
		cr_assert_gt(info->default_steps, 0u);
		cr_assert_null(strchr(info->description, '\n'));
	}
}

Test(scenes, every_scenario_scales_with_agents)
{
	static const uint32_t counts[] = {1, 2, 3, 7, 333};
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* name = throng_scenario_at(k)->name;
		for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
			throng_scene* s = thr_test_scene(name, counts[c], THRONG_ENGINE_SIMD);
			cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), counts[c], "%s", name);
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s x %u: %s", name, counts[c], throng_last_error());
			throng_scene_destroy(s);
		}
	}
}

Test(scenes, every_scenario_in_both_engines)
{
	// 96 agents, 2 s: the speed limit, no non-finite value, and the two
	// engines agree to the bit.
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* name = throng_scenario_at(k)->name;
		uint64_t h[2];
		for (int e = 0; e < 2; ++e) {
			throng_engine engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
			throng_scene* s = thr_test_scene(name, 96, engine);
			throng_quality q = thr_test_run_scene(s, 120, &h[e]);
			cr_assert_leq(q.max_speed_ratio, 1.000001, "%s (%s): %.9f", name, throng_engine_name(engine),
			              q.max_speed_ratio);
			cr_assert_eq(q.nonfinite, 0u, "%s", name);
			cr_assert_eq(q.steps, 120u);
			throng_scene_destroy(s);
		}
		cr_assert_eq(h[0], h[1], "%s: simd %016llx, scalar %016llx", name, (unsigned long long)h[0],
		             (unsigned long long)h[1]);
	}
}

Test(scenes, charge_battle_resolves)
{
	// 200 soldiers, the default 30 s. The fronts start 40 m apart and
	// close at 5 m/s: no one is engaged at 5 s; by 30 s at least half of
	// the infantry is within 1.5 m of the enemy it chose
	// (scenario_charge.c) and the infantry centres of mass have met.
	throng_scene* s = thr_test_scene("charge", 200, THRONG_ENGINE_SIMD);
	uint32_t steps = throng_scene_info(s)->default_steps;
	cr_assert_eq(steps, 1800u);
	double gap0 = thr_test_outcome(s, "infantry_gap");
	cr_assert_gt(gap0, 40.0, "%.2f", gap0);
	throng_quality q = thr_test_run_scene(s, 300, NULL);
	cr_assert_lt(thr_test_outcome(s, "engaged"), 0.5);
	cr_assert_lt(thr_test_outcome(s, "resolved_at"), 0.0, "not resolved at 5 s");
	q = thr_test_run_scene(s, steps - 300, NULL);
	double engaged = thr_test_outcome(s, "engaged");
	double at = thr_test_outcome(s, "resolved_at");
	double gap = thr_test_outcome(s, "infantry_gap");
	cr_log_info("charge 200: engaged %.3f, resolved at %.2f s, infantry gap %.2f m, max speed ratio %.7f", engaged,
	            at, gap, q.max_speed_ratio);
	cr_assert_geq(at, 5.0, "%.2f", at);
	cr_assert_leq(at, 30.0, "%.2f", at);
	cr_assert_lt(gap, 10.0, "%.2f m", gap);
	cr_assert_leq(q.max_speed_ratio, 1.000001, "%.9f", q.max_speed_ratio);
	cr_assert_eq(q.nonfinite, 0u);
	cr_assert_eq(q.out_of_bounds, 0u, "the field is contained");
	throng_scene_destroy(s);
}

/// The soldiers of label `label` alive (*alive) and of them standing
/// (their unit not routing).
static uint32_t armies_standing(const throng_world* w, uint32_t label, uint32_t* alive)
{
	const throng_view v = throng_world_view(w);
	uint32_t standing = 0;
	*alive = 0;
	for (uint32_t k = 0; k < v.count; ++k) {
		if (v.group[k] == label) {
			++*alive;
			standing += (v.combat_state[k] & THRONG_COMBAT_ROUTING) == 0;
		}
	}
	return standing;
}

Test(scenes, armies_battle_ends_with_a_winner, .timeout = 300)
{
	// 400 soldiers, seed 2, the default 240 s (scenario_armies.c): won by
	// army 0 at 34 s, its 131 standing to the end. Every soldier who
	// leaves is listed once: killed (its killer named, an enemy) or
	// gone out of an exit. The battle is
	// decided (one side standing) before the end; the measure's figures
	// agree with the world's: the winner's standing soldiers, none
	// standing on the other side, the first rout before the decision.
	throng_scene* s = thr_test_scene_threads("armies", 400, 2, THRONG_ENGINE_SIMD, 1);
	throng_world* w = throng_scene_world(s);
	const uint32_t steps = throng_scene_info(s)->default_steps;
	cr_assert_eq(steps, 14400u);
	uint8_t* gone = calloc(400, 1);
	uint32_t killed = 0, fled = 0;
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		const throng_event* ev;
		uint32_t n;
		cr_assert_eq(throng_world_events(w, &ev, &n), THRONG_OK);
		for (uint32_t e = 0; e < n; ++e) {
			if (ev[e].kind != THRONG_EVENT_REMOVED) {
				continue;
			}
			cr_assert_lt(ev[e].agent, 400u);
			cr_assert_eq(gone[ev[e].agent], 0, "agent %u removed twice", ev[e].agent);
			gone[ev[e].agent] = 1;
			if (ev[e].other != THRONG_NO_AGENT) {
				++killed;
				// Army 0 holds ids 0..199 (its groups first), army 1 the rest.
				cr_assert_neq(ev[e].agent < 200u, ev[e].other < 200u, "agent %u killed by its own side's %u",
				              ev[e].agent, ev[e].other);
			} else {
				cr_assert_neq(ev[e].zone, THRONG_NO_ZONE, "agent %u removed by neither a hit nor an exit",
				              ev[e].agent);
				++fled;
			}
		}
	}
	free(gone);
	uint32_t alive[2];
	const uint32_t standing[2] = {armies_standing(w, 0, &alive[0]), armies_standing(w, 1, &alive[1])};
	cr_assert_eq(alive[0] + alive[1] + killed + fled, 400u, "the living and the gone add up");
	cr_assert_eq(throng_world_agent_count(w), alive[0] + alive[1]);
	const double won_by = thr_test_outcome(s, "won_by");
	const double decided = thr_test_outcome(s, "decided_at");
	const double first_rout = thr_test_outcome(s, "first_rout_at");
	cr_log_info("armies 400: won by %g at %.1f s, first rout at %.1f s, standing %u and %u, alive %u and %u, %u killed, "
	            "%u fled",
	            won_by, decided, first_rout, standing[0], standing[1], alive[0], alive[1], killed, fled);
	cr_assert(won_by == 0.0 || won_by == 1.0, "won_by %g", won_by);
	const uint32_t winner = (uint32_t)won_by;
	cr_assert_gt(standing[winner], 0u);
	cr_assert_eq(standing[1u - winner], 0u);
	cr_assert_eq(alive[1u - winner], 0u, "the loser's soldiers all fell or fled");
	cr_assert_eq(thr_test_outcome(s, "standing"), (double)standing[winner]);
	cr_assert_gt(decided, 10.0, "%.2f", decided);
	cr_assert_leq(decided, 240.0, "%.2f", decided);
	cr_assert_gt(first_rout, 0.0, "%.2f", first_rout);
	cr_assert_leq(first_rout, decided);
	cr_assert_gt(killed, 0u);
	throng_scene_destroy(s);
}

Test(scenes, outcomes_only_where_defined)
{
	throng_scene* s = thr_test_scene("crossing", 8, THRONG_ENGINE_SIMD);
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	cr_assert_eq(throng_scene_outcomes(s, out, THRONG_MAX_OUTCOMES), 0u);
	cr_assert_eq(throng_scene_outcomes(NULL, out, THRONG_MAX_OUTCOMES), 0u);
	throng_scene_destroy(s);
	s = thr_test_scene("charge", 8, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_outcomes(s, out, 1), 3u, "the count, even when cap is smaller");
	cr_assert_str_eq(out[0].name, "engaged");
	throng_scene_destroy(s);
}

/// Candidates examined and neighbours within the radius per agent-step of
/// one step of s (the library's counters).
static void dense_walk(throng_scene* s, double* candidates, double* in_radius)
{
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK);
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	throng_world_counters c;
	cr_assert_eq(throng_world_get_counters(w, &c, NULL), THRONG_OK);
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_OFF), THRONG_OK);
	*candidates = (double)c.neighbor_candidates / (double)c.agents;
	*in_radius = (double)c.neighbor_in_radius / (double)c.agents;
}

Test(scenes, dense_keeps_its_density)
{
	// scenario_dense.c: FLAME GPU 2's circles density, 1 + 9 R^2 rho =
	// 205.5 candidates and pi R^2 rho = 71.4 within R, at the start and
	// still after 300 steps (5 s): the boids spread evenly, they do not
	// gather into flocks.
	throng_scene* s = thr_test_scene("dense", 5000, THRONG_ENGINE_SIMD);
	for (int round = 0; round < 2; ++round) {
		double candidates, in_radius;
		dense_walk(s, &candidates, &in_radius);
		cr_log_info("dense 5000, step %d: %.1f candidates, %.1f within the radius", round == 0 ? 1 : 302,
		            candidates, in_radius);
		cr_expect(candidates > 195.0 && candidates < 215.0, "%.1f candidates", candidates);
		cr_expect(in_radius > 67.0 && in_radius < 75.0, "%.1f within the radius", in_radius);
		for (uint32_t k = 0; round == 0 && k < 300; ++k) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		}
	}
	throng_scene_destroy(s);
}
