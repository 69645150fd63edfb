// SPDX-License-Identifier: MIT
// The `charge` scenario: two armies charge each other, nobody hurt (the
// `armies` scene, scenario_armies.c, is the battle with combat, morale and
// units; this one is the charge alone: pursuit by target rules, formation
// kept by flocking, and the measure of how the lines engage).
//
// Agent i serves army i mod 2: army 0 stands west of the field's centre
// line and faces east, army 1 mirrors it. Each army is 60% infantry, 20%
// cavalry and 20% archers (rounded down, archers take the rest):
// - infantry: a line four times wider than deep (1.2 m lattice), its front
//   CHARGE_GAP / 2 from the centre line. Each keeps formation with its own
//   group (cohesion and alignment, same_group_only, 3 m), and attacks by
//   target selection: every 10 steps it picks the nearest enemy foot
//   soldier within 20 m and pursues it; with nobody in sight it marches on
//   to where the enemy's line stood (arrive). 2.5 m/s: a charge at a run.
// - cavalry: a square block (2 m lattice) on the army's right flank, riders
//   of radius 0.6 m at 6 m/s. They pursue the nearest enemy archer within
//   150 m (re-chosen every 15 steps), riding for the enemy archers' start
//   while none is in sight.
// - archers: a line (1.5 m lattice) CHARGE_ARCHER_BACK behind their
//   infantry, holding their ground (arrive at the start) and evading the
//   nearest enemy rider within 25 m. 2.5 m/s, as slow as the infantry: on
//   open ground the riders catch them.
// Everyone keeps 1 m of personal space from everyone (separation over all
// groups, weight 4, riders 1.8 m), stays inside the contained field, and
// spends the force budget on that first (hybrid). Pursuit still drives
// soldiers into the enemy they chose, so the melee overlaps: that is the
// battle, and docs/QUALITY.md shows it.
//
// Groups: 3 * army + role (0 infantry, 1 cavalry, 2 archers).
//
// Scaling: every block holds its share of the army at a fixed density, its
// sides growing as sqrt(N); the gap between the fronts stays CHARGE_GAP
// (40 m), so the fronts meet at the same time at any N. The lines grow
// deeper with N (13 ranks at 2,000 agents, 87 at 100,000), so engaging
// half of the infantry takes longer: beyond some 10,000 agents the battle
// needs more than the default 30 s (at 100,000, 30% engaged after 30 s).
//
// How the battle resolves (the outcome measure `charge`, docs/QUALITY.md;
// it reads the world only, so a file naming it is measured alike: a foot
// soldier is an agent of group 0 or 3, its army the group / 3). A foot
// soldier is engaged when the enemy it has chosen is within
// CHARGE_ENGAGE_M (1.5 m between centres: the bodies 0.9 m apart, in arm's
// reach). `engaged` is the fraction of all infantry engaged; the battle has
// resolved once it reaches CHARGE_RESOLVED (one half), and `resolved_at` is
// the simulated time of the first check at or above it (checked every
// CHARGE_SAMPLE steps, 0.5 s, and at the end; -1 while unresolved).
// `infantry_gap` is the distance between the two armies' infantry centres
// of mass (m): it falls from 40 m plus a line's depth towards 0 as the
// lines meet and mix. Default 2,000 agents and 1800 steps (30 s): the
// fronts meet after about 8 s and the battle resolves at 13 to 14 s at
// 200 and 1,000 agents (docs/QUALITY.md).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "rng.h"
#include "scenario_crowd.h"
#include "scenario_internal.h"

#define CHARGE_GAP 40.0f            ///< m between the infantry fronts at the start
#define CHARGE_ARCHER_BACK 8.0f     ///< m from the infantry's last rank to the archers
#define CHARGE_CAV_FLANK 8.0f       ///< m from the infantry's flank to the cavalry
#define CHARGE_MARGIN 30.0f         ///< m of field around the armies
#define CHARGE_INF_SPACING 1.2f     ///< m
#define CHARGE_CAV_SPACING 2.0f     ///< m
#define CHARGE_ARCH_SPACING 1.5f    ///< m
#define CHARGE_ENGAGE_M 1.5f        ///< m: a foot soldier this close to its chosen enemy is engaged
#define CHARGE_RESOLVED 0.5         ///< engaged fraction at which the battle has resolved
#define CHARGE_SAMPLE 30u           ///< steps between checks of the outcome

