// SPDX-License-Identifier: MIT
// Unit tests of the shared polynomial math (core/fmath.h), the counter-based
// generator and value noise (core/rng.h), and the determinism of the circle
// wander fed by that generator (SPEC.md "Determinism of wander").
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "behaviors.h"
#include "fmath.h"
#include "rng.h"
#include "throng/behavior.h"

/// pi in double (M_PI is POSIX, not C11).
#define PI_D 3.14159265358979323846

// ---------------------------------------------------------------- exp

/// Distance in ulps between two finite floats of the same sign.
static int64_t ulps(float a, float b)
{
	int32_t ia, ib;
	memcpy(&ia, &a, sizeof ia);
	memcpy(&ib, &b, sizeof ib);
	return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

Test(exp, matches_libm_within_2_ulp)
{
	// Every 2^-12 step of [-87, 88] (718,848 points): within 2 ulp of the
	// correctly rounded e^x (double exp, rounded to float).
	int64_t worst = 0;
	for (int32_t k = 0;; ++k) {
		float x = -87.0f + (float)k * (1.0f / 4096.0f);
		if (x > 88.0f) {
			break;
		}
		float want = (float)exp((double)x);
		int64_t u = ulps(thr_expf(x), want);
		worst = u > worst ? u : worst;
		cr_assert_leq(u, 2, "exp(%.9g): got %a, want %a", (double)x, (double)thr_expf(x), (double)want);
	}
	cr_log_info("exp worst error on [-87, 88]: %lld ulp", (long long)worst);
}

Test(exp, exact_points_and_ends)
{
	// e^0 = 1: n = 0, r = 0, so y = 0*0*P + 0 + 1 exactly.
	cr_expect_eq(thr_expf(0.0f), 1.0f);
	cr_expect_eq(thr_expf(-0.0f), 1.0f);
	// Below -87 it is 0 (libm gives at most 1.65e-38 there), above 88 +Inf.
	cr_expect_eq(thr_expf(-87.5f), 0.0f);
	cr_expect_eq(thr_expf(-1.0e6f), 0.0f);
	cr_expect_eq(thr_expf(-INFINITY), 0.0f);
	cr_expect(isinf(thr_expf(88.5f)) && thr_expf(88.5f) > 0.0f);
	cr_expect(isinf(thr_expf(INFINITY)));
	cr_expect(isnan(thr_expf(NAN)));
	// The ends themselves are inside: e^-87 = 1.65e-38 and e^88 = 1.65e38.
	cr_expect_leq(ulps(thr_expf(-87.0f), (float)exp(-87.0)), 2);
	cr_expect_leq(ulps(thr_expf(88.0f), (float)exp(88.0)), 2);
	// e^1 = 2.7182817 (float), e^-3 = 0.049787067.
	cr_expect_leq(ulps(thr_expf(1.0f), 2.71828183f), 2);
	cr_expect_leq(ulps(thr_expf(-3.0f), 0.0497870684f), 2);
}

// ---------------------------------------------------------------- sin / cos

Test(sincos, matches_libm_on_pi_range)
{
	// 200001 points on [-pi, pi]; documented error 2e-7 absolute
	const int n = 200000;
	double worst = 0.0;
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-PI_D + 2.0 * PI_D * (double)i / (double)n);
		float s, c;
		thr_sincosf(x, &s, &c);
		double es = fabs((double)s - sin((double)x));
		double ec = fabs((double)c - cos((double)x));
		worst = fmax(worst, fmax(es, ec));
		cr_assert_leq(es, 2e-7, "sin(%.9g): got %.9g, libm %.17g", (double)x, (double)s, sin((double)x));
		cr_assert_leq(ec, 2e-7, "cos(%.9g): got %.9g, libm %.17g", (double)x, (double)c, cos((double)x));
	}
	cr_log_info("sincos worst error on [-pi,pi]: %.3g", worst);
}

Test(sincos, matches_libm_to_1e4)
{
	// 2000001 points on [-1e4, 1e4]; documented error 1e-6 absolute
	const int n = 2000000;
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-1.0e4 + 2.0e4 * (double)i / (double)n);
		float s, c;
		thr_sincosf(x, &s, &c);
		cr_assert_leq(fabs((double)s - sin((double)x)), 1e-6, "sin(%.9g) = %.9g", (double)x, (double)s);
		cr_assert_leq(fabs((double)c - cos((double)x)), 1e-6, "cos(%.9g) = %.9g", (double)x, (double)c);
	}
}

