// SPDX-License-Identifier: MIT
// SQLite exporter in JuPedSim's trajectory schema (database version 2; see
// docs/FORMAT.md for the tables).
//
// Rows go in through one prepared statement, and the frames are grouped
// into transactions of def.sqlite_batch frames (by default about 250,000
// rows): one commit per frame would spend more time syncing the journal
// than inserting at 100,000 agents. A batch is all or nothing, so a run
// that stops early (a full disk, a crash) leaves every committed frame
// readable and none of the batch in progress. The (frame, id) index is
// built once at the end, which is faster than keeping it up to date, and
// also after a failure, over the frames committed.
//
// The database is the temporary file of output_file.c (renamed onto the path
// when done), so its rollback journal is the temporary's own and never sits
// next to the path. A path that is not a regular file (/dev/null, a FIFO)
// is refused before SQLite opens it, so it never creates
// "/dev/null-journal"; a regular file written in place (through a link to
// a name that did not exist) keeps its journal in memory.
//
// The geometry table holds the walkable area (walkable.c): the bounds minus
// the obstacles and walls of def.world when the exporter is created, one
// WKT POLYGON. An open world's agents may walk out of its bounds: the
// exporter keeps the extent of the positions it writes and, when the run
// finishes with some outside, writes the area again over the bounds and
// that extent grown by THR_SQLITE_OPEN_MARGIN, so every position is inside.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "export_writer.h"
#include "walkable.h"

/// Rows per transaction the default batch aims at.
#define THR_SQLITE_BATCH_ROWS 250000u
/// An open world's walkable area reaches this far (m) past every position written.
#define THR_SQLITE_OPEN_MARGIN 1.0

typedef struct sqlite_state {
	sqlite3* db;
	sqlite3_stmt* insert_row;
	sqlite3_stmt* insert_frame;
	uint32_t batch;          ///< frames per transaction
	uint32_t pending;        ///< frames in the open transaction
	uint64_t committed;      ///< frames committed
	uint64_t committed_rows; ///< their trajectory rows
	uint64_t pending_rows;   ///< rows of the open transaction
	int64_t geometry_hash;
	char* wkt;               ///< the walkable area written into the geometry table
	thr_walkable_info walkable;
	thr_walkable_shapes shapes; ///< the world's obstacles and walls (an open world's area is cut again)
	double extent[4];        ///< open world: min x, min y, max x, max y of the finite positions written
} sqlite_state;

static throng_status db_fail(throng_exporter* ex, const char* doing)
{
	sqlite_state* s = ex->impl;
	return thr_fail(THRONG_ERR_IO, "%s: SQLite failed %s: %s", ex->path, doing,
	                s != NULL && s->db != NULL ? sqlite3_errmsg(s->db) : "cannot open the database");
}

static throng_status exec(throng_exporter* ex, const char* sql, const char* doing)
{
	sqlite_state* s = ex->impl;
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		return db_fail(ex, doing);
	}
	return THRONG_OK;
}

/// Whether PATH-suffix exists (a journal).
static bool journal_exists(const char* path, const char* suffix)
{
	size_t n = strlen(path) + strlen(suffix) + 1;
	char* p = malloc(n);
	bool found = false;
	if (p != NULL) {
		snprintf(p, n, "%s%s", path, suffix);
		struct stat st;
		found = lstat(p, &st) == 0;
		free(p);
	}
	return found;
}

/// Removes the temporary's own journal, when SQLite left one.
static void remove_journal(const char* path)
{
	size_t n = strlen(path) + 9;
	char* p = malloc(n);
	if (p != NULL) {
		snprintf(p, n, "%s-journal", path);
		unlink(p);
		free(p);
	}
}

