// SPDX-License-Identifier: MIT
// Counters (throng.h, "Counters"): the work each step records, worked by
// hand on worlds of two and three agents for both engines; the counts
// both engines share, equal on a scene; the SIMD engine's counts equal on
// 1 and 2 threads; timing only when asked; counting changes no bit.
#include <criterion/criterion.h>
#include <string.h>

#include "support.h"
#include "throng/behavior.h"
#include "world_internal.h"

/// The engines' names in assertion messages.
static const char* engine_name(throng_engine e) { return e == THRONG_ENGINE_SIMD ? "simd" : "scalar"; }

/// A world over [0, 10]^2 with agent-grid cells of 2 m (5 x 5 cells), one
/// archetype with a separation slot of radius 1.5 m, and three agents at
/// rest: A0 (3, 3) in cell (1, 1), A1 (4, 3) in cell (2, 1), 1 m from
/// A0, and A2 (3, 5.5) in cell (1, 2), 2.5 m from A0 and farther from A1.
static throng_world* three_agents(throng_engine engine, throng_blend_mode mode)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){0.0f, 0.0f};
	def.bounds_max = (throng_vec2){10.0f, 10.0f};
	def.cell_size = 2.0f;
	def.capacity = 8;
	def.engine = engine;
	def.threads = 1;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(mode);
	throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
	s.params.neighbor_radius = 1.5f;
	throng_controller_add(&c, s);
	uint32_t arch;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	const throng_vec2 at[3] = {{3.0f, 3.0f}, {4.0f, 3.0f}, {3.0f, 5.5f}};
	throng_agent_def defs[3];
	for (int k = 0; k < 3; ++k) {
		defs[k] = throng_agent_default_def();
		defs[k].position = at[k];
		defs[k].archetype = arch;
	}
	cr_assert_eq(throng_world_spawn(w, defs, 3, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// One step of `w` with work counting on; its counters.
static throng_world_counters one_counted_step(throng_world* w)
{
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	throng_world_counters last, total;
	cr_assert_eq(throng_world_get_counters(w, &last, &total), THRONG_OK);
	cr_assert_eq(memcmp(&last, &total, sizeof last), 0, "after one step the total is that step's counters");
	return last;
}

// The walks, by hand. Query boxes (radius 1.5, cells of 2 m):
//   A0: x 1.5..4.5, y 1.5..4.5 -> cells x 0..2, y 0..2: 9 cells; holds A0, A1, A2
//   A1: x 2.5..5.5, y 1.5..4.5 -> cells x 1..2, y 0..2: 6 cells; holds A0, A1, A2
//   A2: x 1.5..4.5, y 4.0..7.0 -> cells x 0..2, y 2..3: 6 cells; holds A2
// Candidates 3 + 3 + 1 = 7; within 1.5 m of another: A0-A1 both ways (2);
// separation takes those 2. The scalar gather tests each other agent inside
// the radius for the one slot: 1 + 1 + 0 = 2.
// The SIMD engine's one block (lanes A0, A1, A2 in cell order) walks rows
// in step: row 0 (y 0, y 0, y 2) is 0, 0 and 1 long (A2 itself): 1 vector
// step; row 1 (y 1, y 1, y 3): A0 and A1 each see A0, A1: 2 steps; row 2
// (y 2, y 2, -): A2 for both: 1 step. 4 steps, 32 lane slots. The walk
// holds the candidates within the slot's radius (A0 holds A1, A1 holds A0,
// A2 none), and separation then takes them in one vector step: 8 lanes.
static void expect_three_agents(throng_engine engine)
{
	const char* e = engine_name(engine);
	const bool simd = engine == THRONG_ENGINE_SIMD;
	throng_world* w = three_agents(engine, THRONG_BLEND_WEIGHTED);
	throng_world_counters c = one_counted_step(w);
	cr_expect_eq(c.steps, 1u, "%s", e);
	cr_expect_eq(c.agents, 3u, "%s", e);
	cr_expect_eq(c.lanes, simd ? 8u : 3u, "%s: lanes %llu", e, (unsigned long long)c.lanes);
	cr_expect_eq(c.grid_cells, 25u, "%s: grid cells %llu", e, (unsigned long long)c.grid_cells);
	cr_expect_eq(c.slot_lanes[THRONG_SEPARATION], simd ? 8u : 3u, "%s", e);
	cr_expect_eq(c.blend_weighted_lanes, simd ? 8u : 3u, "%s", e);
	cr_expect_eq(c.blend_sum_terms, simd ? 8u : 3u, "%s", e);
	cr_expect_eq(c.blend_budget_terms + c.blend_priority_lanes + c.blend_hybrid_lanes + c.blend_relaxation_lanes, 0u,
	             "%s", e);
	cr_expect_eq(c.neighbor_walks, 3u, "%s", e);
	cr_expect_eq(c.neighbor_cells, 21u, "%s: cells %llu", e, (unsigned long long)c.neighbor_cells);
	cr_expect_eq(c.neighbor_candidates, 7u, "%s: candidates %llu", e, (unsigned long long)c.neighbor_candidates);
	cr_expect_eq(c.neighbor_in_radius, 2u, "%s: in radius %llu", e, (unsigned long long)c.neighbor_in_radius);
	cr_expect_eq(c.neighbor_taken[THRONG_SEPARATION], 2u, "%s", e);
	cr_expect_eq(c.neighbor_lane_slots, simd ? 32u : 7u, "%s: lane slots %llu", e,
	             (unsigned long long)c.neighbor_lane_slots);
	cr_expect_eq(c.neighbor_body_lanes[THRONG_SEPARATION], simd ? 8u : 2u, "%s: body lanes %llu", e,
	             (unsigned long long)c.neighbor_body_lanes[THRONG_SEPARATION]);
	cr_expect_eq(c.neighbor_slot_tests, simd ? 0u : 2u, "%s: slot tests %llu", e,
	             (unsigned long long)c.neighbor_slot_tests);
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		if (k != THRONG_SEPARATION) {
			cr_expect_eq(c.slot_lanes[k] + c.neighbor_taken[k] + c.neighbor_body_lanes[k], 0u, "%s: kind %d", e, k);
		}
	}
	cr_expect_eq(c.obstacle_scans + c.obstacle_cells + c.obstacle_tests + c.wall_scans + c.wall_cells + c.wall_tests +
	                 c.target_choices + c.target_candidates + c.unaligned_push_lanes,
	             0u, "%s", e);
	cr_expect_eq(c.step_ns, 0u, "%s: time is not counted without THRONG_COUNT_TIME", e);
	// The stats count the same candidates.
	cr_expect_eq(throng_world_get_stats(w).neighbor_candidates, 7u, "%s", e);
	throng_world_destroy(w);
}

Test(hand, three_agents_scalar) { expect_three_agents(THRONG_ENGINE_SCALAR); }
Test(hand, three_agents_simd) { expect_three_agents(THRONG_ENGINE_SIMD); }

/// The three agents in the relaxation mode: the same walk; the blend
/// counts relaxation lanes, and its one slot (the drive) as a summed term.
static void expect_three_agents_relaxation(throng_engine engine)
{
	const char* e = engine_name(engine);
	const bool simd = engine == THRONG_ENGINE_SIMD;
	throng_world* w = three_agents(engine, THRONG_BLEND_RELAXATION);
	throng_world_counters c = one_counted_step(w);
	cr_expect_eq(c.blend_relaxation_lanes, simd ? 8u : 3u, "%s", e);
	cr_expect_eq(c.blend_sum_terms, simd ? 8u : 3u, "%s", e);
	cr_expect_eq(c.blend_weighted_lanes + c.blend_priority_lanes + c.blend_hybrid_lanes + c.blend_budget_terms, 0u,
	             "%s", e);
	cr_expect_eq(c.neighbor_candidates, 7u, "%s", e);
	cr_expect_eq(c.neighbor_taken[THRONG_SEPARATION], 2u, "%s", e);
	throng_world_destroy(w);
}

Test(hand, three_agents_relaxation_scalar) { expect_three_agents_relaxation(THRONG_ENGINE_SCALAR); }
Test(hand, three_agents_relaxation_simd) { expect_three_agents_relaxation(THRONG_ENGINE_SIMD); }

/// A world over [0, 12]^2 with an obstacle slot and a wall slot (look-ahead
/// 2.7 m; agents of radius 0.3, so both reaches are 3 m and the shape
/// grids have cells of 3 m, 4 x 4), an obstacle of radius 0.5 at
/// (6.5, 4.5) (cell (2, 1)), a wall from (4.5, 6.5) to (7.5, 6.5) (cells
/// (1, 2) and (2, 2)), agent A at (4.5, 4.5) moving along +x at 1 m/s
/// (cell (1, 1)) and agent B at rest at (10.5, 10.5) (cell (3, 3)).
static throng_world* two_feelers(throng_engine engine)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){0.0f, 0.0f};
	def.bounds_max = (throng_vec2){12.0f, 12.0f};
	def.bounds_mode = THRONG_BOUNDS_OPEN;
	def.capacity = 8;
	def.engine = engine;
	def.threads = 1;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_PRIORITY);
	throng_slot s = throng_slot_default_def(THRONG_OBSTACLE_AVOID);
	s.params.look_ahead = 2.7f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_WALL_AVOID);
	s.params.look_ahead = 2.7f;
	throng_controller_add(&c, s);
	uint32_t arch;
	cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){6.5f, 4.5f}, 0.5f, NULL), THRONG_OK);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){4.5f, 6.5f}, (throng_vec2){7.5f, 6.5f}, NULL), THRONG_OK);
	throng_agent_def defs[2];
	for (int k = 0; k < 2; ++k) {
		defs[k] = throng_agent_default_def();
		defs[k].archetype = arch;
	}
	defs[0].position = (throng_vec2){4.5f, 4.5f};
	defs[0].velocity = (throng_vec2){1.0f, 0.0f};
	defs[1].position = (throng_vec2){10.5f, 10.5f};
	cr_assert_eq(throng_world_spawn(w, defs, 2, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

// The feelers, by hand. The scalar engine queries each agent's box:
//   obstacles, half-size 2.7 + 0.3: A x, y 1.5..7.5 -> cells 0..2 x 0..2 (9),
//     lists the obstacle; B 7.5..13.5 -> cells 2..3 x 2..3 (4), lists none
//   walls, half-size 2.7: A 1.8..7.2 -> 9 cells, lists the wall twice (it
//     lies in two of them); B 7.8..13.2 -> 4 cells, lists it once (cell (2, 2))
// so obstacles: 13 cells, 1 scan, 1 test; walls: 13 cells, 2 scans, 3 tests.
// The SIMD engine scans once for the block, around its moving lane A only
// (B is at rest): the same 9 cells as A's own box for either kind, each
// shape entry tested on all 8 lanes (obstacle 1 entry: 8; wall 2: 16). A's
// feeler hits the obstacle 2 m ahead (8 lanes form the force); no wall
// feeler reaches the wall 2 m to the side.
static void expect_two_feelers(throng_engine engine)
{
	const char* e = engine_name(engine);
	const bool simd = engine == THRONG_ENGINE_SIMD;
	throng_world* w = two_feelers(engine);
	throng_world_counters c = one_counted_step(w);
	cr_expect_eq(c.agents, 2u, "%s", e);
	cr_expect_eq(c.slot_lanes[THRONG_OBSTACLE_AVOID], simd ? 8u : 2u, "%s", e);
	cr_expect_eq(c.slot_lanes[THRONG_WALL_AVOID], simd ? 8u : 2u, "%s", e);
	cr_expect_eq(c.blend_priority_lanes, simd ? 8u : 2u, "%s", e);
	cr_expect_eq(c.blend_budget_terms, simd ? 16u : 4u, "%s", e);
	cr_expect_eq(c.obstacle_cells, simd ? 9u : 13u, "%s: obstacle cells %llu", e, (unsigned long long)c.obstacle_cells);
	cr_expect_eq(c.obstacle_scans, simd ? 8u : 1u, "%s: obstacle scans %llu", e, (unsigned long long)c.obstacle_scans);
	cr_expect_eq(c.obstacle_tests, simd ? 8u : 1u, "%s: obstacle tests %llu", e, (unsigned long long)c.obstacle_tests);
	cr_expect_eq(c.obstacle_hit_lanes, simd ? 8u : 0u, "%s", e);
	cr_expect_eq(c.wall_cells, simd ? 9u : 13u, "%s: wall cells %llu", e, (unsigned long long)c.wall_cells);
	cr_expect_eq(c.wall_scans, simd ? 8u : 2u, "%s: wall scans %llu", e, (unsigned long long)c.wall_scans);
	cr_expect_eq(c.wall_tests, simd ? 16u : 3u, "%s: wall tests %llu", e, (unsigned long long)c.wall_tests);
	cr_expect_eq(c.wall_hit_lanes, 0u, "%s", e);
	cr_expect_eq(c.neighbor_walks + c.neighbor_candidates, 0u, "%s", e);
	// The hit steered A: its force is not zero.
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(w, 0, &a), THRONG_OK);
	cr_expect(a.velocity.y != 0.0f, "%s: the obstacle feeler turned A", e);
	throng_world_destroy(w);
}

Test(hand, two_feelers_scalar) { expect_two_feelers(THRONG_ENGINE_SCALAR); }
Test(hand, two_feelers_simd) { expect_two_feelers(THRONG_ENGINE_SIMD); }

/// Steps `name` (`agents` agents) `steps` times on `engine` with `threads`
/// threads, counting work and time; the summed counters, the hash, and
/// the team size of the SIMD engine's parallel region in the last step.
static throng_world_counters run_counted(const char* name, uint32_t agents, throng_engine engine, uint32_t threads,
                                         int steps, uint64_t* hash, uint32_t* team)
{
	throng_scene* s = thr_test_scene_threads(name, agents, 1, engine, threads);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_ALL), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	throng_world_counters total;
	cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
	*hash = throng_world_hash(w);
	*team = w->region_team[THR_REGION_BLOCKS];
	throng_scene_destroy(s);
	return total;
}

