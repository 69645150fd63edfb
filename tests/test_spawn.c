// SPDX-License-Identifier: MIT
// Spawns without overlap: the first state of every built-in scene
// (core/scene/scenario_spawn.h and the scenes' layouts), and the placement
// helper itself.
//
// first_state/*: every scene of `throng list` at small counts (the solo
// ring's edge cases among them) and about 1,000 agents, and the scenes
// with obstacles, walls or the densest random spawn at 100,000: no two
// agents overlap (throng_world_overlap_stats), none lies within an
// obstacle's radius plus its own, and none is closer than its radius to
// a wall.
// placement/*: the darts keep an undisturbed agent's first draw; the
// lattice places what the darts miss, near the first dart or anywhere in
// the rectangle; and no room left is an error naming the agent.
// file_room/*: a scenario file's spawn shape must have room for its
// group (docs/SCENARIOS.md, "spawn"): each shape kind at its room and one
// agent more, a single agent on a point, and 100,000 agents on
// zero-area shapes refused before anything is built (issue 30, defect 12).
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "scenario_spawn.h"
#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

static throng_scene* make(const char* name, uint32_t agents, uint64_t seed)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.seed = seed;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s x %u, seed %llu: %s", name, agents,
	             (unsigned long long)seed, throng_last_error());
	return s;
}

/// An obstacle, for sorting by x.
typedef struct obstacle {
	float x, y, r;
} obstacle;

static int by_x(const void* a, const void* b)
{
	float xa = ((const obstacle*)a)->x, xb = ((const obstacle*)b)->x;
	return (xa > xb) - (xa < xb);
}

/// Distance (m) from p to the segment ab.
static double segment_distance(throng_vec2 a, throng_vec2 b, throng_vec2 p)
{
	double dx = (double)b.x - a.x, dy = (double)b.y - a.y;
	double t = (((double)p.x - a.x) * dx + ((double)p.y - a.y) * dy) / (dx * dx + dy * dy);
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	double ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y;
	return sqrt(ex * ex + ey * ey);
}

/// Checks the scene's first state: no overlapping pair, nobody within an
/// obstacle (centre closer than the two radii) or closer than its radius
/// to a wall. Obstacles are found through a sweep along x, so 100,000
/// agents among 6,000 obstacles take O(N log M).
static void expect_clear(const char* name, uint32_t agents, uint64_t seed)
{
	throng_scene* s = make(name, agents, seed);
	const throng_world* w = throng_scene_world(s);
	uint32_t n = throng_world_agent_count(w);
	cr_assert_eq(n, agents, "%s", name);
	uint64_t pairs = 1;
	float deepest = 1.0f;
	cr_assert_eq(throng_world_overlap_stats(w, &pairs, &deepest), THRONG_OK);
	cr_expect_eq(pairs, 0u, "%s x %u, seed %llu: %llu overlapping pairs in the first state, deepest %.3f", name, agents,
	             (unsigned long long)seed, (unsigned long long)pairs, (double)deepest);

	uint32_t m = throng_world_obstacle_count(w), walls = throng_world_wall_count(w);
	obstacle* obs = malloc((m > 0 ? m : 1u) * sizeof *obs);
	cr_assert_not_null(obs);
	float reach = 0.0f;
	for (uint32_t k = 0; k < m; ++k) {
		throng_vec2 c;
		cr_assert_eq(throng_world_get_obstacle(w, k, &c, &obs[k].r), THRONG_OK);
		obs[k].x = c.x;
		obs[k].y = c.y;
		reach = obs[k].r > reach ? obs[k].r : reach;
	}
	qsort(obs, m, sizeof *obs, by_x);
	uint32_t inside = 0, at_wall = 0;
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
		// The first obstacle with x >= a.x - (reach + radius), then along x.
		float from = a.position.x - (reach + a.radius);
		uint32_t lo = 0, hi = m;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2u;
			if (obs[mid].x < from) {
				lo = mid + 1u;
			} else {
				hi = mid;
			}
		}
		for (uint32_t k = lo; k < m && obs[k].x <= a.position.x + reach + a.radius; ++k) {
			double dx = (double)a.position.x - obs[k].x, dy = (double)a.position.y - obs[k].y;
			if (sqrt(dx * dx + dy * dy) < (double)obs[k].r + a.radius) {
				if (inside++ == 0) {
					cr_log_error("%s: agent %u at (%g, %g) lies within the obstacle at (%g, %g), radius %g", name, id,
					             (double)a.position.x, (double)a.position.y, (double)obs[k].x, (double)obs[k].y,
					             (double)obs[k].r);
				}
			}
		}
		for (uint32_t k = 0; k < walls; ++k) {
			throng_vec2 p, q;
			cr_assert_eq(throng_world_get_wall(w, k, &p, &q), THRONG_OK);
			if (segment_distance(p, q, a.position) < (double)a.radius) {
				if (at_wall++ == 0) {
					cr_log_error("%s: agent %u at (%g, %g) is closer than its radius to wall %u", name, id,
					             (double)a.position.x, (double)a.position.y, k);
				}
			}
		}
	}
	free(obs);
	cr_expect_eq(inside, 0u, "%s x %u, seed %llu: %u agent-obstacle overlaps", name, agents, (unsigned long long)seed,
	             inside);
	cr_expect_eq(at_wall, 0u, "%s x %u, seed %llu: %u agents at a wall", name, agents, (unsigned long long)seed,
	             at_wall);
	throng_scene_destroy(s);
}

