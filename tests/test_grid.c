// SPDX-License-Identifier: MIT
// The uniform grids against brute force, on random worlds with agents on
// cell borders and outside the grid's extent, and the compact box grid
// against a dense build done here.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "support.h"

enum { N = 3000 };

/// Sorted, de-duplicated copy of the candidates within r (strict) of (x, y).
static uint32_t within(const uint32_t* cand, int64_t n, const float* px, const float* py, float x, float y,
                       float r, uint32_t* out)
{
	uint32_t m = 0;
	for (int64_t k = 0; k < n; ++k) {
		uint32_t j = cand[k];
		float dx = px[j] - x, dy = py[j] - y;
		if (dx * dx + dy * dy < r * r) {
			out[m++] = j;
		}
	}
	return m;
}

static int cmp_u32(const void* a, const void* b)
{
	uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
	return (x > y) - (x < y);
}

/// Fills positions: a third on cell borders, a fifth outside [-20, 20]^2,
/// the rest uniform inside.
static void random_world(uint64_t* rng, float* px, float* py, float cell)
{
	for (uint32_t i = 0; i < N; ++i) {
		float u = thr_test_uniform(rng, 0.0f, 1.0f);
		if (u < 0.33f) {
			// exactly on a cell border (grid origin -20)
			px[i] = -20.0f + cell * (float)(int)thr_test_uniform(rng, 0.0f, 40.0f / cell);
			py[i] = thr_test_uniform(rng, -20.0f, 20.0f);
		} else if (u < 0.53f) {
			px[i] = thr_test_uniform(rng, -60.0f, 60.0f);
			py[i] = thr_test_uniform(rng, -60.0f, 60.0f);
		} else {
			px[i] = thr_test_uniform(rng, -20.0f, 20.0f);
			py[i] = thr_test_uniform(rng, -20.0f, 20.0f);
		}
	}
}

// Points as boxes of no size: a box grid's query finds what brute force does.
Test(grid, queries_equal_brute_force)
{
	static float px[N], py[N];
	static uint32_t a[N], b[N];
	uint64_t rng = 42;
	const float cells[] = {0.5f, 1.0f, 2.5f, 7.0f};
	for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
		random_world(&rng, px, py, cells[c]);
		thr_box_grid g;
		memset(&g, 0, sizeof g);
		thr_box_grid_layout(&g, -20.0f, -20.0f, 20.0f, 20.0f, cells[c], 1u << 20);
		cr_assert_eq(thr_box_grid_build(&g, px, py, px, py, N), 0);
		uint32_t* idx = NULL;
		uint32_t cap = 0;
		for (uint32_t i = 0; i < N; i += 7) {
			float r = thr_test_uniform(&rng, 0.1f, 3.0f * cells[c]);
			int64_t n = thr_box_grid_query(&g, px[i], py[i], r, &idx, &cap);
			cr_assert_geq(n, 0);
			uint32_t na = within(idx, n, px, py, px[i], py[i], r, a);
			uint32_t nb = 0;
			for (uint32_t j = 0; j < N; ++j) {
				float dx = px[j] - px[i], dy = py[j] - py[i];
				if (dx * dx + dy * dy < r * r) {
					b[nb++] = j;
				}
			}
			qsort(a, na, sizeof *a, cmp_u32);
			cr_assert_eq(na, nb, "cell %g agent %u r %g: grid found %u, brute force %u", cells[c], i, r, na, nb);
			cr_assert_arr_eq(a, b, na * sizeof *a);
		}
		free(idx);
		thr_box_grid_free(&g);
	}
}

Test(grid, counting_sort_is_stable_and_complete)
{
	static float px[N], py[N];
	uint64_t rng = 7;
	random_world(&rng, px, py, 1.0f);
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout(&g, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 1u << 20);
	cr_assert_eq(thr_grid_build_points(&g, px, py, N, NULL), 0);
	uint32_t cells = (uint32_t)(g.nx * g.ny);
	cr_assert_eq(g.cell_start[0], 0u);
	cr_assert_eq(g.cell_start[cells], (uint32_t)N);
	static uint8_t seen[N];
	memset(seen, 0, sizeof seen);
	for (uint32_t c = 0; c < cells; ++c) {
		for (uint32_t k = g.cell_start[c]; k < g.cell_start[c + 1]; ++k) {
			uint32_t i = g.items[k];
			const int32_t cx = thr_grid_coord(px[i], g.min_x, g.inv_cell, g.nx);
			const int32_t cy = thr_grid_coord(py[i], g.min_y, g.inv_cell, g.ny);
			cr_assert_eq((uint32_t)cy * (uint32_t)g.nx + (uint32_t)cx, c, "agent %u listed in cell %u", i, c);
			seen[i]++;
			if (k > g.cell_start[c]) {
				cr_assert_lt(g.items[k - 1], i, "cell %u is not in index order", c);
			}
		}
	}
	for (uint32_t i = 0; i < N; ++i) {
		cr_assert_eq(seen[i], 1, "agent %u listed %u times", i, seen[i]);
	}
	thr_grid_free(&g);
}

