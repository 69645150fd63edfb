// SPDX-License-Identifier: MIT
// Unit tests of the scalar reference behaviours (core/behaviors.h) against
// numbers worked by hand from SPEC.md. Each assertion carries its hand
// computation in the comment above it. Most set-ups use 3-4-5 triangles so
// the expected values are exact or have a short decimal form.
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "behaviors.h"
#include "fmath.h"
#include "support.h"
#include "throng/behavior.h"

// Hand values are given to 6-7 significant digits; forces are O(1).
#define TOL 1.0e-5f

#define EXPECT_ZERO(actual) THR_EXPECT_VEC((actual), 0.0f, 0.0f, 0.0f)

/// An agent at p moving at v; the stored heading is normalize(v), or +x at rest.
static thr_self agent(float px, float py, float vx, float vy, float max_speed, float max_force)
{
	thr_self s;
	s.p = v2(px, py);
	s.v = v2(vx, vy);
	s.h = (vx == 0.0f && vy == 0.0f) ? v2(1.0f, 0.0f) : v2_normalize(s.v);
	s.max_speed = max_speed;
	s.max_force = max_force;
	s.radius = 0.5f;
	s.id = 0;
	s.group = 0;
	return s;
}

static thr_neighbor neighbor(float px, float py, float vx, float vy, uint32_t id, uint32_t group)
{
	thr_neighbor n;
	n.p = v2(px, py);
	n.v = v2(vx, vy);
	n.id = id;
	n.group = group;
	n.r = 0.0f;
	return n;
}

// ---------------------------------------------------------------- seek

Test(seek, toward_target_moving)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5, desired=(3,4)/5*2=(1.2,1.6), minus v=(1,0) -> (0.2,1.6), |.|=1.612 < 4 -> unchanged
	THR_EXPECT_VEC(thr_seek(&s, v2(3, 4)), 0.2f, 1.6f, TOL);
}

Test(seek, toward_target_at_rest)
{
	thr_self s = agent(1, 1, 0, 0, 2, 4);
	// t-p=(3,4), d=5, desired=(0.6,0.8)*2=(1.2,1.6), v=0 -> (1.2,1.6), |.|=2 < 4
	THR_EXPECT_VEC(thr_seek(&s, v2(4, 5)), 1.2f, 1.6f, TOL);
}

Test(seek, limited_to_max_force)
{
	thr_self s = agent(0, 0, 1, 0, 2, 1);
	// (0.2,1.6) as above, |.|=1.6124515 > 1 -> (0.2,1.6)/1.6124515=(0.1240347,0.9922779)
	THR_EXPECT_VEC(thr_seek(&s, v2(3, 4)), 0.1240347f, 0.9922779f, TOL);
}

Test(seek, at_target_brakes)
{
	thr_self s = agent(2, 3, 1, 0, 2, 4);
	// t=p: normalize(0)=0 -> desired=0, force=limit(-v,4)=(-1,0)
	THR_EXPECT_VEC(thr_seek(&s, v2(2, 3)), -1.0f, 0.0f, TOL);
}

// ---------------------------------------------------------------- flee

Test(flee, always_mode)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// p-t=(-3,-4), d=5, desired=(-0.6,-0.8)*2=(-1.2,-1.6), minus v -> (-2.2,-1.6), |.|=2.72 < 4
	THR_EXPECT_VEC(thr_flee(&s, v2(3, 4), 1.0f, THRONG_FLEE_ALWAYS), -2.2f, -1.6f, TOL);
}

Test(flee, panic_inside_radius)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5 < R=10: as always -> (-2.2,-1.6)
	THR_EXPECT_VEC(thr_flee(&s, v2(3, 4), 10.0f, THRONG_FLEE_PANIC), -2.2f, -1.6f, TOL);
}

Test(flee, panic_outside_radius_is_zero)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5 > R=4: zero force (not braking), even though v=(1,0)
	EXPECT_ZERO(thr_flee(&s, v2(3, 4), 4.0f, THRONG_FLEE_PANIC));
}

Test(flee, safe_inside_radius_scaled)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5, R=10: desired=(-0.6,-0.8)*2*(1-5/10)=(-0.6,-0.8), minus v -> (-1.6,-0.8), |.|=1.79 < 4
	THR_EXPECT_VEC(thr_flee(&s, v2(3, 4), 10.0f, THRONG_FLEE_SAFE), -1.6f, -0.8f, TOL);
}

Test(flee, safe_outside_radius_brakes)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5 > R=4: desired=0 -> force=limit(-v,4)=(-1,0)
	THR_EXPECT_VEC(thr_flee(&s, v2(3, 4), 4.0f, THRONG_FLEE_SAFE), -1.0f, 0.0f, TOL);
	thr_self t = agent(0, 0, 1, 0, 2, 0.5f);
	// same with max_force 0.5: limit((-1,0),0.5)=(-0.5,0)
	THR_EXPECT_VEC(thr_flee(&t, v2(3, 4), 4.0f, THRONG_FLEE_SAFE), -0.5f, 0.0f, TOL);
}

// ---------------------------------------------------------------- arrive

Test(arrive, outside_slow_radius_is_seek)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5 > slow=2: speed=2*min(1,2.5)=2, desired=(1.2,1.6), minus v -> (0.2,1.6)
	THR_EXPECT_VEC(thr_arrive(&s, v2(3, 4), 2.0f), 0.2f, 1.6f, TOL);
}

Test(arrive, inside_slow_radius)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=5, slow=10: speed=2*0.5=1, desired=(0.6,0.8), minus v=(1,0) -> (-0.4,0.8)
	THR_EXPECT_VEC(thr_arrive(&s, v2(3, 4), 10.0f), -0.4f, 0.8f, TOL);
}

Test(arrive, at_target_brakes)
{
	thr_self s = agent(3, 4, 1, 0, 2, 4);
	// d=0: speed=0, desired=0 -> force=-v=(-1,0)
	THR_EXPECT_VEC(thr_arrive(&s, v2(3, 4), 2.0f), -1.0f, 0.0f, TOL);
	thr_self r = agent(3, 4, 0, 0, 2, 4);
	// at rest on the target: nothing to do -> exactly 0
	EXPECT_ZERO(thr_arrive(&r, v2(3, 4), 2.0f));
}

