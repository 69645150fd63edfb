// SPDX-License-Identifier: MIT
// The run summary: measured from the world at the end, printed as aligned
// text or as one JSON object. Both printers walk the same field list, so
// the two formats always hold the same keys in the same order.
#include "summary.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

throng_status cli_summary_measure(throng_scene* scene, cli_summary* s)
{
	throng_world* world = throng_scene_world(scene);
	throng_world_def def = throng_world_get_def(world);
	throng_world_stats stats = throng_world_get_stats(world);
	s->agents = throng_world_agent_count(world);
	s->hash = throng_world_hash(world);
	s->overlaps = throng_world_count_overlaps(world);
	s->max_speed_ratio = (double)stats.max_speed_ratio;
	s->nonfinite = stats.nonfinite;
	s->clamped = stats.clamped;
	s->simulated_seconds = (double)stats.steps * (double)def.dt;
	s->out_of_bounds = 0;
	s->reached = 0;

	bool contained = def.bounds_mode == THRONG_BOUNDS_CONTAIN;
	float goal = throng_scene_goal_radius(scene);
	if (!contained && !(goal > 0.0f)) {
		return THRONG_OK;
	}
	throng_view view = throng_world_view(world);
	for (uint32_t k = 0; k < view.count; ++k) {
		throng_agent_state a;
		throng_status st = throng_world_get_agent(world, view.id[k], &a);
		if (st != THRONG_OK) {
			return st;
		}
		if (contained) {
			float r = a.radius;
			bool inside = a.position.x >= def.bounds_min.x + r && a.position.x <= def.bounds_max.x - r &&
			              a.position.y >= def.bounds_min.y + r && a.position.y <= def.bounds_max.y - r;
			// A NaN position fails every comparison and counts as outside.
			s->out_of_bounds += inside ? 0u : 1u;
		}
		if (goal > 0.0f) {
			double dx = (double)a.position.x - (double)a.target.x;
			double dy = (double)a.position.y - (double)a.target.y;
			s->reached += sqrt(dx * dx + dy * dy) <= (double)goal ? 1u : 0u;
		}
	}
	return THRONG_OK;
}

void cli_summary_finish(cli_summary* s)
{
	double work = (double)s->agents * (double)s->steps;
	s->agent_steps_per_s = s->seconds > 0.0 ? work / s->seconds : 0.0;
}

typedef enum field_kind { FIELD_STR, FIELD_U64, FIELD_F64, FIELD_HEX } field_kind;

typedef struct field {
	const char* key;
	field_kind kind;
	const char* str;
	uint64_t u64;
	double f64;
} field;

enum { FIELD_COUNT = 16 };

static void make_fields(const cli_summary* s, field f[FIELD_COUNT])
{
	const field list[FIELD_COUNT] = {
		{"scenario", FIELD_STR, s->scenario, 0, 0.0},
		{"agents", FIELD_U64, NULL, s->agents, 0.0},
		{"steps", FIELD_U64, NULL, s->steps, 0.0},
		{"seed", FIELD_U64, NULL, s->seed, 0.0},
		{"engine", FIELD_STR, s->engine, 0, 0.0},
		{"threads", FIELD_U64, NULL, s->threads, 0.0},
		{"seconds", FIELD_F64, NULL, 0, s->seconds},
		{"agent_steps_per_s", FIELD_F64, NULL, 0, s->agent_steps_per_s},
		{"simulated_seconds", FIELD_F64, NULL, 0, s->simulated_seconds},
		{"hash", FIELD_HEX, NULL, s->hash, 0.0},
		{"overlaps", FIELD_U64, NULL, s->overlaps, 0.0},
		{"max_speed_ratio", FIELD_F64, NULL, 0, s->max_speed_ratio},
		{"nonfinite", FIELD_U64, NULL, s->nonfinite, 0.0},
		{"clamped", FIELD_U64, NULL, s->clamped, 0.0},
		{"out_of_bounds", FIELD_U64, NULL, s->out_of_bounds, 0.0},
		{"reached", FIELD_U64, NULL, s->reached, 0.0},
	};
	memcpy(f, list, sizeof list);
}

void cli_summary_print_text(FILE* out, const cli_summary* s)
{
	field f[FIELD_COUNT];
	make_fields(s, f);
	int width = 0;
	for (int k = 0; k < FIELD_COUNT; ++k) {
		int len = (int)strlen(f[k].key) + 1;
		width = len > width ? len : width;
	}
	for (int k = 0; k < FIELD_COUNT; ++k) {
		fprintf(out, "%s:%*s ", f[k].key, width - (int)strlen(f[k].key) - 1, "");
		switch (f[k].kind) {
		case FIELD_STR: fprintf(out, "%s\n", f[k].str != NULL ? f[k].str : ""); break;
		case FIELD_U64: fprintf(out, "%" PRIu64 "\n", f[k].u64); break;
		case FIELD_F64: fprintf(out, "%.9g\n", f[k].f64); break;
		case FIELD_HEX: fprintf(out, "%016" PRIx64 "\n", f[k].u64); break;
		}
	}
}

/// Writes s as a JSON string literal: quotes, backslashes and control
/// characters escaped; other bytes (UTF-8 included) pass through.
static void json_string(FILE* out, const char* s)
{
	fputc('"', out);
	for (const unsigned char* p = (const unsigned char*)(s != NULL ? s : ""); *p != '\0'; ++p) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20) {
				fprintf(out, "\\u%04x", (unsigned)*p);
			} else {
				fputc(*p, out);
			}
		}
	}
	fputc('"', out);
}

void cli_summary_print_json(FILE* out, const cli_summary* s)
{
	field f[FIELD_COUNT];
	make_fields(s, f);
	fputs("{\n", out);
	for (int k = 0; k < FIELD_COUNT; ++k) {
		fputs("  ", out);
		json_string(out, f[k].key);
		fputs(": ", out);
		switch (f[k].kind) {
		case FIELD_STR: json_string(out, f[k].str); break;
		case FIELD_U64: fprintf(out, "%" PRIu64, f[k].u64); break;
		case FIELD_F64:
			// JSON has no NaN or infinity.
			if (isfinite(f[k].f64)) {
				fprintf(out, "%.9g", f[k].f64);
			} else {
				fputs("null", out);
			}
			break;
		case FIELD_HEX: fprintf(out, "\"%016" PRIx64 "\"", f[k].u64); break;
		}
		fputs(k + 1 < FIELD_COUNT ? ",\n" : "\n", out);
	}
	fputs("}\n", out);
}
