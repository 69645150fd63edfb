// SPDX-License-Identifier: MIT
// The live feed: a reader process checks thousands of frames while a writer
// process publishes flat out and never finds a torn one; the feed of the
// throng command matches its binary stream bit for bit; header, lifetime
// and open errors.
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE // MAP_ANONYMOUS
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"
#include "throng/export.h"
#include "throng/scenario.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// Opens a feed, retrying for up to `seconds` while its writer starts.
static throng_feed_reader* open_retry(const char* name, double seconds)
{
	double t0 = now();
	for (;;) {
		throng_feed_reader* r = NULL;
		throng_status st = throng_feed_open(name, &r);
		if (st == THRONG_OK) {
			return r;
		}
		cr_assert_eq(st, THRONG_ERR_NOT_FOUND, "%s", throng_last_error());
		cr_assert_lt(now() - t0, seconds, "no feed %s after %g s: %s", name, seconds, throng_last_error());
		struct timespec ms = {0, 1000000L};
		nanosleep(&ms, NULL);
	}
}

enum { SYN_AGENTS = 256 };

/// Clears the top bit of a float's exponent: any bits become a finite
/// float, which the reader requires of positions, velocities and headings.
#define FINITE_BITS 0xbfffffffu

/// Every field of version 2.0 (bits 0 to 7), which the synthetic views
/// below have; health (2.1) is checked on a world's feed.
#define FIELDS_2_0 0xffu

/// The synthetic frame i: every value a function of (i, id), so a frame
/// mixing two writes is caught at the first element from the other one.
/// The float fields (0 to 5) are finite.
static uint32_t syn_u32(uint64_t i, uint32_t id, int field)
{
	uint32_t v = (uint32_t)(i * 2654435761u) ^ (id * 40503u) ^ ((uint32_t)field << 28);
	return field < 6 ? v & FINITE_BITS : v;
}

/// A view of `n` agents at `step` over eight field rows of `stride` words
/// each, laid one after the other from `rows` (x, y, vx, vy, hx, hy as
/// float bits; group; archetype).
static throng_view fields_view(uint32_t n, uint64_t step, const uint32_t* id, const uint32_t* rows, size_t stride)
{
	throng_view v = {.count = n, .step = step, .id = id};
	v.x = (const float*)(rows + 0 * stride);
	v.y = (const float*)(rows + 1 * stride);
	v.vx = (const float*)(rows + 2 * stride);
	v.vy = (const float*)(rows + 3 * stride);
	v.hx = (const float*)(rows + 4 * stride);
	v.hy = (const float*)(rows + 5 * stride);
	v.group = rows + 6 * stride;
	v.archetype = rows + 7 * stride;
	return v;
}

/// Child process: publishes synthetic frames as fast as it can until *stop
/// is set (or `seconds` pass), then closes the feed. Never returns.
static void synthetic_writer(const char* name, _Atomic int* stop, double seconds)
{
	throng_export_def def = throng_export_default_def();
	def.agents = SYN_AGENTS;
	def.capacity = SYN_AGENTS;
	def.dt = 0.01f;
	def.fields = FIELDS_2_0;
	throng_feed* feed = NULL;
	if (throng_feed_create(name, &def, &feed) != THRONG_OK) {
		_exit(3);
	}
	static uint32_t id[SYN_AGENTS], a[8][SYN_AGENTS];
	for (uint32_t k = 0; k < SYN_AGENTS; ++k) {
		id[k] = SYN_AGENTS - 1u - k; // storage order reversed: the scatter has work to do
	}
	throng_view v = fields_view(SYN_AGENTS, 0, id, &a[0][0], SYN_AGENTS);
	double t0 = now();
	for (uint64_t i = 0; !atomic_load(stop) && now() - t0 < seconds; ++i) {
		for (int f = 0; f < 8; ++f) {
			for (uint32_t k = 0; k < SYN_AGENTS; ++k) {
				a[f][k] = syn_u32(i, id[k], f);
			}
		}
		v.step = i;
		if (throng_feed_publish_view(feed, &v) != THRONG_OK) {
			_exit(4);
		}
	}
	throng_status finished = throng_feed_finish(feed);
	throng_feed_destroy(feed);
	_exit(finished == THRONG_OK ? 0 : 5);
}

