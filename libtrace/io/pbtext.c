/*
 * pbtext: the walk over text format messages (fields looked up by name in
 * protobuf-c's descriptors, nesting, lists, unknown fields checked and
 * skipped), the guess of the top-level message, and the error messages of
 * the whole reader. The values of fields are pbtext_scalar.c's.
 */
#include "io/pbtext.h"

#include "io/pbtext_internal.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Names older TensorFlow wrote for fields that kept their numbers. */
static const struct legacy_name {
	const char *message; /* full protobuf name */
	const char *old_name;
	const char *new_name;
} legacy_names[] = {
    {"tensorflow.MemoryStats", "host_temp_memory_size", "temp_memory_size"},
    {"tensorflow.MemoryStats", "host_persistent_memory_size", "persistent_memory_size"},
    {"tensorflow.MemoryStats", "host_persistent_tensor_alloc_ids", "persistent_tensor_alloc_ids"},
    {"tensorflow.CostGraphDef.Node", "host_persistent_memory_size", "persistent_memory_size"},
};

void tl_pbtext_line_column(const struct tl_pbtext_parser *ps, const char *at, unsigned long *line,
			   unsigned long *column)
{
	unsigned long l = 1;
	const char *line_start = ps->text;
	for (const char *q = ps->text; q < at; q++) {
		if (*q == '\n') {
			l++;
			line_start = q + 1;
		}
	}
	*line = l;
	*column = (unsigned long)(at - line_start) + 1;
}

/* What the reader found at `at`, for error messages. */
void tl_pbtext_describe(const struct tl_pbtext_parser *ps, const char *at, char *buf, size_t size)
{
	if (at >= ps->end) {
		g_strlcpy(buf, "end of input", size);
		return;
	}
	unsigned char c = (unsigned char)*at;
	if (c == '\n' || c == '\r') {
		g_strlcpy(buf, "end of line", size);
	} else if (tl_pbtext_is_quote((char)c)) {
		g_strlcpy(buf, "a string", size);
	} else if (tl_pbtext_is_word_char((char)c) || c == '-') {
		const char *q = at + 1;
		while (q < ps->end && tl_pbtext_is_word_char(*q) && q - at < 40)
			q++;
		bool more = q < ps->end && tl_pbtext_is_word_char(*q);
		g_snprintf(buf, size, "'%.*s%s'", (int)(q - at), at, more ? "..." : "");
	} else if (c > ' ' && c < 0x7f) {
		g_snprintf(buf, size, "'%c'", c);
	} else {
		g_snprintf(buf, size, "byte 0x%02x", c);
	}
}

int tl_pbtext_fail_found(struct tl_pbtext_parser *ps, const char *at, const char *found,
			 const char *expected)
{
	unsigned long line, column;
	tl_pbtext_line_column(ps, at, &line, &column);
	return tl_error_set(ps->err, "line %lu, column %lu: expected %s, found %s", line, column,
			    expected, found);
}

int tl_pbtext_fail_too_big(struct tl_pbtext_parser *ps, const char *at)
{
	unsigned long line, column;
	tl_pbtext_line_column(ps, at, &line, &column);
	return tl_error_set(ps->err,
			    "line %lu, column %lu: the message grows over protobuf's "
			    "2 GiB limit",
			    line, column);
}

int tl_pbtext_fail(struct tl_pbtext_parser *ps, const char *at, const char *expected)
{
	char found[64];
	tl_pbtext_describe(ps, at, found, sizeof found);
	return tl_pbtext_fail_found(ps, at, found, expected);
}

