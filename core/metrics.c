// SPDX-License-Identifier: MIT
// Crowd-quality metrics over a run (include/throng/metrics.h).
//
// Design: the metrics object reads the agents through throng_world_view,
// as a renderer does (positions, velocities, headings, radii, ids), and
// the world's internals only for what the view lacks (the goals, each
// id's slot, the largest radius), and keeps everything it accumulates per
// agent by id: start,
// goal, previous position and heading, path walked, total turn, first
// arrival, all but the start in one record an agent (thr_track). Storage
// order changes from step to step in the SIMD engine and differs between
// engines, so a sum taken in storage order would differ in the last bits;
// sums per id reduced in id order do not. Only integer counts and maxima
// are taken in storage order, where order cannot matter.
//
// Overlaps go through a spatial hash rather than the world's grid: the
// grid's cells are sized for neighbour queries (metres) and laid over the
// bounds, so a huge open world or a dense knot would put hundreds of agents
// in a cell. The hash uses cells of twice the largest radius anywhere in
// the plane, hashed into 2N..4N buckets (a power of two), so any two agents
// that overlap lie in neighbouring cells and a bucket holds O(1) agents on
// average. Buckets are filled by a counting sort, in slot order, into
// arrays allocated once. Each agent looks at its own cell and four of its
// eight neighbours (a half stencil), so each pair is met once; candidates
// are matched on their exact cell, so a bucket shared by several cells
// costs only the comparisons.
//
// The cap: a knot of agents on one spot puts them all in one cell, and
// counting its pairs is quadratic. So each agent examines at most
// THRONG_OVERLAP_MAX_EXAMINED bucket entries (the pairs it would test) and
// the result counts the agents that stopped there (overlap_capped): the
// counts are then a lower bound. Buckets list agents by id, not by slot,
// and each agent walks its own bucket from its own place on, so where the
// cap cuts depends on positions and ids alone: the figures are the same in
// both engines (whose slot orders differ) and for any thread count.
//
// Walls and obstacles: metrics_shapes.c tests each agent's path from its
// previous position (kept by id) to its current one against the walls near
// it, and its disc against the shapes near it, through grids of its own.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "metrics_shapes.h"
#include "throng/metrics.h"
#include "world_internal.h"

/// How many slots ahead observing fetches an agent's record.
#define THR_TRACK_AHEAD 16u

/// "Not arrived yet" in arrived_step.
#define THR_NEVER UINT64_MAX

/// Cell coordinates are clamped to +-2^40 (a position 2^40 cells away is far
/// outside any world) so that they fit the hash's integer arithmetic.
#define THR_CELL_LIMIT 1099511627776.0

typedef struct thr_overlap_hash {
	uint32_t cap;          ///< agents it can hold
	uint32_t mask;         ///< buckets - 1 (buckets: a power of two >= 2 * cap)
	uint32_t* start;       ///< buckets + 1 offsets into items
	uint32_t* items;       ///< slots grouped by bucket, in id order
	uint32_t* pos;         ///< each slot's index in items
	uint32_t* bucket_of;   ///< each slot's bucket, UINT32_MAX for a non-finite position
	int64_t *cx, *cy;      ///< each slot's cell
} thr_overlap_hash;

/// What observing keeps of one agent, in one record: it visits agents in
/// storage order, so their ids, and these records, at random, and one or
/// two cache lines an agent cost less than one for each field.
typedef struct thr_track {
	float x, y, hx, hy;    ///< the previous position and unit heading
	double turn;           ///< total heading change (rad)
	uint64_t arrived_step; ///< first arrival at the goal, THR_NEVER before
	double walked;         ///< path walked until the first arrival (m)
	float goal_x, goal_y;  ///< the goal
} thr_track;

struct throng_metrics {
	uint32_t n;
	uint64_t step0;        ///< the world's step at creation
	float dt;
	float goal_radius;
	bool wrap;             ///< positions jump across the world: no path length
	thr_overlap_hash hash;
	thr_shape_watch shapes;
	thr_shape_tally shape_tally;
	uint64_t contacts0, contacts; ///< world_contacts() at creation and at the last observation
	float *start_x, *start_y; ///< by id: read only by throng_metrics_result()
	thr_track* track;         ///< by id
	uint64_t steps, overlaps, oob, nonfinite, overlap_capped;
	uint32_t overlap_most_examined;
	double deepest;
	throng_world_stats world_stats; ///< the world's running figures at the last observation
};

