// SPDX-License-Identifier: MIT
// The world's shapes, paths and threat: obstacles, walls, waypoint paths
// and the shared threat point, with their checks.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "memory.h"
#include "validate.h"
#include "world_internal.h"

/// Room for one more in a shape array (doubling from 16); -1 when out of memory.
static int grow(void** p, uint32_t* cap, uint32_t count, size_t size)
{
	return thr_reserve(p, cap, (size_t)count + 1u, size, 16);
}

/// Appends `shape` (`size` bytes) to the shape array *p of *count, its
/// index to *id_out (unless NULL); the shape grids follow at the next step.
/// `fn` names the public call in the out-of-memory message.
static throng_status append_shape(throng_world* w, void** p, uint32_t* cap, uint32_t* count, const void* shape,
                                  size_t size, uint32_t* id_out, const char* fn)
{
	if (grow(p, cap, *count, size)) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
	}
	memcpy((char*)*p + (size_t)*count * size, shape, size);
	if (id_out != NULL) {
		*id_out = *count;
	}
	*count += 1u;
	w->shapes_dirty = 1;
	return THRONG_OK;
}

throng_status throng_world_add_obstacle(throng_world* w, throng_vec2 center, float radius, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_obstacle");
	if (st == THRONG_OK) {
		st = thr_validate_obstacle("obstacle.", center, radius);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_obstacle o = {center, radius};
	return append_shape(w, (void**)&w->obstacles, &w->obstacle_cap, &w->obstacle_count, &o, sizeof o, id_out,
	                    "throng_world_add_obstacle");
}

throng_status throng_world_set_obstacle(throng_world* w, uint32_t id, throng_vec2 center, float radius)
{
	throng_status st = thr_check_world(w, "throng_world_set_obstacle");
	if (st == THRONG_OK && id >= w->obstacle_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_set_obstacle: no obstacle %u", id);
	}
	if (st == THRONG_OK) {
		st = thr_validate_obstacle("obstacle.", center, radius);
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->obstacles[id] = (thr_obstacle){center, radius};
	w->shapes_dirty = 1;
	return THRONG_OK;
}

throng_status throng_world_add_wall(throng_world* w, throng_vec2 a, throng_vec2 b, uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_wall");
	if (st == THRONG_OK) {
		st = thr_validate_wall("wall.", a, b);
	}
	if (st != THRONG_OK) {
		return st;
	}
	const thr_wall wall = {a, b};
	return append_shape(w, (void**)&w->walls, &w->wall_cap, &w->wall_count, &wall, sizeof wall, id_out,
	                    "throng_world_add_wall");
}

throng_status throng_world_add_path(throng_world* w, const throng_vec2* points, uint32_t count, bool loop,
                                    uint32_t* id_out)
{
	throng_status st = thr_check_world(w, "throng_world_add_path");
	if (st == THRONG_OK && points == NULL) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_add_path: points is NULL");
	}
	if (st == THRONG_OK && (count < 1 || count > THRONG_MAX_WAYPOINTS)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_add_path: count: must be from 1 to %d (got %u)",
		              THRONG_MAX_WAYPOINTS, count);
	}
	for (uint32_t k = 0; st == THRONG_OK && k < count; ++k) {
		char ctx[48];
		snprintf(ctx, sizeof ctx, "throng_world_add_path: points[%u]", k);
		st = thr_validate_point(ctx, points[k]);
	}
	if (st != THRONG_OK) {
		return st;
	}
	// The waypoint arrays exist from the first path on (store.h).
	if (grow((void**)&w->paths, &w->path_cap, w->path_count, sizeof *w->paths) ||
	    thr_store_reserve_waypoints(w) != 0) {
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_path: out of memory");
	}
	while (w->waypoint_cap - w->waypoint_count < count) {
		uint32_t cap = w->waypoint_cap ? w->waypoint_cap * 2u : 64u;
		vec2* p = realloc(w->waypoints, cap * sizeof *p);
		if (p == NULL) {
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "throng_world_add_path: out of memory");
		}
		w->waypoints = p;
		w->waypoint_cap = cap;
	}
	memcpy(w->waypoints + w->waypoint_count, points, count * sizeof *points);
	w->paths[w->path_count] = (thr_path){w->waypoint_count, count, loop};
	w->waypoint_count += count;
	if (id_out != NULL) {
		*id_out = w->path_count;
	}
	w->path_count++;
	return THRONG_OK;
}

