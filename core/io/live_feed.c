// SPDX-License-Identifier: MIT
// The live feed: frames published to POSIX shared memory under a sequence
// lock (layout: docs/FORMAT.md, "Live feed").
//
// Design. The writer must never wait for a renderer, and a renderer must
// never draw a frame that is half old and half new. The object holds two
// frame slots; frame i goes to slot i % 2, so while the writer fills one
// slot the newest complete frame sits untouched in the other. Each slot has
// a sequence counter: the writer makes it odd, writes the frame, makes it
// even again (release), then announces the frame in `published`. A reader
// reads `published`, the slot's sequence (acquire; odd = being written,
// retry), copies the frame, and reads the sequence again after an acquire
// fence: a changed value means the writer came round to this slot during
// the copy, and the copy is thrown away and retried. The writer pays two
// stores per frame for this; a reader retries only when it is slower than
// two whole frames of the writer.
//
// The counters are C11 atomics placed in the shared mapping; lock-free
// 64-bit atomics are address-free, so they work between processes.
//
// Whether the writer is alive (version 1.1). A writer that is killed
// leaves its last state, "live", behind, so the state alone cannot tell a
// crashed writer from a slow one. The header names the writer twice over:
// its pid with the process's start time and its pid namespace, which tell
// a reader in the same namespace exactly whether that process still runs
// (a pid reused by another process has another start time; a zombie has
// stopped), and a heartbeat, the monotonic clock at the writer's last call,
// which is all a reader in another pid namespace (a container sharing
// /dev/shm) can go by. The library starts no thread, so the heartbeat beats
// only when the program publishes or calls throng_feed_heartbeat().
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "export_internal.h"

#if ATOMIC_LLONG_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2
#error "the live feed needs lock-free 32- and 64-bit atomics"
#endif

#define FEED_MAGIC "\x89THRFEED"
#define FEED_MAJOR 1u
#define FEED_MINOR 1u ///< 1.1: writer_start, writer_pid_ns and heartbeat
#define FEED_SLOTS 2u
#define FEED_NAME_BYTES 64

// Header offsets (host byte order; the header is 256 bytes).
enum {
	FH_MAGIC = 0,
	FH_MAJOR = 8,
	FH_MINOR = 10,
	FH_BOM = 12,
	FH_HEADER_BYTES = 16,
	FH_SLOT_COUNT = 20,
	FH_AGENTS = 24,
	FH_FIELDS = 28,
	FH_SLOT_BYTES = 32,
	FH_DT = 40,
	FH_EVERY = 48,
	FH_BOUNDS_MODE = 52,
	FH_BOUNDS = 56,
	FH_SEED = 72,
	FH_FIELD_COUNT = 80,
	FH_PID = 84,
	FH_ARRAY_STRIDE = 88,
	FH_NAME = 96,
	FH_WRITER_START = 160, ///< 1.1: u64, the writer's start time (clock ticks after boot), 0 unknown
	FH_WRITER_PID_NS = 168, ///< 1.1: u64, the inode of the writer's pid namespace, 0 unknown
	FH_PUBLISHED = 192, ///< atomic u64: frames published; the newest is published - 1
	FH_STATE = 200,     ///< atomic u32: 0 setting up, 1 live, 2 finished
	FH_HEARTBEAT = 208, ///< 1.1: atomic u64, CLOCK_MONOTONIC ns of the writer's last call, 0 unknown
	FH_BYTES = 256,
	// Slot offsets.
	FS_SEQ = 0,         ///< atomic u64: odd while the writer writes the slot
	FS_INDEX = 8,
	FS_STEP = 16,
	FS_TIME = 24,
	FS_DATA = 64,
};

enum { FEED_SETTING_UP = 0, FEED_LIVE = 1, FEED_FINISHED = 2 };

/// Attempts throng_feed_read makes before giving up on a busy slot.
#define FEED_READ_ATTEMPTS 256

