// SPDX-License-Identifier: MIT
// The walkable area as WKT (walkable.h): a box minus the world's obstacles
// and walls, with GEOS's reentrant C API. No polygon clipping here: GEOS
// unions the shapes, subtracts them from the box and snaps the result to
// a grid (which keeps it valid); this file only builds the shapes, picks
// the piece to keep and writes it. Each call has its own GEOS context, so
// exporters on several threads never share one.
#define _POSIX_C_SOURCE 200809L
#define GEOS_USE_ONLY_R_API

#include "walkable.h"

#include <geos_c.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

throng_status thr_walkable_shapes_of(const throng_world* world, thr_walkable_shapes* out)
{
	memset(out, 0, sizeof *out);
	uint32_t no = throng_world_obstacle_count(world);
	uint32_t nw = throng_world_wall_count(world);
	out->obstacle = no > 0 ? malloc((size_t)no * 3u * sizeof(double)) : NULL;
	out->wall = nw > 0 ? malloc((size_t)nw * 4u * sizeof(double)) : NULL;
	if ((no > 0 && out->obstacle == NULL) || (nw > 0 && out->wall == NULL)) {
		thr_walkable_shapes_free(out);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "out of memory copying %u obstacles and %u walls", no, nw);
	}
	for (uint32_t k = 0; k < no; ++k) {
		throng_vec2 c = {0, 0};
		float r = 0;
		throng_world_get_obstacle(world, k, &c, &r);
		out->obstacle[3u * k] = (double)c.x;
		out->obstacle[3u * k + 1u] = (double)c.y;
		out->obstacle[3u * k + 2u] = (double)r;
	}
	for (uint32_t k = 0; k < nw; ++k) {
		throng_vec2 a = {0, 0}, b = {0, 0};
		throng_world_get_wall(world, k, &a, &b);
		out->wall[4u * k] = (double)a.x;
		out->wall[4u * k + 1u] = (double)a.y;
		out->wall[4u * k + 2u] = (double)b.x;
		out->wall[4u * k + 3u] = (double)b.y;
	}
	out->obstacles = no;
	out->walls = nw;
	return THRONG_OK;
}

void thr_walkable_shapes_free(thr_walkable_shapes* s)
{
	free(s->obstacle);
	free(s->wall);
	memset(s, 0, sizeof *s);
}

/// Sides of the polygon that stands for a circle of radius r: the fewest
/// whose sagitta r (1 - cos(pi / n)) is at most the tolerance.
static uint32_t circle_sides(double r)
{
	const double pi = 3.14159265358979323846;
	double n = THR_WALKABLE_CIRCLE_MIN_SIDES;
	if (r > THR_WALKABLE_CIRCLE_TOLERANCE) {
		n = ceil(pi / acos(1.0 - THR_WALKABLE_CIRCLE_TOLERANCE / r));
	}
	if (!(n >= THR_WALKABLE_CIRCLE_MIN_SIDES)) {
		n = THR_WALKABLE_CIRCLE_MIN_SIDES;
	}
	if (n > THR_WALKABLE_CIRCLE_MAX_SIDES) {
		n = THR_WALKABLE_CIRCLE_MAX_SIDES;
	}
	return (uint32_t)n;
}

typedef struct geos_run {
	GEOSContextHandle_t ctx;
	char message[512]; ///< GEOS's last error
} geos_run;

static void geos_error(const char* message, void* user)
{
	geos_run* g = user;
	snprintf(g->message, sizeof g->message, "%s", message);
}

static throng_status geos_fail(const geos_run* g, const char* who, const char* doing)
{
	return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: the walkable area: GEOS failed %s: %s", who, doing,
	                g->message[0] != '\0' ? g->message : "no message");
}

