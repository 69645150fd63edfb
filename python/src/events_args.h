// SPDX-License-Identifier: MIT
// The helpers events.c and units.c share (private to python/src/): the
// enum names of orders and formations, the field-table macros, and the
// arguments (the world, an id, a name) taken in the order described below.
#ifndef THRONG_PYTHON_EVENTS_ARGS_H
#define THRONG_PYTHON_EVENTS_ARGS_H

#include <string.h>

#include "module.h"

static inline const char* order_kind_name(int value)
{
	static const char* const names[] = {"halt", "move", "turn", "charge", "hold"};
	return value >= 0 && value < 5 ? names[value] : NULL;
}

static inline const char* formation_kind_name(int value)
{
	static const char* const names[] = {"none", "line", "column", "square", "wedge"};
	return value >= 0 && value < 5 ? names[value] : NULL;
}

#define FN(S, key, member, type) {key, offsetof(S, member), type, NULL}

// The order of a call: convert every argument, then check the world
// (thr_py_world_check), then call the library, with no Python code between
// the check and the call. A conversion can run Python code (__float__,
// __index__, a dict's values, a buffer's exporter) and that code can let
// another thread start a step of this world, which releases the GIL; a
// check made before the conversions would then pass and the library would
// run beside the step. Functions that convert something take the world
// with world_type (no check yet) and call ready() last.

/// args[0] as a World, not yet checked for use (ready()); NULL with
/// TypeError otherwise.
static inline world_object* world_type(PyObject* obj, const char* fn)
{
	if (!PyObject_TypeCheck(obj, &thr_py_world_type)) {
		PyErr_Format(PyExc_TypeError, "World.%s: expected a throng.World, got %.80s", fn, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	return (world_object*)obj;
}

/// 0 when `w` can be used now (thr_py_world_check): call it after the
/// last conversion, just before the library.
static inline int ready(const world_object* w, const char* fn)
{
	return thr_py_world_check(w, fn);
}

/// The world of args[0] (a World), checked for `fn`, for functions that
/// take nothing else; NULL with an exception set otherwise.
static inline world_object* world_arg(PyObject* obj, const char* fn)
{
	world_object* w = world_type(obj, fn);
	return w != NULL && ready(w, fn) == 0 ? w : NULL;
}

/// An id (a whole number): 0, or -1 with TypeError (not an int) or
/// NotFound naming `what` (negative, or too large to be any id).
static inline int id_arg(PyObject* obj, const char* fn, const char* what, uint32_t* out)
{
	PyObject* index = PyBool_Check(obj) || !PyIndex_Check(obj) ? NULL : PyNumber_Index(obj);
	if (index == NULL) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "World.%s: id: expected a whole number, got %.80s", fn, Py_TYPE(obj)->tp_name);
		return -1;
	}
	int overflow = 0;
	long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
	Py_DECREF(index);
	if (v == -1 && PyErr_Occurred()) {
		return -1;
	}
	if (overflow != 0 || v < 0 || v > (long long)UINT32_MAX) {
		thr_py_raise(THRONG_ERR_NOT_FOUND, "World.%s: id: no %s %R", fn, what, obj);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/// A name into a char array of `cap` (NUL included): 0, or -1 with
/// TypeError or InvalidArgument.
static inline int name_arg(PyObject* obj, const char* fn, char* out, size_t cap)
{
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "World.%s: name: expected a str, got %.80s", fn, Py_TYPE(obj)->tp_name);
		return -1;
	}
	Py_ssize_t len = 0;
	const char* text = PyUnicode_AsUTF8AndSize(obj, &len);
	if (text == NULL) {
		return -1;
	}
	if ((size_t)len >= cap || strlen(text) != (size_t)len) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.%s: name: %R is longer than %zu bytes or holds a NUL", fn,
		             obj, cap - 1);
		return -1;
	}
	memcpy(out, text, (size_t)len + 1);
	return 0;
}

static inline PyObject* status_or_id(throng_status st, uint32_t id)
{
	return st == THRONG_OK ? PyLong_FromUnsignedLong(id) : thr_py_raise_status(st);
}

#endif
