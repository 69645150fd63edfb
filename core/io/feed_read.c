// SPDX-License-Identifier: MIT
// The live feed's reading side: throng_feed_open maps a feed and checks
// its header, throng_feed_read copies the newest complete frame out under
// its slot's sequence lock, and throng_feed_writer_state says whether the
// writer still runs (judged in feed.c, version 1.1). The design is
// described at the top of live_feed.c, the layout in feed.h and
// docs/FORMAT.md, "Live feed".
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "export_internal.h"
#include "feed.h"

/// Attempts throng_feed_read makes before giving up on a busy slot.
#define FEED_READ_ATTEMPTS 256

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
	uint32_t* ids;                    ///< the reader's copy of the last frame: its ids ...
	void* arrays[THRONG_FIELD_BITS]; ///< ... and its fields, capacity entries each
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
		snprintf(what, sizeof what, "feed version %u.%u; this reader reads 2.x (%s)", major, minor,
		         major < FEED_MAJOR ? "written by an older throng, whose slots hold no ids" : "a newer layout");
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
	// Sizes: the stride follows from the capacity (the header's agents),
	// the slot from the stride (the ids and the fields), and two slots must
	// fit in the object (all below 2^31 + 2^8 by now).
	r->field_count = hf.field_count;
	r->slot_bytes = hf.frame_bytes;
	r->array_stride = get_u64(b, FH_ARRAY_STRIDE);
	uint64_t stride = ((uint64_t)hf.agents * 4u + 63u) & ~(uint64_t)63u;
	if (r->array_stride != stride) {
		snprintf(what, sizeof what, "array stride %llu, but a capacity of %u agents makes %llu (4 bytes each, rounded up to 64)",
		         (unsigned long long)r->array_stride, hf.agents, (unsigned long long)stride);
		return feed_corrupt(r, FH_ARRAY_STRIDE, what);
	}
	if (r->slot_bytes != FS_IDS + (hf.field_count + 1u) * stride) {
		snprintf(what, sizeof what, "slot size %llu, but the ids and %u fields of %llu bytes make %llu",
		         (unsigned long long)r->slot_bytes, hf.field_count, (unsigned long long)stride,
		         (unsigned long long)(FS_IDS + (hf.field_count + 1u) * stride));
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
	if (!thr_feed_writer_read(b, &r->writer)) {
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
	throng_status st = thr_feed_name(name, path, "throng_feed_open");
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
	// Only now, with the capacity and fields checked against the object's
	// size, is anything sized by them allocated.
	if (st == THRONG_OK && (r->ids = malloc((size_t)r->info.agents * 4u)) == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_feed_open: out of memory for %u ids", r->info.agents);
	}
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
	return r != NULL ? thr_feed_writer_state_at(r->base, &r->writer) : THRONG_WRITER_GONE;
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
	int k = thr_name_index(writer_state_names, sizeof writer_state_names / sizeof writer_state_names[0], name);
	if (k >= 0 && out != NULL) {
		*out = (throng_writer_state)k;
	}
	return k >= 0;
}

/// Refuses a copied frame of `n` agents (at most the capacity) whose ids
/// do not increase or with a non-finite float; `slot_off` is where its
/// slot starts in the object, for the byte offset.
static throng_status check_frame(const throng_feed_reader* r, uint64_t index, uint64_t slot_off, uint32_t n)
{
	for (uint32_t k = 1; k < n; ++k) {
		if (r->ids[k] <= r->ids[k - 1]) {
			return thr_fail(THRONG_ERR_CORRUPT,
			                "shared memory %s: byte offset %llu: frame %llu: agent %u's id %u is not above the id "
			                "before it, %u (ids must increase)",
			                r->name, (unsigned long long)(slot_off + FS_IDS + 4u * k), (unsigned long long)index, k,
			                r->ids[k], r->ids[k - 1]);
		}
	}
	uint64_t off = FS_IDS + r->array_stride;
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if ((r->info.fields & (1u << k)) == 0) {
			continue;
		}
		size_t bad = thr_field_is_float(k) ? thr_first_nonfinite(r->arrays[k], n) : n;
		if (bad < n) {
			float v;
			memcpy(&v, (const unsigned char*)r->arrays[k] + 4u * bad, 4);
			return thr_fail(THRONG_ERR_CORRUPT,
			                "shared memory %s: byte offset %llu: frame %llu: agent %u's %s is %g (positions, "
			                "velocities, headings and health must be finite)",
			                r->name, (unsigned long long)(slot_off + off + 4u * bad), (unsigned long long)index,
			                r->ids[bad], thr_float_field_name(k), (double)v);
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
	const uint32_t cap = r->info.agents;
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
		uint32_t count = get_u32(slot, FS_COUNT);
		double time;
		memcpy(&time, slot + FS_TIME, 8);
		// A count read during a write may be anything: the copy never
		// reaches past the capacity, and the re-check below discards it.
		const uint32_t n = count < cap ? count : cap;
		memcpy(r->ids, slot + FS_IDS, (size_t)n * 4u);
		uint64_t off = FS_IDS + r->array_stride;
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
		if (count > cap) {
			return thr_fail(THRONG_ERR_CORRUPT,
			                "shared memory %s: byte offset %llu: frame %llu holds %u agents, more than the feed's "
			                "capacity of %u",
			                r->name, (unsigned long long)(slot_off + FS_COUNT), (unsigned long long)index, count, cap);
		}
		throng_status st = check_frame(r, index, slot_off, n);
		if (st != THRONG_OK) {
			return st;
		}
		frame->index = index;
		frame->step = step;
		frame->time = time;
		frame->count = n;
		frame->id = r->ids;
		frame->x = r->arrays[0];
		frame->y = r->arrays[1];
		frame->vx = r->arrays[2];
		frame->vy = r->arrays[3];
		frame->hx = r->arrays[4];
		frame->hy = r->arrays[5];
		frame->group = r->arrays[6];
		frame->archetype = r->arrays[7];
		frame->health = r->arrays[8];
		frame->combat_state = r->arrays[9];
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
	free(r->ids);
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		free(r->arrays[k]);
	}
	free(r);
}
