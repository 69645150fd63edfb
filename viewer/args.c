// SPDX-License-Identifier: MIT
// Strict argument parsing for throng-view.
//
// Every bad argument gets one line on stderr that names it and quotes what
// was given, and exit status 2. Integers and the option scan: cli/opts.c,
// shared with the throng command.
#include "args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opts.h"
#include "palette.h"
#include "video.h"

void vw_error(const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	opt_verror("throng-view", fmt, ap);
	va_end(ap);
}

/// Whether `name` may receive a PNG: its extension is ".png" (any case),
/// or it has none (a device, a FIFO). "shot.jpg" would hold a PNG under a
/// name that promises another format.
static bool vw_png_name(const char* name)
{
	const char* base = strrchr(name, '/');
	base = base != NULL ? base + 1 : name;
	const char* dot = strrchr(base, '.');
	return dot == NULL || dot == base || strcasecmp(dot, ".png") == 0;
}

/// opt_parse_u32 for throng-view.
static bool option_u32(const char* name, const char* value, uint32_t min, uint32_t max, uint32_t* out)
{
	return opt_parse_u32("throng-view", name, value, min, max, out);
}

static bool apply_option(const char* name, const char* value, void* user)
{
	vw_args* out = user;
	if (strcmp(name, "--agents") == 0) {
		return option_u32(name, value, 1, VW_MAX_AGENTS, &out->agents);
	}
	if (strcmp(name, "--threads") == 0) {
		return option_u32(name, value, 1, VW_MAX_THREADS, &out->threads);
	}
	if (strcmp(name, "--frames") == 0) {
		return option_u32(name, value, 1, VW_MAX_FRAMES, &out->frames);
	}
	if (strcmp(name, "--steps-per-frame") == 0) {
		return option_u32(name, value, 1, 1000000, &out->steps_per_frame);
	}
	if (strcmp(name, "--benchmark-frames") == 0) {
		return option_u32(name, value, 1, VW_MAX_FRAMES, &out->benchmark_frames);
	}
	if (strcmp(name, "--width") == 0) {
		return option_u32(name, value, VW_MIN_SIDE, VW_MAX_SIDE, &out->width);
	}
	if (strcmp(name, "--height") == 0) {
		return option_u32(name, value, VW_MIN_SIDE, VW_MAX_SIDE, &out->height);
	}
	if (strcmp(name, "--fps") == 0) {
		out->fps_given = true;
		return option_u32(name, value, 0, 1000, &out->fps);
	}
	if (strcmp(name, "--select") == 0) {
		// Any id a world can give (ids are never reused, so they outgrow the count).
		return option_u32(name, value, 0, UINT32_MAX - 1u, &out->select);
	}
	if (strcmp(name, "--zoom") == 0) {
		char* end = NULL;
		double z = value[0] != '\0' && value[0] != ' ' ? strtod(value, &end) : 0.0;
		if (end == NULL || *end != '\0' || !(z >= 0.01 && z <= 10000.0)) {
			vw_error("--zoom: expected a number from 0.01 to 10000, got \"%.64s\"", value);
			return false;
		}
		out->zoom = (float)z;
		return true;
	}
	if (strcmp(name, "--steps") == 0) {
		out->steps_given = true;
		return option_u32(name, value, 0, VW_MAX_FRAMES, &out->steps);
	}
	if (strcmp(name, "--color") == 0 || strcmp(name, "--colour") == 0) {
		for (uint32_t m = 0; m < VW_COLOR_MODE_COUNT; ++m) {
			if (strcmp(value, VW_COLOR_MODE_NAMES[m]) == 0) {
				out->color_mode = m;
				return true;
			}
		}
		vw_error("%s: expected group, archetype or army, got \"%.64s\"", name, value);
		return false;
	}
	if (strcmp(name, "--seed") == 0) {
		return opt_parse_integer("throng-view", name, value, 0, UINT64_MAX, true, &out->seed);
	}
	if (strcmp(name, "--engine") == 0) {
		return opt_parse_engine("throng-view", name, value, &out->engine);
	}
	if (value[0] == '\0') {
		vw_error("%s: expected a non-empty value", name);
		return false;
	}
	if (strcmp(name, "--screenshot") == 0) {
		if (!vw_png_name(value)) {
			vw_error("--screenshot: \"%.64s\" has the extension %s; throng-view writes PNG only (give FILE.png)",
			         value, strrchr(value, '.'));
			return false;
		}
		out->screenshot = value;
	} else if (strcmp(name, "--replay") == 0) {
		out->replay = value;
	} else if (strcmp(name, "--scene") == 0) {
		out->scene = value;
	} else if (strcmp(name, "--attach") == 0) {
		out->attach = value;
	} else if (strcmp(name, "--record") == 0) {
		out->record = value;
	} else if (strcmp(name, "--video") == 0) {
		if (!vw_video_name_ok(value)) {
			const char* base = strrchr(value, '/');
			const char* dot = strrchr(base != NULL ? base + 1 : value, '.');
			vw_error("--video: \"%.64s\" %s%s; throng-view writes %s (the container follows the extension)",
			         value, dot != NULL ? "has the extension " : "has no extension", dot != NULL ? dot : "",
			         VW_VIDEO_EXTENSIONS);
			return false;
		}
		out->video = value;
	} else { // --renderer
		out->renderer = value;
	}
	return true;
}