Test(first_state, every_scene_small_and_1000)
{
	// 1, 2, 13, 14 and 25 cross the solo ring's and room's limits (12 on
	// the ring, base room up to 24); 64 is the viewer's largest solo.
	static const uint32_t counts[] = {1, 2, 10, 13, 14, 25, 64, 999};
	static const uint64_t seeds[] = {1, 6};
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
			for (size_t e = 0; e < sizeof seeds / sizeof seeds[0]; ++e) {
				expect_clear(throng_scenario_at(k)->name, counts[c], seeds[e]);
			}
		}
	}
}

Test(first_state, large_scenes)
{
	// The obstacles (field), the walls (bottleneck), the lattices (charge)
	// and the densest darts (herd: 1.5 m^2 an agent of radius 0.4).
	static const char* const names[] = {"field", "charge", "bottleneck", "herd"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		expect_clear(names[k], 100000, 3);
	}
}

Test(first_state, the_definition_holds_each_agent_the_world_spawned)
{
	// A built-in states its agents once, as a block of its definition
	// (thr_scene_add_block); the build spawns the world's from it in
	// batches (thr_scene_spawn_batched), and the scene keeps it: its row k
	// (sf_model_row, made again as the writer makes it) is agent k's first
	// state.
	for (uint32_t s = 0; s < throng_scenario_count(); ++s) {
		const char* name = throng_scenario_at(s)->name;
		throng_scene* scene = thr_test_scene(name, 500, THRONG_ENGINE_SIMD);
		const sf_model* m = scene->def.model;
		const throng_world* w = throng_scene_world(scene);
		cr_assert_eq(m->row_count, 0, "%s", name);
		if (m->group_count > 0) {
			// armies states its units as groups, as a file would
			// (thr_scene_add_group): the builder spawns them as a file's,
			// and test_scene_save checks the saved file gives the same world.
			uint64_t stated = m->block.count;
			for (uint32_t g = 0; g < m->group_count; ++g) {
				stated += m->groups[g].count;
			}
			cr_assert_eq(stated, throng_world_agent_count(w), "%s", name);
			throng_scene_destroy(scene);
			continue;
		}
		cr_assert_eq(m->block.count, throng_world_agent_count(w), "%s", name);
		for (uint32_t id = 0; id < m->block.count; ++id) {
			throng_agent_state a;
			cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
			throng_agent_def row;
			sf_model_row(m, id, &row);
			const throng_agent_def* r = &row;
			cr_assert(a.position.x == r->position.x && a.position.y == r->position.y, "%s: agent %u", name, id);
			cr_assert(a.target.x == r->target.x && a.target.y == r->target.y, "%s: agent %u's target", name, id);
			cr_assert_eq(a.group, r->group, "%s: agent %u", name, id);
		}
		throng_scene_destroy(scene);
	}
}

