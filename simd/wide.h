// SPDX-License-Identifier: MIT
// The wide layer: throng's 8-lane float, int and mask types and their ops
// (private; the only file of the project that names SIMD intrinsics).
//
// Design note: why every build gives the same bits
// -------------------------------------------------
// The lane count is 8 in every build. The CMake cache variable THRONG_SIMD
// only changes how SIMDe lowers the same 256-bit operations:
//   native    -mavx2 (no FMA): one ymm instruction per op;
//   sse2      x86-64 baseline (-mno-avx -mno-avx2 -mno-fma): SIMDe splits
//             each op into a pair of 128-bit SSE2 ops on lanes 0-3 and 4-7;
//   portable  SIMDE_NO_NATIVE: SIMDe's plain C (loops and vector extensions)
//             that the compiler maps to whatever it likes.
// A kernel written with these ops therefore performs, in every lane, the same
// sequence of IEEE-754 binary32 operations in the same order, whatever the
// build. Each of those is correctly rounded to nearest-even (add, sub, mul,
// div, sqrt, int->float), exact (min, max, abs, neg, compares, selects,
// bitwise and int ops, truncation) or defined here to the bit where the
// hardware and C disagree (float->int out of range gives INT32_MIN in every
// build). Nothing can differ between builds because:
//   - no fused multiply-add: simde/x86/fma.h is never included, the native
//     build passes -mavx2 -mno-fma, and -ffp-contract=off on every target
//     stops the compiler from fusing a*b+c on its own;
//   - no rcp/rsqrt approximations (their precision differs by CPU): division
//     and sqrt are the IEEE ones;
//   - no reassociation: reductions (thr_fw_hsum) add in a fixed, documented
//     tree, never "whatever is fastest";
//   - the rounding mode is never changed (round to nearest even throughout,
//     which thr_roundf's magic-number trick relies on too), FTZ/DAZ are never
//     set (no -ffast-math), so denormals are kept, and FLT_EVAL_METHOD is 0
//     (no excess precision, checked below);
//   - min/max/select keep the x86 operand semantics (see each op) in every
//     build, so signed zeros and NaNs pick the same operand.
// What is not promised: the sign and payload of a NaN result. With two NaN
// operands IEEE leaves open which payload survives, and compilers swap the
// operands of commutative ops: measured here, the portable build's add and
// mul return the second NaN where native and sse2 return the first. State
// never holds NaN, so state hashes are unaffected; throng_wide_dump writes
// every NaN as 0x7fc00000.
//
// Lane i of a value is element i of the array it was loaded from; masks are
// all-ones or all-zeros per lane. Kernels use only these ops, never simde_*
// or _mm* directly (STYLE.md, SIMD).
#ifndef THRONG_SIMD_WIDE_H
#define THRONG_SIMD_WIDE_H

#include <float.h>
#include <stdint.h>

#include <simde/x86/avx2.h>

// Every op is forced inline: a wide value then never crosses a call, which
// keeps the sse2 and portable builds fast and leaves no 32-byte vector in a
// function ABI. Without AVX, gcc and clang still note (-Wpsabi) each call
// that would pass one; throng_simd passes -Wno-psabi (simd/CMakeLists.txt).
#if defined(__GNUC__)
#define THR_WIDE_INLINE static inline __attribute__((always_inline))
#else
#define THR_WIDE_INLINE static inline
#endif

#if FLT_EVAL_METHOD != 0
#error "throng needs FLT_EVAL_METHOD == 0 (SSE math, no excess precision)"
#endif

/// The backend this translation unit was compiled for, detected from what
/// SIMDe chose: "native" (AVX2), "sse2" or "portable". test_wide checks that
/// it equals THRONG_SIMD_BACKEND, the one CMake asked for.
#if defined(SIMDE_NO_NATIVE)
#define THR_WIDE_BACKEND "portable"
#elif defined(SIMDE_X86_AVX2_NATIVE)
#define THR_WIDE_BACKEND "native"
#elif defined(SIMDE_X86_SSE2_NATIVE) && !defined(SIMDE_X86_AVX_NATIVE)
#define THR_WIDE_BACKEND "sse2"
#else
#define THR_WIDE_BACKEND "other"
#endif

