// SPDX-License-Identifier: MIT
// Wrap worlds (a torus): neighbours, contacts and target selection see
// across the seam (core/grid.h, thr_grid_walk; docs/BEHAVIORS.md,
// "Bounds"). Separation and a contact pair across the seam by hand-worked
// amounts, a periodic corridor without a gap at the seam, and the SIMD
// engine against the scalar reference on random wrap worlds at 1, 2 and 3
// threads.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/throng.h"

#define DT 0.1f

/// A wrap world [0, w] x [0, h], `threads` threads.
static throng_world* wrap_world(throng_engine engine, float w, float h, uint32_t capacity, uint32_t threads)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){0.0f, 0.0f};
	def.bounds_max = (throng_vec2){w, h};
	def.bounds_mode = THRONG_BOUNDS_WRAP;
	def.dt = DT;
	def.capacity = capacity;
	def.engine = engine;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED;
	def.record_forces = true;
	throng_world* world = NULL;
	cr_assert_eq(throng_world_create(&def, &world), THRONG_OK, "%s", throng_last_error());
	return world;
}

static uint32_t add_archetype(throng_world* w, const throng_controller* c)
{
	uint32_t a = 0;
	cr_assert_eq(throng_world_add_archetype(w, c, &a), THRONG_OK, "%s", throng_last_error());
	return a;
}

static void spawn(throng_world* w, uint32_t arch, float x, float y, float r, float max_speed, throng_vec2 v,
                  throng_vec2 target)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = (throng_vec2){x, y};
	a.velocity = v;
	a.radius = r;
	a.max_speed = max_speed;
	a.max_force = 100.0f;
	a.archetype = arch;
	a.target = target;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
}

static throng_agent_state agent(const throng_world* w, uint32_t id)
{
	throng_agent_state s;
	cr_assert_eq(throng_world_get_agent(w, id, &s), THRONG_OK);
	return s;
}

static bool same_bits(const void* a, const void* b, size_t n) { return memcmp(a, b, n) == 0; }

