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
