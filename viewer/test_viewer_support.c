// SPDX-License-Identifier: MIT
// What the viewer's end-to-end tests share (see test_viewer.c's opening
// note): running the built viewer, reading its PNGs, and the scenes
// computed again with the library to know where each agent is drawn.
#define _XOPEN_SOURCE 700 // mkdtemp

#include "test_viewer_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "throng/scenario.h"
#include "throng/scenario_file.h"

const unsigned char GROUP0[3] = {80, 200, 255};
/// VW_GROUP_COLORS (palette.h): group g is drawn in GROUPS[g % 8].
const unsigned char GROUPS[8][3] = {{80, 200, 255},  {255, 150, 60},  {120, 230, 110}, {245, 95, 165},
                                           {250, 225, 80},  {175, 135, 255}, {95, 225, 210},  {235, 235, 235}};
const unsigned char BACKGROUND[3] = {18, 20, 26};
const unsigned char OBSTACLE_FILL[3] = {52, 58, 74};

char dir[64];
char out[8192], err[8192];

void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/throng-view-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

void slurp(const char* path, char* buf, size_t cap)
{
	buf[0] = '\0';
	FILE* f = fopen(path, "r");
	if (f != NULL) {
		size_t n = fread(buf, 1, cap - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
}

void write_text(const char* name, const char* text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fputs(text, f) >= 0 && fclose(f) == 0, true, "cannot write %s", path);
}

/// Runs `env <env> throng-view <args>` in the test's directory; stdout and
/// stderr land in out and err. Returns the exit status.
int run_view(const char* env, const char* args)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && env %s '%s' %s >'%s/out.txt' 2>'%s/err.txt'", dir, env, THRONG_VIEW_PATH,
	         args, dir, dir);
	int status = system(cmd);
	char path[128];
	snprintf(path, sizeof path, "%s/out.txt", dir);
	slurp(path, out, sizeof out);
	snprintf(path, sizeof path, "%s/err.txt", dir);
	slurp(path, err, sizeof err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// run_view that fails the test unless throng-view exits 0.
void view_ok(const char* env, const char* args)
{
	int rc = run_view(env, args);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
}

void throng_ok(const char* args)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s -q >'%s/throng.txt' 2>&1", dir, THRONG_CLI_PATH, args, dir);
	int status = system(cmd);
	char log[4096], path[128];
	snprintf(path, sizeof path, "%s/throng.txt", dir);
	slurp(path, log, sizeof log);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "throng %s: %s", args, log);
}

image load_png(const char* name)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	png_image p;
	memset(&p, 0, sizeof p);
	p.version = PNG_IMAGE_VERSION;
	cr_assert(png_image_begin_read_from_file(&p, path), "cannot read %s: %s", path, p.message);
	p.format = PNG_FORMAT_RGB;
	image img = {p.width, p.height, malloc(PNG_IMAGE_SIZE(p))};
	cr_assert_not_null(img.rgb);
	cr_assert(png_image_finish_read(&p, NULL, img.rgb, 0, NULL), "cannot decode %s: %s", path, p.message);
	return img;
}

const unsigned char* px(const image* img, int x, int y)
{
	cr_assert(x >= 0 && y >= 0 && (png_uint_32)x < img->w && (png_uint_32)y < img->h, "pixel %d,%d outside", x, y);
	return img->rgb + 3u * ((size_t)y * img->w + (size_t)x);
}

bool is(const unsigned char* p, const unsigned char c[3])
{
	return p[0] == c[0] && p[1] == c[1] && p[2] == c[2];
}

void expect_color(const image* img, int x, int y, const unsigned char c[3], const char* what)
{
	const unsigned char* p = px(img, x, y);
	cr_expect(is(p, c), "%s: pixel (%d, %d) is (%u, %u, %u), expected (%u, %u, %u)", what, x, y, p[0], p[1], p[2],
	          c[0], c[1], c[2]);
}

void expect_same(const char* a, const char* b)
{
	image x = load_png(a), y = load_png(b);
	cr_assert_eq(x.w, y.w);
	cr_assert_eq(x.h, y.h);
	size_t differ = 0, first = 0;
	for (size_t k = 0; k < (size_t)x.w * x.h; ++k) {
		if (memcmp(x.rgb + 3 * k, y.rgb + 3 * k, 3) != 0 && differ++ == 0) {
			first = k;
		}
	}
	cr_expect_eq(differ, 0, "%s and %s differ in %zu pixels, the first at (%zu, %zu)", a, b, differ, first % x.w,
	             first / x.w);
	free(x.rgb);
	free(y.rgb);
}

