// SPDX-License-Identifier: MIT
// Uniform grids (private): a point grid for agents, rebuilt every step by a
// stable counting sort, and a compact box grid for static shapes
// (obstacles, walls).
//
// A grid covers the world's bounds. Coordinates outside are clamped to
// the border cells, so an agent outside the grid's extent lands in the
// nearest border cell and a query clamped the same way still finds it:
// clamping is monotone, so if |x_j - x_i| <= r then clamp(cell(x_j)) lies
// within [clamp(cell(x_i - r)), clamp(cell(x_i + r))]. Crowds far outside
// the bounds stay correct but pile into border cells and get slower.
//
// Agents are counted per cell, prefix-summed, and scattered in slot order,
// so each cell lists its agents in increasing slot order (stable), or, with
// keys (a sorting engine's ids), by increasing key. Shapes
// are inserted into every cell their bounding box overlaps, in increasing
// index order within a cell; a query may see a shape twice and callers
// break ties by index.
//
// Both kinds list a cell's items at [start(c), start(c + 1)) of `items`,
// start(c) being the number of items in the cells before c, and the cells
// of a row at [start(row + cx0), start(row + cx1 + 1)). The point grid
// stores start densely (`cell_start`, nx*ny + 1 offsets: its neighbour
// walks are the hottest loop), or, when a dense grid would have to widen
// its cells more than THR_GRID_SPARSE_WIDER times to keep within its
// limit (a sparse crowd in wide bounds, such as a ring), sparsely: the
// occupied cells in row order with their columns and starts, and per row
// where its cells begin, so the cells keep their size (with wider cells
// every query would examine more agents). Both list the same agents in
// the same order for the same cells; thr_grid_row_cells reads either.
// A box grid covers mostly empty ground (a
// few walls along the border, obstacles on a few percent of the cells),
// so it stores start compactly and is read only through
// thr_box_grid_start / thr_box_grid_span: a bit per cell (set when the
// cell lists an item), per 64-cell word the count of set bits before it,
// and the starts of the occupied cells alone. Then start(c) =
// starts[rank(c)], rank(c) = word_base[c >> 6] + the set bits of word
// c >> 6 below bit c & 63: exactly the dense start, so every reader sees
// the same items in the same order. About 0.19 bytes a cell instead of 4.
#ifndef THRONG_CORE_GRID_H
#define THRONG_CORE_GRID_H

#include <stdbool.h>
#include <stdint.h>

/// A point grid (agents). It lists its cells in row order (rows up,
/// columns left to right), each with its start in `items`: every cell
/// (dense, cell c = cy * nx + cx) or, in a sparse grid, the occupied
/// cells alone with their columns and where each row's cells begin.
/// Readers find a row's cells with thr_grid_row_cells, which is the same
/// for both.
typedef struct thr_grid {
	float min_x, min_y;
	float cell, inv_cell;
	int32_t nx, ny;
	bool sparse;            ///< lists the occupied cells only
	uint32_t n_items;       ///< entries in `items`
	uint32_t n_cells;       ///< cells listed: nx*ny, or the occupied ones (sparse)
	uint32_t* cell_start;   ///< n_cells + 1 offsets into items
	uint32_t* items;        ///< item indices grouped by cell, cells in row order
	uint32_t* row_first;    ///< sparse: ny + 1 entries; row cy's cells are listed cells [row_first[cy], row_first[cy + 1])
	int32_t* col;           ///< sparse: each listed cell's column
	uint32_t* scratch;      ///< sparse build: items sorted by column
	uint32_t* counts;       ///< sparse build: per column, then per row
	uint64_t* foreign;      ///< split build: (cell << 32 | index) of the points outside their part's cells
	uint32_t cap_cells, cap_items, cap_rows, cap_cols, cap_scratch, cap_counts, cap_foreign;
	/// A wrapping world's width and height (thr_grid_walk_init), 0 along
	/// an axis that does not wrap; the layout sets both to 0.
	float period_x, period_y;
} thr_grid;

/// A box grid (obstacles, walls): compact cell starts, read through
/// thr_box_grid_start and thr_box_grid_span. The layout fields are those
/// of thr_grid.
typedef struct thr_box_grid {
	float min_x, min_y;
	float cell, inv_cell;
	int32_t nx, ny;
	uint32_t n_items;       ///< entries in `items`
	uint32_t n_occupied;    ///< cells that list at least one item
	uint64_t* occupied;     ///< bit c & 63 of word c >> 6: cell c lists an item; (nx*ny >> 6) + 1 words
	uint32_t* word_base;    ///< per word, the set bits in the words before it
	uint32_t* starts;       ///< n_occupied + 1 offsets into items: where the k-th occupied cell starts
	uint32_t* items;        ///< item indices grouped by cell, cells in order, indices up within a cell
	uint32_t cap_words, cap_bases, cap_starts, cap_items;
} thr_box_grid;

