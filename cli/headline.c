// SPDX-License-Identifier: MIT
// The headline of `throng run`'s text summary (headline.h). The key:
// value lines below it stay the figures that scripts read; these are for
// the person at the terminal: counts with thousands separators, rates in
// words, and "none yet" where a figure has no value.
#include "headline.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/// n with a comma every three digits ("1,000,000") into buf.
static const char* count(char buf[32], uint64_t n)
{
	char digits[24];
	int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
	int at = 0;
	for (int k = 0; k < len; ++k) {
		if (k > 0 && (len - k) % 3 == 0) {
			buf[at++] = ',';
		}
		buf[at++] = digits[k];
	}
	buf[at] = '\0';
	return buf;
}

/// A rate in words: "4.46 million", "812 thousand", "950".
static const char* rate(char buf[32], double r)
{
	if (!(r >= 0.0) || !isfinite(r)) {
		snprintf(buf, 32, "none");
	} else if (r >= 1e9) {
		snprintf(buf, 32, "%.3g billion", r / 1e9);
	} else if (r >= 1e6) {
		snprintf(buf, 32, "%.3g million", r / 1e6);
	} else if (r >= 1e3) {
		snprintf(buf, 32, "%.3g thousand", r / 1e3);
	} else {
		snprintf(buf, 32, "%.3g", r);
	}
	return buf;
}

/// "1,000 agents" or, when agents came and went, "1,000 agents at the
/// start, 1,304 at the end (3,012 came, 2,708 left)".
static void crowd(FILE* out, const cli_summary* s)
{
	char a[32], b[32], c[32], d[32];
	if (s->agents_added == 0 && s->agents_removed == 0) {
		fprintf(out, "%s agents", count(a, s->agents_final));
		return;
	}
	fprintf(out, "%s agents at the start, %s at the end (%s came, %s left)", count(a, s->agents_start),
	        count(b, s->agents_final), count(c, s->agents_added), count(d, s->agents_removed));
}

/// What happened: goals, the scene's own figures, an interruption.
static void outcome(FILE* out, const cli_summary* s)
{
	char a[32], b[32];
	const throng_quality* q = &s->quality;
	bool said = false;
	if (s->metrics && q->goals > 0) {
		fprintf(out, "  %s of %s reached their goals", count(a, s->reached), count(b, q->goals));
		if (s->reached > 0 && isfinite(q->max_time_to_goal)) {
			fprintf(out, ", the %s after %.1f s", s->reached == q->goals ? "last" : "latest so far",
			        q->max_time_to_goal);
		} else if (s->reached == 0) {
			fputs(" (none yet)", out);
		}
		said = true;
	} else if (s->reached > 0) {
		fprintf(out, "  %s reached their goals", count(a, s->reached));
		said = true;
	}
	for (uint32_t k = 0; k < s->outcome_count; ++k) {
		const double v = s->outcomes[k].value;
		fprintf(out, "%s%s ", said ? (k == 0 ? "; " : ", ") : (k == 0 ? "  " : ", "), s->outcomes[k].name);
		if (isfinite(v)) {
			fprintf(out, "%.4g", v);
		} else {
			fputs("none yet", out);
		}
	}
	said = said || s->outcome_count > 0;
	for (uint32_t k = 0; k < s->side_count; ++k) {
		fprintf(out, "%s%s of group %u's %s", k > 0 ? ", " : said ? "; standing: " : "  standing: ",
		        count(a, s->sides[k].standing), s->sides[k].label, count(b, s->sides[k].start));
		if (s->sides[k].left > s->sides[k].standing) {
			fprintf(out, " (%s routing)", count(a, s->sides[k].left - s->sides[k].standing));
		}
	}
	if (s->side_count > 0) {
		const bool one = strcmp(s->winner, "none") != 0 && strcmp(s->winner, "undecided") != 0;
		fprintf(out, "%s%s%s", s->sides_capped ? " (more groups fought)" : "", one ? ": won by group " : ": ",
		        one ? s->winner : strcmp(s->winner, "none") == 0 ? "nobody standing" : "undecided");
		said = true;
	}
	if (s->interrupted != NULL) {
		fprintf(out, "%sstopped by %s after %s of %s steps", said ? "; " : "  ", s->interrupted,
		        count(a, s->steps), count(b, s->steps_planned));
		said = true;
	}
	if (said) {
		fputc('\n', out);
	}
}

void cli_headline_print(FILE* out, const cli_summary* s)
{
	char steps[32], r[32];
	fprintf(out, "%s: ", s->scenario != NULL ? s->scenario : "scene");
	crowd(out, s);
	fprintf(out, " for %.1f simulated s (%s steps) in %.2f s: %s agent-steps/s (%s, %u thread%s)\n",
	        s->simulated_seconds, count(steps, s->steps), s->seconds, rate(r, s->agent_steps_per_s),
	        s->engine != NULL ? s->engine : "?", s->threads, s->threads == 1 ? "" : "s");
	outcome(out, s);
	fputc('\n', out);
}
