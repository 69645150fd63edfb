// SPDX-License-Identifier: MIT
// Part worlds (private): one process's share of a larger world, for the
// distributed step of issue 15 (docs/DISTRIBUTED.md).
//
// Design. A part world is an ordinary throng_world that holds the agents a
// process owns plus copies ("ghosts") of the agents of other processes near
// them, and steps them with the ordinary step. What makes an owned agent's
// step the same bits as in the whole world:
//
// - its ids are the whole world's (sparse here): they key the random draws
//   (wander, noise) and order the agents within a cell. slot_of is indexed
//   by id over the whole world's id space.
// - its agent grid has the whole world's layout (cell size, cells, origin),
//   so the neighbours are visited in the same order: the grid's cell cap
//   comes from the whole world's capacity, and the largest radius is the
//   whole world's.
// - it holds every agent of every cell row within the halo of its owned
//   agents' rows (thr_part_halo_rows), so each owned agent meets the same
//   candidates, in the same order, up to the same caps.
// - agents come in only through thr_part_load(), with their whole state
//   (thr_agent_record). The SIMD engine sorts each cell by id whatever
//   the order they come in; for the scalar engine, which never sorts, they
//   come sorted by id and it keeps them so, as in a world whose slot is
//   its id.
//
// A ghost is stepped like any agent and its new state dropped by the
// driver; its figures stay out of the part's stats, so the parts' stats
// add up to the whole world's: sums add, maxima take the largest. The
// step marks the ghosts by slot once, after its sort
// (thr_part_mark_ghosts into thr_step_ctx.ghost); its stages read those
// marks and never ask the part. The work counters (throng_world_counters) count the ghosts'
// work too: it is work done.
//
// Solid contacts read figures of the whole world (whether any pair
// overlaps, which pairs are capped, the most any agent moved): a part
// gets them from the other parts through the hook its driver registers
// (throng_part_set_sync, include/throng/part.h), which the step calls at
// fixed points between its stages (thr_step_ctx.sync), and holds ghosts
// deep enough to compute its own agents' Jacobi iterations without
// exchanging them (thr_part_halo_rows).
//
// Agents come and go (docs/DISTRIBUTED.md, "Agents that come and go"):
// the id space grows (thr_part_grow_ids) and the whole world's live count
// is the driver's to tell (throng_part_set_world); a part lists its own
// agents' zone events from the bits their records carry and its sinks
// remove its own agents; its step runs no source: throng_part_sources
// runs them after it, in every part alike, over the bodies every part
// sends (core/sources.c).
//
// Target rules search up to their sight: the halo reaches that far, plus
// what a target and its pursuer drift apart until the next choice, so an
// own agent's choice and its target are the whole world's. A ghost's
// target that is not in the part is dropped (such a ghost's step reaches
// no own agent's).
#ifndef THRONG_CORE_PART_H
#define THRONG_CORE_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/part.h"
#include "world_internal.h"

/// The library's own name of a record (include/throng/part.h).
typedef throng_agent_record thr_agent_record;

/// The part's private data (world_internal.h: w->part).
typedef struct thr_part {
	uint32_t* slot_of; ///< ids_cap entries: the slot of each id, THR_NO_SLOT when absent
	uint8_t* ghost;    ///< a bit per id (id >> 3, bit id & 7): a ghost of the last load
	uint8_t* seen;     ///< a bit per id, all clear between loads: thr_part_load's check for ids given twice
	uint32_t ids_cap;  ///< ids slot_of, ghost and seen have room for (at least w->whole.id_space)
	uint32_t* holes;    ///< thr_part_update's scratch: the slots it empties
	uint32_t holes_cap; ///< entries of holes
	uint64_t* unit_sums;     ///< the morale stage's sums to reduce, THR_UNIT_SUMS a unit (core/units.h)
	uint32_t unit_sums_cap;  ///< units unit_sums has room for
	throng_part_sync sync; ///< the driver's hook (throng_part_set_sync); reduce NULL: none set (no solid contacts)
} thr_part;

/// Whether the agent with id `id` is a ghost of the part p (w->part; NULL
/// in a whole world, which has none): it is stepped, but its figures (its
/// share of throng_world_stats, and of most_moved) are not the part's.
static inline bool thr_part_ghost(const thr_part* p, uint32_t id)
{
	return p != NULL && ((p->ghost[id >> 3] >> (id & 7u)) & 1u) != 0;
}

/// Whether the part world w holds its whole world (checkpoint.h): the
/// whole world's count of agents, none of them a ghost, no recorded
/// forces (a record carries none).
bool thr_part_holds_whole(const throng_world* w);

/// Marks the ghosts of the part world w by slot into `ghost` (w->count / 8
/// + 1 bytes; bit i & 7 of ghost[i >> 3] for slot i): the step calls it
/// once, after its sort, and its stages read the marks (thr_step_ctx.ghost).
void thr_part_mark_ghosts(const throng_world* w, uint8_t* ghost);

/// Makes w, a world with no agent yet, a part of a whole world described by
/// def. Its archetypes, obstacles, walls and paths must be the whole
/// world's, added in the same order, and its def the whole world's except
/// for the capacity (which bounds the agents the part holds at once).
/// Fails with THRONG_ERR_INVALID_ARGUMENT (a part already, agents spawned,
/// a bad def) or THRONG_ERR_OUT_OF_MEMORY.
throng_status thr_part_make(throng_world* w, const thr_part_def* def);

/// Gives the part world w (thr_part_make done) what of the whole world's
/// churn it runs itself: its zones and arrival radius (each part lists
/// its own agents' events, and its sinks remove its own agents) and its
/// sources, with their progress (throng_part_sources). Out of memory,
/// the part is to be destroyed.
throng_status thr_part_adopt(throng_world* w, const throng_world* whole);

/// Room in the part world w for ids below id_end (slot_of, the ghost and
/// seen bits, the zone bits by id); w->whole.id_space is the caller's to
/// move. Out of memory, w is as it was (with room to spare).
throng_status thr_part_grow_ids(throng_world* w, uint64_t id_end);

/// Makes the agent with id `id` (in w) a ghost of the part world w.
void thr_part_set_ghost(throng_world* w, uint32_t id);

/// Frees w's part data (throng_world_destroy calls it).
void thr_part_free(throng_world* w);

/// The hook the step of w calls between its stages (thr_step_ctx.sync):
/// a part world's, when its driver set one; NULL in a whole world.
const throng_part_sync* thr_part_sync_of(const throng_world* w);

// The rest of the part worlds' interface is public and experimental:
// include/throng/part.h (throng_part_create, throng_part_load,
// throng_part_update, throng_part_load_next, the records, the rows, the
// halo).

#endif
