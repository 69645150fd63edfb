// SPDX-License-Identifier: MIT
// throng-mpi's movement of agents (mpi_run.h): each step's exchange of
// migrants and ghosts, the gathers of the whole world on rank 0, the
// reductions (docs/DISTRIBUTED.md).
#include <stdlib.h>
#include <string.h>

#include "mpi_run.h"

void part_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)user;
	(void)at; // every point's op and count say all an MPI_Allreduce needs
	traffic.collectives += 1.0;
	if (op == THRONG_PART_SUM_U64) {
		MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	} else {
		MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
	}
}

const void* part_share(void* user, throng_part_point at, const void* mine, size_t bytes, size_t* got)
{
	// Every rank's bytes to every rank (their sizes first), then this
	// rank's own taken out: the step orders what it keeps itself.
	static int* sizes; // 2 R: per rank, then displacements
	static size_t sizes_cap;
	static char* all;
	static size_t all_cap;
	(void)user;
	(void)at; // one point so far: the combat's strikes
	if (bytes > (size_t)INT32_MAX) {
		stop_all("sharing the strikes (too many)");
	}
	sizes = grow_buffer(sizes, &sizes_cap, 2u * (size_t)rank_count, sizeof *sizes);
	const int size = (int)bytes;
	MPI_Allgather(&size, 1, MPI_INT, sizes, 1, MPI_INT, MPI_COMM_WORLD);
	size_t total = 0;
	for (int q = 0; q < rank_count; ++q) {
		sizes[rank_count + q] = (int)total;
		total += (size_t)sizes[q];
	}
	if (total > (size_t)INT32_MAX) {
		stop_all("sharing the strikes (too many)");
	}
	all = grow_buffer(all, &all_cap, total > 0 ? total : 1u, 1);
	MPI_Allgatherv(mine, size, MPI_BYTE, all, sizes, sizes + rank_count, MPI_BYTE, MPI_COMM_WORLD);
	traffic.collectives += 2.0;
	traffic.bytes += (double)bytes * (double)(rank_count - 1);
	const size_t from = (size_t)sizes[rank_count + self_rank];
	memmove(all + from, all + from + bytes, total - from - bytes);
	*got = total - bytes;
	return all;
}

static int agent_by_id(const void* a, const void* b)
{
	return throng_agent_record_by_id(&((const mpi_agent*)a)->r, &((const mpi_agent*)b)->r);
}

/// One record for rank q: counted on the first pass, written into out at
/// q's place on the second.
static inline void send(int pass, mpi_agent* out, const int* sd, int* sc, int q, const throng_agent_record* r, bool ghost)
{
	if (pass == 1) {
		out[sd[q] + sc[q]] = (mpi_agent){*r, ghost ? 1u : 0u};
	}
	++sc[q];
}

/// What the first pass of exchange() found of a part's slot (keep[k]):
/// throng_part_update keeps the slots whose entry is not 0 (a ghost's entry
/// is ignored), and the second pass revisits only those that may send.
enum {
	SLOT_LEAVES = 0, ///< an own agent that moves to another rank
	SLOT_DEEP = 1,   ///< an own agent deep in the block: stays, sends nothing
	SLOT_BORDER = 2, ///< an own agent that stays, near the block's border
	SLOT_GHOST = 3,  ///< a ghost: dropped, sends nothing
};

