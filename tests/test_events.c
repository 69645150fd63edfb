// SPDX-License-Identifier: MIT
// Events and zones (issue 33, item 5): what a step and the calls around it
// list, each event once, the same in both engines and on any thread count.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/scenario.h"
#include "throng/throng.h"
#include "world_internal.h"

/// The events listed now.
static uint32_t listed(const throng_world* w, const throng_event** e)
{
	uint32_t n = 0;
	cr_assert_eq(throng_world_events(w, e, &n), THRONG_OK, "%s", throng_last_error());
	return n;
}

/// A world of one seeker archetype (seek its target point), no contacts.
static throng_world* seek_world(throng_engine engine)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK)), 0);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
	return w;
}

Test(events, calls_and_steps_each_listed_once)
{
	throng_world* w = seek_world(THRONG_ENGINE_SIMD);
	const throng_event* e = NULL;
	cr_assert_eq(listed(w, &e), 0u);
	for (int k = 0; k < 4; ++k) {
		thr_test_spawn(w, (throng_vec2){(float)k * 3.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 10});
	}
	cr_assert_eq(throng_world_remove_agent(w, 2), THRONG_OK);
	// Between steps: the calls, in order, stamped with the step count then (0).
	uint32_t n = listed(w, &e);
	cr_assert_eq(n, 5u);
	for (uint32_t k = 0; k < 4; ++k) {
		cr_assert(e[k].kind == THRONG_EVENT_ADDED && e[k].agent == k && e[k].step == 0 && e[k].zone == THRONG_NO_ZONE);
	}
	cr_assert(e[4].kind == THRONG_EVENT_REMOVED && e[4].agent == 2);
	// The step keeps the calls before it in its window.
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(listed(w, &e), 5u);
	// A call after the step joins the list; the next step drops the window
	// before it.
	const uint32_t gone[2] = {3, 0};
	cr_assert_eq(throng_world_remove_agents(w, gone, 2), THRONG_OK);
	n = listed(w, &e);
	cr_assert_eq(n, 7u);
	cr_assert(e[5].kind == THRONG_EVENT_REMOVED && e[5].agent == 0 && e[5].step == 1, "a batch by increasing id");
	cr_assert(e[6].kind == THRONG_EVENT_REMOVED && e[6].agent == 3);
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	n = listed(w, &e);
	cr_assert_eq(n, 2u);
	cr_assert(e[0].agent == 0 && e[1].agent == 3);
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(listed(w, &e), 0u);
	throng_world_destroy(w);
}

Test(events, the_room_of_a_large_call_goes_with_its_window)
{
	// 100,000 agents spawned in one call list 100,000 events, kept through
	// the next step's window; the step after drops them and gives their
	// room back (core/events.c, trim), and the list still works.
	throng_world* w = seek_world(THRONG_ENGINE_SIMD);
	enum { N = 100000 };
	static throng_agent_def defs[N];
	for (uint32_t k = 0; k < N; ++k) {
		defs[k] = throng_agent_default_def();
		defs[k].position = (throng_vec2){(float)(k % 320u) * 0.3f - 48.0f, (float)(k / 320u) * 0.3f - 48.0f};
		defs[k].target = defs[k].position;
	}
	cr_assert_eq(throng_world_spawn(w, defs, N, NULL), THRONG_OK, "%s", throng_last_error());
	const throng_event* e = NULL;
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(listed(w, &e), (uint32_t)N);
	cr_assert_geq(w->event_cap, (uint32_t)N);
	cr_assert_eq(throng_world_remove_agent(w, 5), THRONG_OK);
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(listed(w, &e), 1u);
	cr_assert(e[0].kind == THRONG_EVENT_REMOVED && e[0].agent == 5);
	cr_assert_lt(w->event_cap, 1024u, "room for %u events kept", w->event_cap);
	cr_assert_eq(throng_world_step(w), THRONG_OK);
	cr_assert_eq(listed(w, &e), 0u);
	throng_world_destroy(w);
}

