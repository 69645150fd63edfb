// SPDX-License-Identifier: MIT
// A stream of soldiers that rout, written by hand for the viewer's tests
// (test_viewer_rout.c, test_viewer_player.c).
#ifndef THRONG_VIEWER_TEST_ROUT_H
#define THRONG_VIEWER_TEST_ROUT_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/throng.h"

/// Soldiers in a rout stream: ids 0 and 2 hold, 1 and 3 rout from its
/// second frame on. 0 and 1 are group 0 and archetype 0, 2 and 3 group 7
/// and archetype 5: a dark colour and a light one (near white, white) in
/// every colour mode.
#define ROUT_AGENTS 4u

/// Where soldier k stands in a stream of half-width `half` (m): the
/// corners of a square of 0.8 half a side, heading +x.
throng_vec2 rout_position(uint32_t k, float half);

/// Writes a binary stream (x, y, hx, hy, group, archetype, combat_state)
/// of the ROUT_AGENTS soldiers in the box [-half, half]^2 (m) at `path`,
/// through the library's exporter: step 0 with nobody routing (0 struck),
/// step 1 with 1 and 3 routing (1 hit as well) when `routs`, else nobody
/// again. Returns the exporter's status.
throng_status write_rout_stream(const char* path, float half, bool routs);

#endif
