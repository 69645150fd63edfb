// SPDX-License-Identifier: MIT
// The `solo` scenario: the seeds' playground, which the viewer opens by
// default-free name and drives with the mouse (the viewer makes the cursor
// the agents' target and, with a key, the threat).
//
// One agent (or a few, with --agents) in a contained 24 x 16 m room with
// three obstacles. Its controller mixes what the seeds' demos mix (arrive
// to a target, flee the threat, wander, obstacle avoidance, separation,
// bounds), some slots off so the viewer's number keys have something to
// switch on. Everyone starts at rest on its own target, so until the mouse
// moves nothing moves: agent 0 sits at the origin, which is what the
// viewer's pixel test looks for; the next SOLO_RING_MAX sit evenly on a
// ring of SOLO_RING around it (angles through the C library's cos and sin
// in double, as the viewer placed them before solo moved here), and any
// more are scattered at random over the room (scenario_spawn.h).
//
// Nobody overlaps another or an obstacle, and nobody feels a force at
// rest: the ring (3 m) keeps clear of the obstacles, its 12 places lie
// 1.55 m apart, and the scattered agents keep 2 SOLO_SPACE = 1.5 m (the
// separation radius) from everyone and SOLO_INSET (the bounds margin plus
// a radius) from the sides. The room keeps its size up to
// SOLO_BASE_AGENTS agents; beyond, both sides grow with
// sqrt(agents / SOLO_BASE_AGENTS) so that the scattered agents always
// find room (16 m^2 an agent), the obstacles staying where they are.
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "rng.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"

#define SOLO_HALF_W 12.0f       ///< m, at base size
#define SOLO_HALF_H 8.0f        ///< m, at base size
#define SOLO_RING 3.0f          ///< m: agents 1 .. SOLO_RING_MAX sit on this ring
#define SOLO_RING_MAX 12u       ///< places on the ring: 1.55 m apart
#define SOLO_SPACE 0.75f        ///< m: scattered agents keep twice this (separation's radius) from everyone
#define SOLO_INSET 2.4f         ///< m: scattered agents keep this from the sides (bounds margin 2 m + radius)
#define SOLO_BASE_AGENTS 24u    ///< the room keeps its base size up to this many agents
#define SOLO_RADIUS 0.4f        ///< m
#define SOLO_OBSTACLE_MAX 2.0f  ///< m: the largest obstacle's radius

/// The obstacles: centre x, y and radius (m).
static const float solo_obstacles[3][3] = {{-6.0f, 3.0f, 1.5f}, {5.0f, -3.0f, 2.0f}, {6.5f, 4.0f, 1.0f}};

static throng_controller solo_controller(void)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_default_def(THRONG_ARRIVE);
	s.params.target = THRONG_TARGET_POINT;
	s.params.slow_radius = 2.5f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_FLEE);
	s.params.target = THRONG_TARGET_THREAT;
	s.params.flee_mode = THRONG_FLEE_PANIC;
	s.params.flee_radius = 5.0f;
	s.weight = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_EVADE);
	s.params.target = THRONG_TARGET_THREAT;
	s.params.evade_radius = 5.0f;
	s.params.max_prediction = 1.0f;
	s.weight = 2.0f;
	s.enabled = false;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_WANDER);
	s.params.circle_distance = 2.0f;
	s.params.circle_radius = 1.0f;
	s.params.jitter = 4.0f;
	s.weight = 0.5f;
	s.enabled = false;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_OBSTACLE_AVOID);
	s.params.look_ahead = 3.0f;
	s.weight = 3.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_SEPARATION);
	s.params.neighbor_radius = 1.5f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_BOUNDS);
	s.params.margin = 2.0f;
	s.weight = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_SEEK);
	s.params.target = THRONG_TARGET_POINT;
	s.enabled = false;
	throng_controller_add(&c, s);
	return c;
}

