// SPDX-License-Identifier: MIT
// The SIMD engine's step: sort agents by cell, then step blocks of 8 in
// parallel batches. See engine.h for the design.
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/// Blocks of 8 agents per batch of the parallel loop: fixed, so that the
/// work split never depends on the thread count (only who does a batch).
#define THR_BATCH_BLOCKS 32

static void free_soa(thr_shape_soa* s)
{
	free(s->a); free(s->b); free(s->c); free(s->d); free(s->index);
	memset(s, 0, sizeof *s);
}

void thr_simd_free(throng_world* w)
{
	struct thr_simd_state* s = w->simd;
	if (s == NULL) {
		return;
	}
	free(s->arch);
	free_soa(&s->obstacles);
	free_soa(&s->walls);
	free(s->cursor);
	free(s);
	w->simd = NULL;
}

static int reserve_soa(thr_shape_soa* s, uint32_t n)
{
	if (n <= s->cap) {
		return 0;
	}
	free_soa(s);
	size_t bytes = ((size_t)n + THR_LANES) * sizeof(float);
	s->a = malloc(bytes);
	s->b = malloc(bytes);
	s->c = malloc(bytes);
	s->d = malloc(bytes);
	s->index = malloc(bytes);
	if (!s->a || !s->b || !s->c || !s->d || !s->index) {
		free_soa(s);
		return -1;
	}
	memset(s->a, 0, bytes); memset(s->b, 0, bytes); memset(s->c, 0, bytes);
	memset(s->d, 0, bytes); memset(s->index, 0, bytes);
	s->cap = n;
	return 0;
}

/// Copies obstacles and walls into their grids' item order.
static int copy_shapes(throng_world* w, struct thr_simd_state* s)
{
	const thr_grid* og = &w->obstacle_grid;
	const thr_grid* wg = &w->wall_grid;
	if (reserve_soa(&s->obstacles, og->n_items) || reserve_soa(&s->walls, wg->n_items)) {
		return -1;
	}
	for (uint32_t k = 0; k < og->n_items; ++k) {
		const thr_obstacle* o = &w->obstacles[og->items[k]];
		s->obstacles.a[k] = o->c.x;
		s->obstacles.b[k] = o->c.y;
		s->obstacles.c[k] = o->r;
		s->obstacles.index[k] = (int32_t)og->items[k];
	}
	for (uint32_t k = 0; k < wg->n_items; ++k) {
		const thr_wall* l = &w->walls[wg->items[k]];
		s->walls.a[k] = l->a.x;
		s->walls.b[k] = l->a.y;
		s->walls.c[k] = l->b.x;
		s->walls.d[k] = l->b.y;
		s->walls.index[k] = (int32_t)wg->items[k];
	}
	s->shape_version = w->shape_version;
	return 0;
}

static int is_neighbor_kind(throng_behavior_kind k)
{
	return k == THRONG_UNALIGNED_AVOID || k == THRONG_SEPARATION || k == THRONG_ALIGNMENT ||
	       k == THRONG_COHESION;
}

static int refresh_arch_info(throng_world* w, struct thr_simd_state* s)
{
	if (w->archetype_count > s->arch_cap) {
		thr_arch_info* p = realloc(s->arch, w->archetype_count * sizeof *p);
		if (p == NULL) {
			return -1;
		}
		s->arch = p;
		s->arch_cap = w->archetype_count;
	}
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_controller* c = &w->archetypes[a];
		thr_arch_info* info = &s->arch[a];
		memset(info, 0, sizeof *info);
		for (uint32_t k = 0; k < c->slot_count; ++k) {
			const throng_slot* slot = &c->slots[k];
			if (!slot->enabled) {
				continue;
			}
			if (is_neighbor_kind(slot->kind)) {
				info->neighbor_slots[info->n_neighbor_slots++] = (uint8_t)k;
				if (slot->params.neighbor_radius > info->query_radius) {
					info->query_radius = slot->params.neighbor_radius;
				}
				uint32_t cap = thr_max_neighbors(&slot->params);
				info->most_cap = cap > info->most_cap ? cap : info->most_cap;
			}
		}
	}
	return 0;
}

