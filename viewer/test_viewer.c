// SPDX-License-Identifier: MIT
// throng-view end to end: runs the built viewer (THRONG_VIEW_PATH) through
// /bin/sh, reads its PNG captures back with libpng and looks at pixels.
//
// The scenes are computed a second time here with the library, and every
// agent's position is projected with the fit-to-world camera written out
// below from its definition (camera.h), so the test knows which pixel each
// agent must colour: an agent is drawn without blending in its group's
// exact colour, VW_GROUP_COLORS[0] = (80, 200, 255) for group 0.
//
// Suites: `capture` and `errors` use SDL's dummy video driver (no display);
// `offscreen` its offscreen driver; `xvfb` the X11 driver and only runs
// under xvfb-run with THRONG_VIEW_XVFB=1 (a ctest test of its own).
//
// LeakSanitizer: SDL's X11 and offscreen drivers load Mesa (to choose a
// visual, or for EGL) and unload it when SDL quits; the memory Mesa's
// static data pointed to then looks leaked and has no module name that a
// suppression could match (kept loaded with LD_PRELOAD, the same runs
// report nothing). Those runs therefore check without leaks
// (detect_leaks=0); the dummy-driver runs, which cover the viewer's own
// code in lockstep and in real time, keep leak checking on.
#define _XOPEN_SOURCE 700 // mknod, S_IFCHR

#include <criterion/criterion.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_viewer_support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"

/// solo: agent 0 at the origin, the window's centre, in group 0's colour;
/// the obstacle at (5, -3) m filled (`png`, HUD hidden: the world fitted to
/// the whole window); in `hud_png` the HUD's text in the top-left panel and
/// the agent drawn whole beside or below it (the fit leaves the HUD room).
static void expect_solo(const char* png, const char* hud_png)
{
	image img = load_png(png);
	cr_assert_eq(img.w, W);
	cr_assert_eq(img.h, H);
	fit f = fit_bounds((throng_vec2){-12.0f, -8.0f}, (throng_vec2){12.0f, 8.0f});
	int x, y;
	project(&f, (throng_vec2){0.0f, 0.0f}, &x, &y);
	cr_assert_eq(x, W / 2);
	cr_assert_eq(y, H / 2);
	expect_color(&img, x, y, GROUP0, "agent 0");
	expect_color(&img, x + 4, y, GROUP0, "agent 0, towards its heading (+x)");
	expect_color(&img, x - 60, y, BACKGROUND, "left of agent 0");
	expect_color(&img, x, y + 60, BACKGROUND, "below agent 0");
	expect_color(&img, W - 3, H - 3, BACKGROUND, "outside the bounds");
	project(&f, (throng_vec2){5.0f, -3.0f}, &x, &y);
	expect_color(&img, x, y, OBSTACLE_FILL, "obstacle 1");
	free(img.rgb);
	img = load_png(hud_png);
	size_t agent = 0, text = 0;
	for (int yy = 0; yy < H; ++yy) {
		for (int xx = 0; xx < W; ++xx) {
			const unsigned char* p = px(&img, xx, yy);
			agent += is(p, GROUP0);
			text += yy < 60 && xx < 300 && p[0] > 200 && p[1] > 200 && p[2] > 200;
		}
	}
	// One agent of radius 0.4 m at 24.5 px/m: a triangle of ~20 x 25 px.
	cr_expect(agent > 150 && agent < 600, "solo: %zu pixels in the agent's colour", agent);
	cr_expect_gt(text, 300, "solo: the HUD's text is missing (%zu light pixels)", text);
	free(img.rgb);
}

TestSuite(capture, .init = make_dir, .fini = remove_dir);

Test(capture, solo_agent_at_known_pixel)
{
	view_ok(DUMMY, "solo --screenshot solo.png --frames 3 --width 640 --height 480 --no-hud");
	view_ok(DUMMY, "solo --screenshot hud.png --frames 3 --width 640 --height 480");
	expect_solo("solo.png", "hud.png");
}

Test(capture, herd_agents_where_the_library_puts_them)
{
	view_ok(DUMMY, "herd --screenshot herd.png --frames 10 --no-hud --width 640 --height 480");
	cr_expect_eq(expect_agents_drawn("herd", 0, 10, "herd.png"), 8);
}

