// SPDX-License-Identifier: MIT
// Lanchester's laws (issue 34; docs/ARMIES.md, "Checked against
// Lanchester"): the combat model reaches each law in the regime the law
// describes. Means over many seeds, N = 1,000, both engines (each
// battle's first seeds run in both to the same hash, the rest in the SIMD
// engine).
//
// Square law: aimed missiles, every shooter in range of every target,
// equal rates, nobody moves: the larger side B keeps sqrt(B0^2 - R0^2)
// and a_B B^2 - a_R R^2 stays put. Linear law: one-on-one melee on a
// fixed frontage (a single file each, walking into each other): both
// sides lose at the same rate, B keeps B0 - R0. Lines: two equal lines
// of infantry in units with morale charge each other, and neither side
// wins more than 60 % of the seeds. Label validation: the
// release tests run it, the sanitizer build leaves it out.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/throng.h"

enum { SIDE_B = 0, SIDE_R = 1 };

/// One battle's outcome.
typedef struct battle {
	uint32_t left[2];         ///< survivors of B and R
	uint32_t steps;           ///< steps until one side had none
	double worst_invariant;   ///< square law: most |I(t) - I(0)| / scale over the run
	double* invariant;        ///< square law: (I(t) - I(0)) / scale after each step (malloc'd), else NULL
	uint64_t hash;            ///< the world's hash at the end
	bool decided;             ///< lines: `winner` says who won (else whoever has survivors)
	int winner;               ///< lines: the side whose units did not all break, -1 for none
} battle;

/// The live agents of both sides, by id, and who each one targets (the
/// test's record of what it set).
typedef struct roster {
	uint32_t* live[2];
	uint32_t count[2];
	uint32_t* slot;   ///< id -> index in its side's live list
	uint8_t* side;    ///< id -> side
	uint8_t* alive;   ///< id -> 1 while alive
	uint32_t* target; ///< id -> the enemy it was given
} roster;

static void roster_init(roster* r, uint32_t total)
{
	memset(r, 0, sizeof *r);
	for (int s = 0; s < 2; ++s)
		r->live[s] = calloc(total, sizeof(uint32_t));
	r->slot = calloc(total, sizeof(uint32_t));
	r->side = calloc(total, 1);
	r->alive = calloc(total, 1);
	r->target = calloc(total, sizeof(uint32_t));
	cr_assert(r->live[0] && r->live[1] && r->slot && r->side && r->alive && r->target);
}

static void roster_free(roster* r)
{
	free(r->live[0]);
	free(r->live[1]);
	free(r->slot);
	free(r->side);
	free(r->alive);
	free(r->target);
}

static void roster_add(roster* r, uint32_t id, int side)
{
	r->side[id] = (uint8_t)side;
	r->alive[id] = 1;
	r->slot[id] = r->count[side];
	r->live[side][r->count[side]++] = id;
	r->target[id] = THRONG_NO_AGENT;
}

/// Takes the step's removed agents out of the roster; each must have been
/// alive, and killed by a live-or-just-killed agent of the other side.
static void roster_deaths(roster* r, const throng_world* w)
{
	const throng_event* e = NULL;
	uint32_t n = 0;
	cr_assert_eq(throng_world_events(w, &e, &n), THRONG_OK);
	for (uint32_t k = 0; k < n; ++k) {
		if (e[k].kind != THRONG_EVENT_REMOVED)
			continue;
		const uint32_t id = e[k].agent;
		cr_assert(r->alive[id], "agent %u removed twice", id);
		cr_assert_neq(r->side[e[k].other], r->side[id], "agent %u killed by its own side (%u)", id, e[k].other);
		const int s = r->side[id];
		const uint32_t last = r->live[s][--r->count[s]];
		r->live[s][r->slot[id]] = last;
		r->slot[last] = r->slot[id];
		r->alive[id] = 0;
	}
}

/// An agent state's count of live agents per side, checked against the
/// roster's (survivors add up).
static void roster_check(const roster* r, const throng_world* w)
{
	cr_assert_eq(throng_world_agent_count(w), r->count[0] + r->count[1], "the world has %u agents, the events leave %u",
	             throng_world_agent_count(w), r->count[0] + r->count[1]);
}

