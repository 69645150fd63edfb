// SPDX-License-Identifier: MIT
// Obstacle and wall feelers of the SIMD engine, 8 agents per vector.
//
// Shapes are sparse and the 8 agents of a block are close together (they
// are sorted by cell), so each shape near the block is loaded once and
// tested against all 8 feelers at once. "Near the block" is the shape grid
// cells under the box around the block's agents grown by the feeler's
// reach; when that box is large (the block straddles two grid rows) the
// lanes are scanned one by one instead. The candidate set is then a
// superset of what each agent's own query would list, and the exact hit
// tests below decide, so the result does not depend on the grouping.
//
// Each lane keeps the nearest hit (ties to the lower shape index) with the
// same float operations as thr_obstacle_avoid and thr_wall_avoid, and the
// force is formed from it with those operations too: the forces equal the
// scalar reference bit for bit.
#include <math.h>
#include <stddef.h>

#include "block.h"
#include "fmath.h"

/// Floats of one obstacle and of one wall: the chosen shapes' fields are
/// gathered from w->obstacles and w->walls at index times these.
#define OBSTACLE_FLOATS ((int32_t)(sizeof(thr_obstacle) / sizeof(float)))
#define WALL_FLOATS ((int32_t)(sizeof(thr_wall) / sizeof(float)))
_Static_assert(sizeof(thr_obstacle) == 3 * sizeof(float) && offsetof(thr_obstacle, c) == 0,
               "an obstacle is its centre x, y and its radius");
_Static_assert(sizeof(thr_wall) == 4 * sizeof(float) && offsetof(thr_wall, a) == 0 &&
                       offsetof(thr_wall, b) == 2 * sizeof(float),
               "a wall is its ends' x, y");

/// Grid cells a block-wide scan may visit per lane before it splits into
/// lanes (a lane alone visits about 9).
#define THR_BLOCK_SCAN_CELLS_PER_LANE 16

typedef struct cell_box {
	int32_t cx0, cx1, cy0, cy1;
} cell_box;

/// Cells of g under the box around the lanes of `bits` grown by reach plus
/// their largest radius (radius_too) or by reach alone. The box of all live
/// lanes was computed once for the block.
static cell_box box_of(const thr_box_grid* g, const thr_lanes* s, int bits, float reach, int radius_too)
{
	float x0, y0, x1, y1, r;
	if (bits == (1 << s->n) - 1) {
		x0 = s->box[0];
		y0 = s->box[1];
		x1 = s->box[2];
		y1 = s->box[3];
		r = s->box_r;
	} else {
		// The lanes of `bits` only (positions are never NaN, and a -0 or
		// +0 corner gives the same cells, so the order is free).
		const thr_mw m = thr_mw_from_bits(bits);
		const thr_fw x = thr_fw_loadu(s->lx), y = thr_fw_loadu(s->ly);
		x0 = thr_fw_hmin(thr_fw_select(m, x, thr_fw_set1(INFINITY)));
		y0 = thr_fw_hmin(thr_fw_select(m, y, thr_fw_set1(INFINITY)));
		x1 = thr_fw_hmax(thr_fw_select(m, x, thr_fw_set1(-INFINITY)));
		y1 = thr_fw_hmax(thr_fw_select(m, y, thr_fw_set1(-INFINITY)));
		r = thr_fw_hmax(thr_fw_select(m, thr_fw_loadu(s->lr), thr_fw_zero()));
	}
	float grow = radius_too ? reach + r : reach;
	cell_box b;
	b.cx0 = thr_grid_coord(x0 - grow, g->min_x, g->inv_cell, g->nx);
	b.cx1 = thr_grid_coord(x1 + grow, g->min_x, g->inv_cell, g->nx);
	b.cy0 = thr_grid_coord(y0 - grow, g->min_y, g->inv_cell, g->ny);
	b.cy1 = thr_grid_coord(y1 + grow, g->min_y, g->inv_cell, g->ny);
	return b;
}

/// The mask of lane l alone.
static thr_mw lane_mask(int l) { return thr_iw_eq(thr_iw_iota(), thr_iw_set1(l)); }

static int box_cells(cell_box b) { return (b.cx1 - b.cx0 + 1) * (b.cy1 - b.cy0 + 1); }

/// Keeps (key, index) where it beats the lane's best: smaller key, or the
/// same key and a smaller index.
static void keep_best(thr_mw hit, thr_fw key, thr_iw idx, thr_fw* best_key, thr_iw* best_idx)
{
	thr_mw better = thr_mw_or(thr_fw_lt(key, *best_key), thr_mw_and(thr_fw_eq(key, *best_key), thr_iw_lt(idx, *best_idx)));
	better = thr_mw_and(hit, better);
	*best_key = thr_fw_select(better, key, *best_key);
	*best_idx = thr_iw_select(better, idx, *best_idx);
}

