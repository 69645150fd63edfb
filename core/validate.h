// SPDX-License-Identifier: MIT
// Input validation (private). Every function returns THRONG_OK or a status
// with throng_last_error() naming the field, e.g.
// "agents[3].max_speed: must be finite, > 0 and <= 1e6 (got nan)".
#ifndef THRONG_CORE_VALIDATE_H
#define THRONG_CORE_VALIDATE_H

#include "throng/throng.h"

/// Checked by throng_world_create() (thr_validate_def) to catch defs not
/// made by the defaults.
#define THR_DEF_COOKIE 0x7468726e

/// Most agents one world holds at once.
#define THR_MAX_CAPACITY 100000000u
/// Ids a world gives in its life, at most: they stay below 2^31 (the
/// contact pass compares them as signed 32-bit integers, simd/contact.c).
#define THR_MAX_IDS 0x7fffffffu
/// A wall segment must be longer than this (m): its normal, which wall
/// avoidance and the contact pass push along, comes from b - a. Scenario
/// files hold to it too (core/scene/scenario_file_shapes.c).
#define THR_MIN_WALL_LENGTH 1.0e-4f

throng_status thr_validate_def(const throng_world_def* def);
throng_status thr_validate_controller(const throng_controller* ctl);
/// One def, number `index`, of a spawn batch into a world made from `def`
/// that holds `archetypes` archetypes, `paths` paths and `units` units;
/// the batch's ids end below `ids_end`.
throng_status thr_validate_agent(const throng_world_def* def, uint32_t archetypes, uint32_t paths, uint32_t units,
                                 const throng_agent_def* a, uint32_t index, uint32_t ids_end);
/// A point of the world (a target, a waypoint, the threat's position or
/// velocity): both coordinates finite with magnitude <= THRONG_MAX_COORD.
/// `ctx` names it: "throng_world_set_target: target".
throng_status thr_validate_point(const char* ctx, throng_vec2 p);
/// Whether a velocity of length `speed` is not faster than `max_speed`:
/// within float rounding of it (a millionth), so that an agent's own
/// velocity read back (the step leaves lengths a unit in the last place
/// past max_speed) is always taken by a spawn or a setter.
static inline bool thr_speed_fits(float speed, float max_speed) { return speed <= max_speed * (1.0f + 1.0e-6f); }
/// A positive magnitude (a speed, a force, a radius): finite, in
/// [1e-6, 1e6]; "<ctx><field>: ..." names it.
throng_status thr_validate_magnitude(const char* ctx, const char* field, float v);
/// An agent's position in a world made from d: finite, |x|,|y| <=
/// THRONG_MAX_COORD, inside the bounds unless they are open; "<ctx>x: ..."
/// or "<ctx>(x, y) is outside ..." names it.
throng_status thr_validate_position(const throng_world_def* d, const char* ctx, throng_vec2 p);
throng_status thr_validate_obstacle(const char* ctx, throng_vec2 c, float r);
throng_status thr_validate_wall(const char* ctx, throng_vec2 a, throng_vec2 b);

#endif
