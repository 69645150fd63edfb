// SPDX-License-Identifier: MIT
// The wide layer (simd/wide.h) and the wide math (simd/wmath.h).
//
// Each op is checked lane by lane against its scalar C meaning on edge values
// (signed zeros, denormals, infinities, NaN, int extremes, tails), and the
// wide sin/cos/atan2/wrap/noise and random generator against the scalar
// functions of core/ on about 10^6 inputs: they must agree bit for bit. A
// NaN result only has to be a NaN in both (wide.h: payloads are not
// promised). Built once per THRONG_SIMD backend; scripts/check_simd_builds
// runs all three.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmath.h"
#include "rng.h"
#include "wide.h"
#include "wmath.h"

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/// Equal bits, or both NaN.
static int same(float a, float b) { return fbits(a) == fbits(b) || (isnan(a) && isnan(b)); }

/// Test-local random stream (splitmix64), independent of the code under test.
static uint32_t next_u32(uint64_t* state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float next_unit(uint64_t* state) { return (float)(next_u32(state) >> 8) * (1.0f / 16777216.0f); }

// Edge values every float op meets.
static const float edges[] = {
	0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 3.0f, 0.49999997f,
	FLT_MIN, -FLT_MIN, 1.0e-40f, -1.0e-40f, 1.4e-45f, -1.4e-45f, FLT_EPSILON,
	FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, -NAN,
	THR_PI, -THR_PI, THR_HALF_PI, THR_TWO_PI, 0.41421356f, 1.0e-7f, 7.0f,
	4194304.0f, 8388608.0f, 12582912.0f, 16777217.0f, 2147483648.0f, -2147483648.0f,
	1.0e10f, -1.0e20f, 3.0e38f,
};
#define N_EDGES ((int)(sizeof edges / sizeof edges[0]))

/// Fills out[0..n) with the edge values, multiples of pi/4 and their
/// neighbours, then random values of every magnitude (random bit patterns)
/// and of the ranges the engine uses.
static void make_inputs(float* out, int n, uint64_t seed)
{
	int k = 0;
	for (int i = 0; i < N_EDGES && k < n; ++i) {
		out[k++] = edges[i];
	}
	for (int m = -400; m <= 400 && k + 3 <= n; ++m) {
		float v = (float)m * (THR_PI / 4.0f);
		out[k++] = v;
		out[k++] = nextafterf(v, INFINITY);
		out[k++] = nextafterf(v, -INFINITY);
	}
	uint64_t st = seed;
	while (k < n) {
		uint32_t r = next_u32(&st);
		switch (r & 3u) {
		case 0: out[k] = bitsf(next_u32(&st)); break;                    // anything
		case 1: out[k] = (next_unit(&st) * 2.0f - 1.0f) * 10.0f; break;  // angles
		case 2: out[k] = (next_unit(&st) * 2.0f - 1.0f) * 1.0e4f; break; // far angles
		default: out[k] = (next_unit(&st) * 2.0f - 1.0f) * 4.0e6f; break;
		}
		++k;
	}
}

// ---------------------------------------------------------------- the layer

Test(wide, backend_matches_the_build)
{
	cr_assert_str_neq(THR_WIDE_BACKEND, "other");
#ifdef THRONG_SIMD_BACKEND
	cr_assert_str_eq(THR_WIDE_BACKEND, THRONG_SIMD_BACKEND,
		"wide.h sees backend %s but CMake asked for %s", THR_WIDE_BACKEND, THRONG_SIMD_BACKEND);
#endif
}

/// Lane i of a mask as 0 or 1.
#define mask_lane(m, i) ((thr_mw_movemask(m) >> (i)) & 1)

Test(wide, float_ops_match_scalar_on_edges)
{
	// Every ordered pair of edge values, eight pairs per wide op.
	float a[8], b[8];
	int n = 0;
	for (int i = 0; i < N_EDGES; ++i) {
		for (int j = 0; j < N_EDGES; ++j) {
			a[n] = edges[i];
			b[n] = edges[j];
			if (++n < 8 && !(i == N_EDGES - 1 && j == N_EDGES - 1)) {
				continue;
			}
			thr_fw wa = thr_fw_load_tail(a, n, 1.0f), wb = thr_fw_load_tail(b, n, 1.0f);
			for (int l = 0; l < n; ++l) {
				float x = a[l], y = b[l];
				cr_assert(same(thr_fw_lane(thr_fw_add(wa, wb), l), x + y), "add %a %a", x, y);
				cr_assert(same(thr_fw_lane(thr_fw_sub(wa, wb), l), x - y), "sub %a %a", x, y);
				cr_assert(same(thr_fw_lane(thr_fw_mul(wa, wb), l), x * y), "mul %a %a", x, y);
				cr_assert(same(thr_fw_lane(thr_fw_div(wa, wb), l), x / y), "div %a %a", x, y);
				cr_assert(same(thr_fw_lane(thr_fw_sqrt(wa), l), sqrtf(x)), "sqrt %a", x);
				// min, max, abs, neg and select are exact: all bits, NaN too.
				cr_assert_eq(fbits(thr_fw_lane(thr_fw_min(wa, wb), l)), fbits(x < y ? x : y), "min %a %a", x, y);
				cr_assert_eq(fbits(thr_fw_lane(thr_fw_max(wa, wb), l)), fbits(x > y ? x : y), "max %a %a", x, y);
				cr_assert_eq(fbits(thr_fw_lane(thr_fw_abs(wa), l)), fbits(fabsf(x)), "abs %a", x);
				cr_assert_eq(fbits(thr_fw_lane(thr_fw_neg(wa), l)), fbits(-x), "neg %a", x);
				cr_assert_eq(mask_lane(thr_fw_lt(wa, wb), l), x < y, "lt %a %a", x, y);
				cr_assert_eq(mask_lane(thr_fw_le(wa, wb), l), x <= y, "le %a %a", x, y);
				cr_assert_eq(mask_lane(thr_fw_gt(wa, wb), l), x > y, "gt %a %a", x, y);
				cr_assert_eq(mask_lane(thr_fw_ge(wa, wb), l), x >= y, "ge %a %a", x, y);
				cr_assert_eq(mask_lane(thr_fw_eq(wa, wb), l), x == y, "eq %a %a", x, y);
				cr_assert_eq(mask_lane(thr_fw_neq(wa, wb), l), x != y, "neq %a %a", x, y);
				thr_fw sel = thr_fw_select(thr_fw_lt(wa, wb), wa, wb);
				cr_assert_eq(fbits(thr_fw_lane(sel, l)), fbits(x < y ? x : y), "select %a %a", x, y);
			}
			n = 0;
		}
	}
}

Test(wide, masks_are_all_or_nothing_per_lane)
{
	thr_fw a = thr_fw_setr(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
	thr_mw lo = thr_fw_lt(a, thr_fw_set1(4.0f));   // lanes 0-3
	thr_mw even = thr_iw_eq(thr_iw_and(thr_iw_iota(), thr_iw_set1(1)), thr_iw_zero());
	cr_assert_eq(thr_mw_movemask(lo), 0x0f);
	cr_assert_eq(thr_mw_movemask(even), 0x55);
	cr_assert_eq(thr_mw_movemask(thr_mw_and(lo, even)), 0x05);
	cr_assert_eq(thr_mw_movemask(thr_mw_or(lo, even)), 0x5f);
	cr_assert_eq(thr_mw_movemask(thr_mw_xor(lo, even)), 0x5a);
	cr_assert_eq(thr_mw_movemask(thr_mw_andnot(lo, even)), 0x0a);
	cr_assert_eq(thr_mw_movemask(thr_mw_not(lo)), 0xf0);
	cr_assert_eq(thr_mw_movemask(thr_mw_true()), 0xff);
	cr_assert_eq(thr_mw_movemask(thr_mw_false()), 0x00);
	cr_assert(thr_mw_any(lo) && !thr_mw_all(lo));
	cr_assert(thr_mw_all(thr_mw_true()) && !thr_mw_any(thr_mw_false()));
	for (int l = 0; l < 8; ++l) {
		int32_t bits = thr_iw_lane(thr_mw_as_iw(thr_mw_xor(lo, even)), l);
		cr_assert(bits == 0 || bits == -1, "lane %d holds %08x", l, (unsigned)bits);
	}
	// Tail masks: lanes below count.
	for (int count = -2; count <= 10; ++count) {
		int want = count <= 0 ? 0 : count >= 8 ? 0xff : (1 << count) - 1;
		cr_assert_eq(thr_mw_movemask(thr_mw_first(count)), want, "first(%d)", count);
	}
	// select between ints and the mask round trip through ints.
	thr_iw s = thr_iw_select(even, thr_iw_iota(), thr_iw_set1(-7));
	for (int l = 0; l < 8; ++l) {
		cr_assert_eq(thr_iw_lane(s, l), l % 2 == 0 ? l : -7);
	}
	cr_assert_eq(thr_mw_movemask(thr_mw_from_iw(thr_mw_as_iw(lo))), 0x0f);
	cr_assert_eq(fbits(thr_fw_lane(thr_mw_as_fw(lo), 0)), 0xffffffffu);
}

Test(wide, loads_and_stores)
{
	_Alignas(64) float buf[24];
	_Alignas(64) int32_t ibuf[24];
	for (int i = 0; i < 24; ++i) {
		buf[i] = (float)i + 0.25f;
		ibuf[i] = i * 1000 - 3;
	}
	thr_fw a = thr_fw_load(buf + 8);
	thr_fw u = thr_fw_loadu(buf + 3);
	thr_iw ia = thr_iw_load(ibuf + 8);
	thr_iw iu = thr_iw_loadu(ibuf + 5);
	for (int l = 0; l < 8; ++l) {
		cr_assert_eq(thr_fw_lane(a, l), buf[8 + l]);
		cr_assert_eq(thr_fw_lane(u, l), buf[3 + l]);
		cr_assert_eq(thr_iw_lane(ia, l), ibuf[8 + l]);
		cr_assert_eq(thr_iw_lane(iu, l), ibuf[5 + l]);
	}
	_Alignas(64) float out[24] = {0};
	_Alignas(64) int32_t iout[24] = {0};
	thr_fw_store(out + 8, u);
	thr_fw_storeu(out + 1, a);
	thr_iw_store(iout + 16, iu);
	thr_iw_storeu(iout + 2, ia);
	cr_assert_eq(memcmp(out + 8 + 1, buf + 3 + 1, 7 * sizeof(float)), 0);
	cr_assert_eq(memcmp(out + 1, buf + 8, 8 * sizeof(float)), 0);
	cr_assert_eq(memcmp(iout + 16, ibuf + 5, 8 * sizeof(int32_t)), 0);
	cr_assert_eq(memcmp(iout + 2, ibuf + 8, 8 * sizeof(int32_t)), 0);

	// Tails: a heap block of exactly count elements, so an over-read shows
	// under AddressSanitizer; lanes past count hold the fill value.
	for (int count = 0; count <= 8; ++count) {
		float* p = malloc(sizeof(float) * (size_t)(count > 0 ? count : 1));
		int32_t* q = malloc(sizeof(int32_t) * (size_t)(count > 0 ? count : 1));
		for (int i = 0; i < count; ++i) {
			p[i] = -(float)i;
			q[i] = i + 100;
		}
		thr_fw t = thr_fw_load_tail(p, count, 42.0f);
		thr_iw it = thr_iw_load_tail(q, count, -9);
		for (int l = 0; l < 8; ++l) {
			cr_assert_eq(fbits(thr_fw_lane(t, l)), fbits(l < count ? -(float)l : 42.0f), "count %d", count);
			cr_assert_eq(thr_iw_lane(it, l), l < count ? l + 100 : -9, "count %d", count);
		}
		float dst[9];
		for (int i = 0; i < 9; ++i) {
			dst[i] = 7.0f;
		}
		thr_fw_store_tail(dst, thr_fw_set1(3.0f), count);
		for (int i = 0; i < 9; ++i) {
			cr_assert_eq(dst[i], i < count ? 3.0f : 7.0f, "store_tail %d", count);
		}
		free(p);
		free(q);
	}
	cr_assert_eq(fbits(thr_fw_lane(thr_fw_zero(), 5)), 0u);
	cr_assert_eq(thr_fw_lane(thr_fw_set1(-2.5f), 7), -2.5f);
	cr_assert_eq(thr_iw_lane(thr_iw_set1(-4), 3), -4);
	cr_assert_eq(thr_iw_lane(thr_iw_setr(9, 8, 7, 6, 5, 4, 3, 2), 6), 3);
}

Test(wide, gathers_load_each_lane_exactly)
{
	float base[64];
	int32_t ibase[64];
	for (int i = 0; i < 64; ++i) {
		base[i] = i == 5 ? NAN : i == 9 ? -0.0f : (float)i * 1.5f - 20.0f;
		ibase[i] = (int32_t)((uint32_t)i * 0x9e3779b9u);
	}
	thr_iw idx = thr_iw_setr(63, 0, 5, 9, 9, 31, 1, 62);
	thr_fw g = thr_fw_gather(base, idx);
	thr_iw gi = thr_iw_gather(ibase, idx);
	for (int l = 0; l < 8; ++l) {
		int32_t i = thr_iw_lane(idx, l);
		cr_assert_eq(fbits(thr_fw_lane(g, l)), fbits(base[i]), "lane %d", l);
		cr_assert_eq(thr_iw_lane(gi, l), ibase[i], "lane %d", l);
	}
}

static float hsum_ref(const float* l)
{
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

Test(wide, hsum_adds_in_the_documented_order)
{
	// 2^24 + 1 rounds back to 2^24, so the order shows: left to right gives
	// 3, the documented tree 6.
	float l[8] = {16777216.0f, 1.0f, 1.0f, 1.0f, -16777216.0f, 1.0f, 1.0f, 1.0f};
	float seq = 0.0f;
	for (int i = 0; i < 8; ++i) {
		seq += l[i];
	}
	cr_assert_eq(seq, 3.0f);
	cr_assert_eq(thr_fw_hsum(thr_fw_loadu(l)), 6.0f);
	cr_assert_eq(hsum_ref(l), 6.0f);
	// And on random lanes of mixed magnitude, bit for bit.
	uint64_t st = 11;
	for (int k = 0; k < 20000; ++k) {
		for (int i = 0; i < 8; ++i) {
			float m = (next_u32(&st) & 1u) ? 1.0e7f : 1.0f;
			l[i] = (next_unit(&st) * 2.0f - 1.0f) * m;
		}
		cr_assert_eq(fbits(thr_fw_hsum(thr_fw_loadu(l))), fbits(hsum_ref(l)), "case %d", k);
	}
	// -0 lanes sum to -0 only if every partial sum is -0.
	cr_assert_eq(fbits(thr_fw_hsum(thr_fw_set1(-0.0f))), fbits(-0.0f));
}

Test(wide, int_ops_wrap_like_uint32)
{
	static const uint32_t iedge[] = {
		0u, 1u, 2u, 3u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x7feb352du, 0x846ca68bu,
		0x9e3779b9u, 0x00010000u, 0xdeadbeefu, 12345u, 0xfffffffeu, 0x55555555u, 0xaaaaaaaau,
	};
	const int n = (int)(sizeof iedge / sizeof iedge[0]);
	uint64_t st = 5;
	for (int rep = 0; rep < 2000; ++rep) {
		uint32_t a[8], b[8];
		for (int l = 0; l < 8; ++l) {
			a[l] = rep < n * n / 8 ? iedge[(rep * 8 + l) / n % n] : next_u32(&st);
			b[l] = rep < n * n / 8 ? iedge[(rep * 8 + l) % n] : next_u32(&st);
		}
		thr_iw wa = thr_iw_loadu((const int32_t*)a), wb = thr_iw_loadu((const int32_t*)b);
		int sh = rep % 32;
		for (int l = 0; l < 8; ++l) {
			uint32_t x = a[l], y = b[l];
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_add(wa, wb), l), x + y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_sub(wa, wb), l), x - y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_mul(wa, wb), l), x * y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_and(wa, wb), l), x & y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_or(wa, wb), l), x | y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_xor(wa, wb), l), x ^ y);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_srl(wa, sh), l), x >> sh, "srl %d", sh);
			cr_assert_eq((uint32_t)thr_iw_lane(thr_iw_sll(wa, sh), l), x << sh, "sll %d", sh);
			int32_t sx = (int32_t)x, sy = (int32_t)y;
			int32_t sra = sx < 0 ? (int32_t)~(~x >> sh) : (int32_t)(x >> sh);
			cr_assert_eq(thr_iw_lane(thr_iw_sra(wa, sh), l), sra, "sra %d", sh);
			cr_assert_eq(mask_lane(thr_iw_eq(wa, wb), l), sx == sy);
			cr_assert_eq(mask_lane(thr_iw_gt(wa, wb), l), sx > sy);
			cr_assert_eq(mask_lane(thr_iw_lt(wa, wb), l), sx < sy);
		}
	}
	cr_assert_eq(thr_iw_lane(thr_iw_srl(thr_iw_set1(-1), 31), 0), 1);
	cr_assert_eq(thr_iw_lane(thr_iw_sra(thr_iw_set1(INT32_MIN), 31), 0), -1);
}

