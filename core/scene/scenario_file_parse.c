// SPDX-License-Identifier: MIT
// Scenario files, the reader's top: the file's top level and the
// archetypes, read against their key tables (scenario_file_tables.c) by
// the table engine (scenario_file_keys.c); groups, shapes and agents rows
// are read by scenario_file_groups.c, _shapes.c and _rows.c, and checked
// across sections here, last.
//
// Every section is read to the end even after a problem, so one pass
// reports every problem of the file; a value with a problem keeps its
// default, and checks that depend on it are skipped rather than piled on.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "validate.h"

/// Reads one slot; returns false when it has a problem. *kind_ok says
/// whether its kind was read (for the wander count).
static bool parse_slot(sf_ctx* c, const sf_node* n, throng_slot* out, bool* kind_ok)
{
	*kind_ok = false;
	if (!sf_expect_mapping(c, n, "a slot: a mapping with kind, weight, enabled, priority and parameters")) {
		return false;
	}
	uint32_t before = c->problems;
	int kind = -1;
	const sf_node* kn = sf_get(n, "kind");
	if (kn != NULL) {
		size_t mark = sf_push_key(c, "kind");
		*kind_ok = sf_read_enum(c, kn, thr_behavior_kind_names.name, thr_behavior_kind_names.count, "behaviour", &kind);
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
	sf_read_keys(c, n, &sf_slot_table, &s, 0, NULL);
	if (kind >= 0) {
		sf_read_keys(c, n, &sf_param_table, &s.params, 1u << kind, NULL);
	}
	*out = s;
	return c->problems == before;
}

/// The rule's group, by name (or, version 2, by label): one of them.
static bool parse_target_rule(sf_ctx* c, const sf_node* n, sf_archetype* a)
{
	throng_target_rule* r = &a->controller.target_rule;
	sf_target_rule_defaults(r);
	if (sf_read_table(c, n, &sf_target_rule_table, r, NULL) >> 63 != 0) {
		return false;
	}
	const sf_node* g = sf_get(n, "group");
	const sf_node* label = sf_get(n, "label");
	uint64_t v = 0;
	if (label == NULL && g == NULL) {
		sf_missing(c, n, "group", "the name of a group under groups");
		return false;
	}
	size_t mark = sf_push_key(c, label != NULL ? "label" : "group");
	a->target_group_pos = label != NULL ? label->pos : g->pos;
	bool ok = false;
	if (label != NULL && g != NULL) {
		sf_error(c, label->pos, "both group and label given (expected one of them)");
	} else if (label != NULL && sf_read_uint(c, label, 0, UINT32_MAX - 1u, false, &v)) {
		r->group = (uint32_t)v;
		a->target_label = ok = true;
	} else if (label == NULL) {
		ok = sf_read_name(c, g, "a group", &a->target_group);
	}
	sf_pop(c, mark);
	return ok;
}

static bool archetype_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_archetype* a = (sf_archetype*)(void*)((char*)base - offsetof(sf_archetype, controller));
	if (k->part == SF_ARCHETYPE_TARGET_RULE) {
		return parse_target_rule(c, v, a);
	}
	if (k->part == SF_ARCHETYPE_PRESET) {
		return true; // read first, by sf_read_preset
	}
	if (k->part == SF_ARCHETYPE_COMBAT) {
		// A `combat:` mapping turns combat on; keys left out keep
		// combat_defaults' (health 100, accuracy 1, cooldown 1 s).
		a->combat = true;
		a->combat_pos = v->pos;
		sf_combat_table.defaults(&a->controller.combat);
		return sf_read_table(c, v, &sf_combat_table, &a->controller.combat, NULL) == 0;
	}
	if (k->part == SF_ARCHETYPE_CONTACT) {
		// Keys left out keep the defaults (on, 1, 4, off), or a preset's.
		return sf_read_table(c, v, &sf_contact_table, &a->controller.contact, NULL) == 0;
	}
	if (sf_get(map, "preset") != NULL) {
		return false; // slots beside a preset: reported by sf_read_preset
	}
	if (!sf_expect_sequence(c, v, "a list of slots")) {
		return false;
	}
	if (v->count > THRONG_MAX_SLOTS) {
		sf_error(c, v->pos, "got %u slots (expected at most %d)", v->count, THRONG_MAX_SLOTS);
	}
	int wanders = 0, noises = 0;
	for (uint32_t k = 0; k < v->count && k < THRONG_MAX_SLOTS; ++k) {
		size_t mark = sf_push_index(c, k);
		throng_slot* s = &a->controller.slots[a->controller.slot_count++];
		bool kind_ok = false;
		parse_slot(c, v->items[k], s, &kind_ok);
		// Each wander form keeps one angle per agent (validate.c).
		if (kind_ok && ((s->kind == THRONG_WANDER && ++wanders == 2) ||
		                (s->kind == THRONG_WANDER_NOISE && ++noises == 2))) {
			sf_push_key(c, "kind");
			sf_error(c, sf_get(v->items[k], "kind")->pos,
			         "a second %s slot (expected at most one %s slot per archetype)",
			         throng_behavior_kind_name(s->kind), throng_behavior_kind_name(s->kind));
		}
		sf_pop(c, mark);
	}
	return true;
}