// ---------------------------------------------------------------- pursuit

Test(pursuit, prediction_capped_by_max_prediction)
{
	thr_self s = agent(0, 0, 0, 0, 2, 10);
	// d=4, d/max_speed=2, T=min(2,0.5)=0.5, q=(4,0)+(0,6)*0.5=(4,3), desired=(0.8,0.6)*2=(1.6,1.2)
	// (uncapped T=2 would give q=(4,12), a different direction)
	THR_EXPECT_VEC(thr_pursuit(&s, v2(4, 0), v2(0, 6), 0.5f), 1.6f, 1.2f, TOL);
}

Test(pursuit, prediction_uncapped)
{
	thr_self s = agent(0, 0, 0, 0, 2, 10);
	// d=4, T=min(4/2,5)=2, q=(4,0)+(0,1.5)*2=(4,3), desired=(1.6,1.2), v=0 -> (1.6,1.2)
	THR_EXPECT_VEC(thr_pursuit(&s, v2(4, 0), v2(0, 1.5f), 5.0f), 1.6f, 1.2f, TOL);
}

Test(pursuit, zero_prediction_is_seek)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// T_max=0 -> T=0, q=tp=(3,4): seek -> (0.2,1.6)
	THR_EXPECT_VEC(thr_pursuit(&s, v2(3, 4), v2(5, 5), 0.0f), 0.2f, 1.6f, TOL);
}

// ---------------------------------------------------------------- evade

Test(evade, outside_radius_brakes)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	// d=3 >= R=2: desired=0 -> force=limit(-v,4)=(-1,0)
	THR_EXPECT_VEC(thr_evade(&s, v2(3, 0), v2(0, 4), 2.0f, 1.0f), -1.0f, 0.0f, TOL);
}

Test(evade, inside_radius_capped_prediction)
{
	thr_self s = agent(0, 0, 0, 0, 2, 10);
	// d=3 < R=6, T=min(3/2,1)=1, q=(3,0)+(0,4)*1=(3,4), p-q=(-3,-4),
	// desired=(-0.6,-0.8)*2*(1-3/6)=(-0.6,-0.8), v=0 -> (-0.6,-0.8)
	THR_EXPECT_VEC(thr_evade(&s, v2(3, 0), v2(0, 4), 6.0f, 1.0f), -0.6f, -0.8f, TOL);
}

Test(evade, inside_radius_uncapped_prediction)
{
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	// d=3 < R=6, T=min(1.5,10)=1.5, q=(3,0)+(0,2)*1.5=(3,3), p-q=(-3,-3),
	// desired=(-0.7071068,-0.7071068)*2*0.5=(-0.7071068,-0.7071068), minus v -> (-1.7071068,-0.7071068)
	THR_EXPECT_VEC(thr_evade(&s, v2(3, 0), v2(0, 2), 6.0f, 10.0f), -1.7071068f, -0.7071068f, TOL);
}

// ---------------------------------------------------------------- wander (circle)

static throng_behavior_params wander_params(throng_wander_frame frame, float dist, float radius, float jitter)
{
	throng_behavior_params prm = throng_behavior_default_def();
	prm.frame = frame;
	prm.circle_distance = dist;
	prm.circle_radius = radius;
	prm.jitter = jitter;
	return prm;
}

Test(wander, world_frame_moving)
{
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	throng_behavior_params prm = wander_params(THRONG_WANDER_WORLD, 2, 1, 1);
	float angle = THR_HALF_PI;
	// draw 0: angle stays pi/2. c=(0,0)+(1,0)*2=(2,0), theta=pi/2 (world), target=(2,0)+(0,1)=(2,1),
	// desired=(2,1)/sqrt5*2=(1.7888544,0.8944272), minus v=(1,0) -> (0.7888544,0.8944272), |.|=1.19 < 10
	THR_EXPECT_VEC(thr_wander(&s, &angle, 0.0f, &prm, 0.1f), 0.7888544f, 0.8944272f, TOL);
	cr_expect_float_eq(angle, THR_HALF_PI, 1e-7f);
}

Test(wander, local_frame_moving)
{
	thr_self s = agent(0, 0, 0, 1, 2, 10);
	throng_behavior_params prm = wander_params(THRONG_WANDER_LOCAL, 2, 1, 1);
	float angle = THR_HALF_PI;
	// h=(0,1): c=(0,2), theta=atan2(1,0)+pi/2=pi, target=(0,2)+(-1,0)=(-1,2),
	// desired=(-1,2)/sqrt5*2=(-0.8944272,1.7888544), minus v=(0,1) -> (-0.8944272,0.7888544)
	// (the world frame would give theta=pi/2, target (0,3), force (0,1))
	THR_EXPECT_VEC(thr_wander(&s, &angle, 0.0f, &prm, 0.1f), -0.8944272f, 0.7888544f, TOL);
}

Test(wander, local_frame_at_rest_uses_stored_heading)
{
	thr_self s = agent(0, 0, 0, 0, 2, 10);
	s.h = v2(0, 1);
	throng_behavior_params prm = wander_params(THRONG_WANDER_LOCAL, 2, 1, 1);
	float angle = THR_HALF_PI;
	// v=0, stored h=(0,1): c=(0,2), theta=pi/2+pi/2=pi, target=(-1,2),
	// desired=(-0.8944272,1.7888544), v=0 -> same
	THR_EXPECT_VEC(thr_wander(&s, &angle, 0.0f, &prm, 0.1f), -0.8944272f, 1.7888544f, TOL);
}

Test(wander, world_frame_at_rest_centres_on_p)
{
	thr_self s = agent(1, 2, 0, 0, 2, 10); // stored heading (1,0)
	throng_behavior_params prm = wander_params(THRONG_WANDER_WORLD, 5, 1, 1);
	float angle = THR_HALF_PI;
	// v=0 in world frame: c=p=(1,2) (not p+h*5=(6,2)), theta=pi/2, target=(1,3),
	// desired=(0,1)*2=(0,2), v=0 -> (0,2)
	// (using the stored heading would aim at (6,3): (1.9611614,0.3922323))
	THR_EXPECT_VEC(thr_wander(&s, &angle, 0.0f, &prm, 0.1f), 0.0f, 2.0f, TOL);
}

