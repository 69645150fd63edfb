// SPDX-License-Identifier: MIT
// The world: its defaults, agents, archetypes, read access, hashing.
// Shapes, paths and the threat are world_shapes.c; making and freeing a
// world is world_life.c; the step is step.c.
#include <math.h>
#include <stdlib.h>
#include <string.h>
// XXH3 inlined: the state then lives on the stack, so throng_world_hash
// allocates nothing and cannot fail (XXH3_createState could, and the hash
// was then 0).
#define XXH_INLINE_ALL
#include <xxhash.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "combat.h"
#include "error.h"
#include "events.h"
#include "fmath.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

throng_world_def throng_world_default_def(void)
{
	throng_world_def d;
	memset(&d, 0, sizeof d);
	d.bounds_min = (throng_vec2){-50.0f, -50.0f};
	d.bounds_max = (throng_vec2){50.0f, 50.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.dt = 1.0f / 60.0f;
	d.seed = 1;
	d.cell_size = 0.0f;
	d.capacity = 1024;
	d.engine = THRONG_ENGINE_SIMD;
	d.record_forces = false;
	d.threads = 0;
	d.internal_cookie = THR_DEF_COOKIE;
	return d;
}

throng_agent_def throng_agent_default_def(void)
{
	throng_agent_def a;
	memset(&a, 0, sizeof a);
	a.max_speed = 1.3f;
	a.max_force = 4.0f;
	a.radius = 0.3f;
	a.target_agent = THRONG_NO_AGENT;
	a.path = THRONG_NO_PATH;
	a.unit = THRONG_NO_UNIT;
	return a;
}

throng_agent_def throng_agent_pedestrian_def(void)
{
	throng_agent_def a = throng_agent_default_def();
	a.max_speed = 1.34f;
	a.max_force = 8.0f;
	a.radius = 0.17f;
	return a;
}

throng_world_def throng_world_get_def(const throng_world* w)
{
	return w->def;
}

throng_status throng_world_set_threads(throng_world* w, uint32_t threads, throng_threads_policy policy)
{
	throng_status st = thr_check_world(w, "throng_world_set_threads");
	if (st == THRONG_OK && threads > THRONG_MAX_THREADS) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		              "throng_world_set_threads: threads: must be from 0 (OpenMP's default) to %u (got %u)",
		              THRONG_MAX_THREADS, threads);
	}
	if (st == THRONG_OK && throng_threads_policy_name(policy) == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_set_threads: policy: no policy %d", (int)policy);
	}
	if (st == THRONG_OK) {
		w->def.threads = threads;
		w->def.threads_policy = policy;
	}
	return st;
}

throng_status thr_check_world(const void* w, const char* fn)
{
	if (w == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: world is NULL", fn);
	}
	return THRONG_OK;
}

throng_status throng_world_add_archetype(throng_world* w, const throng_controller* ctl, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_archetype");
	if (st == THRONG_OK) {
		st = thr_validate_controller(ctl);
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (w->archetype_count == w->archetype_cap) {
		uint32_t cap = w->archetype_cap ? w->archetype_cap * 2 : 8;
		throng_controller* p = realloc(w->archetypes, cap * sizeof *p);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_archetype: out of memory");
		}
		w->archetypes = p;
		w->archetype_cap = cap;
	}
	w->archetypes[w->archetype_count] = *ctl;
	if (id_out != NULL) {
		*id_out = w->archetype_count;
	}
	w->archetype_count++;
	w->shapes_dirty = 1;
	return THRONG_OK;
}

