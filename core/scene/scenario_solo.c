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
// viewer's pixel test looks for; the others sit evenly on a ring of
// SOLO_RING around it (angles through the C library's cos and sin in
// double, as the viewer placed them before solo moved here).
#include <math.h>

#include "scenario_internal.h"

#define SOLO_HALF_W 12.0f  ///< m
#define SOLO_HALF_H 8.0f   ///< m
#define SOLO_RING 4.0f     ///< m: agents after the first sit on this ring

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

static void solo_make(const throng_scene* scene, uint32_t i, throng_agent_def* a, const void* user)
{
	const solo_layout* L = user;
	uint32_t n = scene->agents;
	*a = throng_agent_default_def();
	if (i > 0) {
		// Evenly on a ring around agent 0.
		double t = 6.283185307179586 * (double)(i - 1) / (double)(n - 1);
		a->position = (throng_vec2){SOLO_RING * (float)cos(t), SOLO_RING * (float)sin(t)};
	}
	a->target = a->position;
	a->heading = (throng_vec2){1.0f, 0.0f};
	a->max_speed = 3.0f;
	a->max_force = 6.0f;
	a->radius = 0.4f;
	a->archetype = L->archetype;
	a->group = i % 4u;
}

throng_status thr_solo_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	const throng_vec2 lo = {-SOLO_HALF_W, -SOLO_HALF_H}, hi = {SOLO_HALF_W, SOLO_HALF_H};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_CONTAIN);
	throng_controller ctl = solo_controller();
	solo_layout L = {0};
	if (st == THRONG_OK) {
		st = thr_scene_add_archetype(scene, &ctl, &L.archetype);
	}
	static const float obstacles[3][3] = {{-6.0f, 3.0f, 1.5f}, {5.0f, -3.0f, 2.0f}, {6.5f, 4.0f, 1.0f}};
	for (int k = 0; k < 3 && st == THRONG_OK; ++k) {
		st = thr_scene_add_obstacle(scene, (throng_vec2){obstacles[k][0], obstacles[k][1]}, obstacles[k][2]);
	}
	if (st == THRONG_OK) {
		st = thr_scene_spawn_batched(scene, n, solo_make, &L);
	}
	if (st == THRONG_OK) {
		st = thr_scene_threat_external(scene); // the viewer's mouse, in threat mode
	}
	scene->goal_radius = 0.0f; // targets follow the mouse; nobody arrives for good
	return st;
}
