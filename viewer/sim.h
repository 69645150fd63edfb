// SPDX-License-Identifier: MIT
// The simulation host: owns the scene, steps it at its fixed dt, and hands
// the renderer read-only frames.
//
// Two ways to run it. Real time: a thread of its own steps the world against
// the wall clock (an accumulator, a cap on steps per batch, backlog dropped
// when it cannot keep up) and publishes a frame after each batch, so a slow
// step never stalls drawing and slow drawing never stalls the simulation.
// Lockstep: the caller steps it itself (vw_sim_tick), one frame per step,
// which makes headless captures reproducible. Either way only the host
// touches the world; the renderer posts commands and reads frames.
#ifndef THRONG_VIEWER_SIM_H
#define THRONG_VIEWER_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/scenario.h"
#include "throng/throng.h"

#define VW_NO_AGENT UINT32_MAX
/// Archetypes a frame carries controllers for.
#define VW_MAX_ARCHETYPES 16u
/// Scenario outcome figures a frame carries (armies: how far the battle is).
#define VW_MAX_OUTCOMES 4u

/// Where the mouse acts.
typedef enum vw_mouse_mode {
	VW_MOUSE_OFF = 0,
	VW_MOUSE_TARGET, ///< every agent's target point follows the cursor (seek, arrive)
	VW_MOUSE_THREAT, ///< the cursor is the world's threat (flee, evade); scripts pause
	VW_MOUSE_MODE_COUNT
} vw_mouse_mode;

/// The selected agent, copied out of the world when a frame is published.
typedef struct vw_focus {
	bool valid;
	throng_agent_state state;
	bool has_forces;               ///< slot_force and total_force were recorded
	uint32_t slot_count;
	throng_vec2 slot_force[THRONG_MAX_SLOTS]; ///< before weighting; 0 for disabled slots
	throng_vec2 total_force;       ///< what the controller returned
} vw_focus;

/// A zone's or a source's outline, as the frame carries it.
typedef enum vw_region_kind {
	VW_REGION_ZONE = 0, ///< a zone that only lists entries and exits
	VW_REGION_SINK,     ///< a zone that removes the agents entering it (an exit)
	VW_REGION_SOURCE,   ///< where a source adds agents
	VW_REGION_SOURCE_DONE, ///< a source that will add no more
} vw_region_kind;

typedef enum vw_region_shape {
	VW_SHAPE_CIRCLE = 0, ///< a: centre, radius
	VW_SHAPE_BOX,        ///< a: min corner, b: max corner
	VW_SHAPE_POLYGON,    ///< region_points[first .. first + count), closed
	VW_SHAPE_SEGMENT,    ///< a to b (a source's door)
} vw_region_shape;

typedef struct vw_region {
	vw_region_kind kind;
	vw_region_shape shape;
	throng_vec2 a, b;
	float radius;
	uint32_t first, count;
} vw_region;

/// A body on the ground (throng_body, docs/ARMIES.md "Bodies"), as the
/// frame carries it.
typedef struct vw_body {
	throng_vec2 position;      ///< where it fell (m)
	throng_vec2 facing;        ///< unit vector from its feet to its head
	float radius;              ///< its obstacle's radius as it fell (m): it lies 2 radius long
	uint32_t group, archetype; ///< the dead agent's: its colour, as the living's (palette.h)
	uint32_t obstacle;         ///< its obstacle's id
} vw_body;

