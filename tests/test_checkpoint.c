// SPDX-License-Identifier: MIT
// Checkpoints (issue 33, item 9): a world saved at a step boundary and
// made again steps to the same hashes as the world that never stopped, in
// both engines, on any thread count, with agents coming and going before
// and after, and with units routing and rallying across it; damaged
// checkpoints are refused whole; older formats still read (tests/data).
//
// The scenes are stepped with throng_world_step, not throng_scene_step: a
// scene's script (its threat and goal moves) keeps state outside the
// world, which a world checkpoint does not hold. What the world's own
// archetypes do (charge's target rules, bottleneck's walls and paths) is
// all stepped.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "support.h"
#include "throng/checkpoint.h"
#include "throng/part.h"
#include "throng/throng.h"
#include "checkpoint.h"
#include "world_internal.h"
#include "units.h"

/// One step boundary of churn (thr_test_churn), then a few setters.
static void churn(throng_world* w, uint64_t* rng, uint32_t n)
{
	thr_test_churn(w, rng, n);
	const throng_world_def d = throng_world_get_def(w);
	uint32_t ids[4];
	const uint32_t got = thr_test_pick_live(w, rng, 4, ids);
	for (uint32_t k = 0; k < got; ++k) {
		const throng_vec2 p = {thr_test_uniform(rng, d.bounds_min.x, d.bounds_max.x),
		                       thr_test_uniform(rng, d.bounds_min.y, d.bounds_max.y)};
		cr_assert_eq(throng_world_set_position(w, ids[k], p), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_set_group(w, ids[k], (uint32_t)(thr_test_u64(rng) % 3u)), THRONG_OK);
	}
}

/// `w`'s checkpoint in a malloc'd buffer, its size to *n.
static uint8_t* to_memory(const throng_world* w, size_t* n)
{
	size_t size = 0;
	cr_assert_eq(throng_world_checkpoint_size(w, &size), THRONG_OK, "%s", throng_last_error());
	uint8_t* buf = malloc(size);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_world_write_checkpoint(w, buf, size, n), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(*n, size);
	return buf;
}

/// A world made from `w`'s checkpoint: through a file at `path`, or
/// through memory when path is NULL. Either way the restored world's own
/// checkpoint is the same bytes.
static throng_world* restored(const throng_world* w, const char* path)
{
	size_t n = 0;
	uint8_t* bytes = to_memory(w, &n);
	throng_world* r = NULL;
	if (path != NULL) {
		cr_assert_eq(throng_world_save_checkpoint(w, path), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_load_checkpoint(path, &r), THRONG_OK, "%s", throng_last_error());
		char* file = malloc(n + 1);
		cr_assert_not_null(file);
		FILE* f = fopen(path, "rb");
		cr_assert_not_null(f);
		cr_assert_eq(fread(file, 1, n + 1, f), n, "the file and the memory checkpoint differ in size");
		fclose(f);
		cr_assert(memcmp(file, bytes, n) == 0, "the file and the memory checkpoint differ");
		free(file);
	} else {
		cr_assert_eq(throng_world_read_checkpoint(bytes, n, &r), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "a restored world hashes differently");
	size_t m = 0;
	uint8_t* again = to_memory(r, &m);
	cr_assert_eq(m, n);
	cr_assert(memcmp(again, bytes, n) == 0, "the restored world's checkpoint differs from the original's");
	free(again);
	free(bytes);
	return r;
}

/// A temporary file name for a test (removed by the caller).
static void temp_path(char* buf, size_t cap, const char* what)
{
	snprintf(buf, cap, "/tmp/throng-ckpt-%ld-%s.ck", (long)getpid(), what);
}

// ---------------------------------------------------------------------------
// Scenes: save, restore, step both on.
// ---------------------------------------------------------------------------

/// Agents of the scene runs: above THR_PARALLEL_MIN_AGENTS, so that the
/// parallel regions run.
#define SCENE_AGENTS 6000u

static void scene_resumes(const char* name, throng_engine engine, bool through_file)
{
	throng_scene* s = thr_test_scene_threads(name, SCENE_AGENTS, 3, engine, 2);
	throng_world* w = throng_scene_world(s);
	uint64_t rng = 0x5eed;
	for (int step = 0; step < 8; ++step) {
		churn(w, &rng, SCENE_AGENTS / 100u);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	char path[128];
	temp_path(path, sizeof path, name);
	throng_world* r = restored(w, through_file ? path : NULL);
	if (through_file) {
		unlink(path);
	}
	uint64_t rng_r = rng;
	for (int step = 0; step < 14; ++step) {
		if (step % 2 == 0) {
			churn(w, &rng, SCENE_AGENTS / 100u);
			churn(r, &rng_r, SCENE_AGENTS / 100u);
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(r), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "%s, %s engine: step %d after the checkpoint: "
		             "0x%016llx restored, 0x%016llx never stopped", name, throng_engine_name(engine), step + 1,
		             (unsigned long long)throng_world_hash(r), (unsigned long long)throng_world_hash(w));
	}
	throng_world_destroy(r);
	throng_scene_destroy(s);
}

Test(resume, field_in_both_engines)
{
	scene_resumes("field", THRONG_ENGINE_SIMD, true);
	scene_resumes("field", THRONG_ENGINE_SCALAR, false);
}

Test(resume, charge_with_target_rules_in_both_engines)
{
	scene_resumes("charge", THRONG_ENGINE_SIMD, false);
	scene_resumes("charge", THRONG_ENGINE_SCALAR, true);
}

Test(resume, bottleneck_with_walls_and_paths_in_both_engines)
{
	scene_resumes("bottleneck", THRONG_ENGINE_SIMD, true);
	scene_resumes("bottleneck", THRONG_ENGINE_SCALAR, false);
}

// Another thread count, and the later checkpoint of the same run: a
// world restored from the earlier one and stepped to the later one is the
// later one, and on one thread its checkpoint is the same bytes.
Test(resume, another_thread_count_and_the_later_checkpoint)
{
	throng_scene* s = thr_test_scene_threads("charge", SCENE_AGENTS, 5, THRONG_ENGINE_SIMD, 1);
	throng_world* w = throng_scene_world(s);
	uint64_t rng = 99;
	for (int step = 0; step < 4; ++step) {
		churn(w, &rng, 40);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	size_t na = 0, nb = 0;
	uint8_t* a = to_memory(w, &na);
	const uint64_t rng_a = rng;
	for (int step = 0; step < 7; ++step) {
		churn(w, &rng, 40);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	uint8_t* b = to_memory(w, &nb);
	const uint64_t hb = throng_world_hash(w);
	const uint32_t threads[3] = {1, 3, 2};
	for (int t = 0; t < 3; ++t) {
		throng_world* r = NULL;
		cr_assert_eq(throng_world_read_checkpoint(a, na, &r), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_set_threads(r, threads[t], THRONG_THREADS_FIXED), THRONG_OK, "%s", throng_last_error());
		uint64_t rr = rng_a;
		for (int step = 0; step < 7; ++step) {
			churn(r, &rr, 40);
			cr_assert_eq(throng_world_step(r), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(r->stats.threads_last, threads[t]);
		}
		cr_assert_eq(throng_world_hash(r), hb, "%u threads: the restored run differs", threads[t]);
		if (threads[t] == 1) {
			size_t nr = 0;
			uint8_t* c = to_memory(r, &nr);
			cr_assert(nr == nb && memcmp(c, b, nb) == 0, "the restored run's checkpoint differs from the later one");
			free(c);
		}
		throng_world_destroy(r);
	}
	throng_world* r = NULL;
	cr_assert_eq(throng_world_read_checkpoint(b, nb, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_hash(r), hb);
	throng_world_destroy(r);
	free(a);
	free(b);
	throng_scene_destroy(s);
}

// ---------------------------------------------------------------------------
// The property: any sequence of adds, removes, setters and steps, a
// checkpoint at any boundary, the rest replayed on both.
// ---------------------------------------------------------------------------

static throng_world* small_world(throng_engine engine, bool forces)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.capacity = 32;
	d.threads = 1;
	d.record_forces = forces;
	d.bounds_mode = forces ? THRONG_BOUNDS_WRAP : THRONG_BOUNDS_CONTAIN;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
	pursue.params.target = THRONG_TARGET_AGENT;
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION)), 0);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK)), 0);
	cr_assert_geq(throng_controller_add(&c, pursue), 0);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER)), 0);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	throng_controller p = throng_controller_default_def(THRONG_BLEND_PRIORITY);
	cr_assert_geq(throng_controller_add(&p, throng_slot_default_def(THRONG_PATH_FOLLOW)), 0);
	cr_assert_geq(throng_controller_add(&p, throng_slot_default_def(THRONG_WANDER_NOISE)), 0);
	cr_assert_geq(throng_controller_add(&p, throng_slot_default_def(THRONG_OBSTACLE_AVOID)), 0);
	cr_assert_geq(throng_controller_add(&p, throng_slot_default_def(THRONG_WALL_AVOID)), 0);
	cr_assert_eq(throng_world_add_archetype(w, &p, NULL), THRONG_OK, "%s", throng_last_error());
	const throng_vec2 route[3] = {{-30, -30}, {30, -20}, {0, 35}};
	cr_assert_eq(throng_world_add_path(w, route, 3, true, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){10, 10}, 3.0f, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-20, 0}, (throng_vec2){-5, 5}, NULL), THRONG_OK);
	cr_assert_eq(throng_world_set_threat(w, (throng_vec2){1, 2}, (throng_vec2){0.5f, 0}, true), THRONG_OK);
	uint64_t rng = 7;
	for (uint32_t k = 0; k < 300; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(&rng, -40.0f, 40.0f), thr_test_uniform(&rng, -40.0f, 40.0f)};
		a.target = (throng_vec2){thr_test_uniform(&rng, -40.0f, 40.0f), thr_test_uniform(&rng, -40.0f, 40.0f)};
		a.target_agent = k > 0 && k % 3 == 0 ? k - 1 : THRONG_NO_AGENT;
		a.archetype = k % 4 == 0 ? 1u : 0u;
		a.path = k % 4 == 0 ? 0u : THRONG_NO_PATH;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