/// Lays the grid over [min, max] with cells of at least `cell` metres,
/// enlarging the cell until there are at most max_cells cells. Always
/// returns: a cell that cannot be enlarged (0, subnormal, negative, NaN)
/// gives one cell over the whole world.
void thr_grid_layout(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                     uint32_t max_cells);

/// A world whose dense grid would have cells more than this many times
/// wider than asked for gets a sparse grid (thr_grid_layout_sparse).
#define THR_GRID_SPARSE_WIDER 4

/// thr_grid_layout, except that a world whose dense grid (at most
/// max_cells cells) would widen the cell more than THR_GRID_SPARSE_WIDER
/// times gets a sparse grid instead, whose cell is enlarged only until
/// there are at most max_axis cells across and up. Other worlds get the
/// dense grid of thr_grid_layout.
void thr_grid_layout_sparse(thr_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                            uint32_t max_cells, uint32_t max_axis);

/// Buckets n points by cell. Within a cell, points are listed by
/// increasing key[i] (keys distinct), or by increasing index i when key is
/// NULL. Returns 0, or -1 when an allocation fails (the grid is then
/// empty).
int thr_grid_build_points(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key);

/// Most parts of thr_grid_build_points_split.
#define THR_GRID_MAX_PARTS 64

/// thr_grid_build_points on up to `parts` OpenMP threads: the same cells
/// and the same items in the same order (the stable sort has one result).
/// A dense grid is split into parts, each a range of the points and a
/// range of cells; it pays where the points are nearly in cell order
/// already (a sorting engine's storage order after the last step's
/// reorder), so that few points fall outside their part's cells. A sparse
/// grid, one part, or more such points than a sixteenth of the world
/// build on the calling thread. *team: the threads of the split build, 0
/// when it did not run. Returns 0, or -1 when an allocation fails.
int thr_grid_build_points_split(thr_grid* g, const float* x, const float* y, uint32_t n, const uint32_t* key,
                                uint32_t parts, uint32_t* team);

/// thr_grid_layout for a box grid: the same cells for the same arguments.
void thr_box_grid_layout(thr_box_grid* g, float min_x, float min_y, float max_x, float max_y, float cell,
                         uint32_t max_cells);

/// Buckets n boxes [x0,x1]x[y0,y1] into every cell they overlap (boxes in
/// index order, each over its cells row by row), with no array of nx*ny
/// counts: the cells are marked, counted and filled through their ranks.
/// Returns 0, or -1 when an allocation fails (the grid is then empty, and
/// must not be read until a build succeeds).
int thr_box_grid_build(thr_box_grid* g, const float* x0, const float* y0, const float* x1, const float* y1,
                       uint32_t n);

void thr_grid_free(thr_grid* g);
void thr_box_grid_free(thr_box_grid* g);

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

/// The first of the n ascending values v[] that is at least x (n if none),
/// without a branch on the values.
static inline uint32_t thr_grid_lower_bound(const int32_t* v, uint32_t n, int32_t x)
{
	const int32_t* base = v;
	while (n > 1) {
		const uint32_t half = n / 2u;
		base = base[half - 1u] < x ? base + half : base;
		n -= half;
	}
	return (uint32_t)(base - v) + (n == 1 && *base < x);
}

/// The listed cells of row cy (0 <= cy < ny) from column cx0 to cx1
/// (0 <= cx0, cx1 < nx): the listed cells *k0 to *k1 - 1, whose items are
/// items[cell_start[*k0]] to items[cell_start[*k1] - 1], cells left to
/// right. A sparse grid lists only occupied cells (none: *k0 = *k1).
static inline void thr_grid_row_cells(const thr_grid* g, int32_t cy, int32_t cx0, int32_t cx1, uint32_t* k0,
                                      uint32_t* k1)
{
	if (!g->sparse) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		*k0 = row + (uint32_t)cx0;
		*k1 = row + (uint32_t)cx1 + 1u;
		return;
	}
	// The first cell of the row at column cx0 or beyond (a binary search
	// whose steps select instead of branching: a row's columns go up), then
	// the first beyond cx1.
	const int32_t* col = g->col;
	const uint32_t first = g->row_first[cy];
	const uint32_t n = g->row_first[cy + 1] - first;
	const uint32_t a = thr_grid_lower_bound(col + first, n, cx0);
	*k0 = first + a;
	if (cx1 - cx0 < 3) {
		// A neighbour query's few columns: count the listed ones among the
		// next three cells (columns go up, so those within cx1 come first).
		uint32_t m = 0;
		for (uint32_t j = a; j < a + 3u && j < n; ++j) {
			m += col[first + j] <= cx1;
		}
		*k1 = *k0 + m;
		return;
	}
	*k1 = first + a + thr_grid_lower_bound(col + first + a, n - a, cx1 + 1);
}