static _Atomic uint64_t* at_u64(unsigned char* base, size_t off)
{
	return (_Atomic uint64_t*)(void*)(base + off);
}
static _Atomic uint32_t* at_u32(unsigned char* base, size_t off)
{
	return (_Atomic uint32_t*)(void*)(base + off);
}
static void put(unsigned char* base, size_t off, const void* v, size_t n)
{
	memcpy(base + off, v, n);
}
static uint32_t get_u32(const unsigned char* base, size_t off)
{
	uint32_t v;
	memcpy(&v, base + off, 4);
	return v;
}
static uint64_t get_u64(const unsigned char* base, size_t off)
{
	uint64_t v;
	memcpy(&v, base + off, 8);
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// ---------------------------------------------------------------------------
// The writer's identity

/// Reads /proc/PID/stat (PID 0: this process): its state letter and its
/// start time in clock ticks after boot. False when it cannot be read (no
/// such process, /proc hidden or absent).
static bool proc_stat(uint32_t pid, char* state, uint64_t* start)
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

/// The inode of this process's pid namespace, 0 when /proc does not say.
static uint64_t own_pid_ns(void)
{
	struct stat sb;
	return stat("/proc/self/ns/pid", &sb) == 0 ? (uint64_t)sb.st_ino : 0u;
}

/// Who wrote a feed, as its header says.
typedef struct feed_writer {
	uint32_t pid;       ///< 1 .. INT_MAX (checked)
	uint64_t start;     ///< 0 unknown (a 1.0 writer, or no /proc)
	uint64_t pid_ns;    ///< 0 unknown
	bool same_pid_ns;   ///< the reader shares the writer's pid namespace (or cannot tell, for a 1.0 writer)
	bool heartbeat;     ///< the header has a heartbeat (1.1)
} feed_writer;

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
	if (!proc_stat(pid, &state, &now_start)) {
		return true; // it exists (kill said so) but /proc hides it: trust kill
	}
	if (state == 'Z' || state == 'X') {
		return false; // exited, not yet reaped by its parent
	}
	return start == 0 || now_start == start;
}

/// The writer's state from the header at `b` (256 bytes or more).
static throng_writer_state writer_state_at(unsigned char* b, const feed_writer* w)
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
	uint64_t now = now_ns();
	if (!w->heartbeat || beat == 0 || now < beat) {
		return THRONG_WRITER_ALIVE; // nothing to judge by
	}
	return now - beat > (uint64_t)THRONG_FEED_HEARTBEAT_LIMIT_MS * 1000000u ? THRONG_WRITER_GONE
	                                                                        : THRONG_WRITER_ALIVE;
}

/// Reads the writer's identity from the header at `b`; false for a pid
/// that names no single process (0, or one kill() would take as a group).
static bool writer_read(const unsigned char* b, feed_writer* w)
{
	uint16_t minor;
	memcpy(&minor, b + FH_MINOR, 2);
	w->pid = get_u32(b, FH_PID);
	w->heartbeat = minor >= 1;
	w->start = minor >= 1 ? get_u64(b, FH_WRITER_START) : 0u;
	w->pid_ns = minor >= 1 ? get_u64(b, FH_WRITER_PID_NS) : 0u;
	// A 1.0 writer says nothing of its namespace: its pid is taken as ours,
	// the common case. A 1.1 writer that could not read its own is judged
	// by its heartbeat.
	w->same_pid_ns = minor >= 1 ? w->pid_ns != 0 && w->pid_ns == own_pid_ns() : true;
	return w->pid >= 1 && w->pid <= (uint32_t)INT_MAX;
}

/// "/name" from "name" or "/name"; fails on empty names, inner slashes and
/// "." or ".." (they name directories of /dev/shm, not objects).
static throng_status feed_name(const char* name, char out[256], const char* who)
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

/// The failure of creating `path` exclusively when an object of that name
/// exists: whose it is decides what the user can do about it.
static throng_status exists_error(const char* path)
{
	int fd = shm_open(path, O_RDONLY, 0);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
		}
		return thr_fail(THRONG_ERR_IO, "shared memory %s: already exists and this user cannot open it (%s)", path,
		                strerror(e));
	}
	// A feed's header says whether its writer still runs.
	char who[96] = "";
	void* m = sb.st_size >= FH_BYTES ? mmap(NULL, FH_BYTES, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	close(fd);
	if (m != MAP_FAILED) {
		unsigned char* b = m;
		feed_writer w;
		if (memcmp(b, FEED_MAGIC, 8) == 0 && atomic_load_explicit(at_u32(b, FH_STATE), memory_order_acquire) != 0 &&
		    writer_read(b, &w)) {
			throng_writer_state ws = writer_state_at(b, &w);
			snprintf(who, sizeof who, "its writer, pid %u, %s", w.pid,
			         ws == THRONG_WRITER_ALIVE      ? "is running"
			         : ws == THRONG_WRITER_FINISHED ? "finished it"
			                                        : "is gone: killed or crashed");
		}
		munmap(m, FH_BYTES);
	}
	if (sb.st_uid != geteuid()) {
		return thr_fail(THRONG_ERR_IO, "shared memory %s: already exists and belongs to another user (uid %lu)%s%s; choose another name",
		                path, (unsigned long)sb.st_uid, who[0] != '\0' ? "; " : "", who);
	}
	return thr_fail(THRONG_ERR_IO,
	                "shared memory %s: already exists (%s); choose another name, or replace it if it is stale "
	                "(throng run --shm-replace)",
	                path, who[0] != '\0' ? who : "another run may be publishing on it, or one that crashed left it behind");
}

