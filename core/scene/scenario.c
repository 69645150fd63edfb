// SPDX-License-Identifier: MIT
// The scene object: its options, the calls by which its definition is
// stated, the spawn of agents into its world, its accessors, its end, and
// its hand-over to a part world (include/throng/scene_part.h).
//
// A scene owns its world, its definition (the model a built-in states once
// through the thr_scene_* calls here, or a file is read into) and its
// measure's state, each typed (scenario_internal.h). The one builder
// (scenario_file_build.c) makes the world from the definition and runs
// its script before each step, evaluated from the step counter, so a
// scene is a pure function of its options and the number of steps taken;
// it sits above this file, as do the built-ins' table and creation
// (scenarios_builtin.c) and the files' (scenario_file.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"

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

throng_scene* thr_scene_new(const thr_scenario* scenario)
{
	throng_scene* scene = calloc(1, sizeof *scene);
	sf_model* m = calloc(1, sizeof *m);
	if (scene == NULL || m == NULL) {
		free(scene);
		free(m);
		return NULL;
	}
	sf_model_defaults(m, scenario->info.name);
	scene->scenario = scenario;
	scene->def.model = m;
	return scene;
}

throng_status thr_scene_create_world(throng_scene* scene, const throng_scene_def* options, uint32_t capacity,
                                     throng_vec2 min, throng_vec2 max, throng_bounds_mode mode)
{
	sf_model* m = scene->def.model;
	throng_world_def def = thr_scene_world_def(options, capacity);
	m->bounds_min = min;
	m->bounds_max = max;
	m->bounds_mode = mode;
	m->dt = def.dt;
	m->seed = def.seed;
	m->cell_size = def.cell_size;
	return THRONG_OK;
}

/// Grows *items (of `size` bytes each) to hold count + 1 and returns item
/// `count`, zeroed; NULL when out of memory.
static void* grow(void** items, uint32_t count, size_t size)
{
	if ((count & (count - 1u)) == 0) { // full at 0, 1, 2, 4, 8, ...: double
		size_t cap = count == 0 ? 1u : 2u * (size_t)count;
		void* p = realloc(*items, cap * size);
		if (p == NULL) {
			return NULL;
		}
		*items = p;
	}
	return memset((char*)*items + (size_t)count * size, 0, size);
}

/// A malloc'd copy of points[0..count) (room for one at least); NULL when out of memory.
static throng_vec2* copy_points(const throng_vec2* points, uint32_t count)
{
	throng_vec2* p = malloc((size_t)(count > 0 ? count : 1u) * sizeof *p);
	if (p != NULL) {
		memcpy(p, points, (size_t)count * sizeof *p);
	}
	return p;
}