/// Runs a synthetic writer process and checks every element of every frame
/// this process reads until `want` frames are checked or `budget` seconds
/// pass. Returns the frames checked; *torn gets those that mixed two writes.
static uint64_t check_feed(const char* tag, uint64_t want, double budget, uint64_t* torn)
{
	char name[64];
	snprintf(name, sizeof name, "/throng_test_%s_%d", tag, (int)getpid());
	_Atomic int* stop = mmap(NULL, sizeof *stop, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(stop, MAP_FAILED);
	atomic_store(stop, 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		synthetic_writer(name, stop, budget + 5.0);
	}
	throng_feed_reader* r = open_retry(name, 5.0);
	cr_assert_eq(throng_feed_get_info(r)->agents, SYN_AGENTS);
	uint64_t checked = 0, last = 0, empty = 0;
	*torn = 0;
	double t0 = now();
	while (!throng_feed_finished(r) && now() - t0 < budget + 2.0) {
		if (checked >= want || now() - t0 > budget) {
			atomic_store(stop, 1); // then drain until the writer has closed
		}
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		if (!got) {
			// Nothing new: nap briefly, as a renderer would. Spinning starves
			// the writer when the two share a CPU, and sched_yield() hands
			// the CPU to unrelated work on a busy machine.
			++empty;
			struct timespec nap = {0, 20000L};
			nanosleep(&nap, NULL);
			continue;
		}
		cr_assert(checked == 0 || fr.index > last, "frame %llu after %llu", (unsigned long long)fr.index,
		          (unsigned long long)last);
		last = fr.index;
		cr_assert_eq(fr.step, fr.index);
		cr_assert_eq(fr.count, SYN_AGENTS);
		const uint32_t* arrays[8] = {(const uint32_t*)fr.x,  (const uint32_t*)fr.y,  (const uint32_t*)fr.vx,
		                             (const uint32_t*)fr.vy, (const uint32_t*)fr.hx, (const uint32_t*)fr.hy,
		                             fr.group,               fr.archetype};
		bool whole = true;
		for (int f = 0; f < 8 && whole; ++f) {
			for (uint32_t id = 0; id < SYN_AGENTS; ++id) {
				if (arrays[f][id] != syn_u32(fr.index, id, f)) {
					whole = false;
					break;
				}
			}
		}
		*torn += whole ? 0u : 1u;
		++checked;
	}
	atomic_store(stop, 1);
	int status = 0;
	waitpid(pid, &status, 0);
	munmap(stop, sizeof *stop);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
	throng_feed_reader_destroy(r);
	cr_log_info("feed %s: %llu frames checked of %llu published, %llu torn, %llu empty polls", tag,
	            (unsigned long long)checked, (unsigned long long)(last + 1), (unsigned long long)*torn,
	            (unsigned long long)empty);
	return checked;
}

Test(feed, no_torn_frame_while_the_writer_runs_flat_out)
{
	// Two processes, the writer never pausing: a fraction of a second on
	// an idle machine, at most 5 s on a loaded one.
	uint64_t torn = 0;
	uint64_t checked = check_feed("flat", 5000, 5.0, &torn);
	cr_assert_eq(torn, 0, "%llu torn frames out of %llu", (unsigned long long)torn, (unsigned long long)checked);
	cr_assert_geq(checked, 2000, "only %llu frames checked", (unsigned long long)checked);
}

/// A synthetic view of `n` agents for frame `i` (ids in reverse storage order).
static throng_view syn_view(uint64_t i, uint32_t n, uint32_t* id, uint32_t a[8][16])
{
	for (uint32_t k = 0; k < n; ++k) {
		id[k] = n - 1u - k;
		for (int f = 0; f < 8; ++f) {
			a[f][k] = syn_u32(i, id[k], f);
		}
	}
	return fields_view(n, i, id, &a[0][0], 16);
}

/// Reads one frame; returns its index, or -1 when there was none.
static long read_index(throng_feed_reader* r)
{
	throng_frame fr;
	bool got = false;
	cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	if (!got) {
		return -1;
	}
	for (uint32_t id = 0; id < fr.count; ++id) {
		cr_assert_eq(fr.id[id], id, "frame %llu: agent %u has id %u", (unsigned long long)fr.index, id, fr.id[id]);
		cr_assert_eq(fr.group[id], syn_u32(fr.index, id, 6), "frame %llu agent %u", (unsigned long long)fr.index, id);
		cr_assert_eq(((const uint32_t*)fr.x)[id], syn_u32(fr.index, id, 0));
	}
	return (long)fr.index;
}

Test(feed, a_slot_being_written_is_never_returned)
{
	// The flat-out test above rarely meets a slot mid-write: with two
	// slots the writer must lap a reader during its copy. Here the slot's
	// sequence number is driven by hand, through a second, writable
	// mapping, to pin each step of the protocol.
	char name[64];
	snprintf(name, sizeof name, "/throng_test_seq_%d", (int)getpid());
	throng_export_def def = throng_export_default_def();
	def.agents = 16;
	def.capacity = 16;
	def.dt = 0.1f;
	def.fields = FIELDS_2_0;
	throng_feed* feed = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &feed), THRONG_OK, "%s", throng_last_error());
	uint32_t id[16], a[8][16];
	for (uint64_t i = 0; i < 2; ++i) {
		throng_view v = syn_view(i, 16, id, a);
		cr_assert_eq(throng_feed_publish_view(feed, &v), THRONG_OK, "%s", throng_last_error());
	}
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());

	int fd = shm_open(name, O_RDWR, 0);
	cr_assert_geq(fd, 0);
	uint64_t slot_bytes = 0;
	unsigned char* base = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	cr_assert_neq(base, MAP_FAILED);
	memcpy(&slot_bytes, base + 32, 8);
	_Atomic uint64_t* seq0 = (_Atomic uint64_t*)(void*)(base + 256);
	_Atomic uint64_t* seq1 = (_Atomic uint64_t*)(void*)(base + 256 + slot_bytes);
	cr_assert_eq(atomic_load(seq0) % 2, 0);
	cr_assert_eq(atomic_load(seq1), 2, "one frame written to slot 1: odd, then even");

	// The newest frame's slot is being written (odd): no frame comes back.
	atomic_fetch_add(seq1, 1);
	cr_assert_eq(read_index(r), -1);
	atomic_fetch_add(seq1, 1); // the write ends
	cr_assert_eq(read_index(r), 1);

	// A refused view (an id twice) is refused before a slot is touched:
	// both stay as they were and nothing is announced. A slot left odd
	// (a writer interrupted mid-frame) starts over from even.
	throng_view v = syn_view(2, 16, id, a);
	id[5] = id[6];
	const uint64_t before = atomic_load(seq0);
	cr_assert_eq(throng_feed_publish_view(feed, &v), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "appears twice"), "%s", throng_last_error());
	cr_assert_eq(atomic_load(seq0), before, "the refused view touched a slot");
	cr_assert_eq(read_index(r), -1, "nothing new was announced");
	atomic_fetch_add(seq0, 1); // odd, as an interrupted write leaves it
	v = syn_view(2, 16, id, a);
	cr_assert_eq(throng_feed_publish_view(feed, &v), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(atomic_load(seq0) % 2, 0);
	cr_assert_eq(read_index(r), 2);

	// Frames 3 and 4 are published while this reader is away: it gets the
	// newest, 4, and never the overwritten 3.
	for (uint64_t i = 3; i <= 4; ++i) {
		v = syn_view(i, 16, id, a);
		cr_assert_eq(throng_feed_publish_view(feed, &v), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(read_index(r), 4);
	cr_assert_eq(read_index(r), -1);
	munmap(base, 4096);
	throng_feed_reader_destroy(r);
	cr_assert_eq(throng_feed_finish(feed), THRONG_OK);
	throng_feed_destroy(feed);
}

/// The whole feed `name` mapped writable (its size into *size), to
/// drive or damage it by hand.
static unsigned char* map_writable(const char* name, size_t* size)
{
	int fd = shm_open(name, O_RDWR, 0);
	cr_assert_geq(fd, 0, "shm_open %s", name);
	struct stat sb;
	cr_assert_eq(fstat(fd, &sb), 0);
	unsigned char* base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	cr_assert_neq(base, MAP_FAILED);
	*size = (size_t)sb.st_size;
	return base;
}

enum { HAMMER_AGENTS = 65536 };

typedef struct hammer {
	unsigned char* slot;     ///< the newest frame's slot, mapped writable
	uint64_t stride;         ///< bytes between the slot's arrays (the ids, then x)
	_Atomic int stop;
	_Atomic uint64_t versions;
} hammer;

/// Rewrites the x array of one slot over and over, each version whole and
/// under the slot's sequence lock, as a writer would: odd, data, even.
static void* hammer_slot(void* arg)
{
	hammer* h = arg;
	_Atomic uint64_t* seq = (_Atomic uint64_t*)(void*)h->slot;
	uint32_t* x = (uint32_t*)(void*)(h->slot + 64 + h->stride); // after the ids
	for (uint32_t v = 1; !atomic_load(&h->stop); ++v) {
		atomic_fetch_add_explicit(seq, 1, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		for (uint32_t id = 0; id < HAMMER_AGENTS; ++id) {
			x[id] = (v ^ (id * 40503u)) & FINITE_BITS;
		}
		atomic_fetch_add_explicit(seq, 1, memory_order_release);
		atomic_store(&h->versions, v);
		struct timespec pause = {0, 50000L}; // 50 us between versions: readers can get through
		nanosleep(&pause, NULL);
	}
	return NULL;
}

Test(feed, a_copy_overlapping_a_write_is_thrown_away)
{
	// A thread keeps rewriting the newest slot in place (something the
	// real writer does only when it laps a slow reader), so most copies
	// overlap a write. Every frame returned must still be one version
	// whole; without the re-check after the copy, this tears at once
	// (checked by hand).
	char name[64];
	snprintf(name, sizeof name, "/throng_test_hammer_%d", (int)getpid());
	throng_export_def def = throng_export_default_def();
	def.agents = HAMMER_AGENTS;
	def.capacity = HAMMER_AGENTS;
	def.dt = 0.1f;
	def.fields = THRONG_FIELD_X;
	throng_feed* feed = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &feed), THRONG_OK, "%s", throng_last_error());
	static uint32_t id[HAMMER_AGENTS], x[HAMMER_AGENTS];
	for (uint32_t k = 0; k < HAMMER_AGENTS; ++k) {
		id[k] = k;
	}
	throng_view v = {.count = HAMMER_AGENTS, .id = id, .x = (const float*)x};
	cr_assert_eq(throng_feed_publish_view(feed, &v), THRONG_OK, "%s", throng_last_error()); // frame 0, slot 0

	size_t mapped = 0;
	unsigned char* base = map_writable(name, &mapped);
	hammer h = {.slot = base + 256, .stride = HAMMER_AGENTS * 4u};
	atomic_store(&h.stop, 0);
	atomic_store(&h.versions, 0);
	pthread_t thread;
	cr_assert_eq(pthread_create(&thread, NULL, hammer_slot, &h), 0);
	while (atomic_load(&h.versions) == 0) {
		sched_yield();
	}

	uint64_t whole = 0, torn = 0, refused = 0;
	double t0 = now();
	while (now() - t0 < 1.0 && whole < 2000) {
		// A fresh reader each time: a reader returns each frame index once.
		throng_feed_reader* r = NULL;
		cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		if (got) {
			const uint32_t* bits = (const uint32_t*)fr.x;
			uint32_t version = bits[0];
			bool ok = true;
			for (uint32_t k = 1; k < HAMMER_AGENTS && ok; ++k) {
				ok = bits[k] == ((version ^ (k * 40503u)) & FINITE_BITS);
			}
			whole += ok ? 1u : 0u;
			torn += ok ? 0u : 1u;
		} else {
			++refused;
		}
		throng_feed_reader_destroy(r);
	}
	atomic_store(&h.stop, 1);
	pthread_join(thread, NULL);
	cr_log_info("feed hammer: %llu whole, %llu torn, %llu refused, %llu versions written", (unsigned long long)whole,
	            (unsigned long long)torn, (unsigned long long)refused, (unsigned long long)atomic_load(&h.versions));
	munmap(base, mapped);
	cr_assert_eq(throng_feed_finish(feed), THRONG_OK);
	throng_feed_destroy(feed);
	cr_assert_eq(torn, 0, "%llu torn frames returned (%llu whole)", (unsigned long long)torn, (unsigned long long)whole);
	cr_assert_geq(whole, 10, "only %llu frames got through", (unsigned long long)whole);
}

Test(feed, header_lifetime_and_values)
{
	char name[64];
	snprintf(name, sizeof name, "throng_test_life_%d", (int)getpid());
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = 64;
	throng_scene* scene = NULL;
	cr_assert_eq(throng_scene_create("circle", &opt, &scene), THRONG_OK);
	throng_world* w = throng_scene_world(scene);
	throng_export_def def = throng_export_default_def();
	def.world = w;
	def.scenario = "circle";
	def.every = 2;
	throng_feed* feed = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &feed), THRONG_OK, "%s", throng_last_error());
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	const throng_stream_info* in = throng_feed_get_info(r);
	cr_assert_eq(in->agents, 1024); // the default capacity: twice the 64 agents, at least 1024
	cr_assert_eq(in->fields, THRONG_FIELDS_DEFAULT);
	cr_assert_eq(in->every, 2);
	const throng_world_def wd = throng_world_get_def(w); // def.world: the header holds the world's figures
	cr_assert_eq(in->dt, (double)wd.dt);
	cr_assert_eq(in->bounds_min.x, wd.bounds_min.x);
	cr_assert_eq(in->bounds_max.y, wd.bounds_max.y);
	cr_assert_eq(in->bounds_mode, wd.bounds_mode);
	cr_assert_eq(in->seed, wd.seed);
	cr_assert_neq(in->bounds_max.y, 0.0f);
	cr_assert_str_eq(in->scenario, "circle");

	throng_frame fr;
	bool got = true;
	cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK);
	cr_assert_not(got, "a frame before any was published");
	for (int k = 0; k <= 4; ++k) {
		if (k > 0) {
			cr_assert_eq(throng_scene_step(scene), THRONG_OK);
		}
		cr_assert_eq(throng_feed_publish(feed, w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_feed_frames(feed), 3); // steps 0, 2, 4
	cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK);
	cr_assert(got);
	cr_assert_eq(fr.index, 2);
	cr_assert_eq(fr.step, 4);
	cr_assert_null(fr.vx);
	cr_assert_eq(fr.count, 64);
	for (uint32_t id = 0; id < 64; ++id) {
		throng_agent_state a;
		throng_world_get_agent(w, id, &a);
		cr_assert_eq(fr.id[id], id);
		cr_assert(memcmp(&fr.x[id], &a.position.x, 4) == 0 && memcmp(&fr.hy[id], &a.heading.y, 4) == 0,
		          "agent %u differs", id);
	}
	cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK);
	cr_assert_not(got, "the same frame twice");
	cr_assert_not(throng_feed_finished(r));
	cr_assert_eq(throng_feed_finish(feed), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(feed);
	cr_assert(throng_feed_finished(r));
	throng_feed_reader_destroy(r);
	// Closing removed the name.
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND);
	throng_scene_destroy(scene);
}

