// SPDX-License-Identifier: MIT
// throng._throng: outputs (module.h, outputs.h): exporters (the binary
// stream, CSV, the pedestrian text, SQLite), the binary stream's reader and
// the live feed, and the table of every output function (checkpoints,
// metrics and measurement are in outputs_state.c).
//
// The library's objects (an exporter, a reader, a feed, a metrics object,
// a measurement set) travel to Python as capsules of a small `handle`: the
// Python classes of python/throng/_io.py hold one each and call the
// functions below with it. A handle's pointer is NULL once the object was
// finished or closed, so a second close is harmless and any other use is a
// ValueError; the capsule's destructor frees what is left (an exporter not
// finished is discarded: its path stays as it was).
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "throng/export.h"
#include "outputs.h"

static const char* const exporter_name = THR_PY_OUT_EXPORTER;
static const char* const reader_name = THR_PY_OUT_READER;

static void destroy_exporter(void* p) { throng_exporter_destroy(p); }
static void destroy_reader(void* p) { throng_stream_reader_destroy(p); }

static void capsule_free(PyObject* capsule)
{
	handle* h = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
	if (h != NULL) {
		if (h->ptr != NULL) {
			h->destroy(h->ptr);
		}
		Py_XDECREF(h->keep);
		free(h);
	} else {
		PyErr_Clear();
	}
}

/// A new capsule owning `ptr` (destroyed with `destroy` when it fails).
PyObject* thr_py_out_wrap(void* ptr, void (*destroy)(void*), const char* name)
{
	handle* h = malloc(sizeof *h);
	if (h == NULL) {
		destroy(ptr);
		return PyErr_NoMemory();
	}
	h->ptr = ptr;
	h->destroy = destroy;
	h->keep = NULL;
	PyObject* capsule = PyCapsule_New(h, name, capsule_free);
	if (capsule == NULL) {
		destroy(ptr);
		free(h);
	}
	return capsule;
}

/// The handle in `capsule`; with `open` its object must still be there
/// (ValueError "FN: ... is closed" otherwise).
handle* thr_py_out_handle(PyObject* capsule, const char* name, const char* fn, bool open)
{
	handle* h = PyCapsule_GetPointer(capsule, name);
	if (h == NULL) {
		return NULL;
	}
	if (open && h->ptr == NULL) {
		PyErr_Format(PyExc_ValueError, "%s: it is closed", fn);
		return NULL;
	}
	return h;
}

int thr_py_out_count(PyObject* obj, const char* where, const char* name, unsigned long long least,
                     unsigned long long most, unsigned long long* out)
{
	if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected a whole number, got %.100s", where, name,
		             Py_TYPE(obj)->tp_name);
		return -1;
	}
	PyObject* index = PyNumber_Index(obj);
	if (index == NULL) {
		return -1;
	}
	unsigned long long v = PyLong_AsUnsignedLongLong(index); // OverflowError below 0 or past 2**64 - 1
	bool overflow = v == (unsigned long long)-1 && PyErr_Occurred() != NULL;
	if (overflow && !PyErr_ExceptionMatches(PyExc_OverflowError)) {
		Py_DECREF(index);
		return -1;
	}
	PyErr_Clear();
	if (overflow || v < least || v > most) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: %s: got %S, expected %llu to %llu", where, name, index, least,
		             most);
		Py_DECREF(index);
		return -1;
	}
	Py_DECREF(index);
	*out = v;
	return 0;
}

