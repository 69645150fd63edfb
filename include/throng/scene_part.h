// SPDX-License-Identifier: MIT
// A scene on a part world (EXPERIMENTAL: names and behaviour may change
// between minor versions): the scene's side of a distributed run
// (docs/DISTRIBUTED.md). libthrong_scene exports these calls; the part
// worlds themselves are the core's (include/throng/part.h). The throng-mpi
// program drives a scene through them and nothing private.
//
// Every process builds the same scene (throng_scene_open), makes a part
// world of the scene's world (throng_part_create) and hands it to the
// scene (throng_scene_use_part) before its first step (or the first step
// after a checkpoint it was restored from). Each step the
// driver loads the part (throng_part_load or _update), tells the scene
// the goals that came with the records (throng_scene_part_goals), lets
// the one process that holds the whole world sample the scene's measure
// on it (throng_scene_sample_with, when throng_scene_samples), then steps
// the scene (throng_scene_step: the script runs on the part's agents,
// ghosts included). At the end the whole world, gathered from the parts,
// becomes the scene's world again (throng_scene_swap_world) before the
// summary and the outcome are read; gathered between steps, it can be
// checkpointed with the scene (throng_scene_save_part_checkpoint).
#ifndef THRONG_SCENE_PART_H
#define THRONG_SCENE_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/part.h"
#include "throng/scenario.h"

THRONG_API_BEGIN

/// Makes `part`, a part world of the scene's world (throng_part_create),
/// the world the scene steps: its
/// script then runs on the part's agents, ghosts included. Returns the
/// scene's own world, which the caller now owns (and destroys); the scene
/// owns `part`. Returns NULL, changing nothing, when scene or part is NULL
/// or when the part is not at the step of the scene's world (a part is
/// made at its whole world's step: a scene restored from a checkpoint is
/// split as one that never stepped). While the scene's world is a part,
/// throng_scene_step samples no measure (a measure reads every agent):
/// the driver does (throng_scene_sample_with).
throng_world* throng_scene_use_part(throng_scene* scene, throng_world* part);

/// Makes `world` the world the scene reports on and steps
/// (throng_scene_world, throng_scene_outcomes) and returns the one it
/// had: ownership of both changes hands (the scene owns `world`, the
/// caller the one returned). For a distributed run's end: the whole
/// world gathered from the parts replaces the part. NULL scene: NULL.
throng_world* throng_scene_swap_world(throng_scene* scene, throng_world* world);

/// Whether the scene's outcome measure samples the world before each
/// step (charge's, battle's and evacuation's do): a distributed driver
/// must then sample it on the whole world (throng_scene_sample_with).
/// False for a NULL scene.
bool throng_scene_samples(const throng_scene* scene);

/// Samples the scene's measure on `whole`, a whole world (borrowed) at the
/// scene's current step, as throng_scene_step does before it steps a
/// whole world (after the script: the measures read positions, group
/// labels and target agents, which the scripts leave alone). Does nothing
/// when the scene does not sample.
void throng_scene_sample_with(throng_scene* scene, throng_world* whole);

/// Whether the scene's outcome measure reads what each step listed
/// (throng_world_events; concourse's flows do): a distributed driver must
/// then hand it the whole world after each step, with the step's events
/// (throng_scene_after_with). False for a NULL scene.
bool throng_scene_reads_events(const throng_scene* scene);

/// Lets the scene's measure read `whole`, a whole world (borrowed) just
/// after a step, its events those of the step (throng_part_set_events), as
/// throng_scene_step does after it steps a whole world. Does nothing when
/// the measure reads no events.
void throng_scene_after_with(throng_scene* scene, throng_world* whole);

/// Before each step of a scene on a part world, with the n records just
/// loaded into it (borrowed): the random goal of each of those agents,
/// which moves with the agent as its target point (a goal drawn on another
/// part is the target the agent arrives with). Does nothing for a scene
/// without random goals.
void throng_scene_part_goals(throng_scene* scene, const throng_agent_record* recs, uint32_t n);

/// Writes a checkpoint of a scene on a part world to `path`, as
/// throng_scene_save_checkpoint writes a scene's: `whole` is the whole
/// world gathered from the parts at the scene's step (a part world
/// holding every agent, none a ghost: throng_part_load_next) with the
/// whole world's stats (throng_part_set_stats); `part` is the scene's
/// world, whose threat and sources (the same on every part) whole takes
/// (throng_part_copy_sources), and the scene's random goals are taken
/// from whole's agents. Call it on the process whose scene samples and
/// reads the whole world (its measure's state is the whole world's).
/// The checkpoint restores as any (throng_scene_load_checkpoint): a
/// whole scene at that step, which the driver may split again. Fails as
/// throng_scene_save_checkpoint does, and with
/// THRONG_ERR_INVALID_ARGUMENT when the worlds' steps differ or whole
/// does not hold its whole world; the file is then left as it was.
throng_status throng_scene_save_part_checkpoint(throng_scene* scene, throng_world* whole, const throng_world* part,
                                                const char* path);

THRONG_API_END

#endif
