// SPDX-License-Identifier: MIT
// Registration functions of the benchmark files, called from main.c.
#ifndef THRONG_BENCH_BENCHES_H
#define THRONG_BENCH_BENCHES_H

/// Whole-step throughput of the built-in scenarios (bench_step.c).
void bench_step_register(void);

/// Frees bench_step.c's scene.
void bench_step_free(void);

/// Per-pass costs against a base world (bench_pass.c).
void bench_pass_register(void);

/// Frees bench_pass.c's source scene.
void bench_pass_free(void);

/// The reorder's memory pattern with and without staggered arrays
/// (bench_probe.c).
void bench_probe_register(void);

/// A world whose agents come and go: removal and spawn every step
/// (bench_churn.c).
void bench_churn_register(void);

/// A battle of two armies with combat on and off (bench_battle.c).
void bench_battle_register(void);

/// Spatial queries on a field between steps (bench_query.c).
void bench_query_register(void);

/// Frees bench_query.c's scene and buffers.
void bench_query_free(void);

#endif
