// SPDX-License-Identifier: MIT
// Overlap-free random placement for the built-in scenes (private).
//
// The scenes that spread agents at random (field, flock, herd, and solo
// beyond its ring) throw them like darts: agent i tries the point drawn as
// the scene always drew it (draws 0 and 1 of (seed, i) on the spawn
// stream, mapped linearly into the spawn rectangle), and keeps it unless a
// disc already placed (an obstacle, an agent placed by a layout, or an
// agent of lower id) lies closer than the two radii sum, widened by
// THR_SPAWN_SLACK. A rejected agent tries again from draws
// THR_SPAWN_RETRY + 2t and + 2t + 1 (try t = 1 .. THR_SPAWN_TRIES - 1), so
// agents that fit at the first try keep the place they always had, and
// conflicts go to the lower id. At the densities of the built-ins the
// darts rarely all miss; when they do, the agent takes the first free
// point of a square lattice of pitch about one radius: first in the
// window of one grid cell around its first dart, then over the whole
// rectangle, scanned row by row from a cursor that only moves forward (a
// point found blocked stays blocked: discs are only added), so every
// fallback together costs at most one pass over the lattice. Only when
// that pass ends is there no room, and the scene fails saying so.
//
// The discs live in a uniform grid of cells no smaller than the largest
// reach (the largest radii sum plus slack) nor than sqrt(area / discs),
// so a test visits the 3 x 3 cells around a point and each cell holds a
// few discs: O(1) per try, O(N) for the scene, memory O(N). Everything is
// computed in id order on one thread while the scene is stated, so the
// spawn is a pure function of the seed: the same for every engine and
// thread count.
#ifndef THRONG_CORE_SCENARIO_SPAWN_H
#define THRONG_CORE_SCENARIO_SPAWN_H

#include <stdint.h>

#include "throng/throng.h"

#define THR_SPAWN_TRIES 64u          ///< darts an agent throws before the lattice fallback
#define THR_SPAWN_RETRY 0x10000u     ///< first draw index of the retries (no scene draws there)
#define THR_SPAWN_SLACK (1.0f / 64.0f) ///< two discs keep (r_i + r_j)(1 + slack) apart

/// One disc placed (16 bytes: a test reads one cache line per disc).
typedef struct thr_spawn_disc {
	float x, y;        ///< centre (m)
	float r;           ///< radius (m)
	uint32_t next;     ///< the disc added before it to its cell, or UINT32_MAX
} thr_spawn_disc;

/// The discs placed so far and their grid.
typedef struct thr_spawn {
	const char* scene; ///< named in errors
	throng_vec2 lo;    ///< the grid's lower-left corner (m)
	float inv_cell;    ///< 1 / cell size (1/m)
	uint32_t nx, ny;   ///< cells across and up
	uint32_t* head;    ///< per cell: its last disc added, or UINT32_MAX
	thr_spawn_disc* disc;
	uint32_t count;    ///< discs placed
	uint32_t cap;      ///< discs it has room for
	uint32_t fallbacks; ///< agents placed by the lattice fallback
} thr_spawn;

/// Makes an empty placement for at most `cap` discs over the rectangle
/// [lo, hi] (discs may lie outside it: they count in the border cells),
/// none of radius above `max_radius` (m). `scene` names the scene in errors.
throng_status thr_spawn_init(thr_spawn* s, const char* scene, throng_vec2 lo, throng_vec2 hi, uint32_t cap,
                             float max_radius);

/// Frees the placement's arrays; *s may then be initialised again.
void thr_spawn_free(thr_spawn* s);

/// Adds a disc that later agents keep clear of (an obstacle, or an agent a
/// layout placed). The caller keeps count below cap.
void thr_spawn_block(thr_spawn* s, throng_vec2 center, float radius);

/// Places agents first .. first + count - 1 (ids: the draws' key), each a
/// disc of `radius`, centres in [lo, hi], clear of every disc before it,
/// as the header says; out[k] is agent first + k's centre. `key` is the
/// world's random key (thr_rng_key of the seed). Fails, naming the agent,
/// only when the rectangle has no room left for it.
throng_status thr_spawn_scatter(thr_spawn* s, uint32_t key, uint32_t first, uint32_t count, float radius,
                                throng_vec2 lo, throng_vec2 hi, throng_vec2* out);

/// Agents 0 .. n - 1, each a disc of `radius`, thrown into [lo, hi] with
/// nothing placed before them (thr_spawn_init over [lo, hi], then
/// thr_spawn_scatter): *out (malloc'd) holds their centres, or is NULL
/// after a failure.
throng_status thr_spawn_darts(const char* scene, uint32_t key, uint32_t n, float radius, throng_vec2 lo,
                              throng_vec2 hi, throng_vec2** out);

#endif
