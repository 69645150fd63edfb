// SPDX-License-Identifier: MIT
// The cost model: float operations and bytes per event the library counts.
//
// The library counts what each engine did in a step (throng_world_counters:
// lanes evaluated, neighbour candidates, shape tests...; throng.h says what
// each count means on each engine). This file prices those events: the
// constants say what one event costs, read off the code; bench_cost_flops
// and bench_cost_bytes multiply and add. Nothing here replays an engine.
//
// A flop is one IEEE binary32 add, sub, mul, div or sqrt on one value (one
// lane of a wide op, or one scalar op). Compares, selects, min/max,
// abs/neg, bit and int ops, conversions and loads are not flops. Both
// engines perform the same operations per agent (they give the same bits);
// they differ in what is skipped: the scalar reference skips a neighbour or
// a shape that fails a test, the SIMD engine evaluates a whole vector of 8
// lanes whenever one lane needs it and computes both sides of every select
// (its counts are in lanes, 8 per vector).
//
// The scalar reference decides some of its skips inside the pure
// behaviours of core/behaviors.c, which count nothing: there each counted
// event is priced at the whole sequence it may run (an obstacle listed at
// the full test, 16, though one behind the agent costs 5; a neighbour of
// unaligned avoidance at its closest-approach test, 19), and the forces
// formed after a feeler hit or an unaligned push are not priced (the
// counters have no scalar count of them; on the benchmark's scenes they
// are a few flops an agent-step). Fixed per-slot costs are the SIMD
// sequence's in both engines (the reference's early returns, e.g. bounds
// far from any edge, are not subtracted).
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
#include "throng/throng.h"

/// Per slot lane, each kind that does not walk neighbours or shapes
/// (agents.c); index by throng_behavior_kind, 0 for the others.
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

/// Distance of a candidate: d = pj - p (2), d2 = dot (3); per neighbour
/// lane slot.
#define BENCH_OPS_NB_DISTANCE 5
/// Scalar counts(): the distance again plus r*r, per slot test of another
/// agent inside the query radius; the gather tests and the behaviour tests
/// again, so twice per counted test.
#define BENCH_OPS_NB_COUNTS 6
/// Unaligned avoidance up to the closest-approach test: SIMD rv 2, rv2 3,
/// t (dot, div) 4, f 4, |f| 4 = 17 per body lane; the scalar reference per
/// neighbour taken: rp 2, rv 2, rv2 3, t 4, f and |f| 8 = 19 (its early
/// exits when rv2 < eps or t is outside [0, T] are not counted).
#define BENCH_OPS_UNALIGNED_TEST_SIMD 17
#define BENCH_OPS_UNALIGNED_TEST_SCALAR 19
/// Unaligned avoidance push, per push lane (SIMD): u 2, normalize(rv) and
/// normalize(f) (both sides) 12, ms*u 1, scale 2, sub 2 = 19.
#define BENCH_OPS_UNALIGNED_PUSH_SIMD 19
/// Separation, per body lane: sqrt 1, away 2, 2 div, magnitude (div, sub,
/// mul) 3, scale 2, add 2.
#define BENCH_OPS_SEPARATION 12
/// Alignment and cohesion, per body lane: the sum, 2 adds.
#define BENCH_OPS_ALIGN_COHESION 2
/// After the walk, per slot lane: unaligned and separation limit 7;
/// alignment mean 2 + steer 9 = 11; cohesion mean 2 + seek 19 = 21.
#define BENCH_OPS_NB_FINISH_PUSH 7
#define BENCH_OPS_NB_FINISH_ALIGNMENT 11
#define BENCH_OPS_NB_FINISH_COHESION 21

// Feelers (feelers.c; thr_obstacle_avoid and thr_wall_avoid).

