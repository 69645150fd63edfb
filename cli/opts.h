// SPDX-License-Identifier: MIT
// Command-line helpers shared by `throng` (cli/) and `throng-view`
// (viewer/): strict unsigned integers, one-line errors with the program's
// name, and the scan of "--name value" / "--name=value" options.
#ifndef THRONG_CLI_OPTS_H
#define THRONG_CLI_OPTS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Parses a whole unsigned integer in [min, max]: decimal digits only, or
/// hexadecimal after "0x" when allow_hex. Rejects an empty string, signs,
/// spaces, fractions, trailing garbage and overflow. Returns false on error.
bool opt_parse_u64(const char* text, uint64_t min, uint64_t max, bool allow_hex, uint64_t* out);

/// Prints "<program>: <message>\n" on stderr.
void opt_verror(const char* program, const char* fmt, va_list ap);

/// What one command-line argument is (see opt_scan).
typedef enum opt_kind {
	OPT_POSITIONAL, ///< no leading '-', or "-" alone
	OPT_VALUED,     ///< one of the valued options, with its value
	OPT_UNKNOWN,    ///< starts with '-' but is none of them
	OPT_MISSING,    ///< a valued option that is the last argument, without "=value"
} opt_kind;

/// Classifies argv[*i], an argument that is not one of the caller's flags.
/// For a valued option (`valued`, n names such as "--agents"), *name is the
/// matched name and *value the text after '=' or the next argument, which
/// *i is then advanced to. *name is also set for OPT_MISSING.
opt_kind opt_scan(int argc, char** argv, int* i, const char* const* valued, size_t n, const char** name,
                  const char** value);

#endif