Test(first_state, solo_starts_at_rest)
{
	// Nobody feels a force until the mouse moves: after a step every
	// velocity is still zero, ring and scattered agents alike.
	static const uint32_t counts[] = {13, 64, 1000};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
		throng_scene* s = make("solo", counts[c], 2);
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		const throng_world* w = throng_scene_world(s);
		for (uint32_t id = 0; id < counts[c]; ++id) {
			throng_agent_state a;
			cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
			cr_assert(a.velocity.x == 0.0f && a.velocity.y == 0.0f, "solo x %u: agent %u at (%g, %g) moves (%g, %g)",
			          counts[c], id, (double)a.position.x, (double)a.position.y, (double)a.velocity.x,
			          (double)a.velocity.y);
		}
		throng_scene_destroy(s);
	}
}

/// The smallest distance between two of the n points, over all pairs.
static double closest_pair(const throng_vec2* p, uint32_t n)
{
	double best = INFINITY;
	for (uint32_t i = 0; i < n; ++i) {
		for (uint32_t j = i + 1u; j < n; ++j) {
			double dx = (double)p[i].x - p[j].x, dy = (double)p[i].y - p[j].y;
			double d = sqrt(dx * dx + dy * dy);
			best = d < best ? d : best;
		}
	}
	return best;
}

Test(placement, an_undisturbed_agent_keeps_its_first_draw)
{
	// Two agents far apart in a 100 m square: each sits at its first draw,
	// lo + (hi - lo) u from draws 0 and 1 of (key, id) on the spawn stream.
	uint32_t key = thr_rng_key(9);
	const throng_vec2 lo = {-50.0f, 0.0f}, hi = {50.0f, 100.0f};
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "test", lo, hi, 2, 0.3f), THRONG_OK);
	throng_vec2 out[2];
	cr_assert_eq(thr_spawn_scatter(&sp, key, 40, 1, 0.3f, lo, hi, out), THRONG_OK);
	cr_assert_eq(thr_spawn_scatter(&sp, key, 41, 1, 0.3f, lo, hi, out + 1), THRONG_OK);
	for (uint32_t k = 0; k < 2; ++k) {
		float x = lo.x + 100.0f * thr_bits_to_unit(thr_rng_bits(key, 40u + k, 0, THR_STREAM_SPAWN));
		float y = lo.y + 100.0f * thr_bits_to_unit(thr_rng_bits(key, 40u + k, 1, THR_STREAM_SPAWN));
		cr_expect(out[k].x == x && out[k].y == y, "agent %u at (%g, %g), its first draw (%g, %g)", 40u + k,
		          (double)out[k].x, (double)out[k].y, (double)x, (double)y);
	}
	cr_expect_eq(sp.fallbacks, 0u);
	thr_spawn_free(&sp);
}

Test(placement, dense_rectangle_falls_back_to_the_lattice)
{
	// 64 discs of radius 0.5 in a 10 x 10 m square with an obstacle in
	// the middle: 0.57 of the area covered, where random darts (jammed at
	// 0.547) miss more and more, so the lattice places the last ones.
	// Nobody overlaps, all lie inside, and the same key places them the
	// same way.
	enum { N = 64 };
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {10.0f, 10.0f};
	throng_vec2 out[2][N];
	for (int run = 0; run < 2; ++run) {
		thr_spawn sp;
		cr_assert_eq(thr_spawn_init(&sp, "test", lo, hi, N + 1, 1.0f), THRONG_OK);
		thr_spawn_block(&sp, (throng_vec2){5.0f, 5.0f}, 1.0f);
		cr_assert_eq(thr_spawn_scatter(&sp, 77u, 0, N, 0.5f, lo, hi, out[run]), THRONG_OK, "%s", throng_last_error());
		cr_expect_gt(sp.fallbacks, 0u, "the darts never missed: the fallback went untested");
		thr_spawn_free(&sp);
	}
	cr_expect_eq(memcmp(out[0], out[1], sizeof out[0]), 0);
	cr_expect_geq(closest_pair(out[0], N), 1.0, "%.6f", closest_pair(out[0], N));
	for (uint32_t k = 0; k < N; ++k) {
		throng_vec2 p = out[0][k];
		cr_expect(p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y, "disc %u at (%g, %g)", k, (double)p.x,
		          (double)p.y);
		cr_expect_geq(hypot(p.x - 5.0, p.y - 5.0), 1.5, "disc %u at (%g, %g) overlaps the obstacle", k, (double)p.x,
		              (double)p.y);
	}
}

