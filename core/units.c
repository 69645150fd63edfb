// SPDX-License-Identifier: MIT
// Units: morale and rout (units.h, throng/units.h).
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "validate.h"
#include "world_internal.h"

/// Fixed-point scales of the sums: positions in 1/256 m, headings in 2^-20.
#define POS_SCALE 256.0
#define HEADING_SCALE 1048576.0

/// How far a unit without a refuge runs, behind its facing (m).
#define RUN_DISTANCE 1000.0f

static const char add_fn[] = "throng_world_add_unit";

throng_unit_def throng_unit_default_def(void)
{
	throng_unit_def d;
	memset(&d, 0, sizeof d);
	d.morale = (throng_morale){.breaks_at = 0.4f,
	                           .flank = 1.0f,
	                           .rear = 3.0f,
	                           .panic = 0.05f,
	                           .panic_radius = 30.0f,
	                           .recovery = 0.02f,
	                           .rally_time = 10.0f,
	                           .rally_morale = 0.5f,
	                           .rallies = 1};
	d.internal_cookie = THR_DEF_COOKIE;
	return d;
}

throng_controller throng_controller_routing(const throng_controller* fighting)
{
	throng_controller r = *fighting;
	r.target_rule.enabled = false;
	r.combat.attack = THRONG_ATTACK_NONE;
	r.slot_count = 0;
	for (uint32_t k = 0; k < fighting->slot_count && k < THRONG_MAX_SLOTS; ++k) {
		switch (fighting->slots[k].kind) {
		case THRONG_SEEK:
		case THRONG_FLEE:
		case THRONG_ARRIVE:
		case THRONG_PURSUIT:
		case THRONG_EVADE:
		case THRONG_WANDER:
		case THRONG_WANDER_NOISE:
		case THRONG_PATH_FOLLOW:
			break; // where it was going no longer matters
		default:
			r.slots[r.slot_count++] = fighting->slots[k];
		}
	}
	throng_slot run = throng_slot_default_def(THRONG_SEEK);
	run.params.target = THRONG_TARGET_POINT;
	r.slots[r.slot_count < THRONG_MAX_SLOTS ? r.slot_count++ : THRONG_MAX_SLOTS - 1u] = run;
	return r;
}

/// A morale field: finite, in [0, 1e6] (or (0, most] when `positive`).
static throng_status check_field(const char* field, float v, bool positive, float most)
{
	if (!isfinite(v) || v < 0.0f || (positive && v <= 0.0f) || v > most) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.morale.%s: must be finite and in %s0, %s] (got %s)",
		                add_fn, field, positive ? "(" : "[", thr_fmt_float(m, most), thr_fmt_float(g, v));
	}
	return THRONG_OK;
}

static throng_status check_def(const throng_world* w, const throng_unit_def* d)
{
	if (d->internal_cookie != THR_DEF_COOKIE) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def: not made by throng_unit_default_def()", add_fn);
	}
	const uint32_t arch[2] = {d->archetype, d->rout_archetype};
	static const char* const names[2] = {"archetype", "rout_archetype"};
	for (int k = 0; k < 2; ++k) {
		if (arch[k] >= w->archetype_count) {
			return thr_fail(THRONG_ERR_NOT_FOUND, "%s: def.%s: no archetype %u (the world has %u)", add_fn, names[k],
			                arch[k], w->archetype_count);
		}
	}
	if (w->archetypes[d->archetype].combat.enabled != w->archetypes[d->rout_archetype].combat.enabled) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: def.rout_archetype: archetype %u %s combat and archetype %u %s (a routing soldier keeps "
		                "its health: both or neither)",
		                add_fn, d->rout_archetype, w->archetypes[d->rout_archetype].combat.enabled ? "has" : "has no",
		                d->archetype, w->archetypes[d->archetype].combat.enabled ? "has it" : "has none");
	}
	if (d->has_refuge) {
		throng_status st = thr_validate_point("throng_world_add_unit: def.refuge", d->refuge);
		if (st != THRONG_OK) {
			return st;
		}
	}
	const throng_morale* m = &d->morale;
	const struct {
		const char* name;
		float v;
		bool positive;
		float most;
	} fields[] = {{"breaks_at", m->breaks_at, true, 1.0f},      {"flank", m->flank, false, 1.0e6f},
	              {"rear", m->rear, false, 1.0e6f},             {"panic", m->panic, false, 1.0e6f},
	              {"panic_radius", m->panic_radius, false, 1.0e6f}, {"recovery", m->recovery, false, 1.0e6f},
	              {"rally_time", m->rally_time, false, 1.0e6f}, {"rally_morale", m->rally_morale, true, 1.0f}};
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k) {
		throng_status st = check_field(fields[k].name, fields[k].v, fields[k].positive, fields[k].most);
		if (st != THRONG_OK) {
			return st;
		}
	}
	return THRONG_OK;
}

