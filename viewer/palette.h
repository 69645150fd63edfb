// SPDX-License-Identifier: MIT
// The viewer's colours. Agents take the exact colour of their group (or
// archetype), drawn without blending, so a test can look for it pixel by
// pixel: group 0 is VW_GROUP_COLORS[0] = (80, 200, 255).
#ifndef THRONG_VIEWER_PALETTE_H
#define THRONG_VIEWER_PALETTE_H

#include <SDL.h>
#include <stdint.h>

#include "throng/behavior.h"

#define VW_COLOR_COUNT 8

static const SDL_Color VW_BACKGROUND = {18, 20, 26, 255};

/// By group (colour mode "group"), cycling for groups past 7.
static const SDL_Color VW_GROUP_COLORS[VW_COLOR_COUNT] = {
	{80, 200, 255, 255},  {255, 150, 60, 255},  {120, 230, 110, 255}, {245, 95, 165, 255},
	{250, 225, 80, 255},  {175, 135, 255, 255}, {95, 225, 210, 255},  {235, 235, 235, 255},
};

/// By archetype (colour mode "archetype").
static const SDL_Color VW_ARCHETYPE_COLORS[VW_COLOR_COUNT] = {
	{255, 205, 90, 255},  {110, 175, 255, 255}, {255, 110, 110, 255}, {140, 240, 160, 255},
	{220, 140, 255, 255}, {255, 255, 255, 255}, {90, 220, 240, 255},  {240, 160, 110, 255},
};

/// How agents are coloured (the c key cycles, --color chooses).
typedef enum vw_color_mode {
	VW_COLOR_GROUP = 0,
	VW_COLOR_ARCHETYPE,
	VW_COLOR_ARMY, ///< Okabe-Ito (colour-blind safe); see vw_color_index
	VW_COLOR_MODE_COUNT
} vw_color_mode;

static const char* const VW_COLOR_MODE_NAMES[VW_COLOR_MODE_COUNT] = {"group", "archetype", "army"};

/// Army colours, Okabe and Ito's colour-blind-safe set. With several groups
/// an army (`charge`: group = 3 * army + role) army 0 takes the blues and
/// green, army 1 the vermillion, orange and purple: two armies told apart
/// at a glance by hue and lightness, roles by shade within an army.
static const SDL_Color VW_ARMY_COLORS[VW_COLOR_COUNT] = {
	{0, 114, 178, 255},  {86, 180, 233, 255}, {0, 158, 115, 255}, {213, 94, 0, 255},
	{230, 159, 0, 255},  {204, 121, 167, 255}, {240, 228, 66, 255}, {153, 153, 153, 255},
};

/// Okabe-Ito ordered so that neighbouring groups differ most (army mode in
/// a scene where each group is its own side).
static const SDL_Color VW_SIDE_COLORS[VW_COLOR_COUNT] = {
	{0, 114, 178, 255}, {213, 94, 0, 255},   {0, 158, 115, 255}, {230, 159, 0, 255},
	{204, 121, 167, 255}, {86, 180, 233, 255}, {240, 228, 66, 255}, {153, 153, 153, 255},
};

/// The palette of a mode; `roles` is the groups an army has (3 in `charge`,
/// 1 elsewhere: every group a side).
static inline const SDL_Color* vw_palette(vw_color_mode mode, uint32_t roles)
{
	return mode == VW_COLOR_ARCHETYPE ? VW_ARCHETYPE_COLORS
	       : mode == VW_COLOR_ARMY    ? (roles > 1u ? VW_ARMY_COLORS : VW_SIDE_COLORS)
	                                  : VW_GROUP_COLORS;
}

/// An agent's colour dimmed by its wounds: `vigour` is its health's share
/// of full, in [0, 1]; a whole agent keeps its colour, one near death
/// keeps 35 % of it (still told apart from the dark ground).
static inline SDL_Color vw_dim(SDL_Color c, float vigour)
{
	const float k = 0.35f + 0.65f * vigour;
	return (SDL_Color){(Uint8)(c.r * k + 0.5f), (Uint8)(c.g * k + 0.5f), (Uint8)(c.b * k + 0.5f), c.a};
}

