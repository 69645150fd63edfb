// SPDX-License-Identifier: MIT
// The `bottleneck` scenario: a crowd leaves a room through a door.
//
// The room is closed by four walls; the middle of its east wall (x = 0) is
// a door of width d. N pedestrians stand on a lattice of BOTTLENECK_SPACING
// (1.2 m, 0.69 pedestrians/m^2) in a square block, its front row
// BOTTLENECK_FRONT from the door wall. Each follows its own two-waypoint
// path: first the point (d, 0) on the door's axis, passed within the
// circle through the two door posts (radius sqrt(5)/2 d): it holds every
// point outside the room near the door (everything with x^2 + y^2 <
// 2 d x + d^2/4, so a walker squeezed round a post counts as through) and
// enters the room only as a lens 0.12 d deep inside the doorway, so nobody
// turns for its goal before it is through. (The previous circle, radius
// d/2 + 0.5 m around (d/2 + 1.5 m, 0), missed walkers pushed out beside the
// door: at 1,000 agents about 50 of them stood for up to a minute beside
// the outflow, pressing back into it towards the waypoint.) Then its goal.
//
// Goals: a square lattice of BOTTLENECK_GOAL_SPACING (1.92 m: solid
// walkers, radius 0.3, pass between those already standing) east of the
// door, from BOTTLENECK_EXIT_GAP beyond the door wall, the N points nearest
// the door's centre (a half-disc). The earlier a walker can expect to be
// out, the farther its goal, so that nobody has to pass a crowd already
// standing at its goals, and the last ones out have the shortest walk
// (bottleneck_goals). Each agent's target point is that goal too (the
// metrics read it). (Goals that were the start lattice moved out and
// spread, the front row's farthest, sent the walkers along the side walls,
// who leave last, to the outer edges of the field, up to 70 m from the
// door at 1,000 agents: 815 to 837 of 1,000 were at their goals after
// 120 s, seeds 1 to 8, though the room was empty after 95 s, seed 1.)
//
// Scaling: columns = rows = ceil(sqrt(N)), so the room's sides grow as
// sqrt(N) at constant density; the door grows with them, d = max(1.2 m,
// room height / 8), so the evacuation time grows as sqrt(N) too
// (N / (flow * d)). At the default 400 agents the room is 26.8 m deep and
// 25.6 m high and the door 3.2 m wide; at 1,000, 41.2 m by 40 m, door 5 m.
//
// Walkers: the calibrated pedestrian (issue 32, item 5),
// throng_controller_pedestrian_def(THRONG_PATH_FOLLOW) with this file's
// waypoint radius, 16 contact iterations, inelastic contacts, and the body
// of thr_crowd_pedestrian (radius 0.17 m, 1.34 m/s). Its 5 m door passes
// about 9 walkers a second (1.8 /(m s), inside the experiments' 1.6 to
// 2.0) while the room is full, so 1,000 need about 1,000 / (5 m x 1.8) =
// 111 s to pass, and the last walks on to a goal near the door; measured
// (`throng run bottleneck --agents 1000 --steps 10800 --seed S`, seeds 1
// to 8): everyone arrives, the last after 137.8 to 146.0 s. The default
// run is 180 s (10800 steps), about that time with a quarter more. (The
// hybrid walker it replaced passed 2.47 /(m s), above the data, and was
// done by 90 s. Without THR_HEADWAY_CONE, with the headway capping every
// desire, the crowds pressed beside the door, whose way to the door
// waypoint runs into the wall, crept along it in a file: 940 to 949 of
// 1,000 at their goals after 180 s, seeds 1 to 4; the cone, which holds
// within THR_HEADWAY_WALL_REACH of a wall, lets them round the post.)
//
// Goal radius BOTTLENECK_GOAL_RADIUS = 0.5 m; default 10800 steps (180 s).
// Bounds are open: the walls hold the crowd (the pedestrian's wall feelers,
// core/controller.c, and the contact pass). docs/QUALITY.md has the figures.
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "fmath.h"
#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"

#define BOTTLENECK_SPACING 1.2f     ///< m between lattice neighbours
#define BOTTLENECK_PAD 0.8f         ///< m from the side and back walls to the block
#define BOTTLENECK_FRONT 2.0f       ///< m from the door wall to the front row
#define BOTTLENECK_DOOR_MIN 1.2f    ///< m: the narrowest door
#define BOTTLENECK_DOOR_SHARE 0.125f ///< door width / room height, above the minimum
#define BOTTLENECK_DOOR_CIRCLE 1.118034f ///< sqrt(5)/2: the door waypoint's radius / d
#define BOTTLENECK_EXIT_GAP 4.0f    ///< m from the door wall to the nearest goals
#define BOTTLENECK_GOAL_RADIUS 0.5f ///< m
#define BOTTLENECK_GOAL_SPACING 1.92f ///< m between goals
#define BOTTLENECK_GOAL_RUN 2.0f    ///< goals paired by angle in runs of this times sqrt(N)
#define BOTTLENECK_MARGIN 5.0f      ///< m of open world around room and goals

