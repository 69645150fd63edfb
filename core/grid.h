// SPDX-License-Identifier: MIT
// Uniform grids (private): one for agents, rebuilt every step by a stable
// counting sort, and one for static shapes (obstacles, walls).
//
// The grid covers the world's bounds. Coordinates outside are clamped to
// the border cells, so an agent outside the grid's extent lands in the
// nearest border cell and a query clamped the same way still finds it:
// clamping is monotone, so if |x_j - x_i| <= r then clamp(cell(x_j)) lies
// within [clamp(cell(x_i - r)), clamp(cell(x_i + r))]. Crowds far outside
// the bounds stay correct but pile into border cells and get slower.
//
// Agents are counted per cell, prefix-summed, and scattered in slot order,
// so each cell lists its agents in increasing slot order (stable). Shapes
// are inserted into every cell their bounding box overlaps; a query may
// see a shape twice and callers break ties by index.
#ifndef THRONG_CORE_GRID_H
#define THRONG_CORE_GRID_H

#include <stdint.h>

typedef struct thr_grid {
	float min_x, min_y;
	float cell, inv_cell;
	int32_t nx, ny;
	uint32_t n_items;       ///< entries in `items`
	uint32_t* cell_start;   ///< nx*ny + 1 offsets into items
	uint32_t* items;        ///< item indices grouped by cell
	uint32_t cap_cells, cap_items;
} thr_grid;

/// Lays the grid over [min, max] with cells of at least `cell` metres,
/// enlarging the cell until there are at most max_cells cells. Always
/// returns: a cell that cannot be enlarged (0, subnormal, negative, NaN)
/// gives one cell over the whole world.
void thr_grid_layout(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                     uint32_t max_cells);

/// Buckets n points by cell. Within a cell, points are listed by
/// increasing key[i] (keys distinct), or by increasing index i when key is
/// NULL. Returns 0, or -1 when an allocation fails (the grid is then
/// empty).
int thr_grid_build_points(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key);

/// Buckets n boxes [x0,x1]x[y0,y1] into every cell they overlap.
int thr_grid_build_boxes(thr_grid* g, const float* x0, const float* y0, const float* x1, const float* y1,
                         uint32_t n);

void thr_grid_free(thr_grid* g);

/// The clamped cell coordinate of v along one axis.
static inline int32_t thr_grid_coord(float v, float min, float inv_cell, int32_t n)
{
	float f = (v - min) * inv_cell;
	if (!(f > 0.0f)) { // also catches NaN
		return 0;
	}
	if (f >= (float)n) {
		return n - 1;
	}
	return (int32_t)f;
}

/// The inclusive cell range covering the box [x-r, x+r] x [y-r, y+r].
static inline void thr_grid_range(const thr_grid* g, float x, float y, float r, int32_t* cx0, int32_t* cx1,
                                  int32_t* cy0, int32_t* cy1)
{
	*cx0 = thr_grid_coord(x - r, g->min_x, g->inv_cell, g->nx);
	*cx1 = thr_grid_coord(x + r, g->min_x, g->inv_cell, g->nx);
	*cy0 = thr_grid_coord(y - r, g->min_y, g->inv_cell, g->ny);
	*cy1 = thr_grid_coord(y + r, g->min_y, g->inv_cell, g->ny);
}

/// Appends to *out (growing it) every item in the cells covering the box
/// around (x, y) of half-size r, cells row by row, items in cell order.
/// Returns the count, or -1 when an allocation fails.
int64_t thr_grid_query(const thr_grid* g, float x, float y, float r, uint32_t** out, uint32_t* cap);

#endif
