// SPDX-License-Identifier: MIT
// throng: a crowd simulator with Reynolds' steering behaviours.
//
// The world owns every agent, obstacle and wall. Agents are addressed by
// stable ids (0, 1, 2, ... in spawn order, never reused after a removal)
// because storage slots move when an engine sorts agents by grid cell and
// when agents are removed. Every function that can fail
// returns a throng_status; on failure the world is left exactly as it was and
// throng_last_error() holds a readable message naming the argument or field.
// The library never calls exit() and never prints.
//
// Threading: one world must not be used from two threads at once; different
// worlds are independent. throng_world_step() may use OpenMP threads inside.
// The spatial queries (query.h) are the exception: any number of threads
// may query one world at once while none changes it.
#ifndef THRONG_THRONG_H
#define THRONG_THRONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/behavior.h"

THRONG_API_BEGIN

#define THRONG_VERSION_MAJOR 0
#define THRONG_VERSION_MINOR 1
#define THRONG_VERSION_PATCH 0

/// "No agent": the value of target_agent when an agent targets nobody.
#define THRONG_NO_AGENT UINT32_MAX

/// "No path": the value of an agent's path when it follows none.
#define THRONG_NO_PATH UINT32_MAX

/// "No unit": the value of an agent's unit when it belongs to none.
#define THRONG_NO_UNIT UINT32_MAX

/// Most units one world holds (throng/units.h).
#define THRONG_MAX_UNITS 65536u

/// Most waypoints one path holds.
#define THRONG_MAX_WAYPOINTS 4096

/// Largest coordinate magnitude the world accepts (m). Keeps squared
/// distances far from float overflow.
#define THRONG_MAX_COORD 1.0e6f

/// Return codes.
typedef enum throng_status {
	THRONG_OK = 0,
	THRONG_ERR_INVALID_ARGUMENT, ///< a parameter is NULL, non-finite or out of range
	THRONG_ERR_CAPACITY,         ///< the world's capacity is exhausted
	THRONG_ERR_OUT_OF_MEMORY,    ///< an allocation failed
	THRONG_ERR_NOT_FOUND,        ///< no agent, archetype, obstacle or wall with that id
	THRONG_ERR_UNSUPPORTED,      ///< the request names something this build lacks
	THRONG_ERR_IO,               ///< a file, pipe or shared-memory object could not be opened, read or written
	THRONG_ERR_CORRUPT,          ///< data read back is truncated or malformed
} throng_status;

/// A 2D vector (m, m/s or force units). Y is up.
typedef struct throng_vec2 {
	float x, y;
} throng_vec2;

/// What happens at the world's bounds.
typedef enum throng_bounds_mode {
	THRONG_BOUNDS_CONTAIN = 0, ///< agents stay inside: bounds steering plus a hard clamp
	THRONG_BOUNDS_WRAP,        ///< leaving one side enters the opposite one (torus); neighbours, targets and
	                           ///< contacts see across the seams, each agent at its nearest image
	THRONG_BOUNDS_BOUNCE,      ///< the velocity component across the edge reflects
	THRONG_BOUNDS_OPEN,        ///< no bounds; the grid still covers bounds_min..max
} throng_bounds_mode;

/// Which engine steps the world.
typedef enum throng_engine {
	THRONG_ENGINE_SCALAR = 0, ///< the reference: one agent at a time, straight from SPEC.md
	THRONG_ENGINE_SIMD,       ///< 8 agents per vector, OpenMP batches; same bits as the reference
} throng_engine;

/// How many threads a step uses, of the def.threads asked for.
typedef enum throng_threads_policy {
	/// All of them, or one when one was faster lately: the world times its
	/// steps and tries the other team now and then (a machine another
	/// process shares can make a team ten times slower than one thread,
	/// while its thread waits for a vCPU at every barrier). A step's bits
	/// never depend on its team. docs/PERFORMANCE.md, "A shared machine".
	THRONG_THREADS_ADAPT = 0,
	THRONG_THREADS_FIXED, ///< always all of them
} throng_threads_policy;

