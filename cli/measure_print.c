// SPDX-License-Identifier: MIT
// The reports of `throng measure` (cli/measure.h): text, JSON and CSV.
// Numbers print with 9 significant digits (%.9g).
#include <string.h>

#include "args.h"
#include "measure.h"
#include "opts.h"

/// Line k's flow over the window; all zero for a window of no length (a
/// run of one frame).
static bool line_flow(const cli_measure_report* rep, uint32_t line, throng_line_flow* f)
{
	memset(f, 0, sizeof *f);
	f->t0 = rep->from;
	f->t1 = rep->to;
	if (!(rep->to > rep->from)) {
		return true;
	}
	if (throng_measure_line_flow(rep->m, line, rep->from, rep->to, f) != THRONG_OK) {
		cli_error("measure: %s", throng_last_error());
		return false;
	}
	return true;
}

static bool area_means(const cli_measure_report* rep, uint32_t area, throng_area_means* a)
{
	if (throng_measure_area_means(rep->m, area, rep->from, rep->to, a) != THRONG_OK) {
		cli_error("measure: %s", throng_last_error());
		return false;
	}
	return true;
}

static bool is_line(const cli_measure_report* rep, uint32_t k) { return strcmp(rep->option[k], "--line") == 0; }

int cli_measure_print_text(FILE* f, const cli_measure_report* rep)
{
	fprintf(f, "run: %s\n", rep->run);
	fprintf(f, "window: %.9g s to %.9g s (%llu states in the run)\n", rep->from, rep->to,
	        (unsigned long long)throng_measure_states(rep->m));
	uint32_t line = 0, area = 0;
	for (uint32_t k = 0; k < rep->n; ++k) {
		if (is_line(rep, k)) {
			throng_line_flow fl;
			if (!line_flow(rep, line, &fl)) {
				return CLI_EXIT_FAILURE;
			}
			fprintf(f, "line %u (%s %s): crossings left %llu, right %llu, first passings %llu\n", line, rep->option[k],
			        rep->geometry[k], (unsigned long long)fl.left, (unsigned long long)fl.right,
			        (unsigned long long)fl.first_passings);
			fprintf(f, "  flow (1/s): left %.9g, right %.9g, total %.9g, net %.9g\n", fl.flow_left, fl.flow_right,
			        fl.flow_total, fl.flow_net);
			line++;
		} else {
			throng_area_means am;
			if (!area_means(rep, area, &am)) {
				return CLI_EXIT_FAILURE;
			}
			fprintf(f, "area %u (%s %s): %.9g m^2, %llu samples\n", area, rep->option[k], rep->geometry[k],
			        throng_measure_area_size(rep->m, area), (unsigned long long)am.samples);
			fprintf(f, "  density %.9g /m^2, mean speed %.9g m/s, Voronoi density %.9g /m^2, Voronoi speed %.9g m/s\n",
			        am.density, am.mean_speed, am.voronoi_density, am.voronoi_speed);
			area++;
		}
	}
	return CLI_EXIT_OK;
}

/// `s` as a JSON string (the geometry and the path as given).
static void json_string(FILE* f, const char* s)
{
	fputc('"', f);
	for (; *s != '\0'; ++s) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
	}
	fputc('"', f);
}

