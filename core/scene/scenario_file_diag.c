// SPDX-License-Identifier: MIT
// Scenario files: diagnostics (the path of the field being read, one
// message per problem, kept and reported in file order, the nearest known
// name for a typo) and the checks of a mapping's keys.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"

int throng_diagnostic_format(const throng_diagnostic* d, char* buf, size_t cap)
{
	if (d == NULL) {
		if (cap > 0) {
			buf[0] = '\0';
		}
		return 0;
	}
	const char* file = d->file != NULL ? d->file : "(memory)";
	const char* path = d->path != NULL && d->path[0] != '\0' ? d->path : "document";
	const char* msg = d->message != NULL ? d->message : "";
	const char* kind = d->warning ? "warning: " : "";
	if (d->line == 0) {
		return snprintf(buf, cap, "%s: %s%s: %s", file, kind, path, msg);
	}
	return snprintf(buf, cap, "%s:%u:%u: %s%s: %s", file, d->line, d->column, kind, path, msg);
}

void sf_ctx_init(sf_ctx* c, const char* file, throng_diagnostic_fn report, void* user)
{
	memset(c, 0, sizeof *c);
	c->file = file;
	c->report = report;
	c->user = user;
}

static char* copy_text(const char* s)
{
	size_t n = strlen(s) + 1;
	char* d = malloc(n);
	if (d != NULL) {
		memcpy(d, s, n);
	}
	return d;
}

/// Keeps a problem or a warning (counted in c->problems or c->warnings).
static void record(sf_ctx* c, sf_pos pos, bool warning, const char* fmt, va_list ap)
{
	char msg[640];
	vsnprintf(msg, sizeof msg, fmt, ap);
	uint32_t seq = c->problems + c->warnings;
	if (warning) {
		c->warnings++;
	} else {
		c->problems++;
	}
	if (c->kept_count >= THRONG_MAX_DIAGNOSTICS) {
		return;
	}
	if (c->kept == NULL) {
		c->kept = calloc(THRONG_MAX_DIAGNOSTICS, sizeof *c->kept);
		if (c->kept == NULL) {
			return; // counted, not kept: the load still fails
		}
	}
	sf_problem* p = &c->kept[c->kept_count];
	p->pos = pos;
	p->seq = seq;
	p->warning = warning;
	p->path = copy_text(c->path_len > 0 ? c->path : "document");
	p->message = copy_text(msg);
	if (p->path == NULL || p->message == NULL) {
		free(p->path);
		free(p->message);
		return;
	}
	c->kept_count++;
}

void sf_error(sf_ctx* c, sf_pos pos, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(c, pos, false, fmt, ap);
	va_end(ap);
}

void sf_warning(sf_ctx* c, sf_pos pos, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(c, pos, true, fmt, ap);
	va_end(ap);
}

static int by_position(const void* a, const void* b)
{
	const sf_problem* x = a;
	const sf_problem* y = b;
	if (x->pos.line != y->pos.line) {
		return x->pos.line < y->pos.line ? -1 : 1;
	}
	if (x->pos.column != y->pos.column) {
		return x->pos.column < y->pos.column ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

void sf_ctx_finish(sf_ctx* c)
{
	if (c->kept_count > 1) {
		qsort(c->kept, c->kept_count, sizeof *c->kept, by_position);
	}
	c->first[0] = '\0';
	for (uint32_t k = 0; k < c->kept_count; ++k) {
		const sf_problem* p = &c->kept[k];
		throng_diagnostic d = {c->file, p->pos.line, p->pos.line != 0 ? p->pos.column : 0, p->path, p->message,
		                       p->warning};
		if (!p->warning && c->first[0] == '\0') {
			throng_diagnostic_format(&d, c->first, sizeof c->first);
		}
		if (c->report != NULL) {
			c->report(c->user, &d);
		}
		free(p->path);
		free(p->message);
	}
	if (c->problems + c->warnings > c->kept_count && c->report != NULL) {
		char msg[160];
		snprintf(msg, sizeof msg, "%u more problems not reported (expected at most %d reported per file)",
		         c->problems + c->warnings - c->kept_count, THRONG_MAX_DIAGNOSTICS);
		throng_diagnostic d = {c->file, 0, 0, "document", msg, false};
		c->report(c->user, &d);
	}
	if (c->problems > 0 && c->first[0] == '\0') {
		snprintf(c->first, sizeof c->first, "%s: document: out of memory while reporting problems", c->file);
	}
	free(c->kept);
	c->kept = NULL;
	c->kept_count = 0;
}

/// Appends text to the path; a path too long for the buffer ends in "...".
static size_t path_append(sf_ctx* c, const char* text)
{
	size_t mark = c->path_len;
	size_t len = strlen(text);
	// Room is kept for "..." after the last piece that fits.
	if (c->path_len + len + 4 > sizeof c->path) {
		if (c->path_len + 4 <= sizeof c->path) {
			memcpy(c->path + c->path_len, "...", 3);
			c->path_len += 3;
		}
	} else {
		// Keys come from the file: control characters print as '?'.
		for (size_t k = 0; k < len; ++k) {
			unsigned char ch = (unsigned char)text[k];
			c->path[c->path_len + k] = ch < 0x20 || ch == 0x7F ? '?' : (char)ch;
		}
		c->path_len += len;
	}
	c->path[c->path_len] = '\0';
	return mark;
}

size_t sf_push_key(sf_ctx* c, const char* key)
{
	if (c->path_len == 0) {
		return path_append(c, key);
	}
	size_t mark = path_append(c, ".");
	path_append(c, key);
	return mark;
}

size_t sf_push_index(sf_ctx* c, uint32_t index)
{
	char buf[16];
	snprintf(buf, sizeof buf, "[%u]", index);
	return path_append(c, buf);
}

void sf_pop(sf_ctx* c, size_t mark)
{
	if (mark <= c->path_len) {
		c->path_len = mark;
		c->path[mark] = '\0';
	}
}

/// Optimal string alignment distance (Levenshtein plus adjacent
/// transpositions), for words of at most 64 bytes.
static unsigned edit_distance(const char* a, size_t la, const char* b, size_t lb)
{
	unsigned rows[3][65];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; ++j) {
		prev[j] = (unsigned)j;
	}
	for (size_t i = 1; i <= la; ++i) {
		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; ++j) {
			unsigned cost = a[i - 1] == b[j - 1] ? 0u : 1u;
			unsigned best = prev[j - 1] + cost;
			if (prev[j] + 1 < best) {
				best = prev[j] + 1;
			}
			if (cur[j - 1] + 1 < best) {
				best = cur[j - 1] + 1;
			}
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best) {
				best = prev2[j - 2] + 1;
			}
			cur[j] = best;
		}
		unsigned* t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char* sf_nearest(const char* word, const char* const* names, size_t count)
{
	size_t lw = strlen(word);
	if (lw == 0 || lw > 64) {
		return NULL;
	}
	// A likely typo: one edit in a short word, two from 4 letters, three
	// from 8.
	unsigned limit = lw < 4 ? 1u : lw < 8 ? 2u : 3u;
	const char* best = NULL;
	unsigned best_d = limit + 1;
	for (size_t k = 0; k < count; ++k) {
		size_t ln = strlen(names[k]);
		if (ln > 64) {
			continue;
		}
		unsigned d = edit_distance(word, lw, names[k], ln);
		if (d < best_d) {
			best_d = d;
			best = names[k];
		}
	}
	return best;
}

void sf_join(const char* const* names, size_t count, char* buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < count; ++k) {
		int n = snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : ", ", names[k]);
		if (n < 0 || (size_t)n >= cap - used) {
			if (cap >= 4) {
				memcpy(buf + cap - 4, "...", 4);
			}
			return;
		}
		used += (size_t)n;
	}
}

