// SPDX-License-Identifier: MIT
// Bad input through the C API: every class gets its status, a message that
// names the field, and leaves the world exactly as it was.
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "throng/throng.h"
#include "world_internal.h"

static throng_world* world_with_agents(uint32_t capacity)
{
	throng_world_def d = throng_world_default_def();
	d.capacity = capacity;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
	throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
	a[1].position = (throng_vec2){3.0f, 4.0f};
	cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK);
	throng_world_step(w);
	return w;
}

static void assert_message(const char* needle)
{
	const char* msg = throng_last_error();
	cr_assert(strstr(msg, needle) != NULL, "message \"%s\" does not mention \"%s\"", msg, needle);
}

/// The last error is exactly `want`.
static void assert_error(const char* want)
{
	cr_assert_str_eq(throng_last_error(), want);
}

/// Calls `spawn` with one bad def and checks nothing changed.
static void bad_spawn(throng_agent_def bad, throng_status expect, const char* field)
{
	throng_world* w = world_with_agents(16);
	uint64_t before = throng_world_hash(w);
	throng_agent_def defs[3] = {throng_agent_default_def(), bad, throng_agent_default_def()};
	cr_assert_eq(throng_world_spawn(w, defs, 3, NULL), expect, "field %s: %s", field, throng_last_error());
	assert_message(field);
	cr_assert_eq(throng_world_agent_count(w), 2u, "a failed spawn added agents");
	cr_assert_eq(throng_world_hash(w), before, "a failed spawn changed the state");
	throng_world_destroy(w);
}

Test(errors, world_def_out_of_range)
{
	throng_world* w = (throng_world*)0x1;
	throng_world_def d = throng_world_default_def();
	d.dt = NAN;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(w, "out must be NULL after a failure");
	assert_message("dt");
	d = throng_world_default_def();
	d.dt = 0.0f;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	d = throng_world_default_def();
	d.bounds_max.x = d.bounds_min.x;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("bounds_max.x");
	d = throng_world_default_def();
	d.bounds_min.y = INFINITY;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("bounds_min.y");
	d = throng_world_default_def();
	d.capacity = 0;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("capacity");
	d = throng_world_default_def();
	d.cell_size = -1.0f;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("cell_size");
	d = throng_world_default_def();
	d.bounds_mode = (throng_bounds_mode)17;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("bounds_mode");
	d = throng_world_default_def();
	d.engine = (throng_engine)7;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("engine");
	d = throng_world_default_def();
	d.threads = 5000;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("threads");
	throng_world_def zero;
	memset(&zero, 0, sizeof zero);
	cr_assert_eq(throng_world_create(&zero, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("throng_world_default_def");
	cr_assert_eq(throng_world_create(NULL, &w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_create(&d, NULL), THRONG_ERR_INVALID_ARGUMENT);
}

Test(errors, agent_non_finite_or_out_of_range)
{
	throng_agent_def a = throng_agent_default_def();
	a.position.x = NAN;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].position.x");
	a = throng_agent_default_def();
	a.velocity.y = INFINITY;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].velocity.y");
	a = throng_agent_default_def();
	a.max_speed = 0.0f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].max_speed");
	a = throng_agent_default_def();
	a.max_force = -3.0f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].max_force");
	a = throng_agent_default_def();
	a.radius = NAN;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].radius");
	a = throng_agent_default_def();
	a.velocity = (throng_vec2){5.0f, 0.0f}; // max_speed 1.3
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].velocity");
	a = throng_agent_default_def();
	a.heading = (throng_vec2){3.0f, 0.0f};
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].heading");
	a = throng_agent_default_def();
	a.position = (throng_vec2){60.0f, 0.0f}; // contained world ends at 50
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].position");
	a = throng_agent_default_def();
	a.archetype = 5;
	bad_spawn(a, THRONG_ERR_NOT_FOUND, "agents[1].archetype");
	a = throng_agent_default_def();
	a.target_agent = 99;
	bad_spawn(a, THRONG_ERR_NOT_FOUND, "agents[1].target_agent");
	a = throng_agent_default_def();
	a.target.x = -INFINITY;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].target.x");
}

