// SPDX-License-Identifier: MIT
// Checkpoints: the writer, and the reader's checks of the whole file (its
// header, size and checksum). checkpoint_codec.c holds the fields and
// records both directions share; checkpoint_restore.c makes the world
// from the sections.
//
// Design. A checkpoint is what the next step reads and nothing else: the
// current state buffer (a step writes every field of the other before
// reading it), the single arrays, the world's tables. The agents are kept
// in their storage order, so that an engine that does not sort (the
// scalar reference, whose slots stay in id order) sees the same slots; a
// sorting engine re-sorts by cell and id at its next step anyway. The
// layout is little-endian sections behind a fixed header, with an XXH3-64
// of everything before it at the end: the reader checks the header, the
// size and the checksum before it reads a section, so damage anywhere is
// refused whole before a world exists, and a checkpoint whose checksum
// holds (a crafted one) is still checked field by field. The writer emits
// the same bytes to a counter (the size), a caller's buffer or a file, in
// one pass that allocates nothing but the file's chunk.
#define _GNU_SOURCE // O_CLOEXEC, MAP_POPULATE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "combat.h"
#include "checkpoint.h"
#include "error.h"
#include "events.h"
#include "part.h"
#include "sources.h"
#include "throng/file.h"
#include "units.h"
#include "world_internal.h"

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Where the emitted bytes go: counted only, into a caller's buffer, or
/// through a chunk to a file; all hashed as they pass.
typedef struct ck_sink {
	size_t pos;     ///< bytes emitted so far
	uint8_t* buf;   ///< memory: the caller's buffer (NULL when counting or to a file)
	size_t cap;
	throng_output_file* file; ///< file: written through chunk
	uint8_t* chunk;
	size_t used;
	bool hashing;
	XXH3_state_t hash;
} ck_sink;

#define CK_CHUNK ((size_t)1 << 20)

static void flush(thr_ck_io* io, ck_sink* s)
{
	if (io->st == THRONG_OK && s->used > 0) {
		io->st = throng_output_file_write(s->file, s->chunk, s->used);
	}
	s->used = 0;
}

static void emit(thr_ck_io* io, const void* bytes, size_t n)
{
	ck_sink* s = io->sink;
	if (io->st != THRONG_OK) {
		return;
	}
	if (s->hashing) {
		XXH3_64bits_update(&s->hash, bytes, n);
	}
	if (s->buf != NULL) {
		memcpy(s->buf + s->pos, bytes, n); // the size was counted first: it fits
	} else if (s->file != NULL) {
		if (s->used + n > CK_CHUNK) {
			flush(io, s);
		}
		if (n >= CK_CHUNK) {
			if (io->st == THRONG_OK) {
				io->st = throng_output_file_write(s->file, bytes, n);
			}
		} else {
			memcpy(s->chunk + s->used, bytes, n);
			s->used += n;
		}
	}
	s->pos += n;
}

/// A column of n 4-byte values, little-endian.
static void emit_column(thr_ck_io* io, const void* a, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	io->emit(io, a, n * 4u);
#else
	const uint32_t* u = a;
	for (size_t k = 0; k < n; ++k) {
		uint32_t v = u[k];
		thr_ck_u32(io, &v);
	}
#endif
}

/// A column that may not exist (the waypoints before the first path): zeros.
/// Column a, or (NULL: a world without paths or units) n values that are
/// all `fill`.
static void emit_column_or_fill(thr_ck_io* io, const uint32_t* a, size_t n, uint32_t fill)
{
	if (a != NULL) {
		emit_column(io, a, n);
		return;
	}
	uint32_t same[256];
	for (size_t k = 0; k < 256u; ++k) {
		same[k] = fill;
	}
	for (size_t k = 0; k < n; k += 256u) {
		emit_column(io, same, n - k < 256u ? n - k : 256u);
	}
}

/// A section: its header (tag, 0, body bytes, counted by a dry run of
/// `body`), the body, zeros to a multiple of 8.
static void section(thr_ck_io* io, uint32_t tag, void (*body)(thr_ck_io*, const throng_world*), const throng_world* w)
{
	ck_sink count = {0};
	thr_ck_io dry = {emit, &count, NULL, 0, 0, 0, io->name, THRONG_OK};
	body(&dry, w);
	uint32_t reserved = 0;
	uint64_t bytes = count.pos;
	thr_ck_u32(io, &tag);
	thr_ck_u32(io, &reserved);
	thr_ck_u64(io, &bytes);
	body(io, w);
	static const uint8_t zeros[8];
	io->emit(io, zeros, (8u - bytes % 8u) % 8u);
}

