// SPDX-License-Identifier: MIT
// The `bottleneck` scenario: a crowd leaves a room through a door.
//
// The room is closed by four walls; the middle of its east wall (x = 0) is
// a door of width d. N pedestrians stand on a lattice of BOTTLENECK_SPACING
// (1.2 m, 0.69 pedestrians/m^2) in a square block, its front row
// BOTTLENECK_FRONT from the door wall. Each follows its own two-waypoint
// path: first a point on the door's axis d/2 + BOTTLENECK_DOOR_OUT beyond
// the door (passed within d/2 + 0.5 m, a circle that stays outside the
// room, so nobody turns for its goal before it is through), then its goal:
// its start lattice moved east out of the room and
// spread by BOTTLENECK_GOAL_SPREAD, the front row's farthest: 1.92 m
// between goals leaves solid walkers (radius 0.3) room to pass between
// those already standing at theirs (at 1.2 m, a late walker met a fence).
// Each agent's target point is that goal too (the metrics read it).
//
// Scaling: columns = rows = ceil(sqrt(N)), so the room's sides grow as
// sqrt(N) at constant density; the door grows with them, d = max(1.2 m,
// room height / 8), so the evacuation time grows as sqrt(N) too
// (N / (flow * d)). At the default 400 agents the room is 26.8 m deep and
// 25.6 m high and the door 3.2 m wide.
//
// Goal radius BOTTLENECK_GOAL_RADIUS = 0.5 m; default 7200 steps (120 s):
// of the default 400, about 1.2 pedestrians per metre of door per second
// get out, as in real bottleneck experiments; 394 are out and at their
// goals after 120 s (docs/QUALITY.md). Bounds are open: the walls hold the crowd (wall feelers at
// weight 3, scenario_crowd.c).
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"

#define BOTTLENECK_SPACING 1.2f     ///< m between lattice neighbours
#define BOTTLENECK_PAD 0.8f         ///< m from the side and back walls to the block
#define BOTTLENECK_FRONT 2.0f       ///< m from the door wall to the front row
#define BOTTLENECK_DOOR_MIN 1.2f    ///< m: the narrowest door
#define BOTTLENECK_DOOR_SHARE 0.125f ///< door width / room height, above the minimum
#define BOTTLENECK_DOOR_OUT 1.5f    ///< m beyond the door's half-width: the first waypoint
#define BOTTLENECK_EXIT_GAP 4.0f    ///< m from the door wall to the nearest goals
#define BOTTLENECK_SLOW_RADIUS 2.0f ///< m: arrive slows inside it
#define BOTTLENECK_GOAL_RADIUS 0.5f ///< m
#define BOTTLENECK_GOAL_SPREAD 1.6f ///< the goals' lattice is the start lattice scaled by this
#define BOTTLENECK_SEPARATION 4.0f  ///< separation weight (scenario_crowd.c)
#define BOTTLENECK_MARGIN 5.0f      ///< m of open world around room and goals

typedef struct bottleneck_layout {
	uint32_t columns, rows;
	float half_height; ///< m, the room's half-height
	float depth;       ///< m, the room's depth (west to east)
	float door;        ///< m, the door's width
	uint32_t key;
	uint32_t archetype;
	uint32_t first_path;
} bottleneck_layout;

/// Start and goal of agent i.
static void bottleneck_place(const bottleneck_layout* L, uint32_t i, throng_vec2* start, throng_vec2* goal)
{
	float lateral, depth;
	thr_crowd_slot(L->key, i, i, L->columns, BOTTLENECK_SPACING, &lateral, &depth);
	// Facing east, "right" is south: lateral runs from the north wall down.
	start->x = -BOTTLENECK_FRONT - depth;
	start->y = L->half_height - BOTTLENECK_PAD - lateral;
	goal->x = BOTTLENECK_EXIT_GAP + BOTTLENECK_GOAL_SPREAD * (start->x + L->depth);
	goal->y = BOTTLENECK_GOAL_SPREAD * start->y;
}

static void bottleneck_make(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user)
{
	const bottleneck_layout* L = user;
	(void)scene;
	throng_vec2 start, goal;
	bottleneck_place(L, i, &start, &goal);
	*def = thr_crowd_walker(start, goal, (throng_vec2){1.0f, 0.0f}, L->archetype);
	def->path = L->first_path + i;
}

static throng_status bottleneck_walls(throng_scene* scene, const bottleneck_layout* L)
{
	float h = L->half_height, x0 = -L->depth, dh = 0.5f * L->door;
	const throng_vec2 seg[5][2] = {
		{{x0, -h}, {x0, h}},     // west
		{{x0, h}, {0.0f, h}},    // north
		{{x0, -h}, {0.0f, -h}},  // south
		{{0.0f, h}, {0.0f, dh}}, // east, above the door
		{{0.0f, -dh}, {0.0f, -h}}, // east, below the door
	};
	throng_status st = THRONG_OK;
	for (int k = 0; k < 5 && st == THRONG_OK; ++k) {
		st = thr_scene_add_wall(scene, seg[k][0], seg[k][1]);
	}
	return st;
}

throng_status thr_bottleneck_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	bottleneck_layout L;
	thr_crowd_block(n, 1.0f, &L.columns, &L.rows);
	L.half_height = 0.5f * (float)L.columns * BOTTLENECK_SPACING + BOTTLENECK_PAD;
	L.depth = (float)L.rows * BOTTLENECK_SPACING + BOTTLENECK_PAD + BOTTLENECK_FRONT;
	float door = 2.0f * L.half_height * BOTTLENECK_DOOR_SHARE;
	L.door = door > BOTTLENECK_DOOR_MIN ? door : BOTTLENECK_DOOR_MIN;
	L.key = thr_rng_key(o->seed);

	float reach_x = L.depth + BOTTLENECK_EXIT_GAP + BOTTLENECK_MARGIN;
	const throng_vec2 lo = {-L.depth - BOTTLENECK_MARGIN, -L.half_height - BOTTLENECK_MARGIN};
	const throng_vec2 hi = {reach_x, L.half_height + BOTTLENECK_MARGIN};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	if (st != THRONG_OK) {
		return st;
	}
	throng_controller ctl = thr_crowd_controller(true, THR_CROWD_PATH, BOTTLENECK_SLOW_RADIUS, BOTTLENECK_SEPARATION);
	ctl.slots[ctl.slot_count - 1u].params.waypoint_radius = 0.5f * L.door + 0.5f;
	st = thr_scene_add_archetype(scene, "evacuee", &ctl, &L.archetype);
	if (st == THRONG_OK) {
		st = bottleneck_walls(scene, &L);
	}
	// One path per agent: the door, then its own goal.
	throng_vec2 door_out = {0.5f * L.door + BOTTLENECK_DOOR_OUT, 0.0f};
	L.first_path = thr_scene_path_count(scene);
	for (uint32_t i = 0; i < n && st == THRONG_OK; ++i) {
		throng_vec2 pts[2];
		throng_vec2 start;
		pts[0] = door_out;
		bottleneck_place(&L, i, &start, &pts[1]);
		st = thr_scene_add_path(scene, pts, 2, false);
	}
	if (st == THRONG_OK) {
		st = thr_scene_spawn_batched(scene, n, bottleneck_make, &L);
	}
	scene->goal_radius = BOTTLENECK_GOAL_RADIUS;
	return st;
}
