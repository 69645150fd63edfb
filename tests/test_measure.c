// SPDX-License-Identifier: MIT
// Measurement lines and areas (include/throng/measure.h): crossings with
// their interpolated times and directions, flows over windows, classic and
// Voronoi density on states worked by hand, and the errors that name the
// field.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/measure.h"

static throng_measure* make_set(const throng_measure_def* def)
{
	throng_measure* m = NULL;
	cr_assert_eq(throng_measure_create(def, &m), THRONG_OK, "%s", throng_last_error());
	return m;
}

/// Feeds agents ids[0..n) at (x, y) at time t, without velocities.
static void feed_xy(throng_measure* m, double t, uint32_t n, const uint32_t* ids, const float* x, const float* y)
{
	throng_measure_state s = {t, n, ids, x, y, NULL, NULL};
	cr_assert_eq(throng_measure_feed(m, &s), THRONG_OK, "%s", throng_last_error());
}

/// One agent (id 7) along x at y = 0 through the given states.
static void walk_x(throng_measure* m, const double* t, const float* x, int n)
{
	const uint32_t id = 7;
	const float y = 0.0f;
	for (int k = 0; k < n; ++k) {
		feed_xy(m, t[k], 1, &id, &x[k], &y);
	}
}

static const throng_crossing* crossings(const throng_measure* m, uint32_t line, size_t* n)
{
	const throng_crossing* c = NULL;
	cr_assert_eq(throng_measure_line_crossings(m, line, &c, n), THRONG_OK, "%s", throng_last_error());
	return c;
}

Test(measure_line, two_agents_interpolated_times)
{
	// The line (0,-10) -> (0,10): d = (0, 20), left is perp(d) = (-20, 0),
	// the side x < 0. Agent 3 goes from x = -1 to x = 3 in the step
	// [0, 0.5]: c = -20 x goes 20 -> -60, f = 20/80 = 1/4, t = 0.125, to the
	// right (-1). Agent 9 from x = 2 to -2 at y = 5: f = 1/2, t = 0.25, to
	// the left (+1).
	throng_measure* m = make_set(NULL);
	uint32_t line = 99;
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, -10}, (throng_vec2){0, 10}, &line), THRONG_OK);
	cr_assert_eq(line, 0u);
	const uint32_t ids[2] = {9, 3};
	const float x0[2] = {2, -1}, y0[2] = {5, 0}, x1[2] = {-2, 3};
	feed_xy(m, 0.0, 2, ids, x0, y0);
	feed_xy(m, 0.5, 2, ids, x1, y0);
	size_t n = 0;
	const throng_crossing* c = crossings(m, 0, &n);
	cr_assert_eq(n, 2u);
	cr_assert_eq(c[0].id, 3u);
	cr_assert_eq(c[0].time, 0.125);
	cr_assert_eq(c[0].direction, -1);
	cr_assert_eq(c[0].x, 0.0);
	cr_assert_eq(c[1].id, 9u);
	cr_assert_eq(c[1].time, 0.25);
	cr_assert_eq(c[1].direction, 1);
	cr_assert_eq(c[1].y, 5.0);
	throng_line_flow f;
	cr_assert_eq(throng_measure_line_flow(m, 0, 0.0, 1.0, &f), THRONG_OK);
	cr_assert_eq(f.left, 1u);
	cr_assert_eq(f.right, 1u);
	cr_assert_eq(f.first_passings, 2u);
	cr_assert_eq(f.flow_total, 2.0);
	cr_assert_eq(f.flow_net, 0.0);
	// [0.2, 0.5): only agent 9's crossing at 0.25, 1 in 0.3 s.
	cr_assert_eq(throng_measure_line_flow(m, 0, 0.2, 0.5, &f), THRONG_OK);
	cr_assert_eq(f.left, 1u);
	cr_assert_eq(f.right, 0u);
	cr_assert_float_eq(f.flow_left, 1.0 / 0.3, 1e-12);
	// [0.125, 0.25): half-open, agent 3's alone.
	cr_assert_eq(throng_measure_line_flow(m, 0, 0.125, 0.25, &f), THRONG_OK);
	cr_assert_eq(f.right, 1u);
	cr_assert_eq(f.left, 0u);
	throng_measure_destroy(m);
}