bool vw_args_capture(const vw_args* a)
{
	return a->screenshot != NULL || a->record != NULL || a->video != NULL;
}

int vw_parse_args(int argc, char** argv, vw_args* out)
{
	static const char* const valued[] = {"--agents", "--seed",     "--engine", "--threads", "--screenshot",
	                                     "--record", "--frames",   "--width",  "--height",  "--fps",
	                                     "--renderer", "--benchmark-frames", "--select", "--zoom",
	                                     "--steps-per-frame", "--steps", "--color", "--colour", "--replay",
	                                     "--attach", "--scene", "--video"};
	uint64_t seen = 0;
	const opt_spec spec = {"throng-view", "", "throng-view --help", valued, sizeof valued / sizeof valued[0], &seen};
	memset(out, 0, sizeof *out);
	out->seed = 1;
	out->engine = THRONG_ENGINE_SIMD;
	out->width = 1280;
	out->height = 720;
	out->fps = 60;
	out->hud = true;
	out->select = UINT32_MAX;
	out->zoom = 1.0f;
	const opt_flag flags[] = {{"--help", "-h", &out->help, true},
	                          {"--no-hud", NULL, &out->hud, false},
	                          {"--paused", NULL, &out->paused, true}};
	if (!opt_read(&spec, flags, sizeof flags / sizeof flags[0], argc, argv, 1, &out->scenario, apply_option, out)) {
		return VW_EXIT_USAGE;
	}
	bool scenario_given = out->scenario != NULL;
	if (out->scenario == NULL) {
		out->scenario = "herd";
	}
	if (out->benchmark_frames != 0 && vw_args_capture(out)) {
		vw_error("--benchmark-frames runs in real time and cannot be combined with --screenshot, --record or "
		         "--video");
		return VW_EXIT_USAGE;
	}
	if (out->steps_per_frame != 0 && !vw_args_capture(out)) {
		vw_error("--steps-per-frame applies to --screenshot, --record and --video (in real time the clock sets "
		         "the pace)");
		return VW_EXIT_USAGE;
	}
	if (out->steps_per_frame == 0) {
		out->steps_per_frame = 1;
	}
	if (out->replay != NULL && out->attach != NULL) {
		vw_error("--replay and --attach: give one (a file to play back or a live feed to follow)");
		return VW_EXIT_USAGE;
	}
	if ((out->replay != NULL || out->attach != NULL) && scenario_given) {
		vw_error("%s shows the scene its %s names; drop \"%.64s\"", out->replay != NULL ? "--replay" : "--attach",
		         out->replay != NULL ? "file" : "feed", out->scenario);
		return VW_EXIT_USAGE;
	}
	if ((out->replay != NULL || out->attach != NULL) &&
	    (out->select != UINT32_MAX || out->benchmark_frames != 0 || out->steps_per_frame != 1)) {
		vw_error("%s does not apply to %s", out->select != UINT32_MAX ? "--select"
		                                    : out->benchmark_frames != 0 ? "--benchmark-frames"
		                                                                 : "--steps-per-frame",
		         out->replay != NULL ? "--replay" : "--attach");
		return VW_EXIT_USAGE;
	}
	if (out->replay != NULL && out->agents != 0) {
		vw_error("--agents does not apply to --replay (the file says the run's agents)");
		return VW_EXIT_USAGE;
	}
	if (out->steps_given && !vw_args_capture(out) && out->replay == NULL) {
		vw_error("--steps applies to --screenshot, --record, --video and --replay (the step shown first)");
		return VW_EXIT_USAGE;
	}
	if (out->scene != NULL && out->replay == NULL && out->attach == NULL) {
		vw_error("--scene applies to --replay and --attach (else give the scene as the first argument)");
		return VW_EXIT_USAGE;
	}
	if (out->attach != NULL && (out->record != NULL || out->video != NULL)) {
		vw_error("%s does not apply to --attach (record the run with `throng run --out`, then --replay it)",
		         out->record != NULL ? "--record" : "--video");
		return VW_EXIT_USAGE;
	}
	if (out->video != NULL && out->fps_given && out->fps == 0) {
		vw_error("--fps 0 (no cap) gives --video no frame rate; give 1 to 1000 frames a second, or leave it out "
		         "for real time");
		return VW_EXIT_USAGE;
	}
	if (out->steps_given && out->frames != 0 && out->replay == NULL) {
		vw_error("--steps and --frames: give one (--steps N shows step N)");
		return VW_EXIT_USAGE;
	}
	if (out->steps_given && out->replay == NULL && out->attach == NULL) {
		if (out->steps % out->steps_per_frame != 0) {
			vw_error("--steps %u is not a multiple of --steps-per-frame %u", out->steps, out->steps_per_frame);
			return VW_EXIT_USAGE;
		}
		// Frame 0 shows step 0, frame n step n * steps_per_frame.
		out->frames = out->steps / out->steps_per_frame + 1u;
	}
	if (out->frames == 0 && out->screenshot != NULL && out->replay == NULL && out->attach == NULL) {
		out->frames = 1;
	}
	return VW_EXIT_OK;
}

