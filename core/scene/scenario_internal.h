// SPDX-License-Identifier: MIT
// The scene object and the built-in scenario table (private).
//
// scenario.c owns the generic part (lookup, create, step, the threat-line
// script, accessors); scenarios_builtin.c owns the table of scenarios, each a
// build function that fills a scene's world plus an optional per-step
// script. Both sides see the scene through this header only.
#ifndef THRONG_CORE_SCENARIO_INTERNAL_H
#define THRONG_CORE_SCENARIO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/scenario.h"

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

struct throng_scene {
	const struct thr_scenario* scenario;
	throng_world* world;
	uint32_t agents;          ///< resolved agent count
	uint64_t steps;           ///< scene steps taken so far
	double dt;                ///< the world's fixed step (s)
	float goal_radius;        ///< m; 0 = no goals
	thr_threat_line threat_line;
	bool threat_active;       ///< as last set by the script
	throng_vec2 threat_position;
	throng_vec2 threat_velocity;
	void* user;               ///< the scenario's own data (e.g. goals), or NULL
	void (*free_user)(void* user);
};

/// One built-in scenario.
typedef struct thr_scenario {
	throng_scenario_info info;
	uint32_t max_agents;      ///< largest count it takes (<= THR_SCENE_MAX_AGENTS)
	/// Creates scene->world (agents = scene->agents, already resolved) and
	/// sets goal_radius and threat_line. On failure it may leave a world in
	/// scene->world; the caller destroys it.
	throng_status (*build)(throng_scene* scene, const throng_scene_options* options);
	/// Optional; runs before each world step, after the threat line moved.
	throng_status (*script)(throng_scene* scene);
	/// Optional; the scenario's own outcome figures (throng_scene_outcomes).
	uint32_t (*outcome)(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap);
} thr_scenario;

/// The field scenario (scenario_field.c).
throng_status thr_field_build(throng_scene* scene, const throng_scene_options* options);
throng_status thr_field_script(throng_scene* scene);

/// The scenarios of issue 4, one file each (scenario_<name>.c).
throng_status thr_crossing_build(throng_scene* scene, const throng_scene_options* options);
throng_status thr_bottleneck_build(throng_scene* scene, const throng_scene_options* options);
throng_status thr_hallway_build(throng_scene* scene, const throng_scene_options* options);
throng_status thr_armies_build(throng_scene* scene, const throng_scene_options* options);
throng_status thr_armies_script(throng_scene* scene);
uint32_t thr_armies_outcome(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap);
throng_status thr_flock_build(throng_scene* scene, const throng_scene_options* options);
uint32_t thr_flock_outcome(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap);

/// The table, in listing order.
extern const thr_scenario thr_scenario_table[];
extern const uint32_t thr_scenario_table_count;

/// A world def with the options' seed, engine, threads and force recording.
throng_world_def thr_scene_world_def(const throng_scene_options* options, uint32_t capacity);

/// Creates scene->world from thr_scene_world_def(options, capacity) with
/// the bounds [min, max] and `mode`.
throng_status thr_scene_create_world(throng_scene* scene, const throng_scene_options* options, uint32_t capacity,
                                     throng_vec2 min, throng_vec2 max, throng_bounds_mode mode);

/// Spawns `count` agents produced by `make(scene, i, &def, user)` for
/// i = 0..count-1, in batches so that no huge array of defs is allocated.
throng_status thr_scene_spawn_batched(throng_scene* scene, uint32_t count,
                                      void (*make)(const throng_scene* scene, uint32_t i, throng_agent_def* def,
                                                   const void* user),
                                      const void* user);

#endif