Test(placement, the_whole_lattice_takes_what_windows_miss)
{
	// A 1 km line (a rectangle of height 0) taken by discs of radius 0.5
	// every 1.02 m up to 998.6 m: the one free spot is its far end, which
	// darts hit with odds of 1 in 2,500 a try. The agent's darts miss, its
	// first lands far away, so the window around it is full too, and the
	// scan of the whole lattice places it at the far end.
	enum { BLOCKERS = 980 };
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {1000.0f, 0.0f};
	const uint32_t key = 3u;
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "line", lo, hi, BLOCKERS + 1, 0.5f), THRONG_OK);
	for (uint32_t k = 0; k < BLOCKERS; ++k) {
		thr_spawn_block(&sp, (throng_vec2){1.02f * (float)k, 0.0f}, 0.5f);
	}
	throng_vec2 out;
	cr_assert_eq(thr_spawn_scatter(&sp, key, 0, 1, 0.5f, lo, hi, &out), THRONG_OK, "%s", throng_last_error());
	float dart = 1000.0f * thr_bits_to_unit(thr_rng_bits(key, 0, 0, THR_STREAM_SPAWN));
	cr_assert_lt(dart, 990.0f, "the first dart fell at %g m, near the free end: pick another key", (double)dart);
	cr_expect_eq(sp.fallbacks, 1u);
	cr_expect(out.x >= 999.5f && out.x <= 1000.0f && out.y == 0.0f, "placed at (%g, %g)", (double)out.x,
	          (double)out.y);
	thr_spawn_free(&sp);
}

Test(placement, no_room_is_an_error_naming_the_agent)
{
	// A 0.5 m square holds one disc of radius 0.5, not two (its diagonal
	// is 0.71 m).
	const throng_vec2 lo = {0.0f, 0.0f}, hi = {0.5f, 0.5f};
	thr_spawn sp;
	cr_assert_eq(thr_spawn_init(&sp, "tiny", lo, hi, 8, 0.5f), THRONG_OK);
	throng_vec2 out[8];
	cr_assert_eq(thr_spawn_scatter(&sp, 5u, 0, 8, 0.5f, lo, hi, out), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(sp.count, 1u, "a 0.5 m square took %u discs of 1 m diameter", sp.count);
	cr_expect_not_null(strstr(throng_last_error(), "scenario tiny: no room for agent 1"), "%s", throng_last_error());
	thr_spawn_free(&sp);
}

// ---------------------------------------------------------------------------
// Room for a scenario file's group
// ---------------------------------------------------------------------------

/// A file with one group `g` of `count` agents of radius `radius` spawned
/// by `spawn` (a flow mapping), in a world 200 m across.
static void room_file(char* buf, size_t cap, uint32_t count, const char* radius, const char* spawn)
{
	snprintf(buf, cap,
	         "world: {bounds: {min: [-100, -100], max: [100, 100]}}\n"
	         "archetypes: {a: {slots: [{kind: seek}]}}\n"
	         "groups:\n"
	         "  g: {count: %u, archetype: a, radius: %s, spawn: %s}\n",
	         count, radius, spawn);
}

/// The file loads, with `count` agents.
static void assert_room(uint32_t count, const char* radius, const char* spawn)
{
	char text[1024];
	room_file(text, sizeof text, count, radius, spawn);
	thr_test_messages d = {.len = 0};
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("room.yaml", text, strlen(text), NULL, thr_test_collect, &d, &s), THRONG_OK,
	             "%u agents on %s: %s", count, spawn, d.text);
	cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), count);
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(s);
}