int tl_pbtext_failf(struct tl_pbtext_parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int tl_pbtext_failf(struct tl_pbtext_parser *ps, const char *at, const char *fmt, ...)
{
	char expected[256];
	va_list ap;
	va_start(ap, fmt);
	g_vsnprintf(expected, sizeof expected, fmt, ap);
	va_end(ap);
	return tl_pbtext_fail(ps, at, expected);
}

static size_t scan_ident(const char *p, const char *end)
{
	const char *q = p;
	if (q < end && tl_pbtext_is_ident_start(*q)) {
		q++;
		while (q < end && tl_pbtext_is_ident_char(*q))
			q++;
	}
	return (size_t)(q - p);
}

static int open_message(struct tl_pbtext_parser *ps, int depth, char *close)
{
	tl_pbtext_skip_space(ps);
	if (ps->p >= ps->end || (*ps->p != '{' && *ps->p != '<'))
		return tl_pbtext_fail(ps, ps->p, "'{' or '<'");
	if (depth >= TL_PBTEXT_MAX_DEPTH) {
		char expected[64];
		g_snprintf(expected, sizeof expected, "at most %d nested messages",
			   TL_PBTEXT_MAX_DEPTH);
		return tl_pbtext_fail_found(ps, ps->p, "one more", expected);
	}
	*close = *ps->p == '{' ? '}' : '>';
	ps->p++;
	return 0;
}

static int skip_value(struct tl_pbtext_parser *ps, int depth);

/* A bracketed extension or Any type name, "[pkg.ext]"; leaves its text in
 * *name. */
static int scan_bracket_name(struct tl_pbtext_parser *ps, const char **name, size_t *len)
{
	ps->p++;
	tl_pbtext_skip_space(ps);
	const char *start = ps->p;
	while (ps->p < ps->end && (tl_pbtext_is_word_char(*ps->p) || *ps->p == '/'))
		ps->p++;
	*name = start;
	*len = (size_t)(ps->p - start);
	tl_pbtext_skip_space(ps);
	if (*len == 0)
		return tl_pbtext_fail(ps, ps->p, "extension name after '['");
	if (!tl_pbtext_at_char(ps, ']'))
		return tl_pbtext_fail(ps, ps->p, "']'");
	ps->p++;
	return 0;
}

/* Skips a message whose fields we do not know, checking its syntax. */
static int skip_message(struct tl_pbtext_parser *ps, int depth)
{
	char close;
	if (open_message(ps, depth, &close) < 0)
		return -1;
	for (;;) {
		tl_pbtext_skip_space(ps);
		if (ps->p >= ps->end)
			return tl_pbtext_failf(ps, ps->p, "'%c'", close);
		if (*ps->p == close) {
			ps->p++;
			return 0;
		}
		if (*ps->p == '[') {
			const char *name;
			size_t len;
			if (scan_bracket_name(ps, &name, &len) < 0)
				return -1;
		} else {
			size_t n = scan_ident(ps->p, ps->end);
			if (n == 0)
				return tl_pbtext_failf(ps, ps->p, "field name or '%c'", close);
			ps->p += n;
		}
		if (skip_value(ps, depth + 1) < 0)
			return -1;
		tl_pbtext_skip_space(ps);
		if (tl_pbtext_at_char(ps, ',') || tl_pbtext_at_char(ps, ';'))
			ps->p++;
	}
}

static int skip_scalar(struct tl_pbtext_parser *ps)
{
	if (ps->p < ps->end && tl_pbtext_is_quote(*ps->p)) {
		guint mark = ps->out->len;
		int rc = tl_pbtext_scalar_strings(ps);
		g_byte_array_set_size(ps->out, mark);
		return rc;
	}
	size_t n = tl_pbtext_scan_word(ps->p, ps->end);
	if (n == 0)
		return tl_pbtext_fail(ps, ps->p, "a value");
	ps->p += n;
	return 0;
}

static int parse_message_value(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f,
			       int depth);

/* One item of a list: a value of field f, or, where f is NULL (a field we
 * do not know), a value skipped. */
static int list_item(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f, int depth)
{
	if (f == NULL)
		return tl_pbtext_at_char(ps, '{') || tl_pbtext_at_char(ps, '<')
			   ? skip_message(ps, depth)
			   : skip_scalar(ps);
	return f->type == PROTOBUF_C_TYPE_MESSAGE ? parse_message_value(ps, f, depth)
						  : tl_pbtext_scalar_parse(ps, f);
}

/* The list at ps->p (its '['), each item by list_item. */
static int read_list(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f, int depth)
{
	ps->p++;
	tl_pbtext_skip_space(ps);
	if (tl_pbtext_at_char(ps, ']')) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (list_item(ps, f, depth) < 0)
			return -1;
		tl_pbtext_skip_space(ps);
		if (tl_pbtext_at_char(ps, ',')) {
			ps->p++;
			tl_pbtext_skip_space(ps);
		} else if (tl_pbtext_at_char(ps, ']')) {
			ps->p++;
			return 0;
		} else {
			return tl_pbtext_fail(ps, ps->p, "',' or ']'");
		}
	}
}

