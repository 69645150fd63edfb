// SPDX-License-Identifier: MIT
// `throng measure RUN`: measurement lines and areas (include/throng/measure.h)
// over a saved run, the binary stream that `throng run --out FILE` writes
// (docs/FORMAT.md). Every frame is fed to one measurement set, in order;
// the window (--from, --to) only selects what is reported.
#define _POSIX_C_SOURCE 200809L // strdup

#include "measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "opts.h"
#include "throng/export.h"
#include "throng/measure.h"

static const char usage_measure[] =
	"Usage: throng measure RUN [options]\n"
	"\n"
	"Measures a saved run (a binary stream written by throng run --out FILE;\n"
	"RUN - reads standard input) with lines and areas as PedPy defines them\n"
	"(docs/QUALITY.md, \"Measurement\"). At least one --line or area.\n"
	"\n"
	"Options (--name value or --name=value; --line and the areas repeat):\n"
	"  --line X0,Y0,X1,Y1   a measurement line from (X0,Y0) to (X1,Y1) (m):\n"
	"                       every crossing, counted to the left of the line's\n"
	"                       direction (+1) and to the right (-1), and the flow\n"
	"  --area X0,Y0,X1,Y1   a rectangular measurement area, corners (X0,Y0) and\n"
	"                       (X1,Y1): classic density and mean speed, Voronoi\n"
	"                       density and speed\n"
	"  --area-polygon X,Y,X,Y,...  a measurement area bounded by a simple polygon\n"
	"                       (3 vertices or more)\n"
	"  --from T, --to T     the window reported (s; default: the whole run)\n"
	"  --cutoff R           the Voronoi cells' cut-off radius (m, default 0.8)\n"
	"  --format F           text (default), json, or csv (every crossing and\n"
	"                       every sample, one a row: the N-t data and the time\n"
	"                       series)\n"
	"  -h, --help           this help\n"
	"\n"
	"Speeds come from the stream's velocities when it holds them (--fields\n"
	"velocity), else from the displacement between frames.\n";

typedef enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV } out_format;

/// One --line, --area or --area-polygon as given.
typedef struct geometry_arg {
	const char* option;
	const char* value;
	throng_vec2* pts;
	uint32_t n;
} geometry_arg;

typedef struct measure_args {
	const char* run;
	geometry_arg geo[CLI_MEASURE_MAX_GEOMETRY];
	uint32_t n_geo, n_lines, n_areas;
	bool has_from, has_to;
	double from, to;
	float cutoff;
	out_format format;
} measure_args;

/// A finite decimal number, the whole text.
static bool parse_double(const char* text, double* out)
{
	if (text == NULL || text[0] == '\0' || text[0] == ' ') {
		return false;
	}
	errno = 0;
	char* end = NULL;
	double v = strtod(text, &end);
	if (errno == ERANGE || end == text || *end != '\0' || !isfinite(v)) {
		return false;
	}
	// strtod reads hex and "inf"/"nan"; only plain decimals here.
	for (const char* p = text; *p != '\0'; ++p) {
		if (strchr("0123456789+-.eE", *p) == NULL) {
			return false;
		}
	}
	*out = v;
	return true;
}

