// SPDX-License-Identifier: MIT
// Formations and orders in scenario files: a group's `formation` and
// `orders` (core/scene/scenario_file_units.c, scenario_file_orders.c;
// docs/SCENARIOS.md, "formation" and "orders").
//
// - A file's unit in a line formation is the unit the C API makes by
//   hand (the march archetype made after the routing one), its soldiers
//   on their slots, worked by hand: the same hash, step by step.
// - Its orders timeline is the C API's throng_world_order_unit calls
//   before the steps where simulated time reaches each `at`: the same
//   hash, step by step.
// - Two armies of 2400 ordered onto each other: both engines and 1 and 2
//   threads agree; a checkpoint resumed mid-timeline steps on to the same
//   hashes as the scene that never stopped.
// - Save, load and save give the same text and the same world.
// - Each bad input gives its FILE:LINE:COL message, naming the key.
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"
#include "throng/units.h"

/// Six soldiers standing on a line from (8, 5) to (13, 5) (their goal
/// where they stand), one unit in a line of three files; ORDERS is
/// replaced by the orders (or nothing).
static const char six[] = "version: 2\n"
                          "world: {bounds: {min: [-50, -50], max: [50, 50], mode: contain}, dt: 0.25}\n"
                          "archetypes:\n"
                          "  foot:\n"
                          "    combat: {health: 10}\n"
                          "    slots: [{kind: separation, neighbor_radius: 0.5}, {kind: seek}]\n"
                          "groups:\n"
                          "  line:\n"
                          "    {count: 6, archetype: foot, spawn: {shape: line, from: [8, 5], to: [13, 5]},\n"
                          "     goal: {offset: [0, 0]}, morale: {}, formation: {kind: line, files: 3}ORDERS}\n";

/// The timeline: dt 0.25, so the move (0.5 s) is given before step 2, the
/// turn (3 s) before step 12, the hold (4.9 s: 4.75 < 4.9 <= 5) before
/// step 20 and the charge (6 s) before step 24.
static const char timeline[] = ",\n     orders: [{order: move, at: 0.5, to: [15, 5]}, {order: turn, at: 3, face: [0, 2]},\n"
                               "              {order: hold, at: 4.9}, {order: charge, at: 6}]";

static throng_scene* load_six(const char* orders, const throng_scene_def* def)
{
	char text[2048];
	const char* at = strstr(six, "ORDERS");
	snprintf(text, sizeof text, "%.*s%s%s", (int)(at - six), six, orders, at + 6);
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("six.yaml", text, strlen(text), def, NULL, NULL, &s), THRONG_OK, "%s",
	             throng_last_error());
	return s;
}

