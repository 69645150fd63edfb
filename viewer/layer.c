// SPDX-License-Identifier: MIT
// The cached world layer (see layer.h).
#include "layer.h"

#include <string.h>

#include "palette.h"

#define MAX_WAIT_S 0.1    ///< the crowd is redrawn at least this often
#define MAX_REPROJECT 8.0f ///< beyond this zoom ratio the old layer is too coarse

/// Draws background, shapes, bodies and agents into the current render target.
static void draw_world(vw_layer* layer, SDL_Renderer* r, vw_batch* shapes, vw_agent_mesh* mesh,
                       const vw_camera* cam, const vw_frame* f, const vw_draw_opts* o)
{
	SDL_SetRenderDrawColor(r, VW_BACKGROUND.r, VW_BACKGROUND.g, VW_BACKGROUND.b, 255);
	SDL_RenderClear(r);
	vw_batch_begin(shapes, cam->width, cam->height);
	vw_draw_scene(shapes, cam, f, o);
	// Opaque shapes without blending: SDL's software renderer blends each
	// triangle through a temporary surface of its own.
	SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
	vw_batch_flush(shapes, r);
	vw_draw_small_obstacles(r, mesh, cam, f, o);
	vw_draw_bodies(r, mesh, cam, f, o); // the living stand on the dead
	vw_draw_agents(r, mesh, cam, f, o);
	layer->redraws++;
}

static bool same_opts(const vw_draw_opts* a, const vw_draw_opts* b)
{
	return a->grid == b->grid && a->color_mode == b->color_mode && a->army_roles == b->army_roles && a->drag_obstacle == b->drag_obstacle &&
	       a->drag_center.x == b->drag_center.x && a->drag_center.y == b->drag_center.y;
}

static bool same_camera(const vw_camera* a, const vw_camera* b)
{
	return a->center.x == b->center.x && a->center.y == b->center.y && a->scale == b->scale &&
	       a->width == b->width && a->height == b->height;
}

/// Makes sure the texture matches the window; false without render targets.
static bool ensure_texture(vw_layer* layer, SDL_Renderer* r, int w, int h)
{
	if (layer->texture != NULL && (layer->w != w || layer->h != h)) {
		SDL_DestroyTexture(layer->texture);
		layer->texture = NULL;
	}
	if (layer->texture == NULL && SDL_RenderTargetSupported(r)) {
		layer->texture = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, w, h);
		layer->w = w;
		layer->h = h;
		layer->valid = false;
		if (layer->texture != NULL) {
			SDL_SetTextureBlendMode(layer->texture, SDL_BLENDMODE_NONE);
		}
	}
	return layer->texture != NULL;
}

void vw_layer_draw(vw_layer* layer, SDL_Renderer* r, vw_batch* shapes, vw_agent_mesh* mesh, const vw_camera* cam,
                   const vw_frame* f, const vw_draw_opts* o, bool throttle, double now)
{
	int w = (int)cam->width, h = (int)cam->height;
	if (!ensure_texture(layer, r, w, h)) {
		draw_world(layer, r, shapes, mesh, cam, f, o); // straight to the window
		return;
	}
	float ratio = layer->valid ? cam->scale / layer->camera.scale : 1.0f;
	bool must = !layer->valid || !same_opts(o, &layer->opts) || ratio > MAX_REPROJECT ||
	            ratio < 1.0f / MAX_REPROJECT;
	bool stale = layer->version != f->world_version || !same_camera(cam, &layer->camera);
	double wait = 3e-3 * layer->cost_ms;
	wait = wait > MAX_WAIT_S ? MAX_WAIT_S : wait;
	if (must || (stale && (!throttle || now - layer->t >= wait))) {
		if (SDL_SetRenderTarget(r, layer->texture) != 0) {
			draw_world(layer, r, shapes, mesh, cam, f, o);
			return;
		}
		double t0 = (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
		draw_world(layer, r, shapes, mesh, cam, f, o);
		SDL_SetRenderTarget(r, NULL);
		double t1 = (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
		layer->cost_ms = (t1 - t0) * 1e3;
		layer->t = now + (t1 - t0); // the wait counts from the end of the redraw
		layer->valid = true;
		layer->version = f->world_version;
		layer->camera = *cam;
		layer->opts = *o;
	}
	if (same_camera(cam, &layer->camera)) {
		SDL_RenderCopy(r, layer->texture, NULL, NULL);
		return;
	}
	// The last layer, moved to the current camera: its pixel (0, 0) is the
	// world point it showed there, and it scales by the ratio of scales.
	throng_vec2 corner = vw_camera_to_world(&layer->camera, 0.0f, 0.0f);
	SDL_FRect dst;
	vw_camera_to_screen(cam, corner.x, corner.y, &dst.x, &dst.y);
	dst.w = (float)layer->w * ratio;
	dst.h = (float)layer->h * ratio;
	SDL_SetRenderDrawColor(r, VW_BACKGROUND.r, VW_BACKGROUND.g, VW_BACKGROUND.b, 255);
	SDL_RenderClear(r);
	SDL_RenderCopyF(r, layer->texture, NULL, &dst);
}

void vw_layer_free(vw_layer* layer)
{
	if (layer->texture != NULL) {
		SDL_DestroyTexture(layer->texture);
	}
	memset(layer, 0, sizeof *layer);
}
