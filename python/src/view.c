// SPDX-License-Identifier: MIT
// _throng._View: one of a world's per-agent arrays through the buffer
// protocol (PEP 3118), read-only, without a copy; numpy.asarray(view)
// wraps the library's own memory (throng_world_view).
//
// Layout. The library keeps x and y (vx and vy, hx and hy) in two arrays
// of one allocation (core/store.h), so an (N, 2) float32 view of them is
// the x array with a row stride of 4 bytes and a column stride of the
// distance from x to y: no copy, not C-contiguous. ids, groups,
// archetypes and radii are plain 1-D arrays.
//
// Lifetime (docs/PYTHON.md, "Views"). Each buffer handed out holds the
// view object, which holds the World (so the world outlives every array
// made from it), and counts in world->exports until it is released. While
// any is alive the world keeps the arrays a growth replaces
// (throng_world_keep_replaced_arrays: a spawn or a source past the
// capacity), so no view ever points to freed memory; the last release (or
// the end of a step, for releases during one) frees what was kept. A step,
// a removal or a setter frees nothing in any case: the store swaps between
// buffers it keeps. What an old view shows after any change is
// unspecified: take a new view.
#include <stdlib.h>

#include "module.h"

enum view_kind {
	VIEW_POSITIONS = 0,
	VIEW_VELOCITIES,
	VIEW_HEADINGS,
	VIEW_IDS,
	VIEW_GROUPS,
	VIEW_ARCHETYPES,
	VIEW_RADII,
	VIEW_HEALTH,
	VIEW_COMBAT_STATE,
	VIEW_KINDS
};

typedef struct view_object {
	PyObject_HEAD
	world_object* world;
	int kind;
} view_object;

static PyObject* view_new(PyTypeObject* type, PyObject* args, PyObject* kwargs)
{
	PyObject* world;
	int kind;
	if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
		PyErr_SetString(PyExc_TypeError, "_View takes no keyword arguments");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "O!i:_View", &thr_py_world_type, &world, &kind)) {
		return NULL;
	}
	if (kind < 0 || kind >= VIEW_KINDS) {
		PyErr_Format(PyExc_ValueError, "_View: no array %d", kind);
		return NULL;
	}
	view_object* self = (view_object*)type->tp_alloc(type, 0);
	if (self == NULL) {
		return NULL;
	}
	Py_INCREF(world);
	self->world = (world_object*)world;
	self->kind = kind;
	return (PyObject*)self;
}

static void view_dealloc(view_object* self)
{
	Py_XDECREF(self->world);
	Py_TYPE(self)->tp_free((PyObject*)self);
}

/// Where a buffer of an empty world points (never read: its shape is 0).
static float empty_array[1];

static int view_getbuffer(view_object* self, Py_buffer* buffer, int flags)
{
	world_object* w = self->world;
	if (w->world == NULL) {
		PyErr_SetString(PyExc_BufferError, "throng view: the world was not made");
		return -1;
	}
	if (thr_py_world_busy(w)) {
		PyErr_SetString(PyExc_BufferError, "throng view: the world is being stepped in another thread");
		return -1;
	}
	if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
		PyErr_SetString(PyExc_BufferError, "throng views are read-only: change agents through the World's methods");
		return -1;
	}
	throng_view v = throng_world_view(w->world);
	const void* first = NULL;
	const void* second = NULL;
	const char* format = "f";
	switch (self->kind) {
	case VIEW_POSITIONS: first = v.x, second = v.y; break;
	case VIEW_VELOCITIES: first = v.vx, second = v.vy; break;
	case VIEW_HEADINGS: first = v.hx, second = v.hy; break;
	case VIEW_IDS: first = v.id, format = "I"; break;
	case VIEW_GROUPS: first = v.group, format = "I"; break;
	case VIEW_ARCHETYPES: first = v.archetype, format = "I"; break;
	case VIEW_RADII: first = v.radius; break;
	case VIEW_HEALTH: first = v.health; break;
	case VIEW_COMBAT_STATE: first = v.combat_state, format = "I"; break;
	}
	int ndim = second != NULL ? 2 : 1;
	if (ndim == 2 && (flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
		PyErr_SetString(PyExc_BufferError,
		                "throng view: an (N, 2) view is strided (x and y are two arrays); ask for strides "
		                "(numpy.asarray does)");
		return -1;
	}
	if (ndim == 2 && ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ||
	                  (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS ||
	                  (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS)) {
		PyErr_SetString(PyExc_BufferError, "throng view: an (N, 2) view is not contiguous (x and y are two arrays)");
		return -1;
	}
	// shape[2], strides[2], freed at release.
	Py_ssize_t* dims = malloc(4 * sizeof *dims);
	if (dims == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	dims[0] = (Py_ssize_t)v.count;
	dims[1] = 2;
	dims[2] = 4;
	dims[3] = second != NULL ? (Py_ssize_t)((const char*)second - (const char*)first) : 0;
	buffer->buf = first != NULL && v.count > 0 ? (void*)first : (void*)empty_array;
	Py_INCREF(self);
	buffer->obj = (PyObject*)self;
	buffer->len = (Py_ssize_t)v.count * ndim * 4;
	buffer->itemsize = 4;
	buffer->readonly = 1;
	buffer->ndim = ndim;
	buffer->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char*)format : NULL;
	buffer->shape = (flags & PyBUF_ND) == PyBUF_ND ? dims : NULL;
	buffer->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? dims + 2 : NULL;
	buffer->suboffsets = NULL;
	buffer->internal = dims;
	if (w->exports == 0) {
		(void)throng_world_keep_replaced_arrays(w->world, true); // only fails for a NULL world
	}
	w->exports += 1;
	return 0;
}

static void view_releasebuffer(view_object* self, Py_buffer* buffer)
{
	free(buffer->internal);
	buffer->internal = NULL;
	self->world->exports -= 1;
	thr_py_world_release_kept(self->world);
}

static PyBufferProcs view_as_buffer = {
	.bf_getbuffer = (getbufferproc)view_getbuffer,
	.bf_releasebuffer = (releasebufferproc)view_releasebuffer,
};

PyTypeObject thr_py_view_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "throng._throng._View",
	.tp_basicsize = sizeof(view_object),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One array of a world through the buffer protocol, read-only (numpy.asarray wraps it without a "
	          "copy). Made by throng.World's properties positions, velocities, headings, ids, groups, "
	          "archetypes, radii, healths and combat_states.",
	.tp_new = view_new,
	.tp_dealloc = (destructor)view_dealloc,
	.tp_as_buffer = &view_as_buffer,
};
