// SPDX-License-Identifier: MIT
// Controllers: slot defaults, the three blending modes of SPEC.md and the
// relaxation mode (docs/BEHAVIORS.md, "The relaxation blend").
#include <math.h>
#include <string.h>

#include "behaviors.h"
#include "fmath.h"

throng_behavior_params throng_behavior_default_def(void)
{
	// Defaults for a pedestrian (max speed ~1.3 m/s); the wander and feeler
	// values are the seeds' (circleDist 2, circleRadius 1, jitter 2.5,
	// lookAhead 3, T_max 1).
	throng_behavior_params p;
	memset(&p, 0, sizeof p);
	p.target = THRONG_TARGET_POINT;
	p.flee_mode = THRONG_FLEE_ALWAYS;
	p.flee_radius = 5.0f;
	p.slow_radius = 3.0f;
	p.evade_radius = 8.0f;
	p.max_prediction = 1.0f;
	p.circle_distance = 2.0f;
	p.circle_radius = 1.0f;
	p.jitter = 2.5f;
	p.frame = THRONG_WANDER_LOCAL;
	p.noise_frequency = 0.5f;
	p.noise_amplitude = 2.0f;
	p.look_ahead = 3.0f;
	p.feeler_angle = 0.25f * THR_PI;
	p.avoid_radius = 1.0f;
	p.neighbor_radius = 3.0f;
	p.same_group_only = false;
	p.margin = 2.0f;
	p.waypoint_radius = 1.0f;
	// JuPedSim's default time gap of the collision-free speed model
	// (CollisionFreeSpeedModelAgentParameters.time_gap = 1.0 s).
	p.time_gap = 1.0f;
	// Anticipation: the power law's fitted k and tau0 (Karamouzas et al.
	// 2014) and the cut-off of their reference code.
	p.ttc_strength = 1.5f;
	p.ttc_horizon = 3.0f;
	p.ttc_max_time = 999.0f;
	p.fov_weight = 0.5f;
	p.side_bias = 0.5f;
	return p;
}

throng_slot throng_slot_default_def(throng_behavior_kind kind)
{
	throng_slot s;
	memset(&s, 0, sizeof s);
	s.kind = kind;
	s.weight = 1.0f;
	s.enabled = true;
	s.priority = false;
	s.params = throng_behavior_default_def();
	return s;
}

throng_controller throng_controller_default_def(throng_blend_mode mode)
{
	throng_controller c;
	memset(&c, 0, sizeof c);
	c.mode = mode;
	c.relaxation_time = 0.5f;
	c.contact.enabled = true;
	c.contact.stiffness = 1.0f;
	c.contact.iterations = 4;
	c.contact.inelastic = false;
	return c;
}

int throng_controller_add(throng_controller* controller, throng_slot slot)
{
	if (controller == NULL || controller->slot_count >= THRONG_MAX_SLOTS) {
		return -1;
	}
	controller->slots[controller->slot_count] = slot;
	return (int)controller->slot_count++;
}

throng_controller throng_controller_pedestrian_def(throng_behavior_kind drive)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_RELAXATION); // tau 0.5 s
	c.contact.slip = 0.5f;
	c.contact.noise = 0.15f;
	throng_slot walls = throng_slot_default_def(THRONG_WALL_AVOID);
	walls.weight = 3.0f;
	walls.priority = true;
	walls.params.look_ahead = 1.5f;
	throng_slot others = throng_slot_default_def(THRONG_ANTICIPATION);
	others.priority = true;
	others.params.neighbor_radius = 4.0f;
	others.params.side_bias = 1.0f;
	others.params.ttc_strength = 0.5f;
	// Bodies of 0.17 m packed at a door stand up to 10 /m^2: some 500
	// within 4 m, which the default cap (256, the first in storage order,
	// not the nearest) would cut; `bottleneck`'s crush met 256.
	others.params.max_neighbors = THRONG_PEDESTRIAN_MAX_NEIGHBORS;
	throng_slot ahead = throng_slot_default_def(THRONG_HEADWAY);
	ahead.params.neighbor_radius = 3.0f;
	ahead.params.time_gap = 0.55f;
	ahead.params.max_neighbors = THRONG_PEDESTRIAN_MAX_NEIGHBORS;
	throng_slot goal = throng_slot_default_def(drive);
	goal.params.slow_radius = 2.0f;
	goal.params.waypoint_radius = 1.0f;
	throng_controller_add(&c, walls);
	throng_controller_add(&c, others);
	throng_controller_add(&c, ahead);
	throng_controller_add(&c, goal);
	return c;
}

bool throng_behavior_reads_neighbors(throng_behavior_kind kind)
{
	return kind == THRONG_UNALIGNED_AVOID || kind == THRONG_SEPARATION || kind == THRONG_ALIGNMENT ||
	       kind == THRONG_COHESION || kind == THRONG_ANTICIPATION || kind == THRONG_HEADWAY;
}

float throng_controller_query_radius(const throng_controller* c)
{
	float r = 0.0f;
	for (uint32_t k = 0; c != NULL && k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		if (s->enabled && throng_behavior_reads_neighbors(s->kind) && s->params.neighbor_radius > r) {
			r = s->params.neighbor_radius;
		}
	}
	return r;
}

