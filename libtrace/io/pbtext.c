#include "io/pbtext.h"

#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Reading */

#define NAME_BUF 128  /* longest field name looked up; longer ones are unknown */
#define LEN_RESERVE 5 /* bytes kept for a string length before it is known */

struct parser {
	const char *text; /* start of the input, for line and column */
	const char *p;
	const char *end;
	GByteArray *out;
	tl_error *err;
	char name[NAME_BUF];
};

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

static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_word_char(char c)
{
	return is_ident_char(c) || c == '.';
}

static bool is_quote(char c)
{
	return c == '"' || c == '\'';
}

/* The name of a message type without its package: "CostGraphDef.Node". */
static const char *short_type_name(const char *full, const char *package)
{
	size_t n = package != NULL ? strlen(package) : 0;
	if (n > 0 && strncmp(full, package, n) == 0 && full[n] == '.')
		return full + n + 1;
	return full;
}

static void line_column(const struct parser *ps, const char *at, unsigned long *line,
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
static void describe(const struct parser *ps, const char *at, char *buf, size_t size)
{
	if (at >= ps->end) {
		g_strlcpy(buf, "end of input", size);
		return;
	}
	unsigned char c = (unsigned char)*at;
	if (c == '\n' || c == '\r') {
		g_strlcpy(buf, "end of line", size);
	} else if (is_quote((char)c)) {
		g_strlcpy(buf, "a string", size);
	} else if (is_word_char((char)c) || c == '-') {
		const char *q = at + 1;
		while (q < ps->end && is_word_char(*q) && q - at < 40)
			q++;
		bool more = q < ps->end && is_word_char(*q);
		g_snprintf(buf, size, "'%.*s%s'", (int)(q - at), at, more ? "..." : "");
	} else if (c > ' ' && c < 0x7f) {
		g_snprintf(buf, size, "'%c'", c);
	} else {
		g_snprintf(buf, size, "byte 0x%02x", c);
	}
}

static int fail_found(struct parser *ps, const char *at, const char *found, const char *expected)
{
	unsigned long line, column;
	line_column(ps, at, &line, &column);
	return tl_error_set(ps->err, "line %lu, column %lu: expected %s, found %s", line, column,
			    expected, found);
}

/* Protobuf messages stop at 2 GiB: protobuf-c decodes no more, and the
 * GByteArray holding the wire format would overflow at 4. */
#define MAX_WIRE ((size_t)INT32_MAX)

static int fail_too_big(struct parser *ps, const char *at)
{
	unsigned long line, column;
	line_column(ps, at, &line, &column);
	return tl_error_set(ps->err, "line %lu, column %lu: the message grows over protobuf's "
			    "2 GiB limit", line, column);
}

static int fail(struct parser *ps, const char *at, const char *expected)
{
	char found[64];
	describe(ps, at, found, sizeof found);
	return fail_found(ps, at, found, expected);
}

static int failf(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int failf(struct parser *ps, const char *at, const char *fmt, ...)
{
	char expected[256];
	va_list ap;
	va_start(ap, fmt);
	g_vsnprintf(expected, sizeof expected, fmt, ap);
	va_end(ap);
	return fail(ps, at, expected);
}

/* Whitespace and '#' comments. */
static void skip_space(struct parser *ps)
{
	const char *p = ps->p;
	const char *end = ps->end;
	while (p < end) {
		if (is_space(*p)) {
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

static bool at_char(const struct parser *ps, char c)
{
	return ps->p < ps->end && *ps->p == c;
}

static size_t scan_ident(const char *p, const char *end)
{
	const char *q = p;
	if (q < end && is_ident_start(*q)) {
		q++;
		while (q < end && is_ident_char(*q))
			q++;
	}
	return (size_t)(q - p);
}

/* A number, enum or bool: an optional '-', then letters, digits, '_' and
 * '.', with a sign allowed right after the exponent of a decimal number. */
static size_t scan_word(const char *p, const char *end)
{
	const char *q = p;
	if (q < end && *q == '-')
		q++;
	const char *body = q;
	bool decimal = q < end && ((*q >= '0' && *q <= '9') || *q == '.') &&
		       !(end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'));
	while (q < end) {
		if (is_word_char(*q)) {
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

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

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
	if (word_is(w, n, "true") || word_is(w, n, "True") || word_is(w, n, "t") ||
	    word_is(w, n, "1")) {
		*out = true;
		return true;
	}
	if (word_is(w, n, "false") || word_is(w, n, "False") || word_is(w, n, "f") ||
	    word_is(w, n, "0")) {
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
static int integer_bits(struct parser *ps, const ProtobufCFieldDescriptor *f, const char *w,
			size_t n, uint64_t *bits)
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
		return failf(ps, ps->p - n, "%s (%s)", tw, ranges[range]);
	}
	if (f->type == PROTOBUF_C_TYPE_SINT32 || f->type == PROTOBUF_C_TYPE_SINT64)
		*bits = neg && mag > 0 ? 2 * mag - 1 : 2 * mag;
	else
		*bits = neg ? 0 - mag : mag;
	return 0;
}

static void put_varint_field(struct parser *ps, uint32_t field, uint64_t v)
{
	tl_pbwire_put_tag(ps->out, field, PROTOBUF_C_WIRE_TYPE_VARINT);
	tl_pbwire_put_varint(ps->out, v);
}

static int emit_integer(struct parser *ps, const ProtobufCFieldDescriptor *f, const char *w,
			size_t n)
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

static int emit_float(struct parser *ps, const ProtobufCFieldDescriptor *f, const char *w, size_t n)
{
	double d;
	if (!parse_double(w, n, &d))
		return failf(ps, ps->p - n, "%s value", type_word(f->type));
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

static int emit_enum(struct parser *ps, const ProtobufCFieldDescriptor *f, const char *w, size_t n)
{
	const ProtobufCEnumDescriptor *ed = f->descriptor;
	if (!is_ident_start(*w))
		return emit_integer(ps, f, w, n);
	const ProtobufCEnumValue *ev = NULL;
	if (n < sizeof ps->name) {
		memcpy(ps->name, w, n);
		ps->name[n] = '\0';
		ev = protobuf_c_enum_descriptor_get_value_by_name(ed, ps->name);
	}
	if (ev == NULL) {
		/* proto3 enums are open: a newer dump may name a value we lack */
		const char *type = short_type_name(ed->name, ed->package_name);
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

static void append_utf8(GByteArray *out, uint32_t cp)
{
	uint8_t b[4];
	guint n;
	if (cp < 0x80) {
		b[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (uint8_t)(0xc0 | (cp >> 6));
		b[1] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (uint8_t)(0xe0 | (cp >> 12));
		b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | (cp >> 18));
		b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 4;
	}
	g_byte_array_append(out, b, n);
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
static void describe_char(const struct parser *ps, const char *at, char *buf, size_t size)
{
	unsigned char c = at < ps->end ? (unsigned char)*at : 0;
	if (at >= ps->end || c == '\n' || c == '\r')
		describe(ps, at, buf, size);
	else if (c >= ' ' && c < 0x7f)
		g_snprintf(buf, size, "'%c'", c);
	else
		g_snprintf(buf, size, "byte 0x%02x", c);
}

/* Decodes the escape sequence at ps->p (a backslash) and appends its bytes. */
static int decode_escape(struct parser *ps)
{
	const char *at = ps->p;
	const char *p = at + 1;
	char found[64];
	if (p >= ps->end) {
		describe_char(ps, p, found, sizeof found);
		return fail_found(ps, p, found, "an escape sequence after '\\'");
	}
	char c = *p++;
	uint8_t byte;
	uint32_t v;
	size_t n;
	switch (c) {
	case 'n':
		byte = '\n';
		break;
	case 't':
		byte = '\t';
		break;
	case 'r':
		byte = '\r';
		break;
	case 'a':
		byte = '\a';
		break;
	case 'b':
		byte = '\b';
		break;
	case 'f':
		byte = '\f';
		break;
	case 'v':
		byte = '\v';
		break;
	case '\\':
	case '\'':
	case '"':
	case '?':
		byte = (uint8_t)c;
		break;
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		v = (uint32_t)(c - '0');
		for (n = 1; n < 3 && p < ps->end && *p >= '0' && *p <= '7'; n++)
			v = v * 8 + (uint32_t)(*p++ - '0');
		if (v > 0xff) {
			g_snprintf(found, sizeof found, "'\\%.*s'", (int)(p - at - 1), at + 1);
			return fail_found(ps, at, found, "an octal escape \\000 to \\377");
		}
		byte = (uint8_t)v;
		break;
	case 'x':
	case 'X':
		n = read_hex(p, ps->end, 2, &v);
		if (n == 0) {
			describe_char(ps, p, found, sizeof found);
			return fail_found(ps, p, found, "hex digits after '\\x'");
		}
		p += n;
		byte = (uint8_t)v;
		break;
	case 'u':
	case 'U':
		n = c == 'u' ? 4 : 8;
		size_t got = read_hex(p, ps->end, n, &v);
		if (got != n) {
			char expected[64];
			g_snprintf(found, sizeof found, "%zu", got);
			g_snprintf(expected, sizeof expected, "%zu hex digits after '\\%c'", n, c);
			return fail_found(ps, at, found, expected);
		}
		if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
			g_snprintf(found, sizeof found, "U+%04" PRIX32, v);
			return fail_found(ps, at, found, "a Unicode scalar value");
		}
		ps->p = p + n;
		append_utf8(ps->out, v);
		return 0;
	default:
		if (c >= ' ' && c < 0x7f)
			g_snprintf(found, sizeof found, "'\\%c'", c);
		else
			g_snprintf(found, sizeof found, "'\\' and byte 0x%02x", (unsigned char)c);
		return fail_found(ps, at, found,
				  "an escape (\\n \\t \\r \\a \\b \\f \\v \\\\ \\' "
				  "\\\" \\? \\NNN \\xHH \\uXXXX \\UXXXXXXXX)");
	}
	ps->p = p;
	g_byte_array_append(ps->out, &byte, 1);
	return 0;
}

/* Appends the decoded bytes of one or more adjacent string literals. */
static int decode_strings(struct parser *ps)
{
	if (ps->p >= ps->end || !is_quote(*ps->p))
		return fail(ps, ps->p, "a string");
	do {
		const char *open = ps->p;
		char quote = *ps->p++;
		const char *run = ps->p;
		for (;;) {
			const char *p = ps->p;
			while (p < ps->end && *p != quote && *p != '\\' && *p != '\n')
				p++;
			if (ps->out->len > MAX_WIRE || (size_t)(p - run) > MAX_WIRE - ps->out->len)
				return fail_too_big(ps, run);
			if (p > run)
				g_byte_array_append(ps->out, (const guint8 *)run, (guint)(p - run));
			ps->p = p;
			if (p >= ps->end || *p == '\n') {
				unsigned long line, column;
				line_column(ps, open, &line, &column);
				return failf(ps, p,
					     "%c to close the string opened at line %lu, "
					     "column %lu",
					     quote, line, column);
			}
			if (*p == quote)
				break;
			if (decode_escape(ps) < 0)
				return -1;
			if (ps->out->len > MAX_WIRE)
				return fail_too_big(ps, ps->p);
			run = ps->p;
		}
		ps->p++;
		skip_space(ps);
	} while (ps->p < ps->end && is_quote(*ps->p));
	return 0;
}

/* A length-delimited string field: the length goes in front once the
 * escapes are decoded, so the bytes are written once and moved back over the
 * unused part of the reserved length. */
static int emit_string(struct parser *ps, uint32_t field)
{
	static const uint8_t reserve[LEN_RESERVE];
	tl_pbwire_put_tag(ps->out, field, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	size_t mark = ps->out->len;
	g_byte_array_append(ps->out, reserve, LEN_RESERVE);
	if (decode_strings(ps) < 0)
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

static int parse_scalar(struct parser *ps, const ProtobufCFieldDescriptor *f)
{
	if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES)
		return emit_string(ps, f->id);
	const char *w = ps->p;
	size_t n = scan_word(w, ps->end);
	if (n == 0) {
		if (f->type == PROTOBUF_C_TYPE_ENUM) {
			const ProtobufCEnumDescriptor *ed = f->descriptor;
			return failf(ps, w, "%s value for '%s'",
				     short_type_name(ed->name, ed->package_name), f->name);
		}
		return failf(ps, w, "%s value for '%s'", type_word(f->type), f->name);
	}
	ps->p = w + n;
	bool b;
	switch (f->type) {
	case PROTOBUF_C_TYPE_BOOL:
		if (!parse_bool(w, n, &b))
			return fail(ps, w, "bool value (true or false)");
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

static int open_message(struct parser *ps, int depth, char *close)
{
	skip_space(ps);
	if (ps->p >= ps->end || (*ps->p != '{' && *ps->p != '<'))
		return fail(ps, ps->p, "'{' or '<'");
	if (depth >= TL_PBTEXT_MAX_DEPTH) {
		char expected[64];
		g_snprintf(expected, sizeof expected, "at most %d nested messages",
			   TL_PBTEXT_MAX_DEPTH);
		return fail_found(ps, ps->p, "one more", expected);
	}
	*close = *ps->p == '{' ? '}' : '>';
	ps->p++;
	return 0;
}

static int skip_value(struct parser *ps, int depth);

/* A bracketed extension or Any type name, "[pkg.ext]"; leaves its text in
 * *name. */
static int scan_bracket_name(struct parser *ps, const char **name, size_t *len)
{
	ps->p++;
	skip_space(ps);
	const char *start = ps->p;
	while (ps->p < ps->end && (is_word_char(*ps->p) || *ps->p == '/'))
		ps->p++;
	*name = start;
	*len = (size_t)(ps->p - start);
	skip_space(ps);
	if (*len == 0)
		return fail(ps, ps->p, "extension name after '['");
	if (!at_char(ps, ']'))
		return fail(ps, ps->p, "']'");
	ps->p++;
	return 0;
}

/* Skips a message whose fields we do not know, checking its syntax. */
static int skip_message(struct parser *ps, int depth)
{
	char close;
	if (open_message(ps, depth, &close) < 0)
		return -1;
	for (;;) {
		skip_space(ps);
		if (ps->p >= ps->end)
			return failf(ps, ps->p, "'%c'", close);
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
				return failf(ps, ps->p, "field name or '%c'", close);
			ps->p += n;
		}
		if (skip_value(ps, depth + 1) < 0)
			return -1;
		skip_space(ps);
		if (at_char(ps, ',') || at_char(ps, ';'))
			ps->p++;
	}
}

static int skip_scalar(struct parser *ps)
{
	if (ps->p < ps->end && is_quote(*ps->p)) {
		guint mark = ps->out->len;
		int rc = decode_strings(ps);
		g_byte_array_set_size(ps->out, mark);
		return rc;
	}
	size_t n = scan_word(ps->p, ps->end);
	if (n == 0)
		return fail(ps, ps->p, "a value");
	ps->p += n;
	return 0;
}

static int skip_list(struct parser *ps, int depth)
{
	ps->p++;
	skip_space(ps);
	if (at_char(ps, ']')) {
		ps->p++;
		return 0;
	}
	for (;;) {
		int rc = at_char(ps, '{') || at_char(ps, '<') ? skip_message(ps, depth)
							      : skip_scalar(ps);
		if (rc < 0)
			return -1;
		skip_space(ps);
		if (at_char(ps, ',')) {
			ps->p++;
			skip_space(ps);
		} else if (at_char(ps, ']')) {
			ps->p++;
			return 0;
		} else {
			return fail(ps, ps->p, "',' or ']'");
		}
	}
}

/* The value of an unknown field: a scalar, a list or a message. */
static int skip_value(struct parser *ps, int depth)
{
	skip_space(ps);
	bool colon = at_char(ps, ':');
	if (colon) {
		ps->p++;
		skip_space(ps);
	}
	if (at_char(ps, '['))
		return skip_list(ps, depth);
	if (at_char(ps, '{') || at_char(ps, '<'))
		return skip_message(ps, depth);
	if (!colon)
		return fail(ps, ps->p, "':' or '{'");
	return skip_scalar(ps);
}

static void warn_unknown(const ProtobufCMessageDescriptor *desc, const char *name, size_t n)
{
	const char *type = short_type_name(desc->name, desc->package_name);
	char key[256];
	g_snprintf(key, sizeof key, "pbtext-unknown-%s.%.*s", type, (int)n, name);
	tl_warn(key, "skipped unknown field '%.*s' in %s", (int)n, name, type);
}

static const ProtobufCFieldDescriptor *
lookup_field(struct parser *ps, const ProtobufCMessageDescriptor *desc, const char *s, size_t n)
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

static int parse_body(struct parser *ps, const ProtobufCMessageDescriptor *desc, int depth,
		      char close);

static int parse_message_value(struct parser *ps, const ProtobufCFieldDescriptor *f, int depth)
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

static int parse_list(struct parser *ps, const ProtobufCFieldDescriptor *f, int depth)
{
	ps->p++;
	skip_space(ps);
	if (at_char(ps, ']')) {
		ps->p++;
		return 0;
	}
	for (;;) {
		int rc = f->type == PROTOBUF_C_TYPE_MESSAGE ? parse_message_value(ps, f, depth)
							    : parse_scalar(ps, f);
		if (rc < 0)
			return -1;
		skip_space(ps);
		if (at_char(ps, ',')) {
			ps->p++;
			skip_space(ps);
		} else if (at_char(ps, ']')) {
			ps->p++;
			return 0;
		} else {
			return fail(ps, ps->p, "',' or ']'");
		}
	}
}

/* One field at ps->p (a name start or '['). */
static int parse_field(struct parser *ps, const ProtobufCMessageDescriptor *desc, int depth)
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
	skip_space(ps);
	bool colon = at_char(ps, ':');
	if (colon) {
		ps->p++;
		skip_space(ps);
	}
	bool list = at_char(ps, '[');
	if (list && f->label != PROTOBUF_C_LABEL_REPEATED)
		return failf(ps, ps->p, "one value for non-repeated field '%s'", f->name);
	if (list)
		return parse_list(ps, f, depth);
	if (f->type == PROTOBUF_C_TYPE_MESSAGE)
		return parse_message_value(ps, f, depth);
	if (!colon)
		return failf(ps, ps->p, "':' after '%s'", f->name);
	return parse_scalar(ps, f);
}

/* Fields up to `close` ('}' or '>'), or to the end of input when close is 0. */
static int parse_body(struct parser *ps, const ProtobufCMessageDescriptor *desc, int depth,
		      char close)
{
	for (;;) {
		skip_space(ps);
		if (ps->p >= ps->end) {
			if (close == 0)
				return 0;
			return failf(ps, ps->p, "'%c'", close);
		}
		char c = *ps->p;
		if (close != 0 && c == close) {
			ps->p++;
			return 0;
		}
		if (!is_ident_start(c) && c != '[') {
			if (close == 0)
				return fail(ps, ps->p, "field name");
			return failf(ps, ps->p, "field name or '%c'", close);
		}
		if (parse_field(ps, desc, depth) < 0)
			return -1;
		if (ps->out->len > MAX_WIRE)
			return fail_too_big(ps, ps->p);
		skip_space(ps);
		if (at_char(ps, ',') || at_char(ps, ';'))
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
	struct parser ps = {.text = text, .p = text, .end = text + len, .out = out, .err = err};
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
	struct parser ps = {.text = text, .p = text, .end = text + len};
	if (has_bom(text, len))
		ps.p += 3;
	skip_space(&ps);
	size_t n = scan_ident(ps.p, ps.end);
	for (size_t i = 0; i < G_N_ELEMENTS(first_fields); i++) {
		if (word_is(ps.p, n, first_fields[i].field))
			return first_fields[i].desc;
	}
	return NULL;
}
