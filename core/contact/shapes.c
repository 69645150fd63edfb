// SPDX-License-Identifier: MIT
// The contact stage's shapes (internal.h has the design): agents kept out
// of obstacles and on their side of every wall, swept from the previous
// position.
#include <math.h>

#include "internal.h"

/// Rounds of obstacle and wall resolution at the end of the stage.
#define THR_SHAPE_ROUNDS 4

static float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }

/// p out of obstacle o (agent radius r): onto the circle of radius o.r + r
/// around the centre, along the centre-to-p direction (or from the centre
/// towards p0, or +x, when p is the centre).
static vec2 leave_obstacle(const thr_obstacle* o, vec2 p0, vec2 p, float r, int* moved)
{
	const float rs = o->r + r;
	const vec2 d = v2_sub(p, o->c);
	const float d2 = v2_dot(d, d);
	if (!(d2 < rs * rs)) {
		return p;
	}
	*moved = 1;
	const float tiny = THR_COINCIDENT * rs;
	if (d2 > tiny * tiny) {
		return v2_add(o->c, v2_scale(d, rs / sqrtf(d2)));
	}
	vec2 e = v2_sub(p0, o->c);
	vec2 dir = v2_dot(e, e) > tiny * tiny ? v2_normalize(e) : v2(1.0f, 0.0f);
	return v2_add(o->c, v2_scale(dir, rs));
}

/// Whether the path p0 -> p crosses (or touches) segment l, with p0 off
/// the segment's line.
static bool crosses(const thr_wall* l, vec2 p0, vec2 p)
{
	const vec2 ab = v2_sub(l->b, l->a);
	const float o1 = cross2(ab, v2_sub(p0, l->a));
	const float o2 = cross2(ab, v2_sub(p, l->a));
	if (o1 == 0.0f || (o2 != 0.0f && (o1 > 0.0f) == (o2 > 0.0f))) {
		return false;
	}
	const vec2 m = v2_sub(p, p0);
	const float o3 = cross2(m, v2_sub(l->a, p0));
	const float o4 = cross2(m, v2_sub(l->b, p0));
	return (o3 <= 0.0f && o4 >= 0.0f) || (o3 >= 0.0f && o4 <= 0.0f);
}

/// p kept on p0's side of wall l, at least r from it. Where the path
/// p0 -> p crossed the segment, or p lies beside the segment's inside, p
/// is moved along the normal towards p0's side to distance r; near an
/// end (or when p0 lies on the wall's line), it is pushed radially out of
/// the circle of radius r around the nearest point.
static vec2 leave_wall(const thr_wall* l, vec2 p0, vec2 p, float r, int* moved)
{
	const vec2 ab = v2_sub(l->b, l->a);
	const float len2 = v2_dot(ab, ab);
	const vec2 ap = v2_sub(p, l->a);
	const float o1 = cross2(ab, v2_sub(p0, l->a));
	float t = len2 > 0.0f ? v2_dot(ap, ab) / len2 : 0.0f;
	if (o1 != 0.0f && len2 > 0.0f) {
		const float len = sqrtf(len2);
		const float sgn = o1 > 0.0f ? 1.0f : -1.0f;
		const vec2 n = v2(-ab.y / len * sgn, ab.x / len * sgn); // unit normal towards p0's side
		const float hd = v2_dot(n, ap);                         // signed distance of p, + on p0's side
		if ((t > 0.0f && t < 1.0f) || crosses(l, p0, p)) {
			if (hd < r) {
				*moved = 1;
				return v2_add(p, v2_scale(n, r - hd));
			}
			return p;
		}
	}
	t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
	const vec2 c = v2_add(l->a, v2_scale(ab, t));
	const vec2 d = v2_sub(p, c);
	const float d2 = v2_dot(d, d);
	if (!(d2 < r * r)) {
		return p;
	}
	*moved = 1;
	const float tiny = THR_COINCIDENT * r;
	if (d2 > tiny * tiny) {
		return v2_add(c, v2_scale(d, r / sqrtf(d2)));
	}
	vec2 e = v2_sub(p0, c);
	vec2 dir = v2_dot(e, e) > tiny * tiny ? v2_normalize(e) : (len2 > 0.0f ? v2_normalize(v2_perp(ab)) : v2(1.0f, 0.0f));
	return v2_add(c, v2_scale(dir, r));
}

/// The cell range of shape grid g around the path p0 -> p widened by r.
static void path_range(const thr_box_grid* g, vec2 p0, vec2 p, float r, int32_t* cx0, int32_t* cx1, int32_t* cy0,
                       int32_t* cy1)
{
	const float hx = 0.5f * fabsf(p.x - p0.x), hy = 0.5f * fabsf(p.y - p0.y);
	const float h = (hx > hy ? hx : hy) + r;
	thr_box_grid_range(g, 0.5f * (p.x + p0.x), 0.5f * (p.y + p0.y), h, cx0, cx1, cy0, cy1);
}

