// SPDX-License-Identifier: MIT
// Scenario files: the key tables, the reader that walks a mapping against
// one, and the key reference of docs/SCENARIOS.md generated from them.
//
// A row says everything about a key once: its name, type and range, where
// its value lands (offsetof into the section's struct) and its docs. The
// reader's messages come from the row (the range, the words, the nearest
// key), the writer (scenario_file_save.c) prints the same rows, and
// sf_keys_markdown() prints the table docs/SCENARIOS.md carries between
// its "<!-- keys: NAME -->" markers, so the docs cannot drift from the
// code: tests/test_scenario_file.c compares them.
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "throng/throng.h"

_Static_assert(sizeof(throng_target_source) == sizeof(int) && sizeof(throng_flee_mode) == sizeof(int) &&
                   sizeof(throng_wander_frame) == sizeof(int) && sizeof(throng_bounds_mode) == sizeof(int) &&
                   sizeof(throng_blend_mode) == sizeof(int),
               "word keys land in int-sized enums");

#define K(kind) (1u << (kind))
#define NEIGHBOUR_SLOTS (K(THRONG_UNALIGNED_AVOID) | K(THRONG_SEPARATION) | K(THRONG_ALIGNMENT) | K(THRONG_COHESION))

// Row makers: where the value lands, its type and range.
#define NUMBER(st, field, r) .offset = offsetof(st, field), .type = SF_T_NUMBER, .range = (r)
#define POINT(st, field, r) .offset = offsetof(st, field), .type = SF_T_POINT, .range = (r)
#define WHOLE(st, field, lo, hi)                                                                                  \
	.offset = offsetof(st, field), .type = SF_T_UINT, .min = (lo), .max = (hi), .size = sizeof(((st*)0)->field)
#define FLAG(st, field) .offset = offsetof(st, field), .type = SF_T_BOOL
#define WORD(st, field, table, w) .offset = offsetof(st, field), .type = SF_T_WORD, .words = &(table), .what = (w)

// ---------------------------------------------------------------------------
// world
// ---------------------------------------------------------------------------

/// bounds: max above min on both axes (when both were read).
static void check_bounds(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	const sf_model* m = base;
	if ((failed & 3u) != 0 || (m->bounds_max.x > m->bounds_min.x && m->bounds_max.y > m->bounds_min.y)) {
		return;
	}
	const sf_node* at = sf_get(map, "max") != NULL ? sf_get(map, "max") : map;
	size_t mark = sf_push_key(c, "max");
	sf_error(c, at->pos,
	         "got (%g, %g), not above min (%g, %g) on both axes (expected max.x > min.x and max.y > min.y)",
	         (double)m->bounds_max.x, (double)m->bounds_max.y, (double)m->bounds_min.x, (double)m->bounds_min.y);
	sf_pop(c, mark);
}

static const sf_key bounds_keys[] = {
	{.name = "min", POINT(sf_model, bounds_min, SF_COORD), .unit = "m", .doc = "lower-left corner"},
	{.name = "max", POINT(sf_model, bounds_max, SF_COORD), .unit = "m",
	 .doc = "upper-right corner, above `min` on both axes"},
	{.name = "mode", WORD(sf_model, bounds_mode, thr_bounds_mode_names, "bounds mode"),
	 .doc = "`contain` (agents stay inside: bounds steering plus a hard clamp), `wrap` (a torus), `bounce` "
	        "(velocity reflects), `open` (no bounds; the grid still covers min..max) (`throng_bounds_mode_name`)"},
};

static const sf_table bounds_table = {.name = "bounds", .keys = bounds_keys, .count = 3, .check = check_bounds};

static void world_defaults(void* base)
{
	sf_model m;
	sf_model_defaults(&m, NULL);
	sf_model* out = base;
	out->bounds_min = m.bounds_min;
	out->bounds_max = m.bounds_max;
	out->bounds_mode = m.bounds_mode;
	out->dt = m.dt;
	out->seed = m.seed;
	out->cell_size = m.cell_size;
	sf_model_free(&m);
}

