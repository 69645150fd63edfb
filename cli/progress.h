// SPDX-License-Identifier: MIT
// The progress bar of `throng run`: one line on stderr, redrawn in place.
#ifndef THRONG_CLI_PROGRESS_H
#define THRONG_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_progress {
	bool on;          ///< drawing at all (a terminal, not --quiet)
	FILE* out;        ///< stderr
	uint64_t total;   ///< steps to run
	uint32_t agents;
	double start;     ///< wall clock at the start (s)
	double last;      ///< wall clock of the last redraw (s)
	bool drawn;       ///< a line is on the screen
} cli_progress;

/// Whether a bar should be drawn: stderr is a terminal and not `quiet`.
bool cli_progress_wanted(bool quiet);

/// Starts a bar for `total` steps of `agents` agents when `on`; otherwise
/// every call below does nothing.
void cli_progress_start(cli_progress* p, bool on, uint64_t total, uint32_t agents);

/// Reports `done` steps; redraws at most ten times a second (and at the end).
void cli_progress_update(cli_progress* p, uint64_t done);

/// Erases the bar so that what follows starts on a clean line.
void cli_progress_finish(cli_progress* p);

/// Formats the bar for `done` of `total` steps after `elapsed` seconds into
/// buf: "[#####.....]  50%  300/600 steps  ETA 0:05  1.2M agent-steps/s".
/// Exposed for the tests.
void cli_progress_format(char* buf, size_t cap, uint64_t done, uint64_t total, uint32_t agents, double elapsed);

#endif
