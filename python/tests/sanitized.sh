#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command (the pytest suite) with an extension module built under
# AddressSanitizer and UBSan (the asan preset) loaded into an interpreter
# that is not: usage  sanitized.sh CC COMMAND...  (python/CMakeLists.txt).
#
# - The sanitizers' runtime must be the first library of the process, so
#   it is preloaded (the one the compiler CC links: `CC -print-file-name`).
# - Leak detection is off, and only it: LeakSanitizer would report
#   CPython's own allocations that live until exit (interned strings, type
#   caches), which are not ours. The module's reference counts are checked
#   by the suite itself (tracemalloc and RSS over many calls). Every other
#   option `make test` sets in ASAN_OPTIONS / UBSAN_OPTIONS is kept: a
#   later option overrides an earlier one of the same name.
# - PYTHONMALLOC=malloc: Python's objects come from malloc, not pymalloc's
#   arenas, so ASan checks reads and writes of them too.
# - THRONG_SANITIZED=1 tells the tests (a check of the process's RSS is
#   meaningless while ASan holds freed memory in its quarantine).
set -eu
cc=$1
shift
asan=$("$cc" -print-file-name=libasan.so)
ubsan=$("$cc" -print-file-name=libubsan.so)
if [ ! -e "$asan" ]; then
	echo "sanitized.sh: $cc has no libasan.so ($asan)" >&2
	exit 2
fi
preload=$asan
if [ -e "$ubsan" ]; then
	preload="$preload $ubsan"
fi
LD_PRELOAD=$preload
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
PYTHONMALLOC=malloc
THRONG_SANITIZED=1
export LD_PRELOAD ASAN_OPTIONS PYTHONMALLOC THRONG_SANITIZED
exec "$@"
