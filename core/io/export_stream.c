// SPDX-License-Identifier: MIT
// The binary stream writer (layout: docs/FORMAT.md, offsets: export_internal.h).
//
// Writes version 2.0: every frame carries its own agent count, its size and
// its agents' ids, so agents may come and go between frames. Each frame is
// assembled whole in one buffer (the ids and the fields gathered in id
// order straight into it), checksummed, and handed to the kernel with one
// write loop before the call returns: a reader at the other end of a pipe
// gets whole frames as soon as they exist, and a failure later in the run
// cannot take back a frame already written.
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_writer.h"

typedef struct stream_state {
	unsigned char* frame; ///< frame_cap bytes, 8-aligned (malloc)
	size_t frame_cap;
	uint32_t field_count;
} stream_state;

/// The largest count whose frame fits THR_READ_MAX_FRAME.
static uint32_t stream_max_count(uint32_t field_count)
{
	uint64_t n = (THR_READ_MAX_FRAME - THR_F2_IDS) / (4u * (1u + (uint64_t)field_count));
	return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}

static throng_status stream_begin(throng_exporter* ex)
{
	const throng_export_def* d = &ex->def;
	stream_state* s = calloc(1, sizeof *s);
	if (s == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", ex->path);
	}
	ex->impl = s;
	s->field_count = thr_popcount32(d->fields);
	if (d->agents > stream_max_count(s->field_count)) {
		// Nothing is written that a reader would refuse (docs/FORMAT.md).
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: %u agents with %u fields make %llu-byte frames; readers accept at most %llu", ex->path,
		                d->agents, s->field_count, (unsigned long long)thr_frame2_bytes(d->agents, s->field_count),
		                (unsigned long long)THR_READ_MAX_FRAME);
	}

	size_t name_bytes = strlen(ex->scenario);
	size_t header_bytes = ((size_t)THR_H_FIXED + name_bytes + 7u) & ~(size_t)7u;
	unsigned char h[THR_H_FIXED + THRONG_EXPORT_NAME_MAX + 8];
	memset(h, 0, sizeof h);
	memcpy(h + THR_H_MAGIC, THR_STREAM_MAGIC, 8);
	thr_put_u16(h + THR_H_MAJOR, THR_STREAM_MAJOR);
	// A stream without 2.1's field stays 2.0, byte for byte as before.
	thr_put_u16(h + THR_H_MINOR, (d->fields & THRONG_FIELDS_2_1) != 0 ? THR_STREAM_MINOR_2_1 : THR_STREAM_MINOR);
	thr_put_u32(h + THR_H_BOM, THR_BYTE_ORDER_MARK);
	thr_put_u32(h + THR_H_HEADER_BYTES, (uint32_t)header_bytes);
	thr_put_u32(h + THR_H_AGENTS, d->agents);
	thr_put_u32(h + THR_H_FIELDS, d->fields);
	thr_put_u64(h + THR_H_FRAME_BYTES, 0); // 2.x: every frame gives its own size
	thr_put_f64(h + THR_H_DT, (double)d->dt);
	thr_put_u32(h + THR_H_EVERY, d->every);
	thr_put_u32(h + THR_H_BOUNDS_MODE, (uint32_t)d->bounds_mode);
	thr_put_f32(h + THR_H_BOUNDS + 0, d->bounds_min.x);
	thr_put_f32(h + THR_H_BOUNDS + 4, d->bounds_min.y);
	thr_put_f32(h + THR_H_BOUNDS + 8, d->bounds_max.x);
	thr_put_f32(h + THR_H_BOUNDS + 12, d->bounds_max.y);
	thr_put_u64(h + THR_H_SEED, d->seed);
	thr_put_u32(h + THR_H_FIELD_COUNT, s->field_count);
	thr_put_u16(h + THR_H_NAME_BYTES, (uint16_t)name_bytes);
	memcpy(h + THR_H_NAME, ex->scenario, name_bytes);
	// The CRC covers the whole header with its own four bytes zero.
	thr_put_u32(h + THR_H_CRC, thr_crc32(0, h, header_bytes));
	return thr_sink_write(ex, h, header_bytes);
}

