// SPDX-License-Identifier: MIT
// The contact pass (core/contact.c, docs/BEHAVIORS.md "Contacts"): pairs
// parted by hand-worked amounts, walls and obstacles that nothing crosses,
// the invariants under crowd pressure, bad settings, and the SIMD block
// against the scalar reference on random states.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"
#include "world_internal.h"

int thr_simd_contact_block(const thr_contact_iter* it, uint32_t first);

#define DT 0.1f

/// A contained square world of half-side `half`, one thread.
static throng_world_def world_def(throng_engine engine, float half, uint32_t capacity)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-half, -half};
	def.bounds_max = (throng_vec2){half, half};
	def.bounds_mode = THRONG_BOUNDS_CONTAIN;
	def.dt = DT;
	def.capacity = capacity;
	def.engine = engine;
	def.threads = 1;
	return def;
}

static throng_world* make_world(throng_engine engine, float half, uint32_t capacity)
{
	const throng_world_def def = world_def(engine, half, capacity);
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// An archetype with contacts as given and no slots (agents at rest stay at rest).
static uint32_t still_archetype(throng_world* w, bool on, float stiffness, uint32_t iterations)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact = (throng_contact){on, stiffness, iterations, false, 0.0f, 0.0f};
	uint32_t a = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &a), THRONG_OK, "%s", throng_last_error());
	return a;
}

/// An archetype that seeks its target point at full speed.
static uint32_t seeker_archetype(throng_world* w)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
	uint32_t a = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &a), THRONG_OK, "%s", throng_last_error());
	return a;
}

static void spawn(throng_world* w, uint32_t arch, float x, float y, float r, float max_speed, throng_vec2 target)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = (throng_vec2){x, y};
	a.radius = r;
	a.max_speed = max_speed;
	a.max_force = 20.0f;
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

/// Two agents of radius 0.5 at rest, 0.6 apart on the x axis.
static throng_world* resting_pair(throng_engine engine, float stiffness, uint32_t iterations)
{
	throng_world* w = make_world(engine, 10.0f, 8);
	uint32_t a = still_archetype(w, true, stiffness, iterations);
	spawn(w, a, 0.0f, 0.0f, 0.5f, 5.0f, (throng_vec2){0, 0});
	spawn(w, a, 0.6f, 0.0f, 0.5f, 5.0f, (throng_vec2){0, 0});
	return w;
}

Test(contacts, a_pair_parts_by_half_the_overlap_each)
{
	for (int e = 0; e < 2; ++e) {
		throng_engine engine = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		// Overlap 1.0 - 0.6 = 0.4; stiffness 1, one iteration: each moves
		// 0.2 away, so they end 1.0 apart, exactly touching. The velocity
		// follows the move: 0.2 m in 0.1 s is 2 m/s (max speed 5).
		throng_world* w = resting_pair(engine, 1.0f, 1);
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		throng_agent_state s0 = agent(w, 0), s1 = agent(w, 1);
		cr_expect_float_eq(s0.position.x, -0.2f, 1e-6f, "%g", (double)s0.position.x);
		cr_expect_float_eq(s1.position.x, 0.8f, 1e-6f, "%g", (double)s1.position.x);
		cr_expect_float_eq(s0.position.y, 0.0f, 0.0f);
		cr_expect_float_eq(s0.velocity.x, -2.0f, 1e-5f, "%g", (double)s0.velocity.x);
		cr_expect_float_eq(s1.velocity.x, 2.0f, 1e-5f, "%g", (double)s1.velocity.x);
		throng_world_stats st = throng_world_get_stats(w);
		cr_expect_eq(st.contacts, 1u, "one overlapping pair");
		throng_world_destroy(w);

		// Stiffness 0.5: each moves 0.1 (0.8 apart); a second iteration
		// takes a quarter of the 0.2 left from each side: 0.05 more each,
		// 0.9 apart.
		w = resting_pair(engine, 0.5f, 1);
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		cr_expect_float_eq(agent(w, 1).position.x - agent(w, 0).position.x, 0.8f, 1e-6f);
		throng_world_destroy(w);
		w = resting_pair(engine, 0.5f, 2);
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		cr_expect_float_eq(agent(w, 0).position.x, -0.15f, 1e-6f);
		cr_expect_float_eq(agent(w, 1).position.x, 0.75f, 1e-6f);
		throng_world_destroy(w);
	}
}

