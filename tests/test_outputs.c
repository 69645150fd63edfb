// SPDX-License-Identifier: MIT
// How `throng run` writes its outputs and ends (issue 11, items 1, 3, 5,
// 11, 12, 13): no path that existed before a run is ever removed or
// replaced except a regular file by a finished temporary; --out naming
// standard output's file or the scenario file; every write to standard
// output checked; a full disk leaving whole frames and a message that says
// exactly what the file holds; SIGINT and SIGTERM closing every output.
#define _XOPEN_SOURCE 700 // mknod, S_IFCHR
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"
#include "throng/export.h"
#include "throng/scenario.h"

#define OUT_CAP 65536
#define ERR_CAP 8192

static char out[OUT_CAP];
static char err[ERR_CAP];
static char dir[64];

static void make_dir(void) { thr_test_make_dir(dir, sizeof dir, "throng-outputs"); }

static void remove_dir(void) { thr_test_remove_dir(dir); }

static int run_sh(const char* cmdline) { return thr_test_run(cmdline, out, OUT_CAP, err, ERR_CAP); }

/// `throng <args>` run in the test's directory.
static int run_cli(const char* args) { return thr_test_cli_in(dir, args, out, OUT_CAP, err, ERR_CAP); }

static void path_in(char* buf, size_t cap, const char* name) { snprintf(buf, cap, "%s/%s", dir, name); }



/// No ".NAME.XXXXXX.part" temporary and no SQLite journal left in the directory.
static void expect_no_leftovers(void)
{
	DIR* d = opendir(dir);
	cr_assert_not_null(d);
	struct dirent* e;
	while ((e = readdir(d)) != NULL) {
		cr_expect_null(strstr(e->d_name, ".part"), "a temporary was left behind: %s", e->d_name);
		cr_expect_null(strstr(e->d_name, "-journal"), "a journal was left behind: %s", e->d_name);
	}
	closedir(d);
}

/// Reads the stream file at `path` to its end, every read succeeding;
/// returns the frames read and whether the end record closed it, and
/// with what flag.
static long read_stream_file(const char* path, bool* complete, bool* interrupted)
{
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = true;
	long read = 0;
	while (got) {
		cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		read += got;
	}
	*complete = throng_stream_complete(r);
	*interrupted = throng_stream_interrupted(r);
	throng_stream_reader_destroy(r);
	return read;
}

/// A small valid scenario file at `path`.
static void write_scenario(const char* path)
{
	thr_test_write_text(path, "version: 1\nname: tiny\nsteps: 10\n"
	                 "world:\n  bounds: {min: [-10, -10], max: [10, 10], mode: contain}\n"
	                 "archetypes:\n  walker:\n    slots:\n      - {kind: wander}\n"
	                 "groups:\n  walkers:\n    count: 5\n    archetype: walker\n"
	                 "    spawn: {shape: rectangle, center: [0, 0], size: [8, 8]}\n");
}

static const char* const formats[] = {"bin", "csv", "ped", "sqlite"};

/// A run writing to `name` in every format fails (exit 1, the message naming
/// it) and leaves `name` a character device 1,7 (/dev/full's numbers).
static void expect_device_survives(const char* name, const char* shown)
{
	char path[256], args[512];
	path_in(path, sizeof path, name);
	for (size_t k = 0; k < sizeof formats / sizeof formats[0]; ++k) {
		snprintf(args, sizeof args, "run herd --steps 3 --out %s --format %s", name, formats[k]);
		int rc = run_cli(args);
		cr_assert_eq(rc, 4, "%s: exit %d: %s", args, rc, err);
		// SQLite is refused before it opens a device; the others meet ENOSPC.
		const char* want = strcmp(formats[k], "sqlite") == 0 ? "SQLite needs a regular file" : shown;
		cr_assert_not_null(strstr(err, want), "%s: %s", args, err);
		struct stat st;
		cr_assert_eq(stat(path, &st), 0, "%s: %s is gone: %s", args, path, strerror(errno));
		cr_assert(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7), "%s: %s is no longer the device", args, path);
	}
	expect_no_leftovers();
}

