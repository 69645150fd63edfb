// SPDX-License-Identifier: MIT
// The contact stage's Jacobi iterations (internal.h has the design): the
// scalar block (thr_contact_block, the reference of simd/contact.c), and
// the iterations over the blocks with pairs, narrowed to the blocks that
// can still change.
#include <math.h>
#include <string.h>

#include "fmath.h"
#include "internal.h"
#include "rng.h"


/// Agent i's noise move (throng_contact.noise): length m = noise x dt, at
/// the angle pi u, u in [-1, 1) drawn from (seed, id, step).
static vec2 contact_noise(const throng_world* w, uint32_t i, float m)
{
	const uint32_t bits = thr_rng_bits(w->rng_key, w->id[i], (uint32_t)w->step, THR_STREAM_CONTACT);
	float s, c;
	thr_sincosf(thr_bits_to_pm1(bits) * THR_PI, &s, &c);
	return v2(c * m, s * m);
}

/// Agent i's next iterate: its position in (sx, sy) moved away from every
/// listed agent it overlaps, by stiffness/2 of the overlap, the pushes
/// summed in list order. Two agents at one point part along x, the lower
/// id to -x. A pair that closes at v* (pressed) also slides: i by slip
/// times its push turned to its right, (d.y, -d.x) s slip, right after
/// that pair's push. In iteration 0 an agent with a pressed pair then
/// moves by its noise.
static vec2 jacobi(const thr_contact_iter* it, uint32_t i, int* met)
{
	const throng_world* w = it->w;
	const throng_contact* ct = &w->archetypes[w->archetype[i]].contact;
	const float half_k = 0.5f * ct->stiffness;
	const float slip = ct->slip;
	const bool noisy = it->k == 0 && ct->noise > 0.0f;
	const bool feel = slip > 0.0f || noisy; // whether pairs are told pressed
	const float xi = it->sx[i], yi = it->sy[i], ri = w->radius[i];
	const float vxi = feel ? it->vx[i] : 0.0f, vyi = feel ? it->vy[i] : 0.0f;
	float ax = 0.0f, ay = 0.0f;
	bool pressed = false;
	const thr_period per = thr_world_period(w);
	for (uint32_t c = it->start[i]; c < it->start[i + 1]; ++c) {
		const uint32_t j = it->pairs[c];
		float dx = it->sx[j] - xi, dy = it->sy[j] - yi;
		thr_period_image(&per, &dx, &dy);
		const float rs = ri + w->radius[j];
		const float d2 = dx * dx + dy * dy;
		if (!(d2 < rs * rs)) {
			continue;
		}
		*met = 1;
		const float tiny = THR_COINCIDENT * rs;
		if (d2 > tiny * tiny) {
			const float d = sqrtf(d2);
			const float s = (rs - d) * half_k / d;
			ax -= dx * s;
			ay -= dy * s;
			if (feel && (vxi - it->vx[j]) * dx + (vyi - it->vy[j]) * dy > 0.0f) {
				pressed = true;
				if (slip > 0.0f) {
					const float t = s * slip;
					ax += dy * t;
					ay -= dx * t;
				}
			}
		} else {
			const float s = rs * half_k;
			ax += w->id[i] < w->id[j] ? -s : s;
		}
	}
	if (noisy && pressed) {
		const vec2 e = contact_noise(w, i, ct->noise * it->dt);
		ax += e.x;
		ay += e.y;
	}
	return v2(xi + ax, yi + ay);
}

int thr_contact_block(const thr_contact_iter* it, uint32_t first)
{
	const uint32_t end = first + THR_LANES < it->w->count ? first + THR_LANES : it->w->count;
	int lanes = 0;
	for (uint32_t i = first; i < end; ++i) {
		int met = 0;
		vec2 p = thr_contact_active(it, i) ? jacobi(it, i, &met) : v2(it->sx[i], it->sy[i]);
		it->dx[i] = p.x;
		it->dy[i] = p.y;
		lanes |= met << (i - first);
	}
	return lanes;
}


