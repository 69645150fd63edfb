// SPDX-License-Identifier: MIT
// The `armies` scenario: two armies fight until one is left standing
// (docs/ARMIES.md, "The armies scene").
//
// Army 0 (west, group label 0) stands west of the field's centre line and
// faces east; army 1 (east, label 1) mirrors it. Each is 60% infantry, 20%
// cavalry and 20% archers (rounded down, archers take the rest), every
// soldier with combat, every block one unit (throng/units.h). The soldiers
// are groups of the scene's definition, one a unit, so `throng save
// armies` writes them as a scenario file's groups with their `morale`.
// - infantry: a line of units side by side (sqrt(infantry / 40) of them:
//   4 of 150 at 2,000 agents, 27 of 1,100 at 100,000), each four times
//   wider than deep on a 1 m lattice, its front ARMIES_GAP / 2 from the
//   centre line. 1.4 m/s; health 100, armour 2; in melee (reach 0.3 m)
//   30 damage a strike, 60% of strikes hit, one a second.
// - archers: one unit behind each infantry unit, ARMIES_ARCHER_BACK behind
//   its last rank: 1.2 m/s, health 60, no armour; missiles of range 40 m
//   at 50 m/s landing within 1 m of their target, 30 damage, half of them
//   hit, one every 2 s. They close to their range of the enemy and shoot
//   over their own line.
// - cavalry: a square unit on each flank of the line: 5 m/s, health 150,
//   armour 4, 40 damage, 70% hit, every 1.5 s.
// Everyone picks the nearest enemy within 300 m every 10 steps (infantry
// and cavalry pursue it, archers close to their range), keeps 0.9 m
// (riders 1.4 m) from everyone and inside the field first (hybrid), and
// with nobody in sight marches on (arrive, weight 0.25) to a point short
// of the enemy's end of the field, straight ahead, so parties left far
// apart still meet. Morale is the library's default but for panic 0.01
// a second per routing unit nearby and recovery 0.05 a second (a battle
// of equal armies with the default panic often ends with both broken);
// a unit that breaks runs for its own end of the field, where an exit (a
// sink zone ARMIES_EXIT deep) takes every soldier who reaches it; one
// that shakes off pursuit for 10 s rallies, once. An army that has lost
// ARMIES_ARMY_BREAKS of its soldiers killed breaks (army_breaks_at):
// every unit of it routs, none rallies. Without it the knots of a long
// front (100,000 soldiers) each fight to their own end, and the
// remnants of both sides, hundreds of metres apart and out of each
// other's sight, stand undecided past the default time.
//
// Scaling: units grow as sqrt(N) and so does their number, so the line
// grows wider (2.1 km of front at 100,000) and a little deeper (6 ranks
// at 2,000, 17 at 100,000) while the fronts start ARMIES_GAP apart at any
// N: the battle is fought along the whole front at once.
//
// The outcome measure `battle` (below) reads the world only, so a
// scenario file naming it (`measure: battle`) is measured alike: the
// sides are the group labels of the soldiers (agents of an archetype with
// combat); a soldier stands while it is alive and its unit does not
// rout; the battle is decided at the first check (every ARMIES_SAMPLE
// steps) at which at most one side stands, some soldier having fallen or
// routed, and won by the side standing (a broken unit that rallies
// later makes it undecided again).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scenario_file_internal.h"
#include "scenario_internal.h"
#include "throng/units.h"

#define ARMIES_GAP 40.0f            ///< m between the infantry fronts at the start
#define ARMIES_ARCHER_BACK 8.0f     ///< m from the infantry's last rank to its archers
#define ARMIES_CAV_FLANK 8.0f       ///< m from the infantry line's end to the cavalry
#define ARMIES_UNIT_GAP 4.0f        ///< m between neighbouring infantry units
#define ARMIES_MARGIN 30.0f         ///< m of field around the armies
#define ARMIES_PANIC 0.01f          ///< morale lost a second to each routing unit of its army nearby
#define ARMIES_RECOVERY 0.05f       ///< shock recovered a second
#define ARMIES_ARMY_BREAKS 0.5f     ///< an army that has lost this share of its soldiers killed breaks
#define ARMIES_EXIT 6.0f            ///< m: the depth of each army's exit, at its end of the field
#define ARMIES_SPACING 1.0f         ///< m: infantry and archers' lattice
#define ARMIES_CAV_SPACING 1.6f     ///< m: the riders' lattice
#define ARMIES_PER_UNIT 40.0        ///< infantry units ~ sqrt(infantry / this)
#define ARMIES_SAMPLE 30u           ///< steps between checks of the outcome
#define ARMIES_MAX_SIDES 16u        ///< labels the measure tells apart (the rest are not counted)

