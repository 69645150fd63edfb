// SPDX-License-Identifier: MIT
// Neighbour behaviours of the SIMD engine, 8 agents per vector.
//
// Each lane walks its own neighbours: the rows of grid cells around its
// agent, row by row and, within a row, slot by slot. Agents are sorted by
// cell and by id within a cell, so a row of cells is one run of memory and
// the k-th candidate of a lane in a row is simply its row start plus k.
//
// In a wrap world a lane's rows and columns continue across the seam
// (core/grid.h, thr_grid_walk: up to two runs each way, one span a row's
// run) and each candidate is taken at its nearest image (nb_image), so
// nb_step reads positions already shifted.
//
// That is exactly the order in which the scalar reference visits
// neighbours (core/grid.c's query: rows up, cells left to right, slots in
// order, which for the reference is id order), and each lane accumulates
// with the reference's float operations, skipped neighbours leaving the
// sums untouched (a select, not an add of zero). So the neighbour forces
// equal the reference's bit for bit, like every other force.
//
// The walk takes one of three shapes, chosen per block (and per row of
// cells for the last two); all give each lane the same candidates in the
// same order, so the same bits:
// - sweep (the common case in a crowd: lanes of one or two cells): when
//   the lanes' runs overlap (a broadcast step serves NB_BROADCAST_LANES
//   lanes on average) and no slot can fill on any lane (fewer candidates
//   than the smallest cap), the block walks the
//   union of its runs once, every candidate loaded once and broadcast to
//   all 8 lanes (no gather), the lanes outside its run masked, and every
//   slot takes it at once where it counts. A loop for each mix of kinds of
//   the built-in scenes holds only that mix's arithmetic, each kind's sums
//   in locals of their own;
// - direct, a row whose runs overlap as much in a block that may fill a
//   slot: the same broadcast, the slots taking each candidate through
//   nb_step, which closes a lane whose slots are all full;
// - held, any other row: each lane's k-th candidate (broadcast where the
//   runs overlap, else gathered) measured, and held in a small per-lane list
//   when it is another agent within some slot's radius; when a lane's list
//   is full, and at the end, the slots take the k-th held candidate of
//   every lane at once (take_held), so that their arithmetic runs on full
//   vectors. A lane that closes takes back its candidates examined after
//   its last neighbour.
//
// Caps (docs/BEHAVIORS.md, "Neighbour caps"): a slot takes at most its
// max_neighbors neighbours, the first that count (a mask, as in the
// reference's loops); a lane examines at most THRONG_CANDIDATES_PER_NEIGHBOR
// times the largest of them candidates (its rows are cut to what is left)
// and stops, as the reference's gather does, at the candidate where every
// slot is full. So a lane's work is bounded however dense the crowd, and
// the forces stay the reference's bits.
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "block.h"
#include "fmath.h"
#include "wmath.h"

/// Running sums of one neighbour slot, per lane.
typedef struct nb_acc {
	thr_v2w sum;  ///< push (unaligned, separation) or sum of v or p
	thr_iw count; ///< neighbours counted (alignment, cohesion)
	thr_fw r2;    ///< neighbor_radius squared, as the reference computes it
	thr_fw inv_r; ///< 1 / neighbor_radius (separation)
	thr_iw met;   ///< neighbours taken so far (those that count, up to cap)
	thr_iw cap;   ///< max_neighbors
	thr_fw least; ///< headway: the least spacing ahead (+Inf: none)
	thr_fw rest;  ///< anticipation: max(1 - |v| / max_speed, 0), once a block
} nb_acc;

/// anticipation_one (core/behaviors.c) on the lanes of `on`: the neighbour
/// at pj moving at vj, of radius rj, d = pj - p and d2 = |d|^2; rest is
/// max(1 - |v| / max_speed, 0). Writes its push to *out and returns the
/// lanes where it pushes (only those of `on` mean anything); the same
/// operations in the same order.
///
/// Cost: the costly part (square roots, divisions, the exponential) runs
/// only where some lane of `on` can push, which a few products and
/// comparisons decide first; on the other lanes the result is the one the
/// full arithmetic gives there (anticipation_one's early return):
/// - a time to collision needs b < 0: with a >= EPS and disc > 0, b >= 0
///   makes -b - sqrt(disc) negative (never rounded to +0), so tau <= 0;
/// - the side push without one needs sqrt(d2) < 2 r, which (the square
///   root correctly rounded and monotone, 2 r a float) means d2 < (2 r)^2
///   exactly, so d2 <= the rounded (2 r)(2 r).
/// Where no lane of `on` can have a time to collision, the force part is
/// the zero vector the full arithmetic selects there, and the sum below is
/// computed from it as before (0 * wgt, then the add), so no bit moves.
THR_WIDE_INLINE thr_mw anticipation_w(const thr_lanes* s, const throng_behavior_params* p, thr_mw on, thr_v2w d,
                                      thr_fw d2, thr_v2w pj, thr_v2w vj, thr_fw rj, thr_fw rest, thr_v2w* out)
{
	const thr_fw ZERO = thr_fw_zero();
	const thr_fw ONE = thr_fw_set1(1.0f);
	const thr_v2w x = v2w_sub(s->p, pj);
	const thr_v2w v = v2w_sub(s->v, vj);
	const thr_fw r = thr_fw_add(s->radius, rj);
	const thr_fw ahead = v2w_dot(s->h, d);
	const thr_fw a = v2w_dot(v, v);
	const thr_fw b = v2w_dot(x, v);
	const thr_fw c = thr_fw_sub(d2, thr_fw_mul(r, r));
	const thr_fw disc = thr_fw_sub(thr_fw_mul(b, b), thr_fw_mul(a, c));
	thr_mw hit = thr_mw_and(thr_fw_gt(c, ZERO), thr_fw_gt(disc, ZERO));
	hit = thr_mw_andnot(hit, thr_fw_lt(a, thr_fw_set1(THR_EPS)));
	const thr_fw reach = thr_fw_mul(thr_fw_set1(2.0f), r);
	const thr_mw in_front = thr_fw_gt(ahead, ZERO);
	// The lanes of `on` that may push: a collision course ahead in time
	// (b < 0), or in front within reach.
	const thr_mw may_hit = thr_mw_and(on, thr_mw_and(hit, thr_fw_lt(b, ZERO)));
	const thr_mw may_near = thr_mw_and(on, thr_mw_and(in_front, thr_fw_le(d2, thr_fw_mul(reach, reach))));
	if (!thr_mw_any(thr_mw_or(may_hit, may_near))) {
		*out = v2w_zero();
		return thr_mw_false();
	}
	const thr_fw dist = thr_fw_sqrt(d2);
	const thr_fw cosphi = thr_fw_select(thr_fw_gt(dist, thr_fw_set1(THR_EPS)), thr_fw_div(ahead, dist), ZERO);
	const thr_fw lam = thr_fw_set1(p->fov_weight);
	const thr_fw wgt = thr_fw_add(lam, thr_fw_mul(thr_fw_sub(ONE, lam),
	                                              thr_fw_mul(thr_fw_add(ONE, cosphi), thr_fw_set1(0.5f))));
	thr_fw m = ZERO;
	thr_v2w f = v2w_zero();
	if (thr_mw_any(may_hit)) {
		const thr_fw sq = thr_fw_sqrt(disc);
		const thr_fw tau = thr_fw_div(thr_fw_sub(thr_fw_neg(b), sq), a);
		hit = thr_mw_and(hit, thr_mw_and(thr_fw_gt(tau, ZERO), thr_fw_le(tau, thr_fw_set1(p->ttc_max_time))));
		const thr_v2w g = v2w_sub(v2w_scale(v, thr_fw_add(sq, b)), v2w_scale(x, a));
		const thr_fw gl = v2w_length(g);
		hit = thr_mw_and(hit, thr_fw_gt(gl, ZERO));
		const thr_fw tau0 = thr_fw_set1(p->ttc_horizon);
		const thr_fw e = thr_expf_w(thr_fw_div(thr_fw_neg(tau), tau0));
		const thr_fw coef =
		    thr_fw_mul(thr_fw_div(thr_fw_mul(thr_fw_set1(p->ttc_strength), e), thr_fw_mul(thr_fw_mul(a, tau), tau)),
		               thr_fw_add(thr_fw_div(thr_fw_set1(2.0f), tau), thr_fw_set1(1.0f / p->ttc_horizon)));
		const thr_fw mag = thr_fw_div(thr_fw_mul(coef, gl), sq);
		m = thr_fw_select(thr_fw_lt(mag, s->mf), mag, s->mf);
		m = thr_fw_select(hit, m, ZERO);
		f = v2w_select(hit, v2w_scale(g, thr_fw_div(thr_fw_neg(m), gl)), v2w_zero());
	} else {
		hit = thr_mw_false(); // no lane of `on` has a time to collision in (0, ttc_max_time]
	}
	const thr_mw near = thr_mw_and(in_front, thr_fw_lt(dist, reach));
	const thr_fw close = thr_fw_mul(thr_fw_mul(thr_fw_mul(s->ms, thr_fw_sub(ONE, thr_fw_div(dist, reach))), rest), wgt);
	thr_fw side = thr_fw_select(hit, thr_fw_mul(m, wgt), close);
	const thr_mw oncoming = thr_fw_lt(v2w_dot(vj, s->h), ZERO);
	side = thr_fw_select(thr_mw_and(in_front, oncoming), side, ZERO);
	side = thr_fw_mul(thr_fw_set1(p->side_bias), side);
	const thr_v2w right = v2w(s->h.y, thr_fw_neg(s->h.x));
	*out = v2w_add(v2w_scale(f, wgt), v2w_scale(right, side));
	return thr_mw_or(hit, near);
}

