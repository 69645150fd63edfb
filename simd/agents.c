// SPDX-License-Identifier: MIT
// The SIMD engine's block pass: 8 agents per vector, one per lane.
//
// A block runs the stages of the scalar pass (core/scalar_engine.c) under
// the same names: load_w, then for each distinct archetype in the block
// forces_w (every enabled slot on all 8 lanes with that archetype's
// parameters) and blend_w (kept on the lanes of that archetype, a select),
// then integrate_w. Each behaviour below is its scalar twin of
// core/behaviors.c lane by lane, the same float operations in the same
// order, so these forces match the reference bit for bit; so do the
// neighbour sums (sweeps.c), which visit neighbours in the reference's
// order (docs/ENGINES.md).
#include <string.h>

#include "block.h"
#include "fmath.h"
#include "rng.h"
#include "wmath.h"
#include "wvec.h"

typedef thr_lanes lanes;

#define steer_toward_w thr_steer_toward_w
#define seek_w thr_seek_w

static thr_v2w flee_w(const lanes* s, thr_v2w t, float radius, throng_flee_mode mode)
{
	thr_v2w away = v2w_sub(s->p, t);
	thr_fw d = v2w_length(away);
	thr_fw R = thr_fw_set1(radius);
	thr_mw outside = thr_fw_ge(d, R);
	thr_v2w full = v2w_resize(away, d, s->ms);
	switch (mode) {
	case THRONG_FLEE_PANIC:
		return v2w_select(outside, v2w_zero(), steer_toward_w(s, full));
	case THRONG_FLEE_SAFE: {
		thr_fw scale = thr_fw_mul(s->ms, thr_fw_sub(thr_fw_set1(1.0f), thr_fw_div(d, R)));
		thr_v2w desired = v2w_select(outside, v2w_zero(), v2w_resize(away, d, scale));
		return steer_toward_w(s, desired);
	}
	case THRONG_FLEE_ALWAYS:
	default:
		return steer_toward_w(s, full);
	}
}

static thr_v2w arrive_w(const lanes* s, thr_v2w t, float slow_radius)
{
	thr_v2w to = v2w_sub(t, s->p);
	thr_fw d = v2w_length(to);
	thr_fw ratio = thr_fw_div(d, thr_fw_set1(slow_radius));
	thr_fw one = thr_fw_set1(1.0f);
	thr_fw speed = thr_fw_mul(s->ms, thr_fw_select(thr_fw_lt(ratio, one), ratio, one));
	return steer_toward_w(s, v2w_resize(to, d, speed));
}

static thr_fw prediction_time_w(const lanes* s, thr_fw d, float t_max)
{
	thr_fw t = thr_fw_div(d, s->ms);
	thr_fw tm = thr_fw_set1(t_max);
	return thr_fw_select(thr_fw_lt(t, tm), t, tm);
}

static thr_v2w pursuit_w(const lanes* s, thr_v2w tp, thr_v2w tv, float t_max)
{
	thr_fw t = prediction_time_w(s, v2w_length(v2w_sub(tp, s->p)), t_max);
	return seek_w(s, v2w_add(tp, v2w_scale(tv, t)));
}

static thr_v2w evade_w(const lanes* s, thr_v2w tp, thr_v2w tv, float radius, float t_max)
{
	thr_fw d = v2w_length(v2w_sub(tp, s->p));
	thr_fw R = thr_fw_set1(radius);
	thr_fw t = prediction_time_w(s, d, t_max);
	thr_v2w q = v2w_add(tp, v2w_scale(tv, t));
	thr_fw scale = thr_fw_mul(s->ms, thr_fw_sub(thr_fw_set1(1.0f), thr_fw_div(d, R)));
	thr_v2w away = v2w_sub(s->p, q);
	thr_v2w desired = v2w_select(thr_fw_lt(d, R), v2w_resize(away, v2w_length(away), scale), v2w_zero());
	return steer_toward_w(s, desired);
}

static thr_v2w wander_w(const lanes* s, thr_fw* angle, thr_fw draw, const throng_behavior_params* p, float dt)
{
	thr_fw a = thr_wrap_angle_w(thr_fw_add(*angle, thr_fw_mul(thr_fw_mul(draw, thr_fw_set1(p->jitter)),
	                                                          thr_fw_set1(dt))));
	*angle = a;
	thr_v2w ahead = v2w_add(s->p, v2w_scale(s->h, thr_fw_set1(p->circle_distance)));
	thr_v2w c;
	thr_fw theta;
	if (p->frame == THRONG_WANDER_WORLD) {
		c = v2w_select(thr_fw_lt(s->speed, thr_fw_set1(THR_EPS)), s->p, ahead);
		theta = a;
	} else {
		c = ahead;
		theta = thr_fw_add(thr_atan2f_w(s->h.y, s->h.x), a);
	}
	thr_fw sn, cs;
	thr_sincosf_w(theta, &sn, &cs);
	thr_v2w target = v2w_add(c, v2w_scale(v2w(cs, sn), thr_fw_set1(p->circle_radius)));
	return seek_w(s, target);
}

static thr_v2w wander_noise_w(const lanes* s, thr_fw* angle, thr_fw noise, const throng_behavior_params* p, float dt)
{
	thr_fw a = thr_wrap_angle_w(thr_fw_add(*angle, thr_fw_mul(thr_fw_mul(noise, thr_fw_set1(p->noise_amplitude)),
	                                                          thr_fw_set1(dt))));
	*angle = a;
	thr_fw sn, cs;
	thr_sincosf_w(a, &sn, &cs);
	return steer_toward_w(s, v2w_scale(v2w(cs, sn), s->ms));
}

