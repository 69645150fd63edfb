// SPDX-License-Identifier: MIT
// _throng.World: a throng_world (module.h). The Python class throng.World
// (python/throng/_world.py) derives from it and adds the NumPy side.
#include <stdlib.h>
#include <string.h>

#include "module.h"

bool thr_py_world_busy(const world_object* w)
{
	return w->busy || (w->scene != NULL && w->scene->busy);
}

int thr_py_world_check(const world_object* w, const char* fn)
{
	if (w->world == NULL) {
		PyErr_Format(PyExc_ValueError, "World.%s: the world was not made (World.__init__ failed or was not called)",
		             fn);
		return -1;
	}
	if (thr_py_world_busy(w)) {
		PyErr_Format(PyExc_RuntimeError,
		             "World.%s: the world is being stepped in another thread; one world takes one call at a time",
		             fn);
		return -1;
	}
	return 0;
}

void thr_py_world_release_kept(world_object* w)
{
	if (w->world != NULL && w->exports == 0 && !thr_py_world_busy(w)) {
		(void)throng_world_keep_replaced_arrays(w->world, false);
	}
}

static void world_dealloc(world_object* self)
{
	if (self->scene != NULL) {
		self->scene->world = NULL;
		Py_DECREF(self->scene);
	} else {
		throng_world_destroy(self->world);
	}
	Py_TYPE(self)->tp_free((PyObject*)self);
}

static int world_init(world_object* self, PyObject* args, PyObject* kwargs)
{
	if (self->world != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "World.__init__: the world is already made");
		return -1;
	}
	if (PyTuple_GET_SIZE(args) != 0) {
		PyErr_SetString(PyExc_TypeError, "World() takes keyword arguments only (World(dt=0.02, seed=7, ...))");
		return -1;
	}
	throng_world_def def = throng_world_default_def();
	if (thr_py_dict_to_struct(kwargs, &def, thr_py_world_def_fields, thr_py_world_def_field_count, "World") != 0) {
		return -1;
	}
	throng_world* world = NULL;
	throng_status st = throng_world_create(&def, &world);
	if (st != THRONG_OK) {
		thr_py_raise_status(st);
		return -1;
	}
	self->world = world;
	return 0;
}

world_object* thr_py_world_borrow(scene_object* scene)
{
	PyObject* obj = PyObject_CallMethod(thr_py_world_class, "_borrowed", NULL);
	if (obj == NULL) {
		return NULL;
	}
	if (!PyObject_TypeCheck(obj, &thr_py_world_type)) {
		Py_DECREF(obj);
		PyErr_SetString(PyExc_TypeError, "_throng: the registered World class does not derive from _throng.World");
		return NULL;
	}
	world_object* w = (world_object*)obj;
	w->world = throng_scene_world(scene->scene);
	Py_INCREF(scene);
	w->scene = scene;
	return w;
}

/// World._borrowed(): an empty instance for a scene's world (Scene.world
/// fills it), made without __init__.
static PyObject* world_borrowed(PyObject* cls, PyObject* unused)
{
	(void)unused;
	return ((PyTypeObject*)cls)->tp_alloc((PyTypeObject*)cls, 0);
}

static PyObject* world_step(world_object* self, PyObject* args, PyObject* kwargs)
{
	static char* kwlist[] = {"n", NULL};
	Py_ssize_t n = 1;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|n:step", kwlist, &n)) {
		return NULL;
	}
	if (thr_py_world_check(self, "step") != 0) {
		return NULL;
	}
	if (n < 0) {
		return thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.step: n: got %zd, expected a count >= 0", n);
	}
	throng_world* world = self->world;
	throng_status st = THRONG_OK;
	self->busy = 1;
	Py_BEGIN_ALLOW_THREADS
	for (Py_ssize_t k = 0; k < n && st == THRONG_OK; ++k) {
		st = throng_world_step(world);
	}
	Py_END_ALLOW_THREADS
	self->busy = 0;
	thr_py_world_release_kept(self); // views released by other threads during the step
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