throng_status throng_world_set_controller(throng_world* w, uint32_t archetype, const throng_controller* ctl)
{
	throng_status st = thr_check_world(w, "throng_world_set_controller");
	if (st == THRONG_OK && archetype >= w->archetype_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_set_controller: no archetype %u", archetype);
	}
	if (st == THRONG_OK) {
		st = thr_validate_controller(ctl);
	}
	if (st == THRONG_OK && w->part != NULL && ctl->combat.enabled && ctl->combat.body_radius > 0.0f) {
		st = thr_fail(THRONG_ERR_UNSUPPORTED, "throng_world_set_controller: combat: body_radius: the world is a part "
		              "of a larger one, and part worlds do not keep bodies yet");
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->archetypes[archetype] = *ctl;
	w->shapes_dirty = 1;
	return THRONG_OK;
}

throng_status throng_world_get_controller(const throng_world* w, uint32_t archetype, throng_controller* out)
{
	throng_status st = thr_check_world(w, "throng_world_get_controller");
	if (st == THRONG_OK && archetype >= w->archetype_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_get_controller: no archetype %u", archetype);
	}
	if (st == THRONG_OK && out == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_get_controller: out is NULL");
	}
	if (st == THRONG_OK) {
		*out = w->archetypes[archetype];
	}
	return st;
}

uint32_t throng_world_archetype_count(const throng_world* w)
{
	return w ? w->archetype_count : 0;
}

void thr_spawn_one(throng_world* w, const throng_agent_def* a, uint32_t source)
{
	thr_state* s = thr_cur(w);
	const uint32_t i = w->count, id = w->id_end; // new agents go at the end
	vec2 h = a->heading;
	if (h.x == 0.0f && h.y == 0.0f) {
		h = v2_length(a->velocity) > THR_EPS ? v2_normalize(a->velocity) : v2(1.0f, 0.0f);
	} else {
		h = v2_normalize(h);
	}
	s->px[i] = a->position.x;
	s->py[i] = a->position.y;
	s->vx[i] = a->velocity.x;
	s->vy[i] = a->velocity.y;
	s->hx[i] = h.x;
	s->hy[i] = h.y;
	// Choice: the circle wander starts straight ahead (angle 0 in the
	// local frame) and the noise wander along the heading.
	w->wander[i] = 0.0f;
	w->noise[i] = thr_atan2f(h.y, h.x);
	if (s->waypoint != NULL) {
		s->waypoint[i] = 0;
	}
	w->id[i] = id;
	w->slot_of[id] = i;
	w->max_speed[i] = a->max_speed;
	w->max_force[i] = a->max_force;
	w->radius[i] = a->radius;
	w->archetype[i] = a->archetype;
	if (a->group != 0u) {
		thr_store_group_live(&w->store);
	}
	if (w->store.group_live) { // (else it is 0 already, store.h)
		w->group[i] = a->group;
	}
	if (w->target_agent != NULL) { // (else a->target_agent is THRONG_NO_AGENT: throng_world_spawn made it)
		w->target_agent[i] = a->target_agent;
	}
	if (w->path != NULL) { // (else a->path is THRONG_NO_PATH: the world has no path)
		w->path[i] = a->path;
	}
	w->tx[i] = a->target.x;
	w->ty[i] = a->target.y;
	const throng_combat* c = &w->archetypes[a->archetype].combat;
	if (c->enabled && thr_store_health_set(c->health)) {
		thr_store_combat_live(&w->store);
	}
	if (w->store.combat_live) { // (else all three are 0 already, store.h)
		w->health[i] = c->enabled ? c->health : 0.0f;
		w->ready[i] = 0;
		w->combat_state[i] = 0;
	}
	if (w->unit != NULL) { // (else a->unit is THRONG_NO_UNIT: the world has no unit)
		w->unit[i] = a->unit;
	}
	if (a->unit != THRONG_NO_UNIT) {
		thr_units_joined(w, a->unit);
	}
	if (a->radius > w->max_radius) {
		w->max_radius = a->radius;
		w->shapes_dirty = 1;
	}
	thr_events_push(w, THRONG_EVENT_ADDED, id, THRONG_NO_ZONE, source);
	w->count++;
	w->id_end++;
	w->stats.agents_added++;
	w->stats.agents_peak = w->count > w->stats.agents_peak ? w->count : w->stats.agents_peak;
}

throng_status throng_world_spawn(throng_world* w, const throng_agent_def* defs, uint32_t count,
                                 uint32_t* first_id_out)
{
	throng_status st = thr_check_world(w, "throng_world_spawn");
	if (st != THRONG_OK) {
		return st;
	}
	if (count == 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_spawn: count: must be at least 1 (got 0)");
	}
	if (defs == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_spawn: defs is NULL");
	}
	if (w->part != NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "throng_world_spawn: the world is a part of a larger one; its agents come from throng_part_load");
	}
	const uint32_t first = w->id_end;
	if ((uint64_t)w->count + count > THR_MAX_CAPACITY || (uint64_t)first + count > THR_MAX_IDS) {
		return thr_fail(THRONG_ERR_CAPACITY,
		                "throng_world_spawn: count: %u agents do not fit (the world holds %u, at most %u, and has "
		                "given %u ids of %u)",
		                count, w->count, THR_MAX_CAPACITY, first, THR_MAX_IDS);
	}
	for (uint32_t k = 0; k < count; ++k) {
		st = thr_validate_agent(&w->def, w->archetype_count, w->path_count, w->unit_count, &defs[k], k, first + count);
		if (st == THRONG_OK && defs[k].target_agent < first && w->slot_of[defs[k].target_agent] == THR_NO_SLOT) {
			st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_spawn: agents[%u].target_agent: agent %u was removed", k,
			              defs[k].target_agent);
		}
		if (st != THRONG_OK) {
			return st;
		}
	}
	bool targets = false;
	for (uint32_t k = 0; k < count && !targets; ++k) {
		targets = defs[k].target_agent != THRONG_NO_AGENT;
	}
	if (thr_store_grow(w, w->count + count) != 0 || thr_store_reserve_ids(w, (uint64_t)first + count) != 0 ||
	    (targets && thr_store_reserve_targets(w) != 0)) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_spawn: out of memory for %u agents",
		                w->count + count);
	}
	st = thr_events_reserve(w, count, (uint64_t)first + count, "throng_world_spawn");
	if (st != THRONG_OK) {
		return st;
	}
	for (uint32_t k = 0; k < count; ++k) {
		thr_spawn_one(w, &defs[k], THRONG_NO_SOURCE);
	}
	thr_agents_changed(w);
	if (first_id_out != NULL) {
		*first_id_out = first;
	}
	return THRONG_OK;
}

