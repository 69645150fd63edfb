// SPDX-License-Identifier: MIT
// The scenes the viewer can open: the library's built-in scenarios
// (throng/scenario.h, `solo` among them: the seeds' playground) and
// scenario files (throng/scenario_file.h).
#ifndef THRONG_VIEWER_SCENES_H
#define THRONG_VIEWER_SCENES_H

#include <stdbool.h>
#include <stddef.h>

#include "throng/scenario.h"
#include "throng/throng.h"

/// An open scene: a library scene, or a world the viewer built itself.
typedef struct vw_scene {
	throng_scene* scene;     ///< library scene, or NULL
	throng_world* world;     ///< the world (owned by `scene` when that is set)
	const char* name;        ///< static
	bool mouse_target;       ///< the scene starts with the mouse as target
	bool threat_active;      ///< viewer scenes: the threat as last set
	throng_vec2 threat;
} vw_scene;

/// Whether `name` is a built-in scene.
bool vw_scene_exists(const char* name);

/// "herd, circle, field, solo" into buf.
void vw_scene_names(char* buf, size_t cap);

/// Opens a built-in scene or a scenario file (throng_scene_open, as the
/// CLI), or the viewer's `solo`. On failure returns the
/// library's status with its message (or the viewer's) in err, leaves *out
/// zeroed, and has printed each problem of a scenario file to stderr as
/// FILE:LINE:COL: path: message.
throng_status vw_scene_open(const char* name, const throng_scene_def* options, vw_scene* out, char* err,
                            size_t err_cap);

/// Closes a scene; a zeroed one is ignored.
void vw_scene_close(vw_scene* s);

/// One step. With `script` false a library scene's script (moving threat,
/// new goals) is skipped and only the world steps.
throng_status vw_scene_step(vw_scene* s, bool script);

/// The scene's threat: position and whether it is active.
bool vw_scene_threat(const vw_scene* s, throng_vec2* position);

#endif