/// Agents A (radius 0.5, at the origin, velocity va) and B (radius 0.5, at
/// (bx, 0), at rest), max speed 5, no slots, contacts with the given
/// stiffness, one iteration, inelastic or not, after one step of 0.1 s.
static void pressed_pair(throng_engine engine, float stiffness, bool inelastic, throng_vec2 va, float bx,
                         throng_agent_state* a, throng_agent_state* b)
{
	throng_world* w = make_world(engine, 10.0f, 8);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact = (throng_contact){true, stiffness, 1, inelastic, 0.0f, 0.0f};
	uint32_t arch = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < 2; ++k) {
		throng_agent_def d = throng_agent_default_def();
		d.position = (throng_vec2){k ? bx : 0.0f, 0.0f};
		d.velocity = k ? (throng_vec2){0.0f, 0.0f} : va;
		d.radius = 0.5f;
		d.max_speed = 5.0f;
		d.archetype = arch;
		cr_assert_eq(throng_world_spawn(w, &d, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	*a = agent(w, 0);
	*b = agent(w, 1);
	throng_world_destroy(w);
}

Test(contacts, inelastic_pairs_stop_pushing_into_each_other)
{
	for (int e = 0; e < 2; ++e) {
		throng_engine engine = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_agent_state a, b;
		// A at 4 m/s reaches x = 0.4, 0.55 from B: overlap 0.45.
		// Stiffness 0.5 parts them by half (0.1125 each), 0.225 is left.
		// Not inelastic: A's velocity is 4 - 0.1125/0.1 = 2.875 m/s, into B.
		pressed_pair(engine, 0.5f, false, (throng_vec2){4.0f, 0.0f}, 0.95f, &a, &b);
		cr_expect_float_eq(a.velocity.x, 2.875f, 1e-4f, "%g", (double)a.velocity.x);
		// Inelastic: it loses its part towards B, all of it. B moves away
		// from A at 1.125 m/s and keeps it.
		pressed_pair(engine, 0.5f, true, (throng_vec2){4.0f, 0.0f}, 0.95f, &a, &b);
		cr_expect_float_eq(a.velocity.x, 0.0f, 1e-5f, "%g", (double)a.velocity.x);
		cr_expect_float_eq(a.velocity.y, 0.0f, 1e-5f, "%g", (double)a.velocity.y);
		cr_expect_float_eq(b.velocity.x, 1.125f, 1e-4f, "%g", (double)b.velocity.x);
		cr_expect_float_eq(a.position.x, 0.4f - 0.1125f, 1e-5f, "%g", (double)a.position.x);
		// Stiffness 1 parts them fully: nothing is pressed, A keeps
		// 4 - 0.225/0.1 = 1.75 m/s towards B, inelastic or not.
		pressed_pair(engine, 1.0f, true, (throng_vec2){4.0f, 0.0f}, 0.95f, &a, &b);
		cr_expect_float_eq(a.velocity.x, 1.75f, 1e-4f, "%g", (double)a.velocity.x);
		// Obliquely: A at (1, 1) m/s reaches (0.1, 0.1), B stays at (0.6,
		// 0); stiffness 0.1 moves each along d = (0.5, -0.1) and leaves
		// most of the overlap. A keeps only its part across d: (1, 1) .
		// (0.1, 0.5) / |(0.1, 0.5)|^2 (0.1, 0.5) = (3/13, 15/13).
		pressed_pair(engine, 0.1f, true, (throng_vec2){1.0f, 1.0f}, 0.6f, &a, &b);
		cr_expect_float_eq(a.velocity.x, 3.0f / 13.0f, 1e-5f, "%g", (double)a.velocity.x);
		cr_expect_float_eq(a.velocity.y, 15.0f / 13.0f, 1e-5f, "%g", (double)a.velocity.y);
		const float dx = b.position.x - a.position.x, dy = b.position.y - a.position.y;
		cr_expect_float_eq(a.velocity.x * dx + a.velocity.y * dy, 0.0f, 1e-5f, "nothing left towards B");
		cr_expect_lt(b.velocity.x * -dx + b.velocity.y * -dy, 0.0f, "B moves away from A: kept");
	}
}

Test(contacts, the_velocity_never_exceeds_max_speed)
{
	// The same pair with max speed 1: the 2 m/s of the push is limited to
	// 1 m/s, while the position still parts the pair.
	throng_world* w = make_world(THRONG_ENGINE_SCALAR, 10.0f, 8);
	uint32_t a = still_archetype(w, true, 1.0f, 1);
	spawn(w, a, 0.0f, 0.0f, 0.5f, 1.0f, (throng_vec2){0, 0});
	spawn(w, a, 0.6f, 0.0f, 0.5f, 1.0f, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_expect_float_eq(agent(w, 0).velocity.x, -1.0f, 1e-6f);
	cr_expect_float_eq(agent(w, 1).position.x - agent(w, 0).position.x, 1.0f, 1e-6f);
	throng_world_destroy(w);
}

Test(contacts, two_agents_on_one_point_part_along_x)
{
	// Radii 0.5 + 0.5 on one point: stiffness 1 moves each by half the
	// radii sum, the lower id to -x.
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 10.0f, 8);
	uint32_t a = still_archetype(w, true, 1.0f, 1);
	spawn(w, a, 1.0f, 2.0f, 0.5f, 10.0f, (throng_vec2){0, 0});
	spawn(w, a, 1.0f, 2.0f, 0.5f, 10.0f, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_expect_float_eq(agent(w, 0).position.x, 0.5f, 1e-6f);
	cr_expect_float_eq(agent(w, 1).position.x, 1.5f, 1e-6f);
	cr_expect_float_eq(agent(w, 0).position.y, 2.0f, 0.0f);
	throng_world_destroy(w);
}

Test(contacts, a_pair_is_solid_only_when_both_are)
{
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 10.0f, 8);
	uint32_t on = still_archetype(w, true, 1.0f, 4);
	uint32_t off = still_archetype(w, false, 1.0f, 4);
	spawn(w, on, 0.0f, 0.0f, 0.5f, 5.0f, (throng_vec2){0, 0});
	spawn(w, off, 0.6f, 0.0f, 0.5f, 5.0f, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_expect_float_eq(agent(w, 0).position.x, 0.0f, 0.0f);
	cr_expect_float_eq(agent(w, 1).position.x, 0.6f, 0.0f);
	cr_expect_eq(throng_world_get_stats(w).contacts, 0u);
	throng_world_destroy(w);
}

Test(contacts, bad_settings_are_refused)
{
	throng_world* w = make_world(THRONG_ENGINE_SCALAR, 10.0f, 8);
	const struct {
		throng_contact c;
		const char* field;
	} bad[] = {
	    {{true, 0.0f, 4, false, 0, 0}, "contact.stiffness"},  {{true, 1.5f, 4, false, 0, 0}, "contact.stiffness"},
	    {{true, NAN, 4, false, 0, 0}, "contact.stiffness"},   {{true, 1e-9f, 4, false, 0, 0}, "contact.stiffness"},
	    {{true, 1.0f, 0, false, 0, 0}, "contact.iterations"}, {{true, 1.0f, 17, false, 0, 0}, "contact.iterations"},
	    {{true, 1.0f, 4, false, NAN, 0}, "contact.slip"},     {{true, 1.0f, 4, false, 1.5f, 0}, "contact.slip"},
	    {{true, 1.0f, 4, false, -0.1f, 0}, "contact.slip"},   {{true, 1.0f, 4, false, 1e-9f, 0}, "contact.slip"},
	    {{false, 1.0f, 4, false, INFINITY, 0}, "contact.slip"}, {{true, 1.0f, 4, false, 0, NAN}, "contact.noise"},
	    {{true, 1.0f, 4, false, 0, -0.5f}, "contact.noise"},  {{false, 1.0f, 4, false, 0, NAN}, "contact.noise"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.contact = bad[k].c;
		uint32_t a = 0;
		cr_expect_eq(throng_world_add_archetype(w, &c, &a), THRONG_ERR_INVALID_ARGUMENT, "case %zu", k);
		cr_expect(strstr(throng_last_error(), bad[k].field) != NULL, "case %zu: %s", k, throng_last_error());
	}
	// Off, the settings are not read.
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact = (throng_contact){false, 0.0f, 0, false, 0.0f, 0.0f};
	uint32_t a = 0;
	cr_expect_eq(throng_world_add_archetype(w, &c, &a), THRONG_OK, "%s", throng_last_error());
	throng_world_destroy(w);
}

// ---- Walls and obstacles ---------------------------------------------------

/// Sign of the side of p against the line through a, b.
static float side(throng_vec2 a, throng_vec2 b, throng_vec2 p)
{
	return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

/// Distance from p to segment a-b.
static float seg_dist(throng_vec2 a, throng_vec2 b, throng_vec2 p)
{
	float abx = b.x - a.x, aby = b.y - a.y;
	float t = ((p.x - a.x) * abx + (p.y - a.y) * aby) / (abx * abx + aby * aby);
	t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
	float dx = p.x - (a.x + abx * t), dy = p.y - (a.y + aby * t);
	return sqrtf(dx * dx + dy * dy);
}

Test(contacts, a_crowd_driven_into_a_wall_never_crosses_it)
{
	// 400 agents (radius 0.3, 3 m/s) seek points behind a wall across the
	// whole world, x = 0 from y = -20 to 20, for 20 s, in both engines.
	// Every step: everyone stays west of the wall and at least its radius
	// (less rounding) from it, inside the world, within max speed.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = make_world(e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, 20.0f, 400);
		throng_vec2 a = {0.0f, -20.0f}, b = {0.0f, 20.0f};
		cr_assert_eq(throng_world_add_wall(w, a, b, NULL), THRONG_OK);
		uint32_t arch = seeker_archetype(w);
		uint64_t rng = 11;
		for (uint32_t i = 0; i < 400; ++i) {
			float x = thr_test_uniform(&rng, -19.0f, -0.3f), y = thr_test_uniform(&rng, -19.0f, 19.0f);
			spawn(w, arch, x, y, 0.3f, 3.0f, (throng_vec2){10.0f, thr_test_uniform(&rng, -15.0f, 15.0f)});
		}
		for (int step = 0; step < 200; ++step) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			throng_view v = throng_world_view(w);
			for (uint32_t k = 0; k < v.count; ++k) {
				throng_vec2 p = {v.x[k], v.y[k]};
				cr_assert(side(a, b, p) > 0.0f, "step %d: agent %u at x = %g crossed the wall", step, v.id[k],
				          (double)p.x);
				cr_assert_geq(seg_dist(a, b, p), 0.3f * (1.0f - 1e-4f), "step %d: agent %u %g from the wall", step,
				              v.id[k], (double)seg_dist(a, b, p));
				cr_assert(fabsf(p.x) <= 20.0f && fabsf(p.y) <= 20.0f);
				float speed = sqrtf(v.vx[k] * v.vx[k] + v.vy[k] * v.vy[k]);
				cr_assert_leq(speed, 3.0f * (1.0f + 1e-6f));
			}
		}
		cr_expect_gt(throng_world_get_stats(w).shape_pushes, 0u, "the wall had to act");
		throng_world_destroy(w);
	}
}

Test(contacts, agents_spawned_against_a_wall_leave_it_to_their_side)
{
	// Centres 0.1 m from the wall (radius 0.3) on both sides, and one on
	// the wall's line: after a step every centre is at least 0.3 m away,
	// the first two on the side they started.
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 10.0f, 8);
	throng_vec2 a = {0.0f, -5.0f}, b = {0.0f, 5.0f};
	cr_assert_eq(throng_world_add_wall(w, a, b, NULL), THRONG_OK);
	uint32_t arch = still_archetype(w, true, 1.0f, 4);
	spawn(w, arch, -0.1f, 0.0f, 0.3f, 2.0f, (throng_vec2){0, 0});
	spawn(w, arch, 0.1f, 2.0f, 0.3f, 2.0f, (throng_vec2){0, 0});
	spawn(w, arch, 0.0f, -2.0f, 0.3f, 2.0f, (throng_vec2){0, 0});
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_expect_float_eq(agent(w, 0).position.x, -0.3f, 1e-6f);
	cr_expect_float_eq(agent(w, 1).position.x, 0.3f, 1e-6f);
	cr_expect_geq(fabsf(agent(w, 2).position.x), 0.3f * (1.0f - 1e-6f));
	throng_world_destroy(w);
}

Test(contacts, a_fast_agent_never_passes_through_a_thin_wall_or_an_obstacle)
{
	// 30 m/s with dt 0.1: 3 m a step, ten times the radius. A wall at x = 0
	// and an obstacle on the way of a second agent; both seek far behind.
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 50.0f, 8);
	throng_vec2 a = {0.0f, -1.0f}, b = {0.0f, 1.0f};
	cr_assert_eq(throng_world_add_wall(w, a, b, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){0.0f, 20.0f}, 1.0f, NULL), THRONG_OK);
	uint32_t arch = seeker_archetype(w);
	spawn(w, arch, -10.0f, 0.0f, 0.3f, 30.0f, (throng_vec2){40.0f, 0.0f});
	spawn(w, arch, -10.0f, 20.0f, 0.3f, 30.0f, (throng_vec2){40.0f, 20.0f});
	for (int step = 0; step < 100; ++step) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		throng_agent_state s0 = agent(w, 0), s1 = agent(w, 1);
		// It may go round the wall's ends (2 m long), never through it.
		if (fabsf(s0.position.y) < 1.0f) {
			cr_assert(s0.position.x < 0.0f || seg_dist(a, b, s0.position) >= 0.3f * (1.0f - 1e-4f),
			          "step %d: x %g y %g", step, (double)s0.position.x, (double)s0.position.y);
		}
		float dx = s1.position.x, dy = s1.position.y - 20.0f;
		cr_assert_geq(sqrtf(dx * dx + dy * dy), 1.3f * (1.0f - 1e-4f), "step %d: inside the obstacle", step);
	}
	throng_world_destroy(w);
}

