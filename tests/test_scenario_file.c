// SPDX-License-Identifier: MIT
// Scenario files (core/scene/scenario_file*.c, docs/SCENARIOS.md).
//
// - Every file in examples/ validates, loads and runs in both engines, the
//   two engines giving the same state hash; herd, circle and field build the
//   same worlds, bit for bit, as the built-ins they describe.
// - Round trip: load, save, load gives the same world (definition, shapes,
//   every agent, the hash after some steps), and saving again gives the
//   same text.
// - Features: each spawn shape, goal, heading, path, target rule, threat
//   and option, with positions worked by hand.
// - A table of malformed files (tests/data/bad/), each with the exact
//   messages expected (file, line, column, field path, text), in file order.
// - `throng validate` and `throng run FILE`.
// - The key reference of docs/SCENARIOS.md is the key tables' own
//   (scenario_file_tables.c), and their rows read, refuse and save.
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario_file_internal.h"
#include "support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The examples/ folder, found from this file's path.
static void examples_dir(char* buf, size_t cap)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	size_t len = slash != NULL ? (size_t)(slash - file) : 0;
	snprintf(buf, cap, "%.*s%sexamples", (int)len, file, len > 0 ? "/../" : "../");
}

static throng_scene* load_text(const char* text, throng_engine engine)
{
	throng_scene_def o = throng_scene_default_def();
	o.engine = engine;
	o.threads = 2;
	thr_test_messages d = {.len = 0};
	throng_scene* s = NULL;
	throng_status st = throng_scene_load_memory("test.yaml", text, strlen(text), &o, thr_test_collect, &d, &s);
	cr_assert_eq(st, THRONG_OK, "load failed: %s\n%s", throng_last_error(), d.text);
	return s;
}

static throng_scene* load_path(const char* path, throng_engine engine)
{
	throng_scene_def o = throng_scene_default_def();
	o.engine = engine;
	o.threads = 2;
	thr_test_messages d = {.len = 0};
	throng_scene* s = NULL;
	throng_status st = throng_scene_load_file_report(path, &o, thr_test_collect, &d, &s);
	cr_assert_eq(st, THRONG_OK, "%s: %s\n%s", path, throng_last_error(), d.text);
	return s;
}

