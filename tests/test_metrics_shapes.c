// SPDX-License-Identifier: MIT
// The quality metrics' shape figures (core/metrics_shapes.c): the exact
// orientation test and the crossing rule on hand-made segments, then wall
// crossings and penetrations counted over runs of tiny worlds whose paths
// are known in closed form (an empty controller keeps an agent's velocity;
// seek drives it along a straight line to its target).
//
// Walls and obstacles are solid (the contact pass, issue 13): a stepped
// world never crosses a wall, so the counting rules are tested on paths
// fed straight to the metrics' shape watch, and the stepped worlds show
// the contract (no crossing, nothing left inside beyond the tolerance).
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "metrics_shapes.h"
#include "support.h"
#include "throng/metrics.h"
#include "throng/throng.h"

/// A world over [-half, half]^2 with one archetype: an empty controller
/// (agents keep their velocity), or one seek slot.
static throng_world* make_world(throng_bounds_mode mode, float half, throng_engine engine, bool seek)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-half, -half};
	def.bounds_max = (throng_vec2){half, half};
	def.bounds_mode = mode;
	def.engine = engine;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	if (seek) {
		cr_assert_eq(throng_controller_add(&ctl, throng_slot_default_def(THRONG_SEEK)), 0);
	}
	cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

static void wall(throng_world* w, float ax, float ay, float bx, float by)
{
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){ax, ay}, (throng_vec2){bx, by}, NULL), THRONG_OK, "%s",
	             throng_last_error());
}

static void obstacle(throng_world* w, float x, float y, float r)
{
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){x, y}, r, NULL), THRONG_OK, "%s", throng_last_error());
}

/// Steps `w` `steps` times, observing each step with `m`.
static void steps(throng_world* w, throng_metrics* m, uint32_t n)
{
	for (uint32_t k = 0; k < n; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	}
}

/// The figures of n steps of `w` from now (no goals).
static throng_quality run(throng_world* w, uint32_t n)
{
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK, "%s", throng_last_error());
	steps(w, m, n);
	throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	return q;
}

static vec2 P(float x, float y)
{
	return (vec2){x, y};
}