int thr_contact_narrow_blocks(throng_world* w, uint32_t n)
{
	thr_contact_data* cd = w->contact;
	const size_t blocks = n / THR_LANES + 1u;
	cd->sets[0] = thr_arena_alloc(&w->arena, blocks * sizeof(uint32_t), "contact block set odd");
	cd->sets[1] = cd->sets[0] ? thr_arena_alloc(&w->arena, blocks * sizeof(uint32_t), "contact block set even") : NULL;
	cd->mark = cd->sets[1] ? thr_arena_alloc(&w->arena, blocks * sizeof(uint32_t), "contact block marks") : NULL;
	if (cd->mark == NULL) {
		return -1;
	}
	memset(cd->mark, 0, blocks * sizeof(uint32_t)); // no iteration yet
	return 0;
}

int thr_contact_take_iterates(throng_world* w, uint32_t n)
{
	static const char* const names[4] = {"contact iterate odd x", "contact iterate odd y", "contact iterate even x",
	                                     "contact iterate even y"};
	thr_contact_data* cd = w->contact;
	for (int k = 0; k < 4; ++k) {
		if ((cd->q[k] = thr_contact_take(w, n, sizeof(float), names[k])) == NULL) {
			return -1;
		}
	}
	return 0;
}

/// Marks with `tag` block `block` (agents up to `end`), which met an
/// overlapping pair, and the blocks of every partner of each of its agents
/// the iteration moved.
static void mark_moved(thr_contact_data* cd, const thr_contact_iter* it, uint32_t block, uint32_t end, uint32_t tag)
{
	// Threads may mark one block at once, all with the same tag.
	__atomic_store_n(&cd->mark[block], tag, __ATOMIC_RELAXED);
	for (uint32_t i = block * THR_LANES; i < end; ++i) {
		if (it->dx[i] != it->sx[i] || it->dy[i] != it->sy[i]) {
			for (uint32_t c = it->start[i]; c < it->start[i + 1]; ++c) {
				__atomic_store_n(&cd->mark[it->pairs[c] / THR_LANES], tag, __ATOMIC_RELAXED);
			}
		}
	}
}

/// The blocks with pairs marked `tag`, in block order, into the set of
/// iteration k; returns how many.
static uint32_t gather_marked(thr_contact_data* cd, uint32_t active, uint32_t k, uint32_t tag)
{
	uint32_t* out = cd->sets[k & 1u];
	uint32_t m = 0;
	for (uint32_t a = 0; a < active; ++a) {
		const uint32_t b = cd->blocks[a];
		out[m] = b;
		m += cd->mark[b] == tag;
	}
	return m;
}


void thr_contact_join_runs(const thr_contact_data* cd, uint32_t n, uint32_t runs)
{
#pragma omp for schedule(static)
	for (int64_t r = 0; r < (int64_t)runs; ++r) {
		uint32_t first, end;
		thr_contact_run_agents(n, runs, (uint32_t)r, &first, &end);
		if (cd->runs[r].used > 0) { // a run whose agents were all skipped has no buffer yet
			memcpy(cd->pairs + cd->start[first], cd->runs[r].pairs, cd->runs[r].used * sizeof *cd->pairs);
		}
	}
}

/// The agents of block `first` .. end that iteration `it` moved, out of
/// the obstacles and walls it pushed them into.
static void leave_shapes(const thr_step_ctx* ctx, const thr_contact_iter* it, uint32_t first, uint32_t end)
{
	const throng_world* w = ctx->w;
	const thr_state* ns = ctx->ns;
	for (uint32_t i = first; i < end; ++i) {
		if (it->dx[i] != it->sx[i] || it->dy[i] != it->sy[i]) {
			int moved = 0;
			const vec2 p0 = thr_previous_position(w, ctx->cs, i, v2(ns->px[i], ns->py[i]));
			const vec2 p1 = v2(it->dx[i], it->dy[i]);
			if (thr_clear_of_shapes(w, p0, p1, w->radius[i])) {
				continue;
			}
			const vec2 p = thr_shape_round(w, p0, p1, w->radius[i], &moved);
			it->dx[i] = p.x;
			it->dy[i] = p.y;
		}
	}
}

