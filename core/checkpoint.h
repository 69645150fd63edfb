// SPDX-License-Identifier: MIT
// Checkpoints (private): the encoding both directions share.
//
// A checkpoint's small records (the def, the stats, a controller) are
// each one function that visits every field once, in order, and either
// emits it (writing) or takes it (reading): the writer and the reader
// cannot disagree on an order they share. The per-agent columns are bulk
// copies (checkpoint_restore.c reads them into the store's arrays).
#ifndef THRONG_CORE_CHECKPOINT_H
#define THRONG_CORE_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/checkpoint.h"

#define THR_CK_MAGIC "THRONGCK"
/// The layout this library writes and the newest it reads (docs/FORMAT.md,
/// "Checkpoints": any change to the layout is a new version).
#define THR_CK_VERSION 8u
#define THR_CK_HEADER_BYTES 32u
#define THR_CK_SECTION_BYTES 16u
#define THR_CK_CHECKSUM_BYTES 8u

/// A section's tag: its four ASCII letters, the first in the lowest byte.
#define THR_CK_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define THR_CK_WORLD THR_CK_TAG('W', 'R', 'L', 'D')
#define THR_CK_STATS THR_CK_TAG('S', 'T', 'A', 'T')
#define THR_CK_ARCHETYPES THR_CK_TAG('A', 'R', 'C', 'H')
#define THR_CK_PATHS THR_CK_TAG('P', 'A', 'T', 'H')
#define THR_CK_OBSTACLES THR_CK_TAG('O', 'B', 'S', 'T')
#define THR_CK_WALLS THR_CK_TAG('W', 'A', 'L', 'L')
#define THR_CK_AGENTS THR_CK_TAG('A', 'G', 'N', 'T')
#define THR_CK_FORCES THR_CK_TAG('F', 'R', 'C', 'E')
#define THR_CK_ZONES THR_CK_TAG('Z', 'O', 'N', 'E')
#define THR_CK_SOURCES THR_CK_TAG('S', 'R', 'C', 'E') ///< from version 2 (relative_target from 3, unit from 6)
#define THR_CK_MISSILES THR_CK_TAG('M', 'S', 'S', 'L') ///< from version 5
#define THR_CK_UNITS THR_CK_TAG('U', 'N', 'I', 'T')    ///< from version 6 (army_breaks_at from 7)
#define THR_CK_BODIES THR_CK_TAG('B', 'O', 'D', 'Y')   ///< from version 8
/// A body's record in the bodies section (thr_ck_body).
#define THR_CK_BODY_BYTES 52u

/// Per-agent columns of the agents section, 4 bytes an agent each (their
/// order: docs/FORMAT.md): 22 from version 6 (unit), 21 from version 4
/// (health and ready), 19 before.
#define THR_CK_AGENT_COLUMNS 22u
#define THR_CK_AGENT_COLUMNS_V4 21u
#define THR_CK_AGENT_COLUMNS_V3 19u

/// A unit's record in the units section (thr_ck_unit): its def, then its
/// state, whose fields start at these offsets from the record's start.
enum {
	THR_CK_UNIT_COUNT = 88, ///< the def before it: 3 u32, a flag, 2 + 8 f32, a u32; the formation (2 u32,
	                        ///< 4 f32) and the march archetype
	THR_CK_UNIT_RALLIES_LEFT = 100,
	THR_CK_UNIT_QUIET = 104,
	THR_CK_UNIT_BASE = 112,
	THR_CK_UNIT_SHOCK = 116,
	THR_CK_UNIT_MORALE = 120,
	THR_CK_UNIT_ROUTED_STEP = 124,
	THR_CK_UNIT_CENTRE = 132,
	THR_CK_UNIT_FACING = 140,
	THR_CK_UNIT_REFUGE = 148,
	THR_CK_UNIT_ORDER = 156,   ///< the order's kind, then its point
	THR_CK_UNIT_CHARGING = 168,
	THR_CK_UNIT_ANCHOR = 176,  ///< then the heading
	THR_CK_UNIT_HEADING = 184,
	THR_CK_UNIT_ARMY_BREAKS_AT = 192, ///< from version 7: its morale's army_breaks_at, then killed (u32)
	THR_CK_UNIT_BYTES = 200,
	THR_CK_UNIT_BYTES_V6 = 192
};

/// One direction of a checkpoint's bytes. Writing: `emit` takes each run
/// of bytes in order (counting, copying or writing them). Reading: the
/// bytes are data[0, size), taken from pos; a read past `end` (the
/// current section's end) fails.
typedef struct thr_ck_io {
	void (*emit)(struct thr_ck_io* io, const void* bytes, size_t n); ///< NULL when reading
	void* sink;          ///< the emitter's own
	const uint8_t* data; ///< reading: the whole checkpoint
	size_t size, pos, end;
	const char* name;  ///< the path, or "checkpoint in memory", for messages
	throng_status st;  ///< the first failure; every call after one does nothing
} thr_ck_io;

