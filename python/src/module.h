// SPDX-License-Identifier: MIT
// The extension module throng._throng (private to python/src/): the C
// types under the Python package `throng` (python/throng/__init__.py),
// and the helpers they share. docs/PYTHON.md has the design.
//
// Objects:
//   world_object  _throng.World: a throng_world, owned, or borrowed from
//                 the scene that holds it (then `scene` keeps that alive)
//   scene_object  _throng.Scene: a throng_scene; `world` points at the
//                 wrapper of its world while one exists (a borrowed
//                 pointer: the wrapper holds the scene, not the reverse)
//   view_object   _throng._View: exports one of the world's arrays through
//                 the buffer protocol, read-only and without a copy
//
// Every call into the library runs with the GIL held except the steps
// (World.step, Scene.step), which release it; a world being stepped is
// `busy`, and every other use of it raises until the step returns (the
// library forbids two threads on one world).
#ifndef THRONG_PYTHON_MODULE_H
#define THRONG_PYTHON_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

typedef struct scene_object scene_object;

typedef struct world_object {
	PyObject_HEAD
	throng_world* world; ///< NULL before __init__ succeeds
	scene_object* scene; ///< strong: the scene that owns `world`, or NULL when the wrapper owns it
	Py_ssize_t exports;  ///< buffers exported by views of this world and not yet released (keeping is on while > 0)
	int busy;            ///< a step of this world runs without the GIL
} world_object;

struct scene_object {
	PyObject_HEAD
	throng_scene* scene;
	world_object* world; ///< borrowed: the wrapper of the scene's world while it exists, else NULL
	int busy;            ///< a step of this scene runs without the GIL
};

extern PyTypeObject thr_py_world_type;
extern PyTypeObject thr_py_scene_type;
extern PyTypeObject thr_py_view_type;

/// The Python class scene.world makes (throng.World, set by
/// _throng._register); thr_py_world_type until then.
extern PyObject* thr_py_world_class;

/// The warning category of scenario files (throng.ScenarioWarning, set by
/// _register); NULL until then (UserWarning is used).
extern PyObject* thr_py_scenario_warning;

/// Sets the exception of `status` (the class registered for it by
/// _throng._register, a throng.Error subclass) with the library's message
/// (throng_last_error()). Returns NULL.
PyObject* thr_py_raise_status(throng_status status);

/// Sets the exception registered for `status` with a message of our own.
/// Returns NULL.
PyObject* thr_py_raise(throng_status status, const char* format, ...);

/// True when the world is being stepped (its own step or its scene's).
bool thr_py_world_busy(const world_object* w);

/// 0 when `w` can be used now; -1 with RuntimeError (busy) or ValueError
/// (not initialised) set otherwise. `fn` names the method.
int thr_py_world_check(const world_object* w, const char* fn);

/// Frees the arrays the world kept for views (throng_world_keep_replaced_arrays)
/// once no view of it is alive and no step runs; views turn keeping on.
void thr_py_world_release_kept(world_object* w);

/// A new wrapper of a scene's world, of thr_py_world_class.
world_object* thr_py_world_borrow(scene_object* scene);

// Struct fields by name: tables that turn a C struct into a dict and a
// dict (or keyword arguments) into a C struct, naming each field.
typedef enum field_type {
	FT_F32,
	FT_U32,
	FT_U64,
	FT_BOOL,
	FT_ENUM, ///< an int-sized enum, by its library name
	FT_VEC,  ///< throng_vec2, as a pair of floats
} field_type;

typedef const char* (*enum_name_fn)(int value);

typedef struct field_desc {
	const char* name;
	size_t offset;
	field_type type;
	enum_name_fn names; ///< FT_ENUM: value -> name, NULL past the last
} field_desc;

