// SPDX-License-Identifier: MIT
// throng-view: watch, poke and debug a crowd (see --help).
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "args.h"
#include "opts.h"
#include "scenes.h"

static int run(int argc, char** argv);

/// Runs the viewer, then checks that everything printed on standard output
/// (--help, the benchmark's figures) reached it: a failed write or final
/// flush (/dev/full, a closed pipe) is an error with a message.
int main(int argc, char** argv)
{
	// A capture into a closed pipe must fail with EPIPE and a message, not
	// kill the viewer with SIGPIPE.
	signal(SIGPIPE, SIG_IGN);
	int rc = run(argc, argv);
	if (!opt_close_stdout("throng-view")) {
		return rc == VW_EXIT_OK ? VW_EXIT_FAILURE : rc;
	}
	return rc;
}

static int run(int argc, char** argv)
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
	if (!vw_scene_exists(args.scenario) && !throng_scene_is_file(args.scenario)) {
		char names[256];
		vw_scene_names(names, sizeof names);
		vw_error("unknown scenario \"%.64s\"; known scenarios: %s (or a scenario file: *.yaml, *.yml, "
		         "*.json, or a path with '/')",
		         args.scenario, names);
		return VW_EXIT_USAGE;
	}
	if (!opt_check_agents("throng-view", args.scenario, args.agents)) {
		return VW_EXIT_USAGE;
	}
	return vw_app_run(&args);
}