Test(measure_line, back_and_forth_counts_both_directions)
{
	// A vertical line at x = 0; the agent goes -1, 1, -1, 1 at t = 0..3:
	// crossings at 0.5 (right), 1.5 (left), 2.5 (right); its first passing
	// is the one at 0.5.
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, -1}, (throng_vec2){0, 1}, NULL), THRONG_OK);
	const double t[4] = {0, 1, 2, 3};
	const float x[4] = {-1, 1, -1, 1};
	walk_x(m, t, x, 4);
	size_t n = 0;
	const throng_crossing* c = crossings(m, 0, &n);
	cr_assert_eq(n, 3u);
	cr_assert_eq(c[0].time, 0.5);
	cr_assert_eq(c[0].direction, -1);
	cr_assert_eq(c[1].time, 1.5);
	cr_assert_eq(c[1].direction, 1);
	cr_assert_eq(c[2].time, 2.5);
	cr_assert_eq(c[2].direction, -1);
	throng_line_flow f;
	cr_assert_eq(throng_measure_line_flow(m, 0, 0.0, 4.0, &f), THRONG_OK);
	cr_assert_eq(f.right, 2u);
	cr_assert_eq(f.left, 1u);
	cr_assert_eq(f.first_passings, 1u);
	cr_assert_eq(f.flow_net, -0.25);
	cr_assert_eq(throng_measure_line_flow(m, 0, 1.0, 4.0, &f), THRONG_OK);
	cr_assert_eq(f.first_passings, 0u);
	throng_measure_destroy(m);
}

Test(measure_line, a_step_ending_on_the_line_counts_once)
{
	// -1 -> 0 (on the line) -> 1: one crossing, at t = 1 when it was on it.
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, -1}, (throng_vec2){0, 1}, NULL), THRONG_OK);
	const double t[3] = {0, 1, 2};
	const float x[3] = {-1, 0, 1};
	walk_x(m, t, x, 3);
	size_t n = 0;
	const throng_crossing* c = crossings(m, 0, &n);
	cr_assert_eq(n, 1u);
	cr_assert_eq(c[0].time, 1.0);
	cr_assert_eq(c[0].direction, -1);
	throng_measure_destroy(m);

	// -1 -> 0 -> 0 -> -1: touches the line and turns back: none. Then
	// -1 -> 0 and the run ends on the line: none (PedPy's rule).
	m = make_set(NULL);
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, -1}, (throng_vec2){0, 1}, NULL), THRONG_OK);
	const double t2[5] = {0, 1, 2, 3, 4};
	const float x2[5] = {-1, 0, 0, -1, 0};
	walk_x(m, t2, x2, 5);
	crossings(m, 0, &n);
	cr_assert_eq(n, 0u);
	throng_measure_destroy(m);
}

Test(measure_line, only_the_segment_counts)
{
	// The segment (0,0) -> (0,1); walks at y = 0 (its end: counts) and at
	// y = 5 (past it: does not).
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, 0}, (throng_vec2){0, 1}, NULL), THRONG_OK);
	const uint32_t ids[2] = {0, 1};
	const float xa[2] = {-1, -1}, xb[2] = {1, 1}, y[2] = {0, 5};
	feed_xy(m, 0.0, 2, ids, xa, y);
	feed_xy(m, 1.0, 2, ids, xb, y);
	size_t n = 0;
	const throng_crossing* c = crossings(m, 0, &n);
	cr_assert_eq(n, 1u);
	cr_assert_eq(c[0].id, 0u);
	// An agent missing from a state has no path across the gap.
	const float xc[1] = {-1}, yc[1] = {0};
	feed_xy(m, 2.0, 1, &ids[1], xc, yc); // id 1 alone, at x = -1
	feed_xy(m, 3.0, 1, &ids[0], xc, yc); // id 0, last seen at x = 1 two states ago
	crossings(m, 0, &n);
	cr_assert_eq(n, 1u);
	throng_measure_destroy(m);
}

