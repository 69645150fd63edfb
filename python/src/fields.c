// SPDX-License-Identifier: MIT
// C structs to dicts and back, field by field by name (module.h).
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "module.h"

// Enums are stored as ints (gcc, clang: every throng enum is int-sized).
_Static_assert(sizeof(throng_bounds_mode) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_engine) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_threads_policy) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_target_source) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_flee_mode) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_wander_frame) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(throng_attack_kind) == sizeof(int), "int-sized enum");

NAMER(throng_bounds_mode)
NAMER(throng_engine)
NAMER(throng_threads_policy)
NAMER(throng_target_source)
NAMER(throng_flee_mode)
NAMER(throng_wander_frame)
NAMER(throng_attack_kind)
NAMER(throng_behavior_kind)


const field_desc thr_py_world_def_fields[] = {
	F(throng_world_def, bounds_min, FT_VEC),
	F(throng_world_def, bounds_max, FT_VEC),
	E(throng_world_def, bounds_mode, name_throng_bounds_mode),
	F(throng_world_def, dt, FT_F32),
	F(throng_world_def, seed, FT_U64),
	F(throng_world_def, cell_size, FT_F32),
	F(throng_world_def, capacity, FT_U32),
	E(throng_world_def, engine, name_throng_engine),
	F(throng_world_def, record_forces, FT_BOOL),
	F(throng_world_def, threads, FT_U32),
	E(throng_world_def, threads_policy, name_throng_threads_policy),
};
const size_t thr_py_world_def_field_count = COUNT(thr_py_world_def_fields);

const field_desc thr_py_scene_def_fields[] = {
	F(throng_scene_def, agents, FT_U32),
	F(throng_scene_def, seed, FT_U64),
	E(throng_scene_def, engine, name_throng_engine),
	F(throng_scene_def, threads, FT_U32),
	E(throng_scene_def, threads_policy, name_throng_threads_policy),
	F(throng_scene_def, record_forces, FT_BOOL),
};
const size_t thr_py_scene_def_field_count = COUNT(thr_py_scene_def_fields);

const field_desc thr_py_params_fields[] = {
	E(throng_behavior_params, target, name_throng_target_source),
	E(throng_behavior_params, flee_mode, name_throng_flee_mode),
	F(throng_behavior_params, flee_radius, FT_F32),
	F(throng_behavior_params, slow_radius, FT_F32),
	F(throng_behavior_params, evade_radius, FT_F32),
	F(throng_behavior_params, max_prediction, FT_F32),
	F(throng_behavior_params, circle_distance, FT_F32),
	F(throng_behavior_params, circle_radius, FT_F32),
	F(throng_behavior_params, jitter, FT_F32),
	E(throng_behavior_params, frame, name_throng_wander_frame),
	F(throng_behavior_params, noise_frequency, FT_F32),
	F(throng_behavior_params, noise_amplitude, FT_F32),
	F(throng_behavior_params, look_ahead, FT_F32),
	F(throng_behavior_params, feeler_angle, FT_F32),
	F(throng_behavior_params, avoid_radius, FT_F32),
	F(throng_behavior_params, neighbor_radius, FT_F32),
	F(throng_behavior_params, same_group_only, FT_BOOL),
	F(throng_behavior_params, max_neighbors, FT_U32),
	F(throng_behavior_params, margin, FT_F32),
	F(throng_behavior_params, waypoint_radius, FT_F32),
	F(throng_behavior_params, time_gap, FT_F32),
	F(throng_behavior_params, ttc_strength, FT_F32),
	F(throng_behavior_params, ttc_horizon, FT_F32),
	F(throng_behavior_params, ttc_max_time, FT_F32),
	F(throng_behavior_params, fov_weight, FT_F32),
	F(throng_behavior_params, side_bias, FT_F32),
};
const size_t thr_py_params_field_count = COUNT(thr_py_params_fields);

const field_desc thr_py_target_rule_fields[] = {
	F(throng_target_rule, enabled, FT_BOOL),
	F(throng_target_rule, group, FT_U32),
	F(throng_target_rule, sight_radius, FT_F32),
	F(throng_target_rule, every, FT_U32),
	F(throng_target_rule, max_candidates, FT_U32),
};
const size_t thr_py_target_rule_field_count = COUNT(thr_py_target_rule_fields);