static uint64_t run_hash(throng_scene* s, int steps)
{
	for (int k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	return throng_world_hash(throng_scene_world(s));
}

static int by_name(const void* a, const void* b)
{
	return strcmp(a, b);
}

/// The example files, sorted; returns how many.
static int list_examples(char names[][1024], int cap)
{
	char dir[512];
	examples_dir(dir, sizeof dir);
	DIR* d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	int n = 0;
	struct dirent* e;
	while ((e = readdir(d)) != NULL && n < cap) {
		size_t len = strlen(e->d_name);
		if ((len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) ||
		    (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)) {
			snprintf(names[n++], 1024, "%s/%.256s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(names, (size_t)n, 1024, by_name);
	return n;
}

static void assert_same_controller(const throng_controller* a, const throng_controller* b, uint32_t id)
{
	cr_assert_eq(a->mode, b->mode, "archetype %u: mode", id);
	cr_assert_eq(a->relaxation_time, b->relaxation_time, "archetype %u: relaxation_time", id);
	cr_assert_eq(a->slot_count, b->slot_count, "archetype %u: slot count", id);
	cr_assert_eq(a->target_rule.enabled, b->target_rule.enabled, "archetype %u: target rule", id);
	if (a->target_rule.enabled) {
		cr_assert_eq(a->target_rule.group, b->target_rule.group);
		cr_assert_eq(a->target_rule.every, b->target_rule.every);
		cr_assert_eq(a->target_rule.sight_radius, b->target_rule.sight_radius);
	}
	for (uint32_t k = 0; k < a->slot_count; ++k) {
		const throng_slot *x = &a->slots[k], *y = &b->slots[k];
		cr_assert(x->kind == y->kind && x->weight == y->weight && x->enabled == y->enabled &&
		                  x->priority == y->priority,
		          "archetype %u slot %u", id, k);
		const throng_behavior_params *p = &x->params, *q = &y->params;
		cr_assert(thr_test_same_params(p, q), "archetype %u slot %u: parameters", id, k);
	}
}

/// Two worlds hold the same definition and the same agents, bit for bit.
static void assert_same_world(throng_world* a, throng_world* b)
{
	throng_world_def da = throng_world_get_def(a), db = throng_world_get_def(b);
	cr_assert(da.bounds_min.x == db.bounds_min.x && da.bounds_min.y == db.bounds_min.y &&
	          da.bounds_max.x == db.bounds_max.x && da.bounds_max.y == db.bounds_max.y);
	cr_assert(da.bounds_mode == db.bounds_mode && da.dt == db.dt && da.seed == db.seed &&
	          da.cell_size == db.cell_size && da.capacity == db.capacity);
	cr_assert_eq(throng_world_archetype_count(a), throng_world_archetype_count(b));
	for (uint32_t k = 0; k < throng_world_archetype_count(a); ++k) {
		throng_controller ca, cb;
		cr_assert_eq(throng_world_get_controller(a, k, &ca), THRONG_OK);
		cr_assert_eq(throng_world_get_controller(b, k, &cb), THRONG_OK);
		assert_same_controller(&ca, &cb, k);
	}
	cr_assert_eq(throng_world_obstacle_count(a), throng_world_obstacle_count(b));
	for (uint32_t k = 0; k < throng_world_obstacle_count(a); ++k) {
		throng_vec2 c1, c2;
		float r1, r2;
		throng_world_get_obstacle(a, k, &c1, &r1);
		throng_world_get_obstacle(b, k, &c2, &r2);
		cr_assert(c1.x == c2.x && c1.y == c2.y && r1 == r2, "obstacle %u", k);
	}
	cr_assert_eq(throng_world_wall_count(a), throng_world_wall_count(b));
	for (uint32_t k = 0; k < throng_world_wall_count(a); ++k) {
		throng_vec2 a1, b1, a2, b2;
		throng_world_get_wall(a, k, &a1, &b1);
		throng_world_get_wall(b, k, &a2, &b2);
		cr_assert(a1.x == a2.x && a1.y == a2.y && b1.x == b2.x && b1.y == b2.y, "wall %u", k);
	}
	cr_assert_eq(throng_world_path_count(a), throng_world_path_count(b));
	cr_assert_eq(throng_world_agent_count(a), throng_world_agent_count(b));
	for (uint32_t id = 0; id < throng_world_agent_count(a); ++id) {
		throng_agent_state x, y;
		throng_world_get_agent(a, id, &x);
		throng_world_get_agent(b, id, &y);
		cr_assert(memcmp(&x.position, &y.position, sizeof x.position) == 0 &&
		                  memcmp(&x.velocity, &y.velocity, sizeof x.velocity) == 0 &&
		                  memcmp(&x.heading, &y.heading, sizeof x.heading) == 0 &&
		                  memcmp(&x.target, &y.target, sizeof x.target) == 0,
		          "agent %u", id);
		cr_assert(x.max_speed == y.max_speed && x.max_force == y.max_force && x.radius == y.radius &&
		                  x.archetype == y.archetype && x.group == y.group && x.path == y.path &&
		                  x.target_agent == y.target_agent,
		          "agent %u", id);
	}
	cr_assert_eq(throng_world_hash(a), throng_world_hash(b));
}

// ---------------------------------------------------------------------------
// The example files
// ---------------------------------------------------------------------------

Test(examples, validate_load_and_run_in_both_engines, .timeout = 120)
{
	char names[16][1024];
	int n = list_examples(names, 16);
	cr_assert_geq(n, 3, "expected at least herd, circle and field in examples/");
	for (int k = 0; k < n; ++k) {
		thr_test_messages d = {.len = 0};
		uint32_t problems = 99;
		cr_assert_eq(throng_scenario_validate_file(names[k], thr_test_collect, &d, &problems), THRONG_OK, "%s:\n%s", names[k],
		             d.text);
		cr_assert_eq(problems, 0u);
		uint64_t hash[2];
		const throng_engine engines[2] = {THRONG_ENGINE_SIMD, THRONG_ENGINE_SCALAR};
		for (int e = 0; e < 2; ++e) {
			throng_scene* s = load_path(names[k], engines[e]);
			cr_assert_gt(throng_world_agent_count(throng_scene_world(s)), 0u);
			hash[e] = run_hash(s, 3);
			throng_world_stats st = throng_world_get_stats(throng_scene_world(s));
			cr_assert_eq(st.nonfinite, 0u, "%s", names[k]);
			throng_scene_destroy(s);
		}
		cr_assert_eq(hash[0], hash[1], "%s: the engines disagree after 3 steps", names[k]);
	}
}

/// A file and the built-in it describes: the same hash, step after step.
static void assert_matches_builtin(const char* file, const char* builtin, uint32_t agents, throng_engine engine,
                                   int steps)
{
	char path[2048], dir[1024];
	examples_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	throng_scene* a = load_path(path, engine);
	throng_scene_def o = throng_scene_default_def();
	o.engine = engine;
	o.threads = 2;
	o.agents = agents;
	throng_scene* b = NULL;
	cr_assert_eq(throng_scene_create(builtin, &o, &b), THRONG_OK, "%s", throng_last_error());
	assert_same_world(throng_scene_world(a), throng_scene_world(b));
	cr_assert_eq(throng_scene_info(a)->default_steps, throng_scene_info(b)->default_steps);
	cr_assert_eq(throng_scene_goal_radius(a), throng_scene_goal_radius(b));
	for (int k = 1; k <= steps; ++k) {
		cr_assert_eq(throng_scene_step(a), THRONG_OK);
		cr_assert_eq(throng_scene_step(b), THRONG_OK);
		cr_assert_eq(throng_world_hash(throng_scene_world(a)), throng_world_hash(throng_scene_world(b)),
		             "%s and %s differ at step %d", file, builtin, k);
	}
	throng_scene_destroy(a);
	throng_scene_destroy(b);
}

Test(examples, herd_is_the_builtin_herd)
{
	// Past t = 21.3 s (step 1280): the threat has appeared, crossed and gone.
	assert_matches_builtin("herd.yaml", "herd", 0, THRONG_ENGINE_SCALAR, 1300);
}

// circle.yaml and field.yaml hold 1,000 agents (examples/make_examples.sh).
Test(examples, circle_is_the_builtin_circle, .timeout = 60)
{
	assert_matches_builtin("circle.yaml", "circle", 1000, THRONG_ENGINE_SIMD, 5);
}

Test(examples, field_is_the_builtin_field, .timeout = 60)
{
	assert_matches_builtin("field.yaml", "field", 1000, THRONG_ENGINE_SIMD, 5);
}

// ---------------------------------------------------------------------------
// Round trip
// ---------------------------------------------------------------------------

/// Load, save, load: the same world; save again: the same text.
static void assert_round_trip(throng_scene* a, const char* what)
{
	char* text = NULL;
	size_t len = 0;
	cr_assert_eq(throng_scene_save_string(a, &text, &len), THRONG_OK, "%s: %s", what, throng_last_error());
	cr_assert_eq(strlen(text), len);
	throng_scene_def o = throng_scene_default_def();
	o.threads = 2;
	o.engine = throng_world_get_def(throng_scene_world(a)).engine;
	thr_test_messages d = {.len = 0};
	throng_scene* b = NULL;
	cr_assert_eq(throng_scene_load_memory("saved.yaml", text, len, &o, thr_test_collect, &d, &b), THRONG_OK,
	             "%s: the saved text does not load:\n%s\n%s", what, d.text, text);
	assert_same_world(throng_scene_world(a), throng_scene_world(b));
	cr_assert_str_eq(throng_scene_info(a)->name, throng_scene_info(b)->name);
	cr_assert_str_eq(throng_scene_info(a)->description, throng_scene_info(b)->description);
	cr_assert_eq(throng_scene_info(a)->default_steps, throng_scene_info(b)->default_steps);
	cr_assert_eq(throng_scene_goal_radius(a), throng_scene_goal_radius(b));
	cr_assert_eq(run_hash(a, 5), run_hash(b, 5), "%s: the hashes differ after 5 steps", what);
	char* again = NULL;
	cr_assert_eq(throng_scene_save_string(b, &again, NULL), THRONG_OK);
	cr_assert_str_eq(text, again, "%s: saving the loaded save changed the text", what);
	free(text);
	free(again);
	throng_scene_destroy(b);
}

Test(round_trip, every_example, .timeout = 120)
{
	char names[16][1024];
	int n = list_examples(names, 16);
	for (int k = 0; k < n; ++k) {
		throng_scene* a = load_path(names[k], THRONG_ENGINE_SIMD);
		assert_round_trip(a, names[k]);
		throng_scene_destroy(a);
	}
}

/// Every feature of the format at once.
static const char every_feature[] =
	"# every feature of the format\n"
	"version: 1\n"
	"name: everything\n"
	"description: \"all \\\"features\\\" at once\"\n"
	"steps: 50\n"
	"goal_radius: 2\n"
	"world:\n"
	"  bounds: {min: [-40, -30], max: [40, 30], mode: contain}\n"
	"  dt: 0.02\n"
	"  seed: 0x2a\n"
	"  cell_size: 4\n"
	"archetypes:\n"
	"  walker:\n"
	"    mode: hybrid\n"
	"    slots:\n"
	"      - {kind: bounds, priority: true, margin: 2.5}\n"
	"      - {kind: obstacle_avoidance, priority: true, look_ahead: 2}\n"
	"      - {kind: wall_avoidance, priority: true, look_ahead: 2, feeler_angle: 0.5}\n"
	"      - {kind: separation, priority: true, neighbor_radius: 1.2, same_group_only: true}\n"
	"      - {kind: unaligned_avoidance, weight: 0.5, avoid_radius: 0.9, max_prediction: 2}\n"
	"      - {kind: alignment, weight: 0.2}\n"
	"      - {kind: cohesion, weight: 0.1, enabled: false}\n"
	"      - {kind: arrive, target: point, slow_radius: 4}\n"
	"      - {kind: wander_noise, weight: 0.1, noise_frequency: 0.25, noise_amplitude: 1.5}\n"
	"  hunter:\n"
	"    mode: priority\n"
	"    target_rule: {group: prey, sight_radius: 15, every: 5}\n"
	"    slots:\n"
	"      - {kind: pursuit, target: agent, max_prediction: 0.5}\n"
	"      - {kind: wander, weight: 0.3, frame: world, jitter: 4}\n"
	"  prey:\n"
	"    target_rule: {group: hunters, sight_radius: 8, every: 1, enabled: true}\n"
	"    slots:\n"
	"      - {kind: evade, target: agent, evade_radius: 6}\n"
	"      - {kind: flee, target: threat, flee_mode: safe, flee_radius: 5}\n"
	"      - {kind: seek, weight: 0.1}\n"
	"  follower:\n"
	"    mode: weighted\n"
	"    slots:\n"
	"      - {kind: path_following, waypoint_radius: 1.5, slow_radius: 3}\n"
	"groups:\n"
	"  walkers:\n"
	"    count: 12\n"
	"    archetype: walker\n"
	"    spawn: {shape: ring, center: [0, 0], radius: 10, angle: 0.3}\n"
	"    heading: goal\n"
	"    speed: 0.5\n"
	"    goal: antipodal\n"
	"  prey:\n"
	"    count: 9\n"
	"    archetype: prey\n"
	"    id: 7\n"
	"    spawn: {shape: grid, center: [20, 10], spacing: [1.5, 1], columns: 4}\n"
	"    max_speed: 1.8\n"
	"    radius: 0.25\n"
	"    goal: {random: {min: [10, 0], max: [30, 20]}}\n"
	"  hunters:\n"
	"    count: 3\n"
	"    archetype: hunter\n"
	"    id: 8\n"
	"    spawn: {shape: line, from: [-30, -20], to: [-30, 20]}\n"
	"    max_speed: 2.2\n"
	"    max_force: 5\n"
	"    heading: [1, 1]\n"
	"    speed: 1\n"
	"  strollers:\n"
	"    count: 5\n"
	"    archetype: follower\n"
	"    spawn: {shape: disc, center: [-20, -10], radius: 3}\n"
	"    heading: outward\n"
	"    speed: 0.2\n"
	"    path: {waypoints: [[-20, 10], [0, 20], [20, -20]], loop: true}\n"
	"  squares:\n"
	"    count: 4\n"
	"    archetype: follower\n"
	"    spawn: {shape: rectangle, center: [0, -20], size: [6, 4]}\n"
	"    heading: random\n"
	"    speed: 0.1\n"
	"    path: [[0, 0]]\n"
	"  queue:\n"
	"    count: 6\n"
	"    archetype: follower\n"
	"    spawn: {shape: grid, center: [-10, 20], spacing: [1.2, 1], columns: 3, jitter: 0.2}\n"
	"    goal: {offset: [5, -2]}\n"
	"    path: {waypoints: [[-5, 15], [0, 15]], end_at_goal: true}\n"
	"obstacles:\n"
	"  - {center: [5, 5], radius: 1}\n"
	"  - {center: [-5, 5], radius: 0.5}\n"
	"walls:\n"
	"  - [[-35, 25], [35, 25]]\n"
	"  - {points: [[-10, -25], [-5, -28], [5, -28]]}\n"
	"  - {points: [[30, -10], [35, -10], [35, -5]], closed: true}\n"
	"threat:\n"
	"  path: [[-40, 0], [40, 0], [0, 25]]\n"
	"  loop: true\n"
	"  speed: 4\n"
	"  start: 0.1\n";

Test(round_trip, every_feature_in_both_engines)
{
	uint64_t hash[2];
	const throng_engine engines[2] = {THRONG_ENGINE_SIMD, THRONG_ENGINE_SCALAR};
	for (int e = 0; e < 2; ++e) {
		throng_scene* a = load_text(every_feature, engines[e]);
		throng_world* w = throng_scene_world(a);
		cr_assert_eq(throng_world_agent_count(w), 39u);
		cr_assert_eq(throng_world_archetype_count(w), 4u);
		cr_assert_eq(throng_world_obstacle_count(w), 2u);
		cr_assert_eq(throng_world_wall_count(w), 1u + 2u + 3u); // a segment, an open and a closed polyline
		cr_assert_eq(throng_world_path_count(w), 2u + 6u); // two shared, one per queueing agent
		cr_assert_eq(throng_world_get_def(w).seed, 42u);
		cr_assert_str_eq(throng_scene_info(a)->description, "all \"features\" at once");
		assert_round_trip(a, "every feature");
		hash[e] = run_hash(a, 40);
		throng_scene_destroy(a);
	}
	cr_assert_eq(hash[0], hash[1], "the engines disagree on every feature after 45 steps");
}

/// The relaxation mode's tau and the headway's time gap: read, written by
/// `throng save` where they are read (relaxation_time elsewhere only when
/// not the default, so files of the other modes keep their bytes).
static const char relaxation_file[] =
	"version: 1\n"
	"name: relaxed\n"
	"world:\n"
	"  bounds: {min: [-20, -20], max: [20, 20], mode: contain}\n"
	"archetypes:\n"
	"  ped:\n"
	"    mode: relaxation\n"
	"    relaxation_time: 0.4\n"
	"    slots:\n"
	"      - {kind: seek}\n"
	"      - {kind: separation, priority: true, neighbor_radius: 1}\n"
	"      - {kind: headway, neighbor_radius: 4, time_gap: 0.8}\n"
	"  odd:\n"
	"    relaxation_time: 0.7\n"
	"    slots: [{kind: seek}]\n"
	"  plain:\n"
	"    slots: [{kind: seek}]\n"
	"  tau_default:\n"
	"    mode: relaxation\n"
	"    slots: [{kind: seek}, {kind: headway}]\n"
	"groups:\n"
	"  a: {count: 10, archetype: ped, spawn: {shape: disc, center: [0, 0], radius: 5}, goal: antipodal}\n"
	"  b: {count: 3, archetype: odd, spawn: {shape: disc, center: [10, 10], radius: 2}}\n"
	"  c: {count: 3, archetype: plain, spawn: {shape: disc, center: [-10, 10], radius: 2}}\n"
	"  d: {count: 3, archetype: tau_default, spawn: {shape: disc, center: [10, -10], radius: 2}}\n";

/// The number of times `needle` occurs in `text`.
static int occurrences(const char* text, const char* needle)
{
	int n = 0;
	for (const char* at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle)) {
		++n;
	}
	return n;
}

Test(round_trip, relaxation_time_and_time_gap)
{
	throng_scene* a = load_text(relaxation_file, THRONG_ENGINE_SIMD);
	const throng_world* w = throng_scene_world(a);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(w, 0, &c), THRONG_OK);
	cr_expect_eq(c.mode, THRONG_BLEND_RELAXATION);
	cr_expect_eq(c.relaxation_time, 0.4f);
	cr_expect_eq(c.slots[2].kind, THRONG_HEADWAY);
	cr_expect_eq(c.slots[2].params.time_gap, 0.8f);
	cr_expect_eq(c.slots[2].params.neighbor_radius, 4.0f);
	cr_assert_eq(throng_world_get_controller(w, 1, &c), THRONG_OK);
	cr_expect_eq(c.mode, THRONG_BLEND_WEIGHTED);
	cr_expect_eq(c.relaxation_time, 0.7f);
	cr_assert_eq(throng_world_get_controller(w, 3, &c), THRONG_OK);
	cr_expect_eq(c.relaxation_time, 0.5f);
	cr_expect_eq(c.slots[1].params.time_gap, 1.0f);
	char* text = NULL;
	cr_assert_eq(throng_scene_save_string(a, &text, NULL), THRONG_OK, "%s", throng_last_error());
	cr_expect_eq(occurrences(text, "relaxation_time:"), 3, "ped, odd and tau_default, not plain:\n%s", text);
	cr_expect_eq(occurrences(text, "relaxation_time: 0.4\n"), 1, "%s", text);
	cr_expect_eq(occurrences(text, "relaxation_time: 0.7\n"), 1, "%s", text);
	cr_expect_eq(occurrences(text, "relaxation_time: 0.5\n"), 1, "%s", text);
	cr_expect_eq(occurrences(text, "time_gap:"), 2, "%s", text);
	cr_expect_eq(occurrences(text, "time_gap: 0.8"), 1, "%s", text);
	free(text);
	assert_round_trip(a, "relaxation");
	throng_scene_destroy(a);
	// Out of range, the message names the key.
	char bad[sizeof relaxation_file + 8];
	snprintf(bad, sizeof bad, "%s", relaxation_file);
	memcpy(strstr(bad, "0.4\n"), "-.4\n", 4);
	thr_test_messages d = {.len = 0};
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_memory("bad.yaml", bad, strlen(bad), thr_test_collect, &d, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(problems, 1u);
	cr_expect(strstr(d.text, "archetypes.ped.relaxation_time") != NULL, "%s", d.text);
}

// ---------------------------------------------------------------------------
// Features, worked by hand
// ---------------------------------------------------------------------------

static throng_agent_state agent(throng_scene* s, uint32_t id)
{
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(throng_scene_world(s), id, &a), THRONG_OK);
	return a;
}

Test(features, line_grid_and_ring_positions)
{
	throng_scene* s = load_text("archetypes: {a: {slots: [{kind: seek}]}}\n"
	                            "groups:\n"
	                            "  line: {count: 5, archetype: a, spawn: {shape: line, from: [0, 0], to: [4, 2]}}\n"
	                            "  grid: {count: 5, archetype: a, spawn: {shape: grid, center: [10, 10], spacing: [2, 1], "
	                            "columns: 2}}\n"
	                            "  ring: {count: 4, archetype: a, spawn: {shape: ring, center: [-10, 0], radius: 2},\n"
	                            "         heading: inward, goal: antipodal}\n",
	                            THRONG_ENGINE_SCALAR);
	// Line: both ends included, evenly spaced: t = i/4.
	for (uint32_t i = 0; i < 5; ++i) {
		throng_agent_state a = agent(s, i);
		cr_assert_float_eq(a.position.x, (float)i, 1e-6f);
		cr_assert_float_eq(a.position.y, 0.5f * (float)i, 1e-6f);
		cr_assert_eq(a.group, 0u);
	}
	// Grid: 2 columns, 3 rows centred on (10, 10): columns at 10 -/+ 1,
	// rows at 10 - 1, 10, 10 + 1; filled row by row.
	const float gx[5] = {9, 11, 9, 11, 9}, gy[5] = {9, 9, 10, 10, 11};
	for (uint32_t i = 0; i < 5; ++i) {
		throng_agent_state a = agent(s, 5 + i);
		cr_assert_float_eq(a.position.x, gx[i], 1e-6f, "grid agent %u", i);
		cr_assert_float_eq(a.position.y, gy[i], 1e-6f, "grid agent %u", i);
		cr_assert_eq(a.group, 1u); // the group's index by default
	}
	// Ring: quarter turns from angle 0; facing the centre; the goal is the
	// opposite point.
	const float rx[4] = {-8, -10, -12, -10}, ry[4] = {0, 2, 0, -2};
	for (uint32_t i = 0; i < 4; ++i) {
		throng_agent_state a = agent(s, 10 + i);
		cr_assert_float_eq(a.position.x, rx[i], 1e-5f, "ring agent %u", i);
		cr_assert_float_eq(a.position.y, ry[i], 1e-5f, "ring agent %u", i);
		cr_assert_float_eq(a.target.x, rx[(i + 2) % 4], 1e-5f);
		cr_assert_float_eq(a.target.y, ry[(i + 2) % 4], 1e-5f);
		cr_assert_float_eq(a.heading.x, (-10.0f - rx[i]) / 2.0f, 1e-5f);
		cr_assert_float_eq(a.heading.y, -ry[i] / 2.0f, 1e-5f);
		cr_assert_eq(a.velocity.x, 0.0f);
	}
	throng_scene_destroy(s);
}

Test(features, random_shapes_limits_heading_speed_and_ids)
{
	throng_scene* s = load_text("archetypes: {a: {slots: [{kind: seek}]}, b: {slots: []}}\n"
	                            "groups:\n"
	                            "  disc: {count: 50, archetype: b, id: 9, spawn: {shape: disc, center: [5, -5], radius: 3},\n"
	                            "         max_speed: 2, max_force: 6, radius: 0.5, heading: [0, -3], speed: 1.5,\n"
	                            "         goal: [1, 2]}\n"
	                            "  box: {count: 50, archetype: a, spawn: {shape: rectangle, center: [-5, 5], size: [4, 2]},\n"
	                            "        heading: random, speed: 1}\n",
	                            THRONG_ENGINE_SIMD);
	for (uint32_t i = 0; i < 50; ++i) {
		throng_agent_state a = agent(s, i);
		float dx = a.position.x - 5.0f, dy = a.position.y + 5.0f;
		cr_assert_leq(dx * dx + dy * dy, 9.0f * (1.0f + 1e-6f), "disc agent %u outside", i);
		cr_assert_eq(a.archetype, 1u);
		cr_assert_eq(a.group, 9u);
		cr_assert(a.max_speed == 2.0f && a.max_force == 6.0f && a.radius == 0.5f);
		cr_assert(a.heading.x == 0.0f && a.heading.y == -1.0f); // normalised
		cr_assert(a.velocity.x == 0.0f && a.velocity.y == -1.5f);
		cr_assert(a.target.x == 1.0f && a.target.y == 2.0f);
		throng_agent_state b = agent(s, 50 + i);
		cr_assert(b.position.x >= -7.0f && b.position.x < -3.0f && b.position.y >= 4.0f && b.position.y < 6.0f,
		          "box agent %u outside", i);
		cr_assert_float_eq(sqrtf(b.heading.x * b.heading.x + b.heading.y * b.heading.y), 1.0f, 1e-5f);
		cr_assert_float_eq(b.velocity.x, b.heading.x, 1e-6f);
		cr_assert_eq(b.archetype, 0u);
		cr_assert_eq(b.path, THRONG_NO_PATH);
	}
	throng_scene_destroy(s);
}

// The script runs before each world step with t = (steps taken) * dt, so
// after k calls of throng_scene_step the threat is where the last step saw
// it: at t = (k - 1) * dt.

Test(features, point_threat_appears_at_its_start)
{
	// dt 0.1 s, start 0.5 s: the sixth step (t = 0.5 s) is the first to see it.
	throng_scene* s = load_text("world: {dt: 0.1}\n"
	                            "archetypes: {a: {slots: [{kind: flee, target: threat}]}}\n"
	                            "groups: {g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [0, 0]}}}\n"
	                            "threat: {position: [3, 4], start: 0.5}\n",
	                            THRONG_ENGINE_SCALAR);
	throng_vec2 p;
	for (int k = 0; k < 6; ++k) {
		cr_assert_not(throng_scene_threat(s, &p), "active after %d steps", k);
		throng_scene_step(s);
	}
	cr_assert(throng_scene_threat(s, &p));
	cr_assert(p.x == 3.0f && p.y == 4.0f);
	throng_scene_destroy(s);
}

Test(features, threat_walks_its_path)
{
	// 2 m/s from t = 1 s along (0,0) -> (4,0) -> (4,3): 4 m then 3 m, at
	// the end at t = 4.5 s, gone after. dt 0.25 s.
	throng_scene* s = load_text("world: {dt: 0.25}\n"
	                            "archetypes: {a: {slots: []}}\n"
	                            "groups: {g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [0, 0]}}}\n"
	                            "threat: {path: [[0, 0], [4, 0], [4, 3]], speed: 2, start: 1}\n",
	                            THRONG_ENGINE_SCALAR);
	// (calls, active, x, y) with t = (calls - 1) / 4: t = 0.75 s: not yet;
	// t = 1 s: the start; t = 1.5 s: 1 m along; t = 3 s: 4 m, the corner;
	// t = 3.5 s: 1 m up; t = 4.5 s: the end; t = 4.75 s: past it, gone
	// (left where it would be, 0.5 m past the end).
	const struct {
		int calls;
		bool active;
		float x, y;
	} want[] = {{4, false, 0, 0}, {5, true, 0, 0}, {7, true, 1, 0}, {13, true, 4, 0},
	            {15, true, 4, 1}, {19, true, 4, 3}, {20, false, 4, 3.5f}};
	int at = 0;
	for (size_t w = 0; w < sizeof want / sizeof want[0]; ++w) {
		while (at < want[w].calls) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK);
			++at;
		}
		throng_vec2 p;
		bool active = throng_scene_threat(s, &p);
		cr_assert_eq(active, want[w].active, "after %d steps", at);
		if (w > 0) {
			cr_assert_float_eq(p.x, want[w].x, 1e-5f, "after %d steps", at);
			cr_assert_float_eq(p.y, want[w].y, 1e-5f, "after %d steps", at);
		}
	}
	throng_scene_destroy(s);
}

