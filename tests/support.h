// SPDX-License-Identifier: MIT
// Helpers shared by the test files.
#ifndef THRONG_TESTS_SUPPORT_H
#define THRONG_TESTS_SUPPORT_H

#include <stdint.h>

#include "throng/throng.h"

/// Runs `cmdline` through /bin/sh, captures stdout and stderr (each cut at
/// cap-1 bytes, NUL-terminated) and returns the exit status (or -1).
int thr_test_run(const char* cmdline, char* out, uint32_t out_cap, char* err, uint32_t err_cap);

/// Deterministic uniform float in [lo, hi) from a test-local counter.
float thr_test_uniform(uint64_t* state, float lo, float hi);

#endif
