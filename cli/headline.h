// SPDX-License-Identifier: MIT
// The first lines of `throng run`'s text summary: what ran, how fast and
// what happened, in words (cli/headline.c).
#ifndef THRONG_CLI_HEADLINE_H
#define THRONG_CLI_HEADLINE_H

#include <stdio.h>

#include "summary.h"

/// Writes the headline of a finished run, then a blank line: the scene,
/// its agents, simulated and wall time and agent-steps per second on one
/// line; what happened (goals reached, the scene's outcome figures, an
/// interruption) on the next. Figures with no value yet say so in words.
void cli_headline_print(FILE* out, const cli_summary* s);

#endif
