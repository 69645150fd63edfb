// SPDX-License-Identifier: MIT
// The SIMD engine: its data (shape copies in grid order), and its pass,
// blocks of 8 sorted agents in parallel batches. See block.h for the design.
#include "block.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/// Blocks of 8 agents per batch of the parallel loop: fixed, so that the
/// work split never depends on the thread count (only who does a batch).
#define THR_BATCH_BLOCKS 32

/// Batches a thread takes at a time: dynamically, so that a thread whose
/// vCPU is taken by another process, or whose batches hold more shapes
/// or neighbours, leaves the rest to the others instead of holding the
/// step (docs/PERFORMANCE.md, "Two threads"). Each batch writes only its
/// own agents and the reductions are maxima and integer sums: who takes
/// a batch changes no bit.
#define THR_BATCH_CHUNK 8

static void free_soa(thr_shape_soa* s)
{
	free(s->a); free(s->b); free(s->c); free(s->d); free(s->index);
	memset(s, 0, sizeof *s);
}

static void simd_release(throng_world* w)
{
	struct thr_simd_state* s = w->simd;
	if (s == NULL) {
		return;
	}
	free_soa(&s->obstacles);
	free_soa(&s->walls);
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
	const thr_box_grid* og = &w->obstacle_grid;
	const thr_box_grid* wg = &w->wall_grid;
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

/// Makes the engine's data and copies the shapes when their grids changed.
static throng_status simd_prepare(const thr_step_ctx* step)
{
	throng_world* w = step->w;
	if (w->simd == NULL) {
		w->simd = calloc(1, sizeof *w->simd);
		if (w->simd == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
		}
		w->simd->shape_version = UINT32_MAX;
	}
	struct thr_simd_state* s = w->simd;
	if (s->shape_version != w->shape_version && copy_shapes(w, s) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shapes");
	}
	return THRONG_OK;
}

static void counters_clear(throng_world_counters* c) { memset(c, 0, sizeof *c); }

// Work counts summed over the batches (integer sums: the same for any
// split and any order of merging).
#pragma omp declare reduction(thr_counts_add : throng_world_counters : thr_counters_add(&omp_out, &omp_in)) \
	initializer(counters_clear(&omp_priv))

/// Steps the blocks of 8 sorted agents, in batches over the world's threads.
static throng_status simd_pass(const thr_step_ctx* step, thr_pass_stats* stats)
{
	const throng_world* w = step->w;
	const struct thr_simd_state* s = w->simd;
	const int threads = step->threads;
	(void)threads; // unused without OpenMP
	thr_wide_ctx ctx;
	ctx.w = w;
	ctx.cs = step->cs;
	ctx.ns = step->ns;
	ctx.arch = step->arch;
	ctx.obstacles = &s->obstacles;
	ctx.walls = &s->walls;
	ctx.dt = step->dt;
	ctx.step32 = step->step32;
	ctx.time = step->time;
	ctx.step = step;

	const uint32_t blocks = (w->count + THR_LANES - 1u) / THR_LANES;
	const int64_t batches = (int64_t)((blocks + THR_BATCH_BLOCKS - 1u) / THR_BATCH_BLOCKS);
	float max_ratio = stats->max_speed_ratio, most_moved = 0.0f;
	uint64_t nonfinite = 0, clamped = 0, nb_candidates = 0, nb_capped = 0;
	uint32_t nb_most_candidates = stats->nb_most_candidates, nb_most_met = stats->nb_most_met;
	throng_world_counters counts;
	counters_clear(&counts);
	const bool counting = step->counts != NULL;
	// Small worlds run on the calling thread (THR_PARALLEL_MIN_AGENTS); any
	// split gives the same bits (max and integer sums).
#pragma omp parallel for schedule(dynamic, THR_BATCH_CHUNK) num_threads(threads) \
	reduction(max : max_ratio, most_moved, nb_most_candidates, nb_most_met) \
	reduction(+ : nonfinite, clamped, nb_candidates, nb_capped) reduction(thr_counts_add : counts) \
	if (w->count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t b = 0; b < batches; ++b) {
		if (b == 0) {
			thr_note_team(step->w, THR_REGION_BLOCKS);
		}
		thr_pass_stats bs = {.max_speed_ratio = max_ratio, .counts = counting ? &counts : NULL};
		uint32_t first = (uint32_t)b * THR_BATCH_BLOCKS;
		uint32_t last = first + THR_BATCH_BLOCKS < blocks ? first + THR_BATCH_BLOCKS : blocks;
		for (uint32_t k = first; k < last; ++k) {
			thr_step_block(&ctx, k * THR_LANES, &bs);
		}
		max_ratio = bs.max_speed_ratio > max_ratio ? bs.max_speed_ratio : max_ratio;
		most_moved = bs.most_moved > most_moved ? bs.most_moved : most_moved;
		nonfinite += bs.nonfinite;
		clamped += bs.clamped;
		nb_candidates += bs.nb_candidates;
		nb_capped += bs.nb_capped;
		nb_most_candidates = bs.nb_most_candidates > nb_most_candidates ? bs.nb_most_candidates : nb_most_candidates;
		nb_most_met = bs.nb_most_met > nb_most_met ? bs.nb_most_met : nb_most_met;
	}
	stats->max_speed_ratio = max_ratio;
	stats->most_moved = most_moved;
	stats->nonfinite = nonfinite;
	stats->clamped = clamped;
	stats->nb_candidates = nb_candidates;
	stats->nb_most_candidates = nb_most_candidates;
	stats->nb_most_met = nb_most_met;
	stats->nb_capped = nb_capped;
	if (counting) {
		thr_counters_add(step->counts, &counts);
	}
	return THRONG_OK;
}

const thr_engine thr_simd_engine = {true, true, simd_prepare, simd_pass, simd_release, thr_simd_contact_block};