enum { ROLE_INFANTRY = 0, ROLE_CAVALRY = 1, ROLE_ARCHERS = 2, ROLES = 3 };

/// Per-role body and fight.
typedef struct armies_role_def {
	const char* name;
	float speed, force, radius, sight;
	uint32_t every; ///< steps between target choices
	throng_combat combat;
} armies_role_def;

static const armies_role_def armies_roles[ROLES] = {
	{"infantry", 1.4f, 3.0f, 0.3f, 300.0f, 10u,
	 {true, 100.0f, 2.0f, THRONG_ATTACK_MELEE, 0.3f, 30.0f, 1.0f, 0.6f, 0.0f, 0.0f, 0.0f}},
	{"cavalry", 5.0f, 5.0f, 0.6f, 300.0f, 10u,
	 {true, 150.0f, 4.0f, THRONG_ATTACK_MELEE, 0.4f, 40.0f, 1.5f, 0.7f, 0.0f, 0.0f, 0.0f}},
	{"archers", 1.2f, 3.0f, 0.3f, 300.0f, 10u,
	 {true, 60.0f, 0.0f, THRONG_ATTACK_MISSILE, 40.0f, 30.0f, 2.0f, 0.5f, 50.0f, 1.0f, 0.0f}},
};

/// The controller of one role of one army: keep inside the field and 0.9 m
/// (riders 1.4 m) from everyone, spending the force budget on that first
/// (hybrid); infantry and cavalry pursue the target their rule chose,
/// everyone walks to its target point (the march, the archers' post) when
/// nothing else pulls it.
static throng_controller armies_controller(uint32_t army, uint32_t role)
{
	const armies_role_def* r = &armies_roles[role];
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot s = throng_slot_default_def(THRONG_BOUNDS);
	s.priority = true;
	s.params.margin = 5.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_SEPARATION);
	s.priority = true;
	s.weight = 4.0f;
	s.params.neighbor_radius = role == ROLE_CAVALRY ? 1.4f : 0.9f;
	throng_controller_add(&c, s);
	if (role != ROLE_ARCHERS) {
		s = throng_slot_default_def(THRONG_PURSUIT);
		s.params.target = THRONG_TARGET_AGENT;
		s.params.max_prediction = 1.0f;
	} else {
		// Close to their range of the nearest enemy, then stand and shoot.
		s = throng_slot_default_def(THRONG_ARRIVE);
		s.params.target = THRONG_TARGET_AGENT;
		s.params.slow_radius = r->combat.reach;
	}
	throng_controller_add(&c, s);
	// Nobody in sight: march on towards the enemy's end of the field (the
	// target point), so that parties left far apart still meet.
	s = throng_slot_default_def(THRONG_ARRIVE);
	s.params.target = THRONG_TARGET_POINT;
	s.params.slow_radius = 10.0f;
	s.weight = 0.25f;
	throng_controller_add(&c, s);
	c.target_rule = (throng_target_rule){true, 1u - army, r->sight, r->every, 0};
	c.combat = r->combat;
	c.contact.iterations = 8; // a melee presses the lines together (scenario_charge.c)
	return c;
}

/// One army's layout: counts and block sizes per role (m).
typedef struct armies_layout {
	uint32_t count[ROLES];
	uint32_t units;          ///< infantry units (and archer units)
	float unit_width, line_width; ///< m along the front: one infantry unit, the whole line
	float inf_depth, arch_depth, cav_width; ///< m
} armies_layout;

/// Ranks of a block of n four times wider than deep.
static uint32_t armies_ranks(uint32_t n)
{
	uint32_t r = (uint32_t)lroundf(sqrtf((float)n / 4.0f));
	return r > 0 ? r : 1u;
}

/// Agents of part k of n split into `parts` (the first n % parts one more).
static uint32_t armies_share(uint32_t n, uint32_t parts, uint32_t k)
{
	return n / parts + (k < n % parts ? 1u : 0u);
}

