// SPDX-License-Identifier: MIT
// The HUD: frame rate, simulation pace, the scene's numbers, the selected
// archetype's blend mode and slots, the selected agent, and key help.
//
// Its text is laid out into translucent panels that live in textures,
// rebuilt only when their text changes and at most VW_HUD_HZ times a
// second; every frame just copies them.
#ifndef THRONG_VIEWER_HUD_H
#define THRONG_VIEWER_HUD_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "debug.h"
#include "sim.h"

#define VW_HUD_HZ 15.0

typedef struct vw_hud_input {
	const vw_frame* frame;
	const vw_debug* debug;
	const char* scene;
	const char* renderer;
	double fps, frame_ms;     ///< measured by the render loop
	double video_fps;         ///< --video's rate while one is written, else 0
	uint32_t archetype, slot; ///< the archetype and slot the keys act on
	uint32_t color_mode, army_roles; ///< palette.h
	bool grid, help, follow;
	const char* source;       ///< replay or attach: the first line, or NULL
	const char* message;      ///< a transient line, or NULL
	int scale;                ///< font pixels per glyph pixel
	bool exact;               ///< rebuild whenever the text changed (captures)
	float width, height;      ///< window (px)
} vw_hud_input;

/// The two panels: status (top left) and key help (top right).
typedef struct vw_hud {
	SDL_Texture* texture[2];
	int w[2], h[2];           ///< the textures' sizes
	int shown_w[2], shown_h[2]; ///< the part in use; 0 = panel hidden
	uint64_t hash;            ///< of the text last drawn
	double updated;           ///< when (s)
	char error[128];          ///< why the last update failed, if it did
} vw_hud;

/// Rebuilds the panels if their text changed and the last rebuild is at
/// least 1/VW_HUD_HZ s old (`now` in s), or, with in->exact, whenever the
/// text changed.
void vw_hud_update(vw_hud* hud, SDL_Renderer* r, const vw_hud_input* in, double now);

/// Copies the panels to the window.
void vw_hud_draw(const vw_hud* hud, SDL_Renderer* r, float width);

void vw_hud_free(vw_hud* hud);

#endif