Test(features, looping_threat_goes_round)
{
	// A 4 x 3 rectangle, 14 m round, at 7 m/s from t = 0, dt 0.5 s: at
	// t = 2 s it has gone round once and is back at the start.
	throng_scene* s = load_text("world: {dt: 0.5}\n"
	                            "archetypes: {a: {slots: []}}\n"
	                            "groups: {g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [0, 0]}}}\n"
	                            "threat: {path: [[0, 0], [4, 0], [4, 3], [0, 3]], loop: true, speed: 7}\n",
	                            THRONG_ENGINE_SCALAR);
	throng_vec2 p;
	run_hash(s, 2); // t = 0.5 s: 3.5 m, on the first side
	cr_assert(throng_scene_threat(s, &p));
	cr_assert_float_eq(p.x, 3.5f, 1e-5f);
	cr_assert_float_eq(p.y, 0.0f, 1e-5f);
	run_hash(s, 1); // t = 1 s: 7 m, 4 along and 3 up: the far corner
	cr_assert(throng_scene_threat(s, &p));
	cr_assert_float_eq(p.x, 4.0f, 1e-5f);
	cr_assert_float_eq(p.y, 3.0f, 1e-5f);
	run_hash(s, 2); // t = 2 s: 14 m, round once
	cr_assert(throng_scene_threat(s, &p));
	cr_assert_float_eq(p.x, 0.0f, 1e-5f);
	cr_assert_float_eq(p.y, 0.0f, 1e-5f);
	throng_scene_destroy(s);
}

