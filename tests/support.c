// SPDX-License-Identifier: MIT
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/// The file into buf, cut at cap - 1 bytes; empty when it cannot be read.
static size_t slurp(const char* path, char* buf, size_t cap)
{
	buf[0] = '\0';
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		return 0;
	}
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

size_t thr_test_slurp(const char* path, char* buf, size_t cap)
{
	FILE* f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fclose(f);
	return slurp(path, buf, cap);
}

void thr_test_write_text(const char* path, const char* text)
{
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

int thr_test_run(const char* cmdline, char* out, uint32_t out_cap, char* err, uint32_t err_cap)
{
	char out_path[] = "/tmp/throng_test_outXXXXXX";
	char err_path[] = "/tmp/throng_test_errXXXXXX";
	int fo = mkstemp(out_path);
	int fe = mkstemp(err_path);
	if (fo < 0 || fe < 0) {
		return -1;
	}
	close(fo);
	close(fe);
	size_t len = strlen(cmdline) + strlen(out_path) + strlen(err_path) + 32;
	char* full = malloc(len);
	snprintf(full, len, "%s >%s 2>%s </dev/null", cmdline, out_path, err_path);
	int st = system(full);
	free(full);
	slurp(out_path, out, out_cap);
	slurp(err_path, err, err_cap);
	unlink(out_path);
	unlink(err_path);
	if (st == -1 || !WIFEXITED(st)) {
		return -1;
	}
	return WEXITSTATUS(st);
}

/// thr_test_cli in `dir` (`cd dir && throng args`), or where the test runs
/// when dir is NULL.
static int cli_at(const char* dir, const char* args, char* out, uint32_t out_cap, char* err, uint32_t err_cap)
{
	cr_assert(strlen(THRONG_CLI_PATH) > 0, "the throng_cli target is not built");
	size_t len = (dir != NULL ? strlen(dir) + 10 : 0) + strlen(THRONG_CLI_PATH) + strlen(args) + 8;
	char* cmd = malloc(len);
	cr_assert_not_null(cmd);
	if (dir != NULL) {
		snprintf(cmd, len, "cd '%s' && '%s' %s", dir, THRONG_CLI_PATH, args);
	} else {
		snprintf(cmd, len, "'%s' %s", THRONG_CLI_PATH, args);
	}
	int st = thr_test_run(cmd, out, out_cap, err, err_cap);
	free(cmd);
	return st;
}

int thr_test_cli(const char* args, char* out, uint32_t out_cap, char* err, uint32_t err_cap)
{
	return cli_at(NULL, args, out, out_cap, err, err_cap);
}

int thr_test_cli_in(const char* dir, const char* args, char* out, uint32_t out_cap, char* err, uint32_t err_cap)
{
	return cli_at(dir, args, out, out_cap, err, err_cap);
}

void thr_test_make_dir(char* dir, size_t cap, const char* prefix)
{
	cr_assert_lt((size_t)snprintf(dir, cap, "/tmp/%s-XXXXXX", prefix), cap, "%s: the name is too long", prefix);
	cr_assert_not_null(mkdtemp(dir), "%s: %s", dir, strerror(errno));
}

void thr_test_remove_dir(const char* dir)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/// The scene `name` from a scene def with these fields.
static throng_scene* make_scene(const char* name, uint32_t agents, uint64_t seed, throng_engine engine,
                                uint32_t threads, throng_threads_policy policy)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.seed = seed;
	o.engine = engine;
	o.threads = threads;
	o.threads_policy = policy;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s: %s", name, throng_last_error());
	return s;
}

throng_scene* thr_test_scene(const char* name, uint32_t agents, throng_engine engine)
{
	const throng_scene_def d = throng_scene_default_def();
	return make_scene(name, agents, d.seed, engine, d.threads, d.threads_policy);
}

throng_scene* thr_test_scene_threads(const char* name, uint32_t agents, uint64_t seed, throng_engine engine,
                                     uint32_t threads)
{
	return make_scene(name, agents, seed, engine, threads, THRONG_THREADS_FIXED);
}

throng_controller thr_test_charger(uint32_t enemy, float sight, uint32_t every)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
	pursue.params.target = THRONG_TARGET_AGENT;
	cr_assert_geq(throng_controller_add(&c, pursue), 0);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION)), 0);
	c.target_rule.enabled = true;
	c.target_rule.group = enemy;
	c.target_rule.sight_radius = sight;
	c.target_rule.every = every;
	return c;
}

