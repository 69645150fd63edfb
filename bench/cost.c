// SPDX-License-Identifier: MIT
// The cost model of cost.h applied to a world's counters.
#include "cost.h"

#include <stdlib.h>

double bench_cost_slot_fixed(const throng_slot* slot, int contained)
{
	const throng_behavior_params* p = &slot->params;
	switch (slot->kind) {
	case THRONG_SEEK: return 19;
	case THRONG_FLEE:
		switch (p->flee_mode) {
		case THRONG_FLEE_PANIC: return 23;
		case THRONG_FLEE_SAFE: return 26;
		case THRONG_FLEE_ALWAYS:
		default: return 19;
		}
	case THRONG_ARRIVE: return 25;
	case THRONG_PURSUIT: return 30;
	case THRONG_EVADE: return 33;
	case THRONG_WANDER: return p->frame == THRONG_WANDER_WORLD ? 68 : 82;
	case THRONG_WANDER_NOISE: return 66;
	case THRONG_BOUNDS: return contained ? 25 : 0;
	case THRONG_PATH_FOLLOW: return 50;
	default: return 0; // neighbours and feelers: priced by their own counts
	}
}

/// Per kind, the price of one slot lane of the kinds bench_cost_slot_fixed
/// prices: the mean over the world's enabled slots of that kind, each
/// archetype's slots weighted by its agents (equal to the one price when
/// every slot of a kind has the same parameters, as in every built-in
/// scene).
static void slot_prices(const throng_world* w, double price[THRONG_BEHAVIOR_COUNT])
{
	double sum[THRONG_BEHAVIOR_COUNT] = {0}, weight[THRONG_BEHAVIOR_COUNT] = {0};
	const uint32_t n_arch = throng_world_archetype_count(w);
	double* agents = calloc((size_t)n_arch + 1u, sizeof *agents);
	const throng_view v = throng_world_view(w);
	for (uint32_t k = 0; agents != NULL && k < v.count; ++k) {
		agents[v.archetype[k]] += 1.0;
	}
	const int contained = throng_world_get_def(w).bounds_mode == THRONG_BOUNDS_CONTAIN;
	for (uint32_t a = 0; a < n_arch; ++a) {
		throng_controller c;
		throng_world_get_controller(w, a, &c);
		const double n = agents != NULL ? agents[a] : 1.0;
		for (uint32_t k = 0; k < c.slot_count; ++k) {
			if (c.slots[k].enabled) {
				sum[c.slots[k].kind] += n * bench_cost_slot_fixed(&c.slots[k], contained);
				weight[c.slots[k].kind] += n;
			}
		}
	}
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		// 0 for a kind no agent has: no lane evaluates it.
		price[k] = weight[k] > 0.0 ? sum[k] / weight[k] : 0.0;
	}
	free(agents);
}

double bench_cost_flops(const throng_world* w, const throng_world_counters* c)
{
	const int simd = throng_world_get_def(w).engine == THRONG_ENGINE_SIMD;
	double price[THRONG_BEHAVIOR_COUNT];
	slot_prices(w, price);
	double f = 0.0;

	// Every lane: the slots without walks, the blend, the integration.
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		f += price[k] * (double)c->slot_lanes[k];
	}
	f += BENCH_OPS_BLEND_BUDGET_TERM * (double)c->blend_budget_terms;
	f += BENCH_OPS_BLEND_SUM_TERM * (double)c->blend_sum_terms;
	f += BENCH_OPS_BLEND_LIMIT * (double)(c->blend_weighted_lanes + c->blend_hybrid_lanes + c->blend_relaxation_lanes);
	f += BENCH_OPS_BLEND_HYBRID_ADD * (double)c->blend_hybrid_lanes;
	f += BENCH_OPS_INTEGRATE * (double)c->lanes;

	// Neighbours.
	f += BENCH_OPS_NB_DISTANCE * (double)c->neighbor_lane_slots;
	f += 2.0 * BENCH_OPS_NB_COUNTS * (double)c->neighbor_slot_tests; // 0 on the SIMD engine
	f += (simd ? BENCH_OPS_UNALIGNED_TEST_SIMD : BENCH_OPS_UNALIGNED_TEST_SCALAR) *
	     (double)c->neighbor_body_lanes[THRONG_UNALIGNED_AVOID];
	f += BENCH_OPS_UNALIGNED_PUSH_SIMD * (double)c->unaligned_push_lanes; // 0 on the scalar engine
	f += BENCH_OPS_SEPARATION * (double)c->neighbor_body_lanes[THRONG_SEPARATION];
	f += BENCH_OPS_ALIGN_COHESION *
	     (double)(c->neighbor_body_lanes[THRONG_ALIGNMENT] + c->neighbor_body_lanes[THRONG_COHESION]);
	f += BENCH_OPS_NB_FINISH_PUSH *
	     (double)(c->slot_lanes[THRONG_UNALIGNED_AVOID] + c->slot_lanes[THRONG_SEPARATION]);
	f += BENCH_OPS_NB_FINISH_ALIGNMENT * (double)c->slot_lanes[THRONG_ALIGNMENT];
	f += BENCH_OPS_NB_FINISH_COHESION * (double)c->slot_lanes[THRONG_COHESION];

	// Feelers. The SIMD engine tests every lane of a vector and computes
	// the wall feelers' sincos and each wall's edge once per vector.
	f += BENCH_OPS_FEELER_MOVING *
	     (double)(c->slot_lanes[THRONG_OBSTACLE_AVOID] + c->slot_lanes[THRONG_WALL_AVOID]);
	f += BENCH_OPS_FEELER_HEADING * (double)(c->obstacle_scans + c->wall_scans);
	f += BENCH_OPS_OBSTACLE_TEST * (double)c->obstacle_tests;
	f += BENCH_OPS_OBSTACLE_FORCE * (double)c->obstacle_hit_lanes;
	f += BENCH_OPS_WALL_ROTATE * (double)c->wall_scans;
	f += BENCH_OPS_WALL_FORCE * (double)c->wall_hit_lanes;
	if (simd) {
		f += BENCH_OPS_WALL_SINCOS * (double)c->wall_scans / 8.0;
		f += BENCH_OPS_WALL_TEST_SIMD * (double)c->wall_tests;
		f += BENCH_OPS_WALL_EDGE * (double)c->wall_tests / 8.0;
	} else {
		f += BENCH_OPS_WALL_SINCOS * (double)c->wall_scans;
		f += BENCH_OPS_WALL_TEST_SCALAR * (double)c->wall_tests;
	}

	// Target selection.
	f += BENCH_OPS_TARGET_TEST * (double)c->target_tests;
	f += BENCH_OPS_TARGET_CHOICE * (double)c->target_choices;
	return f;
}

double bench_cost_bytes(const throng_world* w, const throng_world_counters* c)
{
	const int simd = throng_world_get_def(w).engine == THRONG_ENGINE_SIMD;
	const double agent = simd ? BENCH_BYTES_SIMD_AGENT : BENCH_BYTES_SCALAR_AGENT;
	return agent * (double)c->agents + BENCH_BYTES_CELL * (double)c->grid_cells;
}
