// SPDX-License-Identifier: MIT
// Routing soldiers in throng-view (docs/ARMIES.md, "Morale and rout"):
// a stream written here by hand, through the library's exporter, with two
// soldiers that rout and two that hold (test_viewer_rout.h), played back.
// A routing soldier is drawn ringed in VW_ROUTING (palette.h) with its body
// in its own colour, in every colour mode, close up (a triangle) and
// zoomed out (a square); one that holds has no ring, nor has anybody
// before the rout; the HUD's legend has a routing line in a file where
// someone routs and none in one where nobody does. And a unit of a
// scenario file that routs in a fight is ringed live as in the replay of
// its run's stream, pixel for pixel.
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_viewer_rout.h"
#include "test_viewer_support.h"

/// palette.h: VW_ROUTING.
static const unsigned char RING[3] = {250, 250, 250};

/// Each colour mode and the colours of soldiers 0 and 1 (group 0,
/// archetype 0) and 2 and 3 (group 7, archetype 5) in it; army mode
/// without a scene is VW_SIDE_COLORS.
static const struct {
	const char* mode;
	unsigned char dark[3], light[3];
} MODES[] = {
	{"group", {80, 200, 255}, {235, 235, 235}},
	{"archetype", {255, 205, 90}, {255, 255, 255}},
	{"army", {0, 114, 178}, {153, 153, 153}},
};

/// Pixels of colour c within `reach` px of soldier k's centre.
static uint32_t count_near(const image* img, uint32_t k, float half, int reach, const unsigned char c[3])
{
	fit f = fit_bounds((throng_vec2){-half, -half}, (throng_vec2){half, half});
	int cx, cy;
	project(&f, rout_position(k, half), &cx, &cy);
	uint32_t n = 0;
	for (int y = cy - reach; y <= cy + reach; ++y) {
		for (int x = cx - reach; x <= cx + reach; ++x) {
			n += is(px(img, x, y), c);
		}
	}
	return n;
}

static void write_stream(const char* name, float half, bool routs)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	cr_assert_eq(write_rout_stream(path, half, routs), THRONG_OK, "%s", throng_last_error());
}

/// Plays stream `name` (half-width `half`) at its second frame in every
/// colour mode and checks each soldier: those that rout ringed (at least
/// `ring_px` ring pixels within `reach` px) and in their own colour, the
/// others in their colour without a ring.
static void expect_ringed(const char* name, float half, int reach, uint32_t ring_px)
{
	for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; ++m) {
		char args[256], png[64];
		snprintf(png, sizeof png, "%s-%s.png", name, MODES[m].mode);
		snprintf(args, sizeof args, "--replay %s --steps 1 --color %s --no-hud --width %d --height %d --screenshot %s",
		         name, MODES[m].mode, W, H, png);
		view_ok(DUMMY, args);
		image img = load_png(png);
		for (uint32_t k = 0; k < ROUT_AGENTS; ++k) {
			const unsigned char* body = k < 2u ? MODES[m].dark : MODES[m].light;
			uint32_t ring = count_near(&img, k, half, reach, RING);
			cr_expect_gt(count_near(&img, k, half, reach, body), 0u, "%s: soldier %u is not in its colour", png, k);
			if (k % 2u == 1u) {
				cr_expect_geq(ring, ring_px, "%s: routing soldier %u has %u ring pixels", png, k, ring);
			} else {
				cr_expect_eq(ring, 0u, "%s: soldier %u holds but has %u ring pixels", png, k, ring);
			}
		}
		free(img.rgb);
	}
}

TestSuite(rout, .init = make_dir, .fini = remove_dir);

Test(rout, routing_soldiers_are_ringed_in_every_colour_mode)
{
	// 10 m across 480 px: 44 px a metre, a soldier (0.3 m, the radius of a
	// scene the viewer does not know) a triangle 13 px in radius; its
	// ring reaches some 28 px ahead, the next soldier is 177 px away.
	write_stream("rout.thr", 5.0f, true);
	expect_ringed("rout.thr", 5.0f, 40, 60u);
	// Before the rout nobody is ringed.
	view_ok(DUMMY, "--replay rout.thr --steps 0 --no-hud --width 640 --height 480 --screenshot before.png");
	image img = load_png("before.png");
	cr_expect_eq(count_color(&img, RING), 0u);
	free(img.rgb);
}

