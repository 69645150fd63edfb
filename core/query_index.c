// SPDX-License-Identifier: MIT
// The query index (query.h): its making, unmaking and lazy build.
#define _POSIX_C_SOURCE 200809L

#include "query.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "memory.h"

/// A query cell holds about this many agents on average over the extent:
/// few enough that a small query scans little beyond its answer, enough
/// that the cells' offsets cost less than the agents' copies.
#define THR_QUERY_PER_CELL 2.0f

/// The cell is at least this share of the extent's longer side: at most
/// 65,536 cells across, and a cell far wider than a coordinate's rounding
/// (2^-23 of it), so a query's cell range misses no agent it should test.
#define THR_QUERY_MIN_CELL_SHARE (1.0f / 65536.0f)

thr_query_index* thr_query_index_create(void)
{
	thr_query_index* q = calloc(1, sizeof *q);
	if (q == NULL) {
		return NULL;
	}
	if (pthread_mutex_init(&q->lock, NULL) != 0) {
		free(q);
		return NULL;
	}
	atomic_init(&q->built, 0);
	return q;
}

void thr_query_index_free(thr_query_index* q)
{
	if (q == NULL) {
		return;
	}
	pthread_mutex_destroy(&q->lock);
	thr_grid_free(&q->grid);
	free(q->item);
	free(q);
}

/// The extent the grid covers: the world's bounds in a wrap world (its
/// seams are the grid's edges); elsewhere the agents' bounding box clipped
/// to the bounds, an axis on which the crowd lies wholly outside them
/// taking the bounds' own (agents outside the extent fall into its border
/// cells, as grid.h clamps them).
static void extent(const throng_world* w, const thr_state* s, uint32_t n, float* lo_x, float* lo_y, float* hi_x,
                   float* hi_y)
{
	const throng_world_def* d = &w->def;
	*lo_x = d->bounds_min.x;
	*lo_y = d->bounds_min.y;
	*hi_x = d->bounds_max.x;
	*hi_y = d->bounds_max.y;
	if (d->bounds_mode == THRONG_BOUNDS_WRAP) {
		return;
	}
	float ax = s->px[0], bx = ax, ay = s->py[0], by = ay;
	for (uint32_t i = 1; i < n; ++i) {
		ax = s->px[i] < ax ? s->px[i] : ax;
		bx = s->px[i] > bx ? s->px[i] : bx;
		ay = s->py[i] < ay ? s->py[i] : ay;
		by = s->py[i] > by ? s->py[i] : by;
	}
	ax = ax > *lo_x ? ax : *lo_x;
	bx = bx < *hi_x ? bx : *hi_x;
	ay = ay > *lo_y ? ay : *lo_y;
	by = by < *hi_y ? by : *hi_y;
	if (ax <= bx) {
		*lo_x = ax;
		*hi_x = bx;
	}
	if (ay <= by) {
		*lo_y = ay;
		*hi_y = by;
	}
}

/// Lists w's n agents (n >= 1) in q. Returns 0, or -1 when out of memory.
static int build(const throng_world* w, thr_query_index* q)
{
	const uint32_t n = w->count;
	const thr_state* s = thr_cur_c(w);
	q->n = 0;
	if (n == 0) {
		return 0;
	}
	extent(w, s, n, &q->lo_x, &q->lo_y, &q->hi_x, &q->hi_y);
	const float wx = q->hi_x - q->lo_x, wy = q->hi_y - q->lo_y;
	const float area = wx * wy;
	float cell = sqrtf(THR_QUERY_PER_CELL * area / (float)n);
	const float least = (wx > wy ? wx : wy) * THR_QUERY_MIN_CELL_SHARE;
	cell = cell > least ? cell : least;
	// A crowd on a line or a point: the layout enlarges the cell until
	// there are at most n cells, or gives one cell.
	thr_grid_layout(&q->grid, q->lo_x, q->lo_y, q->hi_x, q->hi_y, cell, n);
	thr_grid_wrap(&q->grid, &w->def);
	q->density = area > 0.0f ? (float)n / area : 0.0f;
	if (thr_grid_build_points(&q->grid, s->px, s->py, n, w->id) != 0 ||
	    thr_reserve((void**)&q->item, &q->cap, n, sizeof *q->item, 64) != 0) {
		return -1;
	}
	const uint32_t* slot = q->grid.items;
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t i = slot[k];
		q->item[k] = (thr_query_item){s->px[i], s->py[i], w->id[i], i};
	}
	q->n = n;
	return 0;
}

throng_status thr_query_index_ready(const throng_world* w, const char* fn)
{
	thr_query_index* q = w->query;
	const uint64_t want = w->agents_version + 1u;
	if (atomic_load_explicit(&q->built, memory_order_acquire) == want) {
		return THRONG_OK;
	}
	pthread_mutex_lock(&q->lock);
	int fail = 0;
	if (atomic_load_explicit(&q->built, memory_order_relaxed) != want) {
		atomic_store_explicit(&q->built, 0, memory_order_relaxed);
		fail = build(w, q);
		if (fail == 0) {
			atomic_store_explicit(&q->built, want, memory_order_release);
		} else {
			q->n = 0;
		}
	}
	pthread_mutex_unlock(&q->lock);
	if (fail != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the query index of %u agents", fn, w->count);
	}
	return THRONG_OK;
}
