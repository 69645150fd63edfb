// SPDX-License-Identifier: MIT
// The simulation host (see sim.h for the two ways it runs).
//
// Design note. Only the stepping side (the host's thread in real time, the
// caller in lockstep) touches the world. The renderer talks to it through
// a small command queue and a coalesced mouse record, both under one mutex,
// and reads frames through a triple buffer: the stepping side fills `back`,
// then swaps it with `ready` under the mutex; the renderer swaps `ready`
// with `front` when a new one is there. Neither side waits for the other's
// work, only for a pointer swap, so a step longer than a frame (at 100,000
// agents: docs/PERFORMANCE.md, "Viewer") does not hold back a frame.
//
// Pace: the host keeps an accumulator of simulated time owed (wall time
// times the speed factor) and steps while it owes at least dt, but returns
// to publish at least every 1/30 s of wall time. When the owed time exceeds
// a quarter of a second it is dropped and the frame says `behind`: the
// simulation runs as fast as it can rather than spiralling.
#include "sim.h"

#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "throng/metrics.h"

#define QUEUE_CAP 128u
#define STEP_SAMPLES 31u          ///< the median of ms per step covers these
#define MAX_BACKLOG_S 0.25        ///< s of simulated time owed before it is dropped
#define PUBLISH_EVERY_S (1.0 / 30.0)
#define MIN_SPEED (1.0 / 16.0)
#define MAX_SPEED 16.0

struct vw_sim {
	char* scenario;               ///< a copy: a name or a file path
	throng_scene_def options;
	uint32_t overlap_every;
	vw_scene scene;
	uint64_t serial;
	uint64_t world_version;       ///< bumped by steps, resets and obstacle moves

	vw_frame frames[3];
	vw_frame *back, *ready, *front;
	bool fresh;

	SDL_mutex* lock;
	SDL_cond* wake;
	SDL_Thread* thread;
	bool stop;                    ///< under lock
	vw_cmd queue[QUEUE_CAP];      ///< under lock
	uint32_t queue_head, queue_len;
	throng_vec2 mouse_p, mouse_v; ///< under lock
	bool mouse_inside;
	uint32_t mouse_seq;

	// Owned by the stepping side.
	bool paused;
	double speed;
	uint32_t pending_steps;
	vw_mouse_mode mode;
	uint32_t selected;
	uint32_t selected_zone;       ///< the sink that removed `selected` (THRONG_NO_ZONE: none seen)
	bool selected_removed;        ///< an event listed its removal
	uint64_t selected_gone_step;
	uint32_t dropped;             ///< the last selection dropped (see vw_frame)
	uint64_t drop_serial;
	char drop_note[96];
	uint64_t target_added;        ///< agents_added when the mouse target was last applied
	uint32_t applied_seq;
	throng_vec2 applied_p;        ///< the mouse as last taken from the shared record
	bool applied_inside;
	bool target_dirty;
	double step_ms[STEP_SAMPLES];
	uint32_t step_samples, step_next;
	bool overlaps_valid;
	uint64_t overlaps, overlaps_step;
	uint64_t rate_steps;
	double rate_t0, steps_per_s, realtime;
	bool behind;
	double behind_t;              ///< when owed time was last dropped
	char error[256];
};

static double now_s(void)
{
	return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency();
}

static void fail(vw_sim* sim, const char* what)
{
	if (sim->error[0] == '\0') {
		snprintf(sim->error, sizeof sim->error, "%s: %s", what, throng_last_error());
	}
}

/// Opens (or re-opens) the scene and everything that depends on it.
static throng_status open_scene(vw_sim* sim, char* err, size_t err_cap)
{
	throng_status st = vw_scene_open(sim->scenario, &sim->options, &sim->scene, err, err_cap);
	if (st != THRONG_OK) {
		return st;
	}
	sim->world_version++;
	sim->overlaps_valid = false;
	sim->target_dirty = true;
	return THRONG_OK;
}

