// SPDX-License-Identifier: MIT
// The agent store: allocation, reorder and release of every per-agent
// array (store.h has the design).
#define _DEFAULT_SOURCE // MAP_ANONYMOUS
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "memory.h"
#include "validate.h"
#include "world_internal.h"

// Where the per-agent arrays lie. Each used to be its own aligned_alloc,
// which above the mmap threshold is its own mapping, so all of them began
// at the same offset in a 4 KiB page: element k of every array fell in the
// same L1 set and the same 4 KiB alias class, and the reorder (40 arrays
// at one index) and the SIMD block pass (17 loads, 9 stores) evicted
// their own lines and waited on false store-to-load dependencies. Now the
// arrays come from one block per use, an odd number u of cache lines
// apart, so array j starts in line (j * u) mod 64 of a page: up to 64
// arrays, numbered on from the main block into the spares and the waypoint
// arrays, in 64 different lines (the recorded forces, larger, have a
// stride of their own). What the old layout cost the step, and
// bench/probe/reorder, which still shows it: docs/PERFORMANCE.md, "Known
// limits: where the time goes", item 6. Costs 4 KiB per block and at most
// 64 bytes per array; placement changes no value.
/// The stride between arrays of n elements of `size` bytes (see above).
static size_t array_stride(size_t n, size_t size)
{
	size_t stride = ((n + THR_LANES) * size + 63u) & ~(size_t)63u;
	return stride + ((stride / 64u) % 2u == 0 ? 64u : 0u);
}

/// Points arrays[j] into block, array 0 at page offset first * stride.
static void place_arrays(char* block, void** const arrays[], uint32_t count, size_t stride, uint32_t first)
{
	// Unsigned arithmetic modulo 4096: the lead puts array 0 at page offset
	// first * stride wherever the block landed (a multiple of 64).
	size_t lead = ((size_t)first * stride - (size_t)(uintptr_t)block) & 4095u;
	for (uint32_t j = 0; j < count; ++j) {
		*arrays[j] = block + lead + (size_t)j * stride;
	}
}

void* thr_alloc_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first)
{
	const size_t stride = array_stride(n, size);
	size_t bytes = stride * count + 4096u; // room to move array 0 to its line
	char* block = aligned_alloc(64, bytes);
	if (block == NULL) {
		return NULL;
	}
	thr_huge_pages(block, bytes);
	memset(block, 0, bytes);
	place_arrays(block, arrays, count, stride, first);
	return block;
}

void* thr_map_arrays(void** const arrays[], uint32_t count, size_t n, size_t size, uint32_t first, size_t* bytes)
{
	const size_t stride = array_stride(n, size);
	*bytes = stride * count + 4096u;
	// No huge pages asked for: a read of a page never written then maps
	// the kernel's zero page whatever the system's settings.
	char* block = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (block == MAP_FAILED) {
		return NULL;
	}
	place_arrays(block, arrays, count, stride, first);
	return block;
}

/// Unmaps a block of thr_map_arrays (NULL: nothing).
static void unmap_block(void* block, size_t bytes)
{
	if (block != NULL) {
		munmap(block, bytes);
	}
}

/// Addresses of the world's views of the single arrays, in store order.
static void single_views(throng_world* w, uint32_t** out[THR_SINGLE_ARRAYS])
{
	out[0] = &w->id;
	out[1] = (uint32_t**)&w->max_speed;
	out[2] = (uint32_t**)&w->max_force;
	out[3] = (uint32_t**)&w->radius;
	out[4] = &w->archetype;
	out[5] = &w->group;
	out[6] = &w->target_agent;
	out[7] = (uint32_t**)&w->tx;
	out[8] = (uint32_t**)&w->ty;
	out[9] = &w->path;
	out[10] = (uint32_t**)&w->health;
	out[11] = &w->ready;
	out[12] = &w->unit;
	out[THR_SINGLE_COMBAT_STATE] = &w->combat_state;
	out[THR_SINGLE_WANDER] = (uint32_t**)&w->wander;
	out[THR_SINGLE_NOISE] = (uint32_t**)&w->noise;
}

