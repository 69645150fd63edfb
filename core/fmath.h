// SPDX-License-Identifier: MIT
// Polynomial sin, cos, atan2 and exp shared by every engine (private).
//
// libm's sinf/cosf/atan2f differ between libm versions and are not what a
// SIMD lane computes, so throng evaluates its own polynomials with a fixed
// sequence of float operations. The SIMD engine uses the same coefficients
// (THR_POLY_*) in the same order, so both engines get identical bits.
// Accuracy: sin/cos within 2e-7 absolute on [-pi, pi] and within 1e-6 for
// |x| <= 1e4; atan2 within 3e-7 rad. Arguments past |x| = 4e6 lose accuracy;
// callers keep angles wrapped (thr_wrap_angle).
#ifndef THRONG_CORE_FMATH_H
#define THRONG_CORE_FMATH_H

#include <math.h>

#define THR_PI 3.14159265358979323846f
#define THR_TWO_PI 6.28318530717958647692f
#define THR_HALF_PI 1.57079632679489661923f

// Cody-Waite split of pi/2: hi and mid are exact in float with trailing
// zeros, so k*hi and k*mid are exact for |k| < 2^11.
#define THR_POLY_PIO2_HI 1.5703125f
#define THR_POLY_PIO2_MID 4.837512969970703125e-4f
#define THR_POLY_PIO2_LO 7.54978995489188216e-8f
#define THR_POLY_TWO_OVER_PI 0.636619772367581343076f
// 1.5 * 2^23: adding then subtracting it rounds a float to the nearest
// integer (ties to even) for |x| < 2^22, with no rounding-mode dependence.
#define THR_POLY_ROUND_MAGIC 12582912.0f

// Minimax polynomials on [-pi/4, pi/4] (Cephes sinf/cosf coefficients).
#define THR_POLY_S1 -1.6666654611e-1f
#define THR_POLY_S2 8.3321608736e-3f
#define THR_POLY_S3 -1.9515295891e-4f
#define THR_POLY_C1 4.166664568298827e-2f
#define THR_POLY_C2 -1.388731625493765e-3f
#define THR_POLY_C3 2.443315711809948e-5f

// atan on [-tan(pi/8), tan(pi/8)] (Cephes atanf coefficients).
#define THR_POLY_TAN_PI_8 0.414213562373095f
#define THR_POLY_A1 8.05374449538e-2f
#define THR_POLY_A2 -1.38776856032e-1f
#define THR_POLY_A3 1.99777106478e-1f
#define THR_POLY_A4 -3.33329491539e-1f
#define THR_POLY_QUARTER_PI 0.785398163397448309616f

// exp (Cephes expf): x = n*ln2 + r with ln2 split in two (Cody-Waite; LN2_HI
// has 9 significant bits, so n*LN2_HI is exact for |n| < 2^15), then
// e^r = 1 + r + r^2*P(r) on |r| <= ln2/2 and 2^n put in the exponent bits.
#define THR_POLY_LOG2E 1.44269504088896341f
#define THR_POLY_LN2_HI 0.693359375f
#define THR_POLY_LN2_LO -2.12194440e-4f
#define THR_POLY_E0 1.9875691500e-4f
#define THR_POLY_E1 1.3981999507e-3f
#define THR_POLY_E2 8.3334519073e-3f
#define THR_POLY_E3 4.1665795894e-2f
#define THR_POLY_E4 1.6666665459e-1f
#define THR_POLY_E5 5.0000001201e-1f
// The range where 2^n stays a normal float: below it exp is 0, above +Inf.
#define THR_POLY_EXP_LO -87.0f
#define THR_POLY_EXP_HI 88.0f

/// Rounds to the nearest integer (ties to even) for |x| < 2^22. Inline,
/// with thr_floorf and thr_wrap_angle, so that loops over agents
/// vectorise (core/angles.c).
static inline float thr_roundf(float x)
{
	// Add and subtract 1.5*2^23 with the sign of x folded in by the magic's
	// own range: valid for |x| < 2^22.
	return (x + THR_POLY_ROUND_MAGIC) - THR_POLY_ROUND_MAGIC;
}
/// Largest integer <= x, for |x| < 2^22 (round, then step down).
static inline float thr_floorf(float x)
{
	float i = thr_roundf(x);
	return i > x ? i - 1.0f : i;
}
/// sin and cos of x (radians) from one range reduction.
void thr_sincosf(float x, float* s, float* c);
float thr_sinf(float x);
float thr_cosf(float x);
/// atan2(y, x) in [-pi, pi]; atan2(0, 0) = 0.
float thr_atan2f(float y, float x);
/// e^x within 2 ulp of libm's expf on [-87, 88]; 0 below -87 (where expf
/// is at most 1.7e-38), +Inf above 88, NaN for NaN.
float thr_expf(float x);
/// x - 2*pi*round(x / (2*pi)): an angle in [-pi, pi] for |x| <= 7 (one
/// step past the range, as callers use it); farther out the rounding of
/// k*2*pi can leave it about one ulp of x outside.
static inline float thr_wrap_angle(float x)
{
	float k = thr_roundf(x * (1.0f / THR_TWO_PI));
	return x - k * THR_TWO_PI;
}

#endif
