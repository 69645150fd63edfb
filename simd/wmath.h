// SPDX-License-Identifier: MIT
// Wide ports of core/fmath.c and core/rng.h (private).
//
// Each function here is the scalar function of the same name with a _w
// suffix, run in 8 lanes: the same THR_POLY_* constants, the same operations
// in the same order (a*b+c written as mul then add, never fused), and each
// scalar branch replaced by a select between the two values computed exactly
// as the scalar code computes them. So lane i of thr_sincosf_w(x) equals
// thr_sincosf(lane i of x) bit for bit; tests/test_wide.c checks this on
// ~10^6 inputs including edge values. When core/fmath.c or core/rng.h
// change, this file changes with them, operation for operation.
#ifndef THRONG_SIMD_WMATH_H
#define THRONG_SIMD_WMATH_H

#include <stdint.h>

#include "fmath.h"
#include "rng.h"
#include "wide.h"

/// thr_roundf: (x + 1.5*2^23) - 1.5*2^23, nearest integer (ties to even)
/// for |x| < 2^22.
THR_WIDE_INLINE thr_fw thr_roundf_w(thr_fw x)
{
	thr_fw magic = thr_fw_set1(THR_POLY_ROUND_MAGIC);
	return thr_fw_sub(thr_fw_add(x, magic), magic);
}

/// thr_floorf: the largest integer <= x for |x| < 2^22 (round, then step
/// down where rounding went up).
THR_WIDE_INLINE thr_fw thr_floorf_w(thr_fw x)
{
	thr_fw i = thr_roundf_w(x);
	return thr_fw_select(thr_fw_gt(i, x), thr_fw_sub(i, thr_fw_set1(1.0f)), i);
}

/// thr_sincosf: sin and cos of x (radians) from one range reduction.
THR_WIDE_INLINE void thr_sincosf_w(thr_fw x, thr_fw* s_out, thr_fw* c_out)
{
	thr_fw k = thr_roundf_w(thr_fw_mul(x, thr_fw_set1(THR_POLY_TWO_OVER_PI)));
	thr_fw r = thr_fw_sub(x, thr_fw_mul(k, thr_fw_set1(THR_POLY_PIO2_HI)));
	r = thr_fw_sub(r, thr_fw_mul(k, thr_fw_set1(THR_POLY_PIO2_MID)));
	r = thr_fw_sub(r, thr_fw_mul(k, thr_fw_set1(THR_POLY_PIO2_LO)));
	thr_fw z = thr_fw_mul(r, r);

	// sp = ((S3*z + S2)*z + S1)*z*r + r
	thr_fw sp = thr_fw_add(thr_fw_mul(thr_fw_set1(THR_POLY_S3), z), thr_fw_set1(THR_POLY_S2));
	sp = thr_fw_add(thr_fw_mul(sp, z), thr_fw_set1(THR_POLY_S1));
	sp = thr_fw_add(thr_fw_mul(thr_fw_mul(sp, z), r), r);

	// cp = ((C3*z + C2)*z + C1)*z*z - 0.5*z + 1
	thr_fw cp = thr_fw_add(thr_fw_mul(thr_fw_set1(THR_POLY_C3), z), thr_fw_set1(THR_POLY_C2));
	cp = thr_fw_add(thr_fw_mul(cp, z), thr_fw_set1(THR_POLY_C1));
	cp = thr_fw_sub(thr_fw_mul(thr_fw_mul(cp, z), z), thr_fw_mul(thr_fw_set1(0.5f), z));
	cp = thr_fw_add(cp, thr_fw_set1(1.0f));

	// q = (int32_t)k & 3 (k out of int range gives INT32_MIN, q = 0, as the
	// scalar cast does on x86).
	thr_iw q = thr_iw_and(thr_fw_to_iw_trunc(k), thr_iw_set1(3));
	thr_iw one = thr_iw_set1(1);
	thr_iw two = thr_iw_set1(2);
	thr_mw odd = thr_iw_eq(thr_iw_and(q, one), one);
	thr_fw s = thr_fw_select(odd, cp, sp);
	thr_fw c = thr_fw_select(odd, sp, cp);
	thr_mw neg_c = thr_mw_or(thr_iw_eq(q, one), thr_iw_eq(q, two));
	c = thr_fw_select(neg_c, thr_fw_neg(c), c);
	thr_mw neg_s = thr_iw_eq(thr_iw_and(q, two), two);
	s = thr_fw_select(neg_s, thr_fw_neg(s), s);
	*s_out = s;
	*c_out = c;
}