/// One neighbour slot of kind `kind` takes candidate j (at pj moving at vj,
/// of radius rj, at `slot_j` of ids; d = pj - p, d2 = |d|^2) on the lanes of
/// `m`, those where j counts for it: thr_unaligned_avoid, thr_separation,
/// thr_alignment, thr_cohesion, thr_headway and thr_anticipation for one
/// neighbour, the same operations in the same order. Reads ids only where
/// separation meets two agents on one point. Inlined with `kind` a
/// constant where a walk runs one slot at a time (sweep_slot).
THR_WIDE_INLINE void nb_body(throng_behavior_kind kind, const thr_lanes* s, const throng_behavior_params* p,
                             nb_acc* a, thr_mw m, thr_v2w d, thr_fw d2, thr_v2w pj, thr_v2w vj, thr_fw rj,
                             thr_iw slot_j, const int32_t* ids, throng_world_counters* c)
{
	const thr_fw EPS = thr_fw_set1(THR_EPS);
	const thr_fw ONE = thr_fw_set1(1.0f);
	const thr_fw ZERO = thr_fw_zero();
	switch (kind) {
	case THRONG_UNALIGNED_AVOID: {
		thr_v2w rv = v2w_sub(vj, s->v);
		thr_fw rv2 = v2w_dot(rv, rv);
		m = thr_mw_andnot(m, thr_fw_lt(rv2, EPS));
		thr_fw t = thr_fw_div(thr_fw_neg(v2w_dot(d, rv)), rv2);
		m = thr_mw_andnot(m, thr_mw_or(thr_fw_lt(t, ZERO), thr_fw_gt(t, thr_fw_set1(p->max_prediction))));
		thr_v2w f = v2w_add(d, v2w_scale(rv, t));
		thr_fw mlen = v2w_length(f);
		thr_fw R = thr_fw_set1(p->avoid_radius);
		m = thr_mw_andnot(m, thr_fw_gt(mlen, R));
		if (!thr_mw_any(m)) {
			break;
		}
		if (c != NULL) {
			c->unaligned_push_lanes += THR_LANES;
		}
		thr_fw u = thr_fw_sub(ONE, thr_fw_div(mlen, R));
		thr_fw mag = thr_fw_mul(s->ms, u);
		thr_v2w step = v2w_scale(f, thr_fw_div(mag, mlen));
		const thr_mw head_on = thr_fw_lt(mlen, EPS);
		if (thr_mw_any(thr_mw_and(m, head_on))) {
			step = v2w_select(head_on, v2w_scale(v2w_perp(v2w_normalize(rv)), mag), step);
		}
		a->sum = v2w_select(m, v2w_sub(a->sum, step), a->sum);
		break;
	}
	case THRONG_SEPARATION: {
		// (p - p_j) * (max_speed * (1/d - 1/r)): one division.
		thr_fw dist = thr_fw_sqrt(d2);
		thr_v2w away = v2w_sub(s->p, pj);
		thr_v2w push = v2w_scale(away, thr_fw_mul(s->ms, thr_fw_sub(thr_fw_div(ONE, dist), a->inv_r)));
		const thr_mw coincide = thr_fw_lt(dist, EPS);
		if (thr_mw_any(thr_mw_and(m, coincide))) {
			const thr_iw idj = thr_iw_gather(ids, slot_j);
			thr_fw side = thr_fw_select(thr_iw_lt(s->id, idj), thr_fw_set1(-1.0f), ONE);
			thr_fw mag = thr_fw_mul(s->ms, thr_fw_sub(ONE, thr_fw_mul(dist, a->inv_r)));
			push = v2w_select(coincide, v2w_scale(v2w(side, ZERO), mag), push);
		}
		a->sum = v2w_select(m, v2w_add(a->sum, push), a->sum);
		break;
	}
	case THRONG_ALIGNMENT:
		a->sum = v2w_select(m, v2w_add(a->sum, vj), a->sum);
		a->count = thr_iw_sub(a->count, thr_mw_as_iw(m)); // a true mask is -1
		break;
	case THRONG_COHESION:
		a->sum = v2w_select(m, v2w_add(a->sum, pj), a->sum);
		a->count = thr_iw_sub(a->count, thr_mw_as_iw(m));
		break;
	case THRONG_HEADWAY: {
		const thr_fw l = thr_fw_add(s->radius, rj);
		m = thr_mw_and(m, thr_fw_gt(v2w_dot(d, s->h), ZERO));
		m = thr_mw_and(m, thr_fw_lt(thr_fw_abs(v2w_dot(d, v2w_perp(s->h))), l));
		if (!thr_mw_any(m)) {
			break; // nobody in the corridor ahead: least stays
		}
		const thr_fw gap = thr_fw_sub(thr_fw_sqrt(d2), l);
		a->least = thr_fw_select(thr_mw_and(m, thr_fw_lt(gap, a->least)), gap, a->least);
		break;
	}
	case THRONG_ANTICIPATION: {
		thr_v2w push;
		m = thr_mw_and(m, anticipation_w(s, p, m, d, d2, pj, vj, rj, a->rest, &push));
		a->sum = v2w_select(m, v2w_add(a->sum, push), a->sum);
		break;
	}
	default:
		break;
	}
}

