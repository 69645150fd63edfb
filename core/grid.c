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

/// Largest cell sorted beside, on the stack (thr_grid_build_points).
#define THR_GRID_SORT_SMALL 128

static int by_value(const void* a, const void* b)
{
	const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

/// Sorts the m items of one cell by key (distinct keys). Returns -1 when
/// out of memory for a cell of more than THR_GRID_SORT_SMALL items.
static int sort_cell(uint32_t* items, uint32_t m, const uint32_t* key)
{
	uint32_t k = 1;
	for (uint32_t prev = m > 0 ? key[items[0]] : 0; k < m; ++k) {
		const uint32_t v = key[items[k]];
		if (v < prev) {
			break;
		}
		prev = v;
	}
	if (k >= m) {
		return 0; // in order
	}
	uint64_t small[THR_GRID_SORT_SMALL];
	uint64_t* pair = m <= THR_GRID_SORT_SMALL ? small : malloc((size_t)m * sizeof *pair);
	if (pair == NULL) {
		return -1;
	}
	for (uint32_t j = 0; j < m; ++j) {
		pair[j] = (uint64_t)key[items[j]] << 32 | items[j];
	}
	if (pair == small) {
		for (; k < m; ++k) {
			const uint64_t v = pair[k];
			uint32_t j = k;
			for (; j > 0 && pair[j - 1] > v; --j) {
				pair[j] = pair[j - 1];
			}
			pair[j] = v;
		}
	} else {
		qsort(pair, m, sizeof *pair, by_value);
	}
	for (uint32_t j = 0; j < m; ++j) {
		items[j] = (uint32_t)pair[j];
	}
	if (pair != small) {
		free(pair);
	}
	return 0;
}

int thr_grid_build_points(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key)
{
	uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	if (reserve(&g->cell_start, &g->cap_cells, cells + 1) || reserve(&g->items, &g->cap_items, n)) {
		g->n_items = 0;
		return -1;
	}
	uint32_t* start = g->cell_start;
	uint32_t* items = g->items;
	memset(start, 0, (size_t)(cells + 1) * sizeof *start);
	for (uint32_t i = 0; i < n; ++i) {
		start[point_cell(g, x[i], y[i])]++;
	}
	// start[c]: the end of cell c; then a scatter from the last index down
	// leaves it at the cell's first entry, each cell in index order. The
	// cell is computed again (reading x and y in order costs less than
	// keeping a cell per point).
	for (uint32_t c = 1; c <= cells; ++c) {
		start[c] += start[c - 1];
	}
	for (uint32_t i = n; i-- > 0;) {
		items[--start[point_cell(g, x[i], y[i])]] = i;
	}
	g->n_items = n;
	if (key == NULL) {
		return 0;
	}
	// Each cell in key order. A cell already in order (after a sorting
	// engine's reorder, nearly every one: its agents keep their cells and
	// their order) costs one comparison an item: where the key falls
	// between two neighbouring entries of one cell, that cell is sorted
	// (sort_cell). Cells are not visited (a sparse world has far more).
	for (uint32_t k = 1; k < n; ++k) {
		if (key[items[k]] > key[items[k - 1]]) {
			continue;
		}
		const uint32_t c = point_cell(g, x[items[k]], y[items[k]]);
		if (k == start[c]) {
			continue; // the first of its cell
		}
		if (sort_cell(items + start[c], start[c + 1] - start[c], key) != 0) {
			g->n_items = 0;
			return -1;
		}
		k = start[c + 1]; // the cell is in order now
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
