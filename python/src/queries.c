// SPDX-License-Identifier: MIT
// throng._throng: the spatial queries of the living world (throng/query.h):
// radius, box, polygon, nearest and the radius and nearest batches. The
// package's _LivingMixin wraps them; the order of a call is living.c's.
#include "living.h"

// Spatial queries. The filter comes as three uint32 (group, archetype,
// exclude: THRONG_ANY, THRONG_ANY, THRONG_NO_AGENT for "all"); the ids go
// into a writable uint32 buffer the caller made, and the function returns
// the total that matched, so the caller can make a larger buffer and ask
// again.

/// _query_radius(world, cx, cy, radius, group, archetype, exclude, out) -> total.
static PyObject* living_query_radius(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	float cx, cy, radius;
	throng_query_filter filter;
	PyObject* out_obj;
	if (!PyArg_ParseTuple(args, "O!fffIIIO:_query_radius", &thr_py_world_type, &w, &cx, &cy, &radius,
	                      &filter.group, &filter.archetype, &filter.exclude, &out_obj)) {
		return NULL;
	}
	Py_buffer out;
	if (take(out_obj, "World.query_radius", "out", -1, 1, 'I', true, &out) != 0) {
		return NULL;
	}
	uint32_t total = 0;
	if (thr_py_world_check(w, "query_radius") != 0) {
		PyBuffer_Release(&out);
		return NULL;
	}
	throng_status st = throng_world_query_radius(w->world, (throng_vec2){cx, cy}, radius, &filter, out.buf,
	                                             (uint32_t)(out.len / 4), &total);
	PyBuffer_Release(&out);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(total) : raise_prefixed(st, "World.query_radius: ");
}

/// _query_box(world, lox, loy, hix, hiy, group, archetype, exclude, out) -> total.
static PyObject* living_query_box(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	throng_vec2 lo, hi;
	throng_query_filter filter;
	PyObject* out_obj;
	if (!PyArg_ParseTuple(args, "O!ffffIIIO:_query_box", &thr_py_world_type, &w, &lo.x, &lo.y, &hi.x, &hi.y,
	                      &filter.group, &filter.archetype, &filter.exclude, &out_obj)) {
		return NULL;
	}
	Py_buffer out;
	if (take(out_obj, "World.query_box", "out", -1, 1, 'I', true, &out) != 0) {
		return NULL;
	}
	uint32_t total = 0;
	if (thr_py_world_check(w, "query_box") != 0) {
		PyBuffer_Release(&out);
		return NULL;
	}
	throng_status st = throng_world_query_box(w->world, lo, hi, &filter, out.buf, (uint32_t)(out.len / 4), &total);
	PyBuffer_Release(&out);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(total) : raise_prefixed(st, "World.query_box: ");
}

/// _query_polygon(world, points, group, archetype, exclude, out) -> total;
/// points float32 (n, 2).
static PyObject* living_query_polygon(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	throng_query_filter filter;
	PyObject *points_obj, *out_obj;
	if (!PyArg_ParseTuple(args, "O!OIIIO:_query_polygon", &thr_py_world_type, &w, &points_obj, &filter.group,
	                      &filter.archetype, &filter.exclude, &out_obj)) {
		return NULL;
	}
	Py_buffer points, out;
	if (take(points_obj, "World.query_polygon", "points", -1, 2, 'f', false, &points) != 0) {
		return NULL;
	}
	if (take(out_obj, "World.query_polygon", "out", -1, 1, 'I', true, &out) != 0) {
		PyBuffer_Release(&points);
		return NULL;
	}
	uint32_t total = 0;
	Py_ssize_t n = points.len / 8;
	if (thr_py_world_check(w, "query_polygon") != 0) {
		PyBuffer_Release(&out);
		PyBuffer_Release(&points);
		return NULL;
	}
	throng_status st = throng_world_query_polygon(w->world, points.buf, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n,
	                                              &filter, out.buf, (uint32_t)(out.len / 4), &total);
	PyBuffer_Release(&out);
	PyBuffer_Release(&points);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(total) : raise_prefixed(st, "World.query_polygon: ");
}

