// SPDX-License-Identifier: MIT
// The quality metrics' shape figures (metrics_shapes.h).
//
// Design: a path is tested only against the walls near it, and a disc only
// against the shapes near it, through two uniform grids of this module's
// own (grid.h: a box goes into every cell it overlaps) laid over the
// shapes' extent. They are built from copies of the world's shapes and
// rebuilt only when those change: the world bumps shape_version each time
// it rebuilds its own shape grids after a change (which sets shapes_dirty),
// so a clean world with the version last seen has the shapes last copied,
// and anything else is settled by comparing the copies. The world's own
// grids are not borrowed: they are stale between a change and the next
// step, and their cells follow the feelers' look-ahead, not a step's length.
//
// A wall spans several cells, so a path's cells can list it more than
// once: it is tested only in the lowest cell (x, then y) that both the
// path's range and the wall's hold, which exists once. Penetrations are
// yes-or-no per agent-state, so a shape listed twice does no harm there.
//
// Sides are exact: thr_orient computes the sign of the orientation
// determinant without rounding error, so a touch, an end point met exactly
// or a path along a wall is classified by its definition, the same on every
// build. Figures are integer counts and a maximum: the same in any order.
#include "metrics_shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "throng/metrics.h"
#include "world_internal.h"

/// Most cells of one of the watch's grids (4 MiB of offsets).
#define THR_SHAPE_MAX_CELLS (1u << 20)

/// s + e == a + b exactly (Knuth's two-sum; round to nearest, no overflow).
static void two_sum(double a, double b, double* s, double* e)
{
	double x = a + b;
	double bv = x - a;
	double av = x - bv;
	*e = (a - av) + (b - bv);
	*s = x;
}

int thr_orient(vec2 a, vec2 b, vec2 p)
{
	// (b - a) x (p - a) expanded: the a.x * a.y terms cancel and six
	// products of two floats remain, each exact in a double (48 significant
	// bits, between 2^-298 and 2^256: no underflow, no overflow).
	const double t[6] = {(double)b.x * p.y, -((double)b.x * a.y), -((double)a.x * p.y),
	                     -((double)b.y * p.x), (double)b.y * a.x, (double)a.y * p.x};
	// Filter: the plain sum's error is below 6 * 2^-53 of the terms'
	// magnitude, so a sum well above that has the right sign.
	double sum = 0.0, mag = 0.0;
	for (int k = 0; k < 6; ++k) {
		sum += t[k];
		mag += fabs(t[k]);
	}
	if (fabs(sum) > 1e-14 * mag) {
		return sum > 0.0 ? 1 : -1;
	}
	// Exact: add the terms one by one into an expansion, a list of doubles
	// whose sum is exact, non-overlapping and growing in magnitude (zeros
	// aside), so its sign is the sign of its last non-zero element.
	double h[6];
	int n = 0;
	for (int k = 0; k < 6; ++k) {
		double q = t[k];
		for (int i = 0; i < n; ++i) {
			two_sum(q, h[i], &q, &h[i]);
		}
		h[n++] = q;
	}
	for (int i = n - 1; i >= 0; --i) {
		if (h[i] != 0.0) {
			return h[i] > 0.0 ? 1 : -1;
		}
	}
	return 0;
}

bool thr_path_crosses_wall(vec2 p, vec2 q, vec2 a, vec2 b)
{
	int sp = thr_orient(a, b, p);
	if (sp == 0 || thr_orient(a, b, q) == sp) {
		return false; // from the wall's line (its arrival counted), or staying on one side
	}
	// p and q on both sides of the wall's line, or q on it (so p != q):
	// the path meets the segment when a and b are not on one side of it.
	return thr_orient(p, q, a) * thr_orient(p, q, b) <= 0;
}

