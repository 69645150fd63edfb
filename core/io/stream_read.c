// SPDX-License-Identifier: MIT
// The binary stream reader (layout: docs/FORMAT.md), versions 1.x and 2.x.
//
// A 1.x frame holds every agent 0 .. N-1 at a size the header fixes; a 2.x
// frame gives its own size and agent count and lists its agents' ids
// (increasing), so agents may come and go. Both reach the caller as a
// throng_frame with count and ids (a 1.x frame's ids are 0 .. N-1).
//
// Reads from a FILE (a file, standard input, a pipe) or from memory, one
// frame at a time, and trusts nothing: every header field is range-checked
// before it sizes anything, every size the header claims is held against
// the bytes the source has (a file's or a memory stream's size) before it
// is allocated, every frame's CRC-32, index, step, time and coordinates
// are checked, and every failure names the byte offset where the stream
// went wrong. A pipe has no size: there the frame buffer grows with the
// bytes that arrive, so a header that lies costs at most about twice what
// was sent. The header check shared with the live feed's reader
// (thr_header_check) lives here too, and the byte swap the stream's
// writer shares (thr_swap32). This file depends only on error.c and zlib
// (the CRC-32) so the fuzzer (tests/fuzz) can compile it on its own.
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "export_internal.h"

void thr_swap32(void* data, size_t n)
{
	unsigned char* p = data;
	for (size_t k = 0; k < n; ++k, p += 4) {
		unsigned char t0 = p[0], t1 = p[1];
		p[0] = p[3];
		p[1] = p[2];
		p[2] = t1;
		p[3] = t0;
	}
}

/// A source whose size is unknown (a pipe, a terminal): source_left().
#define SIZE_UNKNOWN UINT64_MAX
/// From a source of unknown size, the first bytes of a frame go into a
/// buffer of this size, which then doubles with the bytes received.
#define PIPE_CHUNK ((size_t)1 << 20)

bool thr_header_check(const thr_header_fields* h, uint32_t* offset, char* what, size_t what_cap)
{
	const char* frame = h->frame_what != NULL ? h->frame_what : "frame size";
	uint32_t bits = thr_popcount32(h->field_mask);
	if (h->agents == 0 && !h->agents_may_be_0) {
		*offset = THR_H_AGENTS;
		snprintf(what, what_cap, "agent count is 0");
	} else if (h->field_mask == 0) {
		*offset = THR_H_FIELDS;
		snprintf(what, what_cap, "field mask is 0 (no fields)");
	} else if (h->field_count != bits) {
		*offset = THR_H_FIELD_COUNT;
		snprintf(what, what_cap, "field count %u does not match the field mask 0x%08x (%u bits)", h->field_count,
		         h->field_mask, bits);
	} else if (h->frame_bytes > THR_READ_MAX_FRAME) {
		*offset = THR_H_FRAME_BYTES;
		snprintf(what, what_cap, "%s %llu is larger than this reader accepts (%llu)", frame,
		         (unsigned long long)h->frame_bytes, (unsigned long long)THR_READ_MAX_FRAME);
	} else if (!(h->dt > 0.0) || !isfinite(h->dt)) {
		*offset = THR_H_DT;
		snprintf(what, what_cap, "dt %g is not a positive number of seconds", h->dt);
	} else if (h->every == 0) {
		*offset = THR_H_EVERY;
		snprintf(what, what_cap, "frame stride (every) is 0");
	} else if (h->bounds_mode > THRONG_BOUNDS_OPEN) {
		*offset = THR_H_BOUNDS_MODE;
		snprintf(what, what_cap, "bounds mode %u is not 0 to 3", h->bounds_mode);
	} else {
		static const char* const corner[4] = {"min x", "min y", "max x", "max y"};
		for (int k = 0; k < 4; ++k) {
			if (!isfinite(h->bounds[k])) {
				*offset = THR_H_BOUNDS;
				snprintf(what, what_cap, "world bounds are not finite (%s is %g)", corner[k], (double)h->bounds[k]);
				return false;
			}
		}
		return true;
	}
	return false;
}

