// SPDX-License-Identifier: MIT
// Part worlds (part.h): a world that holds one process's share of a larger
// one, with the larger one's ids and grid.
#include "part.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "combat.h"
#include "error.h"
#include "events.h"
#include "memory.h"
#include "sources.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

throng_status thr_part_make(throng_world* w, const thr_part_def* def)
{
	throng_status st = thr_check_world(w, "thr_part_make");
	if (st != THRONG_OK) {
		return st;
	}
	if (def == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "thr_part_make: def is NULL");
	}
	if (w->part != NULL || w->count != 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "thr_part_make: the world is a part already or has agents");
	}
	if (def->grid_capacity == 0 || def->grid_capacity > THR_MAX_CAPACITY) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "thr_part_make: grid_capacity must be from 1 to %u (got %u)",
		                THR_MAX_CAPACITY, def->grid_capacity);
	}
	if (!(def->max_radius >= 0.0f) || !isfinite(def->max_radius)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "thr_part_make: max_radius must be finite and at least 0");
	}
	if (!(def->max_speed >= 0.0f) || !isfinite(def->max_speed)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "thr_part_make: max_speed must be finite and at least 0");
	}
	thr_part* p = calloc(1, sizeof *p);
	const uint32_t ids = def->id_space > 0 ? def->id_space : 1u; // room for one id at least
	uint32_t* slot_of = malloc((size_t)ids * sizeof *slot_of);
	uint8_t* ghost = calloc((size_t)ids / 8u + 1u, 1);
	uint8_t* seen = calloc((size_t)ids / 8u + 1u, 1);
	if (p == NULL || slot_of == NULL || ghost == NULL || seen == NULL) {
		free(p);
		free(slot_of);
		free(ghost);
		free(seen);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "thr_part_make: out of memory for %u ids", def->id_space);
	}
	thr_huge_pages(slot_of, (size_t)ids * sizeof *slot_of);
	memset(slot_of, 0xff, (size_t)ids * sizeof *slot_of); // THR_NO_SLOT
	p->slot_of = slot_of;
	p->ghost = ghost;
	p->seen = seen;
	p->ids_cap = ids;
	w->part = p;
	w->whole = *def; // its count until the driver says (throng_part_set_world)
	w->id_end = def->id_space; // the next id a source of the part gives (throng_part_sources)
	w->slot_of = slot_of; // the store's own slot_of array stays unused
	if (def->max_radius > w->max_radius) {
		w->max_radius = def->max_radius;
		w->shapes_dirty = 1;
	}
	return THRONG_OK;
}

throng_status throng_part_set_sync(throng_world* w, const throng_part_sync* sync)
{
	if (w == NULL || w->part == NULL || sync == NULL || sync->reduce == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_set_sync: needs a part world and a reduce function");
	}
	w->part->sync = *sync;
	return THRONG_OK;
}

const throng_part_sync* thr_part_sync_of(const throng_world* w)
{
	return w->part != NULL && w->part->sync.reduce != NULL ? &w->part->sync : NULL;
}

void thr_part_free(throng_world* w)
{
	if (w->part != NULL) {
		free(w->part->slot_of);
		free(w->part->ghost);
		free(w->part->seen);
		free(w->part->holes);
		free(w->part->unit_sums);
		free(w->part);
		w->part = NULL;
		memset(&w->whole, 0, sizeof w->whole);
	}
}

