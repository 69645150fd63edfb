// SPDX-License-Identifier: MIT
// Polynomial sin, cos, atan2 and value noise; see fmath.h for why.
//
// Every function below is a fixed sequence of float adds, multiplies,
// divisions and compares. The SIMD engine repeats the same sequence in
// lanes, replacing each branch by a select between values computed the same
// way, so the two agree to the bit.
#include "fmath.h"

#include <stdint.h>
#include <string.h>

#include "rng.h"

void thr_sincosf(float x, float* s_out, float* c_out)
{
	float k = thr_roundf(x * THR_POLY_TWO_OVER_PI);
	// r = x - k*pi/2 in three exact-ish pieces (Cody-Waite).
	float r = x - k * THR_POLY_PIO2_HI;
	r = r - k * THR_POLY_PIO2_MID;
	r = r - k * THR_POLY_PIO2_LO;
	float z = r * r;
	float sp = ((THR_POLY_S3 * z + THR_POLY_S2) * z + THR_POLY_S1) * z * r + r;
	float cp = ((THR_POLY_C3 * z + THR_POLY_C2) * z + THR_POLY_C1) * z * z - 0.5f * z + 1.0f;
	// Quadrant from k (an exact integer in float): q = k mod 4. Past the
	// int32 range (and for NaN) q is 0, as x86's truncating conversion
	// gives INT32_MIN there and the wide code copies it; the cast itself
	// would be undefined in C.
	int32_t q = fabsf(k) < 2147483648.0f ? ((int32_t)k & 3) : 0;
	float s = (q & 1) ? cp : sp;
	float c = (q & 1) ? sp : cp;
	if (q == 1 || q == 2) {
		c = -c;
	}
	if (q & 2) {
		s = -s;
	}
	*s_out = s;
	*c_out = c;
}

float thr_sinf(float x)
{
	float s, c;
	thr_sincosf(x, &s, &c);
	return s;
}

float thr_cosf(float x)
{
	float s, c;
	thr_sincosf(x, &s, &c);
	return c;
}

float thr_atan2f(float y, float x)
{
	float ax = fabsf(x);
	float ay = fabsf(y);
	float mx = ax > ay ? ax : ay;
	float mn = ax > ay ? ay : ax;
	if (mx == 0.0f) {
		return 0.0f;
	}
	float t = mn / mx; // in [0, 1]
	// Reduce t > tan(pi/8) with atan(t) = pi/4 + atan((t-1)/(t+1)).
	int big = t > THR_POLY_TAN_PI_8;
	float u = big ? (t - 1.0f) / (t + 1.0f) : t;
	float base = big ? THR_POLY_QUARTER_PI : 0.0f;
	float z = u * u;
	float a = (((THR_POLY_A1 * z + THR_POLY_A2) * z + THR_POLY_A3) * z + THR_POLY_A4) * z * u + u;
	a = a + base;
	if (ay > ax) {
		a = THR_HALF_PI - a;
	}
	if (x < 0.0f) {
		a = THR_PI - a;
	}
	if (y < 0.0f) {
		a = -a;
	}
	return a;
}

float thr_expf(float x)
{
	// Clamp first so that n stays in [-126, 127]; the clamped lanes'
	// results are replaced at the end (the wide code selects the same way).
	float xc = x < THR_POLY_EXP_LO ? THR_POLY_EXP_LO : x;
	xc = xc > THR_POLY_EXP_HI ? THR_POLY_EXP_HI : xc;
	xc = x != x ? 0.0f : xc;
	float n = thr_roundf(xc * THR_POLY_LOG2E);
	float r = xc - n * THR_POLY_LN2_HI;
	r = r - n * THR_POLY_LN2_LO;
	float z = r * r;
	float p = THR_POLY_E0 * r + THR_POLY_E1;
	p = p * r + THR_POLY_E2;
	p = p * r + THR_POLY_E3;
	p = p * r + THR_POLY_E4;
	p = p * r + THR_POLY_E5;
	float y = p * z + r + 1.0f;
	// 2^n from its exponent bits (n in [-126, 127] by the clamp).
	uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
	float scale;
	memcpy(&scale, &bits, sizeof scale);
	y = y * scale;
	y = x < THR_POLY_EXP_LO ? 0.0f : y;
	y = x > THR_POLY_EXP_HI ? INFINITY : y;
	return x != x ? x : y;
}

float thr_noise1(uint32_t key, float x)
{
	float i = thr_floorf(x);
	float f = x - i;
	int32_t ii = (int32_t)i;
	float a = thr_bits_to_pm1(thr_rng_bits(key, (uint32_t)ii, 0u, THR_STREAM_NOISE));
	float b = thr_bits_to_pm1(thr_rng_bits(key, (uint32_t)(ii + 1), 0u, THR_STREAM_NOISE));
	float s = f * f * (3.0f - 2.0f * f);
	return a + (b - a) * s;
}
