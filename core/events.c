// SPDX-License-Identifier: MIT
// Events and zones (include/throng/events.h): the list, the zones, and
// what a step adds to the list.
//
// Design. The list is one array: the events of the last step's window
// (the calls before it, then the step's own), then the calls since
// (from `events_calls`). A call that adds or removes agents reserves its
// room before it changes anything and then appends without failing. A
// step finds its events on the new state before the state becomes
// current (thr_events_step, from core/step.c), so a step that fails,
// here or before, leaves the list as it was; it then drops the previous
// window by moving the calls since to the front, and gives back the room
// of a list far larger than it still needs (trim).
//
// Which zones an agent is in, and whether it is at its goal, is kept by
// id (w->inside: bits by id, not by slot, so that no reorder or removal
// moves them), and compared after each step with where the agent is now:
// O(agents x zones) a step, serial, only while the world has a zone or an
// arrival radius. The step's events are then sorted by agent, kind and
// zone, so neither the engine nor the storage order shows in them.
#include "events.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "measure_geom.h"
#include "part.h"
#include "validate.h"
#include "world_internal.h"

/// One zone: its shape and bounding box, the polygon's points in double.
typedef struct thr_zone {
	throng_zone_shape shape;
	float cx, cy, r, r2;          ///< circle
	float x0, y0, x1, y1;         ///< bounding box (the box itself for a box)
	thr_dvec* points;             ///< polygon
	uint32_t point_count;
	bool sink;                    ///< throng_zone_def.sink
	char name[THRONG_ZONE_NAME_CAP];
} thr_zone;

void thr_events_free(throng_world* w)
{
	for (uint32_t z = 0; z < w->zone_count; ++z) {
		free(w->zones[z].points);
	}
	free(w->zones);
	free(w->events);
	free(w->inside);
	free(w->sink_ids);
	free(w->strikes);
	free(w->missiles);
	free(w->bodies);
	free(w->units);
	free(w->sink_zones);
	free(w->sink_dead);
	free(w->sink_scratch);
	w->zones = NULL;
	w->events = NULL;
	w->inside = NULL;
}

/// Whether the world keeps w->inside (a zone or an arrival radius).
static bool tracking(const throng_world* w)
{
	return w->zone_count > 0 || w->arrival_radius > 0.0f;
}

/// Room for `total` events in the list. Returns -1 when out of memory.
static int room(throng_world* w, uint64_t total)
{
	if (total <= w->event_cap) {
		return 0;
	}
	if (total > UINT32_MAX / 2u) {
		return -1;
	}
	uint64_t cap = w->event_cap > 0 ? 2u * (uint64_t)w->event_cap : 64u;
	cap = cap < total ? total : cap;
	throng_event* e = realloc(w->events, (size_t)cap * sizeof *e);
	if (e == NULL) {
		return -1;
	}
	w->events = e;
	w->event_cap = (uint32_t)cap;
	return 0;
}

/// A list this many times larger than a step needs, and at least
/// THR_EVENTS_TRIM_MIN events long, is cut down to twice what it needs.
#define THR_EVENTS_TRIM_RATIO 4u
#define THR_EVENTS_TRIM_MIN ((uint32_t)1 << 16)

/// Gives back the room of a list far larger than the `total` events the
/// step keeps room for (those listed in front and the room made for what
/// follows): the room a call of many agents made (a spawn of 10^6 lists
/// 10^6 events, 32 MB) is not kept after its window has gone. Cannot
/// fail: when the smaller block cannot be had, the list stays.
static void trim(throng_world* w, uint64_t total)
{
	if (w->event_cap < THR_EVENTS_TRIM_MIN || (uint64_t)w->event_cap / THR_EVENTS_TRIM_RATIO < total) {
		return;
	}
	const uint64_t cap = 2u * total > 64u ? 2u * total : 64u;
	throng_event* e = realloc(w->events, (size_t)cap * sizeof *e);
	if (e != NULL) {
		w->events = e;
		w->event_cap = (uint32_t)cap;
	}
}

