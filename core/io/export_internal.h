// SPDX-License-Identifier: MIT
// Shared by the exporters, the stream reader and the live feed (private).
//
// The binary stream's layout (docs/FORMAT.md) is spelled out here once as
// offsets, so the writer and the reader cannot disagree. Everything on disk
// is little-endian; the helpers below store and load it byte by byte, which
// compilers turn into plain moves on little-endian machines.
#ifndef THRONG_CORE_EXPORT_INTERNAL_H
#define THRONG_CORE_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "throng/export.h"

// --- binary stream, versions 1.0 and 2.0 -------------------------------------
// Writers write 2.0 (frames that carry their own agent count, size and
// ids), or 2.1 when a frame holds a field of 2.1 (health, combat_state); the reader
// reads every 1.x and 2.x. The header is the same in both but for two
// fields' meaning: a 1.x header's agents and frame_bytes size every frame,
// a 2.x header's agents is the count when the stream began and its
// frame_bytes is 0 (each frame gives its own).
#define THR_STREAM_MAGIC "\x89THRONG\n" ///< 8 bytes at offset 0
#define THR_STREAM_MAJOR 2u
#define THR_STREAM_MINOR 0u
#define THR_STREAM_MINOR_2_1 1u ///< the minor version of a stream with a field of THRONG_FIELDS_2_1
#define THR_STREAM_MAJOR_V1 1u
#define THR_BYTE_ORDER_MARK 0x01020304u

// Header field offsets.
enum {
	THR_H_MAGIC = 0,
	THR_H_MAJOR = 8,
	THR_H_MINOR = 10,
	THR_H_BOM = 12,
	THR_H_HEADER_BYTES = 16,
	THR_H_CRC = 20,
	THR_H_AGENTS = 24,
	THR_H_FIELDS = 28,
	THR_H_FRAME_BYTES = 32,
	THR_H_DT = 40,
	THR_H_EVERY = 48,
	THR_H_BOUNDS_MODE = 52,
	THR_H_BOUNDS = 56, ///< min x, min y, max x, max y (f32)
	THR_H_SEED = 72,
	THR_H_FIELD_COUNT = 80,
	THR_H_NAME_BYTES = 84,
	THR_H_RESERVED = 86,
	THR_H_NAME = 88,
	THR_H_FIXED = 88, ///< bytes before the name
};

/// Largest header a reader accepts (a 1.x header may grow, never past this).
#define THR_STREAM_MAX_HEADER 65536u

// Frame and end record.
#define THR_FRAME_MARKER "FRAM"
#define THR_END_MARKER "END!"
enum {
	THR_F_MARKER = 0,
	THR_F_CRC = 4,
	THR_F_INDEX = 8,
	THR_F_STEP = 16,
	THR_F_TIME = 24,
	THR_F_DATA = 32,        ///< 1.x: the field arrays
	THR_F2_BYTES = 32,      ///< 2.x: u64, this frame's size
	THR_F2_COUNT = 40,      ///< 2.x: u32, agents in this frame
	THR_F2_RESERVED = 44,   ///< 2.x: u32, 0
	THR_F2_IDS = 48,        ///< 2.x: count u32 ids, strictly increasing, then the field arrays
	THR_END_BYTES = 16, ///< marker, crc, frame count (u56) and flags (u8)
	THR_END_FLAGS = 15, ///< the flags byte: the top byte of the u64 at offset 8
};

/// End-record flag: the run was interrupted (a signal) before its planned
/// end. The other bits of the flags byte are zero.
#define THR_END_INTERRUPTED 0x01u
/// Frames the end record can count: the low 56 bits of its u64.
#define THR_END_FRAMES_MASK ((UINT64_C(1) << 56) - 1u)

/// Bytes of one 1.x frame: the 32-byte frame header plus `fields` arrays of
/// 4 * agents bytes, padded to a multiple of 8.
static inline uint64_t thr_frame_bytes(uint32_t agents, uint32_t field_count)
{
	uint64_t raw = (uint64_t)THR_F_DATA + 4u * (uint64_t)agents * field_count;
	return (raw + 7u) & ~(uint64_t)7u;
}

