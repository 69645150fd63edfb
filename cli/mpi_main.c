// SPDX-License-Identifier: MIT
// throng-mpi: `throng run` over MPI ranks, to the same bits (issue 15,
// docs/DISTRIBUTED.md).
//
//   mpirun -np R throng-mpi run SCENARIO [throng run's options]
//
// Every rank builds the scene, then steps a part world of it (core/part.h):
// a strip of the agent grid's rows, its own agents plus ghosts of the rows
// within the halo. Every --balance-every steps the strips' borders move so
// that the ranks hold about as many agents (balance()). Each step the ranks send every agent to the rank that
// owns its row and, as a ghost, to the ranks whose halo holds it (one
// MPI_Alltoallv); the contact pass agrees on the whole world's figures
// through MPI_Allreduce (the part's hook, throng_part_sync: part_reduce). At the end rank 0 gathers every
// agent in id order into a whole world and prints throng run's summary,
// whose hash and figures are those of the single process.
//
// --out and --shm: rank 0 writes every frame, from a whole world it
// gathers in id order when the frame is due, so the file is byte for byte
// the single process's. SIGINT, SIGTERM, SIGHUP and SIGQUIT stop every rank after the same
// step, outputs closed, as in throng run.
//
// The quality metrics: rank 0 gathers the whole world after every step
// and observes it as one process would (the same figures; it does not
// scale: --metrics off for runs that should).
//
// A scene's measure: rank 0 samples the whole world it gathers after each
// step (charge's, evacuation's), and the outcome reads the whole world at the end.
//
// Agents that come and go (mpi_churn.c): each rank's sinks remove its own
// agents; every rank runs every source over the agents near it, which
// every rank sends every other, and gives the same ids; the whole count
// comes from the step's one reduction; a measure that reads the step's
// events gets them on rank 0.
//
// --checkpoint and --resume (mpi_scene.c): rank 0 writes the whole world
// it gathers at the due steps with the scene, the file throng run writes;
// a resumed run restores the whole scene on every rank and splits it at
// its step.
//
// Not yet (refused with a message): agents given a target agent by the
// scene (at any distance).
#define _POSIX_C_SOURCE 200809L // clock_gettime

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "mpi_run.h"
#include "opts.h"
#include "outputs.h"
#include "resume.h"
#include "summary.h"
#include "throng/metrics.h"
#include "throng/scene_part.h"

/// What throng-mpi cannot distribute yet, as a message; NULL when none:
/// a target agent the scene named, which may be anywhere (one that an
/// archetype's target rule chose, within its sight, as in a checkpoint
/// taken during a battle, is within the parts' halo), and what a part
/// world refuses (a unit's formation): an empty part of the world is
/// loaded to ask it. Agents that come and go are distributed (sinks,
/// zones, sources, ids removed before the first step; mpi_churn.c), and
/// so are combat and units' morale (core/combat.h, core/units.h).
static const char* unsupported(throng_scene* scene)
{
	static char why[512];
	const throng_world* w = throng_scene_world(scene);
	const uint32_t n = throng_world_id_end(w);
	for (uint32_t id = 0; id < n; ++id) {
		throng_agent_state a;
		throng_controller c;
		if (throng_world_get_agent(w, id, &a) == THRONG_OK && a.target_agent != THRONG_NO_AGENT &&
		    (throng_world_get_controller(w, a.archetype, &c) != THRONG_OK || !c.target_rule.enabled)) {
			return "agents that pursue a named agent are not distributed yet";
		}
	}
	throng_world* probe = NULL;
	const throng_part_sync sync = {NULL, part_reduce, part_share}; // (a load calls neither)
	throng_status st = throng_part_create(w, 1, 1, &probe);
	if (st == THRONG_OK && (st = throng_part_set_sync(probe, &sync)) == THRONG_OK) {
		st = throng_part_load(probe, NULL, NULL, 0, throng_world_view(w).step);
	}
	if (st == THRONG_ERR_UNSUPPORTED) {
		snprintf(why, sizeof why, "%s", throng_last_error());
	}
	throng_world_destroy(probe);
	return st == THRONG_ERR_UNSUPPORTED ? why : NULL;
}

