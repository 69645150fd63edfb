// SPDX-License-Identifier: MIT
// The `throng` command on scenario files (issue 11): the summary reports
// the seed the run used, --seconds refuses a step count it cannot hold, a
// group path that no slot follows is a warning, not an error. Runs the
// built executable (THRONG_CLI_PATH) through /bin/sh.
#define _DEFAULT_SOURCE // mkstemps
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define OUT_CAP 32768
#define ERR_CAP 4096

static char out[OUT_CAP];
static char err[ERR_CAP];
static char file[64];

/// `throng <args>` into out and err; its exit status. "FILE" in args is
/// replaced by the scenario written with write_scenario().
static int run_cli(const char* args)
{
	char cmd[1024];
	const char* at = strstr(args, "FILE");
	if (at == NULL) {
		snprintf(cmd, sizeof cmd, "%s", args);
	} else {
		snprintf(cmd, sizeof cmd, "%.*s%s%s", (int)(at - args), args, file, at + 4);
	}
	return thr_test_cli(cmd, out, OUT_CAP, err, ERR_CAP);
}

/// Writes `text` to a new temporary .yaml file named in `file`.
static void write_scenario(const char* text)
{
	snprintf(file, sizeof file, "/tmp/throng_scen_XXXXXX.yaml");
	int fd = mkstemps(file, 5);
	cr_assert_geq(fd, 0);
	size_t len = strlen(text);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static const char* const seed_max =
	"world: {dt: 1e-20, seed: 0xFFFFFFFFFFFFFFFF}\n"
	"archetypes: {a: {slots: [{kind: wander}]}}\n"
	"groups: {g: {count: 3, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}}\n";

// Issue 11 item 6: `seed: 1` was printed (the command line's default) while
// the run used the file's 2^64-1.
Test(cli_scenario, summary_prints_the_seed_used)
{
	write_scenario(seed_max);
	cr_assert_eq(run_cli("run FILE --steps 2"), 0, "%s", err);
	const char* seed = thr_test_summary_value(out, "seed");
	cr_assert(seed != NULL && strncmp(seed, "18446744073709551615\n", 21) == 0, "%s", out);
	cr_assert_eq(run_cli("run FILE --steps 2 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"seed\": 18446744073709551615,"), "%s", out);
	// --seed replaces the file's, and the summary says so.
	cr_assert_eq(run_cli("run FILE --steps 2 --seed 0x10 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"seed\": 16,"), "%s", out);
	// A built-in scene: the command line's seed.
	cr_assert_eq(run_cli("run herd --steps 2 --seed 7 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"seed\": 7,"), "%s", out);
	unlink(file);
}

// Issue 11 item 4: 10 s at dt = 1e-20 is 1e21 steps; converted to an
// integer it became 0 and the run "succeeded" with nothing simulated.
Test(cli_scenario, seconds_beyond_the_step_limit_are_refused)
{
	write_scenario(seed_max);
	cr_assert_eq(run_cli("run FILE --seconds 10"), 2, "%s", out);
	cr_assert_not_null(strstr(err, "throng: --seconds: 10 s is "), "%s", err);
	cr_assert_not_null(strstr(err, "steps of this scenario's dt (1e-20 s), not from 1 to 1000000000\n"), "%s", err);
	cr_assert_str_empty(out);
	cr_assert_eq(run_cli("run FILE --seconds 1e-10"), 2, "%s", out);
	cr_assert_not_null(strstr(err, "--seconds: 1e-10 s is 99999"), "%s", err);
	unlink(file);
	write_scenario("world: {dt: 1e-9}\n"
	               "archetypes: {a: {slots: [{kind: seek}]}}\n"
	               "groups: {g: {count: 1, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}}\n");
	// dt = 1e-9 was refused already (1e10 steps), and still is.
	cr_assert_eq(run_cli("run FILE --seconds 10"), 2, "%s", out);
	cr_assert_not_null(strstr(err, "--seconds: 10 s is "), "%s", err);
	cr_assert_eq(run_cli("run FILE --seconds 1e-7 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"steps\": 100,"), "%s", out);
	unlink(file);
}

// Issue 11 item 10: the warning goes to stderr with its FILE:LINE:COL, and
// the run goes on (exit 0, the summary on stdout).
Test(cli_scenario, path_no_slot_follows_warns_and_runs)
{
	write_scenario("archetypes: {a: {slots: [{kind: seek}]}}\n"
	               "groups:\n"
	               "  g: {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}, path: [[3, 3]]}\n");
	char want[256];
	snprintf(want, sizeof want, "%s:3:85: warning: groups.g.path: archetype a has no path_following slot", file);
	cr_assert_eq(run_cli("run FILE --steps 3"), 0, "%s", err);
	cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
	const char* steps = thr_test_summary_value(out, "steps");
	cr_assert(steps != NULL && strncmp(steps, "3\n", 2) == 0, "%s", out);
	cr_assert_eq(run_cli("validate FILE"), 0, "%s", err);
	cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
	cr_assert_not_null(strstr(out, ": valid\n"), "%s", out);
	unlink(file);
}
