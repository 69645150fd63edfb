// SPDX-License-Identifier: MIT
// The `concourse` scenario: a station hall that walkers cross between its
// doors, kept busy by sources and emptied by sinks (issue 33, item 6).
//
// The hall is a square of side L, walled, centred on the origin; each wall
// has an entrance and an exit, each CONCOURSE_DOOR_SHARE of L wide and
// centred a quarter of L from the wall's middle: the west wall's entrance
// in its north half and its exit in its south half, and each wall the same
// turned a quarter round. An entrance (and an exit) wider than
// CONCOURSE_DOOR_MOST is cut into as many doors as that takes, of equal
// width, each in the middle of an equal stretch of its half of the wall. Walkers cross to the door straight across: in
// by the west entrance, out by the east exit (north half too), and so on
// round, so the four flows are straight lanes that cross each other at
// four places, two of them head-on pairs a half-hall apart. An entrance is
// CONCOURSE_LANES sources side by side along the door, 1 m inside the
// wall, each walker bound straight across to the exit wall from where it
// came in (a relative goal, throng_source_def.relative_target), so that a
// door's stream keeps its width; an exit is a sink zone
// CONCOURSE_SINK_DEPTH deep along its wall, which takes a walker out as it
// enters. (With one goal point a source, each's stream narrowed over
// the hall into a ribbon a few metres wide, 0.7 walkers /m^2 at 10^5, and
// the ribbons slowed where they crossed the lanes by the exits.)
//
// Scaling: `--agents N` is the crowd the hall holds, from the first step:
// N walkers stand in the four lanes at the start, a quarter each, spread
// evenly along them (darts, scenario_spawn.h: no two overlap), each bound
// for its lane's exit, as if the hall had been running for a while. The
// hall holds CONCOURSE_DENSITY walkers a square metre on average, L =
// sqrt(N / density); each of the four entrances lets in N / (4 T) a
// second, T = L / 1.34 m/s the crossing, so that four flows of T seconds
// hold N: as many come in as leave.
// At the default 3,000: L = 173 m, T = 129 s, 5.8 walkers a second an
// entrance, doors 26 m wide (0.22 walkers /(m s)); at 100,000, L = 1 km,
// 33.5 a second an entrance, through 5 doors of 30 m (3 sources each:
// a world holds 64). Why relative goals: with each source's walkers bound
// for one point on the exit wall, a source's stream narrowed over the
// hall into a ribbon (3 to 4 m wide and 0.7 walkers /m^2 near the exits
// at 10^5), and the ribbons slowed where they crossed the lanes by the
// exits (4,152 walkers below 0.2 m/s at 900 s); straight across, the
// hall of 10^5 flows for 2,300 s, none below 0.2 m/s but those that came
// in that step, none late, the slowest 1.12 times its free walk
// (docs/PERFORMANCE.md). Why doors of 30 m at most: where
// two lanes cross, the square of the crossing is as wide as the doors,
// and with one door an entrance (and goal points) wide crossings locked:
// the hall of 3 10^4 walkers (82 m doors) from about 8 minutes, that of
// 10^5 (150 m) from about 11. The density is what lets the lanes cross
// (measured with goal points): at 0.25 walkers /m^2 (lanes of 0.4 /m^2)
// the four crossings of the 3,000-walker hall locked after about two
// minutes (200 s in, 6,886 walkers, 5,624 of them below 0.2 m/s); at
// 0.1, 3,064 walkers after 10 minutes, none below 0.2 m/s, mean speed
// 1.29 m/s. With doors half as wide again, lanes of 0.9 /m^2 jammed
// within 80 s.
//
// Walkers: the calibrated pedestrian (throng_controller_pedestrian_def
// with arrive) and its body (radius 0.17 m, 1.34 m/s). Its outcome
// measure, `flows`, follows every walker from its source to its sink:
// `left`, `late` (took more than THR_FLOW_LATE times its free-walk time,
// or has been in that long now), `worst_ratio`, `in_hall`.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"

#define CONCOURSE_DENSITY 0.1f    ///< walkers a square metre, on average, once the hall is full
#define CONCOURSE_DOOR_SHARE 0.15f ///< an entrance's width (all its doors) / the hall's side
#define CONCOURSE_DOOR_MOST 30.0f  ///< m: a wider entrance (or exit) is cut into doors of this at most
#define CONCOURSE_MIN_DOOR 2.0f    ///< m
#define CONCOURSE_MIN_SIDE 20.0f   ///< m
#define CONCOURSE_LANES 4u         ///< sources an entrance
#define CONCOURSE_INSET 1.0f       ///< m from the wall to an entrance's sources
#define CONCOURSE_SINK_DEPTH 2.0f  ///< m from the wall into the hall
#define CONCOURSE_MARGIN 5.0f      ///< m of open world around the walls

