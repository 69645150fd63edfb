// SPDX-License-Identifier: MIT
// The scalar reference behaviours, straight from SPEC.md.
//
// Where SPEC.md leaves a choice open, the choice is written next to the code
// ("Choice:") and tested in tests/test_behaviors.c. Each function is a fixed
// sequence of float operations; the SIMD passes repeat it lane by lane.
#include "behaviors.h"

#include "fmath.h"

/// limit(desired - v, max_force): the steering step shared by the
/// desired-velocity behaviours.
static vec2 steer_toward(const thr_self* s, vec2 desired)
{
	return v2_limit(v2_sub(desired, s->v), s->max_force);
}

vec2 thr_seek(const thr_self* s, vec2 t)
{
	vec2 to = v2_sub(t, s->p);
	return steer_toward(s, v2_resize(to, v2_length(to), s->max_speed));
}

vec2 thr_flee(const thr_self* s, vec2 t, float R, throng_flee_mode mode)
{
	vec2 away = v2_sub(s->p, t);
	float d = v2_length(away);
	vec2 desired;
	switch (mode) {
	case THRONG_FLEE_PANIC:
		// Zero force, not braking, outside the panic radius.
		if (d >= R) {
			return v2(0.0f, 0.0f);
		}
		desired = v2_resize(away, d, s->max_speed);
		break;
	case THRONG_FLEE_SAFE:
		// The "inverted arrive": full speed at the threat, 0 at R; beyond R
		// the desired velocity is 0 and the agent brakes.
		if (d >= R) {
			desired = v2(0.0f, 0.0f);
		} else {
			desired = v2_resize(away, d, s->max_speed * (1.0f - d / R));
		}
		break;
	case THRONG_FLEE_ALWAYS:
	default:
		desired = v2_resize(away, d, s->max_speed);
		break;
	}
	return steer_toward(s, desired);
}

vec2 thr_arrive(const thr_self* s, vec2 t, float slow_radius)
{
	vec2 to = v2_sub(t, s->p);
	float d = v2_length(to);
	float ratio = d / slow_radius;
	float speed = s->max_speed * (ratio < 1.0f ? ratio : 1.0f);
	return steer_toward(s, v2_resize(to, d, speed));
}

/// T = min(d / max_speed, T_max).
static float prediction_time(const thr_self* s, float d, float t_max)
{
	float t = d / s->max_speed;
	return t < t_max ? t : t_max;
}

vec2 thr_pursuit(const thr_self* s, vec2 tp, vec2 tv, float t_max)
{
	float d = v2_length(v2_sub(tp, s->p));
	float t = prediction_time(s, d, t_max);
	return thr_seek(s, v2_add(tp, v2_scale(tv, t)));
}

vec2 thr_evade(const thr_self* s, vec2 tp, vec2 tv, float R, float t_max)
{
	float d = v2_length(v2_sub(tp, s->p));
	vec2 desired = v2(0.0f, 0.0f);
	if (d < R) {
		float t = prediction_time(s, d, t_max);
		vec2 q = v2_add(tp, v2_scale(tv, t));
		vec2 away = v2_sub(s->p, q);
		desired = v2_resize(away, v2_length(away), s->max_speed * (1.0f - d / R));
	}
	return steer_toward(s, desired);
}

vec2 thr_wander(const thr_self* s, float* angle, float draw, const throng_behavior_params* prm, float dt)
{
	float a = thr_wander_turn(*angle, draw, prm->jitter, dt);
	*angle = a;
	vec2 c;
	float theta;
	if (prm->frame == THRONG_WANDER_WORLD) {
		// World frame: at rest there is no "ahead", so the circle is
		// centred on the agent (seed 002).
		if (v2_length(s->v) < THR_EPS) {
			c = s->p;
		} else {
			c = v2_add(s->p, v2_scale(s->h, prm->circle_distance));
		}
		theta = a;
	} else {
		// Local frame: the stored heading stands in for the velocity's
		// direction, also at rest.
		c = v2_add(s->p, v2_scale(s->h, prm->circle_distance));
		theta = thr_atan2f(s->h.y, s->h.x) + a;
	}
	float sn, cs;
	thr_sincosf(theta, &sn, &cs);
	vec2 target = v2_add(c, v2_scale(v2(cs, sn), prm->circle_radius));
	return thr_seek(s, target);
}

vec2 thr_wander_noise(const thr_self* s, float* angle, float noise, const throng_behavior_params* prm,
                      float dt)
{
	float a = thr_noise_turn(*angle, noise, prm->noise_amplitude, dt);
	*angle = a;
	float sn, cs;
	thr_sincosf(a, &sn, &cs);
	return steer_toward(s, v2_scale(v2(cs, sn), s->max_speed));
}

