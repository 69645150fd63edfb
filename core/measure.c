// SPDX-License-Identifier: MIT
// Measurement lines and areas (include/throng/measure.h; docs/QUALITY.md,
// "Measurement").
//
// Design: a set knows agents only by id, in the states it is fed, so it
// serves a live world and a saved run alike. Per id it keeps the last
// position, the state it was seen in and, per line, the side of the line
// it was last off it on, in an open-addressing table keyed by id (ids are
// any 32-bit values but THRONG_NO_AGENT). A feed checks everything and
// makes every allocation it can need first (table room, one crossing an
// agent a line, one sample an area, the Voronoi scratch), then commits, so
// a failed feed takes nothing. Each sample's Voronoi cells come from a
// grid of the state's agents with cells at least twice the cut-off radius
// (no neighbour farther than 2R can cut a cell inside the cut-off), built
// by a counting sort that keeps the input order within a cell: the same
// state gives the same cells, the same arithmetic, the same bits. Only
// agents whose cut-off disc reaches an area's bounding box get a cell.
#include "throng/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "measure_internal.h"
#include "memory.h"

throng_measure_def throng_measure_default_def(void)
{
	throng_measure_def d;
	memset(&d, 0, sizeof d);
	return d;
}

static throng_status oom(const char* fn) { return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", fn); }

static bool coord_ok(float v) { return isfinite(v) && fabsf(v) <= THRONG_MAX_COORD; }

throng_status throng_measure_create(const throng_measure_def* def, throng_measure** out)
{
	static const char fn[] = "throng_measure_create";
	if (out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
	}
	*out = NULL;
	throng_measure_def d = def != NULL ? *def : throng_measure_default_def();
	char g[THR_FMT_FLOAT_CAP];
	if (d.cutoff_radius != 0.0f && !(isfinite(d.cutoff_radius) && d.cutoff_radius >= 1e-3f && d.cutoff_radius <= 1e6f)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: cutoff_radius: must be 0 (default %g m) or finite in [0.001, 1e6] (got %s)",
		                fn, (double)THRONG_MEASURE_CUTOFF_RADIUS, thr_fmt_float(g, d.cutoff_radius));
	}
	if (d.cutoff_segments > 64) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: cutoff_segments: must be from 0 (default %u) to 64 (got %u)", fn,
		                THRONG_MEASURE_CUTOFF_SEGMENTS, d.cutoff_segments);
	}
	const float bf[4] = {d.bounds_min.x, d.bounds_min.y, d.bounds_max.x, d.bounds_max.y};
	static const char* const bn[4] = {"bounds_min.x", "bounds_min.y", "bounds_max.x", "bounds_max.y"};
	for (int k = 0; k < 4; ++k) {
		if (!coord_ok(bf[k])) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: must be finite, |v| <= 1e6 (got %s)", fn, bn[k],
			                thr_fmt_float(g, bf[k]));
		}
	}
	bool none = bf[0] == 0.0f && bf[1] == 0.0f && bf[2] == 0.0f && bf[3] == 0.0f;
	if (!none && !(bf[2] > bf[0] && bf[3] > bf[1])) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		                "%s: bounds_max: must be above bounds_min in x and y, or both (0,0) for no bounds", fn);
	}
	if (none && d.wrap) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: wrap: needs bounds (bounds_min, bounds_max)", fn);
	}
	throng_measure* m = calloc(1, sizeof *m);
	if (m == NULL) {
		return oom(fn);
	}
	m->radius = d.cutoff_radius != 0.0f ? d.cutoff_radius : THRONG_MEASURE_CUTOFF_RADIUS;
	m->segs = d.cutoff_segments != 0 ? d.cutoff_segments : THRONG_MEASURE_CUTOFF_SEGMENTS;
	m->bounded = !none;
	m->wrap = d.wrap;
	m->bmin = (thr_dvec){bf[0], bf[1]};
	m->bmax = (thr_dvec){bf[2], bf[3]};
	uint32_t nv = 4 * m->segs;
	m->ring = malloc(nv * sizeof *m->ring);
	if (m->ring == NULL) {
		free(m);
		return oom(fn);
	}
	// Vertices on the circle, the first at angle 0, counter-clockwise (as
	// shapely's buffer of a point, which PedPy's Cutoff uses).
	const double pi = 3.14159265358979323846;
	for (uint32_t k = 0; k < nv; ++k) {
		double a = 2.0 * pi * (double)k / (double)nv;
		m->ring[k] = (thr_dvec){m->radius * cos(a), m->radius * sin(a)};
	}
	*out = m;
	return THRONG_OK;
}

