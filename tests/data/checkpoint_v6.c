// SPDX-License-Identifier: MIT
// How tests/data/checkpoint_v6.ck was made: this program built against
// throng at 78328b3 (checkpoint format 6: units, before army_breaks_at
// and killed), run as `mkv6 checkpoint_v6.ck`; it printed the hashes
// tests/test_checkpoint.c pins. Not built here.
#include <throng/throng.h>
#include <throng/checkpoint.h>
#include <throng/units.h>
#include <stdio.h>
int main(int argc, char** argv)
{
	(void)argc;
	throng_world_def d = throng_world_default_def();
	d.bounds_min = (throng_vec2){-40.0f, -30.0f};
	d.bounds_max = (throng_vec2){40.0f, 30.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.capacity = 64;
	d.threads = 1;
	d.seed = 12;
	d.dt = 0.25f;
	throng_world* w = NULL;
	if (throng_world_create(&d, &w)) return 1;
	// Two sides of swordsmen: archetype 2 * side fights, 2 * side + 1 routs.
	for (uint32_t side = 0; side < 2; ++side) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
		pursue.params.target = THRONG_TARGET_AGENT;
		throng_controller_add(&c, pursue);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
		c.target_rule.enabled = true;
		c.target_rule.group = 1u - side;
		c.target_rule.sight_radius = 40.0f;
		c.target_rule.every = 2;
		c.combat.enabled = true;
		c.combat.health = 50.0f;
		c.combat.armour = side == 0 ? 2.0f : 0.0f;
		c.combat.attack = THRONG_ATTACK_MELEE;
		c.combat.reach = 0.6f;
		c.combat.damage = 20.0f;
		c.combat.cooldown = 0.5f;
		c.combat.accuracy = 0.7f;
		const throng_controller rout = throng_controller_routing(&c);
		if (throng_world_add_archetype(w, &c, NULL)) { puts(throng_last_error()); return 2; }
		if (throng_world_add_archetype(w, &rout, NULL)) { puts(throng_last_error()); return 2; }
	}
	// Two units a side, no formation: side 0's run to a refuge in the west,
	// side 1's 1 km behind their facing; unit 3 is the shakiest.
	for (uint32_t u = 0; u < 4; ++u) {
		const uint32_t side = u / 2;
		throng_unit_def ud = throng_unit_default_def();
		ud.archetype = 2 * side;
		ud.rout_archetype = 2 * side + 1;
		ud.army = side;
		if (side == 0) {
			ud.has_refuge = true;
			ud.refuge = (throng_vec2){-38.0f, u == 0 ? -10.0f : 10.0f};
		}
		if (u == 3) ud.morale.breaks_at = 0.25f;
		uint32_t id = 0;
		if (throng_world_add_unit(w, &ud, &id)) { puts(throng_last_error()); return 3; }
	}
	for (int k = 0; k < 48; ++k) {
		throng_agent_def a = throng_agent_default_def();
		const int side = k % 2;
		const int row = k / 2;
		a.position = (throng_vec2){side == 0 ? -6.0f : 6.0f, -11.5f + (float)row};
		a.archetype = (uint32_t)(2 * side);
		a.group = (uint32_t)side;
		a.unit = (uint32_t)(2 * side + (row >= 12));
		a.target = a.position;
		if (throng_world_spawn(w, &a, 1, NULL)) { puts(throng_last_error()); return 4; }
	}
	for (int k = 0; k < 80; ++k) throng_world_step(w);
	if (throng_world_save_checkpoint(w, argv[1])) { puts(throng_last_error()); return 5; }
	printf("hash 0x%016llx count %u removed %llu\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w), (unsigned long long)throng_world_get_stats(w).agents_removed);
	for (uint32_t u = 0; u < throng_world_unit_count(w); ++u) {
		throng_unit_state s;
		if (throng_world_get_unit(w, u, &s)) return 6;
		printf("unit %u: %u of %u, morale %.3f, %s\n", u, s.count, s.most, (double)s.morale,
		       s.routing ? "routing" : "standing");
	}
	for (int k = 0; k < 40; ++k) throng_world_step(w);
	printf("after 40 more: hash 0x%016llx count %u\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w));
	return 0;
}
