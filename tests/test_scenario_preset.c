// SPDX-License-Identifier: MIT
// Presets in scenario files (core/scene/scenario_file_presets.c;
// docs/SCENARIOS.md, "Presets"): `preset: pedestrian` with a `drive`.
//
// - A file with the preset gives the controller of
//   throng_controller_pedestrian_def(drive), field by field, and its
//   groups the body of throng_agent_pedestrian_def(), for every drive, and
//   runs to the state hash, step by step, of a world built through the C
//   API in both engines.
// - The archetype's other keys override the preset's (mode,
//   relaxation_time, target_rule, contact key by key), a group's body keys
//   override the preset's body, a group's speed is checked against the
//   preset's max_speed, and a group of another archetype keeps the
//   library's default body.
// - `throng save` writes the controller out, never `preset:`, and the
//   saved file loads to the same world and saves to the same text.
// - The problems (unknown preset, a drive the preset does not take, a
//   drive without a preset, slots beside a preset, a path-following
//   pedestrian without a path) are tests/data/bad/preset_*.yaml, checked
//   with their exact messages by tests/test_scenario_file.c.
// - The Blender importer's copy of the preset's radius is the library's.
//
// The expected values are read from the constructors, never written
// here: tests/test_pedestrian.c pins the pedestrian's values (the one test
// that writes them down), and these tests hold whatever they become.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

static void report(void* user, const throng_diagnostic* d)
{
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	cr_log_error("%s", line);
	(void)user;
}

static throng_scene* load(const char* text, throng_engine engine)
{
	throng_scene_def o = throng_scene_default_def();
	o.engine = engine;
	o.threads = 2;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("preset.yaml", text, strlen(text), &o, report, NULL, &s), THRONG_OK,
	             "%s\n%s", throng_last_error(), text);
	return s;
}

/// Validates `text`; returns the number of problems, their messages in *m.
static uint32_t problems_of(const char* text, thr_test_messages* m)
{
	uint32_t problems = 0;
	m->len = 0;
	m->count = 0;
	m->text[0] = '\0';
	throng_scenario_validate_memory("preset.yaml", text, strlen(text), thr_test_collect, m, &problems);
	return problems;
}

static void assert_same_params(const throng_behavior_params* p, const throng_behavior_params* q, const char* what,
                               uint32_t k)
{
	cr_assert(thr_test_same_params(p, q), "%s: slot %u: a parameter differs", what, k);
}

/// Every field of two controllers: mode, tau, target rule, contact, and
/// each slot's kind, weight, flags and parameters.
static void assert_same_controller(const throng_controller* a, const throng_controller* b, const char* what)
{
	cr_assert_eq(a->mode, b->mode, "%s: mode", what);
	cr_assert_eq(a->relaxation_time, b->relaxation_time, "%s: relaxation_time", what);
	cr_assert(a->target_rule.enabled == b->target_rule.enabled && a->target_rule.group == b->target_rule.group &&
	                  a->target_rule.sight_radius == b->target_rule.sight_radius &&
	                  a->target_rule.every == b->target_rule.every,
	          "%s: target rule", what);
	cr_assert(a->contact.enabled == b->contact.enabled && a->contact.stiffness == b->contact.stiffness &&
	                  a->contact.iterations == b->contact.iterations && a->contact.inelastic == b->contact.inelastic &&
	                  a->contact.slip == b->contact.slip && a->contact.noise == b->contact.noise,
	          "%s: contact", what);
	cr_assert_eq(a->slot_count, b->slot_count, "%s: slot count", what);
	for (uint32_t k = 0; k < a->slot_count; ++k) {
		const throng_slot *x = &a->slots[k], *y = &b->slots[k];
		cr_assert(x->kind == y->kind && x->weight == y->weight && x->enabled == y->enabled &&
		                  x->priority == y->priority,
		          "%s: slot %u", what, k);
		assert_same_params(&x->params, &y->params, what, k);
	}
}

// ---------------------------------------------------------------------------
// The file and the C constructors: the same controller, bodies and steps
// ---------------------------------------------------------------------------