THR_WIDE_INLINE thr_fw thr_sinf_w(thr_fw x)
{
	thr_fw s, c;
	thr_sincosf_w(x, &s, &c);
	return s;
}

THR_WIDE_INLINE thr_fw thr_cosf_w(thr_fw x)
{
	thr_fw s, c;
	thr_sincosf_w(x, &s, &c);
	return c;
}

/// thr_atan2f: atan2(y, x) in [-pi, pi]; atan2(+-0, +-0) = +0.
THR_WIDE_INLINE thr_fw thr_atan2f_w(thr_fw y, thr_fw x)
{
	thr_fw ax = thr_fw_abs(x);
	thr_fw ay = thr_fw_abs(y);
	thr_mw x_wins = thr_fw_gt(ax, ay);
	thr_fw mx = thr_fw_select(x_wins, ax, ay);
	thr_fw mn = thr_fw_select(x_wins, ay, ax);
	thr_mw origin = thr_fw_eq(mx, thr_fw_zero()); // the scalar early return
	thr_fw one = thr_fw_set1(1.0f);
	thr_fw t = thr_fw_div(mn, mx);
	thr_mw big = thr_fw_gt(t, thr_fw_set1(THR_POLY_TAN_PI_8));
	thr_fw u = thr_fw_select(big, thr_fw_div(thr_fw_sub(t, one), thr_fw_add(t, one)), t);
	thr_fw base = thr_fw_select(big, thr_fw_set1(THR_POLY_QUARTER_PI), thr_fw_zero());
	thr_fw z = thr_fw_mul(u, u);

	// a = (((A1*z + A2)*z + A3)*z + A4)*z*u + u, then a + base (always added,
	// so a = -0 becomes +0 when base is 0, as in the scalar code)
	thr_fw a = thr_fw_add(thr_fw_mul(thr_fw_set1(THR_POLY_A1), z), thr_fw_set1(THR_POLY_A2));
	a = thr_fw_add(thr_fw_mul(a, z), thr_fw_set1(THR_POLY_A3));
	a = thr_fw_add(thr_fw_mul(a, z), thr_fw_set1(THR_POLY_A4));
	a = thr_fw_add(thr_fw_mul(thr_fw_mul(a, z), u), u);
	a = thr_fw_add(a, base);

	a = thr_fw_select(thr_fw_gt(ay, ax), thr_fw_sub(thr_fw_set1(THR_HALF_PI), a), a);
	a = thr_fw_select(thr_fw_lt(x, thr_fw_zero()), thr_fw_sub(thr_fw_set1(THR_PI), a), a);
	a = thr_fw_select(thr_fw_lt(y, thr_fw_zero()), thr_fw_neg(a), a);
	return thr_fw_select(origin, thr_fw_zero(), a);
}

/// thr_expf: the same clamp, reduction, polynomial and exponent bits.
THR_WIDE_INLINE thr_fw thr_expf_w(thr_fw x)
{
	const thr_fw lo = thr_fw_set1(THR_POLY_EXP_LO);
	const thr_fw hi = thr_fw_set1(THR_POLY_EXP_HI);
	const thr_mw nan = thr_fw_neq(x, x);
	thr_fw xc = thr_fw_select(thr_fw_lt(x, lo), lo, x);
	xc = thr_fw_select(thr_fw_gt(xc, hi), hi, xc);
	xc = thr_fw_select(nan, thr_fw_zero(), xc);
	thr_fw n = thr_roundf_w(thr_fw_mul(xc, thr_fw_set1(THR_POLY_LOG2E)));
	thr_fw r = thr_fw_sub(xc, thr_fw_mul(n, thr_fw_set1(THR_POLY_LN2_HI)));
	r = thr_fw_sub(r, thr_fw_mul(n, thr_fw_set1(THR_POLY_LN2_LO)));
	thr_fw z = thr_fw_mul(r, r);
	thr_fw p = thr_fw_add(thr_fw_mul(thr_fw_set1(THR_POLY_E0), r), thr_fw_set1(THR_POLY_E1));
	p = thr_fw_add(thr_fw_mul(p, r), thr_fw_set1(THR_POLY_E2));
	p = thr_fw_add(thr_fw_mul(p, r), thr_fw_set1(THR_POLY_E3));
	p = thr_fw_add(thr_fw_mul(p, r), thr_fw_set1(THR_POLY_E4));
	p = thr_fw_add(thr_fw_mul(p, r), thr_fw_set1(THR_POLY_E5));
	thr_fw y = thr_fw_add(thr_fw_add(thr_fw_mul(p, z), r), thr_fw_set1(1.0f));
	thr_iw bits = thr_iw_sll(thr_iw_add(thr_fw_to_iw_trunc(n), thr_iw_set1(127)), 23);
	y = thr_fw_mul(y, thr_iw_as_fw(bits));
	y = thr_fw_select(thr_fw_lt(x, lo), thr_fw_zero(), y);
	y = thr_fw_select(thr_fw_gt(x, hi), thr_fw_set1(INFINITY), y);
	return thr_fw_select(nan, x, y);
}

