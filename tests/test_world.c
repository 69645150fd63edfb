// SPDX-License-Identifier: MIT
// The world API: bad input leaves the world as it was, the integrator's
// invariants hold over long random runs, bounds modes keep agents where they
// belong, and the state hash is deterministic.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine.h"
#include "support.h"
#include "throng/throng.h"
#include "world_internal.h"

/// The engine the world helpers below create worlds for.
static throng_engine engine_under_test = THRONG_ENGINE_SIMD;

static throng_world* make_world(throng_bounds_mode mode, uint32_t capacity, uint64_t seed)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine_under_test;
	d.bounds_mode = mode;
	d.capacity = capacity;
	d.seed = seed;
	d.bounds_min = (throng_vec2){-20.0f, -20.0f};
	d.bounds_max = (throng_vec2){20.0f, 20.0f};
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// A controller that uses every behaviour, each with a random weight.
static throng_controller busy_controller(uint64_t* rng, throng_blend_mode mode)
{
	throng_controller c = throng_controller_default_def(mode);
	// 17 kinds, 16 slots: alignment is left out (separation and cohesion
	// read the same neighbours through the same walk).
	_Static_assert(THRONG_BEHAVIOR_COUNT - 1 <= THRONG_MAX_SLOTS, "every kind but alignment fits");
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		if (k == THRONG_ALIGNMENT) {
			continue;
		}
		throng_slot s = throng_slot_default_def((throng_behavior_kind)k);
		s.weight = thr_test_uniform(rng, 0.0f, 3.0f);
		s.priority = thr_test_uniform(rng, 0.0f, 1.0f) < 0.4f;
		s.params.target = (throng_target_source)(int)thr_test_uniform(rng, 0.0f, 2.999f);
		s.params.flee_mode = (throng_flee_mode)(int)thr_test_uniform(rng, 0.0f, 2.999f);
		s.params.frame = (throng_wander_frame)(int)thr_test_uniform(rng, 0.0f, 1.999f);
		cr_assert_geq(throng_controller_add(&c, s), 0);
	}
	return c;
}

/// Spawns n random agents inside [-18, 18]^2 with random limits, archetypes,
/// groups, targets and target agents.
static void spawn_random(throng_world* w, uint64_t* rng, uint32_t n, uint32_t archetypes)
{
	throng_agent_def* defs = calloc(n, sizeof *defs);
	for (uint32_t i = 0; i < n; ++i) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(rng, -18.0f, 18.0f), thr_test_uniform(rng, -18.0f, 18.0f)};
		a.max_speed = thr_test_uniform(rng, 0.2f, 4.0f);
		a.max_force = thr_test_uniform(rng, 0.5f, 20.0f);
		a.radius = thr_test_uniform(rng, 0.1f, 0.6f);
		float ang = thr_test_uniform(rng, -3.14159f, 3.14159f);
		float sp = thr_test_uniform(rng, 0.0f, 1.0f) * a.max_speed;
		a.velocity = (throng_vec2){cosf(ang) * sp, sinf(ang) * sp};
		if (a.velocity.x * a.velocity.x + a.velocity.y * a.velocity.y > a.max_speed * a.max_speed) {
			a.velocity = (throng_vec2){0.0f, 0.0f};
		}
		a.archetype = (uint32_t)thr_test_uniform(rng, 0.0f, (float)archetypes - 0.001f);
		a.group = (uint32_t)thr_test_uniform(rng, 0.0f, 2.999f);
		a.target = (throng_vec2){thr_test_uniform(rng, -15.0f, 15.0f), thr_test_uniform(rng, -15.0f, 15.0f)};
		a.target_agent = thr_test_uniform(rng, 0.0f, 1.0f) < 0.5f ? (uint32_t)thr_test_uniform(rng, 0.0f, (float)n - 1.0f)
		                                                         : THRONG_NO_AGENT;
		defs[i] = a;
	}
	cr_assert_eq(throng_world_spawn(w, defs, n, NULL), THRONG_OK, "%s", throng_last_error());
	free(defs);
}

