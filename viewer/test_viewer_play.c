// SPDX-License-Identifier: MIT
// throng-view --replay and --attach (issue 36, item 2), and the colour
// modes: a stream that `throng run --out` wrote, played back, draws the
// same picture as the live run at the same step (pixel for pixel, HUD
// hidden: the HUD's text differs by design); a churned run draws exactly
// its live agents at a frame where many have left; a live feed of a real
// `throng run --shm` (a name of the test's own, removed at the end) is
// drawn; bad arguments are refused naming the option.
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_viewer_support.h"
#include "throng/export.h"

/// palette.h: VW_SIDE_COLORS / VW_ARMY_COLORS's first army colours.
static const unsigned char ARMY0[3] = {0, 114, 178};
static const unsigned char ARMY1[3] = {213, 94, 0};

/// The number of agents of the frame at `step` in stream `name`, read with
/// the library's reader.
static uint32_t stream_count_at(const char* name, uint64_t step)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(path, &r), THRONG_OK, "%s", throng_last_error());
	uint32_t count = UINT32_MAX;
	for (;;) {
		throng_frame f;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_OK, "%s", throng_last_error());
		if (!got) {
			break;
		}
		if (f.step == step) {
			count = f.count;
		}
	}
	throng_stream_reader_destroy(r);
	cr_assert_neq(count, UINT32_MAX, "%s has no frame at step %llu", name, (unsigned long long)step);
	return count;
}

TestSuite(replay, .init = make_dir, .fini = remove_dir);

Test(replay, same_frame_as_the_live_run)
{
	// Every field in the stream, then the default ones (x, y, hx, hy: groups
	// and archetypes come from the rebuilt scene).
	throng_ok("run herd --agents 300 --steps 40 --out all.bin --fields all");
	throng_ok("run herd --agents 300 --steps 40 --out xy.bin");
	view_ok(DUMMY, "herd --agents 300 --steps 40 --screenshot live.png --no-hud --width 640 --height 480");
	view_ok(DUMMY, "--replay all.bin --steps 40 --screenshot all.png --no-hud --width 640 --height 480");
	view_ok(DUMMY, "--replay xy.bin --steps 40 --screenshot xy.png --no-hud --width 640 --height 480");
	expect_same("live.png", "all.png");
	expect_same("live.png", "xy.png");
	// And where the library puts the agents at step 40.
	cr_expect_eq(expect_agents_drawn("herd", 300, 41, "all.png"), 300u);
}

Test(replay, walls_obstacles_and_churn)
{
	// The evacuation empties through two exits: at step 900 many have left.
	throng_ok("run evacuation --agents 200 --steps 1200 --out evac.bin --fields all");
	uint32_t n = stream_count_at("evac.bin", 900);
	cr_assert_lt(n, 200u, "nobody left by step 900");
	cr_assert_gt(n, 0u);
	view_ok(DUMMY, "evacuation --agents 200 --steps 900 --screenshot live.png --no-hud --width 640 --height 480");
	view_ok(DUMMY, "--replay evac.bin --steps 900 --screenshot rep.png --no-hud --width 640 --height 480");
	expect_same("live.png", "rep.png");
	// Exactly the agents alive at step 900 are drawn where they are.
	cr_expect_eq(expect_agents_drawn("evacuation", 200, 901, "rep.png"), n);
	// Stepping back to an earlier frame draws more of them again.
	view_ok(DUMMY, "--replay evac.bin --steps 100 --screenshot early.png --no-hud --width 640 --height 480");
	cr_expect_eq(expect_agents_drawn("evacuation", 200, 101, "early.png"), stream_count_at("evac.bin", 100));
}

Test(replay, a_scenario_file_with_scene)
{
	// A file's walls are not in the stream: --scene names the file to draw in.
	char args[1024];
	snprintf(args, sizeof args, "run '%s/examples/bottleneck.yaml' --steps 30 --out b.bin", THRONG_SOURCE_DIR);
	throng_ok(args);
	snprintf(args, sizeof args,
	         "'%s/examples/bottleneck.yaml' --steps 30 --screenshot live.png --no-hud --width 640 --height 480",
	         THRONG_SOURCE_DIR);
	view_ok(DUMMY, args);
	snprintf(args, sizeof args,
	         "--replay b.bin --scene '%s/examples/bottleneck.yaml' --steps 30 --screenshot rep.png --no-hud "
	         "--width 640 --height 480",
	         THRONG_SOURCE_DIR);
	view_ok(DUMMY, args);
	expect_same("live.png", "rep.png");
	// A scene that is not the run's (other bounds) is not used: the agents
	// are still drawn, in the recorded bounds.
	view_ok(DUMMY, "--replay b.bin --scene herd --screenshot other.png --width 640 --height 480");
}

