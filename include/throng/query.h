// SPDX-License-Identifier: MIT
// throng: spatial queries on a world between steps (issue 33).
//
// Which agents lie within a radius of a point, inside an axis-aligned box
// or a polygon, or are the k nearest to a point; one query or a batch of
// them over many points. Each answers from the world's current state (the
// positions of throng_world_view) and writes agent ids into the caller's
// buffer, in a documented order with ties broken by id, so the answer is
// the same on every build, engine and thread count, whatever order the
// world keeps its agents in.
//
// Cost: the first query after the agents changed (a step, a spawn: any
// call that adds, removes or moves agents) lists every agent in a uniform
// grid of its own, about two agents a cell over the crowd's extent (O(N),
// a few milliseconds at 10^6 agents; docs/PERFORMANCE.md, "Queries").
// Later queries of the same state cost O(cells visited + agents in them),
// which at a fixed density does not grow with the world's agent count. The
// grid is kept, and its memory (about 18 bytes an agent) held, until the
// world is destroyed.
//
// Threading: queries only read the world, so several threads may query one
// world at once (the first of them to need the grid builds it, the others
// wait for it), as long as no thread steps or changes that world meanwhile.
//
// Bounds: agents outside the world's bounds (an open world) are found like
// any other. In a wrap world, radius and nearest queries measure the
// distance to an agent's nearest image (across the seams, as the
// behaviours do) from the centre brought into the bounds; box and polygon
// queries test the stored positions as they are, which lie inside the
// bounds, and do not continue across a seam.
//
// Buffers: each query writes up to `capacity` ids into `ids` (NULL is
// allowed when capacity is 0) and the number of agents that match in all
// into *total; a capacity below the total is no error: the first
// `capacity` ids in the query's order are written, and the entries after
// the last one written are left as they were. A failing call writes
// nothing (but a batch that runs out of memory midway, which keeps the
// answers it has written) and says why in throng_last_error(), naming the
// function and the argument.
//
// Part worlds (part.h) are refused (THRONG_ERR_INVALID_ARGUMENT): their
// ghosts are other parts' agents.
#ifndef THRONG_QUERY_H
#define THRONG_QUERY_H

#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

/// A field of throng_query_filter that matches every value.
#define THRONG_ANY UINT32_MAX

THRONG_API_BEGIN

/// Which agents a query considers: those of `group` (THRONG_ANY: every
/// group) and `archetype` (THRONG_ANY: every archetype, else an id from
/// throng_world_add_archetype, or THRONG_ERR_NOT_FOUND), except the agent
/// `exclude` (THRONG_NO_AGENT: none; typically the agent that asks). A NULL
/// filter is throng_query_filter_all().
typedef struct throng_query_filter {
	uint32_t group;     ///< THRONG_ANY: every group
	uint32_t archetype; ///< THRONG_ANY: every archetype
	uint32_t exclude;   ///< an agent id left out, THRONG_NO_AGENT: none
} throng_query_filter;

/// The filter that keeps every agent: THRONG_ANY, THRONG_ANY, THRONG_NO_AGENT.
throng_query_filter throng_query_filter_all(void);

/// The agents whose centre lies within `radius` (m, finite, >= 0) of
/// `center` (m): dx*dx + dy*dy <= radius*radius in float, (dx, dy) the
/// agent's position minus the centre (at its nearest image in a wrap
/// world), so an agent exactly on the circle is inside. Order: by that
/// squared distance, then by id.
throng_status throng_world_query_radius(const throng_world* world, throng_vec2 center, float radius,
                                        const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                        uint32_t* total);

/// The agents whose centre p satisfies lo.x <= p.x <= hi.x and
/// lo.y <= p.y <= hi.y (m; lo <= hi on each axis; the edges belong to the
/// box). Order: by id.
throng_status throng_world_query_box(const throng_world* world, throng_vec2 lo, throng_vec2 hi,
                                     const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                     uint32_t* total);

/// The agents whose centre lies inside the polygon of `n` points (m; 3 to
/// THRONG_MAX_WAYPOINTS, either winding, copied; the last joins the
/// first). A simple polygon is meant; one that crosses itself counts by
/// the even-odd rule. A centre on the boundary is inside when the polygon
/// lies immediately to its right (+x) or, on a horizontal edge,
/// immediately above it (+y): left and bottom edges are in, right and top
/// edges out, so polygons that tile the plane hold every point exactly
/// once (the half-open rule of scanline rasterisers; the test runs in
/// double precision). Order: by id. Each agent in the polygon's bounding
/// box is tested against every edge: a polygon of many points costs that
/// many times more a candidate.
throng_status throng_world_query_polygon(const throng_world* world, const throng_vec2* points, uint32_t n,
                                         const throng_query_filter* filter, uint32_t* ids, uint32_t capacity,
                                         uint32_t* total);

/// The k (>= 1) agents nearest to `point` (m), by the squared distance of
/// throng_world_query_radius, then by id: ids[0] is the nearest. `ids`
/// has room for k; *total = min(k, the agents that match), the ids
/// written.
throng_status throng_world_query_nearest(const throng_world* world, throng_vec2 point, uint32_t k,
                                         const throng_query_filter* filter, uint32_t* ids, uint32_t* total);

/// throng_world_query_radius around each of the n centres (n may be 0),
/// with one radius and filter: query q writes up to per_query ids at
/// ids + q * per_query and its total to totals[q]. Every centre is checked
/// before anything is written. Runs on the calling thread; a batch of 64
/// queries or more answers them row by row of the index's cells, which
/// keeps what they read in cache (the answers do not depend on it).
throng_status throng_world_query_radius_batch(const throng_world* world, const throng_vec2* centers, uint32_t n,
                                              float radius, const throng_query_filter* filter, uint32_t* ids,
                                              uint32_t per_query, uint32_t* totals);

/// throng_world_query_nearest from each of the n points: query q writes
/// its ids at ids + q * k and its total to totals[q]. Every point is
/// checked before anything is written. Runs on the calling thread.
throng_status throng_world_query_nearest_batch(const throng_world* world, const throng_vec2* points, uint32_t n,
                                               uint32_t k, const throng_query_filter* filter, uint32_t* ids,
                                               uint32_t* totals);

THRONG_API_END

#endif
