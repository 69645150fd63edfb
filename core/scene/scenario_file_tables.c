// SPDX-License-Identifier: MIT
// Scenario files: the key tables, one a section of the format. The engine
// that reads, writes and documents them is scenario_file_keys.c.
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
#define NEIGHBOUR_SLOTS                                                                                            \
	(K(THRONG_UNALIGNED_AVOID) | K(THRONG_SEPARATION) | K(THRONG_ALIGNMENT) | K(THRONG_COHESION) |                \
	 K(THRONG_ANTICIPATION) | K(THRONG_HEADWAY))

// Row makers: where the value lands, its type and range.
#define NUMBER(st, field, r) .offset = offsetof(st, field), .type = SF_T_NUMBER, .range = (r)
#define POINT(st, field, r) .offset = offsetof(st, field), .type = SF_T_POINT, .range = (r)
#define WHOLE(st, field, lo, hi)                                                                                  \
	.offset = offsetof(st, field), .type = SF_T_UINT, .min = (lo), .max = (hi), .size = sizeof(((st*)0)->field)
#define FLAG(st, field) .offset = offsetof(st, field), .type = SF_T_BOOL
/// A table's rows and their count.
#define KEYS(rows) .keys = (rows), .count = sizeof(rows) / sizeof(rows)[0]
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
	sf_error_at(c, "max", at->pos,
	            "got (%g, %g), not above min (%g, %g) on both axes (expected max.x > min.x and max.y > min.y)",
	            (double)m->bounds_max.x, (double)m->bounds_max.y, (double)m->bounds_min.x, (double)m->bounds_min.y);
}

static const sf_key bounds_keys[] = {
	{.name = "min", POINT(sf_model, bounds_min, SF_COORD), .unit = "m", .doc = "lower-left corner"},
	{.name = "max", POINT(sf_model, bounds_max, SF_COORD), .unit = "m",
	 .doc = "upper-right corner, above `min` on both axes"},
	{.name = "mode", WORD(sf_model, bounds_mode, thr_bounds_mode_names, "bounds mode"),
	 .doc = "`contain` (agents stay inside: bounds steering plus a hard clamp), `wrap` (a torus: agents "
	        "see each other, and touch, across the seams, each at its nearest image), `bounce` "
	        "(velocity reflects), `open` (no bounds; the grid still covers min..max) (`throng_bounds_mode_name`)"},
};

static const sf_table bounds_table = {.name = "bounds", KEYS(bounds_keys), .check = check_bounds};

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
	.name = "world", KEYS(world_keys), .defaults = world_defaults, .size = sizeof(sf_model)};

// ---------------------------------------------------------------------------
// An archetype
// ---------------------------------------------------------------------------

static void archetype_defaults(void* base)
{
	*(throng_controller*)base = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
}

/// relaxation_time is written in the relaxation mode, which reads it, and
/// elsewhere only when not the default: saved files of the other modes
/// keep the bytes they had before the key.
static bool relaxation_time_written(const void* base)
{
	const throng_controller* c = base;
	return c->mode == THRONG_BLEND_RELAXATION ||
	       c->relaxation_time != throng_controller_default_def(c->mode).relaxation_time;
}