/// Two groups of 5 on lines 2 m apart, walking at each other (east: x =
/// -4, -2, 0, 2, 4 at y = -1, to (9, -1); west: x = 4 .. -4 at y = 1, to
/// (-9, 1)), each with a one-waypoint path at its goal when the drive
/// follows paths.
static void preset_text(char* buf, size_t cap, throng_behavior_kind drive)
{
	const bool paths = drive == THRONG_PATH_FOLLOW;
	snprintf(buf, cap,
	         "world: {bounds: {min: [-10, -5], max: [10, 5], mode: contain}, seed: 7}\n"
	         "archetypes:\n"
	         "  walker: {preset: pedestrian, drive: %s}\n"
	         "groups:\n"
	         "  east:\n"
	         "    {count: 5, archetype: walker, spawn: {shape: line, from: [-4, -1], to: [4, -1]}, goal: [9, -1]%s}\n"
	         "  west:\n"
	         "    {count: 5, archetype: walker, spawn: {shape: line, from: [4, 1], to: [-4, 1]}, goal: [-9, 1]%s}\n"
	         "walls:\n"
	         "  - [[-10, -2], [10, -2]]\n"
	         "  - [[-10, 2], [10, 2]]\n",
	         throng_behavior_kind_name(drive), paths ? ", path: [[9, -1]]" : "", paths ? ", path: [[-9, 1]]" : "");
}

