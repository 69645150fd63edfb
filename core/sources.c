// SPDX-License-Identifier: MIT
// Sources (include/throng/sources.h): regions that add agents while the
// world runs.
//
// Design. A source's schedule is a pure function of its def and the step:
// its k-th agent is due at start + k / rate, so the agents due by the end
// of step s number ceil((min(t, stop) - start) * rate), t = (s + 1) * dt,
// computed in double from the step count (no running sum to drift), at
// most `count`. Before a step (thr_sources_reserve) each source takes its
// quota, what is due and not yet added, at most its rate's share of a
// step plus THRONG_SOURCE_CATCH_UP, and the room for all of them is made
// then, while the step can still fail with nothing changed. After the
// step (thr_sources_run, which cannot fail) each source in turn gathers
// the agents that could touch its region (one pass over the store: the
// agents present, those added by the sources before it included) and
// draws points for its quota in order; the first free point of a spawn's
// THRONG_SOURCE_TRIES draws takes the agent, and a spawn with none stops
// the source for this step (it lists WAITED). Neither the engine nor the
// storage order shows: a point is free or not whatever order the agents
// are gathered in, and the draws are keyed by (seed, source, k, step, try).
#include "sources.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "events.h"
#include "fmath.h"
#include "part.h"
#include "rng.h"
#include "validate.h"
#include "world_internal.h"

/// The draws of a source's points: x (and a circle's radius), y (its angle).
enum { THR_STREAM_SOURCE_U = 7, THR_STREAM_SOURCE_V = 8 };

/// One source: its def and what it has done.
typedef struct thr_source {
	throng_source_def def;
	uint64_t added;        ///< agents added so far
	uint64_t waited_steps; ///< steps on which a spawn found no room
	uint32_t quota;        ///< agents to try after the step being taken (thr_sources_reserve)
} thr_source;

throng_source_def throng_source_default_def(void)
{
	throng_source_def d;
	memset(&d, 0, sizeof d);
	d.shape = THRONG_SOURCE_BOX;
	d.max = (throng_vec2){1.0f, 1.0f};
	d.radius = 1.0f;
	d.to = (throng_vec2){1.0f, 0.0f};
	d.rate = 1.0f;
	d.stop = INFINITY;
	d.agent = throng_agent_default_def();
	return d;
}

/// Agents of source s due by simulated time t (s).
static uint64_t due_by(const throng_source_def* d, double t)
{
	const double end = t < (double)d->stop ? t : (double)d->stop;
	if (!(end > (double)d->start)) {
		return 0;
	}
	double n = ceil((end - (double)d->start) * (double)d->rate);
	if (d->count > 0 && n > (double)d->count) {
		n = (double)d->count;
	}
	return n < 9.0e15 ? (uint64_t)n : (uint64_t)9.0e15;
}

/// Whether source s will add no more agents.
static bool source_done(const thr_source* s)
{
	if (s->def.count > 0 && s->added >= s->def.count) {
		return true;
	}
	return isfinite(s->def.stop) && s->added >= due_by(&s->def, (double)s->def.stop);
}

/// The corners or ends of a source's region that must lie in the world.
static uint32_t region_points(const throng_source_def* d, throng_vec2 p[2])
{
	switch (d->shape) {
	case THRONG_SOURCE_CIRCLE:
		p[0] = (throng_vec2){d->center.x - d->radius, d->center.y - d->radius};
		p[1] = (throng_vec2){d->center.x + d->radius, d->center.y + d->radius};
		return 2;
	case THRONG_SOURCE_SEGMENT:
		p[0] = d->from;
		p[1] = d->to;
		return 2;
	case THRONG_SOURCE_BOX:
	default:
		p[0] = d->min;
		p[1] = d->max;
		return 2;
	}
}

