// SPDX-License-Identifier: MIT
// The debug view of the selected agent: each slot's force as a coloured
// arrow, the blended force thicker, the velocity, the obstacle and wall
// feelers (red where they hit), the wander circle and its target, the
// neighbour radius and the neighbours inside it.
//
// Feeler hits, the wander geometry and the neighbours are recomputed here
// from the frame with SPEC.md's formulas, for display only: neighbours by
// brute force over the frame for this one agent (100,000 distance tests),
// the feelers against every obstacle and wall.
#ifndef THRONG_VIEWER_DEBUG_H
#define THRONG_VIEWER_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "camera.h"
#include "sim.h"

/// Screen length (px) of a force of max_force, and of a velocity of max_speed.
#define VW_ARROW_PX 100.0f
/// Neighbours marked on screen at most (all are counted).
#define VW_MAX_MARKED 512u

typedef struct vw_debug {
	bool valid;
	uint32_t id;
	float neighbor_radius;        ///< m; 0 when no enabled slot looks at neighbours
	bool same_group_only;
	uint32_t neighbors;           ///< found within neighbor_radius
	uint32_t marked;
	throng_vec2 marks[VW_MAX_MARKED];
	bool obstacle_hit, wall_hit;  ///< any feeler hits
	uint32_t obstacle;            ///< the obstacle hit, when obstacle_hit
} vw_debug;

/// Recomputes the neighbours and feeler hits of the frame's focus agent.
void vw_debug_compute(vw_debug* d, const vw_frame* f);

/// Appends the debug drawing to `b`.
void vw_debug_draw(vw_batch* b, const vw_debug* d, const vw_camera* cam, const vw_frame* f);

#endif
