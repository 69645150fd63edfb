// SPDX-License-Identifier: MIT
// `throng run --checkpoint FILE --checkpoint-every N` and `--resume FILE`:
// a run's scene saved as it goes, and a run that goes on from one
// (include/throng/scenario.h, "Scene checkpoints").
#ifndef THRONG_CLI_RESUME_H
#define THRONG_CLI_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "throng/scenario.h"

/// Opens the scene of `throng run --resume FILE`: the checkpoint's, which
/// must be of <scenario>, --agents, --seed and --engine where they are
/// given, and runs on --threads and --threads-policy. Returns CLI_EXIT_OK;
/// or, after one line "--resume: ..." naming the file, CLI_EXIT_INPUT for a
/// checkpoint missing, unreadable or damaged, CLI_EXIT_USAGE for one of
/// another scene than the arguments say, CLI_EXIT_FAILURE otherwise.
int cli_resume_open(const cli_run_args* a, throng_scene** scene);

/// The steps a resumed run takes without --steps or --seconds: what is
/// left of the scene's default steps after the checkpoint's (0 past them).
uint64_t cli_resume_default_steps(throng_scene* scene);

/// Whether --checkpoint's file is due at the scene's step `step`: a
/// multiple of --checkpoint-every, or the run's end (`last`) when the step
/// last written (`written`, UINT64_MAX before the first) is another.
bool cli_checkpoint_is_due(const cli_run_args* a, uint64_t step, bool last, uint64_t written);

/// Writes --checkpoint's file when it is due (cli_checkpoint_is_due at
/// the scene's step), then sets *written to the step. The time taken is
/// added to *seconds. Returns false after printing "--checkpoint: ...".
bool cli_checkpoint_due(const cli_run_args* a, throng_scene* scene, bool last, uint64_t* written,
                        double* seconds);

#endif
