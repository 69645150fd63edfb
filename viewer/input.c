// SPDX-License-Identifier: MIT
// Keys and mouse (see input.h; the key list is in args.c's help).
//
// A left press is ambiguous until the mouse moves: released in place it
// selects the agent under the cursor (or deselects), moved more than a few
// pixels it drags the obstacle it started on or pans the view. The right
// and middle buttons always pan.
#include "input.h"

#include "palette.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CLICK_SLOP_PX 4.0f   ///< movement that turns a press into a drag
#define PICK_MIN_PX 8.0f     ///< agents are clickable within at least this
#define ZOOM_STEP 1.2f
#define MESSAGE_S 2.0

void vw_ui_init(vw_ui* ui, bool hud, bool mouse_enabled)
{
	memset(ui, 0, sizeof *ui);
	ui->hud = hud;
	ui->mouse_enabled = mouse_enabled;
	ui->selected = VW_NO_AGENT;
	ui->drag_obstacle = UINT32_MAX;
	ui->press_obstacle = UINT32_MAX;
}

void vw_ui_message(vw_ui* ui, double now, const char* text)
{
	snprintf(ui->message, sizeof ui->message, "%s", text);
	ui->message_until = now + MESSAGE_S;
}

static void post(vw_sim* sim, vw_cmd_kind kind, uint32_t archetype, uint32_t slot, uint32_t index, double value)
{
	vw_cmd c;
	memset(&c, 0, sizeof c);
	c.kind = kind;
	c.archetype = archetype;
	c.slot = slot;
	c.index = index;
	c.value = value;
	if (sim != NULL) { // NULL: a replay or a feed, which nothing steers
		vw_sim_post(sim, &c);
	}
}

/// The agent nearest to screen point (sx, sy) within its drawn size (at
/// least PICK_MIN_PX), or VW_NO_AGENT.
static uint32_t pick_agent(const vw_frame* f, const vw_camera* cam, float sx, float sy)
{
	throng_vec2 w = vw_camera_to_world(cam, sx, sy);
	uint32_t best = VW_NO_AGENT;
	float best_d2 = 0.0f;
	for (uint32_t k = 0; k < f->count; ++k) {
		float dx = f->x[k] - w.x, dy = f->y[k] - w.y;
		float d2 = dx * dx + dy * dy;
		float reach = f->radius[k] * 1.6f;
		float min_reach = PICK_MIN_PX / cam->scale;
		reach = reach > min_reach ? reach : min_reach;
		if (d2 <= reach * reach && (best == VW_NO_AGENT || d2 < best_d2)) {
			best = f->id[k];
			best_d2 = d2;
		}
	}
	return best;
}

static uint32_t pick_obstacle(const vw_frame* f, const vw_camera* cam, float sx, float sy)
{
	throng_vec2 w = vw_camera_to_world(cam, sx, sy);
	for (uint32_t k = f->obstacle_count; k-- > 0;) { // the one drawn on top first
		float dx = f->obstacle_c[k].x - w.x, dy = f->obstacle_c[k].y - w.y;
		float r = f->obstacle_r[k];
		float min_r = PICK_MIN_PX / cam->scale;
		r = r > min_r ? r : min_r;
		if (dx * dx + dy * dy <= r * r) {
			return k;
		}
	}
	return UINT32_MAX;
}

static void select_agent(vw_ui* ui, vw_sim* sim, uint32_t id)
{
	ui->selected = id;
	post(sim, VW_CMD_SELECT, 0, 0, id, 0.0);
}

/// Number keys: 1..9 are slots 0..8, 0 is slot 9.
static int slot_key(SDL_Keycode k)
{
	if (k >= SDLK_1 && k <= SDLK_9) {
		return (int)(k - SDLK_1);
	}
	return k == SDLK_0 ? 9 : -1;
}

