/*
 * chrome_reader: a streaming reader of Chrome trace JSON. The input is scanned
 * once, left to right, by tight loops (whitespace, strings 16 bytes at a time
 * where SSE2 is there, numbers, literals) and an iterative skipper for nested
 * values that counts depth instead of recursing, so a hostile file cannot
 * overflow the stack. Everything scanned is validated as JSON (RFC 8259,
 * strings as UTF-8); only an event's top-level keys are looked at, matched by
 * length and memcmp.
 *
 * Errors are "invalid JSON at byte N: what" with N the offset in the input
 * (the BOM, when there is one, counts). An error is sticky: later calls
 * repeat it.
 */
#include "io/chrome_reader.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Open brackets, the document's own included, before "too deep". */
#define MAX_DEPTH 1000

enum state {
	ST_EVENTS, /* inside the event array */
	ST_DONE,   /* next() returned 0 */
	ST_FAILED, /* next() returned -1 */
};

struct tl_chrome_reader {
	const uint8_t *data;
	const uint8_t *end;
	const uint8_t *p; /* the next byte to look at */
	enum state state;
	bool array_form;  /* a bare top-level array, not {"traceEvents": ...} */
	bool after_event; /* an event was read: ',' or ']' comes next */
	bool seen_events; /* the object form's traceEvents was found */
	int event_depth;  /* brackets open around an event object */

	/* where and what the first error was, formatted on the way out */
	const uint8_t *err_at;
	const char *err_what;
	bool err_json; /* "invalid JSON" rather than "invalid trace" */
	char err_msg[200];

	size_t n_extras, cap_extras;
	const char **extra_keys;
	size_t *extra_key_lens;
	const char **extra_values;
	size_t *extra_value_lens;
	char *time_unit;
};

/* Character classes of the scanner: bytes a string can hold as they are
 * (0), and everything that needs a second look. */
enum { C_PLAIN = 0, C_QUOTE, C_BACKSLASH, C_CONTROL, C_HIGH };

static uint8_t str_class[256];

static void tables_init(void)
{
	static gsize done = 0;
	if (!g_once_init_enter(&done))
		return;
	for (int c = 0; c < 256; c++) {
		if (c < 0x20)
			str_class[c] = C_CONTROL;
		else if (c == '"')
			str_class[c] = C_QUOTE;
		else if (c == '\\')
			str_class[c] = C_BACKSLASH;
		else if (c >= 0x80)
			str_class[c] = C_HIGH;
		else
			str_class[c] = C_PLAIN;
	}
	g_once_init_leave(&done, 1);
}

/* ---- failure bookkeeping: the scanners return NULL after one of these ---- */

static const uint8_t *fail(tl_chrome_reader *r, const uint8_t *at, const char *what)
{
	r->err_at = at;
	r->err_what = what;
	r->err_json = true;
	return NULL;
}

static const uint8_t *fail_eof(tl_chrome_reader *r)
{
	return fail(r, r->end, "unexpected end of input");
}

static int report(tl_chrome_reader *r, tl_error *err)
{
	if (r->state != ST_FAILED) {
		snprintf(r->err_msg, sizeof r->err_msg, "%s at byte %llu: %s",
			 r->err_json ? "invalid JSON" : "invalid trace",
			 (unsigned long long)(r->err_at - r->data), r->err_what);
		r->state = ST_FAILED;
	}
	return tl_error_set(err, "%s", r->err_msg);
}

/* ---- scanners: each takes the first byte of its token and returns the
 * byte after it, or NULL with the error recorded ---- */

static inline bool is_ws(uint8_t c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static inline bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Length of the UTF-8 sequence at p (lead byte >= 0x80), 0 when invalid:
 * overlong forms, surrogates and code points past U+10FFFF are refused.
 * -1 when the input ends inside an otherwise valid start. */
static int utf8_len(const uint8_t *p, const uint8_t *end)
{
	uint8_t c = p[0];
	int n;
	uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c < 0xc2)
		return 0;
	if (c < 0xe0) {
		n = 2;
	} else if (c < 0xf0) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c < 0xf5) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if (p + i >= end)
			return -1;
		uint8_t b = p[i];
		if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80)
			return 0;
	}
	return n;
}