/// Checks a source def for world w.
static throng_status check_source(const throng_world* w, const throng_source_def* d)
{
	static const char fn[] = "throng_world_add_source: ";
	if (memchr(d->name, '\0', sizeof d->name) == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sname: longer than %d characters", fn,
		                THRONG_SOURCE_NAME_CAP - 1);
	}
	uint32_t other = 0;
	if (d->name[0] != '\0' && throng_world_find_source(w, d->name, &other) == THRONG_OK) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sname: source %u is already called \"%s\"", fn, other, d->name);
	}
	throng_status st = THRONG_OK;
	switch (d->shape) {
	case THRONG_SOURCE_BOX:
		st = thr_validate_point("throng_world_add_source: min", d->min);
		if (st == THRONG_OK) {
			st = thr_validate_point("throng_world_add_source: max", d->max);
		}
		if (st == THRONG_OK && !(d->min.x <= d->max.x && d->min.y <= d->max.y)) {
			st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%smax: must be at least min along both axes", fn);
		}
		break;
	case THRONG_SOURCE_CIRCLE:
		st = thr_validate_point("throng_world_add_source: center", d->center);
		if (st == THRONG_OK) {
			st = thr_validate_magnitude(fn, "radius", d->radius);
		}
		break;
	case THRONG_SOURCE_SEGMENT:
		st = thr_validate_point("throng_world_add_source: from", d->from);
		if (st == THRONG_OK) {
			st = thr_validate_point("throng_world_add_source: to", d->to);
		}
		break;
	default:
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sshape: no source shape %d", fn, (int)d->shape);
	}
	throng_vec2 corner[2];
	const uint32_t corners = region_points(d, corner);
	for (uint32_t k = 0; k < corners && st == THRONG_OK; ++k) {
		st = thr_validate_position(&w->def, "throng_world_add_source: the region's corner ", corner[k]);
		if (st == THRONG_OK && d->relative_target) { // every target the region can give is a point
			const throng_vec2 t = {corner[k].x + d->agent.target.x, corner[k].y + d->agent.target.y};
			st = thr_validate_point("throng_world_add_source: agent.target (relative_target) from the region's corner",
			                        t);
		}
	}
	if (st == THRONG_OK) {
		st = thr_validate_magnitude(fn, "rate", d->rate);
	}
	if (st == THRONG_OK && !(isfinite(d->start) && d->start >= 0.0f)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sstart: must be finite and >= 0 (got %g s)", fn, (double)d->start);
	}
	if (st == THRONG_OK && !(d->stop > d->start)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sstop: must be after start (%g s) or infinity (got %g s)", fn,
		              (double)d->start, (double)d->stop);
	}
	if (st == THRONG_OK && d->agent.target_agent != THRONG_NO_AGENT) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%sagent.target_agent: must be THRONG_NO_AGENT (got %u)", fn,
		              d->agent.target_agent);
	}
	if (st == THRONG_OK) {
		throng_agent_def a = d->agent;
		a.position = corner[0];
		st = thr_validate_agent(&w->def, w->archetype_count, w->path_count, w->unit_count, &a, 0, 1);
		if (st != THRONG_OK) { // "agents[0].radius: ..." said of the source's template
			static const char batch[] = "agents[0].";
			const char* m = throng_last_error();
			char why[512];
			snprintf(why, sizeof why, "%s", strncmp(m, batch, sizeof batch - 1u) == 0 ? m + sizeof batch - 1u : m);
			st = thr_fail(st, "%sagent.%s", fn, why);
		}
	}
	return st;
}

