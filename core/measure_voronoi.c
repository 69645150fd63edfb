// SPDX-License-Identifier: MIT
// The areas' samples of one state (core/measure_internal.h): classic
// density and speed by the inside test, Voronoi density and speed from
// each agent's cell cut off by the cut-off polygon, the bounds and the
// half-planes of its neighbours within 2R (docs/QUALITY.md, "Measurement").
#include <math.h>
#include <string.h>

#include "measure_internal.h"
#include "memory.h"

// ---------------------------------------------------------------------------
// Voronoi cells

/// Room for n + extra vertices in p.
static bool poly_room(thr_dpoly* p, size_t need)
{
	return thr_reserve((void**)&p->pts, &p->cap, need, sizeof *p->pts, 64) == 0;
}

/// m->cell = m->cell clipped to dot(nrm, p) <= c (through m->tmp).
static bool cell_clip(throng_measure* m, thr_dvec nrm, double c)
{
	if (!poly_room(&m->tmp, 2 * (size_t)m->cell.n + 2)) {
		return false;
	}
	thr_clip_half_plane(&m->cell, &m->tmp, nrm, c);
	thr_dpoly t = m->cell;
	m->cell = m->tmp;
	m->tmp = t;
	return true;
}

/// The area of area polygon `ar` inside the convex counter-clockwise m->cell.
static bool overlap_area(throng_measure* m, const area_rec* ar, double* out)
{
	if (!poly_room(&m->sa, ar->poly.n) || !poly_room(&m->sb, 2 * (size_t)ar->poly.n + 2)) {
		return false;
	}
	memcpy(m->sa.pts, ar->poly.pts, ar->poly.n * sizeof *m->sa.pts);
	m->sa.n = ar->poly.n;
	for (uint32_t k = 0; k < m->cell.n && m->sa.n > 0; ++k) {
		thr_dvec p = m->cell.pts[k], q = m->cell.pts[(k + 1) % m->cell.n];
		thr_dvec nrm = {q.y - p.y, -(q.x - p.x)}; // outward normal of a counter-clockwise edge
		if (!poly_room(&m->sb, 2 * (size_t)m->sa.n + 2)) {
			return false;
		}
		thr_clip_half_plane(&m->sa, &m->sb, nrm, nrm.x * p.x + nrm.y * p.y);
		thr_dpoly t = m->sa;
		m->sa = m->sb;
		m->sb = t;
	}
	*out = m->sa.n >= 3 ? fabs(thr_poly_signed_area(m->sa.pts, m->sa.n)) : 0.0;
	return true;
}

/// The grid of the state's agents for the neighbour search: cells of side
/// *h (at least 2R), origin *lo, nx by ny; m->items lists the agents cell
/// by cell, in input order within a cell.
typedef struct cell_grid {
	thr_dvec lo;
	double h;
	uint32_t nx, ny;
} cell_grid;