/// One published state. Agent arrays are in storage order (id[k] is the
/// stable id of slot k), copied from the world's view.
typedef struct vw_frame {
	uint32_t count, cap;
	uint32_t *id, *group, *archetype;
	float *x, *y, *hx, *hy, *radius;
	/// Each agent's health as a share of its archetype's full health
	/// (combat, docs/ARMIES.md), in [0, 1]: the wounded are drawn dimmer.
	/// NULL when no agent has combat (or a replay has no health).
	float* vigour;
	float* vigour_buf; ///< a live frame's own storage behind vigour
	/// Each agent's combat_state (THRONG_COMBAT_* bits, throng/behavior.h):
	/// soldiers whose unit routs (THRONG_COMBAT_ROUTING) are drawn ringed.
	/// NULL when the world has no units (a replay: no combat_state field).
	const uint32_t* combat_state;
	uint32_t* combat_state_buf; ///< a live frame's own storage behind combat_state
	uint32_t combat_state_cap;
	uint32_t routing;  ///< agents of this frame marked THRONG_COMBAT_ROUTING
	bool units;        ///< the world has units (a replay or feed: some frame routs): the HUD counts routers
	uint32_t obstacle_count, obstacle_cap;
	throng_vec2* obstacle_c;
	float* obstacle_r;
	/// The dead on the ground, in the order they fell (throng_world_bodies):
	/// drawn lying in their side's colour, dimmed (draw.c). None in a
	/// replay or a feed (a stream has no bodies).
	uint32_t body_count, body_cap;
	vw_body* bodies;
	/// obstacle_body[k] != 0: obstacle k is a body's and still lies where
	/// it fell, so it is drawn as the body, not as a disc. NULL when no
	/// obstacle is (no bodies).
	const uint8_t* obstacle_body;
	uint8_t* obstacle_body_buf; ///< a live frame's own storage behind obstacle_body
	uint32_t obstacle_body_cap;
	uint32_t wall_count, wall_cap;
	throng_vec2 *wall_a, *wall_b;
	uint32_t region_count, region_cap;  ///< zones (in id order), then sources (in id order)
	vw_region* regions;
	uint32_t region_point_count, region_point_cap;
	throng_vec2* region_points;
	uint32_t zone_count, sink_count, source_count;
	uint64_t sources_waiting;      ///< agents the sources owe (a spawn found no room yet)
	uint32_t id_end;               ///< one past the largest id the world has given
	throng_world_def def;
	bool threat_active;
	throng_vec2 threat;
	throng_world_stats stats;
	bool overlaps_valid;
	uint64_t overlaps, overlaps_step;
	uint32_t outcome_count;        ///< the scenario's own quality figures
	char outcome_name[VW_MAX_OUTCOMES][32];
	double outcome_value[VW_MAX_OUTCOMES];
	uint32_t archetype_count;
	throng_controller controllers[VW_MAX_ARCHETYPES];
	vw_focus focus;
	/// The host drops a selected agent that left the world: `dropped` is
	/// its id, `drop_serial` counts drops (the renderer reacts to a new
	/// one), `drop_note` says when and how, until the next selection.
	uint32_t dropped;
	uint64_t drop_serial;
	char drop_note[96];
	uint64_t step;
	double sim_time;               ///< s
	double ms_per_step;            ///< median of the last steps
	double steps_per_s;            ///< measured over the last second
	double realtime;               ///< simulated seconds per wall second
	bool paused, behind;
	double speed;                  ///< requested simulated seconds per wall second
	vw_mouse_mode mouse_mode;
	uint64_t serial;               ///< counts publications: a new frame has a new serial
	uint64_t world_version;        ///< changes when agents or shapes may have moved
	char error[256];               ///< non-empty once a step failed; the host stops
} vw_frame;

/// What the host is asked to build and how.
typedef struct vw_sim_config {
	const char* scenario;          ///< a built-in scene or a scenario file (scenes.h)
	throng_scene_def options;  ///< record_forces is forced on
	bool paused;
	vw_mouse_mode mouse_mode;      ///< initial mode; VW_MOUSE_MODE_COUNT = the scene's default
	uint32_t overlap_every;        ///< steps between overlap counts (0 = never)
} vw_sim_config;

typedef enum vw_cmd_kind {
	VW_CMD_PAUSE = 0,   ///< toggle
	VW_CMD_STEP,        ///< one step, pausing first
	VW_CMD_SPEED,       ///< value: multiply the speed
	VW_CMD_RESET,
	VW_CMD_TOGGLE_SLOT, ///< archetype, slot
	VW_CMD_WEIGHT,      ///< archetype, slot, value: added to the weight (clamped at 0)
	VW_CMD_BLEND,       ///< archetype: next blend mode
	VW_CMD_OBSTACLE,    ///< index, point (centre), value (radius)
	VW_CMD_SELECT,      ///< index: agent id or VW_NO_AGENT
	VW_CMD_MOUSE_MODE,  ///< index: a vw_mouse_mode
} vw_cmd_kind;

typedef struct vw_cmd {
	vw_cmd_kind kind;
	uint32_t archetype, slot, index;
	double value;
	throng_vec2 point;
} vw_cmd;

typedef struct vw_sim vw_sim;

/// Builds the scene. On failure returns NULL with the library's status in
/// *status and a readable message in err.
vw_sim* vw_sim_create(const vw_sim_config* config, throng_status* status, char* err, size_t err_cap);

/// Stops the thread if it runs and frees everything. NULL is ignored.
void vw_sim_destroy(vw_sim* sim);

/// Starts real-time stepping on a thread of its own. Returns false (with the
/// reason in err) when the thread cannot start.
bool vw_sim_start(vw_sim* sim, char* err, size_t err_cap);

/// Lockstep: applies posted commands, takes `steps` steps unless paused
/// (single-step commands still step), and publishes a frame.
void vw_sim_tick(vw_sim* sim, uint32_t steps);

/// The newest published frame; stays valid and unchanged until the next call
/// of vw_sim_acquire from the same (render) thread.
const vw_frame* vw_sim_acquire(vw_sim* sim);

/// Queues a command; applied before the next step. Drops it (returns false)
/// when the queue is full.
bool vw_sim_post(vw_sim* sim, const vw_cmd* cmd);

/// The blend mode after `mode` in the library's order, back to the first
/// after the last (VW_CMD_BLEND's cycle).
throng_blend_mode vw_next_blend_mode(throng_blend_mode mode);

/// The cursor in world coordinates (m), its velocity (m/s) and whether it is
/// over the window; coalesced, only the latest counts.
void vw_sim_set_mouse(vw_sim* sim, throng_vec2 position, throng_vec2 velocity, bool inside);

#endif
