// SPDX-License-Identifier: MIT
// The contact stage (internal.h has the design, docs/BEHAVIORS.md the
// rules): its scratch, and the stage itself, pairs ▶ iterations ▶ finish.
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"

bool thr_contact_wanted(const throng_world* w)
{
	if (w->obstacle_count > 0 || w->wall_count > 0) {
		return true;
	}
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		if (w->archetypes[a].contact.enabled) {
			return true;
		}
	}
	return false;
}

void thr_contact_free(thr_contact_data* c)
{
	if (c == NULL) {
		return;
	}
	thr_grid_free(&c->grid);
	for (uint32_t r = 0; r < c->runs_cap; ++r) {
		free(c->runs[r].pairs);
	}
	free(c->runs);
	free(c); // the rest are the arena's
}

/// Most iterations any archetype with contacts on asks for (0: none).
uint32_t thr_contact_most_iterations(const throng_world* w)
{
	uint32_t k = 0;
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_contact* c = &w->archetypes[a].contact;
		if (c->enabled && c->iterations > k) {
			k = c->iterations;
		}
	}
	return k;
}

/// Whether the stage lists pairs this step (and wants ctx->near).
static bool wants_pairs(const thr_step_ctx* ctx)
{
	return ctx->world_count > 1 && thr_contact_most_iterations(ctx->w) > 0;
}

/// Whether the stage keeps agents out of shapes this step.
static bool wants_shapes(const throng_world* w) { return w->count > 0 && (w->obstacle_count > 0 || w->wall_count > 0); }