void throng_measure_destroy(throng_measure* m)
{
	if (m == NULL) {
		return;
	}
	for (uint32_t k = 0; k < m->nlines; ++k) {
		free(m->lines[k].cr);
		free(m->lines[k].first);
	}
	for (uint32_t k = 0; k < m->nareas; ++k) {
		free(m->areas[k].poly.pts);
		free(m->areas[k].s);
	}
	free(m->map);
	free(m->sides);
	free(m->slot);
	free(m->speed);
	free(m->cell_start);
	free(m->items);
	free(m->cell.pts);
	free(m->tmp.pts);
	free(m->sa.pts);
	free(m->sb.pts);
	free(m->ring);
	free(m);
}

static throng_status check_open(const throng_measure* m, const char* fn)
{
	if (m == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: m is NULL", fn);
	}
	if (m->states > 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: lines and areas are added before the first feed", fn);
	}
	return THRONG_OK;
}

throng_status throng_measure_add_line(throng_measure* m, throng_vec2 a, throng_vec2 b, uint32_t* id_out)
{
	static const char fn[] = "throng_measure_add_line";
	throng_status st = check_open(m, fn);
	if (st != THRONG_OK) {
		return st;
	}
	const float v[4] = {a.x, a.y, b.x, b.y};
	static const char* const names[4] = {"a.x", "a.y", "b.x", "b.y"};
	char g[THR_FMT_FLOAT_CAP];
	for (int k = 0; k < 4; ++k) {
		if (!coord_ok(v[k])) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: must be finite, |v| <= 1e6 (got %s)", fn, names[k],
			                thr_fmt_float(g, v[k]));
		}
	}
	if (a.x == b.x && a.y == b.y) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: b: must differ from a (a line of zero length)", fn);
	}
	if (m->nlines == THRONG_MEASURE_MAX_LINES) {
		return thr_fail(THRONG_ERR_CAPACITY, "%s: at most %d lines", fn, THRONG_MEASURE_MAX_LINES);
	}
	line_rec* l = &m->lines[m->nlines];
	memset(l, 0, sizeof *l);
	l->a = (thr_dvec){a.x, a.y};
	l->b = (thr_dvec){b.x, b.y};
	if (id_out != NULL) {
		*id_out = m->nlines;
	}
	m->nlines++;
	return THRONG_OK;
}