/// The C cast where it is defined, else x86's "integer indefinite".
static int32_t trunc_ref(float f)
{
	return (f >= -2147483648.0f && f < 2147483648.0f) ? (int32_t)f : INT32_MIN;
}

Test(wide, conversions_and_casts)
{
	static const int32_t ints[] = {
		0, 1, -1, 16777216, 16777217, -16777217, 16777219, INT32_MAX, INT32_MIN, 2147483520,
		-2147483520, 0x7fffffbf, 0x7fffffc0, 123456789, -987654321, 3,
	};
	for (int k = 0; k < 2; ++k) {
		thr_fw f = thr_iw_to_fw(thr_iw_loadu(ints + 8 * k));
		for (int l = 0; l < 8; ++l) {
			cr_assert_eq(fbits(thr_fw_lane(f, l)), fbits((float)ints[8 * k + l]), "%d", ints[8 * k + l]);
		}
	}
	float fl[N_EDGES + 16];
	memcpy(fl, edges, sizeof edges);
	const float more[16] = {
		-1.5f, 1.5f, 0.99999994f, -0.99999994f, 2147483520.0f, -2147483520.0f,
		-2147483904.0f, 2.1e9f, -2.1e9f, 8388607.5f, -8388607.5f, 1.0e-30f, 65536.5f,
		-65536.5f, 4.9999995f, 1.0e9f,
	};
	memcpy(fl + N_EDGES, more, sizeof more);
	for (int k = 0; k < N_EDGES + 16; k += 8) {
		int cnt = N_EDGES + 16 - k < 8 ? N_EDGES + 16 - k : 8;
		thr_fw w = thr_fw_load_tail(fl + k, cnt, 0.0f);
		thr_iw t = thr_fw_to_iw_trunc(w);
		thr_iw asi = thr_fw_as_iw(w);
		thr_fw back = thr_iw_as_fw(asi);
		for (int l = 0; l < cnt; ++l) {
			float x = fl[k + l];
			cr_assert_eq(thr_iw_lane(t, l), trunc_ref(x), "trunc %a", x);
			cr_assert_eq((uint32_t)thr_iw_lane(asi, l), fbits(x), "as_iw %a", x);
			cr_assert_eq(fbits(thr_fw_lane(back, l)), fbits(x), "as_fw %a", x);
		}
	}
}

