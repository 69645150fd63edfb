// SPDX-License-Identifier: MIT
// Exporters: the parts every output format shares.
//
// A frame leaves the library ordered by id (id_order.c sorts each view),
// with the agents alive at its step: the count may change from frame to
// frame and the ids have gaps once agents were removed.
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "export_writer.h"

/// Set by throng_export_default_def(); a def without it is rejected.
#define THR_EXPORT_COOKIE 0x74657870

static const char* const field_names[THRONG_FIELD_BITS] = {"x",     "y",         "vx",     "vy",
                                                            "hx",    "hy",        "group",  "archetype",
                                                            "health", "combat_state"};

throng_export_def throng_export_default_def(void)
{
	throng_export_def d;
	memset(&d, 0, sizeof d);
	d.format = THRONG_FORMAT_AUTO;
	d.fields = 0;
	d.every = 0;
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.world = NULL;
	d.internal_cookie = THR_EXPORT_COOKIE;
	return d;
}

/// def.world: takes agents, dt, bounds, bounds mode and seed from the world
/// into *out, after checking that the def left them at their defaults.
static throng_status take_world(const throng_export_def* def, throng_export_def* out, const char* who)
{
	const throng_export_def d = throng_export_default_def();
	const char* both = def->agents != d.agents                                                 ? "agents"
	                   : def->dt != d.dt                                                         ? "dt"
	                   : def->bounds_min.x != d.bounds_min.x || def->bounds_min.y != d.bounds_min.y ? "bounds_min"
	                   : def->bounds_max.x != d.bounds_max.x || def->bounds_max.y != d.bounds_max.y ? "bounds_max"
	                   : def->bounds_mode != d.bounds_mode                                       ? "bounds_mode"
	                   : def->seed != d.seed                                                     ? "seed"
	                                                                                             : NULL;
	if (both != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: def.world and def.%s are both set (def.%s is read from the world; leave it at its default)",
		                who, both, both);
	}
	throng_world_def w = throng_world_get_def(def->world);
	out->agents = throng_world_agent_count(def->world);
	out->dt = w.dt;
	out->bounds_min = w.bounds_min;
	out->bounds_max = w.bounds_max;
	out->bounds_mode = w.bounds_mode;
	out->seed = w.seed;
	out->world = NULL;
	return THRONG_OK;
}

/// Case-insensitive "does path end in ext".
static bool ends_with(const char* path, const char* ext)
{
	size_t n = strlen(path), m = strlen(ext);
	if (n < m) {
		return false;
	}
	for (size_t k = 0; k < m; ++k) {
		if (tolower((unsigned char)path[n - m + k]) != ext[k]) {
			return false;
		}
	}
	return true;
}

throng_format throng_format_from_path(const char* path)
{
	if (path == NULL || strcmp(path, "-") == 0) {
		return THRONG_FORMAT_BINARY;
	}
	if (ends_with(path, ".csv")) {
		return THRONG_FORMAT_CSV;
	}
	if (ends_with(path, ".txt") || ends_with(path, ".ped")) {
		return THRONG_FORMAT_PED;
	}
	if (ends_with(path, ".sqlite") || ends_with(path, ".sqlite3") || ends_with(path, ".db")) {
		return THRONG_FORMAT_SQLITE;
	}
	return THRONG_FORMAT_BINARY;
}

/// The format names (throng_format_name), spelled only here.
static const char* const format_names[] = {
	[THRONG_FORMAT_AUTO] = "auto", [THRONG_FORMAT_BINARY] = "bin",     [THRONG_FORMAT_CSV] = "csv",
	[THRONG_FORMAT_PED] = "ped",   [THRONG_FORMAT_SQLITE] = "sqlite",
};

const char* throng_format_name(throng_format format)
{
	return (unsigned)format < sizeof format_names / sizeof format_names[0] ? format_names[format] : NULL;
}

int thr_name_index(const char* const* names, size_t count, const char* name)
{
	for (size_t k = 0; name != NULL && k < count; ++k) {
		if (strcmp(name, names[k]) == 0) {
			return (int)k;
		}
	}
	return -1;
}

