// SPDX-License-Identifier: MIT
// The scene: a world built by a named scenario plus the script that drives it.
//
// This file is the generic half of the scenario library (lookup, options,
// create/destroy, step, and the calls by which a built-in states its scene
// as a definition); the scenarios themselves live in scenarios_builtin.c
// and scenario_<name>.c. A built-in's build function fills a definition
// (sf_model, the form a scenario file is read into); sf_build_into, the
// one builder, makes the world from it, and the definition's script
// (threat, random goals) runs before each step, evaluated from the step
// counter, so a scene is a pure function of its options and the number of
// steps taken. What a built-in needs beyond that data hangs off its table
// entry: its build function (how it scales with the agent count) and its
// outcome measure (scenario_measure.c), which its definition names.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "world_internal.h"

/// Spawn batch size: 4096 defs (~240 KiB) at a time.
#define THR_SPAWN_BATCH 4096u

throng_scene_def throng_scene_default_def(void)
{
	throng_scene_def o;
	memset(&o, 0, sizeof o);
	o.agents = 0;
	o.seed = 1;
	o.engine = THRONG_ENGINE_SIMD;
	o.threads = 0;
	o.threads_policy = THRONG_THREADS_ADAPT;
	o.record_forces = false;
	return o;
}

throng_world_def thr_scene_world_def(const throng_scene_def* o, uint32_t capacity)
{
	throng_world_def def = throng_world_default_def();
	def.dt = 1.0f / 60.0f;
	def.seed = o->seed;
	def.capacity = capacity;
	def.engine = o->engine;
	def.threads = o->threads;
	def.threads_policy = o->threads_policy;
	def.record_forces = o->record_forces;
	return def;
}

throng_status thr_scene_create_world(throng_scene* scene, const throng_scene_def* options, uint32_t capacity,
                                     throng_vec2 min, throng_vec2 max, throng_bounds_mode mode)
{
	sf_model* m = scene->stating;
	throng_world_def def = thr_scene_world_def(options, capacity);
	m->bounds_min = min;
	m->bounds_max = max;
	m->bounds_mode = mode;
	m->dt = def.dt;
	m->seed = def.seed;
	m->cell_size = def.cell_size;
	return THRONG_OK;
}

/// Grows *items (of `size` bytes each) to hold count + 1.
static throng_status grow(void** items, uint32_t count, size_t size, const char* what)
{
	if ((count & (count - 1u)) == 0) { // full at 0, 1, 2, 4, 8, ...: double
		size_t cap = count == 0 ? 1u : 2u * (size_t)count;
		void* p = realloc(*items, cap * size);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for %s", what);
		}
		*items = p;
	}
	return THRONG_OK;
}

throng_status thr_scene_add_archetype(throng_scene* scene, const char* name, const throng_controller* controller,
                                      uint32_t* id)
{
	sf_model* m = scene->stating;
	throng_status st = grow((void**)&m->archetypes, m->archetype_count, sizeof *m->archetypes, "an archetype");
	if (st != THRONG_OK) {
		return st;
	}
	sf_archetype* a = &m->archetypes[m->archetype_count];
	memset(a, 0, sizeof *a);
	a->name = malloc(strlen(name) + 1u);
	if (a->name == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for an archetype");
	}
	memcpy(a->name, name, strlen(name) + 1u);
	a->controller = *controller;
	// A target rule other than the default one is stated by group label.
	throng_target_rule none = throng_controller_default_def(controller->mode).target_rule;
	a->target_label = memcmp(&none, &controller->target_rule, sizeof none) != 0;
	*id = m->archetype_count++;
	return THRONG_OK;
}

throng_status thr_scene_add_obstacle(throng_scene* scene, throng_vec2 center, float radius)
{
	sf_model* m = scene->stating;
	throng_status st = grow((void**)&m->obstacles, m->obstacle_count, sizeof *m->obstacles, "an obstacle");
	if (st == THRONG_OK) {
		m->obstacles[m->obstacle_count++] = (sf_obstacle){center, radius};
	}
	return st;
}

