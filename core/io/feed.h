// SPDX-License-Identifier: MIT
// The live feed's shared-memory layout (docs/FORMAT.md, "Live feed") and
// what its writer (live_feed.c) and its reader (feed_read.c) both use: the
// header and slot offsets, the atomic accessors, and (feed.c) the clock,
// the object's name, the writer's identity and how a reader judges whether
// that writer still runs. The feed's design is described at the top of
// live_feed.c.
#ifndef THRONG_IO_FEED_H
#define THRONG_IO_FEED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "throng/export.h"

#if ATOMIC_LLONG_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2
#error "the live feed needs lock-free 32- and 64-bit atomics"
#endif

#define FEED_MAGIC "\x89THRFEED"
#define FEED_MAJOR 2u ///< 2.0: slots hold a count and the ids (agents come and go); agents is the capacity
#define FEED_MINOR 0u ///< (1.1 added writer_start, writer_pid_ns and heartbeat, which 2.0 keeps)
#define FEED_MINOR_2_1 1u ///< 2.1: a feed whose fields include one of THRONG_FIELDS_2_1
#define FEED_SLOTS 2u
#define FEED_NAME_BYTES 64

// Header offsets (host byte order; the header is 256 bytes).
enum {
	FH_MAGIC = 0,
	FH_MAJOR = 8,
	FH_MINOR = 10,
	FH_BOM = 12,
	FH_HEADER_BYTES = 16,
	FH_SLOT_COUNT = 20,
	FH_AGENTS = 24,     ///< 2.0: the capacity, the most agents a slot holds
	FH_FIELDS = 28,
	FH_SLOT_BYTES = 32,
	FH_DT = 40,
	FH_EVERY = 48,
	FH_BOUNDS_MODE = 52,
	FH_BOUNDS = 56,
	FH_SEED = 72,
	FH_FIELD_COUNT = 80,
	FH_PID = 84,
	FH_ARRAY_STRIDE = 88,
	FH_NAME = 96,
	FH_WRITER_START = 160, ///< 1.1: u64, the writer's start time (clock ticks after boot), 0 unknown
	FH_WRITER_PID_NS = 168, ///< 1.1: u64, the inode of the writer's pid namespace, 0 unknown
	FH_PUBLISHED = 192, ///< atomic u64: frames published; the newest is published - 1
	FH_STATE = 200,     ///< atomic u32: 0 setting up, 1 live, 2 finished
	FH_HEARTBEAT = 208, ///< 1.1: atomic u64, CLOCK_MONOTONIC ns of the writer's last call, 0 unknown
	FH_BYTES = 256,
	// Slot offsets.
	FS_SEQ = 0,         ///< atomic u64: odd while the writer writes the slot
	FS_INDEX = 8,
	FS_STEP = 16,
	FS_TIME = 24,
	FS_COUNT = 32,      ///< 2.0: u32, agents in the frame, at most the capacity
	FS_IDS = 64,        ///< 2.0: the ids (array_stride bytes), increasing; the field arrays follow
	FS_DATA = 64,
};

enum { FEED_SETTING_UP = 0, FEED_LIVE = 1, FEED_FINISHED = 2 };

static inline _Atomic uint64_t* at_u64(unsigned char* base, size_t off)
{
	return (_Atomic uint64_t*)(void*)(base + off);
}
static inline _Atomic uint32_t* at_u32(unsigned char* base, size_t off)
{
	return (_Atomic uint32_t*)(void*)(base + off);
}
static inline uint32_t get_u32(const unsigned char* base, size_t off)
{
	uint32_t v;
	memcpy(&v, base + off, 4);
	return v;
}
static inline uint64_t get_u64(const unsigned char* base, size_t off)
{
	uint64_t v;
	memcpy(&v, base + off, 8);
	return v;
}

/// CLOCK_MONOTONIC in nanoseconds, the heartbeat's clock.
uint64_t thr_feed_now_ns(void);

/// "/name" from "name" or "/name" into `out`; fails, naming `who`, on a
/// NULL or empty name, inner slashes and "." or ".." (they name
/// directories of /dev/shm, not objects).
throng_status thr_feed_name(const char* name, char out[256], const char* who);

// --- The writer's identity: the writer puts it in the header, a reader judges it ---

/// Reads /proc/PID/stat (PID 0: this process): its state letter and its
/// start time in clock ticks after boot. False when it cannot be read (no
/// such process, /proc hidden or absent).
bool thr_feed_proc_stat(uint32_t pid, char* state, uint64_t* start);

/// The inode of this process's pid namespace, 0 when /proc does not say.
uint64_t thr_feed_own_pid_ns(void);

/// Who wrote a feed, as its header says.
typedef struct feed_writer {
	uint32_t pid;       ///< 1 .. INT_MAX (checked)
	uint64_t start;     ///< 0 unknown (a 1.0 writer, or no /proc)
	uint64_t pid_ns;    ///< 0 unknown
	bool same_pid_ns;   ///< the reader shares the writer's pid namespace (or cannot tell, for a 1.0 writer)
	bool heartbeat;     ///< the header has a heartbeat (1.1 and later)
} feed_writer;

/// Reads the writer's identity from the header at `b`; false for a pid
/// that names no single process (0, or one kill() would take as a group).
bool thr_feed_writer_read(const unsigned char* b, feed_writer* w);

/// The writer's state from the header at `b` (FH_BYTES or more).
throng_writer_state thr_feed_writer_state_at(unsigned char* b, const feed_writer* w);

#endif
