// SPDX-License-Identifier: MIT
// `throng measure` (issue 32): measures a binary stream this test writes
// with known states in a temporary directory, with the figures worked by
// hand; and `throng measure` on a run `throng run --out` just wrote. Bad
// arguments get one line naming the argument and exit 2; a run that cannot
// be read, exit 3. Runs the built executable (THRONG_CLI_PATH).
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/export.h"

#define OUT_CAP 65536
#define ERR_CAP 4096

static char out[OUT_CAP];
static char err[ERR_CAP];
static char dir[256];

/// Writes dir/run.thr (dir made with `tag`): dt = 0.5 s, steps 0 to 4, no
/// velocities, two agents a frame, stored in this order: agent first[k] at
/// (x0[k], 0) and agent 1 at y = 1, jumping: x = 1, 1, -1, -1, 1.
static void write_frames(const char* tag, const uint32_t first[5], const float x0[5])
{
	thr_test_make_dir(dir, sizeof dir, tag);
	char path[300];
	snprintf(path, sizeof path, "%s/run.thr", dir);
	throng_export_def def = throng_export_default_def();
	def.agents = 2;
	def.dt = 0.5f;
	def.bounds_min = (throng_vec2){-10, -10};
	def.bounds_max = (throng_vec2){10, 10};
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	const float x1[5] = {1, 1, -1, -1, 1};
	for (int k = 0; k < 5; ++k) {
		const uint32_t id[2] = {first[k], 1};
		const float x[2] = {x0[k], x1[k]}, y[2] = {0, 1}, zero[2] = {0, 0}, h[2] = {1, 1};
		const uint32_t u[2] = {0, 0};
		throng_view v = {2, (uint64_t)k, id, x, y, zero, zero, h, zero, h, u, u, zero, u};
		cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
}

/// write_frames: agent 0 walks along y = 0 at 2 m/s: x = -1.5, -0.5, 0.5,
/// 1.5, 2.5.
static void write_run(void)
{
	const uint32_t first[5] = {0, 0, 0, 0, 0};
	const float x0[5] = {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f};
	write_frames("throng-measure", first, x0);
}

static int measure(const char* args)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "measure run.thr %s", args);
	return thr_test_cli_in(dir, cmd, out, OUT_CAP, err, ERR_CAP);
}

/// The number after "\"key\": " at or after `from` in out.
static double json_after(const char* from, const char* key)
{
	char pat[80];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char* p = strstr(from, pat);
	cr_assert_not_null(p, "no %s in:\n%s", key, from);
	return strtod(p + strlen(pat), NULL);
}

/// Runs `throng measure run.thr <args>` (JSON) and checks its line's
/// crossings to the left and right and its first passings; returns where
/// the lines' report starts in out.
static const char* measure_line(const char* args, double left, double right, double first)
{
	cr_assert_eq(measure(args), 0, "%s", err);
	const char* line = strstr(out, "\"lines\"");
	cr_assert_not_null(line, "%s", out);
	cr_assert_eq(json_after(line, "left"), left, "%s", out);
	cr_assert_eq(json_after(line, "right"), right, "%s", out);
	cr_assert_eq(json_after(line, "first_passings"), first, "%s", out);
	return line;
}

