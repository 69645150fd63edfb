// SPDX-License-Identifier: MIT
// Scene checkpoints: a running scene saved whole and made again
// (include/throng/scenario.h, docs/FORMAT.md "Scene checkpoints").
//
// Design. A scene is its world plus a definition and the little state its
// script keeps (the step counter, the threat as last set, the random goals
// by id, the outcome measure's state). The definition is a pure function
// of how the scene was opened (a built-in's name and agents option, or a
// scenario file's definition) and the seed, so a checkpoint keeps that
// recipe instead of the definition itself: restoring rebuilds the scene
// from it, then puts the saved world (a world checkpoint, kept verbatim,
// core/checkpoint.c) in place of the rebuilt one and the saved script
// state over the fresh one. A scenario file's definition is kept as
// throng_scene_save_string() writes it (the text `throng save` writes, which
// builds the same world bit for bit), so a checkpoint needs no file but
// itself and a scenario file edited since cannot change the run. The
// rebuild costs one build of the scene (its world made and dropped): the
// price of not keeping a second copy of the definition's code path.
//
// The file: a 32-byte header ("THRONGSC", version, the library's version,
// the section count, the size), a SCNE section (the recipe and the script
// state), a WCKP section (the world checkpoint's bytes), an XXH3-64 of
// everything before it. The fields use the world checkpoint's codec
// (core/checkpoint.h), so both kinds read and write alike; the reader
// checks the header, the size and the checksum before it builds anything.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scene_checkpoint.h"
#include "throng/checkpoint.h"
#include "throng/file.h"
#include "throng/scene_part.h"
#include "throng/scenario_file.h"

/// A run of bytes behind its length (a u32 or, `wide`, a u64).
static void sized_bytes(thr_ck_io* io, const char** bytes, uint64_t* len, bool wide)
{
	if (wide) {
		thr_ck_u64(io, len);
	} else {
		uint32_t n = (uint32_t)*len;
		thr_ck_u32(io, &n);
		*len = n;
	}
	if (io->emit != NULL) {
		io->emit(io, *bytes, (size_t)*len);
		return;
	}
	if (*len > io->end - io->pos) {
		thr_ck_corrupt(io, io->pos, "a string of %llu bytes runs past its section's end", (unsigned long long)*len);
		return;
	}
	*bytes = (const char*)thr_ck_take(io, (size_t)*len);
}

