// SPDX-License-Identifier: MIT
// Sources (issue 33, item 6): agents added at a rate, worked by hand; never
// on top of another; waiting and saying so; the same in both engines, on
// any thread count and across a checkpoint; bad defs refused.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

/// A contained `length` x 20 m world (dt 0.25 s, exact in binary) with
/// one archetype: seek its target point and keep apart, or nothing at all
/// when `still`.
static throng_world* make_long_world(throng_engine engine, uint32_t threads, bool still, float length)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.threads = threads;
	d.threads_policy = THRONG_THREADS_FIXED;
	d.bounds_min = (throng_vec2){0.0f, 0.0f};
	d.bounds_max = (throng_vec2){length, 20.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.dt = 0.25f;
	d.seed = 7;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	if (!still) {
		cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK)), 0);
		cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION)), 0);
	}
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// make_long_world, 60 m long.
static throng_world* make_world(throng_engine engine, uint32_t threads, bool still)
{
	return make_long_world(engine, threads, still, 60.0f);
}

/// A source in the box [x0, x1] x [y0, y1], `rate` a second.
static throng_source_def box_source(float x0, float y0, float x1, float y1, float rate)
{
	throng_source_def s = throng_source_default_def();
	s.min = (throng_vec2){x0, y0};
	s.max = (throng_vec2){x1, y1};
	s.rate = rate;
	s.agent.radius = 0.3f;
	s.agent.max_speed = 1.3f;
	s.agent.target = (throng_vec2){58.0f, 10.0f};
	return s;
}

/// The events of the last step that came from source `src`, of `kind`.
static uint32_t source_events(const throng_world* w, throng_event_kind kind, uint32_t src)
{
	const throng_event* e = NULL;
	uint32_t n = 0, got = 0;
	cr_assert_eq(throng_world_events(w, &e, &n), THRONG_OK);
	for (uint32_t k = 0; k < n; ++k) {
		got += e[k].kind == kind && e[k].source == src;
	}
	return got;
}

/// Fails unless no two live agents overlap (centres at least the two radii apart).
static void assert_no_overlap(const throng_world* w)
{
	const throng_view v = throng_world_view(w);
	for (uint32_t i = 0; i < v.count; ++i) {
		for (uint32_t j = i + 1u; j < v.count; ++j) {
			const float dx = v.x[i] - v.x[j], dy = v.y[i] - v.y[j], r = v.radius[i] + v.radius[j];
			cr_assert_geq(dx * dx + dy * dy, r * r * (1.0f - 1e-6f), "agents %u and %u overlap", v.id[i], v.id[j]);
		}
	}
}

Test(sources, the_schedule_worked_by_hand)
{
	// Rate 2 /s from 0.5 s, 5 in all, dt 0.25 s: agent k is due at
	// 0.5 + k/2 s, added by the step that ends after it: steps ending at
	// 0.75 (k = 0), 1.25, 1.75, 2.25, 2.75 s.
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 1, true);
	throng_source_def s = box_source(10.0f, 5.0f, 20.0f, 15.0f, 2.0f);
	s.start = 0.5f;
	s.count = 5;
	strcpy(s.name, "gate");
	uint32_t id = 99;
	cr_assert_eq(throng_world_add_source(w, &s, &id), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(id, 0u);
	const uint32_t want[14] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5};
	for (uint32_t k = 0; k < 14; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_agent_count(w), want[k], "after step %u (%g s)", k + 1u, (k + 1) * 0.25);
		const uint32_t fresh = want[k] - (k > 0 ? want[k - 1] : 0u);
		cr_assert_eq(source_events(w, THRONG_EVENT_ADDED, 0), fresh, "step %u", k + 1u);
		throng_source_state st;
		cr_assert_eq(throng_world_get_source(w, 0, NULL, &st), THRONG_OK);
		cr_assert_eq(st.added, want[k]);
		cr_assert_eq(st.waiting, 0u);
		cr_assert_eq(st.done, want[k] == 5u);
	}
	// Each new agent is inside the box, with the template's settings.
	throng_agent_state a;
	for (uint32_t k = 0; k < 5; ++k) {
		cr_assert_eq(throng_world_get_agent(w, k, &a), THRONG_OK);
		cr_assert(a.position.x >= 10.0f && a.position.x <= 20.0f && a.position.y >= 5.0f && a.position.y <= 15.0f);
		cr_assert_eq(a.radius, 0.3f);
		cr_assert_eq(a.max_speed, 1.3f);
	}
	uint32_t found = 9;
	cr_assert_eq(throng_world_find_source(w, "gate", &found), THRONG_OK);
	cr_assert_eq(found, 0u);
	cr_assert_eq(throng_world_find_source(w, "nowhere", &found), THRONG_ERR_NOT_FOUND);
	const throng_world_stats stats = throng_world_get_stats(w);
	cr_assert_eq(stats.agents_added, 5u);
	throng_world_destroy(w);
}