Test(replay, every_frame_and_a_hud)
{
	throng_ok("run herd --agents 50 --steps 20 --every 5 --out h.bin");
	view_ok(DUMMY, "--replay h.bin --record frames --width 640 --height 480");
	for (int k = 0; k <= 4; ++k) {
		char path[128];
		snprintf(path, sizeof path, "%s/frames/frame_%06d.png", dir, k);
		cr_expect_eq(access(path, F_OK), 0, "%s missing", path);
	}
	char path[128];
	snprintf(path, sizeof path, "%s/frames/frame_000005.png", dir);
	cr_expect_neq(access(path, F_OK), 0, "5 frames in the file, a sixth drawn");
	// The real-time loop plays it and stops after --frames.
	view_ok(DUMMY, "--replay h.bin --frames 30 --fps 0 --width 320 --height 240");
	view_ok(DUMMY, "--replay h.bin --paused --steps 10 --frames 5 --color archetype --width 320 --height 240");
	// With the HUD: the world is fitted beside or below it, so every agent
	// is still drawn in its colour (none hidden under the panel).
	view_ok(DUMMY, "--replay h.bin --steps 20 --screenshot hud.png --width 640 --height 480");
	image img = load_png("hud.png");
	cr_expect_gt(count_color(&img, GROUPS[0]), 50u);
	free(img.rgb);
}

Test(replay, army_colours)
{
	throng_ok("run armies --agents 600 --steps 10 --out a.bin");
	view_ok(DUMMY, "--replay a.bin --steps 10 --color army --screenshot army.png --no-hud --width 640 --height 480");
	view_ok(DUMMY, "--replay a.bin --steps 10 --screenshot group.png --no-hud --width 640 --height 480");
	view_ok(DUMMY, "armies --agents 600 --steps 10 --color army --screenshot live.png --no-hud --width 640 --height 480");
	expect_same("live.png", "army.png");
	image a = load_png("army.png"), g = load_png("group.png");
	// Both armies (`armies`' labels 0 and 1, one unit a group) in their
	// own colour-blind-safe colour.
	cr_expect_gt(count_color(&a, ARMY0), 200u);
	cr_expect_gt(count_color(&a, ARMY1), 200u);
	cr_expect_eq(count_color(&g, ARMY0), 0u);
	cr_expect_eq(count_color(&g, ARMY1), 0u);
	free(a.rgb);
	free(g.rgb);
}

/// A duel (docs/ARMIES.md): red strikes blue once, for 60 of its 100.
static const char duel_file[] = "version: 2\n"
                                "world:\n"
                                "  bounds: {min: [-5, -5], max: [5, 5], mode: contain}\n"
                                "archetypes:\n"
                                "  red:\n"
                                "    target_rule: {group: blue, sight_radius: 8}\n"
                                "    combat: {attack: melee, reach: 5, damage: 60, cooldown: 100}\n"
                                "    slots: []\n"
                                "  blue:\n"
                                "    combat: {}\n"
                                "    slots: []\n"
                                "groups:\n"
                                "  red: {count: 1, archetype: red, spawn: {shape: rectangle, center: [-2, 0], size: [1, 1]}}\n"
                                "  blue: {count: 1, archetype: blue, spawn: {shape: rectangle, center: [2, 0], size: [1, 1]}}\n";

Test(replay, the_wounded_are_dimmed_live_and_in_a_stream_with_health)
{
	write_text("duel.yaml", duel_file);
	throng_ok("run duel.yaml --steps 5 --fields all --out health.thr");
	throng_ok("run duel.yaml --steps 5 --out plain.thr");
	const char* size = "--steps 5 --no-hud --width 640 --height 480";
	char args[512];
	snprintf(args, sizeof args, "duel.yaml %s --screenshot live.png", size);
	view_ok(DUMMY, args);
	snprintf(args, sizeof args, "--replay health.thr --scene duel.yaml %s --screenshot health.png", size);
	view_ok(DUMMY, args);
	snprintf(args, sizeof args, "--replay plain.thr --scene duel.yaml %s --screenshot plain.png", size);
	view_ok(DUMMY, args);
	expect_same("live.png", "health.png");
	// Group colours (palette.h): red is group 0 (80, 200, 255), blue group
	// 1 (255, 150, 60). Blue has 40 of 100 left: its colour times 0.35 +
	// 0.65 * 0.4 = 0.61, rounded: (156, 92, 37).
	static const unsigned char red[3] = {80, 200, 255}, blue[3] = {255, 150, 60}, wounded[3] = {156, 92, 37};
	image live = load_png("live.png"), plain = load_png("plain.png");
	cr_expect_gt(count_color(&live, red), 20u, "the unhurt red is drawn in its own colour");
	cr_expect_gt(count_color(&live, wounded), 20u, "the wounded blue is dimmed");
	cr_expect_eq(count_color(&live, blue), 0u);
	// A stream without health: nobody is dimmed.
	cr_expect_gt(count_color(&plain, blue), 20u);
	cr_expect_eq(count_color(&plain, wounded), 0u);
	free(live.rgb);
	free(plain.rgb);
}

TestSuite(attach, .init = make_dir, .fini = remove_dir);

