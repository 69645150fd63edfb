// SPDX-License-Identifier: MIT
// The file formats (CSV, pedestrian text, SQLite) read back to their printed
// precision, and the throng command's output options: formats by extension,
// usage errors, an unwritable path failing before the run, and a closed
// pipe or a full disk stopping the run cleanly with the frames before it
// still readable.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "support.h"
#include "throng/export.h"
#include "throng/scenario.h"

#define OUT_CAP 65536
#define ERR_CAP 4096

static char out[OUT_CAP];
static char err[ERR_CAP];

/// `throng <args>` into out and err; its exit status.
static int run_cli(const char* args) { return thr_test_cli(args, out, OUT_CAP, err, ERR_CAP); }

static void tmp_path(char* buf, size_t cap, const char* name)
{
	snprintf(buf, cap, "/tmp/throng_test_%d_%s", (int)getpid(), name);
}

/// Runs a shell command line as is; returns its exit status.
static int run_sh(const char* cmdline)
{
	return thr_test_run(cmdline, out, OUT_CAP, err, ERR_CAP);
}

/// What circle's agents hold after each step, by id: x, y, hx, hy.
typedef struct truth {
	uint32_t agents, frames;
	throng_vec2 bounds_min, bounds_max;
	uint64_t step[16];
	float v[16][4][256];
} truth;

/// Runs circle through an exporter with `def` for `steps` steps and records the truth.
static void export_run(const char* path, throng_format format, uint32_t fields, uint32_t every, uint32_t agents,
                       uint32_t steps, truth* t)
{
	cr_assert_leq(agents, 256u);
	throng_export_def def = throng_export_default_def();
	def.format = format;
	def.fields = fields;
	def.every = every;
	def.sqlite_batch = 2;
	throng_scene* scene = NULL;
	throng_exporter* ex = thr_test_circle_exporter(path, agents, def, &scene);
	throng_world* w = throng_scene_world(scene);
	memset(t, 0, sizeof *t);
	t->agents = agents;
	t->bounds_min = throng_world_get_def(w).bounds_min;
	t->bounds_max = throng_world_get_def(w).bounds_max;
	for (uint32_t k = 0; k <= steps; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_scene_step(scene), THRONG_OK);
		}
		cr_assert_eq(throng_exporter_write(ex, w), THRONG_OK, "%s", throng_last_error());
		if (k % every == 0) {
			cr_assert_lt(t->frames, 16u);
			uint32_t f = t->frames++;
			t->step[f] = k;
			for (uint32_t id = 0; id < agents; ++id) {
				throng_agent_state a;
				throng_world_get_agent(w, id, &a);
				t->v[f][0][id] = a.position.x;
				t->v[f][1][id] = a.position.y;
				t->v[f][2][id] = a.heading.x;
				t->v[f][3][id] = a.heading.y;
			}
		}
	}
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	throng_scene_destroy(scene);
}

Test(csv, round_trip_to_the_printed_precision)
{
	char path[256];
	tmp_path(path, sizeof path, "run.csv");
	truth t;
	export_run(path, THRONG_FORMAT_AUTO, 0, 2, 50, 8, &t); // frames at steps 0, 2, 4, 6, 8
	FILE* f = fopen(path, "r");
	cr_assert_not_null(f);
	char line[512];
	cr_assert_not_null(fgets(line, sizeof line, f));
	cr_assert_str_eq(line, "id,frame,time,x,y,heading_x,heading_y\n");
	uint32_t rows = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned id = 0, frame = 0;
		double time = 0, v[4];
		int n = sscanf(line, "%u,%u,%lf,%lf,%lf,%lf,%lf", &id, &frame, &time, &v[0], &v[1], &v[2], &v[3]);
		cr_assert_eq(n, 7, "bad row: %s", line);
		cr_assert_eq(id, rows % 50, "rows go by frame, then id: %s", line);
		cr_assert_eq(frame, rows / 50);
		double want_time = (double)t.step[frame] * (double)(1.0f / 60.0f);
		cr_assert_leq(fabs(time - want_time), 1e-8 * (1.0 + want_time), "%s", line);
		for (int k = 0; k < 4; ++k) {
			// 9 significant digits read back to the same float, bit for bit.
			float got = (float)v[k];
			cr_assert_eq(memcmp(&got, &t.v[frame][k][id], 4), 0, "row %u column %d: %s", rows, k, line);
		}
		++rows;
	}
	fclose(f);
	cr_assert_eq(rows, 50u * 5u);
	unlink(path);
}

Test(csv, field_columns)
{
	char path[256];
	tmp_path(path, sizeof path, "all.csv");
	truth t;
	export_run(path, THRONG_FORMAT_CSV, THRONG_FIELDS_ALL, 1, 3, 1, &t);
	FILE* f = fopen(path, "r");
	char line[512];
	cr_assert_not_null(fgets(line, sizeof line, f));
	cr_assert_str_eq(line, "id,frame,time,x,y,velocity_x,velocity_y,heading_x,heading_y,group,archetype,health,combat_state\n");
	cr_assert_not_null(fgets(line, sizeof line, f));
	cr_assert_eq(strncmp(line, "0,0,0,", 6), 0, "%s", line);
	const size_t len = strlen(line);
	cr_assert(len > 5 && strcmp(line + len - 5, ",0,0\n") == 0, "circle has no combat: health and state 0 end the row: %s",
	          line);
	fclose(f);
	unlink(path);
}

