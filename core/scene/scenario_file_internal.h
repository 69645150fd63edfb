// SPDX-License-Identifier: MIT
// Scenario files (private): the node tree, the diagnostics context, the
// scene model, and the stages between them.
//
// Design. Loading is staged so that nothing is built before everything has
// been checked, and the reader is layered, each layer calling only those
// below it:
//   scenario_file_diag.c   messages (FILE:LINE:COL, the field's path, kept
//                          in file order), nearest-name suggestions, tree
//                          access; calls nothing of the reader
//   scenario_file_yaml.c   bytes -> node tree (UTF-8, libyaml events, depth,
//                          one document; every node keeps its line and column)
//   scenario_file_read.c   typed readers over nodes (numbers, names, vectors,
//                          enums) and key checks (unknown, repeated, missing)
//   scenario_file_model.c  the model's defaults, names and freeing
//   scenario_file_tables.c the key tables, one a section: one row a key
//                          drives the reader, the writer and the key
//                          reference in docs/SCENARIOS.md
//   scenario_file_keys.c   the table engine: reads a mapping through its
//                          table, lists and named sections, writes values
//                          and the key reference
//   scenario_file_units.c  a group's morale block: its key table, reader
//                          and checks, and the units and routing
//                          archetypes it builds
//   scenario_file_presets.c the presets an archetype can name (`preset:
//                          pedestrian`): a C constructor of the library
//                          and the body its groups take
//   scenario_file_groups.c, _shapes.c, _rows.c, _refs.c: what rows cannot
//                          say (names, choices, lists of points, agents
//                          rows) and the checks within a section, or, for
//                          refs, between sections (names, dangling
//                          references, unreachable goals)
//   scenario_file_parse.c  tree -> model: the top level and archetypes, then
//                          the checks across sections; the reader's top
//   scenario_file_build.c  model -> scene (world, agents, the per-step script,
//                          the outcome measure it names)
//   scenario_file.c        the public load, validate and save functions, and
//                          a file scene's scenario entry
//   scenario_file_save.c   model -> YAML (every field explicit)
// The model keeps everything a file said (defaults resolved), so a loaded
// scene can be saved and loaded again to the same world. A built-in's
// model also holds its agents as a block (sf_block: a count, a maker and
// the maker's parameters) rather than as rows: the builder and the writer
// make its agents one by one, so the definition of a large scene stays
// small.
#ifndef THRONG_CORE_SCENARIO_FILE_INTERNAL_H
#define THRONG_CORE_SCENARIO_FILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "scenario_internal.h"
#include "throng/scenario_file.h"

/// Most archetypes and groups one file declares (keeps name checks cheap).
#define SF_MAX_ARCHETYPES 256u
#define SF_MAX_GROUPS 1024u
/// Most nodes (values, keys, containers) one file holds: the bound on the
/// memory a file of at most THRONG_MAX_FILE_SIZE bytes can take.
#define SF_MAX_NODES 2000000u
/// Most obstacles one file declares. Each takes at least 7 nodes ({center:
/// [x, y], radius: r}: the mapping, 2 keys, the list, 3 numbers), so the
/// node limit allows 285,714: 250,000 leaves room for the rest of a file.
#define SF_MAX_OBSTACLES 250000u
/// Most wall segments (and walls) one file declares. A polyline takes at
/// least 3 nodes a point (1,500,000 for 500,000 segments); segments
/// written one by one ([[x, y], [x, y]]) take 7 each, so at most 285,714
/// of them fit in SF_MAX_NODES.
#define SF_MAX_SEGMENTS 500000u
/// Most measurement lines, and most areas, one file declares (`throng run`'s
/// summary reports each).
#define SF_MAX_MEASURE_LINES 16u
#define SF_MAX_MEASURE_AREAS 16u
_Static_assert(7u * SF_MAX_OBSTACLES < SF_MAX_NODES, "SF_MAX_OBSTACLES obstacles must fit in SF_MAX_NODES");
_Static_assert(3u * (SF_MAX_SEGMENTS + 1u) + 3u < SF_MAX_NODES, "a polyline of SF_MAX_SEGMENTS must fit in SF_MAX_NODES");
/// Longest name (archetype, group, scene) in bytes.
#define SF_NAME_MAX 63u
/// Longest description in bytes.
#define SF_DESCRIPTION_MAX 200u
/// Longest field path kept for a message.
#define SF_PATH_CAP 160u

// ---------------------------------------------------------------------------
// The node tree
// ---------------------------------------------------------------------------

typedef struct sf_pos {
	uint32_t line, column; ///< 1-based
} sf_pos;

typedef enum sf_kind {
	SF_SCALAR = 0,
	SF_SEQUENCE,
	SF_MAPPING,
	SF_BAD, ///< an alias or a tagged node, already reported; readers skip it silently
} sf_kind;

typedef struct sf_node {
	sf_kind kind;
	sf_pos pos;
	bool plain;             ///< scalar: plain style (numbers, booleans and null must be plain)
	char* text;             ///< scalar: NUL-terminated text
	size_t len;             ///< scalar: bytes of text (may include NULs from escapes)
	struct sf_node** items; ///< sequence: items; mapping: key0, value0, key1, value1, ...
	uint32_t count;         ///< sequence: items; mapping: pairs
	uint32_t cap;           ///< allocated entries of items
} sf_node;

// ---------------------------------------------------------------------------
// Diagnostics and tree access (scenario_file_diag.c)
// ---------------------------------------------------------------------------

/// A problem kept until sf_ctx_finish() sorts and reports it.
typedef struct sf_problem {
	sf_pos pos;
	uint32_t seq;  ///< order found (ties at one position keep it)
	char* path;
	char* message;
	bool warning;  ///< reported, but the file stays valid
} sf_problem;

