// SPDX-License-Identifier: MIT
// How tests/data/checkpoint_v3.ck was made: this program built against
// throng at ebe7668 (checkpoint format 3), run as `mkv3 checkpoint_v3.ck`;
// it printed the two hashes tests/test_checkpoint.c pins. Not built here.
#include <throng/throng.h>
#include <throng/checkpoint.h>
#include <throng/sources.h>
#include <stdio.h>
int main(int argc, char** argv)
{
	throng_world_def d = throng_world_default_def();
	d.capacity = 64;
	d.threads = 1;
	d.seed = 5;
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	throng_world* w = NULL;
	if (throng_world_create(&d, &w)) return 1;
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	if (throng_world_add_archetype(w, &c, NULL)) return 2;
	for (int k = 0; k < 40; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){-40.0f + 2.0f * (float)k, (float)(k % 7) * 3.0f - 9.0f};
		a.target = (throng_vec2){30.0f, (float)(k % 5)};
		if (throng_world_spawn(w, &a, 1, NULL)) return 3;
	}
	throng_source_def s = throng_source_default_def();
	s.min = (throng_vec2){-5, -5};
	s.max = (throng_vec2){5, 5};
	s.rate = 2.0f;
	s.agent.target = (throng_vec2){20, 0};
	s.relative_target = true;
	if (throng_world_add_source(w, &s, NULL)) { puts(throng_last_error()); return 4; }
	for (int k = 0; k < 30; ++k) throng_world_step(w);
	if (throng_world_save_checkpoint(w, argv[1])) { puts(throng_last_error()); return 5; }
	printf("hash 0x%016llx count %u step %llu\n", (unsigned long long)throng_world_hash(w), throng_world_agent_count(w), (unsigned long long)throng_world_get_stats(w).steps);
	for (int k = 0; k < 30; ++k) throng_world_step(w);
	printf("after 30 more: hash 0x%016llx\n", (unsigned long long)throng_world_hash(w));
	return 0;
}
