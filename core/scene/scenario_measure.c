// SPDX-License-Identifier: MIT
// Outcome measures: the named figures a scene reports on its state
// (throng_scene_outcomes); and the measurement lines and areas a
// definition declares (throng_scene_measure_create).
//
// A measure hangs off a scene's definition by name, like its archetypes or
// its threat: a built-in's table entry names its own (armies, charge, flock), a
// scenario file names one with `measure: NAME`, `throng save` writes it,
// and the one builder (sf_build_into) attaches it to the scene. Each
// measure reads the world only (never the build function's layout), so a
// built-in and its saved file report the same figures at every step.
// The measures themselves live with their scenes (scenario_armies.c,
// scenario_charge.c, scenario_flock.c); this file holds their table and the generic calls.

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "throng/measure.h"

const thr_measure* const thr_measure_table[] = {&thr_charge_measure, &thr_battle_measure, &thr_flock_measure, &thr_flows_measure,
                                                &thr_evacuation_measure};
const uint32_t thr_measure_count = sizeof thr_measure_table / sizeof thr_measure_table[0];
_Static_assert(sizeof thr_measure_table / sizeof thr_measure_table[0] <= THR_MAX_MEASURES,
               "the file reader lists at most THR_MAX_MEASURES measure names");

void thr_measure_init_unresolved(const throng_scene* scene, thr_measure_state* state)
{
	(void)scene;
	state->resolved_at = -1.0;
}

void thr_scene_attach_measure(throng_scene* scene, const thr_measure* measure)
{
	scene->measure = measure;
	free(scene->measure_state.born);
	free(scene->measure_state.free_time);
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

throng_status throng_scene_measure_create(const throng_scene* scene, throng_measure** out)
{
	static const char fn[] = "throng_scene_measure_create";
	if (scene == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, scene == NULL ? "scene" : "out");
	}
	*out = NULL;
	const sf_model* m = scene->def.model;
	if (m == NULL || (m->measure_line_count == 0 && m->measure_area_count == 0)) {
		return THRONG_OK;
	}
	throng_world_def wd = throng_world_get_def(scene->world);
	throng_measure_def def = throng_measure_default_def();
	if (wd.bounds_mode != THRONG_BOUNDS_OPEN) {
		def.bounds_min = wd.bounds_min;
		def.bounds_max = wd.bounds_max;
		def.wrap = wd.bounds_mode == THRONG_BOUNDS_WRAP;
	}
	throng_measure* set = NULL;
	throng_status st = throng_measure_create(&def, &set);
	for (uint32_t k = 0; st == THRONG_OK && k < m->measure_line_count; ++k) {
		st = throng_measure_add_line(set, m->measure_lines[k].points[0], m->measure_lines[k].points[1], NULL);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < m->measure_area_count; ++k) {
		st = throng_measure_add_area(set, m->measure_areas[k].points, m->measure_areas[k].count, NULL);
	}
	if (st != THRONG_OK) {
		throng_measure_destroy(set);
		return st;
	}
	*out = set;
	return THRONG_OK;
}
