// SPDX-License-Identifier: MIT
// The crowd-quality metrics (core/metrics.c) on tiny worlds whose paths are
// known in closed form: agents with an empty controller keep their
// velocity, so agent k of a step sits at p0 + k * v * dt (float steps, so
// the checks allow the rounding of 1/60 s steps).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/throng.h"

#define DT (1.0f / 60.0f)

/// A world with one archetype whose controller is empty (no force).
static throng_world* make_world(throng_bounds_mode mode, float half)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-half, -half};
	def.bounds_max = (throng_vec2){half, half};
	def.bounds_mode = mode;
	def.dt = DT;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	ctl.contact.enabled = false; // the overlaps these tests count must stay as spawned
	uint32_t arch = 0;
	cr_assert_eq(throng_world_add_archetype(w, &ctl, &arch), THRONG_OK, "%s", throng_last_error());
	return w;
}

static void spawn(throng_world* w, throng_vec2 p, throng_vec2 v, throng_vec2 target)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = p;
	a.velocity = v;
	a.max_speed = 2.0f;
	a.target = target;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
}

static throng_quality run(throng_world* w, float goal_radius, uint32_t steps)
{
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, goal_radius, &m), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	}
	throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	return q;
}

Test(metrics, resting_overlap_counts_every_step)
{
	// Agents 0 and 1 rest 0.3 m apart with radii 0.3 + 0.3: one pair,
	// depth 1 - 0.3/0.6 = 0.5, in each of the 10 states; agent 2 is alone.
	// Overlaps per agent-step: 10 / (3 * 10) = 1/3.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f);
	spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	spawn(w, (throng_vec2){0.3f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	spawn(w, (throng_vec2){20.0f, 20.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	uint64_t pairs = 99;
	float deepest = -1.0f;
	cr_assert_eq(throng_world_overlap_stats(w, &pairs, &deepest), THRONG_OK);
	cr_assert_eq(pairs, 1u);
	cr_assert_float_eq(deepest, 0.5f, 1e-6f);
	// Either output may be NULL.
	pairs = 99;
	cr_assert_eq(throng_world_overlap_stats(w, &pairs, NULL), THRONG_OK);
	cr_assert_eq(pairs, 1u);
	deepest = -1.0f;
	cr_assert_eq(throng_world_overlap_stats(w, NULL, &deepest), THRONG_OK);
	cr_assert_float_eq(deepest, 0.5f, 1e-6f);
	cr_assert_eq(throng_world_overlap_stats(w, NULL, NULL), THRONG_OK);
	throng_quality q = run(w, 0.0f, 10);
	cr_assert_eq(q.agents, 3u);
	cr_assert_eq(q.steps, 10u);
	cr_assert_float_eq(q.seconds, 10.0 * (double)DT, 1e-12);
	cr_assert_eq(q.overlaps, 10u);
	cr_assert_float_eq(q.overlaps_per_agent_step, 1.0 / 3.0, 1e-12);
	cr_assert_float_eq(q.deepest_overlap, 0.5, 1e-6);
	cr_assert_eq(q.goals, 0u, "goal radius 0: no goals");
	cr_assert_eq(q.reached, 0u);
	cr_assert_eq(q.jitter, 0.0, "nobody turns");
	cr_assert_eq(q.nonfinite, 0u);
	cr_assert_eq(q.out_of_bounds, 0u, "an open world has no outside");
	throng_world_destroy(w);
}

Test(metrics, touching_is_not_overlapping_and_coincident_is_depth_one)
{
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f);
	spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	spawn(w, (throng_vec2){0.625f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0}); // 0.025 m apart
	spawn(w, (throng_vec2){5.0f, 5.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	spawn(w, (throng_vec2){5.0f, 5.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0}); // on top of each other
	uint64_t pairs = 0;
	float deepest = 0.0f;
	cr_assert_eq(throng_world_overlap_stats(w, &pairs, &deepest), THRONG_OK);
	cr_assert_eq(pairs, 1u);
	cr_assert_eq(deepest, 1.0f);
	throng_world_destroy(w);
}

Test(metrics, arrival_time_and_path_length_ratio)
{
	// Agent 0 walks along +x at 1 m/s towards (10, 1), goal radius 1.5 m:
	// it arrives when (10 - x)^2 + 1 <= 2.25, i.e. x >= 10 - sqrt(1.25) =
	// 8.881966 m: the first step k with k/60 >= 8.881966 is k = 533
	// (t = 8.88333 s, 8.88333 m walked). The shortest walk to the goal
	// circle is sqrt(101) - 1.5 = 8.549876 m, so its ratio is 1.039000.
	// Agent 1 walks along +y at 2 m/s towards a goal 6.01 m ahead: within
	// 1.5 m after 4.51 m, so at step 136 (k/30 >= 4.51; t = 2.26667 s,
	// 4.53333 m walked; ratio 4.53333 / 4.51 = 1.005174). Agent 2 starts
	// on its goal: reached at t = 0 and left out of the ratio. Agent 3
	// walks away and never arrives. Each threshold lies at least 0.08 of a
	// step from a step, far beyond the float rounding of the walk.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f);
	spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){10.0f, 1.0f});
	spawn(w, (throng_vec2){0.0f, -20.0f}, (throng_vec2){0.0f, 2.0f}, (throng_vec2){0.0f, -13.99f});
	spawn(w, (throng_vec2){-20.0f, 0.0f}, (throng_vec2){0.0f, 0.0f}, (throng_vec2){-20.5f, 0.0f});
	spawn(w, (throng_vec2){20.0f, 20.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){0.0f, 20.0f});
	throng_quality q = run(w, 1.5f, 600);
	cr_assert_eq(q.goals, 4u);
	cr_assert_eq(q.reached, 3u);
	double t0 = 533.0 / 60.0, t1 = 136.0 / 60.0;
	cr_assert_float_eq(q.max_time_to_goal, t0, 1e-5, "%.6f", q.max_time_to_goal);
	cr_assert_float_eq(q.mean_time_to_goal, (t0 + t1 + 0.0) / 3.0, 1e-5, "%.6f", q.mean_time_to_goal);
	double r0 = (533.0 / 60.0) / (sqrt(101.0) - 1.5), r1 = (136.0 / 30.0) / 4.51;
	cr_assert_float_eq(q.path_length_ratio, (r0 + r1) / 2.0, 1e-4, "%.6f vs %.6f", q.path_length_ratio,
	                   (r0 + r1) / 2.0);
	cr_assert_eq(q.jitter, 0.0);
	cr_assert_float_eq(q.max_speed_ratio, 1.0, 1e-6, "agent 1 runs at its 2 m/s: %.7f", q.max_speed_ratio);
	throng_world_destroy(w);
}

Test(metrics, a_bounce_turns_by_pi)
{
	// Agent 0 runs at 2 m/s into the wall of a bouncing world 5 m away
	// (4.7 m to the bounds shrunk by its radius): it reverses once, a
	// heading change of pi. Agent 1 rests. Over 300 steps (5 s) of 2
	// agents the jitter is pi / (2 * 5 s).
	throng_world* w = make_world(THRONG_BOUNDS_BOUNCE, 5.0f);
	spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){2.0f, 0.0f}, (throng_vec2){0, 0});
	spawn(w, (throng_vec2){-3.0f, -3.0f}, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0});
	throng_quality q = run(w, 0.0f, 300);
	cr_assert_float_eq(q.jitter, 3.14159265358979323846 / (2.0 * 5.0), 1e-5, "%.7f", q.jitter);
	cr_assert_eq(q.out_of_bounds, 0u, "the bounce keeps the centre inside the shrunk bounds");
	throng_world_destroy(w);
}

