// SPDX-License-Identifier: MIT
// Scene checkpoints read back: the file's checks, the caller's checks of
// which scene it holds, the rebuild of that scene and the saved world and
// script state put into it (scene_checkpoint.c has the design).
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "error.h"
#include "scene_checkpoint.h"
#include "throng/checkpoint.h"
#include "throng/scenario_file.h"

throng_scene_resume_def throng_scene_default_resume_def(void)
{
	throng_scene_resume_def d;
	memset(&d, 0, sizeof d);
	d.engine = THRONG_ENGINE_SIMD;
	return d;
}

/// Checks the header, the size and the checksum of data[0, size), then
/// takes the scene section into *s and the world checkpoint's bytes into
/// *world, *world_size. io->st says why it failed.
static void take_sections(thr_ck_io* io, sck_scene* s, const uint8_t** world, size_t* world_size)
{
	const uint8_t* data = io->data;
	const size_t size = io->size;
	if (size < THR_CK_HEADER_BYTES + THR_CK_CHECKSUM_BYTES || memcmp(data, SCK_MAGIC, 8) != 0) {
		if (size >= 8 && memcmp(data, THR_CK_MAGIC, 8) == 0) {
			thr_ck_corrupt(io, 0, "a world checkpoint (throng_world_save_checkpoint), not a scene's");
		} else if (size >= 8 && memcmp(data, SCK_MAGIC, 8) == 0) {
			thr_ck_corrupt(io, size, "truncated at byte %zu, inside the header", size);
		} else {
			thr_ck_corrupt(io, 0, "not a throng scene checkpoint (no \"%s\" magic)", SCK_MAGIC);
		}
		return;
	}
	const uint32_t version = (uint32_t)thr_ck_get_le(data + 8, 4);
	const uint64_t total = thr_ck_get_le(data + 24, 8);
	if (version == 0 || version > SCK_VERSION) {
		thr_ck_corrupt(io, 8, "format version %u (this library reads 1 to %u)", version, SCK_VERSION);
	} else if (total != size) {
		thr_ck_corrupt(io, size < total ? size : (size_t)total, "%zu bytes where the header says %llu: %s", size,
		               (unsigned long long)total, size < total ? "truncated" : "bytes after its end");
	} else if (thr_ck_get_le(data + 20, 4) != SCK_SECTIONS) {
		thr_ck_corrupt(io, 20, "%u sections (expected %u)", (unsigned)thr_ck_get_le(data + 20, 4), SCK_SECTIONS);
	} else {
		const uint64_t stored = thr_ck_get_le(data + size - THR_CK_CHECKSUM_BYTES, 8);
		const uint64_t sum = XXH3_64bits(data, size - THR_CK_CHECKSUM_BYTES);
		if (stored != sum) {
			thr_ck_corrupt(io, size - THR_CK_CHECKSUM_BYTES,
			               "checksum mismatch (stored 0x%016llx, the bytes give 0x%016llx): the checkpoint is damaged",
			               (unsigned long long)stored, (unsigned long long)sum);
		}
	}
	io->pos = THR_CK_HEADER_BYTES;
	if (thr_ck_open_section(io, SCK_SCENE)) {
		sck_scene_body(io, s);
		thr_ck_close_section(io);
	}
	if (thr_ck_open_section(io, SCK_WORLD)) {
		*world_size = io->end - io->pos;
		*world = thr_ck_take(io, *world_size);
		thr_ck_close_section(io);
	}
	if (io->st == THRONG_OK && io->pos != size - THR_CK_CHECKSUM_BYTES) {
		thr_ck_corrupt(io, io->pos, "%zu bytes after the last section", size - THR_CK_CHECKSUM_BYTES - io->pos);
	}
}

/// The scene checkpoint `name` holds, said in a message: "built-in scene
/// herd" or "scenario file scene hall".
static void describe(const sck_scene* s, char* buf, size_t cap)
{
	snprintf(buf, cap, "%s scene %.*s", s->kind == SCK_BUILTIN ? "built-in" : "scenario file", (int)s->name_len,
	         s->name);
}

