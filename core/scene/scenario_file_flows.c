// SPDX-License-Identifier: MIT
// Scenario files: zones and sources (version 2), the world's ways in and
// out. Their plain keys are rows of sf_zone_table and sf_source_table,
// picked by `shape` as a spawn's are; here are the parts no row can type
// (names, a polygon's points, a source's archetype and stop time), the
// checks within an entry, and the sources' archetypes resolved by name
// once every section is read.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"
#include "validate.h"
#include "vec.h"

/// A name of at most 31 bytes (the world's zone and source names) into out.
static bool read_short_name(sf_ctx* c, const sf_node* v, const char* what, char out[32])
{
	char* name = NULL;
	if (!sf_read_name(c, v, what, &name)) {
		return false;
	}
	const size_t len = strlen(name);
	if (len >= 32u) {
		sf_error(c, v->pos, "got a name of %zu characters (expected at most 31)", len);
		free(name);
		return false;
	}
	memcpy(out, name, len + 1u);
	free(name);
	return true;
}

static bool zone_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_zone* z = base;
	(void)map;
	if (k->part == SF_ZONE_NAME) {
		return read_short_name(c, v, "a zone", z->def.name);
	}
	return sf_read_points(c, v, 3, THRONG_MAX_WAYPOINTS, &z->points, &z->point_count);
}

static void read_zone(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_zone* z = item;
	(void)key;
	(void)index;
	z->def = throng_zone_default_def();
	z->pos = v->pos;
	if (!sf_expect_mapping(c, v, "a mapping with shape and its parameters")) {
		return;
	}
	const int shape = sf_read_shape(c, v, &sf_zone_table, "zone shape");
	if (shape < 0) {
		return;
	}
	z->def.shape = (throng_zone_shape)shape;
	const uint64_t failed = sf_read_keys(c, v, &sf_zone_table, z, 1u << shape, zone_part);
	if (failed == 0 && shape == THRONG_ZONE_BOX && !(z->def.min.x <= z->def.max.x && z->def.min.y <= z->def.max.y)) {
		sf_error_at(c, "max", sf_get(v, "max")->pos, "got (%g, %g), below min (%g, %g) (expected max >= min)",
		            (double)z->def.max.x, (double)z->def.max.y, (double)z->def.min.x, (double)z->def.min.y);
	}
}

/// Names given twice in a list of entries, each with a name at `name` bytes in.
static void check_unique(sf_ctx* c, const sf_node* n, const void* items, uint32_t count, size_t size, size_t name,
                         const char* what)
{
	const char* base = items;
	for (uint32_t k = 1; base != NULL && k < count; ++k) {
		const char* a = base + (size_t)k * size + name;
		for (uint32_t j = 0; a[0] != '\0' && j < k; ++j) {
			if (strcmp(a, base + (size_t)j * size + name) == 0) {
				size_t mark = sf_push_index(c, k);
				sf_error_at(c, "name", sf_get(n->items[k], "name")->pos,
				            "\"%s\" names %s %u too (expected a name of its own)", a, what, j);
				sf_pop(c, mark);
				break;
			}
		}
	}
}

void sf_parse_zones(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->zones = sf_read_list(c, n, "a list of zones {shape: circle, center: [x, y], radius: r}", "zones", SF_MAX_ZONES,
	                        sizeof *m->zones, &m->zone_count, read_zone);
	check_unique(c, n, m->zones, m->zone_count, sizeof *m->zones, offsetof(sf_zone, def.name), "zone");
}

static bool source_part(sf_ctx* c, const sf_key* k, const sf_node* map, const sf_node* v, void* base)
{
	sf_source* s = base;
	(void)map;
	switch (k->part) {
	case SF_SOURCE_NAME: return read_short_name(c, v, "a source", s->def.name);
	case SF_SOURCE_ARCHETYPE:
		s->archetype_pos = v->pos;
		return sf_read_name(c, v, "an archetype", &s->archetype_name);
	default: return sf_read_number(c, v, SF_NON_NEGATIVE, &s->def.stop);
	}
}

static void read_source(sf_ctx* c, const sf_node* key, const sf_node* v, void* item, uint32_t index)
{
	sf_source* s = item;
	(void)key;
	(void)index;
	s->def = throng_source_default_def();
	s->pos = v->pos;
	if (!sf_expect_mapping(c, v, "a mapping with shape, its parameters, rate and archetype")) {
		return;
	}
	const int shape = sf_read_shape(c, v, &sf_source_table, "source shape");
	if (shape < 0) {
		return;
	}
	s->def.shape = (throng_source_shape)shape;
	const uint64_t failed = sf_read_keys(c, v, &sf_source_table, s, 1u << shape, source_part);
	sf_source_table.check(c, v, s, failed);
	if (failed == 0 && shape == THRONG_SOURCE_BOX &&
	    !(s->def.min.x <= s->def.max.x && s->def.min.y <= s->def.max.y)) {
		sf_error_at(c, "max", sf_get(v, "max")->pos, "got (%g, %g), below min (%g, %g) (expected max >= min)",
		            (double)s->def.max.x, (double)s->def.max.y, (double)s->def.min.x, (double)s->def.min.y);
	}
}

