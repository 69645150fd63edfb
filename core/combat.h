// SPDX-License-Identifier: MIT
// Combat (private): the strikes of a step and what they do
// (throng_combat, docs/ARMIES.md).
//
// Two halves around the step's one flip. thr_combat_strikes, before it
// and allowed to fail, finds every strike of the step being taken on its
// new state: an attacker whose cooldown has passed and whose target agent
// stands within its reach strikes it, and the strike hits when a draw
// from (seed, attacker id, step) falls below its accuracy. Nothing of the
// world changes there. thr_combat_apply, after the flip and the sinks,
// restarts the strikers' cooldowns, takes each hit's damage (less the
// target's armour) from its target's health in the order of (target id,
// attacker id), and removes the agents whose health reached 0, each
// listed REMOVED with the attacker whose hit took it there. Storage
// order, the engine and the thread count change none of it.
#ifndef THRONG_CORE_COMBAT_H
#define THRONG_CORE_COMBAT_H

#include <stdint.h>

#include "throng/throng.h"
#include "store.h"

/// One strike of a step.
typedef struct thr_strike {
	uint32_t target, attacker; ///< ids
	float damage;              ///< after armour; 0 for a miss
	uint32_t hit;              ///< 1 hit, 0 miss
} thr_strike;

/// Whether any archetype of w has combat.
bool thr_combat_any(const throng_world* w);

/// The step's strikes on its new state ns (see above) into w->strikes,
/// and w->combat_room. Fails only when out of memory.
throng_status thr_combat_strikes(throng_world* w, const thr_state* ns);

/// The step's strikes done (see above), after the flip and the sinks.
void thr_combat_apply(throng_world* w);

#endif
