// SPDX-License-Identifier: MIT
// The quality metrics' overlap count (metrics_overlap.h).
//
// Design: cells twice the largest radius anywhere in the plane, so any two
// agents that overlap lie in the same or neighbouring cells, whatever the
// world's bounds (a huge open world, a dense knot). The agents are sorted
// by cell, rows up and x up within a row (a radix sort of a packed key),
// and one sweep walks the cells in that order: each agent meets the
// agents after it in its own cell and those of four of its eight
// neighbours (a half stencil: the cell to its right, then the three above
// it, left to right), so each pair is met once. The cell to the right
// follows a cell in the sorted order and the three above are one range
// that a cursor reaches by moving forward only, so the sweep reads memory
// in order (an earlier spatial hash sent each agent to five buckets at
// random places: a cache miss each, at a million agents). The positions
// are copied in sorted order first, so the sweep reads them in order too;
// a radius, by slot, only for a pair close enough to overlap.
//
// The cap: a knot of agents on one spot puts them all in one cell, and
// counting its pairs is quadratic. So each agent examines at most
// THRONG_OVERLAP_MAX_EXAMINED candidates in the stencil order above, each
// cell's agents by id, and the result counts the agents that reached that
// many (overlap_capped): the counts are then a lower bound. Where the cap
// cuts depends on positions and ids alone: the same figures in both
// engines (whose storage orders differ) and for any thread count. A cell
// whose first agent has fewer candidates than the cap cannot cut
// anything, and there the order within a cell changes no figure: pairs
// and depths are symmetric, and an agent's candidates depend only on its
// rank in its cell. Only cells at the cap are put in id order, after the
// parallel sweep, and walked one agent at a time.
//
// Threads: the sort is a stable least-significant-digit radix sort whose
// per-thread digit counts are merged in thread order, so its result is the
// one stable order; the sweep splits the sorted agents into chunks at cell
// boundaries. Figures are integer sums and maxima: the same in any order.
//
// The key packs (row, column + 1) of a cell into the high bits of a 64-bit
// word and the agent's slot into the low ones. A world whose agents lie so
// far apart that it does not fit (millions of cells both ways at a million
// agents) is sorted by a comparison sort instead, which allocates.
#include "metrics_overlap.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "throng/metrics.h"
#include "world_internal.h"

/// Cell coordinates are clamped to +-2^40 (a position 2^40 cells away is far
/// outside any world) so that they fit the sort's integer arithmetic.
#define THR_CELL_LIMIT 1099511627776.0

/// Bits a radix pass sorts by, at most.
#define THR_RADIX_BITS 11u
#define THR_RADIX_DIGITS (1u << THR_RADIX_BITS)

/// Chunks of the sweep per thread.
#define THR_SWEEP_CHUNKS 4u

/// "No cell of this chunk is left for the serial walk".
#define THR_NONE UINT32_MAX

/// The cells the finite agents of a share span, and their count.
typedef struct thr_overlap_span {
	int64_t x0, x1, y0, y1, finite;
} span;

static int64_t cell_coord(float v, double inv_cell)
{
	double c = floor((double)v * inv_cell);
	return (int64_t)(c < -THR_CELL_LIMIT ? -THR_CELL_LIMIT : (c > THR_CELL_LIMIT ? THR_CELL_LIMIT : c));
}

static int thread_num(void)
{
#ifdef _OPENMP
	return omp_get_thread_num();
#else
	return 0;
#endif
}

static int team_size(void)
{
#ifdef _OPENMP
	return omp_get_num_threads();
#else
	return 1;
#endif
}

void thr_overlap_free(thr_overlap_index* x)
{
	free(x->entry);
	free(x->spare);
	free(x->hist);
	free(x->deferred);
	free(x->part);
	memset(x, 0, sizeof *x);
}

