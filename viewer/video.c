// SPDX-License-Identifier: MIT
// --video: raw RGB frames piped into the ffmpeg program.
//
// Why the program and not FFmpeg's libraries (libavcodec, libavformat):
// the viewer then links nothing new, builds where FFmpeg's headers are
// missing, and gets whatever encoders the system's ffmpeg has, without
// code that follows libav*'s API from release to release. The price is a
// process and a pipe: a 1280 x 720 frame is 2.7 MB through the pipe, small
// beside drawing it and encoding it.
//
// ffmpeg writes into the temporary file that throng_output_file_open
// makes beside the path (throng/file.h), by name (the MP4 muxer reopens
// its output to move the index to the front), with the container forced
// by -f; the temporary is renamed onto the path only when ffmpeg exits 0,
// so a failed or killed encoder leaves the path as it was. ffmpeg runs in
// a process group of its own: a Ctrl-C at the terminal reaches the viewer
// (SDL turns it into a quit, the video ends whole), not the encoder.
#define _POSIX_C_SOURCE 200809L

#include "video.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "palette.h"
#include "throng/file.h"

#define VW_VIDEO_TAIL 1024 ///< bytes of ffmpeg's stderr that a message quotes, at most

extern char** environ;

/// What each extension is written as: the muxer, the codec's arguments,
/// whether the codec needs an even width and height (H.264 in yuv420p: an
/// odd side is padded by one pixel of the background) and a filter.
typedef struct vw_container {
	const char* ext;
	const char* muxer;
	const char* codec[16];
	bool even;
	const char* filter;
} vw_container;

#define VW_H264 "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p"

static const vw_container CONTAINERS[] = {
	{".mp4", "mp4", {VW_H264, "-movflags", "+faststart"}, true, NULL},
	{".mov", "mov", {VW_H264, "-movflags", "+faststart"}, true, NULL},
	{".mkv", "matroska", {VW_H264}, true, NULL},
	{".webm", "webm",
	 {"-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "good", "-cpu-used", "4", "-row-mt", "1",
	  "-pix_fmt", "yuv420p"},
	 false, NULL},
	// One palette for the whole clip (the viewer draws few colours), no
	// dithering; GIF keeps delays in hundredths of a second.
	{".gif", "gif", {"-loop", "0"}, false, "split[a][b];[a]palettegen=max_colors=256[p];[b][p]paletteuse=dither=none"},
};

#define VW_CONTAINER_COUNT (sizeof CONTAINERS / sizeof CONTAINERS[0])

struct vw_video {
	pid_t pid;
	int pipe;                 ///< ffmpeg's standard input
	FILE* log;                ///< ffmpeg's standard error (a temporary file)
	throng_output_file* out;  ///< the temporary ffmpeg writes, renamed onto path
	char path[1024];
	int w, h;
	double fps;
	vw_pixels px;
	unsigned long long frames;
};

static const vw_container* container_of(const char* path)
{
	const char* base = strrchr(path, '/');
	const char* dot = strrchr(base != NULL ? base + 1 : path, '.');
	for (size_t k = 0; dot != NULL && k < VW_CONTAINER_COUNT; ++k) {
		if (strcasecmp(dot, CONTAINERS[k].ext) == 0) {
			return &CONTAINERS[k];
		}
	}
	return NULL;
}

bool vw_video_name_ok(const char* path)
{
	return container_of(path) != NULL;
}

bool vw_video_find_ffmpeg(char* out, size_t cap, char* err, size_t err_cap)
{
	const char* path = getenv("PATH");
	const char* at = path != NULL ? path : "";
	while (*at != '\0') {
		size_t n = strcspn(at, ":");
		// An empty entry is the working directory, as for the shell.
		int len = snprintf(out, cap, "%.*s%sffmpeg", (int)n, at, n == 0 ? "" : "/");
		struct stat st;
		if (len > 0 && (size_t)len < cap && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) {
			return true;
		}
		at += n + (at[n] == ':');
	}
	snprintf(err, err_cap,
	         "--video: the ffmpeg program is not on PATH (%.200s); install it (Debian: apt-get install ffmpeg, "
	         "or throng's scripts/setup)",
	         path != NULL ? path : "unset");
	return false;
}

bool vw_video_rate_ok(const char* path, double fps, char* err, size_t err_cap)
{
	const vw_container* c = container_of(path);
	if (c != NULL && strcmp(c->muxer, "gif") == 0 && fps > 50.0 + 1e-9) {
		snprintf(err, err_cap,
		         "--video: a GIF plays at most 50 frames a second (its delays are hundredths of a second), not "
		         "%.4g; give --fps 50 or less (--steps-per-frame 2 gives 30, real time at the usual 1/60 s step)",
		         fps);
		return false;
	}
	return true;
}