Test(ped, round_trip_to_the_printed_precision)
{
	char path[256];
	tmp_path(path, sizeof path, "run.txt");
	truth t;
	export_run(path, THRONG_FORMAT_AUTO, 0, 3, 40, 9, &t); // steps 0, 3, 6, 9
	FILE* f = fopen(path, "r");
	cr_assert_not_null(f);
	char line[512];
	bool framerate = false, unit = false;
	uint32_t rows = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		if (line[0] == '#') {
			double fps = 0;
			if (sscanf(line, "# framerate: %lf", &fps) == 1) {
				framerate = true;
				cr_assert_leq(fabs(fps - 20.0), 1e-5, "%s", line); // 60 steps/s, a frame every 3
			}
			unit |= strcmp(line, "# unit: m\n") == 0;
			continue;
		}
		unsigned id = 0, frame = 0;
		double x = 0, y = 0, z = 1;
		cr_assert_eq(sscanf(line, "%u\t%u\t%lf\t%lf\t%lf", &id, &frame, &x, &y, &z), 5, "bad row: %s", line);
		cr_assert_eq(id, rows % 40);
		cr_assert_eq(frame, rows / 40);
		cr_assert_eq(z, 0.0);
		// Printed with 6 decimals: within half a micrometre.
		cr_assert_leq(fabs(x - (double)t.v[frame][0][id]), 5.0001e-7, "%s", line);
		cr_assert_leq(fabs(y - (double)t.v[frame][1][id]), 5.0001e-7, "%s", line);
		++rows;
	}
	fclose(f);
	cr_assert(framerate && unit, "the header lacks # framerate: or # unit: m");
	cr_assert_eq(rows, 40u * 4u);
	unlink(path);
}

/// Runs `sqlite3 -batch FILE SQL`; returns its standard output.
static const char* sqlite(const char* path, const char* sql)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "sqlite3 -batch '%s' \"%s\"", path, sql);
	int rc = run_sh(cmd);
	cr_assert_eq(rc, 0, "sqlite3 %s: exit %d: %s", sql, rc, err);
	return out;
}

/// A coordinate as the walkable area's WKT writes it: 6 decimals, trailing
/// zeros and a trailing point dropped.
static const char* grid_text(char buf[32], double v)
{
	snprintf(buf, 32, "%.6f", v);
	char* e = buf + strlen(buf);
	while (e[-1] == '0') {
		*--e = '\0';
	}
	if (e[-1] == '.') {
		e[-1] = '\0';
	}
	return buf;
}

Test(sqlite, jupedsim_schema_and_values)
{
	char path[256];
	tmp_path(path, sizeof path, "run.sqlite");
	truth t;
	export_run(path, THRONG_FORMAT_AUTO, 0, 2, 100, 10, &t); // 6 frames, batches of 2
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM trajectory_data"), "600\n");
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM frame_data"), "6\n");
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='version'"), "2\n");
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='fps'"), "30\n");
	char want[256];
	snprintf(want, sizeof want, "%.9g\n%.9g\n%.9g\n%.9g\n", (double)t.bounds_max.x, (double)t.bounds_min.x,
	         (double)t.bounds_max.y, (double)t.bounds_min.y);
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key IN ('xmin','xmax','ymin','ymax') ORDER BY key"),
	                 want);
	cr_assert_str_eq(sqlite(path, "SELECT name FROM sqlite_master WHERE type='index' AND name='frame_id_idx'"),
	                 "frame_id_idx\n");
	// The walkable area of a world without shapes: the bounds, their edges
	// moved outward onto the micrometre grid, counter-clockwise from (xmin, ymin).
	char x0[32], y0[32], x1[32], y1[32];
	grid_text(x0, floor((double)t.bounds_min.x * 1e6) / 1e6);
	grid_text(y0, floor((double)t.bounds_min.y * 1e6) / 1e6);
	grid_text(x1, ceil((double)t.bounds_max.x * 1e6) / 1e6);
	grid_text(y1, ceil((double)t.bounds_max.y * 1e6) / 1e6);
	snprintf(want, sizeof want, "POLYGON ((%s %s, %s %s, %s %s, %s %s, %s %s))\n", x0, y0, x1, y0, x1, y1, x0, y1, x0,
	         y0);
	cr_assert_str_eq(sqlite(path, "SELECT wkt FROM geometry"), want);
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='walkable_pieces'"), "1\n");
	cr_assert_str_eq(sqlite(path, "PRAGMA integrity_check"), "ok\n");
	const char* rows = sqlite(path, "SELECT id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data WHERE frame=3 ORDER BY id");
	for (uint32_t id = 0; id < 100; ++id) {
		unsigned got_id = 0;
		double v[4];
		int used = 0;
		cr_assert_eq(sscanf(rows, "%u|%lf|%lf|%lf|%lf%n", &got_id, &v[0], &v[1], &v[2], &v[3], &used), 5, "%s", rows);
		cr_assert_eq(got_id, id);
		for (int k = 0; k < 4; ++k) {
			float got = (float)v[k]; // stored as the float's exact double; printed with 15+ digits
			cr_assert_eq(memcmp(&got, &t.v[3][k][id], 4), 0, "agent %u column %d", id, k);
		}
		rows += used + 1;
	}
	unlink(path);
}

