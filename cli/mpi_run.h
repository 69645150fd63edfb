// SPDX-License-Identifier: MIT
// throng-mpi's pieces (cli/mpi_main.c runs them): the ranks (mpi_ranks.c),
// the decomposition of the world's cells over the ranks (mpi_layout.c) and
// the movement of agents between ranks (mpi_exchange.c). docs/DISTRIBUTED.md says why.
#ifndef THRONG_CLI_MPI_RUN_H
#define THRONG_CLI_MPI_RUN_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "throng/part.h"
#include "throng/scenario.h"
#include "throng/throng.h"

/// One agent on its way to a rank: its record, and whether it goes as a
/// ghost.
typedef struct mpi_agent {
	throng_agent_record r;
	uint32_t ghost;
} mpi_agent;

// ---------------------------------------------------------------------------
// The ranks (mpi_ranks.c)

/// This process's rank and the number of ranks (MPI_COMM_WORLD).
extern int self_rank, rank_count;
extern MPI_Datatype mpi_agent_type;  ///< an mpi_agent
extern MPI_Datatype mpi_record_type; ///< a throng_agent_record

/// What this rank's exchanges cost over the run.
typedef struct exchange_traffic {
	double bytes;       ///< sent to other ranks
	double ghosts;      ///< ghosts received (and stepped)
	double seconds;     ///< wall time in exchange()
	double wait;        ///< of which in its first collective, where a rank waits for the slowest
	double collectives; ///< MPI collective calls in the stepping loop (the same on every rank)
} exchange_traffic;
extern exchange_traffic traffic;

/// Stops every rank, saying what failed (and throng_last_error()): one
/// that fails mid-step leaves the others waiting in a reduction.
_Noreturn void stop_all(const char* what);

/// MPI_Init, this process's rank, the record types; every rank but 0 has
/// its standard error quieted (the ranks find the same problems: rank 0
/// says them; stop_all says a rank's own on the error stream it had).
void ranks_start(int* argc, char*** argv);

/// Frees the record types and ends MPI.
void ranks_end(void);

// ---------------------------------------------------------------------------
// The decomposition (mpi_layout.c)

/// The decomposition: the agent grid's rows cut into py strips, each cut
/// into px blocks of columns (px = 1: strips). Rank q = j px + i owns the
/// cells of rows [lo[j], lo[j + 1]) and columns [col_lo(j)[i],
/// col_lo(j)[i + 1]) (the strips' columns are cut apart: each strip
/// balances its own). lo[0] = 0, lo[py] = ny, and the same for columns. A
/// strip or block may be empty.
typedef struct layout {
	throng_part_rows rows; ///< rows and columns
	int32_t halo;       ///< ghost rows (and columns) on each side
	bool wrap;
	int px, py;
	int32_t* lo;  ///< py + 1 row borders
	int32_t* clo; ///< py (px + 1) column borders
} layout;

static inline int32_t* col_lo(const layout* L, int j)
{
	return L->clo + (size_t)j * (size_t)(L->px + 1);
}

/// This rank's own agents, where they are before an exchange: a list of
/// records (at the start, and every step for the scalar engine, whose
/// parts are loaded whole in id order), or its part world, where they stay
/// from step to step (the SIMD engine: throng_part_update).
typedef struct source {
	const throng_agent_record* recs; ///< the own records, or NULL: the part's own slots
	const throng_world* part;
	uint32_t n;       ///< records, or the part's slots (its ghosts are skipped)
	throng_view view; ///< the part's slots (throng_world_view), when recs is NULL
} source;

/// Whether item k of src is an own agent; *px, *py is its position.
static inline bool source_own(const source* src, uint32_t k, float* px, float* py)
{
	if (src->recs != NULL) {
		*px = src->recs[k].px;
		*py = src->recs[k].py;
		return true;
	}
	if (throng_part_is_ghost(src->part, k)) {
		return false;
	}
	*px = src->view.x[k];
	*py = src->view.y[k];
	return true;
}

/// The rank whose block holds the cell (row, col).
int owner_of(const layout* L, int32_t row, int32_t col);

/// Takes throng-mpi's own options out of argv[2 ..] (the rest kept in
/// order, *argc their new count): --balance-every K into *balance_every,
/// --decompose blocks|strips into *blocks, each once. Returns false after
/// saying what is wrong with one.
bool take_layout_options(int* argc, char** argv, uint64_t* balance_every, bool* blocks);

/// px x py = rank_count for blocks as square as R allows: px the largest
/// divisor of R at most sqrt(R) (1 for strips, or when R is prime).
void shape(layout* L, bool blocks);

/// Equal rows in each strip and equal columns in each block (L->lo and
/// L->clo allocated for L's px and py).
void equal_borders(layout* L);

/// Moves the borders so that each block holds about as many agents as the
/// others: every rank counts its own agents by row, the counts are summed
/// over the ranks (one MPI_Allreduce) and cut into strips; then by strip
/// and column, summed and cut into blocks strip by strip. Every rank
/// computes the same borders from the same sums. Returns whether a border
/// moved. Where an agent is stepped does not change its bits
/// (core/part.h), so the result does not depend on the borders. count has
/// room for max(ny, py nx) counts.
bool balance(layout* L, const source* src, uint64_t* count);

/// The ranks other than `owner` whose halo holds the cell (row, col):
/// those whose block is not empty and lies within L->halo rows and columns
/// of it (across a wrapping world's seams too), each once, into dst;
/// returns how many. They are found from the borders, not by asking every
/// rank. stamp (ranks entries) and mark, different on each call, keep a
/// rank from coming twice.
int halo_ranks(const layout* L, int32_t row, int32_t col, int owner, uint64_t* stamp, uint64_t mark, int* dst);