bool throng_format_from_name(const char* name, throng_format* out)
{
	int k = thr_name_index(format_names, sizeof format_names / sizeof format_names[0], name);
	if (k >= 0 && out != NULL) {
		*out = (throng_format)k;
	}
	return k >= 0;
}

const char* throng_field_name(uint32_t field_bit)
{
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if (field_bit == (1u << k)) {
			return field_names[k];
		}
	}
	return NULL;
}

/// Mask of one name of a field list, 0 when unknown.
static uint32_t field_mask_of(const char* name, size_t len)
{
	static const struct {
		const char* name;
		uint32_t mask;
	} shorthands[] = {{"position", THRONG_FIELD_X | THRONG_FIELD_Y},
	                  {"velocity", THRONG_FIELD_VX | THRONG_FIELD_VY},
	                  {"heading", THRONG_FIELD_HX | THRONG_FIELD_HY},
	                  {"all", THRONG_FIELDS_ALL}};
	for (int k = 0; k < THRONG_FIELD_BITS; ++k) {
		if (strlen(field_names[k]) == len && strncmp(field_names[k], name, len) == 0) {
			return 1u << k;
		}
	}
	for (size_t k = 0; k < sizeof shorthands / sizeof shorthands[0]; ++k) {
		if (strlen(shorthands[k].name) == len && strncmp(shorthands[k].name, name, len) == 0) {
			return shorthands[k].mask;
		}
	}
	return 0;
}

throng_status throng_fields_parse(const char* list, uint32_t* mask_out)
{
	if (list == NULL || mask_out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_fields_parse: list and mask_out must not be NULL");
	}
	uint32_t mask = 0;
	const char* p = list;
	for (;;) {
		const char* comma = strchr(p, ',');
		size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		uint32_t m = field_mask_of(p, len);
		if (m == 0) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			                "unknown field \"%.*s\" in \"%.64s\" (expected x, y, vx, vy, hx, hy, group, archetype, "
			                "position, velocity, heading or all, comma-separated)",
			                (int)(len < 64 ? len : 64), p, list);
		}
		mask |= m;
		if (comma == NULL) {
			break;
		}
		p = comma + 1;
	}
	*mask_out = mask;
	return THRONG_OK;
}

throng_status thr_export_def_check(const throng_export_def* def, throng_export_def* out, const char* who)
{
	if (def == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def must not be NULL", who);
	}
	if (def->internal_cookie != THR_EXPORT_COOKIE) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def was not made by throng_export_default_def()", who);
	}
	*out = *def;
	if (def->world != NULL) {
		throng_status st = take_world(def, out, who);
		if (st != THRONG_OK) {
			return st;
		}
		def = out;
	}
	out->fields = def->fields != 0 ? def->fields : THRONG_FIELDS_DEFAULT;
	out->every = def->every != 0 ? def->every : 1u;
	if ((out->fields & ~(uint32_t)THRONG_FIELDS_ALL) != 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.fields 0x%x has bits beyond THRONG_FIELDS_ALL", who,
		                out->fields);
	}
	if (!(def->dt > 0.0f) || !(def->dt <= 1.0e6f)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.dt must be a positive number of seconds, got %g", who,
		                (double)def->dt);
	}
	if ((unsigned)def->format > THRONG_FORMAT_SQLITE) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.format %d is not a throng_format", who, (int)def->format);
	}
	if ((unsigned)def->bounds_mode > THRONG_BOUNDS_OPEN) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.bounds_mode %d is not a throng_bounds_mode", who,
		                (int)def->bounds_mode);
	}
	if (def->scenario != NULL && strlen(def->scenario) > THRONG_EXPORT_NAME_MAX) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.scenario is longer than %d bytes", who,
		                THRONG_EXPORT_NAME_MAX);
	}
	return THRONG_OK;
}

