# SPDX-License-Identifier: MIT
# The README's two commands, `make run` and `make test`, and a few helpers.
# Every target installs missing Debian packages first (scripts/setup, a
# tenth of a second when nothing is missing) and builds through the presets
# of CMakePresets.json: `cmake --preset X` then `cmake --build --preset X`.
#
#   make run    build release, run `throng run crossing` (four crowds cross,
#               1,000 walkers for 142 simulated s, a few seconds) and say
#               where to go next
#   make test   build release and asan, run ctest on both, then build the
#               other two SIMD backends (the release build is the native
#               one) and check that the three, every thread count and the
#               scalar engine give the same bits, then build with
#               Ninja and clang and run a few quick tests there
#               (scripts/check_clang_ninja)
#   make build  build release only
#   make bench  run build/release/bench/throng_bench (every benchmark, 3
#               repetitions; about 20 minutes here on a quiet machine, and
#               some 12 more for the battle's 10^6 rows): a
#               table of the whole-step runs and warnings (a busy machine,
#               two threads slower than one) on the terminal; JSON,
#               machine.txt, the benchmark's own console.txt, summary.md and
#               PNGs into build/bench/<machine>/ (BENCH_DIR=DIR elsewhere;
#               BENCH_FILTER=-/large/ leaves out the runs of 100,000 agents
#               and more; BENCH_REPS, BENCH_MIN_TIME and BENCH_ARGS change
#               the run). bench/results/<machine>/ holds the run that
#               docs/PERFORMANCE.md quotes, copied there by hand.
#   make bench-quick  a subset in under a minute, into
#               build/bench/<machine>/quick/
#   make clean  remove build/

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.PHONY: setup run test build bench bench-quick bench-run clean

THRONG := ./build/release/cli/throng
THRONG_BENCH := ./build/release/bench/throng_bench

# Sanitizer settings for the asan preset's tests. Stop at the first error
# (the asan preset also compiles with -fno-sanitize-recover=all) and check
# for leaks at exit.
#
# Criterion runs each test in a forked worker and has the result before the
# worker exits, so a leak found at the worker's exit is printed but passes
# (seen here with Criterion 2.4). The reports therefore go to files under
# build/asan/sanitizer-reports/ (log_path), and any file there fails
# `make test` and is printed.
#
# LeakSanitizer stops the process's threads with ptrace before it scans
# memory, so it fails ("LeakSanitizer has encountered a fatal error") where
# ptrace is forbidden, e.g. in a container without CAP_SYS_PTRACE. It works
# in this sandbox and in CI here (checked: a deliberate leak is reported and
# fails the run). On a machine where it cannot, run
#   make test ASAN_TEST_OPTIONS=halt_on_error=1:detect_leaks=0
ASAN_TEST_OPTIONS ?= halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
UBSAN_TEST_OPTIONS ?= halt_on_error=1:print_stacktrace=1
SAN_REPORTS := $(CURDIR)/build/asan/sanitizer-reports

# Benchmarks. <machine> names the hardware, not the host: the CPU model
# and the CPU count from lscpu ("amd-epyc-2cpu"); set BENCH_MACHINE to
# override. machine.txt records lscpu, memory and the load before and after.
BENCH_MACHINE ?= $(shell printf '%s-%scpu' "$$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)" "$$(nproc)" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-*//; s/-*$$//')
BENCH_DIR ?= build/bench/$(BENCH_MACHINE)
BENCH_FILTER ?= .
BENCH_REPS ?= 3
BENCH_MIN_TIME ?= 0.5
BENCH_ARGS ?=
# bench-quick: the limit and reorder probes, every scenario's whole step at
# 1,000 and 10,000 agents, field's passes at 10,000 agents on one thread,
# and the battle's combat on and off at 10,000.
BENCH_QUICK_FILTER := ^limit/|^probe/|^step/.*/agents:(1000|10000)/|^pass/field/.*/agents:10000/threads:1/|^battle/simd/agents:10000/

setup:
	bash scripts/setup

build: setup
	cmake --preset release
	cmake --build --preset release

run: build
	$(THRONG) run crossing
	@echo "next: watch it with ./build/release/viewer/throng-view crossing (SDL2); every scene: $(THRONG) list;"
	@echo "      the options: $(THRONG) run --help; your own scene: docs/SCENARIOS.md; the C API: README.md"

test: setup
	cmake --preset release
	cmake --build --preset release
	cmake --preset asan
	cmake --build --preset asan
	ctest --preset release --no-tests=error
	rm -rf '$(SAN_REPORTS)' && mkdir -p '$(SAN_REPORTS)'
	status=0; \
	ASAN_OPTIONS='$(ASAN_TEST_OPTIONS):log_path=$(SAN_REPORTS)/asan' \
	UBSAN_OPTIONS='$(UBSAN_TEST_OPTIONS):log_path=$(SAN_REPORTS)/ubsan' \
		ctest --preset asan --no-tests=error || status=$$?; \
	if compgen -G '$(SAN_REPORTS)/*' >/dev/null; then \
		echo "make test: sanitizer reports in $(SAN_REPORTS):" >&2; \
		cat '$(SAN_REPORTS)'/* >&2; \
		status=1; \
	fi; \
	exit $$status
	NATIVE_BUILD=build/release bash scripts/check_simd_builds
	bash scripts/check_clang_ninja

bench: build
	@$(MAKE) --no-print-directory bench-run BENCH_OUT='$(BENCH_DIR)' \
		BENCH_RUN_ARGS="--benchmark_filter='$(BENCH_FILTER)' --benchmark_repetitions=$(BENCH_REPS) --benchmark_min_time=$(BENCH_MIN_TIME)"

bench-quick: build
	@$(MAKE) --no-print-directory bench-run BENCH_OUT='$(BENCH_DIR)/quick' \
		BENCH_RUN_ARGS="--benchmark_filter='$(BENCH_QUICK_FILTER)' --benchmark_repetitions=1 --benchmark_min_time=0.05"

# The shared recipe of bench and bench-quick (not meant to be run alone).
bench-run:
	@if [[ ! -x $(THRONG_BENCH) ]]; then \
		echo "make bench: $(THRONG_BENCH) was not built (Google Benchmark not found by CMake; scripts/setup installs libbenchmark-dev)" >&2; \
		exit 1; \
	fi
	mkdir -p '$(BENCH_OUT)'
	{ echo "# SPDX-License-Identifier: MIT"; echo "# machine"; lscpu; echo; free -h; echo; echo "# before: $$(date -u '+%Y-%m-%d %H:%M:%S UTC') $$(uptime)"; } > '$(BENCH_OUT)/machine.txt'
	@echo "make bench: running $(THRONG_BENCH) $(BENCH_RUN_ARGS); its own lines go to $(BENCH_OUT)/console.txt"
	$(THRONG_BENCH) $(BENCH_RUN_ARGS) --benchmark_out='$(BENCH_OUT)/throng_bench.json' --benchmark_out_format=json $(BENCH_ARGS) > '$(BENCH_OUT)/console.txt'
	echo "# after:  $$(date -u '+%Y-%m-%d %H:%M:%S UTC') $$(uptime)" >> '$(BENCH_OUT)/machine.txt'
	python3 scripts/plot_bench '$(BENCH_OUT)/throng_bench.json'
	@echo "make bench: results in $(BENCH_OUT)/"

clean:
	rm -rf build
