// SPDX-License-Identifier: MIT
// The outputs of throng._throng (private to python/src/): outputs.c holds
// the handles, the exporters, the stream reader and the live feed, and the
// table of every output function; outputs_state.c the checkpoints, the
// metrics and the measurement sets.
//
// The library's objects travel to Python as capsules of a `handle`; its
// pointer is NULL once the object was finished or closed.
#ifndef THRONG_PYTHON_OUTPUTS_H
#define THRONG_PYTHON_OUTPUTS_H

#include "module.h"

// The names of the capsules of each kind of object (one a kind).
#define THR_PY_OUT_EXPORTER "throng.exporter"
#define THR_PY_OUT_READER "throng.stream_reader"
#define THR_PY_OUT_FEED "throng.feed"
#define THR_PY_OUT_FEED_READER "throng.feed_reader"
#define THR_PY_OUT_METRICS "throng.metrics"
#define THR_PY_OUT_MEASURE "throng.measure"

typedef struct handle {
	void* ptr;
	void (*destroy)(void* ptr);
	PyObject* keep; ///< strong, or NULL: what the object reads (a stream in memory), released after it
} handle;

/// A new capsule named `name` owning `ptr` (destroyed with `destroy`,
/// also when this fails).
PyObject* thr_py_out_wrap(void* ptr, void (*destroy)(void*), const char* name);

/// The handle in `capsule`; with `open` its object must still be there
/// (ValueError "FN: it is closed" otherwise). NULL with an exception set.
handle* thr_py_out_handle(PyObject* capsule, const char* name, const char* fn, bool open);

/// `obj`, a whole number (an int or an object with __index__, not a bool)
/// from `least` to `most`, into *out: 0, or -1 with TypeError or
/// InvalidArgument, each naming "WHERE: NAME". Instead of the "k" format,
/// which keeps the low bits of any int.
int thr_py_out_count(PyObject* obj, const char* where, const char* name, unsigned long long least,
                     unsigned long long most, unsigned long long* out);

/// `obj` as a world that can be used now (TypeError, or as thr_py_world_check).
world_object* thr_py_out_world(PyObject* obj, const char* fn);

// outputs_state.c: the functions of the table (one argument or a tuple).
PyObject* thr_py_out_save_checkpoint(PyObject* module, PyObject* args);
PyObject* thr_py_out_checkpoint_bytes(PyObject* module, PyObject* args);
PyObject* thr_py_out_checkpoint_size(PyObject* module, PyObject* args);
PyObject* thr_py_out_load_checkpoint(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_save_checkpoint(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_checkpoint_bytes(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_load_checkpoint(PyObject* module, PyObject* args);
PyObject* thr_py_out_metrics_create(PyObject* module, PyObject* args);
PyObject* thr_py_out_metrics_observe(PyObject* module, PyObject* args);
PyObject* thr_py_out_metrics_result(PyObject* module, PyObject* args);
PyObject* thr_py_out_overlap_stats(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_create(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_add(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_feed_world(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_counts(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_records(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_layouts(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_window(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_area_size(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_outcomes(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_goal_radius(PyObject* module, PyObject* args);
PyObject* thr_py_out_scene_measure(PyObject* module, PyObject* args);
PyObject* thr_py_out_measure_feed(PyObject* module, PyObject* args);

#endif
