// SPDX-License-Identifier: MIT
// Unit tests of the controller: thr_blend in its three modes (SPEC.md "The
// controller") with numbers worked by hand, and the slot and controller
// helpers of throng/behavior.h (the names: test_names.c).
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "behaviors.h"
#include "support.h"
#include "throng/behavior.h"

#define TOL 1.0e-5f

/// thr_blend of the forces f (one per slot) under limit, by a controller
/// built field by field (independent of the helpers under test): `mode`,
/// one THRONG_SEEK slot per character of `slots` with weight w[k], '.' an
/// enabled slot, 'p' an enabled priority slot, 'x' a disabled one, 'X' a
/// disabled priority slot, 'h' an enabled THRONG_HEADWAY slot (its force
/// (V, 0), V the speed it allows). The agent moves at v; relaxation mode
/// uses tau; its heading is h (the headway measured along it). *out (when
/// not NULL) gets the forces as the blend leaves them.
/// Whether blend_at_h's agent stands beside a wall (thr_blend's by_wall).
static bool beside_wall = true;

static vec2 blend_at_h(throng_blend_mode mode, const char* slots, const float* w, const vec2* f, float limit, vec2 v,
                       vec2 h, float tau, vec2* out)
{
	throng_controller c;
	memset(&c, 0, sizeof c);
	c.mode = mode;
	c.relaxation_time = tau;
	c.slot_count = (uint32_t)strlen(slots);
	for (uint32_t k = 0; k < c.slot_count; ++k) {
		c.slots[k].kind = slots[k] == 'h' ? THRONG_HEADWAY : THRONG_SEEK;
		c.slots[k].weight = w[k];
		c.slots[k].enabled = slots[k] == '.' || slots[k] == 'p' || slots[k] == 'h';
		c.slots[k].priority = slots[k] == 'p' || slots[k] == 'X';
	}
	vec2 forces[THRONG_MAX_SLOTS];
	memcpy(forces, f, c.slot_count * sizeof *f);
	vec2 total = thr_blend(&c, forces, limit, v, h, beside_wall);
	if (out != NULL) {
		memcpy(out, forces, c.slot_count * sizeof *f);
	}
	return total;
}

/// blend_at_h with the heading (1,0).
static vec2 blend_at(throng_blend_mode mode, const char* slots, const float* w, const vec2* f, float limit, vec2 v,
                     float tau, vec2* out)
{
	return blend_at_h(mode, slots, w, f, limit, v, v2(1.0f, 0.0f), tau, out);
}

/// blend_at for an agent at rest, outside the relaxation mode.
static vec2 blend(throng_blend_mode mode, const char* slots, const float* w, const vec2* f, float limit)
{
	return blend_at(mode, slots, w, f, limit, v2(0.0f, 0.0f), 0.5f, NULL);
}

#define WEIGHTS(...) ((const float[]){__VA_ARGS__})
#define FORCES(...) ((const vec2[]){__VA_ARGS__})

// ---------------------------------------------------------------- weighted

Test(blend_weighted, sum_under_limit)
{
	// 1*(1,0) + 2*(0,1) = (1,2), |.|=2.236 < 10 -> (1,2)
	vec2 got = blend(THRONG_BLEND_WEIGHTED, "..", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0, 1}), 10.0f);
	THR_EXPECT_VEC(got, 1.0f, 2.0f, TOL);
}

Test(blend_weighted, sum_then_limit)
{
	// (1,2), |.|=2.2360680 > 1 -> (0.4472136,0.8944272)
	vec2 got = blend(THRONG_BLEND_WEIGHTED, "...", WEIGHTS(1.0f, 2.0f, 0.5f), FORCES({1, 0}, {0, 1}, {0, 0}), 1.0f);
	THR_EXPECT_VEC(got, 0.4472136f, 0.8944272f, TOL);
}

