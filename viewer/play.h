// SPDX-License-Identifier: MIT
// Playback: frames that come from a recorded binary stream (--replay) or a
// live shared-memory feed (--attach) instead of a world the viewer steps.
//
// Both read through the library's public readers (throng/export.h:
// throng_stream_*, throng_feed_*); the viewer has no reader of its own.
// A stream or a feed carries agents only (ids, positions, headings, groups,
// archetypes), so the scene around them (bounds, obstacles, walls, zones)
// is rebuilt from the scene and seed its header names, when that scene is
// one the library knows, and agents' radii come from that scene's
// archetypes. A replay reads the whole file once, at the start, into one
// buffer per field: any frame is then a pointer away, so stepping back and
// scrubbing cost nothing (the price is the file's size in memory).
// Agents that come and go need no care: every frame carries its own count
// and ids, and a drawn frame is exactly the agents of its record.
#ifndef THRONG_VIEWER_PLAY_H
#define THRONG_VIEWER_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "sim.h"

typedef struct vw_play vw_play;

/// Opens args->replay (reading every frame) or args->attach. Returns NULL
/// with a message in err and the exit status (VW_EXIT_*) in *rc.
vw_play* vw_play_open(const vw_args* args, char* err, size_t err_cap, int* rc);

/// Frees everything. NULL is ignored.
void vw_play_destroy(vw_play* play);

/// The scene the header names ("" when it names none).
const char* vw_play_scene(const vw_play* play);

/// Whether this is a live feed (else a replay).
bool vw_play_live(const vw_play* play);

/// Replay: frames in the file. Feed: frames received so far.
uint64_t vw_play_frames(const vw_play* play);

/// Replay: the frame shown (0-based).
uint64_t vw_play_index(const vw_play* play);

/// Simulated seconds between a replay's frames (dt times the header's
/// frame interval).
double vw_play_frame_seconds(const vw_play* play);

/// Replay: shows frame `index` (clamped to the last); pauses nothing.
void vw_play_seek(vw_play* play, int64_t index);

/// Replay: the last frame whose step is at most `step` (0 when none is).
uint64_t vw_play_find_step(const vw_play* play, uint64_t step);

/// Advances the clock by `wall` seconds of real time: a replay moves on by
/// wall * speed of simulated time unless paused, and pauses at its end; a
/// feed takes the newest published frame. Returns false with a message in
/// err when the feed is damaged.
bool vw_play_update(vw_play* play, double wall, char* err, size_t err_cap);

void vw_play_toggle_pause(vw_play* play);
void vw_play_set_paused(vw_play* play, bool paused);
bool vw_play_paused(const vw_play* play);
/// Multiplies the replay speed (clamped to 1/64 .. 64).
void vw_play_speed(vw_play* play, double factor);

/// Feed: the writer's state name ("alive", "finished", "gone").
const char* vw_play_writer(const vw_play* play);

/// The frame to draw: the scene with the agents of the current record.
/// Valid until the next call that changes the play.
const vw_frame* vw_play_frame(vw_play* play);

/// One line for the HUD: what plays, where, how fast, and the keys.
void vw_play_describe(const vw_play* play, char* buf, size_t cap);

#endif