/// Buckets agents by cell, in id order within a cell, and reorders them.
static throng_status sort_agents(throng_world* w, int threads)
{
	const throng_world_def* d = &w->def;
	thr_grid* g = &w->agent_grid;
	thr_grid_layout(g, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, thr_world_cell_size(w),
	                thr_world_max_cells(w));
	const thr_state* cs = thr_cur(w);
	// Visit in id order: slot_of lists, for each id, where it is now.
	if (thr_grid_build_points(g, cs->px, cs->py, w->count, w->slot_of) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the agent grid");
	}
	memcpy(w->store.perm, g->items, (size_t)w->count * sizeof *w->store.perm);
	w->store.cur = thr_store_reorder(w, threads);
	return THRONG_OK;
}

throng_status thr_simd_step(throng_world* w)
{
	if (w->simd == NULL) {
		w->simd = calloc(1, sizeof *w->simd);
		if (w->simd == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
		}
		w->simd->shape_version = UINT32_MAX;
	}
	struct thr_simd_state* s = w->simd;
	memset(w->region_team, 0, sizeof w->region_team);
	throng_status st = thr_world_update_shape_grids(w);
	if (st != THRONG_OK) {
		return st;
	}
	if (s->shape_version != w->shape_version && copy_shapes(w, s) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shapes");
	}
	if (refresh_arch_info(w, s) != 0 || thr_store_reserve_reorder(w) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
	}
	// OpenMP's default is capped (THRONG_MAX_THREADS): never OMP_NUM_THREADS as given.
	int threads = (int)(w->def.threads > 0 ? w->def.threads : throng_default_threads());
	(void)threads; // unused without OpenMP
	st = sort_agents(w, threads);
	if (st != THRONG_OK) {
		return st;
	}
	thr_select_targets(w, thr_cur(w), NULL, threads);

	thr_step_ctx ctx;
	ctx.w = w;
	ctx.cs = &w->store.buf[w->store.cur];
	ctx.ns = &w->store.buf[w->store.cur ^ 1];
	ctx.arch = s->arch;
	ctx.obstacles = &s->obstacles;
	ctx.walls = &s->walls;
	ctx.dt = w->def.dt;
	ctx.step32 = (uint32_t)w->step;
	ctx.time = (float)w->step * w->def.dt;

	const uint32_t blocks = (w->count + THR_LANES - 1u) / THR_LANES;
	const int64_t batches = (int64_t)((blocks + THR_BATCH_BLOCKS - 1u) / THR_BATCH_BLOCKS);
	float max_ratio = w->stats.max_speed_ratio;
	uint64_t nonfinite = 0, clamped = 0, nb_candidates = 0, nb_capped = 0;
	uint32_t nb_most_candidates = w->stats.neighbor_most_candidates, nb_most_met = w->stats.neighbor_most_met;
	// Small worlds run on the calling thread (THR_PARALLEL_MIN_AGENTS); any
	// split gives the same bits (max and integer sums).
#pragma omp parallel for schedule(static) num_threads(threads) \
	reduction(max : max_ratio, nb_most_candidates, nb_most_met) \
	reduction(+ : nonfinite, clamped, nb_candidates, nb_capped) if (w->count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t b = 0; b < batches; ++b) {
		if (b == 0) {
			thr_note_team(w, THR_REGION_BLOCKS);
		}
		thr_block_stats bs = {max_ratio, 0, 0, 0, 0, 0, 0};
		uint32_t first = (uint32_t)b * THR_BATCH_BLOCKS;
		uint32_t last = first + THR_BATCH_BLOCKS < blocks ? first + THR_BATCH_BLOCKS : blocks;
		for (uint32_t k = first; k < last; ++k) {
			thr_step_block(&ctx, k * THR_LANES, &bs);
		}
		max_ratio = bs.max_speed_ratio > max_ratio ? bs.max_speed_ratio : max_ratio;
		nonfinite += bs.nonfinite;
		clamped += bs.clamped;
		nb_candidates += bs.nb_candidates;
		nb_capped += bs.nb_capped;
		nb_most_candidates = bs.nb_most_candidates > nb_most_candidates ? bs.nb_most_candidates : nb_most_candidates;
		nb_most_met = bs.nb_most_met > nb_most_met ? bs.nb_most_met : nb_most_met;
	}
	w->stats.max_speed_ratio = max_ratio;
	w->stats.nonfinite += nonfinite;
	w->stats.clamped += clamped;
	w->stats.neighbor_candidates += nb_candidates;
	w->stats.neighbor_capped += nb_capped;
	w->stats.neighbor_most_candidates = nb_most_candidates;
	w->stats.neighbor_most_met = nb_most_met;
	w->stats.steps++;
	w->store.cur ^= 1;
	w->step++;
	return THRONG_OK;
}
