// SPDX-License-Identifier: MIT
// Scenario files, stage 2a: the model's defaults, the top level and the
// archetypes; the world, a slot's parameters and an archetype's contact
// are read against their key tables (scenario_file_keys.c). Obstacles,
// walls and the threat are in scenario_file_shapes.c; groups and the
// cross-checks in scenario_file_groups.c.
//
// Every section is read to the end even after a problem, so one pass
// reports every problem of the file; a value with a problem keeps its
// default, and checks that depend on it are skipped rather than piled on.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "scenario_internal.h"

void sf_model_defaults(sf_model* m, const char* file)
{
	memset(m, 0, sizeof *m);
	// The name defaults to the file's base name without its extension.
	const char* base = file != NULL ? file : "scene";
	const char* slash = strrchr(base, '/');
	base = slash != NULL ? slash + 1 : base;
	size_t len = strlen(base);
	const char* dot = strrchr(base, '.');
	if (dot != NULL && dot != base) {
		len = (size_t)(dot - base);
	}
	len = len > SF_NAME_MAX ? SF_NAME_MAX : len;
	m->name = malloc(len > 0 ? len + 1 : sizeof "scene");
	if (m->name != NULL && len == 0) {
		memcpy(m->name, "scene", sizeof "scene");
	} else if (m->name != NULL) {
		// A valid name (as the `name` key takes), so that a saved scene
		// loads again: other characters become '_'.
		for (size_t k = 0; k < len; ++k) {
			char ch = base[k];
			bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
			          ch == '-';
			m->name[k] = ok ? ch : '_';
		}
		m->name[len] = '\0';
	}
	m->description = calloc(1, 1);
	m->version = 1;
	m->steps = 600;
	m->goal_radius = -1.0f; // resolved by sf_check_model
	throng_world_def def = throng_world_default_def();
	m->bounds_min = def.bounds_min;
	m->bounds_max = def.bounds_max;
	m->bounds_mode = def.bounds_mode;
	m->dt = 1.0f / 60.0f;
	m->seed = 1;
	m->cell_size = 0.0f;
}

void sf_model_free(sf_model* m)
{
	if (m == NULL) {
		return;
	}
	free(m->name);
	free(m->description);
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		free(m->archetypes[k].name);
		free(m->archetypes[k].target_group);
	}
	free(m->archetypes);
	for (uint32_t k = 0; k < m->group_count; ++k) {
		free(m->groups[k].name);
		free(m->groups[k].archetype_name);
		free(m->groups[k].path.points);
	}
	free(m->groups);
	free(m->obstacles);
	for (uint32_t k = 0; k < m->wall_count; ++k) {
		free(m->walls[k].points);
	}
	free(m->walls);
	free(m->threat.path.points);
	for (uint32_t k = 0; k < m->path_count; ++k) {
		free(m->paths[k].points);
	}
	free(m->paths);
	free(m->rows);
	free(m->row_pos);
	memset(m, 0, sizeof *m);
}

// ---------------------------------------------------------------------------
// world
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// archetypes
// ---------------------------------------------------------------------------

/// Reads one slot; returns false when it has a problem. *kind_ok says
/// whether its kind was read (for the wander count).
static bool parse_slot(sf_ctx* c, const sf_node* n, throng_slot* out, bool* kind_ok)
{
	*kind_ok = false;
	if (!sf_expect_mapping(c, n, "a slot: a mapping with kind, weight, enabled, priority and parameters")) {
		return false;
	}
	uint32_t before = c->problems;
	const char* const* names = thr_behavior_kind_names.name;
	int kind = -1;
	const sf_node* kn = sf_get(n, "kind");
	if (kn != NULL) {
		size_t mark = sf_push_key(c, "kind");
		if (sf_read_enum(c, kn, names, thr_behavior_kind_names.count, "behaviour", &kind)) {
			*kind_ok = true;
		}
		sf_pop(c, mark);
	}
	// The keys a slot of this kind takes: its own (sf_slot_table) and the
	// parameters its behaviour reads (all of them when the kind is unknown,
	// so that only true typos are reported). A parameter of another
	// behaviour is named as such rather than as an unknown key.
	const char* lead[8];
	for (uint32_t k = 0; k < sf_slot_table.count; ++k) {
		lead[k] = sf_slot_table.keys[k].name;
	}
	sf_check_kind_keys(c, n, lead, sf_slot_table.count, &sf_param_table, kind);
	if (kn == NULL) {
		sf_missing(c, n, "kind", "a behaviour name");
	}
	throng_slot s = throng_slot_default_def(kind >= 0 ? (throng_behavior_kind)kind : THRONG_SEEK);
	sf_read_keys(c, n, &sf_slot_table, &s, 0);
	if (kind >= 0) {
		sf_read_keys(c, n, &sf_param_table, &s.params, 1u << kind);
	}
	*out = s;
	return c->problems == before;
}