TestSuite(outputs, .init = make_dir, .fini = remove_dir);

Test(outputs, device_node_is_written_in_place_and_never_removed)
{
	char path[256];
	path_in(path, sizeof path, "full");
	if (mknod(path, S_IFCHR | 0666, makedev(1, 7)) != 0) {
		// No CAP_MKNOD here (CI runs as root, where it works): the same
		// device reached through a link, which the next test covers too.
		cr_assert_eq(errno, EPERM, "mknod: %s", strerror(errno));
		cr_log_warn("mknod is not permitted here; testing a symlink to /dev/full instead");
		cr_assert_eq(symlink("/dev/full", path), 0);
	}
	expect_device_survives("full", "no space left on the device");
}

Test(outputs, symlinks_stay_links)
{
	char link[256], target[256];
	// A link to a device: written in place, the link and /dev/full stay.
	path_in(link, sizeof link, "to_full");
	cr_assert_eq(symlink("/dev/full", link), 0);
	expect_device_survives("to_full", "no space left on the device");
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));

	// A link to a regular file: the file is replaced, the link still names it.
	path_in(target, sizeof target, "real.csv");
	path_in(link, sizeof link, "link.csv");
	thr_test_write_text(target, "old\n");
	cr_assert_eq(chmod(target, 0640), 0);
	cr_assert_eq(symlink("real.csv", link), 0);
	cr_assert_eq(run_cli("run herd --steps 2 --out link.csv"), 0, "%s", err);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640, "the replacement has mode %o", st.st_mode & 07777);
	static char text[65536];
	thr_test_slurp(target, text, sizeof text);
	cr_assert(strncmp(text, "id,frame,time,x,y", 17) == 0, "%.40s", text);
	expect_no_leftovers();
}

Test(outputs, a_failed_run_leaves_an_existing_file_as_it_was)
{
	char path[256];
	path_in(path, sizeof path, "keep.thr");
	thr_test_write_text(path, "precious\n");
	// A size limit of 0 blocks: not even the header fits.
	for (size_t k = 0; k < sizeof formats / sizeof formats[0]; ++k) {
		char args[512];
		snprintf(args, sizeof args, "run herd --steps 3 --out keep.thr --format %s", formats[k]);
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "cd '%s' && { ulimit -f 0; '%s' %s; }", dir, THRONG_CLI_PATH, args);
		cr_assert_eq(run_sh(cmd), 4, "%s: %s", args, err);
		char text[64];
		thr_test_slurp(path, text, sizeof text);
		cr_assert_str_eq(text, "precious\n", "%s replaced keep.thr: %s", args, err);
	}
	expect_no_leftovers();
}

Test(outputs, out_naming_standard_output_is_taken_as_dash)
{
	char path[256], cmd[1024];
	path_in(path, sizeof path, "o.thr");
	// Standard output redirected to a file, --out naming the same file.
	snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' run herd --steps 3 --out o.thr > o.thr; }", dir, THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	cr_assert_not_null(strstr(err, "scenario:"), "the summary is not on stderr: %s", err);
	bool complete = false, interrupted = true;
	cr_assert_eq(read_stream_file(path, &complete, &interrupted), 4);
	cr_assert(complete);
	cr_assert_not(interrupted);

	// Through a pipe, as /dev/stdout.
	snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' run herd --steps 3 --out /dev/stdout --format csv | cat > o.csv; }", dir,
	         THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	static char text[65536];
	path_in(path, sizeof path, "o.csv");
	thr_test_slurp(path, text, sizeof text);
	cr_assert_null(strstr(text, "scenario:"), "the summary went into the CSV");
	cr_assert(strncmp(text, "id,frame,time", 13) == 0);

	// SQLite cannot share standard output: refused, nothing written.
	snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' run herd --steps 3 --out o.db > o.db; }", dir, THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 2, "%s", err);
	cr_assert_not_null(strstr(err, "--out: o.db is the file standard output goes to"), "%s", err);
}