const field_desc thr_py_contact_fields[] = {
	F(throng_contact, enabled, FT_BOOL),
	F(throng_contact, stiffness, FT_F32),
	F(throng_contact, iterations, FT_U32),
	F(throng_contact, inelastic, FT_BOOL),
	F(throng_contact, slip, FT_F32),
	F(throng_contact, noise, FT_F32),
};
const size_t thr_py_contact_field_count = COUNT(thr_py_contact_fields);

const field_desc thr_py_combat_fields[] = {
	F(throng_combat, enabled, FT_BOOL),
	F(throng_combat, health, FT_F32),
	F(throng_combat, armour, FT_F32),
	E(throng_combat, attack, name_throng_attack_kind),
	F(throng_combat, reach, FT_F32),
	F(throng_combat, damage, FT_F32),
	F(throng_combat, cooldown, FT_F32),
	F(throng_combat, accuracy, FT_F32),
	F(throng_combat, missile_speed, FT_F32),
	F(throng_combat, spread, FT_F32),
	F(throng_combat, body_radius, FT_F32),
};
const size_t thr_py_combat_field_count = COUNT(thr_py_combat_fields);

const field_desc thr_py_stats_fields[] = {
	F(throng_world_stats, steps, FT_U64),
	F(throng_world_stats, max_speed_ratio, FT_F32),
	F(throng_world_stats, nonfinite, FT_U64),
	F(throng_world_stats, clamped, FT_U64),
	F(throng_world_stats, neighbor_candidates, FT_U64),
	F(throng_world_stats, neighbor_most_candidates, FT_U32),
	F(throng_world_stats, neighbor_most_met, FT_U32),
	F(throng_world_stats, neighbor_capped, FT_U64),
	F(throng_world_stats, target_most_candidates, FT_U32),
	F(throng_world_stats, target_capped, FT_U64),
	F(throng_world_stats, contacts, FT_U64),
	F(throng_world_stats, contact_capped, FT_U64),
	F(throng_world_stats, contact_iterations, FT_U64),
	F(throng_world_stats, shape_pushes, FT_U64),
	F(throng_world_stats, shape_reverts, FT_U64),
	F(throng_world_stats, threads_last, FT_U32),
	F(throng_world_stats, steps_one_thread, FT_U64),
	F(throng_world_stats, agents_added, FT_U64),
	F(throng_world_stats, agents_removed, FT_U64),
	F(throng_world_stats, agents_peak, FT_U32),
};
const size_t thr_py_stats_field_count = COUNT(thr_py_stats_fields);

const field_desc thr_py_agent_fields[] = {
	F(throng_agent_state, id, FT_U32),
	F(throng_agent_state, position, FT_VEC),
	F(throng_agent_state, velocity, FT_VEC),
	F(throng_agent_state, heading, FT_VEC),
	F(throng_agent_state, max_speed, FT_F32),
	F(throng_agent_state, max_force, FT_F32),
	F(throng_agent_state, radius, FT_F32),
	F(throng_agent_state, archetype, FT_U32),
	F(throng_agent_state, group, FT_U32),
	F(throng_agent_state, target, FT_VEC),
	F(throng_agent_state, target_agent, FT_U32),
	F(throng_agent_state, wander_angle, FT_F32),
	F(throng_agent_state, noise_angle, FT_F32),
	F(throng_agent_state, path, FT_U32),
	F(throng_agent_state, waypoint, FT_U32),
	F(throng_agent_state, health, FT_F32),
	F(throng_agent_state, combat_state, FT_U32),
	F(throng_agent_state, unit, FT_U32),
};
const size_t thr_py_agent_field_count = COUNT(thr_py_agent_fields);

