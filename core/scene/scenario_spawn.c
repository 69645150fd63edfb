// SPDX-License-Identifier: MIT
// Overlap-free random placement for the built-in scenes: darts over a
// uniform grid, with a lattice fallback (scenario_spawn.h says why).
#include "scenario_spawn.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "rng.h"

#define SPAWN_NONE UINT32_MAX

throng_status thr_spawn_init(thr_spawn* s, const char* scene, throng_vec2 lo, throng_vec2 hi, uint32_t cap,
                             float max_radius)
{
	memset(s, 0, sizeof *s);
	s->scene = scene;
	s->lo = lo;
	s->cap = cap;
	// Cells a hair more than the largest reach, so a disc's conflicts lie
	// in the 3 x 3 cells around it whatever the rounding, and at least
	// sqrt(area / discs), so there are about as many cells as discs; grown
	// further if a thin rectangle would still make many more cells than
	// discs.
	double w = (double)hi.x - (double)lo.x, h = (double)hi.y - (double)lo.y;
	w = w > 0.0 ? w : 0.0;
	h = h > 0.0 ? h : 0.0;
	double cell = 2.0 * (double)max_radius * (1.0 + 2.0 * (double)THR_SPAWN_SLACK);
	double even = sqrt(w * h / (double)(cap > 0 ? cap : 1u));
	cell = cell > even ? cell : even;
	cell = cell > 1e-3 ? cell : 1e-3;
	double nx, ny;
	for (;;) {
		nx = floor(w / cell) + 1.0;
		ny = floor(h / cell) + 1.0;
		if (nx * ny <= 2.0 * (double)cap + 64.0) {
			break;
		}
		cell *= 1.5;
	}
	s->nx = (uint32_t)nx;
	s->ny = (uint32_t)ny;
	s->inv_cell = (float)(1.0 / cell);
	size_t cells = (size_t)s->nx * s->ny;
	s->head = malloc(cells * sizeof *s->head);
	s->disc = malloc((size_t)(cap > 0 ? cap : 1u) * sizeof *s->disc);
	if (s->head == NULL || s->disc == NULL) {
		thr_spawn_free(s);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory placing %u agents", scene, cap);
	}
	memset(s->head, 0xff, cells * sizeof *s->head);
	return THRONG_OK;
}

void thr_spawn_free(thr_spawn* s)
{
	free(s->head);
	free(s->disc);
	memset(s, 0, sizeof *s);
}

/// The cell column (or row) of coordinate v (m) from the grid's corner,
/// clamped to [0, n - 1]: clamping keeps neighbours within one cell.
static uint32_t spawn_axis(float v, float lo, float inv_cell, uint32_t n)
{
	float c = floorf((v - lo) * inv_cell);
	if (!(c >= 0.0f)) {
		return 0;
	}
	return c >= (float)n ? n - 1u : (uint32_t)c;
}

void thr_spawn_block(thr_spawn* s, throng_vec2 center, float radius)
{
	uint32_t k = s->count++;
	uint32_t cell = spawn_axis(center.y, s->lo.y, s->inv_cell, s->ny) * s->nx +
	                spawn_axis(center.x, s->lo.x, s->inv_cell, s->nx);
	s->disc[k] = (thr_spawn_disc){center.x, center.y, radius, s->head[cell]};
	s->head[cell] = k;
}

/// Whether a disc of radius r at (x, y) keeps clear of every disc placed.
static bool spawn_clear(const thr_spawn* s, float x, float y, float r)
{
	uint32_t cx = spawn_axis(x, s->lo.x, s->inv_cell, s->nx);
	uint32_t cy = spawn_axis(y, s->lo.y, s->inv_cell, s->ny);
	uint32_t x0 = cx > 0 ? cx - 1u : 0u, x1 = cx + 1u < s->nx ? cx + 1u : cx;
	uint32_t y0 = cy > 0 ? cy - 1u : 0u, y1 = cy + 1u < s->ny ? cy + 1u : cy;
	for (uint32_t gy = y0; gy <= y1; ++gy) {
		for (uint32_t gx = x0; gx <= x1; ++gx) {
			for (uint32_t j = s->head[gy * s->nx + gx]; j != SPAWN_NONE; j = s->disc[j].next) {
				const thr_spawn_disc* d = &s->disc[j];
				float dx = d->x - x;
				float dy = d->y - y;
				float rr = (d->r + r) * (1.0f + THR_SPAWN_SLACK);
				if (dx * dx + dy * dy < rr * rr) {
					return false;
				}
			}
		}
	}
	return true;
}

/// The fallback lattice over a spawn rectangle: points lo + (ix, iy) *
/// pitch, both edges included (the last clamped to hi). Pitch r (1 + 2
/// slack): two pitches clear the slack, so the lattice can hold discs two
/// pitches apart, denser than darts ever fill.
typedef struct spawn_lattice {
	throng_vec2 lo, hi;
	double pitch;
	uint64_t mx, my; ///< points across and up
} spawn_lattice;