Test(capture, circle_agents_where_the_library_puts_them)
{
	view_ok(DUMMY, "circle --agents 2000 --screenshot circle.png --frames 5 --no-hud --width 640 --height 480");
	cr_expect_eq(expect_agents_drawn("circle", 2000, 5, "circle.png"), 2000);
	// Inside the ring (557 m at 0.393 px/m, 219 px) there is nothing.
	image img = load_png("circle.png");
	for (int y = H / 2 - 150; y < H / 2 + 150; y += 3) {
		for (int x = W / 2 - 150; x < W / 2 + 150; x += 3) {
			if ((x - W / 2) * (x - W / 2) + (y - H / 2) * (y - H / 2) < 150 * 150 && !is(px(&img, x, y), BACKGROUND)) {
				cr_assert_fail("pixel (%d, %d) inside the ring is not background", x, y);
			}
		}
	}
	free(img.rgb);
}

Test(capture, record_writes_every_frame_and_matches_the_screenshot)
{
	view_ok(DUMMY, "herd --record rec --frames 3 --no-hud --width 640 --height 480");
	view_ok(DUMMY, "herd --screenshot last.png --frames 3 --no-hud --width 640 --height 480");
	image frames[3];
	for (int k = 0; k < 3; ++k) {
		char name[64];
		snprintf(name, sizeof name, "rec/frame_%06d.png", k);
		frames[k] = load_png(name);
	}
	image last = load_png("last.png");
	cr_expect(memcmp(frames[2].rgb, last.rgb, (size_t)W * H * 3) == 0, "frame 2 differs from the screenshot");
	cr_expect(memcmp(frames[0].rgb, frames[2].rgb, (size_t)W * H * 3) != 0, "the herd did not move");
	for (int k = 0; k < 3; ++k) {
		free(frames[k].rgb);
	}
	free(last.rgb);
	cr_expect_eq(expect_agents_drawn("herd", 0, 3, "rec/frame_000002.png"), 8);
}

Test(capture, real_time_loop_runs_and_quits)
{
	// No capture: the host steps on its own thread; --frames ends it.
	view_ok(DUMMY, "herd --frames 20 --width 320 --height 240");
	view_ok(DUMMY, "field --agents 500 --frames 10 --engine scalar --width 320 --height 240");
}

TestSuite(offscreen, .init = make_dir, .fini = remove_dir);

Test(offscreen, solo_agent_at_known_pixel)
{
	view_ok("-u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen " NO_LEAKS,
	        "solo --screenshot solo.png --frames 3 --width 640 --height 480 --no-hud");
	view_ok("-u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen " NO_LEAKS,
	        "solo --screenshot hud.png --frames 3 --width 640 --height 480");
	expect_solo("solo.png", "hud.png");
}

TestSuite(errors, .init = make_dir, .fini = remove_dir);

/// Exit `status` and `what` on stderr in a line that starts "throng-view: ".
static void expect_error(const char* env, const char* args, int status, const char* what)
{
	int rc = run_view(env, args);
	cr_expect_eq(rc, status, "throng-view %s: exit %d, stderr: %s", args, rc, err);
	const char* line = strstr(err, "throng-view: ");
	cr_expect_not_null(line, "throng-view %s: no message: %s", args, err);
	cr_expect_not_null(strstr(err, what), "throng-view %s: stderr lacks \"%s\": %s", args, what, err);
}

Test(errors, bad_arguments)
{
	expect_error(DUMMY, "--bogus", 2, "unknown option \"--bogus\"");
	expect_error(DUMMY, "herd --agents 0", 2, "--agents: expected an integer from 1");
	expect_error(DUMMY, "herd --agents 12x", 2, "--agents: expected an integer");
	expect_error(DUMMY, "herd --engine gpu", 2, "--engine: expected scalar or simd");
	expect_error(DUMMY, "herd --width", 2, "--width: missing value");
	expect_error(DUMMY, "herd --width 10", 2, "--width: expected an integer from 64");
	expect_error(DUMMY, "herd circle", 2, "one scenario only");
	expect_error(DUMMY, "herd --benchmark-frames 5 --screenshot x.png", 2, "cannot be combined");
	expect_error(DUMMY, "solo --agents 65 --screenshot x.png", 2, "agents must be from 1 to 64");
	// Issue 30: one value per option, values that are not options, PNG only.
	expect_error(DUMMY, "herd --agents 5 --agents 6", 2, "--agents: given twice (the second time as \"6\")");
	expect_error(DUMMY, "herd --screenshot --no-hud", 2,
	             "--screenshot: missing value: \"--no-hud\" is an option (for a file of that name, write ./--no-hud)");
	expect_error(DUMMY, "herd --screenshot shot.jpg", 2,
	             "--screenshot: \"shot.jpg\" has the extension .jpg; throng-view writes PNG only");
	char shot[128];
	snprintf(shot, sizeof shot, "%s/shot.jpg", dir);
	struct stat st;
	cr_expect_neq(stat(shot, &st), 0, "a refused screenshot was written");
}

