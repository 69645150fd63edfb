// SPDX-License-Identifier: MIT
// Spatial queries (include/throng/query.h) against a brute-force scan of
// throng_world_view: random worlds of every size, bounds mode and engine,
// before and after steps (the SIMD engine's reorder moves the slots),
// with filters and short buffers; agents on the boundary of each region;
// wrap worlds across the seam; the index rebuilt after a step and a spawn;
// many threads querying one world; and bad input to every call.
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "throng/part.h"
#include "throng/query.h"
#include "throng/throng.h"

#define SENTINEL 0xabababab
#define MAX_AGENTS 4000

// ---------------------------------------------------------------- worlds

static throng_world* make_world(throng_bounds_mode mode, throng_engine engine, uint32_t capacity)
{
	throng_world_def d = throng_world_default_def();
	d.engine = engine;
	d.bounds_mode = mode;
	d.capacity = capacity;
	d.bounds_min = (throng_vec2){-20.0f, -20.0f};
	d.bounds_max = (throng_vec2){20.0f, 20.0f};
	d.threads = 2;
	throng_world* w = NULL;
	cr_assert_eq(throng_world_create(&d, &w), THRONG_OK, "%s", throng_last_error());
	// Two archetypes that move: seek their target, keep apart, wander.
	for (int a = 0; a < 2; ++a) {
		throng_controller c = throng_controller_default_def(THRONG_BLEND_WEIGHTED);
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEEK));
		throng_controller_add(&c, throng_slot_default_def(THRONG_SEPARATION));
		throng_slot s = throng_slot_default_def(THRONG_WANDER);
		s.weight = 0.5f + (float)a;
		throng_controller_add(&c, s);
		cr_assert_eq(throng_world_add_archetype(w, &c, NULL), THRONG_OK, "%s", throng_last_error());
	}
	return w;
}

/// Spawns n random agents: inside the bounds, or, in an open world, a
/// tenth of them far outside.
static void spawn_random(throng_world* w, uint64_t* rng, uint32_t n)
{
	const throng_world_def d = throng_world_get_def(w);
	throng_agent_def* defs = calloc(n > 0 ? n : 1, sizeof *defs);
	for (uint32_t i = 0; i < n; ++i) {
		throng_agent_def a = throng_agent_default_def();
		float span = d.bounds_mode == THRONG_BOUNDS_OPEN && i % 10 == 3 ? 300.0f : 19.9f;
		a.position = (throng_vec2){thr_test_uniform(rng, -span, span), thr_test_uniform(rng, -span, span)};
		a.archetype = (uint32_t)thr_test_uniform(rng, 0.0f, 1.999f);
		a.group = (uint32_t)thr_test_uniform(rng, 0.0f, 3.999f);
		a.target = (throng_vec2){thr_test_uniform(rng, -19.0f, 19.0f), thr_test_uniform(rng, -19.0f, 19.0f)};
		defs[i] = a;
	}
	if (n > 0) {
		cr_assert_eq(throng_world_spawn(w, defs, n, NULL), THRONG_OK, "%s", throng_last_error());
	}
	free(defs);
}

static void step(throng_world* w, uint32_t steps)
{
	for (uint32_t s = 0; s < steps; ++s) {
		cr_assert_eq(throng_world_step(w), THRONG_OK, "%s", throng_last_error());
	}
}

/// Spawns one agent at p (group g, archetype 0); returns its id.
static uint32_t spawn_at(throng_world* w, throng_vec2 p, uint32_t g)
{
	throng_agent_def a = throng_agent_default_def();
	a.position = p;
	a.group = g;
	uint32_t id = 0;
	cr_assert_eq(throng_world_spawn(w, &a, 1, &id), THRONG_OK, "%s", throng_last_error());
	return id;
}

// ----------------------------------------------------------- brute force

static bool passes(const throng_view* v, uint32_t k, const throng_query_filter* f)
{
	if (f == NULL) {
		return true;
	}
	return v->id[k] != f->exclude && (f->group == THRONG_ANY || v->group[k] == f->group) &&
	       (f->archetype == THRONG_ANY || v->archetype[k] == f->archetype);
}