/// The same scene through the C API.
static throng_world* c_api_world(throng_behavior_kind drive, throng_engine engine)
{
	throng_world_def d = throng_world_default_def();
	d.bounds_min = (throng_vec2){-10.0f, -5.0f};
	d.bounds_max = (throng_vec2){10.0f, 5.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.seed = 7;
	d.engine = engine;
	d.threads = 2;
	d.capacity = 10;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	const throng_controller ctl = throng_controller_pedestrian_def(drive);
	uint32_t arch = 99;
	cr_assert_eq(throng_world_add_archetype(w, &ctl, &arch), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-10.0f, -2.0f}, (throng_vec2){10.0f, -2.0f}, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-10.0f, 2.0f}, (throng_vec2){10.0f, 2.0f}, NULL), THRONG_OK);
	const throng_vec2 goals[2] = {{9.0f, -1.0f}, {-9.0f, 1.0f}};
	uint32_t path[2] = {THRONG_NO_PATH, THRONG_NO_PATH};
	for (uint32_t g = 0; g < 2 && drive == THRONG_PATH_FOLLOW; ++g) {
		cr_assert_eq(throng_world_add_path(w, &goals[g], 1, false, &path[g]), THRONG_OK, "%s", throng_last_error());
	}
	throng_agent_def a[10];
	for (uint32_t i = 0; i < 10; ++i) {
		const uint32_t g = i / 5u;
		a[i] = throng_agent_pedestrian_def();
		const float x = 2.0f * (float)(i % 5u);
		a[i].position = g == 0 ? (throng_vec2){x - 4.0f, -1.0f} : (throng_vec2){4.0f - x, 1.0f}; // +0, not -0
		a[i].target = goals[g];
		a[i].archetype = arch;
		a[i].group = g;
		a[i].path = path[g];
	}
	cr_assert_eq(throng_world_spawn(w, a, 10, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

Test(preset, same_controller_bodies_and_steps_as_the_c_constructors)
{
	const throng_behavior_kind drives[3] = {THRONG_ARRIVE, THRONG_SEEK, THRONG_PATH_FOLLOW};
	const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
	const throng_agent_def body = throng_agent_pedestrian_def();
	for (int d = 0; d < 3; ++d) {
		char text[2048];
		preset_text(text, sizeof text, drives[d]);
		const throng_controller want = throng_controller_pedestrian_def(drives[d]);
		for (int e = 0; e < 2; ++e) {
			const char* what = throng_behavior_kind_name(drives[d]);
			throng_scene* s = load(text, engines[e]);
			throng_world* fw = throng_scene_world(s);
			cr_assert_eq(throng_world_archetype_count(fw), 1u);
			throng_controller got;
			cr_assert_eq(throng_world_get_controller(fw, 0, &got), THRONG_OK);
			assert_same_controller(&got, &want, what);
			cr_assert_eq(throng_world_agent_count(fw), 10u);
			for (uint32_t id = 0; id < 10; ++id) {
				throng_agent_state st;
				cr_assert_eq(throng_world_get_agent(fw, id, &st), THRONG_OK);
				cr_assert(st.max_speed == body.max_speed && st.max_force == body.max_force &&
				                  st.radius == body.radius,
				          "%s: agent %u has max_speed %g, max_force %g, radius %g", what, id, (double)st.max_speed,
				          (double)st.max_force, (double)st.radius);
			}
			throng_world* cw = c_api_world(drives[d], engines[e]);
			cr_assert_eq(throng_world_hash(fw), throng_world_hash(cw), "%s: the worlds differ before the first step",
			             what);
			for (int k = 1; k <= 120; ++k) {
				cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
				cr_assert_eq(throng_world_step(cw), THRONG_OK, "%s", throng_last_error());
				cr_assert_eq(throng_world_hash(fw), throng_world_hash(cw), "%s, engine %d: differ at step %d", what,
				             e, k);
			}
			// They walked (2 s from rest): the steps compared were not of a
			// world standing still.
			throng_agent_state st;
			cr_assert_eq(throng_world_get_agent(fw, 0, &st), THRONG_OK);
			cr_assert_gt(st.position.x, -3.0f, "%s: agent 0 is at x %g after 2 s", what, (double)st.position.x);
			throng_world_destroy(cw);
			throng_scene_destroy(s);
		}
	}
}

// ---------------------------------------------------------------------------
// Overrides
// ---------------------------------------------------------------------------

Test(preset, keys_beside_the_preset_override_it)
{
	const char text[] = "archetypes:\n"
	                    "  ped:\n"
	                    "    preset: pedestrian\n"
	                    "    mode: hybrid\n"
	                    "    relaxation_time: 0.4\n"
	                    "    target_rule: {group: plain, sight_radius: 5}\n"
	                    "    contact: {noise: 0, iterations: 8}\n"
	                    "  other: {slots: [{kind: seek}]}\n"
	                    "groups:\n"
	                    "  slow: {count: 2, archetype: ped, spawn: {shape: line, from: [0, 0], to: [2, 0]},\n"
	                    "         max_speed: 1.1, radius: 0.25}\n"
	                    "  plain: {count: 2, archetype: other, spawn: {shape: line, from: [0, 3], to: [2, 3]}}\n";
	throng_scene* s = load(text, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	throng_controller want = throng_controller_pedestrian_def(THRONG_ARRIVE);
	want.mode = THRONG_BLEND_HYBRID;
	want.relaxation_time = 0.4f;
	want.target_rule.enabled = true;
	want.target_rule.group = 1; // group plain's label
	want.target_rule.sight_radius = 5.0f;
	want.target_rule.every = 10;
	want.contact.noise = 0.0f; // the others, slip among them, stay the preset's
	want.contact.iterations = 8;
	throng_controller got;
	cr_assert_eq(throng_world_get_controller(w, 0, &got), THRONG_OK);
	assert_same_controller(&got, &want, "ped");
	cr_assert_gt(got.contact.slip, 0.0f, "the preset's slip is kept");
	// The group's own body keys win; max_force, not stated, is the preset's.
	const throng_agent_def ped = throng_agent_pedestrian_def(), lib = throng_agent_default_def();
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, 1, &a), THRONG_OK);
	cr_assert(a.max_speed == 1.1f && a.radius == 0.25f && a.max_force == ped.max_force, "%g %g %g",
	          (double)a.max_speed, (double)a.radius, (double)a.max_force);
	// A group of an archetype without a preset keeps the library's defaults.
	cr_assert_eq(throng_world_get_agent(w, 2, &a), THRONG_OK);
	cr_assert(a.max_speed == lib.max_speed && a.max_force == lib.max_force && a.radius == lib.radius);
	throng_scene_destroy(s);
}

Test(preset, speed_is_checked_against_the_presets_max_speed)
{
	const throng_agent_def ped = throng_agent_pedestrian_def();
	char text[1024], speed[32], above[32];
	sf_format_float(speed, ped.max_speed);
	sf_format_float(above, ped.max_speed * 1.01f);
	const char* fmt = "archetypes: {ped: {preset: pedestrian}}\n"
	                  "groups:\n"
	                  "  g: {count: 1, archetype: ped, spawn: {shape: ring, radius: 1}, heading: [1, 0],\n"
	                  "      speed: %s}\n";
	// At the preset's max_speed: valid, and the agent starts at it.
	snprintf(text, sizeof text, fmt, speed);
	throng_scene* s = load(text, THRONG_ENGINE_SCALAR);
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(throng_scene_world(s), 0, &a), THRONG_OK);
	cr_assert(a.velocity.x == ped.max_speed && a.velocity.y == 0.0f, "%g", (double)a.velocity.x);
	throng_scene_destroy(s);
	// Above it: refused, with the preset's max_speed in the message.
	snprintf(text, sizeof text, fmt, above);
	thr_test_messages m;
	cr_assert_eq(problems_of(text, &m), 1u, "%s", m.text);
	char want[256];
	snprintf(want, sizeof want, "preset.yaml:4:14: groups.g.speed: got %g, above max_speed %g (expected a speed from 0 "
	         "to max_speed)\n", (double)(ped.max_speed * 1.01f), (double)ped.max_speed);
	cr_assert_str_eq(m.text, want);
}

// ---------------------------------------------------------------------------
// Saving
// ---------------------------------------------------------------------------

static int occurrences(const char* text, const char* word)
{
	int n = 0;
	for (const char* p = strstr(text, word); p != NULL; p = strstr(p + 1, word)) {
		n++;
	}
	return n;
}

