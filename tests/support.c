// SPDX-License-Identifier: MIT
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void slurp(const char* path, char* buf, uint32_t cap)
{
	buf[0] = '\0';
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		return;
	}
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

int thr_test_run(const char* cmdline, char* out, uint32_t out_cap, char* err, uint32_t err_cap)
{
	char out_path[] = "/tmp/throng_test_outXXXXXX";
	char err_path[] = "/tmp/throng_test_errXXXXXX";
	int fo = mkstemp(out_path);
	int fe = mkstemp(err_path);
	if (fo < 0 || fe < 0) {
		return -1;
	}
	close(fo);
	close(fe);
	size_t len = strlen(cmdline) + strlen(out_path) + strlen(err_path) + 32;
	char* full = malloc(len);
	snprintf(full, len, "%s >%s 2>%s </dev/null", cmdline, out_path, err_path);
	int st = system(full);
	free(full);
	slurp(out_path, out, out_cap);
	slurp(err_path, err, err_cap);
	unlink(out_path);
	unlink(err_path);
	if (st == -1 || !WIFEXITED(st)) {
		return -1;
	}
	return WEXITSTATUS(st);
}

float thr_test_uniform(uint64_t* state, float lo, float hi)
{
	// splitmix64: a test-local stream, independent of the engine's generator.
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	float u = (float)(z >> 40) * (1.0f / 16777216.0f);
	return lo + (hi - lo) * u;
}
