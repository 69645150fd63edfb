// SPDX-License-Identifier: MIT
// The contact stage's finish (internal.h has the design): every agent the
// stage moved at its place, its velocity from the move, bounds.
#include "bounds.h"
#include "internal.h"

/// Counts what keeping an agent out of the shapes did (THR_SHAPES_* bits).
static void count_shapes(thr_finish_tally* stats, uint8_t what)
{
	stats->pushes += (uint64_t)((what & THR_SHAPES_PUSHED) != 0);
	stats->reverts += (uint64_t)((what & THR_SHAPES_REVERTED) != 0);
}

/// Agent i (integrated to ps) at p kept out of the shapes (keep_out),
/// counted.
static vec2 solid_shapes(const thr_step_ctx* ctx, uint32_t i, vec2 ps, vec2 p, float r, thr_finish_tally* stats)
{
	uint8_t what = 0;
	p = thr_keep_out(ctx->w, thr_previous_position(ctx->w, ctx->cs, i, ps), p, r, &what);
	count_shapes(stats, what);
	return p;
}

/// Overlap (of the radii sum) beyond which a pair still counts as pressed
/// at the end of the iterations (throng_contact.inelastic).
#define THR_PRESSED 1.0e-3f

/// v less its part towards each listed agent that agent i (at its last
/// iterate fx, fy) still overlaps by more than THR_PRESSED at theirs, in
/// list order: an inelastic contact. Without it an agent deep in a jam,
/// whom the iterations push from both sides about equally and so leave
/// where it was, keeps its full speed into the agent ahead, and the jam's
/// compression grows by up to max_speed x dt a step.
static vec2 unpress(const throng_world* w, const thr_contact_data* cd, const float* fx, const float* fy, uint32_t i,
                    vec2 v)
{
	const float xi = fx[i], yi = fy[i], ri = w->radius[i];
	const thr_period per = thr_world_period(w);
	for (uint32_t c = cd->start[i]; c < cd->start[i + 1]; ++c) {
		const uint32_t j = cd->pairs[c];
		float dx = fx[j] - xi, dy = fy[j] - yi;
		thr_period_image(&per, &dx, &dy);
		const float rs = (ri + w->radius[j]) * (1.0f - THR_PRESSED);
		const float d2 = dx * dx + dy * dy;
		const float tiny = THR_COINCIDENT * rs;
		if (!(d2 < rs * rs) || !(d2 > tiny * tiny)) {
			continue;
		}
		const float vn = (v.x * dx + v.y * dy) / d2; // the part towards j, over d
		if (vn > 0.0f) {
			v = v2(v.x - dx * vn, v.y - dy * vn);
		}
	}
	return v;
}

/// The end of the pass for agent i, kept out of the shapes at p: bounds
/// and the velocity.
/// fx, fy: the last iterate, when i's block iterated (else NULL).
static void settle(const thr_step_ctx* ctx, uint32_t i, vec2 p, const float* fx, const float* fy, thr_finish_tally* stats)
{
	const throng_world* w = ctx->w;
	const throng_world_def* d = &w->def;
	thr_state* ns = ctx->ns;
	const vec2 ps = v2(ns->px[i], ns->py[i]);
	const float r = w->radius[i];
	const vec2 vs = v2(ns->vx[i], ns->vy[i]);
	const bool inelastic = fx != NULL && w->archetypes[w->archetype[i]].contact.inelastic;
	if (p.x == ps.x && p.y == ps.y && !inelastic) {
		return;
	}
	vec2 v = v2_add(vs, v2_scale(v2_sub(p, ps), 1.0f / ctx->dt));
	if (inelastic) {
		v = unpress(w, w->contact, fx, fy, i, v);
		if (p.x == ps.x && p.y == ps.y && v.x == vs.x && v.y == vs.y) {
			return;
		}
	}
	v = v2_limit(v, w->max_speed[i]);
	float lox = d->bounds_min.x + r, hix = d->bounds_max.x - r;
	float loy = d->bounds_min.y + r, hiy = d->bounds_max.y - r;
	if (lox > hix) {
		lox = hix = 0.5f * (d->bounds_min.x + d->bounds_max.x);
	}
	if (loy > hiy) {
		loy = hiy = 0.5f * (d->bounds_min.y + d->bounds_max.y);
	}
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.x, &v.x, lox, hix, d->bounds_min.x, d->bounds_max.x);
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.y, &v.y, loy, hiy, d->bounds_min.y, d->bounds_max.y);
	if (!v2_isfinite(p) || !v2_isfinite(v)) {
		stats->nonfinite++;
		return; // keep the integrated state rather than spread a NaN
	}
	ns->px[i] = p.x;
	ns->py[i] = p.y;
	ns->vx[i] = v.x;
	ns->vy[i] = v.y;
	const float ratio = v2_length(v) / w->max_speed[i];
	stats->ratio = ratio > stats->ratio ? ratio : stats->ratio;
}


/// Agent i at the end of the stage: at the last iterate (fx, fy) kept out
/// of the shapes when its block iterated, else where the engine kept it
/// out of the shapes at p*. Returns false when nothing was to be done.
static bool finish_agent(const thr_step_ctx* ctx, uint32_t i, bool iterated, const float* fx, const float* fy,
                         thr_finish_tally* t)
{
	const throng_world* w = ctx->w;
	const thr_state* ns = ctx->ns;
	const bool shapes = w->obstacle_count > 0 || w->wall_count > 0;
	if (iterated) {
		const vec2 p = v2(fx[i], fy[i]);
		settle(ctx, i, shapes ? solid_shapes(ctx, i, v2(ns->px[i], ns->py[i]), p, w->radius[i], t) : p, fx, fy, t);
		return true;
	}
	if (!shapes || (ctx->clear[i] & THR_SHAPES_CLEAR)) {
		return false; // at p*: nothing to do
	}
	// At p*: the engine kept it out of the shapes already.
	count_shapes(t, ctx->clear[i]);
	settle(ctx, i, v2(ctx->shaped_x[i], ctx->shaped_y[i]), NULL, NULL, t);
	return true;
}

void thr_contact_finish(const thr_step_ctx* ctx, uint32_t done, thr_finish_tally* sum)
{
	throng_world* w = ctx->w;
	const thr_contact_data* cd = w->contact;
	const uint32_t n = w->count;
	const float* fx = done > 0 ? cd->q[(done - 1u) & 1u ? 2 : 0] : ctx->ns->px;
	const float* fy = done > 0 ? cd->q[(done - 1u) & 1u ? 3 : 1] : ctx->ns->py;
#pragma omp for schedule(static)
	for (int64_t ii = 0; ii < (int64_t)n; ++ii) {
		const uint32_t i = (uint32_t)ii;
		if (ii == 0) {
			thr_note_team(w, THR_REGION_CONTACTS);
		}
		const bool iterated = done > 0 && thr_block_has_pairs(cd, n, i / THR_LANES);
		thr_finish_tally t = {0, 0, 0, 0, sum->ratio};
		if (!finish_agent(ctx, i, iterated, fx, fy, &t) || thr_slot_ghost(ctx->ghost, i)) {
			continue; // nothing done, or a part world's ghost: its figures are another part's
		}
		sum->pushes += t.pushes;
		sum->reverts += t.reverts;
		sum->clamped += t.clamped;
		sum->nonfinite += t.nonfinite;
		sum->ratio = t.ratio > sum->ratio ? t.ratio : sum->ratio;
	}
}
