// SPDX-License-Identifier: MIT
// The contact pass's Jacobi step on 8 agents per vector: the wide twin of
// core/contact/iterations.c's jacobi (thr_contact_block), the same operations in the
// same order per lane, so the same bits. Each lane walks its own list of
// pairs; a lane whose list is shorter than the longest of the block, or
// whose pair does not overlap, keeps its sums by a select (adding a zero
// could turn -0 into +0, which the reference never does). Slip and noise
// (throng_contact.slip, .noise) likewise, by selects on the lanes whose
// archetype sets them.
#include "block.h"
#include "wmath.h"


/// thr_min_image_d (core/grid.h) on every lane: d less the period P
/// where d > h, plus P where d < -h.
static inline thr_fw wrap_d(thr_fw d, float p, float h)
{
	const thr_fw P = thr_fw_set1(p);
	return thr_fw_select(thr_fw_gt(d, thr_fw_set1(h)), thr_fw_sub(d, P),
	                     thr_fw_select(thr_fw_lt(d, thr_fw_set1(-h)), thr_fw_add(d, P), d));
}

int thr_simd_contact_block(const thr_contact_iter* it, uint32_t first)
{
	const throng_world* w = it->w;
	const int n = w->count - first < THR_LANES ? (int)(w->count - first) : THR_LANES;
	_Alignas(32) int32_t begin[THR_LANES] = {0}, count[THR_LANES] = {0};
	_Alignas(32) float half_k[THR_LANES] = {0}, slip[THR_LANES] = {0}, noise[THR_LANES] = {0};
	int most = 0, feel = 0;
	const thr_mw live = thr_mw_first(n);
	const thr_iw arch = thr_iw_load_tail((const int32_t*)w->archetype + first, n, 0);
	if (thr_mw_all(thr_iw_eq(arch, thr_iw_set1((int32_t)w->archetype[first])))) {
		// One archetype (the usual block): its settings on every lane, the
		// lists' lengths at once.
		const throng_contact* ct = &w->archetypes[w->archetype[first]].contact;
		if (ct->enabled && it->k < ct->iterations) {
			const thr_iw b = thr_iw_load_tail((const int32_t*)it->start + first, n, 0);
			const thr_iw cnt = thr_iw_sub(thr_iw_load_tail((const int32_t*)it->start + first + 1, n, 0), b);
			const thr_mw on = thr_mw_and(live, thr_iw_gt(cnt, thr_iw_zero())); // thr_contact_active
			thr_iw_store(begin, thr_iw_select(on, b, thr_iw_zero()));
			thr_iw_store(count, thr_iw_select(on, cnt, thr_iw_zero()));
			const float nz = it->k == 0 ? ct->noise : 0.0f;
			thr_fw_store(half_k, thr_fw_select(on, thr_fw_set1(0.5f * ct->stiffness), thr_fw_zero()));
			thr_fw_store(slip, thr_fw_select(on, thr_fw_set1(ct->slip), thr_fw_zero()));
			thr_fw_store(noise, thr_fw_select(on, thr_fw_set1(nz), thr_fw_zero()));
			feel = thr_mw_any(on) && (ct->slip > 0.0f || nz > 0.0f);
			// Counts are at most THRONG_CONTACT_MAX_PAIRS: exact as floats.
			most = (int)thr_fw_hmax(thr_iw_to_fw(thr_iw_load(count)));
		}
	} else {
		// Mixed archetypes: each lane's own settings.
		for (int l = 0; l < n; ++l) {
			const uint32_t i = first + (uint32_t)l;
			if (thr_contact_active(it, i)) {
				begin[l] = (int32_t)it->start[i];
				count[l] = (int32_t)(it->start[i + 1] - it->start[i]);
				const throng_contact* ct = &w->archetypes[w->archetype[i]].contact;
				half_k[l] = 0.5f * ct->stiffness;
				slip[l] = ct->slip;
				noise[l] = it->k == 0 ? ct->noise : 0.0f;
				feel |= slip[l] > 0.0f || noise[l] > 0.0f;
				most = count[l] > most ? count[l] : most;
			}
		}
	}
	const thr_fw xi = thr_fw_load_tail(it->sx + first, n, 0.0f);
	const thr_fw yi = thr_fw_load_tail(it->sy + first, n, 0.0f);
	if (most == 0) {
		thr_fw_store_tail(it->dx + first, xi, n);
		thr_fw_store_tail(it->dy + first, yi, n);
		return 0;
	}
	const thr_fw ri = thr_fw_load_tail(w->radius + first, n, 0.0f);
	const thr_iw idi = thr_iw_load_tail((const int32_t*)w->id + first, n, 0);
	const thr_iw b = thr_iw_loadu(begin);
	const thr_iw cnt = thr_iw_loadu(count);
	const thr_fw hk = thr_fw_loadu(half_k);
	const thr_iw self = thr_iw_add(thr_iw_set1((int32_t)first), thr_iw_iota());
	// Lanes that tell pressed pairs (slip or noise), and those that slip.
	const thr_fw sl = thr_fw_loadu(slip);
	const thr_mw slips = thr_fw_gt(sl, thr_fw_zero());
	const thr_mw feels = thr_mw_or(slips, thr_fw_gt(thr_fw_loadu(noise), thr_fw_zero()));
	const thr_fw vxi = feel ? thr_fw_load_tail(it->vx + first, n, 0.0f) : thr_fw_zero();
	const thr_fw vyi = feel ? thr_fw_load_tail(it->vy + first, n, 0.0f) : thr_fw_zero();
	thr_mw pressed = thr_fw_lt(thr_fw_zero(), thr_fw_zero()); // none
	thr_fw ax = thr_fw_zero(), ay = thr_fw_zero();
	int met = 0;
	const thr_period per = thr_world_period(w);
	for (int c = 0; c < most; ++c) {
		const thr_mw live = thr_iw_gt(cnt, thr_iw_set1(c));
		// Lanes past their list read themselves (d = 0, never overlapping
		// once masked).
		const thr_iw slot = thr_iw_add(b, thr_iw_set1(c));
		const thr_iw j = thr_iw_select(live, thr_iw_gather((const int32_t*)it->pairs, thr_iw_select(live, slot, thr_iw_zero())),
		                               thr_iw_select(thr_mw_first(n), self, thr_iw_set1((int32_t)first)));
		thr_fw dx = thr_fw_sub(thr_fw_gather(it->sx, j), xi);
		thr_fw dy = thr_fw_sub(thr_fw_gather(it->sy, j), yi);
		if (per.wrap) { // thr_period_image's operations
			dx = wrap_d(dx, per.px, per.hx);
			dy = wrap_d(dy, per.py, per.hy);
		}
		const thr_fw rs = thr_fw_add(ri, thr_fw_gather(w->radius, j));
		const thr_fw d2 = thr_fw_add(thr_fw_mul(dx, dx), thr_fw_mul(dy, dy));
		const thr_mw over = thr_mw_and(live, thr_fw_lt(d2, thr_fw_mul(rs, rs)));
		if (!thr_mw_any(over)) {
			continue;
		}
		met |= thr_mw_movemask(over);
		const thr_fw tiny = thr_fw_mul(thr_fw_set1(THR_COINCIDENT), rs);
		const thr_mw apart = thr_fw_gt(d2, thr_fw_mul(tiny, tiny));
		const thr_fw d = thr_fw_sqrt(d2);
		const thr_fw s = thr_fw_div(thr_fw_mul(thr_fw_sub(rs, d), hk), d);
		const thr_mw push = thr_mw_and(over, apart);
		ax = thr_fw_select(push, thr_fw_sub(ax, thr_fw_mul(dx, s)), ax);
		ay = thr_fw_select(push, thr_fw_sub(ay, thr_fw_mul(dy, s)), ay);
		if (feel) {
			const thr_fw cvx = thr_fw_sub(vxi, thr_fw_gather(it->vx, j));
			const thr_fw cvy = thr_fw_sub(vyi, thr_fw_gather(it->vy, j));
			const thr_fw closing = thr_fw_add(thr_fw_mul(cvx, dx), thr_fw_mul(cvy, dy));
			const thr_mw press = thr_mw_and(thr_mw_and(push, feels), thr_fw_gt(closing, thr_fw_zero()));
			pressed = thr_mw_or(pressed, press);
			const thr_mw slide = thr_mw_and(press, slips);
			if (thr_mw_any(slide)) {
				const thr_fw t = thr_fw_mul(s, sl);
				ax = thr_fw_select(slide, thr_fw_add(ax, thr_fw_mul(dy, t)), ax);
				ay = thr_fw_select(slide, thr_fw_sub(ay, thr_fw_mul(dx, t)), ay);
			}
		}
		const thr_mw one_point = thr_mw_andnot(over, apart);
		if (thr_mw_any(one_point)) {
			const thr_fw s1 = thr_fw_mul(rs, hk);
			const thr_iw idj = thr_iw_gather((const int32_t*)w->id, j);
			// Ids are below 2^31 (capacity), so the signed compare is the unsigned one.
			const thr_fw sgn = thr_fw_select(thr_iw_lt(idi, idj), thr_fw_neg(s1), s1);
			ax = thr_fw_select(one_point, thr_fw_add(ax, sgn), ax);
		}
	}
	// Noise: lanes of iteration 0 with a pressed pair move by noise x dt at
	// the angle pi u, u drawn from (seed, id, step) (contact_noise).
	const thr_mw noisy = thr_mw_and(pressed, thr_fw_gt(thr_fw_loadu(noise), thr_fw_zero()));
	if (thr_mw_any(noisy)) {
		const thr_iw bits = thr_rng_bits_w(thr_iw_set1((int32_t)w->rng_key), idi, thr_iw_set1((int32_t)(uint32_t)w->step),
		                                   THR_STREAM_CONTACT);
		thr_fw sn, cs;
		thr_sincosf_w(thr_fw_mul(thr_bits_to_pm1_w(bits), thr_fw_set1(THR_PI)), &sn, &cs);
		const thr_fw m = thr_fw_mul(thr_fw_loadu(noise), thr_fw_set1(it->dt));
		ax = thr_fw_select(noisy, thr_fw_add(ax, thr_fw_mul(cs, m)), ax);
		ay = thr_fw_select(noisy, thr_fw_add(ay, thr_fw_mul(sn, m)), ay);
	}
	// Lanes that do not move keep their bits (-0 + 0 would be +0).
	const thr_mw active = thr_iw_gt(cnt, thr_iw_zero());
	thr_fw_store_tail(it->dx + first, thr_fw_select(active, thr_fw_add(xi, ax), xi), n);
	thr_fw_store_tail(it->dy + first, thr_fw_select(active, thr_fw_add(yi, ay), yi), n);
	return met;
}