/// The first clear point of the lattice's columns [x0, x1] and rows
/// [y0, y1], scanned row by row from *cursor (row-major over the window);
/// *cursor is left on the point found (or past the window).
static bool lattice_scan(const thr_spawn* s, const spawn_lattice* L, float r, uint64_t x0, uint64_t x1, uint64_t y0,
                         uint64_t y1, uint64_t* cursor, throng_vec2* p)
{
	uint64_t cols = x1 - x0 + 1u, points = cols * (y1 - y0 + 1u);
	for (; *cursor < points; ++*cursor) {
		uint64_t ix = x0 + *cursor % cols, iy = y0 + *cursor / cols;
		p->x = (float)((double)L->lo.x + L->pitch * (double)ix);
		p->y = (float)((double)L->lo.y + L->pitch * (double)iy);
		p->x = p->x < L->hi.x ? p->x : L->hi.x;
		p->y = p->y < L->hi.y ? p->y : L->hi.y;
		if (spawn_clear(s, p->x, p->y, r)) {
			return true;
		}
	}
	return false;
}

/// The lattice column (or row) of coordinate v, clamped to [0, n - 1].
static uint64_t lattice_axis(double v, double lo, double pitch, uint64_t n)
{
	double c = floor((v - lo) / pitch);
	return c <= 0.0 ? 0u : c >= (double)(n - 1u) ? n - 1u : (uint64_t)c;
}

throng_status thr_spawn_scatter(thr_spawn* s, uint32_t key, uint32_t first, uint32_t count, float radius,
                                throng_vec2 lo, throng_vec2 hi, throng_vec2* out)
{
	if (count > s->cap - s->count) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "scenario %s: %u agents to place, room for %u", s->scene, count,
		                s->cap - s->count);
	}
	float w = hi.x - lo.x, h = hi.y - lo.y;
	spawn_lattice L = {lo, hi, (double)radius * (1.0 + 2.0 * (double)THR_SPAWN_SLACK), 0, 0};
	L.mx = (uint64_t)((double)(w > 0.0f ? w : 0.0f) / L.pitch) + 1u;
	L.my = (uint64_t)((double)(h > 0.0f ? h : 0.0f) / L.pitch) + 1u;
	double reach = 1.0 / (double)s->inv_cell; // the local window's half side: one cell
	uint64_t cursor = 0; // the whole lattice's, for the last resort
	for (uint32_t k = 0; k < count; ++k) {
		uint32_t id = first + k;
		throng_vec2 p = {0.0f, 0.0f}, first_dart = {0.0f, 0.0f};
		bool placed = false;
		for (uint32_t t = 0; t < THR_SPAWN_TRIES && !placed; ++t) {
			uint32_t b = t == 0 ? 0u : THR_SPAWN_RETRY + 2u * t;
			p.x = lo.x + w * thr_bits_to_unit(thr_rng_bits(key, id, b, THR_STREAM_SPAWN));
			p.y = lo.y + h * thr_bits_to_unit(thr_rng_bits(key, id, b + 1u, THR_STREAM_SPAWN));
			first_dart = t == 0 ? p : first_dart;
			placed = spawn_clear(s, p.x, p.y, radius);
		}
		if (!placed) {
			// Every dart missed: the lattice around the first dart, then
			// the whole lattice from the cursor.
			uint64_t local = 0;
			placed = lattice_scan(s, &L, radius,
			                      lattice_axis((double)first_dart.x - reach, (double)lo.x, L.pitch, L.mx),
			                      lattice_axis((double)first_dart.x + reach, (double)lo.x, L.pitch, L.mx),
			                      lattice_axis((double)first_dart.y - reach, (double)lo.y, L.pitch, L.my),
			                      lattice_axis((double)first_dart.y + reach, (double)lo.y, L.pitch, L.my), &local, &p) ||
			         lattice_scan(s, &L, radius, 0, L.mx - 1u, 0, L.my - 1u, &cursor, &p);
			s->fallbacks++;
		}
		if (!placed) {
			return thr_fail(THRONG_ERR_INVALID_ARGUMENT,
			                "scenario %s: no room for agent %u clear of the %u placed before it in [%g, %g] x [%g, %g]",
			                s->scene, id, s->count, (double)lo.x, (double)hi.x, (double)lo.y, (double)hi.y);
		}
		thr_spawn_block(s, p, radius);
		out[k] = p;
	}
	return THRONG_OK;
}

throng_status thr_spawn_darts(const char* scene, uint32_t key, uint32_t n, float radius, throng_vec2 lo,
                              throng_vec2 hi, throng_vec2** out)
{
	*out = malloc((size_t)n * sizeof **out);
	if (*out == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for %u agents", scene, n);
	}
	thr_spawn sp;
	throng_status st = thr_spawn_init(&sp, scene, lo, hi, n, radius);
	if (st == THRONG_OK) {
		st = thr_spawn_scatter(&sp, key, 0, n, radius, lo, hi, *out);
		thr_spawn_free(&sp);
	}
	if (st != THRONG_OK) {
		free(*out);
		*out = NULL;
	}
	return st;
}
