// SPDX-License-Identifier: MIT
// throng_bench: registers every benchmark, then hands over to Google
// Benchmark, which reads the --benchmark_* flags (filter, output, min time,
// repetitions).
//
// Families, in run order: limit/ (the machine's peak flops and bandwidth,
// limit.h), probe/ (the reorder's memory pattern, bench_probe.c), step/
// (whole steps, bench_step.c), pass/ (per-pass costs, bench_pass.c). Scenarios the library does not have yet are left out;
// their names are printed on stderr.
#include <stdio.h>

#include "benches.h"
#include "common.h"
#include "limit.h"
#include "report.h"
#include "shim.h"

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
	int status = thr_bench_main(argc, argv);
	bench_caches_free();
	return status;
}
