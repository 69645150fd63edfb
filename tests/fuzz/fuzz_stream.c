// SPDX-License-Identifier: MIT
// libFuzzer target: the binary stream reader must turn any input into
// frames or an error that names a byte offset, never a crash, a leak or an
// out-of-bounds read. Each input is read twice, with checksums verified (the
// reader's default) and without, so mutations get past the CRC checks into
// the frame parsing behind them. Every element of every frame is read, so
// AddressSanitizer checks the arrays the reader hands out.
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
	for (int verify = 1; verify >= 0; --verify) {
		throng_stream_reader* r = NULL;
		if (throng_stream_open_memory(data, size, &r) != THRONG_OK) {
			expect_offset();
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
			thr_fuzz_sink = fold(f.x, f.count) ^ fold(f.y, f.count) ^ fold(f.vx, f.count) ^ fold(f.vy, f.count) ^
			       fold(f.hx, f.count) ^ fold(f.hy, f.count) ^ fold(f.group, f.count) ^ fold(f.archetype, f.count);
		}
		throng_stream_reader_destroy(r);
	}
	return 0;
}
