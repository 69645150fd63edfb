// SPDX-License-Identifier: MIT
// Anticipation's early rejection (core/behaviors.c, anticipation_one;
// simd/sweeps.c, anticipation_w; docs/PERFORMANCE.md, "The pedestrian's
// cost"): the engines skip the square roots, divisions and exponential for
// pairs with no collision course ahead in time (b >= 0) and nobody in front
// within 2 r (d2 > the rounded (2 r)^2). That must drop only pairs the full
// arithmetic drops: here the full arithmetic, as it was before the
// rejection (025ef48), against thr_anticipation bit for bit on pairs packed
// around each boundary; and both engines on a crowd whose vectors mix
// rejected and pushing lanes.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "behaviors.h"
#include "fmath.h"
#include "support.h"
#include "throng/behavior.h"
#include "throng/throng.h"

/// anticipation_one of 025ef48 (core/behaviors.c) with d4d3ffa's side rule
/// (oncoming neighbours only): every operation done for every pair.
static bool full_one(const thr_self* s, const thr_neighbor* j, float d2, float rest, const throng_behavior_params* prm,
                     vec2* out)
{
	const vec2 to = v2_sub(j->p, s->p);
	const vec2 x = v2_sub(s->p, j->p);
	const vec2 v = v2_sub(s->v, j->v);
	const float r = s->radius + j->radius;
	const float dist = sqrtf(d2);
	const float ahead = v2_dot(s->h, to);
	const float cosphi = dist > THR_EPS ? ahead / dist : 0.0f;
	const float wgt = prm->fov_weight + (1.0f - prm->fov_weight) * ((1.0f + cosphi) * 0.5f);
	const float a = v2_dot(v, v);
	const float b = v2_dot(x, v);
	const float c = d2 - r * r;
	const float disc = b * b - a * c;
	bool hit = c > 0.0f && !(a < THR_EPS) && disc > 0.0f;
	float m = 0.0f;
	vec2 f = v2(0.0f, 0.0f);
	if (hit) {
		const float sq = sqrtf(disc);
		const float tau = (-b - sq) / a;
		hit = tau > 0.0f && tau <= prm->ttc_max_time;
		if (hit) {
			const vec2 g = v2_sub(v2_scale(v, sq + b), v2_scale(x, a));
			const float gl = v2_length(g);
			hit = gl > 0.0f;
			if (hit) {
				const float e = thr_expf(-tau / prm->ttc_horizon);
				const float coef = prm->ttc_strength * e / (a * tau * tau) * (2.0f / tau + 1.0f / prm->ttc_horizon);
				const float mag = coef * gl / sq;
				m = mag < s->max_force ? mag : s->max_force;
				f = v2_scale(g, -m / gl);
			}
		}
	}
	const float reach = 2.0f * r;
	const bool near = ahead > 0.0f && dist < reach;
	if (!hit && !near) {
		return false;
	}
	float side = 0.0f;
	if (ahead > 0.0f && v2_dot(j->v, s->h) < 0.0f) { // the oncoming rule of d4d3ffa
		side = hit ? m * wgt : s->max_speed * (1.0f - dist / reach) * rest * wgt;
	}
	side = prm->side_bias * side;
	const vec2 right = v2(s->h.y, -s->h.x);
	*out = v2_add(v2_scale(f, wgt), v2_scale(right, side));
	return true;
}

/// thr_anticipation of 025ef48 for one neighbour inside the radius.
static vec2 full_force(const thr_self* s, const thr_neighbor* j, const throng_behavior_params* prm, bool* pushed)
{
	vec2 sum = v2(0.0f, 0.0f);
	const float rest0 = 1.0f - v2_length(s->v) / s->max_speed;
	const float rest = rest0 > 0.0f ? rest0 : 0.0f;
	const vec2 d = v2_sub(j->p, s->p);
	vec2 f;
	*pushed = full_one(s, j, v2_dot(d, d), rest, prm, &f);
	if (*pushed) {
		sum = v2_add(sum, f);
	}
	return v2_limit(sum, s->max_force);
}