struct throng_feed {
	char name[256];
	dev_t dev; ///< the object this feed created, told apart from one created
	ino_t ino; ///< later under the same name (see throng_feed_finish)
	unsigned char* base; ///< NULL once finished
	size_t size;
	throng_export_def def;
	uint32_t field_count;
	uint64_t array_stride, slot_bytes;
	uint64_t frames, first_step, last_step;
};

/// throng_feed_create and throng_feed_replace: `replace` removes an object
/// of that name first.
static throng_status feed_create(const char* name, const throng_export_def* def, bool replace, throng_feed** out)
{
	const char* who = replace ? "throng_feed_replace" : "throng_feed_create";
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: out must not be NULL", who);
	}
	*out = NULL;
	throng_export_def d;
	char path[256];
	throng_status st = thr_export_def_check(def, &d, who);
	if (st == THRONG_OK) {
		st = feed_name(name, path, who);
	}
	if (st != THRONG_OK) {
		return st;
	}
	uint32_t fc = thr_popcount32(d.fields);
	uint64_t stride = ((uint64_t)d.agents * 4u + 63u) & ~(uint64_t)63u;
	uint64_t slot_bytes = FS_DATA + fc * stride;
	uint64_t size = FH_BYTES + FEED_SLOTS * slot_bytes;
	if (slot_bytes > THR_READ_MAX_FRAME || size > (uint64_t)SIZE_MAX / 2 || size > (uint64_t)INT64_MAX / 2) {
		// Nothing is published that a reader would refuse (docs/FORMAT.md).
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %u agents with %u fields make %llu-byte slots; readers accept at most %llu",
		                who, d.agents, fc, (unsigned long long)slot_bytes, (unsigned long long)THR_READ_MAX_FRAME);
	}
	throng_feed* f = calloc(1, sizeof *f);
	if (f == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
	}
	// Exclusive creation: a name in use belongs to another run (or to one
	// that crashed), and taking it over would leave that run publishing to
	// an object no reader can open. Replacing is asked for explicitly;
	// readers that still map the old object keep it until they close.
	if (replace && shm_unlink(path) != 0 && errno != ENOENT) {
		int e = errno;
		free(f);
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot remove the existing object to replace it: %s%s", path,
		                strerror(e), e == EACCES || e == EPERM ? " (it belongs to another user)" : "");
	}
	int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		int e = errno;
		free(f);
		if (e == EEXIST) {
			return exists_error(path);
		}
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot create: %s", path, strerror(e));
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		shm_unlink(path);
		free(f);
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot stat the new object: %s", path, strerror(e));
	}
	f->dev = sb.st_dev;
	f->ino = sb.st_ino;
	if (ftruncate(fd, (off_t)size) != 0) {
		int e = errno;
		close(fd);
		shm_unlink(path);
		free(f);
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot size to %llu bytes: %s", path,
		                (unsigned long long)size, strerror(e));
	}
	void* m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		int e = errno;
		shm_unlink(path);
		free(f);
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot map: %s", path, strerror(e));
	}
	memcpy(f->name, path, sizeof f->name);
	f->base = m;
	f->size = (size_t)size;
	f->def = d;
	f->field_count = fc;
	f->array_stride = stride;
	f->slot_bytes = slot_bytes;

	// The object starts zeroed (state "setting up"); fill the header, then
	// publish it with one release store of the state.
	unsigned char* b = f->base;
	uint16_t major = FEED_MAJOR, minor = FEED_MINOR;
	uint32_t bom = THR_BYTE_ORDER_MARK, header_bytes = FH_BYTES, slots = FEED_SLOTS, mode = (uint32_t)d.bounds_mode;
	uint32_t pid = (uint32_t)getpid();
	char pstate = 0;
	uint64_t start = 0, pid_ns = own_pid_ns();
	if (!proc_stat(0, &pstate, &start)) {
		start = 0; // unknown: readers go by the pid alone
	}
	double dt = (double)d.dt;
	float bounds[4] = {d.bounds_min.x, d.bounds_min.y, d.bounds_max.x, d.bounds_max.y};
	put(b, FH_MAGIC, FEED_MAGIC, 8);
	put(b, FH_MAJOR, &major, 2);
	put(b, FH_MINOR, &minor, 2);
	put(b, FH_BOM, &bom, 4);
	put(b, FH_HEADER_BYTES, &header_bytes, 4);
	put(b, FH_SLOT_COUNT, &slots, 4);
	put(b, FH_AGENTS, &d.agents, 4);
	put(b, FH_FIELDS, &d.fields, 4);
	put(b, FH_SLOT_BYTES, &slot_bytes, 8);
	put(b, FH_DT, &dt, 8);
	put(b, FH_EVERY, &d.every, 4);
	put(b, FH_BOUNDS_MODE, &mode, 4);
	put(b, FH_BOUNDS, bounds, 16);
	put(b, FH_SEED, &d.seed, 8);
	put(b, FH_FIELD_COUNT, &fc, 4);
	put(b, FH_PID, &pid, 4);
	put(b, FH_ARRAY_STRIDE, &stride, 8);
	put(b, FH_WRITER_START, &start, 8);
	put(b, FH_WRITER_PID_NS, &pid_ns, 8);
	if (d.scenario != NULL) {
		put(b, FH_NAME, d.scenario, strlen(d.scenario)); // at most 63 bytes, checked; the rest is zero
	}
	f->def.scenario = NULL;
	atomic_store_explicit(at_u64(b, FH_PUBLISHED), 0, memory_order_relaxed);
	atomic_store_explicit(at_u64(b, FH_HEARTBEAT), now_ns(), memory_order_relaxed);
	atomic_store_explicit(at_u32(b, FH_STATE), FEED_LIVE, memory_order_release);
	*out = f;
	return THRONG_OK;
}