static void key(vw_ui* ui, SDL_Keycode k, Uint16 mod, const vw_frame* f, vw_sim* sim, double now)
{
	char msg[96];
	const throng_controller* c = ui->archetype < f->archetype_count ? &f->controllers[ui->archetype] : NULL;
	uint32_t slots = c != NULL ? c->slot_count : 0;
	int sk = slot_key(k);
	bool ctrl = (mod & KMOD_CTRL) != 0;
	if (sk >= 0) {
		if ((uint32_t)sk < slots) {
			ui->slot = (uint32_t)sk;
			post(sim, VW_CMD_TOGGLE_SLOT, ui->archetype, ui->slot, 0, 0.0);
			snprintf(msg, sizeof msg, "slot %d %s: %s", sk + 1, throng_behavior_kind_name(c->slots[sk].kind),
			         c->slots[sk].enabled ? "off" : "on");
			vw_ui_message(ui, now, msg);
		}
		return;
	}
	switch (k) {
	case SDLK_SPACE: post(sim, VW_CMD_PAUSE, 0, 0, 0, 0.0); break;
	case SDLK_n: post(sim, VW_CMD_STEP, 0, 0, 0, 0.0); break;
	case SDLK_LEFTBRACKET: post(sim, VW_CMD_SPEED, 0, 0, 0, 0.5); break;
	case SDLK_RIGHTBRACKET: post(sim, VW_CMD_SPEED, 0, 0, 0, 2.0); break;
	case SDLK_r:
		post(sim, VW_CMD_RESET, 0, 0, 0, 0.0);
		vw_ui_message(ui, now, "reset");
		break;
	case SDLK_m:
		post(sim, VW_CMD_MOUSE_MODE, 0, 0, (uint32_t)(f->mouse_mode + 1) % VW_MOUSE_MODE_COUNT, 0.0);
		break;
	case SDLK_TAB:
		if (c != NULL) {
			post(sim, VW_CMD_BLEND, ui->archetype, 0, 0, 0.0);
			snprintf(msg, sizeof msg, "blend: %s", throng_blend_mode_name(vw_next_blend_mode(c->mode)));
			vw_ui_message(ui, now, msg);
		}
		break;
	case SDLK_UP: ui->slot = slots == 0 ? 0 : (ui->slot + slots - 1) % slots; break;
	case SDLK_DOWN: ui->slot = slots == 0 ? 0 : (ui->slot + 1) % slots; break;
	case SDLK_PLUS:
	case SDLK_EQUALS:
	case SDLK_KP_PLUS:
	case SDLK_MINUS:
	case SDLK_KP_MINUS:
		if (ui->slot < slots) {
			double d = (ctrl ? 1.0 : 0.1) * (k == SDLK_MINUS || k == SDLK_KP_MINUS ? -1.0 : 1.0);
			post(sim, VW_CMD_WEIGHT, ui->archetype, ui->slot, 0, d);
		}
		break;
	case SDLK_a:
		ui->archetype = f->archetype_count == 0 ? 0 : (ui->archetype + 1) % f->archetype_count;
		ui->slot = 0;
		break;
	case SDLK_c: ui->color_mode = (ui->color_mode + 1u) % VW_COLOR_MODE_COUNT; break;
	case SDLK_g: ui->grid = !ui->grid; break;
	case SDLK_h: ui->hud = !ui->hud; break;
	case SDLK_f:
		ui->fit_request = true;
		ui->follow = false;
		break;
	case SDLK_l:
		ui->follow = !ui->follow;
		vw_ui_message(ui, now, ui->follow ? "view follows the selected agent" : "view stays");
		break;
	case SDLK_p: ui->screenshot_request = true; break;
	case SDLK_F1: ui->help = !ui->help; break;
	case SDLK_ESCAPE:
		if (ui->selected != VW_NO_AGENT) {
			select_agent(ui, sim, VW_NO_AGENT);
		} else {
			ui->quit = true;
		}
		break;
	case SDLK_q: ui->quit = true; break;
	default: break;
	}
}

static void button_down(vw_ui* ui, const SDL_MouseButtonEvent* b, const vw_camera* cam, const vw_frame* f)
{
	ui->press_x = (float)b->x;
	ui->press_y = (float)b->y;
	if (b->button == SDL_BUTTON_LEFT) {
		ui->drag = VW_DRAG_PRESS;
		ui->press_obstacle = pick_obstacle(f, cam, ui->press_x, ui->press_y);
	} else {
		ui->drag = VW_DRAG_PAN;
	}
}

static void button_up(vw_ui* ui, const SDL_MouseButtonEvent* b, const vw_camera* cam, const vw_frame* f,
                      vw_sim* sim)
{
	if (ui->drag == VW_DRAG_PRESS && b->button == SDL_BUTTON_LEFT) {
		uint32_t id = pick_agent(f, cam, (float)b->x, (float)b->y);
		select_agent(ui, sim, id);
		if (id != VW_NO_AGENT) {
			for (uint32_t k = 0; k < f->count; ++k) {
				if (f->id[k] == id) {
					ui->archetype = f->archetype[k];
					ui->slot = 0;
				}
			}
		}
	}
	if (ui->drag == VW_DRAG_OBSTACLE) {
		ui->drag_dirty = true; // send the final position
	}
	ui->drag = VW_DRAG_NONE;
}

