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
#include "fmath.h"
#include "metrics_internal.h"
#include "world_internal.h"

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
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){0.3f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){20.0f, 20.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
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
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){0.625f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0}); // 0.025 m apart
	thr_test_spawn(w, (throng_vec2){5.0f, 5.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){5.0f, 5.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0}); // on top of each other
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
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){10.0f, 1.0f});
	thr_test_spawn(w, (throng_vec2){0.0f, -20.0f}, (throng_vec2){0.0f, 2.0f}, (throng_vec2){0.0f, -13.99f});
	thr_test_spawn(w, (throng_vec2){-20.0f, 0.0f}, (throng_vec2){0.0f, 0.0f}, (throng_vec2){-20.5f, 0.0f});
	thr_test_spawn(w, (throng_vec2){20.0f, 20.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){0.0f, 20.0f});
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
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){2.0f, 0.0f}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){-3.0f, -3.0f}, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0});
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
	thr_test_spawn(w, (throng_vec2){4.9f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){0, 0});
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
	throng_scene* s = thr_test_scene("field", 3000, THRONG_ENGINE_SIMD);
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
	cr_assert_eq(throng_metrics_observe(NULL, w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_metrics_observe(m, NULL), THRONG_ERR_INVALID_ARGUMENT);
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
	throng_scene* s = thr_test_scene(name, agents, engine);
	throng_quality q = thr_test_run_scene(s, steps, NULL);
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
		throng_scene* s = thr_test_scene_threads("field", 6000, 1, THRONG_ENGINE_SIMD, threads[t]);
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

Test(metrics, both_engines_give_the_same_figures_in_parallel)
{
	// 6,000 agents of `field` (obstacles, walls, goals, overlaps): above the
	// 4,096 where observing runs in parallel, so the scalar reference (one
	// thread, agents by id) and the SIMD engine (agents by cell, on 2 and 3
	// threads) observe in different orders and splits.
	static const struct {
		throng_engine engine;
		uint32_t threads;
	} runs[] = {{THRONG_ENGINE_SCALAR, 1}, {THRONG_ENGINE_SIMD, 2}, {THRONG_ENGINE_SIMD, 3}};
	throng_quality q[3];
	for (int r = 0; r < 3; ++r) {
		// observed on exactly these threads
		throng_scene* s = thr_test_scene_threads("field", 6000, 1, runs[r].engine, runs[r].threads);
		q[r] = thr_test_run_scene(s, 40, NULL);
		throng_scene_destroy(s);
	}
	cr_assert_gt(q[0].overlaps, 0u);
	cr_assert_gt(q[0].jitter, 0.0);
	cr_assert_gt(q[0].overlap_most_examined, 0u);
	for (int r = 1; r < 3; ++r) {
		cr_assert_eq(memcmp(&q[0], &q[r], sizeof q[0]), 0,
		             "simd on %u threads: overlaps %llu vs %llu, jitter %.17g vs %.17g, obstacle penetrations %llu vs %llu",
		             runs[r].threads, (unsigned long long)q[r].overlaps, (unsigned long long)q[0].overlaps, q[r].jitter,
		             q[0].jitter, (unsigned long long)q[r].obstacle_penetrations,
		             (unsigned long long)q[0].obstacle_penetrations);
	}
}

/// An open world over (-half, -half)..(half, half) for `capacity` agents,
/// on `engine` with exactly `threads` threads, and one archetype with no
/// slot and contacts off: its agents stay where they are spawned.
static throng_world* still_world(float half, uint32_t capacity, throng_engine engine, uint32_t threads)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-half, -half};
	def.bounds_max = (throng_vec2){half, half};
	def.bounds_mode = THRONG_BOUNDS_OPEN;
	def.capacity = capacity;
	def.engine = engine;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	ctl.contact.enabled = false;
	cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// A still crowd of KNOT_N agents of radius 0.3 m (cells of 0.6 m): a knot