/// What part worlds cannot do: solid agents without a way to agree with
/// the other parts, combat without a way to send a blow on a ghost to its
/// owner (the sync's share), formations (not yet: a soldier's slot is
/// its place in id order among its unit's members, who may live in
/// several parts) and bodies (not yet: every part would have to lay each
/// body down, in one order).
static throng_status check_supported(const throng_world* w)
{
	for (uint32_t k = 0; k < w->unit_count; ++k) {
		if (w->units[k].def.formation.kind != THRONG_FORMATION_NONE) {
			return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_part_load: unit %u has a formation: part worlds do not "
			                "keep formations yet (run the scene in one process)", k);
		}
	}
	if (w->unit_count > 0 && w->part->sync.reduce == NULL) {
		return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_part_load: the world has %u unit%s (throng_world_add_unit): "
		                "their morale needs throng_part_set_sync first (the parts add up each unit's sums)",
		                w->unit_count, w->unit_count == 1 ? "" : "s");
	}
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_controller* c = &w->archetypes[a];
		if (c->combat.enabled && c->combat.body_radius > 0.0f) {
			return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_part_load: archetype %u: combat: body_radius %g: part "
			                "worlds do not keep bodies yet (run the scene in one process)", a,
			                (double)c->combat.body_radius);
		}
		if (c->combat.enabled && w->part->sync.share == NULL) {
			return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_part_load: archetype %u: combat: needs throng_part_set_sync "
			                "with a share function first (blows on ghosts go to their owners)", a);
		}
		if (c->contact.enabled && w->part->sync.reduce == NULL) {
			return thr_fail(THRONG_ERR_UNSUPPORTED,
			                "throng_part_load: archetype %u: contact: solid contacts need throng_part_set_sync first", a);
		}
	}
	return THRONG_OK;
}

/// Whether an agent's target may leave between two loads without its
/// pursuer's part knowing: a sink or a blow on another part removed it.
static bool targets_may_go(const throng_world* w)
{
	return thr_events_sinks_any(w) || thr_combat_any(w);
}

int throng_agent_record_by_id(const void* a, const void* b)
{
	const uint32_t x = ((const throng_agent_record*)a)->id, y = ((const throng_agent_record*)b)->id;
	return (x > y) - (x < y);
}

/// Bit `id` of a set of a bit per id (the part's `ghost` and `seen`).
static inline bool bit_get(const uint8_t* bits, uint32_t id)
{
	return ((bits[id >> 3] >> (id & 7u)) & 1u) != 0;
}

static inline void bit_set(uint8_t* bits, uint32_t id)
{
	bits[id >> 3] |= (uint8_t)(1u << (id & 7u));
}

static inline void bit_clear(uint8_t* bits, uint32_t id)
{
	bits[id >> 3] &= (uint8_t)~(1u << (id & 7u));
}

/// Clears the `seen` bits of the first n records (their ids below the id space).
static void unsee(thr_part* p, const throng_agent_record* recs, uint32_t n)
{
	for (uint32_t k = 0; k < n; ++k) {
		bit_clear(p->seen, recs[k].id);
	}
}

/// Checks the n records a load or an update brings, their ids against each
/// other and against the ids already marked in p->seen (the agents an
/// update keeps); every own agent's target_agent must be marked or among
/// them. On success the records' ids are left marked too (the caller
/// clears them); on failure p->seen is as it was.
static throng_status check_records(const throng_world* w, const throng_agent_record* recs, const uint8_t* ghost,
                                   uint32_t n)
{
	thr_part* p = w->part;
	const bool waypoints = thr_cur_c(w)->waypoint != NULL;
	// The scalar reference keeps its agents in the order they come in:
	// they must come in id order, a whole world's. The SIMD engine orders
	// each cell by id itself (core/grid.h): any order of distinct ids.
	const bool by_id = w->def.engine != THRONG_ENGINE_SIMD;
	for (uint32_t k = 0; k < n; ++k) {
		const throng_agent_record* r = &recs[k];
		const char* field = NULL;
		if (r->id >= w->whole.id_space || (by_id && k > 0 && r->id <= recs[k - 1].id)) {
			field = by_id ? "id (must increase, below the id space: the scalar engine keeps them in order)"
			              : "id (below the id space)";
		} else if (bit_get(p->seen, r->id)) {
			field = "id (twice)";
		} else if (r->archetype >= w->archetype_count) {
			field = "archetype";
		} else if (!(r->radius <= w->max_radius)) {
			field = "radius (above the whole world's largest)";
		} else if (!(r->max_speed <= w->whole.max_speed)) {
			field = "max_speed (above the whole world's largest)";
		} else if (r->path != THRONG_NO_PATH && r->path >= w->path_count) {
			field = "path";
		} else if (r->waypoint != 0 && !waypoints) {
			field = "waypoint (the world has no path)";
		} else if (!(r->health >= 0.0f && r->health <= FLT_MAX)) {
			field = "health (finite, 0 or more)";
		} else if (r->unit != THRONG_NO_UNIT && r->unit >= w->unit_count) {
			field = "unit";
		}
		if (field != NULL) {
			unsee(p, recs, k);
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_load: record %u (id %u): %s", k, r->id, field);
		}
		bit_set(p->seen, r->id);
	}
	// Every id is marked now: an own agent's target must be one of them
	// (a ghost's may be missing: throng_part_update drops it; so may an
	// own agent's in a world with sinks or combat, which removed it: below).
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t t = recs[k].target_agent;
		if ((ghost != NULL && ghost[k] != 0) || targets_may_go(w)) {
			continue;
		}
		if (t != THRONG_NO_AGENT && (t >= w->whole.id_space || !bit_get(p->seen, t))) {
			unsee(p, recs, n);
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_load: record %u (id %u): target_agent (not in the part)",
			                k, recs[k].id);
		}
	}
	return THRONG_OK;
}