throng_status throng_feed_create(const char* name, const throng_export_def* def, throng_feed** out)
{
	return feed_create(name, def, false, out);
}

throng_status throng_feed_replace(const char* name, const throng_export_def* def, throng_feed** out)
{
	return feed_create(name, def, true, out);
}

/// Removes the name only while it still names the object this feed created:
/// after throng_feed_replace() by another run it names that run's feed.
/// (Between the check and the unlink a third run could replace it again;
/// only an explicit replace can, and it is told by its own exit.) Returns
/// the errno of a failed unlink, or 0.
static int unlink_own(const throng_feed* f)
{
	int fd = shm_open(f->name, O_RDONLY, 0);
	if (fd < 0) {
		return 0; // gone, or no longer ours to read
	}
	struct stat sb;
	bool ours = fstat(fd, &sb) == 0 && sb.st_dev == f->dev && sb.st_ino == f->ino;
	close(fd);
	if (ours && shm_unlink(f->name) != 0 && errno != ENOENT) {
		return errno;
	}
	return 0;
}

/// Marks the feed finished, unmaps it and removes its name (unlink_own).
/// Returns 0, or the errno of the first step that failed and, in *what,
/// which step it was.
static int feed_end(throng_feed* f, const char** what)
{
	atomic_store_explicit(at_u32(f->base, FH_STATE), FEED_FINISHED, memory_order_release);
	int e = munmap(f->base, f->size) != 0 ? errno : 0;
	*what = "cannot unmap";
	f->base = NULL;
	int u = unlink_own(f);
	if (e == 0 && u != 0) {
		e = u;
		*what = "cannot remove";
	}
	return e;
}