static int by_u64(const void* a, const void* b)
{
	const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

/// The squared distance as query.h defines it (the nearest image in a
/// wrap world, whose centre lies inside the bounds).
static float dist2(const throng_world_def* d, float x, float y, throng_vec2 c)
{
	float dx = x - c.x, dy = y - c.y;
	if (d->bounds_mode == THRONG_BOUNDS_WRAP) {
		const float px = d->bounds_max.x - d->bounds_min.x, py = d->bounds_max.y - d->bounds_min.y;
		dx = dx > 0.5f * px ? dx - px : (dx < -0.5f * px ? dx + px : dx);
		dy = dy > 0.5f * py ? dy - py : (dy < -0.5f * py ? dy + py : dy);
	}
	return dx * dx + dy * dy;
}

static uint64_t dist_key(float d2, uint32_t id)
{
	uint32_t bits;
	memcpy(&bits, &d2, sizeof bits);
	return (uint64_t)bits << 32 | id;
}

/// Which agents a brute-force scan finds.
typedef enum scan_kind { SCAN_RADIUS, SCAN_BOX, SCAN_POLYGON, SCAN_NEAREST } scan_kind;

typedef struct scan {
	scan_kind kind;
	throng_vec2 c, lo, hi;
	float r;
	const throng_vec2* poly;
	uint32_t n, k;
} scan;

/// Winding number of the polygon around (x, y), in double: a test of its
/// own, not the library's crossing count (agents of random worlds never
/// lie on an edge).
static bool winding_inside(const throng_vec2* p, uint32_t n, double x, double y)
{
	int wn = 0;
	for (uint32_t i = 0; i < n; ++i) {
		const throng_vec2 a = p[i], b = p[(i + 1) % n];
		const double side = ((double)b.x - a.x) * (y - a.y) - (x - a.x) * ((double)b.y - a.y);
		if (a.y <= y) {
			wn += b.y > y && side > 0.0;
		} else {
			wn -= b.y <= y && side < 0.0;
		}
	}
	return wn != 0;
}

/// The expected answer in order into out (room for every agent); returns
/// the total.
static uint32_t brute(const throng_world* w, const scan* s, const throng_query_filter* f, uint32_t* out)
{
	const throng_view v = throng_world_view(w);
	const throng_world_def d = throng_world_get_def(w);
	uint64_t* keys = malloc((v.count + 1) * sizeof *keys);
	uint32_t n = 0;
	for (uint32_t k = 0; k < v.count; ++k) {
		if (!passes(&v, k, f)) {
			continue;
		}
		const float x = v.x[k], y = v.y[k];
		const float d2 = dist2(&d, x, y, s->c);
		switch (s->kind) {
		case SCAN_RADIUS:
			if (d2 <= s->r * s->r) {
				keys[n++] = dist_key(d2, v.id[k]);
			}
			break;
		case SCAN_NEAREST:
			keys[n++] = dist_key(d2, v.id[k]);
			break;
		case SCAN_BOX:
			if (x >= s->lo.x && x <= s->hi.x && y >= s->lo.y && y <= s->hi.y) {
				keys[n++] = v.id[k];
			}
			break;
		case SCAN_POLYGON:
			if (winding_inside(s->poly, s->n, x, y)) {
				keys[n++] = v.id[k];
			}
			break;
		}
	}
	qsort(keys, n, sizeof *keys, by_u64);
	if (s->kind == SCAN_NEAREST && n > s->k) {
		n = s->k;
	}
	for (uint32_t j = 0; j < n; ++j) {
		out[j] = (uint32_t)keys[j];
	}
	free(keys);
	return n;
}

/// The library's answer with room for `capacity` ids; fails the test on error.
static uint32_t ask(const throng_world* w, const scan* s, const throng_query_filter* f, uint32_t* ids,
                    uint32_t capacity)
{
	uint32_t total = SENTINEL;
	throng_status st = THRONG_OK;
	switch (s->kind) {
	case SCAN_RADIUS:
		st = throng_world_query_radius(w, s->c, s->r, f, ids, capacity, &total);
		break;
	case SCAN_BOX:
		st = throng_world_query_box(w, s->lo, s->hi, f, ids, capacity, &total);
		break;
	case SCAN_POLYGON:
		st = throng_world_query_polygon(w, s->poly, s->n, f, ids, capacity, &total);
		break;
	case SCAN_NEAREST:
		st = throng_world_query_nearest(w, s->c, s->k, f, ids, &total);
		break;
	}
	cr_assert_eq(st, THRONG_OK, "%s", throng_last_error());
	return total;
}

static const char* const kind_names[] = {"radius", "box", "polygon", "nearest"};

/// The library agrees with the brute force, with room for all and for a
/// prefix (untouched past it).
static void check(const throng_world* w, const scan* s, const throng_query_filter* f, const char* what)
{
	static uint32_t want[MAX_AGENTS + 16], got[MAX_AGENTS + 16];
	const uint32_t n = brute(w, s, f, want);
	memset(got, 0xab, sizeof got);
	const uint32_t room = s->kind == SCAN_NEAREST ? s->k : MAX_AGENTS + 8;
	const uint32_t total = ask(w, s, f, got, room);
	cr_assert_eq(total, n, "%s %s: total %u, brute force %u", what, kind_names[s->kind], total, n);
	for (uint32_t j = 0; j < n; ++j) {
		cr_assert_eq(got[j], want[j], "%s %s: ids[%u] = %u, brute force %u", what, kind_names[s->kind], j, got[j],
		             want[j]);
	}
	cr_assert_eq(got[n], SENTINEL, "%s: written past the total", what);
	if (s->kind != SCAN_NEAREST && n > 1) {
		const uint32_t cap = n / 2;
		memset(got, 0xab, sizeof got);
		cr_assert_eq(ask(w, s, f, got, cap), n, "%s: the total with a short buffer", what);
		cr_assert_arr_eq(got, want, cap * sizeof *got, "%s: a short buffer holds the first ids", what);
		cr_assert_eq(got[cap], SENTINEL, "%s: written past the capacity", what);
	}
}

// ------------------------------------------------------- random queries

/// A star of 2*m points around c (radii alternating r and r/2.5, concave)
/// or, with `convex`, a regular m-gon; clockwise when `cw`.
static uint32_t make_polygon(throng_vec2* p, throng_vec2 c, float r, uint32_t m, bool convex, bool cw, float turn)
{
	const uint32_t n = convex ? m : 2 * m;
	for (uint32_t i = 0; i < n; ++i) {
		const float a = turn + (cw ? -1.0f : 1.0f) * 6.2831853f * (float)i / (float)n;
		const float rr = convex || i % 2 == 0 ? r : r / 2.5f;
		p[i] = (throng_vec2){c.x + rr * cosf(a), c.y + rr * sinf(a)};
	}
	return n;
}

/// Random queries of every kind and filter on w.
static void check_random(const throng_world* w, uint64_t* rng, const char* what)
{
	const uint32_t count = throng_world_agent_count(w);
	const throng_world_def d = throng_world_get_def(w);
	const bool wrap = d.bounds_mode == THRONG_BOUNDS_WRAP;
	throng_query_filter filters[5];
	for (int f = 0; f < 5; ++f) {
		filters[f] = throng_query_filter_all();
	}
	filters[1].group = 2;
	filters[2].archetype = 1;
	filters[3].exclude = count > 0 ? count / 2 : 0;
	filters[4].group = 1;
	filters[4].archetype = 0;
	static const float radii[] = {0.0f, 0.7f, 3.0f, 9.0f, 60.0f};
	static const uint32_t ks[] = {1, 3, 17, 5000};
	throng_vec2 poly[64];
	for (int q = 0; q < 12; ++q) {
		// Centres inside a wrap world (its queries take the centre there);
		// elsewhere some outside the bounds too.
		const float span = wrap ? 19.99f : 40.0f;
		const throng_vec2 c = {thr_test_uniform(rng, -span, span), thr_test_uniform(rng, -span, span)};
		const throng_query_filter* f = q % 6 == 5 ? NULL : &filters[q % 5];
		scan s = {.kind = SCAN_RADIUS, .c = c, .r = radii[q % 5]};
		check(w, &s, f, what);
		s.kind = SCAN_NEAREST;
		s.k = ks[q % 4];
		check(w, &s, f, what);
		const float hw = thr_test_uniform(rng, 0.0f, 15.0f), hh = thr_test_uniform(rng, 0.0f, 15.0f);
		s.kind = SCAN_BOX;
		s.lo = (throng_vec2){c.x - hw, c.y - hh};
		s.hi = (throng_vec2){c.x + hw, c.y + hh};
		check(w, &s, f, what);
		s.kind = SCAN_POLYGON;
		s.poly = poly;
		s.n = make_polygon(poly, c, thr_test_uniform(rng, 1.0f, 25.0f), 3 + (uint32_t)q, q % 2 == 0, q % 3 == 0,
		                   thr_test_uniform(rng, 0.0f, 6.0f));
		check(w, &s, f, what);
	}
}

static void random_worlds(throng_engine engine)
{
	static const throng_bounds_mode modes[] = {THRONG_BOUNDS_CONTAIN, THRONG_BOUNDS_WRAP, THRONG_BOUNDS_OPEN};
	static const uint32_t sizes[] = {0, 1, 9, 300, 3000};
	for (uint64_t seed = 1; seed <= 2; ++seed) {
		for (int m = 0; m < 3; ++m) {
			for (int z = 0; z < 5; ++z) {
				uint64_t rng = seed * 7919u + (uint64_t)m * 31u + (uint64_t)z;
				throng_world* w = make_world(modes[m], engine, sizes[z] + 8u);
				spawn_random(w, &rng, sizes[z]);
				char what[96];
				snprintf(what, sizeof what, "%s %s %u agents seed %llu", throng_engine_name(engine),
				         throng_bounds_mode_name(modes[m]), sizes[z], (unsigned long long)seed);
				check_random(w, &rng, what);
				step(w, 4);
				strncat(what, " after 4 steps", sizeof what - strlen(what) - 1);
				check_random(w, &rng, what);
				throng_world_destroy(w);
			}
		}
	}
}

Test(random, simd_engine_after_reorder)
{
	random_worlds(THRONG_ENGINE_SIMD);
}

Test(random, scalar_engine)
{
	random_worlds(THRONG_ENGINE_SCALAR);
}

Test(random, slots_really_move)
{
	// The SIMD engine's reorder: after steps some slot holds another id,
	// so the queries above met slots that are not ids.
	uint64_t rng = 5;
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 3000);
	spawn_random(w, &rng, 3000);
	step(w, 2);
	const throng_view v = throng_world_view(w);
	uint32_t moved = 0;
	for (uint32_t k = 0; k < v.count; ++k) {
		moved += v.id[k] != k;
	}
	cr_assert_gt(moved, 1000u);
	throng_world_destroy(w);
}