size_t thr_first_nonfinite(const void* a, size_t n)
{
	const unsigned char* p = a;
	for (size_t k = 0; k < n; ++k) {
		uint32_t u;
		memcpy(&u, p + 4u * k, 4);
		if ((u & 0x7f800000u) == 0x7f800000u) { // exponent all ones: an infinity or a NaN
			return k;
		}
	}
	return n;
}

struct throng_stream_reader {
	FILE* file;                 ///< NULL for a memory stream
	bool own_file;
	bool regular;               ///< file is a regular file: its size bounds what the header may claim
	const unsigned char* mem;
	size_t mem_size;
	char name[256];             ///< for messages
	uint64_t offset;            ///< bytes consumed
	throng_stream_info info;
	uint32_t field_slots;       ///< arrays per frame, unknown field bits included
	bool v2;                    ///< a 2.x stream: frames carry their count, size and ids
	uint32_t* iota;             ///< 1.x: the ids 0 .. agents-1, made with the first frame
	bool verify;
	bool complete;              ///< the end record was read
	bool interrupted;           ///< its interrupted flag was set
	bool ended;                 ///< no more frames
	throng_status failed;
	char failure[512];
	unsigned char* frame;       ///< one frame, 8-aligned
	size_t frame_cap;           ///< bytes allocated at frame (less than a frame while a pipe delivers the first)
	uint64_t next_index;
	uint64_t first_step;
};

/// Reads up to n bytes; returns how many (less only at the end or on error).
static size_t source_read(throng_stream_reader* r, void* buf, size_t n, throng_status* io)
{
	*io = THRONG_OK;
	size_t got = 0;
	if (r->file == NULL) {
		size_t left = r->mem_size - (size_t)r->offset;
		got = n < left ? n : left;
		memcpy(buf, r->mem + r->offset, got);
	} else {
		while (got < n) {
			size_t k = fread((char*)buf + got, 1, n - got, r->file);
			got += k;
			if (k == 0) {
				if (ferror(r->file) && errno == EINTR) {
					clearerr(r->file);
					continue;
				}
				break;
			}
		}
		if (got < n && ferror(r->file)) {
			*io = thr_fail(THRONG_ERR_IO, "%s: byte offset %llu: read failed: %s", r->name,
			               (unsigned long long)(r->offset + got), strerror(errno));
		}
	}
	r->offset += got;
	return got;
}

/// Bytes left in a memory stream or a regular file (its size now, less
/// the position); SIZE_UNKNOWN for anything else (a pipe).
static uint64_t source_left(const throng_stream_reader* r)
{
	if (r->file == NULL) {
		return (uint64_t)(r->mem_size - (size_t)r->offset);
	}
	struct stat sb;
	off_t at = r->regular ? ftello(r->file) : -1;
	if (at < 0 || fstat(fileno(r->file), &sb) != 0) {
		return SIZE_UNKNOWN;
	}
	return sb.st_size > at ? (uint64_t)(sb.st_size - at) : 0u;
}

/// Makes a failure sticky and returns it (message already set).
static throng_status reader_failed(throng_stream_reader* r, throng_status st)
{
	r->failed = st;
	r->ended = true;
	snprintf(r->failure, sizeof r->failure, "%s", throng_last_error());
	return st;
}