int thr_overlap_alloc(thr_overlap_index* x, uint32_t n, uint32_t threads)
{
	memset(x, 0, sizeof *x);
	threads = threads < 1u ? 1u : threads;
	size_t m = n > 0 ? n : 1;
	x->cap = n;
	x->threads = threads;
	x->entry = malloc(m * sizeof *x->entry);
	x->spare = malloc(m * sizeof *x->spare);
	x->hist = malloc((size_t)threads * THR_RADIX_DIGITS * sizeof *x->hist);
	x->deferred = malloc((size_t)threads * THR_SWEEP_CHUNKS * sizeof *x->deferred);
	x->part = malloc((size_t)threads * sizeof(span));
	if (x->entry == NULL || x->spare == NULL || x->hist == NULL || x->deferred == NULL || x->part == NULL) {
		thr_overlap_free(x);
		return -1;
	}
	thr_huge_pages(x->entry, m * sizeof *x->entry);
	thr_huge_pages(x->spare, m * sizeof *x->spare);
	return 0;
}

/// A cell (x, y), or in a packed sort its key (key, 0): both compare the
/// same way (rows up, x up), and a neighbour is a fixed step away.
typedef struct cell {
	int64_t x, y;
} cell;

/// A cell and a slot, for sort_far.
typedef struct far_entry {
	int64_t y, x;
	uint32_t slot;
} far_entry;

/// The sorted agents as the sweep reads them.
typedef struct sweep {
	const float *x, *y, *r; ///< the view's positions and radii, by slot
	const uint32_t* id;     ///< the world's ids, by slot
	uint64_t* e;            ///< the sorted entries
	const float* pos;       ///< entry k's position at [2k], [2k + 1] (the sort's spare buffer)
	float reach2;           ///< (2 max_radius)^2: no pair farther apart than that overlaps
	const far_entry* far;   ///< each entry's cell after sort_far, else NULL
	uint64_t slot_mask;     ///< an entry's slot bits
	uint32_t slot_bits;
	uint32_t m;             ///< entries with a finite position (the first m)
	cell row;               ///< the step to the cell above: (width, 0) packed, (0, 1) far
} sweep;

static inline uint32_t slot_at(const sweep* s, uint32_t k)
{
	return (uint32_t)(s->e[k] & s->slot_mask);
}

static inline cell cell_at(const sweep* s, uint32_t k)
{
	if (s->far != NULL) {
		return (cell){s->far[k].x, s->far[k].y};
	}
	return (cell){(int64_t)(s->e[k] >> s->slot_bits), 0};
}

static inline bool same(cell a, cell b)
{
	return a.x == b.x && a.y == b.y;
}

/// Whether a comes before b in the sorted order (rows up, x up).
static inline bool before(cell a, cell b)
{
	return a.y < b.y || (a.y == b.y && a.x < b.x);
}

/// One cell's agents [a, b) and its candidates: the cell to its right
/// [ra, rb) and the three above it [ua, ub), each empty when vacant.
typedef struct block {
	uint32_t a, b, ra, rb, ua, ub;
} block;

/// The block of the cell whose agents start at a. *up is a cursor that
/// only moves forward: no entry before it lies in or after the row above
/// this cell or any later one.
static block find_block(const sweep* s, uint32_t a, uint32_t* up)
{
	cell c = cell_at(s, a);
	uint32_t b = a + 1u;
	while (b < s->m && same(cell_at(s, b), c)) {
		b++;
	}
	block k = {a, b, b, b, b, b};
	if (b < s->m) {
		cell right = cell_at(s, b);
		if (right.y == c.y && right.x == c.x + 1) {
			uint32_t e = b + 1u;
			while (e < s->m && same(cell_at(s, e), right)) {
				e++;
			}
			k.rb = e;
		}
	}
	cell lo = {c.x + s->row.x - 1, c.y + s->row.y}, hi = {c.x + s->row.x + 1, c.y + s->row.y};
	uint32_t u = *up > b ? *up : b;
	while (u < s->m && before(cell_at(s, u), lo)) {
		u++;
	}
	*up = u;
	uint32_t e = u;
	while (e < s->m && !before(hi, cell_at(s, e))) {
		e++;
	}
	k.ua = u;
	k.ub = e;
	return k;
}

