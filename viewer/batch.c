// SPDX-License-Identifier: MIT
// Triangle batches for overlay shapes (see batch.h).
#include "batch.h"

#include <math.h>
#include <stdlib.h>

#define CLIP_MARGIN 64.0f ///< px around the window that shapes keep
#define PI_F 3.14159265358979f

void vw_batch_begin(vw_batch* b, float width, float height)
{
	b->count = 0;
	b->failed = false;
	b->clip_w = width;
	b->clip_h = height;
}

void vw_batch_flush(vw_batch* b, SDL_Renderer* r)
{
	if (b->count > 0) {
		SDL_RenderGeometry(r, NULL, b->v, b->count, NULL, 0);
	}
	b->count = 0;
}

void vw_batch_free(vw_batch* b)
{
	free(b->v);
	b->v = NULL;
	b->count = b->cap = 0;
}

/// Room for n more vertices; false (and `failed`) when it cannot grow.
static bool reserve(vw_batch* b, int n)
{
	if (b->count + n <= b->cap) {
		return true;
	}
	int cap = b->cap ? b->cap : 1024;
	while (cap < b->count + n) {
		cap *= 2;
	}
	SDL_Vertex* v = realloc(b->v, (size_t)cap * sizeof *v);
	if (v == NULL) {
		b->failed = true;
		return false;
	}
	b->v = v;
	b->cap = cap;
	return true;
}

static void put(vw_batch* b, float x, float y, SDL_Color c)
{
	SDL_Vertex* p = &b->v[b->count++];
	p->position.x = x;
	p->position.y = y;
	p->tex_coord.x = 0.0f;
	p->tex_coord.y = 0.0f;
	p->color = c;
}

void vw_batch_triangle(vw_batch* b, float x0, float y0, float x1, float y1, float x2, float y2, SDL_Color c)
{
	if (reserve(b, 3)) {
		put(b, x0, y0, c);
		put(b, x1, y1, c);
		put(b, x2, y2, c);
	}
}

void vw_batch_rect(vw_batch* b, float x, float y, float w, float h, SDL_Color c)
{
	if (reserve(b, 6)) {
		put(b, x, y, c);
		put(b, x + w, y, c);
		put(b, x + w, y + h, c);
		put(b, x, y, c);
		put(b, x + w, y + h, c);
		put(b, x, y + h, c);
	}
}

/// Liang-Barsky: clips the segment to the window grown by `pad` pixels.
/// Returns false when nothing of it is left.
static bool clip_segment(const vw_batch* b, float pad, float* x0, float* y0, float* x1, float* y1)
{
	float lo_x = -pad, lo_y = -pad, hi_x = b->clip_w + pad, hi_y = b->clip_h + pad;
	float dx = *x1 - *x0, dy = *y1 - *y0;
	float t0 = 0.0f, t1 = 1.0f;
	const float p[4] = {-dx, dx, -dy, dy};
	const float q[4] = {*x0 - lo_x, hi_x - *x0, *y0 - lo_y, hi_y - *y0};
	for (int k = 0; k < 4; ++k) {
		if (p[k] == 0.0f) {
			if (q[k] < 0.0f) {
				return false;
			}
			continue;
		}
		float t = q[k] / p[k];
		if (p[k] < 0.0f) {
			if (t > t1) {
				return false;
			}
			if (t > t0) {
				t0 = t;
			}
		} else {
			if (t < t0) {
				return false;
			}
			if (t < t1) {
				t1 = t;
			}
		}
	}
	float ax = *x0 + t0 * dx, ay = *y0 + t0 * dy;
	*x1 = *x0 + t1 * dx;
	*y1 = *y0 + t1 * dy;
	*x0 = ax;
	*y0 = ay;
	return true;
}

void vw_batch_line(vw_batch* b, float x0, float y0, float x1, float y1, float width, SDL_Color c)
{
	if (!clip_segment(b, CLIP_MARGIN, &x0, &y0, &x1, &y1)) {
		return;
	}
	float dx = x1 - x0, dy = y1 - y0;
	float len = sqrtf(dx * dx + dy * dy);
	if (!(len > 1e-4f)) {
		return;
	}
	float nx = -dy / len * 0.5f * width, ny = dx / len * 0.5f * width;
	if (reserve(b, 6)) {
		put(b, x0 + nx, y0 + ny, c);
		put(b, x1 + nx, y1 + ny, c);
		put(b, x1 - nx, y1 - ny, c);
		put(b, x0 + nx, y0 + ny, c);
		put(b, x1 - nx, y1 - ny, c);
		put(b, x0 - nx, y0 - ny, c);
	}
}

void vw_batch_arrow(vw_batch* b, float x0, float y0, float x1, float y1, float width, SDL_Color c)
{
	float dx = x1 - x0, dy = y1 - y0;
	float len = sqrtf(dx * dx + dy * dy);
	if (!(len > 0.5f)) {
		return;
	}
	float ux = dx / len, uy = dy / len;
	float head = 4.0f + 2.5f * width;
	if (head > 0.6f * len) {
		head = 0.6f * len;
	}
	float bx = x1 - ux * head, by = y1 - uy * head;
	vw_batch_line(b, x0, y0, bx, by, width, c);
	float hw = 0.55f * head;
	vw_batch_triangle(b, x1, y1, bx - uy * hw, by + ux * hw, bx + uy * hw, by - ux * hw, c);
}

/// Segments for a circle of radius r pixels: smooth but bounded.
static int segments(float r)
{
	int n = (int)(r * 0.6f);
	return n < 12 ? 12 : n > 96 ? 96 : n;
}

/// Whether a circle lies entirely outside the clip window.
static bool circle_outside(const vw_batch* b, float cx, float cy, float r)
{
	return cx + r < -CLIP_MARGIN || cy + r < -CLIP_MARGIN || cx - r > b->clip_w + CLIP_MARGIN ||
	       cy - r > b->clip_h + CLIP_MARGIN;
}

void vw_batch_circle(vw_batch* b, float cx, float cy, float r, float width, SDL_Color c)
{
	if (!(r > 0.0f) || circle_outside(b, cx, cy, r)) {
		return;
	}
	// Huge circles (zoomed in on a large obstacle) get more, clipped
	// segments; their chords stay within a pixel of the arc for r < 20000.
	int n = r > 2000.0f ? 720 : segments(r);
	float px = cx + r, py = cy;
	for (int k = 1; k <= n; ++k) {
		float a = 2.0f * PI_F * (float)k / (float)n;
		float x = cx + r * cosf(a), y = cy + r * sinf(a);
		vw_batch_line(b, px, py, x, y, width, c);
		px = x;
		py = y;
	}
}

void vw_batch_disc(vw_batch* b, float cx, float cy, float r, SDL_Color c)
{
	if (!(r > 0.0f) || circle_outside(b, cx, cy, r)) {
		return;
	}
	if (r > 2000.0f) {
		return; // larger than the window: the outline alone reads better
	}
	if (r < 1.0f) {
		vw_batch_rect(b, cx - 0.5f, cy - 0.5f, 1.0f, 1.0f, c);
		return;
	}
	int n = segments(r);
	if (!reserve(b, 3 * n)) {
		return;
	}
	float px = cx + r, py = cy;
	for (int k = 1; k <= n; ++k) {
		float a = 2.0f * PI_F * (float)k / (float)n;
		float x = cx + r * cosf(a), y = cy + r * sinf(a);
		put(b, cx, cy, c);
		put(b, px, py, c);
		put(b, x, y, c);
		px = x;
		py = y;
	}
}