Test(blend_weighted, limit_applies_to_the_sum_not_each_term)
{
	// (3,0)+(-2,0)=(1,0), |.|=1 < 2 -> (1,0)  (limiting each term first would give (0,0))
	vec2 got = blend(THRONG_BLEND_WEIGHTED, "..", WEIGHTS(1.0f, 1.0f), FORCES({3, 0}, {-2, 0}), 2.0f);
	THR_EXPECT_VEC(got, 1.0f, 0.0f, TOL);
}

Test(blend_weighted, disabled_slot_skipped)
{
	const float* w = WEIGHTS(1.0f, 5.0f, 2.0f);
	// slot 1 disabled (force 0): 1*(1,0) + 2*(0,1) = (1,2)
	THR_EXPECT_VEC(blend(THRONG_BLEND_WEIGHTED, ".x.", w, FORCES({1, 0}, {0, 0}, {0, 1}), 10.0f), 1.0f, 2.0f, TOL);
	// a disabled slot is skipped whatever its entry holds -> still (1,2)
	THR_EXPECT_VEC(blend(THRONG_BLEND_WEIGHTED, ".x.", w, FORCES({1, 0}, {100, 100}, {0, 1}), 10.0f), 1.0f, 2.0f, TOL);
}

Test(blend_weighted, zero_slots_is_zero)
{
	THR_EXPECT_VEC(blend(THRONG_BLEND_WEIGHTED, "", NULL, FORCES({0, 0}), 3.0f), 0.0f, 0.0f, 0.0f);
}

// ---------------------------------------------------------------- priority

Test(blend_priority, all_fit_in_budget)
{
	// budget 3: (1,0) -> budget 2; (0,1) -> budget 1; total (1,1)
	vec2 got = blend(THRONG_BLEND_PRIORITY, "..", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0, 1}), 3.0f);
	THR_EXPECT_VEC(got, 1.0f, 1.0f, TOL);
}

Test(blend_priority, budget_runs_out_mid_list)
{
	// budget 3: (2,0), |.|=2 <= 3 -> total (2,0), budget 1;
	// (0,3), |.|=3 > 1 -> cut to (0,1), total (2,1), budget 0 -> stop; (5,5) adds nothing
	vec2 got = blend(THRONG_BLEND_PRIORITY, "...", WEIGHTS(1.0f, 1.0f, 1.0f), FORCES({2, 0}, {0, 3}, {5, 5}), 3.0f);
	THR_EXPECT_VEC(got, 2.0f, 1.0f, TOL);
}

Test(blend_priority, weight_then_cut)
{
	// budget 3: 0.5*(0,4)=(0,2) -> budget 1; (3,4), |.|=5 > 1 -> (0.6,0.8), total (0.6,2.8),
	// budget 0 -> stop; the third (weighted (-4,0)) adds nothing
	vec2 got = blend(THRONG_BLEND_PRIORITY, "...", WEIGHTS(0.5f, 1.0f, 4.0f), FORCES({0, 4}, {3, 4}, {-1, 0}), 3.0f);
	THR_EXPECT_VEC(got, 0.6f, 2.8f, TOL);
}

Test(blend_priority, first_slot_exceeds_budget)
{
	// budget 2: (6,8), |.|=10 > 2 -> (1.2,1.6), budget 0 -> the second adds nothing
	vec2 got = blend(THRONG_BLEND_PRIORITY, "..", WEIGHTS(1.0f, 1.0f), FORCES({6, 8}, {0, -1}), 2.0f);
	THR_EXPECT_VEC(got, 1.2f, 1.6f, TOL);
}

