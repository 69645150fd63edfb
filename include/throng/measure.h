// SPDX-License-Identifier: MIT
// throng: measurement lines and areas, as PedPy defines them.
//
// A measurement set holds lines (segments a -> b) and areas (simple
// polygons). Feed it the agents' state once per step or frame, in time
// order (throng_measure_feed from arrays, throng_measure_feed_world from a
// live world); it keeps, per line, every crossing (the time interpolated
// along the step, the agent, the direction) and, per area, one sample per
// state: classic density and mean speed, Voronoi density and Voronoi speed.
// docs/QUALITY.md, "Measurement", defines each figure with PedPy's
// definitions (PedPy, https://pedpy.readthedocs.io) and says where throng
// chooses differently.
//
// - Crossing: the straight path of an agent from its position in one state
//   to its position in the next crosses the segment. Direction +1: to the
//   left of a -> b (towards perp(b - a) = (-(b - a).y, (b - a).x)); -1 the
//   other way. A point exactly on the line's carrier keeps the side the
//   agent came from, so a path that stops on the line and goes on is
//   counted once, when it leaves the line (at the time it was on it), and
//   a path that touches the line and turns back is not counted. A state
//   that ends on the line is no crossing (PedPy: "when the movement ends on
//   the line, the line is not crossed"). An agent seen for the first time,
//   or missing from the previous state, has no path to test.
// - Classic density: agents whose position is inside the area / its area
//   (1/m^2); mean speed: the mean |v| of those agents (m/s).
// - Voronoi density: sum over agents of |V_i n M| / |V_i|, divided by |M|,
//   where V_i is agent i's Voronoi cell cut off by a regular polygon of
//   4 * cutoff_segments vertices on a circle of cutoff_radius around it
//   (PedPy's Cutoff) and clipped to the bounds when the def gives them;
//   Voronoi speed: sum of |v_i| * |V_i n M| / |M|.
//
// Every figure is a function of the states fed alone (no thread, no
// engine): the same states give the same numbers.
//
// Threading: one set must not be used from two threads at once.
#ifndef THRONG_MEASURE_H
#define THRONG_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

/// Most lines, and most areas, one set holds.
#define THRONG_MEASURE_MAX_LINES 256
#define THRONG_MEASURE_MAX_AREAS 256
/// Most vertices of one area's polygon.
#define THRONG_MEASURE_MAX_VERTICES 1024
/// The Voronoi cut-off when the def leaves it 0: radius (m) and segments
/// per quarter circle (PedPy's Cutoff default for quad_segments is 3).
#define THRONG_MEASURE_CUTOFF_RADIUS 0.8f
#define THRONG_MEASURE_CUTOFF_SEGMENTS 3u

THRONG_API_BEGIN

/// Settings of a measurement set. Zero fields mean their default.
typedef struct throng_measure_def {
	float cutoff_radius;       ///< m; 0 = THRONG_MEASURE_CUTOFF_RADIUS; else finite, in [1e-3, 1e6]
	uint32_t cutoff_segments;  ///< segments per quarter circle, 0 = THRONG_MEASURE_CUTOFF_SEGMENTS; at most 64
	throng_vec2 bounds_min;    ///< Voronoi cells are clipped to [bounds_min, bounds_max] when
	throng_vec2 bounds_max;    ///< bounds_max > bounds_min in both axes; both (0,0): no bounds
	bool wrap;                 ///< a wrap world: a step longer than half the bounds in x or y is a
	                           ///< jump across the seam: no crossing, no speed from it (needs bounds)
} throng_measure_def;

/// A def with every field at its default (no bounds, no wrap).
throng_measure_def throng_measure_default_def(void);

typedef struct throng_measure throng_measure;

/// Creates an empty set. def may be NULL (the defaults). On success *out
/// owns it; release with throng_measure_destroy(). Fails on a bad field,
/// named in throng_last_error().
throng_status throng_measure_create(const throng_measure_def* def, throng_measure** out);

/// Frees the set and everything it measured. NULL is ignored.
void throng_measure_destroy(throng_measure* m);

/// Adds the line a -> b (m) and writes its id (0, 1, ...) to *id_out when
/// not NULL. Only before the first feed. Fails on a non-finite or
/// out-of-range coordinate (|x|, |y| <= THRONG_MAX_COORD), a zero-length
/// line, more than THRONG_MEASURE_MAX_LINES lines.
throng_status throng_measure_add_line(throng_measure* m, throng_vec2 a, throng_vec2 b, uint32_t* id_out);

/// Adds the area bounded by the simple polygon points[0..count) (either
/// orientation; closed implicitly) and writes its id to *id_out when not
/// NULL. Only before the first feed. Fails on NULL points, count not in
/// [3, THRONG_MEASURE_MAX_VERTICES], a non-finite or out-of-range
/// coordinate, two equal consecutive points, edges that cross or touch
/// (not simple), zero area, more than THRONG_MEASURE_MAX_AREAS areas.
throng_status throng_measure_add_area(throng_measure* m, const throng_vec2* points, uint32_t count,
                                      uint32_t* id_out);