throng_status thr_scene_add_wall(throng_scene* scene, throng_vec2 a, throng_vec2 b)
{
	sf_model* m = scene->stating;
	throng_status st = grow((void**)&m->walls, m->wall_count, sizeof *m->walls, "a wall");
	if (st != THRONG_OK) {
		return st;
	}
	sf_wall* w = &m->walls[m->wall_count];
	memset(w, 0, sizeof *w);
	w->points = malloc(2u * sizeof *w->points);
	if (w->points == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a wall");
	}
	w->points[0] = a;
	w->points[1] = b;
	w->count = 2;
	w->segment = true;
	m->wall_count++;
	return THRONG_OK;
}

throng_status thr_scene_add_path(throng_scene* scene, const throng_vec2* points, uint32_t count, bool loop)
{
	sf_model* m = scene->stating;
	throng_status st = grow((void**)&m->paths, m->path_count, sizeof *m->paths, "a path");
	if (st != THRONG_OK) {
		return st;
	}
	sf_path* p = &m->paths[m->path_count];
	memset(p, 0, sizeof *p);
	p->points = malloc((size_t)(count > 0 ? count : 1u) * sizeof *p->points);
	if (p->points == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a path");
	}
	memcpy(p->points, points, (size_t)count * sizeof *points);
	p->count = count;
	p->loop = loop;
	m->path_count++;
	m->version = 2;
	return THRONG_OK;
}

uint32_t thr_scene_path_count(const throng_scene* scene)
{
	return scene->stating->path_count;
}

throng_status thr_scene_threat_line(throng_scene* scene, const thr_threat_line* line)
{
	sf_model* m = scene->stating;
	if (!line->enabled) {
		m->threat.kind = SF_THREAT_NONE;
		return THRONG_OK;
	}
	if ((double)(float)line->t_start != line->t_start) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: the threat's start time %.17g is not a float",
		                scene->scenario->info.name, line->t_start);
	}
	m->threat.kind = SF_THREAT_LINE;
	m->threat.start = (float)line->t_start;
	m->threat.position = line->start;
	m->threat.velocity = line->velocity;
	m->threat.active_min = line->active_min;
	m->threat.active_max = line->active_max;
	m->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_threat_external(throng_scene* scene)
{
	scene->stating->threat.kind = SF_THREAT_EXTERNAL;
	scene->stating->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_random_goals(throng_scene* scene, throng_vec2 lo, throng_vec2 hi)
{
	sf_model* m = scene->stating;
	m->rows_random = true;
	m->rows_goal_min = lo;
	m->rows_goal_max = hi;
	return THRONG_OK;
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
	if (scene->stating != NULL) {
		// A built-in states its agents: rows of the definition.
		sf_model* m = scene->stating;
		if (count == 0) {
			return THRONG_OK;
		}
		throng_agent_def* rows = realloc(m->rows, ((size_t)m->row_count + count) * sizeof *rows);
		if (rows == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: cannot allocate %u agent defs",
			                scene->scenario->info.name, count);
		}
		m->rows = rows;
		for (uint32_t k = 0; k < count; ++k) {
			make(scene, k, &rows[m->row_count + k], user);
		}
		m->row_count += count;
		m->version = 2;
		return THRONG_OK;
	}
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

/// Runs scene->scenario's build into *m (a fresh model): the built-in
/// states its definition. scene->agents and scene->options are set.
static throng_status state_builtin(throng_scene* scene, sf_model* m)
{
	const thr_scenario* sc = scene->scenario;
	sf_model_defaults(m, sc->info.name);
	free(m->description);
	m->description = malloc(strlen(sc->info.description) + 1u);
	if (m->name == NULL || m->description == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory", sc->info.name);
	}
	memcpy(m->description, sc->info.description, strlen(sc->info.description) + 1u);
	m->steps = sc->info.default_steps;
	m->version = 2;
	m->measure = sc->measure;
	scene->stating = m;
	throng_status st = sc->build(scene, &scene->options);
	scene->stating = NULL;
	if (st == THRONG_OK && m->row_count != scene->agents) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: build stated %u agents, not %u", sc->info.name,
		              m->row_count, scene->agents);
	}
	m->goal_radius = scene->goal_radius;
	m->agents = m->row_count;
	return st;
}

