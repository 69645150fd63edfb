// SPDX-License-Identifier: MIT
// throng._throng: events, zones, sources and sinks, bodies (module.h; units
// are in units.c, the helpers both use in events_args.h).
//
// Events and bodies are handed to Python as a copy (a bytearray the
// package reads as a NumPy structured array laid out as the C struct,
// _layouts() giving the offsets), not as a view: the library keeps them
// valid only "until the next call that changes the world" (events.h,
// throng_world_bodies), which is any setter, not only the calls that may
// grow the store and that the views' export count guards. The lists are
// short (a step's events, the fallen), so the copy costs little.
//
// Defs cross as dicts checked field by field (the tables below, as in
// fields.c); a def's name (a char array) and a polygon's points (a
// pointer) cross as their own arguments.
#include <stdio.h>
#include <string.h>

#include "events_args.h"

_Static_assert(sizeof(throng_event_kind) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_zone_shape) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_source_shape) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_formation_kind) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_order_kind) == sizeof(int), "int-sized enum");

static const char* zone_shape_name(int value)
{
	return value >= 0 && value <= THRONG_ZONE_POLYGON ? throng_zone_shape_name((throng_zone_shape)value) : NULL;
}

static const char* source_shape_name(int value)
{
	return value >= 0 && value <= THRONG_SOURCE_SEGMENT ? throng_source_shape_name((throng_source_shape)value)
	                                                     : NULL;
}

static const field_desc zone_fields[] = {
	E(throng_zone_def, shape, zone_shape_name), F(throng_zone_def, center, FT_VEC),
	F(throng_zone_def, radius, FT_F32),         F(throng_zone_def, min, FT_VEC),
	F(throng_zone_def, max, FT_VEC),            F(throng_zone_def, sink, FT_BOOL),
};

static const field_desc source_fields[] = {
	E(throng_source_def, shape, source_shape_name),
	F(throng_source_def, min, FT_VEC),
	F(throng_source_def, max, FT_VEC),
	F(throng_source_def, center, FT_VEC),
	F(throng_source_def, radius, FT_F32),
	F(throng_source_def, from, FT_VEC),
	F(throng_source_def, to, FT_VEC),
	F(throng_source_def, rate, FT_F32),
	F(throng_source_def, count, FT_U32),
	F(throng_source_def, start, FT_F32),
	F(throng_source_def, stop, FT_F32),
	F(throng_source_def, relative_target, FT_BOOL),
};

static const field_desc source_state_fields[] = {
	F(throng_source_state, added, FT_U64),
	F(throng_source_state, waiting, FT_U64),
	F(throng_source_state, waited_steps, FT_U64),
	F(throng_source_state, done, FT_BOOL),
};

// throng_agent_def (a source's template); position is the source's to draw.
static const field_desc agent_def_fields[] = {
	F(throng_agent_def, velocity, FT_VEC),   F(throng_agent_def, heading, FT_VEC),
	F(throng_agent_def, max_speed, FT_F32),  F(throng_agent_def, max_force, FT_F32),
	F(throng_agent_def, radius, FT_F32),     F(throng_agent_def, archetype, FT_U32),
	F(throng_agent_def, group, FT_U32),      F(throng_agent_def, target, FT_VEC),
	F(throng_agent_def, target_agent, FT_U32), F(throng_agent_def, path, FT_U32),
	F(throng_agent_def, unit, FT_U32),
};

// ---------------------------------------------------------------- events

/// _layouts(): {"event": {...}, "body": {...}}: each struct's itemsize and
/// its fields' offsets (the package builds the NumPy dtypes from them).
static PyObject* layouts(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	return Py_BuildValue("{s:{s:n,s:n,s:n,s:n,s:n,s:n,s:n},s:{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n}}",
	                     "event", "itemsize", (Py_ssize_t)sizeof(throng_event), "step",
	                     (Py_ssize_t)offsetof(throng_event, step), "kind", (Py_ssize_t)offsetof(throng_event, kind),
	                     "agent", (Py_ssize_t)offsetof(throng_event, agent), "zone",
	                     (Py_ssize_t)offsetof(throng_event, zone), "source", (Py_ssize_t)offsetof(throng_event, source),
	                     "other", (Py_ssize_t)offsetof(throng_event, other), "body", "itemsize",
	                     (Py_ssize_t)sizeof(throng_body), "position", (Py_ssize_t)offsetof(throng_body, position),
	                     "facing", (Py_ssize_t)offsetof(throng_body, facing), "radius",
	                     (Py_ssize_t)offsetof(throng_body, radius), "agent", (Py_ssize_t)offsetof(throng_body, agent),
	                     "killer", (Py_ssize_t)offsetof(throng_body, killer), "group",
	                     (Py_ssize_t)offsetof(throng_body, group), "archetype",
	                     (Py_ssize_t)offsetof(throng_body, archetype), "unit", (Py_ssize_t)offsetof(throng_body, unit),
	                     "obstacle", (Py_ssize_t)offsetof(throng_body, obstacle), "step",
	                     (Py_ssize_t)offsetof(throng_body, step));
}

