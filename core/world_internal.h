// SPDX-License-Identifier: MIT
// The world's storage (private).
//
// Per-agent arrays belong to the agent store (store.h); the world holds
// the store and views of its single arrays.
#ifndef THRONG_CORE_WORLD_INTERNAL_H
#define THRONG_CORE_WORLD_INTERNAL_H

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "arena.h"
#include "team.h"
#include "behaviors.h"
#include "grid.h"
#include "store.h"
#include "throng/throng.h"

/// Lane width every array is padded to.
#define THR_LANES 8

/// Agents above which a pass opens an OpenMP parallel region: below it a
/// region costs more than the work (on a loaded machine, a scheduler
/// quantum while a thread waits at the barrier). Any split gives the same
/// bits, so the threshold only moves time.
#define THR_PARALLEL_MIN_AGENTS 4096

/// Contact pairs are listed within this multiple of the radii sum
/// (core/contact/pairs.c), so that agents the iterations push together are
/// still seen; a part world's halo reaches as far (core/part.c).
#define THR_CONTACT_REACH 1.25f

/// The OpenMP parallel regions of a step. Each notes the size of the team
/// that ran it (omp_get_num_threads() read inside the region; 1 when it
/// ran serially at or below THR_PARALLEL_MIN_AGENTS) in
/// throng_world.region_team, so tests/test_determinism.c can check that a
/// thread count it asks for is the one that stepped the world.
typedef enum thr_region {
	THR_REGION_GRID,    ///< the agent grid's split build (thr_grid_build_points_split; 0: built serially)
	THR_REGION_REORDER, ///< the store's reorder by cell (thr_store_reorder)
	THR_REGION_TARGETS, ///< target selection (thr_select_targets)
	THR_REGION_BLOCKS,  ///< the SIMD pass's batches of blocks
	THR_REGION_CONTACTS, ///< the contact pass's iterations (thr_contact_pass)
	THR_REGION_COUNT
} thr_region;

/// What the contact stage did in one step (the whole world's figures in
/// a part world are the parts' sums).
typedef struct thr_contact_report {
	uint64_t contacts;      ///< overlapping pairs met (throng_world_stats.contacts)
	uint64_t capped;        ///< agents whose pairs met THRONG_CONTACT_MAX_PAIRS
	uint64_t iterations;    ///< Jacobi iterations run
	uint64_t shape_pushes;  ///< agents moved out of a wall or obstacle
	uint64_t shape_reverts; ///< agents kept where they were: a wall was still crossed
} thr_contact_report;

/// What a step publishes for those who watch the world between steps
/// (the quality metrics, core/metrics.c): the step (core/step.c, at its
/// end) and a part world's load (core/part.c) fill it, nobody else writes
/// it, and it holds until the next step starts. An observer reads this
/// record and the current state, never which store buffer is current nor
/// the agent grid.
typedef struct thr_step_record {
	uint64_t step; ///< the world's step right after the one described: valid while w->step equals it
	/// The state that step started from, in the current storage order:
	/// the store's buffer the step read (thr_step_ctx.cs, const for the
	/// whole step, so no stage can have written it), or, after a part
	/// world's load, the state the load replaced.
	const thr_state* previous;
	/// New slot k held slot reorder[k] when the step began (w->count
	/// entries, the world's own copy); NULL when no slot moved, and after
	/// agents were removed since the step (an observer then matches the
	/// slots by id).
	const uint32_t* reorder;
	/// Slots below it have a previous state: w->count when the step ended
	/// (less the agents removed since); agents added since lie above it.
	uint32_t count;
	thr_contact_report contact; ///< what the contact stage did (zeros after a load)
} thr_step_record;

/// "No slot": slot_of of an id that is not in a part world (part.h).
#define THR_NO_SLOT UINT32_MAX

