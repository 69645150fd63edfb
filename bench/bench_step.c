// SPDX-License-Identifier: MIT
// Whole-step throughput: a built-in scene stepped with throng_scene_step(),
// so the scene's script (threat path, goals) is part of what is timed, as it
// is for `throng run`.
//
// Names read step/<scenario>/<engine>/agents:<N>/threads:<T>; runs of
// BENCH_LARGE agents or more carry "/large/" before the arguments
// (step/field/simd/large/agents:100000/threads:1), so that
// --benchmark_filter=-/large/ leaves them out. The scalar engine runs on one
// thread only (it has no parallel loop); the SIMD engine on 1 and 2.
//
// A run builds the scene and takes one untimed step (lazy allocations,
// the SIMD engine's first reorder from id order), then times each step on
// its own (manual time, so that rebuilding is not timed): items_per_second
// is agent-steps per second over the timed steps. The repetitions of a run
// (--benchmark_repetitions) go on with the same scene. After
// BENCH_RESET_STEPS (600 steps, 10 s of simulated time) the scene is
// rebuilt, so fast runs keep measuring a scene's first seconds. Scenes
// with target rules (charge) time whole rule periods per iteration (see
// bench_rule_period in common.h). The world counts the time of its stages
// during the timed steps; its work is counted once, right after the
// scene is first built, over one iteration's steps (report.h).
//
// state_bytes_per_agent is the growth of this process's resident set from
// just before the scene was built to just after its first step, divided by
// the agents: it counts the world's arrays, the grids, the SIMD engine's
// second set of arrays and the scene's own data (goals), and at small N
// their fixed parts too (the grid has at least 65,536 cells).
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "report.h"
#include "shim.h"

typedef struct step_case {
	const char* scenario;
	throng_engine engine;
} step_case;

#define BENCH_MAX_STEP_CASES (2 * BENCH_SCENARIO_WANTED_COUNT)
static step_case step_cases[BENCH_MAX_STEP_CASES];

/// The scene of the run in progress, kept for the next run when that is
/// the same benchmark (its next repetition).
static struct {
	const step_case* sc;
	uint32_t agents, threads;
	throng_scene* scene;
	double state_bytes; ///< per agent, measured when the scene was built
	uint32_t since;     ///< steps since it was built
} current;

/// The work of the last benchmark's scene (report.h): its steps 2 to
/// period + 1, counted once after it was first built; a rebuilt scene
/// steps the same bits.
static struct {
	const step_case* sc;
	uint32_t agents, threads;
	throng_world_counters work;
} counted;

/// Counts the work of the freshly built scene, unless this benchmark's is
/// already counted. Returns 0, or -1 when a step fails.
static int count_work(const step_case* sc, uint32_t agents, uint32_t threads, uint32_t period)
{
	if (counted.sc == sc && counted.agents == agents && counted.threads == threads) {
		return 0;
	}
	throng_world* w = throng_scene_world(current.scene);
	bench_measure_count(w);
	for (uint32_t k = 0; k < period; ++k) {
		if (throng_scene_step(current.scene) != THRONG_OK) {
			return -1;
		}
		current.since++;
	}
	bench_measure_counted(w, &counted.work);
	counted.sc = sc;
	counted.agents = agents;
	counted.threads = threads;
	return 0;
}

void bench_step_free(void)
{
	throng_scene_destroy(current.scene);
	memset(&current, 0, sizeof current);
}

/// Forgets the counted work too (a failed step).
static void step_forget(void)
{
	bench_step_free();
	memset(&counted, 0, sizeof counted);
}

/// Builds the scene (after freeing the previous one) and measures the
/// resident set it added.
static int scene_build(const step_case* sc, uint32_t agents, uint32_t threads, const char** error)
{
	bench_step_free();
	bench_memory_settle();
	const int64_t rss0 = bench_rss_bytes();
	current.scene = bench_scene_create(sc->scenario, agents, sc->engine, threads, error);
	if (current.scene == NULL) {
		return -1;
	}
	const int64_t rss1 = bench_rss_bytes();
	current.sc = sc;
	current.agents = agents;
	current.threads = threads;
	current.state_bytes = rss0 >= 0 && rss1 >= 0 ? (double)(rss1 - rss0) / (double)agents : 0.0;
	current.since = 1;
	return 0;
}