static const sf_key archetype_keys[] = {
	{.name = "preset", .type = SF_T_OTHER, .part = SF_ARCHETYPE_PRESET, .type_doc = "word", .def = "none",
	 .doc = "`pedestrian`: the archetype is `throng_controller_pedestrian_def(drive)`, and its groups get "
	        "`throng_agent_pedestrian_def()`'s body; the keys below override it, `slots` is refused "
	        "([presets](#presets))"},
	{.name = "drive", .type = SF_T_OTHER, .part = SF_ARCHETYPE_PRESET, .type_doc = "word", .def = "`arrive`",
	 .doc = "with `preset`: the slot that steers to the goal, `arrive`, `seek` or `path_following`"},
	{.name = "mode", WORD(throng_controller, mode, thr_blend_mode_names, "blend mode"),
	 .doc = "`weighted`, `priority`, `hybrid` or `relaxation` (SPEC.md, \"The controller\"; "
	        "[BEHAVIORS.md](BEHAVIORS.md), \"The relaxation blend\"; `throng_blend_mode_name`)"},
	{.name = "relaxation_time", NUMBER(throng_controller, relaxation_time, SF_POSITIVE), .unit = "s",
	 .written = relaxation_time_written,
	 .doc = "relaxation mode: tau, the drive's term is (sum of the drive's forces) / tau; written by `throng save` "
	        "in that mode or when not the default"},
	{.name = "target_rule", .type = SF_T_OTHER, .part = SF_ARCHETYPE_TARGET_RULE, .type_doc = "mapping",
	 .def = "none (off)", .doc = "target selection, below"},
	{.name = "contact", .type = SF_T_OTHER, .part = SF_ARCHETYPE_CONTACT, .type_doc = "mapping", .def = "on",
	 .doc = "solid agents, below"},
	{.name = "combat", .type = SF_T_OTHER, .part = SF_ARCHETYPE_COMBAT, .type_doc = "mapping", .def = "none (off)",
	 .doc = "version 2: health, armour and an attack, below ([ARMIES.md](ARMIES.md))"},
	{.name = "slots", .type = SF_T_OTHER, .part = SF_ARCHETYPE_SLOTS, .type_doc = "list", .def = "`[]`",
	 .doc = "0 to 16 slots, blended in order"},
};
_Static_assert(THRONG_MAX_SLOTS == 16, "the slots row of archetype_keys states the limit");

const sf_table sf_archetype_table = {.name = "archetype",
                                     KEYS(archetype_keys),
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
	 .doc = "hybrid mode: spends the force budget before the weighted rest; relaxation mode: an interaction, "
	        "added as it is, not the drive"},
};

const sf_table sf_slot_table = {
	.name = "slot", KEYS(slot_keys), .defaults = slot_defaults, .size = sizeof(throng_slot)};

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
	{.name = "time_gap", NUMBER(P, time_gap, SF_POSITIVE), .kinds = K(THRONG_HEADWAY), .unit = "s",
	 .doc = "T of the speed the headway allows, max(0, (s - l) / T) ([BEHAVIORS.md](BEHAVIORS.md), \"Headway\")"},
	{.name = "ttc_strength", NUMBER(P, ttc_strength, SF_POSITIVE), .kinds = K(THRONG_ANTICIPATION), .unit = "m²/s²",
	 .doc = "k of the energy k / tau² · exp(-tau / tau0) ([BEHAVIORS.md](BEHAVIORS.md), \"Anticipation\")"},
	{.name = "ttc_horizon", NUMBER(P, ttc_horizon, SF_POSITIVE), .kinds = K(THRONG_ANTICIPATION), .unit = "s",
	 .doc = "tau0: the time to collision beyond which the energy fades exponentially"},
	{.name = "ttc_max_time", NUMBER(P, ttc_max_time, SF_POSITIVE), .kinds = K(THRONG_ANTICIPATION), .unit = "s",
	 .doc = "collisions predicted later than this are ignored"},
	{.name = "fov_weight", NUMBER(P, fov_weight, SF_UNIT), .kinds = K(THRONG_ANTICIPATION),
	 .doc = "the weight of a neighbour straight behind (1 ahead, in between (1 + cos phi) / 2); 1: all alike"},
	{.name = "side_bias", NUMBER(P, side_bias, SF_SIGNED_UNIT), .kinds = K(THRONG_ANTICIPATION),
	 .doc = "push to the agent's right (> 0, keep right) or left (< 0) per unit of avoidance; 0: none"},
};
#undef P
_Static_assert(THRONG_DEFAULT_MAX_NEIGHBORS == 256, "max_neighbors' note in param_keys states the default");

const sf_table sf_param_table = {.name = "slot parameters",
                                 KEYS(param_keys),
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
	{.name = "slip", NUMBER(throng_contact, slip, SF_SHARE), .omit_zero = true,
	 .doc = "a pair pressed together (closing) also slides along the contact, each agent to its own right, "
	        "this times its normal push: opposed bodies pass instead of holding"},
	{.name = "noise", NUMBER(throng_contact, noise, SF_NON_NEGATIVE), .unit = "m/s", .omit_zero = true,
	 .doc = "each agent of a pressed pair moves once a step by this times dt, in a direction drawn from (seed, id, "
	        "step): a pressed crowd does not freeze"},
};

