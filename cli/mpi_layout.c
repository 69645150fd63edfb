// SPDX-License-Identifier: MIT
// throng-mpi's decomposition (mpi_run.h): the world's cells in blocks, one
// a rank, whose borders follow the agents (docs/DISTRIBUTED.md, "The
// decomposition", "Load balance"), and the options that choose them.
#include <string.h>

#include "mpi_run.h"
#include "opts.h"

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

int owner_of(const layout* L, int32_t row, int32_t col)
{
	const int j = last_at_or_below(L->lo, L->py, row);
	return j * L->px + last_at_or_below(col_lo(L, j), L->px, col);
}

void shape(layout* L, bool blocks)
{
	L->px = 1;
	for (int d = 1; blocks && d * d <= rank_count; ++d) {
		if (rank_count % d == 0) {
			L->px = d;
		}
	}
	L->py = rank_count / L->px;
}



void equal_borders(layout* L)
{
	for (int j = 0; j <= L->py; ++j) {
		L->lo[j] = (int32_t)(((int64_t)j * L->rows.ny + L->py - 1) / L->py);
	}
	for (int j = 0; j < L->py; ++j) {
		for (int i = 0; i <= L->px; ++i) {
			col_lo(L, j)[i] = (int32_t)(((int64_t)i * L->rows.nx + L->px - 1) / L->px);
		}
	}
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

bool balance(layout* L, const source* src, uint64_t* count)
{
	const int32_t ny = L->rows.ny, nx = L->rows.nx;
	memset(count, 0, (size_t)ny * sizeof *count);
	for (uint32_t k = 0; k < src->n; ++k) {
		float x, y;
		if (source_own(src, k, &x, &y)) {
			count[throng_part_row(&L->rows, y)] += 1u;
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
			const int j = last_at_or_below(L->lo, L->py, throng_part_row(&L->rows, y));
			count[(size_t)j * (size_t)nx + (size_t)throng_part_col(&L->rows, x)] += 1u;
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

int halo_ranks(const layout* L, int32_t row, int32_t col, int owner, uint64_t* stamp, uint64_t mark, int* dst)
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

bool take_layout_options(int* argc, char** argv, uint64_t* balance_every, bool* blocks)
{
	bool seen[2] = {false, false}; // --balance-every, --decompose: once each, as every option
	int kept = 2;
	for (int k = 2; k < *argc; ++k) {
		const char* arg = argv[k];
		const char* eq = strchr(arg, '=');
		const size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
		const bool balance_opt = len == 15 && strncmp(arg, "--balance-every", 15) == 0;
		if (!balance_opt && !(len == 11 && strncmp(arg, "--decompose", 11) == 0)) {
			argv[kept++] = argv[k];
			continue;
		}
		const char* name = balance_opt ? "--balance-every" : "--decompose";
		if (eq == NULL && k + 1 >= *argc) {
			cli_error("%s: missing value (%s)", name, balance_opt ? "an integer from 0 to 1000000000" : "blocks or strips");
			return false;
		}
		const char* value = eq != NULL ? eq + 1 : argv[++k];
		if (seen[balance_opt ? 0 : 1]) {
			cli_error("%s: given twice (the second time as \"%.64s\"); give it once", name, value);
			return false;
		}
		seen[balance_opt ? 0 : 1] = true;
		if (balance_opt && !opt_parse_u64(value, 0, CLI_MAX_STEPS, false, balance_every)) {
			cli_error("--balance-every: expected an integer from 0 to %u, got \"%.64s\"", CLI_MAX_STEPS, value);
			return false;
		}
		if (!balance_opt) {
			if (strcmp(value, "blocks") != 0 && strcmp(value, "strips") != 0) {
				cli_error("--decompose: expected blocks or strips, got \"%.64s\"", value);
				return false;
			}
			*blocks = strcmp(value, "blocks") == 0;
		}
	}
	*argc = kept;
	return true;
}
