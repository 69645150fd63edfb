// SPDX-License-Identifier: MIT
// Strict argument parsing for `throng run`.
//
// Every bad argument gets one line on stderr that names it and quotes what
// was given, and exit status 2. Integers and the option scan: opts.c,
// shared with throng-view.
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "throng/file.h"

const char* cli_program = "throng";

void cli_error(const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	opt_verror(cli_program, fmt, ap);
	va_end(ap);
}

throng_scene_def cli_scene_def(const cli_run_args* a)
{
	throng_scene_def opt = throng_scene_default_def();
	opt.agents = a->agents;
	opt.seed = a->seed;
	opt.engine = a->engine;
	opt.threads = a->threads;
	opt.threads_policy = a->threads_policy;
	return opt;
}

bool cli_run_steps(const cli_run_args* a, throng_scene* scene, uint64_t* steps)
{
	*steps = a->steps_set ? a->steps : throng_scene_info(scene)->default_steps;
	if (!a->seconds_set) {
		return true;
	}
	const float dt = throng_world_get_def(throng_scene_world(scene)).dt;
	double count = 0.0;
	if (!cli_steps_for_seconds(a->seconds, dt, steps, &count)) {
		cli_error("--seconds: %g s is %.0f steps of this scenario's dt (%g s), not from 1 to %u", a->seconds, count,
		          (double)dt, CLI_MAX_STEPS);
		return false;
	}
	return true;
}

bool cli_parse_seconds(const char* text, double* out)
{
	if (text == NULL || !(isdigit((unsigned char)text[0]) || text[0] == '.') ||
	    strspn(text, "0123456789.eE+-") != strlen(text)) {
		return false; // empty, sign, space, hex, inf, nan
	}
	errno = 0;
	char* end = NULL;
	double v = strtod(text, &end);
	if (errno == ERANGE || end == text || *end != '\0' || !(v > 0.0) || v > CLI_MAX_SECONDS) {
		return false;
	}
	*out = v;
	return true;
}

bool cli_steps_for_seconds(double seconds, float dt, uint64_t* steps, double* count)
{
	double q = seconds / (double)dt;
	double n = ceil(q - 1e-6 * q);
	*count = n;
	// Compared as a double, before any conversion; NaN fails too.
	if (!(n >= 1.0 && n <= (double)CLI_MAX_STEPS)) {
		return false;
	}
	*steps = (uint64_t)n;
	return true;
}

/// Applies one option with its value; returns false after printing why.
static bool apply_option(const char* name, const char* value, void* user)
{
	cli_run_args* out = user;
	if (strcmp(name, "--agents") == 0) {
		return opt_parse_u32(cli_program, name, value, 1, CLI_MAX_AGENTS, &out->agents);
	} else if (strcmp(name, "--steps") == 0) {
		if (!opt_parse_integer(cli_program, name, value, 0, CLI_MAX_STEPS, false, &out->steps)) {
			return false;
		}
		out->steps_set = true;
	} else if (strcmp(name, "--seconds") == 0) {
		if (!cli_parse_seconds(value, &out->seconds)) {
			cli_error("--seconds: expected a number of seconds above 0 and at most %g, got \"%.64s\"",
			          CLI_MAX_SECONDS, value);
			return false;
		}
		out->seconds_set = true;
	} else if (strcmp(name, "--seed") == 0) {
		out->seed_set = true;
		return opt_parse_integer(cli_program, name, value, 0, UINT64_MAX, true, &out->seed);
	} else if (strcmp(name, "--engine") == 0) {
		out->engine_set = true;
		return opt_parse_engine(cli_program, name, value, &out->engine);
	} else if (strcmp(name, "--checkpoint") == 0 || strcmp(name, "--resume") == 0) {
		// A checkpoint is a file read whole or replaced whole: no stream.
		if (value[0] == '\0' || throng_output_path_is_stdout(value) || strcmp(value, "/dev/stdin") == 0) {
			cli_error("%s: expected a file name, got \"%.64s\"", name, value);
			return false;
		}
		if (strcmp(name, "--checkpoint") == 0) {
			out->checkpoint = value;
		} else {
			out->resume = value;
		}
	} else if (strcmp(name, "--checkpoint-every") == 0) {
		return opt_parse_u32(cli_program, name, value, 1, CLI_MAX_STEPS, &out->checkpoint_every);
	} else if (strcmp(name, "--threads") == 0) {
		return opt_parse_u32(cli_program, name, value, 1, CLI_MAX_THREADS, &out->threads);
	} else if (strcmp(name, "--threads-policy") == 0) {
		if (!throng_threads_policy_from_name(value, &out->threads_policy)) {
			cli_error("--threads-policy: expected adapt or fixed, got \"%.64s\"", value);
			return false;
		}
	} else if (strcmp(name, "--metrics") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
			cli_error("--metrics: expected on or off, got \"%.64s\"", value);
			return false;
		}
		out->no_metrics = strcmp(value, "off") == 0;
	} else if (strcmp(name, "--out") == 0) {
		if (value[0] == '\0') {
			cli_error("--out: expected a file name or - (standard output), got an empty string");
			return false;
		}
		out->out = value;
	} else if (strcmp(name, "--format") == 0) {
		return opt_parse_format(cli_program, name, value, &out->format);
	} else if (strcmp(name, "--fields") == 0) {
		if (throng_fields_parse(value, &out->fields) != THRONG_OK) {
			cli_error("--fields: %s", throng_last_error());
			return false;
		}
	} else if (strcmp(name, "--every") == 0) {
		return opt_parse_u32(cli_program, name, value, 1, CLI_MAX_STEPS, &out->every);
	} else if (strcmp(name, "--shm-capacity") == 0) {
		return opt_parse_u32(cli_program, name, value, 1, CLI_MAX_FEED_AGENTS, &out->shm_capacity);
	} else if (strcmp(name, "--shm") == 0) {
		const char* bare = value[0] == '/' ? value + 1 : value;
		if (bare[0] == '\0' || strlen(bare) > 200 || strchr(bare, '/') != NULL || strcmp(bare, ".") == 0 ||
		    strcmp(bare, "..") == 0) {
			cli_error("--shm: expected a name of 1 to 200 characters without '/', not . or .. (e.g. crowd), got \"%.64s\"",
			          value);
			return false;
		}
		out->shm = value;
	} else { // --summary
		if (strcmp(value, "text") == 0) {
			out->summary = CLI_SUMMARY_TEXT;
		} else if (strcmp(value, "json") == 0) {
			out->summary = CLI_SUMMARY_JSON;
		} else {
			cli_error("--summary: expected text or json, got \"%.64s\"", value);
			return false;
		}
	}
	return true;
}

