// SPDX-License-Identifier: MIT
// Interaction: keys and mouse become camera moves, view toggles, and
// commands to the simulation host.
#ifndef THRONG_VIEWER_INPUT_H
#define THRONG_VIEWER_INPUT_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "camera.h"
#include "sim.h"

typedef enum vw_drag {
	VW_DRAG_NONE = 0,
	VW_DRAG_PRESS,    ///< left button down, not moved yet: a click or a pan
	VW_DRAG_PAN,
	VW_DRAG_OBSTACLE,
} vw_drag;

typedef struct vw_ui {
	bool quit, hud, grid, help;
	uint32_t color_mode;         ///< a vw_color_mode; c cycles
	bool follow;                 ///< the view stays centred on the selected agent
	bool mouse_enabled;          ///< false in captures: the pointer must not steer
	bool fit_request, screenshot_request;
	uint32_t archetype, slot;    ///< what tab, the number keys and +/- act on
	uint32_t selected;           ///< agent id, or VW_NO_AGENT
	uint64_t drop_seen;          ///< the frames' drop_serial last seen
	float mx, my;                ///< cursor (px)
	bool inside;                 ///< cursor over the window
	vw_drag drag;
	float press_x, press_y;
	uint32_t press_obstacle;     ///< obstacle under the press, or UINT32_MAX
	uint32_t drag_obstacle;      ///< UINT32_MAX when none
	throng_vec2 drag_center, drag_offset;
	bool drag_dirty;             ///< drag_center not yet sent
	throng_vec2 mouse_prev;      ///< world (m), for the threat's velocity
	throng_vec2 mouse_vel;       ///< m/s, smoothed
	double mouse_t;
	char message[128];
	double message_until;        ///< s, clock of vw_ui_frame
} vw_ui;

void vw_ui_init(vw_ui* ui, bool hud, bool mouse_enabled);

/// Handles one SDL event at time `now` (s).
void vw_ui_event(vw_ui* ui, const SDL_Event* e, vw_camera* cam, const vw_frame* f, vw_sim* sim, double now);

/// Once a frame: sends the cursor (position and velocity) and a pending
/// obstacle drag to the host, keeps the selection's archetype current, and
/// lets go of a selected agent the host dropped (it left the world).
void vw_ui_frame(vw_ui* ui, vw_camera* cam, const vw_frame* f, vw_sim* sim, double now);

/// Shows `text` in the HUD for two seconds.
void vw_ui_message(vw_ui* ui, double now, const char* text);

#endif
