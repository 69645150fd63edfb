// SPDX-License-Identifier: MIT
// Per-agent neighbour sweeps of the SIMD engine.
//
// One agent at a time, 8 candidates per vector. Candidates come from the
// rows of grid cells around the agent; each row is one run of memory (the
// agents are sorted by cell). Runs of 8 are loaded straight from the
// arrays; the tails of the rows are pooled and gathered, so sparse crowds
// (one or two neighbours per row) do not pay for three mostly empty
// vectors, and only the last vector of an agent is masked.
//
// Neighbour sums are kept per lane and added up at the end in the fixed
// order of thr_fw_hsum, so they differ from the scalar reference's
// sequential sums by rounding only (tests/test_simd.c bounds it).
#include <stdint.h>

#include "behaviors.h"
#include "engine.h"
#include "fmath.h"
#include "wvec.h"

typedef struct nb_acc {
	thr_fw x, y, n;
} nb_acc;

/// One agent's sweep: its constants and running sums.
typedef struct nb_sweep {
	thr_v2w P, V;
	thr_fw MS, EPS, ONE, ZERO;
	thr_iw ID, GR;
	const thr_arch_info* info;
	const throng_controller* ctl;
	thr_fw r2[THRONG_MAX_SLOTS]; ///< each slot's neighbour radius, squared
	uint32_t touched;            ///< slots that counted a neighbour
	nb_acc acc[THRONG_MAX_SLOTS];
} nb_sweep;

/// Adds 8 candidate neighbours (lanes of `live`) to every neighbour slot.
THR_WIDE_INLINE void nb_chunk(nb_sweep* c, thr_v2w pj, thr_v2w vj, thr_iw idj, thr_iw grj, thr_mw live)
{
	const thr_v2w P = c->P, V = c->V;
	const thr_fw MS = c->MS, EPS = c->EPS, ONE = c->ONE, ZERO = c->ZERO;
	const thr_iw ID = c->ID;
	thr_v2w d = v2w_sub(pj, P);
	thr_fw d2 = v2w_dot(d, d);
	live = thr_mw_andnot(live, thr_iw_eq(idj, ID));
	thr_mw same_group = thr_iw_eq(grj, c->GR);
		for (uint32_t s = 0; s < c->info->n_neighbor_slots; ++s) {
			const throng_slot* slot = &c->ctl->slots[c->info->neighbor_slots[s]];
			const throng_behavior_params* p = &slot->params;
			thr_mw m = thr_mw_and(live, thr_fw_lt(d2, c->r2[s]));
			if (p->same_group_only) {
				m = thr_mw_and(m, same_group);
			}
			if (!thr_mw_any(m)) {
				continue;
			}
			nb_acc* a = &c->acc[s];
			c->touched |= 1u << s;
			switch (slot->kind) {
			case THRONG_UNALIGNED_AVOID: {
				// SPEC.md's formula with one reciprocal per lane in
				// place of the two divisions of each normalize.
				thr_v2w rv = v2w_sub(vj, V);
				thr_fw rv2 = v2w_dot(rv, rv);
				m = thr_mw_andnot(m, thr_fw_lt(rv2, EPS));
				thr_fw t = thr_fw_div(thr_fw_neg(v2w_dot(d, rv)), rv2);
				m = thr_mw_andnot(m, thr_mw_or(thr_fw_lt(t, ZERO), thr_fw_gt(t, thr_fw_set1(p->max_prediction))));
				thr_v2w f = v2w_add(d, v2w_scale(rv, t));
				thr_fw mlen = v2w_length(f);
				m = thr_mw_andnot(m, thr_fw_gt(mlen, thr_fw_set1(p->avoid_radius)));
				if (!thr_mw_any(m)) {
					break;
				}
				thr_fw u = thr_fw_sub(ONE, thr_fw_mul(mlen, thr_fw_set1(1.0f / p->avoid_radius)));
				// A dead head-on course steps aside along perp(rv).
				thr_mw head_on = thr_fw_lt(mlen, EPS);
				thr_v2w dir = f;
				thr_fw len = mlen;
				if (thr_mw_any(head_on)) {
					dir = v2w_select(head_on, v2w_perp(rv), f);
					len = thr_fw_select(head_on, thr_fw_sqrt(rv2), mlen);
				}
				thr_v2w push = v2w_scale(dir, thr_fw_div(thr_fw_mul(MS, u), len));
				a->x = thr_fw_sub(a->x, thr_fw_select(m, push.x, ZERO));
				a->y = thr_fw_sub(a->y, thr_fw_select(m, push.y, ZERO));
				break;
			}
			case THRONG_SEPARATION: {
				thr_fw dist = thr_fw_sqrt(d2);
				thr_v2w away = v2w_sub(P, pj);
				thr_fw mag = thr_fw_mul(MS, thr_fw_sub(ONE, thr_fw_mul(dist, thr_fw_set1(1.0f / p->neighbor_radius))));
				thr_v2w push = v2w_scale(away, thr_fw_div(mag, dist));
				// Coincident agents part along x: the lower id goes -x.
				thr_mw same_spot = thr_fw_lt(dist, EPS);
				if (thr_mw_any(thr_mw_and(m, same_spot))) {
					thr_fw side = thr_fw_select(thr_iw_lt(ID, idj), thr_fw_set1(-1.0f), ONE);
					push = v2w_select(same_spot, v2w(thr_fw_mul(side, mag), ZERO), push);
				}
				a->x = thr_fw_add(a->x, thr_fw_select(m, push.x, ZERO));
				a->y = thr_fw_add(a->y, thr_fw_select(m, push.y, ZERO));
				break;
			}
			case THRONG_ALIGNMENT:
				a->x = thr_fw_add(a->x, thr_fw_select(m, vj.x, ZERO));
				a->y = thr_fw_add(a->y, thr_fw_select(m, vj.y, ZERO));
				a->n = thr_fw_add(a->n, thr_fw_select(m, ONE, ZERO));
				break;
			case THRONG_COHESION:
				a->x = thr_fw_add(a->x, thr_fw_select(m, pj.x, ZERO));
				a->y = thr_fw_add(a->y, thr_fw_select(m, pj.y, ZERO));
				a->n = thr_fw_add(a->n, thr_fw_select(m, ONE, ZERO));
				break;
			default:
				break;
			}
		}
}