static PyObject* world_hash(world_object* self, PyObject* unused)
{
	(void)unused;
	if (thr_py_world_check(self, "hash") != 0) {
		return NULL;
	}
	return PyLong_FromUnsignedLongLong(throng_world_hash(self->world));
}

static PyObject* world_get_stats(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "stats") != 0) {
		return NULL;
	}
	throng_world_stats s = throng_world_get_stats(self->world);
	return thr_py_struct_to_dict(&s, thr_py_stats_fields, thr_py_stats_field_count);
}

static PyObject* world_get_definition(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "definition") != 0) {
		return NULL;
	}
	throng_world_def def = throng_world_get_def(self->world);
	return thr_py_struct_to_dict(&def, thr_py_world_def_fields, thr_py_world_def_field_count);
}

static PyObject* world_get_counters(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "counters") != 0) {
		return NULL;
	}
	throng_world_counters last, total;
	throng_status st = throng_world_get_counters(self->world, &last, &total);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return thr_py_counters_to_dict(&last, &total);
}

static PyObject* world_get_counting(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "counting") != 0) {
		return NULL;
	}
	return PyLong_FromUnsignedLong(throng_world_counting(self->world));
}

static int world_set_counting(world_object* self, PyObject* value, void* closure)
{
	(void)closure;
	if (value == NULL) {
		PyErr_SetString(PyExc_AttributeError, "World.counting cannot be deleted");
		return -1;
	}
	if (thr_py_world_check(self, "counting") != 0) {
		return -1;
	}
	unsigned long what = PyLong_AsUnsignedLong(value);
	if (what == (unsigned long)-1 && PyErr_Occurred()) {
		return -1;
	}
	if (what > UINT32_MAX) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.counting: got %lu", what);
		return -1;
	}
	if (thr_py_world_check(self, "counting") != 0) { // again: the conversion may have run Python code
		return -1;
	}
	throng_status st = throng_world_set_counting(self->world, (uint32_t)what);
	if (st != THRONG_OK) {
		thr_py_raise_status(st);
		return -1;
	}
	return 0;
}

static PyObject* world_get_agent_count(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "agent_count") != 0) {
		return NULL;
	}
	return PyLong_FromUnsignedLong(throng_world_agent_count(self->world));
}

static PyObject* world_get_id_end(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "id_end") != 0) {
		return NULL;
	}
	return PyLong_FromUnsignedLong(throng_world_id_end(self->world));
}

static PyObject* world_get_archetype_count(world_object* self, void* closure)
{
	(void)closure;
	if (thr_py_world_check(self, "archetype_count") != 0) {
		return NULL;
	}
	return PyLong_FromUnsignedLong(throng_world_archetype_count(self->world));
}

static PyObject* world_get_exports(world_object* self, void* closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->exports);
}

static PyObject* world_add_archetype(world_object* self, PyObject* dict)
{
	if (thr_py_world_check(self, "add_archetype") != 0) {
		return NULL;
	}
	throng_controller c;
	if (thr_py_controller_from_dict(dict, &c) != 0 || thr_py_world_check(self, "add_archetype") != 0) {
		return NULL; // checked again: the conversion may have run Python code (another thread's step)
	}
	uint32_t id = 0;
	throng_status st = throng_world_add_archetype(self->world, &c, &id);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyLong_FromUnsignedLong(id);
}

static PyObject* world_agent(world_object* self, PyObject* arg)
{
	if (thr_py_world_check(self, "agent") != 0) {
		return NULL;
	}
	unsigned long long id = PyLong_AsUnsignedLongLong(arg);
	if (id == (unsigned long long)-1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
			return NULL;
		}
		PyErr_Clear();
		return thr_py_raise(THRONG_ERR_NOT_FOUND, "World.agent: no agent %R", arg);
	}
	if (thr_py_world_check(self, "agent") != 0) { // again: __index__ may have run Python code
		return NULL;
	}
	throng_agent_state state;
	throng_status st = id > UINT32_MAX ? THRONG_ERR_NOT_FOUND
	                                   : throng_world_get_agent(self->world, (uint32_t)id, &state);
	if (st == THRONG_ERR_NOT_FOUND) {
		return thr_py_raise(THRONG_ERR_NOT_FOUND, "World.agent: no live agent with id %llu", id);
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return thr_py_struct_to_dict(&state, thr_py_agent_fields, thr_py_agent_field_count);
}

