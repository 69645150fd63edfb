// SPDX-License-Identifier: MIT
// Huge pages for large buffers (memory.h).
#define _DEFAULT_SOURCE // madvise and MADV_HUGEPAGE under -std=c11
#include "memory.h"

#include <stdint.h>
#include <sys/mman.h>

void thr_huge_pages(void* p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (p == NULL || bytes < THR_HUGE_MIN) {
		return;
	}
	uintptr_t b = ((uintptr_t)p + huge - 1u) & ~(huge - 1u);
	uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1u);
	if (e > b) {
		(void)madvise((void*)b, (size_t)(e - b), MADV_HUGEPAGE);
	}
#else
	(void)p;
	(void)bytes;
#endif
}
