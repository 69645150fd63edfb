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
	} else if (strcmp(name, "--record") == 0) {
		out->record = value;
	} else { // --renderer
		out->renderer = value;
	}
	return true;
}

int vw_parse_args(int argc, char** argv, vw_args* out)
{
	static const char* const valued[] = {"--agents", "--seed",     "--engine", "--threads", "--screenshot",
	                                     "--record", "--frames",   "--width",  "--height",  "--fps",
	                                     "--renderer", "--benchmark-frames", "--select", "--zoom",
	                                     "--steps-per-frame"};
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
	if (out->scenario == NULL) {
		out->scenario = "herd";
	}
	if (out->benchmark_frames != 0 && (out->screenshot != NULL || out->record != NULL)) {
		vw_error("--benchmark-frames runs in real time and cannot be combined with --screenshot or --record");
		return VW_EXIT_USAGE;
	}
	if (out->steps_per_frame != 0 && out->screenshot == NULL && out->record == NULL) {
		vw_error("--steps-per-frame applies to --screenshot and --record (in real time the clock sets the pace)");
		return VW_EXIT_USAGE;
	}
	if (out->steps_per_frame == 0) {
		out->steps_per_frame = 1;
	}
	if (out->frames == 0 && out->screenshot != NULL) {
		out->frames = 1;
	}
	return VW_EXIT_OK;
}

void vw_print_help(void)
{
	fputs(
		"Usage: throng-view [scenario | FILE.yaml] [options]\n"
		"\n"
		"Watch, poke and debug a crowd. Scenarios: the library's built-in ones\n"
		"(`throng list`: herd, circle, field, ..., and `solo`: one agent and three\n"
		"obstacles, the seeds' playground, steered by the mouse), or a scenario file\n"
		"(docs/SCENARIOS.md; .yaml, .yml, .json, or any path with '/'). Default: herd.\n"
		"\n"
		"Options:\n"
		"  --agents N             agents (default: the scenario's; not with a file)\n"
		"  --engine simd|scalar   engine (default simd)\n"
		"  --threads T            OpenMP threads of the SIMD engine (default: OpenMP's)\n"
		"  --seed X               world seed, decimal or 0x-hex (default 1)\n"
		"  --width W --height H   window size in pixels (default 1280 x 720)\n"
		"  --screenshot FILE.png  render --frames frames (default 1), one simulation\n"
		"                         step per frame, and write the last one as PNG\n"
		"  --record DIR           write every frame as DIR/frame_NNNNNN.png, until\n"
		"                         --frames N frames or the window is closed (without\n"
		"                         a display, --frames is required)\n"
		"  --frames N             stop after N frames\n"
		"  --steps-per-frame N    with --screenshot or --record: N simulation steps\n"
		"                         between frames (default 1; frame n shows step n*N)\n"
		"  --benchmark-frames N   run in real time, then print fps and ms per step\n"
		"  --fps N                frame-rate cap (default 60, 40 while the simulation\n"
		"                         cannot keep real time; 0 = none)\n"
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
		"Without a display, --screenshot and --record use SDL's offscreen driver\n"
		"(or set SDL_VIDEODRIVER=offscreen or dummy).\n"
		"A capture never removes an existing path: a regular file is written beside\n"
		"it and renamed onto it when whole; a device or pipe is written in place.\n"
		"\n"
		"Keys:\n"
		"  space pause      n single step    [ ] slower/faster    r reset\n"
		"  m mouse: off / target (seek, arrive) / threat (flee, evade)\n"
		"  tab blend mode   1-9,0 toggle slot    up/down pick slot\n"
		"  + - weight of the picked slot (ctrl: x10)    a next archetype\n"
		"  c colour by group/archetype   g grid   h HUD   f fit   l follow selected\n"
		"  p screenshot (throng-view-NNN.png)\n"
		"  F1 key help      esc deselect, q quit\n"
		"Mouse: click an agent to debug it, drag an obstacle to move it, drag\n"
		"elsewhere (or with the right button) to pan, wheel to zoom.\n",
		stdout);
}