Test(sources, a_stop_time_ends_the_flow)
{
	// Rate 4 /s from 0 s until 1 s, dt 0.25: due at 0, 0.25, 0.5, 0.75 s; the
	// one at 1.0 s is not (stop excludes it): 4 in all, then done.
	throng_world* w = make_world(THRONG_ENGINE_SCALAR, 1, true);
	throng_source_def s = box_source(10.0f, 5.0f, 20.0f, 15.0f, 4.0f);
	s.stop = 1.0f;
	cr_assert_eq(throng_world_add_source(w, &s, NULL), THRONG_OK, "%s", throng_last_error());
	const uint32_t want[6] = {1, 2, 3, 4, 4, 4};
	for (uint32_t k = 0; k < 6; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		cr_assert_eq(throng_world_agent_count(w), want[k], "after step %u", k + 1u);
	}
	throng_source_state st;
	cr_assert_eq(throng_world_get_source(w, 0, NULL, &st), THRONG_OK);
	cr_assert(st.done);
	throng_world_destroy(w);
}

Test(sources, a_full_door_waits_and_says_so_then_catches_up)
{
	// A 2 m door segment, 1 agent of radius 0.3 m every 0.25 s, nobody
	// moving: the door holds only a few, then every spawn waits.
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 1, true);
	throng_source_def s = box_source(0, 0, 0, 0, 4.0f);
	s.shape = THRONG_SOURCE_SEGMENT;
	s.from = (throng_vec2){30.0f, 9.0f};
	s.to = (throng_vec2){30.0f, 11.0f};
	cr_assert_eq(throng_world_add_source(w, &s, NULL), THRONG_OK, "%s", throng_last_error());
	uint32_t waited = 0;
	for (int k = 0; k < 40; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		assert_no_overlap(w);
		const uint32_t wt = source_events(w, THRONG_EVENT_WAITED, 0);
		cr_assert_leq(wt, 1u, "one WAITED a source and step");
		waited += wt;
	}
	// At most 4 bodies of 0.6 m fit along 2 m with centres on the segment.
	const uint32_t held = throng_world_agent_count(w);
	cr_assert(held >= 2u && held <= 4u, "%u agents on a 2 m door", held);
	throng_source_state st;
	cr_assert_eq(throng_world_get_source(w, 0, NULL, &st), THRONG_OK);
	cr_assert_eq(st.added, held);
	cr_assert_eq(st.waiting, 40u - held, "every due agent is added or waiting");
	cr_assert_eq(st.waited_steps, waited);
	cr_assert_geq(waited, 30u);
	// Clear the door: the source adds again, at most its rate's share plus
	// THRONG_SOURCE_CATCH_UP a step, until the door is full again.
	uint32_t ids[4];
	const throng_view v = throng_world_view(w);
	memcpy(ids, v.id, held * sizeof *ids);
	cr_assert_eq(throng_world_remove_agents(w, ids, held), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_geq(source_events(w, THRONG_EVENT_ADDED, 0), 2u);
	cr_assert_leq(throng_world_agent_count(w), 1u + THRONG_SOURCE_CATCH_UP);
	assert_no_overlap(w);
	throng_world_destroy(w);
}

