// SPDX-License-Identifier: MIT
// The binary stream: written and read back bit for bit, the header laid out
// as docs/FORMAT.md says, every truncation and corruption reported with its
// byte offset, and the throng command's stream read through a real pipe.
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_internal.h"
#include "support.h"
#include "throng/export.h"
#include "throng/scenario.h"

/// Every field of stream version 2.0 (bits 0 to 7): the damage tests'
/// offsets are worked out for these eight.
#define FIELDS_2_0 0xffu

/// Expected frames, computed per agent through throng_world_get_agent()
/// (not through the exporter's scatter): [frame][field][id] as raw bits.
typedef struct expected {
	uint32_t frames, agents;
	uint64_t step[64];
	uint32_t* bits; ///< frames * THRONG_FIELD_BITS * agents
} expected;

static uint32_t* exp_at(expected* e, uint32_t frame, int field)
{
	return e->bits + ((size_t)frame * THRONG_FIELD_BITS + (size_t)field) * e->agents;
}

static void record(expected* e, const throng_world* w)
{
	cr_assert_lt(e->frames, 64u);
	uint32_t f = e->frames++;
	e->step[f] = throng_world_view(w).step;
	for (uint32_t id = 0; id < e->agents; ++id) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
		float v[6] = {a.position.x, a.position.y, a.velocity.x, a.velocity.y, a.heading.x, a.heading.y};
		for (int k = 0; k < 6; ++k) {
			memcpy(&exp_at(e, f, k)[id], &v[k], 4);
		}
		exp_at(e, f, 6)[id] = a.group;
		exp_at(e, f, 7)[id] = a.archetype;
		memcpy(&exp_at(e, f, 8)[id], &a.health, 4);
		exp_at(e, f, 9)[id] = a.combat_state;
	}
}

static void tmp_path(char* buf, size_t cap, const char* name)
{
	snprintf(buf, cap, "/tmp/throng_test_%d_%s", (int)getpid(), name);
}

/// Runs circle for `steps` steps, writing every step to `path` and
/// recording what each written frame must hold.
static void write_run(const char* path, uint32_t agents, uint32_t steps, uint32_t fields, uint32_t every,
                      expected* e)
{
	throng_export_def def = throng_export_default_def();
	def.format = THRONG_FORMAT_BINARY;
	def.fields = fields;
	def.every = every;
	throng_scene* scene = NULL;
	throng_exporter* ex = thr_test_circle_exporter(path, agents, def, &scene);
	throng_world* w = throng_scene_world(scene);
	memset(e, 0, sizeof *e);
	e->agents = agents;
	e->bits = calloc((size_t)64 * THRONG_FIELD_BITS * agents, 4);
	for (uint32_t k = 0; k <= steps; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_scene_step(scene), THRONG_OK);
		}
		cr_assert_eq(throng_exporter_write(ex, w), THRONG_OK, "%s", throng_last_error());
		if (k % every == 0) {
			record(e, w);
		}
	}
	cr_assert_eq(throng_exporter_frames(ex), e->frames);
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	throng_scene_destroy(scene);
}

/// Reads a whole file into memory.
static unsigned char* slurp(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char* buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/// Compares every frame the reader yields against the expected bits.
static void check_frames(throng_stream_reader* r, expected* e, uint32_t fields, double dt)
{
	for (uint32_t f = 0; f < e->frames; ++f) {
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		cr_assert(got, "frame %u missing", f);
		cr_assert_eq(fr.index, f);
		cr_assert_eq(fr.step, e->step[f]);
		cr_assert_eq(fr.time, (double)e->step[f] * dt);
		cr_assert_eq(fr.count, e->agents);
		for (uint32_t k = 0; k < e->agents; ++k) {
			cr_assert_eq(fr.id[k], k, "frame %u: agent %u has id %u", f, k, fr.id[k]);
		}
		const void* arrays[THRONG_FIELD_BITS] = {fr.x,  fr.y,     fr.vx,        fr.vy,     fr.hx,
		                                         fr.hy, fr.group, fr.archetype, fr.health, fr.combat_state};
		for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
			if ((fields & (1u << k)) == 0) {
				cr_assert_null(arrays[k], "field %d should be absent", k);
				continue;
			}
			cr_assert_not_null(arrays[k], "field %d missing", k);
			cr_assert_eq(memcmp(arrays[k], exp_at(e, f, k), 4u * e->agents), 0, "frame %u field %s differs", f,
			             throng_field_name(1u << k));
		}
	}
	throng_frame fr;
	bool got = true;
	cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert_not(got, "a frame after the last one");
}

Test(stream, round_trip_bit_for_bit)
{
	char path[256];
	tmp_path(path, sizeof path, "all.thr");
	expected e;
	write_run(path, 200, 20, THRONG_FIELDS_ALL, 1, &e);
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	const throng_stream_info* in = throng_stream_get_info(r);
	cr_assert_eq(in->version_major, 2);
	cr_assert_eq(in->version_minor, 1, "a stream with health is 2.1");
	cr_assert_eq(in->agents, 200);
	cr_assert_eq(in->fields, THRONG_FIELDS_ALL);
	cr_assert_eq(in->every, 1);
	cr_assert_eq(in->dt, (double)(1.0f / 60.0f));
	cr_assert_str_eq(in->scenario, "circle");
	cr_assert_eq(in->seed, 1);
	cr_assert_eq(in->frame_bytes, 0); // 2.x: each frame gives its own
	check_frames(r, &e, THRONG_FIELDS_ALL, in->dt);
	cr_assert(throng_stream_complete(r), "the end record was not seen");
	throng_stream_reader_destroy(r);
	free(e.bits);
	unlink(path);
}

Test(stream, every_and_field_subset)
{
	char path[256];
	tmp_path(path, sizeof path, "xy.thr");
	expected e;
	write_run(path, 50, 10, THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_GROUP, 3, &e);
	cr_assert_eq(e.frames, 4); // steps 0, 3, 6, 9
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_stream_get_info(r)->every, 3);
	check_frames(r, &e, THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_GROUP, throng_stream_get_info(r)->dt);
	cr_assert(throng_stream_complete(r));
	throng_stream_reader_destroy(r);
	free(e.bits);
	unlink(path);
}

/// CRC-32 bit by bit, straight from its definition (independent of the
/// library's thr_crc32).
static uint32_t crc32_slow(const unsigned char* p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t k = 0; k < n; ++k) {
		c ^= p[k];
		for (int b = 0; b < 8; ++b) {
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
		}
	}
	return ~c;
}

