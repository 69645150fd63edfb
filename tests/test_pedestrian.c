// SPDX-License-Identifier: MIT
// The pedestrian controller and body (throng_controller_pedestrian_def,
// throng_agent_pedestrian_def; docs/BEHAVIORS.md, "The pedestrian").
//
// The validation against experiments is tests/validation/pedestrians.py
// (ctest validation_pedestrians); these tests pin what the constructors
// give and two behaviours worked by hand: the relaxation from rest and a
// head-on pair that keeps right.
#include <criterion/criterion.h>
#include <math.h>

#include "support.h"
#include "throng/throng.h"

static const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};

static throng_world* open_world(throng_engine engine)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.bounds_mode = THRONG_BOUNDS_OPEN;
	d.bounds_min = (throng_vec2){-100.0f, -100.0f};
	d.bounds_max = (throng_vec2){100.0f, 100.0f};
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// open_world with one pedestrian archetype of the given drive, *arch.
static throng_world* pedestrian_world(throng_engine engine, throng_behavior_kind drive, uint32_t* arch)
{
	throng_world* w = open_world(engine);
	const throng_controller c = throng_controller_pedestrian_def(drive);
	cr_assert_eq(throng_world_add_archetype(w, &c, arch), THRONG_OK, "%s", throng_last_error());
	return w;
}

Test(pedestrian, the_constructors_give_the_documented_values)
{
	const throng_controller c = throng_controller_pedestrian_def(THRONG_ARRIVE);
	cr_assert_eq(c.mode, THRONG_BLEND_RELAXATION);
	cr_assert_float_eq(c.relaxation_time, 0.5f, 0.0f);
	cr_assert(c.contact.enabled);
	cr_assert_float_eq(c.contact.slip, 0.5f, 0.0f);
	cr_assert_float_eq(c.contact.noise, 0.15f, 0.0f);
	cr_assert_eq(c.slot_count, 4u);
	const throng_behavior_kind kinds[4] = {THRONG_WALL_AVOID, THRONG_ANTICIPATION, THRONG_HEADWAY, THRONG_ARRIVE};
	const bool priority[4] = {true, true, false, false};
	for (uint32_t k = 0; k < 4; ++k) {
		cr_assert_eq(c.slots[k].kind, kinds[k], "slot %u", k);
		cr_assert_eq(c.slots[k].priority, priority[k], "slot %u", k);
		cr_assert(c.slots[k].enabled, "slot %u", k);
	}
	cr_assert_float_eq(c.slots[1].params.side_bias, 1.0f, 0.0f);
	cr_assert_float_eq(c.slots[1].params.ttc_strength, 0.5f, 0.0f);
	cr_assert_float_eq(c.slots[2].params.time_gap, 0.55f, 0.0f);
	cr_assert_eq(c.slots[1].params.max_neighbors, 1024u);
	cr_assert_eq(c.slots[2].params.max_neighbors, 1024u);
	const throng_agent_def a = throng_agent_pedestrian_def();
	cr_assert_float_eq(a.max_speed, 1.34f, 0.0f);
	cr_assert_float_eq(a.max_force, 8.0f, 0.0f);
	cr_assert_float_eq(a.radius, 0.17f, 0.0f);
	cr_assert_eq(a.target_agent, THRONG_NO_AGENT);
	cr_assert_eq(a.path, THRONG_NO_PATH);
	// The relaxation from rest needs max_force >= v0 / tau (docs/BEHAVIORS.md).
	cr_assert_geq(a.max_force, a.max_speed / c.relaxation_time);
}