// ---------------------------------------------------------------------------
// Agents that come and go (issue 33): one churned run written at once as
// CSV (every field), pedestrian text and SQLite. Each file holds, frame by
// frame, one row per agent alive in it, by id, as the world had it. CSV
// and the pedestrian text are read here with sscanf and compared with what
// the writer must print; SQLite by the sqlite3 command (an independent
// reader), its REALs the floats exactly.

typedef struct three_exporters {
	throng_exporter* ex[3];
} three_exporters;

static void write_three(void* user, const throng_world* w)
{
	three_exporters* t = user;
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_exporter_write(t->ex[k], w), THRONG_OK, "%s", throng_last_error());
	}
}

/// The next line of f into line[cap]; fails the test at the end of the file.
static void next_line(FILE* f, char* line, size_t cap, const char* what)
{
	cr_assert_not_null(fgets(line, (int)cap, f), "%s ends early", what);
}

Test(churn, every_text_format_holds_the_live_agents_by_id)
{
	char csv[256], ped[256], db[256];
	tmp_path(csv, sizeof csv, "churn.csv");
	tmp_path(ped, sizeof ped, "churn.txt");
	tmp_path(db, sizeof db, "churn.sqlite");
	throng_export_def def = throng_export_default_def();
	def.fields = THRONG_FIELDS_ALL;
	def.sqlite_batch = 3;
	throng_scene* scene = NULL;
	three_exporters t3;
	t3.ex[0] = thr_test_circle_exporter(csv, 40, def, &scene);
	def.world = throng_scene_world(scene);
	def.scenario = "circle";
	cr_assert_eq(throng_exporter_create(ped, &def, &t3.ex[1]), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_create(db, &def, &t3.ex[2]), THRONG_OK, "%s", throng_last_error());
	thr_test_churn_truth t;
	thr_test_churned_run(scene, write_three, &t3, &t);
	uint64_t rows = 0;
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_exporter_finish(t3.ex[k]), THRONG_OK, "%s", throng_last_error());
		throng_exporter_destroy(t3.ex[k]);
	}
	throng_scene_destroy(scene);
	for (uint32_t f = 0; f < t.frames; ++f) {
		rows += t.frame[f].count;
	}
	cr_assert_eq(t.frame[11].count, 0u, "frame 11 has no agents");

	FILE* fc = fopen(csv, "r");
	FILE* fp = fopen(ped, "r");
	cr_assert(fc != NULL && fp != NULL);
	char line[512], want[512], row[512];
	next_line(fc, line, sizeof line, csv); // the column names
	do {
		next_line(fp, row, sizeof row, ped);
		if (strncmp(row, "# description:", 14) == 0) {
			cr_assert_not_null(strstr(row, "40 agents at the start"), "%s", row);
		}
	} while (row[0] == '#');
	bool first_row = true; // row holds the pedestrian text's first row
	for (uint32_t f = 0; f < t.frames; ++f) {
		const thr_test_frame_truth* w = &t.frame[f];
		for (uint32_t k = 0; k < w->count; ++k) {
			// CSV: id, frame, time, then every field, floats to 9 digits.
			next_line(fc, line, sizeof line, csv);
			unsigned id = 0, frame = 0, group = 0, archetype = 0;
			double time = 0, v[6];
			cr_assert_eq(sscanf(line, "%u,%u,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%u,%u", &id, &frame, &time, &v[0], &v[1],
			                    &v[2], &v[3], &v[4], &v[5], &group, &archetype),
			             11, "bad row: %s", line);
			cr_assert(id == w->id[k] && frame == f, "frame %u agent %u: want id %u: %s", f, k, w->id[k], line);
			for (int j = 0; j < 6; ++j) {
				float got = (float)v[j];
				cr_assert_eq(memcmp(&got, &w->field[j][k], 4), 0, "frame %u id %u column %d: %s", f, id, j, line);
			}
			cr_assert(group == w->group[k] && archetype == w->archetype[k], "%s", line);
			// Pedestrian text: what the writer must print.
			if (!first_row) {
				next_line(fp, row, sizeof row, ped);
			}
			first_row = false;
			snprintf(want, sizeof want, "%u\t%u\t%.6f\t%.6f\t0\n", w->id[k], f, (double)w->field[0][k],
			         (double)w->field[1][k]);
			cr_assert_str_eq(row, want, "frame %u agent %u", f, k);
		}
	}
	cr_assert_null(fgets(line, sizeof line, fc), "CSV: a row too many: %s", line);
	cr_assert_null(fgets(line, sizeof line, fp), "PED: a row too many: %s", line);
	fclose(fc);
	fclose(fp);

	// SQLite, through the sqlite3 command: every row, in (frame, id) order.
	static char rows_out[1 << 20];
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "sqlite3 -batch '%s' 'SELECT frame, id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data ORDER BY frame, "
	         "id; SELECT COUNT(*) FROM frame_data; SELECT value FROM metadata WHERE key = \"agents\"'",
	         db);
	int rc = thr_test_run(cmd, rows_out, sizeof rows_out, err, ERR_CAP);
	cr_assert_eq(rc, 0, "sqlite3: exit %d: %s", rc, err);
	const char* p = rows_out;
	for (uint32_t f = 0; f < t.frames; ++f) {
		const thr_test_frame_truth* w = &t.frame[f];
		for (uint32_t k = 0; k < w->count; ++k) {
			unsigned frame = 0, id = 0;
			double v[4];
			int used = 0;
			cr_assert_eq(sscanf(p, "%u|%u|%lf|%lf|%lf|%lf%n", &frame, &id, &v[0], &v[1], &v[2], &v[3], &used), 6,
			             "frame %u agent %u: %.80s", f, k, p);
			cr_assert(frame == f && id == w->id[k], "frame %u agent %u: want id %u: %.80s", f, k, w->id[k], p);
			const int field[4] = {0, 1, 4, 5}; // x, y, hx, hy
			for (int j = 0; j < 4; ++j) {
				// The float exactly, but by value: sqlite3 prints -0.0 as 0.0.
				cr_assert_eq((float)v[j], w->field[field[j]][k], "frame %u id %u column %d", f, id, j);
			}
			p += used + 1;
		}
	}
	cr_assert_str_eq(p, "16\n40\n", "every frame in frame_data, even the empty one; agents at the start");
	char total[64];
	snprintf(total, sizeof total, "%llu\n", (unsigned long long)rows);
	cr_assert_str_eq(sqlite(db, "SELECT COUNT(*) FROM trajectory_data"), total);
	thr_test_churn_truth_free(&t);
	unlink(csv);
	unlink(ped);
	unlink(db);
}