/// Counts a scan of the cells of `box`: its cells, and each shape in them
/// tested on every lane.
static void count_scan(const thr_box_grid* g, cell_box box, uint64_t* cells, uint64_t* tests)
{
	*cells += (uint64_t)box_cells(box);
	for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx, b, e;
		thr_box_grid_span(g, row + (uint32_t)box.cx0, row + (uint32_t)box.cx1, &b, &e);
		*tests += THR_LANES * (uint64_t)(e - b);
	}
}

static void scan_obstacles(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw m, thr_v2w H, float look_ahead,
                           cell_box box, thr_fw* best_along, thr_iw* best_idx)
{
	const thr_box_grid* g = &ctx->w->obstacle_grid;
	const thr_shape_soa* o = ctx->obstacles;
	const thr_fw L = thr_fw_set1(look_ahead);
	const thr_fw ZERO = thr_fw_zero();
	for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
		// The row's cells at once (contiguous in items): empty rows read
		// only the occupancy bits.
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx, b, e;
		thr_box_grid_span(g, row + (uint32_t)box.cx0, row + (uint32_t)box.cx1, &b, &e);
		for (uint32_t k = b; k < e; ++k) {
			thr_v2w c = v2w(thr_fw_set1(o->a[k]), thr_fw_set1(o->b[k]));
			thr_fw along = v2w_dot(v2w_sub(c, s->p), H);
			thr_mw ok = thr_mw_andnot(m, thr_mw_or(thr_fw_lt(along, ZERO), thr_fw_gt(along, L)));
			thr_fw lateral = v2w_length(v2w_sub(c, v2w_add(s->p, v2w_scale(H, along))));
			ok = thr_mw_and(ok, thr_fw_lt(lateral, thr_fw_add(thr_fw_set1(o->c[k]), s->radius)));
			keep_best(ok, along, thr_iw_set1(o->index[k]), best_along, best_idx);
		}
	}
}

/// Lanes of m that move (|v| >= eps): feelers of resting agents are off.
static thr_mw moving_lanes(const thr_lanes* s, thr_mw m)
{
	return thr_mw_andnot(m, thr_fw_lt(s->speed, thr_fw_set1(THR_EPS)));
}

/// thr_obstacles_w, counting into *counts unless it is NULL (inlined with
/// NULL into thr_obstacles_w, and into obstacles_counted).
THR_WIDE_INLINE thr_v2w obstacles_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead,
                                    throng_world_counters* counts)
{
	const throng_world* w = ctx->w;
	thr_mw m = moving_lanes(s, mask);
	if (w->obstacle_grid.n_items == 0 || !thr_mw_any(m)) {
		return v2w_zero();
	}
	if (counts != NULL) {
		counts->obstacle_scans += THR_LANES;
	}
	thr_v2w H = s->unit; // thr_obstacle_avoid's v * (1 / |v|) on the moving lanes
	thr_fw best_along = thr_fw_set1(INFINITY);
	thr_iw best_idx = thr_iw_set1(INT32_MAX);
	int bits = thr_mw_movemask(m);
	cell_box box = box_of(&w->obstacle_grid, s, bits, look_ahead, 1);
	if (box_cells(box) <= THR_BLOCK_SCAN_CELLS_PER_LANE * __builtin_popcount((unsigned)bits)) {
		if (counts != NULL) {
			count_scan(&w->obstacle_grid, box, &counts->obstacle_cells, &counts->obstacle_tests);
		}
		scan_obstacles(ctx, s, m, H, look_ahead, box, &best_along, &best_idx);
	} else {
		for (int l = 0; l < THR_LANES; ++l) {
			if (bits & (1 << l)) {
				cell_box one = box_of(&w->obstacle_grid, s, 1 << l, look_ahead, 1);
				if (counts != NULL) {
					count_scan(&w->obstacle_grid, one, &counts->obstacle_cells, &counts->obstacle_tests);
				}
				scan_obstacles(ctx, s, thr_mw_and(m, lane_mask(l)), H, look_ahead, one, &best_along, &best_idx);
			}
		}
	}
	thr_mw hit = thr_mw_not(thr_iw_eq(best_idx, thr_iw_set1(INT32_MAX)));
	if (!thr_mw_any(hit)) {
		return v2w_zero();
	}
	if (counts != NULL) {
		counts->obstacle_hit_lanes += THR_LANES;
	}
	// The chosen obstacle's centre per lane, then thr_obstacle_avoid's force.
	// Lanes without a hit read obstacle 0 and are masked off below.
	const thr_iw at = thr_iw_mul(thr_iw_select(hit, best_idx, thr_iw_zero()), thr_iw_set1(OBSTACLE_FLOATS));
	const float* ob = (const float*)(const void*)w->obstacles;
	thr_v2w c = v2w(thr_fw_gather(ob, at), thr_fw_gather(ob + 1, at));
	thr_v2w side = v2w_perp(H);
	thr_fw dside = v2w_dot(side, v2w_sub(c, s->p));
	thr_fw sign = thr_fw_select(thr_fw_gt(dside, thr_fw_zero()), thr_fw_set1(-1.0f), thr_fw_set1(1.0f));
	thr_fw urgency = thr_fw_sub(thr_fw_set1(1.0f), thr_fw_div(best_along, thr_fw_set1(look_ahead)));
	thr_v2w f = v2w_scale(side, thr_fw_mul(thr_fw_mul(sign, s->ms), urgency));
	return v2w_select(hit, f, v2w_zero());
}

