// SPDX-License-Identifier: MIT
// Scenario files, stage 4: a model back to YAML.
//
// Every field is written, defaults resolved, so a saved file says exactly
// what was simulated and reads the same under any later change of a
// default. Floats are printed with the fewest significant digits (6 to 9)
// that read back to the same bits; names are quoted,
// so that a name such as "null" or "-" stays a name.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "names.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"

/// The shortest float that reads back to the same bits (sf_format_float).
static void put_float(sf_out* o, float v)
{
	char buf[32];
	sf_format_float(buf, v);
	sf_put(o, "%s", buf);
}

static void put_vec(sf_out* o, throng_vec2 v)
{
	sf_put(o, "[");
	put_float(o, v.x);
	sf_put(o, ", ");
	put_float(o, v.y);
	sf_put(o, "]");
}

static void put_points(sf_out* o, const throng_vec2* p, uint32_t count)
{
	sf_put(o, "[");
	for (uint32_t k = 0; k < count; ++k) {
		sf_put(o, k == 0 ? "" : ", ");
		put_vec(o, p[k]);
	}
	sf_put(o, "]");
}

/// A double-quoted string (names and descriptions hold printable text only).
static void put_string(sf_out* o, const char* s)
{
	sf_put(o, "\"");
	for (; *s != '\0'; ++s) {
		if (*s == '"' || *s == '\\') {
			sf_put(o, "\\%c", *s);
		} else {
			sf_put(o, "%c", *s);
		}
	}
	sf_put(o, "\"");
}

/// The keys of a table as flow-mapping entries ("a: 1, b: [2, 3]"), in
/// the table's order: rows that `kind_bit` does not cover are left out
/// (0 keeps every row), and so are rows marked omit_zero whose value is 0;
/// a nested table is written as a flow mapping. `first` goes before the
/// first entry, `sep` before each other.
static void put_keys(sf_out* o, const sf_table* t, const void* base, uint32_t kind_bit, const char* first,
                     const char* sep)
{
	for (uint32_t k = 0; k < t->count; ++k) {
		const sf_key* key = &t->keys[k];
		char value[96];
		sf_format_value(key, base, value, sizeof value);
		if ((kind_bit != 0 && (key->kinds & kind_bit) == 0) || key->type == SF_T_OTHER ||
		    (key->omit_zero && strcmp(value, "0") == 0) ||
		    (key->omit_zero && strcmp(value, "false") == 0) || (key->written != NULL && !key->written(base))) {
			continue;
		}
		sf_put(o, "%s%s: ", first, key->name);
		if (key->type == SF_T_MAP) {
			sf_put(o, "{");
			put_keys(o, key->sub, base, 0, "", ", ");
			sf_put(o, "}");
		} else {
			sf_put(o, "%s", value);
		}
		first = sep;
	}
}

/// A rectangle as a flow mapping, {min: [x, y], max: [x, y]} (sf_box_table).
static void put_box(sf_out* o, throng_vec2 min, throng_vec2 max)
{
	const sf_box box = {min, max};
	sf_put(o, "{");
	put_keys(o, &sf_box_table, &box, 0, "", ", ");
	sf_put(o, "}");
}

static void put_archetypes(sf_out* o, const sf_model* m)
{
	sf_put(o, "archetypes:\n");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		const sf_archetype* a = &m->archetypes[k];
		const throng_controller* ctl = &a->controller;
		sf_put(o, "  ");
		put_string(o, a->name);
		sf_put(o, ":");
		put_keys(o, &sf_archetype_table, ctl, 0, "\n    ", "\n    ");
		sf_put(o, "\n");
		if (a->target_label || a->target_group != NULL) {
			sf_put(o, "    target_rule: {");
			if (a->target_label) {
				sf_put(o, "label: %u", ctl->target_rule.group);
			} else {
				sf_put(o, "group: ");
				put_string(o, a->target_group);
			}
			put_keys(o, &sf_target_rule_table, &ctl->target_rule, 0, ", ", ", ");
			sf_put(o, "}\n");
		}
		const throng_contact dc = throng_controller_default_def(ctl->mode).contact;
		if (ctl->contact.enabled != dc.enabled || ctl->contact.stiffness != dc.stiffness ||
		    ctl->contact.iterations != dc.iterations || ctl->contact.inelastic != dc.inelastic ||
		    ctl->contact.slip != dc.slip || ctl->contact.noise != dc.noise) {
			sf_put(o, "    contact: {");
			put_keys(o, &sf_contact_table, &ctl->contact, 0, "", ", ");
			sf_put(o, "}\n");
		}
		if (ctl->combat.enabled) {
			sf_put(o, "    combat: {");
			put_keys(o, &sf_combat_table, &ctl->combat, 0, "", ", ");
			sf_put(o, "}\n");
		}
		sf_put(o, "    slots:%s\n", ctl->slot_count == 0 ? " []" : "");
		for (uint32_t s = 0; s < ctl->slot_count; ++s) {
			const throng_slot* slot = &ctl->slots[s];
			sf_put(o, "      - {kind: %s", throng_behavior_kind_name(slot->kind));
			put_keys(o, &sf_slot_table, slot, 0, ", ", ", ");
			put_keys(o, &sf_param_table, &slot->params, 1u << slot->kind, ", ", ", ");
			sf_put(o, "}\n");
		}
	}
}