vec2 thr_obstacle_avoid(const thr_self* s, const thr_obstacle* obs, uint32_t n, const uint32_t* idx,
                        uint32_t n_idx, float look_ahead)
{
	(void)n;
	const float speed = v2_length(s->v);
	if (speed < THR_EPS) {
		return v2(0.0f, 0.0f);
	}
	vec2 h = v2_unit(s->v, speed);
	uint32_t best = UINT32_MAX;
	float best_along = 0.0f;
	for (uint32_t k = 0; k < n_idx; ++k) {
		uint32_t o = idx[k];
		vec2 to = v2_sub(obs[o].c, s->p);
		float along = v2_dot(to, h);
		if (along < 0.0f || along > look_ahead) {
			continue;
		}
		float lateral = v2_length(v2_sub(obs[o].c, v2_add(s->p, v2_scale(h, along))));
		if (!(lateral < obs[o].r + s->radius)) {
			continue;
		}
		// Ties in `along` go to the lower obstacle index, whatever order
		// the candidates came in (the grid may list one twice).
		if (best == UINT32_MAX || along < best_along || (along == best_along && o < best)) {
			best = o;
			best_along = along;
		}
	}
	if (best == UINT32_MAX) {
		return v2(0.0f, 0.0f);
	}
	vec2 side = v2_perp(h);
	float dside = v2_dot(side, v2_sub(obs[best].c, s->p));
	float sign = dside > 0.0f ? -1.0f : 1.0f; // exactly 0 (dead ahead): +1
	float urgency = 1.0f - best_along / look_ahead;
	return v2_scale(side, sign * s->max_speed * urgency);
}

/// Distance along a unit feeler from p to wall w, or -1 when it misses
/// within `len`. Parallel walls (|cross| < eps) are missed.
static float feeler_hit(vec2 p, vec2 dir, float len, const thr_wall* w)
{
	vec2 e = v2_sub(w->b, w->a);
	float denom = dir.x * e.y - dir.y * e.x;
	if (fabsf(denom) < THR_EPS) {
		return -1.0f;
	}
	vec2 ap = v2_sub(w->a, p);
	float t = (ap.x * e.y - ap.y * e.x) / denom;   // along the feeler (m)
	float u = (ap.x * dir.y - ap.y * dir.x) / denom; // along the wall, 0..1
	if (t < 0.0f || t > len || u < 0.0f || u > 1.0f) {
		return -1.0f;
	}
	return t;
}

vec2 thr_wall_avoid(const thr_self* s, const thr_wall* walls, const uint32_t* idx, uint32_t n_idx,
                    float look_ahead, float feeler_angle)
{
	// Choice (after Buckland's three whiskers): one feeler straight ahead of
	// length look_ahead and two at +-feeler_angle of half that length. For
	// each feeler the nearest wall it crosses pushes along that wall's
	// normal facing the agent with (1 - hit/len), the urgency of obstacle
	// avoidance, times the agent's speed towards the wall, -dot(v, n) (0
	// when it moves along or away from it); the feelers' pushes add up.
	// At full speed straight at a wall that is max_speed * urgency; it
	// fades with the closing speed, so a walker pressed against a wall (the
	// contact pass holds it there) is not pushed off at full strength every
	// step and does not shudder (docs/BEHAVIORS.md).
	const float speed = v2_length(s->v);
	if (speed < THR_EPS) {
		return v2(0.0f, 0.0f);
	}
	vec2 h = v2_unit(s->v, speed);
	float sn, cs;
	thr_sincosf(feeler_angle, &sn, &cs);
	vec2 dirs[3] = {h, thr_rotate(h, cs, sn), thr_rotate(h, cs, -sn)};
	float lens[3] = {look_ahead, look_ahead * 0.5f, look_ahead * 0.5f};
	vec2 force = v2(0.0f, 0.0f);
	for (int f = 0; f < 3; ++f) {
		uint32_t best = UINT32_MAX;
		float best_t = 0.0f;
		for (uint32_t k = 0; k < n_idx; ++k) {
			uint32_t w = idx[k];
			float t = feeler_hit(s->p, dirs[f], lens[f], &walls[w]);
			if (t < 0.0f) {
				continue;
			}
			if (best == UINT32_MAX || t < best_t || (t == best_t && w < best)) {
				best = w;
				best_t = t;
			}
		}
		if (best == UINT32_MAX) {
			continue;
		}
		vec2 n = v2_perp(v2_normalize(v2_sub(walls[best].b, walls[best].a)));
		if (v2_dot(n, v2_sub(s->p, walls[best].a)) < 0.0f) {
			n = v2_scale(n, -1.0f);
		}
		float urgency = 1.0f - best_t / lens[f];
		float closing = -v2_dot(s->v, n);
		closing = closing > 0.0f ? closing : 0.0f;
		force = v2_add(force, v2_scale(n, closing * urgency));
	}
	return force;
}

