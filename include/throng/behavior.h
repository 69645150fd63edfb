// SPDX-License-Identifier: MIT
// throng: behaviour kinds, their parameters, and the controller that blends them.
//
// Every behaviour returns a force (SPEC.md); the controller of an archetype is
// an ordered list of slots, each naming a behaviour, its weight, whether it is
// enabled, whether it spends the priority budget first (hybrid mode), and its
// parameters. Units: metres, seconds, radians.
#ifndef THRONG_BEHAVIOR_H
#define THRONG_BEHAVIOR_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"

THRONG_API_BEGIN

/// Most slots one controller holds.
#define THRONG_MAX_SLOTS 16

/// What max_neighbors 0 means: the most neighbours one neighbour slot takes
/// into account per agent and step. No built-in scene's walkers come near
/// it, even at 100,000 agents (docs/BEHAVIORS.md, "Neighbour caps"), but the
/// pedestrian's 4 m in a crush do: it sets THRONG_PEDESTRIAN_MAX_NEIGHBORS.
#define THRONG_DEFAULT_MAX_NEIGHBORS 256

/// An agent examines at most this many candidates (agents in the grid cells
/// around it, itself and agents beyond the radius included) per neighbour it
/// may take: THRONG_CANDIDATES_PER_NEIGHBOR times the largest max_neighbors
/// of its archetype's enabled neighbour slots.
#define THRONG_CANDIDATES_PER_NEIGHBOR 4

/// What a target rule's max_candidates 0 means: target selection examines
/// at most this many candidates (agents in the grid cells within sight, of
/// any group) per agent and choice. The built-in charge at 100,000 agents
/// examine up to ~29,000 (its cavalry's sight is 150 m).
#define THRONG_TARGET_MAX_CANDIDATES 65536

/// Most contact iterations per step (throng_contact.iterations).
#define THRONG_CONTACT_MAX_ITERATIONS 16

/// Most agents one agent's contacts take into account per step: the first
/// this many within reach, in the order the contact pass visits them
/// (docs/BEHAVIORS.md, "Contacts").
#define THRONG_CONTACT_MAX_PAIRS 32

/// The behaviours of SPEC.md. The names (throng_behavior_kind_name) are the
/// ones scenario files use.
typedef enum throng_behavior_kind {
	THRONG_SEEK = 0,          ///< "seek": towards the target at full speed
	THRONG_FLEE,              ///< "flee": away from the target; modes always, panic, safe
	THRONG_ARRIVE,            ///< "arrive": towards the target, slowing inside slow_radius
	THRONG_PURSUIT,           ///< "pursuit": seek the target's predicted position
	THRONG_EVADE,             ///< "evade": flee the target's predicted position inside evade_radius
	THRONG_WANDER,            ///< "wander": Reynolds' projected circle, one draw per step
	THRONG_WANDER_NOISE,      ///< "wander_noise": heading driven by smooth value noise
	THRONG_OBSTACLE_AVOID,    ///< "obstacle_avoidance": forward feeler against circles
	THRONG_WALL_AVOID,        ///< "wall_avoidance": three feelers against wall segments
	THRONG_UNALIGNED_AVOID,   ///< "unaligned_avoidance": time of closest approach
	THRONG_SEPARATION,        ///< "separation": push away from close neighbours
	THRONG_ALIGNMENT,         ///< "alignment": match the neighbours' mean velocity
	THRONG_COHESION,          ///< "cohesion": seek the neighbours' centre
	THRONG_BOUNDS,            ///< "bounds": steer back inside a contained world within margin
	THRONG_PATH_FOLLOW,       ///< "path_following": seek each waypoint of the agent's path in turn
	THRONG_ANTICIPATION,      ///< "anticipation": time-to-collision power law, keeps to one side
	THRONG_HEADWAY,           ///< "headway": speed from the free space ahead (Tordeux et al. 2016)
	THRONG_BEHAVIOR_COUNT
} throng_behavior_kind;

/// What seek, flee, arrive, pursuit and evade steer relative to.
typedef enum throng_target_source {
	THRONG_TARGET_POINT = 0, ///< the agent's own target point (velocity 0)
	THRONG_TARGET_THREAT,    ///< the world's threat point and its velocity
	THRONG_TARGET_AGENT,     ///< the agent's target agent (position and velocity)
} throng_target_source;