/// Starts `throng run <scene> --agents <agents> --shm NAME` (a name of the
/// test's own), attaches throng-view with `view_args` to it, stops the run
/// with SIGINT and checks it removed its feed. Returns throng-view's status.
static int attach_to_run(const char* scene, const char* agents, const char* view_args)
{
	char name[64], args[512], log[160];
	static int serial = 0;
	snprintf(name, sizeof name, "throng-view-test-%ld-%d", (long)getpid(), serial++);
	snprintf(log, sizeof log, "%s/run.txt", dir);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		if (freopen(log, "w", stdout) == NULL || freopen(log, "a", stderr) == NULL) {
			_exit(127);
		}
		execl(THRONG_CLI_PATH, THRONG_CLI_PATH, "run", scene, "--agents", agents, "--steps", "100000000", "--shm",
		      name, "-q", (char*)NULL);
		_exit(127);
	}
	// Until the feed is there (the run creates it before its first step).
	throng_feed_reader* r = NULL;
	for (int k = 0; k < 500 && throng_feed_open(name, &r) != THRONG_OK; ++k) {
		nanosleep(&(struct timespec){0, 20000000L}, NULL);
	}
	bool found = r != NULL;
	throng_feed_reader_destroy(r);
	r = NULL;
	snprintf(args, sizeof args, "--attach %s %s", name, view_args);
	int rc = found ? run_view(DUMMY, args) : -1;
	// The run stops on SIGINT and removes its feed (a signal's normal end).
	kill(pid, SIGINT);
	int status = 0;
	waitpid(pid, &status, 0);
	if (throng_feed_open(name, &r) == THRONG_OK) {
		throng_feed_reader_destroy(r);
		char shm[80];
		snprintf(shm, sizeof shm, "/%s", name);
		shm_unlink(shm); // the unique name of this test, left by a run that did not finish
		cr_expect(false, "the run left its feed %s behind", name);
	}
	cr_assert(found, "no feed %s after 10 s", name);
	return rc;
}

Test(attach, a_live_feed_of_throng_run)
{
	int rc = attach_to_run("circle", "2000", "--steps 20 --screenshot live.png --no-hud --width 640 --height 480");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	image img = load_png("live.png");
	cr_expect_gt(count_color(&img, GROUPS[0]), 500u, "the circle's agents not drawn");
	free(img.rgb);
	// A feed that is not there: an input error naming it.
	cr_expect_eq(run_view(DUMMY, "--attach throng-view-test-none --screenshot x.png"), 3);
	cr_expect(strstr(err, "--attach") != NULL && strstr(err, "throng-view-test-none") != NULL, "%s", err);
}

Test(attach, the_scene_around_a_feed)
{
	// evacuation's room is sized by --agents, which a feed does not carry:
	// given, the room's obstacles are drawn.
	int rc = attach_to_run("evacuation", "300",
	                       "--agents 300 --screenshot walls.png --no-hud --width 640 --height 480");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	image img = load_png("walls.png");
	cr_expect_gt(count_color(&img, OBSTACLE_FILL), 100u, "the room's obstacles not drawn");
	free(img.rgb);
}

TestSuite(play_errors, .init = make_dir, .fini = remove_dir);

Test(play_errors, bad_arguments_name_the_option)
{
	static const struct {
		const char* args;
		int rc;
		const char* says;
	} cases[] = {
		{"--color purple", 2, "--color"},
		{"--colour", 2, "--colour"},
		{"--replay", 2, "--replay"},
		{"--replay a.bin --attach feed", 2, "--replay and --attach"},
		{"herd --replay a.bin", 2, "--replay"},
		{"--replay a.bin --agents 5", 2, "--agents"},
		{"--attach feed --select 3", 2, "--select"},
		{"--replay a.bin --benchmark-frames 5", 2, "--benchmark-frames"},
		{"--steps 5", 2, "--steps"},
		{"--scene herd", 2, "--scene"},
		{"--steps x --screenshot a.png", 2, "--steps"},
		{"--steps 3 --steps-per-frame 2 --screenshot a.png", 2, "--steps"},
		{"--steps 4 --frames 2 --screenshot a.png", 2, "--steps and --frames"},
		{"--replay missing.bin --screenshot a.png", 3, "missing.bin"},
		{"--replay garbage.bin --screenshot a.png", 3, "--replay"},
	};
	char path[128];
	snprintf(path, sizeof path, "%s/garbage.bin", dir);
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("not a stream at all, not even close to one\n", f);
	fclose(f);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		int rc = run_view(DUMMY, cases[k].args);
		cr_expect_eq(rc, cases[k].rc, "%s: exit %d, want %d (%s)", cases[k].args, rc, cases[k].rc, err);
		cr_expect(strstr(err, cases[k].says) != NULL, "%s: \"%s\" does not name %s", cases[k].args, err,
		          cases[k].says);
		cr_expect(strncmp(err, "throng-view: ", 13) == 0, "%s: %s", cases[k].args, err);
	}
	// Good ones.
	cr_expect_eq(run_view(DUMMY, "--color army --help"), 0);
	cr_expect(strstr(out, "--replay FILE") != NULL && strstr(out, "--attach NAME") != NULL &&
	              strstr(out, "--color MODE") != NULL && strstr(out, "--steps N") != NULL,
	          "help lacks an option");
}