static void read_archetype(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_archetype* a = item;
	(void)index;
	a->name = sf_copy_text(key);
	a->pos = key->pos;
	a->controller = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	if (v != NULL && v->kind == SF_MAPPING) {
		sf_read_preset(c, v, a); // a preset first: the other keys override it
	}
	if (v != NULL) {
		sf_read_table(c, v, &sf_archetype_table, &a->controller, archetype_part);
	}
}

static bool scene_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_model* m = base;
	(void)map;
	// Version 2 keys need `version: 2` (read first), so that a reader of
	// version 1 files is never handed one it would misread.
	if ((k->part == SF_SCENE_MEASURE || k->part == SF_SCENE_PATHS || k->part == SF_SCENE_AGENTS ||
	     k->part == SF_SCENE_MEASUREMENTS || k->part == SF_SCENE_ZONES || k->part == SF_SCENE_SOURCES) &&
	    m->version != 2) {
		sf_error(c, v->pos, "a version 2 key in a version 1 file (expected version: 2 at the top)");
	}
	uint64_t version = 0;
	int measure = -1;
	const char* measures[THR_MAX_MEASURES];
	switch (k->part) {
	case SF_SCENE_VERSION:
		if (sf_read_uint(c, v, 0, UINT64_MAX, false, &version) && version != 1 && version != 2) {
			sf_error(c, v->pos, "got %llu, an unknown version (expected 1 or 2)", (unsigned long long)version);
		} else if (version != 0) {
			m->version = (uint32_t)version;
		}
		return true;
	case SF_SCENE_NAME: return sf_read_name(c, v, "a scene", &m->name);
	case SF_SCENE_DESCRIPTION: return sf_read_string(c, v, SF_DESCRIPTION_MAX, &m->description);
	case SF_SCENE_MEASURE:
		// The outcome measure, by name (scenario_measure.c's table).
		for (uint32_t j = 0; j < thr_measure_count; ++j) {
			measures[j] = thr_measure_table[j]->name;
		}
		if (sf_read_enum(c, v, measures, thr_measure_count, "measure", &measure)) {
			m->measure = thr_measure_table[measure];
		}
		return true;
	case SF_SCENE_ARCHETYPES:
		m->archetypes = sf_read_named(c, v, "a mapping from archetype names to archetypes", "archetype",
		                              SF_MAX_ARCHETYPES, sizeof *m->archetypes, &m->archetype_count, read_archetype);
		return true;
	case SF_SCENE_GROUPS: sf_parse_groups(c, v, m); return true;
	case SF_SCENE_OBSTACLES: sf_parse_obstacles(c, v, m); return true;
	case SF_SCENE_WALLS: sf_parse_walls(c, v, m); return true;
	case SF_SCENE_THREAT: sf_parse_threat(c, v, m); return true;
	case SF_SCENE_PATHS: sf_parse_paths(c, v, m); return true;
	case SF_SCENE_MEASUREMENTS: sf_parse_measurements(c, v, m); return true;
	case SF_SCENE_ZONES: sf_parse_zones(c, v, m); return true;
	case SF_SCENE_SOURCES: sf_parse_sources(c, v, m); return true;
	default: sf_parse_agents(c, v, m); return true;
	}
}