/// Whether single a, whose array is `array`, is moved with the agents:
/// all but those not made yet (path before the first path, unit before
/// the first unit, target_agent before the first target: NULL), combat's,
/// which only in a combat-live world, and group, only in a group-live one
/// (store.h).
static bool single_moves(const thr_store* s, int a, const uint32_t* array)
{
	return array != NULL &&
	       (s->combat_live || (a != THR_SINGLE_HEALTH && a != THR_SINGLE_READY && a != THR_SINGLE_COMBAT_STATE)) &&
	       (s->group_live || a != THR_SINGLE_GROUP);
}

/// Where the main block puts one set of arrays: both states, the singles
/// (in the views' order; combat's from the combat block) and, when forces
/// are recorded, the totals.
typedef struct main_arrays {
	thr_state buf[2];
	uint32_t* single[THR_SINGLE_ARRAYS];
	float *total_x, *total_y;
} main_arrays;

/// Maps a combat block of n agents into *m (combat_bytes gets its size);
/// NULL when out of memory.
static void* combat_block(main_arrays* m, size_t n, size_t* combat_bytes)
{
	uint32_t** sg = m->single;
	void** const arrays[THR_COMBAT_ARRAYS] = {(void**)&sg[THR_SINGLE_HEALTH], (void**)&sg[THR_SINGLE_READY],
	                                          (void**)&sg[THR_SINGLE_COMBAT_STATE]};
	return thr_map_arrays(arrays, THR_COMBAT_ARRAYS, n, 4, THR_COMBAT_FIRST_ARRAY, combat_bytes);
}

/// Maps a group block of n agents into *m (group_bytes gets its size);
/// NULL when out of memory.
static void* group_block(main_arrays* m, size_t n, size_t* group_bytes)
{
	void** const arrays[1] = {(void**)&m->single[THR_SINGLE_GROUP]};
	return thr_map_arrays(arrays, 1, n, 4, THR_GROUP_FIRST_ARRAY, group_bytes);
}

/// Allocates a main block of n agents into *m (group and combat's are
/// mapped blocks of their own); NULL when out of memory.
static void* main_block(main_arrays* m, size_t n, bool totals)
{
	thr_state* b0 = &m->buf[0];
	thr_state* b1 = &m->buf[1];
	uint32_t** sg = m->single;
	// The reorder reads one state and writes the other: both in the block.
	void** const arrays[THR_STORE_ARRAYS + 2] = {
		(void**)&b0->px, (void**)&b0->py, (void**)&b0->vx, (void**)&b0->vy, (void**)&b0->hx, (void**)&b0->hy,
		(void**)&b1->px, (void**)&b1->py, (void**)&b1->vx, (void**)&b1->vy, (void**)&b1->hx, (void**)&b1->hy,
		(void**)&sg[0], (void**)&sg[1], (void**)&sg[2], (void**)&sg[3], (void**)&sg[4],
		(void**)&sg[7], (void**)&sg[8], (void**)&sg[THR_SINGLE_WANDER], (void**)&sg[THR_SINGLE_NOISE],
		(void**)&m->total_x, (void**)&m->total_y};
	return thr_alloc_arrays(arrays, THR_STORE_ARRAYS + (totals ? 2u : 0u), n, 4, 0);
}

/// Points the store's states (but their waypoints) and the world's views
/// (but target_agent, path and unit) at m.
static void bind_main(throng_world* w, const main_arrays* m)
{
	thr_store* s = &w->store;
	uint32_t* const wp[2] = {s->buf[0].waypoint, s->buf[1].waypoint};
	s->buf[0] = m->buf[0];
	s->buf[1] = m->buf[1];
	s->buf[0].waypoint = wp[0];
	s->buf[1].waypoint = wp[1];
	uint32_t** views[THR_SINGLE_ARRAYS];
	single_views(w, views);
	for (int a = 0; a < THR_SINGLE_ARRAYS; ++a) {
		if (a != THR_SINGLE_PATH && a != THR_SINGLE_UNIT && a != THR_SINGLE_TARGET) { // (their own blocks')
			*views[a] = m->single[a];
		}
	}
	w->total_x = m->total_x;
	w->total_y = m->total_y;
}