/// A world with three archetypes (one per blend mode) of every behaviour,
/// obstacles, walls and a threat.
static throng_world* busy_world(throng_bounds_mode mode, uint32_t n, uint64_t seed)
{
	uint64_t rng = seed * 7919u + 1u;
	throng_world* w = make_world(mode, n, seed);
	for (int m = 0; m < 3; ++m) {
		throng_controller c = busy_controller(&rng, (throng_blend_mode)m);
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	}
	for (int k = 0; k < 12; ++k) {
		throng_vec2 c = {thr_test_uniform(&rng, -15.0f, 15.0f), thr_test_uniform(&rng, -15.0f, 15.0f)};
		cr_assert_eq(throng_world_add_obstacle(w, c, thr_test_uniform(&rng, 0.3f, 2.0f), NULL), THRONG_OK);
	}
	for (int k = 0; k < 6; ++k) {
		throng_vec2 a = {thr_test_uniform(&rng, -15.0f, 15.0f), thr_test_uniform(&rng, -15.0f, 15.0f)};
		throng_vec2 b = {a.x + thr_test_uniform(&rng, -6.0f, 6.0f), a.y + thr_test_uniform(&rng, -6.0f, 6.0f)};
		cr_assert_eq(throng_world_add_wall(w, a, b, NULL), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_set_threat(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.0f, 0.5f}, true), THRONG_OK);
	spawn_random(w, &rng, n, 3);
	return w;
}

Test(integrator, speed_never_exceeds_max_speed)
{
	const throng_bounds_mode modes[] = {THRONG_BOUNDS_CONTAIN, THRONG_BOUNDS_WRAP, THRONG_BOUNDS_BOUNCE,
	                                    THRONG_BOUNDS_OPEN};
	for (int m = 0; m < 8; ++m) {
		engine_under_test = m < 4 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = busy_world(modes[m % 4], 200, 11u + (uint64_t)m);
		for (int step = 0; step < 800; ++step) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			throng_view v = throng_world_view(w);
			for (uint32_t i = 0; i < v.count; ++i) {
				throng_agent_state a;
				throng_world_get_agent(w, v.id[i], &a);
				float speed = sqrtf(v.vx[i] * v.vx[i] + v.vy[i] * v.vy[i]);
				cr_assert_leq(speed, a.max_speed * (1.0f + 1.0e-6f), "mode %d step %d agent %u: %.9g > %.9g", m,
				              step, v.id[i], speed, a.max_speed);
				cr_assert(isfinite(v.x[i]) && isfinite(v.y[i]));
				float hl = sqrtf(v.hx[i] * v.hx[i] + v.hy[i] * v.hy[i]);
				cr_assert_float_eq(hl, 1.0f, 1.0e-5f, "heading of agent %u is not a unit vector", v.id[i]);
			}
		}
		throng_world_stats st = throng_world_get_stats(w);
		cr_assert_eq(st.nonfinite, 0u);
		cr_assert_leq(st.max_speed_ratio, 1.000001f);
		cr_assert_eq(st.steps, 800u);
		throng_world_destroy(w);
	}
}