Test(errors, zero_agents_and_growth_past_capacity)
{
	throng_world* w = world_with_agents(4);
	uint64_t before = throng_world_hash(w);
	throng_agent_def a[3] = {throng_agent_default_def(), throng_agent_default_def(), throng_agent_default_def()};
	cr_assert_eq(throng_world_spawn(w, a, 0, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("count");
	cr_assert_eq(throng_world_spawn(w, NULL, 1, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_agent_count(w), 2u);
	cr_assert_eq(throng_world_hash(w), before);
	// Capacity is where the world starts: 3 more than its 4 still come in,
	// as ids 2, 3 and 4.
	uint32_t first = 0;
	cr_assert_eq(throng_world_spawn(w, a, 3, &first), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(first, 2u);
	cr_assert_eq(throng_world_agent_count(w), 5u);
	throng_world_destroy(w);
}

Test(errors, controller_parameters)
{
	throng_world* w = world_with_agents(8);
	throng_controller before;
	throng_world_get_controller(w, 0, &before);
	struct {
		throng_behavior_kind kind;
		int field; // which field to break
		const char* name;
	} cases[] = {
		{THRONG_ARRIVE, 0, "controller.slots[1].params.slow_radius"},
		{THRONG_FLEE, 1, "controller.slots[1].params.flee_radius"},
		{THRONG_EVADE, 2, "controller.slots[1].params.evade_radius"},
		{THRONG_WANDER_NOISE, 3, "controller.slots[1].params.noise_amplitude"},
		{THRONG_OBSTACLE_AVOID, 4, "controller.slots[1].params.look_ahead"},
		{THRONG_UNALIGNED_AVOID, 5, "controller.slots[1].params.avoid_radius"},
		{THRONG_SEPARATION, 6, "controller.slots[1].params.neighbor_radius"},
		{THRONG_BOUNDS, 7, "controller.slots[1].params.margin"},
		{THRONG_WALL_AVOID, 8, "controller.slots[1].params.feeler_angle"},
		{THRONG_SEEK, 9, "controller.slots[1].weight"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
		throng_slot s = throng_slot_default_def(cases[k].kind);
		switch (cases[k].field) {
		case 0: s.params.slow_radius = 0.0f; break;
		case 1: s.params.flee_radius = NAN; break;
		case 2: s.params.evade_radius = -1.0f; break;
		case 3: s.params.noise_amplitude = INFINITY; break;
		case 4: s.params.look_ahead = 0.0f; break;
		case 5: s.params.avoid_radius = -2.0f; break;
		case 6: s.params.neighbor_radius = 1e9f; break;
		case 7: s.params.margin = NAN; break;
		case 8: s.params.feeler_angle = 4.0f; break;
		case 9: s.weight = -1.0f; break;
		}
		throng_controller_add(&c, s);
		cr_assert_eq(throng_world_set_controller(w, 0, &c), THRONG_ERR_INVALID_ARGUMENT, "%s", cases[k].name);
		assert_message(cases[k].name);
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	}
	throng_controller two = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&two, throng_slot_default_def(THRONG_WANDER));
	throng_controller_add(&two, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(w, &two, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("at most one wander");
	throng_controller badmode = throng_controller_default_def((throng_blend_mode)9);
	cr_assert_eq(throng_world_add_archetype(w, &badmode, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("mode");
	throng_controller badkind = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&badkind, throng_slot_default_def((throng_behavior_kind)99));
	cr_assert_eq(throng_world_add_archetype(w, &badkind, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("slots[0].kind");
	cr_assert_eq(throng_world_set_controller(w, 7, &before), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_archetype_count(w), 1u);
	throng_controller after;
	throng_world_get_controller(w, 0, &after);
	cr_assert_eq(memcmp(&before, &after, sizeof before), 0, "a failed update changed the controller");
	throng_world_destroy(w);
}

Test(errors, shapes_threat_and_targets)
{
	throng_world* w = world_with_agents(8);
	uint64_t before = throng_world_hash(w);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){1, 1}, (throng_vec2){1, 1}, NULL),
	             THRONG_ERR_INVALID_ARGUMENT);
	assert_error("wall.b: too short a wall (got length 0 m from a, expected more than 0.0001 m)");
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){0, NAN}, 1.0f, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("center.y");
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){0, 0}, 0.0f, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_message("radius");
	cr_assert_eq(throng_world_set_obstacle(w, 3, (throng_vec2){0, 0}, 1.0f), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_set_threat(w, (throng_vec2){INFINITY, 0}, (throng_vec2){0, 0}, true),
	             THRONG_ERR_INVALID_ARGUMENT);
	assert_message("position");
	cr_assert_eq(throng_world_set_target(w, 9, (throng_vec2){0, 0}), THRONG_ERR_NOT_FOUND);
	assert_message("id 9");
	cr_assert_eq(throng_world_set_target(w, 0, (throng_vec2){NAN, 0}), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_world_set_target_agent(w, 0, 2), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_obstacle_count(w), 0u);
	cr_assert_eq(throng_world_wall_count(w), 0u);
	cr_assert_eq(throng_world_hash(w), before);
	throng_vec2 f;
	cr_assert_eq(throng_world_slot_force(w, 0, 0, &f), THRONG_ERR_UNSUPPORTED);
	assert_message("record_forces");
	throng_agent_state s;
	cr_assert_eq(throng_world_get_agent(w, 2, &s), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_step(NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(w);
	throng_world_destroy(NULL);
}

// Issue 11: values too small for the library. A radius of 1e-45 (a
// subnormal) made a grid cell that `cell *= 1.25f` never grew, and the
// first step never returned. Each is refused, naming its field.
Test(errors, values_too_small_are_refused, .timeout = 30)
{
	throng_world* w = (throng_world*)0x1;
	const float cells[] = {1.0e-45f, 3.0e-45f, 1.0e-30f, 9.0e-7f};
	for (size_t k = 0; k < sizeof cells / sizeof cells[0]; ++k) {
		throng_world_def d = throng_world_default_def();
		d.cell_size = cells[k];
		cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT, "cell_size %g", (double)cells[k]);
		char want[160];
		const char* got[] = {"1e-45", "3e-45", "1e-30", "9e-7"};
		snprintf(want, sizeof want,
		         "world def.cell_size: too small (got %s, expected 0 (automatic) or at least 1e-6: smaller values "
		         "underflow)",
		         got[k]);
		assert_error(want);
	}
	throng_world_def d = throng_world_default_def();
	d.dt = 1.0e-40f;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("world def.dt: too small (got 1e-40 s, a subnormal float; at least 1.1754944e-38 s, the smallest "
	             "normal float)");
	throng_agent_def a = throng_agent_default_def();
	a.radius = 1.0e-45f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].radius: too small (got 1e-45, at least 1e-6: smaller "
	                                          "values underflow)");
	a = throng_agent_default_def();
	a.max_speed = 1.0e-7f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].max_speed: too small (got 1e-7, at least 1e-6: smaller "
	                                          "values underflow)");

	w = world_with_agents(4);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
	s.params.neighbor_radius = 1.0e-38f;
	throng_controller_add(&c, s);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.slots[0].params.neighbor_radius: too small (got 1e-38, at least 1e-6: smaller values "
	             "underflow)");
	c.slots[0].params.neighbor_radius = 1.0f;
	c.slots[0].weight = 1.0e-45f;
	cr_assert_eq(throng_world_set_controller(w, 0, &c), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.slots[0].weight: too small (got 1e-45, expected 0 or at least 1e-6: smaller values "
	             "underflow)");
	c.slots[0].weight = 0.0f;
	throng_slot wander = throng_slot_default_def(THRONG_WANDER);
	wander.params.jitter = 1.0e-45f;
	throng_controller_add(&c, wander);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.slots[1].params.jitter: too small (got 1e-45, expected 0 or at least 1e-6: smaller "
	             "values underflow)");
	c.slots[1].params.jitter = 0.0f;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(throng_world_add_obstacle(w, (throng_vec2){1.0f, 1.0f}, 1.0e-45f, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("obstacle.radius: too small (got 1e-45, at least 1e-6: smaller values underflow)");
	throng_world_destroy(w);
}

// Issue 30, defect 10: integer fields were printed as floats
// ("capacity ... (got 4.29497e+09)"), and numbers with %g's padded
// exponents (1e+07). Each now prints as one would write it, with the
// bound it broke taken from the library's constant.
Test(errors, integer_fields_print_as_integers)
{
	throng_world* w = (throng_world*)0x1;
	struct {
		int field;
		uint32_t value;
		const char* want;
	} defs[] = {
		{0, UINT32_MAX, "world def.capacity: must be from 1 to 100000000 (got 4294967295)"},
		{0, 100000001u, "world def.capacity: must be from 1 to 100000000 (got 100000001)"},
		{0, 0u, "world def.capacity: must be from 1 to 100000000 (got 0)"},
		{1, 5000u, "world def.threads: must be from 0 (OpenMP's default) to 1024 (got 5000)"},
		{2, 17u, "world def.bounds_mode: must be contain, wrap, bounce or open (got 17)"},
		{3, 7u, "world def.engine: must be scalar or simd (got 7)"},
		{4, 9u, "world def.threads_policy: must be adapt or fixed (got 9)"},
	};
	for (size_t k = 0; k < sizeof defs / sizeof defs[0]; ++k) {
		throng_world_def d = throng_world_default_def();
		switch (defs[k].field) {
		case 0: d.capacity = defs[k].value; break;
		case 1: d.threads = defs[k].value; break;
		case 2: d.bounds_mode = (throng_bounds_mode)defs[k].value; break;
		case 3: d.engine = (throng_engine)defs[k].value; break;
		case 4: d.threads_policy = (throng_threads_policy)defs[k].value; break;
		}
		cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT, "%s", defs[k].want);
		assert_error(defs[k].want);
	}
	w = world_with_agents(4);
	struct {
		int field;
		const char* want;
	} ctls[] = {
		{0, "controller.mode: must be weighted, priority, hybrid or relaxation (got 9)"},
		{1, "controller.slot_count: must be at most 16 (got 17)"},
		{2, "controller.slots[0].kind: is not a known behaviour (got 99)"},
		{3, "controller.target_rule.every: must be at least 1 step (got 0)"},
		{4, "controller.contact.iterations: must be from 1 to 16 (got 17)"},
		{5, "controller.contact.iterations: must be from 1 to 16 (got 0)"},
		{6, "controller.slots[0].params.target: must be point, threat or agent (got 5)"},
		{7, "controller.slots[0].params.flee_mode: must be always, panic or safe (got 7)"},
		{8, "controller.slots[0].params.frame: must be local or world (got 3)"},
	};
	for (size_t k = 0; k < sizeof ctls / sizeof ctls[0]; ++k) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot s = throng_slot_default_def(ctls[k].field == 7 ? THRONG_FLEE
		                                        : ctls[k].field == 8 ? THRONG_WANDER
		                                                             : THRONG_SEEK);
		throng_controller_add(&c, s);
		switch (ctls[k].field) {
		case 0: c.mode = (throng_blend_mode)9; break;
		case 1: c.slot_count = 17; break;
		case 2: c.slots[0].kind = (throng_behavior_kind)99; break;
		case 3: c.target_rule = (throng_target_rule){.enabled = true, .sight_radius = 10.0f, .every = 0}; break;
		case 4: c.contact.iterations = 17; break;
		case 5: c.contact.iterations = 0; break;
		case 6: c.slots[0].params.target = (throng_target_source)5; break;
		case 7: c.slots[0].params.flee_mode = (throng_flee_mode)7; break;
		case 8: c.slots[0].params.frame = (throng_wander_frame)3; break;
		}
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT, "%s", ctls[k].want);
		assert_error(ctls[k].want);
	}
	// Floats: the fewest digits that read back, exponents unpadded.
	throng_world_def d = throng_world_default_def();
	d.cell_size = 1.0e7f;
	throng_world* none = NULL;
	cr_assert_eq(throng_world_create(&d, &none), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("world def.cell_size: must be 0 (automatic) or finite, > 0 and <= 1e6 (got 1e7)");
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
	c.contact.stiffness = 1.0000001f;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.contact.stiffness: must be in [1e-6, 1] (got 1.0000001)");
	// relaxation_time is read, and checked, in the relaxation mode only.
	c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.relaxation_time = 0.0f;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	c.mode = THRONG_BLEND_RELAXATION;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.relaxation_time: must be finite, > 0 and <= 1e6 (got 0)");
	c.relaxation_time = NAN;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.relaxation_time: must be finite, > 0 and <= 1e6 (got nan)");
	c.relaxation_time = 0.5f;
	throng_slot h = throng_slot_default_def(THRONG_HEADWAY);
	h.params.time_gap = -1.0f;
	throng_controller_add(&c, h);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("controller.slots[0].params.time_gap: must be finite, > 0 and <= 1e6 (got -1)");
	throng_agent_def a = throng_agent_default_def();
	a.max_force = 4.2949673e9f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT,
	          "agents[1].max_force: must be finite, > 0 and <= 1e6 (got 4.2949673e9)");
	a = throng_agent_default_def();
	a.position.y = -2.5e6f;
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT,
	          "agents[1].position.y: must be finite with magnitude <= 1e6 (got -2.5e6)");
	a = throng_agent_default_def();
	a.velocity = (throng_vec2){2.0f, 0.0f};
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].velocity: too fast (got length 2, at most max_speed 1.3)");
	a = throng_agent_default_def();
	a.heading = (throng_vec2){0.6f, 0.0f};
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT, "agents[1].heading: must be (0,0) or a unit vector (got length 0.6)");
	a = throng_agent_default_def();
	a.position = (throng_vec2){60.0f, 0.25f};
	bad_spawn(a, THRONG_ERR_INVALID_ARGUMENT,
	          "agents[1].position: (60, 0.25) is outside the world (-50, -50)..(50, 50)");
	cr_assert_eq(throng_world_set_target(w, 0, (throng_vec2){NAN, -INFINITY}), THRONG_ERR_INVALID_ARGUMENT);
	assert_error("throng_world_set_target: target: must be finite with magnitude <= 1e6 (got nan, -inf)");
	cr_assert_eq(throng_world_set_threat(w, (throng_vec2){0, 0}, (throng_vec2){3.0e6f, 0}, true),
	             THRONG_ERR_INVALID_ARGUMENT);
	assert_error("throng_world_set_threat: velocity: must be finite with magnitude <= 1e6 (got 3e6, 0)");
	throng_world_destroy(w);
}

