// SPDX-License-Identifier: MIT
// The scalar reference engine: one agent at a time, straight from SPEC.md.
//
// A step: bucket agents into the uniform grid (stable counting sort);
// choose targets where a target rule is due; for each agent in slot order, evaluate every enabled slot of its archetype
// against the previous step's state (buffer `cur`), blend, integrate, apply
// the bounds, and write the next state (buffer `cur ^ 1`); then swap.
// Every enabled slot is evaluated every step, even when the priority budget
// is already spent, so stateful behaviours (the wanders) advance once per
// step whatever else happens: an agent's random path is a function of
// (seed, id, step) alone. Neighbours are visited cell row by cell row and,
// within a cell, in slot order.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "rng.h"
#include "world_internal.h"

static int is_neighbor_kind(throng_behavior_kind k)
{
	return k == THRONG_UNALIGNED_AVOID || k == THRONG_SEPARATION || k == THRONG_ALIGNMENT ||
	       k == THRONG_COHESION;
}

/// Largest neighbour radius of the enabled neighbour slots of one archetype.
static float archetype_query_radius(const throng_controller* c)
{
	float r = 0.0f;
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		if (s->enabled && is_neighbor_kind(s->kind) && s->params.neighbor_radius > r) {
			r = s->params.neighbor_radius;
		}
	}
	return r;
}

float thr_world_cell_size(const throng_world* w)
{
	float cell = w->def.cell_size;
	if (cell <= 0.0f) {
		for (uint32_t a = 0; a < w->archetype_count; ++a) {
			float r = archetype_query_radius(&w->archetypes[a]);
			cell = r > cell ? r : cell;
		}
		float two_r = 2.0f * w->max_radius;
		cell = two_r > cell ? two_r : cell;
		if (cell <= 0.0f) {
			cell = 1.0f;
		}
	}
	return cell;
}

float thr_world_feeler_reach(const throng_world* w, throng_behavior_kind kind)
{
	float reach = 0.0f;
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		const throng_controller* c = &w->archetypes[a];
		for (uint32_t k = 0; k < c->slot_count; ++k) {
			if (c->slots[k].enabled && c->slots[k].kind == kind && c->slots[k].params.look_ahead > reach) {
				reach = c->slots[k].params.look_ahead;
			}
		}
	}
	return reach + w->max_radius;
}

uint32_t thr_world_max_cells(const throng_world* w)
{
	// Building the grid costs O(cells) a step (clear and prefix-sum the
	// counts): 16 cells an agent keeps that under ~2% of a step, while
	// sparse worlds (a ring, a field with a few agents) keep cells close
	// to the neighbour radius. 2^24 cells (64 MiB of offsets) at most.
	uint64_t m = (uint64_t)w->capacity * 16u + 65536u;
	return m > (1u << 24) ? (1u << 24) : (uint32_t)m;
}

throng_status thr_world_update_shape_grids(throng_world* w)
{
	if (!w->shapes_dirty) {
		return THRONG_OK;
	}
	const throng_world_def* d = &w->def;
	float reach_o = thr_world_feeler_reach(w, THRONG_OBSTACLE_AVOID);
	float reach_w = thr_world_feeler_reach(w, THRONG_WALL_AVOID);
	float cell = reach_o > reach_w ? reach_o : reach_w;
	if (cell < 1.0f) {
		cell = 1.0f;
	}
	uint32_t n = w->obstacle_count > w->wall_count ? w->obstacle_count : w->wall_count;
	float* box = malloc((size_t)(n ? n : 1) * 4u * sizeof(float));
	if (box == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape grids");
	}
	float *x0 = box, *y0 = box + n, *x1 = box + 2u * n, *y1 = box + 3u * n;
	int fail = 0;
	thr_grid_layout(&w->obstacle_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->obstacle_count; ++i) {
		const thr_obstacle* o = &w->obstacles[i];
		x0[i] = o->c.x - o->r; x1[i] = o->c.x + o->r;
		y0[i] = o->c.y - o->r; y1[i] = o->c.y + o->r;
	}
	fail |= thr_grid_build_boxes(&w->obstacle_grid, x0, y0, x1, y1, w->obstacle_count);
	thr_grid_layout(&w->wall_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y, cell,
	                thr_world_max_cells(w));
	for (uint32_t i = 0; i < w->wall_count; ++i) {
		const thr_wall* l = &w->walls[i];
		x0[i] = fminf(l->a.x, l->b.x); x1[i] = fmaxf(l->a.x, l->b.x);
		y0[i] = fminf(l->a.y, l->b.y); y1[i] = fmaxf(l->a.y, l->b.y);
	}
	fail |= thr_grid_build_boxes(&w->wall_grid, x0, y0, x1, y1, w->wall_count);
	free(box);
	if (fail) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the shape grids");
	}
	w->shape_cell = cell;
	w->shapes_dirty = 0;
	w->shape_version++;
	return THRONG_OK;
}

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
		uint32_t t = w->target_agent[i];
		if (t == THRONG_NO_AGENT) {
			return 0;
		}
		uint32_t j = w->slot_of[t];
		*tp = v2(st->px[j], st->py[j]);
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
} nb_walk;

