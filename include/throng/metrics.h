// SPDX-License-Identifier: MIT
// throng: crowd-quality metrics computed over a run.
//
// A metrics object watches one world: create it before the first step (it
// takes the start positions and, when goal_radius > 0, every agent's goal:
// its target point at that moment), call throng_metrics_observe() once
// after each step (it reads the previous state from the world, so it
// refuses to skip a step), and read throng_metrics_result() at
// any time but not during an observation. Observing costs
// O(N) per step with no allocation: overlaps are found by sorting the
// agents by cells twice the largest radius (a radix sort into arrays
// allocated once; only a world whose agents lie millions of cells apart
// is sorted another way, which allocates), and walls and obstacles near an
// agent through grids over the shapes, built at creation and again only
// when the world's shapes change. Above 4,096 agents it runs on the
// OpenMP threads the world's SIMD engine steps with, at most one per
// 1,024 agents (one thread for the scalar reference).
//
// Agents may come and go (throng_world_spawn, throng_world_remove_agents,
// a sink) between observations or within the step observed: the metrics
// watch every agent of every state they observe. An agent new to them
// starts where it was added (the state its first observed step started
// from, or the current state when it was added after that step) with its
// target point then as its goal, and its arrival time runs from then; an
// agent that left keeps what it did while observed (an arrival before it
// left counts). Per-agent rates divide by agent-steps: the agents live in
// each observed state, summed. An agent added and removed between two
// observations is never watched.
//
// Every figure is a pure function of the states observed: per-agent sums
// are kept by agent id and reduced in id order (those of agents that left
// first, as they left, by id within one observation), and everything
// else is an integer count or a maximum, so both engines, every thread
// count and every SIMD build give the same numbers. docs/QUALITY.md
// defines each one and tabulates them for the built-in scenarios.
#ifndef THRONG_METRICS_H
#define THRONG_METRICS_H

#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

/// Overlap counting examines at most this many candidate pairs per agent
/// and state (THRONG_OVERLAP_MAX_EXAMINED); more happen only in knots far
/// denser than any crowd (docs/QUALITY.md): the counts are then lower bounds
/// and overlap_capped says how many agents were cut short.
#define THRONG_OVERLAP_MAX_EXAMINED 128

/// An agent penetrates an obstacle when the centres are closer than
/// (r_o + r) * (1 - THRONG_PENETRATION_TOLERANCE), and a wall when its
/// centre is closer than r * (1 - THRONG_PENETRATION_TOLERANCE) to it: a
/// disc that only touches a shape, within float rounding, does not count.
#define THRONG_PENETRATION_TOLERANCE 1e-4

/// A metrics object observes at most this many steps after its creation
/// (2^32 - 2: an arrival step is kept in 32 bits); observing a later step
/// fails with THRONG_ERR_CAPACITY.
#define THRONG_METRICS_MAX_STEPS 4294967294u

THRONG_API_BEGIN

