// SPDX-License-Identifier: MIT
// throng._throng: outputs: the binary stream, CSV, SQLite, checkpoints, metrics (module.h).
#include "module.h"

PyMethodDef thr_py_outputs_functions[] = {
	{NULL, NULL, 0, NULL},
};
