// SPDX-License-Identifier: MIT
// throng._throng: the living world (module.h): removal, the per-agent
// setters, controllers at run time, obstacles, walls, paths, the threat,
// threads and recorded forces (the spatial queries are in queries.c). The
// package's _LivingMixin (python/throng/_living.py) wraps these functions:
// it converts every array to a C-contiguous uint32 or float32 array and
// checks shapes, so here a buffer of the wrong size is a TypeError (a last
// check), and every per-agent loop runs in C.
//
// All or nothing. The library has batch setters for positions and
// velocities only; the others are one agent a call. _set checks every id
// first, copies each agent's state out, then applies the values in order;
// when the library refuses one, it puts back the agents already changed
// (in reverse order, from the copies), so a batch either changes every
// agent or none. Nothing here reallocates the agent store (setters and
// removal write in place), so none of these calls refuses live views.
//
// The order of a call: PyArg_ParseTuple's conversions, then the buffers
// (take) and any dict, then thr_py_world_check, then the library, with no
// Python code between the check and the library. A conversion can run
// Python code (__float__, __index__, a buffer's exporter, a dict's
// values), and that code can let another thread start a step of this
// world (it releases the GIL): a check made before it would pass, and the
// library would then run beside the step.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "living.h"

/// 0 when every id is a live agent's (each state copied to states[k] when
/// states is not NULL), else -1 with NotFound naming the first that is not.
static int check_ids(const throng_world* world, const char* fn, const uint32_t* ids, Py_ssize_t n,
                     throng_agent_state* states)
{
	for (Py_ssize_t k = 0; k < n; ++k) {
		throng_agent_state s;
		if (throng_world_get_agent(world, ids[k], &s) != THRONG_OK) {
			thr_py_raise(THRONG_ERR_NOT_FOUND, "%s: ids[%zd]: no live agent with id %u", fn, k, ids[k]);
			return -1;
		}
		if (states != NULL) {
			states[k] = s;
		}
	}
	return 0;
}

/// _remove(world, ids): ids a uint32 buffer (at least one id).
static PyObject* living_remove(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	PyObject* ids_obj;
	if (!PyArg_ParseTuple(args, "O!O:_remove", &thr_py_world_type, &w, &ids_obj)) {
		return NULL;
	}
	Py_buffer ids;
	if (take(ids_obj, "World.remove", "ids", -1, 1, 'I', false, &ids) != 0) {
		return NULL;
	}
	Py_ssize_t n = ids.len / 4;
	PyObject* result = NULL;
	if (thr_py_world_check(w, "remove") != 0) {
		// the exception is set
	} else if (n == 0 || n > UINT32_MAX) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.remove: ids: expected 1 to 4294967295 ids, got %zd", n);
	} else if (check_ids(w->world, "World.remove", ids.buf, n, NULL) == 0) {
		throng_status st = throng_world_remove_agents(w->world, ids.buf, (uint32_t)n);
		if (st != THRONG_OK) {
			raise_prefixed(st, "World.remove: ");
		} else {
			Py_INCREF(Py_None);
			result = Py_None;
		}
	}
	PyBuffer_Release(&ids);
	return result;
}

/// What _set changes (python/throng/_living.py keeps the same numbers).
enum setter_kind {
	SET_POSITION = 0,
	SET_VELOCITY,
	SET_HEADING,
	SET_TARGET,
	SET_TARGET_AGENT,
	SET_MAX_SPEED,
	SET_MAX_FORCE,
	SET_RADIUS,
	SET_GROUP,
	SET_ARCHETYPE,
	SET_HEALTH,
	SET_PATH,
	SET_KINDS
};