Test(cli_measure, hand_worked_run)
{
	write_run();
	// The line (0,-3) -> (0,3): left is -x. Agent 0 crosses to the right at
	// 0.75 s (halfway through [0.5, 1]); agent 1 to the left at 0.75 s and
	// back to the right at 1.75 s. Over the run [0, 2): left 1, right 2,
	// total 3 / 2 s = 1.5 /s, net -0.5 /s, two first passings.
	const char* line = measure_line("--line 0,-3,0,3 --area -2,-2,2,2 --format json", 1, 2, 2);
	cr_assert_eq(json_after(line, "flow_total"), 1.5, "%s", out);
	cr_assert_eq(json_after(line, "flow_net"), -0.5, "%s", out);
	cr_assert_not_null(strstr(out, "{\"time\": 0.75, \"id\": 0, \"direction\": -1}, {\"time\": 0.75, \"id\": 1, "
	                               "\"direction\": 1}, {\"time\": 1.75, \"id\": 1, \"direction\": -1}"),
	                   "%s", out);
	// The area [-2, 2]^2, 16 m^2, holds both but in the last frame (agent 0
	// is out at x = 2.5): (4 * 2 + 1) / 5 / 16 = 0.1125 /m^2. Speeds from
	// displacements: agent 0 2 m/s from the second frame on; agent 1 0, 4,
	// 0, 4 m/s; the means of the samples with a speed 1, 3, 1 and 4 (agent 1
	// alone): 2.25 m/s.
	const char* area = strstr(out, "\"areas\"");
	cr_assert_not_null(area, "%s", out);
	cr_assert_eq(json_after(area, "size"), 16.0, "%s", out);
	cr_assert_eq(json_after(area, "samples"), 5.0, "%s", out);
	cr_assert_eq(json_after(area, "density"), 0.1125, "%s", out);
	cr_assert_eq(json_after(area, "mean_speed"), 2.25, "%s", out);

	// A window: [1, 2) holds agent 1's crossing back, 1 in 1 s.
	cr_assert_eq(measure("--line 0,-3,0,3 --from 1 --to 2"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "crossings left 0, right 1, first passings 0"), "%s", out);
	cr_assert_not_null(strstr(out, "flow (1/s): left 0, right 1, total 1, net -1"), "%s", out);

	// CSV: the N-t rows with the cumulative count, then the samples.
	cr_assert_eq(measure("--line=0,-3,0,3 --area-polygon -2,-2,2,-2,2,2,-2,2 --format csv"), 0, "%s", err);
	cr_assert_not_null(strstr(out, "crossing,0,0.75,0,-1,1,,,,,\ncrossing,0,0.75,1,1,2,,,,,\ncrossing,0,1.75,1,-1,3,,,,,\n"),
	                   "%s", out);
	cr_assert_not_null(strstr(out, "sample,0,0,,,,2,0.125,,"), "%s", out); // no speed in the first frame
	cr_assert_not_null(strstr(out, "sample,0,1,,,,2,0.125,3,"), "%s", out);
	thr_test_remove_dir(dir);
}

/// Exit 2, one line on stderr naming `what`, nothing on stdout.
static void expect_usage(const char* args, const char* what)
{
	int rc = measure(args);
	cr_assert_eq(rc, 2, "throng measure %s: exit %d, stderr: %s", args, rc, err);
	cr_assert_not_null(strstr(err, what), "throng measure %s: %s", args, err);
	const char* nl = strchr(err, '\n');
	cr_assert(nl != NULL && nl[1] == '\0', "throng measure %s: not one line: %s", args, err);
	cr_assert_str_empty(out, "throng measure %s: stdout: %s", args, out);
}

Test(cli_measure, bad_arguments_name_themselves)
{
	write_run();
	expect_usage("--line 1,1,1,1", "--line 1,1,1,1: b: must differ from a");
	expect_usage("--line 1,2,3", "--line 1,2,3: expected 4 numbers");
	expect_usage("--line 1,x,2,3", "--line 1,x,2,3: number 2");
	expect_usage("--line nan,0,1,1", "--line nan,0,1,1: number 1");
	expect_usage("--line 0,0,1e7,1", "--line 0,0,1e7,1: number 3");
	expect_usage("--line", "--line: missing its value");
	expect_usage("--area 0,0,0,1", "--area 0,0,0,1: max.x");
	expect_usage("--area-polygon 0,0,1,1,1,0,0,1", "--area-polygon 0,0,1,1,1,0,0,1: points: edges 0 and 2 cross");
	expect_usage("--area-polygon 0,0,1,1", "--area-polygon 0,0,1,1: expected pairs");
	expect_usage("--line 0,0,1,1 --from x", "--from");
	expect_usage("--line 0,0,1,1 --from 2 --to 1", "--to: must be after --from");
	expect_usage("--line 0,0,1,1 --from 1 --from 2", "--from: given twice");
	expect_usage("--line 0,0,1,1 --from 5", "the window [5, 2] s is empty");
	expect_usage("--line 0,0,1,1 --format xml", "--format");
	expect_usage("--line 0,0,1,1 --cutoff -1", "--cutoff");
	expect_usage("--line 0,0,1,1 --bogus", "unknown option \"--bogus\"");
	expect_usage("", "nothing to measure");
	expect_usage("--line 0,0,1,1 other.thr", "one run only");

	// A run that cannot be read: exit 3, naming it.
	cr_assert_eq(thr_test_cli_in(dir, "measure missing.thr --line 0,0,1,1", out, OUT_CAP, err, ERR_CAP), 3, "%s", err);
	cr_assert_not_null(strstr(err, "missing.thr"), "%s", err);
	char path[300];
	snprintf(path, sizeof path, "%s/junk.thr", dir);
	thr_test_write_text(path, "not a stream at all\n");
	cr_assert_eq(thr_test_cli_in(dir, "measure junk.thr --line 0,0,1,1", out, OUT_CAP, err, ERR_CAP), 3, "%s", err);
	cr_assert_not_null(strstr(err, "junk.thr"), "%s", err);
	cr_assert_eq(thr_test_cli("measure --help", out, OUT_CAP, err, ERR_CAP), 0, "%s", err);
	cr_assert_not_null(strstr(out, "--area-polygon"), "%s", out);
	thr_test_remove_dir(dir);
}

