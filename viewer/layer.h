// SPDX-License-Identifier: MIT
// The world layer: background, scene shapes and agents, cached in a
// render-target texture.
//
// Drawing 100,000 agent triangles with SDL's software renderer costs
// several times everything else in a frame (overlays, HUD, the copy;
// docs/PERFORMANCE.md, "Viewer"). So the layer is drawn again only when
// it must: at once when the view options change; for a new simulation
// step or a moved camera only after
// a pause of 3x the last redraw's wall time (at most 100 ms) since it
// ended, so the crowd takes at most about a quarter of the render thread. In between, the
// last layer is shown, scaled and shifted to the current camera, so pans
// and zooms stay smooth whatever the crowd costs. Captures (lockstep)
// always draw the newest state.
#ifndef THRONG_VIEWER_LAYER_H
#define THRONG_VIEWER_LAYER_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "batch.h"
#include "camera.h"
#include "draw.h"
#include "sim.h"

typedef struct vw_layer {
	SDL_Texture* texture;
	int w, h;
	bool valid;
	uint64_t version;     ///< world_version of the frame it shows
	vw_camera camera;     ///< the camera it was drawn with
	vw_draw_opts opts;
	double t;             ///< when its drawing ended (s)
	double cost_ms;       ///< wall time that took
	uint32_t redraws;
} vw_layer;

/// Puts the world of frame f, seen through `cam`, into the window. With
/// `throttle` false (captures) the layer always shows f exactly.
void vw_layer_draw(vw_layer* layer, SDL_Renderer* r, vw_batch* shapes, vw_agent_mesh* mesh, const vw_camera* cam,
                   const vw_frame* f, const vw_draw_opts* o, bool throttle, double now);

void vw_layer_free(vw_layer* layer);

#endif