static void motion(vw_ui* ui, const SDL_MouseMotionEvent* m, vw_camera* cam, const vw_frame* f)
{
	ui->mx = (float)m->x;
	ui->my = (float)m->y;
	ui->inside = true;
	if (ui->drag == VW_DRAG_PRESS) {
		float dx = ui->mx - ui->press_x, dy = ui->my - ui->press_y;
		if (dx * dx + dy * dy > CLICK_SLOP_PX * CLICK_SLOP_PX) {
			if (ui->press_obstacle != UINT32_MAX && ui->press_obstacle < f->obstacle_count) {
				ui->drag = VW_DRAG_OBSTACLE;
				ui->drag_obstacle = ui->press_obstacle;
				throng_vec2 w = vw_camera_to_world(cam, ui->press_x, ui->press_y);
				throng_vec2 c = f->obstacle_c[ui->drag_obstacle];
				ui->drag_offset = (throng_vec2){c.x - w.x, c.y - w.y};
			} else {
				ui->drag = VW_DRAG_PAN;
				ui->follow = false;
				vw_camera_pan(cam, dx, dy); // catch up with the slop
				return;
			}
		}
	}
	if (ui->drag == VW_DRAG_PAN) {
		ui->follow = false;
		vw_camera_pan(cam, (float)m->xrel, (float)m->yrel);
	} else if (ui->drag == VW_DRAG_OBSTACLE) {
		throng_vec2 w = vw_camera_to_world(cam, ui->mx, ui->my);
		ui->drag_center = (throng_vec2){w.x + ui->drag_offset.x, w.y + ui->drag_offset.y};
		ui->drag_dirty = true;
	}
}

void vw_ui_event(vw_ui* ui, const SDL_Event* e, vw_camera* cam, const vw_frame* f, vw_sim* sim, double now)
{
	switch (e->type) {
	case SDL_QUIT: ui->quit = true; break;
	case SDL_KEYDOWN: key(ui, e->key.keysym.sym, e->key.keysym.mod, f, sim, now); break;
	case SDL_MOUSEBUTTONDOWN: button_down(ui, &e->button, cam, f); break;
	case SDL_MOUSEBUTTONUP: button_up(ui, &e->button, cam, f, sim); break;
	case SDL_MOUSEMOTION: motion(ui, &e->motion, cam, f); break;
	case SDL_MOUSEWHEEL:
		if (e->wheel.y != 0) {
			vw_camera_zoom_at(cam, ui->mx, ui->my, powf(ZOOM_STEP, (float)e->wheel.y));
		}
		break;
	case SDL_WINDOWEVENT:
		if (e->window.event == SDL_WINDOWEVENT_ENTER) {
			ui->inside = true;
		} else if (e->window.event == SDL_WINDOWEVENT_LEAVE) {
			ui->inside = false;
		} else if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
			cam->width = (float)e->window.data1;
			cam->height = (float)e->window.data2;
		}
		break;
	default: break;
	}
}

void vw_ui_frame(vw_ui* ui, vw_camera* cam, const vw_frame* f, vw_sim* sim, double now)
{
	if (ui->drag_dirty && ui->drag_obstacle < f->obstacle_count) {
		vw_cmd c;
		memset(&c, 0, sizeof c);
		c.kind = VW_CMD_OBSTACLE;
		c.index = ui->drag_obstacle;
		c.point = ui->drag_center;
		c.value = f->obstacle_r[ui->drag_obstacle];
		if (sim != NULL) {
			vw_sim_post(sim, &c);
		}
		ui->drag_dirty = false;
	}
	if (ui->drag != VW_DRAG_OBSTACLE && !ui->drag_dirty && ui->drag_obstacle != UINT32_MAX &&
	    ui->drag_obstacle < f->obstacle_count) {
		// Released: keep drawing it where it was dropped until the host's
		// frame has it there too.
		throng_vec2 c = f->obstacle_c[ui->drag_obstacle];
		if (c.x == ui->drag_center.x && c.y == ui->drag_center.y) {
			ui->drag_obstacle = UINT32_MAX;
		}
	}
	if (ui->archetype >= f->archetype_count) {
		ui->archetype = 0;
	}
	if (f->drop_serial != ui->drop_seen) {
		// The host dropped agent f->dropped: removed, or gone after a reset.
		ui->drop_seen = f->drop_serial;
		if (ui->selected == f->dropped) {
			ui->selected = VW_NO_AGENT;
		}
	}
	if (ui->follow && f->focus.valid && f->focus.state.id == ui->selected) {
		cam->center = f->focus.state.position;
	}
	if (now > ui->message_until) {
		ui->message[0] = '\0';
	}
	if (!ui->mouse_enabled) {
		return;
	}
	throng_vec2 w = vw_camera_to_world(cam, ui->mx, ui->my);
	double dt = now - ui->mouse_t;
	if (dt > 1e-3) {
		// Smoothed cursor velocity for evade's prediction.
		float a = 0.35f;
		float vx = (float)((double)(w.x - ui->mouse_prev.x) / dt), vy = (float)((double)(w.y - ui->mouse_prev.y) / dt);
		ui->mouse_vel.x = (1.0f - a) * ui->mouse_vel.x + a * vx;
		ui->mouse_vel.y = (1.0f - a) * ui->mouse_vel.y + a * vy;
		ui->mouse_prev = w;
		ui->mouse_t = now;
	}
	// An obstacle drag or pan should not drag the crowd along.
	bool inside = ui->inside && ui->drag != VW_DRAG_OBSTACLE && ui->drag != VW_DRAG_PAN;
	if (sim != NULL) {
		vw_sim_set_mouse(sim, w, ui->mouse_vel, inside);
	}
}
