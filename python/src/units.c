// SPDX-License-Identifier: MIT
// throng._throng: units (throng_world_add_unit, get_unit, order_unit,
// unit_count) and the controllers derived from a fighting one (formation,
// routing), with the tables of their defs; events.c has the rest.
#include "events_args.h"

static const field_desc unit_fields[] = {
	F(throng_unit_def, archetype, FT_U32), F(throng_unit_def, rout_archetype, FT_U32),
	F(throng_unit_def, army, FT_U32),      F(throng_unit_def, has_refuge, FT_BOOL),
	F(throng_unit_def, refuge, FT_VEC),    F(throng_unit_def, march_archetype, FT_U32),
};

static const field_desc morale_fields[] = {
	F(throng_morale, breaks_at, FT_F32),    F(throng_morale, flank, FT_F32),
	F(throng_morale, rear, FT_F32),         F(throng_morale, panic, FT_F32),
	F(throng_morale, panic_radius, FT_F32), F(throng_morale, recovery, FT_F32),
	F(throng_morale, rally_time, FT_F32),   F(throng_morale, rally_morale, FT_F32),
	F(throng_morale, rallies, FT_U32),      F(throng_morale, army_breaks_at, FT_F32),
};

static const field_desc formation_fields[] = {
	E(throng_formation, kind, formation_kind_name), F(throng_formation, files, FT_U32),
	F(throng_formation, spacing, FT_F32),           F(throng_formation, rank_spacing, FT_F32),
	F(throng_formation, speed, FT_F32),             F(throng_formation, turn_rate, FT_F32),
};

static const field_desc unit_state_fields[] = {
	F(throng_unit_state, count, FT_U32),
	F(throng_unit_state, most, FT_U32),
	F(throng_unit_state, morale, FT_F32),
	F(throng_unit_state, shock, FT_F32),
	F(throng_unit_state, routing, FT_BOOL),
	F(throng_unit_state, rallies_left, FT_U32),
	F(throng_unit_state, routed_step, FT_U64),
	F(throng_unit_state, killed, FT_U32),
	F(throng_unit_state, centre, FT_VEC),
	F(throng_unit_state, facing, FT_VEC),
	F(throng_unit_state, refuge, FT_VEC),
	{"order", offsetof(throng_unit_state, order.kind), FT_ENUM, order_kind_name},
	FN(throng_unit_state, "order_point", order.point, FT_VEC),
	F(throng_unit_state, charging, FT_BOOL),
	F(throng_unit_state, anchor, FT_VEC),
	F(throng_unit_state, heading, FT_VEC),
};

// ----------------------------------------------------------------- units

/// _add_unit(world, fields, morale, formation): dicts of throng_unit_def's
/// fields, its throng_morale's and its throng_formation's.
static PyObject* add_unit(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *fields, *morale, *formation;
	if (!PyArg_ParseTuple(args, "OOOO:_add_unit", &obj, &fields, &morale, &formation)) {
		return NULL;
	}
	world_object* w = world_type(obj, "add_unit");
	if (w == NULL) {
		return NULL;
	}
	throng_unit_def def = throng_unit_default_def();
	if (thr_py_dict_to_struct(fields, &def, unit_fields, COUNT(unit_fields), "World.add_unit") != 0 ||
	    thr_py_dict_to_struct(morale, &def.morale, morale_fields, COUNT(morale_fields), "World.add_unit: morale") !=
	        0 ||
	    thr_py_dict_to_struct(formation, &def.formation, formation_fields, COUNT(formation_fields),
	                          "World.add_unit: formation") != 0 ||
	    ready(w, "add_unit") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_add_unit(w->world, &def, &id);
	return status_or_id(st, id);
}

/// _get_unit(world, id): the unit's state as a dict.
static PyObject* get_unit(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *id_obj;
	uint32_t id;
	if (!PyArg_ParseTuple(args, "OO:_get_unit", &obj, &id_obj)) {
		return NULL;
	}
	world_object* w = world_type(obj, "get_unit");
	if (w == NULL || id_arg(id_obj, "get_unit", "unit", &id) != 0 || ready(w, "get_unit") != 0) {
		return NULL;
	}
	if (id >= throng_world_unit_count(w->world)) {
		return thr_py_raise(THRONG_ERR_NOT_FOUND, "World.get_unit: id: no unit %u (the world has %u)", id,
		                    throng_world_unit_count(w->world));
	}
	throng_unit_state state;
	throng_status st = throng_world_get_unit(w->world, id, &state);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return thr_py_struct_to_dict(&state, unit_state_fields, COUNT(unit_state_fields));
}

/// _order_unit(world, id, kind, point)
static PyObject* order_unit(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *id_obj, *kind, *point;
	uint32_t id;
	if (!PyArg_ParseTuple(args, "OOOO:_order_unit", &obj, &id_obj, &kind, &point)) {
		return NULL;
	}
	world_object* w = world_type(obj, "order_unit");
	if (w == NULL || id_arg(id_obj, "order_unit", "unit", &id) != 0) {
		return NULL;
	}
	static const field_desc order_fields[] = {
		E(throng_order, kind, order_kind_name),
		F(throng_order, point, FT_VEC),
	};
	throng_order order = {.kind = THRONG_ORDER_HALT};
	if (thr_py_set_field(kind, &order, &order_fields[0], "World.order_unit") != 0 ||
	    thr_py_set_field(point, &order, &order_fields[1], "World.order_unit") != 0 || ready(w, "order_unit") != 0) {
		return NULL;
	}
	if (id >= throng_world_unit_count(w->world)) {
		return thr_py_raise(THRONG_ERR_NOT_FOUND, "World.order_unit: id: no unit %u (the world has %u)", id,
		                    throng_world_unit_count(w->world));
	}
	throng_status st = throng_world_order_unit(w->world, id, order);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

static PyObject* unit_count(PyObject* module, PyObject* arg)
{
	(void)module;
	world_object* w = world_arg(arg, "unit_count");
	return w == NULL ? NULL : PyLong_FromUnsignedLong(throng_world_unit_count(w->world));
}

// ----------------------------------------------------------- controllers

/// _controller_formation(dict), _controller_routing(dict): the marching
/// or routing controller made from a fighting one, as a dict.
static PyObject* derived_controller(PyObject* dict, bool routing)
{
	throng_controller fighting;
	if (thr_py_controller_from_dict(dict, &fighting) != 0) {
		return NULL;
	}
	throng_controller c = routing ? throng_controller_routing(&fighting) : throng_controller_formation(&fighting);
	return thr_py_controller_to_dict(&c);
}

static PyObject* controller_formation(PyObject* module, PyObject* dict)
{
	(void)module;
	return derived_controller(dict, false);
}

static PyObject* controller_routing(PyObject* module, PyObject* dict)
{
	(void)module;
	return derived_controller(dict, true);
}

PyMethodDef thr_py_units_functions[] = {
	{"_controller_formation", controller_formation, METH_O, "throng_controller_formation over dicts"},
	{"_controller_routing", controller_routing, METH_O, "throng_controller_routing over dicts"},
	{"_add_unit", add_unit, METH_VARARGS, "_add_unit(world, fields, morale, formation) -> id"},
	{"_get_unit", get_unit, METH_VARARGS, "_get_unit(world, id) -> dict"},
	{"_order_unit", order_unit, METH_VARARGS, "_order_unit(world, id, kind, point)"},
	{"_unit_count", unit_count, METH_O, "_unit_count(world) -> int"},
	{NULL, NULL, 0, NULL},
};
