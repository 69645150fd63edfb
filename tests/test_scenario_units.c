// SPDX-License-Identifier: MIT
// Units in scenario files: a group's `morale` mapping
// (core/scene/scenario_file_units.c, docs/SCENARIOS.md, "morale").
//
// - Two armies of units load: one unit a block, each def field as the
//   file says it (or the library's default), the routing archetypes made
//   after the file's, and every agent in its block's unit.
// - In a small fight units rout, their soldiers in their rout archetypes.
// - A unit that loses breaks_at of its strength routs (agents removed
//   through the C API, worked by hand): its soldiers take the routing
//   archetype the file made, or the one it names, and run for the refuge;
//   then it rallies.
// - Each bad input gives its FILE:LINE:COL message.
// - Save, load and save give the same text and the same world.
// - Part worlds refuse a scene with units.
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"
#include "support.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"
#include "units.h"
#include "world_internal.h"

/// Two armies: west (label 0) of a line with every morale key and a
/// reserve with none; east (label 1) of two units routing as the archetype
/// made from theirs, and a group that is no unit.
static const char armies[] =
	"version: 2\n"
	"world:\n"
	"  bounds: {min: [-60, -40], max: [60, 40], mode: contain}\n"
	"  dt: 0.1\n"
	"archetypes:\n"
	"  west:\n"
	"    target_rule: {label: 1, sight_radius: 80}\n"
	"    combat: {health: 50, attack: melee, reach: 0.4, damage: 10}\n"
	"    slots: [{kind: separation, priority: true, neighbor_radius: 0.9}, {kind: pursuit, target: agent}]\n"
	"  west_running:\n"
	"    combat: {health: 50}\n"
	"    slots: [{kind: separation, priority: true, neighbor_radius: 0.9}, {kind: seek}]\n"
	"  east:\n"
	"    mode: hybrid\n"
	"    target_rule: {label: 0, sight_radius: 80}\n"
	"    combat: {health: 60, attack: melee, reach: 0.4, damage: 8}\n"
	"    slots: [{kind: separation, priority: true, neighbor_radius: 0.9}, {kind: pursuit, target: agent},\n"
	"            {kind: wander, weight: 0.2}]\n"
	"groups:\n"
	"  west_line:\n"
	"    {id: 0, count: 12, archetype: west, spawn: {shape: grid, center: [-10, 0], spacing: [1, 1], columns: 4},\n"
	"     morale: {breaks_at: 0.5, flank: 2, rear: 4.5, panic: 0.1, panic_radius: 20, recovery: 0.05,\n"
	"              rally_time: 8, rally_morale: 0.6, rallies: 2, army_breaks_at: 0.7, refuge: [-50, 5],\n"
	"              rout_archetype: west_running}}\n"
	"  west_reserve:\n"
	"    {id: 0, count: 6, archetype: west, spawn: {shape: line, from: [-20, -3], to: [-20, 3]}, morale: {}}\n"
	"  east_line:\n"
	"    {id: 1, count: 10, archetype: east, spawn: {shape: grid, center: [10, 0], spacing: [1, 1], columns: 5},\n"
	"     morale: {breaks_at: 0.25}}\n"
	"  east_camp:\n"
	"    {id: 1, count: 3, archetype: east, spawn: {shape: line, from: [30, 0], to: [32, 0]}}\n"
	"  east_skirmish:\n"
	"    {id: 1, count: 4, archetype: east, spawn: {shape: line, from: [14, 10], to: [17, 10]},\n"
	"     morale: {rallies: 0, refuge: [55, -35]}}\n";

static const throng_unit_def* unit_def(const throng_world* w, uint32_t unit)
{
	cr_assert_lt(unit, throng_world_unit_count(w));
	return &w->units[unit].def;
}

static void assert_morale(const throng_morale* m, const throng_morale* want, const char* what)
{
	cr_assert(m->breaks_at == want->breaks_at && m->flank == want->flank && m->rear == want->rear &&
	              m->panic == want->panic && m->panic_radius == want->panic_radius && m->recovery == want->recovery &&
	              m->rally_time == want->rally_time && m->rally_morale == want->rally_morale &&
	              m->rallies == want->rallies && m->army_breaks_at == want->army_breaks_at,
	          "%s: morale", what);
}

