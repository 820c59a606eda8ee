/*
 * chrome_reader: a streaming reader of Chrome trace JSON. The input is
 * scanned once, left to right, by the primitives of io/json_scan.c, which
 * validate everything they pass as JSON; only an event's top-level keys are
 * looked at, matched by length and memcmp.
 *
 * Errors are "invalid JSON at byte N: what" with N the offset in the input
 * (the BOM, when there is one, counts). An error is sticky: later calls
 * repeat it.
 */
#include "io/chrome_reader.h"

#include "base/limits.h"

#include "io/json_scan.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum state {
	ST_EVENTS, /* inside the event array */
	ST_DONE,   /* next() returned 0 */
	ST_FAILED, /* next() returned -1 */
};

struct tl_chrome_reader {
	tl_json_scan scan; /* the input's end, and the first error */
	const uint8_t *data;
	const uint8_t *p; /* the next byte to look at */
	enum state state;
	bool array_form;   /* a bare top-level array, not {"traceEvents": ...} */
	bool after_event;  /* an event was read: ',' or ']' comes next */
	bool seen_events;  /* the object form's traceEvents was found */
	int event_depth;   /* brackets open around an event object */
	char err_msg[200]; /* the first error, formatted on the way out */

	size_t n_extras, cap_extras;
	const char **extra_keys;
	size_t *extra_key_lens;
	const char **extra_values;
	size_t *extra_value_lens;
	char *time_unit;
};

static int report(tl_chrome_reader *r, tl_error *err)
{
	if (r->state != ST_FAILED) {
		snprintf(r->err_msg, sizeof r->err_msg, "%s at byte %llu: %s",
			 r->scan.err_json ? "invalid JSON" : "invalid trace",
			 (unsigned long long)(r->scan.err_at - r->data), r->scan.err_what);
		r->state = ST_FAILED;
	}
	return tl_error_set(err, "%s", r->err_msg);
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
	tl_json_scan probe = {.end = (const uint8_t *)s + n};
	if (n == 0 || !(s[0] == '-' || tl_json_scan_is_digit((uint8_t)s[0])))
		return false;
	const uint8_t *stop = tl_json_scan_number(&probe, (const uint8_t *)s);
	if (stop != probe.end)
		return false;

	bool neg = s[0] == '-';
	size_t i = neg ? 1 : 0;
	uint64_t mant = 0;
	int digits = 0, exp10 = 0;
	bool simple = true;
	for (; i < n && tl_json_scan_is_digit((uint8_t)s[i]); i++) {
		if (mant == 0 && s[i] == '0')
			continue;
		mant = mant * 10 + (uint64_t)(s[i] - '0');
		if (++digits > 19)
			simple = false; /* mant would overflow */
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && tl_json_scan_is_digit((uint8_t)s[i]); i++) {
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

bool tl_chrome_reader_span_number(const tl_chrome_in_event *ev, tl_span s, double *out)
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

/* The digit at `idx` of a number's digits, the integer part's then the
 * fraction's, '0' past them. */
static int digit_at(const char *ip, size_t in, const char *fp, size_t fn, int64_t idx)
{
	if (idx < 0)
		return 0;
	if ((uint64_t)idx < in)
		return ip[idx] - '0';
	if ((uint64_t)idx - in < fn)
		return fp[idx - (int64_t)in] - '0';
	return 0;
}

int tl_chrome_reader_span_ns(const tl_chrome_in_event *ev, tl_span s, int64_t *out)
{
	if (s.len == 0)
		return 0;
	const char *v = ev->raw + s.off;
	size_t n = s.len;
	if (v[0] == '"') {
		if (n < 2)
			return 0;
		v++;
		n -= 2;
	}
	tl_json_scan probe = {.end = (const uint8_t *)v + n};
	if (n == 0 || !(v[0] == '-' || tl_json_scan_is_digit((uint8_t)v[0])) ||
	    tl_json_scan_number(&probe, (const uint8_t *)v) != probe.end)
		return 0;
	bool neg = v[0] == '-';
	size_t i = neg ? 1 : 0;
	const char *ip = v + i, *fp = NULL;
	size_t in = 0, fn = 0;
	while (i < n && tl_json_scan_is_digit((uint8_t)v[i]))
		i++, in++;
	if (i < n && v[i] == '.') {
		fp = v + ++i;
		while (i < n && tl_json_scan_is_digit((uint8_t)v[i]))
			i++, fn++;
	}
	int64_t e = 0;
	if (i < n) { /* [eE][+-]digits, checked by the scanner */
		bool eneg = v[++i] == '-';
		if (v[i] == '-' || v[i] == '+')
			i++;
		for (; i < n; i++)
			if (e < 100000)
				e = e * 10 + (v[i] - '0');
		e = eneg ? -e : e;
	}
	/* ns = the digits up to 3 places after the point (moved by e), then
	 * rounded half away from zero at the next one */
	int64_t keep = (int64_t)in + e + 3, first = 0;
	while ((uint64_t)first < in + fn && digit_at(ip, in, fp, fn, first) == 0)
		first++;
	if ((uint64_t)first == in + fn) { /* all zeros, whatever the exponent */
		*out = 0;
		return 1;
	}
	if (keep - first > 19) /* 10^19 ns and more */
		return -1;
	uint64_t ns = 0;
	for (int64_t k = first; k < keep; k++) {
		ns = ns * 10 + (uint64_t)digit_at(ip, in, fp, fn, k);
		if (ns >= (uint64_t)TL_TIME_LIMIT_NS)
			return -1;
	}
	if (keep >= 0 && digit_at(ip, in, fp, fn, keep) >= 5)
		ns++;
	if (ns >= (uint64_t)TL_TIME_LIMIT_NS)
		return -1;
	*out = neg ? -(int64_t)ns : (int64_t)ns;
	return 1;
}

/* ---- strings ---- */

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 4 | (unsigned)tl_json_scan_hex_value((uint8_t)p[i]);
	return v;
}

static bool at_hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (tl_json_scan_hex_value((uint8_t)p[i]) < 0)
			return false;
	return true;
}

