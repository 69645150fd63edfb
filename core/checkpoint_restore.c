// SPDX-License-Identifier: MIT
// A world made from a checkpoint's sections (checkpoint.c has checked the
// header, the size and the checksum).
//
// The world's tables go back through the public calls that made them
// (throng_world_create, add_archetype, add_unit, add_path, add_obstacle,
// add_wall, add_zone, add_source, set_threat, set_counting), so they are
// checked as they were then; a refusal becomes THRONG_ERR_CORRUPT naming
// the byte offset of the record. A unit's state, which no call sets, is
// checked field by field against its def and the world's step and ids.
// The agents go straight into the store's arrays, in the saved slot
// order, and are checked there: ids below id_end and never twice, finite
// state, limits in range, archetypes, paths, units and target agents that
// exist. Any failure destroys the half-made world.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "combat.h"
#include "checkpoint.h"
#include "error.h"
#include "events.h"
#include "sources.h"
#include "units.h"
#include "validate.h"
#include "world_internal.h"

/// The format version in the header (checked by checkpoint.c).
static uint32_t ck_version(const thr_ck_io* io)
{
	return (uint32_t)thr_ck_get_le(io->data + 8, 4);
}

/// What the world section holds beyond the def.
typedef struct ck_head {
	throng_world_def def;
	uint64_t step;
	uint32_t count, id_end, counting;
	float max_radius;
	throng_vec2 threat_p, threat_v;
	bool threat_active;
	size_t def_at, threat_at, counting_at; ///< byte offsets, for messages
} ck_head;

/// Turns a refusal of a public call that takes a record at byte `at`
/// into THRONG_ERR_CORRUPT: "what: " (when not empty) and the call's
/// message (out of memory stays itself).
/// Returns true when st is a failure.
static bool refused(thr_ck_io* io, throng_status st, size_t at, const char* what)
{
	if (st == THRONG_OK || io->st != THRONG_OK) {
		return io->st != THRONG_OK || st != THRONG_OK;
	}
	if (st == THRONG_ERR_OUT_OF_MEMORY) {
		io->st = st;
		return true;
	}
	char why[400];
	snprintf(why, sizeof why, "%s", throng_last_error()); // thr_ck_corrupt overwrites it
	thr_ck_corrupt(io, at, "%s%s%s", what, what[0] != '\0' ? ": " : "", why);
	return true;
}

static void out_of_memory(thr_ck_io* io, const char* what)
{
	if (io->st == THRONG_OK) {
		io->st = thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory for the %s", io->name, what);
	}
}

static void read_head(thr_ck_io* io, ck_head* h)
{
	if (!thr_ck_open_section(io, THR_CK_WORLD)) {
		return;
	}
	h->def = throng_world_default_def(); // its cookie; every field is read
	h->def_at = io->pos;
	thr_ck_def(io, &h->def);
	thr_ck_u64(io, &h->step);
	const size_t count_at = io->pos;
	thr_ck_u32(io, &h->count);
	thr_ck_u32(io, &h->id_end);
	const size_t radius_at = io->pos;
	thr_ck_f32(io, &h->max_radius);
	h->threat_at = io->pos;
	thr_ck_f32(io, &h->threat_p.x);
	thr_ck_f32(io, &h->threat_p.y);
	thr_ck_f32(io, &h->threat_v.x);
	thr_ck_f32(io, &h->threat_v.y);
	thr_ck_bool(io, &h->threat_active);
	h->counting_at = io->pos;
	thr_ck_u32(io, &h->counting);
	thr_ck_close_section(io);
	if (io->st != THRONG_OK) {
		return;
	}
	if (h->id_end > THR_MAX_IDS || h->count > THR_MAX_CAPACITY || h->count > h->id_end) {
		thr_ck_corrupt(io, count_at, "%u agents with ids below %u (at most %u agents, ids below %u)", h->count,
		               h->id_end, THR_MAX_CAPACITY, THR_MAX_IDS);
	} else if (!(h->max_radius >= 0.0f && h->max_radius <= 1.0e6f)) {
		thr_ck_corrupt(io, radius_at, "the largest radius is %g (0 to 1e6)", (double)h->max_radius);
	}
}

static void read_units(thr_ck_io* io, throng_world* w, const ck_head* h);
static void read_zones(thr_ck_io* io, throng_world* w);
static void read_sources(thr_ck_io* io, throng_world* w);

