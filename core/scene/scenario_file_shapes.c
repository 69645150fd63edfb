// SPDX-License-Identifier: MIT
// Scenario files: shapes. Obstacles (circles), walls (segments and
// polylines, each segment longer than the library's THR_MIN_WALL_LENGTH,
// 1e-4 m), the threat (a point, a path it follows at a speed from a start
// time, a line, or external), paths; and whether a group's spawn shape
// lies inside the world and has room for its agents.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "throng/measure.h"
#include "validate.h"
#include "vec.h"

static bool waypoints_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_path* p = base;
	(void)k;
	(void)map;
	// With end_at_goal each agent's goal is one more waypoint.
	return sf_read_points(c, v, 1, THRONG_MAX_WAYPOINTS - (p->end_at_goal ? 1u : 0u), &p->points, &p->count);
}

bool sf_parse_path(sf_ctx* c, const sf_node* n, sf_path* out)
{
	if (n->kind == SF_SEQUENCE) {
		return sf_read_points(c, n, 1, THRONG_MAX_WAYPOINTS, &out->points, &out->count);
	}
	return sf_read_table(c, n, &sf_path_table, out, waypoints_part) == 0;
}

static void read_obstacle(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_obstacle* ob = item;
	(void)key;
	(void)index;
	ob->radius = 1.0f;
	sf_read_table(c, v, &sf_obstacle_table, ob, NULL);
}

void sf_parse_obstacles(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->obstacles = sf_read_list(c, n, "a list of obstacles {center: [x, y], radius: r}", "obstacles",
	                            SF_MAX_OBSTACLES, sizeof *m->obstacles, &m->obstacle_count, read_obstacle);
}

/// Reports a segment from point a to b too short for the library; `at` is
/// b's node.
static void check_segment(sf_ctx* c, const sf_node* at, throng_vec2 a, throng_vec2 b)
{
	// The library's rule (validate.c), on the same float length.
	float len = v2_length(v2_sub(b, a));
	if (len > THR_MIN_WALL_LENGTH) {
		return;
	}
	char f[6][THR_FMT_FLOAT_CAP];
	sf_error(c, at->pos,
	         "too short a wall from (%s, %s) to (%s, %s): length %s m (expected end points more than %s m apart)",
	         thr_fmt_float(f[0], a.x), thr_fmt_float(f[1], a.y), thr_fmt_float(f[2], b.x), thr_fmt_float(f[3], b.y),
	         thr_fmt_float(f[4], len), thr_fmt_float(f[5], THR_MIN_WALL_LENGTH));
}

/// A polyline's points (after `closed`, which needs one more) and the
/// segments between them.
static bool points_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_wall* w = base;
	(void)k;
	(void)map;
	if (!sf_read_points(c, v, w->closed ? 3u : 2u, SF_MAX_SEGMENTS + 1u, &w->points, &w->count)) {
		return false;
	}
	for (uint32_t j = 1; j < w->count; ++j) {
		size_t mark = sf_push_index(c, j);
		check_segment(c, v->items[j], w->points[j - 1], w->points[j]);
		sf_pop(c, mark);
	}
	return true;
}

static void read_wall(sf_ctx* c, const sf_node* key, const sf_node* n, void* item, uint32_t index)
{
	sf_wall* w = item;
	(void)key;
	(void)index;
	if (n->kind != SF_SEQUENCE) {
		if (sf_read_table(c, n, &sf_wall_table, w, points_part) == 0 && w->closed) {
			size_t mark = sf_push_key(c, "closed");
			check_segment(c, sf_get(n, "closed"), w->points[w->count - 1], w->points[0]);
			sf_pop(c, mark);
		}
		return;
	}
	// A segment [[x, y], [x, y]].
	if (n->count != 2) {
		sf_error(c, n->pos, "got %u points (expected a segment [[x, y], [x, y]], or {points: [...]} for a polyline)",
		         n->count);
		return;
	}
	w->segment = true;
	if (sf_read_points(c, n, 2, 2, &w->points, &w->count)) {
		size_t mark = sf_push_index(c, 1);
		check_segment(c, n->items[1], w->points[0], w->points[1]);
		sf_pop(c, mark);
	}
}

void sf_parse_walls(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->walls = sf_read_list(c, n, "a list of walls", "walls", SF_MAX_SEGMENTS, sizeof *m->walls, &m->wall_count,
	                        read_wall);
	uint64_t segments = 0;
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		const sf_wall* w = &m->walls[k];
		segments += w->count > 0 ? w->count - 1u + (w->closed ? 1u : 0u) : 0u;
	}
	if (segments > SF_MAX_SEGMENTS) {
		sf_error(c, n->pos, "the walls hold %llu segments (expected at most %u)", (unsigned long long)segments,
		         SF_MAX_SEGMENTS);
	}
}

