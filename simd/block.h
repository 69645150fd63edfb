// SPDX-License-Identifier: MIT
// The SIMD engine's private interface between its files: a block of 8
// lanes (thr_lanes), what it reads (thr_wide_ctx), and the stages that
// step it. A header of its own, not pass.c's: the block's files
// (agents.c, sweeps.c, feelers.c, contact.c) and the pass that runs the
// blocks (pass.c) all read it, and no file of the block calls back up
// into pass.c.
//
// Design note. A step of the SIMD engine has two phases.
//  1. Sort (core/step.c and core/store.c, because the engine says it
//     wants sorted agents): agents are bucketed by grid cell with a
//     counting sort that visits agents in id order, so each cell lists its
//     agents by increasing id; the agent store then permutes every
//     per-agent array into that order (ids travel with the agents). Cells
//     of one grid row are contiguous, so the agents of a row of cells form
//     one run of memory.
//  2. The pass (pass.c; agents.c, sweeps.c, feelers.c): blocks of 8
//     consecutive agents, one per lane, in the stages load_w, forces_w,
//     blend_w, integrate_w (the scalar pass's load, forces, blend,
//     integrate); forces and blend run once per distinct archetype in the
//     block. Each lane takes its own neighbours (the rows of cells
//     around it) in exactly the order the scalar reference visits them:
//     where the lanes' rows overlap (lanes of one or two cells), the block
//     walks their union once, each candidate broadcast to every lane;
//     otherwise each lane's k-th candidate is gathered (sweeps.c);
//     the feelers test each obstacle or wall near the block against all 8
//     agents at once (shapes are sparse, agents of a block are close); then
//     the other behaviours, the blending and the integrator.
// Every pass repeats the scalar reference's float operations in its order,
// so the two engines agree bit for bit.
// Phase 2 reads only the sorted previous state and writes only the next
// state of its own block, so OpenMP's static schedule over fixed batches
// of blocks gives the same bits for any thread count. Per-agent reductions
// (neighbour sums) run in a fixed order inside one thread.
#ifndef THRONG_SIMD_BLOCK_H
#define THRONG_SIMD_BLOCK_H

#include <stdint.h>

#include "engine.h" // core/engine.h: the engine interface, the one header of core/ used here
#include "wvec.h"

_Static_assert(THR_WIDE_LANES == THR_LANES, "the wide type and the world's padding must agree on the lane count");

/// Shape data copied into shape-grid item order, so each row of cells is
/// a run of memory (padded by THR_LANES for full-width loads).
typedef struct thr_shape_soa {
	float *a, *b, *c, *d;  ///< obstacles: x, y, r, unused; walls: ax, ay, bx, by
	int32_t* index;        ///< the shape's index (ties break on it)
	uint32_t cap;
} thr_shape_soa;

struct thr_simd_state {
	thr_shape_soa obstacles, walls;
	uint32_t shape_version; ///< world shape_version the SoA copies match
};

/// Everything a block reads, fixed for the step.
typedef struct thr_wide_ctx {
	const throng_world* w;
	const thr_state* cs; ///< sorted previous state
	thr_state* ns;       ///< next state, same order
	const thr_arch_info* arch;
	const thr_shape_soa* obstacles;
	const thr_shape_soa* walls;
	float dt;
	uint32_t step32;
	float time; ///< simulated time at the start of the step
	const thr_step_ctx* step; ///< the step's context (near, clear and thr_contact_shapes for the contact pass)
} thr_wide_ctx;

/// The agents of one block, one per lane.
typedef struct thr_lanes {
	thr_v2w p, v, h;
	thr_fw speed;  ///< |v|, once a block for every behaviour that reads it
	thr_v2w unit;  ///< v * (1 / |v|), (0,0) at rest: normalize(v), the feelers' heading
	thr_fw ms, mf, radius;
	thr_iw id, group;
	int n;        ///< live lanes (the first n)
	int counted;  ///< bit l: lane l's figures count (live, and not a part world's ghost)
	uint32_t base; ///< sorted slot of lane 0
	float lx[8], ly[8], lr[8]; ///< the lanes' positions and radii, as scalars
	float box[4];  ///< bounding box of the live lanes: x0, y0, x1, y1
	float box_r;   ///< the largest radius among them
} thr_lanes;