// Issue 30, defect 10: a wall 1e-4 m long was "zero-length". Each too short
// a wall now says how long it is and how long it must be; just above
// THR_MIN_WALL_LENGTH (validate.h) is a wall.
Test(errors, short_walls_say_how_short)
{
	throng_world* w = world_with_agents(4);
	struct {
		throng_vec2 a, b;
		const char* want;
	} cases[] = {
		{{0.0f, 0.0f}, {1.0e-4f, 0.0f},
		 "wall.b: too short a wall (got length 0.0001 m from a, expected more than 0.0001 m)"},
		{{2.0f, 3.0f}, {2.0f, 3.00005f},
		 "wall.b: too short a wall (got length 5.00679e-5 m from a, expected more than 0.0001 m)"},
		{{1.0f, 1.0f}, {1.0f, 1.0f}, "wall.b: too short a wall (got length 0 m from a, expected more than 0.0001 m)"},
		{{-5.0f, 0.0f}, {-5.0f, -3.0e-5f},
		 "wall.b: too short a wall (got length 3e-5 m from a, expected more than 0.0001 m)"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		cr_assert_eq(throng_world_add_wall(w, cases[k].a, cases[k].b, NULL), THRONG_ERR_INVALID_ARGUMENT, "%s",
		             cases[k].want);
		assert_error(cases[k].want);
	}
	cr_assert_eq(throng_world_wall_count(w), 0u);
	cr_assert_eq(throng_world_add_wall(w, (throng_vec2){0.0f, 0.0f}, (throng_vec2){1.5e-4f, 0.0f}, NULL), THRONG_OK,
	             "%s", throng_last_error());
	throng_world_destroy(w);
}

// The smallest values accepted give a world that steps (the grid's cell is
// 2e-6 m over 100 m: the layout enlarges it within its bound).
Test(errors, smallest_values_step, .timeout = 30)
{
	throng_world_def d = throng_world_default_def();
	d.cell_size = 0.0f;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot s = throng_slot_default_def(THRONG_SEEK);
	throng_controller_add(&c, s);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a[2] = {throng_agent_default_def(), throng_agent_default_def()};
	a[0].radius = a[1].radius = 1.0e-6f;
	a[1].position = (throng_vec2){1.0f, 0.0f};
	cr_assert_eq(throng_world_spawn(w, a, 2, NULL), THRONG_OK, "%s", throng_last_error());
	for (int k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	throng_world_destroy(w);
}
// OpenMP's default thread count comes from the environment, unchecked by
// OpenMP: OMP_NUM_THREADS=70000 made libgomp overflow its stack while
// starting the team (a segfault without a message). The library caps it.
Test(errors, openmp_default_above_the_cap_is_capped)
{
	omp_set_num_threads(70000);
	cr_assert_eq(throng_default_threads(), THRONG_MAX_THREADS);
	throng_scene* s = thr_test_scene("field", 5000, THRONG_ENGINE_SIMD); // above THR_PARALLEL_MIN_AGENTS
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	throng_scene_destroy(s);
	omp_set_num_threads(2);
	cr_assert_eq(throng_default_threads(), 2u);
}

Test(errors, cli_with_omp_num_threads_70000)
{
	cr_assert(strlen(THRONG_CLI_PATH) > 0, "the throng_cli target is not built");
	// The CSV writer opens a parallel region of its own: 20,000 agents
	// take several of its chunks.
	char cmd[1024], csv[256], out[8192], err[4096];
	snprintf(csv, sizeof csv, "/tmp/throng_test_omp_%d.csv", (int)getpid());
	snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=70000 '%s' run field --agents 20000 --steps 2 --summary json --out '%s'",
	         THRONG_CLI_PATH, csv);
	int rc = thr_test_run(cmd, out, sizeof out, err, sizeof err);
	unlink(csv);
	cr_assert_eq(rc, 0, "exit %d, stderr: %s", rc, err);
	// libgomp reports 70000; LLVM's libomp clamps to its own limit first.
	cr_assert_not_null(strstr(err, " threads (OMP_NUM_THREADS) is above 1024; running 1024"), "%s", err);
	cr_assert_not_null(strstr(out, "\"threads\": 1024"), "%s", out);
}

// ---------------------------------------------------------------------------
// Allocation failures. This executable is linked with
// -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=XXH3_createState
// (tests/CMakeLists.txt): every such call of the library (a static archive)
// and of this file goes through the wrappers below, which fail the chosen
// call while armed. Criterion's own allocations (a shared library) do not.

void* __real_malloc(size_t n);
void* __real_calloc(size_t k, size_t n);
void* __real_realloc(void* p, size_t n);
void* __real_XXH3_createState(void);
void* __wrap_malloc(size_t n);
void* __wrap_calloc(size_t k, size_t n);
void* __wrap_realloc(void* p, size_t n);
void* __wrap_XXH3_createState(void);

static bool alloc_armed;
static long alloc_fail_at; ///< the call that fails, counted from arming; 0 = every call
static long alloc_calls;

static bool alloc_fails(void)
{
	if (!alloc_armed) {
		return false;
	}
	++alloc_calls;
	return alloc_fail_at == 0 || alloc_calls == alloc_fail_at;
}
void* __wrap_malloc(size_t n)
{
	return alloc_fails() ? NULL : __real_malloc(n);
}
void* __wrap_calloc(size_t k, size_t n)
{
	return alloc_fails() ? NULL : __real_calloc(k, n);
}
void* __wrap_realloc(void* p, size_t n)
{
	return alloc_fails() ? NULL : __real_realloc(p, n);
}
void* __wrap_XXH3_createState(void)
{
	return alloc_fails() ? NULL : __real_XXH3_createState();
}

static void arm(long fail_at)
{
	alloc_calls = 0;
	alloc_fail_at = fail_at;
	alloc_armed = true;
}
/// Disarms; returns the allocations made while armed.
static long disarm(void)
{
	alloc_armed = false;
	return alloc_calls;
}

/// Fails each allocation of a step of `engine` in turn, on the first step
/// of scene `name` with n agents: every failure must leave the world
/// exactly as it was (the targets too: charge re-picks them on step 0; its
/// counters count nothing), and a retry then gives the step a clean run
/// gives. Returns how many allocations were failed.
static long fail_each_allocation_of_a_step(const char* name, uint32_t n, throng_engine engine)
{
	throng_scene* ref = thr_test_scene(name, n, engine);
	uint64_t start = throng_world_hash(throng_scene_world(ref));
	cr_assert_eq(throng_world_step(throng_scene_world(ref)), THRONG_OK, "%s", throng_last_error());
	uint64_t clean = throng_world_hash(throng_scene_world(ref));
	throng_scene_destroy(ref);
	long failures = 0;
	for (long k = 1;; ++k) {
		cr_assert_lt(k, 10000, "the step never ran out of allocations to fail");
		throng_scene* s = thr_test_scene(name, n, engine);
		throng_world* w = throng_scene_world(s);
		cr_assert_eq(throng_world_hash(w), start);
		cr_assert_eq(throng_world_set_counting(w, THRONG_COUNT_ALL), THRONG_OK);
		arm(k);
		throng_status st = throng_world_step(w);
		long calls = disarm();
		if (calls < k) {
			cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
			throng_scene_destroy(s);
			return failures;
		}
		cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "allocation %ld failed: status %d", k, (int)st);
		cr_assert_eq(throng_world_hash(w), start, "allocation %ld failed and the world changed", k);
		throng_world_counters last, total;
		cr_assert_eq(throng_world_get_counters(w, &last, &total), THRONG_OK);
		cr_assert_eq(last.steps + total.steps + total.agents + total.step_ns, 0u,
		             "allocation %ld failed and the step was counted", k);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_hash(w), clean, "the retry after failing allocation %ld differs", k);
		cr_assert_eq(throng_world_get_counters(w, NULL, &total), THRONG_OK);
		cr_assert_eq(total.steps, 1u, "the retry is counted once");
		cr_assert_eq(total.agents, n);
		throng_scene_destroy(s);
		++failures;
	}
}