/// A measurement line: two distinct points.
static void read_measure_line(sf_ctx* c, const sf_node* key, const sf_node* n, void* item, uint32_t index)
{
	sf_path* p = item;
	(void)key;
	(void)index;
	if (sf_read_points(c, n, 2, 2, &p->points, &p->count) && p->points[0].x == p->points[1].x &&
	    p->points[0].y == p->points[1].y) {
		sf_error(c, n->pos, "both ends at (%g, %g) (expected a line of non-zero length)", (double)p->points[0].x,
		         (double)p->points[0].y);
	}
}

/// A measurement area: a simple polygon of non-zero area, as
/// throng_measure_add_area checks it.
static void read_measure_area(sf_ctx* c, const sf_node* key, const sf_node* n, void* item, uint32_t index)
{
	sf_path* p = item;
	(void)key;
	(void)index;
	if (!sf_read_points(c, n, 3, THRONG_MEASURE_MAX_VERTICES, &p->points, &p->count)) {
		return;
	}
	throng_measure* set = NULL;
	if (throng_measure_create(NULL, &set) != THRONG_OK) {
		sf_error(c, n->pos, "%s", throng_last_error());
		return;
	}
	if (throng_measure_add_area(set, p->points, p->count, NULL) != THRONG_OK) {
		const char* e = throng_last_error();
		const char* why = strstr(e, ": ");
		sf_error(c, n->pos, "%s (expected a simple polygon of non-zero area)", why != NULL ? why + 2 : e);
	}
	throng_measure_destroy(set);
}

static bool measurements_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_model* m = base;
	(void)map;
	if (k->part == 1) {
		m->measure_lines = sf_read_list(c, v, k->expect, "lines", SF_MAX_MEASURE_LINES, sizeof *m->measure_lines,
		                                &m->measure_line_count, read_measure_line);
	} else {
		m->measure_areas = sf_read_list(c, v, k->expect, "areas", SF_MAX_MEASURE_AREAS, sizeof *m->measure_areas,
		                                &m->measure_area_count, read_measure_area);
	}
	return true;
}

void sf_parse_measurements(sf_ctx* c, const sf_node* n, sf_model* m)
{
	sf_read_table(c, n, &sf_measurements_table, m, measurements_part);
}

static bool threat_path_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_threat* t = base;
	(void)map;
	return k->part != 1 || sf_read_points(c, v, 2, THRONG_MAX_WAYPOINTS, &t->path.points, &t->path.count);
}

void sf_parse_threat(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->threat.speed = 1.0f;
	sf_read_table(c, n, &sf_threat_table, &m->threat, threat_path_part);
}

// ---------------------------------------------------------------------------
// Room for a group's agents
// ---------------------------------------------------------------------------

/// Describes the group's spawn shape as the file wrote it ("a disc of
/// radius 2") into buf.
static void describe_shape(const sf_group* g, char* buf, size_t cap)
{
	const sf_spawn* s = &g->spawn;
	char f[4][THR_FMT_FLOAT_CAP];
	switch (s->shape) {
	case SF_SHAPE_RING:
	case SF_SHAPE_DISC:
		snprintf(buf, cap, "a %s of radius %s", s->shape == SF_SHAPE_RING ? "ring" : "disc",
		         thr_fmt_float(f[0], s->radius));
		return;
	case SF_SHAPE_RECTANGLE:
		snprintf(buf, cap, "a rectangle of size [%s, %s]", thr_fmt_float(f[0], s->size.x),
		         thr_fmt_float(f[1], s->size.y));
		return;
	case SF_SHAPE_GRID:
		snprintf(buf, cap, "a grid of %u columns, spacing [%s, %s] and jitter %s", s->columns,
		         thr_fmt_float(f[0], s->spacing.x), thr_fmt_float(f[1], s->spacing.y),
		         thr_fmt_float(f[2], s->jitter));
		return;
	case SF_SHAPE_LINE:
		snprintf(buf, cap, "a line from (%s, %s) to (%s, %s)", thr_fmt_float(f[0], s->from.x),
		         thr_fmt_float(f[1], s->from.y), thr_fmt_float(f[2], s->to.x), thr_fmt_float(f[3], s->to.y));
		return;
	case SF_SHAPE_COUNT: break;
	}
	snprintf(buf, cap, "the shape");
}

