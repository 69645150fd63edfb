// SPDX-License-Identifier: MIT
// Where `throng run`'s frames go: --out and --shm (outputs.h).
#define _POSIX_C_SOURCE 200809L

#include "outputs.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t cli_stop_signal;

static void on_stop_signal(int sig)
{
	cli_stop_signal = sig;
}

void cli_catch_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

const char* cli_signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	default: return "a signal";
	}
}

/// --realtime: sleeps until `steps` steps of dt have passed since `start`
/// (outputs.h).
void cli_pace(const struct timespec* start, uint64_t steps, float dt)
{
	double t = (double)steps * (double)dt;
	struct timespec until = *start;
	until.tv_sec += (time_t)t;
	until.tv_nsec += (long)((t - (double)(time_t)t) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec += 1;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0 && cli_stop_signal == 0) {
	}
}

double cli_now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// Whether `path` names the file `other` describes: the same device and inode.
static bool same_file(const char* path, const struct stat* other)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_dev == other->st_dev && st.st_ino == other->st_ino;
}

int cli_check_out_path(cli_run_args* a, bool from_file)
{
	if (a->out == NULL || throng_output_path_is_stdout(a->out)) {
		return CLI_EXIT_OK;
	}
	struct stat st;
	if (from_file && stat(a->scenario, &st) == 0 && same_file(a->out, &st)) {
		cli_error("--out: %s is the scenario file %s; refusing to write over it", a->out, a->scenario);
		return CLI_EXIT_USAGE;
	}
	if (fstat(STDOUT_FILENO, &st) == 0 && !S_ISCHR(st.st_mode) && same_file(a->out, &st)) {
		if (a->format == THRONG_FORMAT_SQLITE) {
			cli_error("--out: %s is the file standard output goes to, and SQLite cannot share it; redirect "
			          "standard output elsewhere or write to another path",
			          a->out);
			return CLI_EXIT_USAGE;
		}
		a->out = "-";
	}
	return CLI_EXIT_OK;
}

int cli_outputs_open(const cli_run_args* a, const char* scenario, const throng_world* world, cli_outputs* o)
{
	memset(o, 0, sizeof *o);
	throng_export_def def = throng_export_default_def();
	def.world = world;
	def.format = a->format;
	def.fields = a->fields;
	def.every = a->every;
	def.scenario = scenario;
	def.capacity = a->shm_capacity; // the feed's; 0 = its default
	if (a->out != NULL && throng_exporter_create(a->out, &def, &o->exporter) != THRONG_OK) {
		cli_error("--out: %s", throng_last_error());
		return CLI_EXIT_OUTPUT;
	}
	if (throng_exporter_notice(o->exporter) != NULL) {
		cli_error("note: --out: %s", throng_exporter_notice(o->exporter));
	}
	if (a->shm != NULL &&
	    (a->shm_replace ? throng_feed_replace : throng_feed_create)(a->shm, &def, &o->feed) != THRONG_OK) {
		cli_error("--shm: %s", throng_last_error());
		throng_exporter_destroy(o->exporter); // not finished: --out's path stays as it was
		o->exporter = NULL;
		return CLI_EXIT_OUTPUT;
	}
	return CLI_EXIT_OK;
}

throng_status cli_outputs_frame(cli_outputs* o, const throng_world* world)
{
	if (o->exporter == NULL && o->feed == NULL) {
		return THRONG_OK;
	}
	double t0 = cli_now_seconds();
	throng_status st = THRONG_OK;
	if (o->exporter != NULL) {
		st = throng_exporter_write(o->exporter, world);
		o->frames = throng_exporter_frames(o->exporter);
	}
	if (st == THRONG_OK && o->feed != NULL) {
		st = throng_feed_publish(o->feed, world);
		if (o->exporter == NULL) {
			o->frames = throng_feed_frames(o->feed);
		}
	}
	o->seconds += cli_now_seconds() - t0;
	return st;
}

throng_status cli_outputs_close(cli_outputs* o, bool report, const char* reported)
{
	throng_status st = o->exporter != NULL ? throng_exporter_finish(o->exporter) : THRONG_OK;
	if (st != THRONG_OK && (report || (reported != NULL && strstr(reported, throng_last_error()) == NULL))) {
		cli_error("--out: %s", throng_last_error());
	}
	throng_status fs = o->feed != NULL ? throng_feed_finish(o->feed) : THRONG_OK;
	if (fs != THRONG_OK && report) {
		cli_error("--shm: %s", throng_last_error());
	}
	st = st != THRONG_OK ? st : fs;
	throng_exporter_destroy(o->exporter);
	throng_feed_destroy(o->feed);
	o->exporter = NULL;
	o->feed = NULL;
	return st;
}

void cli_outputs_discard(cli_outputs* o)
{
	throng_exporter_destroy(o->exporter);
	throng_feed_destroy(o->feed);
	o->exporter = NULL;
	o->feed = NULL;
}
