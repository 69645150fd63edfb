// SPDX-License-Identifier: MIT
// Per-pass costs: per-pass worlds (common.h) timed against a base world in
// the same run.
//
// For a scenario at N agents, the scene (after its first step) is cloned
// twice on the run's engine and thread count: a base world whose
// archetypes have no slot, and the pass world, whose archetypes keep only
// the pass's slots. Both keep the scene's grid cell size. The loop steps
// base, then the pass world, timing each; the reported time (manual time,
// items_per_second) is the pass world's, and
//   base_ns  = base world's ns per agent-step: the grid build and the sort
//              (SIMD: the counting sort and the reorder of every array),
//              loading and storing each agent, the blend of nothing and the
//              integration with the bounds; the scalar engine's grid build
//              and agent loop likewise;
//   world_ns = the pass world's ns per agent-step;
//   pass_ns  = world_ns - base_ns: what the pass adds to a step;
//   base_cpu_ns, world_cpu_ns, pass_cpu_ns: the same in process CPU time
//              (see report.h), steadier than wall time on a shared machine.
// Because both are timed in the same loop, load on the machine shifts both
// alike. Passes (data-driven from the scene's controllers):
//   base                 the base world itself (pass_ns = 0)
//   <behaviour>          each kind of slot the scene has, alone, with its
//                        parameters (a neighbour kind sweeps only its own
//                        radius, not the archetype's largest)
//   neighbours           every neighbour slot together: the fused sweep as
//                        the scene runs it (when it has two kinds or more)
//   targeting            target rules only (when an archetype has one)
//   contacts             the contact pass's agent-agent part: the
//                        archetypes' contact settings, no slot (when an
//                        archetype has contacts on). Every other pass
//                        world, base included, has contacts off; walls
//                        and obstacles stay solid in all of them (the
//                        contact pass's shape part is in base). The
//                        whole contact stage of the scene is full's
//                        stage_contacts_ns.
//   full                 every slot and rule: the scene's step without its
//                        script; its pass_ns is all behaviours plus blending
// The blending of the full controller, and whatever the fusion saves, is
// what is left: full - base - (the non-neighbour kinds + neighbours +
// targeting); scripts/plot_bench computes it. Not measured: path
// following when the scene uses paths (the API cannot copy a path, so a
// clone would follow none; such scenes skip that pass).
//
// Names: pass/<scenario>/<engine>/<pass>[/large]/agents:<N>/threads:<T>.
// One more scenario, `field_pedestrian` (issue 32's cost target): `field`
// whose archetypes take the pedestrian's controller
// (throng_controller_pedestrian_def(THRONG_ARRIVE): the relaxation blend,
// wall avoidance, anticipation, headway, arrive, its contacts) with
// field's bounds and obstacle avoidance added, on field's agents and
// bodies (radius 0.3 m, 1.3 m/s) after field's first step; its
// `neighbours` pass is anticipation and headway together.
// Runs are registered so that those of one scenario, size, engine and
// thread count follow one another; they share one pair of worlds, the pass
// world taking each pass's controllers in turn (throng_world_set_controller,
// then one untimed step that rebuilds the shape grids), and both are cloned
// again from the scene once they have taken BENCH_RESET_STEPS steps. So a
// world of 10^6 agents is cloned once, not once a pass. Each run times at
// least BENCH_PASS_MIN_TIME seconds of pass-world steps, whatever
// --benchmark_min_time says (the base world takes as long again). Up to
// BENCH_RECLONE_MAX agents each run clones its worlds afresh instead, so
// that no pass inherits a crowd another pass's controllers have moved.
// Worlds that keep target rules time whole rule periods (common.h) per
// iteration, as long as that is at most BENCH_MAX_PERIOD_AGENT_STEPS.
// The pass world counts the time of its stages during the timed steps;
// its work is counted when the run begins, right after the worlds are
// cloned (or take the pass's controllers), over one iteration's steps of
// both worlds, untimed (report.h).
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "report.h"
#include "shim.h"

#define BENCH_MAX_PASSES (THRONG_BEHAVIOR_COUNT + 5)
#define BENCH_PASS_MIN_TIME 0.2
/// Up to this many agents every run clones its worlds from the scene, so
/// each pass starts from the scene's own state.
#define BENCH_RECLONE_MAX 100000u

typedef struct pass_def {
	char name[40];
	bench_keep keep;
} pass_def;

typedef struct pass_case {
	const char* scenario; ///< the built-in scene
	const char* name;     ///< the rows' name for it: the scene's, or BENCH_PEDESTRIAN's
	throng_engine engine;
	pass_def pass;
} pass_case;

