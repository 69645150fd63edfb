// SPDX-License-Identifier: MIT
// The scenario library, and the `herd` acceptance test of seed 001.
//
// Seed 001's challenge: "a herd of 8 agents wanders by default, switches to
// flee when the threat enters its panic radius and returns to wander when it
// moves away; agents must not leave the screen. Accepted when the 8 agents
// scatter as the threat approaches and resume wandering when it leaves, none
// stays stuck vibrating on an edge, and no agent exceeds max_speed."
//
// The measurable criteria (herd, its default 8 agents, 2000 steps = 33.3 s,
// seeds 1..HERD_SEEDS; R = the flee slot's panic radius, 6 m; the threat
// crosses at 3 m/s from t = 4 s to t = 21.3 s):
// (a) scatter:
//     - the flee slot's force is nonzero on every step an agent is inside R
//       of the active threat, and zero whenever it is outside R or the
//       threat is inactive (1 cm of slack at the radius);
//     - every stay inside R that lasts HERD_REACT_S, with the bounds force
//       off meanwhile, turns away within HERD_REACT_S of entering: its away
//       speed dot(v, unit(p - threat)) rises by HERD_AWAY_SPEED * max_speed
//       above its value at entry, or reaches that value (4 m/s^2 turns a
//       full-speed run around in 1 s; the wander slot and the threat's
//       own motion take some of it). Stays with the bounds force on are
//       counted but not held to it: there the hybrid controller puts
//       containment first by design, and a threat driving an agent
//       straight at a wall makes the two forces cancel;
//     - against a control run of each seed with the flee slot disabled,
//       the agents that came within R in the control run pass the threat
//       at least HERD_SCATTER_GAIN_M further away on average, and fewer
//       agents come within HERD_CONTACT_M of it;
//     - each seed brings at least one agent inside R.
// (b) resume: over the last HERD_TAIL_S seconds (the threat gone since
//     t = 21.3 s) every agent's mean speed is at least HERD_TAIL_SPEED of
//     its max_speed and its heading turns by at least HERD_TAIL_TURN_RAD in
//     total: it wanders, neither parked nor running straight.
// (c) inside: every state, every centre lies in the bounds shrunk by the
//     agent's radius, and the world's hard clamp never had to act (the
//     bounds steering alone keeps the herd in).
// (d) no edge sticking: no agent stays within HERD_EDGE_M of an edge of the
//     shrunk bounds for more than HERD_EDGE_MAX_S in a row.
// (e) speed: |v| <= max_speed * (1 + 1e-6) for every agent, every state.
// The measured values print with --verbose (cr_log_info).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "support.h"
#include "throng/scenario.h"
#include "throng/throng.h"

#define HERD_SEEDS 8
#define HERD_AGENTS 8            ///< the scenario's default count
#define HERD_REACT_S 1.0         ///< s
#define HERD_AWAY_SPEED 0.5      ///< fraction of max_speed
#define HERD_SCATTER_GAIN_M 0.5  ///< m
#define HERD_CONTACT_M 0.8       ///< m: two agent radii
#define HERD_TAIL_S 10.0         ///< s
#define HERD_TAIL_SPEED 0.5      ///< fraction of max_speed
#define HERD_TAIL_TURN_RAD 1.0   ///< rad
#define HERD_EDGE_M 0.5          ///< m
#define HERD_EDGE_MAX_S 2.0      ///< s

static throng_scene* make_scene(const char* name, uint32_t agents, uint64_t seed, bool record)
{
	throng_scene_def o = throng_scene_default_def();
	o.agents = agents;
	o.seed = seed;
	o.record_forces = record;
	throng_scene* s = NULL;
	cr_assert_eq(throng_scene_create(name, &o, &s), THRONG_OK, "%s: %s", name, throng_last_error());
	cr_assert_not_null(s);
	return s;
}

static uint64_t hash_after(const char* name, uint32_t agents, uint64_t seed, uint32_t steps)
{
	throng_scene* s = make_scene(name, agents, seed, false);
	for (uint32_t k = 0; k < steps; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
	}
	uint64_t h = throng_world_hash(throng_scene_world(s));
	throng_scene_destroy(s);
	return h;
}