static void count_overlaps(vw_sim* sim)
{
	if (sim->overlap_every == 0) {
		return;
	}
	uint64_t step = throng_world_get_stats(sim->scene.world).steps;
	if (sim->overlaps_valid && step < sim->overlaps_step + sim->overlap_every) {
		return;
	}
	// Out of memory: no figure rather than a wrong one (the HUD shows none).
	sim->overlaps_valid = throng_world_overlap_stats(sim->scene.world, &sim->overlaps, NULL) == THRONG_OK;
	sim->overlaps_step = step;
}

/// Whether the world has agent `id` (live: not removed).
static bool alive(const vw_sim* sim, uint32_t id)
{
	throng_agent_state a;
	return throng_world_get_agent(sim->scene.world, id, &a) == THRONG_OK;
}

/// Drops a selected agent that left the world, with a note for the HUD
/// that says when and, when a step's events said so, through which sink.
static void drop_selection(vw_sim* sim)
{
	if (sim->selected == VW_NO_AGENT || sim->scene.world == NULL || alive(sim, sim->selected)) {
		return;
	}
	const throng_world* w = sim->scene.world;
	uint64_t step = sim->selected_removed ? sim->selected_gone_step : throng_world_get_stats(w).steps;
	throng_zone_def z;
	if (sim->selected_removed && sim->selected_zone != THRONG_NO_ZONE &&
	    throng_world_get_zone(w, sim->selected_zone, &z, NULL, 0) == THRONG_OK) {
		snprintf(sim->drop_note, sizeof sim->drop_note, "agent %u left at step %llu through sink %u%s%.31s%s",
		         sim->selected, (unsigned long long)step, sim->selected_zone, z.name[0] ? " \"" : "", z.name,
		         z.name[0] ? "\"" : "");
	} else {
		snprintf(sim->drop_note, sizeof sim->drop_note, "agent %u %s at step %llu", sim->selected,
		         sim->selected_removed ? "was removed" : "is not in the world", (unsigned long long)step);
	}
	sim->dropped = sim->selected;
	sim->drop_serial++;
	sim->selected = VW_NO_AGENT;
	sim->selected_removed = false;
}

/// After a step: whether its events removed the selected agent, and how.
static void watch_selection(vw_sim* sim)
{
	const throng_event* ev = NULL;
	uint32_t n = 0;
	if (sim->selected == VW_NO_AGENT || sim->selected_removed ||
	    throng_world_events(sim->scene.world, &ev, &n) != THRONG_OK) {
		return;
	}
	for (uint32_t k = 0; k < n; ++k) {
		if (ev[k].kind == THRONG_EVENT_REMOVED && ev[k].agent == sim->selected) {
			sim->selected_removed = true;
			sim->selected_zone = ev[k].zone;
			sim->selected_gone_step = ev[k].step;
			return;
		}
	}
}

static void publish(vw_sim* sim)
{
	vw_frame* f = sim->back;
	drop_selection(sim);
	if (sim->scene.world != NULL && !vw_frame_fill(f, &sim->scene, sim->selected) &&
	    sim->error[0] == '\0') {
		snprintf(sim->error, sizeof sim->error, "out of memory copying the frame");
	}
	f->overlaps_valid = sim->overlaps_valid;
	f->overlaps = sim->overlaps;
	f->overlaps_step = sim->overlaps_step;
	f->sim_time = (double)f->step * (double)f->def.dt;
	// Median of the recent step times (insertion sort of <= 31 values).
	double sorted[STEP_SAMPLES];
	uint32_t n = sim->step_samples;
	for (uint32_t i = 0; i < n; ++i) {
		double v = sim->step_ms[i];
		uint32_t j = i;
		for (; j > 0 && sorted[j - 1] > v; --j) {
			sorted[j] = sorted[j - 1];
		}
		sorted[j] = v;
	}
	f->ms_per_step = n > 0 ? sorted[n / 2] : 0.0;
	f->steps_per_s = sim->steps_per_s;
	f->realtime = sim->realtime;
	f->paused = sim->paused;
	f->behind = sim->behind;
	f->speed = sim->speed;
	f->mouse_mode = sim->mode;
	f->serial = ++sim->serial;
	f->world_version = sim->world_version;
	f->dropped = sim->dropped;
	f->drop_serial = sim->drop_serial;
	snprintf(f->drop_note, sizeof f->drop_note, "%s", sim->drop_note);
	snprintf(f->error, sizeof f->error, "%s", sim->error);
	if (sim->mode == VW_MOUSE_THREAT) {
		f->threat = sim->applied_p;
		f->threat_active = sim->applied_inside;
	}
	SDL_LockMutex(sim->lock);
	sim->back = sim->ready;
	sim->ready = f;
	sim->fresh = true;
	SDL_UnlockMutex(sim->lock);
}

