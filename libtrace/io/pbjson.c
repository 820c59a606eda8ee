/*
 * pbjson: proto3 JSON read into wire format, in one pass. The fields of each
 * message are looked up in a table made once from protobuf-c's descriptors
 * (both names, JSON's and the original), the values are checked against the
 * field's type and appended as pbtext appends text format values.
 *
 * Why not jansson: its loader builds the whole document as a tree of
 * objects before anything can be written. On this project's 2-core machine
 * json_loadb alone took 1.25 s at best (80 MB/s; 41 MB/s under load) on a
 * 100 MB MessageToJson dump, and 464 MB; the tree's walk and the model come
 * on top. The Chrome JSON reader, which streams, reads and models 126 MB of
 * Chrome JSON in 1.42 s (89 MB/s), and the issue asks every new reader to
 * keep up with it per byte. So the document is walked by the Chrome
 * reader's own scanners (io/json_scan.c), which validate as they go, and
 * nothing but the wire bytes is kept: the same 100 MB dump reads and models
 * in 0.25 s (390 MB/s), 194 MB peak (make bench, "reading alone" lines).
 */
#include "io/pbjson.h"

#include "base/utf8.h"
#include "io/json_scan.h"
#include "io/pbtext.h"
#include "io/pbwire.h"
#include "tensorflow.pb-c.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- field tables ---------------------------------------------------------- */

struct jmsg;

struct jfield {
	const ProtobufCFieldDescriptor *f;
	const struct jmsg *sub; /* a message field's message, a map field's entry */
	bool map;		/* a map field: a JSON object of entries */
	char *json_name;	/* protoc's json_name: lowerCamelCase */
	size_t name_len, json_len;
};

struct jmsg {
	const ProtobufCMessageDescriptor *desc;
	const char *short_name; /* "NodeExecStats", "CostGraphDef.Node" */
	struct jfield *fields;
	unsigned n_fields;
};

/* The top-level messages a document may hold, in the order a key is tried
 * against them. */
static const ProtobufCMessageDescriptor *const roots[] = {
    &tensorflow__run_metadata__descriptor,
    &tensorflow__step_stats__descriptor,
    &tensorflow__graph_def__descriptor,
};

static GHashTable *tables; /* descriptor -> struct jmsg, made once */

/* The name of a type without its package: "CostGraphDef.Node". */
static const char *short_type_name(const char *full, const char *package)
{
	size_t n = package != NULL ? strlen(package) : 0;
	if (n > 0 && strncmp(full, package, n) == 0 && full[n] == '.')
		return full + n + 1;
	return full;
}

/* protoc's ToJsonName: each '_' dropped and the letter after it capitalized. */
static char *json_name_of(const char *name)
{
	GString *s = g_string_sized_new(strlen(name));
	bool upper = false;
	for (const char *c = name; *c != '\0'; c++) {
		if (*c == '_') {
			upper = true;
		} else if (upper) {
			g_string_append_c(s, g_ascii_toupper(*c));
			upper = false;
		} else {
			g_string_append_c(s, *c);
		}
	}
	return g_string_free(s, FALSE);
}

/* A map field's entry: a message "XxxEntry" of two fields, key = 1 and
 * value = 2 (protobuf-c marks map entries no other way). */
static bool is_map_entry(const ProtobufCFieldDescriptor *f)
{
	if (f->label != PROTOBUF_C_LABEL_REPEATED || f->type != PROTOBUF_C_TYPE_MESSAGE)
		return false;
	const ProtobufCMessageDescriptor *d = f->descriptor;
	const ProtobufCFieldDescriptor *k = protobuf_c_message_descriptor_get_field(d, 1);
	const ProtobufCFieldDescriptor *v = protobuf_c_message_descriptor_get_field(d, 2);
	return d->n_fields == 2 && k != NULL && v != NULL && strcmp(k->name, "key") == 0 &&
	       strcmp(v->name, "value") == 0 && g_str_has_suffix(d->name, "Entry");
}

static struct jmsg *table_build(const ProtobufCMessageDescriptor *d)
{
	struct jmsg *m = g_hash_table_lookup(tables, d);
	if (m != NULL)
		return m;
	m = g_new0(struct jmsg, 1);
	/* in the table before its fields: messages nest in cycles (AttrValue) */
	g_hash_table_insert(tables, (gpointer)d, m);
	m->desc = d;
	m->short_name = short_type_name(d->name, d->package_name);
	m->n_fields = d->n_fields;
	m->fields = g_new0(struct jfield, d->n_fields);
	for (unsigned i = 0; i < d->n_fields; i++) {
		struct jfield *jf = &m->fields[i];
		jf->f = &d->fields[i];
		jf->json_name = json_name_of(jf->f->name);
		jf->name_len = strlen(jf->f->name);
		jf->json_len = strlen(jf->json_name);
		jf->map = is_map_entry(jf->f);
		if (jf->f->type == PROTOBUF_C_TYPE_MESSAGE)
			jf->sub = table_build(jf->f->descriptor);
	}
	return m;
}

/* The tables of every message reachable from the roots, made once per
 * process (the library reads inputs on several threads); kept to the end. */
static void tables_init(void)
{
	static gsize done = 0;
	if (!g_once_init_enter(&done))
		return;
	tables = g_hash_table_new(NULL, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(roots); i++)
		table_build(roots[i]);
	tl_json_scan_init();
	g_once_init_leave(&done, 1);
}

