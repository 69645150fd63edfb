// SPDX-License-Identifier: MIT
// Drawing the world (see draw.h).
//
// The agents are the bulk of a frame: at 100,000 agents the triangles cost
// more than everything else together, so they bypass the shape batch and
// go straight from the frame's arrays into flat position and colour arrays
// (SDL_RenderGeometryRaw, no texture coordinates, no indices), skipping the
// ones outside the window. Zoomed out, where an agent is a few pixels, it
// becomes a square (see VW_AGENT_MIN_PX).
//
// A routing soldier (THRONG_COMBAT_ROUTING) is ringed: a VW_ROUTING ring
// round it, set off from its body by a gap of the ground's colour, so
// the ring shows round light and dark bodies alike, in every colour mode
// and dimmed or not. The rings go under every body (a ring never hides a
// soldier's colour): two more triangles a router, in a call of their own
// before the bodies' (one more square zoomed out, in the first colour
// bucket). Only routers cost anything: a frame without draws as before.
//
// A body (throng_world_bodies) is drawn lying, in its side's colour dimmed
// (vw_dead): legs and trunk a trapezoid from its feet to its shoulders
// along its facing, and a head, 2 radius long in all, under the living.
// Eight triangles a body in one call; below BODY_HEAD_PX a bar of two;
// below VW_OBSTACLE_MIN_PX a square, one fill call per colour, as small
// obstacles are. Its obstacle's disc is not drawn (f->obstacle_body).
#include "draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "palette.h"

static const SDL_Color GRID = {34, 38, 48, 255};
static const SDL_Color BOUNDS = {110, 120, 145, 255};
static const SDL_Color OBSTACLE_FILL = {52, 58, 74, 255};
static const SDL_Color OBSTACLE_EDGE = {125, 135, 160, 255};
static const SDL_Color OBSTACLE_DRAG = {255, 235, 140, 255};
static const SDL_Color WALL = {205, 208, 220, 255};
static const SDL_Color THREAT = {255, 60, 60, 255};

/// Grid lines every `cell` metres (doubled until at least 8 px apart),
/// only over the part of the bounds that is on screen.
static void draw_grid(vw_batch* b, const vw_camera* cam, const vw_frame* f)
{
	float cell = f->def.cell_size > 0.0f ? f->def.cell_size : 4.0f;
	while (cell * cam->scale < 8.0f) {
		cell *= 2.0f;
	}
	throng_vec2 lo = f->def.bounds_min, hi = f->def.bounds_max;
	throng_vec2 v0 = vw_camera_to_world(cam, 0.0f, cam->height);
	throng_vec2 v1 = vw_camera_to_world(cam, cam->width, 0.0f);
	float x0 = v0.x > lo.x ? v0.x : lo.x, x1 = v1.x < hi.x ? v1.x : hi.x;
	float y0 = v0.y > lo.y ? v0.y : lo.y, y1 = v1.y < hi.y ? v1.y : hi.y;
	if (x0 > x1 || y0 > y1) {
		return;
	}
	float sx, sy, ex, ey;
	for (float x = lo.x + ceilf((x0 - lo.x) / cell) * cell; x <= x1; x += cell) {
		vw_camera_to_screen(cam, x, y0, &sx, &sy);
		vw_camera_to_screen(cam, x, y1, &ex, &ey);
		vw_batch_line(b, sx, sy, ex, ey, 1.0f, GRID);
	}
	for (float y = lo.y + ceilf((y0 - lo.y) / cell) * cell; y <= y1; y += cell) {
		vw_camera_to_screen(cam, x0, y, &sx, &sy);
		vw_camera_to_screen(cam, x1, y, &ex, &ey);
		vw_batch_line(b, sx, sy, ex, ey, 1.0f, GRID);
	}
}

/// A world segment as a screen line.
static void world_line(vw_batch* b, const vw_camera* cam, throng_vec2 p, throng_vec2 q, float width, SDL_Color c)
{
	float ax, ay, bx, by;
	vw_camera_to_screen(cam, p.x, p.y, &ax, &ay);
	vw_camera_to_screen(cam, q.x, q.y, &bx, &by);
	vw_batch_line(b, ax, ay, bx, by, width, c);
}

