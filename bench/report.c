// SPDX-License-Identifier: MIT
// Counters and the census cache (report.h).
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "limit.h"

void bench_report(thr_bench_state* st, const bench_census* c, throng_engine engine, int threads, int64_t steps,
                  double seconds, double cpu_seconds)
{
	const int64_t items = steps * (int64_t)c->agents;
	thr_bench_set_items_processed(st, items);
	const double rate = seconds > 0.0 ? (double)items / seconds : 0.0;
	const int simd = engine == THRONG_ENGINE_SIMD;
	const double flops = simd ? c->flops_simd : c->flops_scalar;
	const double bytes = simd ? c->bytes_simd : c->bytes_scalar;
	const bench_limits lim = bench_limits_get(threads);
	thr_bench_set_counter(st, "agents", c->agents);
	thr_bench_set_counter(st, "threads", threads);
	thr_bench_set_counter(st, "neighbours_visited", c->candidates);
	thr_bench_set_counter(st, "neighbours_in_radius", c->neighbours);
	if (simd) {
		thr_bench_set_counter(st, "lane_slots", c->lane_slots);
	}
	thr_bench_set_counter(st, "flops_per_agent_step", flops);
	thr_bench_set_counter(st, "bytes_per_agent_step", bytes);
	thr_bench_set_counter(st, "ns_per_agent_step", rate > 0.0 ? 1e9 / rate : 0.0);
	thr_bench_set_counter(st, "cpu_ns_per_agent_step", items > 0 ? 1e9 * cpu_seconds / (double)items : 0.0);
	const double gflops = flops * rate * 1e-9;
	const double gbytes = bytes * rate * 1e-9;
	thr_bench_set_counter(st, "gflops", gflops);
	thr_bench_set_counter(st, "flop_share", lim.gflops > 0.0 ? gflops / lim.gflops : 0.0);
	thr_bench_set_counter(st, "gbytes_per_s", gbytes);
	thr_bench_set_counter(st, "bw_share", lim.gbytes > 0.0 ? gbytes / lim.gbytes : 0.0);
}

/// Census cache entries: enough for every pass of one scenario and size.
#define BENCH_CENSUS_CACHE 32

typedef struct census_entry {
	char scenario[32];
	uint32_t agents;
	bench_keep keep;
	bench_census census;
	int used;
} census_entry;

static census_entry census_cache[BENCH_CENSUS_CACHE];
static int census_next;

const bench_census* bench_census_cached(const char* scenario, throng_scene* scene, bench_keep keep)
{
	uint32_t agents = throng_world_agent_count(throng_scene_world(scene));
	for (int k = 0; k < BENCH_CENSUS_CACHE; ++k) {
		census_entry* e = &census_cache[k];
		if (e->used && e->agents == agents && e->keep.kinds == keep.kinds &&
		    e->keep.target_rule == keep.target_rule && strcmp(e->scenario, scenario) == 0) {
			return &e->census;
		}
	}
	census_entry* e = &census_cache[census_next];
	census_next = (census_next + 1) % BENCH_CENSUS_CACHE;
	e->used = 0;
	if (bench_census_take(scene, keep, &e->census) != 0) {
		return NULL;
	}
	strncpy(e->scenario, scenario, sizeof e->scenario - 1);
	e->scenario[sizeof e->scenario - 1] = '\0';
	e->agents = agents;
	e->keep = keep;
	e->used = 1;
	return &e->census;
}

void bench_caches_free(void)
{
	memset(census_cache, 0, sizeof census_cache);
	bench_step_free();
	bench_pass_free();
	bench_limit_free();
}
