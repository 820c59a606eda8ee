/*
 * pbtext_scalar: the values of text format fields (integers in any base,
 * floats, bools, enums by name or number, strings with their escapes)
 * checked against the field's type and appended as wire format.
 */
#include "io/pbtext_internal.h"

#include "base/utf8.h"
#include "io/pbwire.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN_RESERVE 5 /* bytes kept for a string length before it is known */

static unsigned digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 99;
}

/* Decimal, 0x hex or 0-led octal, with an optional '-'; false when not an
 * integer or beyond 64 bits of magnitude. */
static bool parse_integer(const char *s, size_t n, bool *neg, uint64_t *mag)
{
	size_t i = 0;
	*neg = false;
	if (i < n && s[i] == '-') {
		*neg = true;
		i++;
	}
	if (i == n)
		return false;
	unsigned base = 10;
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (n - i > 1 && s[i] == '0') {
		base = 8;
		i++;
	}
	uint64_t v = 0;
	for (; i < n; i++) {
		unsigned d = digit_value(s[i]);
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*mag = v;
	return true;
}

static bool ascii_ieq(const char *s, const char *lower)
{
	for (; *s != '\0' && *lower != '\0'; s++, lower++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		if (c != *lower)
			return false;
	}
	return *s == '\0' && *lower == '\0';
}

/* A float literal as text format writes it: digits with optional point and
 * exponent, an optional 'f' suffix, or inf/infinity/nan in any case. */
static bool parse_double(const char *w, size_t n, double *out)
{
	char buf[72];
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, w, n);
	buf[n] = '\0';
	char *s = buf;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (ascii_ieq(s, "inf") || ascii_ieq(s, "infinity") || ascii_ieq(s, "inff")) {
		*out = neg ? -INFINITY : INFINITY;
		return true;
	}
	if (ascii_ieq(s, "nan") || ascii_ieq(s, "nanf")) {
		*out = NAN;
		return true;
	}
	size_t m = strlen(s);
	if (m > 1 && (s[m - 1] == 'f' || s[m - 1] == 'F'))
		s[--m] = '\0';
	if (m == 0 || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.'))
		return false;
	for (size_t i = 0; i < m; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
		      c == '-'))
			return false;
	}
	char *stop = NULL;
	double d = strtod(s, &stop);
	if (stop != s + m)
		return false;
	*out = neg ? -d : d;
	return true;
}

static bool parse_bool(const char *w, size_t n, bool *out)
{
	if (tl_pbtext_word_is(w, n, "true") || tl_pbtext_word_is(w, n, "True") ||
	    tl_pbtext_word_is(w, n, "t") || tl_pbtext_word_is(w, n, "1")) {
		*out = true;
		return true;
	}
	if (tl_pbtext_word_is(w, n, "false") || tl_pbtext_word_is(w, n, "False") ||
	    tl_pbtext_word_is(w, n, "f") || tl_pbtext_word_is(w, n, "0")) {
		*out = false;
		return true;
	}
	return false;
}

static const char *type_word(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
		return "int32";
	case PROTOBUF_C_TYPE_SINT32:
		return "sint32";
	case PROTOBUF_C_TYPE_SFIXED32:
		return "sfixed32";
	case PROTOBUF_C_TYPE_INT64:
		return "int64";
	case PROTOBUF_C_TYPE_SINT64:
		return "sint64";
	case PROTOBUF_C_TYPE_SFIXED64:
		return "sfixed64";
	case PROTOBUF_C_TYPE_UINT32:
		return "uint32";
	case PROTOBUF_C_TYPE_FIXED32:
		return "fixed32";
	case PROTOBUF_C_TYPE_UINT64:
		return "uint64";
	case PROTOBUF_C_TYPE_FIXED64:
		return "fixed64";
	case PROTOBUF_C_TYPE_FLOAT:
		return "float";
	case PROTOBUF_C_TYPE_DOUBLE:
		return "double";
	case PROTOBUF_C_TYPE_BOOL:
		return "bool";
	case PROTOBUF_C_TYPE_ENUM:
		return "enum";
	case PROTOBUF_C_TYPE_STRING:
		return "string";
	case PROTOBUF_C_TYPE_BYTES:
		return "bytes";
	case PROTOBUF_C_TYPE_MESSAGE:
		return "message";
	}
	return "value";
}

/* Checks an integer word against the field's range and returns the bits to
 * encode (two's complement for negatives, zigzag for sint). */
