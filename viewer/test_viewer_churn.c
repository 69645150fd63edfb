// SPDX-License-Identifier: MIT
// throng-view with agents that come and go (issue 33, item 7): the
// concourse starts empty and is fed by sources and emptied by sinks, the
// evacuation ends empty. Captures on SDL's dummy driver, checked pixel by
// pixel against the library's own run of the same scene (as
// test_viewer.c does); the zone getter the viewer draws sinks with.
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_viewer_support.h"
#include "throng/scenario.h"

/// palette.h: VW_SINK and VW_SOURCE (zones and sources, outlines), the
/// selection ring, and the HUD's warning text (the dropped agent's note).
static const unsigned char SINK[3] = {230, 60, 50};
static const unsigned char SOURCE[3] = {40, 190, 90};
static const unsigned char RING[3] = {255, 255, 255};
static const unsigned char WARN[3] = {255, 190, 80};

/// Pixels of any group's colour (agents).
static size_t count_agents(const image* img)
{
	size_t n = 0;
	for (int g = 0; g < 8; ++g) {
		n += count_color(img, GROUPS[g]);
	}
	return n;
}

/// The library's run of `name` (a built-in, or a file by path) to
/// `steps`: its stats and zones.
static throng_scene* run_scene(const char* name, uint32_t agents, uint64_t steps)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.record_forces = true;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_open(name, &o, &s), THRONG_OK, "%s", throng_last_error());
	for (uint64_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	return s;
}

/// Each sink's box drawn in the sink colour: at least two of its edges'
/// midpoints (one may lie under a wall, another under an agent leaving).
static void expect_sinks(const image* img, throng_world* w, const char* what)
{
	throng_world_def def = throng_world_get_def(w);
	fit f = fit_bounds(def.bounds_min, def.bounds_max);
	uint32_t sinks = 0;
	for (uint32_t z = 0; z < throng_world_zone_count(w); ++z) {
		throng_zone_def d;
		cr_assert_eq(throng_world_get_zone(w, z, &d, NULL, 0), THRONG_OK, "%s", throng_last_error());
		if (!d.sink || d.shape != THRONG_ZONE_BOX) {
			continue;
		}
		sinks++;
		float cx = 0.5f * (d.min.x + d.max.x), cy = 0.5f * (d.min.y + d.max.y);
		throng_vec2 mid[4] = {{cx, d.min.y}, {cx, d.max.y}, {d.min.x, cy}, {d.max.x, cy}};
		int edges = 0;
		for (int e = 0; e < 4; ++e) {
			int x, y;
			project(&f, mid[e], &x, &y);
			bool hit = false;
			for (int dy = -1; dy <= 1 && !hit; ++dy) {
				for (int dx = -1; dx <= 1 && !hit; ++dx) {
					hit = x + dx >= 0 && y + dy >= 0 && x + dx < W && y + dy < H && is(px(img, x + dx, y + dy), SINK);
				}
			}
			edges += hit;
		}
		cr_expect_geq(edges, 2, "%s: sink %u \"%s\" outlined on %d edges", what, z, d.name, edges);
	}
	cr_expect_gt(sinks, 0, "%s: no box sinks to look for", what);
}

TestSuite(churn, .init = make_dir, .fini = remove_dir);

Test(churn, a_source_scene_starts_empty_then_fills)
{
	// A scenario file of sources alone: frame 0 shows an empty hall, its
	// sources and sink outlined; at step 600 every walker the sources added
	// is drawn where the library has it.
	char path[128];
	snprintf(path, sizeof path, "%s/door.yaml", dir);
	FILE* f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("version: 2\nname: door\nworld: {bounds: {min: [0, 0], max: [40, 20], mode: contain}}\n"
	      "archetypes: {walker: {preset: pedestrian, drive: arrive}}\n"
	      "zones: [{shape: box, name: exit, min: [37, 0], max: [40, 20], sink: true}]\n"
	      "sources: [{shape: segment, from: [1, 2], to: [1, 18], rate: 5, archetype: walker, goal: [39, 10]}]\n",
	      f);
	cr_assert_eq(fclose(f), 0);
	view_ok(DUMMY, "door.yaml --screenshot empty.png --no-hud --width 640 --height 480");
	image img = load_png("empty.png");
	cr_expect_eq(count_agents(&img), 0, "agents drawn in the empty hall");
	cr_expect_gt(count_color(&img, SOURCE), 20, "the source is not outlined");
	throng_scene* s = run_scene(path, 0, 0);
	cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), 0, "the file's scene does not start empty");
	expect_sinks(&img, throng_scene_world(s), "empty.png");
	throng_scene_destroy(s);
	free(img.rgb);
	view_ok(DUMMY, "door.yaml --steps-per-frame 10 --frames 61 --screenshot full.png --no-hud --width 640 "
	        "--height 480");
	cr_expect_gt(expect_agents_drawn_every(path, 0, 61, 10, "full.png"), 20u);
	// --select needs an agent there at the start.
	cr_expect_eq(run_view(DUMMY, "door.yaml --select 0 --screenshot x.png"), 2);
	cr_expect_not_null(strstr(err, "--select: no agent 0 at the start (the scene starts with 0 agents; agents that "
	                                "come later cannot be selected in advance)"),
	                   "%s", err);
}