/// What a part world takes from the whole world (part.h, thr_part_make).
typedef struct thr_part_def {
	uint32_t id_space;      ///< every id is below it: the whole world's id end (grows with its sources)
	uint32_t grid_capacity; ///< the whole world's def.capacity (its grids' cell caps)
	float max_radius;       ///< the whole world's largest agent radius
	float max_speed;        ///< the whole world's largest max_speed (how far an agent moves in a step)
	uint32_t count;         ///< the whole world's live agent count (0 when made: id_space; throng_part_set_world)
} thr_part_def;

/// A path: `count` waypoints from `first` in the world's waypoint arrays.
typedef struct thr_path {
	uint32_t first, count;
	bool loop;
} thr_path;

/// thr_arch_info.wander_slot and .noise_slot of an archetype without one.
#define THR_NO_ANGLE_SLOT UINT8_MAX

/// What an archetype asks of the neighbour walks (thr_arch_neighbors),
/// and which of its slots turn the wander angles (core/angles.c).
typedef struct thr_arch_info {
	float query_radius;        ///< largest neighbour radius (m) of its neighbour slots, 0 = none
	uint32_t n_neighbor_slots; ///< enabled neighbour slots, in slot order
	uint8_t neighbor_slots[THRONG_MAX_SLOTS];
	uint32_t most_cap; ///< largest max_neighbors of those slots
	/// Its enabled wander and wander_noise slots (at most one each,
	/// validate.c), or THR_NO_ANGLE_SLOT.
	uint8_t wander_slot, noise_slot;
} thr_arch_info;

struct throng_world {
	throng_world_def def;
	uint32_t count;
	uint32_t id_end;   ///< every id given so far is below it (the next agent's id); ids are never reused
	uint32_t capacity; ///< def.capacity rounded up to THR_LANES
	uint64_t step;
	uint32_t rng_key;  ///< thr_rng_key(def.seed)

	thr_store store; ///< owns every per-agent array below

	// Views of the store's current set of single arrays (store.c rebinds
	// them after a reorder), and slot_of, the inverse of id.
	uint32_t *id, *slot_of;
	float *max_speed, *max_force, *radius;
	uint32_t *archetype, *group, *target_agent, *path;
	float *tx, *ty;
	float* health;   ///< combat: what is left (0 for an agent whose archetype has no combat)
	uint32_t* ready; ///< combat: the step count from which it may strike again
	uint32_t* combat_state; ///< combat: what the last step did to it (THRONG_COMBAT_* bits); not kept by checkpoints
	uint32_t* unit;  ///< units (units.c): its unit, or THRONG_NO_UNIT
	float *wander, *noise; ///< the persistent wander angles (rad): the step advances them at its end (core/angles.c)
	float max_radius; ///< largest agent radius spawned

	throng_controller* archetypes;
	uint32_t archetype_count, archetype_cap;

	thr_arch_info* arch; ///< per archetype, refreshed each step (thr_world_refresh_arch)
	uint32_t arch_cap;

	thr_path* paths;
	uint32_t path_count, path_cap;
	vec2* waypoints;
	uint32_t waypoint_count, waypoint_cap;

	thr_obstacle* obstacles;
	uint32_t obstacle_count, obstacle_cap;
	thr_wall* walls;
	uint32_t wall_count, wall_cap;
	int shapes_dirty; ///< obstacle or wall grid must be rebuilt

	vec2 threat_p, threat_v;
	bool threat_active;

	// Grids and the scalar engine's scratch.
	thr_grid agent_grid;
	thr_box_grid obstacle_grid;
	thr_box_grid wall_grid;
	float shape_cell; ///< cell size the shape grids were built with
	/// Per cell of the shape grids (both share one layout): a lower bound
	/// of the distance from any point of the cell to any obstacle or
	/// wall, in 255ths of a cell (255: a cell or more). Filled with the
	/// grids; NULL when there are no shapes.
	uint8_t* shape_clear;
	uint32_t shape_clear_cap;
	/// Per listed cell of the agent grid (every cell, or the occupied ones
	/// of a sparse grid), then per row of cells, on steps with a
	/// target rule due: bit (g & 7) set when an agent of group g lies in
	/// the cell or row (targeting.c).
	uint8_t* cell_groups;
	size_t cell_groups_cap;
	uint32_t* scratch_idx;
	uint32_t scratch_idx_cap;
	thr_neighbor* scratch_nb;
	uint32_t scratch_nb_cap;