/// World settings. Get one from throng_world_default_def() and change fields;
/// a def not made by it is rejected.
typedef struct throng_world_def {
	throng_vec2 bounds_min;        ///< lower-left corner (m)
	throng_vec2 bounds_max;        ///< upper-right corner (m); strictly above bounds_min
	throng_bounds_mode bounds_mode;
	float dt;                      ///< fixed step (s), in (0, 1], a normal float (>= 1.2e-38)
	uint64_t seed;                 ///< keys every random draw
	float cell_size;               ///< grid cell (m), 0 or in [1e-6, 1e6]; 0 = from the archetypes' neighbour radii
	uint32_t capacity;             ///< agents the world makes room for at first, >= 1; it grows past it
	                               ///< (throng_world_spawn)
	throng_engine engine;
	bool record_forces;            ///< keep each slot's force per agent after a step
	uint32_t threads;              ///< OpenMP threads of the SIMD engine, at most THRONG_MAX_THREADS;
	                               ///< 0 = throng_default_threads()
	throng_threads_policy threads_policy; ///< THRONG_THREADS_ADAPT (default) or THRONG_THREADS_FIXED
	int32_t internal_cookie;       ///< set by throng_world_default_def(); leave as is
} throng_world_def;

/// Per-agent settings for throng_world_spawn().
typedef struct throng_agent_def {
	throng_vec2 position;  ///< m; finite, |x|,|y| <= THRONG_MAX_COORD; inside a contained world
	throng_vec2 velocity;  ///< m/s; finite; its length must not exceed max_speed (by more than a millionth)
	throng_vec2 heading;   ///< unit vector; (0,0) = from velocity, or +x at rest
	float max_speed;       ///< m/s, finite, in [1e-6, 1e6]
	float max_force;       ///< m/s^2, finite, in [1e-6, 1e6]
	float radius;          ///< m, finite, in [1e-6, 1e6]
	uint32_t archetype;    ///< an id from throng_world_add_archetype()
	uint32_t group;        ///< free label (army, flow, colour)
	throng_vec2 target;    ///< target point for THRONG_TARGET_POINT slots (m)
	uint32_t target_agent; ///< an agent id, or THRONG_NO_AGENT
	uint32_t path;         ///< a path id from throng_world_add_path(), or THRONG_NO_PATH
	uint32_t unit;         ///< a unit id from throng_world_add_unit() (throng/units.h), or THRONG_NO_UNIT
} throng_agent_def;

/// One agent's state, copied out by id.
typedef struct throng_agent_state {
	uint32_t id;
	throng_vec2 position, velocity, heading;
	float max_speed, max_force, radius;
	uint32_t archetype, group;
	throng_vec2 target;
	uint32_t target_agent;
	float wander_angle;       ///< circle wander's persistent angle (rad)
	float noise_angle;        ///< noise wander's persistent angle (rad)
	uint32_t path;            ///< THRONG_NO_PATH when it follows none
	uint32_t waypoint;        ///< index of the waypoint it is heading for
	float health;             ///< combat (throng_combat): what is left; 0 when its archetype has none
	uint32_t combat_state;    ///< combat: what the last step did (THRONG_COMBAT_STRUCK, THRONG_COMBAT_HIT),
	                          ///< and THRONG_COMBAT_ROUTING while its unit routs
	uint32_t unit;            ///< THRONG_NO_UNIT when it belongs to none
} throng_agent_state;

/// Zero-copy read access to the current step. Arrays have `count` entries in
/// storage order; id[k] is the stable id of the agent in slot k: its
/// position (x, y, m), velocity (vx, vy, m/s), unit heading (hx, hy),
/// radius (m), group, archetype, health and combat_state (combat,
/// docs/ARMIES.md: 0 for an agent whose archetype has none). Ids are distinct but neither sorted nor
/// contiguous: ids are never reused, so after removals they have gaps
/// (each is below throng_world_id_end()). The pointers belong to the world and
/// stay valid until the next call that changes the world (step, spawn,
/// removal, a setter, destroy): a spawn may move every array (the world
/// grows; throng_world_keep_replaced_arrays keeps the old ones readable),
/// a removal moves agents between slots.
typedef struct throng_view {
	uint32_t count;
	uint64_t step;
	const uint32_t* id;
	const float* x;
	const float* y;
	const float* vx;
	const float* vy;
	const float* hx;
	const float* hy;
	const float* radius;  ///< m
	const uint32_t* group;
	const uint32_t* archetype;
	const float* health;  ///< combat: what is left; 0 without combat
	const uint32_t* combat_state; ///< combat: what the last step did (THRONG_COMBAT_* bits)
} throng_view;