Test(churn, concourse_agents_come_and_go)
{
	// Frame 0: step 0, the hall with its crowd; its sources and sinks drawn.
	view_ok(DUMMY, "concourse --agents 300 --screenshot start.png --no-hud --width 640 --height 480");
	image img = load_png("start.png");
	cr_expect_eq(expect_agents_drawn_every("concourse", 300, 1, 1, "start.png"), 300u);
	cr_expect_gt(count_color(&img, SOURCE), 20, "the sources are not outlined");
	throng_scene* s = run_scene("concourse", 300, 0);
	expect_sinks(&img, throng_scene_world(s), "start.png");
	throng_scene_destroy(s);
	free(img.rgb);

	// Frame 200 at 10 steps a frame: step 2000, after walkers have left
	// through the sinks while others came in (the library's run says so).
	view_ok(DUMMY, "concourse --agents 300 --steps-per-frame 10 --frames 201 --screenshot busy.png --no-hud "
	        "--width 640 --height 480");
	uint32_t n = expect_agents_drawn_every("concourse", 300, 201, 10, "busy.png");
	s = run_scene("concourse", 300, 2000);
	throng_world_stats st = throng_world_get_stats(throng_scene_world(s));
	cr_expect(st.agents_removed > 0 && st.agents_added > 0, "added %llu, removed %llu",
	          (unsigned long long)st.agents_added, (unsigned long long)st.agents_removed);
	cr_expect_eq(n, (uint32_t)(st.agents_added - st.agents_removed)); // added counts the 300 of the start
	cr_expect_gt(throng_world_id_end(throng_scene_world(s)), n, "no gaps in the ids: nobody left");
	img = load_png("busy.png");
	expect_sinks(&img, throng_scene_world(s), "busy.png");
	free(img.rgb);
	throng_scene_destroy(s);
}

Test(churn, evacuation_empties_and_lets_go_of_the_selected_agent)
{
	// While agent 3 is in the room: it is drawn with the selection ring.
	view_ok(DUMMY, "evacuation --agents 100 --select 3 --steps-per-frame 10 --frames 2 --screenshot early.png "
	        "--no-hud --width 640 --height 480");
	image img = load_png("early.png");
	cr_expect_gt(count_color(&img, RING), 20, "no selection ring around agent 3");
	free(img.rgb);
	// Step 1590: the room is empty (the library's run agrees): no agent and
	// no stale ring; with the HUD, its note says agent 3 left (warning colour).
	view_ok(DUMMY, "evacuation --agents 100 --select 3 --steps-per-frame 10 --frames 160 --screenshot end.png "
	        "--no-hud --width 640 --height 480");
	throng_scene* s = run_scene("evacuation", 100, 1590);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_agent_count(w), 0, "evacuation not empty at step 1590");
	cr_assert_eq(throng_world_get_stats(w).agents_removed, 100);
	img = load_png("end.png");
	cr_expect_eq(count_agents(&img), 0, "agents drawn in the empty room");
	cr_expect_eq(count_color(&img, RING), 0, "the removed agent's ring is still drawn");
	free(img.rgb);
	view_ok(DUMMY, "evacuation --agents 100 --select 3 --steps-per-frame 10 --frames 160 --screenshot note.png "
	        "--width 640 --height 480");
	img = load_png("note.png");
	cr_expect_gt(count_color(&img, WARN), 20, "no note that agent 3 left");
	free(img.rgb);
	// The same run with nothing selected (the camera fits the world, not
	// where agent 3 was last followed) has no warning line at all.
	view_ok(DUMMY, "evacuation --agents 100 --steps-per-frame 10 --frames 160 --screenshot plain.png "
	        "--width 640 --height 480");
	img = load_png("plain.png");
	cr_expect_eq(count_color(&img, WARN), 0, "a warning without a dropped agent");
	cr_expect_eq(count_agents(&img), 0, "agents drawn in the empty room");
	expect_sinks(&img, w, "plain.png");
	free(img.rgb);
	throng_scene_destroy(s);
}

