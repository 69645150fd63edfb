// SPDX-License-Identifier: MIT
// The progress bar: steps done, percentage, ETA and agent-steps per second,
// redrawn with a carriage return on stderr when stderr is a terminal.
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/// Cells of the bar itself.
#define BAR_CELLS 24

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_progress_wanted(bool quiet)
{
	return !quiet && isatty(STDERR_FILENO) == 1;
}

/// "1.23M", "45.6k", "789": a rate with a metric suffix.
static void format_rate(char* buf, size_t cap, double v)
{
	if (v >= 1e9) {
		snprintf(buf, cap, "%.2fG", v / 1e9);
	} else if (v >= 1e6) {
		snprintf(buf, cap, "%.2fM", v / 1e6);
	} else if (v >= 1e3) {
		snprintf(buf, cap, "%.1fk", v / 1e3);
	} else {
		snprintf(buf, cap, "%.0f", v);
	}
}

/// "h:mm:ss" or "m:ss"; "?" when unknown.
static void format_duration(char* buf, size_t cap, double s)
{
	if (!(s >= 0.0) || s > 359999.0) {
		snprintf(buf, cap, "?");
		return;
	}
	uint64_t t = (uint64_t)(s + 0.5);
	if (t >= 3600) {
		snprintf(buf, cap, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, t / 3600, t / 60 % 60, t % 60);
	} else {
		snprintf(buf, cap, "%" PRIu64 ":%02" PRIu64, t / 60, t % 60);
	}
}

void cli_progress_format(char* buf, size_t cap, uint64_t done, uint64_t total, uint32_t agents, double elapsed)
{
	double frac = total > 0 ? (double)done / (double)total : 1.0;
	frac = frac > 1.0 ? 1.0 : frac;
	char bar[BAR_CELLS + 1];
	int full = (int)(frac * BAR_CELLS);
	for (int k = 0; k < BAR_CELLS; ++k) {
		bar[k] = k < full ? '#' : '.';
	}
	bar[BAR_CELLS] = '\0';
	char eta[32], rate[32];
	double left = done > 0 && elapsed > 0.0 ? elapsed * (double)(total - done) / (double)done : -1.0;
	format_duration(eta, sizeof eta, done >= total ? 0.0 : left);
	format_rate(rate, sizeof rate, elapsed > 0.0 ? (double)done * (double)agents / elapsed : 0.0);
	snprintf(buf, cap, "[%s] %3d%%  %" PRIu64 "/%" PRIu64 " steps  ETA %s  %s agent-steps/s", bar,
	         (int)(frac * 100.0), done, total, eta, rate);
}

void cli_progress_start(cli_progress* p, bool on, uint64_t total, uint32_t agents)
{
	memset(p, 0, sizeof *p);
	p->on = on;
	p->out = stderr;
	p->total = total;
	p->agents = agents;
	p->start = wall_seconds();
	p->last = p->start;
}

void cli_progress_update(cli_progress* p, uint64_t done)
{
	if (!p->on) {
		return;
	}
	double now = wall_seconds();
	if (done < p->total && now - p->last < 0.1 && p->drawn) {
		return;
	}
	p->last = now;
	char line[160];
	cli_progress_format(line, sizeof line, done, p->total, p->agents, now - p->start);
	// \r to the line's start, the bar, then erase whatever an older,
	// longer line left behind.
	fprintf(p->out, "\r%s\033[K", line);
	fflush(p->out);
	p->drawn = true;
}

void cli_progress_finish(cli_progress* p)
{
	if (p->on && p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->drawn = false;
}
