// SPDX-License-Identifier: MIT
// Units: morale and rout (units.h, throng/units.h).
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "part.h"
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
	                           .rallies = 1,
	                           .army_breaks_at = 1.0f};
	d.formation = (throng_formation){.kind = THRONG_FORMATION_NONE,
	                                 .files = 0,
	                                 .spacing = 1.0f,
	                                 .rank_spacing = 1.0f,
	                                 .speed = 1.0f,
	                                 .turn_rate = 0.5f};
	d.internal_cookie = THR_DEF_COOKIE;
	return d;
}

/// Whether a slot steers by where the soldier is going (a target agent,
/// the threat or the target point, a path, a wander).
static bool steers_to_a_goal(throng_behavior_kind kind)
{
	switch (kind) {
	case THRONG_SEEK:
	case THRONG_FLEE:
	case THRONG_ARRIVE:
	case THRONG_PURSUIT:
	case THRONG_EVADE:
	case THRONG_WANDER:
	case THRONG_WANDER_NOISE:
	case THRONG_PATH_FOLLOW: return true;
	default: return false;
	}
}

/// `from` without its slots that steer to a goal, and `last` added (in
/// the last place when the controller is full).
static throng_controller replace_goal(const throng_controller* from, throng_slot last)
{
	throng_controller r = *from;
	r.slot_count = 0;
	for (uint32_t k = 0; k < from->slot_count && k < THRONG_MAX_SLOTS; ++k) {
		if (!steers_to_a_goal(from->slots[k].kind)) {
			r.slots[r.slot_count++] = from->slots[k];
		}
	}
	r.slots[r.slot_count < THRONG_MAX_SLOTS ? r.slot_count++ : THRONG_MAX_SLOTS - 1u] = last;
	return r;
}

throng_controller throng_controller_formation(const throng_controller* fighting)
{
	throng_slot keep = throng_slot_default_def(THRONG_ARRIVE);
	keep.params.target = THRONG_TARGET_POINT;
	keep.params.slow_radius = 1.0f;
	return replace_goal(fighting, keep);
}

throng_controller throng_controller_routing(const throng_controller* fighting)
{
	throng_slot run = throng_slot_default_def(THRONG_SEEK);
	run.params.target = THRONG_TARGET_POINT;
	throng_controller r = replace_goal(fighting, run);
	r.target_rule.enabled = false;
	r.combat.attack = THRONG_ATTACK_NONE;
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
	const throng_formation* f = &d->formation;
	if ((unsigned)f->kind > THRONG_FORMATION_WEDGE) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.formation.kind: must be a throng_formation_kind (got %u)",
		                add_fn, (unsigned)f->kind);
	}
	if (f->kind != THRONG_FORMATION_NONE) {
		if (d->march_archetype >= w->archetype_count) {
			return thr_fail(THRONG_ERR_NOT_FOUND, "%s: def.march_archetype: no archetype %u (the world has %u)", add_fn,
			                d->march_archetype, w->archetype_count);
		}
		if (w->archetypes[d->march_archetype].combat.enabled != w->archetypes[d->archetype].combat.enabled) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			                "%s: def.march_archetype: archetype %u and archetype %u must both have combat or neither",
			                add_fn, d->march_archetype, d->archetype);
		}
	}
	const struct {
		const char* name;
		float v;
	} lengths[] = {{"spacing", f->spacing}, {"rank_spacing", f->rank_spacing}, {"speed", f->speed},
	               {"turn_rate", f->turn_rate}};
	for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; ++k) {
		if (!isfinite(lengths[k].v) || !(lengths[k].v > 0.0f) || lengths[k].v > 1.0e3f) {
			char g[THR_FMT_FLOAT_CAP];
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: def.formation.%s: must be finite and in (0, 1e3] (got %s)",
			                add_fn, lengths[k].name, thr_fmt_float(g, lengths[k].v));
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
	              {"rally_time", m->rally_time, false, 1.0e6f}, {"rally_morale", m->rally_morale, true, 1.0f},
	              {"army_breaks_at", m->army_breaks_at, true, 1.0f}};
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
	if (st == THRONG_OK && thr_store_reserve_units(w) != 0) { // the agents' unit column, at the first unit
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the agents' units", add_fn);
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
	u->hx = 1.0f;
	u->order.kind = THRONG_ORDER_HALT;
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
	                           .killed = u->killed,
	                           .centre = {u->cx, u->cy},
	                           .facing = {u->fx, u->fy},
	                           .refuge = {u->rx, u->ry},
	                           .order = u->order,
	                           .charging = u->charging,
	                           .anchor = {u->ax, u->ay},
	                           .heading = {u->hx, u->hy}};
	return THRONG_OK;
}