// With keys (a sorting engine passes the ids of its slots), each cell
// lists its points by increasing key: the same lists as placing the
// points in key order, whatever order the slots are in. Points are
// shuffled a little (most keep their place, as after a reorder) and a
// lot, in cells of a few points and of hundreds (sorted another way).
Test(grid, keyed_cells_list_points_by_key)
{
	static float px[N], py[N];
	static uint32_t key[N], by_key[N];
	uint64_t rng = 9;
	random_world(&rng, px, py, 1.0f);
	for (int pass = 0; pass < 4; ++pass) {
		const int round = pass & 1;
		const float cell = pass < 2 ? 1.0f : 20.0f; // 20 m: four cells of ~750 points
		for (uint32_t i = 0; i < N; ++i) {
			key[i] = i;
		}
		const uint32_t swaps = round == 0 ? N / 20 : 4 * N;
		for (uint32_t s = 0; s < swaps; ++s) {
			uint32_t a = (uint32_t)thr_test_uniform(&rng, 0.0f, (float)N) % N;
			uint32_t b = round == 0 ? (a + 1u) % N : (uint32_t)thr_test_uniform(&rng, 0.0f, (float)N) % N;
			uint32_t t = key[a];
			key[a] = key[b];
			key[b] = t;
		}
		for (uint32_t i = 0; i < N; ++i) {
			by_key[key[i]] = i;
		}
		thr_grid g, ref;
		memset(&g, 0, sizeof g);
		memset(&ref, 0, sizeof ref);
		thr_grid_layout(&g, -20.0f, -20.0f, 20.0f, 20.0f, cell, 1u << 20);
		ref = g;
		cr_assert_eq(thr_grid_build_points(&g, px, py, N, key), 0);
		// The reference: points placed one by one in key order.
		cr_assert_eq(thr_grid_build_points(&ref, px, py, N, NULL), 0);
		const uint32_t cells = (uint32_t)(g.nx * g.ny);
		uint32_t* fill = calloc(cells + 1u, sizeof *fill);
		for (uint32_t c = 0; c <= cells; ++c) {
			fill[c] = ref.cell_start[c];
		}
		for (uint32_t k = 0; k < N; ++k) {
			const uint32_t i = by_key[k];
			const int32_t cx = thr_grid_coord(px[i], g.min_x, g.inv_cell, g.nx);
			const int32_t cy = thr_grid_coord(py[i], g.min_y, g.inv_cell, g.ny);
			ref.items[fill[(uint32_t)cy * (uint32_t)g.nx + (uint32_t)cx]++] = i;
		}
		cr_assert_arr_eq(g.cell_start, ref.cell_start, (cells + 1u) * sizeof *g.cell_start);
		cr_assert_arr_eq(g.items, ref.items, N * sizeof *g.items, "cell %g, round %d: a cell's points out of key order",
		                 cell, round);
		free(fill);
		thr_grid_free(&g);
		thr_grid_free(&ref);
	}
}

Test(grid, outside_agents_land_in_border_cells)
{
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout(&g, 0.0f, 0.0f, 10.0f, 10.0f, 1.0f, 1000);
	cr_assert_eq(g.nx, 10);
	cr_assert_eq(g.ny, 10);
	// Far left, far right, exactly on the max edge, NaN-free huge values.
	cr_assert_eq(thr_grid_coord(-5.0f, g.min_x, g.inv_cell, g.nx), 0);
	cr_assert_eq(thr_grid_coord(1.0e6f, g.min_x, g.inv_cell, g.nx), 9);
	cr_assert_eq(thr_grid_coord(10.0f, g.min_x, g.inv_cell, g.nx), 9);
	cr_assert_eq(thr_grid_coord(1.0f, g.min_x, g.inv_cell, g.nx), 1);
	cr_assert_eq(thr_grid_coord(0.999f, g.min_x, g.inv_cell, g.nx), 0);
	thr_grid_free(&g);
}