/// One random operation on w, drawn from *rng (the same draws on worlds
/// in the same state make the same operation).
static void random_op(throng_world* w, uint64_t* rng, uint32_t k)
{
	uint32_t id = 0;
	const uint32_t op = (uint32_t)(thr_test_u64(rng) % 13u);
	const bool some = thr_test_pick_live(w, rng, 1, &id) == 1;
	const float x = thr_test_uniform(rng, -45.0f, 45.0f), y = thr_test_uniform(rng, -45.0f, 45.0f);
	throng_status st = THRONG_OK;
	if (op <= 2) {
		st = throng_world_step(w);
	} else if (op == 3) {
		uint32_t ids[20];
		const uint32_t n = thr_test_pick_live(w, rng, 1u + (uint32_t)(thr_test_u64(rng) % 20u), ids);
		st = n > 0 ? throng_world_remove_agents(w, ids, n) : THRONG_OK;
	} else if (op == 4) {
		throng_agent_def a[15];
		const uint32_t n = 1u + (uint32_t)(thr_test_u64(rng) % 15u);
		for (uint32_t j = 0; j < n; ++j) {
			a[j] = throng_agent_default_def();
			a[j].position = (throng_vec2){thr_test_uniform(rng, -45.0f, 45.0f), y};
			a[j].target = (throng_vec2){x, y};
			a[j].target_agent = some && j % 2 == 0 ? id : THRONG_NO_AGENT;
			a[j].archetype = j % 3 == 0 ? 1u : 0u;
			a[j].path = j % 3 == 0 ? 0u : THRONG_NO_PATH;
		}
		st = throng_world_spawn(w, a, n, NULL);
	} else if (!some) {
		return;
	} else if (op == 5) {
		st = throng_world_set_position(w, id, (throng_vec2){x, y});
	} else if (op == 6) {
		st = throng_world_set_velocity(w, id, (throng_vec2){x / 330.0f, y / 330.0f}); // below every max_speed
	} else if (op == 7) {
		st = throng_world_set_max_speed(w, id, 0.2f + (x + 45.0f) / 50.0f);
	} else if (op == 8) {
		st = throng_world_set_radius(w, id, 0.1f + (y + 45.0f) / 300.0f);
	} else if (op == 9) {
		st = throng_world_set_heading(w, id, (throng_vec2){0.6f, -0.8f});
	} else if (op == 10) {
		st = throng_world_set_archetype(w, id, (uint32_t)(thr_test_u64(rng) & 1u));
	} else if (op == 11) {
		st = throng_world_set_path(w, id, (thr_test_u64(rng) & 1u) ? 0u : THRONG_NO_PATH, 1);
	} else {
		st = throng_world_set_target(w, id, (throng_vec2){x, y});
		if (st == THRONG_OK) {
			st = throng_world_set_max_force(w, id, 1.0f + (x + 45.0f) / 20.0f);
		}
	}
	cr_assert_eq(st, THRONG_OK, "op %u (%u): %s", k, op, throng_last_error());
}

Test(property, a_checkpoint_at_any_boundary_replays_to_the_same_bits)
{
	enum { OPS = 240 };
	for (uint64_t seed = 1; seed <= 6; ++seed) {
		const throng_engine engine = seed % 2 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		const bool forces = seed >= 5;
		throng_world* w = small_world(engine, forces);
		uint64_t rng = seed * 0x1234567ull;
		const uint32_t at = (uint32_t)(thr_test_u64(&rng) % OPS);
		throng_world* r = NULL;
		uint64_t rng_r = 0;
		for (uint32_t k = 0; k < OPS; ++k) {
			if (k == at) {
				r = restored(w, NULL);
				rng_r = rng;
			}
			random_op(w, &rng, k);
			if (r != NULL) {
				random_op(r, &rng_r, k);
				cr_assert_eq(throng_world_hash(r), throng_world_hash(w),
				             "seed %llu: op %u after a checkpoint at op %u differs", (unsigned long long)seed, k, at);
			}
		}
		cr_assert_not_null(r);
		if (forces && throng_world_agent_count(w) > 0) {
			// The recorded forces come along too.
			throng_world* q = restored(w, NULL);
			const throng_view v = throng_world_view(w);
			for (uint32_t i = 0; i < v.count; ++i) {
				throng_vec2 f0, f1;
				cr_assert_eq(throng_world_slot_force(w, v.id[i], 1, &f0), THRONG_OK);
				cr_assert_eq(throng_world_slot_force(q, v.id[i], 1, &f1), THRONG_OK);
				cr_assert(f0.x == f1.x && f0.y == f1.y, "agent %u: its recorded force moved", v.id[i]);
			}
			throng_world_destroy(q);
		}
		const throng_world_stats a = throng_world_get_stats(w), b = throng_world_get_stats(r);
		cr_assert(a.steps == b.steps && a.agents_added == b.agents_added && a.agents_removed == b.agents_removed &&
		          a.agents_peak == b.agents_peak && a.contacts == b.contacts, "seed %llu: the stats differ",
		          (unsigned long long)seed);
		throng_world_destroy(r);
		throng_world_destroy(w);
	}
}