/// Whether a scenario file at `path` states the definition the checkpoint
/// keeps (built with the checkpoint's seed and engine, and saved as text).
static throng_status same_file(const char* name, const sck_scene* s, const char* path)
{
	throng_scene_def def = throng_scene_default_def();
	def.seed = s->seed;
	def.engine = (throng_engine)s->engine;
	def.threads = 1;
	throng_scene* scene = NULL;
	throng_status st = throng_scene_load_file(path, &def, &scene);
	char* text = NULL;
	size_t len = 0;
	if (st == THRONG_OK) {
		st = throng_scene_save_string(scene, &text, &len);
	}
	throng_scene_destroy(scene);
	if (st == THRONG_OK && (len != s->source_len || memcmp(text, s->source, len) != 0)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		              "%s: its scene's definition is not the one %s states now (the file was edited, or is another)",
		              name, path);
	}
	free(text);
	return st;
}

/// Refuses a checkpoint whose scene is not what `expect` asks for.
static throng_status check_expect(const char* name, const sck_scene* s, const throng_scene_resume_def* expect)
{
	char what[SCK_MAX_NAME + 64];
	describe(s, what, sizeof what);
	const char* want = expect->scene;
	if (want != NULL && throng_scenario_find(want) != NULL) {
		if (s->kind != SCK_BUILTIN || strlen(want) != s->name_len || memcmp(want, s->name, s->name_len) != 0) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: a checkpoint of %s, not of %s", name, what, want);
		}
	} else if (want != NULL && throng_scene_is_file(want)) {
		if (s->kind != SCK_FILE) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: a checkpoint of %s, not of the scenario file %s", name,
			                what, want);
		}
		throng_status st = same_file(name, s, want);
		if (st != THRONG_OK) {
			return st;
		}
	} else if (want != NULL) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: a checkpoint of %s, not of \"%.64s\" (no such scenario)", name, what,
		                want);
	}
	if (expect->agents != 0 && (s->kind == SCK_FILE || expect->agents != s->agents)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: a checkpoint of %s with %u agents%s, not %u", name, what,
		                s->agents, s->kind == SCK_FILE ? " (a scenario file sets its own counts)" : "",
		                expect->agents);
	}
	if (expect->check_seed && expect->seed != s->seed) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: a checkpoint of %s with seed %llu, not %llu", name, what,
		                (unsigned long long)s->seed, (unsigned long long)expect->seed);
	}
	if (expect->check_engine && (uint32_t)expect->engine != s->engine) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: a checkpoint of %s on the %s engine, not %s", name, what,
		                throng_engine_name((throng_engine)s->engine), throng_engine_name(expect->engine));
	}
	return THRONG_OK;
}

/// Checks the scene section's values on their own (read whole: io has
/// not failed). Offsets: the kind, the name's length, and for the rest
/// the section's body.
static void check_fields(thr_ck_io* io, const sck_scene* s)
{
	const size_t body = THR_CK_HEADER_BYTES + THR_CK_SECTION_BYTES;
	if (s->kind != SCK_BUILTIN && s->kind != SCK_FILE) {
		thr_ck_corrupt(io, body, "scene kind %u (0 built-in, 1 file)", s->kind);
	} else if (s->name_len == 0 || s->name_len > SCK_MAX_NAME || memchr(s->name, '\0', s->name_len) != NULL) {
		thr_ck_corrupt(io, body + 4u, "a scene name of %u bytes (1 to %u, no NUL)", s->name_len, SCK_MAX_NAME);
	} else if (s->engine != THRONG_ENGINE_SCALAR && s->engine != THRONG_ENGINE_SIMD) {
		thr_ck_corrupt(io, body, "the scene section's engine %u is not an engine", s->engine);
	} else if ((s->kind == SCK_FILE) != (s->source_len > 0) || s->source_len > THRONG_MAX_FILE_SIZE) {
		thr_ck_corrupt(io, body, "the scene section holds a definition of %llu bytes for a %s scene",
		               (unsigned long long)s->source_len, s->kind == SCK_FILE ? "scenario file" : "built-in");
	}
}