/// Copies the neighbours within r of agent i (itself included; the
/// behaviours skip it by id) into the scratch list, walking the grid cells
/// around it as thr_grid_query orders them: rows up, cells left to right,
/// slots in order. The walk is capped (docs/BEHAVIORS.md, "Neighbour caps"):
/// it examines at most THRONG_CANDIDATES_PER_NEIGHBOR * (the largest
/// max_neighbors of the neighbour slots) candidates, and stops once every
/// neighbour slot has met its max_neighbors neighbours, after which the
/// behaviours would ignore the rest anyway. simd/sweeps.c stops at the same
/// candidate. Returns the count or -1.
static int64_t gather_neighbors(throng_world* w, const thr_state* st, uint32_t i, const thr_self* self,
                                const throng_controller* ctl, float r, nb_walk* walk)
{
	const throng_behavior_params* prm[THRONG_MAX_SLOTS];
	uint32_t cap[THRONG_MAX_SLOTS], met[THRONG_MAX_SLOTS];
	uint32_t n_slots = 0, most_cap = 0;
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		const throng_slot* slot = &ctl->slots[k];
		if (slot->enabled && is_neighbor_kind(slot->kind)) {
			prm[n_slots] = &slot->params;
			cap[n_slots] = thr_max_neighbors(&slot->params);
			met[n_slots] = 0;
			most_cap = cap[n_slots] > most_cap ? cap[n_slots] : most_cap;
			n_slots++;
		}
	}
	const uint64_t limit64 = (uint64_t)most_cap * THRONG_CANDIDATES_PER_NEIGHBOR;
	const uint32_t limit = limit64 > UINT32_MAX ? UINT32_MAX : (uint32_t)limit64;
	const thr_grid* g = &w->agent_grid;
	const float r2 = r * r;
	uint32_t m = 0, examined = 0, open = n_slots;
	*walk = (nb_walk){0, 0, 0};
	if (g->n_items == 0) {
		return 0;
	}
	int32_t cx0, cx1, cy0, cy1;
	thr_grid_range(g, st->px[i], st->py[i], r, &cx0, &cx1, &cy0, &cy1);
	for (int32_t cy = cy0; cy <= cy1 && open > 0 && examined < limit; ++cy) {
		uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b = g->cell_start[row + (uint32_t)cx0];
		uint32_t e = g->cell_start[row + (uint32_t)cx1 + 1];
		for (uint32_t k = b; k < e && open > 0 && examined < limit; ++k) {
			uint32_t j = g->items[k];
			examined++;
			float dx = st->px[j] - st->px[i];
			float dy = st->py[j] - st->py[i];
			if (!(dx * dx + dy * dy < r2)) {
				continue;
			}
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
			thr_neighbor nb = {v2(st->px[j], st->py[j]), v2(st->vx[j], st->vy[j]), w->id[j], w->group[j]};
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
	for (uint32_t q = 0; q < n_slots; ++q) {
		walk->most_met = met[q] > walk->most_met ? met[q] : walk->most_met;
	}
	return m;
}

/// One slot's force for agent i. Wander slots advance *wander / *noise,
/// path following *waypoint.
static vec2 slot_force(throng_world* w, const thr_state* st, uint32_t i, const thr_self* s, const throng_slot* slot,
                       uint32_t n_nb, float* wander, float* noise, uint32_t* waypoint)
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
	case THRONG_WANDER: {
		// Exactly one draw per agent per step, keyed by (seed, id, step).
		float draw = thr_bits_to_pm1(thr_rng_bits(w->rng_key, s->id, (uint32_t)w->step, THR_STREAM_WANDER));
		return thr_wander(s, wander, draw, p, d->dt);
	}
	case THRONG_WANDER_NOISE: {
		// Each agent reads the shared noise at its own phase in [0, 1024).
		float phase = thr_bits_to_unit(thr_rng_bits(w->rng_key, s->id, 0u, THR_STREAM_PHASE)) * 1024.0f;
		float t = (float)w->step * d->dt;
		float n = thr_noise1(w->rng_key, t * p->noise_frequency + phase);
		return thr_wander_noise(s, noise, n, p, d->dt);
	}
	case THRONG_OBSTACLE_AVOID: {
		int64_t n = thr_grid_query(&w->obstacle_grid, s->p.x, s->p.y, p->look_ahead + s->radius, &w->scratch_idx,
		                           &w->scratch_idx_cap);
		if (n <= 0) {
			return zero;
		}
		return thr_obstacle_avoid(s, w->obstacles, w->obstacle_count, w->scratch_idx, (uint32_t)n, p->look_ahead);
	}
	case THRONG_WALL_AVOID: {
		int64_t n = thr_grid_query(&w->wall_grid, s->p.x, s->p.y, p->look_ahead, &w->scratch_idx,
		                           &w->scratch_idx_cap);
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

/// Keeps one axis inside [lo, hi] after integration. Returns 1 when the
/// contain clamp had to act.
static int apply_bounds_axis(throng_bounds_mode mode, float* p, float* v, float lo, float hi, float wlo,
                             float whi)
{
	switch (mode) {
	case THRONG_BOUNDS_CONTAIN:
		// The hard clamp behind the bounds steering: the centre stays in
		// [lo, hi] (the world shrunk by the radius) and the outward part of
		// the velocity is dropped, which never raises the speed.
		if (*p < lo) {
			*p = lo;
			*v = *v < 0.0f ? 0.0f : *v;
			return 1;
		}
		if (*p > hi) {
			*p = hi;
			*v = *v > 0.0f ? 0.0f : *v;
			return 1;
		}
		return 0;
	case THRONG_BOUNDS_BOUNCE:
		if (*p < lo) {
			*p = lo + (lo - *p);
			*v = -*v;
		} else if (*p > hi) {
			*p = hi - (*p - hi);
			*v = -*v;
		}
		*p = *p < lo ? lo : (*p > hi ? hi : *p);
		return 0;
	case THRONG_BOUNDS_WRAP: {
		float width = whi - wlo;
		if (*p < wlo) {
			*p = *p + width;
		} else if (*p >= whi) {
			*p = *p - width;
		}
		if (*p < wlo || *p >= whi) { // a step longer than the world
			*p = *p - width * thr_floorf((*p - wlo) / width);
			*p = *p < wlo ? wlo : (*p >= whi ? wlo : *p);
		}
		return 0;
	}
	case THRONG_BOUNDS_OPEN:
	default:
		return 0;
	}
}

throng_status thr_scalar_step(throng_world* w)
{
	const throng_world_def* d = &w->def;
	const thr_state* cs = &w->store.buf[w->store.cur];
	thr_state* ns = &w->store.buf[w->store.cur ^ 1];
	thr_grid_layout(&w->agent_grid, d->bounds_min.x, d->bounds_min.y, d->bounds_max.x, d->bounds_max.y,
	                thr_world_cell_size(w), thr_world_max_cells(w));
	if (thr_grid_build_points(&w->agent_grid, cs->px, cs->py, w->count, NULL) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for the agent grid");
	}
	throng_status st = thr_world_update_shape_grids(w);
	if (st != THRONG_OK) {
		return st;
	}
	// Target selection rewrites w->target_agent when a rule is due, and the
	// loop below can still fail (out of memory for neighbours): the old
	// targets are kept aside so that a failed step leaves the world as it was.
	uint32_t* saved_targets = NULL;
	for (uint32_t a = 0; a < w->archetype_count && saved_targets == NULL; ++a) {
		const throng_target_rule* rule = &w->archetypes[a].target_rule;
		if (rule->enabled && w->step % rule->every == 0 && w->count > 0) {
			saved_targets = malloc((size_t)w->count * sizeof *saved_targets);
			if (saved_targets == NULL) {
				return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory");
			}
			memcpy(saved_targets, w->target_agent, (size_t)w->count * sizeof *saved_targets);
		}
	}
	thr_select_targets(w, cs, w->agent_grid.items, 1);
	const float dt = d->dt;
	throng_world_stats stats = w->stats;
	for (uint32_t i = 0; i < w->count; ++i) {
		const throng_controller* ctl = &w->archetypes[w->archetype[i]];
		thr_self s = thr_world_self(w, cs, i);
		float qr = archetype_query_radius(ctl);
		int64_t n_nb = 0;
		if (qr > 0.0f) {
			nb_walk walk;
			n_nb = gather_neighbors(w, cs, i, &s, ctl, qr, &walk);
			if (n_nb < 0) {
				// Nothing of the next state is visible yet: with the old
				// targets back, the world stays at the previous step.
				if (saved_targets != NULL) {
					memcpy(w->target_agent, saved_targets, (size_t)w->count * sizeof *saved_targets);
					free(saved_targets);
				}
				return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for neighbours");
			}
			stats.neighbor_candidates += walk.examined;
			stats.neighbor_capped += (uint64_t)walk.capped;
			stats.neighbor_most_candidates = walk.examined > stats.neighbor_most_candidates
			                                         ? walk.examined
			                                         : stats.neighbor_most_candidates;
			stats.neighbor_most_met = walk.most_met > stats.neighbor_most_met ? walk.most_met
			                                                                  : stats.neighbor_most_met;
		}
		float wander = cs->wander[i];
		float noise = cs->noise[i];
		uint32_t waypoint = cs->waypoint[i];
		vec2 forces[THRONG_MAX_SLOTS];
		for (uint32_t k = 0; k < ctl->slot_count; ++k) {
			forces[k] = ctl->slots[k].enabled
			                    ? slot_force(w, cs, i, &s, &ctl->slots[k], (uint32_t)n_nb, &wander, &noise, &waypoint)
			                    : v2(0.0f, 0.0f);
		}
		vec2 total = thr_blend(ctl, forces, s.max_force);
		if (!v2_isfinite(total)) {
			// Never integrate a non-finite force: count it and drop it.
			stats.nonfinite++;
			total = v2(0.0f, 0.0f);
		}
		if (d->record_forces) {
			for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
				vec2 f = k < ctl->slot_count ? forces[k] : v2(0.0f, 0.0f);
				w->force_x[(size_t)k * w->capacity + i] = f.x;
				w->force_y[(size_t)k * w->capacity + i] = f.y;
			}
			w->total_x[i] = total.x;
			w->total_y[i] = total.y;
		}
		// Integration (SPEC.md): v = limit(v + f*dt, max_speed); p += v*dt.
		vec2 v = v2_limit(v2_add(s.v, v2_scale(total, dt)), s.max_speed);
		vec2 p = v2_add(s.p, v2_scale(v, dt));
		float lox = d->bounds_min.x + s.radius, hix = d->bounds_max.x - s.radius;
		float loy = d->bounds_min.y + s.radius, hiy = d->bounds_max.y - s.radius;
		if (lox > hix) {
			lox = hix = 0.5f * (d->bounds_min.x + d->bounds_max.x);
		}
		if (loy > hiy) {
			loy = hiy = 0.5f * (d->bounds_min.y + d->bounds_max.y);
		}
		stats.clamped += (uint64_t)apply_bounds_axis(d->bounds_mode, &p.x, &v.x, lox, hix, d->bounds_min.x,
		                                             d->bounds_max.x);
		stats.clamped += (uint64_t)apply_bounds_axis(d->bounds_mode, &p.y, &v.y, loy, hiy, d->bounds_min.y,
		                                             d->bounds_max.y);
		if (!v2_isfinite(p) || !v2_isfinite(v)) {
			// Only a corrupted state gets here (inputs are validated and
			// forces checked above): stop the agent where it was rather
			// than let NaN reach its neighbours, and count it.
			stats.nonfinite++;
			v = v2(0.0f, 0.0f);
			p = v2_isfinite(s.p) ? s.p
			                     : v2(0.5f * (d->bounds_min.x + d->bounds_max.x),
			                          0.5f * (d->bounds_min.y + d->bounds_max.y));
		}
		float speed = v2_length(v);
		vec2 h = speed > THR_EPS ? v2_normalize(v) : s.h;
		float ratio = speed / s.max_speed;
		stats.max_speed_ratio = ratio > stats.max_speed_ratio ? ratio : stats.max_speed_ratio;
		ns->px[i] = p.x;
		ns->py[i] = p.y;
		ns->vx[i] = v.x;
		ns->vy[i] = v.y;
		ns->hx[i] = h.x;
		ns->hy[i] = h.y;
		ns->wander[i] = wander;
		ns->noise[i] = noise;
		ns->waypoint[i] = waypoint;
	}
	free(saved_targets);
	w->store.cur ^= 1;
	w->step++;
	stats.steps++;
	w->stats = stats;
	return THRONG_OK;
}