static void read_tables(thr_ck_io* io, throng_world* w, const ck_head* h)
{
	char what[64];
	if (thr_ck_open_section(io, THR_CK_ARCHETYPES)) {
		uint32_t n = 0;
		thr_ck_u32(io, &n);
		for (uint32_t a = 0; a < n && io->st == THRONG_OK; ++a) {
			const size_t at = io->pos;
			throng_controller c;
			memset(&c, 0, sizeof c);
			thr_ck_controller(io, &c, ck_version(io));
			snprintf(what, sizeof what, "archetype %u", a);
			refused(io, io->st == THRONG_OK ? throng_world_add_archetype(w, &c, NULL) : THRONG_OK, at, what);
		}
		thr_ck_close_section(io);
	}
	if (io->st == THRONG_OK && ck_version(io) >= 6u && thr_ck_open_section(io, THR_CK_UNITS)) {
		read_units(io, w, h);
		thr_ck_close_section(io);
	}
	if (thr_ck_open_section(io, THR_CK_PATHS)) {
		uint32_t n = 0;
		thr_ck_u32(io, &n);
		throng_vec2* points = malloc(THRONG_MAX_WAYPOINTS * sizeof *points);
		if (points == NULL) {
			out_of_memory(io, "paths");
		}
		for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
			const size_t at = io->pos;
			uint32_t count = 0;
			bool loop = false;
			thr_ck_u32(io, &count);
			thr_ck_bool(io, &loop);
			if (io->st == THRONG_OK && (count < 1 || count > THRONG_MAX_WAYPOINTS)) {
				thr_ck_corrupt(io, at, "path %u has %u waypoints (1 to %d)", k, count, THRONG_MAX_WAYPOINTS);
			}
			thr_ck_column(io, points, 2u * (size_t)count);
			snprintf(what, sizeof what, "path %u", k);
			refused(io, io->st == THRONG_OK ? throng_world_add_path(w, points, count, loop, NULL) : THRONG_OK, at,
			        what);
		}
		free(points);
		thr_ck_close_section(io);
	}
	if (thr_ck_open_section(io, THR_CK_OBSTACLES)) {
		uint32_t n = 0;
		thr_ck_u32(io, &n);
		for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
			const size_t at = io->pos;
			throng_vec2 c;
			float r = 0.0f;
			thr_ck_f32(io, &c.x);
			thr_ck_f32(io, &c.y);
			thr_ck_f32(io, &r);
			snprintf(what, sizeof what, "obstacle %u", k);
			refused(io, io->st == THRONG_OK ? throng_world_add_obstacle(w, c, r, NULL) : THRONG_OK, at, what);
		}
		thr_ck_close_section(io);
	}
	if (thr_ck_open_section(io, THR_CK_WALLS)) {
		uint32_t n = 0;
		thr_ck_u32(io, &n);
		for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
			const size_t at = io->pos;
			throng_vec2 a, b;
			thr_ck_f32(io, &a.x);
			thr_ck_f32(io, &a.y);
			thr_ck_f32(io, &b.x);
			thr_ck_f32(io, &b.y);
			snprintf(what, sizeof what, "wall %u", k);
			refused(io, io->st == THRONG_OK ? throng_world_add_wall(w, a, b, NULL) : THRONG_OK, at, what);
		}
		thr_ck_close_section(io);
	}
	if (io->st == THRONG_OK && thr_ck_open_section(io, THR_CK_ZONES)) {
		read_zones(io, w);
		thr_ck_close_section(io);
	}
	if (io->st == THRONG_OK && ck_version(io) >= 2u && thr_ck_open_section(io, THR_CK_SOURCES)) {
		read_sources(io, w);
		thr_ck_close_section(io);
	}
}

/// Checks the state of unit k, whose record starts at byte `at`, against
/// its def and the world section: its counts in order (count <= start <=
/// most, the most no more than the ids there have been), no more rallies
/// left than its def gives, no step after the world's, finite measures, a
/// unit facing.
/// A unit's formation state: an order there is, at a finite point (a
/// turn's a unit vector), a finite anchor and a unit heading; a unit
/// without a formation neither charges nor has an anchor.
static void check_formation(thr_ck_io* io, const thr_unit* u, uint32_t k, size_t at)
{
	const float heading = u->hx * u->hx + u->hy * u->hy;
	const float turn = u->order.point.x * u->order.point.x + u->order.point.y * u->order.point.y;
	if ((unsigned)u->order.kind > THRONG_ORDER_HOLD) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_ORDER, "unit %u: order %u (a throng_order_kind, 0 to %d)", k,
		               (unsigned)u->order.kind, THRONG_ORDER_HOLD);
	} else if (!isfinite(u->order.point.x) || !isfinite(u->order.point.y) ||
	           (u->order.kind == THRONG_ORDER_TURN && !(fabsf(turn - 1.0f) <= 1.0e-4f))) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_ORDER + 4u, "unit %u: its order's point (%g, %g) is not finite (a turn's: "
		               "a unit vector)", k, (double)u->order.point.x, (double)u->order.point.y);
	} else if (u->def.formation.kind == THRONG_FORMATION_NONE && (u->charging || u->anchored)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_CHARGING, "unit %u: has no formation, but %s", k,
		               u->charging ? "charges" : "has an anchor");
	} else if (!isfinite(u->ax) || !isfinite(u->ay)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_ANCHOR, "unit %u: anchor (%g, %g) is not finite", k, (double)u->ax,
		               (double)u->ay);
	} else if (!(fabsf(heading - 1.0f) <= 1.0e-4f)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_HEADING, "unit %u: heading (%g, %g) is not a unit vector", k,
		               (double)u->hx, (double)u->hy);
	}
}

