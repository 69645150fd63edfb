// SPDX-License-Identifier: MIT
// The scene: a world built by a named scenario plus the script that drives it.
//
// This file is the generic half of the scenario library (lookup, options,
// create/destroy, the per-step script and the threat line); the scenarios
// themselves live in scenarios_builtin.c. The threat line is evaluated from
// the step counter (t = steps * dt in double), never accumulated, so a scene
// is a pure function of its options and the number of steps taken.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_internal.h"

/// Spawn batch size: 4096 defs (~240 KiB) at a time.
#define THR_SPAWN_BATCH 4096u

throng_scene_options throng_scene_default_options(void)
{
	throng_scene_options o;
	memset(&o, 0, sizeof o);
	o.agents = 0;
	o.seed = 1;
	o.engine = THRONG_ENGINE_SIMD;
	o.threads = 0;
	o.record_forces = false;
	return o;
}

throng_world_def thr_scene_world_def(const throng_scene_options* o, uint32_t capacity)
{
	throng_world_def def = throng_world_default_def();
	def.dt = 1.0f / 60.0f;
	def.seed = o->seed;
	def.capacity = capacity;
	def.engine = o->engine;
	def.threads = o->threads;
	def.record_forces = o->record_forces;
	return def;
}

throng_status thr_scene_create_world(throng_scene* scene, const throng_scene_options* options, uint32_t capacity,
                                     throng_vec2 min, throng_vec2 max, throng_bounds_mode mode)
{
	throng_world_def def = thr_scene_world_def(options, capacity);
	def.bounds_min = min;
	def.bounds_max = max;
	def.bounds_mode = mode;
	return throng_world_create(&def, &scene->world);
}

uint32_t throng_scenario_count(void)
{
	return thr_scenario_table_count;
}

const throng_scenario_info* throng_scenario_at(uint32_t index)
{
	if (index >= thr_scenario_table_count) {
		return NULL;
	}
	return &thr_scenario_table[index].info;
}

static const thr_scenario* scenario_lookup(const char* name)
{
	if (name == NULL) {
		return NULL;
	}
	for (uint32_t k = 0; k < thr_scenario_table_count; ++k) {
		if (strcmp(thr_scenario_table[k].info.name, name) == 0) {
			return &thr_scenario_table[k];
		}
	}
	return NULL;
}

const throng_scenario_info* throng_scenario_find(const char* name)
{
	const thr_scenario* s = scenario_lookup(name);
	return s != NULL ? &s->info : NULL;
}

/// Writes the known names, comma separated ("herd, circle"), into buf.
static void known_names(char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < thr_scenario_table_count; ++k) {
		int n = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : ", ", thr_scenario_table[k].info.name);
		if (n < 0 || (size_t)n >= cap - used) {
			break;
		}
		used += (size_t)n;
	}
}

throng_status thr_scene_spawn_batched(throng_scene* scene, uint32_t count,
                                      void (*make)(const throng_scene* scene, uint32_t i, throng_agent_def* def,
                                                   const void* user),
                                      const void* user)
{
	uint32_t batch = count < THR_SPAWN_BATCH ? count : THR_SPAWN_BATCH;
	if (batch == 0) {
		return THRONG_OK;
	}
	throng_agent_def* defs = malloc((size_t)batch * sizeof *defs);
	if (defs == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: cannot allocate %u agent defs",
		                scene->scenario->info.name, batch);
	}
	throng_status st = THRONG_OK;
	for (uint32_t first = 0; first < count && st == THRONG_OK; first += batch) {
		uint32_t n = count - first < batch ? count - first : batch;
		for (uint32_t k = 0; k < n; ++k) {
			make(scene, first + k, &defs[k], user);
		}
		st = throng_world_spawn(scene->world, defs, n, NULL);
		if (st != THRONG_OK) {
			// The world names the index within this batch; name the agent.
			char why[400];
			snprintf(why, sizeof why, "%s", throng_last_error());
			st = thr_fail(st, "scenario %s: spawning agents %u..%u (agents[k] is agent %u + k): %s",
			              scene->scenario->info.name, first, first + n - 1u, first, why);
		}
	}
	free(defs);
	return st;
}