// ---- The SIMD block against the reference -----------------------------------

Test(contacts, simd_block_matches_the_reference_on_random_states)
{
	// 203 agents (not a multiple of 8) of radii 0.2 to 0.6 in a 6 m square,
	// dense enough that most overlap several others; a few pairs share a
	// point, a few positions are -0. Lists: every other agent within
	// 1.25 (r_i + r_j), in id order (any list serves the comparison).
	// Archetypes with different stiffness and iterations, one with
	// contacts off, three with slip, noise or both (velocities v* drawn
	// in [-1, 1], so about half the pairs close; a few agents at rest).
	// Every bit of every iterate must agree.
	enum { N = 203, A = 6 };
	throng_world* w = make_world(THRONG_ENGINE_SCALAR, 10.0f, N);
	uint32_t arch[A] = {still_archetype(w, true, 1.0f, 4), still_archetype(w, true, 0.3f, 2),
	                    still_archetype(w, false, 1.0f, 4), still_archetype(w, true, 1.0f, 4),
	                    still_archetype(w, true, 0.7f, 3), still_archetype(w, true, 1.0f, 4)};
	const float slip[A] = {0, 0, 0.5f, 0.4f, 1.0f, 0}, noise[A] = {0, 0, 0.3f, 0.8f, 0, 2.5f};
	for (uint32_t a = 2; a < A; ++a) {
		w->archetypes[arch[a]].contact.slip = slip[a];
		w->archetypes[arch[a]].contact.noise = noise[a];
	}
	w->step = 4321;
	uint64_t rng = 5;
	for (uint32_t i = 0; i < N; ++i) {
		float x = thr_test_uniform(&rng, -3.0f, 3.0f), y = thr_test_uniform(&rng, -3.0f, 3.0f);
		if (i % 17 == 5) {
			x = -0.0f;
		}
		spawn(w, arch[i % A], x, y, thr_test_uniform(&rng, 0.2f, 0.6f), 2.0f, (throng_vec2){0, 0});
	}
	float* vx = calloc(N + 8, sizeof(float));
	float* vy = calloc(N + 8, sizeof(float));
	cr_assert(vx && vy);
	for (uint32_t i = 0; i < N; ++i) {
		vx[i] = i % 11 == 3 ? 0.0f : thr_test_uniform(&rng, -1.0f, 1.0f);
		vy[i] = i % 11 == 3 ? 0.0f : thr_test_uniform(&rng, -1.0f, 1.0f);
	}
	float* sx = calloc(N + 8, sizeof(float));
	float* sy = calloc(N + 8, sizeof(float));
	float* ax = calloc(N + 8, sizeof(float));
	float* ay = calloc(N + 8, sizeof(float));
	float* bx = calloc(N + 8, sizeof(float));
	float* by = calloc(N + 8, sizeof(float));
	uint32_t* start = calloc(N + 1, sizeof(uint32_t));
	uint32_t* pairs = calloc((size_t)N * N, sizeof(uint32_t));
	cr_assert(sx && sy && ax && ay && bx && by && start && pairs);
	for (uint32_t i = 0; i < N; ++i) {
		sx[i] = w->store.buf[w->store.cur].px[i];
		sy[i] = w->store.buf[w->store.cur].py[i];
		if (i % 29 == 7) { // share a point with the agent before
			sx[i] = sx[i - 1];
			sy[i] = sy[i - 1];
		}
	}
	uint32_t total = 0, overlapping = 0;
	for (uint32_t i = 0; i < N; ++i) {
		start[i] = total;
		for (uint32_t j = 0; j < N && w->archetypes[w->archetype[i]].contact.enabled; ++j) {
			float dx = sx[j] - sx[i], dy = sy[j] - sy[i], rs = w->radius[i] + w->radius[j];
			if (j != i && w->archetypes[w->archetype[j]].contact.enabled && dx * dx + dy * dy < 1.5625f * rs * rs) {
				pairs[total++] = j;
				overlapping += dx * dx + dy * dy < rs * rs;
			}
		}
	}
	start[N] = total;
	cr_assert_gt(overlapping, (uint32_t)N, "dense enough: %u overlapping listed pairs", overlapping);
	// Slip and noise act on this state: iteration 0 without them moves
	// many of their agents elsewhere.
	{
		thr_contact_iter with = {w, start, pairs, sx, sy, ax, ay, 0, vx, vy, DT};
		thr_contact_iter without = {w, start, pairs, sx, sy, bx, by, 0, vx, vy, DT};
		for (uint32_t first = 0; first < N; first += 8) {
			thr_contact_block(&with, first);
		}
		for (uint32_t a = 2; a < A; ++a) {
			w->archetypes[arch[a]].contact.slip = w->archetypes[arch[a]].contact.noise = 0.0f;
		}
		for (uint32_t first = 0; first < N; first += 8) {
			thr_contact_block(&without, first);
		}
		uint32_t moved[A] = {0};
		for (uint32_t i = 0; i < N; ++i) {
			moved[i % A] += ax[i] != bx[i] || ay[i] != by[i];
		}
		for (uint32_t a = 2; a < A; ++a) {
			w->archetypes[arch[a]].contact.slip = slip[a];
			w->archetypes[arch[a]].contact.noise = noise[a];
			cr_assert(a == 2 || moved[a] > 5u, "archetype %u: slip and noise moved %u agents", a, moved[a]);
		}
		cr_assert(moved[0] == 0 && moved[1] == 0 && moved[2] == 0, "contacts off or without slip and noise");
	}
	for (uint32_t k = 0; k < 4; ++k) {
		thr_contact_iter ref = {w, start, pairs, sx, sy, ax, ay, k, vx, vy, DT};
		thr_contact_iter wide = {w, start, pairs, sx, sy, bx, by, k, vx, vy, DT};
		for (uint32_t first = 0; first < N; first += 8) {
			int a = thr_contact_block(&ref, first);
			int b = thr_simd_contact_block(&wide, first);
			cr_assert_eq(a, b, "iteration %u, block %u: lanes that met an overlap %#x vs %#x", k, first, (unsigned)a,
			             (unsigned)b);
		}
		cr_assert(memcmp(ax, bx, N * sizeof(float)) == 0 && memcmp(ay, by, N * sizeof(float)) == 0,
		          "iteration %u: the SIMD block differs from the reference", k);
		cr_assert(memcmp(ax + N, bx + N, 8 * sizeof(float)) == 0, "wrote past the count");
		memcpy(sx, ax, N * sizeof(float));
		memcpy(sy, ay, N * sizeof(float));
	}
	free(sx); free(sy); free(ax); free(ay); free(bx); free(by); free(start); free(pairs); free(vx); free(vy);
	throng_world_destroy(w);
}