static void check_unit(thr_ck_io* io, const thr_unit* u, uint32_t k, size_t at, const ck_head* h)
{
	const unsigned long long routed = u->routed_step, step = h->step;
	const float facing = u->fx * u->fx + u->fy * u->fy;
	if (!(u->count <= u->start && u->start <= u->most && u->most <= h->id_end)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_COUNT, "unit %u: count %u, most %u, start %u (count <= start <= most <= "
		               "the ids' end %u)", k, u->count, u->most, u->start, h->id_end);
	} else if (u->rallies_left > u->def.morale.rallies) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_RALLIES_LEFT, "unit %u: %u rallies left of the %u its morale gives", k,
		               u->rallies_left, u->def.morale.rallies);
	} else if (u->quiet > h->step) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_QUIET, "unit %u: quiet for %u steps (the world is at step %llu)", k,
		               u->quiet, step);
	} else if (u->routed_step == UINT64_MAX && (u->routing || u->rallies_left < u->def.morale.rallies)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_ROUTED_STEP, "unit %u: never routed (routed_step UINT64_MAX), but %s (%u "
		               "of %u rallies left)", k, u->routing ? "routing" : "rallied", u->rallies_left,
		               u->def.morale.rallies);
	} else if (u->routed_step != UINT64_MAX && u->routed_step > h->step) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_ROUTED_STEP, "unit %u: routed in step %llu, after the world's step %llu",
		               k, routed, step);
	} else if (!(u->base > 0.0f && u->base <= 1.0f)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_BASE, "unit %u: base morale %g (above 0, at most 1)", k, (double)u->base);
	} else if (!(isfinite(u->shock) && u->shock >= 0.0f)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_SHOCK, "unit %u: shock %g (finite, 0 or more)", k, (double)u->shock);
	} else if (!(isfinite(u->morale) && u->morale <= u->base)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_MORALE, "unit %u: morale %g (finite, at most its base %g)", k,
		               (double)u->morale, (double)u->base);
	} else if (!isfinite(u->cx) || !isfinite(u->cy)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_CENTRE, "unit %u: centre (%g, %g) is not finite", k, (double)u->cx,
		               (double)u->cy);
	} else if (!(fabsf(facing - 1.0f) <= 1.0e-4f)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_FACING, "unit %u: facing (%g, %g) is not a unit vector", k, (double)u->fx,
		               (double)u->fy);
	} else if (!isfinite(u->rx) || !isfinite(u->ry)) {
		thr_ck_corrupt(io, at + THR_CK_UNIT_REFUGE, "unit %u: refuge (%g, %g) is not finite", k, (double)u->rx,
		               (double)u->ry);
	} else {
		check_formation(io, u, k, at);
	}
}

/// The units section (from version 6; army_breaks_at from 7): each unit's def through the public
/// call (its checks), then its state, checked.
static void read_units(thr_ck_io* io, throng_world* w, const ck_head* h)
{
	const uint32_t version = ck_version(io);
	size_t at = io->pos;
	uint32_t n = 0;
	thr_ck_u32(io, &n);
	const size_t bytes = version >= 7u ? THR_CK_UNIT_BYTES : THR_CK_UNIT_BYTES_V6;
	if (io->st == THRONG_OK && (n > THRONG_MAX_UNITS || io->end - io->pos != (size_t)n * bytes)) {
		thr_ck_corrupt(io, at, "%u units in %zu bytes (%zu expected; at most %u units)", n, io->end - io->pos,
		               (size_t)n * bytes, THRONG_MAX_UNITS);
	}
	for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
		at = io->pos;
		thr_unit u;
		memset(&u, 0, sizeof u); // the step's scratch stays 0, as between steps
		u.def = throng_unit_default_def(); // its cookie; every field is read
		thr_ck_unit(io, &u, version);
		char what[32];
		snprintf(what, sizeof what, "unit %u", k);
		uint32_t id = 0;
		if (!refused(io, io->st == THRONG_OK ? throng_world_add_unit(w, &u.def, &id) : THRONG_OK, at, what)) {
			check_unit(io, &u, k, at, h);
			w->units[id] = u;
		}
	}
}