Test(wander, draw_jitter_dt_advances_angle)
{
	thr_self s = agent(0, 0, 0, 0, 2, 10);
	throng_behavior_params prm = wander_params(THRONG_WANDER_WORLD, 3, 1, 3);
	float angle = 0.25f;
	vec2 f = thr_wander(&s, &angle, 0.5f, &prm, 0.5f);
	// angle = 0.25 + 0.5*3*0.5 = 1.0
	cr_expect_float_eq(angle, 1.0f, 1e-6f);
	// c=p=(0,0), target=(cos1,sin1), desired=(cos1,sin1)*2=(1.0806046,1.6829420), v=0 -> same
	THR_EXPECT_VEC(f, 1.0806046f, 1.6829420f, TOL);
	// a negative draw goes back: 1.0 + (-1)*3*0.5 = -0.5
	thr_wander(&s, &angle, -1.0f, &prm, 0.5f);
	cr_expect_float_eq(angle, -0.5f, 1e-6f);
}

Test(wander, angle_wrapped_to_pi)
{
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	throng_behavior_params prm = wander_params(THRONG_WANDER_WORLD, 2, 1, 1);
	float angle = 3.0f;
	thr_wander(&s, &angle, 1.0f, &prm, 0.5f);
	// 3 + 1*1*0.5 = 3.5 > pi -> 3.5 - 2pi = -2.7831853
	cr_expect_float_eq(angle, -2.7831853f, 2e-6f);
	angle = -3.0f;
	thr_wander(&s, &angle, -1.0f, &prm, 0.5f);
	// -3.5 + 2pi = 2.7831853
	cr_expect_float_eq(angle, 2.7831853f, 2e-6f);
}

// ---------------------------------------------------------------- wander (noise)

Test(wander_noise, advances_angle_and_steers)
{
	thr_self s = agent(0, 0, 1, 0, 2, 3);
	throng_behavior_params prm = throng_behavior_default_def();
	prm.noise_amplitude = THR_PI;
	float angle = 0.0f;
	vec2 f = thr_wander_noise(&s, &angle, 0.5f, &prm, 1.0f);
	// angle = 0 + 0.5*pi*1 = pi/2
	cr_expect_float_eq(angle, THR_HALF_PI, 1e-6f);
	// desired=(cos,sin)(pi/2)*2=(0,2), minus v=(1,0) -> (-1,2), |.|=2.236 < 3
	THR_EXPECT_VEC(f, -1.0f, 2.0f, TOL);
}

Test(wander_noise, limited_to_max_force)
{
	thr_self s = agent(0, 0, 1, 0, 2, 1);
	throng_behavior_params prm = throng_behavior_default_def();
	prm.noise_amplitude = THR_PI;
	float angle = 0.0f;
	// (-1,2) as above, |.|=2.2360680 > 1 -> (-0.4472136,0.8944272)
	THR_EXPECT_VEC(thr_wander_noise(&s, &angle, 0.5f, &prm, 1.0f), -0.4472136f, 0.8944272f, TOL);
}

Test(wander_noise, angle_wrapped)
{
	thr_self s = agent(0, 0, 1, 0, 2, 3);
	throng_behavior_params prm = throng_behavior_default_def();
	prm.noise_amplitude = 1.0f;
	float angle = 3.0f;
	thr_wander_noise(&s, &angle, 1.0f, &prm, 0.5f);
	// 3 + 1*1*0.5 = 3.5 -> 3.5 - 2pi = -2.7831853
	cr_expect_float_eq(angle, -2.7831853f, 2e-6f);
}

// ---------------------------------------------------------------- obstacle avoidance

// Common set-up: agent at the origin moving +x at 2 (h=(1,0), side=perp(h)=(0,1)),
// max_speed 2, radius 0.5, look_ahead 10.
static thr_self obstacle_agent(void) { return agent(0, 0, 2, 0, 2, 4); }

Test(obstacle, zero_velocity_is_zero)
{
	thr_self s = agent(0, 0, 0, 0, 2, 4);
	thr_obstacle o[1] = {{v2(1, 0), 1}};
	uint32_t idx[1] = {0};
	// length(v)=0 < eps -> 0, even with an obstacle right in front
	EXPECT_ZERO(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f));
}

Test(obstacle, dead_ahead_steers_left)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[1] = {{v2(4, 0), 1}};
	uint32_t idx[1] = {0};
	// along=4, lateral=0 < 1+0.5 hit; dot(side,c-p)=0 -> sign=+1; urgency=1-4/10=0.6;
	// force=(0,1)*1*2*0.6=(0,1.2)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f), 0.0f, 1.2f, TOL);
}

Test(obstacle, obstacle_on_left_pushes_right)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[1] = {{v2(4, 0.5f), 1}};
	uint32_t idx[1] = {0};
	// along=4, lateral=0.5 < 1.5 hit; dot((0,1),(4,0.5))=0.5>0 -> sign=-1; urgency 0.6;
	// force=(0,1)*(-1)*2*0.6=(0,-1.2)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f), 0.0f, -1.2f, TOL);
}

Test(obstacle, obstacle_on_right_pushes_left)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[1] = {{v2(2, -1), 1}};
	uint32_t idx[1] = {0};
	// along=2, lateral=1 < 1.5 hit; dot((0,1),(2,-1))=-1 -> sign=+1; urgency=1-0.2=0.8;
	// force=(0,1)*2*0.8=(0,1.6)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f), 0.0f, 1.6f, TOL);
}

Test(obstacle, behind_or_beyond_look_ahead_ignored)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[2] = {{v2(-2, 0), 1}, {v2(11, 0), 1}};
	uint32_t idx[2] = {0, 1};
	// along=-2 < 0 skip; along=11 > 10 skip -> 0
	EXPECT_ZERO(thr_obstacle_avoid(&s, o, 2, idx, 2, 10.0f));
}

Test(obstacle, nearest_hit_wins)
{
	thr_self s = obstacle_agent();
	// listed far first: the near one must still win
	thr_obstacle o[2] = {{v2(6, 0.2f), 1}, {v2(3, -0.3f), 1}};
	uint32_t idx[2] = {0, 1};
	// hits at along=6 and along=3; take along=3: dot(side,(3,-0.3))=-0.3 -> sign=+1,
	// urgency=1-0.3=0.7, force=(0,1)*2*0.7=(0,1.4)  (the far one would give (0,-0.8))
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 2, idx, 2, 10.0f), 0.0f, 1.4f, TOL);
}

