// SPDX-License-Identifier: MIT
// Scalar 2D vector helpers for the reference engine (private).
//
// Each helper is written as the exact sequence of IEEE float operations the
// SIMD engine repeats lane by lane: multiply then add, never fused (the build
// passes -ffp-contract=off), a true sqrt and a true division. Changing the
// order of operations here changes results in the last bit, and the SIMD
// passes must then change with it.
#ifndef THRONG_CORE_VEC_H
#define THRONG_CORE_VEC_H

#include <math.h>

#include "throng/throng.h"

typedef throng_vec2 vec2;

/// The epsilon of SPEC.md: speeds, lengths and dot(rv,rv) below it count as 0.
#define THR_EPS 1.0e-6f

static inline vec2 v2(float x, float y) { return (vec2){x, y}; }
static inline vec2 v2_add(vec2 a, vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline vec2 v2_sub(vec2 a, vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline vec2 v2_scale(vec2 a, float s) { return v2(a.x * s, a.y * s); }
static inline float v2_dot(vec2 a, vec2 b) { return a.x * b.x + a.y * b.y; }
static inline float v2_length(vec2 a) { return sqrtf(a.x * a.x + a.y * a.y); }
/// The left-hand normal (-y, x).
static inline vec2 v2_perp(vec2 a) { return v2(-a.y, a.x); }

/// a * (1 / len), a of length len > 0 as a unit vector: one division
/// for both components (the reciprocal is exact IEEE division, not an
/// approximation; docs/ENGINES.md, "Divisions and square roots").
static inline vec2 v2_unit(vec2 a, float len)
{
	float inv = 1.0f / len;
	return v2(a.x * inv, a.y * inv);
}

/// a * (m / len), a of length len resized to length m; (0,0) where
/// len == 0 (normalize(0) = (0,0), SPEC.md). For the behaviours that know
/// |a| already and want a at a speed: one division, no second sqrt.
static inline vec2 v2_resize(vec2 a, float len, float m)
{
	if (len == 0.0f) {
		return v2(0.0f, 0.0f);
	}
	float s = m / len;
	return v2(a.x * s, a.y * s);
}

/// v / length(v) as v * (1 / length(v)); normalize(0) = (0,0) (SPEC.md).
static inline vec2 v2_normalize(vec2 a)
{
	float len = v2_length(a);
	if (len == 0.0f) {
		return v2(0.0f, 0.0f);
	}
	return v2_unit(a, len);
}

/// v scaled down to length m when longer: v * (m / length(v)).
static inline vec2 v2_limit(vec2 a, float m)
{
	float len = v2_length(a);
	return len > m ? v2_resize(a, len, m) : a;
}

static inline int v2_isfinite(vec2 a) { return isfinite(a.x) && isfinite(a.y); }

#endif
