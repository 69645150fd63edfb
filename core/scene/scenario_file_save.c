// SPDX-License-Identifier: MIT
// Scenario files, stage 4: a model back to YAML.
//
// Every field is written, defaults resolved, so a saved file says exactly
// what was simulated and reads the same under any later change of a
// default. Floats are printed with the fewest significant digits (6 to 9)
// that read back to the same bits; names are quoted,
// so that a name such as "null" or "-" stays a name.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"

typedef struct out_buf {
	char* text;
	size_t len, cap;
	bool failed;
} out_buf;

static void put(out_buf* o, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void put(out_buf* o, const char* fmt, ...)
{
	if (o->failed) {
		return;
	}
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(o->text + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->failed = true;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = o->cap * 2u + (size_t)n;
		char* t = realloc(o->text, cap);
		if (t == NULL) {
			o->failed = true;
			return;
		}
		o->text = t;
		o->cap = cap;
	}
}

/// The shortest of %.6g .. %.9g that reads back (strtof) to the same
/// bits: 0.4f prints as 0.4, not 0.400000006.
static void put_float(out_buf* o, float v)
{
	char buf[32];
	for (int digits = 6; digits <= 9; ++digits) {
		snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
		float back = strtof(buf, NULL);
		if (memcmp(&back, &v, sizeof v) == 0) {
			break;
		}
	}
	put(o, "%s", buf);
}

static void put_vec(out_buf* o, throng_vec2 v)
{
	put(o, "[");
	put_float(o, v.x);
	put(o, ", ");
	put_float(o, v.y);
	put(o, "]");
}

static void put_points(out_buf* o, const throng_vec2* p, uint32_t count)
{
	put(o, "[");
	for (uint32_t k = 0; k < count; ++k) {
		put(o, k == 0 ? "" : ", ");
		put_vec(o, p[k]);
	}
	put(o, "]");
}

/// A double-quoted string (names and descriptions hold printable text only).
static void put_string(out_buf* o, const char* s)
{
	put(o, "\"");
	for (; *s != '\0'; ++s) {
		if (*s == '"' || *s == '\\') {
			put(o, "\\%c", *s);
		} else {
			put(o, "%c", *s);
		}
	}
	put(o, "\"");
}

static void put_param(out_buf* o, sf_param p, const throng_behavior_params* v)
{
	put(o, ", %s: ", sf_param_names[p]);
	switch (p) {
	case SF_P_TARGET: put(o, "%s", throng_target_source_name(v->target)); return;
	case SF_P_FLEE_MODE: put(o, "%s", throng_flee_mode_name(v->flee_mode)); return;
	case SF_P_FRAME: put(o, "%s", throng_wander_frame_name(v->frame)); return;
	case SF_P_SAME_GROUP_ONLY: put(o, "%s", v->same_group_only ? "true" : "false"); return;
	case SF_P_MAX_NEIGHBORS: put(o, "%u", v->max_neighbors); return;
	case SF_P_FLEE_RADIUS: put_float(o, v->flee_radius); return;
	case SF_P_SLOW_RADIUS: put_float(o, v->slow_radius); return;
	case SF_P_EVADE_RADIUS: put_float(o, v->evade_radius); return;
	case SF_P_MAX_PREDICTION: put_float(o, v->max_prediction); return;
	case SF_P_CIRCLE_DISTANCE: put_float(o, v->circle_distance); return;
	case SF_P_CIRCLE_RADIUS: put_float(o, v->circle_radius); return;
	case SF_P_JITTER: put_float(o, v->jitter); return;
	case SF_P_NOISE_FREQUENCY: put_float(o, v->noise_frequency); return;
	case SF_P_NOISE_AMPLITUDE: put_float(o, v->noise_amplitude); return;
	case SF_P_LOOK_AHEAD: put_float(o, v->look_ahead); return;
	case SF_P_FEELER_ANGLE: put_float(o, v->feeler_angle); return;
	case SF_P_AVOID_RADIUS: put_float(o, v->avoid_radius); return;
	case SF_P_NEIGHBOR_RADIUS: put_float(o, v->neighbor_radius); return;
	case SF_P_MARGIN: put_float(o, v->margin); return;
	case SF_P_WAYPOINT_RADIUS: put_float(o, v->waypoint_radius); return;
	case SF_P_COUNT: return;
	}
}

static void put_archetypes(out_buf* o, const sf_model* m)
{
	put(o, "archetypes:\n");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		const sf_archetype* a = &m->archetypes[k];
		const throng_controller* ctl = &a->controller;
		put(o, "  ");
		put_string(o, a->name);
		put(o, ":\n    mode: %s\n", throng_blend_mode_name(ctl->mode));
		if (a->target_label) {
			put(o, "    target_rule: {label: %u, sight_radius: ", ctl->target_rule.group);
			put_float(o, ctl->target_rule.sight_radius);
			put(o, ", every: %u, enabled: %s}\n", ctl->target_rule.every, ctl->target_rule.enabled ? "true" : "false");
		} else if (a->target_group != NULL) {
			put(o, "    target_rule: {group: ");
			put_string(o, a->target_group);
			put(o, ", sight_radius: ");
			put_float(o, ctl->target_rule.sight_radius);
			put(o, ", every: %u, enabled: %s}\n", ctl->target_rule.every, ctl->target_rule.enabled ? "true" : "false");
		}
		const throng_contact dc = throng_controller_default_def(ctl->mode).contact;
		if (ctl->contact.enabled != dc.enabled || ctl->contact.stiffness != dc.stiffness ||
		    ctl->contact.iterations != dc.iterations || ctl->contact.inelastic != dc.inelastic) {
			put(o, "    contact: {enabled: %s, stiffness: ", ctl->contact.enabled ? "true" : "false");
			put_float(o, ctl->contact.stiffness);
			put(o, ", iterations: %u", ctl->contact.iterations);
			put(o, ctl->contact.inelastic ? ", inelastic: true}\n" : "}\n");
		}
		put(o, "    slots:%s\n", ctl->slot_count == 0 ? " []" : "");
		for (uint32_t s = 0; s < ctl->slot_count; ++s) {
			const throng_slot* slot = &ctl->slots[s];
			put(o, "      - {kind: %s, weight: ", throng_behavior_kind_name(slot->kind));
			put_float(o, slot->weight);
			put(o, ", enabled: %s, priority: %s", slot->enabled ? "true" : "false",
			    slot->priority ? "true" : "false");
			for (int p = 0; p < SF_P_COUNT; ++p) {
				// max_neighbors 0 (the default) is left out, as files written
				// before the key existed have it.
				if (sf_kind_has_param(slot->kind, (sf_param)p) &&
				    !(p == SF_P_MAX_NEIGHBORS && slot->params.max_neighbors == 0u)) {
					put_param(o, (sf_param)p, &slot->params);
				}
			}
			put(o, "}\n");
		}
	}
}

