// SPDX-License-Identifier: MIT
// Counters (private): merging them and the controller's counts, for the
// step and the engines, which record the work where it is done
// (counters.c says how; throng.h, "Counters", what each count means).
#ifndef THRONG_CORE_COUNTERS_H
#define THRONG_CORE_COUNTERS_H

#include <stdint.h>

#include "throng/behavior.h"
#include "throng/throng.h"

/// Adds every count of `from` into `into` (the time fields too). Integer
/// sums: any order of merging gives the same counts.
void thr_counters_add(throng_world_counters* into, const throng_world_counters* from);

/// Counts `lanes` evaluations of controller ctl: each enabled slot's
/// slot_lanes, the blend mode's lanes and its budget and sum terms.
void thr_count_controller(throng_world_counters* c, const throng_controller* ctl, uint64_t lanes);

/// Nanoseconds on a monotonic clock.
uint64_t thr_clock_ns(void);

#endif
