// SPDX-License-Identifier: MIT
// Agents that leave, and what game code changes of one agent between
// steps: throng_world_remove_agents and the setters. Adding agents is
// throng_world_spawn (world.c); the store's side of both is store.c.
//
// Every call validates everything first and then changes the world, so a
// failure leaves it as it was. Removal closes the holes
// (thr_store_remove) in a way that depends on the set removed alone, never
// on the order of the ids: the scalar engine's slots stay in id order
// (the agents after a hole move down, as spawn appends), and in the SIMD
// engine the last agents fill the holes, since it sorts the slots by cell
// and id before every pass.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "events.h"
#include "fmath.h"
#include "part.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

uint32_t throng_world_id_end(const throng_world* w)
{
	return w != NULL ? thr_id_end(w) : 0;
}

throng_status throng_world_remove_agent(throng_world* w, uint32_t id)
{
	return throng_world_remove_agents(w, &id, 1);
}

void thr_remove_marked(throng_world* w, const uint8_t* dead, uint32_t first, uint32_t* scratch, const uint32_t* ids,
                       const uint32_t* zones, const uint32_t* killers, uint32_t n)
{
	for (uint32_t i = first; i < w->count && w->unit_count > 0; ++i) {
		if (dead[i] && w->unit != NULL && w->unit[i] != THRONG_NO_UNIT) {
			// killers: the dead of a fight (combat.c); else sinks or game code
			thr_units_left(w, w->unit[i], killers != NULL, w->part == NULL || !thr_part_ghost(w->part, w->id[i]));
		}
	}
	w->count = thr_store_remove(w, dead, first, !thr_world_engine(w)->sorted, scratch);
	// Whoever targeted a removed agent targets nobody.
	for (uint32_t i = 0; w->target_agent != NULL && i < w->count; ++i) {
		const uint32_t t = w->target_agent[i];
		if (t != THRONG_NO_AGENT && w->slot_of[t] == THR_NO_SLOT) {
			w->target_agent[i] = THRONG_NO_AGENT;
		}
	}
	for (uint32_t k = 0; k < n; ++k) {
		thr_events_push(w, THRONG_EVENT_REMOVED, ids[k], zones != NULL ? zones[k] : THRONG_NO_ZONE, THRONG_NO_SOURCE);
		if (killers != NULL) {
			w->events[w->event_count - 1u].other = killers[k];
		}
	}
	w->stats.agents_removed += n;
	// The record still describes the survivors (the store moved their
	// previous state with them): the quality metrics observe a step whose
	// sinks took agents out. Its reorder no longer does.
	w->published.reorder = NULL;
	w->published.count = w->count;
	thr_agents_changed(w);
}

static int by_id(const void* a, const void* b)
{
	const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
	return (x > y) - (x < y);
}

throng_status throng_world_remove_agents(throng_world* w, const uint32_t* ids, uint32_t count)
{
	static const char fn[] = "throng_world_remove_agents";
	throng_status st = thr_check_world(w, fn);
	if (st != THRONG_OK) {
		return st;
	}
	if (count == 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: count: must be at least 1 (got 0)", fn);
	}
	if (ids == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: ids is NULL", fn);
	}
	if (w->part != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: the world is a part of a larger one; remove agents from the whole world", fn);
	}
	// Scratch from the step's arena: its block is already as large as a
	// step needs, so churn every step takes no new pages.
	const uint32_t mark = thr_arena_mark(&w->arena);
	uint8_t* dead = thr_arena_alloc(&w->arena, (size_t)w->count + 1u, "removed slots");
	uint32_t* scratch = thr_arena_alloc(&w->arena, 2u * ((size_t)w->count + 1u) * sizeof *scratch, "moved slots");
	if (dead == NULL || scratch == NULL) {
		thr_arena_unwind(&w->arena, mark);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u agents", fn, w->count);
	}
	memset(dead, 0, (size_t)w->count + 1u);
	uint32_t* sorted = thr_arena_alloc(&w->arena, (size_t)count * sizeof *sorted, "removed ids");
	if (sorted == NULL || thr_events_reserve(w, count, 0, fn) != THRONG_OK) {
		thr_arena_unwind(&w->arena, mark);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u ids", fn, count);
	}
	uint32_t first = w->count;
	for (uint32_t k = 0; k < count && st == THRONG_OK; ++k) {
		char what[64];
		snprintf(what, sizeof what, "%s: ids[%u]", fn, k);
		uint32_t slot = 0;
		st = thr_find_agent(w, ids[k], what, &slot);
		if (st == THRONG_OK && dead[slot] != 0) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: id %u appears twice in the batch", what, ids[k]);
		}
		if (st == THRONG_OK) {
			dead[slot] = 1;
			first = slot < first ? slot : first;
		}
	}
	if (st == THRONG_OK) {
		// Their events by increasing id (the call's order of ids shows nowhere).
		memcpy(sorted, ids, (size_t)count * sizeof *sorted);
		qsort(sorted, count, sizeof *sorted, by_id);
		thr_remove_marked(w, dead, first, scratch, sorted, NULL, NULL, count);
	}
	thr_arena_unwind(&w->arena, mark);
	return st;
}

