// SPDX-License-Identifier: MIT
// Playback of a stream file or a live feed (design note in play.h).
#include "play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "scenes.h"
#include "throng/export.h"

#define VW_DEFAULT_RADIUS 0.3f ///< m, for an archetype the rebuilt scene does not show

/// One frame of a replay: its place in the field buffers.
typedef struct vw_record {
	uint64_t step;
	double time;
	uint64_t first;       ///< index of its first agent in the buffers
	uint32_t count;
	uint32_t peak;        ///< most agents in any frame up to this one
	uint32_t routing;     ///< its agents marked THRONG_COMBAT_ROUTING
	uint64_t added, removed; ///< ids that appeared (left) between frame 0 and this one
} vw_record;

struct vw_play {
	bool live;
	throng_stream_info info;
	char source[256];         ///< the file or the feed's name
	throng_feed_reader* feed;
	vw_sim* scene;            ///< the scene the header names, never stepped; NULL when unknown
	vw_frame base;            ///< its first frame (or an empty one): geometry, def
	float radius_of[VW_MAX_ARCHETYPES];
	// A stream without groups or archetypes (throng run's default fields are
	// x,y,hx,hy): the rebuilt scene's, by id, for the agents it starts with.
	uint32_t *scene_group, *scene_archetype;
	uint32_t scene_ids;       ///< one past the largest id the rebuilt scene holds
	float radius_default;
	// Every agent of every frame, frame after frame.
	uint64_t agents, agents_cap;
	uint32_t *id, *group, *archetype;
	float *x, *y, *hx, *hy;
	float* health;            ///< the stream's health (2.1), else untouched
	uint32_t* combat_state;   ///< the stream's combat_state (2.1), else NULL
	bool routs;               ///< some frame so far has a routing agent
	vw_record* records;
	uint64_t record_count, record_cap;
	uint64_t index;           ///< the record shown
	double position;          ///< replay clock, in frames
	bool paused;
	double speed;             ///< simulated seconds per wall second
	float* radius;            ///< the shown frame's radii
	float* vigour;            ///< and their health's share of full (when the stream has health)
	uint32_t radius_cap;
	vw_frame shown;
	uint64_t serial;
	throng_writer_state writer;
	char note[128];           ///< why the scene around the agents is missing, or ""
	const char* scene_arg;    ///< --scene, or NULL
	uint32_t agents_arg;      ///< --agents with --attach: the run's, for its scene; 0 = unknown
	bool scene_built;         ///< a feed's scene: built at its first frame
};

static bool grow(void** p, uint64_t n, size_t size)
{
	void* q = realloc(*p, (size_t)n * size);
	if (q == NULL) {
		return false;
	}
	*p = q;
	return true;
}

/// Room for `more` agents in the field buffers.
static bool reserve_agents(vw_play* p, uint64_t more)
{
	uint64_t need = p->agents + more;
	if (need <= p->agents_cap) {
		return true;
	}
	uint64_t cap = p->agents_cap * 2u > need ? p->agents_cap * 2u : need;
	if (!grow((void**)&p->id, cap, 4) || !grow((void**)&p->group, cap, 4) || !grow((void**)&p->archetype, cap, 4) ||
	    !grow((void**)&p->x, cap, 4) || !grow((void**)&p->y, cap, 4) || !grow((void**)&p->hx, cap, 4) ||
	    !grow((void**)&p->hy, cap, 4) || !grow((void**)&p->health, cap, 4) ||
	    ((p->info.fields & THRONG_FIELD_COMBAT_STATE) != 0 && !grow((void**)&p->combat_state, cap, 4))) {
		return false;
	}
	p->agents_cap = cap;
	return true;
}

/// Counts ids of b not in a (added) and of a not in b (removed); both increase.
static void churn(const uint32_t* a, uint32_t na, const uint32_t* b, uint32_t nb, uint64_t* added, uint64_t* removed)
{
	uint32_t i = 0, j = 0;
	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i] < b[j])) {
			++*removed;
			++i;
		} else if (i == na || b[j] < a[i]) {
			++*added;
			++j;
		} else {
			++i;
			++j;
		}
	}
}

