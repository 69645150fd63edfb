// SPDX-License-Identifier: MIT
// Scenario files: the public functions (include/throng/scenario_file.h).
// Reading a file, checking it (stages 1 and 2), building the scene (stage 3)
// and saving a loaded scene's definition (stage 4); the stages are described
// in scenario_file_internal.h.
#define _POSIX_C_SOURCE 200809L // fileno, fstat

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "throng/file.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"

// ---------------------------------------------------------------------------
// A file's scene: the one builder's world under the file's own scenario entry
// ---------------------------------------------------------------------------

throng_status sf_build_scene(sf_ctx* c, sf_model* model, const throng_scene_def* opt, sf_pos root,
                             throng_scene** out)
{
	thr_scenario* entry = calloc(1, sizeof *entry);
	throng_scene* scene = entry != NULL ? thr_scene_new(entry) : NULL;
	if (scene == NULL) {
		free(entry);
		sf_model_free(model);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario file: out of memory for the scene");
	}
	scene->file_entry = entry; // the file's own scenario entry, freed with the scene
	throng_status st = sf_build_into(c, scene, model, opt, root);
	const sf_model* m = scene->def.model;
	entry->info.name = m->name;
	entry->info.description = m->description;
	entry->info.default_agents = (uint32_t)m->agents;
	entry->info.default_steps = m->steps > UINT32_MAX ? UINT32_MAX : (uint32_t)m->steps;
	if (st != THRONG_OK) {
		throng_scene_destroy(scene);
		return st;
	}
	*out = scene;
	return THRONG_OK;
}

// ---------------------------------------------------------------------------
// The public functions
// ---------------------------------------------------------------------------

/// Reads and checks; on success *model holds the checked model.
static bool load_model(sf_ctx* c, const void* data, size_t size, sf_model* model, sf_pos* root_pos)
{
	sf_model_defaults(model, c->file);
	if (size > THRONG_MAX_FILE_SIZE) {
		sf_error(c, (sf_pos){1, 1}, "the file has more than %u bytes (expected at most %u)", THRONG_MAX_FILE_SIZE,
		         THRONG_MAX_FILE_SIZE);
		return false;
	}
	sf_node* root = sf_read_yaml(c, data, size);
	if (root == NULL) {
		return false;
	}
	*root_pos = root->pos;
	sf_parse_model(c, root, model);
	sf_node_free(root);
	return c->problems == 0;
}

/// Reports the problems found (sorted) and sets the message of a failed
/// load: the first problem and how many followed.
static throng_status invalid(sf_ctx* c)
{
	sf_ctx_finish(c);
	if (c->problems > 1) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s (and %u more problem%s)", c->first, c->problems - 1u,
		                c->problems > 2 ? "s" : "");
	}
	return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s", c->first);
}

throng_status throng_scene_load_memory(const char* name, const void* data, size_t size,
                                       const throng_scene_def* options, throng_diagnostic_fn report, void* user,
                                       throng_scene** out)
{
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_load_memory: out is NULL");
	}
	*out = NULL;
	if (data == NULL && size != 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_load_memory: data is NULL");
	}
	throng_scene_def opt = options != NULL ? *options : throng_scene_default_def();
	if (opt.agents != 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: options.agents must be 0: a scenario file sets the count of each group",
		                name != NULL ? name : "(memory)");
	}
	if (opt.engine != THRONG_ENGINE_SCALAR && opt.engine != THRONG_ENGINE_SIMD) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: engine %d is not an engine", name != NULL ? name : "(memory)",
		                (int)opt.engine);
	}
	sf_ctx c;
	sf_ctx_init(&c, name != NULL ? name : "(memory)", report, user);
	sf_model model;
	sf_pos root = {1, 1};
	if (!load_model(&c, data != NULL ? data : "", size, &model, &root)) {
		sf_model_free(&model);
		return invalid(&c);
	}
	throng_status st = sf_build_scene(&c, &model, &opt, root, out);
	if (st != THRONG_OK && c.problems > 0) {
		return invalid(&c);
	}
	sf_ctx_finish(&c);
	return st;
}

/// Reads a whole file into *data. A file larger than THRONG_MAX_FILE_SIZE
/// costs nothing: a regular file is refused by its size before a byte is
/// read, anything else (a pipe, a device) once one byte more has come.
static throng_status read_file(const char* path, throng_diagnostic_fn report, void* user, unsigned char** data,
                               size_t* size)
{
	sf_ctx ctx;
	sf_ctx* c = &ctx; // its problems are reported here; the bytes go to a call of their own
	sf_ctx_init(c, path, report, user);
	*data = NULL;
	*size = 0;
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		sf_error(c, (sf_pos){0, 0}, "cannot open the file: %s (expected a readable file)", strerror(errno));
		sf_ctx_finish(c);
		return thr_fail(THRONG_ERR_IO, "%s", c->first);
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)THRONG_MAX_FILE_SIZE) {
		fclose(f);
		sf_error(c, (sf_pos){1, 1}, "the file has %lld bytes (expected at most %u)", (long long)st.st_size,
		         THRONG_MAX_FILE_SIZE);
		return invalid(c);
	}
	// At most THRONG_MAX_FILE_SIZE + 1 bytes: one more than allowed says
	// it is too large.
	const size_t most = (size_t)THRONG_MAX_FILE_SIZE + 1u;
	size_t cap = 1u << 16, len = 0;
	unsigned char* buf = malloc(cap);
	while (buf != NULL) {
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap || cap == most) {
			break;
		}
		size_t next = 2u * cap < most ? 2u * cap : most;
		unsigned char* grown = realloc(buf, next);
		if (grown == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = grown;
		cap = next;
	}
	bool no_memory = buf == NULL;
	bool failed = no_memory || ferror(f);
	int err = errno;
	fclose(f);
	if (failed) {
		free(buf);
		sf_error(c, (sf_pos){0, 0}, "cannot read the file: %s (expected a readable file)",
		         no_memory ? "out of memory" : strerror(err));
		sf_ctx_finish(c);
		return thr_fail(THRONG_ERR_IO, "%s", c->first);
	}
	*data = buf;
	*size = len;
	return THRONG_OK;
}

