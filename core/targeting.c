// SPDX-License-Identifier: MIT
// Target selection and path following: the per-agent bookkeeping shared
// by both engines.
//
// Both run in plain C in both engines, on the previous step's state, and
// each agent writes only its own entry, so they are deterministic for any
// thread count. Target selection compares squared distances computed with
// the same float operations in both engines and breaks ties by id, so both
// engines choose the same targets.
#include "targeting.h"

#include <stdbool.h>
#include <stdlib.h>

#include "world_internal.h"

/// Whether any archetype's target rule is due at this step.
static bool any_rule_due(const throng_world* w)
{
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_target_rule* r = &w->archetypes[a].target_rule;
		if (r->enabled && w->step % r->every == 0) {
			return true;
		}
	}
	return false;
}

/// A group's bit in w->cell_groups.
static inline uint8_t group_bit(uint32_t group)
{
	return (uint8_t)(1u << (group & 7u));
}

int thr_reserve_cell_groups(throng_world* w)
{
	// A mark per listed cell, then one per row.
	const size_t cells = (size_t)w->agent_grid.n_cells + (size_t)w->agent_grid.ny;
	if (cells > w->cell_groups_cap) {
		uint8_t* p = realloc(w->cell_groups, cells);
		if (p == NULL) {
			return -1;
		}
		w->cell_groups = p;
		w->cell_groups_cap = cells;
	}
	return 0;
}

/// Fills w->cell_groups (reserved by the step's prepare stage) for the
/// agent grid: the bits of the groups in each listed cell, then in each
/// row of cells (at n_cells + row).
static const uint8_t* fill_cell_groups(throng_world* w, const uint32_t* items, int threads)
{
	const thr_grid* g = &w->agent_grid;
	uint8_t* map = w->cell_groups;
	uint8_t* rows = map + g->n_cells;
	const uint32_t* start = g->cell_start;
	(void)threads; // without OpenMP
	const uint32_t* group = w->group;
#pragma omp parallel for schedule(static) num_threads(threads) if (w->count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t cy = 0; cy < g->ny; ++cy) {
		uint8_t in_row = 0;
		uint32_t k0, k1;
		thr_grid_row_cells(g, (int32_t)cy, 0, g->nx - 1, &k0, &k1);
		for (uint32_t c = k0; c < k1; ++c) {
			uint8_t m = 0;
			for (uint32_t k = start[c]; k < start[c + 1]; ++k) {
				m |= group_bit(group[items != NULL ? items[k] : k]);
			}
			map[c] = m;
			in_row |= m;
		}
		rows[cy] = in_row;
	}
	return map;
}

/// One choice in progress: the nearest of the rule's group so far.
typedef struct pick {
	const throng_world* w;
	const thr_state* st;
	const uint32_t* items; ///< grid entry -> slot, or NULL
	const uint8_t* marks;  ///< w->cell_groups: per listed cell
	const uint8_t* rows;   ///< per row of cells
	uint32_t self;         ///< the choosing agent's slot
	uint32_t group;
	uint8_t bit;           ///< the group's mark
	float x, y, r2;        ///< the agent and its sight, squared
	uint32_t best;         ///< id, or THRONG_NO_AGENT
	float best_d2;
	uint64_t tests;
	thr_period per;        ///< a wrap world's periods: distances at the nearest image
} pick;

/// Considers the candidates [b, e) of the listed cells c0 to c1 - 1 of one
/// row, cells without the group's mark skipped.
static inline void pick_cells(pick* p, uint32_t c0, uint32_t c1, uint32_t b, uint32_t e)
{
	const throng_world* w = p->w;
	const uint32_t* start = w->agent_grid.cell_start;
	for (uint32_t c = c0; c < c1; ++c) {
		const uint32_t cb = start[c] > b ? start[c] : b;
		const uint32_t ce = start[c + 1] < e ? start[c + 1] : e;
		if (cb >= ce || !(p->marks[c] & p->bit)) {
			continue;
		}
		for (uint32_t k = cb; k < ce; ++k) {
			const uint32_t j = p->items != NULL ? p->items[k] : k;
			if (j == p->self || w->group[j] != p->group) {
				continue;
			}
			p->tests++;
			float dx = p->st->px[j] - p->x;
			float dy = p->st->py[j] - p->y;
			thr_period_image(&p->per, &dx, &dy);
			const float d2 = dx * dx + dy * dy;
			// The nearest; equally near ones go to the lower id.
			if (d2 < p->r2 && (p->best == THRONG_NO_AGENT || d2 < p->best_d2 || (d2 == p->best_d2 && w->id[j] < p->best))) {
				p->best = w->id[j];
				p->best_d2 = d2;
			}
		}
	}
}