/// A xorshift in [0, 1).
static float unit(uint64_t* st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return (float)(*st >> 40) / 16777216.0f;
}

/// One pair of the given kind: 0 at the reach (|d| within a few ulps of
/// 2 r, both at rest or moving alike), 1 on the b = 0 line (the relative
/// velocity across the offset, give or take a rounding), 2 touching
/// (|d| near r), 3 anything within 3 m.
static void make_pair(uint64_t* st, int kind, thr_self* s, thr_neighbor* j)
{
	const float ang = 6.2831853f * unit(st);
	const float hang = 6.2831853f * unit(st);
	s->p = v2(10.0f * unit(st) - 5.0f, 10.0f * unit(st) - 5.0f);
	s->h = v2(cosf(hang), sinf(hang));
	s->radius = 0.17f + 0.2f * unit(st);
	s->max_speed = 1.34f;
	s->max_force = 8.0f;
	s->id = 0;
	s->group = 0;
	j->radius = 0.17f + 0.2f * unit(st);
	j->id = 1;
	j->group = 0;
	const float r = s->radius + j->radius;
	const vec2 dir = v2(cosf(ang), sinf(ang));
	float dist = 3.0f * unit(st);
	if (kind == 0) {
		dist = 2.0f * r;
		for (int k = (int)(9.0f * unit(st)) - 4; k != 0; k += k > 0 ? -1 : 1) {
			dist = nextafterf(dist, k > 0 ? INFINITY : 0.0f);
		}
	} else if (kind == 2) {
		dist = r * (0.999f + 0.002f * unit(st));
	}
	j->p = v2_add(s->p, v2_scale(dir, dist));
	const float speed = 1.5f * unit(st);
	const vec2 across = v2(-dir.y, dir.x);
	vec2 rel = kind == 1 ? v2_scale(v2_add(across, v2_scale(dir, 1.0e-6f * (unit(st) - 0.5f))), speed)
	                     : v2_scale(v2(cosf(6.2831853f * unit(st)), sinf(6.2831853f * unit(st))), speed);
	if (kind == 0 && unit(st) < 0.5f) {
		rel = v2(0.0f, 0.0f); // moving alike: a = 0
	}
	j->v = v2(0.5f * unit(st), 0.5f * unit(st));
	s->v = v2_add(j->v, rel);
	if (v2_length(s->v) > s->max_speed) {
		s->v = v2_scale(s->v, 1.0f / (v2_length(s->v) / s->max_speed));
	}
}

Test(anticipation_cost, rejection_drops_only_what_the_full_arithmetic_drops)
{
	throng_behavior_params p = throng_behavior_default_def();
	p.neighbor_radius = 4.0f;
	p.ttc_strength = 0.5f;
	p.side_bias = 0.2f;
	uint64_t st = 0x9e3779b97f4a7c15ull;
	int pushed[4] = {0}, dropped[4] = {0};
	for (int n = 0; n < 200000; ++n) {
		const int kind = n % 4;
		thr_self s;
		thr_neighbor j;
		make_pair(&st, kind, &s, &j);
		bool push;
		const vec2 want = full_force(&s, &j, &p, &push);
		const vec2 got = thr_anticipation(&s, &j, 1, &p);
		if (memcmp(&want, &got, sizeof want) != 0) {
			cr_assert_fail("kind %d pair %d: s (%a, %a) v (%a, %a) h (%a, %a) r %a; j (%a, %a) v (%a, %a) r %a: "
			        "full (%a, %a), got (%a, %a)",
			        kind, n, (double)s.p.x, (double)s.p.y, (double)s.v.x, (double)s.v.y, (double)s.h.x, (double)s.h.y,
			        (double)s.radius, (double)j.p.x, (double)j.p.y, (double)j.v.x, (double)j.v.y, (double)j.radius,
			        (double)want.x, (double)want.y, (double)got.x, (double)got.y);
		}
		pushed[kind] += push;
		dropped[kind] += !push;
	}
	// Each family has pairs on both sides of its boundary.
	for (int k = 0; k < 4; ++k) {
		cr_log_info("kind %d: %d pushed, %d without force", k, pushed[k], dropped[k]);
		cr_expect_gt(pushed[k], 1000, "kind %d: %d pairs pushed", k, pushed[k]);
		cr_expect_gt(dropped[k], 1000, "kind %d: %d pairs without force", k, dropped[k]);
	}
}

