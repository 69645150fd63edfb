// SPDX-License-Identifier: MIT
// An outside program built against an installed throng's core alone
// (tests/test_install.sh): throng.h and behavior.h, libthrong, nothing of
// the scene or io libraries. A ring of agents seeks the centre while
// keeping apart; the program prints the state hash after 20 steps.
#include <stdio.h>

#include <throng/throng.h>

static int fail(const char* what)
{
	fprintf(stderr, "core_only: %s: %s\n", what, throng_last_error());
	return 1;
}

int main(void)
{
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-50.0f, -50.0f};
	def.bounds_max = (throng_vec2){50.0f, 50.0f};
	def.capacity = 256;
	throng_world* world = NULL;
	if (throng_world_create(&def, &world) != THRONG_OK) {
		return fail("throng_world_create");
	}
	throng_controller ctl = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&ctl, throng_slot_default_def(THRONG_SEEK));
	throng_controller_add(&ctl, throng_slot_default_def(THRONG_SEPARATION));
	uint32_t archetype = 0;
	if (throng_world_add_archetype(world, &ctl, &archetype) != THRONG_OK) {
		return fail("throng_world_add_archetype");
	}
	// 200 agents on a 20 x 10 lattice, all seeking the origin.
	throng_agent_def agents[200];
	for (int k = 0; k < 200; ++k) {
		agents[k] = throng_agent_default_def();
		agents[k].position = (throng_vec2){-30.0f + 3.0f * (float)(k % 20), -15.0f + 3.0f * (float)(k / 20)};
		agents[k].archetype = archetype;
		agents[k].target = (throng_vec2){0.0f, 0.0f};
	}
	if (throng_world_spawn(world, agents, 200, NULL) != THRONG_OK) {
		return fail("throng_world_spawn");
	}
	for (int s = 0; s < 20; ++s) {
		if (throng_world_step(world) != THRONG_OK) {
			return fail("throng_world_step");
		}
	}
	printf("core: agents %u steps 20 hash %016llx\n", throng_world_agent_count(world),
	       (unsigned long long)throng_world_hash(world));
	throng_world_destroy(world);
	return 0;
}
