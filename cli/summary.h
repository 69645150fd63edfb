// SPDX-License-Identifier: MIT
// The run summary: what `throng run` measures and prints at the end.
#ifndef THRONG_CLI_SUMMARY_H
#define THRONG_CLI_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "throng/measure.h"
#include "throng/metrics.h"
#include "throng/scenario.h"

/// Most sides of a battle a summary counts: the group labels of the agents
/// with combat at the start, the smallest first.
#define CLI_SUMMARY_MAX_SIDES 8

/// Most measurement figures a summary holds: 5 a line, 4 an area, 16 of each
/// (a scenario file declares at most that many, docs/SCENARIOS.md).
#define CLI_SUMMARY_MAX_MEASURES (16 * 5 + 16 * 4)

typedef struct cli_summary {
	const char* scenario;
	uint32_t agents;            ///< agents live at the end
	/// The crowd over the run: live at its start (cli_summary_begin), added
	/// and removed during it, the most the world held at once (in its life:
	/// a resumed run's includes the steps before the checkpoint) and live at
	/// the end (= agents). Without cli_summary_begin (throng-mpi, whose
	/// agents neither come nor go): start = peak = final, none added or removed.
	uint32_t agents_start;
	uint64_t agents_added;
	uint64_t agents_removed;
	uint32_t agents_peak;
	uint32_t agents_final;
	bool began;                 ///< cli_summary_begin noted the start
	throng_world_stats stats_start; ///< the world's stats when the run began
	uint64_t steps;
	uint64_t seed;
	const char* engine;         ///< throng_engine_name of the engine
	uint32_t threads;           ///< 1 for the scalar engine
	const char* threads_policy; ///< throng_threads_policy_name of the policy
	uint64_t steps_one_thread;  ///< steps the adapting policy ran on one thread
	double seconds;             ///< wall time of the stepping loop (s)
	double agent_steps_per_s;   ///< agent-steps / the stepping time (seconds less output, metrics and measurement
	                            ///< time); agent-steps: agents * steps, the metrics' agent_steps when agents came
	                            ///< or went, else (agents_start + agents_final) / 2 * steps
	double simulated_seconds;   ///< steps * dt (s)
	uint64_t hash;              ///< throng_world_hash at the end
	uint64_t overlaps;          ///< pairs closer than the sum of radii at the end
	double max_speed_ratio;     ///< largest |v|/max_speed seen over the run
	uint64_t nonfinite;         ///< non-finite forces met over the run
	uint64_t clamped;           ///< hard clamps of a contained world over the run
	uint64_t out_of_bounds;     ///< agent-states outside the world over the run (throng_quality)
	uint64_t reached;           ///< agents that reached their goal during the run; 0 without goals
	uint64_t frames;            ///< frames written by --out (or published by --shm); 0 without either
	double output_seconds;      ///< wall time spent writing and publishing frames (s), part of seconds
	double metrics_seconds;     ///< wall time spent on the quality metrics (s), part of seconds
	double measure_seconds;     ///< wall time spent on the measurement lines and areas (s), part of seconds;
	                            ///< printed when the run has some (measure_count > 0)
	bool metrics;               ///< the quality metrics were observed (not --metrics off): their fields are printed
	const char* interrupted;    ///< "SIGINT" or "SIGTERM" when a signal stopped the run early, else NULL
	uint64_t steps_planned;     ///< the steps asked for (printed only when interrupted)
	/// throng-mpi only (printed when ranks > 0): the MPI ranks, and what
	/// the exchange of agents between them cost over the run.
	uint32_t ranks;
	double exchange_bytes;      ///< bytes a rank sent other ranks a step, mean over ranks and steps
	double exchange_bytes_max;  ///< the same for the rank that sent most
	double ghosts_per_agent;    ///< ghosts stepped per own agent, over every rank and step
	double exchange_seconds;    ///< the largest rank's wall time in the exchange (s), part of seconds
	double exchange_work_seconds; ///< the same less the time waiting for the slowest rank (its first collective)
	double collectives_per_step; ///< MPI collective calls a step (exchange, reductions, stop), the same on every rank
	const char* decomposition;  ///< "PXxPY": blocks of columns across, strips of rows up (1xR: strips)
	uint64_t balance_every;     ///< --balance-every: steps between moves of the strips' borders (0 never)
	uint64_t border_moves;      ///< times the borders moved
	double imbalance;           ///< the most agents a rank stepped as its own over the mean, averaged over steps
	throng_quality quality;     ///< the crowd-quality metrics over the run (docs/QUALITY.md)
	uint32_t outcome_count;     ///< the scenario's own outcome figures (armies, charge, flock, ...)
	throng_scene_outcome outcomes[THRONG_MAX_OUTCOMES];
	/// Combat (docs/ARMIES.md): the group labels of the agents whose
	/// archetype has combat when the run began (cli_summary_begin; at most
	/// CLI_SUMMARY_MAX_SIDES, the smallest labels), the agents of each at
	/// the start and at the end (of whom standing: not routing), and the
	/// winner: the one side left standing.
	uint32_t side_count;
	bool sides_capped;          ///< more labels fought than the summary counts
	struct {
		uint32_t label;
		uint64_t start, left, standing;
		char key[32];           ///< "survivors_<label>"
	} sides[CLI_SUMMARY_MAX_SIDES];
	char winner[32];            ///< "<label>", "none" (nobody standing) or "undecided" (two or more sides standing)
	uint32_t units;             ///< the world's units (throng/units.h)
	uint64_t routed_units;      ///< units that routed, at least once
	double first_rout_s;        ///< simulated time of the first rout; NAN: none
	uint32_t measure_count;     ///< figures of the scenario file's measurement lines and areas
	struct {
		char key[32];           ///< "line0_left", "area1_voronoi_density", ...
		double value;
		bool whole;             ///< a count, printed as an integer
	} measures[CLI_SUMMARY_MAX_MEASURES];
} cli_summary;

