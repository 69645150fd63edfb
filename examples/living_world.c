// SPDX-License-Identifier: MIT
// A world that changes while it runs, through the C API alone: walkers
// come in at a door every second, game code asks who stands near a point
// and takes out the nearest, and those that reach the exit zone leave.
// Prints what happened; run by ctest (example_living_world).
//
//     living_world [seconds]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng/throng.h"

#define CHECK(call)                                                          \
	do {                                                                     \
		if ((call) != THRONG_OK) {                                           \
			fprintf(stderr, "living_world: %s\n", throng_last_error());      \
			throng_world_destroy(world);                                     \
			return 1;                                                        \
		}                                                                    \
	} while (0)

int main(int argc, char** argv)
{
	const int seconds = argc > 1 ? atoi(argv[1]) : 30;
	throng_world_def def = throng_world_default_def(); // 100 m square, contained
	def.capacity = 16;                                 // where it starts: it grows as walkers come in
	throng_world* world = NULL;
	if (throng_world_create(&def, &world) != THRONG_OK) {
		fprintf(stderr, "living_world: %s\n", throng_last_error());
		return 1;
	}
	throng_controller walker = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot separation = throng_slot_default_def(THRONG_SEPARATION);
	separation.weight = 2.0f;
	if (throng_controller_add(&walker, throng_slot_default_def(THRONG_SEEK)) < 0 ||
	    throng_controller_add(&walker, separation) < 0) {
		fprintf(stderr, "living_world: %s\n", throng_last_error());
		throng_world_destroy(world);
		return 1;
	}
	uint32_t archetype = 0;
	CHECK(throng_world_add_archetype(world, &walker, &archetype));

	// The exit: a box zone on the far side; whoever enters it leaves.
	throng_zone_def exit_zone = throng_zone_default_def();
	exit_zone.shape = THRONG_ZONE_BOX;
	exit_zone.min = (throng_vec2){11.0f, -5.0f};
	exit_zone.max = (throng_vec2){15.0f, 5.0f};
	strcpy(exit_zone.name, "exit");
	uint32_t exit_id = 0;
	CHECK(throng_world_add_zone(world, &exit_zone, &exit_id));

	uint64_t came = 0, left = 0, taken = 0;
	for (int step = 0; step < seconds * 60; ++step) {
		if (step % 60 == 0) { // a door lets five in every second
			throng_agent_def in[5];
			for (int k = 0; k < 5; ++k) {
				in[k] = throng_agent_default_def();
				in[k].position = (throng_vec2){-15.0f, -4.0f + 2.0f * (float)k};
				in[k].target = (throng_vec2){15.0f, 0.0f};
				in[k].archetype = archetype;
			}
			CHECK(throng_world_spawn(world, in, 5, NULL));
		}
		if (step % 600 == 599) { // every 10 s: who is within 5 m of the middle? The nearest goes.
			uint32_t near[64], total = 0, nearest = 0, found = 0;
			CHECK(throng_world_query_radius(world, (throng_vec2){0.0f, 0.0f}, 5.0f, NULL, near, 64, &total));
			CHECK(throng_world_query_nearest(world, (throng_vec2){0.0f, 0.0f}, 1, NULL, &nearest, &found));
			printf("t = %3d s: %u within 5 m of the middle", (step + 1) / 60, total);
			if (found == 1) {
				CHECK(throng_world_remove_agent(world, nearest));
				printf(", agent %u taken out", nearest);
				taken++;
			}
			printf("\n");
		}
		CHECK(throng_world_step(world));
		// What the step did: those who reached the exit leave the world.
		const throng_event* events = NULL;
		uint32_t n = 0;
		CHECK(throng_world_events(world, &events, &n));
		uint32_t leaving[256], count = 0;
		for (uint32_t k = 0; k < n; ++k) {
			came += events[k].kind == THRONG_EVENT_ADDED;
			if (events[k].kind == THRONG_EVENT_ENTERED && events[k].zone == exit_id && count < 256) {
				leaving[count++] = events[k].agent;
			}
		}
		if (count > 0) {
			CHECK(throng_world_remove_agents(world, leaving, count));
			left += count;
		}
	}
	printf("%llu came in, %llu left by the exit, %llu taken out, %u still walking (ids up to %u)\n",
	       (unsigned long long)came, (unsigned long long)left, (unsigned long long)taken,
	       throng_world_agent_count(world), throng_world_id_end(world));
	throng_world_destroy(world);
	return 0;
}