PyObject* thr_py_struct_to_dict(const void* s, const field_desc* fields, size_t count)
{
	PyObject* dict = PyDict_New();
	if (dict == NULL) {
		return NULL;
	}
	const char* base = s;
	for (size_t k = 0; k < count; ++k) {
		const field_desc* f = &fields[k];
		const char* p = base + f->offset;
		PyObject* value = NULL;
		switch (f->type) {
		case FT_F32: {
			float v;
			memcpy(&v, p, sizeof v);
			value = PyFloat_FromDouble((double)v);
			break;
		}
		case FT_U32: {
			uint32_t v;
			memcpy(&v, p, sizeof v);
			value = PyLong_FromUnsignedLong(v);
			break;
		}
		case FT_U64: {
			uint64_t v;
			memcpy(&v, p, sizeof v);
			value = PyLong_FromUnsignedLongLong(v);
			break;
		}
		case FT_BOOL: {
			bool v;
			memcpy(&v, p, sizeof v);
			value = PyBool_FromLong(v);
			break;
		}
		case FT_ENUM: {
			int v;
			memcpy(&v, p, sizeof v);
			const char* name = f->names(v);
			value = name != NULL ? PyUnicode_FromString(name) : PyLong_FromLong(v);
			break;
		}
		case FT_VEC: {
			throng_vec2 v;
			memcpy(&v, p, sizeof v);
			value = Py_BuildValue("(dd)", (double)v.x, (double)v.y);
			break;
		}
		}
		if (value == NULL || PyDict_SetItemString(dict, f->name, value) != 0) {
			Py_XDECREF(value);
			Py_DECREF(dict);
			return NULL;
		}
		Py_DECREF(value);
	}
	return dict;
}

/// A float from a Python number (not a string): 0, or -1 with TypeError.
int thr_py_number_to_f32(PyObject* value, const char* where, const char* name, float* out)
{
	if (PyUnicode_Check(value) || PyBytes_Check(value) || !PyNumber_Check(value)) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a number, got %.80s", where, name, Py_TYPE(value)->tp_name);
		return -1;
	}
	double d = PyFloat_AsDouble(value);
	if (d == -1.0 && PyErr_Occurred()) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a number, got %.80s", where, name, Py_TYPE(value)->tp_name);
		return -1;
	}
	*out = (float)d; // out of float's range: inf, which the library refuses by name
	return 0;
}

/// A whole number from 0 to `most`: 0, or -1 with TypeError (not an
/// integer) or InvalidArgument (out of range).
static int number_to_u64(PyObject* value, const char* where, const char* name, uint64_t most, uint64_t* out)
{
	if (PyBool_Check(value)) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a whole number, got bool", where, name);
		return -1;
	}
	PyObject* index = PyNumber_Index(value);
	if (index == NULL) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a whole number, got %.80s", where, name,
		             Py_TYPE(value)->tp_name);
		return -1;
	}
	int overflow = 0;
	long long signed_value = PyLong_AsLongLongAndOverflow(index, &overflow);
	unsigned long long v = 0;
	bool ok;
	if (overflow == 0) {
		ok = signed_value >= 0;
		v = (unsigned long long)signed_value;
	} else if (overflow > 0) {
		v = PyLong_AsUnsignedLongLong(index);
		ok = !(v == (unsigned long long)-1 && PyErr_Occurred());
		PyErr_Clear();
	} else {
		ok = false;
	}
	if (!ok || v > most) {
		PyObject* repr = PyObject_Repr(index);
		Py_DECREF(index);
		if (repr == NULL) {
			return -1;
		}
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: got %s, expected a whole number from 0 to %llu", where,
		             name, PyUnicode_AsUTF8(repr), (unsigned long long)most);
		Py_DECREF(repr);
		return -1;
	}
	Py_DECREF(index);
	*out = v;
	return 0;
}

/// A pair of numbers: 0, or -1 with TypeError.
static int value_to_vec(PyObject* value, const char* where, const char* name, throng_vec2* out)
{
	if (PyUnicode_Check(value) || PyBytes_Check(value) || !PySequence_Check(value)) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a pair of numbers (x, y), got %.80s", where, name,
		             Py_TYPE(value)->tp_name);
		return -1;
	}
	PyObject* seq = PySequence_Fast(value, "");
	if (seq == NULL) {
		return -1;
	}
	if (PySequence_Fast_GET_SIZE(seq) != 2) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a pair of numbers (x, y), got %zd items", where, name,
		             PySequence_Fast_GET_SIZE(seq));
		Py_DECREF(seq);
		return -1;
	}
	char item[128];
	snprintf(item, sizeof item, "%s[0]", name);
	int rc = thr_py_number_to_f32(PySequence_Fast_GET_ITEM(seq, 0), where, item, &out->x);
	if (rc == 0) {
		snprintf(item, sizeof item, "%s[1]", name);
		rc = thr_py_number_to_f32(PySequence_Fast_GET_ITEM(seq, 1), where, item, &out->y);
	}
	Py_DECREF(seq);
	return rc;
}