/* The character of the \u escape whose four hex digits (checked) are at h,
 * joined with the \u escape of its low half when it is a high surrogate;
 * *after is the byte after what it read. -1 for a lone surrogate. */
static int32_t unicode_escape(const char *h, const char *end, const char **after)
{
	unsigned u = hex4(h);
	const char *p = h + 4;
	*after = p;
	if (u >= 0xd800 && u <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
	    at_hex4(p + 2, end)) {
		unsigned lo = hex4(p + 2);
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			*after = p + 6;
			return (int32_t)(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
		}
	}
	return u >= 0xd800 && u <= 0xdfff ? -1 : (int32_t)u;
}

/* Decodes the escape after a backslash at p (p[-1] == '\\'); returns the
 * byte after it. A lone surrogate becomes U+FFFD. */
static const char *decode_escape(const char *p, const char *end, GString *buf)
{
	/* the one-character escapes, and what they stand for */
	static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
	char c = *p++;
	if (c != 'u') {
		const char *at = strchr(from, c);
		/* others ('"', '\\', '/') stand for themselves */
		g_string_append_c(buf, at != NULL && c != '\0' ? to[at - from] : c);
		return p;
	}
	if (!at_hex4(p, end)) {
		g_string_append_unichar(buf, 0xfffd);
		return p;
	}
	int32_t u = unicode_escape(p, end, &p);
	g_string_append_unichar(buf, u < 0 ? 0xfffd : (gunichar)u);
	return p;
}

const char *tl_chrome_reader_span_text(const tl_chrome_in_event *ev, tl_span s, GString *buf)
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
	tl_chrome_reader_span_text(&fake, (tl_span){0, (uint32_t)len}, buf);
	g_free(r->time_unit);
	r->time_unit = g_string_free(buf, FALSE);
}

/* After the top-level value: only whitespace may follow. */
static int finish(tl_chrome_reader *r)
{
	const uint8_t *p = tl_json_scan_ws(r->p, r->scan.end);
	if (p != r->scan.end) {
		tl_json_scan_fail(&r->scan, p,
				  "expected the end of input after the top-level value");
		return -1;
	}
	r->p = p;
	r->state = ST_DONE;
	return 0;
}

/* After a member's value, at p (whitespace skipped): '}' ends the object
 * (p, *more false); ',' leads to the next member (its first byte, *more
 * true); anything else, or the end, is an error (NULL). */
