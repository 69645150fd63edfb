// SPDX-License-Identifier: MIT
// Spatial queries (include/throng/query.h) over the query index (query.h).
//
// Every query walks the index's cells that a box around its region
// covers, a row of cells at a time (a row's cells are one span of the
// index's copies), tests each agent there, and collects the matches as
// 64-bit keys: the squared distance's float bits (non-negative floats
// order as their bits do) above the id for the radius and nearest
// queries, the id alone for box and polygon. Sorting the keys gives the
// documented order, ties broken by id, whatever order the cells and the
// slots hold the agents in. The keys live on the stack up to
// THR_QUERY_LOCAL, on the heap beyond, one buffer per call (a batch reuses
// it), so concurrent queries share nothing but the index.
//
// A radius walk widens its box by a relative 2^-21 (query_reach): an agent
// whose float distance test passes then always lies in a visited cell,
// and an agent in no visited cell always fails the test. The k-nearest
// query relies on the latter: it walks a radius that starts where about
// 2k agents are expected (at the index's density) and doubles until k
// agents match within it, or until the walk covers every cell; the k
// nearest then lie among the matches, since every agent it did not visit
// is farther than the radius.
#include "query.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "validate.h"

/// Batches of at least this many queries answer them row by row of cells
/// (batch_order).
#define THR_QUERY_SORTED 64u

/// Relative widening of a radius walk's box (query_reach).
#define THR_QUERY_PAD (1.0f / 2097152.0f)

void thr_keys_free(thr_keys* b)
{
	if (b->k != b->local) {
		free(b->k);
	}
}

bool thr_keys_grow(thr_keys* b)
{
	if (b->cap > UINT32_MAX / 2u) {
		return false;
	}
	const uint32_t cap = b->cap * 2u;
	uint64_t* k = b->k == b->local ? malloc((size_t)cap * sizeof *k) : realloc(b->k, (size_t)cap * sizeof *k);
	if (k == NULL) {
		return false;
	}
	if (b->k == b->local) {
		memcpy(k, b->local, sizeof b->local);
	}
	b->k = k;
	b->cap = cap;
	return true;
}

static int by_key(const void* a, const void* b)
{
	const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

void thr_keys_sort(thr_keys* b)
{
	uint64_t* k = b->k;
	const uint32_t n = b->n;
	if (n > 32u) {
		qsort(k, n, sizeof *k, by_key);
		return;
	}
	for (uint32_t i = 1; i < n; ++i) {
		const uint64_t v = k[i];
		uint32_t j = i;
		for (; j > 0 && k[j - 1] > v; --j) {
			k[j] = k[j - 1];
		}
		k[j] = v;
	}
}

void thr_keys_write(const thr_keys* b, uint32_t* ids, uint32_t capacity, uint32_t* total)
{
	const uint32_t m = b->n < capacity ? b->n : capacity;
	for (uint32_t j = 0; j < m; ++j) {
		ids[j] = (uint32_t)b->k[j];
	}
	*total = b->n;
}

/// A distance key: the squared distance's bits (a non-negative float
/// orders as its bits do) above the id.
static inline uint64_t dist_key(float d2, uint32_t id)
{
	uint32_t bits;
	memcpy(&bits, &d2, sizeof bits);
	return (uint64_t)bits << 32 | id;
}

throng_query_filter throng_query_filter_all(void)
{
	return (throng_query_filter){THRONG_ANY, THRONG_ANY, THRONG_NO_AGENT};
}

throng_status thr_query_check_world(const throng_world* w, const throng_query_filter* filter, const char* fn,
                                    thr_match* m)
{
	throng_status st = thr_check_world(w, fn);
	if (st != THRONG_OK) {
		return st;
	}
	if (w->part != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: world: a part world cannot be queried (its ghosts are other parts' agents)", fn);
	}
	const throng_query_filter f = filter != NULL ? *filter : throng_query_filter_all();
	if (f.archetype != THRONG_ANY && f.archetype >= w->archetype_count) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: filter.archetype: no archetype %u (the world has %u)", fn,
		                f.archetype, w->archetype_count);
	}
	m->group = f.group;
	m->archetype = f.archetype;
	m->exclude = f.exclude;
	m->test = f.group != THRONG_ANY || f.archetype != THRONG_ANY;
	m->group_of = w->group;
	m->archetype_of = w->archetype;
	return THRONG_OK;
}