typedef struct bottleneck_layout {
	uint32_t columns, rows;
	float half_height; ///< m, the room's half-height
	float depth;       ///< m, the room's depth (west to east)
	float door;        ///< m, the door's width
	uint32_t key;
	uint32_t archetype;
	uint32_t first_path;
	throng_vec2 reach;  ///< m: the largest goal x and |goal y|
} bottleneck_layout;

/// Start of agent i.
static throng_vec2 bottleneck_start(const bottleneck_layout* L, uint32_t i)
{
	float lateral, depth;
	thr_crowd_slot(L->key, i, i, L->columns, BOTTLENECK_SPACING, &lateral, &depth);
	// Facing east, "right" is south: lateral runs from the north wall down.
	return (throng_vec2){-BOTTLENECK_FRONT - depth, L->half_height - BOTTLENECK_PAD - lateral};
}

/// A sort key and the index it belongs to; ties go to the lower index.
typedef struct bottleneck_rank {
	float key;
	uint32_t index;
} bottleneck_rank;

static int bottleneck_rank_cmp(const void* a, const void* b)
{
	const bottleneck_rank* x = a;
	const bottleneck_rank* y = b;
	if (x->key != y->key) {
		return x->key < y->key ? -1 : 1;
	}
	return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

/// The goal lattice's points nearest the door: *out (malloc'd, n of them)
/// in order of distance from the door's centre.
static throng_status bottleneck_goal_points(uint32_t n, throng_vec2** out)
{
	const float g = BOTTLENECK_GOAL_SPACING;
	// A half-disc of radius R holds about pi R^2 / (2 g^2) lattice points.
	float R = sqrtf(2.0f * (float)n / THR_PI) * g + BOTTLENECK_EXIT_GAP + 2.0f * g;
	for (;;) {
		int32_t reach = (int32_t)(R / g) + 1;
		size_t cap = (size_t)(reach + 1) * (size_t)(2 * reach + 1);
		bottleneck_rank* rank = malloc(cap * sizeof *rank);
		throng_vec2* pts = malloc(cap * sizeof *pts);
		if (rank == NULL || pts == NULL) {
			free(rank);
			free(pts);
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "bottleneck: out of memory for %u goals", n);
		}
		uint32_t count = 0;
		for (int32_t a = 0; a <= reach; ++a) {
			for (int32_t b = -reach; b <= reach; ++b) {
				throng_vec2 q = {BOTTLENECK_EXIT_GAP + (float)a * g, (float)b * g};
				float d2 = q.x * q.x + q.y * q.y;
				if (d2 <= R * R) {
					pts[count] = q;
					rank[count] = (bottleneck_rank){d2, count};
					++count;
				}
			}
		}
		if (count >= n) {
			qsort(rank, count, sizeof *rank, bottleneck_rank_cmp);
			throng_vec2* sorted = malloc((size_t)n * sizeof *sorted);
			if (sorted != NULL) {
				for (uint32_t k = 0; k < n; ++k) {
					sorted[k] = pts[rank[k].index];
				}
			}
			free(rank);
			free(pts);
			*out = sorted;
			return sorted != NULL ? THRONG_OK
			                      : thr_fail(THRONG_ERR_OUT_OF_MEMORY, "bottleneck: out of memory for %u goals", n);
		}
		free(rank);
		free(pts);
		R += g;
	}
}

