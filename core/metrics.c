// SPDX-License-Identifier: MIT
// Crowd-quality metrics over a run (include/throng/metrics.h).
//
// Design: the metrics object reads the agents through throng_world_view,
// as a renderer does (positions, velocities, headings, radii, ids), and
// the world's internals only for what the view lacks (the goals, the
// step's record: the previous state and the last reorder; the largest
// radius), and keeps what
// it accumulates per agent: start (by id), and goal, path walked, total
// turn, first arrival and id in a record of 32 bytes an agent, kept as four
// columns of 8 bytes (turn, walked, thr_goal, thr_tag).
// Storage order changes from step to step in the SIMD engine and differs
// between engines, so a sum taken in storage order would differ in the
// last bits; sums per agent reduced in id order do not. Only integer
// counts and maxima are taken in storage order, where order cannot
// matter.
//
// The previous state is the world's: every step publishes a record
// (thr_step_record, core/world_internal.h) of the state it started from,
// in the current storage order, and of its reorder. So the path from the
// previous position and the heading change need no copy of their own, as
// long as every step is observed: observing checks that the world is one
// step past the last observation, or at it (the same state observed
// again, its own previous state), and fails otherwise.
//
// Agents that come and go: core/metrics_churn.c places the records by id
// when the population changed, folds the records of agents that left into
// sums of their own and makes records for agents that came; the step
// record keeps describing the survivors when a sink removed agents after
// the step (thr_remove_marked).
//
// The records follow the world's storage order: record k is the agent at
// slot k at the last observation. Each observation first puts the
// records in the world's current order, so that observing then reads the
// world's arrays and the records side by side in order; visiting the
// records by id from storage order cost a cache miss an agent at a
// million agents. Where each record goes is the step's published
// reorder (the SIMD engine's), and nowhere for the scalar reference; the
// ids in the records check it, and when they disagree (the same step
// observed twice, or a step that failed after its reorder) the records
// are placed by id instead. The columns are gathered
// on every thread into spare columns that then take their places: the
// overlap sort's two buffers, free between two counts, which take
// columns' old buffers in return. The tags and goals go first, as the ids
// are checked; the turns and paths are gathered by the observing pass
// itself as it updates them. (They were once moved in place along the
// permutation's cycles, on one thread while the others waited, which cost
// more: docs/PERFORMANCE.md, "The cost of `throng run`"; then gathered a
// column a pass, five passes where two do.)
//
// The heading change's atan2 is taken 64 agents at a time in a loop the
// compiler vectorises (thr_metrics_heading_turns: core/ includes none of
// simd/'s headers), with thr_atan2f's bits.
//
// Overlaps: metrics_overlap.c sorts the agents by cells of twice the
// largest radius and sweeps them in that order, with a cap on the
// candidates an agent examines (THRONG_OVERLAP_MAX_EXAMINED).
//
// Threads: observing runs on the threads the world's SIMD engine steps
// with (one for the scalar reference, one while the world's thread
// governor has found one faster, and at most one per 1,024 agents),
// above THR_PARALLEL_MIN_AGENTS agents. Each agent writes only its own
// record; counts and maxima are merged as integer sums and maxima, so no
// figure depends on the split.
//
// Walls and obstacles: metrics_shapes.c tests each agent's path from its
// previous position (the world's previous state) to its current one against the walls near
// it, and its disc against the shapes near it, through grids of its own;
// an agent whose path the world's clearance map proves clear of every
// shape (thr_clear_of_shapes) is not tested: it would count nothing.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "fmath.h"
#include "memory.h"
#include "metrics_internal.h"
#include "world_internal.h"

/// Agents a thread of the metrics gets at least: more threads would spend
/// longer waiting at barriers than working (OMP_NUM_THREADS far above the
/// cores makes each barrier wait until every thread has been scheduled).
/// Any split gives the same figures.
#define THR_METRICS_AGENTS_PER_THREAD 1024u

