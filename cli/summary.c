// SPDX-License-Identifier: MIT
// The run summary: measured from the world at the end, printed as aligned
// text or as one JSON object. Both printers walk the same field list, so
// the two formats always hold the same keys in the same order.
#include "summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Whether each archetype of `world` has combat, as a malloc'd array of
/// one byte an archetype; NULL when none has (or out of memory: the
/// summary then counts no sides).
static uint8_t* combat_archetypes(const throng_world* world)
{
	const uint32_t n = throng_world_archetype_count(world);
	uint8_t* fights = n > 0 ? malloc(n) : NULL;
	bool any = false;
	for (uint32_t a = 0; fights != NULL && a < n; ++a) {
		throng_controller c;
		fights[a] = throng_world_get_controller(world, a, &c) == THRONG_OK && c.combat.enabled;
		any = any || fights[a];
	}
	if (!any) {
		free(fights);
		return NULL;
	}
	return fights;
}

/// The side (index into s->sides) of label `label`, or -1.
static int side_of(const cli_summary* s, uint32_t label)
{
	for (uint32_t k = 0; k < s->side_count; ++k) {
		if (s->sides[k].label == label) {
			return (int)k;
		}
	}
	return -1;
}

/// Notes the labels of the agents with combat, the smallest
/// CLI_SUMMARY_MAX_SIDES in increasing order, and counts each side's
/// agents into `start` (at the beginning) or `left` and `standing` (at
/// the end; standing: not routing).
static void count_sides(cli_summary* s, const throng_world* world, bool at_start)
{
	uint8_t* fights = combat_archetypes(world);
	if (fights == NULL) {
		return;
	}
	const throng_view v = throng_world_view(world);
	for (uint32_t k = 0; at_start && k < v.count; ++k) {
		const uint32_t label = v.group[k];
		if (!fights[v.archetype[k]] || side_of(s, label) >= 0) {
			continue;
		}
		uint32_t at = s->side_count;
		while (at > 0 && s->sides[at - 1].label > label) {
			--at; // sorted by label
		}
		if (at == CLI_SUMMARY_MAX_SIDES) {
			s->sides_capped = true;
			continue;
		}
		s->sides_capped |= s->side_count == CLI_SUMMARY_MAX_SIDES;
		const uint32_t keep = s->side_count < CLI_SUMMARY_MAX_SIDES ? s->side_count : CLI_SUMMARY_MAX_SIDES - 1;
		memmove(&s->sides[at + 1], &s->sides[at], (keep - at) * sizeof s->sides[0]);
		s->side_count = keep + 1;
		s->sides[at].label = label;
		s->sides[at].start = s->sides[at].left = 0;
		snprintf(s->sides[at].key, sizeof s->sides[at].key, "survivors_%u", label);
	}
	for (uint32_t k = 0; k < v.count; ++k) {
		const int side = fights[v.archetype[k]] ? side_of(s, v.group[k]) : -1;
		if (side >= 0 && at_start) {
			s->sides[side].start++;
		} else if (side >= 0) {
			s->sides[side].left++;
			s->sides[side].standing += (v.combat_state[k] & THRONG_COMBAT_ROUTING) == 0;
		}
	}
	free(fights);
}

/// The units that routed (at least once) and the time of the first rout.
static void count_routs(cli_summary* s, const throng_world* world)
{
	const uint32_t n = throng_world_unit_count(world);
	const double dt = (double)throng_world_get_def(world).dt;
	s->units = n;
	s->routed_units = 0;
	s->first_rout_s = NAN;
	for (uint32_t u = 0; u < n; ++u) {
		throng_unit_state us;
		if (throng_world_get_unit(world, u, &us) != THRONG_OK || us.routed_step == UINT64_MAX) {
			continue;
		}
		s->routed_units++;
		const double t = (double)us.routed_step * dt;
		s->first_rout_s = isnan(s->first_rout_s) || t < s->first_rout_s ? t : s->first_rout_s;
	}
}