/// Lanes per wide value, in every build.
#define THR_WIDE_LANES 8
/// Alignment of thr_fw_load/thr_fw_store addresses (SoA buffers use 64).
#define THR_WIDE_ALIGN 32

/// 8 floats.
typedef simde__m256 thr_fw;
/// 8 32-bit ints; the int ops are also the uint32 ops (wrapping add, sub
/// and mul, logical right shift), only compares are signed.
typedef simde__m256i thr_iw;
/// 8 lane flags, each all-ones (true) or all-zeros (false).
typedef struct thr_mw {
	simde__m256 v;
} thr_mw;

// ---------------------------------------------------------------- floats

THR_WIDE_INLINE thr_fw thr_fw_zero(void) { return simde_mm256_setzero_ps(); }
THR_WIDE_INLINE thr_fw thr_fw_set1(float a) { return simde_mm256_set1_ps(a); }
/// Lanes 0..7 = a0..a7.
THR_WIDE_INLINE thr_fw thr_fw_setr(float a0, float a1, float a2, float a3, float a4, float a5,
	float a6, float a7)
{
	return simde_mm256_setr_ps(a0, a1, a2, a3, a4, a5, a6, a7);
}

/// p aligned to THR_WIDE_ALIGN bytes.
THR_WIDE_INLINE thr_fw thr_fw_load(const float* p) { return simde_mm256_load_ps(p); }
THR_WIDE_INLINE thr_fw thr_fw_loadu(const float* p) { return simde_mm256_loadu_ps(p); }
THR_WIDE_INLINE void thr_fw_store(float* p, thr_fw a) { simde_mm256_store_ps(p, a); }
THR_WIDE_INLINE void thr_fw_storeu(float* p, thr_fw a) { simde_mm256_storeu_ps(p, a); }

/// Lanes i < count from p[i], the rest = fill. Reads only p[0..count-1]
/// (count clamped to [0, 8]), so it is safe at the end of a buffer.
THR_WIDE_INLINE thr_fw thr_fw_load_tail(const float* p, int count, float fill)
{
	_Alignas(THR_WIDE_ALIGN) float buf[THR_WIDE_LANES];
	for (int i = 0; i < THR_WIDE_LANES; ++i) {
		buf[i] = i < count ? p[i] : fill;
	}
	return simde_mm256_load_ps(buf);
}

/// Writes lanes i < count to p[i]; p[count..7] are not touched.
THR_WIDE_INLINE void thr_fw_store_tail(float* p, thr_fw a, int count)
{
	_Alignas(THR_WIDE_ALIGN) float buf[THR_WIDE_LANES];
	simde_mm256_store_ps(buf, a);
	for (int i = 0; i < THR_WIDE_LANES && i < count; ++i) {
		p[i] = buf[i];
	}
}

/// Lane i (0..7) as a scalar; for tests and debugging, not for kernels.
THR_WIDE_INLINE float thr_fw_lane(thr_fw a, int i)
{
	_Alignas(THR_WIDE_ALIGN) float buf[THR_WIDE_LANES];
	simde_mm256_store_ps(buf, a);
	return buf[i & (THR_WIDE_LANES - 1)];
}

THR_WIDE_INLINE thr_fw thr_fw_add(thr_fw a, thr_fw b) { return simde_mm256_add_ps(a, b); }
THR_WIDE_INLINE thr_fw thr_fw_sub(thr_fw a, thr_fw b) { return simde_mm256_sub_ps(a, b); }
THR_WIDE_INLINE thr_fw thr_fw_mul(thr_fw a, thr_fw b) { return simde_mm256_mul_ps(a, b); }
/// The IEEE division (never a reciprocal approximation).
THR_WIDE_INLINE thr_fw thr_fw_div(thr_fw a, thr_fw b) { return simde_mm256_div_ps(a, b); }
/// The IEEE square root (never an rsqrt approximation).
THR_WIDE_INLINE thr_fw thr_fw_sqrt(thr_fw a) { return simde_mm256_sqrt_ps(a); }
/// a < b ? a : b per lane (x86 semantics: b when either is NaN, and
/// min(-0, +0) = +0, min(+0, -0) = -0).
THR_WIDE_INLINE thr_fw thr_fw_min(thr_fw a, thr_fw b) { return simde_mm256_min_ps(a, b); }
/// a > b ? a : b per lane (the same operand rules as thr_fw_min).
THR_WIDE_INLINE thr_fw thr_fw_max(thr_fw a, thr_fw b) { return simde_mm256_max_ps(a, b); }

