// SPDX-License-Identifier: MIT
// What happened to agents: events and zones (issue 33, item 5). Included
// by throng.h.
//
// A world lists events instead of calling back: no user code runs inside
// a step. throng_world_events() gives the list: the calls made before the
// last step (agents added, removed), what that step did (agents that
// arrived, entered or left a zone), then the calls made since. Each step
// drops what was listed before the calls that preceded it, so reading the
// list once after every step sees every event exactly once.
//
// Order is deterministic: calls' events in the order of the calls (a
// batch by increasing id), a step's events by agent id, then kind, then
// zone, then the step's removals by sinks by id, then what the sources
// did (throng/sources.h), whatever the engine, thread count or storage
// order.
#ifndef THRONG_EVENTS_H
#define THRONG_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// Most zones a world holds.
#define THRONG_MAX_ZONES 63

/// "No zone": the zone of an event that concerns none.
#define THRONG_NO_ZONE UINT32_MAX

/// Longest zone name, with its terminating NUL.
#define THRONG_ZONE_NAME_CAP 32

/// What happened.
typedef enum throng_event_kind {
	THRONG_EVENT_ADDED = 0, ///< "added": throng_world_spawn or a source (`source`) gave the agent its id
	THRONG_EVENT_REMOVED,   ///< "removed": throng_world_remove_agents or a sink (zone) took it out
	THRONG_EVENT_ARRIVED,   ///< "arrived": it came within the arrival radius of its target point
	THRONG_EVENT_ENTERED,   ///< "entered": it is inside `zone`, and was not after the step before
	THRONG_EVENT_LEFT,      ///< "left": it is outside `zone`, and was inside after the step before
	THRONG_EVENT_WAITED,    ///< "waited": `source` found no free point for its next agent (agent
	                        ///< THRONG_NO_AGENT; throng/sources.h)
} throng_event_kind;

/// One event.
typedef struct throng_event {
	uint64_t step;          ///< the world's step count when it happened: after the step for a step's events,
	                        ///< the count between steps for a call's
	throng_event_kind kind;
	uint32_t agent;         ///< the agent's id; THRONG_NO_AGENT for waited
	uint32_t zone;          ///< entered and left: the zone's id; removed by a sink: the sink's; else
	                        ///< THRONG_NO_ZONE
	uint32_t source;        ///< added by a source, and waited: the source's id; else THRONG_NO_SOURCE
	uint32_t other;         ///< removed by combat: the killer's id (throng_combat); else THRONG_NO_AGENT
} throng_event;

/// "added", "removed", "arrived", "entered", "left", "waited".
const char* throng_event_kind_name(throng_event_kind kind);
bool throng_event_kind_from_name(const char* name, throng_event_kind* out);

/// The events listed (see above) into *events and their number into
/// *count. The array belongs to the world and stays valid until the next
/// call that changes the world.
throng_status throng_world_events(const throng_world* world, const throng_event** events, uint32_t* count);

/// Distance (m) from its target point within which an agent counts as
/// arrived (THRONG_EVENT_ARRIVED once each time it comes within it after a
/// step); 0, the default, lists no arrivals. Finite, 0 or in [1e-6, 1e6].
throng_status throng_world_set_arrival_radius(throng_world* world, float radius);

/// A zone's shape.
typedef enum throng_zone_shape {
	THRONG_ZONE_CIRCLE = 0, ///< "circle": centre and radius; inside when the distance is at most the radius
	THRONG_ZONE_BOX,        ///< "box": min and max corners; inside when min <= p <= max
	THRONG_ZONE_POLYGON,    ///< "polygon": 3 to THRONG_MAX_WAYPOINTS points, either winding; inside by the
	                        ///< crossing-number rule with half-open edges (a point on a left or bottom
	                        ///< edge is inside, on a right or top edge outside)
} throng_zone_shape;

/// "circle", "box", "polygon".
const char* throng_zone_shape_name(throng_zone_shape shape);
bool throng_zone_shape_from_name(const char* name, throng_zone_shape* out);

/// A zone of the world: a region whose entries and exits become events.
/// Agents are tested by their centres as stored (in a wrap world, inside
/// the bounds).
typedef struct throng_zone_def {
	throng_zone_shape shape;
	throng_vec2 center;          ///< circle (m)
	float radius;                ///< circle (m), finite, in [1e-6, 1e6]
	throng_vec2 min, max;        ///< box corners (m), min <= max
	const throng_vec2* points;   ///< polygon (copied)
	uint32_t point_count;
	char name[THRONG_ZONE_NAME_CAP]; ///< "" or a name unique in the world (throng_world_find_zone)
	bool sink;                   ///< an exit: an agent that enters it leaves the world when the step ends,
	                             ///< listed THRONG_EVENT_REMOVED with this zone after the step's other
	                             ///< events (by increasing id), its ENTERED among those
} throng_zone_def;

/// A circle of radius 1 m at the origin, no name.
throng_zone_def throng_zone_default_def(void);

/// Adds a zone; its id (0, 1, ... in order) goes to *id_out when not NULL.
/// An agent inside it when the zone is added enters it at the next step.
throng_status throng_world_add_zone(throng_world* world, const throng_zone_def* def, uint32_t* id_out);

/// Number of zones.
uint32_t throng_world_zone_count(const throng_world* world);

/// The id of the zone named `name` into *id.
throng_status throng_world_find_zone(const throng_world* world, const char* name, uint32_t* id);

/// Zone `id`'s def into *def (a renderer draws zones it did not add). A
/// polygon's points are copied into the caller's `points`, room for
/// `points_cap` (NULL when 0): the first min(points_cap, point_count) are
/// written, def->point_count is always the polygon's full count (so a
/// call with points_cap 0 asks how many), and def->points is `points`
/// (NULL for a circle or a box). Nothing in *def points into the world.
/// An id at or past throng_world_zone_count() is THRONG_ERR_NOT_FOUND;
/// *def is left alone on failure.
throng_status throng_world_get_zone(const throng_world* world, uint32_t id, throng_zone_def* def, throng_vec2* points,
                                    uint32_t points_cap);

THRONG_API_END

#endif