/// contain_axis of behaviors.c per lane; sets *active where the margin is hit.
static thr_fw contain_axis_w(thr_fw x, thr_fw lo, thr_fw hi, thr_fw margin, thr_fw ms, thr_fw cur, thr_mw* active)
{
	thr_fw dl = thr_fw_sub(x, lo);
	thr_fw dh = thr_fw_sub(hi, x);
	thr_mw near = thr_mw_or(thr_fw_lt(dl, margin), thr_fw_lt(dh, margin));
	*active = thr_mw_or(*active, near);
	return thr_fw_select(near, thr_fw_select(thr_fw_lt(dl, dh), ms, thr_fw_neg(ms)), cur);
}

static thr_v2w bounds_w(const lanes* s, const throng_world_def* d, float margin)
{
	if (d->bounds_mode != THRONG_BOUNDS_CONTAIN) {
		return v2w_zero();
	}
	thr_v2w lo = v2w(thr_fw_add(thr_fw_set1(d->bounds_min.x), s->radius), thr_fw_add(thr_fw_set1(d->bounds_min.y), s->radius));
	thr_v2w hi = v2w(thr_fw_sub(thr_fw_set1(d->bounds_max.x), s->radius), thr_fw_sub(thr_fw_set1(d->bounds_max.y), s->radius));
	thr_fw M = thr_fw_set1(margin);
	thr_mw active = thr_mw_false();
	thr_v2w desired = v2w(contain_axis_w(s->p.x, lo.x, hi.x, M, s->ms, s->v.x, &active),
	                      contain_axis_w(s->p.y, lo.y, hi.y, M, s->ms, s->v.y, &active));
	if (!thr_mw_any(active)) {
		return v2w_zero(); // no lane within its margin
	}
	thr_v2w f = steer_toward_w(s, v2w_resize(desired, v2w_length(desired), s->ms));
	return v2w_select(active, f, v2w_zero());
}

/// spend_budget of controller.c per lane.
static thr_fw spend_budget_w(const throng_controller* ctl, const thr_v2w* f, thr_fw budget, int priority_only,
                             thr_v2w* total)
{
	const thr_fw ZERO = thr_fw_zero();
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled || (priority_only && !s->priority)) {
			continue;
		}
		thr_mw active = thr_fw_gt(budget, ZERO);
		if (!thr_mw_any(active)) {
			break;
		}
		thr_v2w fw = v2w_scale(f[k], thr_fw_set1(s->weight));
		thr_fw len = v2w_length(fw);
		thr_mw cut = thr_fw_gt(len, budget);
		if (thr_mw_any(cut)) { // the division only where some lane is cut
			thr_fw sc = thr_fw_div(budget, len);
			fw = v2w_select(cut, v2w(thr_fw_mul(fw.x, sc), thr_fw_mul(fw.y, sc)), fw);
			len = thr_fw_select(cut, budget, len);
		}
		*total = v2w_select(active, v2w_add(*total, fw), *total);
		budget = thr_fw_select(active, thr_fw_sub(budget, len), budget);
	}
	return budget;
}

/// headway_brakes of controller.c per lane.
static void headway_brakes_w(const throng_controller* ctl, thr_v2w* f, thr_v2w v, thr_fw mf)
{
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (s->enabled && s->kind == THRONG_HEADWAY) {
			f[k] = v2w_limit(v2w_sub(v2w_limit(v, f[k].x), v), mf);
		}
	}
}

/// relaxation of controller.c per lane; by_wall: the lanes beside a wall.
static thr_v2w relaxation_w(const throng_controller* ctl, thr_v2w* f, thr_v2w v, thr_v2w h, thr_fw mf, thr_mw by_wall)
{
	thr_v2w drive = v2w_zero(), inter = v2w_zero();
	thr_fw cap = thr_fw_set1(INFINITY);
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled) {
			continue;
		}
		if (s->kind == THRONG_HEADWAY) {
			cap = thr_fw_select(thr_fw_lt(f[k].x, cap), f[k].x, cap);
		} else if (s->priority) {
			inter = v2w_add(inter, v2w_scale(f[k], thr_fw_set1(s->weight)));
		} else {
			drive = v2w_add(drive, v2w_scale(f[k], thr_fw_set1(s->weight)));
		}
	}
	const thr_fw inv_tau = thr_fw_set1(1.0f / ctl->relaxation_time); // as controller.c's relaxation
	const thr_v2w desired = v2w_add(v, drive);
	const thr_fw len = v2w_length(desired);
	const thr_fw sc = thr_fw_div(cap, len);
	const thr_v2w scaled = v2w_sub(v2w(thr_fw_mul(desired.x, sc), thr_fw_mul(desired.y, sc)), v);
	const thr_mw ahead = thr_fw_gt(v2w_dot(desired, h), thr_fw_mul(thr_fw_set1(THR_HEADWAY_CONE), len));
	const thr_mw held_back = thr_mw_and(thr_fw_gt(len, cap), thr_mw_or(thr_mw_not(by_wall), ahead));
	const thr_v2w capped = v2w_select(held_back, scaled, drive);
	const thr_v2w free = v2w_scale(drive, inv_tau);
	const thr_v2w held = v2w_scale(capped, inv_tau);
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		if (ctl->slots[k].enabled && ctl->slots[k].kind == THRONG_HEADWAY) {
			f[k] = v2w_sub(held, free);
		}
	}
	return v2w_limit(v2w_add(held, inter), mf);
}

