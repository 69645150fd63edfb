// SPDX-License-Identifier: MIT
// Anticipation (core/behaviors.c, thr_anticipation; docs/BEHAVIORS.md,
// "Anticipation"): the time-to-collision power law of Karamouzas, Skinner
// and Guy (2014) with the field-of-view weight and the side preference,
// against numbers worked by hand, against the gradient of the paper's
// energy taken numerically, and in a small world: two walkers meeting
// head-on in a 2 m corridor.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "fmath.h"
#include "support.h"
#include "throng/behavior.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

#define TOL 1.0e-5f

/// An agent of radius 0.3 m at p moving at v, heading h.
static thr_self walker(float px, float py, float vx, float vy, float hx, float hy, float max_force)
{
	thr_self s;
	s.p = v2(px, py);
	s.v = v2(vx, vy);
	s.h = v2(hx, hy);
	s.max_speed = 1.3f;
	s.max_force = max_force;
	s.radius = 0.3f;
	s.id = 0;
	s.group = 0;
	return s;
}

static thr_neighbor other(float px, float py, float vx, float vy)
{
	thr_neighbor n;
	n.p = v2(px, py);
	n.v = v2(vx, vy);
	n.id = 1;
	n.group = 0;
	n.radius = 0.3f;
	return n;
}

/// The default parameters (k 1.5, tau0 3 s, cut-off 999 s, lambda 0.5,
/// side_bias 0.5), neighbours within 10 m.
static throng_behavior_params params(void)
{
	throng_behavior_params p = throng_behavior_default_def();
	p.neighbor_radius = 10.0f;
	return p;
}

Test(anticipation, defaults_are_the_papers)
{
	throng_behavior_params p = throng_behavior_default_def();
	cr_expect_eq(p.ttc_strength, 1.5f);
	cr_expect_eq(p.ttc_horizon, 3.0f);
	cr_expect_eq(p.ttc_max_time, 999.0f);
	cr_expect_eq(p.fov_weight, 0.5f);
	cr_expect_eq(p.side_bias, 0.5f);
	cr_expect(throng_behavior_reads_neighbors(THRONG_ANTICIPATION));
	cr_expect_str_eq(throng_behavior_kind_name(THRONG_ANTICIPATION), "anticipation");
	cr_expect_eq((int)THRONG_ANTICIPATION, 15);
}

Test(anticipation, head_on_pair_by_hand)
{
	throng_behavior_params p = params();
	// i at (0,0) walking +x at 1 m/s, j at (4,0) walking -x at 1 m/s, radii
	// 0.3 + 0.3. x = p_i - p_j = (-4,0), v = v_i - v_j = (2,0), r = 0.6:
	// a = 4, b = x.v = -8, c = 16 - 0.36 = 15.64, disc = 64 - 62.56 = 1.44,
	// sq = 1.2, tau = (8 - 1.2)/4 = 1.7 s (the gap 3.4 m closed at 2 m/s).
	// g = (sq + b) v - a x = (-6.8)(2,0) - 4(-4,0) = (2.4,0), |g| = 2.4.
	// |F| = k e^(-tau/tau0) / (a tau^2) (2/tau + 1/tau0) |g| / sq
	//     = 1.5 * 0.5674137 / 11.56 * 1.5098039 * 2 = 0.2223227,
	// along -g: F = (-0.2223227, 0) (it brakes). j is dead ahead: cos phi
	// = 1, w = 1. On a collision course and ahead, so the side push is
	// side_bias |F| w = 0.1111613 to the right of +x, -perp(h) = (0,-1).
	thr_self s = walker(0, 0, 1, 0, 1, 0, 100.0f);
	thr_neighbor nb[1] = {other(4, 0, -1, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), -0.2223227f, -0.1111613f, TOL);
	// Without the side preference, only the brake.
	p.side_bias = 0.0f;
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), -0.2223227f, 0.0f, TOL);
	// Keep left (side_bias -0.5): the push flips to +y.
	p.side_bias = -0.5f;
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), -0.2223227f, 0.1111613f, TOL);
	// max_force 0.1: the neighbour's force is limited to 0.1 first (side
	// 0.05), then the sum (-0.1, 0.05), |.| = 0.1118, again to 0.1:
	// (-0.0894427, 0.0447214).
	s.max_force = 0.1f;
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), -0.0894427f, 0.0447214f, TOL);
}

