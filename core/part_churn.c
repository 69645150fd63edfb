// SPDX-License-Identifier: MIT
// Part worlds whose agents come and go (part.h; docs/DISTRIBUTED.md,
// "Agents that come and go"): the whole world's churn a part takes on at
// its making, an id space that grows, and the whole world's figures the
// driver tells it (its id end, its live count, its largest radius), and
// what a driver that checkpoints the whole world it gathers needs.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "combat.h"
#include "error.h"
#include "events.h"
#include "part.h"
#include "sources.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

throng_status thr_part_adopt(throng_world* w, const throng_world* whole)
{
	throng_status st = THRONG_OK;
	for (uint32_t z = 0; st == THRONG_OK && z < whole->zone_count; ++z) {
		throng_vec2 points[THRONG_MAX_WAYPOINTS]; // read at once by throng_world_add_zone
		const throng_zone_def d = thr_zone_get(whole, z, points);
		st = throng_world_add_zone(w, &d, NULL);
	}
	if (st == THRONG_OK && whole->arrival_radius > 0.0f) {
		st = throng_world_set_arrival_radius(w, whole->arrival_radius);
	}
	if (st == THRONG_OK) {
		st = thr_sources_copy(w, whole);
	}
	if (st == THRONG_OK) {
		st = thr_combat_copy_missiles(w, whole); // every part keeps every missile (combat.h)
	}
	if (st == THRONG_OK && w->unit_count == whole->unit_count) {
		thr_units_copy(w, whole); // and every unit's state (units.h), a resumed battle's too
	}
	// The sources' agents count in the largest max_speed (the halo, the
	// records' check); their radius counts in the halo
	// (throng_part_halo_rows), and in w->max_radius once one is added, as
	// in the whole world.
	const float fastest = thr_sources_max_speed(whole);
	w->whole.max_speed = fastest > w->whole.max_speed ? fastest : w->whole.max_speed;
	return st;
}

throng_status thr_part_grow_ids(throng_world* w, uint64_t id_end)
{
	thr_part* p = w->part;
	if (id_end > THR_MAX_IDS) {
		return thr_fail(THRONG_ERR_CAPACITY, "throng_part: ids up to %llu: more than %u", (unsigned long long)id_end,
		                (unsigned)THR_MAX_IDS);
	}
	if (id_end > p->ids_cap) {
		uint64_t cap = 2u * (uint64_t)p->ids_cap;
		cap = cap < id_end ? id_end : cap;
		cap = cap > THR_MAX_IDS ? THR_MAX_IDS : cap;
		const size_t bytes = (size_t)cap / 8u + 1u, had = (size_t)p->ids_cap / 8u + 1u;
		uint32_t* slot_of = realloc(p->slot_of, (size_t)cap * sizeof *slot_of);
		if (slot_of != NULL) {
			p->slot_of = slot_of;
			w->slot_of = slot_of;
		}
		uint8_t* ghost = slot_of != NULL ? realloc(p->ghost, bytes) : NULL;
		if (ghost != NULL) {
			p->ghost = ghost;
		}
		uint8_t* seen = ghost != NULL ? realloc(p->seen, bytes) : NULL;
		if (seen == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part: out of memory for %llu ids", (unsigned long long)cap);
		}
		p->seen = seen;
		memset(slot_of + p->ids_cap, 0xff, (size_t)(cap - p->ids_cap) * sizeof *slot_of); // THR_NO_SLOT
		memset(ghost + had, 0, bytes - had);
		memset(seen + had, 0, bytes - had);
		p->ids_cap = (uint32_t)cap;
	}
	return thr_events_reserve(w, 0, id_end, "throng_part"); // the zone bits by id, when tracked
}

bool thr_part_holds_whole(const throng_world* w)
{
	if (w->part == NULL || w->count != w->whole.count || w->def.record_forces) {
		return false;
	}
	for (uint32_t i = 0; i < w->count; ++i) {
		if (thr_part_ghost(w->part, w->id[i])) {
			return false;
		}
	}
	return true;
}

throng_status throng_part_copy_sources(throng_world* to, const throng_world* from)
{
	if (to == NULL || from == NULL || to->part == NULL || from->part == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_copy_sources: needs two part worlds");
	}
	return thr_sources_copy(to, from);
}

void thr_part_set_ghost(throng_world* w, uint32_t id)
{
	w->part->ghost[id >> 3] |= (uint8_t)(1u << (id & 7u));
}

void throng_part_get_world(const throng_world* w, uint32_t* id_end, uint32_t* count, float* max_radius)
{
	if (id_end != NULL) {
		*id_end = thr_id_end(w);
	}
	if (count != NULL) {
		*count = thr_whole_count(w);
	}
	if (max_radius != NULL) {
		*max_radius = w->max_radius;
	}
}

throng_status throng_part_set_world(throng_world* w, uint32_t id_end, uint32_t count, float max_radius)
{
	if (w == NULL || w->part == NULL || count > id_end || !(max_radius >= 0.0f) || !isfinite(max_radius)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_set_world: %s",
		                w == NULL || w->part == NULL ? "not a part world"
		                : count > id_end         ? "count above id_end"
		                                         : "max_radius must be finite and at least 0");
	}
	if (max_radius > w->max_radius) { // as a spawn raises it
		w->max_radius = max_radius;
		w->shapes_dirty = 1;
	}
	if (id_end > w->whole.id_space) {
		throng_status st = thr_part_grow_ids(w, id_end);
		if (st != THRONG_OK) {
			return st;
		}
		w->whole.id_space = id_end;
		w->id_end = id_end;
	}
	w->whole.count = count;
	return THRONG_OK;
}