void exchange(const layout* L, const source* src, uint8_t* keep, uint32_t* kept, bool by_id, mpi_agent** out,
              size_t* out_cap, mpi_agent** got, size_t* cap, uint32_t* m)
{
	const double t0 = MPI_Wtime();
	uint64_t mark = 0; // halo_ranks' marks: one per agent and pass (stamp starts at 0)
	int* sc = calloc((size_t)rank_count * 5u, sizeof *sc);
	// This rank's block, less the halo: an agent in it stays and is in no
	// other rank's halo, across a seam neither.
	const int mj = self_rank / L->px, mi = self_rank % L->px;
	const int32_t r0 = L->lo[mj] + L->halo, r1 = L->lo[mj + 1] - L->halo;
	const int32_t c0 = col_lo(L, mj)[mi] + L->halo, c1 = col_lo(L, mj)[mi + 1] - L->halo;
	uint64_t* stamp = calloc((size_t)rank_count, sizeof *stamp);
	if (sc == NULL || stamp == NULL) {
		stop_all("out of memory");
	}
	int *sd = sc + rank_count, *rc = sc + 2 * rank_count, *rd = sc + 3 * rank_count, *dst = sc + 4 * rank_count;
	*kept = 0;
	for (int pass = 0; pass < 2; ++pass) {
		if (pass == 1) {
			size_t total = 0;
			for (int q = 0; q < rank_count; ++q) {
				sd[q] = (int)total;
				total += (size_t)sc[q];
				sc[q] = 0;
			}
			if (total > *out_cap) {
				free(*out);
				*out_cap = total;
				if ((*out = malloc(total * sizeof **out)) == NULL) {
					stop_all("out of memory for the exchange");
				}
			}
		}
		for (uint32_t k = 0; k < src->n; ++k) {
			if (pass == 1 && src->recs == NULL && (keep[k] == SLOT_DEEP || keep[k] == SLOT_GHOST)) {
				continue; // found on the first pass to send nothing
			}
			float px, py;
			if (!source_own(src, k, &px, &py)) {
				keep[k] = SLOT_GHOST; // only a part's slots are ghosts
				continue;
			}
			const int32_t row = throng_part_row(&L->rows, py), col = throng_part_col(&L->rows, px);
			if (src->recs == NULL && row >= r0 && row < r1 && col >= c0 && col < c1) {
				keep[k] = SLOT_DEEP; // most agents (the first pass only comes here)
				++*kept;
				continue;
			}
			const int owner = owner_of(L, row, col);
			const bool stays = src->recs == NULL && owner == self_rank;
			if (src->recs == NULL && pass == 0) {
				keep[k] = stays ? SLOT_BORDER : SLOT_LEAVES;
				*kept += stays ? 1u : 0u;
			}
			const int g = halo_ranks(L, row, col, owner, stamp, ++mark, dst);
			if (stays && g == 0) {
				continue; // nothing to send: read no record
			}
			throng_agent_record r;
			if (pass == 1) {
				if (src->recs != NULL) {
					r = src->recs[k];
				} else {
					throng_agent_record_get(src->part, k, &r);
				}
			}
			if (!stays) {
				send(pass, *out, sd, sc, owner, &r, false);
			}
			for (int j = 0; j < g; ++j) {
				send(pass, *out, sd, sc, dst[j], &r, true);
			}
		}
	}
	for (int q = 0; q < rank_count; ++q) {
		traffic.bytes += q != self_rank ? (double)sc[q] * (double)sizeof(mpi_agent) : 0.0;
	}
	const double tw = MPI_Wtime();
	MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
	traffic.wait += MPI_Wtime() - tw;
	traffic.collectives += 2.0; // and the Alltoallv below
	size_t total = 0;
	for (int q = 0; q < rank_count; ++q) {
		rd[q] = (int)total;
		total += (size_t)rc[q];
	}
	if (total > *cap) {
		free(*got);
		*cap = total;
		if ((*got = malloc(total * sizeof **got)) == NULL) {
			stop_all("out of memory for the exchange");
		}
	}
	MPI_Alltoallv(*out, sc, sd, mpi_agent_type, *got, rc, rd, mpi_agent_type, MPI_COMM_WORLD);
	if (by_id) {
		qsort(*got, total, sizeof **got, agent_by_id);
	}
	*m = (uint32_t)total;
	for (size_t k = 0; k < total; ++k) {
		traffic.ghosts += (*got)[k].ghost != 0 ? 1.0 : 0.0;
	}
	traffic.seconds += MPI_Wtime() - t0;
	free(sc);
	free(stamp);
}

uint32_t own_records(const throng_world* part, throng_agent_record* own)
{
	uint32_t n_own = 0;
	const uint32_t held = throng_world_agent_count(part);
	for (uint32_t i = 0; i < held; ++i) {
		if (!throng_part_is_ghost(part, i)) {
			throng_agent_record_get(part, i, &own[n_own++]);
		}
	}
	return n_own;
}