static int integer_bits(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f,
			const char *w, size_t n, uint64_t *bits)
{
	static const char *const ranges[] = {
	    "-2147483648..2147483647",
	    "0..4294967295",
	    "-9223372036854775808..9223372036854775807",
	    "0..18446744073709551615",
	};
	bool neg = false;
	uint64_t mag = 0;
	bool ok = parse_integer(w, n, &neg, &mag);
	int range;
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_ENUM:
		range = 0;
		ok = ok && mag <= (neg ? UINT64_C(0x80000000) : UINT64_C(0x7fffffff));
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		range = 1;
		ok = ok && (!neg || mag == 0) && mag <= UINT32_MAX;
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		range = 3;
		ok = ok && (!neg || mag == 0);
		break;
	default:
		range = 2;
		ok = ok && mag <= (neg ? UINT64_C(0x8000000000000000) : (uint64_t)INT64_MAX);
		break;
	}
	if (!ok) {
		const char *tw =
		    f->type == PROTOBUF_C_TYPE_ENUM ? "enum number" : type_word(f->type);
		return tl_pbtext_failf(ps, ps->p - n, "%s (%s)", tw, ranges[range]);
	}
	if (f->type == PROTOBUF_C_TYPE_SINT32 || f->type == PROTOBUF_C_TYPE_SINT64)
		*bits = neg && mag > 0 ? 2 * mag - 1 : 2 * mag;
	else
		*bits = neg ? 0 - mag : mag;
	return 0;
}

static void put_varint_field(struct tl_pbtext_parser *ps, uint32_t field, uint64_t v)
{
	tl_pbwire_put_tag(ps->out, field, PROTOBUF_C_WIRE_TYPE_VARINT);
	tl_pbwire_put_varint(ps->out, v);
}

static int emit_integer(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f,
			const char *w, size_t n)
{
	uint64_t bits = 0;
	if (integer_bits(ps, f, w, n, &bits) < 0)
		return -1;
	switch (f->type) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
		tl_pbwire_put_tag(ps->out, f->id, PROTOBUF_C_WIRE_TYPE_32BIT);
		tl_pbwire_put_fixed32(ps->out, (uint32_t)bits);
		break;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
		tl_pbwire_put_tag(ps->out, f->id, PROTOBUF_C_WIRE_TYPE_64BIT);
		tl_pbwire_put_fixed64(ps->out, bits);
		break;
	case PROTOBUF_C_TYPE_SINT32:
		/* zigzag of a 32-bit value fits 32 bits */
		put_varint_field(ps, f->id, bits & UINT32_MAX);
		break;
	default:
		put_varint_field(ps, f->id, bits);
		break;
	}
	return 0;
}

static int emit_float(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f, const char *w,
		      size_t n)
{
	double d;
	if (!parse_double(w, n, &d))
		return tl_pbtext_failf(ps, ps->p - n, "%s value", type_word(f->type));
	if (f->type == PROTOBUF_C_TYPE_DOUBLE) {
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		tl_pbwire_put_tag(ps->out, f->id, PROTOBUF_C_WIRE_TYPE_64BIT);
		tl_pbwire_put_fixed64(ps->out, bits);
		return 0;
	}
	float v = isnan(d) ? NAN : tl_pbtext_round_float(d);
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	tl_pbwire_put_tag(ps->out, f->id, PROTOBUF_C_WIRE_TYPE_32BIT);
	tl_pbwire_put_fixed32(ps->out, bits);
	return 0;
}

static int emit_enum(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f, const char *w,
		     size_t n)
{
	const ProtobufCEnumDescriptor *ed = f->descriptor;
	if (!tl_pbtext_is_ident_start(*w))
		return emit_integer(ps, f, w, n);
	const ProtobufCEnumValue *ev = NULL;
	if (n < sizeof ps->name) {
		memcpy(ps->name, w, n);
		ps->name[n] = '\0';
		ev = protobuf_c_enum_descriptor_get_value_by_name(ed, ps->name);
	}
	if (ev == NULL) {
		/* proto3 enums are open: a newer dump may name a value we lack */
		const char *type = tl_pbtext_short_type_name(ed->name, ed->package_name);
		char key[256];
		g_snprintf(key, sizeof key, "pbtext-unknown-enum-%s.%.*s", type, (int)n, w);
		tl_warn(key, "skipped unknown %s value '%.*s' in field '%s'", type, (int)n, w,
			f->name);
		return 0;
	}
	put_varint_field(ps, f->id, (uint64_t)(int64_t)ev->value);
	return 0;
}