Test(scenarios, table_lists_herd_and_circle)
{
	cr_assert_geq(throng_scenario_count(), 2u);
	cr_assert_null(throng_scenario_at(throng_scenario_count()));
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const throng_scenario_info* info = throng_scenario_at(k);
		cr_assert_not_null(info);
		cr_assert(info->name != NULL && info->name[0] != '\0');
		cr_assert(info->description != NULL && info->description[0] != '\0');
		cr_assert_null(strchr(info->description, '\n'), "one-line description");
		cr_assert_gt(info->default_agents, 0u);
		cr_assert_gt(info->default_steps, 0u);
		cr_assert_eq(throng_scenario_find(info->name), info);
	}
	cr_assert_not_null(throng_scenario_find("herd"));
	cr_assert_not_null(throng_scenario_find("circle"));
	cr_assert_eq(throng_scenario_find("herd")->default_agents, 8u);
	cr_assert_null(throng_scenario_find("nope"));
	cr_assert_null(throng_scenario_find(NULL));
}

Test(scenarios, every_scenario_creates_steps_destroys)
{
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* name = throng_scenario_at(k)->name;
		throng_scene* s = make_scene(name, 64, 7, false);
		cr_assert_str_eq(throng_scene_info(s)->name, name);
		throng_world* w = throng_scene_world(s);
		cr_assert_eq(throng_world_agent_count(w), 64u, "%s", name);
		for (int step = 0; step < 10; ++step) {
			cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s: %s", name, throng_last_error());
		}
		throng_world_stats st = throng_world_get_stats(w);
		cr_assert_eq(st.steps, 10u, "%s", name);
		cr_assert_eq(st.nonfinite, 0u, "%s", name);
		cr_assert_leq(st.max_speed_ratio, 1.000001f, "%s", name);
		throng_scene_destroy(s);
	}
}

Test(scenarios, default_agent_count)
{
	throng_scene* s = make_scene("herd", 0, 1, false);
	cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), 8u);
	cr_assert_eq(throng_scene_goal_radius(s), 0.0f);
	throng_scene_destroy(s);
	s = make_scene("circle", 100, 1, false);
	cr_assert_eq(throng_world_agent_count(throng_scene_world(s)), 100u);
	cr_assert_gt(throng_scene_goal_radius(s), 0.0f);
	throng_scene_destroy(s);
	throng_scene_destroy(NULL); // ignored
}

Test(scenarios, circle_targets_are_antipodal)
{
	throng_scene* s = make_scene("circle", 1000, 1, false);
	throng_world* w = throng_scene_world(s);
	for (uint32_t id = 0; id < 1000; ++id) {
		throng_agent_state a;
		cr_assert_eq(throng_world_get_agent(w, id, &a), THRONG_OK);
		cr_assert_eq(a.target.x, -a.position.x);
		cr_assert_eq(a.target.y, -a.position.y);
		// 1000 agents 1.75 m apart: R = 1000 * 1.75 / (2 pi) = 278.5 m.
		float r = sqrtf(a.position.x * a.position.x + a.position.y * a.position.y);
		cr_assert_float_eq(r, 278.52115f, 0.01f);
	}
	throng_scene_destroy(s);
}

Test(scenarios, unknown_name_lists_known_ones)
{
	throng_scene* s = (throng_scene*)&s; // must be reset to NULL
	throng_scene_def o = throng_scene_default_def();
	cr_assert_eq(throng_scene_create("stampede", &o, &s), THRONG_ERR_NOT_FOUND);
	cr_assert_null(s);
	const char* msg = throng_last_error();
	cr_assert_not_null(strstr(msg, "stampede"), "%s", msg);
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		cr_assert_not_null(strstr(msg, throng_scenario_at(k)->name), "%s", msg);
	}
}

Test(scenarios, bad_arguments)
{
	throng_scene* s = NULL;
	throng_scene_def o = throng_scene_default_def();
	o.agents = 10000001;
	cr_assert_eq(throng_scene_create("herd", &o, &s), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_null(s);
	cr_assert_not_null(strstr(throng_last_error(), "agents"), "%s", throng_last_error());
	o = throng_scene_default_def();
	cr_assert_eq(throng_scene_create(NULL, &o, &s), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_scene_create("herd", &o, NULL), THRONG_ERR_INVALID_ARGUMENT);
	cr_assert_eq(throng_scene_step(NULL), THRONG_ERR_INVALID_ARGUMENT);
}

Test(scenarios, same_options_same_hash)
{
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const char* name = throng_scenario_at(k)->name;
		uint64_t a = hash_after(name, 64, 42, 100);
		uint64_t b = hash_after(name, 64, 42, 100);
		cr_assert_eq(a, b, "%s: %016llx vs %016llx", name, (unsigned long long)a, (unsigned long long)b);
	}
	// The herd's layout and wander are keyed by the seed.
	cr_assert_neq(hash_after("herd", 8, 1, 100), hash_after("herd", 8, 2, 100));
}

