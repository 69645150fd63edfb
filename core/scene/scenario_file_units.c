// SPDX-License-Identifier: MIT
// Scenario files: a group's `morale` mapping (version 2), which makes the
// group one unit that can break and run (throng/units.h, docs/ARMIES.md).
// Its keys are rows of sf_morale_table (every throng_morale field, the
// refuge, the rout archetype by name); here are the table, its reader,
// the checks across sections and the build.
//
// The rout archetype. A block that names none routs as the routing
// archetype made from its own archetype (throng_controller_routing). The
// file does not list those: the build adds one for each archetype some
// such block needs, after the file's archetypes and in their order, and
// every unit of that archetype shares it. So the world's archetypes 0 to
// n - 1 are still the file's n, in file order (what a stream's archetype
// column and throng-view's legend number), the routing ones come after,
// and a saved file writes the morale block, which makes them again when
// it is loaded: save, load and save give the same text.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "names.h"
#include "scenario_file_internal.h"
#include "validate.h"

#define NUMBER(field, r) .offset = offsetof(sf_group, unit.morale.field), .type = SF_T_NUMBER, .range = (r)

static void morale_defaults(void* base)
{
	((sf_group*)base)->unit = throng_unit_default_def();
}

/// The refuge is written when it was given.
static bool refuge_written(const void* base)
{
	return ((const sf_group*)base)->unit.has_refuge;
}

static const sf_key morale_keys[] = {
	{.name = "breaks_at", NUMBER(breaks_at, SF_FRACTION),
	 .doc = "the share of the most members it had whose loss alone routs it"},
	{.name = "flank", NUMBER(flank, SF_NON_NEGATIVE),
	 .doc = "a hit on a member from the side (between 60° and 120° off the unit's facing) weighs as this many "
	        "lost members"},
	{.name = "rear", NUMBER(rear, SF_NON_NEGATIVE),
	 .doc = "a hit from behind (within 60° of the unit's back) weighs as this many lost members"},
	{.name = "panic", NUMBER(panic, SF_NON_NEGATIVE), .unit = "1/s",
	 .doc = "morale lost a second for each routing unit of its army (the same `id`) whose centre is within "
	        "`panic_radius` of its own"},
	{.name = "panic_radius", NUMBER(panic_radius, SF_NON_NEGATIVE), .unit = "m"},
	{.name = "recovery", NUMBER(recovery, SF_NON_NEGATIVE), .unit = "1/s",
	 .doc = "shock (the morale lost to flank and rear hits and to panic) recovered a second"},
	{.name = "rally_time", NUMBER(rally_time, SF_NON_NEGATIVE), .unit = "s",
	 .doc = "a routing unit that no hit reached for this long rallies, while it has rallies left"},
	{.name = "rally_morale", NUMBER(rally_morale, SF_FRACTION), .doc = "its morale after a rally"},
	{.name = "rallies", .offset = offsetof(sf_group, unit.morale.rallies), .type = SF_T_UINT, .min = 0,
	 .max = UINT32_MAX, .size = sizeof(((sf_group*)0)->unit.morale.rallies), .doc = "how many times it can rally"},
	{.name = "army_breaks_at", NUMBER(army_breaks_at, SF_FRACTION),
	 .doc = "the share of its army's strength (the most members of every unit with the same `id`) killed at which "
	        "it routs and no longer rallies (the army breaks); 1: never"},
	{.name = "refuge", .offset = offsetof(sf_group, unit.refuge), .type = SF_T_POINT, .range = SF_COORD, .unit = "m",
	 .def = "none", .written = refuge_written,
	 .doc = "where its soldiers run when it routs (their target point); none: 1 km behind the unit's facing, held "
	        "inside the bounds"},
	{.name = "rout_archetype", .type = SF_T_OTHER, .type_doc = "name", .def = "made from `archetype`",
	 .doc = "the archetype its soldiers take while it routs, with combat as the group's archetype has it; none: the "
	        "routing archetype the file makes from the group's archetype (below)"},
};
#undef NUMBER

/// has_refuge: the refuge was given and read.
static void check_morale(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	(void)c;
	sf_group* g = base;
	const uint64_t row = (uint64_t)(sf_key_find(&sf_morale_table, "refuge") - morale_keys);
	g->unit.has_refuge = sf_get(map, "refuge") != NULL && (failed & (1ull << row)) == 0;
}