/// After a failure: rolls the open batch back, indexes what was committed
/// and says in the message what the file holds. `doing` and the SQLite
/// message are already in throng_last_error().
static throng_status sqlite_stopped(throng_exporter* ex)
{
	sqlite_state* s = ex->impl;
	char first[1024];
	snprintf(first, sizeof first, "%s", throng_last_error());
	bool indexed = false;
	if (s != NULL && s->db != NULL) {
		if (!sqlite3_get_autocommit(s->db)) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		}
		s->pending = 0;
		s->pending_rows = 0;
		indexed = s->committed > 0 &&
		          sqlite3_exec(s->db, "CREATE INDEX IF NOT EXISTS frame_id_idx ON trajectory_data(frame, id)", NULL,
		                       NULL, NULL) == SQLITE_OK;
	}
	uint64_t frames = s != NULL ? s->committed : 0;
	ex->kept_frames = frames;
	if (frames == 0) {
		return thr_fail(THRONG_ERR_IO, "%s; no frame was committed, so %s %s", first, ex->path,
		                throng_output_file_in_place(ex->file) ? "holds no frame" : "is left as it was");
	}
	return thr_fail(THRONG_ERR_IO, "%s; %s holds the %llu frames committed before (%llu rows, steps %llu to %llu)%s",
	                first, ex->path, (unsigned long long)frames, (unsigned long long)s->committed_rows,
	                (unsigned long long)ex->first_step,
	                (unsigned long long)(ex->first_step + (frames - 1u) * ex->def.every),
	                indexed ? ", indexed by (frame, id)" : ", without the (frame, id) index");
}

static throng_status put_meta(throng_exporter* ex, sqlite3_stmt* st, const char* key, const char* value)
{
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE) {
		return db_fail(ex, "writing the metadata table");
	}
	return THRONG_OK;
}

static throng_status write_schema(throng_exporter* ex)
{
	sqlite_state* s = ex->impl;
	const throng_export_def* d = &ex->def;
	static const char schema[] =
		"CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE trajectory_data(frame INTEGER NOT NULL, id INTEGER NOT NULL, pos_x REAL NOT NULL, "
		"pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y REAL NOT NULL);"
		"CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);"
		"CREATE UNIQUE INDEX geometry_hash ON geometry(hash);"
		"CREATE TABLE frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);";
	throng_status st = exec(ex, "BEGIN", "starting the schema transaction");
	if (st == THRONG_OK) {
		st = exec(ex, schema, "creating the tables");
	}
	if (st != THRONG_OK) {
		return st;
	}

	// The walkable area (sqlite_begin cut it): its hash is the CRC-32 of its text.
	s->geometry_hash = (int64_t)thr_crc32(0, s->wkt, strlen(s->wkt));

	sqlite3_stmt* meta = NULL;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO metadata(key, value) VALUES(?, ?)", -1, &meta, NULL) != SQLITE_OK) {
		return db_fail(ex, "preparing the metadata insert");
	}
	char v[6][64];
	snprintf(v[0], sizeof v[0], "%.6g", thr_export_fps(d));
	snprintf(v[1], sizeof v[1], "%.9g", (double)d->bounds_min.x);
	snprintf(v[2], sizeof v[2], "%.9g", (double)d->bounds_max.x);
	snprintf(v[3], sizeof v[3], "%.9g", (double)d->bounds_min.y);
	snprintf(v[4], sizeof v[4], "%.9g", (double)d->bounds_max.y);
	snprintf(v[5], sizeof v[5], "%.9g", (double)d->dt);
	char producer[64], seed[32], every[16], agents[16], pieces[16];
	snprintf(producer, sizeof producer, "throng %d.%d.%d", THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR,
	         THRONG_VERSION_PATCH);
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)d->seed);
	snprintf(every, sizeof every, "%u", d->every);
	snprintf(agents, sizeof agents, "%u", d->agents);
	snprintf(pieces, sizeof pieces, "%u", s->walkable.pieces);
	const char* const kv[][2] = {
		{"version", "2"}, {"fps", v[0]},      {"xmin", v[1]},          {"xmax", v[2]},
		{"ymin", v[3]},   {"ymax", v[4]},     {"producer", producer},  {"scenario", ex->scenario},
		{"seed", seed},   {"dt", v[5]},       {"every_nth_step", every}, {"agents", agents},
		{"walkable_pieces", pieces},
	};
	for (size_t k = 0; k < sizeof kv / sizeof kv[0] && st == THRONG_OK; ++k) {
		st = put_meta(ex, meta, kv[k][0], kv[k][1]);
	}
	sqlite3_finalize(meta);
	if (st != THRONG_OK) {
		return st;
	}

	sqlite3_stmt* geo = NULL;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO geometry(hash, wkt) VALUES(?, ?)", -1, &geo, NULL) != SQLITE_OK) {
		return db_fail(ex, "preparing the geometry insert");
	}
	sqlite3_bind_int64(geo, 1, s->geometry_hash);
	sqlite3_bind_text(geo, 2, s->wkt, -1, SQLITE_STATIC);
	int rc = sqlite3_step(geo);
	sqlite3_finalize(geo);
	if (rc != SQLITE_DONE) {
		return db_fail(ex, "writing the geometry table");
	}
	return exec(ex, "COMMIT", "committing the schema");
}

