// SPDX-License-Identifier: MIT
// The `evacuation` scenario: a furnished room empties through two exits
// (issue 33, item 6).
//
// The room is W x H (W = 1.5 H), walled, centred on the origin, with a
// door of width d in the middle of its west and of its east wall, d =
// max(EVACUATION_MIN_DOOR, H / 8) as `bottleneck`'s. Round tables of radius
// EVACUATION_TABLE_RADIUS stand on a lattice EVACUATION_TABLE_PITCH apart
// (obstacles: solid to the contact stage), EVACUATION_TABLE_CLEAR from the
// walls; nobody stands on them. The N occupants are scattered over the
// floor (darts, scenario_spawn.h: no two overlap, none on a table) at
// EVACUATION_AREA square metres each, and each leaves by the nearer door:
// a path of two waypoints, the point a door width out of it on its axis
// (passed within the circle through its posts, as in `bottleneck`), then
// 10 m on. Outside each door a sink zone, from EVACUATION_SINK_GAP beyond
// the wall, takes them out of the world: the room is empty when the world
// is. Its outcome measure, `evacuation`, gives `evacuated_at`, the time
// the last one left (-1 while anyone is in), and `remaining`.
//
// Scaling: the floor grows with N at constant density, H = sqrt(N *
// EVACUATION_AREA / 1.5) plus the walls' clearance, the doors with H, so
// the time to empty grows as sqrt(N). At the default 400, the room is
// 35.8 x 23.9 m and the doors 3 m wide.
//
// Occupants: the calibrated pedestrian following its path
// (throng_controller_pedestrian_def(THRONG_PATH_FOLLOW)) with
// `bottleneck`'s door settings: 16 contact iterations, inelastic.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"

#define EVACUATION_AREA 2.0f          ///< m^2 of floor an occupant (tables aside)
#define EVACUATION_MIN_DOOR 1.2f      ///< m
#define EVACUATION_TABLE_RADIUS 0.6f  ///< m
#define EVACUATION_TABLE_PITCH 5.0f   ///< m between tables, both ways
#define EVACUATION_TABLE_CLEAR 2.5f   ///< m from a wall to the nearest table
#define EVACUATION_PAD 0.5f           ///< m from a wall to the nearest occupant
#define EVACUATION_SINK_GAP 0.5f      ///< m beyond the wall where the sink begins
#define EVACUATION_DOOR_CIRCLE 1.118034f ///< the door waypoint's radius / d: sqrt(5)/2, bottleneck's
#define EVACUATION_MARGIN 15.0f       ///< m of open world beyond the side walls

typedef struct evacuation_layout {
	float half_w, half_h, door;
	uint32_t archetype;
	uint32_t first_path; ///< the west door's; the east's is the next
} evacuation_layout;

/// Occupant i at points[i], leaving by the nearer door.
static void evacuation_make(const void* params, const throng_vec2* points, uint32_t i, throng_agent_def* def)
{
	const evacuation_layout* L = params;
	const throng_vec2 p = points[i];
	const float side = p.x < 0.0f ? -1.0f : 1.0f;
	const throng_vec2 goal = {side * (L->half_w + L->door + 10.0f), 0.0f};
	*def = thr_crowd_pedestrian(p, goal, (throng_vec2){side, 0.0f}, L->archetype);
	def->path = L->first_path + (p.x < 0.0f ? 0u : 1u);
}

/// The walls: north and south whole, west and east each side of the door.
static throng_status evacuation_walls(throng_scene* scene, const evacuation_layout* L)
{
	const float w = L->half_w, h = L->half_h, dh = 0.5f * L->door;
	const throng_vec2 seg[6][2] = {
		{{-w, h}, {w, h}},   {{-w, -h}, {w, -h}},  {{-w, h}, {-w, dh}},
		{{-w, -dh}, {-w, -h}}, {{w, h}, {w, dh}}, {{w, -dh}, {w, -h}},
	};
	throng_status st = THRONG_OK;
	for (int k = 0; k < 6 && st == THRONG_OK; ++k) {
		st = thr_scene_add_wall(scene, seg[k][0], seg[k][1]);
	}
	return st;
}

