// SPDX-License-Identifier: MIT
// Scenario files, stage 1: bytes -> node tree.
//
// The bytes are checked as UTF-8 first (libyaml's reader reports only a byte
// offset; this pass gives line and column), then fed to libyaml's event
// parser, from which the tree is built with an explicit stack: nesting is
// capped at THRONG_MAX_FILE_DEPTH before any node of a deeper level exists,
// and the node count at SF_MAX_NODES, so no input can exhaust the stack or
// the memory. One document per file; aliases and tags are refused (a file
// of aliases could expand exponentially, and a scene needs neither).
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "scenario_file_internal.h"

static sf_pos mark_pos(yaml_mark_t m)
{
	return (sf_pos){(uint32_t)m.line + 1u, (uint32_t)m.column + 1u};
}

void sf_node_free(sf_node* n)
{
	if (n == NULL) {
		return;
	}
	// Every allocated entry is NULL or a node, so a mapping cut short
	// after a key (a parse that stopped) frees that key too.
	for (uint32_t k = 0; k < n->cap; ++k) {
		sf_node_free(n->items[k]);
	}
	free(n->items);
	free(n->text);
	free(n);
}

/// Decodes one UTF-8 character at s[0..n) into *cp and its byte length.
/// Returns 0, or 1 for a bad leading byte, 2 for a bad continuation byte
/// (*bad_at its offset), 3 when the bytes end inside the character.
static int utf8_next(const unsigned char* s, size_t n, uint32_t* cp, size_t* len, size_t* bad_at)
{
	unsigned char b = s[0];
	if (b < 0x80) {
		*cp = b;
		*len = 1;
		return 0;
	}
	size_t need;
	uint32_t v;
	unsigned char lo = 0x80, hi = 0xBF; // the valid range of the second byte
	if (b >= 0xC2 && b <= 0xDF) {
		need = 2;
		v = b & 0x1Fu;
	} else if (b >= 0xE0 && b <= 0xEF) {
		need = 3;
		v = b & 0x0Fu;
		lo = b == 0xE0 ? 0xA0 : 0x80; // no overlong forms
		hi = b == 0xED ? 0x9F : 0xBF; // no surrogates
	} else if (b >= 0xF0 && b <= 0xF4) {
		need = 4;
		v = b & 0x07u;
		lo = b == 0xF0 ? 0x90 : 0x80;
		hi = b == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
	} else {
		return 1;
	}
	for (size_t k = 1; k < need; ++k) {
		if (k >= n) {
			return 3;
		}
		unsigned char cb = s[k];
		unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
		if (cb < l || cb > h) {
			*bad_at = k;
			return 2;
		}
		v = (v << 6) | (cb & 0x3Fu);
	}
	*cp = v;
	*len = need;
	return 0;
}