Test(sources, spawns_never_overlap_anyone)
{
	// Two overlapping circle sources fill a crowd already standing there.
	throng_world* w = make_world(THRONG_ENGINE_SCALAR, 1, true);
	for (int k = 0; k < 30; ++k) {
		thr_test_spawn(w, (throng_vec2){28.0f + (float)(k % 6), 8.0f + (float)(k / 6)}, (throng_vec2){0, 0},
		               (throng_vec2){0, 0});
	}
	throng_source_def a = box_source(0, 0, 0, 0, 40.0f);
	a.shape = THRONG_SOURCE_CIRCLE;
	a.center = (throng_vec2){30.0f, 10.0f};
	a.radius = 4.0f;
	throng_source_def b = a;
	b.center = (throng_vec2){32.0f, 10.0f};
	b.agent.radius = 0.5f;
	cr_assert_eq(throng_world_add_source(w, &a, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_source(w, &b, NULL), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < 30; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		assert_no_overlap(w);
		// A step's additions come in source order, by increasing id.
		const throng_event* e = NULL;
		uint32_t n = 0, last = 0;
		bool any = false;
		cr_assert_eq(throng_world_events(w, &e, &n), THRONG_OK);
		for (uint32_t j = 0; j < n; ++j) {
			if (e[j].kind == THRONG_EVENT_ADDED && e[j].step == (uint64_t)k + 1u) { // not the spawn calls before
				cr_assert(!any || e[j].agent > last);
				cr_assert_neq(e[j].source, THRONG_NO_SOURCE);
				any = true;
				last = e[j].agent;
			}
		}
	}
	cr_assert_gt(throng_world_agent_count(w), 60u);
	throng_world_destroy(w);
}

/// A 250 m corridor with a flow: 6,000 walkers spread over it (1.3 /m^2),
/// a source at the west end, another along a line across it from 5 s, a
/// sink at the east end that takes them out.
static throng_world* flow_world(throng_engine engine, uint32_t threads)
{
	throng_world* w = make_long_world(engine, threads, false, 250.0f);
	uint64_t rng = 11;
	for (int k = 0; k < 6000; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(&rng, 6.0f, 240.0f), thr_test_uniform(&rng, 0.5f, 19.5f)};
		a.max_speed = 1.3f;
		a.radius = 0.2f;
		a.target = (throng_vec2){248.0f, thr_test_uniform(&rng, 2.0f, 18.0f)};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	throng_source_def s = box_source(0.5f, 0.5f, 5.0f, 19.5f, 30.0f);
	s.agent.radius = 0.2f;
	s.agent.target = (throng_vec2){248.0f, 10.0f};
	cr_assert_eq(throng_world_add_source(w, &s, NULL), THRONG_OK, "%s", throng_last_error());
	throng_source_def door = box_source(0, 0, 0, 0, 8.0f);
	door.shape = THRONG_SOURCE_SEGMENT;
	door.from = (throng_vec2){120.0f, 0.5f};
	door.to = (throng_vec2){120.0f, 19.5f};
	door.agent.target = (throng_vec2){128.0f, 0.0f}; // relative: to x 248, straight on
	door.relative_target = true;
	door.count = 300;
	door.start = 5.0f;
	cr_assert_eq(throng_world_add_source(w, &door, NULL), THRONG_OK, "%s", throng_last_error());
	throng_zone_def z = throng_zone_default_def();
	z.shape = THRONG_ZONE_BOX;
	z.min = (throng_vec2){244.0f, 0.0f};
	z.max = (throng_vec2){250.0f, 20.0f};
	z.sink = true;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// Steps w `steps` times; returns its hash.
static uint64_t run(throng_world* w, uint32_t steps)
{
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	return throng_world_hash(w);
}

Test(sources, a_flow_hashes_alike_in_both_engines_and_on_any_thread_count, .timeout = 600)
{
	uint64_t ref = 0;
	throng_world_stats ref_stats;
	const struct {
		throng_engine engine;
		uint32_t threads;
	} runs[] = {{THRONG_ENGINE_SCALAR, 1}, {THRONG_ENGINE_SIMD, 1}, {THRONG_ENGINE_SIMD, 2}, {THRONG_ENGINE_SIMD, 3}};
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
		throng_world* w = flow_world(runs[r].engine, runs[r].threads);
		const uint64_t h = run(w, 120);
		const throng_world_stats st = throng_world_get_stats(w);
		if (r == 0) {
			ref = h;
			ref_stats = st;
			// 30 s: both sources ran, the sink took thousands out, and the
			// world stayed large enough for the parallel regions
			// (THR_PARALLEL_MIN_AGENTS, 4096) most of the way.
			cr_assert_gt(st.agents_added, 6000u + 900u);
			cr_assert_gt(st.agents_removed, 500u);
		} else {
			cr_assert_eq(h, ref, "run %zu: hash 0x%016llx, the scalar engine's 0x%016llx", r, (unsigned long long)h,
			             (unsigned long long)ref);
			cr_assert_eq(st.agents_added, ref_stats.agents_added);
			cr_assert_eq(st.agents_removed, ref_stats.agents_removed);
		}
		throng_world_destroy(w);
	}
	// The pinned hash of this flow (a change that moves it says why).
	cr_expect_eq(ref, UINT64_C(0x954db927e4a14e38), "flow hash 0x%016llx", (unsigned long long)ref);
}

Test(sources, a_checkpoint_keeps_the_sources_progress)
{
	throng_world* w = flow_world(THRONG_ENGINE_SIMD, 2);
	run(w, 30);
	size_t bytes = 0;
	cr_assert_eq(throng_world_checkpoint_size(w, &bytes), THRONG_OK, "%s", throng_last_error());
	void* buf = malloc(bytes);
	cr_assert_not_null(buf);
	size_t written = 0;
	cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &written), THRONG_OK, "%s", throng_last_error());
	throng_world* back = NULL;
	cr_assert_eq(throng_world_read_checkpoint(buf, written, &back), THRONG_OK, "%s", throng_last_error());
	free(buf);
	cr_assert_eq(throng_world_source_count(back), 2u);
	for (uint32_t k = 0; k < 2; ++k) {
		throng_source_def a, b;
		throng_source_state sa, sb;
		cr_assert_eq(throng_world_get_source(w, k, &a, &sa), THRONG_OK);
		cr_assert_eq(throng_world_get_source(back, k, &b, &sb), THRONG_OK);
		cr_assert_eq(sa.added, sb.added);
		cr_assert_eq(sa.waited_steps, sb.waited_steps);
		cr_assert_eq(a.rate, b.rate);
		cr_assert_eq(a.count, b.count);
		cr_assert_eq(a.shape, b.shape);
		cr_assert_eq(a.relative_target, b.relative_target);
	}
	throng_source_def door;
	cr_assert_eq(throng_world_get_source(back, 1, &door, NULL), THRONG_OK);
	cr_assert(door.relative_target && door.agent.target.x == 128.0f, "the door's relative goal came back");
	const uint64_t on = run(w, 60), again = run(back, 60);
	cr_assert_eq(again, on, "restored 0x%016llx, never stopped 0x%016llx", (unsigned long long)again,
	             (unsigned long long)on);
	throng_world_destroy(w);
	throng_world_destroy(back);
}

