// SPDX-License-Identifier: MIT
// Events and zones (private; the public side is include/throng/events.h,
// the design is core/events.c's).
#ifndef THRONG_CORE_EVENTS_H
#define THRONG_CORE_EVENTS_H

#include <stdbool.h>
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

/// Appends an event about `agent` (zone: THRONG_NO_ZONE, or the zone it
/// concerns; source: THRONG_NO_SOURCE, or the source it concerns), stamped
/// with the world's step count (room reserved first).
void thr_events_push(throng_world* w, throng_event_kind kind, uint32_t agent, uint32_t zone, uint32_t source);

/// What the step that wrote `ns` (the next state, not yet current) did:
/// drops the previous window and appends the step's events. Out of
/// memory, changes nothing.
throng_status thr_events_step(throng_world* w, const thr_state* ns);

/// Zone z's def (a polygon's points copied into `points`, room for its
/// point count), for a checkpoint.
throng_zone_def thr_zone_get(const throng_world* w, uint32_t z, throng_vec2* points);

/// Puts back the zone membership bits of ids 0 .. n-1 (a checkpoint's),
/// in a world whose zones or arrival radius are already back.
throng_status thr_events_restore_inside(throng_world* w, const uint64_t* bits, uint32_t n);

/// After a step has shown: removes the agents it found in a sink (room
/// reserved by thr_events_step), listed with the step's events. Cannot fail.
void thr_events_sinks(throng_world* w);

/// Whether one of w's zones is a sink.
bool thr_events_sinks_any(const throng_world* w);

/// Frees the list, the zones and the bits by id.
void thr_events_free(throng_world* w);

#endif