/// What a metrics object has measured so far. Counts and maxima run over
/// the states after each observed step; the state at creation gives the
/// starts, the goals and the first headings, and an agent already within
/// goal_radius of its goal then has reached it at time 0 (an agent added
/// later: at its start, when it started there).
typedef struct throng_quality {
	uint32_t agents;              ///< agents watched: those at creation and every one added since and observed
	uint32_t agents_left;         ///< of those, the ones removed since (0 without churn)
	uint64_t steps;               ///< steps observed
	uint64_t agent_steps;         ///< agent-states observed: the agents live in each observed state, summed
	                              ///< (agents * steps without churn)
	double seconds;               ///< simulated time observed: steps * dt (s)
	uint64_t overlaps;            ///< overlapping pairs (centres closer than r_i + r_j), summed over states
	double overlaps_per_agent_step; ///< overlaps / agent_steps; 0 before the first step
	double deepest_overlap;       ///< max over those states and pairs of 1 - d/(r_i + r_j), in [0, 1]; 0 without overlaps
	uint64_t overlap_capped;      ///< agent-states whose overlap count stopped at THRONG_OVERLAP_MAX_EXAMINED
	                              ///< candidate pairs; when > 0, overlaps and deepest_overlap are lower bounds
	uint32_t overlap_most_examined; ///< most candidate pairs one agent examined in one state
	uint32_t goals;               ///< agents with a goal: all watched (agents) when goal_radius > 0, else 0
	uint32_t reached;             ///< agents that came within goal_radius of their goal (first arrival), those
	                              ///< that left afterwards included
	double mean_time_to_goal;     ///< mean first-arrival time of those (s), since their start; 0 when none reached
	double max_time_to_goal;      ///< the longest first-arrival time of those (s); 0 when none reached
	double path_length_ratio;     ///< mean over reached agents of path walked until arrival divided by
	                              ///< (|goal - start| - goal_radius); agents that started within
	                              ///< 2 * goal_radius of their goal are left out; 0 when none counts
	double jitter;                ///< sum over agents of |heading change| / (agent_steps * dt) (rad/s)
	double max_speed_ratio;       ///< largest |v| / max_speed (the world's running figure)
	uint64_t nonfinite;           ///< non-finite forces the world met, plus agent-states with a non-finite
	                              ///< position or velocity
	uint64_t out_of_bounds;       ///< agent-states with the centre outside the world: contain and bounce,
	                              ///< the bounds shrunk by the radius; wrap, the bounds; open, never
	uint64_t wall_crossings;      ///< times an agent's centre path from one state to the next (the straight
	                              ///< segment; in a wrap world, its shortest image) crossed a wall or ended on
	                              ///< it, coming from off the wall's line; each wall counts once a step
	uint64_t wall_penetrations;   ///< agent-states whose centre is closer than r * (1 - THRONG_PENETRATION_TOLERANCE)
	                              ///< to a wall
	uint64_t obstacle_penetrations; ///< agent-states whose centre is closer than
	                              ///< (r_o + r) * (1 - THRONG_PENETRATION_TOLERANCE) to an obstacle's centre
	double deepest_obstacle_penetration; ///< max over those of 1 - d/(r_o + r), in (1e-4, 1]; 0 without any
	double contacts_per_agent_step; ///< overlapping pairs the world's contact pass met after integration, summed
	                              ///< over the observed steps, / agent_steps; 0 while the world has no
	                              ///< contact pass (issue 13)
} throng_quality;

typedef struct throng_metrics throng_metrics;

/// Starts measuring `world` from its current state. goal_radius (m, finite,
/// >= 0): an agent reaches its goal, its target point now, within it; 0
/// means the world has no goals. On success *out owns the object; release
/// with throng_metrics_destroy(). The world is only read, now and in
/// throng_metrics_observe(); agents may come and go afterwards. Fails on a
/// NULL argument, a part world (throng_part_make), a bad goal_radius or out
/// of memory.
throng_status throng_metrics_create(const throng_world* world, float goal_radius, throng_metrics** out);

/// Frees the object. NULL is ignored.
void throng_metrics_destroy(throng_metrics* metrics);

/// Takes the world's current state into the figures. Call once after each
/// successful step (throng_scene_step or throng_world_step): the path and
/// heading change of each agent run from the state the step started from,
/// which the world still holds (an agent added after the step starts in
/// the current state). Observing again without a step counts one more
/// state, the same: it moved and turned by nothing. When agents came or
/// went, the records grow with the world's ids and agents (amortised:
/// doubling) and are placed by id, O(agents). Fails, taking nothing, when
/// out of memory for them; when the
/// world is more than one step past the last observation (or the
/// creation), a step not observed (THRONG_ERR_INVALID_ARGUMENT: the object
/// cannot observe that world again); past THRONG_METRICS_MAX_STEPS steps
/// since creation
/// (THRONG_ERR_CAPACITY); or when the world's shapes changed and the grids
/// over them cannot be rebuilt (out of memory; the next call, before the
/// next step, tries again).
throng_status throng_metrics_observe(throng_metrics* metrics, const throng_world* world);

/// The figures so far. Uses the object's scratch: not to be called while
/// another thread observes with the same object.
throng_quality throng_metrics_result(const throng_metrics* metrics);

/// Overlapping pairs (centres closer than the sum of the radii) in the
/// world's current state, written to *pairs, and the deepest one as
/// 1 - d/(r_i + r_j) to *deepest (0 when none), each agent examining at
/// most THRONG_OVERLAP_MAX_EXAMINED candidate pairs (a lower bound only in
/// knots denser than any crowd). Either output may be NULL. Allocates the
/// arrays of the sort by cell for the call (a metrics object keeps its own):
/// THRONG_ERR_OUT_OF_MEMORY when it cannot, and then both outputs are 0,
/// never a partial count.
throng_status throng_world_overlap_stats(const throng_world* world, uint64_t* pairs, float* deepest);

THRONG_API_END

#endif
