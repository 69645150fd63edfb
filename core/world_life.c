// SPDX-License-Identifier: MIT
// A world's making and unmaking: throng_world_create and
// throng_world_destroy, and a part world's making (throng_part_create).
//
// This file stands above everything a world holds. The world's own files
// (world.c, world_shapes.c) keep its tables and answer for them, and never
// call up into the agent store, the engines, the contact stage or a part
// world's data, which each allocate and free their own; here a world is
// put together from them and taken apart again.
#include <stdlib.h>

#include "contact.h"
#include "engine.h"
#include "error.h"
#include "events.h"
#include "part.h"
#include "query.h"
#include "rng.h"
#include "sources.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

void throng_world_destroy(throng_world* w)
{
	if (w == NULL) {
		return;
	}
	thr_store_free(w);
	free(w->paths); free(w->waypoints);
	thr_engines_release(w);
	free(w->arch);
	free(w->archetypes);
	free(w->obstacles);
	free(w->walls);
	thr_grid_free(&w->agent_grid);
	thr_box_grid_free(&w->obstacle_grid);
	thr_box_grid_free(&w->wall_grid);
	free(w->shape_clear);
	free(w->cell_groups);
	thr_contact_free(w->contact);
	thr_part_free(w);
	thr_events_free(w);
	thr_sources_free(w);
	free(w->scratch_idx);
	free(w->scratch_nb);
	thr_query_index_free(w->query);
	free(w);
}

throng_status throng_world_create(const throng_world_def* def, throng_world** out)
{
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_create: out is NULL");
	}
	*out = NULL;
	throng_status st = thr_validate_def(def);
	if (st != THRONG_OK) {
		return st;
	}
	throng_world* w = calloc(1, sizeof *w);
	if (w == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_create: out of memory");
	}
	w->def = *def;
	w->capacity = (def->capacity + THR_LANES - 1u) / THR_LANES * THR_LANES;
	w->rng_key = thr_rng_key(def->seed);
	w->shapes_dirty = 1;
	w->query = thr_query_index_create();
	int fail = w->query == NULL || thr_store_create(w) != 0;
	if (fail) {
		throng_world_destroy(w);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_create: out of memory for %u agents",
		                def->capacity);
	}
	*out = w;
	return THRONG_OK;
}

throng_status throng_part_create(const throng_world* whole, uint32_t threads, uint32_t capacity, throng_world** out)
{
	if (whole == NULL || out == NULL || whole->part != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_create: needs a whole world and out");
	}
	*out = NULL;
	throng_world_def def = whole->def;
	def.threads = threads;
	def.capacity = capacity;
	throng_world* p = NULL;
	throng_status st = throng_world_create(&def, &p);
	for (uint32_t a = 0; st == THRONG_OK && a < whole->archetype_count; ++a) {
		st = throng_world_add_archetype(p, &whole->archetypes[a], NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < whole->obstacle_count; ++k) {
		st = throng_world_add_obstacle(p, whole->obstacles[k].c, whole->obstacles[k].r, NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < whole->wall_count; ++k) {
		st = throng_world_add_wall(p, whole->walls[k].a, whole->walls[k].b, NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < whole->path_count; ++k) {
		const thr_path* path = &whole->paths[k];
		st = throng_world_add_path(p, whole->waypoints + path->first, path->count, path->loop, NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < whole->unit_count; ++k) {
		uint32_t id = 0; // (throng_part_load refuses a world with units: they are copied to say so)
		st = throng_world_add_unit(p, &whole->units[k].def, &id);
	}
	if (st == THRONG_OK) {
		st = throng_world_set_threat(p, whole->threat_p, whole->threat_v, whole->threat_active);
	}
	float fastest = 0.0f;
	for (uint32_t i = 0; i < whole->count; ++i) {
		fastest = whole->max_speed[i] > fastest ? whole->max_speed[i] : fastest;
	}
	const thr_part_def pd = {thr_id_end(whole), whole->def.capacity, whole->max_radius, fastest, whole->count};
	if (st == THRONG_OK) {
		st = thr_part_make(p, &pd);
	}
	if (st == THRONG_OK) {
		st = thr_part_adopt(p, whole); // its zones, sources and arrival radius
	}
	if (st == THRONG_OK) {
		p->step = whole->step; // a restored world's parts go on from its step
	}
	if (st != THRONG_OK) {
		throng_world_destroy(p);
		return st;
	}
	*out = p;
	return THRONG_OK;
}