// A record's fields, named once for the two ways (put_record,
// throng_agent_record_get): those of the current state, then the world's
// single arrays. The waypoint and the path, whose arrays exist only from
// the first path on, the unit, only from the first unit on, the target
// agent, only from the first target agent on, and the group, written
// only in a group-live world, are written out by each.
#define RECORD_STATE(X) X(px) X(py) X(vx) X(vy) X(hx) X(hy)
#define RECORD_SINGLES(X)                                                                                    \
	X(id) X(max_speed) X(max_force) X(radius) X(archetype) X(tx) X(ty)                                         \
	X(health) X(ready) X(combat_state) X(wander) X(noise)

/// Writes record r into slot i of w: its current state and its singles,
/// and its zone bits (by id).
static void put_record(throng_world* w, thr_state* s, uint32_t i, const throng_agent_record* r)
{
#define PUT_STATE(f) s->f[i] = r->f;
#define PUT_SINGLE(f) w->f[i] = r->f;
	if (thr_store_health_set(r->health) || r->ready != 0u || r->combat_state != 0u) {
		thr_store_combat_live(&w->store);
	}
	if (r->group != 0u) {
		thr_store_group_live(&w->store);
	}
	if (w->store.group_live) { // (else it is 0 and stays so, store.h)
		w->group[i] = r->group;
	}
	RECORD_STATE(PUT_STATE)
	RECORD_SINGLES(PUT_SINGLE)
#undef PUT_STATE
#undef PUT_SINGLE
	if (s->waypoint != NULL) {
		s->waypoint[i] = r->waypoint;
	}
	if (w->path != NULL) { // (else r->path is THRONG_NO_PATH: checked by the load)
		w->path[i] = r->path;
	}
	if (w->unit != NULL) { // (else r->unit is THRONG_NO_UNIT: checked by the load)
		w->unit[i] = r->unit;
	}
	if (w->target_agent != NULL) { // (else r->target_agent is THRONG_NO_AGENT: the load made it)
		w->target_agent[i] = r->target_agent;
	}
	w->combat_marked |= r->combat_state != 0; // (cleared by the next step's thr_combat_apply)
	if (w->inside != NULL) { // room for every id of the id space (thr_part_grow_ids)
		w->inside[r->id] = (uint64_t)r->inside[0] | (uint64_t)r->inside[1] << 32;
	}
}

/// Moves the current state of slot j of s to slot k (the singles are
/// written again by the load).
static void move_state(thr_state* s, uint32_t k, uint32_t j)
{
#define MOVE_STATE(f) s->f[k] = s->f[j];
	RECORD_STATE(MOVE_STATE)
#undef MOVE_STATE
	if (s->waypoint != NULL) {
		s->waypoint[k] = s->waypoint[j];
	}
}

/// Whether some record of recs[0 .. n) has a target agent (the world then
/// needs its target_agent column, store.h).
static bool any_target(const throng_agent_record* recs, uint32_t n)
{
	for (uint32_t k = 0; k < n; ++k) {
		if (recs[k].target_agent != THRONG_NO_AGENT) {
			return true;
		}
	}
	return false;
}

/// Whether slot i of w holds an own agent (not a ghost) that keep keeps.
static inline bool kept(const throng_world* w, const uint8_t* keep, uint32_t i)
{
	return keep != NULL && keep[i] != 0 && !thr_part_ghost(w->part, w->id[i]);
}

