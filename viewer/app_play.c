// SPDX-License-Identifier: MIT
// The frame loop of --replay and --attach (play.h): the same drawing as a
// live world (vw_app_render), frames from the player instead of the host.
//
// Keys of their own: space plays or pauses (freezes a feed), left/right
// (or b/n) step one frame, with shift a tenth of the file, home/end jump
// to the ends, [ and ] halve and double the speed, r starts over; a click
// or drag on the timeline at the window's bottom scrubs. The view's keys
// (c, g, h, f, p, q, F1, the mouse's pan and zoom) work as in a live run.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "capture.h"
#include "play.h"

#define VW_TIMELINE_PX 10     ///< height of the replay's timeline (px)
#define VW_ATTACH_WAIT_S 60.0 ///< a capture waits this long for a feed's frame

static const SDL_Color TIMELINE_BACK = {40, 44, 56, 255};
static const SDL_Color TIMELINE_DONE = {150, 160, 190, 255};

/// The timeline's frame under window x (px).
static int64_t timeline_frame(const vw_play* p, int x, int w)
{
	uint64_t n = vw_play_frames(p);
	if (n <= 1u || w <= 1) {
		return 0;
	}
	double t = (double)x / (double)(w - 1);
	return (int64_t)(t * (double)(n - 1u) + 0.5);
}

/// Handles a playback key; false when the key is the view's.
static bool play_key(vw_play* p, SDL_Keycode k, Uint16 mod)
{
	int64_t at = (int64_t)vw_play_index(p);
	int64_t tenth = (int64_t)(vw_play_frames(p) / 10u);
	int64_t jump = (mod & KMOD_SHIFT) != 0 ? (tenth > 1 ? tenth : 1) : 1;
	switch (k) {
	case SDLK_SPACE: vw_play_toggle_pause(p); return true;
	case SDLK_RIGHT:
	case SDLK_n:
		vw_play_set_paused(p, true);
		vw_play_seek(p, at + jump);
		return true;
	case SDLK_LEFT:
	case SDLK_b:
		vw_play_set_paused(p, true);
		vw_play_seek(p, at - jump);
		return true;
	case SDLK_HOME:
	case SDLK_r: vw_play_seek(p, 0); return true;
	case SDLK_END: vw_play_seek(p, (int64_t)vw_play_frames(p)); return true;
	case SDLK_LEFTBRACKET: vw_play_speed(p, 0.5); return true;
	case SDLK_RIGHTBRACKET: vw_play_speed(p, 2.0); return true;
	default: return false;
	}
}

/// Polls SDL: playback keys and timeline scrubs here, the rest to the UI.
static void poll_play(vw_app* app, vw_play* p, const vw_frame* f, double now, bool* scrubbing)
{
	SDL_Event e;
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(app->renderer, &w, &h);
	while (SDL_PollEvent(&e)) {
		bool live = vw_play_live(p);
		if (e.type == SDL_KEYDOWN && (live ? e.key.keysym.sym == SDLK_SPACE : true) &&
		    play_key(p, e.key.keysym.sym, e.key.keysym.mod)) {
			continue;
		}
		if (!live && e.type == SDL_MOUSEBUTTONDOWN && e.button.button == SDL_BUTTON_LEFT &&
		    e.button.y >= h - 2 * VW_TIMELINE_PX) {
			*scrubbing = true;
		}
		if (*scrubbing && (e.type == SDL_MOUSEBUTTONDOWN || e.type == SDL_MOUSEMOTION)) {
			int x = e.type == SDL_MOUSEMOTION ? e.motion.x : e.button.x;
			vw_play_set_paused(p, true);
			vw_play_seek(p, timeline_frame(p, x, w));
			continue;
		}
		if (*scrubbing && e.type == SDL_MOUSEBUTTONUP) {
			*scrubbing = false;
			continue;
		}
		vw_ui_event(&app->ui, &e, &app->camera, f, NULL, now);
	}
}

/// The replay's timeline along the window's bottom.
static void draw_timeline(vw_app* app, const vw_play* p)
{
	if (vw_play_live(p) || !app->ui.hud) {
		return;
	}
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(app->renderer, &w, &h);
	uint64_t n = vw_play_frames(p);
	double t = n > 1u ? (double)vw_play_index(p) / (double)(n - 1u) : 1.0;
	SDL_Rect back = {0, h - VW_TIMELINE_PX, w, VW_TIMELINE_PX};
	SDL_Rect done = {0, h - VW_TIMELINE_PX, (int)(t * (double)w + 0.5), VW_TIMELINE_PX};
	SDL_SetRenderDrawBlendMode(app->renderer, SDL_BLENDMODE_NONE);
	SDL_SetRenderDrawColor(app->renderer, TIMELINE_BACK.r, TIMELINE_BACK.g, TIMELINE_BACK.b, 255);
	SDL_RenderFillRect(app->renderer, &back);
	SDL_SetRenderDrawColor(app->renderer, TIMELINE_DONE.r, TIMELINE_DONE.g, TIMELINE_DONE.b, 255);
	SDL_RenderFillRect(app->renderer, &done);
}

