// SPDX-License-Identifier: MIT
// The cost of combat and morale (issue 34's target: a battle of 10^6
// soldiers, two armies of 100 units each, runs with combat and morale on
// at no less than 70 % of the agent-steps per second of the same scene
// with combat off, on one and on two threads).
//
// Names read battle/simd/agents:<N>/combat:<0|1>/threads:<T>, with
// "/large/" before the arguments from BENCH_LARGE agents on
// (battle/simd/large/agents:1000000/combat:1/threads:2), so that
// --benchmark_filter=-/large/ leaves them out. combat:1 is combat and
// morale: every unit a throng unit (throng/units.h, the morale defaults)
// with a routing archetype for each kind of soldier
// (throng_controller_routing). combat:0 is the same scene with combat off
// in every controller and no units (throng_controller's default combat,
// enabled false and every field 0: a disabled combat must have no attack;
// the same slots, target rules, bodies and marching orders), in the same
// process, so the two rows give combat's cost as a ratio (scripts/plot_bench
// prints it).
//
// The scene. Two armies face each other across BATTLE_GAP (10 m), army 0
// west, army 1 east; each is 100 units of N / 200 soldiers in two lines of
// 50 units side by side. A unit is a block four times wider than deep on a
// 1.2 m lattice. The front line is infantry (melee); the second line, 6 m
// behind, holds 30 infantry units and 20 of archers (missiles, 60 m
// range: they reach the enemy's front once the lines touch, at every N).
// Infantry marches on where the enemy's front stood and pursues the
// nearest enemy in sight (15 m); archers hold their ground; everyone keeps
// 1 m of personal space (separation) and solid contacts (the default).
//
// Armies and units. A target rule chooses among one group, and a soldier
// must be able to choose any enemy, not only the unit facing it: so the
// group is the army (0 or 1), and the units are the blocks the soldiers
// are placed in (with combat on, each a throng unit whose army is its
// group). The archetype is the kind of soldier (infantry or archers of
// each army, four in all, and their four routing archetypes), not the
// unit. The benchmark records the count in the `units` counter.
//
// What is timed. Each iteration builds a fresh world, steps it
// BATTLE_WARMUP_STEPS (50 steps of 0.1 s, untimed: the fronts meet after
// some 2.5 s and fight), then times the next BATTLE_WINDOW_STEPS (50
// steps, 5 s of battle, five periods of the target rules, which run every
// 10 steps) one by one (manual time). Combat on and off each start from
// the same freshly made world and warm up alike, so both time steps 51 to
// 100 of the same scene. Soldiers die (are removed) during the window, so
// agent-steps are the live agents of each timed step, summed
// (throng_world_agent_count before each step), not N times steps:
// items_per_second and agent_steps_per_s are those over the timed time.
// The library's clock of its stages is reported too (stage_<name>_ns, per
// agent-step); combat's strikes and removals are in its `finish` stage.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "benches.h"
#include "common.h"
#include "report.h"
#include "shim.h"

#define BATTLE_UNITS 200u           ///< units in all, half per army
#define BATTLE_LINE_UNITS 50u       ///< units side by side in a line (two lines an army)
#define BATTLE_ARCHER_UNITS 20u     ///< of an army's second line, archers (the rest infantry)
#define BATTLE_SPACING 1.2f         ///< m between soldiers of a unit
#define BATTLE_UNIT_GAP 4.0f        ///< m between units side by side
#define BATTLE_LINE_GAP 6.0f        ///< m between an army's two lines
#define BATTLE_GAP 10.0f            ///< m between the two fronts at the start
#define BATTLE_MARGIN 30.0f         ///< m of field around the armies
#define BATTLE_DT 0.1f              ///< s per step
#define BATTLE_WARMUP_STEPS 50u     ///< untimed steps before the window
#define BATTLE_WINDOW_STEPS 50u     ///< timed steps of one iteration

enum { BATTLE_INFANTRY = 0, BATTLE_ARCHERS = 1, BATTLE_KINDS = 2 };

