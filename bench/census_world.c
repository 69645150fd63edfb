// SPDX-License-Identifier: MIT
// The census's model of a world (census_world.h), read through the public
// API: grids laid out by core/grid.c's rules, state by id, archetypes.
#include "census_world.h"

#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "grid.h"

static void grid_layout(cgrid* g, throng_vec2 lo, throng_vec2 hi, float cell, uint32_t max_cells)
{
	// The layout of core/grid.c itself (the cell-enlarging rule), not a copy.
	thr_grid t;
	memset(&t, 0, sizeof t);
	thr_grid_layout(&t, lo.x, lo.y, hi.x, hi.y, cell, max_cells);
	g->min_x = t.min_x;
	g->min_y = t.min_y;
	g->cell = t.cell;
	g->inv_cell = t.inv_cell;
	g->nx = t.nx;
	g->ny = t.ny;
}

static void grid_free(cgrid* g)
{
	free(g->start);
	free(g->items);
	memset(g, 0, sizeof *g);
}

/// Buckets points 0..n-1 by cell, in index order within a cell.
static int grid_points(cgrid* g, const float* x, const float* y, uint32_t n)
{
	size_t cells = (size_t)g->nx * (size_t)g->ny;
	g->start = calloc(cells + 1, sizeof *g->start);
	g->items = malloc(((size_t)n + 1) * sizeof *g->items);
	uint32_t* cell_of = malloc(((size_t)n + 1) * sizeof *cell_of);
	if (g->start == NULL || g->items == NULL || cell_of == NULL) {
		free(cell_of);
		return -1;
	}
	for (uint32_t i = 0; i < n; ++i) {
		int32_t cx = grid_coord(x[i], g->min_x, g->inv_cell, g->nx);
		int32_t cy = grid_coord(y[i], g->min_y, g->inv_cell, g->ny);
		cell_of[i] = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
		g->start[cell_of[i] + 1]++;
	}
	for (size_t c = 0; c < cells; ++c) {
		g->start[c + 1] += g->start[c];
	}
	for (uint32_t i = 0; i < n; ++i) {
		g->items[g->start[cell_of[i]]++] = i;
	}
	for (size_t c = cells; c > 0; --c) {
		g->start[c] = g->start[c - 1];
	}
	g->start[0] = 0;
	g->n_items = n;
	free(cell_of);
	return 0;
}

/// Buckets boxes [x0,x1]x[y0,y1] into every cell they overlap.
static int grid_boxes(cgrid* g, const float* x0, const float* y0, const float* x1, const float* y1, uint32_t n)
{
	size_t cells = (size_t)g->nx * (size_t)g->ny;
	g->start = calloc(cells + 1, sizeof *g->start);
	if (g->start == NULL) {
		return -1;
	}
	uint64_t total = 0;
	for (int pass = 0; pass < 2; ++pass) {
		for (uint32_t i = 0; i < n; ++i) {
			cbox b = grid_box(g, x0[i], y0[i], x1[i], y1[i]);
			for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
				for (int32_t cx = b.cx0; cx <= b.cx1; ++cx) {
					size_t c = (size_t)cy * (size_t)g->nx + (size_t)cx;
					if (pass == 0) {
						g->start[c + 1]++;
						total++;
					} else {
						g->items[g->start[c]++] = i;
					}
				}
			}
		}
		if (pass == 0) {
			g->items = malloc((size_t)(total + 1) * sizeof *g->items);
			if (g->items == NULL) {
				return -1;
			}
			for (size_t c = 0; c < cells; ++c) {
				g->start[c + 1] += g->start[c];
			}
		}
	}
	for (size_t c = cells; c > 0; --c) {
		g->start[c] = g->start[c - 1];
	}
	g->start[0] = 0;
	g->n_items = (uint32_t)total;
	return 0;
}