uint32_t throng_world_agent_count(const throng_world* w)
{
	return w ? w->count : 0;
}

throng_status thr_find_agent(const throng_world* w, uint32_t id, const char* fn, uint32_t* slot)
{
	throng_status st = thr_check_world(w, fn);
	if (st != THRONG_OK) {
		return st;
	}
	if (w->part != NULL) { // ids of the whole world, some of them here
		if (id >= w->whole.id_space || w->slot_of[id] == THR_NO_SLOT) {
			return thr_fail(THRONG_ERR_NOT_FOUND, "%s: no agent with id %u in this part", fn, id);
		}
	} else if (id >= w->id_end) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: no agent with id %u (ids given so far end at %u)", fn, id,
		                w->id_end);
	} else if (w->slot_of[id] == THR_NO_SLOT) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: no agent with id %u (it was removed)", fn, id);
	}
	*slot = w->slot_of[id];
	return THRONG_OK;
}

throng_status throng_world_get_agent(const throng_world* w, uint32_t id, throng_agent_state* out)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_get_agent", &i);
	if (st == THRONG_OK && out == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_get_agent: out is NULL");
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_state* s = thr_cur_c(w);
	out->id = id;
	out->position = v2(s->px[i], s->py[i]);
	out->velocity = v2(s->vx[i], s->vy[i]);
	out->heading = v2(s->hx[i], s->hy[i]);
	out->max_speed = w->max_speed[i];
	out->max_force = w->max_force[i];
	out->radius = w->radius[i];
	out->archetype = w->archetype[i];
	out->group = w->group[i];
	out->target = v2(w->tx[i], w->ty[i]);
	out->target_agent = w->target_agent != NULL ? w->target_agent[i] : THRONG_NO_AGENT;
	out->wander_angle = w->wander[i];
	out->noise_angle = w->noise[i];
	out->path = w->path != NULL ? w->path[i] : THRONG_NO_PATH;
	out->waypoint = s->waypoint != NULL ? s->waypoint[i] : 0;
	out->health = w->health[i];
	out->combat_state = w->combat_state[i];
	out->unit = w->unit != NULL ? w->unit[i] : THRONG_NO_UNIT;
	return THRONG_OK;
}

throng_status throng_world_set_target(throng_world* w, uint32_t id, throng_vec2 target)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_set_target", &i);
	if (st == THRONG_OK) {
		st = thr_validate_point("throng_world_set_target: target", target);
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->tx[i] = target.x;
	w->ty[i] = target.y;
	return THRONG_OK;
}

throng_status throng_world_set_target_agent(throng_world* w, uint32_t id, uint32_t target_agent)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_set_target_agent", &i);
	uint32_t unused = 0;
	if (st == THRONG_OK && target_agent != THRONG_NO_AGENT) {
		// In a part world the part must hold the target, or the step could not read it.
		st = thr_find_agent(w, target_agent, "throng_world_set_target_agent: target_agent", &unused);
	}
	if (st == THRONG_OK && target_agent != THRONG_NO_AGENT && thr_store_reserve_targets(w) != 0) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_set_target_agent: out of memory");
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (w->target_agent != NULL) { // (else target_agent is THRONG_NO_AGENT, as every agent's)
		w->target_agent[i] = target_agent;
	}
	return THRONG_OK;
}