Test(view, every_array_is_in_the_slot_order_of_id)
{
	// The SIMD engine sorts agents by cell, so slots and ids part after a
	// step; each array of the view, radius included, must follow id[k].
	engine_under_test = THRONG_ENGINE_SIMD;
	throng_world* w = busy_world(THRONG_BOUNDS_CONTAIN, 300, 21);
	for (int step = 0; step < 5; ++step) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	throng_view v = throng_world_view(w);
	cr_assert_eq(v.count, 300u);
	cr_assert_eq(v.step, 5u);
	uint32_t moved = 0;
	float rmin = 1e9f, rmax = 0.0f;
	for (uint32_t k = 0; k < v.count; ++k) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, v.id[k], &a), THRONG_OK);
		moved += v.id[k] != k;
		cr_assert_eq(v.x[k], a.position.x, "slot %u", k);
		cr_assert_eq(v.y[k], a.position.y, "slot %u", k);
		cr_assert_eq(v.vx[k], a.velocity.x, "slot %u", k);
		cr_assert_eq(v.vy[k], a.velocity.y, "slot %u", k);
		cr_assert_eq(v.hx[k], a.heading.x, "slot %u", k);
		cr_assert_eq(v.hy[k], a.heading.y, "slot %u", k);
		cr_assert_eq(v.radius[k], a.radius, "slot %u (agent %u): radius %g, the agent's %g", k, v.id[k],
		             (double)v.radius[k], (double)a.radius);
		cr_assert_eq(v.group[k], a.group, "slot %u", k);
		cr_assert_eq(v.archetype[k], a.archetype, "slot %u", k);
		rmin = a.radius < rmin ? a.radius : rmin;
		rmax = a.radius > rmax ? a.radius : rmax;
	}
	cr_assert_gt(moved, 0u, "no agent left its spawn slot: the test proves nothing");
	cr_assert_lt(rmin, rmax, "every radius is the same: the test proves nothing");
	throng_world_destroy(w);
	throng_view none = throng_world_view(NULL);
	cr_assert_eq(none.count, 0u);
	cr_assert_null(none.radius);
}

Test(bounds, contain_keeps_every_agent_inside)
{
	engine_under_test = THRONG_ENGINE_SCALAR; // the SIMD engine: test_simd.c
	throng_world* w = busy_world(THRONG_BOUNDS_CONTAIN, 250, 5);
	for (int step = 0; step < 1000; ++step) {
		throng_world_step(w);
		throng_view v = throng_world_view(w);
		for (uint32_t i = 0; i < v.count; ++i) {
			throng_agent_state a;
			throng_world_get_agent(w, v.id[i], &a);
			cr_assert(v.x[i] >= -20.0f + a.radius && v.x[i] <= 20.0f - a.radius, "step %d agent %u x %g", step,
			          v.id[i], v.x[i]);
			cr_assert(v.y[i] >= -20.0f + a.radius && v.y[i] <= 20.0f - a.radius, "step %d agent %u y %g", step,
			          v.id[i], v.y[i]);
		}
	}
	throng_world_destroy(w);
}

Test(bounds, wrap_and_bounce_stay_inside)
{
	const throng_bounds_mode modes[] = {THRONG_BOUNDS_WRAP, THRONG_BOUNDS_BOUNCE};
	for (int m = 0; m < 2; ++m) {
		throng_world* w = busy_world(modes[m], 150, 9);
		for (int step = 0; step < 800; ++step) {
			throng_world_step(w);
			throng_view v = throng_world_view(w);
			for (uint32_t i = 0; i < v.count; ++i) {
				cr_assert(v.x[i] >= -20.0f && v.x[i] <= 20.0f && v.y[i] >= -20.0f && v.y[i] <= 20.0f,
				          "mode %d step %d agent %u at (%g, %g)", m, step, v.id[i], v.x[i], v.y[i]);
			}
		}
		throng_world_destroy(w);
	}
}

Test(bounds, wrap_crosses_to_the_opposite_side)
{
	throng_world* w = make_world(THRONG_BOUNDS_WRAP, 8, 1);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
	throng_agent_def a = throng_agent_default_def();
	a.position = (throng_vec2){19.99f, 0.0f};
	a.velocity = (throng_vec2){1.2f, 0.0f};
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK);
	throng_world_step(w);
	throng_agent_state s;
	throng_world_get_agent(w, 0, &s);
	// 19.99 + 1.2/60 = 20.01 -> 20.01 - 40 = -19.99
	cr_assert_float_eq(s.position.x, -19.99f, 1.0e-4f);
	throng_world_destroy(w);
}

Test(integrator, heading_is_kept_at_rest)
{
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, 8, 1);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_world_add_archetype(w, &c, NULL);
	throng_agent_def a = throng_agent_default_def();
	a.heading = (throng_vec2){0.0f, -1.0f};
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK);
	for (int k = 0; k < 10; ++k) {
		throng_world_step(w);
	}
	throng_agent_state s;
	throng_world_get_agent(w, 0, &s);
	cr_assert_eq(s.heading.x, 0.0f);
	cr_assert_eq(s.heading.y, -1.0f);
	throng_world_destroy(w);
}