/// Zones (sinks in their own colour) and sources as outlines, under
/// everything else: they mark floor, not things in the way.
static void draw_regions(vw_batch* b, const vw_camera* cam, const vw_frame* f)
{
	for (uint32_t k = 0; k < f->region_count; ++k) {
		const vw_region* r = &f->regions[k];
		SDL_Color c = r->kind == VW_REGION_SINK     ? VW_SINK
		              : r->kind == VW_REGION_SOURCE ? VW_SOURCE
		              : r->kind == VW_REGION_ZONE   ? VW_ZONE
		                                            : VW_SOURCE_DONE;
		float width = r->kind == VW_REGION_SINK ? 2.5f : 1.5f;
		if (r->shape == VW_SHAPE_CIRCLE) {
			float sx, sy;
			vw_camera_to_screen(cam, r->a.x, r->a.y, &sx, &sy);
			vw_batch_circle(b, sx, sy, r->radius * cam->scale, width, c);
		} else if (r->shape == VW_SHAPE_BOX) {
			throng_vec2 p[4] = {r->a, {r->b.x, r->a.y}, r->b, {r->a.x, r->b.y}};
			for (int i = 0; i < 4; ++i) {
				world_line(b, cam, p[i], p[(i + 1) % 4], width, c);
			}
		} else if (r->shape == VW_SHAPE_POLYGON) {
			const throng_vec2* p = f->region_points + r->first;
			for (uint32_t i = 0; i < r->count; ++i) {
				world_line(b, cam, p[i], p[(i + 1u) % r->count], width, c);
			}
		} else {
			world_line(b, cam, r->a, r->b, 2.0f * width, c); // a door
		}
	}
}

void vw_draw_scene(vw_batch* b, const vw_camera* cam, const vw_frame* f, const vw_draw_opts* o)
{
	if (o->grid) {
		draw_grid(b, cam, f);
	}
	float ax, ay, bx, by;
	vw_camera_to_screen(cam, f->def.bounds_min.x, f->def.bounds_min.y, &ax, &ay);
	vw_camera_to_screen(cam, f->def.bounds_max.x, f->def.bounds_max.y, &bx, &by);
	vw_batch_line(b, ax, ay, bx, ay, 1.5f, BOUNDS);
	vw_batch_line(b, bx, ay, bx, by, 1.5f, BOUNDS);
	vw_batch_line(b, bx, by, ax, by, 1.5f, BOUNDS);
	vw_batch_line(b, ax, by, ax, ay, 1.5f, BOUNDS);
	draw_regions(b, cam, f);
	for (uint32_t k = 0; k < f->obstacle_count; ++k) {
		if (f->obstacle_body != NULL && f->obstacle_body[k] && k != o->drag_obstacle) {
			continue; // vw_draw_bodies
		}
		throng_vec2 c = k == o->drag_obstacle ? o->drag_center : f->obstacle_c[k];
		float sx, sy;
		vw_camera_to_screen(cam, c.x, c.y, &sx, &sy);
		float r = f->obstacle_r[k] * cam->scale;
		if (r < VW_OBSTACLE_MIN_PX && k != o->drag_obstacle) {
			continue; // vw_draw_small_obstacles
		}
		vw_batch_disc(b, sx, sy, r, OBSTACLE_FILL);
		if (r >= 2.0f) {
			vw_batch_circle(b, sx, sy, r, k == o->drag_obstacle ? 2.0f : 1.0f,
			                k == o->drag_obstacle ? OBSTACLE_DRAG : OBSTACLE_EDGE);
		}
	}
	for (uint32_t k = 0; k < f->wall_count; ++k) {
		vw_camera_to_screen(cam, f->wall_a[k].x, f->wall_a[k].y, &ax, &ay);
		vw_camera_to_screen(cam, f->wall_b[k].x, f->wall_b[k].y, &bx, &by);
		vw_batch_line(b, ax, ay, bx, by, 3.0f, WALL);
	}
}