uint32_t gather_whole(gather* g, const throng_agent_record* own, uint32_t n_own, const throng_world* part,
                      throng_world* into, uint64_t step)
{
	uint32_t id_end = 0;
	float max_radius = 0.0f;
	throng_part_get_world(part, &id_end, NULL, &max_radius);
	const int mine = (int)n_own;
	MPI_Gather(&mine, 1, MPI_INT, g->counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	size_t total = 0;
	if (self_rank == 0) {
		for (int q = 0; q < rank_count; ++q) {
			g->displs[q] = (int)total;
			total += (size_t)g->counts[q];
		}
		if (total > id_end) {
			stop_all("the ranks hold more agents than ids");
		}
		g->recs = grow_buffer(g->recs, &g->recs_cap, total, sizeof *g->recs);
		size_t ids_cap = g->ids_cap;
		g->byid = grow_buffer(g->byid, &g->ids_cap, id_end, sizeof *g->byid);
		g->have = grow_buffer(g->have, &ids_cap, id_end, 1);
	}
	MPI_Gatherv(own, mine, mpi_record_type, g->recs, g->counts, g->displs, mpi_record_type, 0, MPI_COMM_WORLD);
	if (self_rank != 0) {
		return 0;
	}
	memset(g->have, 0, id_end);
	for (size_t k = 0; k < total; ++k) {
		const uint32_t id = g->recs[k].id;
		if (id >= id_end || g->have[id]) {
			stop_all("the ranks sent an agent twice");
		}
		g->have[id] = 1;
		g->byid[id] = g->recs[k];
	}
	// Packed in id order, forward (an id's place is never above it): the
	// ids a sink removed leave no hole. An agent whose target a sink on
	// another rank removed in this step pursues none, as in one process,
	// where the removal clears its pursuers' targets at once (its own
	// rank learns it at the next exchange: throng_part_update).
	uint32_t n = 0;
	for (uint32_t id = 0; id < id_end; ++id) {
		if (g->have[id]) {
			throng_agent_record* r = &g->byid[n++];
			*r = g->byid[id];
			if (r->target_agent != THRONG_NO_AGENT && (r->target_agent >= id_end || !g->have[r->target_agent])) {
				r->target_agent = THRONG_NO_AGENT;
			}
		}
	}
	if (throng_part_set_world(into, id_end, n, max_radius) != THRONG_OK || throng_part_load_next(into, g->byid, n, step) != THRONG_OK ||
	    throng_part_copy_combat(into, part) != THRONG_OK) { // every rank holds every missile and unit
		stop_all("gathering the world");
	}
	return n;
}

enum { STATS_SUMMED = 10, STATS_LARGEST = 3 };

/// The figures of s the ranks add up, and those where the whole world's is
/// the largest rank's: each named once, for every use. (Each part removes
/// its own agents; the sources' agents are added in every part:
/// agents_added is any part's, agents_peak the driver's; the rest, steps,
/// contact iterations, threads, is the same in every part.)
static void stats_fields(throng_world_stats* s, uint64_t* summed[STATS_SUMMED], uint32_t* largest[STATS_LARGEST])
{
	uint64_t* const sum[STATS_SUMMED] = {&s->nonfinite,    &s->clamped,        &s->neighbor_candidates,
	                                     &s->neighbor_capped, &s->contacts,   &s->contact_capped,
	                                     &s->shape_pushes, &s->shape_reverts, &s->target_capped,
	                                     &s->agents_removed};
	uint32_t* const most[STATS_LARGEST] = {&s->neighbor_most_candidates, &s->neighbor_most_met,
	                                       &s->target_most_candidates};
	memcpy(summed, sum, sizeof sum);
	memcpy(largest, most, sizeof most);
}

throng_world_stats whole_stats(const throng_world* part, const throng_world_stats* start, uint64_t steps,
                               uint32_t peak)
{
	throng_world_stats st = throng_world_get_stats(part);
	uint64_t* summed[STATS_SUMMED];
	uint32_t* largest[STATS_LARGEST];
	stats_fields(&st, summed, largest);
	uint64_t sums[STATS_SUMMED];
	uint32_t most[STATS_LARGEST];
	for (int k = 0; k < STATS_SUMMED; ++k) {
		sums[k] = *summed[k];
	}
	for (int k = 0; k < STATS_LARGEST; ++k) {
		most[k] = *largest[k];
	}
	float ratio = st.max_speed_ratio;
	MPI_Reduce(self_rank == 0 ? MPI_IN_PLACE : sums, sums, STATS_SUMMED, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(self_rank == 0 ? MPI_IN_PLACE : most, most, STATS_LARGEST, MPI_UINT32_T, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(self_rank == 0 ? MPI_IN_PLACE : &ratio, &ratio, 1, MPI_FLOAT, MPI_MAX, 0, MPI_COMM_WORLD);
	// Then what the whole world had counted before the run: its making's
	// removals, a restored world's figures.
	throng_world_stats had = *start;
	uint64_t* had_summed[STATS_SUMMED];
	uint32_t* had_largest[STATS_LARGEST];
	stats_fields(&had, had_summed, had_largest);
	for (int k = 0; k < STATS_SUMMED; ++k) {
		*summed[k] = sums[k] + *had_summed[k];
	}
	for (int k = 0; k < STATS_LARGEST; ++k) {
		*largest[k] = most[k] > *had_largest[k] ? most[k] : *had_largest[k];
	}
	st.max_speed_ratio = had.max_speed_ratio > ratio ? had.max_speed_ratio : ratio;
	st.contact_iterations += had.contact_iterations;
	st.steps_one_thread += had.steps_one_thread;
	st.agents_added += had.agents_added;
	st.steps = steps;
	st.agents_peak = peak;
	return st;
}

throng_status told(throng_status st)
{
	int v = (int)st;
	MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return (throng_status)v;
}
