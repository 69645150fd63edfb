// SPDX-License-Identifier: MIT
// Scenario files: diagnostics (the path of the field being read, one
// message per problem, kept and reported in file order, the nearest known
// name for a typo) and access to the tree (a key, a value, a value as a
// message shows it). The bottom of the reader: it calls no other stage.
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

char* sf_copy(const char* s)
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
	p->path = sf_copy(c->path_len > 0 ? c->path : "document");
	p->message = sf_copy(msg);
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

void sf_error_at(sf_ctx* c, const char* key, sf_pos pos, const char* fmt, ...)
{
	size_t mark = sf_push_key(c, key);
	va_list ap;
	va_start(ap, fmt);
	record(c, pos, false, fmt, ap);
	va_end(ap);
	sf_pop(c, mark);
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
// Tree access: keys, values, and how a value reads in a message
// ---------------------------------------------------------------------------

const char* sf_key_text(const sf_node* k)
{
	return k->kind == SF_SCALAR && strlen(k->text) == k->len ? k->text : NULL;
}

char* sf_copy_text(const sf_node* n)
{
	char* s = n->kind == SF_SCALAR ? malloc(n->len + 1) : NULL;
	if (s != NULL) {
		memcpy(s, n->text, n->len + 1);
	}
	return s;
}

bool sf_key_repeats(const sf_node* map, uint32_t k)
{
	const char* text = sf_key_text(map->items[2u * k]);
	for (uint32_t q = 0; text != NULL && q < k; ++q) {
		const char* prev = sf_key_text(map->items[2u * q]);
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
		const char* text = sf_key_text(k);
		if (text != NULL && strcmp(text, key) == 0) {
			return map->items[2u * p + 1u];
		}
	}
	return NULL;
}

bool sf_is_null(const sf_node* n)
{
	if (n == NULL || n->kind != SF_SCALAR || !n->plain) {
		return false;
	}
	const char* t = n->text;
	return n->len == 0 || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 ||
	       strcmp(t, "NULL") == 0;
}

int sf_number_kind(const char* s, size_t len)
{
	if (strlen(s) != len || len == 0) {
		return SF_NUM_NOT;
	}
	size_t i = 0;
	if (s[i] == '+' || s[i] == '-') {
		++i;
	}
	// .nan .NaN .NAN nan NaN .inf .Inf inf infinity (any case), signed or not.
	const char* w = s + i + (s[i] == '.' ? 1 : 0);
	const char* words[] = {"nan", "inf", "infinity"};
	for (size_t k = 0; k < 3; ++k) {
		size_t lw = strlen(words[k]);
		if (strlen(w) == lw) {
			size_t j = 0;
			while (j < lw && (w[j] | 0x20) == words[k][j]) {
				++j;
			}
			if (j == lw) {
				return SF_NUM_NONFINITE;
			}
		}
	}
	size_t digits = 0;
	while (s[i] >= '0' && s[i] <= '9') {
		++i;
		++digits;
	}
	if (s[i] == '.') {
		++i;
		while (s[i] >= '0' && s[i] <= '9') {
			++i;
			++digits;
		}
	}
	if (digits == 0) {
		return SF_NUM_NOT;
	}
	if (s[i] == 'e' || s[i] == 'E') {
		++i;
		if (s[i] == '+' || s[i] == '-') {
			++i;
		}
		size_t exp = 0;
		while (s[i] >= '0' && s[i] <= '9') {
			++i;
			++exp;
		}
		if (exp == 0) {
			return SF_NUM_NOT;
		}
	}
	return s[i] == '\0' ? SF_NUM_DECIMAL : SF_NUM_NOT;
}

void sf_describe(const sf_node* n, char* buf, size_t cap)
{
	if (n == NULL) {
		snprintf(buf, cap, "nothing");
		return;
	}
	switch (n->kind) {
	case SF_MAPPING: snprintf(buf, cap, "a mapping"); return;
	case SF_SEQUENCE: snprintf(buf, cap, "a sequence"); return;
	case SF_BAD: snprintf(buf, cap, "an unsupported value"); return;
	case SF_SCALAR: break;
	}
	if (sf_is_null(n)) {
		snprintf(buf, cap, "null");
		return;
	}
	// Printable text only, cut at 32 bytes.
	char text[40];
	size_t k = 0;
	for (; k < n->len && k < 32; ++k) {
		unsigned char ch = (unsigned char)n->text[k];
		text[k] = ch < 0x20 || ch == 0x7F ? '?' : (char)ch;
	}
	if (n->len > 32) {
		memcpy(text + k, "...", 3);
		k += 3;
	}
	text[k] = '\0';
	if (n->plain && (sf_number_kind(n->text, n->len) != SF_NUM_NOT || strcmp(n->text, "true") == 0 ||
	                 strcmp(n->text, "false") == 0)) {
		snprintf(buf, cap, "%s", text);
	} else {
		snprintf(buf, cap, "a string \"%s\"", text);
	}
}