Test(blend_priority, disabled_slot_skipped)
{
	const float* w = WEIGHTS(1.0f, 1.0f, 1.0f);
	// slot 0 disabled; (2,0) -> budget 1; (0,3) cut to (0,1) -> (2,1)
	THR_EXPECT_VEC(blend(THRONG_BLEND_PRIORITY, "x..", w, FORCES({0, 0}, {2, 0}, {0, 3}), 3.0f), 2.0f, 1.0f, TOL);
	// a disabled slot must not spend the budget whatever its entry holds -> (2,1)
	THR_EXPECT_VEC(blend(THRONG_BLEND_PRIORITY, "x..", w, FORCES({0, 30}, {2, 0}, {0, 3}), 3.0f), 2.0f, 1.0f, TOL);
}

// ---------------------------------------------------------------- hybrid

Test(blend_hybrid, priority_first_then_rest_limited)
{
	// budget 5: priority slot 0 (0,2) -> budget 3; priority slot 2 (1,0) -> budget 2;
	// rest: slot 1 (3,0), |.|=3 > 2 -> (2,0); total (0,2)+(1,0)+(2,0)=(3,2)
	vec2 got = blend(THRONG_BLEND_HYBRID, "p.p", WEIGHTS(1.0f, 1.0f, 1.0f), FORCES({0, 2}, {3, 0}, {1, 0}), 5.0f);
	THR_EXPECT_VEC(got, 3.0f, 2.0f, TOL);
}

Test(blend_hybrid, rest_is_weighted_sum_then_limited)
{
	// budget 3: priority (0,1) -> budget 2; rest: 2*(1,0)+0.5*(-2,6)=(1,3), |.|=3.1622777 > 2
	// -> (1,3)*2/3.1622777=(0.6324555,1.8973666); total (0.6324555,2.8973666)
	vec2 got = blend(THRONG_BLEND_HYBRID, "p..", WEIGHTS(1.0f, 2.0f, 0.5f), FORCES({0, 1}, {1, 0}, {-2, 6}), 3.0f);
	THR_EXPECT_VEC(got, 0.6324555f, 2.8973666f, TOL);
}

Test(blend_hybrid, rest_under_remaining_budget_unchanged)
{
	// budget 4: priority slot 1 (0,1) -> budget 3; rest (0.5,0) < 3 -> total (0.5,1)
	vec2 got = blend(THRONG_BLEND_HYBRID, ".p", WEIGHTS(1.0f, 1.0f), FORCES({0.5f, 0}, {0, 1}), 4.0f);
	THR_EXPECT_VEC(got, 0.5f, 1.0f, TOL);
}

Test(blend_hybrid, nothing_left_rest_ignored)
{
	// budget 2: priority (0,3) cut to (0,2), budget 0 -> the rest (5,0) is ignored -> (0,2)
	vec2 got = blend(THRONG_BLEND_HYBRID, "p.", WEIGHTS(1.0f, 1.0f), FORCES({0, 3}, {5, 0}), 2.0f);
	THR_EXPECT_VEC(got, 0.0f, 2.0f, TOL);
}

Test(blend_hybrid, disabled_slots_skipped)
{
	const float* w = WEIGHTS(1.0f, 1.0f, 1.0f);
	// slot 0 (priority) and slot 2 disabled: only slot 1 (rest): (1,0), budget 2 untouched -> (1,0)
	THR_EXPECT_VEC(blend(THRONG_BLEND_HYBRID, "X.x", w, FORCES({0, 0}, {1, 0}, {0, 0}), 2.0f), 1.0f, 0.0f, TOL);
	// whatever the disabled entries hold -> still (1,0)
	THR_EXPECT_VEC(blend(THRONG_BLEND_HYBRID, "X.x", w, FORCES({0, 9}, {1, 0}, {7, 7}), 2.0f), 1.0f, 0.0f, TOL);
}

Test(blend_hybrid, no_priority_slots_is_weighted)
{
	// no priority slot: budget stays 1, rest (1,2) limited to 1 -> (0.4472136,0.8944272)
	vec2 got = blend(THRONG_BLEND_HYBRID, "..", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0, 1}), 1.0f);
	THR_EXPECT_VEC(got, 0.4472136f, 0.8944272f, TOL);
}