void cli_summary_begin(cli_summary* s, const throng_world* world)
{
	memset(s, 0, sizeof *s);
	s->began = true;
	s->agents_start = throng_world_agent_count(world);
	s->stats_start = throng_world_get_stats(world);
	count_sides(s, world, true);
}

/// Each side's survivors at the end of a battle, and its winner: the one
/// side with any standing, alive and not routing ("none" when no side
/// has, "undecided" when two or more have).
static void count_survivors(cli_summary* s, const throng_world* world)
{
	if (s->side_count == 0) {
		return;
	}
	uint32_t standing = 0, last = 0;
	for (uint32_t k = 0; k < s->side_count; ++k) {
		s->sides[k].left = s->sides[k].standing = 0;
	}
	count_sides(s, world, false);
	count_routs(s, world);
	for (uint32_t k = 0; k < s->side_count; ++k) {
		if (s->sides[k].standing > 0) {
			++standing;
			last = s->sides[k].label;
		}
	}
	if (standing == 1) {
		snprintf(s->winner, sizeof s->winner, "%u", last);
	} else {
		snprintf(s->winner, sizeof s->winner, "%s", standing == 0 ? "none" : "undecided");
	}
}

/// The crowd's figures over the run (cli_summary.agents_start and on).
static void crowd(const throng_world_stats* stats, cli_summary* s)
{
	s->agents_final = s->agents;
	if (!s->began) {
		s->agents_start = s->agents_peak = s->agents;
		s->agents_added = s->agents_removed = 0;
		return;
	}
	s->agents_added = stats->agents_added - s->stats_start.agents_added;
	s->agents_removed = stats->agents_removed - s->stats_start.agents_removed;
	s->agents_peak = stats->agents_peak > s->agents_start ? stats->agents_peak : s->agents_start;
}

throng_status cli_summary_measure(throng_scene* scene, const throng_quality* quality, cli_summary* s)
{
	throng_world* world = throng_scene_world(scene);
	throng_world_def def = throng_world_get_def(world);
	throng_world_stats stats = throng_world_get_stats(world);
	s->agents = throng_world_agent_count(world);
	crowd(&stats, s);
	// The seed the world was built with: a file's world.seed unless --seed
	// replaced it (never the command line's default 1 over the file's).
	s->seed = def.seed;
	s->hash = throng_world_hash(world);
	throng_status st = throng_world_overlap_stats(world, &s->overlaps, NULL);
	if (st != THRONG_OK) {
		return st;
	}
	s->clamped = stats.clamped;
	s->simulated_seconds = (double)stats.steps * (double)def.dt;
	s->metrics = quality != NULL;
	if (quality != NULL) {
		s->quality = *quality;
		s->max_speed_ratio = s->quality.max_speed_ratio;
		s->nonfinite = s->quality.nonfinite;
		s->out_of_bounds = s->quality.out_of_bounds;
		s->reached = s->quality.reached;
	} else {
		memset(&s->quality, 0, sizeof s->quality);
		s->max_speed_ratio = (double)stats.max_speed_ratio;
		s->nonfinite = stats.nonfinite;
	}
	s->outcome_count = throng_scene_outcomes(scene, s->outcomes, THRONG_MAX_OUTCOMES);
	s->outcome_count = s->outcome_count < THRONG_MAX_OUTCOMES ? s->outcome_count : THRONG_MAX_OUTCOMES;
	count_survivors(s, world);
	return THRONG_OK;
}

void cli_summary_finish(cli_summary* s)
{
	// The agents stepped: agents x steps while nobody came or went.
	const bool churn = s->agents_added > 0 || s->agents_removed > 0;
	double work = (double)s->agents * (double)s->steps;
	if (churn) {
		work = s->metrics ? (double)s->quality.agent_steps
		                  : 0.5 * ((double)s->agents_start + (double)s->agents_final) * (double)s->steps;
	}
	// Throughput of the simulation itself: the loop's time less what the
	// quality metrics and the outputs took (both reported on their own).
	double stepping = s->seconds - s->output_seconds - s->metrics_seconds - s->measure_seconds;
	s->agent_steps_per_s = stepping > 0.0 ? work / stepping : 0.0;
}