/// throng_part_update, writing the records into store buffer `into`: the
/// current one, or (throng_part_load_next, keep NULL) the other, which
/// then becomes current as at a step's end. Either way the other buffer is
/// then the previous state the load publishes.
static throng_status update_into(throng_world* w, const uint8_t* keep, const throng_agent_record* recs,
                                 const uint8_t* ghost, uint32_t n, uint64_t step, int into)
{
	throng_status st = thr_check_world(w, "throng_part_update");
	if (st != THRONG_OK) {
		return st;
	}
	if (w->part == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_update: the world is not a part (throng_part_create)");
	}
	if (n > 0 && recs == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_update: recs is NULL");
	}
	if (keep != NULL && w->def.engine != THRONG_ENGINE_SIMD) {
		return thr_fail(THRONG_ERR_UNSUPPORTED, "throng_part_update: the scalar engine keeps its agents in id order: it "
		                "takes whole loads (keep NULL, throng_part_load)");
	}
	if ((st = check_supported(w)) != THRONG_OK) {
		return st;
	}
	thr_part* p = w->part;
	if (p->unit_sums_cap < w->unit_count) { // (made before the step: no allocation in its morale stage)
		uint64_t* sums = realloc(p->unit_sums, (size_t)w->unit_count * THR_UNIT_SUMS * sizeof *sums);
		if (sums == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part_update: out of memory for %u units", w->unit_count);
		}
		p->unit_sums = sums;
		p->unit_sums_cap = w->unit_count;
	}
	if (keep != NULL && p->holes_cap < w->count) {
		uint32_t* holes = realloc(p->holes, (size_t)w->count * sizeof *holes);
		if (holes == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part_update: out of memory for %u slots", w->count);
		}
		p->holes = holes;
		p->holes_cap = w->count;
	}
	// The kept ids are marked first, so that a record that brings one
	// again is refused; then the records' (check_records); then every kept
	// agent's target must be marked. The kept ids' marks are cleared as
	// the slots are visited below (on failure, here).
	uint32_t kept_n = 0;
	for (uint32_t i = 0; i < w->count; ++i) {
		if (kept(w, keep, i)) {
			bit_set(p->seen, w->id[i]);
			++kept_n;
		}
	}
	// The capacity the part was made with is a hint: it grows.
	if ((uint64_t)kept_n + n > THR_MAX_CAPACITY) {
		st = thr_fail(THRONG_ERR_CAPACITY, "throng_part_update: %u kept and %u new agents do not fit (at most %u)",
		              kept_n, n, THR_MAX_CAPACITY);
	} else if (thr_store_grow(w, kept_n + n) != 0 || (any_target(recs, n) && thr_store_reserve_targets(w) != 0)) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part_update: out of memory for %u agents", kept_n + n);
	} else {
		st = check_records(w, recs, ghost, n);
	}
	const throng_status checked = st;
	const bool lost_ok = targets_may_go(w); // a target a sink or a blow removed: none (below)
	for (uint32_t i = 0; st == THRONG_OK && kept_n > 0 && !lost_ok && w->target_agent != NULL && i < w->count; ++i) {
		const uint32_t t = w->target_agent[i];
		if (t != THRONG_NO_AGENT && kept(w, keep, i) && (t >= w->whole.id_space || !bit_get(p->seen, t))) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			              "throng_part_update: slot %u (id %u): target_agent (not kept, not brought)", i, w->id[i]);
		}
	}
	if (checked == THRONG_OK) {
		unsee(p, recs, n); // check_records left them marked
	}
	if (st != THRONG_OK) {
		for (uint32_t i = 0; kept_n > 0 && i < w->count; ++i) {
			bit_clear(p->seen, w->id[i]); // every kept id; the others' are clear already
		}
		return st;
	}
	// The dropped agents leave holes; the kept ones stay in their slots.
	// The records fill the holes in order, then go past the end; holes
	// left below the new count take the kept agents from the top. Records
	// that come grouped by cell (as the parts' storage orders leave them)
	// and holes where the last step's ghosts of the same rows were keep
	// the storage nearly sorted by cell, and the kept agents, most of
	// them, are not copied at all. A whole load (keep NULL) is all holes:
	// record k goes to slot k.
	uint32_t* slot_of = p->slot_of;
	uint8_t* bits = p->ghost;
	thr_state* s = &w->store.buf[into];
	const uint32_t old = w->count;
	// A load into the other buffer (throng_part_load_next): the current
	// state becomes the previous one, which an observer reads slot by
	// slot. The agents still here (the records by increasing id, as the
	// agents w holds) take their previous states along into the records'
	// slots, forward (an agent's old slot is never below its new one);
	// the new agents (a source's, whose ids come last) have none: the
	// published count stops before them.
	uint32_t survivors = n;
	for (uint32_t k = 1; into != w->store.cur && k < n; ++k) {
		if (recs[k].id <= recs[k - 1u].id) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_load_next: record %u (id %u): id (must increase)",
			                k, recs[k].id);
		}
	}
	if (into != w->store.cur) {
		thr_state* prev = &w->store.buf[w->store.cur];
		survivors = 0;
		for (uint32_t k = 0; k < n && slot_of[recs[k].id] != THR_NO_SLOT; ++k) {
			const uint32_t j = slot_of[recs[k].id];
			if (j != k) {
				move_state(prev, k, j);
			}
			survivors++;
		}
	}
	uint32_t holes = 0;
	for (uint32_t i = 0; i < old; ++i) {
		const uint32_t id = w->id[i];
		if (kept(w, keep, i)) {
			bit_clear(p->seen, id);
			continue;
		}
		slot_of[id] = THR_NO_SLOT;
		bit_clear(bits, id);
		if (keep != NULL) {
			p->holes[holes] = i;
		}
		++holes;
	}
	const uint32_t count = kept_n + n;
	uint32_t h = 0, end = old;
	for (uint32_t k = 0; k < n; ++k) {
		const throng_agent_record* r = &recs[k];
		const uint32_t at = h < holes ? (keep != NULL ? p->holes[h++] : h++) : end++;
		put_record(w, s, at, r);
		slot_of[r->id] = at;
		if (ghost != NULL && ghost[k] != 0) {
			bit_set(bits, r->id);
		}
	}
	// Holes left (h .. holes, ascending) below the count: each takes the
	// topmost kept agent, skipping the holes at the top.
	uint32_t top = holes; // holes[h .. top) are the holes not yet passed from the top
	for (uint32_t t = old; keep != NULL && h < top && p->holes[h] < count && t-- > 0;) {
		if (p->holes[top - 1u] == t) {
			--top; // a hole: nothing to move
			continue;
		}
		throng_agent_record r;
		throng_agent_record_get(w, t, &r);
		const uint32_t at = p->holes[h++];
		put_record(w, s, at, &r);
		slot_of[r.id] = at;
	}
	// A ghost whose target is not in the part pursues nothing here: the
	// halo is deep enough (throng_part_halo_rows) that such a ghost lies
	// beyond every ghost whose step reaches an own agent's. In a world
	// with sinks or combat, neither does an own agent whose target is
	// gone: a sink or a blow on another part removed it after the last
	// step, which leaves its pursuers none in the whole world too
	// (thr_remove_marked).
	for (uint32_t i = 0; lost_ok && w->target_agent != NULL && i < count; ++i) {
		const uint32_t t = w->target_agent[i];
		if (t != THRONG_NO_AGENT && (t >= w->whole.id_space || slot_of[t] == THR_NO_SLOT)) {
			w->target_agent[i] = THRONG_NO_AGENT;
		}
	}
	for (uint32_t k = 0; ghost != NULL && !lost_ok && w->target_agent != NULL && k < n; ++k) {
		const uint32_t t = recs[k].target_agent;
		if (ghost[k] != 0 && t != THRONG_NO_AGENT && (t >= w->whole.id_space || slot_of[t] == THR_NO_SLOT)) {
			w->target_agent[slot_of[recs[k].id]] = THRONG_NO_AGENT;
		}
	}
	// Slots past the count keep what they held: the passes read them only
	// as lanes past the end, under a mask or with harmless limits
	// (simd/agents.c), and a reorder leaves old values there in its spares
	// as well. What they hold changes no bit (tests/test_part.c loads
	// fewer agents than the step before, step after step).
	w->count = count;
	w->step = step;
	thr_make_current(w, into);
	// Observers see the other buffer as the previous state: after
	// throng_part_load_next, the state the load replaced, in the same slots.
	const thr_contact_report none = {0, 0, 0, 0, 0};
	thr_publish_step(w, &w->store.buf[into ^ 1], NULL, &none);
	w->published.count = survivors < count ? survivors : count; // the slots with a previous state
	return THRONG_OK;
}