/// Flee modes (SPEC.md): always; panic (zero force outside the radius);
/// safe, the "inverted arrive" (desired speed falls to 0 at the radius).
typedef enum throng_flee_mode {
	THRONG_FLEE_ALWAYS = 0,
	THRONG_FLEE_PANIC,
	THRONG_FLEE_SAFE,
} throng_flee_mode;

/// The frame the circle wander's angle lives in (SPEC.md, seed 002).
typedef enum throng_wander_frame {
	THRONG_WANDER_LOCAL = 0, ///< angle relative to the heading (classic Reynolds)
	THRONG_WANDER_WORLD,     ///< angle absolute; circle centred on p when v = 0
} throng_wander_frame;

/// Parameters of one slot. Each behaviour reads only the fields named in its
/// comment; the others are ignored. throng_behavior_default_def() fills
/// every field with a sensible value. Lengths, times and rates are at most
/// 1e6 and, when not 0, at least 1e-6 ("> 0" below means in [1e-6, 1e6]);
/// so are slot weights.
typedef struct throng_behavior_params {
	throng_target_source target; ///< seek, flee, arrive, pursuit, evade
	throng_flee_mode flee_mode;  ///< flee
	float flee_radius;       ///< flee: R of panic and safe modes (m), > 0
	float slow_radius;       ///< arrive: radius where slowing starts (m), > 0
	float evade_radius;      ///< evade: R, safe beyond it (m), > 0
	float max_prediction;    ///< pursuit, evade, unaligned: T_max (s), >= 0
	float circle_distance;   ///< wander: circle centre ahead of the agent (m), >= 0
	float circle_radius;     ///< wander: circle radius (m), >= 0
	float jitter;            ///< wander: angle rate (rad/s), >= 0
	throng_wander_frame frame; ///< wander
	float noise_frequency;   ///< wander_noise: noise samples per second, >= 0
	float noise_amplitude;   ///< wander_noise: angle rate at noise 1 (rad/s), >= 0
	float look_ahead;        ///< obstacle and wall feelers: length (m), > 0
	float feeler_angle;      ///< wall: side feelers' angle from the heading (rad), in [0, pi]
	float avoid_radius;      ///< unaligned: closest-approach distance that triggers (m), > 0
	float neighbor_radius;   ///< unaligned, separation, alignment, cohesion, anticipation, headway: who
	                         ///< counts (m), > 0 (headway: how far ahead it looks)
	bool same_group_only;    ///< the neighbour slots (as neighbor_radius): ignore other groups
	uint32_t max_neighbors;  ///< the neighbour slots (as neighbor_radius): the first this many
	                         ///< neighbours that count, in the engines' visiting order, are taken
	                         ///< into account; 0 = THRONG_DEFAULT_MAX_NEIGHBORS (see docs/BEHAVIORS.md)
	float margin;            ///< bounds: distance from the edge where steering starts (m), > 0
	float waypoint_radius;   ///< path_following: a waypoint is passed within it (m), > 0; the last
	                         ///< one is arrived at with slow_radius unless the path loops
	float time_gap;          ///< headway: T of V(s) = max(0, (s - l)/T) (s), > 0; default 1
	// Anticipation (docs/BEHAVIORS.md, "Anticipation"): E = k / tau^2 *
	// exp(-tau / tau0) over the time to collision tau (Karamouzas, Skinner
	// and Guy 2014). It also reads neighbor_radius, same_group_only and
	// max_neighbors.
	float ttc_strength;      ///< anticipation: k (m^2/s^2), > 0; default 1.5
	float ttc_horizon;       ///< anticipation: tau0 (s), > 0; default 3
	float ttc_max_time;      ///< anticipation: collisions later than this are ignored (s), > 0; default 999
	float fov_weight;        ///< anticipation: lambda, the weight of a neighbour straight behind, in [0, 1];
	                         ///< default 0.5 (1 = every direction alike)
	float side_bias;         ///< anticipation: push to the agent's right (> 0) or left (< 0) per unit of
	                         ///< avoidance, in [-1, 1]; 0 = none; default 0.5
} throng_behavior_params;

