// SPDX-License-Identifier: MIT
// `throng measure`: the command (cli/measure.c) and its reports
// (cli/measure_print.c).
#ifndef THRONG_CLI_MEASURE_H
#define THRONG_CLI_MEASURE_H

#include <stdint.h>
#include <stdio.h>

#include "throng/measure.h"

#define CLI_MEASURE_MAX_GEOMETRY (THRONG_MEASURE_MAX_LINES + THRONG_MEASURE_MAX_AREAS)

/// What a report prints: the set fed with the whole run, the window, and
/// the lines and areas in the order given (lines and areas each numbered
/// from 0 in that order).
typedef struct cli_measure_report {
	const char* run;
	const throng_measure* m;
	double from, to; ///< flows over [from, to), area means over [from, to]
	uint32_t n;
	const char* option[CLI_MEASURE_MAX_GEOMETRY];   ///< "--line", "--area", "--area-polygon"
	const char* geometry[CLI_MEASURE_MAX_GEOMETRY]; ///< the option's value as given
} cli_measure_report;

/// `throng measure` (argv[1] is "measure"); its exit status.
int cli_measure(int argc, char** argv);

/// The reports on f; each returns the exit status (CLI_EXIT_OK, or
/// CLI_EXIT_FAILURE when the library refuses a query).
int cli_measure_print_text(FILE* f, const cli_measure_report* rep);
int cli_measure_print_json(FILE* f, const cli_measure_report* rep);
int cli_measure_print_csv(FILE* f, const cli_measure_report* rep);

#endif