// ---------------------------------------------------------------------------
// The calls' own checks.
// ---------------------------------------------------------------------------

Test(api, bad_arguments_and_part_worlds_are_refused)
{
	throng_world* w = small_world(THRONG_ENGINE_SIMD, false);
	size_t n = 0;
	throng_world* r = (throng_world*)&n;
	cr_assert_eq(throng_world_checkpoint_size(NULL, &n), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_checkpoint_size(w, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_save_checkpoint(w, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_load_checkpoint(NULL, &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_read_checkpoint(NULL, 10, &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(r, "a failed read leaves a world behind");
	cr_assert_eq(throng_world_write_checkpoint(w, NULL, 0, &n), THRONG_OK);
	size_t size = 0;
	cr_assert_eq(throng_world_checkpoint_size(w, &size), THRONG_OK);
	cr_assert_eq(n, size);
	uint8_t small[64];
	n = 0;
	cr_assert_eq(throng_world_write_checkpoint(w, small, sizeof small, &n), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(n, size, "a short buffer is told the size it needs");
	cr_assert(strstr(throng_last_error(), "cap") != NULL, "%s", throng_last_error());
	// A part world is refused by name.
	throng_world* part = NULL;
	cr_assert_eq(throng_part_create(w, 1, 64, &part), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_checkpoint_size(part, &n), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "part of a larger one") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_save_checkpoint(part, "/tmp/never-written.ck"), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(part);
	// A save that cannot be written is an I/O error naming the path.
	cr_assert_eq(throng_world_save_checkpoint(w, "/nonexistent-dir/x.ck"), THRONG_ERR_IO);
	cr_assert(strstr(throng_last_error(), "/nonexistent-dir/x.ck") != NULL, "%s", throng_last_error());
	// A world with no agent, at step 0, comes back.
	throng_world_def d = throng_world_default_def();
	throng_world* empty = NULL;
	cr_assert_eq(throng_world_create(&d, &empty), THRONG_OK);
	throng_world* e2 = restored(empty, NULL);
	cr_assert_eq(throng_world_agent_count(e2), 0u);
	cr_assert_eq(throng_world_step(e2), THRONG_OK, "%s", throng_last_error());
	throng_world_destroy(e2);
	throng_world_destroy(empty);
	throng_world_destroy(w);
}

// ---------------------------------------------------------------------------
// Damaged checkpoints.
// ---------------------------------------------------------------------------

static void write_file(const char* path, const void* data, size_t n)
{
	FILE* f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/// Loads `path`, expecting `status`, a message naming the path and `word`, and no world.
static void refused_file(const char* path, throng_status status, const char* word)
{
	throng_world* r = (throng_world*)path;
	const throng_status st = throng_world_load_checkpoint(path, &r);
	cr_assert_eq(st, status, "%s: status %s, %s expected (%s)", path, throng_status_name(st),
	             throng_status_name(status), throng_last_error());
	cr_assert_null(r, "%s: a refused checkpoint left a world", path);
	cr_assert(strstr(throng_last_error(), path) != NULL, "the message does not name the file: %s", throng_last_error());
	cr_assert(word == NULL || strstr(throng_last_error(), word) != NULL, "the message lacks \"%s\": %s", word,
	          throng_last_error());
}

/// Puts a valid checksum back on a checkpoint changed on purpose.
static void reseal(uint8_t* b, size_t n)
{
	const uint64_t sum = XXH3_64bits(b, n - 8);
	for (int k = 0; k < 8; ++k) {
		b[n - 8 + (size_t)k] = (uint8_t)(sum >> (8 * k));
	}
}

static uint32_t get32(const uint8_t* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t* p, uint32_t v)
{
	for (int k = 0; k < 4; ++k) {
		p[k] = (uint8_t)(v >> (8 * k));
	}
}

/// The offset of column `column` of the agents section (docs/FORMAT.md).
static size_t agent_column(const uint8_t* b, size_t n, uint32_t column, uint32_t* count)
{
	size_t at = 32;
	while (at + 16 <= n) {
		const uint32_t tag = get32(b + at);
		const uint64_t body = get32(b + at + 8) | (uint64_t)get32(b + at + 12) << 32;
		if (memcmp(&b[at], "AGNT", 4) == 0) {
			*count = get32(b + at + 16);
			return at + 16 + 8 + (size_t)column * *count * 4u;
		}
		(void)tag;
		at += 16 + (size_t)((body + 7) / 8 * 8);
	}
	cr_assert_fail("no agents section");
	return 0;
}

Test(damaged, every_damage_is_refused_with_the_path_and_what)
{
	throng_world* w = small_world(THRONG_ENGINE_SIMD, false);
	for (int s = 0; s < 3; ++s) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	size_t n = 0;
	uint8_t* good = to_memory(w, &n);
	uint8_t* bad = malloc(n);
	cr_assert_not_null(bad);
	char path[128];
	temp_path(path, sizeof path, "damaged");

	write_file(path, good, 0);
	refused_file(path, THRONG_ERR_CORRUPT, "empty");

	memcpy(bad, good, n);
	bad[3] = 'X';
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "magic");

	for (size_t cut = 0; cut < n; cut += 97) {
		write_file(path, good, cut);
		refused_file(path, THRONG_ERR_CORRUPT, cut == 0 ? "empty" : "truncated at byte");
	}

	memcpy(bad, good, n);
	bad[n / 2] ^= 0x10;
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "checksum mismatch");

	memcpy(bad, good, n);
	put32(bad + 8, THR_CK_VERSION + 1u);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "newer");

	// Values out of range, behind a checksum that holds.
	uint32_t count = 0;
	memcpy(bad, good, n);
	size_t at = agent_column(bad, n, 13, &count); // archetype
	put32(bad + at + 4 * 5, 2);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "archetype 2, but the world has 2");

	memcpy(bad, good, n);
	at = agent_column(bad, n, 19, &count); // health
	const float hurt = -1.0f;
	memcpy(bad + at + 4 * 3, &hurt, 4);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "health -1");

	memcpy(bad, good, n);
	at = agent_column(bad, n, 1, &count); // x
	const float nan = NAN;
	memcpy(bad + at + 4 * 7, &nan, 4);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "x is nan");

	memcpy(bad, good, n);
	at = agent_column(bad, n, 0, &count); // id
	memcpy(bad + at + 4, bad + at, 4);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "again");

	memcpy(bad, good, n);
	at = agent_column(bad, n, 15, &count); // target agent
	put32(bad + at, 100000);
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "target agent 100000");

	memcpy(bad, good, n);
	put32(bad + 32 + 16 + 20, 0); // the def's dt
	reseal(bad, n);
	write_file(path, bad, n);
	refused_file(path, THRONG_ERR_CORRUPT, "byte offset 48: world def.dt");

	memcpy(bad, good, n);
	bad[n / 3] ^= 0x01;
	reseal(bad, n); // a flip the checksum cannot see: refused or a world, never a crash
	throng_world* r = NULL;
	if (throng_world_read_checkpoint(bad, n, &r) == THRONG_OK) {
		throng_world_destroy(r);
	}

	// Files that cannot be read.
	unlink(path);
	refused_file(path, THRONG_ERR_IO, "cannot open");
	refused_file("/tmp", THRONG_ERR_IO, "cannot read");
	free(bad);
	free(good);
	throng_world_destroy(w);
}