Test(cli_output, sqlite_count_is_agents_times_frames)
{
	char path[256], args[512];
	tmp_path(path, sizeof path, "cli.db");
	snprintf(args, sizeof args, "run circle --agents 200 --steps 20 --out '%s'", path);
	cr_assert_eq(run_cli(args), 0, "%s", err);
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM trajectory_data"), "4200\n"); // 200 x 21
	unlink(path);
}

Test(cli_output, formats_by_extension_and_flag)
{
	char path[256], args[512];
	tmp_path(path, sizeof path, "x.csv");
	snprintf(args, sizeof args, "run herd --steps 3 --out '%s'", path);
	cr_assert_eq(run_cli(args), 0, "%s", err);
	cr_assert_not_null(strstr(out, "frames:"), "the summary stays on stdout with a file: %s", out);
	cr_assert_eq(run_sh(strcat(strcpy(args, "head -c 13 "), path)), 0);
	cr_assert_str_eq(out, "id,frame,time");
	unlink(path);

	tmp_path(path, sizeof path, "x.txt");
	snprintf(args, sizeof args, "run herd --steps 3 --out '%s'", path);
	cr_assert_eq(run_cli(args), 0, "%s", err);
	cr_assert_eq(run_sh(strcat(strcpy(args, "grep -c '^# framerate: 60$' "), path)), 0, "%s", out);
	unlink(path);

	// --format auto is the default: the extension decides, and PED's fixed
	// columns still refuse --fields.
	snprintf(args, sizeof args, "run herd --steps 3 --out '%s' --format auto", path);
	cr_assert_eq(run_cli(args), 0, "%s", err);
	cr_assert_eq(run_sh(strcat(strcpy(args, "grep -c '^# framerate: 60$' "), path)), 0, "%s", out);
	unlink(path);
	snprintf(args, sizeof args, "run herd --steps 3 --out '%s' --format auto --fields all", path);
	cr_assert_eq(run_cli(args), 2, "%s", err);
	cr_assert_not_null(strstr(err, "fixed columns"), "%s", err);

	// --format wins over the extension; CSV to standard output keeps the
	// summary on standard error.
	cr_assert_eq(run_cli("run herd --steps 2 --out - --format csv"), 0, "%s", err);
	cr_assert_eq(strncmp(out, "id,frame,time,x,y,heading_x,heading_y\n0,0,0,", 44), 0, "%s", out);
	cr_assert_null(strstr(out, "scenario:"), "the summary leaked into the stream");
	cr_assert_not_null(strstr(err, "scenario:"), "%s", err);
	int lines = 0;
	for (const char* p = out; *p != '\0'; ++p) {
		lines += *p == '\n';
	}
	cr_assert_eq(lines, 1 + 8 * 3); // header + 8 agents x 3 frames
}

/// One line on stderr naming `what`, exit status 2, nothing on stdout.
static void expect_usage(const char* args, const char* what)
{
	int rc = run_cli(args);
	cr_assert_eq(rc, 2, "throng %s: exit %d, stderr: %s", args, rc, err);
	cr_assert_not_null(strstr(err, what), "throng %s: stderr does not name %s: %s", args, what, err);
	const char* nl = strchr(err, '\n');
	cr_assert(nl != NULL && nl[1] == '\0', "throng %s: not one line: %s", args, err);
	cr_assert_str_empty(out, "throng %s: stdout: %s", args, out);
}