static throng_status stream_frame(throng_exporter* ex, const throng_view* view)
{
	stream_state* s = ex->impl;
	if (view->count > stream_max_count(s->field_count)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: a frame of %u agents with %u fields would be over %llu bytes, more than readers accept",
		                ex->path, view->count, s->field_count, (unsigned long long)THR_READ_MAX_FRAME);
	}
	throng_status st = thr_id_order_build(&ex->order, view, ex->def.fields, ex->path);
	if (st != THRONG_OK) {
		return st;
	}
	const uint32_t n = ex->order.count;
	const uint64_t frame_bytes = thr_frame2_bytes(n, s->field_count);
	if (frame_bytes > s->frame_cap) {
		size_t cap = (size_t)frame_bytes > 2u * s->frame_cap ? (size_t)frame_bytes : 2u * s->frame_cap;
		unsigned char* p = realloc(s->frame, cap);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for a %llu-byte frame", ex->path,
			                (unsigned long long)frame_bytes);
		}
		s->frame = p;
		s->frame_cap = cap;
	}
	unsigned char* f = s->frame;
	memcpy(f + THR_F_MARKER, THR_FRAME_MARKER, 4);
	thr_put_u32(f + THR_F_CRC, 0);
	thr_put_u64(f + THR_F_INDEX, ex->frames);
	thr_put_u64(f + THR_F_STEP, view->step);
	thr_put_f64(f + THR_F_TIME, (double)view->step * (double)ex->def.dt);
	thr_put_u64(f + THR_F2_BYTES, frame_bytes);
	thr_put_u32(f + THR_F2_COUNT, n);
	thr_put_u32(f + THR_F2_RESERVED, 0);

	// The ids, then the fields in ascending bit order, each a contiguous
	// array in the ids' order.
	if (n > 0) {
		memcpy(f + THR_F2_IDS, ex->order.ids, (size_t)n * 4u);
	}
	void* dst[THRONG_FIELD_BITS] = {0};
	size_t offset = THR_F2_IDS + 4u * (size_t)n;
	for (int b = 0; b < THRONG_FIELD_BITS; ++b) {
		if ((ex->def.fields & (1u << b)) != 0) {
			dst[b] = f + offset;
			offset += 4u * (size_t)n;
		}
	}
	thr_id_order_gather(&ex->order, view, ex->def.fields, dst);
	memset(f + offset, 0, (size_t)frame_bytes - offset); // padding
	if (!thr_host_is_le()) {
		thr_swap32(f + THR_F2_IDS, (offset - THR_F2_IDS) / 4u);
	}
	thr_put_u32(f + THR_F_CRC, thr_crc32(0, f, (size_t)frame_bytes));
	return thr_sink_write(ex, f, (size_t)frame_bytes);
}

static throng_status stream_finish(throng_exporter* ex)
{
	unsigned char end[THR_END_BYTES];
	memcpy(end, THR_END_MARKER, 4);
	thr_put_u32(end + 4, 0);
	// frames in the low 56 bits; the flags byte (offset 15) above them.
	thr_put_u64(end + 8, ex->frames | (ex->interrupted ? (uint64_t)THR_END_INTERRUPTED << 56 : 0u));
	thr_put_u32(end + 4, thr_crc32(0, end, sizeof end));
	return thr_sink_write(ex, end, sizeof end);
}

static void stream_release(throng_exporter* ex)
{
	stream_state* s = ex->impl;
	if (s != NULL) {
		free(s->frame);
		free(s);
		ex->impl = NULL;
	}
}

const thr_exporter_ops thr_stream_ops = {stream_begin, stream_frame, stream_finish, stream_release, false};