Test(integrator, one_step_by_hand)
{
	// seek (10, 0) from the origin at rest, max_speed 2, max_force 4, dt 0.5:
	// desired (2, 0), force limit((2,0) - 0, 4) = (2, 0); v = (0,0) + (2,0)*0.5
	// = (1, 0) (<= 2); p = (0,0) + (1,0)*0.5 = (0.5, 0); heading (1, 0).
	throng_world_def d = throng_world_default_def();
	d.dt = 0.5f;
	d.record_forces = true;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
	throng_world_add_archetype(w, &c, NULL);
	throng_agent_def a = throng_agent_default_def();
	a.max_speed = 2.0f;
	a.max_force = 4.0f;
	a.target = (throng_vec2){10.0f, 0.0f};
	a.heading = (throng_vec2){0.0f, 1.0f};
	throng_world_spawn(w, &a, 1, NULL);
	throng_world_step(w);
	throng_agent_state s;
	throng_world_get_agent(w, 0, &s);
	cr_assert_float_eq(s.velocity.x, 1.0f, 1e-6f);
	cr_assert_float_eq(s.velocity.y, 0.0f, 1e-6f);
	cr_assert_float_eq(s.position.x, 0.5f, 1e-6f);
	cr_assert_float_eq(s.heading.x, 1.0f, 1e-6f);
	throng_vec2 f;
	cr_assert_eq(throng_world_slot_force(w, 0, 0, &f), THRONG_OK);
	cr_assert_float_eq(f.x, 2.0f, 1e-6f);
	cr_assert_eq(throng_world_total_force(w, 0, &f), THRONG_OK);
	cr_assert_float_eq(f.x, 2.0f, 1e-6f);
	// Second step: desired (2,0), force limit((2,0)-(1,0), 4) = (1,0);
	// v = (1,0) + (1,0)*0.5 = (1.5, 0); p = 0.5 + 0.75 = 1.25.
	throng_world_step(w);
	throng_world_get_agent(w, 0, &s);
	cr_assert_float_eq(s.velocity.x, 1.5f, 1e-6f);
	cr_assert_float_eq(s.position.x, 1.25f, 1e-6f);
	throng_world_destroy(w);
}

Test(determinism, same_inputs_same_hash_different_seed_differs)
{
	uint64_t h[3];
	const uint64_t seeds[] = {3, 3, 4};
	for (int k = 0; k < 3; ++k) {
		throng_world* w = busy_world(THRONG_BOUNDS_CONTAIN, 200, seeds[k]);
		// Same agents for the third world: only the world seed (wander
		// draws) differs, because busy_world derives layout from the seed;
		// so compare the first two for equality only.
		for (int s = 0; s < 300; ++s) {
			throng_world_step(w);
		}
		h[k] = throng_world_hash(w);
		throng_world_destroy(w);
	}
	cr_assert_eq(h[0], h[1]);
	cr_assert_neq(h[0], h[2]);
}

Test(determinism, wander_seed_alone_changes_the_path)
{
	uint64_t h[2];
	for (int k = 0; k < 2; ++k) {
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 16, 100u + (uint64_t)k);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
		throng_world_add_archetype(w, &c, NULL);
		throng_agent_def a = throng_agent_default_def();
		a.velocity = (throng_vec2){1.0f, 0.0f};
		throng_world_spawn(w, &a, 1, NULL);
		for (int s = 0; s < 200; ++s) {
			throng_world_step(w);
		}
		h[k] = throng_world_hash(w);
		throng_world_destroy(w);
	}
	cr_assert_neq(h[0], h[1]);
}

/// The cache line of a 4 KiB page an address falls in (0 to 63).
static unsigned page_line(const void* p)
{
	return (unsigned)(((uintptr_t)p >> 6) & 63u);
}

