// SPDX-License-Identifier: MIT
// What the live feed's writer (live_feed.c) and its reader (feed_read.c)
// both use (feed.h): the heartbeat's clock, the object's name, and the
// writer's identity, which the writer reads from /proc into the header and
// a reader reads back from the header to judge whether that writer still
// runs. The feed's design is described at the top of live_feed.c.
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "feed.h"

uint64_t thr_feed_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// ---------------------------------------------------------------------------
// The writer's identity

bool thr_feed_proc_stat(uint32_t pid, char* state, uint64_t* start)
{
	char path[64], buf[1024];
	if (pid == 0) {
		snprintf(path, sizeof path, "/proc/self/stat");
	} else {
		snprintf(path, sizeof path, "/proc/%u/stat", pid);
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return false;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	// "pid (comm) S ppid ...": comm may hold spaces and parentheses, so the
	// fields are counted from the last ')'. The start time is field 22.
	char* p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0') {
		return false;
	}
	*state = p[2];
	p += 2;
	for (int field = 3; field < 22; ++field) {
		p = strchr(p, ' ');
		if (p == NULL) {
			return false;
		}
		++p;
	}
	char* end = NULL;
	unsigned long long v = strtoull(p, &end, 10);
	if (end == p) {
		return false;
	}
	*start = v;
	return true;
}

uint64_t thr_feed_own_pid_ns(void)
{
	struct stat sb;
	return stat("/proc/self/ns/pid", &sb) == 0 ? (uint64_t)sb.st_ino : 0u;
}

throng_status thr_feed_name(const char* name, char out[256], const char* who)
{
	if (name == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: name must not be NULL", who);
	}
	const char* bare = name[0] == '/' ? name + 1 : name;
	size_t len = strlen(bare);
	if (len == 0 || len > 200 || strchr(bare, '/') != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: shared-memory name \"%.64s\" must be 1 to 200 bytes with no '/' after an optional leading one",
		                who, name);
	}
	if (strcmp(bare, ".") == 0 || strcmp(bare, "..") == 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: shared-memory name \"%s\" is not a valid object name (\".\" and \"..\" name directories)",
		                who, name);
	}
	snprintf(out, 256, "/%s", bare);
	return THRONG_OK;
}

// ---------------------------------------------------------------------------
// Whether the writer still runs

/// Whether process `pid`, started at `start` (0 = unknown), still runs:
/// not when kill() finds no such process, when /proc shows a zombie, or
/// when the pid now belongs to a process that started at another time.
/// kill(pid, 0) sends nothing; EPERM means the process exists.
static bool process_runs(uint32_t pid, uint64_t start)
{
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		return false;
	}
	char state = 0;
	uint64_t now_start = 0;
	if (!thr_feed_proc_stat(pid, &state, &now_start)) {
		return true; // it exists (kill said so) but /proc hides it: trust kill
	}
	if (state == 'Z' || state == 'X') {
		return false; // exited, not yet reaped by its parent
	}
	return start == 0 || now_start == start;
}

throng_writer_state thr_feed_writer_state_at(unsigned char* b, const feed_writer* w)
{
	uint32_t state = atomic_load_explicit(at_u32(b, FH_STATE), memory_order_acquire);
	if (state == FEED_FINISHED) {
		return THRONG_WRITER_FINISHED;
	}
	if (state != FEED_LIVE) {
		return THRONG_WRITER_GONE; // damaged: nothing sensible will follow
	}
	if (w->same_pid_ns) {
		return process_runs(w->pid, w->start) ? THRONG_WRITER_ALIVE : THRONG_WRITER_GONE;
	}
	uint64_t beat = atomic_load_explicit(at_u64(b, FH_HEARTBEAT), memory_order_acquire);
	uint64_t now = thr_feed_now_ns();
	if (!w->heartbeat || beat == 0 || now < beat) {
		return THRONG_WRITER_ALIVE; // nothing to judge by
	}
	return now - beat > (uint64_t)THRONG_FEED_HEARTBEAT_LIMIT_MS * 1000000u ? THRONG_WRITER_GONE
	                                                                        : THRONG_WRITER_ALIVE;
}

bool thr_feed_writer_read(const unsigned char* b, feed_writer* w)
{
	uint16_t major, minor;
	memcpy(&major, b + FH_MAJOR, 2);
	memcpy(&minor, b + FH_MINOR, 2);
	const bool v11 = major >= 2 || minor >= 1; // the writer's identity came with 1.1
	w->pid = get_u32(b, FH_PID);
	w->heartbeat = v11;
	w->start = v11 ? get_u64(b, FH_WRITER_START) : 0u;
	w->pid_ns = v11 ? get_u64(b, FH_WRITER_PID_NS) : 0u;
	// A 1.0 writer says nothing of its namespace: its pid is taken as ours,
	// the common case. A later writer that could not read its own is judged
	// by its heartbeat.
	w->same_pid_ns = v11 ? w->pid_ns != 0 && w->pid_ns == thr_feed_own_pid_ns() : true;
	return w->pid >= 1 && w->pid <= (uint32_t)INT_MAX;
}