throng_status throng_feed_publish_view(throng_feed* f, const throng_view* view)
{
	if (f == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_publish_view: feed must not be NULL");
	}
	if (f->base == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "shared memory %s: the feed is finished (throng_feed_finish)",
		                f->name);
	}
	atomic_store_explicit(at_u64(f->base, FH_HEARTBEAT), now_ns(), memory_order_release); // due or not
	bool due = false;
	throng_status st = thr_frame_due(view, f->def.agents, f->def.every, f->frames, f->first_step, f->last_step, &due,
	                                 f->name);
	if (st != THRONG_OK || !due) {
		return st;
	}
	unsigned char* slot = f->base + FH_BYTES + (f->frames % FEED_SLOTS) * f->slot_bytes;
	_Atomic uint64_t* seq = at_u64(slot, FS_SEQ);
	uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
	s += s & 1u; // a slot left odd by a failed publish starts over from even
	atomic_store_explicit(seq, s + 1u, memory_order_relaxed); // odd: being written
	atomic_thread_fence(memory_order_release);                // ... before any byte of the frame

	double time = (double)view->step * (double)f->def.dt;
	put(slot, FS_INDEX, &f->frames, 8);
	put(slot, FS_STEP, &view->step, 8);
	put(slot, FS_TIME, &time, 8);
	void* dst[THRONG_FIELD_BITS] = {0};
	uint64_t off = FS_DATA;
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if ((f->def.fields & (1u << k)) != 0) {
			dst[k] = slot + off;
			off += f->array_stride;
		}
	}
	st = thr_scatter_by_id(view, f->def.fields, dst, f->name);
	if (st != THRONG_OK) {
		// The slot may be half written: it stays odd, so no reader takes
		// it, and nothing is announced. The newest frame is in the other slot.
		return st;
	}
	atomic_store_explicit(seq, s + 2u, memory_order_release); // even again: the frame is whole
	if (f->frames == 0) {
		f->first_step = view->step;
	}
	f->last_step = view->step;
	f->frames += 1;
	atomic_store_explicit(at_u64(f->base, FH_PUBLISHED), f->frames, memory_order_release);
	return THRONG_OK;
}

throng_status throng_feed_publish(throng_feed* f, const throng_world* world)
{
	if (world == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_publish: world must not be NULL");
	}
	throng_view view = throng_world_view(world);
	return throng_feed_publish_view(f, &view);
}

uint64_t throng_feed_frames(const throng_feed* f)
{
	return f != NULL ? f->frames : 0;
}

throng_status throng_feed_heartbeat(throng_feed* f)
{
	if (f == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_heartbeat: feed must not be NULL");
	}
	if (f->base == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "shared memory %s: the feed is finished (throng_feed_finish)",
		                f->name);
	}
	atomic_store_explicit(at_u64(f->base, FH_HEARTBEAT), now_ns(), memory_order_release);
	return THRONG_OK;
}

throng_status throng_feed_finish(throng_feed* f)
{
	if (f == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_finish: feed must not be NULL");
	}
	if (f->base == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "shared memory %s: throng_feed_finish: already finished", f->name);
	}
	const char* what = NULL;
	int e = feed_end(f, &what);
	if (e != 0) {
		return thr_fail(THRONG_ERR_IO, "shared memory %s: %s: %s", f->name, what, strerror(e));
	}
	return THRONG_OK;
}

void throng_feed_destroy(throng_feed* f)
{
	if (f == NULL) {
		return;
	}
	if (f->base != NULL) {
		const char* what = NULL;
		(void)feed_end(f, &what); // not finished: finished now, without a word on failure
	}
	free(f);
}

// ---------------------------------------------------------------------------
// Reader

struct throng_feed_reader {
	char name[256];
	unsigned char* base;
	size_t size;
	throng_stream_info info;
	uint32_t field_count;
	uint64_t array_stride, slot_bytes;
	feed_writer writer;
	void* arrays[THRONG_FIELD_BITS]; ///< the reader's copy of the last frame
	uint64_t returned;                ///< frames returned + 1 of the newest returned index, 0 = none
};

/// Fails with THRONG_ERR_CORRUPT: "shared memory <name>: byte offset <off>: <what>".
static throng_status feed_corrupt(const throng_feed_reader* r, size_t off, const char* what)
{
	return thr_fail(THRONG_ERR_CORRUPT, "shared memory %s: byte offset %zu: %s", r->name, off, what);
}

