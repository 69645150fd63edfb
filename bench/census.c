// SPDX-License-Identifier: MIT
// The census of census.h: the scalar reference's loops replayed per agent,
// the SIMD engine's per block (census_simd.c), over the model of
// census_world.c.
#include "census.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "census_world.h"
#include "cost.h"

/// The scalar reference's neighbour slots for agent i (scalar_engine.c
/// gather_neighbors, behaviors.c's neighbour behaviours).
static void scalar_neighbours(const cworld* c, uint32_t i, const carch* A, tally* t, uint32_t* nb, uint32_t nb_cap)
{
	const cgrid* g = &c->agents;
	float qr = A->query_radius;
	cbox b = grid_box(g, c->x[i] - qr, c->y[i] - qr, c->x[i] + qr, c->y[i] + qr);
	float qr2 = qr * qr;
	uint32_t cand = 0, m = 0;
	for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		for (uint32_t k = g->start[row + (uint32_t)b.cx0]; k < g->start[row + (uint32_t)b.cx1 + 1]; ++k) {
			uint32_t j = g->items[k];
			float dx = c->x[j] - c->x[i];
			float dy = c->y[j] - c->y[i];
			cand++;
			if (dx * dx + dy * dy < qr2 && m < nb_cap) {
				nb[m++] = j;
			}
		}
	}
	t->candidates += cand;
	t->neighbours += m > 0 ? m - 1 : 0; // the list holds the agent itself
	double ops = (double)cand * BENCH_OPS_NB_DISTANCE;
	for (int s = 0; s < A->n_nb; ++s) {
		const nb_slot* q = &A->nb[s];
		uint32_t counted = 0;
		for (uint32_t k = 0; k < m; ++k) {
			uint32_t j = nb[k];
			if (j == i || (q->same_group && c->group[j] != c->group[i])) {
				continue;
			}
			ops += BENCH_OPS_NB_COUNTS;
			float dx = c->x[j] - c->x[i];
			float dy = c->y[j] - c->y[i];
			if (!(dx * dx + dy * dy < q->r2)) {
				continue;
			}
			counted++;
			switch (q->kind) {
			case THRONG_UNALIGNED_AVOID: {
				int gate = unaligned_gate(c, i, j, dx, dy, q);
				ops += BENCH_OPS_UNALIGNED_TEST_SCALAR;
				ops += gate >= 1 ? BENCH_OPS_UNALIGNED_T_SCALAR : 0;
				ops += gate >= 2 ? BENCH_OPS_UNALIGNED_F_SCALAR : 0;
				ops += gate == 3 ? BENCH_OPS_UNALIGNED_PUSH_SCALAR : 0;
				break;
			}
			case THRONG_SEPARATION: ops += BENCH_OPS_SEPARATION; break;
			default: ops += BENCH_OPS_ALIGN_COHESION; break;
			}
		}
		if (q->kind == THRONG_UNALIGNED_AVOID || q->kind == THRONG_SEPARATION) {
			ops += BENCH_OPS_NB_FINISH_PUSH;
		} else if (counted > 0) {
			ops += q->kind == THRONG_ALIGNMENT ? BENCH_OPS_NB_FINISH_ALIGNMENT : BENCH_OPS_NB_FINISH_COHESION;
		}
	}
	t->flops_scalar += ops;
}

