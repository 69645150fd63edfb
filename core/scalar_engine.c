// SPDX-License-Identifier: MIT
// The scalar reference engine: one agent at a time, straight from SPEC.md.
//
// Its pass (the step, core/step.c, has built the agent grid and chosen the
// targets): for each agent in slot order, evaluate every enabled slot of
// its archetype against the previous step's state (ctx->cs), blend,
// integrate, apply the bounds, and write the next state (ctx->ns).
// Every enabled slot is evaluated every step, even when the priority budget
// is already spent, so stateful behaviours (the wanders) advance once per
// step whatever else happens: an agent's random path is a function of
// (seed, id, step) alone. Neighbours are visited cell row by cell row and,
// within a cell, in slot order.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "angles.h"
#include "bounds.h"
#include "engine.h"
#include "error.h"
#include "fmath.h"
#include "rng.h"

/// The pass's stages and what they call once per agent: inlined into both
/// instances of the pass (scalar_pass), so the one that does not count
/// keeps the shape of a pass without counters.
#define THR_STAGE static inline __attribute__((always_inline))

thr_self thr_world_self(const throng_world* w, const thr_state* st, uint32_t i)
{
	thr_self s;
	s.p = v2(st->px[i], st->py[i]);
	s.v = v2(st->vx[i], st->vy[i]);
	s.h = v2(st->hx[i], st->hy[i]);
	s.max_speed = w->max_speed[i];
	s.max_force = w->max_force[i];
	s.radius = w->radius[i];
	s.id = w->id[i];
	s.group = w->group[i];
	return s;
}

/// Position and velocity of what a target-seeking slot steers relative to;
/// returns 0 when there is nothing (inactive threat, no target agent).
static int resolve_target(const throng_world* w, const thr_state* st, uint32_t i, throng_target_source src,
                          vec2* tp, vec2* tv)
{
	switch (src) {
	case THRONG_TARGET_THREAT:
		*tp = w->threat_p;
		*tv = w->threat_v;
		return w->threat_active;
	case THRONG_TARGET_AGENT: {
		uint32_t t = w->target_agent != NULL ? w->target_agent[i] : THRONG_NO_AGENT;
		if (t == THRONG_NO_AGENT) {
			return 0;
		}
		uint32_t j = w->slot_of[t];
		*tp = v2(st->px[j], st->py[j]);
		const thr_period per = thr_world_period(w); // a wrap world: its nearest image
		thr_period_shift(&per, &tp->x, &tp->y, st->px[i], st->py[i]);
		*tv = v2(st->vx[j], st->vy[j]);
		return 1;
	}
	case THRONG_TARGET_POINT:
	default:
		*tp = v2(w->tx[i], w->ty[i]);
		*tv = v2(0.0f, 0.0f);
		return 1;
	}
}

/// What one agent's neighbour walk did, for the world's stats.
typedef struct nb_walk {
	uint32_t examined; ///< candidates examined
	uint32_t most_met; ///< most neighbours one slot took
	int capped;        ///< a slot met its max_neighbors, or the walk its candidate cap
	float nearest;     ///< least squared distance to another agent examined (+Inf: none)
} nb_walk;