/// The candidates of the block's first agent.
static inline uint64_t first_candidates(const block* k)
{
	return (uint64_t)(k->b - k->a - 1u) + (k->rb - k->ra) + (k->ub - k->ua);
}

typedef struct tally {
	uint64_t pairs;
	double deepest;
} tally;

/// Agent i (its place and radius) against the agents of entries [k0, k1).
static inline void test_range(const sweep* s, float xi, float yi, float ri, uint32_t k0, uint32_t k1, tally* t)
{
	for (uint32_t k = k0; k < k1; ++k) {
		uint32_t j = slot_at(s, k);
		float ddx = s->x[j] - xi;
		float ddy = s->y[j] - yi;
		float rr = ri + s->r[j];
		float d2 = ddx * ddx + ddy * ddy;
		if (d2 < rr * rr) {
			t->pairs++;
			double depth = 1.0 - sqrt((double)d2) / (double)rr;
			t->deepest = depth > t->deepest ? depth : t->deepest;
		}
	}
}

/// Entry p against the entries [k0, k1), as test_range, reading the
/// positions in sorted order (s->pos): the radii, read by slot, only for a
/// pair closer than s->reach2, since r_i + r_j <= 2 max_radius rounds to
/// at most that (float addition and multiplication are monotone), so a
/// pair farther apart fails test_range's test too.
static inline void test_sorted(const sweep* s, uint32_t p, uint32_t k0, uint32_t k1, tally* t)
{
	const float xi = s->pos[2u * p], yi = s->pos[2u * p + 1u];
	for (uint32_t k = k0; k < k1; ++k) {
		float ddx = s->pos[2u * k] - xi;
		float ddy = s->pos[2u * k + 1u] - yi;
		float d2 = ddx * ddx + ddy * ddy;
		if (d2 < s->reach2) {
			float rr = s->r[slot_at(s, p)] + s->r[slot_at(s, k)];
			if (d2 < rr * rr) {
				t->pairs++;
				double depth = 1.0 - sqrt((double)d2) / (double)rr;
				t->deepest = depth > t->deepest ? depth : t->deepest;
			}
		}
	}
}

/// Every pair of a block below the cap (in any order within its cells).
static void block_all(const sweep* s, const block* k, tally* t)
{
	for (uint32_t p = k->a; p < k->b; ++p) {
		test_sorted(s, p, p + 1u, k->b, t);
		test_sorted(s, p, k->ra, k->rb, t);
		test_sorted(s, p, k->ua, k->ub, t);
	}
}

/// The cells whose agents start in [a, a1) of a packed sort, as the loop
/// over find_block and block_all does it (the cells at the cap noted in
/// *deferred, the others' pairs into *t and their first agents' candidates
/// into *most), on the keys alone: a cell's agents are the entries of its
/// key K, the cell to its right those of K + 1 (next in the sorted order),
/// the three above those of K + row - 1 to K + row + 1 (row >= 3: no
/// row's neighbours reach into another row). Three cursors that only move
/// forward find them: r, the end of the keys up to K + 1, and [u0, u1),
/// the keys above.
static void sweep_packed(const sweep* s, uint32_t a, uint32_t a1, uint32_t* deferred, tally* t, uint32_t* most)
{
	const uint64_t* const e = s->e;
	const uint32_t bits = s->slot_bits, m = s->m;
	const uint64_t row = (uint64_t)s->row.x;
	uint32_t r = a, u0 = a, u1 = a;
	while (a < a1) {
		const uint64_t key = e[a] >> bits;
		uint32_t b = a + 1u;
		while (b < m && e[b] >> bits == key) {
			b++;
		}
		r = r > b ? r : b;
		while (r < m && e[r] >> bits <= key + 1u) {
			r++;
		}
		u0 = u0 > r ? u0 : r; // the keys before r are below key + row - 1
		while (u0 < m && e[u0] >> bits < key + row - 1u) {
			u0++;
		}
		u1 = u1 > u0 ? u1 : u0;
		while (u1 < m && e[u1] >> bits <= key + row + 1u) {
			u1++;
		}
		const uint64_t first = (uint64_t)(r - a - 1u) + (u1 - u0);
		if (first >= THRONG_OVERLAP_MAX_EXAMINED) {
			*deferred = *deferred == THR_NONE ? a : *deferred;
		} else {
			*most = (uint32_t)first > *most ? (uint32_t)first : *most;
			for (uint32_t p = a; p < b; ++p) {
				test_sorted(s, p, p + 1u, r, t); // the rest of the cell, then the cell to the right
				test_sorted(s, p, u0, u1, t);
			}
		}
		a = b;
	}
}