/// The polygon of obstacle k (vertices on the circle, the first at angle 0).
static GEOSGeometry* obstacle_polygon(geos_run* g, const double* o)
{
	const double pi = 3.14159265358979323846;
	uint32_t n = circle_sides(o[2]);
	GEOSCoordSequence* seq = GEOSCoordSeq_create_r(g->ctx, n + 1u, 2);
	if (seq == NULL) {
		return NULL;
	}
	for (uint32_t k = 0; k <= n; ++k) {
		double a = 2.0 * pi * (double)(k % n) / (double)n;
		GEOSCoordSeq_setXY_r(g->ctx, seq, k, o[0] + o[2] * cos(a), o[1] + o[2] * sin(a));
	}
	GEOSGeometry* ring = GEOSGeom_createLinearRing_r(g->ctx, seq);
	return ring != NULL ? GEOSGeom_createPolygon_r(g->ctx, ring, NULL, 0) : NULL;
}

/// Every obstacle's polygon and the walls' buffer, unioned; NULL on failure.
static GEOSGeometry* blockers(geos_run* g, const thr_walkable_shapes* s)
{
	GEOSGeometry** parts = malloc(((size_t)s->obstacles + 1u) * sizeof *parts);
	if (parts == NULL) {
		snprintf(g->message, sizeof g->message, "out of memory");
		return NULL;
	}
	uint32_t n = 0;
	bool ok = true;
	for (uint32_t k = 0; k < s->obstacles && ok; ++k) {
		parts[n] = obstacle_polygon(g, s->obstacle + 3u * k);
		ok = parts[n] != NULL;
		n += ok;
	}
	if (ok && s->walls > 0) {
		GEOSGeometry** lines = malloc((size_t)s->walls * sizeof *lines);
		uint32_t m = 0;
		ok = lines != NULL;
		if (!ok) {
			snprintf(g->message, sizeof g->message, "out of memory");
		}
		for (uint32_t k = 0; k < s->walls && ok; ++k) {
			const double* w = s->wall + 4u * k;
			GEOSCoordSequence* seq = GEOSCoordSeq_create_r(g->ctx, 2, 2);
			ok = seq != NULL;
			if (ok) {
				GEOSCoordSeq_setXY_r(g->ctx, seq, 0, w[0], w[1]);
				GEOSCoordSeq_setXY_r(g->ctx, seq, 1, w[2], w[3]);
				lines[m] = GEOSGeom_createLineString_r(g->ctx, seq);
				ok = lines[m] != NULL;
				m += ok;
			}
		}
		GEOSGeometry* multi = ok ? GEOSGeom_createCollection_r(g->ctx, GEOS_MULTILINESTRING, lines, m) : NULL;
		if (multi == NULL) {
			for (uint32_t k = 0; k < m; ++k) {
				GEOSGeom_destroy_r(g->ctx, lines[k]);
			}
			ok = false;
		}
		free(lines);
		if (ok) {
			// Round ends and joins, 2 segments a quarter turn: the buffer is
			// within h (1 - cos(pi / 8)) = 0.4 mm of the exact one.
			parts[n] = GEOSBufferWithStyle_r(g->ctx, multi, THR_WALKABLE_WALL_HALF_THICKNESS, 2, GEOSBUF_CAP_ROUND,
			                                 GEOSBUF_JOIN_ROUND, 5.0);
			GEOSGeom_destroy_r(g->ctx, multi);
			ok = parts[n] != NULL;
			n += ok;
		}
	}
	GEOSGeometry* all = ok ? GEOSGeom_createCollection_r(g->ctx, GEOS_GEOMETRYCOLLECTION, parts, n) : NULL;
	if (all == NULL) {
		for (uint32_t k = 0; k < n; ++k) {
			GEOSGeom_destroy_r(g->ctx, parts[k]);
		}
	}
	free(parts);
	if (all == NULL) {
		return NULL;
	}
	GEOSGeometry* u = GEOSUnaryUnion_r(g->ctx, all);
	GEOSGeom_destroy_r(g->ctx, all);
	return u;
}