Test(feed, open_errors)
{
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open("throng_test_no_such_feed", &r), THRONG_ERR_NOT_FOUND);
	cr_assert_null(r);
	cr_assert_eq(throng_feed_open("a/b", &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_feed_open("", &r), THRONG_ERR_INVALID_ARGUMENT);

	// An object of the right size that is not a feed.
	char name[64];
	snprintf(name, sizeof name, "/throng_test_bogus_%d", (int)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	unsigned char junk[4096];
	memset(junk, 0x41, sizeof junk);
	cr_assert_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
	close(fd);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "not a throng feed"), "%s", throng_last_error());
	shm_unlink(name);

	throng_export_def def = throng_export_default_def();
	throng_feed* feed = NULL;
	cr_assert_eq(throng_feed_create("x", &def, &feed), THRONG_ERR_INVALID_ARGUMENT); // no agents, no dt
}

Test(feed, cli_feed_matches_its_stream)
{
	cr_assert(strlen(THRONG_CLI_PATH) > 0, "the throng_cli target is not built");
	char name[64], path[256], cmd[1024];
	snprintf(name, sizeof name, "throng_test_cli_%d", (int)getpid());
	snprintf(path, sizeof path, "/tmp/throng_test_%d_feed.thr", (int)getpid());
	// 90 steps at real speed: 1.5 s, during which this process reads the feed.
	snprintf(cmd, sizeof cmd,
	         "'%s' run circle --agents 300 --steps 90 --realtime --fields all --shm %s --out '%s' >/dev/null",
	         THRONG_CLI_PATH, name, path);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char*)NULL);
		_exit(127);
	}
	throng_feed_reader* r = open_retry(name, 10.0);
	enum { MAX_KEEP = 128 };
	static uint32_t kept[MAX_KEEP][8][300];
	static uint64_t kept_index[MAX_KEEP];
	uint32_t n = 0;
	double t0 = now();
	while (!throng_feed_finished(r) && now() - t0 < 20.0 && n < MAX_KEEP) {
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
		if (!got) {
			struct timespec ms = {0, 1000000L};
			nanosleep(&ms, NULL);
			continue;
		}
		const void* arrays[8] = {fr.x, fr.y, fr.vx, fr.vy, fr.hx, fr.hy, fr.group, fr.archetype};
		for (int f = 0; f < 8; ++f) {
			memcpy(kept[n][f], arrays[f], 300u * 4u);
		}
		kept_index[n++] = fr.index;
	}
	throng_feed_reader_destroy(r);
	int status = 0;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "throng status %d", status);
	cr_assert_geq(n, 10, "only %u frames read from the feed", n);

	throng_stream_reader* s = NULL;
	cr_assert_eq(throng_stream_open(path, &s), THRONG_OK, "%s", throng_last_error());
	uint32_t k = 0;
	for (;;) {
		throng_frame fr;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(s, &fr, &got), THRONG_OK, "%s", throng_last_error());
		if (!got) {
			break;
		}
		if (k < n && kept_index[k] == fr.index) {
			const void* arrays[8] = {fr.x, fr.y, fr.vx, fr.vy, fr.hx, fr.hy, fr.group, fr.archetype};
			for (int f = 0; f < 8; ++f) {
				cr_assert_eq(memcmp(kept[k][f], arrays[f], 300u * 4u), 0, "frame %llu field %d differs",
				             (unsigned long long)fr.index, f);
			}
			++k;
		}
	}
	cr_assert_eq(k, n, "%u of the %u frames from the feed were found in the stream", k, n);
	cr_assert(throng_stream_complete(s));
	throng_stream_reader_destroy(s);
	unlink(path);
}

