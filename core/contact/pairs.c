// SPDX-License-Identifier: MIT
// The contact stage's pairs (internal.h has the design): each agent's
// listed agents within reach at p*, ids up, found through the step's
// agent grid or a grid of the stage's own.
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "memory.h"

static bool contact_on(const throng_world* w, uint32_t slot)
{
	return w->archetypes[w->archetype[slot]].contact.enabled;
}

// ---- Pairs ------------------------------------------------------------

/// The grid the pairs are listed from: the pass's own grid over p*, or
/// the step's agent grid over the previous positions, searched wider by
/// how far any agent moved since (both find every pair within reach).
typedef struct pair_grid {
	const thr_grid* g;
	const uint32_t* items; ///< entry -> slot, or NULL (entry k is slot k)
	const float *gx, *gy;  ///< the positions g was built over
	float widen;           ///< added to the search's half-size
} pair_grid;

/// Lists into out the agents within reach of agent i in positions (x, y),
/// at most THRONG_CONTACT_MAX_PAIRS, ids up; returns how many.
/// *overlaps counts the pairs that overlap with i the lower id, *any
/// whether one overlaps at all, *capped whether the cap cut the list short
/// (the list then holds the first agents met, cells row by row).
static uint32_t list_pairs(const throng_world* w, const pair_grid* pg, const float* x, const float* y, uint32_t i,
                           uint32_t* out, uint64_t* overlaps, int* capped, int* any)
{
	const thr_grid* g = pg->g;
	const float xi = x[i], yi = y[i], ri = w->radius[i];
	const float reach = THR_CONTACT_REACH * (ri + w->max_radius) + pg->widen;
	// A wrap world: across the seam too, at the nearest image (grid.h).
	const bool wrap = g->period_x > 0.0f;
	const float hx = 0.5f * g->period_x, hy = 0.5f * g->period_y;
	thr_grid_walk gw;
	thr_grid_walk_init(g, pg->gx[i], pg->gy[i], reach, &gw);
	uint32_t n = 0;
	for (int32_t t = 0; t < gw.spans; ++t) {
		int32_t cy, cx0, cx1;
		thr_grid_walk_span(&gw, t, &cy, &cx0, &cx1);
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		const uint32_t e = g->cell_start[k1];
		for (uint32_t k = g->cell_start[k0]; k < e; ++k) {
			const uint32_t j = pg->items != NULL ? pg->items[k] : k;
			float dx = x[j] - xi, dy = y[j] - yi;
			if (wrap) {
				dx = thr_min_image_d(dx, g->period_x, hx);
				dy = thr_min_image_d(dy, g->period_y, hy);
			}
			const float d2 = dx * dx + dy * dy;
			const float rs = ri + w->radius[j];
			const float reach_ij = THR_CONTACT_REACH * rs;
			if (!(d2 < reach_ij * reach_ij) || j == i || !contact_on(w, j)) {
				continue;
			}
			if (n == THRONG_CONTACT_MAX_PAIRS) {
				*capped = 1;
				return n;
			}
			// Ids up: the list's order (the Jacobi sums' order) is the
			// agents', not the grid's.
			const uint32_t id = w->id[j];
			uint32_t at = n++;
			for (; at > 0 && w->id[out[at - 1]] > id; --at) {
				out[at] = out[at - 1];
			}
			out[at] = j;
			if (d2 < rs * rs) {
				*any = 1;
				*overlaps += w->id[i] < id;
			}
		}
	}
	return n;
}

/// Most cells of the pass's grid: two an agent. Building a grid costs
/// O(cells); a sparse crowd gets cells wider than the reach, which costs
/// a few more distance tests, a dense one keeps cells of the reach.
static uint32_t contact_max_cells(const thr_step_ctx* ctx)
{
	const throng_world* w = ctx->w;
	const uint64_t m = 2u * (uint64_t)ctx->world_count + 4096u;
	const uint32_t most = thr_world_max_cells(w);
	return m < most ? (uint32_t)m : most;
}