/// Fails with THRONG_ERR_CORRUPT: "<name>: byte offset <off>: <what>".
static throng_status corrupt_at(throng_stream_reader* r, uint64_t off, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static throng_status corrupt_at(throng_stream_reader* r, uint64_t off, const char* fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	thr_fail(THRONG_ERR_CORRUPT, "%s: byte offset %llu: %s", r->name, (unsigned long long)off, what);
	return reader_failed(r, THRONG_ERR_CORRUPT);
}

static throng_status read_header(throng_stream_reader* r)
{
	unsigned char fixed[THR_H_FIXED];
	throng_status io;
	size_t got = source_read(r, fixed, sizeof fixed, &io);
	if (io != THRONG_OK) {
		return reader_failed(r, io);
	}
	if (memcmp(fixed, THR_STREAM_MAGIC, got < 8 ? got : 8) != 0) {
		return corrupt_at(r, 0, "not a throng stream (the first 8 bytes are not the magic 89 54 48 52 4F 4E 47 0A)");
	}
	if (got < sizeof fixed) {
		return corrupt_at(r, got, "the stream ends inside the header (%zu of at least %d bytes)", got, THR_H_FIXED);
	}
	throng_stream_info* in = &r->info;
	in->version_major = thr_get_u16(fixed + THR_H_MAJOR);
	in->version_minor = thr_get_u16(fixed + THR_H_MINOR);
	if (in->version_major != THR_STREAM_MAJOR_V1 && in->version_major != THR_STREAM_MAJOR) {
		return corrupt_at(r, THR_H_MAJOR, "stream version %u.%u, but this reader reads versions 1.x and 2.x only",
		               in->version_major, in->version_minor);
	}
	r->v2 = in->version_major == THR_STREAM_MAJOR;
	uint32_t bom = thr_get_u32(fixed + THR_H_BOM);
	if (bom != THR_BYTE_ORDER_MARK) {
		return corrupt_at(r, THR_H_BOM, "byte-order mark 0x%08x, expected 0x01020304 stored little-endian", bom);
	}
	uint32_t header_bytes = thr_get_u32(fixed + THR_H_HEADER_BYTES);
	if (header_bytes < THR_H_FIXED || header_bytes % 8u != 0 || header_bytes > THR_STREAM_MAX_HEADER) {
		return corrupt_at(r, THR_H_HEADER_BYTES, "header size %u is not a multiple of 8 from %d to %u", header_bytes,
		               THR_H_FIXED, THR_STREAM_MAX_HEADER);
	}
	uint64_t left = source_left(r);
	if (left != SIZE_UNKNOWN && left < header_bytes - THR_H_FIXED) {
		return corrupt_at(r, r->offset + left, "the stream ends inside the header (%llu of %u bytes)",
		               (unsigned long long)(r->offset + left), header_bytes);
	}
	unsigned char* h = malloc(header_bytes);
	if (h == NULL) {
		return reader_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name));
	}
	memcpy(h, fixed, sizeof fixed);
	got = source_read(r, h + THR_H_FIXED, header_bytes - THR_H_FIXED, &io);
	if (io != THRONG_OK || got < header_bytes - THR_H_FIXED) {
		free(h);
		if (io != THRONG_OK) {
			return reader_failed(r, io);
		}
		return corrupt_at(r, r->offset, "the stream ends inside the header (%llu of %u bytes)",
		               (unsigned long long)r->offset, header_bytes);
	}
	uint32_t stored = thr_get_u32(h + THR_H_CRC);
	thr_put_u32(h + THR_H_CRC, 0);
	uint32_t computed = thr_crc32(0, h, header_bytes);
	if (stored != computed) {
		free(h);
		return corrupt_at(r, THR_H_CRC, "header checksum mismatch (stored 0x%08x, computed 0x%08x)", stored, computed);
	}

	thr_header_fields hf = {
		.agents = thr_get_u32(h + THR_H_AGENTS),
		.agents_may_be_0 = r->v2,
		.field_mask = thr_get_u32(h + THR_H_FIELDS),
		.field_count = thr_get_u32(h + THR_H_FIELD_COUNT),
		.frame_bytes = thr_get_u64(h + THR_H_FRAME_BYTES),
		.frame_what = "frame size",
		.dt = thr_get_f64(h + THR_H_DT),
		.every = thr_get_u32(h + THR_H_EVERY),
		.bounds_mode = thr_get_u32(h + THR_H_BOUNDS_MODE),
	};
	for (int k = 0; k < 4; ++k) {
		hf.bounds[k] = thr_get_f32(h + THR_H_BOUNDS + 4 * k);
	}
	in->header_bytes = header_bytes;
	in->agents = hf.agents;
	in->fields = hf.field_mask & THRONG_FIELDS_ALL;
	in->frame_bytes = hf.frame_bytes;
	in->dt = hf.dt;
	in->every = hf.every;
	in->bounds_min = (throng_vec2){hf.bounds[0], hf.bounds[1]};
	in->bounds_max = (throng_vec2){hf.bounds[2], hf.bounds[3]};
	in->seed = thr_get_u64(h + THR_H_SEED);
	uint32_t name_bytes = thr_get_u16(h + THR_H_NAME_BYTES);
	if (name_bytes <= header_bytes - THR_H_FIXED) {
		uint32_t keep = name_bytes < THRONG_EXPORT_NAME_MAX ? name_bytes : THRONG_EXPORT_NAME_MAX;
		memcpy(in->scenario, h + THR_H_NAME, keep);
		in->scenario[keep] = '\0';
	}
	free(h);

	uint32_t at = 0;
	char what[256];
	if (!thr_header_check(&hf, &at, what, sizeof what)) {
		return corrupt_at(r, at, "%s", what);
	}
	in->bounds_mode = (throng_bounds_mode)hf.bounds_mode;
	r->field_slots = hf.field_count;
	uint64_t expect = thr_frame_bytes(in->agents, hf.field_count);
	if (r->v2 && in->frame_bytes != 0) {
		return corrupt_at(r, THR_H_FRAME_BYTES, "frame size %llu in a version 2 header, which must be 0 (every frame "
		                  "gives its own)", (unsigned long long)in->frame_bytes);
	}
	if (!r->v2 && in->frame_bytes != expect) {
		return corrupt_at(r, THR_H_FRAME_BYTES, "frame size %llu, but %u agents with %u fields make %llu",
		               (unsigned long long)in->frame_bytes, in->agents, hf.field_count, (unsigned long long)expect);
	}
	if (name_bytes > header_bytes - THR_H_FIXED) {
		return corrupt_at(r, THR_H_NAME_BYTES, "scenario name of %u bytes does not fit a %u-byte header", name_bytes,
		               header_bytes);
	}
	return THRONG_OK;
}