/// Appends frame `f` as a record (a replay's next frame, a feed's newest).
static bool append(vw_play* p, const throng_frame* f)
{
	if (p->record_count == p->record_cap) {
		uint64_t cap = p->record_cap == 0 ? 256u : p->record_cap * 2u;
		if (!grow((void**)&p->records, cap, sizeof *p->records)) {
			return false;
		}
		p->record_cap = cap;
	}
	if (!reserve_agents(p, f->count)) {
		return false;
	}
	uint64_t at = p->agents;
	for (uint32_t k = 0; k < f->count; ++k) {
		p->id[at + k] = f->id[k];
		p->x[at + k] = f->x != NULL ? f->x[k] : 0.0f;
		p->y[at + k] = f->y != NULL ? f->y[k] : 0.0f;
		p->group[at + k] = f->group != NULL ? f->group[k] : 0u;
		p->archetype[at + k] = f->archetype != NULL ? f->archetype[k] : 0u;
		float hx = 1.0f, hy = 0.0f;
		if (f->hx != NULL && f->hy != NULL) {
			hx = f->hx[k];
			hy = f->hy[k];
		}
		p->hx[at + k] = hx;
		p->hy[at + k] = hy;
		p->health[at + k] = f->health != NULL ? f->health[k] : 0.0f;
	}
	vw_record r = {f->step, f->time, at, f->count, f->count, 0, 0, 0};
	if (p->combat_state != NULL) {
		for (uint32_t k = 0; k < f->count; ++k) {
			p->combat_state[at + k] = f->combat_state != NULL ? f->combat_state[k] : 0u;
		}
		r.routing = vw_count_routing(p->combat_state + at, f->count);
		p->routs = p->routs || r.routing > 0;
	}
	if (p->record_count > 0) {
		const vw_record* prev = &p->records[p->record_count - 1u];
		r.peak = prev->peak > f->count ? prev->peak : f->count;
		r.added = prev->added;
		r.removed = prev->removed;
		churn(p->id + prev->first, prev->count, p->id + at, f->count, &r.added, &r.removed);
	}
	p->records[p->record_count++] = r;
	p->agents += f->count;
	return true;
}

/// A feed keeps only its newest frame: the buffers restart with it.
static bool replace(vw_play* p, const throng_frame* f)
{
	vw_record prev = {0, 0.0, 0, 0, 0, 0, 0, 0};
	uint32_t* prev_id = NULL;
	if (p->record_count > 0) {
		prev = p->records[0];
		prev_id = malloc((size_t)prev.count * 4u + 4u);
		if (prev_id == NULL) {
			return false;
		}
		memcpy(prev_id, p->id + prev.first, (size_t)prev.count * 4u);
	}
	bool had = p->record_count > 0;
	p->record_count = 0;
	p->agents = 0;
	bool ok = append(p, f);
	if (ok && had) {
		vw_record* r = &p->records[0];
		r->peak = prev.peak > r->count ? prev.peak : r->count;
		r->added = prev.added;
		r->removed = prev.removed;
		churn(prev_id, prev.count, p->id, r->count, &r->added, &r->removed);
	}
	free(prev_id);
	return ok;
}