throng_status thr_query_check_out(const char* fn, const void* ids, uint64_t room, const char* room_name)
{
	if (ids == NULL && room > 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: ids: is NULL but %s is %llu", fn, room_name,
		                (unsigned long long)room);
	}
	return THRONG_OK;
}

throng_status thr_query_check_total(const char* fn, const char* name, const void* p)
{
	if (p == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: is NULL", fn, name);
	}
	return THRONG_OK;
}

throng_status thr_query_check_point(const char* fn, const char* name, throng_vec2 p)
{
	if (!isfinite(p.x) || !isfinite(p.y) || fabsf(p.x) > THRONG_MAX_COORD || fabsf(p.y) > THRONG_MAX_COORD) {
		char ctx[160];
		snprintf(ctx, sizeof ctx, "%s: %s", fn, name);
		return thr_validate_point(ctx, p);
	}
	return THRONG_OK;
}

throng_status thr_query_check_points(const char* fn, const char* name, const throng_vec2* p, uint32_t n)
{
	if (p == NULL && n > 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: is NULL but n is %u", fn, name, n);
	}
	for (uint32_t q = 0; q < n; ++q) {
		const throng_vec2 v = p[q];
		if (!isfinite(v.x) || !isfinite(v.y) || fabsf(v.x) > THRONG_MAX_COORD || fabsf(v.y) > THRONG_MAX_COORD) {
			char at[64];
			snprintf(at, sizeof at, "%s[%u]", name, q);
			return thr_query_check_point(fn, at, v);
		}
	}
	return THRONG_OK;
}

static throng_status check_radius(const char* fn, float r)
{
	if (!isfinite(r) || !(r >= 0.0f)) {
		char g[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: radius: must be finite and >= 0 (got %s)", fn,
		                thr_fmt_float(g, r));
	}
	return THRONG_OK;
}

/// v brought into [lo, lo + period) (a wrap world's centre; bounds.h's rule).
static float wrap_into(float v, float lo, float period)
{
	if (v >= lo && v < lo + period) {
		return v;
	}
	float t = v - period * floorf((v - lo) / period);
	return t < lo || t >= lo + period ? lo : t;
}

/// A query point as the radius and nearest walks take it: in a wrap world,
/// brought into the bounds.
static throng_vec2 query_point(const throng_world* w, throng_vec2 c)
{
	const throng_world_def* d = &w->def;
	if (d->bounds_mode == THRONG_BOUNDS_WRAP) {
		c.x = wrap_into(c.x, d->bounds_min.x, d->bounds_max.x - d->bounds_min.x);
		c.y = wrap_into(c.y, d->bounds_min.y, d->bounds_max.y - d->bounds_min.y);
	}
	return c;
}

/// The half-size of a radius walk's box around c (see the note above).
static float query_reach(const thr_period* p, throng_vec2 c, float r)
{
	float span = fabsf(c.x) + fabsf(c.y) + r;
	if (p->wrap) {
		span += p->px + p->py;
	}
	return r + span * THR_QUERY_PAD;
}

/// Whether walk k visits every cell of g.
static bool walk_covers(const thr_grid* g, const thr_grid_walk* k)
{
	return k->nxr == 1 && k->nyr == 1 && k->x0[0] == 0 && k->x1[0] == g->nx - 1 && k->y0[0] == 0 &&
	       k->y1[0] == g->ny - 1;
}

/// Collects the matching agents of walk k whose squared distance from c is
/// at most r2, as distance keys.
static void collect_walk(const thr_query_index* q, const thr_period* p, const thr_match* m, const thr_grid_walk* k,
                         throng_vec2 c, float r2, thr_keys* b)
{
	const uint32_t* start = q->grid.cell_start;
	for (int32_t t = 0; t < k->spans; ++t) {
		int32_t cy, cx0, cx1;
		uint32_t k0, k1;
		thr_grid_walk_span(k, t, &cy, &cx0, &cx1);
		thr_grid_row_cells(&q->grid, cy, cx0, cx1, &k0, &k1);
		const uint32_t end = start[k1];
		for (uint32_t j = start[k0]; j < end; ++j) {
			const thr_query_item* a = &q->item[j];
			float dx = a->x - c.x, dy = a->y - c.y;
			thr_period_image(p, &dx, &dy);
			const float d2 = dx * dx + dy * dy;
			if (d2 <= r2 && thr_query_matches(m, q, j)) {
				thr_keys_push(b, dist_key(d2, a->id));
			}
		}
	}
}