/// Deterministic 64-bit draws (splitmix64).
static uint64_t draw(uint64_t* s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

Test(metrics_shapes, orientation_is_exact)
{
	// Points on a grid of 2^-10 within +-2^10 (21-bit integers i, the float
	// i * 2^-10 * 2^e, exact): the sign of the determinant in integers is
	// the truth. Half the triples are exactly collinear (p = a + m d, b =
	// a + k d), half are collinear but for p moved by one grid step, where
	// the six products cancel to 1 part in 2^40 and the plain double sum is
	// not enough. The same at scales 2^0, 2^-120 (subnormal floats) and
	// 2^100, with the points' order rotated.
	static const int scales[] = {0, -120, 100};
	uint64_t seed = 7;
	int exact_zero = 0, nonzero = 0;
	for (int t = 0; t < 60000; ++t) {
		int64_t ax = (int64_t)(draw(&seed) % 1048576u) - 524288, ay = (int64_t)(draw(&seed) % 1048576u) - 524288;
		int64_t dx = (int64_t)(draw(&seed) % 2001u) - 1000, dy = (int64_t)(draw(&seed) % 2001u) - 1000;
		int64_t k = (int64_t)(draw(&seed) % 400u) + 1, m = (int64_t)(draw(&seed) % 800u) - 400;
		int64_t bx = ax + k * dx, by = ay + k * dy;
		int64_t px = ax + m * dx + (t & 1 ? (int64_t)(draw(&seed) % 3u) - 1 : 0);
		int64_t py = ay + m * dy + (t & 1 ? (int64_t)(draw(&seed) % 3u) - 1 : 0);
		if (bx == ax && by == ay) {
			continue; // a is b: no line
		}
		int64_t det = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
		int truth = det > 0 ? 1 : (det < 0 ? -1 : 0);
		exact_zero += truth == 0;
		nonzero += truth != 0;
		for (int s = 0; s < 3; ++s) {
			float u = ldexpf(1.0f, scales[s] - 10);
			vec2 a = P((float)ax * u, (float)ay * u), b = P((float)bx * u, (float)by * u);
			vec2 p = P((float)px * u, (float)py * u);
			cr_assert_eq(thr_orient(a, b, p), truth, "(%lld,%lld) (%lld,%lld) (%lld,%lld) at 2^%d", (long long)ax,
			             (long long)ay, (long long)bx, (long long)by, (long long)px, (long long)py, scales[s]);
			cr_assert_eq(thr_orient(b, p, a), truth);
			cr_assert_eq(thr_orient(b, a, p), -truth);
		}
	}
	cr_assert_gt(exact_zero, 30000, "collinear cases: %d", exact_zero);
	cr_assert_gt(nonzero, 10000, "off-line cases: %d", nonzero);
}

Test(metrics_shapes, crossing_rule)
{
	// The wall from (0, -1) to (0, 1).
	vec2 a = P(0.0f, -1.0f), b = P(0.0f, 1.0f);
	cr_assert(thr_path_crosses_wall(P(-1, 0), P(1, 0), a, b), "straight through");
	cr_assert(thr_path_crosses_wall(P(1, 0.5f), P(-1, -0.5f), a, b), "through, the other way");
	cr_assert(!thr_path_crosses_wall(P(-1, 0), P(-0.5f, 0), a, b), "short of it");
	cr_assert(!thr_path_crosses_wall(P(-1, 1.5f), P(1, 1.5f), a, b), "beside its end");
	cr_assert(!thr_path_crosses_wall(P(-1, 2), P(1, 1.25f), a, b), "above it, slanting");
	cr_assert(thr_path_crosses_wall(P(-1, 1), P(1, 1), a, b), "through its end point: a touch");
	cr_assert(thr_path_crosses_wall(P(-1, 2), P(1, 0), a, b), "through its end point, slanting");
	// A step that ends on the wall counts; the next, which starts on it,
	// does not, whichever side it leaves to: crossing in two steps counts
	// once, and so does touching and going back.
	cr_assert(thr_path_crosses_wall(P(-1, 0), P(0, 0), a, b), "arrives on it");
	cr_assert(!thr_path_crosses_wall(P(0, 0), P(1, 0), a, b), "leaves it forwards");
	cr_assert(!thr_path_crosses_wall(P(0, 0), P(-1, 0), a, b), "leaves it backwards");
	cr_assert(!thr_path_crosses_wall(P(0, 0.5f), P(0, 0.7f), a, b), "along it");
	cr_assert(!thr_path_crosses_wall(P(0, -3), P(0, 3), a, b), "along its line, across it");
	cr_assert(!thr_path_crosses_wall(P(-1, 3), P(0, 2), a, b), "onto its line beyond its end");
	cr_assert(!thr_path_crosses_wall(P(0, 2), P(1, 0), a, b), "from its line beyond its end");
	cr_assert(!thr_path_crosses_wall(P(-1, 0), P(-1, 0), a, b), "standing still");
	// A hair's breadth: the smallest float beyond the wall still crosses.
	cr_assert(thr_path_crosses_wall(P(-1, 0), P(1e-45f, 0), a, b));
	cr_assert(!thr_path_crosses_wall(P(-1, 0), P(-1e-45f, 0), a, b));
}

/// The shape figures of agents of radius 0.3 following paths given in
/// closed form, fed straight to the metrics' shape watch (walls and
/// obstacles are solid in a stepped world, so the rules of counting are
/// tested on paths no world would take now): n states after the start,
/// 60 a second, agent a at path(a, k / 60) in state k.
typedef throng_vec2 path_fn(uint32_t agent, float t);

static thr_shape_tally replay(const throng_world* w, uint32_t agents, uint32_t n, path_fn* path)
{
	thr_shape_watch watch;
	memset(&watch, 0, sizeof watch);
	cr_assert_eq(thr_shape_watch_sync(&watch, w), 0);
	thr_shape_tally t;
	memset(&t, 0, sizeof t);
	for (uint32_t k = 1; k <= n; ++k) {
		for (uint32_t a = 0; a < agents; ++a) {
			throng_vec2 p = path(a, (float)(k - 1u) / 60.0f), q = path(a, (float)k / 60.0f);
			thr_shape_watch_agent(&watch, v2(p.x, p.y), v2(q.x, q.y), 0.3f, &t);
		}
	}
	thr_shape_watch_free(&watch);
	return t;
}

/// Agent 0 along y = 0 at 2 m/s from x = -4; agent 1 along y = 5 at 2 m/s
/// from x = 5, bouncing back at x = 9.7 (t = 2.35 s).
static throng_vec2 bouncing_paths(uint32_t a, float t)
{
	if (a == 0) {
		return (throng_vec2){-4.0f + 2.0f * t, 0.0f};
	}
	float x = 5.0f + 2.0f * t;
	return (throng_vec2){x > 9.7f ? 9.7f - (x - 9.7f) : x, 5.0f};
}

Test(metrics_shapes, each_crossing_counts_once)
{
	// Over 5 s, agent 0 runs from x = -4 to x = 6: through the walls at
	// x = -2 (t = 1 s) and x = 1 (2.5 s), beside the wall at x = 3 that ends
	// 0.5 m off its path, and through the end point (5, 0) of the wall at
	// x = 5 (a touch, 4.5 s): 3. Agent 1 goes through the wall at x = 7 both
	// ways (1 s and 3.7 s): 2. Whether a state falls exactly on a wall or
	// not, each counts once: 5 in all.
	throng_world* w = make_world(THRONG_BOUNDS_BOUNCE, 10.0f, THRONG_ENGINE_SIMD, false);
	wall(w, -2.0f, -1.0f, -2.0f, 1.0f);
	wall(w, 1.0f, 1.0f, 1.0f, -1.0f);
	wall(w, 3.0f, 0.5f, 3.0f, 2.0f);
	wall(w, 5.0f, -2.0f, 5.0f, 0.0f);
	wall(w, 7.0f, 4.0f, 7.0f, 6.0f);
	thr_shape_tally t = replay(w, 2, 300, bouncing_paths);
	cr_assert_eq(t.wall_crossings, 5u, "%llu crossings", (unsigned long long)t.wall_crossings);
	cr_assert_gt(t.wall_penetrations, 0u, "walking through a wall, the centre passes within r of it");
	cr_assert_eq(t.obstacle_penetrations, 0u);
	throng_world_destroy(w);
}

Test(metrics_shapes, a_stepped_world_never_crosses_a_wall)
{
	// Four walkers at x = -5 seek targets at x = 50 across the wall x = 0
	// (|y| <= 10) for 10 s, then targets at x = -50 for 10 s. The wall is
	// solid (the contact pass): no crossing, no centre closer to it than
	// the radius beyond the tolerance, in both engines; the walkers stand
	// pressed against it, then walk back west.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f, e ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD, true);
		static const float ys[4] = {-6.0f, -2.0f, 2.0f, 6.0f};
		for (int k = 0; k < 4; ++k) {
			thr_test_spawn(w, (throng_vec2){-5.0f, ys[k]}, (throng_vec2){0, 0}, (throng_vec2){50.0f, ys[k]});
		}
		wall(w, 0.0f, -10.0f, 0.0f, 10.0f);
		throng_metrics* m = NULL;
		cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK, "%s", throng_last_error());
		steps(w, m, 600);
		for (uint32_t id = 0; id < 4; ++id) {
			throng_agent_state st;
			cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
			cr_assert(st.position.x < 0.0f && st.position.x > -0.5f, "walker %u at %.4f: pressed against the wall", id,
			          (double)st.position.x);
			cr_assert_eq(throng_world_set_target(w, id, (throng_vec2){-50.0f, ys[id]}), THRONG_OK);
		}
		steps(w, m, 600);
		throng_quality q = throng_metrics_result(m);
		cr_assert_eq(q.wall_crossings, 0u, "%llu crossings", (unsigned long long)q.wall_crossings);
		cr_assert_eq(q.wall_penetrations, 0u, "%llu penetrations", (unsigned long long)q.wall_penetrations);
		cr_assert_eq(q.contacts_per_agent_step, 0.0, "the walkers stand 4 m apart: no contact");
		for (uint32_t id = 0; id < 4; ++id) {
			throng_agent_state st;
			cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
			cr_assert_lt(st.position.x, -5.0f, "walker %u at %.2f", id, (double)st.position.x);
		}
		throng_metrics_destroy(m);
		throng_world_destroy(w);
	}
}

