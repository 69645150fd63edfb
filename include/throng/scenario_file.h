// SPDX-License-Identifier: MIT
// throng: scenario files (YAML, or JSON read as YAML's flow style).
//
// A scenario file describes a scene: the world, the archetypes (controllers),
// groups of agents with their spawn shapes, goals and paths, obstacles,
// walls and a threat. docs/SCENARIOS.md is the reference for every field.
//
// Loading checks the whole file first and builds nothing when anything is
// wrong. Each problem is reported once, as a throng_diagnostic whose
// formatted form (throng_diagnostic_format) is
//     FILE:LINE:COL: path.to.field: what is wrong (expected ...)
// Lines and columns count from 1 (columns in characters).
#ifndef THRONG_SCENARIO_FILE_H
#define THRONG_SCENARIO_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/scenario.h"

THRONG_API_BEGIN

/// Most problems reported for one file; past it one last diagnostic
/// (without a position) says how many were left out.
#define THRONG_MAX_DIAGNOSTICS 100

/// Deepest nesting of mappings and sequences a file may have.
#define THRONG_MAX_FILE_DEPTH 64

/// Largest scenario file read (bytes).
#define THRONG_MAX_FILE_SIZE (32u << 20)

/// One problem found in a scenario file. The strings belong to the library
/// and are valid only during the callback that receives them.
typedef struct throng_diagnostic {
	const char* file;    ///< the name the file was loaded under
	uint32_t line;       ///< 1-based; 0 when the problem has no position (unreadable file)
	uint32_t column;     ///< 1-based, in characters; 0 with line 0
	const char* path;    ///< "groups.crowd.count"; "document" for the file as a whole
	const char* message; ///< "got 0, a group needs agents (expected a whole number from 1 to 10000000)"
	bool warning;        ///< a warning: the file is valid and loads (e.g. a path no slot follows)
} throng_diagnostic;

/// Receives each problem and warning, in file order (by line, then column).
/// Warnings are passed on success too; they are not counted as problems.
typedef void (*throng_diagnostic_fn)(void* user, const throng_diagnostic* diagnostic);

/// Formats "FILE:LINE:COL: path: message" (or "FILE: path: message" for a
/// diagnostic without a position; "FILE:LINE:COL: warning: path: message"
/// for a warning) into buf, always NUL-terminated when cap > 0. Returns
/// the length the full text needs, like snprintf.
int throng_diagnostic_format(const throng_diagnostic* diagnostic, char* buf, size_t cap);

/// Loads the scenario file at `path` into a new scene. `def` may be
/// NULL; otherwise its engine, threads and record_forces apply, its seed
/// replaces the file's world.seed when it is not the default 1, and its
/// agents must be 0 (a file sets each group's count). Returns
/// THRONG_ERR_INVALID_ARGUMENT when the file has problems (each one passed
/// to `report` when it is not NULL; throng_last_error() holds the first,
/// formatted, and how many there were), THRONG_ERR_IO when it cannot be
/// read. On success *out owns the scene; release it with
/// throng_scene_destroy().
throng_status throng_scene_load_file_report(const char* path, const throng_scene_def* def,
                                            throng_diagnostic_fn report, void* user, throng_scene** out);

/// throng_scene_load_file_report() without a callback.
throng_status throng_scene_load_file(const char* path, const throng_scene_def* def, throng_scene** out);

/// Loads a scenario from `size` bytes at `data` (not NUL-terminated);
/// `name` is the file name diagnostics and the scene's default name use.
throng_status throng_scene_load_memory(const char* name, const void* data, size_t size,
                                       const throng_scene_def* def, throng_diagnostic_fn report,
                                       void* user, throng_scene** out);

/// Checks a scenario file without building or simulating anything: every
/// check of the loader. Passes each problem to `report` (may be NULL) and
/// the number found to *problems (may be NULL). Returns THRONG_OK when
/// the file is valid, THRONG_ERR_INVALID_ARGUMENT when it has problems,
/// THRONG_ERR_IO when it cannot be read (also reported, without a position).
throng_status throng_scenario_validate_file(const char* path, throng_diagnostic_fn report, void* user,
                                            uint32_t* problems);

/// throng_scenario_validate_file() on bytes in memory.
throng_status throng_scenario_validate_memory(const char* name, const void* data, size_t size,
                                              throng_diagnostic_fn report, void* user, uint32_t* problems);

/// Writes the definition of a scene back as YAML, every field explicit
/// (defaults resolved), each float with the fewest digits that read back
/// to the same bits, so that loading the result builds the same world:
/// the built-ins too (`throng save NAME`), whose agents are written one by
/// one as version 2 `agents.rows`. The definition is the one the scene
/// holds, as it was built: saving builds nothing, and a scene that has
/// stepped writes its first state's definition, not its current state.
/// Writes a temporary file beside `path` and renames it over `path`, so a
/// failure leaves `path` as it was.
throng_status throng_scene_save_file(const throng_scene* scene, const char* path);

/// As throng_scene_save_file(), with `header` (may be NULL; one or more
/// lines) written as comment lines at the top.
throng_status throng_scene_save_file_header(const throng_scene* scene, const char* path, const char* header);

/// As throng_scene_save_file(), into a malloc'd NUL-terminated string
/// (*text, free() it) of *length bytes (length may be NULL).
throng_status throng_scene_save_string(const throng_scene* scene, char** text, size_t* length);
throng_status throng_scene_save_string_header(const throng_scene* scene, const char* header, char** text,
                                             size_t* length);

/// throng_scene_open() that passes a scenario file's problems to `report`
/// (may be NULL), as throng_scene_load_file_report().
throng_status throng_scene_open_report(const char* name_or_path, const throng_scene_def* def,
                                       throng_diagnostic_fn report, void* user, throng_scene** out);

THRONG_API_END

#endif
