// SPDX-License-Identifier: MIT
// The `field` scenario: the crowd the benchmarks measure.
//
// N pedestrians (1.3 m/s, radius 0.3 m) spread uniformly over a contained
// square at one agent per 25 m^2, with circular obstacles (one per 400 m^2,
// radius 0.5 to 2 m) and the square's four sides as walls. Each walks to a
// goal drawn uniformly in the square; on arrival (within 1 m) it draws the
// next one from its own counter-based stream, keyed by (seed, id, step), so
// the scene never runs out of work and stays deterministic (the scene
// definition's random goals, scenario_file_build.c).
//
// Controller (hybrid): bounds, obstacle feelers, wall feelers, unaligned
// avoidance and separation spend the force budget first, in that order;
// wander and arrive-to-goal share what is left, weighted.
//
// Spawn: obstacles first, then the agents in id order, each at its uniform
// draw unless that would overlap an obstacle or an agent of lower id, in
// which case it draws again (scenario_spawn.h): the first state has no
// overlap and nobody stands in an obstacle, and the spawn stays uniform
// (at one agent per 25 m^2 a redraw is rare: a few agents in a hundred).
// Units: metres, seconds.
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "rng.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"

#define FIELD_AREA_PER_AGENT 25.0f     ///< m^2
#define FIELD_AREA_PER_OBSTACLE 400.0f ///< m^2
#define FIELD_MAX_SPEED 1.3f           ///< m/s: a walk
#define FIELD_MAX_FORCE 3.0f           ///< m/s^2
#define FIELD_RADIUS 0.3f              ///< m
#define FIELD_GOAL_RADIUS 1.0f         ///< m: a goal is reached within it
#define FIELD_EDGE 1.0f                ///< m: spawns and goals keep this far from the sides
#define FIELD_OBSTACLE_MIN 0.5f        ///< m: obstacle radii are uniform in [min, max)
#define FIELD_OBSTACLE_MAX 2.0f        ///< m

/// The field's layout: what its agents are made from, with their starts.
typedef struct field_data {
	uint32_t key;   ///< the world's random key
	float side;     ///< m
} field_data;

/// A uniform coordinate in [FIELD_EDGE, side - FIELD_EDGE) from draw `k` of
/// (key, a, b) on `stream`.
static float field_coord(const field_data* f, uint32_t a, uint32_t b, uint32_t stream)
{
	float u = thr_bits_to_unit(thr_rng_bits(f->key, a, b, stream));
	return FIELD_EDGE + (f->side - 2.0f * FIELD_EDGE) * u;
}

/// Goal number `round` of agent id: two draws of the goal stream.
static void field_goal(const field_data* f, uint32_t id, uint32_t round, float* x, float* y)
{
	*x = field_coord(f, id, 2u * round, THR_STREAM_GOAL);
	*y = field_coord(f, id, 2u * round + 1u, THR_STREAM_GOAL);
}

/// Agent i: start[i] is its dart (thr_spawn_scatter), its target goal 0.
static void field_make(const void* params, const throng_vec2* start, uint32_t i, throng_agent_def* def)
{
	const field_data* f = params;
	*def = throng_agent_default_def();
	def->position = start[i];
	def->max_speed = FIELD_MAX_SPEED;
	def->max_force = FIELD_MAX_FORCE;
	def->radius = FIELD_RADIUS;
	field_goal(f, i, 0, &def->target.x, &def->target.y);
}

static throng_controller field_controller(void)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot s = throng_slot_default_def(THRONG_BOUNDS);
	s.priority = true;
	s.params.margin = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_OBSTACLE_AVOID);
	s.priority = true;
	s.params.look_ahead = 3.0f; // 2.3 s ahead at a walk
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_WALL_AVOID);
	s.priority = true;
	s.params.look_ahead = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_UNALIGNED_AVOID);
	s.priority = true;
	s.params.max_prediction = 1.5f;
	s.params.avoid_radius = 0.8f;   // contact at 0.6 m, plus 0.2 m
	s.params.neighbor_radius = 4.0f; // two walkers close 3.9 m in 1.5 s
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_SEPARATION);
	s.priority = true;
	s.params.neighbor_radius = 1.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_WANDER);
	s.weight = 0.3f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_ARRIVE);
	s.params.slow_radius = 2.0f;
	throng_controller_add(&c, s);
	return c;
}

throng_status thr_field_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	float side = sqrtf(FIELD_AREA_PER_AGENT * (float)n);
	if (side < 10.0f) {
		side = 10.0f;
	}
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {side, side};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_CONTAIN);
	if (st != THRONG_OK) {
		return st;
	}
	const field_data data = {thr_rng_key(o->seed), side};
	const field_data* f = &data;
	throng_vec2* start = malloc((size_t)n * sizeof *start);
	if (start == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario field: out of memory for %u agents", n);
	}
	throng_controller ctl = field_controller();
	uint32_t archetype;
	st = thr_scene_add_archetype(scene, "pedestrian", &ctl, &archetype);
	// Obstacles: their own domain of the spawn stream (a = 2^31 + index).
	// The agents keep clear of them and of each other; the spawn
	// rectangle keeps FIELD_EDGE (more than a radius) from the walls, and
	// an agent's first try, lo + (hi - lo) u from draws 0 and 1, is
	// field_coord's (side - 1 - 1 is side - 2 exactly for side >= 2).
	uint32_t obstacles = (uint32_t)(side * side / FIELD_AREA_PER_OBSTACLE);
	const throng_vec2 inner_lo = {FIELD_EDGE, FIELD_EDGE}, inner_hi = {side - FIELD_EDGE, side - FIELD_EDGE};
	thr_spawn sp;
	if (st == THRONG_OK) {
		st = thr_spawn_init(&sp, "field", lo, hi, n + obstacles, FIELD_OBSTACLE_MAX);
	}
	if (st != THRONG_OK) {
		free(start);
		return st;
	}
	for (uint32_t k = 0; k < obstacles && st == THRONG_OK; ++k) {
		uint32_t a = 0x80000000u | k;
		throng_vec2 c = {field_coord(f, a, 0, THR_STREAM_SPAWN), field_coord(f, a, 1, THR_STREAM_SPAWN)};
		float u = thr_bits_to_unit(thr_rng_bits(f->key, a, 2, THR_STREAM_SPAWN));
		float r = FIELD_OBSTACLE_MIN + (FIELD_OBSTACLE_MAX - FIELD_OBSTACLE_MIN) * u;
		st = thr_scene_add_obstacle(scene, c, r);
		thr_spawn_block(&sp, c, r);
	}
	if (st == THRONG_OK) {
		st = thr_spawn_scatter(&sp, f->key, 0, n, FIELD_RADIUS, inner_lo, inner_hi, start);
	}
	thr_spawn_free(&sp);
	const throng_vec2 corners[4] = {{0.0f, 0.0f}, {side, 0.0f}, {side, side}, {0.0f, side}};
	for (int k = 0; k < 4 && st == THRONG_OK; ++k) {
		st = thr_scene_add_wall(scene, corners[k], corners[(k + 1) % 4]);
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, field_make, f, sizeof *f, start);
	} else {
		free(start);
	}
	if (st == THRONG_OK) {
		// On arrival each agent draws its next goal, round r from draws 2r
		// and 2r+1 of its goal stream: the definition's random goals, whose
		// draw lo + (hi - lo) u is field_coord's (side - 1 - 1 is side - 2
		// exactly for side >= 2).
		st = thr_scene_random_goals(scene, inner_lo, inner_hi);
	}
	scene->goal_radius = FIELD_GOAL_RADIUS;
	return st;
}