const sf_table sf_morale_table = {.name = "morale",
                                  .keys = morale_keys,
                                  .count = sizeof morale_keys / sizeof morale_keys[0],
                                  .defaults = morale_defaults,
                                  .check = check_morale,
                                  .size = sizeof(sf_group)};

static bool morale_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_group* g = base;
	(void)k;
	(void)map;
	g->rout_pos = v->pos;
	return sf_read_name(c, v, "an archetype", &g->rout_name);
}

bool sf_parse_morale(sf_ctx* c, const sf_node* v, sf_group* g)
{
	g->morale = true;
	g->morale_pos = v->pos;
	g->unit = throng_unit_default_def(); // keys left out keep the library's defaults
	return sf_read_table(c, v, &sf_morale_table, g, morale_part) == 0;
}

#define FORMATION(field, r) .offset = offsetof(sf_group, unit.formation.field), .type = SF_T_NUMBER, .range = (r)

static void formation_defaults(void* base)
{
	((sf_group*)base)->unit = throng_unit_default_def();
}

static const sf_key formation_keys[] = {
	{.name = "kind", .offset = offsetof(sf_group, unit.formation.kind), .type = SF_T_WORD,
	 .words = &thr_formation_kind_names, .what = "formation kind", .required = true,
	 .expect = "one of: line, column, square, wedge",
	 .doc = "the shape: `line` (ranks of `files`, the last centred), `column` (deep ranks), `square`, `wedge` "
	        "(rank r holds 2r + 1, its point forward); `none` is refused"},
	{.name = "files", .offset = offsetof(sf_group, unit.formation.files), .type = SF_T_UINT, .min = 0,
	 .max = UINT32_MAX, .size = sizeof(((sf_group*)0)->unit.formation.files),
	 .doc = "soldiers a rank; 0: from the count n (line: about 2√n, column: 4, square: ⌈√n⌉; a wedge ignores it)"},
	{.name = "spacing", FORMATION(spacing, SF_POSITIVE_1E3), .unit = "m", .doc = "between files"},
	{.name = "rank_spacing", FORMATION(rank_spacing, SF_POSITIVE_1E3), .unit = "m", .doc = "between ranks"},
	{.name = "speed", FORMATION(speed, SF_POSITIVE_1E3), .unit = "m/s",
	 .doc = "the anchor's speed on a `move` order"},
	{.name = "turn_rate", FORMATION(turn_rate, SF_POSITIVE_1E3), .unit = "rad/s",
	 .doc = "how fast its facing wheels (a `move` or a `turn`)"},
	{.name = "march_archetype", .type = SF_T_OTHER, .type_doc = "name", .def = "made from `archetype`",
	 .doc = "the archetype its soldiers take while it marches, with combat; none: the march archetype the file "
	        "makes from the group's archetype (below)"},
};
#undef FORMATION

/// Kind none is no formation: refused (leave the mapping out instead).
static void check_formation(sf_ctx* c, const sf_node* map, void* base, uint64_t failed)
{
	const sf_group* g = base;
	if ((failed & 1u) == 0 && g->unit.formation.kind == THRONG_FORMATION_NONE && sf_get(map, "kind") != NULL) {
		sf_error_at(c, "kind", sf_get(map, "kind")->pos,
		            "got none, which is no formation (expected one of: line, column, square, wedge; or no "
		            "formation)");
	}
}

const sf_table sf_formation_table = {.name = "formation",
                                     .keys = formation_keys,
                                     .count = sizeof formation_keys / sizeof formation_keys[0],
                                     .defaults = formation_defaults,
                                     .check = check_formation,
                                     .size = sizeof(sf_group)};

static bool formation_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_group* g = base;
	(void)k;
	(void)map;
	g->march_pos = v->pos;
	return sf_read_name(c, v, "an archetype", &g->march_name);
}

bool sf_parse_formation(sf_ctx* c, const sf_node* v, sf_group* g)
{
	g->formation = true;
	g->formation_pos = v->pos;
	g->unit.formation = throng_unit_default_def().formation; // read after the morale, which resets g->unit
	return sf_read_table(c, v, &sf_formation_table, g, formation_part) == 0;
}

/// Whether a group's unit routs as the routing archetype made from its
/// archetype (it names no rout_archetype).
static bool routs_as_made(const sf_group* g)
{
	return g->morale && g->rout_name == NULL;
}

/// Whether a group's unit marches as the march archetype made from its
/// archetype (a formation that names no march_archetype).
static bool marches_as_made(const sf_group* g)
{
	return g->morale && g->formation && g->march_name == NULL;
}

