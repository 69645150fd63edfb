// SPDX-License-Identifier: MIT
// Copying a world's state into a vw_frame (the host's publishing step).
#ifndef THRONG_VIEWER_FRAME_H
#define THRONG_VIEWER_FRAME_H

#include <stdbool.h>

#include "scenes.h"
#include "sim.h"

/// Per-id radii of the scene's agents, filled once per (re)open.
typedef struct vw_radii {
	float* radius;     ///< by id
	uint32_t count;
	uint32_t generation;
} vw_radii;

/// Fills r from the world; false when out of memory.
bool vw_radii_fill(vw_radii* r, throng_world* world, uint32_t generation);
void vw_radii_free(vw_radii* r);

/// Copies agents, shapes, threat, stats and controllers of `s` into f, and
/// the focus data of agent `selected` (VW_NO_AGENT for none). Grows f's
/// arrays as needed; false when out of memory (f is then left consistent
/// with count 0).
bool vw_frame_fill(vw_frame* f, vw_scene* s, const vw_radii* radii, uint32_t selected);

/// Frees a frame's arrays and zeroes it.
void vw_frame_free(vw_frame* f);

#endif
