// SPDX-License-Identifier: MIT
// Part worlds (core/part.h), the ground of the distributed step: a world
// split into strips of grid rows, each strip a part world holding its own
// agents and the ghost rows around them, steps every agent to the same
// bits as the whole world does. The parts run here one after the other in
// one process; records go between them as they will between processes.
#define _POSIX_C_SOURCE 200809L // pthread barriers

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "part.h"
#include "scenario_internal.h"
#include "support.h"
#include "world_internal.h"

/// Turns off what part worlds do not run yet, target rules, in every
/// archetype of w.
static void without_target_rules(throng_world* w)
{
	for (uint32_t a = 0; a < throng_world_archetype_count(w); ++a) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(w, a, &c), THRONG_OK);
		c.target_rule.enabled = false;
		cr_assert_eq(throng_world_set_controller(w, a, &c), THRONG_OK);
	}
}

/// A part world of `whole` (throng_part_create).
static throng_world* make_part(const throng_world* whole, uint32_t threads, uint32_t capacity)
{
	throng_world* p = NULL;
	cr_assert_eq(throng_part_create(whole, threads, capacity, &p), THRONG_OK, "%s", throng_last_error());
	return p;
}

/// Every agent's record, by id (throng_agent_record_of: the public way).
static void records_by_id(const throng_world* w, throng_agent_record* out)
{
	const uint32_t n = throng_world_agent_count(w);
	for (uint32_t id = 0; id < n; ++id) {
		cr_assert_eq(throng_agent_record_of(w, id, &out[id]), THRONG_OK, "id %u: %s", id, throng_last_error());
	}
}

/// Adds what one step added to a world's stats (`was` before it, `now`
/// after) into *sum: the sums' increments, and the running maxima.
static void add_stats(throng_world_stats* sum, const throng_world_stats* was, throng_world_stats now)
{
	sum->nonfinite += now.nonfinite - was->nonfinite;
	sum->clamped += now.clamped - was->clamped;
	sum->neighbor_candidates += now.neighbor_candidates - was->neighbor_candidates;
	sum->neighbor_capped += now.neighbor_capped - was->neighbor_capped;
	sum->shape_pushes += now.shape_pushes - was->shape_pushes;
	sum->shape_reverts += now.shape_reverts - was->shape_reverts;
	sum->contacts += now.contacts - was->contacts;
	sum->max_speed_ratio = now.max_speed_ratio > sum->max_speed_ratio ? now.max_speed_ratio : sum->max_speed_ratio;
	sum->neighbor_most_candidates = now.neighbor_most_candidates > sum->neighbor_most_candidates
	                                    ? now.neighbor_most_candidates
	                                    : sum->neighbor_most_candidates;
	sum->neighbor_most_met =
		now.neighbor_most_met > sum->neighbor_most_met ? now.neighbor_most_met : sum->neighbor_most_met;
}

/// The parts' figures of a step add up to the whole world's: its sums'
/// increments are the sums of theirs, and its running maxima are theirs
/// (which began when the parts did) or those it had then (`start`).
static void check_stats(throng_world_stats* parts, const throng_world_stats* whole, const throng_world_stats* start,
                        uint32_t step)
{
	add_stats(parts, start, *start); // no increment: the maxima only
	cr_assert_eq(parts->max_speed_ratio, whole->max_speed_ratio, "step %u: max_speed_ratio %a against %a", step,
	             (double)parts->max_speed_ratio, (double)whole->max_speed_ratio);
	cr_assert_eq(parts->nonfinite, whole->nonfinite, "step %u: nonfinite", step);
	cr_assert_eq(parts->clamped, whole->clamped, "step %u: clamped %llu against %llu", step,
	             (unsigned long long)parts->clamped, (unsigned long long)whole->clamped);
	cr_assert_eq(parts->neighbor_candidates, whole->neighbor_candidates, "step %u: neighbor_candidates %llu against %llu",
	             step, (unsigned long long)parts->neighbor_candidates, (unsigned long long)whole->neighbor_candidates);
	cr_assert_eq(parts->neighbor_capped, whole->neighbor_capped, "step %u: neighbor_capped", step);
	cr_assert_eq(parts->shape_pushes, whole->shape_pushes, "step %u: shape_pushes", step);
	cr_assert_eq(parts->shape_reverts, whole->shape_reverts, "step %u: shape_reverts", step);
	cr_assert_eq(parts->contacts, whole->contacts, "step %u: contacts", step);
	cr_assert_eq(parts->neighbor_most_candidates, whole->neighbor_most_candidates, "step %u: neighbor_most_candidates",
	             step);
	cr_assert_eq(parts->neighbor_most_met, whole->neighbor_most_met, "step %u: neighbor_most_met", step);
}

typedef struct split_run {
	uint32_t ghosts;      ///< ghosts loaded, over every part and step
	uint32_t far_targets; ///< target agents loaded from beyond the halo
	uint32_t migrations;  ///< agents whose part changed between two steps
	uint32_t most_owned;  ///< the most agents one part owned
	uint32_t least_owned; ///< the fewest agents one part owned
	uint32_t reductions;  ///< reductions each part made (all the same)
	uint64_t iterations;  ///< contact iterations the whole world ran
	uint32_t redraws;     ///< target points that changed in a step (scenes' goals)
	uint32_t kept;        ///< own agents updates kept in place (throng_part_update)
} split_run;

/// A split of a whole scene: each part a scene of its own (`name` with
/// `agents` agents on `engine`, as the whole was made) whose world is the
/// part, so that the scene's script runs on the part's agents.
typedef struct split_scenes {
	throng_scene* whole;
	const char* name;
	uint32_t agents;
	throng_engine engine;
} split_scenes;

enum { MAX_PARTS = 4 };

/// The parts' meeting point: their hook (throng_part_sync) over threads of
/// one process.
typedef struct hub {
	pthread_barrier_t bar;
	uint32_t parts;
	unsigned char slot[MAX_PARTS][16];
} hub;

/// One part, stepped on a thread of its own.
typedef struct member {
	hub* h;
	uint32_t rank;
	throng_world* w;
	throng_scene* scene; ///< stepped instead of w, when the split is of scenes
	uint32_t reductions;
	throng_status st;
} member;

static void hub_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)at;
	member* m = user;
	hub* h = m->h;
	const size_t size = op == THRONG_PART_SUM_U64 ? 8u : 4u;
	unsigned char out[16];
	memcpy(h->slot[m->rank], values, count * size);
	pthread_barrier_wait(&h->bar);
	for (uint32_t k = 0; k < count; ++k) {
		if (op == THRONG_PART_SUM_U64) {
			uint64_t sum = 0, v;
			for (uint32_t r = 0; r < h->parts; ++r) {
				memcpy(&v, h->slot[r] + 8u * k, 8);
				sum += v;
			}
			memcpy(out + 8u * k, &sum, 8);
		} else {
			float most = 0.0f, v;
			for (uint32_t r = 0; r < h->parts; ++r) {
				memcpy(&v, h->slot[r] + 4u * k, 4);
				most = r == 0 || v > most || v != v ? v : most;
			}
			memcpy(out + 4u * k, &most, 4);
		}
	}
	pthread_barrier_wait(&h->bar); // every part has read the slots
	memcpy(values, out, count * size);
	m->reductions++;
}

static void* step_member(void* arg)
{
	member* m = arg;
	m->st = m->scene != NULL ? throng_scene_step(m->scene) : throng_world_step(m->w);
	return NULL;
}

/// Whether row lies within the halo of the rows [lo, hi), across the seam
/// of a wrapping world too.
static bool near_rows(int32_t row, int32_t lo, int32_t hi, int32_t halo, int32_t ny, bool wrap)
{
	for (int32_t shift = wrap ? -ny : 0; shift <= (wrap ? ny : 0); shift += ny) {
		if (row + shift >= lo - halo && row + shift < hi + halo) {
			return true;
		}
	}
	return false;
}

