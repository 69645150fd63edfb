// SPDX-License-Identifier: MIT
// The team governor (private): how many threads a step uses.
//
// A world asks for `most` threads (def.threads). On a machine another
// process shares, a team whose thread lost its vCPU waits at every
// barrier of the step for that thread's next time slice, and two threads
// can run many times slower than one (docs/PERFORMANCE.md, "A shared
// machine"). A step's bits do not depend on its team (every pass splits
// work so that no thread split changes a bit), so with
// THRONG_THREADS_ADAPT the world picks, step by step, whichever of
// one thread and `most` threads ran faster:
//
// - it times each step (two clock reads) and keeps a running mean of the
//   nanoseconds per agent-step of the current team (each new time weighs
//   1/4), and the last probe's time for the other;
// - normal steps use the team with the lower mean; every `gap` steps one
//   probe step uses the other team, to keep its mean current;
// - after a probe, the world switches when the probed team is faster by
//   more than 10 %; a probe that does not switch doubles the gap (4 up to
//   1,024 steps), one that switches resets it, so a quiet machine pays a
//   one-thread step in about every thousand, and a busy one a slow probe
//   as rarely;
// - steps where a target rule is due (more work than the others) are
//   neither timed nor probed.
//
// The decision is a pure function of the times it is given
// (thr_team_record), so tests drive it with made-up times.
#ifndef THRONG_CORE_TEAM_H
#define THRONG_CORE_TEAM_H

#include <stdbool.h>
#include <stdint.h>

#define THR_TEAM_GAP_FIRST 4u
#define THR_TEAM_GAP_MOST 1024u

typedef struct thr_team {
	uint32_t most;    ///< the team asked for
	uint32_t current; ///< the team of normal steps: 1 or most
	float mean[2];    ///< ns per agent-step: [0] one thread, [1] most; 0 = not measured
	uint32_t gap;     ///< steps between probes
	uint32_t wait;    ///< normal steps until the next probe
} thr_team;

/// A governor for `most` threads that starts with all of them.
void thr_team_init(thr_team* t, uint32_t most);

/// The team of the next step: current, or the other one on a probe step.
uint32_t thr_team_pick(const thr_team* t);

/// Records that a step with `team` threads took ns_per_agent_step, and
/// decides the next step's team.
void thr_team_record(thr_team* t, uint32_t team, float ns_per_agent_step);

#endif
