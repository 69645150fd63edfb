// SPDX-License-Identifier: MIT
// _throng.Scene: a throng_scene, built-in or from a scenario file
// (module.h). throng.Scene (python/throng/_scene.py) derives from it.
#include <string.h>

#include "module.h"

static PyObject* scene_new(PyTypeObject* type, PyObject* args, PyObject* kwargs)
{
	(void)type;
	(void)args;
	(void)kwargs;
	PyErr_SetString(PyExc_TypeError, "make a Scene with Scene.builtin(name, ...) or Scene.load(path, ...)");
	return NULL;
}

static void scene_dealloc(scene_object* self)
{
	// A wrapper of the world holds the scene: none is left here.
	throng_scene_destroy(self->scene);
	Py_TYPE(self)->tp_free((PyObject*)self);
}

static int scene_check(const scene_object* self, const char* fn)
{
	if (self->busy) {
		PyErr_Format(PyExc_RuntimeError, "Scene.%s: the scene is being stepped in another thread", fn);
		return -1;
	}
	return 0;
}

/// The def of keyword arguments (Scene.builtin, Scene.load).
static int scene_def_from(PyObject* kwargs, throng_scene_def* def, const char* where)
{
	*def = throng_scene_default_def();
	return thr_py_dict_to_struct(kwargs, def, thr_py_scene_def_fields, thr_py_scene_def_field_count, where);
}

static PyObject* wrap(PyTypeObject* cls, throng_scene* scene)
{
	scene_object* self = (scene_object*)cls->tp_alloc(cls, 0);
	if (self == NULL) {
		throng_scene_destroy(scene);
		return NULL;
	}
	self->scene = scene;
	return (PyObject*)self;
}

static PyObject* scene_builtin(PyObject* cls, PyObject* args, PyObject* kwargs)
{
	const char* name;
	if (!PyArg_ParseTuple(args, "s:builtin", &name)) {
		return NULL;
	}
	throng_scene_def def;
	if (scene_def_from(kwargs, &def, "Scene.builtin") != 0) {
		return NULL;
	}
	throng_scene* scene = NULL;
	throng_status st = throng_scene_create(name, &def, &scene);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return wrap((PyTypeObject*)cls, scene);
}

/// A scenario file's diagnostics, formatted, in file order.
typedef struct load_report {
	PyObject* problems; ///< errors: the load fails with all of them
	PyObject* warnings; ///< warnings of a load that succeeds
} load_report;

static void collect(void* user, const throng_diagnostic* d)
{
	load_report* r = user;
	if (PyErr_Occurred()) {
		return;
	}
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	PyObject* text = PyUnicode_DecodeUTF8(line, (Py_ssize_t)strlen(line), "replace");
	if (text != NULL) {
		(void)PyList_Append(d->warning ? r->warnings : r->problems, text); // a failure stays set
		Py_DECREF(text);
	}
}

static PyObject* scene_load(PyObject* cls, PyObject* args, PyObject* kwargs)
{
	PyObject* path_bytes = NULL;
	if (!PyArg_ParseTuple(args, "O&:load", PyUnicode_FSConverter, &path_bytes)) {
		return NULL;
	}
	throng_scene_def def;
	if (scene_def_from(kwargs, &def, "Scene.load") != 0) {
		Py_DECREF(path_bytes);
		return NULL;
	}
	PyObject* problems = PyList_New(0);
	PyObject* warnings = PyList_New(0);
	if (problems == NULL || warnings == NULL) {
		Py_XDECREF(problems);
		Py_XDECREF(warnings);
		Py_DECREF(path_bytes);
		return NULL;
	}
	load_report report = {problems, warnings};
	throng_scene* scene = NULL;
	throng_status st = throng_scene_load_file_report(PyBytes_AS_STRING(path_bytes), &def, collect, &report, &scene);
	Py_DECREF(path_bytes);
	PyObject* result = NULL;
	if (PyErr_Occurred()) {
		throng_scene_destroy(scene);
	} else if (st != THRONG_OK && PyList_GET_SIZE(problems) > 0) {
		// Every problem, one a line, in file order.
		PyObject* sep = PyUnicode_FromString("\n");
		PyObject* text = sep != NULL ? PyUnicode_Join(sep, problems) : NULL;
		Py_XDECREF(sep);
		if (text != NULL) {
			thr_py_raise(st, "%U", text);
			Py_DECREF(text);
		}
	} else if (st != THRONG_OK) {
		thr_py_raise_status(st);
	} else {
		result = wrap((PyTypeObject*)cls, scene);
		// Each warning through Python's warnings, pointing at the caller
		// of Scene.load (stack level 2); a filter that makes it an error
		// fails the load (the wrapper's dealloc destroys the scene).
		PyObject* category = thr_py_scenario_warning != NULL ? thr_py_scenario_warning : PyExc_UserWarning;
		for (Py_ssize_t k = 0; result != NULL && k < PyList_GET_SIZE(warnings); ++k) {
			const char* text = PyUnicode_AsUTF8(PyList_GET_ITEM(warnings, k));
			if (text == NULL || PyErr_WarnEx(category, text, 2) != 0) {
				Py_CLEAR(result);
			}
		}
	}
	Py_DECREF(problems);
	Py_DECREF(warnings);
	return result;
}

