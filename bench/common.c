// SPDX-License-Identifier: MIT
// Helpers shared by the benchmark files (see common.h).
#define _POSIX_C_SOURCE 200809L

#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "world_internal.h"

bench_keep bench_keep_all(void)
{
	bench_keep k;
	k.kinds = (1u << THRONG_BEHAVIOR_COUNT) - 1u;
	k.target_rule = true;
	k.contacts = true;
	return k;
}

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t bench_rss_bytes(void)
{
	FILE* f = fopen("/proc/self/statm", "r");
	if (f == NULL) {
		return -1;
	}
	long long size = 0, resident = 0;
	int n = fscanf(f, "%lld %lld", &size, &resident);
	fclose(f);
	if (n != 2) {
		return -1;
	}
	return (int64_t)resident * (int64_t)sysconf(_SC_PAGESIZE);
}

void bench_memory_settle(void)
{
#if defined(__GLIBC__)
	malloc_trim(0);
#endif
}

void bench_memory_setup(void)
{
#if defined(__GLIBC__)
	// A fixed threshold also turns off glibc's dynamic one, which would
	// otherwise move large arrays onto the heap after the first free and
	// let the next world reuse pages that are already resident.
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
}

int bench_scenarios(const char** out, int cap, const char** missing)
{
	static const char* const wanted[BENCH_SCENARIO_WANTED_COUNT] = BENCH_SCENARIO_WANTED;
	static char absent[128];
	absent[0] = '\0';
	int n = 0;
	for (int k = 0; k < BENCH_SCENARIO_WANTED_COUNT; ++k) {
		if (throng_scenario_find(wanted[k]) != NULL) {
			if (n < cap) {
				out[n++] = wanted[k];
			}
		} else {
			size_t used = strlen(absent);
			snprintf(absent + used, sizeof absent - used, "%s%s", used ? ", " : "", wanted[k]);
		}
	}
	if (missing != NULL) {
		*missing = absent;
	}
	return n;
}

throng_scene* bench_scene_create(const char* name, uint32_t agents, throng_engine engine, uint32_t threads,
                                 const char** error)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.engine = engine;
	o.threads = threads;
	o.threads_policy = THRONG_THREADS_FIXED; // a run measures the threads it names
	throng_scene* scene = NULL;
	if (throng_scene_create(name, &o, &scene) != THRONG_OK || throng_scene_step(scene) != THRONG_OK) {
		*error = throng_last_error();
		throng_scene_destroy(scene);
		return NULL;
	}
	return scene;
}

bool bench_keeps(bench_keep keep, const throng_slot* slot)
{
	return slot->enabled && ((keep.kinds >> (unsigned)slot->kind) & 1u) != 0;
}

float bench_cell_size(const throng_world* w)
{
	return thr_world_cell_size(w); // the engines' own rule (core/world_grid.c)
}

/// The agent's def from its state (a velocity a rounding above max_speed,
/// as a step leaves some, is taken by spawn: thr_speed_fits).
static throng_agent_def def_of(const throng_agent_state* a)
{
	throng_agent_def d = throng_agent_default_def();
	d.position = a->position;
	d.velocity = a->velocity;
	d.heading = a->heading;
	d.max_speed = a->max_speed;
	d.max_force = a->max_force;
	d.radius = a->radius;
	d.archetype = a->archetype;
	d.group = a->group;
	d.target = a->target;
	d.target_agent = a->target_agent;
	d.path = THRONG_NO_PATH;
	return d;
}

/// Archetype a's controller with only the slots of `keep` (and its target
/// rule when keep.target_rule).
static void kept_controller(const throng_world* w, uint32_t a, bench_keep keep, throng_controller* out)
{
	throng_controller full;
	throng_world_get_controller(w, a, &full);
	*out = throng_controller_default_def(full.mode);
	if (keep.target_rule) {
		out->target_rule = full.target_rule;
	}
	out->contact = full.contact;
	out->contact.enabled = keep.contacts && full.contact.enabled;
	for (uint32_t k = 0; k < full.slot_count; ++k) {
		if (bench_keeps(keep, &full.slots[k])) {
			throng_controller_add(out, full.slots[k]);
		}
	}
}