static throng_status reader_new(const char* name, throng_stream_reader** out, throng_stream_reader** r_out)
{
	*out = NULL;
	throng_stream_reader* r = calloc(1, sizeof *r);
	if (r == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_stream_open: out of memory");
	}
	snprintf(r->name, sizeof r->name, "%s", name != NULL ? name : "stream");
	r->verify = true;
	*r_out = r;
	return THRONG_OK;
}

static throng_status reader_start(throng_stream_reader* r, throng_stream_reader** out)
{
	if (r->file != NULL) {
		struct stat sb;
		int fd = fileno(r->file); // -1 for a FILE without a descriptor (fmemopen): size unknown
		r->regular = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
	}
	throng_status st = read_header(r);
	if (st != THRONG_OK) {
		throng_stream_reader_destroy(r);
		return st;
	}
	*out = r;
	return THRONG_OK;
}

throng_status throng_stream_open(const char* path, throng_stream_reader** out)
{
	if (path == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_stream_open: path and out must not be NULL");
	}
	throng_stream_reader* r = NULL;
	throng_status st = reader_new(strcmp(path, "-") == 0 ? "standard input" : path, out, &r);
	if (st != THRONG_OK) {
		return st;
	}
	if (strcmp(path, "-") == 0) {
		r->file = stdin;
	} else {
		r->file = fopen(path, "rb");
		if (r->file == NULL) {
			int e = errno;
			free(r);
			return thr_fail(THRONG_ERR_IO, "%s: cannot open for reading: %s", path, strerror(e));
		}
		r->own_file = true;
	}
	return reader_start(r, out);
}

throng_status throng_stream_open_file(FILE* file, const char* name, throng_stream_reader** out)
{
	if (file == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_stream_open_file: file and out must not be NULL");
	}
	throng_stream_reader* r = NULL;
	throng_status st = reader_new(name, out, &r);
	if (st != THRONG_OK) {
		return st;
	}
	r->file = file;
	return reader_start(r, out);
}

throng_status throng_stream_open_memory(const void* data, size_t size, throng_stream_reader** out)
{
	if ((data == NULL && size > 0) || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_stream_open_memory: data and out must not be NULL");
	}
	throng_stream_reader* r = NULL;
	throng_status st = reader_new("memory stream", out, &r);
	if (st != THRONG_OK) {
		return st;
	}
	r->mem = data;
	r->mem_size = size;
	return reader_start(r, out);
}