static const sf_key world_keys[] = {
	{.name = "bounds", .type = SF_T_MAP, .sub = &bounds_table},
	{.name = "dt", NUMBER(sf_model, dt, SF_DT), .unit = "s", .note = "(1/60 s as a float)",
	 .doc = "the fixed step; at least 1.2e-38 (a normal float)"},
	{.name = "seed", WHOLE(sf_model, seed, 0, UINT64_MAX), .hex = true,
	 .doc = "keys every random draw (spawning, goals, wander); decimal or `0x` hex"},
	{.name = "cell_size", NUMBER(sf_model, cell_size, SF_NON_NEGATIVE), .unit = "m",
	 .doc = "0 takes it from the archetypes' neighbour radii"},
};

const sf_table sf_world_table = {
	.name = "world", .keys = world_keys, .count = 4, .defaults = world_defaults, .size = sizeof(sf_model)};

// ---------------------------------------------------------------------------
// An archetype
// ---------------------------------------------------------------------------

static void archetype_defaults(void* base)
{
	*(throng_controller*)base = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
}

static const sf_key archetype_keys[] = {
	{.name = "mode", WORD(throng_controller, mode, thr_blend_mode_names, "blend mode"),
	 .doc = "`weighted`, `priority` or `hybrid` (SPEC.md, \"The controller\"; `throng_blend_mode_name`)"},
	{.name = "target_rule", .type = SF_T_OTHER, .type_doc = "mapping", .def = "none (off)",
	 .doc = "target selection, below"},
	{.name = "contact", .type = SF_T_OTHER, .type_doc = "mapping", .def = "on", .doc = "solid agents, below"},
	{.name = "slots", .type = SF_T_OTHER, .type_doc = "list", .def = "`[]`", .doc = "0 to 16 slots, blended in order"},
};
_Static_assert(THRONG_MAX_SLOTS == 16, "the slots row of archetype_keys states the limit");

const sf_table sf_archetype_table = {.name = "archetype",
                                     .keys = archetype_keys,
                                     .count = 4,
                                     .defaults = archetype_defaults,
                                     .size = sizeof(throng_controller)};

// ---------------------------------------------------------------------------
// A slot's own keys
// ---------------------------------------------------------------------------

static void slot_defaults(void* base)
{
	*(throng_slot*)base = throng_slot_default_def(THRONG_SEEK);
}

static const sf_key slot_keys[] = {
	{.name = "kind", .type = SF_T_OTHER, .type_doc = "word", .words = &thr_behavior_kind_names, .required = true},
	{.name = "weight", NUMBER(throng_slot, weight, SF_NON_NEGATIVE), .doc = "multiplies the force"},
	{.name = "enabled", FLAG(throng_slot, enabled), .doc = "disabled slots are neither evaluated nor recorded"},
	{.name = "priority", FLAG(throng_slot, priority),
	 .doc = "hybrid mode: spends the force budget before the weighted rest"},
};

const sf_table sf_slot_table = {
	.name = "slot", .keys = slot_keys, .count = 4, .defaults = slot_defaults, .size = sizeof(throng_slot)};

// ---------------------------------------------------------------------------
// A slot's parameters: the fields of throng_behavior_params, in the order
// a slot's keys are listed and written
// ---------------------------------------------------------------------------

static void param_defaults(void* base)
{
	*(throng_behavior_params*)base = throng_behavior_default_def();
}

