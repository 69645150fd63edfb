// SPDX-License-Identifier: MIT
// The application: display and renderer set-up, the frame loop (real time,
// lockstep capture, or benchmark), and drawing one frame.
#ifndef THRONG_VIEWER_APP_H
#define THRONG_VIEWER_APP_H

#include <SDL.h>
#include <stdbool.h>

#include "args.h"
#include "batch.h"
#include "camera.h"
#include "debug.h"
#include "draw.h"
#include "hud.h"
#include "input.h"
#include "layer.h"
#include "play.h"
#include "sim.h"
#include "video.h"

typedef struct vw_app {
	const vw_args* args;
	const char* scene;       ///< the scene's name (a replay's: its header's)
	char source_line[160];   ///< replay or attach: the HUD's first line
	bool lockstep;           ///< --screenshot / --record: one step per frame
	SDL_Window* window;
	SDL_Renderer* renderer;
	char renderer_name[32];
	vw_hud hud;
	vw_batch shapes;
	vw_agent_mesh mesh;
	vw_camera camera;
	vw_ui ui;
	vw_debug debug;
	vw_sim* sim;             ///< the world stepped here; NULL with --replay, --attach
	vw_play* play;           ///< --replay, --attach: where frames come from, else NULL
	double fps, frame_ms;    ///< measured over the last half second
	uint32_t fps_frames;
	double fps_t0;
	double fps_first;        ///< when the first frame was presented (s)
	bool fps_measured;       ///< a half-second measure exists
	uint32_t shots;          ///< screenshots taken with the p key
	double render_ms, present_ms; ///< the last frame's drawing and presenting
	double cpu_ms;           ///< the render thread's CPU time for the last frame
	vw_layer layer;          ///< the cached world (layer.h)
	char ffmpeg[1024];       ///< --video: the ffmpeg program found on PATH
	vw_video* video;         ///< --video while it is written, else NULL
	double video_fps;        ///< its frame rate
	// The last fit: while the view is still that, a HUD grown past the room
	// the fit left it (a legend line, a selection) refits.
	bool fit_valid, fit_below;
	vw_camera fit_camera;
	int fit_hud_w, fit_hud_h;
} vw_app;

/// Opens the display and the window, builds the scene and runs until the
/// window closes or the frame count is reached. Returns an exit status
/// (VW_EXIT_*), after printing any error to stderr.
int vw_app_run(const vw_args* args);

/// Opens SDL's video, the window and the renderer (app_video.c).
int vw_app_open_video(vw_app* app, char* err, size_t err_cap);

/// The p key, when it was pressed: the window's frame as
/// throng-view-NNN.png in the working directory, and a HUD message saying
/// where (or why not).
void vw_app_key_screenshot(vw_app* app, double now);

/// Closes what vw_app_open_video opened.
void vw_app_close_video(vw_app* app);

/// Fits the world into the part of the window the HUD leaves free.
void vw_app_fit(vw_app* app, const vw_frame* f);

/// Draws frame f into the renderer's back buffer (not presented).
void vw_app_render(vw_app* app, const vw_frame* f);

/// Frame-rate bookkeeping after a frame presented at `now` (s).
void vw_app_count_frame(vw_app* app, double now);

/// Starts a capture's outputs: makes --record's directory, starts --video's
/// encoder at `frame_s` simulated seconds a frame (real time) unless --fps
/// says its rate. Returns an exit status after printing any error.
int vw_app_capture_begin(vw_app* app, double frame_s);

/// Writes frame n, drawn but not presented, to the capture's outputs
/// (--record, --video; --screenshot when `last`). Returns an exit status
/// after printing any error.
int vw_app_capture_frame(vw_app* app, uint64_t n, bool last);

/// Ends the capture begun: with rc VW_EXIT_OK the video is finished and
/// renamed onto its path, else abandoned. Returns rc, or the video's
/// failure.
int vw_app_capture_end(vw_app* app, int rc);

/// The loop of --replay and --attach (app_play.c).
int vw_app_run_play(vw_app* app, vw_play* play);

/// Seconds on a monotonic clock.
double vw_now(void);

#endif