Test(grid, layout_caps_cell_count)
{
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout(&g, 0.0f, 0.0f, 1000.0f, 1000.0f, 0.1f, 5000);
	cr_assert_leq((uint64_t)g.nx * (uint64_t)g.ny, 5000u);
	cr_assert_geq(g.cell, 0.1f);
	thr_grid_free(&g);
}

Test(grid, boxes_cover_every_overlapped_cell)
{
	// One long wall-like box across the grid and a small one in a corner.
	float x0[] = {-1.0f, 8.2f}, y0[] = {4.5f, 8.2f}, x1[] = {11.0f, 8.4f}, y1[] = {4.6f, 8.4f};
	thr_box_grid g;
	memset(&g, 0, sizeof g);
	thr_box_grid_layout(&g, 0.0f, 0.0f, 10.0f, 10.0f, 1.0f, 1000);
	cr_assert_eq(thr_box_grid_build(&g, x0, y0, x1, y1, 2), 0);
	cr_assert_eq(g.n_items, 10u + 1u);
	cr_assert_eq(g.n_occupied, 10u + 1u);
	uint32_t* idx = NULL;
	uint32_t cap = 0;
	// A query near (0.5, 4.5) sees box 0 only; near (8.3, 8.3) both? No:
	// box 0 spans row 4 only, so only box 1.
	int64_t n = thr_box_grid_query(&g, 0.5f, 4.5f, 0.1f, &idx, &cap);
	cr_assert_eq(n, 1);
	cr_assert_eq(idx[0], 0u);
	n = thr_box_grid_query(&g, 8.3f, 8.3f, 0.05f, &idx, &cap);
	cr_assert_eq(n, 1);
	cr_assert_eq(idx[0], 1u);
	free(idx);
	thr_box_grid_free(&g);
}

/// The dense form of a box grid, built here the plain way: counts per
/// cell, prefix sums, boxes scattered in index order over their cells row
/// by row (what thr_box_grid_build did before it was compact).
typedef struct dense_grid {
	uint32_t* start; ///< nx*ny + 1
	uint32_t* items;
	uint32_t n_items;
} dense_grid;

static dense_grid dense_build(const thr_box_grid* g, const float* x0, const float* y0, const float* x1,
                              const float* y1, uint32_t n)
{
	const uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	dense_grid d = {calloc(cells + 1u, sizeof(uint32_t)), NULL, 0};
	cr_assert_not_null(d.start);
	for (int pass = 0; pass < 2; ++pass) {
		for (uint32_t i = 0; i < n; ++i) {
			const int32_t ax = thr_grid_coord(x0[i], g->min_x, g->inv_cell, g->nx);
			const int32_t bx = thr_grid_coord(x1[i], g->min_x, g->inv_cell, g->nx);
			const int32_t ay = thr_grid_coord(y0[i], g->min_y, g->inv_cell, g->ny);
			const int32_t by = thr_grid_coord(y1[i], g->min_y, g->inv_cell, g->ny);
			for (int32_t cy = ay; cy <= by; ++cy) {
				for (int32_t cx = ax; cx <= bx; ++cx) {
					const uint32_t c = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
					if (pass == 0) {
						d.start[c + 1u]++;
					} else {
						d.items[d.start[c]++] = i;
					}
				}
			}
		}
		if (pass == 0) {
			for (uint32_t c = 0; c < cells; ++c) {
				d.start[c + 1u] += d.start[c];
			}
			d.n_items = d.start[cells];
			d.items = malloc((size_t)(d.n_items ? d.n_items : 1u) * sizeof *d.items);
			cr_assert_not_null(d.items);
		}
	}
	for (uint32_t c = cells; c > 0; --c) {
		d.start[c] = d.start[c - 1u];
	}
	d.start[0] = 0;
	return d;
}

