// SPDX-License-Identifier: MIT
#include "grid.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/// Room for `need` elements of `size` bytes in *p (capacity *cap),
/// doubling from 64 (thr_reserve); -1 when out of memory.
static int reserve_size(void** p, uint32_t* cap, uint32_t need, size_t size)
{
	return thr_reserve(p, cap, need, size, 64);
}

static int reserve(uint32_t** p, uint32_t* cap, uint32_t need)
{
	return reserve_size((void**)p, cap, need, sizeof **p);
}

/// Most rounds of the enlarging loop in fit_cells. A round multiplies
/// a positive normal float by 1.25f, which grows it by a factor of at least
/// 1.25 * (1 - 2^-24) (x/4 is far above half an ulp of x). From FLT_MIN
/// (1.2e-38), 800 such rounds pass FLT_MAX, where the cell is infinite and
/// one cell covers the world (w / inf = 0): so 1024 rounds always end the
/// loop; a validated world (cells >= 1e-6 m across at most 2e6 m, at
/// least 1026 cells) ends it within 120.
#define THR_GRID_MAX_ROUNDS 1024

/// The grid's cell (m) and its cells across (*nx) and up (*ny). With
/// max_axis > 0, a cell giving more than max_cells cells but at most
/// max_axis across and up is kept, for a sparse grid (*sparse).
static float fit_cells(float min_x, float min_y, float max_x, float max_y, float cell, uint32_t max_cells,
                        uint32_t max_axis, int32_t* out_nx, int32_t* out_ny, bool* sparse)
{
	*sparse = false;
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
				*out_nx = (int32_t)nx;
				*out_ny = (int32_t)ny;
				laid = true;
				break;
			}
			if (nx <= (double)max_axis && ny <= (double)max_axis) {
				*out_nx = (int32_t)nx;
				*out_ny = (int32_t)ny;
				*sparse = true;
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
		*out_nx = 1;
		*out_ny = 1;
	}
	return cell;
}

void thr_grid_layout(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                     uint32_t max_cells)
{
	thr_grid_layout_sparse(g, min_x, min_y, max_x, max_y, cell, max_cells, 0);
}

void thr_grid_layout_sparse(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                            uint32_t max_cells, uint32_t max_axis)
{
	g->cell = fit_cells(min_x, min_y, max_x, max_y, cell, max_cells, 0, &g->nx, &g->ny, &g->sparse);
	// Cells that the dense grid widens at most THR_GRID_SPARSE_WIDER times
	// stay dense: there its cheaper lookups win.
	if (max_axis > 0 && g->cell > (float)THR_GRID_SPARSE_WIDER * cell) {
		g->cell = fit_cells(min_x, min_y, max_x, max_y, cell, 0, max_axis, &g->nx, &g->ny, &g->sparse);
	}
	g->inv_cell = 1.0f / g->cell;
	g->min_x = min_x;
	g->min_y = min_y;
	g->period_x = 0.0f;
	g->period_y = 0.0f;
}

