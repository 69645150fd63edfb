// SPDX-License-Identifier: MIT
// Degenerate crowds: the neighbour, target and overlap caps bound the work
// per agent (docs/BEHAVIORS.md, "Neighbour caps"), and both engines still
// agree to the bit when the caps cut.
//
// The assertions are on the work counters the world and the metrics keep
// (candidates examined), not on time: before the caps, 20,000 agents on one
// point examined 20,000 candidates each.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "support.h"
#include "throng/behavior.h"
#include "throng/scenario_file.h"

#define KNOT_AGENTS 20000u

typedef struct knot_opts {
	float spread;          ///< 0: every agent on one point; else a disc of this radius
	uint32_t max_neighbors; ///< 0 = the default
	uint32_t group_every;  ///< > 0: every group_every-th agent (by id) in group 0, the others in 1
	bool same_group_only;  ///< for the neighbour slots
	bool target_rule;      ///< everyone seeks the nearest of group 1 (target rule, every step)
	uint32_t target_max_candidates; ///< the rule's cap, 0 = the default
	bool contacts;         ///< solid agents (off: the knot stays a knot, which the caps need)
	float separation_radius; ///< 0 = 1 m
} knot_opts;

/// A world of KNOT_AGENTS agents with unaligned avoidance, separation,
/// alignment and cohesion, piled on (250, 250) or spread in a small disc.
static throng_world* knot_world(throng_engine engine, uint32_t threads, const knot_opts* o)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){0.0f, 0.0f};
	def.bounds_max = (throng_vec2){500.0f, 500.0f};
	def.bounds_mode = THRONG_BOUNDS_CONTAIN;
	def.dt = 1.0f / 60.0f;
	def.capacity = KNOT_AGENTS;
	def.engine = engine;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	c.contact.enabled = o->contacts;
	const throng_behavior_kind kinds[4] = {THRONG_UNALIGNED_AVOID, THRONG_SEPARATION, THRONG_ALIGNMENT,
	                                       THRONG_COHESION};
	for (int k = 0; k < 4; ++k) {
		throng_slot s = throng_slot_default_def(kinds[k]);
		s.priority = k < 2;
		s.params.neighbor_radius = k != 1 ? 4.0f : o->separation_radius > 0.0f ? o->separation_radius : 1.0f;
		s.params.max_neighbors = o->max_neighbors;
		s.params.same_group_only = o->same_group_only;
		throng_controller_add(&c, s);
	}
	throng_slot seek = throng_slot_default_def(THRONG_SEEK);
	seek.params.target = o->target_rule ? THRONG_TARGET_AGENT : THRONG_TARGET_POINT;
	throng_controller_add(&c, seek);
	if (o->target_rule) {
		c.target_rule = (throng_target_rule){true, 1u, 30.0f, 1u, o->target_max_candidates};
	}
	uint32_t arch;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	throng_agent_def* defs = calloc(KNOT_AGENTS, sizeof *defs);
	cr_assert_not_null(defs);
	uint64_t rng = 7;
	for (uint32_t i = 0; i < KNOT_AGENTS; ++i) {
		defs[i] = throng_agent_default_def();
		float x = 250.0f, y = 250.0f;
		if (o->spread > 0.0f) {
			do {
				x = thr_test_uniform(&rng, -1.0f, 1.0f);
				y = thr_test_uniform(&rng, -1.0f, 1.0f);
			} while (x * x + y * y > 1.0f);
			x = 250.0f + x * o->spread;
			y = 250.0f + y * o->spread;
		}
		defs[i].position = (throng_vec2){x, y};
		defs[i].velocity = (throng_vec2){thr_test_uniform(&rng, -0.9f, 0.9f), thr_test_uniform(&rng, -0.9f, 0.9f)};
		defs[i].archetype = arch;
		defs[i].group = o->group_every > 0 && i % o->group_every != 0 ? 1u : 0u;
		defs[i].target = (throng_vec2){thr_test_uniform(&rng, 10.0f, 490.0f), thr_test_uniform(&rng, 10.0f, 490.0f)};
	}
	cr_assert_eq(throng_world_spawn(w, defs, KNOT_AGENTS, NULL), THRONG_OK, "%s", throng_last_error());
	free(defs);
	return w;
}