Test(obstacle, tie_goes_to_lower_index)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[2] = {{v2(5, 0.4f), 1}, {v2(5, -0.4f), 1}};
	uint32_t idx[2] = {0, 1};
	// both along=5; obstacle 0: dot=0.4 -> sign=-1, urgency 0.5 -> (0,-1)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 2, idx, 2, 10.0f), 0.0f, -1.0f, TOL);
	uint32_t rev[2] = {1, 0};
	// candidates listed in the other order: still obstacle 0 (lower index) -> (0,-1)
	// (obstacle 1 would give dot=-0.4 -> sign=+1 -> (0,1))
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 2, rev, 2, 10.0f), 0.0f, -1.0f, TOL);
}

Test(obstacle, idx_selects_candidates)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[2] = {{v2(3, 0.5f), 1}, {v2(5, -0.5f), 1}};
	uint32_t idx[1] = {1};
	// only obstacle 1 considered: along=5, dot=-0.5 -> sign=+1, urgency 0.5 -> (0,1)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 2, idx, 1, 10.0f), 0.0f, 1.0f, TOL);
}

Test(obstacle, lateral_exactly_at_radius_sum_is_not_a_hit)
{
	thr_self s = obstacle_agent();
	thr_obstacle o[1] = {{v2(4, 1.5f), 1}};
	uint32_t idx[1] = {0};
	// lateral=|(4,1.5)-(4,0)|=1.5, r_o+radius=1+0.5=1.5, 1.5 < 1.5 false -> 0
	EXPECT_ZERO(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f));
	o[0].c = v2(4, 1.49f);
	// lateral=1.49 < 1.5 hit; dot>0 -> sign=-1; urgency 0.6 -> (0,-1.2)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f), 0.0f, -1.2f, TOL);
}

Test(obstacle, diagonal_heading)
{
	thr_self s = agent(0, 0, 3, 4, 5, 10);
	thr_obstacle o[1] = {{v2(2.6f, 4.3f), 1}};
	uint32_t idx[1] = {0};
	// h=(0.6,0.8), side=perp(h)=(-0.8,0.6); c=(3,4)+0.5*side=(2.6,4.3):
	// along=0.6*2.6+0.8*4.3=5, lateral=0.5 < 1.5 hit, dot(side,c)=-0.8*2.6+0.6*4.3=-2.08+2.58=0.5 > 0 -> sign=-1,
	// urgency=1-5/10=0.5, force=(-0.8,0.6)*(-1)*5*0.5=(2,-1.5)
	THR_EXPECT_VEC(thr_obstacle_avoid(&s, o, 1, idx, 1, 10.0f), 2.0f, -1.5f, TOL);
}

// ---------------------------------------------------------------- unaligned collision avoidance

static throng_behavior_params unaligned_params(float avoid_radius, float t_max)
{
	throng_behavior_params prm = throng_behavior_default_def();
	prm.avoid_radius = avoid_radius;
	prm.max_prediction = t_max;
	prm.neighbor_radius = 20.0f;
	prm.same_group_only = false;
	return prm;
}

Test(unaligned, dead_head_on_both_go_left)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	a.id = 0;
	thr_neighbor na[1] = {neighbor(10, 0, -1, 0, 1, 0)};
	// rp=(10,0), rv=(-2,0), t=-(-20)/4=5 <= 10, f=(10,0)+(-2,0)*5=(0,0), m=0 < eps,
	// u=1, push -= perp((-1,0))*2*1 = -(0,-1)*2 -> (0,2); a moves +x, its left is +y
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, na, 1, &prm), 0.0f, 2.0f, TOL);

	thr_self b = agent(10, 0, -1, 0, 2, 3);
	b.id = 1;
	thr_neighbor nb[1] = {neighbor(0, 0, 1, 0, 0, 0)};
	// rp=(-10,0), rv=(2,0), t=5, f=0, push -= perp((1,0))*2 = -(0,1)*2 -> (0,-2);
	// b moves -x, its left is perp((-1,0))=(0,-1)
	THR_EXPECT_VEC(thr_unaligned_avoid(&b, nb, 1, &prm), 0.0f, -2.0f, TOL);
}

Test(unaligned, near_miss_pushes_away)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	thr_neighbor nb[1] = {neighbor(10, 0.5f, -1, 0, 1, 0)};
	// rp=(10,0.5), rv=(-2,0), t=20/4=5, f=(0,0.5), m=0.5 < 1, u=0.5,
	// push -= (0,1)*2*0.5 -> (0,-1)
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, nb, 1, &prm), 0.0f, -1.0f, TOL);
}

Test(unaligned, separating_is_zero)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	thr_neighbor nb[1] = {neighbor(-5, 0, -1, 0, 1, 0)};
	// rp=(-5,0), rv=(-2,0), t=-(10)/4=-2.5 < 0 -> skip -> 0
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 1, &prm));
}

Test(unaligned, beyond_max_prediction_is_zero)
{
	throng_behavior_params prm = unaligned_params(1, 4);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	thr_neighbor nb[1] = {neighbor(10, 0, -1, 0, 1, 0)};
	// head-on with t=5 > T_max=4 -> skip -> 0
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 1, &prm));
}

Test(unaligned, miss_distance_beyond_avoid_radius_is_zero)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	thr_neighbor nb[1] = {neighbor(10, 1.5f, -1, 0, 1, 0)};
	// t=5, f=(0,1.5), m=1.5 > 1 -> skip -> 0
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 1, &prm));
}

Test(unaligned, same_velocity_skipped)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	// neighbour 0: rv=0, dot(rv,rv)=0 < eps -> skipped (no NaN);
	// neighbour 1: the near miss above -> (0,-1). Total (0,-1).
	thr_neighbor nb[2] = {neighbor(2, 0, 1, 0, 1, 0), neighbor(10, 0.5f, -1, 0, 2, 0)};
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, nb, 2, &prm), 0.0f, -1.0f, TOL);
	// the same-velocity neighbour alone -> 0
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 1, &prm));
}

