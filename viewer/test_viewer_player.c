// SPDX-License-Identifier: MIT
// The replay's player (play.c) without a window: what the keys do (step
// forward and back, seek, the ends, speed, play at the end starts over)
// and the frames it hands the renderer, checked against the stream read
// with the library's reader: every frame's agents, ids, counts and the
// churn figures of a run whose agents leave (evacuation). And the routing
// soldiers a frame counts, replayed from a stream written by hand and
// live from a world whose unit routs; the bodies a live frame copies.
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "play.h"
#include "test_viewer_rout.h"
#include "throng/export.h"
#include "throng/units.h"

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

static vw_play* open_stream(const char* path)
{
	vw_args a;
	memset(&a, 0, sizeof a);
	a.replay = path;
	a.paused = true;
	char err[512];
	int rc = 0;
	vw_play* p = vw_play_open(&a, err, sizeof err, &rc);
	cr_assert_not_null(p, "%s", err);
	return p;
}

static vw_play* open_replay(void)
{
	return open_stream(stream);
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

TestSuite(routing, .init = setup, .fini = teardown);

Test(routing, replayed_frames_count_the_routing)
{
	char path[160];
	snprintf(path, sizeof path, "%s/rout.thr", dir);
	cr_assert_eq(write_rout_stream(path, 5.0f, true), THRONG_OK, "%s", throng_last_error());
	vw_play* p = open_stream(path);
	// Step 0: nobody routs yet, but the file has routers: the HUD counts.
	const vw_frame* f = vw_play_frame(p);
	cr_assert_not_null(f->combat_state);
	cr_expect(f->units);
	cr_expect_eq(f->routing, 0u);
	cr_expect_eq(f->combat_state[0], (uint32_t)THRONG_COMBAT_STRUCK);
	vw_play_seek(p, 1);
	f = vw_play_frame(p);
	cr_expect_eq(f->routing, 2u);
	cr_expect_eq(f->combat_state[0], 0u);
	cr_expect_eq(f->combat_state[1], (uint32_t)(THRONG_COMBAT_ROUTING | THRONG_COMBAT_HIT));
	cr_expect_eq(f->combat_state[2], 0u);
	cr_expect_eq(f->combat_state[3], (uint32_t)THRONG_COMBAT_ROUTING);
	vw_play_destroy(p);
	// A file where nobody routs: its marks, no routing line.
	cr_assert_eq(write_rout_stream(path, 5.0f, false), THRONG_OK, "%s", throng_last_error());
	p = open_stream(path);
	vw_play_seek(p, 1);
	f = vw_play_frame(p);
	cr_expect_not_null(f->combat_state);
	cr_expect(!f->units);
	cr_expect_eq(f->routing, 0u);
	vw_play_destroy(p);
	// A stream without combat_state (evacuation's x, y, hx, hy).
	p = open_replay();
	f = vw_play_frame(p);
	cr_expect_null(f->combat_state);
	cr_expect(!f->units);
	vw_play_destroy(p);
}

Test(routing, a_live_frame_counts_a_routing_unit)
{
	throng_world_def wd = throng_world_default_def();
	wd.bounds_min = (throng_vec2){-50.0f, -50.0f};
	wd.bounds_max = (throng_vec2){50.0f, 50.0f};
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&wd, &w), THRONG_OK, "%s", throng_last_error());
	vw_scene s = {NULL, w, "units", false, false, {0.0f, 0.0f}};
	vw_frame f;
	memset(&f, 0, sizeof f);
	// Without units: no combat_state copied, no routing line.
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller run = throng_controller_routing(&c);
	uint32_t fight = 0, flee = 0, unit = 0;
	cr_assert_eq(throng_world_add_archetype(w, &c, &fight), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_archetype(w, &run, &flee), THRONG_OK, "%s", throng_last_error());
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_expect_null(f.combat_state);
	cr_expect(!f.units);
	// A unit of 4 that breaks at half its strength lost, and 2 soldiers
	// in none.
	throng_unit_def ud = throng_unit_default_def();
	ud.archetype = fight;
	ud.rout_archetype = flee;
	ud.morale.breaks_at = 0.5f;
	cr_assert_eq(throng_world_add_unit(w, &ud, &unit), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a[6];
	for (uint32_t k = 0; k < 6; ++k) {
		a[k] = throng_agent_default_def();
		a[k].position = (throng_vec2){-10.0f + 4.0f * (float)k, 0.0f};
		a[k].archetype = fight;
		a[k].unit = k < 4u ? unit : THRONG_NO_UNIT;
	}
	uint32_t first = 0;
	cr_assert_eq(throng_world_spawn(w, a, 6, &first), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_expect(f.units);
	cr_assert_not_null(f.combat_state);
	cr_expect_eq(f.routing, 0u);
	// Half of it lost: it routs after the next step, its 2 left marked.
	const uint32_t lost[2] = {first, first + 1u};
	cr_assert_eq(throng_world_remove_agents(w, lost, 2), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_expect_eq(f.count, 4u);
	cr_expect_eq(f.routing, 2u);
	for (uint32_t k = 0; k < f.count; ++k) {
		const bool routs = f.id[k] == first + 2u || f.id[k] == first + 3u;
		cr_expect_eq((f.combat_state[k] & THRONG_COMBAT_ROUTING) != 0, routs, "agent %u", f.id[k]);
	}
	vw_frame_free(&f);
	throng_world_destroy(w);
}

Test(bodies, a_live_frame_copies_the_bodies_and_marks_their_obstacles)
{
	throng_world_def wd = throng_world_default_def();
	wd.bounds_min = (throng_vec2){-50.0f, -50.0f};
	wd.bounds_max = (throng_vec2){50.0f, 50.0f};
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&wd, &w), THRONG_OK, "%s", throng_last_error());
	vw_scene s = {NULL, w, "bodies", false, false, {0.0f, 0.0f}};
	vw_frame f;
	memset(&f, 0, sizeof f);
	// A knight (group 0) that kills a levy (group 2, archetype 1, health
	// 10) 3 m east of it in the first step; the levy leaves a body of
	// 0.5 m. Obstacle 0 is a post.
	throng_controller knight = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	knight.combat.enabled = true;
	knight.combat.health = 100.0f;
	knight.combat.attack = THRONG_ATTACK_MELEE;
	knight.combat.reach = 4.0f;
	knight.combat.damage = 10.0f;
	knight.combat.cooldown = 1.0f;
	knight.combat.accuracy = 1.0f;
	throng_controller levy = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	levy.combat.enabled = true;
	levy.combat.health = 10.0f;
	levy.combat.body_radius = 0.5f;
	uint32_t ka = 0, la = 0, post = 0;
	cr_assert_eq(throng_world_add_archetype(w, &knight, &ka), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_archetype(w, &levy, &la), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){-20.0f, 10.0f}, 1.0f, &post), THRONG_OK);
	throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
	a[0].position = (throng_vec2){-1.0f, 0.0f};
	a[0].archetype = ka;
	a[1].position = (throng_vec2){2.0f, 0.0f};
	a[1].archetype = la;
	a[1].group = 2;
	uint32_t first = 0;
	cr_assert_eq(throng_world_spawn(w, a, 2, &first), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_set_target_agent(w, first, first + 1u), THRONG_OK, "%s", throng_last_error());
	// Nobody has fallen yet: no bodies, no obstacle marked.
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_expect_eq(f.body_count, 0u);
	cr_expect_null(f.obstacle_body);
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_assert_eq(f.count, 1u, "the levy fell in the first step");
	cr_assert_eq(f.body_count, 1u);
	const vw_body* b = &f.bodies[0];
	cr_expect(b->position.x == 2.0f && b->position.y == 0.0f, "(%g, %g)", (double)b->position.x, (double)b->position.y);
	cr_expect(b->facing.x > 0.999f && fabsf(b->facing.y) < 1e-3f, "it lies away from its killer: (%g, %g)",
	          (double)b->facing.x, (double)b->facing.y);
	cr_expect(b->radius == 0.5f && b->group == 2u && b->archetype == la && b->obstacle == 1u);
	cr_assert_eq(f.obstacle_count, 2u);
	cr_assert_not_null(f.obstacle_body);
	cr_expect(!f.obstacle_body[post] && f.obstacle_body[1], "the post is drawn as a disc, the body lying");
	// Game code moves the body's obstacle: it is a disc where it went, the
	// body is still drawn where it fell.
	cr_assert_eq(throng_world_set_obstacle(w, 1, (throng_vec2){30.0f, 30.0f}, 0.5f), THRONG_OK);
	cr_assert(vw_frame_fill(&f, &s, VW_NO_AGENT));
	cr_expect_eq(f.body_count, 1u);
	cr_expect(f.bodies[0].position.x == 2.0f);
	cr_assert_not_null(f.obstacle_body);
	cr_expect(!f.obstacle_body[0] && !f.obstacle_body[1]);
	vw_frame_free(&f);
	throng_world_destroy(w);
}
