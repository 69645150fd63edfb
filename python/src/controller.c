// SPDX-License-Identifier: MIT
// A controller to and from the dict the package's Controller makes
// (python/throng/_types.py): thr_py_controller_from_dict and
// thr_py_controller_to_dict (module.h), over fields.c's tables.
#include <stdio.h>

#include "module.h"

NAMER(throng_blend_mode)
NAMER(throng_behavior_kind)


/// Looks up `key` in a dict (borrowed; NULL when absent, without error).
static PyObject* get(PyObject* dict, const char* key)
{
	return PyDict_GetItemString(dict, key);
}

int thr_py_controller_from_dict(PyObject* dict, throng_controller* out)
{
	static const char* const known[] = {"mode", "relaxation_time", "slots", "target_rule", "contact", "combat"};
	if (!PyDict_Check(dict)) {
		PyErr_Format(PyExc_TypeError, "controller: expected a dict, got %.80s", Py_TYPE(dict)->tp_name);
		return -1;
	}
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(dict, &pos, &key, &value)) {
		bool ok = false;
		for (size_t k = 0; PyUnicode_Check(key) && k < COUNT(known); ++k) {
			ok = ok || PyUnicode_CompareWithASCIIString(key, known[k]) == 0;
		}
		if (!ok) {
			PyErr_Format(PyExc_TypeError,
			             "controller: unknown field %R (expected mode, relaxation_time, slots, target_rule, "
			             "contact, combat)",
			             key);
			return -1;
		}
	}
	int mode = THRONG_BLEND_WEIGHTED;
	PyObject* v = get(dict, "mode");
	if (v != NULL && thr_py_value_to_enum(v, "controller", "mode", name_throng_blend_mode, &mode) != 0) {
		return -1;
	}
	throng_controller c = throng_controller_default_def((throng_blend_mode)mode);
	v = get(dict, "relaxation_time");
	if (v != NULL && thr_py_number_to_f32(v, "controller", "relaxation_time", &c.relaxation_time) != 0) {
		return -1;
	}
	v = get(dict, "target_rule");
	if (v != NULL && v != Py_None) {
		c.target_rule.enabled = true; // a rule given is a rule in force unless it says enabled=False
		if (thr_py_dict_to_struct(v, &c.target_rule, thr_py_target_rule_fields, thr_py_target_rule_field_count,
		                          "controller.target_rule") != 0) {
			return -1;
		}
	}
	if (thr_py_dict_to_struct(get(dict, "contact"), &c.contact, thr_py_contact_fields, thr_py_contact_field_count,
	                          "controller.contact") != 0 ||
	    thr_py_dict_to_struct(get(dict, "combat"), &c.combat, thr_py_combat_fields, thr_py_combat_field_count,
	                          "controller.combat") != 0) {
		return -1;
	}
	v = get(dict, "slots");
	if (v == NULL || v == Py_None) {
		*out = c;
		return 0;
	}
	PyObject* slots = PySequence_Fast(v, "controller.slots: expected a list of slots");
	if (slots == NULL) {
		return -1;
	}
	Py_ssize_t n = PySequence_Fast_GET_SIZE(slots);
	int rc = 0;
	for (Py_ssize_t k = 0; k < n && rc == 0; ++k) {
		char where[64];
		snprintf(where, sizeof where, "controller.slots[%zd]", k);
		PyObject* s = PySequence_Fast_GET_ITEM(slots, k);
		if (!PyDict_Check(s)) {
			PyErr_Format(PyExc_TypeError, "%s: expected a slot (dict), got %.80s", where, Py_TYPE(s)->tp_name);
			rc = -1;
			break;
		}
		PyObject* kind_value = get(s, "kind");
		int kind = 0;
		if (kind_value == NULL) {
			PyErr_Format(PyExc_TypeError, "%s: kind: missing (a behaviour's name, e.g. 'arrive')", where);
			rc = -1;
			break;
		}
		if (thr_py_value_to_enum(kind_value, where, "kind", name_throng_behavior_kind, &kind) != 0) {
			rc = -1;
			break;
		}
		throng_slot slot = throng_slot_default_def((throng_behavior_kind)kind);
		pos = 0;
		while (rc == 0 && PyDict_Next(s, &pos, &key, &value)) {
			if (!PyUnicode_Check(key)) {
				PyErr_Format(PyExc_TypeError, "%s: unknown field %R", where, key);
				rc = -1;
			} else if (PyUnicode_CompareWithASCIIString(key, "kind") == 0) {
				continue;
			} else if (PyUnicode_CompareWithASCIIString(key, "weight") == 0) {
				rc = thr_py_number_to_f32(value, where, "weight", &slot.weight);
			} else if (PyUnicode_CompareWithASCIIString(key, "enabled") == 0 ||
			           PyUnicode_CompareWithASCIIString(key, "priority") == 0) {
				static const field_desc flags[] = {F(throng_slot, enabled, FT_BOOL), F(throng_slot, priority, FT_BOOL)};
				bool is_enabled = PyUnicode_CompareWithASCIIString(key, "enabled") == 0;
				rc = thr_py_set_field(value, &slot, &flags[is_enabled ? 0 : 1], where);
			} else if (PyUnicode_CompareWithASCIIString(key, "params") == 0) {
				char params_where[96];
				snprintf(params_where, sizeof params_where, "%s.params", where);
				rc = thr_py_dict_to_struct(value, &slot.params, thr_py_params_fields, thr_py_params_field_count,
				                           params_where);
			} else {
				PyErr_Format(PyExc_TypeError,
				             "%s: unknown field %R (expected kind, weight, enabled, priority, params)", where, key);
				rc = -1;
			}
		}
		if (rc == 0 && throng_controller_add(&c, slot) < 0) {
			thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "controller.slots: more than %d slots", THRONG_MAX_SLOTS);
			rc = -1;
		}
	}
	Py_DECREF(slots);
	if (rc == 0) {
		*out = c;
	}
	return rc;
}