/// Values per agent (2: a vector) and their kind, by setter.
static const Py_ssize_t setter_per[SET_KINDS] = {2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
static const char setter_type[SET_KINDS] = {'f', 'f', 'f', 'f', 'I', 'f', 'f', 'f', 'I', 'I', 'f', 'I'};

/// Applies value k of a batch to agent `id`.
static throng_status set_one(throng_world* world, int kind, uint32_t id, const void* values, const uint32_t* second,
                             Py_ssize_t k)
{
	const float* f = values;
	const uint32_t* u = values;
	const throng_vec2 v = setter_per[kind] == 2 ? (throng_vec2){f[2 * k], f[2 * k + 1]} : (throng_vec2){0, 0};
	switch (kind) {
	case SET_HEADING: return throng_world_set_heading(world, id, v);
	case SET_TARGET: return throng_world_set_target(world, id, v);
	case SET_TARGET_AGENT: return throng_world_set_target_agent(world, id, u[k]);
	case SET_MAX_SPEED: return throng_world_set_max_speed(world, id, f[k]);
	case SET_MAX_FORCE: return throng_world_set_max_force(world, id, f[k]);
	case SET_RADIUS: return throng_world_set_radius(world, id, f[k]);
	case SET_GROUP: return throng_world_set_group(world, id, u[k]);
	case SET_ARCHETYPE: return throng_world_set_archetype(world, id, u[k]);
	case SET_HEALTH: return throng_world_set_health(world, id, f[k]);
	case SET_PATH: return throng_world_set_path(world, id, u[k], second[k]);
	default: return THRONG_ERR_INVALID_ARGUMENT;
	}
}

/// Puts back what set_one changed of agent `old->id`. The old values were
/// valid, so the library takes them back; a failure here would leave the
/// agent changed, and is ignored (there is nothing better to do).
static void restore_one(throng_world* world, int kind, const throng_agent_state* old)
{
	const uint32_t id = old->id;
	switch (kind) {
	case SET_HEADING: (void)throng_world_set_heading(world, id, old->heading); break;
	case SET_TARGET: (void)throng_world_set_target(world, id, old->target); break;
	case SET_TARGET_AGENT: (void)throng_world_set_target_agent(world, id, old->target_agent); break;
	case SET_MAX_SPEED:
		// A lower top speed scaled the velocity down: put both back.
		(void)throng_world_set_max_speed(world, id, old->max_speed);
		(void)throng_world_set_velocity(world, id, old->velocity);
		break;
	case SET_MAX_FORCE: (void)throng_world_set_max_force(world, id, old->max_force); break;
	case SET_RADIUS: (void)throng_world_set_radius(world, id, old->radius); break;
	case SET_GROUP: (void)throng_world_set_group(world, id, old->group); break;
	case SET_ARCHETYPE:
		(void)throng_world_set_archetype(world, id, old->archetype);
		if (old->health > 0.0f) {
			(void)throng_world_set_health(world, id, old->health);
		}
		break;
	case SET_HEALTH: (void)throng_world_set_health(world, id, old->health); break;
	case SET_PATH: (void)throng_world_set_path(world, id, old->path, old->waypoint); break;
	default: break;
	}
}

/// _set(world, fn, kind, ids, values, second): ids uint32 (N,), values N
/// rows of the setter's kind, second the waypoints (uint32 (N,)) of
/// SET_PATH, else None. All or nothing; fn names the method in messages.
static PyObject* living_set(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	const char* fn;
	int kind;
	PyObject *ids_obj, *values_obj, *second_obj;
	if (!PyArg_ParseTuple(args, "O!siOOO:_set", &thr_py_world_type, &w, &fn, &kind, &ids_obj, &values_obj,
	                      &second_obj)) {
		return NULL;
	}
	if (kind < 0 || kind >= SET_KINDS) {
		PyErr_Format(PyExc_ValueError, "_set: no setter %d", kind);
		return NULL;
	}
	Py_buffer ids, values, second = {0};
	if (take(ids_obj, fn, "ids", -1, 1, 'I', false, &ids) != 0) {
		return NULL;
	}
	const Py_ssize_t n = ids.len / 4;
	if (take(values_obj, fn, "values", n, setter_per[kind], setter_type[kind], false, &values) != 0) {
		PyBuffer_Release(&ids);
		return NULL;
	}
	if (kind == SET_PATH && take(second_obj, fn, "waypoints", n, 1, 'I', false, &second) != 0) {
		PyBuffer_Release(&values);
		PyBuffer_Release(&ids);
		return NULL;
	}
	PyObject* result = NULL;
	throng_agent_state* old = NULL;
	char prefix[96];
	snprintf(prefix, sizeof prefix, "%s: ", fn);
	if (thr_py_world_check(w, fn + (strncmp(fn, "World.", 6) == 0 ? 6 : 0)) != 0) {
		// the exception is set
	} else if (n > UINT32_MAX) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: ids: got %zd ids", fn, n);
	} else if (n == 0) {
		Py_INCREF(Py_None);
		result = Py_None;
	} else if ((old = malloc((size_t)n * sizeof *old)) == NULL) {
		PyErr_NoMemory();
	} else if (check_ids(w->world, fn, ids.buf, n, old) == 0) {
		const uint32_t* id = ids.buf;
		throng_status st = THRONG_OK;
		if (kind == SET_POSITION || kind == SET_VELOCITY) {
			// The library's own batches, all or nothing.
			const throng_vec2* v = values.buf;
			st = kind == SET_POSITION ? throng_world_set_positions(w->world, id, v, (uint32_t)n)
			                          : throng_world_set_velocities(w->world, id, v, (uint32_t)n);
			if (st != THRONG_OK) {
				raise_prefixed(st, prefix);
			}
		} else {
			Py_ssize_t k = 0;
			if (kind == SET_RADIUS) {
				// A radius, once set, leaves a trace that putting it back does
				// not undo (the world's largest radius, which sizes its grids),
				// so radii are checked before any is set: a value outside the
				// library's range goes to the library alone, which refuses it
				// with its message and changes nothing.
				const float* r = values.buf;
				for (; k < n && st == THRONG_OK; ++k) {
					if (!(isfinite(r[k]) && r[k] >= 1e-6f && r[k] <= 1e6f)) {
						st = throng_world_set_radius(w->world, id[k], r[k]);
					}
				}
				k = st == THRONG_OK ? 0 : k - 1;
			}
			Py_ssize_t changed = 0; // agents 0 .. changed-1 hold their new values
			for (; k < n && st == THRONG_OK; ++k, ++changed) {
				st = set_one(w->world, kind, id[k], values.buf, second.buf, k);
				if (st != THRONG_OK) {
					break;
				}
			}
			if (st != THRONG_OK) {
				// The library's message is kept, the agents are put back,
				// and only then is the exception made: making it may run
				// Python code (a collection), after which the world may be
				// stepping in another thread.
				const char* why = throng_last_error();
				if (why == NULL || why[0] == '\0') {
					why = throng_status_name(st) != NULL ? throng_status_name(st) : "error";
				}
				char message[512];
				snprintf(message, sizeof message, "%s: values[%zd] (id %u): %s", fn, k, id[k], why);
				while (changed-- > 0) {
					restore_one(w->world, kind, &old[changed]);
				}
				thr_py_raise(st, "%s", message);
			}
		}
		if (st == THRONG_OK) {
			Py_INCREF(Py_None);
			result = Py_None;
		}
	}
	free(old);
	if (second.obj != NULL) {
		PyBuffer_Release(&second);
	}
	PyBuffer_Release(&values);
	PyBuffer_Release(&ids);
	return result;
}