/// Fails unless add_source refuses d naming `field`, the world keeping its sources.
static void refused(throng_world* w, const throng_source_def* d, const char* field)
{
	const uint32_t before = throng_world_source_count(w);
	cr_assert_neq(throng_world_add_source(w, d, NULL), THRONG_OK, "%s accepted", field);
	cr_assert(strstr(throng_last_error(), field) != NULL, "\"%s\" does not name %s", throng_last_error(), field);
	cr_assert_eq(throng_world_source_count(w), before);
}

Test(sources, bad_defs_are_refused_naming_the_field)
{
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 1, true);
	const throng_source_def good = box_source(1, 1, 2, 2, 1.0f);
	throng_source_def d = good;
	d.rate = NAN;
	refused(w, &d, "rate");
	d = good;
	d.rate = 0.0f;
	refused(w, &d, "rate");
	d = good;
	d.start = -1.0f;
	refused(w, &d, "start");
	d = good;
	d.start = 2.0f;
	d.stop = 2.0f;
	refused(w, &d, "stop");
	d = good;
	d.stop = NAN;
	refused(w, &d, "stop");
	d = good;
	d.max = (throng_vec2){0.5f, 3.0f};
	refused(w, &d, "max");
	d = good;
	d.max = (throng_vec2){70.0f, 3.0f};
	refused(w, &d, "outside the world");
	d = good;
	d.shape = THRONG_SOURCE_CIRCLE;
	d.center = (throng_vec2){1.0f, 10.0f};
	d.radius = 2.0f;
	refused(w, &d, "outside the world");
	d.radius = INFINITY;
	refused(w, &d, "radius");
	d = good;
	d.shape = THRONG_SOURCE_SEGMENT;
	d.from = (throng_vec2){NAN, 1.0f};
	refused(w, &d, "from");
	d = good;
	d.shape = (throng_source_shape)7;
	refused(w, &d, "shape");
	d = good;
	d.agent.radius = -1.0f;
	refused(w, &d, "agent.radius");
	d = good;
	d.agent.archetype = 5;
	refused(w, &d, "agent.archetype");
	d = good;
	d.agent.target_agent = 0;
	refused(w, &d, "agent.target_agent");
	d = good;
	d.agent.velocity = (throng_vec2){5.0f, 0.0f};
	refused(w, &d, "agent.velocity");
	d = good;
	d.relative_target = true;
	d.agent.target = (throng_vec2){-999999.5f, 0.0f}; // from the corners' x 1 and 2: inside [-1e6, 1e6]
	cr_assert_eq(throng_world_add_source(w, &d, NULL), THRONG_OK, "%s", throng_last_error());
	d.agent.target = (throng_vec2){999999.5f, 0.0f}; // from x 1, 1000000.5: past 1e6
	refused(w, &d, "agent.target (relative_target)");
	d = good;
	memset(d.name, 'x', sizeof d.name);
	refused(w, &d, "name");
	d = good;
	strcpy(d.name, "twin");
	cr_assert_eq(throng_world_add_source(w, &d, NULL), THRONG_OK);
	refused(w, &d, "name");
	cr_assert_eq(throng_world_add_source(NULL, &good, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_add_source(w, NULL, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_get_source(w, 9, NULL, NULL), THRONG_ERR_NOT_FOUND);
	for (uint32_t k = throng_world_source_count(w); k < THRONG_MAX_SOURCES; ++k) {
		cr_assert_eq(throng_world_add_source(w, &good, NULL), THRONG_OK);
	}
	cr_assert_eq(throng_world_add_source(w, &good, NULL), THRONG_ERR_CAPACITY);
	throng_world_destroy(w);
}

/// A relative goal: each agent's target is the source's goal added to the
/// point it came in at, worked by hand on a still world (nobody moves).
Test(sources, a_relative_goal_sends_each_agent_that_far_from_where_it_came_in)
{
	throng_world* w = make_world(THRONG_ENGINE_SIMD, 1, true);
	throng_source_def d = box_source(0, 0, 0, 0, 4.0f);
	d.shape = THRONG_SOURCE_SEGMENT;
	d.from = (throng_vec2){1.0f, 1.0f};
	d.to = (throng_vec2){1.0f, 19.0f};
	d.agent.target = (throng_vec2){50.0f, -0.5f};
	d.relative_target = true;
	cr_assert_eq(throng_world_add_source(w, &d, NULL), THRONG_OK, "%s", throng_last_error());
	run(w, 20); // 5 s at 4 a second: up to 20 agents (a spot taken waits)
	const throng_view v = throng_world_view(w);
	cr_assert_geq(v.count, 12u, "%u agents", v.count);
	float lo = 20.0f, hi = 0.0f;
	for (uint32_t i = 0; i < v.count; ++i) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, v.id[i], &a), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(a.position.x, 1.0f);
		cr_assert_eq(a.target.x, 51.0f, "agent %u: target x %g", v.id[i], (double)a.target.x);
		cr_assert_eq(a.target.y, a.position.y - 0.5f, "agent %u: target y %g, position y %g", v.id[i],
		             (double)a.target.y, (double)a.position.y);
		lo = fminf(lo, a.target.y);
		hi = fmaxf(hi, a.target.y);
	}
	cr_assert_gt(hi - lo, 9.0f, "the goals spread along the door (%g to %g), not one point", (double)lo, (double)hi);
	// The default: every agent bound for the goal itself.
	throng_source_def fixed = d;
	fixed.relative_target = false;
	fixed.agent.target = (throng_vec2){50.0f, 10.0f};
	fixed.from.x = fixed.to.x = 3.0f;
	cr_assert_eq(throng_world_add_source(w, &fixed, NULL), THRONG_OK, "%s", throng_last_error());
	run(w, 4);
	const throng_view u = throng_world_view(w);
	uint32_t seen = 0;
	for (uint32_t i = 0; i < u.count; ++i) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, u.id[i], &a), THRONG_OK);
		if (a.position.x == 3.0f) {
			cr_assert(a.target.x == 50.0f && a.target.y == 10.0f);
			seen++;
		}
	}
	cr_assert_geq(seen, 3u);
	throng_world_destroy(w);
}

