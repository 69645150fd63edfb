// SPDX-License-Identifier: MIT
// The quality metrics when agents come and go (include/throng/metrics.h).
//
// Design: the records follow the world's storage order (core/metrics.c),
// and a step's reorder says where each went. When the population changed
// since the last observation (agents removed, by the API or a sink, or
// added) no reorder says it: the records are placed by id instead, one
// pass over the old records and one over the world's slots, serial (churn
// is a fraction of the agents; the pass is O(agents), no allocation once
// the arrays have grown). An agent no longer in the world leaves its
// record: its sums (turn, arrival, path ratio) are folded into the
// metrics' sums of the agents that left, in increasing id within one
// observation, so the figures stay a pure function of the observed states
// and never depend on storage order. An agent the records do not know
// gets a new one where it started: the previous state holds it where it
// was added, when it was added before the step; one added after the step
// starts in the current state.
//
// The arrays by id (start, birth step, the placement's scratch) grow with
// the world's id space, doubling; the columns and the overlap index with
// its agent count, doubling, and the overlap index with its threads.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_internal.h"
#include "world_internal.h"

/// An id's scratch entry once its record has been placed.
#define THR_PLACED (UINT32_MAX - 1u)
/// "A new record" in a placement.
#define THR_FRESH UINT32_MAX

void thr_metrics_add_agent(const throng_metrics* m, uint32_t r, thr_agent_sums* s)
{
	const thr_tag t = ((const thr_tag*)m->col[THR_COL_TAG])[r];
	s->turn += ((const double*)m->col[THR_COL_TURN])[r];
	if (m->goal_radius > 0.0f && t.arrived_step != THR_NEVER) {
		s->reached++;
		const double time = (double)(t.arrived_step - m->born[t.id]) * (double)m->dt;
		s->time += time;
		s->max_time = time > s->max_time ? time : s->max_time;
		const thr_goal g = ((const thr_goal*)m->col[THR_COL_GOAL])[r];
		const double dx = (double)g.x - (double)m->start_x[t.id];
		const double dy = (double)g.y - (double)m->start_y[t.id];
		const double straight = sqrt(dx * dx + dy * dy);
		if (!m->wrap && straight > 2.0 * (double)m->goal_radius) {
			s->ratio += ((const double*)m->col[THR_COL_WALKED])[r] / (straight - (double)m->goal_radius);
			s->ratios++;
		}
	}
}

/// *p, an array of `have` items of `size` bytes, made room for `want`;
/// the new items filled with byte `fill`. Returns -1 when out of memory
/// (*p unchanged).
static int grow_array(void** p, size_t have, size_t want, size_t size, int fill)
{
	void* q = realloc(*p, want * size);
	if (q == NULL) {
		return -1;
	}
	memset((unsigned char*)q + have * size, fill, (want - have) * size);
	*p = q;
	return 0;
}

/// The next capacity for `need` items: doubling from `have`.
static uint32_t next_cap(uint32_t have, uint32_t need)
{
	const uint64_t twice = 2u * (uint64_t)have;
	return twice > need ? (twice > UINT32_MAX ? UINT32_MAX : (uint32_t)twice) : need;
}

/// The overlap index made again with room for n agents and `threads`
/// threads, when it has less (its buffers are scratch between counts:
/// nothing to keep). Returns -1 when out of memory (the index unchanged).
static int grow_overlap(thr_overlap_index* x, uint32_t n, uint32_t threads)
{
	if (n <= x->cap && threads <= x->threads) {
		return 0;
	}
	thr_overlap_index y;
	if (thr_overlap_alloc(&y, n > x->cap ? n : x->cap, threads > x->threads ? threads : x->threads) != 0) {
		return -1;
	}
	thr_overlap_free(x);
	*x = y;
	return 0;
}

