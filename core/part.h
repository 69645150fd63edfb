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
#include "throng/throng.h"

/// "No slot": slot_of of an id that is not in the part.
#define THR_NO_SLOT UINT32_MAX

/// What a part world takes from the whole world.
typedef struct thr_part_def {
	uint32_t id_space;      ///< every id is below it: the whole world's agent count
	uint32_t grid_capacity; ///< the whole world's def.capacity (its grids' cell caps)
	float max_radius;       ///< the whole world's largest agent radius
	float max_speed;        ///< the whole world's largest max_speed (how far an agent moves in a step)
} thr_part_def;

/// One agent's whole state: what a part world needs to step it as the
/// whole world would (76 bytes).
typedef struct thr_agent_record {
	uint32_t id;
	float px, py, vx, vy, hx, hy; ///< position, velocity, heading
	float wander, noise;          ///< the persistent wander angles
	uint32_t waypoint;            ///< 0 in worlds without paths
	float max_speed, max_force, radius;
	uint32_t archetype, group, target_agent, path;
	float tx, ty; ///< target point
} thr_agent_record;

/// The part's private data (world_internal.h: w->part).
typedef struct thr_part {
	thr_part_def def;
	uint32_t* slot_of; ///< def.id_space entries: the slot of each id, THR_NO_SLOT when absent
	uint8_t* ghost;    ///< a bit per id (id >> 3, bit id & 7): a ghost of the last load
	uint8_t* seen;     ///< a bit per id, all clear between loads: thr_part_load's check for ids given twice
	uint32_t* holes;    ///< thr_part_update's scratch: the slots it empties
	uint32_t holes_cap; ///< entries of holes
	throng_part_sync sync; ///< the driver's hook (throng_part_set_sync); reduce NULL: none set (no solid contacts)
} thr_part;

/// The whole world's agent count: `count` (the world's own) in a whole
/// world, the id space in a part (p = w->part).
static inline uint32_t thr_part_world_count(const thr_part* p, uint32_t count)
{
	return p != NULL ? p->def.id_space : count;
}

/// Whether the agent with id `id` is a ghost of the part p (w->part; NULL
/// in a whole world, which has none): it is stepped, but its figures (its
/// share of throng_world_stats, and of most_moved) are not the part's.
static inline bool thr_part_ghost(const thr_part* p, uint32_t id)
{
	return p != NULL && ((p->ghost[id >> 3] >> (id & 7u)) & 1u) != 0;
}

/// Marks the ghosts of the part world w by slot into `ghost` (w->count / 8
/// + 1 bytes; bit i & 7 of ghost[i >> 3] for slot i): the step calls it
/// once, after its sort, and its stages read the marks (thr_step_ctx.ghost).
void thr_part_mark_ghosts(const throng_world* w, uint8_t* ghost);

/// The rows and columns of the agent grid a step of w uses, to assign
/// agents to parts by cell (the cells are square: one size for both).
typedef struct thr_part_rows {
	float min_y, inv_cell, cell;
	int32_t ny;
	float min_x;
	int32_t nx;
} thr_part_rows;

/// Makes w, a world with no agent yet, a part of a whole world described by
/// def. Its archetypes, obstacles, walls and paths must be the whole
/// world's, added in the same order, and its def the whole world's except
/// for the capacity (which bounds the agents the part holds at once).
/// Fails with THRONG_ERR_INVALID_ARGUMENT (a part already, agents spawned,
/// a bad def) or THRONG_ERR_OUT_OF_MEMORY.
throng_status thr_part_make(throng_world* w, const thr_part_def* def);

/// Makes *out a part world of `whole`, an ordinary world before it is
/// split: its def (with `threads` and room for `capacity` agents), its
/// archetypes, obstacles, walls and paths in the same order, its threat,
/// and thr_part_make with its agent count, capacity, largest radius and
/// largest max_speed. Fails as throng_world_create and thr_part_make do
/// (nothing is made).
throng_status thr_part_create(const throng_world* whole, uint32_t threads, uint32_t capacity, throng_world** out);

/// The hook the step of w calls between its stages (thr_step_ctx.sync):
/// a part world's, when its driver set one; NULL in a whole world.
const throng_part_sync* thr_part_sync_of(const throng_world* w);