/// A unit's block (columns along the front, rows deep) and the archetype
/// of each army's kinds of soldier.
typedef struct battle_layout {
	uint32_t per_unit, columns, rows;
	float width, depth; ///< m
	uint32_t kinds[2][BATTLE_KINDS];
	uint32_t routs[2][BATTLE_KINDS]; ///< their routing archetypes (combat on)
	bool units;                      ///< soldiers join their block's unit
} battle_layout;

static battle_layout battle_layout_of(uint32_t agents)
{
	battle_layout l;
	l.per_unit = agents / BATTLE_UNITS;
	l.columns = (uint32_t)ceil(sqrt(4.0 * (double)l.per_unit)); // four times wider than deep
	l.rows = (l.per_unit + l.columns - 1u) / l.columns;
	l.width = (float)l.columns * BATTLE_SPACING;
	l.depth = (float)l.rows * BATTLE_SPACING;
	return l;
}

/// The controller of one kind of soldier of one army; combat as asked.
static throng_controller battle_controller(uint32_t army, uint32_t kind, bool combat)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot s = throng_slot_default_def(THRONG_SEPARATION);
	s.priority = true;
	s.weight = 4.0f;
	s.params.neighbor_radius = 1.0f;
	throng_controller_add(&c, s);
	if (kind == BATTLE_INFANTRY) {
		s = throng_slot_default_def(THRONG_PURSUIT);
		s.params.target = THRONG_TARGET_AGENT;
		s.params.max_prediction = 1.0f;
		throng_controller_add(&c, s);
	}
	s = throng_slot_default_def(THRONG_ARRIVE); // infantry: the march; archers: hold the ground
	s.params.target = THRONG_TARGET_POINT;
	s.params.slow_radius = 3.0f;
	s.weight = 0.5f;
	throng_controller_add(&c, s);
	const bool archers = kind == BATTLE_ARCHERS;
	c.target_rule = (throng_target_rule){true, 1u - army, archers ? 60.0f : 15.0f, 10, 0};
	if (!combat) {
		return c; // combat off: the default, all zero (a disabled combat must be)
	}
	c.combat.enabled = true;
	c.combat.health = archers ? 30.0f : 40.0f;
	c.combat.armour = archers ? 0.0f : 2.0f;
	c.combat.attack = archers ? THRONG_ATTACK_MISSILE : THRONG_ATTACK_MELEE;
	c.combat.reach = archers ? 60.0f : 0.5f;
	c.combat.damage = archers ? 12.0f : 14.0f;
	c.combat.cooldown = archers ? 2.0f : 1.0f;
	c.combat.accuracy = archers ? 0.5f : 0.6f;
	c.combat.missile_speed = archers ? 50.0f : 0.0f;
	c.combat.spread = archers ? 1.5f : 0.0f;
	return c;
}

/// Soldier k of unit u of army a: position, kind and marching order.
static throng_agent_def battle_soldier(const battle_layout* l, uint32_t a, uint32_t u, uint32_t k)
{
	const uint32_t line = u / BATTLE_LINE_UNITS, place = u % BATTLE_LINE_UNITS;
	// Second line: archers in 2 places of every 5 (20 of 50), spread along it.
	const uint32_t kind = line == 1u && (place % 5u == 1u || place % 5u == 3u) ? BATTLE_ARCHERS : BATTLE_INFANTRY;
	const float facing = a == 0 ? 1.0f : -1.0f;
	const float pitch = l->width + BATTLE_UNIT_GAP;
	const float front = 0.5f * BATTLE_GAP + (float)line * (l->depth + BATTLE_LINE_GAP);
	const float back = front + BATTLE_SPACING * (0.5f + (float)(k / l->columns)); // distance behind the centre line
	const float y = ((float)place - 0.5f * (float)(BATTLE_LINE_UNITS - 1u)) * pitch +
	                BATTLE_SPACING * ((float)(k % l->columns) - 0.5f * (float)(l->columns - 1u));
	throng_agent_def d = throng_agent_default_def();
	d.position = (throng_vec2){-facing * back, y};
	d.heading = (throng_vec2){facing, 0.0f};
	d.max_speed = 2.0f;
	d.max_force = 4.0f;
	d.radius = 0.3f;
	d.archetype = l->kinds[a][kind];
	d.group = a;
	d.target = kind == BATTLE_ARCHERS ? d.position : (throng_vec2){facing * back, y}; // where the enemy stood
	d.unit = l->units ? a * (BATTLE_UNITS / 2u) + u : THRONG_NO_UNIT; // (units added in that order)
	return d;
}