Test(sincos, single_functions_match_libm)
{
	const int n = 20000;
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-20.0 + 40.0 * (double)i / (double)n);
		cr_assert_leq(fabs((double)thr_sinf(x) - sin((double)x)), 1e-6, "sinf(%.9g)", (double)x);
		cr_assert_leq(fabs((double)thr_cosf(x) - cos((double)x)), 1e-6, "cosf(%.9g)", (double)x);
	}
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-PI_D + 2.0 * PI_D * (double)i / (double)n);
		cr_assert_leq(fabs((double)thr_sinf(x) - sin((double)x)), 2e-7, "sinf(%.9g)", (double)x);
		cr_assert_leq(fabs((double)thr_cosf(x) - cos((double)x)), 2e-7, "cosf(%.9g)", (double)x);
	}
}

Test(sincos, exact_points)
{
	float s, c;
	thr_sincosf(0.0f, &s, &c);
	// sin 0 = 0 and cos 0 = 1 exactly
	cr_expect_eq(s, 0.0f);
	cr_expect_eq(c, 1.0f);
	// k*pi/2 for k=-3..3: float(k*pi/2) is within 1.2e-8..8.8e-8 of the true
	// multiple, so sin/cos land within 1e-7 of 0 or +-1
	static const float want_s[7] = {1, 0, -1, 0, 1, 0, -1};
	static const float want_c[7] = {0, -1, 0, 1, 0, -1, 0};
	for (int k = -3; k <= 3; ++k) {
		float x = (float)k * THR_HALF_PI;
		thr_sincosf(x, &s, &c);
		cr_expect_float_eq(s, want_s[k + 3], 1e-7f, "sin(%d pi/2) = %.9g", k, (double)s);
		cr_expect_float_eq(c, want_c[k + 3], 1e-7f, "cos(%d pi/2) = %.9g", k, (double)c);
		cr_expect_float_eq(thr_sinf(x), want_s[k + 3], 1e-7f);
		cr_expect_float_eq(thr_cosf(x), want_c[k + 3], 1e-7f);
	}
	// 2pi: float(2pi) is 1.75e-7 above the true value, so sin(float 2pi) = 1.75e-7
	thr_sincosf(THR_TWO_PI, &s, &c);
	cr_expect_float_eq(s, 1.7484556e-7f, 1e-7f);
	cr_expect_float_eq(c, 1.0f, 1e-7f);
}

Test(sincos, odd_and_even)
{
	for (int i = 1; i <= 1000; ++i) {
		float x = (float)i * 0.0137f;
		float s1, c1, s2, c2;
		thr_sincosf(x, &s1, &c1);
		thr_sincosf(-x, &s2, &c2);
		// sin(-x) = -sin(x), cos(-x) = cos(x): the reduction is symmetric
		cr_expect_float_eq(s2, -s1, 1e-7f, "x=%g", (double)x);
		cr_expect_float_eq(c2, c1, 1e-7f, "x=%g", (double)x);
	}
}

// ---------------------------------------------------------------- atan2

Test(atan2, all_quadrants_by_angle)
{
	static const float radii[4] = {1e-3f, 1.0f, 37.5f, 1e3f};
	const int n = 100000;
	for (int r = 0; r < 4; ++r) {
		for (int i = 0; i <= n; ++i) {
			double th = -PI_D + 2.0 * PI_D * (double)i / (double)n;
			float x = (float)(radii[r] * cos(th));
			float y = (float)(radii[r] * sin(th));
			double want = atan2((double)y, (double)x);
			float got = thr_atan2f(y, x);
			cr_assert_leq(fabs((double)got - want), 3e-7, "atan2(%.9g, %.9g) = %.9g, libm %.17g",
			              (double)y, (double)x, (double)got, want);
		}
	}
}

Test(atan2, grid)
{
	for (int i = -200; i <= 200; ++i) {
		for (int j = -200; j <= 200; ++j) {
			float y = (float)i * 0.05f;
			float x = (float)j * 0.05f;
			if (i == 0 && j == 0) {
				continue;
			}
			double want = atan2((double)y, (double)x);
			float got = thr_atan2f(y, x);
			cr_assert_leq(fabs((double)got - want), 3e-7, "atan2(%.9g, %.9g) = %.9g", (double)y, (double)x,
			              (double)got);
		}
	}
}