/// Whether agent i provably has no pair at p*: its neighbour walk
/// (ctx->near) examined every agent within t of it at the previous
/// positions and met none closer, t being the reach to the widest agent
/// plus what the two ends moved since (each at most sqrt(2) x `moved`, the
/// most any agent moved along an axis; 3 x moved covers both), with a
/// hundredth for rounding, and t inside the walk's query radius. The lists
/// are those of a full search: the agents skipped would list nobody.
static bool alone(const throng_world* w, const float* near, float moved, uint32_t i)
{
	if (near == NULL || !(near[i] >= 0.0f)) {
		return false; // THR_NEAR_UNKNOWN
	}
	const float t = (THR_CONTACT_REACH * (w->radius[i] + w->max_radius) + 3.0f * moved) * 1.01f;
	return t <= 0.99f * w->arch[w->archetype[i]].query_radius && near[i] >= t * t; // false for NaN
}

/// Lists the pairs of the agents of run r into the run's buffer, and each
/// agent's count into start[i], after its near[i] was read: start may be
/// near's buffer (thr_step_ctx.pair_offsets). Returns -1 when out of
/// memory.
static int list_run(const thr_step_ctx* ctx, thr_contact_data* cd, const pair_grid* pg, float moved, uint32_t runs,
                    uint32_t r, uint64_t* overlaps, uint64_t* capped, uint64_t* met, uint64_t* skips,
                    uint64_t* searches)
{
	const throng_world* w = ctx->w;
	const float *x = ctx->ns->px, *y = ctx->ns->py;
	thr_contact_run* run = &cd->runs[r];
	uint32_t first, end;
	thr_contact_run_agents(w->count, runs, r, &first, &end);
	run->used = 0;
	for (uint32_t i = first; i < end; ++i) {
		if (!contact_on(w, i)) {
			cd->start[i] = 0;
			continue;
		}
		if (alone(w, ctx->near, moved, i)) {
			cd->start[i] = 0;
			++*skips;
			continue;
		}
		if (run->cap - run->used < THRONG_CONTACT_MAX_PAIRS &&
		    thr_reserve((void**)&run->pairs, &run->cap, (size_t)run->used + THRONG_CONTACT_MAX_PAIRS + 4u * (end - i),
		                sizeof *run->pairs, 1024)) {
			return -1;
		}
		++*searches;
		int cut = 0, any = 0;
		uint64_t over = 0;
		const uint32_t k = list_pairs(w, pg, x, y, i, run->pairs + run->used, &over, &cut, &any);
		cd->start[i] = k;
		run->used += k;
		if (!thr_slot_ghost(ctx->ghost, i)) { // a part world's ghost is another part's to count
			*overlaps += over;
			*capped += (uint64_t)cut;
			*met += (uint64_t)any;
		}
	}
	return 0;
}

/// The agent grid serves while its wider cells cost at most this many
/// more candidates an agent, at the world's mean density, than the
/// pass's own grid: a sparse crowd saves building a grid, a dense one
/// would test too many candidates.
#define THR_AGENT_GRID_MAX_EXTRA 4.0f

/// The grid to list pairs from. The step's agent grid, built over the
/// previous positions, finds every pair within reach at p* when searched
/// wider by twice the most any agent moved (each end moved at most that
/// much), plus a margin for rounding; it serves unless its cells hold
/// too many more candidates than the pass's own would (at the world's
/// mean density), or agents moved far (a wrap, a teleport).
/// Otherwise the pass builds its own grid over p*, ids up within a cell.
/// Either way every list holds the same agents in the same order (ids up),
/// unless the cap cut it: the agents kept are then the first met.
/// Returns -1 when out of memory.
static int choose_grid(const thr_step_ctx* ctx, float moved, pair_grid* pg)
{
	throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	const throng_world_def* d = &w->def;
	const float cell = THR_CONTACT_REACH * 2.0f * w->max_radius;
	const thr_grid* ag = &w->agent_grid;
	// Candidates of a search: the agents in the square of the search's
	// width plus a cell, on average.
	const double area = ((double)d->bounds_max.x - d->bounds_min.x) * ((double)d->bounds_max.y - d->bounds_min.y);
	const double density = area > 0.0 ? (double)ctx->world_count / area : 0.0;
	const double span = 2.0 * THR_CONTACT_REACH * 2.0 * w->max_radius;
	const double own = (cell + span) * (cell + span), theirs = (ag->cell + span) * (ag->cell + span);
	if (density * (theirs - own) <= THR_AGENT_GRID_MAX_EXTRA) {
		const float widen = 2.0f * moved * 1.001f + 1.0e-4f * cell;
		if (widen <= 0.5f * ag->cell) { // also false for NaN and Inf
			*pg = (pair_grid){ag, ctx->items, ctx->cs->px, ctx->cs->py, widen};
			return 0;
		}
	}
	thr_grid_layout(&cd->grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y,
	                cell > 0.0f ? cell : 1.0f, contact_max_cells(ctx));
	thr_grid_wrap(&cd->grid, d);
	const thr_state* ns = ctx->ns;
	if (thr_grid_build_points(&cd->grid, ns->px, ns->py, w->count, ctx->items == NULL ? w->id : NULL)) {
		return -1;
	}
	*pg = (pair_grid){&cd->grid, cd->grid.items, ns->px, ns->py, 0.0f};
	return 0;
}

