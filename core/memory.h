// SPDX-License-Identifier: MIT
// Large per-agent buffers and the kernel's pages (private).
//
// A million agents' arrays are hundreds of megabytes, first touched while
// the world is made and the first steps run. On a virtual machine a first
// touch of a 4 KiB page is a costly fault, and at 10^6 agents those faults
// were a large part of making a world (docs/PERFORMANCE.md, "The cost of
// `throng run`"). Linux's transparent huge pages, in
// the "madvise" mode Debian ships, give 2 MiB pages to the ranges a
// process asks for: 512 times fewer faults, and fewer TLB misses for the
// neighbour passes' scattered reads. thr_huge_pages asks for them.
#ifndef THRONG_CORE_MEMORY_H
#define THRONG_CORE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/// Buffers smaller than this are left alone: they would not fill a huge
/// page, and a partly used one costs resident memory.
#define THR_HUGE_MIN ((size_t)4 << 20)

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes)
/// with huge pages, on their first touch. Call it on a buffer just
/// allocated (or grown), before it is written. Only a hint: it changes no
/// value, does nothing below THR_HUGE_MIN bytes or where the system has
/// no such pages, and its failure is ignored.
void thr_huge_pages(void* p, size_t bytes);

/// Makes room for `need` elements of `size` bytes in the buffer *p, whose
/// capacity *cap counts elements: doubles it (from `first` when it is 0)
/// until `need` fits, or takes `need` itself where doubling would pass 32
/// bits, and asks for huge pages for what it grew (thr_huge_pages).
/// Returns -1, with *p and *cap as they were, when out of memory or when
/// `need` does not fit in 32 bits.
int thr_reserve(void** p, uint32_t* cap, size_t need, size_t size, uint32_t first);

#endif
