// SPDX-License-Identifier: MIT
// The `throng` command, finished (issue 4): --seconds, --quiet, the progress
// bar (only on a terminal), the quality metrics and outcome figures in the
// summary, the crowd's start, added, removed, peak and final count (of a
// scenario file with a sink and a source, and the summary's code itself on
// a world churned through the C API, cli/summary.c), --help for every
// subcommand, and --checkpoint, --checkpoint-every and --resume (issue
// 33). Runs the built executable
// (THRONG_CLI_PATH) through /bin/sh; the terminal runs go through
// util-linux's `script`, which gives the command a pseudo-terminal.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"

#define OUT_CAP 32768
#define ERR_CAP 4096

static char out[OUT_CAP];
static char err[ERR_CAP];

/// `throng <args>` into out and err; its exit status.
static int run_cli(const char* args) { return thr_test_cli(args, out, OUT_CAP, err, ERR_CAP); }

/// The number after "\"key\": " in a JSON summary.
static double json_number(const char* json, const char* key)
{
	char pat[80];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char* p = strstr(json, pat);
	cr_assert_not_null(p, "no %s in:\n%s", key, json);
	return strtod(p + strlen(pat), NULL);
}

/// One line on stderr naming `what`, nothing on stdout, status 2.
static void expect_usage_error(const char* args, const char* what)
{
	int rc = run_cli(args);
	cr_assert_eq(rc, 2, "throng %s: exit %d, stderr: %s", args, rc, err);
	cr_assert_not_null(strstr(err, what), "throng %s: %s", args, err);
	const char* nl = strchr(err, '\n');
	cr_assert(nl != NULL && nl[1] == '\0', "throng %s: not one line: %s", args, err);
	cr_assert_str_empty(out, "throng %s: stdout: %s", args, out);
}

Test(cli_run, seconds_is_simulated_time)
{
	// dt is 1/60 s: 1 s is 60 steps, 0.05 s is 3, 2.5 s is 150.
	cr_assert_eq(run_cli("run herd --seconds 1 --summary json"), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 60.0, "%s", out);
	cr_assert_float_eq(json_number(out, "simulated_seconds"), 1.0, 1e-5);
	cr_assert_eq(run_cli("run herd --seconds=0.05 --summary json"), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 3.0, "%s", out);
	cr_assert_eq(run_cli("run crossing --agents 40 --seconds 2.5 --summary json"), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 150.0, "%s", out);
}

Test(cli_run, bad_seconds)
{
	expect_usage_error("run herd --seconds 0", "--seconds");
	expect_usage_error("run herd --seconds -1", "--seconds");
	expect_usage_error("run herd --seconds abc", "--seconds");
	expect_usage_error("run herd --seconds nan", "--seconds");
	expect_usage_error("run herd --seconds inf", "--seconds");
	expect_usage_error("run herd --seconds 1e999", "--seconds");
	expect_usage_error("run herd --seconds 0x10", "--seconds");
	expect_usage_error("run herd --seconds ' 1'", "--seconds");
	expect_usage_error("run herd --seconds 1s", "--seconds");
	expect_usage_error("run herd --seconds", "--seconds");
	expect_usage_error("run herd --seconds 1 --steps 60", "--seconds");
}

/// The text summary opens with the run in words, then a blank line, then
/// the key: value figures: crossing at 200 walkers, every one at its goal
/// within 120 s; circle after half a second, nobody yet; evacuation's
/// outcome figures and the agents that left.
Test(cli_run, the_text_summary_opens_with_the_run_in_words)
{
	cr_assert_eq(run_cli("run crossing --agents 200 --seconds 120 -q"), 0, "%s", err);
	static const char crossed[] = "crossing: 200 agents for 120.0 simulated s (7,200 steps) in ";
	cr_assert(strncmp(out, crossed, strlen(crossed)) == 0, "%s", out);
	cr_assert_not_null(strstr(out, " agent-steps/s (simd, "), "%s", out);
	cr_assert_not_null(strstr(out, "\n  200 of 200 reached their goals, the last after "), "%s", out);
	cr_assert_not_null(strstr(out, " s\n\nscenario:"), "a blank line before the figures: %s", out);
	const char* agents = thr_test_summary_value(out, "agents");
	cr_assert(agents != NULL && strncmp(agents, "200\n", 4) == 0, "the figures follow: %s", out);
	cr_assert_eq(run_cli("run circle --agents 1000 --steps 30 -q"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\n  0 of 1,000 reached their goals (none yet)\n"), "%s", out);
	cr_assert_eq(run_cli("run evacuation --agents 100 --steps 3000 -q --metrics off"), 0, "%s", err);
	static const char evacuated[] = "evacuation: 100 agents at the start, 0 at the end (0 came, 100 left) for 50.0 ";
	cr_assert(strncmp(out, evacuated, strlen(evacuated)) == 0, "%s", out);
	cr_assert_not_null(strstr(out, "\n  evacuated_at "), "%s", out);
	cr_assert_not_null(strstr(out, ", remaining 0\n\n"), "%s", out);
}

Test(cli_run, no_progress_bar_without_a_terminal)
{
	// The tests' stderr is a file: not a byte on it, with or without --quiet.
	cr_assert_eq(run_cli("run circle --agents 200 --steps 300"), 0, "%s", err);
	cr_assert_str_empty(err, "%s", err);
	cr_assert_not_null(strstr(out, "scenario:"), "%s", out);
	cr_assert_eq(run_cli("run circle --agents 200 --steps 300 --quiet"), 0, "%s", err);
	cr_assert_str_empty(err, "%s", err);
	cr_assert_eq(run_cli("run herd --steps 30 -q --summary json"), 0, "%s", err);
	cr_assert_str_empty(err, "%s", err);
	cr_assert_eq(out[0], '{', "--quiet keeps the summary: %s", out);
}

/// Runs `throng <args>` on a pseudo-terminal (stdout and stderr both go to
/// it, and come back through script's stdout). Returns the exit status.
static int run_on_terminal(const char* args)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "script -qefc \"'%s' %s\" /dev/null", THRONG_CLI_PATH, args);
	return thr_test_run(cmd, out, OUT_CAP, err, ERR_CAP);
}