/// A routing agent's ring: the gap's and the ring's outer edges, px
/// beyond its triangle's edges (its square's, zoomed out: the ring alone).
#define ROUT_GAP_PX 1.0f
#define ROUT_RING_PX 3.0f
/// The agent triangle (tip 1.6 r ahead, back corners r behind and r
/// aside) has its incentre 0.3132 r behind the centre and an inradius of
/// 0.6868 r (sides 2 r and 2.7857 r, area 2.6 r^2).
#define TRI_INCENTRE 0.31320f
#define TRI_INRADIUS 0.68680f

/// Squares are drawn by bucket: the rings, then the colours.
#define SQUARE_BUCKETS (VW_COLOR_COUNT + 1u)

static bool reserve_mesh(vw_agent_mesh* m, uint32_t n)
{
	if (n <= m->cap && m->xy != NULL) {
		return true;
	}
	if (!vw_grow((void**)&m->xy, n, 6u * sizeof(float)) || !vw_grow((void**)&m->color, n, 3u * sizeof(SDL_Color)) ||
	    !vw_grow((void**)&m->rects, n, sizeof(SDL_FRect)) || !vw_grow((void**)&m->loose, n, sizeof(SDL_FRect)) ||
	    !vw_grow((void**)&m->bucket, n, 1u)) {
		return false;
	}
	m->cap = n;
	return true;
}

bool vw_draw_small_obstacles(SDL_Renderer* r, vw_agent_mesh* m, const vw_camera* cam, const vw_frame* f,
                             const vw_draw_opts* o)
{
	if (!reserve_mesh(m, f->obstacle_count > m->cap ? f->obstacle_count : m->cap)) {
		return false;
	}
	uint32_t n = 0;
	for (uint32_t k = 0; k < f->obstacle_count; ++k) {
		float x, y;
		vw_camera_to_screen(cam, f->obstacle_c[k].x, f->obstacle_c[k].y, &x, &y);
		float rad = f->obstacle_r[k] * cam->scale;
		if (rad >= VW_OBSTACLE_MIN_PX || k == o->drag_obstacle || (f->obstacle_body != NULL && f->obstacle_body[k]) ||
		    x < -4.0f || y < -4.0f || x > cam->width + 4.0f || y > cam->height + 4.0f) {
			continue;
		}
		float side = rad < 0.5f ? 1.0f : 2.0f * rad;
		m->rects[n++] = (SDL_FRect){x - 0.5f * side, y - 0.5f * side, side, side};
	}
	if (n > 0) {
		SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
		SDL_SetRenderDrawColor(r, OBSTACLE_FILL.r, OBSTACLE_FILL.g, OBSTACLE_FILL.b, 255);
		SDL_RenderFillRectsF(r, m->rects, (int)n);
	}
	return true;
}

/// Draws the first `count` loose squares grouped by bucket
/// (SQUARE_BUCKETS), bucket c in color[c]: one fill call per colour.
static void draw_squares(SDL_Renderer* r, vw_agent_mesh* m, uint32_t count, const SDL_Color color[SQUARE_BUCKETS])
{
	uint32_t start[SQUARE_BUCKETS + 1u] = {0};
	for (uint32_t k = 0; k < count; ++k) {
		start[m->bucket[k] + 1u]++;
	}
	for (uint32_t c = 0; c < SQUARE_BUCKETS; ++c) {
		start[c + 1u] += start[c];
	}
	uint32_t next[SQUARE_BUCKETS];
	memcpy(next, start, sizeof next);
	for (uint32_t k = 0; k < count; ++k) {
		m->rects[next[m->bucket[k]]++] = m->loose[k];
	}
	for (uint32_t c = 0; c < SQUARE_BUCKETS; ++c) {
		if (start[c + 1u] > start[c]) {
			SDL_SetRenderDrawColor(r, color[c].r, color[c].g, color[c].b, 255);
			SDL_RenderFillRectsF(r, m->rects + start[c], (int)(start[c + 1u] - start[c]));
		}
	}
}

/// Draws triangles [first, first + count) of the mesh in one call.
static void draw_triangles(SDL_Renderer* r, const vw_agent_mesh* m, uint32_t first, uint32_t count)
{
	if (count > 0) {
		SDL_RenderGeometryRaw(r, NULL, m->xy + 6u * first, 2 * (int)sizeof(float), m->color + 3u * first,
		                      (int)sizeof(SDL_Color), NULL, 0, (int)(3u * count), NULL, 0, 0);
	}
}

