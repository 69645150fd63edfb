// SPDX-License-Identifier: MIT
// The agent store (private): the one owner of every per-agent array.
//
// Design. Everything an engine reads for every agent every step lives in
// its own 64-byte aligned array, padded to a multiple of THR_LANES entries
// (padding is zero), so vector passes load whole lanes with no scalar
// tail. The dynamic state (position, velocity, heading, wander angles,
// waypoint) is double-buffered: a step reads one buffer and writes the
// other, so no agent sees a neighbour's new state within a step and the
// visiting order cannot change a bit. Per-agent settings (limits,
// archetype, group, targets) change only between steps and are single,
// but a reorder needs somewhere to write them: the store keeps a second
// set, made by the first reorder, and trades the two.
//
// The store allocates, reorders and frees these arrays; nothing else
// does. The world's pointers to the single arrays (w->id, w->max_speed...)
// are views that the store rebinds after a reorder; engines read views.
// Storage order is the slot order; `id[slot]` is the stable id and
// `slot_of[id]` its inverse. Only a reorder (engines that want agents
// sorted by cell) moves agents; otherwise slot == id.
#ifndef THRONG_CORE_STORE_H
#define THRONG_CORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "throng/throng.h"

/// The double-buffered per-agent state.
typedef struct thr_state {
	float *px, *py, *vx, *vy, *hx, *hy;
	float *wander, *noise; ///< persistent wander angles
	uint32_t* waypoint;    ///< path following: the waypoint each agent heads for
} thr_state;

/// Single per-agent arrays that travel with the agents in a reorder (id,
/// max_speed, max_force, radius, archetype, group, target_agent, tx, ty,
/// path), of 4 bytes each.
#define THR_SINGLE_ARRAYS 10

/// Arrays of the store's main block (two states of 9, the first set of
/// singles, slot_of and perm, then total_x and total_y when forces are
/// recorded), and the index of the first array of the second set of
/// singles (which continues the main block's page lines) and of the force
/// block: see thr_alloc_arrays.
#define THR_STORE_ARRAYS 30
#define THR_ALT_FIRST_ARRAY 32
#define THR_FORCE_FIRST_ARRAY 42

typedef struct thr_store {
	thr_state buf[2];
	int cur; ///< the buffer that holds the world's state between steps
	/// One uint32 per agent, for the step: a reorder's permutation (new
	/// slot k holds old slot perm[k]), then the targets kept aside while
	/// the engine's pass runs.
	uint32_t* perm;
	uint32_t* alt[THR_SINGLE_ARRAYS]; ///< the singles' set not in use (NULL before the first reorder)
	void* block;       ///< states, first set of singles, slot_of, perm, totals
	void* alt_block;   ///< the second set of singles
	void* force_block; ///< recorded forces per slot
} thr_store;

/// Allocates `count` zeroed arrays of n elements of `size` bytes, each
/// padded by THR_LANES elements and 64-byte aligned, from one block, and
/// stores their addresses in *arrays[j]. Array j starts (first + j) * stride
/// bytes from page offset 0 modulo 4096, the stride being an odd number of
/// cache lines, so up to 64 arrays numbered across blocks start in 64
/// different lines of a page (see store.c). Returns the block, to free(),
/// or NULL when out of memory.
void* thr_alloc_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first);

/// Allocates w's main block (and the force block when w records forces)
/// and points the world's views at the first set. Returns -1 when out of
/// memory (thr_store_free() then releases what was made).
int thr_store_create(throng_world* w);

/// Frees every per-agent array of w.
void thr_store_free(throng_world* w);

/// Makes the second set of singles a reorder writes into (once per
/// world). Returns -1 when out of memory, changing nothing.
int thr_store_reserve_reorder(throng_world* w);

/// Reorders every per-agent array by store.perm (new slot k holds old
/// slot perm[k]) in one parallel pass that cannot fail: the state of
/// buffer `cur` goes into the other buffer, whose index it returns (cur
/// itself is left to the step); the singles go into their second set,
/// which the world's views then show, and slot_of follows. Every element
/// is written once from one source, so any thread split gives the same
/// result. Needs thr_store_reserve_reorder() first.
int thr_store_reorder(throng_world* w, int threads);

_Static_assert(THR_ALT_FIRST_ARRAY >= THR_STORE_ARRAYS + 2 && THR_ALT_FIRST_ARRAY + THR_SINGLE_ARRAYS <= THR_FORCE_FIRST_ARRAY,
               "page lines of the blocks overlap");

#endif
