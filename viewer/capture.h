// SPDX-License-Identifier: MIT
// Captures: the renderer's current frame to a PNG file (libpng).
#ifndef THRONG_VIEWER_CAPTURE_H
#define THRONG_VIEWER_CAPTURE_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/// A frame read back: w x h pixels, 3 bytes (R, G, B) each, rows top to
/// bottom without padding. Zero-initialise; free rgb when done.
typedef struct vw_pixels {
	unsigned char* rgb;
	size_t cap; ///< bytes rgb holds
	int w, h;
} vw_pixels;

/// Reads the frame being drawn (call before SDL_RenderPresent) into px,
/// growing px->rgb when the frame needs more. False with the reason in err.
bool vw_capture_read(SDL_Renderer* r, vw_pixels* px, char* err, size_t err_cap);

/// Reads the frame being drawn (call before SDL_RenderPresent) and writes
/// it to `path` as an 8-bit RGB PNG; `fast` trades size for speed
/// (recording). False with the reason in err.
bool vw_capture_png(SDL_Renderer* r, const char* path, bool fast, char* err, size_t err_cap);

/// Makes sure `dir` exists (creates one level). False with the reason in err.
bool vw_capture_dir(const char* dir, char* err, size_t err_cap);

#endif
