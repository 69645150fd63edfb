// SPDX-License-Identifier: MIT
// The crowd-quality metrics (core/metrics.c, core/metrics_churn.c) on
// worlds whose agents come and go: removed and added through the API
// between steps (thr_test_churn), between a step and its observation, and
// taken out by a sink as a step ends. Each run is watched twice: by the
// metrics and by a brute-force watcher here that keeps every agent by id
// and scans every pair, straight from the definitions in docs/QUALITY.md.
// Counts must agree exactly, sums (taken in another order here) to 1e-9.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmath.h"
#include "support.h"
#include "throng/events.h"
#include "throng/metrics.h"
#include "throng/sources.h"
#include "throng/throng.h"

#define DT (1.0f / 60.0f)
#define HALF 20.0f
#define NEVER UINT32_MAX

/// What the brute-force watcher keeps of one id.
typedef struct watched {
	bool known, live;
	float x, y, hx, hy; ///< at the last state seen
	float sx, sy, gx, gy;
	uint32_t born, arrived;
	double walked, turn;
} watched;

typedef struct brute {
	watched* a;
	uint32_t cap;
	float goal_radius;
	uint32_t seen, left, left_arrived;
	uint64_t agent_steps, overlaps, oob;
	double deepest;
	float max_speed_ratio;
} brute;

static bool at_goal(const brute* b, float gx, float gy, float x, float y)
{
	const float dx = x - gx, dy = y - gy;
	return dx * dx + dy * dy <= b->goal_radius * b->goal_radius;
}

/// Takes every live agent the watcher does not know yet: it starts here,
/// at step `step` (since the metrics' creation), its goal its target now.
static void take_new(brute* b, const throng_world* w, uint32_t step)
{
	const uint32_t end = throng_world_id_end(w);
	if (end > b->cap) {
		b->a = realloc(b->a, end * sizeof *b->a);
		cr_assert_not_null(b->a);
		memset(b->a + b->cap, 0, (end - b->cap) * sizeof *b->a);
		b->cap = end;
	}
	const throng_view v = throng_world_view(w);
	for (uint32_t k = 0; k < v.count; ++k) {
		watched* a = &b->a[v.id[k]];
		if (a->known) {
			continue;
		}
		throng_agent_state s;
		cr_assert_eq(throng_world_get_agent(w, v.id[k], &s), THRONG_OK);
		*a = (watched){true, true, v.x[k], v.y[k], v.hx[k], v.hy[k], v.x[k], v.y[k], s.target.x, s.target.y, step,
		               NEVER, 0.0, 0.0};
		if (b->goal_radius > 0.0f && at_goal(b, a->gx, a->gy, a->sx, a->sy)) {
			a->arrived = step;
		}
		b->seen++;
	}
}

/// One observed state, step `step` since creation, every agent already
/// taken: those gone since the last state leave, the others move on.
static void observe(brute* b, const throng_world* w, uint32_t step)
{
	const throng_view v = throng_world_view(w);
	const throng_world_def d = throng_world_get_def(w);
	for (uint32_t id = 0; id < b->cap; ++id) {
		throng_agent_state s;
		if (b->a[id].live && throng_world_get_agent(w, id, &s) != THRONG_OK) {
			b->a[id].live = false;
			b->left++;
			b->left_arrived += b->a[id].arrived != NEVER ? 1u : 0u;
		}
	}
	for (uint32_t k = 0; k < v.count; ++k) {
		watched* a = &b->a[v.id[k]];
		cr_assert(a->known && a->live, "agent %u was not taken", v.id[k]);
		const float x = v.x[k], y = v.y[k];
		const float cross = a->hx * v.hy[k] - a->hy * v.hx[k];
		const float dot = a->hx * v.hx[k] + a->hy * v.hy[k];
		a->turn += fabs((double)thr_atan2f(cross, dot));
		if (b->goal_radius > 0.0f && a->arrived == NEVER) {
			const double dx = (double)x - (double)a->x, dy = (double)y - (double)a->y;
			a->walked += sqrt(dx * dx + dy * dy);
			a->arrived = at_goal(b, a->gx, a->gy, x, y) ? step : NEVER;
		}
		a->x = x;
		a->y = y;
		a->hx = v.hx[k];
		a->hy = v.hy[k];
		const float r = v.radius[k];
		b->oob += !(x >= d.bounds_min.x + r && x <= d.bounds_max.x - r && y >= d.bounds_min.y + r &&
		            y <= d.bounds_max.y - r);
		throng_agent_state s;
		cr_assert_eq(throng_world_get_agent(w, v.id[k], &s), THRONG_OK);
		const float ratio = sqrtf(v.vx[k] * v.vx[k] + v.vy[k] * v.vy[k]) / s.max_speed;
		b->max_speed_ratio = ratio > b->max_speed_ratio ? ratio : b->max_speed_ratio;
		for (uint32_t j = k + 1; j < v.count; ++j) {
			const float dx = v.x[j] - x, dy = v.y[j] - y, rr = v.radius[j] + r;
			const float d2 = dx * dx + dy * dy;
			if (d2 < rr * rr) {
				b->overlaps++;
				const double depth = 1.0 - sqrt((double)d2) / (double)rr;
				b->deepest = depth > b->deepest ? depth : b->deepest;
			}
		}
	}
	b->agent_steps += v.count;
}