// ---------------------------------------------------------------- slots and controllers

static void expect_params_equal(const throng_behavior_params* a, const throng_behavior_params* b)
{
	cr_expect_eq(a->target, b->target);
	cr_expect_eq(a->flee_mode, b->flee_mode);
	cr_expect_eq(a->frame, b->frame);
	cr_expect_eq(a->same_group_only, b->same_group_only);
	const float fa[] = {a->flee_radius, a->slow_radius, a->evade_radius, a->max_prediction,
	                    a->circle_distance, a->circle_radius, a->jitter, a->noise_frequency,
	                    a->noise_amplitude, a->look_ahead, a->feeler_angle, a->avoid_radius,
	                    a->neighbor_radius, a->margin};
	const float fb[] = {b->flee_radius, b->slow_radius, b->evade_radius, b->max_prediction,
	                    b->circle_distance, b->circle_radius, b->jitter, b->noise_frequency,
	                    b->noise_amplitude, b->look_ahead, b->feeler_angle, b->avoid_radius,
	                    b->neighbor_radius, b->margin};
	for (size_t k = 0; k < sizeof fa / sizeof fa[0]; ++k) {
		cr_expect_eq(fa[k], fb[k], "param field %zu differs", k);
	}
}

Test(controller, behavior_default_def_is_valid)
{
	throng_behavior_params p = throng_behavior_default_def();
	// the documented ranges: > 0 where required, >= 0 elsewhere, feeler angle in [0, pi]
	cr_expect_gt(p.flee_radius, 0.0f);
	cr_expect_gt(p.slow_radius, 0.0f);
	cr_expect_gt(p.evade_radius, 0.0f);
	cr_expect_geq(p.max_prediction, 0.0f);
	cr_expect_geq(p.circle_distance, 0.0f);
	cr_expect_geq(p.circle_radius, 0.0f);
	cr_expect_geq(p.jitter, 0.0f);
	cr_expect_geq(p.noise_frequency, 0.0f);
	cr_expect_geq(p.noise_amplitude, 0.0f);
	cr_expect_gt(p.look_ahead, 0.0f);
	cr_expect_geq(p.feeler_angle, 0.0f);
	cr_expect_leq(p.feeler_angle, 3.14159274f);
	cr_expect_gt(p.avoid_radius, 0.0f);
	cr_expect_gt(p.neighbor_radius, 0.0f);
	cr_expect_gt(p.margin, 0.0f);
}

Test(controller, slot_default_def)
{
	throng_behavior_params d = throng_behavior_default_def();
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		throng_slot s = throng_slot_default_def((throng_behavior_kind)k);
		// kind as given, weight 1, enabled, not priority, default params
		cr_expect_eq(s.kind, (throng_behavior_kind)k);
		cr_expect_float_eq(s.weight, 1.0f, 0.0f);
		cr_expect(s.enabled);
		cr_expect_not(s.priority);
		expect_params_equal(&s.params, &d);
	}
}

Test(controller, make_is_empty)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_PRIORITY);
	cr_expect_eq(c.slot_count, 0u);
	cr_expect_eq(c.mode, THRONG_BLEND_PRIORITY);
	throng_controller h = throng_controller_default_def(THRONG_BLEND_HYBRID);
	cr_expect_eq(h.mode, THRONG_BLEND_HYBRID);
}

Test(controller, add_until_full)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	for (int k = 0; k < THRONG_MAX_SLOTS; ++k) {
		throng_slot s = throng_slot_default_def((throng_behavior_kind)(k % THRONG_BEHAVIOR_COUNT));
		s.weight = (float)k;
		// slot k goes to index k
		cr_assert_eq(throng_controller_add(&c, s), k);
		cr_expect_eq(c.slot_count, (uint32_t)(k + 1));
		cr_expect_float_eq(c.slots[k].weight, (float)k, 0.0f);
		cr_expect_eq(c.slots[k].kind, (throng_behavior_kind)(k % THRONG_BEHAVIOR_COUNT));
	}
	// full: -1 and nothing changes
	cr_expect_eq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK)), -1);
	cr_expect_eq(c.slot_count, (uint32_t)THRONG_MAX_SLOTS);
	cr_expect_float_eq(c.slots[THRONG_MAX_SLOTS - 1].weight, (float)(THRONG_MAX_SLOTS - 1), 0.0f);
}