// ---------------------------------------------------------------------------
// An archetype's combat
// ---------------------------------------------------------------------------

static void combat_defaults(void* base)
{
	throng_combat* c = base;
	*c = throng_controller_default_def(THRONG_BLEND_WEIGHTED).combat;
	c->enabled = true; // a `combat:` mapping turns it on
	c->health = 100.0f;
	c->accuracy = 1.0f;
	c->cooldown = 1.0f;
	c->missile_speed = 60.0f;
}

static const sf_key combat_keys[] = {
	{.name = "health", NUMBER(throng_combat, health, SF_POSITIVE), .doc = "each agent's health as it comes in"},
	{.name = "armour", NUMBER(throng_combat, armour, SF_NON_NEGATIVE), .doc = "taken off each hit on it"},
	{.name = "attack", WORD(throng_combat, attack, thr_attack_kind_names, "attack"),
	 .doc = "`none` (it can be hurt but does not strike), `melee` (its target agent, within `reach`) or `missile` "
	        "(it shoots at its target agent within `reach`)"},
	{.name = "reach", NUMBER(throng_combat, reach, SF_NON_NEGATIVE), .unit = "m",
	 .doc = "the most gap between the two bodies: a melee's reach, a missile's range"},
	{.name = "damage", NUMBER(throng_combat, damage, SF_NON_NEGATIVE), .doc = "a hit's, before the target's armour"},
	{.name = "cooldown", NUMBER(throng_combat, cooldown, SF_NON_NEGATIVE), .unit = "s",
	 .doc = "from one strike to the next (a step at least)"},
	{.name = "accuracy", NUMBER(throng_combat, accuracy, SF_FRACTION), .doc = "the chance a strike hits"},
	{.name = "missile_speed", NUMBER(throng_combat, missile_speed, SF_NON_NEGATIVE), .unit = "m/s",
	 .doc = "missile: its speed in flight (more than 0 with `attack: missile`)"},
	{.name = "spread", NUMBER(throng_combat, spread, SF_NON_NEGATIVE), .unit = "m",
	 .doc = "missile: the radius of the disc round its target it lands in"},
	{.name = "body_radius", NUMBER(throng_combat, body_radius, SF_NON_NEGATIVE), .unit = "m",
	 .doc = "the body it leaves when killed: an obstacle of this radius where it fell; 0 leaves none"},
};

const sf_table sf_combat_table = {.name = "combat",
                                  KEYS(combat_keys),
                                  .defaults = combat_defaults,
                                  .size = sizeof(throng_combat)};

const sf_table sf_contact_table = {.name = "contact",
                                   KEYS(contact_keys),
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
                                 KEYS(spawn_keys),
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
                                       .expect = "a mapping of group, sight_radius, every and enabled",
                                       KEYS(target_rule_keys),
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
	.name = "obstacle", KEYS(obstacle_keys), .size = sizeof(sf_obstacle)};

// ---------------------------------------------------------------------------
// A zone and a source (after `shape`, which picks the rows)
// ---------------------------------------------------------------------------

static void zone_defaults(void* base)
{
	sf_zone* z = base;
	memset(z, 0, sizeof *z);
	z->def = throng_zone_default_def();
}