/// One entry of a controller.
typedef struct throng_slot {
	throng_behavior_kind kind;
	float weight;       ///< multiplies the force; finite, >= 0
	bool enabled;       ///< disabled slots are neither evaluated nor recorded
	bool priority;      ///< hybrid mode: spends the budget before the weighted rest; relaxation
	                    ///< mode: an interaction (added as it is), not the drive (divided by tau)
	throng_behavior_params params;
} throng_slot;

/// How a controller blends its slots (SPEC.md "The controller").
typedef enum throng_blend_mode {
	THRONG_BLEND_WEIGHTED = 0, ///< limit(sum of weight*force, max_force)
	THRONG_BLEND_PRIORITY,     ///< slots in order spend a max_force budget
	THRONG_BLEND_HYBRID,       ///< priority slots first, then the weighted rest
	THRONG_BLEND_RELAXATION,   ///< drive / relaxation_time + interactions, limited (below)
} throng_blend_mode;

/// Target selection (SPEC.md, "beyond the seeds"): every `every` steps
/// each agent of the archetype takes as its target agent the nearest agent
/// of group `group` within `sight_radius` (ties to the lower id), or none,
/// among the first max_candidates agents of the grid cells within sight
/// (docs/BEHAVIORS.md, "Neighbour caps").
/// Slots with target THRONG_TARGET_AGENT (pursuit, evade, seek, ...) then
/// steer relative to it.
typedef struct throng_target_rule {
	bool enabled;
	uint32_t group;       ///< the group whose agents are candidates
	float sight_radius;   ///< m, > 0
	uint32_t every;       ///< re-chosen every this many steps, >= 1 (step 0 always chooses)
	uint32_t max_candidates; ///< most agents one choice examines; 0 = THRONG_TARGET_MAX_CANDIDATES
} throng_target_rule;

/// Solid contacts (docs/BEHAVIORS.md, "Contacts"): after integration, the
/// contact pass pushes overlapping agents apart, a fraction `stiffness` of
/// each overlap per iteration (half by each agent of a pair), for
/// `iterations` Jacobi iterations, and makes the velocity follow the
/// corrected position. A pair is solid only when both archetypes enable
/// contacts. Walls and obstacles are solid for every agent, whatever this
/// says. `inelastic` (off by default): after the iterations, the agent's
/// velocity also loses its part towards each partner it still overlaps
/// by more than 0.1 % of the radii sum, so that a pressed crowd stops
/// pushing into itself (a crush at a door).
/// `slip` and `noise` (0 by default: today's arithmetic, bit for bit) let a
/// pressed crowd through instead of holding it in a static balance: a pair
/// pressed together (closing at v*, the integrated velocity) also slides
/// along the contact, each agent to its own right, `slip` times its normal
/// push; and each agent of a pressed pair moves, once a step, by noise x dt
/// in a direction drawn from (seed, id, step).
typedef struct throng_contact {
	bool enabled;        ///< on by default (throng_controller_default_def)
	float stiffness;     ///< fraction of an overlap removed per iteration, in [1e-6, 1]; default 1
	uint32_t iterations; ///< Jacobi iterations per step, 1 to THRONG_CONTACT_MAX_ITERATIONS; default 4
	bool inelastic;      ///< pressed pairs lose their closing speed; default off
	float slip;          ///< tangential move over normal push of a pressed pair, 0 or in [1e-6, 1]; default 0
	float noise;         ///< m/s: a pressed agent's random move per step is noise x dt, 0 or in [1e-6, 1e6]; default 0
} throng_contact;