// ---------------------------------------------------------------------------
// Key checks: unknown keys (with the nearest known one), repeated keys and
// names, missing keys
// ---------------------------------------------------------------------------

/// The text of a scalar key, or NULL for other keys.
static const char* key_text(const sf_node* k)
{
	return k->kind == SF_SCALAR && strlen(k->text) == k->len ? k->text : NULL;
}

void sf_check_keys(sf_ctx* c, const sf_node* map, const char* const* keys, size_t count)
{
	sf_check_keys_ex(c, map, keys, count, NULL, 0, NULL);
}

void sf_check_keys_ex(sf_ctx* c, const sf_node* map, const char* const* keys, size_t count,
                      const char* const* foreign, size_t nforeign, const char* foreign_what)
{
	sf_pos first[40];
	bool seen[40] = {false};
	char list[400];
	sf_join(keys, count, list, sizeof list);
	for (uint32_t p = 0; p < map->count; ++p) {
		const sf_node* k = map->items[2u * p];
		if (k->kind == SF_BAD) {
			continue;
		}
		const char* text = key_text(k);
		if (text == NULL) {
			char got[64];
			sf_describe(k, got, sizeof got);
			sf_error(c, k->pos, "got %s as a key (expected one of: %s)", got, list);
			continue;
		}
		size_t mark = sf_push_key(c, text);
		size_t idx = count;
		for (size_t j = 0; j < count; ++j) {
			if (strcmp(text, keys[j]) == 0) {
				idx = j;
				break;
			}
		}
		bool is_foreign = false;
		for (size_t j = 0; idx == count && j < nforeign; ++j) {
			is_foreign = is_foreign || strcmp(text, foreign[j]) == 0;
		}
		if (is_foreign) {
			sf_error(c, k->pos, "not %s (expected one of: %s)", foreign_what, list);
		} else if (idx == count) {
			const char* near = sf_nearest(text, keys, count);
			if (near != NULL) {
				sf_error(c, k->pos, "unknown key, did you mean %s? (expected one of: %s)", near, list);
				c->typo_map[c->typo_count % 16u] = map;
				c->typo_key[c->typo_count % 16u] = near;
				c->typo_count++;
			} else {
				sf_error(c, k->pos, "unknown key (expected one of: %s)", list);
			}
		} else if (idx < 40 && seen[idx]) {
			sf_error(c, k->pos, "duplicate key (expected each key once; the first is at line %u, column %u)",
			         first[idx].line, first[idx].column);
		} else if (idx < 40) {
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
		const char* text = key_text(k);
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

bool sf_key_repeats(const sf_node* map, uint32_t k)
{
	const char* text = key_text(map->items[2u * k]);
	for (uint32_t q = 0; text != NULL && q < k; ++q) {
		const char* prev = key_text(map->items[2u * q]);
		if (prev != NULL && strcmp(prev, text) == 0) {
			return true;
		}
	}
	return false;
}

const sf_node* sf_get(const sf_node* map, const char* key)
{
	if (map == NULL || map->kind != SF_MAPPING) {
		return NULL;
	}
	for (uint32_t p = 0; p < map->count; ++p) {
		const sf_node* k = map->items[2u * p];
		const char* text = key_text(k);
		if (text != NULL && strcmp(text, key) == 0) {
			return map->items[2u * p + 1u];
		}
	}
	return NULL;
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
	size_t mark = sf_push_key(c, key);
	sf_error(c, map->pos, "missing (expected %s)", expected);
	sf_pop(c, mark);
}