Test(cli_measure, a_run_throng_run_wrote)
{
	// hallway's two streams cross x = 0 in both directions: both counts are
	// positive and the first passings are at most the agents.
	thr_test_make_dir(dir, sizeof dir, "throng-measure");
	cr_assert_eq(thr_test_cli_in(dir, "run hallway --agents 100 --seconds 10 --out run.thr", out, OUT_CAP, err, ERR_CAP),
	             0, "%s", err);
	cr_assert_eq(measure("--line 0,-3,0,3 --area -2,-1,2,1 --format json"), 0, "%s", err);
	const char* line = strstr(out, "\"lines\"");
	cr_assert_not_null(line, "%s", out);
	double left = json_after(line, "left"), right = json_after(line, "right");
	cr_assert_gt(left, 0.0, "%s", out);
	cr_assert_gt(right, 0.0, "%s", out);
	cr_assert_leq(json_after(line, "first_passings"), 100.0, "%s", out);
	cr_assert_float_eq(json_after(line, "flow_total"), (left + right) / 10.0, 1e-3, "%s", out);
	const char* area = strstr(out, "\"areas\"");
	cr_assert_gt(json_after(area, "density"), 0.0, "%s", out);
	cr_assert_gt(json_after(area, "voronoi_density"), 0.0, "%s", out);
	thr_test_remove_dir(dir);
}

/// Appends `text` to `path`.
static void append_text(const char* path, const char* text)
{
	FILE* f = fopen(path, "a");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
}

/// The number after "\"key\": " in the JSON text `json`, which must hold it.
static double json_in(const char* json, const char* key) { return json_after(json, key); }