/// Iteration k over its blocks (an orphaned `omp for`): iterate k + 1 of
/// each block, its flag in rd->seen[k + 1], and, when `next`, the marks of
/// the blocks iteration k + 1 visits.
static void iterate_once(const thr_step_ctx* ctx, const thr_contact_iter* it, const uint32_t* set, uint32_t m,
                         uint32_t iterations, bool next, uint32_t tag, thr_contact_rounds* rd)
{
	const throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	const uint32_t n = w->count, k = it->k;
	const bool shapes = w->obstacle_count > 0 || w->wall_count > 0;
	float* const qx[2] = {cd->q[0], cd->q[2]};
	float* const qy[2] = {cd->q[1], cd->q[3]};
	int* flag = &rd->seen[k + 1];
#pragma omp for schedule(dynamic, 16)
	for (int64_t b = 0; b < (int64_t)m; ++b) {
		const uint32_t block = set[b], first = block * THR_LANES;
		const uint32_t end = first + THR_LANES < n ? first + THR_LANES : n;
		const int hit = ctx->engine->contact_block(it, first);
		// A part world's ghosts are other parts' to report.
		const int counted = hit != 0 ? hit & thr_step_counted_lanes(ctx, first, (int)(end - first)) : 0;
		if (counted && k + 1u < iterations) {
#pragma omp atomic write
			*flag = 1;
		}
		if (shapes) {
			leave_shapes(ctx, it, first, end);
		}
		if (next && hit) {
			mark_moved(cd, it, block, end, tag);
		} else if (next && k == 0) {
			// Unmoved: iterate 1 in the other buffer as well, for
			// the iterations that skip the block.
			memcpy(qx[1] + first, qx[0] + first, (end - first) * sizeof(float));
			memcpy(qy[1] + first, qy[0] + first, (end - first) * sizeof(float));
		}
	}
}

void thr_contact_iterate(const thr_step_ctx* ctx, uint32_t active, uint32_t iterations, bool narrow, uint32_t from,
                         uint32_t rounds, thr_contact_rounds* rd)
{
	throng_world* w = ctx->w;
	thr_contact_data* cd = w->contact;
	const thr_state* ns = ctx->ns;
	float* const qx[2] = {cd->q[0], cd->q[2]};
	float* const qy[2] = {cd->q[1], cd->q[3]};
	const uint32_t last = iterations - from < rounds ? iterations : from + rounds;
	uint32_t k = from;
	// seen[k]: iterate k still had an overlapping pair (seen[0]: p* had
	// one; in a part world, any part's after THRONG_PART_CONTACT_ROUND,
	// between the regions). Every thread reads it after the loop's
	// barrier: all agree.
	for (; k < last && rd->seen[k]; ++k) {
		const float* sx = k == 0 ? ns->px : qx[(k - 1u) & 1u];
		const float* sy = k == 0 ? ns->py : qy[(k - 1u) & 1u];
		const thr_contact_iter it = {w, cd->start, cd->pairs, sx, sy, qx[k & 1u], qy[k & 1u], k, ns->vx, ns->vy,
		                             ctx->dt};
		const uint32_t* set = k == 0 || !narrow ? cd->blocks : cd->sets[k & 1u];
		const uint32_t m = k == 0 || !narrow ? active : rd->set_n[k];
		const bool next = narrow && k + 1u < iterations;
		const uint32_t tag = k + 1u; // marks the blocks of iteration k + 1
		iterate_once(ctx, &it, set, m, iterations, next, tag, rd);
		if (next) {
#pragma omp single
			rd->set_n[k + 1u] = gather_marked(cd, active, k + 1u, tag);
		}
	}
#pragma omp single
	rd->done = k;
}
