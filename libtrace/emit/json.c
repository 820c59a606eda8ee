#include "emit/json.h"

#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char hexdigits[] = "0123456789abcdef";

/* Bytes that go out as they are: printable ASCII but the quote and the
 * backslash. */
static unsigned char plain[256];
/* The same, but '<', which in an HTML script must not start "</". */
static unsigned char plain_script[256];

static void plain_init(void)
{
	for (unsigned c = 0x20; c < 0x80; c++) {
		plain[c] = c != '"' && c != '\\';
		plain_script[c] = plain[c] && c != '<';
	}
}

/* Whether any of the 8 bytes in x needs a look of its own: a control
 * byte, a byte from 0x80, '"', '\\', and in a script '<' (the words are
 * Mycroft's zero-byte test; it can flag a byte beside the one that needs
 * it, never miss one, and a flagged word goes byte by byte). */
static inline bool word_special(uint64_t x, bool script)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t high = UINT64_C(0x8080808080808080);
	uint64_t quote = x ^ (ones * '"');
	uint64_t bslash = x ^ (ones * '\\');
	uint64_t t = (x | ((x - ones * 0x20) & ~x)) | ((quote - ones) & ~quote) |
		     ((bslash - ones) & ~bslash);
	if (script) {
		uint64_t lt = x ^ (ones * '<');
		t |= (lt - ones) & ~lt;
	}
	return (t & high) != 0;
}

/* From byte i on, bytes [run, i) plain and not yet written. */
static void string_rest(tl_output *o, const unsigned char *s, size_t n, size_t run, size_t i,
			const unsigned char *keep);

static void string_len(tl_output *o, const char *str, size_t n, bool script)
{
	const unsigned char *s = (const unsigned char *)str;
	if (!plain['a'])
		plain_init();
	const unsigned char *keep = script ? plain_script : plain;
	if (n > TL_OUTPUT_BUF / 2) {
		tl_output_char(o, '"');
		string_rest(o, s, n, 0, 0, keep);
		return;
	}
	/* The common string, all plain: copied into the buffer as it is
	 * checked, a word at a time; what needs escaping goes the long way
	 * from the first word that holds it. */
	if (o->len + n + 2 > TL_OUTPUT_BUF)
		tl_output_flush(o);
	char *dst = o->buf + o->len;
	*dst++ = '"';
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		if (word_special(x, script))
			break;
		memcpy(dst + i, &x, 8);
	}
	while (i < n && keep[s[i]]) {
		dst[i] = (char)s[i];
		i++;
	}
	if (i == n) {
		dst[n] = '"';
		o->len += n + 2;
		return;
	}
	o->len += 1 + i;
	string_rest(o, s, n, i, i, keep);
}

static void string_rest(tl_output *o, const unsigned char *s, size_t n, size_t run, size_t i,
			const unsigned char *keep)
{
	const char *str = (const char *)s;
	while (i < n) {
		while (i < n && keep[s[i]])
			i++;
		if (i == n)
			break;
		if (s[i] == '<') {
			/* "</" would end the element, "<!--" would start an
			 * escape in which "</script>" no longer does */
			char next = i + 1 < n ? (char)s[i + 1] : '\0';
			i++;
			if (next == '/') {
				tl_output_bytes(o, s + run, i - run);
				tl_output_char(o, '\\');
				run = i;
			} else if (next == '!') {
				tl_output_bytes(o, s + run, i - 1 - run);
				tl_output_bytes(o, "\\u003c", 6);
				run = i;
			}
			continue;
		}
		unsigned char c = s[i];
		if (c >= 0x80) {
			int32_t cp;
			const char *next = tl_utf8_next(str + i, str + n, &cp);
			if (cp >= 0) {
				i = (size_t)(next - str);
				continue;
			}
		}
		tl_output_bytes(o, s + run, i - run);
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			tl_output_bytes(o, esc, 2);
		} else if (c == '\n') {
			tl_output_bytes(o, "\\n", 2);
		} else if (c == '\t') {
			tl_output_bytes(o, "\\t", 2);
		} else if (c == '\r') {
			tl_output_bytes(o, "\\r", 2);
		} else if (c < 0x20) {
			char esc[6] = {'\\', 'u', '0', '0', hexdigits[c >> 4], hexdigits[c & 15]};
			tl_output_bytes(o, esc, 6);
		} else {
			tl_output_bytes(o, "\xef\xbf\xbd", 3); /* U+FFFD for a bad byte */
		}
		i++;
		run = i;
	}
	tl_output_bytes(o, s + run, n - run);
	tl_output_char(o, '"');
}

void tl_json_string_len(tl_output *o, const char *s, size_t n)
{
	string_len(o, s, n, false);
}

void tl_json_string_script(tl_output *o, const char *s, size_t n)
{
	string_len(o, s, n, true);
}

void tl_json_string(tl_output *o, const char *s)
{
	tl_json_string_len(o, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

/* ".ddd", a fraction in thousandths (0 to 999), its 4 bytes written whole;
 * `trim`: its trailing zeros not counted. */
static void thousandths_put(tl_output *o, unsigned frac, bool trim)
{
	if (o->len + 4 > TL_OUTPUT_BUF)
		tl_output_flush(o);
	char *p = o->buf + o->len;
	p[0] = '.';
	p[1] = (char)('0' + frac / 100);
	p[2] = (char)('0' + frac / 10 % 10);
	p[3] = (char)('0' + frac % 10);
	size_t len = 4;
	while (trim && p[len - 1] == '0')
		len--;
	o->len += len;
}

void tl_json_micros(tl_output *o, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		tl_output_char(o, '-');
	tl_output_uint(o, mag / 1000);
	unsigned frac = (unsigned)(mag % 1000);
	if (frac == 0)
		return;
	thousandths_put(o, frac, true);
}

/* Thousandths of |v| (0 <= |v| < 9e15, not whole), rounded as printf
 * rounds the exact value: the whole part and the fraction are exact in
 * binary; the fraction times 1000 is rounded once, and fma gives what that
 * rounding lost, which settles a tie or a value that rounded onto one. */
static void thousandths(double mag, int64_t *whole, int *frac)
{
	double w = trunc(mag), f = mag - w;
	double p = f * 1000.0, lost = fma(f, 1000.0, -p);
	double n = nearbyint(p), t = p - n; /* |t| <= 0.5 */
	if (t == 0.5 && lost > 0)
		n += 1;
	else if (t == -0.5 && lost < 0)
		n -= 1;
	*whole = (int64_t)w;
	*frac = (int)n;
	if (*frac >= 1000) {
		*whole += 1;
		*frac -= 1000;
	}
}

void tl_json_number3(tl_output *o, double v)
{
	double mag = fabs(v);
	if (!(mag < 9e15)) {
		tl_output_printf(o, "%.3f", v); /* as the callers' printf did */
		return;
	}
	if (signbit(v))
		tl_output_char(o, '-');
	if (mag == floor(mag)) {
		tl_output_uint(o, (uint64_t)mag);
		return;
	}
	int64_t whole;
	int frac;
	thousandths(mag, &whole, &frac);
	tl_output_uint(o, (uint64_t)whole);
	thousandths_put(o, (unsigned)frac, false);
}
