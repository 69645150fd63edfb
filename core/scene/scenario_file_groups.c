// SPDX-License-Identifier: MIT
// Scenario files, stage 2b: groups of agents (spawn shape, limits, heading,
// goal, path) and the cross-checks that need every section: names that
// refer to other sections, spawns inside the bounds, the total count, and
// the library's own validation of the world def and the controllers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_internal.h"
#include "scenario_file_internal.h"
#include "validate.h"
#include "vec.h"

const char* const sf_shape_names[SF_SHAPE_COUNT] = {"ring", "disc", "rectangle", "grid", "line"};
const char* const sf_heading_names[5] = {"none", "random", "inward", "outward", "goal"};

void sf_parse_path(sf_ctx* c, const sf_node* n, sf_path* out)
{
	if (n->kind == SF_SEQUENCE) {
		sf_read_points(c, n, 1, THRONG_MAX_WAYPOINTS, &out->points, &out->count);
		return;
	}
	if (!sf_expect_mapping(c, n, "a list of waypoints [[x, y], ...] or {waypoints: [...], loop: false}")) {
		return;
	}
	sf_check_kind_keys(c, n, NULL, 0, &sf_path_table, -1);
	sf_read_keys(c, n, &sf_path_table, out, 0);
	const sf_node* w = sf_get(n, "waypoints");
	if (w == NULL) {
		sf_missing(c, n, "waypoints", "a list of 1 to 4096 points [x, y]");
		return;
	}
	size_t mark = sf_push_key(c, "waypoints");
	// With end_at_goal each agent's goal is one more waypoint.
	sf_read_points(c, w, 1, THRONG_MAX_WAYPOINTS - (out->end_at_goal ? 1u : 0u), &out->points, &out->count);
	sf_pop(c, mark);
	if (out->end_at_goal && out->loop) {
		mark = sf_push_key(c, "end_at_goal");
		sf_error(c, sf_get(n, "end_at_goal")->pos, "true on a looping path, which has no end (expected loop: false)");
		sf_pop(c, mark);
	}
}

static void parse_spawn(sf_ctx* c, const sf_node* n, sf_group* g)
{
	sf_spawn* s = &g->spawn;
	if (!sf_expect_mapping(c, n, "a mapping with shape and its parameters")) {
		return;
	}
	int shape = -1;
	const sf_node* sn = sf_get(n, "shape");
	if (sn != NULL) {
		size_t mark = sf_push_key(c, "shape");
		sf_read_enum(c, sn, sf_shape_names, SF_SHAPE_COUNT, "spawn shape", &shape);
		sf_pop(c, mark);
	}
	// Without a shape its parameters are unknown: only keys that no shape
	// takes are reported (and so a misspelt "shape").
	static const char* const lead[] = {"shape"};
	sf_check_kind_keys(c, n, lead, 1, &sf_spawn_table, shape);
	if (shape < 0) {
		if (sn == NULL) {
			sf_missing(c, n, "shape", "one of: ring, disc, rectangle, grid, line");
		}
		return;
	}
	s->shape = (sf_shape)shape;
	sf_read_keys(c, n, &sf_spawn_table, s, 1u << shape);
}

