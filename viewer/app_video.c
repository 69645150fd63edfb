// SPDX-License-Identifier: MIT
// Display, window and renderer.
//
// Renderer choice. SDL prefers OpenGL, which on a machine without a GPU (a
// server, Xvfb) is Mesa's llvmpipe, which draws agent triangles many times
// slower than SDL's own software renderer (docs/PERFORMANCE.md, "Viewer"),
// and llvmpipe's worker threads compete with the simulation's. So, unless
// --renderer or SDL_RENDER_DRIVER says otherwise, a throw-away hidden
// window probes the accelerated renderer, and when it turns out to be a
// software GL the viewer uses SDL's software renderer instead.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define GL_RENDERER_ENUM 0x1F01u

typedef const unsigned char* (*gl_get_string_fn)(unsigned int name);

static bool headless_driver(const char* driver)
{
	return driver != NULL && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0);
}

/// Whether the accelerated renderer on this display is a software GL.
static bool accelerated_is_software_gl(void)
{
	SDL_Window* w = SDL_CreateWindow("throng-view probe", 0, 0, 16, 16, SDL_WINDOW_HIDDEN);
	if (w == NULL) {
		return false;
	}
	bool software = false;
	SDL_Renderer* r = SDL_CreateRenderer(w, -1, SDL_RENDERER_ACCELERATED);
	SDL_RendererInfo info;
	if (r != NULL && SDL_GetRendererInfo(r, &info) == 0 && strncmp(info.name, "opengl", 6) == 0) {
		void* p = SDL_GL_GetProcAddress("glGetString");
		if (p != NULL) {
			gl_get_string_fn get;
			memcpy(&get, &p, sizeof get); // object to function pointer, without a cast
			const char* name = (const char*)get(GL_RENDERER_ENUM);
			software = name != NULL && (strstr(name, "llvmpipe") != NULL || strstr(name, "softpipe") != NULL ||
			                            strstr(name, "swrast") != NULL || strstr(name, "Software") != NULL);
		}
	}
	if (r != NULL) {
		SDL_DestroyRenderer(r);
	}
	SDL_DestroyWindow(w);
	return software;
}

/// "software, opengl, ..." into buf.
static void driver_names(char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < SDL_GetNumRenderDrivers(); ++k) {
		SDL_RendererInfo info;
		if (SDL_GetRenderDriverInfo(k, &info) != 0) {
			continue;
		}
		int n = snprintf(buf + used, cap - used, "%s%s", used == 0 ? "" : ", ", info.name);
		if (n < 0 || (size_t)n >= cap - used) {
			return;
		}
		used += (size_t)n;
	}
}

static bool open_renderer(vw_app* app, const char* driver, char* err, size_t err_cap)
{
	const char* want = app->args->renderer;
	if (want == NULL && SDL_GetHint(SDL_HINT_RENDER_DRIVER) == NULL) {
		if (headless_driver(driver) || accelerated_is_software_gl()) {
			want = "software";
		}
	}
	if (want != NULL) {
		SDL_SetHint(SDL_HINT_RENDER_DRIVER, want);
	}
	app->renderer = SDL_CreateRenderer(app->window, -1, 0);
	if (app->renderer == NULL) {
		char names[256];
		driver_names(names, sizeof names);
		snprintf(err, err_cap, "cannot create a renderer%s%s: %s (render drivers here: %s)", want ? " " : "",
		         want ? want : "", SDL_GetError(), names);
		return false;
	}
	SDL_RendererInfo info;
	if (SDL_GetRendererInfo(app->renderer, &info) == 0) {
		snprintf(app->renderer_name, sizeof app->renderer_name, "%s", info.name);
	}
	return true;
}

/// Whether SDL has a render driver called `name`.
static bool driver_known(const char* name)
{
	for (int k = 0; k < SDL_GetNumRenderDrivers(); ++k) {
		SDL_RendererInfo info;
		if (SDL_GetRenderDriverInfo(k, &info) == 0 && strcmp(info.name, name) == 0) {
			return true;
		}
	}
	return false;
}

int vw_app_open_video(vw_app* app, char* err, size_t err_cap)
{
	const vw_args* a = app->args;
	if (a->renderer != NULL && !driver_known(a->renderer)) {
		char names[256];
		driver_names(names, sizeof names);
		snprintf(err, err_cap, "--renderer: unknown render driver \"%.64s\" (render drivers here: %s)", a->renderer,
		         names);
		return VW_EXIT_USAGE;
	}
	bool capture = vw_args_capture(a);
	if (capture && getenv("SDL_VIDEODRIVER") == NULL && getenv("DISPLAY") == NULL &&
	    getenv("WAYLAND_DISPLAY") == NULL) {
		SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen"); // headless capture needs no display
	}
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		snprintf(err, err_cap,
		         "cannot open a display: %s. Run it in a desktop session, under xvfb-run, or capture "
		         "without a display: SDL_VIDEODRIVER=offscreen throng-view --screenshot out.png",
		         SDL_GetError());
		return VW_EXIT_FAILURE;
	}
	const char* driver = SDL_GetCurrentVideoDriver();
	bool chosen = getenv("SDL_VIDEODRIVER") != NULL || SDL_GetHint(SDL_HINT_VIDEODRIVER) != NULL;
	if (headless_driver(driver) && !chosen && !capture) {
		// SDL falls back to its offscreen driver when it finds no display.
		snprintf(err, err_cap,
		         "cannot open a display: none found (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a "
		         "desktop session, under xvfb-run, or capture without a display: throng-view --screenshot "
		         "out.png");
		return VW_EXIT_FAILURE;
	}
	if (headless_driver(driver) && (a->record != NULL || a->video != NULL) && a->frames == 0 && a->replay == NULL) {
		// With a window, --record and --video run until it is closed; here
		// nothing could close it.
		snprintf(err, err_cap,
		         "%s without --frames would record forever on the \"%s\" video driver (no window to "
		         "close); give --frames N or --steps N",
		         a->video != NULL ? "--video" : "--record", driver);
		return VW_EXIT_USAGE;
	}
	if (headless_driver(driver) && !capture && a->frames == 0 && a->benchmark_frames == 0) {
		snprintf(err, err_cap,
		         "the \"%s\" video driver shows nothing on screen; give --screenshot, --record, --video or "
		         "--frames, or unset SDL_VIDEODRIVER to use a display",
		         driver);
		return VW_EXIT_USAGE;
	}
	// A video keeps the size it starts with: its window cannot be resized.
	Uint32 flags = (a->video != NULL ? 0u : (Uint32)SDL_WINDOW_RESIZABLE) |
	               (headless_driver(driver) ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN);
	char title[128];
	snprintf(title, sizeof title, "throng-view: %s", a->scenario);
	app->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, (int)a->width,
	                               (int)a->height, flags);
	if (app->window == NULL) {
		snprintf(err, err_cap, "cannot open a %u x %u window on the \"%s\" video driver: %s", a->width, a->height,
		         driver ? driver : "?", SDL_GetError());
		return VW_EXIT_FAILURE;
	}
	if (!open_renderer(app, driver, err, err_cap)) {
		return VW_EXIT_FAILURE;
	}
	return VW_EXIT_OK;
}

void vw_app_close_video(vw_app* app)
{
	vw_hud_free(&app->hud);
	if (app->renderer != NULL) {
		SDL_DestroyRenderer(app->renderer);
	}
	if (app->window != NULL) {
		SDL_DestroyWindow(app->window);
	}
	app->renderer = NULL;
	app->window = NULL;
	SDL_Quit();
}