int thr_store_create(throng_world* w)
{
	thr_store* s = &w->store;
	size_t n = w->capacity;
	main_arrays m;
	memset(&m, 0, sizeof m);
	s->block = main_block(&m, n, w->def.record_forces);
	if (s->block == NULL) {
		return -1;
	}
	s->combat_block = combat_block(&m, n, &s->combat_bytes);
	if (s->combat_block == NULL) {
		return -1;
	}
	s->group_block = group_block(&m, n, &s->group_bytes);
	if (s->group_block == NULL) {
		return -1;
	}
	bind_main(w, &m);
	w->path = NULL; // until the first path (thr_store_reserve_waypoints)
	w->unit = NULL; // until the first unit (thr_store_reserve_units)
	w->target_agent = NULL; // until the first target agent (thr_store_reserve_targets)
	if (w->def.record_forces) {
		void** const forces[2] = {(void**)&w->force_x, (void**)&w->force_y};
		s->force_block = thr_alloc_arrays(forces, 2, n * THRONG_MAX_SLOTS, sizeof(float), THR_FORCE_FIRST_ARRAY);
		if (s->force_block == NULL) {
			return -1;
		}
	}
	return thr_store_reserve_ids(w, w->capacity);
}

int thr_store_reserve_ids(throng_world* w, uint64_t id_end)
{
	thr_store* s = &w->store;
	if (id_end <= s->ids_cap) {
		return 0;
	}
	uint64_t cap = s->ids_cap > 0 ? 2u * (uint64_t)s->ids_cap : 1024u;
	cap = cap < id_end ? id_end : cap;
	cap = cap > UINT32_MAX ? UINT32_MAX : cap;
	uint32_t* p = realloc(s->slot_of, (size_t)cap * sizeof *p);
	if (p == NULL) {
		return -1;
	}
	memset(p + s->ids_cap, 0xff, (size_t)(cap - s->ids_cap) * sizeof *p); // THR_NO_SLOT
	s->slot_of = p;
	s->ids_cap = (uint32_t)cap;
	if (w->part == NULL) {
		w->slot_of = p;
	}
	return 0;
}

