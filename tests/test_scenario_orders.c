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