static bool build_grid(throng_measure* m, const throng_measure_state* s, cell_grid* g)
{
	uint32_t n = s->count;
	thr_dvec lo = {s->x[0], s->y[0]}, hi = lo;
	for (uint32_t k = 1; k < n; ++k) {
		lo.x = fmin(lo.x, s->x[k]);
		lo.y = fmin(lo.y, s->y[k]);
		hi.x = fmax(hi.x, s->x[k]);
		hi.y = fmax(hi.y, s->y[k]);
	}
	double h = 2.0 * m->radius;
	double limit = 4.0 * n + 64.0;
	for (;;) {
		double nx = floor((hi.x - lo.x) / h) + 1.0, ny = floor((hi.y - lo.y) / h) + 1.0;
		if (nx * ny <= limit) {
			g->nx = (uint32_t)nx;
			g->ny = (uint32_t)ny;
			break;
		}
		h *= 2.0;
	}
	g->lo = lo;
	g->h = h;
	size_t cells = (size_t)g->nx * g->ny;
	if (thr_reserve((void**)&m->cell_start, &m->cell_start_cap, cells + 1, sizeof *m->cell_start, 64) != 0 ||
	    thr_reserve((void**)&m->items, &m->items_cap, n, sizeof *m->items, 64) != 0) {
		return false;
	}
	memset(m->cell_start, 0, (cells + 1) * sizeof *m->cell_start);
	// m->slot holds the table slots; the cell of agent k is recomputed.
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t cx = (uint32_t)((s->x[k] - lo.x) / h), cy = (uint32_t)((s->y[k] - lo.y) / h);
		cx = cx < g->nx ? cx : g->nx - 1;
		cy = cy < g->ny ? cy : g->ny - 1;
		m->cell_start[(size_t)cy * g->nx + cx + 1]++;
	}
	for (size_t c = 0; c < cells; ++c) {
		m->cell_start[c + 1] += m->cell_start[c];
	}
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t cx = (uint32_t)((s->x[k] - lo.x) / h), cy = (uint32_t)((s->y[k] - lo.y) / h);
		cx = cx < g->nx ? cx : g->nx - 1;
		cy = cy < g->ny ? cy : g->ny - 1;
		m->items[m->cell_start[(size_t)cy * g->nx + cx]++] = k;
	}
	for (size_t c = cells; c > 0; --c) {
		m->cell_start[c] = m->cell_start[c - 1];
	}
	m->cell_start[0] = 0;
	return true;
}

/// Agent k's cell into m->cell: the cut-off polygon, the bounds, then the
/// half-plane of every neighbour within 2R. Of agents at the same point the
/// one with the lowest id takes the cell and the others get none.
static bool voronoi_cell(throng_measure* m, const throng_measure_state* s, const cell_grid* g, uint32_t k)
{
	thr_dvec p = {s->x[k], s->y[k]};
	uint32_t nv = 4 * m->segs;
	if (!poly_room(&m->cell, nv) || !poly_room(&m->tmp, 2 * (size_t)nv + 2)) {
		return false;
	}
	for (uint32_t v = 0; v < nv; ++v) {
		m->cell.pts[v] = (thr_dvec){p.x + m->ring[v].x, p.y + m->ring[v].y};
	}
	m->cell.n = nv;
	if (m->bounded) {
		if (!cell_clip(m, (thr_dvec){-1.0, 0.0}, -m->bmin.x) || !cell_clip(m, (thr_dvec){1.0, 0.0}, m->bmax.x) ||
		    !cell_clip(m, (thr_dvec){0.0, -1.0}, -m->bmin.y) || !cell_clip(m, (thr_dvec){0.0, 1.0}, m->bmax.y)) {
			return false;
		}
	}
	double reach = 2.0 * m->radius;
	double fx0 = floor((p.x - reach - g->lo.x) / g->h), fx1 = floor((p.x + reach - g->lo.x) / g->h);
	double fy0 = floor((p.y - reach - g->lo.y) / g->h), fy1 = floor((p.y + reach - g->lo.y) / g->h);
	uint32_t cx0 = fx0 < 0.0 ? 0 : (uint32_t)fx0, cy0 = fy0 < 0.0 ? 0 : (uint32_t)fy0;
	uint32_t cx1 = fx1 >= g->nx - 1 ? g->nx - 1 : (uint32_t)fx1, cy1 = fy1 >= g->ny - 1 ? g->ny - 1 : (uint32_t)fy1;
	for (uint32_t cy = cy0; cy <= cy1 && m->cell.n > 0; ++cy) {
		for (uint32_t cx = cx0; cx <= cx1 && m->cell.n > 0; ++cx) {
			size_t c = (size_t)cy * g->nx + cx;
			for (uint32_t e = m->cell_start[c]; e < m->cell_start[c + 1]; ++e) {
				uint32_t j = m->items[e];
				if (j == k) {
					continue;
				}
				thr_dvec q = {s->x[j], s->y[j]};
				thr_dvec d = {q.x - p.x, q.y - p.y};
				if (d.x * d.x + d.y * d.y > reach * reach) {
					continue;
				}
				if (d.x == 0.0 && d.y == 0.0) {
					if (s->id[j] < s->id[k]) {
						m->cell.n = 0;
						break;
					}
					continue;
				}
				thr_dvec mid = {0.5 * (p.x + q.x), 0.5 * (p.y + q.y)};
				if (!cell_clip(m, d, d.x * mid.x + d.y * mid.y)) {
					return false;
				}
			}
		}
	}
	return true;
}

