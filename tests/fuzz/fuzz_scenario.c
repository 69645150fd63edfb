// SPDX-License-Identifier: MIT
// libFuzzer target: the scenario-file loader must turn any input into a
// scene or into problems, never a crash, a leak, a hang or undefined
// behaviour. Every problem must be well formed (FILE:LINE:COL: path:
// message ending "(expected ...)"). A valid input that describes a small
// scene is also built, stepped, saved and loaded again: the saved text must
// load and build the same world (the round trip of tests/test_scenario_file.c
// on arbitrary scenes).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "throng/scenario_file.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/// Scenes at most this big are built and stepped (bigger ones are only
/// validated, so that one input cannot take seconds or gigabytes).
#define FUZZ_MAX_AGENTS 256u
#define FUZZ_MAX_SHAPES 256u

static void fail(const char* what, const char* text)
{
	fprintf(stderr, "fuzz_scenario: %s: %s\n", what, text);
	abort();
}

static void check_diagnostic(void* user, const throng_diagnostic* d)
{
	(*(uint32_t*)user)++;
	char line[4096];
	throng_diagnostic_format(d, line, sizeof line);
	size_t len = strlen(d->message);
	if (d->path == NULL || d->path[0] == '\0' || strcmp(d->file, "fuzz.yaml") != 0) {
		fail("a diagnostic without a path or file", line);
	}
	if (strstr(d->message, "(expected ") == NULL || len == 0 || d->message[len - 1] != ')') {
		fail("a diagnostic without \"(expected ...)\"", line);
	}
	// Only the last line of a long list ("N more problems not reported ...")
	// has no position.
	size_t digits = strspn(d->message, "0123456789");
	static const char tail_text[] = " more problems not reported";
	bool tail = digits > 0 && strncmp(d->message + digits, tail_text, sizeof tail_text - 1) == 0;
	if ((d->line == 0) != tail || (d->line != 0 && d->column == 0)) {
		fail("a diagnostic with a bad position", line);
	}
}

/// The model's size, from stages 1 and 2 only.
static bool small_enough(const uint8_t* data, size_t size)
{
	sf_ctx c;
	sf_ctx_init(&c, "fuzz.yaml", NULL, NULL);
	sf_model m;
	sf_model_defaults(&m, "fuzz.yaml");
	sf_node* root = sf_read_yaml(&c, data, size);
	if (root != NULL) {
		sf_parse_model(&c, root, &m);
		sf_node_free(root);
	}
	uint64_t segments = 0;
	for (uint32_t k = 0; k < m.wall_count; ++k) {
		segments += m.walls[k].count;
	}
	bool small = c.problems == 0 && m.agents <= FUZZ_MAX_AGENTS && m.obstacle_count <= FUZZ_MAX_SHAPES &&
	             segments <= FUZZ_MAX_SHAPES;
	sf_ctx_finish(&c);
	sf_model_free(&m);
	return small;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	uint32_t reported = 0, problems = 0;
	throng_status st = throng_scenario_validate_memory("fuzz.yaml", data, size, check_diagnostic, &reported, &problems);
	if (st != THRONG_OK) {
		if (st != THRONG_ERR_INVALID_ARGUMENT || problems == 0 || reported == 0) {
			fail("a refused file without problems", throng_last_error());
		}
		return 0;
	}
	if (!small_enough(data, size)) {
		return 0;
	}
	// The SIMD engine is not linked into this target (see CMakeLists.txt):
	// build with the scalar reference, one thread.
	throng_scene_def o = throng_scene_default_def();
	o.engine = THRONG_ENGINE_SCALAR;
	o.threads = 1;
	throng_scene* a = NULL;
	if (throng_scene_load_memory("fuzz.yaml", data, size, &o, NULL, NULL, &a) != THRONG_OK) {
		fail("a valid file does not load", throng_last_error());
	}
	char* text = NULL;
	size_t len = 0;
	if (throng_scene_save_string(a, &text, &len) != THRONG_OK) {
		fail("a loaded scene does not save", throng_last_error());
	}
	throng_scene* b = NULL;
	if (throng_scene_load_memory("fuzz.yaml", text, len, &o, NULL, NULL, &b) != THRONG_OK) {
		fail("a saved scene does not load", throng_last_error());
	}
	for (int k = 0; k < 3; ++k) {
		if (throng_world_hash(throng_scene_world(a)) != throng_world_hash(throng_scene_world(b))) {
			fail("the saved scene differs", text);
		}
		if (throng_scene_step(a) != THRONG_OK || throng_scene_step(b) != THRONG_OK) {
			fail("a scene does not step", throng_last_error());
		}
	}
	free(text);
	throng_scene_destroy(a);
	throng_scene_destroy(b);
	return 0;
}