Test(errors, unknown_scenario_and_bad_files)
{
	expect_error(DUMMY, "stampede", 2, "unknown scenario \"stampede\"; known scenarios: herd, circle, field");
	cr_expect_not_null(strstr(err, ", solo (or a scenario file"), "the viewer's own scene is not listed: %s", err);
	expect_error(DUMMY, "missing.yaml --screenshot x.png", 3, "missing.yaml");
	expect_error(DUMMY, THRONG_SOURCE_DIR "/examples/herd.yaml --agents 5 --screenshot x.png", 2,
	             "--agents: " THRONG_SOURCE_DIR "/examples/herd.yaml is a scenario file, which sets the count");
	// A file with a problem: FILE:LINE:COL: on its own line, then a summary.
	char path[128];
	snprintf(path, sizeof path, "%s/bad.yaml", dir);
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("version: 1\nworld: [\n", f);
	fclose(f);
	expect_error(DUMMY, "./bad.yaml --screenshot x.png", 3, "./bad.yaml: 1 problem (above)");
	cr_expect_not_null(strstr(err, "./bad.yaml:"), "no FILE:LINE:COL line: %s", err);
}

Test(capture, scenario_file_agents_where_the_library_puts_them)
{
	view_ok(DUMMY, THRONG_SOURCE_DIR "/examples/herd.yaml --screenshot file.png --frames 10 --no-hud "
	        "--width 640 --height 480");
	cr_expect_eq(expect_agents_drawn(THRONG_SOURCE_DIR "/examples/herd.yaml", 0, 10, "file.png"), 8);
	view_ok(DUMMY, THRONG_SOURCE_DIR "/examples/armies.yaml --screenshot armies.png --frames 3 --no-hud "
	        "--width 640 --height 480");
	cr_expect_gt(expect_agents_drawn(THRONG_SOURCE_DIR "/examples/armies.yaml", 0, 3, "armies.png"), 1000);
}

Test(errors, missing_display)
{
	expect_error("-u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 " NO_LEAKS, "herd", 1, "cannot open a display");
	// No driver asked for and no display: SDL would fall back to offscreen.
	expect_error("-u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER " NO_LEAKS, "herd", 1,
	             "cannot open a display: none found");
	// The dummy driver shows nothing: interactive use needs a frame count.
	expect_error(DUMMY, "herd", 2, "shows nothing on screen");
}

Test(errors, help)
{
	cr_assert_eq(run_view(DUMMY, "--help"), 0);
	cr_expect_not_null(strstr(out, "Usage: throng-view"), "%s", out);
	cr_expect_not_null(strstr(out, "--screenshot FILE.png"), "%s", out);
}

Test(errors, unwritable_screenshot)
{
	expect_error(DUMMY, "solo --screenshot /nonexistent-dir/x.png", 4,
	             "--screenshot: /nonexistent-dir/x.png: cannot open for writing");
}

/// Whether `path` is a character device with /dev/full's numbers (1, 7).
static bool is_dev_full(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7);
}