// ------------------------------------------------------------ edge cases

Test(edges, empty_world)
{
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 8);
	uint32_t ids[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL}, total = SENTINEL;
	const throng_vec2 c = {0.0f, 0.0f}, sq[4] = {{-5, -5}, {5, -5}, {5, 5}, {-5, 5}};
	cr_assert_eq(throng_world_query_radius(w, c, 10.0f, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 0u);
	total = SENTINEL;
	cr_assert_eq(throng_world_query_box(w, sq[0], sq[2], NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 0u);
	total = SENTINEL;
	cr_assert_eq(throng_world_query_polygon(w, sq, 4, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 0u);
	total = SENTINEL;
	cr_assert_eq(throng_world_query_nearest(w, c, 3, NULL, ids, &total), THRONG_OK);
	cr_assert_eq(total, 0u);
	uint32_t totals[2] = {SENTINEL, SENTINEL};
	cr_assert_eq(throng_world_query_radius_batch(w, sq, 2, 3.0f, NULL, ids, 2, totals), THRONG_OK);
	cr_assert_eq(totals[0], 0u);
	cr_assert_eq(totals[1], 0u);
	totals[0] = totals[1] = SENTINEL;
	cr_assert_eq(throng_world_query_nearest_batch(w, sq, 2, 2, NULL, ids, totals), THRONG_OK);
	cr_assert_eq(totals[0], 0u);
	cr_assert_eq(ids[0], SENTINEL);
	// No room and no buffer: the count alone.
	cr_assert_eq(throng_world_query_radius(w, c, 10.0f, NULL, NULL, 0, &total), THRONG_OK);
	throng_world_destroy(w);
}

Test(edges, on_the_circle_and_the_box)
{
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 16);
	// (3, 4) from (1, 1) is exactly 5 m; so are (-4, 1) and (1, -4).
	const uint32_t on = spawn_at(w, (throng_vec2){4.0f, 5.0f}, 0);
	const uint32_t left = spawn_at(w, (throng_vec2){-4.0f, 1.0f}, 0);
	const uint32_t below = spawn_at(w, (throng_vec2){1.0f, -4.0f}, 0);
	const uint32_t beyond = spawn_at(w, (throng_vec2){6.0001f, 1.0f}, 0);
	const uint32_t centre = spawn_at(w, (throng_vec2){1.0f, 1.0f}, 0);
	uint32_t ids[8], total = 0;
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){1.0f, 1.0f}, 5.0f, NULL, ids, 8, &total), THRONG_OK);
	cr_assert_eq(total, 4u);
	// Distance, then id: the centre first, then the three at 5 m by id.
	cr_assert_eq(ids[0], centre);
	cr_assert_eq(ids[1], on);
	cr_assert_eq(ids[2], left);
	cr_assert_eq(ids[3], below);
	// The box's edges belong to it: [-4, 4] x [-4, 5] holds all but beyond.
	cr_assert_eq(throng_world_query_box(w, (throng_vec2){-4.0f, -4.0f}, (throng_vec2){4.0f, 5.0f}, NULL, ids, 8,
	                                    &total),
	             THRONG_OK);
	cr_assert_eq(total, 4u);
	cr_assert_eq(ids[0], on);
	cr_assert_eq(ids[1], left);
	cr_assert_eq(ids[2], below);
	cr_assert_eq(ids[3], centre);
	// A point box, and a zero radius, hold the agent on it.
	cr_assert_eq(throng_world_query_box(w, (throng_vec2){6.0001f, 1.0f}, (throng_vec2){6.0001f, 1.0f}, NULL, ids, 8,
	                                    &total),
	             THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], beyond);
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){4.0f, 5.0f}, 0.0f, NULL, ids, 8, &total), THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], on);
	throng_world_destroy(w);
}