void sck_scene_body(thr_ck_io* io, sck_scene* s)
{
	thr_ck_u32(io, &s->kind);
	uint64_t name_len = s->name_len;
	sized_bytes(io, &s->name, &name_len, false);
	s->name_len = (uint32_t)name_len;
	thr_ck_u32(io, &s->agents);
	thr_ck_u64(io, &s->seed);
	thr_ck_u32(io, &s->engine);
	thr_ck_u64(io, &s->steps);
	thr_ck_bool(io, &s->threat_active);
	thr_ck_f32(io, &s->threat_p.x);
	thr_ck_f32(io, &s->threat_p.y);
	thr_ck_f32(io, &s->threat_v.x);
	thr_ck_f32(io, &s->threat_v.y);
	thr_ck_u64(io, &s->resolved_at);
	thr_ck_u64(io, &s->flow_left);
	thr_ck_u64(io, &s->flow_late);
	thr_ck_u64(io, &s->flow_worst);
	thr_ck_u32(io, &s->watch_count);
	if (io->emit != NULL) {
		for (uint32_t k = 0; k < s->watch_count; ++k) {
			float b = s->born[k], f = s->free_time[k];
			thr_ck_f32(io, &b);
			thr_ck_f32(io, &f);
		}
	} else if ((uint64_t)s->watch_count * 8u > io->end - io->pos) {
		thr_ck_corrupt(io, io->pos, "%u watched ids run past the section's end", s->watch_count);
	} else {
		s->watch_bytes = thr_ck_take(io, (size_t)s->watch_count * 8u);
	}
	thr_ck_u32(io, &s->goal_count);
	if (io->emit != NULL) {
		for (uint32_t k = 0; k < s->goal_count; ++k) {
			throng_vec2 g = s->goal[k];
			thr_ck_f32(io, &g.x);
			thr_ck_f32(io, &g.y);
		}
	} else if ((uint64_t)s->goal_count * 8u > io->end - io->pos) {
		thr_ck_corrupt(io, io->pos, "%u goals run past the section's end", s->goal_count);
	} else {
		s->goal_bytes = thr_ck_take(io, (size_t)s->goal_count * 8u);
	}
	sized_bytes(io, &s->source, &s->source_len, true);
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// Emits into a buffer the size was counted for (buf NULL: counts only).
typedef struct sck_sink {
	uint8_t* buf;
	size_t pos;
} sck_sink;

static void sink_emit(thr_ck_io* io, const void* bytes, size_t n)
{
	sck_sink* s = io->sink;
	if (s->buf != NULL && n > 0) {
		memcpy(s->buf + s->pos, bytes, n);
	}
	s->pos += n;
}

/// A section's header (its tag and body size); the body follows.
static void section_header(thr_ck_io* io, uint32_t tag, uint64_t body)
{
	uint32_t reserved = 0;
	thr_ck_u32(io, &tag);
	thr_ck_u32(io, &reserved);
	thr_ck_u64(io, &body);
}

static void pad8(thr_ck_io* io, uint64_t body)
{
	static const uint8_t zeros[8];
	io->emit(io, zeros, (size_t)((8u - body % 8u) % 8u));
}

/// The scene's section fields; *text gets a file scene's definition (free() it).
static throng_status gather(const throng_scene* scene, sck_scene* s, char** text)
{
	memset(s, 0, sizeof *s);
	*text = NULL;
	const bool file = scene->file_entry != NULL;
	s->kind = file ? SCK_FILE : SCK_BUILTIN;
	s->name = scene->scenario->info.name;
	const size_t name_len = strlen(s->name);
	if (name_len == 0 || name_len > SCK_MAX_NAME) { // the reader refuses it
		return thr_fail(THRONG_ERR_UNSUPPORTED, "scene \"%.64s\": a name of %zu bytes (a checkpoint keeps 1 to %u)",
		                s->name, name_len, SCK_MAX_NAME);
	}
	s->name_len = (uint32_t)name_len;
	s->agents = scene->agents;
	const throng_world_def wd = throng_world_get_def(scene->world);
	s->seed = wd.seed;
	s->engine = (uint32_t)wd.engine;
	s->steps = scene->steps;
	s->threat_active = scene->threat_active;
	s->threat_p = scene->threat_position;
	s->threat_v = scene->threat_velocity;
	const thr_measure_state* ms = &scene->measure_state;
	memcpy(&s->resolved_at, &ms->resolved_at, sizeof s->resolved_at);
	s->flow_left = ms->left;
	s->flow_late = ms->late;
	memcpy(&s->flow_worst, &ms->worst, sizeof s->flow_worst);
	s->watch_count = ms->born != NULL ? ms->watch_cap : 0u;
	s->born = ms->born;
	s->free_time = ms->free_time;
	s->goal_count = scene->def.goal != NULL ? scene->def.goal_count : 0u;
	s->goal = scene->def.goal;
	s->source = "";
	if (file) {
		size_t len = 0;
		throng_status st = throng_scene_save_string(scene, text, &len);
		if (st != THRONG_OK) {
			return st;
		}
		if (len > THRONG_MAX_FILE_SIZE) { // the reader could not load it back
			return thr_fail(THRONG_ERR_UNSUPPORTED,
			                "scene %s: its definition saved is %zu bytes, above the %u a scenario file may hold",
			                s->name, len, THRONG_MAX_FILE_SIZE);
		}
		s->source = *text;
		s->source_len = len;
	}
	return THRONG_OK;
}

/// Emits the whole checkpoint (header, sections, checksum) into buf,
/// `total` bytes (counted by a first pass with buf NULL, which writes
/// nothing and leaves the checksum 0).
static throng_status emit_all(const throng_scene* scene, sck_scene* s, const char* fn, uint8_t* buf, size_t* total)
{
	sck_sink count = {NULL, 0};
	thr_ck_io dry = {sink_emit, &count, NULL, 0, 0, 0, fn, THRONG_OK};
	sck_scene_body(&dry, s);
	const uint64_t scene_bytes = count.pos;
	size_t world_bytes = 0;
	throng_status st = throng_world_checkpoint_size(scene->world, &world_bytes);
	if (st != THRONG_OK) {
		return st;
	}
	sck_sink sink = {buf, 0};
	thr_ck_io io = {sink_emit, &sink, NULL, 0, 0, 0, fn, THRONG_OK};
	uint8_t h[THR_CK_HEADER_BYTES];
	thr_ck_header(h, SCK_MAGIC, SCK_VERSION, SCK_SECTIONS, *total);
	io.emit(&io, h, sizeof h);
	section_header(&io, SCK_SCENE, scene_bytes);
	sck_scene_body(&io, s);
	pad8(&io, scene_bytes);
	section_header(&io, SCK_WORLD, world_bytes);
	if (buf != NULL) {
		size_t written = 0;
		st = throng_world_write_checkpoint(scene->world, buf + sink.pos, world_bytes, &written);
		if (st != THRONG_OK) {
			return st;
		}
	}
	sink.pos += world_bytes;
	pad8(&io, world_bytes);
	uint64_t sum = buf != NULL ? XXH3_64bits(buf, sink.pos) : 0u;
	thr_ck_u64(&io, &sum);
	*total = sink.pos;
	return io.st;
}

/// Checks the scene for a checkpoint and gathers its fields.
static throng_status prepare(const throng_scene* scene, const char* fn, sck_scene* s, char** text, size_t* total)
{
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: scene is NULL", fn);
	}
	throng_status st = gather(scene, s, text);
	if (st == THRONG_OK) {
		*total = 0;
		st = emit_all(scene, s, fn, NULL, total);
	}
	return st;
}

