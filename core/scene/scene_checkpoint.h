// SPDX-License-Identifier: MIT
// Scene checkpoints (private): the layout both directions share. The
// design note is at the top of scene_checkpoint.c (the writer);
// scene_resume.c reads a checkpoint and makes the scene again.
#ifndef THRONG_CORE_SCENE_CHECKPOINT_H
#define THRONG_CORE_SCENE_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "checkpoint.h"
#include "scenario_internal.h"

#define SCK_MAGIC "THRONGSC"
/// The layout this library writes and the newest it reads.
#define SCK_VERSION 1u
#define SCK_SCENE THR_CK_TAG('S', 'C', 'N', 'E')
#define SCK_WORLD THR_CK_TAG('W', 'C', 'K', 'P')
#define SCK_SECTIONS 2u
/// Longest scene name kept (a scenario file's `name`, or its path).
#define SCK_MAX_NAME 4096u

/// A built-in scene (rebuilt by name) or a scenario file's (by its text).
enum { SCK_BUILTIN = 0, SCK_FILE = 1 };

// A measure's state is kept field by field (sck_scene_body): a member added to
// thr_measure_state needs its line there, and a new SCK_VERSION.
_Static_assert(sizeof(thr_measure_state) == 2u * sizeof(double) + 2u * sizeof(float*) + 2u * sizeof(uint64_t) +
                                               sizeof(uint64_t),
               "scene checkpoints keep thr_measure_state's members: resolved_at, the flows watch and figures");

/// The scene section's fields, in file order. Reading, the strings and
/// the goals point into the checkpoint's bytes.
typedef struct sck_scene {
	uint32_t kind;          ///< SCK_BUILTIN or SCK_FILE
	const char* name;       ///< the built-in's name, or the file scene's name
	uint32_t name_len;
	uint32_t agents;        ///< the scene's resolved agent count (scene->agents)
	uint64_t seed;          ///< the world's seed
	uint32_t engine;        ///< throng_engine
	uint64_t steps;         ///< scene steps taken
	bool threat_active;
	throng_vec2 threat_p, threat_v;
	uint64_t resolved_at;   ///< thr_measure_state.resolved_at, its bits
	uint64_t flow_left, flow_late; ///< thr_measure_state.left, .late
	uint64_t flow_worst;    ///< thr_measure_state.worst, its bits
	uint32_t watch_count;   ///< ids the flows watch keeps (0: none)
	const float* born;      ///< writing: thr_measure_state.born
	const float* free_time; ///< writing: thr_measure_state.free_time
	const uint8_t* watch_bytes; ///< reading: 8 bytes an id (born, free_time)
	uint32_t goal_count;
	const throng_vec2* goal;    ///< writing: the scene's goals
	const uint8_t* goal_bytes;  ///< reading: 8 bytes a goal (x, y)
	const char* source;         ///< a file scene's definition (YAML), else empty
	uint64_t source_len;
} sck_scene;

/// Every field of the scene section, emitted or taken, in order (the
/// world checkpoint's codec, core/checkpoint.h). Reading, a run of bytes
/// that would pass the section's end fails io.
void sck_scene_body(thr_ck_io* io, sck_scene* s);

#endif