static void hash_free(thr_overlap_hash* h)
{
	free(h->start);
	free(h->items);
	free(h->pos);
	free(h->bucket_of);
	free(h->cx);
	free(h->cy);
	memset(h, 0, sizeof *h);
}

static int hash_alloc(thr_overlap_hash* h, uint32_t n)
{
	memset(h, 0, sizeof *h);
	uint64_t buckets = 16;
	while (buckets < 2u * (uint64_t)n) {
		buckets *= 2;
	}
	h->cap = n;
	h->mask = (uint32_t)(buckets - 1u);
	size_t m = n > 0 ? n : 1;
	h->start = malloc((size_t)(buckets + 1u) * sizeof *h->start);
	h->items = malloc(m * sizeof *h->items);
	h->pos = malloc(m * sizeof *h->pos);
	h->bucket_of = malloc(m * sizeof *h->bucket_of);
	h->cx = malloc(m * sizeof *h->cx);
	h->cy = malloc(m * sizeof *h->cy);
	if (h->start == NULL || h->items == NULL || h->pos == NULL || h->bucket_of == NULL || h->cx == NULL || h->cy == NULL) {
		hash_free(h);
		return -1;
	}
	return 0;
}

static int64_t cell_coord(float v, double inv_cell)
{
	double c = floor((double)v * inv_cell);
	return (int64_t)(c < -THR_CELL_LIMIT ? -THR_CELL_LIMIT : (c > THR_CELL_LIMIT ? THR_CELL_LIMIT : c));
}

static uint32_t bucket_of_cell(const thr_overlap_hash* h, int64_t cx, int64_t cy)
{
	uint64_t k = (uint64_t)cx * 0x9e3779b97f4a7c15ull ^ (uint64_t)cy * 0xc2b2ae3d27d4eb4full;
	k ^= k >> 32;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 29;
	return (uint32_t)k & h->mask;
}

/// The overlap figures of one state.
typedef struct overlap_result {
	uint64_t pairs;
	double deepest;
	uint64_t capped;       ///< agents that stopped at THRONG_OVERLAP_MAX_EXAMINED
	uint32_t most_examined; ///< most entries one agent examined
} overlap_result;