throng_status throng_world_add_source(throng_world* w, const throng_source_def* d, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_source");
	if (st == THRONG_OK && d == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_add_source: def is NULL");
	}
	if (st == THRONG_OK && w->part != NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		              "throng_world_add_source: the world is a part of a larger one; add sources to the whole");
	}
	if (st == THRONG_OK && w->source_count == THRONG_MAX_SOURCES) {
		st = thr_fail(THRONG_ERR_CAPACITY, "throng_world_add_source: the world has its %d sources",
		              THRONG_MAX_SOURCES);
	}
	if (st == THRONG_OK) {
		st = check_source(w, d);
	}
	if (st != THRONG_OK) {
		return st;
	}
	if (w->source_count == w->source_cap) {
		const uint32_t cap = w->source_cap > 0 ? 2u * w->source_cap : 4u;
		thr_source* p = realloc(w->sources, cap * sizeof *p);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_source: out of memory");
		}
		w->sources = p;
		w->source_cap = cap;
	}
	thr_source* s = &w->sources[w->source_count++];
	memset(s, 0, sizeof *s);
	s->def = *d;
	s->def.agent.position = (throng_vec2){0.0f, 0.0f}; // the source's to draw
	if (id_out != NULL) {
		*id_out = w->source_count - 1u;
	}
	return THRONG_OK;
}

uint32_t throng_world_source_count(const throng_world* w)
{
	return w != NULL ? w->source_count : 0;
}

throng_status throng_world_find_source(const throng_world* w, const char* name, uint32_t* id)
{
	throng_status st = thr_check_world(w, "throng_world_find_source");
	if (st == THRONG_OK && (name == NULL || id == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_find_source: %s is NULL",
		              name == NULL ? "name" : "id");
	}
	for (uint32_t k = 0; st == THRONG_OK && k < w->source_count; ++k) {
		if (name[0] != '\0' && strcmp(w->sources[k].def.name, name) == 0) {
			*id = k;
			return THRONG_OK;
		}
	}
	return st == THRONG_OK ? thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_find_source: no source called \"%s\"", name)
	                       : st;
}

throng_status throng_world_get_source(const throng_world* w, uint32_t id, throng_source_def* def,
                                      throng_source_state* state)
{
	throng_status st = thr_check_world(w, "throng_world_get_source");
	if (st == THRONG_OK && id >= w->source_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_get_source: id: no source %u (the world has %u)", id,
		              w->source_count);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_source* s = &w->sources[id];
	if (def != NULL) {
		*def = s->def;
	}
	if (state != NULL) {
		const uint64_t due = due_by(&s->def, (double)w->step * (double)w->def.dt);
		state->added = s->added;
		state->waiting = due > s->added ? due - s->added : 0u;
		state->waited_steps = s->waited_steps;
		state->done = source_done(s);
	}
	return THRONG_OK;
}

/// Each source's quota for the agents due by simulated time t, and room
/// for them all in w (its agent count `count`; its store, `near` more
/// entries of the sources' scratch), as thr_sources_reserve says.
static throng_status reserve(throng_world* w, double t, uint32_t count, uint32_t near)
{
	w->source_room = 0;
	if (w->source_count == 0) {
		return THRONG_OK;
	}
	uint64_t total = 0;
	for (uint32_t k = 0; k < w->source_count; ++k) {
		thr_source* s = &w->sources[k];
		const uint64_t due = due_by(&s->def, t);
		uint64_t quota = due > s->added ? due - s->added : 0u;
		const double share = ceil((double)s->def.rate * (double)w->def.dt) + THRONG_SOURCE_CATCH_UP;
		quota = (double)quota > share ? (uint64_t)share : quota;
		const uint64_t room = THR_MAX_CAPACITY - (uint64_t)count - total;
		const uint64_t ids = THR_MAX_IDS - (uint64_t)w->id_end - total;
		quota = quota < room ? quota : room;
		quota = quota < ids ? quota : ids;
		s->quota = (uint32_t)quota;
		total += quota;
	}
	if (total == 0) {
		return THRONG_OK;
	}
	static const char fn[] = "throng_world_step";
	const uint64_t need = (uint64_t)w->count + total;
	if (thr_store_grow(w, (uint32_t)need) != 0 || thr_store_reserve_ids(w, (uint64_t)w->id_end + total) != 0 ||
	    (w->part != NULL && thr_part_grow_ids(w, (uint64_t)w->id_end + total) != THRONG_OK)) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the sources' %llu agents", fn,
		                (unsigned long long)total);
	}
	// (A whole world's step makes the events' room in thr_events_step.)
	const uint32_t events = w->part != NULL ? (uint32_t)total + w->source_count : 0u;
	throng_status st = thr_events_reserve(w, events, (uint64_t)w->id_end + total, fn);
	if (st != THRONG_OK) {
		return st;
	}
	const uint64_t near_need = (w->part != NULL ? (uint64_t)near : (uint64_t)w->count) + total;
	if (near_need > w->source_near_cap) {
		float* scratch = realloc(w->source_near, (size_t)near_need * 3u * sizeof *scratch);
		if (scratch == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the sources' %llu agents", fn,
			                (unsigned long long)total);
		}
		w->source_near = scratch;
		w->source_near_cap = (uint32_t)near_need;
	}
	w->source_room = (uint32_t)total + w->source_count; // an ADDED each, a WAITED a source
	return THRONG_OK;
}