/// Checks the metrics' figures against the watcher's.
static void check(const brute* b, const throng_quality* q, bool every_state, const char* tag)
{
	uint32_t reached = 0, ratios = 0;
	double time = 0.0, max_time = 0.0, ratio = 0.0, turn = 0.0;
	for (uint32_t id = 0; id < b->cap; ++id) {
		const watched* a = &b->a[id];
		if (!a->known) {
			continue;
		}
		turn += a->turn;
		if (a->arrived == NEVER) {
			continue;
		}
		reached++;
		const double t = (double)(a->arrived - a->born) * (double)DT;
		time += t;
		max_time = t > max_time ? t : max_time;
		const double dx = (double)a->gx - (double)a->sx, dy = (double)a->gy - (double)a->sy;
		const double straight = sqrt(dx * dx + dy * dy);
		if (straight > 2.0 * (double)b->goal_radius) {
			ratio += a->walked / (straight - (double)b->goal_radius);
			ratios++;
		}
	}
	cr_assert_eq(q->agents, b->seen, "%s: agents %u, by hand %u", tag, q->agents, b->seen);
	cr_assert_eq(q->agents_left, b->left, "%s: agents_left %u, by hand %u", tag, q->agents_left, b->left);
	cr_assert_eq(q->agent_steps, b->agent_steps, "%s: agent_steps", tag);
	cr_assert_eq(q->overlaps, b->overlaps, "%s: overlaps %llu, by hand %llu", tag, (unsigned long long)q->overlaps,
	             (unsigned long long)b->overlaps);
	cr_assert_float_eq(q->deepest_overlap, b->deepest, 1e-9, "%s: deepest", tag);
	cr_assert_eq(q->out_of_bounds, b->oob, "%s: out_of_bounds", tag);
	cr_assert_eq(q->goals, b->goal_radius > 0.0f ? b->seen : 0u, "%s: goals", tag);
	cr_assert_eq(q->reached, reached, "%s: reached %u, by hand %u", tag, q->reached, reached);
	cr_assert_float_eq(q->max_time_to_goal, max_time, 1e-12, "%s: max time", tag);
	cr_assert_float_eq(q->mean_time_to_goal, reached > 0 ? time / reached : 0.0, 1e-9, "%s: mean time", tag);
	const double r = ratios > 0 ? ratio / ratios : 0.0;
	cr_assert_float_eq(q->path_length_ratio, r, 1e-9 * r, "%s: ratio %.17g, by hand %.17g", tag, q->path_length_ratio,
	                   r);
	const double jitter = turn / ((double)b->agent_steps * (double)DT);
	cr_assert_float_eq(q->jitter, jitter, 1e-9 * jitter, "%s: jitter %.17g, by hand %.17g", tag, q->jitter, jitter);
	// The world's own running figure, over every state it stepped to: at
	// least the observed states' (the same when every agent of every state
	// was observed: no removal between a step and its observation).
	const double most = (double)b->max_speed_ratio;
	cr_assert_leq(most, q->max_speed_ratio * (1.0 + 1e-6), "%s: max_speed_ratio %.9g, by hand %.9g", tag,
	              q->max_speed_ratio, most);
	if (every_state) {
		cr_assert_float_eq(q->max_speed_ratio, most, 1e-6 * most, "%s: max_speed_ratio %.9g, by hand %.9g", tag,
		                   q->max_speed_ratio, most);
	}
}

