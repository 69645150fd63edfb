// SPDX-License-Identifier: MIT
// The scenarios of issue 4 (crossing, bottleneck, hallway, armies, flock)
// and every built-in scenario in both engines at small N.
//
// Each test runs a scene through the crowd-quality metrics
// (throng/metrics.h) and checks what the scenario's comment promises: the
// speed limit, finite values and the armies' battle resolving
// (scenario_armies.c defines the measure). The walled scenes run to their
// end in test_scene_walls.c, the acceptance runs at 1,000 agents in
// test_scene_accept.c.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/throng.h"

Test(scenes, new_scenarios_are_listed)
{
	static const char* const names[] = {"herd", "circle", "field", "crossing", "bottleneck", "hallway", "armies",
	                                    "flock"};
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

Test(scenes, armies_battle_resolves)
{
	// 200 soldiers, the default 30 s. The fronts start 40 m apart and
	// close at 5 m/s: no one is engaged at 5 s; by 30 s at least half of
	// the infantry is within 1.5 m of the enemy it chose
	// (scenario_armies.c) and the infantry centres of mass have met.
	throng_scene* s = thr_test_scene("armies", 200, THRONG_ENGINE_SIMD);
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
	cr_log_info("armies 200: engaged %.3f, resolved at %.2f s, infantry gap %.2f m, max speed ratio %.7f", engaged,
	            at, gap, q.max_speed_ratio);
	cr_assert_geq(at, 5.0, "%.2f", at);
	cr_assert_leq(at, 30.0, "%.2f", at);
	cr_assert_lt(gap, 10.0, "%.2f m", gap);
	cr_assert_leq(q.max_speed_ratio, 1.000001, "%.9f", q.max_speed_ratio);
	cr_assert_eq(q.nonfinite, 0u);
	cr_assert_eq(q.out_of_bounds, 0u, "the field is contained");
	throng_scene_destroy(s);
}

Test(scenes, outcomes_only_where_defined)
{
	throng_scene* s = thr_test_scene("crossing", 8, THRONG_ENGINE_SIMD);
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	cr_assert_eq(throng_scene_outcomes(s, out, THRONG_MAX_OUTCOMES), 0u);
	cr_assert_eq(throng_scene_outcomes(NULL, out, THRONG_MAX_OUTCOMES), 0u);
	throng_scene_destroy(s);
	s = thr_test_scene("armies", 8, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_outcomes(s, out, 1), 3u, "the count, even when cap is smaller");
	cr_assert_str_eq(out[0].name, "engaged");
	throng_scene_destroy(s);
}