Test(rout, zoomed_out_routing_soldiers_are_ringed_squares)
{
	// 2 km across 480 px: a soldier is a 2 px square, a router's ring a
	// square of 4 px round it.
	write_stream("far.thr", 1000.0f, true);
	expect_ringed("far.thr", 1000.0f, 4, 8u);
}

Test(rout, the_legend_has_a_routing_line)
{
	// With the HUD: the legend's routing line is written in the ring's
	// colour in a file where someone routs, even at a frame before the
	// rout (it says 0); a file where nobody routs has none.
	write_stream("rout.thr", 5.0f, true);
	write_stream("calm.thr", 5.0f, false);
	view_ok(DUMMY, "--replay rout.thr --steps 0 --width 640 --height 480 --screenshot rout.png");
	view_ok(DUMMY, "--replay calm.thr --steps 1 --width 640 --height 480 --screenshot calm.png");
	image rout = load_png("rout.png"), calm = load_png("calm.png");
	cr_expect_gt(count_color(&rout, RING), 20u, "no routing line in the legend");
	cr_expect_eq(count_color(&calm, RING), 0u);
	free(rout.rgb);
	free(calm.rgb);
}

/// Four knights kill the front rank of a unit of eight levies (health 10,
/// damage 10) at step 1: half its strength, its breaks_at, so it routs;
/// the four left run for (9, 0), out of reach before the knights strike
/// again (cooldown 1 s).
static const char rout_file[] =
	"version: 2\n"
	"world: {bounds: {min: [-10, -10], max: [10, 10], mode: contain}, dt: 0.1}\n"
	"archetypes:\n"
	"  knight:\n"
	"    target_rule: {group: levy, sight_radius: 8}\n"
	"    combat: {attack: melee, reach: 2.5, damage: 10, cooldown: 1}\n"
	"    slots: []\n"
	"  levy:\n"
	"    combat: {health: 10}\n"
	"    slots: []\n"
	"groups:\n"
	"  knights: {count: 4, archetype: knight, spawn: {shape: line, from: [-1, -3], to: [-1, 3]}}\n"
	"  levy:\n"
	"    {count: 8, archetype: levy, spawn: {shape: grid, center: [1.5, 0], spacing: [1, 2], columns: 2},\n"
	"     morale: {breaks_at: 0.5, rallies: 0, refuge: [9, 0]}}\n";

Test(rout, a_unit_of_a_scenario_file_routs_ringed_live_as_in_its_replay)
{
	write_text("rout.yaml", rout_file);
	throng_ok("run rout.yaml --steps 6 --fields all --out rout.thr");
	view_ok(DUMMY, "rout.yaml --steps 6 --no-hud --width 640 --height 480 --screenshot live.png");
	view_ok(DUMMY, "--replay rout.thr --scene rout.yaml --steps 6 --no-hud --width 640 --height 480 --screenshot rep.png");
	expect_same("live.png", "rep.png");
	image img = load_png("live.png");
	cr_expect_gt(count_color(&img, RING), 4u * 20u, "the four routing levies are not ringed");
	free(img.rgb);
	// Before the fight nobody is ringed; the HUD's legend has its routing
	// line (the world has a unit).
	view_ok(DUMMY, "rout.yaml --steps 0 --no-hud --width 640 --height 480 --screenshot before.png");
	view_ok(DUMMY, "rout.yaml --steps 0 --width 640 --height 480 --screenshot hud.png");
	image before = load_png("before.png"), hud = load_png("hud.png");
	cr_expect_eq(count_color(&before, RING), 0u);
	cr_expect_gt(count_color(&hud, RING), 20u, "no routing line in the legend");
	free(before.rgb);
	free(hud.rgb);
}
