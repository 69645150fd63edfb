// SPDX-License-Identifier: MIT
// Events and zones (private; the public side is include/throng/events.h,
// the design is core/events.c's).
#ifndef THRONG_CORE_EVENTS_H
#define THRONG_CORE_EVENTS_H

#include <stdint.h>

#include "store.h"
#include "throng/throng.h"

/// The bit of throng_world.inside set while an agent is within the
/// arrival radius of its target point (zones take bits 0 .. 62).
#define THR_AT_GOAL_BIT 63

/// Room for `events` more events in the list and, while the world tracks
/// zones or arrivals, for ids below id_end; an out-of-memory error naming
/// `fn` otherwise, changing nothing anyone sees.
throng_status thr_events_reserve(throng_world* w, uint32_t events, uint64_t id_end, const char* fn);

/// Appends a call's event about `agent` (room reserved first).
void thr_events_push(throng_world* w, throng_event_kind kind, uint32_t agent);

/// What the step that wrote `ns` (the next state, not yet current) did:
/// drops the previous window and appends the step's events. Out of
/// memory, changes nothing.
throng_status thr_events_step(throng_world* w, const thr_state* ns);

/// Frees the list, the zones and the bits by id.
void thr_events_free(throng_world* w);

#endif
