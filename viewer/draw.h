// SPDX-License-Identifier: MIT
// Drawing the world: grid, bounds, zones and sources (outlines; sinks in
// their own colour), obstacles, walls, the bodies of the dead lying in
// their side's colour dimmed, then every agent as a triangle along its
// heading in one SDL_RenderGeometryRaw call (a routing soldier ringed in
// VW_ROUTING), then the threat and the mouse target.
#ifndef THRONG_VIEWER_DRAW_H
#define THRONG_VIEWER_DRAW_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "camera.h"
#include "palette.h"
#include "sim.h"

/// Agents whose half-size on screen is below this (px) are drawn as
/// squares (2 px, or their diameter from 1 px up) instead of triangles: a heading cannot
/// be seen at that size, and SDL's software renderer fills small rectangles
/// far faster than as many triangles (docs/PERFORMANCE.md, "Viewer").
#define VW_AGENT_MIN_PX 1.6f
/// Obstacles with a smaller radius on screen (px) are squares too.
#define VW_OBSTACLE_MIN_PX 2.0f

/// The agents' vertex and rectangle arrays, reused frame to frame.
typedef struct vw_agent_mesh {
	float* xy;        ///< 6 floats a triangle
	SDL_Color* color; ///< 3 colours a triangle
	SDL_FRect* rects; ///< squares, grouped by colour
	SDL_FRect* loose; ///< squares before grouping
	uint8_t* bucket;  ///< colour bucket of each loose square (draw.c: colours, rings, routing colours)
	uint32_t cap;     ///< triangles (an agent's, or two of a routing agent's ring)
	uint32_t triangles, squares; ///< in the last batch (after culling)
} vw_agent_mesh;

typedef struct vw_draw_opts {
	bool grid;
	vw_color_mode color_mode;  ///< group, archetype or army (palette.h)
	uint32_t army_roles;       ///< groups an army has (vw_army_roles)
	uint32_t drag_obstacle;    ///< obstacle being dragged, or UINT32_MAX
	throng_vec2 drag_center;   ///< where the drag has it (m)
} vw_draw_opts;

/// Appends grid, bounds, zone and source outlines, obstacles and walls to
/// `shapes` (not flushed);
/// obstacles below VW_OBSTACLE_MIN_PX are left to vw_draw_small_obstacles,
/// those of bodies (f->obstacle_body) to vw_draw_bodies.
void vw_draw_scene(vw_batch* shapes, const vw_camera* cam, const vw_frame* f, const vw_draw_opts* o);

/// Draws the obstacles too small for vw_draw_scene as squares, one call.
bool vw_draw_small_obstacles(SDL_Renderer* r, vw_agent_mesh* mesh, const vw_camera* cam, const vw_frame* f,
                             const vw_draw_opts* o);

/// Draws every visible body (f->bodies) lying along its facing, 2 radius
/// long, in vw_dead of its colour (o's colour mode): a trunk and a head in
/// one SDL_RenderGeometryRaw call, a bar without the head when small, a
/// square below VW_OBSTACLE_MIN_PX. False when the arrays cannot grow (the
/// bodies so far are drawn then).
bool vw_draw_bodies(SDL_Renderer* r, vw_agent_mesh* mesh, const vw_camera* cam, const vw_frame* f,
                    const vw_draw_opts* o);

/// Draws every visible agent: triangles along their headings in one
/// SDL_RenderGeometryRaw call, and agents below VW_AGENT_MIN_PX as squares
/// in one SDL_RenderFillRectsF call per colour; routing soldiers
/// (f->combat_state) ringed. Returns false when the arrays cannot grow
/// (nothing is drawn then).
bool vw_draw_agents(SDL_Renderer* r, vw_agent_mesh* mesh, const vw_camera* cam, const vw_frame* f,
                    const vw_draw_opts* o);

/// Appends the threat marker (when active) to `shapes`.
void vw_draw_threat(vw_batch* shapes, const vw_camera* cam, const vw_frame* f);

/// Appends a crosshair at screen point (x, y).
void vw_draw_crosshair(vw_batch* shapes, float x, float y, SDL_Color c);

void vw_agent_mesh_free(vw_agent_mesh* mesh);

#endif
