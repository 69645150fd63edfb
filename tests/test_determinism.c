// SPDX-License-Identifier: MIT
// Determinism: the same bits for any thread count, and the same bits as
// the pinned ones.
//
// threads/*: the scenes field, crossing, bottleneck, armies, charge, flock and circle (a
// sparse agent grid) at 20,000 agents, well above THR_PARALLEL_MIN_AGENTS
// (4,096, core/world_internal.h), so every parallel region of the SIMD
// engine opens. Each scene runs at 1, 2,
// 3 and 8 threads (8 on a two-core machine is oversubscribed, on purpose:
// the split must not matter however the threads are scheduled) and its
// hash every THREAD_CHECK_EVERY steps must equal the one-thread run's; the
// one-thread run's last hash is pinned too. After every step the test reads
// the team size each parallel region noted (omp_get_num_threads() seen
// inside the region, thr_note_team) and fails unless it is the thread
// count asked for, so a regression to one thread fails here rather than
// passing on one thread. ctest runs threads/flock and engines/* with
// golden/* as test_determinism, the others as test_determinism_long
// (label `long`, left out of the asan run: tests/CMakeLists.txt).
//
// engines/*: the scalar reference and the SIMD engine give the same bits
// on a sparse agent grid (the golden rows' worlds are all dense).
//
// golden/*: every built-in scene (`throng list`), in both engines, at a
// fixed agent count, seed and step count, against a pinned state hash (as
// Box2D v3's test/test_determinism.c pins EXPECTED_HASH). Each scene has a
// row at a small count (below the parallel threshold) and one at 5,000
// agents, which the SIMD engine steps on 2 threads. The two engines give
// the same bits (docs/ENGINES.md), so one hash per row holds for both.
// scripts/check_simd_builds runs golden/* in the native, SSE2 and portable
// builds: this one table is the contract for every build.
//
// The rule: a commit that changes a pinned hash says why in its message
// (which change of behaviour or arithmetic moved it, and that engines,
// thread counts and builds still agree with each other). On a mismatch the
// test prints the row with the hash it got, ready to paste.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "throng/scenario.h"
#include "throng/throng.h"
#include "world_internal.h"

/// Builds scene `name` with `agents` agents, `seed`, `engine` and exactly
/// `threads` threads (0: OpenMP's default); fails the test on error or when
/// the scene did not spawn `agents`.
static throng_scene* make_scene(const char* name, uint32_t agents, uint64_t seed, throng_engine engine,
                                uint32_t threads)
{
	throng_scene* s = thr_test_scene_threads(name, agents, seed, engine, threads); // fixed: the team is asserted below
	cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), agents, "%s: the scene did not spawn %u agents",
	             name, agents);
	return s;
}

// ---------------------------------------------------------------------------
// Any thread count, really in parallel.
// ---------------------------------------------------------------------------

/// Thread counts; the first is the reference.
static const uint32_t thread_counts[] = {1, 2, 3, 8};
#define N_THREAD_COUNTS (sizeof thread_counts / sizeof thread_counts[0])
#define THREAD_AGENTS 20000u
#define THREAD_STEPS 120u
#define THREAD_CHECK_EVERY 20u
#define THREAD_CHECKS (THREAD_STEPS / THREAD_CHECK_EVERY)
#define THREAD_SEED 3u

/// What one run at one thread count saw.
typedef struct thread_run {
	uint64_t hash[THREAD_CHECKS]; ///< after steps THREAD_CHECK_EVERY, 2 THREAD_CHECK_EVERY, ...
	throng_world_stats stats;
	uint32_t target_steps; ///< steps in which target selection ran
	uint32_t grid_steps;   ///< steps whose agent grid was built split over the threads
} thread_run;