Test(atan2, origin_and_axes)
{
	// atan2(0,0) = 0 (documented)
	cr_expect_eq(thr_atan2f(0.0f, 0.0f), 0.0f);
	// +x: 0, +y: pi/2, -x: pi, -y: -pi/2 (within 3e-7, float pi is 8.7e-8 off)
	cr_expect_float_eq(thr_atan2f(0.0f, 2.0f), 0.0f, 3e-7f);
	cr_expect_float_eq(thr_atan2f(3.0f, 0.0f), THR_HALF_PI, 3e-7f);
	cr_expect_float_eq(thr_atan2f(0.0f, -4.0f), THR_PI, 3e-7f);
	cr_expect_float_eq(thr_atan2f(-5.0f, 0.0f), -THR_HALF_PI, 3e-7f);
	// diagonals: +-pi/4, +-3pi/4
	cr_expect_float_eq(thr_atan2f(1.0f, 1.0f), 0.78539816f, 3e-7f);
	cr_expect_float_eq(thr_atan2f(1.0f, -1.0f), 2.35619449f, 3e-7f);
	cr_expect_float_eq(thr_atan2f(-1.0f, -1.0f), -2.35619449f, 3e-7f);
	cr_expect_float_eq(thr_atan2f(-1.0f, 1.0f), -0.78539816f, 3e-7f);
	// a 3-4-5 triangle: atan2(4,3) = 0.92729522
	cr_expect_float_eq(thr_atan2f(4.0f, 3.0f), 0.92729522f, 3e-7f);
}

// ---------------------------------------------------------------- wrap, round

Test(wrap_angle, lands_in_pi_range)
{
	// Callers wrap every step, so the argument is a wrapped angle plus one
	// increment: |x| <= 7 must land in [-pi, pi] (float pi) with no slack.
	const int n = 2000000;
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-7.0 + 14.0 * (double)i / (double)n);
		float w = thr_wrap_angle(x);
		cr_assert(w >= -THR_PI && w <= THR_PI, "wrap(%.9g) = %.9g", (double)x, (double)w);
	}
	// every float within 4096 ulps of +-pi, where round(x/2pi) has its tie
	for (int sgn = -1; sgn <= 1; sgn += 2) {
		float x = (float)sgn * THR_PI;
		for (int i = 0; i < 4096; ++i) {
			x = nextafterf(x, -INFINITY);
		}
		for (int i = 0; i < 8192; ++i) {
			float w = thr_wrap_angle(x);
			cr_assert(w >= -THR_PI && w <= THR_PI, "wrap(%.9g) = %.9g", (double)x, (double)w);
			x = nextafterf(x, INFINITY);
		}
	}
	// Far out, k*2pi is rounded to float: the result may leave [-pi, pi] by
	// at most about one ulp of x (|x|*2^-23), never more (e.g. wrap(-9980.84)
	// = -3.1416016, 9e-6 past -pi, while ulp(9980) = 9.8e-4).
	for (int i = 0; i <= n; ++i) {
		float x = (float)(-1.0e4 + 2.0e4 * (double)i / (double)n);
		float w = thr_wrap_angle(x);
		float slack = fabsf(x) * 0x1p-23f;
		cr_assert(w >= -THR_PI - slack && w <= THR_PI + slack, "wrap(%.9g) = %.9g", (double)x, (double)w);
	}
}

Test(wrap_angle, keeps_the_angle)
{
	// small |x|: x - 2pi*k with k <= 2, so sin/cos agree to the rounding of 2pi*k
	for (int i = -1000; i <= 1000; ++i) {
		float x = (float)i * 0.0123f;
		float w = thr_wrap_angle(x);
		cr_expect_leq(fabs(sin((double)w) - sin((double)x)), 2e-6, "x=%g w=%g", (double)x, (double)w);
		cr_expect_leq(fabs(cos((double)w) - cos((double)x)), 2e-6, "x=%g w=%g", (double)x, (double)w);
	}
	// already inside: unchanged
	cr_expect_eq(thr_wrap_angle(1.0f), 1.0f);
	cr_expect_eq(thr_wrap_angle(-3.0f), -3.0f);
	cr_expect_eq(thr_wrap_angle(0.0f), 0.0f);
	// 3.5 - 2pi = -2.7831853; 7 - 2pi = 0.7168147; -10 + 4pi = 2.5663706
	cr_expect_float_eq(thr_wrap_angle(3.5f), -2.7831853f, 1e-6f);
	cr_expect_float_eq(thr_wrap_angle(7.0f), 0.7168147f, 1e-6f);
	cr_expect_float_eq(thr_wrap_angle(-10.0f), 2.5663706f, 2e-6f);
}