Test(scenarios, herd_threat_crosses_on_schedule)
{
	// Active from t = 4 s until it is R = 6 m past the far edge: 40 m + 2R
	// at 3 m/s is 17.3 s, so gone by t = 21.3 s; afterwards it stays off.
	throng_scene* s = make_scene("herd", 8, 1, false);
	throng_vec2 p;
	int first_on = -1, last_on = -1;
	for (int k = 0; k < 2000; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		if (throng_scene_threat(s, &p)) {
			first_on = first_on < 0 ? k : first_on;
			last_on = k;
			cr_assert_float_eq(p.y, 0.0f, 1e-6f);
		}
	}
	cr_assert_eq(first_on, 240, "appears at step 240 (t = 4 s), got %d", first_on);
	cr_assert(last_on >= 1275 && last_on <= 1280, "gone by t = 21.3 s, last active step %d", last_on);
	throng_scene_destroy(s);
}

// ---------------------------------------------------------------------------
// herd acceptance (seed 001)
// ---------------------------------------------------------------------------

/// What one herd run measured; see the criteria at the top of the file.
typedef struct herd_metrics {
	uint32_t agents;
	uint32_t entered;          ///< agents that came inside R of the active threat
	double closest[HERD_AGENTS]; ///< each agent's closest approach to the active threat (m)
	uint32_t free_stays;       ///< stays inside R of >= HERD_REACT_S with the bounds force off
	uint32_t cornered_stays;   ///< the same with the bounds force on (excluded from the check)
	double react_max_s;        ///< longest time to reach the away speed over the free stays (s)
	uint64_t flee_checked;     ///< samples inside R (by 1 cm) of the active threat
	uint64_t flee_missing;     ///< of those, samples with a zero flee force
	uint64_t flee_spurious;    ///< samples outside R (by 1 cm) or threat inactive, nonzero flee force
	double tail_speed_min;     ///< smallest per-agent mean speed / max_speed over the tail
	double tail_turn_min;      ///< smallest per-agent total heading change over the tail (rad)
	uint64_t outside;          ///< agent-steps with the centre outside the shrunk bounds
	double edge_run_max_s;     ///< longest stay within HERD_EDGE_M of an edge (s)
	double edge_min_m;         ///< smallest distance of a centre to the shrunk bounds (m)
	double speed_ratio_max;    ///< largest |v| / max_speed
	uint64_t clamped;          ///< the world's hard-clamp count
} herd_metrics;

/// Index of the first slot of `kind` in archetype 0's controller.
static uint32_t slot_of(const throng_controller* ctl, throng_behavior_kind kind)
{
	for (uint32_t k = 0; k < ctl->slot_count; ++k) {
		if (ctl->slots[k].kind == kind) {
			return k;
		}
	}
	cr_assert_fail("no %s slot", throng_behavior_kind_name(kind));
	return 0;
}

static bool is_zero(throng_vec2 f)
{
	return f.x == 0.0f && f.y == 0.0f;
}

/// Per-agent bookkeeping of run_herd, indexed by id.
typedef struct herd_agent {
	float max_speed, radius;
	double closest;
	int64_t stay_from;   ///< step the current stay inside R began, -1 outside
	int64_t away_at;     ///< first step of the stay that turned away, -1 not yet
	double away_entry;   ///< away speed at the stay's first step (m/s)
	bool cornered;       ///< bounds force on during the stay's first HERD_REACT_S
	int64_t edge_from;   ///< step the agent came within HERD_EDGE_M of an edge, -1 not near
	double tail_speed, tail_turn;
	float hx, hy;        ///< heading of the previous state
} herd_agent;