/// A C-contiguous buffer of `count` * `per` 4-byte items of kind `kind`
/// ('f' float32, 'I' uint32), or None (view->buf NULL). 0, or -1 with
/// TypeError (the Python layer converts arrays; this is the last check).
static int take_buffer(PyObject* obj, const char* name, Py_ssize_t count, Py_ssize_t per, char kind, Py_buffer* view)
{
	memset(view, 0, sizeof *view);
	if (obj == Py_None) {
		return 0;
	}
	if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
		return -1;
	}
	const char* format = view->format != NULL ? view->format : "B";
	if (*format == '<' || *format == '=' || *format == '@') {
		++format;
	}
	bool kind_ok = kind == 'f' ? strcmp(format, "f") == 0 : (strcmp(format, "I") == 0 || strcmp(format, "L") == 0);
	if (!kind_ok || view->itemsize != 4 || view->len != count * per * 4) {
		PyErr_Format(PyExc_TypeError, "World.spawn: %s: expected %zd %s values, got %zd bytes of format '%s'", name,
		             count * per, kind == 'f' ? "float32" : "uint32", view->len, format);
		PyBuffer_Release(view);
		view->buf = NULL;
		return -1;
	}
	return 0;
}

/// World._spawn(count, positions, velocities, headings, targets,
/// max_speed, max_force, radius, archetype, group): the arrays as
/// C-contiguous buffers (float32 pairs, float32, uint32) or None for the
/// defaults. Returns the first id.
static PyObject* world_spawn(world_object* self, PyObject* args)
{
	enum { N = 12 };
	static const char* const names[N] = {"positions", "velocities", "headings",  "targets",      "max_speed", "max_force",
	                                     "radius",    "archetype",  "group",     "target_agent", "path",      "unit"};
	static const Py_ssize_t per[N] = {2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
	static const char kinds[N] = {'f', 'f', 'f', 'f', 'f', 'f', 'f', 'I', 'I', 'I', 'I', 'I'};
	Py_ssize_t count;
	PyObject* objs[N];
	if (!PyArg_ParseTuple(args, "nOOOOOOOOOOOO:_spawn", &count, &objs[0], &objs[1], &objs[2], &objs[3], &objs[4],
	                      &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10], &objs[11])) {
		return NULL;
	}
	if (thr_py_world_check(self, "spawn") != 0) {
		return NULL;
	}
	if (objs[0] == Py_None) {
		PyErr_SetString(PyExc_TypeError, "World.spawn: positions: required");
		return NULL;
	}
	if (count < 0 || count > UINT32_MAX) {
		return thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.spawn: got %zd agents", count);
	}
	Py_buffer views[N];
	int taken = 0;
	for (; taken < N; ++taken) {
		if (take_buffer(objs[taken], names[taken], count, per[taken], kinds[taken], &views[taken]) != 0) {
			break;
		}
	}
	PyObject* result = NULL;
	throng_agent_def* defs = NULL;
	if (taken == N) {
		defs = malloc((size_t)(count > 0 ? count : 1) * sizeof *defs);
		if (defs == NULL) {
			PyErr_NoMemory();
		}
	}
	if (defs != NULL && thr_py_world_check(self, "spawn") != 0) { // again, after the buffers' Python code
		free(defs);
		defs = NULL;
	}
	if (defs != NULL) {
		const float* f[7];
		for (int a = 0; a < 7; ++a) {
			f[a] = views[a].buf;
		}
		const uint32_t* arch = views[7].buf;
		const uint32_t* group = views[8].buf;
		const uint32_t* target_agent = views[9].buf;
		const uint32_t* path = views[10].buf;
		const uint32_t* unit = views[11].buf;
		for (Py_ssize_t k = 0; k < count; ++k) {
			throng_agent_def d = throng_agent_default_def();
			d.position = (throng_vec2){f[0][2 * k], f[0][2 * k + 1]};
			if (f[1] != NULL) {
				d.velocity = (throng_vec2){f[1][2 * k], f[1][2 * k + 1]};
			}
			if (f[2] != NULL) {
				d.heading = (throng_vec2){f[2][2 * k], f[2][2 * k + 1]};
			}
			if (f[3] != NULL) {
				d.target = (throng_vec2){f[3][2 * k], f[3][2 * k + 1]};
			}
			if (f[4] != NULL) {
				d.max_speed = f[4][k];
			}
			if (f[5] != NULL) {
				d.max_force = f[5][k];
			}
			if (f[6] != NULL) {
				d.radius = f[6][k];
			}
			if (arch != NULL) {
				d.archetype = arch[k];
			}
			if (group != NULL) {
				d.group = group[k];
			}
			if (target_agent != NULL) {
				d.target_agent = target_agent[k];
			}
			if (path != NULL) {
				d.path = path[k];
			}
			if (unit != NULL) {
				d.unit = unit[k];
			}
			defs[k] = d;
		}
		uint32_t first = throng_world_id_end(self->world);
		throng_status st = count == 0 ? THRONG_OK : throng_world_spawn(self->world, defs, (uint32_t)count, &first);
		result = st == THRONG_OK ? PyLong_FromUnsignedLong(first) : thr_py_raise_status(st);
		free(defs);
	}
	for (int a = 0; a < taken; ++a) {
		if (views[a].obj != NULL) {
			PyBuffer_Release(&views[a]);
		}
	}
	return result;
}