/// Room in w->inside for ids below id_end, new entries 0, once the world
/// tracks. Returns -1 when out of memory.
static int inside_room(throng_world* w, uint64_t id_end)
{
	if (!tracking(w) || id_end <= w->inside_cap) {
		return 0;
	}
	uint64_t cap = w->inside_cap > 0 ? 2u * (uint64_t)w->inside_cap : 1024u;
	cap = cap < id_end ? id_end : cap;
	cap = cap > UINT32_MAX ? UINT32_MAX : cap;
	uint64_t* p = realloc(w->inside, (size_t)cap * sizeof *p);
	if (p == NULL) {
		return -1;
	}
	memset(p + w->inside_cap, 0, (size_t)(cap - w->inside_cap) * sizeof *p);
	w->inside = p;
	w->inside_cap = (uint32_t)cap;
	return 0;
}

throng_status thr_events_reserve(throng_world* w, uint32_t events, uint64_t id_end, const char* fn)
{
	if (room(w, (uint64_t)w->event_count + events) != 0 || inside_room(w, id_end) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for %u events", fn, events);
	}
	return THRONG_OK;
}

void thr_events_push(throng_world* w, throng_event_kind kind, uint32_t agent, uint32_t zone, uint32_t source)
{
	w->events[w->event_count++] = (throng_event){w->step, kind, agent, zone, source, THRONG_NO_AGENT};
}

/// The zones that are sinks, a bit each.
static uint64_t sink_mask(const throng_world* w)
{
	uint64_t m = 0;
	for (uint32_t z = 0; z < w->zone_count; ++z) {
		m |= (uint64_t)w->zones[z].sink << z;
	}
	return m;
}

bool thr_events_sinks_any(const throng_world* w)
{
	return sink_mask(w) != 0;
}

/// Room to remove up to `sinks` agents of w->count once the step shows.
/// Returns -1 when out of memory (what was grown stays, unused).
static int sink_room(throng_world* w, uint64_t sinks)
{
	const uint64_t need = (uint64_t)w->count + 1u;
	if (sinks == 0 || need <= w->sink_cap) {
		return 0;
	}
	const uint64_t cap = need > 2u * (uint64_t)w->sink_cap ? need : 2u * (uint64_t)w->sink_cap;
	uint32_t* ids = realloc(w->sink_ids, (size_t)cap * sizeof *ids);
	if (ids != NULL) {
		w->sink_ids = ids;
	}
	uint32_t* zones = realloc(w->sink_zones, (size_t)cap * sizeof *zones);
	if (zones != NULL) {
		w->sink_zones = zones;
	}
	uint8_t* dead = realloc(w->sink_dead, (size_t)cap);
	if (dead != NULL) {
		w->sink_dead = dead;
	}
	uint32_t* scratch = realloc(w->sink_scratch, 2u * (size_t)cap * sizeof *scratch);
	if (scratch != NULL) {
		w->sink_scratch = scratch;
	}
	if (ids == NULL || zones == NULL || dead == NULL || scratch == NULL) {
		return -1;
	}
	w->sink_cap = (uint32_t)cap;
	return 0;
}

/// Whether (x, y) lies in zone z.
static bool in_zone(const thr_zone* z, float x, float y)
{
	if (x < z->x0 || x > z->x1 || y < z->y0 || y > z->y1) {
		return false;
	}
	switch (z->shape) {
	case THRONG_ZONE_CIRCLE: {
		const float dx = x - z->cx, dy = y - z->cy;
		return dx * dx + dy * dy <= z->r2;
	}
	case THRONG_ZONE_POLYGON:
		return thr_poly_contains(z->points, z->point_count, (thr_dvec){x, y});
	case THRONG_ZONE_BOX:
	default:
		return true;
	}
}

/// Orders a step's events by agent, kind, zone.
static int by_agent(const void* a, const void* b)
{
	const throng_event* p = a;
	const throng_event* q = b;
	if (p->agent != q->agent) {
		return p->agent < q->agent ? -1 : 1;
	}
	if (p->kind != q->kind) {
		return p->kind < q->kind ? -1 : 1;
	}
	return (p->zone > q->zone) - (p->zone < q->zone);
}