static int compare_u64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/// Puts the entries [a, b), all of one cell, in id order.
static void sort_by_id(sweep* s, uint32_t a, uint32_t b)
{
	if (b - a < 2u) {
		return;
	}
	uint64_t key = s->e[a] & ~s->slot_mask; // the cell's, shared by the range
	for (uint32_t k = a; k < b; ++k) {
		uint32_t i = slot_at(s, k);
		s->e[k] = (uint64_t)s->id[i] << 32 | i;
	}
	qsort(s->e + a, b - a, sizeof *s->e, compare_u64);
	for (uint32_t k = a; k < b; ++k) {
		s->e[k] = key | (s->e[k] & 0xffffffffu);
	}
}

/// A block at the cap: its cells in id order, then each agent's candidates
/// in stencil order, cut at THRONG_OVERLAP_MAX_EXAMINED.
static void block_capped(sweep* s, const block* k, thr_overlap_result* r)
{
	sort_by_id(s, k->a, k->b);
	sort_by_id(s, k->ra, k->rb);
	for (uint32_t u = k->ua; u < k->ub;) {
		cell c = cell_at(s, u);
		uint32_t e = u + 1u;
		while (e < k->ub && same(cell_at(s, e), c)) {
			e++;
		}
		sort_by_id(s, u, e);
		u = e;
	}
	tally t = {0, 0.0};
	for (uint32_t p = k->a; p < k->b; ++p) {
		uint32_t i = slot_at(s, p);
		const uint32_t range[3][2] = {{p + 1u, k->b}, {k->ra, k->rb}, {k->ua, k->ub}};
		uint32_t left = THRONG_OVERLAP_MAX_EXAMINED;
		for (int g = 0; g < 3 && left > 0; ++g) {
			uint32_t k0 = range[g][0], k1 = range[g][1];
			k1 = k1 - k0 > left ? k0 + left : k1;
			left -= k1 - k0;
			test_range(s, s->x[i], s->y[i], s->r[i], k0, k1, &t);
		}
		uint32_t examined = THRONG_OVERLAP_MAX_EXAMINED - left;
		r->most_examined = examined > r->most_examined ? examined : r->most_examined;
		r->capped += left == 0 ? 1u : 0u;
	}
	r->pairs += t.pairs;
	r->deepest = t.deepest > r->deepest ? t.deepest : r->deepest;
}

/// Where chunk c of `chunks` starts: at the first cell that starts at or
/// after its share of the entries.
static uint32_t chunk_start(const sweep* s, uint32_t c, uint32_t chunks)
{
	uint32_t k = (uint32_t)((uint64_t)s->m * c / chunks);
	while (k > 0 && k < s->m && same(cell_at(s, k), cell_at(s, k - 1u))) {
		k++;
	}
	return k;
}

/// Rows up, x up, slots up: a total order, so qsort's lack of stability
/// cannot show.
static int compare_far(const void* a, const void* b)
{
	const far_entry *p = a, *q = b;
	if (p->y != q->y) {
		return p->y < q->y ? -1 : 1;
	}
	if (p->x != q->x) {
		return p->x < q->x ? -1 : 1;
	}
	return p->slot < q->slot ? -1 : (p->slot > q->slot ? 1 : 0);
}

