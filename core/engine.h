// SPDX-License-Identifier: MIT
// The engine interface (private): what the step (step.c) asks of an
// engine, and all an engine's pass needs from core/ besides the world.
//
// A step is one pipeline (step.c, throng_world_step): prepare (shape
// grids, the per-archetype neighbour table, the engine's own preparation,
// the agent grid, the store's reorder when the engine wants agents sorted
// by cell, target selection), the engine's pass (every agent: behaviours,
// blend, integrate, from state `read` into state `write`), finish (merge
// the pass's figures into the world's stats, keep the wander angles the
// pass turned (core/angles.c), make `write` current, once).
// Everything that can fail runs before anything of the world changes,
// except the pass; a pass that fails leaves `write` unseen (it reads the
// wander angles and writes none), and the step puts back what target
// selection changed.
#ifndef THRONG_CORE_ENGINE_H
#define THRONG_CORE_ENGINE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "targeting.h"
#include "throng/part.h"
#include "world_internal.h"

/// Everything a pass reads, fixed for the step.
typedef struct thr_step_ctx {
	throng_world* w;
	const struct thr_engine* engine; ///< the engine stepping the world
	const thr_state* cs; ///< previous state (sorted by cell when the engine asked)
	thr_state* ns;       ///< next state, same order
	int read, write;     ///< store buffers of cs and ns
	/// Agent grid entries to slots: the grid's items, or NULL when the
	/// store sorted agents by cell (entry k is then slot k).
	const uint32_t* items;
	const thr_arch_info* arch; ///< per archetype: its neighbour slots and query radius
	int threads;               ///< OpenMP team for the pass (1 for the scalar reference)
	float dt;
	uint32_t step32;
	float time; ///< simulated time at the start of the step
	/// The step's work counts (THRONG_COUNT_WORK), or NULL when the world
	/// does not count: engines add to it where the work is done.
	throng_world_counters* counts;
	/// The targets before this step's selection, kept while the step may
	/// still fail (an arena item; NULL when no target rule is due).
	uint32_t* kept_targets;
	/// The whole world's agent count: w->count, or in a part world its id
	/// space (the contact stage sizes its grid and decides whether pairs
	/// can exist from it, so that every part decides as the whole world).
	uint32_t world_count;
	/// A part world's ghosts in this step's storage order (after the
	/// sort), marked once for the whole step: bit i & 7 of ghost[i >> 3]
	/// is set when slot i holds a ghost (thr_slot_ghost). The stages step
	/// a ghost like any agent but leave its figures out of the stats: they
	/// are another part's (core/part.h). The arena item "ghosts by slot";
	/// NULL in a whole world, which has none.
	uint8_t* ghost;
	/// A part world's hook (include/throng/part.h, thr_part_sync_of): the
	/// step's stages call it through thr_step_sync at the points
	/// throng_part_point names, from serial code between parallel
	/// regions. NULL in a whole world, which then pays nothing for it.
	const throng_part_sync* sync;
	/// The engine's pass hands the contact stage these, per slot: the pass
	/// fills them for every agent it steps, the contact stage reads them.
	/// Each is an item of the step's arena (arena.h), taken by
	/// thr_contact_prepare, that means one thing for the whole step; but
	/// with an engine that sorts, near is the record's reorder buffer
	/// (until the contact stage's listing, then its pair offsets) and
	/// shaped_x and shaped_y the store's two spares, dead from the step's
	/// reorder to its end (thr_contact_bind_store, after the reorder).
	struct {
		/// Not wanted: NULL. The least squared distance from the agent
		/// to another agent its neighbour walk examined in cs (+Inf:
		/// none), or THR_NEAR_UNKNOWN when the walk did not examine every
		/// candidate of its cells (it met a cap, or the agent has no
		/// walk): the contact stage skips an agent proved alone.
		float* near;
		/// No shape in the world: NULL. What thr_contact_shapes returned
		/// for the agent's path from cs to ns as the engine wrote it.
		uint8_t* clear;
		/// Where thr_contact_shapes kept the agent, when `clear` lacks
		/// THR_SHAPES_CLEAR.
		float *shaped_x, *shaped_y;
	};
	/// Where the contact stage writes its pair offsets (count + 1): with
	/// an engine that sorts, near's buffer, once the listing has read
	/// near (thr_contact_bind_store); NULL: an arena item of their own.
	uint32_t* pair_offsets;
} thr_step_ctx;

/// The lanes of the block of n slots from `first` (a multiple of
/// THR_LANES) whose figures count (bit l: slot first + l): all n, less a
/// part world's ghosts (thr_step_ctx.ghost).
static inline int thr_step_counted_lanes(const thr_step_ctx* ctx, uint32_t first, int n)
{
	const int lanes = (1 << n) - 1;
	return ctx->ghost != NULL ? lanes & ~(int)ctx->ghost[first >> 3] : lanes;
}

