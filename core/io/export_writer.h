// SPDX-License-Identifier: MIT
// The exporter object and its per-format operations (private).
//
// export.c owns what every format shares: the def, the open file (see
// output_file.c: a temporary renamed onto the path when done), the "is
// this step due" rule, sticky failure, cutting a stopped stream back to its
// last whole frame, and the id-ordered scratch arrays. Each format (export_stream.c, export_text.c, export_sqlite.c)
// supplies a header, a frame and a finish operation. Streams write through
// thr_sink_write(), which hands every frame to the kernel before it returns
// and turns EPIPE, ENOSPC and EFBIG into messages a user can act on.
#ifndef THRONG_CORE_EXPORT_WRITER_H
#define THRONG_CORE_EXPORT_WRITER_H

#include "export_internal.h"

typedef struct thr_exporter_ops {
	/// Writes the header; the file is open (ex->fd) unless the format opens its own.
	throng_status (*begin)(throng_exporter* ex);
	/// Writes one frame of the view; ex->frames is its index.
	throng_status (*frame)(throng_exporter* ex, const throng_view* view);
	/// Writes what ends the file. Not called after a failure.
	throng_status (*finish)(throng_exporter* ex);
	/// Frees the format's state (ex->impl); always called once, before the
	/// file is published or discarded.
	void (*release)(throng_exporter* ex);
	/// True when the format writes by name (SQLite) and, on a failure, sets
	/// ex->kept_frames and a message saying what the file holds itself.
	bool by_name;
} thr_exporter_ops;

struct throng_exporter {
	throng_export_def def;   ///< resolved: fields, every, format set; scenario points at `scenario`
	char scenario[THRONG_EXPORT_NAME_MAX + 1];
	char* path;              ///< as given, for messages ("-" = standard output)
	const thr_exporter_ops* ops;
	throng_output_file* file; ///< the output (NULL for standard output); finish publishes or discards it
	int fd;                  ///< the file's descriptor, or standard output's
	uint64_t frames;         ///< frames written
	uint64_t first_step, last_step;
	uint64_t bytes;          ///< bytes written through thr_sink_write
	uint64_t whole_bytes;    ///< bytes up to the end of the last whole frame (or of the header)
	uint64_t kept_frames;    ///< after a failure: whole frames the file keeps (it is published when > 0)
	bool interrupted;        ///< throng_exporter_set_interrupted() was called
	bool finished;           ///< throng_exporter_finish() was called: only destroy is left
	throng_status failed;    ///< THRONG_OK, or the failure every later call repeats
	char* failure;           ///< its message
	uint64_t rows;           ///< agent rows in the frames written (a frame's rows: its live agents)
	thr_id_order order;      ///< the last frame's agents in id order
	void* by_id[THRONG_FIELD_BITS]; ///< id-ordered copies for the text and SQLite formats: order.count each
	uint32_t by_id_cap;      ///< entries allocated in each by_id array
	void* impl;              ///< the format's own state
	const throng_world* world; ///< def.world while the format's begin runs (the SQLite walkable area), else NULL
};

extern const thr_exporter_ops thr_stream_ops;
extern const thr_exporter_ops thr_csv_ops;
extern const thr_exporter_ops thr_ped_ops;
extern const thr_exporter_ops thr_sqlite_ops;

/// Writes all n bytes to ex->fd (retrying short writes and EINTR). On
/// failure returns THRONG_ERR_IO with a message naming the path and what
/// happened, in words for a closed pipe, a full disk and a size limit.
throng_status thr_sink_write(throng_exporter* ex, const void* data, size_t n);

/// Orders the view by id (ex->order: its ids and count) and fills
/// ex->by_id[bit] for every bit of `fields` in that order, growing the
/// arrays as the count grows.
throng_status thr_exporter_by_id(throng_exporter* ex, const throng_view* view, uint32_t fields);

/// Frames per second of the output: 1 / (dt * every).
double thr_export_fps(const throng_export_def* def);

#endif
