// SPDX-License-Identifier: MIT
// The contact stage (private to core/contact/): solid agents, walls and
// obstacles.
//
// Design. The step runs the stage after the engine's pass, on the next
// state the pass wrote (ctx->ns), before the flip; docs/BEHAVIORS.md
// ("Contacts") has the rules. It reads as four stages, a file each:
//
// 1. Pairs (pairs.c). For each agent whose archetype has contacts on, the
//    agents (contacts on as well) within reach = 1.25 (r_i + r_j) at p*,
//    at most THRONG_CONTACT_MAX_PAIRS, ids up, listed once into per-run
//    buffers. The search uses the step's agent grid (over the previous
//    positions, searched wider by what agents moved) or a grid of its own
//    over p*; both find the same pairs (only a capped list keeps the first
//    met, cells row by row, ids up within a cell). Both engines and every
//    thread split see the same lists in the same order. An agent whose
//    neighbour walk (ctx->near) already proved nobody within reach is not
//    searched.
// 2. Iterations (iterations.c). Jacobi: each agent reads every position of
//    the previous iterate and writes its own in the next one: for each
//    listed pair that overlaps (d < r_i + r_j) it moves away from the
//    other by stiffness/2 of the overlap, the pushes summed in list order
//    (a pair that closes at v* also slides, each to its right, slip times
//    its push; iteration 0 ends with the noise move of an agent with such
//    a pair: throng_contact.slip, .noise)
//    (the engine's contact_block: thr_contact_block here, 8 lanes in
//    simd/contact.c); then it leaves any obstacle and wall it entered. No
//    agent reads a value another agent writes in the same iteration, so
//    the split cannot change a bit. From iteration 1 on only the blocks
//    that can change are visited.
// 3. Shapes (shapes.c), for every agent: out of obstacles, never across a
//    wall segment between the previous state and this one (swept: a path
//    that would cross one puts the agent back on its side, and if anything
//    is still crossed the agent stays where it was, a place no wall had
//    been crossed to reach), inside a contained world. For agents without
//    pairs the engine did this already at p* (thr_contact_shapes:
//    ctx->clear and ctx->shaped_x/_y); agents it found clear are not
//    visited.
// 4. Finish (finish.c): v = limit(v* + (p - p*)/dt, max_speed) for every
//    agent the stage moved, for an inelastic archetype less its part
//    towards each partner it still overlaps by more than 0.1 %; the
//    heading stays the integration's; bounds.
//
// contact.c runs them: the listing first (the only part that can fail,
// before anything changes), then one parallel region for the iterations
// and the finish, whose loops are the stages' orphaned `omp for`s. A part
// world (core/part.h) agrees with the other parts through the step's hook
// (thr_step_sync) at fixed points, always from serial code: before the
// listing, after it, and after each iteration but the last; its
// iterations then run one parallel region each, so that the hook comes
// between them. A whole world has no hook and keeps the one region.
#ifndef THRONG_CORE_CONTACT_INTERNAL_H
#define THRONG_CORE_CONTACT_INTERNAL_H

#include "contact.h"
#include "engine.h"

/// One run of agents whose pairs one thread lists in a single walk.
typedef struct thr_contact_run {
	uint32_t* pairs;    ///< the run's lists, agent after agent
	uint32_t cap, used; ///< room and entries in pairs
} thr_contact_run;

/// The stage's data. The grid and the runs are the stage's own, kept in
/// the world between steps (a run's buffer grows while it lists, on any
/// thread); the rest are views of items of the step's arena (arena.h),
/// taken and given back within the stage, NULL between steps.
struct thr_contact_data {
	thr_grid grid;         ///< agents by cell over p*, ids up within a cell (when the agent grid will not do)
	thr_contact_run* runs; ///< the listing's runs (runs_cap of them)
	uint32_t runs_cap;
	uint32_t* start;   ///< count + 1 offsets into pairs: thr_step_ctx.pair_offsets, or arena "contact pair offsets"
	uint32_t* pairs;   ///< arena "contact pairs": each agent's listed agents (slots)
	uint32_t* blocks;  ///< arena "contact blocks with pairs": the blocks of THR_LANES slots with a listed pair
	uint32_t* sets[2]; ///< arena "contact block set odd/even": the blocks iterations 1, 2, ... visit
	uint32_t* mark;    ///< arena "contact block marks": per block, the last iteration (1 on) that must visit it
	float* q[4];       ///< arena "contact iterate odd x/y, even x/y": iterate k > 0 in q[2 ((k - 1) & 1)], q[... + 1]
};

/// What the listing found (pairs.c), for the iterations and the figures.
typedef struct thr_contact_listing {
	uint64_t overlaps;   ///< overlapping pairs, each once (the lower id's), ghosts left out
	uint64_t capped;     ///< lists the cap cut short, the part's own
	uint64_t capped_all; ///< the same, the whole world's (in a part: after THRONG_PART_CONTACT_LISTED)
	uint64_t met;        ///< agents with an overlapping pair (the whole world's after THRONG_PART_CONTACT_LISTED)
	uint64_t skips;      ///< agents not searched: proved alone
	uint64_t searches;   ///< agents searched
	uint32_t active;     ///< blocks with pairs (cd->blocks)
} thr_contact_listing;

