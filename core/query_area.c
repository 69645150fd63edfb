// SPDX-License-Identifier: MIT
// The box and polygon queries (include/throng/query.h): the agents whose
// stored position lies in an area, by id. Both walk the index's cells
// under the area's bounding box, a row at a time (query.c's note), and
// test the stored positions as they are, with no image across a wrap
// world's seams.
//
// The polygon test is a crossing count along +x with half-open edges,
// each edge taken from its lower end point to its upper one, so that the
// test of a point against an edge is the same in every polygon that has
// the edge, whichever way each winds: a point on an edge shared by two
// polygons of a tiling crosses it in both or in neither, and lies in
// exactly one of them (query.h states the rule). The side test runs in
// double precision, where the differences and products of float
// coordinates that are not too far apart in magnitude are exact.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "error.h"
#include "query.h"

/// Edges a polygon query keeps on the stack before it takes a heap buffer.
#define THR_QUERY_LOCAL_EDGES 64

/// A non-horizontal edge from its lower end point (ax, ay) up by (dx, dy),
/// dy > 0: it spans ay <= y < ay + dy.
typedef struct thr_edge {
	double ax, ay, dx, dy, by;
} thr_edge;

/// Whether (x, y) lies inside the polygon of the n edges (query.h's rule).
static bool in_polygon(const thr_edge* e, uint32_t n, double x, double y)
{
	bool in = false;
	for (uint32_t i = 0; i < n; ++i) {
		if (y >= e[i].ay && y < e[i].by && e[i].dx * (y - e[i].ay) - e[i].dy * (x - e[i].ax) > 0.0) {
			in = !in;
		}
	}
	return in;
}

/// Appends to b the ids of the matching agents of q in [lo, hi] (the
/// cells under it, clamped), and, with a polygon of n edges (e not
/// NULL), inside it.
static void area_walk(const thr_query_index* q, throng_vec2 lo, throng_vec2 hi, const thr_match* m,
                      const thr_edge* e, uint32_t n, thr_keys* b)
{
	const thr_grid* g = &q->grid;
	const int32_t cx0 = thr_grid_coord(lo.x, g->min_x, g->inv_cell, g->nx);
	const int32_t cx1 = thr_grid_coord(hi.x, g->min_x, g->inv_cell, g->nx);
	const int32_t cy0 = thr_grid_coord(lo.y, g->min_y, g->inv_cell, g->ny);
	const int32_t cy1 = thr_grid_coord(hi.y, g->min_y, g->inv_cell, g->ny);
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		const uint32_t end = g->cell_start[k1];
		for (uint32_t j = g->cell_start[k0]; j < end; ++j) {
			const float x = q->item[j].x, y = q->item[j].y;
			if (x >= lo.x && x <= hi.x && y >= lo.y && y <= hi.y && (e == NULL || in_polygon(e, n, x, y)) &&
			    thr_query_matches(m, q, j)) {
				thr_keys_push(b, q->item[j].id);
			}
		}
	}
}

throng_status throng_world_query_box(const throng_world* w, throng_vec2 lo, throng_vec2 hi,
                                     const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                     uint32_t* total)
{
	static const char fn[] = "throng_world_query_box";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK) {
		st = thr_query_check_point(fn, "lo", lo);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_point(fn, "hi", hi);
	}
	if (st == THRONG_OK && !(lo.x <= hi.x && lo.y <= hi.y)) {
		char f[4][THR_FMT_FLOAT_CAP];
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: hi: must be >= lo on each axis (got lo (%s, %s), hi (%s, %s))",
		              fn, thr_fmt_float(f[0], lo.x), thr_fmt_float(f[1], lo.y), thr_fmt_float(f[2], hi.x),
		              thr_fmt_float(f[3], hi.y));
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
	const thr_query_index* q = w->query;
	thr_keys b;
	thr_keys_init(&b);
	if (q->n > 0) {
		area_walk(q, lo, hi, &m, NULL, 0, &b);
	}
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	} else {
		thr_keys_sort(&b);
		thr_keys_write(&b, ids, capacity, total);
	}
	thr_keys_free(&b);
	return st;
}

throng_status throng_world_query_polygon(const throng_world* w, const throng_vec2* points, uint32_t n,
                                         const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                         uint32_t* total)
{
	static const char fn[] = "throng_world_query_polygon";
	thr_match m;
	throng_status st = thr_query_check_world(w, filter, fn, &m);
	if (st == THRONG_OK && (n < 3 || n > THRONG_MAX_WAYPOINTS)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: n: must be 3 to %u points (got %u)", fn,
		              (unsigned)THRONG_MAX_WAYPOINTS, n);
	}
	if (st == THRONG_OK) {
		st = thr_query_check_points(fn, "points", points, n);
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
	thr_edge local[THR_QUERY_LOCAL_EDGES];
	thr_edge* e = n <= THR_QUERY_LOCAL_EDGES ? local : malloc((size_t)n * sizeof *e);
	if (e == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u edges", fn, n);
	}
	throng_vec2 lo = points[0], hi = points[0];
	uint32_t edges = 0;
	for (uint32_t i = 0; i < n; ++i) {
		throng_vec2 a = points[i], c = points[i + 1u < n ? i + 1u : 0u];
		lo.x = fminf(lo.x, a.x);
		lo.y = fminf(lo.y, a.y);
		hi.x = fmaxf(hi.x, a.x);
		hi.y = fmaxf(hi.y, a.y);
		if (a.y == c.y) {
			continue; // a horizontal edge is never crossed
		}
		if (a.y > c.y) {
			const throng_vec2 t = a;
			a = c;
			c = t;
		}
		e[edges++] = (thr_edge){a.x, a.y, (double)c.x - a.x, (double)c.y - a.y, c.y};
	}
	const thr_query_index* q = w->query;
	thr_keys b;
	thr_keys_init(&b);
	if (q->n > 0) {
		area_walk(q, lo, hi, &m, e, edges, &b);
	}
	if (e != local) {
		free(e);
	}
	if (b.failed) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the results", fn);
	} else {
		thr_keys_sort(&b);
		thr_keys_write(&b, ids, capacity, total);
	}
	thr_keys_free(&b);
	return st;
}