static void put_spawn(sf_out* o, const sf_spawn* s)
{
	sf_put(o, "    spawn: {shape: %s", sf_shape_names[s->shape]);
	put_keys(o, &sf_spawn_table, s, 1u << s->shape, ", ", ", ");
	sf_put(o, "}\n");
}

static void put_goal(sf_out* o, const sf_group* g)
{
	sf_put(o, "    goal: ");
	switch (g->goal) {
	case SF_GOAL_NONE: sf_put(o, "none"); break;
	case SF_GOAL_ANTIPODAL: sf_put(o, "antipodal"); break;
	case SF_GOAL_POINT: put_vec(o, g->goal_point); break;
	case SF_GOAL_RANDOM:
		sf_put(o, "{random: ");
		put_box(o, g->goal_min, g->goal_max);
		sf_put(o, "}");
		break;
	case SF_GOAL_OFFSET:
		sf_put(o, "{offset: ");
		put_vec(o, g->goal_offset);
		sf_put(o, "}");
		break;
	}
	sf_put(o, "\n");
}

/// A group, its keys in sf_group_table's order: the plain ones from the
/// table, the others (name references, shapes, choices, lists) here.
static void put_group(sf_out* o, const sf_model* m, const sf_group* g)
{
	sf_put(o, "  ");
	put_string(o, g->name);
	sf_put(o, ":\n");
	for (uint32_t k = 0; k < sf_group_table.count; ++k) {
		const sf_key* key = &sf_group_table.keys[k];
		if (key->type != SF_T_OTHER) {
			char value[96];
			sf_format_value(key, g, value, sizeof value);
			sf_put(o, "    %s: %s\n", key->name, value);
			continue;
		}
		switch (key->part) {
		case SF_GROUP_COUNT: sf_put(o, "    count: %u\n", g->count); break;
		case SF_GROUP_ARCHETYPE:
			sf_put(o, "    archetype: ");
			put_string(o, m->archetypes[g->archetype].name);
			sf_put(o, "\n");
			break;
		case SF_GROUP_SPAWN: put_spawn(o, &g->spawn); break;
		case SF_GROUP_HEADING:
			sf_put(o, "    heading: ");
			if (g->heading == SF_HEADING_VECTOR) {
				put_vec(o, g->heading_vector);
			} else {
				sf_put(o, "%s", sf_heading_names[g->heading]);
			}
			sf_put(o, "\n");
			break;
		case SF_GROUP_GOAL: put_goal(o, g); break;
		case SF_GROUP_PATH:
			if (g->path.count > 0) {
				sf_put(o, "    path: {waypoints: ");
				put_points(o, g->path.points, g->path.count);
				put_keys(o, &sf_path_table, &g->path, 0, ", ", ", ");
				sf_put(o, "}\n");
			}
			break;
		case SF_GROUP_MORALE:
			// Every morale field; the refuge when it has one, the rout
			// archetype when it names one (else the load makes it again).
			if (g->morale) {
				sf_put(o, "    morale: {");
				put_keys(o, &sf_morale_table, g, 0, "", ", ");
				if (g->rout_name != NULL) {
					sf_put(o, ", rout_archetype: ");
					put_string(o, m->archetypes[g->rout_archetype].name);
				}
				sf_put(o, "}\n");
			}
			break;
		case SF_GROUP_FORMATION:
			// Every formation field; the march archetype when it names one.
			if (g->formation) {
				sf_put(o, "    formation: {");
				put_keys(o, &sf_formation_table, g, 0, "", ", ");
				if (g->march_name != NULL) {
					sf_put(o, ", march_archetype: ");
					put_string(o, m->archetypes[g->march_archetype].name);
				}
				sf_put(o, "}\n");
			}
			break;
		case SF_GROUP_ORDERS:
			// One flow mapping a line, its order word first.
			if (g->order_count > 0) {
				sf_put(o, "    orders:\n");
			}
			for (uint32_t j = 0; j < g->order_count; ++j) {
				const sf_order* q = &g->orders[j];
				sf_put(o, "      - {order: %s", thr_order_kind_names.name[q->order.kind]);
				put_keys(o, &sf_order_table, q, 1u << q->order.kind, ", ", ", ");
				sf_put(o, "}\n");
			}
			break;
		default: break;
		}
	}
}