/// A finished battle's survivors and hash (they must add up to the
/// world's agents); frees the roster and the world.
static battle battle_end(roster* r, throng_world* w, battle out)
{
	roster_check(r, w);
	out.left[0] = r->count[0];
	out.left[1] = r->count[1];
	out.hash = throng_world_hash(w);
	roster_free(r);
	throng_world_destroy(w);
	return out;
}

static throng_world* make_world(throng_engine engine, uint64_t seed, throng_vec2 lo, throng_vec2 hi)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.threads = 1;
	d.threads_policy = THRONG_THREADS_FIXED;
	d.bounds_min = lo;
	d.bounds_max = hi;
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	d.dt = 0.1f;
	d.seed = seed;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	return w;
}

/// One-hit kills: health 1, damage 1, a strike every step (cooldown = dt).
static throng_combat one_hit(throng_attack_kind attack, float reach, float accuracy)
{
	throng_combat c = throng_controller_default_def(THRONG_BLEND_WEIGHTED).combat;
	c.enabled = true;
	c.health = 1.0f;
	c.damage = 1.0f;
	c.attack = attack;
	c.reach = reach;
	c.cooldown = 0.1f;
	c.accuracy = accuracy;
	c.missile_speed = attack == THRONG_ATTACK_MISSILE ? 1e5f : 0.0f;
	return c;
}

// ---------------------------------------------------------------------------
// The square law.

/// B0 shooters of accuracy acc[B] against R0 of acc[R], scattered at random
/// over two fields 20 m apart (each 50 x 100 m), nobody moving, every
/// shooter in range of every target (range 1,000 m). Each shooter
/// without a target is given a live enemy drawn uniformly by the test
/// (Lanchester's aimed fire spread over the enemy), at the start and
/// after its target dies. A shot lands the next step.
static battle square_battle(throng_engine engine, uint64_t seed, const uint32_t n0[2], const float acc[2])
{
	throng_world* w = make_world(engine, seed, (throng_vec2){-100.0f, -100.0f}, (throng_vec2){100.0f, 100.0f});
	uint32_t arch[2];
	for (int s = 0; s < 2; ++s) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		c.contact.enabled = false;
		c.combat = one_hit(THRONG_ATTACK_MISSILE, 1000.0f, acc[s]);
		cr_assert_eq(throng_world_add_archetype(w, &c, &arch[s]), THRONG_OK, "%s", throng_last_error());
	}
	const uint32_t total = n0[0] + n0[1];
	roster r;
	roster_init(&r, total);
	uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
	for (int s = 0; s < 2; ++s) {
		for (uint32_t k = 0; k < n0[s]; ++k) {
			throng_agent_def a = throng_agent_default_def();
			const float x0 = s == SIDE_B ? -60.0f : 10.0f;
			a.position = (throng_vec2){thr_test_uniform(&rng, x0, x0 + 50.0f), thr_test_uniform(&rng, -50.0f, 50.0f)};
			a.target = a.position;
			a.radius = 0.3f;
			a.archetype = arch[s];
			a.group = (uint32_t)s;
			uint32_t id = 0;
			cr_assert_eq(throng_world_spawn(w, &a, 1, &id), THRONG_OK, "%s", throng_last_error());
			roster_add(&r, id, s);
		}
	}
	// I = a_B B^2 - a_R R^2; its scale is |I(0)|, or a_B B0^2 for a draw
	// (I(0) = 0).
	const double i0 = (double)acc[0] * n0[0] * n0[0] - (double)acc[1] * n0[1] * n0[1];
	const double scale = fabs(i0) > 1e-9 * acc[0] * n0[0] * n0[0] ? fabs(i0) : (double)acc[0] * n0[0] * n0[0];
	battle out = {0};
	out.invariant = calloc(20000, sizeof(double));
	cr_assert(out.invariant);
	for (uint32_t step = 0; r.count[0] > 0 && r.count[1] > 0; ++step) {
		cr_assert_lt(step, 20000u, "no side beaten in 20,000 steps (%u against %u left)", r.count[0], r.count[1]);
		for (int s = 0; s < 2; ++s) {
			const int e = 1 - s;
			for (uint32_t k = 0; k < r.count[s]; ++k) {
				const uint32_t id = r.live[s][k];
				if (r.target[id] != THRONG_NO_AGENT && r.alive[r.target[id]])
					continue;
				const uint32_t pick = r.live[e][thr_test_u64(&rng) % r.count[e]];
				cr_assert_eq(throng_world_set_target_agent(w, id, pick), THRONG_OK, "%s", throng_last_error());
				r.target[id] = pick;
			}
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		roster_deaths(&r, w);
		const double b = r.count[0], rr = r.count[1];
		const double dev = ((double)acc[0] * b * b - (double)acc[1] * rr * rr - i0) / scale;
		out.invariant[step] = dev;
		if (fabs(dev) > out.worst_invariant)
			out.worst_invariant = fabs(dev);
		out.steps = step + 1;
	}
	return battle_end(&r, w, out);
}

