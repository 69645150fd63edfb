// SPDX-License-Identifier: MIT
// throng's built-in `field` on the RVO2 Library (ORCA), for issue 37's side
// by side (docs/PERFORMANCE.md, "RVO2 side by side"). Not part of the build:
// scripts/rvo2_side_by_side/run compiles it with RVO2's sources, which the
// project does not ship.
//
//   rvo2_field SCENE.yaml STEPS [--seed X] [--max-neighbors M] [--obstacles]
//
// SCENE.yaml is what `throng save field --agents N` writes (or that file
// without its obstacles and walls): the harness takes its square, its
// goal rectangle, its goal radius and each agent's row (start, first goal,
// max speed, radius), so both simulators start from the same crowd. Then
// every step, as field's agents do: an agent within the goal radius of its
// goal draws the next one uniformly in the goal rectangle; its preferred
// velocity is arrive's (max speed toward the goal, slowing linearly within
// field's slow radius, 2 m); RVO2's doStep. RVO2's parameters are field's:
// dt as the file says, neighbour distance 4 m (unaligned avoidance's
// radius, field's largest), time horizon 1.5 s (its max prediction),
// at most 256 neighbours (throng's THRONG_DEFAULT_MAX_NEIGHBORS; about two
// lie within 4 m at field's density, so the cap never binds).
//
// --obstacles adds the file's obstacles (circles of radius r) to RVO2 as
// octagons circumscribing them, and builds RVO2's obstacle tree; left out
// by default (the "same work": RVO2's obstacle tree left out,
// throng's obstacles too). The walls are never added: RVO2's agents stay in
// the square because their goals are in it.
//
// Prints one line of key=value: CPU seconds of the stepping loop only
// (getrusage, user + system: the machine is shared, other processes get
// paused and resumed), wall seconds, agent-steps per CPU second, goals
// reached, the mean neighbours at the end and a checksum of the positions.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <time.h>

#include "RVO.h"

namespace {

constexpr float kSlowRadius = 2.0F;     // field's arrive slot
constexpr float kNeighborDist = 4.0F;   // field's unaligned avoidance
constexpr float kTimeHorizon = 1.5F;    // its max_prediction
constexpr float kTimeHorizonObst = 1.5F;
constexpr std::size_t kMaxNeighbors = 256;

struct Row {
	float x, y, tx, ty, max_speed, radius;
};

struct Circle {
	float x, y, r;
};

struct Scene {
	float dt = 1.0F / 60.0F;
	float goal_radius = 1.0F;
	float gmin[2] = {0, 0}, gmax[2] = {0, 0};
	bool has_goal = false;
	std::vector<Row> rows;
	std::vector<Circle> circles;
};

[[noreturn]] void die(const char* msg, const char* arg)
{
	std::fprintf(stderr, "rvo2_field: %s%s\n", msg, arg);
	std::exit(2);
}

// Reads the few lines of a saved field the harness needs; fails loudly on
// anything else it relies on being there.
Scene load(const char* path)
{
	FILE* f = std::fopen(path, "r");
	if (f == nullptr) {
		die("cannot open ", path);
	}
	Scene s;
	char line[4096];
	bool in_rows = false;
	while (std::fgets(line, sizeof line, f) != nullptr) {
		float a[4];
		if (std::sscanf(line, " dt: %f", &a[0]) == 1) {
			s.dt = a[0];
		} else if (std::sscanf(line, "goal_radius: %f", &a[0]) == 1) {
			s.goal_radius = a[0];
		} else if (std::sscanf(line, " goal: {random: {min: [%f, %f], max: [%f, %f]", &a[0], &a[1], &a[2], &a[3]) == 4) {
			s.gmin[0] = a[0];
			s.gmin[1] = a[1];
			s.gmax[0] = a[2];
			s.gmax[1] = a[3];
			s.has_goal = true;
		} else if (std::strncmp(line, "  rows:", 7) == 0) {
			in_rows = true;
		} else if (std::sscanf(line, " - {center: [%f, %f], radius: %f}", &a[0], &a[1], &a[2]) == 3) {
			s.circles.push_back({a[0], a[1], a[2]});
		} else if (in_rows) {
			// [x, y, vx, vy, hx, hy, tx, ty, max_speed, max_force, radius, archetype, ...]
			float r[11];
			if (std::sscanf(line, " - [%f, %f, %f, %f, %f, %f, %f, %f, %f, %f, %f,", &r[0], &r[1], &r[2], &r[3],
			                &r[4], &r[5], &r[6], &r[7], &r[8], &r[9], &r[10]) == 11) {
				s.rows.push_back({r[0], r[1], r[6], r[7], r[8], r[10]});
			} else if (line[0] != ' ' && line[0] != '#') {
				in_rows = false;
			}
		}
	}
	std::fclose(f);
	if (s.rows.empty()) {
		die("no agent rows in ", path);
	}
	if (!s.has_goal) {
		die("no agents.goal.random in ", path);
	}
	return s;
}

// splitmix64: the harness's own goal stream (throng's draws are its own).
uint64_t mix(uint64_t* st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

float unit(uint64_t* st)
{
	return static_cast<float>(mix(st) >> 40) * (1.0F / 16777216.0F);
}

double cpu_seconds()
{
	rusage ru{};
	getrusage(RUSAGE_SELF, &ru);
	return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double wall_seconds()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

} // namespace

int main(int argc, char** argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: rvo2_field SCENE.yaml STEPS [--seed X] [--max-neighbors M] [--obstacles]\n");
		return 2;
	}
	const long steps = std::strtol(argv[2], nullptr, 10);
	uint64_t seed = 1;
	std::size_t max_neighbors = kMaxNeighbors;
	bool obstacles = false;
	for (int i = 3; i < argc; ++i) {
		if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = std::strtoull(argv[++i], nullptr, 0);
		} else if (std::strcmp(argv[i], "--max-neighbors") == 0 && i + 1 < argc) {
			max_neighbors = std::strtoul(argv[++i], nullptr, 10);
		} else if (std::strcmp(argv[i], "--obstacles") == 0) {
			obstacles = true;
		} else {
			die("unknown option ", argv[i]);
		}
	}
	if (steps < 0) {
		die("STEPS must be >= 0: ", argv[2]);
	}
	const Scene s = load(argv[1]);
	const std::size_t n = s.rows.size();

