// SPDX-License-Identifier: MIT
// The walkable area of a world as WKT, for the SQLite export (private).
//
// JuPedSim's trajectory database carries the walkable area as one WKT
// POLYGON, with holes, in its geometry table, and PedPy's loader
// (load_walkable_area_from_jupedsim_sqlite) unions the rows and accepts
// only a single Polygon. walkable.c cuts the world's obstacles and walls out
// of a box (its bounds) with GEOS's C API and writes what is left as that
// one polygon; docs/FORMAT.md, "SQLite", states every choice below.
#ifndef THRONG_CORE_IO_WALKABLE_H
#define THRONG_CORE_IO_WALKABLE_H

#include <stdint.h>

#include "throng/throng.h"

/// Largest distance (m) between an obstacle's circle and the polygon that
/// stands for it: the polygon's vertices lie on the circle and it has
/// enough sides that the sagitta r (1 - cos(pi / n)) is at most this.
#define THR_WALKABLE_CIRCLE_TOLERANCE 1.0e-3
/// Fewest and most sides of an obstacle's polygon. At the largest radius a
/// world accepts (1e6 m) the tolerance needs 70,249 sides, below the cap.
#define THR_WALKABLE_CIRCLE_MIN_SIDES 16u
#define THR_WALKABLE_CIRCLE_MAX_SIDES 131072u
/// Half-thickness (m) a wall segment is given: its buffer, with round ends
/// of 8 segments a full turn, is cut out, so a wall 1 cm thick.
#define THR_WALKABLE_WALL_HALF_THICKNESS 0.005
/// The coordinates written are snapped to this grid (m) by GEOS, which
/// keeps the polygon valid, and written with 6 decimals.
#define THR_WALKABLE_GRID 1.0e-6

/// Positions that choose the piece kept when walls cut the area apart.
typedef struct thr_walkable_points {
	const float* x;
	const float* y;
	uint32_t count; ///< 0 = none
} thr_walkable_points;

/// Copies of a world's obstacles and walls, as the walkable area needs them.
typedef struct thr_walkable_shapes {
	uint32_t obstacles;
	uint32_t walls;
	double* obstacle; ///< centre x, centre y, radius per obstacle (m)
	double* wall;     ///< a.x, a.y, b.x, b.y per wall (m)
} thr_walkable_shapes;

/// What thr_walkable_wkt wrote.
typedef struct thr_walkable_info {
	uint32_t pieces;   ///< pieces the box minus the shapes falls into (1 when connected)
	uint32_t inside;   ///< of the points, those in the piece kept (all of them when there is one piece)
	uint32_t holes;    ///< interior rings of the polygon written
	double area;       ///< area of the polygon written (m^2)
	double dropped;    ///< area of the pieces left out (m^2)
} thr_walkable_info;

/// Copies the world's obstacles and walls into *out (zeroed first).
/// THRONG_ERR_OUT_OF_MEMORY when an allocation fails.
throng_status thr_walkable_shapes_of(const throng_world* world, thr_walkable_shapes* out);

/// Frees what thr_walkable_shapes_of allocated; zeroes *s.
void thr_walkable_shapes_free(thr_walkable_shapes* s);

/// The walkable area: the box (xmin, ymin, xmax, ymax), its edges moved
/// outward onto THR_WALKABLE_GRID, minus every obstacle
/// (a polygon within THR_WALKABLE_CIRCLE_TOLERANCE of its circle) and every
/// wall (buffered by THR_WALKABLE_WALL_HALF_THICKNESS), snapped to
/// THR_WALKABLE_GRID. When the walls cut it into pieces, the piece that
/// holds the most of `points` (on its boundary counts); when none holds
/// more than the others, the largest of those by area (ties: the lowest
/// xmin, then ymin of its envelope). Normalised
/// and written as `POLYGON ((...), (...))`: every ring closed, the outer
/// one counter-clockwise from its lowest-left vertex, the holes clockwise,
/// in GEOS's normal order. *wkt is malloc'ed (the caller frees it).
/// Fails (THRONG_ERR_INVALID_ARGUMENT, message prefixed by `who`) when the
/// shapes cover the whole box, and with GEOS's message when GEOS fails.
throng_status thr_walkable_wkt(const thr_walkable_shapes* s, const double box[4], thr_walkable_points points,
                               char** wkt, thr_walkable_info* info, const char* who);

#endif