/// A 10 x 10 lattice at spacing 0.5 m in [0, 5]^2, every agent moving at
/// (vx, 0).
static void feed_lattice(throng_measure* m, float vx)
{
	uint32_t ids[100];
	float x[100], y[100], v[100], z[100];
	for (int k = 0; k < 100; ++k) {
		ids[k] = (uint32_t)k;
		x[k] = 0.5f * (float)(k % 10) + 0.25f;
		y[k] = 0.5f * (float)(k / 10) + 0.25f;
		v[k] = vx;
		z[k] = 0.0f;
	}
	throng_measure_state s = {0.0, 100, ids, x, y, v, z};
	cr_assert_eq(throng_measure_feed(m, &s), THRONG_OK, "%s", throng_last_error());
}

static throng_area_sample last_sample(const throng_measure* m, uint32_t area)
{
	const throng_area_sample* s = NULL;
	size_t n = 0;
	cr_assert_eq(throng_measure_area_samples(m, area, &s, &n), THRONG_OK, "%s", throng_last_error());
	cr_assert_gt(n, 0u);
	return s[n - 1];
}

Test(measure_area, lattice_density_is_one_over_a_squared)
{
	// Spacing a = 0.5: 1/a^2 = 4 /m^2 both ways; the Voronoi cells are the
	// squares [i a, (i + 1) a] (their corners, 0.354 m away, are inside the
	// cut-off 12-gon's inradius 0.8 cos 15 deg = 0.773 m).
	throng_measure_def def = throng_measure_default_def();
	def.bounds_min = (throng_vec2){0, 0};
	def.bounds_max = (throng_vec2){5, 5};
	throng_measure* m = make_set(&def);
	// 0: [1, 4]^2 holds 6 x 6 agents in 9 m^2.
	cr_assert_eq(throng_measure_add_rect(m, (throng_vec2){1, 1}, (throng_vec2){4, 4}, NULL), THRONG_OK);
	// 1: an L, [1, 4]^2 less [2.5, 4]^2: 27 agents in 6.75 m^2.
	const throng_vec2 ell[6] = {{1, 1}, {4, 1}, {4, 2.5f}, {2.5f, 2.5f}, {2.5f, 4}, {1, 4}};
	cr_assert_eq(throng_measure_add_area(m, ell, 6, NULL), THRONG_OK, "%s", throng_last_error());
	// 2: [1.25, 3.75] x [1, 4], clockwise: its left and right edges run
	// through agents. Inside: the left edge's (x = 1.25) and four columns
	// more, 5 x 6 = 30 in 7.5 m^2; Voronoi: half cells at both edges,
	// 0.5 + 4 + 0.5 a row.
	const throng_vec2 cut[4] = {{1.25f, 1}, {1.25f, 4}, {3.75f, 4}, {3.75f, 1}};
	cr_assert_eq(throng_measure_add_area(m, cut, 4, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_measure_area_size(m, 0), 9.0);
	cr_assert_eq(throng_measure_area_size(m, 1), 6.75);
	cr_assert_eq(throng_measure_area_size(m, 2), 7.5);
	feed_lattice(m, 1.5f);
	const uint32_t inside[3] = {36, 27, 30};
	for (uint32_t a = 0; a < 3; ++a) {
		throng_area_sample s = last_sample(m, a);
		cr_assert_eq(s.inside, inside[a], "area %u: %u inside", a, s.inside);
		cr_assert_eq(s.with_speed, inside[a]);
		cr_assert_eq(s.density, 4.0, "area %u: %.17g", a, s.density);
		cr_assert_float_eq(s.voronoi_density, 4.0, 1e-9, "area %u: %.17g", a, s.voronoi_density);
		cr_assert_float_eq(s.mean_speed, 1.5, 1e-7);
		// sum |v| |V n M| / |M| = 1.5 (M is covered by cells of speed 1.5).
		cr_assert_float_eq(s.voronoi_speed, 1.5, 1e-9, "area %u: %.17g", a, s.voronoi_speed);
	}
	throng_area_means mean;
	cr_assert_eq(throng_measure_area_means(m, 0, 0.0, 0.0, &mean), THRONG_OK);
	cr_assert_eq(mean.samples, 1u);
	cr_assert_eq(mean.density, 4.0);
	cr_assert_eq(throng_measure_area_means(m, 0, 1.0, 2.0, &mean), THRONG_OK);
	cr_assert_eq(mean.samples, 0u);
	cr_assert_eq(mean.density, 0.0);
	throng_measure_destroy(m);
}

Test(measure_area, lone_agent_cell_is_the_cut_off)
{
	// One agent in 100 m x 100 m: classic and Voronoi density 1/10^4 (its
	// whole cell is inside); its cell is the cut-off 12-gon of radius R,
	// area 12 * R^2 sin(30 deg) / 2 = 3 R^2, which the Voronoi speed shows:
	// |v| * 3 R^2 / 10^4.
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_rect(m, (throng_vec2){0, 0}, (throng_vec2){100, 100}, NULL), THRONG_OK);
	const uint32_t id = 0;
	const float x = 50, y = 50, vx = 2, vy = 0;
	throng_measure_state s = {0.0, 1, &id, &x, &y, &vx, &vy};
	cr_assert_eq(throng_measure_feed(m, &s), THRONG_OK, "%s", throng_last_error());
	double r = (double)THRONG_MEASURE_CUTOFF_RADIUS;
	throng_area_sample a = last_sample(m, 0);
	cr_assert_eq(a.inside, 1u);
	cr_assert_eq(a.density, 1e-4);
	cr_assert_float_eq(a.voronoi_density, 1e-4, 1e-15);
	cr_assert_float_eq(a.voronoi_speed, 2.0 * 3.0 * r * r / 1e4, 1e-15, "%.17g", a.voronoi_speed);
	throng_measure_destroy(m);

	// At a corner of bounds [0, 100]^2 with a 2 m cut-off of 4 vertices
	// (cutoff_segments 1: a square rotated 45 deg, area 2 R^2 = 8), a
	// quarter of it is left: 2 m^2.
	throng_measure_def def = throng_measure_default_def();
	def.cutoff_radius = 2.0f;
	def.cutoff_segments = 1;
	def.bounds_min = (throng_vec2){0, 0};
	def.bounds_max = (throng_vec2){100, 100};
	m = make_set(&def);
	cr_assert_eq(throng_measure_add_rect(m, (throng_vec2){0, 0}, (throng_vec2){100, 100}, NULL), THRONG_OK);
	const float zero = 0.0f;
	throng_measure_state c = {0.0, 1, &id, &zero, &zero, &vx, &vy};
	cr_assert_eq(throng_measure_feed(m, &c), THRONG_OK, "%s", throng_last_error());
	a = last_sample(m, 0);
	cr_assert_eq(a.inside, 1u);
	cr_assert_float_eq(a.voronoi_density, 1e-4, 1e-15);
	cr_assert_float_eq(a.voronoi_speed, 2.0 * 2.0 / 1e4, 1e-15, "%.17g", a.voronoi_speed);
	throng_measure_destroy(m);
}