int thr_store_grow(throng_world* w, uint32_t need)
{
	thr_store* s = &w->store;
	const uint64_t most = (uint64_t)(THR_MAX_CAPACITY + THR_LANES - 1u) / THR_LANES * THR_LANES;
	if (need <= w->capacity) {
		return 0;
	}
	if (need > most) {
		return -1;
	}
	uint64_t cap = 2u * (uint64_t)w->capacity;
	cap = cap < need ? need : cap;
	cap = (cap + THR_LANES - 1u) / THR_LANES * THR_LANES;
	cap = cap > most ? most : cap;
	const size_t n = (size_t)cap;
	main_arrays m;
	memset(&m, 0, sizeof m);
	void* block = main_block(&m, n, w->def.record_forces);
	size_t combat_bytes = 0;
	void* combat = block != NULL ? combat_block(&m, n, &combat_bytes) : NULL;
	size_t group_bytes = 0;
	void* group = combat != NULL ? group_block(&m, n, &group_bytes) : NULL;
	if (block != NULL && (combat == NULL || group == NULL)) {
		free(block); // (the mapped blocks go below)
		block = NULL;
	}
	float *fx = NULL, *fy = NULL;
	void* force_block = NULL;
	if (block != NULL && w->def.record_forces) {
		void** const forces[2] = {(void**)&fx, (void**)&fy};
		force_block = thr_alloc_arrays(forces, 2, n * THRONG_MAX_SLOTS, sizeof(float), THR_FORCE_FIRST_ARRAY);
	}
	uint32_t* wp[2] = {NULL, NULL};
	void* waypoint_block = NULL;
	if (block != NULL && s->waypoint_block != NULL) {
		void** const arrays[3] = {(void**)&wp[0], (void**)&wp[1], (void**)&m.single[THR_SINGLE_PATH]};
		waypoint_block = thr_alloc_arrays(arrays, 3, n, sizeof(uint32_t), THR_WAYPOINT_FIRST_ARRAY);
	}
	void* unit_block = NULL;
	if (block != NULL && s->unit_block != NULL) {
		void** const arrays[1] = {(void**)&m.single[THR_SINGLE_UNIT]};
		unit_block = thr_alloc_arrays(arrays, 1, n, sizeof(uint32_t), THR_UNIT_FIRST_ARRAY);
	}
	void* target_block = NULL;
	if (block != NULL && s->target_block != NULL) {
		void** const arrays[1] = {(void**)&m.single[THR_SINGLE_TARGET]};
		target_block = thr_alloc_arrays(arrays, 1, n, sizeof(uint32_t), THR_TARGET_FIRST_ARRAY);
	}
	// Room to keep the eight blocks this replaces, made before anything
	// changes, so that a failure leaves the world as it was.
	if (block != NULL && s->keep && s->kept_cap - s->kept_n < 8u) {
		const uint32_t room = s->kept_cap * 2u + 8u;
		thr_kept_block* kept = realloc(s->kept, (size_t)room * sizeof *kept);
		if (kept == NULL) {
			free(block);
			block = NULL;
		} else {
			s->kept = kept;
			s->kept_cap = room;
		}
	}
	if (block == NULL || (w->def.record_forces && force_block == NULL) ||
	    (s->waypoint_block != NULL && waypoint_block == NULL) || (s->unit_block != NULL && unit_block == NULL) ||
	    (s->target_block != NULL && target_block == NULL)) {
		free(block);
		unmap_block(combat, combat_bytes);
		unmap_block(group, group_bytes);
		free(force_block);
		free(waypoint_block);
		free(unit_block);
		free(target_block);
		return -1;
	}
	const size_t bytes = (size_t)w->count * 4u;
	for (int b = 0; b < 2; ++b) {
		const thr_state* from = &s->buf[b];
		thr_state* to = &m.buf[b];
		memcpy(to->px, from->px, bytes);
		memcpy(to->py, from->py, bytes);
		memcpy(to->vx, from->vx, bytes);
		memcpy(to->vy, from->vy, bytes);
		memcpy(to->hx, from->hx, bytes);
		memcpy(to->hy, from->hy, bytes);
		if (waypoint_block != NULL) {
			memcpy(wp[b], from->waypoint, bytes);
		}
	}
	uint32_t** views[THR_SINGLE_ARRAYS];
	single_views(w, views);
	for (int a = 0; a < THR_SINGLE_ARRAYS; ++a) {
		if (single_moves(s, a, *views[a])) { // (combat's and group stay untouched, all 0, until live)
			memcpy(m.single[a], *views[a], bytes);
		}
	}
	if (w->def.record_forces) {
		memcpy(m.total_x, w->total_x, bytes);
		memcpy(m.total_y, w->total_y, bytes);
		for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
			memcpy(fx + (size_t)k * n, w->force_x + thr_force_index(w, k, 0), bytes);
			memcpy(fy + (size_t)k * n, w->force_y + thr_force_index(w, k, 0), bytes);
		}
	}
	// The old singles may lie in the spare block (a reorder swaps them in):
	// both go, and the next step makes new spares. Kept instead of freed
	// while a caller holds views (throng_world_keep_replaced_arrays).
	// The combat and group blocks, mapped, are the last.
	void* const replaced[8] = {s->block,         s->spare_block,  s->force_block,  s->waypoint_block,
	                           s->unit_block,    s->target_block, s->combat_block, s->group_block};
	for (int b = 0; b < 8; ++b) {
		const size_t mapped = b == 6 ? s->combat_bytes : b == 7 ? s->group_bytes : 0u;
		if (s->keep && replaced[b] != NULL) {
			s->kept[s->kept_n++] = (thr_kept_block){replaced[b], mapped};
		} else if (mapped > 0u) {
			unmap_block(replaced[b], mapped);
		} else {
			free(replaced[b]);
		}
	}
	s->block = block;
	s->combat_block = combat;
	s->combat_bytes = combat_bytes;
	s->group_block = group;
	s->group_bytes = group_bytes;
	s->spare_block = NULL;
	memset(s->spare, 0, sizeof s->spare);
	s->force_block = force_block;
	s->waypoint_block = waypoint_block;
	s->unit_block = unit_block;
	s->target_block = target_block;
	bind_main(w, &m);
	s->buf[0].waypoint = wp[0];
	s->buf[1].waypoint = wp[1];
	w->path = m.single[THR_SINGLE_PATH];
	w->unit = m.single[THR_SINGLE_UNIT];
	w->target_agent = m.single[THR_SINGLE_TARGET];
	w->force_x = fx;
	w->force_y = fy;
	w->capacity = (uint32_t)cap;
	return 0;
}