/// The paper's energy E = k / tau^2 exp(-tau/tau0) of the pair, in double,
/// as a function of x = p_i - p_j; +Inf means no collision.
static double energy(double xx, double xy, double vx, double vy, double r, double k, double tau0)
{
	double a = vx * vx + vy * vy, b = xx * vx + xy * vy, c = xx * xx + xy * xy - r * r;
	double disc = b * b - a * c;
	if (disc <= 0.0 || c <= 0.0) {
		return 0.0;
	}
	double tau = (-b - sqrt(disc)) / a;
	return tau > 0.0 ? k / (tau * tau) * exp(-tau / tau0) : 0.0;
}

Test(anticipation, force_is_minus_the_energy_gradient)
{
	// An oblique near-collision with side push and anisotropy off (side_bias
	// 0, lambda 1): the force must be -dE/dx of the paper's energy, taken
	// here by central differences in double (step 1e-5 m).
	throng_behavior_params p = params();
	p.side_bias = 0.0f;
	p.fov_weight = 1.0f;
	const float cases[][6] = {
	    // p_j, v_j, v_i
	    {3.0f, 0.4f, -1.0f, 0.1f, 1.2f, 0.0f},
	    {2.0f, -1.5f, 0.0f, 1.0f, 1.0f, 0.3f},
	    {-1.0f, 2.5f, 0.6f, -1.1f, 0.2f, 0.9f},
	};
	for (int t = 0; t < 3; ++t) {
		const float* q = cases[t];
		thr_self s = walker(0, 0, q[4], q[5], 1, 0, 100.0f);
		thr_neighbor nb[1] = {other(q[0], q[1], q[2], q[3])};
		vec2 f = thr_anticipation(&s, nb, 1, &p);
		double xx = -(double)q[0], xy = -(double)q[1], vx = (double)q[4] - q[2], vy = (double)q[5] - q[3];
		double h = 1e-5;
		double gx = (energy(xx + h, xy, vx, vy, 0.6, 1.5, 3.0) - energy(xx - h, xy, vx, vy, 0.6, 1.5, 3.0)) / (2 * h);
		double gy = (energy(xx, xy + h, vx, vy, 0.6, 1.5, 3.0) - energy(xx, xy - h, vx, vy, 0.6, 1.5, 3.0)) / (2 * h);
		cr_assert(gx != 0.0 || gy != 0.0, "case %d: no collision predicted", t);
		double scale = fmax(1.0, hypot(gx, gy));
		cr_expect(fabs((double)f.x + gx) < 1e-4 * scale && fabs((double)f.y + gy) < 1e-4 * scale,
		          "case %d: force (%.7g, %.7g), -grad E (%.7g, %.7g)", t, (double)f.x, (double)f.y, -gx, -gy);
	}
}

Test(anticipation, no_force_without_a_collision)
{
	throng_behavior_params p = params();
	p.side_bias = 0.0f;
	thr_self s = walker(0, 0, 1, 0, 1, 0, 100.0f);
	// Moving apart: j ahead, walking away faster (b > 0, tau < 0).
	thr_neighbor away[1] = {other(4, 0, 2, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, away, 1, &p), 0.0f, 0.0f, 0.0f);
	// A miss: j passes 1 m to the side (|x| never below 1 > 0.6: disc < 0).
	thr_neighbor miss[1] = {other(4, 1, -1, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, miss, 1, &p), 0.0f, 0.0f, 0.0f);
	// Beyond the cut-off: tau = 1.7 s > ttc_max_time 1.5 s.
	p.ttc_max_time = 1.5f;
	thr_neighbor late[1] = {other(4, 0, -1, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, late, 1, &p), 0.0f, 0.0f, 0.0f);
	// Touching (d 0.5 < r 0.6, c < 0), j behind the agent: no force at all
	// (the contact stage separates touching pairs; only the side push acts
	// on a touching neighbour ahead, next test).
	p.ttc_max_time = 999.0f;
	thr_neighbor touching[1] = {other(-0.5f, 0, 1, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, touching, 1, &p), 0.0f, 0.0f, 0.0f);
}