static void parse_goal(sf_ctx* c, const sf_node* n, sf_group* g)
{
	static const char* const words[] = {"none", "antipodal"};
	if (n->kind == SF_SEQUENCE) {
		if (sf_read_vec2(c, n, SF_COORD, &g->goal_point)) {
			g->goal = SF_GOAL_POINT;
		}
		return;
	}
	if (n->kind == SF_MAPPING) {
		static const char* const keys[] = {"random", "offset"};
		sf_check_keys(c, n, keys, 2);
		const sf_node* r = sf_get(n, "random");
		const sf_node* off = sf_get(n, "offset");
		if (r != NULL && off != NULL) {
			size_t mark = sf_push_key(c, "offset");
			sf_error(c, off->pos, "both random and offset given (expected one of them)");
			sf_pop(c, mark);
			return;
		}
		if (off != NULL) {
			if (sf_field_vec2(c, n, "offset", SF_COORD, &g->goal_offset) > 0) {
				g->goal = SF_GOAL_OFFSET;
			}
			return;
		}
		if (r == NULL) {
			sf_missing(c, n, "random", "{min: [x, y], max: [x, y]}, or offset: [dx, dy]");
			return;
		}
		size_t mark = sf_push_key(c, "random");
		if (sf_expect_mapping(c, r, "a rectangle {min: [x, y], max: [x, y]}")) {
			static const char* const rkeys[] = {"min", "max"};
			sf_check_keys(c, r, rkeys, 2);
			int a = sf_field_vec2(c, r, "min", SF_COORD, &g->goal_min);
			int b = sf_field_vec2(c, r, "max", SF_COORD, &g->goal_max);
			if (a == 0) {
				sf_missing(c, r, "min", "[x, y]");
			}
			if (b == 0) {
				sf_missing(c, r, "max", "[x, y]");
			}
			if (a > 0 && b > 0 && !(g->goal_max.x >= g->goal_min.x && g->goal_max.y >= g->goal_min.y)) {
				size_t mk = sf_push_key(c, "max");
				sf_error(c, sf_get(r, "max")->pos,
				         "got (%g, %g), below min (%g, %g) (expected max.x >= min.x and max.y >= min.y)",
				         (double)g->goal_max.x, (double)g->goal_max.y, (double)g->goal_min.x,
				         (double)g->goal_min.y);
				sf_pop(c, mk);
			} else if (a > 0 && b > 0) {
				g->goal = SF_GOAL_RANDOM;
			}
		}
		sf_pop(c, mark);
		return;
	}
	int w = 0;
	if (n->kind == SF_SCALAR && !sf_is_null(n) && (strcmp(n->text, "none") == 0 || strcmp(n->text, "antipodal") == 0)) {
		sf_read_enum(c, n, words, 2, "goal", &w);
		g->goal = w == 1 ? SF_GOAL_ANTIPODAL : SF_GOAL_NONE;
		return;
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	sf_error(c, n->pos,
	         "got %s (expected none, antipodal, [x, y], {offset: [dx, dy]} or {random: {min: [x, y], max: [x, y]}})",
	         got);
}

static void parse_heading(sf_ctx* c, const sf_node* n, sf_group* g)
{
	if (n->kind == SF_SEQUENCE) {
		throng_vec2 h = {0.0f, 0.0f};
		if (!sf_read_vec2(c, n, SF_COORD, &h)) {
			return;
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
			return;
		}
		g->heading = SF_HEADING_VECTOR;
		g->heading_vector = h;
		return;
	}
	int w = 0;
	if (sf_read_enum(c, n, sf_heading_names, 5, "heading", &w)) {
		g->heading = (sf_heading)w;
	}
}

/// The initial speed against max_speed and the heading, and a heading
/// towards the goal against the goal (values that read without a problem).
static void check_motion(sf_ctx* c, const sf_node* n, const sf_group* g)
{
	const sf_node* speed = sf_get(n, "speed");
	const sf_node* heading = sf_get(n, "heading");
	if (speed != NULL && g->speed > g->max_speed) {
		size_t mark = sf_push_key(c, "speed");
		sf_error(c, speed->pos, "got %g, above max_speed %g (expected a speed from 0 to max_speed)", (double)g->speed,
		         (double)g->max_speed);
		sf_pop(c, mark);
	} else if (speed != NULL && g->speed > 0.0f && g->heading == SF_HEADING_NONE &&
	           (heading == NULL || sf_is_null(heading) || (heading->kind == SF_SCALAR && strcmp(heading->text, "none") == 0))) {
		size_t mark = sf_push_key(c, "speed");
		sf_error(c, speed->pos,
		         "got %g with heading none, so no direction (expected heading: random, inward, outward, goal "
		         "or [x, y])",
		         (double)g->speed);
		sf_pop(c, mark);
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
		size_t mark = sf_push_key(c, "heading");
		sf_error(c, heading->pos, "goal, but the group has no goal (expected a goal: antipodal, [x, y], "
		                          "{offset: ...} or {random: ...})");
		sf_pop(c, mark);
	}
}

static void parse_group(sf_ctx* c, const sf_node* n, sf_group* g)
{
	if (!sf_expect_mapping(c, n, "a mapping with count, archetype and spawn")) {
		return;
	}
	sf_check_kind_keys(c, n, NULL, 0, &sf_group_table, -1);
	sf_read_keys(c, n, &sf_group_table, g, 0);
	const sf_node* count = sf_get(n, "count");
	if (count == NULL) {
		sf_missing(c, n, "count", "a whole number from 1 to 10000000");
	} else {
		size_t mark = sf_push_key(c, "count");
		uint64_t v = 0;
		if (count->kind == SF_SCALAR && count->plain && strcmp(count->text, "0") == 0) {
			sf_error(c, count->pos, "got 0, an empty group (expected a whole number from 1 to 10000000)");
		} else if (sf_read_uint(c, count, 1, THR_SCENE_MAX_AGENTS, false, &v)) {
			g->count = (uint32_t)v;
		}
		sf_pop(c, mark);
	}
	const sf_node* arch = sf_get(n, "archetype");
	if (arch == NULL) {
		sf_missing(c, n, "archetype", "the name of an archetype under archetypes");
	} else {
		size_t mark = sf_push_key(c, "archetype");
		if (sf_check_name(c, arch, "an archetype")) {
			g->archetype_name = malloc(arch->len + 1);
			if (g->archetype_name != NULL) {
				memcpy(g->archetype_name, arch->text, arch->len + 1);
			}
			g->archetype_pos = arch->pos;
		}
		sf_pop(c, mark);
	}
	const sf_node* spawn = sf_get(n, "spawn");
	if (spawn == NULL) {
		sf_missing(c, n, "spawn", "a mapping with shape and its parameters");
	} else {
		size_t mark = sf_push_key(c, "spawn");
		g->spawn_pos = spawn->pos;
		parse_spawn(c, spawn, g);
		sf_pop(c, mark);
	}
	static const char* const parts[] = {"heading", "goal", "path"};
	for (int k = 0; k < 3; ++k) {
		const sf_node* v = sf_get(n, parts[k]);
		if (v == NULL) {
			continue;
		}
		size_t mark = sf_push_key(c, parts[k]);
		if (k == 0) {
			parse_heading(c, v, g);
		} else if (k == 1) {
			parse_goal(c, v, g);
		} else {
			sf_parse_path(c, v, &g->path);
		}
		sf_pop(c, mark);
	}
	check_motion(c, n, g);
}

void sf_parse_groups(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_mapping(c, n, "a mapping from group names to groups of agents")) {
		return;
	}
	if (n->count > SF_MAX_GROUPS) {
		sf_error(c, n->pos, "got %u groups (expected at most %u)", n->count, SF_MAX_GROUPS);
		return;
	}
	if (n->count == 0) {
		sf_error(c, n->pos, "no groups (expected at least one group of agents)");
		return;
	}
	sf_check_names(c, n, "group");
	m->groups = calloc(n->count, sizeof *m->groups);
	if (m->groups == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer groups)");
		return;
	}
	throng_agent_def def = throng_agent_default_def();
	for (uint32_t k = 0; k < n->count; ++k) {
		const sf_node* key = n->items[2u * k];
		sf_group* g = &m->groups[m->group_count++];
		g->pos = key->pos;
		g->id = k;
		g->max_speed = def.max_speed;
		g->max_force = def.max_force;
		g->radius = def.radius;
		g->spawn.center = (throng_vec2){0.0f, 0.0f};
		if (key->kind == SF_SCALAR) {
			g->name = malloc(key->len + 1);
			if (g->name != NULL) {
				memcpy(g->name, key->text, key->len + 1);
			}
		}
		if (sf_key_repeats(n, k)) {
			continue;
		}
		size_t mark = sf_push_key(c, key->kind == SF_SCALAR ? key->text : "?");
		parse_group(c, n->items[2u * k + 1u], g);
		sf_pop(c, mark);
	}
}