/// Most arrays agent_arrays lists: two states of 7, the singles, the totals.
#define THR_AGENT_ARRAYS (14 + THR_SINGLE_ARRAYS + 2)

/// Every per-agent array that travels with an agent, as 32-bit words
/// (NULL: no waypoints, no recorded totals, no combat or group yet): both states (the other one is
/// the state the last step started from, which its record shows observers,
/// world_internal.h), the singles and the recorded totals; returns how many.
static int agent_arrays(throng_world* w, uint32_t* out[THR_AGENT_ARRAYS])
{
	thr_state* st = &w->store.buf[w->store.cur];
	thr_state* pr = &w->store.buf[w->store.cur ^ 1];
	uint32_t* const arrays[THR_AGENT_ARRAYS] = {
		(uint32_t*)st->px, (uint32_t*)st->py, (uint32_t*)st->vx, (uint32_t*)st->vy, (uint32_t*)st->hx,
		(uint32_t*)st->hy, st->waypoint, (uint32_t*)pr->px, (uint32_t*)pr->py, (uint32_t*)pr->vx,
		(uint32_t*)pr->vy, (uint32_t*)pr->hx, (uint32_t*)pr->hy, pr->waypoint, w->id, (uint32_t*)w->max_speed,
		(uint32_t*)w->max_force, (uint32_t*)w->radius, w->archetype, w->store.group_live ? w->group : NULL,
		w->target_agent, w->path,
		(uint32_t*)w->tx, (uint32_t*)w->ty, w->unit, (uint32_t*)w->wander, (uint32_t*)w->noise,
		(uint32_t*)w->total_x, (uint32_t*)w->total_y,
		// Combat's, in a combat-live world only (store.h).
		w->store.combat_live ? (uint32_t*)w->health : NULL, w->store.combat_live ? w->ready : NULL,
		w->store.combat_live ? w->combat_state : NULL};
	int n = 0;
	for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a) {
		if (arrays[a] != NULL) {
			out[n++] = arrays[a];
		}
	}
	return n;
}

/// Moves the agents of slots from[j] to slots at[j], j < n, through every
/// array (from[j] >= at[j], and no slot is read after it was written).
static void move_slots(throng_world* w, const uint32_t* at, const uint32_t* from, uint32_t n)
{
	uint32_t* arrays[THR_AGENT_ARRAYS];
	const int na = agent_arrays(w, arrays);
	for (int a = 0; a < na; ++a) {
		uint32_t* x = arrays[a];
		for (uint32_t j = 0; j < n; ++j) {
			x[at[j]] = x[from[j]];
		}
	}
	if (w->def.record_forces) {
		for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
			float* fx = w->force_x + thr_force_index(w, k, 0);
			float* fy = w->force_y + thr_force_index(w, k, 0);
			for (uint32_t j = 0; j < n; ++j) {
				fx[at[j]] = fx[from[j]];
				fy[at[j]] = fy[from[j]];
			}
		}
	}
	for (uint32_t j = 0; j < n; ++j) {
		w->slot_of[w->id[at[j]]] = at[j];
	}
}

