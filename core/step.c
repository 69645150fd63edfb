// SPDX-License-Identifier: MIT
// The step: one pipeline for both engines (engine.h has the design).
// Reading throng_world_step tells the whole step: prepare, sort, targets,
// the engine's pass, finish; with counting on (core/counters.c) each
// stage's time and the step's work go to the world's counters.
#include <stdlib.h>
#include <string.h>

#include "angles.h"
#include "combat.h"
#include "contact.h"
#include "counters.h"
#include "engine.h"
#include "error.h"
#include "events.h"
#include "part.h"
#include "sources.h"
#include "targeting.h"
#include "units.h"

const thr_engine* thr_world_engine(const throng_world* w)
{
	return w->def.engine == THRONG_ENGINE_SIMD ? &thr_simd_engine : &thr_scalar_engine;
}

void thr_engines_release(throng_world* w)
{
	thr_arena_destroy(&w->arena);
	free(w->reorder);
	w->reorder = NULL;
	w->reorder_cap = 0;
	const thr_engine* engines[2] = {&thr_scalar_engine, &thr_simd_engine};
	for (int k = 0; k < 2; ++k) {
		if (engines[k]->release != NULL) {
			engines[k]->release(w);
		}
	}
}

/// Whether some archetype's target rule is due this step.
static bool targets_due(const throng_world* w)
{
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_target_rule* rule = &w->archetypes[a].target_rule;
		if (rule->enabled && w->step % rule->every == 0 && w->count > 0) {
			return true;
		}
	}
	return false;
}

/// The threads of this step (team.h): all that were asked for, or with
/// THRONG_THREADS_ADAPT the governor's pick. *timed: whether the step's
/// time goes to the governor.
static uint32_t step_team(throng_world* w, const thr_engine* e, bool due, bool* timed)
{
	// OpenMP's default is capped (THRONG_MAX_THREADS): never OMP_NUM_THREADS as given.
	const uint32_t most = e->parallel ? (w->def.threads > 0 ? w->def.threads : throng_default_threads()) : 1u;
	if (w->team.most != most) {
		thr_team_init(&w->team, most);
	}
	*timed = w->def.threads_policy == THRONG_THREADS_ADAPT && most > 1 && w->count > THR_PARALLEL_MIN_AGENTS;
	if (!*timed) {
		return most;
	}
	// Steps with a target rule due cost more than the others: neither
	// timed nor probed.
	*timed = !due;
	return due ? w->team.current : thr_team_pick(&w->team);
}

/// Room for the record's copy of a reorder (thr_step_record), which from
/// the step's reorder to its copy holds the contact stage's nearest
/// neighbour distances and then, in place, its pair offsets
/// (thr_contact_bind_store, thr_step_ctx.pair_offsets): capacity +
/// THR_LANES entries. Returns -1 when out of memory.
static int reserve_reorder(throng_world* w)
{
	if (w->reorder_cap >= w->capacity) {
		return 0;
	}
	uint32_t* r = aligned_alloc(64, (((size_t)w->capacity + THR_LANES) * sizeof *r + 63u) & ~(size_t)63u);
	if (r == NULL) {
		return -1;
	}
	free(w->reorder);
	w->reorder = r;
	w->reorder_cap = w->capacity;
	return 0;
}

/// What the step publishes (thr_step_record): the state it read, its
/// reorder (copied: the grid is the next step's), the contact stage's
/// figures.
static void publish(throng_world* w, const thr_step_ctx* ctx, const thr_pass_stats* ps)
{
	const uint32_t* reorder = NULL;
	if (ctx->engine->sorted && w->count > 0) {
		memcpy(w->reorder, w->agent_grid.items, (size_t)w->count * sizeof *w->reorder);
		reorder = w->reorder;
	}
	const thr_contact_report contact = {ps->contacts, ps->contact_capped, ps->contact_iterations, ps->shape_pushes,
	                                    ps->shape_reverts};
	thr_publish_step(w, ctx->cs, reorder, &contact);
}