/// The counts both engines share.
static void expect_shared_equal(const throng_world_counters* a, const throng_world_counters* b, const char* what)
{
#define SAME(f) cr_expect_eq(a->f, b->f, "%s: " #f " %llu vs %llu", what, (unsigned long long)a->f, (unsigned long long)b->f)
	SAME(steps);
	SAME(agents);
	SAME(grid_cells);
	SAME(neighbor_walks);
	SAME(neighbor_cells);
	SAME(neighbor_candidates);
	SAME(neighbor_in_radius);
	SAME(target_choices);
	SAME(target_candidates);
	SAME(target_tests);
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		SAME(neighbor_taken[k]);
	}
#undef SAME
}

/// The work fields of two counters (everything but the time) are equal.
static bool same_work(const throng_world_counters* a, const throng_world_counters* b)
{
	return memcmp(a, b, offsetof(throng_world_counters, step_ns)) == 0;
}

// Above THR_PARALLEL_MIN_AGENTS agents, so that the parallel regions run
// on 2 threads; a few steps of field (neighbours and both feelers) and
// charge (target rules, six archetypes, hybrid blending).
static void expect_engines_and_threads(const char* name, uint32_t agents, int steps)
{
	uint64_t h_scalar, h1, h2;
	uint32_t team_scalar, team1, team2;
	throng_world_counters scalar = run_counted(name, agents, THRONG_ENGINE_SCALAR, 1, steps, &h_scalar, &team_scalar);
	throng_world_counters one = run_counted(name, agents, THRONG_ENGINE_SIMD, 1, steps, &h1, &team1);
	throng_world_counters two = run_counted(name, agents, THRONG_ENGINE_SIMD, 2, steps, &h2, &team2);
	cr_expect_eq(h_scalar, h1, "%s: the engines agree", name);
	cr_expect_eq(h1, h2, "%s: 1 and 2 threads agree", name);
	cr_assert_eq(team2, 2u, "%s: the SIMD pass ran on 2 threads (team %u)", name, team2);
	cr_assert_eq(team1, 1u, "%s", name);
	cr_expect_eq(scalar.agents, (uint64_t)agents * (uint64_t)steps, "%s", name);
	cr_expect_gt(scalar.neighbor_candidates, scalar.agents, "%s: the walks did work", name);
	cr_expect_gt(scalar.neighbor_in_radius, 0u, "%s", name);
	expect_shared_equal(&scalar, &one, name);
	cr_expect(same_work(&one, &two), "%s: every SIMD count is the same on 1 and 2 threads", name);
	// Lanes: the SIMD engine evaluates whole vectors, at least one lane per agent.
	cr_expect_geq(one.lanes, one.agents, "%s", name);
	cr_expect_eq(one.lanes % 8u, 0u, "%s", name);
	cr_expect_geq(one.neighbor_lane_slots, one.neighbor_candidates, "%s", name);
	cr_expect_eq(scalar.neighbor_lane_slots, scalar.neighbor_candidates, "%s", name);
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		cr_expect_geq(one.slot_lanes[k], scalar.slot_lanes[k], "%s: kind %d", name, k);
		cr_expect_eq(scalar.neighbor_body_lanes[k], scalar.neighbor_taken[k], "%s: kind %d", name, k);
	}
}