/// Fails `io` (the first failure is kept) with THRONG_ERR_CORRUPT and
/// "NAME: byte offset OFF: what".
void thr_ck_corrupt(thr_ck_io* io, size_t off, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/// n little-endian bytes of v into b, and back.
static inline void thr_ck_put_le(uint8_t* b, uint64_t v, int n)
{
	for (int k = 0; k < n; ++k) {
		b[k] = (uint8_t)(v >> (8 * k));
	}
}

static inline uint64_t thr_ck_get_le(const uint8_t* b, int n)
{
	uint64_t v = 0;
	for (int k = 0; k < n; ++k) {
		v |= (uint64_t)b[k] << (8 * k);
	}
	return v;
}

/// A checkpoint's header into h: magic (8 bytes), format version, the
/// writing library's version, the section count and the total size
/// (docs/FORMAT.md, "Checkpoints"; scene checkpoints share it).
static inline void thr_ck_header(uint8_t h[THR_CK_HEADER_BYTES], const char* magic, uint32_t version,
                                 uint32_t sections, uint64_t total)
{
	for (int k = 0; k < (int)THR_CK_HEADER_BYTES; ++k) {
		h[k] = k < 8 ? (uint8_t)magic[k] : 0u;
	}
	thr_ck_put_le(h + 8, version, 4);
	thr_ck_put_le(h + 12, THRONG_VERSION_MAJOR, 2);
	thr_ck_put_le(h + 14, THRONG_VERSION_MINOR, 2);
	thr_ck_put_le(h + 16, THRONG_VERSION_PATCH, 2);
	thr_ck_put_le(h + 20, sections, 4);
	thr_ck_put_le(h + 24, total, 8);
}

// Fields, emitted or taken (little-endian). A bool is a u32, 0 or 1.
void thr_ck_u32(thr_ck_io* io, uint32_t* v);
void thr_ck_u64(thr_ck_io* io, uint64_t* v);
void thr_ck_f32(thr_ck_io* io, float* v);
void thr_ck_bool(thr_ck_io* io, bool* v);

/// Reading: the next n bytes of the current section, or NULL (io failed:
/// the section ends first).
const uint8_t* thr_ck_take(thr_ck_io* io, size_t n);

/// Reading: n little-endian 4-byte values into dst.
void thr_ck_column(thr_ck_io* io, void* dst, size_t n);

/// Records, every field in order.
void thr_ck_def(thr_ck_io* io, throng_world_def* d);
void thr_ck_stats(thr_ck_io* io, throng_world_stats* s);
struct thr_missile;
/// A missile in flight (combat.h): shot, land (u64), target, shooter (u32), x, y, damage (f32).
void thr_ck_missile(thr_ck_io* io, struct thr_missile* m);
/// A body (throng_body): position x, y, facing x, y, radius (f32), agent,
/// killer, group, archetype, unit, obstacle (u32), step (u64).
void thr_ck_body(thr_ck_io* io, throng_body* b);
struct thr_unit;
/// A unit (units.h): its def (archetype, rout_archetype, army, has_refuge,
/// refuge x, y, every morale field in the header's order), then its state
/// (count, most, start, rallies_left, quiet, routing, base, shock, morale,
/// routed_step (u64), centre, facing, refuge x, y); not its step scratch.
void thr_ck_unit(thr_ck_io* io, struct thr_unit* u, uint32_t version);
/// A controller as format `version` has it (combat from version 4, its
/// missile_speed and spread from 5, its body_radius from 8; before, off
/// and 0).
void thr_ck_controller(thr_ck_io* io, throng_controller* c, uint32_t version);
/// A source's def (its agent's position and target_agent are not kept:
/// the source draws the one, the other is always none) as format
/// `version` has it (relative_target from version 3; before, false; its
/// agent's unit from version 6, last; before, left as it is).
void thr_ck_source(thr_ck_io* io, throng_source_def* d, uint32_t version);
/// A zone's or a source's name: 32 bytes as 8 little-endian words.
void thr_ck_name(thr_ck_io* io, char name[32]);

/// Reading: takes a section's header, which must carry `tag`, and sets
/// io->end to its body's end. Returns false (io failed) otherwise.
bool thr_ck_open_section(thr_ck_io* io, uint32_t tag);

/// Reading: the section's body must end here; moves past its padding.
void thr_ck_close_section(thr_ck_io* io);

/// Makes a world from a checkpoint whose header and checksum have been
/// checked (io->pos at the first section). On failure *out is NULL and
/// io->st (or the returned status) says why.
throng_status thr_ck_restore(thr_ck_io* io, throng_world** out);

#endif