/// Bytes of one 2.x frame of `count` agents: the 48-byte frame header, the
/// ids and `field_count` arrays, 4 * count bytes each, padded to 8.
static inline uint64_t thr_frame2_bytes(uint32_t count, uint32_t field_count)
{
	uint64_t raw = (uint64_t)THR_F2_IDS + 4u * (uint64_t)count * (1u + (uint64_t)field_count);
	return (raw + 7u) & ~(uint64_t)7u;
}

// --- what readers check (stream_read.c) ---------------------------------------
// The binary stream's header and the live feed's header hold their shared
// fields at the same offsets (the THR_H_* above: agents 24, field mask 28,
// frame or slot size 32, dt 40, every 48, bounds mode 52, bounds 56, field
// count 80), so both readers check them with one function and name the
// same byte offset for the same fault.

/// Largest frame (binary stream) or slot (live feed) a reader accepts and
/// a writer makes (THRONG_STREAM_MAX_FRAME, 2 GiB). Checked before anything
/// is allocated (docs/FORMAT.md, "What a reader checks").
#define THR_READ_MAX_FRAME THRONG_STREAM_MAX_FRAME

/// The fields both headers share, as read (host values).
typedef struct thr_header_fields {
	uint32_t agents;      ///< THR_H_AGENTS: >= 1 (0 too when agents_may_be_0)
	bool agents_may_be_0; ///< a 2.x stream's agents is the count it began with, which may be 0
	uint32_t field_mask;  ///< THR_H_FIELDS: != 0
	uint32_t field_count; ///< THR_H_FIELD_COUNT: the bits set in field_mask
	uint64_t frame_bytes; ///< THR_H_FRAME_BYTES: stream frame or feed slot, <= THR_READ_MAX_FRAME
	const char* frame_what; ///< what frame_bytes is called in messages ("frame size", "slot size")
	double dt;            ///< THR_H_DT: positive and finite
	uint32_t every;       ///< THR_H_EVERY: >= 1
	uint32_t bounds_mode; ///< THR_H_BOUNDS_MODE: a throng_bounds_mode, 0 to 3
	float bounds[4];      ///< THR_H_BOUNDS: finite
} thr_header_fields;

/// Checks the shared header fields. Returns true when every one holds;
/// otherwise false, *offset = the byte offset of the first that does not
/// and `what` = which field and why ("frame stride (every) is 0").
/// Each format checks its own fields (sizes, names, slots) itself.
bool thr_header_check(const thr_header_fields* h, uint32_t* offset, char* what, size_t what_cap);

/// Whether field bit `bit` holds floats (x .. hy, health), which must be
/// finite, rather than uint32s (group, archetype, combat_state).
static inline bool thr_field_is_float(int bit)
{
	return (bit >= 0 && bit < 6) || bit == 8;
}

/// Name of float field bit `bit` (0 x .. 5 hy, 8 health), for messages.
static inline const char* thr_float_field_name(int bit)
{
	static const char* const names[9] = {"x", "y", "vx", "vy", "hx", "hy", "?", "?", "health"};
	return thr_field_is_float(bit) ? names[bit] : "?";
}

/// Index of the first non-finite value of a[0..n) (raw float bits), or n.
size_t thr_first_nonfinite(const void* a, size_t n);

static inline uint32_t thr_popcount32(uint32_t v)
{
	uint32_t n = 0;
	for (; v != 0; v &= v - 1u) {
		++n;
	}
	return n;
}

// --- little-endian stores and loads ------------------------------------------
static inline void thr_put_u16(unsigned char* p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}
static inline void thr_put_u32(unsigned char* p, uint32_t v)
{
	for (int k = 0; k < 4; ++k) {
		p[k] = (unsigned char)(v >> (8 * k));
	}
}
static inline void thr_put_u64(unsigned char* p, uint64_t v)
{
	for (int k = 0; k < 8; ++k) {
		p[k] = (unsigned char)(v >> (8 * k));
	}
}
static inline void thr_put_f32(unsigned char* p, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	thr_put_u32(p, u);
}
static inline void thr_put_f64(unsigned char* p, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	thr_put_u64(p, u);
}
static inline uint16_t thr_get_u16(const unsigned char* p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t thr_get_u32(const unsigned char* p)
{
	uint32_t v = 0;
	for (int k = 3; k >= 0; --k) {
		v = (v << 8) | p[k];
	}
	return v;
}
static inline uint64_t thr_get_u64(const unsigned char* p)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; --k) {
		v = (v << 8) | p[k];
	}
	return v;
}
static inline float thr_get_f32(const unsigned char* p)
{
	uint32_t u = thr_get_u32(p);
	float v;
	memcpy(&v, &u, 4);
	return v;
}
static inline double thr_get_f64(const unsigned char* p)
{
	uint64_t u = thr_get_u64(p);
	double v;
	memcpy(&v, &u, 8);
	return v;
}