Test(sources, names_of_shapes)
{
	throng_source_shape s = THRONG_SOURCE_BOX;
	cr_assert(throng_source_shape_from_name("segment", &s));
	cr_assert_eq(s, THRONG_SOURCE_SEGMENT);
	cr_assert_str_eq(throng_source_shape_name(THRONG_SOURCE_CIRCLE), "circle");
	cr_assert(!throng_source_shape_from_name("door", &s));
	cr_assert_str_eq(throng_event_kind_name(THRONG_EVENT_WAITED), "waited");
}

// ---------------------------------------------------------------------------
// Zones and sources in scenario files
// ---------------------------------------------------------------------------

static const char door_file[] = "version: 2\n"
                                "name: door\n"
                                "world:\n"
                                "  bounds: {min: [0, 0], max: [40, 20], mode: contain}\n"
                                "  dt: 0.05\n"
                                "archetypes:\n"
                                "  walker: {preset: pedestrian, drive: arrive}\n"
                                "zones:\n"
                                "  - {shape: box, name: exit, min: [37, 0], max: [40, 20], sink: true}\n"
                                "  - {shape: polygon, points: [[10, 5], [15, 5], [12, 9]]}\n"
                                "sources:\n"
                                "  - {shape: segment, name: west, from: [1, 2], to: [1, 18], rate: 5, archetype: walker,"
                                " goal: [39, 10]}\n"
                                "  - {shape: circle, center: [20, 10], radius: 2, rate: 1, count: 10, start: 2, stop: 30,"
                                " archetype: walker, goal: [39, 3], id: 7, body_radius: 0.25}\n";

/// Loads a scenario text; fails the test on any problem.
static throng_scene* load(const char* text)
{
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("door.yaml", text, strlen(text), NULL, NULL, NULL, &s), THRONG_OK, "%s",
	             throng_last_error());
	return s;
}

Test(scenario_files, zones_and_sources_build_run_and_save_to_the_same_hash)
{
	throng_scene* s = load(door_file);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_agent_count(w), 0u, "a scene of sources starts empty");
	cr_assert_eq(throng_world_zone_count(w), 2u);
	cr_assert_eq(throng_world_source_count(w), 2u);
	uint32_t id = 0;
	cr_assert_eq(throng_world_find_zone(w, "exit", &id), THRONG_OK);
	cr_assert_eq(id, 0u);
	throng_source_def d;
	cr_assert_eq(throng_world_get_source(w, 1, &d, NULL), THRONG_OK);
	cr_assert(d.shape == THRONG_SOURCE_CIRCLE && d.count == 10u && d.start == 2.0f && d.stop == 30.0f);
	cr_assert(d.agent.group == 7u && d.agent.radius == 0.25f, "the file's body radius and label");
	cr_assert_eq(d.agent.max_speed, throng_agent_pedestrian_def().max_speed, "the preset's body where none is stated");
	cr_assert(d.agent.target.x == 39.0f && d.agent.target.y == 3.0f);
	// 40 s: 5 a second from the west door walk 36 m at 1.34 m/s to the exit.
	for (int k = 0; k < 800; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	const throng_world_stats st = throng_world_get_stats(w);
	cr_assert_geq(st.agents_added, 180u, "added %llu", (unsigned long long)st.agents_added);
	cr_assert_gt(st.agents_removed, 50u, "the exit took walkers out (%llu)", (unsigned long long)st.agents_removed);
	const uint64_t hash = throng_world_hash(w);
	char* text = NULL;
	cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert(strstr(text, "zones:") != NULL && strstr(text, "sources:") != NULL, "%s", text);
	throng_scene* again = load(text);
	free(text);
	for (int k = 0; k < 800; ++k) {
		cr_assert_eq(throng_scene_step(again), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), hash, "the saved scene runs to another hash");
	throng_scene_destroy(again);
	throng_scene_destroy(s);
}