/// One radius query into b (sorted), the centre already checked.
static void radius_one(const throng_world* w, const thr_match* m, throng_vec2 center, float r, thr_keys* b)
{
	const thr_query_index* q = w->query;
	b->n = 0;
	if (q->n == 0) {
		return;
	}
	const thr_period p = thr_world_period(w);
	const throng_vec2 c = query_point(w, center);
	thr_grid_walk k;
	thr_grid_walk_init(&q->grid, c.x, c.y, query_reach(&p, c, r), &k);
	collect_walk(q, &p, m, &k, c, r * r, b);
	thr_keys_sort(b);
}

/// The distance from c to the index's extent (0 inside it).
static float extent_distance(const thr_query_index* q, throng_vec2 c)
{
	const float dx = c.x < q->lo_x ? q->lo_x - c.x : (c.x > q->hi_x ? c.x - q->hi_x : 0.0f);
	const float dy = c.y < q->lo_y ? q->lo_y - c.y : (c.y > q->hi_y ? c.y - q->hi_y : 0.0f);
	return sqrtf(dx * dx + dy * dy);
}

/// One k-nearest query into b (sorted, at most k keys), the point already
/// checked.
static void nearest_one(const throng_world* w, const thr_match* m, throng_vec2 point, uint32_t k, thr_keys* b)
{
	const thr_query_index* q = w->query;
	b->n = 0;
	if (q->n == 0) {
		return;
	}
	const thr_period p = thr_world_period(w);
	const throng_vec2 c = query_point(w, point);
	// Where about 2k agents are expected, at least half a cell.
	float r = q->density > 0.0f ? sqrtf(2.0f * (float)k / (3.14159265f * q->density)) : 0.0f;
	r = r > 0.5f * q->grid.cell ? r : 0.5f * q->grid.cell;
	r += extent_distance(q, c);
	for (;;) {
		thr_grid_walk walk;
		thr_grid_walk_init(&q->grid, c.x, c.y, query_reach(&p, c, r), &walk);
		const bool all = walk_covers(&q->grid, &walk);
		b->n = 0;
		collect_walk(q, &p, m, &walk, c, all ? INFINITY : r * r, b);
		if (b->failed || b->n >= k || all) {
			break;
		}
		r += r;
	}
	thr_keys_sort(b);
	b->n = b->n < k ? b->n : k;
}

/// A batch's query in the order it is answered: its point and its index.
typedef struct thr_batch_point {
	throng_vec2 p;
	uint32_t q;
} thr_batch_point;

/// The order a batch answers its n points in: by the index's row of
/// cells (a counting sort, stable), so that the rows a query reads, and
/// the points themselves, were read just before and are still in cache
/// (at 10^6 agents a row of cells is about 20 KB of records; in the given
/// order each query met about ten cache misses). NULL, the given order,
/// for a batch below THR_QUERY_SORTED or when out of memory: the order
/// changes no answer.
static thr_batch_point* batch_order(const throng_world* w, const throng_vec2* p, uint32_t n)
{
	const thr_query_index* q = w->query;
	if (n < THR_QUERY_SORTED || q->n == 0) {
		return NULL;
	}
	const thr_grid* g = &q->grid;
	const uint32_t rows = (uint32_t)g->ny;
	thr_batch_point* order = malloc((size_t)n * sizeof *order);
	uint32_t* start = calloc((size_t)rows + 1u, sizeof *start);
	if (order == NULL || start == NULL) {
		free(order);
		free(start);
		return NULL;
	}
	for (uint32_t j = 0; j < n; ++j) {
		start[thr_grid_coord(p[j].y, g->min_y, g->inv_cell, g->ny) + 1]++;
	}
	for (uint32_t r = 1; r <= rows; ++r) {
		start[r] += start[r - 1];
	}
	for (uint32_t j = 0; j < n; ++j) {
		order[start[thr_grid_coord(p[j].y, g->min_y, g->inv_cell, g->ny)]++] = (thr_batch_point){p[j], j};
	}
	free(start);
	return order;
}