// ---------------------------------------------------------------- the math

#define N_SIN (1 << 18)
#define N_ATAN (1 << 18)
#define N_WRAP (1 << 17)
#define N_NOISE (1 << 17)
#define N_RNG (1 << 17)

Test(wmath, sincos_matches_scalar)
{
	float* x = malloc(sizeof(float) * N_SIN);
	make_inputs(x, N_SIN, 1);
	for (int k = 0; k < N_SIN; k += 8) {
		thr_fw s, c;
		thr_fw w = thr_fw_loadu(x + k);
		thr_sincosf_w(w, &s, &c);
		thr_fw s2 = thr_sinf_w(w), c2 = thr_cosf_w(w);
		for (int l = 0; l < 8; ++l) {
			float rs, rc;
			thr_sincosf(x[k + l], &rs, &rc);
			if (!same(thr_fw_lane(s, l), rs) || !same(thr_fw_lane(c, l), rc)) {
				cr_assert_fail("sincos(%a): wide %a %a, scalar %a %a", x[k + l],
					thr_fw_lane(s, l), thr_fw_lane(c, l), rs, rc);
			}
			if (!same(thr_fw_lane(s2, l), rs) || !same(thr_fw_lane(c2, l), rc)) {
				cr_assert_fail("sinf/cosf(%a) differ from sincos", x[k + l]);
			}
		}
	}
	free(x);
}