	// Recorded forces (def.record_forces): slot k of the agent at slot s
	// is at force_x[thr_force_index(w, k, s)].
	float *force_x, *force_y;
	float *total_x, *total_y;

	throng_world_stats stats;

	// Counters (throng_world_set_counting, core/counters.c).
	uint32_t counting;                 ///< throng_counting bits
	throng_world_counters count_last;  ///< the last step's
	throng_world_counters count_total; ///< summed since counting was set

	/// Team size of each region (thr_region) as last noted; every step
	/// clears it first, so after one a 0 means the region did not run.
	/// Read only by tests.
	uint32_t region_team[THR_REGION_COUNT];

	struct thr_simd_state* simd; ///< the SIMD engine's own data (its shape copies), or NULL
	/// The step's scratch (arena.h): every item a stage takes for one step,
	/// all given back by the step's end (core/step.c); empty between steps.
	thr_arena arena;
	struct thr_contact_data* contact; ///< the contact stage's own (contact/internal.h: its grid and runs), or NULL
	struct thr_part* part;            ///< a part world's data (part.h), or NULL
	thr_part_def whole;               ///< a part world's figures of the whole world (thr_part_make); zeros in a whole world
	uint32_t shape_version;      ///< bumped whenever the shape grids are rebuilt
	thr_team team;               ///< how many threads the next step uses (team.h)
	thr_step_record published;   ///< what the last step published (thr_step_record)
	uint32_t* reorder;           ///< the record's reorder (reorder_cap entries, and THR_LANES more): the step's own
	                             ///< copy of it; from a step's reorder to its copy the contact stage's nearest
	                             ///< neighbour distances (thr_contact_bind_store)
	uint32_t reorder_cap;
	// Events and zones (core/events.c).
	throng_event* events;   ///< what throng_world_events lists
	uint32_t event_count, event_cap;
	uint32_t events_calls;  ///< where the events of the calls since the last step begin
	struct thr_zone* zones;
	uint32_t zone_count, zone_cap;
	float arrival_radius;   ///< throng_world_set_arrival_radius (0: no arrivals)
	/// By id: bit z while the agent was inside zone z after the last step,
	/// bit THR_AT_GOAL_BIT while it was within the arrival radius; NULL
	/// until the first zone or arrival radius (inside_cap entries, 0 for an
	/// id not yet given).
	uint64_t* inside;
	uint32_t inside_cap;
	/// Sinks (zones with throng_zone_def.sink): what the step found in them
	/// and the room to remove them once the step shows (thr_events_sinks),
	/// all reserved before the step commits, so that removing cannot fail.
	uint32_t* sink_ids;      ///< ids that entered a sink, by increasing id (sink_n of them)
	uint32_t* sink_zones;    ///< the sink each entered (the lowest id when several)
	uint8_t* sink_dead;      ///< by slot
	uint32_t* sink_scratch;  ///< 2 entries a slot
	uint32_t sink_n, sink_cap;
	// Sources (core/sources.c): what they are and have done, and the room
	// a step reserves for them before it commits (thr_sources_reserve).
	struct thr_source* sources;
	uint32_t source_count, source_cap;
	uint32_t source_room;    ///< events the sources may list after the step being taken

	// Combat (combat.c): the step's strikes, found before the flip and
	// applied after the sinks.
	struct thr_strike* strikes;
	uint32_t strike_n, strike_cap;
	struct thr_missile* missiles; ///< in flight, in the order they were shot (step, then shooter id)
	uint32_t missile_n, missile_cap;
	throng_body* bodies; ///< the dead's bodies, in the order they fell (throng_world_bodies)
	uint32_t body_n, body_cap;
	uint32_t combat_room; ///< deaths the step being taken may list (its strikes that hit)
	bool combat_marked;   ///< some agent's combat_state is not 0 (thr_combat_apply clears them next step)
	// Units (units.c): what they are, and their state after the last step.
	struct thr_unit* units;
	uint32_t unit_count, unit_cap;
	uint32_t unit_armies; ///< units whose army_first is known (units.c, army_breaks)
	float* source_near;      ///< 3 floats an entry (x, y, radius): agents near the source at work
	uint32_t source_near_cap;
	/// Bumped whenever an agent is added, removed or moved, or slots move
	/// (thr_agents_changed): whoever keeps an index over the agents
	/// between steps compares it with the value it was built at.
	uint64_t agents_version;
	struct thr_query_index* query; ///< the spatial queries' index (query.h), built lazily
};

