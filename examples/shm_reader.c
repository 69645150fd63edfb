// SPDX-License-Identifier: MIT
// A renderer's side of throng's live feed, written from docs/FORMAT.md
// alone: POSIX shared memory, C11 atomics, no throng library.
//
//   throng run circle --agents 2000 --steps 6000 --realtime --shm crowd &
//   ./build/release/examples/shm_reader crowd
//
// Waits up to 10 s for the feed, then prints the newest frame each time one
// appears (its agent count and its first and last agents by id: agents
// come and go), until the writer finishes (exit 0) or is gone without
// finishing (killed, crashed: exit 1). Reads feed version 2.x.
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
enum { H_MAJOR = 8, H_AGENTS = 24, H_FIELDS = 28, H_SLOT_BYTES = 32, H_PID = 84, H_STRIDE = 88 };
enum { H_START = 160, H_PID_NS = 168, H_PUBLISHED = 192, H_STATE = 200, H_HEARTBEAT = 208 };
enum { HEADER_BYTES = 256, SLOT_COUNT = 32, SLOT_IDS = 64, STATE_FINISHED = 2 };
#define HEARTBEAT_LIMIT_NS 10000000000ull // 10 s, as the library's readers judge it

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

/// Whether the writer of a live feed still runs (FORMAT.md, "Is the writer
/// alive?"): by its pid and start time when we share its pid namespace, by
/// the heartbeat when we do not.
static int writer_alive(const unsigned char* m)
{
	uint32_t pid;
	uint64_t start, ns, beat;
	memcpy(&pid, m + H_PID, 4);
	memcpy(&start, m + H_START, 8);
	memcpy(&ns, m + H_PID_NS, 8);
	struct stat own;
	if (ns == 0 || stat("/proc/self/ns/pid", &own) != 0 || (uint64_t)own.st_ino != ns) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		beat = atomic_load_explicit((_Atomic uint64_t*)(void*)(m + H_HEARTBEAT), memory_order_acquire);
		return beat == 0 || t < beat || t - beat <= HEARTBEAT_LIMIT_NS;
	}
	if (pid == 0 || pid > 0x7fffffffu || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
		return 0;
	}
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%u/stat", pid);
	FILE* f = fopen(path, "r");
	size_t n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f != NULL) {
		fclose(f);
	}
	buf[n] = '\0';
	char* p = strrchr(buf, ')'); // "pid (comm) S ... starttime(22nd field) ..."
	if (p == NULL || p[1] != ' ') {
		return 1; // hidden from us: kill() said it exists
	}
	char state = p[2];
	for (int field = 2; field < 22 && p != NULL; ++field) {
		p = strchr(p + 1, ' ');
	}
	unsigned long long now_start = p != NULL ? strtoull(p + 1, NULL, 10) : 0;
	return state != 'Z' && state != 'X' && (start == 0 || now_start == start);
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
	uint16_t major = 0;
	if (m != NULL) {
		memcpy(&major, m + H_MAJOR, 2);
	}
	if (m == NULL || memcmp(m, "\x89THRFEED", 8) != 0 || major != 2) {
		fprintf(stderr, "shm_reader: no throng feed (version 2.x) named %s\n", name);
		return 1;
	}
	uint32_t capacity, fields;
	uint64_t slot_bytes, stride;
	memcpy(&capacity, m + H_AGENTS, 4); // 2.x: the most agents a frame holds
	memcpy(&fields, m + H_FIELDS, 4);
	memcpy(&slot_bytes, m + H_SLOT_BYTES, 8);
	memcpy(&stride, m + H_STRIDE, 8);
	if ((fields & 3u) != 3u) {
		fprintf(stderr, "shm_reader: the feed has no positions (fields 0x%x)\n", fields);
		return 1;
	}
	// Trust no size before it fits the object: the ids, then x and y, are
	// its first three arrays.
	if (capacity == 0 || stride < 4ull * capacity || slot_bytes < SLOT_IDS + 3 * stride ||
	    slot_bytes > (size - HEADER_BYTES) / 2) {
		fprintf(stderr, "shm_reader: %s: inconsistent header (capacity %u, slot %llu bytes, object %zu bytes)\n",
		        name, capacity, (unsigned long long)slot_bytes, size);
		return 1;
	}
	uint32_t* id = malloc((size_t)capacity * 4u);
	float* x = malloc((size_t)capacity * 4u);
	float* y = malloc((size_t)capacity * 4u);
	_Atomic uint64_t* published = (_Atomic uint64_t*)(void*)(m + H_PUBLISHED);
	_Atomic uint32_t* state = (_Atomic uint32_t*)(void*)(m + H_STATE);
	uint64_t shown = 0, retries = 0; // frames published when we last drew
	int idle_ms = 0, gone = 0;
	for (;;) {
		int finished = atomic_load_explicit(state, memory_order_acquire) == STATE_FINISHED;
		uint64_t p = atomic_load_explicit(published, memory_order_acquire);
		if (p == 0 || p == shown) {
			if (finished || gone) {
				break; // (the state was read before `published`: no frame was missed)
			}
			if (++idle_ms % 100 == 0) {
				gone = !writer_alive(m); // one more look for a frame, then stop
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
		uint32_t count;
		memcpy(&index, slot + 8, 8);
		memcpy(&step, slot + 16, 8);
		memcpy(&count, slot + SLOT_COUNT, 4);
		uint32_t n = count < capacity ? count : capacity; // a torn count is thrown away below
		memcpy(id, slot + SLOT_IDS, (size_t)n * 4u);
		memcpy(x, slot + SLOT_IDS + stride, (size_t)n * 4u);
		memcpy(y, slot + SLOT_IDS + 2 * stride, (size_t)n * 4u);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(seq, memory_order_relaxed) != s1) {
			++retries; // overwritten while we copied: throw the copy away
			continue;
		}
		shown = index + 1;
		if (count > capacity) {
			fprintf(stderr, "shm_reader: frame %llu holds %u agents, more than the capacity %u\n",
			        (unsigned long long)index, count, capacity);
			continue;
		}
		if (n == 0) {
			printf("frame %llu step %llu: no agents\n", (unsigned long long)index, (unsigned long long)step);
			continue;
		}
		printf("frame %llu step %llu: %u agents, agent %u at (%.3f, %.3f), agent %u at (%.3f, %.3f)\n",
		       (unsigned long long)index, (unsigned long long)step, n, id[0], (double)x[0], (double)y[0], id[n - 1],
		       (double)x[n - 1], (double)y[n - 1]);
	}
	uint32_t pid;
	memcpy(&pid, m + H_PID, 4);
	if (gone) {
		fprintf(stderr, "shm_reader: the writer (pid %u) is gone without finishing the feed, after %llu frames\n", pid,
		        (unsigned long long)shown);
	} else {
		printf("feed finished after %llu frames (%llu retries)\n", (unsigned long long)shown,
		       (unsigned long long)retries);
	}
	free(id);
	free(x);
	free(y);
	munmap(m, size);
	return gone ? 1 : 0;
}