/// The scalar reference's obstacle and wall slots for agent i.
static void scalar_feelers(const cworld* c, uint32_t i, const carch* A, tally* t)
{
	float hx = 0.0f, hy = 0.0f;
	int mv = moving(c, i);
	if (mv) {
		heading(c, i, &hx, &hy);
	}
	double ops = 0;
	for (int s = 0; s < A->n_obs; ++s) {
		float L = A->obs[s].look_ahead;
		float reach = L + c->r[i];
		cbox b = grid_box(&c->obstacles, c->x[i] - reach, c->y[i] - reach, c->x[i] + reach, c->y[i] + reach);
		uint32_t n = grid_count(&c->obstacles, b);
		t->obs_cand += n;
		if (n == 0) {
			continue;
		}
		ops += BENCH_OPS_FEELER_MOVING;
		if (!mv) {
			continue;
		}
		ops += BENCH_OPS_FEELER_HEADING;
		int hit = 0;
		for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
			uint32_t row = (uint32_t)cy * (uint32_t)c->obstacles.nx;
			for (uint32_t k = c->obstacles.start[row + (uint32_t)b.cx0];
			     k < c->obstacles.start[row + (uint32_t)b.cx1 + 1]; ++k) {
				const float* o = c->shape + 3u * c->obstacles.items[k];
				float along = (o[0] - c->x[i]) * hx + (o[1] - c->y[i]) * hy;
				ops += BENCH_OPS_OBSTACLE_ALONG;
				if (along < 0.0f || along > L) {
					continue;
				}
				ops += BENCH_OPS_OBSTACLE_TEST - BENCH_OPS_OBSTACLE_ALONG;
				float lx = o[0] - (c->x[i] + hx * along);
				float ly = o[1] - (c->y[i] + hy * along);
				hit |= sqrtf(lx * lx + ly * ly) < o[2] + c->r[i];
			}
		}
		ops += hit ? BENCH_OPS_OBSTACLE_FORCE : 0;
	}
	for (int s = 0; s < A->n_wall; ++s) {
		float L = A->wall[s].look_ahead;
		cbox b = grid_box(&c->walls, c->x[i] - L, c->y[i] - L, c->x[i] + L, c->y[i] + L);
		uint32_t n = grid_count(&c->walls, b);
		t->wall_cand += n;
		if (n == 0) {
			continue;
		}
		ops += BENCH_OPS_FEELER_MOVING;
		if (!mv) {
			continue;
		}
		ops += BENCH_OPS_FEELER_HEADING + BENCH_OPS_WALL_SINCOS + BENCH_OPS_WALL_ROTATE;
		float sn = sinf(A->wall[s].angle), cs = cosf(A->wall[s].angle);
		const float dir[3][2] = {{hx, hy}, {hx * cs - hy * sn, hx * sn + hy * cs}, {hx * cs + hy * sn, -hx * sn + hy * cs}};
		const float len[3] = {L, 0.5f * L, 0.5f * L};
		for (int f = 0; f < 3; ++f) {
			int hit = 0;
			for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
				uint32_t row = (uint32_t)cy * (uint32_t)c->walls.nx;
				for (uint32_t k = c->walls.start[row + (uint32_t)b.cx0];
				     k < c->walls.start[row + (uint32_t)b.cx1 + 1]; ++k) {
					const float* wl = c->shape + 3u * c->n_obstacles + 4u * c->walls.items[k];
					float ex = wl[2] - wl[0], ey = wl[3] - wl[1];
					float denom = dir[f][0] * ey - dir[f][1] * ex;
					ops += BENCH_OPS_WALL_DENOM_SCALAR;
					if (fabsf(denom) < BENCH_EPS) {
						continue;
					}
					ops += BENCH_OPS_WALL_HIT_SCALAR;
					float apx = wl[0] - c->x[i], apy = wl[1] - c->y[i];
					float tt = (apx * ey - apy * ex) / denom;
					float u = (apx * dir[f][1] - apy * dir[f][0]) / denom;
					hit |= !(tt < 0.0f || tt > len[f] || u < 0.0f || u > 1.0f);
				}
			}
			ops += hit ? BENCH_OPS_WALL_FORCE : 0;
		}
	}
	t->flops_scalar += ops;
}

/// Target selection for agent i (core/targeting.c), both engines.
static double target_ops(const cworld* c, uint32_t i, const carch* A, tally* t)
{
	if (!A->rule.enabled) {
		return 0;
	}
	const cgrid* g = &c->agents;
	float r = A->rule.sight_radius;
	cbox b = grid_box(g, c->x[i] - r, c->y[i] - r, c->x[i] + r, c->y[i] + r);
	double n = 0;
	for (int32_t cy = b.cy0; cy <= b.cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		for (uint32_t k = g->start[row + (uint32_t)b.cx0]; k < g->start[row + (uint32_t)b.cx1 + 1]; ++k) {
			uint32_t j = g->items[k];
			n += j != i && c->group[j] == A->rule.group;
		}
	}
	double every = A->rule.every > 0 ? (double)A->rule.every : 1.0;
	t->target_cand += n / every;
	return (1.0 + BENCH_OPS_TARGET_CANDIDATE * n) / every;
}