Test(roundf, ties_to_even)
{
	cr_expect_eq(thr_roundf(0.5f), 0.0f);
	cr_expect_eq(thr_roundf(1.5f), 2.0f);
	cr_expect_eq(thr_roundf(2.5f), 2.0f);
	cr_expect_eq(thr_roundf(3.5f), 4.0f);
	cr_expect_eq(thr_roundf(-0.5f), 0.0f);
	cr_expect_eq(thr_roundf(-1.5f), -2.0f);
	cr_expect_eq(thr_roundf(-2.5f), -2.0f);
	// 2^22 - 0.5 is exact in float; ties to the even 2^22
	cr_expect_eq(thr_roundf(4194303.5f), 4194304.0f);
	cr_expect_eq(thr_roundf(1000000.5f), 1000000.0f);
	cr_expect_eq(thr_roundf(1000001.5f), 1000002.0f);
}

Test(roundf, non_ties)
{
	cr_expect_eq(thr_roundf(2.4f), 2.0f);
	cr_expect_eq(thr_roundf(2.6f), 3.0f);
	cr_expect_eq(thr_roundf(-2.6f), -3.0f);
	cr_expect_eq(thr_roundf(-2.4f), -2.0f);
	cr_expect_eq(thr_roundf(0.49999997f), 0.0f);
	cr_expect_eq(thr_roundf(7.0f), 7.0f);
	cr_expect_eq(thr_roundf(-123456.7f), -123457.0f);
}

// ---------------------------------------------------------------- rng

Test(rng, mix32_known_answers)
{
	// lowbias32 worked through the header's xor-shift/multiply steps:
	// 0 stays 0; 1 -> 0x688990c0; 0x12345678 -> 0xf5e71c96
	cr_expect_eq(thr_mix32(0u), 0u);
	cr_expect_eq(thr_mix32(1u), 0x688990c0u);
	cr_expect_eq(thr_mix32(0x12345678u), 0xf5e71c96u);
	// rng_bits(0,0,0,1) = mix(mix(mix(0)^0)^0x9e3779b9) = 0x01fce552
	cr_expect_eq(thr_rng_bits(0u, 0u, 0u, 1u), 0x01fce552u);
	cr_expect_eq(thr_rng_bits(0xdeadbeefu, 7u, 42u, 1u), 0x269c6fc2u);
	// key(1) = mix(mix(1 + 0x9e3779b9) ^ 0) = 0x23064794
	cr_expect_eq(thr_rng_key(1u), 0x23064794u);
}

Test(rng, pure_function_of_key)
{
	uint32_t key = thr_rng_key(12345u);
	for (uint32_t i = 0; i < 1000; ++i) {
		uint32_t a = thr_rng_bits(key, i, i * 3u, THR_STREAM_WANDER);
		uint32_t b = thr_rng_bits(thr_rng_key(12345u), i, i * 3u, THR_STREAM_WANDER);
		cr_assert_eq(a, b, "same key, different bits at %u", i);
	}
}

Test(rng, components_change_the_bits)
{
	uint32_t k1 = thr_rng_key(1u);
	uint32_t k2 = thr_rng_key(2u);
	cr_expect_neq(k1, k2);
	// the high half of the seed counts too
	cr_expect_neq(thr_rng_key(1u), thr_rng_key(1u | (1ull << 32)));
	for (uint32_t i = 0; i < 1000; ++i) {
		uint32_t base = thr_rng_bits(k1, i, 5u, THR_STREAM_WANDER);
		cr_expect_neq(base, thr_rng_bits(k2, i, 5u, THR_STREAM_WANDER), "seed, i=%u", i);
		cr_expect_neq(base, thr_rng_bits(k1, i + 1u, 5u, THR_STREAM_WANDER), "id, i=%u", i);
		cr_expect_neq(base, thr_rng_bits(k1, i, 6u, THR_STREAM_WANDER), "step, i=%u", i);
		cr_expect_neq(base, thr_rng_bits(k1, i, 5u, THR_STREAM_NOISE), "stream, i=%u", i);
		// swapping id and step must not give the same draw
		if (i != 5u) {
			cr_expect_neq(base, thr_rng_bits(k1, 5u, i, THR_STREAM_WANDER), "swap, i=%u", i);
		}
	}
}