static const char usage[] =
	"Usage: mpirun -np R throng-mpi run <scenario> [throng run's options] [--balance-every K]\n"
	"                                   [--decompose blocks|strips]\n"
	"\n"
	"Runs a scenario over R MPI ranks, each stepping a part of the world (a block of its cells by\n"
	"default, see --decompose), and prints on rank 0 the summary `throng run` prints, with the same\n"
	"hash and figures, and the exchange's cost (docs/DISTRIBUTED.md). Each rank steps on --threads\n"
	"OpenMP threads (throng run's default when not given; the summary's `threads` says how many).\n"
	"The options are throng run's (throng run --help), plus:\n"
	"  --balance-every K  move the borders every K steps so that the ranks hold about as many\n"
	"                     agents each (default 100; 0 = equal rows and columns, never moved). The\n"
	"                     result is the same bits whatever the borders.\n"
	"  --decompose blocks|strips  cut the world's cells into a grid of blocks, px x py = R as\n"
	"                     square as R allows (default; strips when R is prime), or into R strips of\n"
	"                     rows. Blocks have shorter borders: fewer ghosts and bytes a rank.\n";

/// Default --balance-every.
#define MPI_BALANCE_EVERY 100u

static int run(int argc, char** argv)
{
	if (argc < 2 || strcmp(argv[1], "run") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		cli_error("expected: mpirun -np R throng-mpi run <scenario> [options] (throng-mpi --help)");
		return CLI_EXIT_USAGE;
	}
	// --balance-every and --decompose are throng-mpi's own: taken out
	// before throng run's parser reads the rest.
	uint64_t balance_every = MPI_BALANCE_EVERY;
	bool blocks = true;
	if (!take_layout_options(&argc, argv, &balance_every, &blocks)) {
		return CLI_EXIT_USAGE;
	}
	cli_run_args args;
	int rc = cli_parse_run(argc, argv, 2, usage, &args);
	if (rc != CLI_EXIT_OK || args.help) {
		return rc; // --help: the usage is printed
	}
	if (args.scenario == NULL && args.resume == NULL) {
		cli_error("run: missing <scenario> (throng list names them)");
		return CLI_EXIT_USAGE;
	}
	if (!opt_check_agents(cli_program, args.scenario, args.agents)) {
		return CLI_EXIT_USAGE;
	}
	throng_scene* scene = NULL;
	rc = mpi_open_scene(&args, &scene);
	if (rc != CLI_EXIT_OK) {
		return rc;
	}
	const char* why = unsupported(scene);
	if (why != NULL) {
		cli_error("%s", why);
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	const throng_scenario_info* info = throng_scene_info(scene);
	uint64_t steps = 0;
	throng_world* whole = throng_scene_world(scene);
	if (!cli_run_steps(&args, scene, &steps)) {
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	if (args.resume != NULL) {
		args.engine = throng_world_get_def(whole).engine; // the checkpoint's
		steps = args.steps_set || args.seconds_set ? steps : cli_resume_default_steps(scene);
	}
	// The scene's step at the start: 0, or a checkpoint's. The steps the
	// parts and the gathered world are told count from it.
	const uint64_t first = throng_world_view(whole).step;
	// The whole world's agents (n of them, ids below id_end: the ids
	// removed before the first step are holes) and what came and went
	// before the run: the summary counts from them.
	const uint32_t n = throng_world_agent_count(whole);
	uint32_t id_end = throng_world_id_end(whole);
	cli_summary sum;
	cli_summary_begin(&sum, whole);
	const throng_world_stats start_stats = throng_world_get_stats(whole);
	const bool reads_events = throng_scene_reads_events(scene);

	// Every rank built the whole scene: its records, its strips, its part
	// (whose room grows as sources add agents).
	size_t all_cap = n > 0 ? n : 1u;
	throng_agent_record* all = malloc(all_cap * sizeof *all);
	throng_world* part = NULL;
	throng_world* gathered = NULL; // rank 0: the whole world at the end
	const throng_part_sync sync = {NULL, part_reduce, part_share};
	const uint32_t room = n > 0 ? n : 1u;
	if (all == NULL || throng_part_create(whole, args.threads, room, &part) != THRONG_OK ||
	    throng_part_set_sync(part, &sync) != THRONG_OK ||
	    (self_rank == 0 && (throng_part_create(whole, args.threads, room, &gathered) != THRONG_OK ||
	                      throng_part_set_sync(gathered, &sync) != THRONG_OK))) {
		stop_all("setting up");
	}
	uint32_t held = 0;
	for (uint32_t id = 0; id < id_end; ++id) {
		throng_agent_record r;
		const throng_status got_it = throng_agent_record_of(whole, id, &r);
		if (got_it == THRONG_OK && held < n) {
			all[held++] = r;
		} else if (got_it != THRONG_ERR_NOT_FOUND) {
			stop_all("reading the scene's agents");
		}
	}
	if (held != n) {
		stop_all("reading the scene's agents");
	}
	layout s;
	s.rows = throng_part_rows_of(whole);
	s.halo = throng_part_halo_rows(part);
	s.wrap = throng_world_get_def(whole).bounds_mode == THRONG_BOUNDS_WRAP;
	shape(&s, blocks);
	s.lo = malloc(((size_t)s.py + 1u) * sizeof *s.lo);
	s.clo = malloc((size_t)s.py * ((size_t)s.px + 1u) * sizeof *s.clo);
	if (s.lo == NULL || s.clo == NULL) {
		stop_all("out of memory");
	}
	equal_borders(&s); // to start with
	throng_world* own_world = throng_scene_use_part(scene, part);
	if (own_world == NULL) {
		cli_error("%s: its outcome measure samples every agent every step: not distributed yet", info->name);
		throng_world_destroy(part);
		throng_world_destroy(gathered);
		free(all);
		free(s.lo);
		free(s.clo);
		throng_scene_destroy(scene);
		return CLI_EXIT_USAGE;
	}
	// Rank 0 writes the frames: it checks and opens the outputs and writes
	// frame 0 from the whole world it built; every rank learns how that
	// went.
	cli_outputs outputs;
	memset(&outputs, 0, sizeof outputs);
	const bool frames = args.out != NULL || args.shm != NULL;
	const uint32_t every = args.every != 0 ? args.every : 1u;
	int opened_rc = CLI_EXIT_OK;
	throng_status out_st = THRONG_OK;
	if (self_rank == 0 && frames) {
		// A closed pipe or a size limit must come back as EPIPE or EFBIG
		// from write(), not kill the process before it can say so.
		signal(SIGPIPE, SIG_IGN);
		signal(SIGXFSZ, SIG_IGN);
		const bool from_file = args.scenario != NULL && throng_scenario_find(args.scenario) == NULL &&
		                       throng_scene_is_file(args.scenario);
		opened_rc = cli_check_out_path(&args, from_file);
		if (opened_rc == CLI_EXIT_OK) {
			opened_rc = cli_outputs_open(&args, info->name, own_world, &outputs);
		}
		if (opened_rc == CLI_EXIT_OK) {
			out_st = cli_outputs_frame(&outputs, own_world); // frame 0: the initial state
		}
	}
	// The quality metrics: rank 0 observes a whole world gathered after
	// every step (gathered, which starts at the initial state: the first
	// observation reads it as the previous state).
	// A measure that samples every step (charge's) is sampled there too,
	// before each step.
	const bool sampled = throng_scene_samples(scene);
	throng_metrics* metrics = NULL;
	if (self_rank == 0 && (!args.no_metrics || sampled) && opened_rc == CLI_EXIT_OK &&
	    ((!args.no_metrics && throng_metrics_create(own_world, throng_scene_goal_radius(scene), &metrics) != THRONG_OK) ||
	     throng_part_load(gathered, all, NULL, n, first) != THRONG_OK)) {
		cli_error("%s", throng_last_error());
		cli_outputs_discard(&outputs);
		opened_rc = CLI_EXIT_FAILURE;
	}
	throng_world_destroy(own_world);
	MPI_Bcast(&opened_rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (opened_rc != CLI_EXIT_OK) {
		throng_metrics_destroy(metrics);
		throng_world_destroy(gathered);
		free(all);
		free(s.lo);
		free(s.clo);
		throng_scene_destroy(scene);
		return opened_rc;
	}
	out_st = frames ? told(out_st) : THRONG_OK;
	// With the frames on standard output, the summary goes to standard error.
	FILE* report = args.out != NULL && strcmp(args.out, "-") == 0 ? stderr : stdout;

	// This rank's own agents, by id.
	uint32_t n_own = 0;
	for (uint32_t k = 0; k < n; ++k) {
		if (owner_of(&s, throng_part_row(&s.rows, all[k].py), throng_part_col(&s.rows, all[k].px)) == self_rank) {
			all[n_own++] = all[k];
		}
	}
	throng_agent_record* own = all;
	mpi_agent *out = NULL, *got = NULL;
	size_t out_cap = 0, got_cap = 0, recs_cap = 0, keep_cap = 0;
	throng_agent_record* recs = NULL; // what the exchange brought (grown to fit)
	uint8_t* ghost = NULL;
	uint8_t* keep = NULL; // the part's slots: which own agents stay (exchange)
	gather g = {malloc((size_t)rank_count * 2u * sizeof(int)), NULL, NULL, NULL, NULL, 0, 0};
	const size_t counts = (size_t)s.rows.ny > (size_t)s.py * (size_t)s.rows.nx ? (size_t)s.rows.ny
	                                                                         : (size_t)s.py * (size_t)s.rows.nx;
	size_t per_row_cap = balance_every != 0 ? counts : 0u;
	uint64_t* per_row = balance_every != 0 ? malloc(counts * sizeof *per_row) : NULL;
	uint64_t borders_moved = 0;
	double most_owned = 0.0; // summed over steps
	// The whole world's count summed over the steps (each step's at its
	// start), and the most it held: the ranks agree on it each step.
	double agent_steps = 0.0;
	uint32_t peak = start_stats.agents_peak > n ? start_stats.agents_peak : n;
	churn ch;
	memset(&ch, 0, sizeof ch);
	int* agree = malloc(((size_t)rank_count + 1u) * sizeof *agree);
	if (g.counts == NULL || agree == NULL || (balance_every != 0 && per_row == NULL)) {
		stop_all("out of memory");
	}
	g.displs = g.counts + rank_count;

	const bool by_id = args.engine != THRONG_ENGINE_SIMD; // the scalar engine keeps the order it is given
	// Whether the own agents live in the part from step to step (the SIMD
	// engine, after the first load): then only the agents that leave and
	// the ghosts travel, and the part is updated in place. Otherwise they
	// are in `own` (n_own records) and the part is loaded whole.
	bool resident = false;
	// SIGINT, SIGTERM, SIGHUP, SIGQUIT (mpirun passes a Ctrl-C on as SIGTERM, Slurm's
	// scancel sends it) stop the run after the step every rank agrees on,
	// with the outputs closed and the summary printed, as in throng run.
	cli_catch_stop_signals();
	int stop = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	const double t0 = MPI_Wtime();
	struct timespec start; // --realtime: every rank paces its own steps
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint64_t k = 0;
	throng_status metrics_st = THRONG_OK;
	double metrics_seconds = 0.0;
	uint64_t checkpoint_step = UINT64_MAX; // the step --checkpoint last wrote
	double checkpoint_seconds = 0.0;
	bool checkpoint_failed = false;
	for (; k < steps && out_st == THRONG_OK && metrics_st == THRONG_OK && !checkpoint_failed; ++k) {
		const source src = resident ? (source){NULL, part, throng_world_agent_count(part), throng_world_view(part)}
		                            : (source){own, NULL, n_own, {0}};
		if (balance_every != 0 && k % balance_every == 0) {
			borders_moved += balance(&s, &src, per_row) ? 1u : 0u;
			traffic.collectives += 1.0;
		}
		uint32_t m = 0, owned = 0; // own agents this step: kept, then brought
		keep = grow_buffer(keep, &keep_cap, src.n, 1);
		exchange(&s, &src, keep, &owned, by_id, &out, &out_cap, &got, &got_cap, &m);
		size_t ghost_cap = recs_cap;
		recs = grow_buffer(recs, &recs_cap, m, sizeof *recs);
		ghost = grow_buffer(ghost, &ghost_cap, m, 1);
		for (uint32_t j = 0; j < m; ++j) {
			recs[j] = got[j].r;
			ghost[j] = (uint8_t)got[j].ghost;
			owned += ghost[j] ? 0u : 1u;
		}
		// One reduction: whether a rank was asked to stop, and how many
		// agents each rank steps as its own (each puts its own in its
		// place): their most is the imbalance, their sum the whole
		// world's count, which the step reads (throng_part_set_world).
		memset(agree, 0, ((size_t)rank_count + 1u) * sizeof *agree);
		agree[0] = cli_stop_signal;
		agree[1 + self_rank] = (int)owned;
		MPI_Allreduce(MPI_IN_PLACE, agree, rank_count + 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		traffic.collectives += 1.0;
		stop = agree[0];
		if (stop != 0) {
			break;
		}
		uint32_t whole_count = 0;
		int most = 0;
		for (int q = 0; q < rank_count; ++q) {
			whole_count += (uint32_t)agree[1 + q];
			most = agree[1 + q] > most ? agree[1 + q] : most;
		}
		most_owned += (double)most;
		agent_steps += (double)whole_count;
		peak = whole_count > peak ? whole_count : peak;
		if (throng_part_set_world(part, id_end, whole_count, 0.0f) != THRONG_OK ||
		    throng_part_update(part, resident ? keep : NULL, recs, ghost, m, first + k) != THRONG_OK) {
			stop_all("loading its part");
		}
		throng_scene_part_goals(scene, recs, m);
		if (sampled && self_rank == 0) {
			throng_scene_sample_with(scene, gathered); // the whole world at this step, gathered after the last
		}
		if (throng_scene_step(scene) != THRONG_OK) {
			stop_all("stepping");
		}
		// What came and went: the sinks removed this rank's own agents in
		// the step; the events it listed (its own agents') go to rank 0
		// when a measure reads them, after every rank ran the sources.
		uint32_t own_events = 0;
		if (reads_events) {
			const throng_event* ev = NULL;
			(void)throng_world_events(part, &ev, &own_events);
		}
		if (throng_world_source_count(part) > 0) {
			if (run_sources(&s, part, &ch) > 0 && follow_rows(&s, part, &per_row, &per_row_cap)) {
				borders_moved++;
			}
			id_end = throng_world_id_end(part);
		}
		if (reads_events) {
			gather_events(part, own_events, &ch);
		}
		if (args.realtime) {
			cli_pace(&start, k + 1u, throng_world_get_def(part).dt);
		}
		resident = !by_id;
		const bool frame_due = frames && (k + 1u) % every == 0;
		if (self_rank == 0 && !frame_due && outputs.feed != NULL) {
			// Between due frames the feed's readers still learn that its
			// writer is alive (docs/FORMAT.md, "Is the writer alive?").
			(void)throng_feed_heartbeat(outputs.feed);
		}
		const bool checkpoint_due = cli_checkpoint_is_due(&args, first + k + 1u, false, checkpoint_step);
		const bool whole_due = !args.no_metrics || frame_due || sampled || reads_events || checkpoint_due;
		if (!resident || whole_due) {
			// The own agents' new states, in the part's storage order (by
			// cell for the SIMD engine, by id for the scalar one).
			own = all = grow_buffer(all, &all_cap, throng_world_agent_count(part), sizeof *all);
			n_own = own_records(part, own);
		}
		if (whole_due) {
			const double tg = cli_now_seconds();
			const double ck0 = checkpoint_seconds;
			const uint32_t now_count = gather_whole(&g, own, n_own, part, gathered, first + k + 1u); // rank 0's
			if (self_rank == 0 && reads_events) {
				// The measure reads the step's events on the whole world
				// (concourse's flows), as throng_scene_step does.
				if (throng_part_set_events(gathered, ch.events, ch.event_count) != THRONG_OK) {
					stop_all("gathering the events");
				}
				throng_scene_after_with(scene, gathered);
			}
			if (!args.no_metrics || checkpoint_due) {
				// The metrics and the checkpoint read its running figures.
				const throng_world_stats ws =
				    whole_stats(part, &start_stats, first + k + 1u, now_count > peak ? now_count : peak);
				if (self_rank == 0 && throng_part_set_stats(gathered, &ws) != THRONG_OK) {
					stop_all("gathering the stats");
				}
			}
			if (checkpoint_due && !mpi_checkpoint(&args, scene, gathered, first + k + 1u, &checkpoint_step,
			                                      &checkpoint_seconds)) {
				checkpoint_failed = true;
			}
			if (!args.no_metrics) {
				if (self_rank == 0) {
					metrics_st = throng_metrics_observe(metrics, gathered);
					// The gather is the metrics' cost (and a due frame's or
					// checkpoint's, which share it); the checkpoint's
					// writing is its own.
					metrics_seconds += cli_now_seconds() - tg - (checkpoint_seconds - ck0);
				}
			} else if (self_rank == 0 && frame_due) {
				outputs.seconds += cli_now_seconds() - tg - (checkpoint_seconds - ck0); // the frame's cost
			} else if (self_rank == 0 && checkpoint_due) {
				checkpoint_seconds = ck0 + (cli_now_seconds() - tg); // the gather and the writing
			}
			if (self_rank == 0 && metrics_st == THRONG_OK && frame_due) {
				out_st = cli_outputs_frame(&outputs, gathered);
			}
			int st2[2] = {(int)metrics_st, (int)out_st}; // rank 0's, told to every rank
			MPI_Bcast(st2, 2, MPI_INT, 0, MPI_COMM_WORLD);
			metrics_st = (throng_status)st2[0];
			out_st = (throng_status)st2[1];
		}
	}
	double seconds = MPI_Wtime() - t0;
	MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	const bool interrupted = stop != 0 && k < steps;
	throng_quality quality = throng_metrics_result(metrics); // rank 0's; all zero without metrics
	throng_metrics_destroy(metrics);
	throng_status closed = THRONG_OK;
	if (metrics_st != THRONG_OK) {
		if (self_rank == 0) {
			cli_error("%s", throng_last_error());
			cli_outputs_close(&outputs, false, NULL);
		}
		closed = metrics_st;
	} else if (out_st != THRONG_OK) {
		if (self_rank == 0) {
			// The library's message says what the file holds, exactly.
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", throng_last_error());
			cli_error("output stopped at step %llu: %s", (unsigned long long)k, msg);
			cli_outputs_close(&outputs, false, msg);
		}
		closed = out_st;
	} else if (self_rank == 0 && frames) {
		if (interrupted) {
			throng_exporter_set_interrupted(outputs.exporter);
		}
		closed = cli_outputs_close(&outputs, true, NULL);
	}
	// A failure to observe or to write (said above) ends the run here, on
	// every rank alike, without a summary.
	// So does a checkpoint that could not be written (said by rank 0; the
	// frames written are whole).
	const bool failed = (frames ? told(closed) : closed) != THRONG_OK || checkpoint_failed;
	int code = !failed ? CLI_EXIT_OK : metrics_st == THRONG_OK ? CLI_EXIT_OUTPUT : CLI_EXIT_FAILURE;
	char decomposition[32];
	if (!failed) {
		// The run's stats: sums and maxima of the ranks' own agents, over
		// the whole world's at the start.
		const throng_world_stats st = whole_stats(part, &start_stats, first + k, peak);
		double sent[2] = {traffic.bytes, traffic.ghosts};
		double most_sent[3] = {traffic.bytes, traffic.seconds, traffic.seconds - traffic.wait};
		MPI_Allreduce(MPI_IN_PLACE, sent, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(MPI_IN_PLACE, most_sent, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

		// Every agent to rank 0, into the whole world.
		if (resident) {
			own = all = grow_buffer(all, &all_cap, throng_world_agent_count(part), sizeof *all);
			n_own = own_records(part, own);
		}
		const uint32_t final_count = gather_whole(&g, own, n_own, part, gathered, first + k);
		if (self_rank == 0) {
			throng_vec2 threat_p, threat_v;
			bool threat_on = false;
			throng_part_get_threat(part, &threat_p, &threat_v, &threat_on);
			throng_world_stats ended = st;
			// The most the whole world held: the ranks' sums, and its count now.
			ended.agents_peak = final_count > peak ? final_count : peak;
			if (throng_world_set_threat(gathered, threat_p, threat_v, threat_on) != THRONG_OK ||
			    throng_part_set_stats(gathered, &ended) != THRONG_OK) {
				stop_all("gathering the world");
			}
		}
		// The run's last checkpoint, unless its step's is written (as throng run).
		if (cli_checkpoint_is_due(&args, first + k, true, checkpoint_step) &&
		    !mpi_checkpoint(&args, scene, gathered, first + k, &checkpoint_step, &checkpoint_seconds)) {
			code = CLI_EXIT_OUTPUT;
		}
		if (self_rank == 0 && code == CLI_EXIT_OK) {
			// The summary reads the scene's world: the whole one now. The
			// scene frees it; the part is freed here.
			throng_world* stepped = throng_scene_swap_world(scene, gathered);
			gathered = NULL;
			if (cli_summary_measure(scene, args.no_metrics ? NULL : &quality, &sum) != THRONG_OK) {
				stop_all("measuring");
			}
			sum.scenario = info->name;
			sum.steps = steps;
			sum.engine = throng_engine_name(args.engine);
			sum.threads = args.engine == THRONG_ENGINE_SIMD ? (args.threads != 0 ? args.threads : throng_default_threads()) : 1;
			sum.threads_policy = throng_threads_policy_name(args.threads_policy);
			sum.steps_one_thread = st.steps_one_thread;
			sum.seconds = seconds;
			sum.frames = outputs.frames;
			sum.output_seconds = outputs.seconds + checkpoint_seconds; // the checkpoints are output too
			sum.metrics_seconds = metrics_seconds;
			sum.ranks = (uint32_t)rank_count;
			const double taken = k > 0 ? (double)k : 1.0;
			sum.exchange_bytes = sent[0] / rank_count / taken;
			sum.exchange_bytes_max = most_sent[0] / taken;
			sum.ghosts_per_agent = agent_steps > 0.0 ? sent[1] / agent_steps : 0.0;
			sum.exchange_seconds = most_sent[1];
			sum.exchange_work_seconds = most_sent[2];
			sum.collectives_per_step = traffic.collectives / taken;
			sum.balance_every = balance_every;
			snprintf(decomposition, sizeof decomposition, "%dx%d", s.px, s.py);
			sum.decomposition = decomposition;
			sum.border_moves = borders_moved;
			sum.imbalance = agent_steps > 0.0 ? most_owned / (agent_steps / rank_count) : 1.0;
			if (interrupted) {
				sum.steps = k;
				sum.steps_planned = steps;
				sum.interrupted = cli_signal_name(stop);
				cli_error("interrupted by %s after step %llu of %llu; outputs closed", sum.interrupted,
				          (unsigned long long)k, (unsigned long long)steps);
			}
			cli_summary_finish(&sum);
			if (args.summary == CLI_SUMMARY_JSON) {
				cli_summary_print_json(report, &sum);
			} else {
				cli_summary_print_text(report, &sum);
			}
			if (fflush(report) != 0 || ferror(report)) {
				cli_error("writing the summary failed");
				code = CLI_EXIT_OUTPUT;
			}
			throng_world_destroy(stepped);
		}
	}
	free(g.counts);
	free(g.recs);
	free(keep);
	free(g.byid);
	free(g.have);
	free(agree);
	churn_free(&ch);
	free(per_row);
	free(recs);
	free(ghost);
	free(out);
	free(got);
	free(all);
	free(s.lo);
	free(s.clo);
	throng_world_destroy(gathered); // NULL on rank 0 once the scene has it
	throng_scene_destroy(scene);    // and its world: the part, or on rank 0 the whole
	return code == CLI_EXIT_OK && interrupted ? 128 + stop : code;
}

int main(int argc, char** argv)
{
	ranks_start(&argc, &argv);
	cli_program = "throng-mpi";
	int code = run(argc, argv);
	ranks_end();
	return code;
}