/// The scalar reference re-picks targets before the neighbour gathers that
/// allocate.
Test(errors, failed_scalar_step_leaves_the_world_unchanged)
{
	long failures = fail_each_allocation_of_a_step("charge", 400, THRONG_ENGINE_SCALAR);
	cr_assert_geq(failures, 3, "only %ld allocations in the step", failures);
}

/// A world with obstacles and walls: the scalar reference's feelers query
/// the shape grids into a buffer that grows on the first step; a query
/// that runs out of memory fails the step (it once gave no force and the
/// step succeeded with another state). The SIMD engine copies its shapes
/// before anything changes.
Test(errors, failed_step_with_shapes_leaves_the_world_unchanged)
{
	long failures = fail_each_allocation_of_a_step("field", 400, THRONG_ENGINE_SCALAR);
	cr_assert_geq(failures, 3, "only %ld allocations in the scalar step", failures);
	failures = fail_each_allocation_of_a_step("field", 400, THRONG_ENGINE_SIMD);
	cr_assert_geq(failures, 2, "only %ld allocations in the SIMD step", failures);
}

/// The SIMD engine, through the same step pipeline (core/step.c): every
/// allocation of its step comes before the reorder and the targets.
Test(errors, failed_simd_step_leaves_the_world_unchanged)
{
	long failures = fail_each_allocation_of_a_step("charge", 400, THRONG_ENGINE_SIMD);
	cr_assert_geq(failures, 2, "only %ld allocations in the step", failures);
}