Test(wmath, atan2_matches_scalar)
{
	// Axes, (0,0) with every sign, diagonals, all quadrants and the tan(pi/8)
	// switch, then random pairs.
	static const float special[] = {
		0.0f, -0.0f, 1.0f, -1.0f, 0.41421356f, 0.41421354f, 0.4142136f, 2.4142137f,
		1.0e-40f, -1.0e-40f, 1.4e-45f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN,
		3.0f, -3.0f, 1.0e20f, -1.0e-20f, 0.70710677f, 1.0e-3f,
	};
	const int ns = (int)(sizeof special / sizeof special[0]);
	float* y = malloc(sizeof(float) * N_ATAN);
	float* x = malloc(sizeof(float) * N_ATAN);
	int k = 0;
	for (int i = 0; i < ns; ++i) {
		for (int j = 0; j < ns; ++j) {
			y[k] = special[i];
			x[k++] = special[j];
		}
	}
	uint64_t st = 2;
	while (k < N_ATAN) {
		uint32_t r = next_u32(&st);
		float a = (next_unit(&st) * 2.0f - 1.0f) * 10.0f;
		float b = (next_unit(&st) * 2.0f - 1.0f) * 10.0f;
		switch (r % 5u) {
		case 0: y[k] = a; x[k] = b; break;
		case 1: y[k] = bitsf(next_u32(&st)); x[k] = bitsf(next_u32(&st)); break;
		case 2: y[k] = (r & 8u) ? a : ((r & 16u) ? 0.0f : -0.0f); x[k] = (r & 8u) ? ((r & 16u) ? 0.0f : -0.0f) : b; break;
		case 3: y[k] = a; x[k] = (r & 32u) ? a : -a; break; // diagonals
		default: y[k] = a * 1.0e-30f; x[k] = b * 1.0e25f; break;
		}
		++k;
	}
	for (k = 0; k < N_ATAN; k += 8) {
		thr_fw w = thr_atan2f_w(thr_fw_loadu(y + k), thr_fw_loadu(x + k));
		for (int l = 0; l < 8; ++l) {
			float want = thr_atan2f(y[k + l], x[k + l]);
			if (!same(thr_fw_lane(w, l), want)) {
				cr_assert_fail("atan2(%a, %a): wide %a, scalar %a", y[k + l], x[k + l],
					thr_fw_lane(w, l), want);
			}
		}
	}
	cr_assert_eq(fbits(thr_fw_lane(thr_atan2f_w(thr_fw_set1(-0.0f), thr_fw_set1(-0.0f)), 0)), 0u);
	free(y);
	free(x);
}

