// SPDX-License-Identifier: MIT
// Combat: strikes found on a step's new state, done after its flip
// (combat.h).
#include "combat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "memory.h"
#include "part.h"
#include "rng.h"
#include "units.h"
#include "world_internal.h"

bool thr_combat_any(const throng_world* w)
{
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		if (w->archetypes[a].combat.enabled) {
			return true;
		}
	}
	return false;
}

/// Whether some archetype with combat leaves bodies.
static bool bodies_any(const throng_world* w)
{
	for (uint32_t a = 0; a < w->archetype_count; ++a) {
		if (w->archetypes[a].combat.enabled && w->archetypes[a].combat.body_radius > 0.0f) {
			return true;
		}
	}
	return false;
}

/// Steps from one strike to the next: the cooldown in steps, rounded up,
/// one at least.
static uint32_t cooldown_steps(const throng_combat* c, float dt)
{
	const double s = ceil((double)c->cooldown / (double)dt);
	return s < 1.0 ? 1u : s > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/// Damage less armour, never below 0.
static float after_armour(float damage, float armour)
{
	return damage > armour ? damage - armour : 0.0f;
}

/// The combat of the agent at slot j, NULL when it has none.
static const throng_combat* combat_at(const throng_world* w, uint32_t j)
{
	const throng_combat* c = &w->archetypes[w->archetype[j]].combat;
	return c->enabled ? c : NULL;
}

/// Strike k of the step into *out (see combat.h), or false when the agent
/// at slot i does not strike: melee or missile, ready, its target live,
/// with combat and within reach on the new state ns.
static bool strike_of(const throng_world* w, const thr_state* ns, uint32_t i, thr_strike* out)
{
	const throng_combat* c = &w->archetypes[w->archetype[i]].combat;
	const uint32_t t = w->target_agent != NULL ? w->target_agent[i] : THRONG_NO_AGENT;
	const uint64_t step = w->step;
	if (c->attack == THRONG_ATTACK_NONE || t == THRONG_NO_AGENT || step < w->ready[i]) {
		return false;
	}
	const uint32_t j = w->slot_of[t];
	if (j == THR_NO_SLOT || combat_at(w, j) == NULL) {
		return false;
	}
	const float dx = ns->px[j] - ns->px[i], dy = ns->py[j] - ns->py[i];
	const float gap = c->reach + w->radius[i] + w->radius[j];
	if (dx * dx + dy * dy > gap * gap) {
		return false;
	}
	const uint32_t id = w->id[i], s = (uint32_t)step;
	const bool hit = thr_bits_to_unit(thr_rng_bits(w->rng_key, id, s, THR_STREAM_COMBAT)) < c->accuracy;
	*out = (thr_strike){t, id, THR_STRIKE_MISS, 0.0f, step, 0, 0.0f, 0.0f};
	if (!hit) {
		return true;
	}
	if (c->attack == THRONG_ATTACK_MELEE) {
		out->kind = THR_STRIKE_HIT;
		out->damage = after_armour(c->damage, combat_at(w, j)->armour);
		return true;
	}
	// A shot: where in the spread disc round the target it lands (uniform
	// in the disc), and after how many steps of flight.
	const float r = c->spread * sqrtf(thr_bits_to_unit(thr_rng_bits(w->rng_key, id, s, THR_STREAM_SPREAD_R)));
	const float a = 6.2831853f * thr_bits_to_unit(thr_rng_bits(w->rng_key, id, s, THR_STREAM_SPREAD_A)) - 3.14159265f;
	float sn = 0.0f, cs = 1.0f;
	thr_sincosf(a, &sn, &cs);
	out->kind = THR_STRIKE_SHOT;
	out->damage = c->damage;
	out->x = ns->px[j] + r * cs;
	out->y = ns->py[j] + r * sn;
	const float fx = out->x - ns->px[i], fy = out->y - ns->py[i];
	const double flight = ceil((double)sqrtf(fx * fx + fy * fy) / ((double)c->missile_speed * (double)w->def.dt));
	out->land = step + (flight < 1.0 ? 1u : flight > 1.0e9 ? (uint64_t)1e9 : (uint64_t)flight);
	return true;
}

/// The landing of missile m in this step as a strike into *out, or false
/// when it falls to the ground: its target gone, without combat, or its
/// body (on the new state ns) not over the landing point.
static bool landing_of(const throng_world* w, const thr_state* ns, const thr_missile* m, thr_strike* out)
{
	const uint32_t j = w->slot_of[m->target];
	if (j == THR_NO_SLOT || combat_at(w, j) == NULL) {
		return false;
	}
	const float dx = ns->px[j] - m->x, dy = ns->py[j] - m->y;
	if (dx * dx + dy * dy > w->radius[j] * w->radius[j]) {
		return false;
	}
	*out = (thr_strike){m->target, m->shooter, THR_STRIKE_LANDED, after_armour(m->damage, combat_at(w, j)->armour),
	                    m->shot, 0, 0.0f, 0.0f};
	return true;
}

/// Room for one more strike than the n made so far.
static throng_status strike_room(throng_world* w, uint32_t n)
{
	if (n < w->strike_cap) {
		return THRONG_OK;
	}
	const uint32_t cap = w->strike_cap > 0 ? 2u * w->strike_cap : 256u;
	thr_strike* p = realloc(w->strikes, (size_t)cap * sizeof *p);
	if (p == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %u strikes", cap);
	}
	w->strikes = p;
	w->strike_cap = cap;
	return THRONG_OK;
}

/// Room for `dead` more bodies and their obstacles (thr_reserve's
/// doubling: a battle's steps take no new memory once the field is full).
static throng_status body_room(throng_world* w, uint32_t dead)
{
	if (dead == 0 || !bodies_any(w)) {
		return THRONG_OK;
	}
	const size_t need_o = (size_t)w->obstacle_count + dead, need_b = (size_t)w->body_n + dead;
	if (need_o > UINT32_MAX || need_b > UINT32_MAX ||
	    thr_reserve((void**)&w->obstacles, &w->obstacle_cap, need_o, sizeof *w->obstacles, 16) != 0 ||
	    thr_reserve((void**)&w->bodies, &w->body_cap, need_b, sizeof *w->bodies, 16) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %u more bodies", dead);
	}
	return THRONG_OK;
}

/// Lays the agent at slot j, killed by `killer`, on the ground when its
/// archetype leaves a body: its obstacle and its record (room made by
/// body_room). Called in increasing id order, before the removal.
static void lay_body(throng_world* w, uint32_t j, uint32_t killer)
{
	const throng_combat* c = &w->archetypes[w->archetype[j]].combat;
	if (!(c->body_radius > 0.0f)) {
		return;
	}
	const thr_state* cs = thr_cur_c(w);
	const float x = cs->px[j], y = cs->py[j];
	// It falls away from its killer: along killer -> it, else its heading.
	float fx = cs->hx[j], fy = cs->hy[j];
	const uint32_t k = killer < thr_id_end(w) ? w->slot_of[killer] : THR_NO_SLOT;
	if (k != THR_NO_SLOT) {
		float dx = x - cs->px[k], dy = y - cs->py[k];
		const thr_period per = thr_world_period(w);
		thr_period_image(&per, &dx, &dy);
		const float d = sqrtf(dx * dx + dy * dy);
		if (d > 1.0e-6f) {
			fx = dx / d;
			fy = dy / d;
		}
	}
	const float h = sqrtf(fx * fx + fy * fy);
	if (h > 1.0e-6f) {
		fx /= h;
		fy /= h;
	} else {
		fx = 1.0f;
		fy = 0.0f;
	}
	const uint32_t o = w->obstacle_count++;
	w->obstacles[o] = (thr_obstacle){{x, y}, c->body_radius};
	w->shapes_dirty = 1;
	w->bodies[w->body_n++] = (throng_body){.position = {x, y},
	                                       .facing = {fx, fy},
	                                       .radius = c->body_radius,
	                                       .agent = w->id[j],
	                                       .killer = killer,
	                                       .group = w->group[j],
	                                       .archetype = w->archetype[j],
	                                       .unit = w->unit != NULL ? w->unit[j] : THRONG_NO_UNIT,
	                                       .obstacle = o,
	                                       .step = w->step};
}

throng_status throng_world_bodies(const throng_world* w, const throng_body** bodies, uint32_t* count)
{
	throng_status st = thr_check_world(w, "throng_world_bodies");
	if (st == THRONG_OK && (bodies == NULL || count == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_bodies: bodies and count must not be NULL");
	}
	if (st != THRONG_OK) {
		return st;
	}
	*bodies = w->body_n > 0 ? w->bodies : NULL;
	*count = w->body_n;
	return THRONG_OK;
}

/// Room for `shots` more missiles in flight.
static throng_status missile_room(throng_world* w, uint32_t shots)
{
	const uint64_t need = (uint64_t)w->missile_n + shots;
	if (need <= w->missile_cap) {
		return THRONG_OK;
	}
	const uint64_t cap = need > 2u * (uint64_t)w->missile_cap ? need : 2u * (uint64_t)w->missile_cap;
	thr_missile* p = cap <= UINT32_MAX ? realloc(w->missiles, (size_t)cap * sizeof *p) : NULL;
	if (p == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %llu missiles",
		                (unsigned long long)need);
	}
	w->missiles = p;
	w->missile_cap = (uint32_t)cap;
	return THRONG_OK;
}

/// Whether the agent with id `id` is one of w's own: in a whole world,
/// any it holds; in a part world, not a ghost (another part owns it).
static inline bool own_id(const throng_world* w, uint32_t id)
{
	return w->slot_of[id] != THR_NO_SLOT && !thr_part_ghost(w->part, id);
}

/// Whether strike s must reach the other parts: every shot (every part
/// keeps every missile in flight, in the whole world's order) and every
/// blow on an agent another part owns.
static inline bool strike_leaves(const throng_world* w, const thr_strike* s)
{
	return s->kind == THR_STRIKE_SHOT || (s->kind == THR_STRIKE_HIT && !own_id(w, s->target));
}

/// A part world's half of the strikes' trade (throng_part_sync.share),
/// on the n strikes of its own attackers and of the missiles landing on
/// its own agents: sends the other parts its shots and its blows on
/// their agents (here a blow on a ghost only restarts its attacker's
/// cooldown: a miss), and keeps what they send of theirs: every shot,
/// and the blows on its own agents. thr_combat_apply orders them all as
/// the whole world does. Every part calls the share, st failed or not;
/// out of memory, the step fails after it. Updates *n, *hits, *shots.
static throng_status trade_strikes(throng_world* w, throng_status st, uint32_t* n, uint32_t* hits, uint32_t* shots)
{
	const throng_part_sync* sync = thr_part_sync_of(w);
	uint32_t out = 0;
	for (uint32_t k = 0; st == THRONG_OK && k < *n; ++k) {
		out += strike_leaves(w, &w->strikes[k]);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < out; ++k) {
		st = strike_room(w, *n + k);
	}
	const uint32_t sent = st == THRONG_OK ? out : 0;
	for (uint32_t k = 0, q = *n; k < *n && q < *n + sent; ++k) {
		thr_strike* s = &w->strikes[k];
		if (strike_leaves(w, s)) {
			w->strikes[q++] = *s;
			if (s->kind == THR_STRIKE_HIT) {
				s->kind = THR_STRIKE_MISS; // the damage is the owner's
				*hits -= 1;
			}
		}
	}
	size_t got = 0;
	const thr_strike* in = sync->share(sync->user, THRONG_PART_COMBAT_STRIKES, &w->strikes[*n],
	                                   (size_t)sent * sizeof(thr_strike), &got);
	const size_t m = got / sizeof(thr_strike);
	uint32_t kept = *n;
	for (size_t k = 0; st == THRONG_OK && k < m; ++k) {
		thr_strike s;
		memcpy(&s, (const char*)in + k * sizeof s, sizeof s); // (the driver's bytes, maybe unaligned)
		const bool shot = s.kind == THR_STRIKE_SHOT;
		if ((shot || (s.kind == THR_STRIKE_HIT && s.target < thr_id_end(w) && own_id(w, s.target))) &&
		    (st = strike_room(w, kept)) == THRONG_OK) {
			w->strikes[kept++] = s;
			*hits += !shot;
			*shots += shot;
		}
	}
	*n = kept;
	return st;
}

throng_status thr_combat_strikes(throng_world* w, const thr_state* ns)
{
	w->strike_n = 0;
	w->combat_room = 0;
	if (!thr_combat_any(w)) {
		return THRONG_OK;
	}
	// One pass, each strike written as it is found (the buffers are the
	// combat stage's own: a failure changes nothing of the world, and
	// strike_n stays 0 until the pass is whole). A part world finds the
	// strikes of its own attackers and the landings on its own agents
	// only, then trades with the other parts (trade_strikes).
	const thr_part* p = w->part;
	uint32_t n = 0, hits = 0, shots = 0;
	throng_status st = THRONG_OK;
	for (uint32_t k = 0; k < w->missile_n && st == THRONG_OK; ++k) {
		st = strike_room(w, n);
		if (st == THRONG_OK && w->missiles[k].land <= w->step && (p == NULL || own_id(w, w->missiles[k].target)) &&
		    landing_of(w, ns, &w->missiles[k], &w->strikes[n])) {
			hits++;
			n++;
		}
	}
	for (uint32_t i = 0; i < w->count && st == THRONG_OK; ++i) {
		st = strike_room(w, n);
		if (st == THRONG_OK && (p == NULL || !thr_part_ghost(p, w->id[i])) && strike_of(w, ns, i, &w->strikes[n])) {
			hits += w->strikes[n].kind == THR_STRIKE_HIT;
			shots += w->strikes[n].kind == THR_STRIKE_SHOT;
			n++;
		}
	}
	if (p != NULL) {
		st = trade_strikes(w, st, &n, &hits, &shots);
	}
	if (st == THRONG_OK) {
		st = missile_room(w, shots);
	}
	if (st == THRONG_OK) {
		st = body_room(w, hits); // (a hit kills one at most)
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->strike_n = n;
	w->combat_room = hits;
	return THRONG_OK;
}

/// Hits first, by (target, attacker, step dealt); then shots by shooter;
/// then misses.
static int by_target(const void* a, const void* b)
{
	const thr_strike* p = a;
	const thr_strike* q = b;
	const int hp = p->kind == THR_STRIKE_HIT || p->kind == THR_STRIKE_LANDED;
	const int hq = q->kind == THR_STRIKE_HIT || q->kind == THR_STRIKE_LANDED;
	if (hp != hq) {
		return hq - hp;
	}
	if (p->kind != q->kind && !hp) {
		return p->kind == THR_STRIKE_SHOT ? -1 : 1;
	}
	if (hp && p->target != q->target) {
		return p->target < q->target ? -1 : 1;
	}
	if (p->attacker != q->attacker) {
		return p->attacker < q->attacker ? -1 : 1;
	}
	return (p->dealt > q->dealt) - (p->dealt < q->dealt);
}

void thr_combat_apply(throng_world* w)
{
	const uint32_t n = w->strike_n, hits = w->combat_room;
	w->strike_n = 0;
	w->combat_room = 0;
	const uint64_t struck = w->step - 1u; // the step the strikes were found in
	// The marks of the step before go: they tell what this step did.
	if (w->combat_marked) {
		memset(w->combat_state, 0, (size_t)w->count * sizeof *w->combat_state);
		w->combat_marked = false;
	}
	// The missiles that came down in that step (on their target or not)
	// leave the air.
	uint32_t kept = 0;
	for (uint32_t k = 0; k < w->missile_n; ++k) {
		if (w->missiles[k].land > struck) {
			w->missiles[kept++] = w->missiles[k];
		}
	}
	w->missile_n = kept;
	if (n == 0) {
		return;
	}
	thr_strike* s = w->strikes;
	thr_store_combat_live(&w->store);
	w->combat_marked = true;
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t a = w->slot_of[s[k].attacker];
		if (s[k].kind != THR_STRIKE_LANDED && a != THR_NO_SLOT) { // (a sink may have taken it out)
			const uint64_t next = struck + cooldown_steps(&w->archetypes[w->archetype[a]].combat, w->def.dt);
			w->ready[a] = next > UINT32_MAX ? UINT32_MAX : (uint32_t)next;
			w->combat_state[a] |= THRONG_COMBAT_STRUCK;
		}
	}
	qsort(s, n, sizeof *s, by_target); // the hits first, then the shots
	// The shots, by shooter, join the air (room made by thr_combat_strikes).
	for (uint32_t q = hits; q < n && s[q].kind == THR_STRIKE_SHOT; ++q) {
		w->missiles[w->missile_n++] = (thr_missile){struck, s[q].land, s[q].target, s[q].attacker, s[q].x, s[q].y,
		                                            s[q].damage};
	}
	if (hits == 0) {
		return; // (and the removal's buffers were not made)
	}
	// The dead, by increasing id, and their killers: the removal's lists
	// (the sinks' buffers, free again after thr_events_sinks).
	uint32_t dead = 0, first = w->count;
	memset(w->sink_dead, 0, (size_t)w->count + 1u);
	for (uint32_t k = 0; k < hits;) {
		const uint32_t target = s[k].target, j = w->slot_of[target];
		uint32_t end = k;
		while (end < hits && s[end].target == target) {
			end++;
		}
		for (; j != THR_NO_SLOT && k < end; ++k) {
			w->combat_state[j] |= THRONG_COMBAT_HIT;
			w->health[j] -= s[k].damage;
			thr_units_hit(w, j, s[k].attacker);
			if (w->health[j] <= 0.0f) {
				w->health[j] = 0.0f;
				lay_body(w, j, s[k].attacker);
				w->sink_dead[j] = 1;
				first = j < first ? j : first;
				w->sink_ids[dead] = target;
				w->sink_zones[dead++] = s[k].attacker;
				break;
			}
		}
		k = end;
	}
	if (dead > 0) {
		thr_remove_marked(w, w->sink_dead, first, w->sink_scratch, w->sink_ids, NULL, w->sink_zones, dead);
		w->events_calls = w->event_count; // listed with the step's own events
	}
}

throng_status thr_combat_copy_missiles(throng_world* to, const throng_world* from)
{
	if (to == from) {
		return THRONG_OK;
	}
	to->missile_n = 0;
	const throng_status st = missile_room(to, from->missile_n);
	if (st != THRONG_OK) {
		return st;
	}
	if (from->missile_n > 0) {
		memcpy(to->missiles, from->missiles, (size_t)from->missile_n * sizeof *to->missiles);
	}
	to->missile_n = from->missile_n;
	return THRONG_OK;
}
