// SPDX-License-Identifier: MIT
// probe/reorder: the memory pattern of the SIMD engine's reorder, alone.
//
// Each step of the SIMD engine, core/store.c thr_store_reorder() copies every per-agent array into its
// new order: for each new slot k it reads perm[k], then element perm[k] of
// 9 state arrays and 10 single arrays, and writes element k of 19 others
// (and slot_of). Arrays allocated one by one (aligned_alloc(64, ...)) of
// more than a few pages are separate mappings, so every array starts at the
// same offset within a 4 KiB page, and element k of all 39 arrays falls in
// the same L1 set and the same 4 KiB alias class; the world used to
// allocate them so, and since the layout fix (core/store.c,
// thr_alloc_arrays) staggers them by an odd number of cache lines. The
// probe copies the same arrays the same way, with the identity permutation
// (agents that stay in their cells), once with every array at the same
// page offset ("same_offset", the old layout) and once with array j moved
// by j * 64 bytes ("staggered", close to the world's layout now), and
// reports ns per agent. The difference is what the layout costs the reorder; the
// block pass, which loads 17 arrays and stores 9 at the same index, meets
// the same conflict to a lesser degree. Not a property of the library's
// code: of where its arrays land.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "shim.h"

#define PROBE_ARRAYS 40 ///< 19 sources, 19 destinations, perm, slot_of

typedef struct probe_arrays {
	char* block[PROBE_ARRAYS];
	uint32_t* a[PROBE_ARRAYS];
} probe_arrays;

static void probe_free(probe_arrays* p)
{
	for (int j = 0; j < PROBE_ARRAYS; ++j) {
		free(p->block[j]);
	}
}

/// Array j of n elements at page offset 64 (as aligned_alloc(64) gives a
/// separate mapping) plus j * stagger bytes.
static int probe_alloc(probe_arrays* p, int64_t n, size_t stagger)
{
	memset(p, 0, sizeof *p);
	size_t bytes = ((size_t)n + 8u) * sizeof(uint32_t);
	for (int j = 0; j < PROBE_ARRAYS; ++j) {
		size_t offset = 64u + (size_t)j * stagger;
		p->block[j] = aligned_alloc(4096, (bytes + offset + 4095u) & ~(size_t)4095u);
		if (p->block[j] == NULL) {
			probe_free(p);
			return -1;
		}
		memset(p->block[j], 0, bytes + offset);
		p->a[j] = (uint32_t*)(void*)(p->block[j] + offset);
	}
	for (int64_t k = 0; k < n; ++k) {
		p->a[0][k] = (uint32_t)k; // perm: identity
		p->a[1][k] = (uint32_t)k; // ids
	}
	return 0;
}

/// One reorder: arrays 1..19 are the sources (1 holds the ids), 20..38 the
/// destinations, 0 the permutation, 39 slot_of.
static void probe_reorder(probe_arrays* p, int64_t n)
{
	uint32_t* const* a = p->a;
	for (int64_t k = 0; k < n; ++k) {
		uint32_t from = a[0][k];
		for (int j = 1; j < 20; ++j) {
			a[j + 19][k] = a[j][from];
		}
		a[39][a[20][k]] = (uint32_t)k;
	}
}

static void probe_run(thr_bench_state* st, const void* data)
{
	const size_t stagger = *(const size_t*)data;
	const int64_t n = thr_bench_range(st, 0);
	probe_arrays p;
	if (probe_alloc(&p, n, stagger) != 0) {
		thr_bench_skip_with_error(st, "out of memory");
		return;
	}
	probe_reorder(&p, n); // warm
	double seconds = 0.0;
	while (thr_bench_keep_running(st)) {
		double t0 = bench_now();
		probe_reorder(&p, n);
		double dt = bench_now() - t0;
		thr_bench_set_iteration_time(st, dt);
		seconds += dt;
	}
	const int64_t items = thr_bench_iterations(st) * n;
	thr_bench_set_items_processed(st, items);
	thr_bench_set_counter(st, "ns_per_agent", items > 0 ? 1e9 * seconds / (double)items : 0.0);
	thr_bench_set_counter(st, "stagger_bytes", (double)stagger);
	probe_free(&p);
}

void bench_probe_register(void)
{
	static const size_t same = 0, staggered = 64;
	static const char* const names[] = {"agents"};
	const int64_t agents = 100000;
	thr_bench* a = thr_bench_register_data("probe/reorder/same_offset", probe_run, &same);
	thr_bench* b = thr_bench_register_data("probe/reorder/staggered", probe_run, &staggered);
	thr_bench* both[2] = {a, b};
	for (int k = 0; k < 2; ++k) {
		thr_bench_set_arg_names(both[k], names, 1);
		thr_bench_add_args(both[k], &agents, 1);
		thr_bench_use_manual_time(both[k]);
		thr_bench_set_min_time(both[k], 0.2);
		thr_bench_set_unit(both[k], THR_BENCH_US);
	}
}