Test(cli_run, progress_bar_on_a_terminal)
{
	if (system("command -v script >/dev/null 2>&1") != 0) {
		cr_skip_test("util-linux script is not installed");
	}
	int rc = run_on_terminal("run crossing --agents 400 --steps 600");
	cr_assert_eq(rc, 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "steps  ETA "), "no bar in:\n%s", out);
	cr_assert_not_null(strstr(out, "agent-steps/s"), "%s", out);
	cr_assert_not_null(strstr(out, "600/600 steps"), "the bar reaches the end:\n%s", out);
	cr_assert_not_null(strstr(out, "\r\033[K"), "the bar is erased before the summary");
	cr_assert_not_null(strstr(out, "scenario:"), "%s", out);
	rc = run_on_terminal("run crossing --agents 400 --steps 600 --quiet");
	cr_assert_eq(rc, 0, "%s%s", out, err);
	cr_assert_null(strstr(out, "ETA"), "--quiet draws no bar:\n%s", out);
	cr_assert_not_null(strstr(out, "scenario:"), "%s", out);
}

Test(cli_run, figures_with_no_value_yet_say_so)
{
	// circle's walkers cross a ring 20 m and more wide: after 2 s nobody
	// has arrived, so the arrival figures have no value (null, "none"),
	// not a 0 that reads as "arrived at once"; the counts stay numbers.
	cr_assert_eq(run_cli("run circle --agents 200 --seconds 2 --summary json"), 0, "%s", err);
	cr_assert_eq(json_number(out, "reached"), 0.0, "%s", out);
	cr_assert_eq(json_number(out, "goals"), 200.0, "%s", out);
	for (const char* const* k = (const char* const[]){"mean_time_to_goal", "max_time_to_goal", "path_length_ratio", NULL};
	     *k != NULL; ++k) {
		char pat[80];
		snprintf(pat, sizeof pat, "\"%s\": null", *k);
		cr_assert_not_null(strstr(out, pat), "%s is not null:\n%s", *k, out);
	}
	cr_assert_gt(json_number(out, "agent_steps_per_s"), 0.0, "%s", out);
	cr_assert_eq(run_cli("run circle --agents 200 --seconds 2"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\nmean_time_to_goal:"), "%s", out);
	const char* line = strstr(out, "\nmax_time_to_goal:");
	cr_assert_not_null(line, "%s", out);
	const size_t len = strcspn(line + 1, "\n"); // the line, without its newlines
	cr_assert(len >= 4 && strncmp(line + 1 + len - 4, "none", 4) == 0, "the line ends in none:\n%s", out);
	cr_assert_null(strstr(out, "nan"), "%s", out);
}

Test(cli_run, summary_has_the_quality_metrics)
{
	static const char* const keys[] = {"overlaps_per_agent_step", "deepest_overlap", "goals", "reached",
	                                   "mean_time_to_goal", "max_time_to_goal", "path_length_ratio", "jitter",
	                                   "max_speed_ratio", "nonfinite", "out_of_bounds", "wall_crossings",
	                                   "wall_penetrations", "obstacle_penetrations",
	                                   "deepest_obstacle_penetration", "contacts_per_agent_step"};
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 40 --summary json"), 0, "%s", err);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		json_number(out, keys[k]);
	}
	cr_assert_eq(json_number(out, "goals"), 60.0, "%s", out);
	cr_assert_gt(json_number(out, "reached"), 0.0, "%s", out);
	cr_assert_gt(json_number(out, "mean_time_to_goal"), 5.0, "%s", out);
	cr_assert_geq(json_number(out, "path_length_ratio"), 0.99, "%s", out);
	cr_assert_eq(json_number(out, "nonfinite"), 0.0, "%s", out);
	// The text summary holds the same keys.
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 1"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\njitter:"), "%s", out);
	cr_assert_not_null(strstr(out, "\ndeepest_overlap:"), "%s", out);
	cr_assert_not_null(strstr(out, "\nwall_crossings:"), "%s", out);
	cr_assert_not_null(strstr(out, "\ncontacts_per_agent_step:"), "%s", out);
}

