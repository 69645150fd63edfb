// SPDX-License-Identifier: MIT
// Checkpoints: the fields and records both directions share, and the
// sections as a reader takes them (checkpoint.h has the design).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "combat.h"
#include "checkpoint.h"
#include "error.h"
#include "units.h"

void thr_ck_corrupt(thr_ck_io* io, size_t off, const char* fmt, ...)
{
	if (io->st != THRONG_OK) {
		return;
	}
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	io->st = thr_fail(THRONG_ERR_CORRUPT, "%s: byte offset %zu: %s", io->name, off, what);
}

const uint8_t* thr_ck_take(thr_ck_io* io, size_t n)
{
	if (io->st != THRONG_OK) {
		return NULL;
	}
	if (n > io->end - io->pos) {
		thr_ck_corrupt(io, io->pos, "the section ends at byte offset %zu, inside a field", io->end);
		return NULL;
	}
	const uint8_t* p = io->data + io->pos;
	io->pos += n;
	return p;
}

void thr_ck_u32(thr_ck_io* io, uint32_t* v)
{
	if (io->emit != NULL) {
		uint8_t b[4];
		thr_ck_put_le(b, *v, 4);
		io->emit(io, b, 4);
	} else {
		const uint8_t* p = thr_ck_take(io, 4);
		*v = p != NULL ? (uint32_t)thr_ck_get_le(p, 4) : 0u;
	}
}

void thr_ck_u64(thr_ck_io* io, uint64_t* v)
{
	if (io->emit != NULL) {
		uint8_t b[8];
		thr_ck_put_le(b, *v, 8);
		io->emit(io, b, 8);
	} else {
		const uint8_t* p = thr_ck_take(io, 8);
		*v = p != NULL ? thr_ck_get_le(p, 8) : 0u;
	}
}