Test(outputs, out_naming_the_scenario_file_is_refused)
{
	char path[256], cmd[1024];
	path_in(path, sizeof path, "x.yaml");
	write_scenario(path);
	snprintf(cmd, sizeof cmd, "ln -s x.yaml '%s/y.csv'", dir);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	cr_assert_eq(run_cli("validate x.yaml"), 0, "%s", err);
	static char before[65536], after[65536];
	thr_test_slurp(path, before, sizeof before);
	const char* runs[] = {"run x.yaml --out x.yaml --format csv", "run ./x.yaml --out y.csv",
	                      "run x.yaml --out ./x.yaml --format sqlite"};
	for (size_t k = 0; k < 3; ++k) {
		cr_assert_eq(run_cli(runs[k]), 2, "%s: %s", runs[k], err);
		cr_assert_not_null(strstr(err, "is the scenario file"), "%s: %s", runs[k], err);
		thr_test_slurp(path, after, sizeof after);
		cr_assert_str_eq(after, before, "%s changed the scenario file", runs[k]);
	}
	expect_no_leftovers();
}

Test(outputs, standard_output_write_errors_fail)
{
	char scen[256];
	path_in(scen, sizeof scen, "x.yaml");
	char cmd[1024];
	write_scenario(scen);
	const char* args[] = {"run herd --steps 2", "run herd --steps 2 --summary json", "list", "--help",
	                      "run --help", "--version", "validate x.yaml", "run herd --steps 2 --out -"};
	for (size_t k = 0; k < sizeof args / sizeof args[0]; ++k) {
		snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' %s > /dev/full; }", dir, THRONG_CLI_PATH, args[k]);
		int rc = run_sh(cmd);
		cr_assert_eq(rc, 4, "throng %s > /dev/full: exit %d: %s", args[k], rc, err);
		cr_assert(strstr(err, "standard output") != NULL || strstr(err, "no space left") != NULL,
		          "throng %s: %s", args[k], err);
	}
}

/// The number after `key` in err (the message), or -1.
static long number_after(const char* text, const char* key)
{
	const char* p = strstr(text, key);
	return p != NULL ? strtol(p + strlen(key), NULL, 10) : -1;
}

Test(outputs, full_disk_leaves_whole_rows_and_says_how_many)
{
	static char text[1 << 20];
	const char* names[] = {"full.csv", "full.ped"};
	for (int k = 0; k < 2; ++k) {
		char cmd[1024], path[256];
		path_in(path, sizeof path, names[k]);
		// ulimit -f 400 (512-byte blocks): writes past 204,800 bytes fail.
		snprintf(cmd, sizeof cmd,
		         "cd '%s' && { ulimit -f 400; '%s' run circle --agents 500 --steps 100000 %s --out %s; }", dir,
		         THRONG_CLI_PATH, k == 0 ? "--fields all" : "", names[k]);
		cr_assert_eq(run_sh(cmd), 4, "%s", err);
		cr_assert_not_null(strstr(err, "size limit (EFBIG)"), "%s", err);
		long rows = number_after(err, " holds the header line and the ");
		if (k == 1) {
			rows = number_after(err, " holds the comment header and the ");
		}
		long frames = number_after(err, " rows of ");
		cr_assert_gt(frames, 2, "%s", err);
		cr_assert_eq(rows, frames * 500, "%s", err);
		size_t n = thr_test_slurp(path, text, sizeof text);
		cr_assert_gt(n, 0u);
		cr_assert_eq(text[n - 1], '\n', "%s ends in a cut row", names[k]);
		long lines = 0, comments = 0;
		for (size_t i = 0; i < n; ++i) {
			lines += text[i] == '\n';
			comments += text[i] == '#' && (i == 0 || text[i - 1] == '\n');
		}
		long header = k == 0 ? 1 : comments;
		cr_assert_eq(lines - header, rows, "%s: %ld data rows, the message says %ld", names[k], lines - header, rows);
	}
	expect_no_leftovers();
}