#define P throng_behavior_params
static const sf_key param_keys[] = {
	{.name = "target", WORD(P, target, thr_target_source_names, "target"),
	 .kinds = K(THRONG_SEEK) | K(THRONG_FLEE) | K(THRONG_ARRIVE) | K(THRONG_PURSUIT) | K(THRONG_EVADE),
	 .doc = "`point` (the agent's target point), `threat` (the threat and its velocity), `agent` (the agent's "
	        "target agent) (`throng_target_source_name`)"},
	{.name = "flee_mode", WORD(P, flee_mode, thr_flee_mode_names, "flee mode"), .kinds = K(THRONG_FLEE),
	 .doc = "`always`, `panic` (zero force outside the radius), `safe` (desired speed falls to 0 at the radius) "
	        "(`throng_flee_mode_name`)"},
	{.name = "flee_radius", NUMBER(P, flee_radius, SF_POSITIVE), .kinds = K(THRONG_FLEE), .unit = "m"},
	{.name = "slow_radius", NUMBER(P, slow_radius, SF_POSITIVE), .kinds = K(THRONG_ARRIVE) | K(THRONG_PATH_FOLLOW),
	 .unit = "m", .doc = "where arriving slows down (path_following: at the last waypoint)"},
	{.name = "evade_radius", NUMBER(P, evade_radius, SF_POSITIVE), .kinds = K(THRONG_EVADE), .unit = "m"},
	{.name = "max_prediction", NUMBER(P, max_prediction, SF_NON_NEGATIVE),
	 .kinds = K(THRONG_PURSUIT) | K(THRONG_EVADE) | K(THRONG_UNALIGNED_AVOID), .unit = "s"},
	{.name = "circle_distance", NUMBER(P, circle_distance, SF_NON_NEGATIVE), .kinds = K(THRONG_WANDER), .unit = "m"},
	{.name = "circle_radius", NUMBER(P, circle_radius, SF_NON_NEGATIVE), .kinds = K(THRONG_WANDER), .unit = "m"},
	{.name = "jitter", NUMBER(P, jitter, SF_NON_NEGATIVE), .kinds = K(THRONG_WANDER), .unit = "rad/s"},
	{.name = "frame", WORD(P, frame, thr_wander_frame_names, "wander frame"), .kinds = K(THRONG_WANDER),
	 .doc = "`local` (angle relative to the heading), `world` (`throng_wander_frame_name`)"},
	{.name = "noise_frequency", NUMBER(P, noise_frequency, SF_NON_NEGATIVE), .kinds = K(THRONG_WANDER_NOISE),
	 .unit = "per s"},
	{.name = "noise_amplitude", NUMBER(P, noise_amplitude, SF_NON_NEGATIVE), .kinds = K(THRONG_WANDER_NOISE),
	 .unit = "rad/s"},
	{.name = "look_ahead", NUMBER(P, look_ahead, SF_POSITIVE), .kinds = K(THRONG_OBSTACLE_AVOID) | K(THRONG_WALL_AVOID),
	 .unit = "m"},
	{.name = "feeler_angle", NUMBER(P, feeler_angle, SF_FEELER), .kinds = K(THRONG_WALL_AVOID), .unit = "rad",
	 .note = "(π/4)"},
	{.name = "avoid_radius", NUMBER(P, avoid_radius, SF_POSITIVE), .kinds = K(THRONG_UNALIGNED_AVOID), .unit = "m"},
	{.name = "neighbor_radius", NUMBER(P, neighbor_radius, SF_POSITIVE), .kinds = NEIGHBOUR_SLOTS, .unit = "m"},
	{.name = "same_group_only", FLAG(P, same_group_only), .kinds = NEIGHBOUR_SLOTS,
	 .doc = "only agents of the slot's own group label count"},
	// 0 = THRONG_DEFAULT_MAX_NEIGHBORS; the bound keeps the candidate cap
	// (THRONG_CANDIDATES_PER_NEIGHBOR times it) well inside 32 bits.
	{.name = "max_neighbors", WHOLE(P, max_neighbors, 0, 1000000), .kinds = NEIGHBOUR_SLOTS, .omit_zero = true,
	 .note = "(= `THRONG_DEFAULT_MAX_NEIGHBORS`, 256)",
	 .doc = "the slot takes the first this many neighbours in the engines' order ([BEHAVIORS.md](BEHAVIORS.md), "
	        "\"Neighbour caps\")"},
	{.name = "margin", NUMBER(P, margin, SF_POSITIVE), .kinds = K(THRONG_BOUNDS), .unit = "m"},
	{.name = "waypoint_radius", NUMBER(P, waypoint_radius, SF_POSITIVE), .kinds = K(THRONG_PATH_FOLLOW), .unit = "m",
	 .doc = "a waypoint is passed within it"},
};
#undef P
_Static_assert(THRONG_DEFAULT_MAX_NEIGHBORS == 256, "max_neighbors' note in param_keys states the default");

const sf_table sf_param_table = {.name = "slot parameters",
                                 .keys = param_keys,
                                 .count = sizeof param_keys / sizeof param_keys[0],
                                 .defaults = param_defaults,
                                 .size = sizeof(throng_behavior_params),
                                 .kind_names = &thr_behavior_kind_names,
                                 .key_header = "parameter",
                                 .kinds_header = "read by"};

// ---------------------------------------------------------------------------
// An archetype's contact
// ---------------------------------------------------------------------------

static void contact_defaults(void* base)
{
	*(throng_contact*)base = throng_controller_default_def(THRONG_BLEND_WEIGHTED).contact;
}

