// SPDX-License-Identifier: MIT
// The scene object and the built-in scenario table (private).
//
// A scene owns one of each thing, each typed: its world, its definition
// (thr_definition: the model of scenario_file_internal.h, the same one a
// scenario file is read into, with the state its script keeps while the
// scene runs), and its outcome measure's state (thr_measure_state). The
// files stand in layers, each calling only those below it:
//   scenario.c          the scene object: options, the calls by which a
//                       definition is stated, the spawn into a world,
//                       accessors, destroy, the hand-over to a part
//   scenario_file_build.c  the definition's world and script: the one
//                       builder of built-ins and files (sf_build_into),
//                       throng_scene_step
//   scenarios_builtin.c the table of built-ins and throng_scene_create: a
//                       built-in states its definition once, then it is
//                       built; scenario_file.c reads a file's instead
//   scene_checkpoint.c, scene_resume.c  a running scene saved whole and
//                       made again: rebuilt by those above, then its
//                       world and its script's state put back
// A built-in is a build function that states its scene into the
// definition, plus what hangs off it in C: how it scales with the agent
// count (the build function itself) and an outcome measure, named in a
// table of its own (scenario_measure.c) so that a scenario file can carry
// it (`measure: charge`). Its agents it states as a block (a maker and a
// copy of its parameters, thr_scene_add_block), not as rows: the builder
// and the writer make them one at a time, so the definition of 10^6
// agents does not hold 10^6 rows. Saving writes the definition as it is,
// the block as rows.
#ifndef THRONG_CORE_SCENARIO_INTERNAL_H
#define THRONG_CORE_SCENARIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/scenario.h"
#include "throng/scene_part.h"

/// Largest agent count any scenario accepts.
#define THR_SCENE_MAX_AGENTS 10000000u

/// A threat that moves in a straight line at constant velocity: inactive
/// before t_start, then active while its position lies inside the box
/// [active_min, active_max], inactive for good once it has left the box.
typedef struct thr_threat_line {
	bool enabled;             ///< false: the scene has no scripted threat
	double t_start;           ///< simulated time the threat appears (s)
	throng_vec2 start;        ///< its position at t_start (m)
	throng_vec2 velocity;     ///< constant velocity (m/s)
	throng_vec2 active_min;   ///< lower-left corner of the active box (m)
	throng_vec2 active_max;   ///< upper-right corner of the active box (m)
} thr_threat_line;

struct thr_scenario;
struct thr_measure;
struct sf_model;
struct sf_group;

/// A scene's definition: the model its world is built from, kept whole
/// (saving writes it), and what the definition's script keeps while the
/// scene runs (set by the build, scenario_file_build.c). Owned by the
/// scene, freed with it.
typedef struct thr_definition {
	struct sf_model* model; ///< the definition, stated or read; owned
	uint32_t key;           ///< thr_rng_key of the seed
	uint32_t first_row;     ///< id of the first agent of the model's rows
	uint32_t* archetype_id; ///< world archetype id of each model archetype
	uint32_t* first_id;     ///< first agent id of each group
	uint32_t* path_id;      ///< world path id of each group, or THRONG_NO_PATH
	uint32_t* unit_id;      ///< world unit id of each group, or THRONG_NO_UNIT
	throng_vec2* goal;      ///< random goals by agent id, NaN for agents without (NULL without random goals)
	uint32_t goal_count;    ///< agents with an entry in goal (the scene's first ones)
	uint8_t* reached;       ///< per storage slot, the step's goal check (the script)
	uint32_t reached_cap;
	double* threat_cum;     ///< threat path: distance along it at each waypoint (and back to the first when looping)
} thr_definition;

/// What the outcome measures keep between samples (a member per measure
/// that keeps anything), owned by the scene by value.
typedef struct thr_measure_state {
	double resolved_at;     ///< charge: when the battle resolved (s), -1 while unresolved; battle (armies):
	                        ///< when one side was left standing (s), -1 before; evacuation: when
	                        ///< the last agent left (s), -1 before
	/// flows (concourse): by id, when each walker a source added came in
	/// (s; NaN for agents no source added) and its free-walk time (its
	/// straight way to its goal at its top speed, s); watch_cap entries,
	/// malloc'd, freed with the scene.
	float* born;
	float* free_time;
	uint32_t watch_cap;
	uint64_t left;          ///< flows: walkers a sink took out
	uint64_t late;          ///< flows: of them, those that took more than THR_FLOW_LATE times their free-walk time
	double worst;           ///< flows: the largest time / free-walk time of those that left
} thr_measure_state;

/// flows: a walker that needs more than this many times its free-walk time
/// from its source to its exit is late (stuck somewhere).
#define THR_FLOW_LATE 3.0

