// SPDX-License-Identifier: MIT
// The agent store (private): the one owner of every per-agent array.
//
// Design. Everything an engine reads for every agent every step lives in
// its own 64-byte aligned array, padded to a multiple of THR_LANES entries
// (padding is zero), so vector passes load whole lanes with no scalar
// tail. The dynamic state (position, velocity, heading, waypoint) is
// double-buffered: a step reads one buffer and writes the other, so no
// agent sees a neighbour's new state within a step and the visiting order
// cannot change a bit. Per-agent settings (limits, archetype, group,
// targets) change only between steps and are single; so are the wander
// angles, which no agent reads of another: the pass reads them and the
// step advances them in place once it can no longer fail (core/angles.c).
// A reorder gathers each single array into a spare array, which becomes
// the array, and the old array becomes the spare for a later one: two
// spares (made by the first reorder) serve all twelve, one chain each, so
// the two chains run on two threads without a barrier (thr_store_reorder).
// The waypoint arrays and the path column exist only in worlds with a
// path (before the first path every agent's waypoint is 0 and its path
// THRONG_NO_PATH: w->path is NULL, and readers give those); the unit
// column only in worlds with a unit (before, w->unit is NULL and readers
// give THRONG_NO_UNIT); the target_agent column only from the first
// target agent given or the first step with a target rule due (before,
// w->target_agent is NULL and readers give THRONG_NO_AGENT).
// Combat's three columns (health, ready, combat_state) have a block of
// their own, mapped fresh from the kernel and left untouched until a
// world writes a value other than 0 in one of them (thr_store_combat_live:
// an agent with combat spawned, a health set, a strike, a rout, a
// checkpoint or a part record read). Before that every entry is 0, the
// arrays are pages the process has never touched (they cost address
// space, not memory), and the store neither moves nor copies them; views
// of them read zeros. The group column likewise, until a world writes a
// group other than 0 (thr_store_group_live: a spawn, throng_world_set_group,
// a checkpoint or a part record).
//
// The store allocates, reorders and frees these arrays; nothing else
// does. The world's pointers to the single arrays (w->id, w->max_speed...)
// are views that the store rebinds after a reorder; engines read views.
// Storage order is the slot order; `id[slot]` is the stable id and
// `slot_of[id]` its inverse (THR_NO_SLOT for a removed id), an array of
// its own indexed by id, which grows with the ids given (thr_store_reserve_ids).
// A reorder (engines that want agents sorted by cell) moves agents, and
// so does a removal: the store closes the holes by moving the agents after
// them down, keeping their order (thr_store_remove), and new agents go at
// the end, so in a world no engine sorts the slots stay in id order.
// The arrays grow when agents no longer fit (thr_store_grow): capacity
// is where a world starts, not a limit.
#ifndef THRONG_CORE_STORE_H
#define THRONG_CORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "throng/throng.h"

/// The double-buffered per-agent state.
typedef struct thr_state {
	float *px, *py, *vx, *vy, *hx, *hy;
	uint32_t* waypoint; ///< path following: the waypoint each agent heads for (NULL: no path in the world, all 0)
} thr_state;

/// Single per-agent arrays that travel with the agents in a reorder (id,
/// max_speed, max_force, radius, archetype, group, target_agent, tx, ty,
/// path, health, ready, unit, combat_state, wander, noise), of 4 bytes
/// each.
#define THR_SINGLE_ARRAYS 16
/// path's index among the singles: the waypoint block's, NULL before the
/// world's first path.
#define THR_SINGLE_PATH 9
/// unit's index among the singles: the unit block's, NULL before the
/// world's first unit.
#define THR_SINGLE_UNIT 12
/// target_agent's index among the singles: the target block's, NULL
/// before the world's first target agent (thr_store_reserve_targets).
#define THR_SINGLE_TARGET 6
/// health's and ready's indices among the singles: with combat_state, the
/// combat block's (untouched until the world is combat-live).
#define THR_SINGLE_HEALTH 10
#define THR_SINGLE_READY 11
/// Singles in the combat block.
#define THR_COMBAT_ARRAYS 3
/// group's index among the singles: the group block's (untouched until
/// the world is group-live).
#define THR_SINGLE_GROUP 5
/// combat_state's index among the singles. A reorder leaves it where it
/// is: it tells of the last step only, and the step that reorders writes
/// it anew afterwards (thr_combat_apply clears the marks and sets the
/// step's own), so no mark ever crosses a reorder. Removals move it.
#define THR_SINGLE_COMBAT_STATE 13
/// The wander angles' indices among the singles (the main block's).
#define THR_SINGLE_WANDER 14
#define THR_SINGLE_NOISE 15