/// Steps `whole` `steps` times and, beside it, the same world split into
/// `parts` strips of rows, each a part world (of room for `capacity`
/// agents) stepped on a thread of its own from the records the parts
/// wrote the step before; after every step every agent's record from its
/// part equals the whole world's, bit for bit, and the parts' stats add up
/// to the whole world's.
static split_run run_split_sized(throng_world* whole, uint32_t parts, uint32_t steps, uint32_t threads,
                                 uint32_t capacity, const split_scenes* scenes)
{
	cr_assert(parts >= 1 && parts <= MAX_PARTS);
	const uint32_t n = throng_world_agent_count(whole);
	split_run out = {0, 0, 0, UINT32_MAX, UINT32_MAX, 0, 0, 0, 0};
	throng_agent_record* rec = malloc(n * sizeof *rec);   // the parts' state, by id
	throng_agent_record* want = malloc(n * sizeof *want); // the whole world's
	throng_agent_record* next = malloc(n * sizeof *next); // what the parts wrote this step
	throng_agent_record* load[MAX_PARTS];
	uint8_t* ghost[MAX_PARTS];
	uint8_t* in[MAX_PARTS];
	int32_t* row = malloc(n * sizeof *row);
	uint32_t* owner = calloc(n, sizeof *owner);
	uint32_t* before = malloc(n * sizeof *before);
	uint8_t* keep = malloc(capacity > n ? capacity : n); // a part's slots (throng_part_update)
	cr_assert(rec && want && next && row && owner && before && keep);
	hub h;
	h.parts = parts;
	cr_assert_eq(pthread_barrier_init(&h.bar, NULL, parts), 0);
	member mem[MAX_PARTS];
	for (uint32_t r = 0; r < parts; ++r) {
		load[r] = malloc(n * sizeof *load[r]);
		ghost[r] = malloc(n);
		in[r] = malloc(n);
		cr_assert(load[r] && ghost[r] && in[r]);
		mem[r] = (member){&h, r, make_part(whole, threads, capacity), NULL, 0, THRONG_OK};
		const throng_part_sync sync = {&mem[r], hub_reduce, NULL};
		cr_assert_eq(throng_part_set_sync(mem[r].w, &sync), THRONG_OK);
		if (scenes != NULL) {
			mem[r].scene = thr_test_scene(scenes->name, scenes->agents, scenes->engine);
			throng_world* own = throng_scene_use_part(mem[r].scene, mem[r].w);
			cr_assert_not_null(own, "the scene refused its part");
			throng_world_destroy(own);
		}
	}
	records_by_id(whole, rec);
	const throng_world_stats start = throng_world_get_stats(whole);
	const throng_part_rows rows = throng_part_rows_of(whole);
	const int32_t halo = throng_part_halo_rows(mem[0].w);
	const bool wrap = whole->def.bounds_mode == THRONG_BOUNDS_WRAP;
	bool contacts = false;
	for (uint32_t a = 0; a < whole->archetype_count; ++a) {
		contacts = contacts || whole->archetypes[a].contact.enabled;
	}
	cr_assert_gt(rows.ny, (int32_t)parts, "too few rows (%d) for %u parts", rows.ny, parts);
	for (uint32_t s = 0; s < steps; ++s) {
		uint32_t owned_total = 0;
		const throng_world_stats whole_was = throng_world_get_stats(whole);
		throng_world_stats sum;
		memset(&sum, 0, sizeof sum);
		for (uint32_t id = 0; id < n; ++id) {
			row[id] = throng_part_row(&rows, rec[id].py);
			before[id] = owner[id];
			owner[id] = (uint32_t)((int64_t)row[id] * parts / rows.ny); // strips of equal rows
			out.migrations += s > 0 && owner[id] != before[id];
		}
		uint32_t m[MAX_PARTS];
		throng_world_stats was[MAX_PARTS];
		for (uint32_t r = 0; r < parts; ++r) {
			// Rows [lo, hi) are the part's own; its ghosts are the rows
			// within the halo, and the agents its own ones pursue.
			const int32_t lo = (int32_t)(((int64_t)r * rows.ny + parts - 1) / parts);
			const int32_t hi = (int32_t)(((int64_t)(r + 1) * rows.ny + parts - 1) / parts);
			uint8_t* at = in[r];
			memset(at, 0, n);
			uint32_t owned = 0;
			for (uint32_t id = 0; id < n; ++id) {
				if (owner[id] == r) {
					cr_assert(row[id] >= lo && row[id] < hi);
					at[id] = 1;
					++owned;
				} else if (near_rows(row[id], lo, hi, halo, rows.ny, wrap)) {
					at[id] = 2;
				}
			}
			for (uint32_t id = 0; id < n; ++id) {
				const uint32_t t = rec[id].target_agent;
				if (at[id] == 1 && t != THRONG_NO_AGENT && at[t] == 0) {
					at[t] = 3;
					++out.far_targets;
				}
			}
			// On every fourth step from the second, a SIMD part is updated in
			// place (throng_part_update): it keeps its own agents that stay
			// its own and takes the rest; the others are loaded whole.
			throng_world* pw = mem[r].w;
			const bool update = whole->def.engine == THRONG_ENGINE_SIMD && s % 4u == 1u;
			const uint32_t held = throng_world_agent_count(pw);
			for (uint32_t i = 0; update && i < held; ++i) {
				const uint32_t id = pw->id[i];
				keep[i] = !thr_part_ghost(pw->part, id) && at[id] == 1;
				out.kept += keep[i];
			}
			m[r] = 0;
			for (uint32_t id = 0; id < n; ++id) {
				const bool is_kept = update && at[id] == 1 && pw->slot_of[id] != THR_NO_SLOT &&
				                     !thr_part_ghost(pw->part, id); // not brought again
				if (at[id] != 0 && !is_kept) {
					load[r][m[r]] = rec[id];
					ghost[r][m[r]] = at[id] != 1;
					if (ghost[r][m[r]]) { // its target comes along; throng_part_update drops one not loaded
						++out.ghosts;
					}
					++m[r];
				}
			}
			// The SIMD engine takes records in any order (it orders each
			// cell by id): on odd steps they come in reversed, as records
			// from other processes come in no id order.
			if (whole->def.engine == THRONG_ENGINE_SIMD && s % 2u == 1u) {
				for (uint32_t i = 0, j = m[r]; i + 1u < j; ++i, --j) {
					const throng_agent_record t = load[r][i];
					load[r][i] = load[r][j - 1u];
					load[r][j - 1u] = t;
					const uint8_t g = ghost[r][i];
					ghost[r][i] = ghost[r][j - 1u];
					ghost[r][j - 1u] = g;
				}
			}
			out.most_owned = owned > out.most_owned || out.most_owned == UINT32_MAX ? owned : out.most_owned;
			out.least_owned = owned < out.least_owned ? owned : out.least_owned;
			owned_total += owned;
			cr_assert_eq(throng_part_update(pw, update ? keep : NULL, load[r], ghost[r], m[r], whole->step), THRONG_OK, "%s",
			             throng_last_error());
			if (scenes != NULL) {
				throng_scene_part_goals(mem[r].scene, load[r], m[r]);
			}
			was[r] = throng_world_get_stats(mem[r].w);
		}
		cr_assert_eq(owned_total, n, "step %u: the parts own %u of %u agents", s, owned_total, n);
		// Every part steps at once: their contact passes meet in hub_reduce.
		// Without contacts they never meet, and step one after the other
		// (a thread each step costs a millisecond under the sanitizers).
		pthread_t tid[MAX_PARTS];
		for (uint32_t r = 0; r < parts; ++r) {
			if (contacts) {
				cr_assert_eq(pthread_create(&tid[r], NULL, step_member, &mem[r]), 0);
			} else {
				step_member(&mem[r]);
			}
		}
		for (uint32_t r = 0; contacts && r < parts; ++r) {
			cr_assert_eq(pthread_join(tid[r], NULL), 0);
		}
		for (uint32_t r = 0; r < parts; ++r) {
			cr_assert_eq(mem[r].st, THRONG_OK, "part %u: %s", r, throng_status_name(mem[r].st));
			cr_assert_eq(mem[r].reductions, mem[0].reductions, "the parts made different reductions");
			add_stats(&sum, &was[r], throng_world_get_stats(mem[r].w));
			for (uint32_t id = 0; id < n; ++id) {
				if (in[r][id] == 1) {
					throng_agent_record_get(mem[r].w, mem[r].w->slot_of[id], &next[id]);
				}
			}
		}
		memcpy(rec, next, n * sizeof *rec);
		records_by_id(whole, want);
		uint32_t redrawn = 0; // target points the step changed
		cr_assert_eq(scenes != NULL ? throng_scene_step(scenes->whole) : throng_world_step(whole), THRONG_OK, "%s",
		             throng_last_error());
		for (uint32_t id = 0; id < n; ++id) {
			const float tx = want[id].tx, ty = want[id].ty;
			throng_agent_record_get(whole, whole->slot_of[id], &want[id]);
			redrawn += memcmp(&tx, &want[id].tx, sizeof tx) != 0 || memcmp(&ty, &want[id].ty, sizeof ty) != 0;
		}
		out.redraws += redrawn;
		throng_world_stats delta;
		memset(&delta, 0, sizeof delta);
		add_stats(&delta, &whole_was, throng_world_get_stats(whole));
		check_stats(&sum, &delta, &start, s);
		// One count of the whole world's, the same in every part.
		const uint64_t iters = throng_world_get_stats(whole).contact_iterations - whole_was.contact_iterations;
		out.iterations += iters;
		for (uint32_t r = 0; r < parts; ++r) {
			cr_assert_eq(throng_world_get_stats(mem[r].w).contact_iterations - was[r].contact_iterations, iters,
			             "step %u, part %u: contact iterations", s, r);
		}
		for (uint32_t id = 0; id < n; ++id) {
			cr_assert(memcmp(&rec[id], &want[id], sizeof want[id]) == 0,
			          "step %u, agent %u (part %u of %u): part (%a, %a) v (%a, %a), whole (%a, %a) v (%a, %a)", s,
			          id, owner[id], parts, (double)rec[id].px, (double)rec[id].py, (double)rec[id].vx,
			          (double)rec[id].vy, (double)want[id].px, (double)want[id].py, (double)want[id].vx,
			          (double)want[id].vy);
		}
	}
	out.reductions = mem[0].reductions;
	for (uint32_t r = 0; r < parts; ++r) {
		if (mem[r].scene != NULL) {
			throng_scene_destroy(mem[r].scene); // and its world, the part
		} else {
			throng_world_destroy(mem[r].w);
		}
		free(load[r]);
		free(ghost[r]);
		free(in[r]);
	}
	pthread_barrier_destroy(&h.bar);
	free(before);
	free(keep);
	free(owner);
	free(row);
	free(next);
	free(want);
	free(rec);
	return out;
}

