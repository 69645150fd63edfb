// SPDX-License-Identifier: MIT
// throng._throng: the living world: remove, setters, spatial queries, controllers (module.h).
#include "module.h"

PyMethodDef thr_py_living_functions[] = {
	{NULL, NULL, 0, NULL},
};
