// SPDX-License-Identifier: MIT
// Scenario files: the model a file is read into (scenario_file_internal.h),
// its defaults and its names. Below the reader and the builder alike: it
// calls neither.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"

const char* const sf_shape_names[SF_SHAPE_COUNT] = {"ring", "disc", "rectangle", "grid", "line"};
const char* const sf_heading_names[5] = {"none", "random", "inward", "outward", "goal"};

void sf_model_defaults(sf_model* m, const char* file)
{
	memset(m, 0, sizeof *m);
	// The name defaults to the file's base name without its extension.
	const char* base = file != NULL ? file : "scene";
	const char* slash = strrchr(base, '/');
	base = slash != NULL ? slash + 1 : base;
	size_t len = strlen(base);
	const char* dot = strrchr(base, '.');
	if (dot != NULL && dot != base) {
		len = (size_t)(dot - base);
	}
	len = len > SF_NAME_MAX ? SF_NAME_MAX : len;
	m->name = malloc(len > 0 ? len + 1 : sizeof "scene");
	if (m->name != NULL && len == 0) {
		memcpy(m->name, "scene", sizeof "scene");
	} else if (m->name != NULL) {
		// A valid name (as the `name` key takes), so that a saved scene
		// loads again: other characters become '_'.
		for (size_t k = 0; k < len; ++k) {
			char ch = base[k];
			bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
			          ch == '-';
			m->name[k] = ok ? ch : '_';
		}
		m->name[len] = '\0';
	}
	m->description = calloc(1, 1);
	m->version = 1;
	m->steps = 600;
	m->goal_radius = -1.0f; // resolved by the reader's checks across sections
	throng_world_def def = throng_world_default_def();
	m->bounds_min = def.bounds_min;
	m->bounds_max = def.bounds_max;
	m->bounds_mode = def.bounds_mode;
	m->dt = 1.0f / 60.0f;
	m->seed = 1;
	m->cell_size = 0.0f;
}

uint32_t sf_model_capacity(const sf_model* m)
{
	double n = (double)m->agents;
	for (uint32_t k = 0; k < m->source_count; ++k) {
		const throng_source_def* s = &m->sources[k].def;
		n += s->count > 0 ? (double)s->count : ceil((double)s->rate * 60.0);
	}
	return n < 1.0 ? 1u : n > (double)THR_SCENE_MAX_AGENTS ? THR_SCENE_MAX_AGENTS : (uint32_t)n;
}

void sf_model_world_def(const sf_model* m, throng_world_def* def)
{
	def->bounds_min = m->bounds_min;
	def->bounds_max = m->bounds_max;
	def->bounds_mode = m->bounds_mode;
	def->dt = m->dt;
	def->seed = m->seed;
	def->cell_size = m->cell_size;
}

void sf_model_free(sf_model* m)
{
	if (m == NULL) {
		return;
	}
	free(m->name);
	free(m->description);
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		free(m->archetypes[k].name);
		free(m->archetypes[k].target_group);
	}
	free(m->archetypes);
	for (uint32_t k = 0; k < m->group_count; ++k) {
		free(m->groups[k].name);
		free(m->groups[k].archetype_name);
		free(m->groups[k].path.points);
		free(m->groups[k].rout_name);
		free(m->groups[k].march_name);
		free(m->groups[k].orders);
	}
	free(m->groups);
	free(m->obstacles);
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		free(m->walls[k].points);
	}
	free(m->walls);
	free(m->threat.path.points);
	for (uint32_t k = 0; k < m->path_count; ++k) {
		free(m->paths[k].points);
	}
	free(m->paths);
	for (uint32_t k = 0; k < m->measure_line_count; ++k) {
		free(m->measure_lines[k].points);
	}
	free(m->measure_lines);
	for (uint32_t k = 0; k < m->measure_area_count; ++k) {
		free(m->measure_areas[k].points);
	}
	free(m->measure_areas);
	for (uint32_t k = 0; k < m->zone_count; ++k) {
		free(m->zones[k].points);
	}
	free(m->zones);
	for (uint32_t k = 0; k < m->source_count; ++k) {
		free(m->sources[k].archetype_name);
	}
	free(m->sources);
	free(m->rows);
	free(m->row_pos);
	free(m->block.params);
	free(m->block.points);
	memset(m, 0, sizeof *m);
}

void sf_model_row(const sf_model* m, uint32_t k, throng_agent_def* def)
{
	if (k < m->row_count) {
		*def = m->rows[k];
	} else {
		m->block.make(m->block.params, m->block.points, k - m->row_count, def);
	}
}

/// The box a group's spawn shape covers.
void sf_spawn_extent(const sf_group* g, throng_vec2* lo, throng_vec2* hi)
{
	const sf_spawn* s = &g->spawn;
	throng_vec2 h = {0.0f, 0.0f};
	switch (s->shape) {
	case SF_SHAPE_RING:
	case SF_SHAPE_DISC: h = (throng_vec2){s->radius, s->radius}; break;
	case SF_SHAPE_RECTANGLE: h = (throng_vec2){0.5f * s->size.x, 0.5f * s->size.y}; break;
	case SF_SHAPE_GRID: {
		uint32_t rows = (g->count + s->columns - 1u) / s->columns;
		uint32_t cols = g->count < s->columns ? g->count : s->columns;
		h = (throng_vec2){0.5f * (float)(cols - 1u) * s->spacing.x + s->jitter,
		                  0.5f * (float)(rows - 1u) * s->spacing.y + s->jitter};
		break;
	}
	case SF_SHAPE_LINE:
		*lo = (throng_vec2){fminf(s->from.x, s->to.x), fminf(s->from.y, s->to.y)};
		*hi = (throng_vec2){fmaxf(s->from.x, s->to.x), fmaxf(s->from.y, s->to.y)};
		return;
	case SF_SHAPE_COUNT: break;
	}
	*lo = (throng_vec2){s->center.x - h.x, s->center.y - h.y};
	*hi = (throng_vec2){s->center.x + h.x, s->center.y + h.y};
}
