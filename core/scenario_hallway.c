// SPDX-License-Identifier: MIT
// The `hallway` scenario: two flows walk through each other in a corridor.
//
// A corridor runs west to east between two walls. Agent i belongs to flow
// i mod 2: flow 0 starts at the west end and walks east, flow 1 the other
// way. Each flow is a block filling the corridor's width on the lattice of
// HALLWAY_SPACING (1.2 m, 0.69 pedestrians/m^2), HALLWAY_ASPECT times as
// long as it is wide; the two fronts start HALLWAY_GAP apart. Each agent's
// goal is its start moved D = HALLWAY_GAP + block length along its flow, at
// the same distance from the walls: the flows must pass through each other
// (lanes form), and the front row goes farthest.
//
// Scaling: a block of ceil(N/2) agents has columns = ceil(sqrt(N/2 / 3))
// across and rows = ceil(N/2 / columns) along, so the corridor's width and
// length both grow as sqrt(N) at constant density: at the default 1,000
// agents 13 columns, 15.6 + 2 * 1.6 m = 18.8 m wide, 110 m of wall. The
// blocks keep HALLWAY_PAD (1.6 m) from the walls, beyond the wall feelers'
// reach: walkers that stood closer shuddered at their goals (a feeler hit
// pushed them off, arrive pulled them back).
//
// Controller: scenario_crowd.c with separation weight 4. Goal radius
// HALLWAY_GOAL_RADIUS = 0.5 m; default 4800 steps (80 s); at 1,000 agents
// every walker arrives within 54 s (docs/QUALITY.md). Bounds are open;
// the walls run the corridor's length plus HALLWAY_END at each end.
#include <math.h>

#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"

#define HALLWAY_SPACING 1.2f     ///< m between lattice neighbours
#define HALLWAY_ASPECT 3.0f      ///< a block's length / width
#define HALLWAY_PAD 1.6f         ///< m from a wall to the nearest column: beyond the 1.5 m feelers
#define HALLWAY_GAP 10.0f        ///< m between the two fronts at the start
#define HALLWAY_END 3.0f         ///< m of corridor beyond the farthest goal
#define HALLWAY_SLOW_RADIUS 2.0f ///< m: arrive slows inside it
#define HALLWAY_GOAL_RADIUS 0.5f ///< m
#define HALLWAY_SEPARATION 4.0f  ///< separation weight (scenario_crowd.c)
#define HALLWAY_MARGIN 5.0f      ///< m of open world around the corridor

typedef struct hallway_layout {
	uint32_t columns, rows;
	float half_width; ///< m
	float travel;     ///< D (m)
	uint32_t key;
	uint32_t archetype;
} hallway_layout;

static void hallway_make(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user)
{
	const hallway_layout* L = user;
	(void)scene;
	uint32_t flow = i % 2u;
	throng_vec2 u = flow == 0 ? (throng_vec2){1.0f, 0.0f} : (throng_vec2){-1.0f, 0.0f};
	throng_vec2 left = {-u.y, u.x};
	float lateral, depth;
	thr_crowd_slot(L->key, i, i / 2u, L->columns, HALLWAY_SPACING, &lateral, &depth);
	float side = L->half_width - HALLWAY_PAD - lateral; // along `left`, from the centre line
	float along = -0.5f * HALLWAY_GAP - depth;
	float goal = along + L->travel;
	throng_vec2 start = {along * u.x + side * left.x, along * u.y + side * left.y};
	throng_vec2 target = {goal * u.x + side * left.x, goal * u.y + side * left.y};
	*def = thr_crowd_walker(start, target, u, L->archetype);
	def->group = flow;
}

throng_status thr_hallway_build(throng_scene* scene, const throng_scene_options* o)
{
	uint32_t n = scene->agents;
	hallway_layout L;
	thr_crowd_block((n + 1u) / 2u, HALLWAY_ASPECT, &L.columns, &L.rows);
	float length = (float)L.rows * HALLWAY_SPACING;
	L.half_width = 0.5f * (float)L.columns * HALLWAY_SPACING + HALLWAY_PAD;
	L.travel = HALLWAY_GAP + length;
	L.key = thr_rng_key(o->seed);
	float half_length = 0.5f * HALLWAY_GAP + length + HALLWAY_END;

	const throng_vec2 lo = {-half_length - HALLWAY_MARGIN, -L.half_width - HALLWAY_MARGIN};
	const throng_vec2 hi = {half_length + HALLWAY_MARGIN, L.half_width + HALLWAY_MARGIN};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	if (st != THRONG_OK) {
		return st;
	}
	throng_controller ctl = thr_crowd_controller(true, THR_CROWD_ARRIVE, HALLWAY_SLOW_RADIUS, HALLWAY_SEPARATION);
	st = throng_world_add_archetype(scene->world, &ctl, &L.archetype);
	for (int k = 0; k < 2 && st == THRONG_OK; ++k) {
		float y = k == 0 ? L.half_width : -L.half_width;
		st = throng_world_add_wall(scene->world, (throng_vec2){-half_length, y}, (throng_vec2){half_length, y},
		                           NULL);
	}
	if (st == THRONG_OK) {
		st = thr_scene_spawn_batched(scene, n, hallway_make, &L);
	}
	scene->goal_radius = HALLWAY_GOAL_RADIUS;
	return st;
}
