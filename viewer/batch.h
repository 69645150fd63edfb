// SPDX-License-Identifier: MIT
// A growing array of triangles drawn with one SDL_RenderGeometry call:
// lines, arrows, circles, discs and rectangles in screen pixels.
//
// Shapes are clipped to the window grown by a margin before they become
// triangles, so a 30 km wall seen from up close never hands the software
// rasteriser coordinates it would overflow.
#ifndef THRONG_VIEWER_BATCH_H
#define THRONG_VIEWER_BATCH_H

#include <SDL.h>
#include <stdbool.h>

typedef struct vw_batch {
	SDL_Vertex* v;
	int count, cap;
	bool failed;        ///< an allocation failed; later shapes are dropped
	float clip_w, clip_h; ///< the window (px)
} vw_batch;

/// Empties the batch and sets the window it clips to.
void vw_batch_begin(vw_batch* b, float width, float height);

/// Draws everything in one call, with the renderer's blend mode, and
/// empties it.
void vw_batch_flush(vw_batch* b, SDL_Renderer* r);

void vw_batch_free(vw_batch* b);

void vw_batch_triangle(vw_batch* b, float x0, float y0, float x1, float y1, float x2, float y2, SDL_Color c);
void vw_batch_rect(vw_batch* b, float x, float y, float w, float h, SDL_Color c);
void vw_batch_line(vw_batch* b, float x0, float y0, float x1, float y1, float width, SDL_Color c);
/// A line with a head at (x1, y1) of size proportional to the width.
void vw_batch_arrow(vw_batch* b, float x0, float y0, float x1, float y1, float width, SDL_Color c);
void vw_batch_circle(vw_batch* b, float cx, float cy, float r, float width, SDL_Color c);
void vw_batch_disc(vw_batch* b, float cx, float cy, float r, SDL_Color c);

#endif