static void parse_target_rule(sf_ctx* c, const sf_node* n, sf_archetype* a)
{
	if (!sf_expect_mapping(c, n, "a mapping of group, sight_radius, every and enabled")) {
		return;
	}
	sf_check_kind_keys(c, n, NULL, 0, &sf_target_rule_table, -1);
	throng_target_rule* r = &a->controller.target_rule;
	sf_target_rule_defaults(r);
	sf_read_keys(c, n, &sf_target_rule_table, r, 0);
	const sf_node* g = sf_get(n, "group");
	const sf_node* label = sf_get(n, "label");
	if (label != NULL) {
		// Version 2: a group label (agents.rows' group column), not a name.
		size_t mark = sf_push_key(c, "label");
		uint64_t v = 0;
		if (g != NULL) {
			sf_error(c, label->pos, "both group and label given (expected one of them)");
		} else if (sf_read_uint(c, label, 0, UINT32_MAX - 1u, false, &v)) {
			r->group = (uint32_t)v;
			a->target_label = true;
			a->target_group_pos = label->pos;
		}
		sf_pop(c, mark);
	} else if (g == NULL) {
		sf_missing(c, n, "group", "the name of a group under groups");
	} else {
		size_t mark = sf_push_key(c, "group");
		if (sf_check_name(c, g, "a group")) {
			a->target_group = malloc(g->len + 1);
			if (a->target_group != NULL) {
				memcpy(a->target_group, g->text, g->len + 1);
			}
			a->target_group_pos = g->pos;
		}
		sf_pop(c, mark);
	}
}

static void parse_archetype(sf_ctx* c, const sf_node* n, sf_archetype* a)
{
	a->controller = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	a->pos = n->pos;
	if (sf_read_table(c, n, &sf_archetype_table, &a->controller) >> 63 != 0) {
		return; // not a mapping
	}
	const sf_node* rule = sf_get(n, "target_rule");
	if (rule != NULL) {
		size_t mark = sf_push_key(c, "target_rule");
		parse_target_rule(c, rule, a);
		sf_pop(c, mark);
	}
	const sf_node* contact = sf_get(n, "contact");
	if (contact != NULL) {
		// Keys left out keep the defaults (on, 1, 4, off).
		size_t mark = sf_push_key(c, "contact");
		sf_read_table(c, contact, &sf_contact_table, &a->controller.contact);
		sf_pop(c, mark);
	}
	const sf_node* slots = sf_get(n, "slots");
	if (slots == NULL) {
		return;
	}
	size_t mark = sf_push_key(c, "slots");
	if (sf_expect_sequence(c, slots, "a list of slots")) {
		if (slots->count > THRONG_MAX_SLOTS) {
			sf_error(c, slots->pos, "got %u slots (expected at most %d)", slots->count, THRONG_MAX_SLOTS);
		}
		int wanders = 0, noises = 0;
		for (uint32_t k = 0; k < slots->count && k < THRONG_MAX_SLOTS; ++k) {
			size_t mk = sf_push_index(c, k);
			throng_slot s;
			bool kind_ok = false;
			parse_slot(c, slots->items[k], &s, &kind_ok);
			a->controller.slots[a->controller.slot_count++] = s;
			// Each wander form keeps one angle per agent (validate.c).
			if (kind_ok && ((s.kind == THRONG_WANDER && ++wanders == 2) ||
			                (s.kind == THRONG_WANDER_NOISE && ++noises == 2))) {
				size_t mkk = sf_push_key(c, "kind");
				sf_error(c, sf_get(slots->items[k], "kind")->pos,
				         "a second %s slot (expected at most one %s slot per archetype)",
				         throng_behavior_kind_name(s.kind), throng_behavior_kind_name(s.kind));
				sf_pop(c, mkk);
			}
			sf_pop(c, mk);
		}
	}
	sf_pop(c, mark);
}

static void parse_archetypes(sf_ctx* c, const sf_node* n, sf_model* m)
{
	if (!sf_expect_mapping(c, n, "a mapping from archetype names to archetypes")) {
		return;
	}
	if (n->count > SF_MAX_ARCHETYPES) {
		sf_error(c, n->pos, "got %u archetypes (expected at most %u)", n->count, SF_MAX_ARCHETYPES);
		return;
	}
	sf_check_names(c, n, "archetype");
	m->archetypes = calloc(n->count != 0 ? n->count : 1, sizeof *m->archetypes);
	if (m->archetypes == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer archetypes)");
		return;
	}
	for (uint32_t k = 0; k < n->count; ++k) {
		const sf_node* key = n->items[2u * k];
		sf_archetype* a = &m->archetypes[m->archetype_count++];
		if (key->kind == SF_SCALAR) {
			a->name = malloc(key->len + 1);
			if (a->name != NULL) {
				memcpy(a->name, key->text, key->len + 1);
			}
		}
		if (sf_key_repeats(n, k)) {
			continue;
		}
		size_t mark = sf_push_key(c, key->kind == SF_SCALAR ? key->text : "?");
		parse_archetype(c, n->items[2u * k + 1u], a);
		a->pos = key->pos;
		sf_pop(c, mark);
	}
}