/// The measurement figures of `m` over the run [t0, t1] (s) into
/// s->measures: per line (line<k>_) the crossings to the left and to the
/// right, the first passings and the flow in total and net over
/// [t0, t1) (0 when t1 <= t0); per area (area<k>_) the means of the classic
/// density, mean speed, Voronoi density and Voronoi speed over the samples.
/// Returns the first failing status.
throng_status cli_summary_measurements(const throng_measure* m, double t0, double t1, cli_summary* s);

/// Zeroes *s and notes the crowd of `world` as the run begins (before its
/// first step): agents_start, the stats the run's added and removed
/// count from, and a battle's sides (the labels of agents with combat).
void cli_summary_begin(cli_summary* s, const throng_world* world);

/// Fills every field that the world and the run's quality figures hold (agents,
/// the crowd's start, added, removed, peak and final count,
/// the seed the world used, hash, overlaps, stats, simulated_seconds, the
/// quality figures, the scene's outcome figures); max_speed_ratio, nonfinite,
/// out_of_bounds and reached come from `quality`, over the whole run. With
/// quality NULL (--metrics off) max_speed_ratio and nonfinite come from the
/// world's stats, and s->metrics is false: the printers leave out the
/// fields only the metrics give. The caller sets scenario, steps, engine,
/// threads and seconds, then calls cli_summary_finish(). Returns the first
/// failing status.
throng_status cli_summary_measure(throng_scene* scene, const throng_quality* quality, cli_summary* s);

/// Derives agent_steps_per_s from the agent-steps, steps and seconds.
void cli_summary_finish(cli_summary* s);

/// Aligned "key: value" lines.
void cli_summary_print_text(FILE* f, const cli_summary* s);

/// One pretty-printed JSON object; floats with 9 significant digits,
/// non-finite ones as null, the hash as a 16-hex-digit string.
void cli_summary_print_json(FILE* f, const cli_summary* s);

#endif
