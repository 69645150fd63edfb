// SPDX-License-Identifier: MIT
// Sources (private; the public side is include/throng/sources.h, the
// design is core/sources.c's).
#ifndef THRONG_CORE_SOURCES_H
#define THRONG_CORE_SOURCES_H

#include <stdint.h>

#include "throng/throng.h"

/// Before a step (core/step.c), while nothing of it has begun: how many
/// agents each source tries to add after it, and room for them all (the
/// store, the ids, the events, the scratch), so that thr_sources_run
/// cannot fail. Out of memory, the step fails with nothing changed.
throng_status thr_sources_reserve(throng_world* w);

/// After the step has shown and its sinks have removed theirs: each
/// source adds what thr_sources_reserve allowed, or waits.
void thr_sources_run(throng_world* w);

/// The largest radius and max_speed of the sources' agents (0 without sources).
float thr_sources_max_radius(const throng_world* w);
float thr_sources_max_speed(const throng_world* w);

/// Gives `to` (a part world being made, throng_part_create) the sources of
/// `from`, their progress included. Out of memory, changes nothing.
throng_status thr_sources_copy(throng_world* to, const throng_world* from);

/// Source s's progress, for a checkpoint, and putting it back.
void thr_source_progress(const throng_world* w, uint32_t s, uint64_t* added, uint64_t* waited_steps);
void thr_source_restore(throng_world* w, uint32_t s, uint64_t added, uint64_t waited_steps);

/// Frees the sources and their scratch.
void thr_sources_free(throng_world* w);

#endif