/// The area (m^2) the shape offers agents of radius r beyond one agent's
/// own pi r^2: the shape widened by r on every side (where the agents'
/// bodies can be when their centres are on the shape) less pi r^2. By
/// Steiner's formula a convex shape of area A and perimeter P widened by r
/// covers A + P r + pi r^2; a ring of radius R covers the annulus R +- r.
static double extra_room(const sf_group* g, double r)
{
	const sf_spawn* s = &g->spawn;
	const double pi = 3.141592653589793;
	double w = 0.0, h = 0.0;
	switch (s->shape) {
	case SF_SHAPE_RING:
		if ((double)s->radius >= r) {
			return pi * r * (4.0 * (double)s->radius - r); // 4 pi R r - pi r^2
		}
		return pi * (double)s->radius * ((double)s->radius + 2.0 * r); // as a disc
	case SF_SHAPE_DISC: return pi * (double)s->radius * ((double)s->radius + 2.0 * r);
	case SF_SHAPE_RECTANGLE:
		w = (double)s->size.x;
		h = (double)s->size.y;
		break;
	case SF_SHAPE_GRID: {
		// The lattice's hull, each point nudged up to jitter either way.
		uint32_t cols = g->count < s->columns ? g->count : s->columns;
		uint32_t rows = (g->count + cols - 1u) / cols;
		w = (double)(cols - 1u) * (double)s->spacing.x + 2.0 * (double)s->jitter;
		h = (double)(rows - 1u) * (double)s->spacing.y + 2.0 * (double)s->jitter;
		break;
	}
	case SF_SHAPE_LINE:
		// A segment: area 0, perimeter twice its length.
		w = hypot((double)s->to.x - (double)s->from.x, (double)s->to.y - (double)s->from.y);
		break;
	case SF_SHAPE_COUNT: break;
	}
	return w * h + 2.0 * (w + h) * r;
}

void sf_check_spawn(sf_ctx* c, const sf_model* m, sf_group* g)
{
	if (g->spawn.shape == SF_SHAPE_GRID && g->spawn.columns == 0 && g->count > 0) {
		uint32_t cols = (uint32_t)ceil(sqrt((double)g->count));
		g->spawn.columns = cols > 0 ? cols : 1;
	}
	if (g->count == 0) {
		return;
	}
	throng_vec2 lo, hi;
	sf_spawn_extent(g, &lo, &hi);
	if (m->bounds_mode != THRONG_BOUNDS_OPEN &&
	    (lo.x < m->bounds_min.x || lo.y < m->bounds_min.y || hi.x > m->bounds_max.x || hi.y > m->bounds_max.y)) {
		sf_error_at(c, "spawn", g->spawn_pos,
		            "the %s covers (%g, %g)..(%g, %g), outside the world (%g, %g)..(%g, %g) (expected every agent "
		            "inside the bounds, or bounds mode open)",
		            sf_shape_names[g->spawn.shape], (double)lo.x, (double)lo.y, (double)hi.x, (double)hi.y,
		            (double)m->bounds_min.x, (double)m->bounds_min.y, (double)m->bounds_max.x, (double)m->bounds_max.y);
	}
	// The shape widened by r must cover the first agent's body and half of
	// every other's: pi r^2 + (count - 1) pi r^2 / SF_SPAWN_DEPTH <= pi r^2
	// + extra. In whole agents: count - 1 <= floor(depth * extra / body).
	const double r = (double)g->radius;
	const double body = 3.141592653589793 * r * r;
	const double extra = extra_room(g, r);
	const double beyond = floor(SF_SPAWN_DEPTH * extra / body);
	if ((double)(g->count - 1u) <= beyond) {
		return;
	}
	unsigned long long room = 1ull + (unsigned long long)beyond; // < count <= THR_SCENE_MAX_AGENTS
	double need = body + (double)(g->count - 1u) * body / SF_SPAWN_DEPTH;
	char shape[160], f[3][THR_FMT_FLOAT_CAP];
	describe_shape(g, shape, sizeof shape);
	sf_error_at(c, "spawn", g->spawn_pos,
	            "%s has room for %llu agent%s of radius %s, not %u: widened by that radius it covers %s m^2, they need "
	            "%s m^2 (expected pi * radius^2 for the first agent and 1/%d of that for each other one: a larger "
	            "shape, fewer agents or a smaller radius)",
	            shape, room, room == 1 ? "" : "s", thr_fmt_float(f[0], g->radius), g->count,
	            thr_fmt_float(f[1], (float)(body + extra)), thr_fmt_float(f[2], (float)need), SF_SPAWN_DEPTH);
}