/// g's compact starts, spans and items against the dense build of the same
/// boxes.
static void expect_dense(const thr_box_grid* g, const float* x0, const float* y0, const float* x1, const float* y1,
                         uint32_t n, const char* what)
{
	const uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	dense_grid d = dense_build(g, x0, y0, x1, y1, n);
	cr_assert_eq(g->n_items, d.n_items, "%s: %u items, dense %u", what, g->n_items, d.n_items);
	uint32_t occupied = 0;
	for (uint32_t c = 0; c <= cells; ++c) {
		cr_assert_eq(thr_box_grid_start(g, c), d.start[c], "%s (%d x %d cells): start(%u) = %u, dense %u", what,
		             g->nx, g->ny, c, thr_box_grid_start(g, c), d.start[c]);
		occupied += c < cells && d.start[c + 1u] > d.start[c];
	}
	cr_assert_eq(thr_box_grid_start(g, cells), g->n_items, "%s", what);
	cr_assert_eq(g->n_occupied, occupied, "%s: %u occupied cells, dense %u", what, g->n_occupied, occupied);
	if (d.n_items > 0) { // an empty grid may have no items array
		cr_assert_arr_eq(g->items, d.items, (size_t)d.n_items * sizeof *d.items, "%s: items differ", what);
	}
	// Every row's runs of cells: the span is the dense one, false when empty.
	for (int32_t cy = 0; cy < g->ny; ++cy) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		for (int32_t a = 0; a < g->nx; ++a) {
			for (int32_t b = a; b < g->nx; ++b) {
				uint32_t kb = 7, ke = 7;
				const bool any = thr_box_grid_span(g, row + (uint32_t)a, row + (uint32_t)b, &kb, &ke);
				const uint32_t db = d.start[row + (uint32_t)a], de = d.start[row + (uint32_t)b + 1u];
				cr_assert_eq(any, de > db, "%s: row %d cells %d..%d", what, cy, a, b);
				cr_assert_eq(ke - kb, de - db, "%s: row %d cells %d..%d", what, cy, a, b);
				if (any) {
					cr_assert_eq(kb, db, "%s: row %d cells %d..%d", what, cy, a, b);
				}
			}
		}
	}
	free(d.start);
	free(d.items);
}

enum { BOXES = 400 };

/// n random boxes around the grid [0, w] x [0, h]: small ones inside, a
/// fifth reaching past an edge (clamped to the border cells), a tenth
/// entirely outside, a few degenerate (points) or inverted (covering no
/// cell), a few long walls along a whole row or column.
static void random_boxes(uint64_t* rng, float w, float h, uint32_t n, float* x0, float* y0, float* x1, float* y1)
{
	for (uint32_t i = 0; i < n; ++i) {
		const float u = thr_test_uniform(rng, 0.0f, 1.0f);
		float cx = thr_test_uniform(rng, 0.0f, w), cy = thr_test_uniform(rng, 0.0f, h);
		float rx = thr_test_uniform(rng, 0.0f, 1.5f), ry = thr_test_uniform(rng, 0.0f, 1.5f);
		if (u < 0.2f) {
			rx += w * 0.5f; // past an edge
		} else if (u < 0.3f) {
			cx = thr_test_uniform(rng, -3.0f * w, -w); // outside, left
			cy = thr_test_uniform(rng, h, 3.0f * h);   // and above
		} else if (u < 0.35f) {
			rx = ry = 0.0f;
		} else if (u < 0.4f) {
			rx = -1.0f; // x0 > x1
		} else if (u < 0.45f) {
			rx = 2.0f * w; // a row-long wall
			ry = 0.01f;
		}
		x0[i] = cx - rx;
		x1[i] = cx + rx;
		y0[i] = cy - ry;
		y1[i] = cy + ry;
	}
}

Test(grid, compact_starts_equal_the_dense_ones)
{
	// Cells across and up: 128 and 4096 cells (multiples of 64), 64 (one
	// word, and start(64) reads the word past it), 70, 9, 1, 63 x 65.
	const int32_t dims[][2] = {{16, 8}, {64, 64}, {64, 1}, {8, 8}, {10, 7}, {3, 3}, {1, 1}, {63, 65}, {1, 200}};
	static float x0[BOXES], y0[BOXES], x1[BOXES], y1[BOXES];
	uint64_t rng = 14;
	for (size_t k = 0; k < sizeof dims / sizeof dims[0]; ++k) {
		const float w = (float)dims[k][0], h = (float)dims[k][1];
		thr_box_grid g;
		memset(&g, 0, sizeof g);
		thr_box_grid_layout(&g, 0.0f, 0.0f, w, h, 1.0f, 1u << 20);
		cr_assert_eq(g.nx, dims[k][0]);
		cr_assert_eq(g.ny, dims[k][1]);
		char what[64];
		// No boxes: every start 0, no occupied cell, every span empty.
		snprintf(what, sizeof what, "%d x %d, empty", g.nx, g.ny);
		cr_assert_eq(thr_box_grid_build(&g, x0, y0, x1, y1, 0), 0);
		expect_dense(&g, x0, y0, x1, y1, 0, what);
		cr_assert_eq(g.n_occupied, 0u);
		// A few boxes, then many, then a few again (the same grid rebuilt,
		// its arrays reused).
		const uint32_t counts[] = {3, BOXES, 20};
		for (size_t j = 0; j < sizeof counts / sizeof counts[0]; ++j) {
			random_boxes(&rng, w, h, counts[j], x0, y0, x1, y1);
			snprintf(what, sizeof what, "%d x %d, %u boxes", g.nx, g.ny, counts[j]);
			cr_assert_eq(thr_box_grid_build(&g, x0, y0, x1, y1, counts[j]), 0);
			expect_dense(&g, x0, y0, x1, y1, counts[j], what);
		}
		thr_box_grid_free(&g);
		cr_assert_null(g.occupied);
	}
}

