// SPDX-License-Identifier: MIT
// Float operations and bytes of one agent-step, counted from the code.
//
// A flop here is one IEEE binary32 add, sub, mul, div or sqrt on one value
// (one lane of a wide op, or one scalar op). Compares, selects, min/max,
// abs/neg, bit and int ops, conversions and loads are not flops. Both
// engines perform the same operations per agent (they give the same bits);
// they differ in what is skipped: the scalar reference skips a neighbour or
// a shape that fails a test, the SIMD engine evaluates a whole vector of 8
// lanes whenever one lane needs it and computes both sides of every select.
// census.c replays each engine's loops over a world's state to count how
// often each group below runs; these constants say what one run costs.
//
// Counting conventions for the 2D helpers (core/vec.h, simd/wvec.h):
//   add/sub 2, scale 2 (mul), dot 3 (2 mul + add), length 4 (dot + sqrt),
//   normalize 6 (length + 2 div), limit 7 (length + div + 2 mul, both
//   sides of the select counted), perp 0 (neg), select 0, isfinite 2 (x-x).
//   steer_toward(d) = limit(d - v, max_force) = 2 + 7 = 9
//   seek(t) = normalize(t - p) * max_speed then steer = 2 + 6 + 2 + 9 = 19
//   sincos (fmath.c, wmath.h): k 3 (mul + round's add, sub), r 6 (3 mul,
//   3 sub), z 1, sin poly 7, cos poly 9 = 26
//   atan2 (fmath.c, wmath.h): div 1, both sides of the reduction 3, z 1,
//   poly 9 + base 1, the two quadrant subs 2 = 17
//   wrap_angle: mul, round (add, sub), mul, sub = 5
// The names below give where each sequence is in simd/ (the scalar twin in
// core/behaviors.c has the same operations).
#ifndef THRONG_BENCH_COST_H
#define THRONG_BENCH_COST_H

#include <stdint.h>

#include "throng/behavior.h"

/// Per agent, per slot of each kind that does not walk neighbours or
/// shapes (agents.c); index by throng_behavior_kind, 0 for the others.
/// seek 19; flee (always) 2 + 8 + 9 = 19, panic +4 (distance) = 23, safe
/// 2 + 4 + 3 + 8 + 9 = 26 (see bench_cost_slot_fixed); arrive: to 2,
/// length 4, ratio 1, speed 1, normalize 6, scale 2, steer 9 = 25;
/// pursuit: distance 6, time 1, predicted point 4, seek 19 = 30; evade:
/// distance 6, time 1, point 4, speed 3, normalize 8, scale 2, steer 9 =
/// 33; wander (local frame): draw 3, angle 3, wrap 5, ahead 4, atan2 17,
/// theta 1, sincos 26, target 4, seek 19 = 82 (world frame: no atan2 nor
/// theta, speed test 4: 68); wander_noise: phase 2, x 2, noise1 17 (floor
/// 3, frac 1, two draws 6, smoothstep 4, lerp 3), angle 3, wrap 5, sincos
/// 26, scale 2, steer 9 = 66; bounds (contained world): shrunk box 4, two
/// edge distances per axis 4, normalize 6, scale 2, steer 9 = 25 (0 when
/// the world is not contained); path_following: waypoint distance 6,
/// arrive 25 and seek 19 (both computed) = 50.
double bench_cost_slot_fixed(const throng_slot* slot, int contained);

// Neighbour sweeps (sweeps.c nb_step, per lane and candidate; the scalar
// reference in core/behaviors.c and scalar_engine.c per neighbour).

/// Distance of a candidate: d = pj - p (2), d2 = dot (3).
#define BENCH_OPS_NB_DISTANCE 5
/// Scalar counts(): the same distance again plus r*r, per slot and
/// neighbour inside the query radius.
#define BENCH_OPS_NB_COUNTS 6
/// Unaligned avoidance up to the closest-approach test: SIMD rv 2, rv2 3,
/// t (dot, div) 4, f 4, |f| 4 = 17; the scalar reference stops earlier:
/// rp 2, rv 2, rv2 3 = 7, then t 4 when rv2 >= eps, then f and |f| 8
/// when t is in [0, T].
#define BENCH_OPS_UNALIGNED_TEST_SIMD 17
#define BENCH_OPS_UNALIGNED_TEST_SCALAR 7
#define BENCH_OPS_UNALIGNED_T_SCALAR 4
#define BENCH_OPS_UNALIGNED_F_SCALAR 8
/// Unaligned avoidance push: SIMD u 2, normalize(rv) and normalize(f)
/// (both sides) 12, ms*u 1, scale 2, sub 2 = 19; scalar one normalize: 13.
#define BENCH_OPS_UNALIGNED_PUSH_SIMD 19
#define BENCH_OPS_UNALIGNED_PUSH_SCALAR 13
/// Separation: sqrt 1, away 2, 2 div, magnitude (div, sub, mul) 3, scale 2,
/// add 2.
#define BENCH_OPS_SEPARATION 12
/// Alignment and cohesion: the sum, 2 adds.
#define BENCH_OPS_ALIGN_COHESION 2
/// After the loop: unaligned and separation limit 7; alignment mean 2 +
/// steer 9 = 11; cohesion mean 2 + seek 19 = 21.
#define BENCH_OPS_NB_FINISH_PUSH 7
#define BENCH_OPS_NB_FINISH_ALIGNMENT 11
#define BENCH_OPS_NB_FINISH_COHESION 21