typedef enum field_kind { FIELD_STR, FIELD_U64, FIELD_F64, FIELD_HEX } field_kind;

typedef struct field {
	const char* key;
	field_kind kind;
	const char* str;
	uint64_t u64;
	double f64;
	bool metrics; ///< given only by the quality metrics: left out with --metrics off
} field;

enum {
	FIELD_BASE = 39,
	FIELD_MAX = FIELD_BASE + THRONG_MAX_OUTCOMES + CLI_SUMMARY_MAX_SIDES + 1 + 2 + 1 + CLI_SUMMARY_MAX_MEASURES + 2 + 11
};

/// Fills f with the summary's fields; returns how many.
static int make_fields(const cli_summary* s, field f[FIELD_MAX])
{
	const throng_quality* q = &s->quality;
	// A figure with no value yet (nobody has reached a goal, no time to
	// divide by) is NAN here: "none" in text, null in JSON, never a 0
	// that reads as a measurement.
	const double rate = s->agent_steps_per_s > 0.0 ? s->agent_steps_per_s : NAN;
	const double mean_time = q->reached > 0 ? q->mean_time_to_goal : NAN;
	const double max_time = q->reached > 0 ? q->max_time_to_goal : NAN;
	const double ratio = q->path_length_ratio > 0.0 ? q->path_length_ratio : NAN; // 0: no reached agent counted
	const field list[FIELD_BASE] = {
		{"scenario", FIELD_STR, s->scenario, 0, 0.0, false},
		{"agents", FIELD_U64, NULL, s->agents, 0.0, false},
		{"agents_start", FIELD_U64, NULL, s->agents_start, 0.0, false},
		{"agents_added", FIELD_U64, NULL, s->agents_added, 0.0, false},
		{"agents_removed", FIELD_U64, NULL, s->agents_removed, 0.0, false},
		{"agents_peak", FIELD_U64, NULL, s->agents_peak, 0.0, false},
		{"agents_final", FIELD_U64, NULL, s->agents_final, 0.0, false},
		{"steps", FIELD_U64, NULL, s->steps, 0.0, false},
		{"seed", FIELD_U64, NULL, s->seed, 0.0, false},
		{"engine", FIELD_STR, s->engine, 0, 0.0, false},
		{"threads", FIELD_U64, NULL, s->threads, 0.0, false},
		{"threads_policy", FIELD_STR, s->threads_policy, 0, 0.0, false},
		{"steps_one_thread", FIELD_U64, NULL, s->steps_one_thread, 0.0, false},
		{"seconds", FIELD_F64, NULL, 0, s->seconds, false},
		{"agent_steps_per_s", FIELD_F64, NULL, 0, rate, false},
		{"simulated_seconds", FIELD_F64, NULL, 0, s->simulated_seconds, false},
		{"hash", FIELD_HEX, NULL, s->hash, 0.0, false},
		{"overlaps", FIELD_U64, NULL, s->overlaps, 0.0, false},
		{"max_speed_ratio", FIELD_F64, NULL, 0, s->max_speed_ratio, false},
		{"nonfinite", FIELD_U64, NULL, s->nonfinite, 0.0, false},
		{"clamped", FIELD_U64, NULL, s->clamped, 0.0, false},
		{"out_of_bounds", FIELD_U64, NULL, s->out_of_bounds, 0.0, true},
		{"reached", FIELD_U64, NULL, s->reached, 0.0, true},
		{"frames", FIELD_U64, NULL, s->frames, 0.0, false},
		{"output_seconds", FIELD_F64, NULL, 0, s->output_seconds, false},
		{"metrics_seconds", FIELD_F64, NULL, 0, s->metrics_seconds, true},
		{"overlaps_per_agent_step", FIELD_F64, NULL, 0, q->overlaps_per_agent_step, true},
		{"deepest_overlap", FIELD_F64, NULL, 0, q->deepest_overlap, true},
		{"overlap_capped", FIELD_U64, NULL, q->overlap_capped, 0.0, true},
		{"wall_crossings", FIELD_U64, NULL, q->wall_crossings, 0.0, true},
		{"wall_penetrations", FIELD_U64, NULL, q->wall_penetrations, 0.0, true},
		{"obstacle_penetrations", FIELD_U64, NULL, q->obstacle_penetrations, 0.0, true},
		{"deepest_obstacle_penetration", FIELD_F64, NULL, 0, q->deepest_obstacle_penetration, true},
		{"contacts_per_agent_step", FIELD_F64, NULL, 0, q->contacts_per_agent_step, true},
		{"goals", FIELD_U64, NULL, q->goals, 0.0, true},
		{"mean_time_to_goal", FIELD_F64, NULL, 0, mean_time, true},
		{"max_time_to_goal", FIELD_F64, NULL, 0, max_time, true},
		{"path_length_ratio", FIELD_F64, NULL, 0, ratio, true},
		{"jitter", FIELD_F64, NULL, 0, q->jitter, true},
	};
	// --metrics off leaves out the fields only the quality metrics give.
	int n = 0;
	for (int k = 0; k < FIELD_BASE; ++k) {
		if (s->metrics || !list[k].metrics) {
			f[n++] = list[k];
		}
	}
	for (uint32_t k = 0; k < s->outcome_count; ++k) {
		f[n++] = (field){s->outcomes[k].name, FIELD_F64, NULL, 0, s->outcomes[k].value, false};
	}
	for (uint32_t k = 0; k < s->side_count; ++k) {
		f[n++] = (field){s->sides[k].key, FIELD_U64, NULL, s->sides[k].left, 0.0, false};
	}
	if (s->side_count > 0) {
		f[n++] = (field){"winner", FIELD_STR, s->winner, 0, 0.0, false};
	}
	if (s->side_count > 0 && s->units > 0) {
		f[n++] = (field){"routed_units", FIELD_U64, NULL, s->routed_units, 0.0, false};
		f[n++] = (field){"first_rout_s", FIELD_F64, NULL, 0, s->first_rout_s, false};
	}
	if (s->measure_count > 0) {
		f[n++] = (field){"measure_seconds", FIELD_F64, NULL, 0, s->measure_seconds, false};
	}
	for (uint32_t k = 0; k < s->measure_count; ++k) {
		const double v = s->measures[k].value;
		f[n++] = s->measures[k].whole ? (field){s->measures[k].key, FIELD_U64, NULL, (uint64_t)v, 0.0, false}
		                              : (field){s->measures[k].key, FIELD_F64, NULL, 0, v, false};
	}
	if (s->interrupted != NULL) {
		// Only a run a signal stopped has these two: steps is then the steps done.
		f[n++] = (field){"interrupted", FIELD_STR, s->interrupted, 0, 0.0, false};
		f[n++] = (field){"steps_planned", FIELD_U64, NULL, s->steps_planned, 0.0, false};
	}
	if (s->ranks > 0) {
		f[n++] = (field){"ranks", FIELD_U64, NULL, s->ranks, 0.0, false};
		f[n++] = (field){"decomposition", FIELD_STR, s->decomposition, 0, 0.0, false};
		f[n++] = (field){"exchange_bytes_per_rank_step", FIELD_F64, NULL, 0, s->exchange_bytes, false};
		f[n++] = (field){"exchange_bytes_max_rank_step", FIELD_F64, NULL, 0, s->exchange_bytes_max, false};
		f[n++] = (field){"ghosts_per_agent", FIELD_F64, NULL, 0, s->ghosts_per_agent, false};
		f[n++] = (field){"exchange_seconds", FIELD_F64, NULL, 0, s->exchange_seconds, false};
		f[n++] = (field){"exchange_work_seconds", FIELD_F64, NULL, 0, s->exchange_work_seconds, false};
		f[n++] = (field){"collectives_per_step", FIELD_F64, NULL, 0, s->collectives_per_step, false};
		f[n++] = (field){"balance_every", FIELD_U64, NULL, s->balance_every, 0.0, false};
		f[n++] = (field){"border_moves", FIELD_U64, NULL, s->border_moves, 0.0, false};
		f[n++] = (field){"imbalance", FIELD_F64, NULL, 0, s->imbalance, false};
	}
	return n;
}