/// One step of the scene, timed. The scene's script pauses while the mouse
/// is the threat (it would move the threat back).
static void step_once(vw_sim* sim)
{
	if (sim->error[0] != '\0' || sim->scene.world == NULL) {
		return;
	}
	double t0 = now_s();
	if (vw_scene_step(&sim->scene, sim->mode != VW_MOUSE_THREAT) != THRONG_OK) {
		fail(sim, "step");
		return;
	}
	sim->world_version++;
	watch_selection(sim);
	sim->step_ms[sim->step_next] = (now_s() - t0) * 1e3;
	sim->step_next = (sim->step_next + 1) % STEP_SAMPLES;
	if (sim->step_samples < STEP_SAMPLES) {
		sim->step_samples++;
	}
	sim->rate_steps++;
	count_overlaps(sim);
}

static void edit_controller(vw_sim* sim, const vw_cmd* c)
{
	throng_world* w = sim->scene.world;
	throng_controller ctl;
	if (throng_world_get_controller(w, c->archetype, &ctl) != THRONG_OK) {
		return; // stale archetype id: ignore
	}
	if (c->kind == VW_CMD_BLEND) {
		ctl.mode = vw_next_blend_mode(ctl.mode);
	} else if (c->slot >= ctl.slot_count) {
		return;
	} else if (c->kind == VW_CMD_TOGGLE_SLOT) {
		ctl.slots[c->slot].enabled = !ctl.slots[c->slot].enabled;
	} else {
		double wgt = (double)ctl.slots[c->slot].weight + c->value;
		// Snap to 1/1000 so repeated +0.1/-0.1 come back to round numbers.
		wgt = wgt < 0.0 ? 0.0 : (double)(int64_t)(wgt * 1000.0 + 0.5) / 1000.0;
		ctl.slots[c->slot].weight = (float)wgt;
	}
	if (throng_world_set_controller(w, c->archetype, &ctl) != THRONG_OK) {
		fail(sim, "set controller");
	}
}

static void set_mode(vw_sim* sim, vw_mouse_mode mode)
{
	if (sim->mode == VW_MOUSE_THREAT && mode != VW_MOUSE_THREAT && sim->scene.world != NULL) {
		// Hand the threat back to the script: off until it sets it again.
		throng_world_set_threat(sim->scene.world, sim->applied_p, (throng_vec2){0.0f, 0.0f}, false);
		sim->scene.threat_active = false;
	}
	sim->mode = mode;
	sim->target_dirty = true;
}

