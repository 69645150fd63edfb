// SPDX-License-Identifier: MIT
// Counters of the world benchmarks (report.h).
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "limit.h"

void bench_measure_time(throng_world* w)
{
	throng_world_set_counting(w, THRONG_COUNT_TIME);
}

void bench_measure_collect(throng_world* w, bench_measure* m)
{
	throng_world_counters t;
	if (w == NULL || throng_world_get_counters(w, NULL, &t) != THRONG_OK) {
		return;
	}
	m->timed.steps += t.steps;
	m->timed.step_ns += t.step_ns;
	for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
		m->timed.stage_ns[k] += t.stage_ns[k];
	}
	throng_world_set_counting(w, THRONG_COUNT_TIME);
}

void bench_measure_count(throng_world* w)
{
	throng_world_set_counting(w, THRONG_COUNT_WORK);
}

void bench_measure_counted(throng_world* w, throng_world_counters* out)
{
	throng_world_get_counters(w, NULL, out);
	throng_world_set_counting(w, THRONG_COUNT_OFF);
}

void bench_report(thr_bench_state* st, const bench_measure* m, int threads, int64_t steps, double seconds,
                  double cpu_seconds)
{
	const uint32_t agents = throng_world_agent_count(m->world);
	const int64_t items = steps * (int64_t)agents;
	thr_bench_set_items_processed(st, items);
	const double rate = seconds > 0.0 ? (double)items / seconds : 0.0;
	const throng_world_counters* c = &m->counted;
	const double per = c->agents > 0 ? 1.0 / (double)c->agents : 0.0; // per counted agent-step
	const double flops = bench_cost_flops(m->world, c) * per;
	const double bytes = bench_cost_bytes(m->world, c) * per;
	const bench_limits lim = bench_limits_get(threads);
	thr_bench_set_counter(st, "agents", agents);
	thr_bench_set_counter(st, "threads", threads);
	thr_bench_set_counter(st, "neighbours_visited", (double)c->neighbor_candidates * per);
	thr_bench_set_counter(st, "neighbours_in_radius", (double)c->neighbor_in_radius * per);
	thr_bench_set_counter(st, "neighbour_cells", (double)c->neighbor_cells * per);
	thr_bench_set_counter(st, "candidate_reads_per_s", (double)c->neighbor_candidates * per * rate);
	if (throng_world_get_def(m->world).engine == THRONG_ENGINE_SIMD) {
		thr_bench_set_counter(st, "lane_slots", (double)c->neighbor_lane_slots * per);
	}
	thr_bench_set_counter(st, "flops_per_agent_step", flops);
	thr_bench_set_counter(st, "bytes_per_agent_step", bytes);
	const double timed = (double)m->timed.steps * (double)agents; // agent-steps the library timed
	for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
		char name[48];
		snprintf(name, sizeof name, "stage_%s_ns", throng_stage_name((throng_stage)k));
		thr_bench_set_counter(st, name, timed > 0.0 ? (double)m->timed.stage_ns[k] / timed : 0.0);
	}
	thr_bench_set_counter(st, "ns_per_agent_step", rate > 0.0 ? 1e9 / rate : 0.0);
	thr_bench_set_counter(st, "cpu_ns_per_agent_step", items > 0 ? 1e9 * cpu_seconds / (double)items : 0.0);
	const double gflops = flops * rate * 1e-9;
	const double gbytes = bytes * rate * 1e-9;
	thr_bench_set_counter(st, "gflops", gflops);
	thr_bench_set_counter(st, "flop_share", lim.gflops > 0.0 ? gflops / lim.gflops : 0.0);
	thr_bench_set_counter(st, "gbytes_per_s", gbytes);
	thr_bench_set_counter(st, "bw_share", lim.gbytes > 0.0 ? gbytes / lim.gbytes : 0.0);
}