static PyObject* scene_save(scene_object* self, PyObject* arg)
{
	if (scene_check(self, "save") != 0) {
		return NULL;
	}
	PyObject* path_bytes = NULL;
	if (!PyUnicode_FSConverter(arg, &path_bytes)) {
		return NULL;
	}
	throng_status st = throng_scene_save_file(self->scene, PyBytes_AS_STRING(path_bytes));
	Py_DECREF(path_bytes);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

static PyObject* scene_step(scene_object* self, PyObject* args, PyObject* kwargs)
{
	static char* kwlist[] = {"n", NULL};
	Py_ssize_t n = 1;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|n:step", kwlist, &n)) {
		return NULL;
	}
	if (scene_check(self, "step") != 0 || (self->world != NULL && thr_py_world_check(self->world, "step") != 0)) {
		return NULL;
	}
	if (n < 0) {
		return thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "Scene.step: n: got %zd, expected a count >= 0", n);
	}
	throng_scene* scene = self->scene;
	throng_status st = THRONG_OK;
	self->busy = 1;
	Py_BEGIN_ALLOW_THREADS
	for (Py_ssize_t k = 0; k < n && st == THRONG_OK; ++k) {
		st = throng_scene_step(scene);
	}
	Py_END_ALLOW_THREADS
	self->busy = 0;
	// Views released by other threads during the step (or the wrapper of
	// the world gone with its last view) leave kept arrays to free now.
	if (self->world == NULL) {
		(void)throng_world_keep_replaced_arrays(throng_scene_world(scene), false);
	} else {
		thr_py_world_release_kept(self->world);
	}
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

static PyObject* scene_get_world(scene_object* self, void* closure)
{
	(void)closure;
	if (self->world != NULL) {
		Py_INCREF(self->world);
		return (PyObject*)self->world;
	}
	world_object* w = thr_py_world_borrow(self);
	if (w != NULL) {
		self->world = w; // borrowed; the wrapper clears it when it goes
	}
	return (PyObject*)w;
}

static PyObject* scene_get_name(scene_object* self, void* closure)
{
	(void)closure;
	const throng_scenario_info* info = throng_scene_info(self->scene);
	return PyUnicode_FromString(info != NULL && info->name != NULL ? info->name : "");
}

static PyMethodDef scene_methods[] = {
	{"_builtin", (PyCFunction)(void (*)(void))scene_builtin, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	 "A built-in scene (throng.Scene.builtin)."},
	{"_load", (PyCFunction)(void (*)(void))scene_load, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	 "A scenario file (throng.Scene.load)."},
	{"save", (PyCFunction)scene_save, METH_O,
	 "save(path)\n--\n\nWrites the scene's definition as a scenario file (YAML), as `throng save` does: "
	 "loading it builds the same world. A scene that has stepped writes its first state's definition."},
	{"step", (PyCFunction)(void (*)(void))scene_step, METH_VARARGS | METH_KEYWORDS,
	 "step(n=1)\n--\n\nRuns the scene's script and steps its world, n times, without the GIL: as `throng run` "
	 "steps it, to the same hash."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef scene_getset[] = {
	{"world", (getter)scene_get_world, NULL,
	 "The scene's world (a throng.World that keeps the scene alive). Step the scene, not its world, so that the "
	 "script runs.",
	 NULL},
	{"name", (getter)scene_get_name, NULL, "The scenario's name.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject thr_py_scene_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "throng._throng.Scene",
	.tp_basicsize = sizeof(scene_object),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "The C side of throng.Scene (use throng.Scene).",
	.tp_new = scene_new,
	.tp_dealloc = (destructor)scene_dealloc,
	.tp_methods = scene_methods,
	.tp_getset = scene_getset,
};
