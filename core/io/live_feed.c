// SPDX-License-Identifier: MIT
// The live feed's writer: frames published to POSIX shared memory under a
// sequence lock (layout: docs/FORMAT.md, "Live feed", and feed.h). The
// reading side is feed_read.c; what both use, feed.c.
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
// Agents come and go (version 2.0): a slot is sized for a capacity fixed
// when the feed is created, and holds its frame's count and ids before the
// field arrays. A shared mapping cannot grow under its readers without
// every reader remapping, so the capacity is fixed and documented, and a
// view of more agents is refused with an error that names it.
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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "export_internal.h"
#include "feed.h"

static void put(unsigned char* base, size_t off, const void* v, size_t n)
{
	memcpy(base + off, v, n);
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
		    thr_feed_writer_read(b, &w)) {
			throng_writer_state ws = thr_feed_writer_state_at(b, &w);
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
	uint32_t capacity;   ///< most agents a slot holds
	uint64_t array_stride, slot_bytes;
	uint64_t frames, first_step, last_step;
	thr_id_order order;  ///< the frame's agents in id order
};

/// The capacity a def asks for: def.capacity, or twice def.agents, at least 1024.
static uint64_t feed_capacity(const throng_export_def* d)
{
	if (d->capacity != 0) {
		return d->capacity;
	}
	uint64_t twice = 2u * (uint64_t)d->agents;
	return twice > 1024u ? twice : 1024u;
}

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
		st = thr_feed_name(name, path, who);
	}
	if (st != THRONG_OK) {
		return st;
	}
	uint32_t fc = thr_popcount32(d.fields);
	uint64_t capacity = feed_capacity(&d);
	uint64_t stride = (capacity * 4u + 63u) & ~(uint64_t)63u;
	uint64_t slot_bytes = FS_DATA + (fc + 1u) * stride; // the ids, then the fields
	uint64_t size = FH_BYTES + FEED_SLOTS * slot_bytes;
	if (capacity > UINT32_MAX || slot_bytes > THR_READ_MAX_FRAME || size > (uint64_t)SIZE_MAX / 2 ||
	    size > (uint64_t)INT64_MAX / 2) {
		// Nothing is published that a reader would refuse (docs/FORMAT.md).
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: a capacity of %llu agents with %u fields makes %llu-byte slots; readers accept at most %llu",
		                who, (unsigned long long)capacity, fc, (unsigned long long)slot_bytes,
		                (unsigned long long)THR_READ_MAX_FRAME);
	}
	if (d.agents > capacity) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.agents %u is more than def.capacity %u", who, d.agents,
		                (uint32_t)capacity);
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
	f->capacity = (uint32_t)capacity;
	f->array_stride = stride;
	f->slot_bytes = slot_bytes;

	// The object starts zeroed (state "setting up"); fill the header, then
	// publish it with one release store of the state.
	unsigned char* b = f->base;
	// 2.1 with health or combat_state (bits 8 and 9, as the stream's 2.1), else 2.0.
	uint16_t major = FEED_MAJOR, minor = (d.fields & THRONG_FIELDS_2_1) != 0 ? FEED_MINOR_2_1 : FEED_MINOR;
	uint32_t bom = THR_BYTE_ORDER_MARK, header_bytes = FH_BYTES, slots = FEED_SLOTS, mode = (uint32_t)d.bounds_mode;
	uint32_t pid = (uint32_t)getpid();
	char pstate = 0;
	uint64_t start = 0, pid_ns = thr_feed_own_pid_ns();
	if (!thr_feed_proc_stat(0, &pstate, &start)) {
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
	put(b, FH_AGENTS, &f->capacity, 4);
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
	atomic_store_explicit(at_u64(b, FH_HEARTBEAT), thr_feed_now_ns(), memory_order_relaxed);
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
	atomic_store_explicit(at_u64(f->base, FH_HEARTBEAT), thr_feed_now_ns(), memory_order_release); // due or not
	bool due = false;
	throng_status st = thr_frame_due(view, f->def.every, f->frames, f->first_step, f->last_step, &due, f->name);
	if (st != THRONG_OK || !due) {
		return st;
	}
	if (view->count > f->capacity) {
		return thr_fail(THRONG_ERR_CAPACITY,
		                "shared memory %s: the view has %u agents, more than the feed's capacity of %u (set "
		                "throng_export_def.capacity when creating the feed); the feed keeps its last frame",
		                f->name, view->count, f->capacity);
	}
	// Ordered (and checked) before the slot is touched: a bad view leaves
	// both slots as they were.
	st = thr_id_order_build(&f->order, view, f->def.fields, f->name);
	if (st != THRONG_OK) {
		return st;
	}
	unsigned char* slot = f->base + FH_BYTES + (f->frames % FEED_SLOTS) * f->slot_bytes;
	_Atomic uint64_t* seq = at_u64(slot, FS_SEQ);
	uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
	s += s & 1u; // a slot left odd by an interrupted publish starts over from even
	atomic_store_explicit(seq, s + 1u, memory_order_relaxed); // odd: being written
	atomic_thread_fence(memory_order_release);                // ... before any byte of the frame

	double time = (double)view->step * (double)f->def.dt;
	const uint32_t n = f->order.count;
	put(slot, FS_INDEX, &f->frames, 8);
	put(slot, FS_STEP, &view->step, 8);
	put(slot, FS_TIME, &time, 8);
	put(slot, FS_COUNT, &n, 4);
	if (n > 0) {
		put(slot, FS_IDS, f->order.ids, (size_t)n * 4u);
	}
	void* dst[THRONG_FIELD_BITS] = {0};
	uint64_t off = FS_IDS + f->array_stride;
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if ((f->def.fields & (1u << k)) != 0) {
			dst[k] = slot + off;
			off += f->array_stride;
		}
	}
	thr_id_order_gather(&f->order, view, f->def.fields, dst);
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
	atomic_store_explicit(at_u64(f->base, FH_HEARTBEAT), thr_feed_now_ns(), memory_order_release);
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
	thr_id_order_free(&f->order);
	free(f);
}