/// The points piece p holds (its boundary included).
static uint32_t points_in(geos_run* g, const GEOSGeometry* p, thr_walkable_points pts)
{
	uint32_t n = 0;
	const GEOSPreparedGeometry* prep = pts.count > 0 ? GEOSPrepare_r(g->ctx, p) : NULL;
	for (uint32_t i = 0; prep != NULL && i < pts.count; ++i) {
		GEOSGeometry* q = GEOSGeom_createPointFromXY_r(g->ctx, (double)pts.x[i], (double)pts.y[i]);
		if (q != NULL) {
			n += GEOSPreparedIntersects_r(g->ctx, prep, q) == 1;
			GEOSGeom_destroy_r(g->ctx, q);
		}
	}
	if (prep != NULL) {
		GEOSPreparedGeom_destroy_r(g->ctx, prep);
	}
	return n;
}

/// Index of the piece kept: the one holding the most points; ties the
/// largest by area, then the lowest xmin, then ymin.
static int keep_piece(geos_run* g, const GEOSGeometry* area, int pieces, thr_walkable_points pts, double* kept,
                      double* total, uint32_t* inside)
{
	int best = 0;
	uint32_t best_n = 0;
	double best_a = -1.0, best_x = 0.0, best_y = 0.0;
	*total = 0.0;
	for (int k = 0; k < pieces; ++k) {
		const GEOSGeometry* p = GEOSGetGeometryN_r(g->ctx, area, k);
		double a = 0.0, x = 0.0, y = 0.0;
		GEOSArea_r(g->ctx, p, &a);
		GEOSGeom_getXMin_r(g->ctx, p, &x);
		GEOSGeom_getYMin_r(g->ctx, p, &y);
		uint32_t n = points_in(g, p, pts);
		*total += a;
		if (best_a < 0.0 || n > best_n ||
		    (n == best_n && (a > best_a || (a == best_a && (x < best_x || (x == best_x && y < best_y)))))) {
			best = k;
			best_n = n;
			best_a = a;
			best_x = x;
			best_y = y;
		}
	}
	*kept = best_a;
	*inside = best_n;
	return best;
}

