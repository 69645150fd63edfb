// SPDX-License-Identifier: MIT
// throng: run a built-in scenario and print a summary.
//
// Exit status (opts.h, CLI_EXIT_*): 0 success, 1 the library failed (the
// message is throng_last_error()), 2 bad usage (one line on stderr naming
// the argument), 3 an input file (a scenario file) missing or damaged, 4 an
// output (--out, --shm, standard output) that cannot be written, 128 + N a
// run stopped by signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT: its outputs
// closed properly, its summary printed).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "headline.h"
#include "measure.h"
#include "opts.h"
#include "outputs.h"
#include "progress.h"
#include "resume.h"
#include "summary.h"
#include "usage.h"
#include "throng/export.h"
#include "throng/metrics.h"
#include "throng/scenario.h"
#include "throng/scenario_file.h"
#include "throng/throng.h"

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

static int cmd_list(int argc, char** argv)
{
	if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
		fputs(cli_usage_list, stdout);
		return CLI_EXIT_OK;
	}
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

/// A scene argument must be a built-in's name or look like a file
/// (throng_scene_is_file); otherwise a usage error naming the built-ins.
static int cli_check_scene_name(const char* command, const char* scenario)
{
	if (throng_scenario_find(scenario) != NULL || throng_scene_is_file(scenario)) {
		return CLI_EXIT_OK;
	}
	char names[256];
	known_scenarios(names, sizeof names);
	cli_error("%s: unknown scenario \"%.64s\" (known: %s)", command, scenario, names);
	return CLI_EXIT_USAGE;
}

/// Prints one problem of a scenario file to stderr, as FILE:LINE:COL: ...
static void cli_print_diagnostic(void* user, const throng_diagnostic* d)
{
	char line[1024];
	throng_diagnostic_format(d, line, sizeof line);
	fprintf(stderr, "%s\n", line);
	*(uint32_t*)user += 1;
}

/// Opens a built-in scene or a scenario file (throng_scene_open). A file
/// with problems (each printed) or one that cannot be read gives
/// CLI_EXIT_INPUT; anything else the library refuses, CLI_EXIT_FAILURE.
static int cli_open_scene(const char* name, const throng_scene_def* opt, throng_scene** scene)
{
	uint32_t printed = 0;
	throng_status st = throng_scene_open_report(name, opt, cli_print_diagnostic, &printed, scene);
	if (st == THRONG_OK) {
		return CLI_EXIT_OK;
	}
	if (printed == 0) {
		cli_error("%s", throng_last_error());
	}
	bool file = throng_scene_is_file(name) && throng_scenario_find(name) == NULL;
	return file && (st == THRONG_ERR_INVALID_ARGUMENT || st == THRONG_ERR_IO || st == THRONG_ERR_CORRUPT)
	               ? CLI_EXIT_INPUT
	               : CLI_EXIT_FAILURE;
}

/// throng validate FILE...: checks each file, prints every problem to
/// stderr, simulates nothing. Exit 0 when all are valid, 2 otherwise.
static int cmd_validate(int argc, char** argv)
{
	if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
		fputs("Usage: throng validate FILE...\n\nChecks scenario files (docs/SCENARIOS.md) without simulating:\n"
		      "every problem is printed to stderr as FILE:LINE:COL: field: what is wrong (expected ...).\n"
		      "\nExit status: 0 every file is valid, 3 a file has problems or cannot be read,\n"
		      "2 bad arguments.\n",
		      argc < 3 ? stderr : stdout);
		return argc < 3 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	int rc = CLI_EXIT_OK;
	for (int k = 2; k < argc; ++k) {
		uint32_t printed = 0, problems = 0;
		throng_status st = throng_scenario_validate_file(argv[k], cli_print_diagnostic, &printed, &problems);
		if (st == THRONG_OK) {
			printf("%s: valid\n", argv[k]);
		} else {
			if (printed == 0) {
				cli_error("%s", throng_last_error());
			}
			rc = CLI_EXIT_INPUT;
		}
	}
	return rc;
}