Test(controller, blend_with_made_controller)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot a = throng_slot_default_def(THRONG_SEEK);
	throng_slot b = throng_slot_default_def(THRONG_SEPARATION);
	b.weight = 3.0f;
	cr_assert_eq(throng_controller_add(&c, a), 0);
	cr_assert_eq(throng_controller_add(&c, b), 1);
	vec2 f[2] = {{1, 1}, {1, 0}};
	// 1*(1,1) + 3*(1,0) = (4,1), |.|=4.123 < 5 -> (4,1)
	THR_EXPECT_VEC(thr_blend(&c, f, 5.0f, v2(0.0f, 0.0f), v2(1.0f, 0.0f), true), 4.0f, 1.0f, TOL);
}

// ---------------------------------------------------------------- relaxation

#define R THRONG_BLEND_RELAXATION
#define AT_REST v2(0.0f, 0.0f)

Test(blend_relaxation, drive_over_tau_plus_interactions)
{
	// Drive 1*(1,0), interaction 2*(0,1), tau 0.5: (1,0)/0.5 + (0,2) = (2,2),
	// |.| = 2.828 < 10.
	vec2 got = blend_at(R, ".p", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0, 1}), 10.0f, AT_REST, 0.5f, NULL);
	THR_EXPECT_VEC(got, 2.0f, 2.0f, TOL);
	// Limited to 2: (2,2) * 2/2.8284271 = (1.4142136, 1.4142136).
	got = blend_at(R, ".p", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0, 1}), 2.0f, AT_REST, 0.5f, NULL);
	THR_EXPECT_VEC(got, 1.4142136f, 1.4142136f, TOL);
	// tau 2: (0.5, 0) + (0, 2).
	got = blend_at(R, ".p", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0, 1}), 10.0f, AT_REST, 2.0f, NULL);
	THR_EXPECT_VEC(got, 0.5f, 2.0f, TOL);
}

Test(blend_relaxation, the_drive_always_acts)
{
	// Seek (1,0) and an avoidance (0,3) marked priority, max_force 3.
	// Hybrid: the avoidance spends the whole budget, the seek gets nothing.
	vec2 got = blend(THRONG_BLEND_HYBRID, ".p", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0, 3}), 3.0f);
	THR_EXPECT_VEC(got, 0.0f, 3.0f, TOL);
	// Relaxation (tau 0.5): (2,0) + (0,3) = (2,3), |.| = 3.6055513 > 3:
	// (2,3) * 3/3.6055513 = (1.6641006, 2.4961509).
	got = blend_at(R, ".p", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0, 3}), 3.0f, AT_REST, 0.5f, NULL);
	THR_EXPECT_VEC(got, 1.6641006f, 2.4961509f, TOL);
}

Test(blend_relaxation, disabled_slots_skipped)
{
	vec2 got = blend_at(R, ".xX", WEIGHTS(1.0f, 5.0f, 5.0f), FORCES({1, 0}, {0, 9}, {9, 0}), 10.0f, AT_REST, 0.5f,
	                    NULL);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, TOL);
}

