// SPDX-License-Identifier: MIT
// Scene checkpoints (include/throng/scenario.h): a scene saved between
// steps and made again steps on to the same state hash and the same
// outcome figures as the scene that never stopped, for scenes whose script
// keeps state (herd's threat, field's random goals re-drawn on arrival,
// charge's resolution time), at several checkpoint steps, on 1 and 2
// threads and at 5000 agents (above THR_PARALLEL_MIN_AGENTS, so the
// parallel regions run); a scenario file's scene as well, one whose agents
// sources add and a sink removes among them. Then what is
// refused: another scene, agent count, seed or engine than asked for, a
// damaged or foreign file, a buffer too small, a path that cannot be
// written.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "support.h"
#include "throng/checkpoint.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/scene_part.h"
#include "throng/throng.h"

/// Agents of the large runs: above THR_PARALLEL_MIN_AGENTS (4096).
#define BIG 5000u

/// What a run has reached at one step: what the summary of `throng run`
/// prints from the scene (the hash, the outcome figures) and the threat.
typedef struct point {
	uint64_t step;
	uint64_t hash;
	uint32_t outcomes;
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	bool threat;
	throng_vec2 threat_p;
} point;

static point point_of(throng_scene* s)
{
	point p;
	memset(&p, 0, sizeof p);
	p.step = throng_world_view(throng_scene_world(s)).step;
	p.hash = throng_world_hash(throng_scene_world(s));
	p.outcomes = throng_scene_outcomes(s, p.out, THRONG_MAX_OUTCOMES);
	p.threat = throng_scene_threat(s, &p.threat_p);
	return p;
}

static void same_point(const point* a, const point* b, const char* what)
{
	cr_assert_eq(a->step, b->step, "%s: step %llu, not %llu", what, (unsigned long long)a->step,
	             (unsigned long long)b->step);
	cr_assert_eq(a->hash, b->hash, "%s, step %llu: hash 0x%016llx, the run that never stopped 0x%016llx", what,
	             (unsigned long long)a->step, (unsigned long long)a->hash, (unsigned long long)b->hash);
	cr_assert_eq(a->outcomes, b->outcomes, "%s: %u outcome figures, not %u", what, a->outcomes, b->outcomes);
	for (uint32_t k = 0; k < a->outcomes; ++k) {
		cr_assert_str_eq(a->out[k].name, b->out[k].name, "%s", what);
		cr_assert(memcmp(&a->out[k].value, &b->out[k].value, sizeof(double)) == 0, "%s, step %llu: %s %.17g, not %.17g",
		          what, (unsigned long long)a->step, a->out[k].name, a->out[k].value, b->out[k].value);
	}
	cr_assert_eq(a->threat, b->threat, "%s: threat active %d, not %d", what, a->threat, b->threat);
	cr_assert(a->threat_p.x == b->threat_p.x && a->threat_p.y == b->threat_p.y, "%s: the threat is elsewhere", what);
}

