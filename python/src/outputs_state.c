// SPDX-License-Identifier: MIT
// throng._throng: outputs, part two (outputs.h): checkpoints of worlds and
// scenes, quality metrics (metrics.h) and measurement lines and areas
// (measure.h). The table of outputs.c lists the functions.
#include <stddef.h>
#include <stdlib.h>

#include "throng/checkpoint.h"
#include "throng/measure.h"
#include "throng/metrics.h"
#include "outputs.h"

static const char* const metrics_name = THR_PY_OUT_METRICS;
static const char* const measure_name = THR_PY_OUT_MEASURE;

static void destroy_metrics(void* p) { throng_metrics_destroy(p); }
static void destroy_measure(void* p) { throng_measure_destroy(p); }

// ---------------------------------------------------------------------------
// Checkpoints

PyObject* thr_py_out_save_checkpoint(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *world_obj, *path = NULL;
	if (!PyArg_ParseTuple(args, "OO&:_save_checkpoint", &world_obj, PyUnicode_FSConverter, &path)) {
		return NULL;
	}
	world_object* w = thr_py_out_world(world_obj, "save_checkpoint");
	throng_status st = w != NULL ? throng_world_save_checkpoint(w->world, PyBytes_AS_STRING(path)) : THRONG_OK;
	Py_DECREF(path);
	if (w == NULL) {
		return NULL;
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// The world's (or scene's, when scene is not NULL) checkpoint as bytes.
static PyObject* checkpoint_bytes_of(const throng_world* world, const throng_scene* scene)
{
	size_t size = 0;
	throng_status st = scene != NULL ? throng_scene_write_checkpoint(scene, NULL, 0, &size)
	                                 : throng_world_write_checkpoint(world, NULL, 0, &size);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	PyObject* bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
	if (bytes == NULL) {
		return NULL;
	}
	size_t written = 0;
	st = scene != NULL ? throng_scene_write_checkpoint(scene, PyBytes_AS_STRING(bytes), size, &written)
	                   : throng_world_write_checkpoint(world, PyBytes_AS_STRING(bytes), size, &written);
	if (st != THRONG_OK || written != size) {
		Py_DECREF(bytes);
		return st != THRONG_OK ? thr_py_raise_status(st)
		                       : thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "checkpoint: size changed while written");
	}
	return bytes;
}

PyObject* thr_py_out_checkpoint_bytes(PyObject* module, PyObject* world_obj)
{
	(void)module;
	world_object* w = thr_py_out_world(world_obj, "checkpoint_bytes");
	return w != NULL ? checkpoint_bytes_of(w->world, NULL) : NULL;
}

PyObject* thr_py_out_checkpoint_size(PyObject* module, PyObject* world_obj)
{
	(void)module;
	world_object* w = thr_py_out_world(world_obj, "checkpoint_size");
	if (w == NULL) {
		return NULL;
	}
	size_t size = 0;
	throng_status st = throng_world_checkpoint_size(w->world, &size);
	return st == THRONG_OK ? PyLong_FromSize_t(size) : thr_py_raise_status(st);
}

/// A new instance of `cls` (a subclass of _throng.World) owning `world`.
static PyObject* adopt_world(PyObject* cls, throng_world* world)
{
	world_object* w = (world_object*)((PyTypeObject*)cls)->tp_alloc((PyTypeObject*)cls, 0);
	if (w == NULL) {
		throng_world_destroy(world);
		return NULL;
	}
	w->world = world;
	return (PyObject*)w;
}

/// _load_checkpoint(cls, source, from_bytes): a World of class cls from
/// the file at the path `source`, or from the bytes-like `source`.
PyObject* thr_py_out_load_checkpoint(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *cls, *source;
	int from_bytes;
	if (!PyArg_ParseTuple(args, "O!Op:_load_checkpoint", &PyType_Type, &cls, &source, &from_bytes)) {
		return NULL;
	}
	if (!PyType_IsSubtype((PyTypeObject*)cls, &thr_py_world_type)) {
		PyErr_SetString(PyExc_TypeError, "_load_checkpoint: cls must derive from _throng.World");
		return NULL;
	}
	throng_world* world = NULL;
	throng_status st;
	if (from_bytes) {
		Py_buffer buf;
		if (PyObject_GetBuffer(source, &buf, PyBUF_C_CONTIGUOUS) != 0) {
			return NULL;
		}
		st = throng_world_read_checkpoint(buf.buf, (size_t)buf.len, &world);
		PyBuffer_Release(&buf);
	} else {
		PyObject* path = NULL;
		if (!PyUnicode_FSConverter(source, &path)) {
			return NULL;
		}
		st = throng_world_load_checkpoint(PyBytes_AS_STRING(path), &world);
		Py_DECREF(path);
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return adopt_world(cls, world);
}

static scene_object* scene_arg(PyObject* obj, const char* fn)
{
	if (!PyObject_TypeCheck(obj, &thr_py_scene_type)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a throng.Scene, got %.100s", fn, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	scene_object* s = (scene_object*)obj;
	if (s->busy || (s->world != NULL && thr_py_world_busy(s->world))) {
		PyErr_Format(PyExc_RuntimeError, "%s: the scene is being stepped in another thread", fn);
		return NULL;
	}
	return s;
}

/// _scene_save_checkpoint(scene, path).
PyObject* thr_py_out_scene_save_checkpoint(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *scene_obj, *path = NULL;
	if (!PyArg_ParseTuple(args, "OO&:_scene_save_checkpoint", &scene_obj, PyUnicode_FSConverter, &path)) {
		return NULL;
	}
	scene_object* s = scene_arg(scene_obj, "Scene.save_checkpoint");
	throng_status st = s != NULL ? throng_scene_save_checkpoint(s->scene, PyBytes_AS_STRING(path)) : THRONG_OK;
	Py_DECREF(path);
	if (s == NULL) {
		return NULL;
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _scene_checkpoint_bytes(scene).
PyObject* thr_py_out_scene_checkpoint_bytes(PyObject* module, PyObject* scene_obj)
{
	(void)module;
	scene_object* s = scene_arg(scene_obj, "Scene.checkpoint_bytes");
	return s != NULL ? checkpoint_bytes_of(NULL, s->scene) : NULL;
}

/// _scene_load_checkpoint(cls, source, from_bytes, scene, agents, seed):
/// a Scene of class cls; scene (a name or path, or None), agents (0: any)
/// and seed (None: any) must match the checkpoint's.
PyObject* thr_py_out_scene_load_checkpoint(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *cls, *source, *agents_obj, *seed_obj;
	int from_bytes;
	const char* name;
	if (!PyArg_ParseTuple(args, "O!OpzOO:_scene_load_checkpoint", &PyType_Type, &cls, &source, &from_bytes, &name,
	                      &agents_obj, &seed_obj)) {
		return NULL;
	}
	if (!PyType_IsSubtype((PyTypeObject*)cls, &thr_py_scene_type)) {
		PyErr_SetString(PyExc_TypeError, "_scene_load_checkpoint: cls must derive from _throng.Scene");
		return NULL;
	}
	throng_scene_resume_def expect = throng_scene_default_resume_def();
	expect.scene = name;
	unsigned long long agents = 0, seed = 0;
	if (thr_py_out_count(agents_obj, "load_scene_checkpoint", "agents", 0, UINT32_MAX, &agents) != 0 ||
	    (seed_obj != Py_None &&
	     thr_py_out_count(seed_obj, "load_scene_checkpoint", "seed", 0, UINT64_MAX, &seed) != 0)) {
		return NULL;
	}
	expect.agents = (uint32_t)agents;
	if (seed_obj != Py_None) {
		expect.check_seed = true;
		expect.seed = (uint64_t)seed;
	}
	throng_scene* scene = NULL;
	throng_status st;
	if (from_bytes) {
		Py_buffer buf;
		if (PyObject_GetBuffer(source, &buf, PyBUF_C_CONTIGUOUS) != 0) {
			return NULL;
		}
		st = throng_scene_read_checkpoint(buf.buf, (size_t)buf.len, &expect, &scene);
		PyBuffer_Release(&buf);
	} else {
		PyObject* path = NULL;
		if (!PyUnicode_FSConverter(source, &path)) {
			return NULL;
		}
		st = throng_scene_load_checkpoint(PyBytes_AS_STRING(path), &expect, &scene);
		Py_DECREF(path);
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	scene_object* s = (scene_object*)((PyTypeObject*)cls)->tp_alloc((PyTypeObject*)cls, 0);
	if (s == NULL) {
		throng_scene_destroy(scene);
		return NULL;
	}
	s->scene = scene;
	return (PyObject*)s;
}

// ---------------------------------------------------------------------------
// Quality metrics

static PyObject* quality_to_dict(const throng_quality* q)
{
	return Py_BuildValue("{s:I,s:I,s:K,s:K,s:d,s:K,s:d,s:d,s:K,s:I,s:I,s:I,s:d,s:d,s:d,s:d,s:d,s:K,s:K,s:K,s:K,s:K,"
	                     "s:d,s:d}",
	                     "agents", q->agents, "agents_left", q->agents_left, "steps", (unsigned long long)q->steps,
	                     "agent_steps", (unsigned long long)q->agent_steps, "seconds", q->seconds, "overlaps",
	                     (unsigned long long)q->overlaps, "overlaps_per_agent_step", q->overlaps_per_agent_step,
	                     "deepest_overlap", q->deepest_overlap, "overlap_capped",
	                     (unsigned long long)q->overlap_capped, "overlap_most_examined", q->overlap_most_examined,
	                     "goals", q->goals, "reached", q->reached, "mean_time_to_goal", q->mean_time_to_goal,
	                     "max_time_to_goal", q->max_time_to_goal, "path_length_ratio", q->path_length_ratio,
	                     "jitter", q->jitter, "max_speed_ratio", q->max_speed_ratio, "nonfinite",
	                     (unsigned long long)q->nonfinite, "out_of_bounds", (unsigned long long)q->out_of_bounds,
	                     "wall_crossings", (unsigned long long)q->wall_crossings, "wall_penetrations",
	                     (unsigned long long)q->wall_penetrations, "obstacle_penetrations",
	                     (unsigned long long)q->obstacle_penetrations, "deepest_obstacle_penetration",
	                     q->deepest_obstacle_penetration, "contacts_per_agent_step", q->contacts_per_agent_step);
}

/// _metrics_create(world, goal_radius).
PyObject* thr_py_out_metrics_create(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* world_obj;
	float goal_radius;
	if (!PyArg_ParseTuple(args, "Of:_metrics_create", &world_obj, &goal_radius)) {
		return NULL;
	}
	world_object* w = thr_py_out_world(world_obj, "Metrics");
	if (w == NULL) {
		return NULL;
	}
	throng_metrics* m = NULL;
	throng_status st = throng_metrics_create(w->world, goal_radius, &m);
	return st == THRONG_OK ? thr_py_out_wrap(m, destroy_metrics, metrics_name) : thr_py_raise_status(st);
}

/// _metrics_observe(handle, world).
PyObject* thr_py_out_metrics_observe(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *capsule, *world_obj;
	if (!PyArg_ParseTuple(args, "OO:_metrics_observe", &capsule, &world_obj)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, metrics_name, "Metrics.observe", true);
	world_object* w = h != NULL ? thr_py_out_world(world_obj, "Metrics.observe") : NULL;
	if (w == NULL) {
		return NULL;
	}
	throng_status st = throng_metrics_observe(h->ptr, w->world);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _metrics_result(handle): throng_quality as a dict.
PyObject* thr_py_out_metrics_result(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, metrics_name, "Metrics.result", true);
	if (h == NULL) {
		return NULL;
	}
	throng_quality q = throng_metrics_result(h->ptr);
	return quality_to_dict(&q);
}

/// _overlap_stats(world): (pairs, deepest).
PyObject* thr_py_out_overlap_stats(PyObject* module, PyObject* world_obj)
{
	(void)module;
	world_object* w = thr_py_out_world(world_obj, "overlap_stats");
	if (w == NULL) {
		return NULL;
	}
	uint64_t pairs = 0;
	float deepest = 0.0f;
	throng_status st = throng_world_overlap_stats(w->world, &pairs, &deepest);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return Py_BuildValue("(Kd)", (unsigned long long)pairs, (double)deepest);
}

// ---------------------------------------------------------------------------
// Measurement lines and areas

/// _measure_create(cutoff_radius, cutoff_segments, bounds_min, bounds_max, wrap).
PyObject* thr_py_out_measure_create(PyObject* module, PyObject* args)
{
	(void)module;
	throng_measure_def def = throng_measure_default_def();
	PyObject* segments_obj;
	unsigned long long segments = 0;
	int wrap;
	if (!PyArg_ParseTuple(args, "fO(ff)(ff)p:_measure_create", &def.cutoff_radius, &segments_obj, &def.bounds_min.x,
	                      &def.bounds_min.y, &def.bounds_max.x, &def.bounds_max.y, &wrap)) {
		return NULL;
	}
	// 64: the library's most (measure.h)
	if (thr_py_out_count(segments_obj, "Measure", "cutoff_segments", 0, 64, &segments) != 0) {
		return NULL;
	}
	def.cutoff_segments = (uint32_t)segments;
	def.wrap = wrap != 0;
	throng_measure* m = NULL;
	throng_status st = throng_measure_create(&def, &m);
	return st == THRONG_OK ? thr_py_out_wrap(m, destroy_measure, measure_name) : thr_py_raise_status(st);
}

/// _measure_add(handle, kind, points): kind 0 a line (2 points), 1 a
/// rectangle (min, max), 2 a polygon; points a C-contiguous float32
/// buffer of pairs. Returns the id.
PyObject* thr_py_out_measure_add(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *capsule, *points_obj;
	int kind;
	if (!PyArg_ParseTuple(args, "OiO:_measure_add", &capsule, &kind, &points_obj)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, "Measure.add", true);
	if (h == NULL) {
		return NULL;
	}
	Py_buffer buf;
	if (PyObject_GetBuffer(points_obj, &buf, PyBUF_C_CONTIGUOUS) != 0) {
		return NULL;
	}
	PyObject* result = NULL;
	Py_ssize_t n = buf.len / (Py_ssize_t)sizeof(throng_vec2);
	const throng_vec2* p = buf.buf;
	uint32_t id = 0;
	throng_status st = THRONG_ERR_INVALID_ARGUMENT;
	if (buf.len % (Py_ssize_t)sizeof(throng_vec2) != 0 || (kind != 2 && n != 2) || n > UINT32_MAX) {
		PyErr_SetString(PyExc_TypeError, "_measure_add: expected float32 pairs");
	} else {
		st = kind == 0   ? throng_measure_add_line(h->ptr, p[0], p[1], &id)
		     : kind == 1 ? throng_measure_add_rect(h->ptr, p[0], p[1], &id)
		                 : throng_measure_add_area(h->ptr, p, (uint32_t)n, &id);
		result = st == THRONG_OK ? PyLong_FromUnsignedLong(id) : thr_py_raise_status(st);
	}
	PyBuffer_Release(&buf);
	return result;
}

/// _measure_feed_world(handle, world).
PyObject* thr_py_out_measure_feed_world(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *capsule, *world_obj;
	if (!PyArg_ParseTuple(args, "OO:_measure_feed_world", &capsule, &world_obj)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, "Measure.feed", true);
	world_object* w = h != NULL ? thr_py_out_world(world_obj, "Measure.feed") : NULL;
	if (w == NULL) {
		return NULL;
	}
	throng_status st = throng_measure_feed_world(h->ptr, w->world);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _measure_feed(handle, time, ids, x, y, vx, vy): one state from
/// C-contiguous buffers of as many uint32 ids and float32 values (vx and
/// vy None: speeds from the displacement).
PyObject* thr_py_out_measure_feed(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* capsule;
	double time;
	PyObject* objs[5];
	if (!PyArg_ParseTuple(args, "OdOOOOO:_measure_feed", &capsule, &time, &objs[0], &objs[1], &objs[2], &objs[3],
	                      &objs[4])) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, "Measure.feed_state", true);
	if (h == NULL) {
		return NULL;
	}
	Py_buffer bufs[5]; // .obj NULL: not given (None)
	int taken = 0;
	for (; taken < 5; ++taken) {
		bufs[taken] = (Py_buffer){0};
		if (objs[taken] != Py_None && PyObject_GetBuffer(objs[taken], &bufs[taken], PyBUF_C_CONTIGUOUS) != 0) {
			break;
		}
	}
	PyObject* result = NULL;
	if (taken == 5) {
		Py_ssize_t n = bufs[0].len / 4;
		bool sizes_ok = bufs[0].obj != NULL && bufs[1].obj != NULL && bufs[2].obj != NULL && n <= UINT32_MAX &&
		                (bufs[3].obj == NULL) == (bufs[4].obj == NULL);
		for (int k = 0; k < 5 && sizes_ok; ++k) {
			sizes_ok = bufs[k].obj == NULL || bufs[k].len == n * 4;
		}
		if (!sizes_ok) {
			PyErr_SetString(PyExc_TypeError, "_measure_feed: expected as many uint32 ids as float32 values");
		} else {
			throng_measure_state state = {.time = time,
			                              .count = (uint32_t)n,
			                              .id = bufs[0].buf,
			                              .x = bufs[1].buf,
			                              .y = bufs[2].buf,
			                              .vx = bufs[3].buf,
			                              .vy = bufs[4].buf};
			throng_status st = throng_measure_feed(h->ptr, &state);
			if (st == THRONG_OK) {
				Py_INCREF(Py_None);
				result = Py_None;
			} else {
				thr_py_raise_status(st);
			}
		}
	}
	for (int k = 0; k < taken; ++k) {
		if (bufs[k].obj != NULL) {
			PyBuffer_Release(&bufs[k]);
		}
	}
	return result;
}

/// _measure_counts(handle): (lines, areas, states).
PyObject* thr_py_out_measure_counts(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, measure_name, "Measure", true);
	if (h == NULL) {
		return NULL;
	}
	return Py_BuildValue("(IIK)", throng_measure_line_count(h->ptr), throng_measure_area_count(h->ptr),
	                     (unsigned long long)throng_measure_states(h->ptr));
}

/// _measure_records(handle, kind, index): a line's crossings (kind 0) or an
/// area's samples (kind 1), copied as the bytes of the C structs
/// (layouts: _measure_layouts()).
PyObject* thr_py_out_measure_records(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* capsule;
	int kind;
	unsigned int index;
	if (!PyArg_ParseTuple(args, "OiI:_measure_records", &capsule, &kind, &index)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, kind == 0 ? "Measure.crossings" : "Measure.samples", true);
	if (h == NULL) {
		return NULL;
	}
	const void* p = NULL;
	size_t count = 0, size;
	throng_status st;
	if (kind == 0) {
		const throng_crossing* c = NULL;
		st = throng_measure_line_crossings(h->ptr, index, &c, &count);
		p = c;
		size = sizeof *c;
	} else {
		const throng_area_sample* s = NULL;
		st = throng_measure_area_samples(h->ptr, index, &s, &count);
		p = s;
		size = sizeof *s;
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyByteArray_FromStringAndSize(count > 0 ? p : "", (Py_ssize_t)(count * size));
}

/// _measure_layouts(): {"crossing": (itemsize, {name: offset}), "sample": ...}.
PyObject* thr_py_out_measure_layouts(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	return Py_BuildValue(
	    "{s:(n{s:n,s:n,s:n,s:n,s:n}),s:(n{s:n,s:n,s:n,s:n,s:n,s:n,s:n})}", "crossing",
	    (Py_ssize_t)sizeof(throng_crossing), "time", (Py_ssize_t)offsetof(throng_crossing, time), "id",
	    (Py_ssize_t)offsetof(throng_crossing, id), "direction", (Py_ssize_t)offsetof(throng_crossing, direction), "x",
	    (Py_ssize_t)offsetof(throng_crossing, x), "y", (Py_ssize_t)offsetof(throng_crossing, y), "sample",
	    (Py_ssize_t)sizeof(throng_area_sample), "time", (Py_ssize_t)offsetof(throng_area_sample, time), "inside",
	    (Py_ssize_t)offsetof(throng_area_sample, inside), "with_speed",
	    (Py_ssize_t)offsetof(throng_area_sample, with_speed), "density",
	    (Py_ssize_t)offsetof(throng_area_sample, density), "mean_speed",
	    (Py_ssize_t)offsetof(throng_area_sample, mean_speed), "voronoi_density",
	    (Py_ssize_t)offsetof(throng_area_sample, voronoi_density), "voronoi_speed",
	    (Py_ssize_t)offsetof(throng_area_sample, voronoi_speed));
}

/// _measure_window(handle, kind, index, t0, t1): a line's flow (kind 0)
/// or an area's means (kind 1) over [t0, t1), as a dict.
PyObject* thr_py_out_measure_window(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* capsule;
	int kind;
	unsigned int index;
	double t0, t1;
	if (!PyArg_ParseTuple(args, "OiIdd:_measure_window", &capsule, &kind, &index, &t0, &t1)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, kind == 0 ? "Measure.flow" : "Measure.means", true);
	if (h == NULL) {
		return NULL;
	}
	if (kind == 0) {
		throng_line_flow f;
		throng_status st = throng_measure_line_flow(h->ptr, index, t0, t1, &f);
		if (st != THRONG_OK) {
			return thr_py_raise_status(st);
		}
		return Py_BuildValue("{s:d,s:d,s:K,s:K,s:K,s:d,s:d,s:d,s:d}", "t0", f.t0, "t1", f.t1, "left",
		                     (unsigned long long)f.left, "right", (unsigned long long)f.right, "first_passings",
		                     (unsigned long long)f.first_passings, "flow_left", f.flow_left, "flow_right",
		                     f.flow_right, "flow_total", f.flow_total, "flow_net", f.flow_net);
	}
	throng_area_means m;
	throng_status st = throng_measure_area_means(h->ptr, index, t0, t1, &m);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return Py_BuildValue("{s:d,s:d,s:K,s:d,s:d,s:d,s:d}", "t0", m.t0, "t1", m.t1, "samples",
	                     (unsigned long long)m.samples, "density", m.density, "mean_speed", m.mean_speed,
	                     "voronoi_density", m.voronoi_density, "voronoi_speed", m.voronoi_speed);
}

/// _measure_area_size(handle, area).
PyObject* thr_py_out_measure_area_size(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* capsule;
	unsigned int index;
	if (!PyArg_ParseTuple(args, "OI:_measure_area_size", &capsule, &index)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, measure_name, "Measure.area_size", true);
	return h != NULL ? PyFloat_FromDouble(throng_measure_area_size(h->ptr, index)) : NULL;
}

// ---------------------------------------------------------------------------
// What a scene measures of itself

/// _scene_outcomes(scene): {name: value} of the scene's outcome measure.
PyObject* thr_py_out_scene_outcomes(PyObject* module, PyObject* scene_obj)
{
	(void)module;
	scene_object* s = scene_arg(scene_obj, "scene_outcomes");
	if (s == NULL) {
		return NULL;
	}
	throng_scene_outcome out[THRONG_MAX_OUTCOMES];
	uint32_t n = throng_scene_outcomes(s->scene, out, THRONG_MAX_OUTCOMES);
	PyObject* dict = PyDict_New();
	for (uint32_t k = 0; dict != NULL && k < n && k < THRONG_MAX_OUTCOMES; ++k) {
		PyObject* value = PyFloat_FromDouble(out[k].value);
		if (value == NULL || PyDict_SetItemString(dict, out[k].name, value) != 0) {
			Py_CLEAR(dict);
		}
		Py_XDECREF(value);
	}
	return dict;
}

/// _scene_goal_radius(scene).
PyObject* thr_py_out_scene_goal_radius(PyObject* module, PyObject* scene_obj)
{
	(void)module;
	scene_object* s = scene_arg(scene_obj, "scene_goal_radius");
	return s != NULL ? PyFloat_FromDouble((double)throng_scene_goal_radius(s->scene)) : NULL;
}

/// _scene_measure(scene): a measurement set of the lines and areas the
/// scene's definition declares, or None when it declares none.
PyObject* thr_py_out_scene_measure(PyObject* module, PyObject* scene_obj)
{
	(void)module;
	scene_object* s = scene_arg(scene_obj, "scene_measure");
	if (s == NULL) {
		return NULL;
	}
	throng_measure* m = NULL;
	throng_status st = throng_scene_measure_create(s->scene, &m);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	if (m == NULL) {
		Py_RETURN_NONE;
	}
	return thr_py_out_wrap(m, destroy_measure, measure_name);
}