/// One block of the SIMD engine (agents.c thr_step_block) and, for each of
/// its agents, the scalar reference.
static void replay_block(const cworld* c, const uint32_t* ids, int n, tally* t, uint32_t* nb, uint32_t nb_cap)
{
	int done[8] = {0};
	double lane_ops = BENCH_OPS_INTEGRATE, scalar_ops = 0, target = 0;
	for (int l = 0; l < 8; ++l) {
		done[l] = l >= n;
	}
	for (int first = 0; first < n; ++first) {
		if (done[first]) {
			continue;
		}
		uint32_t a = c->arch[ids[first]];
		const carch* A = &c->archs[a];
		int64_t lanes[8];
		for (int l = 0; l < 8; ++l) {
			lanes[l] = !done[l] && c->arch[ids[l]] == a ? (int64_t)ids[l] : -1;
			done[l] |= lanes[l] >= 0;
		}
		lane_ops += A->fixed;
		if (A->n_nb > 0) {
			lane_ops += census_simd_neighbours(c, lanes, A, t);
		}
		lane_ops += census_simd_feelers(c, lanes, A, t, &scalar_ops);
	}
	for (int l = 0; l < n; ++l) {
		uint32_t i = ids[l];
		const carch* A = &c->archs[c->arch[i]];
		t->flops_scalar += A->fixed + BENCH_OPS_INTEGRATE;
		if (A->n_nb > 0) {
			scalar_neighbours(c, i, A, t, nb, nb_cap);
		}
		scalar_feelers(c, i, A, t);
		target += target_ops(c, i, A, t);
	}
	t->flops_scalar += target;
	t->flops_simd += 8.0 * lane_ops + scalar_ops + target;
	t->agents += n;
}

int bench_census_take(throng_scene* scene, bench_keep keep, bench_census* out)
{
	memset(out, 0, sizeof *out);
	cworld c;
	uint32_t* nb = NULL;
	if (census_world_load(scene, keep, &c) != 0 || (nb = malloc(((size_t)c.n + 1) * sizeof *nb)) == NULL) {
		census_world_free(&c);
		return -1;
	}
	uint32_t blocks = (c.n + 7u) / 8u;
	uint32_t stride = blocks > BENCH_CENSUS_BLOCKS ? blocks / BENCH_CENSUS_BLOCKS : 1u;
	tally t;
	memset(&t, 0, sizeof t);
	// The SIMD engine's next sort: by cell, ids increasing within a cell,
	// which is the agent grid's item order.
	for (uint32_t b = 0; b < blocks; b += stride) {
		uint32_t first = b * 8u;
		int n = c.n - first < 8u ? (int)(c.n - first) : 8;
		replay_block(&c, c.agents.items + first, n, &t, nb, c.n + 1u);
	}
	double a = t.agents > 0 ? t.agents : 1;
	size_t cells = (size_t)c.agents.nx * (size_t)c.agents.ny;
	out->agents = c.n;
	out->sampled = (uint32_t)t.agents;
	out->cells = (uint32_t)cells;
	out->cell = c.agents.cell;
	out->candidates = t.candidates / a;
	out->neighbours = t.neighbours / a;
	out->lane_slots = t.lane_slots / a;
	out->obstacle_candidates = t.obs_cand / a;
	out->obstacle_lane_tests = t.obs_lane / a;
	out->wall_candidates = t.wall_cand / a;
	out->wall_lane_tests = t.wall_lane / a;
	out->target_candidates = t.target_cand / a;
	out->flops_scalar = t.flops_scalar / a;
	out->flops_simd = t.flops_simd / a;
	double per_cell = c.n > 0 ? (double)cells * BENCH_BYTES_CELL / (double)c.n : 0.0;
	out->bytes_scalar = BENCH_BYTES_SCALAR_AGENT + per_cell;
	out->bytes_simd = BENCH_BYTES_SIMD_AGENT + per_cell;
	free(nb);
	census_world_free(&c);
	return 0;
}
