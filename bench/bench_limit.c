// SPDX-License-Identifier: MIT
// The limit probe (limit.h).
//
// Peak vector flops: each thread runs BENCH_CHAINS independent chains of
// 8-lane values through the project's wide layer (simd/wide.h, the ops the
// engine uses), half of them multiplies and half adds, so the kernel issues
// one multiply and one add for every two chains, none waiting on the other
// half. With 12 chains, 6 of each, 2 multiplies and 2 adds a cycle stay in
// flight for latencies of up to 3 cycles (AMD Zen 4/5 have two FP multiply
// and two FP add pipes with 3-cycle latency; Intel since Skylake has two
// FMA pipes that take either, with 4 cycles, and is then limited to 2 ops
// a cycle, which 12 chains also cover); 12 accumulators and 2 constants
// fit the 16 ymm registers. Values stay normal: the multiply chains decay
// by (1 - 2^-23) and the add chains grow by 2^-10 per step. A flop is one
// lane of one mul or add (as in cost.h).
//
// Bandwidth: a[i] = b[i] + s*c[i] over three float arrays of BENCH_TRIAD_MB
// MiB each (3x that in all, far beyond any last-level cache here), counted
// as 12 bytes an element (STREAM's convention: the write-allocate read of a
// is not counted). The arrays are allocated once, first touched by the
// threads of the first probe, and kept for the later ones.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "benches.h"
#include "common.h"
#include "limit.h"
#include "shim.h"
#include "wide.h"

#define BENCH_CHAINS 12
/// Kernel steps per call: 12 chains * 8 lanes * 2^23 = 8 * 10^8 flops.
#define BENCH_FLOP_STEPS (1u << 23)
#define BENCH_TRIAD_MB 128

/// One call: 8 * BENCH_CHAINS * BENCH_FLOP_STEPS flops. Returns a value
/// that depends on every chain, so nothing is optimised away.
static float flop_kernel(float seed)
{
	const thr_fw m = thr_fw_set1(0.99999988f);
	const thr_fw a = thr_fw_set1(1.0f / 1024.0f);
	thr_fw x0 = thr_fw_set1(seed), x1 = thr_fw_set1(seed + 1.0f), x2 = thr_fw_set1(seed + 2.0f);
	thr_fw x3 = thr_fw_set1(seed + 3.0f), x4 = thr_fw_set1(seed + 4.0f), x5 = thr_fw_set1(seed + 5.0f);
	thr_fw y0 = thr_fw_set1(seed), y1 = thr_fw_set1(seed + 1.0f), y2 = thr_fw_set1(seed + 2.0f);
	thr_fw y3 = thr_fw_set1(seed + 3.0f), y4 = thr_fw_set1(seed + 4.0f), y5 = thr_fw_set1(seed + 5.0f);
	for (uint32_t k = 0; k < BENCH_FLOP_STEPS; ++k) {
		x0 = thr_fw_mul(x0, m); y0 = thr_fw_add(y0, a);
		x1 = thr_fw_mul(x1, m); y1 = thr_fw_add(y1, a);
		x2 = thr_fw_mul(x2, m); y2 = thr_fw_add(y2, a);
		x3 = thr_fw_mul(x3, m); y3 = thr_fw_add(y3, a);
		x4 = thr_fw_mul(x4, m); y4 = thr_fw_add(y4, a);
		x5 = thr_fw_mul(x5, m); y5 = thr_fw_add(y5, a);
	}
	thr_fw s = thr_fw_add(thr_fw_add(thr_fw_add(x0, x1), thr_fw_add(x2, x3)), thr_fw_add(x4, x5));
	s = thr_fw_add(s, thr_fw_add(thr_fw_add(thr_fw_add(y0, y1), thr_fw_add(y2, y3)), thr_fw_add(y4, y5)));
	return thr_fw_hsum(s);
}

#define BENCH_FLOPS_PER_CALL (8.0 * BENCH_CHAINS * (double)BENCH_FLOP_STEPS)

static volatile float bench_sink;

/// Flops per second of `threads` threads each running one kernel call.
static double measure_flops(int threads)
{
	float sum = 0.0f;
	double t0 = bench_now();
#pragma omp parallel num_threads(threads) reduction(+ : sum)
	{
#ifdef _OPENMP
		sum += flop_kernel((float)omp_get_thread_num());
#else
		sum += flop_kernel(0.0f);
#endif
	}
	double t = bench_now() - t0;
	bench_sink = sum;
	return BENCH_FLOPS_PER_CALL * threads / t;
}

typedef struct triad {
	float *a, *b, *c;
	int64_t n;
} triad;

/// The triad arrays, allocated once (first touched by `threads` threads)
/// and kept until bench_limit_free().
static triad shared_triad;

