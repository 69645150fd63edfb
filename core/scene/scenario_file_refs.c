// SPDX-License-Identifier: MIT
// Scenario files: names that refer to other sections (a group's archetype,
// a target rule's group), references that lead nowhere, and goals that
// cannot be reached. Each of these files would load and run with agents
// standing still, so they are refused where the file says them:
//   - a slot with `target: threat` in a file without a threat;
//   - a slot with `target: agent` in an archetype without an enabled
//     target rule (nothing would ever give its agents a target agent);
//   - a group without a path whose archetype has a path_following slot;
//   - in a world that keeps its agents inside (bounds mode other than
//     open), a goal point, a random-goal rectangle, the goals an offset
//     gives, a path waypoint or a unit's refuge outside the bounds.
// A group path that no slot of its archetype follows changes nothing: it
// is a warning, and the file stays valid. Disabled slots count as slots
// (a viewer or the API may enable them at run time). The library cannot
// make these checks: threats, target agents and paths may all be set
// through the API after the world is built.
#include <stdio.h>
#include <string.h>

#include "scenario_file_internal.h"

void sf_resolve_names(sf_ctx* c, sf_model* m)
{
	const char* names[SF_MAX_GROUPS > SF_MAX_ARCHETYPES ? SF_MAX_GROUPS : SF_MAX_ARCHETYPES];
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		names[k] = m->archetypes[k].name != NULL ? m->archetypes[k].name : "?";
	}
	size_t mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		sf_group* g = &m->groups[k];
		if (g->archetype_name != NULL) {
			size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
			sf_push_key(c, "archetype");
			g->archetype = sf_resolve(c, g->archetype_pos, "archetype", "archetypes", g->archetype_name, names,
			                          m->archetype_count);
			sf_pop(c, mk);
		}
	}
	sf_pop(c, mark);
	sf_resolve_sources(c, m, names);
	sf_resolve_units(c, m, names);
	for (uint32_t k = 0; k < m->group_count; ++k) {
		names[k] = m->groups[k].name != NULL ? m->groups[k].name : "?";
	}
	mark = sf_push_key(c, "archetypes");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		sf_archetype* a = &m->archetypes[k];
		size_t mk = sf_push_key(c, a->name != NULL ? a->name : "?");
		sf_push_key(c, "target_rule");
		if (a->target_group != NULL) {
			sf_push_key(c, "group");
			uint32_t j = sf_resolve(c, a->target_group_pos, "group", "groups", a->target_group, names, m->group_count);
			a->controller.target_rule.group = j < m->group_count ? m->groups[j].id : 0u;
		} else if (a->target_label && m->version != 2) {
			sf_push_key(c, "label");
			sf_error(c, a->target_group_pos, "a version 2 key in a version 1 file (expected version: 2 at the top)");
		}
		sf_pop(c, mk);
		if (a->combat && m->version != 2) {
			mk = sf_push_key(c, a->name != NULL ? a->name : "?");
			sf_push_key(c, "combat");
			sf_error(c, a->combat_pos, "a version 2 key in a version 1 file (expected version: 2 at the top)");
			sf_pop(c, mk);
		}
	}
	sf_pop(c, mark);
}

/// The value node of entry k of a mapping, or NULL.
static const sf_node* entry(const sf_node* map, uint32_t k)
{
	return map != NULL && map->kind == SF_MAPPING && k < map->count ? map->items[2u * k + 1u] : NULL;
}

/// The first path_following slot of a controller, or -1.
static int path_slot(const throng_controller* ctl)
{
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		if (ctl->slots[k].kind == THRONG_PATH_FOLLOW) {
			return (int)k;
		}
	}
	return -1;
}