/// The threads observing `w` runs on: those its SIMD engine steps with
/// (the governor's current team, core/team.h), one for the scalar
/// reference, and at most one per
/// THR_METRICS_AGENTS_PER_THREAD agents.
static uint32_t metrics_threads(const throng_world* w)
{
	if (w->def.engine != THRONG_ENGINE_SIMD) {
		return 1u;
	}
	uint32_t threads = w->def.threads > 0 ? w->def.threads : throng_default_threads();
	if (w->def.threads_policy == THRONG_THREADS_ADAPT && w->team.most == threads) {
		threads = w->team.current; // one when one thread stepped faster lately (core/team.h)
	}
	uint32_t most = w->count / THR_METRICS_AGENTS_PER_THREAD;
	return threads < most ? threads : (most > 0 ? most : 1u);
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
	thr_overlap_index x;
	thr_overlap_result r;
	uint32_t threads = metrics_threads(world);
	int fail = thr_overlap_alloc(&x, world->count, threads);
	fail = fail || thr_overlap_count(&x, world, threads, &r) != 0;
	thr_overlap_free(&x);
	if (fail) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_overlap_stats: out of memory for %u agents",
		                world->count);
	}
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
	thr_overlap_free(&m->overlap);
	thr_shape_watch_free(&m->shapes);
	free(m->start_x);
	free(m->start_y);
	free(m->born);
	free(m->by_id);
	for (int c = 0; c < THR_COLS; ++c) {
		free(m->col[c]);
	}
	free(m);
}