/// Buckets the world's current positions and counts the overlapping pairs.
static overlap_result hash_overlaps(thr_overlap_hash* h, const throng_world* w)
{
	overlap_result r = {0, 0.0, 0, 0};
	const throng_view v = throng_world_view(w);
	uint32_t n = v.count < h->cap ? v.count : h->cap;
	if (n < 2 || !(w->max_radius > 0.0f)) {
		return r;
	}
	const double cell = 2.0 * (double)w->max_radius;
	const double inv_cell = 1.0 / cell;
	uint32_t buckets = h->mask + 1u;
	memset(h->start, 0, ((size_t)buckets + 1u) * sizeof *h->start);
	for (uint32_t i = 0; i < n; ++i) {
		if (!isfinite(v.x[i]) || !isfinite(v.y[i])) {
			h->bucket_of[i] = UINT32_MAX;
			continue;
		}
		h->cx[i] = cell_coord(v.x[i], inv_cell);
		h->cy[i] = cell_coord(v.y[i], inv_cell);
		h->bucket_of[i] = bucket_of_cell(h, h->cx[i], h->cy[i]);
		h->start[h->bucket_of[i] + 1u]++;
	}
	for (uint32_t b = 0; b < buckets; ++b) {
		h->start[b + 1u] += h->start[b];
	}
	// Scatter in id order (slot_of[id] is the id's slot; a world of n agents
	// holds the ids 0..n-1); start[b] walks to the end of bucket b, and is
	// put back by the shift below.
	for (uint32_t id = 0; id < n; ++id) {
		uint32_t i = w->slot_of[id];
		if (h->bucket_of[i] != UINT32_MAX) {
			h->pos[i] = h->start[h->bucket_of[i]];
			h->items[h->start[h->bucket_of[i]]++] = i;
		}
	}
	for (uint32_t b = buckets; b > 0; --b) {
		h->start[b] = h->start[b - 1u];
	}
	h->start[0] = 0;
	// Half stencil: each pair is found once, from the agent in the lower
	// cell of the pair in (y, x) order, or from the lower id within a cell
	// (the agents after it in its own bucket). Every candidate's own cell is
	// compared, so agents of other cells that share a bucket are skipped
	// and no bucket needs deduplicating.
	static const int stencil[5][2] = {{0, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}};
	for (uint32_t i = 0; i < n; ++i) {
		if (h->bucket_of[i] == UINT32_MAX) {
			continue;
		}
		uint32_t left = THRONG_OVERLAP_MAX_EXAMINED;
		for (int c = 0; c < 5 && left > 0; ++c) {
			int64_t cx = h->cx[i] + stencil[c][0], cy = h->cy[i] + stencil[c][1];
			uint32_t b = c == 0 ? h->bucket_of[i] : bucket_of_cell(h, cx, cy);
			uint32_t k0 = c == 0 ? h->pos[i] + 1u : h->start[b];
			uint32_t k1 = h->start[b + 1u];
			k1 = k1 - k0 > left ? k0 + left : k1;
			left -= k1 - k0;
			for (uint32_t k = k0; k < k1; ++k) {
				uint32_t j = h->items[k];
				if (h->cx[j] != cx || h->cy[j] != cy) {
					continue;
				}
				float ddx = v.x[j] - v.x[i];
				float ddy = v.y[j] - v.y[i];
				float rr = v.radius[i] + v.radius[j];
				float d2 = ddx * ddx + ddy * ddy;
				if (d2 < rr * rr) {
					r.pairs++;
					double depth = 1.0 - sqrt((double)d2) / (double)rr;
					r.deepest = depth > r.deepest ? depth : r.deepest;
				}
			}
		}
		uint32_t examined = THRONG_OVERLAP_MAX_EXAMINED - left;
		r.most_examined = examined > r.most_examined ? examined : r.most_examined;
		r.capped += left == 0 ? 1u : 0u;
	}
	return r;
}

throng_status throng_world_overlap_stats(const throng_world* world, uint64_t* pairs, float* deepest)
{
	// Zero first: on failure a smaller figure would read as fewer overlaps.
	if (pairs != NULL) {
		*pairs = 0;
	}
	if (deepest != NULL) {
		*deepest = 0.0f;
	}
	if (world == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_overlap_stats: world is NULL");
	}
	thr_overlap_hash h;
	if (hash_alloc(&h, world->count) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_overlap_stats: out of memory for %u agents",
		                world->count);
	}
	overlap_result r = hash_overlaps(&h, world);
	hash_free(&h);
	if (pairs != NULL) {
		*pairs = r.pairs;
	}
	if (deepest != NULL) {
		*deepest = (float)r.deepest;
	}
	return THRONG_OK;
}

void throng_metrics_destroy(throng_metrics* m)
{
	if (m == NULL) {
		return;
	}
	hash_free(&m->hash);
	thr_shape_watch_free(&m->shapes);
	free(m->start_x);
	free(m->start_y);
	free(m->track);
	free(m);
}

/// Overlapping pairs the world's contact pass has met, summed over its steps.
static uint64_t world_contacts(const throng_world* w)
{
	return w->stats.contacts; // overlapping pairs the contact pass met, summed over steps
}

/// Whether an agent at (x, y) is within the goal radius of its goal now.
static bool at_goal(const throng_metrics* m, const thr_track* t, float x, float y)
{
	float dx = x - t->goal_x;
	float dy = y - t->goal_y;
	return dx * dx + dy * dy <= m->goal_radius * m->goal_radius;
}