static const struct jmsg *table_of(const ProtobufCMessageDescriptor *d)
{
	return g_hash_table_lookup(tables, d);
}

static const struct jfield *field_of(const struct jmsg *m, const uint8_t *key, size_t n)
{
	for (unsigned i = 0; i < m->n_fields; i++) {
		const struct jfield *jf = &m->fields[i];
		if ((jf->json_len == n && memcmp(jf->json_name, key, n) == 0) ||
		    (jf->name_len == n && memcmp(jf->f->name, key, n) == 0))
			return jf;
	}
	return NULL;
}

/* ---- strings ---------------------------------------------------------------- */

static void append_bytes(GByteArray *out, const void *data, size_t n)
{
	if (n > 0)
		g_byte_array_append(out, data, (guint)n);
}

static uint32_t hex4(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v * 16 + (uint32_t)tl_json_scan_hex_value(p[i]);
	return v;
}

/* Appends the content of a JSON string, s[0..e) between its quotes, with
 * its escapes decoded. The scanner has checked the escapes; a lone
 * surrogate, which UTF-8 cannot hold, becomes U+FFFD (as in the Chrome
 * reader). Where `cut` (a head being sniffed), an escape cut by e ends it. */
static void unescape(GByteArray *out, const uint8_t *s, const uint8_t *e, bool cut)
{
	while (s < e) {
		const uint8_t *bs = memchr(s, '\\', (size_t)(e - s));
		if (bs == NULL) {
			append_bytes(out, s, (size_t)(e - s));
			return;
		}
		append_bytes(out, s, (size_t)(bs - s));
		s = bs + 1;
		if (s == e || (cut && *s == 'u' && e - s < 5))
			return;
		uint8_t c = *s++;
		char one = 0;
		switch (c) {
		case 'b':
			one = '\b';
			break;
		case 'f':
			one = '\f';
			break;
		case 'n':
			one = '\n';
			break;
		case 'r':
			one = '\r';
			break;
		case 't':
			one = '\t';
			break;
		case 'u':
			break;
		default: /* '"', '\\', '/' */
			one = (char)c;
			break;
		}
		if (c != 'u') {
			g_byte_array_append(out, (const guint8 *)&one, 1);
			continue;
		}
		uint32_t u = hex4(s);
		s += 4;
		if (u >= 0xd800 && u <= 0xdbff && e - s >= 6 && s[0] == '\\' && s[1] == 'u') {
			uint32_t lo = hex4(s + 2);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
		}
		if ((u >= 0xd800 && u <= 0xdfff) || u > 0x10ffff) /* the latter: a head's junk */
			u = 0xfffd;
		char buf[4];
		size_t n = tl_utf8_encode(buf, u);
		g_byte_array_append(out, (const guint8 *)buf, (guint)n);
	}
}

/* ---- the converter ----------------------------------------------------------- */

struct conv {
	tl_json_scan scan;
	const uint8_t *base; /* byte 0 of the document, for offsets */
	GByteArray *out;
	tl_error *err;
	bool wrapped;		    /* the document is the content of a JSON string */
	bool failed;		    /* err holds this reader's own error (not the scanner's) */
	unsigned nested;	    /* messages open */
	size_t top_keys, top_known; /* the document's keys, and those that are fields */
	GPtrArray *top_unknown;	    /* its unknown keys, warned once one is known */
	GByteArray *tmp;	    /* a key or a value decoded, for a look-up */
	GByteArray *num;	    /* a number's text with a NUL, for strtod */
};

static const uint8_t *conv_fail(struct conv *cv, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const uint8_t *conv_fail(struct conv *cv, const uint8_t *at, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	g_vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	tl_error_set(cv->err, "at byte %zu%s: %s", (size_t)(at - cv->base),
		     cv->wrapped ? " of the document's JSON string" : "", what);
	cv->failed = true;
	return NULL;
}

/* The scanner's error, where it was the scanner that stopped. */
static void conv_scan_error(struct conv *cv)
{
	if (cv->failed)
		return;
	const uint8_t *at = cv->scan.err_at != NULL ? cv->scan.err_at : cv->scan.end;
	const char *what = cv->scan.err_what != NULL ? cv->scan.err_what : "invalid JSON";
	tl_error_set(cv->err, "invalid JSON at byte %zu%s: %s", (size_t)(at - cv->base),
		     cv->wrapped ? " of the document's JSON string" : "", what);
}

/* What a value starting at p is, for messages. */
static const char *found_what(struct conv *cv, const uint8_t *p)
{
	if (p >= cv->scan.end)
		return "end of input";
	switch (*p) {
	case '{':
		return "an object";
	case '[':
		return "an array";
	case '"':
		return "a string";
	case 't':
	case 'f':
		return "a bool";
	case 'n':
		return "null";
	default:
		return *p == '-' || tl_json_scan_is_digit(*p) ? "a number" : "no JSON value";
	}
}

static const char *type_word(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return "an int32";
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return "an int64";
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return "a uint32";
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return "a uint64";
	case PROTOBUF_C_TYPE_FLOAT:
		return "a float";
	case PROTOBUF_C_TYPE_DOUBLE:
		return "a double";
	case PROTOBUF_C_TYPE_BOOL:
		return "a bool";
	case PROTOBUF_C_TYPE_ENUM:
		return "an enum name or number";
	case PROTOBUF_C_TYPE_STRING:
		return "a string";
	case PROTOBUF_C_TYPE_BYTES:
		return "a base64 string";
	case PROTOBUF_C_TYPE_MESSAGE:
		return "an object";
	}
	return "a value";
}

