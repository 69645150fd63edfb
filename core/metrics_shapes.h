// SPDX-License-Identifier: MIT
// The quality metrics' shape figures (private): wall crossings of agents'
// paths and penetrations of walls and obstacles (core/metrics_shapes.c,
// defined in docs/QUALITY.md).
#ifndef THRONG_CORE_METRICS_SHAPES_H
#define THRONG_CORE_METRICS_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "behaviors.h"
#include "grid.h"
#include "throng/throng.h"

/// The world's shapes as the metrics see them: copies of its obstacles and
/// walls and a grid over each, rebuilt only when the world's shapes change.
typedef struct thr_shape_watch {
	bool wrap;                ///< the world wraps: a path is its shortest image
	float period_x, period_y; ///< a wrapping world's width and height (m)
	bool built;               ///< the copies and grids are made
	uint32_t version;         ///< the world's shape_version when last compared
	uint32_t n_obstacles, n_walls, cap_obstacles, cap_walls;
	thr_obstacle* obstacles;  ///< copies of the world's shapes, as the grids hold them
	/// The obstacle grid's items as copies, in its item order (item k is
	/// obstacles[obstacle_grid.items[k]]): a cell's obstacles side by side,
	/// one cache miss where reading them by index cost one each.
	thr_obstacle* item_obstacles;
	uint32_t cap_item_obstacles;
	thr_wall* walls;
	int32_t* wall_cell;       ///< each wall's lowest grid cell: x at [2k], y at [2k + 1]
	thr_box_grid obstacle_grid, wall_grid;
} thr_shape_watch;

/// The shape figures summed over agents and states.
typedef struct thr_shape_tally {
	uint64_t wall_crossings;
	uint64_t wall_penetrations;
	uint64_t obstacle_penetrations;
	double deepest_obstacle; ///< largest 1 - d / (r_o + r) among the counted penetrations, 0 if none
} thr_shape_tally;

/// Brings the watch up to the world's shapes: O(1) when the world says they
/// have not changed, else a comparison with the copies and, when they
/// differ, a rebuild. Returns 0, or -1 when out of memory (the watch then
/// holds no shapes, and the next call tries again).
int thr_shape_watch_sync(thr_shape_watch* s, const throng_world* w);

/// Frees the copies and grids; the watch is then empty.
void thr_shape_watch_free(thr_shape_watch* s);

/// Adds to *t the figures of one agent of radius r (m) whose centre moved
/// from p to q since the previous state (both finite).
void thr_shape_watch_agent(const thr_shape_watch* s, vec2 p, vec2 q, float r, thr_shape_tally* t);

/// The exact sign (1, 0 or -1) of the orientation of p relative to the
/// directed line a -> b: 1 when p lies to its left. No rounding error.
int thr_orient(vec2 a, vec2 b, vec2 p);

/// Whether a path from p to q counts as crossing the wall a-b: p lies off
/// the wall's line, and q on the other side of it or on it, and the path
/// meets the segment (its end points included). A path that starts on the
/// wall's line, or runs along it, does not count: so an agent that crosses
/// a wall counts once, whether or not a state falls exactly on it, and one
/// that touches the wall counts once.
bool thr_path_crosses_wall(vec2 p, vec2 q, vec2 a, vec2 b);

#endif
