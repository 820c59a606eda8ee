/*
 * pbtext_internal: the state of the text format reader and the scanning that
 * its two halves share, private to them: pbtext.c walks messages (fields,
 * nesting, unknown fields skipped) and reports errors, pbtext_scalar.c reads
 * the values (numbers, bools, enums, strings and their escapes) and encodes
 * them. The small scanners are inline: they run on every token.
 */
#ifndef TL_IO_PBTEXT_INTERNAL_H
#define TL_IO_PBTEXT_INTERNAL_H

#include "io/pbtext.h"

#include <glib.h>
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TL_PBTEXT_NAME_BUF 128 /* longest field name looked up; longer ones are unknown */

/* Protobuf messages stop at 2 GiB: protobuf-c decodes no more, and the
 * GByteArray holding the wire format would overflow at 4. */
#define TL_PBTEXT_MAX_WIRE ((size_t)INT32_MAX)

/* One conversion: the input, where the reader is, and what it appends to. */
struct tl_pbtext_parser {
	const char *text; /* start of the input, for line and column */
	const char *p;
	const char *end;
	GByteArray *out;
	tl_error *err;
	char name[TL_PBTEXT_NAME_BUF];
};

static inline bool tl_pbtext_is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static inline bool tl_pbtext_is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool tl_pbtext_is_ident_char(char c)
{
	return tl_pbtext_is_ident_start(c) || (c >= '0' && c <= '9');
}

static inline bool tl_pbtext_is_word_char(char c)
{
	return tl_pbtext_is_ident_char(c) || c == '.';
}

static inline bool tl_pbtext_is_quote(char c)
{
	return c == '"' || c == '\'';
}

/* The name of a message type without its package: "CostGraphDef.Node". */
static inline const char *tl_pbtext_short_type_name(const char *full, const char *package)
{
	size_t n = package != NULL ? strlen(package) : 0;
	if (n > 0 && strncmp(full, package, n) == 0 && full[n] == '.')
		return full + n + 1;
	return full;
}

/* Whitespace and '#' comments. */
static inline void tl_pbtext_skip_space(struct tl_pbtext_parser *ps)
{
	const char *p = ps->p;
	const char *end = ps->end;
	while (p < end) {
		if (tl_pbtext_is_space(*p)) {
			p++;
		} else if (*p == '#') {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl != NULL ? nl + 1 : end;
		} else {
			break;
		}
	}
	ps->p = p;
}

static inline bool tl_pbtext_at_char(const struct tl_pbtext_parser *ps, char c)
{
	return ps->p < ps->end && *ps->p == c;
}

/* A number, enum or bool: an optional '-', then letters, digits, '_' and
 * '.', with a sign allowed right after the exponent of a decimal number. */
static inline size_t tl_pbtext_scan_word(const char *p, const char *end)
{
	const char *q = p;
	if (q < end && *q == '-')
		q++;
	const char *body = q;
	bool decimal = q < end && ((*q >= '0' && *q <= '9') || *q == '.') &&
		       !(end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'));
	while (q < end) {
		if (tl_pbtext_is_word_char(*q)) {
			q++;
		} else if (decimal && (*q == '+' || *q == '-') && q > body &&
			   (q[-1] == 'e' || q[-1] == 'E')) {
			q++;
		} else {
			break;
		}
	}
	if (q == body)
		return 0;
	return (size_t)(q - p);
}

static inline bool tl_pbtext_word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* Errors (pbtext.c), all returning -1 with err set: "line L, column C:
 * expected E, found F". tl_pbtext_describe says what is at `at` the way F
 * does ("'word'", "a string", "end of input", ...). */
void tl_pbtext_line_column(const struct tl_pbtext_parser *ps, const char *at, unsigned long *line,
			   unsigned long *column);
void tl_pbtext_describe(const struct tl_pbtext_parser *ps, const char *at, char *buf, size_t size);
int tl_pbtext_fail_found(struct tl_pbtext_parser *ps, const char *at, const char *found,
			 const char *expected);
int tl_pbtext_fail(struct tl_pbtext_parser *ps, const char *at, const char *expected);
int tl_pbtext_failf(struct tl_pbtext_parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The wire format grew past TL_PBTEXT_MAX_WIRE. */
int tl_pbtext_fail_too_big(struct tl_pbtext_parser *ps, const char *at);

/* Values (pbtext_scalar.c). The value of the non-message field `f` at ps->p,
 * appended to ps->out as a field of the wire format; ps->p is left after
 * it. */
int tl_pbtext_scalar_parse(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f);

/* Appends the decoded bytes of one or more adjacent string literals at
 * ps->p (the walk calls it to check and skip an unknown string). */
int tl_pbtext_scalar_strings(struct tl_pbtext_parser *ps);

#endif
