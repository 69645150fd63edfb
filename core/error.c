// SPDX-License-Identifier: MIT
#include "error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char* thr_fmt_float(char* buf, float v)
{
	if (isnan(v)) {
		snprintf(buf, THR_FMT_FLOAT_CAP, "nan"); // never "-nan"
		return buf;
	}
	if (isinf(v)) {
		snprintf(buf, THR_FMT_FLOAT_CAP, v < 0.0f ? "-inf" : "inf");
		return buf;
	}
	// The fewest significant digits that read back to v (9 always do).
	int digits = 1;
	for (; digits < 9; ++digits) {
		snprintf(buf, THR_FMT_FLOAT_CAP, "%.*e", digits - 1, (double)v);
		float back = strtof(buf, NULL);
		if (back == v && signbit(back) == signbit(v)) {
			break;
		}
	}
	snprintf(buf, THR_FMT_FLOAT_CAP, "%.*e", digits - 1, (double)v);
	int exp = atoi(strchr(buf, 'e') + 1);
	// Then as %g would print them (at least 6 digits before it switches to
	// an exponent), without the exponent's sign padding and leading zeros.
	if (exp < -4 || exp >= (digits > 6 ? digits : 6)) {
		char* e = strchr(buf, 'e');
		snprintf(e, THR_FMT_FLOAT_CAP - (size_t)(e - buf), "e%d", exp);
	} else {
		int decimals = digits - 1 - exp;
		snprintf(buf, THR_FMT_FLOAT_CAP, "%.*f", decimals > 0 ? decimals : 0, (double)v);
	}
	return buf;
}