int cli_measure_print_json(FILE* f, const cli_measure_report* rep)
{
	fputs("{\n  \"run\": ", f);
	json_string(f, rep->run);
	fprintf(f, ",\n  \"from\": %.9g,\n  \"to\": %.9g,\n  \"states\": %llu,\n  \"lines\": [", rep->from, rep->to,
	        (unsigned long long)throng_measure_states(rep->m));
	uint32_t line = 0;
	for (uint32_t k = 0; k < rep->n; ++k) {
		if (!is_line(rep, k)) {
			continue;
		}
		throng_line_flow fl;
		if (!line_flow(rep, line, &fl)) {
			return CLI_EXIT_FAILURE;
		}
		fprintf(f, "%s\n    {\"line\": ", line > 0 ? "," : "");
		json_string(f, rep->geometry[k]);
		fprintf(f,
		        ", \"left\": %llu, \"right\": %llu, \"first_passings\": %llu, \"flow_left\": %.9g, \"flow_right\": "
		        "%.9g, \"flow_total\": %.9g, \"flow_net\": %.9g,\n     \"crossings\": [",
		        (unsigned long long)fl.left, (unsigned long long)fl.right, (unsigned long long)fl.first_passings,
		        fl.flow_left, fl.flow_right, fl.flow_total, fl.flow_net);
		const throng_crossing* c = NULL;
		size_t n = 0;
		throng_measure_line_crossings(rep->m, line, &c, &n);
		bool first = true;
		for (size_t j = 0; j < n; ++j) {
			if (c[j].time < rep->from || !(c[j].time < rep->to)) {
				continue;
			}
			fprintf(f, "%s{\"time\": %.9g, \"id\": %u, \"direction\": %d}", first ? "" : ", ", c[j].time, c[j].id,
			        c[j].direction);
			first = false;
		}
		fputs("]}", f);
		line++;
	}
	fputs(line > 0 ? "\n  ],\n  \"areas\": [" : "],\n  \"areas\": [", f);
	uint32_t area = 0;
	for (uint32_t k = 0; k < rep->n; ++k) {
		if (is_line(rep, k)) {
			continue;
		}
		throng_area_means am;
		if (!area_means(rep, area, &am)) {
			return CLI_EXIT_FAILURE;
		}
		fprintf(f, "%s\n    {\"%s\": ", area > 0 ? "," : "", strcmp(rep->option[k], "--area") == 0 ? "area" : "polygon");
		json_string(f, rep->geometry[k]);
		fprintf(f,
		        ", \"size\": %.9g, \"samples\": %llu, \"density\": %.9g, \"mean_speed\": %.9g, \"voronoi_density\": "
		        "%.9g, \"voronoi_speed\": %.9g}",
		        throng_measure_area_size(rep->m, area), (unsigned long long)am.samples, am.density, am.mean_speed,
		        am.voronoi_density, am.voronoi_speed);
		area++;
	}
	fputs(area > 0 ? "\n  ]\n}\n" : "]\n}\n", f);
	return CLI_EXIT_OK;
}

int cli_measure_print_csv(FILE* f, const cli_measure_report* rep)
{
	// One table: a crossing (the N-t data) or an area's sample a row, in the
	// window, lines then areas, each in time order; cumulative is the
	// line's crossings so far in the window, both directions.
	fputs("record,index,time,id,direction,cumulative,inside,density,mean_speed,voronoi_density,voronoi_speed\n", f);
	uint32_t nl = throng_measure_line_count(rep->m), na = throng_measure_area_count(rep->m);
	for (uint32_t l = 0; l < nl; ++l) {
		const throng_crossing* c = NULL;
		size_t n = 0;
		throng_measure_line_crossings(rep->m, l, &c, &n);
		uint64_t cum = 0;
		for (size_t j = 0; j < n; ++j) {
			if (c[j].time < rep->from || !(c[j].time < rep->to)) {
				continue;
			}
			fprintf(f, "crossing,%u,%.9g,%u,%d,%llu,,,,,\n", l, c[j].time, c[j].id, c[j].direction,
			        (unsigned long long)++cum);
		}
	}
	for (uint32_t a = 0; a < na; ++a) {
		const throng_area_sample* s = NULL;
		size_t n = 0;
		throng_measure_area_samples(rep->m, a, &s, &n);
		for (size_t j = 0; j < n; ++j) {
			if (s[j].time < rep->from || s[j].time > rep->to) {
				continue;
			}
			fprintf(f, "sample,%u,%.9g,,,,%u,%.9g,", a, s[j].time, s[j].inside, s[j].density);
			if (s[j].with_speed > 0) {
				fprintf(f, "%.9g,%.9g,%.9g\n", s[j].mean_speed, s[j].voronoi_density, s[j].voronoi_speed);
			} else {
				fprintf(f, ",%.9g,\n", s[j].voronoi_density);
			}
		}
	}
	return CLI_EXIT_OK;
}