void throng_stream_verify(throng_stream_reader* r, bool verify_checksums)
{
	if (r != NULL) {
		r->verify = verify_checksums;
	}
}

const throng_stream_info* throng_stream_get_info(const throng_stream_reader* r)
{
	return r != NULL ? &r->info : NULL;
}

bool throng_stream_complete(const throng_stream_reader* r)
{
	return r != NULL && r->complete;
}

bool throng_stream_interrupted(const throng_stream_reader* r)
{
	return r != NULL && r->interrupted;
}

uint64_t throng_stream_offset(const throng_stream_reader* r)
{
	return r != NULL ? r->offset : 0;
}

static throng_status read_end_record(throng_stream_reader* r, uint64_t start)
{
	unsigned char end[THR_END_BYTES];
	memcpy(end, THR_END_MARKER, 4);
	throng_status io;
	size_t got = source_read(r, end + 4, THR_END_BYTES - 4, &io);
	if (io != THRONG_OK) {
		return reader_failed(r, io);
	}
	if (got < THR_END_BYTES - 4) {
		return corrupt_at(r, r->offset, "the stream ends inside the end record that starts at byte offset %llu",
		               (unsigned long long)start);
	}
	uint32_t stored = thr_get_u32(end + 4);
	thr_put_u32(end + 4, 0);
	uint32_t computed = thr_crc32(0, end, sizeof end);
	if (r->verify && stored != computed) {
		return corrupt_at(r, start + 4, "end record checksum mismatch (stored 0x%08x, computed 0x%08x)", stored,
		               computed);
	}
	uint64_t frames = thr_get_u64(end + 8) & THR_END_FRAMES_MASK;
	unsigned flags = end[THR_END_FLAGS];
	if ((flags & ~THR_END_INTERRUPTED) != 0) {
		return corrupt_at(r, start + THR_END_FLAGS, "the end record's flags byte is 0x%02x (only bit 0, interrupted, is defined)",
		                  flags);
	}
	if (frames != r->next_index) {
		return corrupt_at(r, start + 8, "the end record counts %llu frames but the stream holds %llu",
		               (unsigned long long)frames, (unsigned long long)r->next_index);
	}
	unsigned char extra;
	if (source_read(r, &extra, 1, &io) != 0) {
		return corrupt_at(r, start + THR_END_BYTES, "data after the end record");
	}
	if (io != THRONG_OK) {
		return reader_failed(r, io);
	}
	r->complete = true;
	r->interrupted = (flags & THR_END_INTERRUPTED) != 0;
	r->ended = true;
	return THRONG_OK;
}

/// Checks a frame of `fb` bytes held in r->frame that starts at byte
/// offset `start`.
static throng_status check_frame(throng_stream_reader* r, uint64_t start, size_t fb)
{
	const throng_stream_info* in = &r->info;
	unsigned char* f = r->frame;
	uint32_t stored = thr_get_u32(f + THR_F_CRC);
	if (r->verify) {
		thr_put_u32(f + THR_F_CRC, 0);
		uint32_t computed = thr_crc32(0, f, fb);
		thr_put_u32(f + THR_F_CRC, stored);
		if (stored != computed) {
			return corrupt_at(r, start + THR_F_CRC, "frame %llu checksum mismatch (stored 0x%08x, computed 0x%08x)",
			               (unsigned long long)r->next_index, stored, computed);
		}
	}
	uint64_t index = thr_get_u64(f + THR_F_INDEX);
	if (index != r->next_index) {
		return corrupt_at(r, start + THR_F_INDEX, "frame index %llu where %llu was expected", (unsigned long long)index,
		               (unsigned long long)r->next_index);
	}
	uint64_t step = thr_get_u64(f + THR_F_STEP);
	if (index == 0) {
		r->first_step = step;
	} else {
		// step == first_step + index * every, without overflowing.
		uint64_t span = step - r->first_step;
		if (step < r->first_step || span / in->every != index || span % in->every != 0) {
			return corrupt_at(r, start + THR_F_STEP, "frame %llu has step %llu; frame 0 had step %llu and the stride is %u",
			               (unsigned long long)index, (unsigned long long)step, (unsigned long long)r->first_step,
			               in->every);
		}
	}
	double time = thr_get_f64(f + THR_F_TIME);
	double expect = (double)step * in->dt;
	if (memcmp(&time, &expect, sizeof time) != 0) {
		return corrupt_at(r, start + THR_F_TIME, "frame %llu has time %.17g s, but step %llu times dt is %.17g s",
		               (unsigned long long)index, time, (unsigned long long)step, expect);
	}
	return THRONG_OK;
}