/// Adds candidate neighbours (pj, vj, of group grj and radius rj, at `slot`
/// of ids) on the lanes of `live`, never the lane's own agent, to every
/// neighbour slot (nb_body), each taking the first `cap` that count for it.
/// Counts the slots' arithmetic into *c unless that is NULL. Returns the
/// lanes where some slot still takes neighbours.
THR_WIDE_INLINE thr_mw nb_step(const thr_lanes* s, const thr_arch_info* info, const throng_controller* ctl,
                             nb_acc* acc, thr_v2w pj, thr_v2w vj, thr_fw rj, thr_iw slot_j, const int32_t* ids,
                             thr_iw grj, thr_mw live, throng_world_counters* c)
{
	// counts(): another agent (the walk held no lane's own agent), of the
	// same group when asked, within r.
	const thr_v2w d = v2w_sub(pj, s->p);
	const thr_fw d2 = v2w_dot(d, d);
	const thr_mw same_group = thr_iw_eq(grj, s->group);
	thr_mw open = thr_mw_false();
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		const throng_slot* slot = &ctl->slots[info->neighbor_slots[q]];
		nb_acc* a = &acc[q];
		thr_mw m = thr_mw_and(live, thr_fw_lt(d2, a->r2));
		if (slot->params.same_group_only) {
			m = thr_mw_and(m, same_group);
		}
		// The first `cap` neighbours that count, whatever they push.
		m = thr_mw_and(m, thr_iw_lt(a->met, a->cap));
		a->met = thr_iw_sub(a->met, thr_mw_as_iw(m)); // a true mask is -1
		open = thr_mw_or(open, thr_iw_lt(a->met, a->cap));
		if (!thr_mw_any(m)) {
			continue;
		}
		if (c != NULL) {
			c->neighbor_body_lanes[slot->kind] += THR_LANES;
		}
		nb_body(slot->kind, s, &slot->params, a, m, d, d2, pj, vj, rj, slot_j, ids, c);
	}
	return open;
}

/// Candidates a lane holds, in walk order, before its slots take them.
#define NB_HELD 32

/// The candidates of the walk within some slot's radius, compacted per
/// lane: lane l holds n[l], the k-th being slot[k][l], and seen[k][l] is
/// how many candidates lane l had examined with it.
typedef struct nb_held {
	_Alignas(32) int32_t slot[NB_HELD][THR_LANES];
	_Alignas(32) int32_t seen[NB_HELD][THR_LANES];
	_Alignas(32) int32_t n[THR_LANES];
	/// Counting only: the grid cells lane l had scanned with slot[k][l],
	/// and so far.
	int32_t cells_seen[NB_HELD][THR_LANES];
	int32_t cells[THR_LANES];
} nb_held;

/// A wrap world's period along each axis, for the walk's nearest images.
typedef struct nb_wrap {
	bool on;           ///< the world wraps (grid.h, thr_grid_walk)
	thr_fw px, py;     ///< the period along x and y
	thr_fw hx, hy;     ///< half of it
	thr_fw nhx, nhy;   ///< minus half of it
} nb_wrap;

/// pj at its image nearest to the lanes' own positions p (thr_min_image_w
/// on both axes, the periods set once a walk).
THR_WIDE_INLINE thr_v2w nb_image(const nb_wrap* wr, thr_v2w pj, thr_v2w p)
{
	return v2w(thr_min_image_w(pj.x, p.x, wr->px, wr->hx, wr->nhx), thr_min_image_w(pj.y, p.y, wr->py, wr->hy, wr->nhy));
}

/// The slots take the held candidates, the k-th of every lane at once
/// (nb_step). A lane whose slots are all full closes there: its examined
/// count (and, counting, its scanned cells) becomes the one it had at that
/// candidate, and it takes no more. Empties the hold; returns the lanes
/// still walking.
THR_WIDE_INLINE thr_mw take_held(const thr_wide_ctx* ctx, const thr_lanes* s, const thr_arch_info* info,
                                 const throng_controller* ctl, nb_acc* acc, nb_held* h, thr_mw open,
                                 thr_iw* examined, const nb_wrap* wr, throng_world_counters* c)
{
	const thr_state* cs = ctx->cs;
	const int32_t* ids = (const int32_t*)ctx->w->id;
	const int32_t* groups = (const int32_t*)ctx->w->group;
	bool by_group = false; // some slot counts its own group only
	bool radii = false;    // some slot reads the neighbours' radii (anticipation, headway)
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		by_group = by_group || ctl->slots[info->neighbor_slots[q]].params.same_group_only;
		radii = radii || ctl->slots[info->neighbor_slots[q]].kind == THRONG_ANTICIPATION ||
		        ctl->slots[info->neighbor_slots[q]].kind == THRONG_HEADWAY;
	}
	const thr_iw N = thr_iw_load(h->n);
	int32_t most = 0;
	for (int l = 0; l < THR_LANES; ++l) {
		most = h->n[l] > most ? h->n[l] : most;
	}
	for (int32_t k = 0; k < most; ++k) {
		const thr_mw live = thr_mw_and(thr_iw_lt(thr_iw_set1(k), N), open);
		if (!thr_mw_any(live)) {
			break;
		}
		// Lanes past their count read slot 0, a valid index, and are ignored.
		const thr_iw slot = thr_iw_select(live, thr_iw_load(h->slot[k]), thr_iw_zero());
		thr_v2w pj = v2w(thr_fw_gather(cs->px, slot), thr_fw_gather(cs->py, slot));
		if (wr->on) {
			pj = nb_image(wr, pj, s->p);
		}
		const thr_v2w vj = v2w(thr_fw_gather(cs->vx, slot), thr_fw_gather(cs->vy, slot));
		const thr_iw grj = by_group ? thr_iw_gather(groups, slot) : thr_iw_zero();
		const thr_fw rj = radii ? thr_fw_gather(ctx->w->radius, slot) : thr_fw_zero();
		const thr_mw still = nb_step(s, info, ctl, acc, pj, vj, rj, slot, ids, grj, live, c);
		const thr_mw closed = thr_mw_andnot(live, still);
		if (c != NULL) {
			// Held candidates are the other agents inside the query radius
			// (the largest slot radius), as the reference counts them.
			c->neighbor_in_radius += (uint64_t)__builtin_popcount((unsigned)thr_mw_movemask(live));
		}
		if (thr_mw_any(closed)) {
			*examined = thr_iw_select(closed, thr_iw_load(h->seen[k]), *examined);
			open = thr_mw_andnot(open, closed);
			if (c != NULL) {
				const int bits = thr_mw_movemask(closed);
				for (int l = 0; l < THR_LANES; ++l) {
					h->cells[l] = (bits & (1 << l)) ? h->cells_seen[k][l] : h->cells[l];
				}
			}
		}
	}
	thr_iw_store(h->n, thr_iw_zero());
	return open;
}