Test(outputs, full_disk_stream_keeps_whole_frames)
{
	char cmd[1024], path[256];
	path_in(path, sizeof path, "full.thr");
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { ulimit -f 400; '%s' run circle --agents 500 --steps 100000 --fields all --out full.thr; }",
	         dir, THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 4, "%s", err);
	long frames = number_after(err, "full.thr holds the header and ");
	cr_assert_gt(frames, 5, "%s", err);
	cr_assert_not_null(strstr(err, "and no end record"), "%s", err);
	bool complete = true, interrupted = true;
	cr_assert_eq(read_stream_file(path, &complete, &interrupted), frames);
	cr_assert_not(complete);
	expect_no_leftovers();
}

Test(outputs, full_disk_before_any_sqlite_commit_leaves_no_file)
{
	char cmd[1024], path[256];
	path_in(path, sizeof path, "none.sqlite");
	// 1,000 agents: the first batch (250 frames) is far past 300 KB.
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { ulimit -f 600; '%s' run circle --agents 1000 --steps 100000 --out none.sqlite; }", dir,
	         THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 4, "%s", err);
	cr_assert_not_null(strstr(err, "no frame was committed, so none.sqlite is left as it was"), "%s", err);
	struct stat st;
	cr_assert_neq(stat(path, &st), 0, "none.sqlite was created");
	expect_no_leftovers();
}

/// Runs `throng <args>` in the test directory, sends `sig` once the output
/// has grown past a few frames, and returns the exit status.
static int run_and_signal(const char* args, const char* watch, int sig)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' %s > summary.txt 2> err.txt", dir, THRONG_CLI_PATH, args);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char*)NULL);
		_exit(127);
	}
	// Wait until the temporary beside `watch` holds frames: the run is in
	// its stepping loop. 1 MB: more than a SQLite file's schema and
	// walkable area (field's at 2,000 agents: 206 KB of WKT), so that a
	// batch of frames was committed.
	for (int tries = 0; tries < 600; ++tries) {
		DIR* d = opendir(dir);
		struct dirent* e;
		bool growing = false;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (strstr(e->d_name, watch) != NULL && strstr(e->d_name, ".part") != NULL &&
			    strstr(e->d_name, "journal") == NULL) {
				char p[512];
				struct stat st;
				snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
				growing = stat(p, &st) == 0 && st.st_size > 1000000;
			}
		}
		if (d != NULL) {
			closedir(d);
		}
		if (growing) {
			break;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	cr_assert_eq(kill(pid, sig), 0);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "throng died of signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	char path[256];
	path_in(path, sizeof path, "summary.txt");
	thr_test_slurp(path, out, OUT_CAP);
	path_in(path, sizeof path, "err.txt");
	thr_test_slurp(path, err, ERR_CAP);
	return WEXITSTATUS(status);
}

Test(outputs, sigint_closes_the_stream_with_the_interrupted_flag)
{
	int rc = run_and_signal("run field --agents 2000 --steps 1000000 --out run.thr", "run.thr", SIGINT);
	cr_assert_eq(rc, 130, "exit %d: %s", rc, err);
	cr_assert_not_null(strstr(err, "interrupted by SIGINT after step"), "%s", err);
	const char* why = thr_test_summary_value(out, "interrupted");
	cr_assert(why != NULL && strncmp(why, "SIGINT\n", 7) == 0, "%s", out);
	long steps = number_after(out, "\nsteps:");
	long frames = number_after(out, "\nframes:");
	cr_assert_gt(steps, 0, "%s", out);
	cr_assert_eq(frames, steps + 1, "%s", out);
	char path[256];
	path_in(path, sizeof path, "run.thr");
	bool complete = false, interrupted = false;
	cr_assert_eq(read_stream_file(path, &complete, &interrupted), frames);
	cr_assert(complete);
	cr_assert(interrupted);
	expect_no_leftovers();
}

