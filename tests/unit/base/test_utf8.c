/* Unit tests of base/utf8.c (the UTF-8 walker and encoder, the text check),
 * base/bytes.c (byte sizes), output.c's CSV quoter and its memory output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/output.h"
#include "base/utf8.h"
#include "base/bytes.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "testdata.h"
#include "tmpdir.h"

/* One step of the walker over the bytes `s` (n of them): the code point it
 * gives and how far it goes. */
static void step(const char *s, size_t n, int32_t want_cp, size_t want_len)
{
	int32_t cp = 12345;
	const char *next = tl_utf8_next(s, s + n, &cp);
	assert_int_equal(cp, want_cp);
	assert_int_equal((size_t)(next - s), want_len);
}

/* Well-formed sequences of one to four bytes at both ends of each length's
 * range, and next to the surrogates. */
static void test_walk_valid(void **state)
{
	(void)state;
	step("A", 1, 0x41, 1);
	step("\0", 1, 0, 1);
	step("\x7f", 1, 0x7f, 1);
	step("\xc2\x80", 2, 0x80, 2);
	step("\xc3\xa9", 2, 0xe9, 2);
	step("\xdf\xbf", 2, 0x7ff, 2);
	step("\xe0\xa0\x80", 3, 0x800, 3);
	step("\xe2\x82\xac", 3, 0x20ac, 3);
	step("\xed\x9f\xbf", 3, 0xd7ff, 3);
	step("\xee\x80\x80", 3, 0xe000, 3);
	step("\xef\xbf\xbf", 3, 0xffff, 3);
	step("\xf0\x90\x80\x80", 4, 0x10000, 4);
	step("\xf0\x9f\x98\x80", 4, 0x1f600, 4);
	step("\xf4\x8f\xbf\xbf", 4, 0x10ffff, 4);
	/* the walker reads one character, not what follows it */
	step("\xc3\xa9\xc3\xa9", 4, 0xe9, 2);
}

/* Overlong forms, surrogates, code points past U+10FFFF, stray and missing
 * continuation bytes: invalid, one byte at a time. */
static void test_walk_invalid(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    /* overlong: two, three and four bytes */
	    "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xf0\x80\x80\x80",
	    "\xf0\x8f\xbf\xbf",
	    /* U+D800 and U+DFFF; U+110000, leads past F4 */
	    "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
	    "\xf8\x88\x80\x80", "\xfe", "\xff",
	    /* stray continuation bytes; sequences broken by ASCII or a new lead */
	    "\x80", "\xbf", "\xc3\x41", "\xe2\x82\x41", "\xf0\x9f\x98\xc3", "\xe2\xc3\xa9"};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		step(bad[i], strlen(bad[i]), TL_UTF8_INVALID, 1);
}

/* A sequence cut by the end: truncated where more bytes could complete it,
 * invalid where nothing could. */
static void test_walk_truncated(void **state)
{
	(void)state;
	step("\xc3", 1, TL_UTF8_TRUNCATED, 1);
	step("\xe2\x82", 2, TL_UTF8_TRUNCATED, 1);
	step("\xe2", 1, TL_UTF8_TRUNCATED, 1);
	step("\xf0\x9f\x98", 3, TL_UTF8_TRUNCATED, 1);
	step("\xf4\x8f", 2, TL_UTF8_TRUNCATED, 1);
	/* the end given, not the NUL, is where the input stops */
	step("\xe2\x82\xac", 2, TL_UTF8_TRUNCATED, 1);
	step("\xe0\x80", 2, TL_UTF8_INVALID, 1); /* only ever overlong */
	step("\xed\xa0", 2, TL_UTF8_INVALID, 1); /* only ever a surrogate */
	step("\xf4\x90", 2, TL_UTF8_INVALID, 1); /* only ever past U+10FFFF */
	step("\xc0", 1, TL_UTF8_INVALID, 1);
	step("\xf5", 1, TL_UTF8_INVALID, 1);
}

/* The loop every caller writes: each bad byte is one step, and the walk
 * picks up the next character right after it. */
static void test_walk_loop(void **state)
{
	(void)state;
	/* a, e acute, a bad byte, the euro sign, a euro cut short: its lead is
	 * truncated, its second byte then a stray continuation */
	const char s[] = "a\xc3\xa9\xff\xe2\x82\xac\xe2\x82";
	const int32_t want[] = {0x61,		0xe9, TL_UTF8_INVALID, 0x20ac, TL_UTF8_TRUNCATED,
				TL_UTF8_INVALID};
	const char *end = s + sizeof s - 1;
	size_t n = 0;
	for (const char *p = s; p < end; n++) {
		int32_t cp;
		p = tl_utf8_next(p, end, &cp);
		assert_true(n < G_N_ELEMENTS(want));
		assert_int_equal(cp, want[n]);
	}
	assert_int_equal(n, G_N_ELEMENTS(want));
}

/* Every Unicode scalar value encodes to what the walker reads back whole,
 * in the length UTF-8 gives it; a surrogate written the same way is refused. */