// Every single flipped byte, in memory: refused, never a crash, never a
// world (the checksum covers every byte but its own, and damage to it is
// a mismatch too).
/// A file's bytes into a malloc'd buffer, its size to *n.
static uint8_t* read_whole(const char* path, size_t* n)
{
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	const long size = ftell(f);
	cr_assert_gt(size, 0);
	rewind(f);
	uint8_t* b = malloc((size_t)size);
	cr_assert_not_null(b);
	cr_assert_eq(fread(b, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*n = (size_t)size;
	return b;
}

/// The byte offset of section `tag` in checkpoint b (n bytes).
static size_t section_at(const uint8_t* b, size_t n, const char* tag)
{
	size_t at = 32;
	while (memcmp(b + at, tag, 4) != 0) {
		at += 16 + (size_t)((get32(b + at + 8) + 7u) / 8u * 8u);
		cr_assert_lt(at + 16, n, "no %s section", tag);
	}
	return at;
}

/// Older layouts read: tests/data/checkpoint_v3.ck, written by throng at
/// ebe7668 (format 3: no combat; 40 agents and a source with a relative
/// goal, 30 steps; tests/data/checkpoint_v3.c made it), reads to the hash
/// that build gave and steps on 30 steps to a pinned hash (that build's
/// until the one-division arithmetic of issue 37 moved every crowd). Turned
/// into version 2
/// (the source's relative_target gone) it reads with the flag false; into
/// version 1 (no sources section) it reads too; a flag other than 0 or 1
/// is refused.
Test(versions, older_checkpoints_read_and_step_on)
{
	size_t n = 0;
	uint8_t* v3 = read_whole(THRONG_SOURCE_DIR "/tests/data/checkpoint_v3.ck", &n);
	cr_assert_eq(get32(v3 + 8), 3u);
	throng_world* w = NULL;
	cr_assert_eq(throng_world_read_checkpoint(v3, n, &w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_hash(w), UINT64_C(0xb9e6578d4b89b746));
	throng_source_def got;
	cr_assert_eq(throng_world_get_source(w, 0, &got, NULL), THRONG_OK);
	cr_assert(got.relative_target && got.agent.target.x == 20.0f);
	throng_agent_state a;
	const throng_view v = throng_world_view(w);
	cr_assert_eq(throng_world_get_agent(w, v.id[0], &a), THRONG_OK);
	cr_assert_eq(a.health, 0.0f, "no combat before version 4");
	for (int k = 0; k < 30; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(w), UINT64_C(0xe2c3824f53c9a218), "30 steps on: hash 0x%016llx",
	             (unsigned long long)throng_world_hash(w));
	throng_world_destroy(w);

	// The source's record: 160 bytes then the flag (offset 4 + 144 into the section's body).
	const size_t src = section_at(v3, n, "SRCE");
	cr_assert_eq(get32(v3 + src + 8), 4u + 164u, "one source of 164 bytes");
	const size_t flag = src + 16 + 4 + 144;
	cr_assert_eq(get32(v3 + flag), 1u);
	uint8_t* bad = malloc(n);
	cr_assert_not_null(bad);
	memcpy(bad, v3, n);
	put32(bad + flag, 2);
	reseal(bad, n);
	cr_assert_eq(throng_world_read_checkpoint(bad, n, &w), THRONG_ERR_CORRUPT);
	cr_assert(strstr(throng_last_error(), "relative_target 2") != NULL, "%s", throng_last_error());

	// Version 2: the flag gone, the section 4 bytes shorter, padded to the
	// same 8-byte boundary, so the file keeps its size.
	memcpy(bad, v3, n);
	const size_t end = src + 16 + 4 + 164;
	memmove(bad + flag, v3 + flag + 4, end - flag - 4);
	memset(bad + end - 4, 0, 4);
	put32(bad + src + 8, 4u + 160u);
	put32(bad + 8, 2);
	reseal(bad, n);
	cr_assert_eq(throng_world_read_checkpoint(bad, n, &w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_get_source(w, 0, &got, NULL), THRONG_OK);
	cr_assert(!got.relative_target && got.agent.target.x == 20.0f);
	cr_assert_eq(throng_world_hash(w), UINT64_C(0xb9e6578d4b89b746));
	throng_world_destroy(w);

	// Version 1, written before sources: no sources section; told as
	// version 2 it lacks one.
	const size_t src_bytes = 16 + (size_t)((get32(v3 + src + 8) + 7u) / 8u * 8u);
	memcpy(bad, v3, src);
	memcpy(bad + src, v3 + src + src_bytes, n - src - src_bytes);
	const size_t v1 = n - src_bytes;
	put32(bad + 20, get32(v3 + 20) - 1u);
	put32(bad + 24, (uint32_t)v1);
	put32(bad + 8, 2);
	reseal(bad, v1);
	cr_assert_eq(throng_world_read_checkpoint(bad, v1, &w), THRONG_ERR_CORRUPT);
	cr_assert(strstr(throng_last_error(), "sections") != NULL, "%s", throng_last_error());
	put32(bad + 8, 1);
	reseal(bad, v1);
	cr_assert_eq(throng_world_read_checkpoint(bad, v1, &w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_source_count(w), 0u);
	cr_assert_eq(throng_world_hash(w), UINT64_C(0xb9e6578d4b89b746));
	throng_world_destroy(w);
	free(bad);
	free(v3);
}

/// tests/data/NAME, a checkpoint of format `version`, read: a world
/// with `agents` agents that hashes to `hash`.
static throng_world* read_fixture(const char* name, uint32_t version, uint64_t hash, uint32_t agents)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/data/%s", THRONG_SOURCE_DIR, name);
	size_t n = 0;
	uint8_t* b = read_whole(path, &n);
	cr_assert_eq(get32(b + 8), version);
	throng_world* w = NULL;
	cr_assert_eq(throng_world_read_checkpoint(b, n, &w), THRONG_OK, "%s: %s", name, throng_last_error());
	free(b);
	cr_assert_eq(throng_world_hash(w), hash, "%s", name);
	cr_assert_eq(throng_world_agent_count(w), agents, "%s", name);
	return w;
}

/// Steps w `steps` times: it reaches `hash` with `agents` agents.
static void fight_on(throng_world* w, int steps, uint64_t hash, uint32_t agents)
{
	for (int k = 0; k < steps; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(w), hash, "%d steps on: hash 0x%016llx, pinned 0x%016llx", steps,
	             (unsigned long long)throng_world_hash(w), (unsigned long long)hash);
	cr_assert_eq(throng_world_agent_count(w), agents, "%d steps on: %u agents, pinned %u", steps,
	             throng_world_agent_count(w), agents);
}

/// Version 4 (melee combat, no missiles section, no missile fields in a
/// controller): tests/data/checkpoint_v4.ck, written by throng at a546699
/// (tests/data/checkpoint_v4.c: two sides of 20 fighting for 40 steps, 7
/// left), reads to the hash that build gave, its survivors wounded, and
/// fights on 40 steps to a pinned hash (that build's until the
/// one-division arithmetic of issue 37).
Test(versions, a_version_4_battle_reads_and_fights_on)
{
	throng_world* w = read_fixture("checkpoint_v4.ck", 4, UINT64_C(0x1fc1d72809f79266), 7);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(w, 0, &c), THRONG_OK);
	cr_assert(c.combat.enabled && c.combat.attack == THRONG_ATTACK_MELEE && c.combat.missile_speed == 0.0f);
	fight_on(w, 40, UINT64_C(0x987cd2dbf49e38c9), 2);
	throng_world_destroy(w);
}

/// Version 5 (missiles, no units): tests/data/checkpoint_v5.ck, written
/// by throng at 2a72688 (tests/data/checkpoint_v5.c: swordsmen against
/// archers, 8 reinforcements from a source, 80 steps, 3 dead, 3 missiles
/// in the air), reads to the hash that build gave, nobody in a unit, and
/// fights on 40 steps to a pinned hash (that build's until the
/// one-division arithmetic of issue 37).
Test(versions, a_version_5_battle_with_missiles_in_the_air_reads_and_fights_on)
{
	throng_world* w = read_fixture("checkpoint_v5.ck", 5, UINT64_C(0x9074d0b75b9bea26), 45);
	cr_assert_eq(w->missile_n, 3u);
	throng_source_def s;
	cr_assert_eq(throng_world_get_source(w, 0, &s, NULL), THRONG_OK);
	cr_assert_eq(s.agent.unit, THRONG_NO_UNIT);
	const throng_view v = throng_world_view(w);
	for (uint32_t i = 0; i < v.count; ++i) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, v.id[i], &a), THRONG_OK);
		cr_assert_eq(a.unit, THRONG_NO_UNIT, "agent %u", v.id[i]);
	}
	fight_on(w, 40, UINT64_C(0x5e7bed62e1205ed6), 37);
	throng_world_destroy(w);
}