// ---------------------------------------------------------------------------
// Cross-checks
// ---------------------------------------------------------------------------

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

/// Resolves names and checks what spans sections. Skips what depends on a
/// value that already had a problem.
static void resolve_archetype(sf_ctx* c, sf_model* m, sf_group* g)
{
	if (g->archetype_name != NULL) {
		uint32_t found = UINT32_MAX;
		for (uint32_t k = 0; k < m->archetype_count; ++k) {
			if (m->archetypes[k].name != NULL && strcmp(m->archetypes[k].name, g->archetype_name) == 0) {
				found = k;
				break;
			}
		}
		if (found != UINT32_MAX) {
			g->archetype = found;
		} else {
			const char* names[SF_MAX_ARCHETYPES] = {NULL};
			size_t count = m->archetype_count;
			for (uint32_t k = 0; k < count; ++k) {
				names[k] = m->archetypes[k].name != NULL ? m->archetypes[k].name : "?";
			}
			char list[256];
			sf_join(names, count, list, sizeof list);
			size_t mark = sf_push_key(c, "archetype");
			const char* near = sf_nearest(g->archetype_name, names, count);
			if (count == 0) {
				sf_error(c, g->archetype_pos, "unknown archetype \"%s\" (expected an archetype defined under archetypes)",
				         g->archetype_name);
			} else if (near != NULL) {
				sf_error(c, g->archetype_pos, "unknown archetype \"%s\", did you mean %s? (expected one of: %s)",
				         g->archetype_name, near, list);
			} else {
				sf_error(c, g->archetype_pos, "unknown archetype \"%s\" (expected one of: %s)", g->archetype_name,
				         list);
			}
			sf_pop(c, mark);
		}
	}
}

