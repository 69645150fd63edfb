// SPDX-License-Identifier: MIT
// The quality metrics' overlap count (private): pairs of agents whose
// discs overlap in one state, over the agents sorted by cell
// (core/metrics_overlap.c has the design; docs/QUALITY.md the figures).
#ifndef THRONG_CORE_METRICS_OVERLAP_H
#define THRONG_CORE_METRICS_OVERLAP_H

#include <stdint.h>

#include "throng/throng.h"

/// The agents of one state sorted by cell, and the sort's scratch,
/// allocated once for a world's agents and thread count.
typedef struct thr_overlap_index {
	uint32_t cap;          ///< agents it can hold
	uint64_t* entry;       ///< the agents by cell: (cell key << slot bits) | slot
	uint64_t* spare;       ///< the radix sort's second buffer, then the sorted agents' positions; free between
	                       ///< counts (observing borrows it)
	uint32_t* hist;        ///< per thread, the digit counts of one radix pass
	uint32_t* deferred;    ///< per chunk of the sweep, its first cell left to the serial walk
	struct thr_overlap_span* part; ///< per thread, the cells its share of the agents spans
	uint32_t threads;      ///< threads hist and deferred have room for
} thr_overlap_index;

/// The overlap figures of one state.
typedef struct thr_overlap_result {
	uint64_t pairs;         ///< overlapping pairs found
	double deepest;         ///< largest 1 - d / (r_i + r_j) among them, 0 if none
	uint64_t capped;        ///< agents that stopped at THRONG_OVERLAP_MAX_EXAMINED candidates
	uint32_t most_examined; ///< most candidates one agent examined
} thr_overlap_result;

/// Makes an index for n agents and up to `threads` threads. Returns -1
/// when out of memory (the index is then empty).
int thr_overlap_alloc(thr_overlap_index* x, uint32_t n, uint32_t threads);

/// Frees the index; it is then empty.
void thr_overlap_free(thr_overlap_index* x);

/// Counts the overlaps of w's current state on up to `threads` threads (at
/// most the index's; one when w has THR_PARALLEL_MIN_AGENTS agents or
/// fewer) into *out: the same figures for any thread count and storage
/// order, and in a wrap world the pairs that overlap at their nearest
/// image across a seam too (thr_overlap_seam). Returns -1, *out zero,
/// only when out of memory (the sort of a world whose agents lie too far
/// apart to pack a cell into 64 bits allocates, and so does the seam pass
/// of a wrap world); allocates nothing otherwise.
int thr_overlap_count(thr_overlap_index* x, const throng_world* w, uint32_t threads, thr_overlap_result* out);

/// Adds to *out the pairs of a wrap world that overlap only at their
/// nearest image, across a seam (core/metrics_seam.c; thr_overlap_count
/// counts those that overlap in the plane). Nothing in other worlds.
/// Returns -1 when out of memory (it allocates two bands of agents).
int thr_overlap_seam(const throng_world* w, thr_overlap_result* out);

#endif