throng_status thr_frame_due(const throng_view* view, uint32_t every, uint64_t frames, uint64_t first_step,
                            uint64_t last_step, bool* due, const char* who)
{
	*due = false;
	if (view == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: view must not be NULL", who);
	}
	if (frames == 0) {
		*due = true;
		return THRONG_OK;
	}
	if (view->step == last_step) {
		return THRONG_OK;
	}
	if (view->step < last_step) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: step %llu is before the last frame's step %llu", who,
		                (unsigned long long)view->step, (unsigned long long)last_step);
	}
	if (view->step - last_step > every) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: called at step %llu, so the frame due at step %llu was skipped (call after every step)",
		                who, (unsigned long long)view->step, (unsigned long long)(last_step + every));
	}
	*due = (view->step - first_step) % every == 0;
	return THRONG_OK;
}

void thr_view_field_sources(const throng_view* view, const void* src[THRONG_FIELD_BITS])
{
	src[0] = view->x;
	src[1] = view->y;
	src[2] = view->vx;
	src[3] = view->vy;
	src[4] = view->hx;
	src[5] = view->hy;
	src[6] = view->group;
	src[7] = view->archetype;
	src[8] = view->health;
	src[9] = view->combat_state;
}

double thr_export_fps(const throng_export_def* def)
{
	return 1.0 / ((double)def->dt * (double)def->every);
}

throng_status thr_exporter_by_id(throng_exporter* ex, const throng_view* view, uint32_t fields)
{
	throng_status st = thr_id_order_build(&ex->order, view, fields, ex->path);
	if (st != THRONG_OK) {
		return st;
	}
	const uint32_t n = ex->order.count;
	if (n > ex->by_id_cap) {
		uint32_t cap = n > ex->by_id_cap * 2u ? n : ex->by_id_cap * 2u;
		for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
			if ((fields & (1u << f)) == 0) {
				continue; // an exporter asks for the same fields every frame
			}
			void* p = realloc(ex->by_id[f], (size_t)cap * 4u);
			if (p == NULL) {
				return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u agents", ex->path, n);
			}
			ex->by_id[f] = p;
		}
		ex->by_id_cap = cap;
	}
	thr_id_order_gather(&ex->order, view, fields, ex->by_id);
	return THRONG_OK;
}

throng_status thr_sink_write(throng_exporter* ex, const void* data, size_t n)
{
	const char* p = data;
	while (n > 0) {
		ssize_t w = write(ex->fd, p, n);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			const char* what = strerror(e);
			if (e == EPIPE) {
				what = "the reader closed the pipe (EPIPE)";
			} else if (e == ENOSPC) {
				what = "no space left on the device (ENOSPC)";
			} else if (e == EFBIG) {
				what = "the file reached the size limit (EFBIG)";
			}
			return thr_fail(THRONG_ERR_IO, "%s: write failed after %llu bytes: %s", ex->path,
			                (unsigned long long)ex->bytes, what);
		}
		p += w;
		n -= (size_t)w;
		ex->bytes += (uint64_t)w;
	}
	return THRONG_OK;
}

/// Frees everything; removes the temporary of a file never published.
static void exporter_free(throng_exporter* ex)
{
	if (ex->ops != NULL && ex->ops->release != NULL) {
		ex->ops->release(ex);
	}
	throng_output_file_destroy(ex->file);
	for (int f = 0; f < THRONG_FIELD_BITS; ++f) {
		free(ex->by_id[f]);
	}
	thr_id_order_free(&ex->order);
	free(ex->failure);
	free(ex->path);
	free(ex);
}

/// What a stream cut back to its last whole frame holds, for messages.
static void describe_whole(const throng_exporter* ex, char* buf, size_t cap)
{
	const char* head = ex->ops == &thr_stream_ops ? "the header" : ex->ops == &thr_csv_ops ? "the header line"
	                                                                                      : "the comment header";
	if (ex->ops == &thr_stream_ops) {
		snprintf(buf, cap, "%s and %llu whole frame%s", head, (unsigned long long)ex->frames,
		         ex->frames == 1 ? "" : "s");
	} else {
		snprintf(buf, cap, "%s and the %llu rows of %llu whole frame%s", head, (unsigned long long)ex->rows,
		         (unsigned long long)ex->frames,
		         ex->frames == 1 ? "" : "s");
	}
	if (ex->frames > 0) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, " (steps %llu to %llu)", (unsigned long long)ex->first_step,
		         (unsigned long long)ex->last_step);
	}
}