/// Runs `name` on `threads` threads and checks, after every step, that each
/// parallel region that ran had a team of exactly `threads`.
static thread_run run_threads(const char* name, uint32_t threads)
{
	thread_run r;
	memset(&r, 0, sizeof r);
	throng_scene* s = make_scene(name, THREAD_AGENTS, THREAD_SEED, THRONG_ENGINE_SIMD, threads);
	throng_world* w = throng_scene_world(s);
	for (uint32_t step = 1; step <= THREAD_STEPS; ++step) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s: %s", name, throng_last_error());
		// Every step reorders the agents and steps every block; target
		// selection runs in the steps a rule is due.
		cr_assert_eq(w->region_team[THR_REGION_REORDER], threads,
		             "%s, %u threads, step %u: the reorder ran on %u threads", name, threads, step,
		             w->region_team[THR_REGION_REORDER]);
		cr_assert_eq(w->region_team[THR_REGION_BLOCKS], threads,
		             "%s, %u threads, step %u: the blocks ran on %u threads", name, threads, step,
		             w->region_team[THR_REGION_BLOCKS]);
		// Every built-in has solid agents: the contact pass runs every step.
		cr_assert_eq(w->region_team[THR_REGION_CONTACTS], threads,
		             "%s, %u threads, step %u: the contact pass ran on %u threads", name, threads, step,
		             w->region_team[THR_REGION_CONTACTS]);
		// The agent grid builds split where its points are nearly in cell
		// order (a dense grid), on one thread otherwise (0).
		const uint32_t grid = w->region_team[THR_REGION_GRID];
		cr_assert(grid == 0 || (threads > 1 && grid == threads),
		          "%s, %u threads, step %u: the agent grid was built on %u threads", name, threads, step, grid);
		r.grid_steps += grid != 0;
		uint32_t targets = w->region_team[THR_REGION_TARGETS];
		cr_assert(targets == 0 || targets == threads, "%s, %u threads, step %u: target selection ran on %u threads",
		          name, threads, step, targets);
		r.target_steps += targets != 0;
		if (step % THREAD_CHECK_EVERY == 0) {
			r.hash[step / THREAD_CHECK_EVERY - 1u] = throng_world_hash(w);
		}
	}
	r.stats = throng_world_get_stats(w);
	cr_assert_eq(r.stats.steps, THREAD_STEPS);
	cr_assert_eq(r.stats.nonfinite, 0u, "%s: non-finite forces", name);
	throng_scene_destroy(s);
	return r;
}

/// Runs `name` at every thread count and compares each with one thread;
/// `targets`: the scene selects targets, so that region must run too.
static void any_thread_count(const char* name, uint64_t pinned, bool targets)
{
	thread_run ref = run_threads(name, thread_counts[0]);
	cr_expect_eq(ref.hash[THREAD_CHECKS - 1u], pinned,
	             "%s at %u agents, seed %u, %u steps: hash 0x%016llx, pinned 0x%016llx (see the header: a commit "
	             "that changes it says why)",
	             name, THREAD_AGENTS, THREAD_SEED, THREAD_STEPS, (unsigned long long)ref.hash[THREAD_CHECKS - 1u],
	             (unsigned long long)pinned);
	if (targets) {
		cr_assert_gt(ref.target_steps, 0u, "%s: target selection never ran", name);
	} else {
		cr_assert_eq(ref.target_steps, 0u, "%s: target selection ran in a scene without target rules", name);
	}
	for (size_t t = 1; t < N_THREAD_COUNTS; ++t) {
		thread_run r = run_threads(name, thread_counts[t]);
		for (uint32_t c = 0; c < THREAD_CHECKS; ++c) {
			cr_assert_eq(r.hash[c], ref.hash[c],
			             "%s: after %u steps the hash is 0x%016llx on %u threads but 0x%016llx on %u", name,
			             (c + 1u) * THREAD_CHECK_EVERY, (unsigned long long)r.hash[c], thread_counts[t],
			             (unsigned long long)ref.hash[c], thread_counts[0]);
		}
		// The per-thread partial results are merged by max and integer
		// sums: the same figures for any split.
		cr_assert(r.stats.max_speed_ratio == ref.stats.max_speed_ratio && r.stats.clamped == ref.stats.clamped &&
		                  r.stats.nonfinite == ref.stats.nonfinite,
		          "%s: the stats differ between %u and %u threads", name, thread_counts[t], thread_counts[0]);
		cr_assert_eq(r.target_steps, ref.target_steps);
		if (strcmp(name, "circle") != 0) { // circle's ring has a sparse grid: built on one thread
			cr_assert_gt(r.grid_steps, THREAD_STEPS / 2u, "%s, %u threads: the agent grid was split in %u steps of %u",
			             name, thread_counts[t], r.grid_steps, THREAD_STEPS);
		}
	}
}