/// The sources section: each source through the public call (its
/// checks), then its progress.
static void read_sources(thr_ck_io* io, throng_world* w)
{
	const uint32_t version = ck_version(io);
	size_t at = io->pos;
	uint32_t n = 0;
	thr_ck_u32(io, &n);
	if (io->st == THRONG_OK && n > THRONG_MAX_SOURCES) {
		thr_ck_corrupt(io, at, "%u sources (at most %d)", n, THRONG_MAX_SOURCES);
	}
	for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
		at = io->pos;
		throng_source_def d = throng_source_default_def();
		uint64_t added = 0, waited = 0;
		thr_ck_source(io, &d, version);
		if (io->st == THRONG_OK && version >= 6u && d.agent.unit != THRONG_NO_UNIT && d.agent.unit >= w->unit_count) {
			thr_ck_corrupt(io, io->pos - 4u, "source %u: its agents' unit %u, but the world has %u", k, d.agent.unit,
			               w->unit_count); // (the unit is the record's last field)
		}
		thr_ck_u64(io, &added);
		thr_ck_u64(io, &waited);
		char what[32];
		snprintf(what, sizeof what, "source %u", k);
		refused(io, io->st == THRONG_OK ? throng_world_add_source(w, &d, NULL) : THRONG_OK, at, what);
		if (io->st == THRONG_OK) {
			thr_source_restore(w, k, added, waited);
		}
	}
}

/// The zones section: the arrival radius, the zones through the public
/// call (its checks), the membership bits by id.
static void read_zones(thr_ck_io* io, throng_world* w)
{
	size_t at = io->pos;
	float radius = 0.0f;
	uint32_t n = 0;
	thr_ck_f32(io, &radius);
	refused(io, io->st == THRONG_OK ? throng_world_set_arrival_radius(w, radius) : THRONG_OK, at, "arrival radius");
	thr_ck_u32(io, &n);
	if (io->st == THRONG_OK && n > THRONG_MAX_ZONES) {
		thr_ck_corrupt(io, at + 4, "%u zones (at most %d)", n, THRONG_MAX_ZONES);
	}
	throng_vec2* points = io->st == THRONG_OK ? malloc((size_t)THRONG_MAX_WAYPOINTS * sizeof *points) : NULL;
	if (io->st == THRONG_OK && points == NULL) {
		out_of_memory(io, "zones");
	}
	for (uint32_t z = 0; z < n && io->st == THRONG_OK; ++z) {
		at = io->pos;
		throng_zone_def d = throng_zone_default_def();
		uint32_t shape = 0;
		thr_ck_u32(io, &shape);
		d.shape = (throng_zone_shape)shape;
		thr_ck_bool(io, &d.sink);
		thr_ck_name(io, d.name);
		if (shape == THRONG_ZONE_CIRCLE) {
			thr_ck_f32(io, &d.center.x);
			thr_ck_f32(io, &d.center.y);
			thr_ck_f32(io, &d.radius);
		} else if (shape == THRONG_ZONE_BOX) {
			thr_ck_f32(io, &d.min.x);
			thr_ck_f32(io, &d.min.y);
			thr_ck_f32(io, &d.max.x);
			thr_ck_f32(io, &d.max.y);
		} else {
			thr_ck_u32(io, &d.point_count);
			if (io->st == THRONG_OK && d.point_count > THRONG_MAX_WAYPOINTS) {
				thr_ck_corrupt(io, io->pos - 4, "zone %u: %u points (at most %d)", z, d.point_count,
				               THRONG_MAX_WAYPOINTS);
			}
			if (io->st == THRONG_OK) {
				thr_ck_column(io, points, 2u * (size_t)d.point_count);
			}
			d.points = points;
		}
		char what[32];
		snprintf(what, sizeof what, "zone %u", z);
		refused(io, io->st == THRONG_OK ? throng_world_add_zone(w, &d, NULL) : THRONG_OK, at, what);
	}
	free(points);
	at = io->pos;
	uint32_t ids = 0;
	thr_ck_u32(io, &ids);
	if (io->st != THRONG_OK || ids == 0) {
		return;
	}
	if (io->end - io->pos < (size_t)ids * 8u) {
		thr_ck_corrupt(io, at, "zone membership of %u ids runs past the section's end", ids);
		return;
	}
	uint64_t* bits = malloc((size_t)ids * sizeof *bits);
	if (bits == NULL) {
		out_of_memory(io, "zone membership");
		return;
	}
	for (uint32_t id = 0; id < ids && io->st == THRONG_OK; ++id) {
		thr_ck_u64(io, &bits[id]);
	}
	refused(io, io->st == THRONG_OK ? thr_events_restore_inside(w, bits, ids) : THRONG_OK, at, "");
	free(bits);
}

