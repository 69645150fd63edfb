// SPDX-License-Identifier: MIT
// throng: run a built-in scenario and print a summary.
//
// Exit status: 0 success, 1 the library failed (the message is
// throng_last_error()), 2 bad usage (one line on stderr naming the argument).
#define _POSIX_C_SOURCE 200809L

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "summary.h"
#include "throng/scenario.h"
#include "throng/throng.h"

static const char usage_main[] =
	"Usage: throng run <scenario> [options]   run a scenario, print a summary\n"
	"       throng list                       list the scenarios\n"
	"       throng --help | --version\n"
	"\n"
	"See throng run --help for the options of run.\n";

static const char usage_run[] =
	"Usage: throng run <scenario> [options]\n"
	"\n"
	"Runs a built-in scenario (see throng list) and prints a summary on stdout.\n"
	"\n"
	"Options (--name value or --name=value):\n"
	"  --agents N        agents, 1 to 10000000 (default: the scenario's)\n"
	"  --steps S         steps of 1/60 s, 0 to 1000000000 (default: the scenario's)\n"
	"  --seed X          world seed, 0 to 2^64-1, decimal or 0x hex (default 1)\n"
	"  --engine NAME     simd or scalar (default simd)\n"
	"  --threads T       OpenMP threads of the simd engine, 1 to 1024\n"
	"                    (default: OpenMP's, OMP_NUM_THREADS or every core)\n"
	"  --summary FORMAT  text or json (default text)\n"
	"  -h, --help        this help\n"
	"\n"
	"Exit status: 0 ok, 1 the simulation failed, 2 bad arguments.\n";

/// "herd, circle": the known scenario names, for error messages.
static void known_scenarios(char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		int n = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : ", ", throng_scenario_at(k)->name);
		if (n < 0 || (size_t)n >= cap - used) {
			break;
		}
		used += (size_t)n;
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_list(int argc, char** argv)
{
	if (argc > 2) {
		cli_error("list: unexpected argument \"%.64s\"", argv[2]);
		return CLI_EXIT_USAGE;
	}
	int width = 0;
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		int len = (int)strlen(throng_scenario_at(k)->name);
		width = len > width ? len : width;
	}
	for (uint32_t k = 0; k < throng_scenario_count(); ++k) {
		const throng_scenario_info* info = throng_scenario_at(k);
		printf("%-*s  %s (default %u agents, %u steps)\n", width, info->name, info->description,
		       info->default_agents, info->default_steps);
	}
	return CLI_EXIT_OK;
}

static int cmd_run(int argc, char** argv)
{
	cli_run_args args;
	int rc = cli_parse_run(argc, argv, 2, &args);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	if (args.help) {
		fputs(usage_run, stdout);
		return CLI_EXIT_OK;
	}
	char names[256];
	known_scenarios(names, sizeof names);
	if (args.scenario == NULL) {
		cli_error("run: missing <scenario> (known: %s)", names);
		return CLI_EXIT_USAGE;
	}
	const throng_scenario_info* info = throng_scenario_find(args.scenario);
	if (info == NULL) {
		cli_error("run: unknown scenario \"%.64s\" (known: %s)", args.scenario, names);
		return CLI_EXIT_USAGE;
	}

	throng_scene_options opt = throng_scene_default_options();
	opt.agents = args.agents;
	opt.seed = args.seed;
	opt.engine = args.engine;
	opt.threads = args.threads;
	throng_scene* scene = NULL;
	throng_status st = throng_scene_create(info->name, &opt, &scene);
	if (st != THRONG_OK) {
		cli_error("%s", throng_last_error());
		return CLI_EXIT_FAILURE;
	}
	uint64_t steps = args.steps_set ? args.steps : info->default_steps;

	double t0 = now_seconds();
	for (uint64_t k = 0; k < steps && st == THRONG_OK; ++k) {
		st = throng_scene_step(scene);
	}
	double seconds = now_seconds() - t0;
	if (st != THRONG_OK) {
		cli_error("%s", throng_last_error());
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}

	cli_summary s;
	memset(&s, 0, sizeof s);
	st = cli_summary_measure(scene, &s);
	if (st != THRONG_OK) {
		cli_error("%s", throng_last_error());
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}
	s.scenario = info->name;
	s.steps = steps;
	s.seed = args.seed;
	s.engine = args.engine == THRONG_ENGINE_SIMD ? "simd" : "scalar";
	s.threads = args.engine == THRONG_ENGINE_SIMD ? (args.threads != 0 ? args.threads : (uint32_t)omp_get_max_threads()) : 1;
	s.seconds = seconds;
	cli_summary_finish(&s);
	if (args.summary == CLI_SUMMARY_JSON) {
		cli_summary_print_json(stdout, &s);
	} else {
		cli_summary_print_text(stdout, &s);
	}
	throng_scene_destroy(scene);
	return CLI_EXIT_OK;
}

int main(int argc, char** argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return CLI_EXIT_USAGE;
	}
	const char* cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_main, stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("throng %d.%d.%d\n", THRONG_VERSION_MAJOR, THRONG_VERSION_MINOR, THRONG_VERSION_PATCH);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "list") == 0) {
		return cmd_list(argc, argv);
	}
	if (strcmp(cmd, "run") == 0) {
		return cmd_run(argc, argv);
	}
	cli_error("unknown command \"%.64s\" (expected run or list; see throng --help)", cmd);
	return CLI_EXIT_USAGE;
}
