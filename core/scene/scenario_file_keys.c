// SPDX-License-Identifier: MIT
// Scenario files: the table engine. sf_read_keys() walks a mapping against
// a key table (scenario_file_tables.c): each row's value is read by its
// type, under its path, with the row's range in the message; rows the
// table cannot type (names, choices, lists) are handed to the section's
// own reader, after the plain values they may depend on. The same rows
// print as the file's text (sf_format_value, for the writer) and as the
// key reference of docs/SCENARIOS.md (sf_keys_markdown).
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_file_internal.h"

#define K(kind) (1u << (kind))
// ---------------------------------------------------------------------------
// The reader
// ---------------------------------------------------------------------------

const sf_key* sf_key_find(const sf_table* t, const char* name)
{
	for (uint32_t k = 0; k < t->count; ++k) {
		if (strcmp(t->keys[k].name, name) == 0) {
			return &t->keys[k];
		}
	}
	return NULL;
}

bool sf_kind_reads(throng_behavior_kind kind, const sf_key* key)
{
	return (unsigned)kind < THRONG_BEHAVIOR_COUNT && key != NULL && (key->kinds & K(kind)) != 0;
}

/// Reads one value into base + k->offset; false on a problem.
static bool read_value(sf_ctx* c, const sf_node* v, const sf_key* k, void* base)
{
	char* at = (char*)base + k->offset;
	switch (k->type) {
	case SF_T_NUMBER: return sf_read_number(c, v, k->range, (float*)(void*)at);
	case SF_T_POINT: return sf_read_vec2(c, v, k->range, (throng_vec2*)(void*)at);
	case SF_T_BOOL: return sf_read_bool(c, v, (bool*)(void*)at);
	case SF_T_MAP: return sf_read_table(c, v, k->sub, base, NULL) == 0;
	case SF_T_OTHER: return true;
	case SF_T_WORD: {
		int e = 0;
		if (!sf_read_enum(c, v, k->words->name, k->words->count, k->what, &e)) {
			return false;
		}
		memcpy(at, &e, sizeof e);
		return true;
	}
	case SF_T_UINT: {
		uint64_t u = 0;
		if (!sf_read_uint(c, v, k->min, k->max, k->hex, &u)) {
			return false;
		}
		if (k->size == sizeof(uint32_t)) {
			uint32_t u32 = (uint32_t)u;
			memcpy(at, &u32, sizeof u32);
		} else {
			memcpy(at, &u, sizeof u);
		}
		return true;
	}
	}
	return false;
}

uint64_t sf_read_keys(sf_ctx* c, const sf_node* map, const sf_table* t, void* base, uint32_t kind_bit,
                      sf_part_fn part)
{
	uint64_t failed = 0;
	// Plain values first, then the section's own parts, which may depend
	// on them (a polyline's points on `closed`, waypoints on `end_at_goal`).
	for (int pass = 0; pass < 2; ++pass) {
		for (uint32_t k = 0; k < t->count; ++k) {
			const sf_key* key = &t->keys[k];
			bool other = key->type == SF_T_OTHER;
			if ((kind_bit != 0 && (key->kinds & kind_bit) == 0) || other != (pass == 1) || (other && part == NULL)) {
				continue;
			}
			const sf_node* v = sf_get(map, key->name);
			if (v == NULL && key->required) {
				char expected[128];
				snprintf(expected, sizeof expected, "%s%s", key->expect != NULL ? "" : key->type == SF_T_POINT
				         ? "[x, y], each " : "", key->expect != NULL ? key->expect : sf_range_text(key->range));
				sf_missing(c, map, key->name, expected);
				failed |= 1ull << k;
			}
			if (v == NULL) {
				continue;
			}
			size_t mark = sf_push_key(c, key->name);
			if (!(other ? part(c, key, map, v, base) : read_value(c, v, key, base))) {
				failed |= 1ull << k;
			}
			sf_pop(c, mark);
		}
	}
	return failed;
}

uint64_t sf_read_table(sf_ctx* c, const sf_node* n, const sf_table* t, void* base, sf_part_fn part)
{
	// "a mapping of a, b and c" unless the table says otherwise.
	char expected[256] = "a mapping of ";
	for (uint32_t k = 0, used = 13; k < t->count && used < sizeof expected; ++k) {
		const char* sep = k == 0 ? "" : k + 1 == t->count ? " and " : ", ";
		int len = snprintf(expected + used, sizeof expected - used, "%s%s", sep, t->keys[k].name);
		used += len > 0 ? (uint32_t)len : 0u;
	}
	if (!sf_expect_mapping(c, n, t->expect != NULL ? t->expect : expected)) {
		return 1ull << 63;
	}
	sf_check_kind_keys(c, n, NULL, 0, t, -1);
	uint64_t failed = sf_read_keys(c, n, t, base, 0, part);
	if (t->check != NULL) {
		t->check(c, n, base, failed);
	}
	return failed;
}

