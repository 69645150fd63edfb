// SPDX-License-Identifier: MIT
// The built-in scenario library, shared by the CLI, tests, benchmarks and viewer.
//
// A scene is a world plus the script that drives it (a threat that moves
// along a path, goals re-drawn on arrival). Step scenes with
// throng_scene_step(), not throng_world_step(), so the script runs.
#ifndef THRONG_SCENARIO_H
#define THRONG_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
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
/// the measure it names (`measure: battle`, docs/SCENARIOS.md).
uint32_t throng_scene_outcomes(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap);

/// A measurement set (throng/measure.h) with the lines and areas the
/// scene's definition declares (a scenario file's `measurements`,
/// docs/SCENARIOS.md), its Voronoi cells clipped to the world's bounds
/// (unless they are open), into *out, which the caller then owns
/// (throng_measure_destroy); *out is NULL when the definition declares
/// none. Feed it the world after each step (throng_measure_feed_world).
throng_status throng_scene_measure_create(const throng_scene* scene, throng_measure** out);

/// What throng_scene_load_checkpoint() checks a checkpoint's scene against
/// before it restores it. Get one from throng_scene_default_resume_def()
/// (which checks nothing) and set what must match.
typedef struct throng_scene_resume_def {
	const char* scene;   ///< NULL: any; else a built-in's name (the checkpoint must be of that built-in) or a
	                     ///< scenario file's path (throng_scene_is_file: the checkpoint must be of a scene whose
	                     ///< definition is the one the file states now, read with the checkpoint's seed)
	uint32_t agents;     ///< 0: any; else the built-in's agent count the checkpoint's scene was made with
	bool check_seed;     ///< the checkpoint's world seed must be `seed`
	uint64_t seed;
	bool check_engine;   ///< the checkpoint's engine must be `engine`
	throng_engine engine;
} throng_scene_resume_def;

/// Checks nothing: every field zero, engine simd.
throng_scene_resume_def throng_scene_default_resume_def(void);

// Scene checkpoints: a running scene saved whole and made again, so that
// the scene steps on to the same hashes and outcome figures as the one
// that never stopped (docs/FORMAT.md, "Scene checkpoints", has the layout).
// A scene checkpoint holds the scene's world checkpoint
// (throng/checkpoint.h) and what its script keeps besides: the steps
// taken, the threat as last set, the random goals, the outcome measure's
// state. The scene's definition is not kept as such but by how it is made
// again: a built-in's name and agent count, or a scenario file's
// definition as throng_scene_save_string() writes it (the checkpoint needs
// no other file); restoring rebuilds the scene from it (one build, its
// world dropped) and puts the saved world and script state in its place.
// Take a checkpoint between steps; a scene running on a part world
// (throng/scene_part.h) is refused, as its world is.

/// Writes a checkpoint of `scene` to `path`, as every throng file is
/// written (throng/file.h): a regular file is replaced whole when the
/// write succeeds and left as it was when it fails. It is made in memory
/// first (about the world checkpoint's size). THRONG_ERR_IO names the path;
/// THRONG_ERR_UNSUPPORTED when a scenario file's definition, written out,
/// is larger than THRONG_MAX_FILE_SIZE (it could not be read back).
throng_status throng_scene_save_checkpoint(const throng_scene* scene, const char* path);

/// Writes `scene`'s checkpoint into buf (cap bytes), the bytes the file
/// would hold, and its size into *written. With buf NULL (and cap 0)
/// writes nothing and gives the size. A buf smaller than the checkpoint is
/// THRONG_ERR_INVALID_ARGUMENT, *written then holding the size needed.
throng_status throng_scene_write_checkpoint(const throng_scene* scene, void* buf, size_t cap, size_t* written);

/// Makes the scene saved in the checkpoint file at `path` again; on
/// success *out owns it (throng_scene_destroy). It runs on the engine,
/// threads and thread policy of the saved world (throng_world_set_threads
/// changes the last two; no bit depends on them). `expect` may be NULL;
/// otherwise a checkpoint of another scene, agent count, seed or engine
/// than it asks for is refused (THRONG_ERR_INVALID_ARGUMENT, or
/// THRONG_ERR_NOT_FOUND for a scene name that is no scenario), the
/// message naming the path and both values. A file that is not a whole,
/// intact scene checkpoint (a world checkpoint included) is
/// THRONG_ERR_CORRUPT, one that cannot be read THRONG_ERR_IO; the message
/// names the path and, where it can, the byte offset. On failure *out is
/// NULL.
throng_status throng_scene_load_checkpoint(const char* path, const throng_scene_resume_def* expect,
                                           throng_scene** out);

/// throng_scene_load_checkpoint from `bytes` bytes of memory (not kept).
throng_status throng_scene_read_checkpoint(const void* buf, size_t bytes, const throng_scene_resume_def* expect,
                                           throng_scene** out);

THRONG_API_END

#endif
