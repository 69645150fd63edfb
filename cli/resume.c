// SPDX-License-Identifier: MIT
// `throng run --checkpoint` and `--resume`: the scene checkpoint calls of
// the library (throng_scene_save_checkpoint, throng_scene_load_checkpoint)
// with the command line's checks and exit statuses.
#include "resume.h"

#include "opts.h"
#include "outputs.h"

int cli_resume_open(const cli_run_args* a, throng_scene** scene)
{
	throng_scene_resume_def expect = throng_scene_default_resume_def();
	expect.scene = a->scenario;
	expect.agents = a->agents;
	expect.check_seed = a->seed_set;
	expect.seed = a->seed;
	expect.check_engine = a->engine_set;
	expect.engine = a->engine;
	throng_status st = throng_scene_load_checkpoint(a->resume, &expect, scene);
	if (st == THRONG_OK) {
		st = throng_world_set_threads(throng_scene_world(*scene), a->threads, a->threads_policy);
		if (st != THRONG_OK) {
			throng_scene_destroy(*scene);
			*scene = NULL;
		}
	}
	if (st == THRONG_OK) {
		return CLI_EXIT_OK;
	}
	cli_error("--resume: %s", throng_last_error());
	switch (st) {
	case THRONG_ERR_IO:
	case THRONG_ERR_CORRUPT: return CLI_EXIT_INPUT;
	case THRONG_ERR_INVALID_ARGUMENT:
	case THRONG_ERR_NOT_FOUND: return CLI_EXIT_USAGE;
	default: return CLI_EXIT_FAILURE;
	}
}

uint64_t cli_resume_default_steps(throng_scene* scene)
{
	const uint64_t all = throng_scene_info(scene)->default_steps;
	const uint64_t done = throng_world_view(throng_scene_world(scene)).step;
	return all > done ? all - done : 0u;
}

bool cli_checkpoint_is_due(const cli_run_args* a, uint64_t step, bool last, uint64_t written)
{
	return a->checkpoint != NULL &&
	       (last ? written != step : a->checkpoint_every != 0 && step % a->checkpoint_every == 0);
}

bool cli_checkpoint_due(const cli_run_args* a, throng_scene* scene, bool last, uint64_t* written,
                        double* seconds)
{
	// The scene's own step, not the run's: a resumed run keeps the cadence.
	const uint64_t step = throng_world_view(throng_scene_world(scene)).step;
	if (!cli_checkpoint_is_due(a, step, last, *written)) {
		return true;
	}
	const double t0 = cli_now_seconds();
	if (throng_scene_save_checkpoint(scene, a->checkpoint) != THRONG_OK) {
		cli_error("--checkpoint: at step %llu: %s", (unsigned long long)step, throng_last_error());
		return false;
	}
	*written = step;
	*seconds += cli_now_seconds() - t0;
	return true;
}