uint64_t sf_read_row(sf_ctx* c, const sf_node* n, const sf_table* t, void* base)
{
	const char* names[64];
	for (uint32_t k = 0; k < t->count; ++k) {
		names[k] = t->keys[k].name;
	}
	char list[400], expected[420];
	sf_join(names, t->count, list, sizeof list);
	snprintf(expected, sizeof expected, "a row [%s]", list);
	if (!sf_expect_sequence(c, n, expected)) {
		return 1ull << 63;
	}
	if (n->count != t->count) {
		sf_error(c, n->pos, "got %u values (expected %u: %s)", n->count, t->count, list);
		return 1ull << 63;
	}
	uint64_t failed = 0;
	for (uint32_t k = 0; k < t->count; ++k) {
		size_t mark = sf_push_key(c, t->keys[k].name);
		failed |= read_value(c, n->items[k], &t->keys[k], base) ? 0u : 1ull << k;
		sf_pop(c, mark);
	}
	return failed;
}

/// The model's lists and named sections: check the node, then read each
/// item (NULL for a repeated name: the repeat is the problem) under its
/// path. `what` is the items' plural ("obstacles"), `max` the most.
static void* read_items(sf_ctx* c, const sf_node* n, const char* what, uint32_t max, size_t size, uint32_t* count)
{
	if (n->count > max) {
		sf_error(c, n->pos, "got %u %s (expected at most %u)", n->count, what, max);
		return NULL;
	}
	void* items = calloc(n->count != 0 ? n->count : 1, size);
	if (items == NULL) {
		sf_error(c, n->pos, "out of memory (expected fewer %s)", what);
	}
	*count = 0;
	return items;
}

void* sf_read_list(sf_ctx* c, const sf_node* n, const char* expect, const char* what, uint32_t max, size_t size,
                   uint32_t* count, sf_item_fn item)
{
	char* items = sf_expect_sequence(c, n, expect) ? read_items(c, n, what, max, size, count) : NULL;
	for (uint32_t k = 0; items != NULL && k < n->count; ++k) {
		size_t mark = sf_push_index(c, k);
		item(c, NULL, n->items[k], items + (size_t)k * size, k);
		*count = k + 1u;
		sf_pop(c, mark);
	}
	return items;
}

void* sf_read_named(sf_ctx* c, const sf_node* n, const char* expect, const char* what, uint32_t max, size_t size,
                    uint32_t* count, sf_item_fn item)
{
	char plural[32];
	snprintf(plural, sizeof plural, "%ss", what);
	char* items = sf_expect_mapping(c, n, expect) ? read_items(c, n, plural, max, size, count) : NULL;
	if (items != NULL) {
		sf_check_names(c, n, what);
	}
	for (uint32_t k = 0; items != NULL && k < n->count; ++k) {
		const sf_node* key = n->items[2u * k];
		size_t mark = sf_push_key(c, key->kind == SF_SCALAR ? key->text : "?");
		item(c, key, sf_key_repeats(n, k) ? NULL : n->items[2u * k + 1u], items + (size_t)k * size, k);
		*count = k + 1u;
		sf_pop(c, mark);
	}
	return items;
}

// ---------------------------------------------------------------------------
// Values as text, and the key reference
// ---------------------------------------------------------------------------

void sf_format_float(char buf[32], float v)
{
	for (int digits = 6; digits <= 9; ++digits) {
		snprintf(buf, 32, "%.*g", digits, (double)v);
		float back = strtof(buf, NULL);
		if (memcmp(&back, &v, sizeof v) == 0) {
			return;
		}
	}
}

void sf_format_value(const sf_key* k, const void* base, char* buf, size_t cap)
{
	const char* at = (const char*)base + k->offset;
	char x[32], y[32];
	buf[0] = '\0';
	switch (k->type) {
	case SF_T_NUMBER: {
		float f;
		memcpy(&f, at, sizeof f);
		sf_format_float(x, f);
		snprintf(buf, cap, "%s", x);
		return;
	}
	case SF_T_POINT: {
		throng_vec2 p;
		memcpy(&p, at, sizeof p);
		sf_format_float(x, p.x);
		sf_format_float(y, p.y);
		snprintf(buf, cap, "[%s, %s]", x, y);
		return;
	}
	case SF_T_BOOL: snprintf(buf, cap, "%s", *(const bool*)(const void*)at ? "true" : "false"); return;
	case SF_T_WORD: {
		int e;
		memcpy(&e, at, sizeof e);
		snprintf(buf, cap, "%s", e >= 0 && (uint32_t)e < k->words->count ? k->words->name[e] : "?");
		return;
	}
	case SF_T_UINT: {
		uint64_t u;
		if (k->size == sizeof(uint32_t)) {
			uint32_t u32;
			memcpy(&u32, at, sizeof u32);
			u = u32;
		} else {
			memcpy(&u, at, sizeof u);
		}
		snprintf(buf, cap, "%llu", (unsigned long long)u);
		return;
	}
	case SF_T_MAP:
	case SF_T_OTHER: return;
	}
}

