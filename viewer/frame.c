// SPDX-License-Identifier: MIT
// Copying a world's state into a vw_frame.
//
// The world's view is zero-copy but only valid until the next step, and the
// host steps on its own thread, so every published frame owns a copy of
// what the renderer needs: positions, headings, radii, ids, groups and
// archetypes (32 bytes an agent, about 3 MB at 100,000 agents), the shapes,
// the bodies (36 bytes each), the controllers and the selected agent's
// forces.
#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/units.h"

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
	          vw_grow((void**)&f->hy, n, sizeof(float)) && vw_grow((void**)&f->radius, n, sizeof(float)) &&
	          vw_grow((void**)&f->vigour_buf, n, sizeof(float));
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

/// The bodies (throng_world_bodies), after copy_shapes: each one's record,
/// and which obstacles are bodies still lying where they fell (drawn as
/// the body; one that game code or a drag moved is a disc again).
static bool copy_bodies(vw_frame* f, const throng_world* w)
{
	f->body_count = 0;
	f->obstacle_body = NULL;
	const throng_body* b = NULL;
	uint32_t n = 0;
	if (throng_world_bodies(w, &b, &n) != THRONG_OK || n == 0) {
		return true;
	}
	if (n > f->body_cap || f->bodies == NULL) {
		if (!vw_grow((void**)&f->bodies, n, sizeof *f->bodies)) {
			return false;
		}
		f->body_cap = n;
	}
	if (f->obstacle_count > f->obstacle_body_cap || f->obstacle_body_buf == NULL) {
		if (!vw_grow((void**)&f->obstacle_body_buf, f->obstacle_count, 1u)) {
			return false;
		}
		f->obstacle_body_cap = f->obstacle_count;
	}
	memset(f->obstacle_body_buf, 0, f->obstacle_count);
	for (uint32_t k = 0; k < n; ++k) {
		f->bodies[k] = (vw_body){b[k].position, b[k].facing, b[k].radius, b[k].group, b[k].archetype, b[k].obstacle};
		const uint32_t o = b[k].obstacle;
		if (o < f->obstacle_count && f->obstacle_c[o].x == b[k].position.x && f->obstacle_c[o].y == b[k].position.y) {
			f->obstacle_body_buf[o] = 1;
		}
	}
	f->body_count = n;
	f->obstacle_body = f->obstacle_body_buf;
	return true;
}

/// Room for one more region and `points` more region points.
static bool reserve_region(vw_frame* f, uint32_t points)
{
	if (f->region_count == f->region_cap || f->regions == NULL) {
		uint32_t cap = f->region_cap > 0 ? 2u * f->region_cap : 8u;
		if (!vw_grow((void**)&f->regions, cap, sizeof *f->regions)) {
			return false;
		}
		f->region_cap = cap;
	}
	uint32_t need = f->region_point_count + points;
	if (need > f->region_point_cap || f->region_points == NULL) {
		uint32_t cap = need > 2u * f->region_point_cap ? need : 2u * f->region_point_cap;
		if (!vw_grow((void**)&f->region_points, cap, sizeof *f->region_points)) {
			return false;
		}
		f->region_point_cap = cap;
	}
	return true;
}

