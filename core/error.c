// SPDX-License-Identifier: MIT
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char thr_last_error[512];

throng_status thr_fail(throng_status status, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(thr_last_error, sizeof thr_last_error, fmt, ap);
	va_end(ap);
	return status;
}

const char* throng_last_error(void)
{
	return thr_last_error;
}

const char* throng_status_name(throng_status status)
{
	switch (status) {
	case THRONG_OK: return "ok";
	case THRONG_ERR_INVALID_ARGUMENT: return "invalid argument";
	case THRONG_ERR_CAPACITY: return "capacity exhausted";
	case THRONG_ERR_OUT_OF_MEMORY: return "out of memory";
	case THRONG_ERR_NOT_FOUND: return "not found";
	case THRONG_ERR_UNSUPPORTED: return "unsupported";
	case THRONG_ERR_IO: return "input/output error";
	case THRONG_ERR_CORRUPT: return "corrupt data";
	}
	return "unknown status";
}