world_object* thr_py_out_world(PyObject* obj, const char* fn)
{
	if (!PyObject_TypeCheck(obj, &thr_py_world_type)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a throng.World, got %.100s", fn, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	world_object* w = (world_object*)obj;
	return thr_py_world_check(w, fn) == 0 ? w : NULL;
}

// ---------------------------------------------------------------------------
// Exporters

/// The valid names of formats, for messages.
static const char format_names[] = "auto, bin, csv, ped, sqlite";

/// _exporter_create(world, path, format, fields, every, scenario): format
/// a name (throng_format_from_name), fields a comma-separated list
/// (throng_fields_parse) or None, every >= 1, scenario a name or None.
static PyObject* exporter_create(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *world_obj, *every_obj, *path = NULL;
	const char *format_str, *fields_str, *scenario;
	if (!PyArg_ParseTuple(args, "OO&szOz:_exporter_create", &world_obj, PyUnicode_FSConverter, &path, &format_str,
	                      &fields_str, &every_obj, &scenario)) {
		return NULL;
	}
	PyObject* result = NULL;
	unsigned long long every = 0;
	world_object* w = thr_py_out_count(every_obj, "Writer", "every", 1, UINT32_MAX, &every) == 0
	                      ? thr_py_out_world(world_obj, "export")
	                      : NULL;
	throng_export_def def = throng_export_default_def();
	uint32_t fields = 0;
	if (w == NULL) {
		// the exception is set
	} else if (!throng_format_from_name(format_str, &def.format)) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "Writer: format: unknown format '%s' (expected one of: %s)",
		             format_str, format_names);
	} else if (fields_str != NULL && throng_fields_parse(fields_str, &fields) != THRONG_OK) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT,
		             "Writer: fields: %s; every name: x, y, vx, vy, hx, hy, group, archetype, health, "
		             "combat_state, position, velocity, heading, all",
		             throng_last_error());
	} else {
		def.fields = fields;
		def.every = (uint32_t)every;
		def.scenario = scenario;
		def.world = w->world;
		throng_exporter* ex = NULL;
		throng_status st = throng_exporter_create(PyBytes_AS_STRING(path), &def, &ex);
		result = st == THRONG_OK ? thr_py_out_wrap(ex, destroy_exporter, exporter_name) : thr_py_raise_status(st);
	}
	Py_DECREF(path);
	return result;
}

/// _exporter_write(handle, world): writes a frame when due; returns the
/// frames written so far.
static PyObject* exporter_write(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *capsule, *world_obj;
	if (!PyArg_ParseTuple(args, "OO:_exporter_write", &capsule, &world_obj)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, exporter_name, "Writer.write", true);
	world_object* w = h != NULL ? thr_py_out_world(world_obj, "Writer.write") : NULL;
	if (w == NULL) {
		return NULL;
	}
	throng_status st = throng_exporter_write(h->ptr, w->world);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyLong_FromUnsignedLongLong(throng_exporter_frames(h->ptr));
}

/// _exporter_info(handle): (frames, notice or None); (frames, None) once closed.
static PyObject* exporter_info(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, exporter_name, "Writer", false);
	if (h == NULL) {
		return NULL;
	}
	if (h->ptr == NULL) {
		return Py_BuildValue("(OO)", Py_None, Py_None);
	}
	const char* notice = throng_exporter_notice(h->ptr);
	return Py_BuildValue("(Kz)", (unsigned long long)throng_exporter_frames(h->ptr), notice);
}

/// _exporter_close(handle, interrupted, keep): with keep, finishes the file
/// (marked interrupted when asked) and publishes it; without, discards it.
/// Nothing when already closed.
static PyObject* exporter_close(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* capsule;
	int interrupted, keep;
	if (!PyArg_ParseTuple(args, "Opp:_exporter_close", &capsule, &interrupted, &keep)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, exporter_name, "Writer.close", false);
	if (h == NULL) {
		return NULL;
	}
	if (h->ptr == NULL) {
		Py_RETURN_NONE;
	}
	throng_exporter* ex = h->ptr;
	h->ptr = NULL;
	throng_status st = THRONG_OK;
	if (keep) {
		if (interrupted) {
			throng_exporter_set_interrupted(ex);
		}
		st = throng_exporter_finish(ex);
	}
	throng_exporter_destroy(ex);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _format_of(path): the format name a path's extension names.
static PyObject* format_of(PyObject* module, PyObject* arg)
{
	(void)module;
	PyObject* path = NULL;
	if (!PyUnicode_FSConverter(arg, &path)) {
		return NULL;
	}
	const char* name = throng_format_name(throng_format_from_path(PyBytes_AS_STRING(path)));
	Py_DECREF(path);
	return PyUnicode_FromString(name);
}

// ---------------------------------------------------------------------------
// The binary stream's reader

static PyObject* field_names_of(uint32_t mask)
{
	PyObject* names = PyTuple_New(0);
	for (uint32_t b = 0; names != NULL && b < THRONG_FIELD_BITS; ++b) {
		if ((mask & (1u << b)) == 0) {
			continue;
		}
		PyObject* name = PyUnicode_FromString(throng_field_name(1u << b));
		Py_ssize_t n = PyTuple_GET_SIZE(names);
		if (name == NULL || _PyTuple_Resize(&names, n + 1) != 0) {
			Py_XDECREF(name);
			Py_XDECREF(names);
			return NULL;
		}
		PyTuple_SET_ITEM(names, n, name);
	}
	return names;
}

/// _stream_open(path, verify): a reader of the binary stream at path.
static PyObject* stream_open(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* path = NULL;
	int verify;
	if (!PyArg_ParseTuple(args, "O&p:_stream_open", PyUnicode_FSConverter, &path, &verify)) {
		return NULL;
	}
	throng_stream_reader* r = NULL;
	throng_status st = throng_stream_open(PyBytes_AS_STRING(path), &r);
	Py_DECREF(path);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	throng_stream_verify(r, verify != 0);
	return thr_py_out_wrap(r, destroy_reader, reader_name);
}

/// _stream_open_bytes(data, verify): a reader of the binary stream held
/// by the bytes object `data` (immutable: the reader keeps a reference
/// and reads it in place).
static PyObject* stream_open_bytes(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject* data;
	int verify;
	if (!PyArg_ParseTuple(args, "O!p:_stream_open_bytes", &PyBytes_Type, &data, &verify)) {
		return NULL;
	}
	throng_stream_reader* r = NULL;
	throng_status st = throng_stream_open_memory(PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data), &r);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	throng_stream_verify(r, verify != 0);
	PyObject* capsule = thr_py_out_wrap(r, destroy_reader, reader_name);
	if (capsule != NULL) {
		handle* h = PyCapsule_GetPointer(capsule, reader_name);
		Py_INCREF(data);
		h->keep = data;
	}
	return capsule;
}