throng_status thr_scene_add_archetype(throng_scene* scene, const char* name, const throng_controller* controller,
                                      uint32_t* id)
{
	sf_model* m = scene->def.model;
	sf_archetype* a = grow((void**)&m->archetypes, m->archetype_count, sizeof *a);
	if (a == NULL || (a->name = sf_copy(name)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for an archetype");
	}
	a->controller = *controller;
	// A target rule other than the default one is stated by group label.
	throng_target_rule none = throng_controller_default_def(controller->mode).target_rule;
	a->target_label = memcmp(&none, &controller->target_rule, sizeof none) != 0;
	*id = m->archetype_count++;
	return THRONG_OK;
}

throng_status thr_scene_add_obstacle(throng_scene* scene, throng_vec2 center, float radius)
{
	sf_model* m = scene->def.model;
	sf_obstacle* ob = grow((void**)&m->obstacles, m->obstacle_count, sizeof *ob);
	if (ob == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for an obstacle");
	}
	*ob = (sf_obstacle){center, radius};
	m->obstacle_count++;
	return THRONG_OK;
}

throng_status thr_scene_add_zone(throng_scene* scene, const throng_zone_def* def)
{
	sf_model* m = scene->def.model;
	sf_zone* z = grow((void**)&m->zones, m->zone_count, sizeof *z);
	if (z == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a zone");
	}
	memset(z, 0, sizeof *z);
	z->def = *def;
	z->def.points = NULL;
	if (def->shape == THRONG_ZONE_POLYGON) {
		if ((z->points = copy_points(def->points, def->point_count)) == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a zone");
		}
		z->point_count = def->point_count;
	}
	z->def.point_count = 0;
	m->zone_count++;
	m->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_add_source(throng_scene* scene, const throng_source_def* def)
{
	sf_model* m = scene->def.model;
	sf_source* s = grow((void**)&m->sources, m->source_count, sizeof *s);
	if (s == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a source");
	}
	memset(s, 0, sizeof *s);
	s->def = *def; // a built-in's archetype ids are its model indices
	// A file says a velocity as heading * speed: a built-in's velocity is
	// along its heading (the saved file would turn it otherwise).
	s->speed = sqrtf(def->agent.velocity.x * def->agent.velocity.x + def->agent.velocity.y * def->agent.velocity.y);
	m->source_count++;
	m->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_add_wall(throng_scene* scene, throng_vec2 a, throng_vec2 b)
{
	sf_model* m = scene->def.model;
	sf_wall* w = grow((void**)&m->walls, m->wall_count, sizeof *w);
	const throng_vec2 ends[2] = {a, b};
	if (w == NULL || (w->points = copy_points(ends, 2)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a wall");
	}
	w->count = 2;
	w->segment = true;
	m->wall_count++;
	return THRONG_OK;
}

throng_status thr_scene_add_path(throng_scene* scene, const throng_vec2* points, uint32_t count, bool loop)
{
	sf_model* m = scene->def.model;
	sf_path* p = grow((void**)&m->paths, m->path_count, sizeof *p);
	if (p == NULL || (p->points = copy_points(points, count)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario: out of memory for a path");
	}
	p->count = count;
	p->loop = loop;
	m->path_count++;
	m->version = 2;
	return THRONG_OK;
}

uint32_t thr_scene_path_count(const throng_scene* scene)
{
	return scene->def.model->path_count;
}

throng_status thr_scene_threat_line(throng_scene* scene, const thr_threat_line* line)
{
	sf_model* m = scene->def.model;
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
	scene->def.model->threat.kind = SF_THREAT_EXTERNAL;
	scene->def.model->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_random_goals(throng_scene* scene, throng_vec2 lo, throng_vec2 hi)
{
	sf_model* m = scene->def.model;
	m->rows_random = true;
	m->rows_goal_min = lo;
	m->rows_goal_max = hi;
	return THRONG_OK;
}

throng_status thr_scene_add_group(throng_scene* scene, const char* name, uint32_t archetype, uint32_t count,
                                  sf_group** out)
{
	sf_model* m = scene->def.model;
	*out = NULL;
	if (m->group_count == SF_MAX_GROUPS) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: group %s is past the %u a scene holds",
		                scene->scenario->info.name, name, SF_MAX_GROUPS);
	}
	sf_group* g = grow((void**)&m->groups, m->group_count, sizeof *g);
	if (g == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for group %s",
		                scene->scenario->info.name, name);
	}
	sf_group_table.defaults(g);
	g->name = sf_copy(name);
	g->archetype_name = sf_copy(m->archetypes[archetype].name);
	m->group_count++; // freed with the model from here on, whatever happens
	if (g->name == NULL || g->archetype_name == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for group %s",
		                scene->scenario->info.name, name);
	}
	g->archetype = archetype;
	g->count = count;
	m->version = 2;
	*out = g;
	return THRONG_OK;
}

throng_status thr_scene_add_block(throng_scene* scene, uint32_t count, thr_block_maker make, const void* params,
                                  size_t size, throng_vec2* points)
{
	sf_block* b = &scene->def.model->block;
	if (b->count != 0 || b->params != NULL) {
		free(points);
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: its agents are stated twice",
		                scene->scenario->info.name);
	}
	b->points = points; // the block's from here on, whatever happens
	b->params = malloc(size > 0 ? size : 1u);
	if (b->params == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for its agents",
		                scene->scenario->info.name);
	}
	memcpy(b->params, params, size);
	b->params_size = size;
	b->make = make;
	b->count = count;
	scene->def.model->version = 2;
	return THRONG_OK;
}

throng_status thr_scene_spawn_batched(throng_scene* scene, uint32_t count, thr_agent_maker make, const void* user)
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

void throng_scene_destroy(throng_scene* scene)
{
	if (scene == NULL) {
		return;
	}
	thr_definition* d = &scene->def;
	if (d->model != NULL) {
		sf_model_free(d->model);
		free(d->model);
	}
	free(d->archetype_id);
	free(d->first_id);
	free(d->path_id);
	free(d->unit_id);
	free(d->goal);
	free(d->reached);
	free(d->threat_cum);
	free(scene->measure_state.born);
	free(scene->measure_state.free_time);
	free(scene->file_entry);
	throng_world_destroy(scene->world);
	free(scene);
}

throng_world* throng_scene_swap_world(throng_scene* scene, throng_world* world)
{
	if (scene == NULL) {
		return NULL;
	}
	throng_world* had = scene->world;
	scene->world = world;
	return had;
}

throng_world* throng_scene_use_part(throng_scene* scene, throng_world* part)
{
	// A measure reads every agent: its driver samples the whole world
	// (throng_scene_sample_with) and makes it whole again for the outcome.
	if (scene == NULL || part == NULL || throng_world_view(part).step != throng_world_view(scene->world).step) {
		return NULL;
	}
	return throng_scene_swap_world(scene, part);
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
	scene->measure->sample(scene, &scene->measure_state);
	throng_scene_swap_world(scene, had);
}

bool throng_scene_reads_events(const throng_scene* scene)
{
	return scene != NULL && scene->measure != NULL && scene->measure->after != NULL;
}

void throng_scene_after_with(throng_scene* scene, throng_world* whole)
{
	if (!throng_scene_reads_events(scene)) {
		return;
	}
	throng_world* had = throng_scene_swap_world(scene, whole);
	scene->measure->after(scene, &scene->measure_state);
	throng_scene_swap_world(scene, had);
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