/// thr_blend of controller.c per lane.
static thr_v2w controller_blend_w(const throng_controller* ctl, thr_v2w* f, thr_fw mf, thr_v2w v, thr_v2w h,
                                  thr_mw by_wall)
{
	thr_v2w total = v2w_zero();
	if (ctl->mode == THRONG_BLEND_RELAXATION) {
		return relaxation_w(ctl, f, v, h, mf, by_wall);
	}
	headway_brakes_w(ctl, f, v, mf);
	switch (ctl->mode) {
	case THRONG_BLEND_PRIORITY:
		spend_budget_w(ctl, f, mf, 0, &total);
		return total;
	case THRONG_BLEND_HYBRID: {
		thr_fw left = spend_budget_w(ctl, f, mf, 1, &total);
		thr_v2w rest = v2w_zero();
		for (uint32_t k = 0; k < ctl->slot_count; ++k) {
			const throng_slot* s = &ctl->slots[k];
			if (s->enabled && !s->priority) {
				rest = v2w_add(rest, v2w_scale(f[k], thr_fw_set1(s->weight)));
			}
		}
		return v2w_select(thr_fw_gt(left, thr_fw_zero()), v2w_add(total, v2w_limit(rest, left)), total);
	}
	case THRONG_BLEND_WEIGHTED:
	default:
		for (uint32_t k = 0; k < ctl->slot_count; ++k) {
			const throng_slot* s = &ctl->slots[k];
			if (s->enabled) {
				total = v2w_add(total, v2w_scale(f[k], thr_fw_set1(s->weight)));
			}
		}
		return v2w_limit(total, mf);
	}
}

/// What target-seeking slots steer relative to, per lane.
typedef struct lane_targets {
	thr_v2w point;            ///< the agents' target points
	thr_v2w agent_p, agent_v; ///< their target agents
	thr_mw has_agent;
	int agents_loaded;
} lane_targets;

static void load_target_agents(const thr_wide_ctx* ctx, uint32_t base, int n, lane_targets* t)
{
	const throng_world* w = ctx->w;
	const thr_state* cs = ctx->cs;
	// No target_agent column yet (store.h): no lane has a target agent.
	const thr_iw ta = w->target_agent != NULL ? thr_iw_loadu((const int32_t*)w->target_agent + base)
	                                          : thr_iw_set1((int32_t)THRONG_NO_AGENT);
	const thr_mw has = thr_mw_andnot(thr_mw_first(n), thr_iw_eq(ta, thr_iw_set1((int32_t)THRONG_NO_AGENT)));
	// Lanes without a target agent read slot 0 (the block's own agents
	// exist) and are zeroed below.
	const thr_iw j = thr_iw_select(has, thr_iw_gather((const int32_t*)w->slot_of, thr_iw_select(has, ta, thr_iw_zero())),
	                               thr_iw_zero());
	thr_v2w p = v2w(thr_fw_gather(cs->px, j), thr_fw_gather(cs->py, j));
	const thr_period per = thr_world_period(w);
	if (per.wrap) {
		// A wrap world: the image nearest the agent (thr_period_shift, as
		// core/scalar_engine.c's resolve_target takes it).
		p = v2w(thr_min_image_w(p.x, thr_fw_loadu(cs->px + base), thr_fw_set1(per.px), thr_fw_set1(per.hx),
		                        thr_fw_set1(-per.hx)),
		        thr_min_image_w(p.y, thr_fw_loadu(cs->py + base), thr_fw_set1(per.py), thr_fw_set1(per.hy),
		                        thr_fw_set1(-per.hy)));
	}
	t->agent_p = v2w_select(has, p, v2w_zero());
	t->agent_v = v2w_select(has, v2w(thr_fw_gather(cs->vx, j), thr_fw_gather(cs->vy, j)), v2w_zero());
	t->has_agent = has;
	t->agents_loaded = 1;
}

/// Resolves the slot's target; returns the lanes that have one.
static thr_mw resolve_target_w(const thr_wide_ctx* ctx, uint32_t base, int n, lane_targets* t,
                               throng_target_source src, thr_v2w* tp, thr_v2w* tv)
{
	const throng_world* w = ctx->w;
	switch (src) {
	case THRONG_TARGET_THREAT:
		*tp = v2w_set1(w->threat_p);
		*tv = v2w_set1(w->threat_v);
		return w->threat_active ? thr_mw_true() : thr_mw_false();
	case THRONG_TARGET_AGENT:
		if (!t->agents_loaded) {
			load_target_agents(ctx, base, n, t);
		}
		*tp = t->agent_p;
		*tv = t->agent_v;
		return t->has_agent;
	case THRONG_TARGET_POINT:
	default:
		*tp = t->point;
		*tv = v2w_zero();
		return thr_mw_true();
	}
}