/// |a|: clears the sign bit (as fabsf).
THR_WIDE_INLINE thr_fw thr_fw_abs(thr_fw a)
{
	return simde_mm256_and_ps(a, simde_mm256_castsi256_ps(simde_mm256_set1_epi32(0x7fffffff)));
}

/// -a: flips the sign bit (as unary minus; -(+0) = -0, unlike 0 - a).
THR_WIDE_INLINE thr_fw thr_fw_neg(thr_fw a) { return simde_mm256_xor_ps(a, simde_mm256_set1_ps(-0.0f)); }

/// Sum of the 8 lanes in this fixed order, the same in every build:
/// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
THR_WIDE_INLINE float thr_fw_hsum(thr_fw a)
{
	simde__m128 lo = simde_mm256_castps256_ps128(a);
	simde__m128 hi = simde_mm256_extractf128_ps(a, 1);
	simde__m128 s4 = simde_mm_add_ps(lo, hi);                        // l0+l4, l1+l5, l2+l6, l3+l7
	simde__m128 s2 = simde_mm_add_ps(s4, simde_mm_movehl_ps(s4, s4)); // (l0+l4)+(l2+l6), (l1+l5)+(l3+l7)
	simde__m128 s1 = simde_mm_add_ss(s2, simde_mm_shuffle_ps(s2, s2, 1));
	return simde_mm_cvtss_f32(s1);
}

// ---------------------------------------------------------------- compares
// Ordered like C's operators: false when either lane is NaN, except neq,
// which is true then (as a != b in C).

THR_WIDE_INLINE thr_mw thr_fw_lt(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ)}; }
THR_WIDE_INLINE thr_mw thr_fw_le(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ)}; }
THR_WIDE_INLINE thr_mw thr_fw_gt(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ)}; }
THR_WIDE_INLINE thr_mw thr_fw_ge(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ)}; }
THR_WIDE_INLINE thr_mw thr_fw_eq(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ)}; }
THR_WIDE_INLINE thr_mw thr_fw_neq(thr_fw a, thr_fw b) { return (thr_mw){simde_mm256_cmp_ps(a, b, SIMDE_CMP_NEQ_UQ)}; }

/// m ? a : b per lane. Both a and b are computed: a kernel replaces a scalar
/// branch by computing each side exactly as the scalar code does and
/// selecting, which is what keeps the lanes equal to the scalar reference.
THR_WIDE_INLINE thr_fw thr_fw_select(thr_mw m, thr_fw a, thr_fw b) { return simde_mm256_blendv_ps(b, a, m.v); }

// ---------------------------------------------------------------- masks

THR_WIDE_INLINE thr_mw thr_mw_false(void) { return (thr_mw){simde_mm256_setzero_ps()}; }
THR_WIDE_INLINE thr_mw thr_mw_true(void) { return (thr_mw){simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1))}; }
THR_WIDE_INLINE thr_mw thr_mw_and(thr_mw a, thr_mw b) { return (thr_mw){simde_mm256_and_ps(a.v, b.v)}; }
THR_WIDE_INLINE thr_mw thr_mw_or(thr_mw a, thr_mw b) { return (thr_mw){simde_mm256_or_ps(a.v, b.v)}; }
THR_WIDE_INLINE thr_mw thr_mw_xor(thr_mw a, thr_mw b) { return (thr_mw){simde_mm256_xor_ps(a.v, b.v)}; }
/// a and not b (note the order: x86's andnot is ~first & second).
THR_WIDE_INLINE thr_mw thr_mw_andnot(thr_mw a, thr_mw b) { return (thr_mw){simde_mm256_andnot_ps(b.v, a.v)}; }
THR_WIDE_INLINE thr_mw thr_mw_not(thr_mw a) { return thr_mw_xor(a, thr_mw_true()); }
/// Bit i set when lane i is true.
THR_WIDE_INLINE int thr_mw_movemask(thr_mw m) { return simde_mm256_movemask_ps(m.v); }
THR_WIDE_INLINE int thr_mw_any(thr_mw m) { return thr_mw_movemask(m) != 0; }
THR_WIDE_INLINE int thr_mw_all(thr_mw m) { return thr_mw_movemask(m) == 0xff; }