throng_status thr_evacuation_build(throng_scene* scene, const throng_scene_def* o)
{
	const uint32_t n = scene->agents;
	evacuation_layout L;
	const float floor_h = sqrtf((float)n * EVACUATION_AREA / 1.5f);
	L.half_h = 0.5f * floor_h + EVACUATION_PAD + 1.0f;
	L.half_w = 0.75f * floor_h + EVACUATION_PAD + 1.0f;
	L.door = fmaxf(EVACUATION_MIN_DOOR, 2.0f * L.half_h / 8.0f);
	const throng_vec2 lo = {-L.half_w - EVACUATION_MARGIN, -L.half_h - 1.0f};
	const throng_vec2 hi = {L.half_w + EVACUATION_MARGIN, L.half_h + 1.0f};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	throng_controller ctl = throng_controller_pedestrian_def(THRONG_PATH_FOLLOW);
	ctl.slots[ctl.slot_count - 1u].params.waypoint_radius = L.door * EVACUATION_DOOR_CIRCLE;
	ctl.contact.iterations = 16;
	ctl.contact.inelastic = true;
	if (st == THRONG_OK) {
		st = thr_scene_add_archetype(scene, "occupant", &ctl, &L.archetype);
	}
	if (st == THRONG_OK) {
		st = evacuation_walls(scene, &L);
	}
	L.first_path = thr_scene_path_count(scene);
	for (int k = 0; k < 2 && st == THRONG_OK; ++k) {
		const float side = k == 0 ? -1.0f : 1.0f;
		const throng_vec2 pts[2] = {{side * (L.half_w + L.door), 0.0f}, {side * (L.half_w + L.door + 10.0f), 0.0f}};
		st = thr_scene_add_path(scene, pts, 2, false);
		throng_zone_def sink = throng_zone_default_def();
		sink.shape = THRONG_ZONE_BOX;
		const float x0 = L.half_w + EVACUATION_SINK_GAP, x1 = L.half_w + EVACUATION_MARGIN;
		sink.min = (throng_vec2){k == 0 ? -x1 : x0, -L.half_h};
		sink.max = (throng_vec2){k == 0 ? -x0 : x1, L.half_h};
		sink.sink = true;
		snprintf(sink.name, sizeof sink.name, "%s_exit", k == 0 ? "west" : "east");
		if (st == THRONG_OK) {
			st = thr_scene_add_zone(scene, &sink);
		}
	}
	// Tables on a lattice centred in the room, then the occupants around them.
	const float tx = L.half_w - EVACUATION_TABLE_CLEAR, ty = L.half_h - EVACUATION_TABLE_CLEAR;
	const uint32_t cols = tx > 0.0f ? (uint32_t)(2.0f * tx / EVACUATION_TABLE_PITCH) + 1u : 0u;
	const uint32_t rows = ty > 0.0f ? (uint32_t)(2.0f * ty / EVACUATION_TABLE_PITCH) + 1u : 0u;
	thr_spawn sp;
	const throng_vec2 flo = {-L.half_w + EVACUATION_PAD, -L.half_h + EVACUATION_PAD};
	const throng_vec2 fhi = {L.half_w - EVACUATION_PAD, L.half_h - EVACUATION_PAD};
	if (st == THRONG_OK) {
		st = thr_spawn_init(&sp, "evacuation", flo, fhi, n + cols * rows, EVACUATION_TABLE_RADIUS);
		for (uint32_t r = 0; r < rows && st == THRONG_OK; ++r) {
			for (uint32_t c = 0; c < cols && st == THRONG_OK; ++c) {
				const throng_vec2 t = {-0.5f * (float)(cols - 1u) * EVACUATION_TABLE_PITCH +
				                           (float)c * EVACUATION_TABLE_PITCH,
				                       -0.5f * (float)(rows - 1u) * EVACUATION_TABLE_PITCH +
				                           (float)r * EVACUATION_TABLE_PITCH};
				thr_spawn_block(&sp, t, EVACUATION_TABLE_RADIUS);
				st = thr_scene_add_obstacle(scene, t, EVACUATION_TABLE_RADIUS);
			}
		}
		throng_vec2* points = st == THRONG_OK ? malloc((size_t)(n > 0 ? n : 1u) * sizeof *points) : NULL;
		if (st == THRONG_OK && points == NULL) {
			st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "evacuation: out of memory for %u occupants", n);
		}
		if (st == THRONG_OK) {
			st = thr_spawn_scatter(&sp, thr_rng_key(o->seed), 0, n, throng_agent_pedestrian_def().radius, flo, fhi,
			                       points);
		}
		thr_spawn_free(&sp);
		if (st == THRONG_OK) {
			st = thr_scene_add_block(scene, n, evacuation_make, &L, sizeof L, points);
		} else {
			free(points);
		}
	}
	scene->goal_radius = 0.0f;
	return st;
}

// ---------------------------------------------------------------------------
// The `evacuation` measure: when the room was empty.
// ---------------------------------------------------------------------------

static void evacuation_sample(const throng_scene* scene, thr_measure_state* m)
{
	if (m->resolved_at < 0.0 && throng_world_agent_count(scene->world) == 0) {
		m->resolved_at = (double)scene->steps * scene->dt;
	}
}

static uint32_t evacuation_outcome(const throng_scene* scene, const thr_measure_state* m, throng_scene_outcome* out,
                                   uint32_t cap)
{
	const uint32_t left = throng_world_agent_count(scene->world);
	double at = m->resolved_at;
	if (at < 0.0 && left == 0) {
		at = (double)scene->steps * scene->dt; // empty on the state measured now
	}
	const throng_scene_outcome all[2] = {{"evacuated_at", at}, {"remaining", (double)left}};
	for (uint32_t k = 0; k < cap && k < 2; ++k) {
		out[k] = all[k];
	}
	return 2;
}

const thr_measure thr_evacuation_measure = {
	.name = "evacuation",
	.init = thr_measure_init_unresolved,
	.sample = evacuation_sample,
	.outcome = evacuation_outcome,
};