/// thr_path_follow per lane: each lane of `mask` with a path gets its
/// waypoint (and its next index into `waypoint`) from thr_path_target.
static thr_v2w path_follow_w(const thr_wide_ctx* ctx, const lanes* s, thr_mw mask, const throng_behavior_params* p,
                             uint32_t* waypoint)
{
	_Alignas(32) float tx[THR_LANES] = {0}, ty[THR_LANES] = {0};
	_Alignas(32) int32_t has[THR_LANES] = {0}, fin[THR_LANES] = {0};
	int bits = thr_mw_movemask(mask);
	// Lane by lane: thr_path_target walks each agent's own path and
	// advances its waypoint, one function for both engines.
	for (int l = 0; l < s->n; ++l) {
		vec2 t;
		int final;
		if ((bits & (1 << l)) &&
		    thr_path_target(ctx->w, ctx->cs, s->base + (uint32_t)l, p->waypoint_radius, &t, &waypoint[l], &final)) {
			tx[l] = t.x;
			ty[l] = t.y;
			has[l] = -1;
			fin[l] = final ? -1 : 0;
		}
	}
	thr_v2w t = v2w(thr_fw_load(tx), thr_fw_load(ty));
	thr_mw final = thr_mw_from_iw(thr_iw_load(fin));
	thr_v2w f = v2w_select(final, arrive_w(s, t, p->slow_radius), seek_w(s, t));
	return v2w_select(thr_mw_from_iw(thr_iw_load(has)), f, v2w_zero());
}

/// apply_bounds_axis of scalar_engine.c per lane; returns the clamp mask.
static thr_mw bounds_axis_w(throng_bounds_mode mode, thr_fw* p, thr_fw* v, thr_fw lo, thr_fw hi, float wlo, float whi)
{
	const thr_fw ZERO = thr_fw_zero();
	switch (mode) {
	case THRONG_BOUNDS_CONTAIN: {
		thr_mw below = thr_fw_lt(*p, lo);
		thr_mw above = thr_mw_andnot(thr_fw_gt(*p, hi), below);
		*p = thr_fw_select(below, lo, thr_fw_select(above, hi, *p));
		thr_fw vb = thr_fw_select(thr_fw_lt(*v, ZERO), ZERO, *v);
		thr_fw va = thr_fw_select(thr_fw_gt(*v, ZERO), ZERO, *v);
		*v = thr_fw_select(below, vb, thr_fw_select(above, va, *v));
		return thr_mw_or(below, above);
	}
	case THRONG_BOUNDS_BOUNCE: {
		thr_mw below = thr_fw_lt(*p, lo);
		thr_mw above = thr_mw_andnot(thr_fw_gt(*p, hi), below);
		thr_fw pb = thr_fw_add(lo, thr_fw_sub(lo, *p));
		thr_fw pa = thr_fw_sub(hi, thr_fw_sub(*p, hi));
		*p = thr_fw_select(below, pb, thr_fw_select(above, pa, *p));
		*v = thr_fw_select(thr_mw_or(below, above), thr_fw_neg(*v), *v);
		*p = thr_fw_select(thr_fw_lt(*p, lo), lo, thr_fw_select(thr_fw_gt(*p, hi), hi, *p));
		return thr_mw_false();
	}
	case THRONG_BOUNDS_WRAP: {
		thr_fw WLO = thr_fw_set1(wlo), WHI = thr_fw_set1(whi), W = thr_fw_set1(whi - wlo);
		thr_mw below = thr_fw_lt(*p, WLO);
		thr_mw above = thr_mw_andnot(thr_fw_ge(*p, WHI), below);
		*p = thr_fw_select(below, thr_fw_add(*p, W), thr_fw_select(above, thr_fw_sub(*p, W), *p));
		thr_mw out = thr_mw_or(thr_fw_lt(*p, WLO), thr_fw_ge(*p, WHI));
		if (thr_mw_any(out)) {
			thr_fw q = thr_fw_div(thr_fw_sub(*p, WLO), W);
			thr_fw fl = thr_roundf_w(q);
			fl = thr_fw_select(thr_fw_gt(fl, q), thr_fw_sub(fl, thr_fw_set1(1.0f)), fl);
			thr_fw r = thr_fw_sub(*p, thr_fw_mul(W, fl));
			r = thr_fw_select(thr_fw_lt(r, WLO), WLO, thr_fw_select(thr_fw_ge(r, WHI), WLO, r));
			*p = thr_fw_select(out, r, *p);
		}
		return thr_mw_false();
	}
	case THRONG_BOUNDS_OPEN:
	default:
		return thr_mw_false();
	}
}

static int popcount8(thr_mw m) { return __builtin_popcount((unsigned)thr_mw_movemask(m)); }

/// A block's per-lane state that the stages share: what the behaviours
/// read (the wander and noise angles: the step turns them after the pass,
/// core/angles.c) and advance (waypoints), and the blended force.
typedef struct block_state {
	const thr_mw live; ///< the first n lanes
	_Alignas(32) int32_t arch[THR_LANES]; ///< archetype per lane, -1 past the end
	lane_targets targets;
	thr_fw wander0, noise0;        ///< the angles as read
	uint32_t waypoint_new[THR_LANES]; ///< path following keeps its index; the slot advances it
	thr_v2w total;                 ///< the blended force of every lane
} block_state;