#define Z(shape) (1u << (shape))
#define ALL_ZONES (Z(THRONG_ZONE_CIRCLE) | Z(THRONG_ZONE_BOX) | Z(THRONG_ZONE_POLYGON))
static const sf_key zone_keys[] = {
	{.name = "name", .type = SF_T_OTHER, .part = SF_ZONE_NAME, .type_doc = "name", .def = "none",
	 .kinds = ALL_ZONES, .doc = "up to 31 letters, digits, `_` or `-`, unique among the zones; events and "
	                            "`throng_world_find_zone` name it"},
	{.name = "sink", FLAG(sf_zone, def.sink), .kinds = ALL_ZONES,
	 .doc = "an exit: an agent that enters it leaves the world as the step ends"},
	{.name = "center", POINT(sf_zone, def.center, SF_COORD), .unit = "m", .required = true,
	 .kinds = Z(THRONG_ZONE_CIRCLE)},
	{.name = "radius", NUMBER(sf_zone, def.radius, SF_POSITIVE), .unit = "m", .required = true,
	 .kinds = Z(THRONG_ZONE_CIRCLE)},
	{.name = "min", POINT(sf_zone, def.min, SF_COORD), .unit = "m", .required = true, .kinds = Z(THRONG_ZONE_BOX),
	 .doc = "lower-left corner"},
	{.name = "max", POINT(sf_zone, def.max, SF_COORD), .unit = "m", .required = true, .kinds = Z(THRONG_ZONE_BOX),
	 .doc = "upper-right corner, at least `min` on both axes"},
	{.name = "points", .type = SF_T_OTHER, .part = SF_ZONE_POINTS, .type_doc = "list of points", .required = true,
	 .kinds = Z(THRONG_ZONE_POLYGON), .expect = "a list of 3 to 4096 points [x, y]",
	 .doc = "3 to 4096 corners, either winding"},
};
#undef ALL_ZONES
#undef Z

const sf_table sf_zone_table = {.name = "zone",
                                KEYS(zone_keys),
                                .defaults = zone_defaults,
                                .size = sizeof(sf_zone),
                                .kind_names = &thr_zone_shape_names,
                                .key_header = "key",
                                .kinds_header = "shapes"};

static void source_defaults(void* base)
{
	sf_source* s = base;
	memset(s, 0, sizeof *s);
	s->def = throng_source_default_def();
}

/// start before stop (when both were read and stop was given).
static void check_source_times(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	const sf_source* s = base;
	const sf_node* stop = sf_get(map, "stop");
	if (failed == 0 && stop != NULL && !(s->def.stop > s->def.start)) {
		sf_error_at(c, "stop", stop->pos, "got %g s, not after start (%g s) (expected stop > start)",
		            (double)s->def.stop, (double)s->def.start);
	}
}

