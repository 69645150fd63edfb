// SPDX-License-Identifier: MIT
// throng-mpi's ranks (mpi_run.h): who this process is among them, the
// MPI types of the records they send, what its exchanges cost, and how a
// rank that fails stops them all. Every other file of throng-mpi reads
// these; this one reads none of them.
#define _POSIX_C_SOURCE 200809L // dup, dup2

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "args.h"
#include "mpi_run.h"

int self_rank, rank_count;
MPI_Datatype mpi_agent_type;
MPI_Datatype mpi_record_type;
exchange_traffic traffic;

/// Ranks other than 0: their own standard error, kept while theirs points
/// at /dev/null (-1 on rank 0).
static int quiet_stderr = -1;

void ranks_start(int* argc, char*** argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &self_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &rank_count);
	// Every rank reads the same arguments and scene and finds the same
	// problems: rank 0 alone says them. A rank's own failure (stop_all)
	// is said by that rank, on the standard error it had.
	if (self_rank != 0) {
		fflush(stderr);
		quiet_stderr = dup(STDERR_FILENO);
		const int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
	MPI_Type_contiguous((int)sizeof(mpi_agent), MPI_BYTE, &mpi_agent_type);
	MPI_Type_commit(&mpi_agent_type);
	MPI_Type_contiguous((int)sizeof(throng_agent_record), MPI_BYTE, &mpi_record_type);
	MPI_Type_commit(&mpi_record_type);
}

void ranks_end(void)
{
	MPI_Type_free(&mpi_agent_type);
	MPI_Type_free(&mpi_record_type);
	MPI_Finalize();
}

_Noreturn void stop_all(const char* what)
{
	if (quiet_stderr >= 0) {
		fflush(stderr);
		dup2(quiet_stderr, STDERR_FILENO);
	}
	cli_error("rank %d: %s: %s", self_rank, what, throng_last_error());
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1); // MPI_Abort does not return; the compiler cannot know it
}
