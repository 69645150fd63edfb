// SPDX-License-Identifier: MIT
#include "grid.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int reserve(uint32_t** p, uint32_t* cap, uint32_t need)
{
	if (need <= *cap) {
		return 0;
	}
	uint32_t n = *cap ? *cap : 64;
	while (n < need) {
		n = n > UINT32_MAX / 2 ? need : n * 2;
	}
	uint32_t* q = realloc(*p, (size_t)n * sizeof **p);
	if (q == NULL) {
		return -1;
	}
	*p = q;
	*cap = n;
	return 0;
}

/// Most rounds of the enlarging loop in thr_grid_layout. A round multiplies
/// a positive normal float by 1.25f, which grows it by a factor of at least
/// 1.25 * (1 - 2^-24) (x/4 is far above half an ulp of x). From FLT_MIN
/// (1.2e-38), 800 such rounds pass FLT_MAX, where the cell is infinite and
/// one cell covers the world (w / inf = 0): so 1024 rounds always end the
/// loop; a validated world (cells >= 1e-6 m across at most 2e6 m, at
/// least 1026 cells) ends it within 120.
#define THR_GRID_MAX_ROUNDS 1024

void thr_grid_layout(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                     uint32_t max_cells)
{
	float w = max_x - min_x;
	float h = max_y - min_y;
	if (max_cells < 1) {
		max_cells = 1;
	}
	bool laid = false;
	// 1.25f cannot grow 0, a subnormal, a negative or NaN (1.4e-45 * 1.25f
	// rounds back to 1.4e-45): those cells skip the loop and take the
	// fallback below, as does anything the bound cuts short.
	if (cell >= FLT_MIN && cell <= FLT_MAX) {
		for (int round = 0; round < THR_GRID_MAX_ROUNDS; ++round) {
			double nx = ceil((double)w / cell);
			double ny = ceil((double)h / cell);
			if (nx < 1) nx = 1;
			if (ny < 1) ny = 1;
			if (nx * ny <= (double)max_cells) {
				g->nx = (int32_t)nx;
				g->ny = (int32_t)ny;
				laid = true;
				break;
			}
			cell *= 1.25f;
		}
	}
	if (!laid) {
		// One cell over the whole world.
		cell = w > h ? w : h;
		if (!(cell >= FLT_MIN && cell <= FLT_MAX)) {
			cell = 1.0f;
		}
		g->nx = 1;
		g->ny = 1;
	}
	g->min_x = min_x;
	g->min_y = min_y;
	g->cell = cell;
	g->inv_cell = 1.0f / cell;
}

/// The cell of point (x, y).
static inline uint32_t point_cell(const thr_grid* g, float x, float y)
{
	const int32_t cx = thr_grid_coord(x, g->min_x, g->inv_cell, g->nx);
	const int32_t cy = thr_grid_coord(y, g->min_y, g->inv_cell, g->ny);
	return (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
}

int thr_grid_build_points(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key)
{
	uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	if (reserve(&g->cell_start, &g->cap_cells, cells + 1) || reserve(&g->items, &g->cap_items, n)) {
		g->n_items = 0;
		return -1;
	}
	uint32_t* start = g->cell_start;
	memset(start, 0, (size_t)(cells + 1) * sizeof *start);
	for (uint32_t i = 0; i < n; ++i) {
		start[point_cell(g, x[i], y[i]) + 1]++;
	}
	for (uint32_t c = 0; c < cells; ++c) {
		start[c + 1] += start[c];
	}
	// Scatter in index order, the cell computed again (reading x and y in
	// order costs less than keeping a cell per point); the cursor borrows
	// start[c] and is restored afterwards.
	for (uint32_t i = 0; i < n; ++i) {
		g->items[start[point_cell(g, x[i], y[i])]++] = i;
	}
	for (uint32_t c = cells; c > 0; --c) {
		start[c] = start[c - 1];
	}
	start[0] = 0;
	g->n_items = n;
	if (key == NULL) {
		return 0;
	}
	// Each cell in key order: insertion sort, which costs one comparison an
	// item in a cell already in order (after a sorting engine's reorder,
	// nearly every cell is: its agents keep their cells and their order).
	for (uint32_t c = 0; c < cells; ++c) {
		const uint32_t b = start[c], e = start[c + 1];
		for (uint32_t k = b + 1; k < e; ++k) {
			const uint32_t item = g->items[k], v = key[item];
			uint32_t j = k;
			for (; j > b && key[g->items[j - 1]] > v; --j) {
				g->items[j] = g->items[j - 1];
			}
			g->items[j] = item;
		}
	}
	return 0;
}

int thr_grid_build_boxes(thr_grid* g, const float* x0, const float* y0, const float* x1, const float* y1,
                         uint32_t n)
{
	uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	if (reserve(&g->cell_start, &g->cap_cells, cells + 1)) {
		g->n_items = 0;
		return -1;
	}
	memset(g->cell_start, 0, (size_t)(cells + 1) * sizeof *g->cell_start);
	uint64_t total = 0;
	for (int pass = 0; pass < 2; ++pass) {
		for (uint32_t i = 0; i < n; ++i) {
			int32_t ax = thr_grid_coord(x0[i], g->min_x, g->inv_cell, g->nx);
			int32_t bx = thr_grid_coord(x1[i], g->min_x, g->inv_cell, g->nx);
			int32_t ay = thr_grid_coord(y0[i], g->min_y, g->inv_cell, g->ny);
			int32_t by = thr_grid_coord(y1[i], g->min_y, g->inv_cell, g->ny);
			for (int32_t cy = ay; cy <= by; ++cy) {
				for (int32_t cx = ax; cx <= bx; ++cx) {
					uint32_t c = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
					if (pass == 0) {
						g->cell_start[c + 1]++;
						total++;
					} else {
						g->items[g->cell_start[c]++] = i;
					}
				}
			}
		}
		if (pass == 0) {
			if (total > UINT32_MAX || reserve(&g->items, &g->cap_items, (uint32_t)total)) {
				g->n_items = 0;
				return -1;
			}
			for (uint32_t c = 0; c < cells; ++c) {
				g->cell_start[c + 1] += g->cell_start[c];
			}
		}
	}
	for (uint32_t c = cells; c > 0; --c) {
		g->cell_start[c] = g->cell_start[c - 1];
	}
	g->cell_start[0] = 0;
	g->n_items = (uint32_t)total;
	return 0;
}

int64_t thr_grid_query(const thr_grid* g, float x, float y, float r, uint32_t** out, uint32_t* cap)
{
	if (g->n_items == 0) {
		return 0;
	}
	int32_t cx0, cx1, cy0, cy1;
	thr_grid_range(g, x, y, r, &cx0, &cx1, &cy0, &cy1);
	uint32_t count = 0;
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b = g->cell_start[row + (uint32_t)cx0];
		uint32_t e = g->cell_start[row + (uint32_t)cx1 + 1];
		// Cells of one row are contiguous in `items`.
		if (e == b) {
			continue;
		}
		if (reserve(out, cap, count + (e - b))) {
			return -1;
		}
		memcpy(*out + count, g->items + b, (size_t)(e - b) * sizeof **out);
		count += e - b;
	}
	return count;
}

void thr_grid_free(thr_grid* g)
{
	free(g->cell_start);
	free(g->items);
	memset(g, 0, sizeof *g);
}