static void check_targets(sf_ctx* c, const sf_node* an, const sf_model* m, const sf_archetype* a)
{
	const sf_node* slots = an != NULL && an->kind == SF_MAPPING ? sf_get(an, "slots") : NULL;
	for (uint32_t k = 0; k < a->controller.slot_count; ++k) {
		const throng_slot* s = &a->controller.slots[k];
		if (!sf_kind_reads(s->kind, sf_key_find(&sf_param_table, "target")) ||
		    s->params.target == THRONG_TARGET_POINT) {
			continue;
		}
		const sf_node* sn = slots != NULL && slots->kind == SF_SEQUENCE && k < slots->count ? slots->items[k] : NULL;
		const sf_node* tn = sn != NULL && sn->kind == SF_MAPPING ? sf_get(sn, "target") : NULL;
		sf_pos pos = tn != NULL ? tn->pos : sn != NULL ? sn->pos : a->pos;
		size_t mark = sf_push_key(c, "slots");
		sf_push_index(c, k);
		sf_push_key(c, "target");
		if (s->params.target == THRONG_TARGET_THREAT && m->threat.kind == SF_THREAT_NONE) {
			sf_error(c, pos,
			         "threat, but the file has no threat, so this %s slot would never steer (expected a threat: "
			         "section, or target: point or agent)",
			         throng_behavior_kind_name(s->kind));
		} else if (s->params.target == THRONG_TARGET_AGENT && !a->controller.target_rule.enabled) {
			sf_error(c, pos,
			         "agent, but archetype %s has %s, so its agents never get a target agent and this %s slot "
			         "would never steer (expected target_rule: {group: ..., sight_radius: ...} enabled, or "
			         "target: point or threat)",
			         a->name != NULL ? a->name : "?",
			         a->target_group != NULL ? "its target_rule disabled" : "no target_rule",
			         throng_behavior_kind_name(s->kind));
		}
		sf_pop(c, mark);
	}
}

/// Reports `what`, which covers lo..hi, at pos when it is not inside the world.
static void check_inside(sf_ctx* c, const sf_model* m, sf_pos pos, const char* what, throng_vec2 lo, throng_vec2 hi)
{
	if (lo.x >= m->bounds_min.x && lo.y >= m->bounds_min.y && hi.x <= m->bounds_max.x && hi.y <= m->bounds_max.y) {
		return;
	}
	char box[96];
	if (lo.x == hi.x && lo.y == hi.y) {
		snprintf(box, sizeof box, "(%g, %g)", (double)lo.x, (double)lo.y);
	} else {
		snprintf(box, sizeof box, "(%g, %g)..(%g, %g)", (double)lo.x, (double)lo.y, (double)hi.x, (double)hi.y);
	}
	sf_error(c, pos,
	         "%s %s is not inside the world (%g, %g)..(%g, %g), where bounds mode %s keeps the agents: it can never be "
	         "reached (expected %s inside the bounds, or bounds mode open)",
	         what, box, (double)m->bounds_min.x, (double)m->bounds_min.y, (double)m->bounds_max.x,
	         (double)m->bounds_max.y, throng_bounds_mode_name(m->bounds_mode), what);
}

static void check_goal(sf_ctx* c, const sf_node* gn, const sf_model* m, const sf_group* g)
{
	const sf_node* goal = sf_get(gn, "goal");
	if (goal == NULL) {
		return;
	}
	size_t mark = sf_push_key(c, "goal");
	throng_vec2 lo, hi;
	switch (g->goal) {
	case SF_GOAL_POINT: check_inside(c, m, goal->pos, "the goal", g->goal_point, g->goal_point); break;
	case SF_GOAL_RANDOM:
		sf_push_key(c, "random");
		check_inside(c, m, sf_get(goal, "random")->pos, "the goal rectangle", g->goal_min, g->goal_max);
		break;
	case SF_GOAL_OFFSET:
		sf_spawn_extent(g, &lo, &hi);
		lo = (throng_vec2){lo.x + g->goal_offset.x, lo.y + g->goal_offset.y};
		hi = (throng_vec2){hi.x + g->goal_offset.x, hi.y + g->goal_offset.y};
		sf_push_key(c, "offset");
		check_inside(c, m, sf_get(goal, "offset")->pos, "the box of the offset goals", lo, hi);
		break;
	case SF_GOAL_NONE:
	case SF_GOAL_ANTIPODAL: // the spawn mirrored through its centre: the spawn's own box
		break;
	}
	sf_pop(c, mark);
}