/// The slot of agent `id` for setter `fn`, refusing a part world when
/// `whole_only` (its agents' places and sizes are the whole world's).
static throng_status setter_slot(throng_world* w, uint32_t id, const char* fn, bool whole_only, uint32_t* slot)
{
	throng_status st = thr_find_agent(w, id, fn, slot);
	if (st == THRONG_OK && whole_only && w->part != NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the world is a part of a larger one; change agent %u in the "
		              "whole world", fn, id);
	}
	return st;
}

/// "fn: id N: " into buf, the context of a message about agent N's argument.
static const char* agent_ctx(char* buf, size_t cap, const char* fn, uint32_t id, const char* arg)
{
	snprintf(buf, cap, "%s: id %u: %s", fn, id, arg);
	return buf;
}

/// A position for agent slot i: inside the world.
static throng_status check_position(const throng_world* w, uint32_t i, const char* ctx, throng_vec2 p)
{
	(void)i;
	return thr_validate_position(&w->def, ctx, p);
}

/// A velocity for agent slot i: finite and no longer than its max_speed.
static throng_status check_velocity(const throng_world* w, uint32_t i, const char* ctx, throng_vec2 v)
{
	throng_status st = thr_validate_point(ctx, v);
	const float speed = v2_length(v2(v.x, v.y));
	if (st == THRONG_OK && !thr_speed_fits(speed, w->max_speed[i])) {
		char g[THR_FMT_FLOAT_CAP], m[THR_FMT_FLOAT_CAP];
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: too fast (got length %s, at most max_speed %s)", ctx,
		              thr_fmt_float(g, speed), thr_fmt_float(m, w->max_speed[i]));
	}
	return st;
}

/// A batch setter of a vector of the current state: position or velocity.
typedef struct vec2_setter {
	const char *one, *many;  ///< the function's names, for one agent and for a batch
	const char *arg, *args;  ///< the argument's names ("position", "positions")
	const char* sep;         ///< what the check's message puts after the argument ("." or "")
	throng_status (*check)(const throng_world* w, uint32_t slot, const char* ctx, throng_vec2 v);
	bool moves;              ///< a position: indexes of the agents follow (thr_agents_changed)
} vec2_setter;

static throng_status set_vec2s(throng_world* w, const uint32_t* ids, const throng_vec2* v, uint32_t count,
                               const vec2_setter* f)
{
	const char* fn = count == 1 && ids != NULL && v != NULL ? f->one : f->many;
	throng_status st = thr_check_world(w, fn);
	if (st == THRONG_OK && count > 0 && (ids == NULL || v == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, ids == NULL ? "ids" : f->args);
	}
	for (uint32_t k = 0; k < count && st == THRONG_OK; ++k) {
		uint32_t i = 0;
		char ctx[96];
		st = setter_slot(w, ids[k], fn, true, &i);
		if (st == THRONG_OK) {
			if (count == 1) {
				snprintf(ctx, sizeof ctx, "%s: id %u: %s%s", fn, ids[k], f->arg, f->sep);
			} else {
				snprintf(ctx, sizeof ctx, "%s: %s[%u] (id %u)%s", fn, f->args, k, ids[k], f->sep);
			}
			st = f->check(w, i, ctx, v[k]);
		}
	}
	if (st != THRONG_OK) {
		return st;
	}
	thr_state* s = thr_cur(w);
	float* x = f->moves ? s->px : s->vx;
	float* y = f->moves ? s->py : s->vy;
	for (uint32_t k = 0; k < count; ++k) {
		const uint32_t i = w->slot_of[ids[k]];
		x[i] = v[k].x;
		y[i] = v[k].y;
	}
	if (f->moves && count > 0) {
		thr_agents_changed(w);
	}
	return THRONG_OK;
}

static const vec2_setter positions = {"throng_world_set_position", "throng_world_set_positions", "position",
                                      "positions", ".", check_position, true};
static const vec2_setter velocities = {"throng_world_set_velocity", "throng_world_set_velocities", "velocity",
                                       "velocities", "", check_velocity, false};

throng_status throng_world_set_position(throng_world* w, uint32_t id, throng_vec2 p)
{
	return set_vec2s(w, &id, &p, 1, &positions);
}

throng_status throng_world_set_positions(throng_world* w, const uint32_t* ids, const throng_vec2* p, uint32_t count)
{
	return set_vec2s(w, ids, p, count, &positions);
}

throng_status throng_world_set_velocity(throng_world* w, uint32_t id, throng_vec2 v)
{
	return set_vec2s(w, &id, &v, 1, &velocities);
}

throng_status throng_world_set_velocities(throng_world* w, const uint32_t* ids, const throng_vec2* v, uint32_t count)
{
	return set_vec2s(w, ids, v, count, &velocities);
}