/// The scene's world made through the C API: its archetype foot (as the
/// file states it), the routing and march archetypes made from it, the
/// unit, and six soldiers placed as the file's line spawn places them.
static throng_world* by_hand(throng_scene* s)
{
	const throng_world* sw = throng_scene_world(s);
	throng_world_def def = throng_world_get_def(sw);
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller foot;
	cr_assert_eq(throng_world_get_controller(sw, 0, &foot), THRONG_OK);
	const throng_controller routing = throng_controller_routing(&foot);
	const throng_controller march = throng_controller_formation(&foot);
	cr_assert_eq(thr_test_archetype(w, &foot), 0u);
	cr_assert_eq(thr_test_archetype(w, &routing), 1u);
	cr_assert_eq(thr_test_archetype(w, &march), 2u);
	throng_unit_def u = throng_unit_default_def();
	u.archetype = 0;
	u.rout_archetype = 1;
	u.march_archetype = 2;
	u.formation.kind = THRONG_FORMATION_LINE;
	u.formation.files = 3;
	uint32_t unit = 9;
	cr_assert_eq(throng_world_add_unit(w, &u, &unit), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(unit, 0u);
	for (uint32_t i = 0; i < 6; ++i) {
		throng_agent_def a = throng_agent_default_def();
		const float t = (float)i / 5.0f; // the line spawn's own expression
		a.position = (throng_vec2){8.0f + (13.0f - 8.0f) * t, 5.0f + (5.0f - 5.0f) * t};
		a.heading = (throng_vec2){0.0f, 0.0f};
		a.target = a.position; // goal: {offset: [0, 0]}: they stand until formed
		a.archetype = 0;
		a.group = 0;
		a.unit = 0;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

static void scene_step(throng_scene* s)
{
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
}

Test(formation_file, a_unit_in_a_line_is_in_its_slots_as_the_c_api_puts_it)
{
	throng_scene* s = load_six("", NULL);
	const throng_world* sw = throng_scene_world(s);
	// The file's archetype, the routing one, then the march one.
	cr_assert_eq(throng_world_archetype_count(sw), 3u);
	throng_world* w = by_hand(s);
	cr_assert_eq(throng_world_hash(sw), throng_world_hash(w), "before the first step");
	for (uint32_t k = 0; k < 40; ++k) {
		scene_step(s);
		thr_test_step(w);
		cr_assert_eq(throng_world_hash(sw), throng_world_hash(w), "after step %u", k);
		if (k == 0) {
			// Anchored at the centre (10.5, 5), facing +x: the first rank
			// 0.5 m ahead, files 1 m apart from the left.
			const throng_unit_state st = thr_test_unit(sw, 0);
			cr_assert(st.anchor.x == 10.5f && st.anchor.y == 5.0f && st.heading.x == 1.0f && st.heading.y == 0.0f,
			          "anchor (%g, %g) heading (%g, %g)", (double)st.anchor.x, (double)st.anchor.y,
			          (double)st.heading.x, (double)st.heading.y);
			const float slot[6][2] = {{11, 6}, {11, 5}, {11, 4}, {10, 6}, {10, 5}, {10, 4}};
			for (uint32_t id = 0; id < 6; ++id) {
				const throng_agent_state a = thr_test_agent(sw, id);
				cr_assert(a.target.x == slot[id][0] && a.target.y == slot[id][1], "soldier %u: slot (%g, %g)", id,
				          (double)a.target.x, (double)a.target.y);
				cr_assert_eq(a.archetype, 2u, "soldier %u marches", id);
			}
		}
	}
	throng_world_destroy(w);
	throng_scene_destroy(s);
}

Test(formation_file, an_orders_timeline_is_the_c_api_orders_at_the_steps_time_reaches_them)
{
	throng_scene* s = load_six(timeline, NULL);
	const throng_world* sw = throng_scene_world(s);
	throng_world* w = by_hand(s);
	const struct {
		uint32_t step;
		throng_order order;
	} given[] = {{2, {THRONG_ORDER_MOVE, {15.0f, 5.0f}}},
	             {12, {THRONG_ORDER_TURN, {0.0f, 2.0f}}},
	             {20, {THRONG_ORDER_HOLD, {0.0f, 0.0f}}},
	             {24, {THRONG_ORDER_CHARGE, {0.0f, 0.0f}}}};
	uint32_t next = 0;
	for (uint32_t k = 0; k < 40; ++k) {
		if (next < 4 && given[next].step == k) {
			cr_assert_eq(throng_world_order_unit(w, 0, given[next].order), THRONG_OK, "%s", throng_last_error());
			++next;
		}
		scene_step(s);
		thr_test_step(w);
		cr_assert_eq(throng_world_hash(sw), throng_world_hash(w), "after step %u", k);
		const throng_unit_state st = thr_test_unit(sw, 0);
		const throng_order_kind want = k < 2    ? THRONG_ORDER_HALT
		                               : k < 12 ? THRONG_ORDER_MOVE
		                               : k < 20 ? THRONG_ORDER_TURN
		                               : k < 24 ? THRONG_ORDER_HOLD
		                                        : THRONG_ORDER_CHARGE;
		// A move or a turn done becomes a halt.
		cr_assert(st.order.kind == want || (st.order.kind == THRONG_ORDER_HALT && k >= 2 && k < 20),
		          "step %u: order %d, want %d", k, (int)st.order.kind, (int)want);
		if (k == 11) {
			// 4.5 m at 1 m/s: 18 steps of 0.25 s, not there yet after 10.
			cr_assert(st.anchor.x > 10.5f && st.anchor.x < 15.0f, "anchor at %g", (double)st.anchor.x);
		}
	}
	cr_assert(thr_test_unit(sw, 0).charging);
	throng_world_destroy(w);
	throng_scene_destroy(s);
}

/// Two armies of 2400 (above the library's threshold for threads), each a
/// unit in a line of 60 files, ordered onto each other's ground; east
/// halts at 2 s and west charges at 4 s.
static const char armies[] =
	"version: 2\n"
	"world: {bounds: {min: [-100, -100], max: [100, 100], mode: contain}, dt: 0.1}\n"
	"archetypes:\n"
	"  west:\n"
	"    target_rule: {label: 1, sight_radius: 30}\n"
	"    combat: {health: 30, attack: melee, reach: 0.5, damage: 10}\n"
	"    slots: [{kind: separation, priority: true, neighbor_radius: 0.6}, {kind: pursuit, target: agent}]\n"
	"  east:\n"
	"    target_rule: {label: 0, sight_radius: 30}\n"
	"    combat: {health: 30, attack: melee, reach: 0.5, damage: 8}\n"
	"    slots: [{kind: separation, priority: true, neighbor_radius: 0.6}, {kind: pursuit, target: agent}]\n"
	"groups:\n"
	"  west_line:\n"
	"    {id: 0, count: 2400, archetype: west, spawn: {shape: grid, center: [-8, 0], spacing: [0.7, 0.7], "
	"columns: 60},\n"
	"     morale: {breaks_at: 0.5}, formation: {kind: line, files: 60, spacing: 0.7, rank_spacing: 0.7, speed: 2},\n"
	"     orders: [{order: move, at: 0, to: [4, 0]}, {order: charge, at: 4}]}\n"
	"  east_line:\n"
	"    {id: 1, count: 2400, archetype: east, spawn: {shape: grid, center: [8, 0], spacing: [0.7, 0.7], "
	"columns: 60},\n"
	"     morale: {}, formation: {kind: line, files: 60, spacing: 0.7, rank_spacing: 0.7, speed: 2},\n"
	"     orders: [{order: move, at: 0, to: [-4, 0]}, {order: halt, at: 2}]}\n";

static throng_scene* load_armies(throng_engine engine, uint32_t threads)
{
	throng_scene_def def = throng_scene_default_def();
	def.engine = engine;
	def.threads = threads;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("armies.yaml", armies, strlen(armies), &def, NULL, NULL, &s), THRONG_OK,
	             "%s", throng_last_error());
	return s;
}

/// `s`'s checkpoint in malloc'd memory, its size in *n.
static void* checkpoint(const throng_scene* s, size_t* n)
{
	cr_assert_eq(throng_scene_write_checkpoint(s, NULL, 0, n), THRONG_OK, "%s", throng_last_error());
	void* buf = malloc(*n);
	cr_assert_eq(throng_scene_write_checkpoint(s, buf, *n, n), THRONG_OK, "%s", throng_last_error());
	return buf;
}

Test(formation_file, both_engines_and_one_and_two_threads_agree_and_a_checkpoint_resumes_mid_timeline)
{
	enum { STEPS = 60, CK = 3 };
	// Checkpoints at step 20 (the halt due, not yet given), 21 and 30.
	const uint32_t at[CK] = {20, 21, 30};
	throng_scene* s[3] = {load_armies(THRONG_ENGINE_SCALAR, 1), load_armies(THRONG_ENGINE_SIMD, 1),
	                      load_armies(THRONG_ENGINE_SIMD, 2)};
	void* ck[CK] = {NULL};
	size_t size[CK] = {0};
	uint64_t hash[STEPS];
	for (uint32_t k = 0; k < STEPS; ++k) {
		for (uint32_t c = 0; c < CK; ++c) {
			if (at[c] == k) {
				ck[c] = checkpoint(s[2], &size[c]);
			}
		}
		for (int e = 0; e < 3; ++e) {
			scene_step(s[e]);
		}
		hash[k] = throng_world_hash(throng_scene_world(s[0]));
		cr_assert_eq(throng_world_hash(throng_scene_world(s[1])), hash[k], "step %u: simd, 1 thread", k);
		cr_assert_eq(throng_world_hash(throng_scene_world(s[2])), hash[k], "step %u: simd, 2 threads", k);
	}
	// The battle was joined: somebody struck (a soldier lost health or fell).
	const throng_unit_state west = thr_test_unit(throng_scene_world(s[0]), 0);
	const throng_unit_state east = thr_test_unit(throng_scene_world(s[0]), 1);
	cr_assert(west.order.kind == THRONG_ORDER_CHARGE && (west.charging || west.routing) && west.count < 2400,
	          "west charged: order %d charging %d routing %d count %u", (int)west.order.kind, west.charging,
	          west.routing, west.count);
	cr_assert(east.order.kind == THRONG_ORDER_HALT && east.count < 2400, "east halted: order %d count %u",
	          (int)east.order.kind, east.count);
	for (uint32_t c = 0; c < CK; ++c) {
		throng_scene* r = NULL;
		cr_assert_eq(throng_scene_read_checkpoint(ck[c], size[c], NULL, &r), THRONG_OK, "%s", throng_last_error());
		for (uint32_t k = at[c]; k < STEPS; ++k) {
			scene_step(r);
			cr_assert_eq(throng_world_hash(throng_scene_world(r)), hash[k], "resumed at %u: step %u", at[c], k);
		}
		throng_scene_destroy(r);
		free(ck[c]);
	}
	for (int e = 0; e < 3; ++e) {
		throng_scene_destroy(s[e]);
	}
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

Test(formation_file, save_load_save_gives_the_same_text_and_the_same_world)
{
	throng_scene* s = load_six(timeline, NULL);
	char* text = save(s);
	// Every formation field; the orders one a line, the word first; the
	// made archetypes not listed.
	cr_assert(strstr(text, "    formation: {kind: line, files: 3, spacing: 1, rank_spacing: 1, speed: 1, turn_rate: "
	                       "0.5}\n"
	                       "    orders:\n"
	                       "      - {order: move, at: 0.5, to: [15, 5]}\n"
	                       "      - {order: turn, at: 3, face: [0, 2]}\n"
	                       "      - {order: hold, at: 4.9}\n"
	                       "      - {order: charge, at: 6}\n") != NULL,
	          "%s", text);
	throng_scene* again = thr_test_load_text("saved.yaml", text);
	char* twice = save(again);
	cr_assert_str_eq(twice, text);
	cr_assert_eq(throng_world_archetype_count(throng_scene_world(again)), 3u);
	for (int k = 0; k < 40; ++k) {
		scene_step(s);
		scene_step(again);
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), throng_world_hash(throng_scene_world(s)));
	free(twice);
	free(text);
	throng_scene_destroy(again);
	throng_scene_destroy(s);
}

Test(formation_file, a_named_march_archetype_is_saved_by_name_and_no_march_archetype_is_made)
{
	static const char text[] =
		"version: 2\n"
		"archetypes:\n"
		"  foot: {combat: {health: 10}, slots: [{kind: seek}]}\n"
		"  drill: {combat: {health: 10}, slots: [{kind: arrive, slow_radius: 1}]}\n"
		"groups:\n"
		"  g: {count: 4, archetype: foot, spawn: {shape: line, from: [0, 0], to: [3, 0]},\n"
		"      morale: {rout_archetype: drill}, formation: {kind: wedge, march_archetype: drill}}\n";
	throng_scene* s = thr_test_load_text("named.yaml", text);
	cr_assert_eq(throng_world_archetype_count(throng_scene_world(s)), 2u, "nothing made");
	char* saved = save(s);
	cr_assert(strstr(saved, "turn_rate: 0.5, march_archetype: \"drill\"}\n") != NULL, "%s", saved);
	free(saved);
	scene_step(s);
	cr_assert_eq(thr_test_agent(throng_scene_world(s), 0).archetype, 1u, "marches as drill");
	throng_scene_destroy(s);
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

/// A file (`version` its first line, or none) of archetypes a (with
/// combat) and b (without), and group g: `group`'s text from line 8 (9
/// with a version line); refused with exactly the messages `want`.
static void refused(const char* version, const char* group, const char* want)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "%s"
	         "world: {bounds: {min: [-10, -10], max: [10, 10]}}\n"
	         "archetypes:\n"
	         "  a: {combat: {health: 5}, slots: [{kind: seek}]}\n"
	         "  b: {slots: [{kind: seek}]}\n"
	         "groups:\n"
	         "  g:\n"
	         "    {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}\n"
	         "%s",
	         version, group);
	// The group's mapping is closed on line 7 (8): `group` adds keys by
	// reopening it in block style instead.
	char* close = strstr(text, "    {count: 2");
	const char block[] = "    count: 2\n    archetype: a\n    spawn: {shape: line, from: [0, 0], to: [1, 0]}\n";
	memmove(close + strlen(block), close + strlen("    {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], "
	                                                 "to: [1, 0]}}\n"),
	        strlen(close) - strlen("    {count: 2, archetype: a, spawn: {shape: line, from: [0, 0], to: [1, 0]}}\n") +
	            1u);
	memcpy(close, block, strlen(block));
	static thr_test_messages m;
	memset(&m, 0, sizeof m);
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_memory("bad.yaml", text, strlen(text), thr_test_collect, &m, &problems),
	             THRONG_ERR_INVALID_ARGUMENT, "accepted:\n%s", text);
	cr_assert_str_eq(m.text, want, "got:\n%swant:\n%s\nin:\n%s", m.text, want, text);
	cr_assert_eq(problems, m.count);
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("bad.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
}

#define UNIT "    morale: {}\n"
#define LINE "    formation: {kind: line}\n"

Test(formation_file, bad_formations_and_orders_are_refused_at_their_key)
{
	const char* const v2 = "version: 2\n";
	const struct {
		const char* group;
		const char* want;
	} cases[] = {
	    {LINE, "bad.yaml:11:16: groups.g.formation: a formation is a unit's, and the group is no unit (expected "
	           "morale: {...} beside it; morale: {} is a unit with the default morale)\n"},
	    {UNIT "    formation: {kind: none}\n",
	     "bad.yaml:12:23: groups.g.formation.kind: got none, which is no formation (expected one of: line, column, "
	     "square, wedge; or no formation)\n"},
	    {UNIT "    formation: {kind: ring}\n",
	     "bad.yaml:12:23: groups.g.formation.kind: unknown formation kind \"ring\", did you mean line? (expected one "
	     "of: none, line, column, square, wedge)\n"},
	    {UNIT "    formation: {files: 3}\n",
	     "bad.yaml:12:16: groups.g.formation.kind: missing (expected one of: line, column, square, wedge)\n"},
	    {UNIT "    formation: {kind: line, spacing: 0, speed: 2e3, turn_rate: -1, files: -1, rank: 1}\n",
	     "bad.yaml:12:38: groups.g.formation.spacing: got 0, out of range (expected a number > 0 and <= 1e3)\n"
	     "bad.yaml:12:48: groups.g.formation.speed: got 2e3, out of range (expected a number > 0 and <= 1e3)\n"
	     "bad.yaml:12:64: groups.g.formation.turn_rate: got -1, out of range (expected a number > 0 and <= 1e3)\n"
	     "bad.yaml:12:75: groups.g.formation.files: got -1, out of range (expected a whole number from 0 to "
	     "4294967295)\n"
	     "bad.yaml:12:79: groups.g.formation.rank: unknown key (expected one of: kind, files, spacing, rank_spacing, "
	     "speed, turn_rate, march_archetype)\n"},
	    {UNIT "    formation: {kind: line, march_archetype: c}\n",
	     "bad.yaml:12:46: groups.g.formation.march_archetype: unknown archetype \"c\", did you mean a? (expected one "
	     "of: a, b)\n"},
	    {UNIT "    formation: {kind: line, march_archetype: b}\n",
	     "bad.yaml:12:46: groups.g.formation.march_archetype: archetype b has no combat, and the group's archetype a "
	     "has: a marching soldier keeps its health and strikes whoever comes within reach (expected an archetype "
	     "with combat: {...})\n"},
	    {UNIT "    orders: [{order: halt, at: 0}]\n",
	     "bad.yaml:12:13: groups.g.orders: orders are for a unit in formation, and the group has no formation "
	     "(expected formation: {kind: ...} and morale: {...} beside them)\n"},
	    {UNIT LINE "    orders: {order: halt, at: 0}\n",
	     "bad.yaml:13:13: groups.g.orders: got a mapping (expected a list of orders [{order: move, at: 0, to: [x, "
	     "y]}, ...])\n"},
	    {UNIT LINE "    orders: [{order: march, at: 0}]\n",
	     "bad.yaml:13:22: groups.g.orders[0].order: unknown order \"march\" (expected one of: halt, move, turn, "
	     "charge, hold)\n"},
	    {UNIT LINE "    orders: [{order: move, to: [1, 1]}, {order: turn, at: 1, to: [1, 0]}]\n",
	     "bad.yaml:13:14: groups.g.orders[0].at: missing (expected a number >= 0 and <= 1e6)\n"
	     "bad.yaml:13:41: groups.g.orders[1].face: missing (expected [x, y], each a number from -1e6 to 1e6)\n"
	     "bad.yaml:13:62: groups.g.orders[1].to: not a parameter of turn (expected one of: order, at, face)\n"},
	    {UNIT LINE "    orders: [{order: turn, at: 1, face: [0, 0]}, {order: move, at: 2}, {order: halt, at: -1}]\n",
	     "bad.yaml:13:41: groups.g.orders[0].face: got [0, 0], no direction (expected a direction [dx, dy])\n"
	     "bad.yaml:13:50: groups.g.orders[1].to: missing (expected [x, y], each a number from -1e6 to 1e6)\n"
	     "bad.yaml:13:90: groups.g.orders[2].at: got -1, out of range (expected a number >= 0 and <= 1e6)\n"},
	    {UNIT LINE "    orders: [{order: halt, at: 10}, {order: hold, at: 5}]\n",
	     "bad.yaml:13:55: groups.g.orders[1].at: got 5, before the order above it (at 10) (expected the orders in "
	     "time order)\n"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		refused(v2, cases[k].group, cases[k].want);
	}
	refused("", UNIT LINE "    orders: [{order: halt, at: 0}]\n",
	        "bad.yaml:3:15: archetypes.a.combat: a version 2 key in a version 1 file (expected version: 2 at the "
	        "top)\n"
	        "bad.yaml:10:13: groups.g.morale: a version 2 key in a version 1 file (expected version: 2 at the top)\n"
	        "bad.yaml:11:16: groups.g.formation: a version 2 key in a version 1 file (expected version: 2 at the "
	        "top)\n"
	        "bad.yaml:12:13: groups.g.orders: a version 2 key in a version 1 file (expected version: 2 at the "
	        "top)\n");
}