// ---------------------------------------------------------------------------
// The linear law.

/// B0 soldiers in a single file against R0 in another on the same line
/// (y = 0), bodies of 0.3 m touching, the two front soldiers 0.1 m apart:
/// each side seeks a point beyond the other's rear, so the files walk
/// into each other and stay on the line (every force is along x), and
/// only the two front soldiers are ever within reach (0.05 m) of an enemy.
/// Each takes as its target the nearest enemy within 1.5 m (the target
/// rule, every step) and strikes it every step with its side's accuracy.
static battle linear_battle(throng_engine engine, uint64_t seed, const uint32_t n0[2], const float acc[2])
{
	const float spacing = 0.6f;
	const float half = 0.6f * (float)(n0[0] > n0[1] ? n0[0] : n0[1]) + 20.0f;
	throng_world* w = make_world(engine, seed, (throng_vec2){-half, -5.0f}, (throng_vec2){half, 5.0f});
	uint32_t arch[2];
	for (int s = 0; s < 2; ++s) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_slot seek = throng_slot_default_def(THRONG_SEEK);
		seek.params.target = THRONG_TARGET_POINT;
		cr_assert_geq(throng_controller_add(&c, seek), 0);
		c.target_rule.enabled = true;
		c.target_rule.group = (uint32_t)(1 - s);
		c.target_rule.sight_radius = 1.5f;
		c.target_rule.every = 1;
		c.combat = one_hit(THRONG_ATTACK_MELEE, 0.05f, acc[s]);
		cr_assert_eq(throng_world_add_archetype(w, &c, &arch[s]), THRONG_OK, "%s", throng_last_error());
	}
	const uint32_t total = n0[0] + n0[1];
	roster r;
	roster_init(&r, total);
	for (int s = 0; s < 2; ++s) {
		const float sign = s == SIDE_B ? -1.0f : 1.0f;
		throng_agent_def* defs = calloc(n0[s], sizeof *defs);
		cr_assert(defs);
		for (uint32_t k = 0; k < n0[s]; ++k) {
			throng_agent_def a = throng_agent_default_def();
			a.position = (throng_vec2){sign * (0.35f + spacing * (float)k), 0.0f};
			a.target = (throng_vec2){-sign * (half - 1.0f), 0.0f};
			a.radius = 0.3f;
			a.max_speed = 2.0f;
			a.max_force = 50.0f;
			a.archetype = arch[s];
			a.group = (uint32_t)s;
			defs[k] = a;
		}
		uint32_t first = 0;
		cr_assert_eq(throng_world_spawn(w, defs, n0[s], &first), THRONG_OK, "%s", throng_last_error());
		for (uint32_t k = 0; k < n0[s]; ++k)
			roster_add(&r, first + k, s);
		free(defs);
	}
	battle out = {0};
	for (uint32_t step = 0; r.count[0] > 0 && r.count[1] > 0; ++step) {
		cr_assert_lt(step, 40000u, "no side beaten in 40,000 steps (%u against %u left)", r.count[0], r.count[1]);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		roster_deaths(&r, w);
		out.steps = step + 1;
	}
	return battle_end(&r, w, out);
}

// ---------------------------------------------------------------------------
// Lines.