static split_run run_split(throng_world* whole, uint32_t parts, uint32_t steps, uint32_t threads)
{
	return run_split_sized(whole, parts, steps, threads, throng_world_get_def(whole).capacity, NULL);
}

/// The scene `name` with `agents` agents on `engine`, without target rules,
/// stepped `warm` times so that it moves.
static throng_scene* scene_for_parts(const char* name, uint32_t agents, throng_engine engine, uint32_t warm)
{
	throng_scene* s = thr_test_scene(name, agents, engine);
	throng_world* w = throng_scene_world(s);
	without_target_rules(w);
	for (uint32_t k = 0; k < warm; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	return s;
}

/// `name` with `agents` agents, stepped `warm` steps as a whole, then split
/// into `parts` parts for 12 steps. With `overlaps`, its contact pass must
/// iterate then, so that the parts' reductions decide something.
static void check_scene(const char* name, uint32_t agents, throng_engine engine, uint32_t parts, uint32_t threads,
                        uint32_t warm, bool overlaps)
{
	throng_scene* s = scene_for_parts(name, agents, engine, warm);
	const split_run r = run_split(throng_scene_world(s), parts, 12, threads);
	cr_assert_gt(r.ghosts, 0u, "%s: no ghost was ever loaded", name);
	cr_assert_lt(r.most_owned, agents, "%s: one part owned every agent", name);
	cr_assert(!overlaps || r.iterations > 0, "%s: no contact iteration ran", name);
	cr_assert_gt(r.reductions, 0u, "%s: the parts never met", name);
	cr_assert(engine != THRONG_ENGINE_SIMD || r.kept > 0, "%s: no part was updated in place", name);
	throng_scene_destroy(s);
}

Test(part, field_in_two_three_and_four_strips_steps_as_the_whole)
{
	for (uint32_t parts = 2; parts <= 4; ++parts) {
		check_scene("field", 4000, THRONG_ENGINE_SIMD, parts, 1, 5, true);
	}
}

Test(part, scalar_reference_in_strips_steps_as_the_whole)
{
	check_scene("field", 3000, THRONG_ENGINE_SCALAR, 3, 1, 5, true);
	check_scene("crossing", 2000, THRONG_ENGINE_SCALAR, 2, 1, 100, false);
}

Test(part, walls_paths_and_two_flows)
{
	// Walls (their pushes are counted) and crowds that do not overlap yet:
	// the parts still make every reduction.
	check_scene("crossing", 3000, THRONG_ENGINE_SIMD, 3, 1, 100, false);
	check_scene("bottleneck", 2000, THRONG_ENGINE_SIMD, 2, 1, 100, false);
	check_scene("hallway", 2000, THRONG_ENGINE_SIMD, 3, 1, 100, false);
}

Test(part, parts_on_two_threads_step_as_the_whole)
{
	// 20,000 agents, so that a part's parallel regions really run (above
	// THR_PARALLEL_MIN_AGENTS).
	check_scene("field", 20000, THRONG_ENGINE_SIMD, 2, 2, 5, true);
}

Test(part, a_scene_script_runs_on_its_parts)
{
	// field's script draws a new random goal for each agent that reaches
	// its own; the goal moves with the agent as its target point. 150
	// agents in a 61 m square over 4,000 steps: agents arrive, walk to
	// another strip and arrive again there. Without contacts, whose
	// reductions (a barrier of the four threads each) the other tests
	// check, so that the 4,000 steps stay quick on a loaded machine.
	const uint32_t n = 150;
	throng_scene* s = thr_test_scene("field", n, THRONG_ENGINE_SIMD);
	without_target_rules(throng_scene_world(s));
	for (uint32_t a = 0; a < throng_world_archetype_count(throng_scene_world(s)); ++a) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(throng_scene_world(s), a, &c), THRONG_OK);
		c.contact.enabled = false;
		cr_assert_eq(throng_world_set_controller(throng_scene_world(s), a, &c), THRONG_OK);
	}
	const split_scenes sc = {s, "field", n, THRONG_ENGINE_SIMD};
	throng_world* w = throng_scene_world(s);
	const split_run r = run_split_sized(w, 4, 4000, 1, throng_world_get_def(w).capacity, &sc);
	cr_assert_gt(r.redraws, 2u * n / 3u, "only %u goals were drawn again", r.redraws);
	cr_assert_gt(r.migrations, n, "only %u agents changed strips", r.migrations);
	throng_scene_destroy(s);
}

