// SPDX-License-Identifier: MIT
// Command-line parsing for `throng run` (strict numbers, one-line errors).
#ifndef THRONG_CLI_ARGS_H
#define THRONG_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"
#include "throng/export.h"
#include "throng/scenario.h"
#include "throng/throng.h"


/// Largest --agents and --steps values accepted.
#define CLI_MAX_AGENTS 10000000u
/// Most agents --shm-capacity takes: ten times the most --agents (a feed
/// holds them twice, a few bytes a field each).
#define CLI_MAX_FEED_AGENTS 100000000u
#define CLI_MAX_STEPS 1000000000u
#define CLI_MAX_THREADS THRONG_MAX_THREADS

typedef enum cli_summary_format {
	CLI_SUMMARY_TEXT = 0,
	CLI_SUMMARY_JSON,
} cli_summary_format;

/// The options of `throng run`.
typedef struct cli_run_args {
	const char* scenario;   ///< points into argv; NULL until given
	uint32_t agents;        ///< 0 = the scenario's default
	bool steps_set;         ///< false = the scenario's default
	uint64_t steps;
	uint64_t seed;          ///< default 1
	throng_engine engine;   ///< default simd
	uint32_t threads;       ///< 0 = OpenMP's default
	throng_threads_policy threads_policy; ///< --threads-policy; default adapt
	cli_summary_format summary;
	bool no_metrics;        ///< --metrics off: no crowd-quality metrics (default on)
	bool help;              ///< --help was given: print usage, run nothing
	const char* out;        ///< --out FILE or "-"; NULL = no output
	throng_format format;   ///< --format, resolved from --out's extension when not given
	uint32_t fields;        ///< --fields mask; 0 = the default
	uint32_t every;         ///< --every; 1 when not given
	const char* shm;        ///< --shm NAME; NULL = no live feed
	bool shm_replace;       ///< --shm-replace: replace an existing object of that name
	uint32_t shm_capacity;  ///< --shm-capacity N: most agents a frame of the feed holds; 0 = the feed's default
	bool realtime;          ///< --realtime: no faster than simulated time
	bool seconds_set;       ///< --seconds was given (steps = ceil(seconds / dt))
	double seconds;         ///< --seconds: simulated time (s)
	bool quiet;             ///< --quiet: no progress bar
	bool seed_set;          ///< --seed was given (a resume checks it against the checkpoint's)
	bool engine_set;        ///< --engine was given (likewise)
	const char* checkpoint; ///< --checkpoint FILE: where the scene's checkpoint goes; NULL = none
	uint32_t checkpoint_every; ///< --checkpoint-every N: also at every scene step that is a multiple of N; 0 = at the end only
	const char* resume;     ///< --resume FILE: the scene comes from this checkpoint; NULL = none
} cli_run_args;

/// Largest --seconds value accepted (s of simulated time).
#define CLI_MAX_SECONDS 1.0e7

/// Parses a decimal number of seconds in (0, CLI_MAX_SECONDS]: digits, '.'
/// and an exponent only (no sign, space, hex, inf or nan). Returns false on
/// error.
bool cli_parse_seconds(const char* text, double* out);

/// The steps of `dt` that cover `seconds` of simulated time:
/// ceil(seconds / dt), computed in double with a relative slack of 1e-6 so
/// that the rounding of dt to float (up to 6e-8 relative) never adds a
/// step: 10 s at dt = 1/60 s is 600 steps, 1.4 s at dt = 0.7 is 2.
/// Returns false, leaving *steps alone, when the count is not from 1 to
/// CLI_MAX_STEPS (10 s at dt = 1e-20 is 1e21 steps: converting that to an
/// integer is undefined, and gave 0); *count then holds it as a double.
bool cli_steps_for_seconds(double seconds, float dt, uint64_t* steps, double* count);

/// Parses argv[first..argc) of `throng run` into *out. Returns CLI_EXIT_OK,
/// or CLI_EXIT_USAGE after printing one line naming the bad argument to
/// stderr. Does not check that the scenario exists (nor that one is given:
/// with --resume it is optional). Checks the output
/// options together: --format, --fields and --every need --out or --shm,
/// SQLite needs a file, and PED and SQLite take no --fields; and the
/// checkpoint options: --checkpoint-every needs --checkpoint, and --out
/// is neither checkpoint's file. With --help
/// it prints `usage` (unless NULL) to stdout instead and returns CLI_EXIT_OK with
/// out->help set: the caller has nothing more to do.
int cli_parse_run(int argc, char** argv, int first, const char* usage, cli_run_args* out);

/// The steps the run takes: --steps, or the steps of --seconds of the
/// scene's dt (cli_steps_for_seconds), or the scene's default. Returns
/// false after printing the error when --seconds gives no valid count.
bool cli_run_steps(const cli_run_args* a, throng_scene* scene, uint64_t* steps);

/// The scene settings `throng run`'s arguments give (agents, seed, engine,
/// threads and their policy), the rest at their defaults.
throng_scene_def cli_scene_def(const cli_run_args* a);

/// The program errors name: "throng", or "throng-mpi" (cli/mpi_main.c).
extern const char* cli_program;

/// Prints cli_program, ": " and the formatted message, then a newline, to
/// stderr.
void cli_error(const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

#endif
