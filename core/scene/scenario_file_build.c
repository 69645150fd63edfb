// SPDX-License-Identifier: MIT
// A scene's definition at run time: the one builder of built-in and file
// scenes (sf_build_into) makes the world from the definition, and the
// definition's script runs before each step (throng_scene_step). It sits
// above the scene object (scenario.c), whose calls it uses, and below the
// built-ins' creation and the files' loading, which call it.
//
// The scene owns the definition and the script's state (scene->def, freed
// with it), and gets the measure the model names attached. Placement follows
// the built-in scenarios exactly: positions and headings from closed-form
// layouts or from the counter-based generator keyed by (seed, agent id,
// draw) on THR_STREAM_SPAWN, random goals from THR_STREAM_GOAL with draws
// 2*round and 2*round+1, angles through the polynomial sin/cos. A file
// that describes a built-in scene therefore builds the same world, bit for
// bit (tests/test_scenario_file.c checks herd, circle and field).
//
// The script runs before each world step: the threat moves along its path
// (evaluated from the step counter in double, never accumulated, and handed
// to the world only while it is or was active, as the built-in threat
// line), the units get the orders due (from the step counter too), then
// agents within goal_radius of a random goal draw the next.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fmath.h"
#include "part.h"
#include "rng.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "vec.h"
#include "world_internal.h"

void throng_scene_part_goals(throng_scene* scene, const throng_agent_record* recs, uint32_t n)
{
	thr_definition* sd = scene != NULL ? &scene->def : NULL;
	if (sd == NULL || sd->goal == NULL) {
		return;
	}
	// A goal agent's target point is its goal: set at the spawn and by
	// every draw (the script, def_script).
	for (uint32_t k = 0; k < n; ++k) {
		const uint32_t id = recs[k].id;
		if (id < sd->goal_count && !isnan(sd->goal[id].x)) {
			sd->goal[id] = (throng_vec2){recs[k].tx, recs[k].ty};
		}
	}
}

// ---------------------------------------------------------------------------
// The script
// ---------------------------------------------------------------------------

/// Point `d` metres along the threat's path (past the end of an open path,
/// along its last segment), and the unit direction there.
static void threat_at(const thr_definition* sd, double d, double* px, double* py, double* ux, double* uy)
{
	const sf_path* p = &sd->model->threat.path;
	uint32_t segs = p->loop ? p->count : p->count - 1u;
	const double* cum = sd->threat_cum;
	uint32_t k = 0;
	while (k + 1u < segs && d >= cum[k + 1u]) {
		++k;
	}
	throng_vec2 a = p->points[k];
	throng_vec2 b = p->points[(k + 1u) % p->count];
	double dx = (double)b.x - (double)a.x, dy = (double)b.y - (double)a.y;
	double len = cum[k + 1u] - cum[k];
	*ux = len > 0.0 ? dx / len : 0.0;
	*uy = len > 0.0 ? dy / len : 0.0;
	double s = d - cum[k];
	*px = (double)a.x + *ux * s;
	*py = (double)a.y + *uy * s;
}

