// SPDX-License-Identifier: MIT
// throng: units, their morale and their rout (docs/ARMIES.md, "Morale and
// rout").
//
// A unit is a body of soldiers that breaks and runs together. Agents join
// one when they are spawned (throng_agent_def.unit). After every step the
// world measures each unit (its live members, their centre and their mean
// heading, its facing: a unit in formation that has not charged faces as
// its slots do) and its morale:
//
//     morale = base - (start - count) / (breaks_at * most) - shock
//
// where `most` is the most members it ever had, `start` its members when
// it last formed (as they joined, or at its last rally) and `base` 1 (or
// rally_morale after a rally). So losses alone rout it when it has lost
// breaks_at of its strength. `shock` grows with every hit a member takes
// from the flank (as `flank` losses) or the rear (as `rear` losses),
// reckoned from the unit's facing, and by `panic` a second for every
// routing unit of its own army whose centre is within panic_radius of
// its own; it falls by `recovery` a second. When morale reaches 0 the unit
// routs: its members take the rout archetype and run for the refuge (the
// target point of every member), marked THRONG_COMBAT_ROUTING in
// combat_state. A routing unit that no hit reached for rally_time seconds
// rallies, while it has rallies left: its members take the unit's
// archetype again and stop where they stand (their target points are
// where they rallied), its losses count from its strength then, and its
// morale starts at rally_morale. An army breaks when the members killed
// of all its units (those with the same `army`) reach army_breaks_at of
// their strength (the sum of each unit's most members): its units whose
// army_breaks_at that is rout, and do not rally. Soldiers who leave by a
// sink or are removed are not killed.
//
// Formations and orders. A unit with a formation (throng_formation) has
// an anchor, a point and a facing that orders move: each soldier has a
// slot in the formation (ranks of files, or a wedge), given by its place
// among the unit's live members in id order (so the ranks close up as
// soldiers fall), and the world sets its target point to that slot
// around the anchor after every step. While it marches (every order but
// a charge) its soldiers take the march archetype, which
// throng_controller_formation makes from the fighting one: they keep
// their slots and strike whoever comes within reach. A unit marching on
// a move or halt order charges (its soldiers take the fighting archetype
// and leave their slots) once any of them strikes or is hit; on a hold
// order it keeps its ranks and fights where it stands. Orders
// (throng_world_order_unit): move to a point (the anchor advances at the
// formation's speed, wheeling towards where it goes at its turn rate,
// and halts there), halt, turn to face a direction, charge, hold.
//
// Everything is computed from sums that do not depend on the order in
// which agents are stored (the centre and facing in fixed point), so a
// battle with morale is the same bit for bit in both engines and on any
// thread count.
#ifndef THRONG_UNITS_H
#define THRONG_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// Morale parameters (see above). Rates are per second.
typedef struct throng_morale {
	float breaks_at;    ///< the share of its most members whose loss alone routs it, (0, 1]; default 0.4
	float flank;        ///< a hit from the side weighs as this many losses, [0, 1e6]; default 1
	float rear;         ///< a hit from behind weighs as this many losses, [0, 1e6]; default 3
	float panic;        ///< morale lost a second for each routing unit of its army within panic_radius,
	                    ///< [0, 1e6]; default 0.05
	float panic_radius; ///< m, [0, 1e6]; default 30
	float recovery;     ///< shock recovered a second, [0, 1e6]; default 0.02
	float rally_time;   ///< s without a hit before a routing unit rallies, [0, 1e6]; default 10
	float rally_morale; ///< morale after a rally, (0, 1]; default 0.5
	uint32_t rallies;   ///< how many times it can rally; default 1
	float army_breaks_at; ///< the share of its army's strength (the most members of all its units) killed
	                      ///< at which it routs and no longer rallies (the army breaks), (0, 1];
	                      ///< default 1: never
} throng_morale;

/// Formation shapes. Slot k of n: rank r and place j in it.
typedef enum throng_formation_kind {
	THRONG_FORMATION_NONE = 0, ///< no slots: the soldiers go where their archetype takes them
	THRONG_FORMATION_LINE,     ///< ranks of `files` (0: about twice the square root of n, a line four
	                           ///< times wider than deep), the last rank centred
	THRONG_FORMATION_COLUMN,   ///< ranks of `files` (0: 4), deep
	THRONG_FORMATION_SQUARE,   ///< ranks of `files` (0: the square root of n, rounded up)
	THRONG_FORMATION_WEDGE,    ///< rank r holds 2r + 1, its point forward (files ignored)
} throng_formation_kind;

/// A unit's formation: the shape and how it moves.
typedef struct throng_formation {
	throng_formation_kind kind;
	uint32_t files;     ///< soldiers a rank (see the kinds); 0 = from the count
	float spacing;      ///< m between files, (0, 1e3]; default 1
	float rank_spacing; ///< m between ranks, (0, 1e3]; default 1
	float speed;        ///< m/s the anchor advances at on a move order, (0, 1e3]; default 1
	float turn_rate;    ///< rad/s it wheels at, (0, 1e3]; default 0.5
} throng_formation;