void cli_summary_print_text(FILE* out, const cli_summary* s)
{
	field f[FIELD_MAX];
	int count = make_fields(s, f);
	int width = 0;
	for (int k = 0; k < count; ++k) {
		int len = (int)strlen(f[k].key) + 1;
		width = len > width ? len : width;
	}
	for (int k = 0; k < count; ++k) {
		fprintf(out, "%s:%*s ", f[k].key, width - (int)strlen(f[k].key) - 1, "");
		switch (f[k].kind) {
		case FIELD_STR: fprintf(out, "%s\n", f[k].str != NULL ? f[k].str : ""); break;
		case FIELD_U64: fprintf(out, "%" PRIu64 "\n", f[k].u64); break;
		case FIELD_F64:
			if (isfinite(f[k].f64)) {
				fprintf(out, "%.9g\n", f[k].f64);
			} else {
				fputs("none\n", out); // no value yet (make_fields)
			}
			break;
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
	field f[FIELD_MAX];
	int count = make_fields(s, f);
	fputs("{\n", out);
	for (int k = 0; k < count; ++k) {
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
		fputs(k + 1 < count ? ",\n" : "\n", out);
	}
	fputs("}\n", out);
}

/// Appends one measurement figure.
static void put_measure(cli_summary* s, const char* kind, uint32_t index, const char* name, double value, bool whole)
{
	if (s->measure_count == CLI_SUMMARY_MAX_MEASURES) {
		return;
	}
	snprintf(s->measures[s->measure_count].key, sizeof s->measures[0].key, "%s%u_%s", kind, index, name);
	s->measures[s->measure_count].value = value;
	s->measures[s->measure_count].whole = whole;
	s->measure_count++;
}

throng_status cli_summary_measurements(const throng_measure* m, double t0, double t1, cli_summary* s)
{
	for (uint32_t k = 0; k < throng_measure_line_count(m); ++k) {
		throng_line_flow fl;
		memset(&fl, 0, sizeof fl);
		if (t1 > t0) {
			throng_status st = throng_measure_line_flow(m, k, t0, t1, &fl);
			if (st != THRONG_OK) {
				return st;
			}
		}
		put_measure(s, "line", k, "left", (double)fl.left, true);
		put_measure(s, "line", k, "right", (double)fl.right, true);
		put_measure(s, "line", k, "first_passings", (double)fl.first_passings, true);
		put_measure(s, "line", k, "flow", fl.flow_total, false);
		put_measure(s, "line", k, "flow_net", fl.flow_net, false);
	}
	for (uint32_t k = 0; k < throng_measure_area_count(m); ++k) {
		throng_area_means am;
		throng_status st = throng_measure_area_means(m, k, t0, t1 > t0 ? t1 : t0, &am);
		if (st != THRONG_OK) {
			return st;
		}
		put_measure(s, "area", k, "density", am.density, false);
		put_measure(s, "area", k, "mean_speed", am.mean_speed, false);
		put_measure(s, "area", k, "voronoi_density", am.voronoi_density, false);
		put_measure(s, "area", k, "voronoi_speed", am.voronoi_speed, false);
	}
	return THRONG_OK;
}
