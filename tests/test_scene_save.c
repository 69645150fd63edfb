// SPDX-License-Identifier: MIT
// `throng save`: every built-in scene written as a scenario file runs to the
// built-in's state hash (issue 12, item 3), and examples/*.yaml are what
// `throng save` writes today.
//
// - For every built-in (throng_scenario_count), at two agent counts and
//   two seeds, in both engines: the saved text loads into a world equal to
//   the built-in's, and after STEPS steps of both the hashes and the
//   outcome figures (throng_scene_outcomes: names and values) agree; charge
//   is also run until its battle resolves, so the measure's per-step
//   sampling is compared too.
// - A bad `measure` name is refused at its line and column
//   (tests/data/bad/v2_measure*.yaml give the exact messages).
// - The same through the CLI: `throng save NAME --agents N --seed X --out
//   FILE`, then `throng run FILE` and `throng run NAME` print one hash and
//   the same outcome figures.
// - Each examples/*.yaml names the command that made it (its "# made by:"
//   line); saving again with those options gives the file byte for byte,
//   so an example that drifts from its built-in fails here.
#define _XOPEN_SOURCE 700 // mkdtemp
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

#define STEPS 300

static const uint32_t counts[2] = {40, 300};
static const uint64_t seeds[2] = {1, 9};

static throng_scene* builtin(const char* name, uint32_t agents, uint64_t seed, throng_engine engine)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.seed = seed;
	o.engine = engine;
	o.threads = 2;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s: %s", name, throng_last_error());
	return s;
}

static void report(void* user, const throng_diagnostic* d)
{
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	cr_log_error("%s", line);
	(void)user;
}

/// a and b report the same outcome figures: the same count, names and values.
static void assert_same_outcomes(const throng_scene* a, const throng_scene* b, const char* what)
{
	throng_scene_outcome oa[THRONG_MAX_OUTCOMES], ob[THRONG_MAX_OUTCOMES];
	uint32_t na = throng_scene_outcomes(a, oa, THRONG_MAX_OUTCOMES);
	uint32_t nb = throng_scene_outcomes(b, ob, THRONG_MAX_OUTCOMES);
	cr_assert_eq(nb, na, "%s: the saved file reports %u outcome figures, the built-in %u", what, nb, na);
	for (uint32_t k = 0; k < na && k < THRONG_MAX_OUTCOMES; ++k) {
		cr_assert_str_eq(ob[k].name, oa[k].name, "%s: outcome %u", what, k);
		cr_assert(memcmp(&ob[k].value, &oa[k].value, sizeof oa[k].value) == 0,
		          "%s: outcome %s is %.17g from the file, %.17g from the built-in", what, oa[k].name, ob[k].value,
		          oa[k].value);
	}
}

/// Saves the built-in `a` and loads the text back.
static throng_scene* save_and_load(throng_scene* a, const char* name, throng_engine engine)
{
	char* text = NULL;
	size_t len = 0;
	cr_assert_eq(throng_scene_save_string(a, &text, &len), THRONG_OK, "%s: %s", name, throng_last_error());
	throng_scene_def o = throng_scene_default_def();
	o.engine = engine;
	o.threads = 2;
	throng_scene* b = NULL;
	cr_assert_eq(throng_scene_load_memory("saved.yaml", text, len, &o, report, NULL, &b), THRONG_OK,
	             "%s: the saved file does not load: %s", name, throng_last_error());
	free(text);
	return b;
}