/// Version 6 (units, before army_breaks_at and killed):
/// tests/data/checkpoint_v6.ck, written by throng at 78328b3
/// (tests/data/checkpoint_v6.c: two sides of 24 in two units each, 80
/// steps, 22 dead, units 0 and 3 routing), reads to the hash that build
/// gave, its units as they were with army_breaks_at 1 (never) and none
/// killed counted, and fights on 40 steps to a pinned hash (that build's
/// until the one-division arithmetic of issue 37).
Test(versions, a_version_6_battle_of_units_reads_and_fights_on)
{
	throng_world* w = read_fixture("checkpoint_v6.ck", 6, UINT64_C(0x6008b71f2877dc2e), 26);
	cr_assert_eq(throng_world_unit_count(w), 4u);
	const bool routing[4] = {true, false, false, true};
	for (uint32_t k = 0; k < 4; ++k) {
		throng_unit_state s;
		cr_assert_eq(throng_world_get_unit(w, k, &s), THRONG_OK);
		cr_assert_eq(s.routing, routing[k], "unit %u", k);
		cr_assert_eq(s.killed, 0u, "unit %u", k);
		cr_assert_eq(w->units[k].def.morale.army_breaks_at, 1.0f, "unit %u", k);
	}
	fight_on(w, 40, UINT64_C(0x0420d45e17ff461f), 25);
	throng_world_destroy(w);
}

/// Version 7 (units with army_breaks_at and killed, before bodies):
/// tests/data/checkpoint_v7.ck, written by throng at 4b826a2
/// (tests/data/checkpoint_v7.c: 12 swordsmen and 8 archers of the west,
/// army_breaks_at 0.6, against 24 swordsmen of the east in two units,
/// 0.25; 80 steps, 16 killed, the west's swordsmen routed by their
/// losses, the east's army broken though its units' morale holds, 5
/// missiles in the air), reads to the hash that build gave (it holds
/// each unit's killed), its units as they were, no controller leaving
/// bodies (body_radius 0) and none on the ground, and fights on 40 steps
/// to a pinned hash (that build's until the one-division arithmetic of
/// issue 37), still without bodies.
Test(versions, a_version_7_battle_whose_army_broke_reads_and_fights_on)
{
	throng_world* w = read_fixture("checkpoint_v7.ck", 7, UINT64_C(0xb40a9f700451c003), 28);
	cr_assert_eq(w->missile_n, 5u);
	cr_assert_eq(throng_world_unit_count(w), 4u);
	const uint32_t count[4] = {2, 8, 9, 9};
	const uint32_t killed[4] = {10, 0, 3, 3};
	const bool routing[4] = {true, false, true, true};
	const float army_breaks_at[4] = {0.6f, 0.6f, 0.25f, 0.25f};
	for (uint32_t k = 0; k < 4; ++k) {
		throng_unit_state s;
		cr_assert_eq(throng_world_get_unit(w, k, &s), THRONG_OK);
		cr_assert_eq(s.count, count[k], "unit %u", k);
		cr_assert_eq(s.killed, killed[k], "unit %u", k);
		cr_assert_eq(s.routing, routing[k], "unit %u", k);
		cr_assert_eq(w->units[k].def.morale.army_breaks_at, army_breaks_at[k], "unit %u", k);
		if (k >= 2) cr_assert_gt(s.morale, 0.0f, "unit %u routs because its army broke", k);
	}
	cr_assert_eq(throng_world_archetype_count(w), 6u);
	for (uint32_t k = 0; k < 6; ++k) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(w, k, &c), THRONG_OK);
		cr_assert(c.combat.enabled, "archetype %u", k);
		cr_assert_eq(c.combat.body_radius, 0.0f, "archetype %u", k);
	}
	const throng_body* bodies = NULL;
	uint32_t n = 1;
	cr_assert_eq(throng_world_bodies(w, &bodies, &n), THRONG_OK);
	cr_assert_eq(n, 0u);
	fight_on(w, 40, UINT64_C(0x16c65ac514689f57), 27);
	cr_assert_eq(throng_world_bodies(w, &bodies, &n), THRONG_OK);
	cr_assert_eq(n, 0u, "a fighter without body_radius leaves no body");
	throng_world_destroy(w);
}

/// A world with one missile in the air: an archer 30 m from a still
/// target, one step after it shot (the missile lands in step 2).
static throng_world* one_missile_world(void)
{
	throng_world_def d = throng_world_default_def();
	d.threads = 1;
	d.dt = 0.25f;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.combat.enabled = true;
	c.combat.health = 100.0f;
	c.combat.attack = THRONG_ATTACK_MISSILE;
	c.combat.reach = 50.0f;
	c.combat.damage = 40.0f;
	c.combat.cooldown = 1.0f;
	c.combat.accuracy = 1.0f;
	c.combat.missile_speed = 60.0f;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a = throng_agent_default_def();
	uint32_t ids[2];
	a.position = (throng_vec2){0.0f, 0.0f};
	cr_assert_eq(throng_world_spawn(w, &a, 1, &ids[0]), THRONG_OK);
	a.position = (throng_vec2){30.0f, 0.0f};
	cr_assert_eq(throng_world_spawn(w, &a, 1, &ids[1]), THRONG_OK);
	cr_assert_eq(throng_world_set_target_agent(w, ids[0], ids[1]), THRONG_OK);
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(w->missile_n, 1u);
	return w;
}

/// One damage to a record: the u32 `value` written `offset` bytes into it,
/// and what the refusal must say.
typedef struct record_damage {
	size_t offset;
	uint32_t value;
	const char* says;
} record_damage;

/// Fails unless each of `cases`, done alone to the record at byte `at` of
/// the good checkpoint (n bytes; resealed), is refused as corrupt with its
/// words and the record's byte offset.
static void each_damage_refused(const uint8_t* good, size_t n, size_t at, const record_damage* cases, size_t count)
{
	uint8_t* bad = malloc(n);
	cr_assert_not_null(bad);
	char where[64];
	snprintf(where, sizeof where, "byte offset %zu: ", at);
	for (size_t k = 0; k < count; ++k) {
		memcpy(bad, good, n);
		put32(bad + at + cases[k].offset, cases[k].value);
		reseal(bad, n);
		throng_world* back = NULL;
		cr_assert_eq(throng_world_read_checkpoint(bad, n, &back), THRONG_ERR_CORRUPT, "case %zu read", k);
		cr_assert(strstr(throng_last_error(), cases[k].says) != NULL, "\"%s\" lacks \"%s\"", throng_last_error(),
		          cases[k].says);
		cr_assert(strstr(throng_last_error(), where) != NULL, "\"%s\" lacks \"%s\"", throng_last_error(), where);
	}
	free(bad);
}