/// Sorts the slots of the finite agents by cell into x->entry (an entry
/// is then its slot) through a comparison sort, for the worlds the packed
/// key cannot hold: s then reads each entry's cell from s->far, which the
/// caller frees. Returns the count sorted, or -1 when out of memory.
static int64_t sort_far(thr_overlap_index* x, const throng_view* v, uint32_t n, double inv_cell, sweep* s)
{
	far_entry* f = malloc((size_t)n * sizeof *f);
	if (f == NULL) {
		return -1;
	}
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; ++i) {
		if (isfinite(v->x[i]) && isfinite(v->y[i])) {
			f[m++] = (far_entry){cell_coord(v->y[i], inv_cell), cell_coord(v->x[i], inv_cell), i};
		}
	}
	qsort(f, m, sizeof *f, compare_far);
	for (uint32_t k = 0; k < m; ++k) {
		x->entry[k] = f[k].slot;
	}
	s->far = f;
	s->slot_mask = UINT32_MAX;
	s->slot_bits = 32;
	s->row = (cell){0, 1};
	return m;
}

/// The number of bits that hold v.
static uint32_t bits_of(uint64_t v)
{
	return v == 0 ? 0u : 64u - (uint32_t)__builtin_clzll(v);
}

/// A radix sort's passes over `bits` bits, and the bits of each.
static void radix_plan(uint32_t bits, uint32_t* passes, uint32_t* digit)
{
	*passes = (bits + THR_RADIX_BITS - 1u) / THR_RADIX_BITS;
	*digit = *passes > 0 ? (bits + *passes - 1u) / *passes : 0u;
}

/// One thread's part of a stable least-significant-digit radix sort of the
/// n entries of x->entry by their bits [lo, lo + bits): called by every
/// thread of the team, each with its own share [k0, k1) of the entries,
/// which it counts and then places, two barriers a pass. Each thread's
/// places follow from the counts of all, digit by digit in thread order,
/// so every split places each entry where a serial sort would. The result is in x->entry after an even number of passes, in
/// x->spare after an odd one.
static void radix_sort(thr_overlap_index* x, uint32_t k0, uint32_t k1, uint32_t lo, uint32_t bits)
{
	uint32_t passes, digit;
	radix_plan(bits, &passes, &digit);
	const uint32_t digits = 1u << digit, t = (uint32_t)thread_num(), nt = (uint32_t)team_size();
	const uint64_t mask = digits - 1u;
	const uint32_t* const hist = x->hist;
	uint32_t* const h = x->hist + (size_t)t * digits;
	uint32_t at[THR_RADIX_DIGITS];
	uint64_t* src = x->entry;
	uint64_t* dst = x->spare;
	for (uint32_t p = 0; p < passes; ++p) {
		const uint32_t shift = lo + p * digit;
		memset(h, 0, digits * sizeof *h);
		for (uint32_t k = k0; k < k1; ++k) {
			h[(src[k] >> shift) & mask]++;
		}
#pragma omp barrier
		// Where this thread's entries of each digit go: after every entry of
		// a lower digit and this digit's entries of the threads before it.
		// Each thread works it out alone (no merge in one thread, no
		// barrier more); the counts are overwritten only after the barrier
		// that ends the pass.
		uint32_t sum = 0;
		for (uint32_t d = 0; d < digits; ++d) {
			for (uint32_t u = 0; u < nt; ++u) {
				at[d] = u == t ? sum : at[d];
				sum += hist[(size_t)u * digits + d];
			}
		}
		for (uint32_t k = k0; k < k1; ++k) {
			dst[at[(src[k] >> shift) & mask]++] = src[k];
		}
#pragma omp barrier
		uint64_t* next = dst;
		dst = src;
		src = next;
	}
}

/// The span of the agents [k0, k1) of v.
static span span_of(const throng_view* v, uint32_t k0, uint32_t k1, double inv_cell)
{
	span b = {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 0};
	for (uint32_t i = k0; i < k1; ++i) {
		if (isfinite(v->x[i]) && isfinite(v->y[i])) {
			int64_t cx = cell_coord(v->x[i], inv_cell), cy = cell_coord(v->y[i], inv_cell);
			b.x0 = cx < b.x0 ? cx : b.x0;
			b.x1 = cx > b.x1 ? cx : b.x1;
			b.y0 = cy < b.y0 ? cy : b.y0;
			b.y1 = cy > b.y1 ? cy : b.y1;
			b.finite++;
		}
	}
	return b;
}