/* p: just after the backslash. */
static const uint8_t *skip_escape(tl_chrome_reader *r, const uint8_t *p)
{
	if (p == r->end)
		return fail_eof(r);
	switch (*p) {
	case '"':
	case '\\':
	case '/':
	case 'b':
	case 'f':
	case 'n':
	case 'r':
	case 't':
		return p + 1;
	case 'u':
		for (int i = 1; i <= 4; i++) {
			if (p + i == r->end)
				return fail_eof(r);
			if (hex_value(p[i]) < 0)
				return fail(r, p + i, "expected a hex digit in a \\u escape");
		}
		return p + 5;
	default:
		return fail(r, p - 1, "invalid escape in a string");
	}
}

/* p: just after the opening quote; returns the byte after the closing one. */
static const uint8_t *skip_string(tl_chrome_reader *r, const uint8_t *p)
{
	const uint8_t *end = r->end;
	for (;;) {
#if defined(__SSE2__)
		/* 16 bytes at a time: a quote, a backslash, or a byte that is
		 * "less than space" as a signed char (controls and >= 0x80) */
		const __m128i quote = _mm_set1_epi8('"');
		const __m128i bslash = _mm_set1_epi8('\\');
		const __m128i space = _mm_set1_epi8(0x20);
		while (end - p >= 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i hit = _mm_or_si128(
			    _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
			    _mm_cmplt_epi8(x, space));
			unsigned mask = (unsigned)_mm_movemask_epi8(hit);
			if (mask != 0) {
				p += __builtin_ctz(mask);
				break;
			}
			p += 16;
		}
#endif
		while (p < end && str_class[*p] == C_PLAIN)
			p++;
		if (p == end)
			return fail_eof(r);
		switch (str_class[*p]) {
		case C_QUOTE:
			return p + 1;
		case C_BACKSLASH:
			p = skip_escape(r, p + 1);
			if (p == NULL)
				return NULL;
			break;
		case C_CONTROL:
			return fail(r, p, "control character in a string");
		default: {
			int n = utf8_len(p, end);
			if (n < 0)
				return fail_eof(r);
			if (n == 0)
				return fail(r, p, "invalid UTF-8 in a string");
			p += n;
			break;
		}
		}
	}
}