typedef struct solo_layout {
	uint32_t archetype;
} solo_layout;

/// Agent i, at start[i] (solo_place).
static void solo_make(const void* params, const throng_vec2* start, uint32_t i, throng_agent_def* a)
{
	const solo_layout* L = params;
	*a = throng_agent_default_def();
	a->position = start[i];
	a->target = a->position;
	a->heading = (throng_vec2){1.0f, 0.0f};
	a->max_speed = 3.0f;
	a->max_force = 6.0f;
	a->radius = SOLO_RADIUS;
	a->archetype = L->archetype;
	a->group = i % 4u;
}

/// Every agent's start: agent 0 at the origin, then the ring, then the
/// scattered ones in [lo, hi] (the room inset by SOLO_INSET).
static throng_status solo_place(uint32_t n, uint32_t key, throng_vec2 lo, throng_vec2 hi, throng_vec2* start)
{
	uint32_t ring = n - 1u < SOLO_RING_MAX ? n - 1u : SOLO_RING_MAX;
	thr_spawn sp;
	throng_status st = thr_spawn_init(&sp, "solo", lo, hi, n + 3u, SOLO_OBSTACLE_MAX);
	if (st != THRONG_OK) {
		return st;
	}
	for (int k = 0; k < 3; ++k) {
		thr_spawn_block(&sp, (throng_vec2){solo_obstacles[k][0], solo_obstacles[k][1]}, solo_obstacles[k][2]);
	}
	start[0] = (throng_vec2){0.0f, 0.0f};
	thr_spawn_block(&sp, start[0], SOLO_SPACE);
	for (uint32_t i = 1; i <= ring; ++i) {
		// Evenly on a ring around agent 0.
		double t = 6.283185307179586 * (double)(i - 1u) / (double)ring;
		start[i] = (throng_vec2){SOLO_RING * (float)cos(t), SOLO_RING * (float)sin(t)};
		thr_spawn_block(&sp, start[i], SOLO_SPACE);
	}
	st = thr_spawn_scatter(&sp, key, ring + 1u, n - 1u - ring, SOLO_SPACE, lo, hi, start + ring + 1u);
	thr_spawn_free(&sp);
	return st;
}

throng_status thr_solo_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	float scale = n > SOLO_BASE_AGENTS ? sqrtf((float)n / (float)SOLO_BASE_AGENTS) : 1.0f;
	float hw = SOLO_HALF_W * scale, hh = SOLO_HALF_H * scale;
	const throng_vec2 lo = {-hw, -hh}, hi = {hw, hh};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_CONTAIN);
	throng_controller ctl = solo_controller();
	solo_layout L = {0};
	throng_vec2* start = NULL;
	if (st == THRONG_OK) {
		st = thr_scene_add_archetype(scene, "agent", &ctl, &L.archetype);
	}
	for (int k = 0; k < 3 && st == THRONG_OK; ++k) {
		st = thr_scene_add_obstacle(scene, (throng_vec2){solo_obstacles[k][0], solo_obstacles[k][1]},
		                            solo_obstacles[k][2]);
	}
	if (st == THRONG_OK) {
		start = malloc((size_t)n * sizeof *start);
		st = start != NULL ? THRONG_OK
		                     : thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario solo: out of memory for %u agents", n);
	}
	if (st == THRONG_OK) {
		const throng_vec2 in_lo = {-hw + SOLO_INSET, -hh + SOLO_INSET}, in_hi = {hw - SOLO_INSET, hh - SOLO_INSET};
		st = solo_place(n, thr_rng_key(o->seed), in_lo, in_hi, start);
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, solo_make, &L, sizeof L, start);
	} else {
		free(start);
	}
	if (st == THRONG_OK) {
		st = thr_scene_threat_external(scene); // the viewer's mouse, in threat mode
	}
	scene->goal_radius = 0.0f; // targets follow the mouse; nobody arrives for good
	return st;
}