Test(wmath, wrap_round_floor_match_scalar)
{
	float* x = malloc(sizeof(float) * N_WRAP);
	make_inputs(x, N_WRAP, 3);
	for (int k = 0; k < N_WRAP; k += 8) {
		thr_fw w = thr_fw_loadu(x + k);
		thr_fw wr = thr_wrap_angle_w(w);
		thr_fw ro = thr_roundf_w(w);
		thr_fw fl = thr_floorf_w(w);
		for (int l = 0; l < 8; ++l) {
			if (!same(thr_fw_lane(wr, l), thr_wrap_angle(x[k + l]))) {
				cr_assert_fail("wrap(%a): wide %a, scalar %a", x[k + l], thr_fw_lane(wr, l),
					thr_wrap_angle(x[k + l]));
			}
			if (!same(thr_fw_lane(ro, l), thr_roundf(x[k + l]))) {
				cr_assert_fail("round(%a): wide %a, scalar %a", x[k + l], thr_fw_lane(ro, l),
					thr_roundf(x[k + l]));
			}
			if (!same(thr_fw_lane(fl, l), thr_floorf(x[k + l]))) {
				cr_assert_fail("floor(%a): wide %a, scalar %a", x[k + l], thr_fw_lane(fl, l),
					thr_floorf(x[k + l]));
			}
		}
	}
	free(x);
}