Test(grid, compact_grid_marks_border_cells)
{
	// A box wholly left of and below the grid lands in cell 0 alone; one
	// past the top right corner in the last cell (63 of 64: the last bit of
	// the only word); one across everything in all 64.
	thr_box_grid g;
	memset(&g, 0, sizeof g);
	thr_box_grid_layout(&g, 0.0f, 0.0f, 8.0f, 8.0f, 1.0f, 1000);
	float x0[] = {-9.0f, 20.0f, -1.0f}, y0[] = {-9.0f, 20.0f, -1.0f}, x1[] = {-5.0f, 30.0f, 9.0f},
	      y1[] = {-5.0f, 30.0f, 9.0f};
	cr_assert_eq(thr_box_grid_build(&g, x0, y0, x1, y1, 2), 0);
	cr_assert_eq(g.n_occupied, 2u);
	cr_assert_eq(g.occupied[0], (UINT64_C(1) << 63) | 1u);
	cr_assert_eq(g.occupied[1], 0u);
	cr_assert_eq(thr_box_grid_start(&g, 0), 0u);
	cr_assert_eq(thr_box_grid_start(&g, 1), 1u);
	cr_assert_eq(thr_box_grid_start(&g, 63), 1u);
	cr_assert_eq(thr_box_grid_start(&g, 64), 2u);
	cr_assert_eq(thr_box_grid_build(&g, x0, y0, x1, y1, 3), 0);
	cr_assert_eq(g.n_occupied, 64u);
	cr_assert_eq(g.n_items, 66u);
	cr_assert_eq(g.word_base[1], 64u);
	cr_assert_eq(thr_box_grid_start(&g, 1), 2u); // boxes 0 and 2 in cell 0
	cr_assert_eq(thr_box_grid_start(&g, 64), 66u);
	cr_assert_eq(g.items[0], 0u);
	cr_assert_eq(g.items[1], 2u);
	cr_assert_eq(g.items[65], 2u); // cell 63: box 1, then box 2
	cr_assert_eq(g.items[64], 1u);
	thr_box_grid_free(&g);
}

// Issue 11: a subnormal cell (a radius of 1e-45 made one) kept
// `cell *= 1.25f` at 1.4e-45 forever. Every cell now gives a layout.
Test(grid, layout_ends_for_every_cell, .timeout = 10)
{
	const float cells[] = {1.0e-45f, 2.8e-45f, 0.0f, -1.0f, NAN, -INFINITY, INFINITY, FLT_MIN, 1.0e-30f, 1.0e-6f};
	for (size_t k = 0; k < sizeof cells / sizeof cells[0]; ++k) {
		thr_grid g;
		memset(&g, 0, sizeof g);
		thr_grid_layout(&g, -1.0e6f, -1.0e6f, 1.0e6f, 1.0e6f, cells[k], 1026u);
		cr_assert(g.nx >= 1 && g.ny >= 1 && (uint64_t)g.nx * (uint64_t)g.ny <= 1026u, "cell %g: %d x %d cells",
		          (double)cells[k], g.nx, g.ny);
		cr_assert(g.cell > 0.0f && !isnan(g.cell), "cell %g: laid out with %g", (double)cells[k], (double)g.cell);
		// Every point still lands in a cell.
		float xs[2] = {-1.0e6f, 1.0e6f}, ys[2] = {1.0e6f, -1.0e6f};
		cr_assert_eq(thr_grid_build_points(&g, xs, ys, 2, NULL), 0);
		thr_grid_free(&g);
	}
	// A normal cell is enlarged by the same rounds as before: 1 m over
	// 100 m with at most 100 cells takes 1.25^11 = 11.64 m (9 x 9 cells).
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout(&g, 0.0f, 0.0f, 100.0f, 100.0f, 1.0f, 100u);
	float want = 1.0f;
	while (ceilf(100.0f / want) * ceilf(100.0f / want) > 100.0f) {
		want *= 1.25f;
	}
	cr_assert_eq(g.cell, want);
	cr_assert_eq(g.nx, 9);
	cr_assert_eq(g.ny, 9);
	thr_grid_free(&g);
}

