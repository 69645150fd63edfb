// SPDX-License-Identifier: MIT
// The wander angles' advance: the step's stage after its last point of
// failure (core/step.c).
//
// Design. Each agent keeps two persistent angles (the circle wander's and
// the noise wander's, SPEC.md) in single arrays (store.h), not in the
// double-buffered state: no agent reads another's, so a step needs no
// copy of them to read from. But a step may still fail after the
// engine's pass (the contact stage, combat, events: out of memory), and
// a failed step leaves the world exactly as it was; so the engines' passes
// read the angles and write none, and this stage writes the turned angle
// of every wandering agent once the step can no longer fail, from the
// same draw by the same formula as the slot steered by (thr_wander_turn,
// thr_noise_turn: the scalar reference's, which the SIMD engine's wide
// twin matches bit for bit, as every hash of tests/test_determinism.c
// checks). It costs the draw a second time; it saves the second buffer's
// two angles, 8 bytes an agent (docs/PERFORMANCE.md, issue 37).
#include "angles.h"

#include "behaviors.h"
#include "world_internal.h"

/// Whether some archetype has an enabled wander or wander_noise slot.
static bool any_wander(const thr_step_ctx* ctx)
{
	for (uint32_t a = 0; a < ctx->w->archetype_count; ++a) {
		if (ctx->arch[a].wander_slot != THR_NO_ANGLE_SLOT || ctx->arch[a].noise_slot != THR_NO_ANGLE_SLOT) {
			return true;
		}
	}
	return false;
}

/// Agents turned in one go: a batch of the parallel loop.
#define THR_ANGLE_BATCH 4096u

/// The angles of agents first .. end - 1, all of archetype a: loops over
/// plain arrays with the slot's parameters fixed, which the compiler
/// vectorises (rng.h and fmath.h are inline).
static void turn_run(const thr_step_ctx* ctx, uint32_t a, uint32_t first, uint32_t end)
{
	throng_world* w = ctx->w;
	const thr_arch_info* info = &ctx->arch[a];
	const throng_slot* slots = w->archetypes[a].slots;
	const uint32_t key = w->rng_key, step = ctx->step32;
	const float dt = ctx->dt;
	const uint32_t* restrict id = w->id;
	if (info->wander_slot != THR_NO_ANGLE_SLOT) {
		const float jitter = slots[info->wander_slot].params.jitter;
		float* restrict wander = w->wander;
		for (uint32_t i = first; i < end; ++i) {
			wander[i] = thr_wander_turn(wander[i], thr_wander_draw(key, id[i], step), jitter, dt);
		}
	}
	if (info->noise_slot != THR_NO_ANGLE_SLOT) {
		const throng_behavior_params* p = &slots[info->noise_slot].params;
		float* restrict noise = w->noise;
		for (uint32_t i = first; i < end; ++i) {
			const float n = thr_wander_noise_at(key, id[i], ctx->time, p->noise_frequency);
			noise[i] = thr_noise_turn(noise[i], n, p->noise_amplitude, dt);
		}
	}
}

void thr_advance_angles(const thr_step_ctx* ctx)
{
	const throng_world* w = ctx->w;
	if (!any_wander(ctx)) {
		return;
	}
	const uint32_t count = w->count;
	const int64_t batches = ((int64_t)count + THR_ANGLE_BATCH - 1) / THR_ANGLE_BATCH;
	// Each agent's angles from its own alone: any split gives the same
	// bits. Within a batch, the runs of agents of one archetype.
#pragma omp parallel for schedule(static) num_threads(ctx->threads) if (count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t b = 0; b < batches; ++b) {
		const uint32_t first = (uint32_t)b * THR_ANGLE_BATCH;
		const uint32_t end = count - first < THR_ANGLE_BATCH ? count : first + THR_ANGLE_BATCH;
		for (uint32_t i = first; i < end;) {
			const uint32_t a = w->archetype[i];
			uint32_t j = i + 1;
			while (j < end && w->archetype[j] == a) {
				++j;
			}
			turn_run(ctx, a, i, j);
			i = j;
		}
	}
}
