// SPDX-License-Identifier: MIT
// The 2D camera: world metres (Y up) to window pixels (Y down).
//
//   screen.x = width/2  + (x - center.x) * scale
//   screen.y = height/2 - (y - center.y) * scale
//
// Fit-to-world centres the bounds and scales them to VW_FIT_FILL of the
// window's smaller ratio; the viewer's tests project agent positions with
// these same formulas.
#ifndef THRONG_VIEWER_CAMERA_H
#define THRONG_VIEWER_CAMERA_H

#include "throng/throng.h"

/// Fraction of the window the world's bounds fill after a fit.
#define VW_FIT_FILL 0.92f
#define VW_MIN_SCALE 1.0e-4f ///< px per m
#define VW_MAX_SCALE 2.0e4f

typedef struct vw_camera {
	throng_vec2 center; ///< world point at the window's centre (m)
	float scale;        ///< pixels per metre
	float width, height; ///< window size (px)
} vw_camera;

/// Centres the bounds and fits them into the window.
void vw_camera_fit(vw_camera* cam, throng_vec2 lo, throng_vec2 hi, float width, float height);

/// Fits the bounds into the window's rectangle (x0, y0)-(x1, y1) (px)
/// instead of the whole window: the part the HUD leaves free.
void vw_camera_fit_rect(vw_camera* cam, throng_vec2 lo, throng_vec2 hi, float width, float height, float x0, float y0,
                        float x1, float y1);

/// Multiplies the scale by `factor` keeping the world point under screen
/// point (sx, sy) where it is.
void vw_camera_zoom_at(vw_camera* cam, float sx, float sy, float factor);

/// Moves the view by a screen-space drag of (dx, dy) pixels.
void vw_camera_pan(vw_camera* cam, float dx, float dy);

throng_vec2 vw_camera_to_world(const vw_camera* cam, float sx, float sy);
void vw_camera_to_screen(const vw_camera* cam, float x, float y, float* sx, float* sy);

#endif