Test(threads, field) { any_thread_count("field", 0x8ade0b7ebb881f22ull, false); }
Test(threads, circle) { any_thread_count("circle", 0xdf0769e1ef483093ull, false); }

// A sparse agent grid: `circle` at 20,000 agents, whose ring's bounds would
// need cells 4.8 times wider than the neighbour radius in a dense grid
// (core/grid.h). Both engines give the same bits every 20 steps.
Test(engines, agree_on_a_sparse_grid)
{
	uint64_t hash[2][THREAD_CHECKS / 2];
	const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
	for (int e = 0; e < 2; ++e) {
		throng_scene* s = make_scene("circle", THREAD_AGENTS, THREAD_SEED, engines[e], e == 0 ? 1u : 2u);
		throng_world* w = throng_scene_world(s);
		for (uint32_t step = 1; step <= THREAD_STEPS / 2; ++step) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
			cr_assert(w->agent_grid.sparse, "circle at %u agents: the agent grid is dense (%d x %d cells of %g m)",
			          THREAD_AGENTS, w->agent_grid.nx, w->agent_grid.ny, (double)w->agent_grid.cell);
			if (step % THREAD_CHECK_EVERY == 0) {
				hash[e][step / THREAD_CHECK_EVERY - 1u] = throng_world_hash(w);
			}
		}
		throng_scene_destroy(s);
	}
	for (uint32_t c = 0; c < THREAD_CHECKS / 2; ++c) {
		cr_assert_eq(hash[1][c], hash[0][c], "after %u steps: SIMD 0x%016llx, scalar 0x%016llx",
		             (c + 1u) * THREAD_CHECK_EVERY, (unsigned long long)hash[1][c], (unsigned long long)hash[0][c]);
	}
}
Test(threads, crossing) { any_thread_count("crossing", 0x8f007adf2bcb85f2ull, false); }
Test(threads, bottleneck) { any_thread_count("bottleneck", 0xb495abf92a0d0a6full, false); }
Test(threads, armies) { any_thread_count("armies", 0x1c0b45dd9d943ac0ull, true); }
Test(threads, charge) { any_thread_count("charge", 0x3899dbd984926a99ull, true); }
Test(threads, flock) { any_thread_count("flock", 0x5a9e5e26a22b3f75ull, false); }

// ---------------------------------------------------------------------------
// Golden hashes.
// ---------------------------------------------------------------------------

/// Threads of the SIMD engine in the golden runs (the regions open at the
/// rows above THR_PARALLEL_MIN_AGENTS).
#define GOLDEN_THREADS 2u

typedef struct golden_row {
	const char* scene;
	uint32_t agents;
	uint64_t seed;
	uint32_t steps;
	uint64_t hash; ///< throng_world_hash after `steps` throng_scene_step calls, both engines
} golden_row;