static void render_play(vw_app* app, vw_play* p, const vw_frame* f)
{
	vw_play_describe(p, app->source_line, sizeof app->source_line);
	vw_app_render(app, f);
	draw_timeline(app, p);
}

/// Whether a quit came (the window closed, or SIGINT or SIGTERM, which SDL
/// turns into one); a capture takes no other input.
static bool quit_requested(void)
{
	SDL_Event e;
	bool quit = false;
	while (SDL_PollEvent(&e)) {
		quit = quit || e.type == SDL_QUIT;
	}
	return quit;
}

/// --screenshot, --record or --video: frames at fixed steps, the same on
/// every run; a quit ends them early, a video whole.
static int capture(vw_app* app, vw_play* p)
{
	const vw_args* a = app->args;
	char err[512];
	if (vw_play_live(p)) {
		// The first frame at or past --steps (any frame without it).
		vw_play_set_paused(p, false); // --paused freezes a window, not a capture
		double start = vw_now();
		for (;;) {
			if (!vw_play_update(p, 0.0, err, sizeof err)) {
				vw_error("%s", err);
				return VW_EXIT_INPUT;
			}
			const vw_frame* f = vw_play_frame(p);
			if (vw_play_frames(p) > 0 && (!a->steps_given || f->step >= a->steps)) {
				break;
			}
			if (strcmp(vw_play_writer(p), "alive") != 0 || vw_now() - start > VW_ATTACH_WAIT_S) {
				vw_error("--attach: the feed's writer is %s and no frame %s came", vw_play_writer(p),
				         a->steps_given ? "at or past --steps" : "");
				return VW_EXIT_INPUT;
			}
			SDL_Delay(5);
		}
	} else {
		vw_play_seek(p, (int64_t)vw_play_find_step(p, a->steps_given ? a->steps : 0u));
	}
	uint64_t first = vw_play_index(p);
	uint64_t total = vw_play_live(p) ? 1u : vw_play_frames(p) - first;
	if (a->frames != 0 && a->frames < total) {
		total = a->frames;
	}
	if (a->screenshot != NULL && a->record == NULL && a->video == NULL) {
		total = 1; // the screenshot is the frame at --steps
	}
	int rc = vw_app_capture_begin(app, vw_play_frame_seconds(p));
	for (uint64_t n = 0; n < total && rc == VW_EXIT_OK; ++n) {
		vw_play_seek(p, (int64_t)(first + n));
		const vw_frame* f = vw_play_frame(p);
		render_play(app, p, f);
		rc = vw_app_capture_frame(app, n, n + 1u == total);
		SDL_RenderPresent(app->renderer);
		if (quit_requested()) {
			break;
		}
	}
	return vw_app_capture_end(app, rc);
}

int vw_app_run_play(vw_app* app, vw_play* p)
{
	const vw_args* a = app->args;
	if (app->lockstep) {
		return capture(app, p);
	}
	char err[512];
	if (a->steps_given) {
		vw_play_seek(p, (int64_t)vw_play_find_step(p, a->steps));
	}
	bool scrubbing = false;
	double last = vw_now();
	for (uint32_t n = 0; a->frames == 0 || n < a->frames; ++n) {
		double now = vw_now();
		if (!vw_play_update(p, now - last, err, sizeof err)) {
			vw_error("%s", err);
			return VW_EXIT_INPUT;
		}
		last = now;
		const vw_frame* f = vw_play_frame(p);
		poll_play(app, p, f, now, &scrubbing);
		f = vw_play_frame(p);
		vw_ui_frame(&app->ui, &app->camera, f, NULL, now);
		if (app->ui.fit_request) {
			vw_app_fit(app, f);
			app->ui.fit_request = false;
		}
		render_play(app, p, f);
		vw_app_key_screenshot(app, now);
		SDL_RenderPresent(app->renderer);
		vw_app_count_frame(app, vw_now());
		if (app->ui.quit) {
			break;
		}
		uint32_t fps = a->fps;
		double left = fps == 0 ? 0.0 : 1.0 / (double)fps - (vw_now() - now);
		SDL_Delay(left > 0.001 ? (Uint32)(left * 1e3) : 1u);
	}
	return VW_EXIT_OK;
}
