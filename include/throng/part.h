// SPDX-License-Identifier: MIT
// Part worlds (EXPERIMENTAL: names and layouts may change between minor
// versions): one process's share of a larger world, for a distributed
// step (docs/DISTRIBUTED.md; the throng-mpi program drives them over
// MPI). The library itself does no communication and links no MPI: the
// driver moves agents between the parts and agrees on the whole world's
// figures through the hook it registers here.
#ifndef THRONG_PART_H
#define THRONG_PART_H

#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// The points of a part world's step where the parts agree on a figure
/// of the whole world (throng_part_sync). Each comes with one operation
/// and count, the same on every part. All of them belong to the contact
/// stage, and come only in worlds with solid contacts whose whole world
/// holds two agents or more.
typedef enum throng_part_point {
	/// Before the contact pairs are listed: the most any agent moved
	/// along x or y this step (1 value, THRONG_PART_MAX_F32).
	THRONG_PART_CONTACT_MOVED,
	/// After the pairs are listed: the agents with an overlapping pair
	/// and the lists the cap cut (2 values, THRONG_PART_SUM_U64).
	THRONG_PART_CONTACT_LISTED,
	/// After each Jacobi iteration but the last: whether an agent still
	/// overlaps one (1 value, THRONG_PART_SUM_U64); the iterations stop
	/// on every part at once when the sum is 0.
	THRONG_PART_CONTACT_ROUND,
} throng_part_point;

/// The reduction a point asks for.
typedef enum throng_part_op {
	THRONG_PART_SUM_U64, ///< uint64_t values, summed over the parts
	THRONG_PART_MAX_F32, ///< float values, the largest (NaN if any part has NaN)
} throng_part_op;

/// How the parts of one world agree (throng_part_set_sync). The step calls
/// reduce at each point in a fixed order, the same on every part (a part
/// without agents included), from the thread that called
/// throng_world_step, between its stages and never inside a parallel
/// region: reduce replaces values[0 .. count) with their `op` over every
/// part (an MPI_Allreduce, for instance). It cannot fail: a driver whose
/// transport fails must stop the whole run.
typedef struct throng_part_sync {
	void* user; ///< passed to reduce as it is
	void (*reduce)(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count);
} throng_part_sync;

/// Sets how the part world w agrees with the other parts (a copy of
/// *sync). A part whose archetypes have solid contacts needs it before it
/// is loaded. Fails with THRONG_ERR_INVALID_ARGUMENT when w is not a part
/// world or sync->reduce is NULL.
throng_status throng_part_set_sync(throng_world* w, const throng_part_sync* sync);

THRONG_API_END

#endif
