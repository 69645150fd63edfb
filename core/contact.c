// SPDX-License-Identifier: MIT
// The contact pass (contact.h has the design, docs/BEHAVIORS.md the rules).
#include "contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "memory.h"
#include "part.h"

/// Rounds of obstacle and wall resolution at the end of the pass.
#define THR_SHAPE_ROUNDS 4


bool thr_contact_wanted(const throng_world* w)
{
	if (w->obstacle_count > 0 || w->wall_count > 0) {
		return true;
	}
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		if (w->archetypes[a].contact.enabled) {
			return true;
		}
	}
	return false;
}

void thr_contact_free(thr_contact_data* c)
{
	if (c == NULL) {
		return;
	}
	thr_grid_free(&c->grid);
	free(c->pairs);
	for (int k = 0; k < 4; ++k) {
		free(c->q[k]);
	}
	for (uint32_t r = 0; r < c->runs_cap; ++r) {
		free(c->runs[r].pairs);
	}
	free(c->runs);
	free(c->blocks);
	free(c->clear);
	free(c->sets[0]);
	free(c->sets[1]);
	free(c->mark);
	free(c);
}

static int reserve(void** p, uint32_t* cap, size_t need, size_t size)
{
	if (need <= *cap) {
		return 0;
	}
	size_t n = *cap ? *cap : 1024;
	while (n < need) {
		n *= 2;
	}
	if (n > UINT32_MAX) {
		n = need;
	}
	void* q = realloc(*p, n * size);
	if (q == NULL) {
		return -1;
	}
	thr_huge_pages(q, n * size);
	*p = q;
	*cap = (uint32_t)n;
	return 0;
}

static bool contact_on(const throng_world* w, uint32_t slot)
{
	return w->archetypes[w->archetype[slot]].contact.enabled;
}

// ---- Pairs ------------------------------------------------------------

/// The grid the pairs are listed from: the pass's own grid over p*, or
/// the step's agent grid over the previous positions, searched wider by
/// how far any agent moved since (both find every pair within reach).
typedef struct pair_grid {
	const thr_grid* g;
	const uint32_t* items; ///< entry -> slot, or NULL (entry k is slot k)
	const float *gx, *gy;  ///< the positions g was built over
	float widen;           ///< added to the search's half-size
} pair_grid;

/// Lists into out the agents within reach of agent i in positions (x, y),
/// at most THRONG_CONTACT_MAX_PAIRS, ids up; returns how many.
/// *overlaps counts the pairs that overlap with i the lower id, *any
/// whether one overlaps at all, *capped whether the cap cut the list short
/// (the list then holds the first agents met, cells row by row).
static uint32_t list_pairs(const throng_world* w, const pair_grid* pg, const float* x, const float* y, uint32_t i,
                           uint32_t* out, uint64_t* overlaps, int* capped, int* any)
{
	const thr_grid* g = pg->g;
	const float xi = x[i], yi = y[i], ri = w->radius[i];
	const float reach = THR_CONTACT_REACH * (ri + w->max_radius) + pg->widen;
	int32_t cx0, cx1, cy0, cy1;
	thr_grid_range(g, pg->gx[i], pg->gy[i], reach, &cx0, &cx1, &cy0, &cy1);
	uint32_t n = 0;
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		const uint32_t e = g->cell_start[k1];
		for (uint32_t k = g->cell_start[k0]; k < e; ++k) {
			const uint32_t j = pg->items != NULL ? pg->items[k] : k;
			const float dx = x[j] - xi, dy = y[j] - yi;
			const float d2 = dx * dx + dy * dy;
			const float rs = ri + w->radius[j];
			const float reach_ij = THR_CONTACT_REACH * rs;
			if (!(d2 < reach_ij * reach_ij) || j == i || !contact_on(w, j)) {
				continue;
			}
			if (n == THRONG_CONTACT_MAX_PAIRS) {
				*capped = 1;
				return n;
			}
			// Ids up: the list's order (the Jacobi sums' order) is the
			// agents', not the grid's.
			const uint32_t id = w->id[j];
			uint32_t at = n++;
			for (; at > 0 && w->id[out[at - 1]] > id; --at) {
				out[at] = out[at - 1];
			}
			out[at] = j;
			if (d2 < rs * rs) {
				*any = 1;
				*overlaps += w->id[i] < id;
			}
		}
	}
	return n;
}

// ---- Jacobi iteration ---------------------------------------------------