/// The hall's frame: wall w's inward normal u (0 west, 1 south, 2 east,
/// 3 north) and along it v (u turned a quarter left); the entrance is at
/// +h/2 along v, the exit at -h/2. The walkers of wall w's entrance leave
/// by the exit of the wall across (w + 2), whose -v is this +v.
static const throng_vec2 concourse_inward[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};

typedef struct concourse_layout {
	uint32_t n;         ///< walkers at the start
	float h;            ///< half the side (m)
	uint32_t archetype;
} concourse_layout;

/// Where door j of the k of an entrance is centred along v from its wall's
/// middle (the exit's door j at minus that): the entrance's half of the
/// wall cut into k equal stretches, a door in the middle of each (k = 1:
/// h / 2, the half's middle).
static float concourse_door_at(float h, uint32_t j, uint32_t k)
{
	return h * ((float)j + 0.5f) / (float)k;
}

/// The lane of wall w's entrance door centred at c at the start, corners
/// lo and hi: across the hall from 1 m past the sources to 1 m before the
/// exit's sink, the door's width.
static void concourse_lane(float h, float door, float c, uint32_t w, throng_vec2* lo, throng_vec2* hi)
{
	const throng_vec2 u = concourse_inward[w], v = {-u.y, u.x};
	const throng_vec2 mid = {-u.x * h, -u.y * h};
	const throng_vec2 a = thr_crowd_at(u, v, CONCOURSE_INSET + 1.0f, c - 0.5f * door);
	const throng_vec2 b = thr_crowd_at(u, v, 2.0f * h - CONCOURSE_SINK_DEPTH - 1.0f, c + 0.5f * door);
	*lo = (throng_vec2){mid.x + fminf(a.x, b.x), mid.y + fminf(a.y, b.y)};
	*hi = (throng_vec2){mid.x + fmaxf(a.x, b.x), mid.y + fmaxf(a.y, b.y)};
}

/// Walker i at points[i]: a quarter of the walkers a lane, in order; its
/// goal the point of the exit across at its lateral place.
static void concourse_make(const void* params, const throng_vec2* points, uint32_t i, throng_agent_def* def)
{
	const concourse_layout* L = params;
	uint32_t w = 3;
	while (w > 0 && i < (uint32_t)((uint64_t)w * L->n / 4u)) { // lane w holds [w n / 4, (w + 1) n / 4)
		--w;
	}
	const throng_vec2 u = concourse_inward[w], p = points[i];
	const throng_vec2 goal = {u.x != 0.0f ? u.x * L->h : p.x, u.y != 0.0f ? u.y * L->h : p.y};
	*def = thr_crowd_pedestrian(p, goal, u, L->archetype);
	def->group = w;
}

static const char* const concourse_walls[4] = {"west", "south", "east", "north"};