/// Notes that agents were added, removed or moved, or their slots moved.
static inline void thr_agents_changed(throng_world* w)
{
	w->agents_version++;
}

/// Publishes w's record: the step it has just reached, `previous`, the
/// reorder (the store's, NULL: none), the agent count and what the
/// contact stage did.
static inline void thr_publish_step(throng_world* w, const thr_state* previous, const uint32_t* reorder,
                                    const thr_contact_report* contact)
{
	w->published.step = w->step;
	w->published.previous = previous;
	w->published.reorder = reorder;
	w->published.count = w->count;
	w->published.contact = *contact;
}

/// Makes store buffer b (0 or 1) hold w's current state; the other then
/// holds the state before it. The step's one flip at its end
/// (core/step.c), and a part world's load into the other buffer
/// (throng_part_load_next, core/part.c).
static inline void thr_make_current(throng_world* w, int b)
{
	w->store.cur = b;
	thr_agents_changed(w);
}

/// Whether slot i holds a part world's ghost, in a step's mask of ghosts
/// by slot (thr_step_ctx.ghost: bit i & 7 of ghost[i >> 3]; NULL in a
/// whole world, which has none). A ghost is stepped, but its figures are
/// another part's (core/part.h).
static inline bool thr_slot_ghost(const uint8_t* ghost, uint32_t i)
{
	return ghost != NULL && ((ghost[i >> 3] >> (i & 7u)) & 1u) != 0;
}

/// The whole world's agent count: w->count in a whole world, the live
/// count its driver set in a part world (part.h).
static inline uint32_t thr_whole_count(const throng_world* w)
{
	return w->part != NULL ? w->whole.count : w->count;
}

/// Every id of w is below it: the ids given so far in a whole world (some
/// removed), the id space in a part world (part.h).
static inline uint32_t thr_id_end(const throng_world* w)
{
	return w->part != NULL ? w->whole.id_space : w->id_end;
}

/// THRONG_OK, or an invalid-argument error naming `fn` when w is NULL.
throng_status thr_check_world(const void* w, const char* fn);

/// Adds agent `a` (checked) at slot w->count with id w->id_end, listed
/// ADDED (by `source`, or THRONG_NO_SOURCE), the stats following; room in
/// the store, the ids and the events reserved first (core/world.c). The
/// caller notes the change (thr_agents_changed) once its batch is in.
void thr_spawn_one(throng_world* w, const throng_agent_def* a, uint32_t source);

/// Removes the agents marked in `dead` (by slot, w->count entries, the
/// first at slot `first`; `scratch` 2 * w->count entries, thr_store_remove),
/// whose ids are ids[0..n) by increasing id: whoever targeted one targets
/// nobody, each is listed REMOVED (in zones[k], the sink it entered, or
/// THRONG_NO_ZONE when zones is NULL; event room reserved first), and the
/// stats and the step record follow: it still describes the survivors,
/// whose previous state moved with them (core/world_agents.c). Cannot fail.
void thr_remove_marked(throng_world* w, const uint8_t* dead, uint32_t first, uint32_t* scratch, const uint32_t* ids,
                       const uint32_t* zones, const uint32_t* killers, uint32_t n);

/// The slot of agent `id` into *slot, or THRONG_ERR_NOT_FOUND naming `fn`
/// and the id (never given, removed, or not in this part world).
throng_status thr_find_agent(const throng_world* w, uint32_t id, const char* fn, uint32_t* slot);