void sf_resolve_units(sf_ctx* c, sf_model* m, const char* const* archetype_names)
{
	size_t mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		sf_group* g = &m->groups[k];
		const struct {
			bool given;
			const char* key;
			sf_pos pos;
		} v2[] = {{g->morale, "morale", g->morale_pos},
		          {g->formation, "formation", g->formation_pos},
		          {g->orders_pos.line != 0, "orders", g->orders_pos}};
		size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
		for (size_t j = 0; j < sizeof v2 / sizeof v2[0] && m->version != 2; ++j) {
			if (v2[j].given) {
				sf_error_at(c, v2[j].key, v2[j].pos,
				            "a version 2 key in a version 1 file (expected version: 2 at the top)");
			}
		}
		if (g->morale && g->rout_name != NULL) {
			size_t mr = sf_push_key(c, "morale");
			sf_push_key(c, "rout_archetype");
			g->rout_archetype = sf_resolve(c, g->rout_pos, "archetype", "archetypes", g->rout_name, archetype_names,
			                               m->archetype_count);
			sf_pop(c, mr);
		}
		if (g->formation && g->march_name != NULL) {
			size_t mr = sf_push_key(c, "formation");
			sf_push_key(c, "march_archetype");
			g->march_archetype = sf_resolve(c, g->march_pos, "archetype", "archetypes", g->march_name,
			                                archetype_names, m->archetype_count);
			sf_pop(c, mr);
		}
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}

/// " (preset NAME)" for an archetype made from a preset, else "".
static void preset_note(const sf_archetype* a, char* buf, size_t cap)
{
	buf[0] = '\0';
	if (a->preset != NULL) {
		snprintf(buf, cap, " (preset %s)", a->preset->name);
	}
}

/// A morale block's archetypes: the group's has combat; a named rout
/// archetype has it too; a made one the library takes.
static void check_rout(sf_ctx* c, const sf_model* m, const sf_group* g)
{
	const sf_archetype* a = &m->archetypes[g->archetype];
	const char* name = a->name != NULL ? a->name : "?";
	char note[96];
	preset_note(a, note, sizeof note);
	size_t mark = sf_push_key(c, "morale");
	if (!a->controller.combat.enabled) {
		// Without combat nothing hits its soldiers: only members who
		// leave (a sink) would lower its morale, and a crowd walking out
		// of a door would rout.
		sf_error(c, g->morale_pos,
		         "given for a group of archetype %s%s, which has no combat, so nothing can hit its soldiers "
		         "(expected combat: {...} in archetype %s, or no morale)",
		         name, note, name);
	} else if (g->rout_name != NULL && g->rout_archetype < m->archetype_count) {
		const sf_archetype* r = &m->archetypes[g->rout_archetype];
		if (!r->controller.combat.enabled) {
			preset_note(r, note, sizeof note);
			sf_push_key(c, "rout_archetype");
			sf_error(c, g->rout_pos,
			         "archetype %s%s has no combat, and the group's archetype %s has: a routing soldier keeps its "
			         "health and can still be hit (expected an archetype with combat: {...})",
			         r->name != NULL ? r->name : "?", note, name);
		}
	} else if (g->rout_name == NULL) {
		const throng_controller routing = throng_controller_routing(&a->controller);
		if (thr_validate_controller(&routing) != THRONG_OK) {
			sf_error(c, g->morale_pos,
			         "the library refuses the routing archetype made from archetype %s: %s (expected a "
			         "rout_archetype, or an archetype the library can make one from)",
			         name, throng_last_error());
		}
	}
	sf_pop(c, mark);
}

/// A formation's march archetype, for a group whose archetype has combat:
/// a named one has it too (the library takes both or neither); a made
/// one the library takes.
static void check_march(sf_ctx* c, const sf_model* m, const sf_group* g)
{
	const sf_archetype* a = &m->archetypes[g->archetype];
	const char* name = a->name != NULL ? a->name : "?";
	size_t mark = sf_push_key(c, "formation");
	if (g->march_name != NULL && g->march_archetype < m->archetype_count) {
		const sf_archetype* r = &m->archetypes[g->march_archetype];
		if (!r->controller.combat.enabled) {
			char note[96];
			preset_note(r, note, sizeof note);
			sf_push_key(c, "march_archetype");
			sf_error(c, g->march_pos,
			         "archetype %s%s has no combat, and the group's archetype %s has: a marching soldier keeps "
			         "its health and strikes whoever comes within reach (expected an archetype with combat: {...})",
			         r->name != NULL ? r->name : "?", note, name);
		}
	} else if (g->march_name == NULL) {
		const throng_controller march = throng_controller_formation(&a->controller);
		if (thr_validate_controller(&march) != THRONG_OK) {
			sf_error(c, g->formation_pos,
			         "the library refuses the march archetype made from archetype %s: %s (expected a "
			         "march_archetype, or an archetype the library can make one from)",
			         name, throng_last_error());
		}
	}
	sf_pop(c, mark);
}