static void apply(vw_sim* sim, const vw_cmd* c)
{
	switch (c->kind) {
	case VW_CMD_PAUSE:
		sim->paused = !sim->paused;
		break;
	case VW_CMD_STEP:
		sim->paused = true;
		sim->pending_steps++;
		break;
	case VW_CMD_SPEED:
		sim->speed *= c->value;
		sim->speed = sim->speed < MIN_SPEED ? MIN_SPEED : sim->speed > MAX_SPEED ? MAX_SPEED : sim->speed;
		break;
	case VW_CMD_RESET: {
		char err[256];
		vw_scene_close(&sim->scene);
		sim->error[0] = '\0';
		if (open_scene(sim, err, sizeof err) != THRONG_OK) {
			snprintf(sim->error, sizeof sim->error, "reset: %.200s", err);
		}
		sim->step_samples = 0;
		break;
	}
	case VW_CMD_TOGGLE_SLOT:
	case VW_CMD_WEIGHT:
	case VW_CMD_BLEND:
		if (sim->scene.world != NULL) {
			edit_controller(sim, c);
		}
		break;
	case VW_CMD_OBSTACLE:
		// A bad position (outside the world's limits) is refused by the
		// library; the obstacle then stays where it was.
		if (sim->scene.world != NULL) {
			throng_world_set_obstacle(sim->scene.world, c->index, c->point, (float)c->value);
			sim->world_version++;
		}
		break;
	case VW_CMD_SELECT:
		sim->selected = c->index;
		sim->selected_removed = false;
		sim->drop_note[0] = '\0';
		break;
	case VW_CMD_MOUSE_MODE:
		set_mode(sim, (vw_mouse_mode)(c->index % VW_MOUSE_MODE_COUNT));
		break;
	}
}

/// Applies the mouse to the world: every target point, or the threat.
static void apply_mouse(vw_sim* sim, throng_vec2 p, throng_vec2 v, bool inside, uint32_t seq)
{
	throng_world* w = sim->scene.world;
	if (w == NULL) {
		return;
	}
	if (sim->mode == VW_MOUSE_THREAT) {
		if (throng_world_set_threat(w, p, v, inside) == THRONG_OK) {
			sim->scene.threat = p;
			sim->scene.threat_active = inside;
		}
	} else if (sim->mode == VW_MOUSE_TARGET && inside) {
		// Agents come and go: every live id (the view's, with gaps), and
		// again when agents were added since.
		uint64_t added = throng_world_get_stats(w).agents_added;
		if (seq != sim->applied_seq || sim->target_dirty || added != sim->target_added) {
			// A setter may end the view's lifetime: the ids are copied first.
			throng_view v = throng_world_view(w);
			uint32_t* ids = v.count > 0 ? malloc((size_t)v.count * sizeof *ids) : NULL;
			if (ids != NULL) {
				memcpy(ids, v.id, (size_t)v.count * sizeof *ids);
				for (uint32_t k = 0; k < v.count; ++k) {
					throng_world_set_target(w, ids[k], p); // refused only outside the world's limits
				}
				free(ids);
			}
			// Out of memory: tried again with the next mouse record.
			sim->target_dirty = v.count > 0 && ids == NULL;
			sim->target_added = added;
		}
	}
	sim->applied_seq = seq;
	sim->applied_p = p;
	sim->applied_inside = inside;
}

/// Takes the queued commands and the mouse under the lock, applies them
/// outside it. Returns whether anything was applied.
static bool drain(vw_sim* sim)
{
	vw_cmd local[QUEUE_CAP];
	SDL_LockMutex(sim->lock);
	uint32_t n = sim->queue_len;
	for (uint32_t k = 0; k < n; ++k) {
		local[k] = sim->queue[(sim->queue_head + k) % QUEUE_CAP];
	}
	sim->queue_head = (sim->queue_head + n) % QUEUE_CAP;
	sim->queue_len = 0;
	throng_vec2 p = sim->mouse_p, v = sim->mouse_v;
	bool inside = sim->mouse_inside;
	uint32_t seq = sim->mouse_seq;
	SDL_UnlockMutex(sim->lock);
	for (uint32_t k = 0; k < n; ++k) {
		apply(sim, &local[k]);
	}
	bool changed = n > 0 || seq != sim->applied_seq;
	apply_mouse(sim, p, v, inside, seq);
	return changed;
}

