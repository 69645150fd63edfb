// SPDX-License-Identifier: MIT
// The 2D camera (formulas in camera.h).
#include "camera.h"

void vw_camera_fit(vw_camera* cam, throng_vec2 lo, throng_vec2 hi, float width, float height)
{
	float w = hi.x - lo.x;
	float h = hi.y - lo.y;
	cam->width = width;
	cam->height = height;
	cam->center = (throng_vec2){0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y)};
	float sx = w > 0.0f ? width / w : 1.0f;
	float sy = h > 0.0f ? height / h : 1.0f;
	float s = VW_FIT_FILL * (sx < sy ? sx : sy);
	cam->scale = s < VW_MIN_SCALE ? VW_MIN_SCALE : s > VW_MAX_SCALE ? VW_MAX_SCALE : s;
}

void vw_camera_fit_rect(vw_camera* cam, throng_vec2 lo, throng_vec2 hi, float width, float height, float x0, float y0,
                        float x1, float y1)
{
	vw_camera_fit(cam, lo, hi, x1 - x0, y1 - y0);
	cam->width = width;
	cam->height = height;
	// The bounds' centre goes to the rectangle's centre, not the window's.
	cam->center.x -= (0.5f * (x0 + x1) - 0.5f * width) / cam->scale;
	cam->center.y += (0.5f * (y0 + y1) - 0.5f * height) / cam->scale;
}

void vw_camera_zoom_at(vw_camera* cam, float sx, float sy, float factor)
{
	throng_vec2 before = vw_camera_to_world(cam, sx, sy);
	float s = cam->scale * factor;
	cam->scale = s < VW_MIN_SCALE ? VW_MIN_SCALE : s > VW_MAX_SCALE ? VW_MAX_SCALE : s;
	throng_vec2 after = vw_camera_to_world(cam, sx, sy);
	cam->center.x += before.x - after.x;
	cam->center.y += before.y - after.y;
}

void vw_camera_pan(vw_camera* cam, float dx, float dy)
{
	cam->center.x -= dx / cam->scale;
	cam->center.y += dy / cam->scale;
}

throng_vec2 vw_camera_to_world(const vw_camera* cam, float sx, float sy)
{
	return (throng_vec2){cam->center.x + (sx - 0.5f * cam->width) / cam->scale,
	                     cam->center.y - (sy - 0.5f * cam->height) / cam->scale};
}

void vw_camera_to_screen(const vw_camera* cam, float x, float y, float* sx, float* sy)
{
	*sx = 0.5f * cam->width + (x - cam->center.x) * cam->scale;
	*sy = 0.5f * cam->height - (y - cam->center.y) * cam->scale;
}