/// Steps a fresh knot world `steps` times; returns its hash and stats.
static uint64_t run_knot(throng_engine engine, uint32_t threads, const knot_opts* o, int steps,
                         throng_world_stats* stats, throng_quality* quality)
{
	throng_world* w = knot_world(engine, threads, o);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, 0.0f, &m), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < steps; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
	}
	uint64_t h = throng_world_hash(w);
	*stats = throng_world_get_stats(w);
	if (quality != NULL) {
		*quality = throng_metrics_result(m);
	}
	throng_metrics_destroy(m);
	throng_world_destroy(w);
	return h;
}

static void expect_same_stats(const throng_world_stats* a, const throng_world_stats* b, const char* what)
{
	cr_expect_eq(a->neighbor_candidates, b->neighbor_candidates, "%s: candidates %llu vs %llu", what,
	             (unsigned long long)a->neighbor_candidates, (unsigned long long)b->neighbor_candidates);
	cr_expect_eq(a->neighbor_most_candidates, b->neighbor_most_candidates, "%s", what);
	cr_expect_eq(a->neighbor_most_met, b->neighbor_most_met, "%s", what);
	cr_expect_eq(a->neighbor_capped, b->neighbor_capped, "%s", what);
	cr_expect_eq(a->target_most_candidates, b->target_most_candidates, "%s", what);
	cr_expect_eq(a->target_capped, b->target_capped, "%s", what);
}

Test(caps, one_point_work_is_bounded_and_engines_agree, .timeout = 120)
{
	// Every agent on one point: every candidate counts for every slot, so a
	// walk stops after max_neighbors neighbours (plus itself, when it comes
	// first): at most M + 1 candidates instead of 20,000.
	knot_opts o = {0};
	const uint32_t M = THRONG_DEFAULT_MAX_NEIGHBORS;
	throng_world_stats ss, s1, s2;
	throng_quality qs, q1, q2;
	uint64_t hs = run_knot(THRONG_ENGINE_SCALAR, 1, &o, 2, &ss, &qs);
	uint64_t h1 = run_knot(THRONG_ENGINE_SIMD, 1, &o, 2, &s1, &q1);
	uint64_t h2 = run_knot(THRONG_ENGINE_SIMD, 3, &o, 2, &s2, &q2);
	cr_expect_eq(hs, h1, "scalar %016llx, simd %016llx", (unsigned long long)hs, (unsigned long long)h1);
	cr_expect_eq(h1, h2, "simd 1 thread %016llx, 3 threads %016llx", (unsigned long long)h1, (unsigned long long)h2);
	expect_same_stats(&ss, &s1, "scalar vs simd");
	expect_same_stats(&s1, &s2, "1 vs 3 threads");
	// The first step: all on the point. The second: still a knot well
	// inside every radius (an agent moves at most ~2 cm a step).
	cr_expect_eq(s1.neighbor_most_met, M);
	cr_expect_leq(s1.neighbor_most_candidates, M + 1u, "most candidates %u", s1.neighbor_most_candidates);
	cr_expect_eq(s1.neighbor_capped, 2u * KNOT_AGENTS);
	cr_expect_leq(s1.neighbor_candidates, 2u * KNOT_AGENTS * (uint64_t)(M + 1u));
	// The overlap count examines at most THRONG_OVERLAP_MAX_EXAMINED pairs
	// an agent; every agent but the last few of the knot stops there.
	cr_expect_eq(q1.overlap_most_examined, THRONG_OVERLAP_MAX_EXAMINED);
	cr_expect_geq(q1.overlap_capped, 2u * (KNOT_AGENTS - THRONG_OVERLAP_MAX_EXAMINED));
	cr_expect_leq(q1.overlaps, 2u * (uint64_t)KNOT_AGENTS * THRONG_OVERLAP_MAX_EXAMINED);
	cr_expect_gt(q1.overlaps, 0u);
	cr_expect(qs.overlaps == q1.overlaps && qs.deepest_overlap == q1.deepest_overlap &&
	                  qs.overlap_capped == q1.overlap_capped && q2.overlaps == q1.overlaps,
	          "overlaps: scalar %llu, simd %llu, simd 3 threads %llu", (unsigned long long)qs.overlaps,
	          (unsigned long long)q1.overlaps, (unsigned long long)q2.overlaps);
}

