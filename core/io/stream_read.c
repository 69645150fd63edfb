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
// writer shares (thr_swap32). Here: the header, the source, opening and
// closing; stream_read_frame.c reads the frames. Both depend only on
// error.c and zlib (the CRC-32) so the fuzzer (tests/fuzz) can compile
// them on their own.
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "export_internal.h"
#include "stream_read_internal.h"

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


/// Reads up to n bytes; returns how many (less only at the end or on error).
size_t thr_stream_source_read(throng_stream_reader* r, void* buf, size_t n, throng_status* io)
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
/// the position); THR_STREAM_SIZE_UNKNOWN for anything else (a pipe).
uint64_t thr_stream_source_left(const throng_stream_reader* r)
{
	if (r->file == NULL) {
		return (uint64_t)(r->mem_size - (size_t)r->offset);
	}
	struct stat sb;
	off_t at = r->regular ? ftello(r->file) : -1;
	if (at < 0 || fstat(fileno(r->file), &sb) != 0) {
		return THR_STREAM_SIZE_UNKNOWN;
	}
	return sb.st_size > at ? (uint64_t)(sb.st_size - at) : 0u;
}

/// Makes a failure sticky and returns it (message already set).
throng_status thr_stream_failed(throng_stream_reader* r, throng_status st)
{
	r->failed = st;
	r->ended = true;
	snprintf(r->failure, sizeof r->failure, "%s", throng_last_error());
	return st;
}

throng_status thr_stream_corrupt_at(throng_stream_reader* r, uint64_t off, const char* fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	thr_fail(THRONG_ERR_CORRUPT, "%s: byte offset %llu: %s", r->name, (unsigned long long)off, what);
	return thr_stream_failed(r, THRONG_ERR_CORRUPT);
}

static throng_status read_header(throng_stream_reader* r)
{
	unsigned char fixed[THR_H_FIXED];
	throng_status io;
	size_t got = thr_stream_source_read(r, fixed, sizeof fixed, &io);
	if (io != THRONG_OK) {
		return thr_stream_failed(r, io);
	}
	if (memcmp(fixed, THR_STREAM_MAGIC, got < 8 ? got : 8) != 0) {
		return thr_stream_corrupt_at(r, 0, "not a throng stream (the first 8 bytes are not the magic 89 54 48 52 4F 4E 47 0A)");
	}
	if (got < sizeof fixed) {
		return thr_stream_corrupt_at(r, got, "the stream ends inside the header (%zu of at least %d bytes)", got, THR_H_FIXED);
	}
	throng_stream_info* in = &r->info;
	in->version_major = thr_get_u16(fixed + THR_H_MAJOR);
	in->version_minor = thr_get_u16(fixed + THR_H_MINOR);
	if (in->version_major != THR_STREAM_MAJOR_V1 && in->version_major != THR_STREAM_MAJOR) {
		return thr_stream_corrupt_at(r, THR_H_MAJOR, "stream version %u.%u, but this reader reads versions 1.x and 2.x only",
		               in->version_major, in->version_minor);
	}
	r->v2 = in->version_major == THR_STREAM_MAJOR;
	uint32_t bom = thr_get_u32(fixed + THR_H_BOM);
	if (bom != THR_BYTE_ORDER_MARK) {
		return thr_stream_corrupt_at(r, THR_H_BOM, "byte-order mark 0x%08x, expected 0x01020304 stored little-endian", bom);
	}
	uint32_t header_bytes = thr_get_u32(fixed + THR_H_HEADER_BYTES);
	if (header_bytes < THR_H_FIXED || header_bytes % 8u != 0 || header_bytes > THR_STREAM_MAX_HEADER) {
		return thr_stream_corrupt_at(r, THR_H_HEADER_BYTES, "header size %u is not a multiple of 8 from %d to %u", header_bytes,
		               THR_H_FIXED, THR_STREAM_MAX_HEADER);
	}
	uint64_t left = thr_stream_source_left(r);
	if (left != THR_STREAM_SIZE_UNKNOWN && left < header_bytes - THR_H_FIXED) {
		return thr_stream_corrupt_at(r, r->offset + left, "the stream ends inside the header (%llu of %u bytes)",
		               (unsigned long long)(r->offset + left), header_bytes);
	}
	unsigned char* h = malloc(header_bytes);
	if (h == NULL) {
		return thr_stream_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name));
	}
	memcpy(h, fixed, sizeof fixed);
	got = thr_stream_source_read(r, h + THR_H_FIXED, header_bytes - THR_H_FIXED, &io);
	if (io != THRONG_OK || got < header_bytes - THR_H_FIXED) {
		free(h);
		if (io != THRONG_OK) {
			return thr_stream_failed(r, io);
		}
		return thr_stream_corrupt_at(r, r->offset, "the stream ends inside the header (%llu of %u bytes)",
		               (unsigned long long)r->offset, header_bytes);
	}
	uint32_t stored = thr_get_u32(h + THR_H_CRC);
	thr_put_u32(h + THR_H_CRC, 0);
	uint32_t computed = thr_crc32(0, h, header_bytes);
	if (stored != computed) {
		free(h);
		return thr_stream_corrupt_at(r, THR_H_CRC, "header checksum mismatch (stored 0x%08x, computed 0x%08x)", stored, computed);
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
		return thr_stream_corrupt_at(r, at, "%s", what);
	}
	in->bounds_mode = (throng_bounds_mode)hf.bounds_mode;
	r->field_slots = hf.field_count;
	uint64_t expect = thr_frame_bytes(in->agents, hf.field_count);
	if (r->v2 && in->frame_bytes != 0) {
		return thr_stream_corrupt_at(r, THR_H_FRAME_BYTES, "frame size %llu in a version 2 header, which must be 0 (every frame "
		                  "gives its own)", (unsigned long long)in->frame_bytes);
	}
	if (!r->v2 && in->frame_bytes != expect) {
		return thr_stream_corrupt_at(r, THR_H_FRAME_BYTES, "frame size %llu, but %u agents with %u fields make %llu",
		               (unsigned long long)in->frame_bytes, in->agents, hf.field_count, (unsigned long long)expect);
	}
	if (name_bytes > header_bytes - THR_H_FIXED) {
		return thr_stream_corrupt_at(r, THR_H_NAME_BYTES, "scenario name of %u bytes does not fit a %u-byte header", name_bytes,
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
