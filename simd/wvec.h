// SPDX-License-Identifier: MIT
// 2D vectors of 8 lanes (private): the wide twins of core/vec.h.
//
// Each helper performs, per lane, exactly the float operations of its
// scalar twin in the same order (multiply then add, true sqrt and
// division, branches as selects), so a lane equals the scalar result bit
// for bit. Change both files together.
#ifndef THRONG_SIMD_WVEC_H
#define THRONG_SIMD_WVEC_H

#include "vec.h"
#include "wide.h"

typedef struct thr_v2w {
	thr_fw x, y;
} thr_v2w;

THR_WIDE_INLINE thr_v2w v2w(thr_fw x, thr_fw y) { return (thr_v2w){x, y}; }
THR_WIDE_INLINE thr_v2w v2w_zero(void) { return v2w(thr_fw_zero(), thr_fw_zero()); }
THR_WIDE_INLINE thr_v2w v2w_set1(vec2 a) { return v2w(thr_fw_set1(a.x), thr_fw_set1(a.y)); }
THR_WIDE_INLINE thr_v2w v2w_add(thr_v2w a, thr_v2w b) { return v2w(thr_fw_add(a.x, b.x), thr_fw_add(a.y, b.y)); }
THR_WIDE_INLINE thr_v2w v2w_sub(thr_v2w a, thr_v2w b) { return v2w(thr_fw_sub(a.x, b.x), thr_fw_sub(a.y, b.y)); }
THR_WIDE_INLINE thr_v2w v2w_scale(thr_v2w a, thr_fw s) { return v2w(thr_fw_mul(a.x, s), thr_fw_mul(a.y, s)); }
THR_WIDE_INLINE thr_fw v2w_dot(thr_v2w a, thr_v2w b)
{
	return thr_fw_add(thr_fw_mul(a.x, b.x), thr_fw_mul(a.y, b.y));
}
THR_WIDE_INLINE thr_fw v2w_length(thr_v2w a) { return thr_fw_sqrt(v2w_dot(a, a)); }
THR_WIDE_INLINE thr_v2w v2w_perp(thr_v2w a) { return v2w(thr_fw_neg(a.y), a.x); }
THR_WIDE_INLINE thr_v2w v2w_select(thr_mw m, thr_v2w a, thr_v2w b)
{
	return v2w(thr_fw_select(m, a.x, b.x), thr_fw_select(m, a.y, b.y));
}

/// v2_unit: a * (1 / len), one division for both components.
THR_WIDE_INLINE thr_v2w v2w_unit(thr_v2w a, thr_fw len)
{
	return v2w_scale(a, thr_fw_div(thr_fw_set1(1.0f), len));
}

/// v2_resize: a * (m / len), and (0,0) where len == 0.
THR_WIDE_INLINE thr_v2w v2w_resize(thr_v2w a, thr_fw len, thr_fw m)
{
	return v2w_select(thr_fw_eq(len, thr_fw_zero()), v2w_zero(), v2w_scale(a, thr_fw_div(m, len)));
}

/// v2_normalize: a * (1 / len), and (0,0) where len == 0.
THR_WIDE_INLINE thr_v2w v2w_normalize(thr_v2w a)
{
	thr_fw len = v2w_length(a);
	return v2w_select(thr_fw_eq(len, thr_fw_zero()), v2w_zero(), v2w_unit(a, len));
}

/// v2_limit: a * (m / len) where len > m, else a. The division runs only
/// where some lane is longer than m (the other lanes keep a either way).
THR_WIDE_INLINE thr_v2w v2w_limit(thr_v2w a, thr_fw m)
{
	thr_fw len = v2w_length(a);
	thr_mw over = thr_fw_gt(len, m);
	if (!thr_mw_any(over)) {
		return a;
	}
	return v2w_select(over, v2w_scale(a, thr_fw_div(m, len)), a);
}

/// Lanes where both components are finite (x - x is 0 only for finite x).
THR_WIDE_INLINE thr_mw v2w_isfinite(thr_v2w a)
{
	thr_fw z = thr_fw_zero();
	return thr_mw_and(thr_fw_eq(thr_fw_sub(a.x, a.x), z), thr_fw_eq(thr_fw_sub(a.y, a.y), z));
}

#endif