Test(events, a_walker_enters_and_leaves_zones_and_arrives)
{
	for (int en = 0; en < 2; ++en) {
		throng_world* w = seek_world(en == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD);
		// Circle at x = 10, box at x = 20, triangle at x = 30; the walker
		// goes along y = 0 from x = 0 to its target at x = 40.
		throng_zone_def c = throng_zone_default_def();
		c.center = (throng_vec2){10.0f, 0.0f};
		c.radius = 2.0f;
		strcpy(c.name, "fountain");
		throng_zone_def b = throng_zone_default_def();
		b.shape = THRONG_ZONE_BOX;
		b.min = (throng_vec2){19.0f, -1.0f};
		b.max = (throng_vec2){21.0f, 1.0f};
		const throng_vec2 tri[3] = {{28.0f, -3.0f}, {32.0f, -3.0f}, {30.0f, 3.0f}};
		throng_zone_def p = throng_zone_default_def();
		p.shape = THRONG_ZONE_POLYGON;
		p.points = tri;
		p.point_count = 3;
		uint32_t ids[3];
		cr_assert_eq(throng_world_add_zone(w, &c, &ids[0]), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_add_zone(w, &b, &ids[1]), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_add_zone(w, &p, &ids[2]), THRONG_OK, "%s", throng_last_error());
		cr_assert(ids[0] == 0 && ids[1] == 1 && ids[2] == 2);
		uint32_t found = 9;
		cr_assert_eq(throng_world_find_zone(w, "fountain", &found), THRONG_OK);
		cr_assert_eq(found, 0u);
		cr_assert_eq(throng_world_set_arrival_radius(w, 0.5f), THRONG_OK);
		thr_test_spawn(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){0, 0}, (throng_vec2){40.0f, 0.0f});
		// What the walker met, in order, and where it was then.
		throng_event_kind kinds[8];
		uint32_t zones[8];
		float xs[8], before[8];
		uint32_t met = 0;
		for (int s = 0; s < 60 * 60 && met < 7; ++s) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			const throng_event* e = NULL;
			const uint32_t n = listed(w, &e);
			throng_agent_state a;
			cr_assert_eq(throng_world_get_agent(w, 0, &a), THRONG_OK);
			for (uint32_t k = 0; k < n && met < 7; ++k) {
				if (e[k].kind == THRONG_EVENT_ADDED) {
					continue;
				}
				cr_assert_eq(e[k].step, (uint64_t)s + 1u);
				kinds[met] = e[k].kind;
				zones[met] = e[k].zone;
				before[met] = a.position.x - a.velocity.x / 60.0f; // where the step began (x += v dt)
				xs[met++] = a.position.x;
			}
		}
		cr_assert_eq(met, 7u, "engine %d: %u events", en, met);
		const throng_event_kind want[7] = {THRONG_EVENT_ENTERED, THRONG_EVENT_LEFT,    THRONG_EVENT_ENTERED,
		                                   THRONG_EVENT_LEFT,    THRONG_EVENT_ENTERED, THRONG_EVENT_LEFT,
		                                   THRONG_EVENT_ARRIVED};
		const uint32_t want_zone[7] = {0, 0, 1, 1, 2, 2, THRONG_NO_ZONE};
		// The edges the walker crossed (m): it was before the edge when the
		// step began and at or past it when the step ended.
		const float edge[7] = {8.0f, 12.0f, 19.0f, 21.0f, 29.0f, 31.0f, 39.5f};
		for (int k = 0; k < 7; ++k) {
			cr_expect_eq(kinds[k], want[k], "engine %d, event %d", en, k);
			cr_expect_eq(zones[k], want_zone[k], "engine %d, event %d", en, k);
			cr_expect(xs[k] >= edge[k] - 1e-4f && before[k] < edge[k] + 1e-4f,
			          "engine %d, event %d: from x = %g to %g, edge %g", en, k, (double)before[k], (double)xs[k],
			          (double)edge[k]);
		}
		throng_world_destroy(w);
	}
}