/// One built-in at one setting: save, load, step both, compare.
static void check_round_trip(const char* name, uint32_t agents, uint64_t seed, throng_engine engine)
{
	throng_scene* a = builtin(name, agents, seed, engine);
	char what[128];
	snprintf(what, sizeof what, "%s --agents %u --seed %llu (%s engine)", name, agents, (unsigned long long)seed,
	         engine == THRONG_ENGINE_SIMD ? "simd" : "scalar");
	throng_scene* b = save_and_load(a, what, engine);
	throng_world* wa = throng_scene_world(a);
	throng_world* wb = throng_scene_world(b);
	cr_assert_eq(throng_world_agent_count(wa), throng_world_agent_count(wb));
	cr_assert_eq(throng_world_hash(wa), throng_world_hash(wb), "%s: differ at step 0", name);
	cr_assert_eq(throng_scene_goal_radius(a), throng_scene_goal_radius(b));
	cr_assert_eq(throng_scene_info(a)->default_steps, throng_scene_info(b)->default_steps);
	for (int k = 1; k <= STEPS; ++k) {
		cr_assert_eq(throng_scene_step(a), THRONG_OK);
		cr_assert_eq(throng_scene_step(b), THRONG_OK);
	}
	cr_assert_eq(throng_world_hash(wa), throng_world_hash(wb),
	             "%s --agents %u --seed %llu (%s engine): the saved file's hash differs after %d steps", name, agents,
	             (unsigned long long)seed, throng_engine_name(engine), STEPS);
	throng_vec2 pa, pb;
	cr_assert_eq(throng_scene_threat(a, &pa), throng_scene_threat(b, &pb), "%s: threat", name);
	assert_same_outcomes(a, b, what);
	throng_scene_destroy(a);
	throng_scene_destroy(b);
}

Test(save, every_builtin_runs_to_its_hash_from_its_file, .timeout = 300)
{
	uint32_t n = throng_scenario_count();
	cr_assert_geq(n, 8u);
	for (uint32_t k = 0; k < n; ++k) {
		const char* name = throng_scenario_at(k)->name;
		for (int c = 0; c < 2; ++c) {
			for (int s = 0; s < 2; ++s) {
				check_round_trip(name, counts[c], seeds[s], THRONG_ENGINE_SIMD);
				check_round_trip(name, counts[c], seeds[s], THRONG_ENGINE_SCALAR);
			}
		}
	}
}

Test(save, a_scene_saves_the_definition_it_holds_at_any_step)
{
	// The scene keeps its definition: saving writes it as it is, neither
	// stating the built-in again nor reading the world, so a scene saved
	// after it has stepped writes the text it would have written at step
	// 0, which loads into the built-in's first state and steps to its hash;
	// the loaded file saves the same text again.
	static const char* const names[] = {"herd", "field", "armies", "charge"};
	for (int k = 0; k < 4; ++k) {
		throng_scene* a = builtin(names[k], 300, 9, THRONG_ENGINE_SIMD);
		const uint64_t first = throng_world_hash(throng_scene_world(a));
		char *before = NULL, *after = NULL, *again = NULL;
		cr_assert_eq(throng_scene_save_string(a, &before, NULL), THRONG_OK, "%s: %s", names[k], throng_last_error());
		for (int s = 0; s < 100; ++s) {
			cr_assert_eq(throng_scene_step(a), THRONG_OK);
		}
		cr_assert_eq(throng_scene_save_string(a, &after, NULL), THRONG_OK);
		cr_assert_str_eq(after, before, "%s: saved after 100 steps, the text changed", names[k]);
		throng_scene* b = save_and_load(a, names[k], THRONG_ENGINE_SIMD);
		cr_assert_eq(throng_world_hash(throng_scene_world(b)), first, "%s: the file is not the first state", names[k]);
		for (int s = 0; s < 100; ++s) {
			cr_assert_eq(throng_scene_step(b), THRONG_OK);
		}
		cr_assert_eq(throng_world_hash(throng_scene_world(b)), throng_world_hash(throng_scene_world(a)),
		             "%s: the file saved mid-run steps to another hash", names[k]);
		cr_assert_eq(throng_scene_save_string(b, &again, NULL), THRONG_OK);
		cr_assert_str_eq(again, before, "%s: the loaded file saves another text", names[k]);
		free(before);
		free(after);
		free(again);
		throng_scene_destroy(a);
		throng_scene_destroy(b);
	}
}

