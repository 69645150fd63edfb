// SPDX-License-Identifier: MIT
// throng_bench: registers every benchmark, then hands over to Google
// Benchmark, which reads the --benchmark_* flags (filter, output, min time,
// repetitions).
//
// Families, in run order: limit/ (the machine's peak flops and bandwidth,
// limit.h), probe/ (the reorder's memory pattern, bench_probe.c), step/
// (whole steps, bench_step.c), pass/ (per-pass costs, bench_pass.c), query/
// (spatial queries between steps, bench_query.c), battle/ (combat on and off,
// bench_battle.c). Scenarios the library does not have yet are left out;
// their names are printed on stderr.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "benches.h"
#include "common.h"
#include "limit.h"
#include "shim.h"
#include "throng/file.h"

/// Frees what the benchmark files keep between runs: bench_step.c's scene,
/// bench_pass.c's scene and worlds, bench_query.c's scene, the limit
/// probe's arrays.
static void free_caches(void)
{
	bench_step_free();
	bench_pass_free();
	bench_query_free();
	bench_limit_free();
}

/// --benchmark_out=FILE is written as every throng output is
/// (include/throng/file.h): Google Benchmark writes the temporary, reached
/// as /proc/self/fd/N, and FILE is replaced only once the run has finished
/// and written something, so an interrupted run leaves the last results
/// whole. Rewrites the argument in place; returns false (printed) when
/// FILE cannot be written.
static bool open_results(int argc, char** argv, throng_output_file** out, char* arg, size_t cap)
{
	static const char prefix[] = "--benchmark_out=";
	for (int k = 1; k < argc; ++k) {
		if (strncmp(argv[k], prefix, sizeof prefix - 1u) != 0) {
			continue;
		}
		if (*out != NULL) {
			fprintf(stderr, "throng_bench: --benchmark_out: given twice; give it once\n");
			return false;
		}
		if (throng_output_file_open(argv[k] + sizeof prefix - 1u, out) != THRONG_OK) {
			fprintf(stderr, "throng_bench: --benchmark_out: %s\n", throng_last_error());
			return false;
		}
		if (throng_output_file_notice(*out) != NULL) {
			fprintf(stderr, "throng_bench: note: --benchmark_out: %s\n", throng_output_file_notice(*out));
		}
		snprintf(arg, cap, "%s/proc/self/fd/%d", prefix, throng_output_file_fd(*out));
		argv[k] = arg;
	}
	return true;
}

/// Publishes the results file once the run is over; false (printed) when
/// it holds nothing or cannot be renamed.
static bool close_results(throng_output_file* out)
{
	struct stat st;
	bool wrote = throng_output_file_in_place(out) || (fstat(throng_output_file_fd(out), &st) == 0 && st.st_size > 0);
	bool ok = wrote && throng_output_file_commit(out) == THRONG_OK;
	if (!ok) {
		fprintf(stderr, "throng_bench: --benchmark_out: %s\n",
		        wrote ? throng_last_error() : "no result was written; the file is left as it was");
	}
	throng_output_file_destroy(out);
	return ok;
}

int main(int argc, char** argv)
{
	bench_memory_setup();
	const char* names[BENCH_SCENARIO_WANTED_COUNT];
	const char* missing = "";
	bench_scenarios(names, BENCH_SCENARIO_WANTED_COUNT, &missing);
	if (missing[0] != '\0') {
		fprintf(stderr, "throng_bench: not built into the library, left out: %s\n", missing);
	}
	bench_limit_register();
	bench_probe_register();
	bench_step_register();
	bench_pass_register();
	bench_churn_register();
	bench_query_register();
	bench_battle_register();
	throng_output_file* results = NULL;
	char results_arg[64];
	if (!open_results(argc, argv, &results, results_arg, sizeof results_arg)) {
		throng_output_file_destroy(results);
		return 4; // an output that cannot be written, as throng's exit status 4
	}
	int status = thr_bench_main(argc, argv);
	free_caches();
	if (results != NULL && status == 0 && !close_results(results)) {
		return 4;
	}
	if (results != NULL && status != 0) {
		throng_output_file_destroy(results); // a failed run: the last results stay
	}
	return status;
}