/// "30" or "29.970030": frames a second as ffmpeg's -framerate reads it.
static void format_rate(double fps, char* buf, size_t cap)
{
	double whole = floor(fps + 0.5);
	if (fabs(fps - whole) <= 1e-6 * fps) {
		snprintf(buf, cap, "%.0f", whole);
	} else {
		snprintf(buf, cap, "%.6f", fps);
	}
}

/// Up to the last three lines ffmpeg wrote to stderr, joined by " | ".
static void log_tail(FILE* log, char* buf, size_t cap)
{
	char text[VW_VIDEO_TAIL + 1];
	buf[0] = '\0';
	if (log == NULL || fseek(log, 0, SEEK_END) != 0) {
		return;
	}
	long size = ftell(log);
	long from = size > VW_VIDEO_TAIL ? size - VW_VIDEO_TAIL : 0;
	if (size <= 0 || fseek(log, from, SEEK_SET) != 0) {
		return;
	}
	size_t n = fread(text, 1, VW_VIDEO_TAIL, log);
	text[n] = '\0';
	const char* lines[3] = {NULL, NULL, NULL};
	size_t kept = 0;
	for (char* line = strtok(text, "\r\n"); line != NULL; line = strtok(NULL, "\r\n")) {
		line += strspn(line, " \t");
		if (*line == '\0') {
			continue;
		}
		if (kept == 3) {
			memmove(lines, lines + 1, 2 * sizeof lines[0]);
			kept = 2;
		}
		lines[kept++] = line;
	}
	size_t used = 0;
	for (size_t k = 0; k < kept && used < cap; ++k) {
		int w = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : " | ", lines[k]);
		used += w > 0 ? (size_t)w : 0u;
	}
}

/// Waits for ffmpeg; true when it exited 0, else what happened into err.
static bool wait_ffmpeg(vw_video* v, char* err, size_t err_cap)
{
	int status = 0;
	pid_t got;
	do {
		got = waitpid(v->pid, &status, 0);
	} while (got < 0 && errno == EINTR);
	v->pid = -1;
	if (got >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		return true;
	}
	char how[96], tail[VW_VIDEO_TAIL + 16];
	if (got < 0) {
		snprintf(how, sizeof how, "could not be waited for (%s)", strerror(errno));
	} else if (WIFSIGNALED(status)) {
		snprintf(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
	}
	log_tail(v->log, tail, sizeof tail);
	snprintf(err, err_cap, "--video: ffmpeg %s after %llu frames; %s not written%s%s", how, v->frames, v->path,
	         tail[0] != '\0' ? "; ffmpeg said: " : " (ffmpeg said nothing)", tail);
	return false;
}

/// Frees what v holds; ffmpeg must be gone.
static void video_free(vw_video* v)
{
	if (v->pipe >= 0) {
		close(v->pipe);
	}
	if (v->log != NULL) {
		fclose(v->log);
	}
	throng_output_file_destroy(v->out); // not committed: removes the temporary only
	free(v->px.rgb);
	free(v);
}

/// ffmpeg's arguments into argv (at most cap - 1 of them, then NULL).
static void build_argv(const char* program, const vw_container* c, const char* size, const char* rate,
                       const char* filter, const char* target, const char** argv, size_t cap)
{
	const char* head[] = {program, "-hide_banner", "-nostats", "-loglevel", "error", "-f", "rawvideo",
	                      "-pixel_format", "rgb24", "-video_size", size, "-framerate", rate, "-i", "pipe:0"};
	size_t n = 0;
	for (size_t k = 0; k < sizeof head / sizeof head[0] && n + 1 < cap; ++k) {
		argv[n++] = head[k];
	}
	if (filter != NULL && n + 3 < cap) {
		argv[n++] = "-vf";
		argv[n++] = filter;
	}
	for (size_t k = 0; k < sizeof c->codec / sizeof c->codec[0] && c->codec[k] != NULL && n + 1 < cap; ++k) {
		argv[n++] = c->codec[k];
	}
	const char* tail[] = {"-f", c->muxer, "-y", target};
	for (size_t k = 0; k < sizeof tail / sizeof tail[0] && n + 1 < cap; ++k) {
		argv[n++] = tail[k];
	}
	argv[n] = NULL;
}

/// Starts ffmpeg with argv, its stdin the read end of v->pipe's pipe.
static bool spawn(vw_video* v, const char* const* argv, char* err, size_t err_cap)
{
	int fds[2];
	if (pipe(fds) != 0) {
		snprintf(err, err_cap, "--video: cannot make a pipe to ffmpeg: %s", strerror(errno));
		return false;
	}
	// The write end stays here: were ffmpeg to inherit it, it would never
	// see the end of its input.
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, fds[0], STDIN_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fileno(v->log), STDERR_FILENO);
	sigset_t none, pipe_signal;
	sigemptyset(&none);
	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE); // ignored here, its default for ffmpeg
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &pipe_signal);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	char* const* args;
	memcpy(&args, &argv, sizeof args); // posix_spawn's argv is not const-qualified
	int e = posix_spawn(&v->pid, argv[0], &fa, &at, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fds[0]);
	if (e != 0) {
		close(fds[1]);
		v->pid = -1;
		snprintf(err, err_cap, "--video: cannot run %s: %s", argv[0], strerror(e));
		return false;
	}
	v->pipe = fds[1];
	return true;
}