/// A feed definition of `agents` agents with positions only, and room for
/// no more (its capacity).
static throng_export_def small_def(uint32_t agents)
{
	throng_export_def def = throng_export_default_def();
	def.agents = agents;
	def.capacity = agents;
	def.dt = 0.01f;
	return def;
}

/// The feed "/throng_test_<tag>_<pid>" (its name into name[64]) made with
/// `def`; fails the test on error.
static throng_feed* named_feed(char* name, const char* tag, const throng_export_def* def)
{
	snprintf(name, 64, "/throng_test_%s_%d", tag, (int)getpid());
	throng_feed* f = NULL;
	cr_assert_eq(throng_feed_create(name, def, &f), THRONG_OK, "%s", throng_last_error());
	return f;
}

/// The agent count in the header of the feed `name` now: its capacity.
static uint32_t agents_of(const char* name)
{
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	uint32_t n = throng_feed_get_info(r)->agents;
	throng_feed_reader_destroy(r);
	return n;
}

Test(feed, creation_is_exclusive_and_finish_removes_only_its_own)
{
	char name[64];
	snprintf(name, sizeof name, "throng_test_excl_%d", (int)getpid());
	throng_export_def def_a = small_def(16), def_b = small_def(32);
	throng_feed *a = NULL, *b = NULL;
	cr_assert_eq(throng_feed_create(name, &def_a, &a), THRONG_OK, "%s", throng_last_error());
	// A second feed of that name is refused and the first one is untouched.
	cr_assert_eq(throng_feed_create(name, &def_b, &b), THRONG_ERR_IO);
	cr_assert_null(b);
	const char* msg = throng_last_error();
	cr_assert(strstr(msg, "already exists") != NULL && strstr(msg, "--shm-replace") != NULL, "%s", msg);
	cr_assert_eq(agents_of(name), 16);
	// An explicit replace takes the name; the first feed's finish leaves it.
	cr_assert_eq(throng_feed_replace(name, &def_b, &b), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(agents_of(name), 32);
	cr_assert_eq(throng_feed_finish(a), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(a);
	cr_assert_eq(agents_of(name), 32, "the replaced feed's finish removed its successor");
	cr_assert_eq(throng_feed_finish(b), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(b);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND, "the last finish left the name behind");
	// Replacing when nothing is there is a plain create.
	cr_assert_eq(throng_feed_replace(name, &def_a, &a), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_finish(a), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(a);
}

Test(feed, destroy_without_finish_ends_the_feed)
{
	char name[64];
	snprintf(name, sizeof name, "throng_test_destroy_%d", (int)getpid());
	throng_export_def def = small_def(4);
	def.fields = THRONG_FIELD_X | THRONG_FIELD_Y;
	uint32_t id[4] = {0, 1, 2, 3};
	float x[4] = {0, 1, 2, 3}, y[4] = {0};
	throng_view v = {.count = 4, .step = 0, .id = id, .x = x, .y = y}; // a view the feed would take
	throng_feed* f = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_OK, "%s", throng_last_error());
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_not(throng_feed_finished(r));
	throng_feed_destroy(f); // not finished: ended without a word, the name removed
	cr_assert(throng_feed_finished(r), "a reader still waits for a feed that was destroyed");
	throng_feed_reader_destroy(r);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND, "destroy left the name behind");

	// After finish only destroy is left.
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_finish(f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "already finished"), "%s", throng_last_error());
	cr_assert_eq(throng_feed_publish_view(f, &v), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "finished"), "%s", throng_last_error());
	throng_feed_destroy(f);
	cr_assert_eq(throng_feed_finish(NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_feed_destroy(NULL);
}

Test(feed, dot_names_are_refused_as_names)
{
	throng_export_def def = small_def(4);
	const char* names[] = {".", "..", "/.", "/.."};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		throng_feed* f = NULL;
		cr_assert_eq(throng_feed_create(names[k], &def, &f), THRONG_ERR_INVALID_ARGUMENT, "%s: %s", names[k],
		             throng_last_error());
		cr_assert_not_null(strstr(throng_last_error(), "not a valid object name"), "%s", throng_last_error());
		cr_assert_eq(throng_feed_replace(names[k], &def, &f), THRONG_ERR_INVALID_ARGUMENT, "%s", names[k]);
	}
}

Test(feed, an_object_of_another_user_is_named_as_such)
{
	char name[64];
	snprintf(name, sizeof name, "/throng_test_other_%d", (int)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0644);
	cr_assert_geq(fd, 0);
	// Giving it away needs root (CAP_CHOWN); as another user the object
	// stays this user's and the message must say how to proceed instead.
	bool other = fchown(fd, 65534, 65534) == 0;
	close(fd);
	throng_export_def def = small_def(4);
	throng_feed* f = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_ERR_IO);
	const char* msg = throng_last_error();
	cr_assert_null(strstr(msg, "File exists"), "%s", msg);
	if (other) {
		cr_assert_not_null(strstr(msg, "belongs to another user (uid 65534)"), "%s", msg);
	} else {
		cr_assert_not_null(strstr(msg, "--shm-replace"), "%s", msg);
	}
	shm_unlink(name);
}