Test(contacts, scenario_files_set_them_per_archetype)
{
	static const char text[] = "archetypes:\n"
	                           "  soft:\n"
	                           "    contact: {stiffness: 0.25, iterations: 7, inelastic: true, slip: 0.5, noise: 0.1}\n"
	                           "    slots: []\n"
	                           "  ghost:\n"
	                           "    contact: {enabled: false}\n"
	                           "    slots: []\n"
	                           "  plain:\n"
	                           "    slots: []\n"
	                           "groups:\n"
	                           "  a: {count: 2, archetype: soft, spawn: {shape: line, from: [0, 0], to: [4, 0]}}\n"
	                           "  b: {count: 2, archetype: ghost, spawn: {shape: line, from: [0, 2], to: [4, 2]}}\n"
	                           "  c: {count: 2, archetype: plain, spawn: {shape: line, from: [0, 4], to: [4, 4]}}\n";
	throng_scene_def o = throng_scene_default_def();
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("contacts.yaml", text, sizeof text - 1, &o, NULL, NULL, &s), THRONG_OK, "%s",
	             throng_last_error());
	const throng_world* w = throng_scene_world(s);
	throng_controller c;
	const throng_contact expect[3] = {
	    {true, 0.25f, 7, true, 0.5f, 0.1f}, {false, 1.0f, 4, false, 0, 0}, {true, 1.0f, 4, false, 0, 0}};
	for (uint32_t a = 0; a < 3; ++a) {
		cr_assert_eq(throng_world_get_controller(w, a, &c), THRONG_OK);
		cr_expect(c.contact.enabled == expect[a].enabled && c.contact.stiffness == expect[a].stiffness &&
		                  c.contact.iterations == expect[a].iterations && c.contact.inelastic == expect[a].inelastic &&
		                  c.contact.slip == expect[a].slip && c.contact.noise == expect[a].noise,
		          "archetype %u: %d %g %u %d", a, c.contact.enabled, (double)c.contact.stiffness, c.contact.iterations,
		          c.contact.inelastic);
	}
	// Saved and loaded again, the settings survive.
	char* saved = NULL;
	size_t length = 0;
	cr_assert_eq(throng_scene_save_string(s, &saved, &length), THRONG_OK, "%s", throng_last_error());
	cr_expect(strstr(saved, "inelastic: true, slip: 0.5, noise: 0.1}") != NULL, "%s", saved);
	// At 0 they are left out (a saved built-in stays what it was).
	cr_expect(strstr(saved, "slip: 0,") == NULL && strstr(saved, "noise: 0}") == NULL, "%s", saved);
	throng_scene* again = NULL;
	cr_assert_eq(throng_scene_load_memory("saved.yaml", saved, length, &o, NULL, NULL, &again), THRONG_OK, "%s",
	             throng_last_error());
	for (uint32_t a = 0; a < 3; ++a) {
		cr_assert_eq(throng_world_get_controller(throng_scene_world(again), a, &c), THRONG_OK);
		cr_expect(c.contact.inelastic == expect[a].inelastic && c.contact.slip == expect[a].slip &&
		                  c.contact.noise == expect[a].noise,
		          "archetype %u", a);
	}
	throng_scene_destroy(again);
	free(saved);
	throng_scene_destroy(s);
}