/// of 400 in a disc of 0.6 m around (-20, 0), dense enough that agents
/// reach the cap, and the rest on a lattice of pitch 0.5 m from (0, 0),
/// where each agent overlaps its four lattice neighbours.
#define KNOT_N 6000u
static throng_world* knot_world(throng_engine engine, uint32_t threads)
{
	throng_world* w = still_world(100.0f, KNOT_N, engine, threads);
	static throng_agent_def a[KNOT_N];
	uint64_t rng = 11;
	for (uint32_t k = 0; k < KNOT_N; ++k) {
		a[k] = throng_agent_default_def();
		a[k].radius = 0.3f;
		// Knot agents and lattice agents interleaved by id.
		if (k % 15u == 0u) {
			float x, y;
			do {
				x = thr_test_uniform(&rng, -1.0f, 1.0f);
				y = thr_test_uniform(&rng, -1.0f, 1.0f);
			} while (x * x + y * y > 1.0f);
			a[k].position = (throng_vec2){-20.0f + 0.6f * x, 0.6f * y};
		} else {
			uint32_t j = k - k / 15u - 1u;
			a[k].position = (throng_vec2){0.5f * (float)(j % 70u), 0.5f * (float)(j / 70u)};
		}
	}
	cr_assert_eq(throng_world_spawn(w, a, KNOT_N, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// The overlap figures of w's state by their definition (include/throng/
/// metrics.h, docs/QUALITY.md), agent by agent over every other agent:
/// cells of twice the largest radius; agent i examines, in this order,
/// the agents of its own cell with a higher id, then those of the cells
/// (+1, 0), (-1, +1), (0, +1), (+1, +1) from it, each cell's by id, and
/// stops after THRONG_OVERLAP_MAX_EXAMINED of them.
static throng_quality knot_reference(const throng_world* w)
{
	throng_view v = throng_world_view(w);
	uint32_t n = v.count;
	float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *r = malloc(n * sizeof *r);
	int64_t *cx = malloc(n * sizeof *cx), *cy = malloc(n * sizeof *cy);
	cr_assert(x && y && r && cx && cy);
	float rmax = 0.0f;
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t id = v.id[k];
		x[id] = v.x[k];
		y[id] = v.y[k];
		r[id] = v.radius[k];
		rmax = r[id] > rmax ? r[id] : rmax;
	}
	double inv_cell = 1.0 / (2.0 * (double)rmax);
	for (uint32_t id = 0; id < n; ++id) {
		cx[id] = (int64_t)floor((double)x[id] * inv_cell);
		cy[id] = (int64_t)floor((double)y[id] * inv_cell);
	}
	static const int stencil[5][2] = {{0, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}};
	throng_quality q;
	memset(&q, 0, sizeof q);
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t count[5] = {0, 0, 0, 0, 0}, take[5], taken[5] = {0, 0, 0, 0, 0};
		int which[KNOT_N];
		for (uint32_t j = 0; j < n; ++j) {
			which[j] = -1;
			for (int c = 0; c < 5; ++c) {
				if (cx[j] == cx[i] + stencil[c][0] && cy[j] == cy[i] + stencil[c][1] && (c > 0 || j > i)) {
					which[j] = c;
					count[which[j]]++;
				}
			}
		}
		uint32_t left = THRONG_OVERLAP_MAX_EXAMINED;
		for (int c = 0; c < 5; ++c) {
			take[c] = count[c] < left ? count[c] : left;
			left -= take[c];
		}
		for (uint32_t j = 0; j < n; ++j) {
			if (which[j] < 0 || taken[which[j]]++ >= take[which[j]]) {
				continue;
			}
			float dx = x[j] - x[i], dy = y[j] - y[i], rr = r[i] + r[j];
			float d2 = dx * dx + dy * dy;
			if (d2 < rr * rr) {
				q.overlaps++;
				double depth = 1.0 - sqrt((double)d2) / (double)rr;
				q.deepest_overlap = depth > q.deepest_overlap ? depth : q.deepest_overlap;
			}
		}
		uint32_t examined = THRONG_OVERLAP_MAX_EXAMINED - left;
		q.overlap_most_examined = examined > q.overlap_most_examined ? examined : q.overlap_most_examined;
		q.overlap_capped += left == 0 ? 1u : 0u;
	}
	free(x);
	free(y);
	free(r);
	free(cx);
	free(cy);
	return q;
}

Test(metrics, the_overlap_cap_follows_its_definition_on_any_split)
{
	// The knot puts hundreds of agents in a few cells: their candidates
	// are cut at the cap, where the order within a cell (ids up) decides
	// which pairs are tested. Both engines and 1, 2 and 3 threads give the
	// figures of the definition, worked agent by agent over all agents.
	static const struct {
		throng_engine engine;
		uint32_t threads;
	} runs[] = {{THRONG_ENGINE_SCALAR, 1}, {THRONG_ENGINE_SIMD, 1}, {THRONG_ENGINE_SIMD, 2}, {THRONG_ENGINE_SIMD, 3}};
	for (int k = 0; k < 4; ++k) {
		throng_world* w = knot_world(runs[k].engine, runs[k].threads);
		throng_metrics* m = NULL;
		cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK, "%s", throng_last_error());
		// One step: the SIMD engine then holds the agents by cell, not by id.
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
		throng_quality q = throng_metrics_result(m);
		throng_quality e = knot_reference(w);
		cr_assert_gt(e.overlap_capped, 0u, "the knot reaches the cap");
		cr_assert_eq(e.overlap_most_examined, THRONG_OVERLAP_MAX_EXAMINED);
		cr_assert_gt(e.overlaps, 4u * KNOT_N / 3u, "the lattice's pairs and the knot's");
		cr_assert_eq(q.overlaps, e.overlaps, "run %d: %llu pairs, by definition %llu", k,
		             (unsigned long long)q.overlaps, (unsigned long long)e.overlaps);
		cr_assert_eq(q.deepest_overlap, e.deepest_overlap, "run %d", k);
		cr_assert_eq(q.overlap_capped, e.overlap_capped, "run %d: %llu capped, by definition %llu", k,
		             (unsigned long long)q.overlap_capped, (unsigned long long)e.overlap_capped);
		cr_assert_eq(q.overlap_most_examined, e.overlap_most_examined, "run %d", k);
		throng_metrics_destroy(m);
		throng_world_destroy(w);
	}
}