static void step_scene(thr_bench_state* st, const void* data)
{
	const step_case* sc = data;
	const uint32_t agents = (uint32_t)thr_bench_range(st, 0);
	const uint32_t threads = (uint32_t)thr_bench_range(st, 1);
	const char* error = "";
	if ((current.sc != sc || current.agents != agents || current.threads != threads ||
	     current.since >= BENCH_RESET_STEPS) &&
	    scene_build(sc, agents, threads, &error) != 0) {
		thr_bench_skip_with_error(st, error);
		return;
	}
	// Scenes with target rules time whole rule periods per iteration.
	const uint32_t period = bench_run_period(throng_scene_world(current.scene), bench_keep_all());
	if (count_work(sc, agents, threads, period) != 0) {
		thr_bench_skip_with_error(st, throng_last_error());
		step_forget();
		return;
	}
	double seconds = 0.0, cpu = 0.0;
	int64_t steps = 0;
	bench_measure m;
	memset(&m, 0, sizeof m);
	bench_measure_time(throng_scene_world(current.scene));
	while (thr_bench_keep_running(st)) {
		if (current.since + period > BENCH_RESET_STEPS) {
			bench_measure_collect(throng_scene_world(current.scene), &m);
			if (scene_build(sc, agents, threads, &error) != 0) {
				thr_bench_skip_with_error(st, error);
				return;
			}
			bench_measure_time(throng_scene_world(current.scene));
		}
		double t_iteration = 0.0;
		for (uint32_t k = 0; k < period; ++k) {
			double c0 = bench_cpu_now();
			double t0 = bench_now();
			throng_status status = throng_scene_step(current.scene);
			double dt = bench_now() - t0;
			cpu += bench_cpu_now() - c0;
			if (status != THRONG_OK) {
				thr_bench_skip_with_error(st, throng_last_error());
				step_forget();
				return;
			}
			t_iteration += dt;
			seconds += dt;
			steps++;
			current.since++;
		}
		thr_bench_set_iteration_time(st, t_iteration);
	}
	m.world = throng_scene_world(current.scene);
	bench_measure_collect(throng_scene_world(current.scene), &m);
	m.counted = counted.work;
	bench_report(st, &m, (int)threads, steps, seconds, cpu);
	thr_bench_set_counter(st, "state_bytes_per_agent", current.state_bytes);
}

/// Registers one family: the sizes below BENCH_LARGE (or, when `large`,
/// the others) at each thread count.
static void add(const char* name, const step_case* sc, int large, const int* threads, int n_threads)
{
	static const char* const arg_names[] = {"agents", "threads"};
	static const int64_t sizes[BENCH_SIZE_COUNT] = BENCH_SIZES;
	thr_bench* b = thr_bench_register_data(name, step_scene, sc);
	thr_bench_set_arg_names(b, arg_names, 2);
	for (int i = 0; i < BENCH_SIZE_COUNT; ++i) {
		if ((sizes[i] >= BENCH_LARGE) != (large != 0)) {
			continue;
		}
		for (int t = 0; t < n_threads; ++t) {
			const int64_t args[2] = {sizes[i], threads[t]};
			thr_bench_add_args(b, args, 2);
		}
	}
	thr_bench_use_manual_time(b);
	thr_bench_set_unit(b, THR_BENCH_MS);
}

void bench_step_register(void)
{
	const char* scenarios[BENCH_SCENARIO_WANTED_COUNT];
	const int n = bench_scenarios(scenarios, BENCH_SCENARIO_WANTED_COUNT, NULL);
	static const int simd_threads[] = {1, 2};
	static const int scalar_threads[] = {1};
	int cases = 0;
	for (int s = 0; s < n; ++s) {
		for (int e = 0; e < 2; ++e) {
			step_case* sc = &step_cases[cases++];
			sc->scenario = scenarios[s];
			sc->engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
			const int* threads = e == 0 ? simd_threads : scalar_threads;
			const int n_threads = e == 0 ? 2 : 1;
			char name[96];
			snprintf(name, sizeof name, "step/%s/%s", sc->scenario, throng_engine_name(sc->engine));
			add(name, sc, 0, threads, n_threads);
			snprintf(name, sizeof name, "step/%s/%s/large", sc->scenario, throng_engine_name(sc->engine));
			add(name, sc, 1, threads, n_threads);
		}
	}
}