/// Rebuilds the header's scene for its geometry and its agents' radii.
///
/// `agents` is the count to build it with: a stream's header says how many
/// agents the run began with, a feed's does not (its first frame's count
/// stands in, and only the bounds are compared). build false: the
/// header's bounds only, until a feed's first frame.
static void open_scene(vw_play* p, const char* scene, uint32_t agents, bool build)
{
	const throng_stream_info* in = &p->info;
	const char* name = scene != NULL ? scene : in->scenario;
	memset(&p->base, 0, sizeof p->base);
	free(p->scene_group);
	free(p->scene_archetype);
	p->scene_group = p->scene_archetype = NULL;
	p->scene_ids = 0;
	p->note[0] = '\0';
	p->radius_default = VW_DEFAULT_RADIUS;
	for (uint32_t a = 0; a < VW_MAX_ARCHETYPES; ++a) {
		p->radius_of[a] = 0.0f;
	}
	if (!build) {
		// Nothing yet.
	} else if (name[0] != '\0' && (vw_scene_exists(name) || (scene != NULL && throng_scene_is_file(name)))) {
		vw_sim_config cfg;
		memset(&cfg, 0, sizeof cfg);
		cfg.scenario = name;
		cfg.options = throng_scene_default_def();
		bool file = !vw_scene_exists(name);
		cfg.options.agents = file ? 0u : agents; // a file fixes its own counts
		cfg.options.seed = in->seed;
		cfg.paused = true;
		cfg.mouse_mode = VW_MOUSE_OFF;
		throng_status st = THRONG_OK;
		char err[256];
		p->scene = vw_sim_create(&cfg, &st, err, sizeof err);
		if (p->scene == NULL) {
			snprintf(p->note, sizeof p->note, "no walls: %.100s", err);
		}
	} else {
		snprintf(p->note, sizeof p->note, "no walls: scene \"%.40s\" unknown (--scene FILE)", name);
	}
	if (p->scene != NULL) {
		// A scenario file of the same name as a built-in, another agent
		// count or seed: a scene that is not the run's shows no walls.
		const vw_frame* f = vw_sim_acquire(p->scene);
		if (memcmp(&f->def.bounds_min, &in->bounds_min, sizeof in->bounds_min) != 0 ||
		    memcmp(&f->def.bounds_max, &in->bounds_max, sizeof in->bounds_max) != 0 ||
		    (!p->live && in->version_major >= 2 && f->count != in->agents)) {
			snprintf(p->note, sizeof p->note, "no walls: scene \"%.40s\" is not the run's (--scene FILE)", name);
			vw_sim_destroy(p->scene);
			p->scene = NULL;
		}
	}
	if (p->scene != NULL) {
		const vw_frame* f = vw_sim_acquire(p->scene);
		p->base = *f;
		double sum = 0.0;
		for (uint32_t k = 0; k < f->count; ++k) {
			uint32_t a = f->archetype[k];
			if (a < VW_MAX_ARCHETYPES && p->radius_of[a] == 0.0f) {
				p->radius_of[a] = f->radius[k];
			}
			sum += (double)f->radius[k];
		}
		if (f->count > 0) {
			p->radius_default = (float)(sum / (double)f->count);
		}
		uint32_t end = 0;
		for (uint32_t k = 0; k < f->count; ++k) {
			end = f->id[k] + 1u > end ? f->id[k] + 1u : end;
		}
		p->scene_group = calloc((size_t)end + 1u, sizeof *p->scene_group);
		p->scene_archetype = calloc((size_t)end + 1u, sizeof *p->scene_archetype);
		if (p->scene_group != NULL && p->scene_archetype != NULL) {
			p->scene_ids = end;
			for (uint32_t k = 0; k < f->count; ++k) {
				p->scene_group[f->id[k]] = f->group[k];
				p->scene_archetype[f->id[k]] = f->archetype[k];
			}
		}
	} else {
		p->base.def = throng_world_default_def();
	}
	// The recorded run's own figures win over the rebuilt scene's.
	p->base.def.bounds_mode = in->bounds_mode;
	p->base.def.bounds_min = in->bounds_min;
	p->base.def.bounds_max = in->bounds_max;
	p->base.def.dt = (float)in->dt;
	p->base.threat_active = false;
	p->base.overlaps_valid = false;
	p->base.outcome_count = 0;
	p->base.focus.valid = false;
	p->base.mouse_mode = VW_MOUSE_OFF;
	p->base.error[0] = '\0';
	p->base.drop_note[0] = '\0';
	memset(&p->base.stats, 0, sizeof p->base.stats);
}