static uint32_t le32(const unsigned char* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char* p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/// CRC of buf[0..n) with the 4 bytes at `at` read as zero, as FORMAT.md says.
static uint32_t crc_zeroed(const unsigned char* buf, size_t n, size_t at)
{
	unsigned char* copy = malloc(n);
	memcpy(copy, buf, n);
	memset(copy + at, 0, 4);
	uint32_t c = crc32_slow(copy, n);
	free(copy);
	return c;
}

/// The check value of CRC-32/ISO-HDLC (the zlib/PNG CRC that docs/FORMAT.md
/// names): CRC("123456789") = 0xCBF43926. A running CRC continues across
/// calls, and every length and alignment gives the bit-by-bit value.
/// The size of a 2.x stream's first frame (frames of a run without churn
/// all have it).
static size_t frame0_bytes(const unsigned char* b)
{
	return (size_t)le64(b + le32(b + 16) + 32);
}

/// Where a 2.x frame of `agents` agents holds its field arrays: after the
/// 48-byte head and the ids.
static size_t data_at(uint32_t agents)
{
	return 48u + 4u * (size_t)agents;
}

Test(stream, crc32_is_the_documented_one)
{
	cr_expect_eq(thr_crc32(0, "123456789", 9), 0xCBF43926u);
	cr_expect_eq(thr_crc32(thr_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
	cr_expect_eq(thr_crc32(0, "", 0), 0u);
	cr_expect_eq(crc32_slow((const unsigned char*)"123456789", 9), 0xCBF43926u);
	unsigned char buf[300];
	uint32_t x = 12345u;
	for (size_t k = 0; k < sizeof buf; ++k) {
		x = x * 1664525u + 1013904223u;
		buf[k] = (unsigned char)(x >> 24);
	}
	for (size_t at = 0; at < 16; ++at) {
		for (size_t n = 0; at + n <= sizeof buf; n += 1 + n / 8) {
			cr_assert_eq(thr_crc32(0, buf + at, n), crc32_slow(buf + at, n), "offset %zu, %zu bytes", at, n);
		}
	}
}

/// `throng run herd --agents 2 --steps 1 --fields x,y`, written by the
/// version whose CRC-32 was its own code (core/io/crc32.c, before zlib's):
/// its checksums still read as good, and its values as they were written.
static const unsigned char stream_before_zlib[] = {
	0x89, 0x54, 0x48, 0x52, 0x4f, 0x4e, 0x47, 0x0a, 0x01, 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
	0x60, 0x00, 0x00, 0x00, 0xc9, 0x5e, 0x17, 0xad, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x11, 0x11, 0x91, 0x3f,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0xc1, 0x00, 0x00, 0x70, 0xc1,
	0x00, 0x00, 0xa0, 0x41, 0x00, 0x00, 0x70, 0x41, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x68, 0x65, 0x72, 0x64, 0x00, 0x00, 0x00, 0x00,
	0x46, 0x52, 0x41, 0x4d, 0xa7, 0x7d, 0x22, 0x96, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x64, 0x3b, 0xac, 0x40, 0x0f, 0xc2, 0x7d, 0xc0, 0xcc, 0xac, 0x11, 0x40, 0x94, 0x14, 0xd3, 0x3f,
	0x46, 0x52, 0x41, 0x4d, 0x8b, 0x3e, 0xa2, 0xef, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x11, 0x11, 0x91, 0x3f,
	0xb9, 0x9a, 0xac, 0x40, 0x8d, 0xaf, 0x7e, 0xc0, 0x01, 0xe3, 0x10, 0x40, 0x1d, 0x34, 0xd4, 0x3f,
	0x45, 0x4e, 0x44, 0x21, 0x56, 0xee, 0xcc, 0xeb, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

Test(stream, a_stream_written_before_zlib_reads_the_same)
{
	const float want_x[2][2] = {{0x1.5876c8p+2f, -0x1.fb841ep+1f}, {0x1.593572p+2f, -0x1.fd5f1ap+1f}};
	const float want_y[2][2] = {{0x1.235998p+1f, 0x1.a62928p+0f}, {0x1.21c602p+1f, 0x1.a8683ap+0f}};
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open_memory(stream_before_zlib, sizeof stream_before_zlib, &r), THRONG_OK, "%s",
	             throng_last_error());
	cr_assert_eq(throng_stream_get_info(r)->agents, 2u);
	cr_assert_eq(throng_stream_get_info(r)->version_major, 1u); // a version 1 stream still reads
	throng_frame f;
	bool got = true;
	for (uint64_t i = 0; i < 2; ++i) {
		cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_OK, "frame %llu: %s", (unsigned long long)i,
		             throng_last_error());
		cr_assert(got);
		cr_assert_eq(f.index, i);
		cr_assert_eq(f.step, i);
		cr_assert_eq(f.count, 2u);
		cr_assert(f.id[0] == 0 && f.id[1] == 1, "version 1: the ids are 0 .. N-1");
		for (int k = 0; k < 2; ++k) {
			cr_expect_eq(f.x[k], want_x[i][k], "frame %llu agent %d x", (unsigned long long)i, k);
			cr_expect_eq(f.y[k], want_y[i][k], "frame %llu agent %d y", (unsigned long long)i, k);
		}
	}
	cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert_not(got);
	cr_assert(throng_stream_complete(r), "the end record's CRC");
	throng_stream_reader_destroy(r);

	// The checksums are checked: one bit changed in the last frame's last
	// value (the last agent's y, just before the 16-byte end record).
	unsigned char bad[sizeof stream_before_zlib];
	memcpy(bad, stream_before_zlib, sizeof bad);
	bad[sizeof bad - 16 - 4] ^= 0x01u;
	cr_assert_eq(throng_stream_open_memory(bad, sizeof bad, &r), THRONG_OK, "%s", throng_last_error());
	throng_status st = THRONG_OK;
	for (got = true; st == THRONG_OK && got;) {
		st = throng_stream_read_frame(r, &f, &got);
	}
	cr_expect_eq(st, THRONG_ERR_CORRUPT, "a flipped bit read as %s", throng_status_name(st));
	throng_stream_reader_destroy(r);
}

Test(stream, layout_matches_format_md)
{
	char path[256];
	tmp_path(path, sizeof path, "layout.thr");
	expected e;
	write_run(path, 10, 2, THRONG_FIELD_X | THRONG_FIELD_HY, 1, &e);
	size_t size = 0;
	unsigned char* b = slurp(path, &size);
	cr_assert_eq(memcmp(b, "\x89THRONG\n", 8), 0);
	cr_assert_eq(b[8] | b[9] << 8, 2);
	cr_assert_eq(b[10] | b[11] << 8, 0);
	cr_assert(b[12] == 4 && b[13] == 3 && b[14] == 2 && b[15] == 1, "byte-order mark");
	uint32_t header_bytes = le32(b + 16);
	cr_assert_eq(header_bytes, 96); // 88 + "circle", padded to 8
	cr_assert_eq(le32(b + 20), crc_zeroed(b, header_bytes, 20), "header CRC");
	cr_assert_eq(le32(b + 24), 10);
	cr_assert_eq(le32(b + 28), THRONG_FIELD_X | THRONG_FIELD_HY);
	cr_assert_eq(le64(b + 32), 0); // 2.x: each frame gives its own size
	uint64_t frame_bytes = le64(b + header_bytes + 32);
	cr_assert_eq(frame_bytes, 48 + 3 * 10 * 4); // the head, the ids and two fields: 168, a multiple of 8
	uint64_t dt_bits = le64(b + 40);
	double dt;
	memcpy(&dt, &dt_bits, 8);
	cr_assert_eq(dt, (double)(1.0f / 60.0f));
	cr_assert_eq(le32(b + 48), 1);
	cr_assert_eq(le32(b + 80), 2);
	cr_assert_eq(b[84] | b[85] << 8, 6);
	cr_assert_eq(memcmp(b + 88, "circle", 6), 0);
	cr_assert_eq(size, header_bytes + 3 * frame_bytes + 16);
	for (uint32_t f = 0; f < 3; ++f) {
		const unsigned char* fr = b + header_bytes + f * frame_bytes;
		cr_assert_eq(memcmp(fr, "FRAM", 4), 0);
		cr_assert_eq(le32(fr + 4), crc_zeroed(fr, frame_bytes, 4), "frame %u CRC", f);
		cr_assert_eq(le64(fr + 8), f);
		cr_assert_eq(le64(fr + 16), f);
		cr_assert_eq(le64(fr + 32), frame_bytes);
		cr_assert_eq(le32(fr + 40), 10); // the agents in the frame
		cr_assert_eq(le32(fr + 44), 0);  // reserved
		for (uint32_t k = 0; k < 10; ++k) {
			cr_assert_eq(le32(fr + 48 + 4 * k), k, "frame %u: id %u", f, k);
		}
		// x of agent 3, then hy of agent 3: after the ids, arrays in bit order, by id.
		cr_assert_eq(le32(fr + 48 + 40 + 3 * 4), exp_at(&e, f, 0)[3]);
		cr_assert_eq(le32(fr + 48 + 80 + 3 * 4), exp_at(&e, f, 5)[3]);
	}
	const unsigned char* end = b + size - 16;
	cr_assert_eq(memcmp(end, "END!", 4), 0);
	cr_assert_eq(le32(end + 4), crc_zeroed(end, 16, 4));
	cr_assert_eq(le64(end + 8), 3);
	free(b);
	free(e.bits);
	unlink(path);
}

/// Reads the stream in data[0..n) to its end. Returns the status; *frames
/// gets the frames read.
static throng_status read_all(const unsigned char* data, size_t n, bool verify, uint32_t* frames, bool* complete)
{
	*frames = 0;
	*complete = false;
	throng_stream_reader* r = NULL;
	throng_status st = throng_stream_open_memory(data, n, &r);
	if (st != THRONG_OK) {
		return st;
	}
	throng_stream_verify(r, verify);
	for (;;) {
		throng_frame fr;
		bool got = false;
		st = throng_stream_read_frame(r, &fr, &got);
		if (st != THRONG_OK || !got) {
			break;
		}
		*frames += 1;
	}
	*complete = throng_stream_complete(r);
	throng_stream_reader_destroy(r);
	return st;
}

Test(stream, every_truncation_names_its_byte_offset)
{
	char path[256];
	tmp_path(path, sizeof path, "cut.thr");
	expected e;
	write_run(path, 6, 4, THRONG_FIELD_X | THRONG_FIELD_Y, 1, &e);
	size_t size = 0;
	unsigned char* b = slurp(path, &size);
	uint32_t header_bytes = le32(b + 16);
	uint64_t frame_bytes = frame0_bytes(b);
	for (size_t n = 0; n < size; ++n) {
		uint32_t frames = 0;
		bool complete = false;
		throng_status st = read_all(b, n, true, &frames, &complete);
		bool boundary = n >= header_bytes && (n - header_bytes) % frame_bytes == 0;
		cr_assert_not(complete, "cut at %zu: complete", n);
		if (boundary) {
			// The writer stopped between frames: every frame is readable.
			cr_assert_eq(st, THRONG_OK, "cut at %zu: %s", n, throng_last_error());
			cr_assert_eq(frames, (n - header_bytes) / frame_bytes);
			continue;
		}
		cr_assert_eq(st, THRONG_ERR_CORRUPT, "cut at %zu: status %d", n, st);
		char want[64];
		snprintf(want, sizeof want, "byte offset %zu:", n);
		cr_assert_not_null(strstr(throng_last_error(), want), "cut at %zu: %s", n, throng_last_error());
		cr_assert_eq(frames, n < header_bytes ? 0 : (n - header_bytes) / frame_bytes, "cut at %zu", n);
	}
	uint32_t frames = 0;
	bool complete = false;
	cr_assert_eq(read_all(b, size, true, &frames, &complete), THRONG_OK);
	cr_assert(complete);
	cr_assert_eq(frames, 5);
	free(b);
	free(e.bits);
	unlink(path);
}

/// Flips one byte and expects `status` with "byte offset <offset>" (and
/// `what`) in the message.
static void expect_corrupt(unsigned char* b, size_t size, size_t at, bool verify, size_t offset, const char* what)
{
	b[at] ^= 0x5a;
	uint32_t frames = 0;
	bool complete = false;
	throng_status st = read_all(b, size, verify, &frames, &complete);
	b[at] ^= 0x5a;
	cr_assert_eq(st, THRONG_ERR_CORRUPT, "byte %zu flipped: status %d", at, st);
	char want[64];
	snprintf(want, sizeof want, "byte offset %zu: ", offset);
	cr_assert_not_null(strstr(throng_last_error(), want), "byte %zu flipped: %s", at, throng_last_error());
	cr_assert_not_null(strstr(throng_last_error(), what), "byte %zu flipped: %s", at, throng_last_error());
}

Test(stream, corruption_names_its_byte_offset)
{
	char path[256];
	tmp_path(path, sizeof path, "bad.thr");
	expected e;
	write_run(path, 8, 3, FIELDS_2_0, 1, &e);
	size_t size = 0;
	unsigned char* b = slurp(path, &size);
	size_t h = le32(b + 16);
	size_t fb = frame0_bytes(b);
	expect_corrupt(b, size, 0, true, 0, "not a throng stream");
	expect_corrupt(b, size, 8, true, 8, "version");
	expect_corrupt(b, size, 13, true, 12, "byte-order mark");
	expect_corrupt(b, size, 30, true, 20, "header checksum");
	expect_corrupt(b, size, h + fb, true, h + fb, "marker");               // frame 1's marker
	expect_corrupt(b, size, h + 2 * fb + 100, true, h + 2 * fb + 4, "frame 2 checksum");
	expect_corrupt(b, size, h + fb + 8, false, h + fb + 8, "frame index");  // caught without the CRC too
	expect_corrupt(b, size, h + 2 * fb + 17, false, h + 2 * fb + 16, "step");
	expect_corrupt(b, size, h + fb + 30, false, h + fb + 24, "time");
	// 2.x: the frame's size and count must agree, checked before the CRC
	// (they size what is read); the ids must increase.
	expect_corrupt(b, size, h + fb + 33, false, h + fb + 32, "frame 1: frame size");
	expect_corrupt(b, size, h + fb + 40, false, h + fb + 32, "but 82 agents with their ids and 8 fields make");
	// id 3 becomes 3 ^ 0x5a = 89: the next id, 4, is then not above it.
	expect_corrupt(b, size, h + 2 * fb + 48 + 4 * 3, false, h + 2 * fb + 48 + 4 * 4,
	               "agent 4's id 4 is not above the id before it, 89 (ids must increase)");
	expect_corrupt(b, size, size - 4, true, size - 12, "checksum");         // the end record
	// Without checksums a flipped data byte reads as (wrong) data: no error.
	b[h + 2 * fb + 100] ^= 0x5a;
	uint32_t frames = 0;
	bool complete = false;
	cr_assert_eq(read_all(b, size, false, &frames, &complete), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(frames, 4);
	cr_assert(complete);
	b[h + 2 * fb + 100] ^= 0x5a;
	// Bytes after the end record.
	unsigned char* longer = malloc(size + 1);
	memcpy(longer, b, size);
	longer[size] = 0;
	cr_assert_eq(read_all(longer, size + 1, true, &frames, &complete), THRONG_ERR_CORRUPT);
	char want[64];
	snprintf(want, sizeof want, "byte offset %zu: data after the end record", size);
	cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
	free(longer);
	free(b);
	free(e.bits);
	unlink(path);
}

Test(stream, open_errors)
{
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open("/nonexistent/throng.thr", &r), THRONG_ERR_IO);
	cr_assert_null(r);
	cr_assert_not_null(strstr(throng_last_error(), "/nonexistent/throng.thr"), "%s", throng_last_error());
	cr_assert_eq(throng_stream_open_memory("", 0, &r), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 0:"), "%s", throng_last_error());
	const char csv[] = "id,frame,time,x,y\n0,0,0,1,2\n";
	cr_assert_eq(throng_stream_open_memory(csv, sizeof csv - 1, &r), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "not a throng stream"), "%s", throng_last_error());
	throng_stream_reader_destroy(NULL);
}

Test(stream, exporter_rejects_bad_calls_without_failing)
{
	char path[256];
	tmp_path(path, sizeof path, "calls.thr");
	throng_export_def def = throng_export_default_def();
	def.agents = 4;
	def.dt = 0.5f;
	def.every = 2;
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	uint32_t id[4] = {3, 1, 0, 2};
	float x[4] = {3, 1, 0, 2}, y[4] = {0}, hx[4] = {1, 1, 1, 1}, hy[4] = {0};
	throng_view v = {.count = 4, .step = 10, .id = id, .x = x, .y = y, .hx = hx, .hy = hy};
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_OK, "%s", throng_last_error());
	v.step = 11;
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_OK); // not due: nothing written
	v.step = 9;
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_ERR_INVALID_ARGUMENT);
	v.step = 15;
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_ERR_INVALID_ARGUMENT); // skipped step 12
	cr_assert_not_null(strstr(throng_last_error(), "skipped"), "%s", throng_last_error());
	v.step = 12;
	id[0] = 1; // id 1 twice
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "id 1 appears twice"), "%s", throng_last_error());
	id[0] = 3;
	v.hx = NULL;
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "hx"), "%s", throng_last_error());
	v.hx = hx;
	// Agents come and go: agent 2 was removed and agent 7 added in agent
	// 3's slot, whose removal left a gap. Written by id: 0, 1, 7.
	v.count = 3;
	id[0] = 7;
	cr_assert_eq(throng_exporter_write_view(ex, &v), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_exporter_frames(ex), 2);
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);

	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = false;
	cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK);
	cr_assert_eq(fr.count, 4);
	for (uint32_t i = 0; i < 4; ++i) {
		cr_assert(fr.id[i] == i && fr.x[i] == (float)i, "agent %u: id %u, x %g", i, fr.id[i], (double)fr.x[i]);
	}
	cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK);
	cr_assert(got);
	cr_assert_eq(fr.step, 12);
	cr_assert_eq(fr.time, 6.0);
	cr_assert_eq(fr.count, 3);
	const uint32_t want_id[3] = {0, 1, 7};
	const float want_x[3] = {0, 1, 3}; // x was the slot's first id
	for (uint32_t i = 0; i < 3; ++i) {
		cr_assert(fr.id[i] == want_id[i] && fr.x[i] == want_x[i], "agent %u: id %u, x %g", i, fr.id[i],
		          (double)fr.x[i]);
	}
	throng_stream_reader_destroy(r);
	unlink(path);
}

