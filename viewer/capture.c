// SPDX-License-Identifier: MIT
// PNG captures through libpng's simplified API (png_image), which reports
// errors in the image struct instead of longjmp-ing out of our code.
//
// The file goes through the library's throng_output_file (core/
// output_file.c), not png_image_write_to_file: that one removes the path
// when writing fails, even a device node or what a symlink points at. Here
// a regular file is written beside the path and renamed onto it when the
// PNG is whole; a device or a pipe is written in place and never removed.
#define _POSIX_C_SOURCE 200809L

#include "capture.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "throng/export.h"

/// Writes the RGB pixels as a PNG to `path`; false with the reason in err.
static bool write_png(const char* path, const unsigned char* pixels, int w, int h, size_t stride, bool fast,
                      char* err, size_t err_cap)
{
	throng_output_file* file = NULL;
	if (throng_output_file_open(path, &file) != THRONG_OK) {
		snprintf(err, err_cap, "%s", throng_last_error());
		return false;
	}
	int fd = dup(throng_output_file_fd(file));
	FILE* out = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (out == NULL) {
		snprintf(err, err_cap, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		throng_output_file_destroy(file);
		return false;
	}
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = (png_uint_32)w;
	img.height = (png_uint_32)h;
	img.format = PNG_FORMAT_RGB;
	img.flags = fast ? PNG_IMAGE_FLAG_FAST : 0;
	errno = 0;
	bool ok = png_image_write_to_stdio(&img, out, 0, pixels, (png_int_32)stride, NULL) != 0;
	int e = errno;
	if (ok && fflush(out) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		// libpng says "Write Error"; errno says why (EPIPE, ENOSPC, ...).
		snprintf(err, err_cap, "cannot write %s: %s%s%s%s", path, img.message[0] != '\0' ? img.message : "write failed",
		         e != 0 ? " (" : "", e != 0 ? strerror(e) : "", e != 0 ? ")" : "");
	}
	png_image_free(&img);
	if (fclose(out) != 0 && ok) {
		ok = false;
		snprintf(err, err_cap, "cannot write %s: %s", path, strerror(errno));
	}
	if (!ok) {
		throng_output_file_destroy(file); // not committed: removes only the temporary, never the path
		return false;
	}
	if (throng_output_file_commit(file) != THRONG_OK) {
		snprintf(err, err_cap, "%s", throng_last_error());
		ok = false;
	}
	throng_output_file_destroy(file);
	return ok;
}

bool vw_capture_read(SDL_Renderer* r, vw_pixels* px, char* err, size_t err_cap)
{
	int w = 0, h = 0;
	if (SDL_GetRendererOutputSize(r, &w, &h) != 0 || w <= 0 || h <= 0) {
		snprintf(err, err_cap, "cannot get the frame size: %s", SDL_GetError());
		return false;
	}
	size_t stride = (size_t)w * 3u;
	size_t size = stride * (size_t)h;
	if (size > px->cap) {
		unsigned char* grown = realloc(px->rgb, size);
		if (grown == NULL) {
			snprintf(err, err_cap, "out of memory for a %d x %d capture", w, h);
			return false;
		}
		px->rgb = grown;
		px->cap = size;
	}
	px->w = w;
	px->h = h;
	if (SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, px->rgb, (int)stride) != 0) {
		snprintf(err, err_cap, "cannot read the frame back: %s", SDL_GetError());
		return false;
	}
	return true;
}

bool vw_capture_png(SDL_Renderer* r, const char* path, bool fast, char* err, size_t err_cap)
{
	vw_pixels px = {0};
	bool ok = vw_capture_read(r, &px, err, err_cap) &&
	          write_png(path, px.rgb, px.w, px.h, (size_t)px.w * 3u, fast, err, err_cap);
	free(px.rgb);
	return ok;
}

bool vw_capture_dir(const char* dir, char* err, size_t err_cap)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, err_cap, "%s exists and is not a directory", dir);
			return false;
		}
		return true;
	}
	if (mkdir(dir, 0777) != 0) {
		snprintf(err, err_cap, "cannot create directory %s: %s", dir, strerror(errno));
		return false;
	}
	return true;
}