// Making the tables: a field by name (F), an enum field by its namer (E:
// a function value -> name, NULL past the last), a table's length
// (COUNT), and a namer for a library enum T with T##_name (NAMER(T)
// defines name_T).
#define F(S, name, type) {#name, offsetof(S, name), type, NULL}
#define E(S, name, fn) {#name, offsetof(S, name), FT_ENUM, fn}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NAMER(T)                                                                                                   \
	static const char* name_##T(int value)                                                                         \
	{                                                                                                              \
		return T##_name((T)value);                                                                                 \
	}

/// A dict of the fields of *s.
PyObject* thr_py_struct_to_dict(const void* s, const field_desc* fields, size_t count);

/// Sets the fields of *s named by the keys of `dict` (a dict; NULL or None
/// changes nothing). An unknown key is a TypeError, a value of the wrong
/// type a TypeError, a value out of the field's range InvalidArgument;
/// each message begins with "WHERE: key:". Returns 0, or -1 with the
/// exception set.
int thr_py_dict_to_struct(PyObject* dict, void* s, const field_desc* fields, size_t count, const char* where);

/// One field from `value`; as thr_py_dict_to_struct.
int thr_py_set_field(PyObject* value, void* s, const field_desc* field, const char* where);

/// A float from a Python number (not a string), and an enum by its library
/// name (`names`), for fields `where: name:`; 0, or -1 with the exception
/// set, as thr_py_set_field.
int thr_py_number_to_f32(PyObject* value, const char* where, const char* name, float* out);
int thr_py_value_to_enum(PyObject* value, const char* where, const char* name, enum_name_fn names, int* out);

// The tables (fields.c).
extern const field_desc thr_py_world_def_fields[];
extern const size_t thr_py_world_def_field_count;
extern const field_desc thr_py_scene_def_fields[];
extern const size_t thr_py_scene_def_field_count;
extern const field_desc thr_py_params_fields[];
extern const size_t thr_py_params_field_count;
extern const field_desc thr_py_target_rule_fields[];
extern const size_t thr_py_target_rule_field_count;
extern const field_desc thr_py_contact_fields[];
extern const size_t thr_py_contact_field_count;
extern const field_desc thr_py_combat_fields[];
extern const size_t thr_py_combat_field_count;
extern const field_desc thr_py_stats_fields[];
extern const size_t thr_py_stats_field_count;
extern const field_desc thr_py_agent_fields[];
extern const size_t thr_py_agent_field_count;

/// A controller from a dict (controller.c; python/throng/_types.py, Controller.to_dict):
/// mode, relaxation_time, slots (a list of dicts: kind, weight, enabled,
/// priority, params), target_rule (a dict or None), contact, combat.
int thr_py_controller_from_dict(PyObject* dict, throng_controller* out);

/// The inverse: a controller as that dict, each slot's params only those
/// that differ from its kind's defaults (throng_slot_default_def), the
/// target_rule None when the rule is off.
PyObject* thr_py_controller_to_dict(const throng_controller* c);

/// The library's defaults as dicts (_throng._defaults()).
PyObject* thr_py_defaults(PyObject* module, PyObject* unused);

/// Module-level functions of each part of the API, each taking the world
/// (or scene) as its first argument; the package's mixins
/// (python/throng/_living.py, _events.py, _outputs.py) wrap them.
/// Added to the module by PyInit__throng.
extern PyMethodDef thr_py_living_functions[];  ///< living.c: remove, setters, controllers, shapes
extern PyMethodDef thr_py_queries_functions[]; ///< queries.c: the spatial queries
extern PyMethodDef thr_py_events_functions[];  ///< events.c: events, zones, sources, bodies
extern PyMethodDef thr_py_units_functions[];   ///< units.c: units, derived controllers
extern PyMethodDef thr_py_outputs_functions[]; ///< outputs.c: files, checkpoints, metrics

/// The counters of a world as {"last_step": {...}, "total": {...}}.
PyObject* thr_py_counters_to_dict(const throng_world_counters* last, const throng_world_counters* total);

#endif
