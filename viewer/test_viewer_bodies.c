// SPDX-License-Identifier: MIT
// Bodies in throng-view (docs/ARMIES.md, "Bodies"): a levy killed by a
// knight in the first step of a scenario file whose levy has
// combat.body_radius lies where it fell, away from its killer, drawn in
// its side's colour dimmed (vw_dead, palette.h) and not as its obstacle's
// grey disc: a trunk and a head close up, a bar further out, a point far
// out; in every colour mode. The HUD's legend counts the bodies. A world
// without bodies draws none, nor does a replay of the same run (a stream
// has no bodies).
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_viewer_support.h"

/// Where the levy stands and falls (m), the knight 4 m west of it: it
/// lies along +x, feet west, head east.
#define LEVY_X 2.0f
#define KNIGHT_X (-2.0f)

/// vw_dead (palette.h) of the levy's colour (group 1, archetype 1) in
/// each colour mode, worked out by hand: 0.28 (c + grey(c)) a channel,
/// grey = (77 r + 150 g + 29 b) / 256, rounded down. Army mode in a
/// scenario file is VW_SIDE_COLORS (every group a side).
static const struct {
	const char* mode;
	unsigned char dead[3];
} MODES[] = {
	{"group", {119, 89, 64}},     // (255, 150, 60), grey 171
	{"archetype", {76, 94, 117}}, // (110, 175, 255), grey 164
	{"army", {92, 59, 33}},       // (213, 94, 0), grey 119
};

/// The HUD's bodies line: vw_dead of VW_TEXT (230, 232, 240), grey 232.
static const unsigned char BODIES_TEXT[3] = {129, 129, 132};

/// A knight kills a levy (health 10, damage 10) in step 1. `half`: the
/// field's half-width (m); `body`: the levy's body_radius (m).
static void write_scene(const char* name, float half, float body)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "version: 2\n"
	         "world: {bounds: {min: [%g, %g], max: [%g, %g], mode: contain}, dt: 0.1}\n"
	         "archetypes:\n"
	         "  knight:\n"
	         "    target_rule: {group: levy, sight_radius: 8}\n"
	         "    combat: {attack: melee, reach: 4, damage: 10, cooldown: 1}\n"
	         "    slots: []\n"
	         "  levy:\n"
	         "    combat: {health: 10, body_radius: %g}\n"
	         "    slots: []\n"
	         "groups:\n"
	         "  knights: {id: 0, count: 1, archetype: knight, spawn: {shape: grid, center: [%g, 0], spacing: [1, 1], "
	         "columns: 1}}\n"
	         "  levy: {id: 1, count: 1, archetype: levy, spawn: {shape: grid, center: [%g, 0], spacing: [1, 1], "
	         "columns: 1}}\n",
	         (double)-half, (double)-half, (double)half, (double)half, (double)body, (double)KNIGHT_X,
	         (double)LEVY_X);
	write_text(name, text);
}

/// Pixels of colour c within `reach` px of world point (x, y) (the field
/// of half-width `half` fitted to the window, no HUD).
static uint32_t count_near(const image* img, float half, float x, float y, int reach, const unsigned char c[3])
{
	fit f = fit_bounds((throng_vec2){-half, -half}, (throng_vec2){half, half});
	int cx, cy;
	project(&f, (throng_vec2){x, y}, &cx, &cy);
	uint32_t n = 0;
	for (int py = cy - reach; py <= cy + reach; ++py) {
		for (int px_ = cx - reach; px_ <= cx + reach; ++px_) {
			n += is(px(img, px_, py), c);
		}
	}
	return n;
}

/// The pixel of world point (x, y).
static const unsigned char* at(const image* img, float half, float x, float y)
{
	fit f = fit_bounds((throng_vec2){-half, -half}, (throng_vec2){half, half});
	int px_, py;
	project(&f, (throng_vec2){x, y}, &px_, &py);
	return px(img, px_, py);
}

TestSuite(bodies, .init = make_dir, .fini = remove_dir);