/// A stream's or a feed's header as a dict.
static PyObject* info_to_dict(const throng_stream_info* i)
{
	PyObject* fields = field_names_of(i->fields);
	if (fields == NULL) {
		return NULL;
	}
	const char* mode = throng_bounds_mode_name(i->bounds_mode);
	return Py_BuildValue("{s:(II),s:I,s:N,s:I,s:d,s:s,s:(ff),s:(ff),s:K,s:s,s:K,s:K}", "version", i->version_major,
	                     i->version_minor, "agents", i->agents, "fields", fields, "every", i->every, "dt", i->dt,
	                     "bounds_mode", mode != NULL ? mode : "", "bounds_min", (double)i->bounds_min.x,
	                     (double)i->bounds_min.y, "bounds_max", (double)i->bounds_max.x, (double)i->bounds_max.y,
	                     "seed", (unsigned long long)i->seed, "scenario", i->scenario, "header_bytes",
	                     (unsigned long long)i->header_bytes, "frame_bytes", (unsigned long long)i->frame_bytes);
}

/// _stream_info(handle): the header as a dict.
static PyObject* stream_info(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, reader_name, "StreamReader.info", true);
	return h != NULL ? info_to_dict(throng_stream_get_info(h->ptr)) : NULL;
}

/// `count` 4-byte values at p copied into a new bytearray, or None for NULL.
static PyObject* copy_array(const void* p, uint32_t count)
{
	if (p == NULL) {
		Py_RETURN_NONE;
	}
	return PyByteArray_FromStringAndSize(p, (Py_ssize_t)count * 4);
}

/// (index, step, time, {"id": bytearray, field name: bytearray, ...}) of
/// a frame, the arrays copied.
static PyObject* frame_to_tuple(const throng_frame* f)
{
	const void* arrays[1 + THRONG_FIELD_BITS] = {f->id, f->x, f->y, f->vx, f->vy, f->hx, f->hy, f->group,
	                                             f->archetype, f->health, f->combat_state};
	PyObject* dict = PyDict_New();
	for (int k = 0; dict != NULL && k < 1 + THRONG_FIELD_BITS; ++k) {
		if (arrays[k] == NULL) {
			continue;
		}
		PyObject* a = copy_array(arrays[k], f->count);
		if (a == NULL || PyDict_SetItemString(dict, k == 0 ? "id" : throng_field_name(1u << (k - 1)), a) != 0) {
			Py_XDECREF(a);
			Py_CLEAR(dict);
			break;
		}
		Py_DECREF(a);
	}
	if (dict == NULL) {
		return NULL;
	}
	return Py_BuildValue("(KKdN)", (unsigned long long)f->index, (unsigned long long)f->step, f->time, dict);
}