/// Stage load (scalar twin: scalar_engine.c load): the lanes' agents and
/// what the behaviours read and advance.
static void load_w(const thr_wide_ctx* ctx, uint32_t base, int n, lanes* s, block_state* b)
{
	const throng_world* w = ctx->w;
	const thr_state* cs = ctx->cs;
	thr_iw_store(b->arch, thr_iw_select(b->live, thr_iw_loadu((const int32_t*)w->archetype + base), thr_iw_set1(-1)));
	s->p = v2w(thr_fw_loadu(cs->px + base), thr_fw_loadu(cs->py + base));
	s->v = v2w(thr_fw_loadu(cs->vx + base), thr_fw_loadu(cs->vy + base));
	s->h = v2w(thr_fw_loadu(cs->hx + base), thr_fw_loadu(cs->hy + base));
	s->speed = v2w_length(s->v);
	s->unit = v2w_select(thr_fw_eq(s->speed, thr_fw_zero()), v2w_zero(), v2w_unit(s->v, s->speed));
	s->ms = thr_fw_loadu(w->max_speed + base);
	s->mf = thr_fw_loadu(w->max_force + base);
	s->radius = thr_fw_loadu(w->radius + base);
	s->id = thr_iw_loadu((const int32_t*)w->id + base);
	s->group = thr_iw_loadu((const int32_t*)w->group + base);
	s->n = n;
	s->counted = thr_step_counted_lanes(ctx->step, base, n);
	s->base = base;
	// The lanes as scalars, lanes past the end as lane 0, and the box of
	// the live lanes (positions are never NaN, and a -0 or +0 corner gives
	// the same grid cells, so the order of the min and max is free).
	const thr_fw x = thr_fw_select(b->live, s->p.x, thr_fw_set1(cs->px[base]));
	const thr_fw y = thr_fw_select(b->live, s->p.y, thr_fw_set1(cs->py[base]));
	const thr_fw r = thr_fw_select(b->live, s->radius, thr_fw_set1(w->radius[base]));
	thr_fw_storeu(s->lx, x);
	thr_fw_storeu(s->ly, y);
	thr_fw_storeu(s->lr, r);
	s->box[0] = thr_fw_hmin(thr_fw_select(b->live, x, thr_fw_set1(INFINITY)));
	s->box[1] = thr_fw_hmin(thr_fw_select(b->live, y, thr_fw_set1(INFINITY)));
	s->box[2] = thr_fw_hmax(thr_fw_select(b->live, x, thr_fw_set1(-INFINITY)));
	s->box[3] = thr_fw_hmax(thr_fw_select(b->live, y, thr_fw_set1(-INFINITY)));
	s->box_r = thr_fw_hmax(thr_fw_select(b->live, r, thr_fw_zero()));
	// Lanes past the end hold padding; give them harmless limits.
	s->ms = thr_fw_select(b->live, s->ms, thr_fw_set1(1.0f));
	s->mf = thr_fw_select(b->live, s->mf, thr_fw_set1(1.0f));
	b->targets.point = v2w(thr_fw_loadu(w->tx + base), thr_fw_loadu(w->ty + base));
	b->targets.agents_loaded = 0;
	b->wander0 = thr_fw_loadu(w->wander + base);
	b->noise0 = thr_fw_loadu(w->noise + base);
	const thr_iw waypoint = cs->waypoint != NULL ? thr_iw_loadu((const int32_t*)cs->waypoint + base) : thr_iw_zero();
	thr_iw_storeu((int32_t*)b->waypoint_new, thr_iw_select(b->live, waypoint, thr_iw_zero()));
	b->total = v2w_zero();
}

/// Stage forces (scalar twin: scalar_engine.c forces): every slot of the
/// archetype of the lanes of `mine`, into f.
static void forces_w(const thr_wide_ctx* ctx, const lanes* s, thr_mw mine, const throng_controller* ctl,
                     const thr_arch_info* info, block_state* b, thr_v2w f[THRONG_MAX_SLOTS], thr_pass_stats* st,
                     throng_world_counters* c)
{
	const throng_world_def* d = &ctx->w->def;
	const uint32_t base = s->base;
	const int n = s->n;
	const thr_iw key = thr_iw_set1((int32_t)ctx->w->rng_key);
	if (info->n_neighbor_slots > 0) {
		thr_neighbors_w(ctx, s, mine, info, ctl, f, st);
	}
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* slot = &ctl->slots[k];
		const throng_behavior_params* p = &slot->params;
		if (!slot->enabled) {
			f[k] = v2w_zero();
			continue;
		}
		thr_v2w tp, tv;
		thr_mw has;
		switch (slot->kind) {
		case THRONG_SEEK:
			has = resolve_target_w(ctx, base, n, &b->targets, p->target, &tp, &tv);
			f[k] = v2w_select(has, seek_w(s, tp), v2w_zero());
			break;
		case THRONG_FLEE:
			has = resolve_target_w(ctx, base, n, &b->targets, p->target, &tp, &tv);
			f[k] = v2w_select(has, flee_w(s, tp, p->flee_radius, p->flee_mode), v2w_zero());
			break;
		case THRONG_ARRIVE:
			has = resolve_target_w(ctx, base, n, &b->targets, p->target, &tp, &tv);
			f[k] = v2w_select(has, arrive_w(s, tp, p->slow_radius), v2w_zero());
			break;
		case THRONG_PURSUIT:
			has = resolve_target_w(ctx, base, n, &b->targets, p->target, &tp, &tv);
			f[k] = v2w_select(has, pursuit_w(s, tp, tv, p->max_prediction), v2w_zero());
			break;
		case THRONG_EVADE:
			has = resolve_target_w(ctx, base, n, &b->targets, p->target, &tp, &tv);
			f[k] = v2w_select(has, evade_w(s, tp, tv, p->evade_radius, p->max_prediction), v2w_zero());
			break;
		case THRONG_WANDER: {
			thr_fw draw = thr_bits_to_pm1_w(thr_rng_bits_w(key, s->id, thr_iw_set1((int32_t)ctx->step32),
			                                                THR_STREAM_WANDER));
			thr_fw a = b->wander0; // (turned: thr_advance_angles keeps it after the step)
			f[k] = wander_w(s, &a, draw, p, ctx->dt);
			break;
		}
		case THRONG_WANDER_NOISE: {
			thr_fw phase = thr_fw_mul(thr_bits_to_unit_w(thr_rng_bits_w(key, s->id, thr_iw_zero(), THR_STREAM_PHASE)),
			                          thr_fw_set1(1024.0f));
			thr_fw x = thr_fw_add(thr_fw_mul(thr_fw_set1(ctx->time), thr_fw_set1(p->noise_frequency)), phase);
			thr_fw a = b->noise0; // (likewise)
			f[k] = wander_noise_w(s, &a, thr_noise1_w(key, x), p, ctx->dt);
			break;
		}
		case THRONG_BOUNDS:
			f[k] = bounds_w(s, d, p->margin);
			break;
		case THRONG_PATH_FOLLOW:
			f[k] = path_follow_w(ctx, s, mine, p, b->waypoint_new);
			break;
		case THRONG_OBSTACLE_AVOID:
			f[k] = thr_obstacles_w(ctx, s, mine, p->look_ahead, c);
			break;
		case THRONG_WALL_AVOID:
			f[k] = thr_walls_w(ctx, s, mine, p->look_ahead, p->feeler_angle, c);
			break;
		default: // neighbour slots: thr_neighbors_w filled them
			break;
		}
	}
}

