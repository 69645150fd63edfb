// SPDX-License-Identifier: MIT
// throng-view: watch, poke and debug a crowd (see --help).
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "args.h"
#include "scenes.h"

/// A scenario argument that names a file rather than a built-in scene.
static bool looks_like_file(const char* name)
{
	if (strchr(name, '/') != NULL || strchr(name, '.') != NULL) {
		return true;
	}
	FILE* f = fopen(name, "r");
	if (f != NULL) {
		fclose(f);
		return true;
	}
	return false;
}

int main(int argc, char** argv)
{
	vw_args args;
	int rc = vw_parse_args(argc, argv, &args);
	if (rc != VW_EXIT_OK) {
		return rc;
	}
	if (args.help) {
		vw_print_help();
		return VW_EXIT_OK;
	}
	if (!vw_scene_exists(args.scenario)) {
		char names[256];
		vw_scene_names(names, sizeof names);
		if (looks_like_file(args.scenario)) {
			vw_error("scenario files are not supported yet: \"%.200s\" (built-in scenarios: %s)", args.scenario,
			         names);
		} else {
			vw_error("unknown scenario \"%.64s\"; known scenarios: %s", args.scenario, names);
		}
		return VW_EXIT_USAGE;
	}
	return vw_app_run(&args);
}