static const sf_key contact_keys[] = {
	{.name = "enabled", FLAG(throng_contact, enabled), .doc = "a pair is solid only when both archetypes have "
	                                                          "contacts on"},
	{.name = "stiffness", NUMBER(throng_contact, stiffness, SF_FRACTION),
	 .doc = "the fraction of an overlap removed per iteration (half by each agent)"},
	{.name = "iterations", WHOLE(throng_contact, iterations, 1, THRONG_CONTACT_MAX_ITERATIONS),
	 .doc = "Jacobi iterations per step"},
	{.name = "inelastic", FLAG(throng_contact, inelastic), .omit_zero = true,
	 .doc = "after the iterations, the velocity loses its part towards each partner still overlapped by more "
	        "than 0.1 % of the radii sum: a pressed crowd stops walking into itself"},
};

const sf_table sf_contact_table = {.name = "contact",
                                   .keys = contact_keys,
                                   .count = 4,
                                   .defaults = contact_defaults,
                                   .size = sizeof(throng_contact)};

// ---------------------------------------------------------------------------
// A group's spawn shape (after `shape`, which picks the rows)
// ---------------------------------------------------------------------------

static const thr_names shape_names = {sf_shape_names, SF_SHAPE_COUNT};

#define S(shape) (1u << (shape))
static const sf_key spawn_keys[] = {
	{.name = "center", POINT(sf_spawn, center, SF_COORD), .unit = "m",
	 .kinds = S(SF_SHAPE_RING) | S(SF_SHAPE_DISC) | S(SF_SHAPE_RECTANGLE) | S(SF_SHAPE_GRID),
	 .doc = "the shape's centre"},
	{.name = "radius", NUMBER(sf_spawn, radius, SF_POSITIVE), .unit = "m", .required = true,
	 .kinds = S(SF_SHAPE_RING) | S(SF_SHAPE_DISC)},
	{.name = "angle", NUMBER(sf_spawn, angle, SF_ANGLE), .unit = "rad", .kinds = S(SF_SHAPE_RING),
	 .doc = "the first agent's angle"},
	{.name = "size", POINT(sf_spawn, size, SF_NON_NEGATIVE), .unit = "m", .required = true,
	 .kinds = S(SF_SHAPE_RECTANGLE), .doc = "[width, height]"},
	{.name = "spacing", POINT(sf_spawn, spacing, SF_NON_NEGATIVE), .unit = "m", .required = true,
	 .kinds = S(SF_SHAPE_GRID), .doc = "[dx, dy] between columns and rows"},
	{.name = "columns", WHOLE(sf_spawn, columns, 1, THR_SCENE_MAX_AGENTS), .kinds = S(SF_SHAPE_GRID), .def = "⌈√n⌉",
	 .doc = "the lattice's width in agents"},
	{.name = "jitter", NUMBER(sf_spawn, jitter, SF_NON_NEGATIVE), .unit = "m", .kinds = S(SF_SHAPE_GRID),
	 .doc = "the largest random nudge off a lattice point, per axis"},
	{.name = "from", POINT(sf_spawn, from, SF_COORD), .unit = "m", .required = true, .kinds = S(SF_SHAPE_LINE),
	 .doc = "the first agent"},
	{.name = "to", POINT(sf_spawn, to, SF_COORD), .unit = "m", .required = true, .kinds = S(SF_SHAPE_LINE),
	 .doc = "the last agent"},
};
#undef S

const sf_table sf_spawn_table = {.name = "spawn",
                                 .keys = spawn_keys,
                                 .count = sizeof spawn_keys / sizeof spawn_keys[0],
                                 .size = sizeof(sf_spawn),
                                 .kind_names = &shape_names,
                                 .key_header = "key",
                                 .kinds_header = "shapes"};

// ---------------------------------------------------------------------------
// An archetype's target rule
// ---------------------------------------------------------------------------

void sf_target_rule_defaults(void* rule)
{
	throng_target_rule* r = rule;
	r->enabled = true;
	r->sight_radius = 10.0f;
	r->every = 10;
}

static const sf_key target_rule_keys[] = {
	{.name = "group", .type = SF_T_OTHER, .type_doc = "name", .def = "*required* (or `label`)",
	 .doc = "the name of a group under `groups`; the rule uses that group's `id` (so every group sharing the id "
	        "counts)"},
	{.name = "sight_radius", NUMBER(throng_target_rule, sight_radius, SF_POSITIVE), .unit = "m"},
	{.name = "every", WHOLE(throng_target_rule, every, 1, 1000000), .unit = "steps", .doc = "step 0 always chooses"},
	{.name = "enabled", FLAG(throng_target_rule, enabled)},
	{.name = "label", .type = SF_T_OTHER, .type_doc = "whole number",
	 .doc = "version 2, instead of `group`: a group label (0 to 4294967294), as `agents` rows carry them"},
};