throng_status thr_sources_reserve(throng_world* w)
{
	// A part world's sources run after its step, over the agents every
	// part sends (throng_part_sources): its step reserves nothing.
	if (w->part != NULL) {
		w->source_room = 0;
		return THRONG_OK;
	}
	return reserve(w, (double)(w->step + 1u) * (double)w->def.dt, w->count, 0);
}

/// The box of source d's region grown by `reach` on every side.
static void grown_box(const throng_source_def* d, float reach, float* x0, float* y0, float* x1, float* y1)
{
	throng_vec2 c[2];
	region_points(d, c);
	*x0 = fminf(c[0].x, c[1].x) - reach;
	*x1 = fmaxf(c[0].x, c[1].x) + reach;
	*y0 = fminf(c[0].y, c[1].y) - reach;
	*y1 = fmaxf(c[0].y, c[1].y) + reach;
}

/// Agents that could touch a source's region, when they do not come from
/// the store: a part world's (throng_part_sources) are every part's own
/// agents near the sources, `n` of them, plus the store's slots from
/// `first`, the agents its sources added this time.
typedef struct near_list {
	const throng_part_body* body; ///< NULL: every agent of the store (a whole world)
	uint32_t n, first;
} near_list;

/// The agents whose bodies could touch a body of radius r anywhere in
/// source s's region, into w->source_near; returns how many.
static uint32_t gather(throng_world* w, const throng_source_def* d, float r, const near_list* from)
{
	float x0, y0, x1, y1;
	grown_box(d, r + w->max_radius, &x0, &y0, &x1, &y1);
	const thr_state* st = thr_cur_c(w);
	float* near = w->source_near;
	uint32_t n = 0;
	for (uint32_t k = 0; from->body != NULL && k < from->n; ++k) {
		const float x = from->body[k].x, y = from->body[k].y;
		if (x >= x0 && x <= x1 && y >= y0 && y <= y1) {
			near[3u * n] = x;
			near[3u * n + 1u] = y;
			near[3u * n + 2u] = from->body[k].radius;
			n++;
		}
	}
	for (uint32_t i = from->body != NULL ? from->first : 0u; i < w->count; ++i) {
		const float x = st->px[i], y = st->py[i];
		if (x >= x0 && x <= x1 && y >= y0 && y <= y1) {
			near[3u * n] = x;
			near[3u * n + 1u] = y;
			near[3u * n + 2u] = w->radius[i];
			n++;
		}
	}
	return n;
}

