// SPDX-License-Identifier: MIT
// The scene object and the built-in scenario table (private).
//
// scenario.c owns the generic part (lookup, create, step, accessors, and the
// calls by which a built-in states its definition); scenarios_builtin.c owns
// the table of scenarios, each a build function that states its scene as a
// definition (the model of scenario_file_internal.h: world, archetypes,
// shapes, paths, agents, threat, random goals), plus what hangs off the
// definition in C: how it scales with the agent count (the build function
// itself) and an outcome measure. A measure is named in a table of its own
// (scenario_measure.c), so that the definition can name it and a scenario
// file can carry it (`measure: armies`). One builder (sf_build_into) makes
// the world of built-ins and files alike, and attaches the definition's
// measure.
#ifndef THRONG_CORE_SCENARIO_INTERNAL_H
#define THRONG_CORE_SCENARIO_INTERNAL_H

#include <stdbool.h>
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

struct throng_scene {
	const struct thr_scenario* scenario;
	throng_world* world;
	uint32_t agents;          ///< resolved agent count
	uint64_t steps;           ///< scene steps taken so far
	double dt;                ///< the world's fixed step (s)
	float goal_radius;        ///< m; 0 = no goals
	bool threat_active;       ///< as last set by the script
	throng_vec2 threat_position;
	throng_vec2 threat_velocity;
	void* user;               ///< build-time data of a built-in, a file scene's scenario entry, or NULL
	void (*free_user)(void* user);
	const struct thr_measure* measure; ///< the definition's outcome measure, or NULL
	void* measure_data;       ///< the measure's own data for this scene (its init's), or NULL
	void* def;                ///< the definition it was built from and its script's data (scenario_file_build.c)
	void (*free_def)(void* def);
	struct sf_model* stating; ///< while a built-in states its definition, that definition; NULL after
	throng_scene_def options; ///< built-ins: the options it was made with (to state it again)
};

/// An outcome measure: figures a scene reports on its current state
/// (throng_scene_outcomes), read from the world only (positions, group
/// labels, chosen targets), never from how the scene was built, so that
/// it measures a built-in and its saved file alike. It never changes the
/// world.
typedef struct thr_measure {
	const char* name;         ///< as a scenario file names it (`measure: NAME`)
	/// Optional; allocates the measure's data for a scene whose world is
	/// built (*data = NULL for none), freed with `free_data`.
	throng_status (*init)(const throng_scene* scene, void** data);
	void (*free_data)(void* data);
	/// Optional; runs before each world step, after the definition's script
	/// (threat, random goals): what the measure must watch as it happens.
	void (*sample)(const throng_scene* scene, void* data);
	/// Writes up to cap figures (static names) and returns how many there are.
	uint32_t (*outcome)(const throng_scene* scene, const void* data, throng_scene_outcome* out, uint32_t cap);
} thr_measure;

/// Most measures the table holds.
#define THR_MAX_MEASURES 8u
/// The measures (scenario_measure.c), in the order their names are listed.
extern const thr_measure* const thr_measure_table[];
extern const uint32_t thr_measure_count;
/// Attaches `measure` (may be NULL) to a scene whose world is built.
throng_status thr_scene_attach_measure(throng_scene* scene, const thr_measure* measure);

/// The measures of the built-ins that have one.
extern const thr_measure thr_armies_measure;
extern const thr_measure thr_flock_measure;

/// One built-in scenario.
typedef struct thr_scenario {
	throng_scenario_info info;
	uint32_t max_agents;      ///< largest count it takes (<= THR_SCENE_MAX_AGENTS)
	/// States the scene (agents = scene->agents, already resolved) through
	/// the thr_scene_* calls below into scene->stating, and sets
	/// goal_radius; it may keep build-time data in scene->user. It never
	/// touches a world: there is none yet.
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
throng_status thr_flock_build(throng_scene* scene, const throng_scene_def* options);
/// The viewer's playground (scenario_solo.c).
throng_status thr_solo_build(throng_scene* scene, const throng_scene_def* options);

/// The table, in listing order.
extern const thr_scenario thr_scenario_table[];
extern const uint32_t thr_scenario_table_count;

/// A world def with the options' seed, engine, threads and force recording.
throng_world_def thr_scene_world_def(const throng_scene_def* options, uint32_t capacity);

// Built-in build functions state their scene as a definition (the model of
// scenario_file_internal.h, the same one a scenario file is read into)
// through these calls; one builder (sf_build_into) then makes the world
// from it, for built-ins and files alike, and throng_scene_save_* writes it.

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

/// Adds `count` agents produced by `make(scene, i, &def, user)` for
/// i = 0..count-1: to the definition while a built-in states it, to the
/// world (in batches, so that no huge array of defs is allocated) while
/// the builder builds.
throng_status thr_scene_spawn_batched(throng_scene* scene, uint32_t count,
                                      void (*make)(const throng_scene* scene, uint32_t i, throng_agent_def* def,
                                                   const void* user),
                                      const void* user);

/// States a built-in scene's definition again, rows included (a built-in's
/// scene drops its rows once the world holds them), into *out.
throng_status thr_scene_restate(const throng_scene* scene, struct sf_model* out);

/// The definition's per-step script (scenario_file_build.c): the threat,
/// then agents' random goals.
throng_status thr_def_script(throng_scene* scene);

#endif