/// The ids of the polygon query, room for 32.
static uint32_t in_poly(const throng_world* w, const throng_vec2* p, uint32_t n, uint32_t* ids)
{
	uint32_t total = 0;
	cr_assert_eq(throng_world_query_polygon(w, p, n, NULL, ids, 32, &total), THRONG_OK, "%s", throng_last_error());
	return total;
}

Test(edges, polygon_boundary_rule)
{
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 32);
	// Agents at the corners, edge midpoints and centre of [0, 4]^2.
	uint32_t at[3][3];
	for (int j = 0; j < 3; ++j) {
		for (int i = 0; i < 3; ++i) {
			at[j][i] = spawn_at(w, (throng_vec2){2.0f * (float)i, 2.0f * (float)j}, 0);
		}
	}
	const throng_vec2 ccw[4] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}};
	const throng_vec2 cw[4] = {{0, 0}, {0, 4}, {4, 4}, {4, 0}};
	uint32_t a[32], b[32];
	// Left and bottom edges in, right and top out: (0,0) (2,0) (0,2) (2,2).
	cr_assert_eq(in_poly(w, ccw, 4, a), 4u);
	cr_assert_eq(a[0], at[0][0]);
	cr_assert_eq(a[1], at[0][1]);
	cr_assert_eq(a[2], at[1][0]);
	cr_assert_eq(a[3], at[1][1]);
	// Either winding, the same.
	cr_assert_eq(in_poly(w, cw, 4, b), 4u);
	cr_assert_arr_eq(a, b, 4 * sizeof *a);
	// Tilings hold each agent exactly once: the four unit squares of side 2,
	// and the square cut along both diagonals into four triangles.
	uint32_t seen[9] = {0};
	for (int j = 0; j < 2; ++j) {
		for (int i = 0; i < 2; ++i) {
			const float x = 2.0f * (float)i, y = 2.0f * (float)j;
			const throng_vec2 sq[4] = {{x, y}, {x + 2, y}, {x + 2, y + 2}, {x, y + 2}};
			const uint32_t n = in_poly(w, sq, 4, a);
			for (uint32_t k = 0; k < n; ++k) {
				seen[a[k]]++;
			}
		}
	}
	// Of the nine, those on the outer right or top edge lie in none.
	for (int j = 0; j < 3; ++j) {
		for (int i = 0; i < 3; ++i) {
			cr_assert_eq(seen[at[j][i]], (i < 2 && j < 2) ? 1u : 0u, "agent (%d, %d) seen %u times", 2 * i, 2 * j,
			             seen[at[j][i]]);
		}
	}
	memset(seen, 0, sizeof seen);
	const throng_vec2 o = {2, 2};
	const throng_vec2 tri[4][3] = {{{0, 0}, {4, 0}, o}, {{4, 0}, {4, 4}, o}, {{4, 4}, {0, 4}, o}, {{0, 4}, {0, 0}, o}};
	for (int t = 0; t < 4; ++t) {
		const uint32_t n = in_poly(w, tri[t], 3, a);
		for (uint32_t k = 0; k < n; ++k) {
			seen[a[k]]++;
		}
	}
	for (int j = 0; j < 3; ++j) {
		for (int i = 0; i < 3; ++i) {
			cr_assert_eq(seen[at[j][i]], (i < 2 && j < 2) ? 1u : 0u, "agent (%d, %d) seen %u times in the triangles",
			             2 * i, 2 * j, seen[at[j][i]]);
		}
	}
	// A concave polygon: a U whose notch [1, 3] x [2, 5] holds (2, 4) and,
	// on the notch's bottom edge with the polygon below it, (2, 2): both
	// out, the seven others in.
	const throng_vec2 u[8] = {{-1, -1}, {5, -1}, {5, 5}, {3, 5}, {3, 2}, {1, 2}, {1, 5}, {-1, 5}};
	const uint32_t n = in_poly(w, u, 8, a);
	cr_assert_eq(n, 7u, "the U holds all but (2, 2) and (2, 4): %u", n);
	for (uint32_t k = 0; k < n; ++k) {
		cr_assert(a[k] != at[2][1] && a[k] != at[1][1], "agent %u in the notch", a[k]);
	}
	throng_world_destroy(w);
}