Test(engines, field_same_work_and_threads, .timeout = 300) { expect_engines_and_threads("field", 6000, 3); }
Test(engines, charge_same_work_and_threads, .timeout = 300)
{
	// Step 0 chooses targets for every agent.
	expect_engines_and_threads("charge", 6000, 2);
}

Test(engines, charge_target_counts)
{
	uint64_t h;
	uint32_t team;
	throng_world_counters c = run_counted("charge", 600, THRONG_ENGINE_SCALAR, 1, 1, &h, &team);
	cr_expect_eq(c.target_choices, 600u, "every rule is due at step 0");
	cr_expect_gt(c.target_candidates, c.target_tests);
	cr_expect_gt(c.target_tests, 0u);
}

Test(counting, does_not_change_a_bit)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD;
		uint64_t hashes[2];
		for (int on = 0; on < 2; ++on) {
			throng_scene* s = thr_test_scene("field", 2000, engine);
			cr_assert_eq(throng_world_set_counting(throng_scene_world(s), on ? THRONG_COUNT_ALL : THRONG_COUNT_OFF),
			             THRONG_OK);
			for (int k = 0; k < 20; ++k) {
				cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
			}
			hashes[on] = throng_world_hash(throng_scene_world(s));
			throng_scene_destroy(s);
		}
		cr_expect_eq(hashes[0], hashes[1], "%s: counting on and off give the same state", engine_name(engine));
	}
}