/// Writes triangle n of the mesh, in one colour; returns n + 1.
static uint32_t put_triangle(vw_agent_mesh* m, uint32_t n, const float v[6], SDL_Color c)
{
	memcpy(&m->xy[6u * n], v, 6u * sizeof(float));
	SDL_Color* col = &m->color[3u * n];
	col[0] = c;
	col[1] = c;
	col[2] = c;
	return n + 1u;
}

/// A routing agent's ring and gap: its triangle grown by ROUT_RING_PX and
/// ROUT_GAP_PX on every side (about the incentre), ring first, as
/// triangles n and n + 1; returns n + 2.
static uint32_t put_ring(vw_agent_mesh* m, uint32_t n, float x, float y, float ux, float uy, float rad)
{
	const float ix = x - TRI_INCENTRE * rad * ux, iy = y - TRI_INCENTRE * rad * uy;
	const float pad[2] = {ROUT_RING_PX, ROUT_GAP_PX};
	for (int k = 0; k < 2; ++k) {
		const float g = TRI_INRADIUS * rad + pad[k]; // the grown triangle's inradius
		const float s = g / TRI_INRADIUS;            // and its r
		const float ax = (1.6f + TRI_INCENTRE) * s * ux, ay = (1.6f + TRI_INCENTRE) * s * uy;
		const float bx = (TRI_INCENTRE - 1.0f) * s * ux, by = (TRI_INCENTRE - 1.0f) * s * uy;
		const float v[6] = {ix + ax, iy + ay, ix + bx - s * uy, iy + by + s * ux, ix + bx + s * uy, iy + by - s * ux};
		n = put_triangle(m, n, v, k == 0 ? VW_ROUTING : VW_BACKGROUND);
	}
	return n;
}

bool vw_draw_agents(SDL_Renderer* r, vw_agent_mesh* m, const vw_camera* cam, const vw_frame* f,
                    const vw_draw_opts* o)
{
	m->triangles = m->squares = 0;
	// Two ring triangles (one ring square) more for each routing agent:
	// ring triangles from 0, bodies from 2 rings.
	const uint32_t rings = f->combat_state != NULL ? f->routing : 0u;
	if (!reserve_mesh(m, f->count + 2u * rings)) {
		return false;
	}
	uint32_t ringed = 0, ring_tris = 0;
	const SDL_Color* palette = vw_palette(o->color_mode, o->army_roles);
	const float half_w = 0.5f * cam->width, half_h = 0.5f * cam->height;
	const float s = cam->scale;
	const float ring_reach = rings > 0 ? 3.0f * ROUT_RING_PX : 0.0f; // a ring's tip sticks out 2.8 times its pad
	uint32_t n = 2u * rings, q = 0;
	for (uint32_t k = 0; k < f->count; ++k) {
		float x = half_w + (f->x[k] - cam->center.x) * s;
		float y = half_h - (f->y[k] - cam->center.y) * s;
		float rad = f->radius[k] * s;
		float reach = (rad < VW_AGENT_MIN_PX ? VW_AGENT_MIN_PX : 1.6f * rad) + ring_reach;
		if (x < -reach || y < -reach || x > cam->width + reach || y > cam->height + reach) {
			continue;
		}
		uint32_t ci = vw_color_index(o->color_mode, o->army_roles, f->group[k], f->archetype[k]);
		// At most `rings` rings, whatever the frame's count says.
		const bool ring = ringed < rings && (f->combat_state[k] & THRONG_COMBAT_ROUTING) != 0;
		ringed += ring;
		if (rad < VW_AGENT_MIN_PX) {
			// 2 px, growing with the agent into the smallest triangle.
			float side = rad < 1.0f ? 2.0f : 2.0f * rad;
			if (ring) {
				const float out = side + 2.0f;
				m->loose[q] = (SDL_FRect){x - 0.5f * out, y - 0.5f * out, out, out};
				m->bucket[q++] = 0;
			}
			m->loose[q] = (SDL_FRect){x - 0.5f * side, y - 0.5f * side, side, side};
			m->bucket[q++] = (uint8_t)(1u + ci);
			continue;
		}
		// Screen Y points down: the heading (hx, hy) becomes (hx, -hy).
		if (ring) {
			ring_tris = put_ring(m, ring_tris, x, y, f->hx[k], -f->hy[k], rad);
		}
		float hx = f->hx[k] * rad, hy = -f->hy[k] * rad;
		const float v[6] = {
			x + 1.6f * hx, y + 1.6f * hy, // tip
			x - hx - hy,   y - hy + hx,   // back corners: -h +- perp(h)
			x - hx + hy,   y - hy - hx,
		};
		SDL_Color c = palette[ci];
		if (f->vigour != NULL) {
			c = vw_dim(c, f->vigour[k]);
		}
		n = put_triangle(m, n, v, c);
	}
	m->triangles = ring_tris + n - 2u * rings;
	m->squares = q;
	SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
	draw_triangles(r, m, 0, ring_tris);
	draw_triangles(r, m, 2u * rings, n - 2u * rings);
	if (q > 0) {
		SDL_Color color[SQUARE_BUCKETS] = {VW_ROUTING};
		memcpy(color + 1, palette, VW_COLOR_COUNT * sizeof *palette);
		draw_squares(r, m, q, color);
	}
	return true;
}

