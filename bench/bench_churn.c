// SPDX-License-Identifier: MIT
// The cost of a world whose agents come and go (issue 33's target: `field`
// at 10^5 agents with 1 % of the agents removed and 1 % added before every
// step, at most 10 % slower per agent-step than without, one thread).
//
// Names read churn/<scenario>/simd/agents:<N>/per_mille:<P>/threads:<T>:
// before each step, P per mille of the live agents are removed (ids drawn
// from a counter of the benchmark's own, one throng_world_remove_agents
// call) and as many spawned (one throng_world_spawn call: copies of live
// agents' archetype, body and goal, each where a removed agent stood, so
// that no newcomer lands on another agent, as a source's would not).
// per_mille:0 is the same scene without churn, in the same process, so the
// two rows give the ratio. The timed region is the churn and the step
// together; churn_ms_per_step is the churn's part.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "shim.h"

static uint64_t churn_u64(uint64_t* s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/// Up to n distinct live ids into out (a bitmap of width id_end dedupes).
static uint32_t churn_pick(const throng_world* w, uint64_t* rng, uint32_t n, uint32_t* out, uint8_t* taken)
{
	const uint32_t end = throng_world_id_end(w);
	uint32_t got = 0;
	throng_agent_state a;
	for (uint32_t tries = 0; got < n && tries < 20u * n; ++tries) {
		const uint32_t id = (uint32_t)(churn_u64(rng) % end);
		if (!taken[id] && throng_world_get_agent(w, id, &a) == THRONG_OK) {
			taken[id] = 1;
			out[got++] = id;
		}
	}
	for (uint32_t k = 0; k < got; ++k) {
		taken[out[k]] = 0;
	}
	return got;
}

typedef struct churn_buffers {
	uint32_t* ids;
	throng_agent_def* defs;
	throng_vec2* spots; ///< where the removed agents stood
	uint8_t* taken;
	uint32_t taken_cap;
} churn_buffers;

/// Removes n agents and spawns n; returns 0 or -1 (throng_last_error()).
static int churn_once(throng_world* w, uint64_t* rng, uint32_t n, churn_buffers* b)
{
	const uint32_t end = throng_world_id_end(w) + n;
	if (end > b->taken_cap) {
		uint8_t* t = realloc(b->taken, (size_t)end * 2u);
		if (t == NULL) {
			return -1;
		}
		memset(t + b->taken_cap, 0, (size_t)end * 2u - b->taken_cap);
		b->taken = t;
		b->taken_cap = end * 2u;
	}
	const uint32_t gone = churn_pick(w, rng, n, b->ids, b->taken);
	for (uint32_t k = 0; k < gone; ++k) {
		throng_agent_state a;
		if (throng_world_get_agent(w, b->ids[k], &a) != THRONG_OK) {
			return -1;
		}
		b->spots[k] = a.position;
	}
	if (gone > 0 && throng_world_remove_agents(w, b->ids, gone) != THRONG_OK) {
		return -1;
	}
	uint32_t got = churn_pick(w, rng, gone, b->ids, b->taken);
	for (uint32_t k = 0; k < got; ++k) {
		throng_agent_state a;
		if (throng_world_get_agent(w, b->ids[k], &a) != THRONG_OK) {
			return -1;
		}
		throng_agent_def* def = &b->defs[k];
		*def = throng_agent_default_def();
		def->position = b->spots[k];
		def->max_speed = a.max_speed;
		def->max_force = a.max_force;
		def->radius = a.radius;
		def->archetype = a.archetype;
		def->group = a.group;
		def->target = a.target;
	}
	return got > 0 && throng_world_spawn(w, b->defs, got, NULL) != THRONG_OK ? -1 : 0;
}

static void churn_scene(thr_bench_state* st, const void* data)
{
	const char* scenario = data;
	const uint32_t agents = (uint32_t)thr_bench_range(st, 0);
	const uint32_t per_mille = (uint32_t)thr_bench_range(st, 1);
	const uint32_t threads = (uint32_t)thr_bench_range(st, 2);
	const char* error = "";
	throng_scene* scene = bench_scene_create(scenario, agents, THRONG_ENGINE_SIMD, threads, &error);
	if (scene == NULL) {
		thr_bench_skip_with_error(st, error);
		return;
	}
	throng_world* w = throng_scene_world(scene);
	const uint32_t n = (uint32_t)((uint64_t)agents * per_mille / 1000u);
	churn_buffers b = {malloc(((size_t)n + 1u) * sizeof *b.ids), malloc(((size_t)n + 1u) * sizeof *b.defs),
	                   malloc(((size_t)n + 1u) * sizeof *b.spots), NULL, 0};
	uint64_t rng = 0xc4u;
	double seconds = 0.0, churn_seconds = 0.0;
	int64_t steps = 0;
	int fail = b.ids == NULL || b.defs == NULL || b.spots == NULL || throng_scene_step(scene) != THRONG_OK; // untimed first step
	while (!fail && thr_bench_keep_running(st)) {
		const double t0 = bench_now();
		fail = n > 0 && churn_once(w, &rng, n, &b) != 0;
		const double t1 = bench_now();
		fail = fail || throng_scene_step(scene) != THRONG_OK;
		const double t2 = bench_now();
		thr_bench_set_iteration_time(st, t2 - t0);
		seconds += t2 - t0;
		churn_seconds += t1 - t0;
		steps++;
	}
	if (fail) {
		thr_bench_skip_with_error(st, throng_last_error());
	} else {
		thr_bench_set_items_processed(st, steps * (int64_t)agents);
		thr_bench_set_counter(st, "agent_steps_per_s", seconds > 0.0 ? (double)steps * agents / seconds : 0.0);
		thr_bench_set_counter(st, "churn_ms_per_step", steps > 0 ? 1e3 * churn_seconds / (double)steps : 0.0);
	}
	free(b.ids);
	free(b.defs);
	free(b.spots);
	free(b.taken);
	throng_scene_destroy(scene);
}

void bench_churn_register(void)
{
	static const char* const arg_names[] = {"agents", "per_mille", "threads"};
	static const char scenario[] = "field";
	thr_bench* b = thr_bench_register_data("churn/field/simd", churn_scene, scenario);
	thr_bench_set_arg_names(b, arg_names, 3);
	const int64_t sizes[2] = {10000, 100000};
	for (int s = 0; s < 2; ++s) {
		for (int64_t pm = 0; pm <= 10; pm += 10) {
			const int64_t args[3] = {sizes[s], pm, 1};
			thr_bench_add_args(b, args, 3);
		}
	}
	thr_bench_use_manual_time(b);
	thr_bench_set_unit(b, THR_BENCH_MS);
}