static bool is_link(const char* path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

Test(errors, failed_captures_never_remove_the_path)
{
	// A device node where the screenshot goes: written in place, kept.
	char path[256];
	snprintf(path, sizeof path, "%s/full", dir);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 7)) != 0) {
		// No CAP_MKNOD here (CI runs as root, where it works): the
		// device through a link, which is also checked below.
		cr_assert_eq(errno, EPERM, "mknod: %s", strerror(errno));
		cr_log_warn("mknod is not permitted here; testing a symlink to /dev/full instead");
		cr_assert_eq(symlink("/dev/full", path), 0);
	}
	expect_error(DUMMY, "solo --screenshot full", 4, "--screenshot: cannot write full: Write Error (No space left");
	cr_assert(is_dev_full(path), "the screenshot removed %s", path);

	// A link to the device: the link and the device stay.
	snprintf(path, sizeof path, "%s/link.png", dir);
	cr_assert_eq(symlink("/dev/full", path), 0);
	expect_error(DUMMY, "solo --screenshot link.png", 4, "cannot write link.png");
	cr_assert(is_link(path) && is_dev_full(path), "the screenshot replaced the link %s", path);

	// --record: the second frame's name is a link to the device.
	char rec[128];
	snprintf(rec, sizeof rec, "%s/rec", dir);
	cr_assert_eq(mkdir(rec, 0777), 0);
	snprintf(path, sizeof path, "%s/frame_000001.png", rec);
	cr_assert_eq(symlink("/dev/full", path), 0);
	expect_error(DUMMY, "solo --record rec --frames 3", 4, "--record: cannot write rec/frame_000001.png");
	cr_assert(is_link(path) && is_dev_full(path), "--record replaced the link %s", path);
	snprintf(path, sizeof path, "%s/frame_000000.png", rec);
	struct stat st;
	cr_assert(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0, "frame 0 was not written");
	// No temporary is left beside a failed capture.
	char cmd[256];
	snprintf(cmd, sizeof cmd, "ls -a '%s' '%s' | grep -c part >/dev/null", dir, rec);
	cr_assert_neq(system(cmd), 0, "a .part temporary was left behind");
}

Test(errors, screenshot_into_a_closed_pipe)
{
	// The PNG (about 130 KB) outgrows the pipe's buffer, and head closes
	// its end after 100 bytes: the viewer must report EPIPE, not die of
	// SIGPIPE (exit 141).
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && { env " DUMMY " '%s' field --agents 20000 --width 1600 --height 1200 --screenshot "
	         "/dev/stdout 2>err.txt; echo $? > status.txt; } | head -c 100 > /dev/null",
	         dir, THRONG_VIEW_PATH);
	cr_assert_eq(system(cmd), 0);
	char path[128], status[32];
	snprintf(path, sizeof path, "%s/status.txt", dir);
	slurp(path, status, sizeof status);
	snprintf(path, sizeof path, "%s/err.txt", dir);
	slurp(path, err, sizeof err);
	cr_assert_str_eq(status, "4\n", "exit %s: %s", status, err);
	cr_assert_not_null(strstr(err, "--screenshot: cannot write /dev/stdout: Write Error (Broken pipe)"), "%s", err);
}

Test(errors, renderer_and_record_need_sense)
{
	expect_error(DUMMY, "solo --renderer nosuch --screenshot x.png", 2,
	             "--renderer: unknown render driver \"nosuch\" (render drivers here: ");
	cr_expect_not_null(strstr(err, "software"), "the list lacks software: %s", err);
	// Without a window nothing could stop --record: refused, nothing written.
	expect_error(DUMMY, "solo --record rec", 2, "--record without --frames would record forever");
	char path[128];
	snprintf(path, sizeof path, "%s/rec", dir);
	struct stat st;
	cr_expect_neq(stat(path, &st), 0, "--record created %s", path);
}

Test(errors, standard_output_write_errors_fail)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "'%s' --help > /dev/full 2>'%s/err.txt'", THRONG_VIEW_PATH, dir);
	int status = system(cmd);
	char path[128];
	snprintf(path, sizeof path, "%s/err.txt", dir);
	slurp(path, err, sizeof err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, err);
	cr_assert_not_null(strstr(err, "throng-view: cannot write to standard output: No space left on device"), "%s",
	                   err);
}

/// Under xvfb-run: THRONG_VIEW_XVFB=1 and a DISPLAY.
static void xvfb_init(void)
{
	if (getenv("THRONG_VIEW_XVFB") == NULL || getenv("DISPLAY") == NULL) {
		cr_skip_test("runs under xvfb-run (the viewer_xvfb test)");
	}
	make_dir();
}

TestSuite(xvfb, .init = xvfb_init, .fini = remove_dir);

#define X11 "-u SDL_VIDEODRIVER " NO_LEAKS

Test(xvfb, solo_agent_at_known_pixel)
{
	view_ok(X11, "solo --screenshot solo.png --frames 3 --width 640 --height 480 --no-hud");
	view_ok(X11, "solo --screenshot hud.png --frames 3 --width 640 --height 480");
	expect_solo("solo.png", "hud.png");
}

Test(xvfb, herd_and_circle_agents_where_the_library_puts_them)
{
	view_ok(X11, "herd --screenshot herd.png --frames 10 --no-hud --width 640 --height 480");
	cr_expect_eq(expect_agents_drawn("herd", 0, 10, "herd.png"), 8);
	view_ok(X11, "circle --agents 2000 --screenshot circle.png --frames 5 --no-hud --width 640 --height 480");
	cr_expect_eq(expect_agents_drawn("circle", 2000, 5, "circle.png"), 2000);
}