/// The parts' agreement at point `at` (thr_step_ctx.sync): values[0 ..
/// count) become their `op` over every part. Nothing in a whole world.
/// Call it from serial code, never inside a parallel region.
static inline void thr_step_sync(const thr_step_ctx* ctx, throng_part_point at, throng_part_op op, void* values,
                                 uint32_t count)
{
	if (ctx->sync != NULL) {
		ctx->sync->reduce(ctx->sync->user, at, op, values, count);
	}
}

/// thr_step_ctx.near of an agent whose walk left candidates unexamined.
#define THR_NEAR_UNKNOWN (-1.0f)

/// What a pass measured, merged into throng_world_stats by the step.
/// The maxima start from the world's running maxima.
typedef struct thr_pass_stats {
	float max_speed_ratio;
	/// Largest distance along x or y from an agent's previous position
	/// to p* (NaN never counts): what the contact pass widens its search by.
	float most_moved;
	uint64_t nonfinite;
	uint64_t clamped;
	uint64_t nb_candidates;      ///< candidates the neighbour walks examined
	uint32_t nb_most_candidates; ///< most of them for one agent
	uint32_t nb_most_met;        ///< most neighbours one slot of one agent took
	uint64_t nb_capped;          ///< agents whose walk met a cap
	uint64_t contacts;           ///< overlapping pairs the contact pass met
	uint64_t contact_capped;     ///< agents whose pairs met THRONG_CONTACT_MAX_PAIRS
	uint64_t contact_iterations; ///< Jacobi iterations the contact pass ran
	uint64_t shape_pushes;       ///< agents the contact pass moved out of a wall or obstacle
	uint64_t shape_reverts;      ///< agents kept where they were: a wall was still crossed
	/// Where the pass adds its work counts (a batch's own in the SIMD
	/// pass), or NULL when the world does not count.
	throng_world_counters* counts;
} thr_pass_stats;

/// One Jacobi iteration of the contact stage (core/contact/iterations.c) as an engine's
/// contact block sees it: agent i's listed agents are
/// pairs[start[i]] .. pairs[start[i + 1] - 1].
typedef struct thr_contact_iter {
	const throng_world* w;
	const uint32_t* start;
	const uint32_t* pairs;
	const float *sx, *sy; ///< iterate k, every agent
	float *dx, *dy;       ///< iterate k + 1
	uint32_t k;
	/// The integration's velocity v*, every agent: a pair is pressed when
	/// it closes at v* (throng_contact.slip and .noise; read only when an
	/// archetype sets one).
	const float *vx, *vy;
	float dt; ///< the step's (throng_contact.noise)
} thr_contact_iter;

typedef struct thr_engine {
	bool sorted;   ///< wants agents sorted by cell (the store reorders them before the pass)
	bool parallel; ///< runs targets and its pass on the world's threads (else on one)
	/// Engine data to refresh before the step changes anything (NULL:
	/// none). May fail; the world is then unchanged.
	throng_status (*prepare)(const thr_step_ctx* ctx);
	/// Every agent from ctx->cs into ctx->ns.
	throng_status (*pass)(const thr_step_ctx* ctx, thr_pass_stats* stats);
	/// Frees the engine's data kept in the world (NULL: none).
	void (*release)(throng_world* w);
	/// Iterate k + 1 of the agents first .. first + 7 (those below the
	/// count): the contact stage's Jacobi step (core/contact/iterations.c, thr_contact_block,
	/// is the reference); obstacles and walls are the pass's. Returns the
	/// lanes (bit l: agent first + l) that met an overlapping pair.
	int (*contact_block)(const thr_contact_iter* it, uint32_t first);
} thr_engine;

/// The scalar reference (core/scalar_engine.c) and the SIMD engine (simd/).
extern const thr_engine thr_scalar_engine;
extern const thr_engine thr_simd_engine;

/// The engine that steps w (def.engine).
const thr_engine* thr_world_engine(const throng_world* w);

/// The scalar engine's pass (also the stand-in of builds without simd/).
throng_status thr_scalar_pass(const thr_step_ctx* ctx, thr_pass_stats* stats);

/// Below this fraction of the radii sum two centres count as one point
/// (the contact pass and both engines' contact blocks).
#define THR_COINCIDENT 1.0e-6f

/// The scalar reference of thr_engine.contact_block (core/contact/iterations.c).
int thr_contact_block(const thr_contact_iter* it, uint32_t first);