// A sparse grid (thr_grid_layout_sparse, for worlds whose dense grid would
// have to widen its cells) lists the occupied cells alone. For the same
// cells it must give every reader what the dense grid gives: the same
// items in the same order, and for any columns of any row the same span
// of them (thr_grid_row_cells). Random worlds with points on cell borders
// and outside the bounds (clamped to the border cells), NaN points (cell
// 0), without keys and with shuffled keys, and an empty world.
Test(grid, sparse_rows_list_what_the_dense_grid_lists)
{
	static float px[N], py[N];
	static uint32_t key[N];
	uint64_t rng = 23;
	const float cells[] = {0.25f, 0.5f, 1.0f, 2.5f};
	for (size_t c = 0; c < sizeof cells / sizeof cells[0]; ++c) {
		for (int keyed = 0; keyed < 2; ++keyed) {
			random_world(&rng, px, py, cells[c]);
			px[5] = NAN;
			py[6] = NAN;
			for (uint32_t i = 0; i < N; ++i) {
				key[i] = i;
			}
			for (uint32_t s = 0; s < N; ++s) {
				uint32_t a = (uint32_t)thr_test_uniform(&rng, 0.0f, (float)N) % N;
				uint32_t b = (uint32_t)thr_test_uniform(&rng, 0.0f, (float)N) % N;
				uint32_t t = key[a];
				key[a] = key[b];
				key[b] = t;
			}
			const uint32_t n = c == 0 && keyed == 0 ? 0u : (uint32_t)N; // the first world is empty
			thr_grid d, s;
			memset(&d, 0, sizeof d);
			memset(&s, 0, sizeof s);
			thr_grid_layout(&d, -20.0f, -20.0f, 20.0f, 20.0f, cells[c], 1u << 20);
			// At most 4 cells: a dense grid would widen them far more than
			// THR_GRID_SPARSE_WIDER times.
			thr_grid_layout_sparse(&s, -20.0f, -20.0f, 20.0f, 20.0f, cells[c], 4u, 1u << 20);
			cr_assert(!d.sparse && s.sparse, "cell %g: not laid out as dense and sparse", (double)cells[c]);
			cr_assert(s.cell == d.cell && s.nx == d.nx && s.ny == d.ny, "cell %g: the sparse grid changed the cells",
			          (double)cells[c]);
			const uint32_t* k = keyed ? key : NULL;
			cr_assert_eq(thr_grid_build_points(&d, px, py, n, k), 0);
			cr_assert_eq(thr_grid_build_points(&s, px, py, n, k), 0);
			cr_assert_eq(s.n_items, n);
			if (n > 0) {
				cr_assert_arr_eq(s.items, d.items, n * sizeof *s.items, "cell %g, keyed %d: the items differ",
				                 (double)cells[c], keyed);
			}
			// Exactly the occupied cells, columns up within each row.
			uint32_t occupied = 0;
			for (uint32_t cell = 0; cell < d.n_cells; ++cell) {
				occupied += d.cell_start[cell + 1] > d.cell_start[cell];
			}
			cr_assert_eq(s.n_cells, occupied);
			cr_assert_eq(thr_grid_work_cells(&s), (uint64_t)occupied + (uint64_t)s.nx + (uint64_t)s.ny);
			for (int32_t cy = 0; cy < s.ny; ++cy) {
				for (uint32_t m = s.row_first[cy]; m + 1 < s.row_first[cy + 1]; ++m) {
					cr_assert_lt(s.col[m], s.col[m + 1]);
				}
			}
			// Every row: the whole row, each single cell, and random spans.
			for (int32_t cy = 0; cy < d.ny; ++cy) {
				for (int q = -1; q < d.nx + 8; ++q) {
					int32_t x0, x1;
					if (q < 0) {
						x0 = 0;
						x1 = d.nx - 1;
					} else if (q < d.nx) {
						x0 = x1 = q;
					} else {
						x0 = (int32_t)thr_test_uniform(&rng, 0.0f, (float)d.nx) % d.nx;
						x1 = x0 + (int32_t)thr_test_uniform(&rng, 0.0f, 6.0f);
						x1 = x1 < d.nx ? x1 : d.nx - 1;
					}
					uint32_t dk0, dk1, sk0, sk1;
					thr_grid_row_cells(&d, cy, x0, x1, &dk0, &dk1);
					thr_grid_row_cells(&s, cy, x0, x1, &sk0, &sk1);
					cr_assert(d.cell_start[dk0] == s.cell_start[sk0] && d.cell_start[dk1] == s.cell_start[sk1],
					          "cell %g, row %d, columns %d to %d: dense items [%u, %u), sparse [%u, %u)",
					          (double)cells[c], cy, x0, x1, d.cell_start[dk0], d.cell_start[dk1],
					          s.cell_start[sk0], s.cell_start[sk1]);
					cr_assert_leq(sk0, sk1);
				}
			}
			thr_grid_free(&d);
			thr_grid_free(&s);
		}
	}
}

