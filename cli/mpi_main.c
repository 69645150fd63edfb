// SPDX-License-Identifier: MIT
// throng-mpi: `throng run` over MPI ranks, to the same bits (issue 15,
// docs/DISTRIBUTED.md).
//
//   mpirun -np R throng-mpi run SCENARIO [throng run's options]
//
// Every rank builds the scene, then steps a part world of it (core/part.h):
// a strip of the agent grid's rows, its own agents plus ghosts of the rows
// within the halo. Every --balance-every steps the strips' borders move so
// that the ranks hold about as many agents (balance()). Each step the ranks send every agent to the rank that
// owns its row and, as a ghost, to the ranks whose halo holds it (one
// MPI_Alltoallv); the contact pass agrees on the whole world's figures
// through MPI_Allreduce (thr_part_comm). At the end rank 0 gathers every
// agent in id order into a whole world and prints throng run's summary,
// whose hash and figures are those of the single process.
//
// --out and --shm: rank 0 writes every frame, from a whole world it
// gathers in id order when the frame is due, so the file is byte for byte
// the single process's. SIGINT and SIGTERM stop every rank after the same
// step, outputs closed, as in throng run.
//
// The quality metrics: rank 0 gathers the whole world after every step
// and observes it as one process would (the same figures; it does not
// scale: --metrics off for runs that should).
//
// A scene's measure: rank 0 samples the whole world it gathers after each
// step (armies'), and the outcome reads the whole world at the end.
//
// Not yet (refused with a message): agents given a target agent by the
// scene (at any distance).
#define _POSIX_C_SOURCE 200809L // dup, dup2

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "opts.h"
#include "outputs.h"
#include "part.h"
#include "scenario_internal.h"
#include "summary.h"
#include "throng/metrics.h"
#include "world_internal.h"

/// One agent on its way to a rank: its record, and whether it goes as a
/// ghost.
typedef struct mpi_agent {
	thr_agent_record r;
	uint32_t ghost;
} mpi_agent;

static int my_rank, ranks;

/// What this rank's exchanges cost over the run.
static struct {
	double bytes;   ///< sent to other ranks
	double ghosts;  ///< ghosts received (and stepped)
	double seconds; ///< wall time in exchange()
	double wait;    ///< of which in its first collective, where a rank waits for the slowest
	double collectives; ///< MPI collective calls in the stepping loop (rank 0 counts them: all make the same)
} traffic;
static MPI_Datatype agent_type;  ///< an mpi_agent
static MPI_Datatype record_type; ///< a thr_agent_record

/// Ranks other than 0: their own standard error, kept while theirs points
/// at /dev/null (-1 on rank 0).
static int quiet_stderr = -1;

