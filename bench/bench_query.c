// SPDX-License-Identifier: MIT
// query/: spatial queries on a world between steps (include/throng/query.h,
// issue 33's target: 10^5 radius queries of 5 m on a 10^6-agent `field`
// in under 50 ms on one thread, and a query's cost that does not grow with
// the agent count at a fixed density).
//
//   query/radius/field[/large]/agents:N/radius_m:R  one batch of
//       BENCH_QUERIES radius queries (throng_world_query_radius_batch)
//       around centres drawn uniformly over the field, R = 5 m (about 3
//       agents each at field's one agent per 25 m^2) and 9 m (about 10)
//   query/nearest/field[/large]/agents:N/k:K        one batch of as many
//       k-nearest queries (throng_world_query_nearest_batch), K = 10
//   query/index/field[/large]/agents:N              the index's build alone:
//       the agents marked changed (thr_agents_changed, as a step does),
//       then one query, which builds it
//
// Each run builds `field` with N agents on the SIMD engine and one thread
// and takes its one step (bench_scene_create: the slots then lie in the
// engine's cell order, not id order), then times whole batches (manual
// time) on the calling thread; the scene is kept for the next run of the
// same N. The first batch of a run after the scene was built also builds
// the index; it is timed apart (index_build_ms) and not counted in the
// batches. Counters: ns_per_query (wall), cpu_ns_per_query (this
// process's CPU time: what a loaded machine does not inflate),
// results_per_query (the totals' mean) and, for radius runs,
// index_build_ms (wall).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "shim.h"
#include "throng/query.h"
#include "world_internal.h"

/// Queries in one timed batch.
#define BENCH_QUERIES 100000u

/// Most ids a radius query writes (the totals count them all).
#define BENCH_QUERY_ROOM 32u

/// The scene the runs query, kept while N stays the same.
static struct {
	uint32_t agents;
	throng_scene* scene;
	throng_vec2* centers; ///< BENCH_QUERIES points over the field
	uint32_t* ids;        ///< BENCH_QUERIES * BENCH_QUERY_ROOM
	uint32_t* totals;     ///< BENCH_QUERIES
	double build_ms;      ///< the index's first build (the first query after the scene was built)
} field;

void bench_query_free(void)
{
	throng_scene_destroy(field.scene);
	free(field.centers);
	free(field.ids);
	free(field.totals);
	memset(&field, 0, sizeof field);
}

/// A uniform float in [lo, hi) from a splitmix64 counter.
static float uniform(uint64_t* s, float lo, float hi)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return lo + (hi - lo) * (float)(z >> 40) * (1.0f / 16777216.0f);
}

/// The field of N agents with its query points, and the time of the
/// index's first build. Returns 0, or -1 with *error set.
static int field_ready(uint32_t agents, const char** error)
{
	if (field.scene != NULL && field.agents == agents) {
		return 0;
	}
	bench_query_free();
	field.scene = bench_scene_create("field", agents, THRONG_ENGINE_SIMD, 1, error);
	field.centers = malloc(BENCH_QUERIES * sizeof *field.centers);
	field.ids = malloc((size_t)BENCH_QUERIES * BENCH_QUERY_ROOM * sizeof *field.ids);
	field.totals = malloc(BENCH_QUERIES * sizeof *field.totals);
	if (field.scene == NULL || field.centers == NULL || field.ids == NULL || field.totals == NULL) {
		*error = field.scene == NULL ? *error : "out of memory";
		bench_query_free();
		return -1;
	}
	field.agents = agents;
	const throng_world* w = throng_scene_world(field.scene);
	const throng_world_def d = throng_world_get_def(w);
	uint64_t s = 12345;
	for (uint32_t q = 0; q < BENCH_QUERIES; ++q) {
		field.centers[q] = (throng_vec2){uniform(&s, d.bounds_min.x, d.bounds_max.x),
		                                 uniform(&s, d.bounds_min.y, d.bounds_max.y)};
	}
	const double t0 = bench_now();
	if (throng_world_query_radius_batch(w, field.centers, 1, 1.0f, NULL, NULL, 0, field.totals) != THRONG_OK) {
		*error = throng_last_error();
		bench_query_free();
		return -1;
	}
	field.build_ms = 1e3 * (bench_now() - t0);
	// Every page of the outputs touched before the first timed batch.
	memset(field.ids, 0, (size_t)BENCH_QUERIES * BENCH_QUERY_ROOM * sizeof *field.ids);
	memset(field.totals, 0, BENCH_QUERIES * sizeof *field.totals);
	return 0;
}