/// Everyone's goal (*out, malloc'd, by id): the earlier a walker can expect to
/// be out, the farther its goal. Walkers are ranked by how far out towards
/// the room's walls they start, max(-x / depth, |y| / half-height) (the
/// crowd closes round the door in rings, and those along the side walls
/// leave last, whichever row they stood in), ties to the lower id; the
/// goal points by their distance from the door, the farthest first. Both
/// lists are cut into runs of BOTTLENECK_GOAL_RUN sqrt(N) (about a ring of
/// goals), and within a run walkers and goals are paired in order of their
/// angle seen from the door, so the north of the room goes north.
static throng_status bottleneck_goals(bottleneck_layout* L, uint32_t n, throng_vec2** out)
{
	throng_vec2* pts = NULL;
	throng_status st = bottleneck_goal_points(n, &pts);
	if (st != THRONG_OK) {
		return st;
	}
	bottleneck_rank* rank = malloc((size_t)n * sizeof *rank);
	bottleneck_rank* run_a = malloc((size_t)n * sizeof *run_a);
	bottleneck_rank* run_g = malloc((size_t)n * sizeof *run_g);
	throng_vec2* starts = malloc((size_t)n * sizeof *starts);
	throng_vec2* goals = malloc((size_t)n * sizeof *goals);
	if (rank == NULL || run_a == NULL || run_g == NULL || starts == NULL || goals == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "bottleneck: out of memory for %u goals", n);
	}
	for (uint32_t i = 0; i < n && st == THRONG_OK; ++i) {
		throng_vec2 s = bottleneck_start(L, i);
		starts[i] = s;
		float back = -s.x / L->depth, side = fabsf(s.y) / L->half_height;
		rank[i] = (bottleneck_rank){back > side ? back : side, i};
	}
	if (st == THRONG_OK) {
		qsort(rank, n, sizeof *rank, bottleneck_rank_cmp);
		uint32_t run = (uint32_t)ceilf(BOTTLENECK_GOAL_RUN * sqrtf((float)n));
		run = run < 1u ? 1u : run;
		L->reach = (throng_vec2){0.0f, 0.0f};
		for (uint32_t k0 = 0; k0 < n; k0 += run) {
			uint32_t m = n - k0 < run ? n - k0 : run;
			for (uint32_t j = 0; j < m; ++j) {
				throng_vec2 s = starts[rank[k0 + j].index];
				throng_vec2 q = pts[n - 1u - (k0 + j)];
				// Angles seen from the door, as slopes: starts lie west of
				// it (x < 0), goals east (x > 0).
				run_a[j] = (bottleneck_rank){s.y / -s.x, rank[k0 + j].index};
				run_g[j] = (bottleneck_rank){q.y / q.x, n - 1u - (k0 + j)};
			}
			qsort(run_a, m, sizeof *run_a, bottleneck_rank_cmp);
			qsort(run_g, m, sizeof *run_g, bottleneck_rank_cmp);
			for (uint32_t j = 0; j < m; ++j) {
				throng_vec2 q = pts[run_g[j].index];
				goals[run_a[j].index] = q;
				L->reach.x = q.x > L->reach.x ? q.x : L->reach.x;
				L->reach.y = fabsf(q.y) > L->reach.y ? fabsf(q.y) : L->reach.y;
			}
		}
	}
	free(pts);
	free(rank);
	free(run_a);
	free(run_g);
	free(starts);
	if (st != THRONG_OK) {
		free(goals);
		goals = NULL;
	}
	*out = goals;
	return st;
}

/// Agent i; goals[i] is its goal (bottleneck_goals).
static void bottleneck_make(const void* params, const throng_vec2* goals, uint32_t i, throng_agent_def* def)
{
	const bottleneck_layout* L = params;
	*def = thr_crowd_pedestrian(bottleneck_start(L, i), goals[i], (throng_vec2){1.0f, 0.0f}, L->archetype);
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

	throng_vec2* goals = NULL;
	L.reach = (throng_vec2){0.0f, 0.0f};
	throng_status st = n > 0 ? bottleneck_goals(&L, n, &goals) : THRONG_OK;
	if (st != THRONG_OK) {
		return st;
	}
	float reach_y = L.reach.y > L.half_height ? L.reach.y : L.half_height;
	const throng_vec2 lo = {-L.depth - BOTTLENECK_MARGIN, -reach_y - BOTTLENECK_MARGIN};
	const throng_vec2 hi = {L.reach.x + BOTTLENECK_MARGIN, reach_y + BOTTLENECK_MARGIN};
	st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	throng_controller ctl = throng_controller_pedestrian_def(THRONG_PATH_FOLLOW);
	// The door waypoint: on the door's axis a door width out, passed within
	// the circle through the door posts (see the top of this file).
	const throng_vec2 door_out = {L.door, 0.0f};
	ctl.slots[ctl.slot_count - 1u].params.waypoint_radius = L.door * BOTTLENECK_DOOR_CIRCLE;
	// The crush at the door: with the default 4 contact iterations the
	// deepest overlap reached 0.168 of the radii sum at 100,000 agents,
	// with 16 0.066 in brief peaks beside the door posts, where the crowd
	// kept walking into itself; inelastic contacts stop that
	// (docs/QUALITY.md). Iterations run only while pairs overlap.
	ctl.contact.iterations = 16;
	ctl.contact.inelastic = true;
	if (st == THRONG_OK) {
		st = thr_scene_add_archetype(scene, "evacuee", &ctl, &L.archetype);
	}
	if (st == THRONG_OK) {
		st = bottleneck_walls(scene, &L);
	}
	// One path per agent: the door, then its own goal.
	L.first_path = thr_scene_path_count(scene);
	for (uint32_t i = 0; i < n && st == THRONG_OK; ++i) {
		const throng_vec2 pts[2] = {door_out, goals[i]};
		st = thr_scene_add_path(scene, pts, 2, false);
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, bottleneck_make, &L, sizeof L, goals);
	} else {
		free(goals);
	}
	scene->goal_radius = BOTTLENECK_GOAL_RADIUS;
	return st;
}
