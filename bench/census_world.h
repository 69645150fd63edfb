// SPDX-License-Identifier: MIT
// The census's model of a world (private to census*.c): the agent, obstacle
// and wall grids laid out as core/grid.c lays them out, the agents' state
// by id, each archetype as the per-pass world would have it, and the
// running tallies of the replays.
#ifndef THRONG_BENCH_CENSUS_WORLD_H
#define THRONG_BENCH_CENSUS_WORLD_H

#include <math.h>
#include <stdint.h>

#include "common.h"

/// A uniform grid as core/grid.h lays it out: cells of at least `cell`
/// metres, grown by 1.25 until there are at most max_cells; coordinates
/// clamped to the border cells; items grouped by cell.
typedef struct cgrid {
	float min_x, min_y, cell, inv_cell;
	int32_t nx, ny;
	uint32_t* start; ///< nx*ny + 1 offsets
	uint32_t* items;
	uint32_t n_items;
} cgrid;

typedef struct cbox {
	int32_t cx0, cx1, cy0, cy1;
} cbox;

static inline int32_t grid_coord(float v, float min, float inv_cell, int32_t n)
{
	float f = (v - min) * inv_cell;
	if (!(f > 0.0f)) {
		return 0;
	}
	if (f >= (float)n) {
		return n - 1;
	}
	return (int32_t)f;
}

static inline cbox grid_box(const cgrid* g, float x0, float y0, float x1, float y1)
{
	cbox b;
	b.cx0 = grid_coord(x0, g->min_x, g->inv_cell, g->nx);
	b.cx1 = grid_coord(x1, g->min_x, g->inv_cell, g->nx);
	b.cy0 = grid_coord(y0, g->min_y, g->inv_cell, g->ny);
	b.cy1 = grid_coord(y1, g->min_y, g->inv_cell, g->ny);
	return b;
}

/// Items in the cells of box b (rows of cells are contiguous).
static inline uint32_t grid_count(const cgrid* g, cbox b)
{
	if (g->n_items == 0) {
		return 0;
	}
	uint32_t n = 0;
	for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		n += g->start[row + (uint32_t)b.cx1 + 1] - g->start[row + (uint32_t)b.cx0];
	}
	return n;
}

typedef struct nb_slot {
	throng_behavior_kind kind;
	float r2;         ///< neighbor_radius squared, as the engines compute it
	int same_group;
	float t_max, avoid_radius;
} nb_slot;

typedef struct feeler_slot {
	float look_ahead, angle;
} feeler_slot;

/// An archetype as the per-pass world would have it.
typedef struct carch {
	float query_radius;
	int n_nb, n_obs, n_wall;
	nb_slot nb[THRONG_MAX_SLOTS];
	feeler_slot obs[THRONG_MAX_SLOTS], wall[THRONG_MAX_SLOTS];
	double fixed;       ///< per agent: the other slots and the blending
	double finish_simd; ///< per agent: every neighbour slot's finish
	throng_target_rule rule;
} carch;

/// The state, by id, and everything the replays read.
typedef struct cworld {
	uint32_t n;
	float *x, *y, *vx, *vy, *r;
	uint32_t *arch, *group;
	carch* archs;
	uint32_t n_arch;
	cgrid agents, obstacles, walls;
	float* shape; ///< obstacles: x, y, r; walls: ax, ay, bx, by (by index)
	uint32_t n_obstacles, n_walls;
} cworld;

/// Running totals over the sampled agents.
typedef struct tally {
	double agents, candidates, neighbours, lane_slots;
	double obs_cand, obs_lane, wall_cand, wall_lane, target_cand;
	double flops_scalar, flops_simd;
} tally;

/// Loads the scene's world as it would run with only the slots of `keep`.
/// Returns 0, or -1 when memory runs out (free it either way).
int census_world_load(throng_scene* scene, bench_keep keep, cworld* c);
void census_world_free(cworld* c);

static inline int moving(const cworld* c, uint32_t i)
{
	return !(sqrtf(c->vx[i] * c->vx[i] + c->vy[i] * c->vy[i]) < BENCH_EPS);
}

static inline void heading(const cworld* c, uint32_t i, float* hx, float* hy)
{
	float len = sqrtf(c->vx[i] * c->vx[i] + c->vy[i] * c->vy[i]);
	*hx = c->vx[i] / len;
	*hy = c->vy[i] / len;
}

/// The closest-approach gate of unaligned avoidance for i against j at
/// offset (dx, dy): 0 when rv2 < eps, 1 when t is outside [0, T], 2 when
/// the predicted miss is wider than the avoid radius, 3 when it pushes.
static inline int unaligned_gate(const cworld* c, uint32_t i, uint32_t j, float dx, float dy, const nb_slot* q)
{
	float rvx = c->vx[j] - c->vx[i];
	float rvy = c->vy[j] - c->vy[i];
	float rv2 = rvx * rvx + rvy * rvy;
	if (rv2 < BENCH_EPS) {
		return 0;
	}
	float t = -(dx * rvx + dy * rvy) / rv2;
	if (t < 0.0f || t > q->t_max) {
		return 1;
	}
	float fx = dx + rvx * t;
	float fy = dy + rvy * t;
	return sqrtf(fx * fx + fy * fy) > q->avoid_radius ? 2 : 3;
}

/// The SIMD sweep of one archetype's lanes (census_simd.c).
double census_simd_neighbours(const cworld* c, const int64_t* lanes, const carch* A, tally* t);

/// The SIMD feelers of one archetype's lanes (census_simd.c).
double census_simd_feelers(const cworld* c, const int64_t* lanes, const carch* A, tally* t, double* scalar_ops);

#endif