Test(blend_relaxation, headway_caps_the_desired_speed)
{
	// Moving at v = (1,0), drive (1,0): desired v + D = (2,0). Headway
	// allows V = 0.5: desired becomes (0.5,0), the drive D' = (-0.5,0);
	// total = D'/0.5 = (-1,0). The headway slot records the change it
	// made, D'/tau - D/tau = (-1,0) - (2,0) = (-3,0). Its weight (7) is not
	// used.
	vec2 out[3];
	vec2 got = blend_at(R, ".h", WEIGHTS(1.0f, 7.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[1], -3.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[0], 1.0f, 0.0f, 0.0f); // the drive's own entry is kept
	// Two headway slots: the least speed, V = 0.5, and both record it.
	got = blend_at(R, ".hh", WEIGHTS(1.0f, 1.0f, 1.0f), FORCES({1, 0}, {0.9f, 0}, {0.5f, 0}), 10.0f,
	               v2(1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[1], -3.0f, 0.0f, TOL);
	// V = 2.5 above |desired| = 2: no change, exactly the relaxation of (1,0).
	got = blend_at(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {2.5f, 0}), 10.0f, v2(1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, 0.0f);
	THR_EXPECT_VEC(out[1], 0.0f, 0.0f, 0.0f);
	// Nobody ahead (V = +Inf): no change either.
	got = blend_at(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {INFINITY, 0}), 10.0f, v2(1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, 0.0f);
	THR_EXPECT_VEC(out[1], 0.0f, 0.0f, 0.0f);
	// The interactions are not capped: avoidance (0,1) marked priority is
	// added as it is: (-1,0) + (0,1).
	got = blend_at(R, ".hp", WEIGHTS(1.0f, 1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}, {0, 1}), 10.0f, v2(1.0f, 0.0f),
	               0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 1.0f, TOL);
	// V = 0 at rest with a drive (1,0): desired (1,0) scaled to 0, D' = 0.
	got = blend_at(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.0f, 0}), 10.0f, AT_REST, 0.5f, out);
	THR_EXPECT_VEC(got, 0.0f, 0.0f, 0.0f);
	THR_EXPECT_VEC(out[1], -2.0f, 0.0f, TOL);
}

Test(blend_relaxation, headway_holds_only_a_desire_within_its_cone)
{
	// Beside a wall (blend_at_h's default).
	// Moving at v = (1,0), drive (1,0): desired (2,0), |desired| = 2; V = 0.5.
	// Heading 30 degrees off (cos 0.8660254 > THR_HEADWAY_CONE 0.85):
	// dot(desired, h) = 1.7320508 > 0.85 * 2 = 1.7, capped as along the
	// heading: total = (-1,0) (headway_caps_the_desired_speed).
	vec2 out[2];
	vec2 got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                      v2(0.8660254f, 0.5f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[1], -3.0f, 0.0f, TOL);
	// 40 degrees off (cos 0.7660444): 1.5320889 < 1.7, the body in front of
	// the face does not hold this desire: the plain relaxation (1,0)/0.5.
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                 v2(0.7660444f, 0.6427876f), 0.5f, out);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, 0.0f);
	THR_EXPECT_VEC(out[1], 0.0f, 0.0f, 0.0f);
	// On the edge, dot = 2 * 0.85 = 0.85 * 2 exactly: the cone is strict, no cap.
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                 v2(0.85f, 0.5267827f), 0.5f, out);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, 0.0f);
	// A heading opposite to the desire: no cap. At rest with V = 0 and the
	// heading along the drive: held (desired (1,0) scaled to 0).
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                 v2(-1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, 2.0f, 0.0f, 0.0f);
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.0f, 0}), 10.0f, AT_REST, v2(1.0f, 0.0f), 0.5f,
	                 out);
	THR_EXPECT_VEC(got, 0.0f, 0.0f, 0.0f);
}

