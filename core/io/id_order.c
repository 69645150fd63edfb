// SPDX-License-Identifier: MIT
// A view's agents in increasing id order, for the exporters and the feed.
//
// The SIMD engine keeps agents sorted by grid cell and reorders them every
// step, and after removals the ids have gaps (they are never reused), so
// no array indexed by id fits a frame. Each frame therefore sorts the
// view's ids once, an LSD radix sort of (id, slot) pairs, 8 bits a pass,
// skipping the passes whose digit every id shares (nothing at all when the
// view is in id order already, as the scalar engine keeps it), and gathers
// each field through that permutation, dst[j] = src[perm[j]]: O(count) a
// frame, whatever the largest id. The loops run on one thread: they are
// too short to pay for a fork and join, which on a loaded machine waits
// for a descheduled thread (docs/PERFORMANCE.md, "Output cost").
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_internal.h"

/// Grows the order's arrays to hold `n` agents.
static throng_status id_order_reserve(thr_id_order* o, uint32_t n, const char* who)
{
	if (n <= o->cap) {
		return THRONG_OK;
	}
	uint32_t cap = n > o->cap * 2u ? n : o->cap * 2u;
	uint32_t* ids = realloc(o->ids, (size_t)cap * sizeof *ids);
	if (ids != NULL) {
		o->ids = ids;
	}
	uint32_t* perm = realloc(o->perm, (size_t)cap * sizeof *perm);
	if (perm != NULL) {
		o->perm = perm;
	}
	uint32_t* scratch = realloc(o->scratch, (size_t)cap * 2u * sizeof *scratch);
	if (scratch != NULL) {
		o->scratch = scratch;
	}
	if (ids == NULL || perm == NULL || scratch == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory to order %u agents by id", who, n);
	}
	o->cap = cap;
	return THRONG_OK;
}

/// Sorts o->ids[0..n) carrying o->perm along: LSD radix, 8 bits a pass,
/// stable, so equal ids keep their slots' order. A pass whose digit all
/// ids share moves nothing and is skipped.
static void id_order_radix(thr_id_order* o, uint32_t n)
{
	uint32_t any = 0, all = ~0u;
	for (uint32_t k = 0; k < n; ++k) {
		any |= o->ids[k];
		all &= o->ids[k];
	}
	uint32_t* key = o->ids;
	uint32_t* val = o->perm;
	uint32_t* key2 = o->scratch;
	uint32_t* val2 = o->scratch + o->cap;
	for (int shift = 0; shift < 32; shift += 8) {
		if ((((any ^ all) >> shift) & 0xffu) == 0) {
			continue;
		}
		uint32_t count[256] = {0};
		for (uint32_t k = 0; k < n; ++k) {
			count[(key[k] >> shift) & 0xffu] += 1;
		}
		uint32_t at = 0;
		for (int d = 0; d < 256; ++d) {
			uint32_t c = count[d];
			count[d] = at;
			at += c;
		}
		for (uint32_t k = 0; k < n; ++k) {
			uint32_t j = count[(key[k] >> shift) & 0xffu]++;
			key2[j] = key[k];
			val2[j] = val[k];
		}
		uint32_t* t = key;
		key = key2;
		key2 = t;
		t = val;
		val = val2;
		val2 = t;
	}
	if (key != o->ids) { // an odd number of passes: the result sits in the scratch
		memcpy(o->ids, key, (size_t)n * sizeof *key);
		memcpy(o->perm, val, (size_t)n * sizeof *val);
	}
}

throng_status thr_id_order_build(thr_id_order* o, const throng_view* view, uint32_t fields, const char* who)
{
	const void* src[THRONG_FIELD_BITS];
	thr_view_field_sources(view, src);
	const uint32_t n = view->count;
	const uint32_t* id = view->id;
	if (n > 0 && id == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the view has no id array", who);
	}
	for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
		if ((fields & (1u << f)) != 0 && n > 0 && src[f] == NULL) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the view has no %s array", who,
			                throng_field_name(1u << f));
		}
	}
	throng_status st = id_order_reserve(o, n, who);
	if (st != THRONG_OK) {
		return st;
	}
	o->count = n;
	o->identity = true;
	for (uint32_t k = 1; k < n && o->identity; ++k) {
		o->identity = id[k - 1] < id[k];
	}
	if (n > 0) {
		memcpy(o->ids, id, (size_t)n * sizeof *id);
	}
	if (o->identity) {
		return THRONG_OK;
	}
	for (uint32_t k = 0; k < n; ++k) {
		o->perm[k] = k;
	}
	id_order_radix(o, n);
	for (uint32_t k = 1; k < n; ++k) {
		if (o->ids[k - 1] == o->ids[k]) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: id %u appears twice in the view (slots %u and %u)", who,
			                o->ids[k], o->perm[k - 1], o->perm[k]);
		}
	}
	return THRONG_OK;
}

void thr_id_order_gather(const thr_id_order* o, const throng_view* view, uint32_t fields,
                         void* const dst[THRONG_FIELD_BITS])
{
	const void* src[THRONG_FIELD_BITS];
	thr_view_field_sources(view, src);
	const uint32_t n = o->count;
	for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
		if ((fields & (1u << f)) == 0 || n == 0) {
			continue;
		}
		// Fields are 4 bytes wide: copied as uint32_t, floats move bit for
		// bit, NaN payloads included.
		const uint32_t* s = src[f];
		uint32_t* d = dst[f];
		if (o->identity) {
			memcpy(d, s, (size_t)n * 4u);
		} else {
			for (uint32_t j = 0; j < n; ++j) {
				d[j] = s[o->perm[j]];
			}
		}
	}
}

void thr_id_order_free(thr_id_order* o)
{
	free(o->ids);
	free(o->perm);
	free(o->scratch);
	memset(o, 0, sizeof *o);
}
