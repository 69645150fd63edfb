// SPDX-License-Identifier: MIT
// Handing positions to external renderers: files, streams and a live feed.
//
// Three ways out of the library, besides the zero-copy throng_view of
// throng.h:
//
// - An exporter writes frames to a file or a pipe in one of four formats:
//   throng's binary stream (docs/FORMAT.md), CSV, the pedestrian-dynamics
//   text format, or a SQLite trajectory database in JuPedSim's schema
//   (with the walkable area as WKT: the bounds minus the obstacles and
//   walls of def.world, docs/FORMAT.md).
// - A stream reader reads the binary stream back (from a file, a pipe or
//   memory) and names the byte offset of anything truncated or corrupt.
// - A live feed publishes every frame to POSIX shared memory under a
//   sequence lock: the writer never waits, a reader never sees a torn frame.
//
// Agents come and go (throng_world_spawn, throng_world_remove_agents), so
// a frame holds the agents alive at its step, each with its stable id, in
// increasing id order, not in the storage order of the view: the exporter
// and the feed sort each frame by id on the way out. Ids have gaps once
// agents were removed, and the count may change from frame to frame. The
// binary stream (version 2, docs/FORMAT.md) and the live feed carry each
// frame's count and ids; CSV, the pedestrian text and SQLite write one row
// per live agent, its id in the id column. A frame read back gives count
// and ids (throng_frame).
//
// Errors: every call that can fail returns a throng_status and sets
// throng_last_error() to a message naming the file, the byte offset or the
// field. I/O failures are THRONG_ERR_IO, malformed input THRONG_ERR_CORRUPT.
//
// Pipes: writing to a pipe whose reader has gone raises SIGPIPE, which
// kills a process by default. The library installs no signal handlers; a
// program that writes to pipes should ignore SIGPIPE (the throng command
// does) so that the exporter reports EPIPE as an error instead.
//
// Threading: one exporter, reader or feed must not be used from two threads
// at once. Writing a frame may use OpenMP threads inside.
#ifndef THRONG_EXPORT_H
#define THRONG_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/api.h"
#include "throng/file.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// Per-agent fields of a frame, as bits of a field mask. The numbers are
/// part of the binary stream format (docs/FORMAT.md) and never change.
/// Every field has 4-byte elements. Bits 0 to 7 are stream version 2.0's,
/// bits 8 and 9 came with 2.1 (a stream holding either says 2.1).
enum {
	THRONG_FIELD_X = 1u << 0,         ///< position x (m), float
	THRONG_FIELD_Y = 1u << 1,         ///< position y (m), float
	THRONG_FIELD_VX = 1u << 2,        ///< velocity x (m/s), float
	THRONG_FIELD_VY = 1u << 3,        ///< velocity y (m/s), float
	THRONG_FIELD_HX = 1u << 4,        ///< heading x (unit vector), float
	THRONG_FIELD_HY = 1u << 5,        ///< heading y (unit vector), float
	THRONG_FIELD_GROUP = 1u << 6,     ///< group label, uint32
	THRONG_FIELD_ARCHETYPE = 1u << 7, ///< archetype id, uint32
	THRONG_FIELD_HEALTH = 1u << 8,    ///< combat's health (docs/ARMIES.md), float; 0 without combat
	THRONG_FIELD_COMBAT_STATE = 1u << 9, ///< what the last step did in combat (THRONG_COMBAT_* bits), uint32
};

/// Number of field bits defined (bits 0 .. THRONG_FIELD_BITS-1).
#define THRONG_FIELD_BITS 10
/// Every defined field.
#define THRONG_FIELDS_ALL 0x3ffu
/// The fields of stream (and feed) version 2.1: a stream holding any says 2.1.
#define THRONG_FIELDS_2_1 (THRONG_FIELD_HEALTH | THRONG_FIELD_COMBAT_STATE)
/// Position and heading: what a renderer needs to place and turn an agent.
#define THRONG_FIELDS_DEFAULT (THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_HX | THRONG_FIELD_HY)

/// Longest scenario name a header holds (bytes, without the NUL).
#define THRONG_EXPORT_NAME_MAX 63

/// Output formats.
typedef enum throng_format {
	THRONG_FORMAT_AUTO = 0, ///< from the path's extension; binary for "-" and unknown extensions
	THRONG_FORMAT_BINARY,   ///< throng's binary stream (docs/FORMAT.md): .thr
	THRONG_FORMAT_CSV,      ///< CSV with a header row: .csv
	THRONG_FORMAT_PED,      ///< pedestrian-dynamics text, "# framerate:" and id frame x y z: .txt, .ped
	THRONG_FORMAT_SQLITE,   ///< SQLite in JuPedSim's trajectory schema: .sqlite, .sqlite3, .db
} throng_format;

