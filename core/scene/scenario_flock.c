// SPDX-License-Identifier: MIT
// The `flock` scenario: Reynolds' boids on a torus.
//
// N boids start at uniform random places in a square world that wraps
// (leaving one side enters the opposite one), none overlapping another: a
// boid whose draw would overlap one of lower id draws again
// (scenario_spawn.h), and the starts keep a body width plus slack from the
// upper sides, so no two overlap across the seam either. Each heads a
// random way at half its top speed. A weighted controller blends
// separation, alignment, cohesion and a little wander; nothing else
// steers, so the flocks that form are the three rules' doing. Boids are
// small and quick, like a starling next to a pedestrian: radius 0.25 m,
// 3 m/s.
//
// Scaling: the square's side is sqrt(N * FLOCK_AREA_PER_AGENT) (at least
// FLOCK_MIN_SIDE), so the density, and with it the number of neighbours
// each boid sees and the cost per boid, is the same at every N: 200 m at
// the default 2,000 boids. The grid does not wrap, so a boid near an edge
// does not see its neighbours across it; flocks cross the seam anyway.
//
// No goals (goal radius 0). Default 1800 steps (30 s). The outcome measure
// `flock` (any scene may name it) reports `order`, the polarisation of the flock, |sum of unit headings| / N:
// about 1/sqrt(N) for random headings, 1 when every boid flies the same
// way; flocking raises it (docs/QUALITY.md).
//
// The torus, the darts and the boid's start are thr_boids_build's, which
// `dense` (scenario_dense.c) builds with its own density, body and
// controller.
#include <math.h>

#include "fmath.h"
#include "rng.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"

#define FLOCK_AREA_PER_AGENT 20.0f ///< m^2 per boid
#define FLOCK_MIN_SIDE 20.0f       ///< m
#define FLOCK_MAX_SPEED 3.0f       ///< m/s
#define FLOCK_MAX_FORCE 4.0f       ///< m/s^2: a half turn at full speed in 1.5 s
#define FLOCK_RADIUS 0.25f         ///< m
#define FLOCK_SEPARATION_RADIUS 1.5f ///< m: personal space, three body widths
#define FLOCK_VIEW_RADIUS 5.0f     ///< m: whom alignment and cohesion see

typedef struct flock_layout {
	float side;
	float radius, max_speed, max_force;
	uint32_t key;
	uint32_t archetype;
} flock_layout;

/// Boid i; start[i] is its dart (thr_spawn_scatter).
static void flock_make(const void* params, const throng_vec2* start, uint32_t i, throng_agent_def* def)
{
	const flock_layout* L = params;
	float a = thr_bits_to_pm1(thr_rng_bits(L->key, i, 2, THR_STREAM_SPAWN)) * THR_PI;
	float s, c;
	thr_sincosf(a, &s, &c);
	*def = throng_agent_default_def();
	def->position = start[i];
	def->heading = (throng_vec2){c, s};
	def->velocity = (throng_vec2){c * 0.5f * L->max_speed, s * 0.5f * L->max_speed};
	def->max_speed = L->max_speed;
	def->max_force = L->max_force;
	def->radius = L->radius;
	def->archetype = L->archetype;
}

static throng_controller flock_controller(void)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	// Separation outweighs the rest: a boid gives way before it flocks.
	throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
	s.weight = 2.0f;
	s.params.neighbor_radius = FLOCK_SEPARATION_RADIUS;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_ALIGNMENT);
	s.weight = 1.0f;
	s.params.neighbor_radius = FLOCK_VIEW_RADIUS;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_COHESION);
	s.weight = 0.8f;
	s.params.neighbor_radius = FLOCK_VIEW_RADIUS;
	throng_controller_add(&c, s);
	// Wander keeps a lone boid (and a flock) from flying dead straight:
	// its circle 2 m ahead, 1 m wide, the angle drifting at up to 3 rad/s.
	s = throng_slot_default_def(THRONG_WANDER);
	s.weight = 0.4f;
	s.params.circle_distance = 2.0f;
	s.params.circle_radius = 1.0f;
	s.params.jitter = 3.0f;
	throng_controller_add(&c, s);
	return c;
}

throng_status thr_boids_build(throng_scene* scene, const throng_scene_def* o, const thr_boids* spec)
{
	uint32_t n = scene->agents;
	flock_layout L;
	L.side = sqrtf(spec->area_per_agent * (float)n);
	L.side = L.side > spec->min_side ? L.side : spec->min_side;
	L.radius = spec->radius;
	L.max_speed = spec->max_speed;
	L.max_force = spec->max_force;
	L.key = thr_rng_key(o->seed);
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {L.side, L.side};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_WRAP);
	if (st != THRONG_OK) {
		return st;
	}
	st = thr_scene_add_archetype(scene, "boid", &spec->controller, &L.archetype);
	if (st != THRONG_OK) {
		return st;
	}
	// Starts in [0, side - d]^2, d = two radii and the slack: a pair's
	// distance across the seam is then at least d.
	float clear = 2.0f * L.radius * (1.0f + THR_SPAWN_SLACK);
	const throng_vec2 start_hi = {L.side - clear, L.side - clear};
	throng_vec2* start = NULL;
	st = thr_spawn_darts(spec->scene, L.key, n, L.radius, lo, start_hi, &start);
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, flock_make, &L, sizeof L, start);
	}
	scene->goal_radius = 0.0f;
	return st;
}

throng_status thr_flock_build(throng_scene* scene, const throng_scene_def* o)
{
	// In thr_boids' order: the scene, area a boid, least side, body, top speed and force, controller.
	const thr_boids spec = {"flock", FLOCK_AREA_PER_AGENT, FLOCK_MIN_SIDE, FLOCK_RADIUS, FLOCK_MAX_SPEED,
	                        FLOCK_MAX_FORCE, flock_controller()};
	return thr_boids_build(scene, o, &spec);
}

static uint32_t flock_outcome(const throng_scene* scene, const thr_measure_state* state, throng_scene_outcome* out,
                              uint32_t cap)
{
	(void)state;
	// Summed in id order, so both engines give the same bits.
	const throng_world* w = scene->world;
	uint32_t n = throng_world_agent_count(w);
	double sx = 0.0, sy = 0.0;
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state a;
		if (throng_world_get_agent(w, id, &a) == THRONG_OK) {
			sx += (double)a.heading.x;
			sy += (double)a.heading.y;
		}
	}
	if (cap >= 1) {
		out[0] = (throng_scene_outcome){"order", n > 0 ? sqrt(sx * sx + sy * sy) / (double)n : 0.0};
	}
	return 1;
}

const thr_measure thr_flock_measure = {.name = "flock", .outcome = flock_outcome};
