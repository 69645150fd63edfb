// SPDX-License-Identifier: MIT
// Huge pages for large buffers, and buffers that grow by doubling (memory.h).
#define _DEFAULT_SOURCE // madvise and MADV_HUGEPAGE under -std=c11
#include "memory.h"

#include <stdint.h>
#include <stdlib.h>
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

int thr_reserve(void** p, uint32_t* cap, size_t need, size_t size, uint32_t first)
{
	if (need <= *cap) {
		return 0;
	}
	if (need > UINT32_MAX) {
		return -1;
	}
	size_t n = *cap ? *cap : first;
	while (n < need) {
		n *= 2;
	}
	if (n > UINT32_MAX) {
		n = need;
	}
	void* q = realloc(*p, n * size);
	if (q == NULL) {
		return -1;
	}
	thr_huge_pages(q, n * size);
	*p = q;
	*cap = (uint32_t)n;
	return 0;
}
