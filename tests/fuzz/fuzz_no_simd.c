// SPDX-License-Identifier: MIT
// The scenario fuzzer links the library's core/ sources without simd/: the
// SIMD engine needs SIMDe's lowering and OpenMP's headers under clang, and
// the fuzzer steps every world with the scalar reference anyway (the two
// engines' agreement is tested in tests/). These stand in for the engine's
// two entry points that core/world.c names.
#include "world_internal.h"

throng_status thr_simd_step(throng_world* w)
{
	return thr_scalar_step(w);
}

void thr_simd_free(throng_world* w)
{
	(void)w;
}
