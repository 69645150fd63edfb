// SPDX-License-Identifier: MIT
// Scenario files, stage 2c: obstacles (circles), walls (segments and
// polylines, each segment longer than the library's THR_MIN_WALL_LENGTH,
// 1e-4 m) and the threat (a point, or a path it follows at a speed from a
// start time); and whether a group's spawn shape has room for its agents.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "validate.h"
#include "vec.h"

// ---------------------------------------------------------------------------
// obstacles, walls, threat
// ---------------------------------------------------------------------------

void sf_parse_obstacles(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_sequence(c, n, "a list of obstacles {center: [x, y], radius: r}")) {
		return;
	}
	if (n->count > SF_MAX_OBSTACLES) {
		sf_error(c, n->pos, "got %u obstacles (expected at most %u)", n->count, SF_MAX_OBSTACLES);
		return;
	}
	m->obstacles = calloc(n->count != 0 ? n->count : 1, sizeof *m->obstacles);
	if (m->obstacles == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer obstacles)");
		return;
	}
	for (uint32_t k = 0; k < n->count; ++k) {
		size_t mark = sf_push_index(c, k);
		sf_obstacle* ob = &m->obstacles[m->obstacle_count++];
		ob->radius = 1.0f;
		sf_read_table(c, n->items[k], &sf_obstacle_table, ob);
		sf_pop(c, mark);
	}
}

/// Reports a segment from point a to b too short for the library; `at` is
/// b's node.
static bool segment_ok(sf_ctx* c, const sf_node* at, throng_vec2 a, throng_vec2 b)
{
	// The library's rule (validate.c), on the same float length.
	float len = v2_length(v2_sub(b, a));
	if (len > THR_MIN_WALL_LENGTH) {
		return true;
	}
	char f[6][THR_FMT_FLOAT_CAP];
	sf_error(c, at->pos,
	         "too short a wall from (%s, %s) to (%s, %s): length %s m (expected end points more than %s m apart)",
	         thr_fmt_float(f[0], a.x), thr_fmt_float(f[1], a.y), thr_fmt_float(f[2], b.x), thr_fmt_float(f[3], b.y),
	         thr_fmt_float(f[4], len), thr_fmt_float(f[5], THR_MIN_WALL_LENGTH));
	return false;
}

static void parse_wall(sf_ctx* c, const sf_node* n, sf_wall* w, uint64_t* segments)
{
	if (n->kind == SF_SEQUENCE) {
		// A segment [[x, y], [x, y]].
		if (n->count != 2) {
			sf_error(c, n->pos,
			         "got %u points (expected a segment [[x, y], [x, y]], or {points: [...]} for a polyline)",
			         n->count);
			return;
		}
		w->segment = true;
		if (sf_read_points(c, n, 2, 2, &w->points, &w->count)) {
			size_t mark = sf_push_index(c, 1);
			segment_ok(c, n->items[1], w->points[0], w->points[1]);
			sf_pop(c, mark);
			*segments += 1;
		}
		return;
	}
	if (!sf_expect_mapping(c, n, "a segment [[x, y], [x, y]] or a polyline {points: [...], closed: false}")) {
		return;
	}
	static const char* const keys[] = {"points", "closed"};
	sf_check_keys(c, n, keys, 2);
	sf_field_bool(c, n, "closed", &w->closed);
	const sf_node* pts = sf_get(n, "points");
	if (pts == NULL) {
		sf_missing(c, n, "points", "a list of 2 or more points [x, y]");
		return;
	}
	size_t mark = sf_push_key(c, "points");
	bool ok = sf_read_points(c, pts, w->closed ? 3u : 2u, SF_MAX_SEGMENTS + 1u, &w->points, &w->count);
	for (uint32_t k = 1; ok && k < w->count; ++k) {
		size_t mk = sf_push_index(c, k);
		segment_ok(c, pts->items[k], w->points[k - 1], w->points[k]);
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
	if (ok && w->closed) {
		const sf_node* closed = sf_get(n, "closed");
		mark = sf_push_key(c, "closed");
		segment_ok(c, closed, w->points[w->count - 1], w->points[0]);
		sf_pop(c, mark);
	}
	if (ok) {
		*segments += w->count - 1u + (w->closed ? 1u : 0u);
	}
}

void sf_parse_walls(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_sequence(c, n, "a list of walls")) {
		return;
	}
	if (n->count > SF_MAX_SEGMENTS) {
		sf_error(c, n->pos, "got %u walls (expected at most %u)", n->count, SF_MAX_SEGMENTS);
		return;
	}
	m->walls = calloc(n->count != 0 ? n->count : 1, sizeof *m->walls);
	if (m->walls == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer walls)");
		return;
	}
	uint64_t segments = 0;
	for (uint32_t k = 0; k < n->count; ++k) {
		size_t mark = sf_push_index(c, k);
		parse_wall(c, n->items[k], &m->walls[m->wall_count++], &segments);
		sf_pop(c, mark);
	}
	if (segments > SF_MAX_SEGMENTS) {
		sf_error(c, n->pos, "the walls hold %llu segments (expected at most %u)", (unsigned long long)segments,
		         SF_MAX_SEGMENTS);
	}
}

