// SPDX-License-Identifier: MIT
// Part worlds (core/part.h), the ground of the distributed step: a world
// split into strips of grid rows, each strip a part world holding its own
// agents and the ghost rows around them, steps every agent to the same
// bits as the whole world does. The parts run here one after the other in
// one process; records go between them as they will between processes.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "part.h"
#include "support.h"
#include "world_internal.h"

/// Turns off what part worlds do not run yet (solid contacts and target
/// rules) in every archetype of w.
static void without_contacts_and_rules(throng_world* w)
{
	for (uint32_t a = 0; a < throng_world_archetype_count(w); ++a) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(w, a, &c), THRONG_OK);
		c.contact.enabled = false;
		c.target_rule.enabled = false;
		cr_assert_eq(throng_world_set_controller(w, a, &c), THRONG_OK);
	}
}

/// A part world of `whole`: its def, archetypes, shapes, paths and threat,
/// room for every agent, and the whole world's ids and grid.
static throng_world* make_part(const throng_world* whole, uint32_t threads, uint32_t capacity)
{
	throng_world_def def = throng_world_get_def(whole);
	def.threads = threads;
	def.capacity = capacity;
	throng_world* p = NULL;
	cr_assert_eq(throng_world_create(&def, &p), THRONG_OK, "%s", throng_last_error());
	for (uint32_t a = 0; a < throng_world_archetype_count(whole); ++a) {
		throng_controller c;
		cr_assert_eq(throng_world_get_controller(whole, a, &c), THRONG_OK);
		cr_assert_eq(throng_world_add_archetype(p, &c, NULL), THRONG_OK);
	}
	for (uint32_t k = 0; k < throng_world_obstacle_count(whole); ++k) {
		throng_vec2 c;
		float r;
		cr_assert_eq(throng_world_get_obstacle(whole, k, &c, &r), THRONG_OK);
		cr_assert_eq(throng_world_add_obstacle(p, c, r, NULL), THRONG_OK);
	}
	for (uint32_t k = 0; k < throng_world_wall_count(whole); ++k) {
		throng_vec2 a, b;
		cr_assert_eq(throng_world_get_wall(whole, k, &a, &b), THRONG_OK);
		cr_assert_eq(throng_world_add_wall(p, a, b, NULL), THRONG_OK);
	}
	for (uint32_t k = 0; k < whole->path_count; ++k) {
		const thr_path* path = &whole->paths[k];
		cr_assert_eq(throng_world_add_path(p, whole->waypoints + path->first, path->count, path->loop, NULL),
		             THRONG_OK);
	}
	cr_assert_eq(throng_world_set_threat(p, whole->threat_p, whole->threat_v, whole->threat_active), THRONG_OK);
	const thr_part_def pd = {throng_world_agent_count(whole), whole->def.capacity, whole->max_radius};
	cr_assert_eq(thr_part_make(p, &pd), THRONG_OK, "%s", throng_last_error());
	return p;
}

