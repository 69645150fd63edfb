// SPDX-License-Identifier: MIT
// The scenario fuzzer links the library's core/ sources without simd/: the
// SIMD engine needs SIMDe's lowering and OpenMP's headers under clang, and
// the fuzzer steps every world with the scalar reference anyway (the two
// engines' agreement is tested in tests/). This stands in for the one
// symbol of simd/ that core/ names: the SIMD engine, as the scalar pass.
#include "engine.h"

const thr_engine thr_simd_engine = {false, false, NULL, thr_scalar_pass, NULL, thr_contact_block}; // the scalar pass, unsorted