struct throng_scene {
	const struct thr_scenario* scenario; ///< a built-in's table entry, or file_entry
	struct thr_scenario* file_entry;     ///< a file scene's own entry (owned), or NULL
	throng_world* world;      ///< owned
	uint32_t agents;          ///< resolved agent count
	uint64_t steps;           ///< scene steps taken so far
	double dt;                ///< the world's fixed step (s)
	float goal_radius;        ///< m; 0 = no goals
	bool threat_active;       ///< as last set by the script
	throng_vec2 threat_position;
	throng_vec2 threat_velocity;
	thr_definition def;       ///< the definition and its script's state
	const struct thr_measure* measure; ///< the definition's outcome measure, or NULL
	thr_measure_state measure_state;   ///< its state (thr_scene_attach_measure)
};

/// An outcome measure: figures a scene reports on its current state
/// (throng_scene_outcomes), read from the world only (positions, group
/// labels, chosen targets), never from how the scene was built, so that
/// it measures a built-in and its saved file alike. It never changes the
/// world.
typedef struct thr_measure {
	const char* name;         ///< as a scenario file names it (`measure: NAME`)
	/// Optional; sets the measure's state for a scene whose world is built.
	void (*init)(const throng_scene* scene, thr_measure_state* state);
	/// Optional; runs before each world step, after the definition's script
	/// (threat, random goals): what the measure must watch as it happens.
	void (*sample)(const throng_scene* scene, thr_measure_state* state);
	/// Optional; runs after each world step of throng_scene_step, on a
	/// whole world: what the step listed (throng_world_events) is read here,
	/// so that a checkpoint between steps misses nothing.
	void (*after)(const throng_scene* scene, thr_measure_state* state);
	/// Writes up to cap figures (static names) and returns how many there are.
	uint32_t (*outcome)(const throng_scene* scene, const thr_measure_state* state, throng_scene_outcome* out,
	                    uint32_t cap);
} thr_measure;

/// Most measures the table holds.
#define THR_MAX_MEASURES 8u
/// The measures (scenario_measure.c), in the order their names are listed.
extern const thr_measure* const thr_measure_table[];
extern const uint32_t thr_measure_count;
/// Attaches `measure` (may be NULL) to a scene whose world is built.
void thr_scene_attach_measure(throng_scene* scene, const thr_measure* measure);
/// The init of the measures that note one time (charge, battle,
/// evacuation): resolved_at -1, not yet.
void thr_measure_init_unresolved(const throng_scene* scene, thr_measure_state* state);

/// The built-in armies' default run (s at 60 steps a second): long enough
/// for 100,000 soldiers to reach a winner (docs/ARMIES.md).
#define ARMIES_DEFAULT_STEPS 14400u

/// The measures of the built-ins that have one.
extern const thr_measure thr_charge_measure;
extern const thr_measure thr_battle_measure;
extern const thr_measure thr_flock_measure;
extern const thr_measure thr_flows_measure;
extern const thr_measure thr_evacuation_measure;

/// One built-in scenario.
typedef struct thr_scenario {
	throng_scenario_info info; ///< every built-in takes 1 to THR_SCENE_MAX_AGENTS agents
	/// States the scene (agents = scene->agents, already resolved) into
	/// its definition through the thr_scene_* calls below, and sets
	/// goal_radius. It never touches a world: there is none yet.
	throng_status (*build)(throng_scene* scene, const throng_scene_def* options);
	/// Optional; its outcome measure (throng_scene_outcomes), stated in its
	/// definition with the rest, so a saved file names it too.
	const thr_measure* measure;
} thr_scenario;

/// The field scenario (scenario_field.c).
throng_status thr_field_build(throng_scene* scene, const throng_scene_def* options);

/// The scenarios of issue 4, one file each (scenario_<name>.c).
throng_status thr_crossing_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_bottleneck_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_hallway_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_armies_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_charge_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_flock_build(throng_scene* scene, const throng_scene_def* options);
/// A flock of boids on a torus, as `flock` and `dense` build it
/// (scenario_flock.c): N boids of one archetype ("boid") start at dart
/// places (none overlapping, none across the seam), each heading a random
/// way at half its top speed, in a square world that wraps, of side
/// sqrt(N * area_per_agent) (at least min_side), so that the density is
/// the same at every N. No goals.
typedef struct thr_boids {
	const char* scene;          ///< the scene's name, for messages
	float area_per_agent;       ///< m^2 a boid
	float min_side;             ///< m
	float radius;               ///< m: a boid's body
	float max_speed;            ///< m/s
	float max_force;            ///< m/s^2
	throng_controller controller; ///< the boids' archetype
} thr_boids;
throng_status thr_boids_build(throng_scene* scene, const throng_scene_def* options, const thr_boids* spec);
/// The dense flock of the benchmark (scenario_dense.c, issue 37).
throng_status thr_dense_build(throng_scene* scene, const throng_scene_def* options);
/// The scenes of issue 33: a station hall fed by sources, a room emptied
/// through two exits (scenario_concourse.c, scenario_evacuation.c).
throng_status thr_concourse_build(throng_scene* scene, const throng_scene_def* options);
throng_status thr_evacuation_build(throng_scene* scene, const throng_scene_def* options);
/// The viewer's playground (scenario_solo.c).
throng_status thr_solo_build(throng_scene* scene, const throng_scene_def* options);