void thr_box_grid_layout(thr_box_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                         uint32_t max_cells)
{
	bool sparse;
	g->cell = fit_cells(min_x, min_y, max_x, max_y, cell, max_cells, 0, &g->nx, &g->ny, &sparse);
	g->inv_cell = 1.0f / g->cell;
	g->min_x = min_x;
	g->min_y = min_y;
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

/// thr_grid_build_points for a sparse grid: a stable counting sort by
/// column, then one by row (counts per column and per row, not per cell),
/// then the occupied cells listed from the sorted items.
static int build_sparse(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key)
{
	const uint32_t nx = (uint32_t)g->nx, ny = (uint32_t)g->ny;
	const uint32_t axis = nx > ny ? nx : ny;
	if (reserve(&g->items, &g->cap_items, n) || reserve(&g->scratch, &g->cap_scratch, n) ||
	    reserve(&g->counts, &g->cap_counts, axis + 1u) || reserve(&g->row_first, &g->cap_rows, ny + 1u) ||
	    reserve_size((void**)&g->col, &g->cap_cols, n, sizeof *g->col) ||
	    reserve(&g->cell_start, &g->cap_cells, n + 1u)) {
		g->n_items = 0;
		g->n_cells = 0;
		return -1;
	}
	uint32_t* by_col = g->scratch;
	uint32_t* items = g->items;
	uint32_t* count = g->counts;
	// 1. By column, points in index order within a column.
	memset(count, 0, (size_t)(nx + 1u) * sizeof *count);
	for (uint32_t i = 0; i < n; ++i) {
		count[thr_grid_coord(x[i], g->min_x, g->inv_cell, g->nx) + 1]++;
	}
	for (uint32_t c = 1; c <= nx; ++c) {
		count[c] += count[c - 1];
	}
	for (uint32_t i = 0; i < n; ++i) {
		by_col[count[thr_grid_coord(x[i], g->min_x, g->inv_cell, g->nx)]++] = i;
	}
	// 2. By row, stable: by row, then column, then index.
	memset(count, 0, (size_t)(ny + 1u) * sizeof *count);
	for (uint32_t k = 0; k < n; ++k) {
		count[thr_grid_coord(y[by_col[k]], g->min_y, g->inv_cell, g->ny) + 1]++;
	}
	for (uint32_t r = 1; r <= ny; ++r) {
		count[r] += count[r - 1];
	}
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t i = by_col[k];
		items[count[thr_grid_coord(y[i], g->min_y, g->inv_cell, g->ny)]++] = i;
	}
	// 3. The occupied cells, in the items' order.
	uint32_t m = 0, r = 0;
	int32_t last_x = -1, last_y = -1;
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t i = items[k];
		const int32_t cx = thr_grid_coord(x[i], g->min_x, g->inv_cell, g->nx);
		const int32_t cy = thr_grid_coord(y[i], g->min_y, g->inv_cell, g->ny);
		if (cx == last_x && cy == last_y) {
			continue;
		}
		for (; r <= (uint32_t)cy; ++r) {
			g->row_first[r] = m;
		}
		g->col[m] = cx;
		g->cell_start[m++] = k;
		last_x = cx;
		last_y = cy;
	}
	for (; r <= ny; ++r) {
		g->row_first[r] = m;
	}
	g->cell_start[m] = n;
	g->n_cells = m;
	g->n_items = n;
	// 4. Each cell in key order (sort_cell where two neighbouring items of
	// a cell are not).
	for (uint32_t c = 0; key != NULL && c < m; ++c) {
		const uint32_t b = g->cell_start[c], e = g->cell_start[c + 1];
		uint32_t k = b + 1u;
		while (k < e && key[items[k]] > key[items[k - 1u]]) {
			++k;
		}
		if (k < e && sort_cell(items + b, e - b, key) != 0) {
			g->n_items = 0;
			g->n_cells = 0;
			return -1;
		}
	}
	return 0;
}

/// The dense grid's items [k0, k1) (whole cells) each in key order. A
/// cell already in order (after a sorting engine's reorder, nearly every
/// one: its agents keep their cells and their order) costs one comparison
/// an item, taken 64 at a time into a mask without a branch (neighbouring
/// cells' keys are in no order, so a branch an item would mispredict at
/// every cell's end): where a key falls below the one before it, in the
/// same cell, that cell is sorted (sort_cell). Sorting a cell moves none
/// of the items after it, so the mask stays true past it. Cells are not
/// visited (a sparse world has far more). Returns -1 when out of memory.
static int order_cells(const thr_grid* g, const float* x, const float* y, const uint32_t* key, uint32_t k0,
                       uint32_t k1)
{
	uint32_t* items = g->items;
	const uint32_t* start = g->cell_start;
	uint32_t sorted_to = 0; // items below it lie in a cell sorted here
	for (uint32_t base = k0 + 1u; base < k1; base += 64u) {
		const uint32_t end = k1 - base > 64u ? base + 64u : k1;
		uint64_t down = 0;
		for (uint32_t k = base; k < end; ++k) {
			down |= (uint64_t)(key[items[k]] < key[items[k - 1u]]) << (k - base);
		}
		for (; down != 0; down &= down - 1u) {
			const uint32_t k = base + (uint32_t)__builtin_ctzll(down);
			if (k < sorted_to) {
				continue; // in a cell sorted already
			}
			const uint32_t c = point_cell(g, x[items[k]], y[items[k]]);
			if (k == start[c]) {
				continue; // the first of its cell
			}
			if (sort_cell(items + start[c], start[c + 1] - start[c], key) != 0) {
				return -1;
			}
			sorted_to = start[c + 1];
		}
	}
	return 0;
}