/// _stream_read(handle): None at the end of the stream, else the frame
/// (frame_to_tuple).
static PyObject* stream_read(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, reader_name, "StreamReader.read", true);
	if (h == NULL) {
		return NULL;
	}
	throng_frame f;
	bool got = false;
	throng_status st = throng_stream_read_frame(h->ptr, &f, &got);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	if (!got) {
		Py_RETURN_NONE;
	}
	return frame_to_tuple(&f);
}

/// _stream_state(handle): (complete, interrupted, offset).
static PyObject* stream_state(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, reader_name, "StreamReader", true);
	if (h == NULL) {
		return NULL;
	}
	return Py_BuildValue("(NNK)", PyBool_FromLong(throng_stream_complete(h->ptr)),
	                     PyBool_FromLong(throng_stream_interrupted(h->ptr)),
	                     (unsigned long long)throng_stream_offset(h->ptr));
}

/// The name of `capsule` when it is one of this module's handles, else
/// NULL (another module's capsule holds something else than a handle).
static const char* handle_name(PyObject* capsule)
{
	static const char* const names[] = {THR_PY_OUT_EXPORTER, THR_PY_OUT_READER,  THR_PY_OUT_FEED,
	                                    THR_PY_OUT_FEED_READER, THR_PY_OUT_METRICS, THR_PY_OUT_MEASURE};
	const char* name = PyCapsule_CheckExact(capsule) ? PyCapsule_GetName(capsule) : NULL;
	for (size_t k = 0; name != NULL && k < sizeof names / sizeof names[0]; ++k) {
		if (strcmp(name, names[k]) == 0) {
			return names[k];
		}
	}
	return NULL;
}

/// _close(handle): frees the object of any handle now; nothing when closed.
static PyObject* handle_close(PyObject* module, PyObject* capsule)
{
	(void)module;
	const char* name = handle_name(capsule);
	if (name == NULL) {
		PyErr_Format(PyExc_TypeError, "_close: expected a handle of throng._throng, got %.100s",
		             Py_TYPE(capsule)->tp_name);
		return NULL;
	}
	handle* h = PyCapsule_GetPointer(capsule, name);
	if (h == NULL) {
		return NULL;
	}
	if (h->ptr != NULL) {
		void* p = h->ptr;
		h->ptr = NULL;
		h->destroy(p);
	}
	Py_CLEAR(h->keep);
	Py_RETURN_NONE;
}

// ---------------------------------------------------------------------------
// The live feed (POSIX shared memory)

static const char* const feed_name = THR_PY_OUT_FEED;
static const char* const feed_reader_name = THR_PY_OUT_FEED_READER;

static void destroy_feed(void* p) { throng_feed_destroy(p); }
static void destroy_feed_reader(void* p) { throng_feed_reader_destroy(p); }

/// A feed's name as C text; NULL with TypeError (not a str) or
/// InvalidArgument (a NUL, which would end the name early), naming `where`.
static const char* feed_name_arg(PyObject* obj, const char* where)
{
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: name: expected a str, got %.100s", where, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	Py_ssize_t len = 0;
	const char* text = PyUnicode_AsUTF8AndSize(obj, &len);
	if (text != NULL && strlen(text) != (size_t)len) {
		thr_py_raise(THRONG_ERR_INVALID_ARGUMENT, "%s: name: %R holds a NUL", where, obj);
		return NULL;
	}
	return text;
}

/// _feed_create(world, name, fields, every, capacity, scenario, replace).
static PyObject* feed_create(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *world_obj, *name_obj, *every_obj, *capacity_obj;
	const char *fields_str, *scenario;
	unsigned long long every = 0, capacity = 0;
	int replace;
	if (!PyArg_ParseTuple(args, "OOzOOzp:_feed_create", &world_obj, &name_obj, &fields_str, &every_obj,
	                      &capacity_obj, &scenario, &replace)) {
		return NULL;
	}
	const char* name = feed_name_arg(name_obj, "Feed");
	if (name == NULL || thr_py_out_count(every_obj, "Feed", "every", 1, UINT32_MAX, &every) != 0 ||
	    thr_py_out_count(capacity_obj, "Feed", "capacity", 0, UINT32_MAX, &capacity) != 0) {
		return NULL;
	}
	world_object* w = thr_py_out_world(world_obj, "feed");
	if (w == NULL) {
		return NULL;
	}
	throng_export_def def = throng_export_default_def();
	if (fields_str != NULL && throng_fields_parse(fields_str, &def.fields) != THRONG_OK) {
		return thr_py_raise(THRONG_ERR_INVALID_ARGUMENT,
		                    "Feed: fields: %s; every name: x, y, vx, vy, hx, hy, group, archetype, health, "
		                    "combat_state, position, velocity, heading, all",
		                    throng_last_error());
	}
	def.every = (uint32_t)every;
	def.capacity = (uint32_t)capacity;
	def.scenario = scenario;
	def.world = w->world;
	throng_feed* feed = NULL;
	throng_status st = (replace ? throng_feed_replace : throng_feed_create)(name, &def, &feed);
	return st == THRONG_OK ? thr_py_out_wrap(feed, destroy_feed, feed_name) : thr_py_raise_status(st);
}

