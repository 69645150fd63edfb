// SPDX-License-Identifier: MIT
// Reads agents straight out of the world through the zero-copy view.
//
// The view's arrays belong to the world and hold the agents in storage
// order, which the SIMD engine changes every step (it sorts agents by grid
// cell); view.id[k] is the stable id of the agent in slot k. Nothing is
// copied, and the pointers stay valid until the next step, spawn or destroy.
//
//   ./build/release/examples/view_agents [agents] [steps]
#include <stdio.h>
#include <stdlib.h>

#include "throng/scenario.h"
#include "throng/throng.h"

int main(int argc, char** argv)
{
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100;
	int steps = argc > 2 ? atoi(argv[2]) : 30;

	throng_scene* scene = NULL;
	if (throng_scene_create("circle", &opt, &scene) != THRONG_OK) {
		fprintf(stderr, "view_agents: %s\n", throng_last_error());
		return 1;
	}
	for (int k = 0; k < steps; ++k) {
		if (throng_scene_step(scene) != THRONG_OK) {
			fprintf(stderr, "view_agents: %s\n", throng_last_error());
			throng_scene_destroy(scene);
			return 1;
		}
	}

	throng_view v = throng_world_view(throng_scene_world(scene));
	printf("step %llu: %u agents, storage order (slot k holds agent id[k])\n", (unsigned long long)v.step, v.count);
	for (uint32_t k = 0; k < v.count && k < 5; ++k) {
		printf("  slot %u: agent %4u at (%8.3f, %8.3f) m, heading (%6.3f, %6.3f), velocity (%6.3f, %6.3f) m/s, "
		       "radius %.2f m, group %u, archetype %u\n",
		       k, v.id[k], (double)v.x[k], (double)v.y[k], (double)v.hx[k], (double)v.hy[k], (double)v.vx[k],
		       (double)v.vy[k], (double)v.radius[k], v.group[k], v.archetype[k]);
	}

	// To follow one agent, find its slot again after every step: slots move.
	for (uint32_t k = 0; k < v.count; ++k) {
		if (v.id[k] == 0) {
			printf("agent 0 is in slot %u at (%.3f, %.3f) m\n", k, (double)v.x[k], (double)v.y[k]);
			break;
		}
	}
	throng_scene_destroy(scene);
	return 0;
}