Test(preset, save_writes_the_controller_out_and_round_trips)
{
	char text[2048];
	preset_text(text, sizeof text, THRONG_PATH_FOLLOW);
	throng_scene* a = load(text, THRONG_ENGINE_SIMD);
	char* saved = NULL;
	size_t len = 0;
	cr_assert_eq(throng_scene_save_string(a, &saved, &len), THRONG_OK, "%s", throng_last_error());
	// The controller, written out: no preset, no drive, every slot.
	cr_expect_eq(occurrences(saved, "preset:"), 0, "%s", saved);
	cr_expect_eq(occurrences(saved, "drive:"), 0, "%s", saved);
	const throng_controller ped = throng_controller_pedestrian_def(THRONG_PATH_FOLLOW);
	cr_expect_eq(occurrences(saved, "      - {kind: "), (int)ped.slot_count, "%s", saved);
	cr_expect_not_null(strstr(saved, "    mode: relaxation\n"), "%s", saved);
	cr_expect_not_null(strstr(saved, "{kind: path_following, "), "%s", saved);
	throng_scene* b = load(saved, THRONG_ENGINE_SIMD);
	throng_controller ca, cb;
	cr_assert_eq(throng_world_get_controller(throng_scene_world(a), 0, &ca), THRONG_OK);
	cr_assert_eq(throng_world_get_controller(throng_scene_world(b), 0, &cb), THRONG_OK);
	assert_same_controller(&cb, &ca, "saved");
	for (uint32_t id = 0; id < 10; ++id) {
		throng_agent_state x, y;
		cr_assert_eq(throng_world_get_agent(throng_scene_world(a), id, &x), THRONG_OK);
		cr_assert_eq(throng_world_get_agent(throng_scene_world(b), id, &y), THRONG_OK);
		cr_assert(x.max_speed == y.max_speed && x.max_force == y.max_force && x.radius == y.radius &&
		                  x.path == y.path && memcmp(&x.position, &y.position, sizeof x.position) == 0,
		          "agent %u", id);
	}
	for (int k = 0; k < 60; ++k) {
		cr_assert_eq(throng_scene_step(a), THRONG_OK);
		cr_assert_eq(throng_scene_step(b), THRONG_OK);
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(a)), throng_world_hash(throng_scene_world(b)));
	char* again = NULL;
	cr_assert_eq(throng_scene_save_string(b, &again, NULL), THRONG_OK);
	cr_assert_str_eq(again, saved, "saving the loaded save changed the text");
	free(again);
	free(saved);
	throng_scene_destroy(b);
	throng_scene_destroy(a);
}

// ---------------------------------------------------------------------------
// The table and its docs
// ---------------------------------------------------------------------------

Test(preset, the_docs_default_drive_is_the_tables)
{
	cr_assert_eq(sf_preset_count, 1u);
	cr_assert_str_eq(sf_presets[0].name, "pedestrian");
	cr_assert_eq(sf_presets[0].drives[0], THRONG_ARRIVE);
	const sf_key* drive = sf_key_find(&sf_archetype_table, "drive");
	cr_assert_not_null(drive);
	cr_assert_str_eq(drive->def, "`arrive`");
	// Each drive the preset takes makes a controller the library accepts.
	for (uint32_t k = 0; k < sf_presets[0].drive_count; ++k) {
		const throng_controller c = sf_presets[0].controller(sf_presets[0].drives[k]);
		cr_assert_eq(c.slots[c.slot_count - 1u].kind, sf_presets[0].drives[k]);
	}
}

// The Blender importer reads radii from scenario files, a preset's
// groups' from its own copy of the preset's radius
// (examples/blender/io_import_throng/scenefile.py, PRESET_RADIUS; its
// renderer_reader test reads examples/pedestrians.yaml with it): the copy
// must be the library's.
Test(preset, the_blender_importer_knows_the_presets_radius)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	char path[1024];
	snprintf(path, sizeof path, "%.*s/../examples/blender/io_import_throng/scenefile.py",
	         (int)(slash != NULL ? slash - file : 1), slash != NULL ? file : ".");
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	static char text[1 << 16];
	size_t n = fread(text, 1, sizeof text - 1u, f);
	text[n] = '\0';
	fclose(f);
	const char* key = "PRESET_RADIUS = {\"pedestrian\": ";
	const char* at = strstr(text, key);
	cr_assert_not_null(at, "%s has no line %s...}", path, key);
	const float copy = strtof(at + strlen(key), NULL);
	const float radius = throng_agent_pedestrian_def().radius;
	char want[32];
	sf_format_float(want, radius);
	cr_assert(copy == radius, "%s: PRESET_RADIUS says the pedestrian's radius is %g; the library's is %s: write %s%s}",
	          path, (double)copy, want, key, want);
}