void sf_put(sf_out* o, const char* fmt, ...)
{
	if (o->failed) {
		return;
	}
	if (o->text == NULL) {
		o->cap = 4096;
		o->text = malloc(o->cap);
		if (o->text == NULL) {
			o->failed = true;
			return;
		}
		o->text[0] = '\0';
	}
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(o->text + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->failed = true;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = o->cap * 2u + (size_t)n;
		char* t = realloc(o->text, cap);
		if (t == NULL) {
			o->failed = true;
			return;
		}
		o->text = t;
		o->cap = cap;
	}
}

static const char* type_doc(sf_type t)
{
	switch (t) {
	case SF_T_NUMBER: return "number";
	case SF_T_UINT: return "whole number";
	case SF_T_BOOL: return "boolean";
	case SF_T_WORD: return "word";
	case SF_T_POINT: return "point";
	case SF_T_MAP: return "mapping";
	case SF_T_OTHER: return "?";
	}
	return "?";
}

/// One row of the reference; `prefix` is "" or "bounds." for a nested
/// table. An empty cell is "| |".
static void md_row(sf_out* o, const sf_table* t, const sf_key* k, const void* defaults, const char* prefix)
{
	char value[96], cell[1024];
	sf_format_value(k, defaults, value, sizeof value);
	bool quoted = k->type == SF_T_WORD || k->type == SF_T_BOOL || k->type == SF_T_POINT;
	if (k->required || k->def != NULL) {
		snprintf(value, sizeof value, "%s", k->required ? "*required*" : k->def);
		quoted = false;
	}
	const char* type = k->type == SF_T_OTHER ? k->type_doc : type_doc(k->type);
	const char* note = k->note != NULL ? k->note : "";
	snprintf(cell, sizeof cell, quoted ? "`%s`%s%s" : "%s%s%s", value, note[0] != '\0' ? " " : "", note);
	sf_put(o, "| `%s%s` | %s |%s%s |", prefix, k->name, type, cell[0] != '\0' ? " " : "", cell);
	// The range: from the row's type, then the unit, then the doc line.
	size_t n = 0;
	cell[0] = '\0';
	if (k->type == SF_T_NUMBER || k->type == SF_T_POINT) {
		n = (size_t)snprintf(cell, sizeof cell, "%s%s", k->type == SF_T_POINT ? "each in " : "", sf_range_doc(k->range));
	} else if (k->type == SF_T_UINT && k->max == UINT64_MAX) {
		n = (size_t)snprintf(cell, sizeof cell, "[%llu, 2⁶⁴−1]", (unsigned long long)k->min);
	} else if (k->type == SF_T_UINT) {
		n = (size_t)snprintf(cell, sizeof cell, "[%llu, %llu]", (unsigned long long)k->min,
		                     (unsigned long long)k->max);
	}
	if (k->unit != NULL && n < sizeof cell) {
		n += (size_t)snprintf(cell + n, sizeof cell - n, " %s", k->unit);
	}
	if (k->doc != NULL && n < sizeof cell) {
		snprintf(cell + n, sizeof cell - n, "%s%s", n > 0 ? ": " : "", k->doc);
	} else if (k->words != NULL) {
		for (uint32_t w = 0; w < k->words->count && n < sizeof cell; ++w) {
			n += (size_t)snprintf(cell + n, sizeof cell - n, "%s`%s`", w == 0 ? "" : ", ", k->words->name[w]);
		}
	}
	sf_put(o, "%s%s |", cell[0] != '\0' ? " " : "", cell);
	if (t->kind_names != NULL) {
		const char* sep = " ";
		for (uint32_t kind = 0; kind < t->kind_names->count; ++kind) {
			if ((k->kinds & K(kind)) != 0) {
				sf_put(o, "%s%s", sep, t->kind_names->name[kind]);
				sep = ", ";
			}
		}
		sf_put(o, " |");
	}
	sf_put(o, "\n");
}

char* sf_keys_markdown(const sf_table* t)
{
	sf_out o = {NULL, 0, 0, false};
	if (t->kind_names != NULL) {
		sf_put(&o, "| %s | type | default | range | %s |\n|---|---|---|---|---|\n", t->key_header, t->kinds_header);
	} else {
		sf_put(&o, "| key | type | default | range / meaning |\n|---|---|---|---|\n");
	}
	void* defaults = calloc(1, t->size != 0 ? t->size : 1);
	if (defaults == NULL) {
		free(o.text);
		return NULL;
	}
	if (t->defaults != NULL) {
		t->defaults(defaults);
	}
	for (uint32_t k = 0; k < t->count; ++k) {
		const sf_key* key = &t->keys[k];
		if (key->type != SF_T_MAP) {
			md_row(&o, t, key, defaults, "");
			continue;
		}
		// A nested mapping's keys, named by their path ("bounds.min").
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s.", key->name);
		for (uint32_t j = 0; j < key->sub->count; ++j) {
			md_row(&o, key->sub, &key->sub->keys[j], defaults, prefix);
		}
	}
	free(defaults);
	if (o.failed) {
		free(o.text);
		return NULL;
	}
	return o.text;
}