static throng_status sqlite_begin(throng_exporter* ex)
{
	sqlite_state* s = calloc(1, sizeof *s);
	if (s == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", ex->path);
	}
	ex->impl = s;
	// export.c opened the output (a new, empty temporary beside a regular
	// file, or the path in place); SQLite opens it again by name.
	bool in_place = throng_output_file_in_place(ex->file);
	struct stat fst;
	if (fstat(ex->fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
		// SQLite reads back every page it writes: /dev/null, a FIFO or a
		// device cannot hold a database. Refused before SQLite opens it.
		return thr_fail(THRONG_ERR_IO, "%s: SQLite needs a regular file it can read back, and this is not one "
		                "(a device, FIFO or socket)", ex->path);
	}
	if (!in_place && (journal_exists(ex->path, "-journal") || journal_exists(ex->path, "-wal"))) {
		// SQLite would apply that journal to the new file once it replaces
		// the path, and throng removes nothing it did not create.
		return thr_fail(THRONG_ERR_IO,
		                "%s: cannot replace it: %s-journal or %s-wal exists (left by a SQLite writer that stopped; "
		                "SQLite would apply it to the new file). Remove it, or write to another path",
		                ex->path, ex->path, ex->path);
	}
	// The walkable area, before SQLite opens anything: a world whose shapes
	// cover its bounds is refused here.
	// When walls cut it apart, the piece kept is the one the world's agents
	// are in now.
	throng_status st = ex->world != NULL ? thr_walkable_shapes_of(ex->world, &s->shapes) : THRONG_OK;
	const throng_export_def* d = &ex->def;
	const double box[4] = {d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y};
	thr_walkable_points agents = {NULL, NULL, 0};
	if (ex->world != NULL) {
		throng_view view = throng_world_view(ex->world);
		agents = (thr_walkable_points){view.x, view.y, view.count};
	}
	if (st == THRONG_OK) {
		st = thr_walkable_wkt(&s->shapes, box, agents, &s->wkt, &s->walkable, ex->path);
	}
	if (st != THRONG_OK) {
		return st;
	}
	s->extent[0] = s->extent[1] = INFINITY;
	s->extent[2] = s->extent[3] = -INFINITY;
	if (sqlite3_open_v2(throng_output_file_write_path(ex->file), &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	                    NULL) != SQLITE_OK) {
		return db_fail(ex, "opening the file");
	}
	uint32_t rows = THR_SQLITE_BATCH_ROWS;
	// The default batch is sized by the agents the run begins with (at
	// least one), as frames: a crowd that grows makes bigger batches.
	uint32_t per_frame = ex->def.agents > 0 ? ex->def.agents : 1u;
	s->batch = ex->def.sqlite_batch != 0 ? ex->def.sqlite_batch : (rows + per_frame - 1u) / per_frame;
	st = exec(ex,
	          in_place ? "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;"
	                   : "PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;",
	          "setting the journal mode");
	if (st == THRONG_OK) {
		st = write_schema(ex);
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (sqlite3_prepare_v2(s->db, "INSERT INTO trajectory_data VALUES(?, ?, ?, ?, ?, ?)", -1, &s->insert_row,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO frame_data VALUES(?, ?)", -1, &s->insert_frame, NULL) != SQLITE_OK) {
		return db_fail(ex, "preparing the row inserts");
	}
	return THRONG_OK;
}

static throng_status sqlite_insert(throng_exporter* ex, const throng_view* view)
{
	sqlite_state* s = ex->impl;
	throng_status st = thr_exporter_by_id(ex, view, THRONG_FIELD_X | THRONG_FIELD_Y | THRONG_FIELD_HX | THRONG_FIELD_HY);
	if (st != THRONG_OK) {
		return st;
	}
	if (s->pending == 0 && (st = exec(ex, "BEGIN", "starting a transaction")) != THRONG_OK) {
		return st;
	}
	const float* x = ex->by_id[0];
	const float* y = ex->by_id[1];
	const float* hx = ex->by_id[4];
	const float* hy = ex->by_id[5];
	const uint32_t* id = ex->order.ids;
	const uint32_t n = ex->order.count;
	sqlite3_int64 frame = (sqlite3_int64)ex->frames;
	if (ex->def.bounds_mode == THRONG_BOUNDS_OPEN) {
		for (uint32_t i = 0; i < n; ++i) {
			if (isfinite(x[i]) && isfinite(y[i])) {
				s->extent[0] = fmin(s->extent[0], (double)x[i]);
				s->extent[1] = fmin(s->extent[1], (double)y[i]);
				s->extent[2] = fmax(s->extent[2], (double)x[i]);
				s->extent[3] = fmax(s->extent[3], (double)y[i]);
			}
		}
	}
	for (uint32_t i = 0; i < n; ++i) {
		sqlite3_stmt* q = s->insert_row;
		sqlite3_bind_int64(q, 1, frame);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)id[i]);
		sqlite3_bind_double(q, 3, (double)x[i]);
		sqlite3_bind_double(q, 4, (double)y[i]);
		sqlite3_bind_double(q, 5, (double)hx[i]);
		sqlite3_bind_double(q, 6, (double)hy[i]);
		int rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE) {
			char doing[96];
			snprintf(doing, sizeof doing, "inserting frame %llu, agent %u", (unsigned long long)ex->frames, id[i]);
			return db_fail(ex, doing);
		}
	}
	sqlite3_bind_int64(s->insert_frame, 1, frame);
	sqlite3_bind_int64(s->insert_frame, 2, s->geometry_hash);
	int rc = sqlite3_step(s->insert_frame);
	sqlite3_reset(s->insert_frame);
	if (rc != SQLITE_DONE) {
		return db_fail(ex, "writing the frame_data table");
	}
	s->pending += 1;
	s->pending_rows += n;
	if (s->pending >= s->batch) {
		if ((st = exec(ex, "COMMIT", "committing a batch of frames")) != THRONG_OK) {
			return st;
		}
		s->committed += s->pending;
		s->committed_rows += s->pending_rows;
		s->pending = 0;
		s->pending_rows = 0;
	}
	return THRONG_OK;
}