/// After a write failure of a stream format: cuts a temporary file back to
/// the end of its last whole frame and adds to the message what the file
/// holds (or, written in place, what it received).
static void stream_stopped(throng_exporter* ex)
{
	char holds[160], what[512];
	describe_whole(ex, holds, sizeof holds);
	ex->kept_frames = ex->frames;
	if (ex->file != NULL && !throng_output_file_in_place(ex->file)) {
		if (ex->frames == 0) {
			snprintf(what, sizeof what, "no whole frame was written, so %s is left as it was", ex->path);
		} else if (ftruncate(ex->fd, (off_t)ex->whole_bytes) == 0) {
			snprintf(what, sizeof what, "%s holds %s%s", ex->path, holds,
			         ex->ops == &thr_stream_ops ? ", and no end record" : "");
		} else {
			ex->kept_frames = 0;
			snprintf(what, sizeof what, "it could not be cut back to its last whole frame (%s), so %s is left as it was",
			         strerror(errno), ex->path);
		}
	} else {
		uint64_t cut = ex->bytes - ex->whole_bytes;
		snprintf(what, sizeof what, "%s received %s%s", ex->path, holds, cut > 0 ? ", then part of the next" : "");
		if (cut > 0) {
			size_t n = strlen(what);
			snprintf(what + n, sizeof what - n, " (%llu bytes; not a regular file, so it cannot be cut back)",
			         (unsigned long long)cut);
		}
	}
	char* msg = malloc(strlen(throng_last_error()) + 1);
	if (msg != NULL) {
		strcpy(msg, throng_last_error());
		thr_fail(THRONG_ERR_IO, "%s; %s", msg, what);
		free(msg);
	}
}

/// Records a failure so every later call repeats it, and returns it. An
/// I/O failure of a stream format first cuts the file back (stream_stopped).
static throng_status exporter_failed(throng_exporter* ex, throng_status st)
{
	if (ex->failed == THRONG_OK) {
		if (st == THRONG_ERR_IO && !ex->ops->by_name) {
			stream_stopped(ex);
		}
		ex->failed = st;
		size_t len = strlen(throng_last_error());
		ex->failure = malloc(len + 1);
		if (ex->failure != NULL) {
			memcpy(ex->failure, throng_last_error(), len + 1);
		}
	}
	return st;
}

throng_status throng_exporter_create(const char* path, const throng_export_def* def, throng_exporter** out)
{
	if (out == NULL || path == NULL || path[0] == '\0') {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_exporter_create: path and out must not be NULL or empty");
	}
	*out = NULL;
	throng_export_def d;
	throng_status st = thr_export_def_check(def, &d, "throng_exporter_create");
	if (st != THRONG_OK) {
		return st;
	}
	if (d.format == THRONG_FORMAT_AUTO) {
		d.format = throng_format_from_path(path);
	}
	if (d.format == THRONG_FORMAT_SQLITE && throng_output_path_is_stdout(path)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_exporter_create: SQLite needs a file; it cannot be written to standard output");
	}
	throng_exporter* ex = calloc(1, sizeof *ex);
	char* path_copy = malloc(strlen(path) + 1);
	if (ex == NULL || path_copy == NULL) {
		free(ex);
		free(path_copy);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_exporter_create: out of memory");
	}
	strcpy(path_copy, path);
	ex->path = path_copy;
	ex->fd = -1;
	if (d.scenario != NULL) {
		strcpy(ex->scenario, d.scenario);
	}
	d.scenario = ex->scenario;
	ex->def = d;
	switch (d.format) {
	case THRONG_FORMAT_CSV: ex->ops = &thr_csv_ops; break;
	case THRONG_FORMAT_PED: ex->ops = &thr_ped_ops; break;
	case THRONG_FORMAT_SQLITE: ex->ops = &thr_sqlite_ops; break;
	default: ex->ops = &thr_stream_ops; break;
	}

	// Open (and so check) the path before anything is simulated. A regular
	// file is written to a temporary beside it (core/output_file.c); SQLite
	// opens that temporary again by name, so it needs a name to open.
	st = throng_output_file_open(path, &ex->file);
	if (st != THRONG_OK) {
		exporter_free(ex);
		return st;
	}
	if (d.format == THRONG_FORMAT_SQLITE && throng_output_file_is_stream(ex->file)) {
		exporter_free(ex);
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_exporter_create: %s: SQLite needs a file; it cannot be written to a standard stream "
		                "or an inherited descriptor",
		                path);
	}
	ex->fd = throng_output_file_fd(ex->file);
	ex->world = def->world; // only for begin: the world is not kept
	st = ex->ops->begin(ex);
	ex->world = NULL;
	if (st != THRONG_OK) {
		exporter_free(ex); // nothing worth keeping: the temporary goes, the path stays as it was
		return st;
	}
	ex->whole_bytes = ex->bytes;
	*out = ex;
	return THRONG_OK;
}