// ---------------------------------------------------------------- ints

THR_WIDE_INLINE thr_iw thr_iw_zero(void) { return simde_mm256_setzero_si256(); }
THR_WIDE_INLINE thr_iw thr_iw_set1(int32_t a) { return simde_mm256_set1_epi32(a); }
/// Lanes 0..7 = a0..a7.
THR_WIDE_INLINE thr_iw thr_iw_setr(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t a4,
	int32_t a5, int32_t a6, int32_t a7)
{
	return simde_mm256_setr_epi32(a0, a1, a2, a3, a4, a5, a6, a7);
}
/// Lane i = i: lane indices, for tail masks and per-lane ids.
THR_WIDE_INLINE thr_iw thr_iw_iota(void) { return simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }

/// p aligned to THR_WIDE_ALIGN bytes. uint32_t arrays may be passed cast.
THR_WIDE_INLINE thr_iw thr_iw_load(const int32_t* p) { return simde_mm256_load_si256((const simde__m256i*)(const void*)p); }
THR_WIDE_INLINE thr_iw thr_iw_loadu(const int32_t* p) { return simde_mm256_loadu_si256((const simde__m256i*)(const void*)p); }
THR_WIDE_INLINE void thr_iw_store(int32_t* p, thr_iw a) { simde_mm256_store_si256((simde__m256i*)(void*)p, a); }
THR_WIDE_INLINE void thr_iw_storeu(int32_t* p, thr_iw a) { simde_mm256_storeu_si256((simde__m256i*)(void*)p, a); }

/// Lanes i < count from p[i], the rest = fill; reads only p[0..count-1].
THR_WIDE_INLINE thr_iw thr_iw_load_tail(const int32_t* p, int count, int32_t fill)
{
	_Alignas(THR_WIDE_ALIGN) int32_t buf[THR_WIDE_LANES];
	for (int i = 0; i < THR_WIDE_LANES; ++i) {
		buf[i] = i < count ? p[i] : fill;
	}
	return thr_iw_load(buf);
}

/// Lane i (0..7) as a scalar; for tests and debugging, not for kernels.
THR_WIDE_INLINE int32_t thr_iw_lane(thr_iw a, int i)
{
	_Alignas(THR_WIDE_ALIGN) int32_t buf[THR_WIDE_LANES];
	thr_iw_store(buf, a);
	return buf[i & (THR_WIDE_LANES - 1)];
}

/// Wrapping (two's complement) add, sub and low-32-bit multiply.
//
// SIMDe's plain-C fallbacks compute these in signed int, where overflow is
// undefined (UBSan flags it). Where SIMDe would use them, the lanes go
// through uint32 arrays instead: defined wrapping, and gcc still emits one
// vector op for the loop.
#if !defined(SIMDE_X86_SSE2_NATIVE)
#define THR_WIDE_U32_LOOP(a, b, op)                                                        \
	do {                                                                                   \
		_Alignas(THR_WIDE_ALIGN) uint32_t x_[THR_WIDE_LANES], y_[THR_WIDE_LANES];        \
		simde_mm256_store_si256((simde__m256i*)(void*)x_, (a));                          \
		simde_mm256_store_si256((simde__m256i*)(void*)y_, (b));                          \
		for (int i_ = 0; i_ < THR_WIDE_LANES; ++i_) {                                    \
			x_[i_] = x_[i_] op y_[i_];                                                   \
		}                                                                              \
		return simde_mm256_load_si256((const simde__m256i*)(const void*)x_);             \
	} while (0)
#endif

THR_WIDE_INLINE thr_iw thr_iw_add(thr_iw a, thr_iw b)
{
#if defined(SIMDE_X86_SSE2_NATIVE)
	return simde_mm256_add_epi32(a, b);
#else
	THR_WIDE_U32_LOOP(a, b, +);
#endif
}

THR_WIDE_INLINE thr_iw thr_iw_sub(thr_iw a, thr_iw b)
{
#if defined(SIMDE_X86_SSE2_NATIVE)
	return simde_mm256_sub_epi32(a, b);
#else
	THR_WIDE_U32_LOOP(a, b, -);
#endif
}