/// thr_select_targets' choice in a wrap world: the spans of the
/// neighbour walk (thr_grid_walk), row by row up to the cap, distances at
/// the nearest image. Writes the target and adds the figures.
static void pick_spans(throng_world* w, pick* p, float sight, uint32_t limit, uint64_t* tests, uint64_t* choices, uint64_t* candidates,
                       uint32_t* most, uint64_t* capped, const uint8_t* ghost)
{
	const thr_grid* g = &w->agent_grid;
	thr_grid_walk gw;
	thr_grid_walk_init(g, p->x, p->y, sight, &gw);
	uint32_t left = limit;
	for (int32_t t = 0; t < gw.spans && left > 0; ++t) {
		int32_t cy, cx0, cx1;
		thr_grid_walk_span(&gw, t, &cy, &cx0, &cx1);
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		const uint32_t b = g->cell_start[k0];
		uint32_t e = g->cell_start[k1];
		e = e - b > left ? b + left : e;
		left -= e - b;
		if (p->rows[cy] & p->bit) {
			pick_cells(p, k0, k1, b, e);
		}
	}
	w->target_agent[p->self] = p->best;
	*tests += p->tests;
	const uint32_t examined = limit - left;
	++*choices;
	*candidates += examined;
	if (!thr_slot_ghost(ghost, p->self)) {
		*most = examined > *most ? examined : *most;
		*capped += left == 0 ? 1u : 0u;
	}
}

/// Boxes of at most this many cells are read row by row, not ring by ring.
#define RING_MIN_CELLS 25

/// The cells of [cx0, cx1] x [cy0, cy1] in growing square rings around
/// the agent's own cell, until no closer candidate can lie further out.
/// The nearest (ties to the lower id) does not depend on the order in
/// which candidates are met, so this chooses what the row-by-row walk of
/// the whole box does, when nothing cuts that walk short.
static void pick_rings(pick* p, int32_t cx0, int32_t cx1, int32_t cy0, int32_t cy1)
{
	const thr_grid* g = &p->w->agent_grid;
	uint32_t k0, k1;
	const int32_t ax = thr_grid_coord(p->x, g->min_x, g->inv_cell, g->nx);
	const int32_t ay = thr_grid_coord(p->y, g->min_y, g->inv_cell, g->ny);
	for (int32_t d = 0;; ++d) {
		bool inside = false;
		const int32_t xa = ax - d > cx0 ? ax - d : cx0, xb = ax + d < cx1 ? ax + d : cx1;
		if (ay - d >= cy0) {
			if (p->rows[ay - d] & p->bit) {
				thr_grid_row_cells(g, ay - d, xa, xb, &k0, &k1);
				pick_cells(p, k0, k1, 0, UINT32_MAX);
			}
			inside = true;
		}
		if (d > 0 && ay + d <= cy1) {
			if (p->rows[ay + d] & p->bit) {
				thr_grid_row_cells(g, ay + d, xa, xb, &k0, &k1);
				pick_cells(p, k0, k1, 0, UINT32_MAX);
			}
			inside = true;
		}
		const int32_t ya = ay - d + 1 > cy0 ? ay - d + 1 : cy0, yb = ay + d - 1 < cy1 ? ay + d - 1 : cy1;
		for (int32_t side = 0; side < 2 && d > 0; ++side) {
			const int32_t cx = side == 0 ? ax - d : ax + d;
			if (cx < cx0 || cx > cx1) {
				continue;
			}
			inside = true;
			for (int32_t cy = ya; cy <= yb; ++cy) {
				if (p->rows[cy] & p->bit) {
					thr_grid_row_cells(g, cy, cx, cx, &k0, &k1);
					pick_cells(p, k0, k1, 0, UINT32_MAX);
				}
			}
		}
		if (!inside) {
			return; // this ring and every larger one lie outside the box
		}
		// A cell of ring m lies at least (m - 1) cells from the agent's
		// cell; one cell less covers the rounding of the grid's mapping.
		// Stop when even that is farther than the best found.
		if (p->best != THRONG_NO_AGENT && d >= 1) {
			const double gap = (double)(d - 1) * (double)g->cell;
			if (gap * gap > (double)p->best_d2) {
				return;
			}
		}
	}
}