Test(feed, cli_refuses_a_name_in_use_and_bad_names)
{
	char name[64], args[256], out[4096], err[4096];
	snprintf(name, sizeof name, "throng_test_cli_excl_%d", (int)getpid());
	throng_export_def def = small_def(8);
	throng_feed* f = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_OK, "%s", throng_last_error());
	snprintf(args, sizeof args, "run circle --agents 20 --steps 3 --shm %s", name);
	int rc = thr_test_cli(args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 4, "exit %d, stderr: %s", rc, err);
	cr_assert(strstr(err, "--shm") != NULL && strstr(err, "already exists") != NULL, "%s", err);
	cr_assert_eq(agents_of(name), 8, "the refused run touched the feed in use");
	// --shm-replace takes it over; the run's end removes its own object.
	snprintf(args, sizeof args, "run circle --agents 20 --steps 3 --shm %s --shm-replace", name);
	rc = thr_test_cli(args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d, stderr: %s", rc, err);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);

	rc = thr_test_cli("run circle --agents 20 --steps 3 --shm ..", out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d, stderr: %s", rc, err);
	cr_assert(strstr(err, "--shm") != NULL && strstr(err, "not . or ..") != NULL && strstr(err, "File exists") == NULL,
	          "%s", err);
	rc = thr_test_cli("run circle --agents 20 --steps 3 --shm-replace", out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d, stderr: %s", rc, err);
	cr_assert_not_null(strstr(err, "--shm-replace: needs --shm NAME"), "%s", err);
}

/// --shm-capacity sizes `throng run`'s feed: concourse at 300 walkers
/// holds more than 300 from its first steps (its doors let people in), so
/// a feed of 300 or 320 stops the run (exit 4) naming that capacity and
/// the option, and the default (twice the start) takes it.
Test(feed, cli_shm_capacity_sizes_the_feed)
{
	char name[64], args[256], out[4096], err[4096];
	snprintf(name, sizeof name, "throng_test_cli_cap_%d", (int)getpid());
	static const unsigned caps[2] = {300, 320};
	for (int k = 0; k < 2; ++k) {
		snprintf(args, sizeof args, "run concourse --agents 300 --steps 200 --metrics off --shm %s --shm-capacity %u",
		         name, caps[k]);
		const int rc = thr_test_cli(args, out, sizeof out, err, sizeof err);
		char want[64];
		snprintf(want, sizeof want, "the feed's capacity of %u", caps[k]);
		cr_assert_eq(rc, 4, "exit %d, stderr: %s", rc, err);
		cr_assert(strstr(err, want) != NULL && strstr(err, "--shm-capacity N") != NULL, "%s", err);
		throng_feed_reader* r = NULL;
		cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND, "the stopped run left /%s", name);
	}
	snprintf(args, sizeof args, "run concourse --agents 300 --steps 200 --metrics off --shm %s", name);
	int rc = thr_test_cli(args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d, stderr: %s", rc, err);
	rc = thr_test_cli("run circle --agents 20 --steps 3 --shm-capacity 100", out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d, stderr: %s", rc, err);
	cr_assert_not_null(strstr(err, "--shm-capacity: needs --shm NAME"), "%s", err);
	snprintf(args, sizeof args, "run circle --agents 20 --steps 3 --shm %s --shm-capacity 0", name);
	rc = thr_test_cli(args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d, stderr: %s", rc, err);
	cr_assert_not_null(strstr(err, "--shm-capacity: expected an integer from 1 to"), "%s", err);
}

// ---------------------------------------------------------------------------
// Is the writer alive? (issue 30, defect 13) A writer that is killed
// leaves its feed "live" behind; the reader tells it from a slow one by
// the writer's pid and start time (same pid namespace) or by the
// heartbeat (another one).

/// A writable mapping of the feed `name`'s header (256 bytes).
static unsigned char* map_header(const char* name)
{
	int fd = shm_open(name, O_RDWR, 0);
	cr_assert_geq(fd, 0, "shm_open %s", name);
	unsigned char* b = mmap(NULL, 256, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	cr_assert_neq(b, MAP_FAILED);
	return b;
}

/// The writer state a fresh reader of `name` sees.
static throng_writer_state state_of(const char* name)
{
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	throng_writer_state s = throng_feed_writer_state(r);
	throng_feed_reader_destroy(r);
	return s;
}

/// A pid no process has now: a child's, reaped.
static uint32_t dead_pid(void)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return (uint32_t)pid;
}

Test(feed, a_writer_killed_before_finishing_is_gone)
{
	char name[64];
	snprintf(name, sizeof name, "/throng_test_gone_%d", (int)getpid());
	int ready[2], go[2];
	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(go), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		// The writer: creates, publishes two frames, says so, waits for
		// the word and dies without finishing, as a SIGKILL would leave it.
		throng_export_def def = small_def(16);
		def.fields = FIELDS_2_0;
		throng_feed* f = NULL;
		uint32_t id[16], a[8][16];
		if (throng_feed_create(name, &def, &f) != THRONG_OK) {
			_exit(3);
		}
		for (uint64_t i = 0; i < 2; ++i) {
			throng_view v = syn_view(i, 16, id, a);
			if (throng_feed_publish_view(f, &v) != THRONG_OK) {
				_exit(4);
			}
		}
		char c = 'r';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) {
			_exit(5);
		}
		_exit(0);
	}
	char c = 0;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_writer_pid(r), (uint32_t)pid);
	cr_assert_eq(throng_feed_writer_state(r), THRONG_WRITER_ALIVE, "a running writer is alive");
	cr_assert_eq(throng_feed_get_info(r)->version_major, 2);
	cr_assert_eq(throng_feed_get_info(r)->version_minor, 0);
	cr_assert_eq(read_index(r), 1);
	cr_assert_eq(read_index(r), -1);
	cr_assert_eq(throng_feed_writer_state(r), THRONG_WRITER_ALIVE, "no frame due is not a dead writer");

	cr_assert_eq(write(go[1], &c, 1), 1);
	// Until its parent reaps it the writer is a zombie: gone already.
	double t0 = now();
	while (throng_feed_writer_state(r) == THRONG_WRITER_ALIVE) {
		cr_assert_lt(now() - t0, 5.0, "the writer's end was not seen");
		struct timespec ms = {0, 1000000L};
		nanosleep(&ms, NULL);
	}
	cr_assert_eq(throng_feed_writer_state(r), THRONG_WRITER_GONE);
	cr_assert_not(throng_feed_finished(r), "a writer that did not finish did not finish");
	int status = 0;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
	cr_assert_eq(throng_feed_writer_state(r), THRONG_WRITER_GONE, "reaped: still gone");
	cr_assert_eq(read_index(r), -1);
	throng_feed_reader_destroy(r);

	// Its object is left behind; a new feed of that name says whose it was.
	throng_export_def def = small_def(4);
	throng_feed* f = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_ERR_IO);
	const char* msg = throng_last_error();
	char want[64];
	snprintf(want, sizeof want, "(its writer, pid %d, is gone: killed or crashed)", (int)pid);
	cr_assert(strstr(msg, want) != NULL && strstr(msg, "--shm-replace") != NULL, "%s", msg);
	cr_assert_eq(throng_feed_replace(name, &def, &f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "the replacement's writer is this process");
	cr_assert_eq(throng_feed_create(name, &def, &(throng_feed*){NULL}), THRONG_ERR_IO);
	snprintf(want, sizeof want, "(its writer, pid %d, is running)", (int)getpid());
	cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

Test(feed, the_writer_is_told_by_pid_and_start_time)
{
	throng_export_def def = small_def(4);
	char name[64];
	throng_feed* f = named_feed(name, "pid", &def);
	unsigned char* b = map_header(name);
	uint32_t pid = 0;
	uint64_t start = 0;
	memcpy(&pid, b + 84, 4);
	memcpy(&start, b + 160, 8);
	cr_assert_eq(pid, (uint32_t)getpid());
	cr_assert_neq(start, 0, "the writer's start time was not recorded");
	uint64_t ns = 0;
	memcpy(&ns, b + 168, 8);
	cr_assert_neq(ns, 0, "the writer's pid namespace was not recorded");
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE);

	// A pid that runs no more.
	uint32_t gone = dead_pid();
	memcpy(b + 84, &gone, 4);
	cr_assert_eq(state_of(name), THRONG_WRITER_GONE, "pid %u runs no more", gone);
	// A pid that runs, but is another process than the one that wrote
	// (its start time differs): a pid reused.
	memcpy(b + 84, &pid, 4);
	uint64_t other = start + 1;
	memcpy(b + 160, &other, 8);
	cr_assert_eq(state_of(name), THRONG_WRITER_GONE, "a reused pid");
	memcpy(b + 160, &start, 8);
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE);
	// A 1.x feed (an older throng's, whose slots hold no ids) is refused by
	// its version; creating over it still says whose it is: a 1.0 writer
	// (no start time, no namespace, no heartbeat) by its pid alone.
	uint16_t major = 1, minor = 0;
	memcpy(b + 8, &major, 2);
	memcpy(b + 10, &minor, 2);
	memcpy(b + 160, &other, 8);
	throng_feed_reader* old = NULL;
	cr_assert_eq(throng_feed_open(name, &old), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 8: feed version 1.0; this reader reads 2.x (written "
	                                               "by an older throng, whose slots hold no ids)"),
	                   "%s", throng_last_error());
	throng_feed* g = NULL;
	cr_assert_eq(throng_feed_create(name, &def, &g), THRONG_ERR_IO);
	char whose[96];
	snprintf(whose, sizeof whose, "its writer, pid %u, is running", pid);
	cr_assert_not_null(strstr(throng_last_error(), whose), "1.0: the start time is not read: %s", throng_last_error());
	memcpy(b + 84, &gone, 4);
	cr_assert_eq(throng_feed_create(name, &def, &g), THRONG_ERR_IO);
	cr_assert_not_null(strstr(throng_last_error(), "is gone"), "1.0: pid %u runs no more: %s", gone,
	                   throng_last_error());
	memcpy(b + 84, &pid, 4);
	memcpy(b + 160, &start, 8);
	major = 2;
	memcpy(b + 8, &major, 2);

	// Finished is finished, whoever wrote it.
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
	cr_assert_eq(throng_feed_writer_state(r), THRONG_WRITER_FINISHED);
	cr_assert(throng_feed_finished(r));
	throng_feed_reader_destroy(r);
	munmap(b, 256);
	cr_assert_eq(throng_feed_writer_state(NULL), THRONG_WRITER_GONE);
	cr_assert_eq(throng_feed_writer_pid(NULL), 0);
}

