// SPDX-License-Identifier: MIT
// throng._throng: module init, errors, the scenario list (module.h).
#include <stdarg.h>

#include "module.h"

PyObject* thr_py_world_class = (PyObject*)&thr_py_world_type;
PyObject* thr_py_scenario_warning = NULL;

/// The exception class of each throng_status (index), set by _register.
#define STATUS_COUNT (THRONG_ERR_CORRUPT + 1)
static PyObject* status_errors[STATUS_COUNT];

static PyObject* error_class(throng_status status)
{
	if ((int)status > 0 && (int)status < STATUS_COUNT && status_errors[status] != NULL) {
		return status_errors[status];
	}
	return PyExc_RuntimeError;
}

PyObject* thr_py_raise_status(throng_status status)
{
	const char* message = throng_last_error();
	if (message == NULL || message[0] == '\0') {
		message = throng_status_name(status) != NULL ? throng_status_name(status) : "error";
	}
	PyErr_SetString(error_class(status), message);
	return NULL;
}

PyObject* thr_py_raise(throng_status status, const char* format, ...)
{
	va_list ap;
	va_start(ap, format);
	PyObject* message = PyUnicode_FromFormatV(format, ap);
	va_end(ap);
	if (message != NULL) {
		PyErr_SetObject(error_class(status), message);
		Py_DECREF(message);
	}
	return NULL;
}

/// _register(world_class, errors, scenario_warning): the Python class
/// scene.world makes, {status name: exception class} and the warning
/// category of scenario files (python/throng/_errors.py).
static PyObject* module_register(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *world_class, *errors, *warning;
	if (!PyArg_ParseTuple(args, "O!O!O!:_register", &PyType_Type, &world_class, &PyDict_Type, &errors, &PyType_Type,
	                      &warning)) {
		return NULL;
	}
	if (!PyType_IsSubtype((PyTypeObject*)warning, (PyTypeObject*)PyExc_Warning)) {
		PyErr_SetString(PyExc_TypeError, "_register: the scenario warning must derive from Warning");
		return NULL;
	}
	if (!PyType_IsSubtype((PyTypeObject*)world_class, &thr_py_world_type)) {
		PyErr_SetString(PyExc_TypeError, "_register: the World class must derive from _throng.World");
		return NULL;
	}
	for (int s = 1; s < STATUS_COUNT; ++s) {
		PyObject* cls = PyDict_GetItemString(errors, throng_status_name((throng_status)s));
		if (cls == NULL) {
			PyErr_Format(PyExc_KeyError, "_register: no class for status '%s'", throng_status_name((throng_status)s));
			return NULL;
		}
		Py_INCREF(cls);
		Py_XSETREF(status_errors[s], cls);
	}
	Py_INCREF(warning);
	Py_XSETREF(thr_py_scenario_warning, warning);
	Py_INCREF(world_class);
	if (thr_py_world_class != (PyObject*)&thr_py_world_type) {
		Py_DECREF(thr_py_world_class);
	}
	thr_py_world_class = world_class;
	Py_RETURN_NONE;
}

/// _scenarios(): the built-in scenarios, as `throng list` shows them.
static PyObject* module_scenarios(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	uint32_t n = throng_scenario_count();
	PyObject* list = PyList_New(0);
	for (uint32_t k = 0; list != NULL && k < n; ++k) {
		const throng_scenario_info* info = throng_scenario_at(k);
		PyObject* item = Py_BuildValue("{s:s,s:s,s:I,s:I}", "name", info->name, "description", info->description,
		                               "default_agents", info->default_agents, "default_steps", info->default_steps);
		if (item == NULL || PyList_Append(list, item) != 0) {
			Py_XDECREF(item);
			Py_CLEAR(list);
		}
		Py_XDECREF(item);
	}
	return list;
}

/// _status_names(): every status's library name, by value.
static PyObject* module_status_names(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	PyObject* list = PyList_New(0);
	for (int s = 0; list != NULL && s < STATUS_COUNT; ++s) {
		PyObject* name = PyUnicode_FromString(throng_status_name((throng_status)s));
		if (name == NULL || PyList_Append(list, name) != 0) {
			Py_CLEAR(list);
		}
		Py_XDECREF(name);
	}
	return list;
}

static PyMethodDef module_methods[] = {
	{"_register", module_register, METH_VARARGS, "Registers throng.World, the exception classes and ScenarioWarning."},
	{"_scenarios", module_scenarios, METH_NOARGS, "The built-in scenarios."},
	{"_status_names", module_status_names, METH_NOARGS, "The library's status names."},
	{"_defaults", thr_py_defaults, METH_NOARGS, "The library's defaults."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "throng._throng",
	.m_doc = "The C extension under the package throng (docs/PYTHON.md): use `import throng`.",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__throng(void);

PyMODINIT_FUNC PyInit__throng(void)
{
	if (PyType_Ready(&thr_py_world_type) < 0 || PyType_Ready(&thr_py_scene_type) < 0 ||
	    PyType_Ready(&thr_py_view_type) < 0) {
		return NULL;
	}
	PyObject* m = PyModule_Create(&module_def);
	if (m == NULL) {
		return NULL;
	}
	Py_INCREF(&thr_py_world_type);
	Py_INCREF(&thr_py_scene_type);
	Py_INCREF(&thr_py_view_type);
	if (PyModule_AddObject(m, "World", (PyObject*)&thr_py_world_type) < 0 ||
	    PyModule_AddObject(m, "Scene", (PyObject*)&thr_py_scene_type) < 0 ||
	    PyModule_AddObject(m, "_View", (PyObject*)&thr_py_view_type) < 0 ||
	    PyModule_AddObject(m, "library_version",
	                       Py_BuildValue("(iii)", THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR,
	                                     THRONG_VERSION_PATCH)) < 0 ||
	    PyModule_AddIntConstant(m, "COUNT_WORK", THRONG_COUNT_WORK) < 0 ||
	    PyModule_AddIntConstant(m, "COUNT_TIME", THRONG_COUNT_TIME) < 0 ||
	    PyModule_AddIntConstant(m, "NO_AGENT", (long)THRONG_NO_AGENT) < 0 ||
	    PyModule_AddIntConstant(m, "NO_PATH", (long)THRONG_NO_PATH) < 0 ||
	    PyModule_AddFunctions(m, thr_py_living_functions) < 0 ||
	    PyModule_AddFunctions(m, thr_py_queries_functions) < 0 ||
	    PyModule_AddFunctions(m, thr_py_events_functions) < 0 ||
	    PyModule_AddFunctions(m, thr_py_units_functions) < 0 ||
	    PyModule_AddFunctions(m, thr_py_outputs_functions) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
