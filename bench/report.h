// SPDX-License-Identifier: MIT
// Counters every world benchmark reports (step/ and pass/), from the
// world's own counters (throng_world_get_counters) priced by cost.h.
//
// The work is counted once per scene or per-pass world, right after it is
// built and has taken its first step: one iteration's steps (a whole rule
// period where there are target rules), untimed, with work counting on;
// so the counts are the same bits on every run and do not slow the timed
// steps. The timed steps count time only (a clock read per stage).
//
// Counters, all per agent-step unless named otherwise:
//   agents, threads
//   neighbours_visited    candidates an agent's neighbour walk visited (the
//                         agents in the cells of its query box, itself
//                         included, up to the walk's caps): what the scalar
//                         reference tests one by one and each SIMD lane walks
//   neighbours_in_radius  of them, other agents strictly inside the query radius
//   neighbour_cells       grid cells the walk scanned
//   candidate_reads_per_s neighbours_visited * agent-steps/s (wall): the
//                         candidates the walks read a second, the rate
//                         the dense row (`dense`) measures the walk by
//   lane_slots            SIMD: lane-candidate slots of the agent's block's
//                         sweeps (8 per vector step); neighbours_visited /
//                         lane_slots is the sweep's lane occupancy
//   flops_per_agent_step  float operations of this engine (cost.h)
//   bytes_per_agent_step  memory traffic model of cost.h
//   stage_<stage>_ns      the library's clock of each stage of the timed
//                         steps (throng_stage_name: prepare, sort, targets,
//                         pass, contacts, finish), wall time
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

#include "shim.h"
#include "throng/throng.h"

/// What a run measured: the world's time counters over the timed steps,
/// and its work counters over the counted steps.
typedef struct bench_measure {
	const throng_world* world;     ///< the world the run steps (its controllers price the work)
	throng_world_counters timed;   ///< THRONG_COUNT_TIME, summed over the timed steps
	throng_world_counters counted; ///< THRONG_COUNT_WORK over the counted steps
} bench_measure;

/// Turns time counting on (and clears the world's counters) before timed
/// steps of w.
void bench_measure_time(throng_world* w);

/// Adds the time counters of w's timed steps so far to m->timed; call it
/// before w is freed or rebuilt and after the last timed step.
void bench_measure_collect(throng_world* w, bench_measure* m);

/// Turns work counting on (and clears the world's counters) before the
/// counted steps of w.
void bench_measure_count(throng_world* w);

/// Reads the counted steps' work into *out and turns counting off.
void bench_measure_counted(throng_world* w, throng_world_counters* out);

/// Sets items processed (steps * agents) and every counter above, from
/// `seconds` of wall-clock time and `cpu_seconds` of process CPU time over
/// `steps` timed steps.
void bench_report(thr_bench_state* st, const bench_measure* m, int threads, int64_t steps, double seconds,
                  double cpu_seconds);

#endif