Test(unaligned, self_excluded)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 3);
	a.id = 7;
	thr_neighbor nb[1] = {neighbor(10, 0, -1, 0, 7, 0)};
	// same id as the agent -> excluded -> 0
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 1, &prm));
}

Test(unaligned, limited_to_max_force)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 1);
	thr_neighbor nb[1] = {neighbor(10, 0, -1, 0, 1, 0)};
	// head-on push (0,2), |.|=2 > max_force 1 -> (0,1)
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, nb, 1, &prm), 0.0f, 1.0f, TOL);
}

Test(unaligned, contributions_sum)
{
	throng_behavior_params prm = unaligned_params(1, 10);
	thr_self a = agent(0, 0, 1, 0, 2, 10);
	thr_neighbor nb[2] = {neighbor(10, 0.5f, -1, 0, 1, 0), neighbor(10, -0.75f, -1, 0, 2, 0)};
	// first: f=(0,0.5), u=0.5 -> -(0,1)*2*0.5=(0,-1);
	// second: f=(0,-0.75), m=0.75, u=0.25 -> -(0,-1)*2*0.25=(0,0.5); sum (0,-0.5)
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, nb, 2, &prm), 0.0f, -0.5f, TOL);
}

// ---------------------------------------------------------------- separation

static throng_behavior_params flock_params(float radius, bool same_group_only)
{
	throng_behavior_params prm = throng_behavior_default_def();
	prm.neighbor_radius = radius;
	prm.same_group_only = same_group_only;
	return prm;
}

Test(separation, weighted_by_distance)
{
	throng_behavior_params prm = flock_params(4, false);
	thr_self s = agent(0, 0, 0, 0, 1, 10);
	thr_neighbor nb[2] = {neighbor(1, 0, 0, 0, 1, 0), neighbor(0, -2, 0, 0, 2, 0)};
	// j=1: d=1, (p-pj)/d=(-1,0), *1*(1-1/4)=(-0.75,0)
	// j=2: d=2, (0,2)/2=(0,1), *1*(1-2/4)=(0,0.5); sum (-0.75,0.5)
	THR_EXPECT_VEC(thr_separation(&s, nb, 2, &prm), -0.75f, 0.5f, TOL);
}

Test(separation, beyond_radius_and_self_ignored)
{
	throng_behavior_params prm = flock_params(4, false);
	thr_self s = agent(0, 0, 0, 0, 1, 10);
	s.id = 9;
	thr_neighbor nb[4] = {
		neighbor(5, 0, 0, 0, 1, 0),    // d=5 > 4: ignored
		neighbor(4, 0, 0, 0, 2, 0),    // d=4, not < 4: ignored
		neighbor(0.5f, 0, 0, 0, 9, 0), // self by id: ignored
		neighbor(0, 3, 0, 0, 3, 0),    // d=3: (0,-1)*1*(1-3/4)=(0,-0.25)
	};
	THR_EXPECT_VEC(thr_separation(&s, nb, 4, &prm), 0.0f, -0.25f, TOL);
	// nothing counted -> 0
	EXPECT_ZERO(thr_separation(&s, nb, 3, &prm));
}

Test(separation, same_group_only)
{
	thr_self s = agent(0, 0, 0, 0, 1, 10);
	s.group = 1;
	thr_neighbor nb[2] = {neighbor(1, 0, 0, 0, 1, 2), neighbor(0, -2, 0, 0, 2, 1)};
	throng_behavior_params only = flock_params(4, true);
	// only the group-1 neighbour at (0,-2) counts -> (0,0.5)
	THR_EXPECT_VEC(thr_separation(&s, nb, 2, &only), 0.0f, 0.5f, TOL);
	throng_behavior_params all = flock_params(4, false);
	// both -> (-0.75,0.5)
	THR_EXPECT_VEC(thr_separation(&s, nb, 2, &all), -0.75f, 0.5f, TOL);
}

Test(separation, coincident_split_by_id)
{
	throng_behavior_params prm = flock_params(4, false);
	thr_self lo = agent(2, 2, 0, 0, 1, 10);
	lo.id = 3;
	thr_neighbor hi_n[1] = {neighbor(2, 2, 0, 0, 5, 0)};
	// d=0: lower id (3 < 5) goes -x with weight max_speed*(1-0/4)=1 -> (-1,0)
	THR_EXPECT_VEC(thr_separation(&lo, hi_n, 1, &prm), -1.0f, 0.0f, TOL);
	thr_self hi = agent(2, 2, 0, 0, 1, 10);
	hi.id = 5;
	thr_neighbor lo_n[1] = {neighbor(2, 2, 0, 0, 3, 0)};
	// higher id goes +x -> (1,0)
	THR_EXPECT_VEC(thr_separation(&hi, lo_n, 1, &prm), 1.0f, 0.0f, TOL);
}

Test(separation, limited_to_max_force)
{
	throng_behavior_params prm = flock_params(4, false);
	thr_self s = agent(0, 0, 0, 0, 2, 1);
	s.id = 1;
	thr_neighbor nb[2] = {neighbor(0, 0, 0, 0, 2, 0), neighbor(0, 1, 0, 0, 3, 0)};
	// coincident id 2: (-1,0)*2*(1-0)=(-2,0); (0,1): d=1, (0,-1)*2*0.75=(0,-1.5);
	// sum (-2,-1.5), |.|=2.5 > max_force 1 (the choice in behaviors.c) -> (-0.8,-0.6)
	THR_EXPECT_VEC(thr_separation(&s, nb, 2, &prm), -0.8f, -0.6f, TOL);
}

// ---------------------------------------------------------------- alignment

Test(alignment, mean_velocity_minus_v)
{
	throng_behavior_params prm = flock_params(3, false);
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	thr_neighbor nb[2] = {neighbor(1, 0, 0, 2, 1, 0), neighbor(0, 1, 2, 2, 2, 0)};
	// mean v=((0,2)+(2,2))/2=(1,2), minus v=(1,0) -> (0,2), |.|=2 < 10
	THR_EXPECT_VEC(thr_alignment(&s, nb, 2, &prm), 0.0f, 2.0f, TOL);
}