/// "X,Y,X,Y,..." into points; false after printing what is wrong.
static bool parse_points(geometry_arg* g, uint32_t min_pts, uint32_t max_pts)
{
	uint32_t cap = max_pts * 2;
	double* v = malloc(cap * sizeof *v);
	char* copy = strdup(g->value);
	if (v == NULL || copy == NULL) {
		free(v);
		free(copy);
		cli_error("measure: out of memory");
		return false;
	}
	uint32_t n = 0;
	bool ok = true;
	char* p = copy;
	for (;;) {
		char* comma = strchr(p, ',');
		if (comma != NULL) {
			*comma = '\0';
		}
		if (n == cap) {
			cli_error("measure: %s %s: more than %u numbers", g->option, g->value, cap);
			ok = false;
			break;
		}
		double d = 0.0;
		if (!parse_double(p, &d) || fabs(d) > THRONG_MAX_COORD) {
			cli_error("measure: %s %s: number %u: expected a finite decimal number of at most 1e6 in magnitude, got \"%s\"",
			          g->option, g->value, n + 1, p);
			ok = false;
			break;
		}
		v[n++] = d;
		if (comma == NULL) {
			break;
		}
		p = comma + 1;
	}
	free(copy);
	if (ok && (n % 2 != 0 || n / 2 < min_pts || (max_pts == 2 && n != 4))) {
		if (max_pts == 2) {
			cli_error("measure: %s %s: expected 4 numbers X0,Y0,X1,Y1, got %u", g->option, g->value, n);
		} else {
			cli_error("measure: %s %s: expected pairs X,Y of at least %u points, got %u numbers", g->option, g->value,
			          min_pts, n);
		}
		ok = false;
	}
	if (ok) {
		g->n = n / 2;
		g->pts = malloc(g->n * sizeof *g->pts);
		if (g->pts == NULL) {
			cli_error("measure: out of memory");
			ok = false;
		} else {
			for (uint32_t k = 0; k < g->n; ++k) {
				g->pts[k] = (throng_vec2){(float)v[2 * k], (float)v[2 * k + 1]};
			}
		}
	}
	free(v);
	return ok;
}

/// Reads the command line; false after printing the mistake.
static bool read_args(int argc, char** argv, measure_args* a, bool* help)
{
	static const char* const single[] = {"--from", "--to", "--format", "--cutoff"};
	bool seen[4] = {false, false, false, false};
	for (int k = 2; k < argc; ++k) {
		const char* arg = argv[k];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			*help = true;
			return true;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			if (a->run != NULL) {
				cli_error("measure: one run only (got \"%s\" and \"%s\"); see throng measure --help", a->run, arg);
				return false;
			}
			a->run = arg;
			continue;
		}
		const char* eq = strchr(arg, '=');
		size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
		const char* value = eq != NULL ? eq + 1 : NULL;
		const char* name = NULL;
		static const char* const all[] = {"--line", "--area", "--area-polygon", "--from", "--to", "--format", "--cutoff"};
		for (size_t n = 0; n < sizeof all / sizeof all[0]; ++n) {
			if (strlen(all[n]) == len && strncmp(arg, all[n], len) == 0) {
				name = all[n];
			}
		}
		if (name == NULL) {
			cli_error("measure: unknown option \"%.*s\" (see throng measure --help)", (int)len, arg);
			return false;
		}
		if (value == NULL) {
			if (k + 1 >= argc || (argv[k + 1][0] == '-' && argv[k + 1][1] != '\0' &&
			                      (argv[k + 1][1] == '-' || (argv[k + 1][1] >= 'a' && argv[k + 1][1] <= 'z') ||
			                       (argv[k + 1][1] >= 'A' && argv[k + 1][1] <= 'Z')))) {
				cli_error("measure: %s: missing its value", name);
				return false;
			}
			value = argv[++k];
		}
		for (size_t n = 0; n < 4; ++n) {
			if (strcmp(name, single[n]) == 0) {
				if (seen[n]) {
					cli_error("measure: %s: given twice", name);
					return false;
				}
				seen[n] = true;
			}
		}
		if (strcmp(name, "--line") == 0 || strcmp(name, "--area") == 0 || strcmp(name, "--area-polygon") == 0) {
			bool line = strcmp(name, "--line") == 0;
			if ((line && a->n_lines == THRONG_MEASURE_MAX_LINES) || (!line && a->n_areas == THRONG_MEASURE_MAX_AREAS)) {
				cli_error("measure: %s: at most %d", name, line ? THRONG_MEASURE_MAX_LINES : THRONG_MEASURE_MAX_AREAS);
				return false;
			}
			geometry_arg* g = &a->geo[a->n_geo++];
			g->option = name;
			g->value = value;
			bool poly = strcmp(name, "--area-polygon") == 0;
			if (!parse_points(g, poly ? 3 : 2, poly ? THRONG_MEASURE_MAX_VERTICES : 2)) {
				return false;
			}
			a->n_lines += line;
			a->n_areas += !line;
		} else if (strcmp(name, "--from") == 0 || strcmp(name, "--to") == 0) {
			double t = 0.0;
			if (!parse_double(value, &t)) {
				cli_error("measure: %s: expected a finite number of seconds, got \"%s\"", name, value);
				return false;
			}
			if (name[2] == 'f') {
				a->from = t;
				a->has_from = true;
			} else {
				a->to = t;
				a->has_to = true;
			}
		} else if (strcmp(name, "--cutoff") == 0) {
			double r = 0.0;
			if (!parse_double(value, &r) || r < 1e-3 || r > 1e6) {
				cli_error("measure: --cutoff: expected a radius from 0.001 to 1e6 m, got \"%s\"", value);
				return false;
			}
			a->cutoff = (float)r;
		} else {
			if (strcmp(value, "text") == 0) {
				a->format = OUT_TEXT;
			} else if (strcmp(value, "json") == 0) {
				a->format = OUT_JSON;
			} else if (strcmp(value, "csv") == 0) {
				a->format = OUT_CSV;
			} else {
				cli_error("measure: --format: expected text, json or csv, got \"%s\"", value);
				return false;
			}
		}
	}
	if (a->run == NULL) {
		cli_error("measure: missing RUN (a stream written by throng run --out FILE); see throng measure --help");
		return false;
	}
	if (a->n_geo == 0) {
		cli_error("measure: nothing to measure: give --line, --area or --area-polygon");
		return false;
	}
	if (a->has_from && a->has_to && !(a->to > a->from)) {
		cli_error("measure: --to: must be after --from (got --from %g --to %g)", a->from, a->to);
		return false;
	}
	return true;
}

