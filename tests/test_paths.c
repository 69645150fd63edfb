// SPDX-License-Identifier: MIT
// Path following and target selection, in both engines, with numbers
// worked by hand.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "behaviors.h"
#include "support.h"
#include "throng/throng.h"
#include "world_internal.h"

static const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};

static throng_world* open_world(throng_engine engine, float dt)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.bounds_mode = THRONG_BOUNDS_OPEN;
	d.dt = dt;
	d.record_forces = true;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

Test(path_follow, seeks_then_arrives_by_hand)
{
	thr_self s;
	memset(&s, 0, sizeof s);
	s.max_speed = 2.0f;
	s.max_force = 10.0f;
	// Not final: seek (3,4) from the origin at rest: desired (3,4)/5*2 =
	// (1.2, 1.6); force = desired - 0.
	vec2 f = thr_path_follow(&s, v2(3.0f, 4.0f), 0, 5.0f);
	cr_assert_float_eq(f.x, 1.2f, 1e-6f);
	cr_assert_float_eq(f.y, 1.6f, 1e-6f);
	// Final: arrive with slow radius 10 at distance 5: speed 2*0.5 = 1,
	// desired (0.6, 0.8).
	f = thr_path_follow(&s, v2(3.0f, 4.0f), 1, 10.0f);
	cr_assert_float_eq(f.x, 0.6f, 1e-6f);
	cr_assert_float_eq(f.y, 0.8f, 1e-6f);
}

/// One agent at (0,0) on a path (0.5,0) -> (10,0) -> (10,10), waypoint
/// radius 1: it starts within 1 m of waypoint 0, so on the first step it
/// heads for waypoint 1.
Test(path_follow, advances_within_the_waypoint_radius)
{
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e], 0.1f);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot slot = throng_slot_default_def(THRONG_PATH_FOLLOW);
		slot.params.waypoint_radius = 1.0f;
		slot.params.slow_radius = 2.0f;
		throng_controller_add(&c, slot);
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
		const throng_vec2 pts[3] = {{0.5f, 0.0f}, {10.0f, 0.0f}, {10.0f, 10.0f}};
		uint32_t path = 0;
		cr_assert_eq(throng_world_add_path(w, pts, 3, false, &path), THRONG_OK);
		throng_agent_def a = throng_agent_default_def();
		a.max_speed = 2.0f;
		a.max_force = 10.0f;
		a.path = path;
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK);
		throng_agent_state st;
		throng_world_get_agent(w, 0, &st);
		cr_assert_eq(st.waypoint, 1u, "engine %d", e);
		// Seek (10,0) at rest: desired (2,0), force (2,0) (< max_force);
		// v = 0.2 after dt 0.1.
		throng_vec2 f;
		throng_world_slot_force(w, 0, 0, &f);
		cr_assert_float_eq(f.x, 2.0f, 1e-6f);
		cr_assert_float_eq(f.y, 0.0f, 1e-6f);
		cr_assert_float_eq(st.velocity.x, 0.2f, 1e-6f);
		// Walk on: it reaches the last waypoint and stops there (arrive).
		for (int k = 0; k < 600; ++k) {
			throng_world_step(w);
		}
		throng_world_get_agent(w, 0, &st);
		cr_assert_eq(st.waypoint, 2u);
		cr_assert_float_eq(st.position.x, 10.0f, 0.05f, "x %g", st.position.x);
		cr_assert_float_eq(st.position.y, 10.0f, 0.05f, "y %g", st.position.y);
		cr_assert_lt(sqrtf(st.velocity.x * st.velocity.x + st.velocity.y * st.velocity.y), 0.05f);
		throng_world_destroy(w);
	}
}