/// The routing archetype made from `from` is archetype `id` of w.
static void assert_routing(throng_world* w, uint32_t from, uint32_t id)
{
	throng_controller fighting, got;
	cr_assert_eq(throng_world_get_controller(w, from, &fighting), THRONG_OK);
	cr_assert_eq(throng_world_get_controller(w, id, &got), THRONG_OK);
	const throng_controller want = throng_controller_routing(&fighting);
	cr_assert(!got.target_rule.enabled && got.combat.enabled && got.combat.attack == THRONG_ATTACK_NONE &&
	              got.combat.health == fighting.combat.health && got.mode == fighting.mode,
	          "archetype %u: not made from %u", id, from);
	cr_assert_eq(got.slot_count, want.slot_count, "archetype %u", id);
	for (uint32_t k = 0; k < want.slot_count; ++k) {
		cr_assert_eq(got.slots[k].kind, want.slots[k].kind, "archetype %u slot %u", id, k);
		cr_assert_eq(got.slots[k].params.target, want.slots[k].params.target, "archetype %u slot %u", id, k);
	}
}

Test(units, two_armies_load_with_one_unit_a_block_and_their_defs_as_the_file_says)
{
	throng_scene* s = thr_test_load_text("armies.yaml", armies);
	throng_world* w = throng_scene_world(s);
	// The file's three archetypes, then the routing ones made from west
	// (the reserve names none) and east, in the archetypes' order.
	cr_assert_eq(throng_world_archetype_count(w), 5u);
	assert_routing(w, 0, 3);
	assert_routing(w, 2, 4);
	cr_assert_eq(throng_world_unit_count(w), 4u);

	const throng_unit_def* line = unit_def(w, 0);
	// breaks_at, flank, rear, panic, panic_radius, recovery, rally_time,
	// rally_morale, rallies and army_breaks_at, as the file gives them.
	const throng_morale every = {0.5f, 2.0f, 4.5f, 0.1f, 20.0f, 0.05f, 8.0f, 0.6f, 2, 0.7f};
	assert_morale(&line->morale, &every, "west_line");
	cr_assert(line->archetype == 0 && line->rout_archetype == 1 && line->army == 0);
	cr_assert(line->has_refuge && line->refuge.x == -50.0f && line->refuge.y == 5.0f);

	const throng_unit_def defaults = throng_unit_default_def();
	const throng_unit_def* reserve = unit_def(w, 1);
	assert_morale(&reserve->morale, &defaults.morale, "west_reserve");
	cr_assert(reserve->archetype == 0 && reserve->rout_archetype == 3 && reserve->army == 0 && !reserve->has_refuge);

	const throng_unit_def* east = unit_def(w, 2);
	throng_morale want = defaults.morale;
	want.breaks_at = 0.25f;
	assert_morale(&east->morale, &want, "east_line");
	cr_assert(east->archetype == 2 && east->rout_archetype == 4 && east->army == 1 && !east->has_refuge);

	const throng_unit_def* skirmish = unit_def(w, 3); // east_camp is no unit: the fifth group is unit 3
	want = defaults.morale;
	want.rallies = 0;
	assert_morale(&skirmish->morale, &want, "east_skirmish");
	cr_assert(skirmish->archetype == 2 && skirmish->rout_archetype == 4 && skirmish->army == 1);
	cr_assert(skirmish->has_refuge && skirmish->refuge.x == 55.0f && skirmish->refuge.y == -35.0f);

	// Ids go group by group: 12, 6, 10, 3 and 4 agents.
	const uint32_t counts[5] = {12, 6, 10, 3, 4}, units[5] = {0, 1, 2, THRONG_NO_UNIT, 3};
	for (uint32_t g = 0, id = 0; g < 5; ++g) {
		for (uint32_t i = 0; i < counts[g]; ++i, ++id) {
			throng_agent_state a;
			cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
			cr_assert_eq(a.unit, units[g], "agent %u of group %u: unit %u", id, g, a.unit);
		}
	}
	// The first step measures them, whole and in good order.
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	for (uint32_t u = 0; u < 4; ++u) {
		throng_unit_state st;
		cr_assert_eq(throng_world_get_unit(w, u, &st), THRONG_OK);
		cr_assert(st.count == st.most && st.morale == 1.0f && !st.routing, "unit %u", u);
		cr_assert_eq(st.rallies_left, u == 0 ? 2u : u == 3 ? 0u : 1u, "unit %u", u);
	}
	throng_scene_destroy(s);
}

