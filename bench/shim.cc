// SPDX-License-Identifier: MIT
// The C++ side of shim.h: each C call forwards to Google Benchmark.
#include "shim.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

double stat_min(const std::vector<double>& v) {
	return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

double stat_max(const std::vector<double>& v) {
	return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

benchmark::State& state_of(thr_bench_state* st) {
	return *reinterpret_cast<benchmark::State*>(st);
}

const benchmark::State& state_of(const thr_bench_state* st) {
	return *reinterpret_cast<const benchmark::State*>(st);
}

benchmark::internal::Benchmark* bench_of(thr_bench* bench) {
	return reinterpret_cast<benchmark::internal::Benchmark*>(bench);
}

}  // namespace

extern "C" {

thr_bench* thr_bench_register(const char* name, thr_bench_fn fn) {
	benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
		name, [fn](benchmark::State& st) { fn(reinterpret_cast<thr_bench_state*>(&st)); });
	b->ComputeStatistics("min", stat_min);
	b->ComputeStatistics("max", stat_max);
	return reinterpret_cast<thr_bench*>(b);
}

thr_bench* thr_bench_register_data(const char* name, thr_bench_data_fn fn, const void* data) {
	benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
		name, [fn, data](benchmark::State& st) { fn(reinterpret_cast<thr_bench_state*>(&st), data); });
	b->ComputeStatistics("min", stat_min);
	b->ComputeStatistics("max", stat_max);
	return reinterpret_cast<thr_bench*>(b);
}

void thr_bench_add_arg(thr_bench* bench, int64_t value) {
	bench_of(bench)->Arg(value);
}

void thr_bench_add_args(thr_bench* bench, const int64_t* values, int count) {
	bench_of(bench)->Args(std::vector<int64_t>(values, values + count));
}

void thr_bench_set_arg_names(thr_bench* bench, const char* const* names, int count) {
	bench_of(bench)->ArgNames(std::vector<std::string>(names, names + count));
}

void thr_bench_use_manual_time(thr_bench* bench) {
	bench_of(bench)->UseManualTime();
}

void thr_bench_set_min_time(thr_bench* bench, double seconds) {
	bench_of(bench)->MinTime(seconds);
}

void thr_bench_set_arg_name(thr_bench* bench, const char* name) {
	bench_of(bench)->ArgName(name);
}

void thr_bench_use_real_time(thr_bench* bench) {
	bench_of(bench)->UseRealTime();
}

void thr_bench_set_unit(thr_bench* bench, thr_bench_unit unit) {
	benchmark::TimeUnit u = benchmark::kNanosecond;
	switch (unit) {
	case THR_BENCH_NS: u = benchmark::kNanosecond; break;
	case THR_BENCH_US: u = benchmark::kMicrosecond; break;
	case THR_BENCH_MS: u = benchmark::kMillisecond; break;
	case THR_BENCH_S: u = benchmark::kSecond; break;
	}
	bench_of(bench)->Unit(u);
}

bool thr_bench_keep_running(thr_bench_state* st) {
	return state_of(st).KeepRunning();
}

int64_t thr_bench_range(const thr_bench_state* st, int index) {
	return state_of(st).range(static_cast<std::size_t>(index));
}

int64_t thr_bench_iterations(const thr_bench_state* st) {
	return static_cast<int64_t>(state_of(st).iterations());
}

void thr_bench_set_items_processed(thr_bench_state* st, int64_t items) {
	state_of(st).SetItemsProcessed(items);
}

void thr_bench_set_counter(thr_bench_state* st, const char* name, double value) {
	state_of(st).counters[name] = benchmark::Counter(value);
}

void thr_bench_set_iteration_time(thr_bench_state* st, double seconds) {
	state_of(st).SetIterationTime(seconds);
}

void thr_bench_pause_timing(thr_bench_state* st) {
	state_of(st).PauseTiming();
}

void thr_bench_resume_timing(thr_bench_state* st) {
	state_of(st).ResumeTiming();
}

void thr_bench_skip_with_error(thr_bench_state* st, const char* message) {
	state_of(st).SkipWithError(message);
}

int thr_bench_main(int argc, char** argv) {
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
		return 1;
	}
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}

}  // extern "C"