/// Two lines of n0 infantry charging each other, as examples/battle.yaml's
/// foot soldiers fight (health 100, armour 2, melee reach 0.3 m, damage
/// 20 each second with accuracy acc; each pursues the nearest enemy in
/// sight, re-chosen every second, and keeps 0.9 m of personal space):
/// each line is ten units of n0 / 10, side by side, ten ranks deep on a
/// 1 m lattice (each soldier moved by up to 0.1 m, drawn from the seed),
/// the fronts 20 m apart, morale at its defaults. A side has lost when
/// none of its units stands (every one routing or dead); a battle not
/// decided in 6,000 steps (10 minutes) is a tie.
static battle lines_battle(throng_engine engine, uint64_t seed, const uint32_t n0[2], const float acc[2])
{
	enum { UNITS = 10, RANKS = 10 };
	throng_world* w = make_world(engine, seed, (throng_vec2){-120.0f, -100.0f}, (throng_vec2){120.0f, 100.0f});
	uint32_t arch[2], rout[2];
	for (int s = 0; s < 2; ++s) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
		throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
		sep.priority = true;
		sep.weight = 4.0f;
		sep.params.neighbor_radius = 0.9f;
		cr_assert_geq(throng_controller_add(&c, sep), 0);
		throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
		chase.params.target = THRONG_TARGET_AGENT;
		chase.params.max_prediction = 1.0f;
		cr_assert_geq(throng_controller_add(&c, chase), 0);
		c.target_rule = (throng_target_rule){true, (uint32_t)(1 - s), 60.0f, 10u, 0u};
		c.combat.enabled = true;
		c.combat.health = 100.0f;
		c.combat.armour = 2.0f;
		c.combat.attack = THRONG_ATTACK_MELEE;
		c.combat.reach = 0.3f;
		c.combat.damage = 20.0f;
		c.combat.cooldown = 1.0f;
		c.combat.accuracy = acc[s];
		cr_assert_eq(throng_world_add_archetype(w, &c, &arch[s]), THRONG_OK, "%s", throng_last_error());
		const throng_controller r = throng_controller_routing(&c);
		cr_assert_eq(throng_world_add_archetype(w, &r, &rout[s]), THRONG_OK, "%s", throng_last_error());
	}
	roster r;
	roster_init(&r, n0[0] + n0[1]);
	uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 7;
	uint32_t units[2][UNITS];
	for (int s = 0; s < 2; ++s) {
		const float sign = s == SIDE_B ? -1.0f : 1.0f;
		const uint32_t per = n0[s] / UNITS, files = per / RANKS;
		cr_assert_eq(per * UNITS, n0[s]);
		cr_assert_eq(files * RANKS, per);
		for (uint32_t u = 0; u < UNITS; ++u) {
			throng_unit_def ud = throng_unit_default_def();
			ud.archetype = arch[s];
			ud.rout_archetype = rout[s];
			ud.army = (uint32_t)s;
			cr_assert_eq(throng_world_add_unit(w, &ud, &units[s][u]), THRONG_OK, "%s", throng_last_error());
			throng_agent_def* defs = calloc(per, sizeof *defs);
			cr_assert(defs);
			for (uint32_t k = 0; k < per; ++k) {
				throng_agent_def a = throng_agent_default_def();
				const float file = (float)(u * files + k % files) - 0.5f * (float)(UNITS * files - 1u);
				a.position = (throng_vec2){sign * (10.0f + (float)(k / files)) + thr_test_uniform(&rng, -0.1f, 0.1f),
				                           file + thr_test_uniform(&rng, -0.1f, 0.1f)};
				a.heading = (throng_vec2){-sign, 0.0f};
				a.target = a.position;
				a.radius = 0.3f;
				a.max_speed = 1.4f;
				a.archetype = arch[s];
				a.group = (uint32_t)s;
				a.unit = units[s][u];
				defs[k] = a;
			}
			uint32_t first = 0;
			cr_assert_eq(throng_world_spawn(w, defs, per, &first), THRONG_OK, "%s", throng_last_error());
			for (uint32_t k = 0; k < per; ++k)
				roster_add(&r, first + k, s);
			free(defs);
		}
	}
	battle out = {0};
	out.decided = true;
	out.winner = -1;
	for (uint32_t step = 0; step < 6000u; ++step) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		roster_deaths(&r, w);
		out.steps = step + 1;
		uint32_t standing[2] = {0, 0};
		for (int s = 0; s < 2; ++s) {
			for (uint32_t u = 0; u < UNITS; ++u) {
				throng_unit_state us;
				cr_assert_eq(throng_world_get_unit(w, units[s][u], &us), THRONG_OK);
				standing[s] += us.count > 0 && !us.routing;
			}
		}
		if (standing[0] == 0 || standing[1] == 0) {
			out.winner = standing[0] > 0 ? 0 : standing[1] > 0 ? 1 : -1;
			break;
		}
	}
	return battle_end(&r, w, out);
}