/// A body's figure, in units of its radius along its facing (feet at -1,
/// head at +1) and across it: the trapezoid from the feet (half-width
/// BODY_FEET_W) to the shoulders (BODY_SHOULDERS, half-width
/// BODY_SHOULDERS_W), the head a disc of BODY_HEAD_R at BODY_HEAD.
#define BODY_FEET (-0.96f)
#define BODY_FEET_W 0.24f
#define BODY_SHOULDERS 0.28f
#define BODY_SHOULDERS_W 0.40f
#define BODY_HEAD 0.64f
#define BODY_HEAD_R 0.34f
/// Bodies smaller than this radius on screen (px) are a bar without a head.
#define BODY_HEAD_PX 4.0f
/// Half the width of that bar, in radii (1 px at least).
#define BODY_BAR_W 0.30f
/// Triangles of a body: 2 for the trapezoid, 6 for the head (an octagon).
#define BODY_TRIS 8u

/// Makes room for `tris` triangles and `squares` squares, doubling.
static bool body_room(vw_agent_mesh* m, uint32_t tris, uint32_t squares)
{
	uint32_t need = tris > squares ? tris : squares;
	if (need <= m->cap && m->xy != NULL) {
		return true;
	}
	return reserve_mesh(m, need > 2u * m->cap ? need : 2u * m->cap);
}

/// Writes the quad (a, b, c, d), in order round it, as triangles n and
/// n + 1; returns n + 2.
static uint32_t put_quad(vw_agent_mesh* m, uint32_t n, const float q[8], SDL_Color c)
{
	const float t0[6] = {q[0], q[1], q[2], q[3], q[4], q[5]};
	const float t1[6] = {q[0], q[1], q[4], q[5], q[6], q[7]};
	n = put_triangle(m, n, t0, c);
	return put_triangle(m, n, t1, c);
}