/// thr_wrap_angle: x - 2*pi*round(x / (2*pi)), an angle in [-pi, pi] for
/// |x| <= 7 (see fmath.h).
THR_WIDE_INLINE thr_fw thr_wrap_angle_w(thr_fw x)
{
	thr_fw k = thr_roundf_w(thr_fw_mul(x, thr_fw_set1(1.0f / THR_TWO_PI)));
	return thr_fw_sub(x, thr_fw_mul(k, thr_fw_set1(THR_TWO_PI)));
}

// ---------------------------------------------------------------- rng

/// thr_mix32 in every lane (uint32 arithmetic).
THR_WIDE_INLINE thr_iw thr_mix32_w(thr_iw x)
{
	x = thr_iw_xor(x, thr_iw_srl(x, 16));
	x = thr_iw_mul(x, thr_iw_set1((int32_t)0x7feb352du));
	x = thr_iw_xor(x, thr_iw_srl(x, 15));
	x = thr_iw_mul(x, thr_iw_set1((int32_t)0x846ca68bu));
	x = thr_iw_xor(x, thr_iw_srl(x, 16));
	return x;
}

/// thr_rng_bits(key, a, b, stream) per lane; key, a and b hold uint32 bits.
THR_WIDE_INLINE thr_iw thr_rng_bits_w(thr_iw key, thr_iw a, thr_iw b, uint32_t stream)
{
	thr_iw salt = thr_iw_set1((int32_t)(stream * 0x9e3779b9u));
	return thr_mix32_w(thr_iw_xor(thr_mix32_w(thr_iw_xor(thr_mix32_w(thr_iw_xor(key, a)), b)), salt));
}

/// thr_bits_to_unit: the top 24 bits as a float in [0, 1); exact.
THR_WIDE_INLINE thr_fw thr_bits_to_unit_w(thr_iw bits)
{
	return thr_fw_mul(thr_iw_to_fw(thr_iw_srl(bits, 8)), thr_fw_set1(1.0f / 16777216.0f));
}

/// thr_bits_to_pm1: 2u - 1 in [-1, 1); exact.
THR_WIDE_INLINE thr_fw thr_bits_to_pm1_w(thr_iw bits)
{
	return thr_fw_sub(thr_fw_mul(thr_bits_to_unit_w(bits), thr_fw_set1(2.0f)), thr_fw_set1(1.0f));
}

/// thr_noise1: smooth 1D value noise in [-1, 1] at x for each lane's key.
THR_WIDE_INLINE thr_fw thr_noise1_w(thr_iw key, thr_fw x)
{
	thr_fw i = thr_floorf_w(x);
	thr_fw f = thr_fw_sub(x, i);
	thr_iw ii = thr_fw_to_iw_trunc(i);
	thr_iw zero = thr_iw_zero();
	thr_fw a = thr_bits_to_pm1_w(thr_rng_bits_w(key, ii, zero, THR_STREAM_NOISE));
	thr_fw b = thr_bits_to_pm1_w(
		thr_rng_bits_w(key, thr_iw_add(ii, thr_iw_set1(1)), zero, THR_STREAM_NOISE));
	// s = f*f*(3 - 2f); a + (b - a)*s
	thr_fw s = thr_fw_mul(thr_fw_mul(f, f), thr_fw_sub(thr_fw_set1(3.0f), thr_fw_mul(thr_fw_set1(2.0f), f)));
	return thr_fw_add(a, thr_fw_mul(thr_fw_sub(b, a), s));
}

#endif
