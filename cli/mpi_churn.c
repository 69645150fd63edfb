// SPDX-License-Identifier: MIT
// throng-mpi's agents that come and go (mpi_run.h; docs/DISTRIBUTED.md,
// "Agents that come and go").
//
// Design. Sinks need no message: each part lists its own agents' events
// and removes its own agents that entered a sink (the zone bits travel
// in the records), and the others drop their ghosts at the next
// exchange. Sources need one: a source's spawns depend on its def, the
// step, its draws and which points are free of the agents near it, in
// any order (core/sources.c), so every rank runs every source over the
// same list of agents near the sources, every rank's own sent to all (one
// MPI_Allgatherv of a few bodies at the doors): each adds the same agents
// with the same ids, without a lock or a count to agree on, and keeps
// those in its block. The events go to rank 0 only when a measure reads
// them (concourse's flows).
#include <stdlib.h>
#include <string.h>

#include "mpi_run.h"

void* grow_buffer(void* p, size_t* cap, size_t want, size_t size)
{
	if (want <= *cap && p != NULL) {
		return p;
	}
	size_t c = 2u * *cap > want ? 2u * *cap : want;
	c = c > 0 ? c : 1u;
	void* q = realloc(p, c * size);
	if (q == NULL) {
		stop_all("out of memory");
	}
	*cap = c;
	return q;
}

/// Whether the cell of (x, y) is this rank's (throng_part_sources' own).
static bool owns(void* user, float x, float y)
{
	const layout* L = user;
	return owner_of(L, throng_part_row(&L->rows, y), throng_part_col(&L->rows, x)) == self_rank;
}

uint32_t run_sources(const layout* L, throng_world* part, churn* c)
{
	c->counts = grow_buffer(c->counts, &c->counts_cap, 2u * (size_t)rank_count, sizeof *c->counts);
	uint32_t n = throng_part_near_sources(part, c->mine, (uint32_t)c->mine_cap);
	if (n > c->mine_cap) {
		c->mine = grow_buffer(c->mine, &c->mine_cap, n, sizeof *c->mine);
		n = throng_part_near_sources(part, c->mine, n);
	}
	int* bytes = c->counts;
	int* displs = c->counts + rank_count;
	const int mine = (int)(n * sizeof *c->mine);
	MPI_Allgather(&mine, 1, MPI_INT, bytes, 1, MPI_INT, MPI_COMM_WORLD);
	size_t total = 0;
	for (int q = 0; q < rank_count; ++q) {
		displs[q] = (int)total;
		total += (size_t)bytes[q];
	}
	const size_t bodies = total / sizeof *c->near;
	c->near = grow_buffer(c->near, &c->near_cap, bodies, sizeof *c->near);
	MPI_Allgatherv(c->mine, mine, MPI_BYTE, c->near, bytes, displs, MPI_BYTE, MPI_COMM_WORLD);
	traffic.collectives += 2.0;
	traffic.bytes += (double)mine * (double)(rank_count - 1);
	const uint64_t before = throng_world_get_stats(part).agents_added;
	if (throng_part_sources(part, c->near, (uint32_t)bodies, owns, (void*)L) != THRONG_OK) {
		stop_all("running the sources");
	}
	return (uint32_t)(throng_world_get_stats(part).agents_added - before);
}

void gather_events(const throng_world* part, uint32_t own_events, churn* c)
{
	const throng_event* ev = NULL;
	uint32_t listed = 0;
	if (throng_world_events(part, &ev, &listed) != THRONG_OK) {
		stop_all("reading the events");
	}
	c->counts = grow_buffer(c->counts, &c->counts_cap, 2u * (size_t)rank_count, sizeof *c->counts);
	int* bytes = c->counts;
	int* displs = c->counts + rank_count;
	const int mine = (int)(own_events * sizeof *ev);
	MPI_Gather(&mine, 1, MPI_INT, bytes, 1, MPI_INT, 0, MPI_COMM_WORLD);
	size_t total = 0;
	if (self_rank == 0) {
		for (int q = 0; q < rank_count; ++q) {
			displs[q] = (int)total;
			total += (size_t)bytes[q];
		}
		total /= sizeof *ev;
		c->events = grow_buffer(c->events, &c->events_cap, total + (listed - own_events), sizeof *c->events);
	}
	MPI_Gatherv(ev, mine, MPI_BYTE, c->events, bytes, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (self_rank == 0) {
		throng_part_sort_events(c->events, (uint32_t)total);
		if (listed > own_events) { // the sources' own, the same on every rank
			memcpy(c->events + total, ev + own_events, (size_t)(listed - own_events) * sizeof *ev);
		}
		c->event_count = (uint32_t)total + (listed - own_events);
	}
}

bool follow_rows(layout* L, const throng_world* part, uint64_t** per_row, size_t* per_row_cap)
{
	const throng_part_rows r = throng_part_rows_of(part);
	if (r.min_y == L->rows.min_y && r.inv_cell == L->rows.inv_cell && r.cell == L->rows.cell && r.ny == L->rows.ny &&
	    r.min_x == L->rows.min_x && r.nx == L->rows.nx) {
		return false;
	}
	L->rows = r;
	L->halo = throng_part_halo_rows(part);
	equal_borders(L);
	const size_t counts = (size_t)r.ny > (size_t)L->py * (size_t)r.nx ? (size_t)r.ny : (size_t)L->py * (size_t)r.nx;
	if (*per_row != NULL) {
		*per_row = grow_buffer(*per_row, per_row_cap, counts, sizeof **per_row);
	}
	return true;
}

void churn_free(churn* c)
{
	free(c->mine);
	free(c->near);
	free(c->counts);
	free(c->events);
	memset(c, 0, sizeof *c);
}