THR_WIDE_INLINE thr_iw thr_iw_mul(thr_iw a, thr_iw b)
{
#if defined(SIMDE_X86_AVX2_NATIVE)
	return simde_mm256_mullo_epi32(a, b);
#elif defined(SIMDE_X86_SSE2_NATIVE)
	// SIMDe's 256-bit fallback would multiply in int; its 128-bit one goes
	// through int64 and masks, so use that on each half.
	simde__m128i lo = simde_mm_mullo_epi32(simde_mm256_castsi256_si128(a), simde_mm256_castsi256_si128(b));
	simde__m128i hi = simde_mm_mullo_epi32(simde_mm256_extracti128_si256(a, 1), simde_mm256_extracti128_si256(b, 1));
	return simde_mm256_set_m128i(hi, lo);
#else
	THR_WIDE_U32_LOOP(a, b, *);
#endif
}
THR_WIDE_INLINE thr_iw thr_iw_and(thr_iw a, thr_iw b) { return simde_mm256_and_si256(a, b); }
THR_WIDE_INLINE thr_iw thr_iw_or(thr_iw a, thr_iw b) { return simde_mm256_or_si256(a, b); }
THR_WIDE_INLINE thr_iw thr_iw_xor(thr_iw a, thr_iw b) { return simde_mm256_xor_si256(a, b); }
/// Shift right logical (zeros in), as uint32 >> n; n a constant in [0, 31].
THR_WIDE_INLINE thr_iw thr_iw_srl(thr_iw a, int n) { return simde_mm256_srli_epi32(a, n); }
/// Shift right arithmetic (sign in), as int32 >> n on gcc; n in [0, 31].
THR_WIDE_INLINE thr_iw thr_iw_sra(thr_iw a, int n) { return simde_mm256_srai_epi32(a, n); }
/// Shift left, as uint32 << n; n a constant in [0, 31].
THR_WIDE_INLINE thr_iw thr_iw_sll(thr_iw a, int n) { return simde_mm256_slli_epi32(a, n); }

/// Signed compares.
THR_WIDE_INLINE thr_mw thr_iw_eq(thr_iw a, thr_iw b) { return (thr_mw){simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(a, b))}; }
THR_WIDE_INLINE thr_mw thr_iw_gt(thr_iw a, thr_iw b) { return (thr_mw){simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(a, b))}; }
THR_WIDE_INLINE thr_mw thr_iw_lt(thr_iw a, thr_iw b) { return thr_iw_gt(b, a); }

/// m ? a : b per lane.
THR_WIDE_INLINE thr_iw thr_iw_select(thr_mw m, thr_iw a, thr_iw b)
{
	simde__m256i mi = simde_mm256_castps_si256(m.v);
	return simde_mm256_or_si256(simde_mm256_and_si256(mi, a), simde_mm256_andnot_si256(mi, b));
}

/// Lanes i < count true (count may be anything: <= 0 none, >= 8 all).
THR_WIDE_INLINE thr_mw thr_mw_first(int count) { return thr_iw_lt(thr_iw_iota(), thr_iw_set1(count)); }

// ---------------------------------------------------------------- gathers
// Loads are exact, so a gather gives the same bits in every build (AVX2's
// vgatherdps natively, one load per lane elsewhere). Every index must be a
// valid element of base, also in lanes the caller masks off.

/// Lane i = base[idx lane i].
THR_WIDE_INLINE thr_fw thr_fw_gather(const float* base, thr_iw idx)
{
	return simde_mm256_i32gather_ps(base, idx, 4);
}

/// Lane i = base[idx lane i].
THR_WIDE_INLINE thr_iw thr_iw_gather(const int32_t* base, thr_iw idx)
{
	return simde_mm256_i32gather_epi32(base, idx, 4);
}

// ---------------------------------------------------------------- conversions

/// int32 -> float, rounded to nearest even (exact below 2^24 in magnitude).
THR_WIDE_INLINE thr_fw thr_iw_to_fw(thr_iw a) { return simde_mm256_cvtepi32_ps(a); }