/* The value of an unknown field: a scalar, a list or a message. */
static int skip_value(struct tl_pbtext_parser *ps, int depth)
{
	tl_pbtext_skip_space(ps);
	bool colon = tl_pbtext_at_char(ps, ':');
	if (colon) {
		ps->p++;
		tl_pbtext_skip_space(ps);
	}
	if (tl_pbtext_at_char(ps, '['))
		return read_list(ps, NULL, depth);
	if (tl_pbtext_at_char(ps, '{') || tl_pbtext_at_char(ps, '<'))
		return skip_message(ps, depth);
	if (!colon)
		return tl_pbtext_fail(ps, ps->p, "':' or '{'");
	return skip_scalar(ps);
}

static void warn_unknown(const ProtobufCMessageDescriptor *desc, const char *name, size_t n)
{
	const char *type = tl_pbtext_short_type_name(desc->name, desc->package_name);
	char key[256];
	g_snprintf(key, sizeof key, "pbtext-unknown-%s.%.*s", type, (int)n, name);
	tl_warn(key, "skipped unknown field '%.*s' in %s", (int)n, name, type);
}

static const ProtobufCFieldDescriptor *lookup_field(struct tl_pbtext_parser *ps,
						    const ProtobufCMessageDescriptor *desc,
						    const char *s, size_t n)
{
	if (n >= sizeof ps->name)
		return NULL;
	memcpy(ps->name, s, n);
	ps->name[n] = '\0';
	const ProtobufCFieldDescriptor *f =
	    protobuf_c_message_descriptor_get_field_by_name(desc, ps->name);
	if (f != NULL)
		return f;
	for (size_t i = 0; i < G_N_ELEMENTS(legacy_names); i++) {
		const struct legacy_name *l = &legacy_names[i];
		if (strcmp(ps->name, l->old_name) == 0 && strcmp(desc->name, l->message) == 0)
			return protobuf_c_message_descriptor_get_field_by_name(desc, l->new_name);
	}
	return NULL;
}

static int parse_body(struct tl_pbtext_parser *ps, const ProtobufCMessageDescriptor *desc,
		      int depth, char close);

static int parse_message_value(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f,
			       int depth)
{
	char close;
	if (open_message(ps, depth, &close) < 0)
		return -1;
	size_t mark = tl_pbwire_begin_len(ps->out, f->id);
	if (parse_body(ps, f->descriptor, depth + 1, close) < 0)
		return -1;
	tl_pbwire_end_len(ps->out, mark);
	return 0;
}

/* One field at ps->p (a name start or '['). */
static int parse_field(struct tl_pbtext_parser *ps, const ProtobufCMessageDescriptor *desc,
		       int depth)
{
	const char *name = ps->p;
	size_t n;
	const ProtobufCFieldDescriptor *f = NULL;
	if (*name == '[') {
		if (scan_bracket_name(ps, &name, &n) < 0)
			return -1;
	} else {
		n = scan_ident(name, ps->end);
		ps->p = name + n;
		f = lookup_field(ps, desc, name, n);
	}
	if (f == NULL) {
		warn_unknown(desc, name, n);
		return skip_value(ps, depth);
	}
	tl_pbtext_skip_space(ps);
	bool colon = tl_pbtext_at_char(ps, ':');
	if (colon) {
		ps->p++;
		tl_pbtext_skip_space(ps);
	}
	bool list = tl_pbtext_at_char(ps, '[');
	if (list && f->label != PROTOBUF_C_LABEL_REPEATED)
		return tl_pbtext_failf(ps, ps->p, "one value for non-repeated field '%s'", f->name);
	if (list)
		return read_list(ps, f, depth);
	if (f->type == PROTOBUF_C_TYPE_MESSAGE)
		return parse_message_value(ps, f, depth);
	if (!colon)
		return tl_pbtext_failf(ps, ps->p, "':' after '%s'", f->name);
	return tl_pbtext_scalar_parse(ps, f);
}