static __attribute__((noinline)) thr_v2w obstacles_counted(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask,
                                                           float look_ahead, throng_world_counters* counts)
{
	return obstacles_w(ctx, s, mask, look_ahead, counts);
}

thr_v2w thr_obstacles_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead,
                        throng_world_counters* counts)
{
	return counts != NULL ? obstacles_counted(ctx, s, mask, look_ahead, counts)
	                      : obstacles_w(ctx, s, mask, look_ahead, NULL);
}

/// The three feelers of thr_wall_avoid per lane.
typedef struct feelers {
	thr_v2w dir[3];
	float len[3];
	thr_fw best_t[3];
	thr_iw best_idx[3];
} feelers;

static void scan_walls(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw m, feelers* fl, cell_box box)
{
	const thr_box_grid* g = &ctx->w->wall_grid;
	const thr_shape_soa* wl = ctx->walls;
	const thr_fw ZERO = thr_fw_zero();
	const thr_fw ONE = thr_fw_set1(1.0f);
	const thr_fw EPS = thr_fw_set1(THR_EPS);
	for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx, b, e;
		thr_box_grid_span(g, row + (uint32_t)box.cx0, row + (uint32_t)box.cx1, &b, &e);
		for (uint32_t k = b; k < e; ++k) {
			thr_v2w a = v2w(thr_fw_set1(wl->a[k]), thr_fw_set1(wl->b[k]));
			thr_v2w ed = v2w(thr_fw_set1(wl->c[k] - wl->a[k]), thr_fw_set1(wl->d[k] - wl->b[k]));
			thr_v2w ap = v2w_sub(a, s->p);
			thr_iw idx = thr_iw_set1(wl->index[k]);
			for (int f = 0; f < 3; ++f) {
				// feeler_hit of behaviors.c, lane by lane.
				thr_v2w d = fl->dir[f];
				thr_fw denom = thr_fw_sub(thr_fw_mul(d.x, ed.y), thr_fw_mul(d.y, ed.x));
				thr_mw ok = thr_mw_andnot(m, thr_fw_lt(thr_fw_abs(denom), EPS));
				thr_fw t = thr_fw_div(thr_fw_sub(thr_fw_mul(ap.x, ed.y), thr_fw_mul(ap.y, ed.x)), denom);
				thr_fw u = thr_fw_div(thr_fw_sub(thr_fw_mul(ap.x, d.y), thr_fw_mul(ap.y, d.x)), denom);
				thr_mw miss = thr_mw_or(thr_mw_or(thr_fw_lt(t, ZERO), thr_fw_gt(t, thr_fw_set1(fl->len[f]))),
				                        thr_mw_or(thr_fw_lt(u, ZERO), thr_fw_gt(u, ONE)));
				keep_best(thr_mw_andnot(ok, miss), t, idx, &fl->best_t[f], &fl->best_idx[f]);
			}
		}
	}
}

