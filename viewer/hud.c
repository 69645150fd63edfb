// SPDX-License-Identifier: MIT
// The HUD (see hud.h): lines of text over a translucent panel, top left;
// the key help, when asked for, top right.
#include "hud.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "font.h"
#include "palette.h"

#define MAX_LINES 40
#define LINE_CHARS 112
#define PAD 6

static const SDL_Color PANEL = {8, 10, 14, 200};
static const SDL_Color WARN = {255, 190, 80, 255};
static const SDL_Color ERROR_TEXT = {255, 90, 90, 255};

typedef struct lines {
	char text[MAX_LINES][LINE_CHARS];
	SDL_Color color[MAX_LINES];
	int count;
} lines;

static void add(lines* l, SDL_Color c, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void add(lines* l, SDL_Color c, const char* fmt, ...)
{
	if (l->count >= MAX_LINES) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->text[l->count], LINE_CHARS, fmt, ap);
	va_end(ap);
	l->color[l->count++] = c;
}

/// FNV-1a over the lines' text and colours.
static uint64_t hash_lines(const lines* l, uint64_t h)
{
	for (int k = 0; k < l->count; ++k) {
		for (const unsigned char* p = (const unsigned char*)l->text[k]; *p != '\0'; ++p) {
			h = (h ^ *p) * 1099511628211ull;
		}
		SDL_Color c = l->color[k];
		h = (h ^ ((uint64_t)c.r | (uint64_t)c.g << 8 | (uint64_t)c.b << 16 | (uint64_t)c.a << 24)) * 1099511628211ull;
		h = (h ^ '\n') * 1099511628211ull;
	}
	return h;
}

/// Lays the lines out into panel `k`'s texture (grown as needed).
static bool build_panel(vw_hud* hud, int k, SDL_Renderer* r, const lines* l, int scale)
{
	int w = 0;
	for (int i = 0; i < l->count; ++i) {
		int lw = vw_font_width(scale, l->text[i]);
		w = lw > w ? lw : w;
	}
	w += 2 * PAD;
	int h = l->count * VW_FONT_LINE * scale + 2 * PAD;
	if (hud->texture[k] == NULL || w > hud->w[k] || h > hud->h[k]) {
		if (hud->texture[k] != NULL) {
			SDL_DestroyTexture(hud->texture[k]);
		}
		int tw = w > hud->w[k] ? w : hud->w[k], th = h > hud->h[k] ? h : hud->h[k];
		hud->texture[k] = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, tw, th);
		if (hud->texture[k] == NULL) {
			snprintf(hud->error, sizeof hud->error, "HUD texture: %s", SDL_GetError());
			hud->w[k] = hud->h[k] = 0;
			return false;
		}
		SDL_SetTextureBlendMode(hud->texture[k], SDL_BLENDMODE_BLEND);
		hud->w[k] = tw;
		hud->h[k] = th;
	}
	SDL_Surface* s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
	if (s == NULL) {
		snprintf(hud->error, sizeof hud->error, "HUD surface: %s", SDL_GetError());
		return false;
	}
	SDL_FillRect(s, NULL, SDL_MapRGBA(s->format, PANEL.r, PANEL.g, PANEL.b, PANEL.a));
	for (int i = 0; i < l->count; ++i) {
		vw_font_blit(s, PAD, PAD + i * VW_FONT_LINE * scale, scale, l->color[i], l->text[i]);
	}
	SDL_Rect area = {0, 0, w, h};
	SDL_UpdateTexture(hud->texture[k], &area, s->pixels, s->pitch);
	SDL_FreeSurface(s);
	hud->shown_w[k] = w;
	hud->shown_h[k] = h;
	return true;
}

static const char* mouse_name(vw_mouse_mode m)
{
	return m == VW_MOUSE_TARGET   ? "target (seek/arrive)"
	       : m == VW_MOUSE_THREAT ? "threat (flee/evade; the scene's script waits)"
	                              : "off";
}