// Feelers (feelers.c; thr_obstacle_avoid and thr_wall_avoid).

/// Per agent: |v| for the moving test 4; heading normalize 6.
#define BENCH_OPS_FEELER_MOVING 4
#define BENCH_OPS_FEELER_HEADING 6
/// Obstacle per candidate and lane: c - p 2, along 3 (the scalar stops
/// here when along is outside [0, L]: 5), p + h*along 4, c - that 2,
/// length 4, r + radius 1 = 16.
#define BENCH_OPS_OBSTACLE_ALONG 5
#define BENCH_OPS_OBSTACLE_TEST 16
/// Obstacle force: c - p 2, dot 3, urgency 2, sign*ms*urgency 2, scale 2.
#define BENCH_OPS_OBSTACLE_FORCE 11
/// Walls per agent: sincos of the feeler angle 26 (once per block of 8 in
/// the SIMD engine), the two rotated feelers 12.
#define BENCH_OPS_WALL_SINCOS 26
#define BENCH_OPS_WALL_ROTATE 12
/// Wall per candidate and lane (SIMD): a - p 2, three feelers of denom 3,
/// t 4, u 4 = 35, plus the wall's edge vector 2 once per block. Scalar per
/// feeler: edge 2 + denom 3 = 5, then a - p 2, t 4, u 4 = 10 unless the
/// feeler is parallel to the wall.
#define BENCH_OPS_WALL_TEST_SIMD 35
#define BENCH_OPS_WALL_EDGE 2
#define BENCH_OPS_WALL_DENOM_SCALAR 5
#define BENCH_OPS_WALL_HIT_SCALAR 10
/// Wall force per feeler that hits: edge 2, normalize 6, p - a 2, dot 3,
/// flip 2, urgency 2, ms*urgency 1, scale 2, add 2.
#define BENCH_OPS_WALL_FORCE 22

// Target selection (core/targeting.c): per candidate of the rule's group,
// dx, dy, dx*dx + dy*dy = 5; r*r once per agent.
#define BENCH_OPS_TARGET_CANDIDATE 5

/// Blending per agent (agents.c blend_w, controller.c thr_blend): weighted
/// 4 per slot (scale, add) + limit 7; priority 12 per slot (scale 2, length
/// 4, cut 3, add 2, budget 1); hybrid 12 per priority slot, 4 per other
/// slot, limit 7 and the final add 2. Slots are the enabled ones kept.
double bench_cost_blend(const throng_controller* ctl);

/// Integration per agent (agents.c integrate_w, scalar_engine.c integrate):
/// finite force 2, v = limit(v + f*dt) 11, p += v*dt 4, the clamp box 4
/// and its middle 4, finite state 4, speed 4, heading normalize 6, speed
/// ratio 1.
#define BENCH_OPS_INTEGRATE 40

/// Bytes per agent-step the step moves through memory, from the arrays each
/// pass reads and writes once per agent (each 4 bytes; gathers of
/// neighbours and shapes, which hit cache lines the sweep has just used,
/// and write-allocate reads are not counted):
///   SIMD: grid build 48 (read x, y; write and read cell_of; the cell
///   counter twice; read slot_of; write items; copy items to perm), the
///   reorder 160 (read perm; 9 state and 10 per-agent arrays read and
///   written; slot_of written), the block pass 104 (read 17 arrays: p, v,
///   h, max_speed, max_force, radius, id, group, target x, y, both wander
///   angles, waypoint, archetype; write 9: p, v, h, angles, waypoint);
///   scalar: grid build 36 (no order, no copy), the agent loop 104 (the
///   same arrays as the block pass);
/// plus 20 bytes per grid cell (clear, prefix sum, shift back).
#define BENCH_BYTES_SIMD_AGENT 312
#define BENCH_BYTES_SCALAR_AGENT 140
#define BENCH_BYTES_CELL 20

#endif
