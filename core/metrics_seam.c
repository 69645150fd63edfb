// SPDX-License-Identifier: MIT
// The quality metrics' overlaps across a wrap world's seams
// (metrics_overlap.h, thr_overlap_seam).
//
// The plane sweep of metrics_overlap.c meets every pair whose discs
// overlap in the plane. In a wrap world (a torus) a pair may overlap only
// at its nearest image, across a seam, as the engines' neighbour walks and
// contacts see it (core/grid.h, thr_grid_walk): such a pair lies within
// b = 2 x the largest radius of opposite edges. So the agents of the bands
// [min.x, min.x + b) and [max.x - b, max.x) are sorted by y, and each of
// the top band meets the bottom band's agents within b of it in y (round
// the y seam too): the pairs across the x seam, corners included. Then the
// same across the y seam, for the pairs the first pass did not take (those
// whose nearest image does not cross the x seam). Each pair is counted
// once, at its nearest image. Sums and a maximum: the same figures in any
// order; the bands are sorted by (coordinate, id), so the candidates too.
#include <math.h>
#include <stdlib.h>

#include "metrics_overlap.h"
#include "world_internal.h"

/// A band's agent: its coordinate along the seam, its id, its slot.
typedef struct seam_entry {
	float along;
	uint32_t id, slot;
} seam_entry;

static int by_along(const void* a, const void* b)
{
	const seam_entry *p = a, *q = b;
	if (p->along != q->along) {
		return p->along < q->along ? -1 : 1;
	}
	return (p->id > q->id) - (p->id < q->id);
}

/// The pairs across one seam. Axis 0: the x seam (bands in x, sorted by
/// y); axis 1: the y seam, taking only pairs whose nearest image keeps x.
static int seam_pass(const throng_world* w, const throng_view* v, int axis, float b, thr_overlap_result* out)
{
	const thr_period per = thr_world_period(w);
	const float* across = axis == 0 ? v->x : v->y;
	const float* along = axis == 0 ? v->y : v->x;
	const float lo = axis == 0 ? w->def.bounds_min.x : w->def.bounds_min.y;
	const float period = axis == 0 ? per.px : per.py;
	const float period_along = axis == 0 ? per.py : per.px;
	seam_entry* e = malloc(2u * (size_t)(v->count ? v->count : 1u) * sizeof *e);
	if (e == NULL) {
		return -1;
	}
	seam_entry *low = e, *high = e + v->count;
	uint32_t nl = 0, nh = 0;
	for (uint32_t i = 0; i < v->count; ++i) {
		if (!(across[i] == across[i] && along[i] == along[i])) {
			continue; // NaN
		}
		const seam_entry s = {along[i], v->id[i], i};
		if (across[i] < lo + b) {
			low[nl++] = s;
		}
		if (across[i] >= lo + period - b) {
			high[nh++] = s;
		}
	}
	qsort(low, nl, sizeof *low, by_along);
	qsort(high, nh, sizeof *high, by_along);
	// Each high agent against the low agents within b along the seam, at
	// along - period_along, along, along + period_along (round the other
	// seam), each window once: a low agent is met at most once per shift.
	uint32_t lo_at[3] = {0, 0, 0};
	for (uint32_t k = 0; k < nh; ++k) {
		const uint32_t i = high[k].slot;
		for (int s = 0; s < 3; ++s) {
			const float shift = s == 0 ? -period_along : (s == 1 ? 0.0f : period_along);
			const float from = high[k].along + shift - b, to = high[k].along + shift + b;
			while (lo_at[s] < nl && low[lo_at[s]].along < from) {
				lo_at[s]++;
			}
			for (uint32_t q = lo_at[s]; q < nl && low[q].along <= to; ++q) {
				const uint32_t j = low[q].slot;
				if (j == i) {
					continue;
				}
				const float px = v->x[j] - v->x[i], py = v->y[j] - v->y[i];
				float dx = px, dy = py;
				thr_period_image(&per, &dx, &dy);
				// Counted here when the nearest image brings j up across
				// this seam (i high, j low: met once however narrow the
				// world), through this window's shift along it, and, on the
				// y seam, keeps x (else the x seam's pass took it).
				const float pa = axis == 0 ? py : px, ia = axis == 0 ? dy : dx;
				const int window = ia > pa ? 0 : (ia < pa ? 2 : 1);
				if (!((axis == 0 ? dx > px : dy > py) && window == s && (axis == 0 || dx == px))) {
					continue;
				}
				const float rr = v->radius[i] + v->radius[j];
				const float d2 = dx * dx + dy * dy;
				if (d2 < rr * rr) {
					out->pairs++;
					const double depth = 1.0 - sqrt((double)d2) / (double)rr;
					out->deepest = depth > out->deepest ? depth : out->deepest;
				}
			}
		}
	}
	free(e);
	return 0;
}

int thr_overlap_seam(const throng_world* w, thr_overlap_result* out)
{
	if (w->def.bounds_mode != THRONG_BOUNDS_WRAP || !(w->max_radius > 0.0f)) {
		return 0;
	}
	const throng_view v = throng_world_view(w);
	const float b = 2.0f * w->max_radius;
	return seam_pass(w, &v, 0, b, out) < 0 || seam_pass(w, &v, 1, b, out) < 0 ? -1 : 0;
}