// Controllers at run time.

/// _get_controller(world, archetype) -> dict.
static PyObject* living_get_controller(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int archetype;
	if (!PyArg_ParseTuple(args, "O!I:_get_controller", &thr_py_world_type, &w, &archetype)) {
		return NULL;
	}
	if (thr_py_world_check(w, "get_controller") != 0) {
		return NULL;
	}
	throng_controller c;
	throng_status st = throng_world_get_controller(w->world, archetype, &c);
	return st == THRONG_OK ? thr_py_controller_to_dict(&c) : raise_prefixed(st, "World.get_controller: ");
}

/// _set_controller(world, archetype, dict).
static PyObject* living_set_controller(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int archetype;
	PyObject* dict;
	if (!PyArg_ParseTuple(args, "O!IO:_set_controller", &thr_py_world_type, &w, &archetype, &dict)) {
		return NULL;
	}
	throng_controller c;
	if (thr_py_controller_from_dict(dict, &c) != 0 || thr_py_world_check(w, "set_controller") != 0) {
		return NULL;
	}
	throng_status st = throng_world_set_controller(w->world, archetype, &c);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.set_controller: ");
	}
	Py_RETURN_NONE;
}

// Obstacles, walls, paths, the threat, threads.

/// _add_obstacle(world, x, y, radius) -> id.
static PyObject* living_add_obstacle(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	throng_vec2 c;
	float r;
	if (!PyArg_ParseTuple(args, "O!fff:_add_obstacle", &thr_py_world_type, &w, &c.x, &c.y, &r)) {
		return NULL;
	}
	if (thr_py_world_check(w, "add_obstacle") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_add_obstacle(w->world, c, r, &id);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(id) : raise_prefixed(st, "World.add_obstacle: ");
}

/// _set_obstacle(world, id, x, y, radius).
static PyObject* living_set_obstacle(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int id;
	throng_vec2 c;
	float r;
	if (!PyArg_ParseTuple(args, "O!Ifff:_set_obstacle", &thr_py_world_type, &w, &id, &c.x, &c.y, &r)) {
		return NULL;
	}
	if (thr_py_world_check(w, "set_obstacle") != 0) {
		return NULL;
	}
	throng_status st = throng_world_set_obstacle(w->world, id, c, r);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.set_obstacle: ");
	}
	Py_RETURN_NONE;
}

