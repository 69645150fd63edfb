// SPDX-License-Identifier: MIT
// The selected agent's debug view (see debug.h). Formulas from SPEC.md and
// core/behaviors.c's documented choices, repeated here for display only.
#include "debug.h"

#include <math.h>
#include <string.h>

#include "palette.h"

#define EPS 1.0e-6f

static const SDL_Color SELECT_RING = {255, 255, 255, 255};
static const SDL_Color NEIGHBOR_RADIUS = {90, 130, 220, 255};
static const SDL_Color NEIGHBOR_MARK = {250, 230, 90, 255};
static const SDL_Color WANDER = {90, 220, 255, 255};

typedef struct vec2 {
	float x, y;
} vec2;

static vec2 add(vec2 a, vec2 b) { return (vec2){a.x + b.x, a.y + b.y}; }
static vec2 sub(vec2 a, vec2 b) { return (vec2){a.x - b.x, a.y - b.y}; }
static vec2 scale(vec2 a, float s) { return (vec2){a.x * s, a.y * s}; }
static float dot(vec2 a, vec2 b) { return a.x * b.x + a.y * b.y; }
static float length(vec2 a) { return sqrtf(dot(a, a)); }
static vec2 normalize(vec2 a)
{
	float l = length(a);
	return l > 0.0f ? (vec2){a.x / l, a.y / l} : (vec2){0.0f, 0.0f};
}
static vec2 from(throng_vec2 v) { return (vec2){v.x, v.y}; }
static vec2 rotate(vec2 a, float angle)
{
	float c = cosf(angle), s = sinf(angle);
	return (vec2){a.x * c - a.y * s, a.x * s + a.y * c};
}

/// The obstacle the forward feeler hits first (SPEC.md obstacle avoidance),
/// or UINT32_MAX; *along gets its distance along the heading.
static uint32_t obstacle_hit(const vw_frame* f, vec2 p, vec2 h, float look_ahead, float radius, float* along_out)
{
	uint32_t best = UINT32_MAX;
	float best_along = 0.0f;
	for (uint32_t k = 0; k < f->obstacle_count; ++k) {
		vec2 c = from(f->obstacle_c[k]);
		float along = dot(sub(c, p), h);
		if (along < 0.0f || along > look_ahead) {
			continue;
		}
		float lateral = length(sub(c, add(p, scale(h, along))));
		if (lateral < f->obstacle_r[k] + radius && (best == UINT32_MAX || along < best_along)) {
			best = k;
			best_along = along;
		}
	}
	*along_out = best_along;
	return best;
}

/// Distance along a unit feeler to the nearest wall it crosses within len,
/// or -1.
static float wall_hit(const vw_frame* f, vec2 p, vec2 dir, float len)
{
	float best = -1.0f;
	for (uint32_t k = 0; k < f->wall_count; ++k) {
		vec2 a = from(f->wall_a[k]), e = sub(from(f->wall_b[k]), a);
		float denom = dir.x * e.y - dir.y * e.x;
		if (fabsf(denom) < EPS) {
			continue;
		}
		vec2 ap = sub(a, p);
		float t = (ap.x * e.y - ap.y * e.x) / denom;
		float u = (ap.x * dir.y - ap.y * dir.x) / denom;
		if (t >= 0.0f && t <= len && u >= 0.0f && u <= 1.0f && (best < 0.0f || t < best)) {
			best = t;
		}
	}
	return best;
}

