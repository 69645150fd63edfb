// SPDX-License-Identifier: MIT
// Validation of everything that enters a world: defs, controllers, agents,
// shapes. Each check names the offending field and the value it got, and
// runs before anything is written, so a failed call leaves the world as it
// was.
#include "validate.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "error.h"
#include "fmath.h"
#include "vec.h"

/// Upper bound of lengths (m), speeds and rates: far beyond any scene, far
/// below float overflow when squared.
#define THR_MAX_MAGNITUDE 1.0e6f
/// Lower bound of the same when they are not 0. Below it a square (a radius
/// squared) or a ratio to the world's extent (cells across a world of
/// 2e6 m) leaves the normal floats: a radius of 1e-45, a subnormal, made a
/// grid cell that `cell *= 1.25f` could never grow.
#define THR_MIN_MAGNITUDE 1.0e-6f

static throng_status bad(const char* ctx, const char* field, const char* what, float got)
{
	char g[THR_FMT_FLOAT_CAP];
	return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: %s (got %s)", ctx, field, what, thr_fmt_float(g, got));
}

/// An integer field (a count, an enum) printed as the integer it is.
static throng_status bad_int(const char* ctx, const char* field, const char* what, long long got)
{
	return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: %s (got %lld)", ctx, field, what, got);
}

/// Not 0, but below THR_MIN_MAGNITUDE. `zero_ok` and `zero_means` say
/// whether 0 is allowed and what it means ("" or " (automatic)").
static throng_status too_small(const char* ctx, const char* field, float v, bool zero_ok, const char* zero_means)
{
	char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
	return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: too small (got %s, %s%s%sat least %s: smaller values underflow)",
	                ctx, field, thr_fmt_float(g, v), zero_ok ? "expected 0" : "", zero_ok ? zero_means : "",
	                zero_ok ? " or " : "", thr_fmt_float(m, THR_MIN_MAGNITUDE));
}

/// finite, in [THR_MIN_MAGNITUDE, THR_MAX_MAGNITUDE]
static throng_status positive(const char* ctx, const char* field, float v)
{
	if (!isfinite(v) || !(v > 0.0f) || v > THR_MAX_MAGNITUDE) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: must be finite, > 0 and <= %s (got %s)", ctx, field,
		                thr_fmt_float(m, THR_MAX_MAGNITUDE), thr_fmt_float(g, v));
	}
	if (v < THR_MIN_MAGNITUDE) {
		return too_small(ctx, field, v, false, "");
	}
	return THRONG_OK;
}

/// finite, 0 or in [THR_MIN_MAGNITUDE, THR_MAX_MAGNITUDE]
static throng_status non_negative(const char* ctx, const char* field, float v)
{
	if (!isfinite(v) || !(v >= 0.0f) || v > THR_MAX_MAGNITUDE) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: must be finite, >= 0 and <= %s (got %s)", ctx, field,
		                thr_fmt_float(m, THR_MAX_MAGNITUDE), thr_fmt_float(g, v));
	}
	if (v != 0.0f && v < THR_MIN_MAGNITUDE) {
		return too_small(ctx, field, v, true, "");
	}
	return THRONG_OK;
}

static throng_status coordinate(const char* ctx, const char* field, float v)
{
	if (!isfinite(v) || fabsf(v) > THRONG_MAX_COORD) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s%s: must be finite with magnitude <= %s (got %s)", ctx,
		                field, thr_fmt_float(m, THRONG_MAX_COORD), thr_fmt_float(g, v));
	}
	return THRONG_OK;
}

throng_status thr_validate_point(const char* ctx, throng_vec2 p)
{
	if (!isfinite(p.x) || !isfinite(p.y) || fabsf(p.x) > THRONG_MAX_COORD || fabsf(p.y) > THRONG_MAX_COORD) {
		char f[3][THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: must be finite with magnitude <= %s (got %s, %s)", ctx,
		                thr_fmt_float(f[0], THRONG_MAX_COORD), thr_fmt_float(f[1], p.x), thr_fmt_float(f[2], p.y));
	}
	return THRONG_OK;
}

#define TRY(expr)                                                                                          \
	do {                                                                                               \
		throng_status st_ = (expr);                                                                \
		if (st_ != THRONG_OK) {                                                                    \
			return st_;                                                                        \
		}                                                                                          \
	} while (0)

