// SPDX-License-Identifier: MIT
// Spawns without overlap: the placement helper (core/scene/scenario_spawn.h).
//
// placement/*: the darts keep an undisturbed agent's first draw; the
// lattice places what the darts miss, near the first dart or anywhere in
// the rectangle; and no room left is an error naming the agent.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "scenario_spawn.h"
#include "throng/throng.h"

/// The smallest distance between two of the n points, over all pairs.
static double closest_pair(const throng_vec2* p, uint32_t n)
{
	double best = INFINITY;
	for (uint32_t i = 0; i < n; ++i) {
		for (uint32_t j = i + 1u; j < n; ++j) {
			double dx = (double)p[i].x - p[j].x, dy = (double)p[i].y - p[j].y;
			double d = sqrt(dx * dx + dy * dy);
			best = d < best ? d : best;
		}
	}
	return best;
}

Test(placement, an_undisturbed_agent_keeps_its_first_draw)
{
	// Two agents far apart in a 100 m square: each sits at its first draw,
	// lo + (hi - lo) u from draws 0 and 1 of (key, id) on the spawn stream.
	uint32_t key = thr_rng_key(9);
	const throng_vec2 lo = {-50.0f, 0.0f}, hi = {50.0f, 100.0f};
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "test", lo, hi, 2, 0.3f), THRONG_OK);
	throng_vec2 out[2];
	cr_assert_eq(thr_spawn_scatter(&sp, key, 40, 1, 0.3f, lo, hi, out), THRONG_OK);
	cr_assert_eq(thr_spawn_scatter(&sp, key, 41, 1, 0.3f, lo, hi, out + 1), THRONG_OK);
	for (uint32_t k = 0; k < 2; ++k) {
		float x = lo.x + 100.0f * thr_bits_to_unit(thr_rng_bits(key, 40u + k, 0, THR_STREAM_SPAWN));
		float y = lo.y + 100.0f * thr_bits_to_unit(thr_rng_bits(key, 40u + k, 1, THR_STREAM_SPAWN));
		cr_expect(out[k].x == x && out[k].y == y, "agent %u at (%g, %g), its first draw (%g, %g)", 40u + k,
		          (double)out[k].x, (double)out[k].y, (double)x, (double)y);
	}
	cr_expect_eq(sp.fallbacks, 0u);
	thr_spawn_free(&sp);
}

Test(placement, dense_rectangle_falls_back_to_the_lattice)
{
	// 64 discs of radius 0.5 in a 10 x 10 m square with an obstacle in
	// the middle: 0.57 of the area covered, where random darts (jammed at
	// 0.547) miss more and more, so the lattice places the last ones.
	// Nobody overlaps, all lie inside, and the same key places them the
	// same way.
	enum { N = 64 };
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {10.0f, 10.0f};
	throng_vec2 out[2][N];
	for (int run = 0; run < 2; ++run) {
		thr_spawn sp;
		cr_assert_eq(thr_spawn_init(&sp, "test", lo, hi, N + 1, 1.0f), THRONG_OK);
		thr_spawn_block(&sp, (throng_vec2){5.0f, 5.0f}, 1.0f);
		cr_assert_eq(thr_spawn_scatter(&sp, 77u, 0, N, 0.5f, lo, hi, out[run]), THRONG_OK, "%s", throng_last_error());
		cr_expect_gt(sp.fallbacks, 0u, "the darts never missed: the fallback went untested");
		thr_spawn_free(&sp);
	}
	cr_expect_eq(memcmp(out[0], out[1], sizeof out[0]), 0);
	cr_expect_geq(closest_pair(out[0], N), 1.0, "%.6f", closest_pair(out[0], N));
	for (uint32_t k = 0; k < N; ++k) {
		throng_vec2 p = out[0][k];
		cr_expect(p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y, "disc %u at (%g, %g)", k, (double)p.x,
		          (double)p.y);
		cr_expect_geq(hypot(p.x - 5.0, p.y - 5.0), 1.5, "disc %u at (%g, %g) overlaps the obstacle", k, (double)p.x,
		              (double)p.y);
	}
}

Test(placement, the_whole_lattice_takes_what_windows_miss)
{
	// A 1 km line (a rectangle of height 0) taken by discs of radius 0.5
	// every 1.02 m up to 998.6 m: the one free spot is its far end, which
	// darts hit with odds of 1 in 2,500 a try. The agent's darts miss, its
	// first lands far away, so the window around it is full too, and the
	// scan of the whole lattice places it at the far end.
	enum { BLOCKERS = 980 };
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {1000.0f, 0.0f};
	const uint32_t key = 3u;
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "line", lo, hi, BLOCKERS + 1, 0.5f), THRONG_OK);
	for (uint32_t k = 0; k < BLOCKERS; ++k) {
		thr_spawn_block(&sp, (throng_vec2){1.02f * (float)k, 0.0f}, 0.5f);
	}
	throng_vec2 out;
	cr_assert_eq(thr_spawn_scatter(&sp, key, 0, 1, 0.5f, lo, hi, &out), THRONG_OK, "%s", throng_last_error());
	float dart = 1000.0f * thr_bits_to_unit(thr_rng_bits(key, 0, 0, THR_STREAM_SPAWN));
	cr_assert_lt(dart, 990.0f, "the first dart fell at %g m, near the free end: pick another key", (double)dart);
	cr_expect_eq(sp.fallbacks, 1u);
	cr_expect(out.x >= 999.5f && out.x <= 1000.0f && out.y == 0.0f, "placed at (%g, %g)", (double)out.x,
	          (double)out.y);
	thr_spawn_free(&sp);
}

Test(placement, no_room_is_an_error_naming_the_agent)
{
	// A 0.5 m square holds one disc of radius 0.5, not two (its diagonal
	// is 0.71 m).
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {0.5f, 0.5f};
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "tiny", lo, hi, 8, 0.5f), THRONG_OK);
	throng_vec2 out[8];
	cr_assert_eq(thr_spawn_scatter(&sp, 5u, 0, 8, 0.5f, lo, hi, out), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(sp.count, 1u, "a 0.5 m square took %u discs of 1 m diameter", sp.count);
	cr_expect_not_null(strstr(throng_last_error(), "scenario tiny: no room for agent 1"), "%s", throng_last_error());
	thr_spawn_free(&sp);
}