void sf_check_units(sf_ctx* c, const sf_model* m)
{
	size_t mark = sf_push_key(c, "groups");
	for (uint32_t k = 0; k < m->group_count; ++k) {
		const sf_group* g = &m->groups[k];
		size_t mk = sf_push_key(c, g->name != NULL ? g->name : "?");
		if (g->formation && !g->morale) {
			// A formation is a unit's; the file does not make a unit with
			// the default morale behind the author's back.
			sf_error_at(c, "formation", g->formation_pos,
			            "a formation is a unit's, and the group is no unit (expected morale: {...} beside it; "
			            "morale: {} is a unit with the default morale)");
		}
		sf_check_orders(c, g);
		if (g->morale && g->archetype < m->archetype_count) {
			check_rout(c, m, g);
			if (g->formation && m->archetypes[g->archetype].controller.combat.enabled) {
				check_march(c, m, g);
			}
		}
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}

/// Adds, after the world's archetypes so far, one archetype made by
/// `make` from each model archetype some group `needs`, in the
/// archetypes' order, into made[a] (THRONG_NO_UNIT where none is made).
static throng_status add_made(sf_ctx* c, throng_scene* scene, const sf_model* m, bool (*needs)(const sf_group*),
                              throng_controller (*make)(const throng_controller*), uint32_t* made)
{
	for (uint32_t a = 0; a < m->archetype_count; ++a) {
		made[a] = THRONG_NO_UNIT;
	}
	for (uint32_t k = 0; k < m->group_count; ++k) {
		if (needs(&m->groups[k])) {
			made[m->groups[k].archetype] = 0u; // needed
		}
	}
	throng_status st = THRONG_OK;
	for (uint32_t a = 0; a < m->archetype_count && st == THRONG_OK; ++a) {
		if (made[a] != THRONG_NO_UNIT) {
			const throng_controller ctl = make(&m->archetypes[a].controller);
			st = throng_world_add_archetype(scene->world, &ctl, &made[a]);
		}
		if (st != THRONG_OK) {
			sf_build_fail(c, st, m->archetypes[a].pos, "archetypes", m->archetypes[a].name);
		}
	}
	return st;
}

throng_status sf_build_units(sf_ctx* c, throng_scene* scene, thr_definition* sd)
{
	const sf_model* m = sd->model;
	// The routing archetypes, after the model's, then the march ones: one
	// for each archetype a block routs (marches) as made from it, in the
	// archetypes' order.
	uint32_t* routing = malloc(((size_t)m->archetype_count + 1u) * 2u * sizeof *routing);
	if (routing == NULL) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "scenario %s: out of memory for the units", m->name);
	}
	uint32_t* march = routing + m->archetype_count + 1u;
	throng_status st = add_made(c, scene, m, routs_as_made, throng_controller_routing, routing);
	if (st == THRONG_OK) {
		st = add_made(c, scene, m, marches_as_made, throng_controller_formation, march);
	}
	for (uint32_t k = 0; k < m->group_count && st == THRONG_OK; ++k) {
		const sf_group* g = &m->groups[k];
		sd->unit_id[k] = THRONG_NO_UNIT;
		if (!g->morale) {
			continue;
		}
		throng_unit_def def = g->unit; // its formation too (kind none without one)
		def.archetype = sd->archetype_id[g->archetype];
		def.rout_archetype = g->rout_name != NULL ? sd->archetype_id[g->rout_archetype] : routing[g->archetype];
		if (g->formation) {
			def.march_archetype = g->march_name != NULL ? sd->archetype_id[g->march_archetype] : march[g->archetype];
		}
		def.army = g->id;
		st = throng_world_add_unit(scene->world, &def, &sd->unit_id[k]);
		if (st != THRONG_OK) {
			sf_build_fail(c, st, g->morale_pos, "groups", g->name);
		}
	}
	free(routing);
	return st;
}