Test(events, bad_zones_and_radii_are_refused)
{
	throng_world* w = seek_world(THRONG_ENGINE_SIMD);
	throng_zone_def z = throng_zone_default_def();
	z.radius = NAN;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "radius") != NULL, "%s", throng_last_error());
	z = throng_zone_default_def();
	z.shape = THRONG_ZONE_BOX;
	z.min = (throng_vec2){1, 1};
	z.max = (throng_vec2){0, 2};
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "max") != NULL, "%s", throng_last_error());
	z = throng_zone_default_def();
	z.shape = THRONG_ZONE_POLYGON;
	const throng_vec2 two[2] = {{0, 0}, {1, 1}};
	z.points = two;
	z.point_count = 2;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "points") != NULL, "%s", throng_last_error());
	const throng_vec2 bad[3] = {{0, 0}, {1, INFINITY}, {2, 0}};
	z.points = bad;
	z.point_count = 3;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "points[1]") != NULL, "%s", throng_last_error());
	z = throng_zone_default_def();
	z.shape = (throng_zone_shape)7;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	z = throng_zone_default_def();
	memset(z.name, 'a', sizeof z.name);
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "name") != NULL, "%s", throng_last_error());
	z = throng_zone_default_def();
	strcpy(z.name, "gate");
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_ERR_INVALID_ARGUMENT, "two zones called gate");
	cr_assert_eq(throng_world_zone_count(w), 1u);
	uint32_t id = 0;
	cr_assert_eq(throng_world_find_zone(w, "exit", &id), THRONG_ERR_NOT_FOUND);
	cr_assert(strstr(throng_last_error(), "exit") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_zone(w, NULL, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_set_arrival_radius(w, NAN), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "radius") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_set_arrival_radius(w, -1.0f), THRONG_ERR_INVALID_ARGUMENT);
	uint32_t n = 0;
	cr_assert_eq(throng_world_events(w, NULL, &n), THRONG_ERR_INVALID_ARGUMENT);
	for (int k = 1; k < THRONG_MAX_ZONES; ++k) {
		cr_assert_eq(throng_world_add_zone(w, &(throng_zone_def){.shape = THRONG_ZONE_CIRCLE, .radius = 1.0f}, NULL),
		             THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_add_zone(w, &(throng_zone_def){.shape = THRONG_ZONE_CIRCLE, .radius = 1.0f}, NULL),
	             THRONG_ERR_CAPACITY);
	throng_world_destroy(w);
}

/// Hash of the events listed after every step (3 s) of a churned `field` at
/// 6,000 agents with four zones and an arrival radius; counts of each kind.
typedef struct event_run {
	uint64_t hash;
	uint64_t added, removed, arrived, entered, left, sunk;
	throng_world_stats stats;
} event_run;

