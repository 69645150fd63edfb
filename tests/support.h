// SPDX-License-Identifier: MIT
// Helpers shared by the test files.
#ifndef THRONG_TESTS_SUPPORT_H
#define THRONG_TESTS_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/behavior.h"
#include "throng/export.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

/// Runs `cmdline` through /bin/sh, captures stdout and stderr (each cut at
/// cap-1 bytes, NUL-terminated) and returns the exit status (or -1).
int thr_test_run(const char* cmdline, char* out, uint32_t out_cap, char* err, uint32_t err_cap);

/// The whole file at `path` into buf (NUL-terminated, cut at cap - 1
/// bytes); its size. Fails the test when the file cannot be opened.
size_t thr_test_slurp(const char* path, char* buf, size_t cap);

/// Writes `text` to `path` (created or truncated); fails the test on error.
void thr_test_write_text(const char* path, const char* text);

/// Makes a fresh directory "/tmp/<prefix>-XXXXXX" into dir (cap bytes);
/// fails the test on error.
void thr_test_make_dir(char* dir, size_t cap, const char* prefix);

/// Removes `dir` and everything under it, read-only parts too; fails the
/// test on error.
void thr_test_remove_dir(const char* dir);

/// Runs the built `throng` command (THRONG_CLI_PATH) with `args` (shell
/// words) like thr_test_run; fails the test when the command is not built.
int thr_test_cli(const char* args, char* out, uint32_t out_cap, char* err, uint32_t err_cap);

/// thr_test_cli run in the directory `dir` (`cd dir && throng args`).
int thr_test_cli_in(const char* dir, const char* args, char* out, uint32_t out_cap, char* err, uint32_t err_cap);

/// Diagnostics gathered as text by thr_test_collect (a
/// throng_diagnostic_fn; user: a zeroed thr_test_messages): one formatted
/// line each, cut when the text is full; `count` the problems among them
/// (warnings are not).
typedef struct thr_test_messages {
	char text[32768];
	size_t len;
	uint32_t count;
} thr_test_messages;
void thr_test_collect(void* user, const throng_diagnostic* d);

/// The scene that scenario file text `text` states, loaded as `name` with
/// the default options; fails the test with the loader's message on error.
throng_scene* thr_test_load_text(const char* name, const char* text);

/// The built-in scenario `name` with `agents` agents (0: its default) on
/// `engine`, every other option at its default; fails the test on error.
throng_scene* thr_test_scene(const char* name, uint32_t agents, throng_engine engine);

/// thr_test_scene with `seed`, on exactly `threads` threads
/// (THRONG_THREADS_FIXED; 0: OpenMP's default count).
throng_scene* thr_test_scene_threads(const char* name, uint32_t agents, uint64_t seed, throng_engine engine,
                                     uint32_t threads);

/// The built-in scenario circle with `agents` agents (0: its default), every
/// other option at its default, in *scene, and an exporter writing it to
/// `path` with `def` (its world and scenario name set here); fails the test
/// on error.
throng_exporter* thr_test_circle_exporter(const char* path, uint32_t agents, throng_export_def def,
                                          throng_scene** scene);

/// Whether two slots' parameters are equal field by field (==: a NaN
/// differs from itself), every field of throng_behavior_params.
bool thr_test_same_params(const throng_behavior_params* p, const throng_behavior_params* q);

/// A soldier's controller: it pursues its target agent, chosen every
/// `every` steps by a target rule among group `enemy` within `sight` m,
/// and keeps apart from its neighbours (separation); no combat (the
/// caller gives it one).
throng_controller thr_test_charger(uint32_t enemy, float sight, uint32_t every);

/// Hand-to-hand combat with reach 0.5 m: health, armour and damage in
/// health points, cooldown in s, accuracy in [0, 1].
throng_combat thr_test_melee(float health, float armour, float damage, float cooldown, float accuracy);

/// A contained 200 x 200 m world, dt 0.25 s (exact in binary), on
/// `engine` with `threads` fixed threads and `seed`: the battlefield of
/// the combat, morale and formation tests. Fails the test on error.
throng_world* thr_test_battlefield(throng_engine engine, uint32_t threads, uint64_t seed);

/// Adds an archetype with controller c; its id. Fails the test on error.
uint32_t thr_test_archetype(throng_world* w, const throng_controller* c);

/// One step. Fails the test on error.
void thr_test_step(throng_world* w);

/// An agent's state and a unit's, by id. Fail the test on error.
throng_agent_state thr_test_agent(const throng_world* w, uint32_t id);
throng_unit_state thr_test_unit(const throng_world* w, uint32_t unit);