static throng_status threat_update(throng_scene* scene, thr_definition* sd)
{
	const sf_threat* t = &sd->model->threat;
	if (t->kind == SF_THREAT_NONE || t->kind == SF_THREAT_EXTERNAL) {
		return THRONG_OK; // none, or the program's own (throng_world_set_threat)
	}
	double time = (double)scene->steps * scene->dt;
	bool was_active = scene->threat_active;
	bool active = false;
	throng_vec2 p = t->kind == SF_THREAT_PATH ? t->path.points[0] : t->position;
	throng_vec2 v = {0.0f, 0.0f};
	if (t->kind == SF_THREAT_LINE) {
		// A straight line at constant velocity, inside a box (herd): the
		// path is a line through the box, so once it has left it never
		// comes back; "inside" is inclusive.
		v = t->velocity;
		if (time >= (double)t->start) {
			double s = time - (double)t->start;
			p.x = (float)((double)t->position.x + (double)t->velocity.x * s);
			p.y = (float)((double)t->position.y + (double)t->velocity.y * s);
			active = p.x >= t->active_min.x && p.x <= t->active_max.x && p.y >= t->active_min.y &&
			         p.y <= t->active_max.y;
		}
	} else if (time >= (double)t->start) {
		active = true;
		if (t->kind == SF_THREAT_PATH) {
			uint32_t segs = t->path.loop ? t->path.count : t->path.count - 1u;
			double total = sd->threat_cum[segs];
			double d = (double)t->speed * (time - (double)t->start);
			if (t->path.loop && total > 0.0) {
				d = fmod(d, total);
			} else if (d > total) {
				active = false; // it has walked off the end of its path
			}
			double px, py, ux, uy;
			threat_at(sd, d, &px, &py, &ux, &uy);
			p = (throng_vec2){(float)px, (float)py};
			v = (throng_vec2){(float)(ux * (double)t->speed), (float)(uy * (double)t->speed)};
		}
	}
	if (!active && !was_active) {
		return THRONG_OK; // nothing to tell the world
	}
	scene->threat_active = active;
	scene->threat_position = p;
	scene->threat_velocity = active ? v : (throng_vec2){0.0f, 0.0f};
	return throng_world_set_threat(scene->world, p, scene->threat_velocity, active);
}

/// Goal number `round` of agent `id`, uniform in [lo, hi] (a group's or the rows' random goals).
static void random_goal_in(const thr_definition* sd, throng_vec2 lo, throng_vec2 hi, uint32_t id, uint32_t round,
                           float* x, float* y)
{
	float ux = thr_bits_to_unit(thr_rng_bits(sd->key, id, 2u * round, THR_STREAM_GOAL));
	float uy = thr_bits_to_unit(thr_rng_bits(sd->key, id, 2u * round + 1u, THR_STREAM_GOAL));
	*x = lo.x + (hi.x - lo.x) * ux;
	*y = lo.y + (hi.y - lo.y) * uy;
}

/// The group of agent `id` (groups hold consecutive ids).
static const sf_group* group_of(const thr_definition* sd, uint32_t id)
{
	uint32_t lo = 0, hi = sd->model->group_count;
	while (hi - lo > 1u) {
		uint32_t mid = (lo + hi) / 2u;
		if (sd->first_id[mid] <= id) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return &sd->model->groups[lo];
}

/// The definition's per-step script: the threat, the units' orders due
/// (scenario_file_orders.c), then agents' random goals.
static throng_status def_script(throng_scene* scene)
{
	thr_definition* sd = &scene->def;
	throng_status st = threat_update(scene, sd);
	if (st == THRONG_OK) {
		st = sf_give_orders(scene);
	}
	if (st != THRONG_OK || sd->goal == NULL) {
		return st;
	}
	// Agents within the goal radius of a random goal draw the next one.
	// The view lists agents in storage order; goals are kept by id.
	throng_view v = throng_world_view(scene->world);
	if (v.count > sd->reached_cap) {
		uint8_t* p = realloc(sd->reached, v.count);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_scene_step: out of memory for the goals");
		}
		sd->reached = p;
		sd->reached_cap = v.count;
	}
	uint32_t round = (uint32_t)scene->steps + 1u;
	const float r2 = scene->goal_radius * scene->goal_radius;
	// The check reads every agent's goal (by id: scattered), on the threads
	// the world stepped with (above the library's own threshold); the few
	// agents that reached theirs draw the next one after, in storage order
	// (a draw depends on the agent and the step only, so the order changes
	// nothing).
	const int threads = (int)throng_world_get_stats(scene->world).threads_last;
	const int64_t count = v.count;
	uint8_t* reached = sd->reached;
	const throng_vec2* goal = sd->goal;
	const uint32_t goals = sd->goal_count;
	const uint32_t* ids = v.id;
	const float *x = v.x, *y = v.y;
	uint32_t hits = 0;
	(void)threads; // without OpenMP
	// firstprivate: each thread's own copies, which its byte stores cannot alias.
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) reduction(+ : hits) \
	firstprivate(reached, goal, goals, ids, x, y, r2) if (count > THR_PARALLEL_MIN_AGENTS)
	for (int64_t k = 0; k < count; ++k) {
		const uint32_t id = ids[k];
		bool in = false;
		if (id < goals) { // the scene's agents: its world has room for no others
			const float dx = x[k] - goal[id].x;
			const float dy = y[k] - goal[id].y;
			in = dx * dx + dy * dy < r2; // false for an agent without a goal (NaN)
		}
		reached[k] = in;
		hits += in;
	}
	for (uint32_t k = 0; hits > 0 && k < v.count; ++k) {
		if (!reached[k]) {
			continue;
		}
		--hits;
		const uint32_t id = v.id[k];
		throng_vec2* g = &sd->goal[id];
		if (id >= sd->first_row) {
			random_goal_in(sd, sd->model->rows_goal_min, sd->model->rows_goal_max, id, round, &g->x, &g->y);
		} else {
			const sf_group* gr = group_of(sd, id);
			random_goal_in(sd, gr->goal_min, gr->goal_max, id, round, &g->x, &g->y);
		}
		st = throng_world_set_target(scene->world, id, *g);
		if (st != THRONG_OK) {
			return st;
		}
	}
	return THRONG_OK;
}

