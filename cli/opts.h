// SPDX-License-Identifier: MIT
// Command-line helpers shared by `throng` (cli/) and `throng-view`
// (viewer/): strict unsigned integers, the library's enum names, one-line
// errors with the program's name, and the scan of "--name value" /
// "--name=value" options.
#ifndef THRONG_CLI_OPTS_H
#define THRONG_CLI_OPTS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "throng/export.h"
#include "throng/throng.h"

/// Exit statuses of throng, throng-mpi and throng-view: one per kind of
/// failure, documented in the README ("Exit status") and each --help.
/// A run stopped by a signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT) exits
/// 128 + N after closing its outputs.
enum {
	CLI_EXIT_OK = 0,      ///< done
	CLI_EXIT_FAILURE = 1, ///< the library failed (out of memory, a simulation error): throng_last_error()
	CLI_EXIT_USAGE = 2,   ///< bad arguments: an unknown option or scenario, a bad value, options that conflict
	CLI_EXIT_INPUT = 3,   ///< an input file is missing, unreadable or damaged (a scenario file's problems)
	CLI_EXIT_OUTPUT = 4,  ///< an output cannot be opened or written (--out, --shm, a screenshot, standard output)
};

/// Parses a whole unsigned integer in [min, max]: decimal digits only, or
/// hexadecimal after "0x" when allow_hex. Rejects an empty string, signs,
/// spaces, fractions, trailing garbage and overflow. Returns false on error.
bool opt_parse_u64(const char* text, uint64_t min, uint64_t max, bool allow_hex, uint64_t* out);

/// opt_parse_u64 for the value of `option`. Otherwise prints "<program>:
/// <option>: expected an integer from <min> to <max>, got "<value>"" (with
/// " (or 0x followed by hex digits)" after <max> when allow_hex) and
/// returns false.
bool opt_parse_integer(const char* program, const char* option, const char* value, uint64_t min, uint64_t max,
                       bool allow_hex, uint64_t* out);

/// opt_parse_integer for a 32-bit value.
bool opt_parse_u32(const char* program, const char* option, const char* value, uint32_t min, uint32_t max,
                   uint32_t* out);

/// Reads an engine name as the library spells it (throng_engine_from_name).
/// Otherwise prints "<program>: <option>: expected scalar or simd, got
/// "<value>"" (the list from throng_engine_name) and returns false.
bool opt_parse_engine(const char* program, const char* option, const char* value, throng_engine* out);

/// The same for an output format (throng_format_from_name, "auto" included).
bool opt_parse_format(const char* program, const char* option, const char* value, throng_format* out);

/// A scenario file sets the count of each of its groups, so --agents does
/// not go with one: when `scenario` names a file (not a built-in) and
/// `agents` is not 0, prints "<program>: --agents: ..." and returns false.
bool opt_check_agents(const char* program, const char* scenario, uint32_t agents);

/// Prints "<program>: <message>\n" on stderr.
void opt_verror(const char* program, const char* fmt, va_list ap);

/// Flushes and closes standard output and checks that everything printed
/// on it reached it (a full disk, /dev/full, a closed pipe fail here, at the
/// latest). On failure prints "<program>: cannot write to standard output:
/// <reason>" and returns false.
bool opt_close_stdout(const char* program);

/// How one command's line is read: its valued options and the words of
/// its errors.
typedef struct opt_spec {
	const char* program;       ///< error prefix: "throng", "throng-view"
	const char* context;       ///< before the message: "run: " or ""
	const char* help;          ///< where to look: "throng run --help"
	const char* const* valued; ///< option names that take a value ("--agents"), at most 64
	size_t n_valued;
	uint64_t* seen;            ///< the caller's mask of valued options given so far (bit k: valued[k]), zeroed first
} opt_spec;

/// What opt_next found.
typedef enum opt_kind {
	OPT_POSITIONAL, ///< the one positional argument (no leading '-', or "-" alone), stored in *positional
	OPT_VALUED,     ///< one of the valued options, with its value
	OPT_ERROR,      ///< a second positional, an unknown option or a missing value; printed
} opt_kind;

/// Reads argv[*i], an argument that is not one of the caller's flags. For
/// a valued option, *name is the matched name from spec->valued and *value
/// the text after '=' or the next argument, which *i then moves to. The
/// errors get one line on stderr: "<program>: <context>unknown option ...".
/// Refused too, as OPT_ERROR: a valued option given a second time (the
/// two values may disagree), and a value that looks like an option ('-'
/// then a letter or a second '-': `--out --quiet` forgot --out's value; a
/// file of that name is written ./--quiet). "-" alone and negative numbers
/// pass, for the option itself to judge.
opt_kind opt_next(const opt_spec* spec, int argc, char** argv, int* i, const char** positional, const char** name,
                  const char** value);

/// A flag: an option without a value, which sets *target to `value`.
typedef struct opt_flag {
	const char* name;  ///< "--quiet"
	const char* alias; ///< "-q", or NULL
	bool* target;
	bool value;
} opt_flag;

/// Applies one valued option to the caller's settings `user`; returns
/// false after printing why its value is refused.
typedef bool opt_apply_fn(const char* name, const char* value, void* user);

/// Reads argv[first..argc): a flag of `flags` sets its target, the one
/// positional argument goes to *positional and a valued option to apply,
/// each read by opt_next's rules. Returns false after the first mistake,
/// which is printed.
bool opt_read(const opt_spec* spec, const opt_flag* flags, size_t n_flags, int argc, char** argv, int first,
              const char** positional, opt_apply_fn* apply, void* user);

/// Whether the valued option `name` (one of spec->valued) was given.
bool opt_given(const opt_spec* spec, const char* name);

#endif