// ---------------------------------------------------------------------------
// Seeds.

typedef battle (*battle_fn)(throng_engine, uint64_t, const uint32_t[2], const float[2]);

/// The mean over `seeds` battles of each side's survivors as a fraction of
/// its start, how many each side won, and the invariant's worst
/// deviation in one run and in the mean over the seeds (after a battle
/// ends its last value stands for the later steps). The first `both`
/// seeds run in the scalar engine too, to the same hash.
typedef struct tally {
	double kept[2];
	double kept_sd;              ///< the standard deviation of B's kept fraction over the seeds
	uint32_t won[2], ties, seeds;
	double worst_invariant;      ///< the most |I(t) - I(0)| / scale of one run
	double worst_mean_invariant; ///< the most |mean over the seeds of (I(t) - I(0))| / scale
	double mean_steps;
} tally;

static tally run_seeds(battle_fn fn, const char* name, const uint32_t n0[2], const float acc[2], uint32_t seeds,
                       uint32_t both)
{
	tally t = {0};
	t.seeds = seeds;
	battle* runs = calloc(seeds, sizeof *runs);
	cr_assert(runs);
	uint32_t longest = 0;
	for (uint32_t k = 0; k < seeds; ++k) {
		const uint64_t seed = 1000 + k;
		const battle b = runs[k] = fn(THRONG_ENGINE_SIMD, seed, n0, acc);
		if (b.steps > longest)
			longest = b.steps;
		if (k < both) {
			battle s = fn(THRONG_ENGINE_SCALAR, seed, n0, acc);
			free(s.invariant);
			cr_assert_eq(s.hash, b.hash, "%s seed %llu: scalar engine %016llx, SIMD %016llx", name,
			             (unsigned long long)seed, (unsigned long long)s.hash, (unsigned long long)b.hash);
			cr_assert_eq(s.steps, b.steps);
		}
		for (int s = 0; s < 2; ++s)
			t.kept[s] += (double)b.left[s] / n0[s] / seeds;
		const int winner = b.decided ? b.winner : b.left[0] > 0 ? 0 : b.left[1] > 0 ? 1 : -1;
		if (winner >= 0)
			t.won[winner]++;
		else
			t.ties++;
		if (b.worst_invariant > t.worst_invariant)
			t.worst_invariant = b.worst_invariant;
		t.mean_steps += (double)b.steps / seeds;
	}
	for (uint32_t k = 0; k < seeds; ++k) {
		const double d = (double)runs[k].left[0] / n0[0] - t.kept[0];
		t.kept_sd += d * d / (seeds > 1 ? seeds - 1 : 1);
	}
	t.kept_sd = sqrt(t.kept_sd);
	for (uint32_t step = 0; runs[0].invariant && step < longest; ++step) {
		double mean = 0.0;
		for (uint32_t k = 0; k < seeds; ++k)
			mean += runs[k].invariant[step < runs[k].steps ? step : runs[k].steps - 1] / seeds;
		if (fabs(mean) > t.worst_mean_invariant)
			t.worst_mean_invariant = fabs(mean);
	}
	for (uint32_t k = 0; k < seeds; ++k)
		free(runs[k].invariant);
	free(runs);
	// The figures docs/ARMIES.md quotes.
	printf("%s: %u against %u, accuracy %.3f and %.3f, %u seeds: B keeps %.1f %% (sd %.1f), R %.1f %%; B won %u, R %u, "
	       "ties %u; invariant moved %.3f at most in one run, %.3f in the mean; %.0f steps on average\n",
	       name, n0[0], n0[1], (double)acc[0], (double)acc[1], seeds, 100.0 * t.kept[0], 100.0 * t.kept_sd,
	       100.0 * t.kept[1], t.won[0], t.won[1], t.ties, t.worst_invariant, t.worst_mean_invariant, t.mean_steps);
	fflush(stdout);
	return t;
}

/// Seeds of a law's mean, of a draw's (a square-law battle takes a
/// twentieth of a second, a linear one two seconds), and of those run
/// in both engines.
enum { SEEDS = 16, SQUARE_DRAW_SEEDS = 64, LINEAR_DRAW_SEEDS = 48, LINES_SEEDS = 64, BOTH_ENGINES = 2 };