/// Stage blend (scalar twin: scalar_engine.c blend): the slots' forces of
/// the lanes of `mine` blended into b->total, and recorded when asked.
static void blend_w(const thr_wide_ctx* ctx, const lanes* s, thr_mw mine, const throng_controller* ctl,
                    thr_v2w f[THRONG_MAX_SLOTS], block_state* b)
{
	const throng_world* w = ctx->w;
	// The lanes beside a wall, for the headway's cone: thr_near_wall
	// (core/world_shapes.c), the one function both engines call, so both
	// decide alike.
	thr_mw by_wall = thr_mw_first(0);
	if (thr_blend_reads_walls(ctl) && w->wall_count > 0) {
		// thr_near_wall's first test, on all lanes at once: a lane whose
		// cell's clearance is beyond its reach is near no wall. The others
		// (beside a shape, few) ask thr_near_wall lane by lane, which
		// walks the walls near each.
		thr_mw in;
		thr_iw cx, cy;
		const thr_fw reach = thr_fw_add(s->radius, thr_fw_set1(THR_HEADWAY_WALL_REACH));
		const thr_mw open = thr_fw_lt(reach, thr_clearance_w(w, s->p, &in, &cx, &cy));
		_Alignas(32) float px[THR_LANES], py[THR_LANES], r[THR_LANES];
		thr_fw_store(px, s->p.x);
		thr_fw_store(py, s->p.y);
		thr_fw_store(r, reach);
		int near = 0;
		for (int ask = thr_mw_movemask(thr_mw_andnot(mine, open)) & ((1 << s->n) - 1); ask != 0; ask &= ask - 1) {
			const int q = __builtin_ctz((unsigned)ask);
			near |= thr_near_wall(w, v2(px[q], py[q]), r[q]) ? 1 << q : 0;
		}
		by_wall = thr_mw_from_bits(near);
	}
	thr_v2w t = controller_blend_w(ctl, f, s->mf, s->v, s->h, by_wall);
	b->total = v2w_select(mine, t, b->total);
	if (w->def.record_forces) {
		// Lane by lane: an output asked for (def.record_forces), written
		// where thr_force_index puts each agent's slot.
		for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
			_Alignas(32) float bx[THR_LANES], by[THR_LANES];
			thr_v2w fk = k < ctl->slot_count ? f[k] : v2w_zero();
			thr_fw_store(bx, fk.x);
			thr_fw_store(by, fk.y);
			int bits = thr_mw_movemask(mine);
			for (int q = 0; q < s->n; ++q) {
				if (bits & (1 << q)) {
					w->force_x[thr_force_index(w, k, s->base + (uint32_t)q)] = bx[q];
					w->force_y[thr_force_index(w, k, s->base + (uint32_t)q)] = by[q];
				}
			}
		}
	}
}

/// The larger of `most` and the greatest lane of x among the lanes of m,
/// as a scalar loop of `x > most ? x : most` finds it (a NaN lane never
/// counts). Exact in any order: the lanes kept are not NaN and never -0
/// here (speed ratios and moves are sums of squares' roots or absolute
/// values).
static float most_of(thr_mw m, thr_fw x, float most)
{
	const thr_fw M = thr_fw_set1(most);
	return thr_fw_hmax(thr_fw_select(thr_mw_and(m, thr_fw_gt(x, M)), x, M));
}

