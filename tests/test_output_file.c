// SPDX-License-Identifier: MIT
// The one way throng writes a file (include/throng/file.h), issue 30: every
// writer (throng_output_file_open itself, throng_scene_save_file, `throng
// run --out`, `throng save --out`, throng-view --screenshot) against the
// attacks and accidents of the hostile round: a planted link at a fixed
// temporary name, another user's link in a sticky directory, device nodes
// and FIFOs, /dev, standard output by name, hard links and owners,
// leftovers of a killed run, options that swallow the next option.
//
// Cases that need root (lchown to another user, mknod, chown) skip with a
// message when the tests do not run as root; CI here runs as root.
#define _GNU_SOURCE // mkdtemp, lchown, mknod, mkfifo
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"
#include "throng/export.h"
#include "throng/file.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"

#define OUT_CAP 65536
#define ERR_CAP 8192
/// nobody:nogroup on Debian: the "other user" of these tests.
#define OTHER_UID 65534u
#define OTHER_GID 65534u

static char out[OUT_CAP];
static char err[ERR_CAP];
static char dir[64];

static void make_dir(void) { thr_test_make_dir(dir, sizeof dir, "throng-outfile"); }

static void remove_dir(void) { thr_test_remove_dir(dir); }

TestSuite(outfile, .init = make_dir, .fini = remove_dir);

static int run_sh(const char* cmdline) { return thr_test_run(cmdline, out, OUT_CAP, err, ERR_CAP); }

/// `throng <args>` run in the test's directory.
static int run_cli(const char* args) { return thr_test_cli_in(dir, args, out, OUT_CAP, err, ERR_CAP); }

static void path_in(char* buf, size_t cap, const char* name) { snprintf(buf, cap, "%s/%s", dir, name); }



/// Leftover ".NAME.XXXXXX.part" temporaries in `where`.
static int count_parts(const char* where)
{
	DIR* d = opendir(where);
	cr_assert_not_null(d);
	int n = 0;
	for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
		n += strstr(e->d_name, ".part") != NULL;
	}
	closedir(d);
	return n;
}

static bool is_root(void) { return geteuid() == 0; }

