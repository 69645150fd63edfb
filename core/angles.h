// SPDX-License-Identifier: MIT
// The wander angles (private): the draws that turn them and the step's
// stage that keeps the turned angles (core/angles.c has the design).
#ifndef THRONG_CORE_ANGLES_H
#define THRONG_CORE_ANGLES_H

#include <stdint.h>

#include "engine.h"
#include "fmath.h"
#include "rng.h"

/// The circle wander's draw for agent `id` at step `step`, in [-1, 1):
/// exactly one a step, keyed by (seed, id, step) (SPEC.md, seed 002).
static inline float thr_wander_draw(uint32_t key, uint32_t id, uint32_t step)
{
	return thr_bits_to_pm1(thr_rng_bits(key, id, step, THR_STREAM_WANDER));
}

/// The noise wander's noise for agent `id` at time t (s): the shared noise
/// read at the agent's own phase in [0, 1024).
static inline float thr_wander_noise_at(uint32_t key, uint32_t id, float t, float frequency)
{
	const float phase = thr_bits_to_unit(thr_rng_bits(key, id, 0u, THR_STREAM_PHASE)) * 1024.0f;
	return thr_noise1(key, t * frequency + phase);
}

/// The step's last change before it shows, once nothing can fail: every
/// agent whose archetype has an enabled wander (wander_noise) slot keeps
/// the angle that slot steered by in the pass (thr_wander_turn,
/// thr_noise_turn), in w->wander (w->noise). Cannot fail.
void thr_advance_angles(const thr_step_ctx* ctx);

#endif
