// SPDX-License-Identifier: MIT
// The step's arena (private): every stage's scratch that lives for one
// step.
//
// Design. One block, owned by the world, sized once and reused: a stage
// takes what it needs by name (thr_arena_alloc: a bump of the block,
// 64-byte aligned), gives it back in reverse order (thr_arena_free, or
// thr_arena_unwind to a mark), and the step unwinds everything at its end,
// succeeded or not. An item that does not fit comes from the heap, named
// like the others; the step's end then grows the block to the most the
// step held at once and a quarter more (thr_arena_grow), so a steady step
// allocates nothing, and one that holds a little more than the last does
// not map the block anew.
// The names say what an item holds (tests and a debugger read them); no
// item changes meaning within a step, and none outlives it.
#ifndef THRONG_CORE_ARENA_H
#define THRONG_CORE_ARENA_H

#include <stddef.h>
#include <stdint.h>

/// Most items taken at once.
#define THR_ARENA_MAX_ITEMS 32

/// One item of the arena.
typedef struct thr_arena_item {
	void* p;
	size_t size;      ///< bytes asked for, rounded up to 64
	const char* name; ///< what it holds (a string literal)
	int heap;         ///< taken from the heap: the block had no room
} thr_arena_item;

typedef struct thr_arena {
	char* block;     ///< the arena's memory (NULL: none yet)
	size_t cap;      ///< bytes of block
	size_t used;     ///< bytes of block taken
	size_t held;     ///< bytes taken, block and heap
	size_t peak;     ///< most bytes held at once since the last thr_arena_grow
	uint32_t count;  ///< items taken
	thr_arena_item items[THR_ARENA_MAX_ITEMS];
} thr_arena;

/// `size` bytes (64-byte aligned, not cleared) named `name`, from the block
/// when it has room, else from pages of its own (arena.c says why not
/// malloc's). NULL when out of memory (or out
/// of items); the arena is then unchanged.
void* thr_arena_alloc(thr_arena* a, size_t size, const char* name);

/// Gives back p, the last item taken (NULL: nothing).
void thr_arena_free(thr_arena* a, void* p);

/// Items taken so far: a mark to unwind to.
static inline uint32_t thr_arena_mark(const thr_arena* a) { return a->count; }

/// Gives back every item taken after `mark`, the last first.
void thr_arena_unwind(thr_arena* a, uint32_t mark);

/// With nothing taken: a block of the most bytes held at once and a
/// quarter more (whole 2 MiB pages past the first), when the block is
/// smaller than that most (the next step then fits). Out of memory, the arena
/// keeps what it had; nothing fails.
void thr_arena_grow(thr_arena* a);

/// Frees the block (nothing may be taken).
void thr_arena_destroy(thr_arena* a);

#endif
