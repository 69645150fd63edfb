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
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* slot = &c->slots[k];
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
	// Building the grid costs O(cells) a step (clear and prefix-sum the
	// counts): 16 cells an agent keeps that under ~2% of a step, while
	// sparse worlds (a ring, a field with a few agents) keep cells close
	// to the neighbour radius. 2^24 cells (64 MiB of offsets) at most.
	uint64_t m = (uint64_t)w->capacity * 16u + 65536u;
	return m > (1u << 24) ? (1u << 24) : (uint32_t)m;
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
	thr_grid_layout(&w->obstacle_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->obstacle_count; ++i) {
		const thr_obstacle* o = &w->obstacles[i];
		x0[i] = o->c.x - o->r; x1[i] = o->c.x + o->r;
		y0[i] = o->c.y - o->r; y1[i] = o->c.y + o->r;
	}
	fail |= thr_grid_build_boxes(&w->obstacle_grid, x0, y0, x1, y1, w->obstacle_count);
	thr_grid_layout(&w->wall_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->wall_count; ++i) {
		const thr_wall* l = &w->walls[i];
		x0[i] = fminf(l->a.x, l->b.x); x1[i] = fmaxf(l->a.x, l->b.x);
		y0[i] = fminf(l->a.y, l->b.y); y1[i] = fmaxf(l->a.y, l->b.y);
	}
	fail |= thr_grid_build_boxes(&w->wall_grid, x0, y0, x1, y1, w->wall_count);
	free(box);
	if (fail) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape grids");
	}
	w->shape_cell = cell;
	w->shapes_dirty = 0;
	w->shape_version++;
	return THRONG_OK;
}