Test(save, builtins_with_a_measure_report_it_from_their_files)
{
	// The built-ins with outcome figures (armies, charge, flock) keep them
	// in the saved file: it names the measure (armies': battle).
	static const char* const names[3] = {"armies", "charge", "flock"};
	static const char* const measures[3] = {"battle", "charge", "flock"};
	for (int k = 0; k < 3; ++k) {
		throng_scene* a = builtin(names[k], 40, 1, THRONG_ENGINE_SIMD);
		throng_scene_outcome o[THRONG_MAX_OUTCOMES];
		cr_assert_gt(throng_scene_outcomes(a, o, THRONG_MAX_OUTCOMES), 0u, "%s", names[k]);
		char* text = NULL;
		cr_assert_eq(throng_scene_save_string(a, &text, NULL), THRONG_OK);
		char line[64];
		snprintf(line, sizeof line, "\nmeasure: %s\n", measures[k]);
		cr_assert_not_null(strstr(text, line), "%s: no \"measure: %s\" line in:\n%.600s", names[k], measures[k],
		                   text);
		free(text);
		throng_scene* b = save_and_load(a, names[k], THRONG_ENGINE_SIMD);
		assert_same_outcomes(a, b, names[k]);
		throng_scene_destroy(a);
		throng_scene_destroy(b);
	}
}

Test(save, charge_file_resolves_its_battle_as_the_builtin, .timeout = 120)
{
	// 40 soldiers resolve their battle at 12.5 s: run both past it, with
	// the outcome compared every half second (the measure's sampling
	// interval), in both engines.
	for (int e = 0; e < 2; ++e) {
		throng_engine engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_scene* a = builtin("charge", 40, 1, engine);
		throng_scene* b = save_and_load(a, "charge", engine);
		for (int k = 1; k <= 900; ++k) {
			cr_assert_eq(throng_scene_step(a), THRONG_OK);
			cr_assert_eq(throng_scene_step(b), THRONG_OK);
			if (k % 30 == 0) {
				char what[64];
				snprintf(what, sizeof what, "charge --agents 40, step %d", k);
				assert_same_outcomes(a, b, what);
			}
		}
		cr_assert_eq(throng_world_hash(throng_scene_world(a)), throng_world_hash(throng_scene_world(b)));
		cr_assert_geq(thr_test_outcome(b, "resolved_at"), 0.0, "the battle resolved");
		cr_assert_gt(thr_test_outcome(b, "engaged"), 0.5);
		throng_scene_destroy(a);
		throng_scene_destroy(b);
	}
}

Test(save, unknown_measure_is_refused_at_its_line)
{
	static const char text[] = "version: 2\n"
	                           "measure: order\n"
	                           "archetypes: {a: {slots: [{kind: seek}]}}\n"
	                           "groups: {g: {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}}\n";
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("m.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
	cr_assert_str_eq(throng_last_error(),
	                 "m.yaml:2:10: measure: unknown measure \"order\" (expected one of: charge, battle, flock, flows, evacuation)");
	// A known one loads, and reports its figures on a scene of any shape.
	static const char good[] = "version: 2\n"
	                           "measure: flock\n"
	                           "archetypes: {a: {slots: [{kind: seek}]}}\n"
	                           "groups: {g: {count: 2, archetype: a, heading: [1, 0], "
	                           "spawn: {shape: line, from: [0, 0], to: [1, 0]}}}\n";
	cr_assert_eq(throng_scene_load_memory("m.yaml", good, strlen(good), NULL, NULL, NULL, &s), THRONG_OK, "%s",
	             throng_last_error());
	cr_assert_eq(thr_test_outcome(s, "order"), 1.0, "two agents heading +x: polarisation 1");
	throng_scene_destroy(s);
}

/// The "hash" of `throng ARGS --summary json`, then the outcome figures
/// (the fields after "jitter", the last quality metric).
static void cli_hash(const char* args, char* hash, size_t cap)
{
	static char out[65536], err[8192];
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s --summary json --quiet", args);
	int rc = thr_test_cli(cmd, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "throng %s: exit %d: %s", cmd, rc, err);
	const char* h = strstr(out, "\"hash\": \"");
	cr_assert_not_null(h, "%s", out);
	h += strlen("\"hash\": \"");
	size_t len = strcspn(h, "\"");
	const char* outcomes = strstr(out, "\"jitter\": ");
	cr_assert_not_null(outcomes, "%s", out);
	outcomes += strcspn(outcomes, "\n");
	snprintf(hash, cap, "%.*s%s", (int)len, h, outcomes);
}

Test(save, cli_save_then_run_gives_the_builtins_hash, .timeout = 300)
{
	char dir[] = "/tmp/throng_save_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/scene.yaml", dir);
	const char* const engines[2] = {throng_engine_name(THRONG_ENGINE_SIMD), throng_engine_name(THRONG_ENGINE_SCALAR)};
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* name = throng_scenario_at(k)->name;
		for (int c = 0; c < 2; ++c) {
			for (int s = 0; s < 2; ++s) {
				char args[1024], out[256], err[4096];
				snprintf(args, sizeof args, "save %s --agents %u --seed %llu --out %s", name, counts[c],
				         (unsigned long long)seeds[s], path);
				cr_assert_eq(thr_test_cli(args, out, sizeof out, err, sizeof err), 0, "throng %s: %s", args, err);
				for (int e = 0; e < 2; ++e) {
					char want[512], got[512];
					snprintf(args, sizeof args, "run %s --agents %u --seed %llu --engine %s --steps %d", name,
					         counts[c], (unsigned long long)seeds[s], engines[e], STEPS);
					cli_hash(args, want, sizeof want);
					snprintf(args, sizeof args, "run %s --engine %s --steps %d", path, engines[e], STEPS);
					cli_hash(args, got, sizeof got);
					cr_assert_str_eq(got, want, "%s --agents %u --seed %llu --engine %s", name, counts[c],
					                 (unsigned long long)seeds[s], engines[e]);
					if (strcmp(name, "charge") == 0) {
						cr_assert_not_null(strstr(got, "\"engaged\": "), "the file's figures: %s", got);
					}
				}
			}
		}
	}
	unlink(path);
	rmdir(dir);
}

