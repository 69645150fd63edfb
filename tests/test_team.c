// SPDX-License-Identifier: MIT
// The team governor (core/team.h): the decisions it takes from step times
// (made up here, so the tests do not depend on this machine's load), and
// a real world that adapts without a bit of difference.
#include <criterion/criterion.h>

#include "support.h"
#include "team.h"
#include "throng/scenario.h"
#include "throng/throng.h"
#include "world_internal.h"

/// Runs `steps` steps of a governor for 2 threads where one thread takes
/// `one` ns per agent-step and two take `two`; returns the steps that ran
/// on one thread.
static uint32_t drive(thr_team* t, uint32_t steps, float one, float two)
{
	uint32_t ones = 0;
	for (uint32_t s = 0; s < steps; ++s) {
		const uint32_t team = thr_team_pick(t);
		ones += team == 1;
		thr_team_record(t, team, team == 1 ? one : two);
	}
	return ones;
}

Test(team, a_quiet_machine_keeps_every_thread_and_probes_ever_more_rarely)
{
	// Two threads twice as fast: the probes of one thread come after 4, 8,
	// 16, ..., 512 steps (1,028 steps with them), then every 1,024: 16 in
	// 10,000 steps.
	thr_team t;
	thr_team_init(&t, 2);
	cr_assert_eq(thr_team_pick(&t), 2u);
	const uint32_t ones = drive(&t, 10000, 100.0f, 50.0f);
	cr_assert_eq(t.current, 2u);
	cr_assert_eq(ones, 16u, "%u one-thread steps", ones);
	cr_assert_eq(t.gap, THR_TEAM_GAP_MOST);
}

Test(team, a_busy_machine_falls_back_to_one_thread_and_comes_back)
{
	// Two threads ten times slower than one (a thread waiting for its
	// vCPU at every barrier): after the first probe (step 5) the world
	// runs on one thread, probing two ever more rarely. Quiet again, the
	// next probe of two threads wins and the world takes them back.
	thr_team t;
	thr_team_init(&t, 2);
	const uint32_t ones = drive(&t, 5000, 100.0f, 1000.0f);
	cr_assert_eq(t.current, 1u);
	// Against one thread all along, it lost the 4 first steps and 11
	// probes (after 4, 8, ..., 1024, 1024, 1024 steps).
	cr_assert_eq(ones, 5000u - 4u - 11u, "%u of 5000 steps on one thread", ones);
	const uint32_t back = drive(&t, 2048, 100.0f, 50.0f);
	cr_assert_eq(t.current, 2u, "quiet again, still on one thread");
	cr_assert_lt(back, 1100u);
}

Test(team, small_differences_and_bad_times_change_nothing)
{
	// One thread 5 % faster: within the 10 % margin, the team stays.
	thr_team t;
	thr_team_init(&t, 4);
	drive(&t, 3000, 95.0f, 100.0f);
	cr_assert_eq(t.current, 4u);
	// NaN, zero, negative and infinite times are ignored.
	thr_team u;
	thr_team_init(&u, 2);
	for (int s = 0; s < 100; ++s) {
		const float bad[4] = {0.0f / 0.0f, 0.0f, -5.0f, 1.0f / 0.0f};
		thr_team_record(&u, thr_team_pick(&u), bad[s % 4]);
	}
	cr_assert_eq(u.current, 2u);
	cr_assert_eq(u.mean[0], 0.0f);
	cr_assert_eq(u.mean[1], 0.0f);
	// One thread asked for: always one.
	thr_team_init(&u, 1);
	cr_assert_eq(drive(&u, 100, 1.0f, 1000.0f), 100u);
}

Test(team, an_adapting_world_gives_the_fixed_worlds_bits)
{
	// field at 6,000 agents (above the parallel threshold), 2 threads:
	// adapting or fixed, same hash after 120 steps, and the adapting world
	// reports its teams.
	uint64_t h[2];
	for (int k = 0; k < 2; ++k) {
		throng_scene_def o = throng_scene_default_def();
		o.agents = 6000;
		o.threads = 2;
		o.threads_policy = k == 0 ? THRONG_THREADS_FIXED : THRONG_THREADS_ADAPT;
		throng_scene* s = NULL;
		cr_assert_eq(throng_scene_create("field", &o, &s), THRONG_OK, "%s", throng_last_error());
		for (int step = 0; step < 120; ++step) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK);
		}
		const throng_world* w = throng_scene_world(s);
		throng_world_stats st = throng_world_get_stats(w);
		cr_assert(st.threads_last == 1 || st.threads_last == 2);
		if (k == 0) {
			cr_assert_eq(st.steps_one_thread, 0u);
			cr_assert_eq(st.threads_last, 2u);
		} else {
			cr_assert_geq(st.steps_one_thread, 1u, "the governor probes one thread within 5 steps");
		}
		h[k] = throng_world_hash(w);
		throng_scene_destroy(s);
	}
	cr_assert_eq(h[0], h[1]);
}

Test(team, the_policy_is_checked_and_named)
{
	throng_world_def d = throng_world_default_def();
	cr_assert_eq(d.threads_policy, THRONG_THREADS_ADAPT);
	d.threads_policy = (throng_threads_policy)7;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert(strstr(throng_last_error(), "threads_policy") != NULL, "%s", throng_last_error());
	cr_assert_str_eq(throng_threads_policy_name(THRONG_THREADS_FIXED), "fixed");
	throng_threads_policy p = THRONG_THREADS_FIXED;
	cr_assert(throng_threads_policy_from_name("adapt", &p));
	cr_assert_eq(p, THRONG_THREADS_ADAPT);
	cr_assert(!throng_threads_policy_from_name("Adapt", &p));
}
