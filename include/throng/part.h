// SPDX-License-Identifier: MIT
// Part worlds (EXPERIMENTAL: names and layouts may change between minor
// versions): one process's share of a larger world, for a distributed
// step (docs/DISTRIBUTED.md; the throng-mpi program drives them over
// MPI). The library itself does no communication and links no MPI: the
// driver moves agents between the parts and agrees on the whole world's
// figures through the hook it registers here.
#ifndef THRONG_PART_H
#define THRONG_PART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/events.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// The points of a part world's step where the parts agree on a figure
/// of the whole world (throng_part_sync). Each comes with one operation
/// and count, the same on every part. The first three belong to the
/// contact stage, and come only in worlds with solid contacts whose whole
/// world holds two agents or more; the last to combat.
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
	/// Combat, once a step in a world with combat, after the strikes are
	/// found: the strikes another part must know (the shots, and the blows
	/// on its own agents), as opaque bytes (throng_part_sync.share).
	THRONG_PART_COMBAT_STRIKES,
	/// Units, once a step in a world with units, before the morale stage:
	/// each unit's sums over the part's own members (10 values a unit,
	/// THRONG_PART_SUM_U64; signed sums wrap as two's complement).
	THRONG_PART_UNITS,
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
///
/// share, for combat (THRONG_PART_COMBAT_STRIKES): sends the `bytes`
/// bytes at `mine` to every other part and returns what every other part
/// sent, put together in any order (the step orders it itself), setting
/// *got to its size; the memory is the driver's and stays valid until the
/// next call (an MPI_Allgatherv, for instance). Called at the same point
/// on every part, from the same thread as reduce; it cannot fail either.
typedef struct throng_part_sync {
	void* user; ///< passed to reduce and share as it is
	void (*reduce)(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count);
	const void* (*share)(void* user, throng_part_point at, const void* mine, size_t bytes, size_t* got);
} throng_part_sync;

/// Sets how the part world w agrees with the other parts (a copy of
/// *sync). A part whose archetypes have solid contacts needs it before it
/// is loaded, and one with combat needs its share too. Fails with THRONG_ERR_INVALID_ARGUMENT when w is not a part
/// world or sync->reduce is NULL.
throng_status throng_part_set_sync(throng_world* w, const throng_part_sync* sync);

/// One agent's whole state: what a part world needs to step it as the
/// whole world would (100 bytes, no padding: drivers send it as bytes).
typedef struct throng_agent_record {
	uint32_t id;                  ///< the whole world's id
	float px, py, vx, vy, hx, hy; ///< position (m), velocity (m/s), heading (unit)
	float wander, noise;          ///< the persistent wander angles (rad)
	uint32_t waypoint;            ///< 0 in worlds without paths
	float max_speed, max_force, radius;
	uint32_t archetype, group, target_agent, path;
	float tx, ty; ///< target point (m)
	/// Where the agent was after the last step, what its next step's zone
	/// events compare with (bits 0 to 31 of a 64-bit word, then 32 to 63:
	/// zone z's bit, bit 63 within the arrival radius of its target
	/// point); 0 in worlds without zones or arrivals.
	uint32_t inside[2];
	/// Combat (0 without): health left, the step from which it may strike
	/// again, and what the last step did to it (THRONG_COMBAT_* bits).
	float health;
	uint32_t ready, combat_state;
	uint32_t unit; ///< its unit (THRONG_NO_UNIT: none)
} throng_agent_record;

/// The agent grid's rows and columns as a world's step lays them out
/// (square cells), to assign agents to parts by cell.
typedef struct throng_part_rows {
	float min_y, inv_cell, cell; ///< m, 1/m, m
	int32_t ny;
	float min_x; ///< m
	int32_t nx;
} throng_part_rows;

/// Makes *out a part world of `whole`, an ordinary world before it is
/// split: its def (with `threads` and room for `capacity` agents to
/// start with: it grows), its archetypes, obstacles, walls, paths and
/// units in the same order, its threat, its zones, arrival radius and sources;
/// ids, the agent grid's layout, the largest radius, max_speed and the
/// step count are the whole world's (a world restored from a checkpoint
/// makes parts at its step). A part world holds no agent until it is loaded
/// (throng_part_load); throng_world_spawn refuses it. The caller owns
/// *out (throng_world_destroy). Fails as throng_world_create does, and
/// with THRONG_ERR_INVALID_ARGUMENT when `whole` is a part (nothing is
/// made).
throng_status throng_part_create(const throng_world* whole, uint32_t threads, uint32_t capacity, throng_world** out);