/// The walk's state across its candidate steps.
typedef struct nb_walk {
	const thr_wide_ctx* ctx;
	const thr_lanes* s;
	const thr_arch_info* info;
	const throng_controller* ctl;
	nb_acc* acc;
	nb_held* held;
	throng_world_counters* c;
	thr_iw examined; ///< candidates each lane examined
	thr_fw nearest;  ///< each lane's least squared distance to another agent examined
	thr_iw self;     ///< each lane's own slot
	thr_fw reach2;   ///< the largest slot radius, squared
	nb_wrap wrap;    ///< a wrap world's periods
} nb_walk;

/// What walk_one and walk_direct measure of candidate slot[l] at *pj on
/// the lanes of `live`: counts it examined, keeps each lane's nearest other
/// agent, and returns the lanes where it is another agent within some
/// slot's radius (those that hold or take it). *pj becomes its nearest
/// image in a wrap world.
THR_WIDE_INLINE thr_mw walk_measure(nb_walk* wk, thr_iw slot, thr_v2w* pj, thr_mw live)
{
	const thr_lanes* s = wk->s;
	wk->examined = thr_iw_sub(wk->examined, thr_mw_as_iw(live));
	if (wk->wrap.on) {
		*pj = nb_image(&wk->wrap, *pj, s->p);
	}
	const thr_v2w d = v2w_sub(*pj, s->p);
	const thr_fw d2 = v2w_dot(d, d);
	const thr_mw other = thr_mw_andnot(live, thr_iw_eq(slot, wk->self));
	wk->nearest = thr_fw_select(thr_mw_and(other, thr_fw_lt(d2, wk->nearest)), d2, wk->nearest);
	if (wk->c != NULL) {
		wk->c->neighbor_lane_slots += THR_LANES;
	}
	return thr_mw_and(other, thr_fw_lt(d2, wk->reach2));
}

/// One candidate step: candidate slot[l] at pj on the lanes of `live`.
/// Counts it examined, measures it, holds it where it is another agent
/// within some slot's radius; the slots take the held candidates when a
/// lane's hold is full. Returns the lanes still walking.
THR_WIDE_INLINE thr_mw walk_one(nb_walk* wk, thr_iw slot, thr_v2w pj, thr_mw live, thr_mw open)
{
	const thr_lanes* s = wk->s;
	nb_held* held = wk->held;
	throng_world_counters* c = wk->c;
	// Every lane writes its candidate at its count (no branch on the
	// lanes); the count moves on where the lane holds it.
	const thr_mw hold = walk_measure(wk, slot, &pj, live);
	_Alignas(32) int32_t sl[THR_LANES], ex[THR_LANES];
	thr_iw_store(sl, slot);
	thr_iw_store(ex, wk->examined);
	for (int l = 0; l < THR_LANES; ++l) {
		held->slot[held->n[l]][l] = sl[l];
		held->seen[held->n[l]][l] = ex[l];
		if (c != NULL) {
			held->cells_seen[held->n[l]][l] = held->cells[l];
		}
	}
	const thr_iw n = thr_iw_sub(thr_iw_load(held->n), thr_mw_as_iw(hold));
	thr_iw_store(held->n, n);
	if (thr_mw_any(thr_iw_eq(n, thr_iw_set1(NB_HELD)))) {
		open = take_held(wk->ctx, s, wk->info, wk->ctl, wk->acc, held, open, &wk->examined, &wk->wrap, c);
	}
	return open;
}

/// One candidate step handed to every lane at once: candidate k, loaded
/// once and broadcast (no gather), on the lanes of `live` (those whose run
/// holds k). Counts it examined and measures it as walk_one does; where it
/// is another agent within some slot's radius, the slots take it at once
/// (nb_step), so nothing is held. The walk empties the hold before its
/// first direct step, so each lane still takes its neighbours in walk
/// order. Returns the lanes still walking.
THR_WIDE_INLINE thr_mw walk_direct(nb_walk* wk, int32_t k, thr_mw live, thr_mw open)
{
	const thr_state* cs = wk->ctx->cs;
	const throng_world* w = wk->ctx->w;
	const thr_lanes* s = wk->s;
	throng_world_counters* c = wk->c;
	const thr_iw K = thr_iw_set1(k);
	thr_v2w pj = v2w(thr_fw_set1(cs->px[k]), thr_fw_set1(cs->py[k]));
	const thr_mw hold = walk_measure(wk, K, &pj, live);
	if (!thr_mw_any(hold)) {
		return open;
	}
	const thr_v2w vj = v2w(thr_fw_set1(cs->vx[k]), thr_fw_set1(cs->vy[k]));
	const thr_iw grj = thr_iw_set1((int32_t)w->group[k]);
	const thr_fw rj = thr_fw_set1(w->radius[k]);
	const thr_mw still = nb_step(s, wk->info, wk->ctl, wk->acc, pj, vj, rj, K, (const int32_t*)w->id, grj, hold, c);
	if (c != NULL) {
		c->neighbor_in_radius += (uint64_t)__builtin_popcount((unsigned)thr_mw_movemask(hold));
	}
	return thr_mw_andnot(open, thr_mw_andnot(hold, still));
}

/// Spans a block's walk keeps (thr_grid_walk's spans: 3 rows where cells
/// are as wide as the query radius, twice that across a wrap world's seam);
/// a walk with more reads its spans one by one.
#define NB_ROWS 16

/// How many lanes a broadcast step must serve on average for the walk to
/// broadcast (sweep, walk_direct): the lanes' runs over their union. A
/// broadcast step runs a slot's arithmetic for every lane whose run holds
/// the candidate; a held step (take_held) runs it for 8 lanes' own held
/// candidates. Lanes of one cell share every run (8), lanes of two
/// neighbouring cells most (about 6); in a sparse crowd a block's lanes lie
/// in cells apart (`field`: about 2), and holding wins.
#ifndef NB_BROADCAST_LANES
#define NB_BROADCAST_LANES 4
#endif