void census_world_free(cworld* c)
{
	free(c->x); free(c->y); free(c->vx); free(c->vy); free(c->r);
	free(c->arch); free(c->group); free(c->archs); free(c->shape);
	grid_free(&c->agents);
	grid_free(&c->obstacles);
	grid_free(&c->walls);
}

static float max_look_ahead(const cworld* c, int walls)
{
	float m = 0.0f;
	for (uint32_t a = 0; a < c->n_arch; ++a) {
		const carch* A = &c->archs[a];
		int n = walls ? A->n_wall : A->n_obs;
		for (int k = 0; k < n; ++k) {
			float L = walls ? A->wall[k].look_ahead : A->obs[k].look_ahead;
			m = L > m ? L : m;
		}
	}
	return m;
}

static void load_archetype(const throng_world* w, uint32_t a, bench_keep keep, carch* A)
{
	throng_controller full, ctl;
	throng_world_get_controller(w, a, &full);
	ctl = throng_controller_default_def(full.mode);
	for (uint32_t k = 0; k < full.slot_count; ++k) {
		if (bench_keeps(keep, &full.slots[k])) {
			throng_controller_add(&ctl, full.slots[k]);
		}
	}
	int contained = throng_world_get_def(w).bounds_mode == THRONG_BOUNDS_CONTAIN;
	memset(A, 0, sizeof *A);
	A->rule = full.target_rule;
	A->rule.enabled = keep.target_rule && full.target_rule.enabled;
	A->fixed = bench_cost_blend(&ctl);
	for (uint32_t k = 0; k < ctl.slot_count; ++k) {
		const throng_slot* s = &ctl.slots[k];
		const throng_behavior_params* p = &s->params;
		A->fixed += bench_cost_slot_fixed(s, contained);
		switch (s->kind) {
		case THRONG_UNALIGNED_AVOID:
		case THRONG_SEPARATION:
		case THRONG_ALIGNMENT:
		case THRONG_COHESION: {
			nb_slot* q = &A->nb[A->n_nb++];
			q->kind = s->kind;
			q->r2 = p->neighbor_radius * p->neighbor_radius;
			q->same_group = p->same_group_only;
			q->t_max = p->max_prediction;
			q->avoid_radius = p->avoid_radius;
			A->query_radius = p->neighbor_radius > A->query_radius ? p->neighbor_radius : A->query_radius;
			A->finish_simd += s->kind == THRONG_ALIGNMENT ? BENCH_OPS_NB_FINISH_ALIGNMENT
			                  : s->kind == THRONG_COHESION ? BENCH_OPS_NB_FINISH_COHESION
			                                               : BENCH_OPS_NB_FINISH_PUSH;
			break;
		}
		case THRONG_OBSTACLE_AVOID:
			A->obs[A->n_obs++] = (feeler_slot){p->look_ahead, 0.0f};
			break;
		case THRONG_WALL_AVOID:
			A->wall[A->n_wall++] = (feeler_slot){p->look_ahead, p->feeler_angle};
			break;
		default:
			break;
		}
	}
}