/// Replaces every agent of the part world w by the n records (copied),
/// whose ids must be distinct and below the whole world's id end, and
/// increasing when w's engine is the scalar reference, which keeps its
/// agents in the order they come in (the SIMD engine orders each cell by
/// id: any order gives the same bits). Sets its step count to `step`, the
/// whole world's. Every own agent's target_agent must be one of them; a
/// ghost's that is not is set to none. ghost[k] != 0 makes record k a
/// ghost (ghost NULL: none is): stepped, but its figures are another
/// part's. Fails, changing nothing, with THRONG_ERR_INVALID_ARGUMENT
/// (naming the record and the field) or THRONG_ERR_CAPACITY; and with
/// THRONG_ERR_UNSUPPORTED for solid contacts without throng_part_set_sync,
/// for combat without a sync whose share is set, and for a unit with a
/// formation (part worlds keep morale, not formations yet). In a world with combat or
/// sinks an own agent's target may be missing too (it died or left): it
/// is set to none, as the removal does in the whole world.
throng_status throng_part_load(throng_world* w, const throng_agent_record* recs, const uint8_t* ghost, uint32_t n,
                               uint64_t step);

/// Updates the part world w in place: keeps the own agents (not ghosts)
/// of the slots i where keep[i] != 0, in their slots where it can, drops
/// every other agent, then adds the n records and sets the step count, as
/// throng_part_load does. A driver whose agents mostly stay sends and
/// copies only the ghosts and the agents that move in. keep NULL keeps
/// nothing (throng_part_load). With keep, the SIMD engine only (the
/// scalar reference needs its agents in id order): otherwise
/// THRONG_ERR_UNSUPPORTED. Fails as throng_part_load does, changing
/// nothing.
throng_status throng_part_update(throng_world* w, const uint8_t* keep, const throng_agent_record* recs,
                                 const uint8_t* ghost, uint32_t n, uint64_t step);

/// throng_part_load() of every agent of the whole world (n records by
/// increasing id, n its count; tell w the whole world's id end and count
/// first, throng_part_set_world), without ghosts, into w, keeping the
/// state w held as its previous state, as a step leaves it: an observer
/// that reads the previous state (throng_metrics_observe) then reads it
/// in the same (id) order. The agents w held that are not among the
/// records are gone (a sink took them), and records whose id w did not
/// hold are new (a source added them): they come after the others, as
/// the whole world's step leaves them. For a driver that gathers the
/// whole world after each step of the parts. Fails as throng_part_load
/// does, changing nothing, and with THRONG_ERR_INVALID_ARGUMENT when n
/// is not the count w was told or the ids do not increase.
throng_status throng_part_load_next(throng_world* w, const throng_agent_record* recs, uint32_t n, uint64_t step);

/// Tells the part world w the whole world's id end (every id given so
/// far is below it; the part's id space grows to it, never shrinks), its
/// live agent count (what the next step reads as the whole world's count:
/// the contact pass sizes its pair grid from it, so every part must be
/// told the same) and its largest radius so far (w's grows to it, never
/// shrinks: as a spawn raises it). A part is made with the whole world's
/// figures. Fails with THRONG_ERR_INVALID_ARGUMENT (not a part, count
/// above id_end, a bad radius) or THRONG_ERR_OUT_OF_MEMORY, changing nothing.
throng_status throng_part_set_world(throng_world* w, uint32_t id_end, uint32_t count, float max_radius);

/// The whole world's figures as the part world w holds them: its id end,
/// its count, its largest radius (m; raised by w's sources as they add
/// agents, throng_part_sources). Any pointer may be NULL.
void throng_part_get_world(const throng_world* w, uint32_t* id_end, uint32_t* count, float* max_radius);

/// An agent's body as the sources see it: where it is and its radius.
typedef struct throng_part_body {
	float x, y, radius; ///< m
} throng_part_body;

/// The own agents (not ghosts) of the part world w that a source of w
/// may find in its way: those within the box of a source's region grown
/// by its agents' radius and the largest radius of the world and of the
/// sources' agents. Writes up to cap of them into out (in storage order)
/// and returns how many there are. 0 for a world without sources.
uint32_t throng_part_near_sources(const throng_world* w, throng_part_body* out, uint32_t cap);

/// After a step of the part world w, and of every part: runs w's sources
/// (throng_part_create copies the whole world's) as the whole world's
/// step would after its sinks, over the n bodies that every part found
/// near them (throng_part_near_sources, gathered from every part, in any
/// order). Every part adds the same agents with the same ids, from the
/// whole world's id end on, in source order, with no message between the
/// parts. An added agent at (x, y) stays an own agent of w when own(user,
/// x, y), and is a ghost otherwise (dropped by the next load: another
/// part owns it). Lists the sources' ADDED and WAITED events (the same in
/// every part) and grows the id space and the whole count (throng_part_set_world).
/// Fails with THRONG_ERR_INVALID_ARGUMENT or THRONG_ERR_OUT_OF_MEMORY,
/// changing nothing.
throng_status throng_part_sources(throng_world* w, const throng_part_body* near, uint32_t n,
                                  bool (*own)(void* user, float x, float y), void* user);