/// Where the agents' columns start and how long each is, for messages.
typedef struct ck_columns {
	size_t at;    ///< byte offset of column 0
	uint32_t n;   ///< agents (entries per column)
} ck_columns;

static size_t agent_at(const ck_columns* c, uint32_t column, uint32_t slot)
{
	return c->at + ((size_t)column * c->n + slot) * 4u;
}

/// Checks the agents just read into w's store (c->n of them).
static void check_agents(thr_ck_io* io, throng_world* w, const ck_head* h, const ck_columns* c)
{
	const thr_state* s = thr_cur_c(w);
	static const char* const names[8] = {"x", "y", "vx", "vy", "hx", "hy", "wander angle", "noise angle"};
	const float* const state[8] = {s->px, s->py, s->vx, s->vy, s->hx, s->hy, w->wander, w->noise};
	for (uint32_t i = 0; i < c->n && io->st == THRONG_OK; ++i) {
		const uint32_t id = w->id[i];
		if (id >= h->id_end) {
			thr_ck_corrupt(io, agent_at(c, 0, i), "slot %u: id %u, but ids end at %u", i, id, h->id_end);
			break;
		}
		if (w->slot_of[id] != THR_NO_SLOT) {
			thr_ck_corrupt(io, agent_at(c, 0, i), "slot %u: id %u again (slot %u has it)", i, id, w->slot_of[id]);
			break;
		}
		w->slot_of[id] = i;
		for (uint32_t k = 0; k < 8; ++k) {
			if (!isfinite(state[k][i])) {
				thr_ck_corrupt(io, agent_at(c, 1 + k, i), "agent %u: %s is %g", id, names[k], (double)state[k][i]);
			}
		}
		if (!isfinite(w->tx[i]) || !isfinite(w->ty[i])) {
			thr_ck_corrupt(io, agent_at(c, isfinite(w->tx[i]) ? 18 : 17, i), "agent %u: its target point is not finite",
			               id);
		}
		const float limits[3] = {w->max_speed[i], w->max_force[i], w->radius[i]};
		static const char* const limit_names[3] = {"max_speed", "max_force", "radius"};
		for (uint32_t k = 0; k < 3; ++k) {
			if (!(limits[k] >= 1.0e-6f && limits[k] <= 1.0e6f)) {
				thr_ck_corrupt(io, agent_at(c, 10 + k, i), "agent %u: %s is %g (1e-6 to 1e6)", id, limit_names[k],
				               (double)limits[k]);
			}
		}
		if (w->radius[i] > h->max_radius) {
			thr_ck_corrupt(io, agent_at(c, 12, i), "agent %u: radius %g above the largest radius %g", id,
			               (double)w->radius[i], (double)h->max_radius);
		}
		if (w->archetype[i] >= w->archetype_count) {
			thr_ck_corrupt(io, agent_at(c, 13, i), "agent %u: archetype %u, but the world has %u", id, w->archetype[i],
			               w->archetype_count);
		}
		if (!(w->health[i] >= 0.0f && w->health[i] <= 1.0e6f)) {
			thr_ck_corrupt(io, agent_at(c, 19, i), "agent %u: health %g (0 to 1e6)", id, (double)w->health[i]);
		}
		if (w->path != NULL && w->path[i] != THRONG_NO_PATH && w->path[i] >= w->path_count) {
			thr_ck_corrupt(io, agent_at(c, 16, i), "agent %u: path %u, but the world has %u", id, w->path[i],
			               w->path_count);
		}
		if (w->unit != NULL && w->unit[i] != THRONG_NO_UNIT && w->unit[i] >= w->unit_count) {
			thr_ck_corrupt(io, agent_at(c, 21, i), "agent %u: unit %u, but the world has %u", id, w->unit[i],
			               w->unit_count);
		}
	}
	// Target agents, once every live id has its slot.
	for (uint32_t i = 0; i < c->n && io->st == THRONG_OK && w->target_agent != NULL; ++i) {
		const uint32_t t = w->target_agent[i];
		if (t != THRONG_NO_AGENT && (t >= h->id_end || w->slot_of[t] == THR_NO_SLOT)) {
			thr_ck_corrupt(io, agent_at(c, 15, i), "agent %u: target agent %u is not a live agent", w->id[i], t);
		}
	}
}