const sf_table sf_target_rule_table = {.name = "target_rule",
                                       .keys = target_rule_keys,
                                       .count = sizeof target_rule_keys / sizeof target_rule_keys[0],
                                       .defaults = sf_target_rule_defaults,
                                       .size = sizeof(throng_target_rule)};

// ---------------------------------------------------------------------------
// An obstacle
// ---------------------------------------------------------------------------

static const sf_key obstacle_keys[] = {
	{.name = "center", POINT(sf_obstacle, center, SF_COORD), .unit = "m", .required = true},
	{.name = "radius", NUMBER(sf_obstacle, radius, SF_POSITIVE), .unit = "m", .required = true},
};

const sf_table sf_obstacle_table = {
	.name = "obstacle", .keys = obstacle_keys, .count = 2, .size = sizeof(sf_obstacle)};

// ---------------------------------------------------------------------------
// A path (a group's, in its mapping form)
// ---------------------------------------------------------------------------

static const sf_key path_keys[] = {
	{.name = "waypoints", .type = SF_T_OTHER, .type_doc = "list of points", .required = true,
	 .doc = "1 to 4096 points"},
	{.name = "loop", FLAG(sf_path, loop), .doc = "after the last waypoint, the first again"},
	{.name = "end_at_goal", FLAG(sf_path, end_at_goal),
	 .doc = "each agent gets a path of its own: the waypoints, then its goal (the group needs a goal; not with "
	        "`loop`)"},
};
_Static_assert(THRONG_MAX_WAYPOINTS == 4096, "the waypoints row of path_keys states the limit");

const sf_table sf_path_table = {.name = "path", .keys = path_keys, .count = 3, .size = sizeof(sf_path)};

// ---------------------------------------------------------------------------
// A group
// ---------------------------------------------------------------------------

static void group_defaults(void* base)
{
	throng_agent_def def = throng_agent_default_def();
	sf_group* g = base;
	g->max_speed = def.max_speed;
	g->max_force = def.max_force;
	g->radius = def.radius;
}

#define OTHER(p, t) .type = SF_T_OTHER, .part = (p), .type_doc = (t)
static const sf_key group_keys[] = {
	{.name = "count", OTHER(SF_GROUP_COUNT, "whole number"), .required = true,
	 .doc = "1 to 10,000,000 (all groups together at most 10,000,000)"},
	{.name = "archetype", OTHER(SF_GROUP_ARCHETYPE, "name"), .required = true,
	 .doc = "the name of an archetype under `archetypes`"},
	{.name = "id", WHOLE(sf_group, id, 0, UINT32_MAX - 1u), .def = "the group's index (0, 1, ...)",
	 .doc = "the agents' group label (`throng_agent_def.group`); groups may share one (an army of several groups); "
	        "target rules and `same_group_only` use it"},
	{.name = "spawn", OTHER(SF_GROUP_SPAWN, "mapping"), .required = true, .doc = "the shape, [below](#spawn)"},
	{.name = "max_speed", NUMBER(sf_group, max_speed, SF_POSITIVE), .unit = "m/s"},
	{.name = "max_force", NUMBER(sf_group, max_force, SF_POSITIVE), .unit = "m/s²"},
	{.name = "radius", NUMBER(sf_group, radius, SF_POSITIVE), .unit = "m"},
	{.name = "speed", NUMBER(sf_group, speed, SF_NON_NEGATIVE), .unit = "m/s",
	 .doc = "the initial speed, along `heading`; at most `max_speed`"},
	{.name = "heading", OTHER(SF_GROUP_HEADING, "word or point"), .def = "`none`",
	 .doc = "the initial heading, [below](#heading-and-speed)"},
	{.name = "goal", OTHER(SF_GROUP_GOAL, "word, point or mapping"), .def = "`none`",
	 .doc = "each agent's target point, [below](#goal)"},
	{.name = "path", OTHER(SF_GROUP_PATH, "list or mapping"), .def = "none",
	 .doc = "a path the agents follow, [below](#path)"},
};
#undef OTHER