static const uint8_t *wrong_type(struct conv *cv, const struct jmsg *m,
				 const ProtobufCFieldDescriptor *f, const uint8_t *p)
{
	/* what is no JSON value is the JSON's fault, said as the scanner says it */
	if (p == cv->scan.end)
		return tl_json_scan_fail_eof(&cv->scan);
	if (strchr("{[\"tfn-0123456789", *p) == NULL || *p == '\0')
		return tl_json_scan_fail(&cv->scan, p, "expected a value");
	return conv_fail(cv, p, "expected %s for %s.%s, found %s", type_word(f->type),
			 m->short_name, f->name, found_what(cv, p));
}

/* One more message open at p, the top-level one being level 0: refused
 * past protobuf's limit, as the decoder (tl_pbwire_check_depth) refuses it
 * (and before this reader's recursion could exhaust the stack). */
static const uint8_t *nest(struct conv *cv, const uint8_t *p)
{
	if (cv->nested > TL_PBWIRE_MAX_DEPTH)
		return conv_fail(cv, p, "messages nested deeper than %d levels",
				 TL_PBWIRE_MAX_DEPTH);
	cv->nested++;
	return p;
}

static bool is_integer_type(ProtobufCType t)
{
	return t == PROTOBUF_C_TYPE_INT32 || t == PROTOBUF_C_TYPE_SINT32 ||
	       t == PROTOBUF_C_TYPE_SFIXED32 || t == PROTOBUF_C_TYPE_INT64 ||
	       t == PROTOBUF_C_TYPE_SINT64 || t == PROTOBUF_C_TYPE_SFIXED64 ||
	       t == PROTOBUF_C_TYPE_UINT32 || t == PROTOBUF_C_TYPE_FIXED32 ||
	       t == PROTOBUF_C_TYPE_UINT64 || t == PROTOBUF_C_TYPE_FIXED64;
}

/* Scalars a packed run can hold: all but strings, bytes and messages. */
static bool is_packable(ProtobufCType t)
{
	return t != PROTOBUF_C_TYPE_STRING && t != PROTOBUF_C_TYPE_BYTES &&
	       t != PROTOBUF_C_TYPE_MESSAGE;
}

static unsigned wire_type_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return PROTOBUF_C_WIRE_TYPE_32BIT;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return PROTOBUF_C_WIRE_TYPE_64BIT;
	default:
		return PROTOBUF_C_WIRE_TYPE_VARINT;
	}
}

/* An integer's text, s[0..n): -?digits, or (from a JSON number, not a
 * string) a number whose value is whole. False when it is neither or does
 * not fit 64 bits of magnitude. */
