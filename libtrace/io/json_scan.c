/*
 * json_scan: JSON scanned once, left to right, by tight loops (whitespace,
 * strings 16 bytes at a time where SSE2 is there, numbers, literals) and an
 * iterative skipper for nested values that counts depth instead of
 * recursing, so a hostile file cannot overflow the stack.
 */
#include "io/json_scan.h"

#include "base/utf8.h"

#include <glib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Open brackets, the document's own included, before "too deep". */
#define MAX_DEPTH 1000

/* Character classes of the scanner: bytes a string can hold as they are
 * (0), and everything that needs a second look. */
enum { C_PLAIN = 0, C_QUOTE, C_BACKSLASH, C_CONTROL, C_HIGH };

static uint8_t str_class[256];

void tl_json_scan_init(void)
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

const uint8_t *tl_json_scan_fail(tl_json_scan *s, const uint8_t *at, const char *what)
{
	s->err_at = at;
	s->err_what = what;
	s->err_json = true;
	return NULL;
}

const uint8_t *tl_json_scan_fail_eof(tl_json_scan *s)
{
	return tl_json_scan_fail(s, s->end, "unexpected end of input");
}

/* p: just after the backslash. */
static const uint8_t *skip_escape(tl_json_scan *s, const uint8_t *p)
{
	if (p == s->end)
		return tl_json_scan_fail_eof(s);
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
			if (p + i == s->end)
				return tl_json_scan_fail_eof(s);
			if (tl_json_scan_hex_value(p[i]) < 0)
				return tl_json_scan_fail(s, p + i,
							 "expected a hex digit in a \\u escape");
		}
		return p + 5;
	default:
		return tl_json_scan_fail(s, p - 1, "invalid escape in a string");
	}
}

/* p: just after the opening quote; returns the byte after the closing one. */
static const uint8_t *skip_string(tl_json_scan *s, const uint8_t *p)
{
	const uint8_t *end = s->end;
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
			return tl_json_scan_fail_eof(s);
		switch (str_class[*p]) {
		case C_QUOTE:
			return p + 1;
		case C_BACKSLASH:
			p = skip_escape(s, p + 1);
			if (p == NULL)
				return NULL;
			break;
		case C_CONTROL:
			return tl_json_scan_fail(s, p, "control character in a string");
		default: {
			int32_t cp;
			const char *next = tl_utf8_next((const char *)p, (const char *)end, &cp);
			if (cp == TL_UTF8_TRUNCATED)
				return tl_json_scan_fail_eof(s);
			if (cp < 0)
				return tl_json_scan_fail(s, p, "invalid UTF-8 in a string");
			p = (const uint8_t *)next;
			break;
		}
		}
	}
}