throng_status throng_measure_add_area(throng_measure* m, const throng_vec2* points, uint32_t count, uint32_t* id_out)
{
	static const char fn[] = "throng_measure_add_area";
	throng_status st = check_open(m, fn);
	if (st != THRONG_OK) {
		return st;
	}
	if (points == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: points is NULL", fn);
	}
	if (count < 3 || count > THRONG_MEASURE_MAX_VERTICES) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: count: must be from 3 to %d (got %u)", fn,
		                THRONG_MEASURE_MAX_VERTICES, count);
	}
	char g[THR_FMT_FLOAT_CAP];
	for (uint32_t k = 0; k < count; ++k) {
		if (!coord_ok(points[k].x) || !coord_ok(points[k].y)) {
			float bad = coord_ok(points[k].x) ? points[k].y : points[k].x;
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: points[%u].%c: must be finite, |v| <= 1e6 (got %s)", fn, k,
			                coord_ok(points[k].x) ? 'y' : 'x', thr_fmt_float(g, bad));
		}
		uint32_t n = (k + 1) % count;
		if (points[k].x == points[n].x && points[k].y == points[n].y) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: points[%u]: equals points[%u] (an edge of zero length)", fn,
			                n, k);
		}
	}
	if (m->nareas == THRONG_MEASURE_MAX_AREAS) {
		return thr_fail(THRONG_ERR_CAPACITY, "%s: at most %d areas", fn, THRONG_MEASURE_MAX_AREAS);
	}
	thr_dvec* pts = malloc(count * sizeof *pts);
	if (pts == NULL) {
		return oom(fn);
	}
	for (uint32_t k = 0; k < count; ++k) {
		pts[k] = (thr_dvec){points[k].x, points[k].y};
	}
	// Simple: no two edges share a point, but neighbours their common vertex
	// (and they must not fold back over each other).
	for (uint32_t i = 0; i < count; ++i) {
		thr_dvec a = pts[i], b = pts[(i + 1) % count];
		for (uint32_t j = i + 1; j < count; ++j) {
			thr_dvec c = pts[j], d = pts[(j + 1) % count];
			bool next = j == i + 1, wrap = i == 0 && j == count - 1;
			bool bad = false;
			if (next || wrap) {
				// Adjacent: they share one vertex; collinear and folding back is an overlap.
				thr_dvec s = next ? b : a;       // the shared vertex
				thr_dvec p = next ? a : b;       // the far end of edge i
				thr_dvec q = next ? d : c;       // the far end of edge j
				double cr = (p.x - s.x) * (q.y - s.y) - (p.y - s.y) * (q.x - s.x);
				double dt = (p.x - s.x) * (q.x - s.x) + (p.y - s.y) * (q.y - s.y);
				bad = cr == 0.0 && dt > 0.0;
			} else {
				bad = thr_segments_touch(a, b, c, d);
			}
			if (bad) {
				free(pts);
				return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
				                "%s: points: edges %u and %u cross or touch (the polygon must be simple)", fn, i, j);
			}
		}
	}
	double sa = thr_poly_signed_area(pts, count);
	if (!(fabs(sa) > 0.0)) {
		free(pts);
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: points: the polygon has zero area", fn);
	}
	if (sa < 0.0) {
		for (uint32_t k = 0; k < count / 2; ++k) {
			thr_dvec t = pts[k];
			pts[k] = pts[count - 1 - k];
			pts[count - 1 - k] = t;
		}
	}
	area_rec* ar = &m->areas[m->nareas];
	memset(ar, 0, sizeof *ar);
	ar->poly = (thr_dpoly){pts, count, count};
	ar->size = fabs(sa);
	ar->lo = ar->hi = pts[0];
	for (uint32_t k = 1; k < count; ++k) {
		ar->lo.x = fmin(ar->lo.x, pts[k].x);
		ar->lo.y = fmin(ar->lo.y, pts[k].y);
		ar->hi.x = fmax(ar->hi.x, pts[k].x);
		ar->hi.y = fmax(ar->hi.y, pts[k].y);
	}
	ar->rect = count == 4 && ar->size == (ar->hi.x - ar->lo.x) * (ar->hi.y - ar->lo.y);
	if (id_out != NULL) {
		*id_out = m->nareas;
	}
	m->nareas++;
	return THRONG_OK;
}

throng_status throng_measure_add_rect(throng_measure* m, throng_vec2 min, throng_vec2 max, uint32_t* id_out)
{
	static const char fn[] = "throng_measure_add_rect";
	throng_status st = check_open(m, fn);
	if (st != THRONG_OK) {
		return st;
	}
	const float v[4] = {min.x, min.y, max.x, max.y};
	static const char* const names[4] = {"min.x", "min.y", "max.x", "max.y"};
	char g[THR_FMT_FLOAT_CAP];
	for (int k = 0; k < 4; ++k) {
		if (!coord_ok(v[k])) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: must be finite, |v| <= 1e6 (got %s)", fn, names[k],
			                thr_fmt_float(g, v[k]));
		}
	}
	if (!(max.x > min.x)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: max.x: must be above min.x (got %s)", fn, thr_fmt_float(g, max.x));
	}
	if (!(max.y > min.y)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: max.y: must be above min.y (got %s)", fn, thr_fmt_float(g, max.y));
	}
	const throng_vec2 p[4] = {{min.x, min.y}, {max.x, min.y}, {max.x, max.y}, {min.x, max.y}};
	return throng_measure_add_area(m, p, 4, id_out);
}