throng_status throng_metrics_create(const throng_world* world, float goal_radius, throng_metrics** out)
{
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_metrics_create: out is NULL");
	}
	*out = NULL;
	if (world == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_metrics_create: world is NULL");
	}
	if (!isfinite(goal_radius) || goal_radius < 0.0f) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_metrics_create: goal_radius: must be finite and >= 0 (got %g)", (double)goal_radius);
	}
	throng_metrics* m = calloc(1, sizeof *m);
	if (m == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_create: out of memory");
	}
	uint32_t n = world->count;
	size_t cnt = n > 0 ? n : 1;
	m->n = n;
	m->step0 = world->step;
	m->dt = world->def.dt;
	m->goal_radius = goal_radius;
	m->wrap = world->def.bounds_mode == THRONG_BOUNDS_WRAP;
	bool ok = hash_alloc(&m->hash, n) == 0;
	m->start_x = malloc(cnt * sizeof *m->start_x);
	m->start_y = malloc(cnt * sizeof *m->start_y);
	m->track = malloc(cnt * sizeof *m->track);
	if (!ok || m->start_x == NULL || m->start_y == NULL || m->track == NULL) {
		throng_metrics_destroy(m);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_create: out of memory for %u agents", n);
	}
	if (thr_shape_watch_sync(&m->shapes, world) != 0) {
		throng_metrics_destroy(m);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_create: out of memory for the grids over %u "
		                "obstacles and %u walls", world->obstacle_count, world->wall_count);
	}
	const thr_state* s = thr_cur_c(world);
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t id = world->id[k];
		m->start_x[id] = s->px[k];
		m->start_y[id] = s->py[k];
		thr_track* t = &m->track[id];
		*t = (thr_track){s->px[k], s->py[k], s->hx[k], s->hy[k], 0.0, THR_NEVER, 0.0, world->tx[k], world->ty[k]};
		t->arrived_step = goal_radius > 0.0f && at_goal(m, t, s->px[k], s->py[k]) ? 0u : THR_NEVER;
	}
	m->world_stats = world->stats;
	m->contacts0 = m->contacts = world_contacts(world);
	*out = m;
	return THRONG_OK;
}

/// Whether (x, y) lies outside the world as its bounds mode defines it.
static bool outside(const throng_world_def* d, float x, float y, float r)
{
	switch (d->bounds_mode) {
	case THRONG_BOUNDS_CONTAIN:
	case THRONG_BOUNDS_BOUNCE:
		return !(x >= d->bounds_min.x + r && x <= d->bounds_max.x - r && y >= d->bounds_min.y + r &&
		         y <= d->bounds_max.y - r);
	case THRONG_BOUNDS_WRAP:
		return !(x >= d->bounds_min.x && x <= d->bounds_max.x && y >= d->bounds_min.y && y <= d->bounds_max.y);
	case THRONG_BOUNDS_OPEN:
	default:
		return false;
	}
}

throng_status throng_metrics_observe(throng_metrics* m, const throng_world* w)
{
	if (m == NULL || w == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_metrics_observe: %s is NULL",
		                m == NULL ? "metrics" : "world");
	}
	if (w->count != m->n) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_metrics_observe: the world has %u agents, the metrics watch %u", w->count, m->n);
	}
	if (thr_shape_watch_sync(&m->shapes, w) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_observe: out of memory for the grids over %u "
		                "obstacles and %u walls", w->obstacle_count, w->wall_count);
	}
	const thr_state* s = thr_cur_c(w);
	const throng_view v = throng_world_view(w);
	const throng_world_def* d = &w->def;
	const uint64_t step = v.step - m->step0;
	const bool goals = m->goal_radius > 0.0f;
	const bool shapes = m->shapes.n_obstacles > 0 || m->shapes.n_walls > 0;
	for (uint32_t k = 0; k < m->n; ++k) {
		if (k + THR_TRACK_AHEAD < m->n) {
			// The record of an agent a few slots on, fetched now: records
			// are visited at random, and the shape tests make each agent's
			// work too long for the processor to reach the next loads itself.
			const char* ahead = (const char*)&m->track[w->id[k + THR_TRACK_AHEAD]];
			__builtin_prefetch(ahead, 1);
			__builtin_prefetch(ahead + sizeof(thr_track) - 1u, 1);
		}
		uint32_t id = w->id[k];
		thr_track* t = &m->track[id];
		float x = s->px[k], y = s->py[k];
		if (!isfinite(x) || !isfinite(y) || !isfinite(s->vx[k]) || !isfinite(s->vy[k])) {
			m->nonfinite++;
			continue;
		}
		m->oob += outside(d, x, y, w->radius[k]) ? 1u : 0u;
		if (shapes) {
			thr_shape_watch_agent(&m->shapes, v2(t->x, t->y), v2(x, y), w->radius[k], &m->shape_tally);
		}
		// Heading change: the angle between the previous and the current
		// unit heading, from the project's own atan2 (the same bits on
		// every build).
		float hx = s->hx[k], hy = s->hy[k];
		float px = t->hx, py = t->hy;
		float cross = px * hy - py * hx;
		float dot = px * hx + py * hy;
		t->turn += fabs((double)thr_atan2f(cross, dot));
		t->hx = hx;
		t->hy = hy;
		if (goals && t->arrived_step == THR_NEVER) {
			if (!m->wrap) {
				double ddx = (double)x - (double)t->x;
				double ddy = (double)y - (double)t->y;
				t->walked += sqrt(ddx * ddx + ddy * ddy);
			}
			if (at_goal(m, t, x, y)) {
				t->arrived_step = step;
			}
		}
		t->x = x;
		t->y = y;
	}
	overlap_result r = hash_overlaps(&m->hash, w);
	m->overlaps += r.pairs;
	m->overlap_capped += r.capped;
	m->overlap_most_examined = r.most_examined > m->overlap_most_examined ? r.most_examined : m->overlap_most_examined;
	m->deepest = r.deepest > m->deepest ? r.deepest : m->deepest;
	m->world_stats = w->stats;
	m->contacts = world_contacts(w);
	m->steps++;
	return THRONG_OK;
}