/// State k: inside the world, near an edge, speed, tail figures.
static void herd_check_state(const throng_view* v, const throng_world_def* def, uint32_t k, uint32_t tail_from,
                             herd_agent* ag, herd_metrics* m)
{
	double dt = (double)def->dt;
	for (uint32_t j = 0; j < v->count; ++j) {
		herd_agent* a = &ag[v->id[j]];
		float x = v->x[j], y = v->y[j];
		float lo_x = def->bounds_min.x + a->radius, hi_x = def->bounds_max.x - a->radius;
		float lo_y = def->bounds_min.y + a->radius, hi_y = def->bounds_max.y - a->radius;
		m->outside += (x >= lo_x && x <= hi_x && y >= lo_y && y <= hi_y) ? 0u : 1u;
		double edge = fmin(fmin((double)x - lo_x, (double)hi_x - x), fmin((double)y - lo_y, (double)hi_y - y));
		m->edge_min_m = fmin(m->edge_min_m, edge);
		if (edge < HERD_EDGE_M) {
			a->edge_from = a->edge_from < 0 ? (int64_t)k : a->edge_from;
			m->edge_run_max_s = fmax(m->edge_run_max_s, (double)((int64_t)k - a->edge_from + 1) * dt);
		} else {
			a->edge_from = -1;
		}
		double speed = sqrt((double)v->vx[j] * v->vx[j] + (double)v->vy[j] * v->vy[j]);
		m->speed_ratio_max = fmax(m->speed_ratio_max, speed / a->max_speed);
		if (k > tail_from) {
			a->tail_speed += speed;
			double cross = (double)a->hx * v->hy[j] - (double)a->hy * v->hx[j];
			double dot = (double)a->hx * v->hx[j] + (double)a->hy * v->hy[j];
			a->tail_turn += fabs(atan2(cross, dot));
		}
		a->hx = v->hx[j];
		a->hy = v->hy[j];
	}
}

/// Runs herd with the given seed for `steps`, the flee slot on or off.
static herd_metrics run_herd(uint64_t seed, bool flee_on, uint32_t steps)
{
	herd_metrics m;
	memset(&m, 0, sizeof m);
	m.edge_min_m = INFINITY;
	m.tail_speed_min = INFINITY;
	m.tail_turn_min = INFINITY;
	throng_scene* s = make_scene("herd", 0, seed, true);
	throng_world* w = throng_scene_world(s);
	throng_world_def def = throng_world_get_def(w);
	throng_controller ctl;
	cr_assert_eq(throng_world_get_controller(w, 0, &ctl), THRONG_OK);
	uint32_t flee = slot_of(&ctl, THRONG_FLEE);
	uint32_t bounds = slot_of(&ctl, THRONG_BOUNDS);
	double R = (double)ctl.slots[flee].params.flee_radius;
	if (!flee_on) {
		ctl.slots[flee].enabled = false;
		cr_assert_eq(throng_world_set_controller(w, 0, &ctl), THRONG_OK);
	}
	uint32_t n = throng_world_agent_count(w);
	cr_assert_eq(n, HERD_AGENTS);
	m.agents = n;
	double dt = (double)def.dt;
	uint32_t react_steps = (uint32_t)(HERD_REACT_S / dt + 0.5);
	uint32_t tail_from = steps - (uint32_t)(HERD_TAIL_S / dt + 0.5);

	herd_agent ag[HERD_AGENTS];
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state st;
		cr_assert_eq(throng_world_get_agent(w, id, &st), THRONG_OK);
		ag[id] = (herd_agent){.max_speed = st.max_speed, .radius = st.radius, .closest = INFINITY,
		                      .stay_from = -1, .away_at = -1, .edge_from = -1, .hx = st.heading.x,
		                      .hy = st.heading.y};
	}
	float px[HERD_AGENTS], py[HERD_AGENTS], vx[HERD_AGENTS], vy[HERD_AGENTS];
	for (uint32_t k = 0;; ++k) {
		throng_view v = throng_world_view(w);
		cr_assert_eq(v.count, n);
		herd_check_state(&v, &def, k, tail_from, ag, &m);
		if (k == steps) {
			break;
		}
		for (uint32_t j = 0; j < n; ++j) {
			px[v.id[j]] = v.x[j], py[v.id[j]] = v.y[j], vx[v.id[j]] = v.vx[j], vy[v.id[j]] = v.vy[j];
		}
		// Step k: the scene moves the threat, then steps from state k.
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		throng_vec2 t;
		bool active = throng_scene_threat(s, &t);
		for (uint32_t id = 0; id < n; ++id) {
			herd_agent* a = &ag[id];
			throng_vec2 ff, fb;
			cr_assert_eq(throng_world_slot_force(w, id, flee, &ff), THRONG_OK);
			cr_assert_eq(throng_world_slot_force(w, id, bounds, &fb), THRONG_OK);
			double dx = (double)px[id] - t.x, dy = (double)py[id] - t.y;
			double d = sqrt(dx * dx + dy * dy);
			if (!active || d > R + 0.01) {
				m.flee_spurious += is_zero(ff) ? 0u : 1u;
			} else if (d < R - 0.01 && flee_on) {
				m.flee_checked++;
				m.flee_missing += is_zero(ff) ? 1u : 0u;
			}
			if (!active || d >= R) {
				a->stay_from = -1;
				continue;
			}
			a->closest = fmin(a->closest, d);
			double away = ((double)vx[id] * dx + (double)vy[id] * dy) / fmax(d, 1e-9);
			if (a->stay_from < 0) {
				a->stay_from = (int64_t)k;
				a->away_at = -1;
				a->away_entry = away;
				a->cornered = false;
			}
			int64_t into = (int64_t)k - a->stay_from;
			double turn = HERD_AWAY_SPEED * a->max_speed;
			if (a->away_at < 0 && (away >= turn || away - a->away_entry >= turn)) {
				a->away_at = (int64_t)k;
			}
			if (into <= (int64_t)react_steps && !is_zero(fb)) {
				a->cornered = true;
			}
			if (into == (int64_t)react_steps) { // the stay has lasted HERD_REACT_S
				if (a->cornered) {
					m.cornered_stays++;
				} else {
					m.free_stays++;
					double react = a->away_at < 0 ? INFINITY : (double)(a->away_at - a->stay_from) * dt;
					m.react_max_s = fmax(m.react_max_s, react);
				}
			}
		}
	}
	double tail_samples = (double)(steps - tail_from);
	for (uint32_t id = 0; id < n; ++id) {
		m.closest[id] = ag[id].closest;
		m.entered += ag[id].closest < R ? 1u : 0u;
		m.tail_speed_min = fmin(m.tail_speed_min, ag[id].tail_speed / tail_samples / ag[id].max_speed);
		m.tail_turn_min = fmin(m.tail_turn_min, ag[id].tail_turn);
	}
	m.clamped = throng_world_get_stats(w).clamped;
	throng_scene_destroy(s);
	return m;
}