/// A crowd that wanders in both forms with contacts on, packed so that
/// pairs overlap: its first step allocates after the engine's pass (the
/// contact stage's data, its runs).
static throng_world* wandering_crowd(throng_engine engine)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.capacity = 400;
	d.threads = 1;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot noise = throng_slot_default_def(THRONG_WANDER_NOISE);
	noise.params.noise_frequency = 1.0f;
	noise.params.noise_amplitude = 2.0f;
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	throng_controller_add(&c, noise);
	c.contact.enabled = true;
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	throng_agent_def a[400];
	for (int k = 0; k < 400; ++k) {
		a[k] = throng_agent_default_def();
		a[k].position = (throng_vec2){-9.5f + 0.5f * (float)(k % 20), -9.5f + 0.5f * (float)(k / 20)};
	}
	cr_assert_eq(throng_world_spawn(w, a, 400, NULL), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// The engines' passes read the wander angles and write none; the step
/// keeps the turned ones once nothing can fail (core/angles.c). So a step
/// whose contact stage runs out of memory, after the pass, leaves both
/// angles of every agent as they were, and the retry turns them once.
Test(errors, failed_step_after_the_pass_leaves_the_wander_angles)
{
	const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
	for (int e = 0; e < 2; ++e) {
		throng_world* ref = wandering_crowd(engines[e]);
		const uint64_t start = throng_world_hash(ref);
		throng_agent_state before;
		cr_assert_eq(throng_world_get_agent(ref, 7, &before), THRONG_OK);
		cr_assert_eq(throng_world_step(ref), THRONG_OK, "%s", throng_last_error());
		const uint64_t clean = throng_world_hash(ref);
		throng_agent_state after;
		cr_assert_eq(throng_world_get_agent(ref, 7, &after), THRONG_OK);
		cr_assert(after.wander_angle != before.wander_angle && after.noise_angle != before.noise_angle,
		          "engine %d: a step turns both angles", e);
		throng_world_destroy(ref);
		long after_pass = 0;
		for (long k = 1;; ++k) {
			cr_assert_lt(k, 10000, "the step never ran out of allocations to fail");
			throng_world* w = wandering_crowd(engines[e]);
			const uint64_t passes = w->stats.steps;
			arm(k);
			const throng_status st = throng_world_step(w);
			const long calls = disarm();
			if (calls < k) {
				cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
				throng_world_destroy(w);
				break;
			}
			cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "engine %d: allocation %ld failed: status %d", e, k, (int)st);
			cr_assert_eq(throng_world_hash(w), start, "engine %d: allocation %ld failed and the world changed", e, k);
			throng_agent_state now;
			cr_assert_eq(throng_world_get_agent(w, 7, &now), THRONG_OK);
			cr_assert(now.wander_angle == before.wander_angle && now.noise_angle == before.noise_angle,
			          "engine %d: allocation %ld failed and the angles turned", e, k);
			after_pass += w->contact != NULL; // (the stage's data: made after the pass)
			cr_assert_eq(w->stats.steps, passes);
			cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
			cr_assert_eq(throng_world_hash(w), clean, "engine %d: the retry after failing allocation %ld differs", e, k);
			throng_world_destroy(w);
		}
		cr_assert_geq(after_pass, 1, "engine %d: no allocation after the pass failed", e);
	}
}