Test(caps, one_point_contacts_are_bounded_and_engines_agree, .timeout = 120)
{
	// The same knot, solid: every agent lists at most
	// THRONG_CONTACT_MAX_PAIRS others, so the first step's contact pass is
	// bounded (every agent capped, each of the 20,000 pairs among the
	// first ones counted once), the knot starts to part (two agents on one
	// point part along x, the lower id to -x), and the engines and thread
	// counts agree to the bit.
	knot_opts o = {.contacts = true};
	throng_world_stats ss, s1, s3;
	uint64_t hs = run_knot(THRONG_ENGINE_SCALAR, 1, &o, 1, &ss, NULL);
	uint64_t h1 = run_knot(THRONG_ENGINE_SIMD, 1, &o, 1, &s1, NULL);
	uint64_t h3 = run_knot(THRONG_ENGINE_SIMD, 3, &o, 1, &s3, NULL);
	cr_expect_eq(hs, h1, "scalar %016llx, simd %016llx", (unsigned long long)hs, (unsigned long long)h1);
	cr_expect_eq(h1, h3, "simd 1 thread %016llx, 3 threads %016llx", (unsigned long long)h1, (unsigned long long)h3);
	cr_expect_eq(s1.contact_capped, KNOT_AGENTS);
	cr_expect_eq(ss.contact_capped, KNOT_AGENTS);
	cr_expect_eq(s3.contacts, s1.contacts);
	cr_expect_eq(ss.contacts, s1.contacts);
	// Each agent lists the first 32 others in id order (one cell): a pair
	// (i, j) is counted by the lower id i, when j is among i's first 32.
	// Agent i < 32 lists 0..32 minus itself (32 - i of them above it);
	// every other agent lists 0..31, all below it.
	uint64_t expect = 0;
	for (uint32_t i = 0; i < THRONG_CONTACT_MAX_PAIRS; ++i) {
		expect += THRONG_CONTACT_MAX_PAIRS - i;
	}
	cr_expect_eq(s1.contacts, expect, "contacts %llu, expected %llu", (unsigned long long)s1.contacts,
	             (unsigned long long)expect);
}

Test(caps, other_group_knot_stops_at_the_candidate_cap, .timeout = 120)
{
	// One point, one agent in 100 in group 0, the rest in group 1, neighbour
	// slots of the same group only, max_neighbors 3. Group 1 fills its slots
	// within a few candidates; a group-0 agent meets about one of its own in
	// its first 3 * THRONG_CANDIDATES_PER_NEIGHBOR candidates and stops
	// there, at the candidate cap, instead of walking all 20,000.
	knot_opts o = {.max_neighbors = 3, .group_every = 100, .same_group_only = true};
	const uint32_t C = 3u * THRONG_CANDIDATES_PER_NEIGHBOR;
	throng_world_stats ss, s1, s3;
	uint64_t hs = run_knot(THRONG_ENGINE_SCALAR, 1, &o, 1, &ss, NULL);
	uint64_t h1 = run_knot(THRONG_ENGINE_SIMD, 1, &o, 1, &s1, NULL);
	uint64_t h3 = run_knot(THRONG_ENGINE_SIMD, 3, &o, 1, &s3, NULL);
	cr_expect_eq(hs, h1);
	cr_expect_eq(h1, h3);
	expect_same_stats(&ss, &s1, "scalar vs simd");
	expect_same_stats(&s1, &s3, "1 vs 3 threads");
	cr_expect_eq(s1.neighbor_most_met, 3u);
	cr_expect_eq(s1.neighbor_most_candidates, C, "most candidates %u", s1.neighbor_most_candidates);
	cr_expect_eq(s1.neighbor_capped, KNOT_AGENTS);
	cr_expect_leq(s1.neighbor_candidates, (uint64_t)KNOT_AGENTS * C);
}