static int triad_alloc(triad* t, int threads)
{
	if (shared_triad.a != NULL) {
		*t = shared_triad;
		return 0;
	}
	t->n = (int64_t)BENCH_TRIAD_MB * 1024 * 1024 / (int64_t)sizeof(float);
	size_t bytes = (size_t)t->n * sizeof(float);
	t->a = aligned_alloc(64, bytes);
	t->b = aligned_alloc(64, bytes);
	t->c = aligned_alloc(64, bytes);
	if (t->a == NULL || t->b == NULL || t->c == NULL) {
		free(t->a); free(t->b); free(t->c);
		return -1;
	}
	float *a = t->a, *b = t->b, *c = t->c;
	const int64_t n = t->n;
	(void)threads;
#pragma omp parallel for schedule(static) num_threads(threads)
	for (int64_t i = 0; i < n; ++i) {
		a[i] = 0.0f;
		b[i] = 1.0f;
		c[i] = 2.0f;
	}
	shared_triad = *t;
	return 0;
}

void bench_limit_free(void)
{
	free(shared_triad.a); free(shared_triad.b); free(shared_triad.c);
	memset(&shared_triad, 0, sizeof shared_triad);
}

/// Bytes per second of one triad pass with `threads` threads.
static double measure_triad(const triad* t, int threads, float s)
{
	float* restrict a = t->a;
	const float* restrict b = t->b;
	const float* restrict c = t->c;
	const int64_t n = t->n;
	(void)threads;
	double t0 = bench_now();
#pragma omp parallel for schedule(static) num_threads(threads)
	for (int64_t i = 0; i < n; ++i) {
		a[i] = b[i] + s * c[i];
	}
	double dt = bench_now() - t0;
	bench_sink = a[n / 2];
	return 12.0 * (double)n / dt;
}

bench_limits bench_limits_get(int threads)
{
	static bench_limits cache[3];
	static int known[3];
	int k = threads >= 2 ? 2 : 1;
	if (!known[k]) {
		bench_limits best = {0.0, 0.0};
		triad t;
		int have = triad_alloc(&t, k) == 0;
		for (int r = 0; r < 3; ++r) {
			double f = measure_flops(k);
			best.gflops = f > best.gflops ? f : best.gflops;
			if (have) {
				double b = measure_triad(&t, k, 3.0f);
				best.gbytes = b > best.gbytes ? b : best.gbytes;
			}
		}
		best.gflops *= 1e-9;
		best.gbytes *= 1e-9;
		cache[k] = best;
		known[k] = 1;
	}
	return cache[k];
}

static void limit_flops(thr_bench_state* st)
{
	int threads = (int)thr_bench_range(st, 0);
	double flops = 0.0, seconds = 0.0;
	while (thr_bench_keep_running(st)) {
		double t0 = bench_now();
		double rate = measure_flops(threads);
		double dt = bench_now() - t0;
		thr_bench_set_iteration_time(st, dt);
		flops += rate * dt;
		seconds += dt;
	}
	thr_bench_set_items_processed(st, (int64_t)flops);
	thr_bench_set_counter(st, "gflops", seconds > 0 ? flops / seconds * 1e-9 : 0.0);
	thr_bench_set_counter(st, "threads", threads);
}

static void limit_bandwidth(thr_bench_state* st)
{
	int threads = (int)thr_bench_range(st, 0);
	triad t;
	if (triad_alloc(&t, threads) != 0) {
		thr_bench_skip_with_error(st, "out of memory for the triad arrays");
		return;
	}
	double bytes = 0.0, seconds = 0.0;
	measure_triad(&t, threads, 3.0f); // pages and TLB warm
	while (thr_bench_keep_running(st)) {
		double t0 = bench_now();
		double rate = measure_triad(&t, threads, 3.0f);
		double dt = bench_now() - t0;
		thr_bench_set_iteration_time(st, dt);
		bytes += rate * dt;
		seconds += dt;
	}
	thr_bench_set_items_processed(st, (int64_t)(bytes / 12.0));
	thr_bench_set_counter(st, "gbytes_per_s", seconds > 0 ? bytes / seconds * 1e-9 : 0.0);
	thr_bench_set_counter(st, "threads", threads);
}

void bench_limit_register(void)
{
	static const char* const names[] = {"threads"};
	thr_bench* f = thr_bench_register("limit/flops", limit_flops);
	thr_bench* b = thr_bench_register("limit/bandwidth", limit_bandwidth);
	thr_bench* both[2] = {f, b};
	for (int k = 0; k < 2; ++k) {
		thr_bench_set_arg_names(both[k], names, 1);
		for (int64_t t = 1; t <= 2; ++t) {
			thr_bench_add_args(both[k], &t, 1);
		}
		thr_bench_use_manual_time(both[k]);
		thr_bench_set_min_time(both[k], 0.2);
		thr_bench_set_unit(both[k], THR_BENCH_MS);
	}
}