/// What a unit is told to do (throng_world_order_unit).
typedef enum throng_order_kind {
	THRONG_ORDER_HALT = 0, ///< stand where the anchor is (the first order of every unit); charges when engaged
	THRONG_ORDER_MOVE,     ///< advance to `point`, then halt; charges when engaged
	THRONG_ORDER_TURN,     ///< wheel to face `point` (a direction), then halt
	THRONG_ORDER_CHARGE,   ///< leave the formation and fight (the fighting archetype)
	THRONG_ORDER_HOLD,     ///< stand in formation and fight there, engaged or not
} throng_order_kind;

typedef struct throng_order {
	throng_order_kind kind;
	throng_vec2 point; ///< move: where (m); turn: the direction to face (not 0); else unused
} throng_order;

/// A unit. Get one from throng_unit_default_def() and set at least
/// archetype and rout_archetype (and, for a formation, march_archetype).
typedef struct throng_unit_def {
	uint32_t archetype;      ///< its soldiers' archetype in good order: a rally gives it back to them
	uint32_t rout_archetype; ///< the archetype they take while the unit routs (throng_controller_routing
	                         ///< makes one from the first)
	uint32_t army;           ///< the group label of its side: whose routing units it panics at
	bool has_refuge;         ///< where it runs: refuge, or (false) 1 km behind its facing when it routs,
	                         ///< held inside the world's bounds
	throng_vec2 refuge;      ///< m, finite
	throng_morale morale;
	throng_formation formation; ///< kind THRONG_FORMATION_NONE by default
	uint32_t march_archetype;   ///< its soldiers' archetype while it marches in formation
	                            ///< (throng_controller_formation makes one from the fighting one)
	int32_t internal_cookie; ///< set by throng_unit_default_def(); leave as is
} throng_unit_def;

/// A unit as the last step left it.
typedef struct throng_unit_state {
	uint32_t count;         ///< live members
	uint32_t most;          ///< the most members it had
	float morale;           ///< see above; 0 or below routs it
	float shock;            ///< the part of morale lost to hits on its flanks and rear and to panic
	bool routing;
	uint32_t rallies_left;
	uint64_t routed_step;   ///< the step count when it first routed; UINT64_MAX: never
	uint32_t killed;        ///< members killed in combat (not those who left through a sink or were removed)
	throng_vec2 centre;     ///< its live members' mean position (0, 0 with none)
	throng_vec2 facing;     ///< unit vector of its members' mean heading (in formation, not charging: heading)
	throng_vec2 refuge;     ///< where its routers run (valid once it has routed)
	throng_order order;     ///< formation: its order now (a move or turn done becomes a halt)
	bool charging;          ///< formation: it has left its slots to fight (charge order, or engaged)
	throng_vec2 anchor;     ///< formation: the point its slots are placed round (m)
	throng_vec2 heading;    ///< formation: the way its slots face (unit vector)
} throng_unit_state;

/// Defaults: archetype 0, rout_archetype 0, army 0, no refuge (behind
/// its facing), the morale defaults above, no formation (its other
/// fields at their defaults), march_archetype 0.
throng_unit_def throng_unit_default_def(void);

/// Adds a unit; its id (0, 1, 2, ... in order) goes to *id_out. Both
/// archetypes must exist; with combat in one, the other has it too (a
/// routing soldier can still be hit). At most THRONG_MAX_UNITS.
throng_status throng_world_add_unit(throng_world* world, const throng_unit_def* def, uint32_t* id_out);

/// Number of units.
uint32_t throng_world_unit_count(const throng_world* world);

/// Copies a unit's state out.
throng_status throng_world_get_unit(const throng_world* world, uint32_t unit, throng_unit_state* out);

/// Gives a unit with a formation an order, from the next step on. A
/// routing unit takes it when it rallies. Fails with
/// THRONG_ERR_INVALID_ARGUMENT naming the field (a unit without a
/// formation, a point not finite, a turn towards (0, 0)) and
/// THRONG_ERR_NOT_FOUND (no such unit), changing nothing.
throng_status throng_world_order_unit(throng_world* world, uint32_t unit, throng_order order);

/// A marching controller made from a fighting one: the same blend,
/// contact, combat and target rule (its soldiers strike whoever their
/// rule chooses within reach), every slot that steers by a target agent,
/// the threat or the target point dropped, and an arrive at the target
/// point (the soldier's slot) added, weight 1, slowing within 1 m.
throng_controller throng_controller_formation(const throng_controller* fighting);

/// A routing controller made from a fighting one: the same blend, contact
/// and combat, but no attack and no target rule; every slot that steers
/// by a target agent, the threat or the target point dropped; and a seek
/// to the target point (where throng puts the refuge) added, weight 1.
throng_controller throng_controller_routing(const throng_controller* fighting);

THRONG_API_END

#endif
