// SPDX-License-Identifier: MIT
// The `throng` command: summaries, listing, and one clear line plus exit
// status 2 for every kind of bad argument. Runs the built executable
// (THRONG_CLI_PATH) through /bin/sh.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define OUT_CAP 16384
#define ERR_CAP 4096

static char out[OUT_CAP];
static char err[ERR_CAP];

/// `throng <args>` into out and err; its exit status.
static int run_cli(const char* args) { return thr_test_cli(args, out, OUT_CAP, err, ERR_CAP); }

/// The 16 hex digits of "hash": "..." in a JSON summary.
static void json_hash(const char* json, char hash[17])
{
	const char* p = strstr(json, "\"hash\": \"");
	cr_assert_not_null(p, "no hash in:\n%s", json);
	p += strlen("\"hash\": \"");
	for (int k = 0; k < 16; ++k) {
		cr_assert(strchr("0123456789abcdef", p[k]) != NULL && p[k] != '\0', "bad hash in:\n%s", json);
		hash[k] = p[k];
	}
	cr_assert_eq(p[16], '"');
	hash[16] = '\0';
}

/// One-line message on stderr naming `what`, nothing on stdout, status 2.
static void expect_usage_error(const char* args, const char* what)
{
	int rc = run_cli(args);
	cr_assert_eq(rc, 2, "throng %s: exit %d, stderr: %s", args, rc, err);
	cr_assert_not_null(strstr(err, what), "throng %s: stderr does not name %s: %s", args, what, err);
	cr_assert_not_null(strstr(err, "throng: "), "throng %s: %s", args, err);
	const char* nl = strchr(err, '\n');
	cr_assert(nl != NULL && nl[1] == '\0', "throng %s: not one line: %s", args, err);
	cr_assert_str_empty(out, "throng %s: stdout: %s", args, out);
}

Test(cli, run_herd_json_has_every_key)
{
	int rc = run_cli("run herd --steps 50 --summary json");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	static const char* const keys[] = {"scenario", "agents", "steps", "engine", "threads", "seconds",
	                                   "agent_steps_per_s", "hash", "overlaps", "max_speed_ratio", "nonfinite",
	                                   "out_of_bounds", "reached", "clamped"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		char key[64];
		snprintf(key, sizeof key, "\"%s\": ", keys[k]);
		cr_assert_not_null(strstr(out, key), "no %s in:\n%s", keys[k], out);
	}
	cr_assert_eq(out[0], '{');
	cr_assert_not_null(strstr(out, "\"scenario\": \"herd\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"agents\": 8,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"steps\": 50,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"engine\": \"simd\""), "simd is the default: %s", out);
	cr_assert_not_null(strstr(out, "\"nonfinite\": 0,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"out_of_bounds\": 0,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"reached\": 0"), "herd has no goals: %s", out);
	cr_assert_eq(strcmp(out + strlen(out) - 2, "}\n"), 0, "%s", out);
	char hash[17];
	json_hash(out, hash);
}

Test(cli, run_text_summary_and_options)
{
	int rc = run_cli("run circle --agents 50 --steps 5 --seed 0x2a --engine scalar --summary=text");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	cr_assert_not_null(strstr(out, "scenario:"), "%s", out);
	cr_assert_not_null(strstr(out, " circle\n"), "%s", out);
	cr_assert_not_null(strstr(out, "agents:"), "%s", out);
	cr_assert_not_null(strstr(out, " 50\n"), "%s", out);
	cr_assert_not_null(strstr(out, " 42\n"), "seed 0x2a is 42: %s", out);
	cr_assert_str_empty(err, "%s", err);
}

// `list` and `--help`: test_cli_run.c.
Test(cli, version_and_no_command)
{
	cr_assert_eq(run_cli("--version"), 0);
	cr_assert_not_null(strstr(out, "throng 0."), "%s", out);
	cr_assert_eq(run_cli(""), 2, "no command is a usage error");
}

Test(cli, bad_arguments_exit_2_naming_the_argument)
{
	expect_usage_error("run stampede", "stampede");
	// The unknown-scenario message lists the known ones.
	cr_assert_not_null(strstr(err, "herd"), "%s", err);
	cr_assert_not_null(strstr(err, "circle"), "%s", err);
	expect_usage_error("run herd --agents 0", "--agents");
	expect_usage_error("run herd --agents -5", "--agents");
	expect_usage_error("run herd --agents abc", "--agents");
	cr_assert_not_null(strstr(err, "\"abc\""), "quotes the value: %s", err);
	expect_usage_error("run herd --agents 99999999999", "--agents");
	expect_usage_error("run herd --agents 18446744073709551616", "--agents"); // 2^64: overflow
	expect_usage_error("run herd --agents ''", "--agents");
	expect_usage_error("run herd --agents ' 5'", "--agents");
	expect_usage_error("run herd --agents 5x", "--agents");
	expect_usage_error("run herd --agents", "--agents"); // missing value
	expect_usage_error("run herd --steps x", "--steps");
	expect_usage_error("run herd --steps -1", "--steps");
	expect_usage_error("run herd --steps nan", "--steps");
	expect_usage_error("run herd --seed 1.5", "--seed");
	expect_usage_error("run herd --seed -1", "--seed");
	expect_usage_error("run herd --summary xml", "--summary");
	expect_usage_error("run herd --engine foo", "--engine");
	cr_assert_not_null(strstr(err, "expected scalar or simd"), "lists the engines: %s", err);
	expect_usage_error("run herd --threads 0", "--threads");
	expect_usage_error("run herd --threads 2000", "--threads");
	expect_usage_error("run herd --threads two", "--threads");
	expect_usage_error("run herd --frobnicate", "--frobnicate");
	expect_usage_error("run", "scenario");
	expect_usage_error("run herd circle", "circle");
	expect_usage_error("list extra", "extra");
	expect_usage_error("frob", "frob");
}