throng_combat thr_test_melee(float health, float armour, float damage, float cooldown, float accuracy)
{
	throng_combat c = throng_controller_default_def(THRONG_BLEND_WEIGHTED).combat;
	c.enabled = true;
	c.health = health;
	c.armour = armour;
	c.attack = THRONG_ATTACK_MELEE;
	c.reach = 0.5f;
	c.damage = damage;
	c.cooldown = cooldown;
	c.accuracy = accuracy;
	return c;
}

throng_world* thr_test_battlefield(throng_engine engine, uint32_t threads, uint64_t seed)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.threads = threads;
	d.threads_policy = THRONG_THREADS_FIXED;
	d.bounds_min = (throng_vec2){-100.0f, -100.0f};
	d.bounds_max = (throng_vec2){100.0f, 100.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.dt = 0.25f;
	d.seed = seed;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

uint32_t thr_test_archetype(throng_world* w, const throng_controller* c)
{
	uint32_t id = 0;
	cr_assert_eq(throng_world_add_archetype(w, c, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

void thr_test_step(throng_world* w)
{
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
}

throng_agent_state thr_test_agent(const throng_world* w, uint32_t id)
{
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK, "%s", throng_last_error());
	return a;
}

throng_unit_state thr_test_unit(const throng_world* w, uint32_t unit)
{
	throng_unit_state s;
	cr_assert_eq(throng_world_get_unit(w, unit, &s), THRONG_OK, "%s", throng_last_error());
	return s;
}

void thr_test_spawn(throng_world* w, throng_vec2 p, throng_vec2 v, throng_vec2 target)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = p;
	a.velocity = v;
	a.max_speed = 2.0f;
	a.target = target;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
}

throng_exporter* thr_test_circle_exporter(const char* path, uint32_t agents, throng_export_def def,
                                          throng_scene** scene)
{
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = agents;
	*scene = NULL;
	cr_assert_eq(throng_scene_create("circle", &opt, scene), THRONG_OK, "%s", throng_last_error());
	def.world = throng_scene_world(*scene);
	def.scenario = "circle";
	throng_exporter* ex = NULL;
	cr_assert_eq(throng_exporter_create(path, &def, &ex), THRONG_OK, "%s", throng_last_error());
	return ex;
}

/// Steps `s` `steps` times with a fresh metrics object observing every
/// step; `hook` (if any) runs between a step and its observation, `watch`
/// (if any) after it.
static throng_quality observe_scene(throng_scene* s, uint32_t steps, thr_test_hook* hook, thr_test_watch* watch,
                                    void* user)
{
	throng_world* w = throng_scene_world(s);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, throng_scene_goal_radius(s), &m), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		if (hook != NULL) {
			hook(w, m, k, user);
		}
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
		if (watch != NULL) {
			watch(w, k, user);
		}
	}
	throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	return q;
}

throng_quality thr_test_watch_scene(throng_scene* s, uint32_t steps, thr_test_watch* watch, void* user)
{
	return observe_scene(s, steps, NULL, watch, user);
}

throng_quality thr_test_hook_scene(throng_scene* s, uint32_t steps, thr_test_hook* hook, void* user)
{
	return observe_scene(s, steps, hook, NULL, user);
}

throng_quality thr_test_run_scene(throng_scene* s, uint32_t steps, uint64_t* hash)
{
	throng_quality q = thr_test_watch_scene(s, steps, NULL, NULL);
	if (hash != NULL) {
		*hash = throng_world_hash(throng_scene_world(s));
	}
	return q;
}

double thr_test_outcome(const throng_scene* s, const char* name)
{
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	uint32_t n = throng_scene_outcomes(s, out, THRONG_MAX_OUTCOMES);
	for (uint32_t k = 0; k < n && k < THRONG_MAX_OUTCOMES; ++k) {
		if (strcmp(out[k].name, name) == 0) {
			return out[k].value;
		}
	}
	cr_assert_fail("no outcome %s", name);
	return 0.0;
}

float thr_test_uniform(uint64_t* state, float lo, float hi)
{
	const uint64_t z = thr_test_u64(state);
	float u = (float)(z >> 40) * (1.0f / 16777216.0f);
	return lo + (hi - lo) * u;
}