/// Agents [first, first + count) take the rebuilt scene's group and
/// archetype where the stream has none.
static void fill_from_scene(vw_play* p, uint64_t first, uint64_t count)
{
	bool group = (p->info.fields & THRONG_FIELD_GROUP) == 0;
	bool archetype = (p->info.fields & THRONG_FIELD_ARCHETYPE) == 0;
	if ((!group && !archetype) || p->scene_ids == 0) {
		return;
	}
	for (uint64_t k = first; k < first + count; ++k) {
		uint32_t id = p->id[k];
		if (id < p->scene_ids) {
			if (group) {
				p->group[k] = p->scene_group[id];
			}
			if (archetype) {
				p->archetype[k] = p->scene_archetype[id];
			}
		}
	}
}

static vw_play* open_replay(vw_play* p, const char* path, char* err, size_t cap, int* rc)
{
	throng_stream_reader* rd = NULL;
	throng_status st = throng_stream_open(path, &rd);
	if (st != THRONG_OK) {
		snprintf(err, cap, "--replay: %s", throng_last_error());
		*rc = VW_EXIT_INPUT; // not there, unreadable or not a stream: as `throng` treats its inputs
		return NULL;
	}
	p->info = *throng_stream_get_info(rd);
	for (;;) {
		throng_frame f;
		bool got = false;
		st = throng_stream_read_frame(rd, &f, &got);
		if (st != THRONG_OK) {
			snprintf(err, cap, "--replay: %s", throng_last_error());
			*rc = VW_EXIT_INPUT;
			break;
		}
		if (!got) {
			break;
		}
		if (!append(p, &f)) {
			snprintf(err, cap, "--replay: out of memory at frame %llu of %s (a replay holds the whole file)",
			         (unsigned long long)f.index, path);
			*rc = VW_EXIT_FAILURE;
			st = THRONG_ERR_OUT_OF_MEMORY;
			break;
		}
	}
	throng_stream_reader_destroy(rd);
	if (st != THRONG_OK) {
		return NULL;
	}
	if (p->record_count == 0) {
		snprintf(err, cap, "--replay: %s holds no frame", path);
		*rc = VW_EXIT_INPUT;
		return NULL;
	}
	return p;
}

vw_play* vw_play_open(const vw_args* args, char* err, size_t err_cap, int* rc)
{
	vw_play* p = calloc(1, sizeof *p);
	if (p == NULL) {
		snprintf(err, err_cap, "out of memory");
		*rc = VW_EXIT_FAILURE;
		return NULL;
	}
	p->speed = 1.0;
	p->paused = args->paused;
	p->live = args->attach != NULL;
	snprintf(p->source, sizeof p->source, "%s", p->live ? args->attach : args->replay);
	bool ok;
	if (p->live) {
		throng_status st = throng_feed_open(args->attach, &p->feed);
		ok = st == THRONG_OK;
		if (!ok) {
			snprintf(err, err_cap, "--attach: %s%s", throng_last_error(),
			         st == THRONG_ERR_NOT_FOUND ? " (is `throng run ... --shm NAME` running?)" : "");
			*rc = st == THRONG_ERR_NOT_FOUND ? VW_EXIT_INPUT : VW_EXIT_FAILURE;
		} else {
			p->info = *throng_feed_get_info(p->feed);
		}
	} else {
		ok = open_replay(p, args->replay, err, err_cap, rc) != NULL;
	}
	if (!ok) {
		vw_play_destroy(p);
		return NULL;
	}
	p->scene_arg = args->scene;
	p->agents_arg = args->agents;
	open_scene(p, args->scene, p->info.agents, !p->live);
	fill_from_scene(p, 0, p->agents);
	return p;
}

void vw_play_destroy(vw_play* p)
{
	if (p == NULL) {
		return;
	}
	throng_feed_reader_destroy(p->feed);
	vw_sim_destroy(p->scene);
	free(p->id);
	free(p->group);
	free(p->archetype);
	free(p->x);
	free(p->y);
	free(p->hx);
	free(p->hy);
	free(p->health);
	free(p->combat_state);
	free(p->records);
	free(p->scene_group);
	free(p->scene_archetype);
	free(p->radius);
	free(p->vigour);
	free(p);
}