static void put_spawn(out_buf* o, const sf_spawn* s)
{
	put(o, "    spawn: {shape: %s", sf_shape_names[s->shape]);
	switch (s->shape) {
	case SF_SHAPE_RING:
	case SF_SHAPE_DISC:
		put(o, ", center: ");
		put_vec(o, s->center);
		put(o, ", radius: ");
		put_float(o, s->radius);
		if (s->shape == SF_SHAPE_RING) {
			put(o, ", angle: ");
			put_float(o, s->angle);
		}
		break;
	case SF_SHAPE_RECTANGLE:
		put(o, ", center: ");
		put_vec(o, s->center);
		put(o, ", size: ");
		put_vec(o, s->size);
		break;
	case SF_SHAPE_GRID:
		put(o, ", center: ");
		put_vec(o, s->center);
		put(o, ", spacing: ");
		put_vec(o, s->spacing);
		put(o, ", columns: %u, jitter: ", s->columns);
		put_float(o, s->jitter);
		break;
	case SF_SHAPE_LINE:
		put(o, ", from: ");
		put_vec(o, s->from);
		put(o, ", to: ");
		put_vec(o, s->to);
		break;
	case SF_SHAPE_COUNT: break;
	}
	put(o, "}\n");
}

static void put_group(out_buf* o, const sf_model* m, const sf_group* g)
{
	put(o, "  ");
	put_string(o, g->name);
	put(o, ":\n    count: %u\n    archetype: ", g->count);
	put_string(o, m->archetypes[g->archetype].name);
	put(o, "\n    id: %u\n", g->id);
	put_spawn(o, &g->spawn);
	put(o, "    max_speed: ");
	put_float(o, g->max_speed);
	put(o, "\n    max_force: ");
	put_float(o, g->max_force);
	put(o, "\n    radius: ");
	put_float(o, g->radius);
	put(o, "\n    speed: ");
	put_float(o, g->speed);
	put(o, "\n    heading: ");
	if (g->heading == SF_HEADING_VECTOR) {
		put_vec(o, g->heading_vector);
	} else {
		put(o, "%s", sf_heading_names[g->heading]);
	}
	put(o, "\n    goal: ");
	switch (g->goal) {
	case SF_GOAL_NONE: put(o, "none"); break;
	case SF_GOAL_ANTIPODAL: put(o, "antipodal"); break;
	case SF_GOAL_POINT: put_vec(o, g->goal_point); break;
	case SF_GOAL_RANDOM:
		put(o, "{random: {min: ");
		put_vec(o, g->goal_min);
		put(o, ", max: ");
		put_vec(o, g->goal_max);
		put(o, "}}");
		break;
	case SF_GOAL_OFFSET:
		put(o, "{offset: ");
		put_vec(o, g->goal_offset);
		put(o, "}");
		break;
	}
	put(o, "\n");
	if (g->path.count > 0) {
		put(o, "    path: {waypoints: ");
		put_points(o, g->path.points, g->path.count);
		put(o, ", loop: %s, end_at_goal: %s}\n", g->path.loop ? "true" : "false",
		    g->path.end_at_goal ? "true" : "false");
	}
}

