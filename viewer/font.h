// SPDX-License-Identifier: MIT
// A built-in 5x7 bitmap font for the HUD: printable ASCII written straight
// into a surface's pixels (no font files, no SDL_ttf).
#ifndef THRONG_VIEWER_FONT_H
#define THRONG_VIEWER_FONT_H

#include <SDL.h>

/// Advance and line height of one character at scale 1 (px).
#define VW_FONT_ADVANCE 6
#define VW_FONT_LINE 9

/// Writes `text` with its top-left at (x, y) into `s` (32-bit pixels,
/// unlocked or not needing a lock), each font pixel `scale` x `scale`
/// pixels of colour c, clipped to the surface; characters outside
/// printable ASCII show as '?'. Returns the x after the last character.
int vw_font_blit(SDL_Surface* s, int x, int y, int scale, SDL_Color c, const char* text);

/// Width in pixels of `text` at `scale`.
int vw_font_width(int scale, const char* text);

#endif
