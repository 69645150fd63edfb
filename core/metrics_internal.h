// SPDX-License-Identifier: MIT
// The quality metrics' object (private): its records and what agents that
// come and go change in them (core/metrics.c has the design,
// core/metrics_churn.c the churn).
#ifndef THRONG_CORE_METRICS_INTERNAL_H
#define THRONG_CORE_METRICS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics_overlap.h"
#include "metrics_shapes.h"
#include "store.h"
#include "throng/metrics.h"

/// "Not arrived yet" in arrived_step.
#define THR_NEVER UINT32_MAX

/// What observing keeps of one agent, 32 bytes in four columns of 8 (the
/// turn, the path walked, and these two), so that the records follow the
/// world's reorder one column at a time through one spare column.
typedef struct thr_goal {
	float x, y; ///< the goal
} thr_goal;

typedef struct thr_tag {
	uint32_t arrived_step; ///< first arrival at the goal, in steps since creation; THR_NEVER before
	uint32_t id;           ///< the agent's id
} thr_tag;

enum { THR_COL_TURN, THR_COL_WALKED, THR_COL_GOAL, THR_COL_TAG, THR_COLS };

_Static_assert(sizeof(thr_goal) == 8 && sizeof(thr_tag) == 8 && sizeof(double) == 8,
               "a record's columns are 8 bytes an agent, the overlap sort's spare column's size");
_Static_assert(THRONG_METRICS_MAX_STEPS < THR_NEVER, "an arrival step never reads as THR_NEVER");

/// The per-agent sums of the figures, over some agents: result() adds the
/// live ones to those of the agents that left.
typedef struct thr_agent_sums {
	double turn;     ///< heading change (rad)
	uint32_t reached; ///< agents that reached their goal
	double time;     ///< their first-arrival times since they started (s)
	double max_time; ///< the latest of those (s)
	double ratio;    ///< their path-length ratios, where one counts
	uint32_t ratios; ///< how many count
} thr_agent_sums;

struct throng_metrics {
	uint32_t n;            ///< records: the world's agents at the last observation
	uint32_t cap;          ///< records each column (and the overlap index) has room for
	uint32_t id_end;       ///< thr_id_end of the world at the last observation
	uint32_t ids_cap;      ///< entries of the arrays by id
	uint32_t seen;         ///< agents watched: those at creation and every one added since and observed
	uint32_t left;         ///< of those, the ones that left (their records folded into gone)
	uint64_t step0;        ///< the world's step at creation
	uint64_t last_step;    ///< the world's step at the last observation (at creation before the first)
	float dt;
	float goal_radius;
	bool wrap;             ///< positions jump across the world: no path length
	thr_overlap_index overlap;
	thr_shape_watch shapes;
	thr_shape_tally shape_tally;
	uint64_t contacts0, contacts; ///< world_contacts() at creation and at the last observation
	/// By id, read only by throng_metrics_result(): where the agent started
	/// (its position at creation, or where it was added) and when (born:
	/// steps since creation).
	float *start_x, *start_y;
	uint32_t* born;
	/// By id: a record index, scratch of the placements by id and of
	/// result(); valid only where the record's tag holds that id.
	uint32_t* by_id;
	/// The records, in the world's storage order at the last observation:
	/// the turn (double, rad), the path walked until the first arrival
	/// (double, m), the goal (thr_goal) and the tag (thr_tag).
	void* col[THR_COLS];
	uint64_t steps, agent_steps, overlaps, oob, nonfinite, overlap_capped;
	uint32_t overlap_most_examined;
	double deepest;
	thr_agent_sums gone;           ///< the agents that left, folded in as they left (by id within one observation)
	throng_world_stats world_stats; ///< the world's running figures at the last observation
};

/// Whether an agent at (x, y) is within the goal radius of goal g.
static inline bool thr_metrics_at_goal(const throng_metrics* m, thr_goal g, float x, float y)
{
	float dx = x - g.x;
	float dy = y - g.y;
	return dx * dx + dy * dy <= m->goal_radius * m->goal_radius;
}

/// out[j] = thr_atan2f(cross, dot) of the previous heading (px, py)[j] and
/// the current (hx, hy)[j], for j < cnt, as the heading change observing
/// adds: a loop the compiler vectorises (core/ includes none of simd/'s
/// headers), thr_atan2f's operations in its order, its branches as selects
/// whose other side is computed too (0 / 1 where thr_atan2f returns 0 for
/// 0 / 0, t / 1 = t where it divides not at all). So every lane whose
/// result is a number has thr_atan2f's bits, up to the sign of a zero
/// (tests/test_metrics.c); a NaN's may differ (which input NaN it
/// carries), and the caller recomputes those.
void thr_metrics_heading_turns(const float* px, const float* py, const float* hx, const float* hy, int cnt,
                               float* out);

/// Adds record r's figures (arrival, path ratio, turn) to *s.
void thr_metrics_add_agent(const throng_metrics* m, uint32_t r, thr_agent_sums* s);

/// Room for ids below id_end in the arrays by id, and for `count` records
/// and `threads` threads in the columns and the overlap index. Returns -1
/// when out of memory; what it grew stays grown, no figure changes.
int thr_metrics_reserve(throng_metrics* m, uint32_t id_end, uint32_t count, uint32_t threads);

/// Puts the records in w's storage order by id, after agents came or went
/// (thr_metrics_reserve first): the records of agents no longer in w are
/// folded into m->gone, by increasing id, and agents new to the metrics
/// get a record: start where the previous state `ps` has them (slots below
/// pn, born at step `born_prev`; the current state's above, born at
/// `born_now`), the goal their target point now. Cannot fail.
void thr_metrics_regroup(throng_metrics* m, const throng_world* w, const thr_state* ps, uint32_t pn,
                         uint32_t born_prev, uint32_t born_now);

#endif