/// Running figures the world keeps while it steps.
typedef struct throng_world_stats {
	uint64_t steps;           ///< steps taken
	float max_speed_ratio;    ///< largest |v|/max_speed seen after any step
	uint64_t nonfinite;       ///< non-finite forces met (each zeroed, never integrated)
	uint64_t clamped;         ///< contain mode: times the hard clamp had to act
	// The work of the neighbour walks and of target selection, and how often
	// their caps (docs/BEHAVIORS.md, "Neighbour caps") cut it short.
	uint64_t neighbor_candidates;      ///< candidates the neighbour walks examined, summed
	uint32_t neighbor_most_candidates; ///< most candidates one agent examined in one step
	uint32_t neighbor_most_met;        ///< most neighbours one slot of one agent took in one step
	uint64_t neighbor_capped;          ///< agent-steps where a slot met max_neighbors or the walk
	                                   ///< reached its candidate cap
	uint32_t target_most_candidates;   ///< most candidates one target choice examined
	uint64_t target_capped;            ///< target choices that stopped at THRONG_TARGET_MAX_CANDIDATES
	// The contact pass (docs/BEHAVIORS.md, "Contacts").
	uint64_t contacts;       ///< overlapping pairs met after integration, summed over steps
	uint64_t contact_capped; ///< agent-steps whose pairs stopped at THRONG_CONTACT_MAX_PAIRS
	uint64_t contact_iterations; ///< Jacobi iterations run, summed over steps (none while no pair overlaps)
	uint64_t shape_pushes;   ///< agent-steps moved out of a wall or an obstacle
	uint64_t shape_reverts;  ///< agent-steps kept in place because a wall would still be crossed
	// Threads (def.threads_policy).
	uint32_t threads_last;      ///< threads the last step used
	uint64_t steps_one_thread;  ///< steps THRONG_THREADS_ADAPT ran on one thread though more were asked for
	// Agents that came and went (throng_world_spawn, throng_world_remove_agents).
	uint64_t agents_added;   ///< agents spawned in the world's life
	uint64_t agents_removed; ///< agents removed in the world's life
	uint32_t agents_peak;    ///< most agents the world held at once
} throng_world_stats;

typedef struct throng_world throng_world;

/// The message of the last failed call on this thread ("" if none). The
/// string is owned by the library and valid until the next failing call.
const char* throng_last_error(void);

// Names. Every public enum throng_X has
//     const char* throng_X_name(throng_X value);
//     bool throng_X_from_name(const char* name, throng_X* out);
// (throng_engine_name, throng_bounds_mode_name, throng_behavior_kind_name,
// throng_format_name, ...). The name is a static string, and NULL for a
// value out of range. from_name takes exactly the names throng_X_name gives
// (case-sensitive) and writes *out (out may be NULL) only when it returns
// true. Scenario files, the throng command and the viewer all use these
// words.

/// "ok", "invalid argument", "capacity exhausted", "out of memory", "not
/// found", "unsupported", "input/output error", "corrupt data".
const char* throng_status_name(throng_status status);
bool throng_status_from_name(const char* name, throng_status* out);

/// "scalar", "simd".
const char* throng_engine_name(throng_engine engine);
bool throng_engine_from_name(const char* name, throng_engine* out);

/// "adapt", "fixed".
const char* throng_threads_policy_name(throng_threads_policy policy);
bool throng_threads_policy_from_name(const char* name, throng_threads_policy* out);

/// "contain", "wrap", "bounce", "open".
const char* throng_bounds_mode_name(throng_bounds_mode mode);
bool throng_bounds_mode_from_name(const char* name, throng_bounds_mode* out);

/// Defaults: bounds (-50,-50)..(50,50) contained, dt 1/60 s, seed 1,
/// cell size from the archetypes, capacity 1024, SIMD engine, forces not
/// recorded, OpenMP's default thread count, adapted to the machine's load.
throng_world_def throng_world_default_def(void);

/// Defaults: at the origin, at rest, max_speed 1.3 m/s, max_force 4 m/s^2,
/// radius 0.3 m, archetype 0, group 0, target (0,0), no target agent, no
/// path, no unit.
throng_agent_def throng_agent_default_def(void);