enum { ROLE_INFANTRY = 0, ROLE_CAVALRY = 1, ROLE_ARCHERS = 2, ROLES = 3 };

/// Per-role settings.
typedef struct charge_role_def {
	float speed, force, radius, spacing, aspect;
} charge_role_def;

static const charge_role_def charge_roles[ROLES] = {
	{2.5f, 3.0f, 0.3f, CHARGE_INF_SPACING, 0.25f},  // infantry: a wide line
	{6.0f, 5.0f, 0.6f, CHARGE_CAV_SPACING, 1.0f},   // cavalry: a square
	{2.5f, 3.0f, 0.3f, CHARGE_ARCH_SPACING, 0.25f}, // archers: a line
};

typedef struct charge_data {
	uint32_t count[2][ROLES];    ///< agents per army and role
	uint32_t columns[ROLES], rows[ROLES]; ///< block sizes (army 0's, the larger)
	float width[ROLES], depth[ROLES];     ///< m
	uint32_t archetype[2][ROLES];
	uint32_t key;
} charge_data;

/// Army, role and index within the role of agent i.
static void charge_who(const charge_data* d, uint32_t i, uint32_t* army, uint32_t* role, uint32_t* k)
{
	*army = i % 2u;
	*k = i / 2u;
	*role = ROLE_INFANTRY;
	const uint32_t* c = d->count[*army];
	if (*k >= c[0]) {
		*k -= c[0];
		*role = ROLE_CAVALRY;
		if (*k >= c[1]) {
			*k -= c[1];
			*role = ROLE_ARCHERS;
		}
	}
}

/// Where along the army's facing (m, from the centre line, negative
/// behind) a role's front stands, and its lateral centre (m, to the right).
static void charge_block_origin(const charge_data* d, uint32_t role, float* front, float* centre)
{
	*front = -0.5f * CHARGE_GAP;
	*centre = 0.0f;
	if (role == ROLE_ARCHERS) {
		*front -= d->depth[ROLE_INFANTRY] + CHARGE_ARCHER_BACK;
	} else if (role == ROLE_CAVALRY) {
		*centre = 0.5f * d->width[ROLE_INFANTRY] + CHARGE_CAV_FLANK + 0.5f * d->width[ROLE_CAVALRY];
	}
}

static void charge_make(const void* params, const throng_vec2* points, uint32_t i, throng_agent_def* def)
{
	const charge_data* d = params;
	(void)points;
	uint32_t army, role, k;
	charge_who(d, i, &army, &role, &k);
	const charge_role_def* r = &charge_roles[role];
	throng_vec2 u = army == 0 ? (throng_vec2){1.0f, 0.0f} : (throng_vec2){-1.0f, 0.0f};
	throng_vec2 right = {u.y, -u.x};
	float lateral, depth, front, centre;
	thr_crowd_slot(d->key, i, k, d->columns[role], r->spacing, &lateral, &depth);
	charge_block_origin(d, role, &front, &centre);
	float along = front - depth;
	float side = centre - 0.5f * d->width[role] + lateral;
	*def = throng_agent_default_def();
	def->position = thr_crowd_at(u, right, along, side);
	def->heading = u;
	def->max_speed = r->speed;
	def->max_force = r->force;
	def->radius = r->radius;
	def->archetype = d->archetype[army][role];
	def->group = 3u * army + role;
	float t_along = along, t_side = side; // archers hold their ground
	if (role == ROLE_INFANTRY) {
		t_along = -along; // march to where the enemy's line stood
	} else if (role == ROLE_CAVALRY) {
		float af, ac;
		charge_block_origin(d, ROLE_ARCHERS, &af, &ac);
		t_along = -(af - 0.5f * d->depth[ROLE_ARCHERS]); // the enemy archers' centre
		t_side = -ac;
	}
	def->target = thr_crowd_at(u, right, t_along, t_side);
}