/// Checks the header of a mapped feed (every field the stream reader
/// checks in its own header, through the same thr_header_check, and the
/// feed's own: slots, sizes against the object's size, name, writer,
/// state); fills r->info and r->writer. The object holds FH_BYTES or more.
static throng_status check_header(throng_feed_reader* r)
{
	const unsigned char* b = r->base;
	throng_stream_info* in = &r->info;
	char what[256];
	uint16_t major, minor;
	memcpy(&major, b + FH_MAJOR, 2);
	memcpy(&minor, b + FH_MINOR, 2);
	in->version_major = major;
	in->version_minor = minor;
	if (memcmp(b + FH_MAGIC, FEED_MAGIC, 8) != 0) {
		return feed_corrupt(r, FH_MAGIC, "not a throng feed (bad magic)");
	}
	if (major != FEED_MAJOR) {
		snprintf(what, sizeof what, "feed version %u.%u; this reader reads 1.x", major, minor);
		return feed_corrupt(r, FH_MAJOR, what);
	}
	if (get_u32(b, FH_BOM) != THR_BYTE_ORDER_MARK) {
		snprintf(what, sizeof what, "byte-order mark 0x%08x: written in another byte order", get_u32(b, FH_BOM));
		return feed_corrupt(r, FH_BOM, what);
	}
	uint32_t header_bytes = get_u32(b, FH_HEADER_BYTES), slots = get_u32(b, FH_SLOT_COUNT);
	if (header_bytes != FH_BYTES) {
		snprintf(what, sizeof what, "header size %u, expected %d", header_bytes, FH_BYTES);
		return feed_corrupt(r, FH_HEADER_BYTES, what);
	}
	if (slots != FEED_SLOTS) {
		snprintf(what, sizeof what, "slot count %u, expected %u", slots, FEED_SLOTS);
		return feed_corrupt(r, FH_SLOT_COUNT, what);
	}
	thr_header_fields hf = {
		.agents = get_u32(b, FH_AGENTS),
		.field_mask = get_u32(b, FH_FIELDS),
		.field_count = get_u32(b, FH_FIELD_COUNT),
		.frame_bytes = get_u64(b, FH_SLOT_BYTES),
		.frame_what = "slot size",
		.every = get_u32(b, FH_EVERY),
		.bounds_mode = get_u32(b, FH_BOUNDS_MODE),
	};
	memcpy(&hf.dt, b + FH_DT, 8);
	memcpy(hf.bounds, b + FH_BOUNDS, 16);
	uint32_t at = 0;
	if (!thr_header_check(&hf, &at, what, sizeof what)) {
		return feed_corrupt(r, at, what);
	}
	// Sizes: the stride follows from the agents, the slot from the stride,
	// and two slots must fit in the object (all below 2^31 + 2^8 by now).
	r->field_count = hf.field_count;
	r->slot_bytes = hf.frame_bytes;
	r->array_stride = get_u64(b, FH_ARRAY_STRIDE);
	uint64_t stride = ((uint64_t)hf.agents * 4u + 63u) & ~(uint64_t)63u;
	if (r->array_stride != stride) {
		snprintf(what, sizeof what, "array stride %llu, but %u agents make %llu (4 bytes each, rounded up to 64)",
		         (unsigned long long)r->array_stride, hf.agents, (unsigned long long)stride);
		return feed_corrupt(r, FH_ARRAY_STRIDE, what);
	}
	if (r->slot_bytes != FS_DATA + hf.field_count * stride) {
		snprintf(what, sizeof what, "slot size %llu, but %u fields of %llu bytes make %llu",
		         (unsigned long long)r->slot_bytes, hf.field_count, (unsigned long long)stride,
		         (unsigned long long)(FS_DATA + hf.field_count * stride));
		return feed_corrupt(r, FH_SLOT_BYTES, what);
	}
	if (r->slot_bytes > ((uint64_t)r->size - FH_BYTES) / FEED_SLOTS) {
		snprintf(what, sizeof what, "slot size %llu: the header and two slots need %llu bytes, the object has %zu",
		         (unsigned long long)r->slot_bytes, (unsigned long long)(FH_BYTES + FEED_SLOTS * r->slot_bytes),
		         r->size);
		return feed_corrupt(r, FH_SLOT_BYTES, what);
	}
	if (memchr(b + FH_NAME, '\0', FEED_NAME_BYTES) == NULL) {
		return feed_corrupt(r, FH_NAME, "scenario name is not NUL-terminated within its 64 bytes");
	}
	if (!writer_read(b, &r->writer)) {
		snprintf(what, sizeof what, "writer pid %u is not a process id", r->writer.pid);
		return feed_corrupt(r, FH_PID, what);
	}
	uint32_t state = atomic_load_explicit(at_u32(r->base, FH_STATE), memory_order_acquire);
	if (state > FEED_FINISHED) {
		snprintf(what, sizeof what, "state %u is not 0 (setting up), 1 (live) or 2 (finished)", state);
		return feed_corrupt(r, FH_STATE, what);
	}
	in->agents = hf.agents;
	in->fields = hf.field_mask & THRONG_FIELDS_ALL;
	in->dt = hf.dt;
	in->every = hf.every;
	in->bounds_mode = (throng_bounds_mode)hf.bounds_mode;
	in->bounds_min = (throng_vec2){hf.bounds[0], hf.bounds[1]};
	in->bounds_max = (throng_vec2){hf.bounds[2], hf.bounds[3]};
	in->seed = get_u64(b, FH_SEED);
	memcpy(in->scenario, b + FH_NAME, THRONG_EXPORT_NAME_MAX);
	in->scenario[THRONG_EXPORT_NAME_MAX] = '\0';
	in->header_bytes = FH_BYTES;
	in->frame_bytes = r->slot_bytes;
	return THRONG_OK;
}

