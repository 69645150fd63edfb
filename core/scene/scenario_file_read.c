// SPDX-License-Identifier: MIT
// Scenario files: typed readers over nodes, and the checks of a mapping's
// keys (unknown, repeated, missing).
//
// Numbers, booleans and null must be plain scalars (a quoted "3" is a
// string, as in JSON); names and enum words may be quoted. A number is
// decimal: an optional sign, digits with an optional fraction, an optional
// exponent. YAML's .nan and .inf, and NaN, inf and 1e999, are recognised as
// numbers only to say that they are not finite. Ranges are those of
// core/validate.c, checked on the float the library will receive; a
// number that is not 0 but reads as 0 or as a subnormal float is refused
// as too small, and so is a length, speed, rate, time or weight below 1e-6.
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmath.h"
#include "scenario_file_internal.h"

#define SF_MAX_MAGNITUDE 1.0e6f
#define SF_MIN_MAGNITUDE 1.0e-6f

/// The ranges of validate.c, one row each: [lo, hi] (lo excluded when
/// open), whether validate.c's floor of 1e-6 applies (lengths, speeds,
/// rates, times, weights, fractions: below it squares and ratios to the
/// world's extent underflow), and the texts of messages and docs.
typedef struct range_row {
	float lo, hi;
	bool open;         ///< lo itself is out of range
	bool floor;        ///< a number below 1e-6 in magnitude (not 0) is too small
	const char* text;  ///< "(expected ...)" of a number out of range
	const char* small; ///< "(expected ...)" of a number too small
	const char* doc;   ///< the interval in docs/SCENARIOS.md
} range_row;

static const range_row ranges[] = {
	[SF_POSITIVE] = {0.0f, SF_MAX_MAGNITUDE, true, true, "a number > 0 and <= 1e6", "a number from 1e-6 to 1e6",
	                 "(0, 1e6]"},
	[SF_NON_NEGATIVE] = {0.0f, SF_MAX_MAGNITUDE, false, true, "a number >= 0 and <= 1e6",
	                     "0 or a number from 1e-6 to 1e6", "[0, 1e6]"},
	[SF_COORD] = {-THRONG_MAX_COORD, THRONG_MAX_COORD, false, false, "a number from -1e6 to 1e6",
	              "0 or a number from 1.2e-38 to 1e6 in magnitude", "[-1e6, 1e6]"},
	[SF_DT] = {0.0f, 1.0f, true, false, "a number of seconds > 0 and <= 1", "a number of seconds from 1.2e-38 to 1",
	           "(0, 1]"},
	[SF_ANGLE] = {-SF_MAX_MAGNITUDE, SF_MAX_MAGNITUDE, false, false, "an angle in radians from -1e6 to 1e6",
	              "0 or an angle from 1.2e-38 to 1e6 radians in magnitude", "[-1e6, 1e6]"},
	[SF_FEELER] = {0.0f, THR_PI, false, false, "an angle in radians from 0 to pi",
	               "0 or an angle in radians from 1.2e-38 to pi", "[0, π]"},
	[SF_FRACTION] = {0.0f, 1.0f, true, true, "a fraction > 0 and <= 1", "a fraction from 1e-6 to 1", "(0, 1]"},
	[SF_SHARE] = {0.0f, 1.0f, false, true, "a fraction >= 0 and <= 1", "0 or a fraction from 1e-6 to 1", "[0, 1]"},
	[SF_UNIT] = {0.0f, 1.0f, false, false, "a number from 0 to 1", "0 or a number from 1.2e-38 to 1", "[0, 1]"},
	[SF_SIGNED_UNIT] = {-1.0f, 1.0f, false, false, "a number from -1 to 1",
	                    "0 or a number from 1.2e-38 to 1 in magnitude", "[-1, 1]"},
	[SF_POSITIVE_1E3] = {0.0f, 1.0e3f, true, true, "a number > 0 and <= 1e3", "a number from 1e-6 to 1e3",
	                     "(0, 1e3]"},
};

const char* sf_range_text(sf_range r)
{
	return ranges[r].text;
}

const char* sf_range_doc(sf_range r)
{
	return ranges[r].doc;
}