/// The missiles section (version 5): the missiles in flight, each checked.
static void read_missiles(thr_ck_io* io, throng_world* w, const ck_head* h)
{
	if (!thr_ck_open_section(io, THR_CK_MISSILES)) {
		return;
	}
	const size_t at = io->pos;
	uint32_t n = 0;
	thr_ck_u32(io, &n);
	if (io->st == THRONG_OK && io->end - io->pos != (size_t)n * 36u) {
		thr_ck_corrupt(io, at, "%u missiles in %zu bytes (%zu expected)", n, io->end - io->pos, (size_t)n * 36u);
	}
	if (io->st == THRONG_OK && n > 0) {
		thr_missile* m = malloc((size_t)n * sizeof *m);
		if (m == NULL) {
			out_of_memory(io, "missiles");
			return;
		}
		w->missiles = m;
		w->missile_cap = n;
	}
	for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
		const size_t p = io->pos;
		thr_missile* m = &w->missiles[k];
		thr_ck_missile(io, m);
		if (io->st != THRONG_OK) {
			break;
		}
		if (m->target >= h->id_end || m->shooter >= h->id_end) {
			thr_ck_corrupt(io, p, "missile %u: target %u or shooter %u at or above the ids' end %u", k, m->target,
			               m->shooter, h->id_end);
		} else if (!(m->shot < h->step && m->land >= h->step)) {
			thr_ck_corrupt(io, p, "missile %u: shot in step %llu, lands in %llu (the world is at step %llu)", k,
			               (unsigned long long)m->shot, (unsigned long long)m->land, (unsigned long long)h->step);
		} else if (!isfinite(m->x) || !isfinite(m->y) || !(m->damage >= 0.0f && m->damage <= 1.0e6f)) {
			thr_ck_corrupt(io, p, "missile %u: landing point (%g, %g) or damage %g out of range", k, (double)m->x,
			               (double)m->y, (double)m->damage);
		}
		w->missile_n = k + 1u;
	}
	thr_ck_close_section(io);
}

/// The bodies section (version 8): the bodies on the ground, each checked
/// against what the world already holds (its obstacles, archetypes, units
/// and live agents: a body's agent is dead).
static void read_bodies(thr_ck_io* io, throng_world* w, const ck_head* h)
{
	if (!thr_ck_open_section(io, THR_CK_BODIES)) {
		return;
	}
	const size_t at = io->pos;
	uint32_t n = 0;
	thr_ck_u32(io, &n);
	if (io->st == THRONG_OK && io->end - io->pos != (size_t)n * THR_CK_BODY_BYTES) {
		thr_ck_corrupt(io, at, "%u bodies in %zu bytes (%zu expected)", n, io->end - io->pos,
		               (size_t)n * THR_CK_BODY_BYTES);
	}
	if (io->st == THRONG_OK && n > 0) {
		throng_body* b = malloc((size_t)n * sizeof *b);
		if (b == NULL) {
			out_of_memory(io, "bodies");
			return;
		}
		w->bodies = b;
		w->body_cap = n;
	}
	uint64_t last = 0;
	for (uint32_t k = 0; k < n && io->st == THRONG_OK; ++k) {
		const size_t p = io->pos;
		throng_body* b = &w->bodies[k];
		thr_ck_body(io, b);
		if (io->st != THRONG_OK) {
			break;
		}
		const float f = b->facing.x * b->facing.x + b->facing.y * b->facing.y;
		if (b->agent >= h->id_end || b->killer >= h->id_end || w->slot_of[b->agent] != THR_NO_SLOT) {
			thr_ck_corrupt(io, p, "body %u: agent %u (live, or at or above the ids' end %u) or killer %u", k,
			               b->agent, h->id_end, b->killer);
		} else if (b->obstacle >= w->obstacle_count || b->archetype >= w->archetype_count ||
		           (b->unit != THRONG_NO_UNIT && b->unit >= w->unit_count)) {
			thr_ck_corrupt(io, p, "body %u: obstacle %u, archetype %u or unit %u the world lacks", k, b->obstacle,
			               b->archetype, b->unit);
		} else if (!(b->step >= last && b->step <= h->step && b->step > 0)) {
			thr_ck_corrupt(io, p, "body %u: fell at step %llu (after the one before it, by step %llu of the world)",
			               k, (unsigned long long)b->step, (unsigned long long)h->step);
		} else if (!isfinite(b->position.x) || !isfinite(b->position.y) || !(fabsf(f - 1.0f) < 1.0e-3f) ||
		           !(b->radius >= 1.0e-6f && b->radius <= 1.0e6f)) {
			thr_ck_corrupt(io, p, "body %u: position (%g, %g), facing (%g, %g) or radius %g out of range", k,
			               (double)b->position.x, (double)b->position.y, (double)b->facing.x, (double)b->facing.y,
			               (double)b->radius);
		}
		last = b->step;
		w->body_n = k + 1u;
	}
	thr_ck_close_section(io);
}