/// Each lane's run of candidates in one span of its walk (empty past its
/// spans), and the union of the runs.
typedef struct nb_run {
	_Alignas(32) int32_t begin[THR_LANES];
	_Alignas(32) int32_t len[THR_LANES]; ///< cut to the lane's candidates left
	int32_t cells[THR_LANES];            ///< cells the lane scans (none once it has no candidates left)
	int32_t lo, hi;                      ///< the union of the non-empty runs: [lo, hi)
	int32_t longest;                     ///< the longest run
} nb_run;

/// Span r of every lane's walk gw (rows[l] spans each), its runs cut to
/// left[l] candidates, which it lowers.
static inline void nb_row(const thr_grid* g, const thr_grid_walk* gw, const int32_t* rows, int r, uint32_t* left,
                          nb_run* run)
{
	run->lo = INT32_MAX;
	run->hi = 0;
	run->longest = 0;
	for (int l = 0; l < THR_LANES; ++l) {
		run->begin[l] = run->len[l] = run->cells[l] = 0;
		if (r >= rows[l]) {
			continue;
		}
		int32_t cy, cx0, cx1;
		thr_grid_walk_span(&gw[l], r, &cy, &cx0, &cx1);
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		const int32_t begin = (int32_t)g->cell_start[k0];
		uint32_t n = g->cell_start[k1] - (uint32_t)begin;
		run->cells[l] = left[l] > 0 ? cx1 - cx0 + 1 : 0;
		n = n < left[l] ? n : left[l];
		left[l] -= n;
		run->begin[l] = begin;
		run->len[l] = (int32_t)n;
		run->longest = (int32_t)n > run->longest ? (int32_t)n : run->longest;
		if (n > 0) {
			run->lo = begin < run->lo ? begin : run->lo;
			run->hi = begin + (int32_t)n > run->hi ? begin + (int32_t)n : run->hi;
		}
	}
}

/// The neighbour kinds, in the order sweep takes them (each kind has its
/// own sums, so the order between slots moves no bit).
static const throng_behavior_kind sweep_kinds[] = {THRONG_UNALIGNED_AVOID, THRONG_SEPARATION, THRONG_ALIGNMENT,
                                                   THRONG_COHESION,        THRONG_HEADWAY,    THRONG_ANTICIPATION};
#define SWEEP_KINDS (sizeof sweep_kinds / sizeof sweep_kinds[0])

/// A block's slots as sweep takes them: for each of sweep_kinds (bit i of
/// `kinds`), its slot (an index of the walk's acc) and parameters.
typedef struct sweep_plan {
	unsigned kinds;
	int q[SWEEP_KINDS];
	const throng_behavior_params* p[SWEEP_KINDS];
	bool by_group; ///< some slot counts its own group only
} sweep_plan;

/// Whether the block may take every candidate in one broadcast sweep
/// (sweep), and its plan: each neighbour kind in at most one slot; the
/// lanes' runs overlap (NB_BROADCAST_LANES lanes a step on average); and no
/// slot can fill on any lane (each lane examines fewer candidates than the
/// smallest cap), so that no lane closes before its walk ends.
static inline bool sweep_fits(const nb_run* runs, int n_rows, const thr_arch_info* info,
                              const throng_controller* ctl, sweep_plan* plan)
{
	// The overlap first: it turns a sparse crowd's blocks away at once.
	int64_t lanes = 0, steps = 0;
	int32_t most = 0; // the most candidates a lane examines
	_Alignas(32) int32_t total[THR_LANES];
	thr_iw sum = thr_iw_zero();
	for (int r = 0; r < n_rows; ++r) {
		steps += runs[r].longest > 0 ? runs[r].hi - runs[r].lo : 0;
		sum = thr_iw_add(sum, thr_iw_load(runs[r].len));
	}
	thr_iw_store(total, sum);
	for (int l = 0; l < THR_LANES; ++l) {
		lanes += total[l];
		most = total[l] > most ? total[l] : most;
	}
	if (lanes < steps * NB_BROADCAST_LANES) {
		return false;
	}
	plan->kinds = 0;
	plan->by_group = false;
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		const throng_slot* slot = &ctl->slots[info->neighbor_slots[q]];
		uint32_t i = 0;
		while (i < SWEEP_KINDS && sweep_kinds[i] != slot->kind) {
			++i;
		}
		if (i == SWEEP_KINDS || (plan->kinds & (1u << i))) {
			return false; // not a neighbour kind, or its second slot
		}
		if ((uint32_t)most >= thr_max_neighbors(&slot->params)) {
			return false; // a lane might fill this slot
		}
		plan->kinds |= 1u << i;
		plan->q[i] = (int)q;
		plan->p[i] = &slot->params;
		plan->by_group = plan->by_group || slot->params.same_group_only;
	}
	return true;
}

/// The lanes of the runs' union whose run holds candidate K.
THR_WIDE_INLINE thr_mw sweep_live(thr_iw K, thr_iw B, thr_iw E)
{
	return thr_mw_andnot(thr_iw_lt(K, E), thr_iw_lt(K, B));
}

/// The slot of kind sweep_kinds[i], if `kinds` has it, its sums in *a,
/// takes candidate k on the lanes of `other` where it counts, as nb_step
/// does for that slot. `kinds` and `kind` are constants where inlined, so
/// the loop holds only the block's kinds' arithmetic.
THR_WIDE_INLINE void sweep_take(const nb_walk* wk, const sweep_plan* plan, unsigned kinds, uint32_t i,
                                throng_behavior_kind kind, nb_acc* a, int32_t k, thr_mw other, thr_mw same_group,
                                thr_v2w d, thr_fw d2, thr_v2w pj)
{
	if (!(kinds & (1u << i))) {
		return;
	}
	const throng_behavior_params* p = plan->p[i];
	const throng_world* w = wk->ctx->w;
	const thr_state* cs = wk->ctx->cs;
	thr_mw m = thr_mw_and(other, thr_fw_lt(d2, a->r2));
	if (p->same_group_only) {
		m = thr_mw_and(m, same_group);
	}
	// Alignment and cohesion are two selects: cheaper than the branch. They
	// count what they take (their met is their count, set after the walk).
	const bool cheap = kind == THRONG_ALIGNMENT || kind == THRONG_COHESION;
	if (!cheap) {
		a->met = thr_iw_sub(a->met, thr_mw_as_iw(m)); // a true mask is -1
	}
	if (!cheap || wk->c != NULL) {
		if (!thr_mw_any(m)) {
			return;
		}
		if (wk->c != NULL) {
			wk->c->neighbor_body_lanes[kind] += THR_LANES;
		}
	}
	const thr_v2w vj = v2w(thr_fw_set1(cs->vx[k]), thr_fw_set1(cs->vy[k]));
	const thr_fw rj = thr_fw_set1(w->radius[k]);
	nb_body(kind, wk->s, p, a, m, d, d2, pj, vj, rj, thr_iw_set1(k), (const int32_t*)w->id, wk->c);
}

/// What a sweep carries from candidate to candidate: each kind's sums,
/// named one by one (no index that is not a constant, so that they can stay
/// in registers), and the lanes' nearest other agent.
typedef struct sweep_sums {
	nb_acc a0, a1, a2, a3, a4, a5;
	thr_fw nearest;
} sweep_sums;