const char* vw_play_scene(const vw_play* p)
{
	return p->info.scenario;
}

bool vw_play_live(const vw_play* p)
{
	return p->live;
}

uint64_t vw_play_frames(const vw_play* p)
{
	return p->record_count;
}

uint64_t vw_play_index(const vw_play* p)
{
	return p->index;
}

void vw_play_seek(vw_play* p, int64_t index)
{
	if (p->live || p->record_count == 0) {
		return;
	}
	int64_t last = (int64_t)p->record_count - 1;
	p->index = (uint64_t)(index < 0 ? 0 : index > last ? last : index);
	p->position = (double)p->index;
}

uint64_t vw_play_find_step(const vw_play* p, uint64_t step)
{
	// Steps increase frame after frame: a binary search.
	uint64_t lo = 0, hi = p->record_count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2u;
		if (p->records[mid].step <= step) {
			lo = mid + 1u;
		} else {
			hi = mid;
		}
	}
	return lo == 0 ? 0 : lo - 1u;
}

double vw_play_frame_seconds(const vw_play* p)
{
	return p->info.dt * (double)(p->info.every == 0 ? 1u : p->info.every);
}

bool vw_play_update(vw_play* p, double wall, char* err, size_t err_cap)
{
	if (!p->live) {
		double frame_s = vw_play_frame_seconds(p);
		if (!p->paused && frame_s > 0.0 && p->record_count > 0) {
			p->position += wall * p->speed / frame_s;
			double last = (double)(p->record_count - 1u);
			if (p->position >= last) {
				p->position = last;
				p->paused = true;
			}
			p->index = (uint64_t)p->position;
		}
		return true;
	}
	if (p->paused) {
		return true;
	}
	throng_frame f;
	bool got = false;
	if (throng_feed_read(p->feed, &f, &got) != THRONG_OK) {
		snprintf(err, err_cap, "--attach: %s", throng_last_error());
		return false;
	}
	if (got) {
		if (!replace(p, &f)) {
			snprintf(err, err_cap, "--attach: out of memory for a frame of %u agents", f.count);
			return false;
		}
		if (!p->scene_built) {
			// The feed's header has its capacity, not the run's agents:
			// the first frame's count, then half the capacity (the
			// default capacity is twice the agents), the first whose
			// bounds are the run's.
			p->scene_built = true;
			uint32_t tries[3] = {p->agents_arg, f.count, p->info.agents / 2u};
			for (int k = p->agents_arg != 0 ? 0 : 1; k < 3 && p->scene == NULL; ++k) {
				open_scene(p, p->scene_arg, tries[k], true);
			}
		}
		fill_from_scene(p, 0, p->agents);
		p->serial++;
	} else {
		p->writer = throng_feed_writer_state(p->feed);
	}
	return true;
}

void vw_play_toggle_pause(vw_play* p)
{
	vw_play_set_paused(p, !p->paused);
}

void vw_play_set_paused(vw_play* p, bool paused)
{
	// Play at the end of a replay starts it again.
	if (!paused && !p->live && p->record_count > 0 && p->index + 1u >= p->record_count) {
		vw_play_seek(p, 0);
	}
	p->paused = paused;
}

bool vw_play_paused(const vw_play* p)
{
	return p->paused;
}

void vw_play_speed(vw_play* p, double factor)
{
	double s = p->speed * factor;
	p->speed = s < 1.0 / 64.0 ? 1.0 / 64.0 : s > 64.0 ? 64.0 : s;
}

const char* vw_play_writer(const vw_play* p)
{
	return throng_writer_state_name(p->writer);
}