/// Writes `steps` steps of `scene` through an exporter made from `def` and finishes it.
static void write_with(const char* path, const throng_export_def* def, throng_scene* scene, uint32_t steps)
{
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, def, &ex), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k <= steps; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_scene_step(scene), THRONG_OK);
		}
		cr_assert_eq(throng_exporter_write(ex, throng_scene_world(scene)), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
}

Test(stream, def_world_writes_what_the_fields_would)
{
	// def.world: agents, dt, bounds, bounds mode and seed read from the
	// world give the same bytes as the same figures set by hand.
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = 40;
	opt.seed = 9;
	throng_scene *a = NULL, *b = NULL;
	cr_assert_eq(throng_scene_create("crossing", &opt, &a), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_scene_create("crossing", &opt, &b), THRONG_OK, "%s", throng_last_error());
	const throng_world_def wd = throng_world_get_def(throng_scene_world(a));
	char pa[256], pb[256];
	tmp_path(pa, sizeof pa, "world.thr");
	tmp_path(pb, sizeof pb, "hand.thr");
	throng_export_def def = throng_export_default_def();
	def.world = throng_scene_world(a);
	def.scenario = "crossing";
	write_with(pa, &def, a, 3);
	def = throng_export_default_def();
	def.agents = throng_world_agent_count(throng_scene_world(b));
	def.dt = wd.dt;
	def.bounds_min = wd.bounds_min;
	def.bounds_max = wd.bounds_max;
	def.bounds_mode = wd.bounds_mode;
	def.seed = wd.seed;
	def.scenario = "crossing";
	write_with(pb, &def, b, 3);
	size_t na = 0, nb = 0;
	unsigned char* da = slurp(pa, &na);
	unsigned char* db = slurp(pb, &nb);
	cr_assert_eq(na, nb);
	cr_assert(memcmp(da, db, na) == 0, "the two files differ");
	free(da);
	free(db);

	// A figure set by hand and def.world together: refused, naming the field.
	throng_exporter* ex = NULL;
	def.world = throng_scene_world(a);
	cr_assert_eq(throng_exporter_create(pa, &def, &ex), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(ex);
	cr_assert_not_null(strstr(throng_last_error(), "def.world and def.agents"), "%s", throng_last_error());
	def = throng_export_default_def();
	def.world = throng_scene_world(a);
	def.seed = 5;
	cr_assert_eq(throng_exporter_create(pa, &def, &ex), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "def.world and def.seed"), "%s", throng_last_error());
	throng_scene_destroy(a);
	throng_scene_destroy(b);
	unlink(pa);
	unlink(pb);
}

