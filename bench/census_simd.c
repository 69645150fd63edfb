// SPDX-License-Identifier: MIT
// The census's replay of the SIMD engine's neighbour sweep (simd/sweeps.c)
// and feelers (simd/feelers.c) for one archetype's lanes of a block.
#include <math.h>

#include "census_world.h"
#include "cost.h"

/// The SIMD sweep of one archetype's lanes (`lanes` holds ids, -1 for a
/// lane of another archetype or past the end): returns the per-lane
/// operation count and adds the vector steps to the tally.
double census_simd_neighbours(const cworld* c, const int64_t* lanes, const carch* A, tally* t)
{
	const cgrid* g = &c->agents;
	float qr = A->query_radius;
	int32_t cx0[8] = {0}, cx1[8] = {0}, cy0[8] = {0}, rows[8] = {0};
	int max_rows = 0;
	for (int l = 0; l < 8; ++l) {
		rows[l] = 0;
		if (lanes[l] >= 0) {
			uint32_t i = (uint32_t)lanes[l];
			cbox b = grid_box(g, c->x[i] - qr, c->y[i] - qr, c->x[i] + qr, c->y[i] + qr);
			cx0[l] = b.cx0;
			cx1[l] = b.cx1;
			cy0[l] = b.cy0;
			rows[l] = b.cy1 - b.cy0 + 1;
			max_rows = rows[l] > max_rows ? rows[l] : max_rows;
		}
	}
	double ops = A->finish_simd;
	for (int r = 0; r < max_rows; ++r) {
		uint32_t begin[8] = {0}, len[8] = {0}, longest = 0;
		for (int l = 0; l < 8; ++l) {
			if (r < rows[l]) {
				uint32_t row = (uint32_t)(cy0[l] + r) * (uint32_t)g->nx;
				begin[l] = g->start[row + (uint32_t)cx0[l]];
				len[l] = g->start[row + (uint32_t)cx1[l] + 1] - begin[l];
				longest = len[l] > longest ? len[l] : longest;
			}
		}
		for (uint32_t k = 0; k < longest; ++k) {
			t->lane_slots += 8;
			ops += BENCH_OPS_NB_DISTANCE;
			float dx[8], dy[8], d2[8];
			uint32_t jj[8];
			int live[8];
			for (int l = 0; l < 8; ++l) {
				live[l] = k < len[l];
				if (live[l]) {
					uint32_t i = (uint32_t)lanes[l];
					jj[l] = g->items[begin[l] + k];
					live[l] = jj[l] != i;
					dx[l] = c->x[jj[l]] - c->x[i];
					dy[l] = c->y[jj[l]] - c->y[i];
					d2[l] = dx[l] * dx[l] + dy[l] * dy[l];
				}
			}
			for (int s = 0; s < A->n_nb; ++s) {
				const nb_slot* q = &A->nb[s];
				int any = 0, push = 0;
				for (int l = 0; l < 8; ++l) {
					if (!live[l] || !(d2[l] < q->r2) ||
					    (q->same_group && c->group[jj[l]] != c->group[(uint32_t)lanes[l]])) {
						continue;
					}
					any = 1;
					if (q->kind == THRONG_UNALIGNED_AVOID &&
					    unaligned_gate(c, (uint32_t)lanes[l], jj[l], dx[l], dy[l], q) == 3) {
						push = 1;
					}
				}
				if (!any) {
					continue;
				}
				switch (q->kind) {
				case THRONG_UNALIGNED_AVOID:
					ops += BENCH_OPS_UNALIGNED_TEST_SIMD + (push ? BENCH_OPS_UNALIGNED_PUSH_SIMD : 0);
					break;
				case THRONG_SEPARATION: ops += BENCH_OPS_SEPARATION; break;
				default: ops += BENCH_OPS_ALIGN_COHESION; break;
				}
			}
		}
	}
	return ops;
}

/// simd/feelers.c box_of: the cells under the box around the lanes of
/// `bits`, grown by reach (plus their largest radius when radius_too).
static cbox simd_box(const cworld* c, const cgrid* g, const int64_t* lanes, int bits, float reach, int radius_too)
{
	float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, r = 0.0f;
	for (int l = 0; l < 8; ++l) {
		if (bits & (1 << l)) {
			uint32_t i = (uint32_t)lanes[l];
			x0 = fminf(x0, c->x[i]); x1 = fmaxf(x1, c->x[i]);
			y0 = fminf(y0, c->y[i]); y1 = fmaxf(y1, c->y[i]);
			r = fmaxf(r, c->r[i]);
		}
	}
	float grow = radius_too ? reach + r : reach;
	return grid_box(g, x0 - grow, y0 - grow, x1 + grow, y1 + grow);
}

/// The boxes one feeler slot of a block scans: the block's, or each
/// lane's when the block's covers more than 16 cells a lane.
static int simd_boxes(const cworld* c, const cgrid* g, const int64_t* lanes, int bits, float reach, int radius_too,
                      cbox* out)
{
	cbox b = simd_box(c, g, lanes, bits, reach, radius_too);
	int cells = (b.cx1 - b.cx0 + 1) * (b.cy1 - b.cy0 + 1);
	if (cells <= 16 * __builtin_popcount((unsigned)bits)) {
		out[0] = b;
		return 1;
	}
	int n = 0;
	for (int l = 0; l < 8; ++l) {
		if (bits & (1 << l)) {
			out[n++] = simd_box(c, g, lanes, 1 << l, reach, radius_too);
		}
	}
	return n;
}