int thr_metrics_reserve(throng_metrics* m, uint32_t id_end, uint32_t count, uint32_t threads)
{
	if (id_end > m->ids_cap) {
		const uint32_t cap = next_cap(m->ids_cap, id_end);
		if (grow_array((void**)&m->start_x, m->ids_cap, cap, sizeof *m->start_x, 0) != 0 ||
		    grow_array((void**)&m->start_y, m->ids_cap, cap, sizeof *m->start_y, 0) != 0 ||
		    grow_array((void**)&m->born, m->ids_cap, cap, sizeof *m->born, 0) != 0 ||
		    grow_array((void**)&m->by_id, m->ids_cap, cap, sizeof *m->by_id, 0xff) != 0) {
			return -1;
		}
		m->ids_cap = cap;
	}
	const uint32_t cap = count > m->cap ? next_cap(m->cap, count) : m->cap;
	for (int c = 0; c < THR_COLS && cap > m->cap; ++c) {
		if (grow_array(&m->col[c], m->cap, cap, 8u, 0) != 0) {
			return -1;
		}
	}
	if (grow_overlap(&m->overlap, cap, threads) != 0) {
		return -1;
	}
	m->cap = cap;
	return 0;
}

static int by_value(const void* a, const void* b)
{
	const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
	return (x > y) - (x < y);
}

/// The value of column c for a new record of the agent at slot k, which
/// started at (x0, y0) at step `born`.
static void fresh(const throng_metrics* m, const throng_world* w, int c, uint32_t k, float x0, float y0, uint32_t born,
                  unsigned char* into)
{
	const thr_goal g = {w->tx[k], w->ty[k]};
	switch (c) {
	case THR_COL_GOAL: memcpy(into, &g, 8u); break;
	case THR_COL_TAG: {
		const bool there = m->goal_radius > 0.0f && thr_metrics_at_goal(m, g, x0, y0);
		const thr_tag t = {there ? born : THR_NEVER, w->id[k]};
		memcpy(into, &t, 8u);
		break;
	}
	default: memset(into, 0, 8u); break; // turn and path: none yet
	}
}

void thr_metrics_regroup(throng_metrics* m, const throng_world* w, const thr_state* ps, uint32_t pn,
                         uint32_t born_prev, uint32_t born_now)
{
	const uint32_t n = w->count;
	const thr_tag* const old = m->col[THR_COL_TAG];
	uint32_t* const by_id = m->by_id;
	// Scratch in the overlap sort's spare buffer (8 bytes a record, free
	// until the next count): each slot's old record, then the ids that left.
	uint32_t* const from = (uint32_t*)m->overlap.spare;
	uint32_t* const left = from + m->cap;
	for (uint32_t r = 0; r < m->n; ++r) {
		by_id[old[r].id] = r;
	}
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t id = w->id[k];
		const uint32_t r = by_id[id];
		from[k] = r < m->n && old[r].id == id ? r : THR_FRESH;
		by_id[id] = from[k] != THR_FRESH ? THR_PLACED : by_id[id];
	}
	// The records no slot took, by increasing id: their sums join the gone.
	uint32_t nl = 0;
	for (uint32_t r = 0; r < m->n; ++r) {
		if (by_id[old[r].id] == r) {
			left[nl++] = old[r].id;
		}
	}
	qsort(left, nl, sizeof *left, by_value);
	for (uint32_t j = 0; j < nl; ++j) {
		thr_metrics_add_agent(m, by_id[left[j]], &m->gone);
	}
	m->left += nl;
	// The columns in slot order, each through the spare column.
	const thr_state* const s = &w->store.buf[w->store.cur];
	for (int c = 0; c < THR_COLS; ++c) {
		const unsigned char* const src = m->col[c];
		unsigned char* const dst = (unsigned char*)m->overlap.entry;
		for (uint32_t k = 0; k < n; ++k) {
			if (from[k] != THR_FRESH) {
				memcpy(dst + (size_t)k * 8u, src + (size_t)from[k] * 8u, 8u);
				continue;
			}
			const bool before = k < pn; // in the state the step started from
			const float x0 = before ? ps->px[k] : s->px[k], y0 = before ? ps->py[k] : s->py[k];
			fresh(m, w, c, k, x0, y0, before ? born_prev : born_now, dst + (size_t)k * 8u);
		}
		m->overlap.entry = m->col[c];
		m->col[c] = dst;
	}
	for (uint32_t k = 0; k < n; ++k) {
		if (from[k] == THR_FRESH) {
			const bool before = k < pn;
			const uint32_t id = w->id[k];
			m->start_x[id] = before ? ps->px[k] : s->px[k];
			m->start_y[id] = before ? ps->py[k] : s->py[k];
			m->born[id] = before ? born_prev : born_now;
			m->seen++;
		}
	}
	m->n = n;
	m->id_end = thr_id_end(w);
}