Test(units, in_a_fight_units_rout_and_their_soldiers_take_their_rout_archetypes)
{
	throng_scene* s = thr_test_load_text("armies.yaml", armies);
	throng_world* w = throng_scene_world(s);
	for (int k = 0; k < 250; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	// East's line (breaks at 25 %) and skirmishers, then west's line, broke.
	const uint32_t rout_archetype[4] = {1, 3, 4, 4};
	uint32_t routing = 0;
	for (uint32_t u = 0; u < 4; ++u) {
		throng_unit_state st;
		cr_assert_eq(throng_world_get_unit(w, u, &st), THRONG_OK);
		cr_assert_eq(st.routed_step != UINT64_MAX, u != 1, "unit %u routed at %llu", u,
		             (unsigned long long)st.routed_step);
		routing += st.routing;
	}
	cr_assert_gt(routing, 0u);
	// Every soldier wears its unit's archetype: the rout one while it routs.
	uint32_t runners = 0;
	for (uint32_t id = 0; id < 35; ++id) {
		throng_agent_state a;
		throng_unit_state st;
		if (throng_world_get_agent(w, id, &a) != THRONG_OK || a.unit == THRONG_NO_UNIT) {
			continue; // dead, or in camp
		}
		cr_assert_eq(throng_world_get_unit(w, a.unit, &st), THRONG_OK);
		const uint32_t want = st.routing ? rout_archetype[a.unit] : a.unit < 2 ? 0u : 2u;
		cr_assert_eq(a.archetype, want, "agent %u of unit %u: archetype %u", id, a.unit, a.archetype);
		cr_assert_eq((a.combat_state & THRONG_COMBAT_ROUTING) != 0, st.routing, "agent %u", id);
		runners += st.routing;
	}
	cr_assert_gt(runners, 0u);
	throng_scene_destroy(s);
}

/// Ten soldiers who never strike (attack none), standing, one unit that
/// breaks at 40 % and rallies after 0.5 s without a hit (5 steps of 0.1 s).
static const char standing[] =
	"version: 2\n"
	"world: {bounds: {min: [-50, -50], max: [50, 50], mode: contain}, dt: 0.1}\n"
	"archetypes:\n"
	"  guard:\n"
	"    combat: {health: 10}\n"
	"    slots: [{kind: separation, neighbor_radius: 0.5}, {kind: arrive, slow_radius: 1}]\n"
	"  deserter:\n"
	"    combat: {health: 10}\n"
	"    slots: [{kind: seek, weight: 2}]\n"
	"groups:\n"
	"  post:\n"
	"    {count: 10, archetype: guard, spawn: {shape: line, from: [0, 0], to: [9, 0]}, goal: {offset: [0, 0]},\n"
	"     morale: {breaks_at: 0.4, rally_time: 0.5, refuge: [-40, 20]ROUT}}\n";

/// `standing`, its unit routing as the archetype made from guard (rout
/// NULL) or as `rout`.
static throng_scene* load_standing(const char* rout)
{
	char text[1024], named[64] = "";
	if (rout != NULL) {
		snprintf(named, sizeof named, ", rout_archetype: %s", rout);
	}
	const char* at = strstr(standing, "ROUT");
	snprintf(text, sizeof text, "%.*s%s%s", (int)(at - standing), standing, named, at + 4);
	return thr_test_load_text("standing.yaml", text);
}

static void step(throng_scene* s, int n)
{
	for (int k = 0; k < n; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
}

static throng_unit_state unit_state(throng_scene* s)
{
	throng_unit_state st;
	cr_assert_eq(throng_world_get_unit(throng_scene_world(s), 0, &st), THRONG_OK);
	return st;
}

/// Removes agents first .. first + n - 1.
static void kill(throng_scene* s, uint32_t first, uint32_t n)
{
	for (uint32_t id = first; id < first + n; ++id) {
		cr_assert_eq(throng_world_remove_agent(throng_scene_world(s), id), THRONG_OK, "%s", throng_last_error());
	}
}

/// Every live agent of the post has archetype `arch`, the ROUTING mark as
/// `routing` says, and (routing) the refuge as its target point.
static void assert_post(throng_scene* s, uint32_t arch, bool routing)
{
	for (uint32_t id = 0; id < 10; ++id) {
		throng_agent_state a;
		if (throng_world_get_agent(throng_scene_world(s), id, &a) != THRONG_OK) {
			continue; // removed
		}
		cr_assert_eq(a.archetype, arch, "agent %u: archetype %u", id, a.archetype);
		cr_assert_eq((a.combat_state & THRONG_COMBAT_ROUTING) != 0, routing, "agent %u", id);
		if (routing) {
			cr_assert(a.target.x == -40.0f && a.target.y == 20.0f, "agent %u runs for (%g, %g)", id,
			          (double)a.target.x, (double)a.target.y);
		}
	}
}

static void rout_and_rally(throng_scene* s, uint32_t routing_archetype)
{
	step(s, 1); // formed: 10 strong
	// Three lost of 10: morale 1 - 3 / (0.4 * 10) = 0.25; a fourth: 0, it routs.
	kill(s, 0, 3);
	step(s, 1);
	throng_unit_state st = unit_state(s);
	cr_assert(st.count == 7 && st.morale == 0.25f && !st.routing, "count %u morale %g", st.count, (double)st.morale);
	assert_post(s, 0, false);
	kill(s, 3, 1);
	step(s, 1);
	st = unit_state(s);
	cr_assert(st.count == 6 && st.morale == 0.0f && st.routing && st.routed_step == 3, "morale %g, routed at %llu",
	          (double)st.morale, (unsigned long long)st.routed_step);
	cr_assert(st.refuge.x == -40.0f && st.refuge.y == 20.0f);
	assert_post(s, routing_archetype, true);
	// Nobody hits it: 5 quiet steps (0.5 s) and it rallies, as guards again.
	step(s, 4);
	cr_assert(unit_state(s).routing);
	step(s, 1);
	st = unit_state(s);
	cr_assert(!st.routing && st.rallies_left == 0 && st.morale == 0.5f, "rallied: morale %g", (double)st.morale);
	assert_post(s, 0, false);
}

Test(units, a_unit_that_loses_breaks_at_of_its_strength_routs_as_the_archetype_made_from_its_own_and_rallies)
{
	throng_scene* s = load_standing(NULL);
	cr_assert_eq(throng_world_archetype_count(throng_scene_world(s)), 3u);
	assert_routing(throng_scene_world(s), 0, 2);
	rout_and_rally(s, 2);
	throng_scene_destroy(s);
}

Test(units, a_unit_with_a_rout_archetype_routs_as_it)
{
	throng_scene* s = load_standing("deserter");
	cr_assert_eq(throng_world_archetype_count(throng_scene_world(s)), 2u, "no routing archetype made");
	rout_and_rally(s, 1);
	throng_scene_destroy(s);
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

/// `text` is refused with exactly the messages `want` (one a line), and
/// builds nothing.
static void refused(const char* text, const char* want)
{
	static thr_test_messages m;
	memset(&m, 0, sizeof m);
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_memory("bad.yaml", text, strlen(text), thr_test_collect, &m, &problems),
	             THRONG_ERR_INVALID_ARGUMENT, "accepted:\n%s", text);
	cr_assert_str_eq(m.text, want, "got:\n%swant:\n%s", m.text, want);
	cr_assert_eq(problems, m.count);
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("bad.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
}

/// A file (`version` its first line, or none) of archetypes a (with
/// combat), b (without) and w (a pedestrian), and group g: `group`'s text
/// from line 9 (10 with a version line).
static void refused_morale(const char* version, const char* group, const char* want)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "%s"
	         "world: {bounds: {min: [-10, -10], max: [10, 10]}}\n"
	         "archetypes:\n"
	         "  a: {combat: {health: 5}, slots: [{kind: seek}]}\n"
	         "  b: {slots: [{kind: seek}]}\n"
	         "  w: {preset: pedestrian}\n"
	         "groups:\n"
	         "  g:\n"
	         "%s",
	         version, group);
	refused(text, want);
}

#define SPAWN "    spawn: {shape: line, from: [0, 0], to: [1, 0]}\n"

Test(units, bad_morale_is_refused_at_its_key)
{
	const char* const v2 = "version: 2\n";
	const struct {
		const char* group;
		const char* want;
	} cases[] = {
	    {"    {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}, morale: {breaks: 0.5}}\n",
	     "bad.yaml:9:87: groups.g.morale.breaks: unknown key (expected one of: breaks_at, "
	     "flank, rear, panic, panic_radius, recovery, rally_time, rally_morale, rallies, army_breaks_at, refuge, "
	     "rout_archetype)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {breaks_at: 0}\n",
	     "bad.yaml:12:25: groups.g.morale.breaks_at: got 0, out of range (expected a fraction > 0 and <= 1)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {breaks_at: 1.5, rally_morale: 0}\n",
	     "bad.yaml:12:25: groups.g.morale.breaks_at: got 1.5, out of range (expected a fraction > 0 and <= 1)\n"
	     "bad.yaml:12:44: groups.g.morale.rally_morale: got 0, out of range (expected a fraction > 0 and <= 1)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {flank: -1, panic_radius: 2e6, rallies: -1}\n",
	     "bad.yaml:12:21: groups.g.morale.flank: got -1, out of range (expected a number >= 0 and <= 1e6)\n"
	     "bad.yaml:12:39: groups.g.morale.panic_radius: got 2e6, out of range (expected a number >= 0 and <= 1e6)\n"
	     "bad.yaml:12:53: groups.g.morale.rallies: got -1, out of range (expected a whole number from 0 to "
	     "4294967295)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {refuge: [1e7, 0]}\n",
	     "bad.yaml:12:23: groups.g.morale.refuge[0]: got 1e7, out of range (expected a number from -1e6 to 1e6)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: 0.5\n",
	     "bad.yaml:12:13: groups.g.morale: got 0.5 (expected a mapping of breaks_at, flank, rear, panic, "
	     "panic_radius, recovery, rally_time, rally_morale, rallies, army_breaks_at, refuge and rout_archetype)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {army_breaks_at: 0}\n",
	     "bad.yaml:12:30: groups.g.morale.army_breaks_at: got 0, out of range (expected a fraction > 0 and <= 1)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {rout_archetype: c}\n",
	     "bad.yaml:12:30: groups.g.morale.rout_archetype: unknown archetype \"c\", did you mean a? (expected one "
	     "of: a, b, w)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {rout_archetype: b}\n",
	     "bad.yaml:12:30: groups.g.morale.rout_archetype: archetype b has no combat, and the group's archetype a "
	     "has: a routing soldier keeps its health and can still be hit (expected an archetype with combat: "
	     "{...})\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {rout_archetype: w}\n",
	     "bad.yaml:12:30: groups.g.morale.rout_archetype: archetype w (preset pedestrian) has no combat, and the "
	     "group's archetype a has: a routing soldier keeps its health and can still be hit (expected an "
	     "archetype with combat: {...})\n"},
	    {"    count: 2\n    archetype: b\n" SPAWN "    morale: {}\n",
	     "bad.yaml:12:13: groups.g.morale: given for a group of archetype b, which has no combat, so nothing can "
	     "hit its soldiers (expected combat: {...} in archetype b, or no morale)\n"},
	    {"    count: 2\n    archetype: w\n" SPAWN "    morale: {rallies: 3}\n",
	     "bad.yaml:12:13: groups.g.morale: given for a group of archetype w (preset pedestrian), which has no "
	     "combat, so nothing can hit its soldiers (expected combat: {...} in archetype w, or no morale)\n"},
	    {"    count: 2\n    archetype: a\n" SPAWN "    morale: {refuge: [30, 0]}\n",
	     "bad.yaml:12:22: groups.g.morale.refuge: the refuge (30, 0) is not inside the world (-10, -10)..(10, 10), "
	     "where bounds mode contain keeps the agents: it can never be reached (expected the refuge inside the "
	     "bounds, or bounds mode open)\n"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		refused_morale(v2, cases[k].group, cases[k].want);
	}
	// A version 1 file has no units, nor the combat a unit needs.
	refused_morale("", "    count: 2\n    archetype: a\n" SPAWN "    morale: {}\n",
	               "bad.yaml:3:15: archetypes.a.combat: a version 2 key in a version 1 file (expected version: 2 at "
	               "the top)\n"
	               "bad.yaml:11:13: groups.g.morale: a version 2 key in a version 1 file (expected version: 2 at the "
	               "top)\n");
}

// ---------------------------------------------------------------------------
// Saving
// ---------------------------------------------------------------------------

static char* save(throng_scene* s)
{
	char* text = NULL;
	cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK, "%s", throng_last_error());
	return text;
}

Test(units, save_load_save_gives_the_same_text_and_the_same_world)
{
	throng_scene* s = thr_test_load_text("armies.yaml", armies);
	char* text = save(s);
	// Every field written; the refuge and the rout archetype when given;
	// the routing archetypes the file made are not listed.
	cr_assert(strstr(text, "    morale: {breaks_at: 0.5, flank: 2, rear: 4.5, panic: 0.1, panic_radius: 20, recovery: "
	                       "0.05, rally_time: 8, rally_morale: 0.6, rallies: 2, army_breaks_at: 0.7, refuge: [-50, 5], "
	                       "rout_archetype: \"west_running\"}\n") != NULL,
	          "%s", text);
	cr_assert(strstr(text, "    morale: {breaks_at: 0.4, flank: 1, rear: 3, panic: 0.05, panic_radius: 30, recovery: "
	                       "0.02, rally_time: 10, rally_morale: 0.5, rallies: 1, army_breaks_at: 1}\n") != NULL,
	          "%s", text);
	cr_assert(strstr(text, "rallies: 0, army_breaks_at: 1, refuge: [55, -35]}\n") != NULL, "%s", text);
	const char* camp = strstr(text, "\"east_camp\":\n");
	const char* after = camp != NULL ? strstr(camp, "\"east_skirmish\":\n") : NULL;
	const char* morale = camp != NULL ? strstr(camp, "morale") : NULL;
	cr_assert(after != NULL && morale > after, "a group that is no unit has no morale:\n%s", text);
	const char* archetypes = strstr(text, "archetypes:\n");
	const char* groups = strstr(text, "groups:\n");
	int listed = 0;
	for (const char* p = archetypes; p != NULL && p < groups; p = strstr(p + 1, "\n  \"")) {
		listed += p != archetypes;
	}
	cr_assert_eq(listed, 3, "the file's three archetypes, no more:\n%s", text);

	throng_scene* again = thr_test_load_text("saved.yaml", text);
	char* twice = save(again);
	cr_assert_str_eq(twice, text);
	cr_assert_eq(throng_world_archetype_count(throng_scene_world(again)), 5u);
	cr_assert_eq(throng_world_unit_count(throng_scene_world(again)), 4u);
	for (int k = 0; k < 300; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_scene_step(again), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), throng_world_hash(throng_scene_world(s)));
	free(twice);
	free(text);
	throng_scene_destroy(again);
	throng_scene_destroy(s);
}