Test(alignment, limited_to_max_force)
{
	throng_behavior_params prm = flock_params(3, false);
	thr_self s = agent(0, 0, 1, 0, 2, 1);
	thr_neighbor nb[2] = {neighbor(1, 0, 0, 2, 1, 0), neighbor(0, 1, 2, 2, 2, 0)};
	// (0,2) limited to 1 -> (0,1)
	THR_EXPECT_VEC(thr_alignment(&s, nb, 2, &prm), 0.0f, 1.0f, TOL);
}

Test(alignment, filters)
{
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	s.id = 4;
	s.group = 1;
	thr_neighbor nb[4] = {
		neighbor(1, 0, 0, 2, 1, 1),      // counted
		neighbor(0, 1, 2, 2, 2, 1),      // counted
		neighbor(5, 0, 100, 0, 3, 1),    // d=5 > 3: ignored
		neighbor(0.5f, 0, -50, 0, 4, 1), // self: ignored
	};
	throng_behavior_params prm = flock_params(3, true);
	// mean of the first two (1,2) - (1,0) -> (0,2)
	THR_EXPECT_VEC(thr_alignment(&s, nb, 4, &prm), 0.0f, 2.0f, TOL);
	nb[1].group = 2;
	// group 2 dropped: mean=(0,2), minus v -> (-1,2), |.|=2.236 < 10
	THR_EXPECT_VEC(thr_alignment(&s, nb, 4, &prm), -1.0f, 2.0f, TOL);
	throng_behavior_params any = flock_params(3, false);
	// group filter off: (0,2) again
	THR_EXPECT_VEC(thr_alignment(&s, nb, 4, &any), 0.0f, 2.0f, TOL);
	// no neighbour counted (only the far one and self) -> 0
	EXPECT_ZERO(thr_alignment(&s, nb + 2, 2, &prm));
}

// ---------------------------------------------------------------- cohesion

Test(cohesion, seeks_mean_position)
{
	throng_behavior_params prm = flock_params(10, false);
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	thr_neighbor nb[2] = {neighbor(2, 4, 0, 0, 1, 0), neighbor(4, 4, 0, 0, 2, 0)};
	// mean p=(3,4), d=5, desired=(0.6,0.8)*2=(1.2,1.6), minus v -> (0.2,1.6)
	THR_EXPECT_VEC(thr_cohesion(&s, nb, 2, &prm), 0.2f, 1.6f, TOL);
}

Test(cohesion, filters)
{
	thr_self s = agent(0, 0, 1, 0, 2, 10);
	s.id = 4;
	s.group = 1;
	thr_neighbor nb[4] = {
		neighbor(2, 4, 0, 0, 1, 1),
		neighbor(4, 4, 0, 0, 2, 1),
		neighbor(-30, 0, 0, 0, 3, 1),  // d=30 > 10: ignored
		neighbor(-1, -1, 0, 0, 4, 1),  // self: ignored
	};
	throng_behavior_params prm = flock_params(10, true);
	// mean of the first two (3,4) -> (0.2,1.6)
	THR_EXPECT_VEC(thr_cohesion(&s, nb, 4, &prm), 0.2f, 1.6f, TOL);
	nb[0].group = 2;
	// only (4,4): d=5.656854, desired=(0.7071068,0.7071068)*2=(1.4142136,1.4142136),
	// minus v -> (0.4142136,1.4142136)
	THR_EXPECT_VEC(thr_cohesion(&s, nb, 4, &prm), 0.4142136f, 1.4142136f, TOL);
	// no neighbour counted -> 0
	EXPECT_ZERO(thr_cohesion(&s, nb + 2, 2, &prm));
}

// ---------------------------------------------------------------- wall avoidance

// Agent at the origin moving +x; look_ahead 4, side feelers at +-30 degrees.
Test(wall, straight_ahead_pushes_back_along_normal)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	float angle = THR_PI / 6.0f;
	// wall x=2 across the path: only the centre feeler (tip (4,0)) crosses it
	// (side tips at (1.732,+-1)); the normal facing the agent is (-1,0)
	thr_wall w[1] = {{v2(2, -5), v2(2, 5)}};
	vec2 f = thr_wall_avoid(&s, w, idx, 1, 4.0f, angle);
	cr_expect_lt(f.x, -1e-3f, "wall ahead must push back, got (%g,%g)", (double)f.x, (double)f.y);
	cr_expect_float_eq(f.y, 0.0f, 1e-6f);
	cr_expect(v2_isfinite(f));
	// the wall's orientation (a,b swapped) does not change the facing normal
	thr_wall r[1] = {{v2(2, 5), v2(2, -5)}};
	vec2 g = thr_wall_avoid(&s, r, idx, 1, 4.0f, angle);
	cr_expect_float_eq(g.x, f.x, 1e-6f);
	cr_expect_float_eq(g.y, f.y, 1e-6f);
}

Test(wall, close_wall_all_feelers_symmetric)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	// wall x=1: all three feelers cross it, symmetric about the x axis ->
	// pushed straight back along (-1,0), no sideways part
	thr_wall w[1] = {{v2(1, -5), v2(1, 5)}};
	vec2 f = thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f);
	cr_expect_lt(f.x, -1e-3f);
	cr_expect_float_eq(f.y, 0.0f, 1e-6f);
	// deeper penetration (wall at x=1 rather than x=2) must not push less
	thr_wall far[1] = {{v2(2, -5), v2(2, 5)}};
	vec2 g = thr_wall_avoid(&s, far, idx, 1, 4.0f, THR_PI / 6.0f);
	cr_expect_geq(-f.x, -g.x);
}

Test(wall, oblique_wall_pushes_toward_agent_side)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	// wall on the line x+y=3 from (5,-2) to (-1,4); facing normal (-1,-1)/sqrt2
	thr_wall w[1] = {{v2(5, -2), v2(-1, 4)}};
	vec2 f = thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f);
	// dot(f, facing normal) > 0
	cr_expect_gt(-f.x - f.y, 1e-3f, "got (%g,%g)", (double)f.x, (double)f.y);
}