Test(anticipation, touching_oncoming_neighbours_push_right_standing_ones_do_not)
{
	// Two walkers touching (0.5 m apart, r = 0.6 m), facing each other,
	// j stepping towards a at 0.1 m/s: c = 0.25 - 0.36 < 0, so no time to
	// collision (the contact stage separates touching pairs); the side rule
	// alone acts: j ahead (cos phi = 1, w = 1), closer than 2 r = 1.2 m,
	// oncoming (v_j . h = -0.1 < 0), a at rest (rest = 1):
	// side = 0.5 * 1.3 m/s * (1 - 0.5/1.2) * 1 * 1 = 0.3791667.
	throng_behavior_params p = params();
	thr_self a = walker(0, 0, 0, 0, 1, 0, 4.0f);
	thr_neighbor na[1] = {other(0.5f, 0, -0.1f, 0)};
	// a faces +x: its right is (0,-1).
	THR_EXPECT_VEC(thr_anticipation(&a, na, 1, &p), 0.0f, -0.3791667f, TOL);
	thr_self b = walker(0.5f, 0, -0.1f, 0, -1, 0, 4.0f);
	b.id = 1;
	thr_neighbor nb[1] = {other(0, 0, 0, 0)};
	nb[0].id = 0;
	// b faces -x, a stands (v_a . h_b = 0, not oncoming): b gets nothing.
	THR_EXPECT_VEC(thr_anticipation(&b, nb, 1, &p), 0.0f, 0.0f, 0.0f);
	// a stepping towards b too: b's right is (h.y, -h.x) = (0,1), and its
	// rest is 1 - 0.1/1.3; side = 0.5 * 1.3 * (1 - 0.5/1.2) * (1 - 0.1/1.3).
	// They part, a to -y, b to +y, each to its own right, and pass left
	// shoulder to left shoulder, as traffic keeping right does.
	nb[0].v = v2(0.1f, 0);
	THR_EXPECT_VEC(thr_anticipation(&b, nb, 1, &p), 0.0f, 0.5f * 1.3f * (1.0f - 0.5f / 1.2f) * (1.0f - 0.1f / 1.3f),
	               TOL);
	// Standing face to face (both at rest): no side push; the drive, which
	// always acts in the relaxation blend, starts them again, and moving
	// they are oncoming.
	thr_neighbor still[1] = {other(0.8f, 0, 0, 0)};
	THR_EXPECT_VEC(thr_anticipation(&a, still, 1, &p), 0.0f, 0.0f, 0.0f);
	// Today's unaligned avoidance sees nothing there either (rv = 0).
	throng_behavior_params u = throng_behavior_default_def();
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, still, 1, &u), 0.0f, 0.0f, 0.0f);
	// A walker following another in its lane is never pushed aside, at
	// full speed (rest = 0) or at half speed (rest = 0.5): a stream keeps
	// its lanes instead of drifting right as a block.
	thr_self c = walker(0, 0, 1.3f, 0, 1, 0, 4.0f);
	thr_neighbor lane[1] = {other(0.8f, 0, 1.3f, 0)};
	THR_EXPECT_VEC(thr_anticipation(&c, lane, 1, &p), 0.0f, 0.0f, 0.0f);
	thr_self d = walker(0, 0, 0.65f, 0, 1, 0, 4.0f);
	thr_neighbor lane2[1] = {other(0.8f, 0, 0.65f, 0)};
	THR_EXPECT_VEC(thr_anticipation(&d, lane2, 1, &p), 0.0f, 0.0f, 0.0f);
}

Test(anticipation, neighbours_behind_count_less)
{
	// j 4 m behind, closing at 2 m/s on a resting agent facing +x: the
	// mirror of the hand-worked pair (x = (4,0), v = (-2,0), a = 4, b = -8,
	// tau = 1.7 s, |F| = 0.2223227), g = (-6.8)(-2,0) - 4(4,0) = (-2.4,0),
	// so F = (+0.2223227, 0): pushed forward, away. cos phi = -1, so
	// w = lambda = 0.5: (0.1111613, 0). Behind: no side push.
	throng_behavior_params p = params();
	thr_self s = walker(0, 0, 0, 0, 1, 0, 100.0f);
	thr_neighbor nb[1] = {other(-4, 0, 2, 0)};
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), 0.1111613f, 0.0f, TOL);
	// lambda 1: every direction alike.
	p.fov_weight = 1.0f;
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), 0.2223227f, 0.0f, TOL);
	// lambda 0: a neighbour straight behind does not count.
	p.fov_weight = 0.0f;
	THR_EXPECT_VEC(thr_anticipation(&s, nb, 1, &p), 0.0f, 0.0f, 0.0f);
	// From the side: j at (0,-4) closing at (0,2), cos phi = 0, w = 0.75
	// with lambda 0.5; F = (0, 0.2223227) * 0.75 = (0, 0.1667420), no side
	// push (ahead = h.(p_j - p_i) = 0 is not > 0).
	p.fov_weight = 0.5f;
	thr_neighbor side[1] = {other(0, -4, 0, 2)};
	THR_EXPECT_VEC(thr_anticipation(&s, side, 1, &p), 0.0f, 0.1667420f, TOL);
}