/// What an exporter or a feed writes, and the run it describes. Get one from
/// throng_export_default_def() and change fields; a def not made by it is
/// rejected.
typedef struct throng_export_def {
	throng_format format;        ///< exporters only; AUTO = from the path
	uint32_t fields;             ///< THRONG_FIELD_* bits; 0 = THRONG_FIELDS_DEFAULT.
	                             ///< Binary, CSV and the feed; PED and SQLite have fixed columns
	uint32_t every;              ///< one frame every `every` steps; 0 = 1
	uint32_t sqlite_batch;       ///< SQLite: frames per transaction; 0 = about 250,000 rows' worth
	const char* scenario;        ///< name written into headers (copied); NULL = none
	uint32_t agents;             ///< agents when the output begins, as its header records (0 allowed);
	                             ///< later frames may hold more or fewer (agents come and go)
	uint32_t capacity;           ///< feed only: most agents a frame may hold; 0 = twice `agents`, at
	                             ///< least 1024. A frame with more is refused (THRONG_ERR_CAPACITY)
	float dt;                    ///< simulated seconds per step, > 0
	throng_vec2 bounds_min;      ///< the world's extent (m)
	throng_vec2 bounds_max;
	throng_bounds_mode bounds_mode;
	uint64_t seed;               ///< the world's seed, recorded in the header
	const throng_world* world;   ///< when not NULL, agents, dt, bounds, bounds_mode and seed are read
	                             ///< from this world when the exporter or feed is created, and must be
	                             ///< left at their defaults here (SQLite also cuts its obstacles and
	                             ///< walls out of the walkable area); the world is not kept
	int32_t internal_cookie;     ///< set by throng_export_default_def(); leave as is
} throng_export_def;

/// Defaults: format AUTO, THRONG_FIELDS_DEFAULT, every step, automatic
/// SQLite batches, no scenario name, no world; agents, dt, bounds and seed
/// zero and bounds mode contain: set them, or set `world` to take them
/// from a world.
throng_export_def throng_export_default_def(void);

/// The format a path's extension names (case-insensitive): .csv, .txt or
/// .ped, .sqlite or .sqlite3 or .db; anything else, and "-", is binary.
throng_format throng_format_from_path(const char* path);

/// "auto", "bin", "csv", "ped", "sqlite" (a name pair as throng.h's
/// "Names" describes).
const char* throng_format_name(throng_format format);
bool throng_format_from_name(const char* name, throng_format* out);

/// Parses a comma-separated field list into a mask: x, y, vx, vy, hx, hy,
/// group, archetype, and the shorthands position (x,y), velocity (vx,vy),
/// heading (hx,hy) and all. The message of a failure quotes the bad name.
throng_status throng_fields_parse(const char* list, uint32_t* mask_out);

/// Name of one field bit ("x", "vy", "group", ...), or NULL for a bit that
/// is not a defined field; static.
const char* throng_field_name(uint32_t field_bit);

// ---------------------------------------------------------------------------
// Exporters

typedef struct throng_exporter throng_exporter;

/// Opens `path` for writing ("-" = standard output; see throng_output_file_open)
/// and writes the format's header. Fails here, before any frame, when the
/// path cannot be written (THRONG_ERR_IO, the message names the path) or
/// the def is invalid. SQLite needs a regular file, not "-". On success
/// *out owns the open file: throng_exporter_finish() completes it and
/// throng_exporter_destroy() frees the exporter.
throng_status throng_exporter_create(const char* path, const throng_export_def* def, throng_exporter** out);

/// Writes the current state of `view` as a frame when it is due: the first
/// call always writes (frame 0), later calls write when the view's step is
/// a multiple of `every` past the first frame's step, and a call at the step
/// of the last frame written does nothing. Steps must not go back; the
/// count may differ from def.agents and change from frame to frame, and
/// the view's ids may have gaps (each must appear once: a repeated id is
/// THRONG_ERR_INVALID_ARGUMENT). Streams (binary, CSV, PED) reach the file
/// before this returns, so every frame written survives a crash or a later
/// failure; SQLite commits every def.sqlite_batch frames.
/// After a failure (a closed pipe, a full disk) every later call fails too.
throng_status throng_exporter_write_view(throng_exporter* ex, const throng_view* view);