/// Copies the neighbours within the query radius of agent i (itself included; the
/// behaviours skip it by id) into the scratch list, walking the grid cells
/// of thr_grid_walk around it (thr_grid_range's block, continued across
/// the seam of a wrap world, each neighbour at its nearest image): rows up, cells left to right,
/// slots in order. The walk is capped (docs/BEHAVIORS.md, "Neighbour caps"):
/// it examines at most THRONG_CANDIDATES_PER_NEIGHBOR * (the largest
/// max_neighbors of the neighbour slots) candidates, and stops once every
/// neighbour slot has met its max_neighbors neighbours, after which the
/// behaviours would ignore the rest anyway. simd/sweeps.c stops at the same
/// candidate. Adds its work to *c unless that is NULL. Returns the count
/// or -1.
THR_STAGE int64_t gather_neighbors(throng_world* w, const thr_state* st, uint32_t i, const thr_self* self,
                                const throng_controller* ctl, const thr_arch_info* info, nb_walk* walk,
                                throng_world_counters* c)
{
	const throng_behavior_params* prm[THRONG_MAX_SLOTS];
	uint32_t cap[THRONG_MAX_SLOTS], met[THRONG_MAX_SLOTS];
	const uint32_t n_slots = info->n_neighbor_slots, most_cap = info->most_cap;
	for (uint32_t q = 0; q < n_slots; ++q) {
		prm[q] = &ctl->slots[info->neighbor_slots[q]].params;
		cap[q] = thr_max_neighbors(prm[q]);
		met[q] = 0;
	}
	const float r = info->query_radius;
	const uint64_t limit64 = (uint64_t)most_cap * THRONG_CANDIDATES_PER_NEIGHBOR;
	const uint32_t limit = limit64 > UINT32_MAX ? UINT32_MAX : (uint32_t)limit64;
	const thr_grid* g = &w->agent_grid;
	const float r2 = r * r;
	uint32_t m = 0, examined = 0, open = n_slots;
	uint64_t cells = 0, tests = 0;
	*walk = (nb_walk){0, 0, 0, INFINITY};
	float nearest = INFINITY;
	if (g->n_items == 0) {
		return 0;
	}
	// A wrap world's walk continues across the seam and takes each
	// candidate at its nearest image (grid.h, thr_grid_walk).
	const bool wrap = g->period_x > 0.0f;
	const float hx = 0.5f * g->period_x, hy = 0.5f * g->period_y;
	thr_grid_walk gw;
	thr_grid_walk_init(g, st->px[i], st->py[i], r, &gw);
	for (int32_t t = 0; t < gw.spans && open > 0 && examined < limit; ++t) {
		int32_t cy, cx0, cx1;
		thr_grid_walk_span(&gw, t, &cy, &cx0, &cx1);
		uint32_t k0, k1;
		thr_grid_row_cells(g, cy, cx0, cx1, &k0, &k1);
		uint32_t b = g->cell_start[k0];
		uint32_t e = g->cell_start[k1];
		cells += (uint64_t)(cx1 - cx0 + 1);
		for (uint32_t k = b; k < e && open > 0 && examined < limit; ++k) {
			uint32_t j = g->items[k];
			examined++;
			float pjx = st->px[j], pjy = st->py[j];
			if (wrap) {
				pjx = thr_min_image(pjx, st->px[i], g->period_x, hx);
				pjy = thr_min_image(pjy, st->py[i], g->period_y, hy);
			}
			float dx = pjx - st->px[i];
			float dy = pjy - st->py[i];
			const float d2 = dx * dx + dy * dy;
			nearest = j != i && d2 < nearest ? d2 : nearest;
			if (!(d2 < r2)) {
				continue;
			}
			tests += j != i ? open : 0; // the slots not yet full test another agent below
			if (m == w->scratch_nb_cap) {
				uint64_t cap2 = m > 0 ? 2u * (uint64_t)m : 64u;
				cap2 = cap2 > limit ? limit : cap2;
				thr_neighbor* p = realloc(w->scratch_nb, (size_t)cap2 * sizeof *p);
				if (p == NULL) {
					return -1;
				}
				w->scratch_nb = p;
				w->scratch_nb_cap = (uint32_t)cap2;
			}
			thr_neighbor nb = {v2(pjx, pjy), v2(st->vx[j], st->vy[j]), w->id[j], w->group[j], w->radius[j]};
			w->scratch_nb[m++] = nb;
			for (uint32_t q = 0; q < n_slots; ++q) {
				if (met[q] < cap[q] && thr_neighbor_counts(self, &nb, prm[q]) && ++met[q] == cap[q]) {
					open--;
				}
			}
		}
	}
	walk->examined = examined;
	walk->capped = examined == limit || open < n_slots;
	walk->nearest = nearest;
	for (uint32_t q = 0; q < n_slots; ++q) {
		walk->most_met = met[q] > walk->most_met ? met[q] : walk->most_met;
	}
	if (c != NULL) {
		// The list holds the agent itself when the walk reached it.
		uint32_t others = m;
		for (uint32_t k = 0; k < m; ++k) {
			others -= w->scratch_nb[k].id == self->id;
		}
		c->neighbor_walks++;
		c->neighbor_cells += cells;
		c->neighbor_in_radius += others;
		c->neighbor_lane_slots += examined;
		c->neighbor_slot_tests += tests;
		for (uint32_t q = 0; q < n_slots; ++q) {
			throng_behavior_kind kind = ctl->slots[info->neighbor_slots[q]].kind;
			c->neighbor_taken[kind] += met[q];
			c->neighbor_body_lanes[kind] += met[q];
		}
	}
	return m;
}

