// SPDX-License-Identifier: MIT
// Numbers go through strtoull with an end pointer, errno and range checks;
// a leading sign or space is rejected up front because strtoull would
// silently accept "-5" as 2^64 - 5.
//
// Why not getopt_long, the convention: it accepts any unambiguous prefix
// of a long option (--ag for --agents), so a name added later silently
// changes what an old command line means; it takes the next argument as
// a value whatever it looks like (`--out --quiet`); it keeps the last of
// a repeated option without a word; its messages are its own, in its own
// words, without the subcommand's context or the list of valid values;
// and its state is global (optind), which the viewer and throng-mpi's
// pre-pass would have to reset. opt_next is the small part of it throng
// needs, with those rules (opts.h) and one message per mistake; opt_read
// runs it over a whole line for throng run and throng-view, each giving
// its flags as a table and its valued options to its own apply.
#include "opts.h"

#include "throng/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool opt_parse_u64(const char* text, uint64_t min, uint64_t max, bool allow_hex, uint64_t* out)
{
	if (text == NULL || !isdigit((unsigned char)text[0])) {
		return false; // empty, sign, space, letter, '.'
	}
	int base = 10;
	const char* digits = text;
	if (allow_hex && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		digits = text + 2;
		if (!isxdigit((unsigned char)digits[0])) {
			return false;
		}
	}
	errno = 0;
	char* end = NULL;
	unsigned long long v = strtoull(digits, &end, base);
	if (errno == ERANGE || end == digits || *end != '\0') {
		return false;
	}
	if ((uint64_t)v < min || (uint64_t)v > max) {
		return false;
	}
	*out = (uint64_t)v;
	return true;
}

