// SPDX-License-Identifier: MIT
// CRC-32 (the zlib/PNG one) for the binary stream's checksums.
//
// Slicing-by-16: sixteen 256-entry tables (16 KiB) let the loop fold 16
// bytes per round with independent table loads, faster than slicing-by-8
// and the byte-at-a-time loop (docs/PERFORMANCE.md, "Output cost"). The
// tables are built once, on first use.
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "export_internal.h"

static uint32_t crc_table[16][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; ++i) {
		uint32_t c = i;
		for (int k = 0; k < 8; ++k) {
			c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		}
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; ++i) {
		for (int t = 1; t < 16; ++t) {
			uint32_t prev = crc_table[t - 1][i];
			crc_table[t][i] = (prev >> 8) ^ crc_table[0][prev & 0xffu];
		}
	}
}

uint32_t thr_crc32(uint32_t crc, const void* data, size_t n)
{
	pthread_once(&crc_once, crc_init);
	const unsigned char* p = data;
	uint32_t c = ~crc;
	while (n >= 16) {
		uint32_t a = thr_get_u32(p) ^ c;
		uint32_t b = thr_get_u32(p + 4);
		uint32_t d = thr_get_u32(p + 8);
		uint32_t e = thr_get_u32(p + 12);
		c = crc_table[15][a & 0xffu] ^ crc_table[14][(a >> 8) & 0xffu] ^ crc_table[13][(a >> 16) & 0xffu] ^
		    crc_table[12][a >> 24] ^ crc_table[11][b & 0xffu] ^ crc_table[10][(b >> 8) & 0xffu] ^
		    crc_table[9][(b >> 16) & 0xffu] ^ crc_table[8][b >> 24] ^ crc_table[7][d & 0xffu] ^
		    crc_table[6][(d >> 8) & 0xffu] ^ crc_table[5][(d >> 16) & 0xffu] ^ crc_table[4][d >> 24] ^
		    crc_table[3][e & 0xffu] ^ crc_table[2][(e >> 8) & 0xffu] ^ crc_table[1][(e >> 16) & 0xffu] ^
		    crc_table[0][e >> 24];
		p += 16;
		n -= 16;
	}
	while (n > 0) {
		c = crc_table[0][(c ^ *p) & 0xffu] ^ (c >> 8);
		++p;
		--n;
	}
	return ~c;
}

void thr_swap32(void* data, size_t n)
{
	unsigned char* p = data;
	for (size_t k = 0; k < n; ++k, p += 4) {
		unsigned char t0 = p[0], t1 = p[1];
		p[0] = p[3];
		p[1] = p[2];
		p[2] = t1;
		p[3] = t0;
	}
}