#define R(shape) (1u << (shape))
#define ALL_SOURCES (R(THRONG_SOURCE_BOX) | R(THRONG_SOURCE_CIRCLE) | R(THRONG_SOURCE_SEGMENT))
static const sf_key source_keys[] = {
	{.name = "name", .type = SF_T_OTHER, .part = SF_SOURCE_NAME, .type_doc = "name", .def = "none",
	 .kinds = ALL_SOURCES, .doc = "up to 31 letters, digits, `_` or `-`, unique among the sources"},
	{.name = "min", POINT(sf_source, def.min, SF_COORD), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_BOX), .doc = "lower-left corner"},
	{.name = "max", POINT(sf_source, def.max, SF_COORD), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_BOX), .doc = "upper-right corner, at least `min` on both axes"},
	{.name = "center", POINT(sf_source, def.center, SF_COORD), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_CIRCLE)},
	{.name = "radius", NUMBER(sf_source, def.radius, SF_POSITIVE), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_CIRCLE)},
	{.name = "from", POINT(sf_source, def.from, SF_COORD), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_SEGMENT), .doc = "one end of the door"},
	{.name = "to", POINT(sf_source, def.to, SF_COORD), .unit = "m", .required = true,
	 .kinds = R(THRONG_SOURCE_SEGMENT), .doc = "the other end"},
	{.name = "rate", NUMBER(sf_source, def.rate, SF_POSITIVE), .unit = "1/s", .required = true,
	 .kinds = ALL_SOURCES, .doc = "agents a second: agent k is due at start + k / rate"},
	{.name = "count", WHOLE(sf_source, def.count, 0, UINT32_MAX), .kinds = ALL_SOURCES,
	 .doc = "the most agents it adds; 0: no limit"},
	{.name = "start", NUMBER(sf_source, def.start, SF_NON_NEGATIVE), .unit = "s", .kinds = ALL_SOURCES,
	 .doc = "when the first is due"},
	{.name = "stop", .type = SF_T_OTHER, .part = SF_SOURCE_STOP, .type_doc = "number", .def = "never",
	 .kinds = ALL_SOURCES, .doc = "[0, 1e6] s, after `start`: no agent is due at or after it"},
	{.name = "archetype", .type = SF_T_OTHER, .part = SF_SOURCE_ARCHETYPE, .type_doc = "name", .required = true,
	 .kinds = ALL_SOURCES, .expect = "the name of an archetype under archetypes",
	 .doc = "the agents' archetype, by name"},
	{.name = "id", WHOLE(sf_source, def.agent.group, 0, UINT32_MAX - 1u), .kinds = ALL_SOURCES,
	 .doc = "the agents' group label"},
	{.name = "max_speed", NUMBER(sf_source, def.agent.max_speed, SF_POSITIVE), .unit = "m/s", .kinds = ALL_SOURCES,
	 .note = "(or the archetype's preset's)"},
	{.name = "max_force", NUMBER(sf_source, def.agent.max_force, SF_POSITIVE), .unit = "m/s²",
	 .kinds = ALL_SOURCES, .note = "(or the archetype's preset's)"},
	{.name = "body_radius", NUMBER(sf_source, def.agent.radius, SF_POSITIVE), .unit = "m", .kinds = ALL_SOURCES,
	 .note = "(or the archetype's preset's)", .doc = "the agents' radius (`radius` is a circle source's)"},
	{.name = "goal", POINT(sf_source, def.agent.target, SF_COORD), .unit = "m", .kinds = ALL_SOURCES,
	 .doc = "the agents' target point"},
	{.name = "relative_goal", FLAG(sf_source, def.relative_target), .kinds = ALL_SOURCES,
	 .doc = "true: `goal` is added to the point each agent comes in at, so each walks that far that way and a "
	        "stream keeps its width (`throng_source_def.relative_target`)"},
	{.name = "heading", POINT(sf_source, def.agent.heading, SF_COORD), .kinds = ALL_SOURCES,
	 .def = "`[0, 0]`: none",
	 .doc = "the agents' heading as they come in, normalised (its length more than 1e-6); `[0, 0]`: the "
	        "library's (along the velocity, or +x at rest)"},
	{.name = "speed", NUMBER(sf_source, speed, SF_NON_NEGATIVE), .unit = "m/s", .kinds = ALL_SOURCES,
	 .doc = "the agents' speed along `heading` as they come in (it needs a heading); at most `max_speed`"},
};
#undef ALL_SOURCES
#undef R

const sf_table sf_source_table = {.name = "source",
                                  KEYS(source_keys),
                                  .defaults = source_defaults,
                                  .check = check_source_times,
                                  .size = sizeof(sf_source),
                                  .kind_names = &thr_source_shape_names,
                                  .key_header = "key",
                                  .kinds_header = "shapes"};

// ---------------------------------------------------------------------------
// A path (a group's, in its mapping form)
// ---------------------------------------------------------------------------

static const sf_key path_keys[] = {
	{.name = "waypoints", .type = SF_T_OTHER, .type_doc = "list of points", .required = true,
	 .expect = "a list of 1 to 4096 points [x, y]", .doc = "1 to 4096 points"},
	{.name = "loop", FLAG(sf_path, loop), .doc = "after the last waypoint, the first again"},
	{.name = "end_at_goal", FLAG(sf_path, end_at_goal),
	 .doc = "each agent gets a path of its own: the waypoints, then its goal (the group needs a goal; not with "
	        "`loop`)"},
};
_Static_assert(THRONG_MAX_WAYPOINTS == 4096, "the waypoints row of path_keys states the limit");

/// end_at_goal: a path with an end.
static void check_path(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	const sf_path* p = base;
	(void)failed;
	if (p->end_at_goal && p->loop) {
		sf_error_at(c, "end_at_goal", sf_get(map, "end_at_goal")->pos,
		            "true on a looping path, which has no end (expected loop: false)");
	}
}

