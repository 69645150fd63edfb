// SPDX-License-Identifier: MIT
// Part worlds that fight (core/combat.h, docs/DISTRIBUTED.md): a battle
// cut into strips of part worlds, stepped at once on threads that meet in
// the sync's reduce and share (what MPI_Allreduce and MPI_Allgatherv do
// between throng-mpi's ranks), steps every agent, every death and every
// missile in flight, and every unit's morale, to the whole world's bits.
#define _POSIX_C_SOURCE 200809L // pthread barriers
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "combat.h"
#include "part.h"
#include "support.h"
#include "units.h"
#include "throng/scenario_file.h"
#include "world_internal.h"

enum { PARTS = 3 };

/// The parts' meeting point over threads of one process.
typedef struct hub {
	pthread_barrier_t bar;
	unsigned char sums[PARTS][1024];
	const void* mine[PARTS];
	size_t bytes[PARTS];
} hub;

/// One part, stepped on a thread of its own.
typedef struct member {
	hub* h;
	uint32_t rank;
	throng_world* w;
	unsigned char* got; ///< what share returned last
	size_t got_cap;
	uint32_t shares;
	uint32_t blows_in; ///< blows on its own agents that other parts sent
	throng_status st;
} member;

static void hub_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)at;
	member* m = user;
	hub* h = m->h;
	const size_t size = op == THRONG_PART_SUM_U64 ? 8u : 4u;
	unsigned char out[1024];
	cr_assert_leq(count * size, sizeof out);
	memcpy(h->sums[m->rank], values, count * size);
	pthread_barrier_wait(&h->bar);
	for (uint32_t k = 0; k < count; ++k) {
		if (op == THRONG_PART_SUM_U64) {
			uint64_t sum = 0, v;
			for (uint32_t r = 0; r < PARTS; ++r) {
				memcpy(&v, h->sums[r] + 8u * k, 8);
				sum += v;
			}
			memcpy(out + 8u * k, &sum, 8);
		} else {
			float most = 0.0f, v;
			for (uint32_t r = 0; r < PARTS; ++r) {
				memcpy(&v, h->sums[r] + 4u * k, 4);
				most = r == 0 || v > most || v != v ? v : most;
			}
			memcpy(out + 4u * k, &most, 4);
		}
	}
	pthread_barrier_wait(&h->bar);
	memcpy(values, out, count * size);
}

/// Every other part's bytes, the last part's first (any order will do:
/// the step orders the strikes itself).
static const void* hub_share(void* user, throng_part_point at, const void* mine, size_t bytes, size_t* got)
{
	cr_assert_eq(at, THRONG_PART_COMBAT_STRIKES);
	member* m = user;
	hub* h = m->h;
	h->mine[m->rank] = mine;
	h->bytes[m->rank] = bytes;
	pthread_barrier_wait(&h->bar);
	size_t total = 0;
	for (uint32_t r = 0; r < PARTS; ++r) {
		total += r != m->rank ? h->bytes[r] : 0u;
	}
	if (total > m->got_cap) {
		m->got = realloc(m->got, total);
		m->got_cap = total;
		cr_assert_not_null(m->got);
	}
	size_t at_byte = 0;
	for (uint32_t r = PARTS; r-- > 0;) {
		if (r != m->rank && h->bytes[r] > 0) {
			memcpy(m->got + at_byte, h->mine[r], h->bytes[r]);
			at_byte += h->bytes[r];
		}
	}
	pthread_barrier_wait(&h->bar); // every part has read every other's
	for (size_t k = 0; k < total / sizeof(thr_strike); ++k) {
		thr_strike one;
		memcpy(&one, m->got + k * sizeof one, sizeof one);
		m->blows_in += one.kind == THR_STRIKE_HIT;
	}
	m->shares++;
	*got = total;
	return m->got;
}

static void* step_member(void* arg)
{
	member* m = arg;
	m->st = throng_world_step(m->w);
	return NULL;
}

/// Whether two missiles are the same, field by field (their padding is
/// not theirs: memcmp would read it).
static bool same_missile(const thr_missile* a, const thr_missile* b)
{
	return a->shot == b->shot && a->land == b->land && a->target == b->target && a->shooter == b->shooter &&
	       memcmp(&a->x, &b->x, sizeof a->x) == 0 && memcmp(&a->y, &b->y, sizeof a->y) == 0 &&
	       memcmp(&a->damage, &b->damage, sizeof a->damage) == 0;
}