Test(edges, nearest_more_than_there_are)
{
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 16);
	const uint32_t far = spawn_at(w, (throng_vec2){10.0f, 0.0f}, 1);
	const uint32_t near = spawn_at(w, (throng_vec2){1.0f, 0.0f}, 0);
	const uint32_t mid = spawn_at(w, (throng_vec2){0.0f, -3.0f}, 1);
	uint32_t ids[10], total = 0;
	memset(ids, 0xab, sizeof ids);
	cr_assert_eq(throng_world_query_nearest(w, (throng_vec2){0.0f, 0.0f}, 10, NULL, ids, &total), THRONG_OK);
	cr_assert_eq(total, 3u);
	cr_assert_eq(ids[0], near);
	cr_assert_eq(ids[1], mid);
	cr_assert_eq(ids[2], far);
	cr_assert_eq(ids[3], SENTINEL);
	throng_query_filter f = throng_query_filter_all();
	f.group = 1;
	f.exclude = mid;
	cr_assert_eq(throng_world_query_nearest(w, (throng_vec2){0.0f, 0.0f}, 10, &f, ids, &total), THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], far);
	// A point far outside the bounds still finds them.
	cr_assert_eq(throng_world_query_nearest(w, (throng_vec2){9.0e5f, -9.0e5f}, 1, NULL, ids, &total), THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], far);
	throng_world_destroy(w);
}

Test(edges, open_world_far_outside)
{
	throng_world* w = make_world(THRONG_BOUNDS_OPEN, THRONG_ENGINE_SIMD, 16);
	const uint32_t a = spawn_at(w, (throng_vec2){5000.0f, 5000.0f}, 0);
	const uint32_t b = spawn_at(w, (throng_vec2){-7000.0f, 12.0f}, 0);
	spawn_at(w, (throng_vec2){0.0f, 0.0f}, 0);
	uint32_t ids[4], total = 0;
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){5001.0f, 5000.0f}, 1.0f, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], a);
	cr_assert_eq(throng_world_query_box(w, (throng_vec2){-8000.0f, 0.0f}, (throng_vec2){-6000.0f, 20.0f}, NULL, ids, 4,
	                                    &total),
	             THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], b);
	cr_assert_eq(throng_world_query_nearest(w, (throng_vec2){-6000.0f, 0.0f}, 1, NULL, ids, &total), THRONG_OK);
	cr_assert_eq(ids[0], b);
	throng_world_destroy(w);
}

Test(edges, wrap_across_the_seam)
{
	throng_world* w = make_world(THRONG_BOUNDS_WRAP, THRONG_ENGINE_SIMD, 16);
	const uint32_t right = spawn_at(w, (throng_vec2){19.0f, 0.0f}, 0);
	const uint32_t left = spawn_at(w, (throng_vec2){-19.75f, 0.0f}, 0);
	const uint32_t corner = spawn_at(w, (throng_vec2){-19.5f, -19.5f}, 0);
	uint32_t ids[4], total = 0;
	// From (19.75, 0): left is 0.5 m away across the seam, right 0.75 m.
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){19.75f, 0.0f}, 1.0f, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 2u);
	cr_assert_eq(ids[0], left);
	cr_assert_eq(ids[1], right);
	cr_assert_eq(throng_world_query_nearest(w, (throng_vec2){19.75f, 0.0f}, 1, NULL, ids, &total), THRONG_OK);
	cr_assert_eq(ids[0], left);
	// Across both seams at once: (19.5, 19.5) is 1 m from the corner agent
	// on each axis.
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){19.5f, 19.5f}, 1.5f, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], corner);
	// A centre outside the bounds is brought in: (59.75, 40) is (19.75, 0).
	cr_assert_eq(throng_world_query_radius(w, (throng_vec2){59.75f, 40.0f}, 1.0f, NULL, ids, 4, &total), THRONG_OK);
	cr_assert_eq(total, 2u);
	cr_assert_eq(ids[0], left);
	// Box and polygon do not cross the seam.
	cr_assert_eq(throng_world_query_box(w, (throng_vec2){18.5f, -1.0f}, (throng_vec2){20.0f, 1.0f}, NULL, ids, 4, &total),
	             THRONG_OK);
	cr_assert_eq(total, 1u);
	cr_assert_eq(ids[0], right);
	throng_world_destroy(w);
}

