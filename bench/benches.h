// SPDX-License-Identifier: MIT
// Registration functions of the benchmark files, called from main.c.
#ifndef THRONG_BENCH_BENCHES_H
#define THRONG_BENCH_BENCHES_H

/// Whole-step throughput of the built-in scenarios (bench_step.c).
void bench_step_register(void);

#endif