static void armies_lay_out(uint32_t size, armies_layout* L)
{
	memset(L, 0, sizeof *L);
	L->count[ROLE_INFANTRY] = (uint32_t)((uint64_t)size * 3u / 5u);
	L->count[ROLE_CAVALRY] = size / 5u;
	L->count[ROLE_ARCHERS] = size - L->count[ROLE_INFANTRY] - L->count[ROLE_CAVALRY];
	uint32_t units = (uint32_t)lround(sqrt((double)L->count[ROLE_INFANTRY] / ARMIES_PER_UNIT));
	L->units = units > 0 ? units : 1u;
	uint32_t biggest = armies_share(L->count[ROLE_INFANTRY], L->units, 0);
	uint32_t ranks = armies_ranks(biggest);
	L->inf_depth = (float)ranks * ARMIES_SPACING;
	L->unit_width = (float)((biggest + ranks - 1u) / ranks) * ARMIES_SPACING;
	L->line_width = (float)L->units * L->unit_width + (float)(L->units - 1u) * ARMIES_UNIT_GAP;
	uint32_t archers = armies_share(L->count[ROLE_ARCHERS], L->units, 0);
	L->arch_depth = (float)armies_ranks(archers > 0 ? archers : 1u) * ARMIES_SPACING;
	uint32_t riders = (L->count[ROLE_CAVALRY] + 1u) / 2u;
	L->cav_width = ceilf(sqrtf((float)(riders > 0 ? riders : 1u))) * ARMIES_CAV_SPACING;
}

/// Centre of infantry unit k of the line, across the front (m).
static float armies_unit_y(const armies_layout* L, uint32_t k)
{
	return -0.5f * L->line_width + (float)k * (L->unit_width + ARMIES_UNIT_GAP) + 0.5f * L->unit_width;
}

/// States one unit: a group of `count` soldiers of `role` on a lattice of
/// `ranks` centred on `centre`, facing its enemy, walking to `goal`.
static throng_status armies_unit(throng_scene* scene, uint32_t army, uint32_t role, uint32_t k, uint32_t count,
                                 uint32_t archetype, uint32_t ranks, float spacing, throng_vec2 centre,
                                 throng_vec2 goal, throng_vec2 refuge)
{
	static const char* const sides[2] = {"west", "east"};
	const armies_role_def* r = &armies_roles[role];
	char name[64];
	snprintf(name, sizeof name, "%s_%s_%u", sides[army], r->name, k);
	sf_group* g = NULL;
	throng_status st = thr_scene_add_group(scene, name, archetype, count, &g);
	if (st != THRONG_OK) {
		return st;
	}
	g->id = army;
	g->spawn.shape = SF_SHAPE_GRID;
	g->spawn.center = centre;
	g->spawn.spacing = (throng_vec2){spacing, spacing};
	g->spawn.columns = ranks;
	g->heading = SF_HEADING_VECTOR;
	g->heading_vector = (throng_vec2){army == 0 ? 1.0f : -1.0f, 0.0f};
	g->goal = SF_GOAL_POINT;
	g->goal_point = goal;
	g->max_speed = r->speed;
	g->max_force = r->force;
	g->radius = r->radius;
	g->morale = true;
	g->unit = throng_unit_default_def();
	g->unit.has_refuge = true;
	g->unit.refuge = refuge;
	g->unit.morale.panic = ARMIES_PANIC;
	g->unit.morale.recovery = ARMIES_RECOVERY;
	g->unit.morale.army_breaks_at = ARMIES_ARMY_BREAKS;
	return THRONG_OK;
}

