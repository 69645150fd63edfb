// SPDX-License-Identifier: MIT
// Whole-step throughput: a built-in scene stepped with throng_scene_step(),
// so the scene's script (threat path, goals) is part of what is timed, as it
// is for `throng run`.
//
// Names read step/<scenario>/<engine>/agents:<N>. Runs marked large carry
// "/large/" in their name (step/circle/scalar/large/agents:100000) so that a
// quick run can leave them out: --benchmark_filter=-/large/.
//
// items_per_second is agent-steps per second. Time is wall-clock
// (UseRealTime) because the step may run OpenMP threads of its own.
// Each run starts from a freshly built scene, so it measures the scene's
// first steps (setup is not timed). No bytes-per-agent counter yet: the
// public API does not report the world's memory.
#include <stdint.h>

#include "benches.h"
#include "shim.h"
#include "throng/scenario.h"
#include "throng/throng.h"

static void step_scene(thr_bench_state* st, const char* scenario, throng_engine engine) {
	throng_scene_options options = throng_scene_default_options();
	options.agents = (uint32_t)thr_bench_range(st, 0);
	options.engine = engine;

	throng_scene* scene = NULL;
	if (throng_scene_create(scenario, &options, &scene) != THRONG_OK) {
		thr_bench_skip_with_error(st, throng_last_error());
		return;
	}
	const uint32_t agents = throng_world_agent_count(throng_scene_world(scene));

	while (thr_bench_keep_running(st)) {
		if (throng_scene_step(scene) != THRONG_OK) {
			thr_bench_skip_with_error(st, throng_last_error());
			break;
		}
	}

	thr_bench_set_items_processed(st, thr_bench_iterations(st) * (int64_t)agents);
	thr_bench_set_counter(st, "agents", (double)agents);
	throng_scene_destroy(scene);
}

static void step_circle_scalar(thr_bench_state* st) {
	step_scene(st, "circle", THRONG_ENGINE_SCALAR);
}

static void step_herd_scalar(thr_bench_state* st) {
	step_scene(st, "herd", THRONG_ENGINE_SCALAR);
}

static void add(const char* name, thr_bench_fn fn, const int64_t* agents, int count) {
	thr_bench* b = thr_bench_register(name, fn);
	thr_bench_set_arg_name(b, "agents");
	for (int i = 0; i < count; ++i) {
		thr_bench_add_arg(b, agents[i]);
	}
	thr_bench_use_real_time(b);
	thr_bench_set_unit(b, THR_BENCH_MS);
}

void bench_step_register(void) {
	static const int64_t small[] = {1000, 10000};
	static const int64_t large[] = {100000};
	add("step/circle/scalar", step_circle_scalar, small, 2);
	add("step/circle/scalar/large", step_circle_scalar, large, 1);
	add("step/herd/scalar", step_herd_scalar, small, 2);
}