// ---------------------------------------------------------------------------
// Two walkers head-on in a 2 m corridor
// ---------------------------------------------------------------------------

/// The walker of the built-in scenes before issue 32 (hallway's; the
/// validation's `walker`, tests/validation/pedestrians.py): the hybrid
/// blend of wall feelers (weight 3, 1.5 m, 45 degrees), separation (weight
/// 3, 1 m) and unaligned avoidance (weight 2, 1.5 s, 0.8 m, neighbours
/// within 4 m) as priority slots, then arrive (slow radius 2 m); or the
/// same with its unaligned avoidance slot turned into anticipation
/// (neighbours within 4 m, default parameters).
static throng_controller corridor_controller(bool anticipation)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot walls = throng_slot_default_def(THRONG_WALL_AVOID);
	walls.priority = true;
	walls.weight = 3.0f;
	walls.params.look_ahead = 1.5f;
	walls.params.feeler_angle = 0.7853982f;
	throng_controller_add(&c, walls);
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.priority = true;
	sep.weight = 3.0f;
	sep.params.neighbor_radius = 1.0f;
	throng_controller_add(&c, sep);
	throng_slot avoid = throng_slot_default_def(THRONG_UNALIGNED_AVOID);
	avoid.priority = true;
	avoid.weight = 2.0f;
	avoid.params.max_prediction = 1.5f;
	avoid.params.avoid_radius = 0.8f;
	avoid.params.neighbor_radius = 4.0f;
	throng_controller_add(&c, avoid);
	throng_slot to = throng_slot_default_def(THRONG_ARRIVE);
	to.params.target = THRONG_TARGET_POINT;
	to.params.slow_radius = 2.0f;
	throng_controller_add(&c, to);
	for (uint32_t k = 0; anticipation && k < c.slot_count; ++k) {
		if (c.slots[k].kind == THRONG_UNALIGNED_AVOID) {
			throng_slot s = throng_slot_default_def(THRONG_ANTICIPATION);
			s.priority = true;
			s.params.neighbor_radius = 4.0f;
			c.slots[k] = s;
		}
	}
	return c;
}

typedef struct corridor_run {
	float dist[2];  ///< each walker's distance to its goal after the run (m)
	float mean_speed; ///< mean speed over the last second (m/s)
	float x[2], y[2];
	float y_pass[2];  ///< each walker's y when their x order flips (they pass)
} corridor_run;

/// Walls at y = -1 and y = 1 from x = -10 to 10; walker 0 from (-start,0)
/// to (8,0), walker 1 from (start,0) to (-8,0), at rest facing each other:
/// a dead head-on course on the centre line. 20 s at dt 1/60.
static corridor_run corridor(bool anticipation, throng_engine engine, float start)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-15.0f, -5.0f};
	def.bounds_max = (throng_vec2){15.0f, 5.0f};
	def.bounds_mode = THRONG_BOUNDS_OPEN;
	def.dt = 1.0f / 60.0f;
	def.capacity = 8;
	def.engine = engine;
	def.threads = 1;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	for (int side = -1; side <= 1; side += 2) {
		cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-10.0f, (float)side}, (throng_vec2){10.0f, (float)side}, NULL),
		             THRONG_OK, "%s", throng_last_error());
	}
	throng_controller ctl = corridor_controller(anticipation);
	uint32_t arch;
	cr_assert_eq(throng_world_add_archetype(w, &ctl, &arch), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a[2];
	for (int k = 0; k < 2; ++k) {
		const float dir = k == 0 ? 1.0f : -1.0f;
		a[k] = throng_agent_default_def(); // the walker's body: 1.3 m/s, 4 m/s^2, radius 0.3 m
		a[k].max_speed = 1.3f;
		a[k].max_force = 4.0f;
		a[k].radius = 0.3f;
		a[k].position = (throng_vec2){-dir * start, 0.0f};
		a[k].target = (throng_vec2){dir * 8.0f, 0.0f};
		a[k].heading = (throng_vec2){dir, 0.0f};
		a[k].archetype = arch;
	}
	cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
	corridor_run run = {{0}, 0.0f, {0}, {0}, {NAN, NAN}};
	const int steps = 1200;
	for (int t = 0; t < steps; ++t) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		throng_agent_state s0, s1;
		throng_world_get_agent(w, 0, &s0);
		throng_world_get_agent(w, 1, &s1);
		if (isnan(run.y_pass[0]) && s0.position.x >= s1.position.x) {
			run.y_pass[0] = s0.position.y;
			run.y_pass[1] = s1.position.y;
		}
		if (t >= steps - 60) {
			for (uint32_t id = 0; id < 2; ++id) {
				throng_agent_state st;
				throng_world_get_agent(w, id, &st);
				run.mean_speed += hypotf(st.velocity.x, st.velocity.y) / 120.0f;
			}
		}
	}
	for (uint32_t id = 0; id < 2; ++id) {
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
		run.dist[id] = hypotf(st.position.x - a[id].target.x, st.position.y - a[id].target.y);
		run.x[id] = st.position.x;
		run.y[id] = st.position.y;
	}
	throng_world_destroy(w);
	return run;
}