/// throng_exporter_write_view() of throng_world_view(world).
throng_status throng_exporter_write(throng_exporter* ex, const throng_world* world);

/// Frames written so far.
uint64_t throng_exporter_frames(const throng_exporter* ex);

/// What to tell the user about the output file, or NULL
/// (throng_output_file_notice: hard links that keep the old contents, an
/// owner that could not be kept, leftovers of a killed run). Owned by the
/// exporter; valid until throng_exporter_finish().
const char* throng_exporter_notice(const throng_exporter* ex);

/// Marks the run as stopped before its planned end (a signal, say): the
/// binary stream's end record then carries the interrupted flag
/// (docs/FORMAT.md); the other formats end as usual. NULL is ignored.
void throng_exporter_set_interrupted(throng_exporter* ex);

/// Finishes the file: writes what ends it (the binary stream's end record,
/// the last SQLite transaction and its index), closes it and publishes it.
/// Returns THRONG_OK, or the first failure of the run or of finishing
/// (with the reason in throng_last_error()). After it, success or not, the
/// exporter writes nothing more: only throng_exporter_destroy() is left.
///
/// Files are written as throng_output_file_open() describes: a regular file
/// is only replaced here, by renaming the finished temporary onto it. After
/// a write failure (a full disk, a size limit) the temporary is cut back to
/// the last whole frame (binary, CSV, PED) or holds the committed batches
/// (SQLite) and still replaces the path when it holds at least one frame;
/// the failure's message says exactly what the file holds. With no frame,
/// the path is left as it was.
throng_status throng_exporter_finish(throng_exporter* ex);

/// Frees the exporter. One not finished is discarded: its file is closed
/// without finishing, a regular file's temporary is removed and the path
/// left as it was (a path written in place keeps what it received); for a
/// run that stops before it has anything to keep. NULL is ignored.
void throng_exporter_destroy(throng_exporter* ex);

// ---------------------------------------------------------------------------
// Frames and headers, as readers return them

/// One frame read back: the `count` agents alive at its step. `id` holds
/// their ids, strictly increasing (with gaps where agents were removed or
/// not yet added; 0 .. count-1 in a version 1 stream); element k of every
/// field array is agent id[k]. Field arrays are NULL for fields the stream
/// does not hold. All belong to the reader and stay valid until its next
/// read or its destroy.
typedef struct throng_frame {
	uint64_t index;   ///< 0, 1, 2, ... in the stream
	uint64_t step;    ///< the world's step counter at this frame
	double time;      ///< simulated time (s): step * dt, computed in double
	uint32_t count;   ///< agents in this frame (may be 0)
	const uint32_t* id; ///< count ids, increasing

	const float* x;
	const float* y;
	const float* vx;
	const float* vy;
	const float* hx;
	const float* hy;
	const uint32_t* group;
	const uint32_t* archetype;
	const float* health; ///< stream 2.1: combat's health (NULL when the frame has none)
	const uint32_t* combat_state; ///< stream 2.1: THRONG_COMBAT_* bits of the last step (NULL when none)
} throng_frame;

/// What a stream's or a feed's header says.
typedef struct throng_stream_info {
	uint32_t version_major, version_minor;
	uint32_t agents;           ///< stream 1.x: agents in every frame; 2.x: agents when it began
	                           ///< (frames say their own); feed: the most a frame may hold
	uint32_t fields;           ///< THRONG_FIELD_* bits present (unknown bits of a newer minor version are skipped)
	uint32_t every;            ///< steps between frames
	double dt;                 ///< seconds per step
	throng_bounds_mode bounds_mode;
	throng_vec2 bounds_min, bounds_max;
	uint64_t seed;
	char scenario[THRONG_EXPORT_NAME_MAX + 1];
	uint64_t header_bytes;     ///< binary stream: where frame 0 starts
	uint64_t frame_bytes;      ///< binary stream 1.x: bytes per frame (2.x: 0, each frame gives its
	                           ///< own); feed: bytes per slot
} throng_stream_info;

// ---------------------------------------------------------------------------
// Binary stream reader

typedef struct throng_stream_reader throng_stream_reader;