/// The float nearest v that is <= v (>= v for round_up): a shape's box in
/// float holds the whole shape.
static float round_down(double v)
{
	float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

static float round_up(double v)
{
	float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

void thr_shape_watch_free(thr_shape_watch* s)
{
	free(s->obstacles);
	free(s->item_obstacles);
	free(s->walls);
	free(s->wall_cell);
	thr_box_grid_free(&s->obstacle_grid);
	thr_box_grid_free(&s->wall_grid);
	memset(s, 0, sizeof *s);
}

/// Makes room for `need` elements of `size` bytes in *p; -1 when out of memory.
static int reserve(void** p, uint32_t* cap, uint32_t need, size_t size)
{
	if (need <= *cap) {
		return 0;
	}
	void* q = realloc(*p, (size_t)need * size);
	if (q == NULL) {
		return -1;
	}
	*p = q;
	*cap = need;
	return 0;
}

/// Lays g over the n boxes and fills it; -1 when out of memory.
static int build_grid(thr_box_grid* g, const float* x0, const float* y0, const float* x1, const float* y1, uint32_t n,
                      float cell)
{
	if (n == 0) {
		g->n_items = 0;
		return 0;
	}
	float lo_x = x0[0], lo_y = y0[0], hi_x = x1[0], hi_y = y1[0];
	for (uint32_t i = 1; i < n; ++i) {
		lo_x = fminf(lo_x, x0[i]);
		lo_y = fminf(lo_y, y0[i]);
		hi_x = fmaxf(hi_x, x1[i]);
		hi_y = fmaxf(hi_y, y1[i]);
	}
	uint64_t cells = 16u * (uint64_t)n + 4096u;
	thr_box_grid_layout(g, lo_x, lo_y, hi_x, hi_y, cell, cells < THR_SHAPE_MAX_CELLS ? (uint32_t)cells : THR_SHAPE_MAX_CELLS);
	return thr_box_grid_build(g, x0, y0, x1, y1, n);
}

/// Copies the world's shapes and builds both grids.
static int rebuild(thr_shape_watch* s, const throng_world* w)
{
	s->built = false;
	s->n_obstacles = s->n_walls = 0;
	uint32_t no = w->obstacle_count, nw = w->wall_count, n = no > nw ? no : nw;
	if (reserve((void**)&s->obstacles, &s->cap_obstacles, no, sizeof *s->obstacles) ||
	    reserve((void**)&s->walls, &s->cap_walls, nw, sizeof *s->walls)) {
		return -1;
	}
	int32_t* wall_cell = realloc(s->wall_cell, (size_t)(nw > 0 ? nw : 1) * 2u * sizeof *wall_cell);
	if (wall_cell == NULL) {
		return -1;
	}
	s->wall_cell = wall_cell;
	float* box = malloc((size_t)(n > 0 ? n : 1) * 4u * sizeof *box);
	if (box == NULL) {
		return -1;
	}
	if (no > 0) {
		memcpy(s->obstacles, w->obstacles, no * sizeof *s->obstacles);
	}
	if (nw > 0) {
		memcpy(s->walls, w->walls, nw * sizeof *s->walls);
	}
	// Cells of a few agent diameters: a step's path and its disc span one
	// to four of them. At least 1 m, as the world's shape grids.
	float cell = fmaxf(1.0f, 4.0f * w->max_radius);
	float *x0 = box, *y0 = box + n, *x1 = box + 2u * n, *y1 = box + 3u * n;
	for (uint32_t i = 0; i < no; ++i) {
		const thr_obstacle* o = &s->obstacles[i];
		x0[i] = round_down((double)o->c.x - o->r);
		y0[i] = round_down((double)o->c.y - o->r);
		x1[i] = round_up((double)o->c.x + o->r);
		y1[i] = round_up((double)o->c.y + o->r);
	}
	int fail = build_grid(&s->obstacle_grid, x0, y0, x1, y1, no, cell);
	const uint32_t items = no > 0 && !fail ? s->obstacle_grid.n_items : 0u;
	fail = fail || reserve((void**)&s->item_obstacles, &s->cap_item_obstacles, items, sizeof *s->item_obstacles);
	for (uint32_t k = 0; k < items && !fail; ++k) {
		s->item_obstacles[k] = s->obstacles[s->obstacle_grid.items[k]];
	}
	for (uint32_t i = 0; i < nw; ++i) {
		const thr_wall* l = &s->walls[i];
		x0[i] = fminf(l->a.x, l->b.x);
		y0[i] = fminf(l->a.y, l->b.y);
		x1[i] = fmaxf(l->a.x, l->b.x);
		y1[i] = fmaxf(l->a.y, l->b.y);
	}
	fail = fail || build_grid(&s->wall_grid, x0, y0, x1, y1, nw, cell);
	for (uint32_t i = 0; i < nw && !fail; ++i) {
		thr_cell_range c = thr_box_grid_cells(&s->wall_grid, x0[i], y0[i], x1[i], y1[i]);
		s->wall_cell[2u * i] = c.x0;
		s->wall_cell[2u * i + 1u] = c.y0;
	}
	free(box);
	if (fail) {
		return -1;
	}
	s->n_obstacles = no;
	s->n_walls = nw;
	s->built = true;
	return 0;
}

int thr_shape_watch_sync(thr_shape_watch* s, const throng_world* w)
{
	const throng_world_def* d = &w->def;
	s->wrap = d->bounds_mode == THRONG_BOUNDS_WRAP;
	s->period_x = d->bounds_max.x - d->bounds_min.x;
	s->period_y = d->bounds_max.y - d->bounds_min.y;
	if (s->built && !w->shapes_dirty && w->shape_version == s->version) {
		return 0;
	}
	bool same = s->built && s->n_obstacles == w->obstacle_count && s->n_walls == w->wall_count &&
	            (s->n_obstacles == 0 || memcmp(s->obstacles, w->obstacles, s->n_obstacles * sizeof *s->obstacles) == 0) &&
	            (s->n_walls == 0 || memcmp(s->walls, w->walls, s->n_walls * sizeof *s->walls) == 0);
	s->version = w->shape_version;
	return same ? 0 : rebuild(s, w);
}

/// A box [x0, x1] x [y0, y1] (m).
typedef struct box {
	float x0, y0, x1, y1;
} box;

/// A box around the disc of centre q and radius r: grown by r 2^-20 +
/// |q| 2^-22, more than rounding its bounds to float can take off it, so it
/// holds the whole disc without a rounding mode (the grid only picks the
/// candidates; each is then tested exactly).
static box disc_box(vec2 q, float r)
{
	double gx = (double)r * (1.0 + 0x1p-20) + fabs((double)q.x) * 0x1p-22;
	double gy = (double)r * (1.0 + 0x1p-20) + fabs((double)q.y) * 0x1p-22;
	return (box){(float)(q.x - gx), (float)(q.y - gy), (float)(q.x + gx), (float)(q.y + gy)};
}

/// The box around the segment from p to q.
static box path_box(vec2 p, vec2 q)
{
	return (box){fminf(p.x, q.x), fminf(p.y, q.y), fmaxf(p.x, q.x), fmaxf(p.y, q.y)};
}

/// Whether the disc (centre q, radius r, its box `b`) reaches into an
/// obstacle beyond the tolerance; the deepest such overlap into *t.
static void obstacle_penetration(const thr_shape_watch* s, vec2 q, float r, box b, thr_shape_tally* t)
{
	const thr_box_grid* g = &s->obstacle_grid;
	thr_cell_range c = thr_box_grid_cells(g, b.x0, b.y0, b.x1, b.y1);
	double deepest = -1.0;
	for (int32_t cy = c.y0; cy <= c.y1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx, kb, ke;
		thr_box_grid_span(g, row + (uint32_t)c.x0, row + (uint32_t)c.x1, &kb, &ke); // the row's cells at once
		for (uint32_t k = kb; k < ke; ++k) {
			const thr_obstacle* o = &s->item_obstacles[k];
			double dx = (double)q.x - o->c.x, dy = (double)q.y - o->c.y;
			double sum = (double)o->r + r;
			double lim = sum * (1.0 - THRONG_PENETRATION_TOLERANCE);
			double d2 = dx * dx + dy * dy;
			if (d2 < lim * lim) {
				double depth = 1.0 - sqrt(d2) / sum;
				deepest = depth > deepest ? depth : deepest;
			}
		}
	}
	if (deepest >= 0.0) {
		t->obstacle_penetrations++;
		t->deepest_obstacle = deepest > t->deepest_obstacle ? deepest : t->deepest_obstacle;
	}
}

/// The squared distance (m^2) from q to the wall's segment.
static double wall_distance2(vec2 q, const thr_wall* l)
{
	double ax = l->a.x, ay = l->a.y;
	double ex = (double)l->b.x - ax, ey = (double)l->b.y - ay; // not both 0: zero-length walls are rejected
	double qx = (double)q.x - ax, qy = (double)q.y - ay;
	double u = (qx * ex + qy * ey) / (ex * ex + ey * ey);
	u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
	double dx = qx - u * ex, dy = qy - u * ey;
	return dx * dx + dy * dy;
}

/// What one pass over the wall cells of a box looks for.
typedef struct wall_scan {
	vec2 q;          ///< the agent's centre now
	float r;         ///< its radius
	bool penetration; ///< look for a wall within r of q, beyond the tolerance
	int image;       ///< count the walls path image `image` crosses; -1: none
	const vec2 *from, *to; ///< the path's images (path_images)
} wall_scan;

/// Scans the wall cells of box b: sets *found when the scan looks for a
/// penetration and finds one, and returns the walls image `image` crosses
/// that no earlier image crosses, each counted in its lowest cell of the
/// range (the one both the range and the wall's cells start from).
static uint64_t scan_walls(const thr_shape_watch* s, box b, const wall_scan* w, bool* found)
{
	const thr_box_grid* g = &s->wall_grid;
	thr_cell_range c = thr_box_grid_cells(g, b.x0, b.y0, b.x1, b.y1);
	double lim = (double)w->r * (1.0 - THRONG_PENETRATION_TOLERANCE);
	bool look = w->penetration && !*found;
	uint64_t count = 0;
	for (int32_t cy = c.y0; cy <= c.y1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx, kb, ke;
		if (!thr_box_grid_span(g, row + (uint32_t)c.x0, row + (uint32_t)c.x1, &kb, &ke)) {
			continue; // no wall in the row's cells
		}
		// Cell by cell (a wall counts in one cell of the range): cell cx
		// lists items [start(cell), start(cell + 1)), the next starting
		// where this one ends.
		uint32_t e = kb;
		for (int32_t cx = c.x0; cx <= c.x1; ++cx) {
			uint32_t cell = row + (uint32_t)cx, k0 = e;
			e = thr_box_grid_start(g, cell + 1u);
			for (uint32_t k = k0; k < e; ++k) {
				uint32_t id = g->items[k];
				const thr_wall* l = &s->walls[id];
				if (look && wall_distance2(w->q, l) < lim * lim) {
					*found = true;
					look = false;
				}
				int32_t lx = s->wall_cell[2u * id], ly = s->wall_cell[2u * id + 1u];
				if (w->image < 0 || cx != (lx > c.x0 ? lx : c.x0) || cy != (ly > c.y0 ? ly : c.y0) ||
				    !thr_path_crosses_wall(w->from[w->image], w->to[w->image], l->a, l->b)) {
					continue;
				}
				bool counted = false; // by an earlier image: the same crossing
				for (int j = 0; j < w->image && !counted; ++j) {
					counted = thr_path_crosses_wall(w->from[j], w->to[j], l->a, l->b);
				}
				count += counted ? 0u : 1u;
			}
		}
	}
	return count;
}

/// The images of the path p -> q whose walls count: the path itself, or in
/// a wrapping world whose edge it crossed, its shortest image p -> q + s
/// (s: a period along each axis it wrapped on) and that image moved back by
/// s along one axis or both, so that each part of the walk lies inside the
/// world in one of them. Ends moved by a period are rounded to float.
static int path_images(const thr_shape_watch* s, vec2 p, vec2 q, vec2 from[4], vec2 to[4])
{
	from[0] = p;
	to[0] = q;
	if (!s->wrap) {
		return 1;
	}
	double dx = (double)q.x - p.x, dy = (double)q.y - p.y;
	double sx = dx > 0.5 * s->period_x ? -(double)s->period_x : (dx < -0.5 * s->period_x ? s->period_x : 0.0);
	double sy = dy > 0.5 * s->period_y ? -(double)s->period_y : (dy < -0.5 * s->period_y ? s->period_y : 0.0);
	int n = 0;
	for (int ky = 0; ky < (sy != 0.0 ? 2 : 1); ++ky) {
		for (int kx = 0; kx < (sx != 0.0 ? 2 : 1); ++kx) {
			double tx = kx ? -sx : 0.0, ty = ky ? -sy : 0.0;
			from[n] = v2((float)(p.x + tx), (float)(p.y + ty));
			to[n] = v2((float)(q.x + sx + tx), (float)(q.y + sy + ty));
			n++;
		}
	}
	return n;
}

void thr_shape_watch_agent(const thr_shape_watch* s, vec2 p, vec2 q, float r, thr_shape_tally* t)
{
	box disc = disc_box(q, r);
	if (s->n_obstacles > 0) {
		obstacle_penetration(s, q, r, disc, t);
	}
	if (s->n_walls == 0) {
		return;
	}
	vec2 from[4], to[4];
	int images = path_images(s, p, q, from, to);
	wall_scan scan = {q, r, true, 0, from, to};
	bool found = false;
	if (images == 1) {
		// One pass over the cells of both the path and the disc.
		box b = path_box(p, q);
		b = (box){fminf(b.x0, disc.x0), fminf(b.y0, disc.y0), fmaxf(b.x1, disc.x1), fmaxf(b.y1, disc.y1)};
		t->wall_crossings += scan_walls(s, b, &scan, &found);
	} else {
		scan.image = -1;
		scan_walls(s, disc, &scan, &found);
		scan.penetration = false;
		for (int i = 0; i < images; ++i) {
			scan.image = i;
			t->wall_crossings += scan_walls(s, path_box(from[i], to[i]), &scan, &found);
		}
	}
	t->wall_penetrations += found ? 1u : 0u;
}