const sf_table sf_path_table = {.name = "path", KEYS(path_keys), .size = sizeof(sf_path),
                                .check = check_path,
                                .expect = "a list of waypoints [[x, y], ...] or {waypoints: [...], loop: false}"};

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
	 .expect = "a whole number from 1 to 10000000", .doc = "1 to 10,000,000 (all groups together at most 10,000,000)"},
	{.name = "archetype", OTHER(SF_GROUP_ARCHETYPE, "name"), .required = true,
	 .expect = "the name of an archetype under archetypes", .doc = "the name of an archetype under `archetypes`"},
	{.name = "id", WHOLE(sf_group, id, 0, UINT32_MAX - 1u), .def = "the group's index (0, 1, ...)",
	 .doc = "the agents' group label (`throng_agent_def.group`); groups may share one (an army of several groups); "
	        "target rules and `same_group_only` use it"},
	{.name = "spawn", OTHER(SF_GROUP_SPAWN, "mapping"), .required = true,
	 .expect = "a mapping with shape and its parameters", .doc = "the shape, [below](#spawn)"},
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
	{.name = "morale", OTHER(SF_GROUP_MORALE, "mapping"), .def = "none (no unit)",
	 .doc = "version 2: the group is one unit, which breaks and runs together, [below](#morale) "
	        "([ARMIES.md](ARMIES.md))"},
	{.name = "formation", OTHER(SF_GROUP_FORMATION, "mapping"), .def = "none",
	 .doc = "version 2, with `morale`: the unit marches in ranks, [below](#formation)"},
	{.name = "orders", OTHER(SF_GROUP_ORDERS, "list"), .def = "none",
	 .doc = "version 2, with `formation`: what the unit is told to do and when, [below](#orders)"},
};
#undef OTHER

const sf_table sf_group_table = {.name = "group",
                                 .expect = "a mapping with count, archetype and spawn",
                                 KEYS(group_keys),
                                 .defaults = group_defaults,
                                 .size = sizeof(sf_group)};

// ---------------------------------------------------------------------------
// Sections the key reference describes in prose (docs/SCENARIOS.md): the
// top level, the threat, a polyline, a goal or a rectangle as a mapping,
// agents rows. Their rows still drive the key checks and the reading.
// ---------------------------------------------------------------------------

#define PART(p) .type = SF_T_OTHER, .part = (p)
#define COLUMN(key, field, r) {.name = (key), NUMBER(throng_agent_def, field, r)}
static const sf_key row_keys[] = {
	COLUMN("x", position.x, SF_COORD),
	COLUMN("y", position.y, SF_COORD),
	COLUMN("vx", velocity.x, SF_COORD),
	COLUMN("vy", velocity.y, SF_COORD),
	COLUMN("hx", heading.x, SF_COORD),
	COLUMN("hy", heading.y, SF_COORD),
	COLUMN("tx", target.x, SF_COORD),
	COLUMN("ty", target.y, SF_COORD),
	COLUMN("max_speed", max_speed, SF_POSITIVE),
	COLUMN("max_force", max_force, SF_POSITIVE),
	COLUMN("radius", radius, SF_POSITIVE),
	{.name = "archetype", .type = SF_T_OTHER},
	{.name = "group", WHOLE(throng_agent_def, group, 0, UINT32_MAX - 1u)},
	{.name = "path", .type = SF_T_OTHER},
};
#undef COLUMN

const sf_table sf_row_table = {.name = "agents row", KEYS(row_keys)};

static const sf_key scene_keys[] = {
	{.name = "version", PART(SF_SCENE_VERSION)},
	{.name = "name", PART(SF_SCENE_NAME)},
	{.name = "description", PART(SF_SCENE_DESCRIPTION)},
	{.name = "steps", WHOLE(sf_model, steps, 0, 1000000000u)},
	{.name = "goal_radius", NUMBER(sf_model, goal_radius, SF_NON_NEGATIVE)},
	{.name = "measure", PART(SF_SCENE_MEASURE)},
	{.name = "world", .type = SF_T_MAP, .sub = &sf_world_table},
	{.name = "archetypes", PART(SF_SCENE_ARCHETYPES), .required = true,
	 .expect = "a mapping from archetype names to archetypes"},
	{.name = "groups", PART(SF_SCENE_GROUPS)},
	{.name = "obstacles", PART(SF_SCENE_OBSTACLES)},
	{.name = "walls", PART(SF_SCENE_WALLS)},
	{.name = "threat", PART(SF_SCENE_THREAT)},
	{.name = "paths", PART(SF_SCENE_PATHS)},
	{.name = "agents", PART(SF_SCENE_AGENTS)},
	{.name = "measurements", PART(SF_SCENE_MEASUREMENTS)},
	{.name = "zones", PART(SF_SCENE_ZONES)},
	{.name = "sources", PART(SF_SCENE_SOURCES)},
};