/// Door j of the `doors` of wall w's entrance and of its exit, each
/// `door` wide: the exit's sink, and the entrance's `lanes` sources side
/// by side, each `rate` walkers a second, each walker bound straight across
/// to the exit wall. A wall of one door names them
/// "west_exit" and "west_in_0" to "west_in_3"; of several, "west_exit_1"
/// and "west_in_1_0" for door 1.
static throng_status concourse_door(throng_scene* scene, uint32_t w, uint32_t j, uint32_t doors, uint32_t lanes,
                                    float h, float door, float rate, uint32_t archetype, const throng_agent_def* body)
{
	const throng_vec2 u = concourse_inward[w], v = {-u.y, u.x};
	const throng_vec2 mid = {-u.x * h, -u.y * h}; // the wall's middle
	const float c = concourse_door_at(h, j, doors);
	char door_name[16] = "";
	if (doors > 1) {
		snprintf(door_name, sizeof door_name, "_%u", j);
	}
	throng_zone_def sink = throng_zone_default_def();
	sink.shape = THRONG_ZONE_BOX;
	const throng_vec2 a = thr_crowd_at(u, v, 0.0f, -c - 0.5f * door);
	const throng_vec2 b = thr_crowd_at(u, v, CONCOURSE_SINK_DEPTH, -c + 0.5f * door);
	sink.min = (throng_vec2){mid.x + fminf(a.x, b.x), mid.y + fminf(a.y, b.y)};
	sink.max = (throng_vec2){mid.x + fmaxf(a.x, b.x), mid.y + fmaxf(a.y, b.y)};
	sink.sink = true;
	snprintf(sink.name, sizeof sink.name, "%s_exit%s", concourse_walls[w], door_name);
	throng_status st = thr_scene_add_zone(scene, &sink);
	for (uint32_t lane = 0; lane < lanes && st == THRONG_OK; ++lane) {
		// Lane `lane` of the door, from its -v end.
		const float s0 = c - 0.5f * door + door * (float)lane / (float)lanes;
		const float s1 = s0 + door / (float)lanes;
		throng_source_def src = throng_source_default_def();
		src.shape = THRONG_SOURCE_SEGMENT;
		const throng_vec2 f = thr_crowd_at(u, v, CONCOURSE_INSET, s0), t = thr_crowd_at(u, v, CONCOURSE_INSET, s1);
		src.from = (throng_vec2){mid.x + f.x, mid.y + f.y};
		src.to = (throng_vec2){mid.x + t.x, mid.y + t.y};
		src.rate = rate;
		src.agent = *body;
		src.agent.archetype = archetype;
		src.agent.group = w;
		src.agent.target = (throng_vec2){u.x * (2.0f * h - CONCOURSE_INSET), u.y * (2.0f * h - CONCOURSE_INSET)};
		src.relative_target = true; // straight across, to the exit wall
		snprintf(src.name, sizeof src.name, "%s_in%s_%u", concourse_walls[w], door_name, lane);
		st = thr_scene_add_source(scene, &src);
	}
	return st;
}

throng_status thr_concourse_build(throng_scene* scene, const throng_scene_def* o)
{
	const uint32_t n = scene->agents;
	const throng_agent_def body = throng_agent_pedestrian_def();
	const float side = fmaxf(sqrtf((float)n / CONCOURSE_DENSITY), CONCOURSE_MIN_SIDE);
	const float h = 0.5f * side, entrance = fmaxf(CONCOURSE_DOOR_SHARE * side, CONCOURSE_MIN_DOOR);
	// A world holds THRONG_MAX_SOURCES sources, 16 a wall, shared out among
	// the doors (4 lanes a door up to 4 doors, then fewer), and
	// THRONG_MAX_ZONES zones, 15 sinks a wall: past 15 doors, over about
	// 9 10^5 walkers, the doors widen instead.
	const uint32_t per_wall = THRONG_MAX_SOURCES / 4u;
	const uint32_t doors = (uint32_t)fminf(ceilf(entrance / CONCOURSE_DOOR_MOST), (float)(THRONG_MAX_ZONES / 4));
	const uint32_t lanes = doors * CONCOURSE_LANES <= per_wall ? CONCOURSE_LANES : per_wall / doors;
	const float door = entrance / (float)doors;
	const float crossing = side / body.max_speed;
	const float rate = (float)n / (4.0f * crossing) / (float)(lanes * doors);
	const throng_vec2 lo = {-h - CONCOURSE_MARGIN, -h - CONCOURSE_MARGIN}, hi = {h + CONCOURSE_MARGIN, h + CONCOURSE_MARGIN};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_OPEN);
	uint32_t archetype = 0;
	if (st == THRONG_OK) {
		throng_controller ctl = throng_controller_pedestrian_def(THRONG_ARRIVE);
		st = thr_scene_add_archetype(scene, "pedestrian", &ctl, &archetype);
	}
	const throng_vec2 corner[4] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
	for (int k = 0; k < 4 && st == THRONG_OK; ++k) {
		st = thr_scene_add_wall(scene, corner[k], corner[(k + 1) % 4]);
	}
	for (uint32_t w = 0; w < 4 && st == THRONG_OK; ++w) {
		for (uint32_t j = 0; j < doors && st == THRONG_OK; ++j) {
			st = concourse_door(scene, w, j, doors, lanes, h, door, rate, archetype, &body);
		}
	}
	// The walkers at the start, lane by lane.
	concourse_layout L = {n, h, archetype};
	throng_vec2* points = st == THRONG_OK ? malloc((size_t)(n > 0 ? n : 1u) * sizeof *points) : NULL;
	if (st == THRONG_OK && points == NULL) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "concourse: out of memory for %u walkers", n);
	}
	thr_spawn sp;
	if (st == THRONG_OK) {
		st = thr_spawn_init(&sp, "concourse", lo, hi, n, body.radius);
		const uint32_t key = thr_rng_key(o->seed);
		// A quarter of the walkers a wall's entrance, shared out among its
		// doors.
		for (uint32_t w = 0, first = 0; w < 4 && st == THRONG_OK; ++w) {
			const uint32_t end = (uint32_t)((uint64_t)(w + 1u) * n / 4u);
			for (uint32_t j = 0, from = first; j < doors && st == THRONG_OK; ++j) {
				const uint32_t to = first + (uint32_t)((uint64_t)(j + 1u) * (end - first) / doors);
				throng_vec2 a, b;
				concourse_lane(h, door, concourse_door_at(h, j, doors), w, &a, &b);
				st = thr_spawn_scatter(&sp, key, from, to - from, body.radius, a, b, points + from);
				from = to;
			}
			first = end;
		}
		thr_spawn_free(&sp);
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, concourse_make, &L, sizeof L, points);
	} else {
		free(points);
	}
	scene->goal_radius = 0.0f;
	return st;
}