/// The shown record's health as shares of full (into p->vigour), or NULL
/// when the stream has no health. Full health is the rebuilt scene's
/// archetype's; without a scene (or for an archetype it does not show),
/// the most any agent of the record has.
static float* shown_vigour(vw_play* p, const vw_record* r)
{
	if ((p->info.fields & THRONG_FIELD_HEALTH) == 0 || r->count == 0) {
		return NULL;
	}
	const float* h = p->health + r->first;
	float most = 0.0f;
	for (uint32_t k = 0; k < r->count; ++k) {
		most = h[k] > most ? h[k] : most;
	}
	for (uint32_t k = 0; k < r->count; ++k) {
		const uint32_t a = p->archetype[r->first + k];
		const throng_combat* c = a < p->base.archetype_count ? &p->base.controllers[a].combat : NULL;
		const float full = c != NULL && c->enabled && c->health > 0.0f ? c->health : most;
		p->vigour[k] = full > 0.0f ? vw_share(h[k], full) : 1.0f;
	}
	return p->vigour;
}

const vw_frame* vw_play_frame(vw_play* p)
{
	vw_frame* f = &p->shown;
	*f = p->base;
	f->vigour = NULL;
	f->vigour_buf = NULL;
	f->combat_state = NULL;
	f->combat_state_buf = NULL;
	f->combat_state_cap = 0;
	f->routing = 0;
	// A stream has no bodies: its dead just leave.
	f->bodies = NULL;
	f->body_count = f->body_cap = 0;
	f->obstacle_body = f->obstacle_body_buf = NULL;
	f->obstacle_body_cap = 0;
	f->units = p->routs;
	f->paused = p->paused;
	f->speed = p->speed;
	f->count = 0;
	if (p->record_count == 0) {
		return f;
	}
	const vw_record* r = &p->records[p->live ? 0 : p->index];
	if (r->count > p->radius_cap) {
		if (!grow((void**)&p->radius, r->count, sizeof *p->radius) ||
		    !grow((void**)&p->vigour, r->count, sizeof *p->vigour)) {
			return f; // nothing drawn rather than garbage
		}
		p->radius_cap = r->count;
	}
	for (uint32_t k = 0; k < r->count; ++k) {
		uint32_t a = p->archetype[r->first + k];
		float rad = a < VW_MAX_ARCHETYPES ? p->radius_of[a] : 0.0f;
		p->radius[k] = rad > 0.0f ? rad : p->radius_default;
	}
	f->vigour = shown_vigour(p, r);
	f->combat_state = p->combat_state != NULL ? p->combat_state + r->first : NULL;
	f->routing = r->routing;
	f->count = f->cap = r->count;
	f->id = p->id + r->first;
	f->group = p->group + r->first;
	f->archetype = p->archetype + r->first;
	f->x = p->x + r->first;
	f->y = p->y + r->first;
	f->hx = p->hx + r->first;
	f->hy = p->hy + r->first;
	f->radius = p->radius;
	f->step = r->step;
	f->sim_time = r->time;
	f->stats.agents_added = r->added;
	f->stats.agents_removed = r->removed;
	f->stats.agents_peak = r->peak;
	f->stats.max_speed_ratio = 0.0f;
	// The cached world layer redraws when this changes.
	f->world_version = (p->live ? p->serial : p->index) + 1u;
	f->serial = f->world_version;
	return f;
}

void vw_play_describe(const vw_play* p, char* buf, size_t cap)
{
	if (p->live) {
		snprintf(buf, cap, "feed %.40s (%s)   %llu frames   %s [space]   %s", p->source,
		         p->writer == THRONG_WRITER_ALIVE ? "live" : vw_play_writer(p),
		         (unsigned long long)p->serial, p->paused ? "FROZEN" : "following", p->note);
		return;
	}
	snprintf(buf, cap, "replay %.40s   frame %llu / %llu   %s x%.3g   (F1: keys)   %s", p->source,
	         (unsigned long long)p->index, (unsigned long long)(p->record_count - 1u), p->paused ? "PAUSED" : "playing",
	         p->speed, p->note);
}