Test(features, random_goals_are_drawn_again_on_arrival)
{
	// A goal radius larger than the goal box: every agent arrives at once
	// and draws a new goal inside the box before each step.
	throng_scene* s = load_text("goal_radius: 100\n"
	                            "archetypes: {a: {slots: [{kind: arrive}]}}\n"
	                            "groups: {g: {count: 20, archetype: a, spawn: {shape: disc, radius: 5},\n"
	                            "             goal: {random: {min: [1, 2], max: [3, 5]}}}}\n",
	                            THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_goal_radius(s), 100.0f);
	throng_vec2 first[20];
	for (uint32_t i = 0; i < 20; ++i) {
		first[i] = agent(s, i).target;
		cr_assert(first[i].x >= 1.0f && first[i].x < 3.0f && first[i].y >= 2.0f && first[i].y < 5.0f);
	}
	run_hash(s, 1);
	int changed = 0;
	for (uint32_t i = 0; i < 20; ++i) {
		throng_vec2 t = agent(s, i).target;
		cr_assert(t.x >= 1.0f && t.x < 3.0f && t.y >= 2.0f && t.y < 5.0f);
		changed += t.x != first[i].x || t.y != first[i].y;
	}
	cr_assert_eq(changed, 20);
	throng_scene_destroy(s);
}

