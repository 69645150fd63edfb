// SPDX-License-Identifier: MIT
// Scenario files: a group's `orders` (version 2), the timeline of what
// its unit in formation is told to do (throng_world_order_unit,
// docs/ARMIES.md "Formations and orders").
//
// Why a group key and not a top-level section: an order is for one unit,
// and a unit is one group, so the group is where a reader looks for what
// it will do (as its goal and path say where its agents go); a section
// of its own would repeat the group's name in every entry. Each order is
// a mapping picked by its `order` word, as a spawn is by its `shape`
// (sf_order_table, kinds throng_order_kind): `{at: 30, order: move, to:
// [x, y]}`, `{at: 60, order: turn, face: [dx, dy]}`, `{at: 90, order:
// charge}`, `halt`, `hold`.
//
// When. The scene's script runs before each world step; before step k
// (the one that starts at t = k * dt, in double, as the threat's time) it
// gives the orders whose `at` lies in ((k - 1) * dt, k * dt] (step 0: at
// <= 0), in file order, so the last of several due together is the one
// the unit takes. That is read from the step count alone, never from
// what the script gave before: a scene resumed from a checkpoint (whose
// world keeps each unit's order) gives the same orders from the same
// step, and the script keeps no state to save.
#include <stdio.h>
#include <stdlib.h>

#include "names.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"

#define K(kind) (1u << (kind))
#define ALL_ORDERS                                                                                               \
	(K(THRONG_ORDER_HALT) | K(THRONG_ORDER_MOVE) | K(THRONG_ORDER_TURN) | K(THRONG_ORDER_CHARGE) |             \
	 K(THRONG_ORDER_HOLD))

static const sf_key order_keys[] = {
	{.name = "at", .offset = offsetof(sf_order, at), .type = SF_T_NUMBER, .range = SF_NON_NEGATIVE, .unit = "s",
	 .required = true, .kinds = ALL_ORDERS,
	 .doc = "when it is given: before the first step that starts at or after it; not before the order above"},
	{.name = "to", .offset = offsetof(sf_order, order.point), .type = SF_T_POINT, .range = SF_COORD, .unit = "m",
	 .required = true, .kinds = K(THRONG_ORDER_MOVE),
	 .doc = "where the anchor goes, at the formation's `speed`, wheeling towards it; it halts there"},
	{.name = "face", .offset = offsetof(sf_order, order.point), .type = SF_T_POINT, .range = SF_COORD,
	 .required = true, .kinds = K(THRONG_ORDER_TURN),
	 .doc = "the direction to wheel to (not [0, 0]; its length does not matter); then it halts"},
};
#undef ALL_ORDERS
#undef K

static void order_defaults(void* base)
{
	*(sf_order*)base = (sf_order){0};
}

const sf_table sf_order_table = {.name = "order",
                                 .keys = order_keys,
                                 .count = sizeof order_keys / sizeof order_keys[0],
                                 .defaults = order_defaults,
                                 .size = sizeof(sf_order),
                                 .kind_names = &thr_order_kind_names,
                                 .key_header = "key",
                                 .kinds_header = "orders"};

static void read_order(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_order* o = item;
	(void)key;
	(void)index;
	o->pos = v->pos;
	if (!sf_expect_mapping(c, v, "a mapping with at, order and its parameters")) {
		return;
	}
	const int kind = sf_read_kind(c, v, &sf_order_table, "order", "order");
	if (kind < 0) {
		return;
	}
	o->order.kind = (throng_order_kind)kind;
	const uint64_t failed = sf_read_keys(c, v, &sf_order_table, o, 1u << kind, NULL);
	if (kind == THRONG_ORDER_TURN && (failed & 4u) == 0 && o->order.point.x == 0.0f && o->order.point.y == 0.0f) {
		sf_error_at(c, "face", sf_get(v, "face")->pos, "got [0, 0], no direction (expected a direction [dx, dy])");
	}
}

bool sf_parse_orders(sf_ctx* c, const sf_node* v, sf_group* g)
{
	g->orders_pos = v->pos;
	const uint32_t problems = c->problems;
	g->orders = sf_read_list(c, v, "a list of orders [{order: move, at: 0, to: [x, y]}, ...]", "orders",
	                         SF_MAX_ORDERS, sizeof *g->orders, &g->order_count, read_order);
	if (c->problems != problems) {
		return false;
	}
	// In time order: the timeline reads top to bottom.
	for (uint32_t k = 1; k < g->order_count; ++k) {
		if (g->orders[k].at < g->orders[k - 1u].at) {
			size_t mark = sf_push_index(c, k);
			sf_error_at(c, "at", sf_get(v->items[k], "at")->pos,
			            "got %g, before the order above it (at %g) (expected the orders in time order)",
			            (double)g->orders[k].at, (double)g->orders[k - 1u].at);
			sf_pop(c, mark);
			return false;
		}
	}
	return true;
}

void sf_check_orders(sf_ctx* c, const sf_group* g)
{
	if (g->orders_pos.line != 0 && !g->formation) {
		sf_error_at(c, "orders", g->orders_pos,
		            "orders are for a unit in formation, and the group has no formation (expected formation: "
		            "{kind: ...} and morale: {...} beside them)");
	}
}

/// The first of a group's orders (in time order) given after time t.
static uint32_t first_after(const sf_group* g, double t)
{
	uint32_t lo = 0, hi = g->order_count;
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2u;
		if ((double)g->orders[mid].at > t) {
			hi = mid;
		} else {
			lo = mid + 1u;
		}
	}
	return lo;
}

throng_status sf_give_orders(throng_scene* scene)
{
	const thr_definition* sd = &scene->def;
	const sf_model* m = sd->model;
	// Step k gives the orders due in ((k - 1) * dt, k * dt]: from the step
	// count only, so a resumed scene gives the same (file header).
	const double now = (double)scene->steps * scene->dt;
	const double before = scene->steps == 0 ? -1.0 : (double)(scene->steps - 1u) * scene->dt;
	for (uint32_t k = 0; k < m->group_count; ++k) {
		const sf_group* g = &m->groups[k];
		if (g->order_count == 0 || sd->unit_id == NULL || sd->unit_id[k] == THRONG_NO_UNIT) {
			continue;
		}
		for (uint32_t j = first_after(g, before); j < g->order_count && (double)g->orders[j].at <= now; ++j) {
			const throng_status st = throng_world_order_unit(scene->world, sd->unit_id[k], g->orders[j].order);
			if (st != THRONG_OK) {
				return st;
			}
		}
	}
	return THRONG_OK;
}