Test(metrics, agents_millions_of_cells_apart_are_counted_alike)
{
	// Radius 0.001 m (cells of 2 mm) and two agents 1e6 m from the origin
	// on either side: 1e9 cells each way, too many to pack a cell and a
	// slot into 64 bits, so the agents are sorted the other way. The
	// lattice near the origin (pitch 1.5 mm) overlaps along its rows and
	// columns only: 60 x 99 lattice: 59 * 99 + 60 * 98 pairs.
	for (uint32_t threads = 1; threads <= 3; ++threads) {
		throng_world* w = still_world(1.0e6f, 5942, THRONG_ENGINE_SIMD, threads);
		static throng_agent_def a[5942];
		for (uint32_t k = 0; k < 5942; ++k) {
			a[k] = throng_agent_default_def();
			a[k].radius = 0.001f;
			a[k].position = (throng_vec2){0.0015f * (float)(k % 60u), 0.0015f * (float)(k / 60u)};
		}
		a[5940].position = (throng_vec2){1.0e6f, 1.0e6f};
		a[5941].position = (throng_vec2){-1.0e6f, -1.0e6f};
		cr_assert_eq(throng_world_spawn(w, a, 5942, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		uint64_t pairs = 0;
		float deepest = 0.0f;
		cr_assert_eq(throng_world_overlap_stats(w, &pairs, &deepest), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(pairs, 59u * 99u + 60u * 98u, "%u threads: %llu pairs", threads, (unsigned long long)pairs);
		cr_assert_float_eq(deepest, 0.25f, 1e-3f, "1 - 1.5 / 2");
		throng_world_destroy(w);
	}
}

/// A thr_test_hook: observes the state once more (before its regular
/// observation, with nothing between the two) when again[step].
static void observe_again(throng_world* w, throng_metrics* m, uint32_t step, void* again)
{
	if (((const bool*)again)[step]) {
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	}
}

/// A scene of `agents` with the SIMD engine and its metrics, stepped
/// `steps` times; observes step k a second time when again[k]. (A wrong
/// reorder in the step's record: tests/test_step_record.c.)
static throng_quality observed(const char* name, uint32_t agents, uint32_t steps, const bool* again)
{
	throng_scene* s = thr_test_scene(name, agents, THRONG_ENGINE_SIMD);
	throng_quality q = thr_test_hook_scene(s, steps, again != NULL ? observe_again : NULL, (void*)again);
	throng_scene_destroy(s);
	return q;
}

Test(metrics, observing_again_counts_a_state_that_moved_and_turned_by_nothing)
{
	// The same state observed twice (steps 200 and 1000 of bottleneck): two
	// states more, the same overlaps in them, and not a metre walked or a
	// radian turned more, so arrivals and path lengths are unchanged and
	// the total turn (jitter * agents * seconds) too.
	static bool again[1500];
	again[200] = again[1000] = true;
	throng_quality a = observed("bottleneck", 300, 1500, NULL);
	throng_quality b = observed("bottleneck", 300, 1500, again);
	cr_assert_eq(b.steps, a.steps + 2u);
	cr_assert_gt(a.reached, 0u);
	cr_assert_eq(b.reached, a.reached);
	cr_assert_eq(b.mean_time_to_goal, a.mean_time_to_goal);
	cr_assert_eq(b.path_length_ratio, a.path_length_ratio, "%.17g vs %.17g", b.path_length_ratio,
	             a.path_length_ratio);
	cr_assert_eq(b.wall_crossings, a.wall_crossings);
	double turn_a = a.jitter * a.agents * a.seconds, turn_b = b.jitter * b.agents * b.seconds;
	cr_assert_gt(turn_a, 1.0);
	cr_assert_float_eq(turn_b, turn_a, 1e-9 * turn_a, "%.17g vs %.17g", turn_b, turn_a);
	cr_assert_geq(b.overlaps, a.overlaps);
}

Test(metrics, a_step_not_observed_is_refused)
{
	// The path of a step runs from the state the world still holds: after
	// two steps it no longer holds the one the metrics saw last.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f);
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){10.0f, 0.0f});
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, 1.0f, &m), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "not observed"), "%s", throng_last_error());
	cr_assert_eq(throng_metrics_result(m).steps, 1u, "the refused state is not taken");
	throng_metrics_destroy(m);
	throng_world_destroy(w);
}