// ---------------------------------------------------------------------------
// Spawning
// ---------------------------------------------------------------------------

typedef struct spawn_job {
	const thr_definition* sd;
	const sf_group* g;
	uint32_t first;     ///< id of the group's first agent
	uint32_t archetype; ///< world archetype id
	uint32_t path;      ///< world path id or THRONG_NO_PATH
	uint32_t unit;      ///< world unit id or THRONG_NO_UNIT
} spawn_job;

static float unit_draw(uint32_t key, uint32_t id, uint32_t k)
{
	return thr_bits_to_unit(thr_rng_bits(key, id, k, THR_STREAM_SPAWN));
}

/// normalize(v), or (0, 0) when v is (nearly) zero.
static throng_vec2 direction(throng_vec2 v)
{
	float len = v2_length(v);
	return len > THR_EPS ? v2_scale(v, 1.0f / len) : v2(0.0f, 0.0f);
}

/// Position of agent i of the group; *out_dir is the unit direction from
/// the shape's centre (exact for rings), and *center the centre.
static throng_vec2 place(const spawn_job* j, uint32_t i, uint32_t id, throng_vec2* out_dir, throng_vec2* center)
{
	const sf_spawn* s = &j->g->spawn;
	uint32_t n = j->g->count;
	uint32_t key = j->sd->key;
	throng_vec2 p = s->center;
	*center = s->center;
	*out_dir = v2(0.0f, 0.0f);
	switch (s->shape) {
	case SF_SHAPE_RING: {
		// The angle in double, then wrapped to [-pi, pi) for the polynomial
		// (as the built-in circle).
		double a = (double)s->angle + 6.283185307179586 * (double)i / (double)n;
		a = fmod(a, 6.283185307179586);
		if (a >= 3.141592653589793) {
			a -= 6.283185307179586;
		} else if (a < -3.141592653589793) {
			a += 6.283185307179586;
		}
		float sn, cs;
		thr_sincosf((float)a, &sn, &cs);
		p = v2(s->center.x + s->radius * cs, s->center.y + s->radius * sn);
		*out_dir = v2(cs, sn);
		return p;
	}
	case SF_SHAPE_DISC: {
		float r = s->radius * sqrtf(unit_draw(key, id, 0));
		float a = THR_TWO_PI * unit_draw(key, id, 1) - THR_PI;
		float sn, cs;
		thr_sincosf(a, &sn, &cs);
		p = v2(s->center.x + r * cs, s->center.y + r * sn);
		break;
	}
	case SF_SHAPE_RECTANGLE: {
		float hx = 0.5f * s->size.x, hy = 0.5f * s->size.y;
		p.x = (s->center.x - hx) + 2.0f * hx * unit_draw(key, id, 0);
		p.y = (s->center.y - hy) + 2.0f * hy * unit_draw(key, id, 1);
		break;
	}
	case SF_SHAPE_GRID: {
		uint32_t cols = n < s->columns ? n : s->columns;
		uint32_t rows = (n + cols - 1u) / cols;
		float col = (float)(i % cols) - 0.5f * (float)(cols - 1u);
		float row = (float)(i / cols) - 0.5f * (float)(rows - 1u);
		p = v2(s->center.x + col * s->spacing.x, s->center.y + row * s->spacing.y);
		if (s->jitter > 0.0f) {
			// A nudge of U(-jitter, jitter) per axis (draws 0 and 1).
			p.x += thr_bits_to_pm1(thr_rng_bits(key, id, 0, THR_STREAM_SPAWN)) * s->jitter;
			p.y += thr_bits_to_pm1(thr_rng_bits(key, id, 1, THR_STREAM_SPAWN)) * s->jitter;
		}
		break;
	}
	case SF_SHAPE_LINE: {
		float t = n > 1 ? (float)i / (float)(n - 1u) : 0.0f;
		p = v2(s->from.x + (s->to.x - s->from.x) * t, s->from.y + (s->to.y - s->from.y) * t);
		*center = v2(0.5f * (s->from.x + s->to.x), 0.5f * (s->from.y + s->to.y));
		break;
	}
	case SF_SHAPE_COUNT: break;
	}
	*out_dir = direction(v2_sub(p, *center));
	return p;
}