uint32_t throng_measure_line_count(const throng_measure* m) { return m != NULL ? m->nlines : 0; }
uint32_t throng_measure_area_count(const throng_measure* m) { return m != NULL ? m->nareas : 0; }
uint64_t throng_measure_states(const throng_measure* m) { return m != NULL ? m->states : 0; }

double throng_measure_area_size(const throng_measure* m, uint32_t area)
{
	return m != NULL && area < m->nareas ? m->areas[area].size : 0.0;
}

// ---------------------------------------------------------------------------
// The table of agents by id

static uint32_t hash_id(uint32_t id)
{
	uint32_t h = id * 0x9E3779B1u;
	return h ^ (h >> 16);
}

/// The slot of `id` in a table of `cap` (a power of two) entries: its own
/// or the empty one where it would go.
static uint32_t find_slot(const agent_rec* map, uint32_t cap, uint32_t id)
{
	uint32_t mask = cap - 1, s = hash_id(id) & mask;
	while (map[s].key != 0 && map[s].key != id + 1) {
		s = (s + 1) & mask;
	}
	return s;
}

/// Room for `more` new ids at a load of at most one half.
static bool map_reserve(throng_measure* m, uint32_t more)
{
	uint64_t need = ((uint64_t)m->map_used + more) * 2;
	if (need <= m->map_cap) {
		return true;
	}
	uint64_t cap = m->map_cap != 0 ? m->map_cap : 64;
	while (cap < need) {
		cap *= 2;
	}
	if (cap > (1ull << 31)) {
		return false;
	}
	agent_rec* map = calloc(cap, sizeof *map);
	uint8_t* sides = m->nlines > 0 ? calloc(cap * m->nlines, 1) : NULL;
	if (map == NULL || (m->nlines > 0 && sides == NULL)) {
		free(map);
		free(sides);
		return false;
	}
	for (uint32_t k = 0; k < m->map_cap; ++k) {
		if (m->map[k].key == 0) {
			continue;
		}
		uint32_t s = find_slot(map, (uint32_t)cap, m->map[k].key - 1);
		map[s] = m->map[k];
		if (m->nlines > 0) {
			memcpy(sides + (size_t)s * m->nlines, m->sides + (size_t)k * m->nlines, m->nlines);
		}
	}
	free(m->map);
	free(m->sides);
	m->map = map;
	m->sides = sides;
	m->map_cap = (uint32_t)cap;
	return true;
}

// ---------------------------------------------------------------------------
// Feeding

static int side_of(double c) { return c > 0.0 ? SIDE_LEFT : c < 0.0 ? SIDE_RIGHT : SIDE_NONE; }

static int cmp_crossing(const void* pa, const void* pb)
{
	const throng_crossing* a = pa;
	const throng_crossing* b = pb;
	if (a->time != b->time) {
		return a->time < b->time ? -1 : 1;
	}
	return (a->id > b->id) - (a->id < b->id);
}

/// Whether the step from (x0, y0) to (x1, y1) is a jump across a wrap
/// world's seam.
static bool seam_jump(const throng_measure* m, double x0, double y0, double x1, double y1)
{
	return m->wrap && (fabs(x1 - x0) > 0.5 * (m->bmax.x - m->bmin.x) || fabs(y1 - y0) > 0.5 * (m->bmax.y - m->bmin.y));
}

