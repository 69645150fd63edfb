// SPDX-License-Identifier: MIT
// Scenario files: groups of agents. The plain keys are rows of
// sf_group_table; here are the parts no row can type: the count, the
// archetype's name, the spawn shape (whose keys depend on `shape`), the
// heading and the goal (a word, a point or a mapping), and the checks
// between a group's own values. A group's morale is read by
// scenario_file_units.c.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "vec.h"

_Static_assert(offsetof(sf_group, goal_max) == offsetof(sf_group, goal_min) + sizeof(throng_vec2),
               "a group's random-goal rectangle reads as an sf_box");

static bool parse_spawn(sf_ctx* c, const sf_node* n, sf_group* g)
{
	if (!sf_expect_mapping(c, n, "a mapping with shape and its parameters")) {
		return false;
	}
	const int shape = sf_read_shape(c, n, &sf_spawn_table, "spawn shape");
	if (shape < 0) {
		return false;
	}
	g->spawn.shape = (sf_shape)shape;
	return sf_read_keys(c, n, &sf_spawn_table, &g->spawn, 1u << shape, NULL) == 0;
}

static bool goal_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_group* g = base;
	uint32_t before = c->problems;
	(void)k;
	(void)map;
	sf_read_table(c, v, &sf_box_table, (sf_box*)(void*)&g->goal_min, NULL);
	g->goal = c->problems == before ? SF_GOAL_RANDOM : g->goal;
	return c->problems == before;
}

