// SPDX-License-Identifier: MIT
// An outside program built against an installed throng's three libraries
// (tests/test_install.sh): one call into each — a built-in scene (scene),
// a few steps and the state hash (core), a stream file written and read
// back (io).
#include <stdio.h>
#include <stdlib.h>

#include <throng/export.h>
#include <throng/scenario.h>
#include <throng/throng.h>

static int fail(const char* what)
{
	fprintf(stderr, "consumer: %s: %s\n", what, throng_last_error());
	return 1;
}

int main(int argc, char** argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: consumer OUT.thr\n");
		return 2;
	}
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = 300;
	throng_scene* scene = NULL;
	if (throng_scene_create("circle", &opt, &scene) != THRONG_OK) {
		return fail("throng_scene_create");
	}
	throng_world* world = throng_scene_world(scene);
	throng_export_def def = throng_export_default_def();
	def.world = world;
	throng_exporter* ex = NULL;
	if (throng_exporter_create(argv[1], &def, &ex) != THRONG_OK) {
		return fail("throng_exporter_create");
	}
	for (int s = 0; s < 20; ++s) {
		if (throng_scene_step(scene) != THRONG_OK || throng_exporter_write(ex, world) != THRONG_OK) {
			return fail("step");
		}
	}
	throng_status finished = throng_exporter_finish(ex);
	throng_exporter_destroy(ex);
	if (finished != THRONG_OK) {
		return fail("throng_exporter_finish");
	}
	throng_stream_reader* rd = NULL;
	if (throng_stream_open(argv[1], &rd) != THRONG_OK) {
		return fail("throng_stream_open");
	}
	throng_frame frame;
	bool got = true;
	uint64_t frames = 0;
	while (got) {
		if (throng_stream_read_frame(rd, &frame, &got) != THRONG_OK) {
			return fail("throng_stream_read_frame");
		}
		frames += got ? 1u : 0u;
	}
	printf("agents %u frames %llu complete %s hash %016llx\n", throng_world_agent_count(world),
	       (unsigned long long)frames, throng_stream_complete(rd) ? "yes" : "no",
	       (unsigned long long)throng_world_hash(world));
	throng_stream_reader_destroy(rd);
	throng_scene_destroy(scene);
	return 0;
}