/// The characters libyaml's reader accepts (YAML 1.1's printable set).
static bool printable(uint32_t cp)
{
	return cp == 0x09 || cp == 0x0A || cp == 0x0D || (cp >= 0x20 && cp <= 0x7E) || cp == 0x85 ||
	       (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

/// Walks the bytes as libyaml's reader would, with lines and columns.
/// `stop` (a byte offset) ends the walk early and returns the position
/// there; otherwise reports the first problem. Returns true when the
/// text is clean.
static bool scan_text(sf_ctx* c, const unsigned char* s, size_t n, size_t stop, sf_pos* at)
{
	sf_pos pos = {1, 1};
	size_t i = 0;
	if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
		i = 3; // a byte order mark is not a column
	}
	while (i < n && i < stop) {
		uint32_t cp = 0;
		size_t len = 1, bad_at = 0;
		int r = utf8_next(s + i, n - i, &cp, &len, &bad_at);
		if (r == 1) {
			sf_error(c, pos, "invalid UTF-8: byte 0x%02x cannot start a character (expected UTF-8 text)", s[i]);
			return false;
		}
		if (r == 2) {
			// The position and the byte named are those of the character's
			// first byte (a Latin-1 0xe9 of "caf\xe9\n" is the problem, not
			// the newline after it).
			sf_error(c, pos,
			         "invalid UTF-8: byte 0x%02x starts a character that byte 0x%02x does not continue (expected "
			         "UTF-8 text)",
			         s[i], s[i + bad_at]);
			return false;
		}
		if (r == 3) {
			sf_error(c, pos, "invalid UTF-8: the file ends inside a character (expected UTF-8 text)");
			return false;
		}
		if (!printable(cp)) {
			sf_error(c, pos, "control character U+%04X is not allowed (expected printable text)", cp);
			return false;
		}
		if (cp == '\n' || (cp == '\r' && (i + 1 >= n || s[i + 1] != '\n'))) {
			pos.line++;
			pos.column = 1;
		} else if (cp != '\r') {
			pos.column++;
		}
		i += len;
	}
	if (at != NULL) {
		*at = pos;
	}
	return true;
}

/// The parse in progress: the stack of open containers.
typedef struct builder {
	sf_ctx* c;
	sf_node* root;
	sf_node* stack[THRONG_MAX_FILE_DEPTH];
	uint32_t items[THRONG_MAX_FILE_DEPTH]; ///< entries so far (a mapping counts keys and values)
	size_t mark[THRONG_MAX_FILE_DEPTH];    ///< path mark to restore when the container closes
	uint32_t depth;
	uint32_t nodes;
} builder;

static sf_node* new_node(builder* b, sf_kind kind, yaml_mark_t at)
{
	if (b->nodes >= SF_MAX_NODES) {
		sf_error(b->c, mark_pos(at), "more than %u values (expected a smaller file)", SF_MAX_NODES);
		return NULL;
	}
	sf_node* n = calloc(1, sizeof *n);
	if (n == NULL) {
		sf_error(b->c, mark_pos(at), "out of memory while reading the file (expected a smaller file)");
		return NULL;
	}
	b->nodes++;
	n->kind = kind;
	n->pos = mark_pos(at);
	return n;
}

/// Appends n to the innermost open container (or makes it the root).
/// Returns false (n freed) when out of memory.
static bool attach(builder* b, sf_node* n)
{
	if (b->depth == 0) {
		b->root = n;
		return true;
	}
	uint32_t d = b->depth - 1;
	sf_node* parent = b->stack[d];
	if (b->items[d] == parent->cap) {
		uint32_t cap = parent->cap != 0 ? 2u * parent->cap : 8u;
		sf_node** items = realloc(parent->items, (size_t)cap * sizeof *items);
		if (items == NULL) {
			sf_error(b->c, n->pos, "out of memory while reading the file (expected a smaller file)");
			sf_node_free(n);
			return false;
		}
		memset(items + parent->cap, 0, (size_t)(cap - parent->cap) * sizeof *items);
		parent->items = items;
		parent->cap = cap;
	}
	parent->items[b->items[d]++] = n;
	if (parent->kind == SF_MAPPING) {
		parent->count = b->items[d] / 2u;
	} else {
		parent->count = b->items[d];
	}
	return true;
}

/// Extends the path for a container about to open inside the innermost one.
static size_t push_child_path(builder* b)
{
	size_t mark = b->c->path_len;
	if (b->depth == 0) {
		return mark;
	}
	uint32_t d = b->depth - 1;
	const sf_node* parent = b->stack[d];
	if (parent->kind == SF_SEQUENCE) {
		sf_push_index(b->c, b->items[d]);
	} else if (b->items[d] % 2u == 1u) {
		const sf_node* key = parent->items[b->items[d] - 1];
		sf_push_key(b->c, key->kind == SF_SCALAR ? key->text : "?");
	}
	return mark;
}

/// Position of a reader problem, from its byte offset.
static sf_pos offset_pos(sf_ctx* c, const unsigned char* data, size_t size, size_t offset)
{
	sf_pos pos = {1, 1};
	sf_ctx quiet;
	sf_ctx_init(&quiet, c->file, NULL, NULL);
	scan_text(&quiet, data, size, offset, &pos);
	return pos;
}

static void report_parser_error(builder* b, const yaml_parser_t* p, const unsigned char* data, size_t size)
{
	sf_ctx* c = b->c;
	if (p->error == YAML_MEMORY_ERROR) {
		sf_error(c, (sf_pos){1, 1}, "out of memory while reading the file (expected a smaller file)");
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		sf_error(c, offset_pos(c, data, size, p->problem_offset), "%s (expected UTF-8 text)",
		         p->problem != NULL ? p->problem : "unreadable text");
		return;
	}
	// The path of the innermost open container, and the key awaiting its
	// value when there is one.
	size_t mark = c->path_len;
	if (b->depth > 0) {
		uint32_t d = b->depth - 1;
		const sf_node* top = b->stack[d];
		if (top->kind == SF_MAPPING && b->items[d] % 2u == 1u && top->items[b->items[d] - 1]->kind == SF_SCALAR) {
			sf_push_key(c, top->items[b->items[d] - 1]->text);
		}
	}
	const char* problem = p->problem != NULL ? p->problem : "malformed YAML";
	if (p->context != NULL) {
		sf_error(c, mark_pos(p->problem_mark),
		         "syntax error: %s %s that starts at line %u, column %u (expected well-formed YAML)", problem,
		         p->context, (unsigned)p->context_mark.line + 1u, (unsigned)p->context_mark.column + 1u);
	} else {
		sf_error(c, mark_pos(p->problem_mark), "syntax error: %s (expected well-formed YAML)", problem);
	}
	sf_pop(c, mark);
}

/// Handles one event; returns false to stop (a problem was reported).
static bool on_event(builder* b, const yaml_event_t* e, uint32_t* documents)
{
	sf_ctx* c = b->c;
	switch (e->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*documents > 1) {
			sf_error(c, mark_pos(e->start_mark), "a second document starts here (expected one document per file)");
			return false;
		}
		return true;
	case YAML_ALIAS_EVENT: {
		size_t mark = push_child_path(b);
		sf_error(c, mark_pos(e->start_mark), "alias *%.40s: aliases are not supported (expected a plain value)",
		         (const char*)e->data.alias.anchor);
		sf_pop(c, mark);
		sf_node* n = new_node(b, SF_BAD, e->start_mark);
		return n != NULL && attach(b, n);
	}
	case YAML_SCALAR_EVENT: {
		sf_node* n;
		if (e->data.scalar.tag != NULL) {
			size_t mark = push_child_path(b);
			sf_error(c, mark_pos(e->start_mark), "tag %.40s: tags are not supported (expected an untagged value)",
			         (const char*)e->data.scalar.tag);
			sf_pop(c, mark);
			n = new_node(b, SF_BAD, e->start_mark);
			return n != NULL && attach(b, n);
		}
		n = new_node(b, SF_SCALAR, e->start_mark);
		if (n == NULL) {
			return false;
		}
		n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->len = e->data.scalar.length;
		n->text = malloc(n->len + 1);
		if (n->text == NULL) {
			sf_error(c, n->pos, "out of memory while reading the file (expected a smaller file)");
			sf_node_free(n);
			return false;
		}
		memcpy(n->text, e->data.scalar.value, n->len);
		n->text[n->len] = '\0';
		return attach(b, n);
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool map = e->type == YAML_MAPPING_START_EVENT;
		const yaml_char_t* tag = map ? e->data.mapping_start.tag : e->data.sequence_start.tag;
		size_t mark = push_child_path(b);
		if (b->depth >= THRONG_MAX_FILE_DEPTH) {
			sf_error(c, mark_pos(e->start_mark),
			         "nesting deeper than %d levels (expected at most %d nested mappings and sequences)",
			         THRONG_MAX_FILE_DEPTH, THRONG_MAX_FILE_DEPTH);
			sf_pop(c, mark);
			return false;
		}
		if (tag != NULL) {
			sf_error(c, mark_pos(e->start_mark), "tag %.40s: tags are not supported (expected an untagged value)",
			         (const char*)tag);
		}
		sf_node* n = new_node(b, map ? SF_MAPPING : SF_SEQUENCE, e->start_mark);
		if (n == NULL || !attach(b, n)) {
			sf_pop(c, mark);
			return false;
		}
		b->stack[b->depth] = n;
		b->items[b->depth] = 0;
		b->mark[b->depth] = mark;
		b->depth++;
		return true;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0) {
			b->depth--;
			sf_pop(c, b->mark[b->depth]);
		}
		return true;
	default:
		return true;
	}
}