// The force chosen in core/behaviors.c (after Buckland's whiskers): each
// feeler's nearest crossed wall pushes along its facing normal n with
// closing*(1 - hit/len), closing = max(0, -dot(v, n)) the speed towards the
// wall; the three pushes add up. The agent moves at 1 m/s (max speed 2).
Test(wall, hand_numbers_centre_feeler)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	thr_wall w[1] = {{v2(2, -5), v2(2, 5)}};
	// centre feeler (len 4) hits x=2 at 2, closing 1: (-1,0)*1*(1-2/4)=(-0.5,0); side tips (1.732,+-1) miss
	THR_EXPECT_VEC(thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f), -0.5f, 0.0f, TOL);
	// at full speed (2 m/s) straight at it: max_speed*urgency, (-1,0)
	thr_self fast = agent(0, 0, 2, 0, 2, 4);
	THR_EXPECT_VEC(thr_wall_avoid(&fast, w, idx, 1, 4.0f, THR_PI / 6.0f), -1.0f, 0.0f, TOL);
}

Test(wall, hand_numbers_three_feelers)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	thr_wall w[1] = {{v2(1, -5), v2(1, 5)}};
	// centre: hit at 1 -> 1*(1-1/4)=0.75; each side feeler (len 2, 30 deg) hits x=1 at
	// 1/cos30=1.1547005 -> 1*(1-1.1547005/2)=0.4226497; total (-0.75-2*0.4226497,0)=(-1.5952995,0)
	THR_EXPECT_VEC(thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f), -1.5952995f, 0.0f, TOL);
}

Test(wall, hand_numbers_oblique)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	thr_wall w[1] = {{v2(5, -2), v2(-1, 4)}};
	// x+y=3: centre feeler hits (3,0) at 3 -> urgency 1-3/4=0.25; side tips (1.732,+-1) miss;
	// facing normal n=(-1,-1)/sqrt2, closing -dot((1,0),n)=0.7071068 ->
	// n*0.7071068*0.25=(-0.125,-0.125)
	THR_EXPECT_VEC(thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f), -0.125f, -0.125f, TOL);
}

Test(wall, nearest_wall_per_feeler)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[2] = {0, 1};
	thr_wall w[2] = {{v2(3, -5), v2(3, 5)}, {v2(2, -5), v2(2, 5)}};
	// the centre feeler crosses x=3 (at 3) and x=2 (at 2); the nearer one alone pushes:
	// (-1,0)*1*(1-2/4)=(-0.5,0)  (both would give (-0.75,0))
	THR_EXPECT_VEC(thr_wall_avoid(&s, w, idx, 2, 4.0f, THR_PI / 6.0f), -0.5f, 0.0f, TOL);
}

Test(wall, the_push_fades_with_the_speed_towards_the_wall)
{
	// A walker pressed against a wall barely moves: 1 cm/s towards x=0.4
	// with the feeler hitting at 0.4 of 4 pushes (-1,0)*0.01*0.9; the old
	// rule pushed max_speed*0.9 = 1.8 m/s^2, every step, and the walker
	// shuddered. Moving along a wall: no push at all.
	uint32_t idx[1] = {0};
	thr_wall w[1] = {{v2(0.4f, -5), v2(0.4f, 5)}};
	thr_self pressed = agent(0, 0, 0.01f, 0, 2, 4);
	vec2 f = thr_wall_avoid(&pressed, w, idx, 1, 4.0f, THR_PI / 6.0f);
	cr_expect_float_eq(f.x, -0.01f * 0.9f - 2.0f * 0.01f * (1.0f - 0.4f / cosf(THR_PI / 6.0f) / 2.0f), 1e-6f,
	                   "got %g", (double)f.x);
	cr_expect_lt(-f.x, 0.03f);
	thr_wall along[1] = {{v2(-5, 0.5f), v2(5, 0.5f)}};
	thr_self sliding = agent(0, 0, 1, 0, 2, 4); // parallel to y = 0.5: the side feeler hits it
	EXPECT_ZERO(thr_wall_avoid(&sliding, along, idx, 1, 4.0f, THR_PI / 6.0f));
}

Test(wall, behind_or_out_of_reach_ignored)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	uint32_t idx[1] = {0};
	thr_wall behind[1] = {{v2(-2, -5), v2(-2, 5)}};
	// wall at x=-2, behind the agent -> 0
	EXPECT_ZERO(thr_wall_avoid(&s, behind, idx, 1, 4.0f, THR_PI / 6.0f));
	thr_wall far[1] = {{v2(5, -5), v2(5, 5)}};
	// wall at x=5, beyond the centre feeler's tip (4,0) -> 0
	EXPECT_ZERO(thr_wall_avoid(&s, far, idx, 1, 4.0f, THR_PI / 6.0f));
	thr_wall parallel[1] = {{v2(-5, 3), v2(5, 3)}};
	// wall y=3 parallel to the path: side tip (1.732,1) does not reach it -> 0
	EXPECT_ZERO(thr_wall_avoid(&s, parallel, idx, 1, 4.0f, THR_PI / 6.0f));
}

Test(wall, zero_velocity_is_zero)
{
	thr_self s = agent(0, 0, 0, 0, 2, 4);
	uint32_t idx[1] = {0};
	thr_wall w[1] = {{v2(1, -5), v2(1, 5)}};
	// length(v)=0 -> 0 (no feelers at rest)
	EXPECT_ZERO(thr_wall_avoid(&s, w, idx, 1, 4.0f, THR_PI / 6.0f));
}

Test(wall, empty_index_is_zero)
{
	thr_self s = agent(0, 0, 1, 0, 2, 4);
	thr_wall w[1] = {{v2(1, -5), v2(1, 5)}};
	uint32_t idx[1] = {0};
	// no candidate walls -> 0
	EXPECT_ZERO(thr_wall_avoid(&s, w, idx, 0, 4.0f, THR_PI / 6.0f));
}

// ---------------------------------------------------------------- bounds (contain)

// Box [0,10]^2 (already shrunk by the radius), margin 2.
Test(bounds, inside_far_from_edges_is_zero)
{
	thr_self s = agent(5, 5, 1, 0.5f, 2, 4);
	// 3 from every edge > margin 2 -> 0
	EXPECT_ZERO(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f));
	thr_self t = agent(2.5f, 7.5f, -1, 1, 2, 4);
	// 2.5 from left and top > 2 -> 0
	EXPECT_ZERO(thr_bounds(&t, v2(0, 0), v2(10, 10), 2.0f));
}