Test(caps, dense_disc_with_targets, .timeout = 120)
{
	// 20,000 agents in a disc of 3 m (700 per square metre), two groups
	// (even ids in group 0), every agent choosing the nearest of group 1
	// within 30 m and seeking it, with the rule's max_candidates 1000: each
	// choice examines at most 1000 agents of the 20,000 in sight.
	knot_opts o = {.spread = 3.0f, .group_every = 2, .target_rule = true, .target_max_candidates = 1000};
	throng_world_stats ss, s1, s3;
	throng_quality qs, q1;
	uint64_t hs = run_knot(THRONG_ENGINE_SCALAR, 1, &o, 3, &ss, &qs);
	uint64_t h1 = run_knot(THRONG_ENGINE_SIMD, 1, &o, 3, &s1, &q1);
	uint64_t h3 = run_knot(THRONG_ENGINE_SIMD, 3, &o, 3, &s3, NULL);
	cr_expect_eq(hs, h1, "scalar %016llx, simd %016llx", (unsigned long long)hs, (unsigned long long)h1);
	cr_expect_eq(h1, h3);
	expect_same_stats(&ss, &s1, "scalar vs simd");
	expect_same_stats(&s1, &s3, "1 vs 3 threads");
	cr_expect_eq(s1.target_most_candidates, 1000u);
	cr_expect_eq(s1.target_capped, 3u * KNOT_AGENTS, "target choices cut: %llu",
	             (unsigned long long)s1.target_capped);
	cr_expect_eq(s1.neighbor_most_met, THRONG_DEFAULT_MAX_NEIGHBORS);
	cr_expect_leq(s1.neighbor_most_candidates, THRONG_DEFAULT_MAX_NEIGHBORS * THRONG_CANDIDATES_PER_NEIGHBOR);
	cr_expect_gt(s1.neighbor_capped, 0u);
	cr_expect_leq(q1.overlap_most_examined, THRONG_OVERLAP_MAX_EXAMINED);
	cr_expect_gt(q1.overlap_capped, 0u);
	cr_expect(qs.overlaps == q1.overlaps && qs.deepest_overlap == q1.deepest_overlap);
	// The chosen targets are the same in both engines.
	throng_world* a = knot_world(THRONG_ENGINE_SCALAR, 1, &o);
	throng_world* b = knot_world(THRONG_ENGINE_SIMD, 2, &o);
	cr_assert_eq(throng_world_step(a), THRONG_OK);
	cr_assert_eq(throng_world_step(b), THRONG_OK);
	uint32_t with_target = 0;
	for (uint32_t id = 0; id < KNOT_AGENTS; ++id) {
		throng_agent_state sa, sb;
		cr_assert_eq(throng_world_get_agent(a, id, &sa), THRONG_OK);
		cr_assert_eq(throng_world_get_agent(b, id, &sb), THRONG_OK);
		cr_assert_eq(sa.target_agent, sb.target_agent, "agent %u: target %u vs %u", id, sa.target_agent,
		             sb.target_agent);
		with_target += sa.target_agent != THRONG_NO_AGENT ? 1u : 0u;
	}
	cr_expect_eq(with_target, KNOT_AGENTS);
	throng_world_destroy(a);
	throng_world_destroy(b);
}

/// The counts of the neighbour walks both engines share, after `steps`
/// counted steps of a fresh knot world.
static throng_world_counters count_knot(throng_engine engine, uint32_t threads, const knot_opts* o, int steps)
{
	throng_world* w = knot_world(engine, threads, o);
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < steps; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	throng_world_counters total;
	cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
	throng_world_destroy(w);
	return total;
}