void vw_debug_compute(vw_debug* d, const vw_frame* f)
{
	memset(d, 0, sizeof *d);
	const vw_focus* focus = &f->focus;
	if (!focus->valid || focus->state.archetype >= f->archetype_count) {
		return;
	}
	d->valid = true;
	d->id = focus->state.id;
	d->obstacle = UINT32_MAX;
	const throng_controller* c = &f->controllers[focus->state.archetype];
	// The engines' query radius, and the group rule of the slot that sets it.
	d->neighbor_radius = throng_controller_query_radius(c);
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		if (s->enabled && throng_behavior_reads_neighbors(s->kind) && s->params.neighbor_radius == d->neighbor_radius) {
			d->same_group_only = s->params.same_group_only;
			break;
		}
	}
	vec2 p = from(focus->state.position);
	vec2 v = from(focus->state.velocity);
	if (d->neighbor_radius > 0.0f) {
		float r2 = d->neighbor_radius * d->neighbor_radius;
		for (uint32_t k = 0; k < f->count; ++k) {
			float dx = f->x[k] - p.x, dy = f->y[k] - p.y;
			if (dx * dx + dy * dy >= r2 || f->id[k] == d->id ||
			    (d->same_group_only && f->group[k] != focus->state.group)) {
				continue;
			}
			if (d->marked < VW_MAX_MARKED) {
				d->marks[d->marked++] = (throng_vec2){f->x[k], f->y[k]};
			}
			d->neighbors++;
		}
	}
	if (length(v) < EPS) {
		return; // feelers need a heading from the velocity
	}
	vec2 h = normalize(v);
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		if (!s->enabled) {
			continue;
		}
		if (s->kind == THRONG_OBSTACLE_AVOID) {
			float along;
			uint32_t o = obstacle_hit(f, p, h, s->params.look_ahead, focus->state.radius, &along);
			if (o != UINT32_MAX) {
				d->obstacle_hit = true;
				d->obstacle = o;
			}
		} else if (s->kind == THRONG_WALL_AVOID) {
			float a = s->params.feeler_angle, len = s->params.look_ahead;
			d->wall_hit = d->wall_hit || wall_hit(f, p, h, len) >= 0.0f ||
			              wall_hit(f, p, rotate(h, a), 0.5f * len) >= 0.0f ||
			              wall_hit(f, p, rotate(h, -a), 0.5f * len) >= 0.0f;
		}
	}
}

/// World point to screen.
static vec2 to_screen(const vw_camera* cam, vec2 w)
{
	vec2 s;
	vw_camera_to_screen(cam, w.x, w.y, &s.x, &s.y);
	return s;
}

/// A feeler from p along dir of len metres, red when it hits (hit >= 0).
static void feeler(vw_batch* b, const vw_camera* cam, vec2 p, vec2 dir, float len, float hit)
{
	vec2 a = to_screen(cam, p), e = to_screen(cam, add(p, scale(dir, len)));
	vw_batch_line(b, a.x, a.y, e.x, e.y, hit >= 0.0f ? 2.5f : 1.5f, hit >= 0.0f ? VW_FEELER_HIT : VW_FEELER);
	if (hit >= 0.0f) {
		vec2 q = to_screen(cam, add(p, scale(dir, hit)));
		vw_batch_disc(b, q.x, q.y, 3.5f, VW_FEELER_HIT);
	}
}

/// Wander circle (SPEC.md circle form) from the stored heading and angle.
static void wander(vw_batch* b, const vw_camera* cam, const throng_agent_state* st, const throng_slot* s)
{
	vec2 p = from(st->position), h = from(st->heading);
	const throng_behavior_params* prm = &s->params;
	vec2 c;
	float theta;
	if (prm->frame == THRONG_WANDER_WORLD) {
		c = length(from(st->velocity)) < EPS ? p : add(p, scale(h, prm->circle_distance));
		theta = st->wander_angle;
	} else {
		c = add(p, scale(h, prm->circle_distance));
		theta = atan2f(h.y, h.x) + st->wander_angle;
	}
	vec2 target = add(c, scale((vec2){cosf(theta), sinf(theta)}, prm->circle_radius));
	vec2 sp = to_screen(cam, p), sc = to_screen(cam, c), st_ = to_screen(cam, target);
	vw_batch_line(b, sp.x, sp.y, sc.x, sc.y, 1.0f, WANDER);
	vw_batch_circle(b, sc.x, sc.y, prm->circle_radius * cam->scale, 1.5f, WANDER);
	vw_batch_line(b, sc.x, sc.y, st_.x, st_.y, 1.0f, WANDER);
	vw_batch_disc(b, st_.x, st_.y, 4.0f, WANDER);
}