Test(outputs, sigterm_commits_and_indexes_sqlite)
{
	int rc = run_and_signal("run field --agents 2000 --steps 1000000 --out run.sqlite", "run.sqlite", SIGTERM);
	cr_assert_eq(rc, 143, "exit %d: %s", rc, err);
	cr_assert_not_null(strstr(err, "interrupted by SIGTERM"), "%s", err);
	long frames = number_after(out, "\nframes:");
	cr_assert_gt(frames, 1, "%s", out);
	char path[256], cmd[1024];
	path_in(path, sizeof path, "run.sqlite");
	static char summary[OUT_CAP];
	memcpy(summary, out, OUT_CAP);
	snprintf(cmd, sizeof cmd,
	         "sqlite3 -batch '%s' \"SELECT COUNT(*), COUNT(DISTINCT frame) FROM trajectory_data; "
	         "SELECT name FROM sqlite_master WHERE name = 'frame_id_idx'\"",
	         path);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	char want[128];
	snprintf(want, sizeof want, "%ld|%ld\nframe_id_idx\n", frames * 2000, frames);
	cr_assert_str_eq(out, want, "summary: %s", summary);
	expect_no_leftovers();
}

Test(outputs, sigint_leaves_whole_csv)
{
	int rc = run_and_signal("run field --agents 2000 --steps 1000000 --out run.csv", "run.csv", SIGINT);
	cr_assert_eq(rc, 130, "exit %d: %s", rc, err);
	long frames = number_after(out, "\nframes:");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "wc -l '%s/run.csv'", dir);
	cr_assert_eq(run_sh(cmd), 0);
	cr_assert_eq(strtol(out, NULL, 10), 1 + frames * 2000, "%s lines for %ld frames", out, frames);
	expect_no_leftovers();
}

// --- the stream's end record: the interrupted flag --------------------------

/// Writes `frames` frames of 4 agents to memory-backed file `path`.
static void write_stream(const char* path, uint32_t frames, bool interrupted)
{
	throng_scene* s = thr_test_scene("circle", 4, THRONG_ENGINE_SCALAR);
	throng_world* w = throng_scene_world(s);
	throng_export_def def = throng_export_default_def();
	def.world = w;
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k < frames; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK);
		}
		cr_assert_eq(throng_exporter_write(ex, w), THRONG_OK, "%s", throng_last_error());
	}
	if (interrupted) {
		throng_exporter_set_interrupted(ex);
	}
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	throng_scene_destroy(s);
}

/// Reads a stream from memory to its end; the status of the last read.
static throng_status read_all(const unsigned char* data, size_t n, bool* complete, bool* interrupted)
{
	throng_stream_reader* r = NULL;
	throng_status st = throng_stream_open_memory(data, n, &r);
	cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = true;
	while (st == THRONG_OK && got) {
		st = throng_stream_read_frame(r, &fr, &got);
	}
	*complete = throng_stream_complete(r);
	*interrupted = throng_stream_interrupted(r);
	throng_stream_reader_destroy(r);
	return st;
}