/// Draw `t` of the point of source s's spawn k at the world's step.
static throng_vec2 draw_point(const throng_world* w, uint32_t s, uint64_t k, uint32_t t)
{
	const throng_source_def* d = &w->sources[s].def;
	const uint32_t a = (uint32_t)k ^ thr_mix32(s + 1u);
	const uint32_t b = (uint32_t)w->step * THRONG_SOURCE_TRIES + t;
	const float u = thr_bits_to_unit(thr_rng_bits(w->rng_key, a, b, THR_STREAM_SOURCE_U));
	const float v = thr_bits_to_unit(thr_rng_bits(w->rng_key, a, b, THR_STREAM_SOURCE_V));
	throng_vec2 p;
	switch (d->shape) {
	case THRONG_SOURCE_CIRCLE: {
		const float rr = d->radius * sqrtf(u);
		float sn = 0.0f, cs = 1.0f;
		thr_sincosf(6.2831853f * v - 3.14159265f, &sn, &cs);
		p = (throng_vec2){d->center.x + rr * cs, d->center.y + rr * sn};
		break;
	}
	case THRONG_SOURCE_SEGMENT:
		p = (throng_vec2){d->from.x + u * (d->to.x - d->from.x), d->from.y + u * (d->to.y - d->from.y)};
		break;
	case THRONG_SOURCE_BOX:
	default:
		p = (throng_vec2){d->min.x + u * (d->max.x - d->min.x), d->min.y + v * (d->max.y - d->min.y)};
		break;
	}
	const throng_world_def* wd = &w->def;
	if (wd->bounds_mode != THRONG_BOUNDS_OPEN) { // a circle's rounding may cross a bound by an ulp
		p.x = fminf(fmaxf(p.x, wd->bounds_min.x), wd->bounds_max.x);
		p.y = fminf(fmaxf(p.y, wd->bounds_min.y), wd->bounds_max.y);
	}
	return p;
}

/// Whether a body of radius r at p overlaps none of the n gathered.
static bool is_free(const float* near, uint32_t n, throng_vec2 p, float r)
{
	for (uint32_t j = 0; j < n; ++j) {
		const float dx = p.x - near[3u * j], dy = p.y - near[3u * j + 1u], rr = r + near[3u * j + 2u];
		if (dx * dx + dy * dy < rr * rr) {
			return false;
		}
	}
	return true;
}

/// thr_sources_run over the agents `from` lists.
static void run(throng_world* w, const near_list* from)
{
	if (w->source_room == 0) {
		return;
	}
	bool added = false;
	for (uint32_t k = 0; k < w->source_count; ++k) {
		thr_source* s = &w->sources[k];
		if (s->quota == 0) {
			continue;
		}
		throng_agent_def a = s->def.agent;
		uint32_t n = gather(w, &s->def, a.radius, from);
		for (uint32_t q = 0; q < s->quota; ++q) {
			uint32_t t = 0;
			for (; t < THRONG_SOURCE_TRIES; ++t) {
				a.position = draw_point(w, k, s->added, t);
				if (is_free(w->source_near, n, a.position, a.radius)) {
					break;
				}
			}
			if (s->def.relative_target) {
				a.target = (throng_vec2){a.position.x + s->def.agent.target.x, a.position.y + s->def.agent.target.y};
			}
			if (t == THRONG_SOURCE_TRIES) {
				thr_events_push(w, THRONG_EVENT_WAITED, THRONG_NO_AGENT, THRONG_NO_ZONE, k);
				s->waited_steps++;
				break;
			}
			thr_spawn_one(w, &a, k);
			s->added++;
			added = true;
			w->source_near[3u * n] = a.position.x;
			w->source_near[3u * n + 1u] = a.position.y;
			w->source_near[3u * n + 2u] = a.radius;
			n++;
		}
		s->quota = 0;
	}
	w->source_room = 0;
	w->events_calls = w->event_count; // listed with the step's own events
	if (added) {
		thr_agents_changed(w);
	}
}

void thr_sources_run(throng_world* w)
{
	const near_list store = {NULL, 0, 0};
	run(w, &store);
}

float thr_sources_max_radius(const throng_world* w)
{
	float r = 0.0f;
	for (uint32_t k = 0; k < w->source_count; ++k) {
		r = w->sources[k].def.agent.radius > r ? w->sources[k].def.agent.radius : r;
	}
	return r;
}