throng_status throng_scene_write_checkpoint(const throng_scene* scene, void* buf, size_t cap, size_t* written)
{
	static const char fn[] = "throng_scene_write_checkpoint";
	if (written == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: written is NULL", fn);
	}
	sck_scene s;
	char* text = NULL;
	size_t total = 0;
	throng_status st = prepare(scene, fn, &s, &text, &total);
	if (st == THRONG_OK) {
		*written = total;
		if (buf != NULL && cap < total) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: cap: the checkpoint needs %zu bytes (got %zu)", fn, total,
			              cap);
		} else if (buf != NULL) {
			st = emit_all(scene, &s, fn, buf, &total);
		}
	}
	free(text);
	return st;
}

throng_status throng_scene_save_checkpoint(const throng_scene* scene, const char* path)
{
	static const char fn[] = "throng_scene_save_checkpoint";
	if (path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: path is NULL", fn);
	}
	sck_scene s;
	char* text = NULL;
	size_t total = 0;
	throng_status st = prepare(scene, fn, &s, &text, &total);
	uint8_t* buf = st == THRONG_OK ? malloc(total) : NULL;
	if (st == THRONG_OK && buf == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for a checkpoint of %zu bytes", path, total);
	}
	if (st == THRONG_OK) {
		st = emit_all(scene, &s, path, buf, &total);
	}
	free(text);
	if (st == THRONG_OK) {
		st = sf_write_whole(path, buf, total);
	}
	free(buf);
	return st;
}


throng_status throng_scene_save_part_checkpoint(throng_scene* scene, throng_world* whole, const throng_world* part,
                                                const char* path)
{
	static const char fn[] = "throng_scene_save_part_checkpoint";
	if (scene == NULL || whole == NULL || part == NULL || path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: scene, whole, part and path are needed", fn);
	}
	if (throng_world_view(whole).step != throng_world_view(part).step) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the whole world is at step %llu, the part at %llu", fn,
		                (unsigned long long)throng_world_view(whole).step,
		                (unsigned long long)throng_world_view(part).step);
	}
	// What every part holds alike: the threat the script set, the sources'
	// progress.
	throng_vec2 p, v;
	bool active = false;
	throng_part_get_threat(part, &p, &v, &active);
	throng_status st = throng_world_set_threat(whole, p, v, active);
	if (st == THRONG_OK) {
		st = throng_part_copy_sources(whole, part);
	}
	// The random goals: each part's script drew its own agents', which
	// every agent carries as its target point.
	const uint32_t n = throng_world_agent_count(whole);
	for (uint32_t i = 0; st == THRONG_OK && i < n && scene->def.goal != NULL; ++i) {
		throng_agent_record r;
		throng_agent_record_get(whole, i, &r);
		throng_scene_part_goals(scene, &r, 1);
	}
	if (st == THRONG_OK) {
		throng_world* had = throng_scene_swap_world(scene, whole);
		st = throng_scene_save_checkpoint(scene, path);
		throng_scene_swap_world(scene, had);
	}
	return st;
}