/// World._slots_of(ids, out): ids a C-contiguous uint32 buffer, out a
/// writable C-contiguous int64 buffer of as many entries; out[k] = the
/// storage slot (the row of the views) of the agent ids[k]. NotFound for
/// an id that is no live agent's.
static PyObject* world_slots_of(world_object* self, PyObject* args)
{
	PyObject *ids_obj, *out_obj;
	if (!PyArg_ParseTuple(args, "OO:_slots_of", &ids_obj, &out_obj)) {
		return NULL;
	}
	if (thr_py_world_check(self, "agents_by_id") != 0) {
		return NULL;
	}
	Py_buffer ids, out;
	if (PyObject_GetBuffer(ids_obj, &ids, PyBUF_C_CONTIGUOUS) != 0) {
		return NULL;
	}
	if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
		PyBuffer_Release(&ids);
		return NULL;
	}
	if (thr_py_world_check(self, "agents_by_id") != 0) { // again, after the buffers' Python code
		PyBuffer_Release(&ids);
		PyBuffer_Release(&out);
		return NULL;
	}
	PyObject* result = NULL;
	Py_ssize_t n = ids.len / 4;
	int64_t* slot = NULL;
	throng_view view = throng_world_view(self->world);
	uint32_t id_end = throng_world_id_end(self->world);
	if (ids.len % 4 != 0 || out.len != n * 8) {
		PyErr_SetString(PyExc_TypeError, "World._slots_of: expected uint32 ids and as many int64 outputs");
	} else if ((slot = malloc(((size_t)id_end + 1u) * sizeof *slot)) == NULL) {
		PyErr_NoMemory();
	} else {
		for (uint32_t i = 0; i < id_end; ++i) {
			slot[i] = -1;
		}
		for (uint32_t k = 0; k < view.count; ++k) {
			slot[view.id[k]] = (int64_t)k;
		}
		const uint32_t* in = ids.buf;
		int64_t* dst = out.buf;
		Py_ssize_t k = 0;
		for (; k < n; ++k) {
			if (in[k] >= id_end || slot[in[k]] < 0) {
				thr_py_raise(THRONG_ERR_NOT_FOUND, "World.agents_by_id: ids[%zd]: no live agent with id %u", k,
				             in[k]);
				break;
			}
			dst[k] = slot[in[k]];
		}
		if (k == n) {
			Py_INCREF(Py_None);
			result = Py_None;
		}
		free(slot);
	}
	PyBuffer_Release(&ids);
	PyBuffer_Release(&out);
	return result;
}

