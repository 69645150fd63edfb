// SPDX-License-Identifier: MIT
// Target selection and path following: the per-agent bookkeeping shared
// by both engines.
//
// Both run in plain C in both engines, on the previous step's state, and
// each agent writes only its own entry, so they are deterministic for any
// thread count. Target selection compares squared distances computed with
// the same float operations in both engines and breaks ties by id, so both
// engines choose the same targets.
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
	const size_t cells = (size_t)w->agent_grid.nx * (size_t)w->agent_grid.ny;
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
/// agent grid: the bits of the groups in each cell.
static const uint8_t* fill_cell_groups(throng_world* w, const uint32_t* items, int threads)
{
	const thr_grid* g = &w->agent_grid;
	const int64_t cells = (int64_t)g->nx * (int64_t)g->ny;
	uint8_t* map = w->cell_groups;
	const uint32_t* start = g->cell_start;
	(void)threads; // without OpenMP
	const uint32_t* group = w->group;
#pragma omp parallel for schedule(static) num_threads(threads) if (w->count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t c = 0; c < cells; ++c) {
		uint8_t m = 0;
		for (uint32_t k = start[c]; k < start[c + 1]; ++k) {
			m |= group_bit(group[items != NULL ? items[k] : k]);
		}
		map[c] = m;
	}
	return map;
}

void thr_select_targets(throng_world* w, const thr_state* st, const uint32_t* items, int threads,
                        throng_world_counters* counts)
{
	if (!any_rule_due(w)) {
		return;
	}
	const thr_grid* g = &w->agent_grid;
	const int64_t count = w->count;
	// Cells without an agent of the rule's group are skipped whole (their
	// agents still count against the cap, in order): a choice reads the
	// agents of the cells that may hold a candidate, not every agent in
	// sight.
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
		const float x = st->px[i], y = st->py[i];
		const float r2 = rule->sight_radius * rule->sight_radius;
		uint32_t best = THRONG_NO_AGENT;
		float best_d2 = 0.0f;
		int32_t cx0, cx1, cy0, cy1;
		const uint32_t limit = rule->max_candidates > 0u ? rule->max_candidates : THRONG_TARGET_MAX_CANDIDATES;
		uint32_t left = limit;
		thr_grid_range(g, x, y, rule->sight_radius, &cx0, &cx1, &cy0, &cy1);
		const uint8_t bit = group_bit(rule->group);
		for (int32_t cy = cy0; cy <= cy1 && left > 0; ++cy) {
			uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
			uint32_t b = g->cell_start[row + (uint32_t)cx0];
			uint32_t e = g->cell_start[row + (uint32_t)cx1 + 1];
			e = e - b > left ? b + left : e;
			left -= e - b;
			// The row's candidates [b, e), cell by cell.
			for (uint32_t c = row + (uint32_t)cx0; c <= row + (uint32_t)cx1; ++c) {
				const uint32_t cb = g->cell_start[c] > b ? g->cell_start[c] : b;
				const uint32_t ce = g->cell_start[c + 1] < e ? g->cell_start[c + 1] : e;
				if (cb >= ce || !(cell_groups[c] & bit)) {
					continue;
				}
				for (uint32_t k = cb; k < ce; ++k) {
					uint32_t j = items != NULL ? items[k] : k;
					if (j == i || w->group[j] != rule->group) {
						continue;
					}
					tests++;
					float dx = st->px[j] - x;
					float dy = st->py[j] - y;
					float d2 = dx * dx + dy * dy;
					// The nearest; equally near ones go to the lower id.
					if (d2 < r2 &&
					    (best == THRONG_NO_AGENT || d2 < best_d2 || (d2 == best_d2 && w->id[j] < best))) {
						best = w->id[j];
						best_d2 = d2;
					}
				}
			}
		}
		w->target_agent[i] = best;
		uint32_t examined = limit - left;
		most = examined > most ? examined : most;
		capped += left == 0 ? 1u : 0u;
		choices++;
		candidates += examined;
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
	uint32_t id = w->path[slot];
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