Test(churn, real_time_with_churn)
{
	// The host's own thread, steps by the clock, agents coming in.
	view_ok(DUMMY, "concourse --agents 300 --frames 40 --width 320 --height 240");
	view_ok(DUMMY, "evacuation --agents 100 --frames 40 --engine scalar --width 320 --height 240");
}

Test(churn, options_that_need_sense)
{
	cr_expect_eq(run_view(DUMMY, "concourse --steps-per-frame 5 --frames 3"), 2);
	cr_expect_not_null(strstr(err, "--steps-per-frame applies to --screenshot, --record and --video"), "%s", err);
	cr_expect_eq(run_view(DUMMY, "concourse --steps-per-frame 0 --screenshot x.png"), 2);
	cr_expect_eq(run_view(DUMMY, "evacuation --agents 100 --select 100 --screenshot x.png"), 2);
	cr_expect_not_null(strstr(err, "--select: no agent 100 at the start (the scene starts with 100 agents)"), "%s",
	                   err);
}

// throng_world_get_zone, added to the library for the viewer.
Test(world_zones, getter_copies_out_and_validates)
{
	throng_world_def def = throng_world_default_def();
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	throng_zone_def box = throng_zone_default_def();
	box.shape = THRONG_ZONE_BOX;
	box.min = (throng_vec2){-2.0f, -1.0f};
	box.max = (throng_vec2){3.0f, 4.0f};
	box.sink = true;
	snprintf(box.name, sizeof box.name, "exit");
	throng_vec2 tri[3] = {{0.0f, 0.0f}, {5.0f, 0.0f}, {0.0f, 2.5f}};
	throng_zone_def poly = throng_zone_default_def();
	poly.shape = THRONG_ZONE_POLYGON;
	poly.points = tri;
	poly.point_count = 3;
	cr_assert_eq(throng_world_add_zone(w, &box, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_zone(w, &poly, NULL), THRONG_OK, "%s", throng_last_error());

	throng_zone_def d;
	cr_assert_eq(throng_world_get_zone(w, 0, &d, NULL, 0), THRONG_OK);
	cr_expect(d.shape == THRONG_ZONE_BOX && d.sink && strcmp(d.name, "exit") == 0);
	cr_expect(d.min.x == -2.0f && d.min.y == -1.0f && d.max.x == 3.0f && d.max.y == 4.0f);
	cr_expect(d.points == NULL && d.point_count == 0);
	// Too small a buffer: the count in all, only what fits written.
	throng_vec2 pts[3] = {{9.0f, 9.0f}, {9.0f, 9.0f}, {9.0f, 9.0f}};
	cr_assert_eq(throng_world_get_zone(w, 1, &d, pts, 2), THRONG_OK);
	cr_expect(d.shape == THRONG_ZONE_POLYGON && !d.sink && d.point_count == 3 && d.points == pts);
	cr_expect(pts[1].x == 5.0f && pts[1].y == 0.0f && pts[2].x == 9.0f, "wrote past the buffer's room");
	cr_assert_eq(throng_world_get_zone(w, 1, &d, pts, 3), THRONG_OK);
	cr_expect(pts[2].x == 0.0f && pts[2].y == 2.5f);
	cr_assert_eq(throng_world_get_zone(w, 1, &d, NULL, 0), THRONG_OK);
	cr_expect(d.points == NULL && d.point_count == 3, "asking for the count");

	d.radius = 7.0f;
	cr_expect_eq(throng_world_get_zone(w, 2, &d, NULL, 0), THRONG_ERR_NOT_FOUND);
	cr_expect_not_null(strstr(throng_last_error(), "no zone 2 (the world has 2)"), "%s", throng_last_error());
	cr_expect_eq(d.radius, 7.0f, "*def written on failure");
	cr_expect_eq(throng_world_get_zone(w, 0, NULL, NULL, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(throng_world_get_zone(w, 1, &d, NULL, 3), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_not_null(strstr(throng_last_error(), "points is NULL"), "%s", throng_last_error());
	cr_expect_eq(throng_world_get_zone(NULL, 0, &d, NULL, 0), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(w);
}