static const golden_row golden[] = {
	{"herd",       8,    1, 300, 0xb3a28975c8741825ull},
	{"herd",       5000, 7, 200, 0x1d6fe21b98e8c0f6ull},
	{"circle",     2000, 1, 300, 0x7af6901532e125dbull},
	{"circle",     5000, 7, 200, 0x93c687301595c58dull},
	{"field",      2000, 1, 300, 0x7eb49b0396ab9018ull},
	{"field",      5000, 7, 200, 0x86785b394a9a654bull},
	{"crossing",   1000, 1, 300, 0x594fb0b2c4740778ull},
	{"crossing",   5000, 7, 200, 0xf0c82d7590d97ebfull},
	{"bottleneck", 400,  1, 300, 0xc6a02d140ab3bc50ull},
	{"bottleneck", 5000, 7, 200, 0x70ab255ebbb2ea82ull},
	{"hallway",    1000, 1, 300, 0x2c355261c93da5b4ull},
	{"hallway",    5000, 7, 200, 0x10ef1b8a421d023cull},
	{"armies",     2000, 1, 1200, 0x62bdb1de5c8e883cull},
	{"armies",     5000, 7, 600,  0xfd4715231a6193bfull},
	{"charge",     2000, 1, 300, 0xaef9018267feb926ull},
	{"charge",     5000, 7, 200, 0x3b630f1c4a471fd7ull},
	{"flock",      2000, 1, 300, 0x639f518d32b4b7fdull},
	{"flock",      5000, 7, 200, 0x6602ed4ce4b4031dull},
	{"dense",      1000, 1, 300, 0xa373cefc0141db76ull},
	{"dense",      5000, 7, 200, 0x7aae9419cae796b2ull},
	{"concourse",  300,  1, 300, 0x819f75e4b616613aull},
	{"concourse",  5000, 7, 200, 0xb440782825798df0ull},
	{"evacuation", 400,  1, 300, 0x188b31b7e97464c6ull},
	{"evacuation", 5000, 7, 200, 0x9e1ec803dea6cd9cull},
	{"solo",       64,   1, 300, 0x1e225d2e6d949758ull},
	{"solo",       5000, 7, 200, 0x0efc67f364e3f96full},
};
#define N_GOLDEN (sizeof golden / sizeof golden[0])

/// Runs every row of `scene` on `engine` and checks its hash; a mismatch
/// prints the row as it would read with the hash obtained.
static void check_golden(const char* scene, throng_engine engine)
{
	const char* engine_name = throng_engine_name(engine);
	uint32_t rows = 0;
	for (size_t k = 0; k < N_GOLDEN; ++k) {
		const golden_row* g = &golden[k];
		if (strcmp(g->scene, scene) != 0) {
			continue;
		}
		++rows;
		uint32_t threads = engine == THRONG_ENGINE_SIMD ? GOLDEN_THREADS : 1u;
		throng_scene* s = make_scene(g->scene, g->agents, g->seed, engine, threads);
		throng_world* w = throng_scene_world(s);
		for (uint32_t step = 0; step < g->steps; ++step) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s: %s", scene, throng_last_error());
		}
		uint64_t h = throng_world_hash(w);
		if (engine == THRONG_ENGINE_SIMD) {
			uint32_t team = g->agents > THR_PARALLEL_MIN_AGENTS ? GOLDEN_THREADS : 1u;
			cr_assert_eq(w->region_team[THR_REGION_BLOCKS], team, "%s, %u agents: the blocks ran on %u threads, not %u",
			             scene, g->agents, w->region_team[THR_REGION_BLOCKS], team);
		}
		throng_scene_destroy(s);
		cr_expect_eq(h, g->hash,
		             "%s engine: hash 0x%016llx, pinned 0x%016llx; the row with this hash:\n"
		             "\t{\"%s\", %u, %llu, %u, 0x%016llxull},\n"
		             "(a commit that changes a pinned hash says why: see the header)",
		             engine_name, (unsigned long long)h, (unsigned long long)g->hash, g->scene, g->agents,
		             (unsigned long long)g->seed, g->steps, (unsigned long long)h);
	}
	cr_assert_gt(rows, 0u, "no golden row for scene %s", scene);
}

/// The scenes with golden tests (X-macro: one list makes the tests and the
/// names every_scene_is_pinned checks).
#define GOLDEN_SCENES(X)                                                                                         \
	X(herd) X(circle) X(field) X(crossing) X(bottleneck) X(hallway) X(armies) X(charge) X(flock) X(dense) X(concourse) X(evacuation) X(solo)

