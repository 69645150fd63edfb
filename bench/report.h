// SPDX-License-Identifier: MIT
// Counters every world benchmark reports (step/ and pass/), and the caches
// that let the runs of one scenario and size share their set-up.
//
// Counters, all per agent-step unless named otherwise:
//   agents, threads
//   neighbours_visited    candidates an agent's neighbour query walks (the
//                         agents in the cells of its query box, itself
//                         included): what the scalar reference tests
//   neighbours_in_radius  other agents strictly inside the query radius
//   lane_slots            SIMD: lane-candidate slots of the agent's block
//                         (8 per vector step); neighbours_visited /
//                         lane_slots is the sweep's lane occupancy
//   flops_per_agent_step  float operations of this engine (cost.h, census.h)
//   bytes_per_agent_step  memory traffic model of cost.h
//   ns_per_agent_step     1e9 / items_per_second
//   cpu_ns_per_agent_step the same in CPU time of the whole process: on a
//                         shared machine, what a step costs when it runs
//                         (time spent preempted is not counted; OpenMP
//                         threads spinning at a barrier are)
//   gflops, flop_share    flops * agent-steps/s, and its share of the
//                         measured peak at this thread count (limit.h)
//   gbytes_per_s, bw_share  bytes * agent-steps/s, and its share of the
//                         measured triad bandwidth
#ifndef THRONG_BENCH_REPORT_H
#define THRONG_BENCH_REPORT_H

#include <stdint.h>

#include "census.h"
#include "shim.h"

/// Sets items processed (steps * agents) and every counter above, from
/// `seconds` of wall-clock time and `cpu_seconds` of process CPU time over
/// `steps` steps.
void bench_report(thr_bench_state* st, const bench_census* c, throng_engine engine, int threads, int64_t steps,
                  double seconds, double cpu_seconds);

/// The census of `scene` with `keep`, computed once per (scenario, agents,
/// keep) and then served from a cache (the state after a scene's first step
/// is the same bits on both engines and any thread count). NULL when memory
/// runs out.
const bench_census* bench_census_cached(const char* scenario, throng_scene* scene, bench_keep keep);

/// Frees the caches: the census, bench_step.c's scene, bench_pass.c's
/// scene and worlds, the limit probe's arrays.
void bench_caches_free(void);

#endif