Test(stream, cli_stream_through_a_pipe)
{
	cr_assert(strlen(THRONG_CLI_PATH) > 0, "the throng_cli target is not built");
	char err_path[256], cmd[1024];
	tmp_path(err_path, sizeof err_path, "pipe.err");
	snprintf(cmd, sizeof cmd, "'%s' run circle --agents 200 --steps 20 --out - 2>'%s'", THRONG_CLI_PATH, err_path);
	FILE* pipe = popen(cmd, "r");
	cr_assert_not_null(pipe);
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open_file(pipe, "throng's pipe", &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_stream_get_info(r)->fields, THRONG_FIELDS_DEFAULT);

	// The same run in this process gives the same bits (any thread count).
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = 200;
	throng_scene* scene = NULL;
	cr_assert_eq(throng_scene_create("circle", &opt, &scene), THRONG_OK);
	throng_world* w = throng_scene_world(scene);
	for (uint32_t f = 0; f <= 20; ++f) {
		if (f > 0) {
			cr_assert_eq(throng_scene_step(scene), THRONG_OK);
		}
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		cr_assert(got, "frame %u missing", f);
		for (uint32_t id = 0; id < 200; ++id) {
			throng_agent_state a;
			throng_world_get_agent(w, id, &a);
			cr_assert(memcmp(&fr.x[id], &a.position.x, 4) == 0 && memcmp(&fr.y[id], &a.position.y, 4) == 0 &&
			              memcmp(&fr.hx[id], &a.heading.x, 4) == 0 && memcmp(&fr.hy[id], &a.heading.y, 4) == 0,
			          "frame %u agent %u differs", f, id);
		}
	}
	throng_frame fr;
	bool got = true;
	cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK);
	cr_assert_not(got);
	cr_assert(throng_stream_complete(r));
	throng_stream_reader_destroy(r);
	cr_assert_eq(pclose(pipe), 0);
	throng_scene_destroy(scene);

	// The summary went to standard error, keeping the stream clean.
	size_t n = 0;
	unsigned char* err = slurp(err_path, &n);
	err[n] = '\0';
	cr_assert_not_null(strstr((char*)err, "scenario:"), "%s", err);
	const char* frames = strstr((char*)err, "frames:");
	unsigned count = 0;
	cr_assert(frames != NULL && sscanf(frames, "frames: %u", &count) == 1 && count == 21, "%s", err);
	free(err);
	unlink(err_path);
}

// ---------------------------------------------------------------------------
// Damaged streams, each read by both readers: the C reader and
// examples/read_stream.py must reject the same streams (FORMAT.md, "What a
// reader checks") with the same byte offset and words, and accept the same
// ones. Every change but the checksum cases fixes the checksum up, so the
// check under test is the one that fires.

static void put32(unsigned char* p, uint32_t v)
{
	for (int k = 0; k < 4; ++k) {
		p[k] = (unsigned char)(v >> (8 * k));
	}
}

