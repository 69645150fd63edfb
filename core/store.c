// SPDX-License-Identifier: MIT
// The agent store: allocation, reorder and release of every per-agent
// array (store.h has the design).
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "world_internal.h"

// Where the per-agent arrays lie. Each used to be its own aligned_alloc,
// which above the mmap threshold is its own mapping, so all of them began
// at the same offset in a 4 KiB page: element k of every array fell in the
// same L1 set and the same 4 KiB alias class, and the reorder (40 arrays
// at one index) and the SIMD block pass (17 loads, 9 stores) evicted
// their own lines and waited on false store-to-load dependencies. Now the
// arrays come from one block per use, an odd number u of cache lines
// apart, so array j starts in line (j * u) mod 64 of a page: up to 64
// arrays, numbered on from the main block into the spares and the waypoint
// arrays, in 64 different lines (the recorded forces, larger, have a
// stride of their own). What the old layout cost the step, and
// bench/probe/reorder, which still shows it: docs/PERFORMANCE.md, "Known
// limits: where the time goes", item 6. Costs 4 KiB per block and at most
// 64 bytes per array; placement changes no value.
void* thr_alloc_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first)
{
	size_t stride = ((n + THR_LANES) * size + 63u) & ~(size_t)63u;
	stride += (stride / 64u) % 2u == 0 ? 64u : 0u;
	size_t bytes = stride * count + 4096u; // room to move array 0 to its line
	char* block = aligned_alloc(64, bytes);
	if (block == NULL) {
		return NULL;
	}
	thr_huge_pages(block, bytes);
	memset(block, 0, bytes);
	// Unsigned arithmetic modulo 4096: the lead puts array 0 at page offset
	// first * stride wherever the block landed (a multiple of 64).
	size_t lead = ((size_t)first * stride - (size_t)(uintptr_t)block) & 4095u;
	for (uint32_t j = 0; j < count; ++j) {
		*arrays[j] = block + lead + (size_t)j * stride;
	}
	return block;
}

/// Addresses of the world's views of the single arrays, in store order.
static void single_views(throng_world* w, uint32_t** out[THR_SINGLE_ARRAYS])
{
	out[0] = &w->id;
	out[1] = (uint32_t**)&w->max_speed;
	out[2] = (uint32_t**)&w->max_force;
	out[3] = (uint32_t**)&w->radius;
	out[4] = &w->archetype;
	out[5] = &w->group;
	out[6] = &w->target_agent;
	out[7] = (uint32_t**)&w->tx;
	out[8] = (uint32_t**)&w->ty;
	out[9] = &w->path;
}

int thr_store_create(throng_world* w)
{
	thr_store* s = &w->store;
	size_t n = w->capacity;
	thr_state* b0 = &s->buf[0];
	thr_state* b1 = &s->buf[1];
	uint32_t** singles[THR_SINGLE_ARRAYS];
	single_views(w, singles);
	// The reorder reads one state and writes the other: both in the block.
	void** const arrays[THR_STORE_ARRAYS + 2] = {
		(void**)&b0->px, (void**)&b0->py, (void**)&b0->vx, (void**)&b0->vy, (void**)&b0->hx, (void**)&b0->hy,
		(void**)&b0->wander, (void**)&b0->noise,
		(void**)&b1->px, (void**)&b1->py, (void**)&b1->vx, (void**)&b1->vy, (void**)&b1->hx, (void**)&b1->hy,
		(void**)&b1->wander, (void**)&b1->noise,
		(void**)singles[0], (void**)&w->slot_of, (void**)singles[1], (void**)singles[2], (void**)singles[3],
		(void**)singles[4], (void**)singles[5], (void**)singles[6], (void**)singles[9], (void**)singles[7],
		(void**)singles[8], (void**)&w->total_x, (void**)&w->total_y};
	uint32_t count = THR_STORE_ARRAYS + (w->def.record_forces ? 2u : 0u);
	s->block = thr_alloc_arrays(arrays, count, n, 4, 0);
	if (s->block == NULL) {
		return -1;
	}
	if (w->def.record_forces) {
		void** const forces[2] = {(void**)&w->force_x, (void**)&w->force_y};
		s->force_block = thr_alloc_arrays(forces, 2, n * THRONG_MAX_SLOTS, sizeof(float), THR_FORCE_FIRST_ARRAY);
		if (s->force_block == NULL) {
			return -1;
		}
	}
	return 0;
}

