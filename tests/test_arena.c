// SPDX-License-Identifier: MIT
// The step's arena (core/arena.h): named items, given back in reverse,
// the heap when the block is full, a block grown to the step's most; and a
// world's steps leaving it empty and, once steady, allocating nothing.
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "support.h"
#include "throng/scenario.h"
#include "throng/throng.h"
#include "world_internal.h"

Test(arena, items_are_named_aligned_and_given_back_in_reverse)
{
	thr_arena a;
	memset(&a, 0, sizeof a);
	char* p = thr_arena_alloc(&a, 10, "ten");
	char* q = thr_arena_alloc(&a, 100, "a hundred");
	cr_assert(p != NULL && q != NULL);
	cr_assert_eq((uintptr_t)p % 64u, 0u);
	cr_assert_eq((uintptr_t)q % 64u, 0u);
	cr_assert_eq(a.count, 2u);
	cr_assert_str_eq(a.items[1].name, "a hundred");
	cr_assert(a.items[0].heap && a.items[1].heap, "no block yet: both from the heap");
	cr_assert_eq(a.held, 64u + 128u);
	thr_arena_free(&a, q);
	thr_arena_free(&a, p);
	cr_assert_eq(a.count, 0u);
	cr_assert_eq(a.held, 0u);
	thr_arena_grow(&a);
	cr_assert_geq(a.cap, 192u, "grown to the most held at once");
	// The next "step" fits in the block.
	const uint32_t mark = thr_arena_mark(&a);
	p = thr_arena_alloc(&a, 10, "ten");
	q = thr_arena_alloc(&a, 100, "a hundred");
	cr_assert(!a.items[0].heap && !a.items[1].heap, "from the block");
	cr_assert_eq(p, a.block);
	cr_assert_eq(q, a.block + 64);
	char* r = thr_arena_alloc(&a, 1000, "too much");
	cr_assert(r != NULL && a.items[2].heap, "beyond the block: the heap");
	thr_arena_unwind(&a, mark);
	cr_assert_eq(a.count, 0u);
	cr_assert_eq(a.used, 0u);
	thr_arena_grow(&a);
	cr_assert_geq(a.cap, 64u + 128u + 1024u);
	thr_arena_destroy(&a);
	cr_assert_null(a.block);
}

/// Steps a scene and checks the arena between steps: empty, and from the
/// third step on the same block (a steady step takes nothing from the heap).
static void steady(const char* name, uint32_t agents, throng_engine engine)
{
	throng_scene* s = thr_test_scene(name, agents, engine);
	throng_world* w = throng_scene_world(s);
	const char* block = NULL;
	for (int k = 0; k < 40; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(w->arena.count, 0u, "%s: step %d left items in the arena", name, k);
		cr_assert_eq(w->arena.held, 0u);
		if (k == 2) {
			block = w->arena.block;
			cr_assert_not_null(block, "%s: the step took nothing", name);
		} else if (k > 2) {
			cr_assert_eq(w->arena.block, block, "%s: step %d grew the arena", name, k);
			cr_assert_leq(w->arena.peak, w->arena.cap);
		}
	}
	throng_scene_destroy(s);
}

Test(arena, a_steady_step_allocates_nothing)
{
	steady("bottleneck", 300, THRONG_ENGINE_SIMD);
	steady("bottleneck", 300, THRONG_ENGINE_SCALAR);
	steady("charge", 400, THRONG_ENGINE_SIMD);
}

/// A world whose agents come and go (1 % out and 1 % in every step, at the
/// removed agents' places) holds a little more in some steps than in any
/// before; the block's quarter of headroom takes that without mapping a
/// new block (each new block faults in every page again: at 10^5 agents
/// that was most of churn's cost, docs/PERFORMANCE.md).
Test(arena, churn_keeps_the_block)
{
	throng_scene* s = thr_test_scene("field", 20000, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	enum { churn = 200 };
	uint32_t ids[churn];
	throng_agent_def defs[churn];
	uint64_t rng = 7u;
	const char* block = NULL;
	int grown = 0;
	for (int k = 0; k < 80; ++k) {
		uint32_t n = 0;
		while (n < churn) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			const uint32_t id = (uint32_t)(rng >> 33) % throng_world_id_end(w);
			throng_agent_state a;
			bool twice = false;
			for (uint32_t j = 0; j < n; ++j) {
				twice = twice || ids[j] == id;
			}
			if (twice || throng_world_get_agent(w, id, &a) != THRONG_OK) {
				continue;
			}
			ids[n] = id;
			defs[n] = throng_agent_default_def();
			defs[n].position = a.position;
			defs[n].max_speed = a.max_speed;
			defs[n].max_force = a.max_force;
			defs[n].radius = a.radius;
			defs[n].archetype = a.archetype;
			defs[n].target = a.target;
			n++;
		}
		cr_assert_eq(throng_world_remove_agents(w, ids, n), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_spawn(w, defs, n, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(w->arena.held, 0u);
		if (k >= 2 && block != NULL && w->arena.block != block) {
			grown++;
		}
		block = w->arena.block;
	}
	cr_assert_leq(grown, 1, "the arena's block was mapped anew %d times in 78 churned steps", grown);
	throng_scene_destroy(s);
}