/// Fails with the truncation of the frame of `fb` bytes that starts at
/// `start` when the source ends `have` bytes into it.
static throng_status frame_cut(throng_stream_reader* r, uint64_t start, uint64_t have, uint64_t fb)
{
	return corrupt_at(r, start + have,
	                  "the stream ends inside frame %llu (%llu of %llu bytes; the frame starts at byte offset %llu)",
	                  (unsigned long long)r->next_index, (unsigned long long)have, (unsigned long long)fb,
	                  (unsigned long long)start);
}

/// Reads the rest of a frame of `fb` bytes whose first `head_len` bytes
/// (its marker, and a 2.x frame's head) were read into `head`. A source
/// with a size (memory, a regular file) must hold the whole frame before a
/// byte is allocated for it; from a pipe the buffer grows with the bytes
/// received (PIPE_CHUNK, then doubling), until it holds a frame of that
/// size once and is kept.
static throng_status read_frame_bytes(throng_stream_reader* r, const unsigned char* head, size_t head_len,
                                      uint64_t start, size_t fb)
{
	uint64_t left = source_left(r);
	if (left != SIZE_UNKNOWN && left < fb - head_len) {
		r->offset += left;
		return frame_cut(r, start, head_len + left, fb);
	}
	size_t have = head_len;
	while (have < fb) {
		size_t want = fb;
		if (left == SIZE_UNKNOWN && r->frame_cap < fb) {
			size_t grow = have < PIPE_CHUNK ? PIPE_CHUNK : 2u * have;
			want = grow < fb ? grow : fb;
		}
		if (want > r->frame_cap) {
			unsigned char* p = realloc(r->frame, want);
			if (p == NULL) {
				return reader_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for a %zu-byte frame",
				                                 r->name, fb));
			}
			r->frame = p;
			r->frame_cap = want;
		}
		throng_status io;
		size_t n = source_read(r, r->frame + have, want - have, &io);
		if (io != THRONG_OK) {
			return reader_failed(r, io);
		}
		have += n;
		if (have < want) {
			return frame_cut(r, start, have, fb);
		}
	}
	if (r->frame_cap < head_len) { // a frame with nothing after its head
		unsigned char* p = realloc(r->frame, head_len);
		if (p == NULL) {
			return reader_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name));
		}
		r->frame = p;
		r->frame_cap = head_len;
	}
	memcpy(r->frame, head, head_len);
	return THRONG_OK;
}