/// Every agent's record, by id.
static void records_by_id(const throng_world* w, thr_agent_record* out)
{
	const uint32_t n = throng_world_agent_count(w);
	for (uint32_t id = 0; id < n; ++id) {
		thr_agent_record_get(w, w->slot_of[id], &out[id]);
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
} split_run;

/// Steps `whole` `steps` times and, beside it, the same world split into
/// `parts` strips of rows, each stepped as a part world from the records the
/// parts wrote the step before; after every step every agent's record from
/// its part equals the whole world's, bit for bit.
static split_run run_split_sized(throng_world* whole, uint32_t parts, uint32_t steps, uint32_t threads,
                                 uint32_t capacity)
{
	const uint32_t n = throng_world_agent_count(whole);
	split_run out = {0, 0, 0, 0};
	thr_agent_record* rec = malloc(n * sizeof *rec);   // the parts' state, by id
	thr_agent_record* want = malloc(n * sizeof *want); // the whole world's
	thr_agent_record* load = malloc(n * sizeof *load);
	thr_agent_record* next = malloc(n * sizeof *next); // what the parts wrote this step
	int32_t* row = malloc(n * sizeof *row);
	uint32_t* owner = calloc(n, sizeof *owner);
	uint32_t* before = malloc(n * sizeof *before);
	uint8_t* in = malloc(n);
	uint8_t* ghost = malloc(n);
	throng_world** p = calloc(parts, sizeof *p);
	cr_assert(rec && want && load && row && owner && before && in && ghost && p);
	for (uint32_t r = 0; r < parts; ++r) {
		p[r] = make_part(whole, threads, capacity);
	}
	records_by_id(whole, rec);
	const throng_world_stats start = throng_world_get_stats(whole);
	const thr_part_rows rows = thr_part_rows_of(whole);
	const int32_t halo = thr_part_halo_rows(whole);
	cr_assert_gt(rows.ny, (int32_t)parts, "too few rows (%d) for %u parts", rows.ny, parts);
	for (uint32_t s = 0; s < steps; ++s) {
		uint32_t owned_total = 0;
		const throng_world_stats whole_was = throng_world_get_stats(whole);
		throng_world_stats sum;
		memset(&sum, 0, sizeof sum);
		for (uint32_t id = 0; id < n; ++id) {
			row[id] = thr_part_row(&rows, rec[id].py);
			before[id] = owner[id];
			owner[id] = (uint32_t)((int64_t)row[id] * parts / rows.ny); // strips of equal rows
			out.migrations += s > 0 && owner[id] != before[id];
		}
		for (uint32_t r = 0; r < parts; ++r) {
			// Rows [lo, hi) are the part's own; its ghosts are the rows
			// within the halo, and the agents its own ones pursue.
			const int32_t lo = (int32_t)(((int64_t)r * rows.ny + parts - 1) / parts);
			const int32_t hi = (int32_t)(((int64_t)(r + 1) * rows.ny + parts - 1) / parts);
			memset(in, 0, n);
			uint32_t owned = 0;
			for (uint32_t id = 0; id < n; ++id) {
				if (owner[id] == r) {
					cr_assert(row[id] >= lo && row[id] < hi);
					in[id] = 1;
					++owned;
				} else if (row[id] >= lo - halo && row[id] < hi + halo) {
					in[id] = 2;
				}
			}
			for (uint32_t id = 0; id < n; ++id) {
				const uint32_t t = rec[id].target_agent;
				if (in[id] == 1 && t != THRONG_NO_AGENT && in[t] == 0) {
					in[t] = 3;
					++out.far_targets;
				}
			}
			uint32_t m = 0;
			for (uint32_t id = 0; id < n; ++id) {
				if (in[id] != 0) {
					load[m] = rec[id];
					ghost[m] = in[id] != 1;
					if (ghost[m]) { // a ghost's own target is never read for an owned agent
						load[m].target_agent = THRONG_NO_AGENT;
						++out.ghosts;
					}
					++m;
				}
			}
			out.most_owned = owned > out.most_owned ? owned : out.most_owned;
			owned_total += owned;
			cr_assert_eq(thr_part_load(p[r], load, ghost, m, whole->step), THRONG_OK, "%s", throng_last_error());
			const throng_world_stats was = throng_world_get_stats(p[r]);
			cr_assert_eq(throng_world_step(p[r]), THRONG_OK, "%s", throng_last_error());
			add_stats(&sum, &was, throng_world_get_stats(p[r]));
			for (uint32_t id = 0; id < n; ++id) {
				if (in[id] == 1) {
					thr_agent_record_get(p[r], p[r]->slot_of[id], &next[id]);
				}
			}
		}
		cr_assert_eq(owned_total, n, "step %u: the parts own %u of %u agents", s, owned_total, n);
		memcpy(rec, next, n * sizeof *rec);
		cr_assert_eq(throng_world_step(whole), THRONG_OK, "%s", throng_last_error());
		records_by_id(whole, want);
		throng_world_stats delta;
		memset(&delta, 0, sizeof delta);
		add_stats(&delta, &whole_was, throng_world_get_stats(whole));
		check_stats(&sum, &delta, &start, s);
		for (uint32_t id = 0; id < n; ++id) {
			cr_assert(memcmp(&rec[id], &want[id], sizeof want[id]) == 0,
			          "step %u, agent %u (part %u of %u): part (%a, %a) v (%a, %a), whole (%a, %a) v (%a, %a)", s,
			          id, owner[id], parts, (double)rec[id].px, (double)rec[id].py, (double)rec[id].vx,
			          (double)rec[id].vy, (double)want[id].px, (double)want[id].py, (double)want[id].vx,
			          (double)want[id].vy);
		}
	}
	for (uint32_t r = 0; r < parts; ++r) {
		throng_world_destroy(p[r]);
	}
	free(p);
	free(ghost);
	free(in);
	free(before);
	free(owner);
	free(row);
	free(next);
	free(load);
	free(want);
	free(rec);
	return out;
}

static split_run run_split(throng_world* whole, uint32_t parts, uint32_t steps, uint32_t threads)
{
	return run_split_sized(whole, parts, steps, threads, throng_world_get_def(whole).capacity);
}

/// The scene `name` with `agents` agents on `engine`, without contacts and
/// target rules, stepped `warm` times so that it moves.
static throng_scene* scene_for_parts(const char* name, uint32_t agents, throng_engine engine, uint32_t warm)
{
	throng_scene* s = thr_test_scene(name, agents, engine);
	throng_world* w = throng_scene_world(s);
	without_contacts_and_rules(w);
	for (uint32_t k = 0; k < warm; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	return s;
}

static void check_scene(const char* name, uint32_t agents, throng_engine engine, uint32_t parts, uint32_t threads)
{
	throng_scene* s = scene_for_parts(name, agents, engine, 5);
	const split_run r = run_split(throng_scene_world(s), parts, 12, threads);
	cr_assert_gt(r.ghosts, 0u, "%s: no ghost was ever loaded", name);
	cr_assert_lt(r.most_owned, agents, "%s: one part owned every agent", name);
	throng_scene_destroy(s);
}

Test(part, field_in_two_three_and_four_strips_steps_as_the_whole)
{
	for (uint32_t parts = 2; parts <= 4; ++parts) {
		check_scene("field", 4000, THRONG_ENGINE_SIMD, parts, 1);
	}
}

Test(part, scalar_reference_in_strips_steps_as_the_whole)
{
	check_scene("field", 3000, THRONG_ENGINE_SCALAR, 3, 1);
	check_scene("crossing", 2000, THRONG_ENGINE_SCALAR, 2, 1);
}

Test(part, walls_paths_and_two_flows)
{
	check_scene("crossing", 3000, THRONG_ENGINE_SIMD, 3, 1);
	check_scene("bottleneck", 2000, THRONG_ENGINE_SIMD, 2, 1);
	check_scene("hallway", 2000, THRONG_ENGINE_SIMD, 3, 1);
}

Test(part, parts_on_two_threads_step_as_the_whole)
{
	// 20,000 agents, so that a part's parallel regions really run (above
	// THR_PARALLEL_MIN_AGENTS).
	check_scene("field", 20000, THRONG_ENGINE_SIMD, 2, 2);
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

Test(part, a_pursued_agent_beyond_the_halo_is_loaded_with_its_pursuer)
{
	// armies without its target rules: each agent of the first half
	// pursues an agent of the second, chosen far away by id.
	throng_scene* s = scene_for_parts("armies", 2000, THRONG_ENGINE_SIMD, 0);
	throng_world* w = throng_scene_world(s);
	const uint32_t n = throng_world_agent_count(w);
	for (uint32_t id = 0; id < n / 2; ++id) {
		cr_assert_eq(throng_world_set_target_agent(w, id, n - 1 - id), THRONG_OK);
	}
	for (uint32_t k = 0; k < 3; ++k) {
		cr_assert_eq(throng_world_step(w), THRONG_OK);
	}
	const split_run r = run_split(w, 3, 12, 1);
	cr_assert_gt(r.far_targets, 0u, "no target lay beyond the halo");
	throng_scene_destroy(s);
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
	c.contact.enabled = false;
	const throng_behavior_kind kinds[3] = {THRONG_SEPARATION, THRONG_ALIGNMENT, THRONG_COHESION};
	for (int k = 0; k < 3; ++k) {
		throng_slot slot = throng_slot_default_def(kinds[k]);
		slot.params.neighbor_radius = 4.0f;
		throng_controller_add(&c, slot);
	}
	throng_controller_add(&c, throng_slot_default_def(THRONG_WANDER));
	cr_assert_eq(throng_world_add_archetype(whole, &c, NULL), THRONG_OK);
	uint64_t rng = 7;
	for (uint32_t k = 0; k < n; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(&rng, -40.0f, 40.0f), thr_test_uniform(&rng, -40.0f, 40.0f)};
		a.velocity = (throng_vec2){thr_test_uniform(&rng, -0.9f, 0.9f), thr_test_uniform(&rng, -0.9f, 0.9f)};
		cr_assert_eq(throng_world_spawn(whole, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	const thr_part_rows rows = thr_part_rows_of(whole);
	cr_assert_gt(rows.cell, 4.0f, "the whole world's cells did not widen (%g m)", (double)rows.cell);
	const split_run r = run_split_sized(whole, 2, 10, 1, n * 3 / 4);
	cr_assert_gt(r.ghosts, 0u);
	cr_assert_lt(r.most_owned, n * 3 / 4);
	throng_world_destroy(whole);
}

/// A part of a small world of `n` agents in a line, and their records.
static throng_world* small_part(throng_world** whole, uint32_t n, thr_agent_record* rec)
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
	thr_agent_record rec[4], bad[4];
	throng_world* p = small_part(&whole, 4, rec);
	const thr_agent_record keep[2] = {rec[1], rec[3]};
	cr_assert_eq(thr_part_load(p, keep, NULL, 2, 0), THRONG_OK, "%s", throng_last_error());
	const uint64_t hash = throng_world_hash(p);

	memcpy(bad, rec, sizeof bad);
	bad[2].id = 1; // not increasing
	cr_assert_eq(thr_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "record 2 (id 1): id") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[3].id = 4; // outside the id space
	cr_assert_eq(thr_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	memcpy(bad, rec, sizeof bad);
	bad[0].target_agent = 2; // not loaded
	cr_assert_eq(thr_part_load(p, bad, NULL, 2, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "target_agent") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[1].radius = 2.0f * rec[1].radius; // above the whole world's largest
	cr_assert_eq(thr_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "radius") != NULL, "%s", throng_last_error());
	memcpy(bad, rec, sizeof bad);
	bad[1].archetype = 1;
	cr_assert_eq(thr_part_load(p, bad, NULL, 4, 0), THRONG_ERR_INVALID_ARGUMENT);
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

Test(part, solid_contacts_and_target_rules_are_refused_until_parts_run_them)
{
	throng_world* whole = NULL;
	thr_agent_record rec[3];
	throng_world* p = small_part(&whole, 3, rec);
	throng_controller c;
	cr_assert_eq(throng_world_get_controller(p, 0, &c), THRONG_OK);
	c.contact.enabled = true;
	cr_assert_eq(throng_world_set_controller(p, 0, &c), THRONG_OK);
	cr_assert_eq(thr_part_load(p, rec, NULL, 3, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "contact") != NULL, "%s", throng_last_error());
	c.contact.enabled = false;
	c.target_rule.enabled = true;
	c.target_rule.sight_radius = 5.0f;
	c.target_rule.every = 1;
	cr_assert_eq(throng_world_set_controller(p, 0, &c), THRONG_OK);
	cr_assert_eq(thr_part_load(p, rec, NULL, 3, 0), THRONG_ERR_UNSUPPORTED);
	cr_assert(strstr(throng_last_error(), "target_rule") != NULL, "%s", throng_last_error());
	throng_world_destroy(p);
	throng_world_destroy(whole);
}
