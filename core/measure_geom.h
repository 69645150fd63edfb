// SPDX-License-Identifier: MIT
// Plane geometry of the measurement module (core/measure.c), in double:
// polygon area, inside test, segment intersection and the clipping that
// makes Voronoi cells (private).
#ifndef THRONG_CORE_MEASURE_GEOM_H
#define THRONG_CORE_MEASURE_GEOM_H

#include <stdbool.h>
#include <stdint.h>

/// A point or vector in double.
typedef struct thr_dvec {
	double x, y;
} thr_dvec;

/// A polygon being clipped: n vertices in pts, room for cap.
typedef struct thr_dpoly {
	thr_dvec* pts;
	uint32_t n, cap;
} thr_dpoly;

/// Signed area (counter-clockwise positive) of pts[0..n), the shoelace
/// formula about pts[0].
double thr_poly_signed_area(const thr_dvec* pts, uint32_t n);

/// Whether p is inside the polygon by the crossing-number rule with
/// half-open edges: the plane is tiled without double counting, so a point
/// on an edge shared by two areas is inside exactly one of them.
bool thr_poly_contains(const thr_dvec* pts, uint32_t n, thr_dvec p);

/// Whether the closed segments [a, b] and [c, d] share a point.
bool thr_segments_touch(thr_dvec a, thr_dvec b, thr_dvec c, thr_dvec d);

/// Keeps the part of `in` where dot(nrm, p) <= c (Sutherland-Hodgman, one
/// plane) into `out`, whose room must be at least 2 * in->n. A non-convex
/// `in` gives a polygon with zero-width spurs but the right area.
void thr_clip_half_plane(const thr_dpoly* in, thr_dpoly* out, thr_dvec nrm, double c);

#endif
