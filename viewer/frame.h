// SPDX-License-Identifier: MIT
// Copying a world's state into a vw_frame (the host's publishing step).
#ifndef THRONG_VIEWER_FRAME_H
#define THRONG_VIEWER_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#include "scenes.h"
#include "sim.h"

/// Copies agents, shapes, bodies, threat, stats and controllers of `s` into
/// f, and the focus data of agent `selected` (VW_NO_AGENT for none). Grows
/// f's arrays as needed; false when out of memory (f is then left
/// consistent with count 0).
bool vw_frame_fill(vw_frame* f, vw_scene* s, uint32_t selected);

/// Reallocates *p to hold n elements (at least one) of `size` bytes; false
/// on failure, *p then unchanged. The frame's arrays and the agent mesh's
/// (draw.c) grow through it.
bool vw_grow(void** p, size_t n, size_t size);

/// health / full, kept in [0, 1] (a health above full counts as whole).
static inline float vw_share(float health, float full)
{
	const float s = health / full;
	return s > 1.0f ? 1.0f : s > 0.0f ? s : 0.0f;
}

/// How many of `n` combat_state words carry THRONG_COMBAT_ROUTING.
static inline uint32_t vw_count_routing(const uint32_t* combat_state, uint32_t n)
{
	uint32_t routing = 0;
	for (uint32_t k = 0; k < n; ++k) {
		routing += (combat_state[k] & THRONG_COMBAT_ROUTING) != 0;
	}
	return routing;
}

/// Frees a frame's arrays and zeroes it.
void vw_frame_free(vw_frame* f);

#endif