/// Overlapping pairs the world's contact pass has met, summed over its steps.
static uint64_t world_contacts(const throng_world* w)
{
	return w->stats.contacts; // overlapping pairs the contact pass met, summed over steps
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
	if (world->part != NULL) { // a part holds some of the whole world's agents: watch the whole one
		return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_metrics_create: the world is a part of a larger one");
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
	const uint32_t id_end = thr_id_end(world);
	const size_t ids = id_end > 0 ? id_end : 1;
	m->n = m->cap = m->seen = n;
	m->id_end = m->ids_cap = id_end;
	m->step0 = m->last_step = world->step;
	m->dt = world->def.dt;
	m->goal_radius = goal_radius;
	m->wrap = world->def.bounds_mode == THRONG_BOUNDS_WRAP;
	bool ok = thr_overlap_alloc(&m->overlap, n, metrics_threads(world)) == 0;
	m->start_x = malloc(ids * sizeof *m->start_x);
	m->start_y = malloc(ids * sizeof *m->start_y);
	m->born = calloc(ids, sizeof *m->born); // those at creation start at step 0
	m->by_id = malloc(ids * sizeof *m->by_id);
	for (int c = 0; c < THR_COLS; ++c) {
		m->col[c] = malloc(cnt * 8u);
		ok = ok && m->col[c] != NULL;
	}
	if (!ok || m->start_x == NULL || m->start_y == NULL || m->born == NULL || m->by_id == NULL) {
		throng_metrics_destroy(m);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_create: out of memory for %u agents", n);
	}
	memset(m->by_id, 0xff, ids * sizeof *m->by_id);
	thr_huge_pages(m->start_x, ids * sizeof *m->start_x);
	thr_huge_pages(m->start_y, ids * sizeof *m->start_y);
	for (int c = 0; c < THR_COLS; ++c) {
		thr_huge_pages(m->col[c], cnt * 8u);
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
		const thr_goal g = {world->tx[k], world->ty[k]};
		((double*)m->col[THR_COL_TURN])[k] = 0.0;
		((double*)m->col[THR_COL_WALKED])[k] = 0.0;
		((thr_goal*)m->col[THR_COL_GOAL])[k] = g;
		((thr_tag*)m->col[THR_COL_TAG])[k] =
		    (thr_tag){goal_radius > 0.0f && thr_metrics_at_goal(m, g, s->px[k], s->py[k]) ? 0u : THR_NEVER, id};
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

/// Agents whose heading changes observing works out in one wide loop.
#define THR_OBSERVE_BLOCK 64

/// How many agents ahead observing prefetches the records it gathers and
/// the clearance map's cells.
#define THR_OBSERVE_AHEAD 16

/// GCC keeps a float operation that only one side of a select uses in a
/// branch, which it then cannot vectorise, unless told that floating-point
/// operations do not trap (which changes no value: IEEE results are the
/// same; clang speculates them anyway).
#if defined(__GNUC__) && !defined(__clang__)
#define THR_NO_TRAPS __attribute__((optimize("no-trapping-math")))
#else
#define THR_NO_TRAPS
#endif

/// (metrics_internal.h)
THR_NO_TRAPS void thr_metrics_heading_turns(const float* px, const float* py, const float* hx, const float* hy,
                                            int cnt, float* out)
{
#pragma omp simd
	for (int j = 0; j < cnt; ++j) {
		const float y = px[j] * hy[j] - py[j] * hx[j];
		const float x = px[j] * hx[j] + py[j] * hy[j];
		const float ax = fabsf(x), ay = fabsf(y);
		const float mx = ax > ay ? ax : ay;
		const float mn = ax > ay ? ay : ax;
		const float t = mn / (mx == 0.0f ? 1.0f : mx); // thr_atan2f returns 0 for mx = 0: so does this, as +-0
		const bool big = t > THR_POLY_TAN_PI_8;
		const float u = (big ? t - 1.0f : t) / (big ? t + 1.0f : 1.0f);
		const float base = big ? THR_POLY_QUARTER_PI : 0.0f;
		const float z = u * u;
		float a = (((THR_POLY_A1 * z + THR_POLY_A2) * z + THR_POLY_A3) * z + THR_POLY_A4) * z * u + u;
		a = a + base;
		a = ay > ax ? THR_HALF_PI - a : a;
		a = x < 0.0f ? THR_PI - a : a;
		out[j] = y < 0.0f ? -a : a;
	}
}

/// The clearance map's cell (core/engine.h, thr_clear_of_shapes) at
/// (x, y), clamped into the map: only for a prefetch.
static inline const uint8_t* clear_cell(const throng_world* w, float x, float y)
{
	const thr_box_grid* g = &w->obstacle_grid;
	const float fx = (x - g->min_x) * g->inv_cell, fy = (y - g->min_y) * g->inv_cell;
	const int32_t cx = fx > 0.0f ? (fx < (float)(g->nx - 1) ? (int32_t)fx : g->nx - 1) : 0; // 0 for NaN
	const int32_t cy = fy > 0.0f ? (fy < (float)(g->ny - 1) ? (int32_t)fy : g->ny - 1) : 0;
	return &w->shape_clear[(size_t)cy * (size_t)g->nx + (size_t)cx];
}

/// Item k of column dst (8-byte items) is item from[k] of column src, for
/// k < n. Called by every thread of the observing team: an orphaned loop,
/// split as a `for` of the enclosing parallel region.
static void follow(const void* src, void* dst, const uint32_t* from, int64_t n)
{
	const unsigned char* s = src;
	unsigned char* d = dst;
#pragma omp for schedule(static)
	for (int64_t k = 0; k < n; ++k) {
		memcpy(d + (size_t)k * 8u, s + (size_t)from[k] * 8u, 8u);
	}
}

/// What the world's last step published (thr_step_record), or NULL when
/// no record describes the world as it is (no step yet, or a failed step
/// moved its agents).
static const thr_step_record* step_record(const throng_world* w)
{
	const thr_step_record* r = &w->published;
	return r->step == w->step && r->previous != NULL ? r : NULL;
}

throng_status throng_metrics_observe(throng_metrics* m, const throng_world* w)
{
	if (m == NULL || w == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_metrics_observe: %s is NULL",
		                m == NULL ? "metrics" : "world");
	}
	if (w->step - m->step0 > THRONG_METRICS_MAX_STEPS) {
		return thr_fail(THRONG_ERR_CAPACITY, "throng_metrics_observe: more than %u steps since the metrics were "
		                "created (an arrival step is 32-bit)", (unsigned)THRONG_METRICS_MAX_STEPS);
	}
	if (w->step != m->last_step + 1u && w->step != m->last_step) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_metrics_observe: the world is at step %llu and the last observation was of step "
		                "%llu: a step was not observed (observe once after each step)",
		                (unsigned long long)w->step, (unsigned long long)m->last_step);
	}
	const thr_step_record* rec = step_record(w);
	if (w->step != m->last_step && rec == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_metrics_observe: the world's step %llu published no "
		                "record (core/world_internal.h, thr_step_record)", (unsigned long long)w->step);
	}
	if (thr_shape_watch_sync(&m->shapes, w) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_observe: out of memory for the grids over %u "
		                "obstacles and %u walls", w->obstacle_count, w->wall_count);
	}
	// Observed again without a step, the state is its own previous state:
	// no path, no turn. After a step, the slots from pn up hold agents
	// added since the step: they start in the current state.
	const bool stepped = w->step != m->last_step;
	const thr_state* s = thr_cur_c(w);
	const thr_state* ps = stepped ? rec->previous : s;
	const uint32_t pn = stepped && rec->count < w->count ? rec->count : w->count;
	// Agents came or went since the last observation: the records are
	// placed by id (core/metrics_churn.c), in room made first.
	const uint32_t threads = metrics_threads(w);
	const bool churn = w->count != m->n || thr_id_end(w) != m->id_end || pn != w->count;
	if (churn && thr_metrics_reserve(m, thr_id_end(w), w->count, threads) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_observe: out of memory for the records of %u "
		                "agents (ids below %u)", w->count, thr_id_end(w));
	}
	// The overlaps first: the one part that can fail (out of memory, in a
	// world too spread out for the packed sort) fails before any state is taken.
	thr_overlap_result r;
	if (thr_overlap_count(&m->overlap, w, threads, &r) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_metrics_observe: out of memory for the overlap sort of "
		                "%u agents", w->count);
	}
	const uint64_t step = w->step - m->step0;
	if (churn) {
		thr_metrics_regroup(m, w, ps, pn, stepped ? (uint32_t)step - 1u : (uint32_t)step, (uint32_t)step);
	}
	const throng_world_def* d = &w->def;
	const bool goals = m->goal_radius > 0.0f;
	const bool shapes = m->shapes.n_obstacles > 0 || m->shapes.n_walls > 0;
	// The world's clearance map (core/world_internal.h), when it is built
	// over the world's shapes as they are now (shapes changed since the
	// step leave it stale until the next).
	const bool clear_map = !w->shapes_dirty && w->shape_clear != NULL;
	const int64_t n = m->n;
	const thr_shape_watch* const watch = &m->shapes;
	uint64_t nonfinite = 0, oob = 0, crossings = 0, wall_pen = 0, obstacle_pen = 0;
	double deepest_obstacle = 0.0;
	// The records follow the world's storage order (unless placed by id
	// above): the record of the agent now at slot k is the step's reorder
	// perm[k] when the ids agree, else found by id. Two passes when they
	// agree: the tags and goals are gathered into the overlap sort's two
	// buffers (8 bytes an agent each, free until the next sort) as the ids
	// are checked, then the observing pass gathers each turn and path as
	// it updates them, into the columns the tags and goals left; the old
	// turn and path columns become the sort's buffers. When the ids
	// disagree (the same step observed twice, or a step that failed after
	// its reorder), each column is gathered by id (from[k], in the sort's
	// spare buffer) into a spare column it then swaps with, one at a time
	// (what the first pass gathered is dropped), and observed in place.
	const uint32_t* const perm = rec != NULL && !churn ? rec->reorder : NULL;
	double* const turn_in = m->col[THR_COL_TURN];
	double* const walked_in = m->col[THR_COL_WALKED];
	void* spare = m->overlap.entry;  // the by-id gathers' spare column
	const uint32_t* at = NULL;       // where the observing pass reads slot k's turn and path; NULL: at k
	int64_t moved = 0, wrong = 0;
	(void)threads;