Test(metrics, contained_agents_never_counted_outside)
{
	// An agent spawned within its radius of the edge is clamped inside by
	// the first step; states after steps are what count.
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 5.0f);
	spawn(w, (throng_vec2){4.9f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){0, 0});
	throng_quality q = run(w, 0.0f, 30);
	cr_assert_eq(q.out_of_bounds, 0u);
	cr_assert_gt(throng_world_get_stats(w).clamped, 0u);
	throng_world_destroy(w);
}

Test(metrics, hash_agrees_with_every_pair)
{
	// A crowd of 3,000 in `field` after 3 s: the spatial hash finds the
	// same overlapping pairs, and the same deepest one, as a test of every
	// pair over the view (positions and radii, in storage order).
	throng_scene_def o = throng_scene_default_def();
	o.agents = 3000;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create("field", &o, &s), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < 180; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	uint64_t pairs = 0;
	float deepest = 0.0f;
	cr_assert_eq(throng_world_overlap_stats(throng_scene_world(s), &pairs, &deepest), THRONG_OK);
	throng_view v = throng_world_view(throng_scene_world(s));
	uint64_t expected = 0;
	double expected_depth = 0.0;
	for (uint32_t i = 0; i < v.count; ++i) {
		for (uint32_t j = i + 1; j < v.count; ++j) {
			float dx = v.x[j] - v.x[i], dy = v.y[j] - v.y[i];
			float rr = v.radius[i] + v.radius[j];
			float d2 = dx * dx + dy * dy;
			if (d2 < rr * rr) {
				expected++;
				double depth = 1.0 - sqrt((double)d2) / (double)rr;
				expected_depth = depth > expected_depth ? depth : expected_depth;
			}
		}
	}
	cr_assert_gt(expected, 0u, "the field's crowd overlaps somewhere");
	cr_assert_eq(pairs, expected);
	cr_assert_eq(deepest, (float)expected_depth);
	throng_scene_destroy(s);
}