/// Replaces the event list of the part world w (throng_world_events) by
/// the n events (copied): for a driver that gathers the parts' events
/// into the whole world it makes (throng_part_sort_events). Fails with
/// THRONG_ERR_INVALID_ARGUMENT or THRONG_ERR_OUT_OF_MEMORY.
throng_status throng_part_set_events(throng_world* w, const throng_event* events, uint32_t n);

/// Orders the events one step listed in every part (each part's own
/// agents' zone and arrival events and its sinks' removals, the parts'
/// lists put together in any order) as the whole world's step lists
/// them: by agent, kind and zone, then the removals by agent. The
/// sources' events, the same in every part, come after them.
void throng_part_sort_events(throng_event* events, uint32_t n);

/// Whether slot `slot` (below throng_world_agent_count, in the storage
/// order of throng_world_view) of the part world w holds a ghost of its
/// last load. False in a whole world.
bool throng_part_is_ghost(const throng_world* w, uint32_t slot);

/// Sets the running stats of the part world w (throng_world_get_stats):
/// for a driver that gathers the whole world into a part and gives it the
/// parts' stats, summed and maximised (each part counts its own agents
/// only). Fails with THRONG_ERR_INVALID_ARGUMENT when w is not a part.
throng_status throng_part_set_stats(throng_world* w, const throng_world_stats* stats);

/// The threat of w as throng_world_set_threat last set it (a scene's
/// script sets it on the part it runs on), for a driver that hands it to
/// the whole world it gathers. Any argument but w may be NULL.
void throng_part_get_threat(const throng_world* w, throng_vec2* position, throng_vec2* velocity, bool* active);

/// Gives the part world `to` the sources of the part world `from`, with
/// their progress (what each has added and how often it waited): every
/// part runs every source alike (throng_part_sources), so any part's are
/// the whole world's. For a driver that checkpoints the whole world it
/// gathers into a part of its own, whose sources never ran. Fails with
/// THRONG_ERR_INVALID_ARGUMENT when either is not a part world, or
/// THRONG_ERR_OUT_OF_MEMORY, changing nothing.
throng_status throng_part_copy_sources(throng_world* to, const throng_world* from);

/// Gives the part world `to` the missiles in flight of the part world
/// `from`, in their order, and its units' states: every part keeps every
/// missile (a part's step lands those on its own agents) and every unit
/// (each reckons the morale of all from the sums the parts reduce), so
/// any part's are the whole world's. For a driver that gathers the whole
/// world into a part of its own (its hash, summary and checkpoints hold
/// them). Fails with THRONG_ERR_INVALID_ARGUMENT when either is not a
/// part world or their units differ in number, or
/// THRONG_ERR_OUT_OF_MEMORY, changing nothing.
throng_status throng_part_copy_combat(throng_world* to, const throng_world* from);

/// The record of the agent in slot `slot` of w (any world; slots as in
/// throng_world_view), from its current state.
void throng_agent_record_get(const throng_world* w, uint32_t slot, throng_agent_record* out);

/// The record of the agent with id `id` of w (any world). Fails with
/// THRONG_ERR_NOT_FOUND when w holds no such agent.
throng_status throng_agent_record_of(const throng_world* w, uint32_t id, throng_agent_record* out);

/// Orders records by id (for qsort and bsearch).
int throng_agent_record_by_id(const void* a, const void* b);

/// The agent grid's rows and columns as w's next step lays them out.
throng_part_rows throng_part_rows_of(const throng_world* w);

/// The row of the agent grid an agent at height y (m) falls in: the grid's
/// own clamped cell coordinate (below the bounds and NaN give 0).
int32_t throng_part_row(const throng_part_rows* r, float y);

/// The column an agent at x (m) falls in, as throng_part_row.
int32_t throng_part_col(const throng_part_rows* r, float x);

/// How many rows (and columns) of ghosts a part of w needs on each side
/// of its own cells so that its own agents step as in the whole world:
/// the reach of the neighbour walks, of the target rules' sight and of
/// the solid contacts' chains, in cells, plus one. In wrap mode the rows
/// are cyclic (docs/DISTRIBUTED.md, "The decomposition").
int32_t throng_part_halo_rows(const throng_world* w);

THRONG_API_END

#endif