static void make_agent(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user)
{
	(void)scene;
	const spawn_job* j = user;
	const sf_group* g = j->g;
	uint32_t id = j->first + i;
	*def = throng_agent_default_def();
	throng_vec2 dir, center;
	def->position = place(j, i, id, &dir, &center);
	def->max_speed = g->max_speed;
	def->max_force = g->max_force;
	def->radius = g->radius;
	def->archetype = j->archetype;
	def->group = g->id;
	def->unit = j->unit;
	// With end_at_goal the group's agents hold consecutive paths of their own.
	def->path = j->path == THRONG_NO_PATH ? THRONG_NO_PATH : j->path + (g->path.end_at_goal ? i : 0u);
	switch (g->goal) {
	case SF_GOAL_NONE: break;
	case SF_GOAL_POINT: def->target = g->goal_point; break;
	case SF_GOAL_ANTIPODAL:
		// 2c - p written as -(p - 2c): with c = 0 it is exactly -p.
		def->target = v2(-(def->position.x - (center.x + center.x)), -(def->position.y - (center.y + center.y)));
		break;
	case SF_GOAL_RANDOM: def->target = j->sd->goal[id]; break;
	case SF_GOAL_OFFSET: def->target = v2_add(def->position, g->goal_offset); break;
	}
	throng_vec2 h = v2(0.0f, 0.0f);
	switch (g->heading) {
	case SF_HEADING_NONE: break;
	case SF_HEADING_RANDOM: {
		float a = THR_TWO_PI * unit_draw(j->sd->key, id, 2) - THR_PI;
		float sn, cs;
		thr_sincosf(a, &sn, &cs);
		h = v2(cs, sn);
		break;
	}
	case SF_HEADING_INWARD: h = v2(-dir.x, -dir.y); break;
	case SF_HEADING_OUTWARD: h = dir; break;
	case SF_HEADING_GOAL: h = direction(v2_sub(def->target, def->position)); break;
	case SF_HEADING_VECTOR: h = direction(g->heading_vector); break;
	case SF_HEADING_COUNT: break;
	}
	def->heading = h;
	if (g->speed > 0.0f) { // at rest the velocity stays (0, 0), not -0
		def->velocity = v2_scale(h, g->speed);
	}
	// speed <= max_speed, but a unit vector rounded up could carry the
	// velocity a hair past it: shave it back under.
	for (int k = 0; k < 8 && v2_length(def->velocity) > def->max_speed; ++k) {
		def->velocity = v2_scale(def->velocity, 1.0f - 1.0e-6f);
	}
}