/// The cells a neighbour walk of radius r around (x, y) visits, as spans:
/// span t is row y[t / nxr] (rows in up to two runs), columns x0[t % nxr]
/// to x1[t % nxr] (up to two runs), so rows go up and a row's cells left
/// to right. In a grid without a period this is thr_grid_range's block,
/// one run each way. Along an axis with a period P (a wrap world, whose
/// agents all lie in [min, min + P)), a query box that runs past the
/// world's edge continues from the other edge: the cells of the box's
/// part inside the world and those of its part beyond, brought back by P,
/// form two runs, or one run of every cell when they meet or the box is
/// at least P wide (2r >= P), so no cell is visited twice. The walker
/// takes each candidate at its nearest image (thr_min_image).
typedef struct thr_grid_walk {
	int32_t y0[2], y1[2]; ///< row runs
	int32_t x0[2], x1[2]; ///< column runs
	int32_t nyr, nxr;     ///< runs each way (1 or 2)
	int32_t rows;         ///< rows in all row runs
	int32_t spans;        ///< rows * nxr
} thr_grid_walk;

/// One axis of thr_grid_walk_init: the cells of [v - r, v + r] in runs
/// a[k]..b[k]; returns the runs.
static inline int32_t thr_grid_axis_runs(float v, float r, float min, float inv_cell, int32_t n, float period,
                                         int32_t a[2], int32_t b[2])
{
	const int32_t lo = thr_grid_coord(v - r, min, inv_cell, n), hi = thr_grid_coord(v + r, min, inv_cell, n);
	a[0] = lo;
	b[0] = hi;
	a[1] = b[1] = 0;
	if (!(period > 0.0f)) {
		return 1;
	}
	if (!(r + r < period)) { // also NaN
		a[0] = 0;
		b[0] = n - 1;
		return 1;
	}
	if (v - r < min) { // the box's part below min lies at the top: cells c to n - 1
		const int32_t c = thr_grid_coord(v - r + period, min, inv_cell, n);
		if (c <= hi + 1) {
			b[0] = n - 1;
			return 1;
		}
		a[1] = c;
		b[1] = n - 1;
		return 2;
	}
	if (v + r >= min + period) { // the part beyond the top lies at the bottom: cells 0 to c
		const int32_t c = thr_grid_coord(v + r - period, min, inv_cell, n);
		if (c + 1 >= lo) {
			a[0] = 0;
			return 1;
		}
		a[0] = 0;
		b[0] = c;
		a[1] = lo;
		b[1] = hi;
		return 2;
	}
	return 1;
}

/// Fills *k with the spans of a neighbour walk of radius r around (x, y).
static inline void thr_grid_walk_init(const thr_grid* g, float x, float y, float r, thr_grid_walk* k)
{
	k->nxr = thr_grid_axis_runs(x, r, g->min_x, g->inv_cell, g->nx, g->period_x, k->x0, k->x1);
	k->nyr = thr_grid_axis_runs(y, r, g->min_y, g->inv_cell, g->ny, g->period_y, k->y0, k->y1);
	k->rows = k->y1[0] - k->y0[0] + 1 + (k->nyr > 1 ? k->y1[1] - k->y0[1] + 1 : 0);
	k->spans = k->rows * k->nxr;
}

/// Span t (0 <= t < k->spans) of walk k: its row and its columns.
static inline void thr_grid_walk_span(const thr_grid_walk* k, int32_t t, int32_t* cy, int32_t* cx0, int32_t* cx1)
{
	const int32_t row = k->nxr > 1 ? t >> 1 : t, run = k->nxr > 1 ? t & 1 : 0;
	const int32_t first = k->y1[0] - k->y0[0] + 1;
	*cy = row < first ? k->y0[0] + row : k->y0[1] + (row - first);
	*cx0 = k->x0[run];
	*cx1 = k->x1[run];
}

