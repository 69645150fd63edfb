// SPDX-License-Identifier: MIT
// The contact stage's seam (private): what the step, the world and part
// worlds call. The stage itself is core/contact/ (internal.h has the
// design: pairs, iterations, shapes, finish); docs/BEHAVIORS.md
// ("Contacts") has the rules.
#ifndef THRONG_CORE_CONTACT_H
#define THRONG_CORE_CONTACT_H

#include "engine.h"

/// The stage's scratch kept in the world between steps (contact/internal.h).
typedef struct thr_contact_data thr_contact_data;

/// Whether the contact stage has work in w: an archetype with contacts
/// on, or a wall or an obstacle.
bool thr_contact_wanted(const throng_world* w);

/// Room for what the engine's pass leaves the contact stage (ctx->near,
/// when the stage will list pairs; clear and shaped_x/_y, when the world
/// has shapes). With an engine that sorts, near and shaped_x/_y are left
/// to thr_contact_bind_store. Fails only out of memory, before the step
/// changes anything.
throng_status thr_contact_prepare(thr_step_ctx* ctx);

/// With an engine that sorts, right after the step's reorder: points
/// ctx->near, and after it ctx->pair_offsets, at the record's reorder
/// buffer (w->reorder: the last step's record is void once the reorder
/// moved the slots, and the step's own is copied in only when the step
/// publishes, after the contact stage) and ctx->shaped_x/_y at the
/// store's two spares (dead until the next reorder, store.h), where the
/// stage wants them.
void thr_contact_bind_store(thr_step_ctx* ctx);

/// The contact stage over ctx->ns (ctx->cs holds the previous state).
/// Fails only out of memory, before it changes anything.
throng_status thr_contact_pass(const thr_step_ctx* ctx, thr_pass_stats* stats);

/// Frees the stage's scratch.
void thr_contact_free(thr_contact_data* c);

#endif