/// An archetype's controller: ordered slots and a blend mode.
///
/// THRONG_BLEND_RELAXATION (docs/BEHAVIORS.md, "The relaxation blend"):
/// the enabled slots not marked `priority` are the drive (seek, arrive,
/// path_following...: each already limit(desired - v, max_force)), those
/// marked `priority` the interactions (avoidance, separation, walls...);
///   total = limit(D / tau + I, max_force),
///   D = sum of weight * force over the drive, I the same over the
///   interactions, tau = relaxation_time.
/// The drive always acts: the interactions spend no budget before it. A
/// lone agent with one seek of weight 1 relaxes to its desired velocity,
/// dv/dt = (v0 e - v) / tau, while |v0 e - v| <= max_force (seek's own
/// limit, before the 1/tau) and |v0 e - v| / tau <= max_force (the final
/// limit): from rest that needs max_force >= v0 * max(1, 1/tau), 2.6 m/s^2
/// for a 1.3 m/s walker and tau 0.5 s.
/// Headway slots (THRONG_HEADWAY) cap the drive's desired speed: with V
/// the least speed they allow, desired = v + D; when |desired| > V it is
/// scaled to V and D becomes desired - v. Their weight is not used there.
/// What the last step did to an agent in combat, as bits
/// (throng_agent_state.combat_state, throng_view.combat_state, the
/// outputs' combat_state field; docs/ARMIES.md). Like the step's events,
/// they describe the last step only: a checkpoint does not keep them.
enum {
	THRONG_COMBAT_STRUCK = 1u << 0, ///< it struck in the last step: a blow or a shot, hit or miss
	THRONG_COMBAT_HIT = 1u << 1,    ///< it was hit in the last step (a blow, or a missile that landed on it)
	THRONG_COMBAT_ROUTING = 1u << 2, ///< its unit routs (throng/units.h): set after every step while it does
};

/// How an archetype's agents attack (docs/ARMIES.md).
typedef enum throng_attack_kind {
	THRONG_ATTACK_NONE = 0, ///< "none": they can be hurt but do not strike
	THRONG_ATTACK_MELEE,    ///< "melee": their target agent, when its body is within `reach` of theirs
	THRONG_ATTACK_MISSILE,  ///< "missile": they shoot at their target agent within `reach` (a range)
} throng_attack_kind;

/// Combat (docs/ARMIES.md): an agent of an archetype with combat has
/// health; one whose attack is melee strikes its target agent (the target
/// rule's choice, or set with throng_world_set_target_agent) when the
/// gap between their bodies is at most `reach` after the step and its
/// cooldown has passed; a strike hits with chance `accuracy`, drawn from
/// (seed, id, step), and takes `damage` less the target's `armour` (never
/// below 0) from the target's health. The hits of one step on one target
/// are summed in the order of the attackers' ids; a target whose health
/// reaches 0 is removed after the step (THRONG_EVENT_REMOVED, its killer
/// in the event's `other`). Agents without combat are never hit.
/// A missile attacker shoots instead: a shot that hits (`accuracy`) flies
/// at `missile_speed` to a point drawn in the disc of radius `spread`
/// around where its target stood, and lands after the flight (a step at
/// least); it hits the target if the target's body then covers that
/// point, and falls to the ground otherwise.
/// An agent killed in combat whose archetype has a `body_radius` leaves a
/// body: an obstacle at the point where it fell, which the living walk
/// round (obstacle_avoidance) and are pushed out of (contacts), listed
/// with where it lies by throng_world_bodies (throng.h). Part worlds do not
/// keep bodies yet (throng_part_load refuses such an archetype).
typedef struct throng_combat {
	bool enabled;              ///< off by default
	float health;              ///< each agent's health as it is added, (0, 1e6]
	float armour;              ///< taken off each hit on it, [0, 1e6]
	throng_attack_kind attack; ///< THRONG_ATTACK_NONE by default
	float reach;               ///< melee: the most gap between the bodies (m), [0, 1e6]
	float damage;              ///< a hit's damage before armour, [0, 1e6]
	float cooldown;            ///< s from one strike to the next, [0, 1e6] (a step at least)
	float accuracy;            ///< chance a strike hits, [0, 1]
	float missile_speed;       ///< missile: m/s in flight, (0, 1e6] (for missiles; else [0, 1e6])
	float spread;              ///< missile: the radius (m) of the disc it lands in around its target, [0, 1e6]
	float body_radius;         ///< the body it leaves when killed: an obstacle of this radius (m) where it
	                           ///< fell (throng_world_bodies); 0, the default, leaves none; else [1e-6, 1e6]
} throng_combat;

typedef struct throng_controller {
	throng_blend_mode mode;
	float relaxation_time;          ///< relaxation mode: tau (s), > 0; default 0.5 (other modes ignore it)
	throng_target_rule target_rule; ///< off by default
	throng_contact contact;         ///< on by default
	throng_combat combat;           ///< off by default
	uint32_t slot_count;
	throng_slot slots[THRONG_MAX_SLOTS];
} throng_controller;