Test(features, paths_and_target_rules_reach_the_world)
{
	throng_scene* s = load_text(every_feature, THRONG_ENGINE_SCALAR);
	throng_world* w = throng_scene_world(s);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(w, 1, &c), THRONG_OK); // hunter
	cr_assert(c.target_rule.enabled && c.target_rule.group == 7u && c.target_rule.every == 5u &&
	          c.target_rule.sight_radius == 15.0f);
	cr_assert_eq(throng_world_get_controller(w, 2, &c), THRONG_OK); // prey
	cr_assert(c.target_rule.enabled && c.target_rule.group == 8u && c.target_rule.every == 1u);
	cr_assert_eq(throng_world_get_controller(w, 0, &c), THRONG_OK); // walker: no rule
	cr_assert_not(c.target_rule.enabled);
	cr_assert_eq(agent(s, 24).path, 0u); // the first stroller
	cr_assert_eq(agent(s, 29).path, 1u); // the first square
	cr_assert_eq(agent(s, 0).path, THRONG_NO_PATH);
	// The queue: a grid nudged by at most 0.2 m per axis, goals 5 m east
	// and 2 m south of the start, and a path of its own for each agent.
	for (uint32_t k = 0; k < 6; ++k) {
		throng_agent_state a = agent(s, 33 + k);
		float gx = -10.0f + 1.2f * ((float)(k % 3u) - 1.0f), gy = 20.0f + ((float)(k / 3u) - 0.5f);
		cr_assert(fabsf(a.position.x - gx) <= 0.2f && fabsf(a.position.y - gy) <= 0.2f, "queue agent %u", k);
		cr_assert_float_eq(a.target.x, a.position.x + 5.0f, 1e-5f);
		cr_assert_float_eq(a.target.y, a.position.y - 2.0f, 1e-5f);
		cr_assert_eq(a.path, 2u + k);
	}
	throng_scene_destroy(s);
}