Test(path_follow, a_loop_goes_back_to_the_first_waypoint)
{
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e], 0.1f);
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&c, throng_slot_default_def(THRONG_PATH_FOLLOW));
		throng_world_add_archetype(w, &c, NULL);
		const throng_vec2 pts[2] = {{0.0f, 0.0f}, {4.0f, 0.0f}};
		throng_world_add_path(w, pts, 2, true, NULL);
		throng_agent_def a = throng_agent_default_def();
		a.path = 0;
		a.position = (throng_vec2){3.5f, 0.0f};
		throng_world_spawn(w, &a, 1, NULL);
		// Heading for waypoint 1 (4,0), 0.5 m away, within the default
		// radius of 1 m: the loop sends it back to waypoint 0.
		cr_assert_eq(throng_world_set_path(w, 0, 0, 1), THRONG_OK);
		throng_world_step(w);
		throng_agent_state st;
		throng_world_get_agent(w, 0, &st);
		cr_assert_eq(st.waypoint, 0u, "engine %d", e);
		cr_assert_lt(st.velocity.x, 0.0f, "it turns back towards (0,0)");
		throng_world_destroy(w);
	}
}

Test(path_follow, a_world_takes_its_first_path_late)
{
	// No path column before the first path (core/store.h): every agent
	// tells THRONG_NO_PATH, through steps (reorders), a removal and a
	// growth; the first path makes the column, all THRONG_NO_PATH, and
	// the agent given a path keeps it through the reorders after.
	for (int e = 0; e < 2; ++e) {
		throng_world_def d = throng_world_default_def();
		d.engine = engines[e];
		d.capacity = 16;
		throng_world* w = NULL;
		cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_PATH_FOLLOW)), 0);
		(void)thr_test_archetype(w, &c);
		for (int k = 0; k < 40; ++k) {
			const float x = (float)((k * 13) % 80) - 40.0f, y = (float)((k * 7) % 80) - 40.0f;
			thr_test_spawn(w, (throng_vec2){x, y}, (throng_vec2){0, 0}, (throng_vec2){-x, -y});
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_remove_agent(w, 3), THRONG_OK);
		cr_assert_null(w->path);
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, 20, &a), THRONG_OK);
		cr_assert_eq(a.path, THRONG_NO_PATH);
		const throng_vec2 pts[2] = {{0, 0}, {10, 0}};
		uint32_t path = 0;
		cr_assert_eq(throng_world_add_path(w, pts, 2, false, &path), THRONG_OK, "%s", throng_last_error());
		cr_assert_not_null(w->path);
		cr_assert_eq(throng_world_set_path(w, 20, path, 1), THRONG_OK, "%s", throng_last_error());
		for (int k = 0; k < 40; ++k) { // grows the store
			thr_test_spawn(w, (throng_vec2){(float)k - 20.0f, 30.0f}, (throng_vec2){0, 0}, (throng_vec2){0, 0});
		}
		for (int k = 0; k < 3; ++k) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		for (uint32_t id = 0; id < 80; ++id) {
			if (id == 3) {
				continue;
			}
			cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
			cr_assert_eq(a.path, id == 20 ? path : THRONG_NO_PATH, "engine %d, agent %u: path %u", e, id, a.path);
		}
		throng_world_destroy(w);
	}
}

Test(path_follow, bad_paths_are_rejected)
{
	throng_world* w = open_world(THRONG_ENGINE_SIMD, 0.1f);
	const throng_vec2 pts[2] = {{0.0f, 0.0f}, {NAN, 0.0f}};
	cr_assert_eq(throng_world_add_path(w, pts, 2, false, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "points[1]") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_path(w, pts, 0, false, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_add_path(w, NULL, 1, false, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_path_count(w), 0u);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot slot = throng_slot_default_def(THRONG_PATH_FOLLOW);
	slot.params.waypoint_radius = -1.0f;
	throng_controller_add(&c, slot);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "waypoint_radius") != NULL, "%s", throng_last_error());
	c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_world_add_archetype(w, &c, NULL);
	throng_agent_def a = throng_agent_default_def();
	a.path = 3;
	cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_ERR_NOT_FOUND);
	cr_assert(strstr(throng_last_error(), "agents[0].path") != NULL, "%s", throng_last_error());
	a.path = THRONG_NO_PATH;
	throng_world_spawn(w, &a, 1, NULL);
	cr_assert_eq(throng_world_add_path(w, pts, 1, false, NULL), THRONG_OK);
	cr_assert_eq(throng_world_set_path(w, 0, 0, 1), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_set_path(w, 0, 5, 0), THRONG_ERR_NOT_FOUND);
	throng_world_destroy(w);
}