typedef struct sf_ctx {
	const char* file;
	throng_diagnostic_fn report;
	void* user;
	uint32_t problems;            ///< found so far (kept or not)
	uint32_t warnings;            ///< likewise, warnings (not problems)
	sf_problem* kept;             ///< the first THRONG_MAX_DIAGNOSTICS found
	uint32_t kept_count;
	char first[512];              ///< after sf_ctx_finish: the first problem, formatted
	char path[SF_PATH_CAP];       ///< path of the field being read ("" = document)
	size_t path_len;
	/// The last keys suggested for a misspelt key ("did you mean count?")
	/// and their mappings, so that the key is not also reported missing.
	const sf_node* typo_map[16];
	const char* typo_key[16];
	uint32_t typo_count;
} sf_ctx;

void sf_ctx_init(sf_ctx* c, const char* file, throng_diagnostic_fn report, void* user);
/// Reports the kept problems in file order (line, then column), fills
/// `first` and frees them. Call once, at the end of every public call.
void sf_ctx_finish(sf_ctx* c);

/// Records a problem at `pos` for the current path.
void sf_error(sf_ctx* c, sf_pos pos, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/// As sf_error, for the current path's field `key`.
void sf_error_at(sf_ctx* c, const char* key, sf_pos pos, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/// Records a warning at `pos` for the current path: reported with the
/// problems, but the file stays valid.
void sf_warning(sf_ctx* c, sf_pos pos, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/// Appends ".key" ("key" at the top) or "[index]" to the path; returns the
/// mark to give sf_pop.
size_t sf_push_key(sf_ctx* c, const char* key);
size_t sf_push_index(sf_ctx* c, uint32_t index);
void sf_pop(sf_ctx* c, size_t mark);

/// The known name nearest to `word` by edit distance (transpositions count
/// one), or NULL when none is close enough to be a likely typo.
const char* sf_nearest(const char* word, const char* const* names, size_t count);

/// "a, b, c" into buf (cut with "..." when it does not fit).
void sf_join(const char* const* names, size_t count, char* buf, size_t cap);

/// The text of a scalar key, or NULL for other keys (and keys holding NULs).
const char* sf_key_text(const sf_node* k);
/// A malloc'd copy of a string; NULL when out of memory.
char* sf_copy(const char* s);
/// A malloc'd copy of a scalar's text; NULL for other nodes or out of memory.
char* sf_copy_text(const sf_node* n);
/// The value of `key` in a mapping (its first occurrence), or NULL.
const sf_node* sf_get(const sf_node* map, const char* key);
/// Whether key k of a mapping repeats an earlier key (its entry is then
/// skipped: the repeat is the problem, already reported).
bool sf_key_repeats(const sf_node* map, uint32_t k);
bool sf_is_null(const sf_node* n);
/// Whether a plain scalar reads as a decimal number, a spelling of NaN or
/// infinity, or neither.
enum { SF_NUM_NOT = 0, SF_NUM_DECIMAL, SF_NUM_NONFINITE };
int sf_number_kind(const char* s, size_t len);
/// "a mapping", "a sequence", "null", "true", "a string \"abc\"", "3.5".
void sf_describe(const sf_node* n, char* buf, size_t cap);

// ---------------------------------------------------------------------------
// Stage 1: bytes -> tree (scenario_file_yaml.c)
// ---------------------------------------------------------------------------

/// Parses one YAML document into a tree. Returns NULL after reporting the
/// problem when the bytes are not one well-formed document (invalid UTF-8,
/// syntax, several documents, too deep, too many nodes, empty).
sf_node* sf_read_yaml(sf_ctx* c, const unsigned char* data, size_t size);
void sf_node_free(sf_node* n);

// ---------------------------------------------------------------------------
// Typed readers and key checks (scenario_file_read.c). Each reports under
// the current path and returns false on a problem, leaving *out unchanged.
// ---------------------------------------------------------------------------

/// The ranges of validate.c.
typedef enum sf_range {
	SF_POSITIVE = 0,   ///< finite, in [1e-6, 1e6]
	SF_NON_NEGATIVE,   ///< finite, 0 or in [1e-6, 1e6]
	SF_COORD,          ///< finite, |v| <= 1e6
	SF_DT,             ///< finite, in [FLT_MIN, 1]
	SF_ANGLE,          ///< finite, |v| <= 1e6 rad (a start angle)
	SF_FEELER,         ///< finite, in [0, pi]
	SF_FRACTION,       ///< finite, in [1e-6, 1]
	SF_SHARE,          ///< finite, 0 or in [1e-6, 1]
	SF_UNIT,           ///< finite, in [0, 1]
	SF_SIGNED_UNIT,    ///< finite, in [-1, 1]
	SF_POSITIVE_1E3,   ///< finite, in [1e-6, 1e3] (a formation's spacings, speed and turn rate)
} sf_range;

bool sf_read_number(sf_ctx* c, const sf_node* n, sf_range range, float* out);
bool sf_read_uint(sf_ctx* c, const sf_node* n, uint64_t min, uint64_t max, bool hex, uint64_t* out);
bool sf_read_bool(sf_ctx* c, const sf_node* n, bool* out);
/// One of names[0..count); `what` names the kind in messages ("bounds mode").
bool sf_read_enum(sf_ctx* c, const sf_node* n, const char* const* names, size_t count, const char* what,
                  int* out);
bool sf_read_vec2(sf_ctx* c, const sf_node* n, sf_range range, throng_vec2* out);
/// A list of [x, y] points, min..max of them; *out is malloc'd.
bool sf_read_points(sf_ctx* c, const sf_node* n, uint32_t min, uint32_t max, throng_vec2** out,
                    uint32_t* count);
/// Any string up to `max` bytes, one line, no control characters; malloc'd.
bool sf_read_string(sf_ctx* c, const sf_node* n, size_t max, char** out);
/// A name: 1..SF_NAME_MAX letters, digits, '_' or '-'.
bool sf_check_name(sf_ctx* c, const sf_node* n, const char* what);
/// A checked name into *out (malloc'd, replacing the old one).
bool sf_read_name(sf_ctx* c, const sf_node* n, const char* what, char** out);
/// The index of `name` in names[0..count); else reports it at `pos` with
/// the nearest known name ("unknown group \"x\", did you mean y?") and
/// returns count. `what` is "group", `section` where they are defined.
uint32_t sf_resolve(sf_ctx* c, sf_pos pos, const char* what, const char* section, const char* name,
                    const char* const* names, uint32_t count);

/// Reports `n` unless it is a mapping; `expected` completes "(expected ...)".
bool sf_expect_mapping(sf_ctx* c, const sf_node* n, const char* expected);
bool sf_expect_sequence(sf_ctx* c, const sf_node* n, const char* expected);

/// Checks a mapping's keys against a key table: reports non-scalar keys,
/// unknown keys (with the nearest known one) and repeated keys. For a
/// table whose rows depend on a kind (a slot, a spawn shape), the keys are
/// `lead` (the kind's own key and those every kind takes), then the rows
/// kind `kind` takes (every row when kind < 0, the kind unknown); a row of
/// another kind is reported as "not a parameter of <kind>".
typedef struct sf_table sf_table;
void sf_check_kind_keys(sf_ctx* c, const sf_node* map, const char* const* lead, size_t nlead, const sf_table* t,
                        int kind);
/// Checks the keys of a mapping of names (archetypes, groups): each a
/// valid name, none repeated. `what` is "archetype" or "group".
void sf_check_names(sf_ctx* c, const sf_node* map, const char* what);

/// Reports a missing required key of `map` (at the mapping's position).
void sf_missing(sf_ctx* c, const sf_node* map, const char* key, const char* expected);

// ---------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------

typedef enum sf_shape {
	SF_SHAPE_RING = 0,  ///< evenly spaced on a circle
	SF_SHAPE_DISC,      ///< uniformly random in a disc
	SF_SHAPE_RECTANGLE, ///< uniformly random in an axis-aligned rectangle
	SF_SHAPE_GRID,      ///< a regular lattice centred on a point
	SF_SHAPE_LINE,      ///< evenly spaced on a segment, both ends included
	SF_SHAPE_COUNT
} sf_shape;

typedef enum sf_heading {
	SF_HEADING_NONE = 0, ///< the library's: from the velocity, or +x at rest
	SF_HEADING_RANDOM,
	SF_HEADING_INWARD,   ///< towards the shape's centre
	SF_HEADING_OUTWARD,
	SF_HEADING_GOAL,     ///< towards the agent's goal point
	SF_HEADING_VECTOR,   ///< a fixed direction (normalised)
	SF_HEADING_COUNT
} sf_heading;

typedef enum sf_goal {
	SF_GOAL_NONE = 0,   ///< the library's default target (0, 0)
	SF_GOAL_ANTIPODAL,  ///< the spawn position mirrored through the shape's centre
	SF_GOAL_POINT,      ///< one point for the whole group
	SF_GOAL_RANDOM,     ///< uniform in a rectangle, drawn again on arrival
	SF_GOAL_OFFSET,     ///< the spawn position moved by a fixed offset
} sf_goal;

typedef struct sf_path {
	throng_vec2* points; ///< malloc'd; NULL when count is 0
	uint32_t count;
	bool loop;
	bool end_at_goal;    ///< groups: each agent's own path, the waypoints then its goal
} sf_path;

typedef struct sf_spawn {
	sf_shape shape;
	throng_vec2 center;  ///< ring, disc, rectangle, grid (m)
	float radius;        ///< ring, disc (m)
	float angle;         ///< ring: angle of the first agent (rad)
	throng_vec2 size;    ///< rectangle: width and height (m)
	throng_vec2 spacing; ///< grid: distance between columns and rows (m)
	uint32_t columns;    ///< grid; resolved (never 0 in a parsed model)
	float jitter;        ///< grid: largest random nudge off a lattice point, per axis (m)
	throng_vec2 from, to; ///< line (m)
} sf_spawn;

struct sf_preset;

typedef struct sf_archetype {
	char* name;
	sf_pos pos;
	throng_controller controller; ///< target_rule.group resolved from target_group
	char* target_group;           ///< the target rule's group name; NULL without a rule
	sf_pos target_group_pos;
	bool target_label;            ///< version 2: the rule names a group label (label: N), not a group
	bool combat;                  ///< version 2: a `combat` mapping was given (at combat_pos)
	sf_pos combat_pos;
	/// `preset: NAME`: the preset the controller started from (its keys
	/// override it), whose body the archetype's groups take; NULL: none.
	/// Not written by the saver, which writes the controller out.
	const struct sf_preset* preset;
	bool preset_bad;              ///< a `preset` was given but not read: its groups' bodies are unknown
} sf_archetype;

/// Version 2: one order of a group's `orders` timeline.
typedef struct sf_order {
	float at;           ///< s: given before the first step that starts at or after it (steps * dt >= at)
	throng_order order; ///< as written: a turn's direction is not normalised here
	sf_pos pos;
} sf_order;

/// Most orders one group's timeline holds.
#define SF_MAX_ORDERS 4096u

typedef struct sf_group {
	char* name;
	sf_pos pos;
	uint32_t count;
	char* archetype_name;
	sf_pos archetype_pos;
	uint32_t archetype; ///< resolved index
	uint32_t id;        ///< the agents' group label
	sf_spawn spawn;
	sf_pos spawn_pos;
	float max_speed, max_force, radius;
	float speed;        ///< initial speed (m/s)
	sf_heading heading;
	throng_vec2 heading_vector;
	sf_goal goal;
	throng_vec2 goal_point;
	throng_vec2 goal_min, goal_max; ///< SF_GOAL_RANDOM
	throng_vec2 goal_offset;        ///< SF_GOAL_OFFSET
	sf_path path;       ///< count 0: no path
	/// Version 2 `morale`: the group is one unit (throng/units.h) with
	/// this morale and refuge; the build sets unit.archetype, army and
	/// rout_archetype.
	bool morale;
	sf_pos morale_pos;
	throng_unit_def unit;
	char* rout_name;          ///< `rout_archetype`, malloc'd; NULL: the routing archetype made from `archetype`
	sf_pos rout_pos;
	uint32_t rout_archetype;  ///< rout_name's model index (resolved)
	/// Version 2 `formation` (beside `morale`): its keys are in
	/// unit.formation; the build sets unit.march_archetype.
	bool formation;
	sf_pos formation_pos;
	char* march_name;         ///< `march_archetype`, malloc'd; NULL: the march archetype made from `archetype`
	sf_pos march_pos;
	uint32_t march_archetype; ///< march_name's model index (resolved)
	/// Version 2 `orders`: the unit's timeline, in time order.
	sf_order* orders;         ///< malloc'd; NULL when order_count is 0
	uint32_t order_count;
	sf_pos orders_pos;
} sf_group;

typedef struct sf_obstacle {
	throng_vec2 center;
	float radius;
} sf_obstacle;

typedef struct sf_wall {
	throng_vec2* points; ///< malloc'd, count >= 2
	uint32_t count;
	bool closed;         ///< also joins the last point to the first
	bool segment;        ///< written as [[x, y], [x, y]] (two points, not closed)
} sf_wall;

typedef enum sf_threat_kind {
	SF_THREAT_NONE = 0,
	SF_THREAT_POINT,
	SF_THREAT_PATH,
	SF_THREAT_LINE, ///< version 2: a straight line at constant velocity, active inside a box
	SF_THREAT_EXTERNAL, ///< version 2: set by the program running the scene (the viewer's mouse)
} sf_threat_kind;

typedef struct sf_threat {
	sf_threat_kind kind;
	throng_vec2 position; ///< SF_THREAT_POINT
	sf_path path;         ///< SF_THREAT_PATH
	float speed;          ///< along the path (m/s)
	float start;          ///< when it appears (s)
	throng_vec2 velocity; ///< SF_THREAT_LINE (m/s); position is where it is at `start`
	throng_vec2 active_min, active_max; ///< SF_THREAT_LINE: the box it is active in
} sf_threat;

/// Version 2 `zones`: a zone of the world (its def as
/// throng_world_add_zone takes it; a polygon's points malloc'd here).
typedef struct sf_zone {
	throng_zone_def def; ///< def.points is NULL in the model: see points
	throng_vec2* points; ///< polygon, point_count of them, malloc'd
	uint32_t point_count;
	sf_pos pos;
} sf_zone;

/// Version 2 `sources`: a source (its def as throng_world_add_source
/// takes it, the agent's archetype a model index).
typedef struct sf_source {
	throng_source_def def;  ///< def.agent.heading: unit or (0, 0); def.agent.velocity: heading * speed
	float speed;            ///< the agents' speed along the heading (m/s)
	char* archetype_name;   ///< malloc'd
	sf_pos archetype_pos;
	sf_pos pos;
} sf_source;

/// Most zones and sources a file declares: the world's own limits.
#define SF_MAX_ZONES THRONG_MAX_ZONES
#define SF_MAX_SOURCES THRONG_MAX_SOURCES

struct thr_measure;

/// A block of agents a built-in generates rather than lists: it stands for
/// `count` rows after agents.rows, made one at a time when they are
/// needed, so a definition of 10^6 agents holds no 10^6 rows. The builder
/// spawns it in batches (scenario_file_build.c) and the writer writes it
/// row by row (scenario_file_save.c): a saved file has rows, never a block.
/// The model owns params and points; a file's model has no block.
typedef struct sf_block {
	uint32_t count;       ///< agents it makes; 0: no block
	thr_block_maker make; ///< agent i of the block (its archetype a model index, as a row's)
	void* params;         ///< the maker's parameters (plain values, no pointers): malloc'd, params_size bytes
	size_t params_size;
	throng_vec2* points;  ///< per-agent points its layout drew and cannot redraw one by one
	                      ///< (a scatter's darts), malloc'd, count of them; or NULL
} sf_block;

typedef struct sf_model {
	char* name;             ///< malloc'd
	char* description;      ///< malloc'd
	uint64_t steps;
	float goal_radius;
	throng_vec2 bounds_min, bounds_max;
	throng_bounds_mode bounds_mode;
	float dt;
	uint64_t seed;
	float cell_size;
	sf_archetype* archetypes;
	uint32_t archetype_count;
	sf_group* groups;
	uint32_t group_count;
	uint64_t agents;        ///< sum of the groups' counts
	sf_obstacle* obstacles;
	uint32_t obstacle_count;
	sf_wall* walls;
	uint32_t wall_count;
	sf_threat threat;
	uint32_t version;       ///< 1, or 2 when a version 2 key is used
	// Version 2: explicit data, what the built-in scenes need beyond shapes.
	sf_path* paths;         ///< `paths`: world paths 0.. (before any group's)
	uint32_t path_count;
	throng_agent_def* rows; ///< `agents.rows`: agents after the groups' (archetype and path are model indices)
	sf_pos* row_pos;        ///< where each row is (NULL for a built-in's definition)
	uint32_t row_count;
	sf_block block;         ///< a built-in's agents after the rows (count 0 in a file's model)
	sf_pos rows_pos;
	bool rows_random;       ///< `agents.goal: {random: ...}`: drawn again on arrival (rounds 1, 2, ...)
	throng_vec2 rows_goal_min, rows_goal_max;
	const struct thr_measure* measure; ///< version 2 `measure`: the outcome measure, or NULL
	sf_path* measure_lines; ///< version 2 `measurements.lines`: segments of 2 points (loop unused)
	uint32_t measure_line_count;
	sf_path* measure_areas; ///< version 2 `measurements.areas`: simple polygons of 3 or more points
	uint32_t measure_area_count;
	sf_zone* zones;         ///< version 2 `zones`
	uint32_t zone_count;
	sf_source* sources;     ///< version 2 `sources`
	uint32_t source_count;
} sf_model;

/// The defaults of every model field (docs/SCENARIOS.md); name from `file`.
void sf_model_defaults(sf_model* m, const char* file);
void sf_model_free(sf_model* m);
/// Row k of the agents after the groups: agents.rows[k], or agent
/// k - row_count of the block (k < row_count + block.count).
void sf_model_row(const sf_model* m, uint32_t k, throng_agent_def* def);
/// The capacity a model's world starts with: its agents, plus each
/// source's count, or a minute of its rate when it has no count (at least
/// 1, at most THR_SCENE_MAX_AGENTS). It sizes the grid's largest layout,
/// so a world fed by sources gets the grid of the crowd it will hold.
uint32_t sf_model_capacity(const sf_model* m);
/// Sets the world fields a model holds (bounds, mode, dt, seed, cell
/// size) in *def; the rest (capacity, ...) is the caller's.
void sf_model_world_def(const sf_model* m, throng_world_def* def);

/// Names of the file format's own enum values. The library's enums (bounds
/// mode, blend mode, behaviour kind, target, flee mode, wander frame) are
/// spelled by core/names.h, whose tables the reader lists in its messages.
extern const char* const sf_shape_names[SF_SHAPE_COUNT];
extern const char* const sf_heading_names[5]; ///< the word forms (not the vector)

// ---------------------------------------------------------------------------
// The key tables (scenario_file_tables.c) and their engine
// (scenario_file_keys.c)
//
// Each section of the format is one table of rows: a key's name, its
// type and range, where the value lands (an offset into the section's
// struct), and its docs (unit, a note on the default, one line). The
// same rows drive the reader (sf_read_keys: type, range and the
// messages), the writer (scenario_file_save.c) and the key reference of
// docs/SCENARIOS.md (sf_keys_markdown, compared with the file by
// tests/test_scenario_file.c; scripts/scene_keys rewrites it). A row no
// type can say (SF_T_OTHER: a name, a choice, a list) is read by its
// section's part function. Adding a plain key is one row.
// ---------------------------------------------------------------------------

typedef enum sf_type {
	SF_T_NUMBER = 0, ///< a float, checked against `range`
	SF_T_UINT,       ///< a whole number in [min, max], stored in `size` bytes (4 or 8)
	SF_T_BOOL,
	SF_T_WORD,       ///< one of `words`, stored as an int (the enum's value)
	SF_T_POINT,      ///< a throng_vec2, each coordinate checked against `range`
	SF_T_MAP,        ///< a mapping read against the table `sub`, into the same struct
	SF_T_OTHER,      ///< names, choices, lists: read by the section's part function (by `part`)
	                 ///< after the plain rows, written by its own code; the row lists the key
	                 ///< (key checks, order, a missing required key) and documents it
} sf_type;

typedef struct sf_key {
	const char* name;
	sf_type type;
	size_t offset;          ///< where the value lands in the section's struct
	sf_range range;         ///< numbers, points
	uint64_t min, max;      ///< whole numbers
	uint8_t size;           ///< whole numbers: bytes of the field (4 or 8)
	bool hex;               ///< whole numbers: 0x... is also taken
	const thr_names* words; ///< words (also SF_T_OTHER rows, for the docs: a row without a doc lists them)
	const char* what;       ///< words: what the messages call one ("flee mode")
	const sf_table* sub;    ///< SF_T_MAP
	uint32_t kinds;         ///< tables of kinds: the kinds that take it, bit (1 << kind)
	bool required;          ///< reported missing when absent (for a kind that takes it)
	bool omit_zero;         ///< written only when not 0 (files from before the key lack it)
	/// Written only where this holds of the section's struct (NULL: always),
	/// so that files from before the key keep their bytes.
	bool (*written)(const void* base);
	const char* unit;       ///< docs: after the range ("m", "rad/s"), or NULL
	const char* def;        ///< docs: the default when it is not the struct's ("⌈√n⌉"), or NULL
	const char* type_doc;   ///< SF_T_OTHER: its type in the docs ("word or point")
	const char* expect;     ///< required rows: "missing (expected ...)" when the range does not say it
	int part;               ///< SF_T_OTHER: which part of the section (the section's own enum)
	const char* note;       ///< docs: after the default, or NULL
	const char* doc;        ///< docs: one line after the range (or the words' meanings), or NULL
} sf_key;

struct sf_table {
	const char* name;   ///< the section, as docs/SCENARIOS.md's markers name it
	const sf_key* keys;
	uint32_t count;     ///< at most 64
	/// Fills a struct of the section with its defaults (for the docs).
	void (*defaults)(void* base);
	size_t size;        ///< bytes of that struct
	/// Cross-checks run after the keys are read (NULL: none); `failed`
	/// has bit k set when row k had a problem.
	void (*check)(sf_ctx* c, const sf_node* map, void* base, uint64_t failed);
	/// Tables whose rows depend on a kind (a slot's behaviour, a spawn's
	/// shape): the kinds' names, indexed like the rows' `kinds` bits, and
	/// the docs' column headers for the key and for the kinds. NULL: none.
	const thr_names* kind_names;
	const char* key_header;
	const char* kinds_header;
	/// "(expected ...)" of a node that is no mapping; NULL: "a mapping of
	/// a, b and c", from the rows.
	const char* expect;
};

/// The tables: the world (into sf_model), a slot's parameters (into
/// throng_behavior_params), an archetype's contact (into throng_contact),
/// a group's spawn shape (into sf_spawn).
extern const sf_table sf_world_table;
/// An archetype (into throng_controller): mode; target_rule, contact and
/// slots are read by their own code.
extern const sf_table sf_archetype_table;
/// A slot's own keys (into throng_slot): kind (read first: it picks the
/// parameters, sf_param_table), weight, enabled, priority.
extern const sf_table sf_slot_table;
extern const sf_table sf_param_table;
extern const sf_table sf_contact_table;
extern const sf_table sf_combat_table;
extern const sf_table sf_spawn_table;
/// A group (into sf_group); its SF_T_OTHER rows' parts.
extern const sf_table sf_group_table;
enum {
	SF_GROUP_COUNT = 1,
	SF_GROUP_ARCHETYPE,
	SF_GROUP_SPAWN,
	SF_GROUP_HEADING,
	SF_GROUP_GOAL,
	SF_GROUP_PATH,
	SF_GROUP_MORALE,
	SF_GROUP_FORMATION,
	SF_GROUP_ORDERS
};
enum { SF_ARCHETYPE_TARGET_RULE = 1, SF_ARCHETYPE_CONTACT, SF_ARCHETYPE_SLOTS, SF_ARCHETYPE_PRESET, SF_ARCHETYPE_COMBAT };
/// The top level (into sf_model) and its parts.
extern const sf_table sf_scene_table;
enum {
	SF_SCENE_VERSION = 1,
	SF_SCENE_NAME,
	SF_SCENE_DESCRIPTION,
	SF_SCENE_MEASURE,
	SF_SCENE_ARCHETYPES,
	SF_SCENE_GROUPS,
	SF_SCENE_OBSTACLES,
	SF_SCENE_WALLS,
	SF_SCENE_THREAT,
	SF_SCENE_PATHS,
	SF_SCENE_AGENTS,
	SF_SCENE_MEASUREMENTS,
	SF_SCENE_ZONES,
	SF_SCENE_SOURCES,
};
/// The threat (into sf_threat; part 1 its path), a polyline (into
/// sf_wall; part 1 its points), a goal mapping (into sf_group; part 1
/// random), a rectangle (into sf_box), agents (into sf_model; part 1
/// goal, 2 rows) and their goal (into sf_model; part 3 random).
extern const sf_table sf_threat_table;
/// `measurements`: lines (part 1) and areas (part 2).
extern const sf_table sf_measurements_table;
extern const sf_table sf_wall_table;
extern const sf_table sf_goal_table;
extern const sf_table sf_box_table;
extern const sf_table sf_agents_table;
extern const sf_table sf_agents_goal_table;
/// An agents row (into throng_agent_def), by position: x, y, vx, vy, hx,
/// hy, tx, ty, max_speed, max_force, radius, archetype, group, path; the
/// archetype's name and the path's index are read by the rows' code.
extern const sf_table sf_row_table;
/// A rectangle min..max, as a group's random goal and agents.goal hold it.
typedef struct sf_box {
	throng_vec2 min, max;
} sf_box;
/// An archetype's target rule (into throng_target_rule; group and label
/// are the archetype's), and an obstacle (into sf_obstacle).
extern const sf_table sf_target_rule_table;
extern const sf_table sf_obstacle_table;
/// A group's path in its mapping form (into sf_path): waypoints are read
/// by sf_parse_path.
extern const sf_table sf_path_table;
/// A target rule's defaults before its keys are read: on, sight 10 m,
/// every 10 steps.
void sf_target_rule_defaults(void* rule);
/// Every table with a generated key reference, for the docs.
extern const sf_table* const sf_doc_tables[];
extern const uint32_t sf_doc_table_count;

/// The row of `name` in a table, or NULL.
const sf_key* sf_key_find(const sf_table* t, const char* name);
/// Whether behaviour `kind` reads slot parameter `key` (a row of sf_param_table).
bool sf_kind_reads(throng_behavior_kind kind, const sf_key* key);

/// Reads a row no type says (SF_T_OTHER: names, choices, lists): the
/// section's own code, called with the path at the key, after the plain
/// rows of the mapping `map` were read; `v` is the key's value. Returns
/// false on a problem.
typedef bool (*sf_part_fn)(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base);

/// Reads the keys of mapping `map` that `t` lists into `base`, each under
/// its path, and reports required ones that are absent; rows with `kinds`
/// not covering bit `kind_bit` are skipped (pass 0 to read every row).
/// SF_T_OTHER rows go to `part` (skipped when NULL). Does not check for
/// unknown keys. Returns the mask of rows with a problem.
uint64_t sf_read_keys(sf_ctx* c, const sf_node* map, const sf_table* t, void* base, uint32_t kind_bit,
                      sf_part_fn part);
/// Checks that `n` is a mapping (t->expect), checks its keys against the
/// table (unknown, with the nearest known; repeated), reads them and runs
/// the table's check. Returns the mask of rows with a problem, or 1 << 63
/// when `n` is no mapping.
uint64_t sf_read_table(sf_ctx* c, const sf_node* n, const sf_table* t, void* base, sf_part_fn part);

/// Reads a sequence through a table, item k by row k, each under the
/// row's name ("a row [x, y, ...]", exactly as many items as rows);
/// SF_T_OTHER rows are left to the caller. Returns as sf_read_table.
uint64_t sf_read_row(sf_ctx* c, const sf_node* n, const sf_table* t, void* base);

/// Reads one item of a list (`key` NULL) or of a mapping from names to
/// items (`v` NULL when the name repeats an earlier one) into `item`.
typedef void (*sf_item_fn)(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index);
/// A list (a sequence, `expect` when it is not) of at most `max` items of
/// `size` bytes, each read by `item` under "[k]"; `what` names them in
/// messages ("obstacles"). Returns the calloc'd items (*count of them),
/// or NULL after a problem.
void* sf_read_list(sf_ctx* c, const sf_node* n, const char* expect, const char* what, uint32_t max, size_t size,
                   uint32_t* count, sf_item_fn item);
/// As sf_read_list for a mapping from names to items, each read under its
/// name; the names are checked (valid, unique). `what` is "group".
void* sf_read_named(sf_ctx* c, const sf_node* n, const char* expect, const char* what, uint32_t max, size_t size,
                    uint32_t* count, sf_item_fn item);

/// Text that grows as it is written (the writer's and the docs').
typedef struct sf_out {
	char* text; ///< malloc'd, NUL-terminated; NULL before the first sf_put
	size_t len, cap;
	bool failed; ///< out of memory: later writes do nothing
} sf_out;

/// Appends printf-formatted text.
void sf_put(sf_out* o, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/// "(expected ...)" of a number in range `r` ("a number > 0 and <= 1e6"),
/// and the range as the key reference writes it ("(0, 1e6]"): one row a
/// range (scenario_file_read.c) holds its bounds and its texts.
const char* sf_range_text(sf_range r);
const char* sf_range_doc(sf_range r);

/// The shortest of %.6g .. %.9g that reads back (strtof) to the same
/// bits: 0.4f prints as 0.4, not 0.400000006.
void sf_format_float(char buf[32], float v);
/// A row's value in `base` as the file writes it (numbers shortest, words
/// bare, points [x, y]); SF_T_MAP rows write nothing.
void sf_format_value(const sf_key* k, const void* base, char* buf, size_t cap);

/// The markdown key reference of a table (docs/SCENARIOS.md, between
/// "<!-- keys: NAME -->" and "<!-- end keys -->"), malloc'd; NULL when
/// out of memory.
char* sf_keys_markdown(const sf_table* t);

// ---------------------------------------------------------------------------
// Stage 2: tree -> model (scenario_file_parse.c and the section files)
// ---------------------------------------------------------------------------

/// Fills *m (initialised with sf_model_defaults) from the tree, reporting
/// every problem; the model is usable only when no problem was reported.
void sf_parse_model(sf_ctx* c, const sf_node* root, sf_model* m);

/// A preset (scenario_file_presets.c): an archetype a file names instead
/// of stating it (`preset: pedestrian`, `drive: arrive`), made by one of
/// the library's constructors, and the body (max_speed, max_force,
/// radius) of the groups of that archetype where they state none.
typedef struct sf_preset {
	const char* name;
	const throng_behavior_kind* drives; ///< the drives it takes; drives[0] is the default
	uint32_t drive_count;
	throng_controller (*controller)(throng_behavior_kind drive);
	throng_agent_def (*body)(void);
} sf_preset;
extern const sf_preset sf_presets[];
extern const uint32_t sf_preset_count;
/// Reads an archetype mapping's `preset` and `drive` before its other
/// keys: the controller becomes the preset's, which those keys then
/// override (mode, relaxation_time, target_rule, contact key by key).
/// Reports an unknown preset, a drive the preset does not take, a drive
/// without a preset, and slots beside a preset.
void sf_read_preset(sf_ctx* c, const sf_node* map, sf_archetype* a);
/// Gives group `g` (read from mapping `map`) the preset's body where the
/// group states no max_speed, max_force or radius.
void sf_preset_body(const sf_preset* p, const sf_node* map, sf_group* g);

/// Pieces of sf_parse_model: groups (scenario_file_groups.c)...
void sf_parse_groups(sf_ctx* c, const sf_node* groups, sf_model* m);
/// ... and shapes (scenario_file_shapes.c): a path is a list of waypoints
/// or a mapping (sf_path_table).
bool sf_parse_path(sf_ctx* c, const sf_node* n, sf_path* out);
void sf_parse_obstacles(sf_ctx* c, const sf_node* n, sf_model* m);
void sf_parse_walls(sf_ctx* c, const sf_node* n, sf_model* m);
/// Reads `measurements` (version 2): measurement lines and areas, each
/// checked as throng_measure_add_line / _add_area would.
void sf_parse_measurements(sf_ctx* c, const sf_node* n, sf_model* m);
void sf_parse_threat(sf_ctx* c, const sf_node* n, sf_model* m);
/// The box a group's spawn shape covers (scenario_file_model.c).
void sf_spawn_extent(const sf_group* g, throng_vec2* lo, throng_vec2* hi);
/// How deep a spawn shape may stack its agents: beyond the first, each
/// needs 1/SF_SPAWN_DEPTH of its body's area (docs/SCENARIOS.md, "spawn").
#define SF_SPAWN_DEPTH 2
/// Resolves a grid's columns, then reports a spawn shape outside a world
/// that keeps its agents, or without room for its group's agents: widened
/// by their radius on every side, it must cover the first agent's body,
/// pi * radius^2, and 1/SF_SPAWN_DEPTH of every other's, so a point holds
/// one agent (scenario_file_shapes.c).
void sf_check_spawn(sf_ctx* c, const sf_model* m, sf_group* g);
/// scenario_file_refs.c: resolves a group's archetype and a target rule's
/// group by name, reporting the unknown ones.
void sf_resolve_names(sf_ctx* c, sf_model* m);
/// scenario_file_refs.c: references that lead nowhere (a threat target
/// without a threat, an agent target without a target rule, path
/// following without a path: refused; a path no slot follows: a warning)
/// and goals or waypoints a contained world's agents cannot reach. Runs on
/// a model whose sections read without a problem.
void sf_check_references(sf_ctx* c, const sf_node* root, const sf_model* m);

// ---------------------------------------------------------------------------
// Stage 3 and 4
// ---------------------------------------------------------------------------

/// Builds the scene of a checked model; the scene takes the model over
/// (*model is left empty). Library failures are reported as problems at
/// `root` or at the group or archetype concerned.
throng_status sf_build_scene(sf_ctx* c, sf_model* model, const throng_scene_def* options, sf_pos root,
                             throng_scene** out);

/// Reports a library failure during the build as a problem of the file,
/// at `section` (or, `name` not NULL, at the entry `name` of `section`),
/// and returns st.
throng_status sf_build_fail(sf_ctx* c, throng_status st, sf_pos at, const char* section, const char* name);

/// Writes `size` bytes of `data` to `path` whole, as every throng file is
/// written (throng/file.h): a failed write leaves an existing file as it
/// was. The scene's saves and checkpoints both go through it.
throng_status sf_write_whole(const char* path, const void* data, size_t size);

/// Writes the model as YAML into a malloc'd string; `header` (may be NULL)
/// becomes comment lines after the first.
throng_status sf_save_model(const sf_model* m, const char* header, char** text, size_t* length);

/// Builds the world of a checked model into `scene` (allocated, with its
/// scenario set): the one builder of built-in and file scenes. Takes the
/// model over. On failure the caller destroys the scene.
throng_status sf_build_into(sf_ctx* c, throng_scene* scene, sf_model* model, const throng_scene_def* options,
                            sf_pos root);

/// The definition (model) a scene was built from.
const sf_model* sf_scene_model(const throng_scene* scene);

/// Zones and sources (scenario_file_flows.c): a zone's and a source's keys
/// (their shape picks the rest: sf_zone_table, sf_source_table), and the
/// names of the sources' archetypes, resolved once the archetypes are
/// read, whose presets give the agents their body where a source states
/// none.
extern const sf_table sf_zone_table;
extern const sf_table sf_source_table;
enum { SF_ZONE_NAME = 1, SF_ZONE_POINTS };
enum { SF_SOURCE_NAME = 1, SF_SOURCE_ARCHETYPE, SF_SOURCE_STOP };
void sf_parse_zones(sf_ctx* c, const sf_node* n, sf_model* m);
void sf_parse_sources(sf_ctx* c, const sf_node* n, sf_model* m);
/// Reads a mapping's `shape` (one of t's kinds, `what` naming them in
/// messages: "spawn shape") and checks its keys against the rows that
/// shape takes (without a shape, only keys no shape takes are reported);
/// returns the shape, or -1 after a problem. Spawns, zones and sources.
int sf_read_shape(sf_ctx* c, const sf_node* map, const sf_table* t, const char* what);
/// As sf_read_shape, the kind under `key` (an order's `order`).
int sf_read_kind(sf_ctx* c, const sf_node* map, const sf_table* t, const char* key, const char* what);
/// Reports a source whose region leaves a world that keeps its agents
/// (where the library would refuse it).
void sf_check_sources(sf_ctx* c, const sf_model* m);
/// Resolves the sources' archetypes (sf_resolve_names calls it).
void sf_resolve_sources(sf_ctx* c, sf_model* m, const char* const* archetype_names);

/// A group's morale (scenario_file_units.c): the keys of its `morale`
/// mapping (sf_morale_table, into sf_group), read by sf_parse_morale;
/// sf_resolve_units resolves each rout_archetype by name and refuses
/// `morale` in a version 1 file (sf_resolve_names calls it);
/// sf_check_units refuses a unit whose soldiers cannot be hit (an
/// archetype without combat), a rout_archetype whose combat differs from
/// the group's archetype's, and a routing archetype the library would
/// refuse; sf_build_units makes the routing archetypes (after the
/// model's) and the units, one a group with morale, into sd->unit_id.
extern const sf_table sf_morale_table;
bool sf_parse_morale(sf_ctx* c, const sf_node* v, sf_group* g);
/// A group's formation (scenario_file_units.c too): the keys of its
/// `formation` mapping (sf_formation_table, into sf_group), read by
/// sf_parse_formation after the morale; sf_resolve_units resolves its
/// march_archetype, sf_check_units refuses a formation without a unit and
/// a march archetype without combat or that the library would refuse, and
/// sf_build_units makes the march archetypes (after the routing ones).
extern const sf_table sf_formation_table;
bool sf_parse_formation(sf_ctx* c, const sf_node* v, sf_group* g);
/// A group's orders (scenario_file_orders.c): a list of sf_order_table
/// mappings, each picked by its `order`; sf_check_orders refuses orders
/// without a formation; sf_give_orders, the scene's script, gives the
/// world the orders due at the step about to run.
extern const sf_table sf_order_table;
bool sf_parse_orders(sf_ctx* c, const sf_node* v, sf_group* g);
void sf_check_orders(sf_ctx* c, const sf_group* g);
throng_status sf_give_orders(throng_scene* scene);
void sf_resolve_units(sf_ctx* c, sf_model* m, const char* const* archetype_names);
void sf_check_units(sf_ctx* c, const sf_model* m);
throng_status sf_build_units(sf_ctx* c, throng_scene* scene, thr_definition* sd);

/// Parses the version 2 sections (scenario_file_rows.c).
void sf_parse_paths(sf_ctx* c, const sf_node* n, sf_model* m);
void sf_parse_agents(sf_ctx* c, const sf_node* n, sf_model* m);
/// The library's rules for each row (velocity within max_speed, heading a
/// unit vector or zero, inside a world that keeps its agents), reported
/// at the row: nothing the library would refuse gets past validation.
void sf_check_rows(sf_ctx* c, const sf_model* m);

#endif