static const uint8_t *skip_digits(const uint8_t *p, const uint8_t *end)
{
	while (p < end && is_digit(*p))
		p++;
	return p;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static const uint8_t *skip_number(tl_chrome_reader *r, const uint8_t *p)
{
	const uint8_t *end = r->end;
	if (*p == '-')
		p++;
	if (p == end)
		return fail_eof(r);
	if (*p == '0')
		p++;
	else if (is_digit(*p))
		p = skip_digits(p + 1, end);
	else
		return fail(r, p, "expected a digit");
	if (p < end && *p == '.') {
		p++;
		if (p == end)
			return fail_eof(r);
		if (!is_digit(*p))
			return fail(r, p, "expected a digit after '.'");
		p = skip_digits(p + 1, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end)
			return fail_eof(r);
		if (!is_digit(*p))
			return fail(r, p, "expected a digit in the exponent");
		p = skip_digits(p + 1, end);
	}
	return p;
}

static const uint8_t *skip_literal(tl_chrome_reader *r, const uint8_t *p, const char *word)
{
	for (size_t i = 0; word[i] != '\0'; i++) {
		if (p + i == r->end)
			return fail_eof(r);
		if (p[i] != (uint8_t)word[i])
			return fail(r, p, "expected a value");
	}
	return p + strlen(word);
}

/* A member's key (p at its quote) and colon: *key and *key_len are the key's
 * raw text between the quotes; returns the start of the value, whitespace
 * skipped. */
static const uint8_t *member_key(tl_chrome_reader *r, const uint8_t *p, const uint8_t **key,
				 size_t *key_len)
{
	if (p == r->end)
		return fail_eof(r);
	if (*p != '"')
		return fail(r, p, "expected a string key");
	*key = p + 1;
	p = skip_string(r, p + 1);
	if (p == NULL)
		return NULL;
	*key_len = (size_t)(p - *key) - 1;
	p = skip_ws(p, r->end);
	if (p == r->end)
		return fail_eof(r);
	if (*p != ':')
		return fail(r, p, "expected ':' after a key");
	return skip_ws(p + 1, r->end);
}

/* A member's key and colon, when only the value matters. */
static const uint8_t *skip_key(tl_chrome_reader *r, const uint8_t *p)
{
	const uint8_t *key;
	size_t key_len;
	return member_key(r, p, &key, &key_len);
}

static const uint8_t *skip_scalar(tl_chrome_reader *r, const uint8_t *p)
{
	switch (*p) {
	case '"':
		return skip_string(r, p + 1);
	case 't':
		return skip_literal(r, p, "true");
	case 'f':
		return skip_literal(r, p, "false");
	case 'n':
		return skip_literal(r, p, "null");
	default:
		if (*p == '-' || is_digit(*p))
			return skip_number(r, p);
		return fail(r, p, "expected a value");
	}
}

/* Skips one value starting at p (whitespace skipped), `depth` brackets
 * being open around it. Iterative: a bit per open bracket says object or
 * array. */
static const uint8_t *skip_value(tl_chrome_reader *r, const uint8_t *p, int depth)
{
	const uint8_t *end = r->end;
	uint64_t is_object[(MAX_DEPTH + 63) / 64];
	int d = 0; /* brackets opened inside this value and still open */
	for (;;) {
		if (p == end)
			return fail_eof(r);
		if (*p == '{' || *p == '[') {
			bool obj = *p == '{';
			if (depth + d >= MAX_DEPTH)
				return fail(r, p, "nesting deeper than 1000");
			if (obj)
				is_object[d / 64] |= (uint64_t)1 << (d % 64);
			else
				is_object[d / 64] &= ~((uint64_t)1 << (d % 64));
			d++;
			p = skip_ws(p + 1, end);
			if (p < end && *p == (obj ? '}' : ']')) {
				p++;
				d--;
			} else {
				if (obj)
					p = skip_key(r, p);
				if (p == NULL)
					return NULL;
				continue; /* the first element's value */
			}
		} else {
			p = skip_scalar(r, p);
			if (p == NULL)
				return NULL;
		}
		/* after a value: close brackets until an element follows */
		for (;;) {
			if (d == 0)
				return p;
			bool obj = (is_object[(d - 1) / 64] >> ((d - 1) % 64)) & 1;
			p = skip_ws(p, end);
			if (p == end)
				return fail_eof(r);
			if (*p == ',') {
				p = skip_ws(p + 1, end);
				if (obj)
					p = skip_key(r, p);
				if (p == NULL)
					return NULL;
				break;
			}
			if (*p != (obj ? '}' : ']'))
				return fail(r, p,
					    obj ? "expected ',' or '}' after a value"
						: "expected ',' or ']' after a value");
			p++;
			d--;
		}
	}
}

/* ---- numbers ---- */

/* Parses exactly s[0..n) as a JSON number. A mantissa up to 2^53 divided by
 * an exact power of ten up to 1e22 is correctly rounded (Clinger's fast
 * path: timestamps in us, with or without decimals); anything else goes to
 * g_ascii_strtod, which is correctly rounded and ignores the locale. */
static bool parse_number(const char *s, size_t n, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,  1e6,	 1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	/* the scanner checks the grammar; its error record is thrown away */
	tl_chrome_reader probe = {.data = (const uint8_t *)s, .end = (const uint8_t *)s + n};
	if (n == 0 || !(s[0] == '-' || is_digit((uint8_t)s[0])))
		return false;
	const uint8_t *stop = skip_number(&probe, probe.data);
	if (stop != probe.end)
		return false;

	bool neg = s[0] == '-';
	size_t i = neg ? 1 : 0;
	uint64_t mant = 0;
	int digits = 0, exp10 = 0;
	bool simple = true;
	for (; i < n && is_digit((uint8_t)s[i]); i++) {
		if (mant == 0 && s[i] == '0')
			continue;
		mant = mant * 10 + (uint64_t)(s[i] - '0');
		if (++digits > 19)
			simple = false; /* mant would overflow */
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && is_digit((uint8_t)s[i]); i++) {
			exp10--;
			if (mant == 0 && s[i] == '0')
				continue;
			mant = mant * 10 + (uint64_t)(s[i] - '0');
			if (++digits > 19)
				simple = false;
		}
	}
	if (i < n)
		simple = false; /* an exponent: leave it to strtod */
	if (simple && mant <= (uint64_t)1 << 53 && exp10 >= -22) {
		double v = (double)mant;
		v = exp10 < 0 ? v / pow10[-exp10] : v;
		*out = neg ? -v : v;
		return true;
	}
	char small[64];
	char *copy = n < sizeof small ? small : g_malloc(n + 1);
	memcpy(copy, s, n);
	copy[n] = '\0';
	double v = g_ascii_strtod(copy, NULL);
	if (copy != small)
		g_free(copy);
	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

bool tl_chrome_span_number(const tl_chrome_in_event *ev, tl_span s, double *out)
{
	if (s.len == 0)
		return false;
	const char *v = ev->raw + s.off;
	size_t n = s.len;
	if (v[0] == '"') {
		if (n < 2)
			return false;
		v++;
		n -= 2;
	}
	return parse_number(v, n, out);
}

/* ---- strings ---- */

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 4 | (unsigned)hex_value((uint8_t)p[i]);
	return v;
}

