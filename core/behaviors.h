// SPDX-License-Identifier: MIT
// The scalar reference behaviours: one agent at a time, straight from SPEC.md.
//
// Each function is pure: it reads the agent (`thr_self`) and what it reacts to
// and returns a force; none writes a position or velocity. Wander takes its
// persistent angle by pointer and the step's draw as an argument, so the
// caller owns the random stream. These functions are the yardstick the SIMD
// passes are tested against; keep them plain.
#ifndef THRONG_CORE_BEHAVIORS_H
#define THRONG_CORE_BEHAVIORS_H

#include <stdbool.h>
#include <stdint.h>

#include "fmath.h"
#include "throng/behavior.h"
#include "vec.h"

/// The agent a behaviour steers.
typedef struct thr_self {
	vec2 p, v, h;  ///< position, velocity, stored unit heading
	float max_speed, max_force, radius;
	uint32_t id, group;
} thr_self;

/// A neighbour as the neighbour behaviours see it.
typedef struct thr_neighbor {
	vec2 p, v;
	uint32_t id, group;
	float radius;
} thr_neighbor;

typedef struct thr_obstacle {
	vec2 c;
	float r;
} thr_obstacle;

typedef struct thr_wall {
	vec2 a, b;
} thr_wall;

/// desired = normalize(t - p)*max_speed; limit(desired - v, max_force).
vec2 thr_seek(const thr_self* s, vec2 t);
/// Flee in the three modes of SPEC.md; R is the flee radius.
vec2 thr_flee(const thr_self* s, vec2 t, float R, throng_flee_mode mode);
/// Arrive with slow radius > 0.
vec2 thr_arrive(const thr_self* s, vec2 t, float slow_radius);
/// Seek the target's position predicted T = min(d/max_speed, T_max) ahead.
vec2 thr_pursuit(const thr_self* s, vec2 tp, vec2 tv, float t_max);
/// Evade a threat at tp moving at tv, inside radius R.
vec2 thr_evade(const thr_self* s, vec2 tp, vec2 tv, float R, float t_max);
/// The circle wander's angle after a step: angle + draw*jitter*dt (draw in
/// [-1, 1]) wrapped to [-pi, pi]. thr_wander steers by it; the step keeps
/// it (core/angles.c).
static inline float thr_wander_turn(float angle, float draw, float jitter, float dt)
{
	// Choice: the angle is wrapped to [-pi, pi] after each step so that the
	// polynomial sin/cos stay in their accurate range on long runs.
	return thr_wrap_angle(angle + draw * jitter * dt);
}
/// The noise wander's: angle + noise*amplitude*dt (noise in [-1, 1]),
/// wrapped. thr_wander_noise steers by it; the step keeps it.
static inline float thr_noise_turn(float angle, float noise, float amplitude, float dt)
{
	return thr_wrap_angle(angle + noise * amplitude * dt);
}
/// Circle wander. *angle is advanced by draw*jitter*dt (draw in [-1, 1])
/// and wrapped to [-pi, pi]; returns the seek towards the circle target.
vec2 thr_wander(const thr_self* s, float* angle, float draw, const throng_behavior_params* prm, float dt);
/// Noise wander. *angle is advanced by noise*amplitude*dt (noise in [-1, 1])
/// and wrapped; desired = (cos, sin)(angle)*max_speed.
vec2 thr_wander_noise(const thr_self* s, float* angle, float noise, const throng_behavior_params* prm,
                      float dt);
/// Forward feeler against circles; ties in `along` go to the lower index.
vec2 thr_obstacle_avoid(const thr_self* s, const thr_obstacle* obs, uint32_t n, const uint32_t* idx,
                        uint32_t n_idx, float look_ahead);
/// Three feelers (ahead at look_ahead, and at +-feeler_angle at half of it)
/// against wall segments; see behaviors.c for the force.
vec2 thr_wall_avoid(const thr_self* s, const thr_wall* walls, const uint32_t* idx, uint32_t n_idx,
                    float look_ahead, float feeler_angle);
/// The most neighbours a neighbour slot takes into account: max_neighbors,
/// or THRONG_DEFAULT_MAX_NEIGHBORS for 0.
static inline uint32_t thr_max_neighbors(const throng_behavior_params* prm)
{
	return prm->max_neighbors > 0u ? prm->max_neighbors : THRONG_DEFAULT_MAX_NEIGHBORS;
}

/// Whether neighbour j counts for a neighbour slot of agent s: another
/// agent, of the same group when asked, strictly within neighbor_radius.
int thr_neighbor_counts(const thr_self* s, const thr_neighbor* j, const throng_behavior_params* prm);