/// The bits of where the agent at slot i of st is: zone z's bit, and
/// THR_AT_GOAL_BIT within the arrival radius of its target point.
static uint64_t where(const throng_world* w, const thr_state* st, uint32_t i)
{
	const float x = st->px[i], y = st->py[i];
	uint64_t bits = 0;
	for (uint32_t z = 0; z < w->zone_count; ++z) {
		bits |= (uint64_t)in_zone(&w->zones[z], x, y) << z;
	}
	if (w->arrival_radius > 0.0f) {
		const float dx = x - w->tx[i], dy = y - w->ty[i];
		bits |= (uint64_t)(dx * dx + dy * dy <= w->arrival_radius * w->arrival_radius) << THR_AT_GOAL_BIT;
	}
	return bits;
}

throng_status thr_events_step(throng_world* w, const thr_state* ns)
{
	w->sink_n = 0;
	const uint32_t calls = w->event_count - w->events_calls;
	if (!tracking(w)) {
		// No step events: the previous window goes, the calls since stay
		// (and room for what the sources list after the step).
		if (room(w, (uint64_t)calls + w->source_room + w->combat_room) != 0 || sink_room(w, w->combat_room) != 0) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %u events",
			                w->source_room);
		}
		if (calls > 0) { // (events may be NULL: nothing listed yet)
			memmove(w->events, w->events + w->events_calls, (size_t)calls * sizeof *w->events);
		}
		w->event_count = calls;
		w->events_calls = calls;
		trim(w, (uint64_t)calls + w->source_room + w->combat_room);
		return THRONG_OK;
	}
	// Where each agent is now, by slot, and the events that makes; the
	// room is made before anything changes.
	const uint32_t mark = thr_arena_mark(&w->arena);
	uint64_t* now = thr_arena_alloc(&w->arena, ((size_t)w->count + 1u) * sizeof *now, "zones and goals now");
	if (now == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the zones of %u agents",
		                w->count);
	}
	const uint64_t goal = (uint64_t)1 << THR_AT_GOAL_BIT, sinks = sink_mask(w);
	uint64_t changed = 0, into_sinks = 0;
	// A part world lists its own agents' events only: its ghosts' are
	// their owners' (their bits stay as they came, unread).
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint64_t was = w->inside[w->id[i]];
		now[i] = thr_part_ghost(w->part, w->id[i]) ? was : where(w, ns, i);
		changed += (uint64_t)__builtin_popcountll((now[i] ^ was) & ~goal) + ((now[i] & ~was & goal) != 0);
		into_sinks += (now[i] & ~was & sinks) != 0;
	}
	if (room(w, (uint64_t)calls + changed + into_sinks + w->source_room + w->combat_room) != 0 ||
	    sink_room(w, into_sinks + w->combat_room) != 0) {
		thr_arena_unwind(&w->arena, mark);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %llu events",
		                (unsigned long long)changed);
	}
	if (calls > 0) {
		memmove(w->events, w->events + w->events_calls, (size_t)calls * sizeof *w->events);
	}
	trim(w, (uint64_t)calls + changed + into_sinks + w->source_room + w->combat_room);
	throng_event* out = w->events != NULL ? w->events + calls : NULL; // NULL: nothing listed, nothing to list
	uint32_t n = 0;
	const uint64_t after = w->step + 1u;
	for (uint32_t i = 0; i < w->count; ++i) {
		const uint32_t id = w->id[i];
		const uint64_t was = w->inside[id];
		if (now[i] == was) {
			continue;
		}
		if ((now[i] & ~was & goal) != 0) {
			out[n++] = (throng_event){after, THRONG_EVENT_ARRIVED, id, THRONG_NO_ZONE, THRONG_NO_SOURCE, THRONG_NO_AGENT};
		}
		for (uint64_t diff = (now[i] ^ was) & ~goal; diff != 0; diff &= diff - 1u) {
			const uint32_t z = (uint32_t)__builtin_ctzll(diff);
			const throng_event_kind k = (now[i] >> z & 1u) != 0 ? THRONG_EVENT_ENTERED : THRONG_EVENT_LEFT;
			out[n++] = (throng_event){after, k, id, z, THRONG_NO_SOURCE, THRONG_NO_AGENT};
		}
		w->inside[id] = now[i];
	}
	thr_arena_unwind(&w->arena, mark);
	if (n > 1) {
		qsort(out, n, sizeof *out, by_agent);
	}
	// Who leaves by a sink once the step shows: an agent's first sink
	// entered, by agent (the events are in that order already).
	w->sink_n = 0;
	for (uint32_t k = 0; k < n && into_sinks > 0; ++k) {
		const throng_event* e = &out[k];
		if (e->kind == THRONG_EVENT_ENTERED && (sinks >> e->zone & 1u) != 0 &&
		    (w->sink_n == 0 || w->sink_ids[w->sink_n - 1u] != e->agent)) {
			w->sink_ids[w->sink_n] = e->agent;
			w->sink_zones[w->sink_n++] = e->zone;
		}
	}
	w->event_count = calls + n;
	w->events_calls = w->event_count;
	return THRONG_OK;
}