throng_status throng_world_order_unit(throng_world* w, uint32_t unit, throng_order order)
{
	static const char fn[] = "throng_world_order_unit";
	throng_status st = thr_check_world(w, fn);
	if (st == THRONG_OK && unit >= w->unit_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "%s: unit: no unit %u (the world has %u)", fn, unit, w->unit_count);
	}
	if (st == THRONG_OK && w->units[unit].def.formation.kind == THRONG_FORMATION_NONE) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: unit %u has no formation (def.formation.kind)", fn, unit);
	}
	if (st == THRONG_OK && (unsigned)order.kind > THRONG_ORDER_HOLD) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: order.kind: must be a throng_order_kind (got %u)", fn,
		              (unsigned)order.kind);
	}
	if (st == THRONG_OK && (order.kind == THRONG_ORDER_MOVE || order.kind == THRONG_ORDER_TURN)) {
		st = thr_validate_point("throng_world_order_unit: order.point", order.point);
		if (st == THRONG_OK && order.kind == THRONG_ORDER_TURN && order.point.x == 0.0f && order.point.y == 0.0f) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: order.point: a turn needs a direction, not (0, 0)", fn);
		}
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (order.kind == THRONG_ORDER_TURN) {
		const float len = sqrtf(order.point.x * order.point.x + order.point.y * order.point.y);
		order.point = (throng_vec2){order.point.x / len, order.point.y / len};
	}
	thr_unit* u = &w->units[unit];
	u->order = order;
	if (u->charging && order.kind != THRONG_ORDER_CHARGE) {
		u->charging = false; // it forms again where it stands, at the next step's end
		u->anchored = false;
	}
	return THRONG_OK;
}

void thr_units_joined(throng_world* w, uint32_t k)
{
	thr_unit* u = &w->units[k];
	u->count++;
	u->most = u->count > u->most ? u->count : u->most;
	u->start = u->count > u->start ? u->count : u->start;
}

void thr_units_left(throng_world* w, uint32_t k, bool killed, bool own)
{
	thr_unit* u = &w->units[k];
	u->count -= u->count > 0;
	u->died += killed && own;
}

void thr_units_hit(throng_world* w, uint32_t target, uint32_t attacker)
{
	const uint32_t k = w->unit != NULL ? w->unit[target] : THRONG_NO_UNIT; // (NULL: the world has no unit)
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

/// The archetype a unit's soldiers have now: the rout archetype while it
/// routs, the march archetype while it marches in formation, else its
/// fighting archetype.
static uint32_t archetype_now(const thr_unit* u)
{
	return u->routing ? u->def.rout_archetype
	       : u->def.formation.kind != THRONG_FORMATION_NONE && !u->charging ? u->def.march_archetype
	                                                                        : u->def.archetype;
}

/// Whether a unit's soldiers must have its archetype now whatever they
/// had: while it routs or marches in formation (a soldier who joins it
/// then, from a spawn or a source, runs or marches with it).
static bool holds_archetype(const thr_unit* u)
{
	return u->routing || (u->def.formation.kind != THRONG_FORMATION_NONE && !u->charging);
}

/// Gives the members of the units flagged `change` their archetype now
/// (throng_world_set_archetype's rule for health), and so those who lack
/// it in a unit that holds its archetype. A unit that routs runs for the
/// refuge; a unit that rallies chooses its targets anew (no target
/// agent) and its soldiers' target points are where each stands; one
/// that charges keeps the targets its march chose.
static void reassign(throng_world* w)
{
	bool any = false;
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint32_t k = w->unit[i];
		if (k == THRONG_NO_UNIT) {
			continue;
		}
		const thr_unit* u = &w->units[k];
		const uint32_t arch = archetype_now(u);
		const bool joined = w->archetype[i] != arch && holds_archetype(u); // (came in since)
		if (!u->change && !joined) {
			continue;
		}
		const throng_combat* was = &w->archetypes[w->archetype[i]].combat;
		const throng_combat* now = &w->archetypes[arch].combat;
		if (now->enabled) {
			thr_store_combat_live(&w->store);
		}
		if (w->store.combat_live) { // (else it is 0 and stays so)
			w->health[i] = !now->enabled ? 0.0f : was->enabled ? w->health[i] : now->health;
		}
		any |= w->archetype[i] != arch;
		w->archetype[i] = arch;
		if ((u->routing || u->rallied) && w->target_agent != NULL) {
			w->target_agent[i] = THRONG_NO_AGENT;
		}
		if (u->routing) {
			w->tx[i] = u->rx;
			w->ty[i] = u->ry;
		} else if (u->rallied && u->change) {
			// It stops running where it rallied (not at the refuge it ran
			// for); in formation its slots place it anew.
			w->tx[i] = thr_cur(w)->px[i];
			w->ty[i] = thr_cur(w)->py[i];
		}
	}
	if (any) {
		w->shapes_dirty = 1; // the shape grids' reach follows the archetypes in use
	}
}