Test(contacts, a_gap_narrower_than_the_agent_stops_it)
{
	// Two obstacles of radius 0.5 at (0, +-0.7): a 0.4 m gap for an agent
	// 0.6 m wide, seeking straight through it at 2 m/s. Pushed out of one
	// obstacle it would land in the other: it stops before the gap, never
	// inside either (beyond float rounding of the circle), in both engines.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = make_world(e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR, 20.0f, 8);
		cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){0.0f, 0.7f}, 0.5f, NULL), THRONG_OK);
		cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){0.0f, -0.7f}, 0.5f, NULL), THRONG_OK);
		uint32_t arch = seeker_archetype(w);
		spawn(w, arch, -5.0f, 0.0f, 0.3f, 2.0f, (throng_vec2){5.0f, 0.0f});
		for (int step = 0; step < 100; ++step) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			throng_vec2 p = agent(w, 0).position;
			for (int k = 0; k < 2; ++k) {
				float dy = p.y - (k ? -0.7f : 0.7f);
				cr_assert_geq(sqrtf(p.x * p.x + dy * dy), 0.8f * (1.0f - 1e-5f), "step %d: in obstacle %d at (%g, %g)",
				              step, k, (double)p.x, (double)p.y);
			}
		}
		cr_expect_lt(agent(w, 0).position.x, 0.0f, "it stays on its side of the gap");
		cr_expect_gt(throng_world_get_stats(w).shape_reverts, 0u);
		throng_world_destroy(w);
	}
}