static const sf_key measurements_keys[] = {
	{.name = "lines", PART(1), .expect = "a list of lines [[x, y], [x, y]]"},
	{.name = "areas", PART(2), .expect = "a list of polygons [[x, y], [x, y], [x, y], ...]"},
};

const sf_table sf_measurements_table = {.name = "measurements", KEYS(measurements_keys),
                                        .expect = "{lines: [[[x, y], [x, y]], ...], areas: [[[x, y], ...], ...]}"};

const sf_table sf_scene_table = {.name = "scene", KEYS(scene_keys),
                                 .expect = "a mapping with world, archetypes, groups, obstacles, walls and threat"};

static const sf_key line_keys[] = {
	{.name = "from", POINT(sf_threat, position, SF_COORD), .required = true, .expect = "a point [x, y]"},
	{.name = "velocity", POINT(sf_threat, velocity, SF_COORD), .required = true, .expect = "a point [x, y]"},
	{.name = "active_min", POINT(sf_threat, active_min, SF_COORD), .required = true, .expect = "a point [x, y]"},
	{.name = "active_max", POINT(sf_threat, active_max, SF_COORD), .required = true, .expect = "a point [x, y]"},
};

static const sf_table line_table = {
	.name = "line", KEYS(line_keys),
	.expect = "{from: [x, y], velocity: [vx, vy], active_min: [x, y], active_max: [x, y]}"};

/// Which of position, path, line and external the threat is: one of them.
static void check_threat(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	sf_threat* t = base;
	const sf_node* pos = sf_get(map, "position");
	const sf_node* path = sf_get(map, "path");
	const sf_node* line = sf_get(map, "line");
	const sf_node* ext = sf_get(map, "external");
	if (pos == NULL && path == NULL && line == NULL && ext == NULL) {
		sf_missing(c, map, "position", "position: [x, y], or path: [[x, y], ...] with a speed");
		return;
	}
	const sf_node* at = ext != NULL ? ext : line != NULL ? line : path;
	size_t mark = sf_push_key(c, ext != NULL ? "external" : line != NULL ? "line" : "path");
	bool on = false;
	if (ext != NULL && map->count != 1u) {
		sf_error(c, at->pos, "given with other keys (expected threat: {external: true} alone)");
	} else if (ext != NULL && sf_read_bool(c, ext, &on) && !on) {
		sf_error(c, at->pos, "got false (expected true, or no threat section)");
	} else if (ext != NULL) {
		t->kind = on ? SF_THREAT_EXTERNAL : SF_THREAT_NONE;
	} else if (line != NULL && (pos != NULL || path != NULL)) {
		sf_error(c, at->pos, "both line and %s given (expected one of them)", pos != NULL ? "position" : "path");
	} else if (line != NULL) {
		t->kind = (failed & (1ull << 5)) == 0 ? SF_THREAT_LINE : SF_THREAT_NONE;
	} else if (pos != NULL && path != NULL) {
		sf_error(c, at->pos, "both position and path given (expected one of them)");
	} else if (path != NULL) {
		t->kind = SF_THREAT_PATH;
	}
	sf_pop(c, mark);
	static const char* const path_only[] = {"speed", "loop"};
	for (int k = 0; k < 2 && at == NULL; ++k) {
		const sf_node* v = sf_get(map, path_only[k]);
		t->kind = SF_THREAT_POINT;
		if (v != NULL) {
			mark = sf_push_key(c, path_only[k]);
			sf_error(c, v->pos, "only a threat with a path has a %s (expected path: [[x, y], ...])", path_only[k]);
			sf_pop(c, mark);
		}
	}
}