/// Candidate k for the lanes of `other` (those whose run holds it, never
/// the lane's own agent): measured, and taken by each slot of `kinds`.
THR_WIDE_INLINE void sweep_one(const nb_walk* wk, const sweep_plan* plan, unsigned kinds, sweep_sums* u, int32_t k,
                               thr_mw other)
{
	const thr_state* cs = wk->ctx->cs;
	const thr_lanes* s = wk->s;
	throng_world_counters* c = wk->c;
	thr_v2w pj = v2w(thr_fw_set1(cs->px[k]), thr_fw_set1(cs->py[k]));
	if (wk->wrap.on) {
		pj = nb_image(&wk->wrap, pj, s->p);
	}
	const thr_v2w d = v2w_sub(pj, s->p);
	const thr_fw d2 = v2w_dot(d, d);
	u->nearest = thr_fw_select(thr_mw_and(other, thr_fw_lt(d2, u->nearest)), d2, u->nearest);
	if (c != NULL) {
		c->neighbor_lane_slots += THR_LANES;
		const thr_mw in = thr_mw_and(other, thr_fw_lt(d2, wk->reach2));
		c->neighbor_in_radius += (uint64_t)__builtin_popcount((unsigned)thr_mw_movemask(in));
	}
	const thr_mw same =
	    plan->by_group ? thr_iw_eq(thr_iw_set1((int32_t)wk->ctx->w->group[k]), s->group) : other;
	sweep_take(wk, plan, kinds, 0, THRONG_UNALIGNED_AVOID, &u->a0, k, other, same, d, d2, pj);
	sweep_take(wk, plan, kinds, 1, THRONG_SEPARATION, &u->a1, k, other, same, d, d2, pj);
	sweep_take(wk, plan, kinds, 2, THRONG_ALIGNMENT, &u->a2, k, other, same, d, d2, pj);
	sweep_take(wk, plan, kinds, 3, THRONG_COHESION, &u->a3, k, other, same, d, d2, pj);
	sweep_take(wk, plan, kinds, 4, THRONG_HEADWAY, &u->a4, k, other, same, d, d2, pj);
	sweep_take(wk, plan, kinds, 5, THRONG_ANTICIPATION, &u->a5, k, other, same, d, d2, pj);
}

/// Whether every lane with candidates in `run` has the same run (lanes of
/// one cell, away from a wrap world's seam).
static inline bool sweep_uniform(const nb_run* run)
{
	for (int l = 0; l < THR_LANES; ++l) {
		if (run->len[l] > 0 && (run->begin[l] != run->lo || run->begin[l] + run->len[l] != run->hi)) {
			return false;
		}
	}
	return true;
}

/// sweep with the block's kinds `kinds` (a constant where inlined).
THR_WIDE_INLINE void sweep_kinds_run(nb_walk* wk, const nb_run* runs, int n_rows, const sweep_plan* plan,
                                     unsigned kinds)
{
	throng_world_counters* c = wk->c;
	sweep_sums u = {.nearest = wk->nearest};
#define SWEEP_ACC(i, a, to_walk)                                                                                       \
	if (kinds & (1u << (i))) {                                                                                     \
		if (to_walk) {                                                                                             \
			wk->acc[plan->q[i]] = a;                                                                           \
		} else {                                                                                                   \
			a = wk->acc[plan->q[i]];                                                                           \
		}                                                                                                          \
	}
	SWEEP_ACC(0, u.a0, false) SWEEP_ACC(1, u.a1, false) SWEEP_ACC(2, u.a2, false)
	SWEEP_ACC(3, u.a3, false) SWEEP_ACC(4, u.a4, false) SWEEP_ACC(5, u.a5, false)
	thr_iw examined = wk->examined;
	const int32_t self0 = (int32_t)wk->s->base;
	for (int r = 0; r < n_rows; ++r) {
		const nb_run* run = &runs[r];
		const thr_iw B = thr_iw_load(run->begin);
		const thr_iw LEN = thr_iw_load(run->len);
		examined = thr_iw_add(examined, LEN);
		if (c != NULL) {
			for (int l = 0; l < THR_LANES; ++l) {
				wk->held->cells[l] += run->cells[l];
			}
		}
		if (run->longest == 0) {
			continue;
		}
		if (sweep_uniform(run)) {
			// Every lane with candidates here meets every candidate of the
			// run: only the lanes' own agents, [self0, self0 + 8), need a
			// mask of their own.
			const thr_mw all = thr_iw_gt(LEN, thr_iw_zero());
			const int32_t s0 = self0 < run->lo ? run->lo : self0 > run->hi ? run->hi : self0;
			const int32_t s1 = self0 + THR_LANES < s0 ? s0 : self0 + THR_LANES > run->hi ? run->hi : self0 + THR_LANES;
			for (int32_t k = run->lo; k < s0; ++k) {
				sweep_one(wk, plan, kinds, &u, k, all);
			}
			for (int32_t k = s0; k < s1; ++k) {
				sweep_one(wk, plan, kinds, &u, k, thr_mw_andnot(all, thr_iw_eq(thr_iw_set1(k), wk->self)));
			}
			for (int32_t k = s1; k < run->hi; ++k) {
				sweep_one(wk, plan, kinds, &u, k, all);
			}
			continue;
		}
		const thr_iw E = thr_iw_add(B, LEN);
		for (int32_t k = run->lo; k < run->hi; ++k) {
			const thr_iw K = thr_iw_set1(k);
			sweep_one(wk, plan, kinds, &u, k, thr_mw_andnot(sweep_live(K, B, E), thr_iw_eq(K, wk->self)));
		}
	}
	wk->nearest = u.nearest;
	wk->examined = examined;
	u.a2.met = thr_iw_add(u.a2.met, u.a2.count); // the walk's first sums: both started at 0
	u.a3.met = thr_iw_add(u.a3.met, u.a3.count);
	SWEEP_ACC(0, u.a0, true) SWEEP_ACC(1, u.a1, true) SWEEP_ACC(2, u.a2, true)
	SWEEP_ACC(3, u.a3, true) SWEEP_ACC(4, u.a4, true) SWEEP_ACC(5, u.a5, true)
#undef SWEEP_ACC
}

/// Bits of sweep_plan.kinds.
#define SWEEP_UA (1u << 0)
#define SWEEP_SEP (1u << 1)
#define SWEEP_ALI (1u << 2)
#define SWEEP_COH (1u << 3)
#define SWEEP_HW (1u << 4)
#define SWEEP_ANT (1u << 5)