	RVO::RVOSimulator sim(s.dt, kNeighborDist, max_neighbors, kTimeHorizon, kTimeHorizonObst, s.rows[0].radius,
	                      s.rows[0].max_speed);
	std::vector<float> gx(n), gy(n), vmax(n);
	for (std::size_t i = 0; i < n; ++i) {
		const Row& r = s.rows[i];
		const std::size_t id = sim.addAgent(RVO::Vector2(r.x, r.y));
		sim.setAgentRadius(id, r.radius);
		sim.setAgentMaxSpeed(id, r.max_speed);
		gx[i] = r.tx;
		gy[i] = r.ty;
		vmax[i] = r.max_speed;
	}
	std::size_t added = 0;
	if (obstacles) {
		const float pi = 3.14159265358979F;
		for (const Circle& c : s.circles) {
			const float rr = c.r / std::cos(pi / 8.0F); // the octagon holds the circle
			std::vector<RVO::Vector2> poly;
			for (int k = 0; k < 8; ++k) { // counter-clockwise: a solid obstacle
				const float t = 2.0F * pi * static_cast<float>(k) / 8.0F;
				poly.emplace_back(c.x + rr * std::cos(t), c.y + rr * std::sin(t));
			}
			sim.addObstacle(poly);
			++added;
		}
		sim.processObstacles();
	}

	uint64_t rng = seed * 0x2545f4914f6cdd1dULL + 0x1234567ULL;
	const float gw = s.gmax[0] - s.gmin[0], gh = s.gmax[1] - s.gmin[1];
	const float r2 = s.goal_radius * s.goal_radius;
	uint64_t reached = 0;

	const double c0 = cpu_seconds(), w0 = wall_seconds();
	for (long t = 0; t < steps; ++t) {
		for (std::size_t i = 0; i < n; ++i) {
			const RVO::Vector2& p = sim.getAgentPosition(i);
			float dx = gx[i] - p.x(), dy = gy[i] - p.y();
			float d2 = dx * dx + dy * dy;
			if (d2 < r2) {
				gx[i] = s.gmin[0] + gw * unit(&rng);
				gy[i] = s.gmin[1] + gh * unit(&rng);
				dx = gx[i] - p.x();
				dy = gy[i] - p.y();
				d2 = dx * dx + dy * dy;
				++reached;
			}
			const float d = std::sqrt(d2);
			const float speed = d < kSlowRadius ? vmax[i] * d / kSlowRadius : vmax[i];
			const float k = d > 0.0F ? speed / d : 0.0F;
			sim.setAgentPrefVelocity(i, RVO::Vector2(dx * k, dy * k));
		}
		sim.doStep();
	}
	const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;

	double sum = 0.0, neighbours = 0.0;
	for (std::size_t i = 0; i < n; ++i) {
		const RVO::Vector2& p = sim.getAgentPosition(i);
		sum += static_cast<double>(p.x()) + 2.0 * static_cast<double>(p.y());
		neighbours += static_cast<double>(sim.getAgentNumAgentNeighbors(i));
	}
	const double work = static_cast<double>(n) * static_cast<double>(steps);
	std::printf("agents=%zu steps=%ld obstacles=%zu cpu_s=%.3f wall_s=%.3f agent_steps_per_cpu_s=%.4g "
	            "reached=%llu mean_neighbours=%.2f checksum=%.6e\n",
	            n, steps, added, cpu, wall, cpu > 0.0 ? work / cpu : 0.0, static_cast<unsigned long long>(reached),
	            neighbours / static_cast<double>(n), sum);
	return 0;
}