/// _query_nearest(world, px, py, k, group, archetype, exclude, out) -> total;
/// out has room for k.
static PyObject* living_query_nearest(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	float px, py;
	unsigned int k;
	throng_query_filter filter;
	PyObject* out_obj;
	if (!PyArg_ParseTuple(args, "O!ffIIIIO:_query_nearest", &thr_py_world_type, &w, &px, &py, &k, &filter.group,
	                      &filter.archetype, &filter.exclude, &out_obj)) {
		return NULL;
	}
	Py_buffer out;
	if (take(out_obj, "World.query_nearest", "out", (Py_ssize_t)k, 1, 'I', true, &out) != 0) {
		return NULL;
	}
	uint32_t total = 0;
	if (thr_py_world_check(w, "query_nearest") != 0) {
		PyBuffer_Release(&out);
		return NULL;
	}
	throng_status st = throng_world_query_nearest(w->world, (throng_vec2){px, py}, k, &filter, out.buf, &total);
	PyBuffer_Release(&out);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(total) : raise_prefixed(st, "World.query_nearest: ");
}

/// _query_batch(world, nearest, points, value, per_query, group, archetype,
/// exclude, out, totals): query_radius_batch (nearest 0, value the radius)
/// or query_nearest_batch (nearest 1, per_query = k); points float32 (n, 2),
/// out uint32 (n, per_query), totals uint32 (n,).
static PyObject* living_query_batch(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	int nearest;
	float radius;
	unsigned int per_query;
	throng_query_filter filter;
	PyObject *points_obj, *out_obj, *totals_obj;
	if (!PyArg_ParseTuple(args, "O!pOfIIIIOO:_query_batch", &thr_py_world_type, &w, &nearest, &points_obj, &radius,
	                      &per_query, &filter.group, &filter.archetype, &filter.exclude, &out_obj, &totals_obj)) {
		return NULL;
	}
	const char* fn = nearest ? "World.query_nearest_batch" : "World.query_radius_batch";
	Py_buffer points, out, totals;
	if (take(points_obj, fn, "points", -1, 2, 'f', false, &points) != 0) {
		return NULL;
	}
	Py_ssize_t n = points.len / 8;
	if (take(out_obj, fn, "out", n, (Py_ssize_t)per_query, 'I', true, &out) != 0) {
		PyBuffer_Release(&points);
		return NULL;
	}
	if (take(totals_obj, fn, "totals", n, 1, 'I', true, &totals) != 0) {
		PyBuffer_Release(&out);
		PyBuffer_Release(&points);
		return NULL;
	}
	throng_status st = THRONG_OK;
	int failed = 0; // the exception is set
	if (thr_py_world_check(w, fn + 6) != 0) {
		failed = 1;
	} else if (n > UINT32_MAX) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: got %zd points", fn, n);
		failed = 1;
	} else {
		st = nearest ? throng_world_query_nearest_batch(w->world, points.buf, (uint32_t)n, per_query, &filter,
		                                                out.buf, totals.buf)
		             : throng_world_query_radius_batch(w->world, points.buf, (uint32_t)n, radius, &filter, out.buf,
		                                               per_query, totals.buf);
	}
	PyBuffer_Release(&totals);
	PyBuffer_Release(&out);
	PyBuffer_Release(&points);
	if (failed) {
		return NULL;
	}
	if (st != THRONG_OK) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s: ", fn);
		return raise_prefixed(st, prefix);
	}
	Py_RETURN_NONE;
}

PyMethodDef thr_py_queries_functions[] = {
	{"_query_radius", living_query_radius, METH_VARARGS, "throng_world_query_radius into out; returns the total."},
	{"_query_box", living_query_box, METH_VARARGS, "throng_world_query_box into out; returns the total."},
	{"_query_polygon", living_query_polygon, METH_VARARGS, "throng_world_query_polygon into out; returns the total."},
	{"_query_nearest", living_query_nearest, METH_VARARGS, "throng_world_query_nearest into out; returns the total."},
	{"_query_batch", living_query_batch, METH_VARARGS, "The radius or nearest batch query into out and totals."},
	{NULL, NULL, 0, NULL},
};