/// Whether neighbour j counts for a neighbour behaviour of agent s:
/// another agent, of the same group when asked, strictly within r.
static int counts(const thr_self* s, const thr_neighbor* j, const throng_behavior_params* prm, float* d2_out)
{
	*d2_out = 0.0f;
	if (j->id == s->id) {
		return 0;
	}
	if (prm->same_group_only && j->group != s->group) {
		return 0;
	}
	vec2 d = v2_sub(j->p, s->p);
	float d2 = v2_dot(d, d);
	*d2_out = d2;
	return d2 < prm->neighbor_radius * prm->neighbor_radius;
}

int thr_neighbor_counts(const thr_self* s, const thr_neighbor* j, const throng_behavior_params* prm)
{
	float d2;
	return counts(s, j, prm, &d2);
}

/// The next neighbour from nb[*k] on that counts for s (counts()), while
/// fewer than max_neighbors have been taken (*met, the first that count,
/// whatever they push): true with its index in *k and |p_j - p|^2 in *d2;
/// false when none is left. The neighbour slots loop
/// `for (k = 0, met = 0; taken(..., &k, &met, &d2); ++k)`.
static inline bool taken(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm,
                         uint32_t* k, uint32_t* met, float* d2)
{
	for (; *k < n; ++*k) {
		if (counts(s, &nb[*k], prm, d2)) {
			return (*met)++ != thr_max_neighbors(prm);
		}
	}
	return false;
}

vec2 thr_unaligned_avoid(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	vec2 push = v2(0.0f, 0.0f);
	float d2;
	for (uint32_t k = 0, met = 0; taken(s, nb, n, prm, &k, &met, &d2); ++k) {
		vec2 rp = v2_sub(nb[k].p, s->p);
		vec2 rv = v2_sub(nb[k].v, s->v);
		float rv2 = v2_dot(rv, rv);
		if (rv2 < THR_EPS) {
			continue;
		}
		float t = -v2_dot(rp, rv) / rv2;
		if (t < 0.0f || t > prm->max_prediction) {
			continue;
		}
		vec2 f = v2_add(rp, v2_scale(rv, t));
		float m = v2_length(f);
		if (m > prm->avoid_radius) {
			continue;
		}
		float u = 1.0f - m / prm->avoid_radius;
		// A dead head-on course (m ~ 0) has no "away" direction: step
		// aside along perp(normalize(rv)), which is opposite for the two
		// agents of a symmetric pair, so they part. Otherwise along f,
		// f * (max_speed u / m): one division.
		float mag = s->max_speed * u;
		vec2 step = m < THR_EPS ? v2_scale(v2_perp(v2_normalize(rv)), mag) : v2_resize(f, m, mag);
		push = v2_sub(push, step);
	}
	return v2_limit(push, s->max_force);
}

vec2 thr_separation(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	// Choice: a push (like unaligned avoidance, no "- v"), linear in the
	// overlap of the neighbour radius so it has no 1/d singularity:
	// sum of (p - p_j)/d * max_speed * (1 - d/r), limited to max_force.
	// Coincident agents (d < eps) part along x: the lower id goes -x.
	// Computed as (p - p_j) * (max_speed * (1/d - 1/r)), the same vector
	// with one division a neighbour (1/d; 1/r once), and a coincident
	// pair's (+-1, 0) * (max_speed * (1 - d * (1/r))).
	vec2 push = v2(0.0f, 0.0f);
	const float inv_r = 1.0f / prm->neighbor_radius;
	float d2;
	for (uint32_t k = 0, met = 0; taken(s, nb, n, prm, &k, &met, &d2); ++k) {
		float d = sqrtf(d2);
		vec2 f;
		if (d < THR_EPS) {
			f = v2(s->id < nb[k].id ? -1.0f : 1.0f, 0.0f);
			f = v2_scale(f, s->max_speed * (1.0f - d * inv_r));
		} else {
			f = v2_scale(v2_sub(s->p, nb[k].p), s->max_speed * (1.0f / d - inv_r));
		}
		push = v2_add(push, f);
	}
	return v2_limit(push, s->max_force);
}