/// Everything of the step that can fail, before anything of the world
/// changes: the shape grids, the per-archetype table, the engine's data,
/// room for a reorder, the agent grid over the current state.
static throng_status prepare(throng_world* w, const thr_engine* e, uint32_t threads, bool due, thr_step_ctx* ctx)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->w = w;
	ctx->engine = e;
	ctx->threads = (int)threads;
	ctx->dt = w->def.dt;
	ctx->step32 = (uint32_t)w->step;
	ctx->time = (float)w->step * w->def.dt;
	ctx->read = w->store.cur;
	ctx->write = w->store.cur ^ 1;
	ctx->world_count = thr_whole_count(w);
	ctx->sync = thr_part_sync_of(w);
	throng_status st = thr_world_update_shape_grids(w);
	if (st == THRONG_OK) {
		st = thr_world_refresh_arch(w);
	}
	ctx->arch = w->arch;
	if (st == THRONG_OK && e->prepare != NULL) {
		st = e->prepare(ctx);
	}
	if (st == THRONG_OK) {
		st = thr_contact_prepare(ctx);
	}
	if (st == THRONG_OK && e->sorted && (thr_store_reserve_spares(w) != 0 || reserve_reorder(w) != 0)) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
	}
	if (st == THRONG_OK && due &&
	    (ctx->kept_targets = thr_arena_alloc(&w->arena, (size_t)w->count * sizeof(uint32_t), "targets before selection")) ==
	        NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
	}
	if (st == THRONG_OK && w->part != NULL &&
	    (ctx->ghost = thr_arena_alloc(&w->arena, (size_t)w->count / 8u + 1u, "ghosts by slot")) == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
	}
	if (st != THRONG_OK) {
		return st;
	}
	const throng_world_def* d = &w->def;
	thr_grid* g = &w->agent_grid;
	thr_grid_layout_sparse(g, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y,
	                       thr_world_cell_size(w), thr_world_max_cells(w), thr_world_max_cells(w));
	thr_grid_wrap(g, d);
	const thr_state* cs = thr_cur_c(w);
	// A sorting engine's cells list agents by id. Its agents are stored in
	// the last step's cell order: the grid builds split over the threads.
	const uint32_t parts = e->sorted && w->count > THR_PARALLEL_MIN_AGENTS ? threads : 1u;
	if (thr_grid_build_points_split(g, cs->px, cs->py, w->count, e->sorted ? w->id : NULL, parts,
	                                &w->region_team[THR_REGION_GRID]) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the agent grid");
	}
	if (due && thr_reserve_cell_groups(w) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for target selection");
	}
	return THRONG_OK;
}

/// Reorders agents by cell (in id order within a cell) when the engine
/// wants it: the store writes the sorted state into the other buffer,
/// which the pass then reads, and writes the next state over the old one.
/// Then, in a part world, marks its ghosts by slot for the whole step.
static void sort_agents(throng_world* w, const thr_engine* e, thr_step_ctx* ctx)
{
	if (e->sorted) {
		ctx->read = thr_store_reorder(w, w->agent_grid.items, ctx->threads);
		ctx->write = ctx->read ^ 1;
		ctx->items = NULL; // grid entry k is now slot k
		thr_contact_bind_store(ctx); // the hand-off in buffers dead from here to the step's end
	} else {
		ctx->items = w->agent_grid.items;
	}
	ctx->cs = &w->store.buf[ctx->read];
	ctx->ns = &w->store.buf[ctx->write];
	if (ctx->ghost != NULL) {
		// A part world's ghosts, marked once in the order every stage
		// reads: the stages ask ctx->ghost, never the part.
		thr_part_mark_ghosts(w, ctx->ghost);
	}
}

/// The step's figures into the world's stats.
static void merge_stats(throng_world* w, const thr_pass_stats* ps)
{
	throng_world_stats* s = &w->stats;
	s->max_speed_ratio = ps->max_speed_ratio;
	s->nonfinite += ps->nonfinite;
	s->clamped += ps->clamped;
	s->neighbor_candidates += ps->nb_candidates;
	s->neighbor_capped += ps->nb_capped;
	s->neighbor_most_candidates = ps->nb_most_candidates;
	s->neighbor_most_met = ps->nb_most_met;
	s->contacts += ps->contacts;
	s->contact_capped += ps->contact_capped;
	s->contact_iterations += ps->contact_iterations;
	s->shape_pushes += ps->shape_pushes;
	s->shape_reverts += ps->shape_reverts;
	s->steps++;
}

/// The step's clock (THRONG_COUNT_TIME): each lap's time goes to the
/// stage it closes. Off, a lap is one branch.
typedef struct step_clock {
	bool on;
	uint64_t start, last;
} step_clock;

static void lap(step_clock* k, throng_world_counters* c, throng_stage stage)
{
	if (k->on) {
		uint64_t now = thr_clock_ns();
		c->stage_ns[stage] += now - k->last;
		k->last = now;
	}
}

/// The step's end, succeeded or not: every item of the step's arena given
/// back (the last first), and the arena grown to what the step held at
/// most, so that the next step allocates nothing. Returns st.
static throng_status end_step(throng_world* w, throng_status st)
{
	thr_arena_unwind(&w->arena, 0);
	thr_arena_grow(&w->arena);
	return st;
}