Test(cli_output, usage_errors)
{
	expect_usage("run herd --out x.thr --format png", "--format: expected auto, bin, csv, ped or sqlite");
	expect_usage("run herd --out x.thr --format binary", "--format"); // the library's names only
	expect_usage("run herd --out x.thr --fields x,nope", "unknown field \"nope\"");
	expect_usage("run herd --out x.thr --every 0", "--every");
	expect_usage("run herd --out x.thr --every -3", "--every");
	expect_usage("run herd --out - --format sqlite", "standard output");
	expect_usage("run herd --out x.txt --fields all", "fixed columns");
	expect_usage("run herd --out x.db --fields x", "fixed columns");
	expect_usage("run herd --every 2", "--every: needs --out");
	expect_usage("run herd --fields x", "--fields: needs --out");
	expect_usage("run herd --shm a/b", "--shm");
	expect_usage("run herd --shm crowd --format csv", "--format: needs --out");
	expect_usage("run herd --out", "--out: missing value");
	expect_usage("run herd --out ''", "--out");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Test(cli_output, unwritable_path_fails_before_simulating)
{
	throng_export_def def = throng_export_default_def();
	def.agents = 1;
	def.dt = 0.1f;
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create("/nonexistent-dir/run.thr", &def, &ex), THRONG_ERR_IO);
	cr_assert_null(ex);
	cr_assert_not_null(strstr(throng_last_error(), "/nonexistent-dir/run.thr: cannot open for writing"), "%s",
	                   throng_last_error());

	// A million steps of 100,000 agents would take hours: failing fast
	// proves nothing was simulated.
	const char* paths[] = {"/nonexistent-dir/run.thr", "/nonexistent-dir/run.sqlite", "/tmp", "/dev/null/run.thr"};
	for (size_t k = 0; k < sizeof paths / sizeof paths[0]; ++k) {
		char args[512];
		snprintf(args, sizeof args, "run field --agents 100000 --steps 1000000 --out %s", paths[k]);
		double t0 = now();
		int rc = run_cli(args);
		cr_assert_eq(rc, 4, "%s: exit %d: %s", paths[k], rc, err);
		cr_assert_lt(now() - t0, 20.0, "%s: took %g s", paths[k], now() - t0);
		cr_assert_not_null(strstr(err, paths[k]), "the message does not name %s: %s", paths[k], err);
		cr_assert_str_empty(out, "%s: %s", paths[k], out);
	}
	// The same for the live feed's name, checked before the run too.
	cr_assert_eq(run_cli("run herd --steps 1 --shm crowd --out /nonexistent-dir/x.thr"), 4, "%s", err);
}

/// Reads a binary stream file to its end: returns the frames read whole
/// and leaves throng_last_error() with the reason it stopped.
static uint32_t frames_readable(const char* path, throng_status* st)
{
	throng_stream_reader* r = NULL;
	*st = throng_stream_open(path, &r);
	cr_assert_eq(*st, THRONG_OK, "%s", throng_last_error());
	uint32_t frames = 0;
	for (;;) {
		throng_frame fr;
		bool got = false;
		*st = throng_stream_read_frame(r, &fr, &got);
		if (*st != THRONG_OK || !got) {
			break;
		}
		++frames;
	}
	throng_stream_reader_destroy(r);
	return frames;
}

Test(cli_output, closed_pipe_stops_cleanly)
{
	char path[256], cmd[1024];
	tmp_path(path, sizeof path, "partial.thr");
	// head keeps 300,000 bytes (about nine frames) and exits; the run would
	// take hours if it did not stop at the closed pipe.
	snprintf(cmd, sizeof cmd,
	         "{ ( '%s' run field --agents 2000 --steps 1000000 --out - ; echo \"exit=$?\" >&2 ) | head -c 300000 > '%s'; }",
	         THRONG_CLI_PATH, path);
	double t0 = now();
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	cr_assert_lt(now() - t0, 60.0);
	cr_assert_not_null(strstr(err, "exit=4"), "%s", err);
	cr_assert_not_null(strstr(err, "output stopped at step"), "%s", err);
	cr_assert_not_null(strstr(err, "the reader closed the pipe (EPIPE)"), "%s", err);
	throng_status st;
	uint32_t frames = frames_readable(path, &st);
	cr_assert_geq(frames, 5, "frames before the cut: %u", frames);
	cr_assert_eq(st, THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 300000: the stream ends inside frame"), "%s",
	                   throng_last_error());
	unlink(path);
}

Test(cli_output, full_disk_stops_cleanly)
{
	char path[256], cmd[1024];
	tmp_path(path, sizeof path, "full.thr");
	// ulimit -f (512-byte blocks in sh) stands in for a full disk: writes
	// past 400 blocks (204,800 bytes, about 12 frames of 2.0's eight
	// fields) fail with EFBIG.
	snprintf(cmd, sizeof cmd,
	         "{ ulimit -f 400; '%s' run circle --agents 500 --steps 1000000 --fields position,velocity,heading,group,"
	         "archetype --out '%s'; }",
	         THRONG_CLI_PATH, path);
	double t0 = now();
	int rc = run_sh(cmd);
	cr_assert_eq(rc, 4, "exit %d: %s", rc, err);
	cr_assert_lt(now() - t0, 60.0);
	cr_assert_not_null(strstr(err, "output stopped at step"), "%s", err);
	cr_assert_not_null(strstr(err, "size limit (EFBIG)"), "%s", err);
	// The file is cut back to its last whole frame, and the message says so.
	throng_status st;
	uint32_t frames = frames_readable(path, &st);
	cr_assert_geq(frames, 10, "frames before the limit: %u", frames);
	cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
	char holds[128];
	snprintf(holds, sizeof holds, "holds the header and %u whole frames", frames);
	cr_assert_not_null(strstr(err, holds), "%s", err);
	unlink(path);
}