const char* thr_test_summary_value(const char* text, const char* key)
{
	size_t len = strlen(key);
	for (const char* line = text; line != NULL && *line != '\0';) {
		if (strncmp(line, key, len) == 0 && line[len] == ':') {
			const char* v = line + len + 1;
			while (*v == ' ') {
				++v;
			}
			return v;
		}
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return NULL;
}

bool thr_test_same_params(const throng_behavior_params* p, const throng_behavior_params* q)
{
	return p->target == q->target && p->flee_mode == q->flee_mode && p->flee_radius == q->flee_radius &&
	       p->slow_radius == q->slow_radius && p->evade_radius == q->evade_radius &&
	       p->max_prediction == q->max_prediction && p->circle_distance == q->circle_distance &&
	       p->circle_radius == q->circle_radius && p->jitter == q->jitter && p->frame == q->frame &&
	       p->noise_frequency == q->noise_frequency && p->noise_amplitude == q->noise_amplitude &&
	       p->look_ahead == q->look_ahead && p->feeler_angle == q->feeler_angle &&
	       p->avoid_radius == q->avoid_radius && p->neighbor_radius == q->neighbor_radius &&
	       p->same_group_only == q->same_group_only && p->max_neighbors == q->max_neighbors &&
	       p->margin == q->margin && p->waypoint_radius == q->waypoint_radius && p->time_gap == q->time_gap &&
	       p->ttc_strength == q->ttc_strength && p->ttc_horizon == q->ttc_horizon &&
	       p->ttc_max_time == q->ttc_max_time && p->fov_weight == q->fov_weight && p->side_bias == q->side_bias;
}

// Churn: agents that come and go (tests/test_churn.c, test_checkpoint.c).

uint64_t thr_test_u64(uint64_t* s)
{
	// splitmix64: a test-local stream, independent of the engine's generator.
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t thr_test_pick_live(throng_world* w, uint64_t* rng, uint32_t n, uint32_t* out)
{
	const uint32_t end = throng_world_id_end(w);
	uint32_t got = 0;
	for (uint32_t tries = 0; got < n && end > 0 && tries < 50u * n + 100u; ++tries) {
		const uint32_t id = (uint32_t)(thr_test_u64(rng) % end);
		throng_agent_state a;
		bool seen = throng_world_get_agent(w, id, &a) != THRONG_OK;
		for (uint32_t k = 0; k < got && !seen; ++k) {
			seen = out[k] == id;
		}
		if (!seen) {
			out[got++] = id;
		}
	}
	return got;
}

void thr_test_churn(throng_world* w, uint64_t* rng, uint32_t n)
{
	uint32_t* ids = malloc(n * sizeof *ids);
	throng_agent_def* defs = malloc(n * sizeof *defs);
	cr_assert(ids != NULL && defs != NULL);
	uint32_t got = thr_test_pick_live(w, rng, n, ids);
	if (got > 0) {
		cr_assert_eq(throng_world_remove_agents(w, ids, got), THRONG_OK, "%s", throng_last_error());
	}
	const throng_world_def d = throng_world_get_def(w);
	got = thr_test_pick_live(w, rng, n, ids);
	for (uint32_t k = 0; k < got; ++k) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, ids[k], &a), THRONG_OK);
		throng_agent_def* def = &defs[k];
		*def = throng_agent_default_def();
		def->position.x = thr_test_uniform(rng, d.bounds_min.x, d.bounds_max.x);
		def->position.y = thr_test_uniform(rng, d.bounds_min.y, d.bounds_max.y);
		def->max_speed = a.max_speed;
		def->max_force = a.max_force;
		def->radius = a.radius;
		def->archetype = a.archetype;
		def->group = a.group;
		def->target = a.target;
		def->path = a.path;
		def->target_agent = (thr_test_u64(rng) & 3u) == 0 ? ids[(k + 1u) % got] : a.target_agent;
	}
	if (got > 0) {
		cr_assert_eq(throng_world_spawn(w, defs, got, NULL), THRONG_OK, "%s", throng_last_error());
	}
	free(ids);
	free(defs);
}

// ---------------------------------------------------------------------------
// Outputs of a churned run (test_stream.c, test_export.c, test_feed.c).

