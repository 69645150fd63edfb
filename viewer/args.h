// SPDX-License-Identifier: MIT
// Command-line options of throng-view (strict numbers, one-line errors).
#ifndef THRONG_VIEWER_ARGS_H
#define THRONG_VIEWER_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"
#include "throng/throng.h"

/// Exit statuses, the same as throng's (cli/opts.h, CLI_EXIT_*): 0 success,
/// 1 a run-time failure (display, library), 2 bad usage, 3 a scenario file
/// missing or damaged, 4 a screenshot or recorded frame not written.
enum {
	VW_EXIT_OK = CLI_EXIT_OK,
	VW_EXIT_FAILURE = CLI_EXIT_FAILURE,
	VW_EXIT_USAGE = CLI_EXIT_USAGE,
	VW_EXIT_INPUT = CLI_EXIT_INPUT,
	VW_EXIT_OUTPUT = CLI_EXIT_OUTPUT,
};

#define VW_MAX_AGENTS 10000000u
#define VW_MAX_THREADS 1024u
#define VW_MAX_FRAMES 100000000u
#define VW_MIN_SIDE 64u
#define VW_MAX_SIDE 8192u

/// Everything the command line can set.
typedef struct vw_args {
	const char* scenario;      ///< points into argv; default "herd"
	uint32_t agents;           ///< 0 = the scenario's default
	uint64_t seed;             ///< default 1
	throng_engine engine;      ///< default simd
	uint32_t threads;          ///< 0 = OpenMP's default
	const char* screenshot;    ///< PNG written after the last frame, or NULL
	const char* record;        ///< directory that receives every frame, or NULL
	const char* video;         ///< --video FILE: every frame encoded by ffmpeg, or NULL
	uint32_t frames;           ///< 0 = run until closed (1 with --screenshot)
	uint32_t steps_per_frame;  ///< captures: simulation steps between frames, default 1
	uint32_t benchmark_frames; ///< 0 = no benchmark
	uint32_t width, height;    ///< window size (px), default 1280 x 720
	uint32_t fps;              ///< frame-rate cap, default 60; 0 = uncapped; with --video its frame rate
	bool fps_given;
	const char* renderer;      ///< SDL render driver name, or NULL = automatic
	uint32_t select;           ///< agent id selected at start, or UINT32_MAX (ids are not bounded by the count)
	float zoom;                ///< start zoom relative to fit-to-world, default 1
	uint32_t color_mode;       ///< a vw_color_mode (palette.h), --color; default group
	uint32_t steps;            ///< --steps N: the capture (or the replay's first frame) shows step N
	bool steps_given;
	const char* replay;        ///< --replay FILE: a binary stream to play back, or NULL
	const char* scene;         ///< --scene: the scene (or file) a replay or feed is drawn in; NULL = its header's
	const char* attach;        ///< --attach NAME: a live --shm feed to follow, or NULL
	bool hud;                  ///< default on; --no-hud turns it off
	bool paused;               ///< --paused: start paused
	bool help;
} vw_args;

/// Parses argv[1..argc). Returns VW_EXIT_OK, or VW_EXIT_USAGE after printing
/// one line that names the bad argument to stderr.
int vw_parse_args(int argc, char** argv, vw_args* out);

/// Whether the run captures (--screenshot, --record, --video): lockstep,
/// one step (or --steps-per-frame steps) per frame.
bool vw_args_capture(const vw_args* a);

/// Prints the usage text (options and keys) to stdout.
void vw_print_help(void);

/// Prints "throng-view: " and the formatted message and a newline to stderr.
void vw_error(const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

#endif