/// throng_agent_default_def() with a pedestrian's body, for agents of
/// throng_controller_pedestrian_def(): max_speed 1.34 m/s (Weidmann's
/// free speed), max_force 8 m/s^2 (at least v0 / tau = 2.7 for the
/// relaxation from rest, with room for the interactions), radius 0.17 m
/// (a torso seen from above; fitted with the headway's time gap to
/// Weidmann's speed-density curve, docs/QUALITY.md "Against experiments").
throng_agent_def throng_agent_pedestrian_def(void);

/// Creates a world. On success *out owns it; release with throng_world_destroy.
throng_status throng_world_create(const throng_world_def* def, throng_world** out);

/// Frees the world and everything it owns. NULL is ignored.
void throng_world_destroy(throng_world* world);

/// The def the world was created with (cell_size resolved once agents step).
throng_world_def throng_world_get_def(const throng_world* world);

/// Adds an archetype with a copy of `controller`; its id goes to *id_out.
throng_status throng_world_add_archetype(throng_world* world, const throng_controller* controller,
                                         uint32_t* id_out);

/// Replaces an archetype's controller at run time (weights, slots, mode).
throng_status throng_world_set_controller(throng_world* world, uint32_t archetype,
                                          const throng_controller* controller);

/// Copies an archetype's controller out.
throng_status throng_world_get_controller(const throng_world* world, uint32_t archetype,
                                          throng_controller* out);

/// Number of archetypes.
uint32_t throng_world_archetype_count(const throng_world* world);

/// Spawns `count` agents at once, at any step. Either all are added (ids
/// first_id .. first_id+count-1, the next ids never given, written to
/// *first_id_out when it is not NULL) or, when any def is invalid, names
/// a removed agent as target_agent, or memory runs out, none is. The
/// store grows past def.capacity as needed (doubling, so a batch costs
/// O(count) amortised); at most 10^8 agents at once and 2^31 - 1 ids in
/// a world's life (THRONG_ERR_CAPACITY).
throng_status throng_world_spawn(throng_world* world, const throng_agent_def* defs, uint32_t count,
                                 uint32_t* first_id_out);

/// Number of live agents.
uint32_t throng_world_agent_count(const throng_world* world);

/// Copies one agent's state out by id.
throng_status throng_world_get_agent(const throng_world* world, uint32_t id, throng_agent_state* out);

/// Moves an agent's target point.
throng_status throng_world_set_target(throng_world* world, uint32_t id, throng_vec2 target);

/// Puts an agent on a path (THRONG_NO_PATH for none), heading for its
/// waypoint `waypoint`.
throng_status throng_world_set_path(throng_world* world, uint32_t id, uint32_t path, uint32_t waypoint);

/// Changes an agent's target agent (THRONG_NO_AGENT for none).
throng_status throng_world_set_target_agent(throng_world* world, uint32_t id, uint32_t target_agent);

/// Removes `count` agents (1 or more, no id twice) between steps. Either
/// all go or, when any id is not a live agent's or an id repeats, none
/// does. Ids are never given again in the world's life; the agents after
/// each hole move down a slot, keeping their order (O(agents) a call:
/// remove many in one call rather than one by one). Every agent whose
/// target_agent was a removed agent targets nobody after the call
/// (THRONG_NO_AGENT), in both engines; a target rule picks a new one
/// when it is next due. Not in a part world (THRONG_ERR_INVALID_ARGUMENT).
throng_status throng_world_remove_agents(throng_world* world, const uint32_t* ids, uint32_t count);

/// throng_world_remove_agents of one id.
throng_status throng_world_remove_agent(throng_world* world, uint32_t id);

/// One past the largest id given so far: every id of the world, live or
/// removed, is below it (an array indexed by id needs this many entries).
uint32_t throng_world_id_end(const throng_world* world);

// Setters of one agent, between steps. Each validates as
// throng_world_spawn does, and on failure leaves the world unchanged,
// the message naming the function, the argument and the id.

/// Moves (teleports) an agent. Finite, |x|,|y| <= THRONG_MAX_COORD, inside
/// the bounds unless they are open. Velocity and heading are kept.
throng_status throng_world_set_position(throng_world* world, uint32_t id, throng_vec2 position);