throng_status throng_world_set_path(throng_world* w, uint32_t id, uint32_t path, uint32_t waypoint)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_set_path", &i);
	if (st == THRONG_OK && path != THRONG_NO_PATH && path >= w->path_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_set_path: path: no path %u (the world has %u)", path,
		              w->path_count);
	}
	if (st == THRONG_OK && path != THRONG_NO_PATH && waypoint >= w->paths[path].count) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		              "throng_world_set_path: waypoint: path %u has %u waypoints (got index %u)", path,
		              w->paths[path].count, waypoint);
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (w->path != NULL) { // none before the first path: all THRONG_NO_PATH, as is `path`
		w->path[i] = path;
	}
	if (thr_cur(w)->waypoint != NULL) { // none before the first path: all 0
		thr_cur(w)->waypoint[i] = path == THRONG_NO_PATH ? 0 : waypoint;
	}
	return THRONG_OK;
}

throng_status throng_world_keep_replaced_arrays(throng_world* w, bool keep)
{
	if (w == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_keep_replaced_arrays: world is NULL");
	}
	w->store.keep = keep;
	if (!keep) {
		thr_store_free_kept(&w->store);
	}
	return THRONG_OK;
}

throng_view throng_world_view(const throng_world* w)
{
	throng_view v;
	memset(&v, 0, sizeof v);
	if (w == NULL) {
		return v;
	}
	const thr_state* s = thr_cur_c(w);
	v.count = w->count;
	v.step = w->step;
	v.id = w->id;
	v.x = s->px;
	v.y = s->py;
	v.vx = s->vx;
	v.vy = s->vy;
	v.hx = s->hx;
	v.hy = s->hy;
	v.radius = w->radius;
	v.group = w->group;
	v.archetype = w->archetype;
	v.health = w->health;
	v.combat_state = w->combat_state;
	return v;
}

throng_status throng_world_slot_force(const throng_world* w, uint32_t id, uint32_t slot, throng_vec2* out)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_slot_force", &i);
	if (st == THRONG_OK && !w->def.record_forces) {
		st = thr_fail(THRONG_ERR_UNSUPPORTED, "throng_world_slot_force: the world does not record forces "
		                                      "(set record_forces in its def)");
	}
	if (st == THRONG_OK && slot >= w->archetypes[w->archetype[i]].slot_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_slot_force: slot: archetype %u has no slot %u",
		              w->archetype[i], slot);
	}
	if (st == THRONG_OK && out == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_slot_force: out is NULL");
	}
	if (st != THRONG_OK) {
		return st;
	}
	size_t k = thr_force_index(w, slot, i);
	*out = v2(w->force_x[k], w->force_y[k]);
	return THRONG_OK;
}

throng_status throng_world_total_force(const throng_world* w, uint32_t id, throng_vec2* out)
{
	uint32_t i = 0;
	throng_status st = thr_find_agent(w, id, "throng_world_total_force", &i);
	if (st == THRONG_OK && !w->def.record_forces) {
		st = thr_fail(THRONG_ERR_UNSUPPORTED, "throng_world_total_force: the world does not record forces "
		                                      "(set record_forces in its def)");
	}
	if (st == THRONG_OK && out == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_total_force: out is NULL");
	}
	if (st != THRONG_OK) {
		return st;
	}
	*out = v2(w->total_x[i], w->total_y[i]);
	return THRONG_OK;
}

throng_world_stats throng_world_get_stats(const throng_world* w)
{
	throng_world_stats s;
	memset(&s, 0, sizeof s);
	return w ? w->stats : s;
}

uint32_t throng_default_threads(void)
{
#ifdef _OPENMP
	int n = omp_get_max_threads();
	return n < 1 ? 1u : (uint32_t)n > THRONG_MAX_THREADS ? THRONG_MAX_THREADS : (uint32_t)n;
#else
	return 1u;
#endif
}