Test(cli_run, metrics_off_leaves_out_their_fields_not_the_world)
{
	// The same run with and without the metrics: the same world (hash,
	// overlaps at the end, max speed ratio, nonfinite, clamped), and none of
	// the fields only the metrics give.
	static const char* const same[] = {"hash", "overlaps", "max_speed_ratio", "nonfinite", "clamped", "agents",
	                                   "steps"};
	static const char* const gone[] = {"out_of_bounds", "reached", "metrics_seconds", "overlaps_per_agent_step",
	                                   "deepest_overlap", "overlap_capped", "wall_crossings", "wall_penetrations",
	                                   "obstacle_penetrations", "deepest_obstacle_penetration",
	                                   "contacts_per_agent_step", "goals", "mean_time_to_goal", "max_time_to_goal",
	                                   "path_length_ratio", "jitter"};
	static char with[OUT_CAP];
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 3 --summary json"), 0, "%s", err);
	memcpy(with, out, sizeof with);
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 3 --summary json --metrics off"), 0, "%s", err);
	for (size_t k = 0; k < sizeof same / sizeof same[0]; ++k) {
		char pat[80];
		snprintf(pat, sizeof pat, "\"%s\": ", same[k]);
		const char* a = strstr(with, pat);
		const char* b = strstr(out, pat);
		cr_assert(a != NULL && b != NULL, "%s: in both summaries:\n%s\n%s", same[k], with, out);
		cr_assert_eq(strcspn(a, ",\n"), strcspn(b, ",\n"), "%s differs:\n%s\n%s", same[k], with, out);
		cr_assert_eq(strncmp(a, b, strcspn(a, ",\n")), 0, "%s differs:\n%s\n%s", same[k], with, out);
	}
	for (size_t k = 0; k < sizeof gone / sizeof gone[0]; ++k) {
		char pat[80];
		snprintf(pat, sizeof pat, "\"%s\"", gone[k]);
		cr_assert_not_null(strstr(with, pat), "%s with the metrics:\n%s", gone[k], with);
		cr_assert_null(strstr(out, pat), "%s with --metrics off:\n%s", gone[k], out);
	}
	// The text summary too; "on" is the default.
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 1 --metrics=off"), 0, "%s", err);
	cr_assert_null(strstr(out, "jitter:"), "%s", out);
	cr_assert_not_null(strstr(out, "\nhash:"), "%s", out);
	cr_assert_eq(run_cli("run hallway --agents 60 --seconds 1 --metrics on"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\njitter:"), "%s", out);
	expect_usage_error("run hallway --metrics no", "--metrics: expected on or off, got \"no\"");
	expect_usage_error("run hallway --metrics", "--metrics");
}

Test(cli_run, charge_summary_has_the_outcome)
{
	cr_assert_eq(run_cli("run charge --agents 120 --seconds 2 --summary json"), 0, "%s", err);
	cr_assert_geq(json_number(out, "engaged"), 0.0, "%s", out);
	cr_assert_eq(json_number(out, "resolved_at"), -1.0, "not resolved after 2 s: %s", out);
	cr_assert_gt(json_number(out, "infantry_gap"), 20.0, "%s", out);
	cr_assert_eq(run_cli("run flock --agents 50 --steps 10 --summary json"), 0, "%s", err);
	json_number(out, "order");
	cr_assert_eq(run_cli("run crossing --agents 50 --steps 10 --summary json"), 0, "%s", err);
	cr_assert_null(strstr(out, "\"engaged\""), "outcome figures only for their scenario: %s", out);
}

Test(cli_run, list_shows_every_scenario_with_a_description)
{
	cr_assert_eq(run_cli("list"), 0, "%s", err);
	static const char* const names[] = {"herd ", "circle ", "field ", "crossing ", "bottleneck ", "hallway ",
	                                    "charge ", "flock "};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		cr_assert_not_null(strstr(out, names[k]), "%s missing:\n%s", names[k], out);
	}
	cr_assert_not_null(strstr(out, "four flows"), "%s", out);
}

Test(cli_run, help_for_every_subcommand)
{
	cr_assert_eq(run_cli("--help"), 0);
	cr_assert_not_null(strstr(out, "throng run <scenario>"), "%s", out);
	cr_assert_not_null(strstr(out, "throng list"), "%s", out);
	cr_assert_eq(run_cli("run --help"), 0);
	cr_assert_not_null(strstr(out, "--agents"), "%s", out);
	cr_assert_not_null(strstr(out, "--summary"), "%s", out);
	cr_assert_not_null(strstr(out, "--seconds"), "%s", out);
	cr_assert_not_null(strstr(out, "--quiet"), "%s", out);
	cr_assert_not_null(strstr(out, "--checkpoint-every N"), "%s", out);
	cr_assert_not_null(strstr(out, "--resume CKPT"), "%s", out);
	cr_assert_not_null(strstr(out, "128 + N"), "the help's second half: %s", out);
	cr_assert_str_empty(err);
	cr_assert_eq(run_cli("run herd --steps 5 --help"), 0, "help wins over a run");
	cr_assert_not_null(strstr(out, "Usage: throng run"), "%s", out);
	cr_assert_eq(run_cli("list --help"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "Usage: throng list"), "%s", out);
	cr_assert_eq(run_cli("list -h"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "Usage: throng list"), "%s", out);
	cr_assert_eq(run_cli("validate --help"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "Usage: throng validate"), "%s", out);
}

/// The crowd's figures of a JSON summary: start, added, removed, peak and
/// final (= agents).
static void expect_crowd(const char* json, double start, double added, double removed, double peak, double final)
{
	static const char* const keys[6] = {"agents_start", "agents_added", "agents_removed",
	                                    "agents_peak",  "agents_final", "agents"};
	const double want[6] = {start, added, removed, peak, final, final};
	for (int k = 0; k < 6; ++k) {
		cr_assert_eq(json_number(json, keys[k]), want[k], "%s: %g, expected %g in:\n%s", keys[k],
		             json_number(json, keys[k]), want[k], json);
	}
}

Test(cli_run, a_crowd_that_neither_comes_nor_goes)
{
	// Added 0, removed 0, peak = final = start, metrics on and off.
	static const char* const runs[2] = {"run herd --agents 50 --steps 10 --summary json",
	                                    "run crossing --agents 40 --steps 5 --summary json --metrics off"};
	static const double agents[2] = {50.0, 40.0};
	for (int k = 0; k < 2; ++k) {
		cr_assert_eq(run_cli(runs[k]), 0, "%s", err);
		expect_crowd(out, agents[k], 0.0, 0.0, agents[k], agents[k]);
	}
}

/// The agent of `scene` with id `like`, spawned again `count` times.
static void spawn_like(throng_world* w, uint32_t like, uint32_t count)
{
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, like, &a), THRONG_OK, "%s", throng_last_error());
	throng_agent_def d = throng_agent_default_def();
	d.position = a.position;
	d.max_speed = a.max_speed;
	d.max_force = a.max_force;
	d.radius = a.radius;
	d.archetype = a.archetype;
	d.group = a.group;
	d.target = a.target;
	for (uint32_t k = 0; k < count; ++k) {
		d.position.x += 0.5f;
		cr_assert_eq(throng_world_spawn(w, &d, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
}

/// What `print` writes of s, into buf (NUL-terminated, cap bytes).
static const char* printed(void (*print)(FILE*, const cli_summary*), const cli_summary* s, char* buf, size_t cap)
{
	FILE* f = tmpfile();
	cr_assert_not_null(f);
	print(f, s);
	rewind(f);
	const size_t n = fread(buf, 1, cap - 1u, f);
	buf[n] = '\0';
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/// One step of `scene`, observed.
static void step_observed(throng_scene* scene, throng_metrics* m)
{
	cr_assert_eq(throng_scene_step(scene), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_metrics_observe(m, throng_scene_world(scene)), THRONG_OK, "%s", throng_last_error());
}

Test(cli_run, the_summary_counts_the_crowd_that_came_and_went)
{
	// 40 walkers; step; 3 removed and 5 added (42, the peak); step; 6
	// removed (36); step. So 40 at the start, 5 added, 9 removed, peak 42,
	// 36 at the end, and 40 + 42 + 36 = 118 agent-steps.
	throng_scene* scene = thr_test_scene("crossing", 40, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(scene);
	cli_summary s;
	cli_summary_begin(&s, w);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, throng_scene_goal_radius(scene), &m), THRONG_OK, "%s", throng_last_error());
	step_observed(scene, m);
	const uint32_t first[3] = {3, 7, 11}, second[6] = {0, 1, 2, 20, 40, 44};
	cr_assert_eq(throng_world_remove_agents(w, first, 3), THRONG_OK, "%s", throng_last_error());
	spawn_like(w, 5, 5); // ids 40 .. 44
	step_observed(scene, m);
	cr_assert_eq(throng_world_remove_agents(w, second, 6), THRONG_OK, "%s", throng_last_error());
	step_observed(scene, m);
	const throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	cr_assert_eq(q.agent_steps, 118u);
	cr_assert_eq(cli_summary_measure(scene, &q, &s), THRONG_OK, "%s", throng_last_error());
	s.scenario = "crossing";
	s.steps = 3;
	s.seconds = 2.0;
	cli_summary_finish(&s);
	cr_assert_eq(s.agents_start, 40u);
	cr_assert_eq(s.agents_added, 5u);
	cr_assert_eq(s.agents_removed, 9u);
	cr_assert_eq(s.agents_peak, 42u);
	cr_assert_eq(s.agents_final, 36u);
	cr_assert_eq(s.agents, 36u);
	cr_assert_eq(s.agent_steps_per_s, 59.0, "the agent-steps stepped, over 2 s: %g", s.agent_steps_per_s);
	cr_assert_eq(s.quality.agents, 45u, "every agent watched");
	cr_assert_eq(s.quality.agents_left, 9u);
	// Both printers hold the same figures.
	const char* text = printed(cli_summary_print_json, &s, out, OUT_CAP);
	expect_crowd(text, 40.0, 5.0, 9.0, 42.0, 36.0);
	text = printed(cli_summary_print_text, &s, out, OUT_CAP);
	static const char* const lines[] = {"\nagents_start: ", "\nagents_added: ", "\nagents_removed: ",
	                                    "\nagents_peak: ", "\nagents_final: "};
	static const char* const values[] = {"40\n", "5\n", "9\n", "42\n", "36\n"};
	for (int k = 0; k < 5; ++k) {
		const char* at = strstr(text, lines[k]);
		cr_assert_not_null(at, "%s", text);
		at += strlen(lines[k]);
		at += strspn(at, " ");
		cr_assert_eq(strncmp(at, values[k], strlen(values[k])), 0, "%s%s", lines[k], at);
	}
	throng_scene_destroy(scene);
}

/// A room whose crowd comes and goes: 10 walkers at rest on their targets,
/// 4 of them inside an exit (a sink), which takes them at step 1; a source
/// by the exit adds 8 walkers, one a step from step 1, heading into it,
/// where it takes them too before they arrive. So: 10 at the start, 6
/// after step 1 (then 7), 14 after step 8 (the peak), 6 at the end; 8
/// added, 12 removed; reached 10 (the 4 the exit took had arrived at the
/// start, on their targets), goals 18 (every agent watched).
static const char door_file[] =
		"version: 2\n"
		"name: \"door\"\n"
		"steps: 300\n"
		"goal_radius: 0.5\n"
		"world:\n"
		"  bounds: {min: [-20, -10], max: [20, 10], mode: contain}\n"
		"  dt: 0.016666668\n"
		"  seed: 1\n"
		"archetypes:\n"
		"  \"walker\":\n"
		"    mode: weighted\n"
		"    slots:\n"
		"      - {kind: arrive, weight: 1, target: point, slow_radius: 2}\n"
		"agents:\n"
		"  rows:\n"
		"    - [15, 0, 0, 0, 1, 0, 15, 0, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [16, 2, 0, 0, 1, 0, 16, 2, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [17, -2, 0, 0, 1, 0, 17, -2, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [18, 4, 0, 0, 1, 0, 18, 4, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-15, -6, 0, 0, 1, 0, -15, -6, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-15, -3, 0, 0, 1, 0, -15, -3, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-15, 0, 0, 0, 1, 0, -15, 0, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-15, 3, 0, 0, 1, 0, -15, 3, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-15, 6, 0, 0, 1, 0, -15, 6, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"    - [-12, 0, 0, 0, 1, 0, -12, 0, 1.3, 4, 0.3, \"walker\", 0, null]\n"
		"zones:\n"
		"  - {shape: box, name: exit, min: [14, -5], max: [20, 5], sink: true}\n"
		"sources:\n"
		"  - {shape: box, min: [11, -2], max: [13, 2], rate: 60, count: 8, archetype: walker, goal: [17, 0]}\n";

Test(cli_run, a_scenario_file_whose_crowd_comes_and_goes)
{
	char dir[64], path[96], args[160];
	thr_test_make_dir(dir, sizeof dir, "thr-door");
	snprintf(path, sizeof path, "%s/door.yaml", dir);
	thr_test_write_text(path, door_file);
	static const char* const opts[3] = {"--summary json", "--summary json --engine scalar",
	                                    "--summary json --metrics off"};
	for (int k = 0; k < 3; ++k) {
		snprintf(args, sizeof args, "run %s %s", path, opts[k]);
		cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
		expect_crowd(out, 10.0, 8.0, 12.0, 14.0, 6.0);
		if (k < 2) {
			cr_assert_eq(json_number(out, "reached"), 10.0, "%s", out);
			cr_assert_eq(json_number(out, "goals"), 18.0, "%s", out);
		}
	}
	snprintf(args, sizeof args, "run %s", path);
	cr_assert_eq(run_cli(args), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\nagents_removed:"), "%s", out);
	thr_test_remove_dir(dir);
}

/// A skirmish (docs/ARMIES.md): two of group 3 (one blow kills, reach
/// REACH m) against three of group 7 (health 50, no attack), the third of
/// them 2.15 m from the nearest of group 3, and a walker of group 9
/// without combat. `%s` is the reach.
static const char skirmish_file[] =
		"version: 2\n"
		"world:\n"
		"  bounds: {min: [-10, -10], max: [10, 10], mode: contain}\n"
		"archetypes:\n"
		"  red:\n"
		"    target_rule: {label: 7, sight_radius: 20}\n"
		"    combat: {attack: melee, reach: %s, damage: 100}\n"
		"    slots: []\n"
		"  blue:\n"
		"    combat: {health: 50}\n"
		"    slots: []\n"
		"  walker:\n"
		"    slots: []\n"
		"agents:\n"
		"  rows:\n"
		"    - [0, 0, 0, 0, 1, 0, 0, 0, 1.3, 4, 0.3, \"red\", 3, null]\n"
		"    - [0, 2, 0, 0, 1, 0, 0, 2, 1.3, 4, 0.3, \"red\", 3, null]\n"
		"    - [0.8, 0, 0, 0, 1, 0, 0.8, 0, 1.3, 4, 0.3, \"blue\", 7, null]\n"
		"    - [0.8, 2, 0, 0, 1, 0, 0.8, 2, 1.3, 4, 0.3, \"blue\", 7, null]\n"
		"    - [0.8, 4, 0, 0, 1, 0, 0.8, 4, 1.3, 4, 0.3, \"blue\", 7, null]\n"
		"    - [5, 5, 0, 0, 1, 0, 5, 5, 1.3, 4, 0.3, \"walker\", 9, null]\n";

Test(cli_run, a_battle_summary_counts_the_survivors_of_each_side_and_names_the_winner)
{
	char dir[64], path[96], args[160], text[sizeof skirmish_file + 8];
	thr_test_make_dir(dir, sizeof dir, "thr-skirmish");
	snprintf(path, sizeof path, "%s/skirmish.yaml", dir);
	// Reach 1 m: each of group 3 kills the one beside it in the first
	// step; the third of group 7 (a gap of 1.55 m) is out of reach for good.
	snprintf(text, sizeof text, skirmish_file, "1");
	thr_test_write_text(path, text);
	snprintf(args, sizeof args, "run %s --steps 100 --summary json", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_eq(json_number(out, "survivors_3"), 2.0, "%s", out);
	cr_assert_eq(json_number(out, "survivors_7"), 1.0, "%s", out);
	cr_assert_null(strstr(out, "survivors_9"), "a walker without combat is on no side: %s", out);
	cr_assert_not_null(strstr(out, "\"winner\": \"undecided\""), "%s", out);
	snprintf(args, sizeof args, "run %s --steps 100", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_not_null(strstr(out, "standing: 2 of group 3's 2, 1 of group 7's 3: undecided"), "%s", out);
	// Reach 2 m: the third falls too, to the second of group 3 when its
	// cooldown (1 s, 60 steps) has passed.
	snprintf(text, sizeof text, skirmish_file, "2");
	thr_test_write_text(path, text);
	snprintf(args, sizeof args, "run %s --steps 100 --summary json", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_eq(json_number(out, "survivors_3"), 2.0, "%s", out);
	cr_assert_eq(json_number(out, "survivors_7"), 0.0, "%s", out);
	cr_assert_not_null(strstr(out, "\"winner\": \"3\""), "%s", out);
	snprintf(args, sizeof args, "run %s --steps 100", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_not_null(strstr(out, "standing: 2 of group 3's 2, 0 of group 7's 3: won by group 3"), "%s", out);
	// A scene without combat has no sides.
	cr_assert_eq(run_cli("run herd --agents 20 --steps 2 --summary json"), 0, "%s", err);
	cr_assert_null(strstr(out, "winner"), "%s", out);
	thr_test_remove_dir(dir);
}

/// A rout (docs/ARMIES.md, "Morale and rout"): two of group 3 (one blow
/// kills, reach 1 m) each beside one of a unit of four of group 7 (no
/// attack, breaks_at 0.5): the two they kill in the first step are half
/// the unit, which routs after that step and runs for (9, 0).
static const char rout_file[] =
		"version: 2\n"
		"world:\n"
		"  bounds: {min: [-10, -10], max: [10, 10], mode: contain}\n"
		"archetypes:\n"
		"  red:\n"
		"    target_rule: {label: 7, sight_radius: 20}\n"
		"    combat: {attack: melee, reach: 1, damage: 100}\n"
		"    slots: []\n"
		"  blue:\n"
		"    combat: {health: 50}\n"
		"    slots: []\n"
		"groups:\n"
		"  red: {id: 3, count: 2, archetype: red, spawn: {shape: grid, center: [0, 1], spacing: [2, 2], columns: 1}}\n"
		"  blue: {id: 7, count: 4, archetype: blue, morale: {breaks_at: 0.5, refuge: [9, 0]},\n"
		"         spawn: {shape: grid, center: [0.8, 3], spacing: [2, 2], columns: 1}}\n";

Test(cli_run, a_rout_loses_the_battle_and_the_summary_says_when_it_began)
{
	char dir[64], path[96], args[160];
	thr_test_make_dir(dir, sizeof dir, "thr-rout");
	snprintf(path, sizeof path, "%s/rout.yaml", dir);
	thr_test_write_text(path, rout_file);
	snprintf(args, sizeof args, "run %s --steps 100 --summary json", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_eq(json_number(out, "survivors_3"), 2.0, "%s", out);
	cr_assert_eq(json_number(out, "survivors_7"), 2.0, "%s", out); // alive, but running
	cr_assert_not_null(strstr(out, "\"winner\": \"3\""), "%s", out);
	cr_assert_eq(json_number(out, "routed_units"), 1.0, "%s", out);
	cr_assert_float_eq(json_number(out, "first_rout_s"), 1.0 / 60.0, 1e-6, "%s", out); // after the first step
	snprintf(args, sizeof args, "run %s --steps 100", path);
	cr_assert_eq(run_cli(args), 0, "%s: %s", args, err);
	cr_assert_not_null(strstr(out, "standing: 2 of group 3's 2, 0 of group 7's 4 (2 routing): won by group 3"), "%s",
	                   out);
	// A scene without units has no rout figures.
	cr_assert_eq(run_cli("run herd --agents 20 --steps 2 --summary json"), 0, "%s", err);
	cr_assert_null(strstr(out, "routed_units"), "%s", out);
	thr_test_remove_dir(dir);
}

// ---------------------------------------------------------------------------
// --checkpoint, --checkpoint-every and --resume (issue 33, item 9)
// ---------------------------------------------------------------------------

/// The summary's figures a resumed run must share with the run that never
/// stopped: the hash, the simulated time and the scene's outcome figures
/// (the JSON from "hash" to the end, less the quality metrics, which are
/// over the run's own steps). Copied into buf.
static void end_state(const char* json, char* buf, size_t cap)
{
	static const char* const keys[] = {"\"hash\"", "\"simulated_seconds\"", "\"engaged\"", "\"resolved_at\"",
	                                   "\"infantry_gap\"", "\"overlaps\""};
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		const char* p = strstr(json, keys[k]);
		if (p != NULL) {
			size_t len = strcspn(p, ",\n");
			strncat(buf, p, len < cap - strlen(buf) - 2 ? len : cap - strlen(buf) - 2);
			strcat(buf, ";");
		}
	}
}

/// `throng run SCENE ARGS --steps FIRST+MORE` versus the same run stopped
/// after FIRST steps with --checkpoint and resumed for MORE with
/// --resume ARGS2 (thread counts may differ): the same end state.
static void cli_resumes(const char* scene, const char* args, uint32_t first, uint32_t more, const char* resume_args)
{
	char dir[128], cmd[1024], want[512], got[512];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	snprintf(cmd, sizeof cmd, "run %s %s --steps %u --summary json", scene, args, first + more);
	cr_assert_eq(run_cli(cmd), 0, "%s: %s", cmd, err);
	end_state(out, want, sizeof want);
	cr_assert_not_null(strstr(want, "hash"), "%s", out);
	snprintf(cmd, sizeof cmd, "run %s %s --steps %u --checkpoint %s/run.ck --checkpoint-every 50 -q", scene, args,
	         first, dir);
	cr_assert_eq(run_cli(cmd), 0, "%s: %s", cmd, err);
	snprintf(cmd, sizeof cmd, "run --resume %s/run.ck --steps %u %s --summary json", dir, more, resume_args);
	cr_assert_eq(run_cli(cmd), 0, "%s: %s", cmd, err);
	cr_assert_str_empty(err, "%s", err);
	end_state(out, got, sizeof got);
	cr_assert_str_eq(got, want, "%s %s resumed at step %u", scene, args, first);
	cr_assert_eq(json_number(out, "steps"), (double)more, "%s", out);
	thr_test_remove_dir(dir);
}

Test(cli_run, resume_reaches_the_run_that_never_stopped)
{
	// charge's battle resolves at step 780 with 200 agents: resumed after it.
	cli_resumes("charge", "--agents 200", 840, 60, "--threads 2");
	cli_resumes("herd", "", 700, 120, "--agents 8 --seed 1 --engine simd");
	cli_resumes("field", "--agents 5000 --threads 2 --metrics off", 130, 50, "--threads 1 --metrics off");
}

Test(cli_run, checkpoint_cadence_counts_from_the_scenes_first_step)
{
	char dir[128], cmd[512];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	// A checkpoint that cannot be written says at which step it was due.
	snprintf(cmd, sizeof cmd, "run herd --steps 120 --checkpoint %s/no/run.ck --checkpoint-every 50", dir);
	cr_assert_eq(run_cli(cmd), 4, "%s", err);
	cr_assert_not_null(strstr(err, "--checkpoint: at step 50: "), "%s", err);
	snprintf(cmd, sizeof cmd, "run herd --steps 120 --checkpoint %s/no/run.ck", dir);
	cr_assert_eq(run_cli(cmd), 4, "%s", err);
	cr_assert_not_null(strstr(err, "--checkpoint: at step 120: "), "%s", err);
	// Resumed at step 120, the next is due at 150, not 170.
	snprintf(cmd, sizeof cmd, "run herd --steps 120 --checkpoint %s/run.ck -q", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run --resume %s/run.ck --steps 100 --checkpoint %s/no/run.ck --checkpoint-every 50",
	         dir, dir);
	cr_assert_eq(run_cli(cmd), 4, "%s", err);
	cr_assert_not_null(strstr(err, "--checkpoint: at step 150: "), "%s", err);
	// Resumed without --steps: what is left of herd's 2000.
	snprintf(cmd, sizeof cmd, "run herd --resume %s/run.ck --checkpoint %s/run.ck --summary json", dir, dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 1880.0, "%s", out);
	snprintf(cmd, sizeof cmd, "run --resume %s/run.ck --summary json", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 0.0, "%s", out);
	thr_test_remove_dir(dir);
}

Test(cli_run, bad_checkpoint_options)
{
	expect_usage_error("run herd --checkpoint-every 10", "--checkpoint-every: needs --checkpoint");
	expect_usage_error("run herd --checkpoint x.ck --checkpoint-every 0", "--checkpoint-every");
	expect_usage_error("run herd --checkpoint x.ck --checkpoint-every -5", "--checkpoint-every");
	expect_usage_error("run herd --checkpoint x.ck --checkpoint-every ten", "--checkpoint-every");
	expect_usage_error("run herd --checkpoint ''", "--checkpoint");
	expect_usage_error("run herd --checkpoint -", "--checkpoint");
	expect_usage_error("run herd --checkpoint", "--checkpoint");
	expect_usage_error("run --resume ''", "--resume");
	expect_usage_error("run --resume /dev/stdin", "--resume");
	expect_usage_error("run herd --out x.ck --checkpoint x.ck", "--out");
	expect_usage_error("run --resume x.ck --out x.ck", "--out");
	expect_usage_error("run --steps 5", "missing <scenario>");
}

/// `throng ARGS` fails with `status`, one line on stderr naming --resume,
/// the file and `what`.
static void resume_refused(const char* args, int status, const char* path, const char* what)
{
	int rc = run_cli(args);
	cr_assert_eq(rc, status, "throng %s: exit %d: %s", args, rc, err);
	cr_assert(strncmp(err, "throng: --resume: ", 18) == 0, "%s", err);
	cr_assert_not_null(strstr(err, path), "%s", err);
	cr_assert_not_null(strstr(err, what), "throng %s: %s", args, err);
	const char* nl = strchr(err, '\n');
	cr_assert(nl != NULL && nl[1] == '\0', "not one line: %s", err);
	cr_assert_str_empty(out, "%s", out);
}

Test(cli_run, resume_refuses_a_missing_damaged_or_other_checkpoint)
{
	char dir[128], ck[192], bad[192], cmd[512];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	snprintf(ck, sizeof ck, "%s/herd.ck", dir);
	snprintf(bad, sizeof bad, "%s/bad.ck", dir);
	snprintf(cmd, sizeof cmd, "run herd --agents 40 --seed 5 --steps 20 --checkpoint %s -q", ck);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);

	snprintf(cmd, sizeof cmd, "run --resume %s", bad);
	resume_refused(cmd, 3, bad, "cannot open");
	thr_test_write_text(bad, "not a checkpoint at all, but long enough to have a header\n");
	resume_refused(cmd, 3, bad, "magic");
	char bytes[1 << 16];
	size_t n = thr_test_slurp(ck, bytes, sizeof bytes);
	cr_assert(n > 100 && n < sizeof bytes - 1);
	bytes[n - 20] ^= 1;
	FILE* f = fopen(bad, "wb");
	cr_assert(f != NULL && fwrite(bytes, 1, n, f) == n && fclose(f) == 0);
	resume_refused(cmd, 3, bad, "checksum mismatch");

	snprintf(cmd, sizeof cmd, "run field --resume %s", ck);
	resume_refused(cmd, 2, ck, "a checkpoint of built-in scene herd");
	snprintf(cmd, sizeof cmd, "run --resume %s --agents 41", ck);
	resume_refused(cmd, 2, ck, "with 40 agents, not 41");
	snprintf(cmd, sizeof cmd, "run herd --resume %s --seed 6", ck);
	resume_refused(cmd, 2, ck, "with seed 5, not 6");
	snprintf(cmd, sizeof cmd, "run --resume %s --engine scalar", ck);
	resume_refused(cmd, 2, ck, "on the simd engine, not scalar");
	snprintf(cmd, sizeof cmd, "run %s/hall.yaml --resume %s", dir, ck);
	resume_refused(cmd, 2, ck, "not of the scenario file");
	// What matches runs.
	snprintf(cmd, sizeof cmd, "run herd --resume %s --agents 40 --seed 5 --engine simd --steps 3 --summary json", ck);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	cr_assert_eq(json_number(out, "steps"), 3.0, "%s", out);
	// The summary names the checkpoint's engine and seed, not the defaults.
	snprintf(cmd, sizeof cmd, "run herd --engine scalar --steps 5 --checkpoint %s -q", ck);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run --resume %s --steps 1", ck);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	cr_assert_not_null(strstr(out, "scalar"), "%s", out);
	cr_assert_null(strstr(out, "simd"), "%s", out);
	thr_test_remove_dir(dir);
}

Test(cli_run, resume_out_is_a_new_file_from_the_checkpoints_state)
{
	char dir[128], cmd[512], path[192];
	static char csv[1 << 16];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	snprintf(cmd, sizeof cmd, "run herd --steps 60 --checkpoint %s/run.ck -q", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run --resume %s/run.ck --steps 2 --out %s/more.csv -q", dir, dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(path, sizeof path, "%s/more.csv", dir);
	thr_test_slurp(path, csv, sizeof csv);
	// Frames 0 to 2 of the new file, at the scene's times: 1 s (step 60) on.
	cr_assert_not_null(strstr(csv, "\n0,0,1.0000"), "%.300s", csv);
	cr_assert_not_null(strstr(csv, ",2,1.03333"), "%.300s", csv);
	cr_assert_null(strstr(csv, ",3,"), "%.300s", csv);
	thr_test_remove_dir(dir);
}

Test(cli_run, a_signal_leaves_a_checkpoint_to_resume_from, .timeout = 120)
{
	char dir[128], cmd[1024], want[512], got[512];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	cr_assert_eq(run_cli("run herd --steps 600 --summary json"), 0, "%s", err);
	end_state(out, want, sizeof want);
	// Stopped by SIGINT about a second into 10 s of real time.
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { '%s' run herd --steps 600 --realtime --checkpoint run.ck --checkpoint-every 1000 "
	         "--summary json > summary.json 2> err.txt & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo $?; }",
	         dir, THRONG_CLI_PATH);
	cr_assert_eq(thr_test_run(cmd, out, OUT_CAP, err, ERR_CAP), 0, "%s", err);
	cr_assert_eq(atoi(out), 130, "exit %s", out);
	char path[192];
	static char summary[8192];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	thr_test_slurp(path, summary, sizeof summary);
	const double done = json_number(summary, "steps");
	cr_assert(done > 0.0 && done < 600.0, "%s", summary);
	snprintf(cmd, sizeof cmd, "run --resume %s/run.ck --steps %.0f --summary json", dir, 600.0 - done);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	end_state(out, got, sizeof got);
	cr_assert_str_eq(got, want, "stopped after %.0f steps", done);
	thr_test_remove_dir(dir);
}

Test(cli_run, a_scenario_files_run_resumes)
{
	char dir[128], cmd[1024], want[512], got[512];
	thr_test_make_dir(dir, sizeof dir, "throng-cli-ck");
	snprintf(cmd, sizeof cmd, "save field --agents 300 --seed 4 --out %s/f.yaml", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run %s/f.yaml --steps 200 --summary json", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	end_state(out, want, sizeof want);
	snprintf(cmd, sizeof cmd, "run %s/f.yaml --steps 120 --checkpoint %s/run.ck -q", dir, dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run %s/f.yaml --resume %s/run.ck --steps 80 --summary json", dir, dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	end_state(out, got, sizeof got);
	cr_assert_str_eq(got, want);
	// Another file (another seed) is refused, naming both.
	snprintf(cmd, sizeof cmd, "save field --agents 300 --seed 5 --out %s/g.yaml", dir);
	cr_assert_eq(run_cli(cmd), 0, "%s", err);
	snprintf(cmd, sizeof cmd, "run %s/g.yaml --resume %s/run.ck", dir, dir);
	cr_assert_eq(run_cli(cmd), 2, "%s", err);
	cr_assert_not_null(strstr(err, "g.yaml"), "%s", err);
	cr_assert_not_null(strstr(err, "run.ck"), "%s", err);
	thr_test_remove_dir(dir);
}