/// Line l against agent k's step; appends a crossing (room is reserved).
static void test_line(throng_measure* m, uint32_t l, const agent_rec* r, uint8_t* st, double t0,
                      const throng_measure_state* s, uint32_t k, bool seen)
{
	line_rec* ln = &m->lines[l];
	thr_dvec d = {ln->b.x - ln->a.x, ln->b.y - ln->a.y};
	double x1 = s->x[k], y1 = s->y[k];
	double c1 = d.x * (y1 - ln->a.y) - d.y * (x1 - ln->a.x);
	int s1 = side_of(c1);
	int side = *st & SIDE_MASK;
	if (!seen || seam_jump(m, r->x, r->y, x1, y1)) {
		if (s1 != SIDE_NONE || !seen) {
			*st = (uint8_t)((*st & CROSSED) | s1);
		}
		return;
	}
	if (s1 == SIDE_NONE) {
		return; // on the carrier: it keeps the side it came from
	}
	if (side != SIDE_NONE && s1 != side) {
		double x0 = r->x, y0 = r->y;
		double c0 = d.x * (y0 - ln->a.y) - d.y * (x0 - ln->a.x);
		double qx = x0, qy = y0, t = t0;
		if (c0 != 0.0) {
			double f = c0 / (c0 - c1);
			qx = x0 + f * (x1 - x0);
			qy = y0 + f * (y1 - y0);
			t = t0 + f * (s->time - t0);
		}
		double u = (d.x * (qx - ln->a.x) + d.y * (qy - ln->a.y)) / (d.x * d.x + d.y * d.y);
		if (u >= 0.0 && u <= 1.0) {
			ln->first[ln->n] = (*st & CROSSED) == 0;
			ln->cr[ln->n++] = (throng_crossing){t, s->id[k], s1 == SIDE_LEFT ? 1 : -1, qx, qy};
			*st |= CROSSED;
		}
	}
	*st = (uint8_t)((*st & CROSSED) | s1);
}