/// A crush of `n` seekers (radius 0.3, 2 m/s) around obstacles and a wall:
/// the agent grid's cell (def.cell_size) decides only which grid the
/// contact pass lists its pairs from. With `walk` > 0 the seekers also
/// walk their neighbours within `walk` m, for a separation slot of weight
/// 0 (it moves nobody). Returns the hash after `steps` steps and the pass's
/// iterations, and its searches and skips when those are not NULL.
static uint64_t crush_walk_hash(throng_engine engine, float cell_size, float walk, uint32_t threads, uint32_t n,
                                int steps, uint64_t* iterations, uint64_t* searches, uint64_t* skips)
{
	throng_world_def def = world_def(engine, 30.0f, n);
	def.threads = threads;
	def.cell_size = cell_size;
	def.threads_policy = THRONG_THREADS_FIXED;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){4.0f, 3.0f}, 1.5f, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){-5.0f, -2.0f}, 0.7f, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-8.0f, 6.0f}, (throng_vec2){2.0f, 9.0f}, NULL), THRONG_OK);
	uint32_t arch = seeker_archetype(w);
	if (walk > 0.0f) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(w, arch, &c), THRONG_OK);
		throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
		sep.weight = 0.0f;
		sep.params.neighbor_radius = walk;
		throng_controller_add(&c, sep);
		cr_assert_eq(throng_world_set_controller(w, arch, &c), THRONG_OK, "%s", throng_last_error());
	}
	if (searches != NULL) {
		cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK);
	}
	uint64_t rng = 5;
	for (uint32_t i = 0; i < n; ++i) {
		float x = thr_test_uniform(&rng, -29.0f, 29.0f), y = thr_test_uniform(&rng, -29.0f, 29.0f);
		spawn(w, arch, x, y, 0.3f, 2.0f, (throng_vec2){thr_test_uniform(&rng, -2.0f, 2.0f), 0.0f});
	}
	for (int s = 0; s < steps; ++s) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	throng_world_stats st = throng_world_get_stats(w);
	*iterations = st.contact_iterations;
	if (searches != NULL) {
		throng_world_counters total;
		cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
		*searches = total.contact_searches;
		*skips = total.contact_skips;
	}
	uint64_t h = throng_world_hash(w);
	throng_world_destroy(w);
	return h;
}