Test(bodies, a_soldier_killed_lies_where_he_fell_in_his_sides_colour_dimmed)
{
	// 20 m across 480 px: 22 px a metre, a body of 0.8 m 35 px long.
	const float half = 10.0f, r = 0.8f;
	write_scene("bodies.yaml", half, r);
	for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; ++m) {
		char args[256], png[64];
		snprintf(png, sizeof png, "near-%s.png", MODES[m].mode);
		snprintf(args, sizeof args, "bodies.yaml --steps 2 --color %s --no-hud --width %d --height %d --screenshot %s",
		         MODES[m].mode, W, H, png);
		view_ok(DUMMY, args);
		image img = load_png(png);
		const unsigned char* dead = MODES[m].dead;
		// A trunk and a head (some 1.15 r^2: 360 px), no grey disc.
		uint32_t n = count_near(&img, half, LEVY_X, 0.0f, 20, dead);
		cr_expect_gt(n, 250u, "%s: the body has %u pixels of (%u, %u, %u)", png, n, dead[0], dead[1], dead[2]);
		cr_expect_eq(count_near(&img, half, LEVY_X, 0.0f, 20, OBSTACLE_FILL), 0u, "%s: the body's obstacle is drawn",
		             png);
		// It lies along +x: its head and its trunk are its colour, the
		// ground beside it (where a disc of r would be) is not.
		cr_expect(is(at(&img, half, LEVY_X + 0.64f * r, 0.0f), dead), "%s: no head", png);
		cr_expect(is(at(&img, half, LEVY_X - 0.3f * r, 0.0f), dead), "%s: no trunk", png);
		cr_expect(!is(at(&img, half, LEVY_X, 0.7f * r), dead) && !is(at(&img, half, LEVY_X, -0.7f * r), dead),
		          "%s: the body is not lying along its facing", png);
		cr_expect(!is(at(&img, half, LEVY_X + 1.15f * r, 0.0f), dead), "%s: the body is too long", png);
		free(img.rgb);
	}
}

Test(bodies, zoomed_out_a_body_is_a_bar_then_a_point)
{
	// 120 m across: 3.7 px a metre, a body of 2.9 px radius a bar 6 px by
	// 2; 400 m: 1.1 px a metre, a point. Never the obstacle's grey.
	const float halves[2] = {60.0f, 200.0f};
	const uint32_t least[2] = {8u, 1u};
	for (int k = 0; k < 2; ++k) {
		char yaml[32], png[32], args[256];
		snprintf(yaml, sizeof yaml, "far%d.yaml", k);
		snprintf(png, sizeof png, "far%d.png", k);
		write_scene(yaml, halves[k], 0.8f);
		snprintf(args, sizeof args, "%s --steps 2 --color army --no-hud --width %d --height %d --screenshot %s", yaml, W,
		         H, png);
		view_ok(DUMMY, args);
		image img = load_png(png);
		uint32_t n = count_near(&img, halves[k], LEVY_X, 0.0f, 3, MODES[2].dead);
		cr_expect_geq(n, least[k], "%s: the body has %u pixels", png, n);
		cr_expect_eq(count_near(&img, halves[k], LEVY_X, 0.0f, 3, OBSTACLE_FILL), 0u,
		             "%s: the body's obstacle is drawn", png);
		free(img.rgb);
	}
}

Test(bodies, none_without_body_radius_nor_in_a_replay_and_the_legend_counts_them)
{
	write_scene("bodies.yaml", 10.0f, 0.8f);
	write_scene("none.yaml", 10.0f, 0.0f);
	view_ok(DUMMY, "none.yaml --steps 2 --no-hud --width 640 --height 480 --screenshot none.png");
	// The same run replayed: the levy leaves the stream, and no body is
	// drawn (its scene is built at step 0, before anyone fell).
	throng_ok("run bodies.yaml --steps 2 --fields all --out run.thr");
	view_ok(DUMMY, "--replay run.thr --scene bodies.yaml --steps 2 --no-hud --width 640 --height 480 "
	               "--screenshot replay.png");
	image none = load_png("none.png"), replay = load_png("replay.png");
	cr_expect_eq(count_color(&none, MODES[0].dead), 0u);
	cr_expect_eq(count_color(&replay, MODES[0].dead), 0u);
	cr_expect_eq(count_color(&none, OBSTACLE_FILL), 0u);
	cr_expect_eq(count_color(&replay, OBSTACLE_FILL), 0u);
	free(none.rgb);
	free(replay.rgb);
	// The legend's bodies line, in the text's colour dimmed as the
	// bodies are: there with a body, not without, nor in the replay.
	view_ok(DUMMY, "bodies.yaml --steps 2 --width 640 --height 480 --screenshot hud.png");
	view_ok(DUMMY, "none.yaml --steps 2 --width 640 --height 480 --screenshot hud-none.png");
	view_ok(DUMMY, "--replay run.thr --scene bodies.yaml --steps 2 --width 640 --height 480 --screenshot hud-rep.png");
	image hud = load_png("hud.png"), hud_none = load_png("hud-none.png"), hud_rep = load_png("hud-rep.png");
	cr_expect_gt(count_color(&hud, BODIES_TEXT), 20u, "no bodies line in the legend");
	cr_expect_eq(count_color(&hud_none, BODIES_TEXT), 0u);
	cr_expect_eq(count_color(&hud_rep, BODIES_TEXT), 0u);
	free(hud.rgb);
	free(hud_none.rgb);
	free(hud_rep.rgb);
}