/// The walkable geometry as the polygon to write (owned), or NULL.
static GEOSGeometry* walkable(geos_run* g, const thr_walkable_shapes* s, const double box[4], thr_walkable_points pts,
                              thr_walkable_info* info, const char* who, throng_status* st)
{
	*st = THRONG_OK;
	// The box's edges go outward to the grid, so that the snapped area
	// still covers the bounds and an agent held on an edge is inside.
	// (times 1e6, an exact double, so that an edge already on the grid,
	// 10 say, stays where it is).
	const double u = 1.0e6; // 1 / THR_WALKABLE_GRID
	GEOSGeometry* rect = GEOSGeom_createRectangle_r(g->ctx, floor(box[0] * u) / u, floor(box[1] * u) / u,
	                                                ceil(box[2] * u) / u, ceil(box[3] * u) / u);
	GEOSGeometry* cut = NULL;
	if (rect != NULL && (s->obstacles > 0 || s->walls > 0)) {
		GEOSGeometry* b = blockers(g, s);
		cut = b != NULL ? GEOSDifference_r(g->ctx, rect, b) : NULL;
		if (b != NULL) {
			GEOSGeom_destroy_r(g->ctx, b);
		}
		GEOSGeom_destroy_r(g->ctx, rect);
	} else {
		cut = rect;
	}
	GEOSGeometry* snapped = cut != NULL ? GEOSGeom_setPrecision_r(g->ctx, cut, THR_WALKABLE_GRID, 0) : NULL;
	if (cut != NULL) {
		GEOSGeom_destroy_r(g->ctx, cut);
	}
	if (snapped == NULL) {
		*st = geos_fail(g, who, "cutting the obstacles and walls out of the bounds");
		return NULL;
	}
	if (GEOSisEmpty_r(g->ctx, snapped) == 1) {
		GEOSGeom_destroy_r(g->ctx, snapped);
		*st = thr_fail(THRONG_ERR_INVALID_ARGUMENT,
		               "%s: the walkable area is empty: the %u obstacles and %u walls cover the bounds "
		               "(%g, %g)-(%g, %g)",
		               who, s->obstacles, s->walls, box[0], box[1], box[2], box[3]);
		return NULL;
	}
	int type = GEOSGeomTypeId_r(g->ctx, snapped);
	int pieces = type == GEOS_POLYGON ? 1 : GEOSGetNumGeometries_r(g->ctx, snapped);
	double kept = 0.0, total = 0.0;
	uint32_t inside = pts.count;
	GEOSGeometry* poly = NULL;
	if (type == GEOS_POLYGON) {
		GEOSArea_r(g->ctx, snapped, &kept);
		total = kept;
		poly = snapped;
	} else if (type == GEOS_MULTIPOLYGON || type == GEOS_GEOMETRYCOLLECTION) {
		int k = keep_piece(g, snapped, pieces, pts, &kept, &total, &inside);
		const GEOSGeometry* p = GEOSGetGeometryN_r(g->ctx, snapped, k);
		poly = GEOSGeomTypeId_r(g->ctx, p) == GEOS_POLYGON ? GEOSGeom_clone_r(g->ctx, p) : NULL;
		GEOSGeom_destroy_r(g->ctx, snapped);
	} else {
		GEOSGeom_destroy_r(g->ctx, snapped);
	}
	if (poly == NULL) {
		*st = geos_fail(g, who, "taking the polygon out of the cut area");
		return NULL;
	}
	// GEOS's normal form has the outer ring clockwise and the holes
	// counter-clockwise; reversed, it is the OGC orientation, each ring
	// still starting at the vertex the normal form starts it at.
	GEOSGeometry* out = NULL;
	if (GEOSNormalize_r(g->ctx, poly) == 0) {
		out = GEOSReverse_r(g->ctx, poly);
	}
	GEOSGeom_destroy_r(g->ctx, poly);
	if (out == NULL) {
		*st = geos_fail(g, who, "normalising the polygon");
		return NULL;
	}
	info->pieces = (uint32_t)pieces;
	info->inside = inside;
	info->holes = (uint32_t)GEOSGetNumInteriorRings_r(g->ctx, out);
	info->area = kept;
	info->dropped = total - kept;
	return out;
}

throng_status thr_walkable_wkt(const thr_walkable_shapes* s, const double box[4], thr_walkable_points points,
                               char** wkt, thr_walkable_info* info, const char* who)
{
	*wkt = NULL;
	memset(info, 0, sizeof *info);
	geos_run g;
	memset(&g, 0, sizeof g);
	g.ctx = GEOS_init_r();
	if (g.ctx == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: the walkable area: GEOS could not start (out of memory)", who);
	}
	GEOSContext_setErrorMessageHandler_r(g.ctx, geos_error, &g);
	throng_status st = THRONG_OK;
	GEOSGeometry* poly = walkable(&g, s, box, points, info, who, &st);
	char* text = NULL;
	if (poly != NULL) {
		GEOSWKTWriter* w = GEOSWKTWriter_create_r(g.ctx);
		if (w != NULL) {
			GEOSWKTWriter_setTrim_r(g.ctx, w, 1);
			GEOSWKTWriter_setRoundingPrecision_r(g.ctx, w, 6);
			GEOSWKTWriter_setOutputDimension_r(g.ctx, w, 2);
			text = GEOSWKTWriter_write_r(g.ctx, w, poly);
			GEOSWKTWriter_destroy_r(g.ctx, w);
		}
		GEOSGeom_destroy_r(g.ctx, poly);
		if (text == NULL) {
			st = geos_fail(&g, who, "writing the WKT");
		}
	}
	if (text != NULL) {
		*wkt = malloc(strlen(text) + 1u);
		if (*wkt == NULL) {
			st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory writing the walkable area", who);
		} else {
			strcpy(*wkt, text);
		}
		GEOSFree_r(g.ctx, text);
	}
	GEOS_finish_r(g.ctx);
	return st;
}