// ---------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------

/// The agents after the groups: the rows, then the block.
typedef struct tail_job {
	thr_definition* sd;
} tail_job;

/// Agent first_row + i: row i of the model (sf_model_row), its archetype
/// mapped to the world's (world path k is paths[k], added first); a
/// row's first random goal is its target (draws 0 and 1 of its goal
/// stream when a built-in drew it).
static void make_tail(const throng_scene* scene, uint32_t i, throng_agent_def* def, const void* user)
{
	(void)scene;
	thr_definition* sd = ((const tail_job*)user)->sd;
	const sf_model* m = sd->model;
	sf_model_row(m, i, def);
	def->archetype = sd->archetype_id[def->archetype];
	if (sd->goal != NULL) {
		sd->goal[sd->first_row + i] = m->rows_random ? def->target : (throng_vec2){NAN, NAN};
	}
}

throng_status sf_build_fail(sf_ctx* c, throng_status st, sf_pos at, const char* section, const char* name)
{
	size_t mark = sf_push_key(c, section);
	if (name != NULL) {
		sf_push_key(c, name);
	}
	sf_error(c, at, "the library refuses it: %s (expected what the library accepts)", throng_last_error());
	sf_pop(c, mark);
	return st;
}

static throng_status build_shapes(sf_ctx* c, throng_scene* scene, const sf_model* m, sf_pos root)
{
	for (uint32_t k = 0; k < m->obstacle_count; ++k) {
		throng_status st = throng_world_add_obstacle(scene->world, m->obstacles[k].center, m->obstacles[k].radius, NULL);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, root, "obstacles", NULL);
		}
	}
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		const sf_wall* w = &m->walls[k];
		uint32_t segs = w->closed ? w->count : w->count - 1u;
		for (uint32_t s = 0; s < segs; ++s) {
			throng_status st =
				throng_world_add_wall(scene->world, w->points[s], w->points[(s + 1u) % w->count], NULL);
			if (st != THRONG_OK) {
				return sf_build_fail(c, st, root, "walls", NULL);
			}
		}
	}
	return THRONG_OK;
}

/// The zones and sources, each at its entry of the file when the library
/// refuses it.
static throng_status build_flows(sf_ctx* c, throng_scene* scene, const thr_definition* sd)
{
	const sf_model* m = sd->model;
	for (uint32_t k = 0; k < m->zone_count; ++k) {
		throng_zone_def d = m->zones[k].def;
		d.points = m->zones[k].points;
		d.point_count = m->zones[k].point_count;
		throng_status st = throng_world_add_zone(scene->world, &d, NULL);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, m->zones[k].pos, "zones", NULL);
		}
	}
	for (uint32_t k = 0; k < m->source_count; ++k) {
		throng_source_def d = m->sources[k].def;
		d.agent.archetype = sd->archetype_id[d.agent.archetype];
		throng_status st = throng_world_add_source(scene->world, &d, NULL);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, m->sources[k].pos, "sources", NULL);
		}
	}
	return THRONG_OK;
}

static throng_status build_threat(thr_definition* sd)
{
	const sf_threat* t = &sd->model->threat;
	if (t->kind != SF_THREAT_PATH) {
		return THRONG_OK;
	}
	uint32_t segs = t->path.loop ? t->path.count : t->path.count - 1u;
	sd->threat_cum = malloc(((size_t)segs + 1u) * sizeof *sd->threat_cum);
	if (sd->threat_cum == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for the threat path", sd->model->name);
	}
	sd->threat_cum[0] = 0.0;
	for (uint32_t k = 0; k < segs; ++k) {
		throng_vec2 a = t->path.points[k], b = t->path.points[(k + 1u) % t->path.count];
		double dx = (double)b.x - (double)a.x, dy = (double)b.y - (double)a.y;
		sd->threat_cum[k + 1u] = sd->threat_cum[k] + sqrt(dx * dx + dy * dy);
	}
	return THRONG_OK;
}