/// The walk as one broadcast sweep (sweep_fits says when): along each
/// span's union of runs, every candidate loaded once and handed to all
/// lanes (those outside its run masked), measured (examined, nearest, and,
/// counting, within the query radius), and taken by every slot where it
/// counts. No lane closes, so each lane's slots take exactly the
/// neighbours, in the order, of walk_direct. The built-in scenes' mixes of
/// kinds have a loop each, holding only their arithmetic; any other mix
/// runs the loop that tests each kind.
static void sweep(nb_walk* wk, const nb_run* runs, int n_rows, const sweep_plan* plan)
{
	switch (plan->kinds) {
	case SWEEP_SEP:
		sweep_kinds_run(wk, runs, n_rows, plan, SWEEP_SEP);
		break;
	case SWEEP_UA | SWEEP_SEP:
		sweep_kinds_run(wk, runs, n_rows, plan, SWEEP_UA | SWEEP_SEP);
		break;
	case SWEEP_SEP | SWEEP_ALI | SWEEP_COH:
		sweep_kinds_run(wk, runs, n_rows, plan, SWEEP_SEP | SWEEP_ALI | SWEEP_COH);
		break;
	case SWEEP_HW | SWEEP_ANT:
		sweep_kinds_run(wk, runs, n_rows, plan, SWEEP_HW | SWEEP_ANT);
		break;
	default:
		sweep_kinds_run(wk, runs, n_rows, plan, plan->kinds);
		break;
	}
}

/// thr_neighbors_w, counting its work into *c unless c is NULL. Inlined
/// into thr_neighbors_w with c NULL and into neighbors_counted, so a world
/// that does not count runs the walk without a trace of the counting.
THR_WIDE_INLINE void neighbors_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, const thr_arch_info* info,
                                 const throng_controller* ctl, thr_v2w* f, thr_pass_stats* st,
                                 throng_world_counters* c)
{
	const throng_world* w = ctx->w;
	const thr_state* cs = ctx->cs;
	const thr_grid* g = &w->agent_grid;
	nb_acc acc[THRONG_MAX_SLOTS];
	float reach2 = 0.0f; // the largest slot radius, squared as the slots square theirs
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		float r = ctl->slots[info->neighbor_slots[q]].params.neighbor_radius;
		acc[q].sum = v2w_zero();
		acc[q].count = thr_iw_zero();
		acc[q].r2 = thr_fw_set1(r * r);
		acc[q].inv_r = thr_fw_set1(1.0f / r);
		reach2 = r * r > reach2 ? r * r : reach2;
		acc[q].met = thr_iw_zero();
		acc[q].least = thr_fw_set1(INFINITY);
		acc[q].rest = thr_fw_zero();
		if (ctl->slots[info->neighbor_slots[q]].kind == THRONG_ANTICIPATION) {
			// thr_anticipation's rest, once for the block, not a neighbour.
			const thr_fw rest0 = thr_fw_sub(thr_fw_set1(1.0f), thr_fw_div(s->speed, s->ms));
			acc[q].rest = thr_fw_select(thr_fw_gt(rest0, thr_fw_zero()), rest0, thr_fw_zero());
		}
		// Counts stay below 2^31 (a world holds at most 10^8 agents), so a
		// larger cap is the same as INT32_MAX.
		uint32_t cap = thr_max_neighbors(&ctl->slots[info->neighbor_slots[q]].params);
		acc[q].cap = thr_iw_set1(cap > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)cap);
	}

	// Each lane's spans of cells (thr_grid_walk: rows of thr_grid_range's
	// block, continued across the seam in a wrap world).
	const float* px = s->lx;
	const float* py = s->ly;
	thr_grid_walk gw[THR_LANES];
	int32_t rows[THR_LANES];
	int bits = thr_mw_movemask(mask);
	int max_rows = 0;
	for (int l = 0; l < THR_LANES; ++l) {
		rows[l] = 0;
		if (bits & (1 << l)) {
			thr_grid_walk_init(g, px[l], py[l], info->query_radius, &gw[l]);
			rows[l] = gw[l].spans;
			max_rows = rows[l] > max_rows ? rows[l] : max_rows;
		}
	}
	// The candidate cap (a lane's rows are cut to what is left of it) and
	// the lanes still walking: every slot full closes a lane for good.
	const uint64_t limit64 = (uint64_t)info->most_cap * THRONG_CANDIDATES_PER_NEIGHBOR;
	const uint32_t limit = limit64 > UINT32_MAX ? UINT32_MAX : (uint32_t)limit64;
	uint32_t left[THR_LANES];
	for (int l = 0; l < THR_LANES; ++l) {
		left[l] = limit;
	}
	thr_mw open = mask;
	// Each lane's least squared distance to another agent examined
	// (thr_step_ctx.near; the scalar walk's `nearest`).
	float* const near = ctx->step->near;
	// Two phases, so that the slots' arithmetic runs on full vectors. The
	// walk measures each lane's candidates and holds those inside some
	// slot's radius (another agent: not the lane's own slot); the slots take
	// them, in the order held, whenever a lane's hold is full and at the end.
	// A candidate outside every radius changes no slot, so each lane sees
	// the same neighbours in the same order as in a walk that took every
	// candidate as it came; a lane that closes (every slot full) takes back
	// the candidates examined after its last one.
	nb_held held;
	thr_iw_store(held.n, thr_iw_zero());
	memset(held.cells, 0, sizeof held.cells);
	nb_walk wk = {
	    .ctx = ctx,
	    .s = s,
	    .info = info,
	    .ctl = ctl,
	    .acc = acc,
	    .held = &held,
	    .c = c,
	    .examined = thr_iw_zero(),
	    .nearest = thr_fw_set1(INFINITY),
	    .self = thr_iw_add(thr_iw_set1((int32_t)s->base), thr_iw_iota()),
	    .reach2 = thr_fw_set1(reach2),
	    .wrap = {g->period_x > 0.0f, thr_fw_set1(g->period_x), thr_fw_set1(g->period_y),
	             thr_fw_set1(0.5f * g->period_x), thr_fw_set1(0.5f * g->period_y),
	             thr_fw_set1(-(0.5f * g->period_x)), thr_fw_set1(-(0.5f * g->period_y))},
	};
	// Each lane's run of every span, when there are few enough to keep.
	nb_run runs[NB_ROWS];
	const bool kept = max_rows <= NB_ROWS;
	if (kept) {
		for (int r = 0; r < max_rows; ++r) {
			nb_row(g, gw, rows, r, left, &runs[r]);
		}
		sweep_plan plan;
		if (sweep_fits(runs, max_rows, info, ctl, &plan)) {
			sweep(&wk, runs, max_rows, &plan);
			goto walked;
		}
	}
	for (int r = 0; r < max_rows && thr_mw_any(open); ++r) {
		nb_run one;
		const nb_run* run = &runs[kept ? r : 0];
		if (!kept) {
			nb_row(g, gw, rows, r, left, &one);
			run = &one;
		}
		if (c != NULL) {
			// A lane scans this row's cells if it is still walking and has
			// candidates left, as the reference's loop condition says.
			const int walking = thr_mw_movemask(open);
			for (int l = 0; l < THR_LANES; ++l) {
				held.cells[l] += (walking & (1 << l)) ? run->cells[l] : 0;
			}
		}
		const int32_t lo = run->lo, hi = run->hi, longest = run->longest;
		const thr_iw B = thr_iw_load(run->begin);
		const thr_iw LEN = thr_iw_load(run->len);
		// Each lane's k-th candidate in the row is its begin plus k. When
		// the lanes' runs overlap enough (lanes of one cell share rows), the
		// walk goes along their union instead, one candidate for every lane
		// at once (a broadcast, not a gather), each lane taking the part
		// inside its own run: the same candidates in the same order. The
		// slots take each at once (walk_direct), after what the hold has.
		if (longest > 0 && hi - lo <= longest + longest / 4) {
			const thr_iw E = thr_iw_add(B, LEN);
			int64_t lanes = 0;
			for (int l = 0; l < THR_LANES; ++l) {
				lanes += run->len[l];
			}
			if (lanes >= (int64_t)(hi - lo) * NB_BROADCAST_LANES) {
				if (thr_mw_any(thr_iw_gt(thr_iw_load(held.n), thr_iw_zero()))) {
					open = take_held(ctx, s, info, ctl, acc, &held, open, &wk.examined, &wk.wrap, c);
				}
				for (int32_t k = lo; k < hi && thr_mw_any(open); ++k) {
					const thr_iw K = thr_iw_set1(k);
					const thr_mw live = thr_mw_and(sweep_live(K, B, E), open);
					if (thr_mw_any(live)) {
						open = walk_direct(&wk, k, live, open);
					}
				}
				continue;
			}
			for (int32_t k = lo; k < hi; ++k) {
				const thr_iw K = thr_iw_set1(k);
				const thr_mw live = thr_mw_and(sweep_live(K, B, E), open);
				const thr_v2w pj = v2w(thr_fw_set1(cs->px[k]), thr_fw_set1(cs->py[k]));
				open = walk_one(&wk, K, pj, live, open);
			}
			continue;
		}
		for (int32_t k = 0; k < longest; ++k) {
			thr_iw K = thr_iw_set1(k);
			thr_mw live = thr_mw_and(thr_iw_lt(K, LEN), open);
			if (!thr_mw_any(live)) {
				break;
			}
			// Masked lanes read slot 0, a valid index, and are ignored.
			thr_iw slot = thr_iw_select(live, thr_iw_add(B, K), thr_iw_zero());
			const thr_v2w pj = v2w(thr_fw_gather(cs->px, slot), thr_fw_gather(cs->py, slot));
			open = walk_one(&wk, slot, pj, live, open);
		}
	}
	if (thr_mw_any(thr_iw_gt(thr_iw_load(held.n), thr_iw_zero()))) {
		open = take_held(ctx, s, info, ctl, acc, &held, open, &wk.examined, &wk.wrap, c);
	}