Test(cli_measure, scenario_file_measurements_in_the_summary)
{
	// hallway saved as a file, with a line and an area declared: throng
	// run's summary reports them, the same figures as throng measure on the
	// frames that run wrote (velocities saved, so the speeds agree too).
	thr_test_make_dir(dir, sizeof dir, "throng-measure");
	cr_assert_eq(thr_test_cli_in(dir, "save hallway --agents 80 --out h.yaml", out, OUT_CAP, err, ERR_CAP), 0, "%s", err);
	char path[300];
	snprintf(path, sizeof path, "%s/h.yaml", dir);
	append_text(path, "measurements:\n  lines:\n    - [[0, -3], [0, 3]]\n  areas:\n"
	                  "    - [[-2, -1], [2, -1], [2, 1], [-2, 1]]\n");
	cr_assert_eq(thr_test_cli_in(dir, "save h.yaml --out h2.yaml", out, OUT_CAP, err, ERR_CAP), 0, "%s", err);
	char saved[1 << 16];
	snprintf(path, sizeof path, "%s/h2.yaml", dir);
	thr_test_slurp(path, saved, sizeof saved);
	cr_assert_not_null(strstr(saved, "measurements:\n  lines:\n    - [[0, -3], [0, 3]]\n  areas:\n"
	                                 "    - [[-2, -1], [2, -1], [2, 1], [-2, 1]]\n"),
	                   "the saved file keeps them:\n%s", saved);
	cr_assert_eq(thr_test_cli_in(dir, "run h.yaml --seconds 8 --summary json --fields x,y,vx,vy --out run.thr", out,
	                             OUT_CAP, err, ERR_CAP),
	             0, "%s", err);
	static char summary[OUT_CAP];
	memcpy(summary, out, sizeof summary);
	cr_assert_eq(measure("--line 0,-3,0,3 --area -2,-1,2,1 --format json"), 0, "%s", err);
	const char* line = strstr(out, "\"lines\"");
	const char* area = strstr(out, "\"areas\"");
	cr_assert(line != NULL && area != NULL, "%s", out);
	cr_assert_gt(json_in(summary, "line0_left") + json_in(summary, "line0_right"), 0.0, "%s", summary);
	cr_assert_eq(json_in(summary, "line0_left"), json_after(line, "left"), "%s\n%s", summary, out);
	cr_assert_eq(json_in(summary, "line0_right"), json_after(line, "right"), "%s\n%s", summary, out);
	cr_assert_eq(json_in(summary, "line0_first_passings"), json_after(line, "first_passings"));
	cr_assert_float_eq(json_in(summary, "line0_flow"), json_after(line, "flow_total"), 1e-6);
	cr_assert_float_eq(json_in(summary, "area0_density"), json_after(area, "density"), 1e-7, "%s\n%s", summary, out);
	cr_assert_float_eq(json_in(summary, "area0_voronoi_density"), json_after(area, "voronoi_density"), 1e-7);
	cr_assert_float_eq(json_in(summary, "area0_mean_speed"), json_after(area, "mean_speed"), 1e-6);
	cr_assert_gt(json_in(summary, "area0_density"), 0.0, "%s", summary);

	// A line of zero length, or a polygon that is not simple: refused at
	// its place in the file (exit 3); in a version 1 file: refused.
	snprintf(path, sizeof path, "%s/bad.yaml", dir);
	thr_test_write_text(path, "version: 2\narchetypes: {a: {}}\nagents: {rows: [[0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0.3, a, 0, "
	                          "null]]}\nmeasurements:\n  lines:\n    - [[1, 1], [1, 1]]\n");
	cr_assert_eq(thr_test_cli_in(dir, "validate bad.yaml", out, OUT_CAP, err, ERR_CAP), 3, "%s", err);
	cr_assert_not_null(strstr(err, "bad.yaml:6:7: measurements.lines[0]: both ends at (1, 1)"), "%s", err);
	thr_test_write_text(path, "version: 2\narchetypes: {a: {}}\nagents: {rows: [[0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0.3, a, 0, "
	                          "null]]}\nmeasurements:\n  areas:\n    - [[0, 0], [1, 1], [1, 0], [0, 1]]\n");
	cr_assert_eq(thr_test_cli_in(dir, "validate bad.yaml", out, OUT_CAP, err, ERR_CAP), 3, "%s", err);
	cr_assert_not_null(strstr(err, "measurements.areas[0]: points: edges 0 and 2 cross or touch"), "%s", err);
	thr_test_write_text(path, "archetypes: {a: {}}\ngroups: {g: {count: 1, archetype: a}}\nmeasurements: {lines: "
	                          "[[[0, 0], [1, 0]]]}\n");
	cr_assert_eq(thr_test_cli_in(dir, "validate bad.yaml", out, OUT_CAP, err, ERR_CAP), 3, "%s", err);
	cr_assert_not_null(strstr(err, "measurements: a version 2 key in a version 1 file"), "%s", err);
	thr_test_remove_dir(dir);
}

/// write_frames, but agent 0 leaves after the third frame (x = 0.5) and
/// agent 7 comes in at x = -0.5 for the last two frames, walking right at
/// 2 m/s: x = -0.5, 0.5. The newcomer is stored first: not in id order.
static void write_churned_run(void)
{
	const uint32_t first[5] = {0, 0, 0, 7, 7};
	const float x0[5] = {-1.5f, -0.5f, 0.5f, -0.5f, 0.5f};
	write_frames("throng-measure-churn", first, x0);
}

Test(cli_measure, agents_that_come_and_go_are_measured_by_id)
{
	// Agent 0 crosses x = 0 to the right at 0.75 s, then leaves; agent 1
	// crosses left at 0.75 s and back at 1.75 s; agent 7 comes in and
	// crosses right at 1.75 s. Agent 0's last place (0.5) and agent 7's
	// first (-0.5) are two agents, not a crossing back: left 1, right 3.
	write_churned_run();
	measure_line("--line 0,-3,0,3 --format json", 1, 3, 3);
	cr_assert_not_null(strstr(out, "{\"time\": 0.75, \"id\": 0, \"direction\": -1}, {\"time\": 0.75, \"id\": 1, "
	                               "\"direction\": 1}, {\"time\": 1.75, \"id\": 1, \"direction\": -1}, {\"time\": "
	                               "1.75, \"id\": 7, \"direction\": -1}"),
	                   "%s", out);
	thr_test_remove_dir(dir);
}
