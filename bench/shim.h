// SPDX-License-Identifier: MIT
// A C face for Google Benchmark, so that every benchmark body is C.
//
// Google Benchmark is C++; shim.cc wraps the few parts the suite uses. A
// benchmark is a C function that loops while thr_bench_keep_running() is
// true and then reports what it processed:
//
//     static void bench_thing(thr_bench_state* st) {
//         int64_t n = thr_bench_range(st, 0);
//         ... set up, untimed until the loop starts ...
//         while (thr_bench_keep_running(st)) {
//             do_one_step(n);
//         }
//         thr_bench_set_items_processed(st, thr_bench_iterations(st) * n);
//     }
//
//     thr_bench* b = thr_bench_register("thing", bench_thing);
//     thr_bench_add_arg(b, 1000);
//
// Handles are opaque: thr_bench_state is a benchmark::State and thr_bench a
// registered benchmark, both owned by Google Benchmark.
#ifndef THRONG_BENCH_SHIM_H
#define THRONG_BENCH_SHIM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The running state of one benchmark run (a benchmark::State).
typedef struct thr_bench_state thr_bench_state;
/// A registered benchmark family (a benchmark::internal::Benchmark).
typedef struct thr_bench thr_bench;
/// A benchmark body.
typedef void (*thr_bench_fn)(thr_bench_state* st);
/// A benchmark body that receives the pointer given at registration.
typedef void (*thr_bench_data_fn)(thr_bench_state* st, const void* data);

/// Unit the console shows times in.
typedef enum thr_bench_unit {
	THR_BENCH_NS = 0,
	THR_BENCH_US,
	THR_BENCH_MS,
	THR_BENCH_S,
} thr_bench_unit;

/// Registers `fn` under `name` (copied). Returns the handle used to add
/// arguments; it stays owned by Google Benchmark. Besides Google
/// Benchmark's mean, median, stddev and cv, repeated runs
/// (--benchmark_repetitions) also report "min" and "max" aggregates of the
/// time and of every counter.
thr_bench* thr_bench_register(const char* name, thr_bench_fn fn);
/// As thr_bench_register, for a body that gets `data` on every call (not
/// copied: it must outlive the run, e.g. a static case table).
thr_bench* thr_bench_register_data(const char* name, thr_bench_data_fn fn, const void* data);
/// Adds a run with one argument, read back with thr_bench_range(st, 0).
void thr_bench_add_arg(thr_bench* bench, int64_t value);
/// Adds a run with `count` arguments, read back with thr_bench_range(st, i).
void thr_bench_add_args(thr_bench* bench, const int64_t* values, int count);
/// Names argument 0 in the report ("agents" gives "name/agents:1000").
void thr_bench_set_arg_name(thr_bench* bench, const char* name);
/// Names arguments 0..count-1 ("agents", "threads" gives
/// "name/agents:1000/threads:2"); the strings are copied.
void thr_bench_set_arg_names(thr_bench* bench, const char* const* names, int count);
/// Times wall-clock, not this thread's CPU time; rates use it too. Needed
/// when the body runs threads of its own (OpenMP).
void thr_bench_use_real_time(thr_bench* bench);
/// Times what the body reports with thr_bench_set_iteration_time() instead
/// of the loop; rates use it too. For bodies that do untimed work inside
/// the loop (a second world, a rebuilt scene).
void thr_bench_use_manual_time(thr_bench* bench);
/// Sets the unit of the console report.
void thr_bench_set_unit(thr_bench* bench, thr_bench_unit unit);
/// Minimum time (s) of a run, overriding --benchmark_min_time.
void thr_bench_set_min_time(thr_bench* bench, double seconds);

/// True while the benchmark wants another iteration; the timed region is
/// the loop on this call.
bool thr_bench_keep_running(thr_bench_state* st);
/// Argument `index` of this run (see thr_bench_add_arg).
int64_t thr_bench_range(const thr_bench_state* st, int index);
/// Iterations done so far (after the loop: all of them).
int64_t thr_bench_iterations(const thr_bench_state* st);
/// Items processed in the whole run; reported as items_per_second.
void thr_bench_set_items_processed(thr_bench_state* st, int64_t items);
/// Sets a named counter reported as is (not as a rate).
void thr_bench_set_counter(thr_bench_state* st, const char* name, double value);
/// With thr_bench_use_manual_time(): the time (s) of this iteration.
void thr_bench_set_iteration_time(thr_bench_state* st, double seconds);
/// Stops and restarts the timer inside the loop (costly: keep it out of
/// tight loops).
void thr_bench_pause_timing(thr_bench_state* st);
void thr_bench_resume_timing(thr_bench_state* st);
/// Marks the run failed with `message` (copied); the loop ends after the
/// current iteration, and the body should return.
void thr_bench_skip_with_error(thr_bench_state* st, const char* message);

/// Parses --benchmark_* flags, runs the selected benchmarks and returns the
/// process exit code (1 on an unknown argument).
int thr_bench_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif
