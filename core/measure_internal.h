// SPDX-License-Identifier: MIT
// The measurement set's insides, shared by core/measure.c (lines, areas,
// feeding, results) and core/measure_voronoi.c (the areas' samples)
// (private).
#ifndef THRONG_CORE_MEASURE_INTERNAL_H
#define THRONG_CORE_MEASURE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "measure_geom.h"
#include "throng/measure.h"

enum {
	SIDE_NONE = 0, // on the line's carrier since it was first seen
	SIDE_LEFT = 1,
	SIDE_RIGHT = 2,
	SIDE_MASK = 3,
	CROSSED = 4, // crossed this line at least once (PedPy's first passing)
};

typedef struct line_rec {
	thr_dvec a, b;
	throng_crossing* cr;
	uint32_t n, cap;
	uint8_t* first; // per crossing: 1 when the agent's first crossing of the line
	uint32_t first_cap;
} line_rec;

typedef struct area_rec {
	thr_dpoly poly; // counter-clockwise
	double size;
	thr_dvec lo, hi; // bounding box
	bool rect;       // an axis-aligned rectangle
	throng_area_sample* s;
	uint32_t ns, cap;
} area_rec;

typedef struct agent_rec {
	uint32_t key;       // id + 1; 0 = empty
	uint64_t stamp;     // the feed attempt that last met it
	uint64_t last;      // the state (1, 2, ...) it was last seen in; 0 never
	double x, y;
} agent_rec;

struct throng_measure {
	double radius;
	uint32_t segs;
	bool bounded, wrap;
	thr_dvec bmin, bmax;
	line_rec lines[THRONG_MEASURE_MAX_LINES];
	uint32_t nlines;
	area_rec areas[THRONG_MEASURE_MAX_AREAS];
	uint32_t nareas;
	agent_rec* map;
	uint32_t map_cap, map_used; // map_cap a power of two (or 0)
	uint8_t* sides;             // map_cap * nlines
	uint64_t states, attempt;
	double last_time;
	// scratch of one feed
	uint32_t* slot;
	uint32_t slot_cap;
	double* speed;
	uint32_t speed_cap;
	uint32_t* cell_start;
	uint32_t cell_start_cap;
	uint32_t* items;
	uint32_t items_cap;
	thr_dpoly cell, tmp, sa, sb;
	throng_area_sample pending[THRONG_MEASURE_MAX_AREAS];
	thr_dvec* ring;    // the cut-off polygon about the origin, 4 * segs vertices
};

/// Every area's sample of state s into m->pending (m->speed holds the
/// state's speeds, NAN for none). False when out of memory.
bool thr_measure_take_samples(throng_measure* m, const throng_measure_state* s);

#endif