Test(herd, acceptance_seed_001)
{
	const throng_scenario_info* info = throng_scenario_find("herd");
	uint32_t steps = info->default_steps; // 2000 steps = 33.3 s
	cr_assert_eq(steps, 2000u);
	double gain_sum = 0.0, react_max = 0.0, edge_run_max = 0.0, edge_min = INFINITY, ratio_max = 0.0;
	double tail_speed_min = INFINITY, tail_turn_min = INFINITY;
	uint32_t threatened = 0, contacts = 0, contacts_control = 0, free_stays = 0, cornered = 0;
	uint64_t flee_checked = 0;
	for (uint64_t seed = 1; seed <= HERD_SEEDS; ++seed) {
		herd_metrics m = run_herd(seed, true, steps);
		herd_metrics c = run_herd(seed, false, steps);
		unsigned long long sd = (unsigned long long)seed;
		// (a) scatter
		cr_assert_geq(m.entered, 1u, "seed %llu: the threat reached nobody", sd);
		cr_assert_eq(m.flee_missing, 0u, "seed %llu: inside R without a flee force", sd);
		cr_assert_eq(m.flee_spurious, 0u, "seed %llu: a flee force outside R or without a threat", sd);
		cr_assert_leq(m.react_max_s, HERD_REACT_S, "seed %llu: slow to turn away: %.3f s", sd, m.react_max_s);
		for (uint32_t i = 0; i < HERD_AGENTS; ++i) {
			if (c.closest[i] < 6.0) {
				threatened++;
				gain_sum += m.closest[i] - c.closest[i];
			}
			contacts += m.closest[i] < HERD_CONTACT_M ? 1u : 0u;
			contacts_control += c.closest[i] < HERD_CONTACT_M ? 1u : 0u;
		}
		// (b) resume wandering
		cr_assert_geq(m.tail_speed_min, HERD_TAIL_SPEED, "seed %llu: %.3f", sd, m.tail_speed_min);
		cr_assert_geq(m.tail_turn_min, HERD_TAIL_TURN_RAD, "seed %llu: %.3f rad", sd, m.tail_turn_min);
		// (c) inside the world
		cr_assert_eq(m.outside, 0u, "seed %llu", sd);
		cr_assert_eq(m.clamped, 0u, "seed %llu", sd);
		// (d) no edge sticking
		cr_assert_leq(m.edge_run_max_s, HERD_EDGE_MAX_S, "seed %llu: %.3f s near an edge", sd, m.edge_run_max_s);
		// (e) max speed
		cr_assert_leq(m.speed_ratio_max, 1.0 + 1e-6, "seed %llu: %.9f", sd, m.speed_ratio_max);

		react_max = fmax(react_max, m.react_max_s);
		edge_run_max = fmax(edge_run_max, m.edge_run_max_s);
		edge_min = fmin(edge_min, m.edge_min_m);
		ratio_max = fmax(ratio_max, m.speed_ratio_max);
		tail_speed_min = fmin(tail_speed_min, m.tail_speed_min);
		tail_turn_min = fmin(tail_turn_min, m.tail_turn_min);
		free_stays += m.free_stays;
		flee_checked += m.flee_checked;
		cornered += m.cornered_stays;
		cr_log_info("herd seed %llu: entered R %u, free stays %u, cornered %u, react max %.3f s, edge run max "
		            "%.3f s, nearest edge %.3f m, tail speed min %.2f, tail turn min %.2f rad, speed ratio max "
		            "%.7f, clamped %llu",
		            sd, m.entered, m.free_stays, m.cornered_stays, m.react_max_s, m.edge_run_max_s, m.edge_min_m,
		            m.tail_speed_min, m.tail_turn_min, m.speed_ratio_max, (unsigned long long)m.clamped);
	}
	cr_assert_gt(free_stays, 0u);
	cr_assert_gt(flee_checked, 0u);
	cr_assert_gt(threatened, 0u);
	double gain = gain_sum / threatened;
	cr_log_info("herd seeds 1..%d: %u threatened agents, closest approach +%.2f m with flee, contacts %u "
	            "(without flee %u), free stays %u (cornered %u), react max %.3f s, edge run max %.3f s, nearest "
	            "edge %.3f m, tail speed min %.2f, tail turn min %.2f rad, speed ratio max %.7f",
	            HERD_SEEDS, threatened, gain, contacts, contacts_control, free_stays, cornered, react_max,
	            edge_run_max, edge_min, tail_speed_min, tail_turn_min, ratio_max);
	cr_assert_geq(gain, HERD_SCATTER_GAIN_M, "flee moved the threatened agents only %.2f m further away", gain);
	cr_assert_lt(contacts, contacts_control, "flee did not reduce contacts: %u vs %u", contacts, contacts_control);
}