static void put_shapes(sf_out* o, const sf_model* m)
{
	sf_put(o, "obstacles:%s\n", m->obstacle_count == 0 ? " []" : "");
	for (uint32_t k = 0; k < m->obstacle_count; ++k) {
		sf_put(o, "  - {");
		put_keys(o, &sf_obstacle_table, &m->obstacles[k], 0, "", ", ");
		sf_put(o, "}\n");
	}
	sf_put(o, "walls:%s\n", m->wall_count == 0 ? " []" : "");
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		const sf_wall* w = &m->walls[k];
		sf_put(o, "  - ");
		if (w->segment) {
			put_points(o, w->points, w->count);
		} else {
			sf_put(o, "{points: ");
			put_points(o, w->points, w->count);
			sf_put(o, ", closed: %s}", w->closed ? "true" : "false");
		}
		sf_put(o, "\n");
	}
	const sf_threat* t = &m->threat;
	if (t->kind == SF_THREAT_POINT) {
		sf_put(o, "threat: {position: ");
		put_vec(o, t->position);
		sf_put(o, ", start: ");
		put_float(o, t->start);
		sf_put(o, "}\n");
	} else if (t->kind == SF_THREAT_EXTERNAL) {
		sf_put(o, "threat: {external: true}\n");
	} else if (t->kind == SF_THREAT_LINE) {
		sf_put(o, "threat: {line: {");
		put_keys(o, sf_key_find(&sf_threat_table, "line")->sub, t, 0, "", ", "); // from, velocity, active box
		sf_put(o, "}, start: ");
		put_float(o, t->start);
		sf_put(o, "}\n");
	} else if (t->kind == SF_THREAT_PATH) {
		sf_put(o, "threat: {path: ");
		put_points(o, t->path.points, t->path.count);
		sf_put(o, ", loop: %s, speed: ", t->path.loop ? "true" : "false");
		put_float(o, t->speed);
		sf_put(o, ", start: ");
		put_float(o, t->start);
		sf_put(o, "}\n");
	}
}

/// Version 2: the paths list and the agents' rows (agents.rows, then a
/// built-in's block, made row by row).
static void put_rows(sf_out* o, const sf_model* m)
{
	if (m->path_count > 0) {
		sf_put(o, "paths:\n");
		for (uint32_t k = 0; k < m->path_count; ++k) {
			sf_put(o, "  - {waypoints: ");
			put_points(o, m->paths[k].points, m->paths[k].count);
			sf_put(o, ", loop: %s}\n", m->paths[k].loop ? "true" : "false");
		}
	}
	const uint32_t rows = m->row_count + m->block.count;
	if (rows == 0) {
		return;
	}
	sf_put(o, "agents:\n");
	if (m->rows_random) {
		sf_put(o, "  goal: {random: ");
		put_box(o, m->rows_goal_min, m->rows_goal_max);
		sf_put(o, "}\n");
	}
	sf_put(o, "  # [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, archetype, group, path]\n  rows:\n");
	for (uint32_t k = 0; k < rows; ++k) {
		throng_agent_def row;
		sf_model_row(m, k, &row); // a built-in's block is made row by row as it is written
		const throng_agent_def* d = &row;
		const float f[11] = {d->position.x, d->position.y, d->velocity.x, d->velocity.y, d->heading.x, d->heading.y,
		                     d->target.x,   d->target.y,   d->max_speed,  d->max_force,  d->radius};
		sf_put(o, "    - [");
		for (int j = 0; j < 11; ++j) {
			put_float(o, f[j]);
			sf_put(o, ", ");
		}
		put_string(o, m->archetypes[d->archetype].name);
		sf_put(o, ", %u, ", d->group);
		if (d->path == THRONG_NO_PATH) {
			sf_put(o, "null]\n");
		} else {
			sf_put(o, "%u]\n", d->path);
		}
	}
}