static void world_body(thr_ck_io* io, const throng_world* w)
{
	throng_world_def d = w->def;
	thr_ck_def(io, &d);
	uint64_t step = w->step;
	uint32_t count = w->count, id_end = thr_id_end(w), counting = w->counting;
	float r = w->max_radius;
	throng_vec2 p = w->threat_p, v = w->threat_v;
	bool active = w->threat_active;
	thr_ck_u64(io, &step);
	thr_ck_u32(io, &count);
	thr_ck_u32(io, &id_end);
	thr_ck_f32(io, &r);
	thr_ck_f32(io, &p.x);
	thr_ck_f32(io, &p.y);
	thr_ck_f32(io, &v.x);
	thr_ck_f32(io, &v.y);
	thr_ck_bool(io, &active);
	thr_ck_u32(io, &counting);
}

static void stats_body(thr_ck_io* io, const throng_world* w)
{
	throng_world_stats s = w->stats;
	thr_ck_stats(io, &s);
}

static void archetypes_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->archetype_count;
	thr_ck_u32(io, &n);
	for (uint32_t a = 0; a < n; ++a) {
		throng_controller c = w->archetypes[a];
		thr_ck_controller(io, &c, THR_CK_VERSION);
	}
}

static void units_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->unit_count;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		thr_unit u = w->units[k];
		thr_ck_unit(io, &u, THR_CK_VERSION);
	}
}

static void paths_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->path_count;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		thr_path p = w->paths[k];
		bool loop = p.loop;
		thr_ck_u32(io, &p.count);
		thr_ck_bool(io, &loop);
		emit_column(io, w->waypoints + p.first, 2u * (size_t)p.count);
	}
}

static void obstacles_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->obstacle_count;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		thr_obstacle o = w->obstacles[k];
		thr_ck_f32(io, &o.c.x);
		thr_ck_f32(io, &o.c.y);
		thr_ck_f32(io, &o.r);
	}
}

static void walls_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->wall_count;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		thr_wall l = w->walls[k];
		thr_ck_f32(io, &l.a.x);
		thr_ck_f32(io, &l.a.y);
		thr_ck_f32(io, &l.b.x);
		thr_ck_f32(io, &l.b.y);
	}
}

static void zones_body(thr_ck_io* io, const throng_world* w)
{
	float radius = w->arrival_radius;
	uint32_t n = w->zone_count;
	thr_ck_f32(io, &radius);
	thr_ck_u32(io, &n);
	throng_vec2* points = malloc((size_t)THRONG_MAX_WAYPOINTS * sizeof *points);
	if (points == NULL) {
		io->st = THRONG_ERR_OUT_OF_MEMORY;
		return;
	}
	for (uint32_t z = 0; z < n; ++z) {
		throng_zone_def d = thr_zone_get(w, z, points);
		uint32_t shape = (uint32_t)d.shape;
		thr_ck_u32(io, &shape);
		thr_ck_bool(io, &d.sink);
		thr_ck_name(io, d.name);
		if (d.shape == THRONG_ZONE_CIRCLE) {
			thr_ck_f32(io, &d.center.x);
			thr_ck_f32(io, &d.center.y);
			thr_ck_f32(io, &d.radius);
		} else if (d.shape == THRONG_ZONE_BOX) {
			thr_ck_f32(io, &d.min.x);
			thr_ck_f32(io, &d.min.y);
			thr_ck_f32(io, &d.max.x);
			thr_ck_f32(io, &d.max.y);
		} else {
			thr_ck_u32(io, &d.point_count);
			emit_column(io, points, 2u * (size_t)d.point_count);
		}
	}
	free(points);
	// Which zones each id was in after the last step (0 for all when the
	// world tracks none).
	uint32_t ids = w->inside != NULL ? thr_id_end(w) : 0u;
	thr_ck_u32(io, &ids);
	for (uint32_t id = 0; id < ids; ++id) {
		uint64_t bits = w->inside[id];
		thr_ck_u64(io, &bits);
	}
}