throng_status bench_world_set_keep(throng_world* w, throng_scene* src, bench_keep keep)
{
	const throng_world* sw = throng_scene_world(src);
	throng_status st = THRONG_OK;
	for (uint32_t a = 0; st == THRONG_OK && a < throng_world_archetype_count(sw); ++a) {
		throng_controller kept;
		kept_controller(sw, a, keep, &kept);
		st = throng_world_set_controller(w, a, &kept);
	}
	return st;
}

throng_status bench_world_clone(throng_scene* src, bench_keep keep, throng_engine engine, uint32_t threads,
                                float cell_size, throng_world** out)
{
	*out = NULL;
	const throng_world* sw = throng_scene_world(src);
	throng_world_def def = throng_world_get_def(sw);
	def.engine = engine;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED;
	def.record_forces = false;
	def.cell_size = cell_size;
	throng_world* w = NULL;
	throng_status st = throng_world_create(&def, &w);
	for (uint32_t a = 0; st == THRONG_OK && a < throng_world_archetype_count(sw); ++a) {
		throng_controller kept;
		kept_controller(sw, a, keep, &kept);
		uint32_t id;
		st = throng_world_add_archetype(w, &kept, &id);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < throng_world_obstacle_count(sw); ++k) {
		throng_vec2 c;
		float r;
		throng_world_get_obstacle(sw, k, &c, &r);
		st = throng_world_add_obstacle(w, c, r, NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < throng_world_wall_count(sw); ++k) {
		throng_vec2 a, b;
		throng_world_get_wall(sw, k, &a, &b);
		st = throng_world_add_wall(w, a, b, NULL);
	}
	if (st == THRONG_OK) {
		throng_vec2 threat = {0.0f, 0.0f};
		bool active = throng_scene_threat(src, &threat);
		st = throng_world_set_threat(w, threat, (throng_vec2){0.0f, 0.0f}, active);
	}
	uint32_t n = throng_world_agent_count(sw);
	if (st == THRONG_OK && n > 0) {
		// One spawn call: a target agent must be spawned in the same call
		// or before.
		throng_agent_def* defs = malloc((size_t)n * sizeof *defs);
		if (defs == NULL) {
			st = THRONG_ERR_OUT_OF_MEMORY;
		} else {
			for (uint32_t id = 0; id < n; ++id) {
				throng_agent_state a;
				throng_world_get_agent(sw, id, &a);
				defs[id] = def_of(&a);
			}
			st = throng_world_spawn(w, defs, n, NULL);
			free(defs);
		}
	}
	if (st != THRONG_OK) {
		throng_world_destroy(w);
		return st;
	}
	*out = w;
	return THRONG_OK;
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

uint32_t bench_rule_period(const throng_world* w, bench_keep keep)
{
	uint32_t period = 1;
	if (!keep.target_rule) {
		return period;
	}
	for (uint32_t a = 0; a < throng_world_archetype_count(w); ++a) {
		throng_controller c;
		throng_world_get_controller(w, a, &c);
		if (c.target_rule.enabled && c.target_rule.every > 1) {
			uint64_t l = (uint64_t)period / gcd32(period, c.target_rule.every) * c.target_rule.every;
			period = l > BENCH_MAX_PERIOD ? BENCH_MAX_PERIOD : (uint32_t)l;
		}
	}
	return period;
}

uint32_t bench_run_period(const throng_world* w, bench_keep keep)
{
	uint32_t period = bench_rule_period(w, keep);
	if ((uint64_t)throng_world_agent_count(w) * period > BENCH_MAX_PERIOD_AGENT_STEPS) {
		period = 1;
	}
	return period;
}