/// A fresh battle of `agents` soldiers (a multiple of BATTLE_UNITS) on the
/// SIMD engine with `threads`; NULL on failure (throng_last_error()).
static throng_world* battle_create(uint32_t agents, uint32_t threads, bool combat)
{
	battle_layout l = battle_layout_of(agents);
	const float half_x = 0.5f * BATTLE_GAP + 2.0f * l.depth + BATTLE_LINE_GAP + BATTLE_MARGIN;
	const float half_y = 0.5f * (float)BATTLE_LINE_UNITS * (l.width + BATTLE_UNIT_GAP) + BATTLE_MARGIN;
	throng_world_def def = throng_world_default_def();
	def.bounds_min = (throng_vec2){-half_x, -half_y};
	def.bounds_max = (throng_vec2){half_x, half_y};
	def.bounds_mode = THRONG_BOUNDS_CONTAIN;
	def.dt = BATTLE_DT;
	def.seed = 34;
	def.capacity = agents;
	def.engine = THRONG_ENGINE_SIMD;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED; // a run measures the threads it names
	throng_world* w = NULL;
	if (throng_world_create(&def, &w) != THRONG_OK) {
		return NULL;
	}
	throng_status st = THRONG_OK;
	for (uint32_t a = 0; a < 2 && st == THRONG_OK; ++a) {
		for (uint32_t k = 0; k < BATTLE_KINDS && st == THRONG_OK; ++k) {
			const throng_controller c = battle_controller(a, k, combat);
			st = throng_world_add_archetype(w, &c, &l.kinds[a][k]);
			if (st == THRONG_OK && combat) {
				const throng_controller r = throng_controller_routing(&c);
				st = throng_world_add_archetype(w, &r, &l.routs[a][k]);
			}
		}
	}
	l.units = combat;
	for (uint32_t a = 0; combat && a < 2; ++a) {
		for (uint32_t u = 0; u < BATTLE_UNITS / 2u && st == THRONG_OK; ++u) {
			const uint32_t kind = battle_soldier(&l, a, u, 0).archetype == l.kinds[a][BATTLE_ARCHERS];
			throng_unit_def ud = throng_unit_default_def();
			ud.archetype = l.kinds[a][kind];
			ud.rout_archetype = l.routs[a][kind];
			ud.army = a;
			uint32_t id = 0;
			st = throng_world_add_unit(w, &ud, &id);
		}
	}
	throng_agent_def* defs = st == THRONG_OK ? malloc((size_t)agents * sizeof *defs) : NULL;
	uint32_t n = 0;
	for (uint32_t a = 0; defs != NULL && a < 2; ++a) {
		for (uint32_t u = 0; u < BATTLE_UNITS / 2u; ++u) {
			for (uint32_t k = 0; k < l.per_unit; ++k) {
				defs[n++] = battle_soldier(&l, a, u, k);
			}
		}
	}
	st = defs == NULL ? THRONG_ERR_OUT_OF_MEMORY : throng_world_spawn(w, defs, n, NULL);
	free(defs);
	for (uint32_t s = 0; s < BATTLE_WARMUP_STEPS && st == THRONG_OK; ++s) {
		st = throng_world_step(w);
	}
	if (st != THRONG_OK) {
		throng_world_destroy(w);
		return NULL;
	}
	return w;
}

