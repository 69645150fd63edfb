// SPDX-License-Identifier: MIT
// The names of the public enums (core/names.c, the formats of
// core/io/export.c, the live feed's writer states of core/io/feed_read.c):
// each value's spelling as documented, the round trip
// name -> value, NULL out of range, false for an unknown word; and the
// throng command and scenario files taking exactly these words.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "throng/export.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

/// One enum: its names as the headers document them, in value order, and
/// the library's two functions through int.
typedef struct enum_case {
	const char* what;
	const char* names[20];
	int count;
	const char* (*name)(int);
	bool (*from_name)(const char*, int*);
} enum_case;

// Adapters from int to each enum type (the functions take the enum).
#define ADAPT(stem, type)                                                   \
	static const char* stem##_name(int v) { return throng_##stem##_name((type)v); } \
	static bool stem##_from(const char* n, int* v)                           \
	{                                                                        \
		type t = (type)-1;                                                   \
		if (!throng_##stem##_from_name(n, &t)) {                             \
			return false;                                                    \
		}                                                                    \
		*v = (int)t;                                                         \
		return true;                                                         \
	}
ADAPT(status, throng_status)
ADAPT(engine, throng_engine)
ADAPT(threads_policy, throng_threads_policy)
ADAPT(bounds_mode, throng_bounds_mode)
ADAPT(behavior_kind, throng_behavior_kind)
ADAPT(target_source, throng_target_source)
ADAPT(flee_mode, throng_flee_mode)
ADAPT(wander_frame, throng_wander_frame)
ADAPT(blend_mode, throng_blend_mode)
ADAPT(event_kind, throng_event_kind)
ADAPT(zone_shape, throng_zone_shape)
ADAPT(source_shape, throng_source_shape)
ADAPT(format, throng_format)
ADAPT(writer_state, throng_writer_state)

static const enum_case cases[] = {
	{"status",
	 {"ok", "invalid argument", "capacity exhausted", "out of memory", "not found", "unsupported",
	  "input/output error", "corrupt data"},
	 8, status_name, status_from},
	{"engine", {"scalar", "simd"}, 2, engine_name, engine_from},
	{"threads policy", {"adapt", "fixed"}, 2, threads_policy_name, threads_policy_from},
	{"bounds mode", {"contain", "wrap", "bounce", "open"}, 4, bounds_mode_name, bounds_mode_from},
	{"behaviour kind",
	 {"seek", "flee", "arrive", "pursuit", "evade", "wander", "wander_noise", "obstacle_avoidance", "wall_avoidance",
	  "unaligned_avoidance", "separation", "alignment", "cohesion", "bounds", "path_following", "anticipation",
	  "headway"},
	 THRONG_BEHAVIOR_COUNT, behavior_kind_name, behavior_kind_from},
	{"target source", {"point", "threat", "agent"}, 3, target_source_name, target_source_from},
	{"flee mode", {"always", "panic", "safe"}, 3, flee_mode_name, flee_mode_from},
	{"wander frame", {"local", "world"}, 2, wander_frame_name, wander_frame_from},
	{"blend mode", {"weighted", "priority", "hybrid", "relaxation"}, 4, blend_mode_name, blend_mode_from},
	{"event kind", {"added", "removed", "arrived", "entered", "left", "waited"}, 6, event_kind_name, event_kind_from},
	{"zone shape", {"circle", "box", "polygon"}, 3, zone_shape_name, zone_shape_from},
	{"source shape", {"box", "circle", "segment"}, 3, source_shape_name, source_shape_from},
	{"format", {"auto", "bin", "csv", "ped", "sqlite"}, 5, format_name, format_from},
	{"writer state", {"alive", "finished", "gone"}, 3, writer_state_name, writer_state_from},
};

Test(names, every_value_spelled_as_documented)
{
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
		const enum_case* e = &cases[c];
		for (int v = 0; v < e->count; ++v) {
			const char* n = e->name(v);
			cr_assert_not_null(n, "%s %d has no name", e->what, v);
			cr_expect_str_eq(n, e->names[v], "%s %d", e->what, v);
		}
	}
}

Test(names, round_trip)
{
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
		const enum_case* e = &cases[c];
		for (int v = 0; v < e->count; ++v) {
			int back = -1;
			cr_expect(e->from_name(e->names[v], &back), "%s \"%s\" not recognised", e->what, e->names[v]);
			cr_expect_eq(back, v, "%s \"%s\" -> %d, want %d", e->what, e->names[v], back, v);
		}
	}
}

Test(names, out_of_range_is_null)
{
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
		const enum_case* e = &cases[c];
		cr_expect_null(e->name(e->count), "%s %d", e->what, e->count);
		cr_expect_null(e->name(e->count + 7), "%s %d", e->what, e->count + 7);
		cr_expect_null(e->name(-1), "%s -1", e->what);
	}
	cr_expect_null(throng_behavior_kind_name(THRONG_BEHAVIOR_COUNT));
}

// The stages have names and no inverse (nothing reads a stage's name back).
Test(names, stages_spelled_as_documented)
{
	const char* const names[] = {"prepare", "sort", "targets", "pass", "contacts", "finish"};
	cr_assert_eq(sizeof names / sizeof names[0], (size_t)THRONG_STAGE_COUNT);
	for (int v = 0; v < THRONG_STAGE_COUNT; ++v) {
		const char* n = throng_stage_name((throng_stage)v);
		cr_assert_not_null(n, "stage %d has no name", v);
		cr_expect_str_eq(n, names[v], "stage %d", v);
	}
	cr_expect_null(throng_stage_name(THRONG_STAGE_COUNT));
	cr_expect_null(throng_stage_name((throng_stage)-1));
}