throng_status throng_feed_open(const char* name, throng_feed_reader** out)
{
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_open: out must not be NULL");
	}
	*out = NULL;
	char path[256];
	throng_status st = feed_name(name, path, "throng_feed_open");
	if (st != THRONG_OK) {
		return st;
	}
	int fd = shm_open(path, O_RDONLY, 0);
	if (fd < 0) {
		int e = errno;
		return thr_fail(e == ENOENT ? THRONG_ERR_NOT_FOUND : THRONG_ERR_IO, "shared memory %s: cannot open: %s", path,
		                strerror(e));
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0 || sb.st_size == 0) {
		close(fd);
		return thr_fail(THRONG_ERR_NOT_FOUND, "shared memory %s: the writer is still setting it up", path);
	}
	if (sb.st_size < FH_BYTES) {
		close(fd); // a writer sizes the object whole at once: this is not one of its feeds
		return thr_fail(THRONG_ERR_CORRUPT, "shared memory %s: byte offset %lld: the object ends inside the %d-byte header",
		                path, (long long)sb.st_size, FH_BYTES);
	}
	if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX / 2) {
		close(fd);
		return thr_fail(THRONG_ERR_CORRUPT, "shared memory %s: an object of %lld bytes is larger than a feed can be",
		                path, (long long)sb.st_size);
	}
	void* m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		return thr_fail(THRONG_ERR_IO, "shared memory %s: cannot map: %s", path, strerror(errno));
	}
	throng_feed_reader* r = calloc(1, sizeof *r);
	if (r == NULL) {
		munmap(m, (size_t)sb.st_size);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_feed_open: out of memory");
	}
	memcpy(r->name, path, sizeof r->name);
	r->base = m;
	r->size = (size_t)sb.st_size;
	if (atomic_load_explicit(at_u32(r->base, FH_STATE), memory_order_acquire) == FEED_SETTING_UP) {
		throng_feed_reader_destroy(r);
		return thr_fail(THRONG_ERR_NOT_FOUND, "shared memory %s: the writer is still setting it up", path);
	}
	st = check_header(r);
	// Only now, with the agents and fields checked against the object's
	// size, is anything sized by them allocated.
	for (int k = 0; k < THRONG_FIELD_BITS && st == THRONG_OK; ++k) {
		if ((r->info.fields & (1u << k)) != 0 && (r->arrays[k] = malloc((size_t)r->info.agents * 4u)) == NULL) {
			st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_feed_open: out of memory for %u agents", r->info.agents);
		}
	}
	if (st != THRONG_OK) {
		throng_feed_reader_destroy(r);
		return st;
	}
	*out = r;
	return THRONG_OK;
}

const throng_stream_info* throng_feed_get_info(const throng_feed_reader* r)
{
	return r != NULL ? &r->info : NULL;
}

bool throng_feed_finished(const throng_feed_reader* r)
{
	return r != NULL && atomic_load_explicit(at_u32(r->base, FH_STATE), memory_order_acquire) == FEED_FINISHED;
}

throng_writer_state throng_feed_writer_state(const throng_feed_reader* r)
{
	return r != NULL ? writer_state_at(r->base, &r->writer) : THRONG_WRITER_GONE;
}

uint32_t throng_feed_writer_pid(const throng_feed_reader* r)
{
	return r != NULL ? r->writer.pid : 0u;
}

