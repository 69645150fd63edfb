// SPDX-License-Identifier: MIT
// How tests/data/checkpoint_v5.ck was made: this program built against
// throng at 2a72688 (checkpoint format 5: melee and missiles, no units),
// run as `mkv5 checkpoint_v5.ck`; it printed the hashes
// tests/test_checkpoint.c pins. Not built here.
#include <throng/throng.h>
#include <throng/checkpoint.h>
#include <throng/sources.h>
#include <stdio.h>
int main(int argc, char** argv)
{
	(void)argc;
	throng_world_def d = throng_world_default_def();
	d.capacity = 64;
	d.threads = 1;
	d.seed = 11;
	d.dt = 0.25f;
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	throng_world* w = NULL;
	if (throng_world_create(&d, &w)) return 1;
	// Side 0 fights hand to hand, side 1 shoots.
	for (uint32_t side = 0; side < 2; ++side) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
		pursue.params.target = THRONG_TARGET_AGENT;
		if (side == 0) throng_controller_add(&c, pursue);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
		c.target_rule.enabled = true;
		c.target_rule.group = 1u - side;
		c.target_rule.sight_radius = 40.0f;
		c.target_rule.every = 2;
		c.combat.enabled = true;
		c.combat.health = 50.0f;
		c.combat.armour = side == 0 ? 1.0f : 0.0f;
		c.combat.attack = side == 0 ? THRONG_ATTACK_MELEE : THRONG_ATTACK_MISSILE;
		c.combat.reach = side == 0 ? 0.5f : 30.0f;
		c.combat.damage = 20.0f;
		c.combat.cooldown = side == 0 ? 0.5f : 1.5f;
		c.combat.accuracy = 0.7f;
		c.combat.missile_speed = side == 0 ? 0.0f : 15.0f;
		c.combat.spread = side == 0 ? 0.0f : 0.5f;
		if (throng_world_add_archetype(w, &c, NULL)) { puts(throng_last_error()); return 2; }
	}
	for (int k = 0; k < 40; ++k) {
		throng_agent_def a = throng_agent_default_def();
		const int side = k % 2;
		a.position = (throng_vec2){side == 0 ? -8.0f : 8.0f, -19.0f + (float)(k / 2) * 2.0f};
		a.archetype = (uint32_t)side;
		a.group = (uint32_t)side;
		a.target = a.position;
		if (throng_world_spawn(w, &a, 1, NULL)) return 3;
	}
	// Reinforcements for side 0 from the west.
	throng_source_def s = throng_source_default_def();
	s.min = (throng_vec2){-30, -5};
	s.max = (throng_vec2){-25, 5};
	s.rate = 1.0f;
	s.count = 8;
	s.agent.archetype = 0;
	s.agent.group = 0;
	s.agent.target = (throng_vec2){0, 0};
	if (throng_world_add_source(w, &s, NULL)) { puts(throng_last_error()); return 4; }
	for (int k = 0; k < 80; ++k) throng_world_step(w);
	if (throng_world_save_checkpoint(w, argv[1])) { puts(throng_last_error()); return 5; }
	printf("hash 0x%016llx count %u added %llu removed %llu\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w), (unsigned long long)throng_world_get_stats(w).agents_added,
	       (unsigned long long)throng_world_get_stats(w).agents_removed);
	for (int k = 0; k < 40; ++k) throng_world_step(w);
	printf("after 40 more: hash 0x%016llx count %u\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w));
	return 0;
}