walked:;
	const thr_iw examined = wk.examined;
	const thr_fw nearest = wk.nearest;

	// The walk's figures, as the reference's gather counts them.
	_Alignas(32) int32_t ex[THR_LANES], mt[THR_LANES], full[THR_LANES];
	thr_iw_store(ex, examined);
	thr_iw full_any = thr_iw_zero();
	thr_iw most = thr_iw_zero();
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		full_any = thr_iw_or(full_any, thr_mw_as_iw(thr_mw_not(thr_iw_lt(acc[q].met, acc[q].cap))));
		most = thr_iw_select(thr_iw_gt(acc[q].met, most), acc[q].met, most);
	}
	thr_iw_store(mt, most);
	thr_iw_store(full, full_any);
	_Alignas(32) float nr[THR_LANES];
	thr_fw_store(nr, nearest);
	for (int l = 0; l < THR_LANES; ++l) {
		if (bits & (1 << l)) {
			uint32_t e = (uint32_t)ex[l];
			if (near != NULL) {
				near[s->base + (uint32_t)l] = e == limit || full[l] != 0 ? THR_NEAR_UNKNOWN : nr[l];
			}
			if ((s->counted >> l & 1) == 0) {
				continue; // a part world's ghost
			}
			st->nb_candidates += e;
			st->nb_most_candidates = e > st->nb_most_candidates ? e : st->nb_most_candidates;
			st->nb_most_met = (uint32_t)mt[l] > st->nb_most_met ? (uint32_t)mt[l] : st->nb_most_met;
			st->nb_capped += (uint64_t)(e == limit || full[l] != 0);
		}
	}
	if (c != NULL) {
		c->neighbor_walks += (uint64_t)__builtin_popcount((unsigned)bits);
		for (int l = 0; l < THR_LANES; ++l) {
			c->neighbor_cells += (uint64_t)held.cells[l];
		}
		for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
			_Alignas(32) int32_t met[THR_LANES];
			thr_iw_store(met, acc[q].met); // 0 on the lanes outside the mask
			uint64_t taken = 0;
			for (int l = 0; l < THR_LANES; ++l) {
				taken += (uint64_t)met[l];
			}
			c->neighbor_taken[ctl->slots[info->neighbor_slots[q]].kind] += taken;
		}
	}

	// Finish each slot as the reference does after its loop.
	for (uint32_t q = 0; q < info->n_neighbor_slots; ++q) {
		uint32_t k = info->neighbor_slots[q];
		const nb_acc* a = &acc[q];
		switch (ctl->slots[k].kind) {
		case THRONG_UNALIGNED_AVOID:
		case THRONG_SEPARATION:
		case THRONG_ANTICIPATION:
			f[k] = v2w_limit(a->sum, s->mf);
			break;
		case THRONG_ALIGNMENT:
		case THRONG_COHESION: {
			thr_mw any = thr_iw_gt(a->count, thr_iw_zero());
			thr_fw c = thr_iw_to_fw(a->count);
			thr_v2w mean = v2w_unit(a->sum, c); // sum * (1 / count)
			thr_v2w g2 = ctl->slots[k].kind == THRONG_ALIGNMENT ? thr_steer_toward_w(s, mean) : thr_seek_w(s, mean);
			f[k] = v2w_select(any, g2, v2w_zero());
			break;
		}
		case THRONG_HEADWAY: { // the speed it allows (thr_headway); blend_w makes it a force
			const thr_fw speed = thr_fw_div(a->least, thr_fw_set1(ctl->slots[k].params.time_gap));
			f[k] = v2w(thr_fw_select(thr_fw_gt(speed, thr_fw_zero()), speed, thr_fw_zero()), thr_fw_zero());
			break;
		}
		default:
			f[k] = v2w_zero();
			break;
		}
	}
}

static __attribute__((noinline)) void neighbors_counted(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask,
                                                         const thr_arch_info* info, const throng_controller* ctl,
                                                         thr_v2w* f, thr_pass_stats* st)
{
	neighbors_w(ctx, s, mask, info, ctl, f, st, st->counts);
}

void thr_neighbors_w(const thr_wide_ctx* ctx, const thr_lanes* s, thr_mw mask, const thr_arch_info* info,
                     const throng_controller* ctl, thr_v2w* f, thr_pass_stats* st)
{
	if (st->counts != NULL) {
		neighbors_counted(ctx, s, mask, info, ctl, f, st);
		return;
	}
	neighbors_w(ctx, s, mask, info, ctl, f, st, NULL);
}