/// Checks what depends on several values of a group, and the bounds.
static void check_group(sf_ctx* c, sf_model* m, sf_group* g)
{
	if (g->spawn.shape == SF_SHAPE_GRID && g->spawn.columns == 0 && g->count > 0) {
		uint32_t cols = (uint32_t)ceil(sqrt((double)g->count));
		g->spawn.columns = cols > 0 ? cols : 1;
	}
	if (m->bounds_mode != THRONG_BOUNDS_OPEN && g->count > 0 && (g->spawn.shape != SF_SHAPE_GRID || g->spawn.columns > 0)) {
		throng_vec2 lo, hi;
		sf_spawn_extent(g, &lo, &hi);
		if (lo.x < m->bounds_min.x || lo.y < m->bounds_min.y || hi.x > m->bounds_max.x || hi.y > m->bounds_max.y) {
			size_t mark = sf_push_key(c, "spawn");
			sf_error(c, g->spawn_pos,
			         "the %s covers (%g, %g)..(%g, %g), outside the world (%g, %g)..(%g, %g) (expected every agent "
			         "inside the bounds, or bounds mode open)",
			         sf_shape_names[g->spawn.shape], (double)lo.x, (double)lo.y, (double)hi.x, (double)hi.y,
			         (double)m->bounds_min.x, (double)m->bounds_min.y, (double)m->bounds_max.x,
			         (double)m->bounds_max.y);
			sf_pop(c, mark);
		}
	}
	sf_check_spawn_room(c, g);
}

/// Resolves each archetype's target rule group to that group's id.
static void resolve_target_groups(sf_ctx* c, sf_model* m)
{
	size_t mark = sf_push_key(c, "archetypes");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		sf_archetype* a = &m->archetypes[k];
		if (a->target_group == NULL) {
			if (a->target_label && m->version != 2) {
				size_t mk = sf_push_key(c, a->name != NULL ? a->name : "?");
				sf_push_key(c, "target_rule");
				sf_push_key(c, "label");
				sf_error(c, a->target_group_pos, "a version 2 key in a version 1 file (expected version: 2 at the top)");
				sf_pop(c, mk);
			}
			continue;
		}
		uint32_t found = UINT32_MAX;
		const char* names[SF_MAX_GROUPS] = {NULL};
		for (uint32_t j = 0; j < m->group_count; ++j) {
			names[j] = m->groups[j].name != NULL ? m->groups[j].name : "?";
			if (found == UINT32_MAX && strcmp(names[j], a->target_group) == 0) {
				found = j;
			}
		}
		if (found != UINT32_MAX) {
			a->controller.target_rule.group = m->groups[found].id;
			continue;
		}
		char list[256];
		sf_join(names, m->group_count, list, sizeof list);
		const char* near = sf_nearest(a->target_group, names, m->group_count);
		size_t mk = sf_push_key(c, a->name != NULL ? a->name : "?");
		sf_push_key(c, "target_rule");
		sf_push_key(c, "group");
		if (m->group_count == 0) {
			sf_error(c, a->target_group_pos, "unknown group \"%s\" (expected a group defined under groups)",
			         a->target_group);
		} else if (near != NULL) {
			sf_error(c, a->target_group_pos, "unknown group \"%s\", did you mean %s? (expected one of: %s)",
			         a->target_group, near, list);
		} else {
			sf_error(c, a->target_group_pos, "unknown group \"%s\" (expected one of: %s)", a->target_group, list);
		}
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}