void thr_store_free(throng_world* w)
{
	thr_store* s = &w->store;
	free(s->block);
	free(s->spare_block);
	free(s->waypoint_block);
	free(s->force_block);
	memset(s, 0, sizeof *s);
}

int thr_store_reserve_spares(throng_world* w)
{
	thr_store* s = &w->store;
	if (s->spare_block != NULL) {
		return 0;
	}
	void** arrays[THR_SPARES];
	for (int a = 0; a < THR_SPARES; ++a) {
		arrays[a] = (void**)&s->spare[a];
	}
	// The spares continue the main block's page lines.
	s->spare_block = thr_alloc_arrays(arrays, THR_SPARES, w->capacity, sizeof(uint32_t), THR_SPARE_FIRST_ARRAY);
	return s->spare_block == NULL ? -1 : 0;
}

int thr_store_reserve_waypoints(throng_world* w)
{
	thr_store* s = &w->store;
	if (s->waypoint_block != NULL) {
		return 0;
	}
	void** const arrays[2] = {(void**)&s->buf[0].waypoint, (void**)&s->buf[1].waypoint};
	s->waypoint_block = thr_alloc_arrays(arrays, 2, w->capacity, sizeof(uint32_t), THR_WAYPOINT_FIRST_ARRAY);
	return s->waypoint_block == NULL ? -1 : 0;
}

int thr_store_reorder(throng_world* w, const uint32_t* perm, int threads)
{
	thr_store* s = &w->store;
	const thr_state* src = &s->buf[s->cur];
	thr_state* dst = &s->buf[s->cur ^ 1];
	const float* const sf[8] = {src->px, src->py, src->vx, src->vy, src->hx, src->hy, src->wander, src->noise};
	float* const df[8] = {dst->px, dst->py, dst->vx, dst->vy, dst->hx, dst->hy, dst->wander, dst->noise};
	const uint32_t* swp = src->waypoint;
	uint32_t* dwp = dst->waypoint;
	uint32_t** views[THR_SINGLE_ARRAYS];
	single_views(w, views);
	uint32_t* slot_of = w->slot_of;
	const int64_t count = w->count;
	(void)threads;
	// The state by ranges of slots on every thread; then, with no barrier
	// between (they share no array), the singles in THR_SPARES chains, a
	// thread each: chain c gathers singles c, c + THR_SPARES, ... each into
	// the chain's spare, which becomes the single, whose old array is the
	// spare for the next. Which thread runs a chain changes no value.
#pragma omp parallel num_threads(threads) if (count > THR_PARALLEL_MIN_AGENTS)
	{
#pragma omp for schedule(static) nowait
		for (int64_t k = 0; k < count; ++k) {
			if (k == 0) {
				thr_note_team(w, THR_REGION_REORDER);
			}
			const uint32_t from = perm[k];
			for (int a = 0; a < 8; ++a) {
				df[a][k] = sf[a][from];
			}
		}
		if (dwp != NULL) {
#pragma omp for schedule(static) nowait
			for (int64_t k = 0; k < count; ++k) {
				dwp[k] = swp[perm[k]];
			}
		}
#pragma omp for schedule(static) nowait
		for (int c = 0; c < THR_SPARES; ++c) {
			uint32_t* into = s->spare[c];
			for (int a = c; a < THR_SINGLE_ARRAYS; a += THR_SPARES) {
				uint32_t* from = *views[a];
				for (int64_t k = 0; k < count; ++k) {
					into[k] = from[perm[k]];
				}
				if (a == 0) { // into is the new id array
					for (int64_t k = 0; k < count; ++k) {
						slot_of[into[k]] = (uint32_t)k;
					}
				}
				*views[a] = into;
				into = from;
			}
			s->spare[c] = into;
		}
	}
	return s->cur ^ 1;
}