// ---------------------------------------------------------------------------
// Checks across sections
// ---------------------------------------------------------------------------

/// Runs on a model whose sections were read: names resolve, spawns fit the
/// bounds, counts add up, and the library takes the world and controllers.
static void check_model(sf_ctx* c, const sf_node* root, sf_model* m)
{
	uint32_t before = c->problems;
	// Names first: they are read on their own, so they resolve even when
	// other values had problems.
	sf_resolve_names(c, m);
	if (before != 0) {
		// Checks over values that may hold defaults in place of bad input
		// would only add noise.
		return;
	}
	// Version 2 rows are agents after the groups'.
	m->agents = m->row_count;
	bool goals = m->rows_random, random_goals = m->rows_random;
	size_t mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		sf_group* g = &m->groups[k];
		size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
		sf_check_spawn(c, m, g);
		sf_pop(c, mk);
		m->agents += g->count;
		goals = goals || g->goal != SF_GOAL_NONE;
		random_goals = random_goals || g->goal == SF_GOAL_RANDOM;
	}
	sf_pop(c, mark);
	if ((m->threat.kind == SF_THREAT_LINE || m->threat.kind == SF_THREAT_EXTERNAL) && m->version != 2) {
		const char* key = m->threat.kind == SF_THREAT_LINE ? "line" : "external";
		mark = sf_push_key(c, "threat");
		sf_push_key(c, key);
		sf_error(c, sf_get(sf_get(root, "threat"), key)->pos,
		         "a version 2 key in a version 1 file (expected version: 2 at the top)");
		sf_pop(c, mark);
	}
	if (m->agents > THR_SCENE_MAX_AGENTS) {
		const char* key = sf_get(root, "groups") != NULL ? "groups" : "agents";
		mark = sf_push_key(c, key);
		sf_error(c, sf_get(root, key)->pos, "the groups add up to %llu agents (expected at most %u)",
		         (unsigned long long)m->agents, THR_SCENE_MAX_AGENTS);
		sf_pop(c, mark);
	}
	if (m->goal_radius < 0.0f) {
		m->goal_radius = goals ? 0.5f : 0.0f;
	} else if (random_goals && m->goal_radius == 0.0f) {
		mark = sf_push_key(c, "goal_radius");
		sf_error(c, sf_get(root, "goal_radius")->pos,
		         "got 0 with random goals, which are drawn again within it (expected a number > 0 and <= 1e6)");
		sf_pop(c, mark);
	}
	sf_check_rows(c, m);
	sf_check_sources(c, m);
	sf_check_units(c, m);
	sf_check_references(c, root, m);
	// The library's own rules, as a last line: nothing it would refuse gets
	// past validation.
	mark = sf_push_key(c, "archetypes");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		sf_archetype* a = &m->archetypes[k];
		if (thr_validate_controller(&a->controller) != THRONG_OK) {
			sf_error_at(c, a->name != NULL ? a->name : "?", a->pos,
			            "the library refuses this archetype: %s (expected a valid controller)", throng_last_error());
		}
	}
	sf_pop(c, mark);
	throng_world_def def = throng_world_default_def();
	sf_model_world_def(m, &def);
	def.capacity = sf_model_capacity(m);
	if (thr_validate_def(&def) != THRONG_OK) {
		mark = sf_push_key(c, "world");
		sf_error(c, root->pos, "the library refuses this world: %s (expected a valid world)", throng_last_error());
		sf_pop(c, mark);
	}
}

void sf_parse_model(sf_ctx* c, const sf_node* root, sf_model* m)
{
	if (sf_read_table(c, root, &sf_scene_table, m, scene_part) >> 63 != 0) {
		return;
	}
	if (sf_get(root, "groups") == NULL && sf_get(root, "agents") == NULL && sf_get(root, "sources") == NULL) {
		sf_missing(c, root, "groups", "a mapping from group names to groups of agents");
	}
	check_model(c, root, m);
}