throng_status throng_scene_create(const char* name, const throng_scene_def* options, throng_scene** out)
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
	throng_scene_def opt = options != NULL ? *options : throng_scene_default_def();
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
	sf_model* m = calloc(1, sizeof *m);
	if (scene == NULL || m == NULL) {
		free(scene);
		free(m);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: cannot allocate the scene", sc->info.name);
	}
	scene->scenario = sc;
	scene->agents = agents;
	scene->options = opt;
	// The built-in states its scene as a definition ...
	throng_status st = state_builtin(scene, m);
	if (st == THRONG_OK) {
		// ... and the one builder makes its world from it, as from a file.
		sf_ctx c;
		sf_ctx_init(&c, sc->info.name, NULL, NULL);
		st = sf_build_into(&c, scene, m, &opt, (sf_pos){0, 0});
		if (st != THRONG_OK && c.problems > 0) {
			sf_ctx_finish(&c);
			st = thr_fail(st, "scenario %s: %s", sc->info.name, c.first);
		} else {
			sf_ctx_finish(&c);
		}
	}
	sf_model_free(m);
	free(m);
	if (st != THRONG_OK) {
		throng_scene_destroy(scene);
		return st;
	}
	// The rows (one def per agent) are the world's now: drop them rather
	// than hold a second copy of every agent; saving states them again.
	sf_model* def = (sf_model*)sf_scene_model(scene);
	free(def->rows);
	def->rows = NULL;
	*out = scene;
	return THRONG_OK;
}

throng_status thr_scene_restate(const throng_scene* scene, sf_model* out)
{
	throng_scene* tmp = calloc(1, sizeof *tmp);
	if (tmp == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory");
	}
	tmp->scenario = scene->scenario;
	tmp->agents = scene->agents;
	tmp->options = scene->options;
	throng_status st = state_builtin(tmp, out);
	if (tmp->free_user != NULL) {
		tmp->free_user(tmp->user);
	}
	free(tmp);
	if (st != THRONG_OK) {
		sf_model_free(out);
	}
	return st;
}

void throng_scene_destroy(throng_scene* scene)
{
	if (scene == NULL) {
		return;
	}
	if (scene->free_user != NULL) {
		scene->free_user(scene->user);
	}
	if (scene->measure != NULL && scene->measure->free_data != NULL) {
		scene->measure->free_data(scene->measure_data);
	}
	if (scene->free_def != NULL) {
		scene->free_def(scene->def);
	}
	throng_world_destroy(scene->world);
	free(scene);
}

bool throng_scene_samples(const throng_scene* scene)
{
	return scene != NULL && scene->measure != NULL && scene->measure->sample != NULL;
}

void throng_scene_sample_with(throng_scene* scene, throng_world* whole)
{
	if (!throng_scene_samples(scene)) {
		return;
	}
	throng_world* had = throng_scene_swap_world(scene, whole);
	scene->measure->sample(scene, scene->measure_data);
	throng_scene_swap_world(scene, had);
}

throng_status throng_scene_step(throng_scene* scene)
{
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_step: scene is NULL");
	}
	throng_status st = scene->def != NULL ? thr_def_script(scene) : THRONG_OK;
	// A part world (core/part.h) holds some agents only: its driver samples
	// the whole world itself (throng_scene_sample_with).
	if (st == THRONG_OK && throng_scene_samples(scene) && scene->world->part == NULL) {
		scene->measure->sample(scene, scene->measure_data);
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