Test(feed, writer_state_names)
{
	const char* names[] = {"alive", "finished", "gone"};
	for (int k = 0; k < 3; ++k) {
		cr_assert_str_eq(throng_writer_state_name((throng_writer_state)k), names[k]);
		throng_writer_state s = THRONG_WRITER_GONE;
		cr_assert(throng_writer_state_from_name(names[k], &s));
		cr_assert_eq(s, (throng_writer_state)k);
	}
	cr_assert_eq(THRONG_WRITER_ALIVE, 0);
	cr_assert_eq(THRONG_WRITER_GONE, 2);
	cr_assert_null(throng_writer_state_name((throng_writer_state)3));
	cr_assert_not(throng_writer_state_from_name("dead", NULL));
	cr_assert_not(throng_writer_state_from_name(NULL, NULL));
	cr_assert(throng_writer_state_from_name("gone", NULL));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

Test(feed, from_another_pid_namespace_the_heartbeat_decides)
{
	throng_export_def def = small_def(4);
	def.fields = THRONG_FIELD_X | THRONG_FIELD_Y;
	char name[64];
	throng_feed* f = named_feed(name, "beat", &def);
	unsigned char* b = map_header(name);
	_Atomic uint64_t* beat = (_Atomic uint64_t*)(void*)(b + 208);
	uint64_t t = atomic_load(beat), now_t = mono_ns();
	cr_assert(t != 0 && t <= now_t && now_t - t < 60000000000ull, "heartbeat %llu, now %llu", (unsigned long long)t,
	          (unsigned long long)now_t);
	// Another namespace (the inode of none), and a pid that would say gone:
	// the pid is not looked at, the heartbeat is.
	uint64_t ns = 1;
	uint32_t gone = dead_pid();
	memcpy(b + 168, &ns, 8);
	memcpy(b + 84, &gone, 4);
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "a fresh heartbeat");
	const uint64_t limit = (uint64_t)THRONG_FEED_HEARTBEAT_LIMIT_MS * 1000000u;
	if (now_t > limit + 2000000000u) { // a machine up for longer than the limit
		atomic_store(beat, now_t - limit - 1000000000u);
		cr_assert_eq(state_of(name), THRONG_WRITER_GONE, "a heartbeat older than the limit");
		atomic_store(beat, now_t - limit + 5000000000u);
		cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "a heartbeat within the limit");
	}
	atomic_store(beat, 1);
	cr_assert_eq(state_of(name), THRONG_WRITER_GONE);
	// Every publish call beats, due or not, and so does throng_feed_heartbeat.
	uint32_t id[4] = {0, 1, 2, 3};
	float x[4] = {0}, y[4] = {0};
	throng_view v = {.count = 4, .step = 0, .id = id, .x = x, .y = y};
	cr_assert_eq(throng_feed_publish_view(f, &v), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "publish beats");
	atomic_store(beat, 1);
	cr_assert_eq(throng_feed_publish_view(f, &v), THRONG_OK, "%s", throng_last_error()); // step 0 again: not due
	cr_assert_eq(throng_feed_frames(f), 1);
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "a publish that is not due beats too");
	atomic_store(beat, 1);
	cr_assert_eq(throng_feed_heartbeat(f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE, "throng_feed_heartbeat beats");
	// A heartbeat of 0 (unknown) judges nothing.
	atomic_store(beat, 0);
	cr_assert_eq(state_of(name), THRONG_WRITER_ALIVE);
	munmap(b, 256);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_heartbeat(f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_feed_heartbeat(NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_feed_destroy(f);
}

/// A damage to a feed's header and what throng_feed_open must say.
typedef struct feed_damage {
	const char* name;
	size_t at;
	int width; ///< 2, 4 or 8 bytes, host order
	uint64_t value;
	size_t offset; ///< the byte offset the message names
	const char* words;
} feed_damage;

Test(feed, every_header_field_is_checked)
{
	throng_export_def def = small_def(16);
	def.fields = FIELDS_2_0;
	char name[64];
	throng_feed* f = named_feed(name, "hdr", &def);
	unsigned char* b = map_header(name);
	unsigned char orig[256];
	memcpy(orig, b, 256);
	double nan_v = NAN, inf_v = INFINITY, neg = -1.0;
	uint64_t nan64, inf64, neg64;
	memcpy(&nan64, &nan_v, 8);
	memcpy(&inf64, &inf_v, 8);
	memcpy(&neg64, &neg, 8);
	const uint64_t stride = 64, slot = 64 + 9 * stride; // a capacity of 16: 64 bytes an array, the ids and 8 fields
	const feed_damage table[] = {
		{"magic", 1, 2, 0x5858, 0, "not a throng feed"},
		{"version 3", 8, 2, 3, 8, "feed version 3.0; this reader reads 2.x (a newer layout)"},
		{"version 1", 8, 2, 1, 8, "feed version 1.0; this reader reads 2.x (written by an older throng"},
		{"byte order", 12, 4, 0x04030201u, 12, "written in another byte order"},
		{"header size", 16, 4, 512, 16, "header size 512, expected 256"},
		{"slot count", 20, 4, 3, 20, "slot count 3, expected 2"},
		{"agents 0", 24, 4, 0, 24, "agent count is 0"},
		{"field mask 0", 28, 4, 0, 28, "field mask is 0"},
		{"field count", 80, 4, 7, 80, "field count 7 does not match the field mask 0x000000ff (8 bits)"},
		{"slot size over the cap", 32, 8, (1ull << 31) + 64, 32, "slot size 2147483712 is larger than this reader accepts"},
		{"slot size off", 32, 8, slot + 64, 32, "slot size 704, but the ids and 8 fields of 64 bytes make 640"},
		{"dt 0", 40, 8, 0, 40, "dt 0 is not a positive number of seconds"},
		{"dt -1", 40, 8, neg64, 40, "dt -1 is not a positive number"},
		{"dt inf", 40, 8, inf64, 40, "dt inf is not a positive number"},
		{"dt nan", 40, 8, nan64, 40, "is not a positive number"},
		{"every 0", 48, 4, 0, 48, "frame stride (every) is 0"},
		{"bounds mode 9", 52, 4, 9, 52, "bounds mode 9 is not 0 to 3"},
		{"bounds mode 4", 52, 4, 4, 52, "bounds mode 4 is not 0 to 3"},
		{"min x nan", 56, 4, 0x7fc00000u, 56, "world bounds are not finite (min x is nan)"},
		{"max y inf", 68, 4, 0x7f800000u, 56, "(max y is inf)"},
		{"array stride", 88, 8, 128, 88, "array stride 128, but a capacity of 16 agents makes 64"},
		{"more agents than the object holds", 24, 4, 1000, 88, "array stride 64, but a capacity of 1000 agents makes 4032"},
		{"writer pid 0", 84, 4, 0, 84, "writer pid 0 is not a process id"},
		{"writer pid -1", 84, 4, 0xffffffffu, 84, "writer pid 4294967295 is not a process id"},
		{"state 7", 200, 4, 7, 200, "state 7 is not 0 (setting up), 1 (live) or 2 (finished)"},
		{"state 3", 200, 4, 3, 200, "state 3 is not"},
	};
	for (size_t d = 0; d < sizeof table / sizeof table[0]; ++d) {
		const feed_damage* t = &table[d];
		memcpy(b, orig, 256);
		memcpy(b + t->at, &t->value, (size_t)t->width); // little-endian: the low bytes
		throng_feed_reader* r = NULL;
		throng_status st = throng_feed_open(name, &r);
		const char* msg = throng_last_error();
		char want[64];
		snprintf(want, sizeof want, "byte offset %zu: ", t->offset);
		cr_assert_eq(st, THRONG_ERR_CORRUPT, "%s: status %d, %s", t->name, (int)st, msg);
		cr_assert_null(r, "%s", t->name);
		cr_assert(strstr(msg, want) != NULL && strstr(msg, t->words) != NULL, "%s: %s", t->name, msg);
	}
	// Agents that, with a consistent stride and slot, need more than the object has.
	memcpy(b, orig, 256);
	uint32_t agents = 1000;
	uint64_t big_stride = 4032, big_slot = 64 + 9 * big_stride;
	memcpy(b + 24, &agents, 4);
	memcpy(b + 88, &big_stride, 8);
	memcpy(b + 32, &big_slot, 8);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 32: slot size 36352: the header and two slots need 72960 bytes, the object has 1536"),
	                   "%s", throng_last_error());
	// A name without its NUL.
	memcpy(b, orig, 256);
	memset(b + 96, 'n', 64);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_CORRUPT);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 96: scenario name is not NUL-terminated"), "%s",
	                   throng_last_error());
	// Accepted: a later minor version, reserved bytes, another scenario name.
	memcpy(b, orig, 256);
	uint16_t minor = 9;
	memcpy(b + 10, &minor, 2);
	memset(b + 176, 0xee, 16);
	memset(b + 216, 0xee, 40);
	memcpy(b + 96, "crowd", 6);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_get_info(r)->version_minor, 9);
	cr_assert_str_eq(throng_feed_get_info(r)->scenario, "crowd");
	throng_feed_reader_destroy(r);
	memcpy(b, orig, 256);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	throng_feed_reader_destroy(r);
	munmap(b, 256);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
}

