// SPDX-License-Identifier: MIT
// Helpers of the viewer's end-to-end tests (test_viewer_support.c).
#ifndef THRONG_VIEWER_TEST_SUPPORT_H
#define THRONG_VIEWER_TEST_SUPPORT_H

#include <png.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/throng.h"

#define W 640
#define H 480
#define FIT_FILL 0.92f

/// Environment for a run on the dummy driver, leak checks kept.
#define DUMMY "-u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=dummy"
/// Appends detect_leaks=0 to whatever ASAN_OPTIONS the test runs with.
#define NO_LEAKS "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\""

extern const unsigned char GROUP0[3];
/// VW_GROUP_COLORS (palette.h): group g is drawn in GROUPS[g % 8].
extern const unsigned char GROUPS[8][3];
extern const unsigned char BACKGROUND[3];
extern const unsigned char OBSTACLE_FILL[3];

/// The test's directory (make_dir), and the last run's stdout and stderr.
extern char dir[64];
extern char out[8192], err[8192];

void make_dir(void);
void remove_dir(void);
void slurp(const char* path, char* buf, size_t cap);
/// Writes `text` to file `name` of the test's directory.
void write_text(const char* name, const char* text);

/// Runs `env <env> throng-view <args>` in the test's directory; stdout and
/// stderr land in out and err. Returns the exit status.
int run_view(const char* env, const char* args);

/// run_view that fails the test unless throng-view exits 0.
void view_ok(const char* env, const char* args);

/// Runs `throng <args>` in the test's directory; fails the test unless it
/// exits 0.
void throng_ok(const char* args);

typedef struct image {
	png_uint_32 w, h;
	unsigned char* rgb;
} image;

/// A PNG of the test's directory as RGB (free img.rgb).
image load_png(const char* name);
const unsigned char* px(const image* img, int x, int y);
bool is(const unsigned char* p, const unsigned char c[3]);
void expect_color(const image* img, int x, int y, const unsigned char c[3], const char* what);
/// Two PNGs of the test's directory are the same picture, pixel for pixel.
void expect_same(const char* a, const char* b);
/// Pixels of colour c in the whole image.
size_t count_color(const image* img, const unsigned char c[3]);

/// The viewer's fit-to-world camera (camera.h), written out again.
typedef struct fit {
	float cx, cy, scale;
} fit;

fit fit_bounds(throng_vec2 lo, throng_vec2 hi);
void project(const fit* f, throng_vec2 p, int* x, int* y);

/// Steps scenario `name` (a built-in, or a scenario file when it holds a
/// '/') like the viewer's lockstep capture of `frames` frames (frame n
/// shows step n) and checks that every live agent's pixel in `png` has its
/// group's colour. Returns the number of agents.
uint32_t expect_agents_drawn(const char* name, uint32_t agents, uint32_t frames, const char* png);

/// The same for a capture with --steps-per-frame: frame n shows step
/// n * steps_per_frame.
uint32_t expect_agents_drawn_every(const char* name, uint32_t agents, uint32_t frames, uint32_t steps_per_frame,
                                   const char* png);

#endif