const sf_table sf_group_table = {.name = "group",
                                 .keys = group_keys,
                                 .count = sizeof group_keys / sizeof group_keys[0],
                                 .defaults = group_defaults,
                                 .size = sizeof(sf_group)};

const sf_table* const sf_doc_tables[] = {&sf_world_table,       &sf_archetype_table, &sf_target_rule_table,
                                         &sf_contact_table,     &sf_slot_table,      &sf_param_table,
                                         &sf_group_table,       &sf_spawn_table,     &sf_path_table,
                                         &sf_obstacle_table};
const uint32_t sf_doc_table_count = sizeof sf_doc_tables / sizeof sf_doc_tables[0];

// ---------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------

const sf_key* sf_key_find(const sf_table* t, const char* name)
{
	for (uint32_t k = 0; k < t->count; ++k) {
		if (strcmp(t->keys[k].name, name) == 0) {
			return &t->keys[k];
		}
	}
	return NULL;
}

bool sf_kind_reads(throng_behavior_kind kind, const sf_key* key)
{
	return (unsigned)kind < THRONG_BEHAVIOR_COUNT && key != NULL && (key->kinds & K(kind)) != 0;
}

/// Reads one value into base + k->offset; false on a problem.
static bool read_value(sf_ctx* c, const sf_node* v, const sf_key* k, void* base)
{
	char* at = (char*)base + k->offset;
	switch (k->type) {
	case SF_T_NUMBER: return sf_read_number(c, v, k->range, (float*)(void*)at);
	case SF_T_POINT: return sf_read_vec2(c, v, k->range, (throng_vec2*)(void*)at);
	case SF_T_BOOL: return sf_read_bool(c, v, (bool*)(void*)at);
	case SF_T_MAP: return sf_read_table(c, v, k->sub, base) == 0;
	case SF_T_OTHER: return true;
	case SF_T_WORD: {
		int e = 0;
		if (!sf_read_enum(c, v, k->words->name, k->words->count, k->what, &e)) {
			return false;
		}
		memcpy(at, &e, sizeof e);
		return true;
	}
	case SF_T_UINT: {
		uint64_t u = 0;
		if (!sf_read_uint(c, v, k->min, k->max, k->hex, &u)) {
			return false;
		}
		if (k->size == sizeof(uint32_t)) {
			uint32_t u32 = (uint32_t)u;
			memcpy(at, &u32, sizeof u32);
		} else {
			memcpy(at, &u, sizeof u);
		}
		return true;
	}
	}
	return false;
}

/// What a missing required key should have been.
static void expected_value(const sf_key* k, char* buf, size_t cap)
{
	if (k->type == SF_T_POINT) {
		snprintf(buf, cap, "[x, y], each %s", sf_range_text(k->range));
	} else {
		snprintf(buf, cap, "%s", sf_range_text(k->range));
	}
}

uint64_t sf_read_keys(sf_ctx* c, const sf_node* map, const sf_table* t, void* base, uint32_t kind_bit)
{
	uint64_t failed = 0;
	for (uint32_t k = 0; k < t->count; ++k) {
		const sf_key* key = &t->keys[k];
		if ((kind_bit != 0 && (key->kinds & kind_bit) == 0) || key->type == SF_T_OTHER) {
			continue;
		}
		const sf_node* v = sf_get(map, key->name);
		if (v == NULL && key->required) {
			char expected[128];
			expected_value(key, expected, sizeof expected);
			sf_missing(c, map, key->name, expected);
			failed |= 1ull << k;
		}
		if (v == NULL) {
			continue;
		}
		size_t mark = sf_push_key(c, key->name);
		if (!read_value(c, v, key, base)) {
			failed |= 1ull << k;
		}
		sf_pop(c, mark);
	}
	return failed;
}

void sf_check_kind_keys(sf_ctx* c, const sf_node* map, const char* const* lead, size_t nlead, const sf_table* t,
                        int kind)
{
	const char* keys[8 + 64];
	const char* foreign[64];
	size_t nkeys = 0, nforeign = 0;
	for (; nkeys < nlead && nkeys < 8; ++nkeys) {
		keys[nkeys] = lead[nkeys];
	}
	for (uint32_t k = 0; k < t->count; ++k) {
		if (kind < 0 || (t->keys[k].kinds & K(kind)) != 0) {
			keys[nkeys++] = t->keys[k].name;
		} else {
			foreign[nforeign++] = t->keys[k].name;
		}
	}
	char what[96];
	snprintf(what, sizeof what, "a parameter of %s", kind >= 0 ? t->kind_names->name[kind] : "?");
	sf_check_keys_ex(c, map, keys, nkeys, foreign, nforeign, what);
}