Test(blend_relaxation, away_from_walls_headway_holds_every_desire)
{
	// headway_holds_only_a_desire_within_its_cone's cases away from walls:
	// 40 degrees off, and a heading opposite to the desire, are capped
	// too: desired (2,0) scaled to V = 0.5, (0.5,0) - v = (-0.5,0), over
	// tau 0.5: (-1,0); the headway slot's change (-1,0) - (2,0).
	beside_wall = false;
	vec2 out[2];
	vec2 got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                      v2(0.7660444f, 0.6427876f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[1], -3.0f, 0.0f, TOL);
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                 v2(-1.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	// Within the cone it is the same cap as beside a wall.
	got = blend_at_h(R, ".h", WEIGHTS(1.0f, 1.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f, v2(1.0f, 0.0f),
	                 v2(0.8660254f, 0.5f), 0.5f, out);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
}

Test(blend_headway, brakes_outside_the_relaxation_mode)
{
	// Weighted: moving at (2,0) with V = 0.5, the headway slot becomes
	// limit(limit(v, V) - v, max_force) = (0.5,0) - (2,0) = (-1.5,0),
	// weighted by its weight 2: (1,0) + 2*(-1.5,0) = (-2,0).
	vec2 out[2];
	vec2 got = blend_at(THRONG_BLEND_WEIGHTED, ".h", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0.5f, 0}), 10.0f,
	                    v2(2.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(got, -2.0f, 0.0f, TOL);
	THR_EXPECT_VEC(out[1], -1.5f, 0.0f, TOL);
	// Limited to max_force 1: (-1,0), then the sum (1,0) + 2*(-1,0).
	got = blend_at(THRONG_BLEND_WEIGHTED, ".h", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {0.5f, 0}), 1.0f,
	               v2(2.0f, 0.0f), 0.5f, out);
	THR_EXPECT_VEC(out[1], -1.0f, 0.0f, TOL);
	THR_EXPECT_VEC(got, -1.0f, 0.0f, TOL);
	// Slower than V, or nobody ahead: no force.
	blend_at(THRONG_BLEND_PRIORITY, ".h", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {3.0f, 0}), 10.0f, v2(2.0f, 0.0f),
	         0.5f, out);
	THR_EXPECT_VEC(out[1], 0.0f, 0.0f, 0.0f);
	blend_at(THRONG_BLEND_HYBRID, ".h", WEIGHTS(1.0f, 2.0f), FORCES({1, 0}, {INFINITY, 0}), 10.0f, v2(2.0f, 0.0f),
	         0.5f, out);
	THR_EXPECT_VEC(out[1], 0.0f, 0.0f, 0.0f);
}

// ---------------------------------------------------------------- neighbours

Test(neighbors, which_kinds_read_them)
{
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		bool want = k == THRONG_UNALIGNED_AVOID || k == THRONG_SEPARATION || k == THRONG_ALIGNMENT ||
		            k == THRONG_COHESION || k == THRONG_ANTICIPATION || k == THRONG_HEADWAY;
		cr_expect_eq(throng_behavior_reads_neighbors((throng_behavior_kind)k), want, "%s",
		             throng_behavior_kind_name((throng_behavior_kind)k));
	}
	cr_expect_not(throng_behavior_reads_neighbors(THRONG_BEHAVIOR_COUNT));
}

Test(neighbors, query_radius_is_the_largest_enabled_neighbour_radius)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_expect_eq(throng_controller_query_radius(&c), 0.0f, "no slot");
	throng_slot s = throng_slot_default_def(THRONG_SEEK);
	s.params.neighbor_radius = 50.0f; // read by no seek
	throng_controller_add(&c, s);
	cr_expect_eq(throng_controller_query_radius(&c), 0.0f, "no neighbour slot");
	s = throng_slot_default_def(THRONG_SEPARATION);
	s.params.neighbor_radius = 1.5f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_COHESION);
	s.params.neighbor_radius = 4.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_ALIGNMENT);
	s.params.neighbor_radius = 9.0f;
	s.enabled = false; // a disabled slot walks nothing
	throng_controller_add(&c, s);
	cr_expect_eq(throng_controller_query_radius(&c), 4.0f);
	cr_expect_eq(throng_controller_query_radius(NULL), 0.0f);
}
