// SPDX-License-Identifier: MIT
// Scenario files, version 2: explicit paths and agents (private).
//
// The spawn shapes of `groups` describe a crowd by a rule; the built-in
// scenes place their agents by rules of their own (block lattices, goal
// lattices, formations) that no shape states. `agents.rows` lists such
// agents one by one, every field exact (floats as the fewest digits that
// read back to the same bits), so that `throng save NAME` writes a file
// that builds the built-in's world bit for bit. `paths` lists world paths
// the rows refer to by index.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "vec.h"

const char* const sf_row_columns[SF_ROW_COLUMNS] = {
	"x", "y", "vx", "vy", "hx", "hy", "tx", "ty", "max_speed", "max_force", "radius", "archetype", "group", "path",
};

void sf_parse_paths(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_sequence(c, n, "a list of paths")) {
		return;
	}
	if (n->count > SF_MAX_SEGMENTS) {
		sf_error(c, n->pos, "got %u paths (expected at most %u)", n->count, SF_MAX_SEGMENTS);
		return;
	}
	m->paths = calloc(n->count != 0 ? n->count : 1, sizeof *m->paths);
	if (m->paths == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer paths)");
		return;
	}
	for (uint32_t k = 0; k < n->count; ++k) {
		size_t mark = sf_push_index(c, k);
		sf_path* p = &m->paths[m->path_count++];
		sf_parse_path(c, n->items[k], p);
		const sf_node* eg = n->items[k]->kind == SF_MAPPING ? sf_get(n->items[k], "end_at_goal") : NULL;
		if (p->end_at_goal && eg != NULL) {
			size_t mk = sf_push_key(c, "end_at_goal");
			sf_error(c, eg->pos, "true on a path of the paths list, which belongs to no group (expected false)");
			sf_pop(c, mk);
		}
		sf_pop(c, mark);
	}
}

/// Reads column `col` of a row into *v under the path ".col".
static bool row_number(sf_ctx* c, const sf_node* row, uint32_t col, sf_range range, float* v)
{
	size_t mark = sf_push_key(c, sf_row_columns[col]);
	bool ok = sf_read_number(c, row->items[col], range, v);
	sf_pop(c, mark);
	return ok;
}

static void parse_row(sf_ctx* c, const sf_node* row, sf_model* m, throng_agent_def* def)
{
	*def = throng_agent_default_def();
	if (!sf_expect_sequence(c, row, "a row [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, "
	                                "archetype, group, path]")) {
		return;
	}
	if (row->count != SF_ROW_COLUMNS) {
		sf_error(c, row->pos,
		         "got %u values (expected %u: x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, "
		         "archetype, group, path)",
		         row->count, SF_ROW_COLUMNS);
		return;
	}
	float* f[8] = {&def->position.x, &def->position.y, &def->velocity.x, &def->velocity.y,
	               &def->heading.x,  &def->heading.y,  &def->target.x,   &def->target.y};
	for (uint32_t k = 0; k < 8; ++k) {
		row_number(c, row, k, SF_COORD, f[k]);
	}
	row_number(c, row, 8, SF_POSITIVE, &def->max_speed);
	row_number(c, row, 9, SF_POSITIVE, &def->max_force);
	row_number(c, row, 10, SF_POSITIVE, &def->radius);
	size_t mark = sf_push_key(c, "archetype");
	const sf_node* an = row->items[11];
	if (sf_check_name(c, an, "an archetype")) {
		uint32_t found = UINT32_MAX;
		for (uint32_t k = 0; k < m->archetype_count && found == UINT32_MAX; ++k) {
			if (m->archetypes[k].name != NULL && strcmp(m->archetypes[k].name, an->text) == 0) {
				found = k;
			}
		}
		if (found == UINT32_MAX) {
			sf_error(c, an->pos, "unknown archetype \"%s\" (expected an archetype defined under archetypes)",
			         an->text);
		} else {
			def->archetype = found;
		}
	}
	sf_pop(c, mark);
	mark = sf_push_key(c, "group");
	uint64_t group = 0;
	if (sf_read_uint(c, row->items[12], 0, UINT32_MAX - 1u, false, &group)) {
		def->group = (uint32_t)group;
	}
	sf_pop(c, mark);
	mark = sf_push_key(c, "path");
	const sf_node* pn = row->items[13];
	def->path = THRONG_NO_PATH;
	if (!sf_is_null(pn)) {
		uint64_t path = 0;
		if (m->path_count == 0) {
			sf_error(c, pn->pos, "a path index without a paths list (expected null)");
		} else if (sf_read_uint(c, pn, 0, m->path_count - 1u, false, &path)) {
			def->path = (uint32_t)path;
		}
	}
	sf_pop(c, mark);
}