static void step_n(throng_scene* s, uint32_t n)
{
	for (uint32_t k = 0; k < n; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
}

/// `s`'s checkpoint in malloc'd memory, its size in *n.
static uint8_t* to_memory(const throng_scene* s, size_t* n)
{
	cr_assert_eq(throng_scene_write_checkpoint(s, NULL, 0, n), THRONG_OK, "%s", throng_last_error());
	uint8_t* buf = malloc(*n);
	cr_assert_not_null(buf);
	size_t written = 0;
	cr_assert_eq(throng_scene_write_checkpoint(s, buf, *n, &written), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(written, *n);
	return buf;
}

#define MAX_AT 4

/// Runs built-in `name` (agents, seed 7) on `engine` and `threads` threads to the last
/// of at[] plus `more` steps, taking a checkpoint at each step of at[]
/// (ascending) and noting the state `more` steps after each. Then each
/// checkpoint, made again on `resume_threads` threads, first writes the
/// same bytes it was read from, then steps `more` times to the same state.
static void resumes_on(throng_engine engine, const char* name, uint32_t agents, uint32_t threads,
                       uint32_t resume_threads, const uint32_t* at, uint32_t count, uint32_t more)
{
	cr_assert(count <= MAX_AT);
	throng_scene* s = thr_test_scene_threads(name, agents, 7, engine, threads);
	uint8_t* ck[MAX_AT] = {NULL};
	size_t size[MAX_AT] = {0};
	point then[MAX_AT], after[MAX_AT];
	const uint32_t end = at[count - 1] + more;
	for (uint32_t t = 0; t <= end; ++t) {
		for (uint32_t i = 0; i < count; ++i) {
			if (t == at[i]) {
				ck[i] = to_memory(s, &size[i]);
				then[i] = point_of(s);
			}
			if (t == at[i] + more) {
				after[i] = point_of(s);
			}
		}
		if (t < end) {
			step_n(s, 1);
		}
	}
	throng_scene_destroy(s);
	for (uint32_t i = 0; i < count; ++i) {
		char what[160];
		snprintf(what, sizeof what, "%s, %s engine, %u agents, %u then %u threads, checkpoint at step %u", name,
		         throng_engine_name(engine), agents, threads, resume_threads, at[i]);
		throng_scene* r = NULL;
		cr_assert_eq(throng_scene_read_checkpoint(ck[i], size[i], NULL, &r), THRONG_OK, "%s: %s", what,
		             throng_last_error());
		size_t n = 0;
		uint8_t* again = to_memory(r, &n);
		cr_assert(n == size[i] && memcmp(again, ck[i], n) == 0, "%s: the restored scene's checkpoint differs", what);
		free(again);
		cr_assert_str_eq(throng_scene_info(r)->name, name);
		const point p = point_of(r);
		same_point(&p, &then[i], what);
		cr_assert_eq(throng_world_set_threads(throng_scene_world(r), resume_threads, THRONG_THREADS_FIXED), THRONG_OK);
		step_n(r, more);
		const point q = point_of(r);
		same_point(&q, &after[i], what);
		throng_scene_destroy(r);
		free(ck[i]);
	}
}

static void resumes(const char* name, uint32_t agents, uint32_t threads, uint32_t resume_threads, const uint32_t* at,
                    uint32_t count, uint32_t more)
{
	resumes_on(THRONG_ENGINE_SIMD, name, agents, threads, resume_threads, at, count, more);
}

Test(resume, herd_threat_before_during_and_after_its_crossing)
{
	// The threat appears at 4 s (step 240) and has crossed 8 agents' field
	// by step ~1280: checkpoints before, during and after.
	const uint32_t at[] = {100, 600, 1300};
	resumes("herd", 8, 1, 1, at, 3, 80);
	const uint32_t big[] = {0, 250};
	resumes("herd", BIG, 2, 1, big, 2, 40);
	resumes_on(THRONG_ENGINE_SCALAR, "herd", 8, 1, 1, at, 3, 80);
}

Test(resume, field_goals_redrawn_on_arrival)
{
	// Goals are reached and re-drawn by step 300 (the_world_alone_is_not_enough).
	const uint32_t at[] = {90, 300};
	resumes("field", BIG, 1, 2, at, 2, 60);
	const uint32_t two[] = {0, 240};
	resumes("field", BIG, 2, 2, two, 2, 60);
	resumes_on(THRONG_ENGINE_SCALAR, "field", 400, 1, 1, at, 2, 60);
}

Test(resume, charge_resolution_time)
{
	// 200 agents resolve their battle at 13 s (step 780): the checkpoint at
	// 840 holds the time, which the scene must not measure again.
	const uint32_t at[] = {0, 600, 840};
	resumes("charge", 200, 1, 2, at, 3, 120);
	const uint32_t big[] = {45};
	resumes("charge", BIG, 2, 1, big, 1, 40);
}

Test(resume, flock_and_circle)
{
	const uint32_t at[] = {31, 100};
	resumes("flock", BIG, 2, 2, at, 2, 40);
	resumes("circle", BIG, 1, 2, at, 2, 40);
}

/// The test above can fail: field's world alone, restored into a fresh
/// scene (its goals the first ones, its step count 0), runs elsewhere.
Test(resume, the_world_alone_is_not_enough)
{
	throng_scene* s = thr_test_scene_threads("field", BIG, 7, THRONG_ENGINE_SIMD, 2);
	step_n(s, 300);
	throng_world* w = NULL;
	size_t n = 0;
	cr_assert_eq(throng_world_write_checkpoint(throng_scene_world(s), NULL, 0, &n), THRONG_OK);
	uint8_t* buf = malloc(n);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_world_write_checkpoint(throng_scene_world(s), buf, n, &n), THRONG_OK);
	cr_assert_eq(throng_world_read_checkpoint(buf, n, &w), THRONG_OK, "%s", throng_last_error());
	free(buf);
	throng_scene* fresh = thr_test_scene_threads("field", BIG, 7, THRONG_ENGINE_SIMD, 2);
	throng_world_destroy(throng_scene_swap_world(fresh, w));
	cr_assert_eq(throng_world_hash(throng_scene_world(fresh)), throng_world_hash(throng_scene_world(s)));
	step_n(s, 60);
	step_n(fresh, 60);
	cr_assert_neq(throng_world_hash(throng_scene_world(fresh)), throng_world_hash(throng_scene_world(s)),
	              "field's goals should have been re-drawn by step 300: the script's state matters");
	throng_scene_destroy(fresh);
	throng_scene_destroy(s);
}

Test(resume, a_scenario_file_scene_through_files)
{
	char dir[128], yaml[192], ck[192], other[192];
	thr_test_make_dir(dir, sizeof dir, "throng-sck");
	snprintf(yaml, sizeof yaml, "%s/field.yaml", dir);
	snprintf(ck, sizeof ck, "%s/run.ck", dir);
	snprintf(other, sizeof other, "%s/other.yaml", dir);
	throng_scene* b = thr_test_scene_threads("field", BIG, 3, THRONG_ENGINE_SIMD, 2);
	cr_assert_eq(throng_scene_save_file(b, yaml), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(b);
	throng_scene_def def = throng_scene_default_def();
	def.threads = 2;
	def.threads_policy = THRONG_THREADS_FIXED;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_open(yaml, &def, &s), THRONG_OK, "%s", throng_last_error());
	step_n(s, 150);
	cr_assert_eq(throng_scene_save_checkpoint(s, ck), THRONG_OK, "%s", throng_last_error());
	step_n(s, 60);
	const point want = point_of(s);
	const char* name = throng_scene_info(s)->name;

	// The checkpoint holds the definition: the file is not read to resume.
	throng_scene_resume_def expect = throng_scene_default_resume_def();
	throng_scene* r = NULL;
	cr_assert_eq(throng_scene_load_checkpoint(ck, &expect, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_str_eq(throng_scene_info(r)->name, name);
	step_n(r, 60);
	point got = point_of(r);
	same_point(&got, &want, "field saved as a scenario file");
	throng_scene_destroy(r);

	// Asked for by its path, the file must state the same definition now.
	expect.scene = yaml;
	cr_assert_eq(throng_scene_load_checkpoint(ck, &expect, &r), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(r);
	throng_scene* h = thr_test_scene("herd", 0, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_save_file(h, other), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(h);
	expect.scene = other;
	cr_assert_eq(throng_scene_load_checkpoint(ck, &expect, &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(r);
	cr_assert(strstr(throng_last_error(), ck) != NULL && strstr(throng_last_error(), other) != NULL, "%s",
	          throng_last_error());
	expect.scene = "field";
	cr_assert_eq(throng_scene_load_checkpoint(ck, &expect, &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "not of field"), "%s", throng_last_error());
	throng_scene_destroy(s);
	thr_test_remove_dir(dir);
}

/// A scenario file whose agents all come from sources (a south door at a
/// steady rate, a box in the middle up to a count) and leave through a
/// sink along the north wall.
static const char hall_file[] = "version: 2\n"
                                "name: hall\n"
                                "world: {bounds: {min: [-15, 0], max: [15, 16], mode: contain}, dt: 0.05}\n"
                                "archetypes: {walker: {preset: pedestrian, drive: arrive}}\n"
                                "zones: [{shape: box, name: north, min: [-15, 14], max: [15, 16], sink: true}]\n"
                                "sources:\n"
                                "  - {shape: segment, from: [-6, 1], to: [6, 1], rate: 4, archetype: walker, goal: [0, 15.5]}\n"
                                "  - {shape: box, min: [-10, 6], max: [-4, 9], rate: 2, count: 12, start: 1,"
                                " archetype: walker, goal: [8, 15.5]}\n";

Test(resume, agents_that_sources_add_and_a_sink_removes)
{
	// Checkpoints while the box still adds (step 100, 5 s), after its count
	// (step 400) and once walkers leave by the north wall (step 700).
	const uint32_t at[] = {100, 400, 700};
	for (uint32_t threads = 1; threads <= 2; ++threads) {
		throng_scene_def def = throng_scene_default_def();
		def.threads = threads;
		def.threads_policy = THRONG_THREADS_FIXED;
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_load_memory("hall.yaml", hall_file, strlen(hall_file), &def, NULL, NULL, &s),
		             THRONG_OK, "%s", throng_last_error());
		uint8_t* ck[3];
		size_t size[3];
		point after[3];
		for (uint32_t t = 0, i = 0; t <= at[2] + 100u; ++t) {
			if (i < 3 && t == at[i]) {
				ck[i] = to_memory(s, &size[i]);
				++i;
			}
			for (uint32_t j = 0; j < 3; ++j) {
				if (t == at[j] + 100u) {
					after[j] = point_of(s);
				}
			}
			if (t < at[2] + 100u) {
				step_n(s, 1);
			}
		}
		const throng_world_stats st = throng_world_get_stats(throng_scene_world(s));
		cr_assert(st.agents_added > 100u && st.agents_removed > 0u, "added %llu, removed %llu",
		          (unsigned long long)st.agents_added, (unsigned long long)st.agents_removed);
		throng_scene_destroy(s);
		for (uint32_t i = 0; i < 3; ++i) {
			throng_scene* r = NULL;
			cr_assert_eq(throng_scene_read_checkpoint(ck[i], size[i], NULL, &r), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_set_threads(throng_scene_world(r), 3u - threads, THRONG_THREADS_FIXED), THRONG_OK);
			step_n(r, 100);
			const point p = point_of(r);
			same_point(&p, &after[i], "hall: sources and a sink");
			throng_scene_destroy(r);
			free(ck[i]);
		}
	}
}

// ---------------------------------------------------------------------------
// What is refused
// ---------------------------------------------------------------------------

/// A checkpoint of herd (40 agents, seed 5) at step 30, in dir/herd.ck.
static void herd_checkpoint(const char* dir, char* path, size_t cap)
{
	snprintf(path, cap, "%s/herd.ck", dir);
	throng_scene* s = thr_test_scene_threads("herd", 40, 5, THRONG_ENGINE_SIMD, 1);
	step_n(s, 30);
	cr_assert_eq(throng_scene_save_checkpoint(s, path), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(s);
}

/// load_checkpoint(path, expect) fails with `st`, its message naming
/// the path and holding `what`.
static void refused(const char* path, const throng_scene_resume_def* expect, throng_status st, const char* what)
{
	throng_scene* r = (throng_scene*)&r; // not NULL: the call must set it
	cr_assert_eq(throng_scene_load_checkpoint(path, expect, &r), st, "%s: %s", what, throng_last_error());
	cr_assert_null(r);
	cr_assert_not_null(strstr(throng_last_error(), path), "%s", throng_last_error());
	cr_assert_not_null(strstr(throng_last_error(), what), "%s", throng_last_error());
}

Test(refuse, another_scene_agent_count_seed_or_engine)
{
	char dir[128], path[192];
	thr_test_make_dir(dir, sizeof dir, "throng-sck");
	herd_checkpoint(dir, path, sizeof path);
	throng_scene_resume_def e = throng_scene_default_resume_def();
	e.scene = "field";
	refused(path, &e, THRONG_ERR_INVALID_ARGUMENT, "built-in scene herd, not of field");
	e.scene = "nosuch";
	refused(path, &e, THRONG_ERR_NOT_FOUND, "nosuch");
	e.scene = "some/file.yaml";
	refused(path, &e, THRONG_ERR_INVALID_ARGUMENT, "not of the scenario file some/file.yaml");
	e = throng_scene_default_resume_def();
	e.agents = 41;
	refused(path, &e, THRONG_ERR_INVALID_ARGUMENT, "with 40 agents, not 41");
	e = throng_scene_default_resume_def();
	e.check_seed = true;
	e.seed = 6;
	refused(path, &e, THRONG_ERR_INVALID_ARGUMENT, "with seed 5, not 6");
	e = throng_scene_default_resume_def();
	e.check_engine = true;
	e.engine = THRONG_ENGINE_SCALAR;
	refused(path, &e, THRONG_ERR_INVALID_ARGUMENT, "on the simd engine, not scalar");
	// What matches passes.
	e = throng_scene_default_resume_def();
	e.scene = "herd";
	e.agents = 40;
	e.check_seed = true;
	e.seed = 5;
	e.check_engine = true;
	throng_scene* r = NULL;
	cr_assert_eq(throng_scene_load_checkpoint(path, &e, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_view(throng_scene_world(r)).step, 30u);
	throng_scene_destroy(r);
	thr_test_remove_dir(dir);
}

/// Writes n bytes to path.
static void put(const char* path, const void* bytes, size_t n)
{
	FILE* f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/// Writes the XXH3-64 of bytes[0, n - 8) into its last 8 bytes.
static void seal(char* bytes, size_t n)
{
	const uint64_t sum = XXH3_64bits(bytes, n - 8);
	for (int k = 0; k < 8; ++k) {
		bytes[n - 8 + (size_t)k] = (char)(sum >> (8 * k));
	}
}

Test(refuse, damaged_foreign_or_missing_files)
{
	char dir[128], path[192], bad[192];
	thr_test_make_dir(dir, sizeof dir, "throng-sck");
	herd_checkpoint(dir, path, sizeof path);
	snprintf(bad, sizeof bad, "%s/bad.ck", dir);
	static char bytes[1 << 20];
	const size_t n = thr_test_slurp(path, bytes, sizeof bytes);
	cr_assert(n > 200 && n < sizeof bytes - 1);

	refused(bad, NULL, THRONG_ERR_IO, "cannot open"); // missing
	put(bad, "", 0);
	refused(bad, NULL, THRONG_ERR_CORRUPT, "no \"THRONGSC\" magic");
	put(bad, bytes, n - 100); // cut short
	refused(bad, NULL, THRONG_ERR_CORRUPT, "truncated");
	bytes[n / 2] ^= 0x10; // one bit
	put(bad, bytes, n);
	refused(bad, NULL, THRONG_ERR_CORRUPT, "checksum mismatch");
	bytes[n / 2] ^= 0x10;
	bytes[8] = 9; // a newer version
	put(bad, bytes, n);
	refused(bad, NULL, THRONG_ERR_CORRUPT, "format version 9");
	bytes[8] = 1;

	// Checksums that hold over a bad field: the scene kind, a built-in
	// this library lacks (the name follows the kind and its length).
	bytes[32 + 16] = 7;
	seal(bytes, n);
	put(bad, bytes, n);
	refused(bad, NULL, THRONG_ERR_CORRUPT, "scene kind 7");
	bytes[32 + 16] = 0;
	cr_assert(memcmp(bytes + 56, "herd", 4) == 0);
	bytes[57] = 'x';
	seal(bytes, n);
	put(bad, bytes, n);
	refused(bad, NULL, THRONG_ERR_CORRUPT, "cannot rebuild its scene hxrd");

	// A world checkpoint is not a scene's.
	throng_scene* s = thr_test_scene("herd", 40, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_world_save_checkpoint(throng_scene_world(s), bad), THRONG_OK, "%s", throng_last_error());
	refused(bad, NULL, THRONG_ERR_CORRUPT, "a world checkpoint");
	throng_scene_destroy(s);
	thr_test_remove_dir(dir);
}

Test(refuse, a_small_buffer_and_an_unwritable_path)
{
	char dir[128], path[192], missing[192];
	thr_test_make_dir(dir, sizeof dir, "throng-sck");
	herd_checkpoint(dir, path, sizeof path);
	static char before[1 << 20];
	const size_t n = thr_test_slurp(path, before, sizeof before);
	throng_scene* s = thr_test_scene("herd", 40, THRONG_ENGINE_SIMD);
	size_t need = 0;
	cr_assert_eq(throng_scene_write_checkpoint(s, NULL, 0, &need), THRONG_OK);
	uint8_t small[64];
	size_t got = 0;
	cr_assert_eq(throng_scene_write_checkpoint(s, small, sizeof small, &got), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(got, need);
	cr_assert_not_null(strstr(throng_last_error(), "cap"), "%s", throng_last_error());

	snprintf(missing, sizeof missing, "%s/no/such/dir.ck", dir);
	cr_assert_eq(throng_scene_save_checkpoint(s, missing), THRONG_ERR_IO);
	cr_assert_not_null(strstr(throng_last_error(), missing), "%s", throng_last_error());
	cr_assert_eq(throng_scene_save_checkpoint(s, dir), THRONG_ERR_IO, "a directory is not replaced");

	// Written over the old one whole: step 0 now, not 30.
	cr_assert_eq(throng_scene_save_checkpoint(s, path), THRONG_OK, "%s", throng_last_error());
	static char after[1 << 20];
	cr_assert_eq(thr_test_slurp(path, after, sizeof after), need);
	cr_assert(n != need || memcmp(before, after, n) != 0);
	throng_scene* r = NULL;
	cr_assert_eq(throng_scene_load_checkpoint(path, NULL, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_view(throng_scene_world(r)).step, 0u);
	throng_scene_destroy(r);
	throng_scene_destroy(s);
	thr_test_remove_dir(dir);
}