Test(part, a_scene_with_a_measure_runs_on_a_part_and_its_driver_samples)
{
	// charge's measure samples every agent by id before each step, and
	// flock's outcome reads every heading at the end: a part holds only
	// some agents, so the scene on a part samples nothing itself; the
	// driver samples a whole world (throng_scene_sample_with) and swaps the
	// whole world back for the outcome.
	throng_scene* s = thr_test_scene("charge", 500, THRONG_ENGINE_SIMD);
	cr_assert(throng_scene_samples(s));
	throng_world* whole = throng_scene_world(s);
	throng_world* part = make_part(whole, 1, 500);
	throng_world* own = throng_scene_use_part(s, part);
	cr_assert_eq(own, whole);
	cr_assert_eq(throng_scene_world(s), part);
	throng_scene_sample_with(s, own);
	cr_assert_eq(throng_scene_world(s), part, "sampling left the whole world in the scene");
	throng_world_destroy(throng_scene_swap_world(s, own));
	throng_scene_outcome out[4];
	cr_assert_eq(throng_scene_outcomes(s, out, 4), 3u);
	throng_scene_destroy(s);
	s = thr_test_scene("flock", 500, THRONG_ENGINE_SIMD);
	cr_assert(!throng_scene_samples(s));
	part = make_part(throng_scene_world(s), 1, 500);
	own = throng_scene_use_part(s, part);
	cr_assert_not_null(own);
	throng_world_destroy(throng_scene_swap_world(s, own)); // whole again, as a driver does at the end
	throng_scene_destroy(s);
}

Test(part, the_scenes_part_calls_refuse_what_they_cannot_do)
{
	// include/throng/scene_part.h: NULLs give NULL or nothing; a scene
	// takes a part only at its world's step (a part made before a step
	// is refused after it), and then keeps its world.
	cr_assert_null(throng_scene_use_part(NULL, NULL));
	cr_assert_null(throng_scene_swap_world(NULL, NULL));
	cr_assert(!throng_scene_samples(NULL));
	throng_scene_part_goals(NULL, NULL, 0);
	throng_scene* s = thr_test_scene("field", 300, THRONG_ENGINE_SIMD);
	throng_world* whole = throng_scene_world(s);
	throng_world* part = make_part(whole, 1, 300);
	cr_assert_null(throng_scene_use_part(s, NULL));
	cr_assert_eq(throng_scene_world(s), whole);
	cr_assert_eq(throng_scene_step(s), THRONG_OK);
	cr_assert_null(throng_scene_use_part(s, part), "a scene that has stepped took a part");
	cr_assert_eq(throng_scene_world(s), whole);
	// A scene without a sampling measure samples nothing, and leaves its world.
	cr_assert(!throng_scene_samples(s));
	throng_scene_sample_with(s, part);
	cr_assert_eq(throng_scene_world(s), whole);
	// A record's target is its agent's goal: the scene's own records
	// change nothing, and the scene steps as one that was not told.
	throng_scene* twin = thr_test_scene("field", 300, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_scene_step(twin), THRONG_OK);
	for (uint32_t id = 0; id < 300; ++id) {
		throng_agent_record rec;
		cr_assert_eq(throng_agent_record_of(whole, id, &rec), THRONG_OK);
		throng_scene_part_goals(s, &rec, 1);
	}
	for (int k = 0; k < 30; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK);
		cr_assert_eq(throng_scene_step(twin), THRONG_OK);
	}
	cr_assert_eq(throng_world_hash(whole), throng_world_hash(throng_scene_world(twin)));
	throng_world_destroy(part);
	throng_scene_destroy(twin);
	throng_scene_destroy(s);
}

/// The reduction of a part that is the only one: its values are the sums
/// and maxima already.
static void alone_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)user, (void)at, (void)op, (void)values, (void)count;
}

/// Every agent of w as records in id order (ids with holes); their count.
static uint32_t live_records(const throng_world* w, throng_agent_record* out)
{
	uint32_t n = 0;
	for (uint32_t id = 0; id < throng_world_id_end(w); ++id) {
		n += throng_agent_record_of(w, id, &out[n]) == THRONG_OK ? 1u : 0u;
	}
	cr_assert_eq(n, throng_world_agent_count(w));
	return n;
}

Test(part, a_part_gathering_the_whole_world_checkpoints_the_scene_as_the_whole)
{
	// throng-mpi's checkpoint: a scene stepped on a part world, the whole
	// world gathered into another part, made before the steps (its sources
	// never ran). concourse's sources, sinks and flow measure and field's
	// random goals, split at step 60 (use_part at a step: as a restored
	// scene is), checkpointed, restored: the restored scene steps on to the
	// hash and outcomes of a twin that never stopped.
	const char* names[] = {"concourse", "field"};
	char dir[256], path[300];
	thr_test_make_dir(dir, sizeof dir, "throng-part-ck");
	snprintf(path, sizeof path, "%s/scene.ck", dir);
	for (int k = 0; k < 2; ++k) {
		const uint32_t n0 = 1500;
		throng_scene* s = thr_test_scene(names[k], n0, THRONG_ENGINE_SIMD);
		throng_scene* twin = thr_test_scene(names[k], n0, THRONG_ENGINE_SIMD);
		throng_world* gathered = make_part(throng_scene_world(s), 1, n0);
		const throng_part_sync alone = {NULL, alone_reduce, NULL};
		cr_assert_eq(throng_part_set_sync(gathered, &alone), THRONG_OK);
		for (int t = 0; t < 60; ++t) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK);
			cr_assert_eq(throng_scene_step(twin), THRONG_OK);
		}
		throng_world* whole = throng_scene_world(s);
		cr_assert_null(throng_scene_use_part(s, gathered), "%s: a part made at step 0 was taken at step 60", names[k]);
		throng_world* part = make_part(whole, 1, n0);
		cr_assert_eq(throng_world_view(part).step, 60u, "a part is made at its whole world's step");
		cr_assert_eq(throng_part_set_sync(part, &alone), THRONG_OK);
		cr_assert_eq(throng_scene_use_part(s, part), whole);
		// Every agent into `gathered`, as the driver's gather does.
		const uint32_t cap = throng_world_id_end(whole);
		throng_agent_record* rec = malloc((size_t)cap * sizeof *rec);
		cr_assert_not_null(rec);
		const uint32_t n = live_records(whole, rec);
		float radius = 0.0f;
		throng_part_get_world(part, NULL, NULL, &radius);
		cr_assert_eq(throng_part_set_world(gathered, cap, n, radius), THRONG_OK, "%s", throng_last_error());
		size_t bytes = 0;
		cr_assert_eq(throng_world_checkpoint_size(gathered, &bytes), THRONG_ERR_INVALID_ARGUMENT,
		             "a part holding no agent was checkpointed");
		cr_assert(strstr(throng_last_error(), "part of a larger one") != NULL, "%s", throng_last_error());
		cr_assert_eq(throng_part_load_next(gathered, rec, n, 59), THRONG_OK, "%s", throng_last_error());
		const throng_world_stats stats = throng_world_get_stats(whole);
		cr_assert_eq(throng_part_set_stats(gathered, &stats), THRONG_OK);
		// A step that is not the part's is refused, the file left alone.
		thr_test_write_text(path, "kept");
		cr_assert_eq(throng_scene_save_part_checkpoint(s, gathered, part, path), THRONG_ERR_INVALID_ARGUMENT);
		cr_assert(strstr(throng_last_error(), "step 59") != NULL, "%s", throng_last_error());
		char text[8];
		cr_assert_eq(thr_test_slurp(path, text, sizeof text), 4u);
		cr_assert_eq(throng_part_load_next(gathered, rec, n, 60), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_scene_save_part_checkpoint(s, gathered, part, path), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_scene_world(s), part, "the scene's world is its part again");
		throng_scene* back = NULL;
		throng_scene_resume_def expect = throng_scene_default_resume_def();
		cr_assert_eq(throng_scene_load_checkpoint(path, &expect, &back), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_hash(throng_scene_world(back)), throng_world_hash(whole));
		for (int t = 0; t < 60; ++t) {
			cr_assert_eq(throng_scene_step(back), THRONG_OK);
			cr_assert_eq(throng_scene_step(twin), THRONG_OK);
		}
		cr_assert_eq(throng_world_hash(throng_scene_world(back)), throng_world_hash(throng_scene_world(twin)),
		             "%s: the restored scene left the twin's steps", names[k]);
		const throng_world_stats a = throng_world_get_stats(throng_scene_world(back));
		const throng_world_stats b = throng_world_get_stats(throng_scene_world(twin));
		cr_assert(a.steps == b.steps && a.agents_added == b.agents_added && a.agents_removed == b.agents_removed);
		cr_assert(k != 0 || b.agents_added > n0 / 100u, "concourse's sources added only %llu",
		          (unsigned long long)b.agents_added);
		throng_scene_outcome oa[THRONG_MAX_OUTCOMES], ob[THRONG_MAX_OUTCOMES];
		const uint32_t na = throng_scene_outcomes(back, oa, THRONG_MAX_OUTCOMES);
		cr_assert_eq(na, throng_scene_outcomes(twin, ob, THRONG_MAX_OUTCOMES));
		for (uint32_t o = 0; o < na && o < THRONG_MAX_OUTCOMES; ++o) {
			cr_assert(oa[o].value == ob[o].value || (oa[o].value != oa[o].value && ob[o].value != ob[o].value),
			          "%s: outcome %s: %g, the twin's %g", names[k], oa[o].name, oa[o].value, ob[o].value);
		}
		// A part holding every agent, one as a ghost, is refused.
		uint8_t* ghost = calloc(n, 1);
		cr_assert_not_null(ghost);
		ghost[n / 2] = 1;
		cr_assert_eq(throng_part_set_world(part, cap, n, radius), THRONG_OK);
		cr_assert_eq(throng_part_load(part, rec, ghost, n, 60), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_world_checkpoint_size(part, &bytes), THRONG_ERR_INVALID_ARGUMENT);
		free(ghost);
		cr_assert_eq(throng_part_copy_sources(whole, part), THRONG_ERR_INVALID_ARGUMENT);
		throng_scene_destroy(back);
		throng_scene_destroy(twin);
		throng_world_destroy(gathered);
		throng_world_destroy(whole);
		throng_scene_destroy(s);
		free(rec);
	}
	thr_test_remove_dir(dir);
}