static void pace_lines(lines* l, const vw_hud_input* in)
{
	const vw_frame* f = in->frame;
	char threads[32];
	if (f->def.threads != 0) {
		snprintf(threads, sizeof threads, "%u", f->def.threads);
	} else {
		snprintf(threads, sizeof threads, "auto (%d cpus)", SDL_GetCPUCount());
	}
	add(l, VW_TEXT, "throng-view  %s   engine %s, threads %s   renderer %s", in->scene, throng_engine_name(f->def.engine),
	    f->def.engine == THRONG_ENGINE_SIMD ? threads : "1", in->renderer);
	add(l, VW_TEXT, "fps %.1f (%.1f ms)   obstacles %u   walls %u   zones %u (%u sinks)   sources %u", in->fps,
	    in->frame_ms, f->obstacle_count, f->wall_count, f->zone_count, f->sink_count, f->source_count);
	// Agents come and go (issue 33): live now, and what the world's life saw.
	add(l, VW_TEXT, "agents %u live   added %llu   removed %llu   peak %u%s", f->count,
	    (unsigned long long)f->stats.agents_added, (unsigned long long)f->stats.agents_removed, f->stats.agents_peak,
	    f->count == 0 ? "   (empty)" : "");
	if (f->sources_waiting > 0) {
		add(l, WARN, "sources owe %llu agents (no room yet)", (unsigned long long)f->sources_waiting);
	}
	add(l, f->behind ? WARN : VW_TEXT, "step %llu  t %.2f s  %.2f ms/step  %.1f steps/s  x%.2f real time%s",
	    (unsigned long long)f->step, f->sim_time, f->ms_per_step, f->steps_per_s, f->realtime,
	    f->behind ? "  (behind)" : "");
	add(l, f->paused ? WARN : VW_TEXT, "%s   speed x%.3g [ ]", f->paused ? "PAUSED (space, n: step)" : "running (space)",
	    f->speed);
	char overlaps[48] = "n/a";
	if (f->overlaps_valid) {
		snprintf(overlaps, sizeof overlaps, "%llu (step %llu)", (unsigned long long)f->overlaps,
		         (unsigned long long)f->overlaps_step);
	}
	add(l, f->stats.nonfinite > 0 || f->stats.max_speed_ratio > 1.000001f ? WARN : VW_TEXT,
	    "max speed ratio %.4f   nonfinite %llu   overlaps %s", (double)f->stats.max_speed_ratio,
	    (unsigned long long)f->stats.nonfinite, overlaps);
	if (f->outcome_count > 0) {
		char text[LINE_CHARS] = "outcome";
		size_t used = strlen(text);
		for (uint32_t k = 0; k < f->outcome_count && used < sizeof text; ++k) {
			int n = snprintf(text + used, sizeof text - used, "   %s %.4g", f->outcome_name[k], f->outcome_value[k]);
			used += n > 0 ? (size_t)n : 0;
		}
		add(l, VW_TEXT, "%s", text);
	}
	add(l, VW_TEXT_DIM, "mouse %s [m]   colour by %s [c]   grid %s [g]", mouse_name(f->mouse_mode),
	    in->by_archetype ? "archetype" : "group", in->grid ? "on" : "off");
}

static void controller_lines(lines* l, const vw_hud_input* in)
{
	const vw_frame* f = in->frame;
	if (in->archetype >= f->archetype_count) {
		add(l, VW_TEXT_DIM, "no archetype");
		return;
	}
	const throng_controller* c = &f->controllers[in->archetype];
	add(l, VW_TEXT, "archetype %u of %u [a]   blend %s [tab]", in->archetype, f->archetype_count,
	    throng_blend_mode_name(c->mode));
	for (uint32_t k = 0; k < c->slot_count; ++k) {
		const throng_slot* s = &c->slots[k];
		char key = k < 9 ? (char)('1' + k) : k == 9 ? '0' : ' ';
		add(l, s->enabled ? vw_behavior_color(s->kind) : VW_TEXT_DIM, "%s%c [%c] %-20s w %5.2f%s",
		    k == in->slot ? ">" : " ", key, s->enabled ? 'x' : ' ', throng_behavior_kind_name(s->kind),
		    (double)s->weight, c->mode == THRONG_BLEND_HYBRID && s->priority ? "  priority" : "");
	}
}