Test(counting, time_only_when_asked)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SCALAR : THRONG_ENGINE_SIMD;
		const char* name = engine_name(engine);
		throng_scene* s = thr_test_scene("field", 2000, engine);
		throng_world* w = throng_scene_world(s);
		throng_world_counters last, total, zero;
		memset(&zero, 0, sizeof zero);

		// Off (the default): nothing at all.
		cr_expect_eq(throng_world_counting(w), 0u);
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		cr_assert_eq(throng_world_get_counters(w, &last, &total), THRONG_OK);
		cr_expect_eq(memcmp(&last, &zero, sizeof zero), 0, "%s: off counts nothing", name);
		cr_expect_eq(memcmp(&total, &zero, sizeof zero), 0, "%s", name);

		// Work only: no time.
		cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK);
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		cr_assert_eq(throng_world_get_counters(w, &last, NULL), THRONG_OK);
		cr_expect_eq(last.agents, 2000u, "%s", name);
		cr_expect_eq(last.step_ns, 0u, "%s", name);
		for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
			cr_expect_eq(last.stage_ns[k], 0u, "%s: stage %s", name, throng_stage_name((throng_stage)k));
		}

		// Time only: no work, and the stages partition the step.
		cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_TIME), THRONG_OK);
		cr_assert_eq(throng_world_counting(w), (uint32_t)THRONG_COUNT_TIME);
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		cr_assert_eq(throng_world_get_counters(w, &last, &total), THRONG_OK);
		cr_expect_eq(last.steps, 1u, "%s", name);
		cr_expect_eq(total.steps, 2u, "%s", name);
		cr_expect_eq(last.agents + last.lanes + last.neighbor_candidates, 0u, "%s: no work counted", name);
		cr_expect_gt(last.step_ns, 0u, "%s", name);
		cr_expect_gt(last.stage_ns[THRONG_STAGE_PASS], 0u, "%s", name);
		cr_expect_gt(last.stage_ns[THRONG_STAGE_CONTACTS], 0u, "%s: the contact pass is timed", name);
		uint64_t sum = 0;
		for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
			sum += last.stage_ns[k];
		}
		cr_expect_eq(sum, last.step_ns, "%s: stages %llu ns, step %llu ns", name, (unsigned long long)sum,
		             (unsigned long long)last.step_ns);
		cr_expect_geq(total.step_ns, last.step_ns, "%s", name);
		throng_scene_destroy(s);
	}
}

