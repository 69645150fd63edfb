// SPDX-License-Identifier: MIT
// The step's arena (arena.h has the design).
#define _DEFAULT_SOURCE // MAP_ANONYMOUS
#include "arena.h"

#include <assert.h>
#include <string.h>
#include <sys/mman.h>

#include "memory.h"

#define THR_ARENA_ALIGN ((size_t)64)

static size_t round_up(size_t n) { return (n + THR_ARENA_ALIGN - 1u) & ~(THR_ARENA_ALIGN - 1u); }

// The block and the items that do not fit are mapped pages of their own,
// not malloc's: freeing a large malloc'd buffer raises glibc's mmap
// threshold, after which the buffers other code allocates and frees every
// step come from the heap and fragment it (seen here: a process's peak
// memory grew with every step).
static void* map_pages(size_t n)
{
	void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void unmap_pages(void* p, size_t n)
{
	if (p != NULL) {
		munmap(p, n);
	}
}

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
		it->p = map_pages(n);
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
			unmap_pages(it->p, it->size);
		} else {
			a->used -= it->size;
		}
		a->held -= it->size;
		it->p = NULL;
	}
}

/// A block's size for `peak` bytes: a quarter more, in whole 2 MiB pages
/// past the first. A step's most varies a little from step to step (the
/// contact pairs, with agents that come and go); a block of exactly the
/// last most was mapped anew at nearly every step, and each time every
/// page of it faulted again in the next step (at 10^5 agents, 18 % of a
/// step with 1 % churn: docs/PERFORMANCE.md).
static size_t block_size(size_t peak)
{
	const size_t huge = (size_t)2 << 20;
	const size_t n = peak + peak / 4u;
	if (n < peak) {
		return round_up(peak); // overflow: no headroom
	}
	return n < huge ? round_up(n) : (n + huge - 1u) / huge * huge;
}

void thr_arena_grow(thr_arena* a)
{
	assert(a->count == 0 && "the arena grows between steps");
	if (a->peak <= a->cap) {
		return;
	}
	const size_t size = block_size(a->peak);
	char* b = map_pages(size);
	if (b == NULL) {
		return; // the items that do not fit keep coming from the heap
	}
	thr_huge_pages(b, size);
	unmap_pages(a->block, a->cap);
	a->block = b;
	a->cap = size;
	a->used = 0;
}

void thr_arena_destroy(thr_arena* a)
{
	thr_arena_unwind(a, 0);
	unmap_pages(a->block, a->cap);
	memset(a, 0, sizeof *a);
}