/// Sets an agent's velocity. A velocity longer than the agent's
/// max_speed is refused (not limited), as at spawn; a millionth of
/// max_speed is allowed for float rounding, so the velocity that
/// throng_world_get_agent returns can always be set back. Heading is kept.
throng_status throng_world_set_velocity(throng_world* world, uint32_t id, throng_vec2 velocity);

/// Sets an agent's heading: a unit vector (within 1e-3), stored normalised.
throng_status throng_world_set_heading(throng_world* world, uint32_t id, throng_vec2 heading);

/// Moves many agents at once: ids[k] to positions[k]. All or none.
throng_status throng_world_set_positions(throng_world* world, const uint32_t* ids, const throng_vec2* positions,
                                         uint32_t count);

/// Sets many velocities at once: ids[k] gets velocities[k]. All or none.
throng_status throng_world_set_velocities(throng_world* world, const uint32_t* ids, const throng_vec2* velocities,
                                          uint32_t count);

/// Gives an agent another archetype (its behaviours from the next step).
/// Its health: kept when both archetypes have combat, the new one's
/// starting health when only the new one has, 0 when it has none.
throng_status throng_world_set_archetype(throng_world* world, uint32_t id, uint32_t archetype);

/// Changes an agent's group label.
throng_status throng_world_set_group(throng_world* world, uint32_t id, uint32_t group);

/// Sets an agent's health (combat, throng_combat): finite, in (0, 1e6],
/// and only for an agent whose archetype has combat (to take an agent out,
/// remove it). It may exceed the archetype's starting health.
throng_status throng_world_set_health(throng_world* world, uint32_t id, float health);

/// Changes an agent's top speed (m/s, finite, in [1e-6, 1e6]). A velocity
/// above the new top speed is scaled down to it (a runner who is wounded
/// slows at once); its direction is kept.
throng_status throng_world_set_max_speed(throng_world* world, uint32_t id, float max_speed);

/// Changes an agent's steering limit (m/s^2, finite, in [1e-6, 1e6]).
throng_status throng_world_set_max_force(throng_world* world, uint32_t id, float max_force);

/// Changes an agent's body radius (m, finite, in [1e-6, 1e6]); the grids
/// follow a radius larger than any before.
throng_status throng_world_set_radius(throng_world* world, uint32_t id, float radius);

/// Adds a circular obstacle (centre in m, radius in [1e-6, 1e6] m).
throng_status throng_world_add_obstacle(throng_world* world, throng_vec2 center, float radius,
                                        uint32_t* id_out);

/// Moves or resizes an obstacle.
throng_status throng_world_set_obstacle(throng_world* world, uint32_t id, throng_vec2 center, float radius);

/// Adds a wall segment from a to b (m); zero-length walls are rejected.
throng_status throng_world_add_wall(throng_world* world, throng_vec2 a, throng_vec2 b, uint32_t* id_out);

/// Adds a path of `count` waypoints (1 to THRONG_MAX_WAYPOINTS, copied).
/// A looping path goes back to its first waypoint after the last.
throng_status throng_world_add_path(throng_world* world, const throng_vec2* points, uint32_t count, bool loop,
                                    uint32_t* id_out);

/// Number of paths.
uint32_t throng_world_path_count(const throng_world* world);

uint32_t throng_world_obstacle_count(const throng_world* world);
uint32_t throng_world_wall_count(const throng_world* world);

/// Copies obstacle `id` out: its centre (m) to *center and radius (m) to
/// *radius. Ids are 0 .. throng_world_obstacle_count() - 1; both outputs
/// must be non-NULL. On failure neither output is written.
throng_status throng_world_get_obstacle(const throng_world* world, uint32_t id, throng_vec2* center,
                                        float* radius);

/// What an agent killed in combat leaves when its archetype has a
/// `body_radius` (throng_combat): its body, lying where it fell. The body
/// is also obstacle `obstacle` (throng_world_get_obstacle), which the
/// living walk round and are pushed out of from the next step on; game
/// code may move or shrink that obstacle (throng_world_set_obstacle: to
/// clear the field, say), and the record still tells where it fell.
typedef struct throng_body {
	throng_vec2 position; ///< where it fell (m): its centre at the end of the step it died in
	throng_vec2 facing;   ///< unit vector from its feet to its head: from its killer to it (it falls away
	                      ///< from the blow), or its heading when the killer is gone or on the same point
	float radius;         ///< its obstacle's radius as it fell (m): its archetype's body_radius
	uint32_t agent;       ///< the dead agent's id (ids are never reused)
	uint32_t killer;      ///< the id of the agent whose blow or missile killed it (it may be gone since)
	uint32_t group;       ///< the dead agent's group, archetype and unit (THRONG_NO_UNIT when none)
	uint32_t archetype;
	uint32_t unit;
	uint32_t obstacle;    ///< its obstacle's id
	uint64_t step;        ///< the world's step count after the step it died in
} throng_body;

