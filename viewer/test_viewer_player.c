// SPDX-License-Identifier: MIT
// The replay's player (play.c) without a window: what the keys do (step
// forward and back, seek, the ends, speed, play at the end starts over)
// and the frames it hands the renderer, checked against the stream read
// with the library's reader: every frame's agents, ids, counts and the
// churn figures of a run whose agents leave (evacuation).
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "play.h"
#include "throng/export.h"

static char dir[64], stream[128];

/// evacuation at 120 agents for 900 steps, a frame every 10 steps.
static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/throng-view-player-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(stream, sizeof stream, "%s/evac.bin", dir);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "'%s' run evacuation --agents 120 --steps 900 --every 10 --out '%s' -q >/dev/null",
	         THRONG_CLI_PATH, stream);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static vw_play* open_replay(void)
{
	vw_args a;
	memset(&a, 0, sizeof a);
	a.replay = stream;
	a.paused = true;
	char err[512];
	int rc = 0;
	vw_play* p = vw_play_open(&a, err, sizeof err, &rc);
	cr_assert_not_null(p, "%s", err);
	return p;
}

TestSuite(player, .init = setup, .fini = teardown);

Test(player, frames_are_the_streams)
{
	vw_play* p = open_replay();
	cr_assert_str_eq(vw_play_scene(p), "evacuation");
	throng_stream_reader* r = NULL;
	cr_assert_eq(throng_stream_open(stream, &r), THRONG_OK, "%s", throng_last_error());
	uint64_t n = 0, left = 0;
	uint32_t first = 0;
	for (;; ++n) {
		throng_frame f;
		bool got = false;
		cr_assert_eq(throng_stream_read_frame(r, &f, &got), THRONG_OK);
		if (!got) {
			break;
		}
		vw_play_seek(p, (int64_t)n);
		const vw_frame* v = vw_play_frame(p);
		cr_assert_eq(v->step, f.step);
		cr_assert_eq(v->count, f.count, "frame %llu", (unsigned long long)n);
		for (uint32_t k = 0; k < f.count; ++k) {
			cr_assert_eq(v->id[k], f.id[k]);
			cr_assert_eq(v->x[k], f.x[k]);
			cr_assert_eq(v->y[k], f.y[k]);
			cr_assert_gt(v->radius[k], 0.0f);
		}
		if (n == 0) {
			first = f.count;
		}
		// Nobody comes in an evacuation: removed = start - now.
		cr_assert_eq(v->stats.agents_added, 0u);
		cr_assert_eq(v->stats.agents_removed, (uint64_t)(first - f.count));
		left = first - f.count;
	}
	throng_stream_reader_destroy(r);
	cr_expect_eq(vw_play_frames(p), n);
	cr_expect_gt(left, 0u, "nobody left in 900 steps");
	// The scene's walls and obstacles came with the rebuilt scene.
	cr_expect_gt(vw_play_frame(p)->wall_count, 0u);
	cr_expect_gt(vw_play_frame(p)->obstacle_count, 0u);
	vw_play_destroy(p);
}

Test(player, keys_step_seek_and_speed)
{
	vw_play* p = open_replay();
	uint64_t n = vw_play_frames(p);
	cr_assert_eq(n, 91u); // steps 0, 10, ..., 900
	cr_expect_eq(vw_play_index(p), 0u);
	vw_play_seek(p, -5);
	cr_expect_eq(vw_play_index(p), 0u, "before the start clamps to it");
	vw_play_seek(p, 1000);
	cr_expect_eq(vw_play_index(p), 90u, "past the end clamps to it");
	vw_play_seek(p, 40);
	cr_expect_eq(vw_play_frame(p)->step, 400u);
	vw_play_seek(p, 39); // one frame back
	cr_expect_eq(vw_play_frame(p)->step, 390u);
	cr_expect_eq(vw_play_find_step(p, 395), 39u);
	cr_expect_eq(vw_play_find_step(p, 400), 40u);
	cr_expect_eq(vw_play_find_step(p, 99999), 90u);
	// Paused: the clock does not move it.
	char err[256];
	cr_assert(vw_play_update(p, 10.0, err, sizeof err));
	cr_expect_eq(vw_play_index(p), 39u);
	// Playing at x1: a frame is 10 steps of 1/60 s; 0.51 s is 3.06 frames.
	vw_play_set_paused(p, false);
	cr_assert(vw_play_update(p, 0.51, err, sizeof err));
	cr_expect_eq(vw_play_index(p), 42u);
	vw_play_speed(p, 2.0); // x2: 0.5 s is 6 frames more (42.06 + 6)
	cr_assert(vw_play_update(p, 0.5, err, sizeof err));
	cr_expect_eq(vw_play_index(p), 48u);
	// To the end, where it pauses; play again starts over.
	cr_assert(vw_play_update(p, 1000.0, err, sizeof err));
	cr_expect_eq(vw_play_index(p), 90u);
	cr_expect(vw_play_paused(p));
	vw_play_toggle_pause(p);
	cr_expect_eq(vw_play_index(p), 0u);
	cr_expect(!vw_play_paused(p));
	// The speed is bounded both ways.
	for (int k = 0; k < 20; ++k) {
		vw_play_speed(p, 2.0);
	}
	cr_expect_eq(vw_play_frame(p)->speed, 64.0);
	for (int k = 0; k < 40; ++k) {
		vw_play_speed(p, 0.5);
	}
	cr_expect_eq(vw_play_frame(p)->speed, 1.0 / 64.0);
	vw_play_destroy(p);
}
