// SPDX-License-Identifier: MIT
// libFuzzer target: the binary stream reader must turn any input into
// frames or an error that names a byte offset, never a crash, a leak or an
// out-of-bounds read. Each input is read three times: from memory with
// checksums verified (the reader's default) and without, so mutations get
// past the CRC checks into the frame parsing behind them, and as a FILE
// without a size (fmemopen: what a pipe looks like to the reader, whose
// frame buffer then grows with the bytes that arrive). Every element of every frame is read, so
// AddressSanitizer checks the arrays the reader hands out, every float a
// frame hands out must be finite and its ids must increase (the reader
// refuses the others; the seed corpus is version 2, whose frames carry
// their own count, size and ids). A
// header that claims more than the input holds must cost nothing:
// -rss_limit_mb and -malloc_limit_mb (tests/fuzz/CMakeLists.txt) catch a
// reader that allocates what it claims.
#define _POSIX_C_SOURCE 200809L // fmemopen

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/export.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/// A failure must say where: "... byte offset N: ...".
static void expect_offset(void)
{
	if (strstr(throng_last_error(), "byte offset ") == NULL) {
		fprintf(stderr, "fuzz_stream: error without a byte offset: %s\n", throng_last_error());
		abort();
	}
}

/// Positions, velocities and headings handed out are finite.
static void expect_finite(const float* array, uint32_t count)
{
	for (uint32_t k = 0; array != NULL && k < count; ++k) {
		if (!isfinite(array[k])) {
			fprintf(stderr, "fuzz_stream: element %u of a frame is %g\n", k, (double)array[k]);
			abort();
		}
	}
}

/// A frame's ids increase (version 1: 0 .. count-1).
static void expect_ids(const uint32_t* id, uint32_t count)
{
	for (uint32_t k = 0; k < count; ++k) {
		if (id == NULL || (k > 0 && id[k] <= id[k - 1])) {
			fprintf(stderr, "fuzz_stream: id %u of a frame of %u does not increase\n", k, count);
			abort();
		}
	}
}

static uint32_t fold(const void* array, uint32_t count)
{
	uint32_t acc = 0;
	if (array != NULL) {
		const unsigned char* p = array;
		for (uint32_t k = 0; k < count * 4u; ++k) {
			acc = acc * 31u + p[k];
		}
	}
	return acc;
}

/// Where the folded frames go, so the reads cannot be optimised away.
volatile uint32_t thr_fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	for (int pass = 0; pass < 3; ++pass) {
		const int verify = pass != 1;
		throng_stream_reader* r = NULL;
		FILE* file = NULL;
		throng_status st;
		if (pass < 2) {
			st = throng_stream_open_memory(data, size, &r);
		} else {
			if (size == 0 || (file = fmemopen((void*)(uintptr_t)data, size, "rb")) == NULL) {
				continue;
			}
			st = throng_stream_open_file(file, "fuzz input", &r);
		}
		if (st != THRONG_OK) {
			expect_offset();
			if (file != NULL) {
				fclose(file);
			}
			continue;
		}
		throng_stream_verify(r, verify != 0);
		for (int k = 0; k < 4096; ++k) {
			throng_frame f;
			bool got = false;
			if (throng_stream_read_frame(r, &f, &got) != THRONG_OK) {
				expect_offset();
				break;
			}
			if (!got) {
				break;
			}
			const float* floats[6] = {f.x, f.y, f.vx, f.vy, f.hx, f.hy};
			for (int j = 0; j < 6; ++j) {
				expect_finite(floats[j], f.count);
			}
			expect_ids(f.id, f.count);
			thr_fuzz_sink = fold(f.id, f.count) ^ fold(f.x, f.count) ^ fold(f.y, f.count) ^ fold(f.vx, f.count) ^ fold(f.vy, f.count) ^
			       fold(f.hx, f.count) ^ fold(f.hy, f.count) ^ fold(f.group, f.count) ^ fold(f.archetype, f.count);
		}
		throng_stream_reader_destroy(r);
		if (file != NULL) {
			fclose(file);
		}
	}
	return 0;
}