/// The library's message without its function's name.
static const char* lib_message(void)
{
	const char* e = throng_last_error();
	const char* colon = strstr(e, ": ");
	return colon != NULL ? colon + 2 : e;
}

/// The set with the run's bounds and every line and area; NULL after
/// printing what is wrong.
static throng_measure* make_set(const measure_args* a, const throng_stream_info* info)
{
	throng_measure_def def = throng_measure_default_def();
	def.cutoff_radius = a->cutoff;
	if (info->bounds_mode != THRONG_BOUNDS_OPEN) {
		def.bounds_min = info->bounds_min;
		def.bounds_max = info->bounds_max;
		def.wrap = info->bounds_mode == THRONG_BOUNDS_WRAP;
	}
	throng_measure* m = NULL;
	if (throng_measure_create(&def, &m) != THRONG_OK) {
		cli_error("measure: %s: %s", a->run, lib_message());
		return NULL;
	}
	for (uint32_t k = 0; k < a->n_geo; ++k) {
		const geometry_arg* g = &a->geo[k];
		throng_status st;
		if (strcmp(g->option, "--line") == 0) {
			st = throng_measure_add_line(m, g->pts[0], g->pts[1], NULL);
		} else if (strcmp(g->option, "--area") == 0) {
			throng_vec2 lo = {fminf(g->pts[0].x, g->pts[1].x), fminf(g->pts[0].y, g->pts[1].y)};
			throng_vec2 hi = {fmaxf(g->pts[0].x, g->pts[1].x), fmaxf(g->pts[0].y, g->pts[1].y)};
			st = throng_measure_add_rect(m, lo, hi, NULL);
		} else {
			st = throng_measure_add_area(m, g->pts, g->n, NULL);
		}
		if (st != THRONG_OK) {
			cli_error("measure: %s %s: %s", g->option, g->value, lib_message());
			throng_measure_destroy(m);
			return NULL;
		}
	}
	return m;
}