static event_run churned_events(throng_engine engine, uint32_t threads)
{
	throng_scene* s = thr_test_scene_threads("field", 6000, 5, engine, threads);
	throng_world* w = throng_scene_world(s);
	const throng_world_def d = throng_world_get_def(w);
	const float cx = 0.5f * (d.bounds_min.x + d.bounds_max.x), cy = 0.5f * (d.bounds_min.y + d.bounds_max.y);
	const float q = 0.25f * (d.bounds_max.x - d.bounds_min.x);
	for (int k = 0; k < 4; ++k) {
		throng_zone_def z = throng_zone_default_def();
		if (k % 2 == 0) {
			z.center = (throng_vec2){cx + (k == 0 ? -q : q), cy};
			z.radius = 0.5f * q;
		} else {
			z.shape = THRONG_ZONE_BOX;
			z.min = (throng_vec2){cx - 0.5f * q, cy + (k == 1 ? -q : q) - 0.5f * q};
			z.max = (throng_vec2){cx + 0.5f * q, cy + (k == 1 ? -q : q) + 0.5f * q};
		}
		cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_set_arrival_radius(w, 3.0f), THRONG_OK);
	throng_zone_def exit = throng_zone_default_def(); // a sink: those who enter leave
	exit.center = (throng_vec2){cx, cy};
	exit.radius = 0.2f * q;
	exit.sink = true;
	cr_assert_eq(throng_world_add_zone(w, &exit, NULL), THRONG_OK, "%s", throng_last_error());
	event_run r;
	memset(&r, 0, sizeof r);
	uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the events' fields
	uint64_t rng = 99;
	for (int step = 0; step < 180; ++step) {
		// 30 out, 30 in, by id.
		uint32_t out[30], n = 0;
		for (int tries = 0; n < 30 && tries < 1000; ++tries) {
			const uint32_t id = (uint32_t)(thr_test_uniform(&rng, 0.0f, 1.0f) * (float)throng_world_id_end(w));
			throng_agent_state a;
			bool dup = throng_world_get_agent(w, id, &a) != THRONG_OK;
			for (uint32_t k = 0; k < n && !dup; ++k) {
				dup = out[k] == id;
			}
			if (!dup) {
				out[n++] = id;
			}
		}
		cr_assert_eq(throng_world_remove_agents(w, out, n), THRONG_OK, "%s", throng_last_error());
		throng_agent_def in[30];
		for (uint32_t k = 0; k < 30; ++k) {
			in[k] = throng_agent_default_def();
			in[k].position = (throng_vec2){thr_test_uniform(&rng, d.bounds_min.x + 1, d.bounds_max.x - 1),
			                               thr_test_uniform(&rng, d.bounds_min.y + 1, d.bounds_max.y - 1)};
			in[k].target = (throng_vec2){cx, cy};
		}
		cr_assert_eq(throng_world_spawn(w, in, 30, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		const throng_event* e = NULL;
		const uint32_t m = listed(w, &e);
		for (uint32_t k = 0; k < m; ++k) {
			const uint64_t f[4] = {e[k].step, (uint64_t)e[k].kind, e[k].agent, e[k].zone}; // not the padding
			for (int j = 0; j < 4; ++j) {
				h = (h ^ f[j]) * 0x100000001b3ull;
			}
			uint64_t* const counts[5] = {&r.added, &r.removed, &r.arrived, &r.entered, &r.left};
			(*counts[e[k].kind])++;
			r.sunk += e[k].kind == THRONG_EVENT_REMOVED && e[k].zone == 4;
		}
	}
	r.hash = h;
	r.stats = throng_world_get_stats(w);
	throng_scene_destroy(s);
	return r;
}

Test(events, the_same_in_both_engines_and_on_any_thread_count)
{
	const event_run ref = churned_events(THRONG_ENGINE_SIMD, 1);
	// Read once after every step, each call's event is listed once.
	cr_assert_eq(ref.added, ref.stats.agents_added);
	cr_assert_eq(ref.added, 6000u + 180u * 30u); // the scene's spawn is listed before the first step
	cr_assert_eq(ref.removed, ref.stats.agents_removed);
	cr_assert_eq(ref.removed, 180u * 30u + ref.sunk);
	cr_assert_gt(ref.sunk, 0u, "nobody left by the sink");
	cr_assert_gt(ref.entered, 100u, "too few zone entries to test anything (%llu)", (unsigned long long)ref.entered);
	cr_assert_gt(ref.left, 20u, "too few zone exits (%llu)", (unsigned long long)ref.left);
	cr_assert_gt(ref.arrived, 0u);
	const event_run two = churned_events(THRONG_ENGINE_SIMD, 2);
	const event_run scalar = churned_events(THRONG_ENGINE_SCALAR, 1);
	cr_assert_eq(two.hash, ref.hash, "2 threads list other events");
	cr_assert_eq(scalar.hash, ref.hash, "the scalar engine lists other events");
}

// A checkpoint keeps the zones, the arrival radius and who is in which:
// a restored world lists the same events as the one that never stopped.
Test(events, a_checkpoint_keeps_zones_and_who_is_in_them)
{
	throng_world* w = seek_world(THRONG_ENGINE_SIMD);
	throng_zone_def c = throng_zone_default_def();
	c.center = (throng_vec2){5.0f, 0.0f};
	c.radius = 3.0f;
	strcpy(c.name, "pond");
	const throng_vec2 tri[4] = {{8.0f, -3.0f}, {12.0f, -3.0f}, {12.0f, 3.0f}, {8.0f, 3.0f}};
	throng_zone_def p = throng_zone_default_def();
	p.shape = THRONG_ZONE_POLYGON;
	p.points = tri;
	p.point_count = 4;
	cr_assert_eq(throng_world_add_zone(w, &c, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_zone(w, &p, NULL), THRONG_OK);
	cr_assert_eq(throng_world_set_arrival_radius(w, 0.25f), THRONG_OK);
	for (int k = 0; k < 10; ++k) {
		thr_test_spawn(w, (throng_vec2){(float)k * 0.7f, (float)(k % 3) - 1.0f}, (throng_vec2){0, 0},
		               (throng_vec2){14.0f, 0.0f});
	}
	for (int s = 0; s < 200; ++s) { // some inside the pond now
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	size_t bytes = 0;
	cr_assert_eq(throng_world_write_checkpoint(w, NULL, 0, &bytes), THRONG_OK, "%s", throng_last_error());
	void* buf = malloc(bytes);
	cr_assert_not_null(buf);
	cr_assert_eq(throng_world_write_checkpoint(w, buf, bytes, &bytes), THRONG_OK, "%s", throng_last_error());
	throng_world* r = NULL;
	cr_assert_eq(throng_world_read_checkpoint(buf, bytes, &r), THRONG_OK, "%s", throng_last_error());
	free(buf);
	cr_assert_eq(throng_world_zone_count(r), 2u);
	uint32_t pond = 9;
	cr_assert_eq(throng_world_find_zone(r, "pond", &pond), THRONG_OK);
	cr_assert_eq(pond, 0u);
	uint32_t seen = 0;
	for (int s = 0; s < 900; ++s) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		cr_assert_eq(throng_world_step(r), THRONG_OK);
		cr_assert_eq(throng_world_hash(r), throng_world_hash(w), "step %d", s);
		const throng_event *a = NULL, *b = NULL;
		const uint32_t na = listed(w, &a), nb = listed(r, &b);
		cr_assert_eq(nb, na, "step %d: %u events after the restore, %u without", s, nb, na);
		for (uint32_t k = 0; k < na; ++k) {
			cr_assert(a[k].step == b[k].step && a[k].kind == b[k].kind && a[k].agent == b[k].agent &&
			                  a[k].zone == b[k].zone,
			          "step %d, event %u differs", s, k);
		}
		seen += na;
	}
	cr_assert_gt(seen, 10u, "too few events to tell (%u)", seen);
	throng_world_destroy(r);
	throng_world_destroy(w);
}

Test(events, a_sink_takes_out_who_enters_it)
{
	for (int en = 0; en < 2; ++en) {
		throng_world* w = seek_world(en == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD);
		throng_zone_def exit = throng_zone_default_def();
		exit.shape = THRONG_ZONE_BOX;
		exit.min = (throng_vec2){10.0f, -2.0f};
		exit.max = (throng_vec2){12.0f, 2.0f};
		exit.sink = true;
		uint32_t sink = 0;
		cr_assert_eq(throng_world_add_zone(w, &exit, &sink), THRONG_OK, "%s", throng_last_error());
		for (int k = 0; k < 3; ++k) { // walkers 0 and 1 go through the exit, 2 walks past it
			thr_test_spawn(w, (throng_vec2){(float)k, k == 2 ? 6.0f : 0.0f}, (throng_vec2){0, 0},
			               (throng_vec2){30.0f, k == 2 ? 6.0f : 0.0f});
		}
		uint32_t gone = 0;
		for (int s = 0; s < 60 * 20; ++s) {
			cr_assert_eq(throng_world_step(w), THRONG_OK);
			const throng_event* e = NULL;
			const uint32_t n = listed(w, &e);
			for (uint32_t k = 0; k < n; ++k) {
				if (e[k].kind != THRONG_EVENT_REMOVED) {
					continue;
				}
				// Its entry comes first, in the same step's list.
				bool entered = false;
				for (uint32_t j = 0; j < k; ++j) {
					entered |= e[j].kind == THRONG_EVENT_ENTERED && e[j].agent == e[k].agent && e[j].zone == sink &&
					           e[j].step == e[k].step;
				}
				cr_assert(entered && e[k].zone == sink && e[k].step == (uint64_t)s + 1u,
				          "engine %d: removal %u without its entry before it", en, k);
				throng_agent_state a;
				cr_assert_eq(throng_world_get_agent(w, e[k].agent, &a), THRONG_ERR_NOT_FOUND);
				gone++;
			}
		}
		cr_assert_eq(gone, 2u, "engine %d: %u left", en, gone);
		cr_assert_eq(throng_world_agent_count(w), 1u);
		cr_assert_eq(throng_world_get_stats(w).agents_removed, 2u);
		throng_world_destroy(w);
	}
}