// ---------------------------------------------------------------------------
// The top level
// ---------------------------------------------------------------------------

void sf_parse_model(sf_ctx* c, const sf_node* root, sf_model* m)
{
	if (!sf_expect_mapping(c, root, "a mapping with world, archetypes, groups, obstacles, walls and threat")) {
		return;
	}
	static const char* const keys[] = {"version", "name",   "description", "steps",  "goal_radius",
	                                   "measure", "world",  "archetypes",  "groups", "obstacles",
	                                   "walls",   "threat", "paths",       "agents"};
	sf_check_keys(c, root, keys, sizeof keys / sizeof keys[0]);
	const sf_node* v = sf_get(root, "version");
	if (v != NULL) {
		size_t mark = sf_push_key(c, "version");
		uint64_t version = 0;
		if (sf_read_uint(c, v, 0, UINT64_MAX, false, &version)) {
			if (version != 1 && version != 2) {
				sf_error(c, v->pos, "got %llu, an unknown version (expected 1 or 2)", (unsigned long long)version);
			} else {
				m->version = (uint32_t)version;
			}
		}
		sf_pop(c, mark);
	}
	const sf_node* name = sf_get(root, "name");
	if (name != NULL) {
		size_t mark = sf_push_key(c, "name");
		char* copy = sf_check_name(c, name, "a scene") ? malloc(name->len + 1) : NULL;
		if (copy != NULL) {
			memcpy(copy, name->text, name->len + 1);
			free(m->name);
			m->name = copy;
		}
		sf_pop(c, mark);
	}
	const sf_node* desc = sf_get(root, "description");
	if (desc != NULL) {
		size_t mark = sf_push_key(c, "description");
		sf_read_string(c, desc, SF_DESCRIPTION_MAX, &m->description);
		sf_pop(c, mark);
	}
	sf_field_uint(c, root, "steps", 0, 1000000000u, &m->steps);
	float goal = 0.0f;
	if (sf_field_number(c, root, "goal_radius", SF_NON_NEGATIVE, &goal) > 0) {
		m->goal_radius = goal;
	}
	// Version 2 keys need `version: 2`, so that a reader of version 1 files
	// is never handed one it would misread.
	static const char* const v2[] = {"paths", "agents", "measure"};
	for (int k = 0; k < 3; ++k) {
		const sf_node* s = sf_get(root, v2[k]);
		if (s != NULL && m->version != 2) {
			// (the version key was read above)
			size_t mark = sf_push_key(c, v2[k]);
			sf_error(c, s->pos, "a version 2 key in a version 1 file (expected version: 2 at the top)");
			sf_pop(c, mark);
		}
	}
	// The outcome measure, by name (scenario_measure.c's table).
	const char* measures[THR_MAX_MEASURES];
	uint32_t nmeasures = 0;
	for (; nmeasures < thr_measure_count; ++nmeasures) {
		measures[nmeasures] = thr_measure_table[nmeasures]->name;
	}
	int measure = -1;
	if (sf_field_enum(c, root, "measure", measures, nmeasures, "measure", &measure) > 0) {
		m->measure = thr_measure_table[measure];
	}
	static const char* const sections[] = {"world", "archetypes", "paths",  "groups",
	                                       "obstacles", "walls",  "threat", "agents"};
	for (int k = 0; k < 8; ++k) {
		const sf_node* s = sf_get(root, sections[k]);
		if (s == NULL) {
			continue;
		}
		size_t mark = sf_push_key(c, sections[k]);
		switch (k) {
		case 0: sf_read_table(c, s, &sf_world_table, m); break;
		case 1: parse_archetypes(c, s, m); break;
		case 2: sf_parse_paths(c, s, m); break;
		case 3: sf_parse_groups(c, s, m); break;
		case 4: sf_parse_obstacles(c, s, m); break;
		case 5: sf_parse_walls(c, s, m); break;
		case 6: sf_parse_threat(c, s, m); break;
		default: sf_parse_agents(c, s, m); break;
		}
		sf_pop(c, mark);
	}
	if (sf_get(root, "archetypes") == NULL) {
		sf_missing(c, root, "archetypes", "a mapping from archetype names to archetypes");
	}
	if (sf_get(root, "groups") == NULL && sf_get(root, "agents") == NULL) {
		sf_missing(c, root, "groups", "a mapping from group names to groups of agents");
	}
	sf_check_model(c, root, m);
}