static void sources_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->source_count;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		throng_source_def d;
		uint64_t added = 0, waited = 0;
		throng_world_get_source(w, k, &d, NULL);
		thr_source_progress(w, k, &added, &waited);
		thr_ck_source(io, &d, THR_CK_VERSION);
		thr_ck_u64(io, &added);
		thr_ck_u64(io, &waited);
	}
}

static void agents_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t count = w->count, columns = THR_CK_AGENT_COLUMNS;
	thr_ck_u32(io, &count);
	thr_ck_u32(io, &columns);
	const thr_state* s = thr_cur_c(w);
	// The order of docs/FORMAT.md, "Checkpoints".
	const void* const col[THR_CK_AGENT_COLUMNS] = {w->id,        s->px,       s->py,     s->vx,        s->vy,
	                                               s->hx,        s->hy,       w->wander, w->noise,     NULL,
	                                               w->max_speed, w->max_force, w->radius, w->archetype, w->group,
	                                               w->target_agent, w->path,   w->tx,     w->ty,        w->health,
	                                               w->ready,     w->unit};
	for (uint32_t k = 0; k < THR_CK_AGENT_COLUMNS; ++k) {
		if (k == 9) {
			emit_column_or_fill(io, s->waypoint, count, 0u);
		} else if (k == 16) {
			emit_column_or_fill(io, w->path, count, THRONG_NO_PATH);
		} else if (k == 21) {
			emit_column_or_fill(io, w->unit, count, THRONG_NO_UNIT);
		} else if (k == 15) {
			emit_column_or_fill(io, w->target_agent, count, THRONG_NO_AGENT);
		} else {
			emit_column(io, col[k], count);
		}
	}
}

static void missiles_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->missile_n;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		thr_missile m = w->missiles[k];
		thr_ck_missile(io, &m);
	}
}

static void bodies_body(thr_ck_io* io, const throng_world* w)
{
	uint32_t n = w->body_n;
	thr_ck_u32(io, &n);
	for (uint32_t k = 0; k < n; ++k) {
		throng_body b = w->bodies[k];
		thr_ck_body(io, &b);
	}
}

static void forces_body(thr_ck_io* io, const throng_world* w)
{
	emit_column(io, w->total_x, w->count);
	emit_column(io, w->total_y, w->count);
	for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
		emit_column(io, w->force_x + thr_force_index(w, k, 0), w->count);
		emit_column(io, w->force_y + thr_force_index(w, k, 0), w->count);
	}
}

/// Emits w's checkpoint whole: header, sections, checksum.
static void emit_checkpoint(thr_ck_io* io, const throng_world* w, size_t total)
{
	ck_sink* s = io->sink;
	uint8_t h[THR_CK_HEADER_BYTES];
	thr_ck_header(h, THR_CK_MAGIC, THR_CK_VERSION, w->def.record_forces ? 13u : 12u, total);
	io->emit(io, h, sizeof h);
	section(io, THR_CK_WORLD, world_body, w);
	section(io, THR_CK_STATS, stats_body, w);
	section(io, THR_CK_ARCHETYPES, archetypes_body, w);
	section(io, THR_CK_UNITS, units_body, w);
	section(io, THR_CK_PATHS, paths_body, w);
	section(io, THR_CK_OBSTACLES, obstacles_body, w);
	section(io, THR_CK_WALLS, walls_body, w);
	section(io, THR_CK_ZONES, zones_body, w);
	section(io, THR_CK_SOURCES, sources_body, w);
	section(io, THR_CK_AGENTS, agents_body, w);
	section(io, THR_CK_MISSILES, missiles_body, w);
	section(io, THR_CK_BODIES, bodies_body, w);
	if (w->def.record_forces) {
		section(io, THR_CK_FORCES, forces_body, w);
	}
	uint64_t sum = s->hashing ? XXH3_64bits_digest(&s->hash) : 0u;
	s->hashing = false;
	thr_ck_u64(io, &sum);
}