static bool at_hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (hex_value((uint8_t)p[i]) < 0)
			return false;
	return true;
}

/* Decodes the escape after a backslash at p (p[-1] == '\\'); returns the
 * byte after it. A lone surrogate becomes U+FFFD. */
static const char *decode_escape(const char *p, const char *end, GString *buf)
{
	char c = *p++;
	switch (c) {
	case 'b':
		g_string_append_c(buf, '\b');
		return p;
	case 'f':
		g_string_append_c(buf, '\f');
		return p;
	case 'n':
		g_string_append_c(buf, '\n');
		return p;
	case 'r':
		g_string_append_c(buf, '\r');
		return p;
	case 't':
		g_string_append_c(buf, '\t');
		return p;
	case 'u':
		break;
	default: /* '"', '\\', '/' */
		g_string_append_c(buf, c);
		return p;
	}
	if (!at_hex4(p, end)) {
		g_string_append_unichar(buf, 0xfffd);
		return p;
	}
	gunichar u = hex4(p);
	p += 4;
	if (u >= 0xd800 && u <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
	    at_hex4(p + 2, end)) {
		gunichar lo = hex4(p + 2);
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			g_string_append_unichar(buf,
						0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
			return p + 6;
		}
	}
	if (u >= 0xd800 && u <= 0xdfff)
		u = 0xfffd;
	g_string_append_unichar(buf, u);
	return p;
}

const char *tl_chrome_span_text(const tl_chrome_in_event *ev, tl_span s, GString *buf)
{
	g_string_truncate(buf, 0);
	if (s.len == 0)
		return buf->str;
	const char *v = ev->raw + s.off;
	if (v[0] != '"' || s.len < 2) {
		g_string_append_len(buf, v, s.len);
		return buf->str;
	}
	const char *p = v + 1;
	const char *end = v + s.len - 1;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		if (bs == NULL) {
			g_string_append_len(buf, p, end - p);
			break;
		}
		g_string_append_len(buf, p, bs - p);
		p = bs + 1 < end ? decode_escape(bs + 1, end, buf) : end;
	}
	return buf->str;
}

/* First character of a string value ("ph"), 0 when not a plain character. */
static char first_char(const char *v, uint32_t len)
{
	if (len < 3 || v[0] != '"')
		return 0;
	if (v[1] != '\\')
		return v[1];
	GString *tmp = g_string_sized_new(8);
	decode_escape(v + 2, v + len - 1, tmp);
	char c = tmp->len > 0 ? tmp->str[0] : 0;
	g_string_free(tmp, TRUE);
	return c;
}

/* ---- the reader ---- */

static void extra_add(tl_chrome_reader *r, const uint8_t *key, size_t key_len, const uint8_t *value,
		      size_t value_len)
{
	if (r->n_extras == r->cap_extras) {
		r->cap_extras = r->cap_extras == 0 ? 8 : r->cap_extras * 2;
		r->extra_keys = g_renew(const char *, r->extra_keys, r->cap_extras);
		r->extra_key_lens = g_renew(size_t, r->extra_key_lens, r->cap_extras);
		r->extra_values = g_renew(const char *, r->extra_values, r->cap_extras);
		r->extra_value_lens = g_renew(size_t, r->extra_value_lens, r->cap_extras);
	}
	r->extra_keys[r->n_extras] = (const char *)key;
	r->extra_key_lens[r->n_extras] = key_len;
	r->extra_values[r->n_extras] = (const char *)value;
	r->extra_value_lens[r->n_extras] = value_len;
	r->n_extras++;
}