/// Whether two worlds' units are in the same state (what the morale
/// stage reckons, bit for bit).
static bool same_units(const throng_world* a, const throng_world* b)
{
	bool same = a->unit_count == b->unit_count;
	for (uint32_t k = 0; same && k < a->unit_count; ++k) {
		const thr_unit* u = &a->units[k];
		const thr_unit* v = &b->units[k];
		same = u->count == v->count && u->most == v->most && u->start == v->start && u->routing == v->routing &&
		       u->rallies_left == v->rallies_left && u->quiet == v->quiet && u->routed_step == v->routed_step &&
		       memcmp(&u->morale, &v->morale, sizeof u->morale) == 0 && memcmp(&u->shock, &v->shock, sizeof u->shock) == 0 &&
		       memcmp(&u->cx, &v->cx, sizeof u->cx) == 0 && memcmp(&u->cy, &v->cy, sizeof u->cy) == 0 &&
		       memcmp(&u->fx, &v->fx, sizeof u->fx) == 0 && memcmp(&u->fy, &v->fy, sizeof u->fy) == 0 &&
		       memcmp(&u->rx, &v->rx, sizeof u->rx) == 0 && memcmp(&u->ry, &v->ry, sizeof u->ry) == 0;
	}
	return same;
}

/// What a battle in strips did.
typedef struct battle_run {
	uint32_t deaths, most_missiles, blows_in, routs;
} battle_run;

/// The battle of `path` in three strips of part worlds beside the whole
/// world for `steps` steps (see the file's head).
static battle_run fight_in_strips(const char* path, uint32_t steps)
{
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_file(path, NULL, &s), THRONG_OK, "%s", throng_last_error());
	throng_world* whole = throng_scene_world(s);
	const uint32_t ids = throng_world_id_end(whole);
	throng_agent_record* rec = calloc(ids, sizeof *rec); // the parts' state, by id
	uint8_t* alive = malloc(ids);
	uint8_t* in = malloc(ids);
	throng_agent_record* load = malloc(ids * sizeof *load);
	uint8_t* ghost = malloc(ids);
	cr_assert(rec && alive && in && load && ghost);
	for (uint32_t id = 0; id < ids; ++id) {
		cr_assert_eq(throng_agent_record_of(whole, id, &rec[id]), THRONG_OK);
		alive[id] = 1;
	}
	hub h;
	cr_assert_eq(pthread_barrier_init(&h.bar, NULL, PARTS), 0);
	member mem[PARTS];
	for (uint32_t r = 0; r < PARTS; ++r) {
		mem[r] = (member){&h, r, NULL, NULL, 0, 0, 0, THRONG_OK};
		cr_assert_eq(throng_part_create(whole, 1, 64, &mem[r].w), THRONG_OK, "%s", throng_last_error());
		const throng_part_sync sync = {&mem[r], hub_reduce, hub_share};
		cr_assert_eq(throng_part_set_sync(mem[r].w, &sync), THRONG_OK);
	}
	const throng_part_rows rows = throng_part_rows_of(whole);
	const int32_t halo = throng_part_halo_rows(mem[0].w);
	cr_assert_lt(halo, rows.ny / 2, "the halo (%d rows of %d) covers the field", halo, rows.ny);
	uint32_t deaths = 0, most_missiles = 0, routs = 0;
	for (uint32_t step = 0; step < steps; ++step) {
		uint32_t count = 0;
		for (uint32_t id = 0; id < ids; ++id) {
			count += alive[id];
		}
		for (uint32_t r = 0; r < PARTS; ++r) {
			// Strips of equal rows: own rows [lo, hi), ghosts within the halo.
			const int32_t lo = (int32_t)((int64_t)r * rows.ny / PARTS), hi = (int32_t)((int64_t)(r + 1) * rows.ny / PARTS);
			uint32_t m = 0;
			for (uint32_t id = 0; id < ids; ++id) {
				const int32_t row = throng_part_row(&rows, rec[id].py);
				in[id] = !alive[id] ? 0 : row >= lo && row < hi ? 1 : row >= lo - halo && row < hi + halo ? 2 : 0;
			}
			for (uint32_t id = 0; id < ids; ++id) {
				const uint32_t t = rec[id].target_agent;
				cr_assert(in[id] != 1 || t == THRONG_NO_AGENT || in[t] != 0, "a target beyond the halo");
				if (in[id] != 0) {
					load[m] = rec[id];
					ghost[m++] = in[id] == 2;
				}
			}
			cr_assert_eq(throng_part_set_world(mem[r].w, ids, count, whole->max_radius), THRONG_OK);
			cr_assert_eq(throng_part_load(mem[r].w, load, ghost, m, whole->step), THRONG_OK, "%s", throng_last_error());
		}
		pthread_t tid[PARTS];
		for (uint32_t r = 0; r < PARTS; ++r) {
			cr_assert_eq(pthread_create(&tid[r], NULL, step_member, &mem[r]), 0);
		}
		for (uint32_t r = 0; r < PARTS; ++r) {
			cr_assert_eq(pthread_join(tid[r], NULL), 0);
			cr_assert_eq(mem[r].st, THRONG_OK, "part %u: %s", r, throng_status_name(mem[r].st));
		}
		thr_test_step(whole);
		// Each live agent's record from its one owner; the dead nowhere.
		memset(alive, 0, ids);
		for (uint32_t r = 0; r < PARTS; ++r) {
			const throng_world* pw = mem[r].w;
			for (uint32_t i = 0; i < pw->count; ++i) {
				if (!throng_part_is_ghost(pw, i)) {
					const uint32_t id = pw->id[i];
					cr_assert(!alive[id], "step %u: id %u owned twice", step, id);
					alive[id] = 1;
					throng_agent_record_get(pw, i, &rec[id]);
				}
			}
			// Every part holds every missile in flight, in the whole world's order.
			cr_assert_eq(pw->missile_n, whole->missile_n, "step %u, part %u: missiles", step, r);
			for (uint32_t k = 0; k < pw->missile_n; ++k) {
				cr_assert(same_missile(&pw->missiles[k], &whole->missiles[k]), "step %u, part %u: missile %u differs",
				          step, r, k);
			}
		}
		most_missiles = whole->missile_n > most_missiles ? whole->missile_n : most_missiles;
		// Every part holds every unit, reckoned alike from the parts' sums.
		for (uint32_t r = 0; r < PARTS; ++r) {
			cr_assert(same_units(mem[r].w, whole), "step %u, part %u: the units differ", step, r);
		}
		for (uint32_t k = 0; k < whole->unit_count; ++k) {
			routs += whole->units[k].routing;
		}
		for (uint32_t id = 0; id < ids; ++id) {
			throng_agent_record want;
			const bool here = throng_agent_record_of(whole, id, &want) == THRONG_OK;
			cr_assert_eq(alive[id], here, "step %u: id %u alive in the parts %d, in the whole world %d", step, id,
			             alive[id], here);
			deaths += !here && rec[id].health > 0.0f; // (its last record: before the blow)
			if (here) {
				// As throng-mpi's gather: a pursuer whose target died on
				// another part pursues none (its part learns at the next load).
				const uint32_t t = rec[id].target_agent;
				if (t != THRONG_NO_AGENT && !alive[t]) {
					rec[id].target_agent = THRONG_NO_AGENT;
				}
				cr_assert(memcmp(&rec[id], &want, sizeof want) == 0,
				          "step %u, agent %u: part (%a, %a) health %a, whole (%a, %a) health %a", step, id,
				          (double)rec[id].px, (double)rec[id].py, (double)rec[id].health, (double)want.px,
				          (double)want.py, (double)want.health);
			} else {
				rec[id].health = 0.0f;
			}
		}
		cr_assert_eq(mem[0].shares, step + 1u, "one share a step");
	}
	const battle_run out = {deaths, most_missiles, mem[0].blows_in + mem[1].blows_in + mem[2].blows_in, routs};
	for (uint32_t r = 0; r < PARTS; ++r) {
		free(mem[r].got);
		throng_world_destroy(mem[r].w);
	}
	pthread_barrier_destroy(&h.bar);
	free(ghost);
	free(load);
	free(in);
	free(alive);
	free(rec);
	throng_scene_destroy(s);
	return out;
}