Test(xvfb, agents_come_and_go)
{
	// Issue 33: the concourse fills from empty while walkers leave; the
	// evacuation's room is empty by step 1590.
	view_ok(X11, "concourse --agents 300 --steps-per-frame 10 --frames 201 --screenshot hall.png --no-hud "
	        "--width 640 --height 480");
	cr_expect_gt(expect_agents_drawn_every("concourse", 300, 201, 10, "hall.png"), 200);
	view_ok(X11, "evacuation --agents 100 --select 3 --steps-per-frame 10 --frames 160 --screenshot room.png "
	        "--width 640 --height 480");
	view_ok(X11, "evacuation --agents 100 --steps-per-frame 10 --frames 160 --screenshot room.png --no-hud "
	        "--width 640 --height 480");
	cr_expect_eq(expect_agents_drawn_every("evacuation", 100, 160, 10, "room.png"), 0);
}

Test(xvfb, real_time_window)
{
	view_ok(X11, "herd --frames 30 --width 640 --height 480");
	view_ok(X11, "field --agents 2000 --benchmark-frames 20 --width 640 --height 480");
	cr_expect_not_null(strstr(out, " fps (median frame"), "%s", out);
	cr_expect_not_null(strstr(out, "ms/step"), "%s", out);
}

// throng_world_get_obstacle / throng_world_get_wall, added to the library
// for the viewer (it draws shapes it did not create).
Test(world_shapes, getters_copy_out_validate_and_leave_outputs_alone)
{
	throng_world_def def = throng_world_default_def();
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	uint32_t id = 99;
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){1.5f, -2.0f}, 0.75f, &id), THRONG_OK);
	cr_assert_eq(id, 0);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-3.0f, 4.0f}, (throng_vec2){5.0f, 4.5f}, &id), THRONG_OK);
	cr_assert_eq(id, 0);
	cr_assert_eq(throng_world_set_obstacle(w, 0, (throng_vec2){2.0f, 3.0f}, 1.25f), THRONG_OK);

	throng_vec2 c = {7.0f, 7.0f}, a = {7.0f, 7.0f}, b = {7.0f, 7.0f};
	float r = 7.0f;
	cr_expect_eq(throng_world_get_obstacle(w, 0, &c, &r), THRONG_OK);
	cr_expect(c.x == 2.0f && c.y == 3.0f && r == 1.25f, "obstacle 0: (%g, %g) r %g", (double)c.x, (double)c.y,
	          (double)r);
	cr_expect_eq(throng_world_get_wall(w, 0, &a, &b), THRONG_OK);
	cr_expect(a.x == -3.0f && a.y == 4.0f && b.x == 5.0f && b.y == 4.5f, "wall 0");

	c = (throng_vec2){7.0f, 7.0f};
	r = 7.0f;
	cr_expect_eq(throng_world_get_obstacle(w, 1, &c, &r), THRONG_ERR_NOT_FOUND);
	cr_expect_not_null(strstr(throng_last_error(), "no obstacle 1"), "%s", throng_last_error());
	cr_expect(c.x == 7.0f && c.y == 7.0f && r == 7.0f, "outputs written on failure");
	cr_expect_eq(throng_world_get_obstacle(w, 0, NULL, &r), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_not_null(strstr(throng_last_error(), "center is NULL"), "%s", throng_last_error());
	cr_expect_eq(throng_world_get_obstacle(w, 0, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect(c.x == 7.0f && c.y == 7.0f, "center written although radius is NULL");
	cr_expect_eq(throng_world_get_obstacle(NULL, 0, &c, &r), THRONG_ERR_INVALID_ARGUMENT);

	a = b = (throng_vec2){7.0f, 7.0f};
	cr_expect_eq(throng_world_get_wall(w, 1, &a, &b), THRONG_ERR_NOT_FOUND);
	cr_expect_not_null(strstr(throng_last_error(), "no wall 1"), "%s", throng_last_error());
	cr_expect_eq(throng_world_get_wall(w, 0, &a, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(throng_world_get_wall(w, 0, NULL, &b), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect(a.x == 7.0f && b.x == 7.0f, "wall outputs written on failure");
	cr_expect_eq(throng_world_get_wall(NULL, 0, &a, &b), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(w);
}