static bool in_range(sf_range r, float v)
{
	const range_row* q = &ranges[r];
	return (q->open ? v > q->lo : v >= q->lo) && v <= q->hi; // false for NaN
}

/// Whether a number written as `d`, read as the float `f`, is too small:
/// not 0 but 0 or subnormal as a float (1e-45, 1e-50), or below 1e-6 in a
/// range with the floor.
static bool too_small(sf_range r, double d, float f)
{
	if (d == 0.0) {
		return false;
	}
	float a = fabsf(f);
	return a < FLT_MIN || (ranges[r].floor && a < SF_MIN_MAGNITUDE);
}

bool sf_read_number(sf_ctx* c, const sf_node* n, sf_range range, float* out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	int kind = n->kind == SF_SCALAR && n->plain && !sf_is_null(n) ? sf_number_kind(n->text, n->len) : SF_NUM_NOT;
	if (kind == SF_NUM_NOT) {
		sf_error(c, n->pos, "got %s (expected %s)", got, sf_range_text(range));
		return false;
	}
	double d = kind == SF_NUM_DECIMAL ? strtod(n->text, NULL) : NAN;
	if (!isfinite(d) || fabs(d) > 3.4e38) {
		sf_error(c, n->pos, "got %s, not a finite number (expected %s)", got, sf_range_text(range));
		return false;
	}
	float f = strtof(n->text, NULL); // the nearest float, rounded once
	if (!in_range(range, f)) {
		sf_error(c, n->pos, "got %s, out of range (expected %s)", got, sf_range_text(range));
		return false;
	}
	if (too_small(range, d, f)) {
		sf_error(c, n->pos, "got %s, too small (expected %s)", got, ranges[range].small);
		return false;
	}
	*out = f;
	return true;
}