/// A 2.x frame's head, the 48 bytes before its ids (the marker in head[0..4)
/// already): reads the rest of it and checks that the size it gives is the
/// one its count and the header's fields make, within the reader's cap.
/// Sets *fb and *count.
static throng_status read_frame2_head(throng_stream_reader* r, unsigned char head[THR_F2_IDS], uint64_t start,
                                      size_t* fb, uint32_t* count)
{
	throng_status io;
	size_t got = source_read(r, head + 4, THR_F2_IDS - 4u, &io);
	if (io != THRONG_OK) {
		return reader_failed(r, io);
	}
	if (got < THR_F2_IDS - 4u) {
		return corrupt_at(r, r->offset, "the stream ends inside frame %llu (%zu of the %d bytes of its head; the frame "
		                  "starts at byte offset %llu)", (unsigned long long)r->next_index, got + 4u, THR_F2_IDS,
		                  (unsigned long long)start);
	}
	uint64_t bytes = thr_get_u64(head + THR_F2_BYTES);
	uint32_t n = thr_get_u32(head + THR_F2_COUNT);
	uint64_t expect = thr_frame2_bytes(n, r->field_slots);
	if (bytes != expect) {
		return corrupt_at(r, start + THR_F2_BYTES,
		                  "frame %llu: frame size %llu, but %u agents with their ids and %u fields make %llu",
		                  (unsigned long long)r->next_index, (unsigned long long)bytes, n, r->field_slots,
		                  (unsigned long long)expect);
	}
	if (bytes > THR_READ_MAX_FRAME) {
		return corrupt_at(r, start + THR_F2_BYTES, "frame %llu: frame size %llu (%u agents) is larger than this reader "
		                  "accepts (%llu)", (unsigned long long)r->next_index, (unsigned long long)bytes, n,
		                  (unsigned long long)THR_READ_MAX_FRAME);
	}
	*fb = (size_t)bytes;
	*count = n;
	return THRONG_OK;
}

/// A 2.x frame's ids (host order, at r->frame + THR_F2_IDS) must increase,
/// each below THRONG_NO_AGENT.
static throng_status check_ids(throng_stream_reader* r, uint64_t start, uint32_t n)
{
	const unsigned char* p = r->frame + THR_F2_IDS;
	uint32_t prev = 0;
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t id;
		memcpy(&id, p + 4u * k, 4);
		if (id == THRONG_NO_AGENT) {
			return corrupt_at(r, start + THR_F2_IDS + 4u * k, "frame %llu: agent %u's id is 0x%08x, which names no agent",
			                  (unsigned long long)r->next_index, k, id);
		}
		if (k > 0 && id <= prev) {
			return corrupt_at(r, start + THR_F2_IDS + 4u * k,
			                  "frame %llu: agent %u's id %u is not above the id before it, %u (ids must increase)",
			                  (unsigned long long)r->next_index, k, id, prev);
		}
		prev = id;
	}
	return THRONG_OK;
}

/// Refuses a frame (in r->frame, host order, `n` agents, arrays from
/// `data_at`) with a non-finite float: a renderer would place an agent
/// nowhere. Unknown field bits are skipped. The agent is named by its id.
static throng_status check_coordinates(throng_stream_reader* r, uint64_t start, size_t data_at, uint32_t n,
                                       const uint32_t* ids)
{
	const throng_stream_info* in = &r->info;
	const unsigned char* data = r->frame + data_at;
	size_t slot = 0;
	for (int b = 0; b < THRONG_FIELD_BITS; ++b) {
		if ((in->fields & (1u << b)) == 0) {
			continue;
		}
		const unsigned char* a = data + slot * 4u * n;
		size_t k = b < 6 ? thr_first_nonfinite(a, n) : n;
		if (k < n) {
			float v;
			memcpy(&v, a + 4u * k, 4);
			return corrupt_at(r, start + data_at + (slot * n + k) * 4u,
			                  "frame %llu: agent %u's %s is %g (positions, velocities and headings must be finite)",
			                  (unsigned long long)r->next_index, ids != NULL ? ids[k] : (uint32_t)k,
			                  thr_float_field_name(b), (double)v);
		}
		++slot;
	}
	return THRONG_OK;
}

/// The ids 0 .. agents-1 of a 1.x stream's frames, made once (after a
/// whole frame was read, so a damaged header allocates nothing).
static throng_status v1_ids(throng_stream_reader* r)
{
	if (r->iota == NULL) {
		r->iota = malloc((size_t)r->info.agents * sizeof *r->iota);
		if (r->iota == NULL) {
			return reader_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u ids", r->name,
			                                 r->info.agents));
		}
		for (uint32_t k = 0; k < r->info.agents; ++k) {
			r->iota[k] = k;
		}
	}
	return THRONG_OK;
}