bool thr_measure_take_samples(throng_measure* m, const throng_measure_state* s)
{
	for (uint32_t a = 0; a < m->nareas; ++a) {
		throng_area_sample* smp = &m->pending[a];
		memset(smp, 0, sizeof *smp);
		smp->time = s->time;
		const area_rec* ar = &m->areas[a];
		double speed_sum = 0.0;
		for (uint32_t k = 0; k < s->count; ++k) {
			if (thr_poly_contains(ar->poly.pts, ar->poly.n, (thr_dvec){s->x[k], s->y[k]})) {
				smp->inside++;
				if (!isnan(m->speed[k])) {
					smp->with_speed++;
					speed_sum += m->speed[k];
				}
			}
		}
		smp->density = smp->inside / ar->size;
		smp->mean_speed = smp->with_speed > 0 ? speed_sum / smp->with_speed : 0.0;
	}
	if (m->nareas == 0 || s->count == 0) {
		return true;
	}
	cell_grid g;
	if (!build_grid(m, s, &g)) {
		return false;
	}
	double r = m->radius;
	double wsum[THRONG_MEASURE_MAX_AREAS], vsum[THRONG_MEASURE_MAX_AREAS];
	memset(wsum, 0, sizeof wsum);
	memset(vsum, 0, sizeof vsum);
	for (uint32_t k = 0; k < s->count; ++k) {
		thr_dvec p = {s->x[k], s->y[k]};
		bool cell_done = false;
		double cell_size = 0.0;
		for (uint32_t a = 0; a < m->nareas; ++a) {
			const area_rec* ar = &m->areas[a];
			if (p.x + r < ar->lo.x || p.x - r > ar->hi.x || p.y + r < ar->lo.y || p.y - r > ar->hi.y) {
				continue;
			}
			if (!cell_done) {
				if (!voronoi_cell(m, s, &g, k)) {
					return false;
				}
				cell_done = true;
				cell_size = m->cell.n >= 3 ? thr_poly_signed_area(m->cell.pts, m->cell.n) : 0.0;
			}
			if (!(cell_size > 0.0)) {
				break;
			}
			thr_dvec clo = m->cell.pts[0], chi = clo;
			for (uint32_t v = 1; v < m->cell.n; ++v) {
				clo.x = fmin(clo.x, m->cell.pts[v].x);
				clo.y = fmin(clo.y, m->cell.pts[v].y);
				chi.x = fmax(chi.x, m->cell.pts[v].x);
				chi.y = fmax(chi.y, m->cell.pts[v].y);
			}
			double part = 0.0;
			if (chi.x <= ar->lo.x || clo.x >= ar->hi.x || chi.y <= ar->lo.y || clo.y >= ar->hi.y) {
				part = 0.0;
			} else if (ar->rect && clo.x >= ar->lo.x && chi.x <= ar->hi.x && clo.y >= ar->lo.y && chi.y <= ar->hi.y) {
				part = cell_size;
			} else if (!overlap_area(m, ar, &part)) {
				return false;
			}
			part = part < cell_size ? part : cell_size;
			wsum[a] += part / cell_size;
			if (!isnan(m->speed[k])) {
				vsum[a] += m->speed[k] * part;
			}
		}
	}
	for (uint32_t a = 0; a < m->nareas; ++a) {
		m->pending[a].voronoi_density = wsum[a] / m->areas[a].size;
		m->pending[a].voronoi_speed = vsum[a] / m->areas[a].size;
	}
	return true;
}

