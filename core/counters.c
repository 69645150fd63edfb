// SPDX-License-Identifier: MIT
// Counters (throng.h, "Counters"): turning them on, reading them, merging
// them. The engines and the step record the counts where the work is done
// (core/step.c, core/scalar_engine.c, core/targeting.c, simd/); each
// count is an integer sum, so the order in which per-thread or per-batch
// counts are merged cannot change it.
#define _POSIX_C_SOURCE 200809L
#include "counters.h"

#include <string.h>
#include <time.h>

#include "error.h"
#include "world_internal.h"

throng_status throng_world_set_counting(throng_world* w, uint32_t what)
{
	throng_status st = thr_check_world(w, "throng_world_set_counting");
	if (st != THRONG_OK) {
		return st;
	}
	if ((what & ~(uint32_t)THRONG_COUNT_ALL) != 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_world_set_counting: what = 0x%x holds bits other than THRONG_COUNT_WORK (1) and "
		                "THRONG_COUNT_TIME (2)",
		                what);
	}
	w->counting = what;
	memset(&w->count_last, 0, sizeof w->count_last);
	memset(&w->count_total, 0, sizeof w->count_total);
	return THRONG_OK;
}

uint32_t throng_world_counting(const throng_world* w)
{
	return w != NULL ? w->counting : 0u;
}

throng_status throng_world_get_counters(const throng_world* w, throng_world_counters* last_step,
                                        throng_world_counters* total)
{
	throng_status st = thr_check_world(w, "throng_world_get_counters");
	if (st != THRONG_OK) {
		return st;
	}
	if (last_step != NULL) {
		*last_step = w->count_last;
	}
	if (total != NULL) {
		*total = w->count_total;
	}
	return THRONG_OK;
}

void thr_counters_add(throng_world_counters* into, const throng_world_counters* from)
{
	// Every field is a uint64_t: add them as an array.
	_Static_assert(sizeof(throng_world_counters) % sizeof(uint64_t) == 0,
	               "throng_world_counters is a whole number of uint64_t fields");
	uint64_t a[sizeof(throng_world_counters) / sizeof(uint64_t)];
	uint64_t b[sizeof a / sizeof a[0]];
	memcpy(a, into, sizeof a);
	memcpy(b, from, sizeof b);
	for (size_t k = 0; k < sizeof a / sizeof a[0]; ++k) {
		a[k] += b[k];
	}
	memcpy(into, a, sizeof a);
}

uint64_t thr_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void thr_count_controller(throng_world_counters* c, const throng_controller* ctl, uint64_t lanes)
{
	uint64_t budget = 0, sum = 0;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled) {
			continue;
		}
		c->slot_lanes[s->kind] += lanes;
		if (ctl->mode == THRONG_BLEND_PRIORITY || (ctl->mode == THRONG_BLEND_HYBRID && s->priority)) {
			budget++;
		} else {
			sum++;
		}
	}
	switch (ctl->mode) {
	case THRONG_BLEND_PRIORITY: c->blend_priority_lanes += lanes; break;
	case THRONG_BLEND_HYBRID: c->blend_hybrid_lanes += lanes; break;
	case THRONG_BLEND_RELAXATION: c->blend_relaxation_lanes += lanes; break;
	case THRONG_BLEND_WEIGHTED:
	default: c->blend_weighted_lanes += lanes; break;
	}
	c->blend_budget_terms += budget * lanes;
	c->blend_sum_terms += sum * lanes;
}