Test(feed, an_object_smaller_than_a_header_is_refused)
{
	char name[64];
	snprintf(name, sizeof name, "/throng_test_tiny_%d", (int)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND, "size 0: the writer is setting it up");
	unsigned char head[100] = {0};
	memcpy(head, "\x89THRFEED", 8);
	cr_assert_eq(write(fd, head, sizeof head), (ssize_t)sizeof head);
	close(fd);
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_CORRUPT);
	cr_assert_null(r);
	cr_assert_not_null(strstr(throng_last_error(), "byte offset 100: the object ends inside the 256-byte header"), "%s",
	                   throng_last_error());
	shm_unlink(name);
}

Test(feed, non_finite_coordinates_are_refused_frame_by_frame)
{
	throng_export_def def = small_def(16);
	def.fields = FIELDS_2_0;
	char name[64];
	throng_feed* f = named_feed(name, "nan", &def);
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_OK, "%s", throng_last_error());
	const uint32_t bad[] = {0x7fc00000u, 0x7f800000u, 0xff800000u};
	const char* shown[] = {"nan", "inf", "-inf"};
	uint32_t id[16], a[8][16];
	uint64_t step = 0;
	for (int field = 0; field < 6; ++field) {
		for (int v = 0; v < 3; ++v, ++step) {
			throng_view view = syn_view(step, 16, id, a);
			// Storage slot k holds agent 15 - k: agent 5 is slot 10.
			a[field][10] = bad[v];
			cr_assert_eq(throng_feed_publish_view(f, &view), THRONG_OK, "%s", throng_last_error());
			throng_frame fr;
			bool got = true;
			cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_ERR_CORRUPT, "%s %s", throng_field_name(1u << field),
			             shown[v]);
			cr_assert_not(got);
			// Slot step % 2, at 256 + s * (64 + 9 * 64); the ids at 64, field
			// j's array at 64 + (j + 1) * 64.
			char want[160];
			snprintf(want, sizeof want, "byte offset %llu: frame %llu: agent 5's %s is %s",
			         (unsigned long long)(256 + (step % 2) * 640 + 64 + (uint64_t)(field + 1) * 64 + 5 * 4),
			         (unsigned long long)step, throng_field_name(1u << field), shown[v]);
			cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
			cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "the refused frame is not offered again");
			cr_assert_not(got);
		}
	}
	// The next whole frame reads, and integer fields take any bits.
	throng_view view = syn_view(step, 16, id, a);
	a[6][3] = 0x7fc00000u;
	a[7][4] = 0xffffffffu;
	cr_assert_eq(throng_feed_publish_view(f, &view), THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = false;
	cr_assert_eq(throng_feed_read(r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert(got);
	cr_assert_eq(fr.group[15 - 3], 0x7fc00000u);
	throng_feed_reader_destroy(r);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
}

Test(feed, a_feed_readers_would_refuse_is_not_created)
{
	throng_export_def def = small_def(1u << 28); // 2^28 agents, x and y: 2 GiB slots and more
	def.fields = FIELDS_2_0;
	throng_feed* f = NULL;
	char name[64];
	snprintf(name, sizeof name, "/throng_test_cap_%d", (int)getpid());
	cr_assert_eq(throng_feed_create(name, &def, &f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(f);
	cr_assert_not_null(strstr(throng_last_error(), "readers accept at most 2147483648"), "%s", throng_last_error());
	throng_feed_reader* r = NULL;
	cr_assert_eq(throng_feed_open(name, &r), THRONG_ERR_NOT_FOUND, "nothing was created");
}

// ---------------------------------------------------------------------------
// Agents that come and go (issue 33): a churned run published frame by
// frame reads back as the world had it (count, ids, fields); a frame of
// more agents than the capacity is refused by the writer, naming it, and a
// slot claiming more is refused by the reader, naming the count's offset.

typedef struct churn_feed {
	throng_feed* feed;
	throng_feed_reader* r;
	uint32_t frames;
	uint32_t* got_count;
	uint32_t (*got_id)[64];
	float (*got_x)[64];
} churn_feed;

static void publish_and_read(void* user, const throng_world* w)
{
	churn_feed* c = user;
	cr_assert_eq(throng_feed_publish(c->feed, w), THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = false;
	cr_assert_eq(throng_feed_read(c->r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert(got, "frame %u was not read", c->frames);
	cr_assert_eq(fr.index, c->frames);
	cr_assert_leq(fr.count, 64u);
	c->got_count[c->frames] = fr.count;
	memcpy(c->got_id[c->frames], fr.id, 4u * fr.count);
	memcpy(c->got_x[c->frames], fr.x, 4u * fr.count);
	c->frames += 1;
}

Test(feed, a_churned_run_reads_back_by_id)
{
	char name[64];
	snprintf(name, sizeof name, "/throng_test_churn_%d", (int)getpid());
	throng_scene* scene = thr_test_scene("circle", 40, THRONG_ENGINE_SIMD);
	throng_export_def def = throng_export_default_def();
	def.world = throng_scene_world(scene);
	def.capacity = 64;
	churn_feed c = {0};
	static uint32_t counts[THR_TEST_CHURN_FRAMES], ids[THR_TEST_CHURN_FRAMES][64];
	static float xs[THR_TEST_CHURN_FRAMES][64];
	c.got_count = counts;
	c.got_id = ids;
	c.got_x = xs;
	cr_assert_eq(throng_feed_create(name, &def, &c.feed), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_open(name, &c.r), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_feed_get_info(c.r)->agents, 64, "the header's agents: the capacity");
	thr_test_churn_truth t;
	thr_test_churned_run(scene, publish_and_read, &c, &t);
	cr_assert_eq(c.frames, t.frames);
	for (uint32_t f = 0; f < t.frames; ++f) {
		const thr_test_frame_truth* w = &t.frame[f];
		cr_assert_eq(counts[f], w->count, "frame %u: %u agents, the world had %u", f, counts[f], w->count);
		cr_assert(w->count == 0 || (memcmp(ids[f], w->id, 4u * w->count) == 0 &&
		                            memcmp(xs[f], w->field[0], 4u * w->count) == 0),
		          "frame %u: other ids or positions", f);
	}
	cr_assert_eq(t.frame[11].count, 0u);

	// One more agent than the capacity: refused, the feed as it was.
	static uint32_t vid[65];
	static float vx[65], vy[65], vh[65];
	for (uint32_t k = 0; k < 65; ++k) {
		vid[k] = 1000u + k;
		vh[k] = 1.0f;
	}
	throng_view v = {.count = 65, .step = t.frame[t.frames - 1].step + 1, .id = vid, .x = vx, .y = vy, .hx = vh,
	                 .hy = vy};
	cr_assert_eq(throng_feed_publish_view(c.feed, &v), THRONG_ERR_CAPACITY);
	cr_assert_not_null(strstr(throng_last_error(), "the view has 65 agents, more than the feed's capacity of 64"), "%s",
	                   throng_last_error());
	cr_assert_eq(throng_feed_frames(c.feed), t.frames, "nothing was published");
	v.count = 64; // a frame that fits is published
	cr_assert_eq(throng_feed_publish_view(c.feed, &v), THRONG_OK, "%s", throng_last_error());
	throng_frame fr;
	bool got = false;
	cr_assert_eq(throng_feed_read(c.r, &fr, &got), THRONG_OK, "%s", throng_last_error());
	cr_assert(got && fr.count == 64 && fr.id[0] == 1000u && fr.id[63] == 1063u, "the full frame");

	// A slot that claims more agents than the capacity, or ids that do
	// not increase: refused, naming where.
	size_t mapped = 0;
	unsigned char* base = map_writable(name, &mapped);
	uint64_t slot_bytes = 0;
	memcpy(&slot_bytes, base + 32, 8);
	v.count = 10;
	v.step += 1;
	cr_assert_eq(throng_feed_publish_view(c.feed, &v), THRONG_OK, "%s", throng_last_error());
	const uint64_t index = throng_feed_frames(c.feed) - 1u, slot = 256u + (index % 2u) * slot_bytes;
	uint32_t too_many = 65;
	memcpy(base + slot + 32, &too_many, 4);
	cr_assert_eq(throng_feed_read(c.r, &fr, &got), THRONG_ERR_CORRUPT);
	char want[160];
	snprintf(want, sizeof want, "byte offset %llu: frame %llu holds 65 agents, more than the feed's capacity of 64",
	         (unsigned long long)(slot + 32), (unsigned long long)index);
	cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
	v.step += 1;
	cr_assert_eq(throng_feed_publish_view(c.feed, &v), THRONG_OK, "%s", throng_last_error());
	const uint64_t next = (index + 1u) % 2u;
	uint32_t same = 1003;
	memcpy(base + 256u + next * slot_bytes + 64 + 4 * 4, &same, 4); // ids 1000 1001 1002 1003 1003 ...
	cr_assert_eq(throng_feed_read(c.r, &fr, &got), THRONG_ERR_CORRUPT);
	snprintf(want, sizeof want, "byte offset %llu: frame %llu: agent 4's id 1003 is not above the id before it, 1003",
	         (unsigned long long)(256u + next * slot_bytes + 64 + 16), (unsigned long long)(index + 1u));
	cr_assert_not_null(strstr(throng_last_error(), want), "%s", throng_last_error());
	munmap(base, mapped);

	thr_test_churn_truth_free(&t);
	throng_feed_reader_destroy(c.r);
	cr_assert_eq(throng_feed_finish(c.feed), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(c.feed);
	throng_scene_destroy(scene);
}

Test(feed, the_default_capacity_is_twice_the_agents_and_at_least_1024)
{
	char name[64];
	throng_export_def def = small_def(3000);
	def.capacity = 0;
	throng_feed* f = named_feed(name, "cap2", &def);
	cr_assert_eq(agents_of(name), 6000);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
	def = small_def(0); // a run that begins empty
	def.capacity = 0;
	f = named_feed(name, "cap0", &def);
	cr_assert_eq(agents_of(name), 1024);
	cr_assert_eq(throng_feed_finish(f), THRONG_OK, "%s", throng_last_error());
	throng_feed_destroy(f);
	def = small_def(10);
	def.capacity = 5; // fewer than it begins with
	cr_assert_eq(throng_feed_create("/throng_test_cap5", &def, &f), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_not_null(strstr(throng_last_error(), "def.agents 10 is more than def.capacity 5"), "%s",
	                   throng_last_error());
}