throng_status thr_validate_def(const throng_world_def* def)
{
	const char* c = "world def.";
	if (def == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "world def: is NULL");
	}
	if (def->internal_cookie != THR_DEF_COOKIE) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "world def: not initialised with throng_world_default_def()");
	}
	TRY(coordinate(c, "bounds_min.x", def->bounds_min.x));
	TRY(coordinate(c, "bounds_min.y", def->bounds_min.y));
	TRY(coordinate(c, "bounds_max.x", def->bounds_max.x));
	TRY(coordinate(c, "bounds_max.y", def->bounds_max.y));
	if (!(def->bounds_max.x > def->bounds_min.x)) {
		return bad(c, "bounds_max.x", "must be greater than bounds_min.x", def->bounds_max.x);
	}
	if (!(def->bounds_max.y > def->bounds_min.y)) {
		return bad(c, "bounds_max.y", "must be greater than bounds_min.y", def->bounds_max.y);
	}
	if ((unsigned)def->bounds_mode > THRONG_BOUNDS_OPEN) {
		return bad_int(c, "bounds_mode", "must be contain, wrap, bounce or open", def->bounds_mode);
	}
	if (!isfinite(def->dt) || !(def->dt > 0.0f) || def->dt > 1.0f) {
		return bad(c, "dt", "must be finite and in (0, 1] seconds", def->dt);
	}
	if (def->dt < FLT_MIN) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%sdt: too small (got %s s, a subnormal float; at least %s s, the smallest normal float)", c,
		                thr_fmt_float(g, def->dt), thr_fmt_float(m, FLT_MIN));
	}
	if (!isfinite(def->cell_size) || def->cell_size < 0.0f || def->cell_size > THR_MAX_MAGNITUDE) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%scell_size: must be 0 (automatic) or finite, > 0 and <= %s (got %s)", c,
		                thr_fmt_float(m, THR_MAX_MAGNITUDE), thr_fmt_float(g, def->cell_size));
	}
	if (def->cell_size != 0.0f && def->cell_size < THR_MIN_MAGNITUDE) {
		return too_small(c, "cell_size", def->cell_size, true, " (automatic)");
	}
	if (def->capacity < 1 || def->capacity > THR_MAX_CAPACITY) {
		char what[48];
		snprintf(what, sizeof what, "must be from 1 to %u", THR_MAX_CAPACITY);
		return bad_int(c, "capacity", what, def->capacity);
	}
	if ((unsigned)def->engine > THRONG_ENGINE_SIMD) {
		return bad_int(c, "engine", "must be scalar or simd", def->engine);
	}
	if (def->threads > THRONG_MAX_THREADS) {
		char what[64];
		snprintf(what, sizeof what, "must be from 0 (OpenMP's default) to %u", THRONG_MAX_THREADS);
		return bad_int(c, "threads", what, def->threads);
	}
	if ((unsigned)def->threads_policy > THRONG_THREADS_FIXED) {
		return bad_int(c, "threads_policy", "must be adapt or fixed", def->threads_policy);
	}
	return THRONG_OK;
}