Test(metrics, bad_arguments)
{
	throng_metrics* m = (throng_metrics*)&m;
	cr_assert_eq(throng_metrics_create(NULL, 0.0f, &m), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(m);
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 5.0f);
	cr_assert_eq(throng_metrics_create(w, -1.0f, &m), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "goal_radius"), "%s", throng_last_error());
	cr_assert_eq(throng_metrics_create(w, NAN, &m), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_metrics_create(w, 0.0f, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK);
	spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_ERR_INVALID_ARGUMENT, "the agent count changed");
	cr_assert_eq(throng_metrics_observe(NULL, w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_overlap_stats(NULL, NULL, NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_quality q = throng_metrics_result(NULL);
	cr_assert_eq(q.agents, 0u);
	throng_metrics_destroy(m);
	throng_metrics_destroy(NULL);
	throng_world_destroy(w);
}

/// The quality figures of `name` after `steps` steps with the given engine.
static throng_quality scene_quality(const char* name, uint32_t agents, throng_engine engine, uint32_t steps)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.engine = engine;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s", throng_last_error());
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(throng_scene_world(s), throng_scene_goal_radius(s), &m), THRONG_OK);
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, throng_scene_world(s)), THRONG_OK);
	}
	throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	throng_scene_destroy(s);
	return q;
}

Test(metrics, both_engines_give_the_same_figures)
{
	// Per-agent sums are kept by id, so the storage order of the SIMD
	// engine does not change a bit.
	throng_quality a = scene_quality("hallway", 60, THRONG_ENGINE_SIMD, 2400);
	throng_quality b = scene_quality("hallway", 60, THRONG_ENGINE_SCALAR, 2400);
	cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "jitter %.17g vs %.17g, reached %u vs %u", a.jitter, b.jitter,
	             a.reached, b.reached);
	cr_assert_gt(a.jitter, 0.0);
	cr_assert_gt(a.reached, 0u, "some walkers of a 60-agent hallway arrive within 40 s");
}

Test(metrics, every_thread_count_gives_the_same_figures)
{
	// 6,000 agents: above the 4,096 where observing runs in parallel.
	// `field` overlaps (its boids start at random places), so the pair
	// count and the deepest overlap are exercised, not only zeros.
	static const uint32_t threads[] = {1, 2, 3, 8};
	throng_quality q[4];
	for (int t = 0; t < 4; ++t) {
		throng_scene_def o = throng_scene_default_def();
		o.agents = 6000;
		o.threads = threads[t];
		o.threads_policy = THRONG_THREADS_FIXED;
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_create("field", &o, &s), THRONG_OK, "%s", throng_last_error());
		q[t] = thr_test_run_scene(s, 60, NULL);
		throng_scene_destroy(s);
	}
	cr_assert_gt(q[0].overlaps, 0u);
	cr_assert_gt(q[0].deepest_overlap, 0.0);
	cr_assert_gt(q[0].jitter, 0.0);
	for (int t = 1; t < 4; ++t) {
		cr_assert_eq(memcmp(&q[0], &q[t], sizeof q[0]), 0, "%u threads: overlaps %llu vs %llu, jitter %.17g vs %.17g",
		             threads[t], (unsigned long long)q[t].overlaps, (unsigned long long)q[0].overlaps, q[t].jitter,
		             q[0].jitter);
	}
}
