// SPDX-License-Identifier: MIT
// The frame loop and drawing one frame.
//
// Three loops share vw_app_render. Real time: the host steps on its own
// thread and the loop draws whatever frame is newest, capped at --fps.
// Lockstep (--screenshot, --record): the loop steps the host itself, one
// step per frame, so a capture is the same on every run and every display.
// Benchmark (--benchmark-frames): real time plus measurements on stdout.
#define _POSIX_C_SOURCE 200809L

#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "hud.h"
#include "palette.h"

#define OVERLAP_EVERY 120u   ///< steps between overlap counts (2 s of simulated time)
#define BENCH_WARMUP 30u     ///< frames before the benchmark measures
#define VW_BEHIND_FPS 40u    ///< frame cap while the simulation is behind

static const SDL_Color TARGET_MARK = {120, 255, 140, 255};

double vw_now(void)
{
	return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

/// CPU time of the calling thread (ms): what a frame costs whatever the
/// machine's load.
static double thread_cpu_ms(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) {
		return 0.0;
	}
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/// What the HUD shows of frame f in a w x h window.
static void hud_input(const vw_app* app, const vw_frame* f, int w, int h, vw_hud_input* in)
{
	memset(in, 0, sizeof *in);
	in->frame = f;
	in->debug = &app->debug;
	in->scene = app->scene;
	in->source = app->source_line[0] != '\0' ? app->source_line : NULL;
	in->renderer = app->renderer_name;
	in->fps = app->fps;
	in->video_fps = app->video != NULL ? app->video_fps : 0.0;
	in->frame_ms = app->frame_ms;
	in->archetype = app->ui.archetype;
	in->slot = app->ui.slot;
	in->color_mode = app->ui.color_mode;
	in->army_roles = vw_army_roles(app->scene);
	in->grid = app->ui.grid;
	in->help = app->ui.help;
	in->follow = app->ui.follow;
	in->message = app->ui.message;
	// Doubled pixels only in a window large both ways: at 1280 x 720 the
	// doubled HUD (about 950 x 340) left the world under half the height.
	in->scale = w >= 1100 && h >= 900 ? 2 : 1;
	in->exact = app->lockstep;
	in->width = (float)w;
	in->height = (float)h;
}

void vw_app_fit(vw_app* app, const vw_frame* f)
{
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(app->renderer, &w, &h);
	float fw = (float)w, fh = (float)h;
	app->fit_valid = false;
	if (!app->ui.hud) {
		vw_camera_fit(&app->camera, f->def.bounds_min, f->def.bounds_max, fw, fh);
		return;
	}
	// The status panel sits top left: the world goes below it or right of
	// it, whichever shows it larger, so the HUD never covers the fitted world.
	vw_hud_input in;
	hud_input(app, f, w, h, &in);
	in.exact = true;
	vw_hud_update(&app->hud, app->renderer, &in, vw_now());
	float pw = (float)app->hud.shown_w[0] + 8.0f, ph = (float)app->hud.shown_h[0] + 8.0f;
	vw_camera below, right;
	vw_camera_fit_rect(&below, f->def.bounds_min, f->def.bounds_max, fw, fh, 0.0f, ph < fh - 64.0f ? ph : 0.0f, fw, fh);
	vw_camera_fit_rect(&right, f->def.bounds_min, f->def.bounds_max, fw, fh, pw < fw - 64.0f ? pw : 0.0f, 0.0f, fw, fh);
	app->fit_below = below.scale >= right.scale;
	app->camera = app->fit_below ? below : right;
	app->fit_valid = true;
	app->fit_camera = app->camera;
	app->fit_hud_w = app->hud.shown_w[0];
	app->fit_hud_h = app->hud.shown_h[0];
}

/// Whether the HUD outgrew the room the last fit left it, the view unmoved.
static bool hud_outgrew_fit(const vw_app* app)
{
	const vw_camera* a = &app->camera;
	const vw_camera* b = &app->fit_camera;
	if (!app->ui.hud || !app->fit_valid || a->center.x != b->center.x || a->center.y != b->center.y ||
	    a->scale != b->scale) {
		return false;
	}
	return app->fit_below ? app->hud.shown_h[0] > app->fit_hud_h : app->hud.shown_w[0] > app->fit_hud_w;
}

void vw_app_render(vw_app* app, const vw_frame* f)
{
	SDL_Renderer* r = app->renderer;
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(r, &w, &h);
	app->camera.width = (float)w;
	app->camera.height = (float)h;
	if (hud_outgrew_fit(app)) {
		vw_app_fit(app, f);
	}
	vw_draw_opts o;
	memset(&o, 0, sizeof o);
	o.grid = app->ui.grid;
	o.color_mode = (vw_color_mode)app->ui.color_mode;
	o.army_roles = vw_army_roles(app->scene);
	o.drag_obstacle = app->ui.drag_obstacle;
	o.drag_center = app->ui.drag_center;
	vw_layer_draw(&app->layer, r, &app->shapes, &app->mesh, &app->camera, f, &o, !app->lockstep, vw_now());

	vw_batch_begin(&app->shapes, (float)w, (float)h);
	vw_draw_threat(&app->shapes, &app->camera, f);
	if (f->mouse_mode == VW_MOUSE_TARGET && app->ui.mouse_enabled && app->ui.inside) {
		vw_draw_crosshair(&app->shapes, app->ui.mx, app->ui.my, TARGET_MARK);
	}
	vw_debug_compute(&app->debug, f);
	vw_debug_draw(&app->shapes, &app->debug, &app->camera, f);
	SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
	vw_batch_flush(&app->shapes, r);
	if (app->ui.hud) {
		vw_hud_input in;
		hud_input(app, f, w, h, &in);
		vw_hud_update(&app->hud, r, &in, vw_now());
		vw_hud_draw(&app->hud, r, (float)w);
	}
}

/// Frame-rate bookkeeping, every half second; until the first half second
/// is over, the mean since the first frame (a short capture's HUD shows the
/// rate it was drawn at, not 0).
void vw_app_count_frame(vw_app* app, double now)
{
	app->fps_frames++;
	double span = now - app->fps_t0;
	if (!app->fps_measured && app->fps_frames >= 2u && now > app->fps_first) {
		app->fps = (double)(app->fps_frames - 1u) / (now - app->fps_first);
		app->frame_ms = 1e3 / app->fps;
	}
	if (app->fps_frames == 1u && !app->fps_measured) {
		app->fps_first = now;
	}
	if (span >= 0.5) {
		app->fps_measured = true;
		app->fps = (double)app->fps_frames / span;
		app->frame_ms = 1e3 * span / (double)app->fps_frames;
		app->fps_frames = 0;
		app->fps_t0 = now;
	}
}

static void poll(vw_app* app, const vw_frame* f, double now)
{
	SDL_Event e;
	while (SDL_PollEvent(&e)) {
		vw_ui_event(&app->ui, &e, &app->camera, f, app->sim, now);
	}
}

void vw_app_key_screenshot(vw_app* app, double now)
{
	if (!app->ui.screenshot_request) {
		return;
	}
	app->ui.screenshot_request = false;
	char path[64], err[256], msg[128];
	snprintf(path, sizeof path, "throng-view-%03u.png", app->shots++);
	if (vw_capture_png(app->renderer, path, false, err, sizeof err)) {
		snprintf(msg, sizeof msg, "saved %s", path);
	} else {
		snprintf(msg, sizeof msg, "screenshot failed: %.100s", err);
	}
	vw_ui_message(&app->ui, now, msg);
}

/// One frame of the interactive loops; false when it is time to stop.
static bool frame(vw_app* app)
{
	double now = vw_now();
	double cpu0 = thread_cpu_ms();
	const vw_frame* f = vw_sim_acquire(app->sim);
	poll(app, f, now);
	vw_ui_frame(&app->ui, &app->camera, f, app->sim, now);
	if (app->ui.fit_request) {
		vw_app_fit(app, f);
		app->ui.fit_request = false;
	}
	double t0 = vw_now();
	vw_app_render(app, f);
	vw_app_key_screenshot(app, now);
	double t1 = vw_now();
	SDL_RenderPresent(app->renderer);
	double t2 = vw_now();
	app->render_ms = (t1 - t0) * 1e3;
	app->present_ms = (t2 - t1) * 1e3;
	app->cpu_ms = thread_cpu_ms() - cpu0;
	vw_app_count_frame(app, t2);
	return !app->ui.quit;
}

/// Sleeps what is left of a frame of 1/fps seconds that began at t0. While
/// the simulation cannot keep real time the cap drops to VW_BEHIND_FPS, so
/// drawing hands CPU back to it.
static void cap(vw_app* app, double t0)
{
	uint32_t fps = app->args->fps;
	if (fps == 0) {
		return;
	}
	if (vw_sim_acquire(app->sim)->behind && fps > VW_BEHIND_FPS) {
		fps = VW_BEHIND_FPS;
	}
	double left = 1.0 / (double)fps - (vw_now() - t0);
	if (left > 0.001) {
		SDL_Delay((Uint32)(left * 1e3));
	}
}

static int run_realtime(vw_app* app)
{
	char err[256];
	if (!vw_sim_start(app->sim, err, sizeof err)) {
		vw_error("%s", err);
		return VW_EXIT_FAILURE;
	}
	for (uint32_t n = 0; app->args->frames == 0 || n < app->args->frames; ++n) {
		double t0 = vw_now();
		if (!frame(app)) {
			break;
		}
		cap(app, t0);
	}
	return VW_EXIT_OK;
}

int vw_app_capture_begin(vw_app* app, double frame_s)
{
	const vw_args* a = app->args;
	char err[1024];
	double fps = a->fps_given ? (double)a->fps : frame_s > 0.0 ? 1.0 / frame_s : 30.0;
	if (a->video != NULL && !vw_video_rate_ok(a->video, fps, err, sizeof err)) {
		vw_error("%s", err);
		return VW_EXIT_USAGE;
	}
	if (a->record != NULL && !vw_capture_dir(a->record, err, sizeof err)) {
		vw_error("--record: %s", err);
		return VW_EXIT_OUTPUT;
	}
	if (a->video != NULL) {
		int w = 0, h = 0;
		SDL_GetRendererOutputSize(app->renderer, &w, &h);
		app->video = vw_video_open(app->ffmpeg, a->video, w, h, fps, err, sizeof err);
		app->video_fps = fps;
		if (app->video == NULL) {
			vw_error("%s", err);
			return VW_EXIT_OUTPUT;
		}
	}
	return VW_EXIT_OK;
}

int vw_app_capture_frame(vw_app* app, uint64_t n, bool last)
{
	const vw_args* a = app->args;
	char err[1024], path[1024];
	if (a->record != NULL) {
		snprintf(path, sizeof path, "%s/frame_%06llu.png", a->record, (unsigned long long)n);
		if (!vw_capture_png(app->renderer, path, true, err, sizeof err)) {
			vw_error("--record: %s", err);
			return VW_EXIT_OUTPUT;
		}
	}
	if (app->video != NULL && !vw_video_write(app->video, app->renderer, err, sizeof err)) {
		vw_error("%s", err);
		return VW_EXIT_OUTPUT;
	}
	if (a->screenshot != NULL && last && !vw_capture_png(app->renderer, a->screenshot, false, err, sizeof err)) {
		vw_error("--screenshot: %s", err);
		return VW_EXIT_OUTPUT;
	}
	return VW_EXIT_OK;
}

int vw_app_capture_end(vw_app* app, int rc)
{
	vw_video* v = app->video;
	app->video = NULL;
	if (v == NULL) {
		return rc;
	}
	if (rc != VW_EXIT_OK) {
		vw_video_abort(v);
		return rc;
	}
	char err[1024];
	if (!vw_video_finish(v, err, sizeof err)) {
		vw_error("%s", err);
		return VW_EXIT_OUTPUT;
	}
	return rc;
}

/// The frames of a capture (--screenshot, --record, --video).
static int lockstep_frames(vw_app* app)
{
	const vw_args* a = app->args;
	// A video in a window on screen goes at its own rate, so that what is
	// poked with the mouse is poked at the pace the video will show.
	bool paced = app->video != NULL && (SDL_GetWindowFlags(app->window) & SDL_WINDOW_HIDDEN) == 0;
	// --frames 0 (only --record and --video can leave it so, and only with
	// a window): until the window is closed.
	for (uint32_t n = 0; a->frames == 0 || n < a->frames; ++n) {
		double t0 = vw_now();
		vw_sim_tick(app->sim, n == 0 ? 0u : a->steps_per_frame);
		const vw_frame* f = vw_sim_acquire(app->sim);
		double now = vw_now();
		poll(app, f, now);
		vw_ui_frame(&app->ui, &app->camera, f, app->sim, now);
		if (f->error[0] != '\0') {
			vw_error("simulation failed at step %llu: %s", (unsigned long long)f->step, f->error);
			return VW_EXIT_FAILURE;
		}
		vw_app_render(app, f);
		int rc = vw_app_capture_frame(app, n, n + 1 == a->frames);
		if (rc != VW_EXIT_OK) {
			return rc;
		}
		SDL_RenderPresent(app->renderer);
		vw_app_count_frame(app, vw_now());
		if (app->ui.quit) {
			break;
		}
		double left = paced ? 1.0 / vw_video_rate(app->video) - (vw_now() - t0) : 0.0;
		if (left > 0.001) {
			SDL_Delay((Uint32)(left * 1e3));
		}
	}
	return VW_EXIT_OK;
}

static int run_lockstep(vw_app* app)
{
	const vw_frame* f = vw_sim_acquire(app->sim);
	int rc = vw_app_capture_begin(app, (double)f->def.dt * (double)app->args->steps_per_frame);
	if (rc == VW_EXIT_OK) {
		rc = lockstep_frames(app);
	}
	return vw_app_capture_end(app, rc);
}

static int compare_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static int run_benchmark(vw_app* app)
{
	const vw_args* a = app->args;
	const vw_frame* f = vw_sim_acquire(app->sim);
	uint32_t agents = f->count;
	double dt = (double)f->def.dt;
	double* ms = malloc((size_t)a->benchmark_frames * 4u * sizeof *ms);
	char err[256];
	if (ms == NULL || !vw_sim_start(app->sim, err, sizeof err)) {
		free(ms);
		vw_error("benchmark: %s", ms == NULL ? "out of memory" : err);
		return VW_EXIT_FAILURE;
	}
	for (uint32_t n = 0; n < BENCH_WARMUP; ++n) {
		double t0 = vw_now();
		frame(app);
		cap(app, t0);
	}
	uint64_t step0 = vw_sim_acquire(app->sim)->step;
	uint32_t redraws0 = app->layer.redraws;
	double start = vw_now();
	for (uint32_t n = 0; n < a->benchmark_frames; ++n) {
		double t0 = vw_now();
		frame(app);
		cap(app, t0);
		ms[n] = (vw_now() - t0) * 1e3;
		ms[a->benchmark_frames + n] = app->render_ms;
		ms[2u * a->benchmark_frames + n] = app->present_ms;
		ms[3u * a->benchmark_frames + n] = app->cpu_ms;
	}
	double span = vw_now() - start;
	f = vw_sim_acquire(app->sim);
	double steps_per_s = (double)(f->step - step0) / span;
	uint32_t nf = a->benchmark_frames;
	for (int k = 0; k < 4; ++k) {
		qsort(ms + (size_t)k * nf, nf, sizeof *ms, compare_double);
	}
	double median = ms[nf / 2], render = ms[nf + nf / 2], present = ms[2u * nf + nf / 2];
	double cpu = ms[3u * nf + nf / 2], cpu_max = ms[4u * nf - 1u];
	char threads[16] = "auto";
	if (f->def.threads != 0) {
		snprintf(threads, sizeof threads, "%u", f->def.threads);
	}
	printf("throng-view benchmark: %s, %u agents at the start, %s engine, threads %s, renderer %s, %u x %u, fps cap %u\n",
	       a->scenario, agents, throng_engine_name(f->def.engine), threads,
	       app->renderer_name, a->width, a->height, a->fps);
	printf("viewer:        %.1f fps (median frame %.2f ms, %u frames in %.2f s: %.1f fps mean)\n", 1e3 / median,
	       median, a->benchmark_frames, span, (double)a->benchmark_frames / span);
	printf("frame parts:   %.2f ms drawing, %.2f ms presenting (medians); world layer redrawn %u times\n",
	       render, present, app->layer.redraws - redraws0);
	printf("render CPU:    %.2f ms a frame (median), %.2f ms (largest): the render thread's own CPU time\n", cpu,
	       cpu_max);
	printf("sim in viewer: %.2f ms/step (median of the last steps), %.1f steps/s, x%.2f real time\n",
	       f->ms_per_step, steps_per_s, steps_per_s * dt);
	printf("agents:        %u at the end, %llu added, %llu removed, peak %u\n", f->count,
	       (unsigned long long)f->stats.agents_added, (unsigned long long)f->stats.agents_removed,
	       f->stats.agents_peak);
	free(ms);
	return VW_EXIT_OK;
}

/// --select: selects the agent and centres the view on it.
static int select_at_start(vw_app* app, const vw_frame* f)
{
	uint32_t id = app->args->select;
	for (uint32_t k = 0; k < f->count; ++k) {
		if (f->id[k] == id) {
			vw_cmd c;
			memset(&c, 0, sizeof c);
			c.kind = VW_CMD_SELECT;
			c.index = id;
			vw_sim_post(app->sim, &c);
			app->ui.selected = id;
			app->ui.archetype = f->archetype[k];
			app->ui.follow = true;
			app->camera.center = (throng_vec2){f->x[k], f->y[k]};
			return VW_EXIT_OK;
		}
	}
	// Ids have gaps once agents come and go, and a scene may start empty.
	vw_error("--select: no agent %u at the start (the scene starts with %u agents%s)", id, f->count,
	         f->count == 0 ? "; agents that come later cannot be selected in advance" : "");
	return VW_EXIT_USAGE;
}

int vw_app_run(const vw_args* args)
{
	vw_app* app = calloc(1, sizeof *app);
	if (app == NULL) {
		vw_error("out of memory");
		return VW_EXIT_FAILURE;
	}
	app->args = args;
	app->scene = args->scenario;
	app->lockstep = vw_args_capture(args);
	char err[512];
	// Before the window and the scene: without ffmpeg there is no video to make.
	int rc = args->video == NULL || vw_video_find_ffmpeg(app->ffmpeg, sizeof app->ffmpeg, err, sizeof err)
	             ? vw_app_open_video(app, err, sizeof err)
	             : VW_EXIT_FAILURE;
	if (rc == VW_EXIT_OK && (args->replay != NULL || args->attach != NULL)) {
		app->play = vw_play_open(args, err, sizeof err, &rc);
		if (app->play != NULL) {
			app->scene = vw_play_scene(app->play);
			vw_play_describe(app->play, app->source_line, sizeof app->source_line); // the HUD's size, for the fit
		}
	} else if (rc == VW_EXIT_OK) {
		vw_sim_config cfg;
		memset(&cfg, 0, sizeof cfg);
		cfg.scenario = args->scenario;
		cfg.options = throng_scene_default_def();
		cfg.options.agents = args->agents;
		cfg.options.seed = args->seed;
		cfg.options.engine = args->engine;
		cfg.options.threads = args->threads;
		cfg.paused = args->paused;
		cfg.mouse_mode = VW_MOUSE_MODE_COUNT; // the scene's default
		cfg.overlap_every = OVERLAP_EVERY;
		throng_status st = THRONG_OK;
		app->sim = vw_sim_create(&cfg, &st, err, sizeof err);
		if (app->sim == NULL) {
			// As in `throng run`: an unknown scene is a usage error, a
			// scenario file with problems or one that cannot be read an
			// input error.
			bool file = throng_scenario_find(args->scenario) == NULL && throng_scene_is_file(args->scenario);
			rc = !file && (st == THRONG_ERR_NOT_FOUND || st == THRONG_ERR_INVALID_ARGUMENT) ? VW_EXIT_USAGE
			     : file && (st == THRONG_ERR_INVALID_ARGUMENT || st == THRONG_ERR_IO || st == THRONG_ERR_CORRUPT)
			         ? VW_EXIT_INPUT
			         : VW_EXIT_FAILURE;
		}
	}
	if (rc != VW_EXIT_OK) {
		vw_error("%s", err);
	} else {
		vw_ui_init(&app->ui, args->hud, !app->lockstep);
		app->ui.color_mode = args->color_mode;
		const vw_frame* f = app->play != NULL ? vw_play_frame(app->play) : vw_sim_acquire(app->sim);
		vw_app_fit(app, f);
		app->camera.scale *= args->zoom;
		rc = args->select != UINT32_MAX && app->sim != NULL ? select_at_start(app, f) : VW_EXIT_OK;
		app->fps_t0 = vw_now();
		rc = rc != VW_EXIT_OK          ? rc
		     : app->play != NULL       ? vw_app_run_play(app, app->play)
		     : app->lockstep           ? run_lockstep(app)
		     : args->benchmark_frames ? run_benchmark(app)
		                               : run_realtime(app);
	}
	vw_sim_destroy(app->sim);
	vw_play_destroy(app->play);
	vw_layer_free(&app->layer);
	vw_batch_free(&app->shapes);
	vw_agent_mesh_free(&app->mesh);
	vw_app_close_video(app);
	free(app);
	return rc;
}