static bool parse_integer(GByteArray *num, const uint8_t *s, size_t n, bool number, bool *neg,
			  uint64_t *mag)
{
	size_t i = 0;
	*neg = n > 0 && s[0] == '-';
	if (*neg)
		i++;
	if (i == n)
		return false;
	uint64_t v = 0;
	size_t digits = i;
	for (; i < n && tl_json_scan_is_digit(s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (i == n) {
		/* JSON numbers have no leading zeros; strings read as Python's int() */
		*mag = v;
		return i > digits;
	}
	if (!number)
		return false;
	/* 1e3, 5.0: whole values written as floats */
	g_byte_array_set_size(num, 0);
	append_bytes(num, s, n);
	g_byte_array_append(num, (const guint8 *)"", 1);
	errno = 0;
	double d = strtod((const char *)num->data, NULL);
	if (errno != 0 || !isfinite(d) || d != floor(d) || fabs(d) >= 0x1p64)
		return false;
	*mag = (uint64_t)fabs(d);
	return true;
}

/* Checks an integer against the field's type and gives the bits to encode
 * (two's complement for negatives, zigzag for sint). */
static bool integer_bits(ProtobufCType t, bool neg, uint64_t mag, uint64_t *bits)
{
	bool ok;
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_ENUM:
		ok = mag <= (neg ? UINT64_C(0x80000000) : UINT64_C(0x7fffffff));
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		ok = (!neg || mag == 0) && mag <= UINT32_MAX;
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		ok = !neg || mag == 0;
		break;
	default:
		ok = mag <= (neg ? UINT64_C(0x8000000000000000) : (uint64_t)INT64_MAX);
		break;
	}
	if (!ok)
		return false;
	if (t == PROTOBUF_C_TYPE_SINT32 || t == PROTOBUF_C_TYPE_SINT64)
		*bits = neg && mag > 0 ? 2 * mag - 1 : 2 * mag;
	else
		*bits = neg ? 0 - mag : mag;
	if (t == PROTOBUF_C_TYPE_SINT32 || t == PROTOBUF_C_TYPE_SFIXED32 ||
	    t == PROTOBUF_C_TYPE_FIXED32)
		*bits &= UINT32_MAX;
	return true;
}

/* A float's text: a JSON number, or (in a string) NaN, Infinity, -Infinity
 * or a number. */
static bool parse_double(struct conv *cv, const uint8_t *s, size_t n, bool in_string, double *out)
{
	if (in_string) {
		if (n == 3 && memcmp(s, "NaN", 3) == 0) {
			*out = NAN;
			return true;
		}
		if (n == 8 && memcmp(s, "Infinity", 8) == 0) {
			*out = INFINITY;
			return true;
		}
		if (n == 9 && memcmp(s, "-Infinity", 9) == 0) {
			*out = -INFINITY;
			return true;
		}
		/* the number inside must be one by JSON's grammar */
		tl_json_scan sub = {.end = s + n};
		if (n == 0 || !(s[0] == '-' || tl_json_scan_is_digit(s[0])) ||
		    tl_json_scan_number(&sub, s) != s + n)
			return false;
	}
	g_byte_array_set_size(cv->num, 0);
	append_bytes(cv->num, s, n);
	g_byte_array_append(cv->num, (const guint8 *)"", 1);
	errno = 0;
	double d = strtod((const char *)cv->num->data, NULL);
	/* a number too large for a double is refused; one too small is 0 */
	if (errno == ERANGE && isinf(d))
		return false;
	*out = d;
	return true;
}

/* The value of a numeric, bool or enum field at p, as the bits its wire type
 * holds. *skip: an enum name we do not know (warned; nothing is written).
 * Returns the byte after the value. */
static const uint8_t *scalar_bits(struct conv *cv, const struct jmsg *m,
				  const ProtobufCFieldDescriptor *f, const uint8_t *p, int depth,
				  uint64_t *bits, bool *skip)
{
	*skip = false;
	ProtobufCType t = f->type;
	const uint8_t *v = p, *q;
	size_t n;
	bool in_string = *p == '"';
	if (t == PROTOBUF_C_TYPE_BOOL) {
		if (*p != 't' && *p != 'f')
			return wrong_type(cv, m, f, p);
		q = tl_json_scan_value(&cv->scan, p, depth);
		if (q != NULL)
			*bits = *p == 't';
		return q;
	}
	if (in_string) {
		q = tl_json_scan_value(&cv->scan, p, depth);
		if (q == NULL)
			return NULL;
		v = p + 1;
		n = (size_t)(q - p) - 2;
		if (memchr(v, '\\', n) != NULL) {
			/* an escaped digit or name: rare, decoded aside */
			g_byte_array_set_size(cv->tmp, 0);
			unescape(cv->tmp, v, v + n, false);
			v = cv->tmp->data;
			n = cv->tmp->len;
		}
	} else if (*p == '-' || tl_json_scan_is_digit(*p)) {
		q = tl_json_scan_number(&cv->scan, p);
		if (q == NULL)
			return NULL;
		n = (size_t)(q - p);
	} else {
		return wrong_type(cv, m, f, p);
	}
	if (t == PROTOBUF_C_TYPE_ENUM && in_string) {
		const ProtobufCEnumDescriptor *ed = f->descriptor;
		const ProtobufCEnumValue *ev = NULL;
		char name[128];
		if (n < sizeof name) {
			memcpy(name, v, n);
			name[n] = '\0';
			ev = protobuf_c_enum_descriptor_get_value_by_name(ed, name);
		}
		if (ev == NULL) {
			/* proto3 enums are open: a newer dump may name a value we lack */
			const char *type = short_type_name(ed->name, ed->package_name);
			char key[256];
			g_snprintf(key, sizeof key, "pbjson-unknown-enum-%s.%.*s", type,
				   (int)(n > 100 ? 100 : n), (const char *)v);
			tl_warn(key, "skipped unknown %s value '%.*s' in field '%s'", type,
				(int)(n > 100 ? 100 : n), (const char *)v, f->name);
			*skip = true;
			return q;
		}
		*bits = (uint64_t)(int64_t)ev->value;
		return q;
	}
	if (is_integer_type(t) || t == PROTOBUF_C_TYPE_ENUM) {
		bool neg;
		uint64_t mag;
		if (!parse_integer(cv->num, v, n, !in_string, &neg, &mag) ||
		    !integer_bits(t, neg, mag, bits))
			return conv_fail(
			    cv, p, "expected %s for %s.%s, found %s%.*s%s%s", type_word(t),
			    m->short_name, f->name, in_string ? "\"" : "", (int)(n > 40 ? 40 : n),
			    (const char *)v, n > 40 ? "..." : "", in_string ? "\"" : "");
		return q;
	}
	double d;
	if (!parse_double(cv, v, n, in_string, &d))
		return conv_fail(cv, p, "expected %s for %s.%s, found %s%.*s%s%s", type_word(t),
				 m->short_name, f->name, in_string ? "\"" : "",
				 (int)(n > 40 ? 40 : n), (const char *)v, n > 40 ? "..." : "",
				 in_string ? "\"" : "");
	if (t == PROTOBUF_C_TYPE_DOUBLE) {
		memcpy(bits, &d, sizeof d);
		return q;
	}
	float x = isnan(d) ? NAN : tl_pbtext_round_float(d);
	if (isinf(x) && !isinf(d))
		return conv_fail(cv, p, "%.*s is out of range for %s.%s (a float)", (int)n,
				 (const char *)v, m->short_name, f->name);
	uint32_t b32;
	memcpy(&b32, &x, sizeof x);
	*bits = b32;
	return q;
}

static void put_bits(GByteArray *out, unsigned wire_type, uint64_t bits)
{
	if (wire_type == PROTOBUF_C_WIRE_TYPE_32BIT)
		tl_pbwire_put_fixed32(out, (uint32_t)bits);
	else if (wire_type == PROTOBUF_C_WIRE_TYPE_64BIT)
		tl_pbwire_put_fixed64(out, bits);
	else
		tl_pbwire_put_varint(out, bits);
}

static int8_t b64_value[256];

static void b64_init(void)
{
	static gsize done = 0;
	if (!g_once_init_enter(&done))
		return;
	static const char std[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	memset(b64_value, -1, sizeof b64_value);
	for (int i = 0; i < 64; i++)
		b64_value[(uint8_t)std[i]] = (int8_t)i;
	b64_value['-'] = 62; /* URL-safe */
	b64_value['_'] = 63;
	g_once_init_leave(&done, 1);
}

/* Base64, standard or URL-safe, with or without its '=' padding, appended
 * as the bytes it stands for; false when it is not base64. */
static bool base64_append(GByteArray *out, const uint8_t *s, size_t n)
{
	size_t pad = 0;
	while (n > 0 && s[n - 1] == '=' && pad < 2) {
		n--;
		pad++;
	}
	if (n % 4 == 1 || (pad > 0 && (n + pad) % 4 != 0))
		return false;
	guint at = out->len;
	g_byte_array_set_size(out, at + (guint)(n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1)));
	uint8_t *w = out->data + at;
	uint32_t acc = 0;
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64_value[s[i]];
		if (v < 0) {
			g_byte_array_set_size(out, at);
			return false;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			*w++ = (uint8_t)(acc >> bits);
		}
	}
	return true;
}