static void read_agents(thr_ck_io* io, throng_world* w, const ck_head* h)
{
	if (!thr_ck_open_section(io, THR_CK_AGENTS)) {
		return;
	}
	const size_t at = io->pos;
	uint32_t count = 0, columns = 0;
	thr_ck_u32(io, &count);
	thr_ck_u32(io, &columns);
	if (io->st != THRONG_OK) {
		return;
	}
	const uint32_t version = ck_version(io);
	const uint32_t want = version >= 6u   ? THR_CK_AGENT_COLUMNS
	                      : version >= 4u ? THR_CK_AGENT_COLUMNS_V4
	                                      : THR_CK_AGENT_COLUMNS_V3;
	if (count != h->count || columns != want) {
		thr_ck_corrupt(io, at, "%u agents in %u columns (the world section says %u agents; %u columns)", count,
		               columns, h->count, want);
		return;
	}
	// Sizes before allocations: the columns must be there before the store grows for them.
	if (io->end - io->pos != (size_t)count * want * 4u) {
		thr_ck_corrupt(io, io->pos, "%zu bytes of columns for %u agents (%zu expected)", io->end - io->pos, count,
		               (size_t)count * want * 4u);
		return;
	}
	// The target_agent column, made when some agent has a target (store.h).
	const uint8_t* targets = io->data + io->pos + (size_t)15u * count * 4u;
	bool any_target = false;
	for (size_t b = 0; b < (size_t)count * 4u && !any_target; ++b) {
		any_target = targets[b] != 0xffu; // (THRONG_NO_AGENT)
	}
	if (thr_store_grow(w, count) != 0 || thr_store_reserve_ids(w, h->id_end) != 0 ||
	    (any_target && thr_store_reserve_targets(w) != 0)) {
		out_of_memory(io, "agents");
		return;
	}
	thr_state* s = thr_cur(w);
	uint32_t* const col[THR_CK_AGENT_COLUMNS] = {
		w->id,         (uint32_t*)s->px,        (uint32_t*)s->py,     (uint32_t*)s->vx,     (uint32_t*)s->vy,
		(uint32_t*)s->hx, (uint32_t*)s->hy,     (uint32_t*)w->wander, (uint32_t*)w->noise,  s->waypoint,
		(uint32_t*)w->max_speed, (uint32_t*)w->max_force, (uint32_t*)w->radius, w->archetype, w->group,
		w->target_agent, w->path, (uint32_t*)w->tx, (uint32_t*)w->ty, (uint32_t*)w->health, w->ready, w->unit};
	const ck_columns c = {io->pos, count};
	for (uint32_t k = 0; k < want; ++k) {
		if (col[k] != NULL) {
			thr_ck_column(io, col[k], count);
			continue;
		}
		// The waypoints and paths of a world without paths, the units of
		// one without units: none is kept, all are 0, THRONG_NO_PATH and
		// THRONG_NO_UNIT (bytes 0xff); so are the target agents of a world
		// without its target_agent column (all THRONG_NO_AGENT: above).
		const uint8_t fill = k == 9u ? 0u : 0xffu;
		const char* what = k == 9u ? "heads for a waypoint" : k == 16u ? "follows a path" : "belongs to a unit";
		const uint8_t* p = thr_ck_take(io, (size_t)count * 4u);
		for (size_t b = 0; p != NULL && b < (size_t)count * 4u; ++b) {
			if (p[b] != fill) {
				thr_ck_corrupt(io, c.at + (size_t)k * count * 4u + b, "agent in slot %zu %s, but the world has no %s",
				               b / 4u, what, k == 21u ? "unit" : "path");
				break;
			}
		}
	}
	thr_ck_close_section(io);
	for (uint32_t i = 0; version < 6u && w->unit != NULL && i < count; ++i) {
		w->unit[i] = THRONG_NO_UNIT; // (no unit before version 6)
	}
	for (uint32_t i = 0; i < count && !w->store.group_live; ++i) { // (store.h)
		if (w->group[i] != 0u) {
			thr_store_group_live(&w->store);
		}
	}
	for (uint32_t i = 0; i < count && !w->store.combat_live; ++i) { // (store.h)
		if (thr_store_health_set(w->health[i]) || w->ready[i] != 0u) {
			thr_store_combat_live(&w->store);
		}
	}
	if (io->st == THRONG_OK) {
		check_agents(io, w, h, &c);
	}
	if (io->st != THRONG_OK) {
		return;
	}
	w->count = count;
	w->id_end = h->id_end;
	if (version >= 5u) {
		read_missiles(io, w, h);
	}
	if (version >= 8u && io->st == THRONG_OK) {
		read_bodies(io, w, h);
	}
	if (io->st != THRONG_OK || !w->def.record_forces) {
		return;
	}
	if (thr_ck_open_section(io, THR_CK_FORCES)) {
		thr_ck_column(io, w->total_x, count);
		thr_ck_column(io, w->total_y, count);
		for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
			thr_ck_column(io, w->force_x + thr_force_index(w, k, 0), count);
			thr_ck_column(io, w->force_y + thr_force_index(w, k, 0), count);
		}
		thr_ck_close_section(io);
	}
}

