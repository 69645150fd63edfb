// SPDX-License-Identifier: MIT
// Plane geometry of the measurement module (core/measure_geom.h).
#include "measure_geom.h"

double thr_poly_signed_area(const thr_dvec* pts, uint32_t n)
{
	double twice = 0.0;
	for (uint32_t k = 1; k + 1 < n; ++k) {
		double ax = pts[k].x - pts[0].x, ay = pts[k].y - pts[0].y;
		double bx = pts[k + 1].x - pts[0].x, by = pts[k + 1].y - pts[0].y;
		twice += ax * by - ay * bx;
	}
	return 0.5 * twice;
}

bool thr_poly_contains(const thr_dvec* pts, uint32_t n, thr_dvec p)
{
	// An edge counts when it spans p.y half-open ((yi > y) != (yj > y)) and
	// p lies strictly left of where it crosses that row: a point on a left
	// or bottom edge is inside, on a right or top edge outside.
	bool in = false;
	for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
		thr_dvec a = pts[j], b = pts[i];
		if ((a.y > p.y) != (b.y > p.y)) {
			double x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
			if (p.x < x) {
				in = !in;
			}
		}
	}
	return in;
}

static double orient(thr_dvec a, thr_dvec b, thr_dvec c)
{
	return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

static bool on_segment(thr_dvec a, thr_dvec b, thr_dvec p)
{
	return p.x >= (a.x < b.x ? a.x : b.x) && p.x <= (a.x > b.x ? a.x : b.x) && p.y >= (a.y < b.y ? a.y : b.y) &&
	       p.y <= (a.y > b.y ? a.y : b.y);
}

static int sgn(double v) { return (v > 0.0) - (v < 0.0); }

bool thr_segments_touch(thr_dvec a, thr_dvec b, thr_dvec c, thr_dvec d)
{
	int o1 = sgn(orient(a, b, c)), o2 = sgn(orient(a, b, d));
	int o3 = sgn(orient(c, d, a)), o4 = sgn(orient(c, d, b));
	if (o1 != o2 && o3 != o4) {
		return true;
	}
	return (o1 == 0 && on_segment(a, b, c)) || (o2 == 0 && on_segment(a, b, d)) ||
	       (o3 == 0 && on_segment(c, d, a)) || (o4 == 0 && on_segment(c, d, b));
}

void thr_clip_half_plane(const thr_dpoly* in, thr_dpoly* out, thr_dvec nrm, double c)
{
	out->n = 0;
	if (in->n == 0) {
		return;
	}
	thr_dvec prev = in->pts[in->n - 1];
	double dp = nrm.x * prev.x + nrm.y * prev.y - c;
	for (uint32_t k = 0; k < in->n; ++k) {
		thr_dvec cur = in->pts[k];
		double dc = nrm.x * cur.x + nrm.y * cur.y - c;
		if ((dp <= 0.0) != (dc <= 0.0)) {
			double f = dp / (dp - dc);
			out->pts[out->n++] = (thr_dvec){prev.x + f * (cur.x - prev.x), prev.y + f * (cur.y - prev.y)};
		}
		if (dc <= 0.0) {
			out->pts[out->n++] = cur;
		}
		prev = cur;
		dp = dc;
	}
}