/// Checks w for a checkpoint and counts its bytes into *total.
static throng_status measure(const throng_world* w, const char* fn, size_t* total)
{
	throng_status st = thr_check_world(w, fn);
	if (st != THRONG_OK) {
		return st;
	}
	if (w->part != NULL && !thr_part_holds_whole(w)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: the world is a part of a larger one; checkpoint the whole world (or a part that holds "
		                "every agent of it, none a ghost)",
		                fn);
	}
	ck_sink count = {0};
	thr_ck_io io = {emit, &count, NULL, 0, 0, 0, fn, THRONG_OK};
	emit_checkpoint(&io, w, 0);
	*total = count.pos;
	return THRONG_OK;
}

throng_status throng_world_checkpoint_size(const throng_world* w, size_t* bytes)
{
	static const char fn[] = "throng_world_checkpoint_size";
	if (bytes == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: bytes is NULL", fn);
	}
	return measure(w, fn, bytes);
}

throng_status throng_world_write_checkpoint(const throng_world* w, void* buf, size_t cap, size_t* written)
{
	static const char fn[] = "throng_world_write_checkpoint";
	if (written == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: written is NULL", fn);
	}
	size_t total = 0;
	throng_status st = measure(w, fn, &total);
	if (st != THRONG_OK) {
		return st;
	}
	*written = total;
	if (buf == NULL) {
		return THRONG_OK;
	}
	if (cap < total) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: cap: the checkpoint needs %zu bytes (got %zu)", fn, total,
		                cap);
	}
	ck_sink s = {0};
	s.buf = buf;
	s.cap = cap;
	s.hashing = true;
	XXH3_INITSTATE(&s.hash);
	XXH3_64bits_reset(&s.hash);
	thr_ck_io io = {emit, &s, NULL, 0, 0, 0, fn, THRONG_OK};
	emit_checkpoint(&io, w, total);
	return io.st;
}

throng_status throng_world_save_checkpoint(const throng_world* w, const char* path)
{
	static const char fn[] = "throng_world_save_checkpoint";
	if (path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: path is NULL", fn);
	}
	size_t total = 0;
	throng_status st = measure(w, fn, &total);
	if (st != THRONG_OK) {
		return st;
	}
	ck_sink s = {0};
	s.chunk = malloc(CK_CHUNK);
	if (s.chunk == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
	}
	st = throng_output_file_open(path, &s.file);
	if (st == THRONG_OK) {
		s.hashing = true;
		XXH3_INITSTATE(&s.hash);
		XXH3_64bits_reset(&s.hash);
		thr_ck_io io = {emit, &s, NULL, 0, 0, 0, path, THRONG_OK};
		emit_checkpoint(&io, w, total);
		flush(&io, &s);
		st = io.st;
	}
	if (st == THRONG_OK) {
		st = throng_output_file_commit(s.file);
	}
	throng_output_file_destroy(s.file); // after a failure: removes the temporary, never the path
	free(s.chunk);
	return st;
}

// ---------------------------------------------------------------------------
// Reading: the whole file's checks, then checkpoint_restore.c.
// ---------------------------------------------------------------------------

