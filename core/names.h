// SPDX-License-Identifier: MIT
// The names of the public enums' values (private).
//
// Each name is spelled once, in core/names.c: the public throng_*_name()
// and throng_*_from_name() functions read these tables, and so does the
// scenario-file reader when it lists the words a field takes. The CLI,
// the viewer and the benchmark use the public functions.
#ifndef THRONG_CORE_NAMES_H
#define THRONG_CORE_NAMES_H

#include <stdint.h>

#include "throng/throng.h"
#include "throng/units.h"

/// The names of an enum's values, indexed by value (0 .. count-1).
typedef struct thr_names {
	const char* const* name;
	uint32_t count;
} thr_names;

extern const thr_names thr_status_names;
extern const thr_names thr_engine_names;
extern const thr_names thr_threads_policy_names;
extern const thr_names thr_bounds_mode_names;
extern const thr_names thr_behavior_kind_names;
extern const thr_names thr_target_source_names;
extern const thr_names thr_flee_mode_names;
extern const thr_names thr_wander_frame_names;
extern const thr_names thr_blend_mode_names;
extern const thr_names thr_event_kind_names;
extern const thr_names thr_zone_shape_names;
extern const thr_names thr_source_shape_names;
extern const thr_names thr_attack_kind_names;
extern const thr_names thr_formation_kind_names;
extern const thr_names thr_order_kind_names;

#endif