/// Agent 0 along y = 0 at 1 m/s from x = 4.5; agent 1 diagonally from
/// (4.5, 4.5) at (1, 1) m/s; both wrapped into [-5, 5).
static throng_vec2 wrapping_paths(uint32_t a, float t)
{
	float x = 4.5f + t, y = a == 0 ? 0.0f : 4.5f + t;
	x = x >= 5.0f ? x - 10.0f : x;
	y = y >= 5.0f ? y - 10.0f : y;
	return (throng_vec2){x, y};
}

Test(metrics_shapes, wrapping_takes_the_shortest_path)
{
	// A wrapping world over [-5, 5]^2, 2 s. Agent 0 goes through the wall at
	// x = 4.9 (t = 0.4 s), across the edge at 0.5 s, through the walls at
	// x = -4.995 and x = -4.5 (1 s), to x = -3.5; never near the wall at
	// x = 0, which the straight segment of the wrapping step (x from 4.99
	// to -4.99) would cross. Agent 1 crosses the corner (both axes wrap in
	// one step) and the wall x = -4.8 between y = -5 and -4 at 0.7 s.
	// 4 crossings.
	throng_world* w = make_world(THRONG_BOUNDS_WRAP, 5.0f, THRONG_ENGINE_SIMD, false);
	wall(w, 0.0f, -1.0f, 0.0f, 1.0f);
	wall(w, 4.9f, -1.0f, 4.9f, 1.0f);
	wall(w, -4.995f, -1.0f, -4.995f, 1.0f);
	wall(w, -4.5f, -1.0f, -4.5f, 1.0f);
	wall(w, -4.8f, -5.0f, -4.8f, -4.0f);
	thr_shape_tally t = replay(w, 2, 120, wrapping_paths);
	cr_assert_eq(t.wall_crossings, 4u, "%llu crossings", (unsigned long long)t.wall_crossings);
	throng_world_destroy(w);
}