/// How the agents are sorted: by a packed key (cell key << slot_bits |
/// slot) or, when that does not fit, by sort_far.
typedef struct plan {
	bool packed;
	int64_t x0, y0;
	uint64_t width, cells;
	uint32_t slot_bits, key_bits;
	int64_t finite;
} plan;

/// The plan for agents spanning b. Key (cy - y0) * width + (cx - x0 + 1):
/// a cell's right neighbour is the next key, the cells above it are
/// `width` on, and no row's neighbours reach into another row. The agents
/// with a non-finite position take the key `cells`, after every cell. Keys
/// and slots within 62 bits, so that a key plus a row stays an int64_t.
static plan plan_for(span b, uint32_t n)
{
	plan p = {false, b.x0, b.y0, 0, 0, bits_of(n - 1u), 0, b.finite};
	if (b.finite == 0) {
		return p;
	}
	p.width = (uint64_t)(b.x1 - b.x0) + 3u;
	uint64_t height = (uint64_t)(b.y1 - b.y0) + 1u;
	if (height <= (UINT64_MAX >> p.slot_bits) / p.width) {
		p.cells = height * p.width;
		p.key_bits = bits_of(p.cells);
		p.packed = p.key_bits + p.slot_bits <= 62u;
	}
	return p;
}

/// Fills [k0, k1) of x->entry with the packed entries of plan p.
static void fill_entries(thr_overlap_index* x, const throng_view* v, const plan* p, uint32_t k0, uint32_t k1,
                         double inv_cell)
{
	for (uint32_t i = k0; i < k1; ++i) {
		uint64_t key = p->cells;
		if (isfinite(v->x[i]) && isfinite(v->y[i])) {
			uint64_t kx = (uint64_t)(cell_coord(v->x[i], inv_cell) - p->x0) + 1u;
			uint64_t ky = (uint64_t)(cell_coord(v->y[i], inv_cell) - p->y0);
			key = ky * p->width + kx;
		}
		x->entry[i] = key << p->slot_bits | (uint64_t)i;
	}
}