// thr_grid_layout_sparse keeps a dense grid when it widens the cell at
// most THR_GRID_SPARSE_WIDER times, else keeps the cell, sparse, unless
// the world is wider than max_axis of them.
Test(grid, sparse_layout_only_where_dense_would_widen_the_cells)
{
	thr_grid g;
	memset(&g, 0, sizeof g);
	// 100 x 100 cells of 1 m: 10,000 fit.
	thr_grid_layout_sparse(&g, 0.0f, 0.0f, 100.0f, 100.0f, 1.0f, 10000u, 1000u);
	cr_assert(!g.sparse && g.cell == 1.0f && g.nx == 100);
	// 1,000 cells: dense would take 1.25^11 = 11.6 m cells (more than 4
	// times wider): sparse with 1 m cells.
	thr_grid_layout_sparse(&g, 0.0f, 0.0f, 100.0f, 100.0f, 1.0f, 100u, 1000u);
	cr_assert(g.sparse && g.cell == 1.0f && g.nx == 100 && g.ny == 100, "%d x %d cells of %g", g.nx, g.ny,
	          (double)g.cell);
	// 1,000 cells: dense takes 1.25^2 = 1.5625 m cells (64 x 64): dense.
	thr_grid_layout_sparse(&g, 0.0f, 0.0f, 100.0f, 100.0f, 1.0f, 4096u, 1000u);
	cr_assert(!g.sparse && g.cell == 1.5625f && g.nx == 64, "%d x %d cells of %g", g.nx, g.ny, (double)g.cell);
	// At most 50 across: 1.25^4 = 2.44 m cells (41 x 41), sparse.
	thr_grid_layout_sparse(&g, 0.0f, 0.0f, 100.0f, 100.0f, 1.0f, 100u, 50u);
	cr_assert(g.sparse && g.cell == 2.44140625f && g.nx == 41, "%d x %d cells of %g", g.nx, g.ny, (double)g.cell);
	// A cell that cannot be enlarged still gives one dense cell.
	thr_grid_layout_sparse(&g, 0.0f, 0.0f, 100.0f, 100.0f, NAN, 100u, 50u);
	cr_assert(!g.sparse && g.nx == 1 && g.ny == 1);
	thr_grid_free(&g);
}

/// Moves the points into cell order (a sorting engine's storage after its
/// reorder), then `moved` of them by up to `step` m (a step's motion): the
/// order the split build expects, with some points out of it.
static void nearly_in_cell_order(uint64_t* rng, float* px, float* py, float step, uint32_t moved)
{
	static float sx[N], sy[N];
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout(&g, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 1u << 20);
	cr_assert_eq(thr_grid_build_points(&g, px, py, N, NULL), 0);
	for (uint32_t k = 0; k < N; ++k) {
		sx[k] = px[g.items[k]];
		sy[k] = py[g.items[k]];
	}
	memcpy(px, sx, sizeof sx);
	memcpy(py, sy, sizeof sy);
	for (uint32_t m = 0; m < moved; ++m) {
		const uint32_t i = (uint32_t)thr_test_uniform(rng, 0.0f, (float)N) % N;
		px[i] += thr_test_uniform(rng, -step, step);
		py[i] += thr_test_uniform(rng, -step, step);
	}
	thr_grid_free(&g);
}

