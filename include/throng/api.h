// SPDX-License-Identifier: MIT
// What every public header opens and closes its declarations with: C
// linkage for C++ callers, and default symbol visibility. The library is
// compiled with -fvisibility=hidden, so the shared library exports the
// declarations between THRONG_API_BEGIN and THRONG_API_END and nothing
// else (its private thr_ functions stay inside it).
#ifndef THRONG_API_H
#define THRONG_API_H

#if defined(__GNUC__) || defined(__clang__)
#define THRONG_VISIBILITY_PUSH_ _Pragma("GCC visibility push(default)")
#define THRONG_VISIBILITY_POP_ _Pragma("GCC visibility pop")
#else
#define THRONG_VISIBILITY_PUSH_
#define THRONG_VISIBILITY_POP_
#endif

#ifdef __cplusplus
#define THRONG_API_BEGIN extern "C" { THRONG_VISIBILITY_PUSH_
#define THRONG_API_END THRONG_VISIBILITY_POP_ }
#else
#define THRONG_API_BEGIN THRONG_VISIBILITY_PUSH_
#define THRONG_API_END THRONG_VISIBILITY_POP_
#endif

#endif