throng_status throng_stream_read_frame(throng_stream_reader* r, throng_frame* frame, bool* got)
{
	if (r == NULL || frame == NULL || got == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_stream_read_frame: arguments must not be NULL");
	}
	*got = false;
	memset(frame, 0, sizeof *frame);
	if (r->failed != THRONG_OK) {
		return thr_fail(r->failed, "%s", r->failure);
	}
	if (r->ended) {
		return THRONG_OK;
	}
	const throng_stream_info* in = &r->info;
	uint64_t start = r->offset;
	unsigned char marker[4];
	throng_status io;
	size_t got_marker = source_read(r, marker, 4, &io);
	if (io != THRONG_OK) {
		return reader_failed(r, io);
	}
	if (got_marker == 0) {
		r->ended = true; // ends at a frame boundary: the writer stopped early
		return THRONG_OK;
	}
	if (got_marker < 4) {
		return corrupt_at(r, r->offset, "the stream ends inside the marker of frame %llu (which starts at byte offset %llu)",
		               (unsigned long long)r->next_index, (unsigned long long)start);
	}
	if (memcmp(marker, THR_END_MARKER, 4) == 0) {
		return read_end_record(r, start);
	}
	if (memcmp(marker, THR_FRAME_MARKER, 4) != 0) {
		return corrupt_at(r, start, "expected frame %llu's marker \"FRAM\" or the end record \"END!\", found %02x %02x %02x %02x",
		               (unsigned long long)r->next_index, marker[0], marker[1], marker[2], marker[3]);
	}
	unsigned char head[THR_F2_IDS];
	memcpy(head, marker, 4);
	size_t head_len = 4, fb = (size_t)in->frame_bytes, data_at = THR_F_DATA;
	uint32_t n = in->agents;
	throng_status st = THRONG_OK;
	if (r->v2) {
		st = read_frame2_head(r, head, start, &fb, &n);
		head_len = THR_F2_IDS;
		data_at = THR_F2_IDS + 4u * (size_t)n;
	}
	if (st == THRONG_OK) {
		st = read_frame_bytes(r, head, head_len, start, fb);
	}
	if (st == THRONG_OK) {
		st = check_frame(r, start, fb);
	}
	if (st != THRONG_OK) {
		return st;
	}

	// A 2.x frame's ids come first; then the arrays, in ascending bit
	// order, bits this reader does not know (a newer minor version) still
	// taking their 4 * n bytes.
	unsigned char* data = r->frame + data_at;
	if (!thr_host_is_le()) {
		thr_swap32(r->frame + (r->v2 ? THR_F2_IDS : THR_F_DATA),
		           (size_t)(r->field_slots + (r->v2 ? 1u : 0u)) * n);
	}
	const uint32_t* ids = NULL;
	if (r->v2) {
		st = check_ids(r, start, n);
		ids = (const uint32_t*)(const void*)(r->frame + THR_F2_IDS);
	} else {
		st = v1_ids(r);
		ids = r->iota;
	}
	if (st == THRONG_OK) {
		st = check_coordinates(r, start, data_at, n, r->v2 ? ids : NULL);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const void* arrays[THRONG_FIELD_BITS] = {0};
	size_t slot = 0;
	for (int b = 0; b < THRONG_FIELD_BITS; ++b) {
		if ((in->fields & (1u << b)) != 0) {
			arrays[b] = data + slot * 4u * n;
			++slot;
		}
	}
	frame->index = thr_get_u64(r->frame + THR_F_INDEX);
	frame->step = thr_get_u64(r->frame + THR_F_STEP);
	frame->time = thr_get_f64(r->frame + THR_F_TIME);
	frame->count = n;
	frame->id = ids;
	frame->x = arrays[0];
	frame->y = arrays[1];
	frame->vx = arrays[2];
	frame->vy = arrays[3];
	frame->hx = arrays[4];
	frame->hy = arrays[5];
	frame->group = arrays[6];
	frame->archetype = arrays[7];
	r->next_index += 1;
	*got = true;
	return THRONG_OK;
}

void throng_stream_reader_destroy(throng_stream_reader* r)
{
	if (r == NULL) {
		return;
	}
	if (r->own_file && r->file != NULL) {
		fclose(r->file);
	}
	free(r->frame);
	free(r->iota);
	free(r);
}