/// The file is refused with exactly one problem, at the spawn mapping
/// (line 4, column 45 + the length of count and radius), and nothing is
/// built.
static void assert_no_room(uint32_t count, const char* radius, const char* spawn, const char* message)
{
	char text[1024], want[2048];
	room_file(text, sizeof text, count, radius, spawn);
	int column = snprintf(NULL, 0, "  g: {count: %u, archetype: a, radius: %s, spawn: ", count, radius) + 1;
	snprintf(want, sizeof want, "room.yaml:4:%d: groups.g.spawn: %s\n", column, message);
	thr_test_messages d = {.len = 0};
	uint32_t problems = 0;
	cr_assert_eq(throng_scenario_validate_memory("room.yaml", text, strlen(text), thr_test_collect, &d, &problems),
	             THRONG_ERR_INVALID_ARGUMENT, "%u agents on %s validate", count, spawn);
	cr_assert_eq(problems, 1u, "%s", d.text);
	cr_assert_str_eq(d.text, want);
	throng_scene* s = (throng_scene*)0x1;
	cr_assert_eq(throng_scene_load_memory("room.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
	cr_assert(strncmp(throng_last_error(), want, strlen(want) - 1) == 0, "%s", throng_last_error());
}

#define ROOM_RULE                                                                                                     \
	"(expected pi * radius^2 for the first agent and 1/2 of that for each other one: a larger shape, fewer agents " \
	"or a smaller radius)"

// The room, worked by hand for agents of radius r = 0.5 (a body of
// pi/4 = 0.785398 m^2): the shape widened by r covers pi r^2 + E, and
// count - 1 <= floor(2 E / (pi r^2)) = floor(8 E / pi).
Test(file_room, each_shape_holds_its_room_and_no_more, .timeout = 60)
{
	// A line 10 m long: E = 2 * 10 * r = 10, 80 / pi = 25.46, room 26.
	// Widened it covers 10.785398 m^2; 27 agents need pi/4 (1 + 26/2).
	const char* line = "{shape: line, from: [0, 0], to: [10, 0]}";
	assert_room(26, "0.5", line);
	assert_no_room(27, "0.5", line,
	               "a line from (0, 0) to (10, 0) has room for 26 agents of radius 0.5, not 27: widened by that "
	               "radius it covers 10.7853985 m^2, they need 10.995574 m^2 " ROOM_RULE);
	// A ring of radius R = 5.1 (the annulus R +- r): E = pi r (4R - r) =
	// 9.95 pi, 79.6, room 80.
	const char* ring = "{shape: ring, radius: 5.1}";
	assert_room(80, "0.5", ring);
	assert_no_room(81, "0.5", ring,
	               "a ring of radius 5.1 has room for 80 agents of radius 0.5, not 81: widened by that radius it "
	               "covers 32.044243 m^2, they need 32.201324 m^2 " ROOM_RULE);
	// A disc of radius 2.1: E = pi R (R + 2r) = 6.51 pi, 52.08, room 53.
	const char* disc = "{shape: disc, radius: 2.1}";
	assert_room(53, "0.5", disc);
	assert_no_room(54, "0.5", disc,
	               "a disc of radius 2.1 has room for 53 agents of radius 0.5, not 54: widened by that radius it "
	               "covers 21.237165 m^2, they need 21.59845 m^2 " ROOM_RULE);
	// A rectangle 3 x 2: E = 6 + 2 (3 + 2) r = 11, 88 / pi = 28.01, room 29.
	const char* rect = "{shape: rectangle, size: [3, 2]}";
	assert_room(29, "0.5", rect);
	assert_no_room(30, "0.5", rect,
	               "a rectangle of size [3, 2] has room for 29 agents of radius 0.5, not 30: widened by that radius "
	               "it covers 11.7853985 m^2, they need 12.173672 m^2 " ROOM_RULE);
	// A grid of 4 columns 0.5 m apart, jitter 0.1: its hull is 1.7 m wide
	// and (rows - 1) 0.5 + 0.2 m high. 23 agents (6 rows, 2.7 m): E =
	// 1.7 * 2.7 + 2 * 4.4 * 0.5 = 8.99, 22.89, room 23; 24 agents have the
	// same rows and one too many.
	const char* grid = "{shape: grid, spacing: [0.5, 0.5], columns: 4, jitter: 0.1}";
	assert_room(23, "0.5", grid);
	assert_no_room(24, "0.5", grid,
	               "a grid of 4 columns, spacing [0.5, 0.5] and jitter 0.1 has room for 23 agents of radius 0.5, "
	               "not 24: widened by that radius it covers 9.775398 m^2, they need 9.817477 m^2 " ROOM_RULE);
}

// A single agent fits on a point (one body covers it), at the point;
// a second agent does not.
Test(file_room, one_agent_on_a_point_stays_valid)
{
	const char* points[] = {
		"{shape: line, from: [3, -4], to: [3, -4]}",
		"{shape: rectangle, center: [3, -4], size: [0, 0]}",
		"{shape: grid, center: [3, -4], spacing: [0, 0]}",
	};
	const char* described[] = {
		"a line from (3, -4) to (3, -4)",
		"a rectangle of size [0, 0]",
		"a grid of 2 columns, spacing [0, 0] and jitter 0",
	};
	for (int k = 0; k < 3; ++k) {
		char text[1024];
		room_file(text, sizeof text, 1, "0.3", points[k]);
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_load_memory("room.yaml", text, strlen(text), NULL, NULL, NULL, &s), THRONG_OK,
		             "%s", throng_last_error());
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(throng_scene_world(s), 0, &a), THRONG_OK);
		cr_assert(a.position.x == 3.0f && a.position.y == -4.0f, "%s: at (%g, %g)", points[k],
		          (double)a.position.x, (double)a.position.y);
		throng_scene_destroy(s);
		char want[1024];
		snprintf(want, sizeof want,
		         "%s has room for 1 agent of radius 0.3, not 2: widened by that radius it covers 0.28274336 m^2, "
		         "they need 0.42411503 m^2 " ROOM_RULE,
		         described[k]);
		assert_no_room(2, "0.3", points[k], want);
	}
}