/// Per slot lane: |v| for the moving test 4. Per scan lane: heading
/// normalize 6.
#define BENCH_OPS_FEELER_MOVING 4
#define BENCH_OPS_FEELER_HEADING 6
/// Obstacle per test (lane): c - p 2, along 3, p + h*along 4, c - that 2,
/// length 4, r + radius 1 = 16 (the scalar stops after 5 when along is
/// outside [0, L]; priced at 16).
#define BENCH_OPS_OBSTACLE_TEST 16
/// Obstacle force, per hit lane: c - p 2, dot 3, urgency 2, sign*ms*urgency
/// 2, scale 2.
#define BENCH_OPS_OBSTACLE_FORCE 11
/// Walls per scan: sincos of the feeler angle 26 (once per vector of 8 in
/// the SIMD engine, once per agent in the scalar one), the two rotated
/// feelers 12 per lane.
#define BENCH_OPS_WALL_SINCOS 26
#define BENCH_OPS_WALL_ROTATE 12
/// Wall per test (lane, SIMD): a - p 2, three feelers of denom 3, t 4,
/// u 4 = 35, plus the wall's edge vector 2 once per vector. Scalar per test:
/// per feeler edge 2 + denom 3 + a - p 2, t 4, u 4 = 15, times 3 (a feeler
/// parallel to the wall stops after 5; priced at 15).
#define BENCH_OPS_WALL_TEST_SIMD 35
#define BENCH_OPS_WALL_EDGE 2
#define BENCH_OPS_WALL_TEST_SCALAR 45
/// Wall force per hit lane and feeler: edge 2, normalize 6, p - a 2, dot 3,
/// flip 2, urgency 2, ms*urgency 1, scale 2, add 2.
#define BENCH_OPS_WALL_FORCE 22

// Target selection (core/targeting.c): per candidate of the rule's group,
// dx, dy, dx*dx + dy*dy = 5; r*r once per choice.
#define BENCH_OPS_TARGET_TEST 5
#define BENCH_OPS_TARGET_CHOICE 1

/// Blending (agents.c blend_w, controller.c thr_blend), per lane: 12 per
/// budget term (scale 2, length 4, cut 3, add 2, budget 1), 4 per sum term
/// (scale, add), the final limit 7 in weighted and hybrid mode, and
/// hybrid's final add 2.
#define BENCH_OPS_BLEND_BUDGET_TERM 12
#define BENCH_OPS_BLEND_SUM_TERM 4
#define BENCH_OPS_BLEND_LIMIT 7
#define BENCH_OPS_BLEND_HYBRID_ADD 2

/// Integration per lane (agents.c integrate_w, scalar_engine.c integrate):
/// finite force 2, v = limit(v + f*dt) 11, p += v*dt 4, the clamp box 4
/// and its middle 4, finite state 4, speed 4, heading normalize 6, speed
/// ratio 1.
#define BENCH_OPS_INTEGRATE 40

/// Bytes per agent-step the step moves through memory, from the arrays each
/// pass reads and writes once per agent (each 4 bytes; gathers of
/// neighbours and shapes, which hit cache lines the sweep has just used,
/// and write-allocate reads are not counted), in a world without paths
/// (no waypoint arrays):
///   SIMD: grid build 44 (read x, y twice: to count and to scatter; the
///   cell counter twice; write items; read items and id to check each
///   cell's id order), the reorder 196 (read the grid's items once for the
///   8 state arrays and once for each of the 10 singles; 8 state and 10
///   per-agent arrays read and written; read the new id, write slot_of),
///   the block pass 96 (read 16 arrays: p, v, h, max_speed, max_force,
///   radius, id, group, target x, y, both wander angles, archetype; write
///   8: p, v, h, angles);
///   scalar: grid build 36 (no id order), the agent loop 96 (the same
///   arrays as the block pass);
/// plus 20 bytes per grid cell built (clear, prefix sum, shift back).
#define BENCH_BYTES_SIMD_AGENT 336
#define BENCH_BYTES_SCALAR_AGENT 132
#define BENCH_BYTES_CELL 20

/// Float operations of the steps `c` counted on world `w` (its engine,
/// bounds mode and controllers price the slots; a kind whose price depends
/// on its parameters, flee and wander, takes the mean over the world's
/// slots of that kind weighted by the agents of each archetype).
double bench_cost_flops(const throng_world* w, const throng_world_counters* c);

/// Bytes the steps `c` counted on world `w` moved, by the model above.
double bench_cost_bytes(const throng_world* w, const throng_world_counters* c);

#endif