Test(bounds, near_left_edge)
{
	thr_self s = agent(1, 5, -1, 0, 2, 4);
	// x=1 within 2 of lo.x=0: desired x=+2, desired=(2,0) (normalized *2 = (2,0)),
	// minus v=(-1,0) -> (3,0), |.|=3 < 4
	THR_EXPECT_VEC(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f), 3.0f, 0.0f, TOL);
}

Test(bounds, near_left_edge_limited)
{
	thr_self s = agent(1, 5, -1, 0, 2, 1);
	// (3,0) as above, limited to max_force 1 -> (1,0)
	THR_EXPECT_VEC(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f), 1.0f, 0.0f, TOL);
}

Test(bounds, near_right_and_top_edges)
{
	thr_self s = agent(9, 5, 1, 0, 2, 4);
	// x=9 within 2 of hi.x=10: desired=(-2,0), minus v=(1,0) -> (-3,0)
	THR_EXPECT_VEC(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f), -3.0f, 0.0f, TOL);
	thr_self t = agent(5, 9.5f, 0, 1, 2, 4);
	// y=9.5 within 2 of hi.y: desired=(0,-2), minus v=(0,1) -> (0,-3)
	THR_EXPECT_VEC(thr_bounds(&t, v2(0, 0), v2(10, 10), 2.0f), 0.0f, -3.0f, TOL);
}

Test(bounds, corner_normalizes_desired)
{
	thr_self s = agent(1, 1, 0, 0, 2, 4);
	// near left and bottom: desired=(2,2), normalize*2=(1.4142136,1.4142136), v=0 -> same, |.|=2 < 4
	THR_EXPECT_VEC(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f), 1.4142136f, 1.4142136f, TOL);
}

Test(bounds, keeps_along_edge_component)
{
	thr_self s = agent(1, 5, 0, 1, 2, 4);
	// near the left edge only: desired=(+2, v.y=1) (the along-edge part is kept, the choice in
	// behaviors.c), normalize*2=(2,1)/sqrt5*2=(1.7888544,0.8944272), minus v=(0,1)
	// -> (1.7888544,-0.1055728), |.|=1.79 < 4
	THR_EXPECT_VEC(thr_bounds(&s, v2(0, 0), v2(10, 10), 2.0f), 1.7888544f, -0.1055728f, TOL);
}

// ---------------------------------------------------------------- neighbour caps

Test(neighbor_cap, separation_takes_the_first_that_count)
{
	// Radius 2, max_speed 1. In list order: one beyond the radius and the
	// agent itself (neither counts, neither uses up the cap), then (1,0),
	// (0,1), (-1,0), each pushing max_speed*(1-1/2) = 0.5 away.
	thr_self s = agent(0, 0, 0, 0, 1, 10);
	s.id = 9;
	thr_neighbor nb[5] = {neighbor(5, 0, 0, 0, 1, 0), neighbor(0, 0, 0, 0, 9, 0), neighbor(1, 0, 0, 0, 2, 0),
	                      neighbor(0, 1, 0, 0, 3, 0), neighbor(-1, 0, 0, 0, 4, 0)};
	throng_behavior_params prm = flock_params(2, false);
	// No cap reached (default 256): (-0.5,0) + (0,-0.5) + (0.5,0) = (0,-0.5)
	THR_EXPECT_VEC(thr_separation(&s, nb, 5, &prm), 0.0f, -0.5f, TOL);
	// max_neighbors 2: the third neighbour, (-1,0), is ignored -> (-0.5,-0.5)
	prm.max_neighbors = 2;
	THR_EXPECT_VEC(thr_separation(&s, nb, 5, &prm), -0.5f, -0.5f, TOL);
	// max_neighbors 1: only (1,0) -> (-0.5,0)
	prm.max_neighbors = 1;
	THR_EXPECT_VEC(thr_separation(&s, nb, 5, &prm), -0.5f, 0.0f, TOL);
}

Test(neighbor_cap, alignment_and_cohesion_average_the_first)
{
	thr_self s = agent(0, 0, 0, 0, 1, 10);
	// velocities (1,0), (0,1), (-1,0): all three average to (0,1/3); the
	// first two to (0.5,0.5)
	thr_neighbor nb[3] = {neighbor(1, 0, 1, 0, 2, 0), neighbor(0, 1, 0, 1, 3, 0), neighbor(-1, 0, -1, 0, 4, 0)};
	throng_behavior_params prm = flock_params(2, false);
	THR_EXPECT_VEC(thr_alignment(&s, nb, 3, &prm), 0.0f, 1.0f / 3.0f, TOL);
	prm.max_neighbors = 2;
	THR_EXPECT_VEC(thr_alignment(&s, nb, 3, &prm), 0.5f, 0.5f, TOL);
	// cohesion: centre of the first two (0.5,0.5); seek it at max_speed 1
	// from rest: normalize((0.5,0.5)) = (0.7071,0.7071)
	THR_EXPECT_VEC(thr_cohesion(&s, nb, 3, &prm), 0.70710677f, 0.70710677f, TOL);
	prm.max_neighbors = 0; // the default: all three, centre (0,1/3) -> (0,1)
	THR_EXPECT_VEC(thr_cohesion(&s, nb, 3, &prm), 0.0f, 1.0f, TOL);
}

Test(neighbor_cap, unaligned_counts_neighbours_that_do_not_push)
{
	// The cap counts neighbours that count (within neighbor_radius), even
	// those whose closest approach is too far to push: with max_neighbors 1
	// the first, moving away, uses up the cap and the second, on a collision
	// course, is ignored.
	throng_behavior_params prm = unaligned_params(1.0f, 2.0f);
	thr_self a = agent(0, 0, 0, 0, 2, 10);
	thr_neighbor nb[2] = {neighbor(2, 0, 1, 0, 2, 0), neighbor(0, 1, 0, -1, 3, 0)};
	// second alone: rp=(0,1), rv=(0,-1), t=1, f=(0,0), m=0 < eps: dead head-on,
	// push -= perp(normalize(rv))*2*1 = -(1,0)*2 = (-2,0)
	THR_EXPECT_VEC(thr_unaligned_avoid(&a, nb, 2, &prm), -2.0f, 0.0f, TOL);
	prm.max_neighbors = 1;
	EXPECT_ZERO(thr_unaligned_avoid(&a, nb, 2, &prm));
}