void thr_sweep_neighbors(const thr_step_ctx* ctx, const thr_self* self, const thr_arch_info* info,
                         const throng_controller* ctl, float* out_x, float* out_y)
{
	const throng_world* w = ctx->w;
	const thr_state* cs = ctx->cs;
	const thr_grid* g = &w->agent_grid;
	const int32_t* ids = (const int32_t*)w->id;
	const int32_t* groups = (const int32_t*)w->group;
	nb_sweep c;
	c.P = v2w_set1(self->p);
	c.V = v2w_set1(self->v);
	c.MS = thr_fw_set1(self->max_speed);
	c.ID = thr_iw_set1((int32_t)self->id);
	c.GR = thr_iw_set1((int32_t)self->group);
	c.EPS = thr_fw_set1(THR_EPS);
	c.ONE = thr_fw_set1(1.0f);
	c.ZERO = thr_fw_zero();
	c.info = info;
	c.ctl = ctl;
	c.touched = 0;
	for (uint32_t s = 0; s < info->n_neighbor_slots; ++s) {
		float r = ctl->slots[info->neighbor_slots[s]].params.neighbor_radius;
		c.r2[s] = thr_fw_set1(r * r);
		c.acc[s] = (nb_acc){c.ZERO, c.ZERO, c.ZERO};
	}
	// Full runs of 8 are loaded straight from the sorted arrays; the
	// shorter tails of the rows are pooled and gathered, so an agent pays
	// for at most one partly empty vector.
	_Alignas(32) int32_t pending[THR_LANES];
	int np = 0;
	int32_t cx0, cx1, cy0, cy1;
	thr_grid_range(g, self->p.x, self->p.y, info->query_radius, &cx0, &cx1, &cy0, &cy1);
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t k = g->cell_start[row + (uint32_t)cx0];
		uint32_t e = g->cell_start[row + (uint32_t)cx1 + 1];
		for (; k + THR_LANES <= e; k += THR_LANES) {
			nb_chunk(&c, v2w(thr_fw_loadu(cs->px + k), thr_fw_loadu(cs->py + k)),
			         v2w(thr_fw_loadu(cs->vx + k), thr_fw_loadu(cs->vy + k)), thr_iw_loadu(ids + k),
			         thr_iw_loadu(groups + k), thr_mw_true());
		}
		for (; k < e; ++k) {
			pending[np++] = (int32_t)k;
			if (np == THR_LANES) {
				thr_iw idx = thr_iw_load(pending);
				nb_chunk(&c, v2w(thr_fw_gather(cs->px, idx), thr_fw_gather(cs->py, idx)),
				         v2w(thr_fw_gather(cs->vx, idx), thr_fw_gather(cs->vy, idx)), thr_iw_gather(ids, idx),
				         thr_iw_gather(groups, idx), thr_mw_true());
				np = 0;
			}
		}
	}
	if (np > 0) {
		for (int q = np; q < THR_LANES; ++q) {
			pending[q] = pending[0];
		}
		thr_iw idx = thr_iw_load(pending);
		nb_chunk(&c, v2w(thr_fw_gather(cs->px, idx), thr_fw_gather(cs->py, idx)),
		         v2w(thr_fw_gather(cs->vx, idx), thr_fw_gather(cs->vy, idx)), thr_iw_gather(ids, idx),
		         thr_iw_gather(groups, idx), thr_mw_first(np));
	}
	nb_acc* acc = c.acc;
	// Finish each slot as the scalar reference does after its loop.
	for (uint32_t s = 0; s < info->n_neighbor_slots; ++s) {
		uint32_t k = info->neighbor_slots[s];
		if (!(c.touched & (1u << s))) {
			// No neighbour counted: every branch below gives zero.
			out_x[k] = 0.0f;
			out_y[k] = 0.0f;
			continue;
		}
		vec2 sum = v2(thr_fw_hsum(acc[s].x), thr_fw_hsum(acc[s].y));
		float n = thr_fw_hsum(acc[s].n);
		vec2 f = v2(0.0f, 0.0f);
		switch (ctl->slots[k].kind) {
		case THRONG_UNALIGNED_AVOID:
		case THRONG_SEPARATION:
			f = v2_limit(sum, self->max_force);
			break;
		case THRONG_ALIGNMENT:
			if (n > 0.0f) {
				f = v2_limit(v2_sub(v2(sum.x / n, sum.y / n), self->v), self->max_force);
			}
			break;
		case THRONG_COHESION:
			if (n > 0.0f) {
				f = thr_seek(self, v2(sum.x / n, sum.y / n));
			}
			break;
		default:
			break;
		}
		out_x[k] = f.x;
		out_y[k] = f.y;
	}
}