/// A contained world of `agents` walkers seeking targets, separated, with
/// contacts, on `engine`.
static throng_world* walkers(throng_engine engine, uint32_t agents, uint64_t seed)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.dt = DT;
	d.threads = 1;
	d.bounds_min = (throng_vec2){-HALF, -HALF};
	d.bounds_max = (throng_vec2){HALF, HALF};
	d.bounds_mode = THRONG_BOUNDS_CONTAIN;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION)), 0);
	cr_assert_geq(throng_controller_add(&c, throng_slot_default_def(THRONG_ARRIVE)), 0);
	cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	uint64_t rng = seed;
	for (uint32_t k = 0; k < agents; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(&rng, -18.0f, 18.0f), thr_test_uniform(&rng, -18.0f, 18.0f)};
		a.target = (throng_vec2){thr_test_uniform(&rng, -15.0f, 15.0f), thr_test_uniform(&rng, -15.0f, 15.0f)};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

/// When a run changes its crowd.
typedef enum churn_at {
	CHURN_BEFORE_STEP, ///< between an observation and the next step
	CHURN_AFTER_STEP,  ///< between a step and its observation
} churn_at;

/// Runs w `steps` steps, churning `n` agents every `every` steps at `at`,
/// watched by the metrics and by hand; checks them against each other.
/// *left_arrived: agents that arrived and then left, by hand.
static throng_quality watch(throng_world* w, uint32_t steps, uint32_t every, uint32_t n, churn_at at, float goal_radius,
                            const char* tag, uint32_t* left_arrived)
{
	brute b;
	memset(&b, 0, sizeof b);
	b.goal_radius = goal_radius;
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, goal_radius, &m), THRONG_OK, "%s", throng_last_error());
	take_new(&b, w, 0);
	uint64_t rng = 11;
	for (uint32_t k = 1; k <= steps; ++k) {
		const bool due = every > 0 && k % every == 0;
		if (due && at == CHURN_BEFORE_STEP) {
			thr_test_churn(w, &rng, n);
			take_new(&b, w, k - 1u); // they start in the state the step starts from
		}
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
		if (due && at == CHURN_AFTER_STEP) {
			thr_test_churn(w, &rng, n);
		}
		take_new(&b, w, k); // added after the step: they start now
		observe(&b, w, k);
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s: step %u: %s", tag, k, throng_last_error());
	}
	throng_quality q = throng_metrics_result(m);
	const bool every_state = at == CHURN_BEFORE_STEP && throng_world_zone_count(w) == 0;
	check(&b, &q, every_state, tag);
	*left_arrived = b.left_arrived;
	throng_metrics_destroy(m);
	free(b.a);
	return q;
}

/// 300 walkers (seed) in both engines, `n` of them churned every `every`
/// steps at `at` over 240 steps, watched and checked by hand.
static void both_engines(uint64_t seed, uint32_t every, uint32_t n, churn_at at)
{
	static const throng_engine engines[2] = {THRONG_ENGINE_SIMD, THRONG_ENGINE_SCALAR};
	for (int e = 0; e < 2; ++e) {
		throng_world* w = walkers(engines[e], 300, seed);
		uint32_t left_arrived = 0;
		const throng_quality q = watch(w, 240, every, n, at, 1.0f, throng_engine_name(engines[e]), &left_arrived);
		cr_assert_gt(left_arrived, 0u, "an agent that arrived and then left is among the reached");
		cr_assert_gt(q.overlaps, 0u, "the overlap figures are exercised (spawns land on others)");
		cr_assert_gt(q.agents, 300u);
		const throng_world_stats st = throng_world_get_stats(w);
		cr_assert_gt(q.agents_left, 0u);
		cr_assert_eq(q.agents_left, st.agents_removed, "every agent removed was watched");
		throng_world_destroy(w);
	}
}

Test(churn, removed_and_added_between_steps_as_by_hand)
{
	both_engines(5, 7, 12, CHURN_BEFORE_STEP);
}

Test(churn, removed_and_added_between_a_step_and_its_observation_as_by_hand)
{
	// The step record keeps describing the survivors after a removal
	// (their previous state moved with them), and agents added after the
	// step start in the current state: no path, no turn yet.
	both_engines(6, 5, 9, CHURN_AFTER_STEP);
}