static void put64(unsigned char* p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

typedef enum damage {
	DMG_AFTER_END, DMG_END_CRC, DMG_END_COUNT, DMG_MARKER_CUT, DMG_STEP, DMG_TIME, DMG_INDEX, DMG_NAME_BYTES,
	DMG_BOUNDS_MODE, DMG_EVERY, DMG_DT, DMG_BOUNDS, DMG_FIELD_COUNT, DMG_FRAME_TOO_BIG,
	// 2.x: a frame's size, its count and its ids, and the header's frame size.
	DMG_FRAME_SIZE, DMG_FRAME_COUNT, DMG_IDS, DMG_HEADER_FRAME_BYTES,
	// Accepted: reserved and padding bytes are not checked (FORMAT.md).
	DMG_RESERVED, DMG_HEADER_PADDING, DMG_FRAME_PADDING, DMG_COUNT
} damage;

typedef struct damaged {
	const char* name;
	size_t offset;      ///< the byte offset both messages name; SIZE_MAX = accepted
	const char* words;  ///< in both messages
} damaged;

/// Applies `d` to the stream b[0..*size) (room for one byte more); returns
/// what both readers must say.
static damaged apply_damage(unsigned char* b, size_t* size, damage d)
{
	const size_t h = le32(b + 16), fb = frame0_bytes(b), end = *size - 16, name_bytes = b[84] | b[85] << 8;
	const uint32_t agents = le32(b + h + 40);
	size_t frame = h + fb; // frame 1
	bool header = false, frame_fix = false, end_fix = false;
	damaged r = {"", SIZE_MAX, "complete yes"};
	switch (d) {
	case DMG_AFTER_END:
		b[(*size)++] = 0;
		r = (damaged){"a byte after the end record", end + 16, "data after the end record"};
		break;
	case DMG_END_CRC:
		b[end + 9] ^= 0x01;
		r = (damaged){"a bad end checksum", end + 4, "end record checksum mismatch"};
		break;
	case DMG_END_COUNT:
		put64(b + end + 8, le64(b + end + 8) + 1u);
		end_fix = true;
		r = (damaged){"a wrong frame count in the end record", end + 8, "the end record counts"};
		break;
	case DMG_MARKER_CUT:
		*size = end + 2;
		r = (damaged){"a cut end marker", end + 2, "ends inside the marker of frame"};
		break;
	case DMG_STEP: {
		frame = h + 2 * fb;
		uint64_t step = le64(b + frame + 16) + 1u;
		double time;
		memcpy(&time, b + frame + 24, 8);
		uint64_t dt_bits = le64(b + 40);
		double dtv;
		memcpy(&dtv, &dt_bits, 8);
		time = (double)step * dtv; // a consistent time: only the step is wrong
		uint64_t tb;
		memcpy(&tb, &time, 8);
		put64(b + frame + 16, step);
		put64(b + frame + 24, tb);
		frame_fix = true;
		r = (damaged){"a wrong step", frame + 16, "frame 2 has step"};
		break;
	}
	case DMG_TIME:
		b[frame + 24] ^= 0x01;
		frame_fix = true;
		r = (damaged){"a wrong time", frame + 24, "frame 1 has time"};
		break;
	case DMG_INDEX:
		put64(b + frame + 8, 7u);
		frame_fix = true;
		r = (damaged){"a wrong frame index", frame + 8, "frame index 7 where 1 was expected"};
		break;
	case DMG_NAME_BYTES:
		b[84] = 200;
		b[85] = 0;
		header = true;
		r = (damaged){"an oversized name length", 84, "scenario name of 200 bytes does not fit"};
		break;
	case DMG_BOUNDS_MODE:
		put32(b + 52, 4u);
		header = true;
		r = (damaged){"bounds mode 4", 52, "bounds mode 4 is not 0 to 3"};
		break;
	case DMG_EVERY:
		put32(b + 48, 0u);
		header = true;
		r = (damaged){"every 0", 48, "frame stride (every) is 0"};
		break;
	case DMG_DT:
		put64(b + 40, 0x7ff8000000000000ull); // NaN
		header = true;
		r = (damaged){"dt NaN", 40, "is not a positive number of seconds"};
		break;
	case DMG_BOUNDS:
		put32(b + 60, 0x7f800000u); // +inf
		header = true;
		r = (damaged){"infinite bounds", 56, "world bounds are not finite"};
		break;
	case DMG_FIELD_COUNT:
		put32(b + 80, le32(b + 80) + 1u);
		header = true;
		r = (damaged){"a wrong field count", 80, "does not match the field mask"};
		break;
	case DMG_FRAME_TOO_BIG: { // sizes are checked before the checksum: no fix-up
		uint32_t count = 0x20000000u, fields = le32(b + 80);
		put32(b + frame + 40, count);
		put64(b + frame + 32, ((48u + 4ull * count * (1u + fields)) + 7u) / 8u * 8u);
		r = (damaged){"a 10 GiB frame", frame + 32,
		              "frame 1: frame size 10737418288 (536870912 agents) is larger than this reader accepts"};
		break;
	}
	case DMG_FRAME_SIZE:
		put64(b + frame + 32, fb + 8u);
		r = (damaged){"a frame size its count does not make", frame + 32,
		              "frame 1: frame size 160, but 5 agents with their ids and 4 fields make 152"};
		break;
	case DMG_FRAME_COUNT:
		put32(b + frame + 40, agents + 1u);
		r = (damaged){"a count its frame size does not hold", frame + 32,
		              "frame 1: frame size 152, but 6 agents with their ids and 4 fields make 168"};
		break;
	case DMG_IDS:
		frame = h + 2 * fb;
		put32(b + frame + 48 + 8, 1u); // ids 0, 1, 1, 3, 4
		frame_fix = true;
		r = (damaged){"ids that do not increase", frame + 48 + 8,
		              "frame 2: agent 2's id 1 is not above the id before it, 1 (ids must increase)"};
		break;
	case DMG_HEADER_FRAME_BYTES:
		put64(b + 32, fb);
		header = true;
		r = (damaged){"a frame size in a 2.x header", 32, "frame size 152 in a version 2 header, which must be 0"};
		break;
	case DMG_RESERVED:
		b[86] = 0xff;
		header = true;
		r.name = "non-zero reserved header bytes";
		break;
	case DMG_HEADER_PADDING:
		cr_assert_lt(88 + name_bytes, h, "no header padding to damage");
		b[88 + name_bytes] = 0x7f;
		header = true;
		r.name = "non-zero header padding";
		break;
	case DMG_FRAME_PADDING:
		cr_assert_eq((48u + 4u * agents * (1u + le32(b + 80))) % 8u, 4u, "no frame padding to damage");
		b[frame + fb - 1] = 0x7f;
		frame_fix = true;
		r.name = "non-zero frame padding";
		break;
	default:
		cr_assert_fail("damage %d", (int)d);
	}
	if (header) {
		put32(b + 20, crc_zeroed(b, h, 20));
	}
	if (frame_fix) {
		put32(b + frame + 4, crc_zeroed(b + frame, fb, 4));
	}
	if (end_fix) {
		put32(b + end + 4, crc_zeroed(b + end, 16, 4));
	}
	return r;
}

Test(stream, damaged_streams_both_readers_agree)
{
	cr_assert(strlen(THRONG_PYTHON3) > 0, "no python3 with numpy: scripts/setup installs python3-numpy");
	char path[256], bad[256];
	tmp_path(path, sizeof path, "dmg.thr");
	tmp_path(bad, sizeof bad, "dmg_bad.thr");
	expected e;
	// 5 agents, their ids and 4 fields: 148-byte frames padded to 152, so
	// there is frame padding to damage; "circle" leaves 2 bytes of header
	// padding.
	write_run(path, 5, 3, THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_GROUP | THRONG_FIELD_ARCHETYPE, 1, &e);
	size_t size = 0;
	unsigned char* orig = slurp(path, &size);
	unsigned char* b = malloc(size + 1);
	for (int d = 0; d < DMG_COUNT; ++d) {
		memcpy(b, orig, size);
		size_t n = size;
		damaged want = apply_damage(b, &n, (damage)d);
		bool accepted = want.offset == SIZE_MAX;
		char at[64];
		snprintf(at, sizeof at, "byte offset %zu: ", want.offset);

		uint32_t frames = 0;
		bool complete = false;
		throng_status st = read_all(b, n, true, &frames, &complete);
		if (accepted) {
			cr_assert_eq(st, THRONG_OK, "C reader, %s: %s", want.name, throng_last_error());
			cr_assert(complete, "C reader, %s: not complete", want.name);
		} else {
			const char* msg = throng_last_error();
			cr_assert_eq(st, THRONG_ERR_CORRUPT, "C reader, %s: status %d", want.name, (int)st);
			cr_assert(strstr(msg, at) != NULL && strstr(msg, want.words) != NULL, "C reader, %s: %s", want.name,
			          msg);
		}

		FILE* f = fopen(bad, "wb");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(b, 1, n, f), n);
		cr_assert_eq(fclose(f), 0);
		char cmd[1024], out[65536], err[4096];
		snprintf(cmd, sizeof cmd, "'%s' '%s/examples/read_stream.py' '%s'", THRONG_PYTHON3, THRONG_SOURCE_DIR, bad);
		int rc = thr_test_run(cmd, out, sizeof out, err, sizeof err);
		if (accepted) {
			cr_assert_eq(rc, 0, "read_stream.py, %s: exit %d, %s", want.name, rc, err);
			cr_assert_not_null(strstr(out, "frames 4 complete yes"), "read_stream.py, %s: %s", want.name, out);
		} else {
			cr_assert_eq(rc, 1, "read_stream.py, %s: exit %d, %s", want.name, rc, err);
			cr_assert_null(strstr(out, "complete yes"), "read_stream.py, %s: %s", want.name, out);
			cr_assert(strstr(err, at) != NULL && strstr(err, want.words) != NULL, "read_stream.py, %s: %s",
			          want.name, err);
		}
	}
	free(b);
	free(orig);
	free(e.bits);
	unlink(bad);
	unlink(path);
}