throng_status thr_armies_build(throng_scene* scene, const throng_scene_def* o)
{
	const uint32_t n = scene->agents;
	armies_layout lay[2];
	armies_lay_out((n + 1u) / 2u, &lay[0]); // army 0 the larger by one at odd N
	armies_lay_out(n / 2u, &lay[1]);
	const armies_layout* big = &lay[0];
	const float front = 0.5f * ARMIES_GAP;
	float behind = big->inf_depth + ARMIES_ARCHER_BACK + big->arch_depth;
	behind = behind > big->cav_width ? behind : big->cav_width;
	const float half_x = front + behind + ARMIES_MARGIN;
	const float half_y = 0.5f * big->line_width + ARMIES_CAV_FLANK + big->cav_width + ARMIES_MARGIN;
	throng_status st = thr_scene_create_world(scene, o, n, (throng_vec2){-half_x, -half_y},
	                                          (throng_vec2){half_x, half_y}, THRONG_BOUNDS_CONTAIN);
	static const char* const names[2][ROLES] = {{"west_infantry", "west_cavalry", "west_archers"},
	                                            {"east_infantry", "east_cavalry", "east_archers"}};
	uint32_t archetype[2][ROLES];
	for (uint32_t a = 0; a < 2 && st == THRONG_OK; ++a) {
		for (uint32_t r = 0; r < ROLES && st == THRONG_OK; ++r) {
			throng_controller ctl = armies_controller(a, r);
			st = thr_scene_add_archetype(scene, names[a][r], &ctl, &archetype[a][r]);
		}
	}
	for (uint32_t a = 0; a < 2 && st == THRONG_OK; ++a) {
		const armies_layout* L = &lay[a];
		const float sign = a == 0 ? -1.0f : 1.0f; // west stands at negative x
		// The army's end of the field is its way out: a unit that breaks
		// runs straight back there (its refuge, in the exit), and a
		// soldier who reaches the exit has left the battle.
		throng_zone_def exit = throng_zone_default_def();
		exit.shape = THRONG_ZONE_BOX;
		exit.min = (throng_vec2){a == 0 ? -half_x : half_x - ARMIES_EXIT, -half_y};
		exit.max = (throng_vec2){a == 0 ? -half_x + ARMIES_EXIT : half_x, half_y};
		snprintf(exit.name, sizeof exit.name, "%s_exit", a == 0 ? "west" : "east");
		exit.sink = true;
		st = thr_scene_add_zone(scene, &exit);
		const float refuge_x = sign * (half_x - 1.0f);
		const float march_x = half_x - ARMIES_EXIT - 5.0f; // short of the enemy's exit
		for (uint32_t k = 0; k < L->units && st == THRONG_OK; ++k) {
			const float y = armies_unit_y(L, k);
			const throng_vec2 refuge = {refuge_x, y};
			uint32_t c = armies_share(L->count[ROLE_INFANTRY], L->units, k);
			if (c > 0) {
				// March to where the enemy's front stood.
				st = armies_unit(scene, a, ROLE_INFANTRY, k, c, archetype[a][ROLE_INFANTRY], armies_ranks(c),
				                 ARMIES_SPACING, (throng_vec2){sign * (front + 0.5f * L->inf_depth), y},
				                 (throng_vec2){-sign * march_x, y}, refuge);
			}
			c = armies_share(L->count[ROLE_ARCHERS], L->units, k);
			if (c > 0 && st == THRONG_OK) {
				// Forward to just behind the centre line, which their own
				// line has crossed by the time they get there.
				const uint32_t ranks = armies_ranks(c);
				const float x = front + L->inf_depth + ARMIES_ARCHER_BACK + 0.5f * (float)ranks * ARMIES_SPACING;
				st = armies_unit(scene, a, ROLE_ARCHERS, k, c, archetype[a][ROLE_ARCHERS], ranks, ARMIES_SPACING,
				                 (throng_vec2){sign * x, y}, (throng_vec2){-sign * march_x, y}, refuge);
			}
		}
		for (uint32_t k = 0; k < 2 && st == THRONG_OK; ++k) {
			const uint32_t c = armies_share(L->count[ROLE_CAVALRY], 2u, k);
			if (c == 0) {
				continue;
			}
			// A square on each flank of the line, its front level with the
			// infantry's (a square 113 m deep at 100,000 soldiers: centred on
			// the line, it would reach across the centre line into the
			// enemy's).
			const uint32_t side = (uint32_t)ceilf(sqrtf((float)c));
			const float y = (k == 0 ? -1.0f : 1.0f) *
			                (0.5f * L->line_width + ARMIES_CAV_FLANK + 0.5f * (float)side * ARMIES_CAV_SPACING);
			const throng_vec2 refuge = {refuge_x, y};
			st = armies_unit(scene, a, ROLE_CAVALRY, k, c, archetype[a][ROLE_CAVALRY], side, ARMIES_CAV_SPACING,
			                 (throng_vec2){sign * (front + 0.5f * (float)side * ARMIES_CAV_SPACING), y},
			                 (throng_vec2){-sign * march_x, y}, refuge);
		}
	}
	scene->goal_radius = 0.0f; // targets are marching orders, not goals
	return st;
}

// ---------------------------------------------------------------------------
// The outcome measure `battle`
// ---------------------------------------------------------------------------