static void put_shapes(out_buf* o, const sf_model* m)
{
	put(o, "obstacles:%s\n", m->obstacle_count == 0 ? " []" : "");
	for (uint32_t k = 0; k < m->obstacle_count; ++k) {
		put(o, "  - {center: ");
		put_vec(o, m->obstacles[k].center);
		put(o, ", radius: ");
		put_float(o, m->obstacles[k].radius);
		put(o, "}\n");
	}
	put(o, "walls:%s\n", m->wall_count == 0 ? " []" : "");
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		const sf_wall* w = &m->walls[k];
		put(o, "  - ");
		if (w->segment) {
			put_points(o, w->points, w->count);
		} else {
			put(o, "{points: ");
			put_points(o, w->points, w->count);
			put(o, ", closed: %s}", w->closed ? "true" : "false");
		}
		put(o, "\n");
	}
	const sf_threat* t = &m->threat;
	if (t->kind == SF_THREAT_POINT) {
		put(o, "threat: {position: ");
		put_vec(o, t->position);
		put(o, ", start: ");
		put_float(o, t->start);
		put(o, "}\n");
	} else if (t->kind == SF_THREAT_EXTERNAL) {
		put(o, "threat: {external: true}\n");
	} else if (t->kind == SF_THREAT_LINE) {
		put(o, "threat: {line: {from: ");
		put_vec(o, t->position);
		put(o, ", velocity: ");
		put_vec(o, t->velocity);
		put(o, ", active_min: ");
		put_vec(o, t->active_min);
		put(o, ", active_max: ");
		put_vec(o, t->active_max);
		put(o, "}, start: ");
		put_float(o, t->start);
		put(o, "}\n");
	} else if (t->kind == SF_THREAT_PATH) {
		put(o, "threat: {path: ");
		put_points(o, t->path.points, t->path.count);
		put(o, ", loop: %s, speed: ", t->path.loop ? "true" : "false");
		put_float(o, t->speed);
		put(o, ", start: ");
		put_float(o, t->start);
		put(o, "}\n");
	}
}