Test(measure_area, speed_from_displacement_without_velocities)
{
	// Two states 0.5 s apart, the agent 1 m further: 2 m/s in the second;
	// none in the first.
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_rect(m, (throng_vec2){-10, -10}, (throng_vec2){10, 10}, NULL), THRONG_OK);
	const uint32_t id = 4;
	const float x0 = 0, x1 = 1, y = 0;
	feed_xy(m, 1.0, 1, &id, &x0, &y);
	throng_area_sample a = last_sample(m, 0);
	cr_assert_eq(a.inside, 1u);
	cr_assert_eq(a.with_speed, 0u);
	feed_xy(m, 1.5, 1, &id, &x1, &y);
	a = last_sample(m, 0);
	cr_assert_eq(a.with_speed, 1u);
	cr_assert_eq(a.mean_speed, 2.0);
	throng_area_means mean;
	cr_assert_eq(throng_measure_area_means(m, 0, 0.0, 10.0, &mean), THRONG_OK);
	cr_assert_eq(mean.samples, 2u);
	cr_assert_eq(mean.mean_speed, 2.0); // over the samples with a speed
	cr_assert_eq(mean.density, 1.0 / 400.0);
	throng_measure_destroy(m);
}

Test(measure_area, coincident_agents_share_one_cell)
{
	// Two agents at one point: the lower id takes the cell, the other none,
	// so the Voronoi weight is 1, not 2; classic density counts both.
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_rect(m, (throng_vec2){-10, -10}, (throng_vec2){10, 10}, NULL), THRONG_OK);
	const uint32_t ids[2] = {5, 2};
	const float x[2] = {1, 1}, y[2] = {1, 1};
	feed_xy(m, 0.0, 2, ids, x, y);
	throng_area_sample a = last_sample(m, 0);
	cr_assert_eq(a.inside, 2u);
	cr_assert_float_eq(a.voronoi_density, 1.0 / 400.0, 1e-15);
	throng_measure_destroy(m);
}

