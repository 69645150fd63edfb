// SPDX-License-Identifier: MIT
// Text exporters: CSV and the pedestrian-dynamics text format (docs/FORMAT.md).
//
// Both print one row per live agent per frame, in increasing id order (ids
// have gaps once agents were removed). Formatting numbers
// is the slow part (a few hundred nanoseconds a row), so rows are printed
// in fixed chunks of agents in parallel, each chunk into its own stretch of
// one buffer, and the chunks are written out in order: the file is the
// same at any thread count. Numbers go through printf, so the program must
// keep LC_NUMERIC as "C" (a program that never calls setlocale does).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_writer.h"

/// Agents per formatting chunk.
#define THR_TEXT_CHUNK 4096u

/// Longest row (bytes): an id, the frame and time, eight fields of up to
/// 47 characters (a float with 6 decimals) each, separators, a newline.
#define THR_TEXT_ROW_MAX 512u

typedef struct text_state {
	char* buf;       ///< cap * THR_TEXT_ROW_MAX bytes
	size_t* len;     ///< bytes printed per chunk
	uint32_t cap;    ///< rows the buffer holds: a multiple of THR_TEXT_CHUNK
} text_state;

/// Column names of the CSV fields, by bit.
static const char* const csv_columns[THRONG_FIELD_BITS] = {
	"x", "y", "velocity_x", "velocity_y", "heading_x", "heading_y", "group", "archetype", "health", "combat_state",
};

static throng_status text_alloc(throng_exporter* ex)
{
	text_state* s = calloc(1, sizeof *s);
	if (s == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", ex->path);
	}
	ex->impl = s;
	return THRONG_OK;
}

/// Grows the row buffer to hold `rows` rows.
static throng_status text_reserve(throng_exporter* ex, uint32_t rows)
{
	text_state* s = ex->impl;
	if (rows <= s->cap) {
		return THRONG_OK;
	}
	uint64_t want = rows > 2u * (uint64_t)s->cap ? rows : 2u * (uint64_t)s->cap;
	uint32_t chunks = (uint32_t)((want + THR_TEXT_CHUNK - 1u) / THR_TEXT_CHUNK);
	char* buf = realloc(s->buf, (size_t)chunks * THR_TEXT_CHUNK * THR_TEXT_ROW_MAX);
	if (buf != NULL) {
		s->buf = buf;
	}
	size_t* len = realloc(s->len, (size_t)chunks * sizeof *len);
	if (len != NULL) {
		s->len = len;
	}
	if (buf == NULL || len == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u rows of text", ex->path, rows);
	}
	s->cap = chunks * THR_TEXT_CHUNK;
	return THRONG_OK;
}

static void text_release(throng_exporter* ex)
{
	text_state* s = ex->impl;
	if (s != NULL) {
		free(s->buf);
		free(s->len);
		free(s);
		ex->impl = NULL;
	}
}

/// Appends at most `cap` bytes of printf output at *p; advances *p.
#define APPEND(p, end, ...)                                                                                            \
	do {                                                                                                           \
		int n_ = snprintf((p), (size_t)((end) - (p)), __VA_ARGS__);                                            \
		(p) += n_ < 0 ? 0 : ((size_t)n_ < (size_t)((end) - (p)) ? (size_t)n_ : (size_t)((end) - (p)) - 1u);    \
	} while (0)

/// Prints the rows of the frame's agents [a, b) (positions in id order,
/// ex->order.ids their ids) into dst; returns the bytes printed.
typedef size_t (*row_printer)(const throng_exporter* ex, const char* frame_text, uint32_t a, uint32_t b, char* dst);

static size_t csv_rows(const throng_exporter* ex, const char* frame_text, uint32_t a, uint32_t b, char* dst)
{
	const uint32_t* id = ex->order.ids;
	char* p = dst;
	for (uint32_t i = a; i < b; ++i) {
		char* end = p + THR_TEXT_ROW_MAX;
		APPEND(p, end, "%u,%s", id[i], frame_text);
		for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
			if ((ex->def.fields & (1u << f)) == 0) {
				continue;
			}
			if (!thr_field_is_float(f)) {
				APPEND(p, end, ",%u", ((const uint32_t*)ex->by_id[f])[i]);
			} else {
				// 9 significant digits: enough to read every float back exactly.
				APPEND(p, end, ",%.9g", (double)((const float*)ex->by_id[f])[i]);
			}
		}
		APPEND(p, end, "\n");
	}
	return (size_t)(p - dst);
}

