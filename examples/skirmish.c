// SPDX-License-Identifier: MIT
// Two armies in units that break and run, through the C API alone: each
// side three units of foot soldiers who charge the nearest enemy; a unit
// that loses too many, or is struck in the flank or rear, routs and runs
// for its refuge (docs/ARMIES.md, "Morale and rout"). Prints each army's
// soldiers standing and routing every five seconds, the first rout and the
// winner; run by ctest (example_skirmish).
//
//     skirmish [seconds]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "throng/throng.h"

#define UNITS 3    ///< units an army
#define SOLDIERS 200 ///< soldiers a unit

#define CHECK(call)                                                          \
	do {                                                                     \
		if ((call) != THRONG_OK) {                                           \
			fprintf(stderr, "skirmish: %s\n", throng_last_error());          \
			throng_world_destroy(world);                                     \
			return 1;                                                        \
		}                                                                    \
	} while (0)

/// A foot soldier of `army`: keeps 0.9 m of personal space, pursues the
/// nearest enemy within 80 m (chosen every second) and strikes it.
static throng_controller soldier(uint32_t army)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot space = throng_slot_default_def(THRONG_SEPARATION);
	space.priority = true;
	space.weight = 4.0f;
	space.params.neighbor_radius = 0.9f;
	throng_controller_add(&c, space);
	throng_slot charge = throng_slot_default_def(THRONG_PURSUIT);
	charge.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&c, charge);
	c.target_rule = (throng_target_rule){true, 1u - army, 80.0f, 10u, 0u};
	c.combat.enabled = true;
	c.combat.health = 100.0f;
	c.combat.armour = army == 0 ? 2.0f : 4.0f; // east is better armoured...
	c.combat.attack = THRONG_ATTACK_MELEE;
	c.combat.reach = 0.3f;
	c.combat.damage = 20.0f;
	c.combat.cooldown = 1.0f;
	c.combat.accuracy = army == 0 ? 0.65f : 0.55f; // ...and west strikes truer
	return c;
}

int main(int argc, char** argv)
{
	const int seconds = argc > 1 ? atoi(argv[1]) : 120;
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-100.0f, -60.0f};
	def.bounds_max = (throng_vec2){100.0f, 60.0f};
	def.dt = 0.1f;
	throng_world* world = NULL;
	if (throng_world_create(&def, &world) != THRONG_OK) {
		fprintf(stderr, "skirmish: %s\n", throng_last_error());
		return 1;
	}
	uint32_t fight[2], flee[2];
	for (uint32_t army = 0; army < 2; ++army) {
		const throng_controller c = soldier(army);
		CHECK(throng_world_add_archetype(world, &c, &fight[army]));
		// Routing: the same body and armour, no attack, a run for the refuge.
		const throng_controller r = throng_controller_routing(&c);
		CHECK(throng_world_add_archetype(world, &r, &flee[army]));
	}
	// Each army three units side by side, 10 files by 20 ranks on a 1 m
	// lattice, the fronts 20 m apart; a unit runs for its own side's edge.
	throng_agent_def* defs = malloc(SOLDIERS * sizeof *defs);
	if (defs == NULL) {
		throng_world_destroy(world);
		return 1;
	}
	for (uint32_t army = 0; army < 2; ++army) {
		const float side = army == 0 ? -1.0f : 1.0f;
		for (uint32_t k = 0; k < UNITS; ++k) {
			throng_unit_def unit = throng_unit_default_def();
			unit.archetype = fight[army];
			unit.rout_archetype = flee[army];
			unit.army = army;
			unit.has_refuge = true;
			unit.refuge = (throng_vec2){side * 95.0f, 0.0f};
			uint32_t id = 0;
			CHECK(throng_world_add_unit(world, &unit, &id));
			for (uint32_t s = 0; s < SOLDIERS; ++s) {
				throng_agent_def a = throng_agent_default_def();
				a.position = (throng_vec2){side * (10.0f + (float)(s / 20u)),
				                           -37.0f + 25.0f * (float)k + (float)(s % 20u)};
				a.heading = (throng_vec2){-side, 0.0f};
				a.max_speed = 1.5f;
				a.archetype = fight[army];
				a.group = army;
				a.unit = id;
				defs[s] = a;
			}
			CHECK(throng_world_spawn(world, defs, SOLDIERS, NULL));
		}
	}
	free(defs);

	uint32_t standing[2] = {0, 0};
	for (int step = 1; step <= seconds * 10; ++step) {
		CHECK(throng_world_step(world));
		// Who stands: the live soldiers whose unit does not rout.
		const throng_view v = throng_world_view(world);
		uint32_t routing[2] = {0, 0};
		standing[0] = standing[1] = 0;
		for (uint32_t i = 0; i < v.count; ++i) {
			const int runs = (v.combat_state[i] & THRONG_COMBAT_ROUTING) != 0;
			routing[v.group[i]] += (uint32_t)runs;
			standing[v.group[i]] += (uint32_t)!runs;
		}
		if (step % 50 == 0) {
			printf("%3d s: west %u standing, %u running; east %u standing, %u running\n", step / 10,
			       standing[0], routing[0], standing[1], routing[1]);
		}
		if (standing[0] == 0 || standing[1] == 0) {
			break;
		}
	}
	uint64_t first = UINT64_MAX;
	uint32_t first_unit = 0, routed = 0;
	for (uint32_t u = 0; u < throng_world_unit_count(world); ++u) {
		throng_unit_state s;
		CHECK(throng_world_get_unit(world, u, &s));
		if (s.routed_step != UINT64_MAX) {
			routed++;
			if (s.routed_step < first) {
				first = s.routed_step;
				first_unit = u;
			}
		}
	}
	if (first != UINT64_MAX) {
		printf("unit %u (%s) broke first, at %.1f s; %u of %u units routed\n", first_unit,
		       first_unit < UNITS ? "west" : "east", (double)first * (double)def.dt, routed, 2 * UNITS);
	}
	if (standing[0] > 0 && standing[1] == 0) {
		printf("won by west, %u standing\n", standing[0]);
	} else if (standing[1] > 0 && standing[0] == 0) {
		printf("won by east, %u standing\n", standing[1]);
	} else {
		printf("undecided after %d s\n", seconds);
	}
	throng_world_destroy(world);
	return 0;
}