/// A crowd of 0.6 m bodies with anticipation its only slot: the first half
/// on a lattice of pitch 1.19 m (just inside the side push's reach, 1.2 m),
/// every other agent there crossing at 1.2 m/s, the others at rest; the
/// second half at rest on a lattice of pitch 2.5 m, farther than the reach
/// from each other. One step on `engine`, the slot's force of every agent
/// into out.
static void lattice_forces(throng_engine engine, throng_vec2* out, uint32_t n)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-20.0f, -20.0f};
	def.bounds_max = (throng_vec2){20.0f, 20.0f};
	def.capacity = n;
	def.engine = engine;
	def.threads = 1;
	def.record_forces = true;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot a = throng_slot_default_def(THRONG_ANTICIPATION);
	a.params.neighbor_radius = 4.0f;
	a.params.side_bias = 0.2f;
	throng_controller_add(&c, a);
	uint32_t arch;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	throng_agent_def defs[256];
	cr_assert_leq(n, 256u);
	uint64_t st = 12345;
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def d = throng_agent_default_def();
		d.archetype = arch;
		d.radius = 0.3f;
		const bool dense = k < n / 2;
		d.position = dense ? (throng_vec2){1.19f * (float)(k % 16) - 9.0f, 1.19f * (float)(k / 16) - 9.0f}
		                   : (throng_vec2){2.5f * (float)(k % 16) - 19.0f, 2.5f * (float)(k / 16 - 8) + 1.5f};
		const float ang = 6.2831853f * unit(&st);
		d.heading = (throng_vec2){cosf(ang), sinf(ang)};
		if (dense && k % 2 == 1) {
			const float va = ang + 1.5707964f * (float)(k % 3);
			d.velocity = (throng_vec2){1.2f * cosf(va), 1.2f * sinf(va)};
		}
		defs[k] = d;
	}
	cr_assert_eq(throng_world_spawn(w, defs, n, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	for (uint32_t k = 0; k < n; ++k) {
		cr_assert_eq(throng_world_slot_force(w, k, 0, &out[k]), THRONG_OK, "%s", throng_last_error());
	}
	throng_world_destroy(w);
}

Test(anticipation_cost, engines_agree_where_lanes_mix)
{
	enum { N = 256 };
	throng_vec2 ref[N], wide[N];
	lattice_forces(THRONG_ENGINE_SCALAR, ref, N);
	lattice_forces(THRONG_ENGINE_SIMD, wide, N);
	uint32_t pushed = 0;
	for (uint32_t k = 0; k < N; ++k) {
		cr_expect(memcmp(&ref[k], &wide[k], sizeof ref[k]) == 0, "agent %u: scalar (%a, %a), SIMD (%a, %a)", k,
		          (double)ref[k].x, (double)ref[k].y, (double)wide[k].x, (double)wide[k].y);
		pushed += ref[k].x != 0.0f || ref[k].y != 0.0f;
	}
	// Some agents are pushed and some are not: vectors mixed lanes that
	// push with lanes whose every pair is rejected.
	cr_log_info("%u of %d agents pushed", pushed, N);
	cr_expect_gt(pushed, N / 4u, "%u of %d agents pushed", pushed, N);
	cr_expect_lt(pushed, N - N / 4u, "%u of %d agents pushed", pushed, N);
}
