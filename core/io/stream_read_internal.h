// SPDX-License-Identifier: MIT
// The binary stream reader's insides (private): stream_read.c reads the
// header and the source, stream_read_frame.c the frames.
#ifndef THRONG_CORE_IO_STREAM_READ_INTERNAL_H
#define THRONG_CORE_IO_STREAM_READ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "throng/export.h"

/// A source whose size is unknown (a pipe, a terminal):
/// thr_stream_source_left().
#define THR_STREAM_SIZE_UNKNOWN UINT64_MAX
/// From a source of unknown size, the first bytes of a frame go into a
/// buffer of this size, which then doubles with the bytes received.
#define THR_STREAM_PIPE_CHUNK ((size_t)1 << 20)

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
size_t thr_stream_source_read(throng_stream_reader* r, void* buf, size_t n, throng_status* io);

/// Bytes left in a memory stream or a regular file (its size now, less
/// the position); THR_STREAM_SIZE_UNKNOWN for anything else (a pipe).
uint64_t thr_stream_source_left(const throng_stream_reader* r);

/// Makes a failure sticky and returns it (message already set).
throng_status thr_stream_failed(throng_stream_reader* r, throng_status st);

/// Fails with THRONG_ERR_CORRUPT: "<name>: byte offset <off>: <what>".
throng_status thr_stream_corrupt_at(throng_stream_reader* r, uint64_t off, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif
