// SPDX-License-Identifier: MIT
// The `hallway` scenario: two flows walk through each other in a corridor.
//
// A corridor runs west to east between two walls. Agent i belongs to flow
// i mod 2: flow 0 starts at the west end and walks east, flow 1 the other
// way. Each flow is a block filling the corridor's width on the lattice of
// HALLWAY_SPACING (1.2 m, 0.69 pedestrians/m^2), HALLWAY_ASPECT times as
// long as it is wide; the two fronts start HALLWAY_GAP apart, and the walls
// run HALLWAY_END beyond each block's back edge. The flows must pass through
// each other (lanes form). The goals lie beyond the corridor's far end, in
// the open, on a wider lattice (HALLWAY_GOAL_SPACING, 2 m, unjittered)
// centred on the corridor's centre line, rows reversed: the front row goes
// farthest. So no one who arrived stands where the other flow still has to
// pass, nobody has to pass someone who already stopped, and walkers that
// arrive late can pass between those standing. (With each goal at the
// start moved along the corridor, as before, each flow ended parked where
// the other had started, and the last walkers of a jam pushed through a
// standing crowd: last arrivals after 130 to 200 s for five seeds of
// eight.)
//
// Scaling: a block of ceil(N/2) agents has columns = ceil(sqrt(N/2 / 3))
// across and rows = ceil(N/2 / columns) along, so every length grows as
// sqrt(N) at constant density. The blocks keep HALLWAY_PAD (2.4 m) from
// the walls, beyond the wall feelers' 1.5 m: walkers that stood closer
// shuddered, and the wider corridor gives the lanes room. With
// length = rows * 1.2 m the front row's walk is about D = HALLWAY_GAP +
// length + HALLWAY_END + rows * HALLWAY_GOAL_SPACING (the back row's, about
// HALLWAY_GAP + 2 length + HALLWAY_END, is shorter). At the default 1,000
// agents: 13 columns x 39 rows, a corridor 13 * 1.2 + 2 * 2.4 = 20.4 m
// wide with 105.6 m of wall, goals on a 26 x 78 m lattice at each end,
// D = 135.8 m.
//
// Walkers: the calibrated pedestrian (issue 32, item 5),
// throng_controller_pedestrian_def(THRONG_ARRIVE) (slow radius 2 m, as
// before) with throng_agent_pedestrian_def()'s body (radius 0.17 m,
// 1.34 m/s). Until 2026-12-05 they were the hybrid walker of
// scenario_crowd.c (radius 0.3 m, 1.3 m/s, separation weight 3), for which
// the layout was tuned on seeds 1 to 8 before the contact pass: at a pad
// of 1.6 m and weight 4 the oncoming lanes pressed walkers into the walls,
// where they jammed for up to a minute on three seeds; 2.4 m and weight 3
// none. The layout and goals are kept: the lattice leaves 0.86 m between
// the smaller bodies (0.6 m before), the pad is still beyond the
// pedestrian's 1.5 m wall feelers, and the goals 2 m apart leave room to
// pass between those standing. Goal radius HALLWAY_GOAL_RADIUS = 0.5 m.
// Documented crossing time: every agent reaches its goal within
// T = 1.5 D / 1.3 m/s (the walk plus half again for the lanes). At 1,000
// agents T = 156.7 s; the default 9420 steps (157 s) cover it; measured
// with seeds 1 to 8: everyone arrives, the last after 102.1 s at most
// (the walker: 106.0 to 106.3 s), no overlap deeper than 0.0005 of the
// radii sum (docs/QUALITY.md).
// Bounds are open, the goals plus HALLWAY_MARGIN.
#include <math.h>

#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"

#define HALLWAY_SPACING 1.2f      ///< m between lattice neighbours in a block
#define HALLWAY_ASPECT 3.0f       ///< a block's length / width
#define HALLWAY_PAD 2.4f          ///< m from a wall to the nearest column: beyond the 1.5 m feelers
#define HALLWAY_GAP 10.0f         ///< m between the two fronts at the start
#define HALLWAY_END 1.0f          ///< m of corridor beyond a block's back edge
#define HALLWAY_GOAL_SPACING 2.0f ///< m between goals (both axes)
#define HALLWAY_GOAL_RADIUS 0.5f  ///< m
#define HALLWAY_MARGIN 5.0f       ///< m of open world around the goals

typedef struct hallway_layout {
	uint32_t columns, rows;
	float half_width;  ///< m, centre line to a wall
	float half_length; ///< m, centre to a wall's end
	uint32_t key;
	uint32_t archetype;
} hallway_layout;

static void hallway_make(const void* params, const throng_vec2* points, uint32_t i, throng_agent_def* def)
{
	const hallway_layout* L = params;
	(void)points;
	uint32_t flow = i % 2u;
	throng_vec2 u = flow == 0 ? (throng_vec2){1.0f, 0.0f} : (throng_vec2){-1.0f, 0.0f};
	throng_vec2 left = {-u.y, u.x};
	float lateral, depth;
	thr_crowd_slot(L->key, i, i / 2u, L->columns, HALLWAY_SPACING, &lateral, &depth);
	float side = L->half_width - HALLWAY_PAD - lateral; // along `left`, from the centre line
	float along = -0.5f * HALLWAY_GAP - depth;
	// The goal lattice beyond the far end, centred on the centre line, its
	// columns in the block's order (counted from the left wall).
	float beyond, across;
	thr_crowd_goal_place(i / 2u, L->columns, L->rows, HALLWAY_GOAL_SPACING, &beyond, &across);
	float goal = L->half_length + beyond;
	float goal_side = -across;
	*def = thr_crowd_pedestrian(thr_crowd_at(u, left, along, side), thr_crowd_at(u, left, goal, goal_side), u,
	                        L->archetype);
	def->group = flow;
}

throng_status thr_hallway_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	hallway_layout L;
	thr_crowd_block((n + 1u) / 2u, HALLWAY_ASPECT, &L.columns, &L.rows);
	float length = (float)L.rows * HALLWAY_SPACING;
	L.half_width = 0.5f * (float)L.columns * HALLWAY_SPACING + HALLWAY_PAD;
	L.half_length = 0.5f * HALLWAY_GAP + length + HALLWAY_END;
	L.key = thr_rng_key(o->seed);
	float extent_x = L.half_length + (float)L.rows * HALLWAY_GOAL_SPACING + HALLWAY_MARGIN;
	float extent_y = fmaxf(L.half_width, 0.5f * (float)L.columns * HALLWAY_GOAL_SPACING) + HALLWAY_MARGIN;

	const throng_vec2 lo = {-extent_x, -extent_y}, hi = {extent_x, extent_y};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	if (st != THRONG_OK) {
		return st;
	}
	throng_controller ctl = throng_controller_pedestrian_def(THRONG_ARRIVE);
	st = thr_scene_add_archetype(scene, "pedestrian", &ctl, &L.archetype);
	for (int k = 0; k < 2 && st == THRONG_OK; ++k) {
		float y = k == 0 ? L.half_width : -L.half_width;
		st = thr_scene_add_wall(scene, (throng_vec2){-L.half_length, y}, (throng_vec2){L.half_length, y});
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, hallway_make, &L, sizeof L, NULL);
	}
	scene->goal_radius = HALLWAY_GOAL_RADIUS;
	return st;
}