/// Square law, B0 against R0 = 1,000 at equal rates: B keeps
/// sqrt(B0^2 - R0^2) / B0 of its start within 5 points, and the invariant
/// stays within 10 % in every run.
static void square_law(uint32_t b0, double expect)
{
	const uint32_t n0[2] = {b0, 1000};
	const float acc[2] = {0.005f, 0.005f};
	char name[64];
	snprintf(name, sizeof name, "square %u:1000", b0);
	const tally t = run_seeds(square_battle, name, n0, acc, SEEDS, BOTH_ENGINES);
	cr_expect_eq(t.won[0], SEEDS, "the larger side won %u of %u", t.won[0], SEEDS);
	cr_expect_float_eq(t.kept[0], expect, 0.05, "B keeps %.1f %% of its start, Lanchester %.1f %%", 100.0 * t.kept[0],
	                   100.0 * expect);
	cr_expect_leq(t.worst_mean_invariant, 0.10, "a_B B^2 - a_R R^2 moved by %.1f %% of its start in the mean",
	              100.0 * t.worst_mean_invariant);
}

Test(square_law, two_to_one_keeps_sqrt3_n, .timeout = 600)
{
	square_law(2000, sqrt(3.0) / 2.0);
}

Test(square_law, three_to_two_keeps_74_5_percent, .timeout = 600)
{
	square_law(1500, sqrt(5.0) / 3.0);
}

Test(square_law, five_to_four_keeps_60_percent, .timeout = 600)
{
	square_law(1250, 0.6);
}

Test(square_law, four_times_the_rate_against_twice_the_numbers_is_a_draw, .timeout = 600)
{
	// a_R R0^2 = 4 a (N)^2 = a_B B0^2 = a (2N)^2.
	const uint32_t n0[2] = {2000, 1000};
	const float acc[2] = {0.005f, 0.02f};
	const tally t = run_seeds(square_battle, "square quality", n0, acc, SQUARE_DRAW_SEEDS, BOTH_ENGINES);
	for (int s = 0; s < 2; ++s)
		cr_expect_float_eq((double)t.won[s] / SQUARE_DRAW_SEEDS, 0.5, 0.15, "side %d won %u of %u", s, t.won[s],
		                   SQUARE_DRAW_SEEDS);
	cr_expect_leq(t.worst_mean_invariant, 0.10, "a_B B^2 - a_R R^2 moved by %.1f %% of a_B B0^2 in the mean",
	              100.0 * t.worst_mean_invariant);
}

Test(linear_law, two_to_one_keeps_n, .timeout = 600)
{
	const uint32_t n0[2] = {2000, 1000};
	const float acc[2] = {0.5f, 0.5f};
	const tally t = run_seeds(linear_battle, "linear 2000:1000", n0, acc, SEEDS, BOTH_ENGINES);
	cr_expect_eq(t.won[0], SEEDS, "the larger side won %u of %u", t.won[0], SEEDS);
	cr_expect_float_eq(t.kept[0], 0.5, 0.05, "B keeps %.1f %% of its start, Lanchester 50 %%", 100.0 * t.kept[0]);
}

Test(linear_law, twice_the_rate_against_twice_the_numbers_is_a_draw, .timeout = 600)
{
	const uint32_t n0[2] = {2000, 1000};
	const float acc[2] = {0.5f, 1.0f};
	const tally t = run_seeds(linear_battle, "linear quality", n0, acc, LINEAR_DRAW_SEEDS, BOTH_ENGINES);
	for (int s = 0; s < 2; ++s)
		cr_expect_float_eq((double)t.won[s] / LINEAR_DRAW_SEEDS, 0.5, 0.15, "side %d won %u of %u", s, t.won[s],
		                   LINEAR_DRAW_SEEDS);
}

Test(lines, equal_lines_charging_each_other_are_a_fair_fight, .timeout = 900)
{
	// Mirror images but for the ids (B's are the lower) and the seed's
	// draws: neither side may win more than 60 % of the seeds.
	const uint32_t n0[2] = {1000, 1000};
	const float acc[2] = {0.6f, 0.6f};
	const tally t = run_seeds(lines_battle, "lines 1000:1000", n0, acc, LINES_SEEDS, BOTH_ENGINES);
	for (int s = 0; s < 2; ++s)
		cr_expect_leq((double)t.won[s] / LINES_SEEDS, 0.6, "side %d won %u of %u", s, t.won[s], LINES_SEEDS);
}