/// One neighbour's anticipation force on s (thr_anticipation), or false
/// when it exerts none. d2 is |p_j - p_i|^2 as counts() computed it; rest
/// is 1 - |v|/max_speed, at least 0. simd/sweeps.c (anticipation_w)
/// repeats these operations in this order.
static bool anticipation_one(const thr_self* s, const thr_neighbor* j, float d2, float rest,
                             const throng_behavior_params* prm, vec2* out)
{
	// The paper's notation: x = p_i - p_j, v = v_i - v_j, r = r_i + r_j;
	// |x + v tau| = r is a tau^2 + 2 b tau + c = 0.
	const vec2 to = v2_sub(j->p, s->p);
	const vec2 x = v2_sub(s->p, j->p);
	const vec2 v = v2_sub(s->v, j->v);
	const float r = s->radius + j->radius;
	const float ahead = v2_dot(s->h, to);
	const float a = v2_dot(v, v);
	const float b = v2_dot(x, v);
	const float c = d2 - r * r;
	const float disc = b * b - a * c;
	// Choice: a pair already touching (c <= 0) gets no time-to-collision
	// force (the contact stage separates it), only the side push below.
	// With b >= 0 the smaller root (-b - sqrt(disc)) / a is negative (never
	// +0), so no collision ahead in time: skipping the root is exact.
	bool hit = c > 0.0f && !(a < THR_EPS) && disc > 0.0f && b < 0.0f;
	// Neither a collision course nor anyone in front within 2 r: no force.
	// sqrtf(d2) < 2 r (the root correctly rounded, 2 r a float) means
	// d2 < (2 r)^2 exactly, so d2 <= the rounded (2 r)(2 r): this test
	// drops only pairs the full one below drops.
	const float reach = 2.0f * r;
	if (!hit && !(ahead > 0.0f && d2 <= reach * reach)) {
		return false;
	}
	const float dist = sqrtf(d2);
	// Anisotropy: w = lambda + (1 - lambda)(1 + cos phi)/2, phi between the
	// heading and the direction to j (cos phi = 0 on a coincident pair).
	const float cosphi = dist > THR_EPS ? ahead / dist : 0.0f;
	const float wgt = prm->fov_weight + (1.0f - prm->fov_weight) * ((1.0f + cosphi) * 0.5f);
	float m = 0.0f; // |force|, limited to max_force
	vec2 f = v2(0.0f, 0.0f);
	if (hit) {
		const float sq = sqrtf(disc);
		const float tau = (-b - sq) / a; // the smaller root
		hit = tau > 0.0f && tau <= prm->ttc_max_time;
		if (hit) {
			// F = -dE/dx = -k e^(-tau/tau0) / (a tau^2) (2/tau + 1/tau0)
			// (v + (b v - a x)/sq): its direction is that of -g, g = (sq + b) v
			// - a x, and its size coef |g| / sq, which may overflow to +Inf
			// and is limited to max_force before use.
			const vec2 g = v2_sub(v2_scale(v, sq + b), v2_scale(x, a));
			const float gl = v2_length(g);
			hit = gl > 0.0f;
			if (hit) {
				const float e = thr_expf(-tau / prm->ttc_horizon);
				const float coef = prm->ttc_strength * e / (a * tau * tau) * (2.0f / tau + 1.0f / prm->ttc_horizon);
				const float mag = coef * gl / sq;
				m = mag < s->max_force ? mag : s->max_force; // NaN (Inf * 0) is max_force
				f = v2_scale(g, -m / gl);
			}
		}
	}
	// Side preference: each oncoming neighbour ahead (its velocity against
	// the agent's heading, v_j . h < 0) pushes to the agent's right,
	// -perp(h), by side_bias times its (weighted) force when on a collision
	// course; closer than 2 r and ahead without one (touching), by
	// side_bias * max_speed * (1 - d / 2r) * rest. Neighbours walking the
	// agent's way, or standing, push no side: a stream keeps its lanes
	// instead of drifting to the right as a block.
	const bool near = ahead > 0.0f && dist < reach;
	if (!hit && !near) {
		return false;
	}
	float side = 0.0f;
	if (ahead > 0.0f && v2_dot(j->v, s->h) < 0.0f) {
		side = hit ? m * wgt : s->max_speed * (1.0f - dist / reach) * rest * wgt;
	}
	side = prm->side_bias * side;
	const vec2 right = v2(s->h.y, -s->h.x);
	*out = v2_add(v2_scale(f, wgt), v2_scale(right, side));
	return true;
}