static throng_status check_params(const char* ctx, throng_behavior_kind kind, const throng_behavior_params* p)
{
	switch (kind) {
	case THRONG_SEEK:
	case THRONG_ARRIVE:
	case THRONG_FLEE:
	case THRONG_PURSUIT:
	case THRONG_EVADE:
		if ((unsigned)p->target > THRONG_TARGET_AGENT) {
			return bad_int(ctx, "params.target", "must be point, threat or agent", p->target);
		}
		break;
	default:
		break;
	}
	switch (kind) {
	case THRONG_FLEE:
		if ((unsigned)p->flee_mode > THRONG_FLEE_SAFE) {
			return bad_int(ctx, "params.flee_mode", "must be always, panic or safe", p->flee_mode);
		}
		return positive(ctx, "params.flee_radius", p->flee_radius);
	case THRONG_ARRIVE:
		return positive(ctx, "params.slow_radius", p->slow_radius);
	case THRONG_PURSUIT:
		return non_negative(ctx, "params.max_prediction", p->max_prediction);
	case THRONG_EVADE:
		TRY(positive(ctx, "params.evade_radius", p->evade_radius));
		return non_negative(ctx, "params.max_prediction", p->max_prediction);
	case THRONG_WANDER:
		TRY(non_negative(ctx, "params.circle_distance", p->circle_distance));
		TRY(non_negative(ctx, "params.circle_radius", p->circle_radius));
		TRY(non_negative(ctx, "params.jitter", p->jitter));
		if ((unsigned)p->frame > THRONG_WANDER_WORLD) {
			return bad_int(ctx, "params.frame", "must be local or world", p->frame);
		}
		return THRONG_OK;
	case THRONG_WANDER_NOISE:
		TRY(non_negative(ctx, "params.noise_frequency", p->noise_frequency));
		return non_negative(ctx, "params.noise_amplitude", p->noise_amplitude);
	case THRONG_OBSTACLE_AVOID:
		return positive(ctx, "params.look_ahead", p->look_ahead);
	case THRONG_WALL_AVOID:
		TRY(positive(ctx, "params.look_ahead", p->look_ahead));
		if (!isfinite(p->feeler_angle) || p->feeler_angle < 0.0f || p->feeler_angle > THR_PI) {
			return bad(ctx, "params.feeler_angle", "must be finite and in [0, pi]", p->feeler_angle);
		}
		return THRONG_OK;
	case THRONG_UNALIGNED_AVOID:
		TRY(positive(ctx, "params.avoid_radius", p->avoid_radius));
		TRY(non_negative(ctx, "params.max_prediction", p->max_prediction));
		return positive(ctx, "params.neighbor_radius", p->neighbor_radius);
	case THRONG_SEPARATION:
	case THRONG_ALIGNMENT:
	case THRONG_COHESION:
		return positive(ctx, "params.neighbor_radius", p->neighbor_radius);
	case THRONG_HEADWAY:
		TRY(positive(ctx, "params.neighbor_radius", p->neighbor_radius));
		return positive(ctx, "params.time_gap", p->time_gap);
	case THRONG_ANTICIPATION:
		TRY(positive(ctx, "params.neighbor_radius", p->neighbor_radius));
		TRY(positive(ctx, "params.ttc_strength", p->ttc_strength));
		TRY(positive(ctx, "params.ttc_horizon", p->ttc_horizon));
		TRY(positive(ctx, "params.ttc_max_time", p->ttc_max_time));
		if (!isfinite(p->fov_weight) || p->fov_weight < 0.0f || p->fov_weight > 1.0f) {
			return bad(ctx, "params.fov_weight", "must be finite and in [0, 1]", p->fov_weight);
		}
		if (!isfinite(p->side_bias) || p->side_bias < -1.0f || p->side_bias > 1.0f) {
			return bad(ctx, "params.side_bias", "must be finite and in [-1, 1]", p->side_bias);
		}
		return THRONG_OK;
	case THRONG_BOUNDS:
		return positive(ctx, "params.margin", p->margin);
	case THRONG_PATH_FOLLOW:
		TRY(positive(ctx, "params.waypoint_radius", p->waypoint_radius));
		return positive(ctx, "params.slow_radius", p->slow_radius);
	default:
		return THRONG_OK;
	}
}

/// Combat's fields, checked even when it is off (as contact.slip): a NaN
/// kept in a controller would come back through a saved file.
static throng_status check_combat(const throng_combat* c)
{
	static const char ctx[] = "controller.combat.";
	if ((unsigned)c->attack > THRONG_ATTACK_MISSILE) {
		return bad_int(ctx, "attack", "must be none, melee or missile", c->attack);
	}
	if (c->enabled) {
		TRY(positive(ctx, "health", c->health));
	} else {
		TRY(non_negative(ctx, "health", c->health));
		if (c->attack != THRONG_ATTACK_NONE) {
			return bad_int(ctx, "attack", "needs combat enabled", c->attack);
		}
	}
	TRY(non_negative(ctx, "armour", c->armour));
	TRY(non_negative(ctx, "reach", c->reach));
	TRY(non_negative(ctx, "damage", c->damage));
	TRY(non_negative(ctx, "cooldown", c->cooldown));
	if (!isfinite(c->accuracy) || !(c->accuracy >= 0.0f) || c->accuracy > 1.0f) {
		return bad(ctx, "accuracy", "must be finite and in [0, 1]", c->accuracy);
	}
	if (c->attack == THRONG_ATTACK_MISSILE) {
		TRY(positive(ctx, "missile_speed", c->missile_speed));
	} else {
		TRY(non_negative(ctx, "missile_speed", c->missile_speed));
	}
	TRY(non_negative(ctx, "spread", c->spread));
	if (!(c->body_radius == 0.0f || (c->body_radius >= 1.0e-6f && c->body_radius <= 1.0e6f))) {
		return bad(ctx, "body_radius", "must be 0 (no body) or finite and in [1e-6, 1e6]", c->body_radius);
	}
	return THRONG_OK;
}