throng_quality throng_metrics_result(const throng_metrics* m)
{
	throng_quality q;
	memset(&q, 0, sizeof q);
	if (m == NULL) {
		return q;
	}
	q.agents = m->n;
	q.steps = m->steps;
	q.seconds = (double)m->steps * (double)m->dt;
	q.overlaps = m->overlaps;
	double agent_steps = (double)m->n * (double)m->steps;
	q.overlaps_per_agent_step = agent_steps > 0.0 ? (double)m->overlaps / agent_steps : 0.0;
	q.deepest_overlap = m->deepest;
	q.overlap_capped = m->overlap_capped;
	q.overlap_most_examined = m->overlap_most_examined;
	q.nonfinite = m->nonfinite + m->world_stats.nonfinite;
	q.max_speed_ratio = (double)m->world_stats.max_speed_ratio;
	q.out_of_bounds = m->oob;
	q.wall_crossings = m->shape_tally.wall_crossings;
	q.wall_penetrations = m->shape_tally.wall_penetrations;
	q.obstacle_penetrations = m->shape_tally.obstacle_penetrations;
	q.deepest_obstacle_penetration = m->shape_tally.deepest_obstacle;
	q.contacts_per_agent_step = agent_steps > 0.0 ? (double)(m->contacts - m->contacts0) / agent_steps : 0.0;
	double turn = 0.0, time = 0.0, ratio = 0.0;
	uint32_t ratios = 0;
	for (uint32_t id = 0; id < m->n; ++id) {
		const thr_track* a = &m->track[id];
		turn += a->turn;
		if (m->goal_radius > 0.0f && a->arrived_step != THR_NEVER) {
			q.reached++;
			time += (double)a->arrived_step * (double)m->dt;
			double t = (double)a->arrived_step * (double)m->dt;
			q.max_time_to_goal = t > q.max_time_to_goal ? t : q.max_time_to_goal;
			double dx = (double)a->goal_x - (double)m->start_x[id];
			double dy = (double)a->goal_y - (double)m->start_y[id];
			double straight = sqrt(dx * dx + dy * dy);
			if (!m->wrap && straight > 2.0 * (double)m->goal_radius) {
				ratio += a->walked / (straight - (double)m->goal_radius);
				ratios++;
			}
		}
	}
	q.goals = m->goal_radius > 0.0f ? m->n : 0u;
	q.mean_time_to_goal = q.reached > 0 ? time / (double)q.reached : 0.0;
	q.path_length_ratio = ratios > 0 ? ratio / (double)ratios : 0.0;
	q.jitter = q.seconds > 0.0 && m->n > 0 ? turn / ((double)m->n * q.seconds) : 0.0;
	return q;
}