static bool parse_goal(sf_ctx* c, const sf_node* n, sf_group* g)
{
	if (n->kind == SF_SEQUENCE) {
		bool ok = sf_read_vec2(c, n, SF_COORD, &g->goal_point);
		g->goal = ok ? SF_GOAL_POINT : g->goal;
		return ok;
	}
	if (n->kind == SF_MAPPING) {
		return sf_read_table(c, n, &sf_goal_table, g, goal_part) == 0;
	}
	const char* word = sf_key_text(n);
	if (word != NULL && (strcmp(word, "none") == 0 || strcmp(word, "antipodal") == 0)) {
		g->goal = word[0] == 'a' ? SF_GOAL_ANTIPODAL : SF_GOAL_NONE;
		return true;
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	sf_error(c, n->pos,
	         "got %s (expected none, antipodal, [x, y], {offset: [dx, dy]} or {random: {min: [x, y], max: [x, y]}})",
	         got);
	return false;
}

static bool parse_heading(sf_ctx* c, const sf_node* n, sf_group* g)
{
	if (n->kind == SF_SEQUENCE) {
		throng_vec2 h = {0.0f, 0.0f};
		if (!sf_read_vec2(c, n, SF_COORD, &h)) {
			return false;
		}
		// The build normalises it when its length is above THR_EPS (vec.h);
		// the message gives the length in double, as written.
		float len = sqrtf(h.x * h.x + h.y * h.y);
		if (!(len > THR_EPS)) {
			char x[64], y[64], l[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
			sf_describe(n->items[0], x, sizeof x);
			sf_describe(n->items[1], y, sizeof y);
			sf_error(c, n->pos,
			         "got [%s, %s], too short for a direction: length %s (expected a vector [x, y] of length "
			         "more than %s)",
			         x, y, thr_fmt_float(l, (float)hypot((double)h.x, (double)h.y)), thr_fmt_float(m, THR_EPS));
			return false;
		}
		g->heading = SF_HEADING_VECTOR;
		g->heading_vector = h;
		return true;
	}
	int w = 0;
	if (!sf_read_enum(c, n, sf_heading_names, 5, "heading", &w)) {
		return false;
	}
	g->heading = (sf_heading)w;
	return true;
}
/// The checks between a group's own values; `body_known`: false when the
/// group's max_speed is a preset's that could not be read (an unknown
/// preset, already reported), so the speed is not compared with it.
static void check_motion(sf_ctx* c, const sf_node* n, const sf_group* g, bool body_known)
{
	const sf_node* speed = sf_get(n, "speed");
	const sf_node* heading = sf_get(n, "heading");
	if (speed != NULL && g->speed > g->max_speed) {
		if (body_known) {
			sf_error_at(c, "speed", speed->pos, "got %g, above max_speed %g (expected a speed from 0 to max_speed)",
			            (double)g->speed, (double)g->max_speed);
		}
	} else if (speed != NULL && g->speed > 0.0f && g->heading == SF_HEADING_NONE &&
	           (heading == NULL || sf_is_null(heading) || (heading->kind == SF_SCALAR && strcmp(heading->text, "none") == 0))) {
		sf_error_at(c, "speed", speed->pos,
		            "got %g with heading none, so no direction (expected heading: random, inward, outward, goal "
		            "or [x, y])",
		            (double)g->speed);
	}
	const sf_node* goal = sf_get(n, "goal");
	const sf_node* path = sf_get(n, "path");
	if (g->path.end_at_goal && g->goal == SF_GOAL_NONE &&
	    (goal == NULL || (goal->kind == SF_SCALAR && strcmp(goal->text, "none") == 0))) {
		size_t mark = sf_push_key(c, "path");
		sf_push_key(c, "end_at_goal");
		sf_error(c, sf_get(path, "end_at_goal")->pos,
		         "true, but the group has no goal (expected a goal: antipodal, [x, y], {offset: ...} or "
		         "{random: ...})");
		sf_pop(c, mark);
	}
	if (g->heading == SF_HEADING_GOAL && (goal == NULL || g->goal == SF_GOAL_NONE) &&
	    (goal == NULL || (goal->kind == SF_SCALAR && strcmp(goal->text, "none") == 0))) {
		sf_error_at(c, "heading", heading->pos, "goal, but the group has no goal (expected a goal: antipodal, [x, y], "
		                             "{offset: ...} or {random: ...})");
	}
}

static bool group_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_group* g = base;
	uint64_t count = 0;
	(void)map;
	switch (k->part) {
	case SF_GROUP_COUNT:
		if (v->kind == SF_SCALAR && v->plain && strcmp(v->text, "0") == 0) {
			sf_error(c, v->pos, "got 0, an empty group (expected a whole number from 1 to 10000000)");
			return false;
		}
		if (!sf_read_uint(c, v, 1, THR_SCENE_MAX_AGENTS, false, &count)) {
			return false;
		}
		g->count = (uint32_t)count;
		return true;
	case SF_GROUP_ARCHETYPE: g->archetype_pos = v->pos; return sf_read_name(c, v, "an archetype", &g->archetype_name);
	case SF_GROUP_SPAWN: g->spawn_pos = v->pos; return parse_spawn(c, v, g);
	case SF_GROUP_HEADING: return parse_heading(c, v, g);
	case SF_GROUP_GOAL: return parse_goal(c, v, g);
	case SF_GROUP_MORALE: return sf_parse_morale(c, v, g);
	case SF_GROUP_FORMATION: return sf_parse_formation(c, v, g);
	case SF_GROUP_ORDERS: return sf_parse_orders(c, v, g);
	default: return sf_parse_path(c, v, &g->path);
	}
}

static void read_group(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_group* g = item;
	g->name = sf_copy_text(key);
	g->pos = key->pos;
	g->id = index;
	sf_group_table.defaults(g);
	if (v != NULL) {
		sf_read_table(c, v, &sf_group_table, g, group_part);
	}
}

/// The archetype named `name` (the first of that name), or NULL.
static const sf_archetype* archetype_named(const sf_model* m, const char* name)
{
	for (uint32_t k = 0; name != NULL && k < m->archetype_count; ++k) {
		if (m->archetypes[k].name != NULL && strcmp(m->archetypes[k].name, name) == 0) {
			return &m->archetypes[k];
		}
	}
	return NULL;
}

void sf_parse_groups(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (n->kind == SF_MAPPING && n->count == 0) {
		sf_error(c, n->pos, "no groups (expected at least one group of agents)");
		return;
	}
	m->groups = sf_read_named(c, n, "a mapping from group names to groups of agents", "group", SF_MAX_GROUPS,
	                          sizeof *m->groups, &m->group_count, read_group);
	// Each group's archetype is known by name now (the archetypes are read
	// first): a preset's groups take its body where they state none, and
	// then speed, heading and goal are checked against each other.
	for (uint32_t k = 0; m->groups != NULL && k < m->group_count; ++k) {
		const sf_node* v = sf_key_repeats(n, k) ? NULL : n->items[2u * k + 1u];
		sf_group* g = &m->groups[k];
		if (v == NULL || v->kind != SF_MAPPING) {
			continue;
		}
		const sf_archetype* a = archetype_named(m, g->archetype_name);
		if (a != NULL && a->preset != NULL) {
			sf_preset_body(a->preset, v, g);
		}
		size_t mark = sf_push_key(c, g->name != NULL ? g->name : "?");
		check_motion(c, v, g, a == NULL || !a->preset_bad || sf_get(v, "max_speed") != NULL);
		sf_pop(c, mark);
	}
}