uint32_t throng_world_path_count(const throng_world* w)
{
	return w ? w->path_count : 0;
}

uint32_t throng_world_obstacle_count(const throng_world* w)
{
	return w ? w->obstacle_count : 0;
}

uint32_t throng_world_wall_count(const throng_world* w)
{
	return w ? w->wall_count : 0;
}

throng_status throng_world_get_obstacle(const throng_world* w, uint32_t id, throng_vec2* center, float* radius)
{
	throng_status st = thr_check_world(w, "throng_world_get_obstacle");
	if (st == THRONG_OK && id >= w->obstacle_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_get_obstacle: no obstacle %u", id);
	}
	if (st == THRONG_OK && (center == NULL || radius == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_get_obstacle: %s is NULL",
		              center == NULL ? "center" : "radius");
	}
	if (st == THRONG_OK) {
		*center = w->obstacles[id].c;
		*radius = w->obstacles[id].r;
	}
	return st;
}

throng_status throng_world_get_wall(const throng_world* w, uint32_t id, throng_vec2* a, throng_vec2* b)
{
	throng_status st = thr_check_world(w, "throng_world_get_wall");
	if (st == THRONG_OK && id >= w->wall_count) {
		st = thr_fail(THRONG_ERR_NOT_FOUND, "throng_world_get_wall: no wall %u", id);
	}
	if (st == THRONG_OK && (a == NULL || b == NULL)) {
		st = thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_world_get_wall: %s is NULL", a == NULL ? "a" : "b");
	}
	if (st == THRONG_OK) {
		*a = w->walls[id].a;
		*b = w->walls[id].b;
	}
	return st;
}

throng_status throng_world_set_threat(throng_world* w, throng_vec2 p, throng_vec2 v, bool active)
{
	throng_status st = thr_check_world(w, "throng_world_set_threat");
	if (st == THRONG_OK) {
		st = thr_validate_point("throng_world_set_threat: position", p);
	}
	if (st == THRONG_OK) {
		st = thr_validate_point("throng_world_set_threat: velocity", v);
	}
	if (st != THRONG_OK) {
		return st;
	}
	w->threat_p = p;
	w->threat_v = v;
	w->threat_active = active;
	return THRONG_OK;
}

bool thr_near_wall(const throng_world* w, vec2 p, float reach)
{
	if (w->wall_count == 0) {
		return false;
	}
	const thr_box_grid* g = &w->wall_grid;
	// Most agents stand far from every shape: the cell's clearance (a lower
	// bound on the distance from any point of the cell to any shape, the
	// walls' and obstacles' grids sharing one layout) answers for them
	// without a look at the walls, as in thr_clear_of_shapes.
	const thr_box_grid* go = &w->obstacle_grid; // the clearance's layout
	const float fx = (p.x - go->min_x) * go->inv_cell, fy = (p.y - go->min_y) * go->inv_cell;
	if (fx >= 0.0f && fx < (float)go->nx && fy >= 0.0f && fy < (float)go->ny) {
		const size_t c = (size_t)(int32_t)fy * (size_t)go->nx + (size_t)(int32_t)fx;
		if (reach < (float)w->shape_clear[c] * go->cell * (0.999f / 255.0f)) {
			return false;
		}
	}
	int32_t cx0, cx1, cy0, cy1;
	thr_box_grid_range(g, p.x, p.y, reach, &cx0, &cx1, &cy0, &cy1);
	const float reach2 = reach * reach;
	for (int32_t cy = cy0; cy <= cy1; ++cy) {
		const uint32_t row = (uint32_t)cy * (uint32_t)g->nx;
		uint32_t b, e;
		thr_box_grid_span(g, row + (uint32_t)cx0, row + (uint32_t)cx1, &b, &e);
		for (uint32_t k = b; k < e; ++k) {
			const thr_wall* l = &w->walls[g->items[k]];
			const vec2 ab = v2_sub(l->b, l->a);
			const float len2 = v2_dot(ab, ab);
			float t = len2 > 0.0f ? v2_dot(v2_sub(p, l->a), ab) / len2 : 0.0f;
			t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
			const vec2 d = v2_sub(p, v2_add(l->a, v2_scale(ab, t)));
			if (v2_dot(d, d) < reach2) {
				return true;
			}
		}
	}
	return false;
}