sf_node* sf_read_yaml(sf_ctx* c, const unsigned char* data, size_t size)
{
	if (!scan_text(c, data, size, (size_t)-1, NULL)) {
		return NULL;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		sf_error(c, (sf_pos){1, 1}, "out of memory while reading the file (expected a smaller file)");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, data, size);
	builder b;
	memset(&b, 0, sizeof b);
	b.c = c;
	uint32_t documents = 0;
	bool ok = true;
	for (;;) {
		yaml_event_t e;
		if (!yaml_parser_parse(&parser, &e)) {
			report_parser_error(&b, &parser, data, size);
			ok = false;
			break;
		}
		bool go = on_event(&b, &e, &documents);
		bool end = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
		if (!go) {
			ok = false;
			break;
		}
		if (end) {
			break;
		}
	}
	yaml_parser_delete(&parser);
	c->path_len = 0;
	c->path[0] = '\0';
	if (!ok) {
		sf_node_free(b.root);
		return NULL;
	}
	if (b.root == NULL || sf_is_null(b.root)) {
		sf_pos at = b.root != NULL ? b.root->pos : (sf_pos){1, 1};
		sf_error(c, at, "the file holds no scene (expected a mapping with archetypes and groups)");
		sf_node_free(b.root);
		return NULL;
	}
	return b.root;
}