// ---------------------------------------------------------------------------
// Damaged inputs cost nothing (issue 30): every size a header claims is
// held against the source's size and THRONG_STREAM_MAX_FRAME before it is
// allocated; every shared header field is checked; non-finite coordinates
// are refused. Each damage is read from memory, from a regular file (by
// path and as a FILE) and from a pipe. These are the C reader's own checks.

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/// A directory of this test's own, removed (with what it holds) by rm_dir.
static void make_dir(char* dir, size_t cap)
{
	const char* base = getenv("TMPDIR");
	snprintf(dir, cap, "%s/throng_stream_XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

static void rm_dir(const char* dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static void write_file(const char* path, const unsigned char* b, size_t n)
{
	FILE* f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(b, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

typedef enum source { SRC_MEMORY, SRC_PATH, SRC_FILE, SRC_PIPE, SRC_COUNT } source;
static const char* const source_name[SRC_COUNT] = {"memory", "file by path", "FILE of a file", "pipe"};

/// A stream held open over one source, and what to close after.
typedef struct opened {
	throng_stream_reader* r;
	FILE* file;
	pid_t feeder;
} opened;

/// Opens b[0..n) as `src` (files under `dir`). Returns the open's status.
static throng_status open_as(source src, const unsigned char* b, size_t n, const char* dir, opened* o)
{
	memset(o, 0, sizeof *o);
	char path[512];
	snprintf(path, sizeof path, "%s/src.thr", dir);
	switch (src) {
	case SRC_MEMORY: return throng_stream_open_memory(b, n, &o->r);
	case SRC_PATH: write_file(path, b, n); return throng_stream_open(path, &o->r);
	case SRC_FILE:
		write_file(path, b, n);
		o->file = fopen(path, "rb");
		cr_assert_not_null(o->file);
		return throng_stream_open_file(o->file, path, &o->r);
	default: {
		int fds[2];
		cr_assert_eq(pipe(fds), 0);
		o->feeder = fork();
		cr_assert_geq(o->feeder, 0);
		if (o->feeder == 0) {
			close(fds[0]);
			signal(SIGPIPE, SIG_DFL);
			for (size_t at = 0; at < n;) {
				ssize_t k = write(fds[1], b + at, n - at);
				if (k <= 0) {
					_exit(1);
				}
				at += (size_t)k;
			}
			_exit(0);
		}
		close(fds[1]);
		o->file = fdopen(fds[0], "rb");
		cr_assert_not_null(o->file);
		return throng_stream_open_file(o->file, "pipe", &o->r);
	}
	}
}

static void close_source(opened* o)
{
	throng_stream_reader_destroy(o->r);
	if (o->file != NULL) {
		fclose(o->file); // a feeder still writing gets EPIPE (or SIGPIPE) and ends
	}
	if (o->feeder > 0) {
		waitpid(o->feeder, NULL, 0);
	}
	memset(o, 0, sizeof *o);
}

/// Opens and reads b[0..n) from `src` to its end. Returns the status of the
/// first failure (or THRONG_OK), its message in msg, the frames in *frames.
static throng_status read_source(source src, const unsigned char* b, size_t n, const char* dir, bool verify,
                                 uint32_t* frames, char* msg, size_t msg_cap)
{
	opened o;
	*frames = 0;
	throng_status st = open_as(src, b, n, dir, &o);
	if (st == THRONG_OK) {
		throng_stream_verify(o.r, verify);
		for (;;) {
			throng_frame fr;
			bool got = false;
			st = throng_stream_read_frame(o.r, &fr, &got);
			if (st != THRONG_OK || !got) {
				break;
			}
			*frames += 1;
		}
	}
	snprintf(msg, msg_cap, "%s", st == THRONG_OK ? "" : throng_last_error());
	close_source(&o);
	return st;
}

/// A stream of circle (5 agents, every field of 2.0, 3 steps) in memory.
static unsigned char* small_stream(const char* dir, size_t* size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/small.thr", dir);
	expected e;
	write_run(path, 5, 3, FIELDS_2_0, 1, &e);
	free(e.bits);
	unsigned char* b = slurp(path, size);
	unlink(path);
	return b;
}

/// A header for `agents` agents with the fields `mask`, every other value
/// sound and its checksum right, then `tail` bytes: "FRAM" and zeros.
static unsigned char* forged_stream(uint32_t agents, uint32_t mask, size_t tail, size_t* size)
{
	const size_t h = 96;
	*size = h + tail;
	unsigned char* b = calloc(1, *size);
	memcpy(b, "\x89THRONG\n", 8);
	b[8] = 1;
	put32(b + 12, 0x01020304u);
	put32(b + 16, (uint32_t)h);
	put32(b + 24, agents);
	put32(b + 28, mask);
	uint32_t fc = (uint32_t)__builtin_popcount(mask);
	put64(b + 32, (32u + 4ull * agents * fc + 7u) / 8u * 8u);
	double dt = 0.01;
	uint64_t dt_bits;
	memcpy(&dt_bits, &dt, 8);
	put64(b + 40, dt_bits);
	put32(b + 48, 1);
	float bounds[4] = {-10, -10, 10, 10};
	memcpy(b + 56, bounds, 16); // little-endian hosts only, as the test machines are
	put32(b + 80, fc);
	b[84] = 6;
	memcpy(b + 88, "forged", 6);
	if (tail >= 4) {
		memcpy(b + h, "FRAM", 4);
	}
	put32(b + 20, crc_zeroed(b, h, 20));
	return b;
}

/// In a child process with its address space limited to what it uses now
/// plus 256 MiB, reads b[0..n) from `src` and expects THRONG_ERR_CORRUPT
/// with "byte offset <offset>: " and `words`. A reader that allocates a
/// 1 GiB frame first fails there with THRONG_ERR_OUT_OF_MEMORY. (Under
/// AddressSanitizer, whose shadow memory needs the address space, the
/// limit is left out and only the error is checked.)
static void expect_cheap_refusal(source src, const unsigned char* b, size_t n, const char* dir, size_t offset,
                                 const char* words)
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
#ifndef UNDER_ASAN
		long pages = 0;
		FILE* statm = fopen("/proc/self/statm", "r");
		if (statm == NULL || fscanf(statm, "%ld", &pages) != 1) {
			_exit(20);
		}
		fclose(statm);
		rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
		struct rlimit rl = {limit, limit};
		if (setrlimit(RLIMIT_AS, &rl) != 0) {
			_exit(21);
		}
#endif
		uint32_t frames = 0;
		char msg[1024], want[64];
		throng_status st = read_source(src, b, n, dir, true, &frames, msg, sizeof msg);
		snprintf(want, sizeof want, "byte offset %zu: ", offset);
		if (st != THRONG_ERR_CORRUPT || strstr(msg, want) == NULL || strstr(msg, words) == NULL) {
			fprintf(stderr, "%s: status %d: %s\n", source_name[src], (int)st, msg);
			_exit(st == THRONG_ERR_OUT_OF_MEMORY ? 2 : 1);
		}
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status), "%s: the reader died (status %d)", source_name[src], status);
	cr_assert_neq(WEXITSTATUS(status), 2, "%s: the reader allocated the frame the header claims before checking it",
	              source_name[src]);
	cr_assert_eq(WEXITSTATUS(status), 0, "%s: exit %d (see stderr)", source_name[src], WEXITSTATUS(status));
}

Test(stream, a_header_claiming_a_huge_frame_costs_nothing)
{
	char dir[256];
	make_dir(dir, sizeof dir);
	// 2^28 agents with x: 1 GiB frames, under the 2 GiB cap. The file has
	// the header, the marker and 15 KB: frame 0 ends where the file does.
	size_t n = 0;
	unsigned char* b = forged_stream(1u << 28, THRONG_FIELD_X, 15000, &n);
	for (int src = 0; src < SRC_COUNT; ++src) {
		expect_cheap_refusal((source)src, b, n, dir, n, "the stream ends inside frame 0");
	}
	free(b);
	// 2^30 agents: 4 GiB frames, over the cap, refused with the header,
	// before any frame is read.
	b = forged_stream(1u << 30, THRONG_FIELD_X, 15000, &n);
	for (int src = 0; src < SRC_COUNT; ++src) {
		expect_cheap_refusal((source)src, b, n, dir, 32, "is larger than this reader accepts");
		opened o;
		cr_assert_eq(open_as((source)src, b, n, dir, &o), THRONG_ERR_CORRUPT, "%s", source_name[src]);
		cr_assert_null(o.r);
		close_source(&o);
	}
	free(b);
	// A header that claims 64 KiB on a 200-byte file.
	b = forged_stream(5, THRONG_FIELD_X, 104, &n);
	put32(b + 16, 65536);
	for (int src = 0; src < SRC_COUNT; ++src) {
		expect_cheap_refusal((source)src, b, n, dir, 200, "the stream ends inside the header (200 of 65536 bytes)");
	}
	free(b);
	rm_dir(dir);
}

Test(stream, a_pipe_cut_inside_a_big_frame_names_its_offset)
{
	// Frames of 3 MiB through a pipe: the buffer grows as bytes arrive
	// (1 MiB, 2, then the frame), and a cut anywhere names its offset.
	char dir[256];
	make_dir(dir, sizeof dir);
	const uint32_t agents = 3u << 18; // 786,432 agents of x: 3 MiB + 32 bytes
	size_t n = 0;
	unsigned char* b = forged_stream(agents, THRONG_FIELD_X, 0, &n);
	const size_t h = n, fb = (size_t)le64(b + 32);
	unsigned char* s = calloc(1, h + 2 * fb);
	memcpy(s, b, h);
	for (uint32_t f = 0; f < 2; ++f) {
		unsigned char* fr = s + h + f * fb;
		memcpy(fr, "FRAM", 4);
		put64(fr + 8, f);
		put64(fr + 16, f);
		double t = (double)f * 0.01;
		uint64_t tb;
		memcpy(&tb, &t, 8);
		put64(fr + 24, tb);
		put32(fr + 4, crc_zeroed(fr, fb, 4));
	}
	const size_t cuts[] = {h + 100, h + (1u << 20), h + (1u << 20) + 1, h + (3u << 20), h + fb + 5, h + 2 * fb - 1};
	for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
		for (int src = 0; src < SRC_COUNT; ++src) {
			uint32_t frames = 0;
			char msg[1024], want[64];
			throng_status st = read_source((source)src, s, cuts[c], dir, true, &frames, msg, sizeof msg);
			snprintf(want, sizeof want, "byte offset %zu: the stream ends inside frame %zu", cuts[c],
			         (cuts[c] - h) / fb);
			cr_assert_eq(st, THRONG_ERR_CORRUPT, "%s, cut at %zu: %s", source_name[src], cuts[c], msg);
			cr_assert_not_null(strstr(msg, want), "%s, cut at %zu: %s", source_name[src], cuts[c], msg);
			cr_assert_eq(frames, (cuts[c] - h) / fb);
		}
	}
	for (int src = 0; src < SRC_COUNT; ++src) {
		uint32_t frames = 0;
		char msg[1024];
		cr_assert_eq(read_source((source)src, s, h + 2 * fb, dir, true, &frames, msg, sizeof msg), THRONG_OK, "%s: %s",
		             source_name[src], msg);
		cr_assert_eq(frames, 2, "%s", source_name[src]);
	}
	free(s);
	free(b);
	rm_dir(dir);
}

/// A header damage the C reader must refuse: the field's offset and value.
typedef struct header_damage {
	const char* name;
	size_t at;         ///< where the value goes
	int width;         ///< 4 or 8 bytes
	uint64_t value;
	size_t offset;     ///< the byte offset the message names
	const char* words;
} header_damage;

Test(stream, every_header_field_is_checked_from_every_source)
{
	char dir[256];
	make_dir(dir, sizeof dir);
	size_t n = 0;
	unsigned char* orig = small_stream(dir, &n);
	unsigned char* b = malloc(n);
	const uint64_t nan64 = 0x7ff8000000000000ull, inf64 = 0x7ff0000000000000ull, neg1 = 0xbff0000000000000ull;
	const header_damage table[] = {
		{"version 3", 8, 4, 0x00000003u, 8, "stream version 3.0, but this reader reads versions 1.x and 2.x only"},
		{"byte order", 12, 4, 0x04030201u, 12, "byte-order mark"},
		{"header size not a multiple of 8", 16, 4, 92, 16, "header size 92"},
		{"header size below 88", 16, 4, 80, 16, "header size 80"},
		{"header size above 65536", 16, 4, 65544, 16, "header size 65544"},
		{"field mask 0", 28, 4, 0, 28, "field mask is 0"},
		{"a frame size in a 2.x header", 32, 8, 8, 32, "frame size 8 in a version 2 header, which must be 0"},
		{"frame size over the cap", 32, 8, (1ull << 31) + 8, 32, "is larger than this reader accepts"},
		{"dt 0", 40, 8, 0, 40, "dt 0 is not a positive number"},
		{"dt -1", 40, 8, neg1, 40, "dt -1 is not a positive number"},
		{"dt inf", 40, 8, inf64, 40, "dt inf is not a positive number"},
		{"dt nan", 40, 8, nan64, 40, "is not a positive number"},
		{"every 0", 48, 4, 0, 48, "frame stride (every) is 0"},
		{"bounds mode 9", 52, 4, 9, 52, "bounds mode 9 is not 0 to 3"},
		{"bounds mode 4", 52, 4, 4, 52, "bounds mode 4 is not 0 to 3"},
		{"min x nan", 56, 4, 0x7fc00000u, 56, "world bounds are not finite (min x is nan)"},
		{"min y -inf", 60, 4, 0xff800000u, 56, "(min y is -inf)"},
		{"max x inf", 64, 4, 0x7f800000u, 56, "(max x is inf)"},
		{"max y nan", 68, 4, 0x7fc00000u, 56, "(max y is nan)"},
		{"field count 9", 80, 4, 9, 80, "field count 9 does not match the field mask 0x000000ff (8 bits)"},
		{"name longer than the header", 84, 4, 9, 84, "scenario name of 9 bytes does not fit a 96-byte header"},
	};
	for (size_t d = 0; d < sizeof table / sizeof table[0]; ++d) {
		const header_damage* t = &table[d];
		memcpy(b, orig, n);
		if (t->width == 4) {
			// name_bytes is a u16 followed by the reserved u16: write both
			put32(b + t->at, (uint32_t)t->value);
		} else {
			put64(b + t->at, t->value);
		}
		put32(b + 20, crc_zeroed(b, le32(orig + 16), 20)); // the checksum of the original header's extent
		for (int src = 0; src < SRC_COUNT; ++src) {
			uint32_t frames = 0;
			char msg[1024], want[64];
			throng_status st = read_source((source)src, b, n, dir, true, &frames, msg, sizeof msg);
			snprintf(want, sizeof want, "byte offset %zu: ", t->offset);
			cr_assert_eq(st, THRONG_ERR_CORRUPT, "%s, %s: status %d %s", t->name, source_name[src], (int)st, msg);
			cr_assert(strstr(msg, want) != NULL && strstr(msg, t->words) != NULL, "%s, %s: %s", t->name,
			          source_name[src], msg);
			cr_assert_eq(frames, 0);
		}
	}
	free(b);
	free(orig);
	// In a 1.x header (stream_before_zlib: 2 agents of x and y), agents and
	// the frame size size every frame: both are checked there.
	const header_damage v1[] = {
		{"1.x: agents 0", 24, 4, 0, 24, "agent count is 0"},
		{"1.x: frame size off by 8", 32, 8, 56, 32, "frame size 56, but 2 agents with 2 fields make 48"},
	};
	unsigned char old[sizeof stream_before_zlib];
	for (size_t d = 0; d < sizeof v1 / sizeof v1[0]; ++d) {
		memcpy(old, stream_before_zlib, sizeof old);
		if (v1[d].width == 4) {
			put32(old + v1[d].at, (uint32_t)v1[d].value);
		} else {
			put64(old + v1[d].at, v1[d].value);
		}
		put32(old + 20, crc_zeroed(old, le32(old + 16), 20));
		uint32_t frames = 0;
		bool complete = false;
		cr_assert_eq(read_all(old, sizeof old, true, &frames, &complete), THRONG_ERR_CORRUPT, "%s", v1[d].name);
		char want[64];
		snprintf(want, sizeof want, "byte offset %zu: ", v1[d].offset);
		cr_assert(strstr(throng_last_error(), want) != NULL && strstr(throng_last_error(), v1[d].words) != NULL,
		          "%s: %s", v1[d].name, throng_last_error());
	}
	rm_dir(dir);
}

Test(stream, non_finite_coordinates_are_refused_with_their_offset)
{
	char dir[256];
	make_dir(dir, sizeof dir);
	size_t n = 0;
	unsigned char* orig = small_stream(dir, &n);
	unsigned char* b = malloc(n);
	const size_t h = le32(orig + 16), fb = frame0_bytes(orig), at0 = data_at(5);
	const uint32_t bad[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0x7f800001u}; // nan, inf, -inf, a signalling nan
	const char* shown[] = {"nan", "inf", "-inf", "nan"};
	for (int field = 0; field < 6; ++field) {
		for (size_t v = 0; v < sizeof bad / sizeof bad[0]; ++v) {
			memcpy(b, orig, n);
			const uint32_t frame = 2, agent = (uint32_t)(field + v) % 5u;
			const size_t at = h + frame * fb + at0 + ((size_t)field * 5u + agent) * 4u;
			put32(b + at, bad[v]);
			put32(b + h + frame * fb + 4, crc_zeroed(b + h + frame * fb, fb, 4));
			char words[128];
			snprintf(words, sizeof words, "frame 2: agent %u's %s is %s", agent, throng_field_name(1u << field),
			         shown[v]);
			for (int src = 0; src < SRC_COUNT; ++src) {
				for (int verify = 0; verify < 2; ++verify) {
					uint32_t frames = 0;
					char msg[1024], want[64];
					throng_status st = read_source((source)src, b, n, dir, verify != 0, &frames, msg, sizeof msg);
					snprintf(want, sizeof want, "byte offset %zu: ", at);
					cr_assert_eq(st, THRONG_ERR_CORRUPT, "%s, %s: status %d", words, source_name[src], (int)st);
					cr_assert(strstr(msg, want) != NULL && strstr(msg, words) != NULL, "%s, %s: %s", words,
					          source_name[src], msg);
					cr_assert_eq(frames, 2, "the frames before the damaged one are read");
				}
			}
		}
	}
	// group and archetype are integers: any bits are a value.
	memcpy(b, orig, n);
	put32(b + h + fb + at0 + (6u * 5u + 1u) * 4u, 0x7fc00000u);
	put32(b + h + fb + at0 + (7u * 5u + 4u) * 4u, 0xffffffffu);
	put32(b + h + fb + 4, crc_zeroed(b + h + fb, fb, 4));
	uint32_t frames = 0;
	char msg[1024];
	cr_assert_eq(read_source(SRC_MEMORY, b, n, dir, true, &frames, msg, sizeof msg), THRONG_OK, "%s", msg);
	cr_assert_eq(frames, 4);
	free(b);
	free(orig);
	rm_dir(dir);
}

// ---------------------------------------------------------------------------
// Agents that come and go (issue 33): a churned run written as a binary
// stream reads back, by the C reader and by examples/read_stream.py (Python's
// struct and numpy, no throng code), as the world had it, frame by frame:
// the same count, the same ids and every field bit for bit.

static void write_frame(void* user, const throng_world* w)
{
	cr_assert_eq(throng_exporter_write(user, w), THRONG_OK, "%s", throng_last_error());
}

Test(stream, a_churned_run_reads_back_by_id)
{
	char path[256];
	tmp_path(path, sizeof path, "churn.thr");
	throng_export_def def = throng_export_default_def();
	def.fields = THRONG_FIELDS_ALL;
	throng_scene* scene = NULL;
	throng_exporter* ex = thr_test_circle_exporter(path, 120, def, &scene);
	thr_test_churn_truth t;
	thr_test_churned_run(scene, write_frame, ex, &t);
	cr_assert_eq(throng_exporter_finish(ex), THRONG_OK, "%s", throng_last_error());
	throng_exporter_destroy(ex);
	throng_scene_destroy(scene);

	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_stream_get_info(r)->agents, 120); // the agents it began with
	uint32_t lowest = UINT32_MAX, highest = 0, last_id = 0;
	for (uint32_t f = 0; f < t.frames; ++f) {
		const thr_test_frame_truth* want = &t.frame[f];
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		cr_assert(got, "frame %u missing", f);
		cr_assert_eq(fr.step, want->step);
		cr_assert_eq(fr.count, want->count, "frame %u: %u agents, the world had %u", f, fr.count, want->count);
		cr_assert(want->count == 0 || memcmp(fr.id, want->id, 4u * want->count) == 0, "frame %u: other ids", f);
		const float* fields[6] = {fr.x, fr.y, fr.vx, fr.vy, fr.hx, fr.hy};
		for (int k = 0; k < 6; ++k) {
			cr_assert(want->count == 0 || memcmp(fields[k], want->field[k], 4u * want->count) == 0,
			          "frame %u: field %s differs", f, throng_field_name(1u << k));
		}
		cr_assert(want->count == 0 || (memcmp(fr.group, want->group, 4u * want->count) == 0 &&
		                               memcmp(fr.archetype, want->archetype, 4u * want->count) == 0),
		          "frame %u: group or archetype differs", f);
		lowest = fr.count < lowest ? fr.count : lowest;
		highest = fr.count > highest ? fr.count : highest;
		last_id = fr.count > 0 ? fr.id[fr.count - 1] : last_id;
	}
	// The run did what it says: the count went down to 0 and up again, and
	// ids past the first 120 were written.
	cr_assert(lowest == 0 && highest > 120 && last_id >= 120, "counts %u to %u, last id %u", lowest, highest, last_id);
	throng_frame fr;
	bool got = true;
	cr_assert_eq(throng_stream_read_frame(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert_not(got);
	cr_assert(throng_stream_complete(r));
	throng_stream_reader_destroy(r);

	// The independent reader: every agent of every frame, its id and the
	// bits of its x and y.
	cr_assert(strlen(THRONG_PYTHON3) > 0, "no python3 with numpy: scripts/setup installs python3-numpy");
	static char out[1 << 20];
	char cmd[1024], err[4096];
	snprintf(cmd, sizeof cmd, "'%s' '%s/examples/read_stream.py' --agents '%s'", THRONG_PYTHON3, THRONG_SOURCE_DIR,
	         path);
	int rc = thr_test_run(cmd, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "read_stream.py: exit %d, %s", rc, err);
	const char* p = out;
	for (uint32_t f = 0; f < t.frames; ++f) {
		const thr_test_frame_truth* want = &t.frame[f];
		char line[128];
		snprintf(line, sizeof line, "frame %u step %llu count %u\n", f, (unsigned long long)want->step, want->count);
		cr_assert_eq(strncmp(p, line, strlen(line)), 0, "read_stream.py, frame %u: %.80s", f, p);
		p += strlen(line);
		for (uint32_t k = 0; k < want->count; ++k) {
			uint32_t xb, yb;
			memcpy(&xb, &want->field[0][k], 4);
			memcpy(&yb, &want->field[1][k], 4);
			snprintf(line, sizeof line, "%u %08x %08x\n", want->id[k], xb, yb);
			cr_assert_eq(strncmp(p, line, strlen(line)), 0, "read_stream.py, frame %u, agent %u: %.40s, want %s",
			             f, k, p, line);
			p += strlen(line);
		}
	}
	cr_assert_not_null(strstr(p, "frames 16 complete yes"), "%s", p);
	thr_test_churn_truth_free(&t);
	unlink(path);
}
