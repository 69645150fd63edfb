// SPDX-License-Identifier: MIT
// How tests/data/checkpoint_v7.ck was made: this program built against
// throng at 4b826a2 (checkpoint format 7: units with army_breaks_at and
// killed, before bodies), run as `mkv7 checkpoint_v7.ck`; it printed the
// hashes tests/test_checkpoint.c pins (built with -DMKV7_MISSILES and
// core/ on the include path, the missiles in flight too). Not built here.
#include <throng/throng.h>
#include <throng/checkpoint.h>
#include <throng/units.h>
#include <stdio.h>
#ifdef MKV7_MISSILES
#include "world_internal.h"
#endif
int main(int argc, char** argv)
{
	(void)argc;
	throng_world_def d = throng_world_default_def();
	d.bounds_min = (throng_vec2){-40.0f, -30.0f};
	d.bounds_max = (throng_vec2){40.0f, 30.0f};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.capacity = 64;
	d.threads = 1;
	d.seed = 17;
	d.dt = 0.25f;
	throng_world* w = NULL;
	if (throng_world_create(&d, &w)) return 1;
	// Archetypes 2k fight, 2k + 1 rout: 0 the west's swordsmen, 2 its
	// archers (who stand and shoot), 4 the east's swordsmen.
	for (uint32_t k = 0; k < 3; ++k) {
		const uint32_t side = k == 2;
		const bool archer = k == 1;
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot pursue = throng_slot_default_def(THRONG_PURSUIT);
		pursue.params.target = THRONG_TARGET_AGENT;
		if (!archer) throng_controller_add(&c, pursue);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
		c.target_rule.enabled = true;
		c.target_rule.group = 1u - side;
		c.target_rule.sight_radius = 40.0f;
		c.target_rule.every = 2;
		c.combat.enabled = true;
		c.combat.health = 50.0f;
		c.combat.armour = side == 0 && !archer ? 2.0f : 0.0f;
		c.combat.attack = archer ? THRONG_ATTACK_MISSILE : THRONG_ATTACK_MELEE;
		c.combat.reach = archer ? 25.0f : 0.6f;
		c.combat.damage = 20.0f;
		c.combat.cooldown = archer ? 1.5f : 0.5f;
		c.combat.accuracy = 0.7f;
		c.combat.missile_speed = archer ? 15.0f : 0.0f;
		c.combat.spread = archer ? 0.5f : 0.0f;
		const throng_controller rout = throng_controller_routing(&c);
		if (throng_world_add_archetype(w, &c, NULL)) { puts(throng_last_error()); return 2; }
		if (throng_world_add_archetype(w, &rout, NULL)) { puts(throng_last_error()); return 2; }
	}
	// Units: 0 the west's swordsmen, 1 its archers (army 0: it breaks when
	// 0.6 of its 20 are killed); 2 and 3 the east's swordsmen (army 1: 0.25
	// of its 24). A unit's own losses alone rout it at 0.8 (breaks_at).
	const uint32_t archetype[4] = {0, 2, 4, 4};
	for (uint32_t u = 0; u < 4; ++u) {
		const uint32_t side = u >= 2;
		throng_unit_def ud = throng_unit_default_def();
		ud.archetype = archetype[u];
		ud.rout_archetype = archetype[u] + 1;
		ud.army = side;
		ud.morale.breaks_at = 0.8f;
		ud.morale.army_breaks_at = side == 0 ? 0.6f : 0.25f;
		if (side == 0) {
			ud.has_refuge = true;
			ud.refuge = (throng_vec2){-38.0f, u == 0 ? -10.0f : 10.0f};
		}
		uint32_t id = 0;
		if (throng_world_add_unit(w, &ud, &id)) { puts(throng_last_error()); return 3; }
	}
	// 12 west swordsmen at x -6, 8 archers behind at x -14, 24 east swordsmen at x 6.
	for (int k = 0; k < 44; ++k) {
		throng_agent_def a = throng_agent_default_def();
		uint32_t u = 0;
		float x = 0.0f, y = 0.0f;
		if (k < 12) { u = 0; x = -6.0f; y = -5.5f + (float)k; }
		else if (k < 20) { u = 1; x = -14.0f; y = -7.0f + 2.0f * (float)(k - 12); }
		else { u = 2 + (uint32_t)(k - 20 >= 12); x = 6.0f; y = -11.5f + (float)(k - 20); }
		a.position = (throng_vec2){x, y};
		a.archetype = archetype[u];
		a.group = u >= 2;
		a.unit = u;
		a.target = a.position;
		if (throng_world_spawn(w, &a, 1, NULL)) { puts(throng_last_error()); return 4; }
	}
	for (int k = 0; k < 80; ++k) throng_world_step(w);
	if (throng_world_save_checkpoint(w, argv[1])) { puts(throng_last_error()); return 5; }
	printf("hash 0x%016llx count %u removed %llu\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w), (unsigned long long)throng_world_get_stats(w).agents_removed);
#ifdef MKV7_MISSILES
	printf("missiles %u\n", w->missile_n);
#endif
	for (uint32_t u = 0; u < throng_world_unit_count(w); ++u) {
		throng_unit_state s;
		if (throng_world_get_unit(w, u, &s)) return 6;
		printf("unit %u: %u of %u, killed %u, morale %.3f, %s\n", u, s.count, s.most, s.killed,
		       (double)s.morale, s.routing ? "routing" : "standing");
	}
	for (int k = 0; k < 40; ++k) throng_world_step(w);
	printf("after 40 more: hash 0x%016llx count %u\n", (unsigned long long)throng_world_hash(w),
	       throng_world_agent_count(w));
	return 0;
}
