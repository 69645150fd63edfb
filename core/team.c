// SPDX-License-Identifier: MIT
// The team governor (team.h has the design).
#include "team.h"

void thr_team_init(thr_team* t, uint32_t most)
{
	t->most = most > 0 ? most : 1;
	t->current = t->most;
	t->mean[0] = t->mean[1] = 0.0f;
	t->gap = THR_TEAM_GAP_FIRST;
	t->wait = THR_TEAM_GAP_FIRST;
}

static uint32_t other(const thr_team* t)
{
	return t->current == 1 ? t->most : 1;
}

uint32_t thr_team_pick(const thr_team* t)
{
	return t->most > 1 && t->wait == 0 ? other(t) : t->current;
}

void thr_team_record(thr_team* t, uint32_t team, float ns)
{
	if (t->most <= 1 || !(ns > 0.0f) || !(ns < 1.0e30f)) {
		return;
	}
	float* mean = &t->mean[team == 1 ? 0 : 1];
	if (team == t->current) {
		*mean = *mean > 0.0f ? 0.75f * *mean + 0.25f * ns : ns;
		if (t->wait > 0) {
			t->wait--;
		}
		return;
	}
	// A probe: its time replaces the other team's (a mean of probes
	// spread over thousands of steps would remember another machine).
	*mean = ns;
	const float mine = t->mean[t->current == 1 ? 0 : 1];
	if (mine > 0.0f && *mean < 0.9f * mine) {
		t->current = team;
		t->gap = THR_TEAM_GAP_FIRST;
	} else if (t->gap < THR_TEAM_GAP_MOST) {
		t->gap *= 2u;
	}
	t->wait = t->gap;
}