/// What the end of the stage counts, per agent and summed.
typedef struct thr_finish_tally {
	uint64_t pushes, reverts, clamped, nonfinite;
	float ratio; ///< largest |v| / max_speed of the agents it moved
} thr_finish_tally;

/// n per-agent items of `size` bytes from the step's arena, padded by a
/// block (NULL when out of memory).
static inline void* thr_contact_take(throng_world* w, size_t n, size_t size, const char* name)
{
	return thr_arena_alloc(&w->arena, (n + THR_LANES) * size, name);
}

/// Most iterations any archetype with contacts on asks for (0: none).
uint32_t thr_contact_most_iterations(const throng_world* w);

/// Whether block b (slots b * THR_LANES on, of n) holds an agent with a
/// listed pair: the blocks the iterations visit, whose agents end the
/// stage at the last iterate (the others keep p*).
static inline bool thr_block_has_pairs(const thr_contact_data* cd, uint32_t n, uint32_t b)
{
	const uint32_t first = b * THR_LANES;
	const uint32_t end = first + THR_LANES < n ? first + THR_LANES : n;
	return cd->start[end] > cd->start[first];
}

/// The runs of the listing: a few per thread, so that a thread whose vCPU
/// is taken leaves its later runs to the others.
static inline uint32_t thr_contact_run_count(uint32_t n, int threads, bool parallel)
{
	uint32_t runs = parallel ? 16u * (uint32_t)threads : 1u;
	return runs < n ? runs : n;
}

/// The agents of run r of `runs` over n: [*first, *end).
static inline void thr_contact_run_agents(uint32_t n, uint32_t runs, uint32_t r, uint32_t* first, uint32_t* end)
{
	*first = (uint32_t)((uint64_t)n * r / runs);
	*end = (uint32_t)((uint64_t)n * (r + 1u) / runs);
}

// ---- pairs.c

/// Lists every agent's pairs (runs of agents in parallel) and sums the
/// offsets; `moved` is the most any agent moved along x or y (the whole
/// world's). *out gets the part's own tallies (capped_all = capped).
/// Fails only out of memory, before anything of the world changes.
throng_status thr_contact_list(const thr_step_ctx* ctx, float moved, uint32_t runs, thr_contact_listing* out);

/// After the listing (and the parts' agreement on out->met and
/// out->capped_all): makes room for the joined lists and the iterations'
/// block sets, and finds the blocks with pairs (out->active). `planned`
/// iterations at most. Fails only out of memory, before anything of the
/// world changes.
throng_status thr_contact_index(const thr_step_ctx* ctx, uint32_t planned, thr_contact_listing* out);

// ---- iterations.c

/// Shared by the team running the iterations: which iterates met an
/// overlapping pair, and the size of each iteration's block set.
typedef struct thr_contact_rounds {
	int seen[THRONG_CONTACT_MAX_ITERATIONS + 1]; ///< seen[k]: iterate k met an overlapping pair (seen[0]: p*)
	uint32_t set_n[THRONG_CONTACT_MAX_ITERATIONS + 1];
	uint32_t done; ///< iterations run
} thr_contact_rounds;

/// Takes from the step's arena the two block sets and the marks (cleared)
/// that narrowed iterations need. Returns -1 when out of memory.
int thr_contact_narrow_blocks(throng_world* w, uint32_t n);

/// Takes from the step's arena the two iterates (x, y, x, y) of n agents.
/// Returns -1 when out of memory.
int thr_contact_take_iterates(throng_world* w, uint32_t n);

/// Joins the runs' lists into cd->pairs (an orphaned `omp for`: call it
/// from every thread of the stage's team).
void thr_contact_join_runs(const thr_contact_data* cd, uint32_t n, uint32_t runs);

/// Runs Jacobi iterations `from` .. from + rounds - 1 (of `iterations`
/// in all; fewer when one meets no overlapping pair) over the blocks with
/// pairs, from p* (ctx->ns) or iterate `from` into cd->q; narrowed when
/// `narrow`; sets rd->done to the iterations run so far. Call it from
/// every thread of the stage's team (orphaned `omp for`s); rd is shared.
void thr_contact_iterate(const thr_step_ctx* ctx, uint32_t active, uint32_t iterations, bool narrow, uint32_t from,
                         uint32_t rounds, thr_contact_rounds* rd);

// ---- shapes.c

/// One round of pushes: p out of every obstacle near it, then kept on
/// p0's side of every wall near the path. Sets *moved when it moved p.
vec2 thr_shape_round(const throng_world* w, vec2 p0, vec2 p, float r, int* moved);

/// p kept out of the obstacles and on its side of every wall, swept from
/// p0 (agent radius r); the THR_SHAPES_* bits of what happened in *what.
vec2 thr_keep_out(const throng_world* w, vec2 p0, vec2 p, float r, uint8_t* what);

// ---- finish.c

/// The end of the stage for every agent: the last iterate (or where the
/// engine kept it out of the shapes), bounds and velocity into ctx->ns.
/// Call it from every thread of the stage's team (an orphaned `omp for`);
/// adds this thread's figures to *t.
void thr_contact_finish(const thr_step_ctx* ctx, uint32_t done, thr_finish_tally* t);

#endif