throng_status throng_world_step(throng_world* w)
{
	throng_status st = thr_check_world(w, "throng_world_step");
	if (st != THRONG_OK) {
		return st;
	}
	// The step's counters, kept only if it succeeds.
	throng_world_counters counts;
	step_clock clock = {false, 0, 0};
	if (w->counting != 0) {
		memset(&counts, 0, sizeof counts);
		counts.steps = 1;
		clock.on = (w->counting & THRONG_COUNT_TIME) != 0;
		clock.start = clock.last = clock.on ? thr_clock_ns() : 0;
	}
	const thr_engine* e = thr_world_engine(w);
	memset(w->region_team, 0, sizeof w->region_team);
	// Target selection rewrites w->target_agent when a rule is due and the
	// pass may still fail: the old targets wait in the step's arena
	// (ctx.kept_targets) so that a failed step leaves the world as it was.
	const bool due = targets_due(w);
	bool timed = false;
	const uint32_t team = step_team(w, e, due, &timed);
	const uint64_t began = timed ? thr_clock_ns() : 0;
	thr_step_ctx ctx;
	st = thr_sources_reserve(w); // may grow the store: before anything points into it
	if (st == THRONG_OK && due && thr_store_reserve_targets(w) != 0) { // (the column selection writes, store.h)
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for target selection");
	}
	if (st == THRONG_OK) {
		st = prepare(w, e, team, due, &ctx);
	}
	if (st != THRONG_OK) {
		return end_step(w, st);
	}
	if (w->counting & THRONG_COUNT_WORK) {
		ctx.counts = &counts;
		counts.agents = w->count;
		counts.grid_cells = thr_grid_work_cells(&w->agent_grid);
	}
	lap(&clock, &counts, THRONG_STAGE_PREPARE);

	sort_agents(w, e, &ctx);
	lap(&clock, &counts, THRONG_STAGE_SORT);

	if (due) {
		memcpy(ctx.kept_targets, w->target_agent, (size_t)w->count * sizeof *w->target_agent);
	}
	thr_select_targets(w, ctx.cs, ctx.items, ctx.ghost, ctx.threads, ctx.counts);
	lap(&clock, &counts, THRONG_STAGE_TARGETS);

	thr_pass_stats ps;
	memset(&ps, 0, sizeof ps);
	ps.max_speed_ratio = w->stats.max_speed_ratio;
	ps.nb_most_candidates = w->stats.neighbor_most_candidates;
	ps.nb_most_met = w->stats.neighbor_most_met;
	st = e->pass(&ctx, &ps);
	lap(&clock, &counts, THRONG_STAGE_PASS);
	if (st == THRONG_OK) {
		st = thr_contact_pass(&ctx, &ps);
		lap(&clock, &counts, THRONG_STAGE_CONTACTS);
	}
	if (st == THRONG_OK) {
		st = thr_combat_strikes(w, &w->store.buf[ctx.write]);
	}
	if (st == THRONG_OK) { // the last that can fail: what the step did, listed before it shows
		st = thr_events_step(w, &w->store.buf[ctx.write]);
	}

	if (st != THRONG_OK) {
		// Nothing of the next state is visible: the world stays at the
		// previous step (sorted, when the engine sorted it: the same world).
		if (due) {
			memcpy(w->target_agent, ctx.kept_targets, (size_t)w->count * sizeof *w->target_agent);
		}
		thr_make_current(w, ctx.read);
		if (e->sorted) {
			w->published.step = UINT64_MAX; // the storage order moved: the record no longer describes it
			if (w->combat_marked) { // the last step's marks did not follow the reorder (store.h): dropped
				memset(w->combat_state, 0, (size_t)w->count * sizeof *w->combat_state);
				w->combat_marked = false;
			}
		}
		return end_step(w, st);
	}
	thr_advance_angles(&ctx); // nothing fails from here: the angles the pass turned, kept
	end_step(w, THRONG_OK);
	merge_stats(w, &ps);
	w->stats.threads_last = team;
	w->stats.steps_one_thread += (uint64_t)(team == 1 && w->team.most > 1);
	thr_make_current(w, ctx.write); // the one flip of the step
	w->step++;
	publish(w, &ctx, &ps);
	thr_events_sinks(w); // after the record, which follows the removal (thr_remove_marked)
	thr_combat_apply(w); // after the sinks, in their buffers
	thr_units_step(w);   // on what the dead left, before the sources add
	thr_sources_run(w);  // after the sinks and the dead: their room is the sources'
	if (timed) {
		thr_team_record(&w->team, team, (float)(thr_clock_ns() - began) / (float)w->count);
	}
	if (w->counting != 0) {
		if (ctx.counts != NULL) {
			counts.neighbor_candidates = ps.nb_candidates;
		}
		lap(&clock, &counts, THRONG_STAGE_FINISH);
		counts.step_ns = clock.on ? clock.last - clock.start : 0;
		w->count_last = counts;
		thr_counters_add(&w->count_total, &counts);
	}
	return THRONG_OK;
}