/// Agent i's next iterate: its position in (sx, sy) moved away from every
/// listed agent it overlaps, by stiffness/2 of the overlap, the pushes
/// summed in list order. Two agents at one point part along x, the lower
/// id to -x.
static vec2 jacobi(const thr_contact_iter* it, uint32_t i, int* met)
{
	const throng_world* w = it->w;
	const float half_k = 0.5f * w->archetypes[w->archetype[i]].contact.stiffness;
	const float xi = it->sx[i], yi = it->sy[i], ri = w->radius[i];
	float ax = 0.0f, ay = 0.0f;
	for (uint32_t c = it->start[i]; c < it->start[i + 1]; ++c) {
		const uint32_t j = it->pairs[c];
		const float dx = it->sx[j] - xi, dy = it->sy[j] - yi;
		const float rs = ri + w->radius[j];
		const float d2 = dx * dx + dy * dy;
		if (!(d2 < rs * rs)) {
			continue;
		}
		*met = 1;
		const float tiny = THR_COINCIDENT * rs;
		if (d2 > tiny * tiny) {
			const float d = sqrtf(d2);
			const float s = (rs - d) * half_k / d;
			ax -= dx * s;
			ay -= dy * s;
		} else {
			const float s = rs * half_k;
			ax += w->id[i] < w->id[j] ? -s : s;
		}
	}
	return v2(xi + ax, yi + ay);
}

int thr_contact_block(const thr_contact_iter* it, uint32_t first)
{
	const uint32_t end = first + THR_LANES < it->w->count ? first + THR_LANES : it->w->count;
	int lanes = 0;
	for (uint32_t i = first; i < end; ++i) {
		int met = 0;
		vec2 p = thr_contact_active(it, i) ? jacobi(it, i, &met) : v2(it->sx[i], it->sy[i]);
		it->dx[i] = p.x;
		it->dy[i] = p.y;
		lanes |= met << (i - first);
	}
	return lanes;
}

// ---- Obstacles and walls ----------------------------------------------

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
static vec2 shape_round(const throng_world* w, vec2 p0, vec2 p, float r, int* moved)
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

// ---- The pass -----------------------------------------------------------

/// What the end of the pass counts, per agent and summed.
typedef struct finish_tally {
	uint64_t pushes, reverts, clamped, nonfinite;
	float ratio; ///< largest |v| / max_speed of the agents it moved
} finish_tally;