/// True on a little-endian host, where arrays go to disk as they are.
static inline bool thr_host_is_le(void)
{
	const uint32_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

/// Reverses the bytes of n 4-byte elements in place (big-endian hosts).
/// stream_read.c.
void thr_swap32(void* data, size_t n);

// --- CRC-32 ----------------------------------------------------------------------
/// The stream's CRC-32 (docs/FORMAT.md, "Checksums"): CRC-32/ISO-HDLC,
/// reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF, the
/// one zlib computes, so this is zlib's crc32_z (about twice as fast as
/// the slicing-by-16 loop throng had, docs/PERFORMANCE.md "Output cost"). Continue a running CRC
/// by passing the previous value as `crc` (0 to start). zlib answers its
/// own initial value, 0, for a NULL buffer; n == 0 gives back `crc`.
static inline uint32_t thr_crc32(uint32_t crc, const void* data, size_t n)
{
	return n == 0 ? crc : (uint32_t)crc32_z(crc, data, n);
}

// --- frames in id order (export.c, id_order.c) -------------------------------------
/// The index of `name` in names[0..count), or -1 (also for NULL): the
/// inverse of a public enum's name table (throng_format_from_name,
/// throng_writer_state_from_name). export.c.
int thr_name_index(const char* const* names, size_t count, const char* name);

/// The view's arrays for each field bit (index = bit number), NULL when the
/// view lacks one.
void thr_view_field_sources(const throng_view* view, const void* src[THRONG_FIELD_BITS]);

/// A view's agents in increasing id order, rebuilt for every frame: the
/// engine keeps agents in grid order, and after removals ids have gaps.
/// Owned by one exporter or feed; zero-initialise, free with
/// thr_id_order_free().
typedef struct thr_id_order {
	uint32_t count;    ///< agents of the last view ordered
	uint32_t cap;      ///< entries allocated in each array
	bool identity;     ///< the view was already in increasing id order: perm is not used
	uint32_t* ids;     ///< count ids, strictly increasing
	uint32_t* perm;    ///< perm[j]: the view's slot of ids[j]
	uint32_t* scratch; ///< 2 * cap entries for the radix sort
} thr_id_order;

/// id_order.c. Orders the view's agents by id (a radix sort, O(count), none when they
/// are in order already). Fails (THRONG_ERR_INVALID_ARGUMENT, naming
/// `who`) when the view lacks its id array or a field of `fields`, or an id
/// appears twice; THRONG_ERR_OUT_OF_MEMORY when the arrays cannot grow.
throng_status thr_id_order_build(thr_id_order* o, const throng_view* view, uint32_t fields, const char* who);

/// Copies the 4-byte field arrays named by `fields` from the view into
/// dst[bit] in the order thr_id_order_build() found: dst[bit][j] =
/// src[bit][perm[j]]. Floats are moved bit for bit.
void thr_id_order_gather(const thr_id_order* o, const throng_view* view, uint32_t fields,
                         void* const dst[THRONG_FIELD_BITS]);

void thr_id_order_free(thr_id_order* o);

/// Normalised def checks shared by exporters and the feed; fills *out with
/// defaults resolved (fields, every). `who` prefixes messages.
throng_status thr_export_def_check(const throng_export_def* def, throng_export_def* out, const char* who);

/// The "due" rule of throng_exporter_write_view, shared with the feed.
/// `frames` frames were written so far, the last at `last_step`, the first
/// at `first_step`. Sets *due, and fails for a NULL view or a step that
/// goes back or skips a frame. The count may change from frame to frame.
throng_status thr_frame_due(const throng_view* view, uint32_t every, uint64_t frames, uint64_t first_step,
                            uint64_t last_step, bool* due, const char* who);

#endif