/// Spare arrays a reorder gathers the singles into: one chain of singles
/// each (thr_store_reorder).
#define THR_SPARES 2

/// Where arrays start in the page lines (see thr_alloc_arrays): the main
/// block's arrays (two states of 6, the singles but group, target_agent,
/// path, unit and combat's, then total_x and total_y when forces are
/// recorded) from 0, the combat block, the group block, the spares, the
/// waypoint block (two waypoint arrays and path), the unit block, the
/// target block and the force block.
#define THR_STORE_ARRAYS 21
#define THR_COMBAT_FIRST_ARRAY (THR_STORE_ARRAYS + 2)
#define THR_GROUP_FIRST_ARRAY (THR_COMBAT_FIRST_ARRAY + THR_COMBAT_ARRAYS)
#define THR_SPARE_FIRST_ARRAY 32
#define THR_WAYPOINT_FIRST_ARRAY (THR_SPARE_FIRST_ARRAY + THR_SPARES)
#define THR_UNIT_FIRST_ARRAY (THR_WAYPOINT_FIRST_ARRAY + 3)
#define THR_TARGET_FIRST_ARRAY (THR_UNIT_FIRST_ARRAY + 1)
#define THR_FORCE_FIRST_ARRAY 42

typedef struct thr_store {
	thr_state buf[2];
	int cur; ///< the buffer that holds the world's state between steps
	/// Arrays of one uint32 per agent whose contents are dead between
	/// reorders (NULL before thr_store_reserve_spares): a reorder's
	/// destinations, and from it to the step's end the contact stage's
	/// positions kept out of the shapes (core/step.c, sort_agents); a
	/// step's other scratch is the arena's.
	uint32_t* spare[THR_SPARES];
	void* block;          ///< states, singles, slot_of, totals
	void* spare_block;    ///< the arrays first made spare
	void* waypoint_block; ///< the two waypoint arrays and the path column (NULL: no path yet)
	void* unit_block;     ///< the unit column (NULL: no unit yet)
	void* target_block;   ///< the target_agent column (NULL: no target agent yet)
	void* force_block;    ///< recorded forces per slot
	void* combat_block;   ///< health, ready, combat_state: mapped pages (thr_map_arrays), combat_bytes of them
	size_t combat_bytes;
	bool combat_live;     ///< some combat column may hold a value other than 0 (thr_store_combat_live)
	void* group_block;    ///< the group column: mapped pages, group_bytes of them
	size_t group_bytes;
	bool group_live;      ///< the group column may hold a value other than 0 (thr_store_group_live)
	uint32_t* slot_of;    ///< a whole world's slot of every id (ids_cap entries; a part world has its own, part.h)
	uint32_t ids_cap;
	/// throng_world_keep_replaced_arrays: while `keep` is set, a growth
	/// puts the blocks it replaces here instead of freeing them, so that
	/// pointers a caller took from throng_world_view stay readable.
	bool keep;
	uint32_t kept_n, kept_cap;
	struct thr_kept_block* kept;
} thr_store;

/// A block kept by throng_world_keep_replaced_arrays: malloc's (mapped 0)
/// or mapped pages (mapped bytes of them).
typedef struct thr_kept_block {
	void* p;
	size_t mapped;
} thr_kept_block;

/// Allocates `count` zeroed arrays of n elements of `size` bytes, each
/// padded by THR_LANES elements and 64-byte aligned, from one block, and
/// stores their addresses in *arrays[j]. Array j starts (first + j) * stride
/// bytes from page offset 0 modulo 4096, the stride being an odd number of
/// cache lines, so up to 64 arrays numbered across blocks start in 64
/// different lines of a page (see store.c). Returns the block, to free(),
/// or NULL when out of memory.
void* thr_alloc_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first);

/// The same layout in pages mapped fresh from the kernel, which are 0 and
/// not touched here: arrays that stay 0 cost no memory. *bytes gets the
/// mapping's size, for munmap. Returns NULL when out of memory.
void* thr_map_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first, size_t* bytes);