/// One round: p out of every obstacle near it, then kept on p0's side of
/// every wall near the path. Shapes are visited in their grids' order,
/// cells row by row (a row's cells list their shapes one after the other in
/// `items`, so one span per row visits them in the same order as cell by
/// cell): the order matters, each push starts from the last. A shape in
/// several cells is met once per cell: a second visit finds nothing left
/// to do but float rounding.
vec2 thr_shape_round(const throng_world* w, vec2 p0, vec2 p, float r, int* moved)
{
	int32_t cx0, cx1, cy0, cy1;
	uint32_t b, e;
	if (w->obstacle_count > 0) {
		const thr_box_grid* g = &w->obstacle_grid;
		thr_box_grid_range(g, p.x, p.y, r, &cx0, &cx1, &cy0, &cy1);
		for (int32_t cy = cy0; cy <= cy1; ++cy) {
			const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
			thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e);
			for (uint32_t k = b; k < e; ++k) {
				p = leave_obstacle(&w->obstacles[g->items[k]], p0, p, r, moved);
			}
		}
	}
	if (w->wall_count > 0) {
		const thr_box_grid* g = &w->wall_grid;
		path_range(g, p0, p, r, &cx0, &cx1, &cy0, &cy1);
		for (int32_t cy = cy0; cy <= cy1; ++cy) {
			const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
			thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e);
			for (uint32_t k = b; k < e; ++k) {
				p = leave_wall(&w->walls[g->items[k]], p0, p, r, moved);
			}
		}
	}
	return p;
}

/// Whether a disc of radius r at p lies in an obstacle by more than 1e-5 of
/// the radii sum (the pushes above leave it within float rounding of the
/// circle).
static bool inside_obstacle(const throng_world* w, vec2 p, float r)
{
	if (w->obstacle_count == 0) {
		return false;
	}
	const thr_box_grid* g = &w->obstacle_grid;
	int32_t cx0, cx1, cy0, cy1;
	thr_box_grid_range(g, p.x, p.y, r, &cx0, &cx1, &cy0, &cy1);
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b, e;
		thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e);
		for (uint32_t k = b; k < e; ++k) {
			const thr_obstacle* o = &w->obstacles[g->items[k]];
			const vec2 d = v2_sub(p, o->c);
			const float rs = (o->r + r) * (1.0f - 1.0e-5f);
			if (v2_dot(d, d) < rs * rs) {
				return true;
			}
		}
	}
	return false;
}

/// Whether the path p0 -> p crosses any wall.
static bool crosses_any(const throng_world* w, vec2 p0, vec2 p)
{
	if (w->wall_count == 0) {
		return false;
	}
	const thr_box_grid* g = &w->wall_grid;
	int32_t cx0, cx1, cy0, cy1;
	path_range(g, p0, p, 0.0f, &cx0, &cx1, &cy0, &cy1);
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b, e;
		thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e);
		for (uint32_t k = b; k < e; ++k) {
			if (crosses(&w->walls[g->items[k]], p0, p)) {
				return true;
			}
		}
	}
	return false;
}

/// p kept out of the obstacles and on its side of every wall, swept from
/// p0 (agent radius r); the THR_SHAPES_* bits of what happened in *what.
vec2 thr_keep_out(const throng_world* w, vec2 p0, vec2 p, float r, uint8_t* what)
{
	if (thr_clear_of_shapes(w, p0, p, r)) {
		*what = THR_SHAPES_CLEAR;
		return p;
	}
	int moved = 0;
	for (int round = 0; round < THR_SHAPE_ROUNDS; ++round) {
		int again = 0;
		p = thr_shape_round(w, p0, p, r, &again);
		moved |= again;
		if (!again) {
			break;
		}
	}
	*what = moved ? THR_SHAPES_PUSHED : 0u;
	// Still across a wall, or still in an obstacle (a gap narrower than
	// the agent between two of them, or an obstacle against a wall):
	// where it was, which it reached without crossing a wall, and outside
	// the obstacles unless it started in one. A path no shape moved
	// crosses no wall and ends in no obstacle (a crossing puts the agent
	// at most 0 from the wall's line, which moves it), so only moved
	// agents are checked.
	if (moved && (crosses_any(w, p0, p) || (inside_obstacle(w, p, r) && !inside_obstacle(w, p0, r)))) {
		*what |= THR_SHAPES_REVERTED;
		return p0;
	}
	return p;
}

uint8_t thr_contact_shapes(const thr_step_ctx* ctx, uint32_t i)
{
	const throng_world* w = ctx->w;
	const vec2 ps = v2(ctx->ns->px[i], ctx->ns->py[i]);
	uint8_t what = 0;
	const vec2 p = thr_keep_out(w, thr_previous_position(w, ctx->cs, i, ps), ps, w->radius[i], &what);
	if (!(what & THR_SHAPES_CLEAR)) {
		ctx->shaped_x[i] = p.x;
		ctx->shaped_y[i] = p.y;
	}
	return what;
}