static bool key_is(const uint8_t *key, size_t len, const char *name)
{
	return len == strlen(name) && memcmp(key, name, len) == 0;
}

static void note_time_unit(tl_chrome_reader *r, const uint8_t *v, size_t len)
{
	if (len < 2 || v[0] != '"')
		return;
	tl_chrome_in_event fake = {.raw = (const char *)v, .raw_len = len};
	GString *buf = g_string_new(NULL);
	tl_chrome_span_text(&fake, (tl_span){0, (uint32_t)len}, buf);
	g_free(r->time_unit);
	r->time_unit = g_string_free(buf, FALSE);
}

/* After the top-level value: only whitespace may follow. */
static int finish(tl_chrome_reader *r)
{
	const uint8_t *p = skip_ws(r->p, r->end);
	if (p != r->end) {
		fail(r, p, "expected the end of input after the top-level value");
		return -1;
	}
	r->p = p;
	r->state = ST_DONE;
	return 0;
}

/* Walks the top-level object's members from r->p: `first` when just after
 * its '{', else just after a member's value. Stops after the '[' of
 * traceEvents (1) or at the end of the document (0); -1 on error. */
static int scan_top_members(tl_chrome_reader *r, bool first)
{
	const uint8_t *end = r->end;
	const uint8_t *p = skip_ws(r->p, end);
	for (;;) {
		if (p == end) {
			fail_eof(r);
			return -1;
		}
		if (first && *p == '}')
			break;
		if (!first) {
			if (*p == '}')
				break;
			if (*p != ',') {
				fail(r, p, "expected ',' or '}' after a value");
				return -1;
			}
			p = skip_ws(p + 1, end);
			if (p == end) {
				fail_eof(r);
				return -1;
			}
		}
		first = false;
		const uint8_t *key;
		size_t key_len;
		const uint8_t *value = member_key(r, p, &key, &key_len);
		if (value == NULL)
			return -1;
		if (key_is(key, key_len, "traceEvents") && !r->seen_events) {
			if (value == end) {
				fail_eof(r);
				return -1;
			}
			if (*value != '[') {
				r->err_json = false;
				r->err_at = value;
				r->err_what = "'traceEvents' is not an array";
				return -1;
			}
			r->seen_events = true;
			r->p = value + 1;
			return 1;
		}
		p = skip_value(r, value, 1);
		if (p == NULL)
			return -1;
		if (key_is(key, key_len, "traceEvents")) {
			tl_warn("chromein-second-traceevents",
				"a second 'traceEvents' list was ignored");
		} else {
			extra_add(r, key, key_len, value, (size_t)(p - value));
			if (key_is(key, key_len, "displayTimeUnit"))
				note_time_unit(r, value, (size_t)(p - value));
		}
		p = skip_ws(p, end);
	}
	r->p = p + 1;
	return 0;
}

int tl_chrome_reader_open(tl_chrome_reader **out, const uint8_t *data, size_t len, tl_error *err)
{
	tables_init();
	tl_chrome_reader *r = g_new0(tl_chrome_reader, 1);
	if (data == NULL)
		data = (const uint8_t *)""; /* len is 0; no arithmetic on NULL */
	r->data = data;
	r->end = data + len;
	r->p = data;
	r->state = ST_EVENTS;
	if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
		r->p += 3;
	const uint8_t *p = skip_ws(r->p, r->end);
	int rc = -1;
	if (p == r->end) {
		fail_eof(r);
	} else if (*p == '[') {
		r->array_form = true;
		r->p = p + 1;
		r->event_depth = 1;
		rc = 1;
	} else if (*p == '{') {
		r->p = p + 1;
		r->event_depth = 2;
		rc = scan_top_members(r, true);
		if (rc == 0)
			rc = finish(r);
	} else {
		fail(r, p, "expected '{' or '['");
	}
	if (rc < 0) {
		report(r, err);
		tl_chrome_reader_close(r);
		*out = NULL;
		return -1;
	}
	*out = r;
	return 0;
}