bool vw_draw_bodies(SDL_Renderer* r, vw_agent_mesh* m, const vw_camera* cam, const vw_frame* f,
                    const vw_draw_opts* o)
{
	if (f->body_count == 0) {
		return true;
	}
	// The octagon's corners round the head's centre.
	static const float OCT[8][2] = {{1.0f, 0.0f},  {0.70711f, 0.70711f},   {0.0f, 1.0f},  {-0.70711f, 0.70711f},
	                                {-1.0f, 0.0f}, {-0.70711f, -0.70711f}, {0.0f, -1.0f}, {0.70711f, -0.70711f}};
	const SDL_Color* palette = vw_palette(o->color_mode, o->army_roles);
	SDL_Color dead[SQUARE_BUCKETS] = {VW_BACKGROUND}; // bucket 0, the rings', unused
	for (uint32_t c = 0; c < VW_COLOR_COUNT; ++c) {
		dead[c + 1u] = vw_dead(palette[c]);
	}
	const float half_w = 0.5f * cam->width, half_h = 0.5f * cam->height;
	const float s = cam->scale;
	uint32_t n = 0, q = 0;
	bool ok = true;
	for (uint32_t k = 0; k < f->body_count; ++k) {
		const vw_body* b = &f->bodies[k];
		const float x = half_w + (b->position.x - cam->center.x) * s;
		const float y = half_h - (b->position.y - cam->center.y) * s;
		const float rad = b->radius * s;
		const float reach = rad + 2.0f;
		if (!(x >= -reach && y >= -reach && x <= cam->width + reach && y <= cam->height + reach)) {
			continue;
		}
		if (!body_room(m, n + BODY_TRIS, q + 1u)) {
			ok = false;
			break;
		}
		const uint32_t ci = vw_color_index(o->color_mode, o->army_roles, b->group, b->archetype);
		if (rad < VW_OBSTACLE_MIN_PX) {
			const float side = rad < 1.0f ? 1.0f : rad;
			m->loose[q] = (SDL_FRect){x - 0.5f * side, y - 0.5f * side, side, side};
			m->bucket[q++] = (uint8_t)(1u + ci);
			continue;
		}
		// Screen Y points down: the facing (fx, fy) becomes (fx, -fy);
		// (ux, uy) runs from feet to head, (vx, vy) across, both rad long.
		const float ux = b->facing.x * rad, uy = -b->facing.y * rad;
		const float vx = -uy, vy = ux;
		const SDL_Color c = dead[1u + ci];
		if (rad < BODY_HEAD_PX) {
			const float w = BODY_BAR_W * rad >= 1.0f ? BODY_BAR_W : 1.0f / rad; // 2 px wide at least
			const float bar[8] = {x - ux - w * vx, y - uy - w * vy, x + ux - w * vx, y + uy - w * vy,
			                      x + ux + w * vx, y + uy + w * vy, x - ux + w * vx, y - uy + w * vy};
			n = put_quad(m, n, bar, c);
			continue;
		}
		const float fx = x + BODY_FEET * ux, fy = y + BODY_FEET * uy;
		const float sx = x + BODY_SHOULDERS * ux, sy = y + BODY_SHOULDERS * uy;
		const float fw = BODY_FEET_W, sw = BODY_SHOULDERS_W;
		const float trunk[8] = {fx - fw * vx, fy - fw * vy, sx - sw * vx, sy - sw * vy,
		                        sx + sw * vx, sy + sw * vy, fx + fw * vx, fy + fw * vy};
		n = put_quad(m, n, trunk, c);
		const float hx = x + BODY_HEAD * ux, hy = y + BODY_HEAD * uy, hr = BODY_HEAD_R * rad;
		for (int i = 1; i < 7; ++i) {
			const float t[6] = {hx + hr * OCT[0][0],     hy + hr * OCT[0][1],     hx + hr * OCT[i][0],
			                    hy + hr * OCT[i][1],     hx + hr * OCT[i + 1][0], hy + hr * OCT[i + 1][1]};
			n = put_triangle(m, n, t, c);
		}
	}
	SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
	draw_triangles(r, m, 0, n);
	if (q > 0) {
		draw_squares(r, m, q, dead);
	}
	return ok;
}

void vw_draw_crosshair(vw_batch* b, float x, float y, SDL_Color c)
{
	vw_batch_line(b, x - 10.0f, y, x - 3.0f, y, 2.0f, c);
	vw_batch_line(b, x + 3.0f, y, x + 10.0f, y, 2.0f, c);
	vw_batch_line(b, x, y - 10.0f, x, y - 3.0f, 2.0f, c);
	vw_batch_line(b, x, y + 3.0f, x, y + 10.0f, 2.0f, c);
}

void vw_draw_threat(vw_batch* b, const vw_camera* cam, const vw_frame* f)
{
	if (!f->threat_active) {
		return;
	}
	float sx, sy;
	vw_camera_to_screen(cam, f->threat.x, f->threat.y, &sx, &sy);
	vw_batch_circle(b, sx, sy, 9.0f, 2.5f, THREAT);
	vw_batch_disc(b, sx, sy, 3.5f, THREAT);
}

void vw_agent_mesh_free(vw_agent_mesh* m)
{
	free(m->xy);
	free(m->color);
	free(m->rects);
	free(m->loose);
	free(m->bucket);
	memset(m, 0, sizeof *m);
}