throng_status thr_validate_controller(const throng_controller* ctl)
{
	if (ctl == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "controller: is NULL");
	}
	if ((unsigned)ctl->mode > THRONG_BLEND_RELAXATION) {
		return bad_int("controller.", "mode", "must be weighted, priority, hybrid or relaxation", ctl->mode);
	}
	if (ctl->mode == THRONG_BLEND_RELAXATION) {
		// Read only in that mode, as contact.stiffness only with contacts on.
		TRY(positive("controller.", "relaxation_time", ctl->relaxation_time));
	}
	if (ctl->slot_count > THRONG_MAX_SLOTS) {
		char what[32];
		snprintf(what, sizeof what, "must be at most %d", THRONG_MAX_SLOTS);
		return bad_int("controller.", "slot_count", what, ctl->slot_count);
	}
	if (ctl->target_rule.enabled) {
		TRY(positive("controller.", "target_rule.sight_radius", ctl->target_rule.sight_radius));
		if (ctl->target_rule.every < 1) {
			return bad_int("controller.", "target_rule.every", "must be at least 1 step", ctl->target_rule.every);
		}
	}
	if (ctl->contact.enabled) {
		const float k = ctl->contact.stiffness;
		if (!isfinite(k) || k < THR_MIN_MAGNITUDE || k > 1.0f) {
			char what[32], m[THR_FMT_FLOAT_CAP];
			snprintf(what, sizeof what, "must be in [%s, 1]", thr_fmt_float(m, THR_MIN_MAGNITUDE));
			return bad("controller.", "contact.stiffness", what, k);
		}
		if (ctl->contact.iterations < 1 || ctl->contact.iterations > THRONG_CONTACT_MAX_ITERATIONS) {
			char what[32];
			snprintf(what, sizeof what, "must be from 1 to %d", THRONG_CONTACT_MAX_ITERATIONS);
			return bad_int("controller.", "contact.iterations", what, ctl->contact.iterations);
		}
	}
	// Checked even with contacts off: a NaN kept in a controller would
	// come back through throng_world_get_controller and a saved file.
	const float slip = ctl->contact.slip;
	if (!isfinite(slip) || !(slip >= 0.0f) || slip > 1.0f) {
		return bad("controller.", "contact.slip", "must be finite and in [0, 1]", slip);
	}
	if (slip != 0.0f && slip < THR_MIN_MAGNITUDE) {
		return too_small("controller.", "contact.slip", slip, true, "");
	}
	TRY(non_negative("controller.", "contact.noise", ctl->contact.noise));
	TRY(check_combat(&ctl->combat));
	int wanders = 0, noises = 0;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* s = &ctl->slots[k];
		char ctx[48];
		snprintf(ctx, sizeof ctx, "controller.slots[%u].", k);
		if ((unsigned)s->kind >= THRONG_BEHAVIOR_COUNT) {
			return bad_int(ctx, "kind", "is not a known behaviour", s->kind);
		}
		TRY(non_negative(ctx, "weight", s->weight));
		TRY(check_params(ctx, s->kind, &s->params));
		// Each wander form keeps one persistent angle per agent, so a
		// controller holds at most one slot of each.
		if (s->kind == THRONG_WANDER && ++wanders > 1) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			                "%skind: a controller holds at most one wander slot", ctx);
		}
		if (s->kind == THRONG_WANDER_NOISE && ++noises > 1) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			                "%skind: a controller holds at most one wander_noise slot", ctx);
		}
	}
	return THRONG_OK;
}