/// Priority blending over the enabled slots for which `pick(slot)` holds:
/// each weighted force is cut to the remaining budget, added, and spends
/// its length; the loop stops when nothing is left. Returns the budget left.
static float spend_budget(const throng_controller* ctl, const vec2* forces, float budget, int priority_only,
                          vec2* total)
{
	for (uint32_t k = 0; k < ctl->slot_count && budget > 0.0f; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled || (priority_only && !s->priority)) {
			continue;
		}
		vec2 f = v2_scale(forces[k], s->weight);
		float len = v2_length(f);
		// Choice: the budget drops by min(|f|, budget), which is |f| after
		// the cut up to rounding, and exactly 0 when the slot was cut.
		if (len > budget) {
			float sc = budget / len;
			f = v2(f.x * sc, f.y * sc);
			len = budget;
		}
		*total = v2_add(*total, f);
		budget = budget - len;
	}
	return budget;
}

/// Headway slots outside the relaxation mode: slot k's raw force holds in
/// x the speed V it allows (+Inf: nobody ahead); it becomes the braking
/// force limit(limit(v, V) - v, max_force), 0 when |v| <= V.
static void headway_brakes(const throng_controller* ctl, vec2* forces, vec2 v, float max_force)
{
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (s->enabled && s->kind == THRONG_HEADWAY) {
			forces[k] = v2_limit(v2_sub(v2_limit(v, forces[k].x), v), max_force);
		}
	}
}

/// The relaxation mode: total = limit(D / tau + I, max_force), the drive D
/// capped by the headway slots' least speed V, beside a wall (by_wall)
/// only when the desired velocity v + D points within THR_HEADWAY_CONE of
/// the heading h, along which V was measured (docs/BEHAVIORS.md). Each
/// headway slot's force becomes the change the cap made, Dc/tau - D/tau.
static vec2 relaxation(const throng_controller* ctl, vec2* forces, vec2 v, vec2 h, float max_force, bool by_wall)
{
	vec2 drive = v2(0.0f, 0.0f), inter = v2(0.0f, 0.0f);
	float cap = INFINITY;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		if (!s->enabled) {
			continue;
		}
		if (s->kind == THRONG_HEADWAY) {
			cap = forces[k].x < cap ? forces[k].x : cap;
		} else if (s->priority) {
			inter = v2_add(inter, v2_scale(forces[k], s->weight));
		} else {
			drive = v2_add(drive, v2_scale(forces[k], s->weight));
		}
	}
	const float inv_tau = 1.0f / ctl->relaxation_time; // D / tau as D * (1 / tau)
	vec2 desired = v2_add(v, drive);
	float len = v2_length(desired);
	vec2 capped = drive;
	// Choice: the headway measured the space ahead along h. Beside a wall,
	// a walker whose desired velocity points elsewhere (more than
	// acos(THR_HEADWAY_CONE) off h: the wall turned it, or the contacts'
	// noise) is not held by whoever stands in front of its face, and turns
	// towards its desire, where the next step measures the space. Away
	// from walls every desire is capped, so a packed crowd whose headings
	// the noise has scattered does not push.
	if (len > cap && (!by_wall || v2_dot(desired, h) > THR_HEADWAY_CONE * len)) {
		float sc = cap / len;
		capped = v2_sub(v2(desired.x * sc, desired.y * sc), v);
	}
	vec2 free = v2_scale(drive, inv_tau);
	vec2 held = v2_scale(capped, inv_tau);
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		if (ctl->slots[k].enabled && ctl->slots[k].kind == THRONG_HEADWAY) {
			forces[k] = v2_sub(held, free);
		}
	}
	return v2_limit(v2_add(held, inter), max_force);
}

vec2 thr_blend(const throng_controller* ctl, vec2* forces, float max_force, vec2 v, vec2 h, bool by_wall)
{
	vec2 total = v2(0.0f, 0.0f);
	if (ctl->mode == THRONG_BLEND_RELAXATION) {
		return relaxation(ctl, forces, v, h, max_force, by_wall);
	}
	headway_brakes(ctl, forces, v, max_force);
	switch (ctl->mode) {
	case THRONG_BLEND_PRIORITY:
		spend_budget(ctl, forces, max_force, 0, &total);
		return total;
	case THRONG_BLEND_HYBRID: {
		float left = spend_budget(ctl, forces, max_force, 1, &total);
		if (left <= 0.0f) {
			return total;
		}
		vec2 rest = v2(0.0f, 0.0f);
		for (uint32_t k = 0; k < ctl->slot_count; ++k) {
			const throng_slot* s = &ctl->slots[k];
			if (s->enabled && !s->priority) {
				rest = v2_add(rest, v2_scale(forces[k], s->weight));
			}
		}
		return v2_add(total, v2_limit(rest, left));
	}
	case THRONG_BLEND_WEIGHTED:
	default:
		for (uint32_t k = 0; k < ctl->slot_count; ++k) {
			const throng_slot* s = &ctl->slots[k];
			if (s->enabled) {
				total = v2_add(total, v2_scale(forces[k], s->weight));
			}
		}
		return v2_limit(total, max_force);
	}
}
