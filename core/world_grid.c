// SPDX-License-Identifier: MIT
// The world's grid rules, shared by both engines and the step: which
// slots query neighbours and how far, the agent grid's cell size and
// size limit, and the obstacle and wall grids.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "world_internal.h"

thr_arch_info thr_arch_neighbors(const throng_controller* c)
{
	thr_arch_info info;
	memset(&info, 0, sizeof info);
	info.query_radius = throng_controller_query_radius(c);
	info.wander_slot = info.noise_slot = THR_NO_ANGLE_SLOT;
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* slot = &c->slots[k];
		if (slot->enabled && slot->kind == THRONG_WANDER) {
			info.wander_slot = (uint8_t)k;
		} else if (slot->enabled && slot->kind == THRONG_WANDER_NOISE) {
			info.noise_slot = (uint8_t)k;
		}
		if (!slot->enabled || !throng_behavior_reads_neighbors(slot->kind)) {
			continue;
		}
		info.neighbor_slots[info.n_neighbor_slots++] = (uint8_t)k;
		uint32_t cap = thr_max_neighbors(&slot->params);
		info.most_cap = cap > info.most_cap ? cap : info.most_cap;
	}
	return info;
}

throng_status thr_world_refresh_arch(throng_world* w)
{
	if (w->archetype_count > w->arch_cap) {
		thr_arch_info* p = realloc(w->arch, w->archetype_count * sizeof *p);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
		}
		w->arch = p;
		w->arch_cap = w->archetype_count;
	}
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		w->arch[a] = thr_arch_neighbors(&w->archetypes[a]);
	}
	return THRONG_OK;
}

float thr_world_cell_size(const throng_world* w)
{
	float cell = w->def.cell_size;
	if (cell <= 0.0f) {
		for (uint32_t a = 0; a < w->archetype_count; ++a) {
			float r = throng_controller_query_radius(&w->archetypes[a]);
			cell = r > cell ? r : cell;
		}
		float two_r = 2.0f * w->max_radius;
		cell = two_r > cell ? two_r : cell;
		if (cell <= 0.0f) {
			cell = 1.0f;
		}
	}
	return cell;
}

float thr_world_feeler_reach(const throng_world* w, throng_behavior_kind kind)
{
	float reach = 0.0f;
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_controller* c = &w->archetypes[a];
		for (uint32_t k = 0; k < c->slot_count; ++k) {
			if (c->slots[k].enabled && c->slots[k].kind == kind && c->slots[k].params.look_ahead > reach) {
				reach = c->slots[k].params.look_ahead;
			}
		}
	}
	return reach + w->max_radius;
}

uint32_t thr_world_max_cells(const throng_world* w)
{
	// Building a dense grid costs O(cells) a step (clear and prefix-sum the
	// counts): 16 cells an agent keeps that small beside the per-agent
	// work (docs/PERFORMANCE.md, "Known limits: where the time goes", item
	// 3), while sparse worlds (a ring, a field with a few agents) keep
	// cells close to the neighbour radius; sparser ones get a sparse grid
	// of those cells (thr_grid_layout_sparse), with at most this many
	// across and up. 2^24 cells (64 MiB of offsets) at most.
	// From the capacity the world was made with (rounded as
	// throng_world_create rounds it), not the one it grew to, so that
	// growing changes no bit; a part world (part.h) takes the whole world's,
	// so that its grids are the whole world's.
	const uint64_t asked = w->part != NULL ? w->whole.grid_capacity : w->def.capacity;
	const uint64_t capacity = (asked + THR_LANES - 1u) / THR_LANES * THR_LANES;
	uint64_t m = capacity * 16u + 65536u;
	return m > (1u << 24) ? (1u << 24) : (uint32_t)m;
}

/// Distance between the boxes [ax0,ax1]x[ay0,ay1] and [bx0,bx1]x[by0,by1]
/// (0 when they touch).
static double box_gap(double ax0, double ay0, double ax1, double ay1, double bx0, double by0, double bx1,
                      double by1)
{
	const double gx = fmax(fmax(bx0 - ax1, ax0 - bx1), 0.0);
	const double gy = fmax(fmax(by0 - ay1, ay0 - by1), 0.0);
	return sqrt(gx * gx + gy * gy);
}