Test(rng, bits_to_float_ranges)
{
	// extremes: 0 -> unit 0, pm1 -1; all ones -> unit 1-2^-24, pm1 1-2^-23
	cr_expect_eq(thr_bits_to_unit(0u), 0.0f);
	cr_expect_eq(thr_bits_to_pm1(0u), -1.0f);
	cr_expect_eq(thr_bits_to_unit(0xffffffffu), 1.0f - 0x1p-24f);
	cr_expect_eq(thr_bits_to_pm1(0xffffffffu), 1.0f - 0x1p-23f);
	// the low 8 bits are dropped: 0x80000000 and 0x800000ff both give 0.5 and 0
	cr_expect_eq(thr_bits_to_unit(0x800000ffu), 0.5f);
	cr_expect_eq(thr_bits_to_pm1(0x80000000u), 0.0f);
	uint32_t key = thr_rng_key(99u);
	for (uint32_t i = 0; i < 100000; ++i) {
		uint32_t b = thr_rng_bits(key, i, 0u, THR_STREAM_WANDER);
		float u = thr_bits_to_unit(b);
		float p = thr_bits_to_pm1(b);
		cr_assert(u >= 0.0f && u < 1.0f, "unit %g", (double)u);
		cr_assert(p >= -1.0f && p < 1.0f, "pm1 %g", (double)p);
	}
}

Test(rng, pm1_moments)
{
	// U(-1,1): mean 0, variance 1/3; 100k draws -> sd of the mean 0.0018, of the variance 0.0009
	uint32_t key = thr_rng_key(2024u);
	const int n = 100000;
	double sum = 0.0, sum2 = 0.0;
	for (int i = 0; i < n; ++i) {
		double p = (double)thr_bits_to_pm1(thr_rng_bits(key, 3u, (uint32_t)i, THR_STREAM_WANDER));
		sum += p;
		sum2 += p * p;
	}
	double mean = sum / n;
	double var = sum2 / n - mean * mean;
	cr_expect_leq(fabs(mean), 0.01, "mean %g", mean);
	cr_expect_leq(fabs(var - 1.0 / 3.0), 0.01, "variance %g", var);
}

// ---------------------------------------------------------------- noise1

Test(noise1, range)
{
	uint32_t key = thr_rng_key(7u);
	for (int i = -50000; i <= 50000; ++i) {
		float x = (float)i * 0.001234f;
		float v = thr_noise1(key, x);
		cr_assert(v >= -1.0f && v <= 1.0f, "noise(%g) = %g", (double)x, (double)v);
	}
}

Test(noise1, continuous)
{
	// smoothstep slope <= 1.5, lattice gap <= 2: |n(x+h)-n(x)| <= 3h = 3e-3 (plus rounding)
	uint32_t key = thr_rng_key(7u);
	for (int i = -50000; i <= 50000; ++i) {
		float x = (float)i * 0.001f;
		float d = fabsf(thr_noise1(key, x + 1e-3f) - thr_noise1(key, x));
		cr_assert_leq(d, 3.1e-3f, "jump %g at x=%g", (double)d, (double)x);
	}
	// approaching an integer from below meets the lattice value there
	for (int i = -20; i <= 20; ++i) {
		float below = thr_noise1(key, (float)i - 1e-4f);
		// f=1-1e-4: s=1-3e-8+2e-12, so |n - b| <= 3e-8*|b-a| <= 6e-8
		cr_expect_float_eq(below, thr_noise1(key, (float)i), 1e-6f, "at %d", i);
	}
}

Test(noise1, lattice_values_at_integers)
{
	// f=0 -> smoothstep 0 -> exactly the lattice value of cell i, drawn from
	// (key, i, 0, THR_STREAM_NOISE) as U(-1,1)
	uint32_t key = thr_rng_key(11u);
	for (int i = -100; i <= 100; ++i) {
		float want = thr_bits_to_pm1(thr_rng_bits(key, (uint32_t)i, 0u, THR_STREAM_NOISE));
		cr_expect_eq(thr_noise1(key, (float)i), want, "n(%d)", i);
	}
}

Test(noise1, midpoint_is_mean_of_lattice)
{
	// f=0.5 -> s=0.25*(3-1)=0.5 -> (a+b)/2
	uint32_t key = thr_rng_key(11u);
	for (int i = -10; i <= 10; ++i) {
		float a = thr_noise1(key, (float)i);
		float b = thr_noise1(key, (float)(i + 1));
		cr_expect_float_eq(thr_noise1(key, (float)i + 0.5f), 0.5f * (a + b), 1e-6f, "cell %d", i);
	}
}