static int by_address(const void* a, const void* b)
{
	uintptr_t x = (uintptr_t)*(void* const*)a, y = (uintptr_t)*(void* const*)b;
	return (x > y) - (x < y);
}

// Every array the SIMD engine's reorder touches (two states of 7 in a
// world with a path, the 12 singles with a target agent, the store's 2
// spares)
// starts in its own line of a page, 64-byte aligned, and no two overlap:
// arrays that all start at one page offset cost the reorder 7x
// (docs/PERFORMANCE.md).
Test(layout, per_agent_arrays_start_in_different_page_lines)
{
	const uint32_t capacities[] = {1, 1000, 1024, 100000};
	for (int c = 0; c < 4; ++c) {
		engine_under_test = THRONG_ENGINE_SIMD;
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, capacities[c], 3);
		throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK);
		const throng_vec2 points[2] = {{1.0f, 0.0f}, {2.0f, 0.0f}};
		cr_assert_eq(throng_world_add_path(w, points, 2, false, NULL), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
		a[1].target_agent = 0; // (the target_agent column)
		cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error()); // the spares
		void* p[40];
		int n = 0;
		for (int b = 0; b < 2; ++b) {
			thr_state* s = &w->store.buf[b];
			void* st[7] = {s->px, s->py, s->vx, s->vy, s->hx, s->hy, s->waypoint};
			memcpy(p + n, st, sizeof st);
			n += 7;
		}
		void* singles[12] = {w->id,    w->max_speed,    w->max_force, w->radius, w->archetype, w->group,
		                     w->target_agent, w->path,   w->tx,        w->ty,     w->wander,    w->noise};
		memcpy(p + n, singles, sizeof singles);
		n += 12;
		for (int k = 0; k < THR_SPARES; ++k) {
			p[n++] = w->store.spare[k];
		}
		uint64_t lines = 0;
		for (int k = 0; k < n; ++k) {
			cr_assert_eq((uintptr_t)p[k] % 64u, 0u, "capacity %u: array %d is not 64-byte aligned", capacities[c], k);
			cr_assert_eq(lines >> page_line(p[k]) & 1u, 0u, "capacity %u: array %d starts in a line taken",
			             capacities[c], k);
			lines |= (uint64_t)1 << page_line(p[k]);
		}
		qsort(p, (size_t)n, sizeof p[0], by_address);
		for (int k = 0; k + 1 < n; ++k) {
			size_t gap = (size_t)((uintptr_t)p[k + 1] - (uintptr_t)p[k]);
			cr_assert_geq(gap, ((size_t)w->capacity + THR_LANES) * 4u, "capacity %u: arrays overlap", capacities[c]);
		}
		throng_world_destroy(w);
	}
}

/// Whether [p, p + bytes) lies inside one of the store's blocks (each
/// block is at most `span` bytes long).
static bool in_store(const thr_store* s, const void* p, size_t bytes, size_t span)
{
	const char* q = p;
	const char* blocks[6] = {s->block,        s->spare_block, s->waypoint_block,
	                         s->target_block, s->force_block, s->group_block};
	for (int b = 0; b < 6; ++b) {
		if (blocks[b] != NULL && q >= blocks[b] && q + bytes <= blocks[b] + span) {
			return true;
		}
	}
	return false;
}