/// Counts one feeler query of shape grid g around (x, y) of half-size r
/// that listed n shapes: the cells it covered and, when it listed any,
/// the scan and its tests.
static void count_feeler(const thr_box_grid* g, float x, float y, float r, int64_t n, uint64_t* scans,
                         uint64_t* cells, uint64_t* tests)
{
	if (g->n_items == 0) {
		return; // the query returned before looking at a cell
	}
	int32_t cx0, cx1, cy0, cy1;
	thr_box_grid_range(g, x, y, r, &cx0, &cx1, &cy0, &cy1);
	*cells += (uint64_t)(cx1 - cx0 + 1) * (uint64_t)(cy1 - cy0 + 1);
	if (n > 0) {
		*scans += 1;
		*tests += (uint64_t)n;
	}
}

/// One slot's force for agent i. Wander slots advance *wander / *noise,
/// path following *waypoint. Feelers add their work to *c unless that is
/// NULL; a feeler whose shape query ran out of memory sets *failed (and
/// gives no force: the step then fails, forces()).
THR_STAGE vec2 slot_force(throng_world* w, const thr_state* st, uint32_t i, const thr_self* s, const throng_slot* slot,
                       uint32_t n_nb, float* wander, float* noise, uint32_t* waypoint, throng_world_counters* c,
                       bool* failed)
{
	const throng_behavior_params* p = &slot->params;
	const throng_world_def* d = &w->def;
	vec2 zero = v2(0.0f, 0.0f);
	vec2 tp, tv;
	switch (slot->kind) {
	case THRONG_SEEK:
		return resolve_target(w, st, i, p->target, &tp, &tv) ? thr_seek(s, tp) : zero;
	case THRONG_FLEE:
		return resolve_target(w, st, i, p->target, &tp, &tv) ? thr_flee(s, tp, p->flee_radius, p->flee_mode) : zero;
	case THRONG_ARRIVE:
		return resolve_target(w, st, i, p->target, &tp, &tv) ? thr_arrive(s, tp, p->slow_radius) : zero;
	case THRONG_PURSUIT:
		return resolve_target(w, st, i, p->target, &tp, &tv) ? thr_pursuit(s, tp, tv, p->max_prediction) : zero;
	case THRONG_EVADE:
		return resolve_target(w, st, i, p->target, &tp, &tv)
		               ? thr_evade(s, tp, tv, p->evade_radius, p->max_prediction)
		               : zero;
	case THRONG_WANDER: // (the step keeps the turned angle: core/angles.c)
		return thr_wander(s, wander, thr_wander_draw(w->rng_key, s->id, (uint32_t)w->step), p, d->dt);
	case THRONG_WANDER_NOISE: {
		const float n = thr_wander_noise_at(w->rng_key, s->id, (float)w->step * d->dt, p->noise_frequency);
		return thr_wander_noise(s, noise, n, p, d->dt);
	}
	case THRONG_OBSTACLE_AVOID: {
		int64_t n = thr_box_grid_query(&w->obstacle_grid, s->p.x, s->p.y, p->look_ahead + s->radius,
		                               &w->scratch_idx, &w->scratch_idx_cap);
		if (c != NULL) {
			count_feeler(&w->obstacle_grid, s->p.x, s->p.y, p->look_ahead + s->radius, n, &c->obstacle_scans,
			             &c->obstacle_cells, &c->obstacle_tests);
		}
		*failed = *failed || n < 0;
		if (n <= 0) {
			return zero;
		}
		return thr_obstacle_avoid(s, w->obstacles, w->obstacle_count, w->scratch_idx, (uint32_t)n, p->look_ahead);
	}
	case THRONG_WALL_AVOID: {
		int64_t n = thr_box_grid_query(&w->wall_grid, s->p.x, s->p.y, p->look_ahead, &w->scratch_idx,
		                               &w->scratch_idx_cap);
		if (c != NULL) {
			count_feeler(&w->wall_grid, s->p.x, s->p.y, p->look_ahead, n, &c->wall_scans, &c->wall_cells,
			             &c->wall_tests);
		}
		*failed = *failed || n < 0;
		if (n <= 0) {
			return zero;
		}
		return thr_wall_avoid(s, w->walls, w->scratch_idx, (uint32_t)n, p->look_ahead, p->feeler_angle);
	}
	case THRONG_UNALIGNED_AVOID:
		return thr_unaligned_avoid(s, w->scratch_nb, n_nb, p);
	case THRONG_SEPARATION:
		return thr_separation(s, w->scratch_nb, n_nb, p);
	case THRONG_ALIGNMENT:
		return thr_alignment(s, w->scratch_nb, n_nb, p);
	case THRONG_COHESION:
		return thr_cohesion(s, w->scratch_nb, n_nb, p);
	case THRONG_HEADWAY: // the speed it allows; the blend turns it into a force
		return v2(thr_headway(s, w->scratch_nb, n_nb, p), 0.0f);
	case THRONG_ANTICIPATION:
		return thr_anticipation(s, w->scratch_nb, n_nb, p);
	case THRONG_PATH_FOLLOW: {
		vec2 t;
		int final;
		if (!thr_path_target(w, st, i, p->waypoint_radius, &t, waypoint, &final)) {
			return zero;
		}
		return thr_path_follow(s, t, final, p->slow_radius);
	}
	case THRONG_BOUNDS: {
		if (d->bounds_mode != THRONG_BOUNDS_CONTAIN) {
			return zero;
		}
		vec2 lo = v2(d->bounds_min.x + s->radius, d->bounds_min.y + s->radius);
		vec2 hi = v2(d->bounds_max.x - s->radius, d->bounds_max.y - s->radius);
		return thr_bounds(s, lo, hi, p->margin);
	}
	default:
		return zero;
	}
}