/// The controller of one role of one army.
static throng_controller charge_controller(uint32_t army, uint32_t role)
{
	uint32_t enemy = 3u * (1u - army);
	throng_controller c = throng_controller_default_def(THRONG_BLEND_HYBRID);
	throng_slot s = throng_slot_default_def(THRONG_BOUNDS);
	s.priority = true;
	s.params.margin = 5.0f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_SEPARATION);
	s.priority = true;
	s.weight = 4.0f; // fills the budget near contact (scenario_crowd.c has the reasoning)
	s.params.neighbor_radius = role == ROLE_CAVALRY ? 1.8f : 1.0f;
	throng_controller_add(&c, s);
	throng_slot aim = throng_slot_default_def(role == ROLE_ARCHERS ? THRONG_EVADE : THRONG_PURSUIT);
	aim.params.target = THRONG_TARGET_AGENT;
	aim.params.max_prediction = 1.0f;
	aim.params.evade_radius = 25.0f;
	aim.weight = role == ROLE_ARCHERS ? 2.0f : 1.0f;
	throng_controller_add(&c, aim);
	s = throng_slot_default_def(THRONG_ARRIVE);
	s.params.target = THRONG_TARGET_POINT;
	s.params.slow_radius = role == ROLE_CAVALRY ? 10.0f : 3.0f;
	s.weight = 0.5f;
	throng_controller_add(&c, s);
	s = throng_slot_default_def(THRONG_COHESION);
	s.params.same_group_only = true;
	s.params.neighbor_radius = role == ROLE_CAVALRY ? 6.0f : 3.0f;
	s.weight = role == ROLE_INFANTRY ? 0.3f : 0.2f;
	throng_controller_add(&c, s);
	if (role == ROLE_INFANTRY) {
		s = throng_slot_default_def(THRONG_ALIGNMENT);
		s.params.same_group_only = true;
		s.params.neighbor_radius = 3.0f;
		s.weight = 0.5f;
		throng_controller_add(&c, s);
	}
	c.target_rule.enabled = true;
	if (role == ROLE_INFANTRY) {
		c.target_rule = (throng_target_rule){true, enemy + ROLE_INFANTRY, 20.0f, 10, 0};
	} else if (role == ROLE_CAVALRY) {
		c.target_rule = (throng_target_rule){true, enemy + ROLE_ARCHERS, 150.0f, 15, 0};
	} else {
		c.target_rule = (throng_target_rule){true, enemy + ROLE_CAVALRY, 25.0f, 10, 0};
	}
	// A melee presses thousands of soldiers together: the contact pass's
	// default 4 iterations leave overlaps of 0.10 of the radii sum after
	// 30 s at 100,000 agents, 8 leave 0.061, 16 about 0.04 (docs/QUALITY.md).
	// Iterations run only while pairs overlap.
	c.contact.iterations = 16;
	return c;
}

throng_status thr_charge_build(throng_scene* scene, const throng_scene_def* o)
{
	uint32_t n = scene->agents;
	charge_data data;
	charge_data* d = &data;
	memset(d, 0, sizeof *d);
	d->key = thr_rng_key(o->seed);
	for (uint32_t a = 0; a < 2; ++a) {
		uint32_t size = (n + 1u - a) / 2u;
		d->count[a][ROLE_INFANTRY] = (uint32_t)((uint64_t)size * 3u / 5u);
		d->count[a][ROLE_CAVALRY] = size / 5u;
		d->count[a][ROLE_ARCHERS] = size - d->count[a][0] - d->count[a][1];
	}
	for (uint32_t r = 0; r < ROLES; ++r) {
		uint32_t m = d->count[0][r] > 0 ? d->count[0][r] : 1u;
		thr_crowd_block(m, charge_roles[r].aspect, &d->columns[r], &d->rows[r]);
		d->width[r] = (float)d->columns[r] * charge_roles[r].spacing;
		d->depth[r] = (float)d->rows[r] * charge_roles[r].spacing;
	}
	// The field reaches behind the deepest of the army's columns: infantry
	// then archers, or the cavalry's square, which is the deeper beyond
	// some 300,000 agents.
	float behind = d->depth[ROLE_INFANTRY] + CHARGE_ARCHER_BACK + d->depth[ROLE_ARCHERS];
	behind = behind > d->depth[ROLE_CAVALRY] ? behind : d->depth[ROLE_CAVALRY];
	float half_x = 0.5f * CHARGE_GAP + behind;
	float cav_front, cav_centre;
	charge_block_origin(d, ROLE_CAVALRY, &cav_front, &cav_centre);
	float half_y = cav_centre + 0.5f * d->width[ROLE_CAVALRY];
	half_y = half_y > 0.5f * d->width[ROLE_ARCHERS] ? half_y : 0.5f * d->width[ROLE_ARCHERS];
	const throng_vec2 lo = {-half_x - CHARGE_MARGIN, -half_y - CHARGE_MARGIN};
	const throng_vec2 hi = {half_x + CHARGE_MARGIN, half_y + CHARGE_MARGIN};
	throng_status st = thr_scene_create_world(scene, o, n, lo, hi, THRONG_BOUNDS_CONTAIN);
	static const char* const names[2][ROLES] = {{"west_infantry", "west_cavalry", "west_archers"},
	                                            {"east_infantry", "east_cavalry", "east_archers"}};
	for (uint32_t a = 0; a < 2 && st == THRONG_OK; ++a) {
		for (uint32_t r = 0; r < ROLES && st == THRONG_OK; ++r) {
			throng_controller ctl = charge_controller(a, r);
			st = thr_scene_add_archetype(scene, names[a][r], &ctl, &d->archetype[a][r]);
		}
	}
	if (st == THRONG_OK) {
		st = thr_scene_add_block(scene, n, charge_make, d, sizeof *d, NULL);
	}
	scene->goal_radius = 0.0f; // targets are marching orders, not goals
	return st;
}