/// The bodies on the ground, in the order they fell (by step, then by the
/// dead agent's id), into *bodies and their number into *count (NULL and 0
/// when there are none). The array belongs to the world and stays valid
/// until the next step or any call that changes the world; a renderer
/// reads it in place. Bodies stay until the world is destroyed.
throng_status throng_world_bodies(const throng_world* world, const throng_body** bodies, uint32_t* count);

/// Copies wall `id` out: its end points (m) to *a and *b. Ids are
/// 0 .. throng_world_wall_count() - 1; both outputs must be non-NULL. On
/// failure neither output is written.
throng_status throng_world_get_wall(const throng_world* world, uint32_t id, throng_vec2* a, throng_vec2* b);

/// Sets the threat point (position m, velocity m/s). An inactive threat makes
/// every THRONG_TARGET_THREAT slot return zero force.
throng_status throng_world_set_threat(throng_world* world, throng_vec2 position, throng_vec2 velocity,
                                      bool active);

/// Advances the world by one fixed step of def.dt.
throng_status throng_world_step(throng_world* world);

/// Zero-copy view of the current state; see throng_view for the lifetime.
throng_view throng_world_view(const throng_world* world);

/// While `keep` is true, the arrays a growth of the world replaces (a spawn
/// or a source past the capacity moves every per-agent array) are kept
/// instead of freed, so that pointers taken from throng_world_view before
/// it stay readable: they show the state from before the growth, and
/// nothing writes them again. Setting it false frees what was kept (so
/// does throng_world_destroy). For a binding that hands the arrays out
/// (the Python module turns it on while any NumPy view is alive); off by
/// default. Costs, while on, the memory of each replaced set of arrays.
/// Errors: THRONG_ERR_INVALID_ARGUMENT (world is NULL).
throng_status throng_world_keep_replaced_arrays(throng_world* world, bool keep);

/// The force slot `slot` of the agent's archetype produced in the last step,
/// before weighting. Needs def.record_forces; zero for disabled slots.
throng_status throng_world_slot_force(const throng_world* world, uint32_t id, uint32_t slot,
                                      throng_vec2* out);

/// The blended force the agent's controller returned in the last step.
/// Needs def.record_forces.
throng_status throng_world_total_force(const throng_world* world, uint32_t id, throng_vec2* out);

/// Most OpenMP threads a parallel region of the library opens.
#define THRONG_MAX_THREADS 1024u

/// The threads a parallel region uses when none are asked for (def.threads
/// 0, and the CSV and PED writers): OpenMP's default (OMP_NUM_THREADS, or
/// one per core), capped at THRONG_MAX_THREADS. The cap is silent here;
/// larger values made libgomp overflow its stack (OMP_NUM_THREADS=70000
/// crashed). 1 without OpenMP.
uint32_t throng_default_threads(void);

/// Changes how many threads the world's steps use (def.threads: 0 for
/// throng_default_threads(), at most THRONG_MAX_THREADS) and its policy,
/// from the next step on: a world loaded from a checkpoint made on another
/// machine, a game that gives the crowd more cores. No bit of a step
/// depends on either.
throng_status throng_world_set_threads(throng_world* world, uint32_t threads, throng_threads_policy policy);

/// Running figures (steps, max speed ratio, non-finite forces, clamps).
throng_world_stats throng_world_get_stats(const throng_world* world);

/// 64-bit hash (XXH3) of the full dynamic state in id order: step, every
/// agent's position, velocity, heading, wander angles, target point, target
/// agent, path and waypoint, the threat. Equal states give equal hashes on every build and thread count.
/// Allocates nothing and cannot fail (0 for a NULL world).
uint64_t throng_world_hash(const throng_world* world);

// Counters: the work each step did and, when asked, the time its stages
// took, recorded by the engines themselves (the benchmark prices these
// counts; docs/PERFORMANCE.md). Off by default; turning them on changes
// no bit of the simulation, and work counts are the same for any thread
// count.

