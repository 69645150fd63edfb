// SPDX-License-Identifier: MIT
// The query index (private): the world's agents listed in a uniform grid
// of their own for the spatial queries (include/throng/query.h), built
// lazily by the first query after the agents changed.
//
// Why a grid of its own: the agent grid (w->agent_grid) is the step's,
// laid out with the neighbour radius and rebuilt, or left stale, by the
// step; the query index is laid out for the queries (about two agents a
// cell over the crowd's extent, so a query's cells hold few agents at any
// density) and lives between steps. It keeps, cell by cell, a record of
// each agent's position, id and slot, so a query scans contiguous memory
// (one run of records a row of cells); a filter reads the group and
// archetype live through the slot (a setter of either need not
// invalidate the index).
//
// It is stamped with the agents_version it was built at (+ 1, so that 0
// means never): queries compare the stamp with w->agents_version, and the
// first that finds it stale builds it under a mutex while the others wait;
// a stamp that matches is read with acquire order, so the arrays the
// builder wrote before its release store are seen whole.
#ifndef THRONG_CORE_QUERY_H
#define THRONG_CORE_QUERY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "throng/query.h"
#include "throng/throng.h"
#include "world_internal.h"

/// One agent as the index lists it: everything a query reads of it in one
/// 16-byte record, so a row of cells is one run of memory.
typedef struct thr_query_item {
	float x, y;    ///< position (m)
	uint32_t id;   ///< the agent's id
	uint32_t slot; ///< its slot, through which a filter reads group and archetype
} thr_query_item;

typedef struct thr_query_index {
	pthread_mutex_t lock;    ///< held while building
	_Atomic uint64_t built;  ///< agents_version + 1 of the listing, 0: none yet
	thr_grid grid;           ///< dense, over the extent; items are slots, by id within a cell
	thr_query_item* item;    ///< per grid item, in the grid's order
	uint32_t cap;            ///< room in item
	uint32_t n;              ///< agents listed
	float density;           ///< agents per m^2 over the grid's extent (k-nearest's first radius)
	float lo_x, lo_y, hi_x, hi_y; ///< the extent the grid covers (m)
} thr_query_index;

/// Keys a query holds on the stack before it takes a heap buffer.
#define THR_QUERY_LOCAL 256

/// What a query collects (query.c's note): 64-bit keys, sorted up for
/// the answer; on the stack up to THR_QUERY_LOCAL, on the heap beyond.
typedef struct thr_keys {
	uint64_t* k;
	uint32_t n, cap;
	bool failed; ///< out of memory: the keys are incomplete
	uint64_t local[THR_QUERY_LOCAL];
} thr_keys;

static inline void thr_keys_init(thr_keys* b)
{
	b->k = b->local;
	b->n = 0;
	b->cap = THR_QUERY_LOCAL;
	b->failed = false;
}

/// Doubles b's room. Returns false when out of memory.
bool thr_keys_grow(thr_keys* b);

/// Frees b's heap buffer, if it took one.
void thr_keys_free(thr_keys* b);

static inline void thr_keys_push(thr_keys* b, uint64_t v)
{
	if (b->n == b->cap && !thr_keys_grow(b)) {
		b->failed = true;
		return;
	}
	b->k[b->n++] = v;
}

/// Sorts b's keys up (they are distinct: each holds an id).
void thr_keys_sort(thr_keys* b);

/// Writes the ids of the first `capacity` of b's sorted keys to ids, and
/// their count to *total.
void thr_keys_write(const thr_keys* b, uint32_t* ids, uint32_t capacity, uint32_t* total);

/// A query's filter, resolved: whether it tests group or archetype at all
/// (through the slot, live), and the id it leaves out.
typedef struct thr_match {
	uint32_t group, archetype, exclude;
	bool test; ///< group or archetype is not THRONG_ANY
	const uint32_t *group_of, *archetype_of; ///< by slot: the world's
} thr_match;

/// Whether the agent at item k of q passes m.
static inline bool thr_query_matches(const thr_match* m, const thr_query_index* q, uint32_t k)
{
	const thr_query_item* a = &q->item[k];
	if (a->id == m->exclude) {
		return false;
	}
	if (!m->test) {
		return true;
	}
	return (m->group == THRONG_ANY || m->group_of[a->slot] == m->group) &&
	       (m->archetype == THRONG_ANY || m->archetype_of[a->slot] == m->archetype);
}

// The checks the queries share; each names `fn` and the argument.

/// A world that is whole, and its filter (NULL: every agent), resolved
/// into *m.
throng_status thr_query_check_world(const throng_world* w, const throng_query_filter* filter, const char* fn,
                                    thr_match* m);

/// The ids buffer: NULL only when it has no room (`room` ids, named
/// `room_name` in the message).
throng_status thr_query_check_out(const char* fn, const void* ids, uint64_t room, const char* room_name);

/// A count's destination `name`: never NULL.
throng_status thr_query_check_total(const char* fn, const char* name, const void* p);

/// A point of the world (finite, |x|, |y| <= THRONG_MAX_COORD) `name`.
throng_status thr_query_check_point(const char* fn, const char* name, throng_vec2 p);

/// p[0 .. n), each a point of the world, named "<name>[q]"; p may be NULL
/// only when n is 0.
throng_status thr_query_check_points(const char* fn, const char* name, const throng_vec2* p, uint32_t n);

/// A new, empty index; NULL when out of memory.
thr_query_index* thr_query_index_create(void);

/// Frees the index (NULL is ignored).
void thr_query_index_free(thr_query_index* q);

/// Makes w's index list w's current agents, building it when its stamp is
/// stale. THRONG_OK, or THRONG_ERR_OUT_OF_MEMORY naming `fn` (the index is
/// then empty and stale, and the next query tries again).
throng_status thr_query_index_ready(const throng_world* w, const char* fn);

#endif