/// _get_obstacle(world, id) -> ((x, y), radius).
static PyObject* living_get_obstacle(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int id;
	if (!PyArg_ParseTuple(args, "O!I:_get_obstacle", &thr_py_world_type, &w, &id)) {
		return NULL;
	}
	if (thr_py_world_check(w, "get_obstacle") != 0) {
		return NULL;
	}
	throng_vec2 c;
	float r;
	throng_status st = throng_world_get_obstacle(w->world, id, &c, &r);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.get_obstacle: ");
	}
	return Py_BuildValue("((dd)d)", (double)c.x, (double)c.y, (double)r);
}

/// _add_wall(world, ax, ay, bx, by) -> id.
static PyObject* living_add_wall(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	throng_vec2 a, b;
	if (!PyArg_ParseTuple(args, "O!ffff:_add_wall", &thr_py_world_type, &w, &a.x, &a.y, &b.x, &b.y)) {
		return NULL;
	}
	if (thr_py_world_check(w, "add_wall") != 0) {
		return NULL;
	}
	uint32_t id = 0;
	throng_status st = throng_world_add_wall(w->world, a, b, &id);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(id) : raise_prefixed(st, "World.add_wall: ");
}

/// _get_wall(world, id) -> ((ax, ay), (bx, by)).
static PyObject* living_get_wall(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int id;
	if (!PyArg_ParseTuple(args, "O!I:_get_wall", &thr_py_world_type, &w, &id)) {
		return NULL;
	}
	if (thr_py_world_check(w, "get_wall") != 0) {
		return NULL;
	}
	throng_vec2 a, b;
	throng_status st = throng_world_get_wall(w->world, id, &a, &b);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.get_wall: ");
	}
	return Py_BuildValue("((dd)(dd))", (double)a.x, (double)a.y, (double)b.x, (double)b.y);
}

/// _add_path(world, points, loop) -> id; points float32 (n, 2).
static PyObject* living_add_path(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	PyObject* points_obj;
	int loop;
	if (!PyArg_ParseTuple(args, "O!Op:_add_path", &thr_py_world_type, &w, &points_obj, &loop)) {
		return NULL;
	}
	Py_buffer points;
	if (take(points_obj, "World.add_path", "points", -1, 2, 'f', false, &points) != 0) {
		return NULL;
	}
	Py_ssize_t n = points.len / 8;
	uint32_t id = 0;
	if (thr_py_world_check(w, "add_path") != 0) {
		PyBuffer_Release(&points);
		return NULL;
	}
	throng_status st = throng_world_add_path(w->world, points.buf, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n,
	                                         loop != 0, &id);
	PyBuffer_Release(&points);
	return st == THRONG_OK ? PyLong_FromUnsignedLong(id) : raise_prefixed(st, "World.add_path: ");
}

/// _counts(world) -> (obstacles, walls, paths).
static PyObject* living_counts(PyObject* module, PyObject* arg)
{
	(void)module;
	if (!PyObject_TypeCheck(arg, &thr_py_world_type)) {
		PyErr_SetString(PyExc_TypeError, "_counts: expected a World");
		return NULL;
	}
	world_object* w = (world_object*)arg;
	if (thr_py_world_check(w, "counts") != 0) {
		return NULL;
	}
	return Py_BuildValue("(kkk)", (unsigned long)throng_world_obstacle_count(w->world),
	                     (unsigned long)throng_world_wall_count(w->world),
	                     (unsigned long)throng_world_path_count(w->world));
}

/// _set_threat(world, px, py, vx, vy, active).
static PyObject* living_set_threat(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	throng_vec2 p, v;
	int active;
	if (!PyArg_ParseTuple(args, "O!ffffp:_set_threat", &thr_py_world_type, &w, &p.x, &p.y, &v.x, &v.y, &active)) {
		return NULL;
	}
	if (thr_py_world_check(w, "set_threat") != 0) {
		return NULL;
	}
	throng_status st = throng_world_set_threat(w->world, p, v, active != 0);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.set_threat: ");
	}
	Py_RETURN_NONE;
}