Test(part_combat, a_battle_in_three_strips_fights_as_the_whole)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/battle_small.yaml", THRONG_SOURCE_DIR);
	const battle_run r = fight_in_strips(path, 240);
	cr_assert_gt(r.deaths, 20u, "a battle without deaths tests little");
	cr_assert_gt(r.most_missiles, 20u);
	cr_assert_gt(r.blows_in, 0u, "no blow crossed a border");
	printf("part_combat: %u deaths, up to %u missiles in flight, %u blows across borders\n", r.deaths,
	       r.most_missiles, r.blows_in);
}

Test(part_combat, units_rout_in_strips_as_in_the_whole)
{
	// The same battle, every group a unit that breaks at a tenth of its
	// strength lost and rallies after 3 quiet seconds.
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/battle_small_morale.yaml", THRONG_SOURCE_DIR);
	const battle_run r = fight_in_strips(path, 300);
	cr_assert_gt(r.routs, 0u, "no unit routed");
	printf("part_combat (units): %u deaths, %u unit-steps routing\n", r.deaths, r.routs);
}

Test(part_combat, combat_without_a_share_is_refused_naming_it)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/battle_small.yaml", THRONG_SOURCE_DIR);
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_file(path, NULL, &s), THRONG_OK, "%s", throng_last_error());
	throng_world* whole = throng_scene_world(s);
	throng_world* p = NULL;
	cr_assert_eq(throng_part_create(whole, 1, 64, &p), THRONG_OK);
	throng_agent_record r;
	cr_assert_eq(throng_agent_record_of(whole, 0, &r), THRONG_OK);
	r.target_agent = THRONG_NO_AGENT;
	cr_assert_eq(throng_part_load(p, &r, NULL, 1, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "combat: needs throng_part_set_sync with a share function") != NULL, "%s",
	          throng_last_error());
	throng_world_destroy(p);
	throng_scene_destroy(s);
}