throng_status throng_part_update(throng_world* w, const uint8_t* keep, const throng_agent_record* recs,
                                 const uint8_t* ghost, uint32_t n, uint64_t step)
{
	return update_into(w, keep, recs, ghost, n, step, w != NULL ? w->store.cur : 0);
}

void thr_part_mark_ghosts(const throng_world* w, uint8_t* ghost)
{
	const uint8_t* by_id = w->part->ghost;
	memset(ghost, 0, (size_t)w->count / 8u + 1u);
	for (uint32_t i = 0; i < w->count; ++i) {
		ghost[i >> 3] |= (uint8_t)((unsigned)bit_get(by_id, w->id[i]) << (i & 7u));
	}
}

throng_status throng_part_load(throng_world* w, const throng_agent_record* recs, const uint8_t* ghost, uint32_t n,
                            uint64_t step)
{
	return throng_part_update(w, NULL, recs, ghost, n, step);
}

throng_status throng_part_load_next(throng_world* w, const throng_agent_record* recs, uint32_t n, uint64_t step)
{
	if (w == NULL || w->part == NULL || n != w->whole.count) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_load_next: %s",
		                w == NULL || w->part == NULL ? "not a part world" : "the records are not the whole world's");
	}

	// Into the store's other buffer, made current once loaded (nothing is
	// written when the records are refused): the state w held stays as
	// its previous state, as a step leaves it.
	return update_into(w, NULL, recs, NULL, n, step, w->store.cur ^ 1);
}