/// A source's heading normalised and its agents' velocity (heading *
/// speed), once max_speed is known (the archetype's preset may give it).
static void source_motion(sf_ctx* c, const sf_node* v, sf_source* s)
{
	throng_agent_def* a = &s->def.agent;
	const float h = v2_length(v2(a->heading.x, a->heading.y));
	const sf_node* heading = sf_get(v, "heading");
	if (h > 0.0f && !(h > 1.0e-6f)) {
		sf_error_at(c, "heading", heading->pos, "got a length of %g (expected [0, 0] or a length more than 1e-6)",
		            (double)h);
		return;
	}
	if (h > 0.0f) {
		a->heading = (throng_vec2){a->heading.x / h, a->heading.y / h};
	}
	const sf_node* speed = sf_get(v, "speed");
	if (s->speed > 0.0f && h == 0.0f) {
		sf_error_at(c, "speed", speed->pos, "got %g with no heading, so no direction (expected a heading [x, y])",
		            (double)s->speed);
	} else if (s->speed > 0.0f && !thr_speed_fits(s->speed, a->max_speed)) {
		sf_error_at(c, "speed", speed->pos, "got %g, more than max_speed %g (expected at most max_speed)",
		            (double)s->speed, (double)a->max_speed);
	} else {
		a->velocity = (throng_vec2){a->heading.x * s->speed, a->heading.y * s->speed};
	}
}

void sf_parse_sources(sf_ctx* c, const sf_node* n, sf_model* m)
{
	m->sources = sf_read_list(c, n, "a list of sources {shape: segment, from: [x, y], to: [x, y], rate: r, ...}",
	                          "sources", SF_MAX_SOURCES, sizeof *m->sources, &m->source_count, read_source);
	check_unique(c, n, m->sources, m->source_count, sizeof *m->sources, offsetof(sf_source, def.name), "source");
	// A preset's sources take its body where they state none (the
	// archetypes are read before the sources).
	for (uint32_t k = 0; m->sources != NULL && k < m->source_count; ++k) {
		sf_source* s = &m->sources[k];
		const sf_node* v = n->items[k];
		for (uint32_t a = 0; s->archetype_name != NULL && a < m->archetype_count; ++a) {
			const sf_archetype* at = &m->archetypes[a];
			if (at->name == NULL || strcmp(at->name, s->archetype_name) != 0 || at->preset == NULL) {
				continue;
			}
			const throng_agent_def body = at->preset->body();
			s->def.agent.max_speed = sf_get(v, "max_speed") == NULL ? body.max_speed : s->def.agent.max_speed;
			s->def.agent.max_force = sf_get(v, "max_force") == NULL ? body.max_force : s->def.agent.max_force;
			s->def.agent.radius = sf_get(v, "body_radius") == NULL ? body.radius : s->def.agent.radius;
		}
		size_t mark = sf_push_index(c, k); // inside "sources", the list's key
		source_motion(c, v, s);
		sf_pop(c, mark);
	}
}

void sf_resolve_sources(sf_ctx* c, sf_model* m, const char* const* archetype_names)
{
	size_t mark = sf_push_key(c, "sources");
	for (uint32_t k = 0; k < m->source_count; ++k) {
		sf_source* s = &m->sources[k];
		if (s->archetype_name == NULL) {
			continue;
		}
		size_t mk = sf_push_index(c, k);
		sf_push_key(c, "archetype");
		s->def.agent.archetype = sf_resolve(c, s->archetype_pos, "archetype", "archetypes", s->archetype_name,
		                                    archetype_names, m->archetype_count);
		sf_pop(c, mk);
	}
	sf_pop(c, mark);
}

void sf_check_sources(sf_ctx* c, const sf_model* m)
{
	for (uint32_t k = 0; k < m->source_count; ++k) {
		const throng_source_def* d = &m->sources[k].def;
		throng_vec2 lo = d->min, hi = d->max;
		if (d->shape == THRONG_SOURCE_CIRCLE) {
			lo = (throng_vec2){d->center.x - d->radius, d->center.y - d->radius};
			hi = (throng_vec2){d->center.x + d->radius, d->center.y + d->radius};
		} else if (d->shape == THRONG_SOURCE_SEGMENT) {
			lo = (throng_vec2){fminf(d->from.x, d->to.x), fminf(d->from.y, d->to.y)};
			hi = (throng_vec2){fmaxf(d->from.x, d->to.x), fmaxf(d->from.y, d->to.y)};
		}
		size_t mark = sf_push_key(c, "sources");
		sf_push_index(c, k);
		if (m->bounds_mode != THRONG_BOUNDS_OPEN &&
		    (lo.x < m->bounds_min.x || lo.y < m->bounds_min.y || hi.x > m->bounds_max.x || hi.y > m->bounds_max.y)) {
			sf_error(c, m->sources[k].pos,
			         "its %s reaches (%g, %g)..(%g, %g), outside the world (%g, %g)..(%g, %g) (expected a region "
			         "inside the bounds, which keep their agents)",
			         throng_source_shape_name(d->shape), (double)lo.x, (double)lo.y, (double)hi.x, (double)hi.y,
			         (double)m->bounds_min.x, (double)m->bounds_min.y, (double)m->bounds_max.x,
			         (double)m->bounds_max.y);
		}
		const float g = THRONG_MAX_COORD;
		if (d->relative_target && (fabsf(lo.x + d->agent.target.x) > g || fabsf(lo.y + d->agent.target.y) > g ||
		                           fabsf(hi.x + d->agent.target.x) > g || fabsf(hi.y + d->agent.target.y) > g)) {
			sf_error(c, m->sources[k].pos,
			         "relative_goal: its goal (%.9g, %.9g) added to its %s's corners (%g, %g)..(%g, %g) passes 1e6 m "
			         "(expected goals within [-1e6, 1e6] m)",
			         (double)d->agent.target.x, (double)d->agent.target.y, throng_source_shape_name(d->shape),
			         (double)lo.x, (double)lo.y, (double)hi.x, (double)hi.y);
		}
		sf_pop(c, mark);
	}
}