static size_t ped_rows(const throng_exporter* ex, const char* frame_text, uint32_t a, uint32_t b, char* dst)
{
	const float* x = ex->by_id[0];
	const float* y = ex->by_id[1];
	const uint32_t* id = ex->order.ids;
	char* p = dst;
	for (uint32_t i = a; i < b; ++i) {
		char* end = p + THR_TEXT_ROW_MAX;
		APPEND(p, end, "%u\t%s\t%.6f\t%.6f\t0\n", id[i], frame_text, (double)x[i], (double)y[i]);
	}
	return (size_t)(p - dst);
}

/// Prints every agent's row in parallel chunks, then writes the chunks in order.
static throng_status write_rows(throng_exporter* ex, row_printer rows, const char* frame_text)
{
	text_state* s = ex->impl;
	const uint32_t n = ex->order.count;
	throng_status st = text_reserve(ex, n);
	if (st != THRONG_OK) {
		return st;
	}
	const uint32_t chunks = (n + THR_TEXT_CHUNK - 1u) / THR_TEXT_CHUNK;
	const int threads = (int)throng_default_threads(); // capped, not OMP_NUM_THREADS as given
	(void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (chunks > 1)
	for (uint32_t c = 0; c < chunks; ++c) {
		uint32_t a = c * THR_TEXT_CHUNK;
		uint32_t b = a + THR_TEXT_CHUNK < n ? a + THR_TEXT_CHUNK : n;
		s->len[c] = rows(ex, frame_text, a, b, s->buf + (size_t)a * THR_TEXT_ROW_MAX);
	}
	for (uint32_t c = 0; c < chunks; ++c) {
		st = thr_sink_write(ex, s->buf + (size_t)c * THR_TEXT_CHUNK * THR_TEXT_ROW_MAX, s->len[c]);
		if (st != THRONG_OK) {
			return st;
		}
	}
	return THRONG_OK;
}

static throng_status csv_begin(throng_exporter* ex)
{
	throng_status st = text_alloc(ex);
	if (st != THRONG_OK) {
		return st;
	}
	char line[256] = "id,frame,time";
	for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
		if ((ex->def.fields & (1u << f)) != 0) {
			strcat(line, ",");
			strcat(line, csv_columns[f]);
		}
	}
	strcat(line, "\n");
	return thr_sink_write(ex, line, strlen(line));
}

static throng_status csv_frame(throng_exporter* ex, const throng_view* view)
{
	throng_status st = thr_exporter_by_id(ex, view, ex->def.fields);
	if (st != THRONG_OK) {
		return st;
	}
	char frame_text[64];
	snprintf(frame_text, sizeof frame_text, "%llu,%.9g", (unsigned long long)ex->frames,
	         (double)view->step * (double)ex->def.dt);
	return write_rows(ex, csv_rows, frame_text);
}

static throng_status ped_begin(throng_exporter* ex)
{
	throng_status st = text_alloc(ex);
	if (st != THRONG_OK) {
		return st;
	}
	const throng_export_def* d = &ex->def;
	char head[1024];
	snprintf(head, sizeof head,
	         "# description: throng %d.%d.%d, scenario %s, %u agents at the start, seed %llu\n"
	         "# framerate: %.6g\n"
	         "# dt: %.9g s per step, a frame every %u step(s)\n"
	         "# bounds: %.9g %.9g %.9g %.9g (x min, y min, x max, y max; m)\n"
	         "# unit: m\n"
	         "# ID: the agent's id (from 0; a frame lists the agents alive in it, by id)\n"
	         "# FR: the frame (from 0); time = FR / framerate\n"
	         "# X,Y,Z: the agent's position (in m); Z is 0\n"
	         "#\n"
	         "# ID\tFR\tX\tY\tZ\n",
	         THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR, THRONG_VERSION_PATCH,
	         ex->scenario[0] != '\0' ? ex->scenario : "(none)", d->agents, (unsigned long long)d->seed,
	         thr_export_fps(d), (double)d->dt, d->every, (double)d->bounds_min.x, (double)d->bounds_min.y,
	         (double)d->bounds_max.x, (double)d->bounds_max.y);
	return thr_sink_write(ex, head, strlen(head));
}

static throng_status ped_frame(throng_exporter* ex, const throng_view* view)
{
	throng_status st = thr_exporter_by_id(ex, view, THRONG_FIELD_X | THRONG_FIELD_Y);
	if (st != THRONG_OK) {
		return st;
	}
	char frame_text[32];
	snprintf(frame_text, sizeof frame_text, "%llu", (unsigned long long)ex->frames);
	return write_rows(ex, ped_rows, frame_text);
}

const thr_exporter_ops thr_csv_ops = {csv_begin, csv_frame, NULL, text_release, false};
const thr_exporter_ops thr_ped_ops = {ped_begin, ped_frame, NULL, text_release, false};