/// end_at_goal: one path per agent of group k, its waypoints then the
/// agent's goal; their ids are consecutive from sd->path_id[k].
static throng_status add_goal_paths(throng_scene* scene, thr_definition* sd, uint32_t k)
{
	const sf_group* g = &sd->model->groups[k];
	throng_vec2* pts = malloc(((size_t)g->path.count + 1u) * sizeof *pts);
	if (pts == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for a path", sd->model->name);
	}
	memcpy(pts, g->path.points, (size_t)g->path.count * sizeof *pts);
	spawn_job job = {sd, g, sd->first_id[k], 0, THRONG_NO_PATH, THRONG_NO_UNIT};
	throng_status st = THRONG_OK;
	for (uint32_t i = 0; i < g->count && st == THRONG_OK; ++i) {
		throng_agent_def def;
		make_agent(scene, i, &def, &job);
		pts[g->path.count] = def.target;
		uint32_t id = 0;
		st = throng_world_add_path(scene->world, pts, g->path.count + 1u, false, &id);
		if (i == 0) {
			sd->path_id[k] = id;
		}
	}
	free(pts);
	return st;
}

static throng_status build_agents(sf_ctx* c, throng_scene* scene, thr_definition* sd)
{
	const sf_model* m = sd->model;
	bool random = false;
	uint32_t first = 0;
	for (uint32_t k = 0; k < m->group_count; ++k) {
		sd->first_id[k] = first;
		first += m->groups[k].count;
		random = random || m->groups[k].goal == SF_GOAL_RANDOM;
	}
	sd->first_row = first;
	first += m->row_count + m->block.count;
	random = random || m->rows_random;
	// The paths list first: world path k is paths[k], as the rows say.
	for (uint32_t k = 0; k < m->path_count; ++k) {
		throng_status st = throng_world_add_path(scene->world, m->paths[k].points, m->paths[k].count,
		                                         m->paths[k].loop, NULL);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, m->rows_pos, "paths", NULL);
		}
	}
	if (random) {
		sd->goal = malloc((size_t)(first > 0 ? first : 1) * sizeof *sd->goal);
		if (sd->goal == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for %u goals", m->name, first);
		}
		sd->goal_count = first;
		for (uint32_t k = 0; k < m->group_count; ++k) {
			const sf_group* g = &m->groups[k];
			for (uint32_t i = 0; i < g->count; ++i) {
				uint32_t id = sd->first_id[k] + i;
				if (g->goal == SF_GOAL_RANDOM) {
					random_goal_in(sd, g->goal_min, g->goal_max, id, 0, &sd->goal[id].x, &sd->goal[id].y);
				} else {
					sd->goal[id].x = sd->goal[id].y = NAN;
				}
			}
		}
	}
	for (uint32_t k = 0; k < m->group_count; ++k) {
		const sf_group* g = &m->groups[k];
		sd->path_id[k] = THRONG_NO_PATH;
		throng_status st = THRONG_OK;
		if (g->path.count > 0 && !g->path.end_at_goal) {
			st = throng_world_add_path(scene->world, g->path.points, g->path.count, g->path.loop, &sd->path_id[k]);
		} else if (g->path.count > 0) {
			st = add_goal_paths(scene, sd, k);
		}
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, g->pos, "groups", g->name);
		}
	}
	// The units (a group with morale is one) before their soldiers.
	throng_status built = sf_build_units(c, scene, sd);
	if (built != THRONG_OK) {
		return built;
	}
	for (uint32_t k = 0; k < m->group_count; ++k) {
		spawn_job job = {sd, &m->groups[k], sd->first_id[k], sd->archetype_id[m->groups[k].archetype],
		                 sd->path_id[k], sd->unit_id[k]};
		throng_status st = thr_scene_spawn_batched(scene, m->groups[k].count, make_agent, &job);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, m->groups[k].pos, "groups", m->groups[k].name);
		}
	}
	// The rows and the block, in batches: their goals are set as they are made.
	tail_job tail = {sd};
	if (first > sd->first_row) {
		throng_status st = thr_scene_spawn_batched(scene, first - sd->first_row, make_tail, &tail);
		if (st != THRONG_OK) {
			return sf_build_fail(c, st, m->rows_pos, "agents", NULL);
		}
	}
	return THRONG_OK;
}