static const uint8_t *skip_digits(const uint8_t *p, const uint8_t *end)
{
	while (p < end && tl_json_scan_is_digit(*p))
		p++;
	return p;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
const uint8_t *tl_json_scan_number(tl_json_scan *s, const uint8_t *p)
{
	const uint8_t *end = s->end;
	if (*p == '-')
		p++;
	if (p == end)
		return tl_json_scan_fail_eof(s);
	if (*p == '0')
		p++;
	else if (tl_json_scan_is_digit(*p))
		p = skip_digits(p + 1, end);
	else
		return tl_json_scan_fail(s, p, "expected a digit");
	if (p < end && *p == '.') {
		p++;
		if (p == end)
			return tl_json_scan_fail_eof(s);
		if (!tl_json_scan_is_digit(*p))
			return tl_json_scan_fail(s, p, "expected a digit after '.'");
		p = skip_digits(p + 1, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end)
			return tl_json_scan_fail_eof(s);
		if (!tl_json_scan_is_digit(*p))
			return tl_json_scan_fail(s, p, "expected a digit in the exponent");
		p = skip_digits(p + 1, end);
	}
	return p;
}

static const uint8_t *skip_literal(tl_json_scan *s, const uint8_t *p, const char *word)
{
	for (size_t i = 0; word[i] != '\0'; i++) {
		if (p + i == s->end)
			return tl_json_scan_fail_eof(s);
		if (p[i] != (uint8_t)word[i])
			return tl_json_scan_fail(s, p, "expected a value");
	}
	return p + strlen(word);
}

/* A member's key (p at its quote) and colon: *key and *key_len are the key's
 * raw text between the quotes; returns the start of the value, whitespace
 * skipped. */
const uint8_t *tl_json_scan_member_key(tl_json_scan *s, const uint8_t *p, const uint8_t **key,
				       size_t *key_len)
{
	if (p == s->end)
		return tl_json_scan_fail_eof(s);
	if (*p != '"')
		return tl_json_scan_fail(s, p, "expected a string key");
	*key = p + 1;
	p = skip_string(s, p + 1);
	if (p == NULL)
		return NULL;
	*key_len = (size_t)(p - *key) - 1;
	p = tl_json_scan_ws(p, s->end);
	if (p == s->end)
		return tl_json_scan_fail_eof(s);
	if (*p != ':')
		return tl_json_scan_fail(s, p, "expected ':' after a key");
	return tl_json_scan_ws(p + 1, s->end);
}

/* A member's key and colon, when only the value matters. */
static const uint8_t *skip_key(tl_json_scan *s, const uint8_t *p)
{
	const uint8_t *key;
	size_t key_len;
	return tl_json_scan_member_key(s, p, &key, &key_len);
}

static const uint8_t *skip_scalar(tl_json_scan *s, const uint8_t *p)
{
	switch (*p) {
	case '"':
		return skip_string(s, p + 1);
	case 't':
		return skip_literal(s, p, "true");
	case 'f':
		return skip_literal(s, p, "false");
	case 'n':
		return skip_literal(s, p, "null");
	default:
		if (*p == '-' || tl_json_scan_is_digit(*p))
			return tl_json_scan_number(s, p);
		return tl_json_scan_fail(s, p, "expected a value");
	}
}

/* Skips one value starting at p (whitespace skipped), `depth` brackets
 * being open around it. Iterative: a bit per open bracket says object or
 * array. */
const uint8_t *tl_json_scan_value(tl_json_scan *s, const uint8_t *p, int depth)
{
	const uint8_t *end = s->end;
	uint64_t is_object[(MAX_DEPTH + 63) / 64];
	int d = 0; /* brackets opened inside this value and still open */
	for (;;) {
		if (p == end)
			return tl_json_scan_fail_eof(s);
		if (*p == '{' || *p == '[') {
			bool obj = *p == '{';
			if (depth + d >= MAX_DEPTH)
				return tl_json_scan_fail(s, p, "nesting deeper than 1000");
			if (obj)
				is_object[d / 64] |= (uint64_t)1 << (d % 64);
			else
				is_object[d / 64] &= ~((uint64_t)1 << (d % 64));
			d++;
			p = tl_json_scan_ws(p + 1, end);
			if (p < end && *p == (obj ? '}' : ']')) {
				p++;
				d--;
			} else {
				if (obj)
					p = skip_key(s, p);
				if (p == NULL)
					return NULL;
				continue; /* the first element's value */
			}
		} else {
			p = skip_scalar(s, p);
			if (p == NULL)
				return NULL;
		}
		/* after a value: close brackets until an element follows */
		for (;;) {
			if (d == 0)
				return p;
			bool obj = (is_object[(d - 1) / 64] >> ((d - 1) % 64)) & 1;
			p = tl_json_scan_ws(p, end);
			if (p == end)
				return tl_json_scan_fail_eof(s);
			if (*p == ',') {
				p = tl_json_scan_ws(p + 1, end);
				if (obj)
					p = skip_key(s, p);
				if (p == NULL)
					return NULL;
				break;
			}
			if (*p != (obj ? '}' : ']'))
				return tl_json_scan_fail(s, p,
							 obj ? "expected ',' or '}' after a value"
							     : "expected ',' or ']' after a value");
			p++;
			d--;
		}
	}
}