/// Room for the pass's runs (the offsets are thr_contact_list's, the
/// iterates thr_contact_take_iterates'). Returns -1 when out of memory.
static int reserve_scratch(thr_contact_data* cd, uint32_t runs)
{
	if (runs > cd->runs_cap) {
		thr_contact_run* r = realloc(cd->runs, runs * sizeof *r);
		if (r == NULL) {
			return -1;
		}
		memset(r + cd->runs_cap, 0, (runs - cd->runs_cap) * sizeof *r);
		cd->runs = r;
		cd->runs_cap = runs;
	}
	return 0;
}

/// The listing in parallel runs (any thread may take any run: each has its
/// own buffer), then the offsets summed. Returns -1 when out of memory.
static int list_all(const thr_step_ctx* ctx, const pair_grid* pg, float moved, uint32_t runs, thr_contact_listing* out)
{
	thr_contact_data* cd = ctx->w->contact;
	const uint32_t n = ctx->w->count;
	const int threads = ctx->threads;
	(void)threads; // builds without OpenMP
	uint64_t overlaps = 0, capped = 0, met = 0, skips = 0, searches = 0;
	int fail = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (n > THR_PARALLEL_MIN_AGENTS) \
	reduction(+ : overlaps, capped, met, fail, skips, searches)
	for (int64_t r = 0; r < (int64_t)runs; ++r) {
		fail += list_run(ctx, cd, pg, moved, runs, (uint32_t)r, &overlaps, &capped, &met, &skips, &searches);
	}
	// The counts into offsets, in place: start[i] the sum of those below i.
	uint32_t sum = 0;
	for (uint32_t i = 0; i < n; ++i) {
		const uint32_t k = cd->start[i];
		cd->start[i] = sum;
		sum += k;
	}
	cd->start[n] = sum;
	*out = (thr_contact_listing){overlaps, capped, capped, met, skips, searches, 0};
	return fail != 0 ? -1 : 0;
}

throng_status thr_contact_list(const thr_step_ctx* ctx, float moved, uint32_t runs, thr_contact_listing* out)
{
	throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	*out = (thr_contact_listing){0, 0, 0, 0, 0, 0, 0};
	cd->start = ctx->pair_offsets != NULL ? ctx->pair_offsets
	                                      : thr_contact_take(w, w->count + 1u, sizeof *cd->start, "contact pair offsets");
	pair_grid pg;
	if (cd->start == NULL || reserve_scratch(cd, runs) != 0 || choose_grid(ctx, moved, &pg) != 0 ||
	    list_all(ctx, &pg, moved, runs, out) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	return THRONG_OK;
}

throng_status thr_contact_index(const thr_step_ctx* ctx, uint32_t planned, thr_contact_listing* out)
{
	throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	const uint32_t n = w->count;
	if (out->met > 0) {
		cd->pairs = thr_arena_alloc(&w->arena, (cd->start[n] ? cd->start[n] : 1u) * sizeof *cd->pairs, "contact pairs");
	}
	if (out->met == 0 || cd->pairs != NULL) {
		cd->blocks = thr_arena_alloc(&w->arena, (n / THR_LANES + 1u) * sizeof *cd->blocks, "contact blocks with pairs");
	}
	if (cd->blocks == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	// The iterations visit only the blocks with pairs: an agent
	// without pairs is in no list and keeps p*.
	for (uint32_t b = 0; out->met > 0 && b * THR_LANES < n; ++b) {
		if (thr_block_has_pairs(cd, n, b)) {
			cd->blocks[out->active++] = b;
		}
	}
	if (out->met > 0 && out->capped_all == 0 && planned > 1 && thr_contact_narrow_blocks(w, n) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	return THRONG_OK;
}
