// SPDX-License-Identifier: MIT
// Combat: strikes found on a step's new state, done after its flip
// (combat.h).
#include "combat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "rng.h"
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

/// Steps from one strike to the next: the cooldown in steps, rounded up,
/// one at least.
static uint32_t cooldown_steps(const throng_combat* c, float dt)
{
	const double s = ceil((double)c->cooldown / (double)dt);
	return s < 1.0 ? 1u : s > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

throng_status thr_combat_strikes(throng_world* w, const thr_state* ns)
{
	w->strike_n = 0;
	w->combat_room = 0;
	if (!thr_combat_any(w)) {
		return THRONG_OK;
	}
	const uint64_t step = w->step;
	uint32_t n = 0;
	for (int pass = 0; pass < 2; ++pass) { // count, then fill
		n = 0;
		for (uint32_t i = 0; i < w->count; ++i) {
			const throng_combat* c = &w->archetypes[w->archetype[i]].combat;
			const uint32_t t = w->target_agent[i];
			if (c->attack != THRONG_ATTACK_MELEE || t == THRONG_NO_AGENT || step < w->ready[i]) {
				continue;
			}
			const uint32_t j = w->slot_of[t];
			if (j == THR_NO_SLOT || !w->archetypes[w->archetype[j]].combat.enabled) {
				continue;
			}
			const float dx = ns->px[j] - ns->px[i], dy = ns->py[j] - ns->py[i];
			const float gap = c->reach + w->radius[i] + w->radius[j];
			if (dx * dx + dy * dy > gap * gap) {
				continue;
			}
			if (pass == 1) {
				const float u = thr_bits_to_unit(thr_rng_bits(w->rng_key, w->id[i], (uint32_t)step, THR_STREAM_COMBAT));
				const bool hit = u < c->accuracy;
				const float armour = w->archetypes[w->archetype[j]].combat.armour;
				const float damage = hit && c->damage > armour ? c->damage - armour : 0.0f;
				w->strikes[n] = (thr_strike){t, w->id[i], damage, hit ? 1u : 0u};
				w->combat_room += hit;
			}
			n++;
		}
		if (pass == 0 && n > w->strike_cap) {
			const uint32_t cap = n > 2u * w->strike_cap ? n : 2u * w->strike_cap;
			thr_strike* p = realloc(w->strikes, (size_t)cap * sizeof *p);
			if (p == NULL) {
				return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_step: out of memory for %u strikes", n);
			}
			w->strikes = p;
			w->strike_cap = cap;
		}
		if (n == 0) {
			return THRONG_OK;
		}
	}
	w->strike_n = n;
	return THRONG_OK;
}

static int by_target(const void* a, const void* b)
{
	const thr_strike* p = a;
	const thr_strike* q = b;
	if (p->target != q->target) {
		return p->target < q->target ? -1 : 1;
	}
	return (p->attacker > q->attacker) - (p->attacker < q->attacker);
}

void thr_combat_apply(throng_world* w)
{
	const uint32_t n = w->strike_n, hits = w->combat_room;
	w->strike_n = 0;
	w->combat_room = 0;
	if (n == 0) {
		return;
	}
	const uint64_t struck = w->step - 1u; // the step the strikes were found in
	thr_strike* s = w->strikes;
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t a = w->slot_of[s[k].attacker];
		if (a != THR_NO_SLOT) { // (a sink may have taken it out)
			const uint64_t next = struck + cooldown_steps(&w->archetypes[w->archetype[a]].combat, w->def.dt);
			w->ready[a] = next > UINT32_MAX ? UINT32_MAX : (uint32_t)next;
		}
	}
	if (hits == 0) {
		return; // all missed (and the removal's buffers were not made for them)
	}
	qsort(s, n, sizeof *s, by_target);
	// The dead, by increasing id, and their killers: the removal's lists
	// (the sinks' buffers, free again after thr_events_sinks).
	uint32_t dead = 0, first = w->count;
	memset(w->sink_dead, 0, (size_t)w->count + 1u);
	for (uint32_t k = 0; k < n;) {
		const uint32_t target = s[k].target, j = w->slot_of[target];
		uint32_t end = k;
		while (end < n && s[end].target == target) {
			end++;
		}
		for (; j != THR_NO_SLOT && k < end; ++k) {
			if (!s[k].hit) {
				continue;
			}
			w->health[j] -= s[k].damage;
			if (w->health[j] <= 0.0f) {
				w->health[j] = 0.0f;
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
