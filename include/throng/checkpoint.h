// SPDX-License-Identifier: MIT
// Checkpoints: a running world saved whole and made again.
//
// A checkpoint holds every bit of a world that the steps after it depend
// on: the def, the step, every live agent's full state in its storage
// order, the largest radius seen (it sizes the grid), the archetypes,
// the units (throng/units.h: each one's def, morale and rout), paths,
// obstacles, walls, zones, sources, the missiles in flight, the bodies
// on the ground (throng_world_bodies), the threat,
// the running figures (throng_world_stats) and what counting is on. A
// world made from it steps to the same hashes as the world it was taken
// from, on any thread count (docs/FORMAT.md, "Checkpoints", has the
// layout). What a step never reads is not kept: the thread governor's
// timings, the counters (zero after a restore, counting still on), the
// step's record for the quality metrics.
//
// Take a checkpoint between steps. A part world (throng_part_create) is
// refused, unless it holds its whole world: every agent the whole world
// holds (its count, throng_part_set_world), none of them a ghost, as a
// distributed run's driver gathers it (throng_part_load_next), without
// recorded forces. Its checkpoint is then the whole world's, once the
// driver has given it the whole world's stats (throng_part_set_stats),
// threat and sources (throng_part_copy_sources); a restore makes an
// ordinary world.
#ifndef THRONG_CHECKPOINT_H
#define THRONG_CHECKPOINT_H

#include <stddef.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// Writes a checkpoint of `world` to `path`, as every throng file is
/// written (throng/file.h): a regular file is replaced whole when the
/// write succeeds and left as it was when it fails. THRONG_ERR_IO names
/// the path.
throng_status throng_world_save_checkpoint(const throng_world* world, const char* path);

/// Makes a new world from the checkpoint file at `path`; on success *out
/// owns it (throng_world_destroy). A file that is not a whole, intact
/// checkpoint this library can read is refused with THRONG_ERR_CORRUPT
/// (bad magic, a newer format version, cut short, a checksum mismatch, a
/// value out of range), one that cannot be read with THRONG_ERR_IO; the
/// message names the path and, where it can, the byte offset. On failure
/// *out is NULL and nothing is left allocated.
throng_status throng_world_load_checkpoint(const char* path, throng_world** out);

/// The size in bytes of `world`'s checkpoint now, into *bytes.
throng_status throng_world_checkpoint_size(const throng_world* world, size_t* bytes);

/// Writes `world`'s checkpoint into buf (cap bytes; a game's save slot),
/// the same bytes the file would hold, and its size into *written. With
/// buf NULL (and cap 0) writes nothing and gives the size. A buf smaller
/// than the checkpoint is THRONG_ERR_INVALID_ARGUMENT, *written then
/// holding the size needed.
throng_status throng_world_write_checkpoint(const throng_world* world, void* buf, size_t cap, size_t* written);

/// throng_world_load_checkpoint from `bytes` bytes of memory (copied from
/// as needed; buf is not kept).
throng_status throng_world_read_checkpoint(const void* buf, size_t bytes, throng_world** out);

THRONG_API_END

#endif