static void parse_rows_goal(sf_ctx* c, const sf_node* g, sf_model* m)
{
	if (!sf_expect_mapping(c, g, "{random: {min: [x, y], max: [x, y]}}")) {
		return;
	}
	static const char* const keys[] = {"random"};
	sf_check_keys(c, g, keys, 1);
	const sf_node* r = sf_get(g, "random");
	if (r == NULL) {
		sf_missing(c, g, "random", "{min: [x, y], max: [x, y]}");
		return;
	}
	size_t mark = sf_push_key(c, "random");
	if (sf_expect_mapping(c, r, "{min: [x, y], max: [x, y]}")) {
		static const char* const box[] = {"min", "max"};
		sf_check_keys(c, r, box, 2);
		if (sf_get(r, "min") == NULL) {
			sf_missing(c, r, "min", "a point [x, y]");
		} else if (sf_get(r, "max") == NULL) {
			sf_missing(c, r, "max", "a point [x, y]");
		} else if (sf_field_vec2(c, r, "min", SF_COORD, &m->rows_goal_min) > 0 &&
		           sf_field_vec2(c, r, "max", SF_COORD, &m->rows_goal_max) > 0) {
			m->rows_random = true;
			if (m->rows_goal_max.x < m->rows_goal_min.x || m->rows_goal_max.y < m->rows_goal_min.y) {
				size_t mk = sf_push_key(c, "max");
				sf_error(c, sf_get(r, "max")->pos, "below min on an axis (expected max >= min on both axes)");
				sf_pop(c, mk);
			}
		}
	}
	sf_pop(c, mark);
}

void sf_parse_agents(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_mapping(c, n, "a mapping with rows (and goal)")) {
		return;
	}
	static const char* const keys[] = {"goal", "rows"};
	sf_check_keys(c, n, keys, 2);
	m->rows_pos = n->pos;
	const sf_node* g = sf_get(n, "goal");
	if (g != NULL) {
		size_t mark = sf_push_key(c, "goal");
		parse_rows_goal(c, g, m);
		sf_pop(c, mark);
	}
	const sf_node* rows = sf_get(n, "rows");
	if (rows == NULL) {
		sf_missing(c, n, "rows", "a list of rows [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, "
		                         "archetype, group, path]");
		return;
	}
	size_t mark = sf_push_key(c, "rows");
	if (sf_expect_sequence(c, rows, "a list of rows")) {
		if (rows->count == 0 || rows->count > THR_SCENE_MAX_AGENTS) {
			sf_error(c, rows->pos, "got %u rows (expected 1 to %u)", rows->count, THR_SCENE_MAX_AGENTS);
		} else {
			m->rows = calloc(rows->count, sizeof *m->rows);
			m->row_pos = calloc(rows->count, sizeof *m->row_pos);
			if (m->rows == NULL || m->row_pos == NULL) {
				free(m->rows);
				m->rows = NULL;
				sf_error(c, rows->pos, "out of memory (expected fewer rows)");
			}
			for (uint32_t k = 0; m->rows != NULL && k < rows->count; ++k) {
				size_t mk = sf_push_index(c, k);
				m->row_pos[k] = rows->items[k]->pos;
				parse_row(c, rows->items[k], m, &m->rows[m->row_count++]);
				sf_pop(c, mk);
			}
		}
	}
	sf_pop(c, mark);
}

typedef struct row_job {
	const throng_agent_def* rows;
	const uint32_t* archetype_id; ///< world archetype id of each model archetype
} row_job;

/// Row i of agents.rows; world path k is paths[k] (added first).
static void make_row(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user)
{
	(void)scene;
	const row_job* j = user;
	*def = j->rows[i];
	def->archetype = j->archetype_id[def->archetype];
}

throng_status sf_spawn_rows(throng_scene* scene, const sf_model* m, const uint32_t* archetype_id)
{
	row_job job = {m->rows, archetype_id};
	return thr_scene_spawn_batched(scene, m->row_count, make_row, &job);
}

void sf_check_rows(sf_ctx* c, const sf_model* m)
{
	size_t mark = sf_push_key(c, "agents");
	sf_push_key(c, "rows");
	for (uint32_t k = 0; k < m->row_count && m->row_pos != NULL; ++k) {
		const throng_agent_def* d = &m->rows[k];
		size_t mk = sf_push_index(c, k);
		// The rules of core/validate.c, computed as it computes them.
		float speed = v2_length(d->velocity);
		float hl = v2_length(d->heading);
		if (speed > d->max_speed) {
			sf_error(c, m->row_pos[k], "velocity: its length %g exceeds max_speed %g (expected at most max_speed)",
			         (double)speed, (double)d->max_speed);
		}
		if (hl != 0.0f && fabsf(hl - 1.0f) > 1.0e-3f) {
			sf_error(c, m->row_pos[k], "heading: its length is %g (expected [0, 0] or a unit vector)", (double)hl);
		}
		if (m->bounds_mode != THRONG_BOUNDS_OPEN &&
		    (d->position.x < m->bounds_min.x || d->position.x > m->bounds_max.x ||
		     d->position.y < m->bounds_min.y || d->position.y > m->bounds_max.y)) {
			sf_error(c, m->row_pos[k],
			         "position: (%g, %g) is outside the world (%g, %g)..(%g, %g) (expected inside, bounds mode %s)",
			         (double)d->position.x, (double)d->position.y, (double)m->bounds_min.x,
			         (double)m->bounds_min.y, (double)m->bounds_max.x, (double)m->bounds_max.y,
			         throng_bounds_mode_name(m->bounds_mode));
		}
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}