/// Records the world's live agents, by id, as frame truth->frames.
static void record_truth(thr_test_churn_truth* truth, const throng_world* w)
{
	cr_assert_lt(truth->frames, THR_TEST_CHURN_FRAMES);
	thr_test_frame_truth* f = &truth->frame[truth->frames++];
	const uint32_t n = throng_world_agent_count(w), end = throng_world_id_end(w);
	f->step = throng_world_view(w).step;
	f->count = 0;
	f->id = calloc(n + 1u, sizeof *f->id);
	f->group = calloc(n + 1u, sizeof *f->group);
	f->archetype = calloc(n + 1u, sizeof *f->archetype);
	cr_assert(f->id != NULL && f->group != NULL && f->archetype != NULL);
	for (int k = 0; k < 6; ++k) {
		f->field[k] = calloc(n + 1u, sizeof *f->field[k]);
		cr_assert_not_null(f->field[k]);
	}
	for (uint32_t id = 0; id < end; ++id) {
		throng_agent_state a;
		if (throng_world_get_agent(w, id, &a) != THRONG_OK) {
			continue; // removed
		}
		cr_assert_lt(f->count, n);
		const uint32_t k = f->count++;
		f->id[k] = id;
		const float v[6] = {a.position.x, a.position.y, a.velocity.x, a.velocity.y, a.heading.x, a.heading.y};
		for (int j = 0; j < 6; ++j) {
			f->field[j][k] = v[j];
		}
		f->group[k] = a.group;
		f->archetype[k] = a.archetype;
	}
	cr_assert_eq(f->count, n, "frame %u: %u agents found by id, %u live", truth->frames - 1u, f->count, n);
}

/// Spawns `n` agents of the default def at random places in the bounds,
/// heading for the origin.
static void spawn_some(throng_world* w, uint64_t* rng, uint32_t n)
{
	const throng_world_def d = throng_world_get_def(w);
	throng_agent_def defs[8];
	cr_assert_leq(n, 8u);
	for (uint32_t k = 0; k < n; ++k) {
		defs[k] = throng_agent_default_def();
		defs[k].position.x = thr_test_uniform(rng, d.bounds_min.x, d.bounds_max.x);
		defs[k].position.y = thr_test_uniform(rng, d.bounds_min.y, d.bounds_max.y);
		defs[k].target = (throng_vec2){0, 0};
	}
	cr_assert_eq(throng_world_spawn(w, defs, n, NULL), THRONG_OK, "%s", throng_last_error());
}

void thr_test_churned_run(throng_scene* scene, thr_test_output* out, void* user, thr_test_churn_truth* truth)
{
	throng_world* w = throng_scene_world(scene);
	uint64_t rng = 33;
	memset(truth, 0, sizeof *truth);
	for (uint32_t k = 0; k < THR_TEST_CHURN_FRAMES; ++k) {
		if (k > 0) {
			uint32_t ids[8];
			if (k == 11) { // everyone leaves: a frame of no agents
				const uint32_t end = throng_world_id_end(w);
				for (uint32_t id = 0; id < end; ++id) {
					throng_agent_state a;
					if (throng_world_get_agent(w, id, &a) == THRONG_OK) {
						cr_assert_eq(throng_world_remove_agent(w, id), THRONG_OK, "%s", throng_last_error());
					}
				}
			} else if (k == 12) {
				spawn_some(w, &rng, 7); // and some come back, with new ids
			} else if (throng_world_agent_count(w) > 0) {
				thr_test_churn(w, &rng, 3);
				if (k % 3 == 1) {
					uint32_t got = thr_test_pick_live(w, &rng, 4, ids);
					cr_assert_eq(throng_world_remove_agents(w, ids, got), THRONG_OK, "%s", throng_last_error());
				} else if (k % 3 == 2) {
					spawn_some(w, &rng, 5);
				}
			}
			cr_assert_eq(throng_scene_step(scene), THRONG_OK, "%s", throng_last_error());
		}
		out(user, w);
		record_truth(truth, w);
	}
}

void thr_test_churn_truth_free(thr_test_churn_truth* truth)
{
	for (uint32_t k = 0; k < truth->frames; ++k) {
		thr_test_frame_truth* f = &truth->frame[k];
		free(f->id);
		free(f->group);
		free(f->archetype);
		for (int j = 0; j < 6; ++j) {
			free(f->field[j]);
		}
	}
	memset(truth, 0, sizeof *truth);
}

void thr_test_collect(void* user, const throng_diagnostic* d)
{
	thr_test_messages* m = user;
	char line[2048];
	throng_diagnostic_format(d, line, sizeof line);
	int n = snprintf(m->text + m->len, sizeof m->text - m->len, "%s\n", line);
	if (n > 0 && (size_t)n < sizeof m->text - m->len) {
		m->len += (size_t)n;
	}
	m->count += d->warning ? 0u : 1u;
}

throng_scene* thr_test_load_text(const char* name, const char* text)
{
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory(name, text, strlen(text), NULL, NULL, NULL, &s), THRONG_OK, "%s: %s", name,
	             throng_last_error());
	return s;
}
