// SPDX-License-Identifier: MIT
// The one spelling of every public enum's value names (names.h): the
// tables, and the throng_*_name / throng_*_from_name pairs over them.
#include "names.h"

#include <string.h>

#define THR_NAMES(table) {table, (uint32_t)(sizeof table / sizeof table[0])}

static const char* const status_names[] = {
	[THRONG_OK] = "ok",
	[THRONG_ERR_INVALID_ARGUMENT] = "invalid argument",
	[THRONG_ERR_CAPACITY] = "capacity exhausted",
	[THRONG_ERR_OUT_OF_MEMORY] = "out of memory",
	[THRONG_ERR_NOT_FOUND] = "not found",
	[THRONG_ERR_UNSUPPORTED] = "unsupported",
	[THRONG_ERR_IO] = "input/output error",
	[THRONG_ERR_CORRUPT] = "corrupt data",
};

static const char* const engine_names[] = {
	[THRONG_ENGINE_SCALAR] = "scalar",
	[THRONG_ENGINE_SIMD] = "simd",
};

static const char* const threads_policy_names[] = {
	[THRONG_THREADS_ADAPT] = "adapt",
	[THRONG_THREADS_FIXED] = "fixed",
};

static const char* const bounds_mode_names[] = {
	[THRONG_BOUNDS_CONTAIN] = "contain",
	[THRONG_BOUNDS_WRAP] = "wrap",
	[THRONG_BOUNDS_BOUNCE] = "bounce",
	[THRONG_BOUNDS_OPEN] = "open",
};

static const char* const behavior_kind_names[THRONG_BEHAVIOR_COUNT] = {
	[THRONG_SEEK] = "seek",
	[THRONG_FLEE] = "flee",
	[THRONG_ARRIVE] = "arrive",
	[THRONG_PURSUIT] = "pursuit",
	[THRONG_EVADE] = "evade",
	[THRONG_WANDER] = "wander",
	[THRONG_WANDER_NOISE] = "wander_noise",
	[THRONG_OBSTACLE_AVOID] = "obstacle_avoidance",
	[THRONG_WALL_AVOID] = "wall_avoidance",
	[THRONG_UNALIGNED_AVOID] = "unaligned_avoidance",
	[THRONG_SEPARATION] = "separation",
	[THRONG_ALIGNMENT] = "alignment",
	[THRONG_COHESION] = "cohesion",
	[THRONG_BOUNDS] = "bounds",
	[THRONG_PATH_FOLLOW] = "path_following",
	[THRONG_ANTICIPATION] = "anticipation",
	[THRONG_HEADWAY] = "headway",
};

static const char* const target_source_names[] = {
	[THRONG_TARGET_POINT] = "point",
	[THRONG_TARGET_THREAT] = "threat",
	[THRONG_TARGET_AGENT] = "agent",
};

static const char* const flee_mode_names[] = {
	[THRONG_FLEE_ALWAYS] = "always",
	[THRONG_FLEE_PANIC] = "panic",
	[THRONG_FLEE_SAFE] = "safe",
};

static const char* const wander_frame_names[] = {
	[THRONG_WANDER_LOCAL] = "local",
	[THRONG_WANDER_WORLD] = "world",
};

static const char* const blend_mode_names[] = {
	[THRONG_BLEND_WEIGHTED] = "weighted",
	[THRONG_BLEND_PRIORITY] = "priority",
	[THRONG_BLEND_HYBRID] = "hybrid",
	[THRONG_BLEND_RELAXATION] = "relaxation",
};

static const char* const event_kind_names[] = {
	[THRONG_EVENT_ADDED] = "added",
	[THRONG_EVENT_REMOVED] = "removed",
	[THRONG_EVENT_ARRIVED] = "arrived",
	[THRONG_EVENT_ENTERED] = "entered",
	[THRONG_EVENT_LEFT] = "left",
	[THRONG_EVENT_WAITED] = "waited",
};

static const char* const zone_shape_names[] = {
	[THRONG_ZONE_CIRCLE] = "circle",
	[THRONG_ZONE_BOX] = "box",
	[THRONG_ZONE_POLYGON] = "polygon",
};

static const char* const source_shape_names[] = {
	[THRONG_SOURCE_BOX] = "box",
	[THRONG_SOURCE_CIRCLE] = "circle",
	[THRONG_SOURCE_SEGMENT] = "segment",
};

static const char* const attack_kind_names[] = {
	[THRONG_ATTACK_NONE] = "none",
	[THRONG_ATTACK_MELEE] = "melee",
	[THRONG_ATTACK_MISSILE] = "missile",
};