throng_status thr_contact_prepare(thr_step_ctx* ctx)
{
	throng_world* w = ctx->w;
	const bool pairs = wants_pairs(ctx);
	const bool shapes = wants_shapes(w);
	if (!pairs && !shapes) {
		return THRONG_OK;
	}
	// The hand-off of the engine's pass (engine.h), one arena item each;
	// but where an engine sorts, buffers of the world that are dead from
	// the reorder to the step's end take three of them after the reorder
	// (thr_contact_bind_store).
	const size_t n = w->count;
	const bool arena = !ctx->engine->sorted;
	if (pairs && arena && (ctx->near = thr_contact_take(w, n, sizeof(float), "nearest neighbour distance")) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	if (shapes && ((ctx->clear = thr_contact_take(w, n, sizeof(uint8_t), "shape clearance")) == NULL ||
	               (arena &&
	                ((ctx->shaped_x = thr_contact_take(w, n, sizeof(float), "kept out of the shapes x")) == NULL ||
	                 (ctx->shaped_y = thr_contact_take(w, n, sizeof(float), "kept out of the shapes y")) == NULL)))) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	return THRONG_OK;
}

void thr_contact_bind_store(thr_step_ctx* ctx)
{
	throng_world* w = ctx->w;
	// Each holds capacity + THR_LANES entries of 4 bytes (core/step.c,
	// reserve_reorder; store.h).
	_Static_assert(THR_SPARES >= 2, "two spares for x and y");
	if (wants_pairs(ctx)) {
		// Then the pair offsets, which the listing writes agent by agent
		// after it read the agent's near (count + 1 of them), until the
		// stage's end: nothing reads near after the listing.
		ctx->near = (float*)w->reorder;
		ctx->pair_offsets = w->reorder;
	}
	if (wants_shapes(w)) {
		ctx->shaped_x = (float*)w->store.spare[0];
		ctx->shaped_y = (float*)w->store.spare[1];
	}
}

/// The figures of the stage into the step's.
static void add_figures(const thr_step_ctx* ctx, const thr_contact_listing* ls, uint32_t done,
                        const thr_finish_tally* t, thr_pass_stats* stats)
{
	if (ctx->counts != NULL) {
		ctx->counts->contact_searches += ls->searches;
		ctx->counts->contact_skips += ls->skips;
	}
	stats->contact_iterations += done;
	stats->contacts += ls->overlaps;
	stats->contact_capped += ls->capped;
	stats->shape_pushes += t->pushes;
	stats->shape_reverts += t->reverts;
	stats->clamped += t->clamped;
	stats->nonfinite += t->nonfinite;
	stats->max_speed_ratio = t->ratio;
}

/// Gives the stage's arena items back (from `mark` on) and clears its views.
static void forget_items(throng_world* w, uint32_t mark)
{
	thr_contact_data* cd = w->contact;
	thr_arena_unwind(&w->arena, mark);
	cd->start = cd->pairs = cd->blocks = cd->sets[0] = cd->sets[1] = cd->mark = NULL;
	memset(cd->q, 0, sizeof cd->q);
}

/// What one parallel region of the stage does: join the runs' lists,
/// run iterations `from` .. from + rounds - 1, finish.
typedef struct region_work {
	bool join;
	uint32_t from, rounds;
	bool finish;
} region_work;

/// One parallel region of the stage (its loops are the stages' orphaned
/// `omp for`s); the finish's figures are added to *sum.
static void run_region(const thr_step_ctx* ctx, const thr_contact_listing* ls, uint32_t runs, uint32_t iterations,
                       bool narrow, region_work work, thr_contact_rounds* rd, thr_finish_tally* sum)
{
	const throng_world* w = ctx->w;
	const thr_contact_data* cd = w->contact;
	const uint32_t n = w->count;
	const int threads = ctx->threads;
	(void)threads; // builds without OpenMP
	uint64_t pushes = 0, reverts = 0, clamped = 0, nonfinite = 0;
	float ratio = sum->ratio;
#pragma omp parallel num_threads(threads) if (n > THR_PARALLEL_MIN_AGENTS) \
	reduction(+ : pushes, reverts, clamped, nonfinite) reduction(max : ratio)
	{
		if (work.join) {
			thr_contact_join_runs(cd, n, runs);
		}
		if (work.rounds > 0) {
			thr_contact_iterate(ctx, ls->active, iterations, narrow, work.from, work.rounds, rd);
		}
		if (work.finish) {
			thr_finish_tally t = {0, 0, 0, 0, ratio};
			thr_contact_finish(ctx, rd->done, &t);
			pushes += t.pushes;
			reverts += t.reverts;
			clamped += t.clamped;
			nonfinite += t.nonfinite;
			ratio = t.ratio > ratio ? t.ratio : ratio;
		}
	}
	sum->pushes += pushes;
	sum->reverts += reverts;
	sum->clamped += clamped;
	sum->nonfinite += nonfinite;
	sum->ratio = ratio;
}

throng_status thr_contact_pass(const thr_step_ctx* ctx, thr_pass_stats* stats)
{
	throng_world* w = ctx->w;
	const uint32_t n = w->count;
	// A part world agrees on the whole world's figures with the other
	// parts (part.h) through the step's hook: each part calls it at the
	// same points, in the same order, even one that holds no agent.
	if ((n == 0 && ctx->sync == NULL) || !thr_contact_wanted(w)) {
		return THRONG_OK;
	}
	if (w->contact == NULL && (w->contact = calloc(1, sizeof *w->contact)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	const uint32_t planned = ctx->world_count > 1 ? thr_contact_most_iterations(w) : 0;
	const uint32_t runs = thr_contact_run_count(n, ctx->threads, n > THR_PARALLEL_MIN_AGENTS);
	thr_contact_listing ls = {0, 0, 0, 0, 0, 0, 0};
	// The stage's arena items, given back (in reverse) at its end.
	const uint32_t mark = thr_arena_mark(&w->arena);
	throng_status st = THRONG_OK;
	if (planned > 0) {
		float moved = stats->most_moved; // the engine's pass measured it
		thr_step_sync(ctx, THRONG_PART_CONTACT_MOVED, THRONG_PART_MAX_F32, &moved, 1);
		st = thr_contact_list(ctx, moved, runs, &ls);
		// A part's tallies leave its ghosts out, so their sums are the
		// whole world's. Agreed even when the listing failed: the other
		// parts wait for it (the run then stops).
		uint64_t v[2] = {ls.met, ls.capped};
		thr_step_sync(ctx, THRONG_PART_CONTACT_LISTED, THRONG_PART_SUM_U64, v, 2);
		ls.met = v[0];
		ls.capped_all = v[1];
		if (st == THRONG_OK) {
			st = thr_contact_index(ctx, planned, &ls);
		}
	}
	if (st == THRONG_OK && ls.met > 0 && thr_contact_take_iterates(w, n) != 0) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	if (st != THRONG_OK) {
		forget_items(w, mark);
		return st;
	}
	// Nothing can fail from here on. Iterations run while pairs overlap:
	// none when no listed pair overlaps p*, and none after an iteration
	// that met no overlapping pair (it changed nothing but -0 to +0).
	// Iterate 0 is p* itself; iterate k > 0 is in q[(k - 1) & 1].
	const uint32_t iterations = ls.met > 0 ? planned : 0;
	// From iteration 1 on, the iterations visit the blocks that met an
	// overlapping pair in the one before, and the blocks of the partners
	// of every agent it moved: any other block would compute what it
	// holds already (its agents and their partners did not move), and
	// both buffers hold it (thr_contact_narrow_blocks). That needs every
	// list to be symmetric, which only a capped list breaks.
	const bool narrow = ls.capped_all == 0 && iterations > 1;
	thr_contact_rounds rd = {{1}, {ls.active}, 0};
	thr_finish_tally sum = {0, 0, 0, 0, stats->max_speed_ratio};
	if (ctx->sync == NULL) {
		// A whole world: one region joins, iterates and finishes.
		run_region(ctx, &ls, runs, iterations, narrow, (region_work){iterations > 0, 0, iterations, true}, &rd, &sum);
	} else {
		// A part world: a region per iteration, and between two the
		// parts agree whether any agent still overlaps one (after each
		// iteration but the last). The finish joins the last region.
		bool join = iterations > 0;
		for (uint32_t k = 0;;) {
			const uint32_t rounds = k < iterations && rd.seen[k] ? 1u : 0u;
			const bool last = rounds == 0 || k + 1u >= iterations;
			run_region(ctx, &ls, runs, iterations, narrow, (region_work){join, k, rounds, last}, &rd, &sum);
			if (last) {
				break;
			}
			join = false;
			k = rd.done;
			uint64_t any = (uint64_t)rd.seen[k];
			thr_step_sync(ctx, THRONG_PART_CONTACT_ROUND, THRONG_PART_SUM_U64, &any, 1);
			rd.seen[k] = any != 0;
		}
	}
	forget_items(w, mark);
	add_figures(ctx, &ls, rd.done, &sum, stats);
	return THRONG_OK;
}
