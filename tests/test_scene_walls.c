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

/// What the bottleneck test watches: where each agent was, and the door.
typedef struct door_watch {
	float px[100];
	float door_bottom, door_top;
	uint32_t crossings;
} door_watch;

/// Every crossing of the door wall's line (x = 0) is between the posts.
static void watch_door(const throng_world* w, uint32_t step, void* user)
{
	door_watch* d = user;
	throng_view v = throng_world_view(w);
	for (uint32_t j = 0; j < v.count; ++j) {
		uint32_t id = v.id[j];
		if ((d->px[id] < 0.0f) != (v.x[j] < 0.0f)) {
			d->crossings++;
			cr_assert(v.y[j] > d->door_bottom && v.y[j] < d->door_top, "step %u: agent %u crossed x = 0 at y = %.2f",
			          step, id, (double)v.y[j]);
		}
		d->px[id] = v.x[j];
	}
}

Test(scene_walls, bottleneck_empties_through_the_door_only)
{
	// 100 agents: every crossing of the door wall's line (x = 0) happens
	// between the door posts (walls 3 and 4 end at them), and within the
	// first 4800 steps (80 s) everyone is out and at its goal (measured:
	// the last after 51.4 s; after 76 s before the tuning of issue 13).
	throng_scene* s = thr_test_scene("bottleneck", 100, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	door_watch d = {.crossings = 0};
	throng_vec2 a, b;
	cr_assert_eq(throng_world_get_wall(w, 3, &a, &b), THRONG_OK);
	d.door_top = b.y;
	cr_assert_eq(throng_world_get_wall(w, 4, &a, &b), THRONG_OK);
	d.door_bottom = a.y;
	cr_assert_float_eq(a.x, 0.0f, 0.0f);
	cr_assert_gt(d.door_top - d.door_bottom, 1.1f);
	uint32_t n = throng_world_agent_count(w);
	cr_assert_eq(n, 100u);
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
		d.px[id] = st.position.x;
		cr_assert_lt(st.position.x, 0.0f, "everyone starts inside");
	}
	throng_quality q = thr_test_watch_scene(s, 4800, watch_door, &d);
	cr_log_info("bottleneck 100: reached %u, last at %.1f s, mean %.1f s, deepest overlap %.3f, jitter %.3f",
	            q.reached, q.max_time_to_goal, q.mean_time_to_goal, q.deepest_overlap, q.jitter);
	cr_assert_geq(d.crossings, n);
	cr_assert_eq(q.reached, n, "%u of %u reached their goal", q.reached, n);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_scene_destroy(s);
}