Test(edges, index_follows_steps_and_spawns)
{
	uint64_t rng = 11;
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 600);
	spawn_random(w, &rng, 500);
	const throng_vec2 c = {1.0f, 2.0f};
	uint32_t before[600], after[600], n0 = 0, n1 = 0;
	cr_assert_eq(throng_world_query_nearest(w, c, 20, NULL, before, &n0), THRONG_OK);
	step(w, 30);
	cr_assert_eq(throng_world_query_nearest(w, c, 20, NULL, after, &n1), THRONG_OK);
	cr_assert(n0 == n1 && memcmp(before, after, n0 * sizeof *before) != 0, "the answer moved with the agents");
	scan s = {.kind = SCAN_NEAREST, .c = c, .k = 20};
	check(w, &s, NULL, "after 30 steps");
	// A spawn on the point: the nearest now, and in the radius and box.
	const uint32_t id = spawn_at(w, c, 3);
	cr_assert_eq(throng_world_query_nearest(w, c, 1, NULL, after, &n1), THRONG_OK);
	cr_assert_eq(after[0], id);
	s.kind = SCAN_RADIUS;
	s.r = 4.0f;
	check(w, &s, NULL, "after a spawn");
	s.kind = SCAN_BOX;
	s.lo = (throng_vec2){0.0f, 0.0f};
	s.hi = (throng_vec2){5.0f, 5.0f};
	check(w, &s, NULL, "after a spawn");
	throng_world_destroy(w);
}

Test(edges, batches_match_single_queries)
{
	uint64_t rng = 3;
	throng_world* w = make_world(THRONG_BOUNDS_WRAP, THRONG_ENGINE_SIMD, 2000);
	spawn_random(w, &rng, 2000);
	step(w, 3);
	enum { Q = 300, PER = 7, K = 5 }; // above THR_QUERY_SORTED: answered row by row of cells
	throng_vec2 c[Q];
	for (int q = 0; q < Q; ++q) {
		c[q] = (throng_vec2){thr_test_uniform(&rng, -25.0f, 25.0f), thr_test_uniform(&rng, -25.0f, 25.0f)};
	}
	throng_query_filter f = throng_query_filter_all();
	f.group = 1;
	uint32_t ids[Q * PER], totals[Q], one[PER], total = 0;
	memset(ids, 0xab, sizeof ids);
	cr_assert_eq(throng_world_query_radius_batch(w, c, Q, 2.5f, &f, ids, PER, totals), THRONG_OK);
	for (int q = 0; q < Q; ++q) {
		cr_assert_eq(throng_world_query_radius(w, c[q], 2.5f, &f, one, PER, &total), THRONG_OK);
		cr_assert_eq(totals[q], total);
		const uint32_t m = total < PER ? total : PER;
		cr_assert_arr_eq(ids + q * PER, one, m * sizeof *one, "radius batch query %d", q);
		for (uint32_t j = m; j < PER; ++j) {
			cr_assert_eq(ids[q * PER + j], SENTINEL, "radius batch query %d: untouched past its ids", q);
		}
	}
	uint32_t nids[Q * K];
	cr_assert_eq(throng_world_query_nearest_batch(w, c, Q, K, &f, nids, totals), THRONG_OK);
	for (int q = 0; q < Q; ++q) {
		cr_assert_eq(throng_world_query_nearest(w, c[q], K, &f, one, &total), THRONG_OK);
		cr_assert_eq(totals[q], total);
		cr_assert_arr_eq(nids + q * K, one, total * sizeof *one, "nearest batch query %d", q);
	}
	throng_world_destroy(w);
}

// ----------------------------------------------------------- concurrency

enum { CQ = 400, CK = 8, CR = 12 };

typedef struct conc {
	const throng_world* w;
	const throng_vec2* c;
	uint32_t ids[CQ * CR], totals[CQ], nids[CQ * CK], ntotals[CQ];
	throng_status st;
} conc;

static void* conc_run(void* p)
{
	conc* t = p;
	t->st = throng_world_query_radius_batch(t->w, t->c, CQ, 3.0f, NULL, t->ids, CR, t->totals);
	if (t->st == THRONG_OK) {
		t->st = throng_world_query_nearest_batch(t->w, t->c, CQ, CK, NULL, t->nids, t->ntotals);
	}
	return NULL;
}

Test(threads, concurrent_queries_agree_with_serial)
{
	// Two worlds with the same agents: one queried on this thread, the
	// other first by six threads at once (so its index is built while
	// they race for it).
	throng_world* w[2];
	for (int k = 0; k < 2; ++k) {
		uint64_t rng = 77;
		w[k] = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 20000);
		spawn_random(w[k], &rng, 20000);
		step(w[k], 2);
	}
	cr_assert_eq(throng_world_hash(w[0]), throng_world_hash(w[1]));
	uint64_t rng = 9;
	static throng_vec2 c[CQ];
	for (int q = 0; q < CQ; ++q) {
		c[q] = (throng_vec2){thr_test_uniform(&rng, -20.0f, 20.0f), thr_test_uniform(&rng, -20.0f, 20.0f)};
	}
	static conc serial, par[6];
	serial.w = w[0];
	serial.c = c;
	conc_run(&serial);
	cr_assert_eq(serial.st, THRONG_OK, "%s", throng_last_error());
	pthread_t th[6];
	for (int t = 0; t < 6; ++t) {
		par[t].w = w[1];
		par[t].c = c;
		cr_assert_eq(pthread_create(&th[t], NULL, conc_run, &par[t]), 0);
	}
	for (int t = 0; t < 6; ++t) {
		pthread_join(th[t], NULL);
	}
	for (int t = 0; t < 6; ++t) {
		cr_assert_eq(par[t].st, THRONG_OK);
		cr_assert_arr_eq(par[t].totals, serial.totals, sizeof serial.totals, "thread %d: radius totals", t);
		cr_assert_arr_eq(par[t].ntotals, serial.ntotals, sizeof serial.ntotals, "thread %d: nearest totals", t);
		for (int q = 0; q < CQ; ++q) {
			const uint32_t m = serial.totals[q] < CR ? serial.totals[q] : CR;
			cr_assert_arr_eq(par[t].ids + q * CR, serial.ids + q * CR, m * sizeof *serial.ids, "thread %d query %d", t,
			                 q);
			cr_assert_arr_eq(par[t].nids + q * CK, serial.nids + q * CK, serial.ntotals[q] * sizeof *serial.nids,
			                 "thread %d nearest %d", t, q);
		}
	}
	throng_world_destroy(w[0]);
	throng_world_destroy(w[1]);
}

// ------------------------------------------------------------- bad input

/// Expects `call` to fail with `status`, its message naming `fn` and
/// `arg`, and the outputs ids and totals (SENTINEL-filled) untouched.
#define EXPECT_REFUSED(call, status, fn, arg)                                                             \
	do {                                                                                              \
		memset(ids, 0xab, sizeof ids);                                                            \
		memset(totals, 0xab, sizeof totals);                                                      \
		const throng_status st_ = (call);                                                         \
		cr_expect_eq(st_, (status), "%s: status %d", #call, (int)st_);                            \
		const char* e_ = throng_last_error();                                                     \
		cr_expect(strncmp(e_, fn, strlen(fn)) == 0 && e_[strlen(fn)] == ':',                     \
		          "%s: message '%s' does not start with %s", #call, e_, fn);                     \
		cr_expect(strstr(e_, arg) != NULL, "%s: message '%s' does not name %s", #call, e_, arg);  \
		for (size_t k_ = 0; k_ < sizeof ids / sizeof *ids; ++k_) {                               \
			cr_expect_eq(ids[k_], SENTINEL, "%s: ids[%zu] written", #call, k_);                  \
		}                                                                                         \
		for (size_t k_ = 0; k_ < sizeof totals / sizeof *totals; ++k_) {                         \
			cr_expect_eq(totals[k_], SENTINEL, "%s: totals[%zu] written", #call, k_);            \
		}                                                                                         \
	} while (0)

Test(bad_input, every_call_refuses_and_writes_nothing)
{
	uint64_t rng = 1;
	throng_world* w = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 100);
	spawn_random(w, &rng, 100);
	uint32_t ids[8], totals[3];
	const throng_vec2 ok = {1.0f, 1.0f}, nan = {NAN, 0.0f}, inf = {0.0f, INFINITY}, huge = {2.0e6f, 0.0f};
	const throng_vec2 sq[4] = {{-5, -5}, {5, -5}, {5, 5}, {-5, 5}};
	const throng_vec2 bad3[3] = {{0, 0}, {1, 0}, {0, NAN}};
	throng_query_filter f = throng_query_filter_all();
	f.archetype = 7;
	const char* r = "throng_world_query_radius";
	EXPECT_REFUSED(throng_world_query_radius(NULL, ok, 1.0f, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "world");
	EXPECT_REFUSED(throng_world_query_radius(w, nan, 1.0f, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "center: must be finite");
	EXPECT_REFUSED(throng_world_query_radius(w, inf, 1.0f, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "center");
	EXPECT_REFUSED(throng_world_query_radius(w, huge, 1.0f, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "center");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, NAN, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "radius: must be finite and >= 0 (got nan)");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, -1.0f, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "radius");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, INFINITY, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "radius");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, 1.0f, NULL, NULL, 8, totals), THRONG_ERR_INVALID_ARGUMENT, r,
	               "ids");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, 1.0f, NULL, ids, 8, NULL), THRONG_ERR_INVALID_ARGUMENT, r,
	               "total");
	EXPECT_REFUSED(throng_world_query_radius(w, ok, 1.0f, &f, ids, 8, totals), THRONG_ERR_NOT_FOUND, r,
	               "filter.archetype: no archetype 7");

	const char* b = "throng_world_query_box";
	EXPECT_REFUSED(throng_world_query_box(NULL, sq[0], sq[2], NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, b,
	               "world");
	EXPECT_REFUSED(throng_world_query_box(w, nan, sq[2], NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, b, "lo");
	EXPECT_REFUSED(throng_world_query_box(w, sq[0], huge, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, b, "hi");
	EXPECT_REFUSED(throng_world_query_box(w, sq[2], sq[0], NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, b,
	               "hi: must be >= lo");
	EXPECT_REFUSED(throng_world_query_box(w, sq[1], sq[3], NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, b,
	               "hi: must be >= lo");
	EXPECT_REFUSED(throng_world_query_box(w, sq[0], sq[2], NULL, NULL, 1, totals), THRONG_ERR_INVALID_ARGUMENT, b,
	               "ids");
	EXPECT_REFUSED(throng_world_query_box(w, sq[0], sq[2], NULL, ids, 8, NULL), THRONG_ERR_INVALID_ARGUMENT, b,
	               "total");
	EXPECT_REFUSED(throng_world_query_box(w, sq[0], sq[2], &f, ids, 8, totals), THRONG_ERR_NOT_FOUND, b,
	               "filter.archetype");

	const char* p = "throng_world_query_polygon";
	EXPECT_REFUSED(throng_world_query_polygon(NULL, sq, 4, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, p,
	               "world");
	EXPECT_REFUSED(throng_world_query_polygon(w, sq, 2, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, p,
	               "n: must be 3 to 4096 points (got 2)");
	EXPECT_REFUSED(throng_world_query_polygon(w, sq, THRONG_MAX_WAYPOINTS + 1, NULL, ids, 8, totals),
	               THRONG_ERR_INVALID_ARGUMENT, p, "n:");
	EXPECT_REFUSED(throng_world_query_polygon(w, NULL, 4, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, p,
	               "points: is NULL");
	EXPECT_REFUSED(throng_world_query_polygon(w, bad3, 3, NULL, ids, 8, totals), THRONG_ERR_INVALID_ARGUMENT, p,
	               "points[2]");
	EXPECT_REFUSED(throng_world_query_polygon(w, sq, 4, NULL, NULL, 8, totals), THRONG_ERR_INVALID_ARGUMENT, p, "ids");
	EXPECT_REFUSED(throng_world_query_polygon(w, sq, 4, NULL, ids, 8, NULL), THRONG_ERR_INVALID_ARGUMENT, p, "total");
	EXPECT_REFUSED(throng_world_query_polygon(w, sq, 4, &f, ids, 8, totals), THRONG_ERR_NOT_FOUND, p,
	               "filter.archetype");

	const char* n = "throng_world_query_nearest";
	EXPECT_REFUSED(throng_world_query_nearest(NULL, ok, 3, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT, n, "world");
	EXPECT_REFUSED(throng_world_query_nearest(w, nan, 3, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT, n, "point");
	EXPECT_REFUSED(throng_world_query_nearest(w, ok, 0, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT, n,
	               "k: must be >= 1 (got 0)");
	EXPECT_REFUSED(throng_world_query_nearest(w, ok, 3, NULL, NULL, totals), THRONG_ERR_INVALID_ARGUMENT, n, "ids");
	EXPECT_REFUSED(throng_world_query_nearest(w, ok, 3, NULL, ids, NULL), THRONG_ERR_INVALID_ARGUMENT, n, "total");
	EXPECT_REFUSED(throng_world_query_nearest(w, ok, 3, &f, ids, totals), THRONG_ERR_NOT_FOUND, n, "filter.archetype");

	// Batches: every point is checked before any query is answered.
	const throng_vec2 pts[3] = {ok, ok, huge};
	const char* rb = "throng_world_query_radius_batch";
	EXPECT_REFUSED(throng_world_query_radius_batch(NULL, pts, 2, 1.0f, NULL, ids, 2, totals),
	               THRONG_ERR_INVALID_ARGUMENT, rb, "world");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, pts, 3, 1.0f, NULL, ids, 2, totals), THRONG_ERR_INVALID_ARGUMENT,
	               rb, "centers[2]");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, NULL, 2, 1.0f, NULL, ids, 2, totals),
	               THRONG_ERR_INVALID_ARGUMENT, rb, "centers: is NULL");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, pts, 2, -0.5f, NULL, ids, 2, totals),
	               THRONG_ERR_INVALID_ARGUMENT, rb, "radius");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, pts, 2, 1.0f, NULL, NULL, 2, totals),
	               THRONG_ERR_INVALID_ARGUMENT, rb, "ids");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, pts, 2, 1.0f, NULL, ids, 2, NULL), THRONG_ERR_INVALID_ARGUMENT,
	               rb, "totals");
	EXPECT_REFUSED(throng_world_query_radius_batch(w, pts, 2, 1.0f, &f, ids, 2, totals), THRONG_ERR_NOT_FOUND, rb,
	               "filter.archetype");
	const char* nb = "throng_world_query_nearest_batch";
	EXPECT_REFUSED(throng_world_query_nearest_batch(NULL, pts, 2, 2, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT,
	               nb, "world");
	EXPECT_REFUSED(throng_world_query_nearest_batch(w, pts, 3, 2, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT, nb,
	               "points[2]");
	EXPECT_REFUSED(throng_world_query_nearest_batch(w, pts, 2, 0, NULL, ids, totals), THRONG_ERR_INVALID_ARGUMENT, nb,
	               "k:");
	EXPECT_REFUSED(throng_world_query_nearest_batch(w, pts, 2, 2, NULL, NULL, totals), THRONG_ERR_INVALID_ARGUMENT, nb,
	               "ids");
	EXPECT_REFUSED(throng_world_query_nearest_batch(w, pts, 2, 2, NULL, ids, NULL), THRONG_ERR_INVALID_ARGUMENT, nb,
	               "totals");

	// The world is as it was, and the queries work after all that.
	uint32_t total = 0;
	cr_assert_eq(throng_world_query_radius(w, ok, 100.0f, NULL, NULL, 0, &total), THRONG_OK);
	cr_assert_eq(total, 100u);
	throng_world_destroy(w);
}

Test(bad_input, part_worlds_are_refused)
{
	uint64_t rng = 2;
	throng_world* whole = make_world(THRONG_BOUNDS_CONTAIN, THRONG_ENGINE_SIMD, 100);
	spawn_random(whole, &rng, 10);
	throng_world* part = NULL;
	cr_assert_eq(throng_part_create(whole, 1, 100, &part), THRONG_OK, "%s", throng_last_error());
	uint32_t ids[8], totals[3];
	EXPECT_REFUSED(throng_world_query_nearest(part, (throng_vec2){0, 0}, 3, NULL, ids, totals),
	               THRONG_ERR_INVALID_ARGUMENT, "throng_world_query_nearest", "world: a part world");
	throng_world_destroy(part);
	throng_world_destroy(whole);
}
