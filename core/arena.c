// SPDX-License-Identifier: MIT
// The step's arena (arena.h has the design).
#include "arena.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

#define THR_ARENA_ALIGN ((size_t)64)

static size_t round_up(size_t n) { return (n + THR_ARENA_ALIGN - 1u) & ~(THR_ARENA_ALIGN - 1u); }

void* thr_arena_alloc(thr_arena* a, size_t size, const char* name)
{
	const size_t n = round_up(size > 0 ? size : 1u);
	if (a->count == THR_ARENA_MAX_ITEMS || n < size) {
		return NULL;
	}
	thr_arena_item* it = &a->items[a->count];
	if (a->block != NULL && a->cap - a->used >= n) {
		it->p = a->block + a->used;
		it->heap = 0;
		a->used += n;
	} else {
		it->p = aligned_alloc(THR_ARENA_ALIGN, n);
		if (it->p == NULL) {
			return NULL;
		}
		it->heap = 1;
	}
	it->size = n;
	it->name = name;
	a->count++;
	a->held += n;
	a->peak = a->held > a->peak ? a->held : a->peak;
	return it->p;
}

void thr_arena_free(thr_arena* a, void* p)
{
	if (p == NULL) {
		return;
	}
	assert(a->count > 0 && a->items[a->count - 1u].p == p && "arena items are freed in reverse");
	thr_arena_unwind(a, a->count - 1u);
}

void thr_arena_unwind(thr_arena* a, uint32_t mark)
{
	while (a->count > mark) {
		thr_arena_item* it = &a->items[--a->count];
		if (it->heap) {
			free(it->p);
		} else {
			a->used -= it->size;
		}
		a->held -= it->size;
		it->p = NULL;
	}
}

void thr_arena_grow(thr_arena* a)
{
	assert(a->count == 0 && "the arena grows between steps");
	if (a->peak <= a->cap) {
		return;
	}
	char* b = aligned_alloc(THR_ARENA_ALIGN, round_up(a->peak));
	if (b == NULL) {
		return; // the items that do not fit keep coming from the heap
	}
	thr_huge_pages(b, a->peak);
	free(a->block);
	a->block = b;
	a->cap = round_up(a->peak);
	a->used = 0;
}

void thr_arena_destroy(thr_arena* a)
{
	thr_arena_unwind(a, 0);
	free(a->block);
	memset(a, 0, sizeof *a);
}