/// Notes the calling thread's team size as region r's. Call it from one
/// iteration of the region's loop (the first), never from two.
static inline void thr_note_team(throng_world* w, thr_region r)
{
#ifdef _OPENMP
	w->region_team[r] = (uint32_t)omp_get_num_threads();
#else
	w->region_team[r] = 1;
#endif
}

/// Where the recorded force of slot k of the agent at slot s lies.
static inline size_t thr_force_index(const throng_world* w, uint32_t k, uint32_t s)
{
	return (size_t)k * w->capacity + s;
}

static inline thr_state* thr_cur(throng_world* w) { return &w->store.buf[w->store.cur]; }
static inline const thr_state* thr_cur_c(const throng_world* w) { return &w->store.buf[w->store.cur]; }

// Grid rules (world_grid.c), one definition each for both engines.

/// The enabled neighbour slots of an archetype (throng_behavior_reads_neighbors),
/// its query radius (throng_controller_query_radius) and the largest of
/// their caps.
thr_arch_info thr_arch_neighbors(const throng_controller* c);

/// Refreshes w->arch (thr_arch_neighbors of every archetype).
throng_status thr_world_refresh_arch(throng_world* w);

/// Gives point grid g, just laid over the world's bounds, the world's
/// periods when its bounds wrap (grid.h, thr_grid_walk): its neighbour
/// walks then continue across the seam.
static inline void thr_grid_wrap(thr_grid* g, const throng_world_def* d)
{
	if (d->bounds_mode == THRONG_BOUNDS_WRAP) {
		g->period_x = d->bounds_max.x - d->bounds_min.x;
		g->period_y = d->bounds_max.y - d->bounds_min.y;
	}
}

/// A world's periods, for relative vectors at their nearest image.
typedef struct thr_period {
	bool wrap;               ///< the bounds wrap (a torus)
	float px, py, hx, hy;    ///< width, height, and half of each
} thr_period;

static inline thr_period thr_world_period(const throng_world* w)
{
	const throng_world_def* d = &w->def;
	const float px = d->bounds_max.x - d->bounds_min.x, py = d->bounds_max.y - d->bounds_min.y;
	return (thr_period){d->bounds_mode == THRONG_BOUNDS_WRAP, px, py, 0.5f * px, 0.5f * py};
}

/// (dx, dy) = p_j - p_i at its nearest image in a wrap world
/// (thr_min_image_d along each axis); untouched otherwise.
static inline void thr_period_image(const thr_period* p, float* dx, float* dy)
{
	if (p->wrap) {
		*dx = thr_min_image_d(*dx, p->px, p->hx);
		*dy = thr_min_image_d(*dy, p->py, p->hy);
	}
}

/// (x, y) at its image nearest to (xi, yi) in a wrap world
/// (thr_min_image along each axis); untouched otherwise.
static inline void thr_period_shift(const thr_period* p, float* x, float* y, float xi, float yi)
{
	if (p->wrap) {
		*x = thr_min_image(*x, xi, p->px, p->hx);
		*y = thr_min_image(*y, yi, p->py, p->hy);
	}
}

/// The cell size the agent grid uses: def.cell_size, or the largest
/// neighbour radius among enabled neighbour slots, but at least twice the
/// largest agent radius (so overlap queries stay within 3x3 cells).
float thr_world_cell_size(const throng_world* w);

/// Most cells a dense grid of this world may have (the cell size grows past
/// it), and most cells across and up of a sparse agent grid.
uint32_t thr_world_max_cells(const throng_world* w);

/// Largest look-ahead of enabled obstacle or wall slots plus the largest
/// agent radius (the reach of a feeler query).
float thr_world_feeler_reach(const throng_world* w, throng_behavior_kind kind);

/// Rebuilds the obstacle and wall grids when shapes or reaches changed.
throng_status thr_world_update_shape_grids(throng_world* w);

/// A thr_self for the agent at `slot` of state `st`.
thr_self thr_world_self(const throng_world* w, const thr_state* st, uint32_t slot);

#endif