#define GOLDEN_TESTS(scene)                                                                                        \
	Test(golden, scene##_scalar) { check_golden(#scene, THRONG_ENGINE_SCALAR); }                                 \
	Test(golden, scene##_simd) { check_golden(#scene, THRONG_ENGINE_SIMD); }
#define GOLDEN_NAME(scene) #scene,

GOLDEN_SCENES(GOLDEN_TESTS)

/// examples/battle.yaml (docs/ARMIES.md): a scenario file with combat,
/// 5,000 soldiers in melee and with missiles in flight, pinned after
/// BATTLE_STEPS steps (30 s: the archers' volleys and the lines' first
/// clash, some 600 dead) in the scalar engine and the SIMD engine on
/// GOLDEN_THREADS threads, its parallel regions open; so
/// scripts/check_simd_builds pins a battle in every build too.
#define BATTLE_STEPS 600u
#define BATTLE_HASH 0x0c9d0d7cdbcd1076ull

static void check_battle(throng_engine engine)
{
	char path[512];
	snprintf(path, sizeof path, "%s/examples/battle.yaml", THRONG_SOURCE_DIR);
	throng_scene_def d = throng_scene_default_def();
	d.engine = engine;
	d.threads = engine == THRONG_ENGINE_SIMD ? GOLDEN_THREADS : 1u;
	d.threads_policy = THRONG_THREADS_FIXED;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_open(path, &d, &s), THRONG_OK, "%s", throng_last_error());
	throng_world* w = throng_scene_world(s);
	cr_assert_gt(throng_world_agent_count(w), THR_PARALLEL_MIN_AGENTS);
	for (uint32_t step = 0; step < BATTLE_STEPS; ++step) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "battle: %s", throng_last_error());
	}
	if (engine == THRONG_ENGINE_SIMD) {
		cr_assert_eq(w->region_team[THR_REGION_BLOCKS], GOLDEN_THREADS, "the blocks ran on %u threads",
		             w->region_team[THR_REGION_BLOCKS]);
	}
	const uint64_t dead = throng_world_get_stats(w).agents_removed;
	cr_assert(dead > 300u && dead < 2000u, "battle: %llu dead after %u steps", (unsigned long long)dead,
	          BATTLE_STEPS);
	const uint64_t h = throng_world_hash(w);
	throng_scene_destroy(s);
	cr_expect_eq(h, BATTLE_HASH, "battle, %s engine: hash 0x%016llxull, pinned 0x%016llxull (%llu dead)",
	             throng_engine_name(engine), (unsigned long long)h, (unsigned long long)BATTLE_HASH,
	             (unsigned long long)dead);
}

Test(golden, battle_file_scalar, .timeout = 600)
{
	check_battle(THRONG_ENGINE_SCALAR);
}

Test(golden, battle_file_simd, .timeout = 600)
{
	check_battle(THRONG_ENGINE_SIMD);
}

Test(golden, every_scene_is_pinned)
{
	static const char* const tested[] = {GOLDEN_SCENES(GOLDEN_NAME)};
	uint32_t n = throng_scenario_count();
	cr_assert_gt(n, 0u);
	for (uint32_t k = 0; k < n; ++k) {
		const char* name = throng_scenario_at(k)->name;
		bool below = false, above = false, has_tests = false;
		for (size_t r = 0; r < N_GOLDEN; ++r) {
			if (strcmp(golden[r].scene, name) == 0) {
				below |= golden[r].agents <= THR_PARALLEL_MIN_AGENTS;
				above |= golden[r].agents > THR_PARALLEL_MIN_AGENTS;
			}
		}
		for (size_t t = 0; t < sizeof tested / sizeof tested[0]; ++t) {
			has_tests |= strcmp(tested[t], name) == 0;
		}
		cr_expect(below && above, "scene %s needs a golden row at most and one above %u agents", name,
		          THR_PARALLEL_MIN_AGENTS);
		cr_expect(has_tests, "scene %s is missing from GOLDEN_SCENES", name);
	}
	for (size_t r = 0; r < N_GOLDEN; ++r) {
		cr_expect_not_null(throng_scenario_find(golden[r].scene), "golden row %zu: no scene %s", r, golden[r].scene);
	}
}