/// The image of coordinate pj nearest to pi along an axis of period P
/// (half = 0.5f * P): pj - P when pj - pi > half, pj + P when
/// pj - pi < -half, else pj itself (bit for bit). Both engines shift a
/// neighbour's position so before any behaviour reads it
/// (simd/sweeps.c has the wide twin).
static inline float thr_min_image(float pj, float pi, float period, float half)
{
	const float d = pj - pi;
	return d > half ? pj - period : (d < -half ? pj + period : pj);
}

/// A relative coordinate d = pj - pi reduced to the nearest image along an
/// axis of period P (half = 0.5f * P; the contact stage's twin of
/// thr_min_image, which shifts positions instead).
static inline float thr_min_image_d(float d, float period, float half)
{
	return d > half ? d - period : (d < -half ? d + period : d);
}

/// The cells a build of g touches: nx*ny (dense), or the occupied ones and
/// the columns' and rows' counts (sparse).
static inline uint64_t thr_grid_work_cells(const thr_grid* g)
{
	return g->sparse ? (uint64_t)g->n_cells + (uint64_t)g->nx + (uint64_t)g->ny : (uint64_t)g->nx * (uint64_t)g->ny;
}

/// An inclusive range of cells: columns x0 to x1, rows y0 to y1.
typedef struct thr_cell_range {
	int32_t x0, x1, y0, y1;
} thr_cell_range;

/// The cells of box grid g that the box [x0, x1] x [y0, y1] overlaps,
/// clamped to g.
static inline thr_cell_range thr_box_grid_cells(const thr_box_grid* g, float x0, float y0, float x1, float y1)
{
	return (thr_cell_range){thr_grid_coord(x0, g->min_x, g->inv_cell, g->nx),
	                        thr_grid_coord(x1, g->min_x, g->inv_cell, g->nx),
	                        thr_grid_coord(y0, g->min_y, g->inv_cell, g->ny),
	                        thr_grid_coord(y1, g->min_y, g->inv_cell, g->ny)};
}

/// thr_grid_range for a box grid.
static inline void thr_box_grid_range(const thr_box_grid* g, float x, float y, float r, int32_t* cx0, int32_t* cx1,
                                      int32_t* cy0, int32_t* cy1)
{
	const thr_cell_range c = thr_box_grid_cells(g, x - r, y - r, x + r, y + r);
	*cx0 = c.x0;
	*cx1 = c.x1;
	*cy0 = c.y0;
	*cy1 = c.y1;
}

/// The occupied cells of g before cell c, for c in [0, nx*ny]: the bitmap
/// has (nx*ny >> 6) + 1 words, so word c >> 6 exists for c = nx*ny too (its
/// bits from nx*ny on are 0), and rank(nx*ny) = n_occupied.
static inline uint32_t thr_box_grid_rank(const thr_box_grid* g, uint32_t c)
{
	const uint32_t w = c >> 6;
	const uint64_t below = g->occupied[w] & ((UINT64_C(1) << (c & 63u)) - 1u); // c & 63 = 0: no bit below
	return g->word_base[w] + (uint32_t)__builtin_popcountll(below);
}

/// The items of g in the cells before c, for c in [0, nx*ny]: cell c lists
/// items[start(c)] to items[start(c + 1) - 1], and start(nx*ny) = n_items.
static inline uint32_t thr_box_grid_start(const thr_box_grid* g, uint32_t c)
{
	return g->starts[thr_box_grid_rank(g, c)];
}

/// The items of the consecutive cells c0 to c1 (inclusive; c0 <= c1 < nx*ny,
/// such as a row's cells cx0 to cx1) are items[*b] to items[*e - 1], in
/// the order the cells list them. Returns false when those cells are all
/// empty (then *b = *e = 0), without reading their starts.
static inline bool thr_box_grid_span(const thr_box_grid* g, uint32_t c0, uint32_t c1, uint32_t* b, uint32_t* e)
{
	const uint32_t r0 = thr_box_grid_rank(g, c0), r1 = thr_box_grid_rank(g, c1 + 1u);
	if (r0 == r1) {
		*b = *e = 0;
		return false;
	}
	*b = g->starts[r0];
	*e = g->starts[r1];
	return true;
}

/// Appends to *out (growing it) every item in the cells covering the box
/// around (x, y) of half-size r, cells row by row, items in cell order.
/// Returns the count, or -1 when an allocation fails.
int64_t thr_box_grid_query(const thr_box_grid* g, float x, float y, float r, uint32_t** out, uint32_t* cap);

#endif