/// thr_previous_position (core/engine.h) per lane: a wrap world moves p0
/// by a world's width where the step wrapped the agent (the same
/// additions, +0 included).
static thr_v2w previous_position_w(const throng_world_def* d, thr_v2w p0, thr_v2w p)
{
	if (d->bounds_mode != THRONG_BOUNDS_WRAP) {
		return p0;
	}
	const float wx = d->bounds_max.x - d->bounds_min.x, wy = d->bounds_max.y - d->bounds_min.y;
	const thr_fw HX = thr_fw_set1(0.5f * wx), HY = thr_fw_set1(0.5f * wy), ZERO = thr_fw_zero();
	const thr_fw sx = thr_fw_select(thr_fw_gt(thr_fw_sub(p.x, p0.x), HX), thr_fw_set1(wx),
	                                thr_fw_select(thr_fw_gt(thr_fw_sub(p0.x, p.x), HX), thr_fw_set1(-wx), ZERO));
	const thr_fw sy = thr_fw_select(thr_fw_gt(thr_fw_sub(p.y, p0.y), HY), thr_fw_set1(wy),
	                                thr_fw_select(thr_fw_gt(thr_fw_sub(p0.y, p.y), HY), thr_fw_set1(-wy), ZERO));
	return v2w(thr_fw_add(p0.x, sx), thr_fw_add(p0.y, sy));
}

/// thr_clear_of_shapes (core/engine.h) per lane: the lanes whose path p0
/// -> p (radius r) no shape can touch, from the clearance of p's cell.
static thr_mw clear_of_shapes_w(const throng_world* w, thr_v2w p0, thr_v2w p, thr_fw r)
{
	const thr_box_grid* g = &w->obstacle_grid;
	thr_mw in;
	thr_iw cx, cy;
	const thr_fw clear = thr_clearance_w(w, p, &in, &cx, &cy);
	const thr_fw len = thr_fw_add(thr_fw_abs(thr_fw_sub(p.x, p0.x)), thr_fw_abs(thr_fw_sub(p.y, p0.y)));
	const thr_mw room = thr_mw_and(in, thr_mw_and(thr_fw_lt(r, clear), thr_fw_lt(len, clear)));
	const thr_fw ZERO = thr_fw_zero(), INV = thr_fw_set1(g->inv_cell);
	const thr_fw hx = thr_fw_mul(thr_fw_sub(p0.x, thr_fw_set1(g->min_x)), INV);
	const thr_fw hy = thr_fw_mul(thr_fw_sub(p0.y, thr_fw_set1(g->min_y)), INV);
	const thr_mw same = thr_mw_and(
		thr_mw_and(thr_mw_and(thr_fw_ge(hx, ZERO), thr_fw_lt(hx, thr_fw_set1((float)g->nx))),
		           thr_mw_and(thr_fw_ge(hy, ZERO), thr_fw_lt(hy, thr_fw_set1((float)g->ny)))),
		thr_mw_and(thr_iw_eq(thr_fw_to_iw_trunc(hx), cx), thr_iw_eq(thr_fw_to_iw_trunc(hy), cy)));
	const thr_mw far = thr_fw_lt(thr_fw_mul(thr_fw_add(r, len), thr_fw_set1(1.0001f)), clear);
	return thr_mw_and(room, thr_mw_or(same, far));
}