static const char* const writer_state_names[] = {"alive", "finished", "gone"};

const char* throng_writer_state_name(throng_writer_state state)
{
	return (unsigned)state < sizeof writer_state_names / sizeof writer_state_names[0] ? writer_state_names[state]
	                                                                                   : NULL;
}

bool throng_writer_state_from_name(const char* name, throng_writer_state* out)
{
	for (size_t k = 0; name != NULL && k < sizeof writer_state_names / sizeof writer_state_names[0]; ++k) {
		if (strcmp(name, writer_state_names[k]) == 0) {
			if (out != NULL) {
				*out = (throng_writer_state)k;
			}
			return true;
		}
	}
	return false;
}

/// Refuses a copied frame with a non-finite float; `slot_off` is where its
/// slot starts in the object, for the byte offset.
static throng_status check_coordinates(const throng_feed_reader* r, uint64_t index, uint64_t slot_off)
{
	uint64_t off = FS_DATA;
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if ((r->info.fields & (1u << k)) == 0) {
			continue;
		}
		size_t bad = k < 6 ? thr_first_nonfinite(r->arrays[k], r->info.agents) : r->info.agents;
		if (bad < r->info.agents) {
			float v;
			memcpy(&v, (const unsigned char*)r->arrays[k] + 4u * bad, 4);
			return thr_fail(THRONG_ERR_CORRUPT,
			                "shared memory %s: byte offset %llu: frame %llu: agent %zu's %s is %g (positions, "
			                "velocities and headings must be finite)",
			                r->name, (unsigned long long)(slot_off + off + 4u * bad), (unsigned long long)index, bad,
			                thr_float_field_name(k), (double)v);
		}
		off += r->array_stride;
	}
	return THRONG_OK;
}

throng_status throng_feed_read(throng_feed_reader* r, throng_frame* frame, bool* got)
{
	if (r == NULL || frame == NULL || got == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_feed_read: arguments must not be NULL");
	}
	*got = false;
	const uint32_t n = r->info.agents;
	for (int attempt = 0; attempt < FEED_READ_ATTEMPTS; ++attempt) {
		uint64_t published = atomic_load_explicit(at_u64(r->base, FH_PUBLISHED), memory_order_acquire);
		if (published == 0 || published <= r->returned) {
			return THRONG_OK; // nothing new
		}
		uint64_t slot_off = FH_BYTES + ((published - 1u) % FEED_SLOTS) * r->slot_bytes;
		unsigned char* slot = r->base + slot_off;
		_Atomic uint64_t* seq = at_u64(slot, FS_SEQ);
		uint64_t s1 = atomic_load_explicit(seq, memory_order_acquire);
		if ((s1 & 1u) != 0) {
			if (attempt >= 8) {
				sched_yield();
			}
			continue; // being written
		}
		uint64_t index = get_u64(slot, FS_INDEX), step = get_u64(slot, FS_STEP);
		double time;
		memcpy(&time, slot + FS_TIME, 8);
		uint64_t off = FS_DATA;
		for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
			if ((r->info.fields & (1u << k)) != 0) {
				memcpy(r->arrays[k], slot + off, (size_t)n * 4u);
				off += r->array_stride;
			}
		}
		atomic_thread_fence(memory_order_acquire); // the copy above happens before the re-check
		if (atomic_load_explicit(seq, memory_order_relaxed) != s1 || index + 1u <= r->returned) {
			continue; // the writer came round to this slot meanwhile: discard
		}
		r->returned = index + 1u; // a frame refused below is not offered again
		throng_status st = check_coordinates(r, index, slot_off);
		if (st != THRONG_OK) {
			return st;
		}
		frame->index = index;
		frame->step = step;
		frame->time = time;
		frame->count = n;
		frame->x = r->arrays[0];
		frame->y = r->arrays[1];
		frame->vx = r->arrays[2];
		frame->vy = r->arrays[3];
		frame->hx = r->arrays[4];
		frame->hy = r->arrays[5];
		frame->group = r->arrays[6];
		frame->archetype = r->arrays[7];
		*got = true;
		return THRONG_OK;
	}
	return THRONG_OK; // the writer kept the slot busy; call again
}

void throng_feed_reader_destroy(throng_feed_reader* r)
{
	if (r == NULL) {
		return;
	}
	munmap(r->base, r->size);
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		free(r->arrays[k]);
	}
	free(r);
}