throng_status throng_world_add_unit(throng_world* w, const throng_unit_def* def, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, add_fn);
	if (st == THRONG_OK && (def == NULL || id_out == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", add_fn, def == NULL ? "def" : "id_out");
	}
	if (st == THRONG_OK) {
		st = check_def(w, def);
	}
	if (st == THRONG_OK && w->unit_count >= THRONG_MAX_UNITS) {
		st = thr_fail(THRONG_ERR_CAPACITY, "%s: the world holds THRONG_MAX_UNITS (%u) units", add_fn, THRONG_MAX_UNITS);
	}
	if (st == THRONG_OK && w->unit_count == w->unit_cap) {
		const uint32_t cap = w->unit_cap > 0 ? 2u * w->unit_cap : 8u;
		thr_unit* p = realloc(w->units, (size_t)cap * sizeof *p);
		if (p == NULL) {
			st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u units", add_fn, cap);
		} else {
			w->units = p;
			w->unit_cap = cap;
		}
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_unit* u = &w->units[w->unit_count];
	memset(u, 0, sizeof *u);
	u->def = *def;
	u->rallies_left = def->morale.rallies;
	u->base = 1.0f;
	u->morale = 1.0f;
	u->routed_step = UINT64_MAX;
	u->fx = 1.0f;
	*id_out = w->unit_count++;
	return THRONG_OK;
}

uint32_t throng_world_unit_count(const throng_world* w)
{
	return thr_check_world(w, "throng_world_unit_count") == THRONG_OK ? w->unit_count : 0u;
}

throng_status throng_world_get_unit(const throng_world* w, uint32_t unit, throng_unit_state* out)
{
	static const char fn[] = "throng_world_get_unit";
	throng_status st = thr_check_world(w, fn);
	if (st == THRONG_OK && out == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
	}
	if (st == THRONG_OK && unit >= w->unit_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "%s: unit: no unit %u (the world has %u)", fn, unit, w->unit_count);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_unit* u = &w->units[unit];
	*out = (throng_unit_state){.count = u->count,
	                           .most = u->most,
	                           .morale = u->morale,
	                           .shock = u->shock,
	                           .routing = u->routing,
	                           .rallies_left = u->rallies_left,
	                           .routed_step = u->routed_step,
	                           .centre = {u->cx, u->cy},
	                           .facing = {u->fx, u->fy},
	                           .refuge = {u->rx, u->ry}};
	return THRONG_OK;
}

void thr_units_hit(throng_world* w, uint32_t target, uint32_t attacker)
{
	const uint32_t k = w->unit[target];
	if (k == THRONG_NO_UNIT) {
		return;
	}
	thr_unit* u = &w->units[k];
	u->hit = true;
	const uint32_t a = attacker < thr_id_end(w) ? w->slot_of[attacker] : THR_NO_SLOT;
	if (a == THR_NO_SLOT) {
		return; // its attacker is gone (a shooter whose missile landed after it died): a hit from the front
	}
	const thr_state* s = thr_cur_c(w);
	const float dx = s->px[a] - s->px[target], dy = s->py[a] - s->py[target];
	const float d = sqrtf(dx * dx + dy * dy);
	if (!(d > 0.0f)) {
		return;
	}
	// Front within 60 degrees of the facing, rear within 60 degrees of
	// its back, the flanks between. A unit not measured yet (its first
	// step) faces as the soldier hit does.
	const bool measured = u->most > 0;
	const float fx = measured ? u->fx : s->hx[target], fy = measured ? u->fy : s->hy[target];
	const float c = (dx * fx + dy * fy) / d;
	u->rear_hits += c <= -0.5f;
	u->flank_hits += c > -0.5f && c < 0.5f;
}

/// Gives the members of the units flagged `change` their new
/// archetype and targets: a routing unit's its rout archetype and the
/// refuge, a rallied unit's its archetype again; either way no target
/// agent (a rule chooses again).
static void reassign(throng_world* w)
{
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint32_t k = w->unit[i];
		if (k == THRONG_NO_UNIT || !w->units[k].change) {
			continue;
		}
		const thr_unit* u = &w->units[k];
		const uint32_t arch = u->routing ? u->def.rout_archetype : u->def.archetype;
		const throng_combat* was = &w->archetypes[w->archetype[i]].combat;
		const throng_combat* now = &w->archetypes[arch].combat;
		w->health[i] = !now->enabled ? 0.0f : was->enabled ? w->health[i] : now->health;
		w->archetype[i] = arch;
		w->target_agent[i] = THRONG_NO_AGENT;
		if (u->routing) {
			w->tx[i] = u->rx;
			w->ty[i] = u->ry;
		}
	}
	w->shapes_dirty = 1; // the shape grids' reach follows the archetypes in use
}

/// Where a unit that routs now runs: its refuge, or RUN_DISTANCE behind
/// its facing, inside the world's bounds (1 m in when they are closed).
static void choose_refuge(const throng_world* w, thr_unit* u)
{
	if (u->def.has_refuge) {
		u->rx = u->def.refuge.x;
		u->ry = u->def.refuge.y;
		return;
	}
	float x = u->cx - RUN_DISTANCE * u->fx, y = u->cy - RUN_DISTANCE * u->fy;
	const throng_world_def* d = &w->def;
	if (d->bounds_mode != THRONG_BOUNDS_OPEN) {
		const float inset_x = fminf(1.0f, 0.25f * (d->bounds_max.x - d->bounds_min.x));
		const float inset_y = fminf(1.0f, 0.25f * (d->bounds_max.y - d->bounds_min.y));
		x = fminf(fmaxf(x, d->bounds_min.x + inset_x), d->bounds_max.x - inset_x);
		y = fminf(fmaxf(y, d->bounds_min.y + inset_y), d->bounds_max.y - inset_y);
	}
	u->rx = x;
	u->ry = y;
}