/// A sparse agent grid (`circle` at 20,000 agents) allocates its own
/// arrays (core/grid.c, build_sparse): failing any of them fails the step
/// cleanly too, on both engines.
Test(errors, failed_step_on_a_sparse_grid_leaves_the_world_unchanged)
{
	const throng_engine engines[2] = {THRONG_ENGINE_SCALAR, THRONG_ENGINE_SIMD};
	for (int e = 0; e < 2; ++e) {
		throng_scene* s = thr_test_scene("circle", 20000, engines[e]);
		cr_assert_eq(throng_world_step(throng_scene_world(s)), THRONG_OK, "%s", throng_last_error());
		cr_assert(throng_scene_world(s)->agent_grid.sparse, "circle at 20,000 agents: a dense agent grid");
		throng_scene_destroy(s);
		long failures = fail_each_allocation_of_a_step("circle", 20000, engines[e]);
		cr_assert_geq(failures, 6, "only %ld allocations in the step", failures);
	}
}

Test(errors, hash_allocates_nothing)
{
	throng_world* w = world_with_agents(8);
	uint64_t h = throng_world_hash(w);
	cr_assert_neq(h, 0u);
	arm(0);
	uint64_t again = throng_world_hash(w);
	disarm();
	cr_assert_eq(again, h, "the hash with every allocation failing");
	throng_world_destroy(w);
}

