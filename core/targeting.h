// SPDX-License-Identifier: MIT
// Target selection and path following (private, targeting.c): the
// per-agent bookkeeping that the step and both engines share.
#ifndef THRONG_CORE_TARGETING_H
#define THRONG_CORE_TARGETING_H

#include <stdint.h>

#include "world_internal.h"

/// Room for w->cell_groups over the agent grid's cells and rows, made in
/// the step's prepare stage when a target rule is due. Returns -1 when
/// out of memory.
int thr_reserve_cell_groups(throng_world* w);

/// Target selection: for every agent whose archetype has an
/// enabled target rule due this step, sets its target agent to the nearest
/// agent of the rule's group within the sight radius (ties to the lower
/// id), or to none. Reads positions of `st` through w->agent_grid, built
/// over `st`; `items` maps grid entries to slots (NULL when the entries
/// are the slots themselves, as after the SIMD engine's sort). Needs
/// thr_reserve_cell_groups done over that grid. Adds its work to *counts
/// unless that is NULL. `ghost` marks a part world's ghosts by slot
/// (thr_slot_ghost; NULL: none), whose choices stay out of the stats.
void thr_select_targets(throng_world* w, const thr_state* st, const uint32_t* items, const uint8_t* ghost, int threads,
                        throng_world_counters* counts);

/// The waypoint agent `slot` heads for this step and the index it keeps
/// for the next (advanced when within waypoint_radius), per the path
/// following of behaviors.c. Returns 0 when the agent has no path.
int thr_path_target(const throng_world* w, const thr_state* st, uint32_t slot, float waypoint_radius, vec2* target,
                    uint32_t* next_waypoint, int* final);

#endif
