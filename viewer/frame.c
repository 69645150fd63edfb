// SPDX-License-Identifier: MIT
// Copying a world's state into a vw_frame.
//
// The world's view is zero-copy but only valid until the next step, and the
// host steps on its own thread, so every published frame owns a copy of
// what the renderer needs: positions, headings, radii, ids, groups and
// archetypes (32 bytes an agent, about 3 MB at 100,000 agents), the shapes,
// the controllers and the selected agent's forces.
#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool vw_grow(void** p, size_t n, size_t size)
{
	void* q = realloc(*p, (n ? n : 1u) * size);
	if (q == NULL) {
		return false;
	}
	*p = q;
	return true;
}

static bool reserve_agents(vw_frame* f, uint32_t n)
{
	if (n <= f->cap && f->id != NULL) {
		return true;
	}
	bool ok = vw_grow((void**)&f->id, n, sizeof(uint32_t)) && vw_grow((void**)&f->group, n, sizeof(uint32_t)) &&
	          vw_grow((void**)&f->archetype, n, sizeof(uint32_t)) && vw_grow((void**)&f->x, n, sizeof(float)) &&
	          vw_grow((void**)&f->y, n, sizeof(float)) && vw_grow((void**)&f->hx, n, sizeof(float)) &&
	          vw_grow((void**)&f->hy, n, sizeof(float)) && vw_grow((void**)&f->radius, n, sizeof(float));
	if (ok) {
		f->cap = n;
	}
	return ok;
}

static bool copy_shapes(vw_frame* f, const throng_world* w)
{
	uint32_t no = throng_world_obstacle_count(w);
	if (no > f->obstacle_cap || f->obstacle_c == NULL) {
		if (!vw_grow((void**)&f->obstacle_c, no, sizeof(throng_vec2)) ||
		    !vw_grow((void**)&f->obstacle_r, no, sizeof(float))) {
			return false;
		}
		f->obstacle_cap = no;
	}
	f->obstacle_count = no;
	for (uint32_t k = 0; k < no; ++k) {
		if (throng_world_get_obstacle(w, k, &f->obstacle_c[k], &f->obstacle_r[k]) != THRONG_OK) {
			f->obstacle_c[k] = (throng_vec2){0.0f, 0.0f};
			f->obstacle_r[k] = 0.0f;
		}
	}
	uint32_t nw = throng_world_wall_count(w);
	if (nw > f->wall_cap || f->wall_a == NULL) {
		if (!vw_grow((void**)&f->wall_a, nw, sizeof(throng_vec2)) || !vw_grow((void**)&f->wall_b, nw, sizeof(throng_vec2))) {
			return false;
		}
		f->wall_cap = nw;
	}
	f->wall_count = nw;
	for (uint32_t k = 0; k < nw; ++k) {
		if (throng_world_get_wall(w, k, &f->wall_a[k], &f->wall_b[k]) != THRONG_OK) {
			f->wall_a[k] = f->wall_b[k] = (throng_vec2){0.0f, 0.0f};
		}
	}
	return true;
}

static void copy_focus(vw_focus* focus, const throng_world* w, uint32_t selected)
{
	memset(focus, 0, sizeof *focus);
	if (selected == VW_NO_AGENT || throng_world_get_agent(w, selected, &focus->state) != THRONG_OK) {
		return;
	}
	focus->valid = true;
	throng_controller c;
	if (throng_world_get_controller(w, focus->state.archetype, &c) != THRONG_OK) {
		return;
	}
	focus->slot_count = c.slot_count;
	focus->has_forces = throng_world_total_force(w, selected, &focus->total_force) == THRONG_OK;
	for (uint32_t k = 0; k < c.slot_count && focus->has_forces; ++k) {
		if (throng_world_slot_force(w, selected, k, &focus->slot_force[k]) != THRONG_OK) {
			focus->has_forces = false;
		}
	}
}

/// The scenario's outcome figures, where the library has them.
static void copy_outcomes(vw_frame* f, const vw_scene* s)
{
	f->outcome_count = 0;
#ifdef THRONG_MAX_OUTCOMES
	throng_scene_outcome o[THRONG_MAX_OUTCOMES];
	uint32_t n = s->scene != NULL ? throng_scene_outcomes(s->scene, o, THRONG_MAX_OUTCOMES) : 0;
	n = n < THRONG_MAX_OUTCOMES ? n : THRONG_MAX_OUTCOMES;
	for (uint32_t k = 0; k < n && k < VW_MAX_OUTCOMES; ++k) {
		snprintf(f->outcome_name[k], sizeof f->outcome_name[k], "%s", o[k].name != NULL ? o[k].name : "?");
		f->outcome_value[k] = o[k].value;
		f->outcome_count++;
	}
#else
	(void)s;
#endif
}

bool vw_frame_fill(vw_frame* f, vw_scene* s, uint32_t selected)
{
	const throng_world* w = s->world;
	throng_view v = throng_world_view(w);
	if (!reserve_agents(f, v.count) || !copy_shapes(f, w)) {
		f->count = 0;
		f->obstacle_count = 0;
		f->wall_count = 0;
		return false;
	}
	f->count = v.count;
	size_t n = v.count;
	memcpy(f->id, v.id, n * sizeof *f->id);
	memcpy(f->group, v.group, n * sizeof *f->group);
	memcpy(f->archetype, v.archetype, n * sizeof *f->archetype);
	memcpy(f->x, v.x, n * sizeof *f->x);
	memcpy(f->y, v.y, n * sizeof *f->y);
	memcpy(f->hx, v.hx, n * sizeof *f->hx);
	memcpy(f->hy, v.hy, n * sizeof *f->hy);
	memcpy(f->radius, v.radius, n * sizeof *f->radius);
	f->def = throng_world_get_def(w);
	f->threat_active = vw_scene_threat(s, &f->threat);
	f->stats = throng_world_get_stats(w);
	f->step = v.step;
	uint32_t na = throng_world_archetype_count(w);
	f->archetype_count = na < VW_MAX_ARCHETYPES ? na : VW_MAX_ARCHETYPES;
	for (uint32_t k = 0; k < f->archetype_count; ++k) {
		if (throng_world_get_controller(w, k, &f->controllers[k]) != THRONG_OK) {
			f->controllers[k] = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		}
	}
	copy_focus(&f->focus, w, selected);
	copy_outcomes(f, s);
	return true;
}

void vw_frame_free(vw_frame* f)
{
	free(f->id);
	free(f->group);
	free(f->archetype);
	free(f->x);
	free(f->y);
	free(f->hx);
	free(f->hy);
	free(f->radius);
	free(f->obstacle_c);
	free(f->obstacle_r);
	free(f->wall_a);
	free(f->wall_b);
	memset(f, 0, sizeof *f);
}
