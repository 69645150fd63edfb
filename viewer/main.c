// SPDX-License-Identifier: MIT
// throng-view: watch, poke and debug a crowd (see --help).
#include "app.h"
#include "args.h"
#include "scenes.h"

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
	if (!vw_scene_exists(args.scenario) && !vw_scene_is_file(args.scenario)) {
		char names[256];
		vw_scene_names(names, sizeof names);
		vw_error("unknown scenario \"%.64s\"; known scenarios: %s (or a scenario file: *.yaml, *.yml, "
		         "*.json, or a path with '/')",
		         args.scenario, names);
		return VW_EXIT_USAGE;
	}
	return vw_app_run(&args);
}