/// An enum by its library name: 0, or -1 with TypeError (not a str) or
/// InvalidArgument listing the names.
int thr_py_value_to_enum(PyObject* value, const char* where, const char* name, enum_name_fn names, int* out)
{
	if (!PyUnicode_Check(value)) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a name (str), got %.80s", where, name,
		             Py_TYPE(value)->tp_name);
		return -1;
	}
	const char* text = PyUnicode_AsUTF8(value);
	if (text == NULL) {
		return -1;
	}
	char known[512] = "";
	size_t used = 0;
	for (int v = 0; names(v) != NULL; ++v) {
		if (strcmp(names(v), text) == 0) {
			*out = v;
			return 0;
		}
		int n = snprintf(known + used, sizeof known - used, "%s%s", v > 0 ? ", " : "", names(v));
		if (n > 0 && (size_t)n < sizeof known - used) {
			used += (size_t)n;
		}
	}
	thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: unknown name '%s' (expected one of: %s)", where, name, text,
	             known);
	return -1;
}

int thr_py_set_field(PyObject* value, void* s, const field_desc* f, const char* where)
{
	char* p = (char*)s + f->offset;
	switch (f->type) {
	case FT_F32: {
		float v;
		if (thr_py_number_to_f32(value, where, f->name, &v) != 0) {
			return -1;
		}
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case FT_U32: {
		uint64_t v;
		if (number_to_u64(value, where, f->name, UINT32_MAX, &v) != 0) {
			return -1;
		}
		uint32_t v32 = (uint32_t)v;
		memcpy(p, &v32, sizeof v32);
		return 0;
	}
	case FT_U64: {
		uint64_t v;
		if (number_to_u64(value, where, f->name, UINT64_MAX, &v) != 0) {
			return -1;
		}
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case FT_BOOL: {
		if (PyUnicode_Check(value) || PyBytes_Check(value)) {
			PyErr_Format(PyExc_TypeError, "%s: %s: expected True or False, got %.80s", where, f->name,
			             Py_TYPE(value)->tp_name);
			return -1;
		}
		int truth = PyObject_IsTrue(value);
		if (truth < 0) {
			return -1;
		}
		bool v = truth != 0;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case FT_ENUM: {
		int v;
		if (thr_py_value_to_enum(value, where, f->name, f->names, &v) != 0) {
			return -1;
		}
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case FT_VEC: {
		throng_vec2 v;
		if (value_to_vec(value, where, f->name, &v) != 0) {
			return -1;
		}
		memcpy(p, &v, sizeof v);
		return 0;
	}
	}
	return 0;
}

/// The names of a table, "a, b, c", into buf.
static void field_names(const field_desc* fields, size_t count, char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < count; ++k) {
		int n = snprintf(buf + used, cap - used, "%s%s", k > 0 ? ", " : "", fields[k].name);
		if (n < 0 || (size_t)n >= cap - used) {
			return;
		}
		used += (size_t)n;
	}
}

int thr_py_dict_to_struct(PyObject* dict, void* s, const field_desc* fields, size_t count, const char* where)
{
	if (dict == NULL || dict == Py_None) {
		return 0;
	}
	if (!PyDict_Check(dict)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a dict, got %.80s", where, Py_TYPE(dict)->tp_name);
		return -1;
	}
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(dict, &pos, &key, &value)) {
		const char* name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
		const field_desc* f = NULL;
		for (size_t k = 0; name != NULL && k < count; ++k) {
			if (strcmp(fields[k].name, name) == 0) {
				f = &fields[k];
				break;
			}
		}
		if (f == NULL) {
			char known[1024];
			field_names(fields, count, known, sizeof known);
			PyObject* repr = PyObject_Repr(key);
			PyErr_Format(PyExc_TypeError, "%s: unknown field %s (expected one of: %s)", where,
			             repr != NULL ? PyUnicode_AsUTF8(repr) : "?", known);
			Py_XDECREF(repr);
			return -1;
		}
		if (thr_py_set_field(value, s, f, where) != 0) {
			return -1;
		}
	}
	return 0;
}

PyObject* thr_py_defaults(PyObject* module, PyObject* unused)
{
	(void)module;
	(void)unused;
	throng_world_def world = throng_world_default_def();
	throng_scene_def scene = throng_scene_default_def();
	throng_behavior_params params = throng_behavior_default_def();
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot slot = throng_slot_default_def(THRONG_SEEK);
	PyObject* d = Py_BuildValue(
		"{s:N,s:N,s:N,s:N,s:N,s:N,s:d,s:d,s:O,s:O}", "world", thr_py_struct_to_dict(&world, thr_py_world_def_fields,
		                                                                              thr_py_world_def_field_count),
		"scene", thr_py_struct_to_dict(&scene, thr_py_scene_def_fields, thr_py_scene_def_field_count), "params",
		thr_py_struct_to_dict(&params, thr_py_params_fields, thr_py_params_field_count), "target_rule",
		thr_py_struct_to_dict(&c.target_rule, thr_py_target_rule_fields, thr_py_target_rule_field_count),
		"contact", thr_py_struct_to_dict(&c.contact, thr_py_contact_fields, thr_py_contact_field_count), "combat",
		thr_py_struct_to_dict(&c.combat, thr_py_combat_fields, thr_py_combat_field_count), "relaxation_time",
		(double)c.relaxation_time, "slot_weight", (double)slot.weight, "slot_enabled",
		slot.enabled ? Py_True : Py_False, "slot_priority", slot.priority ? Py_True : Py_False);
	return d;
}

// Counters: plain uint64 fields, then arrays by behaviour kind or stage.
#define C64(name) {#name, offsetof(throng_world_counters, name), FT_U64, NULL}
static const field_desc counter_fields[] = {
	C64(steps),
	C64(agents),
	C64(lanes),
	C64(grid_cells),
	C64(blend_weighted_lanes),
	C64(blend_priority_lanes),
	C64(blend_hybrid_lanes),
	C64(blend_relaxation_lanes),
	C64(blend_budget_terms),
	C64(blend_sum_terms),
	C64(neighbor_walks),
	C64(neighbor_cells),
	C64(neighbor_candidates),
	C64(neighbor_in_radius),
	C64(neighbor_lane_slots),
	C64(neighbor_slot_tests),
	C64(unaligned_push_lanes),
	C64(obstacle_scans),
	C64(obstacle_cells),
	C64(obstacle_tests),
	C64(obstacle_hit_lanes),
	C64(wall_scans),
	C64(wall_cells),
	C64(wall_tests),
	C64(wall_hit_lanes),
	C64(target_choices),
	C64(target_candidates),
	C64(target_tests),
	C64(contact_searches),
	C64(contact_skips),
	C64(step_ns),
};

/// {name: value} of `count` uint64s named by `name(k)`.
static int add_named_array(PyObject* dict, const char* key, const uint64_t* values, int count,
                           const char* (*name)(int))
{
	PyObject* sub = PyDict_New();
	if (sub == NULL) {
		return -1;
	}
	for (int k = 0; k < count; ++k) {
		PyObject* v = PyLong_FromUnsignedLongLong(values[k]);
		if (v == NULL || PyDict_SetItemString(sub, name(k), v) != 0) {
			Py_XDECREF(v);
			Py_DECREF(sub);
			return -1;
		}
		Py_DECREF(v);
	}
	int rc = PyDict_SetItemString(dict, key, sub);
	Py_DECREF(sub);
	return rc;
}

static const char* name_stage(int k)
{
	return throng_stage_name((throng_stage)k);
}

static PyObject* counters_dict(const throng_world_counters* c)
{
	PyObject* d = thr_py_struct_to_dict(c, counter_fields, COUNT(counter_fields));
	if (d == NULL) {
		return NULL;
	}
	if (add_named_array(d, "slot_lanes", c->slot_lanes, THRONG_BEHAVIOR_COUNT, name_throng_behavior_kind) != 0 ||
	    add_named_array(d, "neighbor_taken", c->neighbor_taken, THRONG_BEHAVIOR_COUNT, name_throng_behavior_kind) !=
	        0 ||
	    add_named_array(d, "neighbor_body_lanes", c->neighbor_body_lanes, THRONG_BEHAVIOR_COUNT,
	                    name_throng_behavior_kind) != 0 ||
	    add_named_array(d, "stage_ns", c->stage_ns, THRONG_STAGE_COUNT, name_stage) != 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

PyObject* thr_py_counters_to_dict(const throng_world_counters* last, const throng_world_counters* total)
{
	return Py_BuildValue("{s:N,s:N}", "last_step", counters_dict(last), "total", counters_dict(total));
}