/// _names(): the library's names of its enums, in value order, and the
/// "none" constants.
static PyObject* names(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	PyObject* kinds = PyTuple_New(THRONG_EVENT_WAITED + 1);
	if (kinds == NULL) {
		return NULL;
	}
	for (int k = 0; k <= THRONG_EVENT_WAITED; ++k) {
		PyObject* s = PyUnicode_FromString(throng_event_kind_name((throng_event_kind)k));
		if (s == NULL) {
			Py_DECREF(kinds);
			return NULL;
		}
		PyTuple_SET_ITEM(kinds, k, s);
	}
	return Py_BuildValue("{s:N,s:(sss),s:(sss),s:(sssss),s:(sssss),s:k,s:k,s:k,s:i,s:i}", "event_kinds", kinds,
	                     "zone_shapes", zone_shape_name(0), zone_shape_name(1), zone_shape_name(2), "source_shapes",
	                     source_shape_name(0), source_shape_name(1), source_shape_name(2), "formation_kinds",
	                     formation_kind_name(0), formation_kind_name(1), formation_kind_name(2),
	                     formation_kind_name(3), formation_kind_name(4), "order_kinds", order_kind_name(0),
	                     order_kind_name(1), order_kind_name(2), order_kind_name(3), order_kind_name(4), "NO_ZONE",
	                     (unsigned long)THRONG_NO_ZONE, "NO_SOURCE", (unsigned long)THRONG_NO_SOURCE, "NO_UNIT",
	                     (unsigned long)THRONG_NO_UNIT, "MAX_ZONES", THRONG_MAX_ZONES, "MAX_SOURCES",
	                     THRONG_MAX_SOURCES);
}

/// _events(world): the events listed now (throng_world_events), copied
/// into a bytearray of count * sizeof(throng_event).
static PyObject* events(PyObject* module, PyObject* arg)
{
	(void)module;
	world_object* w = world_arg(arg, "events");
	if (w == NULL) {
		return NULL;
	}
	const throng_event* list = NULL;
	uint32_t count = 0;
	throng_status st = throng_world_events(w->world, &list, &count);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyByteArray_FromStringAndSize(count > 0 ? (const char*)list : "",
	                                     (Py_ssize_t)count * (Py_ssize_t)sizeof *list);
}

/// _bodies(world): the bodies on the ground (throng_world_bodies), copied
/// into a bytearray of count * sizeof(throng_body).
static PyObject* bodies(PyObject* module, PyObject* arg)
{
	(void)module;
	world_object* w = world_arg(arg, "bodies");
	if (w == NULL) {
		return NULL;
	}
	const throng_body* list = NULL;
	uint32_t count = 0;
	throng_status st = throng_world_bodies(w->world, &list, &count);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyByteArray_FromStringAndSize(count > 0 ? (const char*)list : "",
	                                     (Py_ssize_t)count * (Py_ssize_t)sizeof *list);
}