/// An agent as the stages hand it on (simd/agents.c: lanes and block_state).
typedef struct agent {
	uint32_t i;    ///< its slot
	thr_self s;    ///< its previous state and limits
	float wander, noise; ///< the angles, as the wander slots turn them (the step keeps them: core/angles.c)
	uint32_t waypoint;   ///< path following's index, as the slot leaves it
	vec2 total;          ///< the blended force
} agent;

/// Stage load (wide twin: simd/agents.c load_w): the agent and what the
/// behaviours read and advance.
THR_STAGE void load(const thr_step_ctx* ctx, uint32_t i, agent* a)
{
	const thr_state* cs = ctx->cs;
	a->i = i;
	a->s = thr_world_self(ctx->w, cs, i);
	a->wander = ctx->w->wander[i];
	a->noise = ctx->w->noise[i];
	a->waypoint = cs->waypoint != NULL ? cs->waypoint[i] : 0;
	a->total = v2(0.0f, 0.0f);
}

/// Stage forces (wide twin: forces_w): every slot of the agent's
/// archetype, into f. Fails only out of memory for the neighbour list or
/// a feeler's shape query.
THR_STAGE throng_status forces(const thr_step_ctx* ctx, agent* a, const throng_controller* ctl,
                            const thr_arch_info* info, vec2 f[THRONG_MAX_SLOTS], thr_pass_stats* stats,
                            throng_world_counters* c)
{
	throng_world* w = ctx->w;
	int64_t n_nb = 0;
	float near = THR_NEAR_UNKNOWN; // no walk
	if (info->query_radius > 0.0f) {
		nb_walk walk;
		n_nb = gather_neighbors(w, ctx->cs, a->i, &a->s, ctl, info, &walk, c);
		if (n_nb < 0) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for neighbours");
		}
		near = walk.capped ? THR_NEAR_UNKNOWN : walk.nearest;
		stats->nb_candidates += walk.examined;
		stats->nb_capped += (uint64_t)walk.capped;
		stats->nb_most_candidates = walk.examined > stats->nb_most_candidates ? walk.examined
		                                                                      : stats->nb_most_candidates;
		stats->nb_most_met = walk.most_met > stats->nb_most_met ? walk.most_met : stats->nb_most_met;
	}
	if (ctx->near != NULL) {
		ctx->near[a->i] = near;
	}
	bool failed = false;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		f[k] = ctl->slots[k].enabled ? slot_force(w, ctx->cs, a->i, &a->s, &ctl->slots[k], (uint32_t)n_nb, &a->wander,
		                                          &a->noise, &a->waypoint, c, &failed)
		                             : v2(0.0f, 0.0f);
	}
	if (failed) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape feelers");
	}
	return THRONG_OK;
}

