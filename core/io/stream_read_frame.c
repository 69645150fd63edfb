// SPDX-License-Identifier: MIT
// The binary stream reader's frames (docs/FORMAT.md; stream_read.c opens
// the stream and reads its header): a 1.x or 2.x frame, its checks (CRC-32,
// index, step, time, ids, coordinates) and the end record, each failure
// naming the byte offset where the stream went wrong.
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_internal.h"
#include "stream_read_internal.h"

static throng_status read_end_record(throng_stream_reader* r, uint64_t start)
{
	unsigned char end[THR_END_BYTES];
	memcpy(end, THR_END_MARKER, 4);
	throng_status io;
	size_t got = thr_stream_source_read(r, end + 4, THR_END_BYTES - 4, &io);
	if (io != THRONG_OK) {
		return thr_stream_failed(r, io);
	}
	if (got < THR_END_BYTES - 4) {
		return thr_stream_corrupt_at(r, r->offset, "the stream ends inside the end record that starts at byte offset %llu",
		               (unsigned long long)start);
	}
	uint32_t stored = thr_get_u32(end + 4);
	thr_put_u32(end + 4, 0);
	uint32_t computed = thr_crc32(0, end, sizeof end);
	if (r->verify && stored != computed) {
		return thr_stream_corrupt_at(r, start + 4, "end record checksum mismatch (stored 0x%08x, computed 0x%08x)", stored,
		               computed);
	}
	uint64_t frames = thr_get_u64(end + 8) & THR_END_FRAMES_MASK;
	unsigned flags = end[THR_END_FLAGS];
	if ((flags & ~THR_END_INTERRUPTED) != 0) {
		return thr_stream_corrupt_at(r, start + THR_END_FLAGS, "the end record's flags byte is 0x%02x (only bit 0, interrupted, is defined)",
		                  flags);
	}
	if (frames != r->next_index) {
		return thr_stream_corrupt_at(r, start + 8, "the end record counts %llu frames but the stream holds %llu",
		               (unsigned long long)frames, (unsigned long long)r->next_index);
	}
	unsigned char extra;
	if (thr_stream_source_read(r, &extra, 1, &io) != 0) {
		return thr_stream_corrupt_at(r, start + THR_END_BYTES, "data after the end record");
	}
	if (io != THRONG_OK) {
		return thr_stream_failed(r, io);
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
			return thr_stream_corrupt_at(r, start + THR_F_CRC, "frame %llu checksum mismatch (stored 0x%08x, computed 0x%08x)",
			               (unsigned long long)r->next_index, stored, computed);
		}
	}
	uint64_t index = thr_get_u64(f + THR_F_INDEX);
	if (index != r->next_index) {
		return thr_stream_corrupt_at(r, start + THR_F_INDEX, "frame index %llu where %llu was expected", (unsigned long long)index,
		               (unsigned long long)r->next_index);
	}
	uint64_t step = thr_get_u64(f + THR_F_STEP);
	if (index == 0) {
		r->first_step = step;
	} else {
		// step == first_step + index * every, without overflowing.
		uint64_t span = step - r->first_step;
		if (step < r->first_step || span / in->every != index || span % in->every != 0) {
			return thr_stream_corrupt_at(r, start + THR_F_STEP, "frame %llu has step %llu; frame 0 had step %llu and the stride is %u",
			               (unsigned long long)index, (unsigned long long)step, (unsigned long long)r->first_step,
			               in->every);
		}
	}
	double time = thr_get_f64(f + THR_F_TIME);
	double expect = (double)step * in->dt;
	if (memcmp(&time, &expect, sizeof time) != 0) {
		return thr_stream_corrupt_at(r, start + THR_F_TIME, "frame %llu has time %.17g s, but step %llu times dt is %.17g s",
		               (unsigned long long)index, time, (unsigned long long)step, expect);
	}
	return THRONG_OK;
}

/// Fails with the truncation of the frame of `fb` bytes that starts at
/// `start` when the source ends `have` bytes into it.
static throng_status frame_cut(throng_stream_reader* r, uint64_t start, uint64_t have, uint64_t fb)
{
	return thr_stream_corrupt_at(r, start + have,
	                  "the stream ends inside frame %llu (%llu of %llu bytes; the frame starts at byte offset %llu)",
	                  (unsigned long long)r->next_index, (unsigned long long)have, (unsigned long long)fb,
	                  (unsigned long long)start);
}