int thr_grid_build_points(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key)
{
	if (g->sparse) {
		return build_sparse(g, x, y, n, key);
	}
	uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	if (reserve(&g->cell_start, &g->cap_cells, cells + 1) || reserve(&g->items, &g->cap_items, n)) {
		g->n_items = 0;
		return -1;
	}
	g->n_cells = cells;
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
	if (key != NULL && order_cells(g, x, y, key, 0, n) != 0) {
		g->n_items = 0;
		return -1;
	}
	return 0;
}

/// One part of a split build: points [a, b), cells [lo, hi), its
/// foreign points (cell outside [lo, hi)) at foreign[f0, f0 + nf).
typedef struct grid_part {
	uint32_t a, b, lo, hi, f0, cap, nf;
	bool full;                       ///< more foreign points than cap
	uint32_t in[THR_GRID_MAX_PARTS]; ///< its points in each part's cells
} grid_part;

/// The part whose cells hold cell c: the last whose first cell is at most
/// c (parts of no cells share their first cell with the next).
static uint32_t part_of_cell(const grid_part* part, uint32_t parts, uint32_t c)
{
	uint32_t lo = 0, hi = parts; // part[lo].lo <= c < part[hi].lo
	while (hi - lo > 1u) {
		const uint32_t mid = (lo + hi) / 2u;
		if (part[mid].lo <= c) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/// Phase 1 of part t: counts its points in its cells into start (zeroed
/// first), lists the others with their cells, and counts its points in
/// every part's cells.
static void count_own(const thr_grid* g, const float* x, const float* y, grid_part* part, uint32_t parts, uint32_t t,
                      uint32_t* start)
{
	grid_part* p = &part[t];
	const uint32_t lo = p->lo, width = p->hi - p->lo;
	memset(start + lo, 0, (size_t)width * sizeof *start);
	memset(p->in, 0, sizeof p->in);
	uint64_t* f = g->foreign + p->f0;
	for (uint32_t i = p->a; i < p->b; ++i) {
		const uint32_t c = point_cell(g, x[i], y[i]);
		if (c - lo < width) {
			start[c]++;
		} else if (p->nf < p->cap) {
			f[p->nf++] = (uint64_t)c << 32 | i;
			p->in[part_of_cell(part, parts, c)]++;
		} else {
			p->full = true;
			return;
		}
	}
	p->in[t] = p->b - p->a - p->nf;
}

/// Scatters part u's foreign points that fall in [lo, lo + width), the
/// last first (start[c]: the end of cell c's entries not yet placed).
static void place_foreign(const thr_grid* g, const grid_part* pu, uint32_t lo, uint32_t width, uint32_t* start)
{
	const uint64_t* f = g->foreign + pu->f0;
	for (uint32_t j = pu->nf; j-- > 0;) {
		const uint32_t c = (uint32_t)(f[j] >> 32);
		if (c - lo < width) {
			g->items[--start[c]] = (uint32_t)f[j];
		}
	}
}

/// Phase 2 of part t: the other parts' points in its cells counted, the
/// ends of its cells summed from the points in the parts' cells before
/// its own, then every point of its cells placed from the last index
/// down, as the one-thread build: the later parts' foreign points, its
/// own, the earlier parts' (each cell's start where its first point
/// lands). It writes only its own cells' starts and items.
static void place_part(const thr_grid* g, const float* x, const float* y, const grid_part* part, uint32_t parts,
                       uint32_t t, uint32_t* start)
{
	const uint32_t lo = part[t].lo, hi = part[t].hi, width = hi - lo;
	uint32_t before = 0;
	for (uint32_t u = 0; u < parts; ++u) {
		for (uint32_t v = 0; v < t; ++v) {
			before += part[u].in[v];
		}
		const uint64_t* f = g->foreign + part[u].f0;
		for (uint32_t j = 0; u != t && j < part[u].nf; ++j) {
			const uint32_t c = (uint32_t)(f[j] >> 32);
			if (c - lo < width) { // never a write to another part's cells, not even of + 0
				start[c]++;
			}
		}
	}
	for (uint32_t c = lo; c < hi; ++c) {
		before += start[c];
		start[c] = before;
	}
	for (uint32_t u = parts; u-- > t + 1u;) {
		place_foreign(g, &part[u], lo, width, start);
	}
	for (uint32_t i = part[t].b; i-- > part[t].a;) {
		const uint32_t c = point_cell(g, x[i], y[i]);
		if (c - lo < width) {
			g->items[--start[c]] = i;
		}
	}
	for (uint32_t u = t; u-- > 0;) {
		place_foreign(g, &part[u], lo, width, start);
	}
}

int thr_grid_build_points_split(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key,
                                uint32_t parts, uint32_t* team)
{
	*team = 0;
	parts = parts < THR_GRID_MAX_PARTS ? parts : THR_GRID_MAX_PARTS;
	if (g->sparse || parts < 2u || n < parts) {
		return thr_grid_build_points(g, x, y, n, key);
	}
	const uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	const uint32_t room = n / 16u + 64u * parts;
	if (reserve(&g->cell_start, &g->cap_cells, cells + 1) || reserve(&g->items, &g->cap_items, n) ||
	    reserve_size((void**)&g->foreign, &g->cap_foreign, room, sizeof *g->foreign)) {
		g->n_items = 0;
		return -1;
	}
	g->n_cells = cells;
	uint32_t* start = g->cell_start;
	start[cells] = n;
	// Part t: the points [n t / parts, n (t + 1) / parts) and the cells
	// from the first of its points' cell (never below the part before's)
	// to the next part's first. Every point is counted and placed by the
	// part owning its cell: its own part's points in a scan, the others
	// from their parts' foreign lists (few, where the points are nearly in
	// cell order). Within a cell the points of earlier parts come first,
	// each list in index order: index order, as the one-thread build.
	// Three barriers (a thread whose vCPU is taken costs a time slice at
	// each): after the counts, after the placing, at the end.
	grid_part part[THR_GRID_MAX_PARTS];
	uint32_t f0 = 0;
	for (uint32_t t = 0; t < parts; ++t) {
		const uint32_t a = (uint32_t)((uint64_t)n * t / parts), b = (uint32_t)((uint64_t)n * (t + 1u) / parts);
		uint32_t lo = t == 0 ? 0 : point_cell(g, x[a], y[a]);
		lo = t > 0 && lo < part[t - 1].lo ? part[t - 1].lo : lo;
		const uint32_t cap = (b - a) / 16u + 64u;
		part[t].a = a;
		part[t].b = b;
		part[t].lo = lo;
		part[t].hi = cells;
		part[t].f0 = f0;
		part[t].cap = cap;
		part[t].nf = 0;
		part[t].full = false;
		if (t > 0) {
			part[t - 1].hi = lo;
		}
		f0 += cap;
	}
	bool full = false, failed = false;
	uint32_t ran = 1; // without OpenMP: the parts one after another
#pragma omp parallel num_threads(parts) reduction(|| : failed)
	{
#ifdef _OPENMP
		if (omp_get_thread_num() == 0) {
			ran = (uint32_t)omp_get_num_threads();
		}
#endif
#pragma omp for schedule(static)
		for (uint32_t t = 0; t < parts; ++t) {
			count_own(g, x, y, part, parts, t, start);
		}
		bool any_full = false; // every thread reads the same flags
		for (uint32_t t = 0; t < parts; ++t) {
			any_full = any_full || part[t].full;
		}
		if (!any_full) {
#pragma omp for schedule(static)
			for (uint32_t t = 0; t < parts; ++t) {
				place_part(g, x, y, part, parts, t, start);
			}
			// Each part's cells in key order (reads the next part's start).
			if (key != NULL) {
#pragma omp for schedule(static) nowait
				for (uint32_t t = 0; t < parts; ++t) {
					const uint32_t k0 = start[part[t].lo], k1 = start[part[t].hi];
					failed = failed || order_cells(g, x, y, key, k0, k1) != 0;
				}
			}
		}
#pragma omp master
		full = any_full;
	}
	if (full) {
		return thr_grid_build_points(g, x, y, n, key);
	}
	g->n_items = failed ? 0 : n;
	*team = failed ? 0 : ran;
	return failed ? -1 : 0;
}

/// Sets the bits of cells c0 to c1 (inclusive).
static void mark_cells(uint64_t* bits, uint32_t c0, uint32_t c1)
{
	const uint32_t w0 = c0 >> 6, w1 = c1 >> 6;
	for (uint32_t w = w0; w <= w1; ++w) {
		uint64_t m = ~UINT64_C(0);
		if (w == w0) {
			m &= ~UINT64_C(0) << (c0 & 63u);
		}
		if (w == w1) {
			m &= ~UINT64_C(0) >> (63u - (c1 & 63u));
		}
		bits[w] |= m;
	}
}

static int box_grid_fail(thr_box_grid* g)
{
	g->n_items = 0;
	g->n_occupied = 0;
	return -1;
}

int thr_box_grid_build(thr_box_grid* g, const float* x0, const float* y0, const float* x1, const float* y1,
                       uint32_t n)
{
	const uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
	const uint32_t words = (cells >> 6) + 1u; // start(nx*ny) reads word nx*ny >> 6
	if (reserve_size((void**)&g->occupied, &g->cap_words, words, sizeof *g->occupied) ||
	    reserve(&g->word_base, &g->cap_bases, words)) {
		return box_grid_fail(g);
	}
	memset(g->occupied, 0, (size_t)words * sizeof *g->occupied);
	// 1. Mark every cell a box overlaps.
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; ++i) {
		const thr_cell_range b = thr_box_grid_cells(g, x0[i], y0[i], x1[i], y1[i]);
		for (int32_t cy = b.y0; cy <= b.y1 && b.x0 <= b.x1; ++cy) { // an inverted box covers nothing
			const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
			mark_cells(g->occupied, row + (uint32_t)b.x0, row + (uint32_t)b.x1);
			total += (uint64_t)(b.x1 - b.x0 + 1);
		}
	}
	// 2. The occupied cells before each word.
	uint32_t occupied = 0;
	for (uint32_t w = 0; w < words; ++w) {
		g->word_base[w] = occupied;
		occupied += (uint32_t)__builtin_popcountll(g->occupied[w]);
	}
	if (total > UINT32_MAX || reserve(&g->starts, &g->cap_starts, occupied + 1u) ||
	    reserve(&g->items, &g->cap_items, (uint32_t)total)) {
		return box_grid_fail(g);
	}
	// 3. Count each occupied cell's items at starts[rank + 1], prefix-sum.
	memset(g->starts, 0, (size_t)(occupied + 1u) * sizeof *g->starts);
	for (uint32_t i = 0; i < n; ++i) {
		const thr_cell_range b = thr_box_grid_cells(g, x0[i], y0[i], x1[i], y1[i]);
		for (int32_t cy = b.y0; cy <= b.y1; ++cy) {
			for (int32_t cx = b.x0; cx <= b.x1; ++cx) {
				g->starts[thr_box_grid_rank(g, (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx) + 1u]++;
			}
		}
	}
	for (uint32_t k = 0; k < occupied; ++k) {
		g->starts[k + 1u] += g->starts[k];
	}
	// 4. Scatter, boxes in index order, with a running cursor per occupied
	// cell that borrows starts[rank] and is restored afterwards.
	for (uint32_t i = 0; i < n; ++i) {
		const thr_cell_range b = thr_box_grid_cells(g, x0[i], y0[i], x1[i], y1[i]);
		for (int32_t cy = b.y0; cy <= b.y1; ++cy) {
			for (int32_t cx = b.x0; cx <= b.x1; ++cx) {
				g->items[g->starts[thr_box_grid_rank(g, (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx)]++] = i;
			}
		}
	}
	for (uint32_t k = occupied; k > 0; --k) {
		g->starts[k] = g->starts[k - 1u];
	}
	g->starts[0] = 0;
	g->n_occupied = occupied;
	g->n_items = (uint32_t)total;
	return 0;
}

int64_t thr_box_grid_query(const thr_box_grid* g, float x, float y, float r, uint32_t** out, uint32_t* cap)
{
	if (g->n_items == 0) {
		return 0;
	}
	int32_t cx0, cx1, cy0, cy1;
	thr_box_grid_range(g, x, y, r, &cx0, &cx1, &cy0, &cy1);
	uint32_t count = 0;
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b, e;
		// Cells of one row are contiguous in `items`.
		if (!thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e)) {
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
	free(g->row_first);
	free(g->col);
	free(g->scratch);
	free(g->counts);
	free(g->foreign);
	memset(g, 0, sizeof *g);
}

void thr_box_grid_free(thr_box_grid* g)
{
	free(g->occupied);
	free(g->word_base);
	free(g->starts);
	free(g->items);
	memset(g, 0, sizeof *g);
}