/// Stage blend (wide twin: blend_w): the slots' forces blended into
/// a->total, and recorded when asked.
THR_STAGE void blend(const thr_step_ctx* ctx, agent* a, const throng_controller* ctl, vec2 f[THRONG_MAX_SLOTS])
{
	throng_world* w = ctx->w;
	const bool by_wall = thr_blend_reads_walls(ctl) &&
	                     thr_near_wall(w, a->s.p, a->s.radius + THR_HEADWAY_WALL_REACH);
	a->total = thr_blend(ctl, f, a->s.max_force, a->s.v, a->s.h, by_wall);
	if (w->def.record_forces) {
		for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
			vec2 fk = k < ctl->slot_count ? f[k] : v2(0.0f, 0.0f);
			w->force_x[thr_force_index(w, k, a->i)] = fk.x;
			w->force_y[thr_force_index(w, k, a->i)] = fk.y;
		}
	}
}

/// Stage integrate (wide twin: integrate_w): drop a non-finite force,
/// integrate, keep within the bounds, write the next state.
THR_STAGE void integrate(const thr_step_ctx* ctx, const agent* a, thr_pass_stats* stats)
{
	throng_world* w = ctx->w;
	const throng_world_def* d = &w->def;
	const thr_self* s = &a->s;
	const uint32_t i = a->i;
	const float dt = ctx->dt;
	thr_state* ns = ctx->ns;
	vec2 total = a->total;
	if (!v2_isfinite(total)) {
		// Never integrate a non-finite force: count it and drop it.
		stats->nonfinite++;
		total = v2(0.0f, 0.0f);
	}
	if (d->record_forces) {
		w->total_x[i] = total.x;
		w->total_y[i] = total.y;
	}
	// Integration (SPEC.md): v = limit(v + f*dt, max_speed); p += v*dt.
	vec2 v = v2_limit(v2_add(s->v, v2_scale(total, dt)), s->max_speed);
	vec2 p = v2_add(s->p, v2_scale(v, dt));
	float lox = d->bounds_min.x + s->radius, hix = d->bounds_max.x - s->radius;
	float loy = d->bounds_min.y + s->radius, hiy = d->bounds_max.y - s->radius;
	if (lox > hix) {
		lox = hix = 0.5f * (d->bounds_min.x + d->bounds_max.x);
	}
	if (loy > hiy) {
		loy = hiy = 0.5f * (d->bounds_min.y + d->bounds_max.y);
	}
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.x, &v.x, lox, hix, d->bounds_min.x,
	                                             d->bounds_max.x);
	stats->clamped += (uint64_t)thr_bounds_axis(d->bounds_mode, &p.y, &v.y, loy, hiy, d->bounds_min.y,
	                                             d->bounds_max.y);
	if (!v2_isfinite(p) || !v2_isfinite(v)) {
		// Only a corrupted state gets here (inputs are validated and
		// forces checked above): stop the agent where it was rather
		// than let NaN reach its neighbours, and count it.
		stats->nonfinite++;
		v = v2(0.0f, 0.0f);
		p = v2_isfinite(s->p) ? s->p
		                      : v2(0.5f * (d->bounds_min.x + d->bounds_max.x), 0.5f * (d->bounds_min.y + d->bounds_max.y));
	}
	float speed = v2_length(v);
	vec2 h = speed > THR_EPS ? v2_unit(v, speed) : s->h;
	float ratio = speed / s->max_speed;
	stats->max_speed_ratio = ratio > stats->max_speed_ratio ? ratio : stats->max_speed_ratio;
	ns->px[i] = p.x;
	ns->py[i] = p.y;
	if (ctx->clear != NULL) {
		ctx->clear[i] = thr_contact_shapes(ctx, i);
	}
	stats->most_moved = thr_most_moved(stats->most_moved, ctx->cs, ns, i);
	ns->vx[i] = v.x;
	ns->vy[i] = v.y;
	ns->hx[i] = h.x;
	ns->hy[i] = h.y;
	if (ns->waypoint != NULL) {
		ns->waypoint[i] = a->waypoint;
	}
}