throng_status thr_ck_restore(thr_ck_io* io, throng_world** out)
{
	*out = NULL;
	const uint32_t sections = (uint32_t)thr_ck_get_le(io->data + 20, 4);
	ck_head h;
	memset(&h, 0, sizeof h);
	read_head(io, &h);
	if (io->st != THRONG_OK) {
		return io->st;
	}
	// Version 1 had no sources section, versions before 5 no missiles
	// section, before 6 no units section, before 8 no bodies section.
	const uint32_t version = ck_version(io);
	const uint32_t want = (h.def.record_forces ? 9u : 8u) + (version >= 2u ? 1u : 0u) + (version >= 5u ? 1u : 0u) +
	                      (version >= 6u ? 1u : 0u) + (version >= 8u ? 1u : 0u);
	if (sections != want) {
		thr_ck_corrupt(io, 20, "%u sections (a version %u world %s recorded forces has %u)", sections, version,
		               h.def.record_forces ? "with" : "without", want);
		return io->st;
	}
	throng_world_stats stats;
	memset(&stats, 0, sizeof stats);
	if (thr_ck_open_section(io, THR_CK_STATS)) {
		thr_ck_stats(io, &stats);
		thr_ck_close_section(io);
	}
	throng_world* w = NULL;
	if (io->st == THRONG_OK) {
		// Room for the agents there are, not for the def's capacity (a hint
		// that may be far larger than the world now is, or made up): the
		// store grows past it as it would have (growing changes no bit), and
		// the def keeps its capacity, which sizes the grids.
		throng_world_def made = h.def;
		made.capacity = h.count > 0 ? h.count : 1u;
		if (!refused(io, thr_validate_def(&h.def), h.def_at, "")) {
			refused(io, throng_world_create(&made, &w), h.def_at, "");
		}
		if (w != NULL) {
			w->def.capacity = h.def.capacity;
		}
	}
	if (io->st == THRONG_OK) {
		read_tables(io, w, &h);
	}
	if (io->st == THRONG_OK) {
		refused(io, throng_world_set_threat(w, h.threat_p, h.threat_v, h.threat_active), h.threat_at, "threat");
	}
	if (io->st == THRONG_OK) {
		refused(io, throng_world_set_counting(w, h.counting), h.counting_at, "counting");
	}
	if (io->st == THRONG_OK) {
		read_agents(io, w, &h);
	}
	if (io->st == THRONG_OK && io->pos != io->size - THR_CK_CHECKSUM_BYTES) {
		thr_ck_corrupt(io, io->pos, "%zu bytes after the last section", io->size - THR_CK_CHECKSUM_BYTES - io->pos);
	}
	if (io->st != THRONG_OK) {
		throng_world_destroy(w);
		return io->st;
	}
	w->step = h.step;
	w->max_radius = h.max_radius;
	w->stats = stats;
	w->shapes_dirty = 1;
	w->published.step = UINT64_MAX; // no step of this world has run: nothing is published
	thr_agents_changed(w);
	*out = w;
	return THRONG_OK;
}
