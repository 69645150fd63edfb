// SPDX-License-Identifier: MIT
// throng: units, their morale and their rout (docs/ARMIES.md, "Morale and
// rout").
//
// A unit is a body of soldiers that breaks and runs together. Agents join
// one when they are spawned (throng_agent_def.unit). After every step the
// world measures each unit (its live members, their centre and their mean
// heading, its facing) and its morale:
//
//     morale = base - (start - count) / (breaks_at * most) - shock
//
// where `most` is the most members it ever had, `start` its members when
// it last formed (its first step, or its last rally) and `base` 1 (or
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
// archetype again, its losses count from its strength then, and its
// morale starts at rally_morale.
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
} throng_morale;

/// A unit. Get one from throng_unit_default_def() and set at least
/// archetype and rout_archetype.
typedef struct throng_unit_def {
	uint32_t archetype;      ///< its soldiers' archetype in good order: a rally gives it back to them
	uint32_t rout_archetype; ///< the archetype they take while the unit routs (throng_controller_routing
	                         ///< makes one from the first)
	uint32_t army;           ///< the group label of its side: whose routing units it panics at
	bool has_refuge;         ///< where it runs: refuge, or (false) 1 km behind its facing when it routs,
	                         ///< held inside the world's bounds
	throng_vec2 refuge;      ///< m, finite
	throng_morale morale;
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
	throng_vec2 centre;     ///< its live members' mean position (0, 0 with none)
	throng_vec2 facing;     ///< unit vector of its members' mean heading
	throng_vec2 refuge;     ///< where its routers run (valid once it has routed)
} throng_unit_state;

/// Defaults: archetype 0, rout_archetype 0, army 0, no refuge (behind
/// its facing), and the morale defaults above.
throng_unit_def throng_unit_default_def(void);

/// Adds a unit; its id (0, 1, 2, ... in order) goes to *id_out. Both
/// archetypes must exist; with combat in one, the other has it too (a
/// routing soldier can still be hit). At most THRONG_MAX_UNITS.
throng_status throng_world_add_unit(throng_world* world, const throng_unit_def* def, uint32_t* id_out);

/// Number of units.
uint32_t throng_world_unit_count(const throng_world* world);

/// Copies a unit's state out.
throng_status throng_world_get_unit(const throng_world* world, uint32_t unit, throng_unit_state* out);

/// A routing controller made from a fighting one: the same blend, contact
/// and combat, but no attack and no target rule; every slot that steers
/// by a target agent, the threat or the target point dropped; and a seek
/// to the target point (where throng puts the refuge) added, weight 1.
throng_controller throng_controller_routing(const throng_controller* fighting);

THRONG_API_END

#endif
