// SPDX-License-Identifier: MIT
// The built-in scenario library, shared by the CLI, tests, benchmarks and viewer.
//
// A scene is a world plus the script that drives it (a threat that moves
// along a path, goals re-drawn on arrival). Step scenes with
// throng_scene_step(), not throng_world_step(), so the script runs.
#ifndef THRONG_SCENARIO_H
#define THRONG_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/measure.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// What `throng list` prints.
typedef struct throng_scenario_info {
	const char* name;
	const char* description;     ///< one line
	uint32_t default_agents;
	uint32_t default_steps;
} throng_scenario_info;

/// Scene settings for throng_scene_create(), throng_scene_open() and the
/// scenario-file loaders. Get one from throng_scene_default_def() and
/// change fields.
typedef struct throng_scene_def {
	uint32_t agents;        ///< 0 = the scenario's default
	uint64_t seed;          ///< world seed (default 1)
	throng_engine engine;   ///< default simd
	uint32_t threads;       ///< OpenMP threads of the SIMD engine; 0 = OpenMP's default
	throng_threads_policy threads_policy; ///< default THRONG_THREADS_ADAPT (throng_world_def)
	bool record_forces;     ///< keep per-slot forces (viewer, tests)
} throng_scene_def;

typedef struct throng_scene throng_scene;

/// Defaults: the scenario's own agent count, seed 1, SIMD engine, OpenMP's
/// default thread count adapted to the machine's load, forces not recorded.
throng_scene_def throng_scene_default_def(void);

/// Number of built-in scenarios and their descriptions, in listing order.
uint32_t throng_scenario_count(void);
const throng_scenario_info* throng_scenario_at(uint32_t index);
/// NULL when no scenario has that name.
const throng_scenario_info* throng_scenario_find(const char* name);

/// Builds a scene. Fails with THRONG_ERR_NOT_FOUND for an unknown name
/// (the message lists the known ones) and THRONG_ERR_INVALID_ARGUMENT for
/// an agent count the scenario cannot take.
throng_status throng_scene_create(const char* name, const throng_scene_def* def, throng_scene** out);
void throng_scene_destroy(throng_scene* scene);

/// Opens a built-in scene by name or a scenario file by path: the one way
/// the CLI and the viewer open scenes. A built-in name wins; otherwise an
/// argument that ends in .yaml, .yml or .json or holds a '/' is a file
/// (throng_scene_load_file(), so def->agents must be 0); anything else
/// fails as throng_scene_create() does (THRONG_ERR_NOT_FOUND, listing the
/// known names).
throng_status throng_scene_open(const char* name_or_path, const throng_scene_def* def, throng_scene** out);

/// Whether throng_scene_open() reads `name` as a file path.
bool throng_scene_is_file(const char* name);

/// Runs the scene's script for this step, then steps the world.
throng_status throng_scene_step(throng_scene* scene);

/// The world inside; owned by the scene.
throng_world* throng_scene_world(throng_scene* scene);
const throng_scenario_info* throng_scene_info(const throng_scene* scene);

/// Distance to its target point within which an agent counts as arrived
/// (m); 0 when the scenario has no goals.
float throng_scene_goal_radius(const throng_scene* scene);

/// The scene's threat, as last set by its script.
bool throng_scene_threat(const throng_scene* scene, throng_vec2* position);

/// One figure of a scenario's own outcome measure (armies: how far the
/// battle has come; docs/QUALITY.md defines each).
typedef struct throng_scene_outcome {
	const char* name; ///< a static key, e.g. "engaged"
	double value;
} throng_scene_outcome;

/// Most figures any scenario reports.
#define THRONG_MAX_OUTCOMES 4

/// Writes up to `cap` of the scene's outcome figures, measured on the
/// current state, to out and returns how many there are (0 for scenarios
/// without an outcome measure, and for a NULL scene). A scenario file has
/// the measure it names (`measure: armies`, docs/SCENARIOS.md).
uint32_t throng_scene_outcomes(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap);

/// A measurement set (throng/measure.h) with the lines and areas the
/// scene's definition declares (a scenario file's `measurements`,
/// docs/SCENARIOS.md), its Voronoi cells clipped to the world's bounds
/// (unless they are open), into *out, which the caller then owns
/// (throng_measure_destroy); *out is NULL when the definition declares
/// none. Feed it the world after each step (throng_measure_feed_world).
throng_status throng_scene_measure_create(const throng_scene* scene, throng_measure** out);

THRONG_API_END

#endif