static void focus_lines(lines* l, const vw_hud_input* in)
{
	const vw_frame* f = in->frame;
	const vw_debug* d = in->debug;
	if (!f->focus.valid) {
		if (f->drop_note[0] != '\0') {
			add(l, WARN, "%s", f->drop_note);
		}
		add(l, VW_TEXT_DIM, "click an agent to debug it");
		return;
	}
	const throng_agent_state* s = &f->focus.state;
	float v = sqrtf(s->velocity.x * s->velocity.x + s->velocity.y * s->velocity.y);
	float t = sqrtf(f->focus.total_force.x * f->focus.total_force.x + f->focus.total_force.y * f->focus.total_force.y);
	add(l, VW_TEXT, "agent %u  group %u  archetype %u  |v| %.2f m/s  |force| %.2f", s->id, s->group, s->archetype,
	    (double)v, (double)t);
	if (d->neighbor_radius > 0.0f) {
		add(l, VW_TEXT, "neighbours %u within %.2f m%s", d->neighbors, (double)d->neighbor_radius,
		    d->same_group_only ? " (same group)" : "");
	}
	if (d->obstacle_hit || d->wall_hit) {
		add(l, VW_FEELER_HIT, "feeler hits %s", d->obstacle_hit && d->wall_hit ? "an obstacle and a wall"
		                                        : d->obstacle_hit              ? "an obstacle"
		                                                                       : "a wall");
	}
	add(l, VW_TOTAL_FORCE, "arrows: slot forces (unweighted), blend thick, velocity white%s",
	    in->follow ? "   view follows [l]" : "");
}

static void help_lines(lines* l)
{
	static const char* const keys[] = {
		"space  pause / run",         "n      single step",
		"[ ]    slower / faster",     "r      reset the scene",
		"m      mouse: off, target, threat",
		"tab    next blend mode",     "1-9,0  toggle slot",
		"up/dn  pick slot",           "+ -    weight (ctrl: x10)",
		"a      next archetype",      "c      colour by group/archetype",
		"g      grid",                "h      HUD",
		"f      fit to world",        "l      follow selected agent",
		"p      screenshot",
		"esc    deselect",            "q      quit",
		"click  select agent",        "drag   move obstacle / pan",
		"wheel  zoom at cursor",
	};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		add(l, VW_TEXT, "%s", keys[k]);
	}
}

void vw_hud_update(vw_hud* hud, SDL_Renderer* r, const vw_hud_input* in, double now)
{
	if (!in->exact && hud->updated > 0.0 && now - hud->updated < 1.0 / VW_HUD_HZ) {
		return;
	}
	lines l, h;
	l.count = 0;
	h.count = 0;
	pace_lines(&l, in);
	controller_lines(&l, in);
	focus_lines(&l, in);
	if (in->message != NULL && in->message[0] != '\0') {
		add(&l, WARN, "%s", in->message);
	}
	if (in->frame->error[0] != '\0') {
		add(&l, ERROR_TEXT, "error: %.90s", in->frame->error);
	}
	if (!in->help) {
		add(&l, VW_TEXT_DIM, "F1: keys");
	} else {
		help_lines(&h);
	}
	uint64_t hash = hash_lines(&h, hash_lines(&l, 14695981039346656037ull)) ^ (uint64_t)in->scale;
	if (hash == hud->hash && hud->updated > 0.0) {
		return;
	}
	hud->hash = hash;
	hud->updated = now;
	build_panel(hud, 0, r, &l, in->scale);
	hud->shown_w[1] = 0;
	if (h.count > 0) {
		build_panel(hud, 1, r, &h, in->scale);
	}
}

void vw_hud_draw(const vw_hud* hud, SDL_Renderer* r, float width)
{
	for (int k = 0; k < 2; ++k) {
		if (hud->texture[k] == NULL || hud->shown_w[k] == 0) {
			continue;
		}
		SDL_Rect src = {0, 0, hud->shown_w[k], hud->shown_h[k]};
		SDL_Rect dst = {k == 0 ? 4 : (int)width - 4 - hud->shown_w[k], 4, hud->shown_w[k], hud->shown_h[k]};
		SDL_RenderCopy(r, hud->texture[k], &src, &dst);
	}
}

void vw_hud_free(vw_hud* hud)
{
	for (int k = 0; k < 2; ++k) {
		if (hud->texture[k] != NULL) {
			SDL_DestroyTexture(hud->texture[k]);
		}
		hud->texture[k] = NULL;
	}
}