/// (hx, hy) turned towards the unit vector (ux, uy) by at most `most`
/// radians; whether it got there.
static bool wheel(float* hx, float* hy, float ux, float uy, float most)
{
	const float angle = thr_atan2f(*hx * uy - *hy * ux, *hx * ux + *hy * uy);
	if (fabsf(angle) <= most) {
		*hx = ux;
		*hy = uy;
		return true;
	}
	float sn = 0.0f, cs = 1.0f;
	thr_sincosf(angle > 0.0f ? most : -most, &sn, &cs);
	const float x = *hx * cs - *hy * sn, y = *hx * sn + *hy * cs;
	const float len = sqrtf(x * x + y * y);
	*hx = x / len;
	*hy = y / len;
	return false;
}

/// Moves a marching unit's anchor and heading by its order, one step.
static void march(thr_unit* u, float dt)
{
	const throng_formation* f = &u->def.formation;
	if (u->order.kind == THRONG_ORDER_TURN) {
		if (wheel(&u->hx, &u->hy, u->order.point.x, u->order.point.y, f->turn_rate * dt)) {
			u->order.kind = THRONG_ORDER_HALT;
		}
	} else if (u->order.kind == THRONG_ORDER_MOVE) {
		const float dx = u->order.point.x - u->ax, dy = u->order.point.y - u->ay;
		const float d = sqrtf(dx * dx + dy * dy), pace = f->speed * dt;
		if (d <= pace) {
			u->ax = u->order.point.x;
			u->ay = u->order.point.y;
			u->order.kind = THRONG_ORDER_HALT;
			return;
		}
		wheel(&u->hx, &u->hy, dx / d, dy / d, f->turn_rate * dt);
		u->ax += pace * dx / d;
		u->ay += pace * dy / d;
	}
}

/// The integer square root of k (the largest r with r * r <= k).
static uint32_t isqrt(uint32_t k)
{
	uint32_t r = (uint32_t)sqrt((double)k);
	while ((uint64_t)r * r > k) {
		r--;
	}
	while ((uint64_t)(r + 1u) * (r + 1u) <= k) {
		r++;
	}
	return r;
}

/// Slot k of a formation of n: metres ahead of the anchor and to its
/// right (the ranks centred on the anchor front to back, each rank on
/// its middle).
static void slot_of(const throng_formation* f, uint32_t k, uint32_t n, float* ahead, float* right)
{
	uint32_t rank = 0, place = 0, width = 1, ranks = 1;
	if (f->kind == THRONG_FORMATION_WEDGE) {
		rank = isqrt(k);
		place = k - rank * rank;
		width = 2u * rank + 1u;
		ranks = isqrt(n - 1u) + 1u;
	} else {
		uint32_t files = f->files;
		if (files == 0) {
			files = f->kind == THRONG_FORMATION_COLUMN ? 4u
			        : f->kind == THRONG_FORMATION_SQUARE ? isqrt(n - 1u) + 1u
			                                             : isqrt(4u * (n - 1u)) + 1u; // a line: about 2 sqrt(n)
		}
		rank = k / files;
		place = k % files;
		ranks = (n + files - 1u) / files;
		width = rank + 1u < ranks ? files : n - rank * files;
	}
	*ahead = f->rank_spacing * (0.5f * (float)(ranks - 1u) - (float)rank);
	*right = f->spacing * ((float)place - 0.5f * (float)(width - 1u));
}