Test(scene_walls, bottleneck_goals_beyond_the_door_the_last_out_nearest)
{
	// 400 agents: the goals lie east of the door wall, 1.92 m apart at
	// least (solid walkers pass between those standing); the walker who
	// starts nearest the door (out first) has a farther goal than anyone of
	// the two outermost columns along the side walls (out last); and the
	// north of the room goes north.
	throng_scene* s = thr_test_scene("bottleneck", 400, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	uint32_t n = throng_world_agent_count(w);
	cr_assert_eq(n, 400u);
	throng_agent_state st[400];
	float top = 0.0f;
	uint32_t first = 0;
	for (uint32_t id = 0; id < n; ++id) {
		cr_assert_eq(throng_world_get_agent(w, id, &st[id]), THRONG_OK);
		cr_assert_geq(st[id].target.x, 4.0f, "agent %u: goal x %.2f", id, (double)st[id].target.x);
		top = fmaxf(top, fabsf(st[id].position.y));
		float r = hypotf(st[id].position.x, st[id].position.y);
		if (r < hypotf(st[first].position.x, st[first].position.y)) {
			first = id;
		}
	}
	uint32_t same_side = 0, off_axis = 0, sides = 0;
	float first_goal = hypotf(st[first].target.x, st[first].target.y);
	for (uint32_t i = 0; i < n; ++i) {
		for (uint32_t j = i + 1u; j < n; ++j) {
			float d = hypotf(st[i].target.x - st[j].target.x, st[i].target.y - st[j].target.y);
			cr_assert_geq(d, 1.919f, "goals of %u and %u %.3f m apart", i, j, (double)d);
		}
		// The outermost two columns: within 2.5 lattice spacings of the
		// outermost start.
		if (fabsf(st[i].position.y) > top - 1.8f) {
			++sides;
			cr_assert_lt(hypotf(st[i].target.x, st[i].target.y), first_goal, "agent %u by the side wall", i);
		}
		if (fabsf(st[i].position.y) > 2.0f) {
			++off_axis;
			same_side += (st[i].position.y > 0.0f) == (st[i].target.y > 0.0f);
		}
	}
	cr_log_info("bottleneck 400: first out %u, goal %.1f m from the door; %u by the side walls; %u of %u on their "
	            "side", first, (double)first_goal, sides, same_side, off_axis);
	cr_assert_geq(sides, 2u * 20u);
	cr_assert_geq(same_side, off_axis * 95u / 100u, "%u of %u", same_side, off_axis);
	throng_scene_destroy(s);
}

/// The corridor: walls at |y| = half_width for |x| < half_length.
typedef struct corridor_watch {
	float half_width, half_length;
} corridor_watch;

/// Nobody's centre leaves the corridor while it is between the walls' ends
/// (beyond them, at the goals, the flows spread wider).
static void watch_corridor(const throng_world* w, uint32_t step, void* user)
{
	const corridor_watch* c = user;
	throng_view v = throng_world_view(w);
	for (uint32_t j = 0; j < v.count; ++j) {
		if (fabsf(v.x[j]) < c->half_length) {
			cr_assert_lt(fabsf(v.y[j]), c->half_width, "step %u: agent %u at (%.2f, %.2f)", step, v.id[j],
			             (double)v.x[j], (double)v.y[j]);
		}
	}
}

Test(scene_walls, hallway_walls_hold_and_flows_pass)
{
	// 100 agents (5 x 10 blocks): nobody's centre leaves the corridor while
	// between the walls, and both flows reach their goals beyond the far
	// end within the documented T = 1.5 D / 1.3 m/s, D = 10 + 12 + 1 + 20 m
	// = 43 m (scenario_hallway.c): 49.6 s, so 3000 steps (50 s).
	throng_scene* s = thr_test_scene("hallway", 100, THRONG_ENGINE_SIMD);
	throng_vec2 a, b;
	cr_assert_eq(throng_world_get_wall(throng_scene_world(s), 0, &a, &b), THRONG_OK);
	corridor_watch c = {.half_width = fabsf(a.y), .half_length = fmaxf(fabsf(a.x), fabsf(b.x))};
	cr_assert_float_eq(c.half_length, 18.0f, 1e-4f, "5 + 10 * 1.2 + 1 m");
	throng_quality q = thr_test_watch_scene(s, 3000, watch_corridor, &c);
	cr_log_info("hallway 100: reached %u, last at %.1f s, mean %.1f s, deepest overlap %.3f, jitter %.3f", q.reached,
	            q.max_time_to_goal, q.mean_time_to_goal, q.deepest_overlap, q.jitter);
	cr_assert_eq(q.reached, 100u, "%u of 100 reached their goal", q.reached);
	cr_assert_lt(q.deepest_overlap, 0.5, "%.3f", q.deepest_overlap);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_scene_destroy(s);
}

Test(scene_walls, flock_aligns)
{
	// 200 boids with random headings (order about 1/sqrt(200) = 0.07)
	// align into flocks within 20 s; the torus keeps every boid inside.
	throng_scene* s = thr_test_scene("flock", 200, THRONG_ENGINE_SIMD);
	double order0 = thr_test_outcome(s, "order");
	throng_quality q = thr_test_run_scene(s, 1200, NULL);
	double order = thr_test_outcome(s, "order");
	cr_log_info("flock 200: order %.3f -> %.3f, jitter %.3f rad/s", order0, order, q.jitter);
	cr_assert_lt(order0, 0.2, "%.3f", order0);
	cr_assert_gt(order, 2.0 * order0, "%.3f -> %.3f", order0, order);
	cr_assert_eq(q.out_of_bounds, 0u);
	cr_assert_leq(q.max_speed_ratio, 1.000001);
	cr_assert_eq(q.nonfinite, 0u);
	throng_scene_destroy(s);
}
