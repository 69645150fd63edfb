// SPDX-License-Identifier: MIT
// Units (private): their state and the morale stage (throng/units.h has
// the model).
//
// Two hooks in the step. thr_units_hit, from thr_combat_apply for every
// hit it takes from a target's health, weighs the hit by where its
// attacker stands against the target's unit's facing (front, flank,
// rear) and counts the flank and rear ones. thr_units_step, after the
// combat's removals, measures every unit on the step's final state (one
// pass over the agents into integer sums, so the storage order changes
// no bit), turns those hits and panic into shock, reckons morale, routs and
// rallies units (their members' archetypes and targets change here,
// between steps, as throng_world_set_archetype would), moves the
// anchors of units in formation by their orders and puts their soldiers'
// target points on their slots (one pass over the ids: a soldier's slot is
// its place in id order among its unit's live members), and marks the
// members of routing units THRONG_COMBAT_ROUTING.
//
// In a part world (core/part.h) a part sums its own members only, the
// parts add their sums up (THRONG_PART_UNITS, one reduction of THR_UNIT_SUMS integers
// a unit), and every part then reckons every unit alike: each holds every
// unit's state. The hits a part weighs are those on its own agents.
// Formations are refused there (a slot is a rank among all members).
#ifndef THRONG_CORE_UNITS_H
#define THRONG_CORE_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/throng.h"

/// The integers a unit's morale stage sums over its members, which part
/// worlds reduce (THRONG_PART_UNITS): positions, headings, the members
/// counted, flank and rear hits, hit, engaged and died.
#define THR_UNIT_SUMS 10u

typedef struct thr_unit {
	throng_unit_def def;
	uint32_t count, most;  ///< live members; the most it had
	uint32_t start;        ///< members when it last formed (its first measure, or its last rally)
	uint32_t rallies_left;
	uint32_t quiet;        ///< routing: steps since a hit reached it
	bool routing;
	bool hit;              ///< a member was hit in the step being measured
	float base;            ///< morale before losses and shock: 1, or rally_morale after a rally
	float shock;
	float morale;
	uint32_t flank_hits, rear_hits; ///< the step's hits on its flanks and rear (thr_units_hit): counts,
	                                ///< so that their weight does not depend on the order they come in
	uint64_t routed_step;  ///< UINT64_MAX: never
	uint32_t killed;       ///< members killed in combat, ever (thr_units_left; the army's break counts them)
	float cx, cy;          ///< centre
	float fx, fy;          ///< facing (unit)
	float rx, ry;          ///< refuge in use
	// Formation (def.formation.kind not NONE).
	throng_order order;
	bool charging;         ///< left its slots to fight
	bool anchored;         ///< its anchor was placed (at its first measure)
	float ax, ay;          ///< anchor
	float hx, hy;          ///< the way its slots face
	// The morale stage's scratch (no allocation after the step's flip).
	int64_t sx, sy, shx, shy; ///< its members' sums: positions in 1/256 m, headings in 2^-20
	uint32_t n;               ///< its members counted
	uint32_t router;          ///< the index of a routing unit, in the list the stage makes
	uint32_t next;            ///< formation: the next slot to give, in id order
	bool engaged;             ///< a member struck or was hit in the step
	bool change;              ///< its members' archetype changes in this stage
	bool rallied;             ///< it rallied in this stage
	uint32_t died;            ///< members killed since its last measure (a part world: its own members)
	uint32_t army_first;      ///< the first unit of its army (valid below w->unit_armies)
	uint64_t army_most, army_killed; ///< at the first unit of an army: its units' most members, and
	                                 ///< their members killed
} thr_unit;

/// A hit taken from the health of the agent at slot `target` by the
/// agent with id `attacker` (who may be gone), weighed into the target's
/// unit (none: nothing).
void thr_units_hit(throng_world* w, uint32_t target, uint32_t attacker);

/// An agent joined unit k (a spawn): its count, and its most and start
/// strength when it is stronger than ever, follow at once, so that the
/// first step's losses count against the whole of it.
void thr_units_joined(throng_world* w, uint32_t k);

/// An agent of unit k was removed: killed in combat, or sunk or taken
/// out. `own`: not a part world's ghost (whose owner counts its death).
void thr_units_left(throng_world* w, uint32_t k, bool killed, bool own);

/// The morale stage (see above), after thr_combat_apply.
void thr_units_step(throng_world* w);

/// Makes the units' states of `to` those of `from` (as many units, the
/// same defs: a part world and its whole).
void thr_units_copy(throng_world* to, const throng_world* from);

#endif
