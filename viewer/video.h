// SPDX-License-Identifier: MIT
// --video: the frames the window shows, encoded by the ffmpeg program.
#ifndef THRONG_VIEWER_VIDEO_H
#define THRONG_VIEWER_VIDEO_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/// The extensions --video writes, for messages.
#define VW_VIDEO_EXTENSIONS ".mp4, .mov, .mkv, .webm or .gif"

typedef struct vw_video vw_video;

/// Whether `path` ends in an extension --video writes (any case).
bool vw_video_name_ok(const char* path);

/// Finds the ffmpeg program on PATH; its path into out. False when there
/// is none (err says how to install it).
bool vw_video_find_ffmpeg(char* out, size_t cap, char* err, size_t err_cap);

/// Whether `path`'s container can play `fps` frames a second: a GIF keeps
/// its delays in hundredths of a second and players slow down any under
/// two, so it takes at most 50. False with the reason in err.
bool vw_video_rate_ok(const char* path, double fps, char* err, size_t err_cap);

/// Starts ffmpeg (`program`) encoding w x h frames at `fps` frames a second
/// into `path`, through a temporary file beside it (throng/file.h) that
/// becomes `path` at vw_video_finish. Returns NULL with the reason in err.
vw_video* vw_video_open(const char* program, const char* path, int w, int h, double fps, char* err,
                        size_t err_cap);

/// Reads the frame being drawn (call before SDL_RenderPresent) and sends
/// it to ffmpeg. False with the reason in err (ffmpeg's exit and its last
/// words when it stopped); then only vw_video_abort remains.
bool vw_video_write(vw_video* v, SDL_Renderer* r, char* err, size_t err_cap);

/// Frames a second, as the video was opened with.
double vw_video_rate(const vw_video* v);

/// Ends the input, waits for ffmpeg and, when it succeeded, renames the
/// file onto its path. Frees v. False with the reason in err; the path is
/// then as it was.
bool vw_video_finish(vw_video* v, char* err, size_t err_cap);

/// Stops ffmpeg and removes what it wrote; the path stays as it was.
/// Frees v. NULL is ignored.
void vw_video_abort(vw_video* v);

#endif