/// _feed_publish(handle, world): publishes a frame when due; the frames so far.
static PyObject* feed_publish(PyObject* module, PyObject* args)
{
	(void)module;
	PyObject *capsule, *world_obj;
	if (!PyArg_ParseTuple(args, "OO:_feed_publish", &capsule, &world_obj)) {
		return NULL;
	}
	handle* h = thr_py_out_handle(capsule, feed_name, "Feed.publish", true);
	world_object* w = h != NULL ? thr_py_out_world(world_obj, "Feed.publish") : NULL;
	if (w == NULL) {
		return NULL;
	}
	throng_status st = throng_feed_publish(h->ptr, w->world);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	return PyLong_FromUnsignedLongLong(throng_feed_frames(h->ptr));
}

/// _feed_heartbeat(handle).
static PyObject* feed_heartbeat(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, feed_name, "Feed.heartbeat", true);
	if (h == NULL) {
		return NULL;
	}
	throng_status st = throng_feed_heartbeat(h->ptr);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _feed_close(handle): finishes the feed (its name is removed); nothing
/// when already closed.
static PyObject* feed_close(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, feed_name, "Feed.close", false);
	if (h == NULL) {
		return NULL;
	}
	if (h->ptr == NULL) {
		Py_RETURN_NONE;
	}
	throng_feed* feed = h->ptr;
	h->ptr = NULL;
	throng_status st = throng_feed_finish(feed);
	throng_feed_destroy(feed);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	Py_RETURN_NONE;
}

/// _feed_open(name): a reader of the feed.
static PyObject* feed_open(PyObject* module, PyObject* arg)
{
	(void)module;
	const char* name = feed_name_arg(arg, "FeedReader");
	if (name == NULL) {
		return NULL;
	}
	throng_feed_reader* r = NULL;
	throng_status st = throng_feed_open(name, &r);
	return st == THRONG_OK ? thr_py_out_wrap(r, destroy_feed_reader, feed_reader_name) : thr_py_raise_status(st);
}

/// _feed_info(handle): the feed's header as a dict.
static PyObject* feed_info(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, feed_reader_name, "FeedReader.info", true);
	return h != NULL ? info_to_dict(throng_feed_get_info(h->ptr)) : NULL;
}

/// _feed_read(handle): the newest frame not yet returned, or None.
static PyObject* feed_read(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, feed_reader_name, "FeedReader.read", true);
	if (h == NULL) {
		return NULL;
	}
	throng_frame f;
	bool got = false;
	throng_status st = throng_feed_read(h->ptr, &f, &got);
	if (st != THRONG_OK) {
		return thr_py_raise_status(st);
	}
	if (!got) {
		Py_RETURN_NONE;
	}
	return frame_to_tuple(&f);
}

/// _feed_state(handle): (finished, writer state name, writer pid).
static PyObject* feed_state(PyObject* module, PyObject* capsule)
{
	(void)module;
	handle* h = thr_py_out_handle(capsule, feed_reader_name, "FeedReader", true);
	if (h == NULL) {
		return NULL;
	}
	const char* state = throng_writer_state_name(throng_feed_writer_state(h->ptr));
	return Py_BuildValue("(NsI)", PyBool_FromLong(throng_feed_finished(h->ptr)), state != NULL ? state : "gone",
	                     throng_feed_writer_pid(h->ptr));
}