void thr_select_targets(throng_world* w, const thr_state* st, const uint32_t* items, const uint8_t* ghost, int threads,
                        throng_world_counters* counts)
{
	if (w->count == 0 || !any_rule_due(w)) {
		return; // no agent: the step reserved no cell marks (core/step.c)
	}
	const thr_grid* g = &w->agent_grid;
	const int64_t count = w->count;
	// Cells and rows of cells without an agent of the rule's group are
	// skipped whole (their agents still count against the cap, in order):
	// a choice reads the agents of the cells that may hold a candidate, not
	// every agent in sight.
	const uint8_t* cell_groups = fill_cell_groups(w, items, threads);
	uint64_t capped = 0, choices = 0, candidates = 0, tests = 0;
	uint32_t most = w->stats.target_most_candidates;
	(void)threads;
	// The cap: an agent examines at most max_candidates agents
	// of the cells within sight, in the order both engines list them (rows
	// up, cells left to right, ids up), so a dense knot costs a bounded
	// amount per agent and both engines still pick the same target. The
	// figures are integer sums and a maximum: the same for any split.
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : capped, choices, candidates, tests) \
	reduction(max : most) if (count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t ii = 0; ii < count; ++ii) {
		if (ii == 0) {
			thr_note_team(w, THR_REGION_TARGETS);
		}
		uint32_t i = (uint32_t)ii;
		const throng_target_rule* rule = &w->archetypes[w->archetype[i]].target_rule;
		if (!rule->enabled || w->step % rule->every != 0) {
			continue;
		}
		pick p = {w,
		          st,
		          items,
		          cell_groups,
		          cell_groups + g->n_cells,
		          i,
		          rule->group,
		          group_bit(rule->group),
		          st->px[i],
		          st->py[i],
		          rule->sight_radius * rule->sight_radius,
		          THRONG_NO_AGENT,
		          0.0f,
		          0,
		          thr_world_period(w)};
		int32_t cx0, cx1, cy0, cy1;
		const uint32_t limit = rule->max_candidates > 0u ? rule->max_candidates : THRONG_TARGET_MAX_CANDIDATES;
		thr_grid_range(g, p.x, p.y, rule->sight_radius, &cx0, &cx1, &cy0, &cy1);
		if (g->period_x > 0.0f) {
			// A wrap world: the neighbour walk's spans, across the seam,
			// row by row up to the cap (grid.h, thr_grid_walk).
			pick_spans(w, &p, rule->sight_radius, limit, &tests, &choices, &candidates, &most, &capped, ghost);
			continue;
		}
		// The candidates in sight: when the cap does not cut them, the
		// nearest is found ring by ring from the agent outwards (large
		// boxes), else row by row up to the cap.
		uint64_t total = 0;
		for (int32_t cy = cy0; cy <= cy1; ++cy) {
			uint32_t k0, k1;
			thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
			total += g->cell_start[k1] - g->cell_start[k0];
		}
		const int64_t box = (int64_t)(cx1 - cx0 + 1) * (int64_t)(cy1 - cy0 + 1);
		uint32_t left = limit;
		if (total <= limit && box > RING_MIN_CELLS) {
			pick_rings(&p, cx0, cx1, cy0, cy1);
			left = limit - (uint32_t)total;
		} else {
			for (int32_t cy = cy0; cy <= cy1 && left > 0; ++cy) {
				uint32_t k0, k1;
				thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
				const uint32_t b = g->cell_start[k0];
				uint32_t e = g->cell_start[k1];
				e = e - b > left ? b + left : e;
				left -= e - b;
				if (p.rows[cy] & p.bit) {
					pick_cells(&p, k0, k1, b, e);
				}
			}
		}
		w->target_agent[i] = p.best;
		tests += p.tests;
		uint32_t examined = limit - left;
		choices++;
		candidates += examined;
		if (!thr_slot_ghost(ghost, i)) { // a ghost's figures are its owner's (core/part.h)
			most = examined > most ? examined : most;
			capped += left == 0 ? 1u : 0u;
		}
	}
	w->stats.target_most_candidates = most;
	w->stats.target_capped += capped;
	if (counts != NULL) {
		counts->target_choices += choices;
		counts->target_candidates += candidates;
		counts->target_tests += tests;
	}
}

int thr_path_target(const throng_world* w, const thr_state* st, uint32_t slot, float waypoint_radius, vec2* target,
                    uint32_t* next_waypoint, int* final)
{
	uint32_t id = w->path != NULL ? w->path[slot] : THRONG_NO_PATH; // (NULL: the world has no path)
	if (id == THRONG_NO_PATH) {
		return 0;
	}
	const thr_path* path = &w->paths[id];
	uint32_t k = st->waypoint[slot];
	if (k >= path->count) {
		k = path->count - 1u;
	}
	vec2 p = v2(st->px[slot], st->py[slot]);
	vec2 t = w->waypoints[path->first + k];
	bool last = k + 1u == path->count;
	// Within the radius of its waypoint the agent heads for the next one
	// (the first again on a loop); the last of an open path is kept.
	if (v2_length(v2_sub(t, p)) < waypoint_radius && (!last || path->loop)) {
		k = last ? 0u : k + 1u;
		t = w->waypoints[path->first + k];
	}
	*target = t;
	*next_waypoint = k;
	*final = !path->loop && k + 1u == path->count;
	return 1;
}