throng_status sf_build_into(sf_ctx* c, throng_scene* scene, sf_model* model, const throng_scene_def* opt,
                            sf_pos root)
{
	// A file's model becomes the scene's definition; a built-in's is the
	// scene's already (it stated it there).
	thr_definition* sd = &scene->def;
	if (model != sd->model) {
		sf_model_free(sd->model);
		*sd->model = *model;
		memset(model, 0, sizeof *model);
	}
	sf_model* m = sd->model;
	if (opt->seed != 1) {
		m->seed = opt->seed; // the options' seed replaces the file's
	}
	sd->key = thr_rng_key(m->seed);
	scene->agents = (uint32_t)m->agents;
	scene->goal_radius = m->goal_radius;

	throng_world_def def = thr_scene_world_def(opt, sf_model_capacity(m));
	sf_model_world_def(m, &def);
	throng_status st = throng_world_create(&def, &scene->world);
	if (st != THRONG_OK) {
		sf_build_fail(c, st, root, "world", NULL);
	}
	sd->archetype_id = calloc(m->archetype_count + 1u, sizeof *sd->archetype_id);
	sd->first_id = calloc(m->group_count + 1u, sizeof *sd->first_id);
	sd->path_id = calloc(m->group_count + 1u, sizeof *sd->path_id);
	sd->unit_id = calloc(m->group_count + 1u, sizeof *sd->unit_id);
	if (st == THRONG_OK &&
	    (sd->archetype_id == NULL || sd->first_id == NULL || sd->path_id == NULL || sd->unit_id == NULL)) {
		st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory", m->name);
	}
	for (uint32_t k = 0; k < m->archetype_count && st == THRONG_OK; ++k) {
		st = throng_world_add_archetype(scene->world, &m->archetypes[k].controller, &sd->archetype_id[k]);
		if (st != THRONG_OK) {
			sf_build_fail(c, st, m->archetypes[k].pos, "archetypes", m->archetypes[k].name);
		}
	}
	if (st == THRONG_OK) {
		st = build_shapes(c, scene, m, root);
	}
	if (st == THRONG_OK) {
		st = build_flows(c, scene, sd);
	}
	if (st == THRONG_OK) {
		st = build_threat(sd);
	}
	if (st == THRONG_OK) {
		st = build_agents(c, scene, sd);
	}
	if (st == THRONG_OK) {
		scene->dt = (double)throng_world_get_def(scene->world).dt;
		// Place the threat where the script has it before the first step.
		if (m->threat.kind == SF_THREAT_POINT || m->threat.kind == SF_THREAT_LINE) {
			scene->threat_position = m->threat.position;
		} else if (m->threat.kind == SF_THREAT_PATH) {
			scene->threat_position = m->threat.path.points[0];
		}
		st = threat_update(scene, sd);
	}
	if (st == THRONG_OK) {
		thr_scene_attach_measure(scene, m->measure); // what the definition says it is measured by
	}
	return st;
}

// ---------------------------------------------------------------------------
// Stepping
// ---------------------------------------------------------------------------

throng_status throng_scene_step(throng_scene* scene)
{
	if (scene == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_scene_step: scene is NULL");
	}
	throng_status st = def_script(scene);
	// A part world (core/part.h) holds some agents only: its driver samples
	// the whole world itself (throng_scene_sample_with).
	if (st == THRONG_OK && throng_scene_samples(scene) && scene->world->part == NULL) {
		scene->measure->sample(scene, &scene->measure_state);
	}
	if (st == THRONG_OK) {
		st = throng_world_step(scene->world);
	}
	if (st == THRONG_OK) {
		scene->steps++;
		if (scene->measure != NULL && scene->measure->after != NULL && scene->world->part == NULL) {
			scene->measure->after(scene, &scene->measure_state);
		}
	}
	return st;
}