/// "a, b and c" into buf.
static void join_and(const sf_table* t, char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < t->count && used < cap; ++k) {
		const char* sep = k == 0 ? "" : k + 1 == t->count ? " and " : ", ";
		int n = snprintf(buf + used, cap - used, "%s%s", sep, t->keys[k].name);
		used += n > 0 ? (size_t)n : 0;
	}
}

uint64_t sf_read_table(sf_ctx* c, const sf_node* n, const sf_table* t, void* base)
{
	char expected[256] = "a mapping of ";
	join_and(t, expected + strlen(expected), sizeof expected - strlen(expected));
	if (!sf_expect_mapping(c, n, expected)) {
		return 1ull << 63;
	}
	const char* names[64];
	for (uint32_t k = 0; k < t->count; ++k) {
		names[k] = t->keys[k].name;
	}
	sf_check_keys(c, n, names, t->count);
	uint64_t failed = sf_read_keys(c, n, t, base, 0);
	if (t->check != NULL) {
		t->check(c, n, base, failed);
	}
	return failed;
}

// ---------------------------------------------------------------------------
// Values as text, and the key reference
// ---------------------------------------------------------------------------

void sf_format_float(char buf[32], float v)
{
	for (int digits = 6; digits <= 9; ++digits) {
		snprintf(buf, 32, "%.*g", digits, (double)v);
		float back = strtof(buf, NULL);
		if (memcmp(&back, &v, sizeof v) == 0) {
			return;
		}
	}
}

void sf_format_value(const sf_key* k, const void* base, char* buf, size_t cap)
{
	const char* at = (const char*)base + k->offset;
	char x[32], y[32];
	buf[0] = '\0';
	switch (k->type) {
	case SF_T_NUMBER: {
		float f;
		memcpy(&f, at, sizeof f);
		sf_format_float(x, f);
		snprintf(buf, cap, "%s", x);
		return;
	}
	case SF_T_POINT: {
		throng_vec2 p;
		memcpy(&p, at, sizeof p);
		sf_format_float(x, p.x);
		sf_format_float(y, p.y);
		snprintf(buf, cap, "[%s, %s]", x, y);
		return;
	}
	case SF_T_BOOL: snprintf(buf, cap, "%s", *(const bool*)(const void*)at ? "true" : "false"); return;
	case SF_T_WORD: {
		int e;
		memcpy(&e, at, sizeof e);
		snprintf(buf, cap, "%s", e >= 0 && (uint32_t)e < k->words->count ? k->words->name[e] : "?");
		return;
	}
	case SF_T_UINT: {
		uint64_t u;
		if (k->size == sizeof(uint32_t)) {
			uint32_t u32;
			memcpy(&u32, at, sizeof u32);
			u = u32;
		} else {
			memcpy(&u, at, sizeof u);
		}
		snprintf(buf, cap, "%llu", (unsigned long long)u);
		return;
	}
	case SF_T_MAP:
	case SF_T_OTHER: return;
	}
}

void sf_put(sf_out* o, const char* fmt, ...)
{
	if (o->failed) {
		return;
	}
	if (o->text == NULL) {
		o->cap = 4096;
		o->text = malloc(o->cap);
		if (o->text == NULL) {
			o->failed = true;
			return;
		}
		o->text[0] = '\0';
	}
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(o->text + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->failed = true;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = o->cap * 2u + (size_t)n;
		char* t = realloc(o->text, cap);
		if (t == NULL) {
			o->failed = true;
			return;
		}
		o->text = t;
		o->cap = cap;
	}
}

static const char* type_doc(sf_type t)
{
	switch (t) {
	case SF_T_NUMBER: return "number";
	case SF_T_UINT: return "whole number";
	case SF_T_BOOL: return "boolean";
	case SF_T_WORD: return "word";
	case SF_T_POINT: return "point";
	case SF_T_MAP: return "mapping";
	case SF_T_OTHER: return "?";
	}
	return "?";
}

static const char* range_doc(sf_range r)
{
	switch (r) {
	case SF_POSITIVE: return "(0, 1e6]";
	case SF_NON_NEGATIVE: return "[0, 1e6]";
	case SF_COORD: return "[-1e6, 1e6]";
	case SF_DT: return "(0, 1]";
	case SF_ANGLE: return "[-1e6, 1e6]";
	case SF_FEELER: return "[0, π]";
	case SF_FRACTION: return "(0, 1]";
	}
	return "";
}