throng_status throng_world_set_heading(throng_world* w, uint32_t id, throng_vec2 h)
{
	static const char fn[] = "throng_world_set_heading";
	uint32_t i = 0;
	char ctx[96];
	throng_status st = setter_slot(w, id, fn, true, &i);
	if (st == THRONG_OK) {
		st = thr_validate_point(agent_ctx(ctx, sizeof ctx, fn, id, "heading"), h);
	}
	const float len = v2_length(v2(h.x, h.y));
	if (st == THRONG_OK && !(fabsf(len - 1.0f) <= 1.0e-3f)) {
		char g[THR_FMT_FLOAT_CAP];
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: must be a unit vector (got length %s)", ctx,
		              thr_fmt_float(g, len));
	}
	if (st != THRONG_OK) {
		return st;
	}
	const vec2 u = v2_normalize(v2(h.x, h.y));
	thr_cur(w)->hx[i] = u.x;
	thr_cur(w)->hy[i] = u.y;
	return THRONG_OK;
}

throng_status throng_world_set_archetype(throng_world* w, uint32_t id, uint32_t archetype)
{
	static const char fn[] = "throng_world_set_archetype";
	uint32_t i = 0;
	throng_status st = setter_slot(w, id, fn, false, &i);
	if (st == THRONG_OK && archetype >= w->archetype_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "%s: id %u: archetype: no archetype %u (the world has %u)", fn, id,
		              archetype, w->archetype_count);
	}
	if (st == THRONG_OK) {
		const throng_combat* was = &w->archetypes[w->archetype[i]].combat;
		const throng_combat* now = &w->archetypes[archetype].combat;
		if (now->enabled) {
			thr_store_combat_live(&w->store);
		}
		if (w->store.combat_live) { // (else it is 0 and stays so)
			w->health[i] = !now->enabled ? 0.0f : was->enabled ? w->health[i] : now->health;
		}
		w->archetype[i] = archetype;
		w->shapes_dirty = 1; // the shape grids' reach follows the archetypes in use
	}
	return st;
}

throng_status throng_world_set_health(throng_world* w, uint32_t id, float health)
{
	static const char fn[] = "throng_world_set_health";
	uint32_t i = 0;
	char ctx[96];
	throng_status st = setter_slot(w, id, fn, true, &i);
	if (st == THRONG_OK) {
		st = thr_validate_magnitude(agent_ctx(ctx, sizeof ctx, fn, id, ""), "health", health);
	}
	if (st == THRONG_OK && !w->archetypes[w->archetype[i]].combat.enabled) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: id %u: health: its archetype %u has no combat", fn, id,
		              w->archetype[i]);
	}
	if (st == THRONG_OK) {
		thr_store_combat_live(&w->store);
		w->health[i] = health;
	}
	return st;
}

throng_status throng_world_set_group(throng_world* w, uint32_t id, uint32_t group)
{
	uint32_t i = 0;
	throng_status st = setter_slot(w, id, "throng_world_set_group", false, &i);
	if (st == THRONG_OK && group != 0u) {
		thr_store_group_live(&w->store);
	}
	if (st == THRONG_OK && w->store.group_live) { // (else it is 0 and stays so, store.h)
		w->group[i] = group;
	}
	return st;
}

throng_status throng_world_set_max_speed(throng_world* w, uint32_t id, float max_speed)
{
	static const char fn[] = "throng_world_set_max_speed";
	uint32_t i = 0;
	char ctx[96];
	throng_status st = setter_slot(w, id, fn, true, &i);
	if (st == THRONG_OK) {
		st = thr_validate_magnitude(agent_ctx(ctx, sizeof ctx, fn, id, ""), "max_speed", max_speed);
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->max_speed[i] = max_speed;
	thr_state* s = thr_cur(w);
	const vec2 v = v2(s->vx[i], s->vy[i]);
	if (v2_length(v) > max_speed) {
		const vec2 u = v2_scale(v2_normalize(v), max_speed);
		// Rounding may leave the scaled length a hair above: shrink to fit.
		const float over = v2_length(u) > max_speed ? (1.0f - 1.0e-6f) : 1.0f;
		s->vx[i] = u.x * over;
		s->vy[i] = u.y * over;
	}
	return THRONG_OK;
}

throng_status throng_world_set_max_force(throng_world* w, uint32_t id, float max_force)
{
	static const char fn[] = "throng_world_set_max_force";
	uint32_t i = 0;
	char ctx[96];
	throng_status st = setter_slot(w, id, fn, false, &i);
	if (st == THRONG_OK) {
		st = thr_validate_magnitude(agent_ctx(ctx, sizeof ctx, fn, id, ""), "max_force", max_force);
	}
	if (st == THRONG_OK) {
		w->max_force[i] = max_force;
	}
	return st;
}

throng_status throng_world_set_radius(throng_world* w, uint32_t id, float radius)
{
	static const char fn[] = "throng_world_set_radius";
	uint32_t i = 0;
	char ctx[96];
	throng_status st = setter_slot(w, id, fn, true, &i);
	if (st == THRONG_OK) {
		st = thr_validate_magnitude(agent_ctx(ctx, sizeof ctx, fn, id, ""), "radius", radius);
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->radius[i] = radius;
	if (radius > w->max_radius) { // the grids' cells and the shapes' reach follow it
		w->max_radius = radius;
		w->shapes_dirty = 1;
	}
	return THRONG_OK;
}