/// The neighbour slots (info->neighbor_slots) of the lanes of `mask`, all
/// of one archetype: writes f[slot] for each.
void thr_neighbors_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, const thr_arch_info* info,
                     const throng_controller* ctl, thr_v2w* f, thr_pass_stats* st);

/// desired-velocity steering shared by the lanes' behaviours:
/// limit(desired - v, max_force).
THR_WIDE_INLINE thr_v2w thr_steer_toward_w(const thr_lanes* s, thr_v2w desired)
{
	return v2w_limit(v2w_sub(desired, s->v), s->mf);
}

/// thr_seek per lane.
THR_WIDE_INLINE thr_v2w thr_seek_w(const thr_lanes* s, thr_v2w t)
{
	const thr_v2w to = v2w_sub(t, s->p);
	return thr_steer_toward_w(s, v2w_resize(to, v2w_length(to), s->ms));
}

/// thr_obstacle_avoid on the lanes of `mask` (others get 0). Counts its
/// scan into *c unless that is NULL.
thr_v2w thr_obstacles_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead,
                        throng_world_counters* c);

/// thr_wall_avoid on the lanes of `mask` (others get 0). Counts its scan
/// into *c unless that is NULL.
thr_v2w thr_walls_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, float look_ahead, float feeler_angle,
                    throng_world_counters* c);

/// The contact pass's Jacobi step on agents first .. first + 7
/// (simd/contact.c; thr_engine.contact_block).
int thr_simd_contact_block(const thr_contact_iter* it, uint32_t first);

/// Steps the agents of block [base, base + 8) (fewer at the end).
void thr_step_block(const thr_wide_ctx* ctx, uint32_t base, thr_pass_stats* stats);

/// thr_min_image (core/grid.h) along one axis, per lane: pj at its image
/// nearest p in a world of period P (H half of it, NH minus half), the
/// same operations per lane.
THR_WIDE_INLINE thr_fw thr_min_image_w(thr_fw pj, thr_fw p, thr_fw P, thr_fw H, thr_fw NH)
{
	const thr_fw d = thr_fw_sub(pj, p);
	return thr_fw_select(thr_fw_gt(d, H), thr_fw_sub(pj, P), thr_fw_select(thr_fw_lt(d, NH), thr_fw_add(pj, P), pj));
}

/// The clearance (core/world_grid.c, w->shape_clear: a lower bound on the
/// distance from any point of a cell to any obstacle or wall) of the cell
/// of the shape grids' layout under each lane's p, decoded as
/// thr_clear_of_shapes and thr_near_wall decode it; *in: the lanes inside
/// the grid (the others read 0), *cx, *cy: their cells.
THR_WIDE_INLINE thr_fw thr_clearance_w(const throng_world* w, thr_v2w p, thr_mw* in, thr_iw* cx, thr_iw* cy)
{
	const thr_box_grid* g = &w->obstacle_grid;
	const thr_fw ZERO = thr_fw_zero(), INV = thr_fw_set1(g->inv_cell);
	const thr_fw fx = thr_fw_mul(thr_fw_sub(p.x, thr_fw_set1(g->min_x)), INV);
	const thr_fw fy = thr_fw_mul(thr_fw_sub(p.y, thr_fw_set1(g->min_y)), INV);
	*in = thr_mw_and(thr_mw_and(thr_fw_ge(fx, ZERO), thr_fw_lt(fx, thr_fw_set1((float)g->nx))),
	                 thr_mw_and(thr_fw_ge(fy, ZERO), thr_fw_lt(fy, thr_fw_set1((float)g->ny))));
	*cx = thr_fw_to_iw_trunc(fx);
	*cy = thr_fw_to_iw_trunc(fy);
	// Lanes outside the grid read cell 0 and are masked off.
	const thr_iw cell = thr_iw_select(*in, thr_iw_add(thr_iw_mul(*cy, thr_iw_set1((int32_t)g->nx)), *cx), thr_iw_zero());
	const thr_fw clear = thr_fw_mul(thr_fw_mul(thr_iw_to_fw(thr_iw_gather_u8(w->shape_clear, cell)), thr_fw_set1(g->cell)),
	                                thr_fw_set1(0.999f / 255.0f));
	return thr_fw_select(*in, clear, ZERO);
}

#endif
