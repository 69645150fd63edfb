// SPDX-License-Identifier: MIT
// throng-mpi's scene: opened from a name or a file, or restored from
// --resume's checkpoint, and checkpointed with --checkpoint (issue 33,
// item 9; docs/DISTRIBUTED.md, "Checkpoints").
//
// Every rank restores the same whole scene from the checkpoint and splits
// it as one that never stepped. A checkpoint is written by rank 0 from the
// whole world it gathers at the step (throng_scene_save_part_checkpoint):
// the file a single process writes at that step, restorable by throng run
// and throng-mpi alike, on any number of ranks.
#include <stdint.h>

#include "mpi_run.h"
#include "opts.h"
#include "outputs.h"
#include "resume.h"
#include "throng/scene_part.h"

int mpi_open_scene(const cli_run_args* args, throng_scene** scene)
{
	if (args->resume != NULL) {
		return cli_resume_open(args, scene);
	}
	throng_scene_def opt = cli_scene_def(args);
	const throng_status opened = throng_scene_open(args->scenario, &opt, scene);
	if (opened == THRONG_OK) {
		return CLI_EXIT_OK;
	}
	cli_error("%s", throng_last_error());
	// As throng run: an unknown name is a usage error, a bad file an input
	// error.
	const bool file = throng_scenario_find(args->scenario) == NULL && throng_scene_is_file(args->scenario);
	return !file && opened == THRONG_ERR_NOT_FOUND ? CLI_EXIT_USAGE
	       : file && (opened == THRONG_ERR_INVALID_ARGUMENT || opened == THRONG_ERR_IO || opened == THRONG_ERR_CORRUPT)
	           ? CLI_EXIT_INPUT
	           : CLI_EXIT_FAILURE;
}

bool mpi_checkpoint(const cli_run_args* args, throng_scene* scene, throng_world* gathered, uint64_t step,
                    uint64_t* written, double* seconds)
{
	throng_status st = THRONG_OK;
	if (self_rank == 0) {
		const double t0 = cli_now_seconds();
		st = throng_scene_save_part_checkpoint(scene, gathered, throng_scene_world(scene), args->checkpoint);
		if (st != THRONG_OK) {
			cli_error("--checkpoint: at step %llu: %s", (unsigned long long)step, throng_last_error());
		}
		*seconds += cli_now_seconds() - t0;
	}
	st = told(st);
	if (st == THRONG_OK) {
		*written = step;
	}
	return st == THRONG_OK;
}
