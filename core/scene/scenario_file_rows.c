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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "validate.h"
#include "vec.h"

static void read_path(sf_ctx* c, const sf_node* key, const sf_node* n, void* item, uint32_t index)
{
	sf_path* p = item;
	(void)key;
	(void)index;
	sf_parse_path(c, n, p);
	const sf_node* eg = n->kind == SF_MAPPING ? sf_get(n, "end_at_goal") : NULL;
	if (p->end_at_goal && eg != NULL) {
		sf_error_at(c, "end_at_goal", eg->pos,
		            "true on a path of the paths list, which belongs to no group (expected false)");
	}
}

void sf_parse_paths(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->paths = sf_read_list(c, n, "a list of paths", "paths", SF_MAX_SEGMENTS, sizeof *m->paths, &m->path_count,
	                        read_path);
}

/// A row of agents.rows: its numbers by sf_row_table, then the archetype
/// by name and the path by index, which the model resolves.
static void parse_row(sf_ctx* c, const sf_node* row, sf_model* m, throng_agent_def* def)
{
	*def = throng_agent_default_def();
	def->path = THRONG_NO_PATH;
	if (sf_read_row(c, row, &sf_row_table, def) >> 63 != 0) {
		return;
	}
	size_t mark = sf_push_key(c, "archetype");
	const sf_node* an = row->items[11];
	if (sf_check_name(c, an, "an archetype")) {
		const char* names[SF_MAX_ARCHETYPES];
		for (uint32_t k = 0; k < m->archetype_count; ++k) {
			names[k] = m->archetypes[k].name != NULL ? m->archetypes[k].name : "?";
		}
		def->archetype = sf_resolve(c, an->pos, "archetype", "archetypes", an->text, names, m->archetype_count);
	}
	sf_pop(c, mark);
	mark = sf_push_key(c, "path");
	const sf_node* pn = row->items[13];
	uint64_t path = 0;
	if (!sf_is_null(pn) && m->path_count == 0) {
		sf_error(c, pn->pos, "a path index without a paths list (expected null)");
	} else if (!sf_is_null(pn) && sf_read_uint(c, pn, 0, m->path_count - 1u, false, &path)) {
		def->path = (uint32_t)path;
	}
	sf_pop(c, mark);
}

_Static_assert(offsetof(sf_model, rows_goal_max) == offsetof(sf_model, rows_goal_min) + sizeof(throng_vec2),
               "the rows' random-goal rectangle reads as an sf_box");

static bool agents_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_model* m = base;
	uint32_t before = c->problems;
	(void)map;
	if (k->part == 1) {
		// goal: {random: {min, max}}; the part of that mapping is `random`.
		sf_read_table(c, v, &sf_agents_goal_table, m, agents_part);
		return c->problems == before;
	}
	if (k->part == 3) {
		sf_read_table(c, v, &sf_box_table, (sf_box*)(void*)&m->rows_goal_min, NULL);
		m->rows_random = c->problems == before;
		return m->rows_random;
	}
	if (!sf_expect_sequence(c, v, "a list of rows")) {
		return false;
	}
	if (v->count == 0 || v->count > THR_SCENE_MAX_AGENTS) {
		sf_error(c, v->pos, "got %u rows (expected 1 to %u)", v->count, THR_SCENE_MAX_AGENTS);
		return false;
	}
	m->rows = calloc(v->count, sizeof *m->rows);
	m->row_pos = calloc(v->count, sizeof *m->row_pos);
	if (m->rows == NULL || m->row_pos == NULL) {
		free(m->rows);
		m->rows = NULL;
		sf_error(c, v->pos, "out of memory (expected fewer rows)");
		return false;
	}
	for (uint32_t k = 0; k < v->count; ++k) {
		size_t mark = sf_push_index(c, k);
		m->row_pos[k] = v->items[k]->pos;
		parse_row(c, v->items[k], m, &m->rows[m->row_count++]);
		sf_pop(c, mark);
	}
	return c->problems == before;
}

void sf_parse_agents(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (n->kind == SF_MAPPING) {
		m->rows_pos = n->pos;
	}
	sf_read_table(c, n, &sf_agents_table, m, agents_part);
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
		if (!thr_speed_fits(speed, d->max_speed)) {
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
