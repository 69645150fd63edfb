// SPDX-License-Identifier: MIT
// Captures: the renderer's current frame to a PNG file (libpng).
#ifndef THRONG_VIEWER_CAPTURE_H
#define THRONG_VIEWER_CAPTURE_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/// Reads the frame being drawn (call before SDL_RenderPresent) and writes
/// it to `path` as an 8-bit RGB PNG; `fast` trades size for speed
/// (recording). False with the reason in err.
bool vw_capture_png(SDL_Renderer* r, const char* path, bool fast, char* err, size_t err_cap);

/// Makes sure `dir` exists (creates one level). False with the reason in err.
bool vw_capture_dir(const char* dir, char* err, size_t err_cap);

#endif