Test(counting, totals_sum_the_steps)
{
	throng_scene* s = thr_test_scene("field", 1000, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK);
	uint64_t candidates = 0, lanes = 0;
	for (int k = 0; k < 5; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		throng_world_counters last;
		cr_assert_eq(throng_world_get_counters(w, &last, NULL), THRONG_OK);
		cr_expect_eq(last.steps, 1u);
		candidates += last.neighbor_candidates;
		lanes += last.lanes;
	}
	throng_world_counters total;
	cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
	cr_expect_eq(total.steps, 5u);
	cr_expect_eq(total.agents, 5000u);
	cr_expect_eq(total.neighbor_candidates, candidates);
	cr_expect_eq(total.lanes, lanes);
	cr_expect_eq(lanes, 5u * 1000u, "1000 agents fill 125 blocks of 8");
	// Setting counting again clears the counters.
	cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_WORK), THRONG_OK);
	cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
	cr_expect_eq(total.steps, 0u);
	cr_expect_eq(total.neighbor_candidates, 0u);
	throng_scene_destroy(s);
}

Test(counting, bad_arguments)
{
	cr_expect_eq(throng_world_set_counting(NULL, THRONG_COUNT_WORK), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_eq(throng_world_get_counters(NULL, NULL, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect_str_eq(throng_last_error(), "throng_world_get_counters: world is NULL");
	cr_expect_eq(throng_world_counting(NULL), 0u);
	throng_scene* s = thr_test_scene("field", 100, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	cr_expect_eq(throng_world_set_counting(w, 4u), THRONG_ERR_INVALID_ARGUMENT);
	cr_expect(strstr(throng_last_error(), "throng_world_set_counting: what = 0x4") != NULL, "%s",
	          throng_last_error());
	cr_expect_eq(throng_world_counting(w), 0u, "a rejected call changes nothing");
	throng_scene_destroy(s);
}

Test(counting, stage_names)
{
	const char* want[THRONG_STAGE_COUNT] = {"prepare", "sort", "targets", "pass", "contacts", "finish"};
	for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
		cr_expect_str_eq(throng_stage_name((throng_stage)k), want[k]);
	}
	cr_expect_null(throng_stage_name(THRONG_STAGE_COUNT));
	cr_expect_null(throng_stage_name((throng_stage)-1));
}