static void test_encode_round_trip(void **state)
{
	(void)state;
	for (uint32_t c = 0; c <= 0x10ffff; c++) {
		char buf[4];
		size_t n = tl_utf8_encode(buf, c);
		assert_int_equal(n, c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
		int32_t cp;
		const char *next = tl_utf8_next(buf, buf + n, &cp);
		if (c >= 0xd800 && c <= 0xdfff) {
			assert_int_equal(cp, TL_UTF8_INVALID);
			continue;
		}
		assert_int_equal(cp, (int32_t)c);
		assert_ptr_equal(next, buf + n);
	}
}

static bool is_text(const char *s, uint32_t controls, bool cut)
{
	return tl_utf8_is_text(s, strlen(s), controls, cut);
}

/* Text is valid UTF-8 without control characters but the ones allowed; a
 * character cut by the end counts only where the bytes are a prefix. */
static void test_is_text(void **state)
{
	(void)state;
	assert_true(is_text("", 0, false));
	assert_true(is_text("dense/MatMul \xc3\xa9\xe2\x82\xac", 0, false));
	assert_false(is_text("a\tb", 0, false));
	assert_true(is_text("a\tb\r\n", TL_UTF8_TAB_LF_CR, false));
	assert_false(is_text("a\fb", TL_UTF8_TAB_LF_CR, false));
	assert_true(is_text("a\fb", TL_UTF8_TAB_LF_CR | (1u << '\f'), false));
	assert_false(is_text("a\x7f", ~0u, false));
	assert_false(is_text("a\x01", TL_UTF8_TAB_LF_CR, false));
	assert_false(is_text("a\xff", 0, true));
	assert_false(is_text("\xed\xa0\x80", 0, true));
	assert_false(is_text("ab\xe2\x82", 0, false));
	assert_true(is_text("ab\xe2\x82", 0, true));
	assert_false(is_text("ab\xe0\x80", 0, true));	   /* nothing could complete it */
	assert_false(tl_utf8_is_text("a\0b", 3, 0, true)); /* NUL is a control character */
}

static void bytes_is(double v, const char *want)
{
	char buf[TL_BYTES_FORMAT_MAX];
	size_t n = tl_bytes_format(buf, sizeof buf, v);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

/* tfprof's units on each side of each boundary, the sign kept, and a small
 * buffer cut like snprintf cuts. */
static void test_bytes(void **state)
{
	(void)state;
	bytes_is(0, "0B");
	bytes_is(512, "512B");
	bytes_is(999, "999B");
	bytes_is(1000, "1.00KB");
	bytes_is(1200, "1.20KB");
	bytes_is(1024, "1.02KB");
	bytes_is(999994, "999.99KB");
	bytes_is(999999, "1000.00KB"); /* as tfprof: the unit is chosen before rounding */
	bytes_is(1e6, "1.00MB");
	bytes_is(12345678, "12.35MB");
	bytes_is(999999999, "1000.00MB");
	bytes_is(1e9, "1.00GB");
	bytes_is(3e12, "3000.00GB");
	bytes_is((double)INT64_MAX, "9223372036.85GB");
	bytes_is(-512, "-512B");
	bytes_is(-999, "-999B");
	bytes_is(-1000, "-1.00KB");
	bytes_is(-1200, "-1.20KB");
	bytes_is(-12345678, "-12.35MB");
	bytes_is(-1e9, "-1.00GB");
	bytes_is((double)INT64_MIN, "-9223372036.85GB");
	char small[4];
	assert_int_equal(tl_bytes_format(small, sizeof small, 1200), 3);
	assert_string_equal(small, "1.2");
	assert_int_equal(tl_bytes_format(small, 0, 1200), 0);
}

static char *csv_of(const char *const *fields, size_t n)
{
	char *path = g_build_filename(tmpdir, "out.csv", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			tl_output_char(o, ',');
		tl_output_csv(o, fields[i]);
	}
	assert_int_equal(tl_output_close(o, &err), 0);
	char *data = NULL;
	assert_true(g_file_get_contents(path, &data, NULL, NULL));
	g_free(path);
	return data;
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted with its
 * quotes doubled; any other goes out as it is, UTF-8 and spaces included. */
static void test_csv(void **state)
{
	(void)state;
	static const char *const fields[] = {
	    "dense/MatMul", "",		  " padded ", "a,b",	     "say \"hi\"",
	    "\"",	    "two\nlines", "cr\r",     "caf\xc3\xa9", "x;y",
	};
	char *csv = csv_of(fields, G_N_ELEMENTS(fields));
	assert_string_equal(csv, "dense/MatMul,, padded ,\"a,b\",\"say \"\"hi\"\"\",\"\"\"\","
				 "\"two\nlines\",\"cr\r\",caf\xc3\xa9,x;y");
	g_free(csv);
}

/* An output kept in memory holds every byte written, across the flushes
 * of its buffer, in order; an output dropped unread frees it. */
static void test_output_memory(void **state)
{
	(void)state;
	tl_output *o = tl_output_new_memory();
	GString *want = g_string_new(NULL);
	for (uint64_t i = 0; want->len < 3 * TL_OUTPUT_BUF; i++) {
		tl_output_uint(o, i);
		tl_output_char(o, ',');
		g_string_append_printf(want, "%" G_GUINT64_FORMAT ",", i);
	}
	char *big = g_strnfill(TL_OUTPUT_BUF, 'x');
	tl_output_str(o, big);
	g_string_append(want, big);
	GString *got = tl_output_take(o);
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->str, want->str, want->len);
	g_string_free(got, TRUE);
	g_string_free(want, TRUE);
	g_free(big);
	tl_output *dropped = tl_output_new_memory();
	tl_output_str(dropped, "never read");
	tl_output_abort(dropped);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_walk_valid),
	    cmocka_unit_test(test_walk_invalid),
	    cmocka_unit_test(test_walk_truncated),
	    cmocka_unit_test(test_walk_loop),
	    cmocka_unit_test(test_encode_round_trip),
	    cmocka_unit_test(test_is_text),
	    cmocka_unit_test(test_bytes),
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_output_memory),
	};
	return cmocka_run_group_tests_name("text", tests, tmpdir_setup, tmpdir_teardown);
}