// The agent store owns every per-agent array: after each of six steps of
// the sorting engine (each reorder passes the singles on along the spare
// chains, so they visit every array of the main and spare blocks), every
// single array the world reads lies in the store's blocks, no two of them
// or the spares are one, and the state of each buffer lies there too.
// Changing order never changes the hash of the same steps.
Test(layout, per_agent_arrays_stay_in_the_store)
{
	enum { STEPS = 7 };
	uint64_t hashes[2][STEPS];
	for (int e = 0; e < 2; ++e) {
		engine_under_test = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 300, 5);
		uint64_t rng = 11;
		throng_controller ctl = busy_controller(&rng, THRONG_BLEND_WEIGHTED);
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a[300];
		for (int k = 0; k < 300; ++k) {
			a[k] = throng_agent_default_def();
			a[k].position = (throng_vec2){thr_test_uniform(&rng, -19.0f, 19.0f), thr_test_uniform(&rng, -19.0f, 19.0f)};
			a[k].target_agent = (uint32_t)(k + 1) % 300u; // (the target_agent column)
		}
		const throng_vec2 points[2] = {{1.0f, 0.0f}, {2.0f, 0.0f}};
		cr_assert_eq(throng_world_add_path(w, points, 2, false, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_spawn(w, a, 300, NULL), THRONG_OK, "%s", throng_last_error());
		// The longest block: THR_STORE_ARRAYS + 2 arrays a stride apart, and 4 KiB (store.c).
		size_t stride = (((size_t)w->capacity + THR_LANES) * 4u + 63u) & ~(size_t)63u;
		stride += (stride / 64u) % 2u == 0 ? 64u : 0u;
		const size_t span = stride * (THR_STORE_ARRAYS + 2u) + 4096u;
		for (int step = 0; step < STEPS; ++step) {
			hashes[e][step] = throng_world_hash(w);
			// slot_of, by id, is an array of the store's own (it grows with the ids).
			cr_assert_eq(w->slot_of, w->store.slot_of);
			const void* singles[14] = {w->id,    w->max_speed, w->max_force,    w->radius,
			                           w->archetype, w->group, w->path, w->target_agent, w->tx,
			                           w->ty,    w->wander,    w->noise,        w->store.spare[0], w->store.spare[1]};
			const int n = step > 0 && e == 1 ? 14 : 12; // the spares: made by the first reorder
			for (int k = 0; k < n; ++k) {
				cr_assert(in_store(&w->store, singles[k], (size_t)w->capacity * 4u, span),
				          "engine %d, after %d steps: single array %d lies outside the store", e, step, k);
				for (int j = 0; j < k; ++j) {
					cr_assert_neq(singles[j], singles[k], "engine %d, after %d steps: arrays %d and %d are one", e,
					              step, j, k);
				}
			}
			for (int b = 0; b < 2; ++b) {
				cr_assert(in_store(&w->store, w->store.buf[b].px, (size_t)w->capacity * 4u, span));
				cr_assert(in_store(&w->store, w->store.buf[b].waypoint, (size_t)w->capacity * 4u, span));
			}
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		throng_world_destroy(w);
	}
	for (int step = 0; step < STEPS; ++step) {
		cr_assert_eq(hashes[0][step], hashes[1][step], "the engines differ after %d steps", step);
	}
}

// The waypoint arrays wait for the world's first path: before it every
// agent reads waypoint 0 (and hashes as 0), and a path given afterwards
// starts at the waypoint set.
Test(layout, waypoint_arrays_wait_for_the_first_path)
{
	for (int e = 0; e < 2; ++e) {
		engine_under_test = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 8, 3);
		throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&ctl, throng_slot_default_def(THRONG_PATH_FOLLOW));
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK);
		const throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
		cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_set_path(w, 1, THRONG_NO_PATH, 0), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_null(w->store.buf[0].waypoint);
		cr_assert_null(w->store.buf[1].waypoint);
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_eq(st.waypoint, 0u);
		const throng_vec2 points[3] = {{5.0f, 0.0f}, {5.0f, 5.0f}, {0.0f, 5.0f}};
		uint32_t path = 0;
		cr_assert_eq(throng_world_add_path(w, points, 3, false, &path), THRONG_OK, "%s", throng_last_error());
		cr_assert_not_null(w->store.buf[0].waypoint);
		cr_assert_not_null(w->store.buf[1].waypoint);
		cr_assert_eq(throng_world_get_agent(w, 1, &st), THRONG_OK);
		cr_assert_eq(st.waypoint, 0u);
		cr_assert_eq(throng_world_set_path(w, 1, path, 2), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_get_agent(w, 1, &st), THRONG_OK);
		cr_assert_eq(st.path, path);
		cr_assert_eq(st.waypoint, 2u, "engine %d", e);
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_eq(st.waypoint, 0u);
		throng_world_destroy(w);
	}
}