Test(herd, flee_force_only_while_threat_near)
{
	// With forces recorded: some agent's flee force is nonzero while the
	// threat is active, and every flee force is zero while it is inactive
	// (before t = 4 s and after it has left).
	throng_scene* s = make_scene("herd", 0, 1, true);
	throng_world* w = throng_scene_world(s);
	throng_controller ctl;
	cr_assert_eq(throng_world_get_controller(w, 0, &ctl), THRONG_OK);
	uint32_t flee = slot_of(&ctl, THRONG_FLEE);
	uint32_t n = throng_world_agent_count(w);
	uint32_t active_nonzero = 0, inactive_steps = 0;
	for (int k = 0; k < 2000; ++k) {
		cr_assert_eq(throng_scene_step(s), THRONG_OK, "%s", throng_last_error());
		bool active = throng_scene_threat(s, NULL);
		bool any = false;
		for (uint32_t id = 0; id < n; ++id) {
			throng_vec2 f;
			cr_assert_eq(throng_world_slot_force(w, id, flee, &f), THRONG_OK);
			any = any || !is_zero(f);
		}
		if (active) {
			active_nonzero += any ? 1u : 0u;
		} else {
			inactive_steps++;
			cr_assert(!any, "step %d: flee force with the threat inactive", k);
		}
	}
	cr_assert_gt(active_nonzero, 0u);
	cr_assert_gt(inactive_steps, 900u);
	throng_scene_destroy(s);
}