void thr_ck_column(thr_ck_io* io, void* dst, size_t n)
{
	const uint8_t* p = thr_ck_take(io, n * 4u);
	if (p == NULL) {
		return;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(dst, p, n * 4u);
#else
	uint32_t* u = dst;
	for (size_t k = 0; k < n; ++k) {
		u[k] = (uint32_t)thr_ck_get_le(p + 4u * k, 4);
	}
#endif
}

void thr_ck_f32(thr_ck_io* io, float* v)
{
	uint32_t bits;
	memcpy(&bits, v, 4);
	thr_ck_u32(io, &bits);
	memcpy(v, &bits, 4); // the bits: -0, NaNs and all (values are checked where they are used)
}

void thr_ck_bool(thr_ck_io* io, bool* v)
{
	uint32_t u = *v ? 1u : 0u;
	const size_t at = io->pos;
	thr_ck_u32(io, &u);
	if (u > 1u) {
		thr_ck_corrupt(io, at, "a flag holds %u (0 or 1)", u);
	}
	*v = u == 1u;
}

/// An enum field through a u32 (its range is checked by the call that
/// takes the record: throng_world_create, throng_world_add_archetype).
#define CK_ENUM(io, field)                \
	do {                                  \
		uint32_t e_ = (uint32_t)(field);  \
		thr_ck_u32((io), &e_);            \
		(field) = e_;                     \
	} while (0)

void thr_ck_def(thr_ck_io* io, throng_world_def* d)
{
	thr_ck_f32(io, &d->bounds_min.x);
	thr_ck_f32(io, &d->bounds_min.y);
	thr_ck_f32(io, &d->bounds_max.x);
	thr_ck_f32(io, &d->bounds_max.y);
	CK_ENUM(io, d->bounds_mode);
	thr_ck_f32(io, &d->dt);
	thr_ck_u64(io, &d->seed);
	thr_ck_f32(io, &d->cell_size);
	thr_ck_u32(io, &d->capacity);
	CK_ENUM(io, d->engine);
	thr_ck_bool(io, &d->record_forces);
	thr_ck_u32(io, &d->threads);
	CK_ENUM(io, d->threads_policy);
}

void thr_ck_name(thr_ck_io* io, char name[32])
{
	for (int k = 0; k < 32; k += 4) {
		uint32_t word = (uint32_t)(uint8_t)name[k] | (uint32_t)(uint8_t)name[k + 1] << 8 |
		                (uint32_t)(uint8_t)name[k + 2] << 16 | (uint32_t)(uint8_t)name[k + 3] << 24;
		thr_ck_u32(io, &word);
		for (int b = 0; b < 4; ++b) {
			name[k + b] = (char)(word >> (8 * b));
		}
	}
}

static void ck_vec2(thr_ck_io* io, throng_vec2* v)
{
	thr_ck_f32(io, &v->x);
	thr_ck_f32(io, &v->y);
}

void thr_ck_source(thr_ck_io* io, throng_source_def* d, uint32_t version)
{
	CK_ENUM(io, d->shape);
	thr_ck_name(io, d->name);
	ck_vec2(io, &d->min);
	ck_vec2(io, &d->max);
	ck_vec2(io, &d->center);
	thr_ck_f32(io, &d->radius);
	ck_vec2(io, &d->from);
	ck_vec2(io, &d->to);
	thr_ck_f32(io, &d->rate);
	thr_ck_u32(io, &d->count);
	thr_ck_f32(io, &d->start);
	thr_ck_f32(io, &d->stop);
	throng_agent_def* a = &d->agent;
	ck_vec2(io, &a->velocity);
	ck_vec2(io, &a->heading);
	thr_ck_f32(io, &a->max_speed);
	thr_ck_f32(io, &a->max_force);
	thr_ck_f32(io, &a->radius);
	thr_ck_u32(io, &a->archetype);
	thr_ck_u32(io, &a->group);
	ck_vec2(io, &a->target);
	thr_ck_u32(io, &a->path);
	if (version >= 3u) {
		const size_t at = io->pos;
		uint32_t relative = d->relative_target ? 1u : 0u;
		thr_ck_u32(io, &relative);
		if (io->st == THRONG_OK && relative > 1u) {
			thr_ck_corrupt(io, at, "source relative_target %u (0 or 1)", relative);
		}
		d->relative_target = relative == 1u;
	}
	if (version >= 6u) {
		thr_ck_u32(io, &a->unit);
	}
}

void thr_ck_unit(thr_ck_io* io, thr_unit* u, uint32_t version)
{
	throng_unit_def* d = &u->def;
	thr_ck_u32(io, &d->archetype);
	thr_ck_u32(io, &d->rout_archetype);
	thr_ck_u32(io, &d->army);
	thr_ck_bool(io, &d->has_refuge);
	ck_vec2(io, &d->refuge);
	throng_morale* m = &d->morale;
	float* const f[8] = {&m->breaks_at, &m->flank,    &m->rear,       &m->panic,
	                     &m->panic_radius, &m->recovery, &m->rally_time, &m->rally_morale};
	for (int k = 0; k < 8; ++k) {
		thr_ck_f32(io, f[k]);
	}
	thr_ck_u32(io, &m->rallies);
	throng_formation* fo = &d->formation;
	CK_ENUM(io, fo->kind);
	thr_ck_u32(io, &fo->files);
	thr_ck_f32(io, &fo->spacing);
	thr_ck_f32(io, &fo->rank_spacing);
	thr_ck_f32(io, &fo->speed);
	thr_ck_f32(io, &fo->turn_rate);
	thr_ck_u32(io, &d->march_archetype);
	thr_ck_u32(io, &u->count);
	thr_ck_u32(io, &u->most);
	thr_ck_u32(io, &u->start);
	thr_ck_u32(io, &u->rallies_left);
	thr_ck_u32(io, &u->quiet);
	thr_ck_bool(io, &u->routing);
	thr_ck_f32(io, &u->base);
	thr_ck_f32(io, &u->shock);
	thr_ck_f32(io, &u->morale);
	thr_ck_u64(io, &u->routed_step);
	float* const g[6] = {&u->cx, &u->cy, &u->fx, &u->fy, &u->rx, &u->ry};
	for (int k = 0; k < 6; ++k) {
		thr_ck_f32(io, g[k]);
	}
	CK_ENUM(io, u->order.kind);
	ck_vec2(io, &u->order.point);
	thr_ck_bool(io, &u->charging);
	thr_ck_bool(io, &u->anchored);
	float* const a[4] = {&u->ax, &u->ay, &u->hx, &u->hy};
	for (int k = 0; k < 4; ++k) {
		thr_ck_f32(io, a[k]);
	}
	if (version >= 7u) { // (before: never, the default, and nobody counted)
		thr_ck_f32(io, &m->army_breaks_at);
		thr_ck_u32(io, &u->killed);
	}
}

void thr_ck_missile(thr_ck_io* io, thr_missile* m)
{
	thr_ck_u64(io, &m->shot);
	thr_ck_u64(io, &m->land);
	thr_ck_u32(io, &m->target);
	thr_ck_u32(io, &m->shooter);
	thr_ck_f32(io, &m->x);
	thr_ck_f32(io, &m->y);
	thr_ck_f32(io, &m->damage);
}

void thr_ck_body(thr_ck_io* io, throng_body* b)
{
	thr_ck_f32(io, &b->position.x);
	thr_ck_f32(io, &b->position.y);
	thr_ck_f32(io, &b->facing.x);
	thr_ck_f32(io, &b->facing.y);
	thr_ck_f32(io, &b->radius);
	thr_ck_u32(io, &b->agent);
	thr_ck_u32(io, &b->killer);
	thr_ck_u32(io, &b->group);
	thr_ck_u32(io, &b->archetype);
	thr_ck_u32(io, &b->unit);
	thr_ck_u32(io, &b->obstacle);
	thr_ck_u64(io, &b->step);
}

void thr_ck_stats(thr_ck_io* io, throng_world_stats* s)
{
	thr_ck_u64(io, &s->steps);
	thr_ck_f32(io, &s->max_speed_ratio);
	thr_ck_u64(io, &s->nonfinite);
	thr_ck_u64(io, &s->clamped);
	thr_ck_u64(io, &s->neighbor_candidates);
	thr_ck_u32(io, &s->neighbor_most_candidates);
	thr_ck_u32(io, &s->neighbor_most_met);
	thr_ck_u64(io, &s->neighbor_capped);
	thr_ck_u32(io, &s->target_most_candidates);
	thr_ck_u64(io, &s->target_capped);
	thr_ck_u64(io, &s->contacts);
	thr_ck_u64(io, &s->contact_capped);
	thr_ck_u64(io, &s->contact_iterations);
	thr_ck_u64(io, &s->shape_pushes);
	thr_ck_u64(io, &s->shape_reverts);
	thr_ck_u32(io, &s->threads_last);
	thr_ck_u64(io, &s->steps_one_thread);
	thr_ck_u64(io, &s->agents_added);
	thr_ck_u64(io, &s->agents_removed);
	thr_ck_u32(io, &s->agents_peak);
}

static void ck_params(thr_ck_io* io, throng_behavior_params* p)
{
	CK_ENUM(io, p->target);
	CK_ENUM(io, p->flee_mode);
	thr_ck_f32(io, &p->flee_radius);
	thr_ck_f32(io, &p->slow_radius);
	thr_ck_f32(io, &p->evade_radius);
	thr_ck_f32(io, &p->max_prediction);
	thr_ck_f32(io, &p->circle_distance);
	thr_ck_f32(io, &p->circle_radius);
	thr_ck_f32(io, &p->jitter);
	CK_ENUM(io, p->frame);
	thr_ck_f32(io, &p->noise_frequency);
	thr_ck_f32(io, &p->noise_amplitude);
	thr_ck_f32(io, &p->look_ahead);
	thr_ck_f32(io, &p->feeler_angle);
	thr_ck_f32(io, &p->avoid_radius);
	thr_ck_f32(io, &p->neighbor_radius);
	thr_ck_bool(io, &p->same_group_only);
	thr_ck_u32(io, &p->max_neighbors);
	thr_ck_f32(io, &p->margin);
	thr_ck_f32(io, &p->waypoint_radius);
	thr_ck_f32(io, &p->time_gap);
	thr_ck_f32(io, &p->ttc_strength);
	thr_ck_f32(io, &p->ttc_horizon);
	thr_ck_f32(io, &p->ttc_max_time);
	thr_ck_f32(io, &p->fov_weight);
	thr_ck_f32(io, &p->side_bias);
}

void thr_ck_controller(thr_ck_io* io, throng_controller* c, uint32_t version)
{
	CK_ENUM(io, c->mode);
	thr_ck_f32(io, &c->relaxation_time);
	thr_ck_bool(io, &c->target_rule.enabled);
	thr_ck_u32(io, &c->target_rule.group);
	thr_ck_f32(io, &c->target_rule.sight_radius);
	thr_ck_u32(io, &c->target_rule.every);
	thr_ck_u32(io, &c->target_rule.max_candidates);
	thr_ck_bool(io, &c->contact.enabled);
	thr_ck_f32(io, &c->contact.stiffness);
	thr_ck_u32(io, &c->contact.iterations);
	thr_ck_bool(io, &c->contact.inelastic);
	thr_ck_f32(io, &c->contact.slip);
	thr_ck_f32(io, &c->contact.noise);
	if (version >= 4u) {
		thr_ck_bool(io, &c->combat.enabled);
		thr_ck_f32(io, &c->combat.health);
		thr_ck_f32(io, &c->combat.armour);
		CK_ENUM(io, c->combat.attack);
		thr_ck_f32(io, &c->combat.reach);
		thr_ck_f32(io, &c->combat.damage);
		thr_ck_f32(io, &c->combat.cooldown);
		thr_ck_f32(io, &c->combat.accuracy);
	}
	if (version >= 5u) {
		thr_ck_f32(io, &c->combat.missile_speed);
		thr_ck_f32(io, &c->combat.spread);
	}
	if (version >= 8u) {
		thr_ck_f32(io, &c->combat.body_radius);
	}
	thr_ck_u32(io, &c->slot_count);
	// Every slot, the unused too: the controller reads back as it was.
	for (uint32_t k = 0; k < THRONG_MAX_SLOTS; ++k) {
		throng_slot* s = &c->slots[k];
		CK_ENUM(io, s->kind);
		thr_ck_f32(io, &s->weight);
		thr_ck_bool(io, &s->enabled);
		thr_ck_bool(io, &s->priority);
		ck_params(io, &s->params);
	}
}

bool thr_ck_open_section(thr_ck_io* io, uint32_t tag)
{
	if (io->st != THRONG_OK) {
		return false;
	}
	const size_t at = io->pos;
	char want[5] = {(char)(tag & 0xffu), (char)(tag >> 8 & 0xffu), (char)(tag >> 16 & 0xffu), (char)(tag >> 24), 0};
	io->end = io->size - THR_CK_CHECKSUM_BYTES;
	if (io->end - io->pos < THR_CK_SECTION_BYTES) {
		thr_ck_corrupt(io, at, "section %s is missing (the checkpoint ends first)", want);
		return false;
	}
	uint32_t got = 0, reserved = 0;
	uint64_t body = 0;
	thr_ck_u32(io, &got);
	thr_ck_u32(io, &reserved);
	thr_ck_u64(io, &body);
	if (got != tag) {
		thr_ck_corrupt(io, at, "section %s expected, found tag 0x%08x", want, got);
		return false;
	}
	if (body > io->end - io->pos) {
		thr_ck_corrupt(io, at + 8u, "section %s claims %llu bytes; %zu are left", want, (unsigned long long)body,
		               io->end - io->pos);
		return false;
	}
	io->end = io->pos + (size_t)body;
	return true;
}

void thr_ck_close_section(thr_ck_io* io)
{
	if (io->st != THRONG_OK) {
		return;
	}
	if (io->pos != io->end) {
		thr_ck_corrupt(io, io->pos, "%zu bytes left over at the end of a section", io->end - io->pos);
		return;
	}
	const size_t pad = (8u - io->end % 8u) % 8u;
	if (pad > io->size - THR_CK_CHECKSUM_BYTES - io->end) {
		thr_ck_corrupt(io, io->end, "the padding after a section is cut short");
		return;
	}
	io->pos = io->end + pad;
}