static int cmd_run(int argc, char** argv)
{
	cli_run_args args;
	int rc = cli_parse_run(argc, argv, 2, NULL, &args);
	if (rc == CLI_EXIT_OK && args.help) {
		fputs(cli_usage_run, stdout);
		fputs(cli_usage_run_more, stdout);
	}
	if (rc != CLI_EXIT_OK || args.help) {
		return rc;
	}
	char names[256];
	known_scenarios(names, sizeof names);
	if (args.scenario == NULL && args.resume == NULL) {
		cli_error("run: missing <scenario> (known: %s)", names);
		return CLI_EXIT_USAGE;
	}
	rc = args.scenario != NULL ? cli_check_scene_name("run", args.scenario) : CLI_EXIT_OK;
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	if (!opt_check_agents(cli_program, args.scenario, args.agents)) {
		return CLI_EXIT_USAGE;
	}
	const throng_scenario_info* info = args.scenario != NULL ? throng_scenario_find(args.scenario) : NULL;
	bool from_file = args.scenario != NULL && info == NULL;

	throng_scene_def opt = cli_scene_def(&args);
	if (args.engine == THRONG_ENGINE_SIMD && args.threads == 0 && omp_get_max_threads() > (int)CLI_MAX_THREADS) {
		// The library caps OpenMP's default (libgomp crashed on 70000); say so.
		cli_error("note: OpenMP's default of %d threads (OMP_NUM_THREADS) is above %u; running %u", omp_get_max_threads(),
		          CLI_MAX_THREADS, throng_default_threads());
	}
	throng_scene* scene = NULL;
	rc = args.resume != NULL ? cli_resume_open(&args, &scene) : cli_open_scene(args.scenario, &opt, &scene);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	info = throng_scene_info(scene);
	throng_status st = THRONG_OK;
	uint64_t steps = 0;
	throng_world* world = throng_scene_world(scene);
	if (!cli_run_steps(&args, scene, &steps)) {
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	if (args.resume != NULL) {
		args.engine = throng_world_get_def(world).engine; // the checkpoint's, for the summary
		steps = args.steps_set || args.seconds_set ? steps : cli_resume_default_steps(scene);
	}

	rc = cli_check_out_path(&args, from_file);
	if (rc != CLI_EXIT_OK) {
		throng_scene_destroy(scene);
		return rc;
	}

	// A closed pipe or a size limit must come back as EPIPE or EFBIG from
	// write(), not kill the process before it can say what happened.
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	cli_catch_stop_signals();
	cli_outputs outputs;
	rc = cli_outputs_open(&args, info->name, world, &outputs);
	if (rc != CLI_EXIT_OK) {
		throng_scene_destroy(scene);
		return rc;
	}
	// With the frames on standard output, the summary goes to standard error.
	FILE* report = args.out != NULL && throng_output_path_is_stdout(args.out) ? stderr : stdout;

	throng_metrics* metrics = NULL;
	if (!args.no_metrics && throng_metrics_create(world, throng_scene_goal_radius(scene), &metrics) != THRONG_OK) {
		cli_error("%s", throng_last_error());
		cli_outputs_discard(&outputs);
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}
	// The scenario file's measurement lines and areas, fed every state.
	throng_measure* measure = NULL;
	if (throng_scene_measure_create(scene, &measure) != THRONG_OK ||
	    (measure != NULL && throng_measure_feed_world(measure, world) != THRONG_OK)) {
		cli_error("%s", throng_last_error());
		throng_measure_destroy(measure);
		throng_metrics_destroy(metrics);
		cli_outputs_discard(&outputs);
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}
	double measure_t0 = (double)throng_world_view(world).step * (double)throng_world_get_def(world).dt;
	cli_summary s;
	cli_summary_begin(&s, world); // the crowd at the start
	cli_progress progress;
	cli_progress_start(&progress, cli_progress_wanted(args.quiet), steps, throng_world_agent_count(world));

	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	double t0 = cli_now_seconds();
	double metrics_seconds = 0.0;
	double measure_seconds = 0.0;
	throng_status out_st = cli_outputs_frame(&outputs, world); // frame 0: the initial state
	uint64_t checkpoint_step = UINT64_MAX;
	double checkpoint_seconds = 0.0;
	bool checkpoint_ok = true;
	uint64_t k = 0;
	for (; k < steps && st == THRONG_OK && out_st == THRONG_OK && checkpoint_ok && cli_stop_signal == 0; ++k) {
		st = throng_scene_step(scene);
		if (st == THRONG_OK && metrics != NULL) {
			double tm = cli_now_seconds();
			st = throng_metrics_observe(metrics, world);
			metrics_seconds += cli_now_seconds() - tm;
		}
		if (st == THRONG_OK && measure != NULL) {
			double tm = cli_now_seconds();
			st = throng_measure_feed_world(measure, world);
			measure_seconds += cli_now_seconds() - tm;
		}
		if (st == THRONG_OK) {
			out_st = cli_outputs_frame(&outputs, world);
		}
		if (st == THRONG_OK && out_st == THRONG_OK) {
			checkpoint_ok = cli_checkpoint_due(&args, scene, false, &checkpoint_step, &checkpoint_seconds);
		}
		cli_progress_update(&progress, k + 1);
		if (args.realtime) {
			cli_pace(&start, k + 1, throng_world_get_def(world).dt);
		}
	}
	if (st == THRONG_OK && out_st == THRONG_OK && checkpoint_ok) {
		checkpoint_ok = cli_checkpoint_due(&args, scene, true, &checkpoint_step, &checkpoint_seconds);
	}
	double seconds = cli_now_seconds() - t0;
	cli_progress_finish(&progress);
	throng_quality quality = throng_metrics_result(metrics); // all zero without metrics
	throng_metrics_destroy(metrics);
	if (st != THRONG_OK) {
		cli_error("%s", throng_last_error());
		throng_measure_destroy(measure);
		cli_outputs_close(&outputs, false, NULL);
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}
	if (out_st != THRONG_OK) {
		// The library's message says what the file holds, exactly.
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", throng_last_error());
		cli_error("output stopped at step %llu: %s", (unsigned long long)k, msg);
		if (out_st == THRONG_ERR_CAPACITY && args.shm != NULL) {
			cli_error("--shm: the crowd outgrew the feed; --shm-capacity N sizes it for up to N agents");
		}
		cli_outputs_close(&outputs, false, msg);
		throng_measure_destroy(measure);
		throng_scene_destroy(scene);
		return CLI_EXIT_OUTPUT;
	}
	if (!checkpoint_ok) { // said why; the frames written are whole
		cli_outputs_close(&outputs, true, NULL);
		throng_measure_destroy(measure);
		throng_scene_destroy(scene);
		return CLI_EXIT_OUTPUT;
	}
	int stop = cli_stop_signal;
	bool interrupted = stop != 0 && k < steps;
	if (interrupted) {
		throng_exporter_set_interrupted(outputs.exporter);
	}
	if (cli_outputs_close(&outputs, true, NULL) != THRONG_OK) {
		throng_measure_destroy(measure);
		throng_scene_destroy(scene);
		return CLI_EXIT_OUTPUT;
	}

	st = cli_summary_measure(scene, args.no_metrics ? NULL : &quality, &s);
	if (st == THRONG_OK && measure != NULL) {
		double t1 = (double)throng_world_view(world).step * (double)throng_world_get_def(world).dt;
		st = cli_summary_measurements(measure, measure_t0, t1, &s);
	}
	throng_measure_destroy(measure);
	if (st != THRONG_OK) {
		cli_error("%s", throng_last_error());
		throng_scene_destroy(scene);
		return CLI_EXIT_FAILURE;
	}
	s.scenario = info->name;
	s.steps = steps;
	s.engine = throng_engine_name(args.engine);
	s.threads = args.engine == THRONG_ENGINE_SIMD ? (args.threads != 0 ? args.threads : throng_default_threads()) : 1;
	s.threads_policy = throng_threads_policy_name(args.threads_policy);
	s.steps_one_thread = throng_world_get_stats(throng_scene_world(scene)).steps_one_thread;
	s.seconds = seconds;
	s.frames = outputs.frames;
	s.output_seconds = outputs.seconds + checkpoint_seconds; // the checkpoints are output too
	s.metrics_seconds = metrics_seconds;
	s.measure_seconds = measure_seconds;
	if (interrupted) {
		s.steps = k;
		s.steps_planned = steps;
		s.interrupted = cli_signal_name(stop);
		cli_error("interrupted by %s after step %llu of %llu; outputs closed", s.interrupted, (unsigned long long)k,
		          (unsigned long long)steps);
	}
	cli_summary_finish(&s);
	if (args.summary == CLI_SUMMARY_JSON) {
		cli_summary_print_json(report, &s);
	} else {
		cli_headline_print(report, &s);
		cli_summary_print_text(report, &s);
	}
	throng_scene_destroy(scene);
	return stop != 0 ? 128 + stop : CLI_EXIT_OK;
}

/// throng save <scenario> [--agents N] [--seed X] --out FILE
static int cmd_save(int argc, char** argv)
{
	static const char* const valued[] = {"--agents", "--seed", "--out"};
	uint64_t seen = 0;
	const opt_spec spec = {cli_program, "save: ", "throng save --help", valued, sizeof valued / sizeof valued[0], &seen};
	const char* scenario = NULL;
	const char* out = NULL;
	throng_scene_def opt = throng_scene_default_def();
	for (int k = 2; k < argc; ++k) {
		if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
			fputs(cli_usage_save, stdout);
			return CLI_EXIT_OK;
		}
		const char* name = NULL;
		const char* v = NULL;
		opt_kind kind = opt_next(&spec, argc, argv, &k, &scenario, &name, &v);
		if (kind == OPT_ERROR) {
			return CLI_EXIT_USAGE;
		}
		if (kind == OPT_POSITIONAL) {
			continue;
		}
		uint64_t n = 0;
		if (strcmp(name, "--out") == 0) {
			if (v[0] == '\0') {
				cli_error("--out: expected a file name or - (standard output), got an empty string");
				return CLI_EXIT_USAGE;
			}
			out = v;
		} else if (strcmp(name, "--agents") == 0) {
			if (!opt_parse_integer(cli_program, name, v, 1, CLI_MAX_AGENTS, false, &n)) {
				return CLI_EXIT_USAGE;
			}
			opt.agents = (uint32_t)n;
		} else {
			if (!opt_parse_integer(cli_program, name, v, 0, UINT64_MAX, true, &n)) {
				return CLI_EXIT_USAGE;
			}
			opt.seed = n;
		}
	}
	if (scenario == NULL || out == NULL) {
		cli_error("save: missing %s", scenario == NULL ? "<scenario>" : "--out FILE");
		fputs(cli_usage_save, stderr);
		return CLI_EXIT_USAGE;
	}
	int rc = cli_check_scene_name("save", scenario);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	if (!opt_check_agents(cli_program, scenario, opt.agents)) {
		return CLI_EXIT_USAGE;
	}
	throng_scene* scene = NULL;
	rc = cli_open_scene(scenario, &opt, &scene);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	// The header says how the file was made, so a reader (and the stale
	// examples test) can make it again.
	char header[512];
	int len = snprintf(header, sizeof header, "made by: throng save %s", scenario);
	if (opt.agents != 0 && len > 0 && (size_t)len < sizeof header) {
		len += snprintf(header + len, sizeof header - (size_t)len, " --agents %u", opt.agents);
	}
	if (opt.seed != 1 && len > 0 && (size_t)len < sizeof header) {
		snprintf(header + len, sizeof header - (size_t)len, " --seed %llu", (unsigned long long)opt.seed);
	}
	char* text = NULL;
	size_t size = 0;
	throng_status st = throng_scene_save_string_header(scene, header, &text, &size);
	throng_scene_destroy(scene);
	if (st != THRONG_OK) {
		cli_error("save: %s", throng_last_error());
		return CLI_EXIT_FAILURE;
	}
	// Written as every output is (include/throng/file.h); the scene's own
	// throng_scene_save_file does the same, without the notices.
	if (throng_output_path_is_stdout(out)) {
		fflush(stdout);
	}
	throng_output_file* file = NULL;
	st = throng_output_file_open(out, &file);
	if (st == THRONG_OK) {
		if (throng_output_file_notice(file) != NULL) {
			cli_error("note: %s", throng_output_file_notice(file));
		}
		st = throng_output_file_write(file, text, size);
		if (st == THRONG_OK) {
			st = throng_output_file_commit(file);
		}
	}
	throng_output_file_destroy(file);
	free(text);
	if (st != THRONG_OK) {
		cli_error("save: %s", throng_last_error());
		return CLI_EXIT_OUTPUT;
	}
	return CLI_EXIT_OK;
}

/// Runs the command; a failed write to standard output (a full disk,
/// /dev/full, a closed pipe) is an error too, found at the final flush.
static int run_command(int argc, char** argv);

int main(int argc, char** argv)
{
	int rc = run_command(argc, argv);
	if (!opt_close_stdout("throng")) {
		return rc == CLI_EXIT_OK || rc >= 128 ? CLI_EXIT_OUTPUT : rc;
	}
	return rc;
}

static int run_command(int argc, char** argv)
{
	if (argc < 2) {
		fputs(cli_usage_main, stderr);
		return CLI_EXIT_USAGE;
	}
	const char* cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(cli_usage_main, stdout);
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
	if (strcmp(cmd, "validate") == 0) {
		return cmd_validate(argc, argv);
	}
	if (strcmp(cmd, "save") == 0) {
		return cmd_save(argc, argv);
	}
	if (strcmp(cmd, "measure") == 0) {
		return cli_measure(argc, argv);
	}
	cli_error("unknown command \"%.64s\" (expected run, list, validate, save or measure; see throng --help)", cmd);
	return CLI_EXIT_USAGE;
}