/// Spawns one agent at p with velocity v, max_speed 2 m/s and `target`,
/// every other field at its default (radius 0.3 m); fails the test on error.
void thr_test_spawn(throng_world* w, throng_vec2 p, throng_vec2 v, throng_vec2 target);

/// Steps `s` `steps` times with a fresh metrics object (the scene's goal
/// radius) observing every step; returns the figures and, when `hash` is
/// not NULL, the world's hash at the end. Fails the test on any error.
throng_quality thr_test_run_scene(throng_scene* s, uint32_t steps, uint64_t* hash);

/// Called by thr_test_watch_scene after step `step` (0-based) of the world.
typedef void thr_test_watch(const throng_world* w, uint32_t step, void* user);

/// thr_test_run_scene that also calls `watch` after every step.
throng_quality thr_test_watch_scene(throng_scene* s, uint32_t steps, thr_test_watch* watch, void* user);

/// Called by thr_test_hook_scene after step `step` (0-based) of the world,
/// before `m` observes it.
typedef void thr_test_hook(throng_world* w, throng_metrics* m, uint32_t step, void* user);

/// thr_test_run_scene that also calls `hook` between each step and its
/// observation.
throng_quality thr_test_hook_scene(throng_scene* s, uint32_t steps, thr_test_hook* hook, void* user);

/// The value of `key` in a text summary (lines "key:   value", padded to
/// the longest key): a pointer into `text` at the value's first character,
/// or NULL when no line holds the key.
const char* thr_test_summary_value(const char* text, const char* key);

/// The scene's outcome figure `name`; fails the test when it has none.
double thr_test_outcome(const throng_scene* s, const char* name);

/// Expects the 2-D vector `actual` (anything with float members x and y,
/// evaluated once) to be (ex, ey) within eps on each axis; a Criterion
/// expectation, so a test goes on after a miss and names both values.
#define THR_EXPECT_VEC(actual, ex, ey, eps)                                                              \
	do {                                                                                                 \
		__typeof__(actual) got_ = (actual);                                                              \
		cr_expect_float_eq(got_.x, (ex), (eps), "x: got %.9g, want %.9g", (double)got_.x, (double)(ex)); \
		cr_expect_float_eq(got_.y, (ey), (eps), "y: got %.9g, want %.9g", (double)got_.y, (double)(ey)); \
	} while (0)

/// Deterministic uniform float in [lo, hi) from a test-local counter.
float thr_test_uniform(uint64_t* state, float lo, float hi);

/// The next draw of the same test-local stream (splitmix64).
uint64_t thr_test_u64(uint64_t* state);

/// Up to `n` distinct live ids drawn from [0, id_end) into out, in the
/// order drawn (by id, never by slot: slots differ between engines).
uint32_t thr_test_pick_live(throng_world* w, uint64_t* rng, uint32_t n, uint32_t* out);

/// One step boundary of churn: removes `n` agents, then spawns `n` copies
/// of live agents (archetype, group, body, target, path) at random places
/// in the world's bounds, a quarter of them pursuing another newcomer's
/// model. Fails the test on error.
void thr_test_churn(throng_world* w, uint64_t* rng, uint32_t n);

/// One frame of a churned run as the world had it: the live agents, by id.
typedef struct thr_test_frame_truth {
	uint64_t step;
	uint32_t count;
	uint32_t* id;        ///< count ids, increasing
	float* field[6];     ///< x, y, vx, vy, hx, hy of those agents
	uint32_t* group;
	uint32_t* archetype;
} thr_test_frame_truth;

/// Frames a churned run writes: steps 0 to THR_TEST_CHURN_FRAMES - 1.
#define THR_TEST_CHURN_FRAMES 16

typedef struct thr_test_churn_truth {
	uint32_t frames;
	thr_test_frame_truth frame[THR_TEST_CHURN_FRAMES];
} thr_test_churn_truth;

/// Called with the world after every step of a churned run (and before
/// the first): writes it to the outputs under test.
typedef void thr_test_output(void* user, const throng_world* w);

/// Runs `scene` THR_TEST_CHURN_FRAMES - 1 steps with agents coming and
/// going at every step boundary (3 removed and 3 added each time, 4 more
/// removed or 5 more added on some, all removed before step 11 and 7 added
/// before step 12), calling `out` after every step and before the first,
/// and records what each of those frames must hold in *truth (through
/// throng_world_get_agent over every id, not through a view). Fails the
/// test on error.
void thr_test_churned_run(throng_scene* scene, thr_test_output* out, void* user, thr_test_churn_truth* truth);

void thr_test_churn_truth_free(thr_test_churn_truth* truth);

#endif