Test(save, cli_save_errors_keep_what_was_written)
{
	char dir[] = "/tmp/throng_save_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256], args[512], out[256], err[4096];
	snprintf(path, sizeof path, "%s/keep.yaml", dir);
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("precious\n", f);
	fclose(f);
	// An unknown scene, a bad option, a missing --out: exit 2 (as throng run
	// says for the same mistakes); an unwritable --out: exit 4; the file untouched.
	snprintf(args, sizeof args, "save nosuch --out %s", path);
	cr_assert_eq(thr_test_cli(args, out, sizeof out, err, sizeof err), 2);
	cr_assert_not_null(strstr(err, "unknown scenario \"nosuch\""), "%s", err);
	snprintf(args, sizeof args, "save herd --agents 0 --out %s", path);
	cr_assert_eq(thr_test_cli(args, out, sizeof out, err, sizeof err), 2);
	cr_assert_not_null(strstr(err, "--agents: expected an integer from 1"), "%s", err);
	cr_assert_eq(thr_test_cli("save herd", out, sizeof out, err, sizeof err), 2);
	cr_assert_not_null(strstr(err, "save: missing --out FILE"), "%s", err);
	snprintf(args, sizeof args, "save herd --out %s/no/such/dir.yaml", dir);
	cr_assert_eq(thr_test_cli(args, out, sizeof out, err, sizeof err), 4);
	cr_assert_not_null(strstr(err, "cannot open"), "%s", err);
	char buf[64] = {0};
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof buf, f));
	fclose(f);
	cr_assert_str_eq(buf, "precious\n");
	unlink(path);
	rmdir(dir);
}

// ---------------------------------------------------------------------------
// The examples are what `throng save` writes
// ---------------------------------------------------------------------------

static char* read_all(const char* path, size_t* len)
{
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char* text = malloc((size_t)n + 1u);
	cr_assert_not_null(text);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return text;
}

