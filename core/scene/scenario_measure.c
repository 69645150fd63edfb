// SPDX-License-Identifier: MIT
// Outcome measures: the named figures a scene reports on its state
// (throng_scene_outcomes).
//
// A measure hangs off a scene's definition by name, like its archetypes or
// its threat: a built-in's table entry names its own (armies, flock), a
// scenario file names one with `measure: NAME`, `throng save` writes it,
// and the one builder (sf_build_into) attaches it to the scene. Each
// measure reads the world only (never the build function's layout), so a
// built-in and its saved file report the same figures at every step.
// The measures themselves live with their scenes (scenario_armies.c,
// scenario_flock.c); this file holds their table and the generic calls.

#include <string.h>

#include "scenario_internal.h"

const thr_measure* const thr_measure_table[] = {&thr_armies_measure, &thr_flock_measure};
const uint32_t thr_measure_count = sizeof thr_measure_table / sizeof thr_measure_table[0];
_Static_assert(sizeof thr_measure_table / sizeof thr_measure_table[0] <= THR_MAX_MEASURES,
               "the file reader lists at most THR_MAX_MEASURES measure names");

void thr_scene_attach_measure(throng_scene* scene, const thr_measure* measure)
{
	scene->measure = measure;
	memset(&scene->measure_state, 0, sizeof scene->measure_state);
	if (measure != NULL && measure->init != NULL) {
		measure->init(scene, &scene->measure_state);
	}
}

uint32_t throng_scene_outcomes(const throng_scene* scene, throng_scene_outcome* out, uint32_t cap)
{
	if (scene == NULL || scene->measure == NULL || (out == NULL && cap > 0)) {
		return 0;
	}
	return scene->measure->outcome(scene, &scene->measure_state, out, cap);
}