/// The checkpoint options that only make sense together.
static int check_checkpoint_options(const cli_run_args* out, bool every_set)
{
	if (every_set && out->checkpoint == NULL) {
		cli_error("--checkpoint-every: needs --checkpoint FILE (where the checkpoints go)");
		return CLI_EXIT_USAGE;
	}
	const char* same = out->out == NULL ? NULL
	                   : out->checkpoint != NULL && strcmp(out->out, out->checkpoint) == 0 ? "--checkpoint"
	                   : out->resume != NULL && strcmp(out->out, out->resume) == 0       ? "--resume"
	                                                                                      : NULL;
	if (same != NULL) {
		cli_error("--out: %s is the file of %s; give the frames another file", out->out, same);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

/// The output options that only make sense together.
static int check_output_options(cli_run_args* out, bool format_set, bool fields_set, bool every_set)
{
	if (out->shm_replace && out->shm == NULL) {
		cli_error("--shm-replace: needs --shm NAME (it replaces an existing object of that name)");
		return CLI_EXIT_USAGE;
	}
	if (out->shm_capacity != 0 && out->shm == NULL) {
		cli_error("--shm-capacity: needs --shm NAME (it sizes that live feed)");
		return CLI_EXIT_USAGE;
	}
	if (out->out == NULL && out->shm == NULL) {
		const char* lone = format_set ? "--format" : fields_set ? "--fields" : every_set ? "--every" : NULL;
		if (lone != NULL) {
			cli_error("%s: needs --out FILE (or --shm NAME) to say where frames go", lone);
			return CLI_EXIT_USAGE;
		}
		return CLI_EXIT_OK;
	}
	if (out->out == NULL) {
		if (format_set) {
			cli_error("--format: needs --out FILE (the live feed of --shm has one layout)");
			return CLI_EXIT_USAGE;
		}
		return CLI_EXIT_OK;
	}
	if (!format_set) {
		out->format = throng_format_from_path(out->out);
	}
	if (out->format == THRONG_FORMAT_SQLITE && strcmp(out->out, "-") == 0) {
		cli_error("--out -: SQLite cannot be written to standard output; give a file name");
		return CLI_EXIT_USAGE;
	}
	if (fields_set && out->shm == NULL &&
	    (out->format == THRONG_FORMAT_PED || out->format == THRONG_FORMAT_SQLITE)) {
		cli_error("--fields: the %s format has fixed columns (%s); --fields is for bin, csv and --shm",
		          throng_format_name(out->format),
		          out->format == THRONG_FORMAT_PED ? "id frame x y z" : "frame id pos_x pos_y ori_x ori_y");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int cli_parse_run(int argc, char** argv, int first, const char* usage, cli_run_args* out)
{
	static const char* const valued[] = {"--agents", "--steps",  "--seed",  "--engine", "--threads", "--threads-policy",
	                                     "--summary", "--metrics", "--out",   "--format", "--fields", "--every", "--shm", "--seconds",
	                                     "--checkpoint", "--checkpoint-every", "--resume", "--shm-capacity"};
	uint64_t seen = 0;
	const opt_spec spec = {cli_program, "run: ", "throng run --help", valued, sizeof valued / sizeof valued[0], &seen};
	memset(out, 0, sizeof *out);
	out->seed = 1;
	out->engine = THRONG_ENGINE_SIMD;
	out->summary = CLI_SUMMARY_TEXT;
	out->format = THRONG_FORMAT_AUTO;
	out->every = 1;
	const opt_flag flags[] = {{"--help", "-h", &out->help, true},
	                          {"--realtime", NULL, &out->realtime, true},
	                          {"--shm-replace", NULL, &out->shm_replace, true},
	                          {"--quiet", "-q", &out->quiet, true}};
	if (!opt_read(&spec, flags, sizeof flags / sizeof flags[0], argc, argv, first, &out->scenario, apply_option, out)) {
		return CLI_EXIT_USAGE;
	}
	// --format auto: as if not given
	bool format_set = opt_given(&spec, "--format") && out->format != THRONG_FORMAT_AUTO;
	bool fields_set = opt_given(&spec, "--fields"), every_set = opt_given(&spec, "--every");
	if (out->steps_set && out->seconds_set && !out->help) {
		cli_error("--seconds: give either --steps or --seconds, not both");
		return CLI_EXIT_USAGE;
	}
	if (out->help) {
		if (usage != NULL) {
			fputs(usage, stdout);
		}
		return CLI_EXIT_OK;
	}
	int rc = check_checkpoint_options(out, opt_given(&spec, "--checkpoint-every"));
	return rc != CLI_EXIT_OK ? rc : check_output_options(out, format_set, fields_set, every_set);
}