/// Fails unless the good checkpoint with the u32 at byte `at` set to
/// `value` (resealed) is refused as corrupt saying `says`.
static void count_refused(const uint8_t* good, size_t n, size_t at, uint32_t value, const char* says)
{
	uint8_t* bad = malloc(n);
	cr_assert_not_null(bad);
	memcpy(bad, good, n);
	put32(bad + at, value);
	reseal(bad, n);
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(bad, n, &back), THRONG_ERR_CORRUPT);
	cr_assert(strstr(throng_last_error(), says) != NULL, "%s", throng_last_error());
	free(bad);
}

Test(damaged, a_missile_in_flight_is_checked)
{
	throng_world* w = one_missile_world();
	size_t n = 0;
	uint8_t* good = to_memory(w, &n);
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(good, n, &back), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(back->missile_n, 1u);
	cr_assert_eq(throng_world_hash(back), throng_world_hash(w));
	throng_world_destroy(back);
	// The missile: shot (u64), land (u64), target, shooter (u32), x, y, damage (f32).
	const size_t m = section_at(good, n, "MSSL") + 16;
	cr_assert_eq(get32(good + m), 1u);
	const record_damage cases[] = {
	    {16, 7, "missile 0: target 7 or shooter 0 at or above the ids' end 2"},
	    {8, 0, "missile 0: shot in step 0, lands in 0 (the world is at step 1)"},
	    {0, 1, "missile 0: shot in step 1, lands in 2 (the world is at step 1)"},
	    {24, 0x7fc00000u, "missile 0: landing point (nan, 0)"},
	    {32, 0xbf800000u, "damage -1 out of range"},
	};
	each_damage_refused(good, n, m + 4, cases, sizeof cases / sizeof cases[0]);
	count_refused(good, n, m, 2, "2 missiles in 36 bytes (72 expected)");
	free(good);
	throng_world_destroy(w);
}

/// A world whose one body lies on the ground: a swordsman (id 0) killed
/// its victim (id 1, body_radius 0.4) in the first step.
static throng_world* one_body_world(void)
{
	throng_world* w = thr_test_battlefield(THRONG_ENGINE_SIMD, 1, 5);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	c.combat = thr_test_melee(10.0f, 0.0f, 20.0f, 1.0f, 1.0f);
	c.combat.body_radius = 0.4f;
	thr_test_archetype(w, &c);
	for (int k = 0; k < 2; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){0.6f * (float)k, 0.0f};
		a.target = a.position;
		a.radius = 0.3f;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_set_target_agent(w, 0, 1), THRONG_OK);
	thr_test_step(w);
	cr_assert_eq(throng_world_agent_count(w), 1u);
	return w;
}

Test(damaged, a_body_is_checked)
{
	throng_world* w = one_body_world();
	size_t n = 0;
	uint8_t* good = to_memory(w, &n);
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(good, n, &back), THRONG_OK, "%s", throng_last_error());
	const throng_body* b = NULL;
	uint32_t count = 0;
	cr_assert_eq(throng_world_bodies(back, &b, &count), THRONG_OK);
	cr_assert(count == 1u && b[0].agent == 1u && b[0].killer == 0u && b[0].obstacle == 0u && b[0].step == 1u);
	cr_assert_eq(throng_world_obstacle_count(back), 1u);
	throng_world_destroy(back);
	// The body: position x, y, facing x, y, radius (f32), agent, killer,
	// group, archetype, unit, obstacle (u32), step (u64).
	const size_t m = section_at(good, n, "BODY") + 16;
	cr_assert_eq(get32(good + m), 1u);
	cr_assert_eq(get32(good + m - 8u), 4u + 52u, "52 bytes a body");
	const record_damage cases[] = {
	    {20, 0, "body 0: agent 0 (live, or at or above the ids' end 2) or killer 0"},
	    {24, 2, "body 0: agent 1 (live, or at or above the ids' end 2) or killer 2"},
	    {40, 1, "body 0: obstacle 1, archetype 0 or unit 4294967295 the world lacks"},
	    {32, 1, "body 0: obstacle 0, archetype 1 or unit 4294967295 the world lacks"},
	    {44, 2, "body 0: fell at step 2"},
	    {12, 0x3f800000u, "body 0: position (0.6, 0), facing (1, 1)"},
	    {16, 0, "radius 0 out of range"},
	    {0, 0x7fc00000u, "body 0: position (nan, 0)"},
	};
	each_damage_refused(good, n, m + 4, cases, sizeof cases / sizeof cases[0]);
	count_refused(good, n, m, 2, "2 bodies in 52 bytes (104 expected)");
	free(good);
	throng_world_destroy(w);
}

Test(damaged, any_flipped_byte_is_refused)
{
	throng_world* w = small_world(THRONG_ENGINE_SCALAR, true);
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	size_t n = 0;
	uint8_t* b = to_memory(w, &n);
	const size_t stride = n > 40000 ? n / 40000 : 1;
	for (size_t k = 0; k < n; k += stride) {
		b[k] ^= 0x5a;
		throng_world* r = NULL;
		const throng_status st = throng_world_read_checkpoint(b, n, &r);
		cr_assert_eq(st, THRONG_ERR_CORRUPT, "byte %zu flipped: %s", k, throng_status_name(st));
		cr_assert_null(r);
		cr_assert(strstr(throng_last_error(), "checkpoint in memory: byte offset") != NULL, "%s", throng_last_error());
		b[k] ^= 0x5a;
	}
	free(b);
	throng_world_destroy(w);
}

// The largest radius a world has seen sizes its grid's cells and its
// shapes' reach (thr_world_cell_size), and it stays after the agent
// shrinks or goes: a checkpoint keeps it, not the largest radius now.
Test(resume, the_largest_radius_ever_comes_along)
{
	for (int e = 0; e < 2; ++e) {
		throng_world* w = small_world(e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, false);
		cr_assert_eq(throng_world_set_radius(w, 10, 6.0f), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		cr_assert_eq(throng_world_remove_agent(w, 10), THRONG_OK);
		throng_world* r = restored(w, NULL);
		for (int s = 0; s < 30; ++s) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			cr_assert_eq(throng_world_step(r), THRONG_OK);
			cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "engine %d, step %d", e, s + 1);
		}
		throng_world_destroy(r);
		throng_world_destroy(w);
	}
}

// ---------------------------------------------------------------------------
// Units (format 6): their defs, their morale and rout mid-battle.
// ---------------------------------------------------------------------------

/// A fighting archetype of army `side` (hand to hand on the other army in
/// sight) and its routing twin (throng_controller_routing).
static void add_army_archetypes(throng_world* w, uint32_t side)
{
	throng_controller c = thr_test_charger(1u - side, 20.0f, 2);
	c.combat = thr_test_melee(40.0f, 0.0f, 15.0f, 0.5f, 0.6f);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	const throng_controller r = throng_controller_routing(&c);
	cr_assert_eq(throng_world_add_archetype(w, &r, NULL), THRONG_OK, "%s", throng_last_error());
}

/// Removes the first n live members (by id) of unit k: losses a battle
/// elsewhere might have dealt.
static void cut_unit(throng_world* w, uint32_t k, uint32_t n)
{
	uint32_t ids[64], got = 0;
	for (uint32_t id = 0; id < throng_world_id_end(w) && got < n && got < 64; ++id) {
		throng_agent_state a;
		if (throng_world_get_agent(w, id, &a) == THRONG_OK && a.unit == k) {
			ids[got++] = id;
		}
	}
	cr_assert_eq(got, n);
	cr_assert_eq(throng_world_remove_agents(w, ids, n), THRONG_OK, "%s", throng_last_error());
}

