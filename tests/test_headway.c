// SPDX-License-Identifier: MIT
// The relaxation blend and speed from headway in whole worlds, both
// engines, with numbers worked by hand (docs/BEHAVIORS.md, "The relaxation
// blend" and "Headway"): a walker's exponential approach to its free
// speed, one step of a walker with neighbours ahead, beside and behind,
// and a line of walkers that keeps the model's steady state V(s). The
// formulas alone are tested in test_controller.c and test_behaviors.c; the
// SIMD engine against the reference on random states in test_simd.c.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/throng.h"

static const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
static const char* const engine_names[2] = {"scalar", "simd"};

/// An open world of step dt over +-500 m, forces recorded.
static throng_world* open_world(throng_engine engine, float dt)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.bounds_mode = THRONG_BOUNDS_OPEN;
	d.bounds_min = (throng_vec2){-500.0f, -500.0f};
	d.bounds_max = (throng_vec2){500.0f, 500.0f};
	d.dt = dt;
	d.record_forces = true;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// A walker: relaxation mode with time constant tau, a seek (slot 0) of
/// weight 1 and, when `headway`, a headway slot (slot 1) looking 5 m ahead
/// with time gap T.
static uint32_t add_walker(throng_world* w, float tau, bool headway, float T)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_RELAXATION);
	c.relaxation_time = tau;
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK)), 0);
	if (headway) {
		throng_slot h = throng_slot_default_def(THRONG_HEADWAY);
		h.params.neighbor_radius = 5.0f;
		h.params.time_gap = T;
		cr_assert_geq(throng_controller_add(&c, h), 0);
	}
	uint32_t arch = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	return arch;
}

static throng_agent_def walker_def(uint32_t arch, float x, float y, float vx, float max_speed, float max_force)
{
	throng_agent_def a = throng_agent_default_def();
	a.archetype = arch;
	a.position = (throng_vec2){x, y};
	a.velocity = (throng_vec2){vx, 0.0f};
	a.heading = (throng_vec2){1.0f, 0.0f};
	a.target = (throng_vec2){490.0f, y};
	a.max_speed = max_speed;
	a.max_force = max_force;
	a.radius = 0.3f;
	return a;
}

static throng_agent_state state_of(const throng_world* w, uint32_t id)
{
	throng_agent_state s;
	cr_assert_eq(throng_world_get_agent(w, id, &s), THRONG_OK, "%s", throng_last_error());
	return s;
}

// The relaxation mode with a seek of weight 1 from rest, v0 = 1.3 m/s,
// tau = 0.5 s, dt = 1/60 s, along +x: total = (v0 - v)/tau while that is
// at most max_force, and the integrator's v_{n+1} = v_n + total dt gives
//   v0 - v_{n+1} = (v0 - v_n)(1 - dt/tau),  v_n = v0 (1 - (1 - dt/tau)^n).
// After t = tau (n = 30): v0 (1 - (29/30)^30) = 1.3 * 0.6383385 =
// 0.8298400 m/s, against the continuous v0 (1 - e^-1) = 0.8217567: the
// explicit Euler step's error, 0.0081 m/s. max_force = v0/tau = 2.6 is
// the least that keeps the first step's force unlimited.
Test(relaxation, exponential_approach_from_rest)
{
	const float v0 = 1.3f, tau = 0.5f, dt = 1.0f / 60.0f;
	const double r = 1.0 - (double)dt / tau;
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e], dt);
		throng_agent_def a = walker_def(add_walker(w, tau, false, 1.0f), 0.0f, 0.0f, 0.0f, v0, v0 / tau);
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
		double worst = 0.0;
		for (int n = 1; n <= 60; ++n) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			const double want = v0 * (1.0 - pow(r, n));
			const throng_agent_state s = state_of(w, 0);
			cr_assert_eq(s.velocity.y, 0.0f);
			const double err = fabs(s.velocity.x - want);
			worst = err > worst ? err : worst;
			// Float rounding: measured at most 1 unit in the last place
			// of v0 (1.2e-7) over the 60 steps; 3 allowed.
			cr_assert_leq(err, 3.6e-7, "%s: step %d: speed %.9g, want %.9g", engine_names[e], n,
			              (double)s.velocity.x, want);
			if (n == 30) {
				cr_expect_float_eq(s.velocity.x, 0.8298400f, 2.0e-6f, "%s", engine_names[e]);
				cr_expect_leq(fabs(s.velocity.x - v0 * (1.0 - exp(-1.0))), 0.0082, "%s", engine_names[e]);
			}
		}
		if (getenv("THRONG_TEST_REPORT") != NULL) {
			fprintf(stderr, "relaxation %s: worst |v_n - v0 (1 - (1 - dt/tau)^n)| over 60 steps %.3g m/s\n",
			        engine_names[e], worst);
		}
		throng_world_destroy(w);
	}
}

