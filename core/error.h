// SPDX-License-Identifier: MIT
// The library's thread-local last-error message (private).
#ifndef THRONG_CORE_ERROR_H
#define THRONG_CORE_ERROR_H

#include "throng/throng.h"

/// Formats a message into this thread's last-error buffer and returns
/// `status`, so failing paths read `return thr_fail(THRONG_ERR_..., "...")`.
throng_status thr_fail(throng_status status, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#endif