/// Marks w combat-live before a value other than 0 is written in one of
/// its combat columns (health, ready, combat_state); from then on the
/// store moves them with the agents. Cannot fail.
static inline void thr_store_combat_live(thr_store* s) { s->combat_live = true; }

/// Marks w group-live before a group other than 0 is written; from then on
/// the store moves the group column with the agents. Cannot fail.
static inline void thr_store_group_live(thr_store* s) { s->group_live = true; }

/// Whether a health's bits are other than 0 (-0 counts: a column that is
/// not combat-live reads +0).
static inline bool thr_store_health_set(float health)
{
	uint32_t bits;
	memcpy(&bits, &health, sizeof bits);
	return bits != 0u;
}

/// Allocates w's main block (and the force block when w records forces)
/// and points the world's views at the first set. Returns -1 when out of
/// memory (thr_store_free() then releases what was made).
int thr_store_create(throng_world* w);

/// Frees every per-agent array of w.
void thr_store_free(throng_world* w);

/// Frees the blocks kept by throng_world_keep_replaced_arrays.
void thr_store_free_kept(thr_store* s);

/// Makes the spare arrays (once per world). Returns -1 when out of memory,
/// changing nothing.
int thr_store_reserve_spares(throng_world* w);

/// Makes the two waypoint arrays, all 0, and the path column, all
/// THRONG_NO_PATH (once per world; when its first path is added).
/// Returns -1 when out of memory, changing nothing.
int thr_store_reserve_waypoints(throng_world* w);

/// Makes the unit column, all THRONG_NO_UNIT (once per world; when its
/// first unit is added). Returns -1 when out of memory, changing nothing.
int thr_store_reserve_units(throng_world* w);

/// Makes the target_agent column, all THRONG_NO_AGENT (once per world;
/// before a target agent other than THRONG_NO_AGENT is written, and before
/// a step with a target rule due). Returns -1 when out of memory,
/// changing nothing.
int thr_store_reserve_targets(throng_world* w);

/// Makes room in the store's slot_of for ids below id_end (new entries
/// THR_NO_SLOT) and points w->slot_of at it in a whole world. Returns -1
/// when out of memory, changing nothing.
int thr_store_reserve_ids(throng_world* w, uint64_t id_end);

/// Grows every per-agent array to hold at least `need` agents (at least
/// twice the capacity, rounded up to THR_LANES, at most THR_MAX_CAPACITY
/// rounded), copying the w->count agents of both states, the singles, the
/// waypoints and the recorded forces; the spares are made again at the
/// next step. Returns -1 when out of memory (or need is above the most),
/// changing nothing.
int thr_store_grow(throng_world* w, uint32_t need);

/// Removes the agents at the slots whose byte in `dead` (w->count
/// entries) is non-zero, the first of them at slot `first`, through every
/// per-agent array of both states (the other one holds the state the last
/// step started from, which its record shows: it keeps matching the
/// slots); slot_of follows (THR_NO_SLOT for the removed). With keep_order
/// every agent after a hole moves down, in order (O(agents after the
/// first hole)); without, the last live agents
/// fill the holes (O(holes)), for engines that sort the slots anyway. The
/// slots that result depend on the set removed alone. `scratch` holds 2 *
/// w->count entries. Returns the new count; w->count is the caller's to set.
uint32_t thr_store_remove(throng_world* w, const uint8_t* dead, uint32_t first, bool keep_order, uint32_t* scratch);

/// Reorders every per-agent array by perm (new slot k holds old slot
/// perm[k]; w->count entries) in one parallel pass that cannot fail: the
/// state of buffer `cur` goes into the other buffer, whose index it
/// returns (cur itself is left to the step); each single goes into a
/// spare, which the world's view then shows, and slot_of follows. Every
/// element is written once from one source, so any thread split gives the
/// same result. Needs thr_store_reserve_spares() first.
int thr_store_reorder(throng_world* w, const uint32_t* perm, int threads);

_Static_assert(THR_STORE_ARRAYS == 12 + THR_SINGLE_ARRAYS - THR_COMBAT_ARRAYS - 4,
               "the main block holds two states of 6 and the singles but group, target_agent, path, unit and combat's");
_Static_assert(THR_SPARE_FIRST_ARRAY >= THR_GROUP_FIRST_ARRAY + 1 &&
                   THR_TARGET_FIRST_ARRAY + 1 <= THR_FORCE_FIRST_ARRAY,
               "page lines of the blocks overlap");

#endif
