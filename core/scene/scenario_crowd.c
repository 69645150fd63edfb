// SPDX-License-Identifier: MIT
// The walkers and block layouts of the pedestrian scenarios: hallway and
// crossing walk as the calibrated pedestrian (throng_controller_pedestrian_def,
// thr_crowd_pedestrian), bottleneck still as the walker of thr_crowd_controller
// and thr_crowd_walker.
#include "scenario_crowd.h"

#include <math.h>

#include "rng.h"

throng_controller thr_crowd_controller(bool walls, thr_crowd_goal goal, float slow_radius, float separation_weight)
{
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	if (walls) {
		// Three feelers 1.5 m ahead (1.15 s at a walk), the side ones at
		// 45 degrees and half as long: a walker turns before a wall, not
		// at it.
		throng_slot s = throng_slot_default_def(THRONG_WALL_AVOID);
		s.priority = true;
		// Weight 3: walls are steering cues, not solid, and a crowd pressing
		// towards a door pushed walkers round its posts and through the
		// wall at weight 1 (bottleneck, 400 agents: 51 crossings outside
		// the door; none at 3).
		s.weight = 3.0f;
		s.params.look_ahead = 1.5f;
		s.params.feeler_angle = 0.7853982f;
		throng_controller_add(&c, s);
	}
	// Separation: personal space 1 m (bodies touch at 0.6 m). (Since issue
	// 32 only bottleneck uses this controller: hallway and crossing walk as
	// the calibrated pedestrian; the weights of those two below are history.)
	// The push,
	// weight * 1.3 m/s * (1 - d/1 m), per neighbour within 1 m. Since the
	// contact pass keeps bodies apart, separation only keeps the walkers a
	// little apart before they touch: weight 3 (hallway), 4 (crossing) or 6
	// (bottleneck: the crush at the door shudders less than at 4, jitter
	// 0.71 to 0.74 rad/s against 0.84 to 0.88 at 1,000 agents) fills the
	// force budget (4) only when pressed by several neighbours (one alone
	// would have to be closer than contact). Before
	// the contact pass, crossing used 16, which fills the whole budget once
	// a single neighbour is closer than 0.81 m, to hold bodies apart by
	// steering alone; with the goal starved by it (below), walkers caught
	// in a crossing flow were carried along.
	// docs/QUALITY.md has the figures.
	throng_slot sep = throng_slot_default_def(THRONG_SEPARATION);
	sep.priority = true;
	sep.weight = separation_weight;
	sep.params.neighbor_radius = 1.0f;
	throng_controller_add(&c, sep);
	// Unaligned avoidance: 1.5 s ahead; a predicted miss closer than
	// 0.8 m (contact plus 0.2 m) triggers. Two walkers closing head-on
	// at 2.6 m/s cover 3.9 m in 1.5 s, so neighbours within 4 m suffice.
	// Weight 2: a side-step of up to 2.6 m/s^2 per threat.
	throng_slot avoid = throng_slot_default_def(THRONG_UNALIGNED_AVOID);
	avoid.priority = true;
	avoid.weight = 2.0f;
	avoid.params.max_prediction = 1.5f;
	avoid.params.avoid_radius = 0.8f;
	avoid.params.neighbor_radius = 4.0f;
	throng_controller_add(&c, avoid);
	throng_slot to;
	if (goal == THR_CROWD_PATH) {
		to = throng_slot_default_def(THRONG_PATH_FOLLOW);
	} else {
		to = throng_slot_default_def(THRONG_ARRIVE);
		to.params.target = THRONG_TARGET_POINT;
	}
	to.params.slow_radius = slow_radius;
	// The goal gets what the priority slots left of the budget. At half
	// weight (before the contact pass, so that a walker in a jam waited
	// rather than shoved into overlap) it could pull with at most half of
	// it, and a walker whose budget went to separation and avoidance from a
	// crossing flow had no pull left towards its goal: in `crossing` the
	// last walkers were carried 33 m sideways by the perpendicular flow
	// (last arrival 119.8 s at 1,000 agents); in `hallway` one walker of
	// seed 2, caught at a wall by the oncoming flow, was carried 50 m
	// backwards and never arrived; in `bottleneck` walkers pressed by the
	// crowd drifted along the door wall away from the door (at 1,000
	// agents, seeds 1 to 8, the room emptied after 106.5 to 107.9 s and 4
	// to 11 walkers were not at their goals after 120 s; at full weight,
	// 88.5 to 90.3 s and none). Solid contacts now stop the shoving into
	// overlap: full weight.
	to.weight = THR_CROWD_GOAL_WEIGHT;
	throng_controller_add(&c, to);
	return c;
}

/// `body` placed at `position`, facing `heading`, towards `target`, of
/// `archetype`.
static throng_agent_def placed(throng_agent_def body, throng_vec2 position, throng_vec2 target, throng_vec2 heading,
                               uint32_t archetype)
{
	body.position = position;
	body.target = target;
	body.heading = heading;
	body.archetype = archetype;
	return body;
}

throng_agent_def thr_crowd_walker(throng_vec2 position, throng_vec2 target, throng_vec2 heading, uint32_t archetype)
{
	throng_agent_def def = throng_agent_default_def();
	def.max_speed = THR_CROWD_SPEED;
	def.max_force = THR_CROWD_FORCE;
	def.radius = THR_CROWD_RADIUS;
	return placed(def, position, target, heading, archetype);
}

throng_agent_def thr_crowd_pedestrian(throng_vec2 position, throng_vec2 target, throng_vec2 heading, uint32_t archetype)
{
	return placed(throng_agent_pedestrian_def(), position, target, heading, archetype);
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