/// The pedestrian on `field` (issue 32): the scene the rows of this name
/// clone is `field` with pedestrian_controllers().
#define BENCH_PEDESTRIAN "field_pedestrian"

static pass_case pass_cases[(BENCH_SCENARIO_WANTED_COUNT + 1) * 2 * BENCH_MAX_PASSES];

/// Gives every archetype of the scene's world the pedestrian's controller
/// with the scene's bounds and obstacle avoidance slots added.
static throng_status pedestrian_controllers(throng_scene* scene)
{
	throng_world* w = throng_scene_world(scene);
	throng_status st = THRONG_OK;
	for (uint32_t a = 0; st == THRONG_OK && a < throng_world_archetype_count(w); ++a) {
		throng_controller own, ped = throng_controller_pedestrian_def(THRONG_ARRIVE);
		throng_world_get_controller(w, a, &own);
		for (uint32_t k = 0; k < own.slot_count; ++k) {
			if (own.slots[k].kind == THRONG_BOUNDS || own.slots[k].kind == THRONG_OBSTACLE_AVOID) {
				throng_controller_add(&ped, own.slots[k]);
			}
		}
		st = throng_world_set_controller(w, a, &ped);
	}
	return st;
}

/// The scene the runs clone, and the worlds of the runs in progress, kept
/// while runs of the same scenario and size (and for the worlds, engine
/// and threads) follow one another.
static struct {
	char scenario[32];
	uint32_t agents;
	throng_scene* scene;
	float cell;
	throng_world *base, *world;
	throng_engine engine;
	uint32_t threads;
	uint32_t since; ///< steps the worlds have taken since they were cloned
	throng_world_counters work; ///< the pass world's work, counted when the run began (report.h)
} source;

static void worlds_free(void)
{
	throng_world_destroy(source.base);
	throng_world_destroy(source.world);
	source.base = source.world = NULL;
}

void bench_pass_free(void)
{
	worlds_free();
	throng_scene_destroy(source.scene);
	memset(&source, 0, sizeof source);
}

/// The last scenario and size that could not be built, so that the other
/// runs of it fail at once instead of building it again.
static struct {
	char scenario[32];
	uint32_t agents;
	char error[256];
} failed;

static throng_scene* source_get(const char* name, uint32_t agents, const char** error)
{
	if (source.scene != NULL && source.agents == agents && strcmp(source.scenario, name) == 0) {
		return source.scene;
	}
	if (failed.agents == agents && strcmp(failed.scenario, name) == 0) {
		*error = failed.error;
		return NULL;
	}
	bench_pass_free();
	// The state after the first step is the same bits on either engine
	// and any thread count; the SIMD engine on every core makes it fastest.
	const bool pedestrian = strcmp(name, BENCH_PEDESTRIAN) == 0;
	source.scene = bench_scene_create(pedestrian ? "field" : name, agents, THRONG_ENGINE_SIMD, 0, error);
	if (source.scene != NULL && pedestrian && pedestrian_controllers(source.scene) != THRONG_OK) {
		*error = throng_last_error();
		throng_scene_destroy(source.scene);
		source.scene = NULL;
	}
	if (source.scene == NULL) {
		snprintf(failed.scenario, sizeof failed.scenario, "%s", name);
		snprintf(failed.error, sizeof failed.error, "%s", *error);
		failed.agents = agents;
		*error = failed.error;
		return NULL;
	}
	snprintf(source.scenario, sizeof source.scenario, "%s", name);
	source.agents = agents;
	source.cell = bench_cell_size(throng_scene_world(source.scene));
	return source.scene;
}

/// Clones the base and pass worlds anew and takes one untimed step on each.
static throng_status worlds_clone(const pass_case* pc, uint32_t threads)
{
	const bench_keep none = {0u, false, false};
	worlds_free();
	throng_status st = bench_world_clone(source.scene, none, pc->engine, threads, source.cell, &source.base);
	if (st == THRONG_OK) {
		st = bench_world_clone(source.scene, pc->pass.keep, pc->engine, threads, source.cell, &source.world);
	}
	if (st == THRONG_OK) {
		st = throng_world_step(source.base);
	}
	if (st == THRONG_OK) {
		st = throng_world_step(source.world);
	}
	source.engine = pc->engine;
	source.threads = threads;
	source.since = 1;
	if (st != THRONG_OK) {
		worlds_free();
	}
	return st;
}

/// Counts the pass world's work over `period` untimed steps of both
/// worlds (which stay in step) into source.work.
static throng_status count_work(uint32_t period)
{
	bench_measure_count(source.world);
	throng_status st = THRONG_OK;
	for (uint32_t k = 0; st == THRONG_OK && k < period; ++k) {
		st = throng_world_step(source.base);
		if (st == THRONG_OK) {
			st = throng_world_step(source.world);
		}
		source.since++;
	}
	bench_measure_counted(source.world, &source.work);
	return st;
}