/// _set_arrival_radius(world, radius)
static PyObject* set_arrival_radius(PyObject* module, PyObject* args)
{
	(void)module;
	static const field_desc radius_field = {"radius", 0, FT_F32, NULL};
	PyObject *obj, *value;
	float radius = 0.0f;
	if (!PyArg_ParseTuple(args, "OO:_set_arrival_radius", &obj, &value)) {
		return NULL;
	}
	world_object* w = world_type(obj, "set_arrival_radius");
	if (w == NULL || thr_py_set_field(value, &radius, &radius_field, "World.set_arrival_radius") != 0 ||
	    ready(w, "set_arrival_radius") != 0) {
		return NULL;
	}
	throng_status st = throng_world_set_arrival_radius(w->world, radius);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

// ----------------------------------------------------------------- zones

/// _add_zone(world, fields, name, points): fields a dict of
/// throng_zone_def's by name, points None or a C-contiguous float32
/// buffer of (x, y) pairs. Returns the zone's id.
static PyObject* add_zone(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *fields, *name, *points_obj;
	if (!PyArg_ParseTuple(args, "OOOO:_add_zone", &obj, &fields, &name, &points_obj)) {
		return NULL;
	}
	world_object* w = world_type(obj, "add_zone");
	if (w == NULL) {
		return NULL;
	}
	throng_zone_def def = throng_zone_default_def();
	if (thr_py_dict_to_struct(fields, &def, zone_fields, COUNT(zone_fields), "World.add_zone") != 0 ||
	    name_arg(name, "add_zone", def.name, sizeof def.name) != 0) {
		return NULL;
	}
	Py_buffer points = {0};
	if (points_obj != Py_None) {
		if (PyObject_GetBuffer(points_obj, &points, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
			return NULL;
		}
		if (points.itemsize != 4 || points.format == NULL || strchr(points.format, 'f') == NULL ||
		    points.len % 8 != 0) {
			PyErr_Format(PyExc_TypeError, "World.add_zone: points: expected float32 (x, y) pairs");
			PyBuffer_Release(&points);
			return NULL;
		}
		def.points = points.buf;
		def.point_count = (uint32_t)(points.len / 8 > UINT32_MAX ? UINT32_MAX : points.len / 8);
	}
	uint32_t id = 0;
	throng_status st = THRONG_OK;
	int checked = ready(w, "add_zone");
	if (checked == 0) {
		st = throng_world_add_zone(w->world, &def, &id);
	}
	if (points.obj != NULL) {
		PyBuffer_Release(&points);
	}
	return checked != 0 ? NULL : status_or_id(st, id);
}

/// _get_zone(world, id): (fields dict, name, points bytes or None).
static PyObject* get_zone(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *id_obj;
	uint32_t id;
	if (!PyArg_ParseTuple(args, "OO:_get_zone", &obj, &id_obj)) {
		return NULL;
	}
	world_object* w = world_type(obj, "get_zone");
	if (w == NULL || id_arg(id_obj, "get_zone", "zone", &id) != 0 || ready(w, "get_zone") != 0) {
		return NULL;
	}
	throng_zone_def def;
	throng_status st = throng_world_get_zone(w->world, id, &def, NULL, 0);
	if (st == THRONG_ERR_NOT_FOUND) {
		return thr_py_raise(st, "World.get_zone: id: no zone %u (the world has %u)", id,
		                    throng_world_zone_count(w->world));
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	PyObject* points = NULL;
	if (def.shape == THRONG_ZONE_POLYGON) {
		points = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)def.point_count * (Py_ssize_t)sizeof(throng_vec2));
		if (points == NULL) {
			return NULL;
		}
		st = throng_world_get_zone(w->world, id, &def, (throng_vec2*)PyBytes_AS_STRING(points), def.point_count);
		if (st != THRONG_OK) {
			Py_DECREF(points);
			return thr_py_raise_status(st);
		}
	} else {
		Py_INCREF(Py_None);
		points = Py_None;
	}
	return Py_BuildValue("(NsN)", thr_py_struct_to_dict(&def, zone_fields, COUNT(zone_fields)), def.name, points);
}

/// A name argument as C text; NULL with TypeError (not a str) or
/// InvalidArgument (it holds a NUL, which would end the name early).
static const char* text_arg(PyObject* obj, const char* fn)
{
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "World.%s: name: expected a str, got %.80s", fn, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	Py_ssize_t len = 0;
	const char* text = PyUnicode_AsUTF8AndSize(obj, &len);
	if (text != NULL && strlen(text) != (size_t)len) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.%s: name: %R holds a NUL", fn, obj);
		return NULL;
	}
	return text;
}