bool sf_read_uint(sf_ctx* c, const sf_node* n, uint64_t min, uint64_t max, bool hex, uint64_t* out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	char got[64], expected[96];
	sf_describe(n, got, sizeof got);
	snprintf(expected, sizeof expected, "a whole number from %llu to %llu", (unsigned long long)min,
	         (unsigned long long)max);
	if (n->kind != SF_SCALAR || !n->plain || sf_is_null(n)) {
		sf_error(c, n->pos, "got %s (expected %s)", got, expected);
		return false;
	}
	const char* s = n->text;
	bool is_hex = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] != '\0';
	size_t i = is_hex ? 2 : 0;
	bool digits_only = s[i] != '\0' && strlen(s) == n->len;
	for (size_t k = i; s[k] != '\0' && digits_only; ++k) {
		char ch = s[k];
		digits_only = (ch >= '0' && ch <= '9') ||
		              (is_hex && ((ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')));
	}
	if (!digits_only) {
		int kind = sf_number_kind(s, n->len);
		if (kind == SF_NUM_NONFINITE) {
			sf_error(c, n->pos, "got %s, not a finite number (expected %s)", got, expected);
		} else if (kind == SF_NUM_DECIMAL) {
			double d = strtod(s, NULL);
			if (d < 0.0) {
				sf_error(c, n->pos, "got %s, out of range (expected %s)", got, expected);
			} else if (d != floor(d)) {
				sf_error(c, n->pos, "got %s, not a whole number (expected %s)", got, expected);
			} else {
				sf_error(c, n->pos, "got %s (expected %s, written with digits only)", got, expected);
			}
		} else {
			sf_error(c, n->pos, "got %s (expected %s)", got, expected);
		}
		return false;
	}
	errno = 0;
	unsigned long long v = strtoull(s + i, NULL, is_hex ? 16 : 10);
	if (errno == ERANGE || v < min || v > max) {
		sf_error(c, n->pos, "got %s, out of range (expected %s)", got, expected);
		return false;
	}
	*out = v;
	return true;
}

bool sf_read_bool(sf_ctx* c, const sf_node* n, bool* out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	if (n->kind == SF_SCALAR && n->plain) {
		const char* t = n->text;
		if (strcmp(t, "true") == 0 || strcmp(t, "True") == 0 || strcmp(t, "TRUE") == 0) {
			*out = true;
			return true;
		}
		if (strcmp(t, "false") == 0 || strcmp(t, "False") == 0 || strcmp(t, "FALSE") == 0) {
			*out = false;
			return true;
		}
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	sf_error(c, n->pos, "got %s (expected true or false)", got);
	return false;
}

bool sf_read_enum(sf_ctx* c, const sf_node* n, const char* const* names, size_t count, const char* what, int* out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	char list[256];
	sf_join(names, count, list, sizeof list);
	if (n->kind != SF_SCALAR || sf_is_null(n)) {
		char got[64];
		sf_describe(n, got, sizeof got);
		sf_error(c, n->pos, "got %s (expected one of: %s)", got, list);
		return false;
	}
	for (size_t k = 0; k < count; ++k) {
		if (strcmp(n->text, names[k]) == 0 && strlen(n->text) == n->len) {
			*out = (int)k;
			return true;
		}
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	// "a string \"sek\"" -> "\"sek\"": the word alone reads better here.
	const char* word = strncmp(got, "a string ", 9) == 0 ? got + 9 : got;
	const char* near = sf_nearest(n->text, names, count);
	if (near != NULL) {
		sf_error(c, n->pos, "unknown %s %s, did you mean %s? (expected one of: %s)", what, word, near, list);
	} else {
		sf_error(c, n->pos, "unknown %s %s (expected one of: %s)", what, word, list);
	}
	return false;
}

bool sf_read_vec2(sf_ctx* c, const sf_node* n, sf_range range, throng_vec2* out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	if (n->kind != SF_SEQUENCE || n->count != 2) {
		char got[64];
		if (n->kind == SF_SEQUENCE) {
			snprintf(got, sizeof got, "a sequence of %u value%s", n->count, n->count == 1 ? "" : "s");
		} else {
			sf_describe(n, got, sizeof got);
		}
		sf_error(c, n->pos, "got %s (expected [x, y], each %s)", got, sf_range_text(range));
		return false;
	}
	throng_vec2 v = *out;
	size_t mark = sf_push_index(c, 0);
	bool ok = sf_read_number(c, n->items[0], range, &v.x);
	sf_pop(c, mark);
	mark = sf_push_index(c, 1);
	ok = sf_read_number(c, n->items[1], range, &v.y) && ok;
	sf_pop(c, mark);
	if (ok) {
		*out = v;
	}
	return ok;
}

bool sf_read_points(sf_ctx* c, const sf_node* n, uint32_t min, uint32_t max, throng_vec2** out, uint32_t* count)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	if (n->kind != SF_SEQUENCE || n->count < min || n->count > max) {
		char got[64];
		if (n->kind == SF_SEQUENCE) {
			snprintf(got, sizeof got, "%u point%s", n->count, n->count == 1 ? "" : "s");
		} else {
			sf_describe(n, got, sizeof got);
		}
		sf_error(c, n->pos, "got %s (expected a list of %u to %u points [x, y])", got, min, max);
		return false;
	}
	throng_vec2* pts = malloc((size_t)n->count * sizeof *pts);
	if (pts == NULL) {
		sf_error(c, n->pos, "out of memory for %u points (expected fewer points)", n->count);
		return false;
	}
	bool ok = true;
	for (uint32_t k = 0; k < n->count; ++k) {
		size_t mark = sf_push_index(c, k);
		pts[k] = (throng_vec2){0.0f, 0.0f};
		ok = sf_read_vec2(c, n->items[k], SF_COORD, &pts[k]) && ok;
		sf_pop(c, mark);
	}
	if (!ok) {
		free(pts);
		return false;
	}
	free(*out);
	*out = pts;
	*count = n->count;
	return true;
}

bool sf_read_string(sf_ctx* c, const sf_node* n, size_t max, char** out)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	char got[64];
	sf_describe(n, got, sizeof got);
	if (n->kind != SF_SCALAR || sf_is_null(n)) {
		sf_error(c, n->pos, "got %s (expected a string of at most %zu bytes)", got, max);
		return false;
	}
	if (n->len > max) {
		sf_error(c, n->pos, "got a string of %zu bytes (expected a string of at most %zu bytes)", n->len, max);
		return false;
	}
	for (size_t k = 0; k < n->len; ++k) {
		unsigned char ch = (unsigned char)n->text[k];
		if (ch < 0x20 || ch == 0x7F) {
			sf_error(c, n->pos, "got %s with a control character (expected one line of printable text)", got);
			return false;
		}
	}
	char* s = malloc(n->len + 1);
	if (s == NULL) {
		sf_error(c, n->pos, "out of memory (expected a shorter string)");
		return false;
	}
	memcpy(s, n->text, n->len + 1);
	free(*out);
	*out = s;
	return true;
}

bool sf_check_name(sf_ctx* c, const sf_node* n, const char* what)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	bool ok = n->kind == SF_SCALAR && n->len >= 1 && n->len <= SF_NAME_MAX && strlen(n->text) == n->len;
	for (size_t k = 0; ok && k < n->len; ++k) {
		char ch = n->text[k];
		ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		     ch == '-';
	}
	if (!ok) {
		char got[64];
		sf_describe(n, got, sizeof got);
		sf_error(c, n->pos, "got %s (expected %s name of 1 to %u letters, digits, '_' or '-')", got, what,
		         SF_NAME_MAX);
	}
	return ok;
}

bool sf_read_name(sf_ctx* c, const sf_node* n, const char* what, char** out)
{
	char* copy = sf_check_name(c, n, what) ? sf_copy_text(n) : NULL;
	if (copy != NULL) {
		free(*out);
		*out = copy;
	}
	return copy != NULL;
}

uint32_t sf_resolve(sf_ctx* c, sf_pos pos, const char* what, const char* section, const char* name,
                    const char* const* names, uint32_t count)
{
	for (uint32_t k = 0; k < count; ++k) {
		if (strcmp(names[k], name) == 0) {
			return k;
		}
	}
	char list[256];
	sf_join(names, count, list, sizeof list);
	const char* near = sf_nearest(name, names, count);
	if (count == 0) {
		sf_error(c, pos, "unknown %s \"%s\" (expected %s %s defined under %s)", what, name,
		         what[0] == 'a' ? "an" : "a", what, section);
	} else if (near != NULL) {
		sf_error(c, pos, "unknown %s \"%s\", did you mean %s? (expected one of: %s)", what, name, near, list);
	} else {
		sf_error(c, pos, "unknown %s \"%s\" (expected one of: %s)", what, name, list);
	}
	return count;
}

static bool expect_kind(sf_ctx* c, const sf_node* n, sf_kind kind, const char* expected)
{
	if (n->kind == SF_BAD) {
		return false;
	}
	if (n->kind != kind) {
		char got[64];
		sf_describe(n, got, sizeof got);
		sf_error(c, n->pos, "got %s (expected %s)", got, expected);
		return false;
	}
	return true;
}

bool sf_expect_mapping(sf_ctx* c, const sf_node* n, const char* expected)
{
	return expect_kind(c, n, SF_MAPPING, expected);
}

bool sf_expect_sequence(sf_ctx* c, const sf_node* n, const char* expected)
{
	return expect_kind(c, n, SF_SEQUENCE, expected);
}

// ---------------------------------------------------------------------------
// Key checks: unknown keys (with the nearest known one), repeated keys and
// names, missing keys
// ---------------------------------------------------------------------------

void sf_check_kind_keys(sf_ctx* c, const sf_node* map, const char* const* lead, size_t nlead, const sf_table* t,
                        int kind)
{
	const char* keys[8 + 64];
	const char* foreign[64];
	size_t count = 0, nforeign = 0;
	for (; count < nlead && count < 8; ++count) {
		keys[count] = lead[count];
	}
	for (uint32_t k = 0; k < t->count; ++k) {
		if (kind < 0 || (t->keys[k].kinds & (1u << kind)) != 0) {
			keys[count++] = t->keys[k].name;
		} else {
			foreign[nforeign++] = t->keys[k].name;
		}
	}
	sf_pos first[8 + 64];
	bool seen[8 + 64] = {false};
	char list[400];
	sf_join(keys, count, list, sizeof list);
	for (uint32_t p = 0; p < map->count; ++p) {
		const sf_node* k = map->items[2u * p];
		if (k->kind == SF_BAD) {
			continue;
		}
		const char* text = sf_key_text(k);
		if (text == NULL) {
			char got[64];
			sf_describe(k, got, sizeof got);
			sf_error(c, k->pos, "got %s as a key (expected one of: %s)", got, list);
			continue;
		}
		size_t mark = sf_push_key(c, text);
		size_t idx = count;
		for (size_t j = 0; j < count && idx == count; ++j) {
			idx = strcmp(text, keys[j]) == 0 ? j : count;
		}
		bool is_foreign = false;
		for (size_t j = 0; idx == count && j < nforeign; ++j) {
			is_foreign = is_foreign || strcmp(text, foreign[j]) == 0;
		}
		const char* near = idx == count ? sf_nearest(text, keys, count) : NULL;
		if (is_foreign) {
			sf_error(c, k->pos, "not a parameter of %s (expected one of: %s)", t->kind_names->name[kind], list);
		} else if (near != NULL) {
			sf_error(c, k->pos, "unknown key, did you mean %s? (expected one of: %s)", near, list);
			c->typo_map[c->typo_count % 16u] = map;
			c->typo_key[c->typo_count % 16u] = near;
			c->typo_count++;
		} else if (idx == count) {
			sf_error(c, k->pos, "unknown key (expected one of: %s)", list);
		} else if (seen[idx]) {
			sf_error(c, k->pos, "duplicate key (expected each key once; the first is at line %u, column %u)",
			         first[idx].line, first[idx].column);
		} else {
			seen[idx] = true;
			first[idx] = k->pos;
		}
		sf_pop(c, mark);
	}
}

void sf_check_names(sf_ctx* c, const sf_node* map, const char* what)
{
	char article[80];
	snprintf(article, sizeof article, "%s %s", what[0] == 'a' ? "an" : "a", what);
	for (uint32_t p = 0; p < map->count; ++p) {
		const sf_node* k = map->items[2u * p];
		const char* text = sf_key_text(k);
		size_t mark = sf_push_key(c, text != NULL ? text : "?");
		if (sf_check_name(c, k, article)) {
			for (uint32_t q = 0; q < p; ++q) {
				const sf_node* prev = map->items[2u * q];
				if (prev->kind == SF_SCALAR && strcmp(prev->text, text) == 0) {
					sf_error(c, k->pos,
					         "duplicate %s name (expected unique names; the first is at line %u, column %u)",
					         what, prev->pos.line, prev->pos.column);
					break;
				}
			}
		}
		sf_pop(c, mark);
	}
}

void sf_missing(sf_ctx* c, const sf_node* map, const char* key, const char* expected)
{
	// A misspelt key already reported as "did you mean <key>?" is the same
	// problem: say it once.
	for (uint32_t k = 0; k < 16u && k < c->typo_count; ++k) {
		if (c->typo_map[k] == map && strcmp(c->typo_key[k], key) == 0) {
			return;
		}
	}
	sf_error_at(c, key, map->pos, "missing (expected %s)", expected);
}

int sf_read_kind(sf_ctx* c, const sf_node* map, const sf_table* t, const char* key, const char* what)
{
	int kind = -1;
	const sf_node* sn = sf_get(map, key);
	if (sn != NULL) {
		size_t mark = sf_push_key(c, key);
		sf_read_enum(c, sn, t->kind_names->name, t->kind_names->count, what, &kind);
		sf_pop(c, mark);
	}
	const char* const lead[] = {key};
	sf_check_kind_keys(c, map, lead, 1, t, kind);
	if (sn == NULL) {
		char names[96];
		sf_join(t->kind_names->name, t->kind_names->count, names, sizeof names);
		char expected[128];
		snprintf(expected, sizeof expected, "one of: %s", names);
		sf_missing(c, map, key, expected);
	}
	return kind;
}

int sf_read_shape(sf_ctx* c, const sf_node* map, const sf_table* t, const char* what)
{
	return sf_read_kind(c, map, t, "shape", what);
}