Test(metrics, arrival_steps_are_32_bit)
{
	// At most THRONG_METRICS_MAX_STEPS (2^32 - 2) steps after creation:
	// the world's step is set here, since stepping that far takes days.
	// One step further is refused for the limit; the limit itself passes
	// that check (and then fails as a step not observed).
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f);
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){10.0f, 0.0f});
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, 1.0f, &m), THRONG_OK, "%s", throng_last_error());
	w->step = 1u + (uint64_t)THRONG_METRICS_MAX_STEPS + 1u;
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_ERR_CAPACITY);
	cr_assert_not_null(strstr(throng_last_error(), "4294967294 steps"), "%s", throng_last_error());
	w->step = 1u + (uint64_t)THRONG_METRICS_MAX_STEPS;
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "not observed"), "%s", throng_last_error());
	cr_assert_eq(throng_metrics_result(m).steps, 0u);
	throng_metrics_destroy(m);
	throng_world_destroy(w);
}

/// A float for the heading-turn check: mostly unit-scale, some any bits,
/// some special values.
static float turn_input(uint32_t* state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	const uint32_t r = *state;
	static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-30f, 1e30f, 0.70710677f};
	switch (r % 10u) {
	case 0: {
		float v;
		const uint32_t bits = r * 2654435761u;
		memcpy(&v, &bits, sizeof v);
		return v;
	}
	case 1: return special[(r >> 8) % 10u];
	default: return (float)(int32_t)(r * 2246822519u) / 2147483648.0f;
	}
}

Test(metrics, wide_heading_turns_have_the_scalar_bits)
{
	// Observing takes the heading change from a loop the compiler
	// vectorises: every result that is a number must be thr_atan2f's up to
	// a zero's sign (the figure adds its absolute value), and a NaN a NaN.
	enum { N = 64 };
	float px[N], py[N], hx[N], hy[N], out[N];
	uint32_t state = 12345u;
	for (int round = 0; round < 20000; ++round) {
		for (int j = 0; j < N; ++j) {
			px[j] = turn_input(&state);
			py[j] = turn_input(&state);
			hx[j] = turn_input(&state);
			hy[j] = turn_input(&state);
		}
		for (int j = 0; j < N / 4; ++j) { // the same heading, or nearly: a turn of 0 or a few ulps
			hx[j] = px[j] * (1.0f + (float)(j % 3) * 0x1p-23f);
			hy[j] = py[j];
		}
		const int cnt = N - round % 9; // a partial block too
		thr_metrics_heading_turns(px, py, hx, hy, cnt, out);
		for (int j = 0; j < cnt; ++j) {
			const float want = thr_atan2f(px[j] * hy[j] - py[j] * hx[j], px[j] * hx[j] + py[j] * hy[j]);
			if (isnan(out[j])) {
				cr_assert(isnan(want), "lane %d: NaN, thr_atan2f %a", j, (double)want);
				continue;
			}
			const double got = fabs((double)out[j]), ref = fabs((double)want);
			cr_assert(memcmp(&got, &ref, sizeof got) == 0, "lane %d: %a, thr_atan2f %a (%a %a %a %a)", j, got, ref,
			          (double)px[j], (double)py[j], (double)hx[j], (double)hy[j]);
		}
	}
}