// ---------------------------------------------------------------------------
// Moving agents between ranks (mpi_exchange.c)

/// The part worlds' hook (throng_part_sync) over MPI_COMM_WORLD: an
/// MPI_Allreduce at each point.
void part_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count);

/// The hook's share (throng_part_sync): an MPI_Allgather of the sizes and
/// an MPI_Allgatherv of the bytes; returns the other ranks' bytes (its own
/// buffer, valid until the next call). Counts in `traffic`.
const void* part_share(void* user, throng_part_point at, const void* mine, size_t bytes, size_t* got);

/// Sends each own agent of src to its owner and, as a ghost, to every
/// other rank whose halo holds it, in src's order. An agent of a part that
/// stays this rank's own is not sent: keep[k] (src's slots) is not 0 for
/// those, for throng_part_update, and *kept counts them (0 for a list of
/// records). *got and *m receive what comes to this rank, rank by rank in
/// rank order, each rank's in its order (sorted by id when by_id: the
/// scalar engine's order); *cap is its room.
void exchange(const layout* L, const source* src, uint8_t* keep, uint32_t* kept, bool by_id, mpi_agent** out,
              size_t* out_cap, mpi_agent** got, size_t* cap, uint32_t* m);

/// The records of the part's own agents (not its ghosts) into own, in the
/// part's storage order; returns how many.
uint32_t own_records(const throng_world* part, throng_agent_record* own);

/// Rank 0's buffers for a whole world gathered from every rank.
typedef struct gather {
	int* counts; ///< per rank (rank 0)
	int* displs; ///< per rank (rank 0)
	throng_agent_record* recs; ///< the whole world's live agents (rank 0): as they come
	throng_agent_record* byid; ///< ids below the id end (rank 0): placed by id, then packed in id order
	uint8_t* have;          ///< ids below the id end (rank 0): whether id came
	size_t recs_cap, ids_cap;
} gather;

/// Every rank's n_own own records to rank 0, which places them by id (each
/// id below the whole world's id end, as `part` knows it, at most once; the ids
/// missing were removed) and loads them, in id order, into `into` (a part
/// world without ghosts, at `step`); the state `into` held stays as its
/// previous state (throng_part_load_next: the metrics read it), with the
/// largest radius `part` knows. Called by every rank; returns the whole
/// world's count (on rank 0).
uint32_t gather_whole(gather* g, const throng_agent_record* own, uint32_t n_own, const throng_world* part,
                      throng_world* into, uint64_t step);

// ---------------------------------------------------------------------------
// Agents that come and go (mpi_churn.c)

/// *p, an array of *cap items of `size` bytes, with room for `want`
/// (doubling); stops every rank when out of memory.
void* grow_buffer(void* p, size_t* cap, size_t want, size_t size);

/// What the sources and the step's events need from step to step.
typedef struct churn {
	throng_part_body* mine; ///< this rank's own agents near the sources
	throng_part_body* near; ///< every rank's
	size_t mine_cap, near_cap;
	int* counts; ///< 2 R: per rank, then displacements (bytes)
	size_t counts_cap;
	throng_event* events; ///< rank 0: the step's events, every rank's
	size_t events_cap;
	uint32_t event_count;
} churn;

/// After a step of every part: every rank sends every other its own
/// agents near the sources (one MPI_Allgatherv), then runs the sources
/// of its part over them (throng_part_sources): every rank adds the same
/// agents with the same ids and keeps those whose cell L gives it.
/// Returns how many agents the sources added (the same on every rank).
uint32_t run_sources(const layout* L, throng_world* part, churn* c);

/// The events of the step every part just took, in the whole world's
/// order, on rank 0 (c->events, c->event_count): each part's own (its
/// first `own_events`, the events of its own agents and its sinks'
/// removals), gathered and sorted, then rank 0's part's after them (the
/// sources', the same in every part). A collective call.
void gather_events(const throng_world* part, uint32_t own_events, churn* c);

/// When the agent grid's rows of the part changed (a source added an
/// agent wider than any before: the cells widen), lays L out again on
/// them, the halo with them, with equal borders; *per_row (balance's
/// counts) grows to fit. Returns whether it did.
bool follow_rows(layout* L, const throng_world* part, uint64_t** per_row, size_t* per_row_cap);

/// Frees c's buffers.
void churn_free(churn* c);

/// The whole world's running stats, on rank 0, after `steps` steps of its
/// life (the run's and those before it): the parts' (each counts its own
/// agents: core/part.h; sums add, maxima take the largest, the rest is
/// the same in every part) over what the whole world counted at the run's
/// start (`start`: a restored world's figures, or its making's), and the
/// most agents it held (`peak`). A collective call.
throng_world_stats whole_stats(const throng_world* part, const throng_world_stats* start, uint64_t steps,
                               uint32_t peak);

/// Rank 0's status, told to every rank (a collective call).
throng_status told(throng_status st);

// ---------------------------------------------------------------------------
// The scene (mpi_scene.c)

/// Opens args' scenario (a built-in or a file) or, with --resume, the
/// checkpoint's scene (cli_resume_open), on every rank alike. Returns
/// CLI_EXIT_OK, or the exit status after saying why (rank 0 does).
int mpi_open_scene(const cli_run_args* args, throng_scene** scene);

/// --checkpoint's file at the scene's step `step`, written by rank 0 from
/// `gathered`, the whole world at that step with its stats; the scene's
/// world is rank 0's part. Every rank learns how it went (a collective
/// call): true and *written = step, or false after rank 0 said why
/// ("--checkpoint: at step N: ..."). Rank 0 adds the time to *seconds.
bool mpi_checkpoint(const cli_run_args* args, throng_scene* scene, throng_world* gathered, uint64_t step,
                    uint64_t* written, double* seconds);

#endif