/// The worlds for this run: fresh clones, or (above BENCH_RECLONE_MAX
/// agents, where cloning takes seconds) the ones in use, the pass world
/// taking the pass's controllers, with one untimed step; then the pass
/// world's work, counted over one iteration's steps (`period`).
static throng_status worlds_get(const pass_case* pc, uint32_t threads, uint32_t period)
{
	throng_status st;
	if (source.base == NULL || source.engine != pc->engine || source.threads != threads ||
	    source.since + 1u + period >= BENCH_RESET_STEPS || source.agents <= BENCH_RECLONE_MAX) {
		st = worlds_clone(pc, threads);
	} else {
		st = bench_world_set_keep(source.world, source.scene, pc->pass.keep);
		if (st == THRONG_OK) {
			st = throng_world_step(source.world);
		}
		if (st == THRONG_OK) {
			st = throng_world_step(source.base);
		}
		source.since++;
	}
	if (st == THRONG_OK) {
		st = count_work(period);
	}
	if (st != THRONG_OK) {
		worlds_free();
	}
	return st;
}

static void pass_run(thr_bench_state* st, const void* data)
{
	const pass_case* pc = data;
	const uint32_t agents = (uint32_t)thr_bench_range(st, 0);
	const uint32_t threads = (uint32_t)thr_bench_range(st, 1);
	const char* error = "";
	throng_scene* src = source_get(pc->name, agents, &error);
	if (src == NULL) {
		thr_bench_skip_with_error(st, error);
		return;
	}
	// Worlds with target rules time whole rule periods per iteration (the
	// pass world's rules are the scene's when the pass keeps them).
	const uint32_t period = bench_run_period(throng_scene_world(src), pc->pass.keep);
	if (worlds_get(pc, threads, period) != THRONG_OK) {
		thr_bench_skip_with_error(st, throng_last_error());
		return;
	}
	double t_base = 0.0, t_world = 0.0, c_base = 0.0, c_world = 0.0;
	int64_t steps = 0;
	int failed_step = 0;
	bench_measure m;
	memset(&m, 0, sizeof m);
	bench_measure_time(source.world);
	while (!failed_step && thr_bench_keep_running(st)) {
		if (source.since + period > BENCH_RESET_STEPS) {
			bench_measure_collect(source.world, &m);
			if (worlds_clone(pc, threads) != THRONG_OK) {
				thr_bench_skip_with_error(st, throng_last_error());
				failed_step = 1;
				break;
			}
			bench_measure_time(source.world);
		}
		double t_iteration = 0.0;
		for (uint32_t k = 0; k < period; ++k) {
			double c0 = bench_cpu_now();
			double t0 = bench_now();
			throng_status s0 = throng_world_step(source.base);
			double t1 = bench_now();
			double c1 = bench_cpu_now();
			throng_status s1 = throng_world_step(source.world);
			double t2 = bench_now();
			double c2 = bench_cpu_now();
			if (s0 != THRONG_OK || s1 != THRONG_OK) {
				thr_bench_skip_with_error(st, throng_last_error());
				worlds_free();
				failed_step = 1;
				break;
			}
			t_iteration += t2 - t1;
			t_base += t1 - t0;
			t_world += t2 - t1;
			c_base += c1 - c0;
			c_world += c2 - c1;
			steps++;
			source.since++;
		}
		thr_bench_set_iteration_time(st, t_iteration);
	}
	if (failed_step) {
		return;
	}
	m.world = source.world;
	bench_measure_collect(source.world, &m);
	m.counted = source.work;
	bench_report(st, &m, (int)threads, steps, t_world, c_world);
	const double per = steps > 0 ? 1e9 / ((double)steps * (double)agents) : 0.0;
	thr_bench_set_counter(st, "base_ns", t_base * per);
	thr_bench_set_counter(st, "world_ns", t_world * per);
	thr_bench_set_counter(st, "pass_ns", (t_world - t_base) * per);
	thr_bench_set_counter(st, "base_cpu_ns", c_base * per);
	thr_bench_set_counter(st, "world_cpu_ns", c_world * per);
	thr_bench_set_counter(st, "pass_cpu_ns", (c_world - c_base) * per);
}

