// SPDX-License-Identifier: MIT
// Helpers shared by the benchmark files: the scenarios and sizes the suite
// runs, the per-pass worlds, clocks and memory.
//
// Per-pass worlds. The SIMD engine fuses every behaviour, the blending and
// the integration into one pass per block of 8 agents, so a behaviour's
// cost cannot be timed inside a step. Instead the suite clones a scene's
// world into worlds that keep only some slots (same agents, same state,
// same obstacles and walls, same grid cell size, same engine and threads)
// and times those: a world with no slot at all costs the grid, the sort and
// the integration ("base"), and a world with one kind of slot costs base
// plus that kind. bench_pass.c times each against base in the same run.
#ifndef THRONG_BENCH_COMMON_H
#define THRONG_BENCH_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/scenario.h"
#include "throng/throng.h"

/// The scenarios the suite measures, in report order. Those the library
/// does not have (throng_scenario_find() is NULL) are left out at
/// registration. `dense` is the dense row (issue 37): about 205 candidates
/// an agent-step at every N, so its candidate reads a second and its share
/// of the peak flops (report.h) say how far the neighbour walk is from the
/// machine.
#define BENCH_SCENARIO_WANTED {"field", "circle", "crossing", "charge", "dense"}
#define BENCH_SCENARIO_WANTED_COUNT 5

/// Agent counts, and the first one that counts as "large" (its runs carry
/// "/large/" in their names, so --benchmark_filter=-/large/ leaves them out).
#define BENCH_SIZES {1000, 10000, 100000, 1000000}
#define BENCH_SIZE_COUNT 4
#define BENCH_LARGE 100000

/// Steps after which a run rebuilds its scene or worlds: 10 s of simulated
/// time at the scenarios' dt of 1/60 s. Fast runs thus keep measuring a
/// scene's first seconds instead of drifting into a different crowd (a
/// ring converged on its centre, a crossing that has emptied).
#define BENCH_RESET_STEPS 600u

/// Which slots a per-pass world keeps.
typedef struct bench_keep {
	uint32_t kinds;   ///< bit k set: keep the enabled slots of kind k
	bool target_rule; ///< keep the archetypes' target rules
	bool contacts;    ///< keep the archetypes' contact settings (else contacts off)
} bench_keep;

/// Every slot and rule: the scene's own controllers.
bench_keep bench_keep_all(void);

/// Seconds on a monotonic clock.
double bench_now(void);

/// CPU seconds used by this process, all threads (OpenMP threads that
/// spin at a barrier count too).
double bench_cpu_now(void);

/// Resident set size of this process (bytes), from /proc/self/statm; -1
/// when it cannot be read.
int64_t bench_rss_bytes(void);

/// Hands freed memory back to the system (glibc malloc_trim), so that an
/// RSS difference counts what was allocated in between.
void bench_memory_settle(void);

/// Makes every allocation of 64 KiB or more its own mapping (glibc), so
/// that freeing a world returns its memory and RSS differences measure one
/// world at a time. Call once, before any world exists.
void bench_memory_setup(void);

/// The scenarios of BENCH_SCENARIO_WANTED the library has: writes up to
/// `cap` names to out and returns how many. Missing ones are listed in
/// *missing (comma separated, "" when none).
int bench_scenarios(const char** out, int cap, const char** missing);

/// Creates `name` with `agents` agents on `engine` with `threads`, then
/// takes one step (so every lazy allocation is made and the SIMD engine has
/// sorted the agents). NULL on failure, with the message in *error.
throng_scene* bench_scene_create(const char* name, uint32_t agents, throng_engine engine, uint32_t threads,
                                 const char** error);

/// The agent grid's cell size the world uses (m): def.cell_size, else the
/// largest neighbour radius of an enabled neighbour slot, at least twice
/// the largest agent radius (core's thr_world_cell_size, from the public
/// API). A per-pass world fixes its cell size to its source's.
float bench_cell_size(const throng_world* w);

/// Whether the slot counts for the per-pass world of `keep`.
bool bench_keeps(bench_keep keep, const throng_slot* slot);

/// A copy of `src` for a per-pass benchmark: the same def except engine,
/// threads, record_forces (off) and cell_size (fixed to `cell_size`, so the
/// grid matches the source whatever slots remain); every archetype with
/// only the slots of `keep`; the same obstacles, walls and threat point;
/// the same agents (ids, state, limits, targets). Not copied: paths (the
/// API has no getter; agents follow none), the wander angles (start at 0)
/// and the threat's velocity (0). On failure returns the status and
/// leaves *out NULL.
throng_status bench_world_clone(throng_scene* src, bench_keep keep, throng_engine engine, uint32_t threads,
                                float cell_size, throng_world** out);

/// Gives every archetype of `w` (a clone of `src`) the scene's controller
/// with only the slots of `keep`. The grid cell stays the clone's fixed
/// one; the shape grids follow the new feelers' reach at the next step.
throng_status bench_world_set_keep(throng_world* w, throng_scene* src, bench_keep keep);

/// Target rules run only every `every` steps (SPEC.md), so a step's cost
/// depends on which rules are due. This is the least common multiple of
/// the `every` of the enabled rules (kept when keep.target_rule), at most
/// BENCH_MAX_PERIOD; 1 without rules. A run that times whole multiples of
/// it sees every phase alike.
uint32_t bench_rule_period(const throng_world* w, bench_keep keep);

/// Largest rule period a run times as one iteration, and the most
/// agent-steps such an iteration may take (above, runs time single steps
/// and the phase of the rules adds noise).
#define BENCH_MAX_PERIOD 60u
#define BENCH_MAX_PERIOD_AGENT_STEPS 3000000u

/// The steps one iteration of a run of `w` times: bench_rule_period, or 1
/// when that many steps of all its agents exceed BENCH_MAX_PERIOD_AGENT_STEPS.
uint32_t bench_run_period(const throng_world* w, bench_keep keep);

#endif