/// The stages of a step, in order (docs/ARCHITECTURE.md, "One step").
typedef enum throng_stage {
	THRONG_STAGE_PREPARE = 0, ///< shape grids, per-archetype table, the engine's data, the agent grid
	THRONG_STAGE_SORT,        ///< the agent store's reorder by cell (engines that sort)
	THRONG_STAGE_TARGETS,     ///< target selection
	THRONG_STAGE_PASS,        ///< the engine's pass: every agent's forces, blend, integration
	THRONG_STAGE_CONTACTS,    ///< the contact pass (core/contact.c): pairs, iterations, shapes
	THRONG_STAGE_FINISH,      ///< figures merged, the next state made current
	THRONG_STAGE_COUNT
} throng_stage;

/// What throng_world_set_counting() turns on (bits, combined with |).
typedef enum throng_counting {
	THRONG_COUNT_OFF = 0,
	THRONG_COUNT_WORK = 1u << 0, ///< the work counts of throng_world_counters
	THRONG_COUNT_TIME = 1u << 1, ///< step_ns and stage_ns (a monotonic clock read at each stage)
	THRONG_COUNT_ALL = THRONG_COUNT_WORK | THRONG_COUNT_TIME,
} throng_counting;

/// Work and time of steps. A "lane" is one agent's share of an evaluation:
/// the scalar engine evaluates one agent at a time (one lane each), the
/// SIMD engine 8 lanes per vector, all of them whenever any lane needs it
/// (lanes past the last agent included). Fields marked "both" hold the
/// same number on either engine for the same world; the others count the
/// engine's own way of doing the work. Neighbour and shape arrays are
/// indexed by throng_behavior_kind.
typedef struct throng_world_counters {
	uint64_t steps;      ///< steps counted
	uint64_t agents;     ///< agents stepped, summed over steps (agent-steps; both)
	uint64_t lanes;      ///< lanes integrated: 1 per agent (scalar), 8 per block of 8 agents (SIMD)
	uint64_t grid_cells; ///< cells of the agent grid built each step, summed (both); a sparse grid counts its occupied cells, columns and rows
	/// Lanes on which an enabled slot of each kind was evaluated.
	uint64_t slot_lanes[THRONG_BEHAVIOR_COUNT];
	uint64_t blend_weighted_lanes; ///< lanes blended in THRONG_BLEND_WEIGHTED mode
	uint64_t blend_priority_lanes; ///< ... in THRONG_BLEND_PRIORITY mode
	uint64_t blend_hybrid_lanes;   ///< ... in THRONG_BLEND_HYBRID mode
	uint64_t blend_relaxation_lanes; ///< ... in THRONG_BLEND_RELAXATION mode
	uint64_t blend_budget_terms;   ///< lanes x enabled slots that spend a budget (priority; hybrid's priority slots)
	uint64_t blend_sum_terms;      ///< lanes x enabled slots summed by weight (weighted; hybrid's other slots;
	                               ///< every slot of relaxation)

	// Neighbour walks (docs/BEHAVIORS.md, "Neighbour caps").
	uint64_t neighbor_walks;      ///< agents that walked their neighbours (both)
	uint64_t neighbor_cells;      ///< grid cells those walks scanned, counted by columns of a row (a sparse grid's unlisted empty cells too) (both)
	uint64_t neighbor_candidates; ///< candidates visited (both; throng_world_stats counts the same)
	uint64_t neighbor_in_radius;  ///< of them, other agents strictly inside the query radius (both)
	/// Neighbours each kind of slot took into account (both).
	uint64_t neighbor_taken[THRONG_BEHAVIOR_COUNT];
	/// Lanes of the walks' candidate steps: 1 per candidate (scalar); 8 per
	/// vector step that measures a candidate for every lane, each lane's own
	/// (a gather) or one shared by the lanes (a broadcast) (SIMD).
	uint64_t neighbor_lane_slots;
	/// Scalar: tests of whether another agent inside the query radius
	/// counts for a neighbour slot not yet full (its gather's; each
	/// behaviour repeats about as many). SIMD: 0 (its tests are vector
	/// compares on every lane slot).
	uint64_t neighbor_slot_tests;
	/// Lanes on which a neighbour slot of each kind ran its per-neighbour
	/// arithmetic: 1 per neighbour taken (scalar); 8 per vector step over
	/// the candidates the walk held (those within some slot's radius) in
	/// which some lane took one (SIMD).
	uint64_t neighbor_body_lanes[THRONG_BEHAVIOR_COUNT];
	/// SIMD: lanes of vector steps in which unaligned avoidance pushed on
	/// some lane (8 each). Scalar: 0 (its test lies inside the behaviour).
	uint64_t unaligned_push_lanes;

	// Feelers (obstacle and wall avoidance).
	/// Lanes on which an obstacle feeler scanned the obstacles near it:
	/// agents whose query listed one (scalar); 8 per vector with a moving
	/// lane in a world with obstacles (SIMD).
	uint64_t obstacle_scans;
	/// Obstacle-grid cells covered: by every query of a grid that holds
	/// obstacles (scalar); by each scan's box (SIMD).
	uint64_t obstacle_cells;
	/// Obstacle tests: 1 per obstacle listed and agent (scalar); 8 per
	/// obstacle per vector, one per lane (SIMD).
	uint64_t obstacle_tests;
	/// SIMD: lanes on which the force was formed (8 per vector where a lane
	/// hit). Scalar: 0 (its hit test lies inside the behaviour).
	uint64_t obstacle_hit_lanes;
	uint64_t wall_scans;     ///< as obstacle_scans, for wall feelers
	uint64_t wall_cells;     ///< as obstacle_cells
	uint64_t wall_tests;     ///< as obstacle_tests (each test covers the three feelers)
	uint64_t wall_hit_lanes; ///< as obstacle_hit_lanes, per feeler of the three

	// Target selection.
	uint64_t target_choices;    ///< target choices made (agents whose rule was due; both)
	/// Candidates in the cells within sight, up to each rule's
	/// max_candidates: those the choices answer for (both).
	uint64_t target_candidates;
	/// Distances measured: agents of the rule's group other than the
	/// chooser, in the cells the search read (cells without the group are
	/// skipped; uncut, a large box is searched from the agent outwards and
	/// stops where no nearer one can lie) (both).
	uint64_t target_tests;

	// The contact pass (both).
	/// Agents with contacts on whose pairs the pass searched for.
	uint64_t contact_searches;
	/// Agents with contacts on that it did not search: their neighbour
	/// walk had already met every agent near enough to become a pair and
	/// found none (docs/BEHAVIORS.md, "Contacts").
	uint64_t contact_skips;

	// Time, with THRONG_COUNT_TIME (0 otherwise), in nanoseconds.
	uint64_t step_ns;                      ///< throng_world_step from its first check to its return
	uint64_t stage_ns[THRONG_STAGE_COUNT]; ///< each stage's share of step_ns
} throng_world_counters;