int census_world_load(throng_scene* scene, bench_keep keep, cworld* c)
{
	const throng_world* w = throng_scene_world(scene);
	throng_world_def def = throng_world_get_def(w);
	memset(c, 0, sizeof *c);
	c->n = throng_world_agent_count(w);
	size_t n = (size_t)c->n + 1;
	c->x = malloc(n * sizeof(float));
	c->y = malloc(n * sizeof(float));
	c->vx = malloc(n * sizeof(float));
	c->vy = malloc(n * sizeof(float));
	c->r = malloc(n * sizeof(float));
	c->arch = malloc(n * sizeof(uint32_t));
	c->group = malloc(n * sizeof(uint32_t));
	c->n_arch = throng_world_archetype_count(w);
	c->archs = calloc(c->n_arch + 1u, sizeof *c->archs);
	c->n_obstacles = throng_world_obstacle_count(w);
	c->n_walls = throng_world_wall_count(w);
	size_t shapes = (size_t)c->n_obstacles * 3u + (size_t)c->n_walls * 4u + 1u;
	c->shape = malloc(shapes * sizeof(float));
	if (!c->x || !c->y || !c->vx || !c->vy || !c->r || !c->arch || !c->group || !c->archs || !c->shape) {
		return -1;
	}
	float max_radius = 0.0f;
	for (uint32_t id = 0; id < c->n; ++id) {
		throng_agent_state a;
		throng_world_get_agent(w, id, &a);
		c->x[id] = a.position.x;
		c->y[id] = a.position.y;
		c->vx[id] = a.velocity.x;
		c->vy[id] = a.velocity.y;
		c->r[id] = a.radius;
		c->arch[id] = a.archetype;
		c->group[id] = a.group;
		max_radius = a.radius > max_radius ? a.radius : max_radius;
	}
	for (uint32_t a = 0; a < c->n_arch; ++a) {
		load_archetype(w, a, keep, &c->archs[a]);
	}
	// Grid limits as core's thr_world_max_cells: 16 cells an agent of
	// capacity plus 65536, at most 2^24.
	uint64_t capacity = ((uint64_t)def.capacity + 7u) / 8u * 8u;
	uint64_t max_cells = capacity * 16u + 65536u;
	max_cells = max_cells > (1u << 24) ? (1u << 24) : max_cells;
	grid_layout(&c->agents, def.bounds_min, def.bounds_max, bench_cell_size(w), (uint32_t)max_cells);
	if (grid_points(&c->agents, c->x, c->y, c->n) != 0) {
		return -1;
	}

	// Shape grids: cells of the largest feeler reach (look-ahead plus the
	// largest agent radius) of either kind, at least 1 m.
	float reach_o = max_look_ahead(c, 0) + max_radius;
	float reach_w = max_look_ahead(c, 1) + max_radius;
	float cell = reach_o > reach_w ? reach_o : reach_w;
	cell = cell < 1.0f ? 1.0f : cell;
	grid_layout(&c->obstacles, def.bounds_min, def.bounds_max, cell, (uint32_t)max_cells);
	grid_layout(&c->walls, def.bounds_min, def.bounds_max, cell, (uint32_t)max_cells);
	uint32_t m = c->n_obstacles > c->n_walls ? c->n_obstacles : c->n_walls;
	float* box = malloc(((size_t)m + 1u) * 4u * sizeof(float));
	if (box == NULL) {
		return -1;
	}
	float *x0 = box, *y0 = box + m, *x1 = box + 2u * m, *y1 = box + 3u * m;
	float* os = c->shape;
	float* ws = c->shape + 3u * c->n_obstacles;
	for (uint32_t k = 0; k < c->n_obstacles; ++k) {
		throng_vec2 o;
		float r;
		throng_world_get_obstacle(w, k, &o, &r);
		os[3 * k] = o.x;
		os[3 * k + 1] = o.y;
		os[3 * k + 2] = r;
		x0[k] = o.x - r; x1[k] = o.x + r;
		y0[k] = o.y - r; y1[k] = o.y + r;
	}
	int fail = grid_boxes(&c->obstacles, x0, y0, x1, y1, c->n_obstacles);
	for (uint32_t k = 0; k < c->n_walls; ++k) {
		throng_vec2 a, b;
		throng_world_get_wall(w, k, &a, &b);
		ws[4 * k] = a.x; ws[4 * k + 1] = a.y; ws[4 * k + 2] = b.x; ws[4 * k + 3] = b.y;
		x0[k] = fminf(a.x, b.x); x1[k] = fmaxf(a.x, b.x);
		y0[k] = fminf(a.y, b.y); y1[k] = fmaxf(a.y, b.y);
	}
	fail |= grid_boxes(&c->walls, x0, y0, x1, y1, c->n_walls);
	free(box);
	return fail ? -1 : 0;
}