/// Updates steps per second and the real-time factor about once a second.
static void update_rate(vw_sim* sim, double t)
{
	if (t - sim->rate_t0 >= 1.0) {
		sim->steps_per_s = (double)sim->rate_steps / (t - sim->rate_t0);
		sim->realtime = sim->scene.world != NULL
		                    ? sim->steps_per_s * (double)throng_world_get_def(sim->scene.world).dt
		                    : 0.0;
		sim->rate_steps = 0;
		sim->rate_t0 = t;
	}
}

static int run_thread(void* data)
{
	vw_sim* sim = data;
	double last = now_s();
	double owed = 0.0;
	for (;;) {
		SDL_LockMutex(sim->lock);
		bool stop = sim->stop;
		SDL_UnlockMutex(sim->lock);
		if (stop) {
			break;
		}
		bool changed = drain(sim);
		double dt = sim->scene.world != NULL ? (double)throng_world_get_def(sim->scene.world).dt : 1.0 / 60.0;
		double t = now_s();
		owed += (t - last) * sim->speed;
		last = t;
		uint32_t stepped = 0;
		if (sim->paused || sim->error[0] != '\0') {
			owed = 0.0;
			if (sim->pending_steps > 0) {
				sim->pending_steps--;
				step_once(sim);
				stepped++;
			}
		} else {
			double batch_start = now_s();
			while (owed >= dt && now_s() - batch_start < PUBLISH_EVERY_S) {
				step_once(sim);
				owed -= dt;
				stepped++;
			}
			if (owed > MAX_BACKLOG_S) {
				owed = 0.0;
				sim->behind_t = now_s();
			}
			// Shown for a second after the last drop, so it does not flicker.
			sim->behind = sim->behind_t > 0.0 && now_s() - sim->behind_t < 1.0;
		}
		update_rate(sim, now_s());
		if (stepped > 0 || changed) {
			publish(sim);
		}
		if (stepped == 0) {
			// Sleep until the next step is due, or a command arrives.
			double wait = sim->paused ? 0.05 : (dt - owed) / sim->speed;
			uint32_t ms = wait > 0.05 ? 50u : wait < 0.001 ? 1u : (uint32_t)(wait * 1e3);
			SDL_LockMutex(sim->lock);
			if (!sim->stop && sim->queue_len == 0) {
				SDL_CondWaitTimeout(sim->wake, sim->lock, ms);
			}
			SDL_UnlockMutex(sim->lock);
		}
	}
	return 0;
}

vw_sim* vw_sim_create(const vw_sim_config* config, throng_status* status, char* err, size_t err_cap)
{
	*status = THRONG_ERR_OUT_OF_MEMORY;
	vw_sim* sim = calloc(1, sizeof *sim);
	if (sim == NULL) {
		snprintf(err, err_cap, "out of memory");
		return NULL;
	}
	size_t len = strlen(config->scenario);
	sim->scenario = malloc(len + 1u);
	if (sim->scenario == NULL) {
		snprintf(err, err_cap, "out of memory");
		free(sim);
		return NULL;
	}
	memcpy(sim->scenario, config->scenario, len + 1u);
	sim->options = config->options;
	sim->options.record_forces = true;
	sim->overlap_every = config->overlap_every;
	sim->paused = config->paused;
	sim->speed = 1.0;
	sim->selected = VW_NO_AGENT;
	sim->back = &sim->frames[0];
	sim->ready = &sim->frames[1];
	sim->front = &sim->frames[2];
	sim->lock = SDL_CreateMutex();
	sim->wake = SDL_CreateCond();
	if (sim->lock == NULL || sim->wake == NULL) {
		snprintf(err, err_cap, "cannot create a mutex: %s", SDL_GetError());
		vw_sim_destroy(sim);
		return NULL;
	}
	*status = open_scene(sim, err, err_cap);
	if (*status != THRONG_OK) {
		vw_sim_destroy(sim);
		return NULL;
	}
	sim->mode = config->mouse_mode != VW_MOUSE_MODE_COUNT ? config->mouse_mode
	            : sim->scene.mouse_target                 ? VW_MOUSE_TARGET
	                                                      : VW_MOUSE_OFF;
	sim->rate_t0 = now_s();
	count_overlaps(sim);
	publish(sim);
	return sim;
}