/// The pass, counting its work into *c unless c is NULL. Inlined with c
/// NULL into thr_scalar_pass and into scalar_pass_counted, so a world that
/// does not count runs without a trace of the counting.
static inline __attribute__((always_inline)) throng_status scalar_pass(const thr_step_ctx* ctx, thr_pass_stats* stats,
                                                                      throng_world_counters* c)
{
	const throng_world* w = ctx->w;
	for (uint32_t i = 0; i < w->count; ++i) {
		const throng_controller* ctl = &w->archetypes[w->archetype[i]];
		agent a;
		vec2 f[THRONG_MAX_SLOTS];
		// A part world's ghost counts into a copy that is dropped.
		thr_pass_stats ghost_stats;
		thr_pass_stats* mine = stats;
		if (thr_slot_ghost(ctx->ghost, i)) {
			ghost_stats = *stats;
			mine = &ghost_stats;
		}
		load(ctx, i, &a);
		throng_status st = forces(ctx, &a, ctl, &ctx->arch[w->archetype[i]], f, mine, c);
		if (st != THRONG_OK) {
			return st;
		}
		blend(ctx, &a, ctl, f);
		integrate(ctx, &a, mine);
		if (c != NULL) {
			// One lane: every enabled slot, the blend, the integration.
			thr_count_controller(c, ctl, 1);
			c->lanes++;
		}
	}
	return THRONG_OK;
}

static __attribute__((noinline)) throng_status scalar_pass_counted(const thr_step_ctx* ctx, thr_pass_stats* stats)
{
	return scalar_pass(ctx, stats, ctx->counts);
}

throng_status thr_scalar_pass(const thr_step_ctx* ctx, thr_pass_stats* stats)
{
	return ctx->counts != NULL ? scalar_pass_counted(ctx, stats) : scalar_pass(ctx, stats, NULL);
}

const thr_engine thr_scalar_engine = {false, false, NULL, thr_scalar_pass, NULL, thr_contact_block};
