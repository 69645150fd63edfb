// SPDX-License-Identifier: MIT
// The walkers and block layouts of the pedestrian scenarios: hallway,
// crossing and bottleneck walk as the calibrated pedestrian
// (throng_controller_pedestrian_def, thr_crowd_pedestrian). The hybrid
// walker they had before issue 32 (separation, unaligned avoidance, radius
// 0.3 m) lives on in tests/test_anticipation.c's corridor runs and as the
// validation's `walker` (tests/validation/pedestrians.py).
#include "scenario_crowd.h"

#include <math.h>

#include "rng.h"

throng_agent_def thr_crowd_pedestrian(throng_vec2 position, throng_vec2 target, throng_vec2 heading, uint32_t archetype)
{
	throng_agent_def body = throng_agent_pedestrian_def();
	body.position = position;
	body.target = target;
	body.heading = heading;
	body.archetype = archetype;
	return body;
}

throng_vec2 thr_crowd_at(throng_vec2 u, throng_vec2 v, float along, float side)
{
	return (throng_vec2){along * u.x + side * v.x, along * u.y + side * v.y};
}

void thr_crowd_goal_place(uint32_t k, uint32_t columns, uint32_t rows, float spacing, float* beyond, float* across)
{
	uint32_t col = k % columns, row = k / columns;
	*beyond = ((float)(rows - 1u - row) + 0.5f) * spacing;
	*across = ((float)col + 0.5f - 0.5f * (float)columns) * spacing;
}

void thr_crowd_block(uint32_t n, float aspect, uint32_t* columns, uint32_t* rows)
{
	double c = ceil(sqrt((double)n / (double)aspect));
	uint32_t cols = c < 1.0 ? 1u : (uint32_t)c;
	*columns = cols;
	*rows = (n + cols - 1u) / cols;
}

void thr_crowd_slot(uint32_t key, uint32_t id, uint32_t k, uint32_t columns, float spacing, float* lateral,
                    float* depth)
{
	float jx = thr_bits_to_pm1(thr_rng_bits(key, id, 0, THR_STREAM_SPAWN)) * THR_CROWD_JITTER;
	float jy = thr_bits_to_pm1(thr_rng_bits(key, id, 1, THR_STREAM_SPAWN)) * THR_CROWD_JITTER;
	*lateral = ((float)(k % columns) + 0.5f) * spacing + jx;
	*depth = ((float)(k / columns) + 0.5f) * spacing + jy;
}
