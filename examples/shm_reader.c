// SPDX-License-Identifier: MIT
// A renderer's side of throng's live feed, written from docs/FORMAT.md
// alone: POSIX shared memory, C11 atomics, no throng library.
//
//   throng run circle --agents 2000 --steps 6000 --realtime --shm crowd &
//   ./build/release/examples/shm_reader crowd
//
// Waits up to 10 s for the feed, then prints the newest frame each time one
// appears, until the writer finishes (exit 0) or the feed goes away.
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// Offsets from docs/FORMAT.md, "Live feed".
enum { H_AGENTS = 24, H_FIELDS = 28, H_SLOT_BYTES = 32, H_STRIDE = 88, H_PUBLISHED = 192, H_STATE = 200 };
enum { HEADER_BYTES = 256, SLOT_DATA = 64, STATE_FINISHED = 2 };

static void nap(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/// Maps the feed once its writer has filled the header (state != 0).
static unsigned char* open_feed(const char* name, size_t* size)
{
	for (int tries = 0; tries < 1000; ++tries, nap(10)) {
		int fd = shm_open(name, O_RDONLY, 0);
		struct stat sb;
		if (fd < 0) {
			continue;
		}
		if (fstat(fd, &sb) != 0 || sb.st_size < HEADER_BYTES) {
			close(fd);
			continue;
		}
		unsigned char* m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED) {
			return NULL;
		}
		if (atomic_load_explicit((_Atomic uint32_t*)(void*)(m + H_STATE), memory_order_acquire) != 0) {
			*size = (size_t)sb.st_size;
			return m;
		}
		munmap(m, (size_t)sb.st_size);
	}
	return NULL;
}

int main(int argc, char** argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: shm_reader NAME\n");
		return 2;
	}
	char name[256];
	snprintf(name, sizeof name, "%s%s", argv[1][0] == '/' ? "" : "/", argv[1]);
	size_t size = 0;
	unsigned char* m = open_feed(name, &size);
	if (m == NULL || memcmp(m, "\x89THRFEED", 8) != 0) {
		fprintf(stderr, "shm_reader: no throng feed named %s\n", name);
		return 1;
	}
	uint32_t agents, fields;
	uint64_t slot_bytes, stride;
	memcpy(&agents, m + H_AGENTS, 4);
	memcpy(&fields, m + H_FIELDS, 4);
	memcpy(&slot_bytes, m + H_SLOT_BYTES, 8);
	memcpy(&stride, m + H_STRIDE, 8);
	if ((fields & 3u) != 3u) {
		fprintf(stderr, "shm_reader: the feed has no positions (fields 0x%x)\n", fields);
		return 1;
	}
	// x and y are fields 0 and 1, so they are the first two arrays.
	float* x = malloc((size_t)agents * 4u);
	float* y = malloc((size_t)agents * 4u);
	_Atomic uint64_t* published = (_Atomic uint64_t*)(void*)(m + H_PUBLISHED);
	_Atomic uint32_t* state = (_Atomic uint32_t*)(void*)(m + H_STATE);
	uint64_t shown = 0, retries = 0; // frames published when we last drew
	int idle_ms = 0;
	for (;;) {
		int finished = atomic_load_explicit(state, memory_order_acquire) == STATE_FINISHED;
		uint64_t p = atomic_load_explicit(published, memory_order_acquire);
		if (p == 0 || p == shown) {
			if (finished) {
				break;
			}
			if (++idle_ms > 10000) {
				fprintf(stderr, "shm_reader: no new frame for 10 s; is the writer still running?\n");
				return 1;
			}
			nap(1); // a renderer would draw its last frame again here
			continue;
		}
		idle_ms = 0;
		unsigned char* slot = m + HEADER_BYTES + ((p - 1) % 2) * slot_bytes;
		_Atomic uint64_t* seq = (_Atomic uint64_t*)(void*)slot;
		uint64_t s1 = atomic_load_explicit(seq, memory_order_acquire);
		if (s1 & 1u) {
			++retries; // the writer is filling this slot: look again
			continue;
		}
		uint64_t index, step;
		memcpy(&index, slot + 8, 8);
		memcpy(&step, slot + 16, 8);
		memcpy(x, slot + SLOT_DATA, (size_t)agents * 4u);
		memcpy(y, slot + SLOT_DATA + stride, (size_t)agents * 4u);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(seq, memory_order_relaxed) != s1) {
			++retries; // overwritten while we copied: throw the copy away
			continue;
		}
		shown = index + 1;
		printf("frame %llu step %llu: agent 0 at (%.3f, %.3f), agent %u at (%.3f, %.3f)\n",
		       (unsigned long long)index, (unsigned long long)step, (double)x[0], (double)y[0], agents - 1,
		       (double)x[agents - 1], (double)y[agents - 1]);
	}
	printf("feed finished after %llu frames (%llu retries)\n", (unsigned long long)shown, (unsigned long long)retries);
	free(x);
	free(y);
	munmap(m, size);
	return 0;
}