/// Version 2: the measurement lines and areas.
static void put_measurements(sf_out* o, const sf_model* m)
{
	if (m->measure_line_count == 0 && m->measure_area_count == 0) {
		return;
	}
	sf_put(o, "measurements:\n");
	const sf_path* lists[2] = {m->measure_lines, m->measure_areas};
	const uint32_t counts[2] = {m->measure_line_count, m->measure_area_count};
	for (int j = 0; j < 2; ++j) {
		if (counts[j] == 0) {
			continue;
		}
		sf_put(o, "  %s:\n", j == 0 ? "lines" : "areas");
		for (uint32_t k = 0; k < counts[j]; ++k) {
			sf_put(o, "    - ");
			put_points(o, lists[j][k].points, lists[j][k].count);
			sf_put(o, "\n");
		}
	}
}

/// Version 2: the zones and the sources, each a flow mapping, its shape
/// first and then the rows that shape takes.
static void put_flows(sf_out* o, const sf_model* m)
{
	if (m->zone_count > 0) {
		sf_put(o, "zones:\n");
	}
	for (uint32_t k = 0; k < m->zone_count; ++k) {
		const sf_zone* z = &m->zones[k];
		sf_put(o, "  - {shape: %s", throng_zone_shape_name(z->def.shape));
		if (z->def.name[0] != '\0') {
			sf_put(o, ", name: %s", z->def.name);
		}
		put_keys(o, &sf_zone_table, z, 1u << z->def.shape, ", ", ", ");
		if (z->def.shape == THRONG_ZONE_POLYGON) {
			sf_put(o, ", points: ");
			put_points(o, z->points, z->point_count);
		}
		sf_put(o, "}\n");
	}
	if (m->source_count > 0) {
		sf_put(o, "sources:\n");
	}
	for (uint32_t k = 0; k < m->source_count; ++k) {
		const sf_source* s = &m->sources[k];
		sf_put(o, "  - {shape: %s", throng_source_shape_name(s->def.shape));
		if (s->def.name[0] != '\0') {
			sf_put(o, ", name: %s", s->def.name);
		}
		put_keys(o, &sf_source_table, s, 1u << s->def.shape, ", ", ", ");
		if (isfinite(s->def.stop)) {
			sf_put(o, ", stop: ");
			put_float(o, s->def.stop);
		}
		sf_put(o, ", archetype: %s}\n", m->archetypes[s->def.agent.archetype].name);
	}
}

throng_status sf_save_model(const sf_model* m, const char* header, char** text, size_t* length)
{
	sf_out o = {NULL, 0, 0, false};
	sf_put(&o, "# throng scenario, saved with every field explicit (docs/SCENARIOS.md)\n");
	if (header != NULL && header[0] != '\0') {
		// One comment line per line of the caller's header.
		for (const char* line = header; *line != '\0';) {
			const char* end = strchr(line, '\n');
			size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
			sf_put(&o, "# %.*s\n", (int)len, line);
			line += len + (end != NULL ? 1u : 0u);
		}
	}
	sf_put(&o, "version: %u\nname: ", m->version == 2 ? 2u : 1u);
	put_string(&o, m->name);
	sf_put(&o, "\ndescription: ");
	put_string(&o, m->description);
	sf_put(&o, "\nsteps: %llu\ngoal_radius: ", (unsigned long long)m->steps);
	put_float(&o, m->goal_radius);
	if (m->measure != NULL) {
		sf_put(&o, "\nmeasure: %s", m->measure->name);
	}
	sf_put(&o, "\nworld:");
	put_keys(&o, &sf_world_table, m, 0, "\n  ", "\n  ");
	sf_put(&o, "\n");
	put_archetypes(&o, m);
	if (m->group_count > 0) {
		sf_put(&o, "groups:\n");
	}
	for (uint32_t k = 0; k < m->group_count; ++k) {
		put_group(&o, m, &m->groups[k]);
	}
	put_shapes(&o, m);
	put_rows(&o, m);
	put_measurements(&o, m);
	put_flows(&o, m);
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