/// The SIMD feelers of one archetype's lanes: per-lane operations, plus
/// scalar ones (once per block) into *scalar_ops.
double census_simd_feelers(const cworld* c, const int64_t* lanes, const carch* A, tally* t, double* scalar_ops)
{
	double ops = 0;
	int bits = 0;
	for (int l = 0; l < 8; ++l) {
		bits |= (lanes[l] >= 0 && moving(c, (uint32_t)lanes[l])) << l;
	}
	cbox boxes[8];
	for (int s = 0; s < A->n_obs; ++s) {
		ops += BENCH_OPS_FEELER_MOVING;
		if (c->obstacles.n_items == 0 || bits == 0) {
			continue;
		}
		ops += BENCH_OPS_FEELER_HEADING;
		float L = A->obs[s].look_ahead;
		int nb = simd_boxes(c, &c->obstacles, lanes, bits, L, 1, boxes);
		int hit = 0;
		for (int q = 0; q < nb; ++q) {
			uint32_t items = grid_count(&c->obstacles, boxes[q]);
			t->obs_lane += 8.0 * items;
			ops += (double)items * BENCH_OPS_OBSTACLE_TEST;
			for (int32_t cy = boxes[q].cy0; cy <= boxes[q].cy1 && !hit; ++cy) {
				uint32_t row = (uint32_t)cy * (uint32_t)c->obstacles.nx;
				for (uint32_t k = c->obstacles.start[row + (uint32_t)boxes[q].cx0];
				     k < c->obstacles.start[row + (uint32_t)boxes[q].cx1 + 1] && !hit; ++k) {
					const float* o = c->shape + 3u * c->obstacles.items[k];
					for (int l = 0; l < 8 && !hit; ++l) {
						if (!(bits & (1 << l))) {
							continue;
						}
						uint32_t i = (uint32_t)lanes[l];
						float hx, hy;
						heading(c, i, &hx, &hy);
						float along = (o[0] - c->x[i]) * hx + (o[1] - c->y[i]) * hy;
						float lx = o[0] - (c->x[i] + hx * along);
						float ly = o[1] - (c->y[i] + hy * along);
						hit = !(along < 0.0f || along > L) && sqrtf(lx * lx + ly * ly) < o[2] + c->r[i];
					}
				}
			}
		}
		ops += hit ? BENCH_OPS_OBSTACLE_FORCE : 0;
	}
	for (int s = 0; s < A->n_wall; ++s) {
		ops += BENCH_OPS_FEELER_MOVING;
		if (c->walls.n_items == 0 || bits == 0) {
			continue;
		}
		ops += BENCH_OPS_FEELER_HEADING + BENCH_OPS_WALL_ROTATE;
		*scalar_ops += BENCH_OPS_WALL_SINCOS;
		float L = A->wall[s].look_ahead;
		float sn = sinf(A->wall[s].angle), cs = cosf(A->wall[s].angle);
		const float len[3] = {L, 0.5f * L, 0.5f * L};
		int hit[3] = {0, 0, 0};
		int nb = simd_boxes(c, &c->walls, lanes, bits, L, 0, boxes);
		for (int q = 0; q < nb; ++q) {
			uint32_t items = grid_count(&c->walls, boxes[q]);
			t->wall_lane += 8.0 * items;
			ops += (double)items * BENCH_OPS_WALL_TEST_SIMD;
			*scalar_ops += (double)items * BENCH_OPS_WALL_EDGE;
			for (int32_t cy = boxes[q].cy0; cy <= boxes[q].cy1; ++cy) {
				uint32_t row = (uint32_t)cy * (uint32_t)c->walls.nx;
				for (uint32_t k = c->walls.start[row + (uint32_t)boxes[q].cx0];
				     k < c->walls.start[row + (uint32_t)boxes[q].cx1 + 1]; ++k) {
					const float* wl = c->shape + 3u * c->n_obstacles + 4u * c->walls.items[k];
					float ex = wl[2] - wl[0], ey = wl[3] - wl[1];
					for (int l = 0; l < 8; ++l) {
						if (!(bits & (1 << l))) {
							continue;
						}
						uint32_t i = (uint32_t)lanes[l];
						float hx, hy;
						heading(c, i, &hx, &hy);
						const float dir[3][2] = {{hx, hy},
						                         {hx * cs - hy * sn, hx * sn + hy * cs},
						                         {hx * cs + hy * sn, -hx * sn + hy * cs}};
						float apx = wl[0] - c->x[i], apy = wl[1] - c->y[i];
						for (int f = 0; f < 3; ++f) {
							float denom = dir[f][0] * ey - dir[f][1] * ex;
							float tt = (apx * ey - apy * ex) / denom;
							float u = (apx * dir[f][1] - apy * dir[f][0]) / denom;
							hit[f] |= !(fabsf(denom) < BENCH_EPS) &&
							          !(tt < 0.0f || tt > len[f] || u < 0.0f || u > 1.0f);
						}
					}
				}
			}
		}
		ops += (hit[0] + hit[1] + hit[2]) * BENCH_OPS_WALL_FORCE;
	}
	return ops;
}