/// p kept out of the obstacles and on its side of every wall, swept from
/// p0 (agent radius r); the THR_SHAPES_* bits of what happened in *what.
static vec2 keep_out(const throng_world* w, vec2 p0, vec2 p, float r, uint8_t* what)
{
	if (thr_clear_of_shapes(w, p0, p, r)) {
		*what = THR_SHAPES_CLEAR;
		return p;
	}
	int moved = 0;
	for (int round = 0; round < THR_SHAPE_ROUNDS; ++round) {
		int again = 0;
		p = shape_round(w, p0, p, r, &again);
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
	const vec2 p = keep_out(w, thr_previous_position(w, ctx->cs, i, ps), ps, w->radius[i], &what);
	if (!(what & THR_SHAPES_CLEAR)) {
		ctx->shaped_x[i] = p.x;
		ctx->shaped_y[i] = p.y;
	}
	return what;
}

/// Counts what keeping an agent out of the shapes did (THR_SHAPES_* bits).
static void count_shapes(finish_tally* stats, uint8_t what)
{
	stats->pushes += (uint64_t)((what & THR_SHAPES_PUSHED) != 0);
	stats->reverts += (uint64_t)((what & THR_SHAPES_REVERTED) != 0);
}

/// Agent i (integrated to ps) at p kept out of the shapes (keep_out),
/// counted.
static vec2 solid_shapes(const thr_step_ctx* ctx, uint32_t i, vec2 ps, vec2 p, float r, finish_tally* stats)
{
	uint8_t what = 0;
	p = keep_out(ctx->w, thr_previous_position(ctx->w, ctx->cs, i, ps), p, r, &what);
	count_shapes(stats, what);
	return p;
}

/// Overlap (of the radii sum) beyond which a pair still counts as pressed
/// at the end of the iterations (throng_contact.inelastic).
#define THR_PRESSED 1.0e-3f

/// v less its part towards each listed agent that agent i (at its last
/// iterate fx, fy) still overlaps by more than THR_PRESSED at theirs, in
/// list order: an inelastic contact. Without it an agent deep in a jam,
/// whom the iterations push from both sides about equally and so leave
/// where it was, keeps its full speed into the agent ahead, and the jam's
/// compression grows by up to max_speed x dt a step.
static vec2 unpress(const throng_world* w, const thr_contact_data* cd, const float* fx, const float* fy, uint32_t i,
                    vec2 v)
{
	const float xi = fx[i], yi = fy[i], ri = w->radius[i];
	for (uint32_t c = cd->start[i]; c < cd->start[i + 1]; ++c) {
		const uint32_t j = cd->pairs[c];
		const float dx = fx[j] - xi, dy = fy[j] - yi;
		const float rs = (ri + w->radius[j]) * (1.0f - THR_PRESSED);
		const float d2 = dx * dx + dy * dy;
		const float tiny = THR_COINCIDENT * rs;
		if (!(d2 < rs * rs) || !(d2 > tiny * tiny)) {
			continue;
		}
		const float vn = (v.x * dx + v.y * dy) / d2; // the part towards j, over d
		if (vn > 0.0f) {
			v = v2(v.x - dx * vn, v.y - dy * vn);
		}
	}
	return v;
}

/// The end of the pass for agent i, kept out of the shapes at p: bounds
/// and the velocity.
/// fx, fy: the last iterate, when i's block iterated (else NULL).
static void settle(const thr_step_ctx* ctx, uint32_t i, vec2 p, const float* fx, const float* fy, finish_tally* stats)
{
	const throng_world* w = ctx->w;
	const throng_world_def* d = &w->def;
	thr_state* ns = ctx->ns;
	const vec2 ps = v2(ns->px[i], ns->py[i]);
	const float r = w->radius[i];
	const vec2 vs = v2(ns->vx[i], ns->vy[i]);
	const bool inelastic = fx != NULL && w->archetypes[w->archetype[i]].contact.inelastic;
	if (p.x == ps.x && p.y == ps.y && !inelastic) {
		return;
	}
	vec2 v = v2_add(vs, v2_scale(v2_sub(p, ps), 1.0f / ctx->dt));
	if (inelastic) {
		v = unpress(w, w->contact, fx, fy, i, v);
		if (p.x == ps.x && p.y == ps.y && v.x == vs.x && v.y == vs.y) {
			return;
		}
	}
	v = v2_limit(v, w->max_speed[i]);
	float lox = d->bounds_min.x + r, hix = d->bounds_max.x - r;
	float loy = d->bounds_min.y + r, hiy = d->bounds_max.y - r;
	if (lox > hix) {
		lox = hix = 0.5f * (d->bounds_min.x + d->bounds_max.x);
	}
	if (loy > hiy) {
		loy = hiy = 0.5f * (d->bounds_min.y + d->bounds_max.y);
	}
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.x, &v.x, lox, hix, d->bounds_min.x, d->bounds_max.x);
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.y, &v.y, loy, hiy, d->bounds_min.y, d->bounds_max.y);
	if (!v2_isfinite(p) || !v2_isfinite(v)) {
		stats->nonfinite++;
		return; // keep the integrated state rather than spread a NaN
	}
	ns->px[i] = p.x;
	ns->py[i] = p.y;
	ns->vx[i] = v.x;
	ns->vy[i] = v.y;
	const float ratio = v2_length(v) / w->max_speed[i];
	stats->ratio = ratio > stats->ratio ? ratio : stats->ratio;
}

/// Most iterations any archetype with contacts on asks for (0: none).
static uint32_t most_iterations(const throng_world* w)
{
	uint32_t k = 0;
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_contact* c = &w->archetypes[a].contact;
		if (c->enabled && c->iterations > k) {
			k = c->iterations;
		}
	}
	return k;
}