/// Hunter (group 0) at the origin; prey (group 1) at distances 5 (ids 1
/// and 2, a tie), 3 (id 3, but group 2) and 12 (id 4, beyond sight 10).
static throng_world* hunt_world(throng_engine engine, uint32_t every)
{
	throng_world* w = open_world(engine, 0.1f);
	throng_controller hunter = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
	pursue.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&hunter, pursue);
	hunter.target_rule = (throng_target_rule){true, 1, 10.0f, every, 0};
	throng_controller idle = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_assert_eq(throng_world_add_archetype(w, &hunter, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_archetype(w, &idle, NULL), THRONG_OK);
	throng_agent_def a[5];
	const float xs[5] = {0.0f, 5.0f, 0.0f, 3.0f, 12.0f};
	const float ys[5] = {0.0f, 0.0f, 5.0f, 0.0f, 0.0f};
	const uint32_t groups[5] = {0, 1, 1, 2, 1};
	for (int k = 0; k < 5; ++k) {
		a[k] = throng_agent_default_def();
		a[k].position = (throng_vec2){xs[k], ys[k]};
		a[k].group = groups[k];
		a[k].archetype = k == 0 ? 0 : 1;
	}
	cr_assert_eq(throng_world_spawn(w, a, 5, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

Test(target_rule, nearest_of_the_group_ties_to_the_lower_id)
{
	for (int e = 0; e < 2; ++e) {
		throng_world* w = hunt_world(engines[e], 1);
		throng_world_step(w);
		throng_agent_state st;
		throng_world_get_agent(w, 0, &st);
		// id 3 is nearer (3 m) but of group 2; ids 1 and 2 tie at 5 m.
		cr_assert_eq(st.target_agent, 1u, "engine %d chose %u", e, st.target_agent);
		// Pursuit of id 1 at rest: T = min(5/1.3, 1) = 1, prediction (5,0):
		// desired (1.3, 0); force limit((1.3, 0), 4).
		throng_vec2 f;
		throng_world_slot_force(w, 0, 0, &f);
		cr_assert_float_eq(f.x, 1.3f, 1e-6f);
		cr_assert_float_eq(f.y, 0.0f, 1e-6f);
		// Out of sight: none. Moves prey 1 and 2 away beyond 10 m.
		throng_world_destroy(w);
	}
}

Test(target_rule, out_of_sight_means_none_and_every_k_steps)
{
	for (int e = 0; e < 2; ++e) {
		throng_world* w = hunt_world(engines[e], 4);
		throng_agent_state st;
		// A target set by hand is kept until the rule is due: step 0 is.
		throng_world_set_target_agent(w, 0, 4);
		throng_world_step(w); // step 0: chosen
		throng_world_get_agent(w, 0, &st);
		cr_assert_eq(st.target_agent, 1u);
		throng_world_set_target_agent(w, 0, 4);
		for (int k = 1; k < 4; ++k) {
			throng_world_step(w); // steps 1..3: not due, kept
			throng_world_get_agent(w, 0, &st);
			cr_assert_eq(st.target_agent, 4u, "engine %d step %d", e, k);
		}
		throng_world_step(w); // step 4: due again
		throng_world_get_agent(w, 0, &st);
		cr_assert_eq(st.target_agent, 1u);
		throng_world_destroy(w);
	}
	// Nobody of the group within sight: none.
	throng_world* w = open_world(THRONG_ENGINE_SIMD, 0.1f);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.target_rule = (throng_target_rule){true, 7, 2.0f, 1, 0};
	throng_world_add_archetype(w, &c, NULL);
	throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
	a[1].position = (throng_vec2){1.0f, 0.0f}; // group 0, not 7
	a[0].target_agent = 1;
	throng_world_spawn(w, a, 2, NULL);
	throng_world_step(w);
	throng_agent_state st;
	throng_world_get_agent(w, 0, &st);
	cr_assert_eq(st.target_agent, THRONG_NO_AGENT);
	throng_world_destroy(w);
}

Test(target_rule, groups_that_share_a_cell_mark_are_told_apart)
{
	// Target selection skips grid cells without an agent of the rule's
	// group, by a mark per cell that groups 1, 9 and 17 share (and 2 and
	// 10). Hunter 0 (group 0) looks for group 9 within 10 m: id 1 (group
	// 1, 2 m) and id 2 (group 17, 3 m) are nearer but not of it; id 3
	// (group 9, 6 m) is. Hunter 4 looks for group 10: only id 5 (group 2)
	// shares its mark, so none.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e], 0.1f);
		throng_controller h9 = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		h9.target_rule = (throng_target_rule){true, 9, 10.0f, 1, 0};
		throng_controller h10 = h9;
		h10.target_rule.group = 10;
		throng_controller idle = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		cr_assert_eq(throng_world_add_archetype(w, &h9, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_add_archetype(w, &h10, NULL), THRONG_OK);
		cr_assert_eq(throng_world_add_archetype(w, &idle, NULL), THRONG_OK);
		throng_agent_def a[6];
		const float xs[6] = {0.0f, 2.0f, 0.0f, -6.0f, 30.0f, 31.0f};
		const float ys[6] = {0.0f, 0.0f, 3.0f, 0.0f, 30.0f, 30.0f};
		const uint32_t groups[6] = {0, 1, 17, 9, 0, 2};
		const uint32_t archs[6] = {0, 2, 2, 2, 1, 2};
		for (int k = 0; k < 6; ++k) {
			a[k] = throng_agent_default_def();
			a[k].position = (throng_vec2){xs[k], ys[k]};
			a[k].group = groups[k];
			a[k].archetype = archs[k];
		}
		cr_assert_eq(throng_world_spawn(w, a, 6, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		throng_agent_state st;
		throng_world_get_agent(w, 0, &st);
		cr_expect_eq(st.target_agent, 3u, "engine %d: hunter 0 chose %u", e, st.target_agent);
		throng_world_get_agent(w, 4, &st);
		cr_expect_eq(st.target_agent, THRONG_NO_AGENT, "engine %d: hunter 4 chose %u", e, st.target_agent);
		throng_world_destroy(w);
	}
}

/// 3,000 agents at random in 300 x 300 m (clusters and gaps), groups 0,
/// 1 and 9 (1 and 9 share a cell mark); every agent of group 0 looks for
/// the nearest of group 1 within 40 m (a box of 80 x 80 cells of 1 m:
/// searched ring by ring), the others for group 0 within 3 m. Each
/// choice equals the brute-force nearest over all agents (squared
/// distances in float as the library computes them, ties to the lower
/// id), on both engines. The world's bounds are [-half, half]^2: the
/// default's 100 m put most agents outside, in the border cells of a
/// dense grid; 20 km need a sparse grid of the 1 m cells.
static void nearest_by_brute_force(float half, bool sparse)
{
	enum { N = 3000 };
	for (int e = 0; e < 2; ++e) {
		throng_world_def d = throng_world_default_def();
		d.engine = engines[e];
		d.bounds_mode = THRONG_BOUNDS_OPEN;
		d.bounds_min = (throng_vec2){-half, -half};
		d.bounds_max = (throng_vec2){half, half};
		d.cell_size = 1.0f;
		d.capacity = N;
		throng_world* w = NULL;
		cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
		throng_controller far = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		far.target_rule = (throng_target_rule){true, 1, 40.0f, 1, 0};
		throng_controller near = far;
		near.target_rule.group = 0;
		near.target_rule.sight_radius = 3.0f;
		cr_assert_eq(throng_world_add_archetype(w, &far, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_add_archetype(w, &near, NULL), THRONG_OK);
		static throng_agent_def a[N];
		uint64_t rng = 11;
		for (int k = 0; k < N; ++k) {
			a[k] = throng_agent_default_def();
			// Half in a few dense clusters, half spread out.
			const float cx = k % 2 ? thr_test_uniform(&rng, 0.0f, 300.0f) : 50.0f + 100.0f * (float)(k % 3);
			const float cy = k % 2 ? thr_test_uniform(&rng, 0.0f, 300.0f) : 150.0f;
			const float spread = k % 2 ? 0.0f : 20.0f;
			a[k].position = (throng_vec2){cx + thr_test_uniform(&rng, -spread, spread),
			                              cy + thr_test_uniform(&rng, -spread, spread)};
			a[k].group = k % 5 == 0 ? 0u : k % 5 < 3 ? 1u : 9u;
			a[k].archetype = a[k].group == 0 ? 0u : 1u;
		}
		cr_assert_eq(throng_world_spawn(w, a, N, NULL), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(w->agent_grid.sparse, sparse, "bounds of %g m: the agent grid is %s", (double)(2.0f * half),
		             w->agent_grid.sparse ? "sparse" : "dense");
		uint32_t found = 0;
		for (uint32_t i = 0; i < N; ++i) {
			const uint32_t group = a[i].group == 0 ? 1u : 0u;
			const float sight = a[i].group == 0 ? 40.0f : 3.0f;
			uint32_t best = THRONG_NO_AGENT;
			float best_d2 = 0.0f;
			for (uint32_t j = 0; j < N; ++j) {
				if (j == i || a[j].group != group) {
					continue;
				}
				const float dx = a[j].position.x - a[i].position.x;
				const float dy = a[j].position.y - a[i].position.y;
				const float d2 = dx * dx + dy * dy;
				if (d2 < sight * sight && (best == THRONG_NO_AGENT || d2 < best_d2)) {
					best = j; // j ascending: a tie keeps the lower id
					best_d2 = d2;
				}
			}
			throng_agent_state st;
			cr_assert_eq(throng_world_get_agent(w, i, &st), THRONG_OK);
			cr_assert_eq(st.target_agent, best, "engine %d, agent %u: chose %u, nearest %u", e, i, st.target_agent, best);
			found += best != THRONG_NO_AGENT;
		}
		cr_expect_gt(found, N / 2, "most choices find someone (%u)", found);
		throng_world_destroy(w);
	}
}

Test(target_rule, the_nearest_by_brute_force_on_random_worlds) { nearest_by_brute_force(50.0f, false); }

Test(target_rule, the_nearest_by_brute_force_in_a_sparse_grid) { nearest_by_brute_force(1.0e4f, true); }

Test(target_rule, a_world_without_agents_steps_with_a_rule_due)
{
	// Step 0 is always due. With no agent the step reserves no cell marks
	// for the choice, and the choice must not run (it wrote through a NULL
	// pointer: a part world of an empty block, docs/DISTRIBUTED.md).
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(e == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD, 0.1f);
		throng_controller hunter = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		hunter.target_rule = (throng_target_rule){true, 1, 10.0f, 1, 0};
		cr_assert_eq(throng_world_add_archetype(w, &hunter, NULL), THRONG_OK);
		for (int k = 0; k < 3; ++k) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		cr_assert_eq(throng_world_get_stats(w).steps, 3u);
		throng_world_destroy(w);
	}
}

Test(target_rule, bad_rules_are_rejected)
{
	throng_world* w = open_world(THRONG_ENGINE_SIMD, 0.1f);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.target_rule = (throng_target_rule){true, 0, 0.0f, 1, 0};
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_rule.sight_radius") != NULL, "%s", throng_last_error());
	c.target_rule = (throng_target_rule){true, 0, 5.0f, 0, 0};
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_rule.every") != NULL, "%s", throng_last_error());
	throng_world_destroy(w);
}
