// SPDX-License-Identifier: MIT
// The contact pass (private): solid agents, walls and obstacles.
//
// The step runs it after the engine's pass, on the next state the pass
// wrote (ctx->ns), before the flip. docs/BEHAVIORS.md ("Contacts") has the
// rules; in short:
//
// 1. Pairs. For each agent whose archetype has contacts on, the agents
//    (contacts on as well) within reach = 1.25 (r_i + r_j) at p*, at most
//    THRONG_CONTACT_MAX_PAIRS, ids up, listed once into per-run buffers.
//    The search uses the step's agent grid (over the previous positions,
//    searched wider by what agents moved) or a grid of its own over p*;
//    both find the same pairs (only a capped list keeps the first met,
//    cells row by row, ids up within a cell). Both engines and every
//    thread split see the same lists in the same order. An agent whose
//    neighbour walk (ctx->near) already proved nobody within reach is
//    not searched.
// 2. Jacobi iterations. Each agent reads every position of the previous
//    iterate and writes its own in the next one: for each listed pair that
//    overlaps (d < r_i + r_j) it moves away from the other by
//    stiffness/2 of the overlap, the pushes summed in list order; then it
//    leaves any obstacle and wall it entered. No agent reads a value another
//    agent writes in the same iteration, so the split cannot change a bit.
//    From iteration 1 on only the blocks that can change are visited.
// 3. Shapes and bounds, for every agent: out of obstacles, never across a
//    wall segment between the previous state and this one (swept: a path
//    that would cross one puts the agent back on its side, and if anything
//    is still crossed the agent stays where it was, a place no wall had
//    been crossed to reach), inside a contained world. For agents without
//    pairs the engine did this already at p* (thr_contact_shapes:
//    ctx->clear, and the position in q[0], q[1], which the iterations
//    write only in blocks with pairs); agents it found clear are not
//    visited.
// 4. Velocity: v = limit(v* + (p - p*)/dt, max_speed) for every agent the
//    pass moved, for an inelastic archetype less its part towards each
//    partner it still overlaps by more than 0.1 %; the heading stays the
//    integration's.
#ifndef THRONG_CORE_CONTACT_H
#define THRONG_CORE_CONTACT_H

#include "engine.h"

/// Pairs are listed within this multiple of the radii sum, so that agents
/// the iterations push together are still seen.
#define THR_CONTACT_REACH 1.25f

/// One run of agents whose pairs one thread lists in a single walk.
typedef struct thr_contact_run {
	uint32_t* pairs;    ///< the run's lists, agent after agent
	uint32_t cap, used; ///< room and entries in pairs
} thr_contact_run;

/// The pass's scratch, kept in the world between steps.
typedef struct thr_contact_data {
	thr_grid grid;         ///< agents by cell over p*, ids up within a cell (when the agent grid will not do)
	uint32_t* start;       ///< count + 1 offsets into pairs: the store's spare THR_SPARE_CONTACTS, this step's
	uint32_t* pairs;       ///< each agent's listed agents (slots)
	float* q[4];           ///< two iterates: x, y, x, y (q[2] holds thr_step_ctx.near until the listing)
	thr_contact_run* runs; ///< the listing's runs (runs_cap of them)
	uint32_t* blocks;      ///< the blocks of THR_LANES slots with a listed pair
	uint8_t* clear;        ///< thr_step_ctx.clear, per slot
	uint32_t* sets[2];     ///< the blocks iterations 1, 2, ... visit (odd, even)
	uint32_t* mark;        ///< per block: the tag of the last iteration that must visit it
	uint32_t tag;          ///< mark tags run from tag + 1 in a pass
	uint32_t pairs_cap, q01_cap, q23_cap, runs_cap, blocks_cap, clear_cap, sets_cap, mark_cap;
} thr_contact_data;

/// Whether the contact pass has work in w: an archetype with contacts on,
/// or a wall or an obstacle.
bool thr_contact_wanted(const throng_world* w);

/// Room for what the engine's pass leaves the contact pass (ctx->near),
/// when the pass will list pairs. Fails only out of memory, before the
/// step changes anything.
throng_status thr_contact_prepare(thr_step_ctx* ctx);

/// The contact pass over ctx->ns (ctx->cs holds the previous state). Fails
/// only out of memory, before it changes anything.
throng_status thr_contact_pass(const thr_step_ctx* ctx, thr_pass_stats* stats);

/// Frees the pass's scratch.
void thr_contact_free(thr_contact_data* c);

#endif