/// Feeds every frame of the stream; the first and last times into *t0, *t1.
static int feed_run(throng_stream_reader* r, throng_measure* m, const char* run, double* t0, double* t1)
{
	uint64_t frames = 0;
	int rc = CLI_EXIT_OK;
	for (;;) {
		throng_frame fr;
		bool got = false;
		if (throng_stream_read_frame(r, &fr, &got) != THRONG_OK) {
			cli_error("measure: %s: %s", run, throng_last_error());
			rc = CLI_EXIT_INPUT;
			break;
		}
		if (!got) {
			break;
		}
		if (fr.x == NULL || fr.y == NULL) {
			cli_error("measure: %s: the stream holds no positions (fields x and y)", run);
			rc = CLI_EXIT_INPUT;
			break;
		}
		bool vel = fr.vx != NULL && fr.vy != NULL;
		// The agents present in this frame, by id: in a stream of agents
		// that come and go, each is measured on the frames it is in.
		throng_measure_state s = {fr.time, fr.count, fr.id, fr.x, fr.y, vel ? fr.vx : NULL, vel ? fr.vy : NULL};
		if (throng_measure_feed(m, &s) != THRONG_OK) {
			cli_error("measure: %s: frame %llu: %s", run, (unsigned long long)fr.index, lib_message());
			rc = strstr(throng_last_error(), "out of memory") != NULL ? CLI_EXIT_FAILURE : CLI_EXIT_INPUT;
			break;
		}
		*t1 = fr.time;
		if (frames++ == 0) {
			*t0 = fr.time;
		}
	}
	if (rc == CLI_EXIT_OK && frames == 0) {
		cli_error("measure: %s: the run holds no frame", run);
		rc = CLI_EXIT_INPUT;
	}
	return rc;
}

int cli_measure(int argc, char** argv)
{
	measure_args a;
	memset(&a, 0, sizeof a);
	bool help = false;
	int rc = CLI_EXIT_USAGE;
	throng_stream_reader* r = NULL;
	throng_measure* m = NULL;
	if (!read_args(argc, argv, &a, &help)) {
		goto done;
	}
	if (help) {
		fputs(usage_measure, stdout);
		rc = CLI_EXIT_OK;
		goto done;
	}
	if (throng_stream_open(a.run, &r) != THRONG_OK) {
		cli_error("measure: %s", throng_last_error());
		rc = CLI_EXIT_INPUT;
		goto done;
	}
	m = make_set(&a, throng_stream_get_info(r));
	if (m == NULL) {
		goto done;
	}
	double t0 = 0.0, t1 = 0.0;
	rc = feed_run(r, m, a.run, &t0, &t1);
	if (rc != CLI_EXIT_OK) {
		goto done;
	}
	cli_measure_report rep;
	memset(&rep, 0, sizeof rep);
	rep.run = a.run;
	rep.m = m;
	rep.from = a.has_from ? a.from : t0;
	rep.to = a.has_to ? a.to : t1;
	rep.n = a.n_geo;
	for (uint32_t k = 0; k < a.n_geo; ++k) {
		rep.geometry[k] = a.geo[k].value;
		rep.option[k] = a.geo[k].option;
	}
	if ((a.has_from || a.has_to) && !(rep.to > rep.from)) {
		cli_error("measure: --%s: the window [%g, %g] s is empty (the run covers [%g, %g] s)",
		          a.has_from ? "from" : "to", rep.from, rep.to, t0, t1);
		rc = CLI_EXIT_USAGE;
		goto done;
	}
	rc = a.format == OUT_JSON  ? cli_measure_print_json(stdout, &rep)
	     : a.format == OUT_CSV ? cli_measure_print_csv(stdout, &rep)
	                           : cli_measure_print_text(stdout, &rep);
done:
	throng_measure_destroy(m);
	throng_stream_reader_destroy(r);
	for (uint32_t k = 0; k < a.n_geo; ++k) {
		free(a.geo[k].pts);
	}
	return rc;
}