Test(features, defaults)
{
	throng_scene* s = load_text("archetypes: {a: {}}\n"
	                            "groups: {g: {count: 1, archetype: a, spawn: {shape: ring, radius: 1}}}\n",
	                            THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	throng_world_def d = throng_world_get_def(w), lib = throng_world_default_def();
	cr_assert(d.bounds_min.x == lib.bounds_min.x && d.bounds_max.y == lib.bounds_max.y);
	cr_assert_eq(d.bounds_mode, THRONG_BOUNDS_CONTAIN);
	cr_assert_eq(d.dt, 1.0f / 60.0f);
	cr_assert_eq(d.seed, 1u);
	cr_assert_eq(d.cell_size, 0.0f);
	cr_assert_str_eq(throng_scene_info(s)->name, "test"); // from the file name
	cr_assert_eq(throng_scene_info(s)->default_steps, 600u);
	cr_assert_eq(throng_scene_info(s)->default_agents, 1u);
	cr_assert_eq(throng_scene_goal_radius(s), 0.0f); // no goals
	throng_controller c;
	throng_world_get_controller(w, 0, &c);
	cr_assert_eq(c.mode, THRONG_BLEND_WEIGHTED);
	cr_assert_eq(c.slot_count, 0u);
	throng_agent_state a = agent(s, 0), lib_a;
	throng_agent_def ad = throng_agent_default_def();
	(void)lib_a;
	cr_assert(a.max_speed == ad.max_speed && a.max_force == ad.max_force && a.radius == ad.radius);
	cr_assert(a.target.x == 0.0f && a.target.y == 0.0f);
	throng_vec2 p;
	cr_assert_not(throng_scene_threat(s, &p));
	throng_scene_destroy(s);
}

Test(features, json_is_read_as_flow_yaml)
{
	// The every_feature scene's first group, in JSON.
	throng_scene* s = load_text("{\"world\": {\"bounds\": {\"min\": [-40, -30], \"max\": [40, 30]}, \"seed\": 42},\n"
	                            " \"archetypes\": {\"walker\": {\"mode\": \"hybrid\", \"slots\": [\n"
	                            "   {\"kind\": \"separation\", \"priority\": true, \"neighbor_radius\": 1.2},\n"
	                            "   {\"kind\": \"arrive\", \"target\": \"point\", \"slow_radius\": 4}]}},\n"
	                            " \"groups\": {\"walkers\": {\"count\": 12, \"archetype\": \"walker\",\n"
	                            "   \"spawn\": {\"shape\": \"ring\", \"radius\": 10}, \"goal\": \"antipodal\"}}}\n",
	                            THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_agent_count(w), 12u);
	cr_assert_eq(throng_world_get_def(w).seed, 42u);
	throng_controller c;
	throng_world_get_controller(w, 0, &c);
	cr_assert(c.mode == THRONG_BLEND_HYBRID && c.slot_count == 2u && c.slots[0].params.neighbor_radius == 1.2f);
	cr_assert_float_eq(agent(s, 0).target.x, -10.0f, 1e-5f);
	throng_scene_destroy(s);
}

Test(features, options)
{
	const char* text = "archetypes: {a: {slots: [{kind: wander}]}}\n"
	                   "groups: {g: {count: 10, archetype: a, spawn: {shape: disc, radius: 5}}}\n";
	throng_scene_def o = throng_scene_default_def();
	throng_scene *a = NULL, *b = NULL;
	cr_assert_eq(throng_scene_load_memory("x.yaml", text, strlen(text), NULL, NULL, NULL, &a), THRONG_OK);
	o.seed = 7; // not the default 1: replaces the file's seed
	cr_assert_eq(throng_scene_load_memory("x.yaml", text, strlen(text), &o, NULL, NULL, &b), THRONG_OK);
	cr_assert_eq(throng_world_get_def(throng_scene_world(b)).seed, 7u);
	cr_assert_neq(run_hash(a, 2), run_hash(b, 2));
	throng_scene_destroy(a);
	throng_scene_destroy(b);
	// Without a usable file name the default name is still a valid one, so
	// that the scene saves and loads again.
	throng_scene* named = NULL;
	cr_assert_eq(throng_scene_load_memory("dir/my scene (2).yaml", text, strlen(text), NULL, NULL, NULL, &named),
	             THRONG_OK);
	cr_assert_str_eq(throng_scene_info(named)->name, "my_scene__2_");
	assert_round_trip(named, "a renamed scene");
	throng_scene_destroy(named);
	cr_assert_eq(throng_scene_load_memory(NULL, text, strlen(text), NULL, NULL, NULL, &named), THRONG_OK);
	cr_assert_str_eq(throng_scene_info(named)->name, "_memory_");
	throng_scene_destroy(named);
	// A file sets its own counts.
	o = throng_scene_default_def();
	o.agents = 5;
	throng_scene* c = (throng_scene*)&o; // must come back NULL
	cr_assert_eq(throng_scene_load_memory("x.yaml", text, strlen(text), &o, NULL, NULL, &c), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(c);
	cr_assert(strstr(throng_last_error(), "options.agents must be 0") != NULL, "%s", throng_last_error());
	// Built-in scenes save too, as version 2 rows (tests/test_scene_save.c
	// runs them).
	throng_scene* builtin = NULL;
	cr_assert_eq(throng_scene_create("herd", NULL, &builtin), THRONG_OK);
	char* saved = NULL;
	cr_assert_eq(throng_scene_save_string(builtin, &saved, NULL), THRONG_OK);
	cr_assert_not_null(strstr(saved, "version: 2\n"));
	cr_assert_not_null(strstr(saved, "threat: {line: {from: [-26, 0]"), "%s", saved);
	free(saved);
	saved = NULL;
	throng_scene_destroy(builtin);
	cr_assert_eq(throng_scene_save_string(NULL, &saved, NULL), THRONG_ERR_INVALID_ARGUMENT);
}

Test(files, load_save_and_errors_name_the_file)
{
	char path[] = "/tmp/throng_scenario_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	const char* bad = "archetypes: {a: {slots: [{kind: seek, weight: .nan}]}}\n"
	                  "groups: {g: {count: 0, archetype: a, spawn: {shape: ring, radius: 1}}}\n";
	cr_assert_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	thr_test_messages d = {.len = 0};
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_file_report(path, NULL, thr_test_collect, &d, &s), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
	char want[1024];
	snprintf(want, sizeof want,
	         "%s:1:47: archetypes.a.slots[0].weight: got .nan, not a finite number (expected a number >= 0 and "
	         "<= 1e6)\n"
	         "%s:2:21: groups.g.count: got 0, an empty group (expected a whole number from 1 to 10000000)\n",
	         path, path);
	cr_assert_str_eq(d.text, want);
	// throng_last_error: the first problem and how many more.
	cr_assert(strncmp(throng_last_error(), want, strlen(path) + 5) == 0, "%s", throng_last_error());
	cr_assert(strstr(throng_last_error(), "(and 1 more problem)") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_scene_load_file(path, NULL, &s), THRONG_ERR_INVALID_ARGUMENT);
	// Saving to a file writes what save_string gives.
	const char* good = "archetypes: {a: {slots: [{kind: seek}]}}\n"
	                   "groups: {g: {count: 2, archetype: a, spawn: {shape: ring, radius: 1}}}\n";
	throng_scene* g = load_text(good, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_save_file(g, path), THRONG_OK, "%s", throng_last_error());
	throng_scene* back = load_path(path, THRONG_ENGINE_SIMD);
	assert_same_world(throng_scene_world(g), throng_scene_world(back));
	throng_scene_destroy(g);
	throng_scene_destroy(back);
	unlink(path);
	// A missing file: an I/O error, reported without a position.
	d.len = 0;
	d.text[0] = '\0';
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_file("/nonexistent/x.yaml", thr_test_collect, &d, &problems), THRONG_ERR_IO);
	cr_assert_eq(problems, 1u);
	cr_assert_str_eq(d.text, "/nonexistent/x.yaml: document: cannot open the file: No such file or directory "
	                         "(expected a readable file)\n");
	cr_assert_eq(throng_scene_load_file("/nonexistent/x.yaml", NULL, &s), THRONG_ERR_IO);
}

Test(files, at_most_100_problems_are_reported)
{
	char text[8192];
	size_t len = 0;
	for (int k = 0; k < 150; ++k) {
		len += (size_t)snprintf(text + len, sizeof text - len, "key%d: 1\n", k);
	}
	thr_test_messages d = {.len = 0};
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_memory("many.yaml", text, len, thr_test_collect, &d, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(problems, 152u); // 150 unknown keys, no archetypes, no groups
	cr_assert_eq(d.count, 101u);
	cr_assert(strstr(d.text, "many.yaml: document: 52 more problems not reported (expected at most 100 reported "
	                         "per file)\n") != NULL,
	          "%s", d.text + (d.len > 300 ? d.len - 300 : 0));
}

// ---------------------------------------------------------------------------
// Malformed files: the exact messages
// ---------------------------------------------------------------------------

/// tests/data/bad/NAME.yaml (or .json) holds a malformed file, NAME.expected
/// every message it gives, in file order, after an SPDX line: exactly what
/// `cd tests/data/bad && throng validate NAME.yaml` prints on stderr.
static void data_dir(char* buf, size_t cap)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	size_t len = slash != NULL ? (size_t)(slash - file) : 0;
	snprintf(buf, cap, "%.*s%sdata/bad", (int)len, file, len > 0 ? "/" : "");
}

/// Reads a whole file into a malloc'd, NUL-terminated buffer.
static char* slurp(const char* path, size_t* len)
{
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	char* buf = malloc(1 << 16);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/// Checks one malformed file against its expected messages.
static void check_bad(const char* name, const char* text, size_t len, const char* expected)
{
	thr_test_messages d = {.len = 0};
	uint32_t problems = 0;
	throng_status st = throng_scenario_validate_memory(name, text, len, thr_test_collect, &d, &problems);
	cr_assert_eq(st, THRONG_ERR_INVALID_ARGUMENT, "%s: validates", name);
	cr_assert_str_eq(d.text, expected, "%s", name);
	cr_assert_eq(problems, d.count, "%s", name);
	// The loader refuses it the same way and builds nothing.
	throng_scene* s = NULL;
	st = throng_scene_load_memory(name, text, len, NULL, NULL, NULL, &s);
	cr_assert_eq(st, THRONG_ERR_INVALID_ARGUMENT, "%s: loads", name);
	cr_assert_null(s);
	const char* nl = strchr(expected, '\n');
	cr_assert(strncmp(throng_last_error(), expected, (size_t)(nl - expected)) == 0, "%s: %s", name,
	          throng_last_error());
}

Test(malformed, each_file_gives_its_exact_messages)
{
	char dir[1024];
	data_dir(dir, sizeof dir);
	DIR* dp = opendir(dir);
	cr_assert_not_null(dp, "cannot open %s", dir);
	int checked = 0;
	struct dirent* e;
	while ((e = readdir(dp)) != NULL) {
		const char* dot = strrchr(e->d_name, '.');
		if (dot == NULL || (strcmp(dot, ".yaml") != 0 && strcmp(dot, ".json") != 0)) {
			continue;
		}
		char path[2048], want_path[2048];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		snprintf(want_path, sizeof want_path, "%s/%.*s.expected", dir, (int)(dot - e->d_name), e->d_name);
		size_t len, want_len;
		char* text = slurp(path, &len);
		char* want = slurp(want_path, &want_len);
		const char* body = strchr(want, '\n'); // after the SPDX line
		cr_assert(strncmp(want, "# SPDX", 6) == 0 && body != NULL, "%s", want_path);
		check_bad(e->d_name, text, len, body + 1);
		free(text);
		free(want);
		checked++;
	}
	closedir(dp);
	cr_assert_geq(checked, 30);
}

Test(malformed, empty_input)
{
	check_bad("empty.yaml", "", 0,
	          "empty.yaml:1:1: document: the file holds no scene (expected a mapping with archetypes and groups)\n");
	check_bad("blank.yaml", "\n\n   \n", 6,
	          "blank.yaml:1:1: document: the file holds no scene (expected a mapping with archetypes and groups)\n");
}

// ---------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------

Test(cli, validate_and_run_files)
{
	cr_assert(strlen(THRONG_CLI_PATH) > 0, "the throng_cli target is not built");
	char dir[1024], cmd[4096], out[8192], err[8192];
	examples_dir(dir, sizeof dir);
	snprintf(cmd, sizeof cmd, "'%s' validate '%s/herd.yaml' '%s/circle.yaml'", THRONG_CLI_PATH, dir, dir);
	cr_assert_eq(thr_test_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
	cr_assert(strstr(out, "herd.yaml: valid\n") != NULL && strstr(out, "circle.yaml: valid\n") != NULL, "%s", out);

	char path[] = "/tmp/throng_cli_bad_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	const char* bad = "groups: {g: {count: 1, archetype: nobody, spawn: {shape: ring, radius: 1}}}\nwrold: 1\n";
	cr_assert_eq(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	char want[2048];
	snprintf(want, sizeof want,
	         "%s:1:1: archetypes: missing (expected a mapping from archetype names to archetypes)\n"
	         "%s:1:35: groups.g.archetype: unknown archetype \"nobody\" (expected an archetype defined under "
	         "archetypes)\n"
	         "%s:2:1: wrold: unknown key, did you mean world? (expected one of: version, name, description, steps, "
	         "goal_radius, measure, world, archetypes, groups, obstacles, walls, threat, paths, agents, measurements, zones, sources)\n",
	         path, path, path);
	snprintf(cmd, sizeof cmd, "'%s' validate '%s'", THRONG_CLI_PATH, path);
	cr_assert_eq(thr_test_run(cmd, out, sizeof out, err, sizeof err), 3);
	cr_assert_str_eq(err, want);
	cr_assert_str_eq(out, "");
	// run refuses it the same way, before simulating anything.
	snprintf(cmd, sizeof cmd, "'%s' run '%s' --steps 5", THRONG_CLI_PATH, path);
	cr_assert_eq(thr_test_run(cmd, out, sizeof out, err, sizeof err), 3);
	cr_assert_str_eq(err, want);
	cr_assert_str_eq(out, "");
	unlink(path);

	// A good file runs, named by its `name`, both engines giving one hash.
	char hash[2][64];
	const char* engines[2] = {throng_engine_name(THRONG_ENGINE_SIMD), throng_engine_name(THRONG_ENGINE_SCALAR)};
	for (int e = 0; e < 2; ++e) {
		snprintf(cmd, sizeof cmd, "'%s' run '%s/herd.yaml' --steps 30 --engine %s --threads 2", THRONG_CLI_PATH, dir,
		         engines[e]);
		cr_assert_eq(thr_test_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
		cr_assert(strstr(out, "herd") != NULL, "%s", out);
		const char* h = strstr(out, "hash:");
		cr_assert_not_null(h, "%s", out);
		snprintf(hash[e], sizeof hash[e], "%.40s", h);
	}
	cr_assert_str_eq(hash[0], hash[1]);
	// A missing file: exit 3 (an input) and the reason.
	snprintf(cmd, sizeof cmd, "'%s' run ./no/such.yaml", THRONG_CLI_PATH);
	cr_assert_eq(thr_test_run(cmd, out, sizeof out, err, sizeof err), 3);
	cr_assert(strstr(err, "./no/such.yaml: document: cannot open the file") != NULL, "%s", err);
}

// Issue 11: a group path that no slot of its archetype follows changes
// nothing. It is a warning: reported with its position, and the file loads.
Test(files, path_no_slot_follows_is_a_warning)
{
	const char* text = "archetypes:\n"
	                   "  a:\n"
	                   "    slots:\n"
	                   "      - {kind: seek}\n"
	                   "groups:\n"
	                   "  g:\n"
	                   "    count: 2\n"
	                   "    archetype: a\n"
	                   "    spawn: {shape: line, from: [0, 0], to: [1, 0]}\n"
	                   "    path: [[3, 3], [4, 4]]\n";
	const char* want = "w.yaml:10:11: warning: groups.g.path: archetype a has no path_following slot, so no agent "
	                   "follows this path (expected a path_following slot in archetype a, or no path)\n";
	thr_test_messages d = {.len = 0};
	uint32_t problems = 7;
	cr_assert_eq(throng_scenario_validate_memory("w.yaml", text, strlen(text), thr_test_collect, &d, &problems), THRONG_OK,
	             "%s", d.text);
	cr_assert_str_eq(d.text, want);
	cr_assert_eq(problems, 0u);
	d.len = 0;
	d.text[0] = '\0';
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("w.yaml", text, strlen(text), NULL, thr_test_collect, &d, &s), THRONG_OK, "%s",
	             throng_last_error());
	cr_assert_str_eq(d.text, want);
	throng_scene_destroy(s);
	// With a problem as well, the message of the failed load is the problem's.
	char bad[1024];
	snprintf(bad, sizeof bad, "%s    radius: -1\n", text);
	cr_assert_eq(throng_scene_load_memory("w.yaml", bad, strlen(bad), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strncmp(throng_last_error(), "w.yaml:11:13: groups.g.radius: got -1", 37) == 0, "%s",
	          throng_last_error());
}

/// A scene with `n` obstacles (when walls is false) or one polyline of n
/// points along y = 0, 1 m apart; malloc'd.
static char* many_shapes(uint32_t n, bool walls, size_t* len)
{
	size_t cap = (size_t)n * 48u + 512u;
	char* t = malloc(cap);
	cr_assert_not_null(t);
	size_t at = (size_t)snprintf(t, cap,
	                             "world: {bounds: {min: [-1000, -1000], max: [1000, 1000]}}\n"
	                             "archetypes: {a: {slots: [{kind: seek}]}}\n"
	                             "groups: {g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}}\n"
	                             "%s",
	                             walls ? "walls:\n  - points:\n" : "obstacles:\n");
	for (uint32_t k = 0; k < n; ++k) {
		if (walls) {
			at += (size_t)snprintf(t + at, cap - at, "    - [%u, 0]\n", k);
		} else {
			at += (size_t)snprintf(t + at, cap - at, "  - {center: [%u, %u], radius: 0.5}\n", k % 1000u, k / 1000u);
		}
	}
	*len = at;
	return t;
}

// Issue 11 item 16: docs/SCENARIOS.md promised 1,000,000 obstacles and
// wall segments while the 2,000,000-value limit stopped a file near
// 285,000 obstacles. The documented caps are now reachable, and one more
// is refused with the count, not with the value limit.
Test(files, shape_caps_are_reachable, .timeout = 120)
{
	size_t len = 0;
	uint32_t problems = 9;
	char* t = many_shapes(250000, false, &len);
	cr_assert_eq(throng_scenario_validate_memory("o.yaml", t, len, NULL, NULL, &problems), THRONG_OK, "%s",
	             throng_last_error());
	free(t);
	t = many_shapes(250001, false, &len);
	cr_assert_eq(throng_scenario_validate_memory("o.yaml", t, len, NULL, NULL, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_str_eq(throng_last_error(), "o.yaml:5:3: obstacles: got 250001 obstacles (expected at most 250000)");
	free(t);
	// 500,001 points: 500,000 segments.
	t = many_shapes(500001, true, &len);
	cr_assert_eq(throng_scenario_validate_memory("w.yaml", t, len, NULL, NULL, &problems), THRONG_OK, "%s",
	             throng_last_error());
	free(t);
	t = many_shapes(500002, true, &len);
	cr_assert_eq(throng_scenario_validate_memory("w.yaml", t, len, NULL, NULL, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_str_eq(throng_last_error(),
	                 "w.yaml:6:5: walls[0].points: got 500002 points (expected a list of 2 to 500001 points [x, y])");
	free(t);
}

// ---------------------------------------------------------------------------
// The key reference: docs/SCENARIOS.md's generated tables
// ---------------------------------------------------------------------------

/// docs/SCENARIOS.md, found from this file's path.
static void scenarios_doc(char* buf, size_t cap)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	size_t len = slash != NULL ? (size_t)(slash - file) : 0;
	snprintf(buf, cap, "%.*s%sdocs/SCENARIOS.md", (int)len, file, len > 0 ? "/../" : "../");
}

// Each key table's reference (sf_keys_markdown) is what docs/SCENARIOS.md
// holds between its "<!-- keys: NAME -->" and "<!-- end keys -->" lines,
// so the docs say what the reader reads. With THRONG_WRITE_SCENE_KEYS=1
// in the environment the test writes the generated tables into the file
// instead (scripts/scene_keys).
Test(keys, reference_in_the_docs_is_generated_from_the_tables)
{
	char path[4096];
	scenarios_doc(path, sizeof path);
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	size_t cap = 1u << 20;
	char* doc = malloc(cap);
	size_t len = fread(doc, 1, cap - 1, f);
	doc[len] = '\0';
	fclose(f);
	const char* write = getenv("THRONG_WRITE_SCENE_KEYS");
	bool rewrite = write != NULL && strcmp(write, "1") == 0;
	// The file rebuilt with every generated section, for the rewrite.
	char* out = malloc(cap * 2u);
	size_t used = 0;
	const char* at = doc;
	for (uint32_t k = 0; k < sf_doc_table_count; ++k) {
		const sf_table* t = sf_doc_tables[k];
		char open[128];
		snprintf(open, sizeof open, "<!-- keys: %s -->\n", t->name);
		const char* begin = strstr(doc, open);
		cr_assert_not_null(begin, "%s has no line %s", path, open);
		begin += strlen(open);
		const char* end = strstr(begin, "<!-- end keys -->");
		cr_assert_not_null(end, "%s: no <!-- end keys --> after %s", path, open);
		cr_assert(begin >= at, "%s: the sections are not in sf_doc_tables' order", path);
		char* want = sf_keys_markdown(t);
		cr_assert_not_null(want);
		if (!rewrite) {
			cr_expect_eq((size_t)(end - begin), strlen(want),
			             "%s, keys: %s differs from the table; run scripts/scene_keys\nwant:\n%s", path, t->name,
			             want);
			cr_expect(strncmp(begin, want, strlen(want)) == 0,
			          "%s, keys: %s differs from the table; run scripts/scene_keys\nwant:\n%s", path, t->name, want);
		}
		memcpy(out + used, at, (size_t)(begin - at));
		used += (size_t)(begin - at);
		memcpy(out + used, want, strlen(want));
		used += strlen(want);
		at = end;
		free(want);
	}
	memcpy(out + used, at, strlen(at));
	used += strlen(at);
	if (rewrite) {
		f = fopen(path, "wb");
		cr_assert_not_null(f, "cannot write %s", path);
		cr_assert_eq(fwrite(out, 1, used, f), used);
		cr_assert_eq(fclose(f), 0);
	}
	free(out);
	free(doc);
}

// The tables say what the reader takes: each row's range refuses a value
// just outside it and takes one inside, with a message naming the key.
Test(keys, rows_read_and_refuse_by_their_range)
{
	char text[512];
	// A world key, a contact key and a slot parameter, each out of range.
	snprintf(text, sizeof text,
	         "world: {dt: 2, cell_size: -1}\n"
	         "archetypes: {a: {contact: {stiffness: 1.5}, slots: [{kind: separation, max_neighbors: 1000001}]}}\n"
	         "groups: {g: {count: 1, archetype: a, spawn: {shape: ring, radius: 1}}}\n");
	uint32_t problems = 0;
	static thr_test_messages d;
	d.len = 0;
	d.count = 0;
	cr_assert_eq(throng_scenario_validate_memory("k.yaml", text, strlen(text), thr_test_collect, &d, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(problems, 4u);
	cr_expect_str_eq(d.text,
	                 "k.yaml:1:13: world.dt: got 2, out of range (expected a number of seconds > 0 and <= 1)\n"
	                 "k.yaml:1:27: world.cell_size: got -1, out of range (expected a number >= 0 and <= 1e6)\n"
	                 "k.yaml:2:39: archetypes.a.contact.stiffness: got 1.5, out of range (expected a fraction > 0 "
	                 "and <= 1)\n"
	                 "k.yaml:2:87: archetypes.a.slots[0].max_neighbors: got 1000001, out of range (expected a whole "
	                 "number from 0 to 1000000)\n");
	// A required row of the spawn table, for the shape that takes it.
	snprintf(text, sizeof text,
	         "archetypes: {a: {slots: [{kind: seek}]}}\n"
	         "groups: {g: {count: 2, archetype: a, spawn: {shape: line, from: [0, 0]}}}\n");
	d.len = 0;
	d.count = 0;
	cr_assert_eq(throng_scenario_validate_memory("k.yaml", text, strlen(text), thr_test_collect, &d, &problems),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_str_eq(d.text, "k.yaml:2:45: groups.g.spawn.to: missing (expected [x, y], each a number from -1e6 to "
	                         "1e6)\n");
	// The same keys in range read into the definition, and save writes them.
	snprintf(text, sizeof text,
	         "world: {dt: 0.5, cell_size: 2}\n"
	         "archetypes: {a: {contact: {stiffness: 0.25}, slots: [{kind: separation, max_neighbors: 7}]}}\n"
	         "groups: {g: {count: 1, archetype: a, spawn: {shape: ring, radius: 1}}}\n");
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("k.yaml", text, strlen(text), NULL, NULL, NULL, &s), THRONG_OK, "%s",
	             throng_last_error());
	char* saved = NULL;
	size_t n = 0;
	cr_assert_eq(throng_scene_save_string(s, &saved, &n), THRONG_OK, "%s", throng_last_error());
	cr_expect_not_null(strstr(saved, "\n  dt: 0.5\n"), "%s", saved);
	cr_expect_not_null(strstr(saved, "\n  cell_size: 2\n"), "%s", saved);
	cr_expect_not_null(strstr(saved, "contact: {enabled: true, stiffness: 0.25, iterations: 4}"), "%s", saved);
	cr_expect_not_null(strstr(saved, ", max_neighbors: 7}"), "%s", saved);
	free(saved);
	throng_scene_destroy(s);
}