Test(churn, a_source_and_a_sink_as_by_hand)
{
	// Every walker heads for the origin, where a sink of 0.5 m takes it out
	// as the step it enters ends; the goal radius, 1.5 m, is met first, in
	// an observed state, so each one the sink took has arrived. A source
	// by the west wall adds 20 walkers a second after each step's sinks:
	// they start in the state observed.
	throng_world* w = walkers(THRONG_ENGINE_SIMD, 0, 1);
	uint64_t rng = 3;
	for (uint32_t k = 0; k < 200; ++k) {
		throng_agent_def a = throng_agent_default_def();
		a.position = (throng_vec2){thr_test_uniform(&rng, -18.0f, 18.0f), thr_test_uniform(&rng, -18.0f, 18.0f)};
		a.target = (throng_vec2){0.0f, 0.0f};
		cr_assert_eq(throng_world_spawn(w, &a, 1, NULL), THRONG_OK, "%s", throng_last_error());
	}
	throng_zone_def z = throng_zone_default_def();
	z.radius = 0.5f;
	z.sink = true;
	cr_assert_eq(throng_world_add_zone(w, &z, NULL), THRONG_OK, "%s", throng_last_error());
	throng_source_def src = throng_source_default_def();
	src.min = (throng_vec2){-19.0f, -15.0f};
	src.max = (throng_vec2){-16.0f, 15.0f};
	src.rate = 20.0f;
	src.agent.target = (throng_vec2){0.0f, 0.0f};
	cr_assert_eq(throng_world_add_source(w, &src, NULL), THRONG_OK, "%s", throng_last_error());
	uint32_t left_arrived = 0;
	const throng_quality q = watch(w, 900, 0, 0, CHURN_BEFORE_STEP, 1.5f, "sink", &left_arrived);
	const throng_world_stats st = throng_world_get_stats(w);
	cr_assert_gt(st.agents_removed, 0u);
	cr_assert_eq(q.agents_left, st.agents_removed);
	cr_assert_gt(q.agents, 400u, "the source added some 300 walkers in 15 s");
	cr_assert_eq(q.agents, st.agents_added, "every agent added was watched (the 200 spawned first included)");
	cr_assert_eq(left_arrived, q.agents_left, "every walker the sink took had arrived");
	cr_assert_geq(q.reached, q.agents_left);
	throng_world_destroy(w);
}

Test(churn, metrics_made_after_churn_watch_the_live_agents)
{
	// A world whose ids have holes and run past its count when the metrics
	// are made: they watch the live agents, by id.
	throng_world* w = walkers(THRONG_ENGINE_SIMD, 50, 8);
	uint64_t rng = 21;
	for (int k = 0; k < 4; ++k) {
		thr_test_churn(w, &rng, 6);
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
	cr_assert_gt(throng_world_id_end(w), throng_world_agent_count(w));
	uint32_t left_arrived = 0;
	const throng_quality q = watch(w, 60, 0, 0, CHURN_BEFORE_STEP, 0.0f, "late", &left_arrived);
	cr_assert_eq(q.agents, 50u);
	cr_assert_eq(q.goals, 0u);
	throng_world_destroy(w);
}

/// The figures of `field` at 6,000 agents (above the 4,096 where observing
/// runs in parallel) on `threads` threads, 60 agents churned before every
/// step, half of the steps observed twice (a churn between the two).
static throng_quality field_churned(uint32_t threads)
{
	throng_scene* s = thr_test_scene_threads("field", 6000, 1, THRONG_ENGINE_SIMD, threads);
	throng_world* w = throng_scene_world(s);
	throng_metrics* m = NULL;
	cr_assert_eq(throng_metrics_create(w, throng_scene_goal_radius(s), &m), THRONG_OK, "%s", throng_last_error());
	uint64_t rng = 17;
	for (uint32_t k = 0; k < 30; ++k) {
		thr_test_churn(w, &rng, 60);
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "%s", throng_last_error());
		if (k % 2 == 0) {
			thr_test_churn(w, &rng, 60);
			cr_assert_eq(throng_metrics_observe(m, w), THRONG_OK, "again: %s", throng_last_error());
		}
	}
	const throng_quality q = throng_metrics_result(m);
	throng_metrics_destroy(m);
	throng_scene_destroy(s);
	return q;
}

Test(churn, every_thread_count_gives_the_same_figures)
{
	static const uint32_t threads[] = {1, 2, 3};
	const throng_quality a = field_churned(threads[0]);
	cr_assert_gt(a.agents_left, 0u);
	cr_assert_gt(a.overlaps, 0u);
	cr_assert_eq(a.steps, 45u, "30 steps, 15 of them observed again");
	for (int t = 1; t < 3; ++t) {
		const throng_quality b = field_churned(threads[t]);
		cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "%u threads: jitter %.17g vs %.17g, overlaps %llu vs %llu", threads[t],
		             b.jitter, a.jitter, (unsigned long long)b.overlaps, (unsigned long long)a.overlaps);
	}
}