/* A string or bytes field's value at p (its quote), appended with its tag. */
static const uint8_t *string_value(struct conv *cv, const struct jmsg *m,
				   const ProtobufCFieldDescriptor *f, const uint8_t *p, int depth)
{
	if (*p != '"')
		return wrong_type(cv, m, f, p);
	const uint8_t *q = tl_json_scan_value(&cv->scan, p, depth);
	if (q == NULL)
		return NULL;
	const uint8_t *s = p + 1;
	size_t n = (size_t)(q - p) - 2;
	bool escaped = memchr(s, '\\', n) != NULL;
	if (f->type == PROTOBUF_C_TYPE_STRING && !escaped) {
		tl_pbwire_put_bytes(cv->out, f->id, s, n);
		return q;
	}
	size_t mark = tl_pbwire_begin_len(cv->out, f->id);
	if (f->type == PROTOBUF_C_TYPE_STRING) {
		unescape(cv->out, s, q - 1, false);
	} else {
		if (escaped) { /* "\/" where a writer escapes the slash */
			g_byte_array_set_size(cv->tmp, 0);
			unescape(cv->tmp, s, q - 1, false);
			s = cv->tmp->data;
			n = cv->tmp->len;
		}
		if (!base64_append(cv->out, s, n))
			return conv_fail(cv, p, "expected %s for %s.%s, found a string that is not",
					 type_word(f->type), m->short_name, f->name);
	}
	tl_pbwire_end_len(cv->out, mark);
	return q;
}

static const uint8_t *read_message(struct conv *cv, const struct jmsg *m, const uint8_t *p,
				   int depth);

/* One value of field f of message m at p (not null), appended with its tag. */
static const uint8_t *single_value(struct conv *cv, const struct jmsg *m, const struct jfield *jf,
				   const ProtobufCFieldDescriptor *f, const uint8_t *p, int depth)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_MESSAGE: {
		if (*p != '{')
			return wrong_type(cv, m, f, p);
		size_t mark = tl_pbwire_begin_len(cv->out, f->id);
		p = read_message(cv, jf->sub, p, depth);
		if (p != NULL)
			tl_pbwire_end_len(cv->out, mark);
		return p;
	}
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
		return string_value(cv, m, f, p, depth);
	default: {
		uint64_t bits = 0;
		bool skip = false;
		p = scalar_bits(cv, m, f, p, depth, &bits, &skip);
		if (p != NULL && !skip) {
			unsigned wt = wire_type_of(f->type);
			tl_pbwire_put_tag(cv->out, f->id, wt);
			put_bits(cv->out, wt, bits);
		}
		return p;
	}
	}
}

/* After an element of an array or object: the next one's start (at *more),
 * or the byte after the closing bracket. */
static const uint8_t *next_element(struct conv *cv, const uint8_t *p, char close, bool *more)
{
	p = tl_json_scan_ws(p, cv->scan.end);
	if (p == cv->scan.end)
		return tl_json_scan_fail_eof(&cv->scan);
	if (*p == ',') {
		*more = true;
		return tl_json_scan_ws(p + 1, cv->scan.end);
	}
	if (*p != (uint8_t)close)
		return tl_json_scan_fail(&cv->scan, p,
					 close == '}' ? "expected ',' or '}' after a value"
						      : "expected ',' or ']' after a value");
	*more = false;
	return p + 1;
}

/* A repeated field's array at p (its '['): scalars in one packed run,
 * strings, bytes and messages each with their tag. */