/// Moves the scripted threat to simulated time t = steps*dt and hands it to
/// the world when it changed.
static throng_status threat_line_update(throng_scene* scene)
{
	const thr_threat_line* line = &scene->threat_line;
	if (!line->enabled) {
		return THRONG_OK;
	}
	double t = (double)scene->steps * scene->dt;
	bool was_active = scene->threat_active;
	bool active = false;
	throng_vec2 p = line->start;
	if (t >= line->t_start) {
		double s = t - line->t_start;
		p.x = (float)((double)line->start.x + (double)line->velocity.x * s);
		p.y = (float)((double)line->start.y + (double)line->velocity.y * s);
		// The path is a straight line through a box, so once it has left
		// the box it never comes back; "inside" is inclusive.
		active = p.x >= line->active_min.x && p.x <= line->active_max.x && p.y >= line->active_min.y &&
		         p.y <= line->active_max.y;
	}
	if (!active && !was_active) {
		return THRONG_OK; // nothing to tell the world
	}
	scene->threat_active = active;
	scene->threat_position = p;
	scene->threat_velocity = active ? line->velocity : (throng_vec2){0.0f, 0.0f};
	return throng_world_set_threat(scene->world, p, scene->threat_velocity, active);
}

throng_status throng_scene_create(const char* name, const throng_scene_options* options, throng_scene** out)
{
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_create: out is NULL");
	}
	*out = NULL;
	if (name == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_create: name is NULL");
	}
	const thr_scenario* sc = scenario_lookup(name);
	if (sc == NULL) {
		char names[256];
		known_names(names, sizeof names);
		return thr_fail(THRONG_ERR_NOT_FOUND, "unknown scenario \"%.64s\"; known scenarios: %s", name, names);
	}
	throng_scene_options opt = options != NULL ? *options : throng_scene_default_options();
	uint32_t agents = opt.agents != 0 ? opt.agents : sc->info.default_agents;
	if (agents == 0 || agents > sc->max_agents) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: agents must be from 1 to %u, got %u",
		                sc->info.name, sc->max_agents, agents);
	}
	if (opt.engine != THRONG_ENGINE_SCALAR && opt.engine != THRONG_ENGINE_SIMD) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: engine %d is not an engine",
		                sc->info.name, (int)opt.engine);
	}
	throng_scene* scene = calloc(1, sizeof *scene);
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: cannot allocate the scene", sc->info.name);
	}
	scene->scenario = sc;
	scene->agents = agents;
	throng_status st = sc->build(scene, &opt);
	if (st == THRONG_OK && scene->world == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: build made no world", sc->info.name);
	}
	if (st == THRONG_OK) {
		scene->dt = (double)throng_world_get_def(scene->world).dt;
		// Place the threat where the script has it before the first step,
		// so that a viewer sees it from step 0.
		scene->threat_position = scene->threat_line.start;
		st = threat_line_update(scene);
	}
	if (st != THRONG_OK) {
		throng_scene_destroy(scene);
		return st;
	}
	*out = scene;
	return THRONG_OK;
}

void throng_scene_destroy(throng_scene* scene)
{
	if (scene == NULL) {
		return;
	}
	if (scene->free_user != NULL) {
		scene->free_user(scene->user);
	}
	throng_world_destroy(scene->world);
	free(scene);
}

throng_status throng_scene_step(throng_scene* scene)
{
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_step: scene is NULL");
	}
	throng_status st = threat_line_update(scene);
	if (st == THRONG_OK && scene->scenario->script != NULL) {
		st = scene->scenario->script(scene);
	}
	if (st == THRONG_OK) {
		st = throng_world_step(scene->world);
	}
	if (st == THRONG_OK) {
		scene->steps++;
	}
	return st;
}

throng_world* throng_scene_world(throng_scene* scene)
{
	return scene != NULL ? scene->world : NULL;
}

const throng_scenario_info* throng_scene_info(const throng_scene* scene)
{
	return scene != NULL ? &scene->scenario->info : NULL;
}

float throng_scene_goal_radius(const throng_scene* scene)
{
	return scene != NULL ? scene->goal_radius : 0.0f;
}

uint32_t throng_scene_outcomes(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap)
{
	if (scene == NULL || scene->scenario->outcome == NULL || (out == NULL && cap > 0)) {
		return 0;
	}
	return scene->scenario->outcome(scene, out, cap);
}

bool throng_scene_threat(const throng_scene* scene, throng_vec2* position)
{
	if (scene == NULL) {
		return false;
	}
	if (position != NULL) {
		*position = scene->threat_position;
	}
	return scene->threat_active;
}