/// throng_measure_add_area of the rectangle [min, max] (max > min in both axes).
throng_status throng_measure_add_rect(throng_measure* m, throng_vec2 min, throng_vec2 max, uint32_t* id_out);

uint32_t throng_measure_line_count(const throng_measure* m);
uint32_t throng_measure_area_count(const throng_measure* m);

/// The area's size (m^2), or 0 for a NULL set or an unknown id.
double throng_measure_area_size(const throng_measure* m, uint32_t area);

/// One state of the agents. Arrays of `count` entries, read during the
/// call only. vx and vy may both be NULL: an agent's speed is then its
/// displacement since the previous state divided by the time between, and
/// an agent missing from the previous state has no speed (it counts in
/// the densities, not in the speeds).
typedef struct throng_measure_state {
	double time;          ///< s, finite, above the previous state's
	uint32_t count;
	const uint32_t* id;   ///< stable ids, distinct, never THRONG_NO_AGENT
	const float* x;       ///< m, finite, |x| <= THRONG_MAX_COORD
	const float* y;
	const float* vx;      ///< m/s, finite, or NULL with vy
	const float* vy;
} throng_measure_state;

/// Takes one state: crossings of every line since the previous state, one
/// sample of every area. Fails, taking nothing, on a NULL argument or
/// array, a time not finite or not after the previous state's, a
/// non-finite coordinate or velocity, an id repeated or THRONG_NO_AGENT
/// (each named with its index), out of memory.
throng_status throng_measure_feed(throng_measure* m, const throng_measure_state* state);

/// throng_measure_feed of the world's current state at time step * dt,
/// with its velocities.
throng_status throng_measure_feed_world(throng_measure* m, const throng_world* world);

/// States taken so far.
uint64_t throng_measure_states(const throng_measure* m);

/// One crossing of a line.
typedef struct throng_crossing {
	double time;       ///< s, interpolated along the step
	uint32_t id;       ///< the agent
	int32_t direction; ///< +1 to the left of a -> b, -1 to the right
	double x, y;       ///< where the path crossed (m)
} throng_crossing;

/// The line's crossings in time order (ties by id), *count of them. The
/// array belongs to the set and stays valid until the next feed or the
/// destroy. Fails on a NULL argument or an unknown line.
throng_status throng_measure_line_crossings(const throng_measure* m, uint32_t line, const throng_crossing** out,
                                            size_t* count);

/// Crossings of one line in a time window.
typedef struct throng_line_flow {
	double t0, t1;          ///< the window [t0, t1) (s)
	uint64_t left;          ///< crossings with direction +1 in it
	uint64_t right;         ///< crossings with direction -1 in it
	uint64_t first_passings; ///< agents whose first crossing of the run (either direction) is in it:
	                        ///< PedPy's N-t counts these
	double flow_left;       ///< left / (t1 - t0) (1/s)
	double flow_right;      ///< right / (t1 - t0)
	double flow_total;      ///< (left + right) / (t1 - t0)
	double flow_net;        ///< (left - right) / (t1 - t0)
} throng_line_flow;

/// The line's crossings with t0 <= time < t1. Fails on a NULL argument, an
/// unknown line, a non-finite window or t1 <= t0.
throng_status throng_measure_line_flow(const throng_measure* m, uint32_t line, double t0, double t1,
                                       throng_line_flow* out);

/// One area's figures in one state.
typedef struct throng_area_sample {
	double time;            ///< s
	uint32_t inside;        ///< agents inside the area
	uint32_t with_speed;    ///< of those, agents with a speed
	double density;         ///< classic: inside / area (1/m^2)
	double mean_speed;      ///< mean |v| of the agents inside with a speed (m/s); 0 when none
	double voronoi_density; ///< sum |V_i n M| / |V_i| / |M| (1/m^2)
	double voronoi_speed;   ///< sum |v_i| |V_i n M| / |M| over agents with a speed (m/s)
} throng_area_sample;

/// The area's samples, one per state, in time order. Owned by the set,
/// valid until the next feed or the destroy.
throng_status throng_measure_area_samples(const throng_measure* m, uint32_t area, const throng_area_sample** out,
                                          size_t* count);

/// Means of an area's samples over a window.
typedef struct throng_area_means {
	double t0, t1;          ///< the window [t0, t1] (s), both ends included
	uint64_t samples;       ///< samples in it
	double density;         ///< mean classic density (1/m^2)
	double mean_speed;      ///< mean of mean_speed over the samples with an agent with a speed inside
	double voronoi_density; ///< mean Voronoi density
	double voronoi_speed;   ///< mean Voronoi speed over the same samples as mean_speed
} throng_area_means;

/// The means of the samples with t0 <= time <= t1 (all 0 when none).
/// Fails on a NULL argument, an unknown area, a non-finite window or
/// t1 < t0.
throng_status throng_measure_area_means(const throng_measure* m, uint32_t area, double t0, double t1,
                                        throng_area_means* out);

THRONG_API_END

#endif