/// Every option of `throng <command> --help` that takes a value (a line
/// "  --name VALUE ..." or "..., --name VALUE"), given without one after
/// `prefix`: each is refused naming the option as the user typed it, as
/// expect_usage_error checks. Returns how many options were tried.
static uint32_t every_option_without_its_value(const char* command, const char* prefix)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s --help", command);
	cr_assert_eq(run_cli(cmd), 0, "throng %s: %s", cmd, err);
	static char help[OUT_CAP];
	memcpy(help, out, sizeof help);
	uint32_t tried = 0;
	for (const char* line = help; line != NULL && *line != '\0'; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "  --", 4) != 0) {
			continue; // option lines only, not the prose that names options
		}
		const char* eol = strchr(line, '\n');
		for (const char* o = line + 2; o != NULL && (eol == NULL || o < eol); o = strstr(o + 2, ", --")) {
			o = o[0] == ',' ? o + 2 : o;
			size_t len = strspn(o + 2, "abcdefghijklmnopqrstuvwxyz-") + 2;
			if (o[len] != ' ' || !(o[len + 1] >= 'A' && o[len + 1] <= 'Z')) {
				continue; // a flag: no value
			}
			char opt[64], args[512];
			snprintf(opt, sizeof opt, "%.*s", (int)len, o);
			snprintf(args, sizeof args, "%s %s %s", command, prefix, opt);
			expect_usage_error(args, opt);
			++tried;
		}
	}
	return tried;
}

Test(cli, every_option_in_the_help_is_named_when_its_value_is_missing)
{
	// issue 36, item 7: a message names what the user typed (--agents), never
	// a C field. Every valued option the help lists, for each command.
	cr_assert_geq(every_option_without_its_value("run", "herd --steps 1"), 18u, "run's help lists fewer options");
	cr_assert_geq(every_option_without_its_value("measure", "run.thr"), 7u);
	cr_assert_geq(every_option_without_its_value("save", "herd"), 3u);
}

Test(cli, same_seed_same_hash_different_seed_different_hash)
{
	char a[17], b[17], c[17];
	cr_assert_eq(run_cli("run herd --steps 200 --seed 7 --summary json"), 0, "%s", err);
	json_hash(out, a);
	cr_assert_eq(run_cli("run herd --steps 200 --seed 7 --summary json"), 0, "%s", err);
	json_hash(out, b);
	cr_assert_eq(run_cli("run herd --steps 200 --seed 8 --summary json"), 0, "%s", err);
	json_hash(out, c);
	cr_assert_str_eq(a, b);
	cr_assert_str_neq(a, c);
}

Test(cli, both_engines_and_thread_counts)
{
	// The simd engine is the default; the same run at 1 and 3 threads
	// gives the same hash, and the scalar engine runs the same scene.
	char one[17], three[17];
	cr_assert_eq(run_cli("run field --agents 300 --steps 60 --threads 1 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"engine\": \"simd\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"threads\": 1,"), "%s", out);
	json_hash(out, one);
	cr_assert_eq(run_cli("run field --agents 300 --steps 60 --threads 3 --summary json"), 0, "%s", err);
	json_hash(out, three);
	cr_assert_str_eq(one, three);
	cr_assert_eq(run_cli("run field --agents 300 --steps 60 --engine scalar --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"engine\": \"scalar\""), "%s", out);
	cr_assert_not_null(strstr(out, "\"nonfinite\": 0,"), "%s", out);
}

Test(cli, herd_acceptance_figures)
{
	// The bar: `throng run herd --steps 2000 --summary json`
	// reports max_speed_ratio <= 1.000001, nonfinite 0, out_of_bounds 0.
	cr_assert_eq(run_cli("run herd --steps 2000 --summary json"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "\"nonfinite\": 0,"), "%s", out);
	cr_assert_not_null(strstr(out, "\"out_of_bounds\": 0,"), "%s", out);
	const char* p = strstr(out, "\"max_speed_ratio\": ");
	cr_assert_not_null(p);
	double ratio = 0.0;
	cr_assert_eq(sscanf(p + strlen("\"max_speed_ratio\": "), "%lf", &ratio), 1);
	cr_assert_leq(ratio, 1.000001, "%s", out);
	cr_assert_gt(ratio, 0.5, "the herd moves: %s", out);
}