/// Rebuilds the scene the checkpoint names, on `world`'s engine, threads
/// and force recording.
static throng_status rebuild(const char* name, const sck_scene* s, const throng_world_def* wd, throng_scene** out)
{
	char scene_name[SCK_MAX_NAME + 1];
	memcpy(scene_name, s->name, s->name_len);
	scene_name[s->name_len] = '\0';
	throng_scene_def def = throng_scene_default_def();
	def.agents = s->kind == SCK_BUILTIN ? s->agents : 0u;
	def.seed = s->seed;
	def.engine = wd->engine;
	def.threads = wd->threads;
	def.threads_policy = wd->threads_policy;
	def.record_forces = wd->record_forces;
	throng_status st = s->kind == SCK_BUILTIN
	                       ? throng_scene_create(scene_name, &def, out)
	                       : throng_scene_load_memory(scene_name, s->source, (size_t)s->source_len, &def, NULL, NULL, out);
	if (st != THRONG_OK) {
		// A scene this library cannot make (a built-in it lacks, a
		// definition it refuses) is the checkpoint's fault, not the caller's.
		char why[600];
		snprintf(why, sizeof why, "%s", throng_last_error());
		return thr_fail(st == THRONG_ERR_OUT_OF_MEMORY ? st : THRONG_ERR_CORRUPT, "%s: cannot rebuild its scene %s: %s",
		                name, scene_name, why);
	}
	const throng_scene* sc = *out;
	const uint32_t goals = sc->def.goal != NULL ? sc->def.goal_count : 0u;
	if (sc->agents != s->agents || goals != s->goal_count || sc->dt != (double)wd->dt) {
		throng_scene_destroy(*out);
		*out = NULL;
		return thr_fail(THRONG_ERR_CORRUPT,
		                "%s: its scene %s rebuilds with %u agents, %u random goals and a step of %g s; the checkpoint "
		                "has %u, %u and %g s",
		                name, scene_name, sc->agents, goals, sc->dt, s->agents, s->goal_count, (double)wd->dt);
	}
	return THRONG_OK;
}

/// Puts the saved world and script state in the rebuilt scene; out of
/// memory for the flows watch, changes nothing.
static throng_status restore_state(throng_scene* scene, throng_world* world, const sck_scene* s)
{
	thr_measure_state* m = &scene->measure_state;
	if (s->watch_count > 0) {
		float* born = malloc((size_t)s->watch_count * sizeof *born);
		float* free_time = malloc((size_t)s->watch_count * sizeof *free_time);
		if (born == NULL || free_time == NULL) {
			free(born);
			free(free_time);
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scene checkpoint: out of memory for %u watched ids",
			                s->watch_count);
		}
		for (uint32_t k = 0; k < s->watch_count; ++k) {
			const uint32_t b = (uint32_t)thr_ck_get_le(s->watch_bytes + 8u * k, 4);
			const uint32_t f = (uint32_t)thr_ck_get_le(s->watch_bytes + 8u * k + 4u, 4);
			memcpy(&born[k], &b, 4);
			memcpy(&free_time[k], &f, 4);
		}
		free(m->born);
		free(m->free_time);
		m->born = born;
		m->free_time = free_time;
		m->watch_cap = s->watch_count;
	}
	m->left = s->flow_left;
	m->late = s->flow_late;
	memcpy(&m->worst, &s->flow_worst, sizeof m->worst);
	throng_world_destroy(scene->world);
	scene->world = world;
	scene->steps = s->steps;
	scene->threat_active = s->threat_active;
	scene->threat_position = s->threat_p;
	scene->threat_velocity = s->threat_v;
	memcpy(&scene->measure_state.resolved_at, &s->resolved_at, sizeof s->resolved_at);
	for (uint32_t k = 0; k < s->goal_count; ++k) {
		const uint32_t x = (uint32_t)thr_ck_get_le(s->goal_bytes + 8u * k, 4);
		const uint32_t y = (uint32_t)thr_ck_get_le(s->goal_bytes + 8u * k + 4u, 4);
		memcpy(&scene->def.goal[k].x, &x, 4);
		memcpy(&scene->def.goal[k].y, &y, 4);
	}
	return THRONG_OK;
}