/// Agents at rest (see the tests below).
static throng_vec2 rest_at[6];
static throng_vec2 resting_paths(uint32_t a, float t)
{
	(void)t;
	return rest_at[a];
}

Test(metrics_shapes, obstacle_penetrations_beyond_the_tolerance)
{
	// Agents of radius 0.3 at rest by obstacles of radius 1 (radii sum
	// 1.3): agent 0 with centres 0.65 apart (depth 1 - 0.65/1.3 = 0.5);
	// agent 1 at 1.2997 (depth 2.3e-4: counted); agent 2 at 1.2999 (7.7e-5,
	// within the tolerance of 1e-4: not); agent 3 touching at 1.3; agent 4
	// 1.2 from each of two obstacles (counted once a state); agent 5 far
	// away. 3 agent-states in each of 10 states: 30; the deepest 0.5.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f, THRONG_ENGINE_SIMD, false);
	static const float at[6][2] = {{0.65f, 0.0f}, {1.2997f, 10.0f}, {1.2999f, 20.0f},
	                               {1.3f, 30.0f}, {20.5f, 0.0f},    {40.0f, 40.0f}};
	for (int k = 0; k < 6; ++k) {
		rest_at[k] = (throng_vec2){at[k][0], at[k][1]};
	}
	for (int k = 0; k < 4; ++k) {
		obstacle(w, 0.0f, 10.0f * (float)k, 1.0f);
	}
	obstacle(w, 19.3f, 0.0f, 1.0f);
	obstacle(w, 21.7f, 0.0f, 1.0f);
	thr_shape_tally t = replay(w, 6, 10, resting_paths);
	cr_assert_eq(t.obstacle_penetrations, 30u, "%llu", (unsigned long long)t.obstacle_penetrations);
	cr_assert_float_eq(t.deepest_obstacle, 0.5, 1e-6, "%.9f", t.deepest_obstacle);
	cr_assert_eq(t.wall_penetrations, 0u);
	cr_assert_eq(t.wall_crossings, 0u);
	// Stepped, the same world pushes them out in its first step: nothing
	// beyond the tolerance is left to count. Not agent 4: the gap between
	// its two obstacles (0.4 m) is narrower than it (0.6 m), so it has no
	// place to go along the line of their centres (docs/BEHAVIORS.md,
	// "Contacts"); walking and spawns never put an agent there.
	for (int k = 0; k < 6; ++k) {
		if (k != 4) {
			thr_test_spawn(w, rest_at[k], (throng_vec2){0, 0}, (throng_vec2){0, 0});
		}
	}
	throng_quality q = run(w, 10);
	cr_assert_eq(q.obstacle_penetrations, 0u, "%llu", (unsigned long long)q.obstacle_penetrations);
	throng_world_destroy(w);
}