/* Records the span of a member of the event, if its key is one we report. */
static void event_member(tl_chrome_in_event *ev, const uint8_t *key, size_t key_len, tl_span s)
{
	const char *k = (const char *)key;
	switch (key_len) {
	case 2:
		if (memcmp(k, "ph", 2) == 0)
			ev->ph_span = s;
		else if (memcmp(k, "ts", 2) == 0)
			ev->ts = s;
		else if (memcmp(k, "id", 2) == 0)
			ev->id = s;
		break;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			ev->pid = s;
		else if (memcmp(k, "tid", 3) == 0)
			ev->tid = s;
		else if (memcmp(k, "dur", 3) == 0)
			ev->dur = s;
		else if (memcmp(k, "cat", 3) == 0)
			ev->cat = s;
		else if (memcmp(k, "id2", 3) == 0)
			ev->id2 = s;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			ev->name = s;
		else if (memcmp(k, "args", 4) == 0)
			ev->args = s;
		break;
	case 7:
		if (memcmp(k, "bind_id", 7) == 0)
			ev->bind_id = s;
		break;
	default:
		break;
	}
}

/* Reads the event object at r->p (its '{'). Returns 1 for an event, 0 for
 * an empty {} (skipped), -1 on error. */
static int read_event(tl_chrome_reader *r, tl_chrome_in_event *ev)
{
	const uint8_t *end = r->end;
	const uint8_t *start = r->p;
	const uint8_t *p = skip_ws(start + 1, end);
	if (p < end && *p == '}') {
		r->p = p + 1;
		return 0;
	}
	memset(ev, 0, sizeof *ev);
	for (;;) {
		const uint8_t *key;
		size_t key_len;
		const uint8_t *value = member_key(r, p, &key, &key_len);
		if (value == NULL)
			return -1;
		p = skip_value(r, value, r->event_depth + 1);
		if (p == NULL)
			return -1;
		tl_span s = {(uint32_t)(value - start), (uint32_t)(p - value)};
		event_member(ev, key, key_len, s);
		p = skip_ws(p, end);
		if (p == end) {
			fail_eof(r);
			return -1;
		}
		if (*p == '}')
			break;
		if (*p != ',') {
			fail(r, p, "expected ',' or '}' after a value");
			return -1;
		}
		p = skip_ws(p + 1, end);
	}
	p++;
	if ((size_t)(p - start) > UINT32_MAX) {
		r->err_json = false;
		r->err_at = start;
		r->err_what = "an event of 4 GiB or more";
		return -1;
	}
	ev->raw = (const char *)start;
	ev->raw_len = (size_t)(p - start);
	ev->offset = (uint64_t)(start - r->data);
	ev->ph = first_char(ev->raw + ev->ph_span.off, ev->ph_span.len);
	ev->has_ts = tl_chrome_span_number(ev, ev->ts, &ev->ts_us);
	if (!ev->has_ts)
		ev->ts_us = 0;
	if (!tl_chrome_span_number(ev, ev->dur, &ev->dur_us))
		ev->dur_us = 0;
	r->p = p;
	return 1;
}

/* The event list ended at r->p (just after its ']'). */
static int end_of_events(tl_chrome_reader *r)
{
	if (!r->array_form && scan_top_members(r, false) < 0)
		return -1;
	return finish(r);
}

/* The array form may stop after an event or a trailing comma: what Chrome's
 * own importer accepts from tracers that were cut off. */
static int cut_short(tl_chrome_reader *r)
{
	if (!r->array_form) {
		fail_eof(r);
		return -1;
	}
	r->p = r->end;
	r->state = ST_DONE;
	return 0;
}

static int next_event(tl_chrome_reader *r, tl_chrome_in_event *ev)
{
	const uint8_t *end = r->end;
	for (;;) {
		const uint8_t *p = skip_ws(r->p, end);
		if (p == end)
			return cut_short(r);
		if (r->after_event) {
			if (*p == ']') {
				r->p = p + 1;
				return end_of_events(r);
			}
			if (*p != ',') {
				fail(r, p, "expected ',' or ']' after an event");
				return -1;
			}
			p = skip_ws(p + 1, end);
			if (p == end)
				return cut_short(r);
		} else if (*p == ']') {
			r->p = p + 1;
			return end_of_events(r);
		}
		if (*p != '{') {
			/* valid JSON that is not an event, or invalid JSON */
			if (skip_value(r, p, r->event_depth) != NULL) {
				fail(r, p, "an event is not an object");
				r->err_json = false;
			}
			return -1;
		}
		r->p = p;
		int rc = read_event(r, ev);
		if (rc >= 0)
			r->after_event = true;
		if (rc != 0)
			return rc;
	}
}

