// SPDX-License-Identifier: MIT
// throng_bench: registers every benchmark, then hands over to Google
// Benchmark, which reads the --benchmark_* flags (filter, output, min time).
#include "benches.h"
#include "shim.h"

int main(int argc, char** argv) {
	bench_step_register();
	return thr_bench_main(argc, argv);
}