Test(caps, closed_walks_count_what_the_reference_counts, .timeout = 120)
{
	// 20,000 agents in a disc of 146 m (0.3 a square metre; 4 m cells, ~14
	// agents a row of 3 cells, ~15 within the 4 m of every slot) with
	// max_neighbors 8 (32 candidates at most): many walks close, all four
	// slots full, in their second row of cells. The SIMD walk measures
	// candidates ahead of the slots taking them; the cells, candidates and
	// agents in radius it counts are still those up to where the lane
	// closed, as the reference's walk counts them.
	knot_opts o = {.spread = 146.0f, .max_neighbors = 8, .separation_radius = 4.0f};
	const throng_world_counters s = count_knot(THRONG_ENGINE_SCALAR, 1, &o, 2);
	const throng_world_counters v = count_knot(THRONG_ENGINE_SIMD, 1, &o, 2);
	const throng_world_counters v3 = count_knot(THRONG_ENGINE_SIMD, 3, &o, 2);
	cr_assert_eq(s.neighbor_walks, 2u * KNOT_AGENTS);
	// Closed before their last row: fewer cells than 3 rows of 3 (some
	// walks scan 2 x 2 cells) and at most 32 candidates a walk.
	cr_expect_lt(s.neighbor_cells, 2u * KNOT_AGENTS * 7u, "cells %llu", (unsigned long long)s.neighbor_cells);
	cr_expect_leq(s.neighbor_candidates, 2u * KNOT_AGENTS * 32u);
	cr_expect_gt(s.neighbor_taken[THRONG_SEPARATION], 2u * KNOT_AGENTS * 6u, "separation took %llu",
	             (unsigned long long)s.neighbor_taken[THRONG_SEPARATION]);
#define SAME(f)                                                                                                        \
	cr_expect_eq(s.f, v.f, #f ": scalar %llu, simd %llu", (unsigned long long)s.f, (unsigned long long)v.f);       \
	cr_expect_eq(v.f, v3.f, #f ": simd 1 thread %llu, 3 threads %llu", (unsigned long long)v.f, (unsigned long long)v3.f)
	SAME(neighbor_cells);
	SAME(neighbor_candidates);
	SAME(neighbor_in_radius);
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		SAME(neighbor_taken[k]);
	}
#undef SAME
}

Test(caps, sparse_world_never_reaches_a_cap)
{
	// A crowd of ordinary density: the caps do not cut, and the counters say
	// so (what docs/BEHAVIORS.md measures for the built-in scenes).
	knot_opts o = {.spread = 200.0f};
	throng_world_stats s;
	throng_quality q;
	run_knot(THRONG_ENGINE_SIMD, 2, &o, 2, &s, &q);
	cr_expect_eq(s.neighbor_capped, 0u);
	cr_expect_eq(q.overlap_capped, 0u);
	cr_expect_lt(s.neighbor_most_met, 64u);
	cr_expect_gt(s.neighbor_candidates, 0u);
}

Test(caps, engines_take_the_first_neighbours_in_cell_order)
{
	// Hand-worked: agent 0 at (10,10) and three neighbours 1 m away, ids 1,
	// 2, 3 at (11,10), (10,11), (9,10), all in one grid cell (4 m cells).
	// Separation, radius 2, max_speed 1: each pushes 0.5 away. Both engines
	// visit a cell by id, so with max_neighbors 2 agent 0 takes ids 1 and
	// 2: (-0.5,0) + (0,-0.5); without a cap the third cancels the first.
	const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
	const uint32_t caps[2] = {0, 2};
	const float expect_x[2] = {0.0f, -0.5f};
	for (int e = 0; e < 2; ++e) {
		for (int c = 0; c < 2; ++c) {
			throng_world_def def = throng_world_default_def();
			def.bounds_min = (throng_vec2){0.0f, 0.0f};
			def.bounds_max = (throng_vec2){40.0f, 40.0f};
			def.cell_size = 4.0f;
			def.engine = engines[e];
			def.record_forces = true;
			throng_world* w = NULL;
			cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
			throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
			throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
			s.params.neighbor_radius = 2.0f;
			s.params.max_neighbors = caps[c];
			throng_controller_add(&ctl, s);
			uint32_t arch;
			cr_assert_eq(throng_world_add_archetype(w, &ctl, &arch), THRONG_OK);
			const throng_vec2 at[4] = {{10.0f, 10.0f}, {11.0f, 10.0f}, {10.0f, 11.0f}, {9.0f, 10.0f}};
			throng_agent_def defs[4];
			for (int k = 0; k < 4; ++k) {
				defs[k] = throng_agent_default_def();
				defs[k].position = at[k];
				defs[k].max_speed = 1.0f;
				defs[k].max_force = 10.0f;
				defs[k].archetype = arch;
			}
			cr_assert_eq(throng_world_spawn(w, defs, 4, NULL), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			throng_vec2 f;
			cr_assert_eq(throng_world_slot_force(w, 0, 0, &f), THRONG_OK, "%s", throng_last_error());
			cr_expect(f.x == expect_x[c] && f.y == -0.5f, "engine %d, max_neighbors %u: force (%g, %g), expected (%g, -0.5)",
			          e, caps[c], (double)f.x, (double)f.y, (double)expect_x[c]);
			throng_world_stats st = throng_world_get_stats(w);
			cr_expect_eq(st.neighbor_capped, caps[c] == 2 ? 4u : 0u, "engine %d: capped %llu", e, // each has 3 neighbours
			             (unsigned long long)st.neighbor_capped);
			throng_world_destroy(w);
		}
	}
}

/// Collects formatted diagnostics.
static void collect(void* user, const throng_diagnostic* d)
{
	char* buf = user;
	size_t len = strlen(buf);
	if (len < 1000) {
		throng_diagnostic_format(d, buf + len, 1024 - len);
		strncat(buf, "\n", 1023 - strlen(buf));
	}
}

static const char* caps_file(const char* value, char* buf, size_t cap)
{
	snprintf(buf, cap,
	         "archetypes:\n"
	         "  a:\n"
	         "    slots:\n"
	         "      - {kind: separation, neighbor_radius: 2}\n"
	         "      - {kind: cohesion, max_neighbors: %s}\n"
	         "groups: {g: {count: 3, archetype: a, spawn: {shape: ring, radius: 1}}}\n",
	         value);
	return buf;
}

Test(caps, scenario_file_key)
{
	char text[1024], diag[1024] = "";
	throng_scene* s = NULL;
	const char* t = caps_file("7", text, sizeof text);
	cr_assert_eq(throng_scene_load_memory("caps.yaml", t, strlen(t), NULL, collect, diag, &s), THRONG_OK, "%s",
	             diag);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(throng_scene_world(s), 0, &c), THRONG_OK);
	cr_expect_eq(c.slots[0].params.max_neighbors, 0u); // absent: the default
	cr_expect_eq(c.slots[1].params.max_neighbors, 7u);
	// Saved and loaded again: kept (and left out where it is the default).
	char* saved = NULL;
	size_t len = 0;
	cr_assert_eq(throng_scene_save_string(s, &saved, &len), THRONG_OK, "%s", throng_last_error());
	cr_expect_not_null(strstr(saved, "max_neighbors: 7"), "%s", saved);
	cr_expect_null(strstr(saved, "max_neighbors: 0"), "%s", saved);
	throng_scene* again = NULL;
	cr_assert_eq(throng_scene_load_memory("again.yaml", saved, len, NULL, NULL, NULL, &again), THRONG_OK, "%s",
	             throng_last_error());
	cr_assert_eq(throng_world_get_controller(throng_scene_world(again), 0, &c), THRONG_OK);
	cr_expect_eq(c.slots[1].params.max_neighbors, 7u);
	free(saved);
	throng_scene_destroy(again);
	throng_scene_destroy(s);

	// 0 is the default, written out.
	t = caps_file("0", text, sizeof text);
	cr_expect_eq(throng_scenario_validate_memory("caps.yaml", t, strlen(t), NULL, NULL, NULL), THRONG_OK);
	// Refused: negative, fractional, too large, not a number; each names the
	// file, line, column and field.
	const char* bad[4] = {"-1", "2.5", "1000001", "many"};
	for (int k = 0; k < 4; ++k) {
		diag[0] = '\0';
		uint32_t problems = 0;
		t = caps_file(bad[k], text, sizeof text);
		cr_expect_eq(throng_scenario_validate_memory("caps.yaml", t, strlen(t), collect, diag, &problems),
		             THRONG_ERR_INVALID_ARGUMENT, "max_neighbors: %s accepted", bad[k]);
		cr_expect_eq(problems, 1u, "%s: %s", bad[k], diag);
		cr_expect_not_null(strstr(diag, "caps.yaml:5:"), "%s: %s", bad[k], diag);
		cr_expect_not_null(strstr(diag, "max_neighbors"), "%s: %s", bad[k], diag);
	}
	// Only the neighbour behaviours take it.
	const char* seek = "archetypes: {a: {slots: [{kind: seek, max_neighbors: 4}]}}\n"
	                   "groups: {g: {count: 1, archetype: a, spawn: {shape: ring, radius: 1}}}\n";
	cr_expect_eq(throng_scenario_validate_memory("seek.yaml", seek, strlen(seek), NULL, NULL, NULL),
	             THRONG_ERR_INVALID_ARGUMENT);
}

/// docs/NAME, found from this file's path, into buf.
static void read_doc(const char* name, char* buf, size_t cap)
{
	const char* file = __FILE__;
	const char* slash = strrchr(file, '/');
	int len = slash != NULL ? (int)(slash - file) : 0;
	char path[1024];
	snprintf(path, sizeof path, "%.*s%sdocs/%s", len, file, len > 0 ? "/../" : "../", name);
	size_t n = thr_test_slurp(path, buf, cap);
	cr_assert_lt(n, cap - 1, "%s is larger than the test's buffer", path);
}

/// The line of `text` holding `needle`, copied into line; fails when none.
static void line_with(const char* text, const char* needle, char* line, size_t cap)
{
	const char* at = strstr(text, needle);
	cr_assert_not_null(at, "no line holds \"%s\"", needle);
	const char* start = at;
	while (start > text && start[-1] != '\n') {
		--start;
	}
	const char* end = strchr(at, '\n');
	size_t n = end != NULL ? (size_t)(end - start) : strlen(start);
	snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), start);
}