/// World._view(kind): the exporter of one array (view.c).
static PyObject* world_view(world_object* self, PyObject* arg)
{
	long kind = PyLong_AsLong(arg);
	if (kind == -1 && PyErr_Occurred()) {
		return NULL;
	}
	if (thr_py_world_check(self, "view") != 0) {
		return NULL;
	}
	return PyObject_CallFunction((PyObject*)&thr_py_view_type, "Ol", (PyObject*)self, kind);
}

/// World._addresses(): the library's pointers of the current view, as
/// ints (tests compare them with the NumPy arrays' data pointers).
static PyObject* world_addresses(world_object* self, PyObject* unused)
{
	(void)unused;
	if (thr_py_world_check(self, "_addresses") != 0) {
		return NULL;
	}
	throng_view v = throng_world_view(self->world);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "x", (unsigned long long)(uintptr_t)v.x, "y",
	                     (unsigned long long)(uintptr_t)v.y, "vx", (unsigned long long)(uintptr_t)v.vx, "vy",
	                     (unsigned long long)(uintptr_t)v.vy, "hx", (unsigned long long)(uintptr_t)v.hx, "hy",
	                     (unsigned long long)(uintptr_t)v.hy, "id", (unsigned long long)(uintptr_t)v.id, "group",
	                     (unsigned long long)(uintptr_t)v.group, "archetype",
	                     (unsigned long long)(uintptr_t)v.archetype, "radius",
	                     (unsigned long long)(uintptr_t)v.radius);
}

static PyMethodDef world_methods[] = {
	{"step", (PyCFunction)(void (*)(void))world_step, METH_VARARGS | METH_KEYWORDS,
	 "step(n=1)\n--\n\nAdvances the world by n steps of dt, without the GIL."},
	{"hash", (PyCFunction)world_hash, METH_NOARGS,
	 "hash()\n--\n\nThe 64-bit state hash (XXH3) of the whole dynamic state in id order, as an int."},
	{"_add_archetype", (PyCFunction)world_add_archetype, METH_O, "A controller as a dict; returns its id."},
	{"agent", (PyCFunction)world_agent, METH_O,
	 "agent(id)\n--\n\nOne agent's state, copied out, as a dict; throng.NotFound for an id that is no live "
	 "agent's."},
	{"_spawn", (PyCFunction)world_spawn, METH_VARARGS, "Spawns from buffers (throng.World.spawn)."},
	{"_slots_of", (PyCFunction)world_slots_of, METH_VARARGS, "Slots of ids (throng.World.agents_by_id)."},
	{"_view", (PyCFunction)world_view, METH_O, "The exporter of one array (throng.World.positions...)."},
	{"_addresses", (PyCFunction)world_addresses, METH_NOARGS, "The library's array pointers now, as ints."},
	{"_borrowed", (PyCFunction)world_borrowed, METH_NOARGS | METH_CLASS, "An empty wrapper for a scene's world."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef world_getset[] = {
	{"_stats", (getter)world_get_stats, NULL, "throng_world_stats as a dict", NULL},
	{"definition", (getter)world_get_definition, NULL,
	 "The settings the world was made with (throng_world_def), as a dict of World()'s keyword arguments.", NULL},
	{"_counters", (getter)world_get_counters, NULL, "The counters as dicts", NULL},
	{"_counting", (getter)world_get_counting, (setter)world_set_counting, "throng_world_counting bits", NULL},
	{"agent_count", (getter)world_get_agent_count, NULL, "Number of live agents.", NULL},
	{"id_end", (getter)world_get_id_end, NULL, "One past the largest id given so far.", NULL},
	{"archetype_count", (getter)world_get_archetype_count, NULL, "Number of archetypes.", NULL},
	{"_exports", (getter)world_get_exports, NULL, "Buffers of views alive now", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject thr_py_world_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "throng._throng.World",
	.tp_basicsize = sizeof(world_object),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "The C side of throng.World (use throng.World).",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)world_init,
	.tp_dealloc = (destructor)world_dealloc,
	.tp_methods = world_methods,
	.tp_getset = world_getset,
};