throng_status throng_scene_load_file_report(const char* path, const throng_scene_def* options,
                                            throng_diagnostic_fn report, void* user, throng_scene** out)
{
	if (out != NULL) {
		*out = NULL;
	}
	if (path == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_load_file: %s is NULL", path == NULL ? "path" : "out");
	}
	unsigned char* data;
	size_t size;
	throng_status st = read_file(path, report, user, &data, &size);
	if (st != THRONG_OK) {
		return st;
	}
	st = throng_scene_load_memory(path, data, size, options, report, user, out);
	free(data);
	return st;
}

throng_status throng_scene_load_file(const char* path, const throng_scene_def* options, throng_scene** out)
{
	return throng_scene_load_file_report(path, options, NULL, NULL, out);
}

throng_status throng_scenario_validate_memory(const char* name, const void* data, size_t size,
                                              throng_diagnostic_fn report, void* user, uint32_t* problems)
{
	sf_ctx c;
	sf_ctx_init(&c, name != NULL ? name : "(memory)", report, user);
	sf_model model;
	sf_pos root;
	bool ok = load_model(&c, data != NULL ? data : "", data != NULL ? size : 0, &model, &root);
	sf_model_free(&model);
	if (problems != NULL) {
		*problems = c.problems;
	}
	if (ok) {
		sf_ctx_finish(&c);
		return THRONG_OK;
	}
	return invalid(&c);
}

throng_status throng_scenario_validate_file(const char* path, throng_diagnostic_fn report, void* user,
                                            uint32_t* problems)
{
	if (problems != NULL) {
		*problems = 0;
	}
	if (path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scenario_validate_file: path is NULL");
	}
	unsigned char* data;
	size_t size;
	throng_status st = read_file(path, report, user, &data, &size);
	if (st != THRONG_OK) {
		if (problems != NULL) {
			*problems = 1;
		}
		return st;
	}
	st = throng_scenario_validate_memory(path, data, size, report, user, problems);
	free(data);
	return st;
}

throng_status throng_scene_save_string_header(const throng_scene* scene, const char* header, char** text,
                                             size_t* length)
{
	if (text == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_save_string: text is NULL");
	}
	*text = NULL;
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_save: scene is NULL");
	}
	// The definition as the scene holds it: nothing is stated or built again.
	return sf_save_model(scene->def.model, header, text, length);
}

throng_status throng_scene_save_string(const throng_scene* scene, char** text, size_t* length)
{
	return throng_scene_save_string_header(scene, NULL, text, length);
}

throng_status throng_scene_save_file_header(const throng_scene* scene, const char* path, const char* header)
{
	if (path == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_save_file: path is NULL");
	}
	char* text = NULL;
	size_t len = 0;
	throng_status st = throng_scene_save_string_header(scene, header, &text, &len);
	if (st != THRONG_OK) {
		return st;
	}
	st = sf_write_whole(path, text, len);
	free(text);
	return st;
}

throng_status sf_write_whole(const char* path, const void* data, size_t size)
{
	// Written as every output file is (core/output_file.c): beside the
	// target and renamed over it, so that a failed save leaves an existing
	// file as it was; "-" is standard output, a device is written in place.
	throng_output_file* file = NULL;
	throng_status st = throng_output_file_open(path, &file);
	if (st == THRONG_OK) {
		st = throng_output_file_write(file, data, size);
	}
	if (st == THRONG_OK) {
		st = throng_output_file_commit(file);
	}
	throng_output_file_destroy(file); // after a failure: removes the temporary, never the path
	return st;
}

throng_status throng_scene_save_file(const throng_scene* scene, const char* path)
{
	return throng_scene_save_file_header(scene, path, NULL);
}

bool throng_scene_is_file(const char* name)
{
	if (name == NULL) {
		return false;
	}
	if (strchr(name, '/') != NULL) {
		return true;
	}
	static const char* const ext[] = {".yaml", ".yml", ".json"};
	size_t len = strlen(name);
	for (int k = 0; k < 3; ++k) {
		size_t e = strlen(ext[k]);
		if (len > e && strcmp(name + len - e, ext[k]) == 0) {
			return true;
		}
	}
	return false;
}

throng_status throng_scene_open_report(const char* name_or_path, const throng_scene_def* options,
                                       throng_diagnostic_fn report, void* user, throng_scene** out)
{
	if (name_or_path != NULL && throng_scenario_find(name_or_path) == NULL && throng_scene_is_file(name_or_path)) {
		return throng_scene_load_file_report(name_or_path, options, report, user, out);
	}
	return throng_scene_create(name_or_path, options, out);
}

throng_status throng_scene_open(const char* name_or_path, const throng_scene_def* options, throng_scene** out)
{
	return throng_scene_open_report(name_or_path, options, NULL, NULL, out);
}