PyMethodDef thr_py_outputs_functions[] = {
	{"_feed_create", feed_create, METH_VARARGS, "A live feed of a world (throng.Feed)."},
	{"_feed_publish", feed_publish, METH_VARARGS, "Publishes a frame when due; the frames so far."},
	{"_feed_heartbeat", feed_heartbeat, METH_O, "throng_feed_heartbeat."},
	{"_feed_close", feed_close, METH_O, "Finishes a feed."},
	{"_feed_open", feed_open, METH_O, "A feed reader (throng.FeedReader)."},
	{"_feed_info", feed_info, METH_O, "The feed's header as a dict."},
	{"_feed_read", feed_read, METH_O, "The newest frame not yet returned, or None."},
	{"_feed_state", feed_state, METH_O, "(finished, writer state, writer pid)."},
	{"_exporter_create", exporter_create, METH_VARARGS, "An exporter of a world (throng.Writer)."},
	{"_exporter_write", exporter_write, METH_VARARGS, "Writes a frame when due; the frames so far."},
	{"_exporter_info", exporter_info, METH_O, "(frames, notice)."},
	{"_exporter_close", exporter_close, METH_VARARGS, "Finishes (or discards) an exporter's file."},
	{"_format_of", format_of, METH_O, "The format a path's extension names."},
	{"_stream_open", stream_open, METH_VARARGS, "A binary stream reader (throng.StreamReader)."},
	{"_stream_open_bytes", stream_open_bytes, METH_VARARGS, "A binary stream reader over bytes."},
	{"_stream_info", stream_info, METH_O, "The stream's header as a dict."},
	{"_stream_read", stream_read, METH_O, "The next frame, or None at the end."},
	{"_stream_state", stream_state, METH_O, "(complete, interrupted, offset)."},
	{"_close", handle_close, METH_O, "Frees a handle's object now."},
	{"_save_checkpoint", thr_py_out_save_checkpoint, METH_VARARGS, "throng_world_save_checkpoint."},
	{"_checkpoint_bytes", thr_py_out_checkpoint_bytes, METH_O, "throng_world_write_checkpoint, as bytes."},
	{"_checkpoint_size", thr_py_out_checkpoint_size, METH_O, "throng_world_checkpoint_size."},
	{"_load_checkpoint", thr_py_out_load_checkpoint, METH_VARARGS, "A World from a checkpoint file or bytes."},
	{"_scene_save_checkpoint", thr_py_out_scene_save_checkpoint, METH_VARARGS, "throng_scene_save_checkpoint."},
	{"_scene_checkpoint_bytes", thr_py_out_scene_checkpoint_bytes, METH_O, "throng_scene_write_checkpoint, as bytes."},
	{"_scene_load_checkpoint", thr_py_out_scene_load_checkpoint, METH_VARARGS, "A Scene from a checkpoint file or bytes."},
	{"_metrics_create", thr_py_out_metrics_create, METH_VARARGS, "A metrics object (throng.Metrics)."},
	{"_metrics_observe", thr_py_out_metrics_observe, METH_VARARGS, "throng_metrics_observe."},
	{"_metrics_result", thr_py_out_metrics_result, METH_O, "throng_metrics_result as a dict."},
	{"_overlap_stats", thr_py_out_overlap_stats, METH_O, "throng_world_overlap_stats: (pairs, deepest)."},
	{"_measure_create", thr_py_out_measure_create, METH_VARARGS, "A measurement set (throng.Measure)."},
	{"_measure_add", thr_py_out_measure_add, METH_VARARGS, "Adds a line, a rectangle or a polygon."},
	{"_measure_feed_world", thr_py_out_measure_feed_world, METH_VARARGS, "throng_measure_feed_world."},
	{"_measure_feed", thr_py_out_measure_feed, METH_VARARGS, "throng_measure_feed from buffers."},
	{"_measure_counts", thr_py_out_measure_counts, METH_O, "(lines, areas, states)."},
	{"_measure_records", thr_py_out_measure_records, METH_VARARGS, "A line's crossings or an area's samples, as bytes."},
	{"_measure_layouts", thr_py_out_measure_layouts, METH_NOARGS, "The C layouts of crossings and samples."},
	{"_measure_window", thr_py_out_measure_window, METH_VARARGS, "A line's flow or an area's means over a window."},
	{"_measure_area_size", thr_py_out_measure_area_size, METH_VARARGS, "throng_measure_area_size."},
	{"_scene_outcomes", thr_py_out_scene_outcomes, METH_O, "throng_scene_outcomes as a dict."},
	{"_scene_goal_radius", thr_py_out_scene_goal_radius, METH_O, "throng_scene_goal_radius."},
	{"_scene_measure", thr_py_out_scene_measure, METH_O, "throng_scene_measure_create: a handle or None."},
	{NULL, NULL, 0, NULL},
};