void thr_events_sinks(throng_world* w)
{
	if (w->sink_n == 0) {
		return;
	}
	memset(w->sink_dead, 0, (size_t)w->count + 1u);
	uint32_t first = w->count;
	for (uint32_t k = 0; k < w->sink_n; ++k) {
		const uint32_t slot = w->slot_of[w->sink_ids[k]];
		w->sink_dead[slot] = 1;
		first = slot < first ? slot : first;
	}
	thr_remove_marked(w, w->sink_dead, first, w->sink_scratch, w->sink_ids, w->sink_zones, NULL, w->sink_n);
	w->events_calls = w->event_count; // listed with the step's own events
	w->sink_n = 0;
}

throng_status throng_world_events(const throng_world* w, const throng_event** events, uint32_t* count)
{
	throng_status st = thr_check_world(w, "throng_world_events");
	if (st == THRONG_OK && (events == NULL || count == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_events: %s is NULL", events == NULL ? "events" : "count");
	}
	if (st == THRONG_OK) {
		*events = w->events;
		*count = w->event_count;
	}
	return st;
}

throng_status throng_part_set_events(throng_world* w, const throng_event* events, uint32_t n)
{
	if (w == NULL || w->part == NULL || (n > 0 && events == NULL)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_set_events: needs a part world and its events");
	}
	if (room(w, n) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part_set_events: out of memory for %u events", n);
	}
	if (n > 0) {
		memcpy(w->events, events, (size_t)n * sizeof *events);
	}
	w->event_count = n;
	w->events_calls = n;
	return THRONG_OK;
}

/// Orders a step's events as thr_events_step and thr_remove_marked list
/// them: the step's own by agent, kind and zone, then the removals by agent.
static int step_order(const void* a, const void* b)
{
	const bool x = ((const throng_event*)a)->kind == THRONG_EVENT_REMOVED;
	const bool y = ((const throng_event*)b)->kind == THRONG_EVENT_REMOVED;
	return x != y ? (x ? 1 : -1) : by_agent(a, b);
}

void throng_part_sort_events(throng_event* events, uint32_t n)
{
	// Each agent has one owner: the keys are distinct, so the parts'
	// lists, put together in any order, sort into the whole world's.
	if (events != NULL && n > 1) {
		qsort(events, n, sizeof *events, step_order);
	}
}

throng_status throng_world_set_arrival_radius(throng_world* w, float radius)
{
	throng_status st = thr_check_world(w, "throng_world_set_arrival_radius");
	if (st == THRONG_OK && radius != 0.0f) {
		st = thr_validate_magnitude("throng_world_set_arrival_radius: ", "radius", radius);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const float was = w->arrival_radius;
	w->arrival_radius = radius;
	if (inside_room(w, thr_id_end(w)) != 0) {
		w->arrival_radius = was;
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_set_arrival_radius: out of memory for %u ids",
		                thr_id_end(w));
	}
	return THRONG_OK;
}

throng_zone_def throng_zone_default_def(void)
{
	throng_zone_def d;
	memset(&d, 0, sizeof d);
	d.shape = THRONG_ZONE_CIRCLE;
	d.radius = 1.0f;
	return d;
}

/// Checks a zone def; fills *z (its points still the caller's).
static throng_status zone_of(const throng_world* w, const throng_zone_def* d, thr_zone* z)
{
	static const char fn[] = "throng_world_add_zone: ";
	memset(z, 0, sizeof *z);
	if (memchr(d->name, '\0', sizeof d->name) == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sname: longer than %d characters", fn, THRONG_ZONE_NAME_CAP - 1);
	}
	uint32_t other = 0;
	if (d->name[0] != '\0' && throng_world_find_zone(w, d->name, &other) == THRONG_OK) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sname: zone %u is already called \"%s\"", fn, other, d->name);
	}
	throng_status st = THRONG_OK;
	switch (d->shape) {
	case THRONG_ZONE_CIRCLE:
		st = thr_validate_point("throng_world_add_zone: center", d->center);
		if (st == THRONG_OK) {
			st = thr_validate_magnitude(fn, "radius", d->radius);
		}
		z->cx = d->center.x;
		z->cy = d->center.y;
		z->r = d->radius;
		z->r2 = d->radius * d->radius;
		z->x0 = d->center.x - d->radius;
		z->x1 = d->center.x + d->radius;
		z->y0 = d->center.y - d->radius;
		z->y1 = d->center.y + d->radius;
		break;
	case THRONG_ZONE_BOX:
		st = thr_validate_point("throng_world_add_zone: min", d->min);
		if (st == THRONG_OK) {
			st = thr_validate_point("throng_world_add_zone: max", d->max);
		}
		if (st == THRONG_OK && !(d->min.x <= d->max.x && d->min.y <= d->max.y)) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%smax: must be at least min along both axes", fn);
		}
		z->x0 = d->min.x;
		z->y0 = d->min.y;
		z->x1 = d->max.x;
		z->y1 = d->max.y;
		break;
	case THRONG_ZONE_POLYGON:
		if (d->points == NULL || d->point_count < 3 || d->point_count > THRONG_MAX_WAYPOINTS) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%spoints: a polygon needs 3 to %u points (got %u%s)", fn,
			                THRONG_MAX_WAYPOINTS, d->point_count, d->points == NULL ? ", points NULL" : "");
		}
		z->x0 = z->y0 = INFINITY;
		z->x1 = z->y1 = -INFINITY;
		for (uint32_t k = 0; k < d->point_count && st == THRONG_OK; ++k) {
			char ctx[64];
			snprintf(ctx, sizeof ctx, "throng_world_add_zone: points[%u]", k);
			st = thr_validate_point(ctx, d->points[k]);
			z->x0 = fminf(z->x0, d->points[k].x);
			z->y0 = fminf(z->y0, d->points[k].y);
			z->x1 = fmaxf(z->x1, d->points[k].x);
			z->y1 = fmaxf(z->y1, d->points[k].y);
		}
		break;
	default:
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sshape: no zone shape %d", fn, (int)d->shape);
	}
	z->shape = d->shape;
	z->sink = d->sink;
	memcpy(z->name, d->name, sizeof z->name);
	return st;
}