throng_status thr_contact_prepare(thr_step_ctx* ctx)
{
	throng_world* w = ctx->w;
	const bool pairs = thr_part_world_count(w->part, w->count) > 1 && most_iterations(w) > 0;
	const bool shapes = w->count > 0 && (w->obstacle_count > 0 || w->wall_count > 0);
	if (!pairs && !shapes) {
		return THRONG_OK;
	}
	if (w->contact == NULL && (w->contact = calloc(1, sizeof *w->contact)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	thr_contact_data* cd = w->contact;
	// Iterate 1 (q[0], q[1]) holds, in the blocks without pairs, where the
	// engine kept the agents out of the shapes: the iterations write only
	// blocks with pairs. Iterate 2's x (q[2]) holds the engine's nearest
	// distances (ctx->near) until the listing has read them: the
	// iterations write it only after.
	const uint32_t n = w->count;
	uint32_t cap01 = cd->q01_cap, cap23 = cd->q23_cap;
	// The pair offsets are a spare of the store's (THR_SPARE_CONTACTS).
	if ((pairs && thr_store_reserve_spares(w) != 0) ||
	    (shapes && reserve((void**)&cd->clear, &cd->clear_cap, n, sizeof *cd->clear)) ||
	    reserve((void**)&cd->q[0], &cap01, n, sizeof(float)) || reserve((void**)&cd->q[1], &cd->q01_cap, n, sizeof(float)) ||
	    (pairs && (reserve((void**)&cd->q[2], &cap23, n, sizeof(float)) ||
	               reserve((void**)&cd->q[3], &cd->q23_cap, n, sizeof(float))))) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	ctx->near = pairs ? cd->q[2] : NULL;
	ctx->clear = shapes ? cd->clear : NULL;
	ctx->shaped_x = shapes ? cd->q[0] : NULL;
	ctx->shaped_y = shapes ? cd->q[1] : NULL;
	return THRONG_OK;
}

/// Most cells of the pass's grid: two an agent. Building a grid costs
/// O(cells); a sparse crowd gets cells wider than the reach, which costs
/// a few more distance tests, a dense one keeps cells of the reach.
static uint32_t contact_max_cells(const throng_world* w)
{
	const uint64_t m = 2u * (uint64_t)thr_part_world_count(w->part, w->count) + 4096u;
	const uint32_t most = thr_world_max_cells(w);
	return m < most ? (uint32_t)m : most;
}

/// The runs of the listing: a few per thread, so that a thread whose vCPU
/// is taken leaves its later runs to the others.
static uint32_t run_count(uint32_t n, int threads, bool parallel)
{
	uint32_t runs = parallel ? 4u * (uint32_t)threads : 1u;
	return runs < n ? runs : n;
}

/// The agents of run r of `runs` over n: [*first, *end).
static void run_agents(uint32_t n, uint32_t runs, uint32_t r, uint32_t* first, uint32_t* end)
{
	*first = (uint32_t)((uint64_t)n * r / runs);
	*end = (uint32_t)((uint64_t)n * (r + 1u) / runs);
}

/// Whether agent i provably has no pair at p*: its neighbour walk
/// (ctx->near) examined every agent within t of it at the previous
/// positions and met none closer, t being the reach to the widest agent
/// plus what the two ends moved since (each at most sqrt(2) x `moved`, the
/// most any agent moved along an axis; 3 x moved covers both), with a
/// hundredth for rounding, and t inside the walk's query radius. The lists
/// are those of a full search: the agents skipped would list nobody.
static bool alone(const throng_world* w, const float* near, float moved, uint32_t i)
{
	if (near == NULL || !(near[i] >= 0.0f)) {
		return false; // THR_NEAR_UNKNOWN
	}
	const float t = (THR_CONTACT_REACH * (w->radius[i] + w->max_radius) + 3.0f * moved) * 1.01f;
	return t <= 0.99f * w->arch[w->archetype[i]].query_radius && near[i] >= t * t; // false for NaN
}

/// Lists the pairs of the agents of run r into the run's buffer, and each
/// agent's count into start[i + 1]. Returns -1 when out of memory.
static int list_run(const thr_step_ctx* ctx, thr_contact_data* cd, const pair_grid* pg, float moved, uint32_t runs,
                    uint32_t r, uint64_t* overlaps, uint64_t* capped, uint64_t* met, uint64_t* skips,
                    uint64_t* searches)
{
	const throng_world* w = ctx->w;
	const float *x = ctx->ns->px, *y = ctx->ns->py;
	thr_contact_run* run = &cd->runs[r];
	uint32_t first, end;
	run_agents(w->count, runs, r, &first, &end);
	run->used = 0;
	for (uint32_t i = first; i < end; ++i) {
		if (!contact_on(w, i)) {
			cd->start[i + 1] = 0;
			continue;
		}
		if (alone(w, ctx->near, moved, i)) {
			cd->start[i + 1] = 0;
			++*skips;
			continue;
		}
		if (run->cap - run->used < THRONG_CONTACT_MAX_PAIRS &&
		    reserve((void**)&run->pairs, &run->cap, (size_t)run->used + THRONG_CONTACT_MAX_PAIRS + 4u * (end - i),
		            sizeof *run->pairs)) {
			return -1;
		}
		++*searches;
		int cut = 0, any = 0;
		uint64_t over = 0;
		const uint32_t k = list_pairs(w, pg, x, y, i, run->pairs + run->used, &over, &cut, &any);
		cd->start[i + 1] = k;
		run->used += k;
		if (!thr_part_ghost(w->part, w->id[i])) { // a part world's ghost is another part's to count
			*overlaps += over;
			*capped += (uint64_t)cut;
			*met += (uint64_t)any;
		}
	}
	return 0;
}

/// Whether block b (slots b * THR_LANES on, of n) holds an agent with a
/// listed pair: the blocks the iterations visit, whose agents end the pass
/// at the last iterate (the others keep p*).
static bool block_has_pairs(const thr_contact_data* cd, uint32_t n, uint32_t b)
{
	const uint32_t first = b * THR_LANES;
	const uint32_t end = first + THR_LANES < n ? first + THR_LANES : n;
	return cd->start[end] > cd->start[first];
}

/// The agent grid serves while its wider cells cost at most this many
/// more candidates an agent, at the world's mean density, than the
/// pass's own grid: a sparse crowd saves building a grid, a dense one
/// would test too many candidates.
#define THR_AGENT_GRID_MAX_EXTRA 4.0f

/// The grid to list pairs from. The step's agent grid, built over the
/// previous positions, finds every pair within reach at p* when searched
/// wider by twice the most any agent moved (each end moved at most that
/// much), plus a margin for rounding; it serves unless its cells hold
/// too many more candidates than the pass's own would (at the world's
/// mean density), or agents moved far (a wrap, a teleport).
/// Otherwise the pass builds its own grid over p*, ids up within a cell.
/// Either way every list holds the same agents in the same order (ids up),
/// unless the cap cut it: the agents kept are then the first met.
/// Returns -1 when out of memory.
static int choose_grid(const thr_step_ctx* ctx, float moved, pair_grid* pg)
{
	throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	const throng_world_def* d = &w->def;
	const float cell = THR_CONTACT_REACH * 2.0f * w->max_radius;
	const thr_grid* ag = &w->agent_grid;
	// Candidates of a search: the agents in the square of the search's
	// width plus a cell, on average.
	const double area = ((double)d->bounds_max.x - d->bounds_min.x) * ((double)d->bounds_max.y - d->bounds_min.y);
	const double density = area > 0.0 ? (double)thr_part_world_count(w->part, w->count) / area : 0.0;
	const double span = 2.0 * THR_CONTACT_REACH * 2.0 * w->max_radius;
	const double own = (cell + span) * (cell + span), theirs = (ag->cell + span) * (ag->cell + span);
	if (density * (theirs - own) <= THR_AGENT_GRID_MAX_EXTRA) {
		const float widen = 2.0f * moved * 1.001f + 1.0e-4f * cell;
		if (widen <= 0.5f * ag->cell) { // also false for NaN and Inf
			*pg = (pair_grid){ag, ctx->items, ctx->cs->px, ctx->cs->py, widen};
			return 0;
		}
	}
	thr_grid_layout(&cd->grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y,
	                cell > 0.0f ? cell : 1.0f, contact_max_cells(w));
	const thr_state* ns = ctx->ns;
	if (thr_grid_build_points(&cd->grid, ns->px, ns->py, w->count, ctx->items == NULL ? w->id : NULL)) {
		return -1;
	}
	*pg = (pair_grid){&cd->grid, cd->grid.items, ns->px, ns->py, 0.0f};
	return 0;
}

/// Room for the pass's runs (the iterates are thr_contact_prepare's, the
/// offsets a spare of the store's). Returns -1 when out of memory.
static int reserve_scratch(thr_contact_data* cd, uint32_t runs)
{
	if (runs > cd->runs_cap) {
		thr_contact_run* r = realloc(cd->runs, runs * sizeof *r);
		if (r == NULL) {
			return -1;
		}
		memset(r + cd->runs_cap, 0, (runs - cd->runs_cap) * sizeof *r);
		cd->runs = r;
		cd->runs_cap = runs;
	}
	return 0;
}

/// Room for narrowed iterations: the two block sets and the marks, whose
/// tags stay below 2^32 for `iterations` more. Returns -1 when out of memory.
static int narrow_blocks(thr_contact_data* cd, uint32_t n, uint32_t iterations)
{
	const uint32_t blocks = n / THR_LANES + 1u;
	uint32_t cap = cd->sets_cap;
	if (reserve((void**)&cd->sets[0], &cap, blocks, sizeof(uint32_t)) != 0) {
		return -1;
	}
	cap = cd->sets_cap;
	if (reserve((void**)&cd->sets[1], &cap, blocks, sizeof(uint32_t)) != 0) {
		return -1;
	}
	cd->sets_cap = cap;
	const uint32_t had = cd->mark_cap;
	if (reserve((void**)&cd->mark, &cd->mark_cap, blocks, sizeof *cd->mark) != 0) {
		return -1;
	}
	if (cd->mark_cap != had || cd->tag > UINT32_MAX - 2u * THRONG_CONTACT_MAX_ITERATIONS - iterations) {
		memset(cd->mark, 0, (size_t)cd->mark_cap * sizeof *cd->mark); // no tag yet
		cd->tag = 0;
	}
	return 0;
}

/// Marks with `tag` block `block` (agents up to `end`), which met an
/// overlapping pair, and the blocks of every partner of each of its agents
/// the iteration moved.
static void mark_moved(thr_contact_data* cd, const thr_contact_iter* it, uint32_t block, uint32_t end, uint32_t tag)
{
	// Threads may mark one block at once, all with the same tag.
	__atomic_store_n(&cd->mark[block], tag, __ATOMIC_RELAXED);
	for (uint32_t i = block * THR_LANES; i < end; ++i) {
		if (it->dx[i] != it->sx[i] || it->dy[i] != it->sy[i]) {
			for (uint32_t c = it->start[i]; c < it->start[i + 1]; ++c) {
				__atomic_store_n(&cd->mark[it->pairs[c] / THR_LANES], tag, __ATOMIC_RELAXED);
			}
		}
	}
}

/// The blocks with pairs marked `tag`, in block order, into the set of
/// iteration k; returns how many.
static uint32_t gather_marked(thr_contact_data* cd, uint32_t active, uint32_t k, uint32_t tag)
{
	uint32_t* out = cd->sets[k & 1u];
	uint32_t m = 0;
	for (uint32_t a = 0; a < active; ++a) {
		const uint32_t b = cd->blocks[a];
		out[m] = b;
		m += cd->mark[b] == tag;
	}
	return m;
}

throng_status thr_contact_pass(const thr_step_ctx* ctx, thr_pass_stats* stats)
{
	throng_world* w = ctx->w;
	const uint32_t n = w->count;
	// A part world agrees on the whole world's figures with the other
	// parts (part.h): each part makes the same reductions, in the same
	// order, even one that holds no agent.
	const thr_part_comm* comm = w->part != NULL && w->part->comm.reduce != NULL ? &w->part->comm : NULL;
	if ((n == 0 && comm == NULL) || !thr_contact_wanted(w)) {
		return THRONG_OK;
	}
	if (w->contact == NULL && (w->contact = calloc(1, sizeof *w->contact)) == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
	}
	thr_contact_data* cd = w->contact;
	thr_state* ns = ctx->ns;
	const uint32_t planned = thr_part_world_count(w->part, n) > 1 ? most_iterations(w) : 0;
	const int threads = ctx->threads;
	const bool parallel = n > THR_PARALLEL_MIN_AGENTS;
	(void)threads; // builds without OpenMP
	const uint32_t runs = run_count(n, threads, parallel);
	uint64_t overlaps = 0, capped = 0, met = 0, skips = 0, searches = 0;
	uint64_t capped_all = 0; // the whole world's, in a part
	uint32_t active = 0; // blocks with pairs

	if (planned > 0) {
		cd->start = w->store.spare[THR_SPARE_CONTACTS]; // capacity + THR_LANES >= n + 1 entries
		if (reserve_scratch(cd, runs)) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
		}
		float moved = stats->most_moved; // the engine's pass measured it
		if (comm != NULL) {
			comm->reduce(comm->user, THR_PART_MAX_F32, &moved, 1);
		}
		pair_grid pg;
		if (choose_grid(ctx, moved, &pg) != 0) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
		}
		// Each agent's pairs, listed once, run by run (any thread may take
		// any run: each has its own buffer).
		int fail = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (parallel) \
	reduction(+ : overlaps, capped, met, fail, skips, searches)
		for (int64_t r = 0; r < (int64_t)runs; ++r) {
			fail += list_run(ctx, cd, &pg, moved, runs, (uint32_t)r, &overlaps, &capped, &met, &skips,
			                 &searches);
		}
		cd->start[0] = 0;
		for (uint32_t i = 0; i < n; ++i) {
			cd->start[i + 1] += cd->start[i];
		}
		capped_all = capped;
		if (comm != NULL) {
			// A part's tallies leave its ghosts out, so their sums are the
			// whole world's. Sent even when the listing failed: the other
			// parts wait for it (the run then stops).
			uint64_t v[2] = {met, capped};
			comm->reduce(comm->user, THR_PART_SUM_U64, v, 2);
			met = v[0];
			capped_all = v[1];
		}
		if (fail != 0 ||
		    (met > 0 && reserve((void**)&cd->pairs, &cd->pairs_cap, cd->start[n] ? cd->start[n] : 1, sizeof *cd->pairs)) ||
		    reserve((void**)&cd->blocks, &cd->blocks_cap, n / THR_LANES + 1u, sizeof *cd->blocks)) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
		}
		// The iterations visit only the blocks with pairs: an agent
		// without pairs is in no list and keeps p*.
		for (uint32_t b = 0; met > 0 && b * THR_LANES < n; ++b) {
			if (block_has_pairs(cd, n, b)) {
				cd->blocks[active++] = b;
			}
		}
		if (met > 0 && capped_all == 0 && planned > 1 && narrow_blocks(cd, n, planned) != 0) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for contacts");
		}
	}
	// Nothing can fail from here on. Iterations run while pairs overlap:
	// none when no listed pair overlaps p*, and none after an iteration
	// that met no overlapping pair (it changed nothing but -0 to +0).
	// Iterate 0 is p* itself; iterate k > 0 is in q[(k - 1) & 1].
	const uint32_t iterations = met > 0 ? planned : 0;
	float* qx[2] = {cd->q[0], cd->q[2]};
	float* qy[2] = {cd->q[1], cd->q[3]};
	int seen[THRONG_CONTACT_MAX_ITERATIONS + 1] = {1};
	// From iteration 1 on, the iterations visit the blocks that met an
	// overlapping pair in the one before, and the blocks of the partners
	// of every agent it moved: any other block would compute what it
	// holds already (its agents and their partners did not move), and
	// both buffers hold it (narrow_blocks). That needs every list to be
	// symmetric, which only a capped list breaks.
	const bool narrow = capped_all == 0 && iterations > 1;
	uint32_t set_n[THRONG_CONTACT_MAX_ITERATIONS + 1] = {active};
	uint32_t done = 0;
	uint64_t pushes = 0, reverts = 0, clamped = 0, nonfinite = 0;
	float ratio = stats->max_speed_ratio;