/// The battle on the current state, by side (label; the smallest
/// ARMIES_MAX_SIDES labels): the soldiers standing (alive, their unit
/// not routing); whether anyone fell or routed.
typedef struct battle_count {
	uint32_t labels[ARMIES_MAX_SIDES];
	uint64_t standing[ARMIES_MAX_SIDES];
	uint32_t sides;      ///< labels seen
	uint64_t all_standing;
	bool struck;         ///< someone fell (an agent was removed) or a unit routed
} battle_count;

/// Index of `label` in b->labels, added in order when new; -1 when past
/// the smallest ARMIES_MAX_SIDES.
static int battle_side(battle_count* b, uint32_t label)
{
	uint32_t at = 0;
	while (at < b->sides && b->labels[at] < label) {
		++at;
	}
	if (at < b->sides && b->labels[at] == label) {
		return (int)at;
	}
	if (at == ARMIES_MAX_SIDES) {
		return -1;
	}
	const uint32_t keep = b->sides < ARMIES_MAX_SIDES ? b->sides : ARMIES_MAX_SIDES - 1u;
	memmove(&b->labels[at + 1], &b->labels[at], (keep - at) * sizeof b->labels[0]);
	memmove(&b->standing[at + 1], &b->standing[at], (keep - at) * sizeof b->standing[0]);
	b->labels[at] = label;
	b->standing[at] = 0;
	b->sides = keep + 1u;
	return (int)at;
}

static void battle_measure(const throng_scene* scene, battle_count* b)
{
	const throng_world* w = scene->world;
	memset(b, 0, sizeof *b);
	b->struck = throng_world_get_stats(w).agents_removed > 0;
	const throng_view v = throng_world_view(w);
	for (uint32_t k = 0; k < v.count; ++k) {
		// A soldier: health is 0 without combat, and above 0 in a live
		// agent with it (one whose health reaches 0 is removed).
		if (!(v.health[k] > 0.0f)) {
			continue;
		}
		const int side = battle_side(b, v.group[k]);
		const bool routing = (v.combat_state[k] & THRONG_COMBAT_ROUTING) != 0;
		b->struck = b->struck || routing;
		if (side < 0) {
			continue;
		}
		b->standing[side] += routing ? 0u : 1u;
		b->all_standing += routing ? 0u : 1u;
	}
}

/// The one side standing (its label), -1 when none is, -2 when two or
/// more are.
static double battle_winner(const battle_count* b)
{
	double winner = -1.0;
	for (uint32_t k = 0; k < b->sides; ++k) {
		if (b->standing[k] > 0) {
			if (winner >= 0.0) {
				return -2.0;
			}
			winner = (double)b->labels[k];
		}
	}
	return winner;
}

static void battle_sample(const throng_scene* scene, thr_measure_state* state)
{
	if (state->resolved_at >= 0.0 || scene->steps % ARMIES_SAMPLE != 0) {
		return;
	}
	battle_count b;
	battle_measure(scene, &b);
	if (b.struck && battle_winner(&b) > -2.0) {
		state->resolved_at = (double)scene->steps * scene->dt;
	}
}

static uint32_t battle_outcome(const throng_scene* scene, const thr_measure_state* state, throng_scene_outcome* out,
                               uint32_t cap)
{
	battle_count b;
	battle_measure(scene, &b);
	const double winner = b.struck ? battle_winner(&b) : -2.0;
	double decided = state->resolved_at;
	if (decided < 0.0 && winner > -2.0) {
		decided = (double)scene->steps * scene->dt; // reached on the state measured now
	} else if (winner == -2.0) {
		decided = -1.0; // a side that had broken rallied: undecided again
	}
	// The first rout: the earliest step a unit routed at.
	double first_rout = -1.0;
	const uint32_t units = throng_world_unit_count(scene->world);
	for (uint32_t u = 0; u < units; ++u) {
		throng_unit_state us;
		if (throng_world_get_unit(scene->world, u, &us) == THRONG_OK && us.routed_step != UINT64_MAX) {
			const double t = (double)us.routed_step * scene->dt;
			first_rout = first_rout < 0.0 || t < first_rout ? t : first_rout;
		}
	}
	const throng_scene_outcome all[4] = {{"won_by", winner},
	                                     {"decided_at", decided},
	                                     {"first_rout_at", first_rout},
	                                     {"standing", (double)b.all_standing}};
	for (uint32_t k = 0; k < cap && k < 4; ++k) {
		out[k] = all[k];
	}
	return 4;
}

const thr_measure thr_battle_measure = {
	.name = "battle",
	.init = thr_measure_init_unresolved,
	.sample = battle_sample,
	.outcome = battle_outcome,
};
