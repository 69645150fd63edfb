// SPDX-License-Identifier: MIT
// The library's thread-local last-error message (private), and how its
// messages print numbers.
#ifndef THRONG_CORE_ERROR_H
#define THRONG_CORE_ERROR_H

#include <stddef.h>

#include "throng/throng.h"

/// Formats a message into this thread's last-error buffer and returns
/// `status`, so failing paths read `return thr_fail(THRONG_ERR_..., "...")`.
throng_status thr_fail(throng_status status, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/// Room for any number thr_fmt_float writes.
#define THR_FMT_FLOAT_CAP 24

/// `v` as a message prints it, the way one would write it in a scenario
/// file: the fewest significant digits (at most 9) that read back
/// (strtof) to the same float, laid out as %g lays out at least 6 digits,
/// with an exponent without sign padding or leading zeros (0.3, 100000,
/// 0.0001, 1e-6, 1e6, 1e-45, 4.2949673e9; nan, inf, -inf). Writes into buf
/// (at least THR_FMT_FLOAT_CAP bytes) and returns it, so one call can be a
/// printf argument.
const char* thr_fmt_float(char* buf, float v);

#endif