Test(part, agents_migrate_between_strips)
{
	// flock's boids wrap on a torus and fly fast: many cross a border
	// (and the seam) within a few steps.
	throng_scene* s = scene_for_parts("flock", 3000, THRONG_ENGINE_SIMD, 5);
	const split_run r = run_split(throng_scene_world(s), 4, 80, 1);
	cr_assert_gt(r.migrations, 10u, "only %u migrations", r.migrations);
	throng_scene_destroy(s);
}

static const float* sort_y; ///< the heights sort_by_y orders ids by

static int sort_by_y(const void* a, const void* b)
{
	const float ya = sort_y[*(const uint32_t*)a], yb = sort_y[*(const uint32_t*)b];
	return (ya > yb) - (ya < yb);
}

Test(part, a_pursued_agent_beyond_the_halo_is_loaded_with_its_pursuer)
{
	// charge without its target rules: the lower half of the agents (by
	// height) pursue the upper half, the lowest the highest, so that most
	// targets lie beyond the halo of the strip of the pursuer.
	throng_scene* s = scene_for_parts("charge", 8000, THRONG_ENGINE_SIMD, 0);
	throng_world* w = throng_scene_world(s);
	const uint32_t n = throng_world_agent_count(w);
	uint32_t* by_y = malloc(n * sizeof *by_y);
	float* y = malloc(n * sizeof *y);
	cr_assert(by_y && y);
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
		y[id] = a.position.y;
		by_y[id] = id;
	}
	sort_y = y;
	qsort(by_y, n, sizeof *by_y, sort_by_y);
	for (uint32_t k = 0; k < n / 2; ++k) {
		cr_assert_eq(throng_world_set_target_agent(w, by_y[k], by_y[n - 1 - k]), THRONG_OK);
	}
	free(y);
	free(by_y);
	for (uint32_t k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	const split_run r = run_split(w, 4, 12, 1);
	cr_assert_gt(r.far_targets, 0u, "no target lay beyond the halo");
	throng_scene_destroy(s);
}

/// Spawns n agents of `radius` at random in the square of half side `half`
/// around the origin, each velocity component random below `speed`.
static void spawn_patch(throng_world* w, uint32_t n, float half, float radius, float speed, uint64_t seed)
{
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.radius = radius;
		a.position = (throng_vec2){thr_test_uniform(&seed, -half, half), thr_test_uniform(&seed, -half, half)};
		a.velocity = (throng_vec2){thr_test_uniform(&seed, -speed, speed), thr_test_uniform(&seed, -speed, speed)};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
}

Test(part, a_part_holding_fewer_agents_keeps_the_whole_worlds_grid)
{
	// 3,000 agents in an 80 m patch of a 2 km world: the agent grid's 4 m
	// cells are too many for its capacity and widen, by how much depends
	// on the capacity. A part with room for fewer agents must still lay
	// out the whole world's cells, or the neighbours' order, and the sums'
	// bits, change.
	const uint32_t n = 3000;
	throng_world_def def = throng_world_default_def();
	def.capacity = n;
	def.bounds_min = (throng_vec2){-1000.0f, -1000.0f};
	def.bounds_max = (throng_vec2){1000.0f, 1000.0f};
	def.cell_size = 4.0f;
	throng_world* whole = NULL;
	cr_assert_eq(throng_world_create(&def, &whole), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	const throng_behavior_kind kinds[3] = {THRONG_SEPARATION, THRONG_ALIGNMENT, THRONG_COHESION};
	for (int k = 0; k < 3; ++k) {
		throng_slot slot = throng_slot_default_def(kinds[k]);
		slot.params.neighbor_radius = 4.0f;
		throng_controller_add(&c, slot);
	}
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(whole, &c, NULL), THRONG_OK);
	spawn_patch(whole, n, 40.0f, 0.3f, 0.9f, 7);
	const throng_part_rows rows = throng_part_rows_of(whole);
	cr_assert_gt(rows.cell, 4.0f, "the whole world's cells did not widen (%g m)", (double)rows.cell);
	const split_run r = run_split_sized(whole, 2, 10, 1, n * 3 / 4, NULL);
	cr_assert_gt(r.ghosts, 0u);
	cr_assert_gt(r.iterations, 0u, "the patch's agents never overlapped");
	cr_assert_lt(r.most_owned, n * 3 / 4);
	throng_world_destroy(whole);
}

/// A crowd of n agents of radius 0.5 m in a square of half side `half`
/// (1 m cells and neighbour radius, separation and wander, `iterations`
/// contact iterations), on `threads` threads (all of them every step),
/// each velocity component random below `speed`.
static throng_world* jammed_world(uint32_t n, uint32_t iterations, uint32_t threads, float half, float speed,
                                  uint64_t seed)
{
	throng_world_def def = throng_world_default_def();
	def.capacity = n;
	def.cell_size = 1.0f;
	def.threads = threads;
	def.threads_policy = THRONG_THREADS_FIXED;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&def, &w), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.iterations = iterations;
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.params.neighbor_radius = 1.0f;
	throng_controller_add(&c, sep);
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK);
	spawn_patch(w, n, half, 0.5f, speed, seed);
	return w;
}

Test(part, a_jammed_crowds_contact_chains_cross_strips)
{
	// 2,000 agents of radius 0.5 m in a 30 m square (1.7 times the area
	// they cover), 16 contact iterations and a 1 m neighbour radius: a push
	// travels up to 17 pairs, about 20 m, far beyond the neighbour walks'
	// two rows of 1 m cells. The halo must follow the contacts' reach.
	throng_world* whole = jammed_world(2000, 16, 0, 15.0f, 0.0f, 11);
	// Four strips of the 100 m world: the outer two hold no agent, and
	// still make every reduction.
	const split_run r = run_split(whole, 4, 6, 1);
	cr_assert_gt(r.iterations, 6u * 8u, "the crowd did not stay jammed (%llu iterations)",
	             (unsigned long long)r.iterations);
	cr_assert_eq(r.least_owned, 0u, "every part held agents");
	throng_world_destroy(whole);
}