Test(sqlite, full_disk_keeps_committed_batches)
{
	char path[256], msg_path[256];
	tmp_path(path, sizeof path, "full.sqlite");
	tmp_path(msg_path, sizeof msg_path, "full.sqlite.msg");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		// The child writes under a 600 KB file-size limit until it fails.
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {600 * 1024, 600 * 1024};
		setrlimit(RLIMIT_FSIZE, &lim);
		throng_scene_def opt = throng_scene_default_def();
		opt.agents = 1000;
		throng_scene* scene = NULL;
		if (throng_scene_create("circle", &opt, &scene) != THRONG_OK) {
			_exit(3);
		}
		throng_world* w = throng_scene_world(scene);
		throng_export_def def = throng_export_default_def();
		def.world = w;
		def.sqlite_batch = 2;
		throng_exporter* ex = NULL;
		if (throng_exporter_create(path, &def, &ex) != THRONG_OK) {
			_exit(4);
		}
		throng_status st = throng_exporter_write(ex, w);
		for (int k = 0; k < 10000 && st == THRONG_OK; ++k) {
			st = throng_scene_step(scene);
			st = st == THRONG_OK ? throng_exporter_write(ex, w) : st;
		}
		bool named = strstr(throng_last_error(), path) != NULL;
		// The message says how many frames the file holds: write it out
		// for the parent to compare with the rows.
		FILE* m = fopen(msg_path, "w");
		if (m != NULL) {
			fputs(throng_last_error(), m);
			fclose(m);
		}
		throng_exporter_finish(ex);
		throng_exporter_destroy(ex);
		_exit(st == THRONG_ERR_IO && named ? 0 : 5);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	cr_assert_str_eq(sqlite(path, "PRAGMA integrity_check"), "ok\n");
	long rows = strtol(sqlite(path, "SELECT COUNT(*) FROM trajectory_data"), NULL, 10);
	cr_assert_gt(rows, 0, "no batch was committed");
	cr_assert_eq(rows % 2000, 0, "%ld rows: not whole batches of 2 frames", rows);
	char msg[2048] = "";
	FILE* m = fopen(msg_path, "r");
	cr_assert_not_null(m);
	msg[fread(msg, 1, sizeof msg - 1, m)] = '\0';
	fclose(m);
	char holds[160];
	snprintf(holds, sizeof holds, "holds the %ld frames committed before (%ld rows, steps 0 to %ld), ", rows / 1000,
	         rows, rows / 1000 - 1);
	cr_assert_not_null(strstr(msg, holds), "%s", msg);
	// The index is built over them when the limit leaves room, and the
	// message says which (here it does not: the limit is reached).
	bool indexed = strstr(msg, "indexed by (frame, id)") != NULL;
	cr_assert(indexed || strstr(msg, "without the (frame, id) index") != NULL, "%s", msg);
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'frame_id_idx'"),
	                 indexed ? "1\n" : "0\n");
	char journal[300];
	snprintf(journal, sizeof journal, "%s-journal", path);
	cr_assert_neq(access(journal, F_OK), 0, "%s was left behind", journal);
	unlink(msg_path);
	unlink(path);
}

// --- The walkable area (core/io/walkable.c) ------------------------------------
// The geometry table's WKT read back and checked by hand: ring by ring
// with the shoelace formula, against the areas worked from the shapes.

/// A WKT POLYGON read back: its rings, each ring's points and signed area
/// (shoelace; positive = counter-clockwise).
typedef struct wkt_polygon {
	int rings;
	int points[16];
	double area[16];
} wkt_polygon;

static wkt_polygon parse_polygon(const char* wkt)
{
	wkt_polygon p;
	memset(&p, 0, sizeof p);
	cr_assert_eq(strncmp(wkt, "POLYGON (", 9), 0, "%s", wkt);
	const char* c = wkt + 9;
	for (;;) {
		cr_assert_eq(*c, '(', "at %s", c);
		cr_assert_lt(p.rings, 16);
		++c;
		double x0 = 0, y0 = 0, px = 0, py = 0, twice = 0;
		for (;;) {
			double x = 0, y = 0;
			int used = 0;
			cr_assert_eq(sscanf(c, "%lf %lf%n", &x, &y, &used), 2, "at %s", c);
			c += used;
			if (p.points[p.rings]++ == 0) {
				x0 = x;
				y0 = y;
			} else {
				twice += px * y - x * py;
			}
			px = x;
			py = y;
			if (*c == ')') {
				break;
			}
			cr_assert_eq(strncmp(c, ", ", 2), 0, "at %s", c);
			c += 2;
		}
		cr_assert(px == x0 && py == y0, "ring %d is not closed", p.rings);
		p.area[p.rings++] = twice / 2.0;
		++c;
		if (*c == ')') {
			break;
		}
		cr_assert_eq(strncmp(c, ", ", 2), 0, "at %s", c);
		c += 2;
	}
	return p;
}

/// Area of a WKT polygon: the outer ring's less the holes'.
static double polygon_area(const wkt_polygon* p)
{
	double a = p->area[0];
	for (int k = 1; k < p->rings; ++k) {
		a += p->area[k]; // holes run clockwise: negative
	}
	return a;
}