vw_video* vw_video_open(const char* program, const char* path, int w, int h, double fps, char* err,
                        size_t err_cap)
{
	const vw_container* c = container_of(path);
	if (c == NULL) {
		snprintf(err, err_cap, "--video: \"%.200s\" is not a %s file", path, VW_VIDEO_EXTENSIONS);
		return NULL;
	}
	if (!(fps > 0.0) || w <= 0 || h <= 0) {
		snprintf(err, err_cap, "--video: cannot encode %d x %d frames at %g a second", w, h, fps);
		return NULL;
	}
	vw_video* v = calloc(1, sizeof *v);
	if (v == NULL) {
		snprintf(err, err_cap, "--video: out of memory");
		return NULL;
	}
	v->pid = -1;
	v->pipe = -1;
	v->w = w;
	v->h = h;
	v->fps = fps;
	snprintf(v->path, sizeof v->path, "%s", path);
	if (throng_output_file_open(path, &v->out) != THRONG_OK) {
		snprintf(err, err_cap, "--video: %s", throng_last_error());
		video_free(v);
		return NULL;
	}
	const char* target = throng_output_file_write_path(v->out);
	v->log = tmpfile();
	if (target == NULL || v->log == NULL) {
		snprintf(err, err_cap, "--video: %s",
		         target == NULL ? "ffmpeg writes a file by name, not to a standard stream"
		                        : "cannot make a temporary file for ffmpeg's messages");
		video_free(v);
		return NULL;
	}
	char size[32], rate[32], pad[96];
	snprintf(size, sizeof size, "%dx%d", w, h);
	format_rate(fps, rate, sizeof rate);
	const char* filter = c->filter;
	if (c->even && (w % 2 != 0 || h % 2 != 0)) {
		// The viewer's background along the right or bottom edge.
		snprintf(pad, sizeof pad, "pad=%d:%d:0:0:color=0x%02x%02x%02x", w + w % 2, h + h % 2, VW_BACKGROUND.r,
		         VW_BACKGROUND.g, VW_BACKGROUND.b);
		filter = pad;
	}
	const char* argv[64];
	build_argv(program, c, size, rate, filter, target, argv, sizeof argv / sizeof argv[0]);
	if (!spawn(v, argv, err, err_cap)) {
		video_free(v);
		return NULL;
	}
	return v;
}

bool vw_video_write(vw_video* v, SDL_Renderer* r, char* err, size_t err_cap)
{
	if (!vw_capture_read(r, &v->px, err, err_cap)) {
		char why[256];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, err_cap, "--video: %s", why);
		return false;
	}
	if (v->px.w != v->w || v->px.h != v->h) {
		snprintf(err, err_cap, "--video: the window is now %d x %d; the video is %d x %d and keeps that size",
		         v->px.w, v->px.h, v->w, v->h);
		return false;
	}
	const unsigned char* at = v->px.rgb;
	size_t left = (size_t)v->w * (size_t)v->h * 3u;
	while (left > 0) {
		ssize_t n = write(v->pipe, at, left);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			// EPIPE: ffmpeg has gone; its exit says why.
			int e = n < 0 ? errno : EIO;
			close(v->pipe);
			v->pipe = -1;
			if (wait_ffmpeg(v, err, err_cap)) {
				snprintf(err, err_cap, "--video: cannot send frame %llu to ffmpeg: %s; %s not written", v->frames,
				         strerror(e), v->path);
			}
			return false;
		}
		at += n;
		left -= (size_t)n;
	}
	v->frames++;
	return true;
}

double vw_video_rate(const vw_video* v)
{
	return v->fps;
}

bool vw_video_finish(vw_video* v, char* err, size_t err_cap)
{
	close(v->pipe);
	v->pipe = -1;
	bool ok = false;
	if (v->pid <= 0) { // a failed write waited for it already
		snprintf(err, err_cap, "--video: ffmpeg stopped before the end; %s not written", v->path);
	} else {
		ok = wait_ffmpeg(v, err, err_cap);
	}
	if (ok && throng_output_file_commit(v->out) != THRONG_OK) {
		snprintf(err, err_cap, "--video: %s", throng_last_error());
		ok = false;
	}
	video_free(v);
	return ok;
}

void vw_video_abort(vw_video* v)
{
	if (v == NULL) {
		return;
	}
	if (v->pid > 0) {
		kill(v->pid, SIGTERM);
		char ignored[16];
		wait_ffmpeg(v, ignored, sizeof ignored);
	}
	video_free(v);
}