throng_status throng_world_add_zone(throng_world* w, const throng_zone_def* d, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_zone");
	if (st == THRONG_OK && d == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_add_zone: def is NULL");
	}
	if (st == THRONG_OK && w->zone_count == THRONG_MAX_ZONES) {
		st = thr_fail(THRONG_ERR_CAPACITY, "throng_world_add_zone: the world has its %d zones", THRONG_MAX_ZONES);
	}
	thr_zone z;
	if (st == THRONG_OK) {
		st = zone_of(w, d, &z);
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (d->shape == THRONG_ZONE_POLYGON) {
		z.points = malloc((size_t)d->point_count * sizeof *z.points);
		if (z.points == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_zone: out of memory");
		}
		for (uint32_t k = 0; k < d->point_count; ++k) {
			z.points[k] = (thr_dvec){d->points[k].x, d->points[k].y};
		}
		z.point_count = d->point_count;
	}
	if (w->zone_count == w->zone_cap) {
		const uint32_t cap = w->zone_cap > 0 ? 2u * w->zone_cap : 4u;
		thr_zone* p = realloc(w->zones, cap * sizeof *p);
		if (p == NULL) {
			free(z.points);
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_zone: out of memory");
		}
		w->zones = p;
		w->zone_cap = cap;
	}
	w->zones[w->zone_count++] = z;
	if (inside_room(w, thr_id_end(w)) != 0) {
		free(w->zones[--w->zone_count].points);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_zone: out of memory for %u ids", thr_id_end(w));
	}
	if (id_out != NULL) {
		*id_out = w->zone_count - 1u;
	}
	return THRONG_OK;
}

uint32_t throng_world_zone_count(const throng_world* w)
{
	return w != NULL ? w->zone_count : 0;
}

throng_status throng_world_find_zone(const throng_world* w, const char* name, uint32_t* id)
{
	throng_status st = thr_check_world(w, "throng_world_find_zone");
	if (st == THRONG_OK && (name == NULL || id == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_find_zone: %s is NULL", name == NULL ? "name" : "id");
	}
	for (uint32_t z = 0; st == THRONG_OK && z < w->zone_count; ++z) {
		if (name[0] != '\0' && strcmp(w->zones[z].name, name) == 0) {
			*id = z;
			return THRONG_OK;
		}
	}
	return st == THRONG_OK ? thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_find_zone: no zone called \"%s\"", name)
	                       : st;
}

throng_status throng_world_get_zone(const throng_world* w, uint32_t id, throng_zone_def* def, throng_vec2* points,
                                    uint32_t points_cap)
{
	throng_status st = thr_check_world(w, "throng_world_get_zone");
	if (st == THRONG_OK && (def == NULL || (points == NULL && points_cap > 0))) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_get_zone: %s is NULL", def == NULL ? "def" : "points");
	}
	if (st == THRONG_OK && id >= w->zone_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_get_zone: id: no zone %u (the world has %u)", id,
		              w->zone_count);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_zone* q = &w->zones[id];
	const uint32_t n = q->shape == THRONG_ZONE_POLYGON ? q->point_count : 0u;
	for (uint32_t k = 0; k < n && k < points_cap; ++k) {
		points[k] = (throng_vec2){(float)q->points[k].x, (float)q->points[k].y}; // floats to begin with
	}
	throng_zone_def d = throng_zone_default_def();
	d.shape = q->shape;
	d.sink = q->sink;
	memcpy(d.name, q->name, sizeof d.name);
	d.center = (throng_vec2){q->cx, q->cy};
	d.radius = q->r;
	d.min = (throng_vec2){q->x0, q->y0};
	d.max = (throng_vec2){q->x1, q->y1};
	d.points = n > 0 && points_cap > 0 ? points : NULL;
	d.point_count = n;
	*def = d;
	return THRONG_OK;
}

throng_zone_def thr_zone_get(const throng_world* w, uint32_t z, throng_vec2* points)
{
	throng_zone_def d = throng_zone_default_def();
	throng_world_get_zone(w, z, &d, points, THRONG_MAX_WAYPOINTS); // z < zone_count: cannot fail
	return d;
}

throng_status thr_events_restore_inside(throng_world* w, const uint64_t* bits, uint32_t n)
{
	if (n == 0) {
		return THRONG_OK;
	}
	if (!tracking(w) || inside_room(w, n) != 0) {
		return thr_fail(tracking(w) ? THRONG_ERR_OUT_OF_MEMORY : THRONG_ERR_INVALID_ARGUMENT,
		                "zone membership of %u ids %s", n, tracking(w) ? "out of memory" : "in a world without zones");
	}
	memcpy(w->inside, bits, (size_t)n * sizeof *bits);
	return THRONG_OK;
}