/// Opens a binary stream file ("-" = standard input) and reads its header.
/// Reads versions 1.x (every frame all agents 0 .. N-1) and 2.x (frames of
/// varying agents, each with its ids); refuses other major versions.
/// Fails with THRONG_ERR_IO when the file cannot be opened and
/// THRONG_ERR_CORRUPT, naming the byte offset and the field, when the
/// header is bad (docs/FORMAT.md, "What a reader checks").
///
/// A damaged header costs nothing: no size it claims is allocated before
/// it is checked against THRONG_STREAM_MAX_FRAME and, for a regular file
/// or a memory stream, against the bytes the source holds. From a pipe,
/// which has no size, a frame's buffer grows with the bytes that arrive.
throng_status throng_stream_open(const char* path, throng_stream_reader** out);

/// Same over an open FILE (a pipe from popen(), say), which stays the
/// caller's: destroying the reader does not close it. `name` labels messages.
throng_status throng_stream_open_file(FILE* file, const char* name, throng_stream_reader** out);

/// Same over `size` bytes at `data`, which must outlive the reader.
throng_status throng_stream_open_memory(const void* data, size_t size, throng_stream_reader** out);

/// Largest frame (bytes) the readers accept and the writers make: 2 GiB,
/// 67 million agents with every field. A binary stream whose header claims
/// more is corrupt; an exporter or feed that would need more is refused.
#define THRONG_STREAM_MAX_FRAME (UINT64_C(1) << 31)

/// Whether frames' and the end record's CRC-32 are checked (default true).
/// The header's is always checked.
void throng_stream_verify(throng_stream_reader* reader, bool verify_checksums);

/// The header, owned by the reader.
const throng_stream_info* throng_stream_get_info(const throng_stream_reader* reader);

/// Reads the next frame into *frame and sets *got. At the end of the stream
/// *got is false and the status THRONG_OK; throng_stream_complete() then
/// tells whether the writer finished (an end record) or stopped early (the
/// stream ends at a frame boundary). A truncated or malformed frame gives
/// THRONG_ERR_CORRUPT with the byte offset and frame index in the message,
/// and every later read fails the same way. Malformed includes a
/// non-finite position, velocity or heading (the message names the frame,
/// the agent's id and the field), and in a 2.x frame a size that its count
/// does not make and ids that do not increase.
throng_status throng_stream_read_frame(throng_stream_reader* reader, throng_frame* frame, bool* got);

/// True once the end record was read.
bool throng_stream_complete(const throng_stream_reader* reader);

/// True when the end record says the run was interrupted (stopped by a
/// signal before its planned end): the stream is complete and every frame
/// valid, but it ends earlier than the run was asked to.
bool throng_stream_interrupted(const throng_stream_reader* reader);

/// Byte offset of the next unread byte.
uint64_t throng_stream_offset(const throng_stream_reader* reader);

/// Frees the reader (and closes the file that throng_stream_open opened).
/// NULL is ignored.
void throng_stream_reader_destroy(throng_stream_reader* reader);

// ---------------------------------------------------------------------------
// Live feed (POSIX shared memory, layout in docs/FORMAT.md)

typedef struct throng_feed throng_feed;
typedef struct throng_feed_reader throng_feed_reader;

/// Creates the shared-memory object `name` ("crowd" or "/crowd": one name,
/// no other '/', not "." or "..", at most 200 bytes) and sizes its slots
/// for def.capacity agents and def.fields (format and sqlite_batch are
/// ignored): every frame carries its count and ids, up to that capacity. The
/// creation is exclusive: THRONG_ERR_IO when an object of that name exists
/// (another run's feed, or one a crashed run left behind), with a message
/// that says whose it is. On success *out owns it: throng_feed_finish()
/// ends it and throng_feed_destroy() frees it.
throng_status throng_feed_create(const char* name, const throng_export_def* def, throng_feed** out);

/// throng_feed_create(), after removing an existing object of that name
/// (a stale feed). A run still publishing on the old object keeps it, no
/// reader can open it any more, and its finish leaves the new one alone.
/// Fails when the object belongs to another user (it cannot be removed).
throng_status throng_feed_replace(const char* name, const throng_export_def* def, throng_feed** out);

/// Publishes the view as the newest frame when it is due (the same rule as
/// throng_exporter_write_view). Never waits for readers. A view of more
/// agents than the feed's capacity is refused (THRONG_ERR_CAPACITY, naming
/// the capacity; the feed stays usable and readers keep the last frame):
/// size the feed for the most agents the run will hold (def.capacity).
throng_status throng_feed_publish_view(throng_feed* feed, const throng_view* view);

/// throng_feed_publish_view() of throng_world_view(world).
throng_status throng_feed_publish(throng_feed* feed, const throng_world* world);

/// Frames published so far.
uint64_t throng_feed_frames(const throng_feed* feed);