/// Zones and sources, copied every publish: a scene holds a few dozen at
/// most (THRONG_MAX_ZONES, THRONG_MAX_SOURCES), and a world may add one
/// between any two steps.
static bool copy_regions(vw_frame* f, const throng_world* w)
{
	f->region_count = f->region_point_count = 0;
	f->zone_count = throng_world_zone_count(w);
	f->sink_count = 0;
	for (uint32_t z = 0; z < f->zone_count; ++z) {
		throng_zone_def d;
		if (throng_world_get_zone(w, z, &d, NULL, 0) != THRONG_OK || !reserve_region(f, d.point_count)) {
			return false;
		}
		vw_region* r = &f->regions[f->region_count];
		throng_vec2* pts = f->region_points + f->region_point_count;
		if (throng_world_get_zone(w, z, &d, pts, d.point_count) != THRONG_OK) {
			return false;
		}
		f->sink_count += d.sink;
		r->kind = d.sink ? VW_REGION_SINK : VW_REGION_ZONE;
		r->shape = d.shape == THRONG_ZONE_BOX       ? VW_SHAPE_BOX
		           : d.shape == THRONG_ZONE_POLYGON ? VW_SHAPE_POLYGON
		                                            : VW_SHAPE_CIRCLE;
		r->a = d.shape == THRONG_ZONE_BOX ? d.min : d.center;
		r->b = d.max;
		r->radius = d.radius;
		r->first = f->region_point_count;
		r->count = d.point_count;
		f->region_point_count += d.point_count;
		f->region_count++;
	}
	f->source_count = throng_world_source_count(w);
	f->sources_waiting = 0;
	for (uint32_t k = 0; k < f->source_count; ++k) {
		throng_source_def d;
		throng_source_state st;
		if (throng_world_get_source(w, k, &d, &st) != THRONG_OK || !reserve_region(f, 0)) {
			return false;
		}
		f->sources_waiting += st.waiting;
		vw_region* r = &f->regions[f->region_count++];
		memset(r, 0, sizeof *r);
		r->kind = st.done ? VW_REGION_SOURCE_DONE : VW_REGION_SOURCE;
		r->shape = d.shape == THRONG_SOURCE_BOX      ? VW_SHAPE_BOX
		           : d.shape == THRONG_SOURCE_CIRCLE ? VW_SHAPE_CIRCLE
		                                             : VW_SHAPE_SEGMENT;
		r->a = d.shape == THRONG_SOURCE_BOX ? d.min : d.shape == THRONG_SOURCE_CIRCLE ? d.center : d.from;
		r->b = d.shape == THRONG_SOURCE_BOX ? d.max : d.to;
		r->radius = d.radius;
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

/// f->vigour: each agent's health over its archetype's full health, or
/// NULL when no archetype has combat (everyone is drawn whole).
static void fill_vigour(vw_frame* f, const throng_view* v)
{
	f->vigour = NULL;
	float full[VW_MAX_ARCHETYPES];
	bool any = false;
	for (uint32_t a = 0; a < f->archetype_count; ++a) {
		const throng_combat* c = &f->controllers[a].combat;
		full[a] = c->enabled && c->health > 0.0f ? c->health : 0.0f;
		any = any || full[a] > 0.0f;
	}
	if (!any || v->health == NULL) {
		return;
	}
	for (uint32_t k = 0; k < f->count; ++k) {
		const uint32_t a = f->archetype[k];
		f->vigour_buf[k] = a < f->archetype_count && full[a] > 0.0f ? vw_share(v->health[k], full[a]) : 1.0f;
	}
	f->vigour = f->vigour_buf;
}

/// f->combat_state and f->routing: copied only when the world has units,
/// the only source of THRONG_COMBAT_ROUTING (a world without pays nothing).
static bool fill_routing(vw_frame* f, const throng_world* w, const throng_view* v)
{
	f->combat_state = NULL;
	f->routing = 0;
	f->units = throng_world_unit_count(w) > 0;
	if (!f->units || v->combat_state == NULL || v->count == 0) {
		return true;
	}
	if (v->count > f->combat_state_cap || f->combat_state_buf == NULL) {
		if (!vw_grow((void**)&f->combat_state_buf, v->count, sizeof *f->combat_state_buf)) {
			return false;
		}
		f->combat_state_cap = v->count;
	}
	memcpy(f->combat_state_buf, v->combat_state, (size_t)v->count * sizeof *f->combat_state_buf);
	f->combat_state = f->combat_state_buf;
	f->routing = vw_count_routing(f->combat_state, v->count);
	return true;
}

bool vw_frame_fill(vw_frame* f, vw_scene* s, uint32_t selected)
{
	const throng_world* w = s->world;
	throng_view v = throng_world_view(w);
	if (!reserve_agents(f, v.count) || !copy_shapes(f, w) || !copy_bodies(f, w) || !copy_regions(f, w)) {
		f->count = 0;
		f->obstacle_count = 0;
		f->body_count = 0;
		f->obstacle_body = NULL;
		f->wall_count = 0;
		f->region_count = 0;
		return false;
	}
	// Agents come and go (issue 33): the view holds the live ones, in
	// storage order, ids with gaps; an empty world may have no arrays.
	f->count = v.count;
	f->id_end = throng_world_id_end(w);
	size_t n = v.count;
	if (n > 0) {
		memcpy(f->id, v.id, n * sizeof *f->id);
		memcpy(f->group, v.group, n * sizeof *f->group);
		memcpy(f->archetype, v.archetype, n * sizeof *f->archetype);
		memcpy(f->x, v.x, n * sizeof *f->x);
		memcpy(f->y, v.y, n * sizeof *f->y);
		memcpy(f->hx, v.hx, n * sizeof *f->hx);
		memcpy(f->hy, v.hy, n * sizeof *f->hy);
		memcpy(f->radius, v.radius, n * sizeof *f->radius);
	}
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
	fill_vigour(f, &v);
	if (!fill_routing(f, w, &v)) {
		f->count = 0;
		return false;
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
	free(f->vigour_buf);
	free(f->combat_state_buf);
	free(f->obstacle_c);
	free(f->obstacle_r);
	free(f->bodies);
	free(f->obstacle_body_buf);
	free(f->wall_a);
	free(f->wall_b);
	free(f->regions);
	free(f->region_points);
	memset(f, 0, sizeof *f);
}