throng_status throng_world_query_radius(const throng_world* w, throng_vec2 center, float radius,
                                        const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                        uint32_t* total)
{
	static const char fn[] = "throng_world_query_radius";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK) {
		st = thr_query_check_point(fn, "center", center);
	}
	if (st == THRONG_OK) {
		st = check_radius(fn, radius);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_out(fn, ids, capacity, "capacity");
	}
	if (st == THRONG_OK) {
		st = thr_query_check_total(fn, "total", total);
	}
	if (st == THRONG_OK) {
		st = thr_query_index_ready(w, fn);
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_keys b;
	thr_keys_init(&b);
	radius_one(w, &m, center, radius, &b);
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	} else {
		thr_keys_write(&b, ids, capacity, total);
	}
	thr_keys_free(&b);
	return st;
}

throng_status throng_world_query_nearest(const throng_world* w, throng_vec2 point, uint32_t k,
                                         const throng_query_filter* filter, uint32_t* ids, uint32_t* total)
{
	static const char fn[] = "throng_world_query_nearest";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK) {
		st = thr_query_check_point(fn, "point", point);
	}
	if (st == THRONG_OK && k == 0) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: k: must be >= 1 (got 0)", fn);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_out(fn, ids, k, "k");
	}
	if (st == THRONG_OK) {
		st = thr_query_check_total(fn, "total", total);
	}
	if (st == THRONG_OK) {
		st = thr_query_index_ready(w, fn);
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_keys b;
	thr_keys_init(&b);
	nearest_one(w, &m, point, k, &b);
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	} else {
		thr_keys_write(&b, ids, k, total);
	}
	thr_keys_free(&b);
	return st;
}

throng_status throng_world_query_radius_batch(const throng_world* w, const throng_vec2* centers, uint32_t n,
                                              float radius, const throng_query_filter* filter, uint32_t* ids,
                                              uint32_t per_query, uint32_t* totals)
{
	static const char fn[] = "throng_world_query_radius_batch";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK) {
		st = thr_query_check_points(fn, "centers", centers, n);
	}
	if (st == THRONG_OK) {
		st = check_radius(fn, radius);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_out(fn, ids, (uint64_t)n * per_query, "n * per_query");
	}
	if (st == THRONG_OK && n > 0) {
		st = thr_query_check_total(fn, "totals", totals);
	}
	if (st == THRONG_OK && n > 0) {
		st = thr_query_index_ready(w, fn);
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_keys b;
	thr_keys_init(&b);
	thr_batch_point* order = batch_order(w, centers, n);
	for (uint32_t j = 0; j < n && !b.failed; ++j) {
		const uint32_t q = order != NULL ? order[j].q : j;
		radius_one(w, &m, order != NULL ? order[j].p : centers[q], radius, &b);
		if (!b.failed) {
			thr_keys_write(&b, ids + (size_t)q * per_query, per_query, &totals[q]);
		}
	}
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	}
	free(order);
	thr_keys_free(&b);
	return st;
}

throng_status throng_world_query_nearest_batch(const throng_world* w, const throng_vec2* points, uint32_t n,
                                               uint32_t k, const throng_query_filter* filter, uint32_t* ids,
                                               uint32_t* totals)
{
	static const char fn[] = "throng_world_query_nearest_batch";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK) {
		st = thr_query_check_points(fn, "points", points, n);
	}
	if (st == THRONG_OK && k == 0) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: k: must be >= 1 (got 0)", fn);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_out(fn, ids, (uint64_t)n * k, "n * k");
	}
	if (st == THRONG_OK && n > 0) {
		st = thr_query_check_total(fn, "totals", totals);
	}
	if (st == THRONG_OK && n > 0) {
		st = thr_query_index_ready(w, fn);
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_keys b;
	thr_keys_init(&b);
	thr_batch_point* order = batch_order(w, points, n);
	for (uint32_t j = 0; j < n && !b.failed; ++j) {
		const uint32_t q = order != NULL ? order[j].q : j;
		nearest_one(w, &m, order != NULL ? order[j].p : points[q], k, &b);
		if (!b.failed) {
			thr_keys_write(&b, ids + (size_t)q * k, k, &totals[q]);
		}
	}
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	}
	free(order);
	thr_keys_free(&b);
	return st;
}
