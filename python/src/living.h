// SPDX-License-Identifier: MIT
// The helpers living.c and queries.c share (private to python/src/): the
// library's message with a prefix, and a buffer argument checked for its
// item kind and size.
#ifndef THRONG_PYTHON_LIVING_H
#define THRONG_PYTHON_LIVING_H

#include <string.h>

#include "module.h"

/// The library's message of the last failure, prefixed by `prefix`, as
/// the exception of `status`. Returns NULL.
static inline PyObject* raise_prefixed(throng_status status, const char* prefix)
{
	const char* message = throng_last_error();
	if (message == NULL || message[0] == '\0') {
		message = throng_status_name(status) != NULL ? throng_status_name(status) : "error";
	}
	return thr_py_raise(status, "%s%s", prefix, message);
}

/// `obj` as a C-contiguous buffer of `count` * `per` 4-byte items ('f'
/// float32 or 'I' uint32); count < 0 takes any whole number of `per`-item
/// rows. 0, or -1 with TypeError.
static inline int take(PyObject* obj, const char* fn, const char* name, Py_ssize_t count, Py_ssize_t per,
                       char kind, bool writable, Py_buffer* view)
{
	int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
	if (PyObject_GetBuffer(obj, view, flags) != 0) {
		return -1;
	}
	const char* format = view->format != NULL ? view->format : "B";
	if (*format == '<' || *format == '=' || *format == '@') {
		++format;
	}
	bool kind_ok = kind == 'f' ? strcmp(format, "f") == 0 : (strcmp(format, "I") == 0 || strcmp(format, "L") == 0);
	bool size_ok = count >= 0 ? view->len == count * per * 4 : view->len % (per * 4) == 0;
	if (!kind_ok || view->itemsize != 4 || !size_ok) {
		PyErr_Format(PyExc_TypeError, "%s: %s: expected %zd %s values, got %zd bytes of format '%s'", fn, name,
		             count * per, kind == 'f' ? "float32" : "uint32", view->len, format);
		PyBuffer_Release(view);
		return -1;
	}
	return 0;
}

#endif
