// SPDX-License-Identifier: MIT
// How tests/data/checkpoint_v4.ck was made: this program built against
// throng at a546699 (checkpoint format 4: melee combat, no missiles), run
// as `mkv4 checkpoint_v4.ck`; it printed the two hashes
// tests/test_checkpoint.c pins. Not built here.
#include <throng/throng.h>
#include <throng/checkpoint.h>
#include <stdio.h>
int main(int argc, char** argv)
{
	(void)argc;
	throng_world_def d = throng_world_default_def();
	d.capacity = 64;
	d.threads = 1;
	d.seed = 9;
	d.dt = 0.25f;
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	throng_world* w = NULL;
	if (throng_world_create(&d, &w)) return 1;
	for (uint32_t side = 0; side < 2; ++side) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
		pursue.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&c, pursue);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
		c.target_rule.enabled = true;
		c.target_rule.group = 1u - side;
		c.target_rule.sight_radius = 30.0f;
		c.target_rule.every = 2;
		c.combat.enabled = true;
		c.combat.health = 50.0f;
		c.combat.armour = side == 0 ? 1.0f : 0.0f;
		c.combat.attack = THRONG_ATTACK_MELEE;
		c.combat.reach = 0.5f;
		c.combat.damage = 12.0f;
		c.combat.cooldown = 0.5f;
		c.combat.accuracy = 0.7f;
		if (throng_world_add_archetype(w, &c, NULL)) { puts(throng_last_error()); return 2; }
	}
	for (int k = 0; k < 40; ++k) {
		throng_agent_def a = throng_agent_default_def();
		const int side = k % 2;
		a.position = (throng_vec2){side == 0 ? -3.0f : 3.0f, -19.0f + (float)(k / 2) * 2.0f};
		a.archetype = (uint32_t)side;
		a.group = (uint32_t)side;
		a.target = a.position;
		if (throng_world_spawn(w, &a, 1, NULL)) return 3;
	}
	for (int k = 0; k < 40; ++k) throng_world_step(w);
	if (throng_world_save_checkpoint(w, argv[1])) { puts(throng_last_error()); return 5; }
	throng_agent_state s;
	throng_view v = throng_world_view(w);
	throng_world_get_agent(w, v.id[0], &s);
	printf("hash 0x%016llx count %u removed %llu health[0] %g\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w), (unsigned long long)throng_world_get_stats(w).agents_removed, (double)s.health);
	for (int k = 0; k < 40; ++k) throng_world_step(w);
	printf("after 40 more: hash 0x%016llx count %u\n", (unsigned long long)throng_world_hash(w), throng_world_agent_count(w));
	return 0;
}