throng_status throng_measure_feed(throng_measure* m, const throng_measure_state* s)
{
	static const char fn[] = "throng_measure_feed";
	if (m == NULL || s == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m == NULL ? "m" : "state");
	}
	if (s->count > 0 && (s->id == NULL || s->x == NULL || s->y == NULL)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, s->id == NULL ? "id" : s->x == NULL ? "x" : "y");
	}
	if ((s->vx == NULL) != (s->vy == NULL)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL but %s is not (give both or neither)", fn,
		                s->vx == NULL ? "vx" : "vy", s->vx == NULL ? "vy" : "vx");
	}
	if (!isfinite(s->time)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: time: must be finite (got %g)", fn, s->time);
	}
	if (m->states > 0 && !(s->time > m->last_time)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: time: must be after the previous state's %.17g (got %.17g)", fn,
		                m->last_time, s->time);
	}
	char g[THR_FMT_FLOAT_CAP];
	for (uint32_t k = 0; k < s->count; ++k) {
		if (s->id[k] == THRONG_NO_AGENT) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: id[%u]: THRONG_NO_AGENT is no agent's id", fn, k);
		}
		if (!coord_ok(s->x[k]) || !coord_ok(s->y[k])) {
			bool bx = !coord_ok(s->x[k]);
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s[%u]: must be finite, |v| <= 1e6 (got %s)", fn,
			                bx ? "x" : "y", k, thr_fmt_float(g, bx ? s->x[k] : s->y[k]));
		}
		if (s->vx != NULL && (!isfinite(s->vx[k]) || !isfinite(s->vy[k]))) {
			bool bx = !isfinite(s->vx[k]);
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s[%u]: must be finite (got %s)", fn, bx ? "vx" : "vy", k,
			                thr_fmt_float(g, bx ? s->vx[k] : s->vy[k]));
		}
	}
	// Everything that can fail, before anything changes.
	if (!map_reserve(m, s->count) ||
	    thr_reserve((void**)&m->slot, &m->slot_cap, s->count, sizeof *m->slot, 64) != 0 ||
	    thr_reserve((void**)&m->speed, &m->speed_cap, s->count, sizeof *m->speed, 64) != 0) {
		return oom(fn);
	}
	for (uint32_t l = 0; l < m->nlines; ++l) {
		line_rec* ln = &m->lines[l];
		size_t need = (size_t)ln->n + s->count;
		uint32_t fcap = ln->first_cap;
		if (thr_reserve((void**)&ln->cr, &ln->cap, need, sizeof *ln->cr, 64) != 0 ||
		    thr_reserve((void**)&ln->first, &fcap, need, 1, 64) != 0) {
			return oom(fn);
		}
		ln->first_cap = fcap;
	}
	for (uint32_t a = 0; a < m->nareas; ++a) {
		area_rec* ar = &m->areas[a];
		if (thr_reserve((void**)&ar->s, &ar->cap, (size_t)ar->ns + 1, sizeof *ar->s, 64) != 0) {
			return oom(fn);
		}
	}
	m->attempt++;
	for (uint32_t k = 0; k < s->count; ++k) {
		uint32_t sl = find_slot(m->map, m->map_cap, s->id[k]);
		agent_rec* r = &m->map[sl];
		if (r->key == 0) {
			r->key = s->id[k] + 1;
			r->last = 0;
			m->map_used++;
			if (m->nlines > 0) {
				memset(m->sides + (size_t)sl * m->nlines, 0, m->nlines);
			}
		} else if (r->stamp == m->attempt) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: id[%u]: the id %u appears twice in the state", fn, k,
			                s->id[k]);
		}
		r->stamp = m->attempt;
		m->slot[k] = sl;
	}
	// Speeds: the given velocities, or the displacement since the previous state.
	for (uint32_t k = 0; k < s->count; ++k) {
		const agent_rec* r = &m->map[m->slot[k]];
		if (s->vx != NULL) {
			m->speed[k] = hypot(s->vx[k], s->vy[k]);
		} else if (m->states > 0 && r->last == m->states && !seam_jump(m, r->x, r->y, s->x[k], s->y[k])) {
			m->speed[k] = hypot(s->x[k] - r->x, s->y[k] - r->y) / (s->time - m->last_time);
		} else {
			m->speed[k] = NAN;
		}
	}
	if (!thr_measure_take_samples(m, s)) {
		return oom(fn);
	}
	// Commit: crossings, the agents' last positions, the samples.
	for (uint32_t l = 0; l < m->nlines; ++l) {
		line_rec* ln = &m->lines[l];
		uint32_t before = ln->n;
		for (uint32_t k = 0; k < s->count; ++k) {
			const agent_rec* r = &m->map[m->slot[k]];
			bool seen = m->states > 0 && r->last == m->states;
			test_line(m, l, r, m->sides + (size_t)m->slot[k] * m->nlines + l, m->last_time, s, k, seen);
		}
		if (ln->n - before > 1) {
			// Sort the step's crossings by (time, id), carrying the first marks.
			uint32_t n = ln->n - before;
			for (uint32_t i = 1; i < n; ++i) {
				throng_crossing c = ln->cr[before + i];
				uint8_t f = ln->first[before + i];
				uint32_t j = i;
				while (j > 0 && cmp_crossing(&ln->cr[before + j - 1], &c) > 0) {
					ln->cr[before + j] = ln->cr[before + j - 1];
					ln->first[before + j] = ln->first[before + j - 1];
					--j;
				}
				ln->cr[before + j] = c;
				ln->first[before + j] = f;
			}
		}
	}
	for (uint32_t k = 0; k < s->count; ++k) {
		agent_rec* r = &m->map[m->slot[k]];
		r->x = s->x[k];
		r->y = s->y[k];
		r->last = m->states + 1;
	}
	for (uint32_t a = 0; a < m->nareas; ++a) {
		area_rec* ar = &m->areas[a];
		ar->s[ar->ns++] = m->pending[a];
	}
	m->states++;
	m->last_time = s->time;
	return THRONG_OK;
}

throng_status throng_measure_feed_world(throng_measure* m, const throng_world* world)
{
	if (m == NULL || world == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_measure_feed_world: %s is NULL", m == NULL ? "m" : "world");
	}
	throng_view v = throng_world_view(world);
	throng_world_def d = throng_world_get_def(world);
	throng_measure_state s = {(double)v.step * (double)d.dt, v.count, v.id, v.x, v.y, v.vx, v.vy};
	return throng_measure_feed(m, &s);
}