// The neighbour behaviours take into account the first
// thr_max_neighbors(prm) neighbours of the list that count
// (thr_neighbor_counts), in list order, and ignore the rest. The engines
// list neighbours in a fixed order and stop listing at a candidate cap
// (docs/BEHAVIORS.md, "Neighbour caps").

/// Unaligned collision avoidance over a neighbour list (self excluded by id).
vec2 thr_unaligned_avoid(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Separation: sum of (p - p_j)/d * max_speed * (1 - d/r) over 0 <= d < r.
vec2 thr_separation(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Alignment: limit(mean velocity of neighbours - v, max_force).
vec2 thr_alignment(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Cohesion: seek(mean position of neighbours).
vec2 thr_cohesion(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Headway (Tordeux, Chraibi and Seyfried 2016): the speed V the free
/// space ahead allows, max(0, (s - l) / time_gap), s the distance to the
/// nearest neighbour that counts whose body lies ahead along the heading h
/// (dot(d, h) > 0 and |dot(d, perp(h))| < l, d = p_j - p, l = r + r_j);
/// +Inf when there is none. docs/BEHAVIORS.md, "Headway".
float thr_headway(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Anticipation (docs/BEHAVIORS.md, "Anticipation"): the time-to-collision
/// power law of Karamouzas, Skinner and Guy (2014), each neighbour's force
/// limited to max_force and weighted by where it stands (fov_weight), plus
/// a push to the agent's right (side_bias) from each neighbour ahead on a
/// collision course or close ahead of a slow agent; the sum limited to
/// max_force.
vec2 thr_anticipation(const thr_self* s, const thr_neighbor* nb, uint32_t n, const throng_behavior_params* prm);
/// Contain: steer back inside [lo, hi] (already shrunk by the radius) when
/// within margin of an edge.
vec2 thr_bounds(const thr_self* s, vec2 lo, vec2 hi, float margin);

/// Path following toward `waypoint`: arrive with slow_radius at the last
/// waypoint of a path that does not loop (`final`), seek any other.
vec2 thr_path_follow(const thr_self* s, vec2 waypoint, int final, float slow_radius);

/// The rotation of unit vector h by the angle whose cos and sin are given.
static inline vec2 thr_rotate(vec2 h, float c, float sn) { return v2(h.x * c - h.y * sn, h.x * sn + h.y * c); }

/// Controller blending (SPEC.md; the relaxation mode of behavior.h):
/// forces[k] is slot k's raw force, zero for disabled slots; a headway
/// slot's raw force is (V, 0), V its thr_headway. v is the agent's
/// velocity, h its stored heading (the direction the headway slots
/// measured along); by_wall whether a wall passes within
/// THR_HEADWAY_WALL_REACH of the agent's body (thr_near_wall,
/// core/engine.h; the engines ask only when thr_blend_reads_walls).
/// Returns the blended force, and writes into each enabled headway slot's
/// entry what it did (its braking force, or in the relaxation mode the
/// change it made to the drive's term).
vec2 thr_blend(const throng_controller* ctl, vec2* forces, float max_force, vec2 v, vec2 h, bool by_wall);

/// Beside a wall (by_wall), the relaxation mode caps the desired velocity
/// d at the headway's V only when d points within this cosine of the
/// heading h the headway measured along: dot(d, h) > THR_HEADWAY_CONE |d|
/// (within about 32 degrees). A walker the wall has turned away from where
/// it wants to go (the `bottleneck` crowd pressed against the door wall,
/// sliding along it) is not held by the body in front of its face, and
/// squeezes round the door post. Away from walls the headway caps every
/// desire: a cone there let every walker of a packed crowd whose heading
/// the contacts' noise had turned push uncapped (issue 32,
/// docs/BEHAVIORS.md).
#define THR_HEADWAY_CONE 0.85f

/// How far from the body's edge (m) a wall makes the headway's cone apply
/// (THR_HEADWAY_CONE): the crowd's first metre along a wall.
#define THR_HEADWAY_WALL_REACH 1.0f

/// Whether thr_blend reads by_wall for controller c: the relaxation mode
/// with an enabled headway slot (the engines ask thr_near_wall only then).
static inline bool thr_blend_reads_walls(const throng_controller* c)
{
	if (c->mode != THRONG_BLEND_RELAXATION) {
		return false;
	}
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		if (c->slots[k].enabled && c->slots[k].kind == THRONG_HEADWAY) {
			return true;
		}
	}
	return false;
}

#endif
