// SPDX-License-Identifier: MIT
// Combat (private): the strikes of a step and what they do
// (throng_combat, docs/ARMIES.md).
//
// Two halves around the step's one flip. thr_combat_strikes, before it
// and allowed to fail, finds every strike of the step being taken on its
// new state: the missiles in flight that land in this step (a hit when
// their target's body covers the landing point), and every attacker whose
// cooldown has passed and whose target agent stands within its reach: a
// melee strike hits, or a missile is shot, when a draw from (seed,
// attacker id, step) falls below its accuracy. Nothing of the world
// changes there. thr_combat_apply, after the flip and the sinks, restarts
// the attackers' cooldowns, puts the shots in flight and takes the landed
// ones out, takes each hit's damage (less the target's armour) from its
// target's health in the order of (target id, attacker id, the step the
// blow was dealt), and removes the agents whose health reached 0, each
// listed REMOVED with the attacker whose hit took it there; it marks each
// attacker THRONG_COMBAT_STRUCK and each agent hit THRONG_COMBAT_HIT in
// combat_state, clearing the marks of the step before. Storage
// order, the engine and the thread count change none of it.
//
// In a part world (core/part.h) each part finds the strikes of its own
// attackers and the landings on its own agents, sends the other parts
// its shots and its blows on their agents (throng_part_sync.share), and
// keeps theirs that concern it: every shot, so that every part holds
// every missile in flight in the whole world's order (shot step, then
// shooter id), and the blows on its own agents, which it sums in the
// whole world's order. Each part removes its own dead.
#ifndef THRONG_CORE_COMBAT_H
#define THRONG_CORE_COMBAT_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/throng.h"
#include "store.h"

/// What a strike is.
enum { THR_STRIKE_MISS = 0, THR_STRIKE_HIT, THR_STRIKE_LANDED, THR_STRIKE_SHOT };

/// One strike of a step.
typedef struct thr_strike {
	uint32_t target, attacker; ///< ids
	uint32_t kind;             ///< THR_STRIKE_*: a miss, a melee hit, a missile that landed on its target, a shot
	float damage;              ///< hits: after the target's armour; shots: before it
	uint64_t dealt;            ///< the step the blow was dealt (a landed missile's: when it was shot)
	uint64_t land;             ///< shots: the step it lands in
	float x, y;                ///< shots: where it lands
} thr_strike;

/// A missile in flight.
typedef struct thr_missile {
	uint64_t shot, land;       ///< the steps it was shot in and lands in
	uint32_t target, shooter;  ///< ids
	float x, y;                ///< where it lands
	float damage;              ///< before the target's armour
} thr_missile;

/// Whether any archetype of w has combat.
bool thr_combat_any(const throng_world* w);

/// The step's strikes on its new state ns (see above) into w->strikes,
/// and w->combat_room. Fails only when out of memory.
throng_status thr_combat_strikes(throng_world* w, const thr_state* ns);

/// The step's strikes done (see above), after the flip and the sinks.
void thr_combat_apply(throng_world* w);

/// Makes the missiles in flight of `to` those of `from`, in their order.
/// Out of memory, `to` keeps none.
throng_status thr_combat_copy_missiles(throng_world* to, const throng_world* from);

#endif
