// SPDX-License-Identifier: MIT
// The per-agent operation counts of cost.h that depend on a slot's
// parameters or a controller's blend mode.
#include "cost.h"

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
	default: return 0; // neighbours and feelers: counted by the census
	}
}

double bench_cost_blend(const throng_controller* ctl)
{
	double priority = 0, rest = 0;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled) {
			continue;
		}
		if (ctl->mode == THRONG_BLEND_PRIORITY || (ctl->mode == THRONG_BLEND_HYBRID && s->priority)) {
			priority += 1;
		} else {
			rest += 1;
		}
	}
	switch (ctl->mode) {
	case THRONG_BLEND_PRIORITY: return 12 * priority;
	case THRONG_BLEND_HYBRID: return 12 * priority + 4 * rest + 9;
	case THRONG_BLEND_WEIGHTED:
	default: return 4 * rest + 7;
	}
}
