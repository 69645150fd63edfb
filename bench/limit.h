// SPDX-License-Identifier: MIT
// The machine's limits, measured by the benchmark binary itself: the peak
// rate of 8-lane float multiplies and adds (no FMA: throng never fuses) and
// the memory bandwidth of a streaming triad over arrays far larger than the
// last-level cache. Every step benchmark reports the share of both limits
// its agent-steps reach.
#ifndef THRONG_BENCH_LIMIT_H
#define THRONG_BENCH_LIMIT_H

/// One measurement of both limits at a thread count.
typedef struct bench_limits {
	double gflops; ///< 10^9 lane multiplies and adds per second
	double gbytes; ///< 10^9 bytes per second (triad: 12 bytes an element)
} bench_limits;

/// The best of three short measurements, made on the first call for each
/// thread count (1 or 2) and kept for the rest of the process.
bench_limits bench_limits_get(int threads);

/// Registers limit/flops and limit/bandwidth at 1 and 2 threads.
void bench_limit_register(void);

/// Frees the triad arrays.
void bench_limit_free(void);

#endif