/// The passes of a scenario, from its controllers (the pedestrian's when
/// `pedestrian`).
static int scenario_passes(const char* scenario, bool pedestrian, pass_def* out)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = 256;
	throng_scene* scene = NULL;
	if (throng_scene_create(scenario, &o, &scene) != THRONG_OK ||
	    (pedestrian && pedestrian_controllers(scene) != THRONG_OK)) {
		fprintf(stderr, "throng_bench: %s: %s\n", scenario, throng_last_error());
		throng_scene_destroy(scene);
		return 0;
	}
	const throng_world* w = throng_scene_world(scene);
	uint32_t kinds = 0;
	bool rule = false, contacts = false;
	for (uint32_t a = 0; a < throng_world_archetype_count(w); ++a) {
		throng_controller c;
		throng_world_get_controller(w, a, &c);
		rule |= c.target_rule.enabled;
		contacts |= c.contact.enabled;
		for (uint32_t k = 0; k < c.slot_count; ++k) {
			if (c.slots[k].enabled) {
				kinds |= 1u << (unsigned)c.slots[k].kind;
			}
		}
	}
	if (throng_world_path_count(w) > 0 && (kinds & (1u << THRONG_PATH_FOLLOW))) {
		fprintf(stderr, "throng_bench: %s follows paths, which a per-pass world cannot copy: "
		                "no pass/%s/*/path_following\n", scenario, scenario);
		kinds &= ~(1u << THRONG_PATH_FOLLOW);
	}
	throng_scene_destroy(scene);

	int n = 0;
	out[n++] = (pass_def){"base", {0u, false, false}};
	if (rule) {
		out[n++] = (pass_def){"targeting", {0u, true, false}};
	}
	if (contacts) {
		out[n++] = (pass_def){"contacts", {0u, false, true}};
	}
	uint32_t neighbours = 0;
	for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
		if (kinds & (1u << k)) {
			pass_def* p = &out[n++];
			snprintf(p->name, sizeof p->name, "%s", throng_behavior_kind_name((throng_behavior_kind)k));
			p->keep = (bench_keep){1u << k, false, false};
			neighbours += throng_behavior_reads_neighbors((throng_behavior_kind)k);
		}
	}
	if (neighbours >= 2) {
		uint32_t mask = 0;
		for (int k = 0; k < THRONG_BEHAVIOR_COUNT; ++k) {
			mask |= throng_behavior_reads_neighbors((throng_behavior_kind)k) ? 1u << k : 0u;
		}
		out[n++] = (pass_def){"neighbours", {kinds & mask, false, false}};
	}
	out[n++] = (pass_def){"full", bench_keep_all()};
	return n;
}

void bench_pass_register(void)
{
	static const char* const arg_names[] = {"agents", "threads"};
	static const int64_t sizes[BENCH_SIZE_COUNT] = BENCH_SIZES;
	const char* scenarios[BENCH_SCENARIO_WANTED_COUNT + 1];
	const char* names[BENCH_SCENARIO_WANTED_COUNT + 1];
	int n = bench_scenarios(scenarios, BENCH_SCENARIO_WANTED_COUNT, NULL);
	for (int s = 0; s < n; ++s) {
		names[s] = scenarios[s];
	}
	if (throng_scenario_find("field") != NULL) {
		scenarios[n] = "field";
		names[n++] = BENCH_PEDESTRIAN;
	}
	for (int s = 0; s < n; ++s) {
		pass_def passes[BENCH_MAX_PASSES];
		const bool pedestrian = names[s] != scenarios[s];
		const int n_passes = scenario_passes(scenarios[s], pedestrian, passes);
		// One family per (size, engine, threads, pass), in that order, so
		// that the runs sharing a source scene and a pair of worlds follow
		// one another.
		for (int i = 0; i < BENCH_SIZE_COUNT; ++i) {
			for (int e = 0; e < 2; ++e) {
				const throng_engine engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
				for (int64_t t = 1; t <= (e == 0 ? 2 : 1); ++t) {
					for (int p = 0; p < n_passes; ++p) {
						pass_case* pc = &pass_cases[(s * 2 + e) * BENCH_MAX_PASSES + p];
						pc->scenario = scenarios[s];
						pc->name = names[s];
						pc->engine = engine;
						pc->pass = passes[p];
						char name[160];
						snprintf(name, sizeof name, "pass/%.32s/%s/%.40s%s", names[s],
						         throng_engine_name(engine), passes[p].name, sizes[i] >= BENCH_LARGE ? "/large" : "");
						thr_bench* b = thr_bench_register_data(name, pass_run, pc);
						thr_bench_set_arg_names(b, arg_names, 2);
						const int64_t args[2] = {sizes[i], t};
						thr_bench_add_args(b, args, 2);
						thr_bench_use_manual_time(b);
						thr_bench_set_min_time(b, BENCH_PASS_MIN_TIME);
						thr_bench_set_unit(b, THR_BENCH_MS);
					}
				}
			}
		}
	}
}