/// _set_threads(world, threads, policy_name).
static PyObject* living_set_threads(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	unsigned int threads;
	const char* name;
	if (!PyArg_ParseTuple(args, "O!Is:_set_threads", &thr_py_world_type, &w, &threads, &name)) {
		return NULL;
	}
	if (thr_py_world_check(w, "set_threads") != 0) {
		return NULL;
	}
	throng_threads_policy policy;
	if (!throng_threads_policy_from_name(name, &policy)) {
		return thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "World.set_threads: policy: got '%s', expected 'adapt' or "
		                    "'fixed'", name);
	}
	throng_status st = throng_world_set_threads(w->world, threads, policy);
	if (st != THRONG_OK) {
		return raise_prefixed(st, "World.set_threads: ");
	}
	Py_RETURN_NONE;
}

/// _forces(world, ids, slot, out): the recorded force of slot `slot` (-1:
/// the blended total) of each agent ids[k] into out (float32 (n, 2)).
static PyObject* living_forces(PyObject* module, PyObject* args)
{
	(void)module;
	world_object* w;
	PyObject *ids_obj, *out_obj;
	long slot;
	if (!PyArg_ParseTuple(args, "O!OlO:_forces", &thr_py_world_type, &w, &ids_obj, &slot, &out_obj)) {
		return NULL;
	}
	const char* fn = slot < 0 ? "World.total_force" : "World.slot_force";
	Py_buffer ids, out;
	if (take(ids_obj, fn, "ids", -1, 1, 'I', false, &ids) != 0) {
		return NULL;
	}
	Py_ssize_t n = ids.len / 4;
	if (take(out_obj, fn, "out", n, 2, 'f', true, &out) != 0) {
		PyBuffer_Release(&ids);
		return NULL;
	}
	PyObject* result = NULL;
	if (thr_py_world_check(w, fn + 6) != 0) {
		// the exception is set
	} else if (slot > UINT32_MAX) {
		thr_py_raise(THRONG_ERR_NOT_FOUND, "%s: slot: no slot %ld", fn, slot);
	} else if (check_ids(w->world, fn, ids.buf, n, NULL) == 0) {
		const uint32_t* id = ids.buf;
		throng_vec2* f = out.buf;
		throng_status st = THRONG_OK;
		Py_ssize_t k = 0;
		for (; k < n && st == THRONG_OK; ++k) {
			st = slot < 0 ? throng_world_total_force(w->world, id[k], &f[k])
			              : throng_world_slot_force(w->world, id[k], (uint32_t)slot, &f[k]);
		}
		if (st != THRONG_OK) {
			char at[96];
			snprintf(at, sizeof at, "%s: ids[%zd] (id %u): ", fn, k - 1, id[k - 1]);
			raise_prefixed(st, at);
		} else {
			Py_INCREF(Py_None);
			result = Py_None;
		}
	}
	PyBuffer_Release(&out);
	PyBuffer_Release(&ids);
	return result;
}

PyMethodDef thr_py_living_functions[] = {
	{"_remove", living_remove, METH_VARARGS, "_remove(world, ids): throng_world_remove_agents."},
	{"_set", living_set, METH_VARARGS, "_set(world, fn, kind, ids, values, waypoints): a setter over a batch."},
	{"_get_controller", living_get_controller, METH_VARARGS, "An archetype's controller as a dict."},
	{"_set_controller", living_set_controller, METH_VARARGS, "Replaces an archetype's controller (a dict)."},
	{"_add_obstacle", living_add_obstacle, METH_VARARGS, "throng_world_add_obstacle."},
	{"_set_obstacle", living_set_obstacle, METH_VARARGS, "throng_world_set_obstacle."},
	{"_get_obstacle", living_get_obstacle, METH_VARARGS, "throng_world_get_obstacle."},
	{"_add_wall", living_add_wall, METH_VARARGS, "throng_world_add_wall."},
	{"_get_wall", living_get_wall, METH_VARARGS, "throng_world_get_wall."},
	{"_add_path", living_add_path, METH_VARARGS, "throng_world_add_path."},
	{"_counts", living_counts, METH_O, "(obstacles, walls, paths)."},
	{"_set_threat", living_set_threat, METH_VARARGS, "throng_world_set_threat."},
	{"_set_threads", living_set_threads, METH_VARARGS, "throng_world_set_threads."},
	{"_forces", living_forces, METH_VARARGS, "Recorded forces of agents into out."},
	{NULL, NULL, 0, NULL},
};