/// A world 20 m x 10 m from (0, 0) in `mode`, with one coasting agent (an
/// archetype without slots) at p with velocity v.
static throng_world* geo_world(throng_bounds_mode mode, throng_vec2 p, throng_vec2 v)
{
	throng_world_def d = throng_world_default_def();
	d.bounds_min = (throng_vec2){0, 0};
	d.bounds_max = (throng_vec2){20, 10};
	d.bounds_mode = mode;
	d.capacity = 4;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	uint32_t arch = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	thr_test_spawn(w, p, v, p);
	return w;
}

static void add_wall(throng_world* w, float ax, float ay, float bx, float by)
{
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){ax, ay}, (throng_vec2){bx, by}, NULL), THRONG_OK, "%s",
	             throng_last_error());
}

/// Exports frames 0 .. steps of w (every step) to path, then the geometry's WKT.
static const char* geo_export(throng_world* w, const char* path, uint32_t steps)
{
	throng_export_def def = throng_export_default_def();
	def.world = w;
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k <= steps; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		cr_assert_eq(throng_exporter_write(ex, w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	// One geometry, its hash the CRC-32 of its text, named by every frame.
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM geometry"), "1\n");
	char frames[32];
	snprintf(frames, sizeof frames, "%u\n", steps + 1u);
	cr_assert_str_eq(sqlite(path, "SELECT COUNT(*) FROM frame_data WHERE geometry_hash = (SELECT hash FROM geometry)"),
	                 frames);
	static char wkt[OUT_CAP];
	snprintf(wkt, sizeof wkt, "%s", sqlite(path, "SELECT wkt FROM geometry"));
	wkt[strcspn(wkt, "\n")] = '\0';
	long long hash = strtoll(sqlite(path, "SELECT hash FROM geometry"), NULL, 10);
	cr_assert_eq(hash, (long long)crc32(0, (const unsigned char*)wkt, (unsigned)strlen(wkt)), "%s", wkt);
	return wkt;
}

Test(sqlite_geometry, obstacle_and_wall_by_hand)
{
	char path[256];
	tmp_path(path, sizeof path, "geo.sqlite");
	throng_world* w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){2, 2}, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){5, 5}, 1.0f, NULL), THRONG_OK);
	add_wall(w, 12, 3, 12, 7);
	wkt_polygon p = parse_polygon(geo_export(w, path, 0));
	// The bounds with two holes apart: the obstacle's polygon and the wall's buffer.
	cr_assert_eq(p.rings, 3, "%s", out);
	cr_assert_eq(p.points[0], 5);
	cr_assert_float_eq(p.area[0], 200.0, 1e-9, "the outer ring runs counter-clockwise over 20 x 10");
	const double pi = 3.14159265358979323846, h = 0.005;
	// Obstacle r = 1 m within 1 mm: pi / acos(1 - 0.001 / 1) = 70.24, so 71
	// sides (72 points with the closing one), area (71 / 2) sin(2 pi / 71).
	// Wall: 4 m long, half-thickness h, round ends of 45-degree steps: a
	// 2h x 4 rectangle and, from its two ends, a regular octagon of radius
	// h, 2 sqrt(2) h^2; 5 points an end, 11 with the closing one. The
	// vertices are snapped to 1e-6 m: each area moves by at most its
	// perimeter x 0.71e-6 m.
	int obstacle = p.points[1] == 72 ? 1 : 2, wall = 3 - obstacle;
	cr_assert_eq(p.points[obstacle], 72);
	cr_assert_eq(p.points[wall], 11);
	cr_assert_float_eq(p.area[obstacle], -35.5 * sin(2.0 * pi / 71.0), 1e-5, "holes run clockwise");
	cr_assert_float_eq(p.area[wall], -(2.0 * h * 4.0 + 2.0 * sqrt(2.0) * h * h), 1e-5);
	// Against the exact shapes (a disc of pi m^2, a 1 cm x 4 m wall with
	// half-disc ends): within the obstacle's stated tolerance, 1 mm along
	// its perimeter 2 pi, plus the octagon's shortfall and the snapping.
	double a = polygon_area(&p);
	double exact = 200.0 - pi - (2.0 * h * 4.0 + pi * h * h);
	cr_assert_leq(fabs(a - exact), 2.0 * pi * 1.0e-3 + 1e-5, "area %.9g, exact %.9g", a, exact);
	cr_assert_gt(a, exact, "the obstacle's polygon lies inside its circle: a little more is walkable");
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='walkable_pieces'"), "1\n");
	throng_world_destroy(w);
	unlink(path);
}

Test(sqlite_geometry, shapes_outside_the_bounds_change_nothing)
{
	char path[256];
	tmp_path(path, sizeof path, "geo_out.sqlite");
	char inside[4096];
	for (int outside = 0; outside < 2; ++outside) {
		throng_world* w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){2, 2}, (throng_vec2){0, 0});
		cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){5, 5}, 1.0f, NULL), THRONG_OK);
		add_wall(w, 12, 3, 12, 7);
		if (outside) {
			// A wall and an obstacle wholly outside the bounds: nothing of
			// them is in the area, so the text and its hash are the same.
			add_wall(w, 30, 30, 40, 30);
			cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){-10, 5}, 2.0f, NULL), THRONG_OK);
		}
		const char* wkt = geo_export(w, path, 0);
		if (outside) {
			cr_assert_str_eq(wkt, inside);
		} else {
			snprintf(inside, sizeof inside, "%s", wkt);
		}
		throng_world_destroy(w);
	}
	unlink(path);
}