/// Frees w's part data (throng_world_destroy calls it).
void thr_part_free(throng_world* w);

/// Replaces every agent of the part world w by the n records, whose ids
/// must be distinct and below the id space, and sorted (increasing) when
/// w's engine is the scalar reference, which keeps its agents in the order
/// they come in (the SIMD engine orders each cell by id: any order gives
/// the same bits, and records already grouped by cell, as a part's own
/// storage order leaves them, cost its reorder least). Sets its
/// step count to `step`, the whole world's (the random draws and the
/// target rules' timing read it). Every own agent's target_agent must be
/// one of them; a ghost's that is not is set to none. ghost[k] != 0 makes
/// record k a ghost (ghost NULL: none is). Fails, changing nothing, with
/// THRONG_ERR_INVALID_ARGUMENT (naming the record and the field) or
/// THRONG_ERR_CAPACITY; and with THRONG_ERR_UNSUPPORTED for solid contacts
/// without throng_part_set_sync.
throng_status thr_part_load(throng_world* w, const thr_agent_record* recs, const uint8_t* ghost, uint32_t n,
                            uint64_t step);

/// Updates the part world w in place: keeps the own agents (not ghosts)
/// of the slots i where keep[i] != 0, in their slots where they can (the
/// slots order nothing the SIMD engine computes), drops every other agent
/// (the ghosts, and the own agents that left), then adds the n records (ghost[k] != 0 makes record k a ghost; ghost NULL: none is) and
/// sets the step count. A driver whose agents mostly stay where they are
/// sends and copies only the ghosts and the agents that move in. The ids
/// kept and brought must be distinct, and every target_agent among them.
/// keep NULL keeps nothing (thr_part_load). The SIMD engine only with keep
/// (the scalar reference needs its agents in id order): otherwise
/// THRONG_ERR_UNSUPPORTED. Fails as thr_part_load does, changing nothing.
throng_status thr_part_update(throng_world* w, const uint8_t* keep, const thr_agent_record* recs, const uint8_t* ghost,
                              uint32_t n, uint64_t step);

/// thr_part_load() of n records without ghosts into w, after flipping the
/// store's buffers so that the state w held stays as its previous state,
/// as a step leaves it (world_internal.h: the store's other buffer). For a
/// part world that holds every agent of the whole world (n is the id
/// space), loaded after each step of the parts: an observer that reads the
/// previous state (throng_metrics) then reads it in the same (id) order.
/// Fails as thr_part_load does, changing nothing, and with
/// THRONG_ERR_INVALID_ARGUMENT when n is not the id space.
throng_status thr_part_load_next(throng_world* w, const thr_agent_record* recs, uint32_t n, uint64_t step);

/// Orders records by id (qsort, bsearch).
int thr_agent_record_by_id(const void* a, const void* b);

/// The record of the agent in slot `slot` of w (any world), from its
/// current state.
void thr_agent_record_get(const throng_world* w, uint32_t slot, thr_agent_record* out);

/// The agent grid's rows and columns as w's next step lays them out.
thr_part_rows thr_part_rows_of(const throng_world* w);

/// The row of the agent grid an agent at height y falls in (the grid's own
/// clamped cell coordinate: below the bounds and NaN give 0).
int32_t thr_part_row(const thr_part_rows* r, float y);

/// The column an agent at x falls in, as thr_part_row.
int32_t thr_part_col(const thr_part_rows* r, float x);

/// How many rows (and columns: the cells are square) of ghosts a part needs
/// on each side of its owned rows (and columns, when parts are blocks), so
/// that its own agents' steps are the whole world's: the reach of their
/// neighbour walks, and with solid contacts the reach of what moves them
/// (iterations + 1 hops of a pair, THR_CONTACT_REACH times two of the
/// largest radii plus what both ends moved, and the neighbour walks of the
/// farthest), in cells, plus one for the rounding of the grid's cell
/// coordinate. In wrap mode the rows are cyclic: a part's ghosts include
/// the rows within the halo across the seam (a contact pushes agents
/// there).
int32_t thr_part_halo_rows(const throng_world* w);

#endif