void opt_verror(const char* program, const char* fmt, va_list ap)
{
	fprintf(stderr, "%s: ", program);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/// opt_verror with a variable argument list.
static void opt_error(const char* program, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

bool opt_close_stdout(const char* program)
{
	errno = 0;
	bool failed = ferror(stdout) != 0;
	failed = fflush(stdout) != 0 || failed;
	int e = errno;
	failed = fclose(stdout) != 0 || failed;
	e = e != 0 ? e : errno;
	if (failed) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", program, e != 0 ? strerror(e) : "write error");
	}
	return !failed;
}

static void opt_error(const char* program, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	opt_verror(program, fmt, ap);
	va_end(ap);
}

opt_kind opt_next(const opt_spec* spec, int argc, char** argv, int* i, const char** positional, const char** name,
                  const char** value)
{
	const char* arg = argv[*i];
	*name = NULL;
	*value = NULL;
	if (arg[0] != '-' || arg[1] == '\0') {
		if (*positional != NULL) {
			opt_error(spec->program, "%sunexpected argument \"%.64s\" (one scenario only, already have \"%.64s\")",
			          spec->context, arg, *positional);
			return OPT_ERROR;
		}
		*positional = arg;
		return OPT_POSITIONAL;
	}
	const char* eq = strchr(arg, '=');
	size_t name_len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	size_t index = spec->n_valued;
	for (size_t k = 0; k < spec->n_valued; ++k) {
		if (strlen(spec->valued[k]) == name_len && strncmp(arg, spec->valued[k], name_len) == 0) {
			*name = spec->valued[k];
			index = k;
		}
	}
	if (*name == NULL) {
		opt_error(spec->program, "%sunknown option \"%.64s\" (see %s)", spec->context, arg, spec->help);
		return OPT_ERROR;
	}
	if (eq == NULL && *i + 1 >= argc) {
		opt_error(spec->program, "%s: missing value", *name);
		return OPT_ERROR;
	}
	const char* v = eq != NULL ? eq + 1 : argv[++*i];
	if (v[0] == '-' && (v[1] == '-' || isalpha((unsigned char)v[1]))) {
		opt_error(spec->program, "%s: missing value: \"%.64s\" is an option (for a file of that name, write ./%.64s)",
		          *name, v, v);
		return OPT_ERROR;
	}
	uint64_t bit = index < 64u ? (uint64_t)1 << index : 0u;
	if (spec->seen != NULL && (*spec->seen & bit) != 0u) {
		opt_error(spec->program, "%s: given twice (the second time as \"%.64s\"); give it once", *name, v);
		return OPT_ERROR;
	}
	if (spec->seen != NULL) {
		*spec->seen |= bit;
	}
	*value = v;
	return OPT_VALUED;
}

bool opt_read(const opt_spec* spec, const opt_flag* flags, size_t n_flags, int argc, char** argv, int first,
              const char** positional, opt_apply_fn* apply, void* user)
{
	for (int i = first; i < argc; ++i) {
		const char* arg = argv[i];
		const opt_flag* flag = NULL;
		for (size_t k = 0; k < n_flags && flag == NULL; ++k) {
			if (strcmp(arg, flags[k].name) == 0 || (flags[k].alias != NULL && strcmp(arg, flags[k].alias) == 0)) {
				flag = &flags[k];
			}
		}
		if (flag != NULL) {
			*flag->target = flag->value;
			continue;
		}
		const char* name = NULL;
		const char* value = NULL;
		opt_kind kind = opt_next(spec, argc, argv, &i, positional, &name, &value);
		if (kind == OPT_ERROR || (kind == OPT_VALUED && !apply(name, value, user))) {
			return false;
		}
	}
	return true;
}

bool opt_given(const opt_spec* spec, const char* name)
{
	for (size_t k = 0; k < spec->n_valued && k < 64u; ++k) {
		if (strcmp(spec->valued[k], name) == 0) {
			return spec->seen != NULL && (*spec->seen & (uint64_t)1 << k) != 0u;
		}
	}
	return false;
}

bool opt_check_agents(const char* program, const char* scenario, uint32_t agents)
{
	if (agents == 0 || scenario == NULL || throng_scenario_find(scenario) != NULL || !throng_scene_is_file(scenario)) {
		return true;
	}
	opt_error(program,
	          "--agents: %.64s is a scenario file, which sets the count of each of its groups; leave --agents out "
	          "(or change the counts in the file)",
	          scenario);
	return false;
}

/// Prints "<program>: <option>: expected a, b or c, got "<value>"", the
/// names being name_at(0), name_at(1)... up to the first NULL (at most 8),
/// and returns false.
static bool expected_name(const char* program, const char* option, const char* value, const char* (*name_at)(int))
{
	char list[128];
	size_t len = 0;
	list[0] = '\0';
	const char* name = name_at(0);
	for (int k = 0; k < 8 && name != NULL && len < sizeof list; ++k) {
		const char* next = k + 1 < 8 ? name_at(k + 1) : NULL;
		const char* sep = k == 0 ? "" : next == NULL ? " or " : ", ";
		int w = snprintf(list + len, sizeof list - len, "%s%s", sep, name);
		len += w > 0 ? (size_t)w : 0u;
		name = next;
	}
	opt_error(program, "%s: expected %s, got \"%.64s\"", option, list, value);
	return false;
}

static const char* engine_name_at(int k)
{
	return throng_engine_name((throng_engine)k);
}

static const char* format_name_at(int k)
{
	return throng_format_name((throng_format)k);
}

bool opt_parse_integer(const char* program, const char* option, const char* value, uint64_t min, uint64_t max,
                       bool allow_hex, uint64_t* out)
{
	if (opt_parse_u64(value, min, max, allow_hex, out)) {
		return true;
	}
	opt_error(program, "%s: expected an integer from %llu to %llu%s, got \"%.64s\"", option, (unsigned long long)min,
	          (unsigned long long)max, allow_hex ? " (or 0x followed by hex digits)" : "", value);
	return false;
}

bool opt_parse_u32(const char* program, const char* option, const char* value, uint32_t min, uint32_t max,
                   uint32_t* out)
{
	uint64_t v = 0;
	if (!opt_parse_integer(program, option, value, min, max, false, &v)) {
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

bool opt_parse_engine(const char* program, const char* option, const char* value, throng_engine* out)
{
	return throng_engine_from_name(value, out) || expected_name(program, option, value, engine_name_at);
}

bool opt_parse_format(const char* program, const char* option, const char* value, throng_format* out)
{
	return throng_format_from_name(value, out) || expected_name(program, option, value, format_name_at);
}