void vw_sim_destroy(vw_sim* sim)
{
	if (sim == NULL) {
		return;
	}
	if (sim->thread != NULL) {
		SDL_LockMutex(sim->lock);
		sim->stop = true;
		SDL_CondSignal(sim->wake);
		SDL_UnlockMutex(sim->lock);
		SDL_WaitThread(sim->thread, NULL);
	}
	vw_scene_close(&sim->scene);
	for (int k = 0; k < 3; ++k) {
		vw_frame_free(&sim->frames[k]);
	}
	if (sim->wake != NULL) {
		SDL_DestroyCond(sim->wake);
	}
	if (sim->lock != NULL) {
		SDL_DestroyMutex(sim->lock);
	}
	free(sim->scenario);
	free(sim);
}

bool vw_sim_start(vw_sim* sim, char* err, size_t err_cap)
{
	sim->rate_t0 = now_s();
	sim->rate_steps = 0;
	sim->thread = SDL_CreateThread(run_thread, "throng-sim", sim);
	if (sim->thread == NULL) {
		snprintf(err, err_cap, "cannot start the simulation thread: %s", SDL_GetError());
		return false;
	}
	return true;
}

void vw_sim_tick(vw_sim* sim, uint32_t steps)
{
	drain(sim);
	if (sim->paused) {
		steps = sim->pending_steps > 0 ? 1u : 0u;
		sim->pending_steps -= steps;
	}
	for (uint32_t k = 0; k < steps; ++k) {
		step_once(sim);
	}
	update_rate(sim, now_s());
	publish(sim);
}

const vw_frame* vw_sim_acquire(vw_sim* sim)
{
	SDL_LockMutex(sim->lock);
	if (sim->fresh) {
		vw_frame* f = sim->front;
		sim->front = sim->ready;
		sim->ready = f;
		sim->fresh = false;
	}
	SDL_UnlockMutex(sim->lock);
	return sim->front;
}

throng_blend_mode vw_next_blend_mode(throng_blend_mode mode)
{
	throng_blend_mode next = (throng_blend_mode)((int)mode + 1);
	return throng_blend_mode_name(next) != NULL ? next : (throng_blend_mode)0;
}

bool vw_sim_post(vw_sim* sim, const vw_cmd* cmd)
{
	SDL_LockMutex(sim->lock);
	bool ok = sim->queue_len < QUEUE_CAP;
	if (ok) {
		sim->queue[(sim->queue_head + sim->queue_len) % QUEUE_CAP] = *cmd;
		sim->queue_len++;
		SDL_CondSignal(sim->wake);
	}
	SDL_UnlockMutex(sim->lock);
	return ok;
}

void vw_sim_set_mouse(vw_sim* sim, throng_vec2 position, throng_vec2 velocity, bool inside)
{
	// A resting cursor's smoothed velocity only decays towards 0: snap it,
	// or every frame would count as a change.
	if (velocity.x * velocity.x + velocity.y * velocity.y < 1e-6f) {
		velocity = (throng_vec2){0.0f, 0.0f};
	}
	SDL_LockMutex(sim->lock);
	if (position.x != sim->mouse_p.x || position.y != sim->mouse_p.y || velocity.x != sim->mouse_v.x ||
	    velocity.y != sim->mouse_v.y || inside != sim->mouse_inside) {
		sim->mouse_p = position;
		sim->mouse_v = velocity;
		sim->mouse_inside = inside;
		sim->mouse_seq++;
	}
	SDL_UnlockMutex(sim->lock);
}