Test(wmath, exp_matches_scalar)
{
	// The edge values and random bit patterns of make_inputs, then every
	// 2^-10 step across the clamp range and its ends.
	float* x = malloc(sizeof(float) * N_WRAP);
	make_inputs(x, N_WRAP, 7);
	int k0 = N_WRAP / 2;
	for (int k = k0; k < N_WRAP; ++k) {
		x[k] = -100.0f + (float)(k - k0) * (1.0f / 512.0f); // [-100, 28)
	}
	x[k0] = -87.0f;
	x[k0 + 1] = nextafterf(-87.0f, -INFINITY);
	x[k0 + 2] = 88.0f;
	x[k0 + 3] = nextafterf(88.0f, INFINITY);
	for (int k = 0; k < N_WRAP; k += 8) {
		thr_fw e = thr_expf_w(thr_fw_loadu(x + k));
		for (int l = 0; l < 8; ++l) {
			if (!same(thr_fw_lane(e, l), thr_expf(x[k + l]))) {
				cr_assert_fail("exp(%a): wide %a, scalar %a", x[k + l], thr_fw_lane(e, l), thr_expf(x[k + l]));
			}
		}
	}
	free(x);
}

Test(wmath, noise_matches_scalar)
{
	float* x = malloc(sizeof(float) * N_NOISE);
	uint32_t* key = malloc(sizeof(uint32_t) * N_NOISE);
	make_inputs(x, N_NOISE, 4);
	uint64_t st = 4;
	for (int k = 0; k < N_NOISE; ++k) {
		uint32_t r = next_u32(&st);
		key[k] = (r & 1u) ? next_u32(&st) : r % 4u;
		if ((r & 6u) == 0u) { // integers and their float neighbours
			float v = (float)(int32_t)(next_u32(&st) % 2001u) - 1000.0f;
			x[k] = (r & 8u) ? v : nextafterf(v, (r & 16u) ? INFINITY : -INFINITY);
		}
	}
	for (int k = 0; k < N_NOISE; k += 8) {
		thr_fw w = thr_noise1_w(thr_iw_loadu((const int32_t*)(key + k)), thr_fw_loadu(x + k));
		for (int l = 0; l < 8; ++l) {
			float want = thr_noise1(key[k + l], x[k + l]);
			if (!same(thr_fw_lane(w, l), want)) {
				cr_assert_fail("noise1(%u, %a): wide %a, scalar %a", key[k + l], x[k + l],
					thr_fw_lane(w, l), want);
			}
		}
	}
	free(x);
	free(key);
}