float thr_sources_max_speed(const throng_world* w)
{
	float v = 0.0f;
	for (uint32_t k = 0; k < w->source_count; ++k) {
		v = w->sources[k].def.agent.max_speed > v ? w->sources[k].def.agent.max_speed : v;
	}
	return v;
}

throng_status thr_sources_copy(throng_world* to, const throng_world* from)
{
	if (from->source_count == 0) {
		return THRONG_OK;
	}
	thr_source* p = malloc((size_t)from->source_count * sizeof *p);
	if (p == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_part_create: out of memory for %u sources", from->source_count);
	}
	memcpy(p, from->sources, (size_t)from->source_count * sizeof *p);
	free(to->sources);
	to->sources = p;
	to->source_count = to->source_cap = from->source_count;
	return THRONG_OK;
}

uint32_t throng_part_near_sources(const throng_world* w, throng_part_body* out, uint32_t cap)
{
	if (w == NULL || w->part == NULL || w->source_count == 0) {
		return 0;
	}
	// Every body a source's gather (above) may read: the box of each
	// source grown by its agents' radius and the largest radius the world
	// may reach before it gathers (the agents its sources add count).
	const float most = fmaxf(w->max_radius, thr_sources_max_radius(w));
	const thr_state* st = thr_cur_c(w);
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->count; ++i) {
		if (thr_part_ghost(w->part, w->id[i])) {
			continue;
		}
		const float x = st->px[i], y = st->py[i];
		for (uint32_t k = 0; k < w->source_count; ++k) {
			float x0, y0, x1, y1;
			grown_box(&w->sources[k].def, w->sources[k].def.agent.radius + most, &x0, &y0, &x1, &y1);
			if (x >= x0 && x <= x1 && y >= y0 && y <= y1) {
				if (n < cap) {
					out[n] = (throng_part_body){x, y, w->radius[i]};
				}
				n++;
				break;
			}
		}
	}
	return n;
}

throng_status throng_part_sources(throng_world* w, const throng_part_body* near, uint32_t n,
                                  bool (*own)(void* user, float x, float y), void* user)
{
	throng_status st = thr_check_world(w, "throng_part_sources");
	if (st == THRONG_OK && (w->part == NULL || (n > 0 && near == NULL) || own == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_part_sources: needs a part world, the bodies and own");
	}
	if (st != THRONG_OK) {
		return st;
	}
	// After the step: its count is the one the agents are due by, as the
	// whole world's step reserves them before it (with its count then).
	w->id_end = w->whole.id_space;
	st = reserve(w, (double)w->step * (double)w->def.dt, thr_whole_count(w), n);
	if (st != THRONG_OK) {
		return st;
	}
	const uint32_t first = w->count;
	const near_list from = {near, n, first};
	run(w, &from);
	w->whole.id_space = w->id_end; // thr_part_grow_ids made room for them
	w->whole.count += w->count - first;
	// Every part added the same agents: each keeps those it owns; the
	// others are ghosts here, dropped at the next load.
	const thr_state* s = thr_cur_c(w);
	for (uint32_t i = first; i < w->count; ++i) {
		if (!own(user, s->px[i], s->py[i])) {
			thr_part_set_ghost(w, w->id[i]);
		}
	}
	return THRONG_OK;
}

void thr_source_progress(const throng_world* w, uint32_t s, uint64_t* added, uint64_t* waited_steps)
{
	*added = w->sources[s].added;
	*waited_steps = w->sources[s].waited_steps;
}

void thr_source_restore(throng_world* w, uint32_t s, uint64_t added, uint64_t waited_steps)
{
	w->sources[s].added = added;
	w->sources[s].waited_steps = waited_steps;
}

void thr_sources_free(throng_world* w)
{
	free(w->sources);
	free(w->source_near);
	w->sources = NULL;
	w->source_near = NULL;
	w->source_count = w->source_cap = w->source_near_cap = 0;
}