/// A body's colour (draw.c): its side's colour c half greyed and dimmed,
/// 0.28 (c + grey(c)) a channel, grey(c) = (77 r + 150 g + 29 b) / 256,
/// in integers so a test can work it out by hand: some 56 % of its
/// brightness at half its saturation. The living are dimmed by wounds
/// (vw_dim) but never greyed, and the dead lie, so they stand apart; the
/// hue still tells the sides: group 0's (80, 200, 255) gives
/// (70, 103, 119), army mode's vermillion (213, 94, 0) (92, 59, 33).
static inline SDL_Color vw_dead(SDL_Color c)
{
	const unsigned grey = (77u * c.r + 150u * c.g + 29u * c.b) >> 8;
	return (SDL_Color){(Uint8)((c.r + grey) * 7u / 25u), (Uint8)((c.g + grey) * 7u / 25u),
	                   (Uint8)((c.b + grey) * 7u / 25u), c.a};
}

/// The ring round a routing soldier (combat_state's THRONG_COMBAT_ROUTING,
/// draw.c): near white, in no palette, so it stands out against the dark
/// ground and every agent colour, dimmed or not, and a test can find it.
static const SDL_Color VW_ROUTING = {250, 250, 250, 255};

/// The index into vw_palette(mode, roles) of an agent.
static inline uint32_t vw_color_index(vw_color_mode mode, uint32_t roles, uint32_t group, uint32_t archetype)
{
	if (mode == VW_COLOR_ARCHETYPE) {
		return archetype % VW_COLOR_COUNT;
	}
	if (mode == VW_COLOR_ARMY && roles > 1u) {
		return (group / roles) % 2u * 3u + group % roles % 3u;
	}
	return group % VW_COLOR_COUNT;
}

/// Groups an army has in scene `scene` (3 in `charge`, else 1).
static inline uint32_t vw_army_roles(const char* scene)
{
	return scene != NULL && SDL_strcmp(scene, "charge") == 0 ? 3u : 1u;
}

/// One colour per behaviour kind, for its force arrow and its HUD line.
static inline SDL_Color vw_behavior_color(throng_behavior_kind kind)
{
	static const SDL_Color c[THRONG_BEHAVIOR_COUNT] = {
		[THRONG_SEEK] = {90, 230, 120, 255},          [THRONG_FLEE] = {255, 90, 90, 255},
		[THRONG_ARRIVE] = {60, 200, 90, 255},         [THRONG_PURSUIT] = {150, 255, 90, 255},
		[THRONG_EVADE] = {255, 140, 60, 255},         [THRONG_WANDER] = {90, 220, 255, 255},
		[THRONG_WANDER_NOISE] = {120, 170, 255, 255}, [THRONG_OBSTACLE_AVOID] = {255, 220, 70, 255},
		[THRONG_WALL_AVOID] = {230, 190, 120, 255},   [THRONG_UNALIGNED_AVOID] = {255, 120, 200, 255},
		[THRONG_SEPARATION] = {255, 170, 220, 255},   [THRONG_ALIGNMENT] = {160, 230, 230, 255},
		[THRONG_COHESION] = {200, 200, 120, 255},     [THRONG_BOUNDS] = {190, 190, 200, 255},
		[THRONG_PATH_FOLLOW] = {150, 210, 90, 255},   [THRONG_ANTICIPATION] = {255, 100, 160, 255},
	};
	// Kinds added to the library later than this table get white.
	return (unsigned)kind < THRONG_BEHAVIOR_COUNT && c[kind].a != 0 ? c[kind] : (SDL_Color){255, 255, 255, 255};
}

/// Zones and sources, outlines under the agents (draw.c). Sinks (exits)
/// stand out; none of these is an agent colour, so a test tells them apart.
static const SDL_Color VW_ZONE = {120, 110, 190, 255};
static const SDL_Color VW_SINK = {230, 60, 50, 255};
static const SDL_Color VW_SOURCE = {40, 190, 90, 255};
static const SDL_Color VW_SOURCE_DONE = {40, 95, 60, 255};

/// The blended force: the seeds' thick violet arrow.
static const SDL_Color VW_TOTAL_FORCE = {185, 95, 255, 255};
static const SDL_Color VW_VELOCITY = {240, 240, 240, 255};
static const SDL_Color VW_FEELER = {150, 160, 150, 255};
static const SDL_Color VW_FEELER_HIT = {255, 50, 50, 255};
static const SDL_Color VW_TEXT = {230, 232, 240, 255};
static const SDL_Color VW_TEXT_DIM = {140, 146, 160, 255};

#endif