Test(measure_world, feed_world_reads_the_view)
{
	throng_world_def wd = throng_world_default_def();
	wd.bounds_min = (throng_vec2){-50, -50};
	wd.bounds_max = (throng_vec2){50, 50};
	wd.dt = 0.5f;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&wd, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	uint32_t arch = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	thr_test_spawn(w, (throng_vec2){-0.5f, 0}, (throng_vec2){2, 0}, (throng_vec2){40, 0});
	throng_measure* m = make_set(NULL);
	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, 5}, (throng_vec2){0, -5}, NULL), THRONG_OK);
	cr_assert_eq(throng_measure_feed_world(m, w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_measure_feed_world(m, w), THRONG_OK, "%s", throng_last_error());
	// No force (an empty controller): 2 m/s for 0.5 s, -0.5 -> 0.5, across
	// the line (0,5) -> (0,-5) to its left (+x) at t = 0.25.
	size_t n = 0;
	const throng_crossing* cr = crossings(m, 0, &n);
	cr_assert_eq(n, 1u);
	cr_assert_eq(cr[0].direction, 1);
	cr_assert_float_eq(cr[0].time, 0.25, 1e-7);
	cr_assert_eq(throng_measure_states(m), 2u);
	throng_measure_destroy(m);
	throng_world_destroy(w);
}

/// `st` is THRONG_ERR_INVALID_ARGUMENT and the message names `what`.
static void expect_bad(throng_status st, const char* what)
{
	cr_assert_eq(st, THRONG_ERR_INVALID_ARGUMENT, "status %d for %s: %s", st, what, throng_last_error());
	cr_assert_not_null(strstr(throng_last_error(), what), "wanted %s in: %s", what, throng_last_error());
}