/// Stage integrate (scalar twin: scalar_engine.c integrate): drop a
/// non-finite force, integrate, keep within the bounds, write the next
/// state.
static void integrate_w(const thr_wide_ctx* ctx, const lanes* s, const block_state* b, thr_pass_stats* st)
{
	const throng_world* w = ctx->w;
	const throng_world_def* d = &w->def;
	thr_state* ns = ctx->ns;
	const uint32_t base = s->base;
	const int n = s->n;
	const thr_mw live = b->live;
	// The lanes whose figures count: live, less a part world's ghosts.
	const thr_mw counted = s->counted != (1 << n) - 1 ? thr_mw_from_bits(s->counted) : live;
	// Never integrate a non-finite force: count it and drop it.
	thr_v2w total = b->total;
	thr_mw finite = v2w_isfinite(total);
	st->nonfinite += (uint64_t)popcount8(thr_mw_andnot(counted, finite));
	total = v2w_select(finite, total, v2w_zero());
	if (d->record_forces) {
		thr_fw_store_tail(w->total_x + base, total.x, n);
		thr_fw_store_tail(w->total_y + base, total.y, n);
	}
	// Integration (SPEC.md): v = limit(v + f*dt, max_speed); p += v*dt.
	const thr_fw DT = thr_fw_set1(ctx->dt);
	thr_v2w v = v2w_limit(v2w_add(s->v, v2w_scale(total, DT)), s->ms);
	thr_v2w p = v2w_add(s->p, v2w_scale(v, DT));
	thr_fw half = thr_fw_set1(0.5f);
	thr_fw lox = thr_fw_add(thr_fw_set1(d->bounds_min.x), s->radius);
	thr_fw hix = thr_fw_sub(thr_fw_set1(d->bounds_max.x), s->radius);
	thr_fw loy = thr_fw_add(thr_fw_set1(d->bounds_min.y), s->radius);
	thr_fw hiy = thr_fw_sub(thr_fw_set1(d->bounds_max.y), s->radius);
	thr_fw midx = thr_fw_mul(half, thr_fw_add(thr_fw_set1(d->bounds_min.x), thr_fw_set1(d->bounds_max.x)));
	thr_fw midy = thr_fw_mul(half, thr_fw_add(thr_fw_set1(d->bounds_min.y), thr_fw_set1(d->bounds_max.y)));
	thr_mw narrow_x = thr_fw_gt(lox, hix), narrow_y = thr_fw_gt(loy, hiy);
	lox = thr_fw_select(narrow_x, midx, lox);
	hix = thr_fw_select(narrow_x, midx, hix);
	loy = thr_fw_select(narrow_y, midy, loy);
	hiy = thr_fw_select(narrow_y, midy, hiy);
	thr_mw cx = bounds_axis_w(d->bounds_mode, &p.x, &v.x, lox, hix, d->bounds_min.x, d->bounds_max.x);
	thr_mw cy = bounds_axis_w(d->bounds_mode, &p.y, &v.y, loy, hiy, d->bounds_min.y, d->bounds_max.y);
	st->clamped += (uint64_t)(popcount8(thr_mw_and(cx, counted)) + popcount8(thr_mw_and(cy, counted)));
	thr_mw bad = thr_mw_and(live, thr_mw_not(thr_mw_and(v2w_isfinite(p), v2w_isfinite(v))));
	if (thr_mw_any(bad)) {
		st->nonfinite += (uint64_t)popcount8(thr_mw_and(bad, counted));
		v = v2w_select(bad, v2w_zero(), v);
		thr_v2w back = v2w_select(v2w_isfinite(s->p), s->p, v2w(midx, midy));
		p = v2w_select(bad, back, p);
	}
	thr_fw speed = v2w_length(v);
	thr_v2w h = v2w_select(thr_fw_gt(speed, thr_fw_set1(THR_EPS)), v2w_unit(v, speed), s->h);
	st->max_speed_ratio = most_of(counted, thr_fw_div(speed, s->ms), st->max_speed_ratio);
	thr_fw_store_tail(ns->px + base, p.x, n);
	thr_fw_store_tail(ns->py + base, p.y, n);
	thr_fw_store_tail(ns->vx + base, v.x, n);
	thr_fw_store_tail(ns->vy + base, v.y, n);
	thr_fw_store_tail(ns->hx + base, h.x, n);
	thr_fw_store_tail(ns->hy + base, h.y, n);
	if (ns->waypoint != NULL) {
		thr_iw_store_tail((int32_t*)ns->waypoint + base, thr_iw_loadu((const int32_t*)b->waypoint_new), n);
	}
	// thr_most_moved per lane: the larger move along x or y.
	const thr_fw mx = thr_fw_abs(thr_fw_sub(p.x, s->p.x)), my = thr_fw_abs(thr_fw_sub(p.y, s->p.y));
	st->most_moved = most_of(counted, thr_fw_select(thr_fw_gt(mx, my), mx, my), st->most_moved);
	if (ctx->step->clear != NULL) {
		// The end of the contact pass for agents without pairs, while
		// the shapes near the block are in cache: thr_contact_shapes,
		// whose first test (the path clear of every shape) answers for
		// most agents and runs here on all lanes at once. The others,
		// near a shape, go through thr_contact_shapes lane by lane: their
		// pushes walk each agent's own shapes in order, one after the
		// other (core/contact/shapes.c), and they are few.
		const thr_mw clear = clear_of_shapes_w(w, previous_position_w(d, s->p, p), p, s->radius);
		memset(ctx->step->clear + base, THR_SHAPES_CLEAR, (size_t)n);
		for (int near = ~thr_mw_movemask(clear) & ((1 << n) - 1); near != 0; near &= near - 1) {
			const uint32_t i = base + (uint32_t)__builtin_ctz((unsigned)near);
			ctx->step->clear[i] = thr_contact_shapes(ctx->step, i);
		}
	}
}

void thr_step_block(const thr_wide_ctx* ctx, uint32_t base, thr_pass_stats* st)
{
	throng_world_counters* c = st->counts;
	const throng_world* w = ctx->w;
	const uint32_t remaining = w->count - base;
	const int n = remaining < THR_LANES ? (int)remaining : THR_LANES;
	block_state b = {.live = thr_mw_first(n)};
	lanes s;
	load_w(ctx, base, n, &s, &b);
	if (ctx->step->near != NULL) {
		thr_fw_store_tail(ctx->step->near + base, thr_fw_set1(THR_NEAR_UNKNOWN), n); // the walks overwrite it
	}
	// Once per distinct archetype among the lanes: its forces, blended.
	const thr_iw archw = thr_iw_load(b.arch);
	thr_mw done = thr_mw_not(b.live);
	while (!thr_mw_all(done)) {
		int l = __builtin_ctz((unsigned)~thr_mw_movemask(done) & 0xffu);
		const throng_controller* ctl = &w->archetypes[b.arch[l]];
		thr_mw mine = thr_mw_andnot(thr_iw_eq(archw, thr_iw_set1(b.arch[l])), done);
		thr_v2w f[THRONG_MAX_SLOTS];
		forces_w(ctx, &s, mine, ctl, &ctx->arch[b.arch[l]], &b, f, st, c);
		blend_w(ctx, &s, mine, ctl, f, &b);
		if (c != NULL) {
			// All 8 lanes: every enabled slot of the archetype, its blend.
			thr_count_controller(c, ctl, THR_LANES);
		}
		done = thr_mw_or(done, mine);
	}
	integrate_w(ctx, &s, &b, st);
	if (c != NULL) {
		c->lanes += THR_LANES;
	}
}