// Issue 30, defect 12: 100,000 agents on a shape of no area validated and
// then cost every step its caps. Each is refused at validation, nothing
// built: a tiny ring and disc, a rectangle and a grid of width 0, a line
// and a point.
Test(file_room, a_crowd_on_no_area_is_refused_before_it_costs_anything)
{
	struct {
		const char* spawn;
		const char* message;
	} cases[] = {
		{"{shape: ring, radius: 1e-6}", "a ring of radius 1e-6 has room for 1 agent of radius 0.3, not 100000: "
		                                "widened by that radius it covers 0.28274524 m^2, they need 14137.31 m^2 "},
		{"{shape: disc, radius: 1e-6}", "a disc of radius 1e-6 has room for 1 agent of radius 0.3, not 100000: "
		                                "widened by that radius it covers 0.28274524 m^2, they need 14137.31 m^2 "},
		{"{shape: rectangle, size: [0, 10]}",
		 "a rectangle of size [0, 10] has room for 43 agents of radius 0.3, not 100000: widened by that radius it "
		 "covers 6.2827435 m^2, they need 14137.31 m^2 "},
		{"{shape: grid, spacing: [0, 0]}",
		 "a grid of 317 columns, spacing [0, 0] and jitter 0 has room for 1 agent of radius 0.3, not 100000: "
		 "widened by that radius it covers 0.28274336 m^2, they need 14137.31 m^2 "},
		{"{shape: grid, spacing: [0.01, 0]}",
		 "a grid of 317 columns, spacing [0.01, 0] and jitter 0 has room for 14 agents of radius 0.3, not 100000: "
		 "widened by that radius it covers 2.1787434 m^2, they need 14137.31 m^2 "},
		{"{shape: line, from: [0, 0], to: [0, 0]}",
		 "a line from (0, 0) to (0, 0) has room for 1 agent of radius 0.3, not 100000: widened by that radius it "
		 "covers 0.28274336 m^2, they need 14137.31 m^2 "},
		{"{shape: line, from: [0, 0], to: [1e-3, 0]}",
		 "a line from (0, 0) to (0.001, 0) has room for 1 agent of radius 0.3, not 100000: widened by that radius "
		 "it covers 0.28334337 m^2, they need 14137.31 m^2 "},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		char want[1024];
		snprintf(want, sizeof want, "%s" ROOM_RULE, cases[k].message);
		assert_no_room(100000, "0.3", cases[k].spawn, want);
	}
}
