// SPDX-License-Identifier: MIT
// What a step publishes for observers (thr_step_record,
// core/world_internal.h): the previous state in the current order, the
// reorder, what the contact stage did; and the metrics reading it.
#include <criterion/criterion.h>
#include <string.h>

#include "support.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/throng.h"
#include "world_internal.h"

Test(step_record, describes_the_last_step)
{
	for (int e = 0; e < 2; ++e) {
		const throng_engine engine = e == 0 ? THRONG_ENGINE_SIMD : THRONG_ENGINE_SCALAR;
		throng_scene* s = thr_test_scene("bottleneck", 300, engine);
		throng_world* w = throng_scene_world(s);
		for (int k = 0; k < 30; ++k) {
			// Before: positions by id.
			const thr_state* cur = thr_cur_c(w);
			float bx[300], by[300];
			cr_assert_leq(w->count, 300u);
			for (uint32_t i = 0; i < w->count; ++i) {
				bx[w->id[i]] = cur->px[i];
				by[w->id[i]] = cur->py[i];
			}
			const throng_world_stats before = throng_world_get_stats(w);
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
			const thr_step_record* r = &w->published;
			cr_assert_eq(r->step, w->step);
			cr_assert(r->previous != thr_cur_c(w), "the previous state is not the current one");
			for (uint32_t i = 0; i < w->count; ++i) {
				cr_assert_eq(r->previous->px[i], bx[w->id[i]], "slot %u: not the previous position in current order", i);
				cr_assert_eq(r->previous->py[i], by[w->id[i]]);
			}
			if (engine == THRONG_ENGINE_SCALAR) {
				cr_assert_null(r->reorder);
			} else {
				cr_assert_not_null(r->reorder);
			}
			const throng_world_stats after = throng_world_get_stats(w);
			cr_assert_eq(r->contact.contacts, after.contacts - before.contacts);
			cr_assert_eq(r->contact.iterations, after.contact_iterations - before.contact_iterations);
			cr_assert_eq(r->contact.shape_pushes, after.shape_pushes - before.shape_pushes);
			cr_assert_eq(r->contact.shape_reverts, after.shape_reverts - before.shape_reverts);
		}
		throng_scene_destroy(s);
	}
}

/// A thr_test_hook: rotates the record's reorder by one.
static void rotate_reorder(throng_world* w, throng_metrics* m, uint32_t step, void* user)
{
	(void)m;
	(void)step;
	(void)user;
	if (w->count > 1) {
		uint32_t* items = w->reorder;
		uint32_t first = items[0];
		memmove(items, items + 1, (w->count - 1u) * sizeof *items);
		items[w->count - 1u] = first;
	}
}

/// bottleneck's metrics over `steps` steps, the record's reorder rotated
/// by one before each observation when `rotate` (a permutation, not the
/// step's: the metrics must place their records by id instead).
static throng_quality observed(uint32_t steps, bool rotate)
{
	throng_scene* s = thr_test_scene("bottleneck", 300, THRONG_ENGINE_SIMD);
	throng_quality q = thr_test_hook_scene(s, steps, rotate ? rotate_reorder : NULL, NULL);
	throng_scene_destroy(s);
	return q;
}

Test(step_record, metrics_place_records_by_id_when_the_reorder_is_wrong)
{
	throng_quality a = observed(600, false);
	throng_quality b = observed(600, true);
	cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "jitter %.17g vs %.17g", a.jitter, b.jitter);
	cr_assert_gt(a.jitter, 0.0);
}
