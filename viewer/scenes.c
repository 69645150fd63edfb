// SPDX-License-Identifier: MIT
// Scene lookup and the viewer's own scene, `solo`.
//
// `solo` is the seeds' playground: one agent (or a few, with --agents) in a
// contained 24 x 16 m room with three obstacles. Its controller mixes what
// the seeds' demos mix (arrive to a target, flee the cursor, wander,
// obstacle avoidance, separation, bounds), some slots off so the number keys
// have something to switch on. Everyone starts at rest on its own target,
// so until the mouse moves nothing moves: agent 0 sits at the origin, which
// is what the viewer's pixel test looks for.
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "throng/scenario_file.h"

#define SOLO_NAME "solo"
#define SOLO_MAX_AGENTS 64u
#define SOLO_HALF_W 12.0f  ///< m
#define SOLO_HALF_H 8.0f   ///< m
#define SOLO_RING 4.0f     ///< m: agents after the first sit on this ring

bool vw_scene_exists(const char* name)
{
	return name != NULL && (throng_scenario_find(name) != NULL || strcmp(name, SOLO_NAME) == 0);
}

/// Prints one problem of a scenario file to stderr and counts it.
static void print_diagnostic(void* user, const throng_diagnostic* d)
{
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	fprintf(stderr, "%s\n", line);
	*(uint32_t*)user += 1;
}

void vw_scene_names(char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	uint32_t n = throng_scenario_count();
	for (uint32_t k = 0; k <= n; ++k) {
		const char* name = k < n ? throng_scenario_at(k)->name : SOLO_NAME;
		int w = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : ", ", name);
		if (w < 0 || (size_t)w >= cap - used) {
			return;
		}
		used += (size_t)w;
	}
}

static throng_controller solo_controller(void)
{
	throng_controller c = throng_controller_make(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_make(THRONG_ARRIVE);
	s.params.target = THRONG_TARGET_POINT;
	s.params.slow_radius = 2.5f;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_FLEE);
	s.params.target = THRONG_TARGET_THREAT;
	s.params.flee_mode = THRONG_FLEE_PANIC;
	s.params.flee_radius = 5.0f;
	s.weight = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_EVADE);
	s.params.target = THRONG_TARGET_THREAT;
	s.params.evade_radius = 5.0f;
	s.params.max_prediction = 1.0f;
	s.weight = 2.0f;
	s.enabled = false;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_WANDER);
	s.params.circle_distance = 2.0f;
	s.params.circle_radius = 1.0f;
	s.params.jitter = 4.0f;
	s.weight = 0.5f;
	s.enabled = false;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_OBSTACLE_AVOID);
	s.params.look_ahead = 3.0f;
	s.weight = 3.0f;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_SEPARATION);
	s.params.neighbor_radius = 1.5f;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_BOUNDS);
	s.params.margin = 2.0f;
	s.weight = 2.0f;
	throng_controller_add(&c, s);
	s = throng_slot_make(THRONG_SEEK);
	s.params.target = THRONG_TARGET_POINT;
	s.enabled = false;
	throng_controller_add(&c, s);
	return c;
}

/// Builds `solo` into s->world; returns the first failing status.
static throng_status solo_build(const throng_scene_options* o, vw_scene* s, char* err, size_t err_cap)
{
	uint32_t n = o->agents != 0 ? o->agents : 1u;
	if (n > SOLO_MAX_AGENTS) {
		snprintf(err, err_cap, "scene solo: agents must be from 1 to %u, got %u", SOLO_MAX_AGENTS, n);
		return THRONG_ERR_INVALID_ARGUMENT;
	}
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-SOLO_HALF_W, -SOLO_HALF_H};
	def.bounds_max = (throng_vec2){SOLO_HALF_W, SOLO_HALF_H};
	def.bounds_mode = THRONG_BOUNDS_CONTAIN;
	def.dt = 1.0f / 60.0f;
	def.seed = o->seed;
	def.capacity = n;
	def.engine = o->engine;
	def.threads = o->threads;
	def.record_forces = true;
	throng_status st = throng_world_create(&def, &s->world);
	throng_controller ctl = solo_controller();
	uint32_t archetype = 0;
	if (st == THRONG_OK) {
		st = throng_world_add_archetype(s->world, &ctl, &archetype);
	}
	static const float obstacles[3][3] = {{-6.0f, 3.0f, 1.5f}, {5.0f, -3.0f, 2.0f}, {6.5f, 4.0f, 1.0f}};
	for (int k = 0; k < 3 && st == THRONG_OK; ++k) {
		st = throng_world_add_obstacle(s->world, (throng_vec2){obstacles[k][0], obstacles[k][1]}, obstacles[k][2],
		                               NULL);
	}
	for (uint32_t i = 0; i < n && st == THRONG_OK; ++i) {
		throng_agent_def a = throng_agent_default_def();
		if (i > 0) {
			// Evenly on a ring around agent 0.
			double t = 6.283185307179586 * (double)(i - 1) / (double)(n - 1);
			a.position = (throng_vec2){SOLO_RING * (float)cos(t), SOLO_RING * (float)sin(t)};
		}
		a.target = a.position;
		a.heading = (throng_vec2){1.0f, 0.0f};
		a.max_speed = 3.0f;
		a.max_force = 6.0f;
		a.radius = 0.4f;
		a.archetype = archetype;
		a.group = i % 4u;
		st = throng_world_spawn(s->world, &a, 1, NULL);
	}
	if (st != THRONG_OK) {
		snprintf(err, err_cap, "scene solo: %s", throng_last_error());
	}
	return st;
}

throng_status vw_scene_open(const char* name, const throng_scene_options* options, vw_scene* out, char* err,
                            size_t err_cap)
{
	memset(out, 0, sizeof *out);
	throng_scene_options o = options != NULL ? *options : throng_scene_default_options();
	o.record_forces = true;
	throng_status st;
	if (name != NULL && strcmp(name, SOLO_NAME) == 0 && throng_scenario_find(name) == NULL) {
		out->name = SOLO_NAME;
		out->mouse_target = true;
		st = solo_build(&o, out, err, err_cap);
		if (st != THRONG_OK) {
			vw_scene_close(out);
		}
		return st;
	}
	uint32_t printed = 0;
	st = throng_scene_open_report(name, &o, print_diagnostic, &printed, &out->scene);
	if (st != THRONG_OK) {
		if (printed > 0) {
			snprintf(err, err_cap, "%s: %u problem%s (above)", name, printed, printed == 1 ? "" : "s");
		} else {
			snprintf(err, err_cap, "%s", throng_last_error());
		}
		memset(out, 0, sizeof *out);
		return st;
	}
	out->world = throng_scene_world(out->scene);
	out->name = throng_scene_info(out->scene)->name;
	return THRONG_OK;
}

void vw_scene_close(vw_scene* s)
{
	if (s->scene != NULL) {
		throng_scene_destroy(s->scene);
	} else {
		throng_world_destroy(s->world);
	}
	memset(s, 0, sizeof *s);
}

throng_status vw_scene_step(vw_scene* s, bool script)
{
	if (s->scene != NULL && script) {
		return throng_scene_step(s->scene);
	}
	return throng_world_step(s->world);
}

bool vw_scene_threat(const vw_scene* s, throng_vec2* position)
{
	if (s->scene != NULL) {
		return throng_scene_threat(s->scene, position);
	}
	*position = s->threat;
	return s->threat_active;
}