/// A scene from the checkpoint data[0, size) called `name` in messages.
static throng_status read_scene(const uint8_t* data, size_t size, const char* name,
                                const throng_scene_resume_def* expect, throng_scene** out)
{
	thr_ck_io io = {NULL, NULL, data, size, 0, size, name, THRONG_OK};
	sck_scene s;
	memset(&s, 0, sizeof s);
	const uint8_t* world_bytes = NULL;
	size_t world_size = 0;
	take_sections(&io, &s, &world_bytes, &world_size);
	if (io.st == THRONG_OK) {
		check_fields(&io, &s);
	}
	if (io.st != THRONG_OK) {
		return io.st;
	}
	throng_status st = expect != NULL ? check_expect(name, &s, expect) : THRONG_OK;
	if (st != THRONG_OK) {
		return st;
	}
	throng_world* world = NULL;
	st = throng_world_read_checkpoint(world_bytes, world_size, &world);
	if (st != THRONG_OK) {
		char why[600];
		snprintf(why, sizeof why, "%s", throng_last_error());
		return thr_fail(st, "%s: its world, from byte offset %zu: %s", name, (size_t)(world_bytes - data), why);
	}
	const throng_world_def wd = throng_world_get_def(world);
	if (wd.seed != s.seed || (uint32_t)wd.engine != s.engine || throng_world_view(world).step != s.steps) {
		throng_world_destroy(world);
		return thr_fail(THRONG_ERR_CORRUPT,
		                "%s: its scene (seed %llu, %s engine, step %llu) and its world (seed %llu, %s, step %llu) "
		                "disagree",
		                name, (unsigned long long)s.seed, throng_engine_name((throng_engine)s.engine),
		                (unsigned long long)s.steps, (unsigned long long)wd.seed, throng_engine_name(wd.engine),
		                (unsigned long long)throng_world_view(world).step);
	}
	throng_scene* scene = NULL;
	st = rebuild(name, &s, &wd, &scene);
	if (st != THRONG_OK) {
		throng_world_destroy(world);
		return st;
	}
	st = restore_state(scene, world, &s);
	if (st != THRONG_OK) {
		throng_world_destroy(world);
		throng_scene_destroy(scene);
		return st;
	}
	*out = scene;
	return THRONG_OK;
}

throng_status throng_scene_read_checkpoint(const void* buf, size_t bytes, const throng_scene_resume_def* expect,
                                           throng_scene** out)
{
	static const char fn[] = "throng_scene_read_checkpoint";
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
	}
	*out = NULL;
	if (buf == NULL && bytes > 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: buf is NULL", fn);
	}
	static const uint8_t none[1];
	return read_scene(buf != NULL ? buf : none, bytes, "checkpoint in memory", expect, out);
}

throng_status throng_scene_load_checkpoint(const char* path, const throng_scene_resume_def* expect, throng_scene** out)
{
	static const char fn[] = "throng_scene_load_checkpoint";
	if (out == NULL || path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, out == NULL ? "out" : "path");
	}
	*out = NULL;
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		return thr_fail(THRONG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	// Read whole (grown by doubling: a pipe has no size to ask for).
	size_t cap = 1u << 16, len = 0;
	uint8_t* data = malloc(cap);
	while (data != NULL) {
		len += fread(data + len, 1, cap - len, f);
		if (len < cap || ferror(f)) {
			break;
		}
		uint8_t* grown = cap <= SIZE_MAX / 2u ? realloc(data, 2u * cap) : NULL;
		if (grown == NULL) {
			free(data);
		}
		data = grown;
		cap *= 2u;
	}
	const int err = errno;
	const bool failed = data == NULL || ferror(f);
	fclose(f);
	throng_status st = THRONG_OK;
	if (data == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory to read the checkpoint", path);
	} else if (failed) {
		st = thr_fail(THRONG_ERR_IO, "%s: cannot read: %s", path, strerror(err));
	} else {
		st = read_scene(data, len, path, expect, out);
	}
	free(data);
	return st;
}