/// float -> int32 truncated toward zero, as the C cast. Out of range
/// (|a| >= 2^31 except -2^31), infinities and NaN give INT32_MIN in every
/// build, as x86's cvttps2dq and cvttss2si do (in C that cast is undefined).
THR_WIDE_INLINE thr_iw thr_fw_to_iw_trunc(thr_fw a)
{
#if defined(SIMDE_X86_AVX_NATIVE)
	return simde_mm256_cvttps_epi32(a);
#else
	// SIMDe's 256-bit fallback goes through truncf and a C cast per lane;
	// its 128-bit conversion defines the out-of-range result and lowers to
	// cvttps2dq on SSE2, so use it on each half.
	simde__m128i lo = simde_mm_cvttps_epi32(simde_mm256_castps256_ps128(a));
	simde__m128i hi = simde_mm_cvttps_epi32(simde_mm256_extractf128_ps(a, 1));
	return simde_mm256_set_m128i(hi, lo);
#endif
}

/// Reinterpret the bits (no conversion).
THR_WIDE_INLINE thr_iw thr_fw_as_iw(thr_fw a) { return simde_mm256_castps_si256(a); }
THR_WIDE_INLINE thr_fw thr_iw_as_fw(thr_iw a) { return simde_mm256_castsi256_ps(a); }
THR_WIDE_INLINE thr_iw thr_mw_as_iw(thr_mw m) { return simde_mm256_castps_si256(m.v); }
THR_WIDE_INLINE thr_fw thr_mw_as_fw(thr_mw m) { return m.v; }
/// A mask from int lanes that are each 0 or -1 (anything else is undefined).
THR_WIDE_INLINE thr_mw thr_mw_from_iw(thr_iw a) { return (thr_mw){simde_mm256_castsi256_ps(a)}; }



// ---------------------------------------------------------------- lanes by byte, bits, and across lanes

/// Lane i = base[idx lane i], a byte zero-extended. Every index must be a
/// valid element of base, also in lanes the caller masks off. One load per
/// lane in every build: a 32-bit gather would read up to 3 bytes past the
/// array's end.
THR_WIDE_INLINE thr_iw thr_iw_gather_u8(const uint8_t* base, thr_iw idx)
{
	_Alignas(THR_WIDE_ALIGN) int32_t i[THR_WIDE_LANES];
	thr_iw_store(i, idx);
	return thr_iw_setr(base[i[0]], base[i[1]], base[i[2]], base[i[3]], base[i[4]], base[i[5]], base[i[6]], base[i[7]]);
}

/// Lane i true where bit i of bits is set (bits as thr_mw_movemask gives).
THR_WIDE_INLINE thr_mw thr_mw_from_bits(int bits)
{
	const thr_iw lane_bit = thr_iw_setr(1, 2, 4, 8, 16, 32, 64, 128);
	return thr_iw_eq(thr_iw_and(thr_iw_set1(bits), lane_bit), lane_bit);
}

/// The least of the 8 lanes by thr_fw_min in a fixed tree. Exact in any
/// order, so equal to a scalar loop's `x < m ? x : m`, when no lane is NaN
/// and no two lanes are zeros of opposite signs.
THR_WIDE_INLINE float thr_fw_hmin(thr_fw a)
{
	simde__m128 m4 = simde_mm_min_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
	simde__m128 m2 = simde_mm_min_ps(m4, simde_mm_movehl_ps(m4, m4));
	simde__m128 m1 = simde_mm_min_ss(m2, simde_mm_shuffle_ps(m2, m2, 1));
	return simde_mm_cvtss_f32(m1);
}

/// The greatest of the 8 lanes by thr_fw_max in a fixed tree (the same
/// conditions as thr_fw_hmin).
THR_WIDE_INLINE float thr_fw_hmax(thr_fw a)
{
	simde__m128 m4 = simde_mm_max_ps(simde_mm256_castps256_ps128(a), simde_mm256_extractf128_ps(a, 1));
	simde__m128 m2 = simde_mm_max_ps(m4, simde_mm_movehl_ps(m4, m4));
	simde__m128 m1 = simde_mm_max_ss(m2, simde_mm_shuffle_ps(m2, m2, 1));
	return simde_mm_cvtss_f32(m1);
}

/// Writes lanes i < count to p[i]; p[count..7] are not touched.
THR_WIDE_INLINE void thr_iw_store_tail(int32_t* p, thr_iw a, int count)
{
	_Alignas(THR_WIDE_ALIGN) int32_t buf[THR_WIDE_LANES];
	thr_iw_store(buf, a);
	const int k = count < 0 ? 0 : (count > THR_WIDE_LANES ? THR_WIDE_LANES : count);
	__builtin_memcpy(p, buf, (size_t)k * sizeof buf[0]);
}

#endif