/// A unit's refuge, where its soldiers run when it routs.
static void check_refuge(sf_ctx* c, const sf_node* gn, const sf_model* m, const sf_group* g)
{
	const sf_node* morale = sf_get(gn, "morale");
	if (!g->morale || !g->unit.has_refuge || morale == NULL || morale->kind != SF_MAPPING) {
		return;
	}
	size_t mark = sf_push_key(c, "morale");
	sf_push_key(c, "refuge");
	check_inside(c, m, sf_get(morale, "refuge")->pos, "the refuge", g->unit.refuge, g->unit.refuge);
	sf_pop(c, mark);
}

static void check_path(sf_ctx* c, const sf_node* gn, const sf_model* m, const sf_group* g)
{
	const sf_archetype* a = &m->archetypes[g->archetype];
	const sf_node* pn = sf_get(gn, "path");
	int follows = path_slot(&a->controller);
	if (g->path.count == 0) {
		char why[96];
		if (a->preset != NULL) {
			snprintf(why, sizeof why, "its preset %s has drive path_following", a->preset->name);
		} else {
			snprintf(why, sizeof why, "slots[%d] is path_following", follows);
		}
		if (follows >= 0) {
			sf_error_at(c, "path", gn->pos,
			            "missing, but archetype %s follows paths (%s): the group's agents would stand still "
			            "(expected a list of waypoints [[x, y], ...] or {waypoints: [...]})",
			            a->name != NULL ? a->name : "?", why);
		}
		return;
	}
	size_t mark = sf_push_key(c, "path");
	if (follows < 0) {
		sf_warning(c, pn->pos,
		           "archetype %s has no path_following slot, so no agent follows this path (expected a "
		           "path_following slot in archetype %s, or no path)",
		           a->name != NULL ? a->name : "?", a->name != NULL ? a->name : "?");
	}
	const sf_node* wn = pn->kind == SF_MAPPING ? sf_get(pn, "waypoints") : pn;
	if (m->bounds_mode != THRONG_BOUNDS_OPEN && wn != NULL && wn->kind == SF_SEQUENCE) {
		size_t mk = pn->kind == SF_MAPPING ? sf_push_key(c, "waypoints") : c->path_len;
		for (uint32_t k = 0; k < g->path.count && k < wn->count; ++k) {
			size_t mi = sf_push_index(c, k);
			check_inside(c, m, wn->items[k]->pos, "the waypoint", g->path.points[k], g->path.points[k]);
			sf_pop(c, mi);
		}
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}

void sf_check_references(sf_ctx* c, const sf_node* root, const sf_model* m)
{
	const sf_node* archetypes = sf_get(root, "archetypes");
	size_t mark = sf_push_key(c, "archetypes");
	for (uint32_t k = 0; k < m->archetype_count; ++k) {
		const sf_archetype* a = &m->archetypes[k];
		size_t mk = sf_push_key(c, a->name != NULL ? a->name : "?");
		check_targets(c, entry(archetypes, k), m, a);
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
	const sf_node* groups = sf_get(root, "groups");
	mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		const sf_group* g = &m->groups[k];
		const sf_node* gn = entry(groups, k);
		if (gn == NULL || gn->kind != SF_MAPPING || g->archetype >= m->archetype_count) {
			continue;
		}
		size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
		if (m->bounds_mode != THRONG_BOUNDS_OPEN) {
			check_goal(c, gn, m, g);
			check_refuge(c, gn, m, g);
		}
		check_path(c, gn, m, g);
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}