uint32_t thr_store_remove(throng_world* w, const uint8_t* dead, uint32_t first, bool keep_order, uint32_t* scratch)
{
	const uint32_t count = w->count;
	uint32_t removed = 0;
	for (uint32_t k = first; k < count; ++k) {
		if (dead[k] != 0) {
			w->slot_of[w->id[k]] = THR_NO_SLOT;
			removed++;
		}
	}
	const uint32_t left = count - removed;
	uint32_t* at = scratch;
	uint32_t* from = scratch + count;
	uint32_t n = 0;
	if (keep_order) {
		// Every live agent after the first hole moves down: at[j] = first + j.
		for (uint32_t k = first; k < count; ++k) {
			if (dead[k] == 0) {
				at[n] = first + n;
				from[n++] = k;
			}
		}
	} else {
		// The live agents at the end fill the holes below `left`, the last
		// into the lowest: a function of the set removed alone.
		uint32_t tail = count;
		for (uint32_t h = first; h < left; ++h) {
			if (dead[h] == 0) {
				continue;
			}
			do {
				--tail;
			} while (dead[tail] != 0);
			at[n] = h;
			from[n++] = tail;
		}
	}
	move_slots(w, at, from, n);
	return left;
}

void thr_store_free(throng_world* w)
{
	thr_store* s = &w->store;
	free(s->block);
	free(s->spare_block);
	free(s->waypoint_block);
	free(s->unit_block);
	free(s->target_block);
	free(s->force_block);
	unmap_block(s->combat_block, s->combat_bytes);
	unmap_block(s->group_block, s->group_bytes);
	free(s->slot_of);
	thr_store_free_kept(s);
	free(s->kept);
	memset(s, 0, sizeof *s);
}

void thr_store_free_kept(thr_store* s)
{
	for (uint32_t b = 0; b < s->kept_n; ++b) {
		if (s->kept[b].mapped > 0u) {
			unmap_block(s->kept[b].p, s->kept[b].mapped);
		} else {
			free(s->kept[b].p);
		}
	}
	s->kept_n = 0;
}

int thr_store_reserve_spares(throng_world* w)
{
	thr_store* s = &w->store;
	if (s->spare_block != NULL) {
		return 0;
	}
	void** arrays[THR_SPARES];
	for (int a = 0; a < THR_SPARES; ++a) {
		arrays[a] = (void**)&s->spare[a];
	}
	// The spares continue the main block's page lines.
	s->spare_block = thr_alloc_arrays(arrays, THR_SPARES, w->capacity, sizeof(uint32_t), THR_SPARE_FIRST_ARRAY);
	return s->spare_block == NULL ? -1 : 0;
}

int thr_store_reserve_waypoints(throng_world* w)
{
	thr_store* s = &w->store;
	if (s->waypoint_block != NULL) {
		return 0;
	}
	uint32_t *wp[2], *path;
	void** const arrays[3] = {(void**)&wp[0], (void**)&wp[1], (void**)&path};
	s->waypoint_block = thr_alloc_arrays(arrays, 3, w->capacity, sizeof(uint32_t), THR_WAYPOINT_FIRST_ARRAY);
	if (s->waypoint_block == NULL) {
		return -1;
	}
	_Static_assert(THRONG_NO_PATH == UINT32_MAX, "a path column of 0xff bytes");
	memset(path, 0xff, (size_t)w->capacity * sizeof *path);
	s->buf[0].waypoint = wp[0];
	s->buf[1].waypoint = wp[1];
	w->path = path;
	return 0;
}