// The target_agent column waits for the world's first target agent:
// before it every agent reads THRONG_NO_AGENT (and hashes so), a target
// given makes it, and so does the first step with a target rule due.
Test(layout, target_agent_column_waits_for_the_first_target)
{
	for (int e = 0; e < 2; ++e) {
		engine_under_test = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 8, 3);
		throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
		pursue.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&ctl, pursue);
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
		a[1].position = (throng_vec2){5.0f, 0.0f};
		a[1].group = 1;
		cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_set_target_agent(w, 1, THRONG_NO_AGENT), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_null(w->target_agent);
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_eq(st.target_agent, THRONG_NO_AGENT);
		cr_assert_eq(throng_world_set_target_agent(w, 0, 1), THRONG_OK, "%s", throng_last_error());
		cr_assert_not_null(w->target_agent);
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_eq(st.target_agent, 1u);
		cr_assert_eq(throng_world_get_agent(w, 1, &st), THRONG_OK);
		cr_assert_eq(st.target_agent, THRONG_NO_AGENT);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_gt(st.velocity.x, 0.0f, "engine %d: agent 0 pursues agent 1, to its right", e);
		throng_world_destroy(w);
		// A target rule: the column is made by the first step it is due.
		w = make_world(THRONG_BOUNDS_CONTAIN, 8, 3);
		ctl.target_rule.enabled = true;
		ctl.target_rule.group = 1;
		ctl.target_rule.sight_radius = 10.0f;
		ctl.target_rule.every = 1;
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_null(w->target_agent);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_not_null(w->target_agent);
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_eq(st.target_agent, 1u, "engine %d: agent 0 picks agent 1, of group 1", e);
		throng_world_destroy(w);
	}
}

// The group column stays pages the world never wrote while every group is
// 0 (store.h): the store neither moves nor copies it, and every agent
// reads group 0; the first group other than 0 makes it live, and from then
// on it travels with the agents through the reorders and a growth.
Test(layout, group_column_untouched_until_a_group_is_set)
{
	for (int e = 0; e < 2; ++e) {
		engine_under_test = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, 64, 3);
		throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&ctl, throng_slot_default_def(THRONG_WANDER));
		cr_assert_eq(throng_world_add_archetype(w, &ctl, NULL), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a[64];
		uint64_t rng = 5;
		for (int k = 0; k < 64; ++k) {
			a[k] = throng_agent_default_def();
			a[k].position = (throng_vec2){thr_test_uniform(&rng, -19.0f, 19.0f), thr_test_uniform(&rng, -19.0f, 19.0f)};
		}
		cr_assert_eq(throng_world_spawn(w, a, 64, NULL), THRONG_OK, "%s", throng_last_error());
		for (int s = 0; s < 2; ++s) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		cr_assert(!w->store.group_live, "engine %d: groups all 0, yet the column is live", e);
		cr_assert_eq(throng_world_set_group(w, 9, 0), THRONG_OK, "%s", throng_last_error());
		cr_assert(!w->store.group_live, "engine %d: a group of 0 made the column live", e);
		cr_assert_eq(throng_world_set_group(w, 9, 3), THRONG_OK, "%s", throng_last_error());
		cr_assert(w->store.group_live);
		a[0].group = 4;
		uint32_t first = 0;
		cr_assert_eq(throng_world_spawn(w, a, 64, &first), THRONG_OK, "%s", throng_last_error()); // grows
		for (int s = 0; s < 3; ++s) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		const throng_view v = throng_world_view(w);
		for (uint32_t i = 0; i < v.count; ++i) {
			const uint32_t want = v.id[i] == 9u ? 3u : v.id[i] == first ? 4u : 0u;
			cr_assert_eq(v.group[i], want, "engine %d: agent %u in group %u", e, v.id[i], v.group[i]);
		}
		throng_world_destroy(w);
	}
}