// ---------------------------------------------------------------------------
// Part worlds
// ---------------------------------------------------------------------------

/// Loads every agent of `whole` into a part of it without a sync: refused,
/// naming units (their morale needs the parts' sums).
static void part_refuses(const throng_world* whole)
{
	throng_world* part = NULL;
	cr_assert_eq(throng_part_create(whole, 1, 64, &part), THRONG_OK, "%s", throng_last_error());
	const uint32_t n = throng_world_agent_count(whole);
	throng_agent_record* recs = calloc(n, sizeof *recs);
	for (uint32_t id = 0; id < n; ++id) {
		cr_assert_eq(throng_agent_record_of(whole, id, &recs[id]), THRONG_OK);
	}
	cr_assert_eq(throng_part_load(part, recs, NULL, n, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "throng_part_load: the world has ") != NULL &&
	              strstr(throng_last_error(), "(throng_world_add_unit): their morale needs throng_part_set_sync") != NULL,
	          "%s", throng_last_error());
	free(recs);
	throng_world_destroy(part);
}

Test(units, part_worlds_without_a_sync_refuse_a_scene_with_units)
{
	throng_scene* s = load_standing(NULL);
	part_refuses(throng_scene_world(s));
	throng_scene_destroy(s);
	// A world of the C API whose unit has no combat: refused the same.
	throng_world_def def = throng_world_default_def();
	def.capacity = 4;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	const throng_controller walk = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	uint32_t arch = 0, unit = 0;
	cr_assert_eq(throng_world_add_archetype(w, &walk, &arch), THRONG_OK);
	throng_unit_def u = throng_unit_default_def();
	cr_assert_eq(throng_world_add_unit(w, &u, &unit), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a = throng_agent_default_def();
	a.unit = unit;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	part_refuses(w);
	cr_assert_eq(strcmp(throng_last_error(), "throng_part_load: the world has 1 unit (throng_world_add_unit): their "
	                                         "morale needs throng_part_set_sync first (the parts add up each unit's "
	                                         "sums)"),
	             0, "%s", throng_last_error());
	throng_world_destroy(w);
}