/// Parameters with every field at its documented default.
throng_behavior_params throng_behavior_default_def(void);

/// A slot of the given kind: weight 1, enabled, not priority, default params.
throng_slot throng_slot_default_def(throng_behavior_kind kind);

/// An empty controller with blend mode `mode`, no slots, no target rule and
/// contacts on (stiffness 1, 4 iterations, not inelastic), relaxation_time 0.5 s.
throng_controller throng_controller_default_def(throng_blend_mode mode);

/// Appends a slot; returns its index, or -1 when the controller is full.
int throng_controller_add(throng_controller* controller, throng_slot slot);

/// The pedestrian controller (issue 32; docs/BEHAVIORS.md, "The
/// pedestrian"; docs/QUALITY.md, "Against experiments", for how it
/// compares with pedestrian experiments): the relaxation blend (tau
/// 0.5 s) of, in slot order,
///   0 wall_avoidance (priority, weight 3, look_ahead 1.5 m),
///   1 anticipation (priority; neighbor_radius 4 m, ttc_strength 0.5, side_bias 1: keep right
///     of oncoming walkers; max_neighbors THRONG_PEDESTRIAN_MAX_NEIGHBORS),
///   2 headway (neighbor_radius 3 m, time_gap 0.55 s; max_neighbors
///     THRONG_PEDESTRIAN_MAX_NEIGHBORS),
///   3 `drive` (the drive: THRONG_ARRIVE, THRONG_SEEK or
///     THRONG_PATH_FOLLOW, slow_radius 2 m, waypoint_radius 1 m),
/// with contacts slip 0.5 and noise 0.15 m/s. Give its agents
/// throng_agent_pedestrian_def()'s body. Its values were fitted to the
/// experiments docs/QUALITY.md lists; a change to them moves the pinned
/// hashes of the scenes that use it: the built-in `hallway` and
/// `crossing` (drive THRONG_ARRIVE) and `bottleneck` (THRONG_PATH_FOLLOW).
throng_controller throng_controller_pedestrian_def(throng_behavior_kind drive);

/// The pedestrian's neighbour cap (its anticipation and headway slots'
/// max_neighbors): bodies of radius 0.17 m packed at a door stand up to
/// 10 /m^2, some 500 within anticipation's 4 m, more than the default
/// THRONG_DEFAULT_MAX_NEIGHBORS, which `bottleneck`'s crush reached.
#define THRONG_PEDESTRIAN_MAX_NEIGHBORS 1024

// Names: each enum of this header has a name function and its inverse,
// as throng.h's "Names" describes (static strings, NULL out of range; the
// words scenario files use). Each pair says only its words.

/// "seek", "flee", ..., "path_following" (the comments of
/// throng_behavior_kind).
const char* throng_behavior_kind_name(throng_behavior_kind kind);
bool throng_behavior_kind_from_name(const char* name, throng_behavior_kind* out);

/// "point", "threat", "agent".
const char* throng_target_source_name(throng_target_source source);
bool throng_target_source_from_name(const char* name, throng_target_source* out);

/// "always", "panic", "safe".
const char* throng_flee_mode_name(throng_flee_mode mode);
bool throng_flee_mode_from_name(const char* name, throng_flee_mode* out);

/// "local", "world".
const char* throng_wander_frame_name(throng_wander_frame frame);
bool throng_wander_frame_from_name(const char* name, throng_wander_frame* out);

/// "weighted", "priority", "hybrid", "relaxation".
const char* throng_blend_mode_name(throng_blend_mode mode);
bool throng_blend_mode_from_name(const char* name, throng_blend_mode* out);

/// "none", "melee", "missile".
const char* throng_attack_kind_name(throng_attack_kind kind);
bool throng_attack_kind_from_name(const char* name, throng_attack_kind* out);

/// Whether a behaviour reads neighbours: unaligned avoidance, separation,
/// alignment, cohesion, anticipation, headway (false out of range).
bool throng_behavior_reads_neighbors(throng_behavior_kind kind);

/// The query radius of a controller's neighbour walk (m): the largest
/// neighbor_radius of its enabled slots that read neighbours, 0 when it
/// has none. The engines walk the grid cells within it.
float throng_controller_query_radius(const throng_controller* controller);

THRONG_API_END

#endif
