/*
 * utf8: the one UTF-8 walker every layer shares, so that two files never
 * hold two copies of one idea.
 *
 *   tl_utf8_next    the one UTF-8 walker (as jq's jv_unicode.c): every
 *                   reader that checks text and every writer that escapes
 *                   it steps through multi-byte characters with it;
 *   tl_utf8_encode  a code point as UTF-8;
 *   tl_utf8_is_text whether bytes read as text (the sniffers' question).
 *
 * The other text helpers: the byte-size formatter is base/bytes.h, the CSV
 * quoter tl_output_csv (base/output.h), the shape of a tensor model/shape.h
 * (it reads the schema, which this layer sits below).
 * Nothing here allocates; the caller owns every buffer.
 */
#ifndef TL_BASE_UTF8_H
#define TL_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What tl_utf8_next puts in *cp for a byte that starts no valid character. */
enum {
	/* a stray continuation byte, a lead byte that no character starts with
	 * (0xc0, 0xc1, 0xf5..0xff), an overlong form, a surrogate, a code point
	 * past U+10FFFF, or a sequence broken by a byte that cannot continue it */
	TL_UTF8_INVALID = -1,
	/* a sequence valid so far but cut by `end`: more input may complete it
	 * (a reader looking at a prefix of a file takes it as text) */
	TL_UTF8_TRUNCATED = -2,
};

/* The character at p (p < end): its code point in *cp, and the byte after
 * it. At a byte that starts no valid character, *cp is TL_UTF8_INVALID or
 * TL_UTF8_TRUNCATED and the walker advances one byte: the caller decides
 * (write U+FFFD, refuse the input, stop). Exactly the Unicode definition of
 * well-formed UTF-8 (Table 3-7), so a valid walk never yields a surrogate or
 * a code point past U+10FFFF.
 *
 *	for (const char *p = s; p < end;) {
 *		int32_t cp;
 *		p = tl_utf8_next(p, end, &cp);
 *		...
 *	}
 *
 * Callers with a fast path for ASCII call it at bytes >= 0x80 only. It is
 * inline because scanners call it inside their tightest loops, where a call
 * would cost every string its saved registers. */
static inline const char *tl_utf8_next(const char *p, const char *end, int32_t *cp)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = (int32_t)c;
		return p + 1;
	}
	/* The range of the second byte carries every rule beyond "a
	 * continuation byte": after E0 it refuses overlongs of three bytes,
	 * after ED surrogates, after F0 overlongs of four, after F4 what lies
	 * past U+10FFFF; leads from C2 up refuse overlongs of two. */
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;
	uint32_t v;
	if (c < 0xc2 || c > 0xf4) {
		*cp = TL_UTF8_INVALID;
		return p + 1;
	}
	if (c < 0xe0) {
		n = 2;
		v = c & 0x1f;
	} else if (c < 0xf0) {
		n = 3;
		v = c & 0x0f;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else {
		n = 4;
		v = c & 0x07;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	}
	size_t left = (size_t)(end - p);
	for (size_t i = 1; i < n; i++) {
		if (i >= left) {
			*cp = TL_UTF8_TRUNCATED;
			return p + 1;
		}
		unsigned b = s[i];
		if (b < lo || b > hi) {
			*cp = TL_UTF8_INVALID;
			return p + 1;
		}
		v = (v << 6) | (b & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = (int32_t)v;
	return p + n;
}

/* Writes code point cp (a Unicode scalar value: at most U+10FFFF, no
 * surrogate) as UTF-8 into buf; returns its length (1 to 4). */
size_t tl_utf8_encode(char buf[4], uint32_t cp);

/* Whether s[0..n) reads as text: well-formed UTF-8 without a control
 * character (below 0x20, and DEL) other than those whose bit is set in
 * `controls` (TL_UTF8_TAB_LF_CR, ...). A character cut by the end is text
 * when `cut` says the bytes are the prefix of something longer. */
#define TL_UTF8_TAB_LF_CR ((1u << '\t') | (1u << '\n') | (1u << '\r'))
bool tl_utf8_is_text(const char *s, size_t n, uint32_t controls, bool cut);

#endif