static void log_run(const char* what, const corridor_run* r)
{
	cr_log_info("%s: passing at y = %.3f (walker 0) and %.3f (walker 1); walker 0 at (%.3f, %.3f), %.3f m from its "
	            "goal; walker 1 at (%.3f, %.3f), %.3f m; mean speed over the last second %.3f m/s",
	            what, (double)r->y_pass[0], (double)r->y_pass[1], (double)r->x[0], (double)r->y[0], (double)r->dist[0],
	            (double)r->x[1], (double)r->y[1], (double)r->dist[1], (double)r->mean_speed);
}

Test(anticipation, two_walkers_pass_in_a_2m_corridor)
{
	for (int k = 0; k < 2; ++k) {
		// 12 m apart, then 1 m apart (stopped face to face at the start).
		const float start = k == 0 ? 6.0f : 0.5f;
		corridor_run s = corridor(true, THRONG_ENGINE_SCALAR, start);
		log_run(k == 0 ? "anticipation, 12 m apart" : "anticipation, 1 m apart", &s);
		// Both arrive (arrive slows inside 2 m; 14 m at 1.3 m/s take 11 s).
		cr_expect_lt(s.dist[0], 0.5f, "start %g: walker 0 is %.3f m from its goal", (double)start, (double)s.dist[0]);
		cr_expect_lt(s.dist[1], 0.5f, "start %g: walker 1 is %.3f m from its goal", (double)start, (double)s.dist[1]);
		// They pass keeping right: walker 0 (walking +x) below the centre
		// line, walker 1 (walking -x) above it.
		cr_expect_lt(s.y_pass[0], 0.0f, "start %g: walker 0 passes at y = %g", (double)start, (double)s.y_pass[0]);
		cr_expect_gt(s.y_pass[1], 0.0f, "start %g: walker 1 passes at y = %g", (double)start, (double)s.y_pass[1]);
		// The SIMD engine computes the same bits.
		corridor_run v = corridor(true, THRONG_ENGINE_SIMD, start);
		for (int j = 0; j < 2; ++j) {
			cr_expect(s.x[j] == v.x[j] && s.y[j] == v.y[j], "walker %d: scalar (%a, %a), simd (%a, %a)", j,
			          (double)s.x[j], (double)s.y[j], (double)v.x[j], (double)v.y[j]);
		}
		corridor_run old = corridor(false, THRONG_ENGINE_SCALAR, start);
		log_run(k == 0 ? "unaligned avoidance, 12 m apart" : "unaligned avoidance, 1 m apart", &old);
	}
}

// ---------------------------------------------------------------------------
// Checks, scenario-file keys, saving
// ---------------------------------------------------------------------------

static void expect_rejected(throng_behavior_params p, const char* field)
{
	throng_world_def def = throng_world_default_def();
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_default_def(THRONG_ANTICIPATION);
	s.params = p;
	throng_controller_add(&c, s);
	uint32_t arch;
	cr_expect_eq(throng_world_add_archetype(w, &c, &arch), THRONG_ERR_INVALID_ARGUMENT, "%s accepted", field);
	cr_expect(strstr(throng_last_error(), field) != NULL, "message \"%s\" does not name %s", throng_last_error(),
	          field);
	throng_world_destroy(w);
}