/// The totals' mean over the batch.
static double mean_total(void)
{
	double sum = 0.0;
	for (uint32_t q = 0; q < BENCH_QUERIES; ++q) {
		sum += field.totals[q];
	}
	return sum / BENCH_QUERIES;
}

typedef enum query_kind { QUERY_RADIUS, QUERY_NEAREST, QUERY_INDEX } query_kind;

static const query_kind kinds[3] = {QUERY_RADIUS, QUERY_NEAREST, QUERY_INDEX};

static void query_run(thr_bench_state* st, const void* data)
{
	const query_kind kind = *(const query_kind*)data;
	const uint32_t agents = (uint32_t)thr_bench_range(st, 0);
	const char* error = "";
	if (field_ready(agents, &error) != 0) {
		thr_bench_skip_with_error(st, error);
		return;
	}
	throng_world* w = throng_scene_world(field.scene);
	const float radius = kind == QUERY_RADIUS ? (float)thr_bench_range(st, 1) : 0.0f;
	const uint32_t k = kind == QUERY_NEAREST ? (uint32_t)thr_bench_range(st, 1) : 0u;
	const uint32_t batch = kind == QUERY_INDEX ? 1u : BENCH_QUERIES;
	double seconds = 0.0, cpu = 0.0;
	while (thr_bench_keep_running(st)) {
		if (kind == QUERY_INDEX) {
			thr_agents_changed(w); // as a step would: the next query builds the index again
		}
		const double c0 = bench_cpu_now(), t0 = bench_now();
		throng_status status = kind == QUERY_NEAREST
		                           ? throng_world_query_nearest_batch(w, field.centers, batch, k, NULL, field.ids,
		                                                              field.totals)
		                           : throng_world_query_radius_batch(w, field.centers, batch, radius, NULL, field.ids,
		                                                             BENCH_QUERY_ROOM, field.totals);
		const double dt = bench_now() - t0;
		cpu += bench_cpu_now() - c0;
		if (status != THRONG_OK) {
			thr_bench_skip_with_error(st, throng_last_error());
			return;
		}
		thr_bench_set_iteration_time(st, dt);
		seconds += dt;
	}
	const int64_t queries = thr_bench_iterations(st) * (int64_t)batch;
	thr_bench_set_items_processed(st, queries);
	thr_bench_set_counter(st, "ns_per_query", queries > 0 ? 1e9 * seconds / (double)queries : 0.0);
	thr_bench_set_counter(st, "cpu_ns_per_query", queries > 0 ? 1e9 * cpu / (double)queries : 0.0);
	if (kind != QUERY_INDEX) {
		thr_bench_set_counter(st, "results_per_query", mean_total());
	}
	if (kind == QUERY_RADIUS) {
		thr_bench_set_counter(st, "index_build_ms", field.build_ms);
	}
}

/// Registers one family over the sizes below BENCH_LARGE (or, when
/// `large`, the others), each with every value of its second argument.
static void add(const char* name, const query_kind* kind, int large, const char* arg, const int64_t* values,
                int n_values)
{
	static const int64_t sizes[BENCH_SIZE_COUNT] = BENCH_SIZES;
	const char* const arg_names[] = {"agents", arg};
	thr_bench* b = thr_bench_register_data(name, query_run, kind);
	thr_bench_set_arg_names(b, arg_names, arg != NULL ? 2 : 1);
	for (int i = 0; i < BENCH_SIZE_COUNT; ++i) {
		if (sizes[i] < 10000 || (sizes[i] >= BENCH_LARGE) != (large != 0)) {
			continue;
		}
		for (int v = 0; v < n_values; ++v) {
			const int64_t args[2] = {sizes[i], arg != NULL ? values[v] : 0};
			thr_bench_add_args(b, args, arg != NULL ? 2 : 1);
		}
	}
	thr_bench_use_manual_time(b);
	thr_bench_set_unit(b, THR_BENCH_MS);
}

void bench_query_register(void)
{
	if (throng_scenario_find("field") == NULL) {
		return;
	}
	static const int64_t radii[] = {5, 9};
	static const int64_t ks[] = {10};
	for (int large = 0; large < 2; ++large) {
		add(large ? "query/radius/field/large" : "query/radius/field", &kinds[QUERY_RADIUS], large, "radius_m", radii, 2);
		add(large ? "query/nearest/field/large" : "query/nearest/field", &kinds[QUERY_NEAREST], large, "k", ks, 1);
		add(large ? "query/index/field/large" : "query/index/field", &kinds[QUERY_INDEX], large, NULL, NULL, 1);
	}
}
