// SPDX-License-Identifier: MIT
// A stream of soldiers that rout (see test_viewer_rout.h).
#include "test_viewer_rout.h"

#include "throng/export.h"

throng_vec2 rout_position(uint32_t k, float half)
{
	return (throng_vec2){(k % 2u == 0 ? -0.4f : 0.4f) * half, (k < 2u ? 0.4f : -0.4f) * half};
}

throng_status write_rout_stream(const char* path, float half, bool routs)
{
	throng_export_def def = throng_export_default_def();
	def.fields = THRONG_FIELDS_DEFAULT | THRONG_FIELD_GROUP | THRONG_FIELD_ARCHETYPE | THRONG_FIELD_COMBAT_STATE;
	def.agents = ROUT_AGENTS;
	def.dt = 0.05f;
	def.bounds_min = (throng_vec2){-half, -half};
	def.bounds_max = (throng_vec2){half, half};
	throng_exporter* ex = NULL;
	throng_status st = throng_exporter_create(path, &def, &ex);
	if (st != THRONG_OK) {
		return st;
	}
	uint32_t id[ROUT_AGENTS], group[ROUT_AGENTS], archetype[ROUT_AGENTS], state[ROUT_AGENTS];
	float x[ROUT_AGENTS], y[ROUT_AGENTS], zero[ROUT_AGENTS], one[ROUT_AGENTS];
	for (uint32_t k = 0; k < ROUT_AGENTS; ++k) {
		throng_vec2 p = rout_position(k, half);
		id[k] = k;
		group[k] = k < 2u ? 0u : 7u;
		archetype[k] = k < 2u ? 0u : 5u;
		x[k] = p.x;
		y[k] = p.y;
		zero[k] = 0.0f;
		one[k] = 1.0f;
	}
	throng_view v = {ROUT_AGENTS, 0, id, x, y, zero, zero, one, zero, one, group, archetype, zero, state};
	for (uint64_t step = 0; step < 2u && st == THRONG_OK; ++step) {
		for (uint32_t k = 0; k < ROUT_AGENTS; ++k) {
			const bool router = routs && step == 1u && k % 2u == 1u;
			state[k] = (router ? THRONG_COMBAT_ROUTING : 0u) | (step == 0u && k == 0u ? THRONG_COMBAT_STRUCK : 0u) |
			           (router && k == 1u ? THRONG_COMBAT_HIT : 0u);
		}
		v.step = step;
		st = throng_exporter_write_view(ex, &v);
	}
	if (st == THRONG_OK) {
		st = throng_exporter_finish(ex);
	}
	throng_exporter_destroy(ex);
	return st;
}
