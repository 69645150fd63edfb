// SPDX-License-Identifier: MIT
// Where `throng run`'s frames go: --out (an exporter) and --shm (a live
// feed), and the signals that stop a run with its outputs closed; shared
// by throng and throng-mpi.
#ifndef THRONG_CLI_OUTPUTS_H
#define THRONG_CLI_OUTPUTS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "args.h"
#include "throng/export.h"

/// --out and --shm of one run.
typedef struct cli_outputs {
	throng_exporter* exporter;
	throng_feed* feed;
	double seconds;  ///< wall time spent writing and publishing
	uint64_t frames; ///< frames written (or published, without --out)
} cli_outputs;

/// The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT), or 0.
extern volatile sig_atomic_t cli_stop_signal;

/// SIGINT, SIGTERM, SIGHUP (a closed terminal, a dropped ssh session) and
/// SIGQUIT set cli_stop_signal, which the stepping loop reads to stop after
/// the current step; the handler resets itself, so a second signal kills
/// the process at once (SIGQUIT then dumps core, as usual). A signal that
/// cannot be caught (SIGKILL) leaves --out's temporary behind: the next
/// run writing the same path removes it (include/throng/file.h).
void cli_catch_stop_signals(void);

/// "SIGINT", "SIGTERM", "SIGHUP" or "SIGQUIT" (the summary's
/// `interrupted`).
const char* cli_signal_name(int sig);

/// --realtime: sleeps until `steps` steps of dt have passed since `start`
/// (CLOCK_MONOTONIC), or a stop signal came.
void cli_pace(const struct timespec* start, uint64_t steps, float dt);

/// Monotonic wall time in seconds.
double cli_now_seconds(void);

/// --out checked against the other files of the run, before anything is
/// written: it may not be the scenario file (from_file: a->scenario names
/// a file), and a path that is standard output's file (/dev/stdout, or the
/// file or pipe stdout is redirected to) is taken as "-", so the summary
/// goes to standard error instead of into the frames; SQLite cannot write
/// to standard output, so there it is refused. A character device
/// (/dev/null, a terminal) is left alone: both write to it in place, as
/// asked. Returns CLI_EXIT_OK or CLI_EXIT_USAGE (printed).
int cli_check_out_path(cli_run_args* a, bool from_file);

/// Opens --out and --shm before anything is simulated, so an unwritable
/// path fails at once; `world` is the world whose frames they take.
/// Returns CLI_EXIT_OK or CLI_EXIT_OUTPUT (printed).
int cli_outputs_open(const cli_run_args* a, const char* scenario, const throng_world* world, cli_outputs* o);

/// Writes and publishes the world's current step when it is due.
throng_status cli_outputs_frame(cli_outputs* o, const throng_world* world);

/// Finishes the outputs and frees them; returns the first failure's
/// status, printed when `report` (after a failure already reported, it is
/// not repeated unless finishing added to it).
throng_status cli_outputs_close(cli_outputs* o, bool report, const char* reported);

/// Frees the outputs of a run that simulated nothing: --out's path stays
/// as it was, and --shm's name is removed.
void cli_outputs_discard(cli_outputs* o);

#endif