/// Units of the battle: each army's front line, and two reserves far
/// behind it, out of the enemy's sight.
enum { WEST_FRONT, WEST_RESERVE, WEST_LATE, EAST_FRONT, EAST_RESERVE, EAST_LATE, UNITS };

/// The unit battle at the step of its checkpoint (60): the front lines
/// fight; east's front broke at step 28, lost 6 more at step 30 and routs
/// for good to its refuge (no rally); west's reserve was cut at step 20,
/// routed and rallied (rally_time 2 s); west's late reserve was cut at
/// step 55 and is mid-rout (it rallies 10 s after its last hit, after
/// the checkpoint). A source brings west's front 8 reinforcements, and a
/// herald (archetype 4, no combat) belongs to no unit.
static throng_world* unit_battle(throng_engine engine)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.threads = 1;
	d.seed = 21;
	d.dt = 0.25f;
	d.capacity = 96;
	d.bounds_min = (throng_vec2){-100.0f, -100.0f};
	d.bounds_max = (throng_vec2){100.0f, 100.0f};
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	add_army_archetypes(w, 0); // archetypes 0 (fights) and 1 (routs)
	add_army_archetypes(w, 1); // 2 and 3
	const throng_controller herald = throng_controller_default_def(THRONG_BLEND_WEIGHTED); // 4: no combat
	cr_assert_eq(throng_world_add_archetype(w, &herald, NULL), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k < UNITS; ++k) {
		const uint32_t side = k / 3u;
		throng_unit_def u = throng_unit_default_def();
		u.archetype = 2u * side;
		u.rout_archetype = 2u * side + 1u;
		u.army = side;
		u.morale.rally_time = k == WEST_RESERVE ? 2.0f : 10.0f;
		u.morale.rallies = k == EAST_FRONT ? 0u : 1u;
		u.has_refuge = k == EAST_FRONT;
		u.refuge = (throng_vec2){90.0f, 5.0f};
		uint32_t id = 0;
		cr_assert_eq(throng_world_add_unit(w, &u, &id), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(id, k);
	}
	static const float x[UNITS] = {-4.0f, -60.0f, -60.0f, 4.0f, 60.0f, 60.0f};
	static const float y[UNITS] = {0.0f, -40.0f, 40.0f, 0.0f, -40.0f, 40.0f};
	for (uint32_t k = 0; k < UNITS; ++k) {
		for (uint32_t j = 0; j < 12; ++j) {
			throng_agent_def a = throng_agent_default_def();
			const float file = (float)(j / 6), rank = (float)(j % 6); // two files of six, 2 m apart
			a.position = (throng_vec2){x[k] + (k < 3 ? -2.0f : 2.0f) * file, y[k] - 5.0f + 2.0f * rank};
			a.heading = (throng_vec2){k < 3 ? 1.0f : -1.0f, 0.0f};
			a.archetype = k < 3 ? 0u : 2u;
			a.group = k < 3 ? 0u : 1u;
			a.target = a.position;
			a.unit = k;
			cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
		}
	}
	throng_agent_def lone = throng_agent_default_def();
	lone.position = (throng_vec2){0.0f, 30.0f};
	lone.archetype = 4;
	lone.group = 2;
	lone.target = lone.position;
	cr_assert_eq(throng_world_spawn(w, &lone, 1, NULL), THRONG_OK, "%s", throng_last_error());
	throng_source_def s = throng_source_default_def();
	s.min = (throng_vec2){-30.0f, -4.0f};
	s.max = (throng_vec2){-26.0f, 4.0f};
	s.count = 8;
	s.agent.archetype = 0;
	s.agent.target = (throng_vec2){0.0f, 0.0f};
	s.agent.unit = WEST_FRONT;
	cr_assert_eq(throng_world_add_source(w, &s, NULL), THRONG_OK, "%s", throng_last_error());
	for (uint32_t step = 0; step < 60; ++step) {
		if (step == 20) {
			cut_unit(w, WEST_RESERVE, 7);
		} else if (step == 30) {
			cut_unit(w, EAST_FRONT, 6);
		} else if (step == 55) {
			cut_unit(w, WEST_LATE, 7);
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

static throng_unit_state unit_of(const throng_world* w, uint32_t k)
{
	throng_unit_state u;
	cr_assert_eq(throng_world_get_unit(w, k, &u), THRONG_OK, "%s", throng_last_error());
	return u;
}

/// Unit k of a and b, the same to the bit.
static void same_unit(const throng_world* a, const throng_world* b, uint32_t k, uint32_t step)
{
	const throng_unit_state u = unit_of(a, k), v = unit_of(b, k);
	const float f[2][8] = {{u.morale, u.shock, u.centre.x, u.centre.y, u.facing.x, u.facing.y, u.refuge.x, u.refuge.y},
	                       {v.morale, v.shock, v.centre.x, v.centre.y, v.facing.x, v.facing.y, v.refuge.x, v.refuge.y}};
	cr_assert(u.count == v.count && u.most == v.most && u.routing == v.routing && u.rallies_left == v.rallies_left &&
	          u.routed_step == v.routed_step && memcmp(f[0], f[1], sizeof f[0]) == 0,
	          "step %u after the checkpoint: unit %u: count %u/%u, morale %g/%g, routing %d/%d", step, k, u.count,
	          v.count, (double)u.morale, (double)v.morale, u.routing, v.routing);
}

Test(units, a_battle_with_routs_and_rallies_resumes_to_the_same_bits_in_both_engines)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = unit_battle(engine);
		// The states the checkpoint must carry: broken for good, mid-rout, rallied.
		const throng_unit_state east = unit_of(w, EAST_FRONT), late = unit_of(w, WEST_LATE),
		                        reserve = unit_of(w, WEST_RESERVE);
		cr_assert(east.routing && east.rallies_left == 0 && east.routed_step == 28 && east.count > 0,
		          "east's front: routing for good");
		cr_assert(late.routing && late.rallies_left == 1 && late.routed_step == 56, "west's late reserve: mid-rout");
		cr_assert(!reserve.routing && reserve.rallies_left == 0 && reserve.routed_step != UINT64_MAX &&
		          reserve.morale == 0.5f, "west's reserve: rallied");
		char path[128];
		temp_path(path, sizeof path, "units");
		throng_world* r = restored(w, e == 0 ? path : NULL);
		unlink(path);
		cr_assert_eq(throng_world_unit_count(r), (uint32_t)UNITS);
		throng_source_def s;
		cr_assert_eq(throng_world_get_source(r, 0, &s, NULL), THRONG_OK);
		cr_assert_eq(s.agent.unit, (uint32_t)WEST_FRONT);
		for (uint32_t id = 0; id < throng_world_id_end(w); ++id) {
			throng_agent_state a, b;
			const throng_status st = throng_world_get_agent(w, id, &a);
			cr_assert_eq(throng_world_get_agent(r, id, &b), st);
			cr_assert(st != THRONG_OK || a.unit == b.unit, "agent %u: unit %u, restored %u", id, a.unit, b.unit);
		}
		for (uint32_t step = 1; step <= 200; ++step) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_step(r), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "%s engine: step %u after the checkpoint",
			             throng_engine_name(engine), step);
			for (uint32_t k = 0; k < UNITS; ++k) {
				same_unit(w, r, k, step);
			}
		}
		// The late reserve rallied after the checkpoint, on the quiet it had counted before it.
		cr_assert(!unit_of(r, WEST_LATE).routing && unit_of(r, WEST_LATE).rallies_left == 0);
		throng_world_destroy(r);
		throng_world_destroy(w);
	}
}