static const uint8_t *after_member(tl_json_scan *s, const uint8_t *p, bool *more)
{
	if (p == s->end) {
		tl_json_scan_fail_eof(s);
		return NULL;
	}
	*more = *p == ',';
	if (*p == '}')
		return p;
	if (*p != ',') {
		tl_json_scan_fail(s, p, "expected ',' or '}' after a value");
		return NULL;
	}
	p = tl_json_scan_ws(p + 1, s->end);
	if (p == s->end) {
		tl_json_scan_fail_eof(s);
		return NULL;
	}
	return p;
}

/* Walks the top-level object's members from r->p: `first` when just after
 * its '{', else just after a member's value. Stops after the '[' of
 * traceEvents (1) or at the end of the document (0); -1 on error. */
static int scan_top_members(tl_chrome_reader *r, bool first)
{
	const uint8_t *end = r->scan.end;
	const uint8_t *p = tl_json_scan_ws(r->p, end);
	for (;;) {
		if (p == end) {
			tl_json_scan_fail_eof(&r->scan);
			return -1;
		}
		if (first && *p == '}')
			break;
		if (!first) {
			bool more;
			if ((p = after_member(&r->scan, p, &more)) == NULL)
				return -1;
			if (!more)
				break;
		}
		first = false;
		const uint8_t *key;
		size_t key_len;
		const uint8_t *value = tl_json_scan_member_key(&r->scan, p, &key, &key_len);
		if (value == NULL)
			return -1;
		if (key_is(key, key_len, "traceEvents") && !r->seen_events) {
			if (value == end) {
				tl_json_scan_fail_eof(&r->scan);
				return -1;
			}
			if (*value != '[') {
				r->scan.err_json = false;
				r->scan.err_at = value;
				r->scan.err_what = "'traceEvents' is not an array";
				return -1;
			}
			r->seen_events = true;
			r->p = value + 1;
			return 1;
		}
		p = tl_json_scan_value(&r->scan, value, 1);
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
		p = tl_json_scan_ws(p, end);
	}
	r->p = p + 1;
	return 0;
}