/// Stops every rank: one that fails mid-step leaves the others waiting in
/// a reduction.
static void stop_all(const char* what)
{
	if (quiet_stderr >= 0) {
		fflush(stderr);
		dup2(quiet_stderr, STDERR_FILENO);
	}
	cli_error("rank %d: %s: %s", my_rank, what, throng_last_error());
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void mpi_reduce(void* user, thr_part_op op, void* values, uint32_t count)
{
	(void)user;
	traffic.collectives += 1.0;
	if (op == THR_PART_SUM_U64) {
		MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	} else {
		MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
	}
}

static int agent_by_id(const void* a, const void* b)
{
	return thr_agent_record_by_id(&((const mpi_agent*)a)->r, &((const mpi_agent*)b)->r);
}

/// The decomposition: the agent grid's rows cut into py strips, each cut
/// into px blocks of columns (px = 1: strips). Rank q = j px + i owns the
/// cells of rows [lo[j], lo[j + 1]) and columns [col_lo(j)[i],
/// col_lo(j)[i + 1]) (the strips' columns are cut apart: each strip
/// balances its own). lo[0] = 0, lo[py] = ny, and the same for columns. A
/// strip or block may be empty.
typedef struct layout {
	thr_part_rows rows; ///< rows and columns
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

/// The last k in [0, n) with lo[k] <= v (lo[0] <= v always).
static int last_at_or_below(const int32_t* lo, int n, int32_t v)
{
	int a = 0, b = n - 1;
	while (a < b) {
		const int mid = (a + b + 1) / 2;
		if (lo[mid] <= v) {
			a = mid;
		} else {
			b = mid - 1;
		}
	}
	return a;
}

/// The rank whose block holds the cell (row, col).
static int owner_of(const layout* L, int32_t row, int32_t col)
{
	const int j = last_at_or_below(L->lo, L->py, row);
	return j * L->px + last_at_or_below(col_lo(L, j), L->px, col);
}

/// px x py = ranks for blocks as square as R allows: px the largest
/// divisor of R at most sqrt(R) (1 for strips, or when R is prime).
static void shape(layout* L, bool blocks)
{
	L->px = 1;
	for (int d = 1; blocks && d * d <= ranks; ++d) {
		if (ranks % d == 0) {
			L->px = d;
		}
	}
	L->py = ranks / L->px;
}

/// This rank's own agents, where they are before an exchange: a list of
/// records (at the start, and every step for the scalar engine, whose
/// parts are loaded whole in id order), or its part world, where they stay
/// from step to step (the SIMD engine: thr_part_update).
typedef struct source {
	const thr_agent_record* recs; ///< the own records, or NULL: the part's own slots
	const throng_world* part;
	uint32_t n; ///< records, or the part's slots (its ghosts are skipped)
} source;

/// Whether item k of src is an own agent; *px, *py is its position.
static inline bool source_own(const source* src, uint32_t k, float* px, float* py)
{
	if (src->recs != NULL) {
		*px = src->recs[k].px;
		*py = src->recs[k].py;
		return true;
	}
	if (thr_part_ghost(src->part->part, src->part->id[k])) {
		return false;
	}
	*px = thr_cur_c(src->part)->px[k];
	*py = thr_cur_c(src->part)->py[k];
	return true;
}

/// Cuts count[0 .. n) (agents per row or column) into `parts` runs of
/// about as many agents, into lo[0 .. parts] (lo[0] = 0 and lo[parts] = n
/// stay): run q begins where the agents before it come nearest q / parts
/// of all. Returns whether a border moved.
static bool cut(const uint64_t* count, int32_t n, int parts, int32_t* lo)
{
	uint64_t total = 0;
	for (int32_t r = 0; r < n; ++r) {
		total += count[r];
	}
	bool moved = false;
	uint64_t before = 0; // agents in the rows before row r
	int32_t r = 0;
	for (int q = 1; q < parts; ++q) {
		const uint64_t want = total * (uint64_t)q / (uint64_t)parts;
		while (r < n && before + count[r] <= want) {
			before += count[r++];
		}
		// Row r holds the agent that passes the share: the run starts
		// after it when that leaves this run nearer its share.
		int32_t at = r;
		if (r < n && want - before > before + count[r] - want) {
			at = r + 1;
		}
		at = at > lo[q - 1] ? at : lo[q - 1];
		moved = moved || at != lo[q];
		lo[q] = at;
	}
	return moved;
}

/// Moves the borders so that each block holds about as many agents as the
/// others: every rank counts its own agents by row, the counts are summed
/// over the ranks (one MPI_Allreduce) and cut into strips; then by strip
/// and column, summed and cut into blocks strip by strip. Every rank
/// computes the same borders from the same sums. Returns whether a border
/// moved. Where an agent is stepped does not change its bits
/// (core/part.h), so the result does not depend on the borders. count has
/// room for max(ny, py nx) counts.
static bool balance(layout* L, const source* src, uint64_t* count)
{
	const int32_t ny = L->rows.ny, nx = L->rows.nx;
	memset(count, 0, (size_t)ny * sizeof *count);
	for (uint32_t k = 0; k < src->n; ++k) {
		float x, y;
		if (source_own(src, k, &x, &y)) {
			count[thr_part_row(&L->rows, y)] += 1u;
		}
	}
	MPI_Allreduce(MPI_IN_PLACE, count, ny, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	bool moved = cut(count, ny, L->py, L->lo);
	if (L->px == 1) {
		return moved;
	}
	memset(count, 0, (size_t)L->py * (size_t)nx * sizeof *count);
	for (uint32_t k = 0; k < src->n; ++k) {
		float x, y;
		if (source_own(src, k, &x, &y)) {
			const int j = last_at_or_below(L->lo, L->py, thr_part_row(&L->rows, y));
			count[(size_t)j * (size_t)nx + (size_t)thr_part_col(&L->rows, x)] += 1u;
		}
	}
	MPI_Allreduce(MPI_IN_PLACE, count, L->py * nx, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (int j = 0; j < L->py; ++j) {
		moved = cut(count + (size_t)j * (size_t)nx, nx, L->px, col_lo(L, j)) || moved;
	}
	return moved;
}

/// The spans of cells within h of v on an axis of n cells (clamped, or
/// across the seam when wrap): up to 3, into from[] and to[]; returns how
/// many.
static int spans_near(int32_t v, int32_t h, int32_t n, bool wrap, int32_t from[3], int32_t to[3])
{
	int k = 0;
	from[k] = v - h < 0 ? 0 : v - h;
	to[k++] = v + h >= n ? n - 1 : v + h;
	if (wrap && v - h < 0) { // across the seam below
		from[k] = n + v - h < 0 ? 0 : n + v - h;
		to[k++] = n - 1;
	}
	if (wrap && v + h >= n) { // and above
		from[k] = 0;
		to[k++] = v + h - n >= n ? n - 1 : v + h - n;
	}
	return k;
}

/// The ranks other than `owner` whose halo holds the cell (row, col):
/// those whose block is not empty and lies within L->halo rows and columns
/// of it (across a wrapping world's seams too), each once, into dst;
/// returns how many. They are found from the borders, not by asking every
/// rank. stamp (ranks entries) and mark, different on each call, keep a
/// rank from coming twice.
static int halo_ranks(const layout* L, int32_t row, int32_t col, int owner, uint64_t* stamp, uint64_t mark, int* dst)
{
	int32_t rfrom[3], rto[3], cfrom[3], cto[3];
	const int rspans = spans_near(row, L->halo, L->rows.ny, L->wrap, rfrom, rto);
	const int cspans = spans_near(col, L->halo, L->rows.nx, L->wrap, cfrom, cto);
	stamp[owner] = mark;
	int n = 0;
	for (int rs = 0; rs < rspans; ++rs) {
		const int jlast = last_at_or_below(L->lo, L->py, rto[rs]);
		for (int j = last_at_or_below(L->lo, L->py, rfrom[rs]); j <= jlast; ++j) {
			if (L->lo[j] == L->lo[j + 1]) {
				continue; // an empty strip
			}
			const int32_t* c = col_lo(L, j);
			for (int cs = 0; cs < cspans; ++cs) {
				const int ilast = last_at_or_below(c, L->px, cto[cs]);
				for (int i = last_at_or_below(c, L->px, cfrom[cs]); i <= ilast; ++i) {
					const int q = j * L->px + i;
					if (stamp[q] != mark && c[i] < c[i + 1]) {
						stamp[q] = mark;
						dst[n++] = q;
					}
				}
			}
		}
	}
	return n;
}

/// Sends each own agent of src to its owner and, as a ghost, to every
/// other rank whose halo holds it, in src's order. An agent of a part that
/// stays this rank's own is not sent: keep[k] (src's slots) says which
/// stay, for thr_part_update. *got and *m receive what comes to this rank,
/// rank by rank in rank order, each rank's in its order (sorted by id when
/// by_id: the scalar engine's order); *cap is its room.
static void exchange(const layout* L, const source* src, uint8_t* keep, bool by_id, mpi_agent** out,
                     size_t* out_cap, mpi_agent** got, size_t* cap, uint32_t* m)
{
	const double t0 = MPI_Wtime();
	uint64_t mark = 0; // halo_ranks' marks: one per agent and pass (stamp starts at 0)
	int* sc = calloc((size_t)ranks * 5u, sizeof *sc);
	// This rank's block, less the halo: an agent in it stays and is in no
	// other rank's halo, across a seam neither.
	const int mj = my_rank / L->px, mi = my_rank % L->px;
	const int32_t r0 = L->lo[mj] + L->halo, r1 = L->lo[mj + 1] - L->halo;
	const int32_t c0 = col_lo(L, mj)[mi] + L->halo, c1 = col_lo(L, mj)[mi + 1] - L->halo;
	uint64_t* stamp = calloc((size_t)ranks, sizeof *stamp);
	if (sc == NULL || stamp == NULL) {
		stop_all("out of memory");
	}
	int *sd = sc + ranks, *rc = sc + 2 * ranks, *rd = sc + 3 * ranks, *dst = sc + 4 * ranks;
	for (int pass = 0; pass < 2; ++pass) {
		if (pass == 1) {
			size_t total = 0;
			for (int q = 0; q < ranks; ++q) {
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
			float px, py;
			if (!source_own(src, k, &px, &py)) {
				if (src->recs == NULL && pass == 0) {
					keep[k] = 0; // a ghost: dropped
				}
				continue;
			}
			const int32_t row = thr_part_row(&L->rows, py), col = thr_part_col(&L->rows, px);
			if (src->recs == NULL && row >= r0 && row < r1 && col >= c0 && col < c1) {
				if (pass == 0) {
					keep[k] = 1; // deep in this rank's block (most agents)
				}
				continue;
			}
			const int owner = owner_of(L, row, col);
			const bool stays = src->recs == NULL && owner == my_rank;
			if (src->recs == NULL && pass == 0) {
				keep[k] = stays;
			}
			const int g = halo_ranks(L, row, col, owner, stamp, ++mark, dst);
			if (stays && g == 0) {
				continue; // nothing to send: read no record
			}
			thr_agent_record r;
			if (pass == 1) {
				if (src->recs != NULL) {
					r = src->recs[k];
				} else {
					thr_agent_record_get(src->part, k, &r);
				}
			}
			if (!stays) {
				if (pass == 1) {
					mpi_agent* a = &(*out)[sd[owner] + sc[owner]];
					a->r = r;
					a->ghost = 0;
				}
				++sc[owner];
			}
			for (int j = 0; j < g; ++j) {
				const int q = dst[j];
				if (pass == 1) {
					mpi_agent* a = &(*out)[sd[q] + sc[q]];
					a->r = r;
					a->ghost = 1;
				}
				++sc[q];
			}
		}
	}
	for (int q = 0; q < ranks; ++q) {
		traffic.bytes += q != my_rank ? (double)sc[q] * (double)sizeof(mpi_agent) : 0.0;
	}
	const double tw = MPI_Wtime();
	MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
	traffic.wait += MPI_Wtime() - tw;
	traffic.collectives += 2.0; // and the Alltoallv below
	size_t total = 0;
	for (int q = 0; q < ranks; ++q) {
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
	MPI_Alltoallv(*out, sc, sd, agent_type, *got, rc, rd, agent_type, MPI_COMM_WORLD);
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

/// The records of the part's own agents (not its ghosts) into own, in the
/// part's storage order; returns how many.
static uint32_t own_records(const throng_world* part, thr_agent_record* own)
{
	uint32_t n_own = 0;
	const uint32_t held = throng_world_agent_count(part);
	for (uint32_t i = 0; i < held; ++i) {
		if (!thr_part_ghost(part->part, part->id[i])) {
			thr_agent_record_get(part, i, &own[n_own++]);
		}
	}
	return n_own;
}

/// Rank 0's buffers for a whole world gathered from every rank.
typedef struct gather {
	int* counts; ///< per rank (rank 0)
	int* displs; ///< per rank (rank 0)
	thr_agent_record* recs; ///< the whole world's count (rank 0): as they come
	thr_agent_record* byid; ///< the whole world's count (rank 0): placed by id
	uint8_t* have;          ///< the whole world's count (rank 0): whether id came
} gather;

/// Every rank's n_own own records to rank 0, which places them by id (the
/// ids are the whole world's, 0 to n - 1, each once) and loads them, in id
/// order, into `into` (a part world without ghosts, at `step`); the state
/// `into` held stays as its previous state (thr_part_load_next: the
/// metrics read it). Called by every rank.
static void gather_whole(gather* g, const thr_agent_record* own, uint32_t n_own, uint32_t n, throng_world* into,
                         uint64_t step)
{
	const int mine = (int)n_own;
	MPI_Gather(&mine, 1, MPI_INT, g->counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (my_rank == 0) {
		int total = 0;
		for (int q = 0; q < ranks; ++q) {
			g->displs[q] = total;
			total += g->counts[q];
		}
		if ((uint32_t)total != n) {
			stop_all("the ranks lost agents");
		}
	}
	MPI_Gatherv(own, mine, record_type, g->recs, g->counts, g->displs, record_type, 0, MPI_COMM_WORLD);
	if (my_rank == 0) {
		memset(g->have, 0, n);
		for (uint32_t k = 0; k < n; ++k) {
			const uint32_t id = g->recs[k].id;
			if (id >= n || g->have[id]) {
				stop_all("the ranks sent an agent twice");
			}
			g->have[id] = 1;
			g->byid[id] = g->recs[k];
		}
		if (thr_part_load_next(into, g->byid, n, step) != THRONG_OK) {
			stop_all("gathering the world");
		}
	}
}

/// The whole world's stats, on rank 0, from the parts' (each counts its own
/// agents: core/part.h): sums add, maxima take the largest; the rest
/// (steps, contact iterations, threads) is the same in every part. A
/// collective call.
static throng_world_stats whole_stats(const throng_world* part)
{
	throng_world_stats st = throng_world_get_stats(part);
	uint64_t sums[9] = {st.nonfinite,     st.clamped,        st.neighbor_candidates, st.neighbor_capped,
	                    st.contacts,      st.contact_capped, st.shape_pushes,        st.shape_reverts,
	                    st.target_capped};
	uint32_t most[3] = {st.neighbor_most_candidates, st.neighbor_most_met, st.target_most_candidates};
	float ratio = st.max_speed_ratio;
	MPI_Reduce(my_rank == 0 ? MPI_IN_PLACE : sums, sums, 9, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(my_rank == 0 ? MPI_IN_PLACE : most, most, 3, MPI_UINT32_T, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(my_rank == 0 ? MPI_IN_PLACE : &ratio, &ratio, 1, MPI_FLOAT, MPI_MAX, 0, MPI_COMM_WORLD);
	st.max_speed_ratio = ratio;
	st.nonfinite = sums[0];
	st.clamped = sums[1];
	st.neighbor_candidates = sums[2];
	st.neighbor_capped = sums[3];
	st.contacts = sums[4];
	st.contact_capped = sums[5];
	st.shape_pushes = sums[6];
	st.shape_reverts = sums[7];
	st.target_capped = sums[8];
	st.neighbor_most_candidates = most[0];
	st.neighbor_most_met = most[1];
	st.target_most_candidates = most[2];
	return st;
}

/// Rank 0's status, told to every rank (a collective call).
static throng_status told(throng_status st)
{
	int v = (int)st;
	MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return (throng_status)v;
}

/// What throng-mpi cannot distribute yet, as a message; NULL when none.
static const char* unsupported(throng_scene* scene)
{
	const throng_world* w = throng_scene_world(scene);
	for (uint32_t i = 0; i < w->count; ++i) {
		if (w->target_agent[i] != THRONG_NO_AGENT) {
			return "agents that pursue a named agent are not distributed yet";
		}
	}
	return NULL;
}

static const char usage[] =
	"Usage: mpirun -np R throng-mpi run <scenario> [throng run's options] [--balance-every K]\n"
	"                                   [--decompose blocks|strips]\n"
	"\n"
	"Runs a scenario over R MPI ranks, each stepping a strip of the world's rows, and prints on rank 0\n"
	"the summary `throng run` prints, with the same hash and figures, and the exchange's cost\n"
	"(docs/DISTRIBUTED.md). The options are throng run's (throng run --help), plus:\n"
	"  --balance-every K  move the borders every K steps so that the ranks hold about as many\n"
	"                     agents each (default 100; 0 = equal rows and columns, never moved). The\n"
	"                     result is the same bits whatever the borders.\n"
	"  --decompose blocks|strips  cut the world's cells into a grid of blocks, px x py = R as\n"
	"                     square as R allows (default; strips when R is prime), or into R strips of\n"
	"                     rows. Blocks have shorter borders: fewer ghosts and bytes a rank.\n";

/// Default --balance-every.
#define MPI_BALANCE_EVERY 100u

static int run(int argc, char** argv)
{
	if (argc < 2 || strcmp(argv[1], "run") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		cli_error("expected: mpirun -np R throng-mpi run <scenario> [options] (throng-mpi --help)");
		return CLI_EXIT_USAGE;
	}
	// --balance-every is throng-mpi's own: taken out before throng run's
	// parser reads the rest.
	uint64_t balance_every = MPI_BALANCE_EVERY;
	bool blocks = true;
	int kept = 2;
	for (int k = 2; k < argc; ++k) {
		const bool balance_opt = strcmp(argv[k], "--balance-every") == 0;
		if (!balance_opt && strcmp(argv[k], "--decompose") != 0) {
			argv[kept++] = argv[k];
			continue;
		}
		if (k + 1 >= argc) {
			cli_error("%s: missing value (%s)", argv[k], balance_opt ? "an integer from 0 to 1000000000" : "blocks or strips");
			return CLI_EXIT_USAGE;
		}
		if (balance_opt && !opt_parse_u64(argv[k + 1], 0, CLI_MAX_STEPS, false, &balance_every)) {
			cli_error("--balance-every: expected an integer from 0 to %u, got \"%.64s\"", CLI_MAX_STEPS, argv[k + 1]);
			return CLI_EXIT_USAGE;
		}
		if (!balance_opt) {
			if (strcmp(argv[k + 1], "blocks") != 0 && strcmp(argv[k + 1], "strips") != 0) {
				cli_error("--decompose: expected blocks or strips, got \"%.64s\"", argv[k + 1]);
				return CLI_EXIT_USAGE;
			}
			blocks = strcmp(argv[k + 1], "blocks") == 0;
		}
		++k;
	}
	argc = kept;
	cli_run_args args;
	int rc = cli_parse_run(argc, argv, 2, &args);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	if (args.help) {
		fputs(usage, stdout);
		return CLI_EXIT_OK;
	}
	if (args.scenario == NULL) {
		cli_error("run: missing <scenario> (throng list names them)");
		return CLI_EXIT_USAGE;
	}
	throng_scene_def opt = cli_scene_def(&args);
	throng_scene* scene = NULL;
	const throng_status opened = throng_scene_open(args.scenario, &opt, &scene);
	if (opened != THRONG_OK) {
		cli_error("%s", throng_last_error());
		// As throng run: an unknown name or a bad file is a usage error.
		return opened == THRONG_ERR_NOT_FOUND || opened == THRONG_ERR_INVALID_ARGUMENT || opened == THRONG_ERR_IO
		           ? CLI_EXIT_USAGE
		           : CLI_EXIT_FAILURE;
	}
	const char* why = unsupported(scene);
	if (why != NULL) {
		cli_error("%s", why);
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	const throng_scenario_info* info = throng_scene_info(scene);
	uint64_t steps = 0;
	throng_world* whole = throng_scene_world(scene);
	if (!cli_run_steps(&args, scene, &steps)) {
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	const uint32_t n = throng_world_agent_count(whole);

	// Every rank built the whole scene: its records, its strips, its part.
	thr_agent_record* all = malloc((size_t)n * sizeof *all);
	throng_world* part = NULL;
	throng_world* gathered = NULL; // rank 0: the whole world at the end
	const thr_part_comm comm = {NULL, mpi_reduce};
	if (all == NULL || thr_part_create(whole, args.threads, n, &part) != THRONG_OK ||
	    thr_part_set_comm(part, &comm) != THRONG_OK ||
	    (my_rank == 0 && (thr_part_create(whole, args.threads, n, &gathered) != THRONG_OK ||
	                      thr_part_set_comm(gathered, &comm) != THRONG_OK))) {
		stop_all("setting up");
	}
	for (uint32_t id = 0; id < n; ++id) {
		thr_agent_record_get(whole, whole->slot_of[id], &all[id]);
	}
	layout s;
	s.rows = thr_part_rows_of(whole);
	s.halo = thr_part_halo_rows(part);
	s.wrap = throng_world_get_def(whole).bounds_mode == THRONG_BOUNDS_WRAP;
	shape(&s, blocks);
	s.lo = malloc(((size_t)s.py + 1u) * sizeof *s.lo);
	s.clo = malloc((size_t)s.py * ((size_t)s.px + 1u) * sizeof *s.clo);
	if (s.lo == NULL || s.clo == NULL) {
		stop_all("out of memory");
	}
	// Equal rows and columns to start with.
	for (int j = 0; j <= s.py; ++j) {
		s.lo[j] = (int32_t)(((int64_t)j * s.rows.ny + s.py - 1) / s.py);
	}
	for (int j = 0; j < s.py; ++j) {
		for (int i = 0; i <= s.px; ++i) {
			col_lo(&s, j)[i] = (int32_t)(((int64_t)i * s.rows.nx + s.px - 1) / s.px);
		}
	}
	throng_world* own_world = thr_scene_use_part(scene, part);
	if (own_world == NULL) {
		cli_error("%s: its outcome measure samples every agent every step: not distributed yet", info->name);
		throng_world_destroy(part);
		throng_world_destroy(gathered);
		free(all);
		free(s.lo);
		free(s.clo);
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	// Rank 0 writes the frames: it checks and opens the outputs and writes
	// frame 0 from the whole world it built; every rank learns how that
	// went.
	cli_outputs outputs;
	memset(&outputs, 0, sizeof outputs);
	const bool frames = args.out != NULL || args.shm != NULL;
	const uint32_t every = args.every != 0 ? args.every : 1u;
	int opened_rc = CLI_EXIT_OK;
	throng_status out_st = THRONG_OK;
	if (my_rank == 0 && frames) {
		// A closed pipe or a size limit must come back as EPIPE or EFBIG
		// from write(), not kill the process before it can say so.
		signal(SIGPIPE, SIG_IGN);
		signal(SIGXFSZ, SIG_IGN);
		const bool from_file = throng_scenario_find(args.scenario) == NULL && throng_scene_is_file(args.scenario);
		opened_rc = cli_check_out_path(&args, from_file);
		if (opened_rc == CLI_EXIT_OK) {
			opened_rc = cli_outputs_open(&args, info->name, own_world, &outputs);
		}
		if (opened_rc == CLI_EXIT_OK) {
			out_st = cli_outputs_frame(&outputs, own_world); // frame 0: the initial state
		}
	}
	// The quality metrics: rank 0 observes a whole world gathered after
	// every step (gathered, which starts at the initial state: the first
	// observation reads it as the previous state).
	// A measure that samples every step (armies') is sampled there too,
	// before each step.
	const bool sampled = thr_scene_samples(scene);
	throng_metrics* metrics = NULL;
	if (my_rank == 0 && (!args.no_metrics || sampled) && opened_rc == CLI_EXIT_OK &&
	    ((!args.no_metrics && throng_metrics_create(own_world, throng_scene_goal_radius(scene), &metrics) != THRONG_OK) ||
	     thr_part_load(gathered, all, NULL, n, 0) != THRONG_OK)) {
		cli_error("%s", throng_last_error());
		cli_outputs_discard(&outputs);
		opened_rc = CLI_EXIT_FAILURE;
	}
	throng_world_destroy(own_world);
	MPI_Bcast(&opened_rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (opened_rc != CLI_EXIT_OK) {
		throng_metrics_destroy(metrics);
		throng_world_destroy(gathered);
		free(all);
		free(s.lo);
		free(s.clo);
		throng_scene_destroy(scene);
		return opened_rc;
	}
	out_st = frames ? told(out_st) : THRONG_OK;
	// With the frames on standard output, the summary goes to standard error.
	FILE* report = args.out != NULL && strcmp(args.out, "-") == 0 ? stderr : stdout;

	// This rank's own agents, by id.
	uint32_t n_own = 0;
	for (uint32_t id = 0; id < n; ++id) {
		if (owner_of(&s, thr_part_row(&s.rows, all[id].py), thr_part_col(&s.rows, all[id].px)) == my_rank) {
			all[n_own++] = all[id];
		}
	}
	thr_agent_record* own = all;
	mpi_agent *out = NULL, *got = NULL;
	size_t out_cap = 0, got_cap = 0;
	thr_agent_record* recs = malloc((size_t)n * sizeof *recs);
	uint8_t* ghost = malloc(n);
	uint8_t* keep = malloc(n > 0 ? n : 1u); // the part's slots: which own agents stay (exchange)
	gather g = {malloc((size_t)ranks * 2u * sizeof(int)), NULL, recs, NULL, NULL};
	if (my_rank == 0) {
		g.byid = malloc((size_t)n * sizeof *g.byid);
		g.have = malloc(n > 0 ? n : 1u);
		if (g.byid == NULL || g.have == NULL) {
			stop_all("out of memory");
		}
	}
	const size_t counts = (size_t)s.rows.ny > (size_t)s.py * (size_t)s.rows.nx ? (size_t)s.rows.ny
	                                                                         : (size_t)s.py * (size_t)s.rows.nx;
	uint64_t* per_row = balance_every != 0 ? malloc(counts * sizeof *per_row) : NULL;
	uint64_t borders_moved = 0;
	double most_owned = 0.0; // summed over steps
	if (recs == NULL || ghost == NULL || keep == NULL || g.counts == NULL || (balance_every != 0 && per_row == NULL)) {
		stop_all("out of memory");
	}
	g.displs = g.counts + ranks;

	const bool by_id = args.engine != THRONG_ENGINE_SIMD; // the scalar engine keeps the order it is given
	// Whether the own agents live in the part from step to step (the SIMD
	// engine, after the first load): then only the agents that leave and
	// the ghosts travel, and the part is updated in place. Otherwise they
	// are in `own` (n_own records) and the part is loaded whole.
	bool resident = false;
	// SIGINT and SIGTERM (mpirun passes a Ctrl-C on as SIGTERM, Slurm's
	// scancel sends it) stop the run after the step every rank agrees on,
	// with the outputs closed and the summary printed, as in throng run.
	cli_catch_stop_signals();
	int stop = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	const double t0 = MPI_Wtime();
	struct timespec start; // --realtime: every rank paces its own steps
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint64_t k = 0;
	throng_status metrics_st = THRONG_OK;
	double metrics_seconds = 0.0;
	for (; k < steps && out_st == THRONG_OK && metrics_st == THRONG_OK; ++k) {
		const source src = resident ? (source){NULL, part, throng_world_agent_count(part)} : (source){own, NULL, n_own};
		if (balance_every != 0 && k % balance_every == 0) {
			borders_moved += balance(&s, &src, per_row) ? 1u : 0u;
			traffic.collectives += 1.0;
		}
		uint32_t m = 0;
		exchange(&s, &src, keep, by_id, &out, &out_cap, &got, &got_cap, &m);
		if (m > n) {
			stop_all("more agents than the world holds");
		}
		uint32_t owned = 0; // own agents this step: kept and brought
		for (uint32_t i = 0; resident && i < src.n; ++i) {
			owned += keep[i];
		}
		for (uint32_t j = 0; j < m; ++j) {
			recs[j] = got[j].r;
			ghost[j] = (uint8_t)got[j].ghost;
			owned += ghost[j] ? 0u : 1u;
		}
		// One reduction: whether a rank was asked to stop, and the most
		// agents a rank steps as its own (the imbalance).
		int agree[2] = {cli_stop_signal, (int)owned};
		MPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		traffic.collectives += 1.0;
		stop = agree[0];
		if (stop != 0) {
			break;
		}
		most_owned += (double)agree[1];
		if (thr_part_update(part, resident ? keep : NULL, recs, ghost, m, k) != THRONG_OK) {
			stop_all("loading its part");
		}
		thr_scene_part_goals(scene, recs, m);
		if (sampled && my_rank == 0) {
			thr_scene_sample_with(scene, gathered); // the whole world at this step, gathered after the last
		}
		if (throng_scene_step(scene) != THRONG_OK) {
			stop_all("stepping");
		}
		if (args.realtime) {
			cli_pace(&start, k + 1u, throng_world_get_def(part).dt);
		}
		resident = !by_id;
		const bool frame_due = frames && (k + 1u) % every == 0;
		if (!resident || !args.no_metrics || frame_due || sampled) {
			// The own agents' new states, in the part's storage order (by
			// cell for the SIMD engine, by id for the scalar one).
			n_own = own_records(part, own);
		}
		if (!args.no_metrics || frame_due || sampled) {
			const double tg = cli_now_seconds();
			gather_whole(&g, own, n_own, n, gathered, k + 1u);
			if (!args.no_metrics) {
				const throng_world_stats ws = whole_stats(part); // the metrics read its running figures
				if (my_rank == 0) {
					gathered->stats = ws;
					metrics_st = throng_metrics_observe(metrics, gathered);
					// The gather is the metrics' cost (and a due frame's, which shares it).
					metrics_seconds += cli_now_seconds() - tg;
				}
			} else if (my_rank == 0 && frame_due) {
				outputs.seconds += cli_now_seconds() - tg; // the gather is the frame's cost
			}
			if (my_rank == 0 && metrics_st == THRONG_OK && frame_due) {
				out_st = cli_outputs_frame(&outputs, gathered);
			}
			int st2[2] = {(int)metrics_st, (int)out_st}; // rank 0's, told to every rank
			MPI_Bcast(st2, 2, MPI_INT, 0, MPI_COMM_WORLD);
			metrics_st = (throng_status)st2[0];
			out_st = (throng_status)st2[1];
		}
	}
	double seconds = MPI_Wtime() - t0;
	MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	const bool interrupted = stop != 0 && k < steps;
	throng_quality quality = throng_metrics_result(metrics); // rank 0's; all zero without metrics
	throng_metrics_destroy(metrics);
	throng_status closed = THRONG_OK;
	if (metrics_st != THRONG_OK) {
		if (my_rank == 0) {
			cli_error("%s", throng_last_error());
			cli_outputs_close(&outputs, false, NULL);
		}
		closed = metrics_st;
	} else if (out_st != THRONG_OK) {
		if (my_rank == 0) {
			// The library's message says what the file holds, exactly.
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", throng_last_error());
			cli_error("output stopped at step %llu: %s", (unsigned long long)k, msg);
			cli_outputs_close(&outputs, false, msg);
		}
		closed = out_st;
	} else if (my_rank == 0 && frames) {
		if (interrupted) {
			throng_exporter_set_interrupted(outputs.exporter);
		}
		closed = cli_outputs_close(&outputs, true, NULL);
	}
	// A failure to observe or to write (said above) ends the run here, on
	// every rank alike, without a summary.
	const bool failed = (frames ? told(closed) : closed) != THRONG_OK;
	int code = failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
	char decomposition[32];
	if (!failed) {
		// The run's stats: sums and maxima of the ranks' own agents'.
		const throng_world_stats st = whole_stats(part);
		double sent[2] = {traffic.bytes, traffic.ghosts};
		double most_sent[3] = {traffic.bytes, traffic.seconds, traffic.seconds - traffic.wait};
		MPI_Allreduce(MPI_IN_PLACE, sent, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(MPI_IN_PLACE, most_sent, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

		// Every agent to rank 0, into the whole world.
		if (resident) {
			n_own = own_records(part, own);
		}
		gather_whole(&g, own, n_own, n, gathered, k);
		if (my_rank == 0) {
			if (throng_world_set_threat(gathered, part->threat_p, part->threat_v, part->threat_active) != THRONG_OK) {
				stop_all("gathering the world");
			}
			gathered->stats = st;
			gathered->stats.steps = k;
			// The summary reads the scene's world: the whole one now. The
			// scene frees it; the part is freed here.
			throng_world* stepped = thr_scene_swap_world(scene, gathered);
			gathered = NULL;
			cli_summary sum;
			memset(&sum, 0, sizeof sum);
			if (cli_summary_measure(scene, args.no_metrics ? NULL : &quality, &sum) != THRONG_OK) {
				stop_all("measuring");
			}
			sum.scenario = info->name;
			sum.steps = steps;
			sum.engine = throng_engine_name(args.engine);
			sum.threads = args.engine == THRONG_ENGINE_SIMD ? (args.threads != 0 ? args.threads : throng_default_threads()) : 1;
			sum.threads_policy = throng_threads_policy_name(args.threads_policy);
			sum.steps_one_thread = st.steps_one_thread;
			sum.seconds = seconds;
			sum.frames = outputs.frames;
			sum.output_seconds = outputs.seconds;
			sum.metrics_seconds = metrics_seconds;
			sum.ranks = (uint32_t)ranks;
			const double taken = k > 0 ? (double)k : 1.0;
			sum.exchange_bytes = sent[0] / ranks / taken;
			sum.exchange_bytes_max = most_sent[0] / taken;
			sum.ghosts_per_agent = n > 0 ? sent[1] / ((double)n * taken) : 0.0;
			sum.exchange_seconds = most_sent[1];
			sum.exchange_work_seconds = most_sent[2];
			sum.collectives_per_step = traffic.collectives / taken;
			sum.balance_every = balance_every;
			snprintf(decomposition, sizeof decomposition, "%dx%d", s.px, s.py);
			sum.decomposition = decomposition;
			sum.border_moves = borders_moved;
			sum.imbalance = n > 0 ? most_owned / taken / ((double)n / ranks) : 1.0;
			if (interrupted) {
				sum.steps = k;
				sum.steps_planned = steps;
				sum.interrupted = stop == SIGINT ? "SIGINT" : "SIGTERM";
				cli_error("interrupted by %s after step %llu of %llu; outputs closed", sum.interrupted,
				          (unsigned long long)k, (unsigned long long)steps);
			}
			cli_summary_finish(&sum);
			if (args.summary == CLI_SUMMARY_JSON) {
				cli_summary_print_json(report, &sum);
			} else {
				cli_summary_print_text(report, &sum);
			}
			if (fflush(report) != 0 || ferror(report)) {
				cli_error("writing the summary failed");
				code = CLI_EXIT_FAILURE;
			}
			throng_world_destroy(stepped);
		}
	}
	free(g.counts);
	free(keep);
	free(g.byid);
	free(g.have);
	free(per_row);
	free(recs);
	free(ghost);
	free(out);
	free(got);
	free(all);
	free(s.lo);
	free(s.clo);
	throng_world_destroy(gathered); // NULL on rank 0 once the scene has it
	throng_scene_destroy(scene);    // and its world: the part, or on rank 0 the whole
	return code == CLI_EXIT_OK && interrupted ? 128 + stop : code;
}

int main(int argc, char** argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	cli_program = "throng-mpi";
	// Every rank reads the same arguments and scene and finds the same
	// problems: rank 0 alone says them. A rank's own failure (stop_all)
	// is said by that rank, on the standard error it had.
	if (my_rank != 0) {
		fflush(stderr);
		quiet_stderr = dup(STDERR_FILENO);
		const int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
	MPI_Type_contiguous((int)sizeof(mpi_agent), MPI_BYTE, &agent_type);
	MPI_Type_commit(&agent_type);
	MPI_Type_contiguous((int)sizeof(thr_agent_record), MPI_BYTE, &record_type);
	MPI_Type_commit(&record_type);
	int code = run(argc, argv);
	MPI_Type_free(&agent_type);
	MPI_Type_free(&record_type);
	MPI_Finalize();
	return code;
}