static size_t encode_varint(uint8_t *buf, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}

/* Reads up to `count` hex digits at `p`; returns how many it read. */
static size_t read_hex(const char *p, const char *end, size_t count, uint32_t *v)
{
	size_t i = 0;
	*v = 0;
	while (i < count && p + i < end && digit_value(p[i]) < 16) {
		*v = *v * 16 + digit_value(p[i]);
		i++;
	}
	return i;
}

/* What the reader found inside a string literal, for error messages. */
static void describe_char(const struct tl_pbtext_parser *ps, const char *at, char *buf, size_t size)
{
	unsigned char c = at < ps->end ? (unsigned char)*at : 0;
	if (at >= ps->end || c == '\n' || c == '\r')
		tl_pbtext_describe(ps, at, buf, size);
	else if (c >= ' ' && c < 0x7f)
		g_snprintf(buf, size, "'%c'", c);
	else
		g_snprintf(buf, size, "byte 0x%02x", c);
}

/* The escapes of one character, each followed by the byte it stands for. */
static const char simple_escapes[] = "n\nt\tr\ra\ab\bf\fv\v\\\\''\"\"??";

static bool simple_escape(char c, uint8_t *byte)
{
	for (const char *e = simple_escapes; *e != '\0'; e += 2) {
		if (*e == c) {
			*byte = (uint8_t)e[1];
			return true;
		}
	}
	return false;
}

/* \NNN at `at`: up to three octal digits, at most \377. */
static int octal_escape(struct tl_pbtext_parser *ps, const char *at, uint8_t *byte)
{
	const char *p = at + 1;
	uint32_t v = 0;
	for (size_t n = 0; n < 3 && p < ps->end && *p >= '0' && *p <= '7'; n++)
		v = v * 8 + (uint32_t)(*p++ - '0');
	if (v > 0xff) {
		char found[64];
		g_snprintf(found, sizeof found, "'\\%.*s'", (int)(p - at - 1), at + 1);
		return tl_pbtext_fail_found(ps, at, found, "an octal escape \\000 to \\377");
	}
	ps->p = p;
	*byte = (uint8_t)v;
	return 0;
}

/* \xH or \xHH at `at`. */
static int hex_escape(struct tl_pbtext_parser *ps, const char *at, uint8_t *byte)
{
	const char *p = at + 2;
	uint32_t v;
	size_t n = read_hex(p, ps->end, 2, &v);
	if (n == 0) {
		char found[64];
		describe_char(ps, p, found, sizeof found);
		return tl_pbtext_fail_found(ps, p, found, "hex digits after '\\x'");
	}
	ps->p = p + n;
	*byte = (uint8_t)v;
	return 0;
}

/* \uXXXX or \UXXXXXXXX at `at`, appended as UTF-8. */
static int unicode_escape(struct tl_pbtext_parser *ps, const char *at)
{
	char c = at[1];
	const char *p = at + 2;
	size_t n = c == 'u' ? 4 : 8;
	uint32_t v;
	size_t got = read_hex(p, ps->end, n, &v);
	char found[64];
	if (got != n) {
		char expected[64];
		g_snprintf(found, sizeof found, "%zu", got);
		g_snprintf(expected, sizeof expected, "%zu hex digits after '\\%c'", n, c);
		return tl_pbtext_fail_found(ps, at, found, expected);
	}
	if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		g_snprintf(found, sizeof found, "U+%04" PRIX32, v);
		return tl_pbtext_fail_found(ps, at, found, "a Unicode scalar value");
	}
	ps->p = p + n;
	char utf8[4];
	g_byte_array_append(ps->out, (const guint8 *)utf8, (guint)tl_utf8_encode(utf8, v));
	return 0;
}

/* Decodes the escape sequence at ps->p (a backslash) and appends its bytes. */
static int decode_escape(struct tl_pbtext_parser *ps)
{
	const char *at = ps->p;
	char found[64];
	if (at + 1 >= ps->end) {
		describe_char(ps, at + 1, found, sizeof found);
		return tl_pbtext_fail_found(ps, at + 1, found, "an escape sequence after '\\'");
	}
	char c = at[1];
	uint8_t byte;
	int rc = 0;
	if (simple_escape(c, &byte)) {
		ps->p = at + 2;
	} else if (c >= '0' && c <= '7') {
		rc = octal_escape(ps, at, &byte);
	} else if (c == 'x' || c == 'X') {
		rc = hex_escape(ps, at, &byte);
	} else if (c == 'u' || c == 'U') {
		return unicode_escape(ps, at);
	} else {
		if (c >= ' ' && c < 0x7f)
			g_snprintf(found, sizeof found, "'\\%c'", c);
		else
			g_snprintf(found, sizeof found, "'\\' and byte 0x%02x", (unsigned char)c);
		return tl_pbtext_fail_found(ps, at, found,
					    "an escape (\\n \\t \\r \\a \\b \\f \\v \\\\ \\' "
					    "\\\" \\? \\NNN \\xHH \\uXXXX \\UXXXXXXXX)");
	}
	if (rc < 0)
		return -1;
	g_byte_array_append(ps->out, &byte, 1);
	return 0;
}

