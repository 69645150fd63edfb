// SPDX-License-Identifier: MIT
// throng_wide_dump: writes the raw bits of every wide op and wide math
// function over a fixed input set to stdout, for comparing SIMD builds.
//
// scripts/check_simd_builds runs it in the native, sse2 and portable builds
// and compares the sha256 of the output: equal digests mean the three
// backends computed the same bits, lane for lane. The inputs come from a
// fixed integer generator (no libm, no scalar engine), so the tool only
// needs the wide layer. Usage: throng_wide_dump [count] > dump.bin
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wide.h"
#include "wmath.h"

static uint32_t next_u32(uint64_t* state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/// One input value: edge values first, then a mix of random bit patterns
/// (every magnitude, denormals, infinities, NaN) and engine-like ranges.
static float input(uint64_t* st, uint32_t i)
{
	static const uint32_t edges[] = {
		0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x00000001u, 0x80000001u,
		0x00800000u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
		0x7fc00000u, 0x40490fdbu, 0xc0490fdbu, 0x3fc90fdbu, 0x40c90fdbu, 0x4b400000u,
		0x4a800000u, 0x4f000000u, 0xcf000000u, 0x3ed413cdu, 0x3f000000u, 0x40200000u,
	};
	if (i < sizeof edges / sizeof edges[0]) {
		return bitsf(edges[i]);
	}
	uint32_t r = next_u32(st);
	float u = (float)(next_u32(st) >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
	switch (r & 3u) {
	case 0: return bitsf(next_u32(st));
	case 1: return u * 10.0f;
	case 2: return u * 1.0e4f;
	default: return (float)(int32_t)(r >> 20) - 2048.0f + ((r & 4u) ? 0.0f : u * 1.0e-3f);
	}
}

/// Writes the 8 lanes; every NaN as the one quiet NaN 0x7fc00000, since NaN
/// payloads are not part of the promise (wide.h: with two NaN operands the
/// portable build may return the other one's payload).
static void put_f(thr_fw a, FILE* out)
{
	_Alignas(THR_WIDE_ALIGN) float buf[THR_WIDE_LANES];
	thr_fw nan = thr_iw_as_fw(thr_iw_set1(0x7fc00000));
	thr_fw_store(buf, thr_fw_select(thr_fw_neq(a, a), nan, a));
	fwrite(buf, sizeof buf, 1, out);
}

static void put_i(thr_iw a, FILE* out)
{
	_Alignas(THR_WIDE_ALIGN) int32_t buf[THR_WIDE_LANES];
	thr_iw_store(buf, a);
	fwrite(buf, sizeof buf, 1, out);
}

static void put_scalar(const void* p, size_t n, FILE* out) { fwrite(p, n, 1, out); }

int main(int argc, char** argv)
{
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : 1L << 17;
	if (count < 8) {
		count = 8;
	}
	FILE* out = stdout;
	uint64_t st = 0x7468726f6e67ull; // "throng"
	_Alignas(THR_WIDE_ALIGN) float x[THR_WIDE_LANES], y[THR_WIDE_LANES];
	_Alignas(THR_WIDE_ALIGN) int32_t k[THR_WIDE_LANES];
	for (long base = 0; base + THR_WIDE_LANES <= count; base += THR_WIDE_LANES) {
		for (int l = 0; l < THR_WIDE_LANES; ++l) {
			x[l] = input(&st, (uint32_t)(base + l));
			y[l] = input(&st, (uint32_t)(base + l) ^ 5u);
			k[l] = (int32_t)next_u32(&st);
		}
		thr_fw a = thr_fw_load(x), b = thr_fw_load(y);
		thr_iw ki = thr_iw_load(k);

		// The layer's arithmetic, compares, selects and reductions.
		put_f(thr_fw_add(a, b), out);
		put_f(thr_fw_sub(a, b), out);
		put_f(thr_fw_mul(a, b), out);
		put_f(thr_fw_div(a, b), out);
		put_f(thr_fw_sqrt(a), out);
		put_f(thr_fw_min(a, b), out);
		put_f(thr_fw_max(a, b), out);
		put_f(thr_fw_abs(a), out);
		put_f(thr_fw_neg(a), out);
		put_f(thr_fw_select(thr_fw_le(a, b), a, b), out);
		int masks[6] = {
			thr_mw_movemask(thr_fw_lt(a, b)), thr_mw_movemask(thr_fw_le(a, b)),
			thr_mw_movemask(thr_fw_gt(a, b)), thr_mw_movemask(thr_fw_ge(a, b)),
			thr_mw_movemask(thr_fw_eq(a, b)), thr_mw_movemask(thr_fw_neq(a, b)),
		};
		put_scalar(masks, sizeof masks, out);
		float sum = thr_fw_hsum(thr_fw_mul(a, thr_fw_set1(1.0e-3f)));
		put_scalar(&sum, sizeof sum, out);
		put_i(thr_fw_to_iw_trunc(a), out);
		put_f(thr_iw_to_fw(ki), out);
		put_i(thr_iw_mul(ki, thr_fw_as_iw(a)), out);
		put_i(thr_iw_add(thr_iw_srl(ki, 7), thr_iw_sll(ki, 3)), out);
		put_i(thr_iw_sub(thr_iw_sra(ki, 9), ki), out);
		put_f(thr_fw_load_tail(x, (int)(base / 8 % 9), -1.0f), out);
		thr_iw rev = thr_iw_sub(thr_iw_set1(7), thr_iw_iota());
		put_f(thr_fw_gather(x, rev), out);
		put_i(thr_iw_gather(k, rev), out);

		// The wide math, on the raw inputs and on engine-range angles.
		thr_fw s, c;
		thr_sincosf_w(a, &s, &c);
		put_f(s, out);
		put_f(c, out);
		put_f(thr_atan2f_w(a, b), out);
		put_f(thr_atan2f_w(s, c), out);
		put_f(thr_wrap_angle_w(a), out);
		put_f(thr_roundf_w(a), out);
		put_f(thr_floorf_w(a), out);
		put_f(thr_noise1_w(ki, a), out);
		put_i(thr_mix32_w(ki), out);
		thr_iw bits = thr_rng_bits_w(ki, thr_iw_iota(), thr_iw_set1((int32_t)base), THR_STREAM_WANDER);
		put_i(bits, out);
		put_f(thr_bits_to_unit_w(bits), out);
		put_f(thr_bits_to_pm1_w(bits), out);
	}
	return fflush(out) == 0 ? 0 : 1;
}