#pragma omp parallel num_threads(threads) if (n > THR_PARALLEL_MIN_AGENTS) \
	reduction(+ : nonfinite, oob, crossings, wall_pen, obstacle_pen) reduction(max : deepest_obstacle)
	{
		const thr_tag* const old = m->col[THR_COL_TAG];
		if (churn) {
			// placed by id already: nothing moves
		} else if (perm == NULL) {
#pragma omp for schedule(static) reduction(+ : wrong)
			for (int64_t k = 0; k < n; ++k) {
				wrong += old[k].id != w->id[k] ? 1 : 0;
			}
		} else {
			const thr_goal* const old_goal = m->col[THR_COL_GOAL];
			thr_tag* const into = (thr_tag*)m->overlap.entry;
			thr_goal* const goal_into = (thr_goal*)m->overlap.spare;
#pragma omp for schedule(static) reduction(+ : moved, wrong)
			for (int64_t k = 0; k < n; ++k) {
				const uint32_t f = perm[k];
				moved += f != (uint32_t)k ? 1 : 0;
				if (f >= (uint32_t)n) {
					wrong++;
					continue;
				}
				into[k] = old[f];
				goal_into[k] = old_goal[f];
				wrong += into[k].id != w->id[k] ? 1 : 0;
			}
		}
#pragma omp single
		{
			if (wrong > 0) {
				uint32_t* const from = (uint32_t*)m->overlap.spare;
				for (uint32_t k = 0; k < (uint32_t)n; ++k) {
					m->by_id[old[k].id] = k;
				}
				for (uint32_t k = 0; k < (uint32_t)n; ++k) {
					from[k] = m->by_id[w->id[k]];
				}
			} else if (moved > 0) {
				void* const tag_old = m->col[THR_COL_TAG];
				void* const goal_old = m->col[THR_COL_GOAL];
				m->col[THR_COL_TAG] = m->overlap.entry;
				m->col[THR_COL_GOAL] = m->overlap.spare;
				m->col[THR_COL_TURN] = tag_old;
				m->col[THR_COL_WALKED] = goal_old;
				m->overlap.entry = (uint64_t*)turn_in;
				m->overlap.spare = (uint64_t*)walked_in;
				at = perm;
			}
		}
		for (int c = 0; wrong > 0 && c < THR_COLS; ++c) {
			follow(m->col[c], spare, (const uint32_t*)m->overlap.spare, n);
#pragma omp single
			{
				void* gathered = spare;
				spare = m->col[c];
				m->col[c] = gathered;
			}
		}
		const double* const turn_src = at != NULL ? turn_in : m->col[THR_COL_TURN];
		const double* const walked_src = at != NULL ? walked_in : m->col[THR_COL_WALKED];
		double* const turn = m->col[THR_COL_TURN];
		double* const walked = m->col[THR_COL_WALKED];
		const thr_goal* const goal = m->col[THR_COL_GOAL];
		thr_tag* const tag = m->col[THR_COL_TAG];
		thr_shape_tally tally = {0, 0, 0, 0.0};
#pragma omp for schedule(static)
		for (int64_t b = 0; b < n; b += THR_OBSERVE_BLOCK) {
			const int64_t e = n - b < THR_OBSERVE_BLOCK ? n : b + THR_OBSERVE_BLOCK;
			// The heading changes of the block, wide (all of them have a
			// previous heading when the block lies below pn).
			float turned[THR_OBSERVE_BLOCK];
			if (e <= (int64_t)pn) {
				thr_metrics_heading_turns(ps->hx + b, ps->hy + b, s->hx + b, s->hy + b, (int)(e - b), turned);
			}
			for (int64_t k = b; k < e; ++k) {
				const uint32_t f = at != NULL ? at[k] : (uint32_t)k;
				if (k + THR_OBSERVE_AHEAD < n) {
					// The records gathered here and the clearance map's
					// cells lie anywhere: their loads start early.
					const int64_t a = k + THR_OBSERVE_AHEAD;
					if (at != NULL) {
						__builtin_prefetch(&turn_src[at[a]]);
						__builtin_prefetch(&walked_src[at[a]]);
					}
					if (shapes && clear_map) {
						__builtin_prefetch(clear_cell(w, s->px[a], s->py[a]));
					}
				}
				double t = turn_src[f], path = walked_src[f];
				float x = s->px[k], y = s->py[k];
				if (!isfinite(x) || !isfinite(y) || !isfinite(s->vx[k]) || !isfinite(s->vy[k])) {
					nonfinite++;
					turn[k] = t;
					walked[k] = path;
					continue;
				}
				oob += outside(d, x, y, w->radius[k]) ? 1u : 0u;
				const thr_state* const p = k < (int64_t)pn ? ps : s; // added since the step: no previous state
				const float x0 = p->px[k], y0 = p->py[k];
				// A path the world's clearance map proves clear of every shape
				// can neither cross a wall nor end in a shape: its tests would
				// count nothing.
				if (shapes && !(clear_map && thr_clear_of_shapes(w, v2(x0, y0), v2(x, y), w->radius[k]))) {
					thr_shape_watch_agent(watch, v2(x0, y0), v2(x, y), w->radius[k], &tally);
				}
				// Heading change: the angle between the previous and the
				// current unit heading, from the project's own atan2 (the
				// same bits on every build): the block's wide one when it
				// is a number, else thr_atan2f's own.
				float a = e <= (int64_t)pn ? turned[k - b] : NAN;
				if (isnan(a)) {
					float hx = s->hx[k], hy = s->hy[k];
					float px = p->hx[k], py = p->hy[k];
					a = thr_atan2f(px * hy - py * hx, px * hx + py * hy);
				}
				turn[k] = t + fabs((double)a);
				if (goals && tag[k].arrived_step == THR_NEVER) {
					if (!m->wrap) {
						double ddx = (double)x - (double)x0;
						double ddy = (double)y - (double)y0;
						path += sqrt(ddx * ddx + ddy * ddy);
					}
					if (thr_metrics_at_goal(m, goal[k], x, y)) {
						tag[k].arrived_step = (uint32_t)step;
					}
				}
				walked[k] = path;
			}
		}
		crossings += tally.wall_crossings;
		wall_pen += tally.wall_penetrations;
		obstacle_pen += tally.obstacle_penetrations;
		deepest_obstacle = tally.deepest_obstacle > deepest_obstacle ? tally.deepest_obstacle : deepest_obstacle;
	}
	if (wrong > 0) {
		m->overlap.entry = spare; // a column's old buffer
	}
	m->nonfinite += nonfinite;
	m->oob += oob;
	thr_shape_tally* st = &m->shape_tally;
	st->wall_crossings += crossings;
	st->wall_penetrations += wall_pen;
	st->obstacle_penetrations += obstacle_pen;
	st->deepest_obstacle = deepest_obstacle > st->deepest_obstacle ? deepest_obstacle : st->deepest_obstacle;
	m->overlaps += r.pairs;
	m->overlap_capped += r.capped;
	m->overlap_most_examined = r.most_examined > m->overlap_most_examined ? r.most_examined : m->overlap_most_examined;
	m->deepest = r.deepest > m->deepest ? r.deepest : m->deepest;
	m->world_stats = w->stats;
	m->contacts = world_contacts(w);
	m->last_step = w->step;
	m->steps++;
	m->agent_steps += (uint64_t)n;
	return THRONG_OK;
}