static const uint8_t *read_array(struct conv *cv, const struct jmsg *m, const struct jfield *jf,
				 const uint8_t *p, int depth)
{
	const ProtobufCFieldDescriptor *f = jf->f;
	bool packed = is_packable(f->type);
	unsigned wt = wire_type_of(f->type);
	p = tl_json_scan_ws(p + 1, cv->scan.end);
	if (p < cv->scan.end && *p == ']')
		return p + 1;
	size_t mark = packed ? tl_pbwire_begin_len(cv->out, f->id) : 0;
	for (bool more = true; more;) {
		if (p == cv->scan.end)
			return tl_json_scan_fail_eof(&cv->scan);
		if (*p == 'n')
			return conv_fail(cv, p, "null in repeated field %s.%s", m->short_name,
					 f->name);
		if (packed) {
			uint64_t bits = 0;
			bool skip = false;
			p = scalar_bits(cv, m, f, p, depth + 1, &bits, &skip);
			if (p != NULL && !skip)
				put_bits(cv->out, wt, bits);
		} else {
			p = single_value(cv, m, jf, f, p, depth + 1);
		}
		if (p == NULL)
			return NULL;
		p = next_element(cv, p, ']', &more);
		if (p == NULL)
			return NULL;
	}
	if (packed)
		tl_pbwire_end_len(cv->out, mark);
	return p;
}

/* A map key (a JSON object key, k[0..n) decoded) as field 1 of its entry. */
static const uint8_t *map_key(struct conv *cv, const struct jmsg *m, const uint8_t *at,
			      const ProtobufCFieldDescriptor *kf, const uint8_t *k, size_t n)
{
	uint64_t bits = 0;
	if (kf->type == PROTOBUF_C_TYPE_STRING) {
		tl_pbwire_put_bytes(cv->out, kf->id, k, n);
		return at;
	}
	if (kf->type == PROTOBUF_C_TYPE_BOOL) {
		if (n == 4 && memcmp(k, "true", 4) == 0)
			bits = 1;
		else if (!(n == 5 && memcmp(k, "false", 5) == 0))
			return conv_fail(cv, at, "expected \"true\" or \"false\" as a key of %s",
					 m->short_name);
	} else {
		bool neg;
		uint64_t mag;
		if (!parse_integer(cv->num, k, n, false, &neg, &mag) ||
		    !integer_bits(kf->type, neg, mag, &bits))
			return conv_fail(cv, at, "expected %s as a key of %s, found \"%.*s%s\"",
					 type_word(kf->type), m->short_name, (int)(n > 40 ? 40 : n),
					 (const char *)k, n > 40 ? "..." : "");
	}
	unsigned wt = wire_type_of(kf->type);
	tl_pbwire_put_tag(cv->out, kf->id, wt);
	put_bits(cv->out, wt, bits);
	return at;
}

/* A key's text, escapes decoded where it has any (into cv->tmp). */
static void key_text(struct conv *cv, const uint8_t **key, size_t *n)
{
	if (memchr(*key, '\\', *n) == NULL)
		return;
	g_byte_array_set_size(cv->tmp, 0);
	unescape(cv->tmp, *key, *key + *n, false);
	*key = cv->tmp->data;
	*n = cv->tmp->len;
}

/* A map field's object at p (its '{'): each member an entry message. */
static const uint8_t *read_map(struct conv *cv, const struct jmsg *m, const struct jfield *jf,
			       const uint8_t *p, int depth)
{
	const struct jmsg *entry = jf->sub;
	const struct jfield *kf = field_of(entry, (const uint8_t *)"key", 3);
	const struct jfield *vf = field_of(entry, (const uint8_t *)"value", 5);
	p = tl_json_scan_ws(p + 1, cv->scan.end);
	if (p < cv->scan.end && *p == '}')
		return p + 1;
	for (bool more = true; more;) {
		const uint8_t *at = p, *key;
		size_t n;
		p = tl_json_scan_member_key(&cv->scan, p, &key, &n);
		if (p == NULL)
			return NULL;
		if (p == cv->scan.end)
			return tl_json_scan_fail_eof(&cv->scan);
		if (*p == 'n')
			return conv_fail(cv, p, "null as a value of map field %s.%s", m->short_name,
					 jf->f->name);
		if (nest(cv, at) == NULL) /* an entry is a message */
			return NULL;
		size_t mark = tl_pbwire_begin_len(cv->out, jf->f->id);
		key_text(cv, &key, &n);
		if (map_key(cv, entry, at, kf->f, key, n) == NULL)
			return NULL;
		p = single_value(cv, entry, vf, vf->f, p, depth + 1);
		if (p == NULL)
			return NULL;
		tl_pbwire_end_len(cv->out, mark);
		cv->nested--;
		p = next_element(cv, p, '}', &more);
		if (p == NULL)
			return NULL;
	}
	return p;
}

static void warn_unknown(const struct jmsg *m, const uint8_t *key, size_t n)
{
	int shown = (int)(n > 100 ? 100 : n);
	char k[256];
	g_snprintf(k, sizeof k, "pbjson-unknown-%s.%.*s", m->short_name, shown, (const char *)key);
	tl_warn(k, "skipped unknown field '%.*s' in %s", shown, (const char *)key, m->short_name);
}

/* A field's value at p: null (absent), an array (repeated), an object (a
 * map), or one value. */