// Below v0/tau the final limit caps the start: with max_force 1.3 the
// walker gains max_force dt a step while (v0 - v)/tau > max_force, that is
// up to v = v0 - tau max_force = 0.65 m/s, reached after 30 steps (0.5 s)
// instead of 0.8298 at t = tau above.
Test(relaxation, max_force_below_v0_over_tau_limits_the_start)
{
	const float v0 = 1.3f, tau = 0.5f, dt = 1.0f / 60.0f;
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e], dt);
		throng_agent_def a = walker_def(add_walker(w, tau, false, 1.0f), 0.0f, 0.0f, 0.0f, v0, 1.3f);
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
		for (int n = 1; n <= 29; ++n) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			cr_assert_float_eq(state_of(w, 0).velocity.x, 1.3f * dt * (float)n, 1.0e-5f, "%s: step %d",
			                   engine_names[e], n);
		}
		throng_world_destroy(w);
	}
}

// One step of walker A at (0,0), moving at its free speed (1.3, 0) with
// a seek towards +x, tau 0.5 s, a headway slot with T = 1 s; three agents
// of an archetype without slots: B ahead at (1.6, 0), C beside at
// (0.5, 0.7) (nearer, 0.86 m, but |lateral| 0.7 >= l = 0.6), D behind at
// (-0.8, 0). V = (1.6 - 0.6)/1 = 1.0 m/s. The seek's drive is 0
// (desired = v); desired v + 0 = (1.3, 0) is capped to (1.0, 0), so the
// drive becomes (-0.3, 0) and the total (-0.6, 0); the headway slot
// records that change, (-0.6, 0); the new speed is 1.3 - 0.6/60 = 1.29.
// Without B, nothing slows A.
Test(headway, one_step_with_neighbours_ahead_beside_and_behind)
{
	for (int e = 0; e < 2; ++e) {
		for (int with_b = 0; with_b < 2; ++with_b) {
			throng_world* w = open_world(engines[e], 1.0f / 60.0f);
			const uint32_t walker = add_walker(w, 0.5f, true, 1.0f);
			throng_controller still = throng_controller_default_def(THRONG_BLEND_RELAXATION);
			uint32_t arch_still = 0;
			cr_assert_eq(throng_world_add_archetype(w, &still, &arch_still), THRONG_OK);
			throng_agent_def defs[4] = {
			    walker_def(walker, 0.0f, 0.0f, 1.3f, 1.3f, 10.0f),
			    walker_def(arch_still, 0.5f, 0.7f, 0.0f, 1.3f, 10.0f),
			    walker_def(arch_still, -0.8f, 0.0f, 0.0f, 1.3f, 10.0f),
			    walker_def(arch_still, 1.6f, 0.0f, 0.0f, 1.3f, 10.0f),
			};
			cr_assert_eq(throng_world_spawn(w, defs, with_b ? 4u : 3u, NULL), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			throng_vec2 seek, head, total;
			cr_assert_eq(throng_world_slot_force(w, 0, 0, &seek), THRONG_OK);
			cr_assert_eq(throng_world_slot_force(w, 0, 1, &head), THRONG_OK);
			cr_assert_eq(throng_world_total_force(w, 0, &total), THRONG_OK);
			const throng_agent_state a = state_of(w, 0);
			THR_EXPECT_VEC(seek, 0.0f, 0.0f, 0.0f);
			if (with_b) {
				THR_EXPECT_VEC(head, -0.6f, 0.0f, 1.0e-6f);
				THR_EXPECT_VEC(total, -0.6f, 0.0f, 1.0e-6f);
				THR_EXPECT_VEC(a.velocity, 1.29f, 0.0f, 1.0e-6f);
			} else {
				THR_EXPECT_VEC(head, 0.0f, 0.0f, 0.0f);
				THR_EXPECT_VEC(total, 0.0f, 0.0f, 0.0f);
				THR_EXPECT_VEC(a.velocity, 1.3f, 0.0f, 0.0f);
			}
			throng_world_destroy(w);
		}
	}
}

// The headway's cone holds only beside a wall (THR_HEADWAY_CONE,
// THR_HEADWAY_WALL_REACH): a walker at rest at the origin, heading 40
// degrees off its seek along +x (h = (cos 40, sin 40) = (0.7660444,
// 0.6427876)), a standing body 0.7 m ahead along h (gap 0.7 - 0.6 = 0.1
// m, T = 1 s: V = 0.1 m/s). Its desire (1.3, 0) points outside the cone
// (dot(d, h) = 0.9958577 < 0.85 x 1.3 = 1.105). In the open it is capped
// at V: total (0.1, 0)/tau = (0.2, 0), v after one step (0.2/60, 0). With
// a wall 1.0 m below it (the wall's nearest point 1.0 m from the centre,
// within radius 0.3 + 1.0), the body in front of its face does not hold
// that desire: total 1.3/0.5 = (2.6, 0), v (2.6/60, 0). A wall 1.4 m away
// (beyond 1.3) does not count, nor one whose end is 1.31 m off; one whose
// end is 1.29 m off does.
Test(headway, its_cone_holds_only_beside_a_wall)
{
	static const struct {
		bool wall;
		float a_x, a_y, b_x, b_y;
		bool uncapped;
	} cases[] = {
	    {false, 0.0f, 0.0f, 0.0f, 0.0f, false},       // no wall
	    {true, -5.0f, -1.0f, 5.0f, -1.0f, true},      // 1.0 m below
	    {true, -5.0f, -1.4f, 5.0f, -1.4f, false},     // 1.4 m below
	    {true, -1.31f, -5.0f, -1.31f, -1.0f, false},  // its end (-1.31, -1): 1.65 m off
	    {true, -1.31f, -5.0f, -1.31f, 0.0f, false},   // its end (-1.31, 0): 1.31 m off
	    {true, -1.29f, -5.0f, -1.29f, 0.0f, true},    // its end (-1.29, 0): 1.29 m off
	};
	for (int e = 0; e < 2; ++e) {
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
			throng_world* w = open_world(engines[e], 1.0f / 60.0f);
			const uint32_t walker = add_walker(w, 0.5f, true, 1.0f);
			throng_agent_def defs[2] = {
			    walker_def(walker, 0.0f, 0.0f, 0.0f, 1.3f, 10.0f),
			    walker_def(walker, 0.7f * 0.7660444f, 0.7f * 0.6427876f, 0.0f, 1.3f, 10.0f),
			};
			defs[0].heading = (throng_vec2){0.7660444f, 0.6427876f};
			cr_assert_eq(throng_world_spawn(w, defs, 2u, NULL), THRONG_OK, "%s", throng_last_error());
			if (cases[k].wall) {
				cr_assert_eq(throng_world_add_wall(w, (throng_vec2){cases[k].a_x, cases[k].a_y},
				                                   (throng_vec2){cases[k].b_x, cases[k].b_y}, NULL),
				             THRONG_OK, "%s", throng_last_error());
			}
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			const throng_agent_state a = state_of(w, 0);
			const float vx = cases[k].uncapped ? 2.6f / 60.0f : 0.2f / 60.0f;
			cr_expect(fabsf(a.velocity.x - vx) < 1.0e-6f && fabsf(a.velocity.y) < 1.0e-6f,
			          "%s, case %zu: v (%.9g, %.9g), expected (%.9g, 0)", engine_names[e], k, (double)a.velocity.x,
			          (double)a.velocity.y, (double)vx);
			throng_world_destroy(w);
		}
	}
}