Test(pedestrian, every_drive_is_accepted_by_a_world)
{
	const throng_behavior_kind drives[3] = {THRONG_SEEK, THRONG_ARRIVE, THRONG_PATH_FOLLOW};
	throng_world* w = open_world(THRONG_ENGINE_SIMD);
	for (uint32_t k = 0; k < 3; ++k) {
		const throng_controller c = throng_controller_pedestrian_def(drives[k]);
		cr_assert_eq(c.slots[3].kind, drives[k]);
		uint32_t arch = 0;
		cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a = throng_agent_pedestrian_def();
		a.archetype = arch;
		a.position = (throng_vec2){(float)k * 3.0f, 0.0f};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	throng_world_destroy(w);
}

Test(pedestrian, a_packed_crowd_keeps_every_neighbour_within_4m)
{
	// Pedestrians touching on a hexagonal lattice (spacing 0.34 m = two
	// radii, 1 / (0.34^2 sqrt(3) / 2) = 9.99 /m^2) fill a disc of 5.5 m:
	// the one in the middle has about pi 4^2 9.99 = 502 others within its
	// anticipation's 4 m, more than the default cap of 256. The pedestrian
	// takes every one of them (THRONG_PEDESTRIAN_MAX_NEIGHBORS), both engines.
	for (int e = 0; e < 2; ++e) {
		uint32_t arch = 0;
		throng_world* w = pedestrian_world(engines[e], THRONG_SEEK, &arch);
		uint32_t n = 0, within = 0;
		const float s = 0.34f, h = s * 0.8660254f;
		for (int r = -20; r <= 20; ++r) {
			for (int q = -20; q <= 20; ++q) {
				const float x = ((float)q + 0.5f * (float)(r & 1)) * s, y = (float)r * h;
				if (x * x + y * y > 5.5f * 5.5f) {
					continue;
				}
				throng_agent_def a = throng_agent_pedestrian_def();
				a.archetype = arch;
				a.position = (throng_vec2){x, y};
				a.target = (throng_vec2){x + 100.0f, y};
				cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
				++n;
				within += (x * x + y * y < 16.0f && (x != 0.0f || y != 0.0f)) ? 1u : 0u;
			}
		}
		cr_assert_gt(within, 256u, "%u within 4 m of the middle", within);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		const throng_world_stats st = throng_world_get_stats(w);
		// The middle agent took all of them (counted from the spawn
		// positions; one step moves nobody across 4 m by more than a
		// few millimetres, so allow a handful either way).
		cr_assert_geq(st.neighbor_most_met + 8u, within, "engine %d: %u taken of %u", e, st.neighbor_most_met,
		              within);
		cr_assert_lt(st.neighbor_most_met, 1024u, "engine %d: %u", e, st.neighbor_most_met);
		throng_world_destroy(w);
	}
}

Test(pedestrian, relaxes_from_rest_with_tau_half_a_second)
{
	// One pedestrian at rest seeks a point 1 km ahead. Nothing else acts,
	// so v_n = v0 (1 - (1 - dt/tau)^n) (docs/BEHAVIORS.md, "The relaxation
	// blend"): after n = 30 steps of 1/60 s, v0 (1 - (29/30)^30)
	// = 1.34 * 0.6383385 = 0.8553736 m/s, the continuous 1 - 1/e at 0.8470.
	for (int e = 0; e < 2; ++e) {
		uint32_t arch = 0;
		throng_world* w = pedestrian_world(engines[e], THRONG_SEEK, &arch);
		throng_agent_def a = throng_agent_pedestrian_def();
		a.archetype = arch;
		a.heading = (throng_vec2){1.0f, 0.0f};
		a.target = (throng_vec2){1000.0f, 0.0f};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
		for (int n = 0; n < 30; ++n) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		}
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, 0, &st), THRONG_OK);
		cr_assert_float_eq(st.velocity.x, 1.34 * (1.0 - pow(29.0 / 30.0, 30.0)), 2e-6, "engine %d: %g", e,
		                   (double)st.velocity.x);
		cr_assert_float_eq(st.velocity.y, 0.0f, 0.0f);
		throng_world_destroy(w);
	}
}

Test(pedestrian, a_head_on_pair_in_a_corridor_keeps_right_and_passes)
{
	// Two pedestrians on one line, 10 m apart in a 2 m corridor, each seeking
	// a point beyond the other. Each keeps to its own right (side_bias > 0):
	// the one walking +x passes below the axis (y < 0), the one walking -x
	// above it, and both reach x beyond the other's start within 15 s.
	for (int e = 0; e < 2; ++e) {
		throng_world* w = open_world(engines[e]);
		cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-20.0f, 1.0f}, (throng_vec2){20.0f, 1.0f}, NULL),
		             THRONG_OK);
		cr_assert_eq(throng_world_add_wall(w, (throng_vec2){-20.0f, -1.0f}, (throng_vec2){20.0f, -1.0f}, NULL),
		             THRONG_OK);
		const throng_controller c = throng_controller_pedestrian_def(THRONG_SEEK);
		uint32_t arch = 0;
		cr_assert_eq(throng_world_add_archetype(w, &c, &arch), THRONG_OK, "%s", throng_last_error());
		throng_agent_def a[2] = {throng_agent_pedestrian_def(), throng_agent_pedestrian_def()};
		for (int k = 0; k < 2; ++k) {
			const float s = k == 0 ? 1.0f : -1.0f;
			a[k].archetype = arch;
			a[k].position = (throng_vec2){-5.0f * s, 0.0f};
			a[k].heading = (throng_vec2){s, 0.0f};
			a[k].target = (throng_vec2){15.0f * s, 0.0f};
		}
		cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
		float side[2] = {0.0f, 0.0f}; // y when they are abreast
		for (int n = 0; n < 15 * 60; ++n) {
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			throng_agent_state s0, s1;
			throng_world_get_agent(w, 0, &s0);
			throng_world_get_agent(w, 1, &s1);
			if (side[0] == 0.0f && s0.position.x >= s1.position.x) {
				side[0] = s0.position.y;
				side[1] = s1.position.y;
			}
		}
		throng_agent_state s0, s1;
		throng_world_get_agent(w, 0, &s0);
		throng_world_get_agent(w, 1, &s1);
		cr_assert_lt(side[0], 0.0f, "engine %d: the +x walker passes on its right (y %g)", e, (double)side[0]);
		cr_assert_gt(side[1], 0.0f, "engine %d: the -x walker passes on its right (y %g)", e, (double)side[1]);
		cr_assert_gt(s0.position.x, 5.0f, "engine %d: x %g", e, (double)s0.position.x);
		cr_assert_lt(s1.position.x, -5.0f, "engine %d: x %g", e, (double)s1.position.x);
		throng_world_destroy(w);
	}
}