/// Tells readers the writer is alive without publishing: refreshes the
/// feed's heartbeat (docs/FORMAT.md, "Is the writer alive?"), which every
/// publish call refreshes too, due or not. A program that can go longer
/// than THRONG_FEED_HEARTBEAT_LIMIT_MS between publish calls (a long load,
/// steps slower than that) calls it meanwhile, or a reader in another pid
/// namespace takes it for gone. THRONG_ERR_INVALID_ARGUMENT after finish.
throng_status throng_feed_heartbeat(throng_feed* feed);

/// Marks the feed finished, unmaps it and removes the name if it still
/// names the object this feed created (not one that throng_feed_replace()
/// put in its place); readers that have it open keep reading the last
/// frame. Returns THRONG_ERR_IO when unmapping or removing the name
/// fails. After it, success or not, only throng_feed_destroy() is left.
throng_status throng_feed_finish(throng_feed* feed);

/// Frees the feed. One not finished is finished first, as
/// throng_feed_finish() does, without reporting a failure. NULL is ignored.
void throng_feed_destroy(throng_feed* feed);

/// Opens a feed by name. THRONG_ERR_NOT_FOUND when no feed has that name
/// yet or its writer is still setting it up (try again later);
/// THRONG_ERR_CORRUPT, naming the byte offset and the field, when the
/// object is not a throng feed or its header holds a value the binary
/// stream's reader would refuse in its own (the same checks, one function)
/// or one of the feed's own that is wrong (slots, sizes against the
/// object's size, the writer's pid, the state). Nothing is allocated
/// before the header is checked.
throng_status throng_feed_open(const char* name, throng_feed_reader** out);

/// The feed's header, owned by the reader.
const throng_stream_info* throng_feed_get_info(const throng_feed_reader* reader);

/// Copies the newest published frame into the reader's buffers. *got is
/// false when no frame newer than the last one returned has been published,
/// or when the writer kept overwriting the frame during a bounded number
/// of attempts (call again); throng_feed_writer_state() then tells whether
/// to wait for more. It never waits. A frame returned is never torn. A
/// frame with a non-finite position, velocity or heading, a count above the
/// capacity or ids that do not increase is refused with THRONG_ERR_CORRUPT
/// naming its byte offset, frame, agent and field; the next call goes on
/// with the next frame.
throng_status throng_feed_read(throng_feed_reader* reader, throng_frame* frame, bool* got);

/// True once the writer has finished the feed (no frame will follow).
/// False for a writer that is gone without finishing (see below).
bool throng_feed_finished(const throng_feed_reader* reader);

/// Whether a feed's writer can still publish.
typedef enum throng_writer_state {
	THRONG_WRITER_ALIVE = 0, ///< running: a frame may follow, however slow it is in coming
	THRONG_WRITER_FINISHED,  ///< finished the feed (throng_feed_finish or destroy): no frame will follow
	THRONG_WRITER_GONE,      ///< ended without finishing (killed, crashed): no frame will follow
} throng_writer_state;

/// Readers in another pid namespace than the writer's take it for gone when
/// its heartbeat is older than this (ms); see throng_feed_heartbeat().
#define THRONG_FEED_HEARTBEAT_LIMIT_MS 10000

/// The feed's writer now (docs/FORMAT.md, "Is the writer alive?"). FINISHED
/// once it finished the feed. Otherwise, when this process shares the
/// writer's pid namespace, by its pid: GONE when no such process runs, it
/// is a zombie, or the pid belongs to a process started at another time;
/// from another pid namespace, by the heartbeat: GONE when it is older
/// than THRONG_FEED_HEARTBEAT_LIMIT_MS. A damaged state reads as GONE.
/// Costs a system call or two (kill, /proc): ask when a read brings
/// nothing new, not for every frame. After FINISHED or GONE, one more
/// throng_feed_read() gets a frame published just before. NULL: GONE.
throng_writer_state throng_feed_writer_state(const throng_feed_reader* reader);

/// The process id of the feed's writer (the process that created it), as
/// its own pid namespace numbers it; 0 for NULL.
uint32_t throng_feed_writer_pid(const throng_feed_reader* reader);

/// "alive", "finished", "gone" (a name pair as throng.h's "Names"
/// describes).
const char* throng_writer_state_name(throng_writer_state state);
bool throng_writer_state_from_name(const char* name, throng_writer_state* out);

/// Unmaps and frees the reader. NULL is ignored.
void throng_feed_reader_destroy(throng_feed_reader* reader);

THRONG_API_END

#endif