static uint64_t crush_hash(throng_engine engine, float cell_size, uint32_t threads, uint32_t n, int steps,
                           uint64_t* iterations)
{
	return crush_walk_hash(engine, cell_size, 0.0f, threads, n, steps, iterations, NULL, NULL);
}

Test(contacts, every_listing_grid_gives_the_same_bits)
{
	// Cells of 1 m: the pass lists pairs from the agent grid (searched
	// wider by what agents moved); cells of 40 m are too wide for that and
	// it builds its own grid over p*. Lists are ids up either way, so the
	// states agree to the bit, in both engines and 1 or 3 threads (3,000
	// agents: the parallel regions run).
	uint64_t it_near = 0, it_far = 0;
	const uint64_t ref = crush_hash(THRONG_ENGINE_SCALAR, 1.0f, 1, 3000, 150, &it_near);
	cr_assert_gt(it_near, 100u, "the crush must keep the pass iterating (%llu iterations)",
	             (unsigned long long)it_near);
	cr_assert_eq(crush_hash(THRONG_ENGINE_SCALAR, 40.0f, 1, 3000, 150, &it_far), ref);
	cr_assert_eq(it_far, it_near);
	uint64_t unused = 0;
	cr_assert_eq(crush_hash(THRONG_ENGINE_SIMD, 1.0f, 3, 3000, 150, &unused), ref);
	cr_assert_eq(crush_hash(THRONG_ENGINE_SIMD, 40.0f, 1, 3000, 150, &unused), ref);
	cr_assert_eq(crush_hash(THRONG_ENGINE_SIMD, 40.0f, 3, 3000, 150, &unused), ref);
}

