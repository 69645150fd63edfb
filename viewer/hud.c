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

/// v with a comma between thousands: 1,234,567.
static void thousands(char* buf, size_t cap, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int k = 0; k < n && o + 1 < cap; ++k) {
		if (k > 0 && (n - k) % 3 == 0) {
			buf[o++] = ',';
			if (o + 1 >= cap) {
				break;
			}
		}
		buf[o++] = digits[k];
	}
	buf[o] = '\0';
}

/// The legend: one line per colour in use, in that colour, with how many
/// agents wear it ("group 3", "army 1 role 0", "archetype 2") and how many
/// of those rout; in a world with units, a line in the ring's colour with
/// everyone routing now; in a world with bodies, how many lie on the
/// ground, in the text's colour dimmed as the bodies are (vw_dead).
static void legend_lines(lines* l, const vw_hud_input* in)
{
	const vw_frame* f = in->frame;
	vw_color_mode mode = (vw_color_mode)(in->color_mode % VW_COLOR_MODE_COUNT);
	uint32_t roles = in->army_roles == 0 ? 1u : in->army_roles;
	const SDL_Color* palette = vw_palette(mode, roles);
	enum { KEYS = 16 };
	uint32_t key[KEYS], count[KEYS], routing[KEYS] = {0}, n = 0, more = 0;
	const uint32_t* cs = f->routing > 0 ? f->combat_state : NULL; // NULL: nobody routs
	for (uint32_t k = 0; k < f->count; ++k) {
		uint32_t v = mode == VW_COLOR_ARCHETYPE ? f->archetype[k] : f->group[k];
		uint32_t i = 0;
		while (i < n && key[i] != v) {
			++i;
		}
		if (i == n) {
			if (n == KEYS) {
				more++;
				continue;
			}
			key[n] = v;
			count[n++] = 0;
		}
		count[i]++;
	}
	// The routing among them: a pass of its own, taken only when someone
	// routs (without a branch on each agent's bit).
	for (uint32_t k = 0; cs != NULL && k < f->count; ++k) {
		uint32_t v = mode == VW_COLOR_ARCHETYPE ? f->archetype[k] : f->group[k];
		uint32_t i = 0;
		while (i < n && key[i] != v) {
			++i;
		}
		if (i < n) {
			routing[i] += (cs[k] & THRONG_COMBAT_ROUTING) != 0;
		}
	}
	// In order of group (archetype), the same on every frame.
	for (uint32_t i = 1; i < n; ++i) {
		for (uint32_t j = i; j > 0 && key[j - 1] > key[j]; --j) {
			uint32_t t = key[j];
			key[j] = key[j - 1];
			key[j - 1] = t;
			t = count[j];
			count[j] = count[j - 1];
			count[j - 1] = t;
			t = routing[j];
			routing[j] = routing[j - 1];
			routing[j - 1] = t;
		}
	}
	char text[LINE_CHARS];
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t ci = vw_color_index(mode, roles, key[i], key[i]);
		char name[48];
		if (mode == VW_COLOR_ARMY && roles > 1u) {
			snprintf(name, sizeof name, "army %u/%u", key[i] / roles, key[i] % roles);
		} else {
			snprintf(name, sizeof name, "%s %u", mode == VW_COLOR_ARCHETYPE ? "archetype" : "group", key[i]);
		}
		snprintf(text, sizeof text, "## %s: %u", name, count[i]);
		if (routing[i] > 0) {
			add(l, palette[ci], "%s, %u routing", text, routing[i]);
		} else {
			add(l, palette[ci], "%s", text);
		}
	}
	if (more > 0) {
		add(l, VW_TEXT_DIM, "(%u agents in further %ss)", more, mode == VW_COLOR_ARCHETYPE ? "archetype" : "group");
	}
	if (f->units) {
		add(l, VW_ROUTING, "() routing now: %u (ringed white)", f->routing);
	}
	if (f->body_count > 0) {
		char dead[32];
		thousands(dead, sizeof dead, f->body_count);
		add(l, vw_dead(VW_TEXT), "bodies %s (lying, dimmed)", dead);
	}
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
	char fps[40] = "fps - (first frame)";
	if (in->video_fps > 0.0) {
		// The video plays at its own rate, whatever the capture's drawing took.
		snprintf(fps, sizeof fps, "video %.4g fps", in->video_fps);
	} else if (in->fps > 0.0) {
		snprintf(fps, sizeof fps, "fps %.1f (%.1f ms)", in->fps, in->frame_ms);
	}
	if (in->source != NULL) {
		add(l, WARN, "%s", in->source);
	}
	add(l, VW_TEXT, "%s   obstacles %u   walls %u   zones %u (%u sinks)   sources %u", fps, f->obstacle_count, f->wall_count, f->zone_count, f->sink_count, f->source_count);
	// Agents come and go (issue 33): live now, and what the world's life saw.
	add(l, VW_TEXT, "agents %u live   added %llu   removed %llu   peak %u%s", f->count,
	    (unsigned long long)f->stats.agents_added, (unsigned long long)f->stats.agents_removed, f->stats.agents_peak,
	    f->count == 0 ? "   (empty)" : "");
	if (f->sources_waiting > 0) {
		add(l, WARN, "sources owe %llu agents (no room yet)", (unsigned long long)f->sources_waiting);
	}
	if (in->source != NULL) {
		// A replay or a feed: the step and time it shows; its pace is the source line's.
		add(l, VW_TEXT, "step %llu  t %.2f s", (unsigned long long)f->step, f->sim_time);
		add(l, VW_TEXT_DIM, "mouse off   colour by %s [c]   grid %s [g]",
		    VW_COLOR_MODE_NAMES[in->color_mode % VW_COLOR_MODE_COUNT], in->grid ? "on" : "off");
		legend_lines(l, in);
		return;
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
	    VW_COLOR_MODE_NAMES[in->color_mode % VW_COLOR_MODE_COUNT], in->grid ? "on" : "off");
	legend_lines(l, in);
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

static void help_lines(lines* l, bool replay_keys)
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
	static const char* const replay[] = {
		"replay:",
		"space  play / pause",        "< >    step (n, b; shift x10%)",
		"home   first, end last",     "[ ]    slower / faster",
		"click the timeline to scrub",
	};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
		add(l, VW_TEXT, "%s", keys[k]);
	}
	for (size_t k = 0; replay_keys && k < sizeof replay / sizeof replay[0]; ++k) {
		add(l, WARN, "%s", replay[k]);
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
	if (in->source == NULL) {
		// A replay or a feed has no controllers to tune and no forces to show.
		controller_lines(&l, in);
		focus_lines(&l, in);
	}
	if (in->message != NULL && in->message[0] != '\0') {
		add(&l, WARN, "%s", in->message);
	}
	if (in->frame->error[0] != '\0') {
		add(&l, ERROR_TEXT, "error: %.90s", in->frame->error);
	}
	if (!in->help) {
		add(&l, VW_TEXT_DIM, "F1: keys");
	} else {
		help_lines(&h, in->source != NULL);
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