/// A dict of the fields of a struct that differ from `defaults` (the
/// slot's params against its kind's defaults: what Slot.params holds).
static PyObject* params_diff(const throng_behavior_params* p, const throng_behavior_params* defaults)
{
	PyObject* all = thr_py_struct_to_dict(p, thr_py_params_fields, thr_py_params_field_count);
	PyObject* base = thr_py_struct_to_dict(defaults, thr_py_params_fields, thr_py_params_field_count);
	PyObject* diff = all != NULL && base != NULL ? PyDict_New() : NULL;
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (diff != NULL && PyDict_Next(all, &pos, &key, &value)) {
		PyObject* other = PyDict_GetItemWithError(base, key);
		int same = other != NULL ? PyObject_RichCompareBool(value, other, Py_EQ) : (PyErr_Occurred() ? -1 : 0);
		if (same < 0 || (same == 0 && PyDict_SetItem(diff, key, value) != 0)) {
			Py_CLEAR(diff);
		}
	}
	Py_XDECREF(all);
	Py_XDECREF(base);
	return diff;
}

/// A controller as the dict thr_py_controller_from_dict reads (its slots'
/// params: those that differ from the kind's defaults; target_rule None
/// when the rule is off).
PyObject* thr_py_controller_to_dict(const throng_controller* c)
{
	PyObject* slots = PyList_New((Py_ssize_t)c->slot_count);
	if (slots == NULL) {
		return NULL;
	}
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		throng_slot base = throng_slot_default_def(s->kind);
		const char* kind = throng_behavior_kind_name(s->kind);
		PyObject* slot = Py_BuildValue("{s:s,s:d,s:O,s:O,s:N}", "kind", kind != NULL ? kind : "?", "weight",
		                               (double)s->weight, "enabled", s->enabled ? Py_True : Py_False, "priority",
		                               s->priority ? Py_True : Py_False, "params", params_diff(&s->params, &base.params));
		if (slot == NULL) {
			Py_DECREF(slots);
			return NULL;
		}
		PyList_SET_ITEM(slots, (Py_ssize_t)k, slot);
	}
	PyObject* rule = NULL;
	if (c->target_rule.enabled) {
		rule = thr_py_struct_to_dict(&c->target_rule, thr_py_target_rule_fields, thr_py_target_rule_field_count);
	} else {
		Py_INCREF(Py_None);
		rule = Py_None;
	}
	const char* mode = throng_blend_mode_name(c->mode);
	return Py_BuildValue("{s:s,s:d,s:N,s:N,s:N,s:N}", "mode", mode != NULL ? mode : "?", "relaxation_time",
	                     (double)c->relaxation_time, "slots", slots, "target_rule", rule, "contact",
	                     thr_py_struct_to_dict(&c->contact, thr_py_contact_fields, thr_py_contact_field_count),
	                     "combat", thr_py_struct_to_dict(&c->combat, thr_py_combat_fields, thr_py_combat_field_count));
}