void sf_parse_threat(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_mapping(c, n, "a mapping with position, or path and speed")) {
		return;
	}
	sf_threat* t = &m->threat;
	static const char* const keys[] = {"position", "path", "speed", "loop", "start", "line", "external"};
	sf_check_keys(c, n, keys, 7);
	const sf_node* ext = sf_get(n, "external");
	if (ext != NULL) {
		// Version 2: the program running the scene sets the threat.
		size_t mark = sf_push_key(c, "external");
		bool on = false;
		if (n->count != 1u) {
			sf_error(c, ext->pos, "given with other keys (expected threat: {external: true} alone)");
		} else if (sf_read_bool(c, ext, &on) && !on) {
			sf_error(c, ext->pos, "got false (expected true, or no threat section)");
		} else if (on) {
			t->kind = SF_THREAT_EXTERNAL;
		}
		sf_pop(c, mark);
		return;
	}
	const sf_node* pos = sf_get(n, "position");
	const sf_node* path = sf_get(n, "path");
	const sf_node* line = sf_get(n, "line");
	t->speed = 1.0f;
	sf_field_number(c, n, "start", SF_NON_NEGATIVE, &t->start);
	if (line != NULL) {
		// Version 2: {from, velocity, active_min, active_max}, as the herd's.
		size_t mark = sf_push_key(c, "line");
		if (pos != NULL || path != NULL) {
			sf_error(c, line->pos, "both line and %s given (expected one of them)", pos != NULL ? "position" : "path");
		} else if (sf_expect_mapping(c, line, "{from: [x, y], velocity: [vx, vy], active_min: [x, y], "
		                                      "active_max: [x, y]}")) {
			static const char* const lk[] = {"from", "velocity", "active_min", "active_max"};
			sf_check_keys(c, line, lk, 4);
			bool ok = true;
			throng_vec2* dst[4] = {&t->position, &t->velocity, &t->active_min, &t->active_max};
			for (int k = 0; k < 4; ++k) {
				if (sf_get(line, lk[k]) == NULL) {
					sf_missing(c, line, lk[k], "a point [x, y]");
					ok = false;
				} else if (sf_field_vec2(c, line, lk[k], SF_COORD, dst[k]) < 0) {
					ok = false;
				}
			}
			if (ok) {
				t->kind = SF_THREAT_LINE;
			}
		}
		sf_pop(c, mark);
		return;
	}
	if (pos != NULL && path != NULL) {
		size_t mark = sf_push_key(c, "path");
		sf_error(c, path->pos, "both position and path given (expected one of them)");
		sf_pop(c, mark);
		return;
	}
	if (pos == NULL && path == NULL) {
		sf_missing(c, n, "position", "position: [x, y], or path: [[x, y], ...] with a speed");
		return;
	}
	if (pos != NULL) {
		t->kind = SF_THREAT_POINT;
		sf_field_vec2(c, n, "position", SF_COORD, &t->position);
		static const char* const path_only[] = {"speed", "loop"};
		for (int k = 0; k < 2; ++k) {
			const sf_node* v = sf_get(n, path_only[k]);
			if (v != NULL) {
				size_t mark = sf_push_key(c, path_only[k]);
				sf_error(c, v->pos, "only a threat with a path has a %s (expected path: [[x, y], ...])",
				         path_only[k]);
				sf_pop(c, mark);
			}
		}
		return;
	}
	t->kind = SF_THREAT_PATH;
	size_t mark = sf_push_key(c, "path");
	sf_read_points(c, path, 2, THRONG_MAX_WAYPOINTS, &t->path.points, &t->path.count);
	sf_pop(c, mark);
	sf_field_number(c, n, "speed", SF_POSITIVE, &t->speed);
	sf_field_bool(c, n, "loop", &t->path.loop);
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

void sf_check_spawn_room(sf_ctx* c, const sf_group* g)
{
	if (g->count == 0 || (g->spawn.shape == SF_SHAPE_GRID && g->spawn.columns == 0)) {
		return;
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
	size_t mark = sf_push_key(c, "spawn");
	sf_error(c, g->spawn_pos,
	         "%s has room for %llu agent%s of radius %s, not %u: widened by that radius it covers %s m^2, they need "
	         "%s m^2 (expected pi * radius^2 for the first agent and 1/%d of that for each other one: a larger "
	         "shape, fewer agents or a smaller radius)",
	         shape, room, room == 1 ? "" : "s", thr_fmt_float(f[0], g->radius), g->count,
	         thr_fmt_float(f[1], (float)(body + extra)), thr_fmt_float(f[2], (float)need), SF_SPAWN_DEPTH);
	sf_pop(c, mark);
}