throng_status throng_part_copy_combat(throng_world* to, const throng_world* from)
{
	if (to == NULL || from == NULL || to->part == NULL || from->part == NULL || to->unit_count != from->unit_count) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_copy_combat: needs two part worlds of as many units");
	}
	const throng_status st = thr_combat_copy_missiles(to, from);
	if (st == THRONG_OK) {
		thr_units_copy(to, from);
	}
	return st;
}

bool throng_part_is_ghost(const throng_world* w, uint32_t slot)
{
	return w != NULL && w->part != NULL && slot < w->count && bit_get(w->part->ghost, w->id[slot]);
}

throng_status throng_part_set_stats(throng_world* w, const throng_world_stats* stats)
{
	if (w == NULL || w->part == NULL || stats == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_set_stats: needs a part world and stats");
	}
	w->stats = *stats;
	return THRONG_OK;
}

void throng_part_get_threat(const throng_world* w, throng_vec2* position, throng_vec2* velocity, bool* active)
{
	if (position != NULL) {
		*position = (throng_vec2){w->threat_p.x, w->threat_p.y};
	}
	if (velocity != NULL) {
		*velocity = (throng_vec2){w->threat_v.x, w->threat_v.y};
	}
	if (active != NULL) {
		*active = w->threat_active;
	}
}

throng_status throng_agent_record_of(const throng_world* w, uint32_t id, throng_agent_record* out)
{
	throng_status st = thr_check_world(w, "throng_agent_record_of");
	if (st != THRONG_OK) {
		return st;
	}
	const uint32_t ids = thr_id_end(w);
	if (out == NULL || id >= ids || w->slot_of[id] == THR_NO_SLOT) {
		return thr_fail(out == NULL ? THRONG_ERR_INVALID_ARGUMENT : THRONG_ERR_NOT_FOUND,
		                "throng_agent_record_of: %s %u", out == NULL ? "out is NULL for id" : "no agent with id", id);
	}
	throng_agent_record_get(w, w->slot_of[id], out);
	return THRONG_OK;
}