Test(metrics_shapes, wall_penetrations_beyond_the_tolerance)
{
	// Agents of radius 0.3 at rest by walls: 0.2 from the wall's middle
	// (counted), 0.3 from it (touching: not), 0.2 beyond its end point
	// (counted), 0.4 beyond the other end (not). 2 in each of 10 states.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f, THRONG_ENGINE_SIMD, false);
	rest_at[0] = (throng_vec2){0.0f, 0.2f};
	rest_at[1] = (throng_vec2){0.0f, -0.3f};
	rest_at[2] = (throng_vec2){11.2f, 10.0f};
	rest_at[3] = (throng_vec2){8.6f, 10.0f};
	wall(w, -1.0f, 0.0f, 1.0f, 0.0f);
	wall(w, 9.0f, 10.0f, 11.0f, 10.0f);
	thr_shape_tally t = replay(w, 4, 10, resting_paths);
	cr_assert_eq(t.wall_penetrations, 20u, "%llu", (unsigned long long)t.wall_penetrations);
	cr_assert_eq(t.wall_crossings, 0u, "nobody moves");
	cr_assert_eq(t.obstacle_penetrations, 0u);
	// Stepped, the wall pushes them out in the first step.
	for (int k = 0; k < 4; ++k) {
		thr_test_spawn(w, rest_at[k], (throng_vec2){0, 0}, (throng_vec2){0, 0});
	}
	throng_quality q = run(w, 10);
	cr_assert_eq(q.wall_penetrations, 0u, "%llu", (unsigned long long)q.wall_penetrations);
	throng_world_destroy(w);
}

Test(metrics_shapes, shapes_changed_between_observations_count)
{
	// Agent 0 rests at the origin; agent 1 walks along y = 5 at 1 m/s from
	// x = -3. After 5 steps the obstacle, far away until then, is moved onto
	// agent 0: the next observation (taken without a step) counts it, and
	// the next step's contact pass pushes agent 0 out: 1 in all. A wall
	// added then across agent 1's path at x = 0 stops it (solid): no
	// crossing, agent 1 ends 0.3 m short of it.
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 50.0f, THRONG_ENGINE_SIMD, false);
	thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	thr_test_spawn(w, (throng_vec2){-3.0f, 5.0f}, (throng_vec2){1.0f, 0.0f}, (throng_vec2){0, 0});
	uint32_t o = 0;
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){30.0f, 30.0f}, 1.0f, &o), THRONG_OK);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK, "%s", throng_last_error());
	steps(w, m, 5);
	cr_assert_eq(throng_metrics_result(m).obstacle_penetrations, 0u);
	cr_assert_eq(throng_world_set_obstacle(w, o, (throng_vec2){0.0f, 0.0f}, 1.0f), THRONG_OK);
	cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_metrics_result(m).obstacle_penetrations, 1u, "seen before the world's next step");
	wall(w, 0.0f, 4.0f, 0.0f, 6.0f);
	steps(w, m, 235);
	throng_quality q = throng_metrics_result(m);
	cr_assert_eq(q.obstacle_penetrations, 1u, "%llu", (unsigned long long)q.obstacle_penetrations);
	cr_assert_eq(q.wall_crossings, 0u, "%llu", (unsigned long long)q.wall_crossings);
	cr_assert_eq(q.steps, 241u);
	throng_agent_state st;
	cr_assert_eq(throng_world_get_agent(w, 1, &st), THRONG_OK);
	cr_assert_float_eq(st.position.x, -0.3f, 1e-5f, "agent 1 stopped at %.6f", (double)st.position.x);
	throng_metrics_destroy(m);
	throng_world_destroy(w);
}