/// Checks the header, the size and the checksum of data[0, size) and makes
/// the world from its sections.
static throng_status read_checkpoint(const uint8_t* data, size_t size, const char* name, throng_world** out)
{
	thr_ck_io io = {NULL, NULL, data, size, 0, size, name, THRONG_OK};
	if (size == 0) {
		thr_ck_corrupt(&io, 0, "empty (0 bytes), not a checkpoint");
		return io.st;
	}
	if (size < THR_CK_HEADER_BYTES) {
		if (size >= 8 && memcmp(data, THR_CK_MAGIC, 8) != 0) {
			thr_ck_corrupt(&io, 0, "not a throng checkpoint (no \"%s\" magic)", THR_CK_MAGIC);
		} else {
			thr_ck_corrupt(&io, size, "truncated at byte %zu, inside the %u-byte header", size, THR_CK_HEADER_BYTES);
		}
		return io.st;
	}
	if (memcmp(data, THR_CK_MAGIC, 8) != 0) {
		thr_ck_corrupt(&io, 0, "not a throng checkpoint (no \"%s\" magic)", THR_CK_MAGIC);
		return io.st;
	}
	const uint32_t version = (uint32_t)thr_ck_get_le(data + 8, 4);
	if (version > THR_CK_VERSION) {
		thr_ck_corrupt(&io, 8,
		               "format version %u, newer than this library reads (up to %u; written by throng %u.%u.%u)",
		               version, THR_CK_VERSION, (unsigned)thr_ck_get_le(data + 12, 2), (unsigned)thr_ck_get_le(data + 14, 2),
		               (unsigned)thr_ck_get_le(data + 16, 2));
		return io.st;
	}
	if (version == 0) {
		thr_ck_corrupt(&io, 8, "format version 0 does not exist");
		return io.st;
	}
	const uint64_t total = thr_ck_get_le(data + 24, 8);
	if (total > size) {
		thr_ck_corrupt(&io, size, "truncated at byte %zu (the header says %llu bytes)", size,
		               (unsigned long long)total);
		return io.st;
	}
	if (total < size) {
		thr_ck_corrupt(&io, (size_t)total, "%zu bytes after the checkpoint's end (the header says %llu bytes)",
		               size - (size_t)total, (unsigned long long)total);
		return io.st;
	}
	if (size < THR_CK_HEADER_BYTES + THR_CK_CHECKSUM_BYTES) {
		thr_ck_corrupt(&io, size, "%zu bytes: too short for a header and a checksum", size);
		return io.st;
	}
	const uint64_t stored = thr_ck_get_le(data + size - THR_CK_CHECKSUM_BYTES, 8);
	const uint64_t sum = XXH3_64bits(data, size - THR_CK_CHECKSUM_BYTES);
	if (stored != sum) {
		thr_ck_corrupt(&io, size - THR_CK_CHECKSUM_BYTES,
		               "checksum mismatch (stored 0x%016llx, the bytes give 0x%016llx): the checkpoint is damaged",
		               (unsigned long long)stored, (unsigned long long)sum);
		return io.st;
	}
	io.pos = THR_CK_HEADER_BYTES;
	return thr_ck_restore(&io, out);
}

throng_status throng_world_read_checkpoint(const void* buf, size_t bytes, throng_world** out)
{
	static const char fn[] = "throng_world_read_checkpoint";
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
	}
	*out = NULL;
	if (buf == NULL && bytes > 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: buf is NULL", fn);
	}
	static const uint8_t none[1];
	return read_checkpoint(buf != NULL ? buf : none, bytes, "checkpoint in memory", out);
}

/// The whole of fd into *data (malloc'd) and *size. Returns an errno, 0 when read.
static int read_all(int fd, uint8_t** data, size_t* size)
{
	struct stat sb;
	size_t cap = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1u : (size_t)1 << 16;
	size_t used = 0;
	uint8_t* p = malloc(cap);
	if (p == NULL) {
		return ENOMEM;
	}
	for (;;) {
		if (used == cap) {
			uint8_t* q = cap <= SIZE_MAX / 2u ? realloc(p, cap * 2u) : NULL;
			if (q == NULL) {
				free(p);
				return ENOMEM;
			}
			p = q;
			cap *= 2u;
		}
		ssize_t n = read(fd, p + used, cap - used);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			const int e = errno;
			free(p);
			return e;
		}
		if (n == 0) {
			break;
		}
		used += (size_t)n;
	}
	*data = p;
	*size = used;
	return 0;
}

throng_status throng_world_load_checkpoint(const char* path, throng_world** out)
{
	static const char fn[] = "throng_world_load_checkpoint";
	if (out == NULL || path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, out == NULL ? "out" : "path");
	}
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return thr_fail(THRONG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	// A regular file is mapped (no copy, and its pages come from the page
	// cache: at 10^6 agents reading it into a buffer of its own cost about
	// as much again as making the world); anything else is read.
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 && (uint64_t)sb.st_size <= SIZE_MAX) {
		const size_t size = (size_t)sb.st_size;
		void* map = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		close(fd);
		if (map == MAP_FAILED) {
			return thr_fail(THRONG_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
		}
		throng_status st = read_checkpoint(map, size, path, out);
		munmap(map, size);
		return st;
	}
	uint8_t* data = NULL;
	size_t size = 0;
	const int e = read_all(fd, &data, &size);
	close(fd);
	if (e == ENOMEM) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory to read the checkpoint", path);
	}
	if (e != 0) {
		return thr_fail(THRONG_ERR_IO, "%s: cannot read: %s", path, strerror(e));
	}
	throng_status st = read_checkpoint(data, size, path, out);
	free(data);
	return st;
}