static const uint8_t *field_value(struct conv *cv, const struct jmsg *m, const struct jfield *jf,
				  const uint8_t *p, int depth)
{
	if (*p == 'n')
		return tl_json_scan_value(&cv->scan, p, depth);
	if (jf->map) {
		if (*p != '{')
			return conv_fail(cv, p, "expected an object for map field %s.%s, found %s",
					 m->short_name, jf->f->name, found_what(cv, p));
		return read_map(cv, m, jf, p, depth);
	}
	if (jf->f->label == PROTOBUF_C_LABEL_REPEATED) {
		if (*p != '[')
			return conv_fail(cv, p,
					 "expected an array for repeated field %s.%s, found %s",
					 m->short_name, jf->f->name, found_what(cv, p));
		return read_array(cv, m, jf, p, depth);
	}
	return single_value(cv, m, jf, jf->f, p, depth);
}

/* A message's object at p (its '{'), its fields appended to cv->out. */
static const uint8_t *read_message(struct conv *cv, const struct jmsg *m, const uint8_t *p,
				   int depth)
{
	if (nest(cv, p) == NULL)
		return NULL;
	depth++;
	p = tl_json_scan_ws(p + 1, cv->scan.end);
	if (p < cv->scan.end && *p == '}') {
		cv->nested--;
		return p + 1;
	}
	for (bool more = true; more;) {
		const uint8_t *key;
		size_t n;
		p = tl_json_scan_member_key(&cv->scan, p, &key, &n);
		if (p == NULL)
			return NULL;
		if (p == cv->scan.end)
			return tl_json_scan_fail_eof(&cv->scan);
		key_text(cv, &key, &n);
		const struct jfield *jf = field_of(m, key, n);
		if (cv->nested == 1) {
			cv->top_keys++;
			cv->top_known += jf != NULL;
		}
		if (jf == NULL && cv->nested == 1)
			g_ptr_array_add(cv->top_unknown, g_strndup((const char *)key, n));
		else if (jf == NULL)
			warn_unknown(m, key, n);
		if (jf == NULL) {
			p = tl_json_scan_value(&cv->scan, p, depth);
		} else {
			p = field_value(cv, m, jf, p, depth);
		}
		if (p == NULL)
			return NULL;
		if (cv->out->len > (guint)INT32_MAX)
			return conv_fail(cv, p, "the message grows over protobuf's 2 GiB limit");
		p = next_element(cv, p, '}', &more);
		if (p == NULL)
			return NULL;
	}
	cv->nested--;
	return p;
}

/* ---- the document ------------------------------------------------------------ */

/* The first top-level key of the object at p that is a field of a root
 * message: that message; NULL when none is, or when a "traceEvents" key comes
 * first (*chrome then true). `all`: every key up to `end` is looked at, and
 * a "traceEvents" key anywhere among them makes it NULL too (the sniff, on
 * a head). A document cut short ends the look. */
static const ProtobufCMessageDescriptor *guess(const uint8_t *p, const uint8_t *end, bool all,
					       bool *chrome)
{
	tl_json_scan scan = {.end = end};
	GByteArray *tmp = g_byte_array_new();
	const ProtobufCMessageDescriptor *found = NULL;
	*chrome = false;
	p = tl_json_scan_ws(p, end);
	if (p == end || *p != '{')
		goto done;
	p = tl_json_scan_ws(p + 1, end);
	while (p != NULL && p < end && *p == '"') {
		const uint8_t *key;
		size_t n;
		p = tl_json_scan_member_key(&scan, p, &key, &n);
		if (p == NULL)
			break;
		if (memchr(key, '\\', n) != NULL) {
			g_byte_array_set_size(tmp, 0);
			unescape(tmp, key, key + n, false);
			key = tmp->data;
			n = tmp->len;
		}
		if (n == 11 && memcmp(key, "traceEvents", 11) == 0) {
			*chrome = true;
			found = NULL;
			break;
		}
		for (size_t i = 0; i < G_N_ELEMENTS(roots) && found == NULL; i++)
			if (field_of(table_of(roots[i]), key, n) != NULL)
				found = roots[i];
		if (found != NULL && !all)
			break;
		p = tl_json_scan_value(&scan, p, 1);
		if (p == NULL)
			break;
		p = tl_json_scan_ws(p, end);
		if (p < end && *p == ',')
			p = tl_json_scan_ws(p + 1, end);
	}
done:
	g_byte_array_free(tmp, TRUE);
	return found;
}