static void battle_scene(thr_bench_state* st)
{
	const uint32_t agents = (uint32_t)thr_bench_range(st, 0);
	const bool combat = thr_bench_range(st, 1) != 0;
	const uint32_t threads = (uint32_t)thr_bench_range(st, 2);
	double seconds = 0.0, cpu = 0.0;
	int64_t steps = 0, agent_steps = 0, windows = 0;
	uint64_t killed = 0, routed = 0;
	double live_start = 0.0, live_end = 0.0;
	bench_measure m = {0};
	bool fail = false;
	while (!fail && thr_bench_keep_running(st)) {
		throng_world* w = battle_create(agents, threads, combat); // built and warmed up, untimed
		fail = w == NULL;
		const uint64_t removed = fail ? 0 : throng_world_get_stats(w).agents_removed;
		live_start += fail ? 0.0 : (double)throng_world_agent_count(w);
		if (!fail) {
			bench_measure_time(w);
		}
		double t_iteration = 0.0;
		for (uint32_t k = 0; !fail && k < BATTLE_WINDOW_STEPS; ++k) {
			agent_steps += throng_world_agent_count(w);
			const double c0 = bench_cpu_now();
			const double t0 = bench_now();
			fail = throng_world_step(w) != THRONG_OK;
			const double dt = bench_now() - t0;
			cpu += bench_cpu_now() - c0;
			t_iteration += dt;
			steps++;
		}
		if (!fail) {
			bench_measure_collect(w, &m);
			killed += throng_world_get_stats(w).agents_removed - removed;
			live_end += (double)throng_world_agent_count(w);
			for (uint32_t u = 0; u < throng_world_unit_count(w); ++u) {
				throng_unit_state us;
				routed += throng_world_get_unit(w, u, &us) == THRONG_OK && us.routed_step != UINT64_MAX;
			}
			windows++;
		}
		throng_world_destroy(w);
		seconds += t_iteration;
		thr_bench_set_iteration_time(st, t_iteration);
	}
	if (fail) {
		thr_bench_skip_with_error(st, throng_last_error());
		return;
	}
	thr_bench_set_items_processed(st, agent_steps);
	thr_bench_set_counter(st, "agents", agents);
	thr_bench_set_counter(st, "units", BATTLE_UNITS);
	thr_bench_set_counter(st, "threads", threads);
	thr_bench_set_counter(st, "agent_steps_per_s", seconds > 0.0 ? (double)agent_steps / seconds : 0.0);
	thr_bench_set_counter(st, "cpu_ns_per_agent_step", agent_steps > 0 ? 1e9 * cpu / (double)agent_steps : 0.0);
	thr_bench_set_counter(st, "live_at_start", windows > 0 ? live_start / (double)windows : 0.0);
	thr_bench_set_counter(st, "live_at_end", windows > 0 ? live_end / (double)windows : 0.0);
	thr_bench_set_counter(st, "killed_per_step", steps > 0 ? (double)killed / (double)steps : 0.0);
	thr_bench_set_counter(st, "units_routed", windows > 0 ? (double)routed / (double)windows : 0.0);
	for (int k = 0; k < THRONG_STAGE_COUNT; ++k) {
		char name[48];
		snprintf(name, sizeof name, "stage_%s_ns", throng_stage_name((throng_stage)k));
		thr_bench_set_counter(st, name, agent_steps > 0 ? (double)m.timed.stage_ns[k] / (double)agent_steps : 0.0);
	}
}

void bench_battle_register(void)
{
	static const char* const arg_names[] = {"agents", "combat", "threads"};
	static const int64_t sizes[3] = {10000, 100000, 1000000};
	for (int large = 0; large < 2; ++large) {
		thr_bench* b = thr_bench_register(large ? "battle/simd/large" : "battle/simd", battle_scene);
		thr_bench_set_arg_names(b, arg_names, 3);
		for (int s = 0; s < 3; ++s) {
			if ((sizes[s] >= BENCH_LARGE) != (large != 0)) {
				continue;
			}
			for (int64_t threads = 1; threads <= 2; ++threads) {
				for (int64_t combat = 0; combat <= 1; ++combat) {
					const int64_t args[3] = {sizes[s], combat, threads};
					thr_bench_add_args(b, args, 3);
				}
			}
		}
		thr_bench_use_manual_time(b);
		thr_bench_set_unit(b, THR_BENCH_MS);
	}
}