/// One row of the reference; `prefix` is "" or "bounds." for a nested
/// table. An empty cell is "| |".
static void md_row(sf_out* o, const sf_table* t, const sf_key* k, const void* defaults, const char* prefix)
{
	char value[96], cell[1024];
	sf_format_value(k, defaults, value, sizeof value);
	bool quoted = k->type == SF_T_WORD || k->type == SF_T_BOOL || k->type == SF_T_POINT;
	if (k->required || k->def != NULL) {
		snprintf(value, sizeof value, "%s", k->required ? "*required*" : k->def);
		quoted = false;
	}
	const char* type = k->type == SF_T_OTHER ? k->type_doc : type_doc(k->type);
	const char* note = k->note != NULL ? k->note : "";
	snprintf(cell, sizeof cell, quoted ? "`%s`%s%s" : "%s%s%s", value, note[0] != '\0' ? " " : "", note);
	sf_put(o, "| `%s%s` | %s |%s%s |", prefix, k->name, type, cell[0] != '\0' ? " " : "", cell);
	// The range: from the row's type, then the unit, then the doc line.
	size_t n = 0;
	cell[0] = '\0';
	if (k->type == SF_T_NUMBER || k->type == SF_T_POINT) {
		n = (size_t)snprintf(cell, sizeof cell, "%s%s", k->type == SF_T_POINT ? "each in " : "", range_doc(k->range));
	} else if (k->type == SF_T_UINT && k->max == UINT64_MAX) {
		n = (size_t)snprintf(cell, sizeof cell, "[%llu, 2⁶⁴−1]", (unsigned long long)k->min);
	} else if (k->type == SF_T_UINT) {
		n = (size_t)snprintf(cell, sizeof cell, "[%llu, %llu]", (unsigned long long)k->min,
		                     (unsigned long long)k->max);
	}
	if (k->unit != NULL && n < sizeof cell) {
		n += (size_t)snprintf(cell + n, sizeof cell - n, " %s", k->unit);
	}
	if (k->doc != NULL && n < sizeof cell) {
		snprintf(cell + n, sizeof cell - n, "%s%s", n > 0 ? ": " : "", k->doc);
	} else if (k->words != NULL) {
		for (uint32_t w = 0; w < k->words->count && n < sizeof cell; ++w) {
			n += (size_t)snprintf(cell + n, sizeof cell - n, "%s`%s`", w == 0 ? "" : ", ", k->words->name[w]);
		}
	}
	sf_put(o, "%s%s |", cell[0] != '\0' ? " " : "", cell);
	if (t->kind_names != NULL) {
		const char* sep = " ";
		for (uint32_t kind = 0; kind < t->kind_names->count; ++kind) {
			if ((k->kinds & K(kind)) != 0) {
				sf_put(o, "%s%s", sep, t->kind_names->name[kind]);
				sep = ", ";
			}
		}
		sf_put(o, " |");
	}
	sf_put(o, "\n");
}

char* sf_keys_markdown(const sf_table* t)
{
	sf_out o = {NULL, 0, 0, false};
	if (t->kind_names != NULL) {
		sf_put(&o, "| %s | type | default | range | %s |\n|---|---|---|---|---|\n", t->key_header, t->kinds_header);
	} else {
		sf_put(&o, "| key | type | default | range / meaning |\n|---|---|---|---|\n");
	}
	void* defaults = calloc(1, t->size != 0 ? t->size : 1);
	if (defaults == NULL) {
		free(o.text);
		return NULL;
	}
	if (t->defaults != NULL) {
		t->defaults(defaults);
	}
	for (uint32_t k = 0; k < t->count; ++k) {
		const sf_key* key = &t->keys[k];
		if (key->type != SF_T_MAP) {
			md_row(&o, t, key, defaults, "");
			continue;
		}
		// A nested mapping's keys, named by their path ("bounds.min").
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s.", key->name);
		for (uint32_t j = 0; j < key->sub->count; ++j) {
			md_row(&o, key->sub, &key->sub->keys[j], defaults, prefix);
		}
	}
	free(defaults);
	if (o.failed) {
		free(o.text);
		return NULL;
	}
	return o.text;
}