static const sf_key threat_keys[] = {
	{.name = "position", POINT(sf_threat, position, SF_COORD)},
	{.name = "path", PART(1)},
	{.name = "speed", NUMBER(sf_threat, speed, SF_POSITIVE)},
	{.name = "loop", FLAG(sf_threat, path.loop)},
	{.name = "start", NUMBER(sf_threat, start, SF_NON_NEGATIVE)},
	{.name = "line", .type = SF_T_MAP, .sub = &line_table},
	{.name = "external", .type = SF_T_OTHER},
};

const sf_table sf_threat_table = {.name = "threat", KEYS(threat_keys), .check = check_threat,
                                  .expect = "a mapping with position, or path and speed"};

static const sf_key wall_keys[] = {
	{.name = "points", PART(1), .required = true, .expect = "a list of 2 or more points [x, y]"},
	{.name = "closed", FLAG(sf_wall, closed)},
};

const sf_table sf_wall_table = {
	.name = "wall", KEYS(wall_keys),
	.expect = "a segment [[x, y], [x, y]] or a polyline {points: [...], closed: false}"};

/// A rectangle: max at or above min on both axes (when both were read).
static void check_box(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	const sf_box* b = base;
	if (failed != 0 || (b->max.x >= b->min.x && b->max.y >= b->min.y)) {
		return;
	}
	sf_error_at(c, "max", sf_get(map, "max")->pos,
	            "got (%g, %g), below min (%g, %g) (expected max.x >= min.x and max.y >= min.y)", (double)b->max.x,
	            (double)b->max.y, (double)b->min.x, (double)b->min.y);
}

static const sf_key box_keys[] = {
	{.name = "min", POINT(sf_box, min, SF_COORD), .required = true, .expect = "a point [x, y]"},
	{.name = "max", POINT(sf_box, max, SF_COORD), .required = true, .expect = "a point [x, y]"},
};

const sf_table sf_box_table = {
	.name = "box", KEYS(box_keys), .check = check_box,
	.expect = "a rectangle {min: [x, y], max: [x, y]}"};

static const sf_key goal_keys[] = {
	{.name = "random", PART(1)},
	{.name = "offset", POINT(sf_group, goal_offset, SF_COORD)},
};

/// A goal mapping: random or offset, one of them.
static void check_goal(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	sf_group* g = base;
	const sf_node* off = sf_get(map, "offset");
	if (off != NULL && sf_get(map, "random") != NULL) {
		sf_error_at(c, "offset", off->pos, "both random and offset given (expected one of them)");
	} else if (off != NULL && (failed & 2u) == 0) {
		g->goal = SF_GOAL_OFFSET;
	} else if (off == NULL && sf_get(map, "random") == NULL) {
		sf_missing(c, map, "random", "{min: [x, y], max: [x, y]}, or offset: [dx, dy]");
	}
}

const sf_table sf_goal_table = {.name = "goal", KEYS(goal_keys), .check = check_goal};

static const sf_key agents_keys[] = {
	{.name = "goal", PART(1)},
	{.name = "rows", PART(2), .required = true,
	 .expect = "a list of rows [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, archetype, group, path]"},
};

const sf_table sf_agents_table = {
	.name = "agents", KEYS(agents_keys), .expect = "a mapping with rows (and goal)"};

static const sf_key agents_goal_keys[] = {
	{.name = "random", PART(3), .required = true, .expect = "a rectangle {min: [x, y], max: [x, y]}"},
};

const sf_table sf_agents_goal_table = {
	.name = "agents goal", KEYS(agents_goal_keys), .expect = "{random: {min: [x, y], max: [x, y]}}"};
#undef PART

const sf_table* const sf_doc_tables[] = {&sf_world_table,       &sf_archetype_table, &sf_target_rule_table,
                                         &sf_contact_table,     &sf_combat_table,    &sf_slot_table,
                                         &sf_param_table,
                                         &sf_group_table,       &sf_spawn_table,     &sf_path_table,
                                         &sf_morale_table,      &sf_formation_table, &sf_order_table,
                                         &sf_obstacle_table,    &sf_zone_table,      &sf_source_table};
const uint32_t sf_doc_table_count = sizeof sf_doc_tables / sizeof sf_doc_tables[0];