static throng_status sqlite_frame(throng_exporter* ex, const throng_view* view)
{
	throng_status st = sqlite_insert(ex, view);
	return st == THRONG_ERR_IO ? sqlite_stopped(ex) : st;
}

/// An open world whose agents left its bounds: the walkable area cut
/// again from the bounds and the positions' extent grown by
/// THR_SQLITE_OPEN_MARGIN, with its hash in the geometry table, every
/// frame's row and the xmin..ymax metadata, in one transaction.
static throng_status open_world_area(throng_exporter* ex)
{
	sqlite_state* s = ex->impl;
	const throng_export_def* d = &ex->def;
	const double* e = s->extent;
	if (d->bounds_mode != THRONG_BOUNDS_OPEN || !(e[0] <= e[2]) ||
	    (e[0] >= d->bounds_min.x && e[1] >= d->bounds_min.y && e[2] <= d->bounds_max.x && e[3] <= d->bounds_max.y)) {
		return THRONG_OK;
	}
	const double m = THR_SQLITE_OPEN_MARGIN;
	const double box[4] = {fmin(d->bounds_min.x, e[0] - m), fmin(d->bounds_min.y, e[1] - m),
	                       fmax(d->bounds_max.x, e[2] + m), fmax(d->bounds_max.y, e[3] + m)};
	char* wkt = NULL;
	thr_walkable_info info;
	// The last frame written (x and y by id) chooses the piece kept.
	const thr_walkable_points last = {ex->by_id[0], ex->by_id[1], ex->order.count};
	throng_status st = thr_walkable_wkt(&s->shapes, box, last, &wkt, &info, ex->path);
	if (st != THRONG_OK) {
		return st;
	}
	free(s->wkt);
	s->wkt = wkt;
	s->walkable = info;
	s->geometry_hash = (int64_t)thr_crc32(0, wkt, strlen(wkt));
	char v[5][32];
	for (int k = 0; k < 4; ++k) {
		snprintf(v[k], sizeof v[k], "%.9g", box[k]);
	}
	snprintf(v[4], sizeof v[4], "%u", info.pieces);
	static const char* const keys[5] = {"xmin", "ymin", "xmax", "ymax", "walkable_pieces"};
	sqlite3_stmt* q[3] = {NULL, NULL, NULL};
	static const char* const sql[3] = {"UPDATE geometry SET hash = ?1, wkt = ?2",
	                                   "UPDATE frame_data SET geometry_hash = ?1",
	                                   "UPDATE metadata SET value = ?2 WHERE key = ?1"};
	st = exec(ex, "BEGIN", "starting the open world's geometry transaction");
	for (int k = 0; k < 3 && st == THRONG_OK; ++k) {
		if (sqlite3_prepare_v2(s->db, sql[k], -1, &q[k], NULL) != SQLITE_OK) {
			st = db_fail(ex, "preparing the open world's geometry update");
		}
	}
	for (int k = 0; k < 2 && st == THRONG_OK; ++k) {
		sqlite3_bind_int64(q[k], 1, s->geometry_hash);
		if (k == 0) {
			sqlite3_bind_text(q[k], 2, wkt, -1, SQLITE_STATIC);
		}
		if (sqlite3_step(q[k]) != SQLITE_DONE) {
			st = db_fail(ex, "writing the open world's walkable area");
		}
	}
	for (int k = 0; k < 5 && st == THRONG_OK; ++k) {
		sqlite3_reset(q[2]);
		sqlite3_bind_text(q[2], 1, keys[k], -1, SQLITE_STATIC);
		sqlite3_bind_text(q[2], 2, v[k], -1, SQLITE_TRANSIENT);
		if (sqlite3_step(q[2]) != SQLITE_DONE) {
			st = db_fail(ex, "writing the open world's extent into the metadata");
		}
	}
	for (int k = 0; k < 3; ++k) {
		sqlite3_finalize(q[k]);
	}
	return st == THRONG_OK ? exec(ex, "COMMIT", "committing the open world's walkable area") : st;
}