Test(wrap, separation_pushes_apart_across_the_seam)
{
	throng_agent_state st[2][2];
	throng_vec2 f[2][2];
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		// A at x = 9.9, B at x = 0.1 in a 10 m torus: 0.2 m apart across
		// the seam (9.8 m the long way). Separation, radius 1, max speed 1:
		// each is pushed away from the other's nearest image by
		// 1 x (1 - 0.2 / 1) = 0.8, A towards -x, B towards +x; before, the
		// walk stopped at the grid's edge and neither felt anything.
		throng_world* w = wrap_world(engine, 10.0f, 10.0f, 8, 1);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.contact.enabled = false;
		throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
		s.params.neighbor_radius = 1.0f;
		throng_controller_add(&c, s);
		const uint32_t arch = add_archetype(w, &c);
		spawn(w, arch, 9.9f, 5.0f, 0.05f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		spawn(w, arch, 0.1f, 5.0f, 0.05f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		for (uint32_t id = 0; id < 2; ++id) {
			cr_assert_eq(throng_world_slot_force(w, id, 0, &f[e][id]), THRONG_OK);
			st[e][id] = agent(w, id);
		}
		cr_expect_float_eq(f[e][0].x, -0.8f, 1e-5f, "A's push %g", (double)f[e][0].x);
		cr_expect_float_eq(f[e][1].x, 0.8f, 1e-5f, "B's push %g", (double)f[e][1].x);
		cr_expect_eq(f[e][0].y, 0.0f);
		cr_expect_eq(f[e][1].y, 0.0f);
		// They move apart: A to -x (below 9.9), B to +x (above 0.1), neither
		// across the seam.
		cr_expect(st[e][0].position.x < 9.9f && st[e][0].position.x > 9.0f, "A at %g", (double)st[e][0].position.x);
		cr_expect(st[e][1].position.x > 0.1f && st[e][1].position.x < 1.0f, "B at %g", (double)st[e][1].position.x);
		throng_world_destroy(w);
	}
	cr_expect(same_bits(f[0], f[1], sizeof f[0]), "the engines' pushes differ");
	cr_expect(same_bits(st[0], st[1], sizeof st[0]), "the engines' states differ");
}

Test(wrap, a_contact_pair_across_the_seam_is_resolved)
{
	throng_agent_state st[2][4];
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		// Radii 0.5 at x = 9.8 and x = 0.2 (y = 5): 0.4 apart across the
		// seam, overlap 1.0 - 0.4 = 0.6. Stiffness 1, one iteration: each
		// moves 0.3 away, A to 9.5, B to 0.5, exactly touching across the
		// seam; velocity 0.3 m / 0.1 s = 3 m/s (max speed 5). A second pair
		// across the corner: C at (9.9, 9.9), D at (0.1, 0.1), 0.2 sqrt(2)
		// apart, overlap 1 - 0.2828 = 0.7172: each moves 0.3586 along the
		// diagonal, 0.2536 along x and along y.
		throng_world* w = wrap_world(engine, 10.0f, 10.0f, 8, 1);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.contact = (throng_contact){.enabled = true, .stiffness = 1.0f, .iterations = 1, .inelastic = false};
		const uint32_t arch = add_archetype(w, &c);
		spawn(w, arch, 9.8f, 5.0f, 0.5f, 5.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		spawn(w, arch, 0.2f, 5.0f, 0.5f, 5.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		spawn(w, arch, 9.9f, 9.9f, 0.5f, 5.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		spawn(w, arch, 0.1f, 0.1f, 0.5f, 5.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		for (uint32_t id = 0; id < 4; ++id) {
			st[e][id] = agent(w, id);
		}
		cr_expect_float_eq(st[e][0].position.x, 9.5f, 1e-5f, "A at %g", (double)st[e][0].position.x);
		cr_expect_float_eq(st[e][1].position.x, 0.5f, 1e-5f, "B at %g", (double)st[e][1].position.x);
		cr_expect_float_eq(st[e][0].velocity.x, -3.0f, 1e-4f, "A's velocity %g", (double)st[e][0].velocity.x);
		cr_expect_float_eq(st[e][1].velocity.x, 3.0f, 1e-4f, "B's velocity %g", (double)st[e][1].velocity.x);
		const float m = 0.5f * (1.0f - 0.2f * sqrtf(2.0f)) / sqrtf(2.0f); // 0.2536 along each axis
		cr_expect_float_eq(st[e][2].position.x, 9.9f - m, 1e-5f, "C at %g", (double)st[e][2].position.x);
		cr_expect_float_eq(st[e][2].position.y, 9.9f - m, 1e-5f, "C at %g", (double)st[e][2].position.y);
		cr_expect_float_eq(st[e][3].position.x, 0.1f + m, 1e-5f, "D at %g", (double)st[e][3].position.x);
		cr_expect_float_eq(st[e][3].position.y, 0.1f + m, 1e-5f, "D at %g", (double)st[e][3].position.y);
		throng_world_stats s = throng_world_get_stats(w);
		cr_expect_eq(s.contacts, 2u, "two overlapping pairs, both across a seam: %u", (unsigned)s.contacts);
		throng_world_destroy(w);
	}
	cr_expect(same_bits(st[0], st[1], sizeof st[0]), "the engines' states differ");
}

/// The smallest and largest gap between neighbouring walkers of one file
/// (ids first, first + 2, ...; n of them) along x, round the torus of
/// width `width` (m).
static void file_gaps(const throng_world* w, uint32_t first, uint32_t n, float width, float* least, float* most)
{
	float x[64];
	cr_assert(n <= 64);
	for (uint32_t k = 0; k < n; ++k) {
		x[k] = agent(w, first + 2u * k).position.x;
	}
	for (uint32_t i = 1; i < n; ++i) { // insertion sort: a few dozen walkers
		const float v = x[i];
		uint32_t j = i;
		for (; j > 0 && x[j - 1] > v; --j) {
			x[j] = x[j - 1];
		}
		x[j] = v;
	}
	*least = *most = x[0] + width - x[n - 1]; // across the seam
	for (uint32_t i = 1; i < n; ++i) {
		const float g = x[i] - x[i - 1];
		*least = g < *least ? g : *least;
		*most = g > *most ? g : *most;
	}
}

Test(wrap, a_periodic_corridor_keeps_its_density_at_the_seam)
{
	// A 20 m x 2 m torus, 40 walkers (1 /m^2) of radius 0.25 in two files
	// (y = 0.5 and 1.5), 1 m apart along each file, all heading +x (seek a
	// point far ahead) at 1.3 m/s, with separation (radius 1.5 m: each
	// walker feels the one ahead and the one behind, 1.3 x (1 - 1/1.5) =
	// 0.43 m/s^2 each way, which cancel) and contacts. Uniform, the queue
	// stays uniform: every gap 1 m. Where the walk stopped at the grid's
	// edge, the walker just before the seam felt only the one behind it
	// (pushed on, towards the seam) and the one just after only the one
	// ahead (pushed back, towards the seam): they closed up at the seam and
	// the gaps elsewhere opened.
	const uint32_t n = 40;
	const float width = 20.0f;
	float least[2][2], most[2][2];
	uint64_t hash[2];
	for (int e = 0; e < 2; ++e) {
		throng_world* w = wrap_world(e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, width, 2.0f, n, 1);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
		throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
		sep.params.neighbor_radius = 1.5f;
		throng_controller_add(&c, sep);
		const uint32_t arch = add_archetype(w, &c);
		for (uint32_t k = 0; k < n; ++k) {
			const float x = (float)(k / 2u) + 0.5f, y = k % 2u ? 1.5f : 0.5f;
			spawn(w, arch, x, y, 0.25f, 1.3f, (throng_vec2){1.3f, 0}, (throng_vec2){1.0e5f, y});
		}
		for (int step = 0; step < 200; ++step) { // 20 s: 26 m, more than once round
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		for (uint32_t f = 0; f < 2; ++f) {
			file_gaps(w, f, n / 2u, width, &least[e][f], &most[e][f]);
		}
		hash[e] = throng_world_hash(w);
		throng_world_destroy(w);
	}
	for (uint32_t f = 0; f < 2; ++f) {
		fprintf(stderr, "periodic corridor, file %u after 20 s: gaps along x from %.3f to %.3f m (uniform: 1)\n", f,
		        (double)least[0][f], (double)most[0][f]);
		cr_expect(least[0][f] > 0.95f && most[0][f] < 1.05f, "file %u: gaps from %g to %g m", f,
		          (double)least[0][f], (double)most[0][f]);
	}
	cr_expect_eq(hash[0], hash[1], "the engines differ: 0x%016llx, 0x%016llx", (unsigned long long)hash[0],
	             (unsigned long long)hash[1]);
}

/// A random wrap world of n agents crowded near the seams and corners,
/// with every neighbour behaviour, contacts and a target rule, on
/// `engine` with `threads` threads; its hash after `steps` steps.
static uint64_t random_wrap_run(throng_engine engine, uint32_t threads, uint32_t n, uint32_t seed, int steps)
{
	const float W = 40.0f, H = 30.0f;
	throng_world* w = wrap_world(engine, W, H, n, threads);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	const throng_behavior_kind kinds[] = {THRONG_SEPARATION, THRONG_ALIGNMENT, THRONG_COHESION,
	                                      THRONG_UNALIGNED_AVOID, THRONG_PURSUIT, THRONG_WANDER};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
		throng_slot s = throng_slot_default_def(kinds[k]);
		s.params.neighbor_radius = 1.5f + 0.5f * (float)k;
		s.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&c, s);
	}
	c.target_rule.enabled = true;
	c.target_rule.group = 1;
	c.target_rule.sight_radius = 6.0f;
	c.target_rule.every = 5;
	const uint32_t arch = add_archetype(w, &c);
	uint32_t r = seed * 2654435761u + 1u;
	for (uint32_t k = 0; k < n; ++k) {
		float v[6];
		for (int q = 0; q < 6; ++q) {
			r = r * 1664525u + 1013904223u;
			v[q] = (float)(r >> 8) / 16777216.0f;
		}
		// Most agents within 3 m of a seam (either side), some anywhere.
		float x = v[0] < 0.7f ? (v[1] < 0.5f ? 3.0f * v[2] : W - 3.0f * v[2]) : W * v[2];
		float y = v[3] < 0.7f ? (v[4] < 0.5f ? 3.0f * v[5] : H - 3.0f * v[5]) : H * v[5];
		x = x >= W ? 0.0f : x;
		y = y >= H ? 0.0f : y;
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){x, y};
		a.velocity = (throng_vec2){2.0f * v[1] - 1.0f, 2.0f * v[4] - 1.0f};
		a.radius = 0.2f + 0.1f * v[0];
		a.max_speed = 2.0f;
		a.max_force = 4.0f;
		a.archetype = arch;
		a.group = k % 3u == 0 ? 1u : 0u;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	for (int step = 0; step < steps; ++step) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	const uint64_t h = throng_world_hash(w);
	throng_world_destroy(w);
	return h;
}

Test(wrap, simd_equals_scalar_on_random_wrap_worlds_at_1_2_and_3_threads)
{
	// 4,500 agents (above the engines' parallel threshold of 4,096) for
	// the threads; 300 for more seeds.
	for (uint32_t seed = 1; seed <= 4; ++seed) {
		const uint64_t ref = random_wrap_run(THRONG_ENGINE_SCALAR, 1, 300, seed, 40);
		const uint64_t simd = random_wrap_run(THRONG_ENGINE_SIMD, 1, 300, seed, 40);
		cr_expect_eq(ref, simd, "seed %u, 300 agents: scalar 0x%016llx, simd 0x%016llx", seed,
		             (unsigned long long)ref, (unsigned long long)simd);
	}
	const uint64_t ref = random_wrap_run(THRONG_ENGINE_SCALAR, 1, 4500, 9, 12);
	for (uint32_t threads = 1; threads <= 3; ++threads) {
		const uint64_t scalar = threads > 1 ? random_wrap_run(THRONG_ENGINE_SCALAR, threads, 4500, 9, 12) : ref;
		const uint64_t simd = random_wrap_run(THRONG_ENGINE_SIMD, threads, 4500, 9, 12);
		cr_expect_eq(scalar, ref, "%u threads: scalar 0x%016llx, on one 0x%016llx", threads,
		             (unsigned long long)scalar, (unsigned long long)ref);
		cr_expect_eq(simd, ref, "%u threads: simd 0x%016llx, scalar 0x%016llx", threads, (unsigned long long)simd,
		             (unsigned long long)ref);
	}
}

Test(wrap, overlaps_across_the_seam_count_once_in_the_metrics)
{
	// Radii 0.5, contacts off, no slots: A (9.8, 5) and B (0.2, 5) overlap
	// across the x seam, 0.4 apart: depth 1 - 0.4 / 1 = 0.6. C (5, 9.9) and
	// D (5, 0.3) across the y seam, 0.4 apart: depth 0.6. E (9.9, 0.05) and
	// F (0.05, 9.9): across the corner, 0.15 sqrt(2) = 0.2121 apart, depth
	// 0.7879. G (3, 3) and H (3.5, 3) in the plane, depth 0.5. Four pairs.
	throng_world* w = wrap_world(THRONG_ENGINE_SCALAR, 10.0f, 10.0f, 8, 1);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	const uint32_t arch = add_archetype(w, &c);
	const float at[8][2] = {{9.8f, 5.0f}, {0.2f, 5.0f},  {5.0f, 9.9f}, {5.0f, 0.3f},
	                        {9.9f, 0.05f}, {0.05f, 9.9f}, {3.0f, 3.0f}, {3.5f, 3.0f}};
	for (int k = 0; k < 8; ++k) {
		spawn(w, arch, at[k][0], at[k][1], 0.5f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
	}
	uint64_t pairs = 0;
	float deepest = 0.0f;
	cr_assert_eq(throng_world_overlap_stats(w, &pairs, &deepest), THRONG_OK, "%s", throng_last_error());
	cr_expect_eq(pairs, 4u, "%llu pairs", (unsigned long long)pairs);
	cr_expect_float_eq(deepest, 1.0f - 0.15f * sqrtf(2.0f), 1e-4f, "deepest %g", (double)deepest);
	throng_world_destroy(w);
}

Test(wrap, a_target_across_the_seam_is_chosen_and_pursued_the_short_way)
{
	for (int e = 0; e < 2; ++e) {
		// A hunter at (9.5, 5), sight 3: prey P at (0.5, 5) is 1 m away
		// across the seam (9 m the long way), prey Q at (7.5, 5) 2 m away in
		// the plane. It takes P, the nearest, and seeks it (target agent):
		// desired velocity +x at max speed 1, force limit(+1 - 0, 100) =
		// (1, 0); the old walk saw only Q and steered to -x.
		throng_world* w = wrap_world(e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, 10.0f, 10.0f, 8, 1);
		throng_controller hunter = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		hunter.contact.enabled = false;
		throng_slot seek = throng_slot_default_def(THRONG_SEEK);
		seek.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&hunter, seek);
		hunter.target_rule = (throng_target_rule){true, 1, 3.0f, 1, 0};
		throng_controller prey = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		prey.contact.enabled = false;
		const uint32_t ha = add_archetype(w, &hunter), pa = add_archetype(w, &prey);
		spawn(w, ha, 9.5f, 5.0f, 0.1f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		throng_agent_def p = throng_agent_default_def();
		p.archetype = pa;
		p.group = 1;
		p.radius = 0.1f;
		p.position = (throng_vec2){0.5f, 5.0f};
		cr_assert_eq(throng_world_spawn(w, &p, 1, NULL), THRONG_OK, "%s", throng_last_error());
		p.position = (throng_vec2){7.5f, 5.0f};
		cr_assert_eq(throng_world_spawn(w, &p, 1, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		throng_vec2 f;
		cr_assert_eq(throng_world_slot_force(w, 0, 0, &f), THRONG_OK);
		cr_expect_eq(agent(w, 0).target_agent, 1u, "engine %d: target %u", e, agent(w, 0).target_agent);
		cr_expect_float_eq(f.x, 1.0f, 1e-6f, "engine %d: seek force (%g, %g)", e, (double)f.x, (double)f.y);
		cr_expect_float_eq(f.y, 0.0f, 1e-6f);
		throng_world_destroy(w);
	}
}

Test(wrap, a_radius_beyond_half_the_world_counts_each_neighbour_once)
{
	for (int e = 0; e < 2; ++e) {
		// A 4 m torus, separation radius 3 (beyond half the world): A at
		// x = 1, B at x = 2.5, 1.5 m apart one way and 2.5 m the other. The
		// walk visits every cell once and takes B at its nearest image, once:
		// A's push is 1 x (1 - 1.5 / 3) = 0.5 towards -x (two images would
		// add 1 x (1 - 2.5 / 3) = 0.167 back towards +x).
		throng_world* w = wrap_world(e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, 4.0f, 4.0f, 8, 1);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.contact.enabled = false;
		throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
		s.params.neighbor_radius = 3.0f;
		throng_controller_add(&c, s);
		const uint32_t arch = add_archetype(w, &c);
		spawn(w, arch, 1.0f, 2.0f, 0.1f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		spawn(w, arch, 2.5f, 2.0f, 0.1f, 1.0f, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		throng_vec2 f;
		cr_assert_eq(throng_world_slot_force(w, 0, 0, &f), THRONG_OK);
		cr_expect_float_eq(f.x, -0.5f, 1e-6f, "engine %d: A's push %g", e, (double)f.x);
		cr_assert_eq(throng_world_slot_force(w, 1, 0, &f), THRONG_OK);
		cr_expect_float_eq(f.x, 0.5f, 1e-6f, "engine %d: B's push %g", e, (double)f.x);
		throng_world_destroy(w);
	}
}