throng_status thr_validate_agent(const throng_world_def* d, uint32_t archetypes, uint32_t paths, uint32_t units,
                                 const throng_agent_def* a, uint32_t index, uint32_t ids_end)
{
	// Spawning a million agents validates a million defs: build the
	// "agents[N]." prefix by hand rather than through snprintf.
	char ctx[32] = "agents[";
	char digits[12];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + index % 10u);
		index /= 10u;
	} while (index != 0);
	size_t at = 7;
	while (nd > 0) {
		ctx[at++] = digits[--nd];
	}
	ctx[at++] = ']';
	ctx[at++] = '.';
	ctx[at] = '\0';
	TRY(coordinate(ctx, "position.x", a->position.x));
	TRY(coordinate(ctx, "position.y", a->position.y));
	TRY(coordinate(ctx, "velocity.x", a->velocity.x));
	TRY(coordinate(ctx, "velocity.y", a->velocity.y));
	TRY(coordinate(ctx, "heading.x", a->heading.x));
	TRY(coordinate(ctx, "heading.y", a->heading.y));
	TRY(coordinate(ctx, "target.x", a->target.x));
	TRY(coordinate(ctx, "target.y", a->target.y));
	TRY(positive(ctx, "max_speed", a->max_speed));
	TRY(positive(ctx, "max_force", a->max_force));
	TRY(positive(ctx, "radius", a->radius));
	float speed = v2_length(a->velocity);
	if (!thr_speed_fits(speed, a->max_speed)) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%svelocity: too fast (got length %s, at most max_speed %s)",
		                ctx, thr_fmt_float(g, speed), thr_fmt_float(m, a->max_speed));
	}
	float hl = v2_length(a->heading);
	if (hl != 0.0f && fabsf(hl - 1.0f) > 1.0e-3f) {
		char g[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sheading: must be (0,0) or a unit vector (got length %s)",
		                ctx, thr_fmt_float(g, hl));
	}
	if (a->archetype >= archetypes) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%sarchetype: no archetype %u (the world has %u)", ctx,
		                a->archetype, archetypes);
	}
	if (a->target_agent != THRONG_NO_AGENT && a->target_agent >= ids_end) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%starget_agent: no agent %u (ids end at %u)", ctx,
		                a->target_agent, ids_end - 1);
	}
	if (a->path != THRONG_NO_PATH && a->path >= paths) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%spath: no path %u (the world has %u)", ctx, a->path, paths);
	}
	if (a->unit != THRONG_NO_UNIT && a->unit >= units) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%sunit: no unit %u (the world has %u)", ctx, a->unit, units);
	}
	if (d->bounds_mode != THRONG_BOUNDS_OPEN) {
		if (a->position.x < d->bounds_min.x || a->position.x > d->bounds_max.x ||
		    a->position.y < d->bounds_min.y || a->position.y > d->bounds_max.y) {
			char f[6][THR_FMT_FLOAT_CAP];
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sposition: (%s, %s) is outside the world (%s, %s)..(%s, %s)",
			                ctx, thr_fmt_float(f[0], a->position.x), thr_fmt_float(f[1], a->position.y),
			                thr_fmt_float(f[2], d->bounds_min.x), thr_fmt_float(f[3], d->bounds_min.y),
			                thr_fmt_float(f[4], d->bounds_max.x), thr_fmt_float(f[5], d->bounds_max.y));
		}
	}
	return THRONG_OK;
}

throng_status thr_validate_magnitude(const char* ctx, const char* field, float v)
{
	return positive(ctx, field, v);
}

throng_status thr_validate_position(const throng_world_def* d, const char* ctx, throng_vec2 p)
{
	TRY(coordinate(ctx, "x", p.x));
	TRY(coordinate(ctx, "y", p.y));
	if (d->bounds_mode != THRONG_BOUNDS_OPEN &&
	    (p.x < d->bounds_min.x || p.x > d->bounds_max.x || p.y < d->bounds_min.y || p.y > d->bounds_max.y)) {
		char f[6][THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s(%s, %s) is outside the world (%s, %s)..(%s, %s)", ctx,
		                thr_fmt_float(f[0], p.x), thr_fmt_float(f[1], p.y), thr_fmt_float(f[2], d->bounds_min.x),
		                thr_fmt_float(f[3], d->bounds_min.y), thr_fmt_float(f[4], d->bounds_max.x),
		                thr_fmt_float(f[5], d->bounds_max.y));
	}
	return THRONG_OK;
}

throng_status thr_validate_obstacle(const char* ctx, throng_vec2 c, float r)
{
	TRY(coordinate(ctx, "center.x", c.x));
	TRY(coordinate(ctx, "center.y", c.y));
	return positive(ctx, "radius", r);
}

throng_status thr_validate_wall(const char* ctx, throng_vec2 a, throng_vec2 b)
{
	TRY(coordinate(ctx, "a.x", a.x));
	TRY(coordinate(ctx, "a.y", a.y));
	TRY(coordinate(ctx, "b.x", b.x));
	TRY(coordinate(ctx, "b.y", b.y));
	float len = v2_length(v2_sub(b, a));
	if (!(len > THR_MIN_WALL_LENGTH)) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%sb: too short a wall (got length %s m from a, expected more than %s m)", ctx,
		                thr_fmt_float(g, len), thr_fmt_float(m, THR_MIN_WALL_LENGTH));
	}
	return THRONG_OK;
}
