// SPDX-License-Identifier: MIT
// Helpers shared by the pedestrian scenarios crossing, bottleneck and
// hallway (private): the pedestrian's body and the block layouts (armies
// uses the layouts too). All three walk as the calibrated pedestrian
// (throng_controller_pedestrian_def).
//
// A block is a rectangle of agents on a square lattice: `columns` across
// the direction of travel, `rows` along it, row 0 in front. Each agent is
// nudged off its lattice point by up to THR_CROWD_JITTER in both axes, from
// the counter-based spawn stream, so that no two agents start on exactly
// symmetric courses (perfect symmetry is rare in a real crowd and would
// make avoidance choices hinge on the last bit of a float).
#ifndef THRONG_CORE_SCENARIO_CROWD_H
#define THRONG_CORE_SCENARIO_CROWD_H

#include <stdint.h>

#include "throng/throng.h"

#define THR_CROWD_JITTER 0.15f   ///< m: largest nudge off a lattice point, per axis

/// A calibrated pedestrian of hallway, crossing and bottleneck (issue 32): the body of
/// throng_agent_pedestrian_def() (1.34 m/s, 8 m/s^2, radius 0.17 m), for an
/// archetype of throng_controller_pedestrian_def().
throng_agent_def thr_crowd_pedestrian(throng_vec2 position, throng_vec2 target, throng_vec2 heading, uint32_t archetype);

/// The point `along` metres along the unit direction u and `side` metres
/// along the unit direction v (a flow's frame: u its travel, v across it).
throng_vec2 thr_crowd_at(throng_vec2 u, throng_vec2 v, float along, float side);

/// Place k of a columns x rows lattice of goals `spacing` apart, unjittered
/// and filled row by row with the rows reversed (row 0 farthest, so nobody
/// passes someone who already stopped): *beyond is its distance past the
/// lattice's near edge, *across its offset from the lattice's centre line,
/// growing with the column (crossing, hallway).
void thr_crowd_goal_place(uint32_t k, uint32_t columns, uint32_t rows, float spacing, float* beyond, float* across);

/// The smallest columns x rows block of about `aspect` rows per column
/// (rows / columns) that holds n agents: columns = ceil(sqrt(n / aspect)),
/// rows = ceil(n / columns).
void thr_crowd_block(uint32_t n, float aspect, uint32_t* columns, uint32_t* rows);

/// Agent k of a block (k = row * columns + column): its lateral offset
/// (m, from the block's left edge, towards the right of the direction of
/// travel) and its depth (m, behind the block's front), lattice spacing
/// `spacing`, jittered by (key, id) of the spawn stream.
void thr_crowd_slot(uint32_t key, uint32_t id, uint32_t k, uint32_t columns, float spacing, float* lateral,
                    float* depth);

#endif