/* Fields up to `close` ('}' or '>'), or to the end of input when close is 0. */
static int parse_body(struct tl_pbtext_parser *ps, const ProtobufCMessageDescriptor *desc,
		      int depth, char close)
{
	for (;;) {
		tl_pbtext_skip_space(ps);
		if (ps->p >= ps->end) {
			if (close == 0)
				return 0;
			return tl_pbtext_failf(ps, ps->p, "'%c'", close);
		}
		char c = *ps->p;
		if (close != 0 && c == close) {
			ps->p++;
			return 0;
		}
		if (!tl_pbtext_is_ident_start(c) && c != '[') {
			if (close == 0)
				return tl_pbtext_fail(ps, ps->p, "field name");
			return tl_pbtext_failf(ps, ps->p, "field name or '%c'", close);
		}
		if (parse_field(ps, desc, depth) < 0)
			return -1;
		if (ps->out->len > TL_PBTEXT_MAX_WIRE)
			return tl_pbtext_fail_too_big(ps, ps->p);
		tl_pbtext_skip_space(ps);
		if (tl_pbtext_at_char(ps, ',') || tl_pbtext_at_char(ps, ';'))
			ps->p++;
	}
}

/* Editors on some systems start text files with a UTF-8 byte-order mark. */
static bool has_bom(const char *text, size_t len)
{
	return len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0;
}

int tl_pbtext_to_wire(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
		      GByteArray *out, tl_error *err)
{
	if (len == 0)
		return 0;
	struct tl_pbtext_parser ps = {
	    .text = text, .p = text, .end = text + len, .out = out, .err = err};
	if (has_bom(text, len))
		ps.p += 3;
	guint start = out->len;
	if (parse_body(&ps, desc, 0, 0) < 0) {
		g_byte_array_set_size(out, start);
		return -1;
	}
	return 0;
}

const ProtobufCMessageDescriptor *tl_pbtext_guess(const char *text, size_t len)
{
	static const struct {
		const char *field;
		const ProtobufCMessageDescriptor *desc;
	} first_fields[] = {
	    {"step_stats", &tensorflow__run_metadata__descriptor},
	    {"cost_graph", &tensorflow__run_metadata__descriptor},
	    {"partition_graphs", &tensorflow__run_metadata__descriptor},
	    {"function_graphs", &tensorflow__run_metadata__descriptor},
	    {"session_metadata", &tensorflow__run_metadata__descriptor},
	    {"dev_stats", &tensorflow__step_stats__descriptor},
	    {"node", &tensorflow__graph_def__descriptor},
	    {"library", &tensorflow__graph_def__descriptor},
	    {"versions", &tensorflow__graph_def__descriptor},
	    {"version", &tensorflow__graph_def__descriptor},
	};
	if (len == 0)
		return NULL;
	struct tl_pbtext_parser ps = {.text = text, .p = text, .end = text + len};
	if (has_bom(text, len))
		ps.p += 3;
	tl_pbtext_skip_space(&ps);
	size_t n = scan_ident(ps.p, ps.end);
	for (size_t i = 0; i < G_N_ELEMENTS(first_fields); i++) {
		if (tl_pbtext_word_is(ps.p, n, first_fields[i].field))
			return first_fields[i].desc;
	}
	return NULL;
}