void vw_print_help(void)
{
	// One buffer for the whole text, written when stdout closes, so a
	// failed write (/dev/full) is seen there with its errno.
	static char buffer[16384];
	setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
	fputs(
		"Usage: throng-view [scenario | FILE.yaml] [options]\n"
		"       throng-view --replay RUN.bin [options]\n"
		"       throng-view --attach NAME [options]\n"
		"\n"
		"Watch, poke and debug a crowd. Scenarios: the library's built-in ones\n"
		"(`throng list`: herd, circle, field, ..., and `solo`: one agent and three\n"
		"obstacles, the seeds' playground, steered by the mouse), or a scenario file\n"
		"(docs/SCENARIOS.md; .yaml, .yml, .json, or any path with '/'). Default: herd.\n"
		"\n"
		"--replay plays back a binary stream (`throng run ... --out RUN.bin`), agents\n"
		"coming and going as recorded; --attach follows a live feed (`throng run ...\n"
		"--shm NAME`). Both rebuild the scene their header names for its walls and\n"
		"obstacles (a scenario file's are not in the stream: give --scene FILE).\n"
		"\n",
		stdout);
	fputs(
		"Options:\n"
		"  --replay FILE          play back a binary stream file\n"
		"  --attach NAME          follow the live shared-memory feed NAME\n"
		"  --scene NAME|FILE      with --replay or --attach: the scene (built-in or\n"
		"                         scenario file) to draw the agents in, for its walls\n"
		"                         and obstacles (default: the one the header names;\n"
		"                         one whose bounds or start count differ is not used;\n"
		"                         a feed does not say the run's --agents: give it)\n"
		"  --color MODE           (or --colour) colour agents by group, archetype or\n"
		"                         army (default group; army: Okabe-Ito colour-blind-\n"
		"                         safe colours: in `armies` west blue, east\n"
		"                         vermillion; in `charge` army 0 blue-green, army 1\n"
		"                         vermillion-orange)\n",
		stdout);
	fputs( // two strings: C99 asks compilers for 4,095 characters a string
		"  --agents N             agents (default: the scenario's; not with a file)\n"
		"  --engine simd|scalar   engine (default simd)\n"
		"  --threads T            OpenMP threads of the SIMD engine (default: OpenMP's)\n"
		"  --seed X               world seed, decimal or 0x-hex (default 1)\n"
		"  --width W --height H   window size in pixels (default 1280 x 720)\n"
		"  --screenshot FILE.png  render --frames frames (default 1), one simulation\n"
		"                         step per frame, and write the last one as PNG;\n"
		"                         with --replay, the frame at --steps (default the first)\n"
		"  --record DIR           write every frame as DIR/frame_NNNNNN.png, until\n"
		"                         --frames N frames or the window is closed (without\n"
		"                         a display, --frames is required); with --replay,\n"
		"                         every frame from --steps to the end (or --frames)\n"
		"  --video FILE           encode the frames --record would write into FILE with\n"
		"                         the ffmpeg program: .mp4, .mov, .mkv (H.264; an odd\n"
		"                         width or height gets one pixel of background), .webm\n"
		"                         (VP9) or .gif (50 fps at most); size --width x\n"
		"                         --height; rate --fps, by default real time (60/N\n"
		"                         with a 1/60 s step and --steps-per-frame N; with\n"
		"                         --replay, the file's frame spacing); in a window,\n"
		"                         frames are shown at that rate\n"
		"  --frames N             stop after N frames\n"
		"  --steps N              with --screenshot: the picture shows step N (frames\n"
		"                         are drawn all the way, the HUD's fps is their rate;\n"
		"                         --record and --video end with step N's frame);\n"
		"                         with --replay: start at the last frame at or before\n"
		"                         step N; with --attach --screenshot: wait for it\n"
		"  --steps-per-frame N    with --screenshot, --record or --video: N steps\n"
		"                         between frames (default 1; frame n shows step n*N)\n"
		"  --benchmark-frames N   run in real time, then print fps and ms per step\n"
		"  --fps N                frame-rate cap (default 60, 40 while the simulation\n"
		"                         cannot keep real time; 0 = none); with --video, the\n"
		"                         video's frames a second\n"
		"  --renderer NAME        SDL render driver (software, opengl, ...; an unknown\n"
		"                         name is refused with the list); default:\n"
		"                         accelerated unless it is a software GL\n"
		"  --select ID            start with agent ID selected and the view following it;\n"
		"                         an agent that leaves the world is let go, the HUD says when\n"
		"  --zoom F               start zoomed F times closer than fit-to-world\n"
		"  --no-hud               start with the HUD hidden\n"
		"  --paused               start paused\n"
		"  -h, --help             this text\n"
		"\n"
		"Without a display, --screenshot, --record and --video use SDL's offscreen driver\n"
		"(or set SDL_VIDEODRIVER=offscreen or dummy).\n"
		"A capture never removes an existing path: a regular file is written beside\n"
		"it and renamed onto it when whole; a device or pipe is written in place.\n"
		"A video is renamed onto FILE only when ffmpeg succeeds; a video of a\n"
		"`throng run`: `throng run ... --out run.bin`, then\n"
		"`throng-view --replay run.bin --video run.mp4`.\n"
		"\n",
		stdout);
	fputs(
		"Keys:\n"
		"  space pause      n single step    [ ] slower/faster    r reset\n"
		"  m mouse: off / target (seek, arrive) / threat (flee, evade)\n"
		"  tab blend mode   1-9,0 toggle slot    up/down pick slot\n"
		"  + - weight of the picked slot (ctrl: x10)    a next archetype\n"
		"  c colour by group/archetype/army (the HUD's legend says which is which)\n"
		"  g grid   h HUD (the world is fitted beside it: f after h refits)   f fit\n"
		"  l follow selected\n"
		"  p screenshot (throng-view-NNN.png)\n"
		"  F1 key help      esc deselect, q quit\n"
		"Replay: space play/pause, right/left (n/b) one frame, with shift a tenth of\n"
		"  the file, home/end (r) the ends, [ ] speed, click or drag the timeline at\n"
		"  the bottom to scrub. Attach: space freezes and follows again.\n"
		"Mouse: click an agent to debug it, drag an obstacle to move it, drag\n"
		"elsewhere (or with the right button) to pan, wheel to zoom.\n",
		stdout);
}