/// The table, in listing order.
extern const thr_scenario thr_scenario_table[];
extern const uint32_t thr_scenario_table_count;

/// A world def with the options' seed, engine, threads and force recording.
throng_world_def thr_scene_world_def(const throng_scene_def* options, uint32_t capacity);

// Built-in build functions state their scene into its definition
// (scene->def.model, the model of scenario_file_internal.h, the same one a
// scenario file is read into) through these calls; one builder
// (sf_build_into) then makes the world from it, for built-ins and files
// alike, and throng_scene_save_* writes it. thr_scene_spawn_batched is the
// builder's, not a built-in's: the spawn into a world.

/// A scene of `scenario` with an empty definition (sf_model_defaults of
/// its name), no world yet; NULL when out of memory.
throng_scene* thr_scene_new(const struct thr_scenario* scenario);

/// Sets the definition's world: thr_scene_world_def(options, capacity)'s
/// dt and seed, with the bounds [min, max] and `mode`.
throng_status thr_scene_create_world(throng_scene* scene, const throng_scene_def* options, uint32_t capacity,
                                     throng_vec2 min, throng_vec2 max, throng_bounds_mode mode);
/// Adds an archetype called `name` (a file's archetype name: letters,
/// digits, '_' or '-', unique in the scene); *id is its world archetype id
/// (archetypes are numbered in the order added).
throng_status thr_scene_add_archetype(throng_scene* scene, const char* name, const throng_controller* controller,
                                      uint32_t* id);
throng_status thr_scene_add_obstacle(throng_scene* scene, throng_vec2 center, float radius);
throng_status thr_scene_add_wall(throng_scene* scene, throng_vec2 a, throng_vec2 b);
/// Adds a zone (its points copied) and a source (its agent's archetype an
/// id thr_scene_add_archetype gave): version 2 keys, checked when the
/// world is built.
throng_status thr_scene_add_zone(throng_scene* scene, const throng_zone_def* def);
throng_status thr_scene_add_source(throng_scene* scene, const throng_source_def* def);
/// Adds a path; paths are numbered in the order added, from 0.
throng_status thr_scene_add_path(throng_scene* scene, const throng_vec2* points, uint32_t count, bool loop);
uint32_t thr_scene_path_count(const throng_scene* scene);
/// The scripted threat moves along `line` (its t_start must be a float).
throng_status thr_scene_threat_line(throng_scene* scene, const thr_threat_line* line);
/// The program running the scene sets the threat (throng_world_set_threat: the viewer's mouse).
throng_status thr_scene_threat_external(throng_scene* scene);
/// Every agent draws a new target point uniformly in [lo, hi] on arrival
/// (within the goal radius): round r from draws 2r and 2r+1 of its goal stream.
throng_status thr_scene_random_goals(throng_scene* scene, throng_vec2 lo, throng_vec2 hi);

/// States a group of `count` agents of archetype `archetype` (an id
/// thr_scene_add_archetype gave) called `name` (unique in the scene), as
/// a file's `groups` entry: its other fields at the file's defaults, for
/// the caller to set (spawn, heading, goal, body, label `id`; `morale`
/// and `unit` make it one unit). Groups are spawned first, in the order
/// stated, then the block. *out is the group (NULL on failure: out of
/// memory, or past SF_MAX_GROUPS).
throng_status thr_scene_add_group(throng_scene* scene, const char* name, uint32_t archetype, uint32_t count,
                                  struct sf_group** out);

/// How a built-in makes its agents: agent i into *def (its archetype the
/// id thr_scene_add_archetype gave), from its parameters and points alone.
typedef void (*thr_block_maker)(const void* params, const throng_vec2* points, uint32_t i, throng_agent_def* def);

/// States the scene's agents (once): a block of `count` agents made by
/// `make` (sf_block, scenario_file_internal.h) from a copy of `params`
/// (`size` bytes, plain values) and `points` (count of them, malloc'd, or
/// NULL), which the definition takes over, also on failure. The agents
/// are made when the world is built and again when the scene is saved;
/// the definition holds no row of them.
throng_status thr_scene_add_block(throng_scene* scene, uint32_t count, thr_block_maker make, const void* params,
                                  size_t size, throng_vec2* points);

/// How the build makes a batch's agents: agent i (0..count-1) into *def.
typedef void (*thr_agent_maker)(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user);

/// Spawns `count` agents made by `make` into the scene's world, in batches
/// (so that no huge array of defs is allocated): the build.
throng_status thr_scene_spawn_batched(throng_scene* scene, uint32_t count, thr_agent_maker make, const void* user);

#endif