void sf_check_model(sf_ctx* c, const sf_node* root, sf_model* m)
{
	uint32_t before = c->problems;
	// Names first: they are read on their own, so they resolve even when
	// other values had problems.
	size_t mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		size_t mk = sf_push_key(c, m->groups[k].name != NULL ? m->groups[k].name : "?");
		resolve_archetype(c, m, &m->groups[k]);
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
	resolve_target_groups(c, m);
	if (before != 0) {
		// Checks over values that may hold defaults in place of bad input
		// would only add noise.
		return;
	}
	m->agents = 0;
	bool goals = false, random_goals = false;
	mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		sf_group* g = &m->groups[k];
		size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
		check_group(c, m, g);
		sf_pop(c, mk);
		m->agents += g->count;
		goals = goals || g->goal != SF_GOAL_NONE;
		random_goals = random_goals || g->goal == SF_GOAL_RANDOM;
	}
	sf_pop(c, mark);
	// Version 2 rows: agents after the groups'.
	m->agents += m->row_count;
	goals = goals || m->rows_random;
	random_goals = random_goals || m->rows_random;
	if ((m->threat.kind == SF_THREAT_LINE || m->threat.kind == SF_THREAT_EXTERNAL) && m->version != 2) {
		const char* key = m->threat.kind == SF_THREAT_LINE ? "line" : "external";
		mark = sf_push_key(c, "threat");
		sf_push_key(c, key);
		sf_error(c, sf_get(sf_get(root, "threat"), key)->pos,
		         "a version 2 key in a version 1 file (expected version: 2 at the top)");
		sf_pop(c, mark);
	}
	if (m->agents > THR_SCENE_MAX_AGENTS) {
		const sf_node* at = sf_get(root, "groups") != NULL ? sf_get(root, "groups") : sf_get(root, "agents");
		mark = sf_push_key(c, sf_get(root, "groups") != NULL ? "groups" : "agents");
		sf_error(c, at->pos, "the groups add up to %llu agents (expected at most %u)", (unsigned long long)m->agents,
		         THR_SCENE_MAX_AGENTS);
		sf_pop(c, mark);
	}
	if (m->goal_radius < 0.0f) {
		m->goal_radius = goals ? 0.5f : 0.0f;
	} else if (random_goals && m->goal_radius == 0.0f) {
		mark = sf_push_key(c, "goal_radius");
		sf_error(c, sf_get(root, "goal_radius")->pos,
		         "got 0 with random goals, which are drawn again within it (expected a number > 0 and <= 1e6)");
		sf_pop(c, mark);
	}
	sf_check_rows(c, m);
	sf_check_references(c, root, m);
	// The library's own rules, as a last line: nothing it would refuse gets
	// past validation.
	mark = sf_push_key(c, "archetypes");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		sf_archetype* a = &m->archetypes[k];
		if (thr_validate_controller(&a->controller) != THRONG_OK) {
			size_t mk = sf_push_key(c, a->name != NULL ? a->name : "?");
			sf_error(c, a->pos, "the library refuses this archetype: %s (expected a valid controller)",
			         throng_last_error());
			sf_pop(c, mk);
		}
	}
	sf_pop(c, mark);
	throng_world_def def = throng_world_default_def();
	def.bounds_min = m->bounds_min;
	def.bounds_max = m->bounds_max;
	def.bounds_mode = m->bounds_mode;
	def.dt = m->dt;
	def.seed = m->seed;
	def.cell_size = m->cell_size;
	def.capacity = m->agents > 0 && m->agents <= THR_SCENE_MAX_AGENTS ? (uint32_t)m->agents : 1u;
	if (thr_validate_def(&def) != THRONG_OK) {
		mark = sf_push_key(c, "world");
		sf_error(c, root->pos, "the library refuses this world: %s (expected a valid world)", throng_last_error());
		sf_pop(c, mark);
	}
}