/// Whether agent i moves in iteration k of the contact pass: its archetype
/// has contacts on and asks for more than k iterations, and it has pairs.
static inline bool thr_contact_active(const thr_contact_iter* it, uint32_t i)
{
	const throng_contact* c = &it->w->archetypes[it->w->archetype[i]].contact;
	return c->enabled && it->k < c->iterations && it->start[i + 1] > it->start[i];
}

/// most, or agent i's largest move along x or y from cs to ns if larger
/// (thr_pass_stats.most_moved; a NaN move never is).
static inline float thr_most_moved(float most, const thr_state* cs, const thr_state* ns, uint32_t i)
{
	const float mx = fabsf(ns->px[i] - cs->px[i]), my = fabsf(ns->py[i] - cs->py[i]);
	const float m = mx > my ? mx : my;
	return m > most ? m : most;
}

/// The previous position of agent i in the frame of p (a wrapped world
/// moves it by a world's width where the step wrapped the agent).
static inline vec2 thr_previous_position(const throng_world* w, const thr_state* cs, uint32_t i, vec2 p)
{
	vec2 p0 = v2(cs->px[i], cs->py[i]);
	if (w->def.bounds_mode == THRONG_BOUNDS_WRAP) {
		const float wx = w->def.bounds_max.x - w->def.bounds_min.x;
		const float wy = w->def.bounds_max.y - w->def.bounds_min.y;
		p0.x += p.x - p0.x > 0.5f * wx ? wx : (p0.x - p.x > 0.5f * wx ? -wx : 0.0f);
		p0.y += p.y - p0.y > 0.5f * wy ? wy : (p0.y - p.y > 0.5f * wy ? -wy : 0.0f);
	}
	return p0;
}

/// Whether no obstacle or wall can touch a disc of radius r on the path
/// p0 -> p, from the clearance (world_internal.h) of p's cell in the shape
/// grids: both ends in that cell and the clearance beyond r and beyond the
/// path's length, or the clearance beyond r plus the path's length (every
/// point of the path lies within that length of p). Then shape_round would
/// move nothing (no shape within r of p) and the path crosses no wall, nor
/// reaches the far side of a wall's line within the wall's span (that far
/// side is at most the path's length from p): the shortcut changes no bit.
static inline bool thr_clear_of_shapes(const throng_world* w, vec2 p0, vec2 p, float r)
{
	const thr_box_grid* g = &w->obstacle_grid;
	const float fx = (p.x - g->min_x) * g->inv_cell, fy = (p.y - g->min_y) * g->inv_cell;
	if (!(fx >= 0.0f && fx < (float)g->nx && fy >= 0.0f && fy < (float)g->ny)) {
		return false; // also NaN
	}
	const int32_t cx = (int32_t)fx, cy = (int32_t)fy;
	const float clear = (float)w->shape_clear[(size_t)cy * (size_t)g->nx + (size_t)cx] * g->cell * (0.999f / 255.0f);
	const float len = fabsf(p.x - p0.x) + fabsf(p.y - p0.y); // at least the path's length
	if (!(r < clear && len < clear)) {
		return false; // also NaN
	}
	const float hx = (p0.x - g->min_x) * g->inv_cell, hy = (p0.y - g->min_y) * g->inv_cell;
	const bool same = hx >= 0.0f && hx < (float)g->nx && hy >= 0.0f && hy < (float)g->ny && (int32_t)hx == cx &&
	                  (int32_t)hy == cy;
	return same || (r + len) * 1.0001f < clear;
}

/// Whether a wall passes closer than `reach` to p (the nearest point of
/// its segment, ends included; in a wrapping world walls are taken where
/// they are, as the wall counts take them). One function for both
/// engines, so the same bits decide (the relaxation's headway cone,
/// core/controller.c).
bool thr_near_wall(const throng_world* w, vec2 p, float reach);

/// thr_step_ctx.clear's bits: the path from the previous position to p*
/// is clear of every shape (thr_clear_of_shapes); else the shapes moved
/// p* (pushed), and the agent went back to where it was (reverted).
#define THR_SHAPES_CLEAR 1u
#define THR_SHAPES_PUSHED 2u
#define THR_SHAPES_REVERTED 4u

/// Agent i, integrated to p* (ctx->ns), kept out of the obstacles and on
/// its side of every wall as the end of the contact pass keeps an agent
/// that has no pairs (core/contact/shapes.c): writes ctx->shaped_x/_y unless the path
/// is clear; returns the THR_SHAPES_* bits. Engines call it for every
/// agent once they wrote it, when ctx->clear is not NULL, while the
/// shape grid cells near the agent are still in cache.
uint8_t thr_contact_shapes(const thr_step_ctx* ctx, uint32_t i);

/// Frees every engine's data kept in w (throng_world_destroy).
void thr_engines_release(throng_world* w);

#endif