/// thr_walls_w, counting into *c unless it is NULL (inlined with NULL into
/// thr_walls_w, and into walls_counted).
THR_WIDE_INLINE thr_v2w walls_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead,
                                float feeler_angle, throng_world_counters* c)
{
	const throng_world* w = ctx->w;
	thr_mw m = moving_lanes(s, mask);
	if (w->wall_grid.n_items == 0 || !thr_mw_any(m)) {
		return v2w_zero();
	}
	// A feeler hits a wall at most look_ahead from the agent: where the
	// clearance of the agent's cell is beyond that, no feeler can hit
	// (what thr_near_wall does for the headway's cone), and the lane
	// needs no scan. Most agents stand far from every wall.
	thr_mw in;
	thr_iw cx, cy;
	m = thr_mw_andnot(m, thr_fw_lt(thr_fw_set1(look_ahead), thr_clearance_w(w, s->p, &in, &cx, &cy)));
	if (!thr_mw_any(m)) {
		return v2w_zero();
	}
	if (c != NULL) {
		c->wall_scans += THR_LANES;
	}
	thr_v2w H = s->unit; // thr_wall_avoid's v * (1 / |v|) on the moving lanes
	float sn, cs;
	thr_sincosf(feeler_angle, &sn, &cs);
	thr_fw C = thr_fw_set1(cs), S = thr_fw_set1(sn), NS = thr_fw_set1(-sn);
	feelers fl;
	fl.dir[0] = H;
	// thr_rotate(h, c, s) = (h.x*c - h.y*s, h.x*s + h.y*c)
	fl.dir[1] = v2w(thr_fw_sub(thr_fw_mul(H.x, C), thr_fw_mul(H.y, S)), thr_fw_add(thr_fw_mul(H.x, S), thr_fw_mul(H.y, C)));
	fl.dir[2] = v2w(thr_fw_sub(thr_fw_mul(H.x, C), thr_fw_mul(H.y, NS)), thr_fw_add(thr_fw_mul(H.x, NS), thr_fw_mul(H.y, C)));
	fl.len[0] = look_ahead;
	fl.len[1] = look_ahead * 0.5f;
	fl.len[2] = look_ahead * 0.5f;
	for (int f = 0; f < 3; ++f) {
		fl.best_t[f] = thr_fw_set1(INFINITY);
		fl.best_idx[f] = thr_iw_set1(INT32_MAX);
	}
	int bits = thr_mw_movemask(m);
	cell_box box = box_of(&w->wall_grid, s, bits, look_ahead, 0);
	if (box_cells(box) <= THR_BLOCK_SCAN_CELLS_PER_LANE * __builtin_popcount((unsigned)bits)) {
		if (c != NULL) {
			count_scan(&w->wall_grid, box, &c->wall_cells, &c->wall_tests);
		}
		scan_walls(ctx, s, m, &fl, box);
	} else {
		for (int l = 0; l < THR_LANES; ++l) {
			if (bits & (1 << l)) {
				cell_box one = box_of(&w->wall_grid, s, 1 << l, look_ahead, 0);
				if (c != NULL) {
					count_scan(&w->wall_grid, one, &c->wall_cells, &c->wall_tests);
				}
				scan_walls(ctx, s, thr_mw_and(m, lane_mask(l)), &fl, one);
			}
		}
	}
	thr_v2w force = v2w_zero();
	for (int f = 0; f < 3; ++f) {
		thr_mw hit = thr_mw_not(thr_iw_eq(fl.best_idx[f], thr_iw_set1(INT32_MAX)));
		if (!thr_mw_any(hit)) {
			continue;
		}
		if (c != NULL) {
			c->wall_hit_lanes += THR_LANES;
		}
		// Lanes without a hit read wall 0 and are masked off below.
		const thr_iw at = thr_iw_mul(thr_iw_select(hit, fl.best_idx[f], thr_iw_zero()), thr_iw_set1(WALL_FLOATS));
		const float* wf = (const float*)(const void*)w->walls;
		thr_v2w a = v2w(thr_fw_gather(wf, at), thr_fw_gather(wf + 1, at));
		thr_v2w b = v2w(thr_fw_gather(wf + 2, at), thr_fw_gather(wf + 3, at));
		thr_v2w n = v2w_perp(v2w_normalize(v2w_sub(b, a)));
		thr_mw flip = thr_fw_lt(v2w_dot(n, v2w_sub(s->p, a)), thr_fw_zero());
		n = v2w_select(flip, v2w_scale(n, thr_fw_set1(-1.0f)), n);
		thr_fw urgency = thr_fw_sub(thr_fw_set1(1.0f), thr_fw_div(fl.best_t[f], thr_fw_set1(fl.len[f])));
		// The speed towards the wall (thr_wall_avoid): a select, not a max,
		// so that -0 becomes +0 as in the reference.
		thr_fw closing = thr_fw_neg(v2w_dot(s->v, n));
		closing = thr_fw_select(thr_fw_gt(closing, thr_fw_zero()), closing, thr_fw_zero());
		force = v2w_select(hit, v2w_add(force, v2w_scale(n, thr_fw_mul(closing, urgency))), force);
	}
	return force;
}

static __attribute__((noinline)) thr_v2w walls_counted(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask,
                                                       float look_ahead, float feeler_angle, throng_world_counters* c)
{
	return walls_w(ctx, s, mask, look_ahead, feeler_angle, c);
}

thr_v2w thr_walls_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead, float feeler_angle,
                    throng_world_counters* c)
{
	return c != NULL ? walls_counted(ctx, s, mask, look_ahead, feeler_angle, c)
	                 : walls_w(ctx, s, mask, look_ahead, feeler_angle, NULL);
}