/// A file's source says how its agents come in: `heading` (normalised)
/// and `speed` along it become the template's heading and velocity, the
/// first agent has them as it appears, and a saved file keeps them.
Test(scenario_files, a_source_sets_heading_and_speed)
{
	const char* text = "version: 2\n"
	                   "world:\n"
	                   "  bounds: {min: [0, 0], max: [40, 20], mode: contain}\n"
	                   "archetypes:\n"
	                   "  walker: {preset: pedestrian}\n"
	                   "sources:\n"
	                   "  - {shape: segment, from: [1, 2], to: [1, 18], rate: 5, archetype: walker, goal: [39, 10],"
	                   " heading: [3, 4], speed: 1}\n";
	throng_scene* s = load(text);
	throng_world* w = throng_scene_world(s);
	throng_source_def d;
	cr_assert_eq(throng_world_get_source(w, 0, &d, NULL), THRONG_OK);
	cr_assert_float_eq(d.agent.heading.x, 0.6f, 1e-6f);
	cr_assert_float_eq(d.agent.heading.y, 0.8f, 1e-6f);
	cr_assert(d.agent.velocity.x == d.agent.heading.x && d.agent.velocity.y == d.agent.heading.y, "speed 1");
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, 0, &a), THRONG_OK, "%s", throng_last_error());
	cr_assert(a.heading.x == d.agent.heading.x && a.heading.y == d.agent.heading.y);
	cr_assert(a.velocity.x == d.agent.velocity.x && a.velocity.y == d.agent.velocity.y);
	for (int k = 0; k < 100; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	char* saved = NULL;
	cr_assert_eq(throng_scene_save_string(s, &saved, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert(strstr(saved, "heading: [0.6") != NULL && strstr(saved, "speed: 1") != NULL, "%s", saved);
	throng_scene* again = load(saved);
	free(saved);
	for (int k = 0; k < 101; ++k) {
		cr_assert_eq(throng_scene_step(again), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), throng_world_hash(w));
	throng_scene_destroy(again);
	throng_scene_destroy(s);
}

/// `relative_goal: true`: the source's goal is added to where each agent
/// comes in; a saved file keeps it; a goal that would pass 1e6 m from the
/// region is refused at the source's line.
Test(scenario_files, a_source_with_a_relative_goal)
{
	const char* text = "version: 2\n"
	                   "world:\n"
	                   "  bounds: {min: [0, 0], max: [40, 20], mode: contain}\n"
	                   "archetypes:\n"
	                   "  walker: {preset: pedestrian}\n"
	                   "sources:\n"
	                   "  - {shape: segment, from: [1, 2], to: [1, 18], rate: 5, archetype: walker, goal: [37, 0],"
	                   " relative_goal: true}\n";
	throng_scene* s = load(text);
	throng_world* w = throng_scene_world(s);
	throng_source_def d;
	cr_assert_eq(throng_world_get_source(w, 0, &d, NULL), THRONG_OK);
	cr_assert(d.relative_target && d.agent.target.x == 37.0f && d.agent.target.y == 0.0f);
	for (int k = 0; k < 30; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	const throng_view v = throng_world_view(w);
	cr_assert_gt(v.count, 1u);
	for (uint32_t i = 0; i < v.count; ++i) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, v.id[i], &a), THRONG_OK);
		cr_assert_eq(a.target.x, 38.0f, "straight across from x 1");
		cr_assert(a.target.y > 1.9f && a.target.y < 18.1f, "target y %g: from its own place on the door",
		          (double)a.target.y);
	}
	char* saved = NULL;
	cr_assert_eq(throng_scene_save_string(s, &saved, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert(strstr(saved, "relative_goal: true") != NULL, "%s", saved);
	throng_scene* again = load(saved);
	free(saved);
	for (int k = 0; k < 30; ++k) {
		cr_assert_eq(throng_scene_step(again), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_hash(throng_scene_world(again)), throng_world_hash(w));
	throng_scene_destroy(again);
	throng_scene_destroy(s);

	const char* far = "version: 2\n"
	                  "world:\n"
	                  "  bounds: {min: [0, 0], max: [40, 20], mode: contain}\n"
	                  "archetypes:\n"
	                  "  walker: {preset: pedestrian}\n"
	                  "sources:\n"
	                  "  - {shape: segment, from: [1, 2], to: [1, 18], rate: 5, archetype: walker,"
	                  " goal: [999999.5, 0], relative_goal: true}\n";
	throng_scene* bad = NULL;
	cr_assert_eq(throng_scene_load_memory("far.yaml", far, strlen(far), NULL, NULL, NULL, &bad),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(bad);
	cr_assert(strstr(throng_last_error(),
	                 "far.yaml:7:5: sources[0]: relative_goal: its goal (999999.5, 0) added to its segment's corners "
	                 "(1, 2)..(1, 18) passes 1e6 m") != NULL,
	          "%s", throng_last_error());
}

Test(scenario_files, version_1_files_cannot_use_them)
{
	const char* text = "name: old\n"
	                   "archetypes:\n"
	                   "  walker: {preset: pedestrian}\n"
	                   "groups:\n"
	                   "  g: {count: 1, archetype: walker, spawn: {shape: line, from: [1, 1], to: [1, 1]}}\n"
	                   "zones:\n"
	                   "  - {shape: circle, center: [0, 0], radius: 1}\n";
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_load_memory("old.yaml", text, strlen(text), NULL, NULL, NULL, &s),
	             THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
	cr_assert(strstr(throng_last_error(), "old.yaml:7:3: zones: a version 2 key in a version 1 file") != NULL, "%s",
	          throng_last_error());
}

// ---------------------------------------------------------------------------
// The scenes of sources and sinks: concourse and evacuation
// ---------------------------------------------------------------------------

/// Steps s `steps` times; returns its world's hash.
static uint64_t run_scene(throng_scene* s, uint32_t steps)
{
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	return throng_world_hash(throng_scene_world(s));
}

Test(scenes, evacuation_empties_the_room_and_says_when, .timeout = 300)
{
	// 200 occupants, two 2.3 m doors: out in well under a minute; the time
	// the world became empty, the same in both engines.
	double at[2] = {0, 0};
	uint64_t hash[2] = {0, 0};
	for (int en = 0; en < 2; ++en) {
		throng_scene* s = thr_test_scene("evacuation", 200, en == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD);
		throng_world* w = throng_scene_world(s);
		cr_assert_eq(throng_world_agent_count(w), 200u);
		cr_assert_eq(throng_world_zone_count(w), 2u);
		cr_assert_eq(thr_test_outcome(s, "evacuated_at"), -1.0);
		cr_assert_eq(thr_test_outcome(s, "remaining"), 200.0);
		hash[en] = run_scene(s, 4000);
		at[en] = thr_test_outcome(s, "evacuated_at");
		cr_assert_eq(thr_test_outcome(s, "remaining"), 0.0);
		cr_assert(at[en] > 5.0 && at[en] < 60.0, "evacuated at %g s", at[en]);
		const throng_world_stats st = throng_world_get_stats(w);
		cr_assert_eq(st.agents_removed, 200u, "every occupant left by a sink");
		throng_scene_destroy(s);
	}
	cr_assert_eq(hash[0], hash[1]);
	cr_assert_eq(at[0], at[1]);
}

Test(scenes, concourse_holds_its_crowd_and_lets_walkers_through, .timeout = 300)
{
	uint64_t hash[2] = {0, 0};
	for (int en = 0; en < 2; ++en) {
		// 600 walkers: a 49 m hall, crossed in about 37 s; those at the start
		// leave as many come in.
		throng_scene* s = thr_test_scene("concourse", 600, en == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD);
		throng_world* w = throng_scene_world(s);
		cr_assert_eq(throng_world_agent_count(w), 600u);
		cr_assert_eq(throng_world_source_count(w), 16u);
		cr_assert_eq(throng_world_zone_count(w), 4u);
		hash[en] = run_scene(s, 4800); // 80 s
		const double in = thr_test_outcome(s, "in_hall"), left = thr_test_outcome(s, "left");
		cr_assert(in > 450.0 && in < 800.0, "%g in the hall", in);
		cr_assert_gt(left, 200.0);
		cr_assert_eq(thr_test_outcome(s, "late"), 0.0, "a walker is stuck (worst %g)", thr_test_outcome(s, "worst_ratio"));
		cr_assert_leq(thr_test_outcome(s, "worst_ratio"), 3.0);
		throng_scene_destroy(s);
	}
	cr_assert_eq(hash[0], hash[1]);
}

Test(scenes, a_wide_concourse_has_doors_of_30_m_at_most)
{
	// 10,000 walkers: a 316 m hall whose entrances are 47 m wide in all,
	// each cut into two doors of 23.7 m, a door in the middle of each half
	// of its half-wall (wide crossings lock: scenario_concourse.c). Every
	// door has its sink and four sources; the walkers start in its lane.
	throng_scene* s = thr_test_scene("concourse", 10000, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_zone_count(w), 8u);
	cr_assert_eq(throng_world_source_count(w), 32u);
	const float h = 0.5f * sqrtf(10000.0f / 0.1f), door = 0.15f * 2.0f * h / 2.0f;
	throng_zone_def z;
	cr_assert_eq(throng_world_get_zone(w, 1, &z, NULL, 0), THRONG_OK, "%s", throng_last_error());
	cr_assert_str_eq(z.name, "west_exit_1");
	// West's exits lie in the south half: door 1 centred at -3h/4.
	cr_assert_float_eq(z.max.y - z.min.y, door, 1e-3f);
	cr_assert_float_eq(0.5f * (z.min.y + z.max.y), -0.75f * h, 1e-3f);
	throng_source_def src;
	cr_assert_eq(throng_world_get_source(w, 4, &src, NULL), THRONG_OK);
	cr_assert_str_eq(src.name, "west_in_1_0");
	cr_assert_float_eq(src.from.y, 0.75f * h - 0.5f * door, 1e-3f);
	// Each walker bound straight across to the east wall from where it came
	// in (1 m inside the west wall): the door's stream keeps its width.
	cr_assert(src.relative_target);
	cr_assert_float_eq(src.agent.target.x, 2.0f * h - 1.0f, 1e-3f);
	cr_assert_eq(src.agent.target.y, 0.0f);
	// A quarter of the walkers a wall, half of them in each door's lane.
	const throng_view v = throng_world_view(w);
	uint32_t lane[2] = {0, 0};
	for (uint32_t i = 0; i < v.count; ++i) {
		if (v.group[i] == 0) { // west's walkers, bound east
			const float y = v.y[i];
			cr_assert((y > 0.25f * h - 0.5f * door && y < 0.25f * h + 0.5f * door) ||
			              (y > 0.75f * h - 0.5f * door && y < 0.75f * h + 0.5f * door),
			          "a west walker at y %g, outside both doors' lanes", y);
			lane[y > 0.5f * h]++;
		}
	}
	cr_assert(lane[0] == 1250u && lane[1] == 1250u, "%u and %u in the two lanes", lane[0], lane[1]);
	(void)run_scene(s, 60); // and it steps
	cr_assert_gt(thr_test_outcome(s, "in_hall"), 9500.0);
	throng_scene_destroy(s);
	// The default hall keeps one door a half-wall.
	s = thr_test_scene("concourse", 3000, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_world_zone_count(throng_scene_world(s)), 4u);
	cr_assert_eq(throng_world_get_zone(throng_scene_world(s), 0, &z, NULL, 0), THRONG_OK);
	cr_assert_str_eq(z.name, "west_exit");
	throng_scene_destroy(s);
}

Test(scenes, saved_scenes_of_sources_run_to_the_same_hash, .timeout = 300)
{
	const char* names[2] = {"concourse", "evacuation"};
	for (int k = 0; k < 2; ++k) {
		throng_scene* s = thr_test_scene(names[k], 300, THRONG_ENGINE_SIMD);
		char* text = NULL;
		cr_assert_eq(throng_scene_save_string(s, &text, NULL), THRONG_OK, "%s", throng_last_error());
		const uint64_t want = run_scene(s, 900);
		throng_scene* again = load(text);
		free(text);
		cr_assert_eq(run_scene(again, 900), want, "%s: the saved file runs elsewhere", names[k]);
		throng_scene_destroy(again);
		throng_scene_destroy(s);
	}
}

Test(scenes, a_resumed_concourse_reports_the_same_flows, .timeout = 300)
{
	// The flows measure keeps every walker's entry: a checkpoint holds it,
	// so the figures after a resume are those of the run that never stopped.
	throng_scene* s = thr_test_scene("concourse", 400, THRONG_ENGINE_SIMD);
	run_scene(s, 2400);
	size_t bytes = 0;
	cr_assert_eq(throng_scene_write_checkpoint(s, NULL, 0, &bytes), THRONG_OK, "%s", throng_last_error());
	void* buf = malloc(bytes);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_scene_write_checkpoint(s, buf, bytes, &bytes), THRONG_OK, "%s", throng_last_error());
	throng_scene* back = NULL;
	cr_assert_eq(throng_scene_read_checkpoint(buf, bytes, NULL, &back), THRONG_OK, "%s", throng_last_error());
	free(buf);
	const uint64_t a = run_scene(s, 1200), b = run_scene(back, 1200);
	cr_assert_eq(a, b);
	static const char* const figures[] = {"in_hall", "left", "late", "worst_ratio"};
	for (int k = 0; k < 4; ++k) {
		cr_assert_eq(thr_test_outcome(back, figures[k]), thr_test_outcome(s, figures[k]), "%s", figures[k]);
	}
	cr_assert_gt(thr_test_outcome(s, "left"), 50.0);
	throng_scene_destroy(back);
	throng_scene_destroy(s);
}