throng_status throng_exporter_write_view(throng_exporter* ex, const throng_view* view)
{
	if (ex == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_exporter_write_view: exporter must not be NULL");
	}
	if (ex->finished) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the exporter is finished (throng_exporter_finish)", ex->path);
	}
	if (ex->failed != THRONG_OK) {
		return thr_fail(ex->failed, "%s", ex->failure != NULL ? ex->failure : "the exporter failed earlier");
	}
	bool due = false;
	throng_status st = thr_frame_due(view, ex->def.every, ex->frames, ex->first_step, ex->last_step, &due, ex->path);
	if (st != THRONG_OK || !due) {
		return st; // a bad call is the caller's error, not the file's: not sticky
	}
	st = ex->ops->frame(ex, view);
	if (st == THRONG_ERR_IO) {
		return exporter_failed(ex, st); // the file is broken from here on
	}
	if (st != THRONG_OK) {
		return st; // a bad view (checked before anything was written) or no memory: try again
	}
	if (ex->frames == 0) {
		ex->first_step = view->step;
	}
	ex->last_step = view->step;
	ex->frames += 1;
	ex->rows += view->count;
	ex->whole_bytes = ex->bytes;
	return THRONG_OK;
}

throng_status throng_exporter_write(throng_exporter* ex, const throng_world* world)
{
	if (world == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_exporter_write: world must not be NULL");
	}
	throng_view view = throng_world_view(world);
	return throng_exporter_write_view(ex, &view);
}

uint64_t throng_exporter_frames(const throng_exporter* ex)
{
	return ex != NULL ? ex->frames : 0;
}

const char* throng_exporter_notice(const throng_exporter* ex)
{
	return ex != NULL ? throng_output_file_notice(ex->file) : NULL;
}

void throng_exporter_set_interrupted(throng_exporter* ex)
{
	if (ex != NULL) {
		ex->interrupted = true;
	}
}

throng_status throng_exporter_finish(throng_exporter* ex)
{
	if (ex == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_exporter_finish: exporter must not be NULL");
	}
	if (ex->finished) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: throng_exporter_finish: already finished", ex->path);
	}
	ex->finished = true;
	throng_status st = ex->failed;
	if (st == THRONG_OK && ex->ops->finish != NULL) {
		st = ex->ops->finish(ex);
		if (st == THRONG_ERR_IO) {
			exporter_failed(ex, st); // a stream without its end record, cut back to its last whole frame
		}
	} else if (st != THRONG_OK) {
		thr_fail(st, "%s", ex->failure != NULL ? ex->failure : "the exporter failed earlier");
	}
	if (ex->ops->release != NULL) {
		ex->ops->release(ex);
	}
	ex->ops = NULL;
	// Publish the file: whole on success; after an I/O failure, when it
	// keeps at least one whole frame (the message says what it holds).
	// Otherwise it is discarded (the temporary goes, the path stays).
	throng_output_file* file = ex->file;
	ex->file = NULL;
	if (file != NULL && (st == THRONG_OK || (ex->failed == THRONG_ERR_IO && ex->kept_frames > 0))) {
		throng_status cs = throng_output_file_commit(file);
		st = st == THRONG_OK ? cs : st;
	}
	throng_output_file_destroy(file);
	return st;
}

void throng_exporter_destroy(throng_exporter* ex)
{
	if (ex == NULL) {
		return;
	}
	exporter_free(ex); // not finished: discards the file, a temporary goes and the path stays as it was
}