size_t count_color(const image* img, const unsigned char c[3])
{
	size_t n = 0;
	for (size_t k = 0; k < (size_t)img->w * img->h; ++k) {
		n += is(img->rgb + 3 * k, c);
	}
	return n;
}

fit fit_bounds(throng_vec2 lo, throng_vec2 hi)
{
	float sx = (float)W / (hi.x - lo.x), sy = (float)H / (hi.y - lo.y);
	fit f = {0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), FIT_FILL * (sx < sy ? sx : sy)};
	return f;
}

void project(const fit* f, throng_vec2 p, int* x, int* y)
{
	*x = (int)(0.5f * (float)W + (p.x - f->cx) * f->scale);
	*y = (int)(0.5f * (float)H - (p.y - f->cy) * f->scale);
}

/// Steps scenario `name` (a built-in, or a scenario file when it holds a
/// '/') like the viewer's lockstep capture of `frames` frames (frame n
/// shows step n) and checks that every agent's pixel in `png` has its
/// group's colour. Returns the number of agents.
uint32_t expect_agents_drawn(const char* name, uint32_t agents, uint32_t frames, const char* png)
{
	return expect_agents_drawn_every(name, agents, frames, 1, png);
}

uint32_t expect_agents_drawn_every(const char* name, uint32_t agents, uint32_t frames, uint32_t steps_per_frame,
                                   const char* png)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.record_forces = true;
	throng_scene* s = NULL;
	throng_status st =
		strchr(name, '/') != NULL ? throng_scene_load_file(name, &o, &s) : throng_scene_create(name, &o, &s);
	cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
	for (uint64_t k = 0; k < (uint64_t)(frames - 1u) * steps_per_frame; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	throng_world* w = throng_scene_world(s);
	throng_world_def def = throng_world_get_def(w);
	fit f = fit_bounds(def.bounds_min, def.bounds_max);
	image img = load_png(png);
	cr_assert_eq(img.w, W);
	cr_assert_eq(img.h, H);
	// The live agents by the view's ids: they have gaps once agents come and go.
	throng_view v = throng_world_view(w);
	uint32_t n = v.count;
	uint32_t* ids = malloc(((size_t)n + 1u) * sizeof *ids);
	cr_assert_not_null(ids);
	memcpy(ids, v.id, (size_t)n * sizeof *ids);
	uint32_t wrong = 0;
	for (uint32_t k = 0; k < n; ++k) {
		uint32_t id = ids[k];
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
		int x, y;
		project(&f, a.position, &x, &y);
		// Agents drawn larger than 3 px must colour their own pixel; the
		// smallest (4 x 3 px, vertices snapped to whole pixels by SDL's
		// software rasteriser) one of the 3 x 3 around it.
		const unsigned char* want = GROUPS[a.group % 8u];
		bool hit = is(px(&img, x, y), want);
		for (int dy = -1; dy <= 1 && !hit && a.radius * f.scale < 3.0f; ++dy) {
			for (int dx = -1; dx <= 1 && !hit; ++dx) {
				hit = is(px(&img, x + dx, y + dy), want);
			}
		}
		if (!hit && wrong++ < 5) {
			const unsigned char* p = px(&img, x, y);
			cr_log_error("%s: agent %u at (%g, %g) -> pixel (%d, %d) is (%u, %u, %u)", name, id,
			             (double)a.position.x, (double)a.position.y, x, y, p[0], p[1], p[2]);
		}
	}
	free(ids);
	cr_expect_eq(wrong, 0, "%s: %u of %u agents not drawn where they are", name, wrong, n);
	// Most of the picture is background, and the corners are.
	size_t background = 0;
	for (size_t k = 0; k < (size_t)W * H; ++k) {
		background += is(img.rgb + 3 * k, BACKGROUND);
	}
	cr_expect_gt(background, (size_t)W * H * 8 / 10, "%s: only %zu background pixels", name, background);
	expect_color(&img, 2, H - 3, BACKGROUND, name);
	expect_color(&img, W - 3, H - 3, BACKGROUND, name);
	free(img.rgb);
	throng_scene_destroy(s);
	return n;
}
