// SPDX-License-Identifier: MIT
// The `dense` scenario: the benchmark's dense flock (issue 37, item 5).
//
// A flock as `flock` builds it (thr_boids_build: a torus, dart starts,
// random headings at half speed), at the density of FLAME GPU 2's
// "circles" benchmark, the standard dense agent-based workload: there each
// agent is attracted to or repelled by every other agent within a radius
// r, and examines about 204 candidates, 71 of them within r, at 10^6
// agents. Here every boid separates from, aligns with and coheres to every
// other boid within DENSE_VIEW_RADIUS (one radius for the three slots, so
// every neighbour the walk finds is read by all three); nothing else
// steers (no wander: the circles model has no noise either).
//
// Why these numbers. The agent grid's cell is the query radius R (core's
// thr_world_cell_size), so a walk covers a box of 2R on a side, which
// overlaps 3 x 3 cells on average: it examines about 1 + 9 R^2 rho
// candidates (itself included) and finds pi R^2 rho others within R.
// DENSE_AREA_PER_AGENT = 1.1 m^2 (rho = 0.909 a m^2) with R = 5 m gives
// 205.5 and 71.4; the side grows with sqrt(N) (sqrt(1.1 N) m: 33 m at
// 10^3, 1,049 m at 10^6), so the figures are the same at every N. The
// torus keeps the density; separation at the full radius outweighs
// cohesion, so the boids spread evenly instead of gathering into flocks
// (which would raise the candidates an agent meets): measured with the
// library's counters (tests/test_scenes.c, docs/PERFORMANCE.md "Dense
// row"). Bodies of 0.25 m cover 18 % of the floor; contacts stay on, as in
// `flock`, and rarely find a pair.
//
// No goals (goal radius 0). Default 10,000 boids, 600 steps (10 s, a
// benchmark's length). Outcome: the `flock` measure's `order`.
#include "scenario_internal.h"

#define DENSE_AREA_PER_AGENT 1.1f ///< m^2 per boid: 71 within R, 205 candidates (above)
#define DENSE_MIN_SIDE 2.0f       ///< m: room for one boid's dart at any N
#define DENSE_MAX_SPEED 3.0f      ///< m/s, as flock
#define DENSE_MAX_FORCE 4.0f      ///< m/s^2, as flock
#define DENSE_RADIUS 0.25f        ///< m, as flock
#define DENSE_VIEW_RADIUS 5.0f    ///< m: R, whom all three slots see

static throng_controller dense_controller(void)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	// flock's weights: separation outweighs the rest.
	static const throng_behavior_kind kinds[3] = {THRONG_SEPARATION, THRONG_ALIGNMENT, THRONG_COHESION};
	static const float weights[3] = {2.0f, 1.0f, 0.8f};
	for (int k = 0; k < 3; ++k) {
		throng_slot s = throng_slot_default_def(kinds[k]);
		s.weight = weights[k];
		s.params.neighbor_radius = DENSE_VIEW_RADIUS;
		throng_controller_add(&c, s);
	}
	return c;
}

throng_status thr_dense_build(throng_scene* scene, const throng_scene_def* o)
{
	// In thr_boids' order: the scene, area a boid, least side, body, top speed and force, controller.
	const thr_boids spec = {"dense", DENSE_AREA_PER_AGENT, DENSE_MIN_SIDE, DENSE_RADIUS, DENSE_MAX_SPEED,
	                        DENSE_MAX_FORCE, dense_controller()};
	return thr_boids_build(scene, o, &spec);
}