throng_quality throng_metrics_result(const throng_metrics* m)
{
	throng_quality q;
	memset(&q, 0, sizeof q);
	if (m == NULL) {
		return q;
	}
	q.agents = m->seen;
	q.agents_left = m->left;
	q.steps = m->steps;
	q.agent_steps = m->agent_steps;
	q.seconds = (double)m->steps * (double)m->dt;
	q.overlaps = m->overlaps;
	// agents x steps without churn (the product is exact in a uint64_t, so
	// its double is that of the product of the doubles).
	const double agent_steps = (double)m->agent_steps;
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
	// The agents that left (folded in as they left), then the live ones in
	// id order: each id's record through by_id, scratch between
	// observations.
	thr_agent_sums sums = m->gone;
	uint32_t* const by_id = m->by_id;
	const thr_tag* const tag = m->col[THR_COL_TAG];
	for (uint32_t k = 0; k < m->n; ++k) {
		by_id[tag[k].id] = k;
	}
	for (uint32_t id = 0; id < m->id_end; ++id) {
		const uint32_t a = by_id[id];
		if (a < m->n && tag[a].id == id) {
			thr_metrics_add_agent(m, a, &sums);
		}
	}
	q.goals = m->goal_radius > 0.0f ? m->seen : 0u;
	q.reached = sums.reached;
	q.max_time_to_goal = sums.max_time;
	q.mean_time_to_goal = sums.reached > 0 ? sums.time / (double)sums.reached : 0.0;
	q.path_length_ratio = sums.ratios > 0 ? sums.ratio / (double)sums.ratios : 0.0;
	// The mean agents live over the states (exactly the count without churn).
	const double agents = q.steps > 0 ? agent_steps / (double)q.steps : 0.0;
	q.jitter = q.seconds > 0.0 && agents > 0.0 ? sums.turn / (agents * q.seconds) : 0.0;
	return q;
}