// A line of 20 walkers along +x at spacing s (centres; radius 0.3, so
// l = 0.6), T = 1 s, tau = 0.5 s, free speed 1.3 m/s, led by one whose
// own free speed is V(s) = min(1.3, (s - l)/T): the model's steady state,
// every walker at V(s) with the spacing kept (Tordeux et al. 2016, the
// optimal-velocity relation). s = 0.9 m: V = 0.3 m/s; s = 1.2 m: 0.6 m/s;
// s = 1.5 m: 0.9 m/s; s = 2.5 m: (2.5 - 0.6)/1 = 1.9 > 1.3, the free speed.
// 1/s is the line's density per metre: speed falls with density. After
// 20 s (1,200 steps) from the steady state, every speed and spacing holds
// within 1e-4 m/s and 1e-3 m (the positions' rounding: 1,200 sums
// p + v dt at |x| up to 60 m, whose unit in the last place is 3.8e-6 m;
// 1.1e-4 m measured). Started from rest instead, the line reaches the same
// state: after 40 s every speed within 1e-3 m/s of V(s) and every spacing
// within 1e-3 m of s (measured at s = 1.2 m with 40 walkers: the spacing
// dips to 1.186 m at 10 s, the speeds are within 5e-4 m/s at 30 s).
Test(headway, a_line_of_walkers_keeps_V_of_its_spacing)
{
	static const float spacing[4] = {0.9f, 1.2f, 1.5f, 2.5f};
	static const float speed[4] = {0.3f, 0.6f, 0.9f, 1.3f};
	enum { N = 20 };
	for (int e = 0; e < 4; ++e) {
		const bool from_rest = e >= 2;
		const int STEPS = from_rest ? 2400 : 1200;
		const float tol_v = from_rest ? 1.0e-3f : 1.0e-4f;
		for (int q = 0; q < 4; ++q) {
			throng_world* w = open_world(engines[e % 2], 1.0f / 60.0f);
			const uint32_t arch = add_walker(w, 0.5f, true, 1.0f);
			throng_agent_def defs[N];
			for (int k = 0; k < N; ++k) {
				// Walker k stands k spacings behind the leader (id 0).
				defs[k] = walker_def(arch, -(float)k * spacing[q], 0.0f, from_rest ? 0.0f : speed[q],
				                     k == 0 ? speed[q] : 1.3f, 10.0f);
			}
			cr_assert_eq(throng_world_spawn(w, defs, N, NULL), THRONG_OK, "%s", throng_last_error());
			for (int n = 0; n < STEPS; ++n) {
				cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			}
			throng_agent_state prev = state_of(w, 0);
			for (uint32_t k = 0; k < N; ++k) {
				const throng_agent_state s = state_of(w, k);
				cr_expect_float_eq(s.velocity.x, speed[q], tol_v, "%s%s s %.1f: walker %u at %.7g m/s",
				                   engine_names[e % 2], from_rest ? " from rest" : "", (double)spacing[q], k,
				                   (double)s.velocity.x);
				cr_expect_eq(s.velocity.y, 0.0f);
				if (k > 0) {
					cr_expect_float_eq(prev.position.x - s.position.x, spacing[q], 1.0e-3f,
					                   "%s s %.1f: walker %u spacing %.7g", engine_names[e % 2], (double)spacing[q], k,
					                   (double)(prev.position.x - s.position.x));
				}
				prev = s;
			}
			if (!from_rest) {
				cr_expect_float_eq(state_of(w, 0).position.x, speed[q] * STEPS / 60.0f, 1.0e-3f);
			}
			throng_world_destroy(w);
		}
	}
}
