// SPDX-License-Identifier: MIT
// throng._throng: events, zones, sources and sinks, units, bodies (module.h).
#include "module.h"

PyMethodDef thr_py_events_functions[] = {
	{NULL, NULL, 0, NULL},
};