Test(errors, overlap_count_reports_out_of_memory)
{
	// 2,000 agents of radius 0.3 on a 40 x 50 lattice of pitch 0.5 m:
	// every lattice neighbour overlaps (the built-in scenes spawn without
	// overlap, so the crowd is made here).
	throng_world_def d = throng_world_default_def();
	d.capacity = 2000;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
	static throng_agent_def a[2000];
	for (uint32_t k = 0; k < 2000; ++k) {
		a[k] = throng_agent_default_def();
		a[k].position = (throng_vec2){0.5f * (float)(k % 40u), 0.5f * (float)(k / 40u)};
	}
	cr_assert_eq(throng_world_spawn(w, a, 2000, NULL), THRONG_OK, "%s", throng_last_error());
	uint64_t expected = 0;
	float expected_depth = 0.0f;
	cr_assert_eq(throng_world_overlap_stats(w, &expected, &expected_depth), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(expected, 39u * 50u + 40u * 49u, "%llu overlapping pairs", (unsigned long long)expected);
	for (long k = 0;; ++k) { // k = 0: every allocation fails
		uint64_t pairs = 12345;
		float deepest = 7.0f;
		arm(k);
		throng_status st = throng_world_overlap_stats(w, &pairs, &deepest);
		long calls = disarm();
		if (k > 0 && calls < k) {
			cr_assert_eq(st, THRONG_OK);
			cr_assert_eq(pairs, expected);
			cr_assert_eq(deepest, expected_depth);
			break;
		}
		cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "allocation %ld failed: status %d, %llu pairs", k, (int)st,
		             (unsigned long long)pairs);
		cr_assert_eq(pairs, 0u, "a partial count after a failure");
		cr_assert_eq(deepest, 0.0f, "a partial depth after a failure");
		cr_assert_not_null(strstr(throng_last_error(), "out of memory"), "%s", throng_last_error());
	}
	throng_world_destroy(w);
}