Test(names, unknown_words_are_refused_and_out_is_left_alone)
{
	// Near misses of real names: case, spaces, prefixes, the old "binary".
	const char* const unknown[] = {"", "SIMD", "Scalar", " simd", "simd ", "sim", "wrapped", "Weighted", "see",
	                               "seeks", "binary", "teleport", "ok ", "unknown status"};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
		const enum_case* e = &cases[c];
		for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; ++k) {
			int v = 12345;
			cr_expect_not(e->from_name(unknown[k], &v), "%s took \"%s\"", e->what, unknown[k]);
			cr_expect_eq(v, 12345, "%s: a refused \"%s\" wrote the output", e->what, unknown[k]);
		}
		int v = 12345;
		cr_expect_not(e->from_name(NULL, &v), "%s took NULL", e->what);
	}
	// out may be NULL: a check of the word alone.
	cr_expect(throng_engine_from_name("simd", NULL));
	cr_expect(throng_format_from_name("csv", NULL));
	cr_expect_not(throng_bounds_mode_from_name("torus", NULL));
}

Test(names, the_throng_command_takes_the_library_words)
{
	char out[8192], err[4096];
	cr_assert_eq(thr_test_cli("run --help", out, sizeof out, err, sizeof err), 0, "%s", err);
	// Every engine and output format the library names is in the help.
	for (int v = 0; throng_engine_name((throng_engine)v) != NULL; ++v) {
		cr_expect_not_null(strstr(out, throng_engine_name((throng_engine)v)), "run --help lacks engine %s",
		                   throng_engine_name((throng_engine)v));
	}
	for (int v = 1; throng_format_name((throng_format)v) != NULL; ++v) {
		cr_expect_not_null(strstr(out, throng_format_name((throng_format)v)), "run --help lacks format %s",
		                   throng_format_name((throng_format)v));
	}
	// And every engine name runs (the summary repeats it).
	for (int v = 0; throng_engine_name((throng_engine)v) != NULL; ++v) {
		char args[128];
		snprintf(args, sizeof args, "run herd --agents 20 --steps 2 --engine %s", throng_engine_name((throng_engine)v));
		cr_assert_eq(thr_test_cli(args, out, sizeof out, err, sizeof err), 0, "%s: %s", args, err);
		const char* line = strstr(out, "\nengine:");
		cr_assert_not_null(line, "%s: %s", args, out);
		char got[32] = "";
		sscanf(line, " engine: %31s", got);
		cr_expect_str_eq(got, throng_engine_name((throng_engine)v), "%s: %s", args, out);
	}
}

/// Counts the problems a scenario file text has.
static void count_problem(void* user, const throng_diagnostic* d)
{
	if (!d->warning) {
		*(int*)user += 1;
	}
}

Test(names, scenario_files_take_the_library_words)
{
	// Every bounds mode and blend mode the library names loads, and the
	// scene then has that value.
	for (int m = 0; throng_bounds_mode_name((throng_bounds_mode)m) != NULL; ++m) {
		for (int b = 0; throng_blend_mode_name((throng_blend_mode)b) != NULL; ++b) {
			char text[1024];
			snprintf(text, sizeof text,
			         "version: 1\n"
			         "world: {bounds: {min: [-10, -10], max: [10, 10], mode: %s}}\n"
			         "archetypes:\n"
			         "  walker:\n"
			         "    mode: %s\n"
			         "    target_rule: {group: crowd, sight_radius: 5}\n"
			         "    slots:\n"
			         "      - {kind: %s, target: %s, flee_mode: %s}\n"
			         "groups:\n"
			         "  crowd: {archetype: walker, count: 3, spawn: {shape: disc, center: [0, 0], radius: 2}}\n",
			         throng_bounds_mode_name((throng_bounds_mode)m), throng_blend_mode_name((throng_blend_mode)b),
			         throng_behavior_kind_name(THRONG_FLEE), throng_target_source_name(THRONG_TARGET_AGENT),
			         throng_flee_mode_name(THRONG_FLEE_SAFE));
			int problems = 0;
			throng_scene* s = NULL;
			cr_assert_eq(throng_scene_load_memory("names.yaml", text, strlen(text), NULL, count_problem, &problems, &s),
			             THRONG_OK, "%s\n%s", throng_last_error(), text);
			cr_assert_eq(problems, 0);
			throng_world* w = throng_scene_world(s);
			cr_expect_eq((int)throng_world_get_def(w).bounds_mode, m);
			throng_controller c;
			cr_assert_eq(throng_world_get_controller(w, 0, &c), THRONG_OK);
			cr_expect_eq((int)c.mode, b);
			cr_expect_eq(c.slots[0].kind, THRONG_FLEE);
			cr_expect_eq(c.slots[0].params.target, THRONG_TARGET_AGENT);
			cr_expect_eq(c.slots[0].params.flee_mode, THRONG_FLEE_SAFE);
			throng_scene_destroy(s);
		}
	}
	// An unknown word is refused with the library's list of words.
	const char bad[] = "version: 1\n"
	                   "world: {bounds: {min: [-10, -10], max: [10, 10], mode: torus}}\n"
	                   "archetypes: {walker: {slots: [{kind: seek}]}}\n"
	                   "groups: {crowd: {archetype: walker, count: 3, spawn: {shape: disc, center: [0, 0], radius: 2}}}\n";
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("bad.yaml", bad, strlen(bad), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_not_null(strstr(throng_last_error(), "contain, wrap, bounce, open"), "%s", throng_last_error());
}