int tl_chrome_reader_open(tl_chrome_reader **out, const uint8_t *data, size_t len, tl_error *err)
{
	tl_json_scan_init();
	tl_chrome_reader *r = g_new0(tl_chrome_reader, 1);
	if (data == NULL)
		data = (const uint8_t *)""; /* len is 0; no arithmetic on NULL */
	r->data = data;
	r->scan.end = data + len;
	r->p = data;
	r->state = ST_EVENTS;
	if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
		r->p += 3;
	const uint8_t *p = tl_json_scan_ws(r->p, r->scan.end);
	int rc = -1;
	if (p == r->scan.end) {
		tl_json_scan_fail_eof(&r->scan);
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
		tl_json_scan_fail(&r->scan, p, "expected '{' or '['");
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

/* Records the span of a member of the event, if its key is one we report:
 * the length first (one compare rules out most keys), then the bytes. */
#define MEMBER(name, field)                                                                        \
	if (key_len == sizeof(name) - 1 && memcmp(key, name, sizeof(name) - 1) == 0) {             \
		ev->field = s;                                                                     \
		return;                                                                            \
	}

static void event_member(tl_chrome_in_event *ev, const uint8_t *key, size_t key_len, tl_span s)
{
	MEMBER("ph", ph_span)
	MEMBER("ts", ts)
	MEMBER("pid", pid)
	MEMBER("tid", tid)
	MEMBER("dur", dur)
	MEMBER("name", name)
	MEMBER("args", args)
	MEMBER("cat", cat)
	MEMBER("id", id)
	MEMBER("id2", id2)
	MEMBER("bind_id", bind_id)
}

#undef MEMBER

/* Reads the event object at r->p (its '{'). Returns 1 for an event, 0 for
 * an empty {} (skipped), -1 on error. */
static int read_event(tl_chrome_reader *r, tl_chrome_in_event *ev)
{
	const uint8_t *end = r->scan.end;
	const uint8_t *start = r->p;
	const uint8_t *p = tl_json_scan_ws(start + 1, end);
	if (p < end && *p == '}') {
		r->p = p + 1;
		return 0;
	}
	memset(ev, 0, sizeof *ev);
	for (;;) {
		const uint8_t *key;
		size_t key_len;
		const uint8_t *value = tl_json_scan_member_key(&r->scan, p, &key, &key_len);
		if (value == NULL)
			return -1;
		p = tl_json_scan_value(&r->scan, value, r->event_depth + 1);
		if (p == NULL)
			return -1;
		tl_span s = {(uint32_t)(value - start), (uint32_t)(p - value)};
		event_member(ev, key, key_len, s);
		bool more;
		if ((p = after_member(&r->scan, tl_json_scan_ws(p, end), &more)) == NULL)
			return -1;
		if (!more)
			break;
	}
	p++;
	if ((size_t)(p - start) > UINT32_MAX) {
		r->scan.err_json = false;
		r->scan.err_at = start;
		r->scan.err_what = "an event of 4 GiB or more";
		return -1;
	}
	ev->raw = (const char *)start;
	ev->raw_len = (size_t)(p - start);
	ev->offset = (uint64_t)(start - r->data);
	ev->ph = first_char(ev->raw + ev->ph_span.off, ev->ph_span.len);
	ev->has_ts = tl_chrome_reader_span_number(ev, ev->ts, &ev->ts_us);
	if (!ev->has_ts)
		ev->ts_us = 0;
	if (!tl_chrome_reader_span_number(ev, ev->dur, &ev->dur_us))
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
		tl_json_scan_fail_eof(&r->scan);
		return -1;
	}
	r->p = r->scan.end;
	r->state = ST_DONE;
	return 0;
}

static int next_event(tl_chrome_reader *r, tl_chrome_in_event *ev)
{
	const uint8_t *end = r->scan.end;
	for (;;) {
		const uint8_t *p = tl_json_scan_ws(r->p, end);
		if (p == end)
			return cut_short(r);
		if (r->after_event) {
			if (*p == ']') {
				r->p = p + 1;
				return end_of_events(r);
			}
			if (*p != ',') {
				tl_json_scan_fail(&r->scan, p,
						  "expected ',' or ']' after an event");
				return -1;
			}
			p = tl_json_scan_ws(p + 1, end);
			if (p == end)
				return cut_short(r);
		} else if (*p == ']') {
			r->p = p + 1;
			return end_of_events(r);
		}
		if (*p != '{') {
			/* valid JSON that is not an event, or invalid JSON */
			if (tl_json_scan_value(&r->scan, p, r->event_depth) != NULL) {
				tl_json_scan_fail(&r->scan, p, "an event is not an object");
				r->scan.err_json = false;
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
		const char *after;
		if (unicode_escape(p + 2, end, &after) < 0) {
			tl_output_bytes(out, from, (size_t)(p - from));
			tl_output_str(out, "\\ufffd");
			from = after;
		}
		p = after;
	}
	tl_output_bytes(out, from, (size_t)(end - from));
}

void tl_chrome_reader_rewrite(tl_output *out, const tl_chrome_in_event *ev,
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
		tl_output_str(out, rep[i].text);
		at = (size_t)rep[i].at.off + rep[i].at.len;
	}
	copy_json(out, ev->raw + at, ev->raw_len - at);
}

bool tl_chrome_reader_span_is(const tl_chrome_in_event *ev, tl_span s, const char *quoted)
{
	size_t n = strlen(quoted);
	return s.len == n && memcmp(ev->raw + s.off, quoted, n) == 0;
}

bool tl_chrome_reader_args_int(const tl_chrome_in_event *ev, const char *quoted_key, int64_t *out)
{
	if (ev->args.len == 0)
		return false;
	const char *a = ev->raw + ev->args.off, *end = a + ev->args.len;
	const char *p = memmem(a, ev->args.len, quoted_key, strlen(quoted_key));
	if (p == NULL)
		return false;
	p += strlen(quoted_key);
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':'))
		p++;
	char num[24];
	size_t n = 0;
	while (p + n < end && n < sizeof num - 1 &&
	       (g_ascii_isdigit(p[n]) || (n == 0 && p[n] == '-')))
		n++;
	memcpy(num, p, n);
	num[n] = '\0';
	char *stop = NULL;
	*out = g_ascii_strtoll(num, &stop, 10);
	return n > 0 && stop == num + n;
}