Test(anticipation, bad_parameters_are_named)
{
	throng_behavior_params p = throng_behavior_default_def();
	p.fov_weight = 1.5f;
	expect_rejected(p, "params.fov_weight");
	p = throng_behavior_default_def();
	p.fov_weight = NAN;
	expect_rejected(p, "params.fov_weight");
	p = throng_behavior_default_def();
	p.side_bias = -1.25f;
	expect_rejected(p, "params.side_bias");
	p = throng_behavior_default_def();
	p.ttc_strength = 0.0f;
	expect_rejected(p, "params.ttc_strength");
	p = throng_behavior_default_def();
	p.ttc_horizon = INFINITY;
	expect_rejected(p, "params.ttc_horizon");
	p = throng_behavior_default_def();
	p.ttc_max_time = -1.0f;
	expect_rejected(p, "params.ttc_max_time");
	// Other kinds never read these fields: a seek slot with them out of
	// range is accepted.
	throng_world_def def = throng_world_default_def();
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_default_def(THRONG_SEEK);
	s.params.side_bias = 7.0f;
	throng_controller_add(&c, s);
	uint32_t arch;
	cr_expect_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	throng_world_destroy(w);
}

static const char* const anticipation_yaml = "archetypes:\n"
                                             "  a:\n"
                                             "    slots:\n"
                                             "      - {kind: anticipation, side_bias: -0.25, fov_weight: 1}\n"
                                             "      - {kind: seek}\n"
                                             "groups:\n"
                                             "  g:\n"
                                             "    count: 3\n"
                                             "    archetype: a\n"
                                             "    spawn: {shape: line, from: [0, 0], to: [1, 0]}\n";

Test(anticipation, scenario_keys_load_and_save)
{
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("a.yaml", anticipation_yaml, strlen(anticipation_yaml), NULL, NULL, NULL, &s),
	             THRONG_OK, "%s", throng_last_error());
	char* text = NULL;
	cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK, "%s", throng_last_error());
	// The anticipation slot's keys are written, with the defaults resolved;
	// the seek slot has none of them (one of each key in the whole text).
	const char* keys[] = {"side_bias: -0.25", "fov_weight: 1", "ttc_strength: 1.5", "ttc_horizon: 3",
	                      "ttc_max_time: 999"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		const char* at = strstr(text, keys[k]);
		cr_expect(at != NULL, "saved text lacks \"%s\":\n%s", keys[k], text);
		cr_expect(at == NULL || strstr(at + 1, keys[k]) == NULL, "\"%s\" written twice", keys[k]);
	}
	free(text);
	throng_scene_destroy(s);
	// Out of range: the reader names the key and the range.
	const char* bad = "archetypes:\n"
	                  "  a:\n"
	                  "    slots:\n"
	                  "      - {kind: anticipation, side_bias: 2}\n"
	                  "groups:\n"
	                  "  g:\n"
	                  "    count: 3\n"
	                  "    archetype: a\n"
	                  "    spawn: {shape: line, from: [0, 0], to: [1, 0]}\n";
	cr_expect_eq(throng_scene_load_memory("b.yaml", bad, strlen(bad), NULL, NULL, NULL, &s), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect(strstr(throng_last_error(), "side_bias") != NULL && strstr(throng_last_error(), "-1 to 1") != NULL, "%s",
	          throng_last_error());
}

Test(anticipation, saved_builtins_write_it_where_they_use_it)
{
	// hallway, crossing and bottleneck walk as
	// throng_controller_pedestrian_def(), so `throng save` writes its
	// anticipation slot (side_bias 1, ttc_strength 0.5); the others use
	// none and their saved files keep none of its keys.
	const char* names[] = {"hallway", "crossing", "bottleneck", "field", "charge", "flock"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		throng_scene_def o = throng_scene_default_def();
		o.agents = 50;
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_open(names[k], &o, &s), THRONG_OK, "%s: %s", names[k], throng_last_error());
		char* text = NULL;
		cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK);
		if (k < 3) {
			cr_expect(strstr(text, "kind: anticipation") != NULL && strstr(text, "side_bias: 1}") != NULL &&
			              strstr(text, "ttc_strength: 0.5,") != NULL,
			          "%s", names[k]);
		} else {
			cr_expect(strstr(text, "ttc_") == NULL && strstr(text, "side_bias") == NULL &&
			              strstr(text, "fov_weight") == NULL && strstr(text, "anticipation") == NULL,
			          "%s", names[k]);
		}
		free(text);
		throng_scene_destroy(s);
	}
}