// ---------------------------------------------------------------------------
// The `flows` measure: every walker from its source to its sink.
// ---------------------------------------------------------------------------

/// Room in the watch for ids below id_end (new entries NaN). False when out of memory.
static bool watch_room(thr_measure_state* m, uint32_t id_end)
{
	if (id_end <= m->watch_cap) {
		return true;
	}
	uint32_t cap = m->watch_cap > 0 ? 2u * m->watch_cap : 1024u;
	cap = cap < id_end ? id_end : cap;
	float* born = realloc(m->born, (size_t)cap * sizeof *born);
	if (born != NULL) {
		m->born = born;
	}
	float* free_time = realloc(m->free_time, (size_t)cap * sizeof *free_time);
	if (free_time != NULL) {
		m->free_time = free_time;
	}
	if (born == NULL || free_time == NULL) {
		return false;
	}
	for (uint32_t k = m->watch_cap; k < cap; ++k) {
		m->born[k] = NAN;
		m->free_time[k] = NAN;
	}
	m->watch_cap = cap;
	return true;
}

static void flows_after(const throng_scene* scene, thr_measure_state* m)
{
	const throng_world* w = scene->world;
	const throng_event* e = NULL;
	uint32_t n = 0;
	if (throng_world_events(w, &e, &n) != THRONG_OK || !watch_room(m, throng_world_id_end(w))) {
		return; // out of memory: the figures miss this step's walkers
	}
	const double dt = scene->dt;
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t id = e[k].agent;
		throng_agent_state a;
		if (e[k].kind == THRONG_EVENT_ADDED && e[k].source != THRONG_NO_SOURCE &&
		    throng_world_get_agent(w, id, &a) == THRONG_OK) {
			const float dx = a.target.x - a.position.x, dy = a.target.y - a.position.y;
			m->born[id] = (float)((double)e[k].step * dt);
			m->free_time[id] = sqrtf(dx * dx + dy * dy) / a.max_speed;
		} else if (e[k].kind == THRONG_EVENT_REMOVED && e[k].zone != THRONG_NO_ZONE && !isnan(m->born[id])) {
			const double ratio = ((double)e[k].step * dt - (double)m->born[id]) / (double)m->free_time[id];
			m->left++;
			m->late += ratio > THR_FLOW_LATE;
			m->worst = ratio > m->worst ? ratio : m->worst;
		}
	}
}

static uint32_t flows_outcome(const throng_scene* scene, const thr_measure_state* m, throng_scene_outcome* out,
                              uint32_t cap)
{
	const throng_view v = throng_world_view(scene->world);
	const double now = (double)scene->steps * scene->dt;
	double worst = m->worst;
	uint64_t late = m->late;
	for (uint32_t i = 0; i < v.count; ++i) {
		const uint32_t id = v.id[i];
		if (id < m->watch_cap && !isnan(m->born[id])) {
			const double ratio = (now - (double)m->born[id]) / (double)m->free_time[id];
			late += ratio > THR_FLOW_LATE;
			worst = ratio > worst ? ratio : worst;
		}
	}
	const throng_scene_outcome all[4] = {
		{"in_hall", (double)v.count}, {"left", (double)m->left}, {"late", (double)late}, {"worst_ratio", worst}};
	for (uint32_t k = 0; k < cap && k < 4; ++k) {
		out[k] = all[k];
	}
	return 4;
}

const thr_measure thr_flows_measure = {
	.name = "flows",
	.after = flows_after,
	.outcome = flows_outcome,
};