/// Version 2: the paths list and the agents' rows.
static void put_rows(out_buf* o, const sf_model* m)
{
	if (m->path_count > 0) {
		put(o, "paths:\n");
		for (uint32_t k = 0; k < m->path_count; ++k) {
			put(o, "  - {waypoints: ");
			put_points(o, m->paths[k].points, m->paths[k].count);
			put(o, ", loop: %s}\n", m->paths[k].loop ? "true" : "false");
		}
	}
	if (m->row_count == 0) {
		return;
	}
	put(o, "agents:\n");
	if (m->rows_random) {
		put(o, "  goal: {random: {min: ");
		put_vec(o, m->rows_goal_min);
		put(o, ", max: ");
		put_vec(o, m->rows_goal_max);
		put(o, "}}\n");
	}
	put(o, "  # [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, archetype, group, path]\n  rows:\n");
	for (uint32_t k = 0; k < m->row_count; ++k) {
		const throng_agent_def* d = &m->rows[k];
		const float f[11] = {d->position.x, d->position.y, d->velocity.x, d->velocity.y, d->heading.x, d->heading.y,
		                     d->target.x,   d->target.y,   d->max_speed,  d->max_force,  d->radius};
		put(o, "    - [");
		for (int j = 0; j < 11; ++j) {
			put_float(o, f[j]);
			put(o, ", ");
		}
		put_string(o, m->archetypes[d->archetype].name);
		put(o, ", %u, ", d->group);
		if (d->path == THRONG_NO_PATH) {
			put(o, "null]\n");
		} else {
			put(o, "%u]\n", d->path);
		}
	}
}

throng_status sf_save_model(const sf_model* m, const char* header, char** text, size_t* length)
{
	out_buf o = {NULL, 0, 0, false};
	o.cap = 4096;
	o.text = malloc(o.cap);
	if (o.text == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_scene_save: out of memory");
	}
	o.text[0] = '\0';
	put(&o, "# throng scenario, saved with every field explicit (docs/SCENARIOS.md)\n");
	if (header != NULL && header[0] != '\0') {
		// One comment line per line of the caller's header.
		for (const char* line = header; *line != '\0';) {
			const char* end = strchr(line, '\n');
			size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
			put(&o, "# %.*s\n", (int)len, line);
			line += len + (end != NULL ? 1u : 0u);
		}
	}
	put(&o, "version: %u\nname: ", m->version == 2 ? 2u : 1u);
	put_string(&o, m->name);
	put(&o, "\ndescription: ");
	put_string(&o, m->description);
	put(&o, "\nsteps: %llu\ngoal_radius: ", (unsigned long long)m->steps);
	put_float(&o, m->goal_radius);
	if (m->measure != NULL) {
		put(&o, "\nmeasure: %s", m->measure->name);
	}
	put(&o, "\nworld:\n  bounds: {min: ");
	put_vec(&o, m->bounds_min);
	put(&o, ", max: ");
	put_vec(&o, m->bounds_max);
	put(&o, ", mode: %s}\n  dt: ", throng_bounds_mode_name(m->bounds_mode));
	put_float(&o, m->dt);
	put(&o, "\n  seed: %llu\n  cell_size: ", (unsigned long long)m->seed);
	put_float(&o, m->cell_size);
	put(&o, "\n");
	put_archetypes(&o, m);
	if (m->group_count > 0) {
		put(&o, "groups:\n");
	}
	for (uint32_t k = 0; k < m->group_count; ++k) {
		put_group(&o, m, &m->groups[k]);
	}
	put_shapes(&o, m);
	put_rows(&o, m);
	if (o.failed) {
		free(o.text);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_scene_save: out of memory");
	}
	*text = o.text;
	if (length != NULL) {
		*length = o.len;
	}
	return THRONG_OK;
}