Test(outputs, end_record_flags)
{
	static unsigned char data[65536];
	char path[256];
	path_in(path, sizeof path, "e.thr");
	bool complete = false, interrupted = false;

	write_stream(path, 3, false);
	size_t n = thr_test_slurp(path, (char*)data, sizeof data);
	cr_assert_eq(data[n - 1], 0, "a finished run's flags byte is 0");
	cr_assert_eq(read_all(data, n, &complete, &interrupted), THRONG_OK, "%s", throng_last_error());
	cr_assert(complete);
	cr_assert_not(interrupted);

	write_stream(path, 3, true);
	n = thr_test_slurp(path, (char*)data, sizeof data);
	cr_assert_eq(data[n - 1], 0x01, "the flags byte is the end record's last");
	cr_assert_eq(data[n - 8], 3, "the frame count is unchanged below the flags");
	cr_assert_eq(read_all(data, n, &complete, &interrupted), THRONG_OK, "%s", throng_last_error());
	cr_assert(complete);
	cr_assert(interrupted);

	// An undefined flag bit (with a correct checksum) is corrupt.
	data[n - 1] = 0x03;
	memset(data + n - 12, 0, 4);
	uint32_t crc = 0;
	{
		// CRC-32 of the 16-byte record with its crc field zero (zlib's).
		crc = 0xFFFFFFFFu;
		for (size_t i = n - 16; i < n; ++i) {
			crc ^= data[i];
			for (int b = 0; b < 8; ++b) {
				crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
			}
		}
		crc ^= 0xFFFFFFFFu;
	}
	for (int b = 0; b < 4; ++b) {
		data[n - 12 + b] = (unsigned char)(crc >> (8 * b));
	}
	cr_assert_eq(read_all(data, n, &complete, &interrupted), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "flags byte is 0x03"), "%s", throng_last_error());
}

Test(outputs, destroy_without_finish_leaves_the_path_as_it_was)
{
	char path[256];
	path_in(path, sizeof path, "keep.thr");
	thr_test_write_text(path, "precious\n");
	throng_scene* s = thr_test_scene("circle", 4, THRONG_ENGINE_SCALAR);
	throng_export_def def = throng_export_default_def();
	def.world = throng_scene_world(s);
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_write(ex, throng_scene_world(s)), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex); // not finished: discarded
	char text[64];
	thr_test_slurp(path, text, sizeof text);
	cr_assert_str_eq(text, "precious\n");
	expect_no_leftovers();

	// Finished, the file replaces the path; after it the exporter only frees.
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_write(ex, throng_scene_world(s)), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_finish(ex), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "already finished"), "%s", throng_last_error());
	cr_assert_eq(throng_scene_step(s), THRONG_OK);
	cr_assert_eq(throng_exporter_write(ex, throng_scene_world(s)), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "finished"), "%s", throng_last_error());
	throng_exporter_destroy(ex);
	bool complete = false, interrupted = true;
	cr_assert_eq(read_stream_file(path, &complete, &interrupted), 1);
	cr_assert(complete);
	cr_assert_not(interrupted);
	expect_no_leftovers();
	cr_assert_eq(throng_exporter_finish(NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_exporter_destroy(NULL);
	throng_scene_destroy(s);
}

Test(outputs, output_file_commit_then_destroy)
{
	char path[256];
	path_in(path, sizeof path, "note.txt");
	thr_test_write_text(path, "old\n");
	// Destroyed without a commit: the temporary goes, the path stays.
	throng_output_file* f = NULL;
	cr_assert_eq(throng_output_file_open(path, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_not(throng_output_file_in_place(f));
	cr_assert_eq(write(throng_output_file_fd(f), "new\n", 4), 4);
	throng_output_file_destroy(f);
	char text[64];
	thr_test_slurp(path, text, sizeof text);
	cr_assert_str_eq(text, "old\n");
	expect_no_leftovers();
	// Committed: the path holds the new text, and destroy only frees.
	cr_assert_eq(throng_output_file_open(path, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(write(throng_output_file_fd(f), "new\n", 4), 4);
	cr_assert_eq(throng_output_file_commit(f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_output_file_commit(f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "already committed"), "%s", throng_last_error());
	throng_output_file_destroy(f);
	thr_test_slurp(path, text, sizeof text);
	cr_assert_str_eq(text, "new\n");
	expect_no_leftovers();
	cr_assert_eq(throng_output_file_commit(NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_output_file_destroy(NULL);
}
