// SPDX-License-Identifier: MIT
// PNG captures through libpng's simplified API (png_image), which reports
// errors in the image struct instead of longjmp-ing out of our code.
#define _POSIX_C_SOURCE 200809L

#include "capture.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool vw_capture_png(SDL_Renderer* r, const char* path, bool fast, char* err, size_t err_cap)
{
	int w = 0, h = 0;
	if (SDL_GetRendererOutputSize(r, &w, &h) != 0 || w <= 0 || h <= 0) {
		snprintf(err, err_cap, "cannot get the frame size: %s", SDL_GetError());
		return false;
	}
	size_t stride = (size_t)w * 3u;
	unsigned char* pixels = malloc(stride * (size_t)h);
	if (pixels == NULL) {
		snprintf(err, err_cap, "out of memory for a %d x %d capture", w, h);
		return false;
	}
	bool ok = false;
	if (SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, pixels, (int)stride) != 0) {
		snprintf(err, err_cap, "cannot read the frame back: %s", SDL_GetError());
	} else {
		png_image img;
		memset(&img, 0, sizeof img);
		img.version = PNG_IMAGE_VERSION;
		img.width = (png_uint_32)w;
		img.height = (png_uint_32)h;
		img.format = PNG_FORMAT_RGB;
		img.flags = fast ? PNG_IMAGE_FLAG_FAST : 0;
		ok = png_image_write_to_file(&img, path, 0, pixels, (png_int_32)stride, NULL) != 0;
		if (!ok) {
			snprintf(err, err_cap, "cannot write %s: %s", path, img.message);
		}
		png_image_free(&img);
	}
	free(pixels);
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