/// Reads the rest of a frame of `fb` bytes whose first `head_len` bytes
/// (its marker, and a 2.x frame's head) were read into `head`. A source
/// with a size (memory, a regular file) must hold the whole frame before a
/// byte is allocated for it; from a pipe the buffer grows with the bytes
/// received (THR_STREAM_PIPE_CHUNK, then doubling), until it holds a frame of that
/// size once and is kept.
static throng_status read_frame_bytes(throng_stream_reader* r, const unsigned char* head, size_t head_len,
                                      uint64_t start, size_t fb)
{
	uint64_t left = thr_stream_source_left(r);
	if (left != THR_STREAM_SIZE_UNKNOWN && left < fb - head_len) {
		r->offset += left;
		return frame_cut(r, start, head_len + left, fb);
	}
	size_t have = head_len;
	while (have < fb) {
		size_t want = fb;
		if (left == THR_STREAM_SIZE_UNKNOWN && r->frame_cap < fb) {
			size_t grow = have < THR_STREAM_PIPE_CHUNK ? THR_STREAM_PIPE_CHUNK : 2u * have;
			want = grow < fb ? grow : fb;
		}
		if (want > r->frame_cap) {
			unsigned char* p = realloc(r->frame, want);
			if (p == NULL) {
				return thr_stream_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for a %zu-byte frame",
				                                 r->name, fb));
			}
			r->frame = p;
			r->frame_cap = want;
		}
		throng_status io;
		size_t n = thr_stream_source_read(r, r->frame + have, want - have, &io);
		if (io != THRONG_OK) {
			return thr_stream_failed(r, io);
		}
		have += n;
		if (have < want) {
			return frame_cut(r, start, have, fb);
		}
	}
	if (r->frame_cap < head_len) { // a frame with nothing after its head
		unsigned char* p = realloc(r->frame, head_len);
		if (p == NULL) {
			return thr_stream_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name));
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
	size_t got = thr_stream_source_read(r, head + 4, THR_F2_IDS - 4u, &io);
	if (io != THRONG_OK) {
		return thr_stream_failed(r, io);
	}
	if (got < THR_F2_IDS - 4u) {
		return thr_stream_corrupt_at(r, r->offset, "the stream ends inside frame %llu (%zu of the %d bytes of its head; the frame "
		                  "starts at byte offset %llu)", (unsigned long long)r->next_index, got + 4u, THR_F2_IDS,
		                  (unsigned long long)start);
	}
	uint64_t bytes = thr_get_u64(head + THR_F2_BYTES);
	uint32_t n = thr_get_u32(head + THR_F2_COUNT);
	uint64_t expect = thr_frame2_bytes(n, r->field_slots);
	if (bytes != expect) {
		return thr_stream_corrupt_at(r, start + THR_F2_BYTES,
		                  "frame %llu: frame size %llu, but %u agents with their ids and %u fields make %llu",
		                  (unsigned long long)r->next_index, (unsigned long long)bytes, n, r->field_slots,
		                  (unsigned long long)expect);
	}
	if (bytes > THR_READ_MAX_FRAME) {
		return thr_stream_corrupt_at(r, start + THR_F2_BYTES, "frame %llu: frame size %llu (%u agents) is larger than this reader "
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
			return thr_stream_corrupt_at(r, start + THR_F2_IDS + 4u * k, "frame %llu: agent %u's id is 0x%08x, which names no agent",
			                  (unsigned long long)r->next_index, k, id);
		}
		if (k > 0 && id <= prev) {
			return thr_stream_corrupt_at(r, start + THR_F2_IDS + 4u * k,
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
		size_t k = thr_field_is_float(b) ? thr_first_nonfinite(a, n) : n;
		if (k < n) {
			float v;
			memcpy(&v, a + 4u * k, 4);
			return thr_stream_corrupt_at(r, start + data_at + (slot * n + k) * 4u,
			                  "frame %llu: agent %u's %s is %g (positions, velocities, headings and health must be finite)",
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
			return thr_stream_failed(r, thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u ids", r->name,
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
	size_t got_marker = thr_stream_source_read(r, marker, 4, &io);
	if (io != THRONG_OK) {
		return thr_stream_failed(r, io);
	}
	if (got_marker == 0) {
		r->ended = true; // ends at a frame boundary: the writer stopped early
		return THRONG_OK;
	}
	if (got_marker < 4) {
		return thr_stream_corrupt_at(r, r->offset, "the stream ends inside the marker of frame %llu (which starts at byte offset %llu)",
		               (unsigned long long)r->next_index, (unsigned long long)start);
	}
	if (memcmp(marker, THR_END_MARKER, 4) == 0) {
		return read_end_record(r, start);
	}
	if (memcmp(marker, THR_FRAME_MARKER, 4) != 0) {
		return thr_stream_corrupt_at(r, start, "expected frame %llu's marker \"FRAM\" or the end record \"END!\", found %02x %02x %02x %02x",
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
	frame->health = arrays[8];
	frame->combat_state = arrays[9];
	r->next_index += 1;
	*got = true;
	return THRONG_OK;
}