int tl_chrome_reader_next(tl_chrome_reader *r, tl_chrome_in_event *ev, tl_error *err)
{
	if (r->state == ST_DONE)
		return 0;
	if (r->state == ST_FAILED)
		return report(r, err);
	int rc = next_event(r, ev);
	if (rc < 0)
		return report(r, err);
	return rc;
}

size_t tl_chrome_reader_extras(tl_chrome_reader *r, const char ***keys, size_t **key_lens,
			       const char ***values, size_t **value_lens)
{
	bool done = r->state == ST_DONE;
	if (keys != NULL)
		*keys = done ? r->extra_keys : NULL;
	if (key_lens != NULL)
		*key_lens = done ? r->extra_key_lens : NULL;
	if (values != NULL)
		*values = done ? r->extra_values : NULL;
	if (value_lens != NULL)
		*value_lens = done ? r->extra_value_lens : NULL;
	return done ? r->n_extras : 0;
}

const char *tl_chrome_reader_time_unit(tl_chrome_reader *r)
{
	return r->state == ST_DONE ? r->time_unit : NULL;
}

void tl_chrome_reader_close(tl_chrome_reader *r)
{
	if (r == NULL)
		return;
	g_free(r->extra_keys);
	g_free(r->extra_key_lens);
	g_free(r->extra_values);
	g_free(r->extra_value_lens);
	g_free(r->time_unit);
	g_free(r);
}

/* ---- rewrite ---- */

struct replacement {
	tl_span at;
	const char *text;
};

static size_t replacement_add(struct replacement *rep, size_t n, tl_span at, const char *text)
{
	if (at.len == 0 || text == NULL)
		return n;
	/* insertion keeps them in the order they appear in the event */
	size_t i = n;
	while (i > 0 && rep[i - 1].at.off > at.off) {
		rep[i] = rep[i - 1];
		i--;
	}
	rep[i] = (struct replacement){at, text};
	return n + 1;
}

/* Copies raw JSON text (never starting inside a string) with each lone
 * surrogate escape (\ud800 without its pair) replaced by \ufffd: the
 * reader tolerates them, strict JSON parsers do not. */
static void copy_json(tl_output *out, const char *s, size_t n)
{
	const char *end = s + n, *from = s, *p = s;
	while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		if (end - p < 2) /* cannot happen in a checked event */
			break;
		if (p[1] != 'u' || !at_hex4(p + 2, end)) {
			p += 2;
			continue;
		}
		unsigned u = hex4(p + 2);
		if (u >= 0xd800 && u <= 0xdbff && end - p >= 12 && p[6] == '\\' && p[7] == 'u' &&
		    at_hex4(p + 8, end) && hex4(p + 8) >= 0xdc00 && hex4(p + 8) <= 0xdfff) {
			p += 12;
			continue;
		}
		if (u >= 0xd800 && u <= 0xdfff) {
			tl_out_bytes(out, from, (size_t)(p - from));
			tl_out_str(out, "\\ufffd");
			from = p + 6;
		}
		p += 6;
	}
	tl_out_bytes(out, from, (size_t)(end - from));
}

void tl_chrome_event_rewrite(tl_output *out, const tl_chrome_in_event *ev,
			     const tl_chrome_rewrite *rw)
{
	struct replacement rep[6];
	size_t n = 0;
	if (rw != NULL) {
		n = replacement_add(rep, n, ev->pid, rw->pid);
		n = replacement_add(rep, n, ev->tid, rw->tid);
		n = replacement_add(rep, n, ev->ts, rw->ts);
		n = replacement_add(rep, n, ev->id, rw->id);
		n = replacement_add(rep, n, ev->id2, rw->id);
		n = replacement_add(rep, n, ev->bind_id, rw->id);
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		copy_json(out, ev->raw + at, rep[i].at.off - at);
		tl_out_str(out, rep[i].text);
		at = (size_t)rep[i].at.off + rep[i].at.len;
	}
	copy_json(out, ev->raw + at, ev->raw_len - at);
}
