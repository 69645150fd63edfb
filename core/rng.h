// SPDX-License-Identifier: MIT
// Counter-based random numbers keyed by (world seed, agent id, step, stream).
//
// A draw is a pure function of its key, so it does not depend on which
// thread computes it or in which order agents are visited (SPEC.md,
// "Determinism of wander"). The mixer is a 32-bit integer hash (xor-shift and
// multiply, constants from Chris Wellons' hash prospector, "lowbias32") so
// that SIMD int lanes compute it with 32-bit multiplies only.
#ifndef THRONG_CORE_RNG_H
#define THRONG_CORE_RNG_H

#include <stdint.h>

/// Independent streams, one per kind of draw.
enum {
	THR_STREAM_WANDER = 1,  ///< the circle wander's one draw per step
	THR_STREAM_NOISE = 2,   ///< the noise wander's lattice values
	THR_STREAM_PHASE = 3,   ///< the noise wander's per-agent phase
	THR_STREAM_GOAL = 4,    ///< goal re-draws of scenarios
	THR_STREAM_SPAWN = 5,   ///< scenario spawn placement
	THR_STREAM_CONTACT = 6, ///< the contact stage's noise: one direction per pressed agent and step
	THR_STREAM_COMBAT = 9,  ///< a strike's hit or miss (7 and 8: sources.c)
	THR_STREAM_SPREAD_R = 10, ///< where in its spread disc a missile lands: the radius's draw
	THR_STREAM_SPREAD_A = 11, ///< and the angle's
};

static inline uint32_t thr_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/// The world's key: both halves of the 64-bit seed mixed once.
static inline uint32_t thr_rng_key(uint64_t seed)
{
	return thr_mix32(thr_mix32((uint32_t)seed + 0x9e3779b9u) ^ (uint32_t)(seed >> 32));
}

/// 32 random bits for (key, a, b, stream); a is usually the agent id and b
/// the step (its low 32 bits: the sequence repeats after 2^32 steps).
static inline uint32_t thr_rng_bits(uint32_t key, uint32_t a, uint32_t b, uint32_t stream)
{
	return thr_mix32(thr_mix32(thr_mix32(key ^ a) ^ b) ^ (stream * 0x9e3779b9u));
}

/// The top 24 bits as a float in [0, 1); exact, no rounding.
static inline float thr_bits_to_unit(uint32_t bits)
{
	return (float)(bits >> 8) * (1.0f / 16777216.0f);
}

/// U(-1, 1): 2u - 1, in [-1, 1); exact.
static inline float thr_bits_to_pm1(uint32_t bits)
{
	return thr_bits_to_unit(bits) * 2.0f - 1.0f;
}

/// Smooth 1D value noise in [-1, 1]: lattice values from the counter-based
/// generator, blended with the smoothstep s = f*f*(3 - 2f).
float thr_noise1(uint32_t key, float x);

#endif