// The split build lists the same cells and the same items in the same
// order as the one-thread build, for any number of parts, with and
// without keys: on points nearly in cell order (a few moved a cell or
// two, some across the whole grid: foreign to their part), and on points
// in no order at all (with parts of hundreds of points, too many foreign
// points: it builds on one thread, *team 0; with parts of 47, each may
// list all its points). Parts are processed on OpenMP's threads whatever
// their count.
Test(grid, split_build_equals_the_one_thread_build)
{
	static float px[N], py[N];
	static uint32_t key[N];
	const uint32_t parts[] = {2, 3, 7, 64, 100};
	for (int world = 0; world < 3; ++world) {
		uint64_t rng = 11u + (uint64_t)world;
		random_world(&rng, px, py, 1.0f);
		if (world < 2) {
			nearly_in_cell_order(&rng, px, py, world == 0 ? 1.5f : 60.0f, N / 50u);
		}
		for (uint32_t i = 0; i < N; ++i) {
			key[i] = i;
		}
		for (uint32_t s = 0; s < N / 20u; ++s) { // neighbours swapped: cells out of key order
			const uint32_t a = (uint32_t)thr_test_uniform(&rng, 0.0f, (float)N) % (N - 1u);
			const uint32_t t = key[a];
			key[a] = key[a + 1u];
			key[a + 1u] = t;
		}
		for (int keyed = 0; keyed < 2; ++keyed) {
			const uint32_t* k = keyed ? key : NULL;
			thr_grid ref;
			memset(&ref, 0, sizeof ref);
			thr_grid_layout(&ref, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 1u << 20);
			cr_assert_eq(thr_grid_build_points(&ref, px, py, N, k), 0);
			const uint32_t cells = (uint32_t)(ref.nx * ref.ny);
			for (size_t p = 0; p < sizeof parts / sizeof parts[0]; ++p) {
				thr_grid g;
				memset(&g, 0, sizeof g);
				thr_grid_layout(&g, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 1u << 20);
				uint32_t team = 99;
				cr_assert_eq(thr_grid_build_points_split(&g, px, py, N, k, parts[p], &team), 0);
				cr_assert_eq(g.n_items, (uint32_t)N);
				cr_assert_arr_eq(g.cell_start, ref.cell_start, (cells + 1u) * sizeof *g.cell_start,
				                 "world %d, keyed %d, %u parts: the cells' starts differ", world, keyed, parts[p]);
				cr_assert_arr_eq(g.items, ref.items, N * sizeof *g.items,
				                 "world %d, keyed %d, %u parts: the items differ", world, keyed, parts[p]);
				if (world == 2 && parts[p] <= 7u) {
					// Parts of hundreds of points in no order: most foreign.
					cr_assert_eq(team, 0u, "points in no order, %u parts: the split build ran (team %u)", parts[p],
					             team);
				} else if (world < 2) {
					cr_assert_gt(team, 0u, "world %d, %u parts: the split build did not run", world, parts[p]);
				}
				thr_grid_free(&g);
			}
			thr_grid_free(&ref);
		}
	}
}

// One part, or a sparse grid: the one-thread build, *team 0.
Test(grid, split_build_of_one_part_or_a_sparse_grid_is_the_one_thread_build)
{
	static float px[N], py[N];
	uint64_t rng = 5;
	random_world(&rng, px, py, 1.0f);
	thr_grid d, s;
	memset(&d, 0, sizeof d);
	memset(&s, 0, sizeof s);
	thr_grid_layout_sparse(&s, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 4u, 1u << 20);
	cr_assert(s.sparse);
	thr_grid_layout(&d, -20.0f, -20.0f, 20.0f, 20.0f, 1.0f, 1u << 20);
	uint32_t team = 99;
	cr_assert_eq(thr_grid_build_points_split(&d, px, py, N, NULL, 1, &team), 0);
	cr_assert_eq(team, 0u);
	cr_assert_eq(thr_grid_build_points_split(&s, px, py, N, NULL, 4, &team), 0);
	cr_assert_eq(team, 0u);
	cr_assert_arr_eq(s.items, d.items, N * sizeof *s.items);
	thr_grid_free(&d);
	thr_grid_free(&s);
}