void vw_debug_draw(vw_batch* b, const vw_debug* d, const vw_camera* cam, const vw_frame* f)
{
	if (!d->valid) {
		return;
	}
	const throng_agent_state* st = &f->focus.state;
	const throng_controller* c = &f->controllers[st->archetype];
	vec2 p = from(st->position), v = from(st->velocity);
	vec2 sp = to_screen(cam, p);
	float ring = st->radius * cam->scale * 1.8f;
	vw_batch_circle(b, sp.x, sp.y, ring < 9.0f ? 9.0f : ring, 1.5f, SELECT_RING);
	if (d->neighbor_radius > 0.0f) {
		vw_batch_circle(b, sp.x, sp.y, d->neighbor_radius * cam->scale, 1.5f, NEIGHBOR_RADIUS);
		for (uint32_t k = 0; k < d->marked; ++k) {
			vec2 q = to_screen(cam, from(d->marks[k]));
			vw_batch_line(b, sp.x, sp.y, q.x, q.y, 1.0f, NEIGHBOR_RADIUS);
			vw_batch_circle(b, q.x, q.y, 5.0f, 1.5f, NEIGHBOR_MARK);
		}
	}
	bool moving = length(v) >= EPS;
	vec2 h = normalize(v);
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		if (!s->enabled) {
			continue;
		}
		if (s->kind == THRONG_WANDER) {
			wander(b, cam, st, s);
		} else if (s->kind == THRONG_OBSTACLE_AVOID && moving) {
			float along = -1.0f;
			uint32_t o = obstacle_hit(f, p, h, s->params.look_ahead, st->radius, &along);
			feeler(b, cam, p, h, s->params.look_ahead, o != UINT32_MAX ? along : -1.0f);
			if (o != UINT32_MAX) {
				vec2 oc = to_screen(cam, from(f->obstacle_c[o]));
				vw_batch_circle(b, oc.x, oc.y, f->obstacle_r[o] * cam->scale, 2.5f, VW_FEELER_HIT);
			}
		} else if (s->kind == THRONG_WALL_AVOID && moving) {
			float a = s->params.feeler_angle, len = s->params.look_ahead;
			vec2 dirs[3] = {h, rotate(h, a), rotate(h, -a)};
			for (int i = 0; i < 3; ++i) {
				float l = i == 0 ? len : 0.5f * len;
				feeler(b, cam, p, dirs[i], l, wall_hit(f, p, dirs[i], l));
			}
		}
	}
	// Forces last, on top: each slot's (unweighted) force, then the blend.
	float per_force = st->max_force > 0.0f ? VW_ARROW_PX / st->max_force : 0.0f;
	if (f->focus.has_forces) {
		for (uint32_t k = 0; k < c->slot_count && k < f->focus.slot_count; ++k) {
			vec2 fk = from(f->focus.slot_force[k]);
			if (c->slots[k].enabled && length(fk) > EPS) {
				vw_batch_arrow(b, sp.x, sp.y, sp.x + fk.x * per_force, sp.y - fk.y * per_force, 2.0f,
				               vw_behavior_color(c->slots[k].kind));
			}
		}
		vec2 t = from(f->focus.total_force);
		vw_batch_arrow(b, sp.x, sp.y, sp.x + t.x * per_force, sp.y - t.y * per_force, 5.0f, VW_TOTAL_FORCE);
	}
	float per_speed = st->max_speed > 0.0f ? VW_ARROW_PX / st->max_speed : 0.0f;
	vw_batch_arrow(b, sp.x, sp.y, sp.x + v.x * per_speed, sp.y - v.y * per_speed, 1.5f, VW_VELOCITY);
}