/// w->shape_clear from the shape grids. Each cell's box is widened by a
/// margin (a hundredth of a cell, plus float rounding at the grid's
/// coordinates) so that a point the grid puts in the cell lies in the box;
/// a shape farther than a cell from the cell is in none of its 3 x 3
/// neighbours (shapes are listed in every cell their box overlaps, clamped
/// to the grid like the points), so the bound is capped at a cell less the
/// margin. Obstacles: the box's distance to the centre less the radius;
/// walls: the box's distance to the wall's bounding box (a lower bound).
/// Returns -1 when out of memory.
static int fill_shape_clearance(throng_world* w)
{
	const thr_box_grid* go = &w->obstacle_grid;
	const thr_box_grid* gw = &w->wall_grid;
	const size_t cells = (size_t)go->nx * (size_t)go->ny;
	if (cells > w->shape_clear_cap) {
		uint8_t* p = realloc(w->shape_clear, cells);
		if (p == NULL) {
			return -1;
		}
		w->shape_clear = p;
		w->shape_clear_cap = (uint32_t)cells;
	}
	const double cell = go->cell;
	const double ext = fmax(fmax(fabs((double)go->min_x), fabs(go->min_x + cell * go->nx)),
	                        fmax(fabs((double)go->min_y), fabs(go->min_y + cell * go->ny)));
	const double e = 0.01 * cell + 1.0e-6 * ext;
	const double cap = cell - e;
	for (int32_t cy = 0; cy < go->ny; ++cy) {
		for (int32_t cx = 0; cx < go->nx; ++cx) {
			const double x0 = go->min_x + cell * cx - e, x1 = go->min_x + cell * (cx + 1) + e;
			const double y0 = go->min_y + cell * cy - e, y1 = go->min_y + cell * (cy + 1) + e;
			double best = cap;
			// The 3 x 3 neighbours, a row's cells at once (a row's cells
			// are contiguous in items; the minimum does not depend on the order).
			const uint32_t nx0 = (uint32_t)(cx > 0 ? cx - 1 : 0);
			const uint32_t nx1 = (uint32_t)(cx + 1 < go->nx ? cx + 1 : cx);
			for (int32_t ny = cy - 1; ny <= cy + 1; ++ny) {
				if (ny < 0 || ny >= go->ny) {
					continue;
				}
				const uint32_t row = (uint32_t)ny * (uint32_t)go->nx;
				uint32_t b, e;
				thr_box_grid_span(go, row + nx0, row + nx1, &b, &e);
				for (uint32_t k = b; k < e; ++k) {
					const thr_obstacle* o = &w->obstacles[go->items[k]];
					const double d = box_gap(x0, y0, x1, y1, o->c.x, o->c.y, o->c.x, o->c.y) - o->r;
					best = d < best ? d : best;
				}
				thr_box_grid_span(gw, row + nx0, row + nx1, &b, &e);
				for (uint32_t k = b; k < e; ++k) {
					const thr_wall* l = &w->walls[gw->items[k]];
					const double d = box_gap(x0, y0, x1, y1, fmin(l->a.x, l->b.x), fmin(l->a.y, l->b.y),
					                         fmax(l->a.x, l->b.x), fmax(l->a.y, l->b.y));
					best = d < best ? d : best;
				}
			}
			// One 255th less than the bound: the decoded float stays below it.
			const double q = floor(best / cell * 255.0) - 1.0;
			w->shape_clear[(size_t)cy * (size_t)go->nx + (size_t)cx] = (uint8_t)(q > 0.0 ? (q < 255.0 ? q : 255.0) : 0.0);
		}
	}
	return 0;
}

throng_status thr_world_update_shape_grids(throng_world* w)
{
	if (!w->shapes_dirty) {
		return THRONG_OK;
	}
	const throng_world_def* d = &w->def;
	float reach_o = thr_world_feeler_reach(w, THRONG_OBSTACLE_AVOID);
	float reach_w = thr_world_feeler_reach(w, THRONG_WALL_AVOID);
	float cell = reach_o > reach_w ? reach_o : reach_w;
	if (cell < 1.0f) {
		cell = 1.0f;
	}
	uint32_t n = w->obstacle_count > w->wall_count ? w->obstacle_count : w->wall_count;
	float* box = malloc((size_t)(n ? n : 1) * 4u * sizeof(float));
	if (box == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape grids");
	}
	float *x0 = box, *y0 = box + n, *x1 = box + 2u * n, *y1 = box + 3u * n;
	int fail = 0;
	thr_box_grid_layout(&w->obstacle_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->obstacle_count; ++i) {
		const thr_obstacle* o = &w->obstacles[i];
		x0[i] = o->c.x - o->r; x1[i] = o->c.x + o->r;
		y0[i] = o->c.y - o->r; y1[i] = o->c.y + o->r;
	}
	fail |= thr_box_grid_build(&w->obstacle_grid, x0, y0, x1, y1, w->obstacle_count);
	thr_box_grid_layout(&w->wall_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->wall_count; ++i) {
		const thr_wall* l = &w->walls[i];
		x0[i] = fminf(l->a.x, l->b.x); x1[i] = fmaxf(l->a.x, l->b.x);
		y0[i] = fminf(l->a.y, l->b.y); y1[i] = fmaxf(l->a.y, l->b.y);
	}
	fail |= thr_box_grid_build(&w->wall_grid, x0, y0, x1, y1, w->wall_count);
	free(box);
	fail = fail || fill_shape_clearance(w);
	if (fail) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape grids");
	}
	w->shape_cell = cell;
	w->shapes_dirty = 0;
	w->shape_version++;
	return THRONG_OK;
}