/// The offset of field `field` (bytes into the record) of the record that
/// starts `record` bytes into section `tag`'s body.
static size_t field_at(const uint8_t* b, size_t n, const char* tag, size_t record, size_t field)
{
	return section_at(b, n, tag) + 16u + record + field;
}

Test(damaged, units_and_who_belongs_to_them_are_checked)
{
	throng_world* w = unit_battle(THRONG_ENGINE_SCALAR);
	size_t n = 0;
	uint8_t* good = to_memory(w, &n);
	cr_assert_eq(get32(good + 8), 8u);
	const size_t body = section_at(good, n, "UNIT") + 16u;
	cr_assert_eq(get32(good + body), (uint32_t)UNITS);
	cr_assert_eq(get32(good + body - 8u), 4u + UNITS * 200u, "200 bytes a unit");
	// A unit's record: its def (archetype, rout_archetype, army, has_refuge,
	// refuge x, y, the morale's 8 f32 and rallies, the formation's 6 fields
	// and the march archetype), then its state from 88, then (format 7)
	// the morale's army_breaks_at and the unit's killed.
	const size_t unit = 4u + 200u * EAST_FRONT; // routing for good, its refuge its own
	const size_t calm = 4u + 200u * EAST_RESERVE; // never routed
	uint32_t count = 0;
	const size_t unit_column = agent_column(good, n, 21, &count);
	// The source's record: its def to relative_target (148 bytes), its agents' unit, its progress.
	const size_t source_unit = field_at(good, n, "SRCE", 4u, 148u);
	cr_assert_eq(get32(good + source_unit), (uint32_t)WEST_FRONT);
	const struct {
		size_t at;      ///< the byte changed
		uint32_t value;
		size_t named;   ///< the offset the message names
		const char* says;
	} cases[] = {
	    {field_at(good, n, "UNIT", unit, 0), 9, field_at(good, n, "UNIT", unit, 0),
	     "unit 3: throng_world_add_unit: def.archetype: no archetype 9 (the world has 5)"},
	    {field_at(good, n, "UNIT", unit, 4), 4, field_at(good, n, "UNIT", unit, 0),
	     "unit 3: throng_world_add_unit: def.rout_archetype: archetype 4 has no combat"},
	    {field_at(good, n, "UNIT", unit, 12), 2, field_at(good, n, "UNIT", unit, 12), "a flag holds 2"},
	    {field_at(good, n, "UNIT", unit, 16), 0x7fc00000u, field_at(good, n, "UNIT", unit, 0),
	     "unit 3: throng_world_add_unit: def.refuge"},
	    {field_at(good, n, "UNIT", unit, 24), 0, field_at(good, n, "UNIT", unit, 0),
	     "unit 3: throng_world_add_unit: def.morale.breaks_at: must be finite and in (0, 1] (got 0)"},
	    {field_at(good, n, "UNIT", unit, 52), 0x7fc00000u, field_at(good, n, "UNIT", unit, 0),
	     "def.morale.rally_morale: must be finite"},
	    {field_at(good, n, "UNIT", calm, 88), 13, field_at(good, n, "UNIT", calm, 88),
	     "unit 4: count 13, most 12, start 12 (count <= start <= most <= the ids' end"},
	    {field_at(good, n, "UNIT", calm, 92), 1000, field_at(good, n, "UNIT", calm, 88), "most 1000"},
	    {field_at(good, n, "UNIT", calm, 100), 5, field_at(good, n, "UNIT", calm, 100),
	     "unit 4: 5 rallies left of the 1 its morale gives"},
	    {field_at(good, n, "UNIT", calm, 104), 61, field_at(good, n, "UNIT", calm, 104),
	     "unit 4: quiet for 61 steps (the world is at step 60)"},
	    {field_at(good, n, "UNIT", calm, 108), 1, field_at(good, n, "UNIT", calm, 124),
	     "unit 4: never routed (routed_step UINT64_MAX), but routing (1 of 1 rallies left)"},
	    {field_at(good, n, "UNIT", calm, 100), 0, field_at(good, n, "UNIT", calm, 124),
	     "unit 4: never routed (routed_step UINT64_MAX), but rallied (0 of 1 rallies left)"},
	    {field_at(good, n, "UNIT", unit, 124), 61, field_at(good, n, "UNIT", unit, 124),
	     "unit 3: routed in step 61, after the world's step 60"},
	    {field_at(good, n, "UNIT", calm, 112), 0, field_at(good, n, "UNIT", calm, 112), "unit 4: base morale 0"},
	    {field_at(good, n, "UNIT", calm, 116), 0xbf800000u, field_at(good, n, "UNIT", calm, 116), "unit 4: shock -1"},
	    {field_at(good, n, "UNIT", calm, 120), 0x7fc00000u, field_at(good, n, "UNIT", calm, 120), "unit 4: morale nan"},
	    {field_at(good, n, "UNIT", unit, 136), 0x7f800000u, field_at(good, n, "UNIT", unit, 132),
	     "unit 3: centre ("},
	    {field_at(good, n, "UNIT", calm, 140), 0x3f000000u, field_at(good, n, "UNIT", calm, 140),
	     "unit 4: facing (0.5, "},
	    {field_at(good, n, "UNIT", unit, 148), 0xff800000u, field_at(good, n, "UNIT", unit, 148),
	     "unit 3: refuge (-inf, 5) is not finite"},
	    {field_at(good, n, "UNIT", calm, 156), 9, field_at(good, n, "UNIT", calm, 156),
	     "unit 4: order 9 (a throng_order_kind, 0 to 4)"},
	    {field_at(good, n, "UNIT", calm, 172), 1, field_at(good, n, "UNIT", calm, 168),
	     "unit 4: has no formation, but has an anchor"},
	    {field_at(good, n, "UNIT", calm, 184), 0, field_at(good, n, "UNIT", calm, 184),
	     "unit 4: heading (0, 0) is not a unit vector"},
	    {field_at(good, n, "UNIT", calm, 192), 0, field_at(good, n, "UNIT", calm, 0),
	     "unit 4: throng_world_add_unit: def.morale.army_breaks_at: must be finite and in (0, 1] (got 0)"},
	    {body, UNITS + 1u, body, "7 units in 1200 bytes (1400 expected"},
	    {unit_column + 4u * 5u, UNITS, unit_column + 4u * 5u, ", but the world has 6"},
	    {source_unit, UNITS, source_unit, "source 0: its agents' unit 6, but the world has 6"},
	};
	uint8_t* bad = malloc(n);
	cr_assert_not_null(bad);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		memcpy(bad, good, n);
		put32(bad + cases[k].at, cases[k].value);
		reseal(bad, n);
		throng_world* r = NULL;
		cr_assert_eq(throng_world_read_checkpoint(bad, n, &r), THRONG_ERR_CORRUPT, "case %zu read", k);
		cr_assert_null(r);
		char where[64];
		snprintf(where, sizeof where, "byte offset %zu: ", cases[k].named);
		cr_assert(strstr(throng_last_error(), where) != NULL && strstr(throng_last_error(), cases[k].says) != NULL,
		          "case %zu: \"%s\" lacks \"%s%s\"", k, throng_last_error(), where, cases[k].says);
	}
	free(bad);
	free(good);
	throng_world_destroy(w);
	// A world without units writes the section too, empty.
	w = small_world(THRONG_ENGINE_SIMD, false);
	good = to_memory(w, &n);
	cr_assert_eq(get32(good + section_at(good, n, "UNIT") + 16u), 0u);
	free(good);
	throng_world_destroy(w);
}