/// A sticky, world-writable directory inside the test's directory (like
/// /tmp), with a victim file outside it and `link` in it naming the victim,
/// owned by another user. Returns false (the test skips) when not root.
static bool plant_foreign_link(const char* link_name, char* sticky, size_t sticky_cap, char* victim, size_t victim_cap)
{
	path_in(sticky, sticky_cap, "sticky");
	cr_assert_eq(mkdir(sticky, 0777), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	path_in(victim, victim_cap, "victim.conf");
	thr_test_write_text(victim, "root-only secret\n");
	cr_assert_eq(chmod(victim, 0600), 0);
	char link[256];
	snprintf(link, sizeof link, "%s/%s", sticky, link_name);
	cr_assert_eq(symlink(victim, link), 0);
	if (!is_root()) {
		return false;
	}
	cr_assert_eq(lchown(link, OTHER_UID, OTHER_GID), 0, "lchown: %s", strerror(errno));
	return true;
}

static void expect_victim_untouched(const char* victim)
{
	char text[256];
	thr_test_slurp(victim, text, sizeof text);
	cr_assert_str_eq(text, "root-only secret\n", "the victim was overwritten");
	struct stat st;
	cr_assert_eq(stat(victim, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
}

// ---------------------------------------------------------------------------
// Defect 1: a link planted at the temporary's name

Test(outfile, save_file_ignores_a_link_planted_at_the_old_temporary_name)
{
	char victim[256], path[256], planted[300];
	path_in(victim, sizeof victim, "victim.conf");
	thr_test_write_text(victim, "root-only secret\n");
	cr_assert_eq(chmod(victim, 0600), 0);
	path_in(path, sizeof path, "scene.yaml");
	snprintf(planted, sizeof planted, "%s.tmp", path);
	cr_assert_eq(symlink(victim, planted), 0);
	throng_scene* scene = thr_test_scene("circle", 10, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_save_file(scene, path), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(scene);
	expect_victim_untouched(victim);
	char text[64];
	thr_test_slurp(path, text, sizeof text);
	cr_assert(strncmp(text, "# ", 2) == 0 || strncmp(text, "version", 7) == 0, "scene.yaml holds %.30s", text);
	struct stat st;
	cr_assert_eq(lstat(planted, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the planted link was replaced");
	// The same through the command.
	cr_assert_eq(run_cli("save circle --agents 10 --out scene.yaml"), 0, "%s", err);
	expect_victim_untouched(victim);
	cr_assert_eq(count_parts(dir), 0);
}

Test(outfile, a_temporary_is_never_opened_through_a_link)
{
	// Every name the temporary could take is a link: the open fails
	// instead of following one. 16^6 names cannot all be planted; the
	// library's own open flags are checked instead, on the one it made.
	char path[256];
	path_in(path, sizeof path, "x.thr");
	throng_output_file* f = NULL;
	cr_assert_eq(throng_output_file_open(path, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_not_null(throng_output_file_write_path(f));
	char temp[300]; // a copy: the name is the output file's, freed with it
	snprintf(temp, sizeof temp, "%s", throng_output_file_write_path(f));
	cr_assert_neq(strcmp(temp, path), 0);
	struct stat st;
	cr_assert_eq(lstat(temp, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	// It is locked while it is written (the sweep of leftovers skips it).
	int probe = open(temp, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(probe, 0);
	cr_assert_neq(flock(probe, LOCK_EX | LOCK_NB), 0, "the temporary is not locked");
	close(probe);
	throng_output_file_destroy(f);
	cr_assert_neq(lstat(temp, &st), 0, "a discarded temporary stayed");
}

// ---------------------------------------------------------------------------
// Defect 3: another user's link in a sticky directory

Test(outfile, another_users_link_in_a_sticky_directory_is_not_followed)
{
	char sticky[256], victim[256];
	if (!plant_foreign_link("x.csv", sticky, sizeof sticky, victim, sizeof victim)) {
		cr_skip_test("not root: lchown to another user is not permitted, so the link cannot be planted");
	}
	char path[300];
	snprintf(path, sizeof path, "%s/x.csv", sticky);
	throng_output_file* f = NULL;
	cr_assert_eq(throng_output_file_open(path, &f), THRONG_ERR_IO);
	cr_assert_not_null(strstr(throng_last_error(), "another user's symbolic link (uid 65534) in the sticky"), "%s",
	                   throng_last_error());
	// Every writer refuses it: run --out in each format, save --out, the
	// library's save.
	const char* runs[] = {"run circle --agents 10 --steps 2 --out sticky/x.csv",
	                      "run circle --agents 10 --steps 2 --out sticky/x.csv --format bin",
	                      "run circle --agents 10 --steps 2 --out sticky/x.csv --format sqlite",
	                      "save circle --agents 10 --out sticky/x.csv"};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
		cr_assert_eq(run_cli(runs[k]), 4, "%s: %s", runs[k], err);
		cr_assert_not_null(strstr(err, "is another user's symbolic link"), "%s: %s", runs[k], err);
		expect_victim_untouched(victim);
	}
	throng_scene* scene = thr_test_scene("circle", 10, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_save_file(scene, path), THRONG_ERR_IO);
	throng_scene_destroy(scene);
	expect_victim_untouched(victim);
	// A chain: our own link in the sticky directory to the foreign one.
	char chain[300];
	snprintf(chain, sizeof chain, "%s/mine.csv", sticky);
	cr_assert_eq(symlink("x.csv", chain), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out sticky/mine.csv"), 4, "%s", err);
	expect_victim_untouched(victim);
	cr_assert_eq(count_parts(sticky), 0);
	cr_assert_eq(count_parts(dir), 0);
}

Test(outfile, own_links_and_the_directory_owners_links_are_followed)
{
	char sticky[256], victim[256];
	plant_foreign_link("other.csv", sticky, sizeof sticky, victim, sizeof victim);
	// The caller's own link in the sticky directory: followed, the file it
	// names replaced, the link kept.
	char target[256], link[300];
	path_in(target, sizeof target, "real.csv");
	thr_test_write_text(target, "old\n");
	snprintf(link, sizeof link, "%s/mine.csv", sticky);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out sticky/mine.csv"), 0, "%s", err);
	char text[64];
	thr_test_slurp(target, text, sizeof text);
	cr_assert(strncmp(text, "id,frame", 8) == 0, "%s", text);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	if (!is_root()) {
		return;
	}
	// The directory's owner's link, owned by another user who owns the
	// directory too: followed (the kernel's rule), here to a file of theirs.
	char theirs[256], their_dir[256], their_link[300];
	path_in(their_dir, sizeof their_dir, "theirs");
	cr_assert_eq(mkdir(their_dir, 0777), 0);
	cr_assert_eq(chmod(their_dir, 01777), 0);
	cr_assert_eq(chown(their_dir, OTHER_UID, OTHER_GID), 0);
	path_in(theirs, sizeof theirs, "theirs.csv");
	thr_test_write_text(theirs, "old\n");
	snprintf(their_link, sizeof their_link, "%s/x.csv", their_dir);
	cr_assert_eq(symlink(theirs, their_link), 0);
	cr_assert_eq(lchown(their_link, OTHER_UID, OTHER_GID), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out theirs/x.csv"), 0, "%s", err);
	thr_test_slurp(theirs, text, sizeof text);
	cr_assert(strncmp(text, "id,frame", 8) == 0, "%s", text);
}

Test(outfile, a_dangling_link_is_refused)
{
	char link[256], missing[256];
	path_in(link, sizeof link, "dangling.csv");
	path_in(missing, sizeof missing, "nothing-here.csv");
	cr_assert_eq(symlink(missing, link), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out dangling.csv"), 4, "%s", err);
	cr_assert_not_null(strstr(err, "which does not exist; nothing is created through a link"), "%s", err);
	struct stat st;
	cr_assert_neq(stat(missing, &st), 0, "a file was created through the link");
	cr_assert_eq(run_cli("save circle --out dangling.csv"), 4, "%s", err);
	cr_assert_neq(stat(missing, &st), 0, "a file was created through the link");
}

// ---------------------------------------------------------------------------
// Defect 2: devices and FIFOs are written in place, never replaced

Test(outfile, save_writes_a_device_in_place)
{
	char path[256];
	path_in(path, sizeof path, "null");
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		cr_assert_eq(errno, EPERM, "mknod: %s", strerror(errno));
		cr_skip_test("mknod is not permitted here (not root)");
	}
	cr_assert_eq(run_cli("save circle --agents 10 --out null"), 0, "%s", err);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "null is no longer the device");
	cr_assert_eq(count_parts(dir), 0);
	// /dev/full through the same path: the write fails, exit 4, the device stays.
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mknod(path, S_IFCHR | 0666, makedev(1, 7)), 0);
	cr_assert_eq(run_cli("save circle --agents 10 --out null"), 4, "%s", err);
	cr_assert_not_null(strstr(err, "No space left on device"), "%s", err);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));
}

Test(outfile, save_and_run_write_a_fifo_its_reader_receives)
{
	char fifo[256], cmd[1024];
	path_in(fifo, sizeof fifo, "pipe");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof cmd, "cd '%s' && { cat pipe > got.yaml & '%s' save circle --agents 10 --out pipe; wait; }", dir,
	         THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	char got[256], text[64];
	path_in(got, sizeof got, "got.yaml");
	thr_test_slurp(got, text, sizeof text);
	cr_assert(strlen(text) > 10, "the FIFO's reader got %zu bytes", strlen(text));
	struct stat st;
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { cat pipe > got.csv & '%s' run circle --agents 10 --steps 2 --out pipe --format csv; wait; }",
	         dir, THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	path_in(got, sizeof got, "got.csv");
	thr_test_slurp(got, text, sizeof text);
	cr_assert(strncmp(text, "id,frame", 8) == 0, "%s", text);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

/// Opens `path` as another user (nobody) when root, as we are otherwise:
/// neither may write /dev, so an implementation that tried to create a
/// file there would fail with EACCES instead of creating it. Returns the
/// status; the message goes to msg.
static throng_status open_unprivileged(const char* path, char* msg, size_t cap)
{
	cr_assert_eq(chmod(dir, 0755), 0); // nobody must reach the test's links
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		if (is_root() && (setgid(OTHER_GID) != 0 || setuid(OTHER_UID) != 0)) {
			_exit(100);
		}
		throng_output_file* f = NULL;
		throng_status st = throng_output_file_open(path, &f);
		const char* m = st == THRONG_OK ? "" : throng_last_error();
		ssize_t w = write(fds[1], m, strlen(m));
		(void)w;
		throng_output_file_destroy(f);
		_exit((int)st);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], msg, cap - 1u);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 100, "could not become nobody");
	return (throng_status)WEXITSTATUS(status);
}

Test(outfile, nothing_is_created_in_dev)
{
	char msg[1024];
	char name[64];
	snprintf(name, sizeof name, "/dev/throng-test-%d.thr", (int)getpid());
	cr_assert_eq(open_unprivileged(name, msg, sizeof msg), THRONG_ERR_IO);
	cr_assert_not_null(strstr(msg, "throng creates no file in /dev"), "%s", msg);
	// Reached through a link from elsewhere, too.
	char link[256];
	path_in(link, sizeof link, "devdir");
	cr_assert_eq(symlink("/dev", link), 0);
	char via[300];
	snprintf(via, sizeof via, "%s/throng-test-%d.thr", link, (int)getpid());
	cr_assert_eq(open_unprivileged(via, msg, sizeof msg), THRONG_ERR_IO);
	cr_assert_not_null(strstr(msg, "throng creates no file in /dev"), "%s", msg);
	struct stat st;
	cr_assert_neq(stat(name, &st), 0);
}

Test(outfile, standard_streams_by_name_never_touch_dev)
{
	char cmd[1024], path[256], text[256];
	// -, /dev/stdout and /dev/fd/1 with standard output redirected to a
	// file: that file receives the scene, written in place.
	const char* names[] = {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' save circle --agents 10 --out %s > saved.yaml; }", dir,
		         THRONG_CLI_PATH, names[k]);
		cr_assert_eq(run_sh(cmd), 0, "%s: %s", names[k], err);
		path_in(path, sizeof path, "saved.yaml");
		thr_test_slurp(path, text, sizeof text);
		cr_assert(strstr(text, "made by: throng save circle --agents 10") != NULL, "%s: %.80s", names[k], text);
		cr_assert_eq(count_parts(dir), 0);
		struct stat st;
		path_in(path, sizeof path, "-");
		cr_assert_neq(stat(path, &st), 0, "save --out %s wrote a file named -", names[k]);
	}
	// An inherited descriptor.
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { '%s' run circle --agents 10 --steps 2 --out /dev/fd/3 --format csv 3> fd3.csv; }", dir,
	         THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	path_in(path, sizeof path, "fd3.csv");
	thr_test_slurp(path, text, sizeof text);
	cr_assert(strncmp(text, "id,frame", 8) == 0, "%s", text);
	cr_assert_not_null(strstr(out, "scenario:"), "the summary left standard output: %s", out);
	// A descriptor that is not open, or open for reading only.
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out /dev/fd/9"), 4, "%s", err);
	cr_assert_not_null(strstr(err, "descriptor 9 is not open"), "%s", err);
	snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' save circle --out /dev/fd/3 3< fd3.csv; }", dir, THRONG_CLI_PATH);
	cr_assert_eq(run_sh(cmd), 4, "%s", err);
	cr_assert_not_null(strstr(err, "descriptor 3 is open for reading only"), "%s", err);
	// The library says which names are standard output.
	cr_assert(throng_output_path_is_stdout("-") && throng_output_path_is_stdout("/dev/stdout") &&
	          throng_output_path_is_stdout("/dev/fd/1") && !throng_output_path_is_stdout("/dev/fd/2") &&
	          !throng_output_path_is_stdout("/dev/fd/1x") && !throng_output_path_is_stdout("./-"));
}

Test(outfile, a_regular_file_in_dev_is_not_replaced)
{
	// /dev/stdout replaced by a regular file (seen on this machine once):
	// it is never touched, since the name means standard output. Another
	// regular file in /dev cannot be made by a test; the rule is the one
	// nothing_is_created_in_dev checks, reached through a link.
	char link[256], msg[1024];
	path_in(link, sizeof link, "devnull_dir");
	cr_assert_eq(symlink("/dev", link), 0);
	char via[300];
	snprintf(via, sizeof via, "%s/null", link);
	cr_assert_eq(open_unprivileged(via, msg, sizeof msg), THRONG_OK, "%s", msg); // a device: in place
}

// ---------------------------------------------------------------------------
// Defect 7: hard links and owners

Test(outfile, hard_links_keep_the_old_contents_and_are_reported)
{
	char a[256], b[256], text[64];
	path_in(a, sizeof a, "o.csv");
	path_in(b, sizeof b, "o2.csv");
	thr_test_write_text(a, "old\n");
	cr_assert_eq(link(a, b), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out o.csv"), 0, "%s", err);
	cr_assert_not_null(strstr(err, "note: --out: o.csv is replaced by a new file; its 1 other hard link keeps the old contents"),
	                   "%s", err);
	thr_test_slurp(b, text, sizeof text);
	cr_assert_str_eq(text, "old\n");
	thr_test_slurp(a, text, sizeof text);
	cr_assert(strncmp(text, "id,frame", 8) == 0);
}

Test(outfile, the_owner_is_kept_where_the_caller_may_set_it)
{
	if (!is_root()) {
		cr_skip_test("not root: a file of another user cannot be made");
	}
	char path[256];
	path_in(path, sizeof path, "theirs.csv");
	thr_test_write_text(path, "old\n");
	cr_assert_eq(chown(path, OTHER_UID, OTHER_GID), 0);
	cr_assert_eq(chmod(path, 0664), 0);
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out theirs.csv"), 0, "%s", err);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_uid, OTHER_UID);
	cr_assert_eq(st.st_gid, OTHER_GID);
	cr_assert_eq(st.st_mode & 07777, 0664);
	cr_assert_null(strstr(err, "note:"), "%s", err);
	cr_assert_eq(run_cli("save circle --agents 10 --out theirs.csv"), 0, "%s", err);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_uid, OTHER_UID);
}

// ---------------------------------------------------------------------------
// Defect 5: signals, and what a kill leaves

/// Starts `throng run field ... --out o.thr` in the background, sends `sig`
/// once the output is open and frames are flowing, and returns its exit
/// status (or -1 killed by the signal).
static int run_and_signal(int sig, const char* out_name)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { '%s' run field --agents 5000 --steps 100000 --quiet --out %s > summary.txt 2> err.txt & pid=$!; "
	         "i=0; while [ $i -lt 200 ] && ! ls -a | grep -q '\\.part$'; do sleep 0.05; i=$((i+1)); done; sleep 0.3; "
	         "kill -%d $pid; wait $pid; echo $?; }",
	         dir, THRONG_CLI_PATH, out_name, sig);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	return atoi(out);
}

Test(outfile, sighup_and_sigquit_stop_a_run_with_its_outputs_closed, .timeout = 120)
{
	const int sigs[] = {SIGHUP, SIGQUIT, SIGTERM};
	const char* names[] = {"SIGHUP", "SIGQUIT", "SIGTERM"};
	for (int k = 0; k < 3; ++k) {
		int rc = run_and_signal(sigs[k], "o.thr");
		cr_assert_eq(rc, 128 + sigs[k], "%s: exit %d", names[k], rc);
		char path[256], text[4096];
		path_in(path, sizeof path, "summary.txt");
		thr_test_slurp(path, text, sizeof text);
		cr_assert_not_null(strstr(text, names[k]), "%s: the summary does not name it: %s", names[k], text);
		path_in(path, sizeof path, "o.thr");
		throng_stream_reader* r = NULL;
		cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s: %s", names[k], throng_last_error());
		throng_frame fr;
		bool got = true;
		while (got) {
			cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		}
		cr_assert(throng_stream_complete(r) && throng_stream_interrupted(r), "%s: not closed as interrupted", names[k]);
		throng_stream_reader_destroy(r);
		cr_assert_eq(count_parts(dir), 0, "%s left a temporary", names[k]);
	}
}

Test(outfile, a_killed_runs_temporary_is_removed_by_the_next_run, .timeout = 120)
{
	char path[256], text[64];
	path_in(path, sizeof path, "o.thr");
	thr_test_write_text(path, "precious\n");
	int rc = run_and_signal(SIGKILL, "o.thr");
	cr_assert_eq(rc, 128 + SIGKILL, "exit %d", rc);
	cr_assert_eq(count_parts(dir), 1, "SIGKILL should leave its temporary");
	thr_test_slurp(path, text, sizeof text);
	cr_assert_str_eq(text, "precious\n", "a killed run replaced the file");
	// The next run writing the same name removes it and says so.
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out o.thr"), 0, "%s", err);
	cr_assert_not_null(strstr(err, "note: --out: removed 1 temporary file left in"), "%s", err);
	cr_assert_not_null(strstr(err, "by an earlier run that was killed (.o.thr."), "%s", err);
	cr_assert_eq(count_parts(dir), 0);
}

Test(outfile, a_killed_sqlite_runs_journal_goes_with_its_temporary)
{
	char part[256], journal[256], path[256], keep[256];
	path_in(part, sizeof part, ".x.db.0a1b2c.part");
	path_in(journal, sizeof journal, ".x.db.0a1b2c.part-journal");
	path_in(keep, sizeof keep, ".x.db.part"); // not a temporary's name: left alone
	path_in(path, sizeof path, "x.db");
	thr_test_write_text(part, "partial\n");
	thr_test_write_text(journal, "journal\n");
	thr_test_write_text(keep, "someone's\n");
	throng_output_file* f = NULL;
	cr_assert_eq(throng_output_file_open(path, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_not_null(throng_output_file_notice(f));
	cr_assert_not_null(strstr(throng_output_file_notice(f), "removed 1 temporary file left in"), "%s",
	                   throng_output_file_notice(f));
	throng_output_file_destroy(f);
	struct stat st;
	cr_assert_neq(stat(part, &st), 0);
	cr_assert_neq(stat(journal, &st), 0);
	cr_assert_eq(stat(keep, &st), 0);
}

Test(outfile, a_temporary_being_written_or_another_users_is_left_alone)
{
	char path[256];
	path_in(path, sizeof path, "x.csv");
	// Two writers of one name at once: the second leaves the first's
	// temporary alone (it holds its lock).
	throng_output_file* a = NULL;
	throng_output_file* b = NULL;
	cr_assert_eq(throng_output_file_open(path, &a), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_output_file_open(path, &b), THRONG_OK, "%s", throng_last_error());
	cr_assert_null(throng_output_file_notice(b), "%s", throng_output_file_notice(b));
	struct stat st;
	cr_assert_eq(stat(throng_output_file_write_path(a), &st), 0, "the other writer's temporary was removed");
	cr_assert_eq(throng_output_file_write(a, "a\n", 2), THRONG_OK);
	cr_assert_eq(throng_output_file_commit(a), THRONG_OK, "%s", throng_last_error());
	throng_output_file_destroy(a);
	throng_output_file_destroy(b);
	if (!is_root()) {
		return;
	}
	// A leftover of another user's killed run: reported, not removed.
	char theirs[256];
	path_in(theirs, sizeof theirs, ".x.csv.abc123.part");
	thr_test_write_text(theirs, "partial\n");
	cr_assert_eq(chown(theirs, OTHER_UID, OTHER_GID), 0);
	cr_assert_eq(throng_output_file_open(path, &a), THRONG_OK, "%s", throng_last_error());
	const char* notice = throng_output_file_notice(a);
	cr_assert_not_null(notice);
	cr_assert_not_null(strstr(notice, "1 temporary file in"), "%s", notice);
	cr_assert_not_null(strstr(notice, "left by another user's run that was killed (.x.csv.abc123.part); remove it by hand"),
	                   "%s", notice);
	throng_output_file_destroy(a);
	cr_assert_eq(stat(theirs, &st), 0, "another user's leftover was removed");
}

// ---------------------------------------------------------------------------
// Defects 6, 8, 9: the command line

Test(outfile, options_that_take_a_path_do_not_swallow_the_next_option)
{
	struct stat st;
	char path[256];
	const char* runs[] = {"run circle --steps 2 --out --quiet", "run circle --steps 2 --shm --quiet",
	                      "save circle --out --agents", "run circle --steps 2 --out=--quiet",
	                      "run circle --steps 2 --out -q"};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
		cr_assert_eq(run_cli(runs[k]), 2, "%s: %s", runs[k], err);
		cr_assert_not_null(strstr(err, "missing value: \""), "%s: %s", runs[k], err);
		cr_assert_not_null(strstr(err, "is an option (for a file of that name, write ./"), "%s: %s", runs[k], err);
	}
	path_in(path, sizeof path, "--quiet");
	cr_assert_neq(stat(path, &st), 0, "a file named --quiet was written");
	// Written ./--quiet, it is a file name.
	cr_assert_eq(run_cli("run circle --agents 10 --steps 2 --out ./--quiet --format csv"), 0, "%s", err);
	cr_assert_eq(stat(path, &st), 0);
	// Negative numbers still get the option's own message.
	cr_assert_eq(run_cli("run circle --seed -5"), 2, "%s", err);
	cr_assert_not_null(strstr(err, "--seed: expected an integer"), "%s", err);
}

Test(outfile, the_same_mistake_gives_the_same_exit_status_everywhere)
{
	cr_assert_eq(run_cli("run nosuch"), 2, "%s", err);
	cr_assert_not_null(strstr(err, "run: unknown scenario \"nosuch\""), "%s", err);
	cr_assert_eq(run_cli("save nosuch --out x.yaml"), 2, "%s", err);
	cr_assert_not_null(strstr(err, "save: unknown scenario \"nosuch\""), "%s", err);
	// A repeated option: refused, naming both values' option.
	const char* twice[] = {"run circle --agents 10 --agents 20", "save circle --seed 1 --seed 2 --out x.yaml",
	                       "run circle --out a.csv --out=b.csv"};
	for (size_t k = 0; k < sizeof twice / sizeof twice[0]; ++k) {
		cr_assert_eq(run_cli(twice[k]), 2, "%s: %s", twice[k], err);
		cr_assert_not_null(strstr(err, "given twice (the second time as"), "%s: %s", twice[k], err);
	}
	// A scenario file that is missing: an input, 3, from run, save and validate.
	const char* missing[] = {"run ./no.yaml", "save ./no.yaml --out x.yaml", "validate ./no.yaml"};
	for (size_t k = 0; k < sizeof missing / sizeof missing[0]; ++k) {
		cr_assert_eq(run_cli(missing[k]), 3, "%s: %s", missing[k], err);
	}
	// --agents with a scenario file: a usage error naming --agents.
	char file[256];
	path_in(file, sizeof file, "s.yaml");
	cr_assert_eq(run_cli("save circle --agents 10 --out s.yaml"), 0, "%s", err);
	cr_assert_eq(run_cli("run s.yaml --agents 20"), 2, "%s", err);
	cr_assert_not_null(strstr(err, "--agents: s.yaml is a scenario file, which sets the count of each of its groups"),
	                   "%s", err);
	cr_assert_null(strstr(err, "options.agents"), "%s", err);
	// An output that cannot be written: 4, from run and save alike.
	cr_assert_eq(run_cli("run circle --steps 1 --out /nonexistent-dir/x.csv"), 4, "%s", err);
	cr_assert_eq(run_cli("save circle --out /nonexistent-dir/x.yaml"), 4, "%s", err);
}

// ---------------------------------------------------------------------------
// Inputs: a scenario file too large costs nothing (issue 30, item 3's
// class: a size checked before it is read)

Test(outfile, a_scenario_file_too_large_is_refused_before_it_is_read)
{
	// A sparse regular file of 40 MiB: refused by its size, exactly.
	char path[256], cmd[512];
	path_in(path, sizeof path, "big.yaml");
	snprintf(cmd, sizeof cmd, "truncate -s 40M '%s'", path);
	cr_assert_eq(run_sh(cmd), 0, "%s", err);
	cr_assert_eq(run_cli("validate big.yaml"), 3, "%s", err);
	cr_assert_not_null(strstr(err, "big.yaml:1:1: document: the file has 41943040 bytes (expected at most 33554432)"),
	                   "%s", err);
	// A device that never ends: refused once one byte more than the limit
	// has come, and said so without claiming a size.
	cr_assert_eq(run_cli("validate /dev/zero"), 3, "%s", err);
	cr_assert_not_null(strstr(err, "/dev/zero:1:1: document: the file has more than 33554432 bytes"), "%s", err);
}