/// Parses "made by: throng save NAME [--agents N] [--seed X]" out of `text`.
static void made_by(const char* file, const char* text, char* name, size_t cap, throng_scene_def* o,
                    char* header, size_t header_cap)
{
	const char* line = strstr(text, "\n# made by: throng save ");
	cr_assert_not_null(line, "%s has no \"# made by: throng save ...\" line: write it with throng save", file);
	line += strlen("\n# ");
	size_t len = strcspn(line, "\n");
	snprintf(header, header_cap, "%.*s", (int)len, line);
	char words[8][64];
	int n = sscanf(header, "made by: throng save %63s %63s %63s %63s %63s", words[0], words[1], words[2], words[3],
	               words[4]);
	cr_assert_geq(n, 1, "%s: %s", file, header);
	snprintf(name, cap, "%s", words[0]);
	for (int k = 1; k + 1 < n; k += 2) {
		if (strcmp(words[k], "--agents") == 0) {
			o->agents = (uint32_t)strtoul(words[k + 1], NULL, 10);
		} else if (strcmp(words[k], "--seed") == 0) {
			o->seed = strtoull(words[k + 1], NULL, 0);
		} else {
			cr_assert_fail("%s: unknown option %s in: %s", file, words[k], header);
		}
	}
}

Test(examples, every_builtin_has_an_example_and_none_is_stale, .timeout = 120)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	char dir[1024];
	snprintf(dir, sizeof dir, "%.*s/../examples", (int)(slash != NULL ? slash - file : 1), slash != NULL ? file : ".");
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* builtin_name = throng_scenario_at(k)->name;
		char path[1200];
		snprintf(path, sizeof path, "%s/%s.yaml", dir, builtin_name);
		size_t len = 0;
		char* text = read_all(path, &len);
		char name[64], header[256];
		throng_scene_def o = throng_scene_default_def();
		made_by(path, text, name, sizeof name, &o, header, sizeof header);
		cr_assert_str_eq(name, builtin_name, "%s", path);
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s", throng_last_error());
		char* fresh = NULL;
		size_t fresh_len = 0;
		cr_assert_eq(throng_scene_save_string_header(s, header, &fresh, &fresh_len), THRONG_OK);
		// The file may open with comment lines of its own (a licence line).
		const char* body = strstr(text, "# throng scenario, saved");
		cr_assert_not_null(body, "%s", path);
		cr_assert(strcmp(body, fresh) == 0,
		          "%s is stale: it is not what `throng save %s` writes today; regenerate it (examples/make_examples.sh)",
		          path, name);
		free(fresh);
		free(text);
		throng_scene_destroy(s);
	}
}

// ---------------------------------------------------------------------------
// throng_scene_open: the one way the CLI and the viewer open scenes
// ---------------------------------------------------------------------------

Test(open, names_files_and_errors)
{
	throng_scene_def o = throng_scene_default_def();
	o.threads = 2;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_open("herd", &o, &s), THRONG_OK);
	cr_assert_str_eq(throng_scene_info(s)->name, "herd");
	uint64_t builtin = throng_world_hash(throng_scene_world(s));
	throng_scene_destroy(s);
	// The example file: the same world.
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	char path[1024];
	snprintf(path, sizeof path, "%.*s/../examples/herd.yaml", (int)(slash - file), file);
	cr_assert(throng_scene_is_file(path));
	cr_assert_eq(throng_scene_open(path, &o, &s), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_hash(throng_scene_world(s)), builtin);
	throng_scene_destroy(s);
	// solo is a built-in like the others.
	cr_assert_eq(throng_scene_open("solo", &o, &s), THRONG_OK);
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(throng_scene_world(s), 0, &a), THRONG_OK);
	cr_assert(a.position.x == 0.0f && a.position.y == 0.0f);
	throng_scene_destroy(s);
	// Unknown names list the known ones; a missing file is an I/O error.
	s = (throng_scene*)&o;
	cr_assert_eq(throng_scene_open("nosuch", &o, &s), THRONG_ERR_NOT_FOUND);
	cr_assert_null(s);
	cr_assert_not_null(strstr(throng_last_error(), "known scenarios: herd"), "%s", throng_last_error());
	cr_assert_not(throng_scene_is_file("nosuch"));
	cr_assert(throng_scene_is_file("nosuch.yml"));
	cr_assert_eq(throng_scene_open("nosuch.yaml", &o, &s), THRONG_ERR_IO);
	cr_assert_eq(throng_scene_open(NULL, &o, &s), THRONG_ERR_INVALID_ARGUMENT);
}