static throng_status sqlite_finish(throng_exporter* ex)
{
	sqlite_state* s = ex->impl;
	throng_status st = THRONG_OK;
	if (s->pending > 0) {
		st = exec(ex, "COMMIT", "committing the last frames");
		if (st == THRONG_OK) {
			s->committed += s->pending;
			s->committed_rows += s->pending_rows;
			s->pending = 0;
			s->pending_rows = 0;
		}
	}
	if (st == THRONG_OK) {
		st = open_world_area(ex);
	}
	if (st == THRONG_OK) {
		st = exec(ex, "CREATE INDEX frame_id_idx ON trajectory_data(frame, id)", "indexing (frame, id)");
	}
	if (st != THRONG_OK) {
		st = sqlite_stopped(ex);
	}
	sqlite3_finalize(s->insert_row);
	sqlite3_finalize(s->insert_frame);
	s->insert_row = s->insert_frame = NULL;
	if (sqlite3_close(s->db) != SQLITE_OK && st == THRONG_OK) {
		st = db_fail(ex, "closing the file");
	}
	s->db = NULL;
	return st;
}

static void sqlite_release(throng_exporter* ex)
{
	sqlite_state* s = ex->impl;
	if (s == NULL) {
		return;
	}
	sqlite3_finalize(s->insert_row);
	sqlite3_finalize(s->insert_frame);
	if (s->db != NULL) {
		// Closing with a transaction open rolls it back: a failed run keeps
		// the batches it committed and nothing half-written.
		sqlite3_close(s->db);
	}
	if (!throng_output_file_in_place(ex->file) && journal_exists(throng_output_file_write_path(ex->file), "-journal")) {
		// A journal SQLite could not finish with: the temporary may be
		// inconsistent without it, so neither is kept.
		remove_journal(throng_output_file_write_path(ex->file));
		ex->kept_frames = 0;
	}
	free(s->wkt);
	thr_walkable_shapes_free(&s->shapes);
	free(s);
	ex->impl = NULL;
}

const thr_exporter_ops thr_sqlite_ops = {sqlite_begin, sqlite_frame, sqlite_finish, sqlite_release, true};