void throng_agent_record_get(const throng_world* w, uint32_t i, throng_agent_record* out)
{
	const thr_state* s = thr_cur_c(w);
#define GET_STATE(f) out->f = s->f[i];
#define GET_SINGLE(f) out->f = w->f[i];
	RECORD_STATE(GET_STATE)
	RECORD_SINGLES(GET_SINGLE)
#undef GET_STATE
#undef GET_SINGLE
	out->waypoint = s->waypoint != NULL ? s->waypoint[i] : 0;
	out->path = w->path != NULL ? w->path[i] : THRONG_NO_PATH;
	out->unit = w->unit != NULL ? w->unit[i] : THRONG_NO_UNIT;
	out->target_agent = w->target_agent != NULL ? w->target_agent[i] : THRONG_NO_AGENT;
	out->group = w->group[i];
	const uint64_t in = w->inside != NULL && out->id < w->inside_cap ? w->inside[out->id] : 0u;
	out->inside[0] = (uint32_t)in;
	out->inside[1] = (uint32_t)(in >> 32);
}

throng_part_rows throng_part_rows_of(const throng_world* w)
{
	// The layout of core/step.c's prepare stage.
	const throng_world_def* d = &w->def;
	thr_grid g;
	memset(&g, 0, sizeof g);
	thr_grid_layout_sparse(&g, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y,
	                       thr_world_cell_size(w), thr_world_max_cells(w), thr_world_max_cells(w));
	throng_part_rows r = {g.min_y, g.inv_cell, g.cell, g.ny, g.min_x, g.nx};
	thr_grid_free(&g);
	return r;
}

int32_t throng_part_row(const throng_part_rows* r, float y)
{
	return thr_grid_coord(y, r->min_y, r->inv_cell, r->ny);
}

int32_t throng_part_col(const throng_part_rows* r, float x)
{
	return thr_grid_coord(x, r->min_x, r->inv_cell, r->nx);
}

int32_t throng_part_halo_rows(const throng_world* w)
{
	float walk = 0.0f;
	uint32_t iterations = 0;
	bool contacts = false;
	const double speed = w->whole.max_speed; // 0 in a whole world
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_controller* c = &w->archetypes[a];
		float q = thr_arch_neighbors(c).query_radius;
		walk = q > walk ? q : walk;
		if (c->target_rule.enabled) {
			// A choice reads every cell within sight; the target chosen
			// then drifts away, both moving, until the next choice.
			const double sight = (double)c->target_rule.sight_radius +
			                     2.0 * speed * (double)w->def.dt * (double)c->target_rule.every;
			walk = sight > walk ? (float)sight : walk;
		}
		if (c->combat.enabled && c->combat.attack == THRONG_ATTACK_MISSILE && w->unit_count > 0) {
			// A hit's direction (core/units.c) reads where its shooter
			// stands when the missile lands, on the target's part: within
			// reach of the target when shot (plus both radii and the spread
			// round the target), then both moving for the whole flight.
			const double far = (double)c->combat.reach + 2.0 * fmax((double)w->max_radius, (double)thr_sources_max_radius(w)) +
			                   (double)c->combat.spread;
			const double flight = far / (double)c->combat.missile_speed + (double)w->def.dt;
			const double shooter = far + 2.0 * speed * flight;
			walk = shooter > walk ? (float)shooter : walk;
		}
		if (c->contact.enabled) {
			contacts = true;
			iterations = c->contact.iterations > iterations ? c->contact.iterations : iterations;
		}
	}
	double reach = walk;
	if (contacts) {
		// An agent's final position reads its partners' iterates, each of
		// which read theirs: iterations + 1 hops of a listed pair (within
		// THR_CONTACT_REACH x the radii's sum at the integrated positions),
		// each end of which moved up to max_speed x dt from where the
		// ghosts are chosen, and the farthest agents' own walks.
		// The largest radius the world may reach: its sources' agents count.
		const double radius = fmax((double)w->max_radius, (double)thr_sources_max_radius(w));
		const double hop = THR_CONTACT_REACH * 2.0 * radius + 2.0 * speed * (double)w->def.dt;
		reach += (double)(iterations + 1u) * hop;
	}
	const throng_part_rows r = throng_part_rows_of(w);
	return (int32_t)ceil(reach * (double)r.inv_cell) + 1;
}