static const uint8_t *skip_bom_ws(const uint8_t *p, const uint8_t *end)
{
	if (end - p >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	return tl_json_scan_ws(p, end);
}

bool tl_pbjson_sniff(const uint8_t *head, size_t len)
{
	tables_init();
	const uint8_t *end = head + len;
	const uint8_t *p = skip_bom_ws(head, end);
	if (p == end || (*p != '{' && *p != '"'))
		return false;
	bool chrome = false;
	if (*p == '{')
		return guess(p, end, true, &chrome) != NULL;
	/* a string: its content, as far as the head goes */
	const uint8_t *q = p + 1;
	while (q < end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q > end)
		q = end;
	GByteArray *content = g_byte_array_new();
	unescape(content, p + 1, q, true);
	const uint8_t *c = content->data;
	bool yes = content->len > 0 && guess(c, c + content->len, true, &chrome) != NULL;
	g_byte_array_free(content, TRUE);
	/* Or a whole JSON string, valid and alone, whatever it holds: the JSON
	 * reader names what it is not (a binary protobuf may start with '"',
	 * field 4, but is no valid JSON string with nothing after it). */
	tl_json_scan scan = {.end = end};
	const uint8_t *after = yes ? NULL : tl_json_scan_value(&scan, p, 0);
	return yes || (after != NULL && tl_json_scan_ws(after, end) == end);
}

static int convert(struct conv *cv, const uint8_t *p, const ProtobufCMessageDescriptor **desc)
{
	const uint8_t *end = cv->scan.end;
	if (*p != '{') {
		conv_fail(cv, p,
			  "expected a JSON object (protobuf JSON of a RunMetadata, StepStats or "
			  "GraphDef), found %s",
			  found_what(cv, p));
		return -1;
	}
	if (*desc == NULL) {
		bool chrome = false;
		*desc = guess(p, end, false, &chrome);
		if (*desc == NULL) {
			conv_fail(cv, p,
				  "a JSON object with no top-level key that is a field of a "
				  "RunMetadata, StepStats or GraphDef");
			return -1;
		}
	}
	const struct jmsg *m = table_of(*desc);
	if (m == NULL) {
		conv_fail(cv, p, "no JSON reading of %s", (*desc)->name);
		return -1;
	}
	p = read_message(cv, m, p, 0);
	if (p == NULL) {
		conv_scan_error(cv);
		return -1;
	}
	/* a message named with --input-format that the object does not hold:
	 * one error line, no warning about each of its keys */
	if (cv->top_keys > 0 && cv->top_known == 0) {
		GString *keys = g_string_new(NULL);
		for (guint i = 0; i < cv->top_unknown->len && i < 3; i++)
			g_string_append_printf(keys, "%s'%.60s'", i > 0 ? ", " : "",
					       (const char *)g_ptr_array_index(cv->top_unknown, i));
		tl_error_set(cv->err,
			     "a JSON object none of whose top-level keys (%s%s) is a field of %s",
			     keys->str, cv->top_unknown->len > 3 ? ", ..." : "", m->short_name);
		g_string_free(keys, TRUE);
		return -1;
	}
	for (guint i = 0; i < cv->top_unknown->len; i++) {
		const char *k = g_ptr_array_index(cv->top_unknown, i);
		warn_unknown(m, (const uint8_t *)k, strlen(k));
	}
	p = tl_json_scan_ws(p, end);
	if (p != end) {
		tl_json_scan_fail(&cv->scan, p, "text after the document");
		conv_scan_error(cv);
		return -1;
	}
	return 0;
}

int tl_pbjson_to_wire(const uint8_t *json, size_t len, const ProtobufCMessageDescriptor **desc,
		      GByteArray *out, tl_error *err)
{
	tables_init();
	b64_init();
	struct conv cv = {.scan = {.end = json + len},
			  .base = json,
			  .out = out,
			  .err = err,
			  .tmp = g_byte_array_new(),
			  .num = g_byte_array_new(),
			  .top_unknown = g_ptr_array_new_with_free_func(g_free)};
	guint start = out->len;
	const uint8_t *p = skip_bom_ws(json, json + len);
	int rc = -1;
	if (p == cv.scan.end) {
		tl_error_set(err, "empty input");
	} else if (*p != '"') {
		rc = convert(&cv, p, desc);
	} else {
		/* one JSON string: its content is the document */
		const uint8_t *q = tl_json_scan_value(&cv.scan, p, 0);
		const uint8_t *after = q != NULL ? tl_json_scan_ws(q, cv.scan.end) : NULL;
		if (q == NULL) {
			conv_scan_error(&cv);
		} else if (after != cv.scan.end) {
			tl_json_scan_fail(&cv.scan, after, "text after the document");
			conv_scan_error(&cv);
		} else {
			GByteArray *content = g_byte_array_sized_new((guint)(q - p));
			unescape(content, p + 1, q - 1, false);
			const uint8_t *c = content->data;
			struct conv inner = cv;
			inner.scan = (tl_json_scan){.end = c + content->len};
			inner.base = c;
			inner.wrapped = true;
			const uint8_t *ip = skip_bom_ws(c, c + content->len);
			if (ip == inner.scan.end)
				tl_error_set(err, "a JSON string with nothing in it");
			else if (*ip != '{')
				tl_error_set(err, "a JSON string that holds no JSON object (where "
						  "protobuf JSON of a RunMetadata, StepStats or "
						  "GraphDef would be)");
			else
				rc = convert(&inner, ip, desc);
			g_byte_array_free(content, TRUE);
		}
	}
	g_byte_array_free(cv.tmp, TRUE);
	g_byte_array_free(cv.num, TRUE);
	g_ptr_array_free(cv.top_unknown, TRUE);
	if (rc < 0)
		g_byte_array_set_size(out, start);
	/* what the file was read as, where that was known */
	if (rc < 0 && *desc != NULL && err != NULL &&
	    (g_str_has_prefix(err->msg, "at byte") || g_str_has_prefix(err->msg, "invalid JSON"))) {
		char why[sizeof err->msg];
		g_strlcpy(why, err->msg, sizeof why);
		tl_error_set(err, "%s (protobuf JSON of a %s)", why,
			     short_type_name((*desc)->name, (*desc)->package_name));
	}
	return rc;
}