/// Fails each allocation of creating the scenes that scatter agents at
/// random (core/scene/scenario_spawn.c) in turn: each failure is reported
/// as out of memory and leaves no scene, or is one the scene does without
/// (the definition's empty description, replaced at once) and the whole
/// scene is made; under the asan preset, nothing leaks. The walk ends when
/// no allocation is left to fail.
Test(errors, scene_create_reports_out_of_memory)
{
	static const char* const names[] = {"field", "herd", "flock", "solo"};
	for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
		long failed = 0;
		for (long k = 1;; ++k) {
			cr_assert_lt(k, 100000, "%s: creating the scene never ran out of allocations to fail", names[n]);
			throng_scene_def o = throng_scene_default_def();
			o.agents = 30;
			throng_scene* s = NULL;
			arm(k);
			throng_status st = throng_scene_create(names[n], &o, &s);
			long calls = disarm();
			if (calls < k || st == THRONG_OK) {
				cr_assert_eq(st, THRONG_OK, "%s: %s", names[n], throng_last_error());
				cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), 30u, "%s", names[n]);
				throng_scene_destroy(s);
				if (calls < k) {
					break;
				}
				continue;
			}
			cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "%s: allocation %ld failed: status %d: %s", names[n], k, (int)st,
			             throng_last_error());
			cr_assert_null(s);
			++failed;
		}
		cr_assert_gt(failed, 10, "%s: only %ld allocations failed the scene", names[n], failed);
	}
}

Test(errors, metrics_report_out_of_memory_and_observing_allocates_nothing)
{
	// field has obstacles and walls: creating its metrics allocates the
	// overlap sort's arrays, the per-agent arrays and the grids over the shapes.
	throng_scene* s = thr_test_scene("field", 500, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	cr_assert_gt(throng_world_obstacle_count(w), 0u);
	cr_assert_gt(throng_world_wall_count(w), 0u);
	throng_metrics* m = NULL;
	for (long k = 1;; ++k) {
		cr_assert_lt(k, 1000, "creating the metrics never ran out of allocations to fail");
		arm(k);
		throng_status st = throng_metrics_create(w, 1.0f, &m);
		long calls = disarm();
		if (calls < k) {
			cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
			break;
		}
		cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "allocation %ld failed: status %d", k, (int)st);
		cr_assert_null(m);
		assert_message("out of memory");
	}
	// With the shapes unchanged, an observation allocates nothing.
	cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	arm(0);
	throng_status st = throng_metrics_observe(m, w);
	disarm();
	cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
	// A moved obstacle makes the next observation rebuild the grids: each
	// of its allocations fails in turn, taking no state, and a retry works.
	throng_vec2 c;
	float r;
	cr_assert_eq(throng_world_get_obstacle(w, 0, &c, &r), THRONG_OK);
	cr_assert_eq(throng_world_set_obstacle(w, 0, (throng_vec2){c.x + 1.0f, c.y}, r), THRONG_OK);
	long failures = 0;
	for (long k = 1;; ++k) {
		cr_assert_lt(k, 1000, "observing never ran out of allocations to fail");
		arm(k);
		st = throng_metrics_observe(m, w);
		long calls = disarm();
		if (calls < k) {
			cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
			break;
		}
		cr_assert_eq(st, THRONG_ERR_OUT_OF_MEMORY, "allocation %ld failed: status %d", k, (int)st);
		assert_message("obstacles");
		cr_assert_eq(throng_metrics_result(m).steps, 1u, "a failed observation took the state");
		++failures;
	}
	cr_assert_geq(failures, 1, "the rebuild allocates");
	cr_assert_eq(throng_metrics_result(m).steps, 2u);
	throng_metrics_destroy(m);
	throng_scene_destroy(s);
}