/// Makes a column of its own (block *block, page line `first`) of
/// w->capacity entries of 0xff bytes into *view, once. Returns -1 when out
/// of memory, changing nothing.
static int reserve_column(throng_world* w, void** block, uint32_t** view, uint32_t first)
{
	if (*block != NULL) {
		return 0;
	}
	uint32_t* column;
	void** const arrays[1] = {(void**)&column};
	void* made = thr_alloc_arrays(arrays, 1, w->capacity, sizeof(uint32_t), first);
	if (made == NULL) {
		return -1;
	}
	memset(column, 0xff, (size_t)w->capacity * sizeof *column);
	*block = made;
	*view = column;
	return 0;
}

int thr_store_reserve_units(throng_world* w)
{
	_Static_assert(THRONG_NO_UNIT == UINT32_MAX, "a unit column of 0xff bytes");
	return reserve_column(w, &w->store.unit_block, &w->unit, THR_UNIT_FIRST_ARRAY);
}

int thr_store_reserve_targets(throng_world* w)
{
	_Static_assert(THRONG_NO_AGENT == UINT32_MAX, "a target_agent column of 0xff bytes");
	return reserve_column(w, &w->store.target_block, &w->target_agent, THR_TARGET_FIRST_ARRAY);
}

int thr_store_reorder(throng_world* w, const uint32_t* perm, int threads)
{
	thr_store* s = &w->store;
	const thr_state* src = &s->buf[s->cur];
	thr_state* dst = &s->buf[s->cur ^ 1];
	const float* const sf[6] = {src->px, src->py, src->vx, src->vy, src->hx, src->hy};
	float* const df[6] = {dst->px, dst->py, dst->vx, dst->vy, dst->hx, dst->hy};
	const uint32_t* swp = src->waypoint;
	uint32_t* dwp = dst->waypoint;
	uint32_t** views[THR_SINGLE_ARRAYS];
	single_views(w, views);
	uint32_t* slot_of = w->slot_of;
	const int64_t count = w->count;
	(void)threads;
	// The state by ranges of slots on every thread; then, with no barrier
	// between (they share no array), the singles in THR_SPARES chains, a
	// thread each: chain c gathers singles c, c + THR_SPARES, ... each into
	// the chain's spare, which becomes the single, whose old array is the
	// spare for the next. Which thread runs a chain changes no value.
#pragma omp parallel num_threads(threads) if (count > THR_PARALLEL_MIN_AGENTS)
	{
#pragma omp for schedule(static) nowait
		for (int64_t k = 0; k < count; ++k) {
			if (k == 0) {
				thr_note_team(w, THR_REGION_REORDER);
			}
			const uint32_t from = perm[k];
			for (int a = 0; a < 6; ++a) {
				df[a][k] = sf[a][from];
			}
		}
		if (dwp != NULL) {
#pragma omp for schedule(static) nowait
			for (int64_t k = 0; k < count; ++k) {
				dwp[k] = swp[perm[k]];
			}
		}
#pragma omp for schedule(static) nowait
		for (int c = 0; c < THR_SPARES; ++c) {
			uint32_t* into = s->spare[c];
			for (int a = c; a < THR_SINGLE_ARRAYS; a += THR_SPARES) {
				uint32_t* from = *views[a];
				if (a == THR_SINGLE_COMBAT_STATE || !single_moves(s, a, from)) {
					continue; // written anew after every reorder, absent, or all 0 (store.h)
				}
				for (int64_t k = 0; k < count; ++k) {
					into[k] = from[perm[k]];
				}
				if (a == 0) { // into is the new id array
					for (int64_t k = 0; k < count; ++k) {
						slot_of[into[k]] = (uint32_t)k;
					}
				}
				*views[a] = into;
				into = from;
			}
			s->spare[c] = into;
		}
	}
	return s->cur ^ 1;
}
