// SPDX-License-Identifier: MIT
// The walled and free scenes of issue 4 run to their end at small N:
// bottleneck (the door is the only way out), hallway (the walls hold, the
// flows pass) and flock (the boids align). Split from test_scenes.c so
// that each file stays within the debug build's time budget.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/throng.h"

static throng_scene* make_scene(const char* name, uint32_t agents, throng_engine engine)
{
	throng_scene_options o = throng_scene_default_options();
	o.agents = agents;
	o.engine = engine;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s: %s", name, throng_last_error());
	return s;
}

/// Steps the scene `steps` times with metrics; the figures and hash out.
static throng_quality run_scene(throng_scene* s, uint32_t steps, uint64_t* hash)
{
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(throng_scene_world(s), throng_scene_goal_radius(s), &m), THRONG_OK, "%s",
	             throng_last_error());
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, throng_scene_world(s)), THRONG_OK, "%s", throng_last_error());
	}
	if (hash != NULL) {
		*hash = throng_world_hash(throng_scene_world(s));
	}
	throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	return q;
}

/// The outcome figure `name` of the scene; fails when absent.
static double outcome(const throng_scene* s, const char* name)
{
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	uint32_t n = throng_scene_outcomes(s, out, THRONG_MAX_OUTCOMES);
	for (uint32_t k = 0; k < n && k < THRONG_MAX_OUTCOMES; ++k) {
		if (strcmp(out[k].name, name) == 0) {
			return out[k].value;
		}
	}
	cr_assert_fail("no outcome %s", name);
	return 0.0;
}

Test(scene_walls, bottleneck_empties_through_the_door_only)
{
	// 100 agents: every crossing of the door wall's line (x = 0) happens
	// between the door posts (walls 3 and 4 end at them), and within the
	// first 4800 steps (80 s) everyone is out and at its goal.
	throng_scene* s = make_scene("bottleneck", 100, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	throng_vec2 a, b;
	cr_assert_eq(throng_world_get_wall(w, 3, &a, &b), THRONG_OK);
	float door_top = b.y;
	cr_assert_eq(throng_world_get_wall(w, 4, &a, &b), THRONG_OK);
	float door_bottom = a.y;
	cr_assert_float_eq(a.x, 0.0f, 0.0f);
	cr_assert_gt(door_top - door_bottom, 1.1f);
	uint32_t n = throng_world_agent_count(w);
	float px[100];
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
		px[id] = st.position.x;
		cr_assert_lt(st.position.x, 0.0f, "everyone starts inside");
	}
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, throng_scene_goal_radius(s), &m), THRONG_OK);
	uint32_t steps = 4800, crossings = 0;
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK);
		throng_view v = throng_world_view(w);
		for (uint32_t j = 0; j < v.count; ++j) {
			uint32_t id = v.id[j];
			if ((px[id] < 0.0f) != (v.x[j] < 0.0f)) {
				crossings++;
				cr_assert(v.y[j] > door_bottom && v.y[j] < door_top, "step %u: agent %u crossed x = 0 at y = %.2f",
				          k, id, (double)v.y[j]);
			}
			px[id] = v.x[j];
		}
	}
	throng_quality q = throng_metrics_result(m);
	cr_log_info("bottleneck 100: reached %u, last at %.1f s, mean %.1f s, deepest overlap %.3f, jitter %.3f",
	            q.reached, q.max_time_to_goal, q.mean_time_to_goal, q.deepest_overlap, q.jitter);
	cr_assert_geq(crossings, n);
	cr_assert_eq(q.reached, n, "%u of %u reached their goal", q.reached, n);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_metrics_destroy(m);
	throng_scene_destroy(s);
}


Test(scene_walls, hallway_walls_hold_and_flows_pass)
{
	// 100 agents: nobody's centre leaves the corridor, and both flows
	// reach their goals on the far side within 40 s (a 22 m walk).
	throng_scene* s = make_scene("hallway", 100, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	throng_vec2 a, b;
	cr_assert_eq(throng_world_get_wall(w, 0, &a, &b), THRONG_OK);
	float half = fabsf(a.y);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, throng_scene_goal_radius(s), &m), THRONG_OK);
	for (uint32_t k = 0; k < 2400; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK);
		throng_view v = throng_world_view(w);
		for (uint32_t j = 0; j < v.count; ++j) {
			cr_assert_lt(fabsf(v.y[j]), half, "step %u: agent %u at y = %.2f", k, v.id[j], (double)v.y[j]);
		}
	}
	throng_quality q = throng_metrics_result(m);
	cr_assert_eq(q.reached, 100u);
	cr_assert_lt(q.deepest_overlap, 0.5, "%.3f", q.deepest_overlap);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_metrics_destroy(m);
	throng_scene_destroy(s);
}


Test(scene_walls, flock_aligns)
{
	// 200 boids with random headings (order about 1/sqrt(200) = 0.07)
	// align into flocks within 20 s; the torus keeps every boid inside.
	throng_scene* s = make_scene("flock", 200, THRONG_ENGINE_SIMD);
	double order0 = outcome(s, "order");
	throng_quality q = run_scene(s, 1200, NULL);
	double order = outcome(s, "order");
	cr_log_info("flock 200: order %.3f -> %.3f, jitter %.3f rad/s", order0, order, q.jitter);
	cr_assert_lt(order0, 0.2, "%.3f", order0);
	cr_assert_gt(order, 2.0 * order0, "%.3f -> %.3f", order0, order);
	cr_assert_eq(q.out_of_bounds, 0u);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_scene_destroy(s);
}