Test(contacts, agents_whose_walk_met_nobody_near_are_not_searched)
{
	// A walk of 3 m meets every agent that could become a pair (reach
	// 1.25 x 0.6 m plus what both moved, 2 x 0.2 m x sqrt 2): agents it
	// found alone skip the search; a walk of 0.4 m proves nothing. The
	// lists, and so the states, are those of a search for every agent, in
	// both engines, with 1 or 3 threads.
	const uint32_t n = 3000;
	const int steps = 60;
	uint64_t it = 0, searched = 0, skipped = 0;
	const uint64_t ref = crush_walk_hash(THRONG_ENGINE_SCALAR, 1.0f, 0.4f, 1, n, steps, &it, &searched, &skipped);
	cr_assert_eq(skipped, 0u, "a 0.4 m walk cannot prove an agent alone");
	cr_assert_eq(searched, (uint64_t)n * (uint64_t)steps);
	uint64_t first = 0;
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		for (uint32_t threads = 1; threads <= 3; threads += 2) {
			cr_assert_eq(crush_walk_hash(engine, 1.0f, 3.0f, threads, n, steps, &it, &searched, &skipped), ref,
			             "engine %d, %u threads", e, threads);
			cr_expect_eq(searched + skipped, (uint64_t)n * (uint64_t)steps);
			// The crush is dense: about 1 in 100 is alone.
			cr_expect_gt(skipped, (uint64_t)n * (uint64_t)steps / 200u, "engine %d: %llu skips of %llu", e,
			             (unsigned long long)skipped, (unsigned long long)(searched + skipped));
			first = first ? first : skipped;
			cr_expect_eq(skipped, first, "both engines see the same walks");
		}
	}
}