/// _find_zone(world, name): the id; NotFound when no zone has that name.
static PyObject* find_zone(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *name;
	if (!PyArg_ParseTuple(args, "OO:_find_zone", &obj, &name)) {
		return NULL;
	}
	world_object* w = world_type(obj, "find_zone");
	const char* text = w != NULL ? text_arg(name, "find_zone") : NULL;
	if (text == NULL || ready(w, "find_zone") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_find_zone(w->world, text, &id);
	if (st == THRONG_ERR_NOT_FOUND) {
		return thr_py_raise(st, "World.find_zone: name: no zone called %R", name);
	}
	return status_or_id(st, id);
}

static PyObject* zone_count(PyObject* module, PyObject* arg)
{
	(void)module;
	world_object* w = world_arg(arg, "zone_count");
	return w == NULL ? NULL : PyLong_FromUnsignedLong(throng_world_zone_count(w->world));
}

// --------------------------------------------------------------- sources

/// _add_source(world, fields, agent, name): fields a dict of
/// throng_source_def's by name, agent a dict of its throng_agent_def's.
static PyObject* add_source(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *fields, *agent, *name;
	if (!PyArg_ParseTuple(args, "OOOO:_add_source", &obj, &fields, &agent, &name)) {
		return NULL;
	}
	world_object* w = world_type(obj, "add_source");
	if (w == NULL) {
		return NULL;
	}
	throng_source_def def = throng_source_default_def();
	if (thr_py_dict_to_struct(fields, &def, source_fields, COUNT(source_fields), "World.add_source") != 0 ||
	    thr_py_dict_to_struct(agent, &def.agent, agent_def_fields, COUNT(agent_def_fields),
	                          "World.add_source: agent") != 0 ||
	    name_arg(name, "add_source", def.name, sizeof def.name) != 0 || ready(w, "add_source") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_add_source(w->world, &def, &id);
	return status_or_id(st, id);
}

/// _get_source(world, id): (fields dict, agent dict, name, state dict).
static PyObject* get_source(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *id_obj;
	uint32_t id;
	if (!PyArg_ParseTuple(args, "OO:_get_source", &obj, &id_obj)) {
		return NULL;
	}
	world_object* w = world_type(obj, "get_source");
	if (w == NULL || id_arg(id_obj, "get_source", "source", &id) != 0 || ready(w, "get_source") != 0) {
		return NULL;
	}
	throng_source_def def;
	throng_source_state state;
	throng_status st = throng_world_get_source(w->world, id, &def, &state);
	if (st == THRONG_ERR_NOT_FOUND) {
		return thr_py_raise(st, "World.get_source: id: no source %u (the world has %u)", id,
		                    throng_world_source_count(w->world));
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return Py_BuildValue("(NNsN)", thr_py_struct_to_dict(&def, source_fields, COUNT(source_fields)),
	                     thr_py_struct_to_dict(&def.agent, agent_def_fields, COUNT(agent_def_fields)), def.name,
	                     thr_py_struct_to_dict(&state, source_state_fields, COUNT(source_state_fields)));
}

static PyObject* find_source(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *obj, *name;
	if (!PyArg_ParseTuple(args, "OO:_find_source", &obj, &name)) {
		return NULL;
	}
	world_object* w = world_type(obj, "find_source");
	const char* text = w != NULL ? text_arg(name, "find_source") : NULL;
	if (text == NULL || ready(w, "find_source") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_find_source(w->world, text, &id);
	if (st == THRONG_ERR_NOT_FOUND) {
		return thr_py_raise(st, "World.find_source: name: no source called %R", name);
	}
	return status_or_id(st, id);
}

static PyObject* source_count(PyObject* module, PyObject* arg)
{
	(void)module;
	world_object* w = world_arg(arg, "source_count");
	return w == NULL ? NULL : PyLong_FromUnsignedLong(throng_world_source_count(w->world));
}

PyMethodDef thr_py_events_functions[] = {
	{"_layouts", layouts, METH_NOARGS, "Itemsize and field offsets of throng_event and throng_body."},
	{"_names", names, METH_NOARGS, "Enum names and constants of events, zones, sources, units."},
	{"_events", events, METH_O, "_events(world): the listed events, copied (bytearray)."},
	{"_bodies", bodies, METH_O, "_bodies(world): the bodies, copied (bytearray)."},
	{"_set_arrival_radius", set_arrival_radius, METH_VARARGS, "_set_arrival_radius(world, radius)"},
	{"_add_zone", add_zone, METH_VARARGS, "_add_zone(world, fields, name, points) -> id"},
	{"_get_zone", get_zone, METH_VARARGS, "_get_zone(world, id) -> (fields, name, points)"},
	{"_find_zone", find_zone, METH_VARARGS, "_find_zone(world, name) -> id"},
	{"_zone_count", zone_count, METH_O, "_zone_count(world) -> int"},
	{"_add_source", add_source, METH_VARARGS, "_add_source(world, fields, agent, name) -> id"},
	{"_get_source", get_source, METH_VARARGS, "_get_source(world, id) -> (fields, agent, name, state)"},
	{"_find_source", find_source, METH_VARARGS, "_find_source(world, name) -> id"},
	{"_source_count", source_count, METH_O, "_source_count(world) -> int"},
	{NULL, NULL, 0, NULL},
};