Test(sqlite_geometry, walls_that_split_keep_the_agents_piece)
{
	char path[256];
	tmp_path(path, sizeof path, "geo_split.sqlite");
	// A wall across the whole height at x = 8 (its ends past the bounds):
	// pieces 8 - h and 12 - h wide; the agent's (right) one is kept, the
	// wall's half-thickness off its left edge.
	throng_world* w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){15, 5}, (throng_vec2){0, 0});
	add_wall(w, 8, -1, 8, 11);
	cr_assert_str_eq(geo_export(w, path, 0), "POLYGON ((8.005 0, 20 0, 20 10, 8.005 10, 8.005 0))");
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='walkable_pieces'"), "2\n");
	throng_world_destroy(w);
	// The same wall with the agent on its left: the piece it is in, though smaller.
	w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){2, 5}, (throng_vec2){0, 0});
	add_wall(w, 8, -1, 8, 11);
	cr_assert_str_eq(geo_export(w, path, 0), "POLYGON ((0 0, 7.995 0, 7.995 10, 0 10, 0 0))");
	throng_world_destroy(w);
	// A room walled off in the top-left corner by a polyline (0,4)-(6,4)-(6,10),
	// whose ends touch the bounds, the agent outside: the rest of the world is kept, 200 m^2
	// less the 6.005 x 6.005 m the room and the walls' inner halves take
	// (the walls' outer corner is round: h^2 (1 - pi/4) more, below 1e-5).
	w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){15, 5}, (throng_vec2){0, 0});
	add_wall(w, 0, 4, 6, 4);
	add_wall(w, 6, 4, 6, 10);
	wkt_polygon p = parse_polygon(geo_export(w, path, 0));
	cr_assert_eq(p.rings, 1, "%s", out);
	cr_assert_float_eq(polygon_area(&p), 200.0 - 6.005 * 6.005, 2e-5);
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key='walkable_pieces'"), "2\n");
	throng_world_destroy(w);
	// The agent in the room: the room, 5.995 m square inside the walls.
	w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){3, 7}, (throng_vec2){0, 0});
	add_wall(w, 0, 4, 6, 4);
	add_wall(w, 6, 4, 6, 10);
	cr_assert_str_eq(geo_export(w, path, 0), "POLYGON ((0 4.005, 5.995 4.005, 5.995 10, 0 10, 0 4.005))");
	throng_world_destroy(w);
	unlink(path);
}

Test(sqlite_geometry, shapes_that_cover_the_bounds_are_refused)
{
	char path[256];
	tmp_path(path, sizeof path, "geo_none.sqlite");
	unlink(path);
	// Radius 12 m about the centre covers every corner (11.18 m away).
	throng_world* w = geo_world(THRONG_BOUNDS_CONTAIN, (throng_vec2){1, 1}, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){10, 5}, 12.0f, NULL), THRONG_OK);
	throng_export_def def = throng_export_default_def();
	def.world = w;
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(ex);
	cr_assert_not_null(strstr(throng_last_error(), "the walkable area is empty: the 1 obstacles and 0 walls cover"),
	                   "%s", throng_last_error());
	cr_assert_not_null(strstr(throng_last_error(), path), "%s", throng_last_error());
	cr_assert_neq(access(path, F_OK), 0, "the path was created");
	throng_world_destroy(w);
}

Test(sqlite_geometry, open_world_grows_to_the_positions)
{
	char path[256], want[256], x1[32];
	tmp_path(path, sizeof path, "geo_open.sqlite");
	// Agents that stay inside: the bounds.
	throng_world* w = geo_world(THRONG_BOUNDS_OPEN, (throng_vec2){2, 5}, (throng_vec2){0, 0});
	cr_assert_str_eq(geo_export(w, path, 3), "POLYGON ((0 0, 20 0, 20 10, 0 10, 0 0))");
	throng_world_destroy(w);
	// An agent coasting at 2 m/s from x = 18 leaves at the right: the area
	// reaches 1 m past the farthest x written (y stays within the bounds).
	w = geo_world(THRONG_BOUNDS_OPEN, (throng_vec2){18, 5}, (throng_vec2){2, 0});
	const char* wkt = geo_export(w, path, 120);
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, 0, &a), THRONG_OK);
	cr_assert_gt(a.position.x, 21.0f, "the agent left the bounds");
	grid_text(x1, ceil(((double)a.position.x + 1.0) * 1e6) / 1e6);
	snprintf(want, sizeof want, "POLYGON ((0 0, %s 0, %s 10, 0 10, 0 0))", x1, x1);
	cr_assert_str_eq(wkt, want);
	snprintf(want, sizeof want, "%.9g\n0\n10\n0\n", (double)a.position.x + 1.0); // xmax, xmin, ymax, ymin
	cr_assert_str_eq(sqlite(path, "SELECT value FROM metadata WHERE key IN ('xmin','xmax','ymin','ymax') ORDER BY key"),
	                 want);
	throng_world_destroy(w);
	unlink(path);
}