int thr_overlap_count(thr_overlap_index* x, const throng_world* w, uint32_t threads, thr_overlap_result* out)
{
	memset(out, 0, sizeof *out);
	const throng_view v = throng_world_view(w);
	uint32_t n = v.count < x->cap ? v.count : x->cap;
	if (n < 2 || !(w->max_radius > 0.0f)) {
		return 0;
	}
	threads = threads < 1u ? 1u : (threads > x->threads ? x->threads : threads);
	const int team = n > THR_PARALLEL_MIN_AGENTS ? (int)threads : 1;
	const double inv_cell = 1.0 / (2.0 * (double)w->max_radius);
	const uint32_t chunks = (uint32_t)team * THR_SWEEP_CHUNKS;
	const float reach = 2.0f * w->max_radius;
	sweep s = {v.x, v.y, v.radius, v.id, NULL, NULL, reach * reach, NULL, UINT32_MAX, 32, 0, {0, 1}};
	span* part = x->part;
	plan p;
	bool fail = false;
	uint32_t* deferred = x->deferred;
	uint64_t pairs = 0;
	double deepest = 0.0;
	uint32_t most = 0;
	// One parallel region: the cells' span, the sort, and every cell below
	// the cap; the first cell at the cap of each chunk of the sweep is
	// noted for the serial walk after it.
#pragma omp parallel num_threads(team) if (team > 1)
	{
		const uint32_t t = (uint32_t)thread_num(), nt = (uint32_t)team_size();
		const uint32_t k0 = (uint32_t)((uint64_t)n * t / nt), k1 = (uint32_t)((uint64_t)n * (t + 1u) / nt);
		part[t] = span_of(&v, k0, k1, inv_cell);
#pragma omp barrier
#pragma omp single
		{
			span b = part[0];
			for (uint32_t u = 1; u < nt; ++u) {
				b.x0 = part[u].x0 < b.x0 ? part[u].x0 : b.x0;
				b.x1 = part[u].x1 > b.x1 ? part[u].x1 : b.x1;
				b.y0 = part[u].y0 < b.y0 ? part[u].y0 : b.y0;
				b.y1 = part[u].y1 > b.y1 ? part[u].y1 : b.y1;
				b.finite += part[u].finite;
			}
			p = plan_for(b, n);
			if (p.finite > 0 && !p.packed) {
				fail = sort_far(x, &v, n, inv_cell, &s) < 0;
			}
		}
		if (p.packed) {
			fill_entries(x, &v, &p, k0, k1, inv_cell);
			radix_sort(x, k0, k1, p.slot_bits, p.key_bits);
		}
#pragma omp single
		{
			if (p.packed) {
				uint32_t passes, digit;
				radix_plan(p.key_bits, &passes, &digit);
				if (passes % 2u == 1u) {
					uint64_t* sorted = x->spare;
					x->spare = x->entry;
					x->entry = sorted;
				}
				s.slot_bits = p.slot_bits;
				s.slot_mask = ((uint64_t)1 << p.slot_bits) - 1u;
				s.row = (cell){(int64_t)p.width, 0};
			}
			s.e = x->entry;
			s.m = fail ? 0u : (uint32_t)p.finite;
			s.pos = (const float*)x->spare;
		}
		// The sorted agents' positions side by side in the sort's spare
		// buffer (8 bytes an entry, free until the next sort): the sweep
		// then reads them in order, not by slot.
		float* const pos = (float*)x->spare;
#pragma omp for schedule(static)
		for (uint32_t k = 0; k < s.m; ++k) {
			const uint32_t i = slot_at(&s, k);
			pos[2u * k] = v.x[i];
			pos[2u * k + 1u] = v.y[i];
		}
#pragma omp for schedule(static) reduction(+ : pairs) reduction(max : deepest, most)
		for (uint32_t c = 0; c < chunks; ++c) {
			const uint32_t a1 = chunk_start(&s, c + 1u, chunks);
			uint32_t a = chunk_start(&s, c, chunks), up = a;
			tally tl = {0, 0.0};
			deferred[c] = THR_NONE;
			if (s.far == NULL) {
				sweep_packed(&s, a, a1, &deferred[c], &tl, &most);
			}
			while (s.far != NULL && a < a1) {
				block k = find_block(&s, a, &up);
				uint64_t first = first_candidates(&k);
				if (first >= THRONG_OVERLAP_MAX_EXAMINED) {
					deferred[c] = deferred[c] == THR_NONE ? a : deferred[c];
				} else {
					most = (uint32_t)first > most ? (uint32_t)first : most;
					block_all(&s, &k, &tl);
				}
				a = k.b;
			}
			pairs += tl.pairs;
			deepest = tl.deepest > deepest ? tl.deepest : deepest;
		}
	}
	if (fail) {
		return -1;
	}
	out->pairs = pairs;
	out->deepest = deepest;
	out->most_examined = most;
	// The cells at the cap, one agent at a time, in sorted order.
	for (uint32_t c = 0; c < chunks; ++c) {
		if (deferred[c] == THR_NONE) {
			continue;
		}
		const uint32_t a1 = chunk_start(&s, c + 1u, chunks);
		uint32_t a = deferred[c], up = a;
		while (a < a1) {
			block k = find_block(&s, a, &up);
			if (first_candidates(&k) >= THRONG_OVERLAP_MAX_EXAMINED) {
				block_capped(&s, &k, out);
			}
			a = k.b;
		}
	}
	free((void*)s.far);
	// A wrap world: the pairs that overlap only across a seam.
	if (thr_overlap_seam(w, out) != 0) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	return 0;
}