/// A part of a small world of `n` agents in a line, and their records.
static throng_world* small_part(throng_world** whole, uint32_t n, throng_agent_record* rec)
{
	throng_world_def def = throng_world_default_def();
	def.capacity = n;
	cr_assert_eq(throng_world_create(&def, whole), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
	cr_assert_eq(throng_world_add_archetype(*whole, &c, NULL), THRONG_OK);
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){(float)k, 0.0f};
		cr_assert_eq(throng_world_spawn(*whole, &a, 1, NULL), THRONG_OK);
	}
	records_by_id(*whole, rec);
	return make_part(*whole, 1, n);
}

Test(part, bad_records_are_refused_and_change_nothing)
{
	throng_world* whole = NULL;
	throng_agent_record rec[4], bad[4];
	throng_world* p = small_part(&whole, 4, rec);
	const throng_agent_record keep[2] = {rec[1], rec[3]};
	cr_assert_eq(throng_part_load(p, keep, NULL, 2, 0), THRONG_OK, "%s", throng_last_error());
	const uint64_t hash = throng_world_hash(p);

	memcpy(bad, rec, sizeof bad);
	bad[2].id = 1; // not increasing
	cr_assert_eq(throng_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "record 2 (id 1): id") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[3].id = 4; // outside the id space
	cr_assert_eq(throng_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	memcpy(bad, rec, sizeof bad);
	bad[0].target_agent = 2; // not loaded
	cr_assert_eq(throng_part_load(p, bad, NULL, 2, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_agent") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[1].radius = 2.0f * rec[1].radius; // above the whole world's largest
	cr_assert_eq(throng_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "radius") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[1].archetype = 1;
	cr_assert_eq(throng_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "archetype") != NULL, "%s", throng_last_error());
	cr_assert_eq(throng_world_hash(p), hash, "a refused load changed the part");

	// The part's ids are the whole world's.
	throng_agent_state a;
	cr_assert_eq(throng_world_get_agent(p, 3, &a), THRONG_OK);
	cr_assert_eq(a.position.x, 3.0f);
	cr_assert_eq(throng_world_get_agent(p, 0, &a), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_world_set_target_agent(p, 1, 3), THRONG_OK);
	cr_assert_eq(throng_world_set_target_agent(p, 1, 2), THRONG_ERR_NOT_FOUND);
	// Agents come in only by loads; metrics are the whole world's.
	throng_agent_def d = throng_agent_default_def();
	cr_assert_eq(throng_world_spawn(p, &d, 1, NULL), THRONG_ERR_INVALID_ARGUMENT);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(p, 1.0f, &m), THRONG_ERR_UNSUPPORTED);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}

Test(part, solid_contacts_without_a_sync_hook_are_refused)
{
	throng_world* whole = NULL;
	throng_agent_record rec[3];
	throng_world* p = small_part(&whole, 3, rec);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(p, 0, &c), THRONG_OK);
	c.contact.enabled = true;
	cr_assert_eq(throng_world_set_controller(p, 0, &c), THRONG_OK);
	cr_assert_eq(throng_part_load(p, rec, NULL, 3, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "contact") != NULL, "%s", throng_last_error());
	// Target rules are run: the halo reaches as far as the sight.
	c.contact.enabled = false;
	c.target_rule.enabled = true;
	c.target_rule.sight_radius = 5.0f;
	c.target_rule.every = 1;
	cr_assert_eq(throng_world_set_controller(p, 0, &c), THRONG_OK);
	const int32_t without = throng_part_halo_rows(p);
	c.target_rule.sight_radius = 50.0f;
	cr_assert_eq(throng_world_set_controller(p, 0, &c), THRONG_OK);
	cr_assert_gt(throng_part_halo_rows(p), without, "a longer sight, no deeper halo");
	cr_assert_eq(throng_part_load(p, rec, NULL, 3, 0), THRONG_OK, "%s", throng_last_error());
	// A ghost's target that is not in the part is dropped; an own agent's
	// is refused.
	throng_agent_record two[2] = {rec[0], rec[1]};
	two[0].target_agent = 2;
	const uint8_t ghost_first[2] = {1, 0};
	cr_assert_eq(throng_part_load(p, two, ghost_first, 2, 0), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(p->target_agent[p->slot_of[0]], THRONG_NO_AGENT);
	const uint8_t none[2] = {0, 0};
	cr_assert_eq(throng_part_load(p, two, none, 2, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_agent") != NULL, "%s", throng_last_error());
	throng_world_destroy(p);
	throng_world_destroy(whole);
}

Test(part, charge_choosing_their_targets_step_as_the_whole)
{
	// charge with its target rules: every 10 or 15 steps each soldier
	// picks the nearest enemy within 20 to 150 m, and pursues it.
	// At 20,000 agents the world has 72 rows of 6 m cells and the halo 32
	// (the cavalry's 150 m sight): the outer strips' halos end inside the
	// world. Choices fall due at steps 40, 45, 50 and 60.
	throng_scene* s = thr_test_scene("charge", 20000, THRONG_ENGINE_SIMD);
	throng_world* w = throng_scene_world(s);
	for (uint32_t k = 0; k < 40; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	const split_run r = run_split(w, 4, 21, 1);
	cr_assert_gt(r.ghosts, 0u);
	cr_assert_lt(r.most_owned, throng_world_agent_count(w), "one part owned every agent");
	throng_scene_destroy(s);
}

Test(part, a_whole_world_gathered_with_holes_and_new_ids_keeps_the_survivors_previous_states)
{
	// After a step of the parts a sink took ids 1 and 2 and a source added
	// ids 4 and 5: the survivors (0 and 3) keep their previous states in
	// their new slots; the new agents come after them, with none.
	throng_world* whole = NULL;
	throng_agent_record rec[4];
	throng_world* p = small_part(&whole, 4, rec);
	cr_assert_eq(throng_part_load(p, rec, NULL, 4, 0), THRONG_OK, "%s", throng_last_error());
	throng_agent_record next[4] = {rec[0], rec[3], rec[3], rec[3]};
	next[2].id = 4;
	next[3].id = 5;
	for (int k = 0; k < 4; ++k) {
		next[k].px += 0.5f;
	}
	cr_assert_eq(throng_part_load_next(p, next, 4, 1), THRONG_ERR_INVALID_ARGUMENT, "ids beyond the id end");
	cr_assert_eq(throng_part_set_world(p, 6, 4, 0.0f), THRONG_OK, "%s", throng_last_error());
	uint32_t id_end = 0, count = 0;
	throng_part_get_world(p, &id_end, &count, NULL);
	cr_assert(id_end == 6 && count == 4);
	cr_assert_eq(throng_part_load_next(p, next, 4, 1), THRONG_OK, "%s", throng_last_error());
	const thr_state* before = &p->store.buf[p->store.cur ^ 1];
	cr_assert_eq(before->px[0], 0.0f);
	cr_assert_eq(before->px[1], 3.0f, "id 3's previous state did not follow it to slot 1");
	cr_assert_eq(p->published.count, 2u, "the new agents have no previous state");
	cr_assert_eq(throng_world_agent_count(p), 4u);
	throng_agent_record r;
	cr_assert_eq(throng_agent_record_of(p, 2, &r), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_agent_record_of(p, 5, &r), THRONG_OK);
	cr_assert_eq(r.px, 3.5f);
	// Out of id order is refused (the previous states could not follow).
	const throng_agent_record swapped[2] = {next[1], next[0]};
	cr_assert_eq(throng_part_set_world(p, 6, 2, 0.0f), THRONG_OK);
	cr_assert_eq(throng_part_load_next(p, swapped, 2, 2), THRONG_ERR_INVALID_ARGUMENT);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}

Test(part, loading_the_whole_world_again_keeps_the_last_load_as_the_previous_state)
{
	throng_world* whole = NULL;
	throng_agent_record rec[4], next[4];
	throng_world* p = small_part(&whole, 4, rec);
	cr_assert_eq(throng_part_load(p, rec, NULL, 4, 0), THRONG_OK, "%s", throng_last_error());
	memcpy(next, rec, sizeof next);
	for (int k = 0; k < 4; ++k) {
		next[k].px += 0.5f; // each agent moved half a metre
	}
	cr_assert_eq(throng_part_load_next(p, next, 4, 1), THRONG_OK, "%s", throng_last_error());
	const thr_state* now = thr_cur_c(p);
	const thr_state* before = &p->store.buf[p->store.cur ^ 1];
	for (uint32_t k = 0; k < 4; ++k) {
		cr_assert_eq(p->id[k], k);
		cr_assert_eq(now->px[k], (float)k + 0.5f);
		cr_assert_eq(before->px[k], (float)k, "slot %u: the previous state is lost", k);
	}
	cr_assert_eq(throng_world_get_stats(p).steps, 0);
	// Only every agent of the whole world, and a refused load changes nothing.
	cr_assert_eq(throng_part_load_next(p, next, 3, 2), THRONG_ERR_INVALID_ARGUMENT);
	next[1].id = 3; // twice
	cr_assert_eq(throng_part_load_next(p, next, 4, 2), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "record 3 (id 3): id (twice)") != NULL, "%s", throng_last_error());
	next[1].id = 0; // twice again
	cr_assert_eq(throng_part_load_next(p, next, 4, 2), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(thr_cur_c(p)->px[1], 1.5f, "a refused load flipped the buffers");
	cr_assert_eq(p->store.buf[p->store.cur ^ 1].px[1], 1.0f);
	// Out of id order is fine for the SIMD engine, and the load after a
	// refused one sees no id as given twice.
	const throng_agent_record swapped[4] = {rec[2], rec[0], rec[3], rec[1]};
	cr_assert_eq(p->def.engine, THRONG_ENGINE_SIMD);
	cr_assert_eq(throng_part_load(p, swapped, NULL, 4, 2), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(p->slot_of[0], 1u);
	cr_assert_eq(p->slot_of[2], 0u);
	cr_assert_eq(thr_cur_c(p)->px[p->slot_of[3]], 3.0f);
	// An update in place keeps what keep keeps, in its slots where it
	// can, and takes the rest; it refuses an id kept and brought again, and a kept
	// agent's target that is neither kept nor brought.
	const uint8_t keep_02[4] = {1, 0, 0, 1}; // slots 0 and 3: ids 2 and 1
	const throng_agent_record one_more[1] = {next[3]};
	cr_assert_eq(throng_part_update(p, keep_02, &rec[2], NULL, 1, 3), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "id (twice)") != NULL, "%s", throng_last_error());
	cr_assert_eq(p->slot_of[0], 1u, "a refused update changed the part");
	throng_world_set_target_agent(p, 2, 0); // id 2 pursues id 0, which the update drops
	cr_assert_eq(throng_part_update(p, keep_02, one_more, NULL, 1, 3), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_agent") != NULL, "%s", throng_last_error());
	throng_world_set_target_agent(p, 2, THRONG_NO_AGENT);
	// A kept agent may pursue another kept one, before or after it in the
	// slots: id 1 (slot 3) pursues id 2 (slot 0), and id 2 pursues id 1.
	cr_assert_eq(throng_world_set_target_agent(p, 1, 2), THRONG_OK);
	cr_assert_eq(throng_world_set_target_agent(p, 2, 1), THRONG_OK);
	cr_assert_eq(throng_part_update(p, keep_02, one_more, NULL, 1, 3), THRONG_OK, "%s", throng_last_error());
	cr_assert_eq(p->target_agent[p->slot_of[1]], 2u);
	cr_assert_eq(p->target_agent[p->slot_of[2]], 1u);
	// Id 2 stays in slot 0, id 3 fills the hole of slot 1, and id 1 moves
	// down from slot 3 into the hole left below the count.
	cr_assert_eq(throng_world_agent_count(p), 3u);
	cr_assert_eq(p->id[0], 2u);
	cr_assert_eq(p->id[1], 3u);
	cr_assert_eq(p->id[2], 1u);
	cr_assert_eq(p->slot_of[0], THR_NO_SLOT);
	cr_assert_eq(p->slot_of[1], 2u);
	cr_assert_eq(p->slot_of[3], 1u);
	cr_assert_eq(thr_cur_c(p)->px[1], 3.5f);
	cr_assert_eq(thr_cur_c(p)->px[2], 1.0f);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}

Test(part, targets_chosen_far_across_strips_step_as_the_whole)
{
	// Hunters near the bottom of a 200 m world choose the nearest prey
	// within 120 m every 5 steps; the prey wander 80 to 120 m above them,
	// across two strip borders (4 m cells, four strips of 12 or 13 rows).
	// The halo must reach as far as the sight (throng_part_halo_rows): with
	// only the neighbour walks' rows the hunters would find no prey.
	const uint32_t n = 1200;
	throng_world_def def = throng_world_default_def();
	def.capacity = n;
	def.cell_size = 4.0f;
	def.bounds_min = (throng_vec2){-100.0f, -100.0f};
	def.bounds_max = (throng_vec2){100.0f, 100.0f};
	throng_world* whole = NULL;
	cr_assert_eq(throng_world_create(&def, &whole), THRONG_OK);
	throng_controller hunt = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_slot chase = throng_slot_default_def(THRONG_PURSUIT);
	chase.params.target = THRONG_TARGET_AGENT;
	throng_controller_add(&hunt, chase);
	throng_controller_add(&hunt, throng_slot_default_def(THRONG_SEPARATION));
	hunt.target_rule = (throng_target_rule){true, 1, 120.0f, 5, 0};
	throng_controller roam = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	throng_controller_add(&roam, throng_slot_default_def(THRONG_WANDER));
	throng_controller_add(&roam, throng_slot_default_def(THRONG_SEPARATION));
	uint32_t hunters = 0, prey = 0;
	cr_assert_eq(throng_world_add_archetype(whole, &hunt, &hunters), THRONG_OK);
	cr_assert_eq(throng_world_add_archetype(whole, &roam, &prey), THRONG_OK);
	uint64_t seed = 5;
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def a = throng_agent_default_def();
		const bool hunter = k % 3 == 0;
		a.archetype = hunter ? hunters : prey;
		a.group = hunter ? 0u : 1u;
		a.position = (throng_vec2){thr_test_uniform(&seed, -95.0f, 95.0f),
		                           hunter ? thr_test_uniform(&seed, -95.0f, -80.0f)
		                                  : thr_test_uniform(&seed, 10.0f, 30.0f)};
		cr_assert_eq(throng_world_spawn(whole, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	const split_run r = run_split(whole, 4, 12, 1);
	uint32_t chasing = 0;
	for (uint32_t i = 0; i < throng_world_agent_count(whole); ++i) {
		chasing += whole->target_agent[i] != THRONG_NO_AGENT;
	}
	cr_assert_gt(chasing, n / 4, "only %u hunters chose prey", chasing);
	cr_assert_gt(r.ghosts, 0u);
	throng_world_destroy(whole);
}

Test(part, ghosts_are_marked_by_slot_in_the_order_the_step_sorts_them)
{
	// 200 agents loaded in reverse id order, every third a ghost. The SIMD
	// engine sorts them by cell; the marks the step gives its stages
	// (thr_part_mark_ghosts, once a step) follow the agents to their slots.
	enum { N = 200 };
	throng_world_def def = throng_world_default_def();
	def.capacity = N;
	throng_world* whole = NULL;
	cr_assert_eq(throng_world_create(&def, &whole), THRONG_OK);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	c.contact.enabled = false;
	throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(whole, &c, NULL), THRONG_OK);
	spawn_patch(whole, N, 10.0f, 0.3f, 0.5f, 5);
	throng_agent_record by_id[N], rec[N];
	uint8_t ghost[N];
	records_by_id(whole, by_id);
	for (uint32_t k = 0; k < N; ++k) {
		rec[k] = by_id[N - 1u - k];
		ghost[k] = rec[k].id % 3u == 0u;
	}
	throng_world* p = make_part(whole, 1, N);
	cr_assert_eq(throng_part_load(p, rec, ghost, N, 0), THRONG_OK, "%s", throng_last_error());
	uint8_t bits[N / 8 + 1];
	bool moved = false;
	for (int step = 0; step < 3; ++step) {
		memset(bits, 0xa5, sizeof bits);
		thr_part_mark_ghosts(p, bits);
		for (uint32_t i = 0; i < N; ++i) {
			cr_assert_eq(thr_slot_ghost(bits, i), p->id[i] % 3u == 0u, "step %d, slot %u (id %u)", step, i, p->id[i]);
			cr_assert_eq(throng_part_is_ghost(p, i), p->id[i] % 3u == 0u, "step %d, slot %u", step, i);
			moved |= p->id[i] != rec[i].id;
		}
		cr_assert_eq(throng_world_step(p), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert(moved, "the step never sorted the agents: the marks were not tested against a new order");
	// The rest of the public side: no ghost and no stats to set in a whole
	// world, no record of an id the world does not hold, the threat back.
	cr_assert(!throng_part_is_ghost(whole, 0));
	cr_assert(!throng_part_is_ghost(p, N));
	const throng_world_stats st = throng_world_get_stats(p);
	cr_assert_eq(throng_part_set_stats(whole, &st), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_part_set_stats(p, &st), THRONG_OK);
	throng_agent_record r;
	cr_assert_eq(throng_agent_record_of(p, N, &r), THRONG_ERR_NOT_FOUND);
	cr_assert_eq(throng_agent_record_of(p, 3, &r), THRONG_OK);
	cr_assert_eq(r.id, 3u);
	cr_assert_eq(throng_world_set_threat(p, (throng_vec2){1.5f, -2.0f}, (throng_vec2){0.25f, 0.0f}, true), THRONG_OK);
	throng_vec2 tp, tv;
	bool on = false;
	throng_part_get_threat(p, &tp, &tv, &on);
	cr_assert(on && tp.x == 1.5f && tp.y == -2.0f && tv.x == 0.25f && tv.y == 0.0f);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}

/// What a part's hook saw: the calls at each point, and what was wrong
/// with them.
typedef struct hook_log {
	const throng_world* w; ///< the part
	uint32_t calls[3];     ///< by throng_part_point
	int last;              ///< the point of the step's last call (-1: none yet)
	uint32_t out_of_place; ///< calls at a point out of its order, or with another op or count
	uint32_t in_parallel;  ///< calls from inside a parallel region
	uint32_t bad_marks;    ///< slots whose ghost mark (the step's "ghosts by slot") is not the part's
} hook_log;

/// A hook that reduces over one part (the values stay) and checks where
/// it is called from.
static void log_reduce(void* user, throng_part_point at, throng_part_op op, void* values, uint32_t count)
{
	(void)values;
	hook_log* L = user;
	L->calls[at]++;
	const bool fits = at == THRONG_PART_CONTACT_MOVED
	                      ? op == THRONG_PART_MAX_F32 && count == 1 && L->last == -1
	                  : at == THRONG_PART_CONTACT_LISTED
	                      ? op == THRONG_PART_SUM_U64 && count == 2 && L->last == THRONG_PART_CONTACT_MOVED
	                      : op == THRONG_PART_SUM_U64 && count == 1 &&
	                            (L->last == THRONG_PART_CONTACT_LISTED || L->last == THRONG_PART_CONTACT_ROUND);
	L->out_of_place += fits ? 0u : 1u;
	L->last = (int)at;
#ifdef _OPENMP
	L->in_parallel += omp_in_parallel() ? 1u : 0u;
#endif
	// The step marked the ghosts once, by slot, in the order it sorted the
	// agents: the marks must be those of the agents in the slots now.
	const thr_arena* a = &L->w->arena;
	const uint8_t* marks = NULL;
	for (uint32_t k = 0; k < a->count; ++k) {
		marks = strcmp(a->items[k].name, "ghosts by slot") == 0 ? a->items[k].p : marks;
	}
	for (uint32_t i = 0; i < L->w->count; ++i) {
		L->bad_marks += marks == NULL || thr_slot_ghost(marks, i) != (L->w->id[i] % 5u == 0u) ? 1u : 0u;
	}
}

Test(part, the_hook_is_called_between_stages_at_its_points_and_the_part_steps_as_the_whole)
{
	// A jammed crowd, big enough for the contact stage's parallel regions
	// on two threads, as one part that holds every agent, every fifth
	// flagged a ghost. Its agents step to the whole world's bits; the hook
	// comes at MOVED, LISTED, then ROUND after each iteration but the
	// last, never inside a parallel region, and the ghost marks it finds
	// are the agents'.
	const uint32_t n = 6000, steps = 8, iterations = 6;
	throng_world* whole = jammed_world(n, iterations, 2, 26.0f, 0.5f, 13);
	throng_agent_record* rec = malloc(n * sizeof *rec);
	throng_agent_record* got = malloc(n * sizeof *got);
	uint8_t* ghost = malloc(n);
	cr_assert(rec != NULL && got != NULL && ghost != NULL);
	records_by_id(whole, rec);
	for (uint32_t id = 0; id < n; ++id) {
		ghost[id] = id % 5u == 0u;
	}
	throng_world* p = make_part(whole, 2, n);
	hook_log L = {p, {0, 0, 0}, -1, 0, 0, 0};
	const throng_part_sync sync = {&L, log_reduce, NULL};
	cr_assert_eq(throng_part_set_sync(p, &sync), THRONG_OK);
	cr_assert_eq(throng_part_load(p, rec, ghost, n, 0), THRONG_OK, "%s", throng_last_error());
	uint32_t rounds = 0;
	for (uint32_t s = 0; s < steps; ++s) {
		const uint64_t before = whole->stats.contact_iterations;
		L.last = -1;
		cr_assert_eq(throng_world_step(whole), THRONG_OK);
		cr_assert_eq(throng_world_step(p), THRONG_OK, "%s", throng_last_error());
		const uint64_t done = whole->stats.contact_iterations - before;
		rounds += (uint32_t)(done < iterations - 1u ? done : iterations - 1u);
		cr_assert_eq(p->stats.contact_iterations - before, done, "step %u: the part ran other iterations", s);
		records_by_id(whole, rec);
		records_by_id(p, got);
		for (uint32_t id = 0; id < n; ++id) {
			cr_assert(memcmp(&rec[id], &got[id], sizeof rec[id]) == 0, "step %u: agent %u differs", s, id);
		}
	}
	cr_assert_gt(rounds, steps, "the crowd did not jam: the iterations' points went untested");
	cr_assert_eq(p->region_team[THR_REGION_CONTACTS], 2u, "the part's contact stage ran on one thread");
	cr_assert_eq(L.calls[THRONG_PART_CONTACT_MOVED], steps);
	cr_assert_eq(L.calls[THRONG_PART_CONTACT_LISTED], steps);
	cr_assert_eq(L.calls[THRONG_PART_CONTACT_ROUND], rounds);
	cr_assert_eq(L.out_of_place, 0u);
	cr_assert_eq(L.in_parallel, 0u, "the hook was called inside a parallel region");
	cr_assert_eq(L.bad_marks, 0u, "the ghost marks were not the agents' in the step's order");
	free(rec);
	free(got);
	free(ghost);
	throng_world_destroy(p);
	throng_world_destroy(whole);
}