/// Puts every soldier of a unit marching in formation on its slot: its
/// place among its unit's live members in id order.
static void place_in_slots(throng_world* w)
{
	for (uint32_t k = 0; k < w->unit_count; ++k) {
		w->units[k].next = 0;
	}
	const uint32_t ids = thr_id_end(w);
	for (uint32_t id = 0; id < ids; ++id) {
		const uint32_t i = w->slot_of[id];
		if (i == THR_NO_SLOT || w->unit[i] == THRONG_NO_UNIT) {
			continue;
		}
		thr_unit* u = &w->units[w->unit[i]];
		if (u->def.formation.kind == THRONG_FORMATION_NONE || u->routing || u->charging) {
			continue;
		}
		float ahead = 0.0f, right = 0.0f;
		slot_of(&u->def.formation, u->next++, u->count, &ahead, &right);
		// Right of the heading (hx, hy) is (hy, -hx).
		w->tx[i] = u->ax + ahead * u->hx + right * u->hy;
		w->ty[i] = u->ay + ahead * u->hy - right * u->hx;
	}
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
	if (u->def.formation.kind != THRONG_FORMATION_NONE && u->anchored && !u->charging && !u->routing) {
		// In its ranks a unit faces as its slots do: soldiers standing on
		// their slots turn this way and that, and their mean heading would
		// make a blow on its front rank a blow on its flank or rear.
		u->fx = u->hx;
		u->fy = u->hy;
	}
	const throng_morale* m = &u->def.morale;
	const float scale = m->breaks_at * (float)(u->most > 0 ? u->most : 1u);
	const float weight = m->flank * (float)u->flank_hits + m->rear * (float)u->rear_hits;
	u->shock = fmaxf(0.0f, u->shock - m->recovery * dt) + weight / scale;
	u->flank_hits = u->rear_hits = 0;
	u->killed += u->died;
	u->died = 0;
}

/// The armies' sums (army_breaks_at), at the first unit of each army:
/// the most members of its units and those killed, as the step found
/// them (integers, in unit order). Whether any unit weighs them.
static bool sum_armies(throng_world* w)
{
	const uint32_t nu = w->unit_count;
	bool any = false;
	for (uint32_t k = 0; k < nu; ++k) {
		any |= w->units[k].def.morale.army_breaks_at < 1.0f;
	}
	if (!any) {
		return false;
	}
	// Each unit's first unit of its army, once (units are only added).
	for (uint32_t k = w->unit_armies; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		u->army_first = k;
		for (uint32_t j = 0; j < k; ++j) {
			if (w->units[j].army_first == j && w->units[j].def.army == u->def.army) {
				u->army_first = j;
				break;
			}
		}
	}
	w->unit_armies = nu;
	for (uint32_t k = 0; k < nu; ++k) {
		w->units[k].army_most = w->units[k].army_killed = 0;
	}
	for (uint32_t k = 0; k < nu; ++k) {
		const thr_unit* u = &w->units[k];
		thr_unit* a = &w->units[u->army_first];
		a->army_most += u->most;
		a->army_killed += u->killed;
	}
	return true;
}

/// Whether unit u's army has lost army_breaks_at of its strength killed
/// (sum_armies done).
static bool army_broken(const throng_world* w, const thr_unit* u)
{
	const float at = u->def.morale.army_breaks_at;
	const thr_unit* a = &w->units[u->army_first];
	return at < 1.0f && a->army_most > 0 && (double)a->army_killed >= (double)at * (double)a->army_most;
}

/// A part world's units' sums over every part (THRONG_PART_UNITS): its
/// own members', added up with the other parts' through the sync's
/// reduce (integers: the order the parts add in changes no bit).
static void reduce_sums(throng_world* w)
{
	enum { SUMS = THR_UNIT_SUMS };
	const throng_part_sync* sync = thr_part_sync_of(w);
	uint64_t* v = w->part->unit_sums;
	for (uint32_t k = 0; k < w->unit_count; ++k) {
		const thr_unit* u = &w->units[k];
		const uint64_t one[SUMS] = {(uint64_t)u->sx, (uint64_t)u->sy, (uint64_t)u->shx, (uint64_t)u->shy, u->n,
		                            u->flank_hits, u->rear_hits, u->hit, u->engaged, u->died};
		memcpy(&v[SUMS * k], one, sizeof one);
	}
	sync->reduce(sync->user, THRONG_PART_UNITS, THRONG_PART_SUM_U64, v, SUMS * w->unit_count);
	for (uint32_t k = 0; k < w->unit_count; ++k) {
		thr_unit* u = &w->units[k];
		const uint64_t* one = &v[SUMS * k];
		u->sx = (int64_t)one[0];
		u->sy = (int64_t)one[1];
		u->shx = (int64_t)one[2];
		u->shy = (int64_t)one[3];
		u->n = (uint32_t)one[4];
		u->flank_hits = (uint32_t)one[5];
		u->rear_hits = (uint32_t)one[6];
		u->hit = one[7] != 0;
		u->engaged = one[8] != 0;
		u->died = (uint32_t)one[9];
	}
}