/// A unit's centre, facing, strength and shock from its sums and its
/// step's hits.
static void measure(thr_unit* u, float dt)
{
	u->count = u->n;
	u->most = u->n > u->most ? u->n : u->most;
	u->start = u->n > u->start ? u->n : u->start; // reinforcements join its strength
	if (u->n > 0) {
		u->cx = (float)((double)u->sx / (POS_SCALE * (double)u->n));
		u->cy = (float)((double)u->sy / (POS_SCALE * (double)u->n));
		const double hx = (double)u->shx, hy = (double)u->shy, len = sqrt(hx * hx + hy * hy);
		if (len > 0.0) { // (headings that cancel out keep the facing it had)
			u->fx = (float)(hx / len);
			u->fy = (float)(hy / len);
		}
	}
	const throng_morale* m = &u->def.morale;
	const float scale = m->breaks_at * (float)(u->most > 0 ? u->most : 1u);
	const float weight = m->flank * (float)u->flank_hits + m->rear * (float)u->rear_hits;
	u->shock = fmaxf(0.0f, u->shock - m->recovery * dt) + weight / scale;
	u->flank_hits = u->rear_hits = 0;
}

void thr_units_step(throng_world* w)
{
	const uint32_t nu = w->unit_count;
	if (nu == 0) {
		return;
	}
	for (uint32_t k = 0; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		u->sx = u->sy = u->shx = u->shy = 0;
		u->n = 0;
		u->change = false;
	}
	const thr_state* s = thr_cur_c(w);
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint32_t k = w->unit[i];
		if (k != THRONG_NO_UNIT) {
			thr_unit* u = &w->units[k];
			u->sx += llround((double)s->px[i] * POS_SCALE);
			u->sy += llround((double)s->py[i] * POS_SCALE);
			u->shx += llround((double)s->hx[i] * HEADING_SCALE);
			u->shy += llround((double)s->hy[i] * HEADING_SCALE);
			u->n++;
		}
	}
	const float dt = w->def.dt;
	// The routing units as the step found them (a list through their
	// `router`): panic does not depend on the units' order.
	uint32_t routers = 0, first = UINT32_MAX, last = UINT32_MAX;
	for (uint32_t k = 0; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		measure(u, dt);
		if (u->routing && u->count > 0) {
			u->router = UINT32_MAX;
			if (last == UINT32_MAX) {
				first = k;
			} else {
				w->units[last].router = k;
			}
			last = k;
			routers++;
		}
	}
	bool any_routing = false;
	for (uint32_t k = 0; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		const throng_morale* m = &u->def.morale;
		if (!u->routing && m->panic > 0.0f) {
			uint32_t near = 0;
			for (uint32_t r = routers > 0 ? first : UINT32_MAX; r != UINT32_MAX; r = w->units[r].router) {
				const thr_unit* v = &w->units[r];
				const float dx = v->cx - u->cx, dy = v->cy - u->cy;
				near += r != k && v->def.army == u->def.army && dx * dx + dy * dy <= m->panic_radius * m->panic_radius;
			}
			u->shock += m->panic * dt * (float)near;
		}
		const float lost = (float)(u->start - u->count) / (m->breaks_at * (float)(u->most > 0 ? u->most : 1u));
		u->morale = u->base - lost - u->shock;
		if (!u->routing && u->count > 0 && u->morale <= 0.0f) {
			u->routing = true;
			u->quiet = 0;
			if (u->routed_step == UINT64_MAX) {
				u->routed_step = w->step;
			}
			choose_refuge(w, u);
			u->change = true;
		} else if (u->routing) {
			u->quiet = u->hit ? 0u : u->quiet + 1u;
			if (u->rallies_left > 0 && (float)u->quiet * dt >= m->rally_time) {
				u->routing = false;
				u->rallies_left--;
				u->base = m->rally_morale;
				u->start = u->count;
				u->shock = 0.0f;
				u->morale = u->base;
				u->change = true;
			}
		}
		u->hit = false;
		any_routing |= u->routing && u->count > 0;
	}
	bool changed = false;
	for (uint32_t k = 0; k < nu; ++k) {
		changed |= w->units[k].change;
	}
	if (changed) {
		reassign(w);
	}
	if (any_routing) {
		for (uint32_t i = 0; i < w->count; ++i) {
			const uint32_t k = w->unit[i];
			if (k != THRONG_NO_UNIT && w->units[k].routing) {
				w->combat_state[i] |= THRONG_COMBAT_ROUTING;
			}
		}
		w->combat_marked = true;
	}
}
