// SPDX-License-Identifier: MIT
// The census: what one step of a world asks of each engine, counted from
// the world's state through the public API.
//
// It lays the agent grid, the obstacle grid and the wall grid out as the
// library does (core/grid.c's layout rule and clamping, from the def, the
// controllers and the agents), sorts the agents by cell as the SIMD engine
// will at the next step (by cell, ids increasing within a cell), and then
// replays the loops of both engines without doing their arithmetic:
//   - the scalar reference: each agent walks the cells of its query box,
//     tests each candidate's distance, and runs each neighbour slot's body
//     on the neighbours inside that slot's radius (core/behaviors.c);
//   - the SIMD engine: blocks of 8 consecutive sorted agents; per distinct
//     archetype in a block, the sweep takes as many vector steps per row
//     of cells as the longest row among its lanes, and runs a slot's body
//     when any lane needs it (simd/sweeps.c); the feelers scan the shape
//     cells under the block's box, or each lane's own box when that is
//     large (simd/feelers.c).
// Each replayed event adds the operation count of cost.h, giving flops per
// agent-step for each engine. Large worlds are sampled: every k-th block
// (at most BENCH_CENSUS_BLOCKS blocks), which keeps the census under a
// second at 10^6 agents; the means are over the sampled agents.
#ifndef THRONG_BENCH_CENSUS_H
#define THRONG_BENCH_CENSUS_H

#include <stdint.h>

#include "common.h"

/// Most blocks of 8 agents the census replays.
#define BENCH_CENSUS_BLOCKS 8192

/// Means per agent of one step of a world (per agent-step).
typedef struct bench_census {
	uint32_t agents;
	uint32_t sampled;            ///< agents replayed
	uint32_t cells;              ///< cells of the agent grid
	float cell;                  ///< the agent grid's cell after the layout (m)
	double candidates;           ///< agents in the cells of an agent's query box, itself included
	double neighbours;           ///< other agents strictly inside its archetype's query radius
	double lane_slots;           ///< SIMD: lane-candidate slots of its block's sweeps (8 per vector step)
	double obstacle_candidates;  ///< scalar: obstacle entries its query lists
	double obstacle_lane_tests;  ///< SIMD: obstacle entries its lane tests
	double wall_candidates;      ///< scalar: wall entries its query lists
	double wall_lane_tests;      ///< SIMD: wall entries its lane tests
	double target_candidates;    ///< target selection: candidates tested (amortised over `every`)
	double flops_scalar;         ///< float operations of the scalar engine
	double flops_simd;           ///< float operations of the SIMD engine, every lane of every vector op
	double bytes_scalar;         ///< memory traffic model of cost.h
	double bytes_simd;
} bench_census;

/// Counts one step of the scene's world as it would run with only the
/// slots of `keep` (the per-pass world of common.h; bench_keep_all() for
/// the scene itself). Returns 0, or -1 when memory runs out.
int bench_census_take(throng_scene* scene, bench_keep keep, bench_census* out);

#endif