void thr_units_copy(throng_world* to, const throng_world* from)
{
	if (to != from && to->unit_count == from->unit_count && from->unit_count > 0) {
		memcpy(to->units, from->units, (size_t)from->unit_count * sizeof *to->units);
		to->unit_armies = from->unit_armies; // (whose army_first came with them)
	}
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
		u->change = u->rallied = u->engaged = false;
	}
	const thr_state* s = thr_cur_c(w);
	const thr_part* p = w->part;
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint32_t k = w->unit[i];
		if (k != THRONG_NO_UNIT && (p == NULL || !thr_part_ghost(p, w->id[i]))) {
			thr_unit* u = &w->units[k];
			u->sx += llround((double)s->px[i] * POS_SCALE);
			u->sy += llround((double)s->py[i] * POS_SCALE);
			u->shx += llround((double)s->hx[i] * HEADING_SCALE);
			u->shy += llround((double)s->hy[i] * HEADING_SCALE);
			u->n++;
			u->engaged |= (w->combat_state[i] & (THRONG_COMBAT_STRUCK | THRONG_COMBAT_HIT)) != 0;
		}
	}
	if (p != NULL) {
		reduce_sums(w);
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
	const bool armies = sum_armies(w);
	bool any_routing = false;
	for (uint32_t k = 0; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		const throng_morale* m = &u->def.morale;
		const bool broken = armies && army_broken(w, u);
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
		if (!u->routing && u->count > 0 && (u->morale <= 0.0f || broken)) {
			u->routing = true;
			u->quiet = 0;
			if (u->routed_step == UINT64_MAX) {
				u->routed_step = w->step;
			}
			choose_refuge(w, u);
			u->change = true;
		} else if (u->routing) {
			u->quiet = u->hit ? 0u : u->quiet + 1u;
			if (u->rallies_left > 0 && !broken && (float)u->quiet * dt >= m->rally_time) {
				u->routing = false;
				u->rallies_left--;
				u->base = m->rally_morale;
				u->start = u->count;
				u->shock = 0.0f;
				u->morale = u->base;
				u->change = u->rallied = true;
				// In formation it forms again where it stands, facing as
				// its soldiers do, and halts.
				u->charging = false;
				u->anchored = false;
				u->order.kind = THRONG_ORDER_HALT;
			}
		}
		u->hit = false;
		any_routing |= u->routing && u->count > 0;
	}
	// Formations: anchors placed, charges, marches.
	bool marching = false;
	for (uint32_t k = 0; k < nu; ++k) {
		thr_unit* u = &w->units[k];
		if (u->def.formation.kind == THRONG_FORMATION_NONE || u->routing || u->count == 0) {
			continue;
		}
		if (!u->anchored) { // its first measure, or a rally: it forms where it stands
			u->anchored = true;
			u->ax = u->cx;
			u->ay = u->cy;
			u->hx = u->fx;
			u->hy = u->fy;
			u->change = true;
		}
		const bool charge = u->order.kind == THRONG_ORDER_CHARGE ||
		                    (u->engaged && u->order.kind != THRONG_ORDER_HOLD && !u->rallied);
		if (charge && !u->charging) {
			u->charging = true;
			u->change = true;
		}
		if (!u->charging) {
			march(u, dt);
			marching = true;
		}
	}
	bool changed = false;
	for (uint32_t k = 0; k < nu; ++k) {
		changed |= w->units[k].change;
	}
	if (changed || any_routing || marching) {
		reassign(w);
	}
	if (marching) {
		place_in_slots(w);
	}
	if (any_routing) {
		thr_store_combat_live(&w->store);
		for (uint32_t i = 0; i < w->count; ++i) {
			const uint32_t k = w->unit[i];
			if (k != THRONG_NO_UNIT && w->units[k].routing) {
				w->combat_state[i] |= THRONG_COMBAT_ROUTING;
			}
		}
		w->combat_marked = true;
	}
}