vec2 thr_anticipation(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	vec2 sum = v2(0.0f, 0.0f);
	const float rest0 = 1.0f - v2_length(s->v) / s->max_speed;
	const float rest = rest0 > 0.0f ? rest0 : 0.0f;
	float d2;
	for (uint32_t k = 0, met = 0; taken(s, nb, n, prm, &k, &met, &d2); ++k) {
		vec2 f;
		if (anticipation_one(s, &nb[k], d2, rest, prm, &f)) {
			sum = v2_add(sum, f);
		}
	}
	return v2_limit(sum, s->max_force);
}

/// The mean position (`velocity` false) or velocity of the neighbours that
/// count for s (counts()), the first cap of them in the order given, to
/// *mean; false when none counts.
static inline bool neighbor_mean(const thr_self* s, const thr_neighbor* nb, uint32_t n,
                                 const throng_behavior_params* prm, bool velocity, vec2* mean)
{
	vec2 sum = v2(0.0f, 0.0f);
	uint32_t count = 0;
	const uint32_t cap = thr_max_neighbors(prm);
	for (uint32_t k = 0; k < n && count < cap; ++k) {
		float d2;
		if (counts(s, &nb[k], prm, &d2)) {
			sum = v2_add(sum, velocity ? nb[k].v : nb[k].p);
			++count;
		}
	}
	if (count == 0) {
		return false;
	}
	*mean = v2_unit(sum, (float)count); // sum * (1 / count)
	return true;
}

vec2 thr_alignment(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	// Choice: Reynolds' velocity matching: steer towards the neighbours'
	// mean velocity (not a full-speed heading).
	vec2 mean;
	return neighbor_mean(s, nb, n, prm, true, &mean) ? steer_toward(s, mean) : v2(0.0f, 0.0f);
}

vec2 thr_cohesion(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	// Choice: the classic boid, seek the neighbours' centre.
	vec2 mean;
	return neighbor_mean(s, nb, n, prm, false, &mean) ? thr_seek(s, mean) : v2(0.0f, 0.0f);
}

float thr_headway(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm)
{
	// The spacing of JuPedSim's CollisionFreeSpeedModel::GetSpacing: the
	// centres' distance less l = r + r_j, for a neighbour in the corridor
	// of width 2 l ahead. Choices: the walking direction is the stored
	// heading (the engines' neighbour walk runs before the drive is
	// known); ahead is strict (dot > 0), so two agents on one point do not
	// stop each other, and so is the corridor (a neighbour that only
	// grazes the corridor's edge does not count).
	float least = INFINITY;
	const vec2 side = v2_perp(s->h);
	float d2;
	for (uint32_t k = 0, met = 0; taken(s, nb, n, prm, &k, &met, &d2); ++k) {
		vec2 d = v2_sub(nb[k].p, s->p);
		float l = s->radius + nb[k].radius;
		if (!(v2_dot(d, s->h) > 0.0f) || !(fabsf(v2_dot(d, side)) < l)) {
			continue;
		}
		float gap = sqrtf(d2) - l;
		least = gap < least ? gap : least;
	}
	float speed = least / prm->time_gap; // +Inf when nobody is ahead
	return speed > 0.0f ? speed : 0.0f;
}

vec2 thr_path_follow(const thr_self* s, vec2 waypoint, int final, float slow_radius)
{
	// Choice: waypoints are seeked in turn (the index moves on within
	// waypoint_radius, see thr_path_target) and the end of an open path is
	// arrived at, so the agent stops there instead of orbiting it.
	return final ? thr_arrive(s, waypoint, slow_radius) : thr_seek(s, waypoint);
}

/// The desired velocity component along one axis: +max_speed near the low
/// edge, -max_speed near the high edge (the nearer edge when the margins
/// overlap), or the current component when farther than margin from both.
static float contain_axis(float x, float lo, float hi, float margin, float ms, float cur, int* active)
{
	float dl = x - lo;
	float dh = hi - x;
	if (dl < margin || dh < margin) {
		*active = 1;
		return dl < dh ? ms : -ms;
	}
	return cur;
}

vec2 thr_bounds(const thr_self* s, vec2 lo, vec2 hi, float margin)
{
	// Choice (Reynolds' "containment", as in Shiffman's boundaries): inside
	// the margin the desired velocity keeps its component along the edge
	// and turns its component across it inwards at full speed, renormalised
	// to max_speed. Steering starts `margin` before the hard clamp, so an
	// agent turns back smoothly instead of sliding along the edge.
	int active = 0;
	vec2 desired = v2(contain_axis(s->p.x, lo.x, hi.x, margin, s->max_speed, s->v.x, &active),
	                  contain_axis(s->p.y, lo.y, hi.y, margin, s->max_speed, s->v.y, &active));
	if (!active) {
		return v2(0.0f, 0.0f);
	}
	return steer_toward(s, v2_resize(desired, v2_length(desired), s->max_speed));
}