/// Turns counting on or off (`what`: THRONG_COUNT_OFF, or THRONG_COUNT_WORK
/// and/or THRONG_COUNT_TIME) and clears the counters. Unknown bits are an
/// invalid argument. Off (the default), the step and the engines test a
/// flag where they would count (per stage, per block of agents, per walk):
/// about 0.7 % more instructions than no counters at all; work counting on
/// about 12 % (field, docs/PERFORMANCE.md).
throng_status throng_world_set_counting(throng_world* world, uint32_t what);

/// What throng_world_set_counting() last turned on (0 for a NULL world).
uint32_t throng_world_counting(const throng_world* world);

/// The counters of the last step into *last_step and their sums since
/// counting was last set into *total; either may be NULL. A failed step
/// counts nothing. Both are zero while counting is off.
throng_status throng_world_get_counters(const throng_world* world, throng_world_counters* last_step,
                                        throng_world_counters* total);

/// Name of a stage ("prepare", "sort", "targets", "pass", "contacts",
/// "finish"), static; NULL out of range.
const char* throng_stage_name(throng_stage stage);

THRONG_API_END

// Events and zones: what happened to agents in a step.
#include "throng/events.h"
// Sources: regions that add agents while the world runs.
#include "throng/sources.h"
// A running world saved whole and made again.
#include "throng/checkpoint.h"
// Spatial queries on a world (agents near a point, in a box or polygon,
// the k nearest) are declared in their own header, included here.
#include "throng/query.h"
// Units: morale and rout.
#include "throng/units.h"

#endif