// ---------------------------------------------------------------------------
// The outcome measure
// ---------------------------------------------------------------------------

/// The battle's figures on the current state: engaged fraction and the
/// distance between the infantry centres of mass. Foot soldiers are the
/// agents of groups 0 (army 0) and 3 (army 1). Sums run in id order.
static void charge_measure(const throng_scene* scene, double* engaged, double* gap)
{
	const throng_world* w = scene->world;
	uint32_t n = throng_world_agent_count(w);
	uint64_t foot = 0, close = 0;
	double cx[2] = {0.0, 0.0}, cy[2] = {0.0, 0.0};
	uint32_t cn[2] = {0, 0};
	const float r2 = CHARGE_ENGAGE_M * CHARGE_ENGAGE_M;
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state a, t;
		if (throng_world_get_agent(w, id, &a) != THRONG_OK ||
		    (a.group != ROLE_INFANTRY && a.group != ROLES + ROLE_INFANTRY)) {
			continue;
		}
		uint32_t army = a.group / ROLES;
		foot++;
		cx[army] += (double)a.position.x;
		cy[army] += (double)a.position.y;
		cn[army]++;
		if (a.target_agent != THRONG_NO_AGENT && throng_world_get_agent(w, a.target_agent, &t) == THRONG_OK) {
			float dx = t.position.x - a.position.x;
			float dy = t.position.y - a.position.y;
			close += dx * dx + dy * dy <= r2 ? 1u : 0u;
		}
	}
	*engaged = foot > 0 ? (double)close / (double)foot : 0.0;
	*gap = 0.0;
	if (cn[0] > 0 && cn[1] > 0) {
		double dx = cx[0] / cn[0] - cx[1] / cn[1];
		double dy = cy[0] / cn[0] - cy[1] / cn[1];
		*gap = sqrt(dx * dx + dy * dy);
	}
}

static void charge_sample(const throng_scene* scene, thr_measure_state* state)
{
	if (state->resolved_at >= 0.0 || scene->steps % CHARGE_SAMPLE != 0) {
		return;
	}
	double engaged, gap;
	charge_measure(scene, &engaged, &gap);
	if (engaged >= CHARGE_RESOLVED) {
		state->resolved_at = (double)scene->steps * scene->dt;
	}
}

static uint32_t charge_outcome(const throng_scene* scene, const thr_measure_state* state, throng_scene_outcome* out,
                               uint32_t cap)
{
	double engaged, gap;
	charge_measure(scene, &engaged, &gap);
	double resolved = state->resolved_at;
	if (resolved < 0.0 && engaged >= CHARGE_RESOLVED) {
		resolved = (double)scene->steps * scene->dt; // reached on the state measured now
	}
	const throng_scene_outcome all[3] = {{"engaged", engaged}, {"resolved_at", resolved}, {"infantry_gap", gap}};
	for (uint32_t k = 0; k < cap && k < 3; ++k) {
		out[k] = all[k];
	}
	return 3;
}

const thr_measure thr_charge_measure = {
	.name = "charge",
	.init = thr_measure_init_unresolved,
	.sample = charge_sample,
	.outcome = charge_outcome,
};