// ---------------------------------------------------------------- wander determinism

typedef struct wander_walker {
	thr_self s;
	float angle;
} wander_walker;

static wander_walker walker(uint32_t id)
{
	wander_walker w;
	memset(&w, 0, sizeof w);
	w.s.p = v2(0.0f, 0.0f);
	w.s.v = v2(1.0f, 0.0f);
	w.s.h = v2(1.0f, 0.0f);
	w.s.max_speed = 1.3f;
	w.s.max_force = 4.0f;
	w.s.radius = 0.3f;
	w.s.id = id;
	w.angle = 0.0f;
	return w;
}

/// One step: exactly one draw keyed by (key, id, step), wander, integrate (SPEC.md).
static void walker_step(wander_walker* w, uint32_t key, uint32_t step, const throng_behavior_params* prm,
                        float dt)
{
	float draw = thr_bits_to_pm1(thr_rng_bits(key, w->s.id, step, THR_STREAM_WANDER));
	vec2 f = thr_wander(&w->s, &w->angle, draw, prm, dt);
	w->s.v = v2_limit(v2_add(w->s.v, v2_scale(f, dt)), w->s.max_speed);
	w->s.p = v2_add(w->s.p, v2_scale(w->s.v, dt));
	if (v2_length(w->s.v) > THR_EPS) {
		w->s.h = v2_normalize(w->s.v);
	}
}

static throng_behavior_params determinism_params(throng_wander_frame frame)
{
	throng_behavior_params prm = throng_behavior_default_def();
	prm.frame = frame;
	prm.circle_distance = 2.0f;
	prm.circle_radius = 1.0f;
	prm.jitter = 6.0f;
	return prm;
}

static void same_key_same_path(throng_wander_frame frame)
{
	throng_behavior_params prm = determinism_params(frame);
	uint32_t key = thr_rng_key(42u);
	wander_walker a = walker(3);
	wander_walker b = walker(3);
	for (uint32_t step = 0; step < 1000; ++step) {
		walker_step(&a, key, step, &prm, 1.0f / 60.0f);
		walker_step(&b, key, step, &prm, 1.0f / 60.0f);
		cr_assert(memcmp(&a.angle, &b.angle, sizeof a.angle) == 0, "angles differ at step %u", step);
		cr_assert(memcmp(&a.s.p, &b.s.p, sizeof a.s.p) == 0, "positions differ at step %u", step);
		cr_assert(a.angle >= -THR_PI && a.angle <= THR_PI, "angle %g not wrapped", (double)a.angle);
		cr_assert(v2_isfinite(a.s.p));
	}
}

Test(wander_determinism, same_key_identical_world_frame) { same_key_same_path(THRONG_WANDER_WORLD); }

Test(wander_determinism, same_key_identical_local_frame) { same_key_same_path(THRONG_WANDER_LOCAL); }

Test(wander_determinism, different_seeds_diverge)
{
	throng_behavior_params prm = determinism_params(THRONG_WANDER_WORLD);
	uint32_t k1 = thr_rng_key(42u);
	uint32_t k2 = thr_rng_key(43u);
	wander_walker a = walker(3);
	wander_walker b = walker(3);
	int differ = 0;
	for (uint32_t step = 0; step < 1000; ++step) {
		walker_step(&a, k1, step, &prm, 1.0f / 60.0f);
		walker_step(&b, k2, step, &prm, 1.0f / 60.0f);
		differ += a.angle != b.angle;
	}
	// once the first draws differ, the random walks never coincide again
	cr_expect_geq(differ, 990, "angles differed at only %d of 1000 steps", differ);
	cr_expect(a.s.p.x != b.s.p.x || a.s.p.y != b.s.p.y);
	cr_expect_gt(v2_length(v2_sub(a.s.p, b.s.p)), 1e-3f);
}

Test(wander_determinism, different_ids_diverge)
{
	throng_behavior_params prm = determinism_params(THRONG_WANDER_WORLD);
	uint32_t key = thr_rng_key(42u);
	wander_walker a = walker(3);
	wander_walker b = walker(4);
	for (uint32_t step = 0; step < 1000; ++step) {
		walker_step(&a, key, step, &prm, 1.0f / 60.0f);
		walker_step(&b, key, step, &prm, 1.0f / 60.0f);
	}
	// same seed, different agent ids -> different streams -> different paths
	cr_expect_gt(v2_length(v2_sub(a.s.p, b.s.p)), 1e-3f);
}