// Issue 30, defect 11: docs/SCENARIOS.md gave max_neighbors 0 as "= 128"
// while the code (thr_max_neighbors) takes THRONG_DEFAULT_MAX_NEIGHBORS,
// 256, as behavior.h and docs/BEHAVIORS.md say. Every doc that states the
// default or the candidate cap derived from it states the code's numbers.
Test(caps, docs_state_the_default_the_code_takes)
{
	static char doc[262144];
	char line[4096], want[128];
	read_doc("SCENARIOS.md", doc, sizeof doc);
	line_with(doc, "| `max_neighbors` |", line, sizeof line);
	snprintf(want, sizeof want, "| 0 (= `THRONG_DEFAULT_MAX_NEIGHBORS`, %d) |", THRONG_DEFAULT_MAX_NEIGHBORS);
	cr_expect_not_null(strstr(line, want), "docs/SCENARIOS.md: %s\n(expected %s)", line, want);
	read_doc("BEHAVIORS.md", doc, sizeof doc);
	line_with(doc, "| neighbour slots (", line, sizeof line);
	snprintf(want, sizeof want, "| `max_neighbors: 0` = `THRONG_DEFAULT_MAX_NEIGHBORS` = %d |",
	         THRONG_DEFAULT_MAX_NEIGHBORS);
	cr_expect_not_null(strstr(line, want), "docs/BEHAVIORS.md: %s\n(expected %s)", line, want);
	line_with(doc, "| an agent's neighbour walk |", line, sizeof line);
	int cap = THRONG_CANDIDATES_PER_NEIGHBOR * THRONG_DEFAULT_MAX_NEIGHBORS;
	snprintf(want, sizeof want, "| %d,%03d |", cap / 1000, cap % 1000);
	cr_expect_not_null(strstr(line, want), "docs/BEHAVIORS.md: %s\n(expected %s)", line, want);
	// And the code: a slot's default 0 takes THRONG_DEFAULT_MAX_NEIGHBORS.
	throng_behavior_params p = throng_slot_default_def(THRONG_SEPARATION).params;
	cr_expect_eq(p.max_neighbors, 0u);
	cr_expect_eq(thr_max_neighbors(&p), 256u);
}