Test(measure_errors, bad_inputs_name_the_field)
{
	throng_measure* m = NULL;
	throng_measure_def def = throng_measure_default_def();
	def.cutoff_radius = NAN;
	expect_bad(throng_measure_create(&def, &m), "cutoff_radius");
	cr_assert_null(m);
	def = throng_measure_default_def();
	def.cutoff_segments = 65;
	expect_bad(throng_measure_create(&def, &m), "cutoff_segments");
	def = throng_measure_default_def();
	def.bounds_max = (throng_vec2){-1, 5};
	expect_bad(throng_measure_create(&def, &m), "bounds_max");
	def = throng_measure_default_def();
	def.wrap = true;
	expect_bad(throng_measure_create(&def, &m), "wrap");

	m = make_set(NULL);
	expect_bad(throng_measure_add_line(m, (throng_vec2){1, 2}, (throng_vec2){1, 2}, NULL), "zero length");
	expect_bad(throng_measure_add_line(m, (throng_vec2){NAN, 2}, (throng_vec2){1, 2}, NULL), "a.x");
	expect_bad(throng_measure_add_line(m, (throng_vec2){0, 2}, (throng_vec2){1, INFINITY}, NULL), "b.y");
	const throng_vec2 two[2] = {{0, 0}, {1, 0}};
	expect_bad(throng_measure_add_area(m, two, 2, NULL), "count");
	expect_bad(throng_measure_add_area(m, NULL, 3, NULL), "points");
	const throng_vec2 bowtie[4] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}};
	expect_bad(throng_measure_add_area(m, bowtie, 4, NULL), "simple");
	const throng_vec2 flat[3] = {{0, 0}, {1, 0}, {2, 0}};
	expect_bad(throng_measure_add_area(m, flat, 3, NULL), "points");
	const throng_vec2 dup[4] = {{0, 0}, {1, 0}, {1, 0}, {0, 1}};
	expect_bad(throng_measure_add_area(m, dup, 4, NULL), "points[2]");
	const throng_vec2 nan_pt[3] = {{0, 0}, {1, NAN}, {0, 1}};
	expect_bad(throng_measure_add_area(m, nan_pt, 3, NULL), "points[1].y");
	expect_bad(throng_measure_add_rect(m, (throng_vec2){0, 0}, (throng_vec2){0, 1}, NULL), "max.x");
	cr_assert_eq(throng_measure_line_count(m), 0u);
	cr_assert_eq(throng_measure_area_count(m), 0u);

	cr_assert_eq(throng_measure_add_line(m, (throng_vec2){0, -1}, (throng_vec2){0, 1}, NULL), THRONG_OK);
	const uint32_t ids[2] = {1, 1};
	const float x[2] = {0, 1}, y[2] = {0, 0}, bad_x[2] = {0, NAN};
	throng_measure_state s = {0.0, 2, ids, x, y, NULL, NULL};
	expect_bad(throng_measure_feed(m, &s), "id[1]");
	const uint32_t ok_ids[2] = {1, 2};
	s.id = ok_ids;
	s.x = bad_x;
	expect_bad(throng_measure_feed(m, &s), "x[1]");
	s.x = x;
	s.time = NAN;
	expect_bad(throng_measure_feed(m, &s), "time");
	s.time = 1.0;
	s.vx = x;
	expect_bad(throng_measure_feed(m, &s), "vy");
	s.vx = NULL;
	cr_assert_eq(throng_measure_feed(m, &s), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_measure_states(m), 1u);
	expect_bad(throng_measure_feed(m, &s), "time"); // not after 1.0
	expect_bad(throng_measure_add_line(m, (throng_vec2){5, -1}, (throng_vec2){5, 1}, NULL), "before the first feed");
	throng_line_flow f;
	expect_bad(throng_measure_line_flow(m, 0, 2.0, 1.0, &f), "t1");
	cr_assert_eq(throng_measure_line_flow(m, 3, 0.0, 1.0, &f), THRONG_ERR_NOT_FOUND);
	throng_area_means am;
	cr_assert_eq(throng_measure_area_means(m, 0, 0.0, 1.0, &am), THRONG_ERR_NOT_FOUND);
	throng_measure_destroy(m);
}