// Formation kinds and orders are only named for scenario files (no public
// throng_*_name() pair yet).
static const char* const formation_kind_names[] = {
	[THRONG_FORMATION_NONE] = "none",
	[THRONG_FORMATION_LINE] = "line",
	[THRONG_FORMATION_COLUMN] = "column",
	[THRONG_FORMATION_SQUARE] = "square",
	[THRONG_FORMATION_WEDGE] = "wedge",
};

static const char* const order_kind_names[] = {
	[THRONG_ORDER_HALT] = "halt",
	[THRONG_ORDER_MOVE] = "move",
	[THRONG_ORDER_TURN] = "turn",
	[THRONG_ORDER_CHARGE] = "charge",
	[THRONG_ORDER_HOLD] = "hold",
};

static const char* const stage_names[THRONG_STAGE_COUNT] = {
	[THRONG_STAGE_PREPARE] = "prepare",
	[THRONG_STAGE_SORT] = "sort",
	[THRONG_STAGE_TARGETS] = "targets",
	[THRONG_STAGE_PASS] = "pass",
	[THRONG_STAGE_CONTACTS] = "contacts",
	[THRONG_STAGE_FINISH] = "finish",
};

const thr_names thr_status_names = THR_NAMES(status_names);
const thr_names thr_engine_names = THR_NAMES(engine_names);
const thr_names thr_threads_policy_names = THR_NAMES(threads_policy_names);
const thr_names thr_bounds_mode_names = THR_NAMES(bounds_mode_names);
const thr_names thr_behavior_kind_names = THR_NAMES(behavior_kind_names);
const thr_names thr_target_source_names = THR_NAMES(target_source_names);
const thr_names thr_flee_mode_names = THR_NAMES(flee_mode_names);
const thr_names thr_wander_frame_names = THR_NAMES(wander_frame_names);
const thr_names thr_blend_mode_names = THR_NAMES(blend_mode_names);
const thr_names thr_event_kind_names = THR_NAMES(event_kind_names);
const thr_names thr_zone_shape_names = THR_NAMES(zone_shape_names);
const thr_names thr_source_shape_names = THR_NAMES(source_shape_names);
const thr_names thr_attack_kind_names = THR_NAMES(attack_kind_names);
const thr_names thr_formation_kind_names = THR_NAMES(formation_kind_names);
const thr_names thr_order_kind_names = THR_NAMES(order_kind_names);

/// The name of value v, NULL when v is out of range.
static const char* name_of(const thr_names* t, int v)
{
	return v >= 0 && (uint32_t)v < t->count ? t->name[v] : NULL;
}

/// The value named `name` (exact, case-sensitive) to *out; false when no
/// value has that name (*out is then left alone).
static bool value_of(const thr_names* t, const char* name, int* out)
{
	if (name == NULL) {
		return false;
	}
	for (uint32_t k = 0; k < t->count; ++k) {
		if (strcmp(name, t->name[k]) == 0) {
			*out = (int)k;
			return true;
		}
	}
	return false;
}

// One pair per enum throng_X, over the table thr_X_names: throng_X_name
// gives a value's name (NULL out of range); throng_X_from_name writes *out
// only on success, and out may be NULL (a check of the name alone).
#define THR_NAME_PAIR(X)                                           \
	const char* throng_##X##_name(throng_##X value)                \
	{                                                              \
		return name_of(&thr_##X##_names, (int)value);              \
	}                                                              \
	bool throng_##X##_from_name(const char* name, throng_##X* out) \
	{                                                              \
		int v = 0;                                                 \
		if (!value_of(&thr_##X##_names, name, &v)) {               \
			return false;                                          \
		}                                                          \
		if (out != NULL) {                                         \
			*out = (throng_##X)v;                                  \
		}                                                          \
		return true;                                               \
	}

THR_NAME_PAIR(status)
THR_NAME_PAIR(engine)
THR_NAME_PAIR(threads_policy)
THR_NAME_PAIR(bounds_mode)
THR_NAME_PAIR(behavior_kind)
THR_NAME_PAIR(target_source)
THR_NAME_PAIR(flee_mode)
THR_NAME_PAIR(wander_frame)
THR_NAME_PAIR(blend_mode)
THR_NAME_PAIR(event_kind)
THR_NAME_PAIR(zone_shape)
THR_NAME_PAIR(source_shape)
THR_NAME_PAIR(attack_kind)

// The step's stages (throng.h, "Counters") are only named: no reader asks for one by name.
const char* throng_stage_name(throng_stage stage)
{
	return (unsigned)stage < THRONG_STAGE_COUNT ? stage_names[stage] : NULL;
}
