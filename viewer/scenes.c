// SPDX-License-Identifier: MIT
// Scene lookup and opening: every scene is the library's
// (throng_scene_open: a built-in or a scenario file). `solo`, the seeds'
// playground (core/scene/scenario_solo.c), opens with the mouse as the
// agents' target and at most SOLO_MAX_AGENTS agents.
#include "scenes.h"

#include <stdio.h>
#include <string.h>

#include "throng/scenario_file.h"

#define SOLO_NAME "solo"
#define SOLO_MAX_AGENTS 64u

bool vw_scene_exists(const char* name)
{
	return name != NULL && throng_scenario_find(name) != NULL;
}

/// Prints one problem of a scenario file to stderr and counts it.
static void print_diagnostic(void* user, const throng_diagnostic* d)
{
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	fprintf(stderr, "%s\n", line);
	*(uint32_t*)user += 1;
}

void vw_scene_names(char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	uint32_t n = throng_scenario_count();
	for (uint32_t k = 0; k < n; ++k) {
		const char* name = throng_scenario_at(k)->name;
		int w = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : ", ", name);
		if (w < 0 || (size_t)w >= cap - used) {
			return;
		}
		used += (size_t)w;
	}
}

throng_status vw_scene_open(const char* name, const throng_scene_def* options, vw_scene* out, char* err,
                            size_t err_cap)
{
	memset(out, 0, sizeof *out);
	throng_scene_def o = options != NULL ? *options : throng_scene_default_def();
	o.record_forces = true;
	throng_status st;
	if (name != NULL && strcmp(name, SOLO_NAME) == 0) {
		// The viewer's playground: the mouse is the target, and a window
		// holds no more than a few agents' force arrows.
		if (o.agents > SOLO_MAX_AGENTS) {
			snprintf(err, err_cap, "scene solo: agents must be from 1 to %u, got %u", SOLO_MAX_AGENTS, o.agents);
			return THRONG_ERR_INVALID_ARGUMENT;
		}
		o.agents = o.agents != 0 ? o.agents : 1u;
		out->mouse_target = true;
	}
	uint32_t printed = 0;
	st = throng_scene_open_report(name, &o, print_diagnostic, &printed, &out->scene);
	if (st != THRONG_OK) {
		if (printed > 0) {
			snprintf(err, err_cap, "%s: %u problem%s (above)", name, printed, printed == 1 ? "" : "s");
		} else {
			snprintf(err, err_cap, "%s", throng_last_error());
		}
		memset(out, 0, sizeof *out);
		return st;
	}
	out->world = throng_scene_world(out->scene);
	out->name = throng_scene_info(out->scene)->name;
	return THRONG_OK;
}

void vw_scene_close(vw_scene* s)
{
	if (s->scene != NULL) {
		throng_scene_destroy(s->scene);
	} else {
		throng_world_destroy(s->world);
	}
	memset(s, 0, sizeof *s);
}

throng_status vw_scene_step(vw_scene* s, bool script)
{
	if (s->scene != NULL && script) {
		return throng_scene_step(s->scene);
	}
	return throng_world_step(s->world);
}

bool vw_scene_threat(const vw_scene* s, throng_vec2* position)
{
	if (s->scene != NULL) {
		return throng_scene_threat(s->scene, position);
	}
	*position = s->threat;
	return s->threat_active;
}