/* Appends the decoded bytes of one or more adjacent string literals. */
int tl_pbtext_scalar_strings(struct tl_pbtext_parser *ps)
{
	if (ps->p >= ps->end || !tl_pbtext_is_quote(*ps->p))
		return tl_pbtext_fail(ps, ps->p, "a string");
	do {
		const char *open = ps->p;
		char quote = *ps->p++;
		const char *run = ps->p;
		for (;;) {
			const char *p = ps->p;
			while (p < ps->end && *p != quote && *p != '\\' && *p != '\n')
				p++;
			if (ps->out->len > TL_PBTEXT_MAX_WIRE ||
			    (size_t)(p - run) > TL_PBTEXT_MAX_WIRE - ps->out->len)
				return tl_pbtext_fail_too_big(ps, run);
			if (p > run)
				g_byte_array_append(ps->out, (const guint8 *)run, (guint)(p - run));
			ps->p = p;
			if (p >= ps->end || *p == '\n') {
				unsigned long line, column;
				tl_pbtext_line_column(ps, open, &line, &column);
				return tl_pbtext_failf(ps, p,
						       "%c to close the string opened at line %lu, "
						       "column %lu",
						       quote, line, column);
			}
			if (*p == quote)
				break;
			if (decode_escape(ps) < 0)
				return -1;
			if (ps->out->len > TL_PBTEXT_MAX_WIRE)
				return tl_pbtext_fail_too_big(ps, ps->p);
			run = ps->p;
		}
		ps->p++;
		tl_pbtext_skip_space(ps);
	} while (ps->p < ps->end && tl_pbtext_is_quote(*ps->p));
	return 0;
}

/* A length-delimited string field: the length goes in front once the
 * escapes are decoded, so the bytes are written once and moved back over the
 * unused part of the reserved length. */
static int emit_string(struct tl_pbtext_parser *ps, uint32_t field)
{
	static const uint8_t reserve[LEN_RESERVE];
	tl_pbwire_put_tag(ps->out, field, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	size_t mark = ps->out->len;
	g_byte_array_append(ps->out, reserve, LEN_RESERVE);
	if (tl_pbtext_scalar_strings(ps) < 0)
		return -1;
	size_t n = ps->out->len - mark - LEN_RESERVE;
	uint8_t *at = ps->out->data + mark;
	size_t k = encode_varint(at, n);
	if (k < LEN_RESERVE) {
		memmove(at + k, at + LEN_RESERVE, n);
		g_byte_array_set_size(ps->out, (guint)(mark + k + n));
	}
	return 0;
}

int tl_pbtext_scalar_parse(struct tl_pbtext_parser *ps, const ProtobufCFieldDescriptor *f)
{
	if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES)
		return emit_string(ps, f->id);
	const char *w = ps->p;
	size_t n = tl_pbtext_scan_word(w, ps->end);
	if (n == 0) {
		if (f->type == PROTOBUF_C_TYPE_ENUM) {
			const ProtobufCEnumDescriptor *ed = f->descriptor;
			return tl_pbtext_failf(
			    ps, w, "%s value for '%s'",
			    tl_pbtext_short_type_name(ed->name, ed->package_name), f->name);
		}
		return tl_pbtext_failf(ps, w, "%s value for '%s'", type_word(f->type), f->name);
	}
	ps->p = w + n;
	bool b;
	switch (f->type) {
	case PROTOBUF_C_TYPE_BOOL:
		if (!parse_bool(w, n, &b))
			return tl_pbtext_fail(ps, w, "bool value (true or false)");
		put_varint_field(ps, f->id, b);
		return 0;
	case PROTOBUF_C_TYPE_ENUM:
		return emit_enum(ps, f, w, n);
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_DOUBLE:
		return emit_float(ps, f, w, n);
	default:
		return emit_integer(ps, f, w, n);
	}
}
