// SPDX-License-Identifier: MIT
// The bounds rule of one axis after a move (private), shared by the
// scalar pass's integration and the contact pass (the SIMD pass has its
// wide twin in simd/agents.c).
#ifndef THRONG_CORE_BOUNDS_H
#define THRONG_CORE_BOUNDS_H

#include "fmath.h"
#include "throng/throng.h"

/// Keeps one axis inside [lo, hi] after a move. Returns 1 when the
/// contain clamp had to act.
static inline int thr_bounds_axis(throng_bounds_mode mode, float* p, float* v, float lo, float hi, float wlo,
                                  float whi)
{
	switch (mode) {
	case THRONG_BOUNDS_CONTAIN:
		// The hard clamp behind the bounds steering: the centre stays in
		// [lo, hi] (the world shrunk by the radius) and the outward part of
		// the velocity is dropped, which never raises the speed.
		if (*p < lo) {
			*p = lo;
			*v = *v < 0.0f ? 0.0f : *v;
			return 1;
		}
		if (*p > hi) {
			*p = hi;
			*v = *v > 0.0f ? 0.0f : *v;
			return 1;
		}
		return 0;
	case THRONG_BOUNDS_BOUNCE:
		if (*p < lo) {
			*p = lo + (lo - *p);
			*v = -*v;
		} else if (*p > hi) {
			*p = hi - (*p - hi);
			*v = -*v;
		}
		*p = *p < lo ? lo : (*p > hi ? hi : *p);
		return 0;
	case THRONG_BOUNDS_WRAP: {
		float width = whi - wlo;
		if (*p < wlo) {
			*p = *p + width;
		} else if (*p >= whi) {
			*p = *p - width;
		}
		if (*p < wlo || *p >= whi) { // a step longer than the world
			*p = *p - width * thr_floorf((*p - wlo) / width);
			*p = *p < wlo ? wlo : (*p >= whi ? wlo : *p);
		}
		return 0;
	}
	case THRONG_BOUNDS_OPEN:
	default:
		return 0;
	}
}

#endif
