// SPDX-License-Identifier: MIT
// Sources: regions that add agents while the world runs (issue 33,
// item 6). Included by throng.h; their sinks are zones (throng/events.h,
// throng_zone_def.sink).
//
// A source adds agents made from its template, in a box, a circle or
// along a segment (a door), at a steady rate from `start` until it has
// added `count` or `stop` has come. Its k-th agent (k = 0, 1, ...) is due
// at start + k / rate seconds; a step adds those due before the step's
// end, one after the other, each at a point drawn at random (a function
// of the world seed, the source, k, the step and the try) where it
// overlaps no agent: the point is free when every agent's centre lies at
// least the two radii away (agents across a wrap world's seam are not
// looked at, nor obstacles and walls: place sources in open floor). A
// spawn that finds no free point in THRONG_SOURCE_TRIES draws waits: the
// source lists THRONG_EVENT_WAITED and tries again at the next step, its
// later agents waiting behind it. A source that fell behind catches up by
// at most THRONG_SOURCE_CATCH_UP agents a step beyond its rate.
//
// When. Sources add after the step has moved every agent and after the
// sinks have taken theirs (the step's removals first: a sink at a door
// frees the room a source there needs), in source order, so the ids of a
// step's new agents increase with the source's id. Their ADDED events
// come after the step's other events, each with its source's id, and a
// source's WAITED after its own ADDED ones. The added agents steer from
// the next step on. Everything here is the same on any engine, thread
// count and build.
//
// Not in a part world (THRONG_ERR_INVALID_ARGUMENT).
#ifndef THRONG_SOURCES_H
#define THRONG_SOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// Most sources a world holds.
#define THRONG_MAX_SOURCES 64

/// "No source": the source of an event that concerns none.
#define THRONG_NO_SOURCE UINT32_MAX

/// Random points a spawn tries in one step before it waits.
#define THRONG_SOURCE_TRIES 8

/// Agents beyond its rate a source may add in one step to catch up.
#define THRONG_SOURCE_CATCH_UP 16

/// Longest source name, with its terminating NUL.
#define THRONG_SOURCE_NAME_CAP 32

/// Where a source puts its agents.
typedef enum throng_source_shape {
	THRONG_SOURCE_BOX = 0, ///< "box": uniform in [min, max]
	THRONG_SOURCE_CIRCLE,  ///< "circle": uniform in the disc of centre and radius
	THRONG_SOURCE_SEGMENT, ///< "segment": uniform along from -> to (a door)
} throng_source_shape;

/// "box", "circle", "segment".
const char* throng_source_shape_name(throng_source_shape shape);
bool throng_source_shape_from_name(const char* name, throng_source_shape* out);

/// A source. Get one from throng_source_default_def() and change fields.
typedef struct throng_source_def {
	throng_source_shape shape;
	throng_vec2 min, max;     ///< box corners (m), min <= max
	throng_vec2 center;       ///< circle (m)
	float radius;             ///< circle (m), finite, in [1e-6, 1e6]
	throng_vec2 from, to;     ///< segment ends (m)
	float rate;               ///< agents a second, finite, in [1e-6, 1e6]
	uint32_t count;           ///< most agents it adds in all; 0 = no limit
	float start;              ///< simulated second it begins, finite, >= 0
	float stop;               ///< simulated second it ends (no agent due at or after it): > start, or INFINITY
	throng_agent_def agent;   ///< the agents it adds (every field checked as throng_world_spawn does);
	                          ///< position is the source's to draw; target_agent must be THRONG_NO_AGENT
	bool relative_target;     ///< false: each agent's target is agent.target; true: agent.target is added to
	                          ///< the point the agent appears at ("walk this far that way": a stream keeps
	                          ///< its width instead of funnelling into one point)
	char name[THRONG_SOURCE_NAME_CAP]; ///< "" or a name unique among the world's sources
} throng_source_def;

/// A 1 m box at the origin, 1 agent a second from 0 s, no limit, agents
/// of throng_agent_default_def().
throng_source_def throng_source_default_def(void);

/// What a source has done so far.
typedef struct throng_source_state {
	uint64_t added;        ///< agents it has added
	uint64_t waiting;      ///< agents due that it has not added yet
	uint64_t waited_steps; ///< steps on which a spawn found no room (THRONG_EVENT_WAITED)
	bool done;             ///< it will add no more (count reached, or stop passed with nothing waiting)
} throng_source_state;

/// Adds a source; its id (0, 1, ... in order) goes to *id_out when not
/// NULL. The whole region must lie inside the bounds unless they are
/// open. The first agents can come at the next step.
throng_status throng_world_add_source(throng_world* world, const throng_source_def* def, uint32_t* id_out);

/// Number of sources.
uint32_t throng_world_source_count(const throng_world* world);

/// The id of the source named `name` into *id.
throng_status throng_world_find_source(const throng_world* world, const char* name, uint32_t* id);

/// Source `id`'s def (into *def when not NULL) and progress (into *state
/// when not NULL).
throng_status throng_world_get_source(const throng_world* world, uint32_t id, throng_source_def* def,
                                      throng_source_state* state);

THRONG_API_END

#endif