uint64_t throng_world_hash(const throng_world* w)
{
	if (w == NULL) {
		return 0;
	}
	XXH3_state_t state;
	XXH3_INITSTATE(&state);
	XXH3_state_t* h = &state;
	XXH3_64bits_reset(h);
	XXH3_64bits_update(h, &w->step, sizeof w->step);
	XXH3_64bits_update(h, &w->count, sizeof w->count);
	// Agents in id order, so engines that store agents in another order hash alike.
	const thr_state* s = thr_cur_c(w);
	enum { BATCH = 256, FIELDS = 13 };
	uint32_t buf[BATCH * FIELDS];
	uint32_t used = 0;
	const float* const f[10] = {s->px, s->py, s->vx, s->vy, s->hx, s->hy, w->wander, w->noise, w->tx, w->ty};
	// Ids may be sparse: removed agents', or in a part world the whole's.
	const uint32_t ids = thr_id_end(w);
	for (uint32_t id = 0; id < ids; ++id) {
		uint32_t i = w->slot_of[id];
		if (i == THR_NO_SLOT) {
			continue;
		}
		uint32_t* b = buf + used * FIELDS;
		for (int k = 0; k < 10; ++k) {
			memcpy(&b[k], &f[k][i], sizeof(float)); // the bits, -0 and +0 apart
		}
		b[10] = w->target_agent != NULL ? w->target_agent[i] : THRONG_NO_AGENT;
		b[11] = w->path != NULL ? w->path[i] : THRONG_NO_PATH;
		b[12] = s->waypoint != NULL ? s->waypoint[i] : 0;
		if (++used == BATCH) {
			XXH3_64bits_update(h, buf, sizeof buf);
			used = 0;
		}
	}
	XXH3_64bits_update(h, buf, used * FIELDS * sizeof(uint32_t));
	if (thr_combat_any(w)) { // (so that worlds without combat hash as before it was)
		used = 0;
		for (uint32_t id = 0; id < ids; ++id) {
			const uint32_t i = w->slot_of[id];
			if (i == THR_NO_SLOT) {
				continue;
			}
			memcpy(&buf[2u * used], &w->health[i], sizeof(float));
			buf[2u * used + 1u] = w->ready[i];
			if (++used == BATCH * FIELDS / 2u) {
				XXH3_64bits_update(h, buf, sizeof buf);
				used = 0;
			}
		}
		XXH3_64bits_update(h, buf, used * 2u * sizeof(uint32_t));
		for (uint32_t k = 0; k < w->missile_n; ++k) { // in flight, in their (fixed) order
			const thr_missile* m = &w->missiles[k];
			uint32_t b[8] = {(uint32_t)m->shot, (uint32_t)(m->shot >> 32), (uint32_t)m->land, (uint32_t)(m->land >> 32),
			                 m->target, m->shooter, 0, 0};
			memcpy(&b[6], &m->x, sizeof(float));
			memcpy(&b[7], &m->y, sizeof(float));
			XXH3_64bits_update(h, b, sizeof b);
			XXH3_64bits_update(h, &m->damage, sizeof m->damage);
		}
	}
	for (uint32_t k = 0; k < w->unit_count; ++k) { // (none: worlds without units hash as before them)
		const thr_unit* u = &w->units[k];
		uint32_t b[16] = {u->count, u->most, u->start, u->rallies_left, u->quiet, u->routing, (uint32_t)u->routed_step,
		                  (uint32_t)(u->routed_step >> 32)};
		const float f[8] = {u->base, u->shock, u->cx, u->cy, u->fx, u->fy, u->rx, u->ry};
		memcpy(&b[8], f, sizeof f);
		XXH3_64bits_update(h, b, sizeof b);
		if (u->def.formation.kind != THRONG_FORMATION_NONE) {
			uint32_t o[3] = {(uint32_t)u->order.kind, u->charging, u->anchored};
			const float g[6] = {u->order.point.x, u->order.point.y, u->ax, u->ay, u->hx, u->hy};
			XXH3_64bits_update(h, o, sizeof o);
			XXH3_64bits_update(h, g, sizeof g);
		}
		if (u->def.morale.army_breaks_at < 1.0f) { // (its killed count steers it only then)
			XXH3_64bits_update(h, &u->killed, sizeof u->killed);
		}
	}
	float threat[4] = {w->threat_p.x, w->threat_p.y, w->threat_v.x, w->threat_v.y};
	XXH3_64bits_update(h, threat, sizeof threat);
	uint8_t active = w->threat_active;
	XXH3_64bits_update(h, &active, 1);
	return XXH3_64bits_digest(h);
}