#pragma omp parallel num_threads(threads) if (parallel) reduction(+ : pushes, reverts, clamped, nonfinite) \
	reduction(max : ratio)
	{
		if (iterations > 0) {
#pragma omp for schedule(static)
			for (int64_t r = 0; r < (int64_t)runs; ++r) {
				uint32_t first, end;
				run_agents(n, runs, (uint32_t)r, &first, &end);
				if (cd->runs[r].used > 0) { // a run whose agents were all skipped has no buffer yet
					memcpy(cd->pairs + cd->start[first], cd->runs[r].pairs, cd->runs[r].used * sizeof *cd->pairs);
				}
			}
		}
		const thr_engine* e = ctx->engine;
		const bool shapes = w->obstacle_count > 0 || w->wall_count > 0;
		uint32_t k = 0;
		// seen[k]: iterate k still had an overlapping pair (seen[0]: p* had
		// one). Every thread reads it after the loop's barrier: all agree.
		for (; k < iterations && seen[k]; ++k) {
			const float* sx = k == 0 ? ns->px : qx[(k - 1u) & 1u];
			const float* sy = k == 0 ? ns->py : qy[(k - 1u) & 1u];
			const thr_contact_iter it = {w, cd->start, cd->pairs, sx, sy, qx[k & 1u], qy[k & 1u], k};
			int* flag = &seen[k + 1];
			const uint32_t* set = k == 0 || !narrow ? cd->blocks : cd->sets[k & 1u];
			const uint32_t m = k == 0 || !narrow ? active : set_n[k];
			const bool next = narrow && k + 1u < iterations;
			const uint32_t tag = cd->tag + k + 1u; // marks the blocks of iteration k + 1
#pragma omp for schedule(static)
			for (int64_t b = 0; b < (int64_t)m; ++b) {
				const uint32_t block = set[b], first = block * THR_LANES;
				const uint32_t end = first + THR_LANES < n ? first + THR_LANES : n;
				const int hit = e->contact_block(&it, first);
				// A part world's ghosts are other parts' to report.
				const int counted = hit != 0 ? hit & thr_part_counted_lanes(w->part, w->id, first, (int)(end - first)) : 0;
				if (counted && k + 1u < iterations) {
#pragma omp atomic write
					*flag = 1;
				}
				// Out of the obstacles and walls it was pushed into.
				for (uint32_t i = first; shapes && i < end; ++i) {
					if (it.dx[i] != it.sx[i] || it.dy[i] != it.sy[i]) {
						int moved = 0;
						const vec2 p0 = thr_previous_position(w, ctx->cs, i, v2(ns->px[i], ns->py[i]));
						const vec2 p1 = v2(it.dx[i], it.dy[i]);
						if (thr_clear_of_shapes(w, p0, p1, w->radius[i])) {
							continue;
						}
						const vec2 p = shape_round(w, p0, p1, w->radius[i], &moved);
						it.dx[i] = p.x;
						it.dy[i] = p.y;
					}
				}
				if (next && hit) {
					mark_moved(cd, &it, block, end, tag);
				} else if (next && k == 0) {
					// Unmoved: iterate 1 in the other buffer as well, for
					// the iterations that skip the block.
					memcpy(qx[1] + first, qx[0] + first, (end - first) * sizeof(float));
					memcpy(qy[1] + first, qy[0] + first, (end - first) * sizeof(float));
				}
			}
			if (comm != NULL && k + 1u < iterations) {
				// Whether any part met an overlapping pair (the loop's
				// barrier has every block's flag in).
#pragma omp master
				{
					uint64_t any = (uint64_t)seen[k + 1u];
					comm->reduce(comm->user, THR_PART_SUM_U64, &any, 1);
					seen[k + 1u] = any != 0;
				}
#pragma omp barrier
			}
			if (next) {
#pragma omp single
				set_n[k + 1u] = gather_marked(cd, active, k + 1u, tag);
			}
		}
#pragma omp single
		done = k;
		const float* fx = done > 0 ? qx[(done - 1u) & 1u] : ns->px;
		const float* fy = done > 0 ? qy[(done - 1u) & 1u] : ns->py;
#pragma omp for schedule(static)
		for (int64_t ii = 0; ii < (int64_t)n; ++ii) {
			const uint32_t i = (uint32_t)ii;
			if (ii == 0) {
				thr_note_team(w, THR_REGION_CONTACTS);
			}
			const bool iterated = done > 0 && block_has_pairs(cd, n, i / THR_LANES);
			finish_tally t = {0, 0, 0, 0, ratio};
			if (iterated) {
				const vec2 p = v2(fx[i], fy[i]);
				settle(ctx, i, shapes ? solid_shapes(ctx, i, v2(ns->px[i], ns->py[i]), p, w->radius[i], &t) : p, fx, fy,
				       &t);
			} else if (shapes) {
				// At p*: the engine kept it out of the shapes already.
				const uint8_t what = ctx->clear[i];
				if (what & THR_SHAPES_CLEAR) {
					continue; // nothing to do
				}
				count_shapes(&t, what);
				settle(ctx, i, v2(ctx->shaped_x[i], ctx->shaped_y[i]), NULL, NULL, &t);
			} else {
				continue; // at p*: nothing to do
			}
			if (thr_part_ghost(w->part, w->id[i])) {
				continue; // a part world's ghost: its figures are another part's
			}
			pushes += t.pushes;
			reverts += t.reverts;
			clamped += t.clamped;
			nonfinite += t.nonfinite;
			ratio = t.ratio > ratio ? t.ratio : ratio;
		}
	}
	if (ctx->counts != NULL) {
		ctx->counts->contact_searches += searches;
		ctx->counts->contact_skips += skips;
	}
	cd->tag += narrow ? iterations : 0;
	stats->contact_iterations += done;
	stats->contacts += overlaps;
	stats->contact_capped += capped;
	stats->shape_pushes += pushes;
	stats->shape_reverts += reverts;
	stats->clamped += clamped;
	stats->nonfinite += nonfinite;
	stats->max_speed_ratio = ratio;
	return THRONG_OK;
}