Test(wmath, rng_matches_scalar)
{
	uint64_t st = 6;
	_Alignas(32) uint32_t a[8], b[8], c[8];
	for (int k = 0; k < N_RNG; k += 8) {
		for (int l = 0; l < 8; ++l) {
			int edge = k < 64;
			a[l] = edge ? (uint32_t)(k + l) * 0x01010101u ^ (l & 1 ? 0xffffffffu : 0u) : next_u32(&st);
			b[l] = edge ? (uint32_t)l : next_u32(&st);
			c[l] = next_u32(&st) % 100000u; // step-like
		}
		thr_iw wa = thr_iw_load((const int32_t*)a);
		thr_iw wb = thr_iw_load((const int32_t*)b);
		thr_iw wc = thr_iw_load((const int32_t*)c);
		thr_iw mix = thr_mix32_w(wa);
		thr_fw unit = thr_bits_to_unit_w(wa);
		thr_fw pm1 = thr_bits_to_pm1_w(wa);
		for (int l = 0; l < 8; ++l) {
			cr_assert_eq((uint32_t)thr_iw_lane(mix, l), thr_mix32(a[l]), "mix32(%08x)", a[l]);
			cr_assert_eq(fbits(thr_fw_lane(unit, l)), fbits(thr_bits_to_unit(a[l])));
			cr_assert_eq(fbits(thr_fw_lane(pm1, l)), fbits(thr_bits_to_pm1(a[l])));
		}
		for (uint32_t stream = THR_STREAM_WANDER; stream <= THR_STREAM_SPAWN; ++stream) {
			thr_iw bits = thr_rng_bits_w(wb, wa, wc, stream);
			for (int l = 0; l < 8; ++l) {
				uint32_t want = thr_rng_bits(b[l], a[l], c[l], stream);
				if ((uint32_t)thr_iw_lane(bits, l) != want) {
					cr_assert_fail("rng_bits(%08x, %08x, %08x, %u)", b[l], a[l], c[l], stream);
				}
			}
		}
	}
	// The conversions at the ends of the range.
	thr_iw ends = thr_iw_setr(0, 0xff, 0x100, -1, INT32_MIN, INT32_MAX, 0x7fffff00, (int32_t)0x80000100u);
	thr_fw u = thr_bits_to_unit_w(ends), p = thr_bits_to_pm1_w(ends);
	for (int l = 0; l < 8; ++l) {
		uint32_t bits = (uint32_t)thr_iw_lane(ends, l);
		cr_assert_eq(fbits(thr_fw_lane(u, l)), fbits(thr_bits_to_unit(bits)));
		cr_assert_eq(fbits(thr_fw_lane(p, l)), fbits(thr_bits_to_pm1(bits)));
	}
	cr_assert_eq(thr_fw_lane(u, 3), 16777215.0f / 16777216.0f);
	cr_assert_eq(thr_fw_lane(p, 0), -1.0f);
}
