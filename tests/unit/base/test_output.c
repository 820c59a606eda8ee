/* Unit tests of output.c's copies out of a scratch file: whether the
 * kernel copies (a plain file) or the buffer does (memory, gzip, small
 * pieces), the bytes land where they were asked for, in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/output.h"

#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "tmpdir.h"

#define SCRATCH (3u << 20)

/* A scratch file holding SCRATCH bytes of a pattern; `want` gets them. */
static tl_output *scratch_of(uint8_t **want)
{
	tl_output *s = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_new_scratch(&s, &err), 0);
	uint8_t *b = g_malloc(SCRATCH);
	for (size_t i = 0; i < SCRATCH; i++)
		b[i] = (uint8_t)((i * 7u + i / 1000u) & 0xff);
	tl_output_bytes(s, b, SCRATCH);
	*want = b;
	return s;
}

/* Writes "<", scratch[at0, +n0), "|", scratch[at1, +n1), ">" into `out`;
 * the same bytes into `want`. */
static void pieces(tl_output *out, tl_output *s, const uint8_t *src, GByteArray *want)
{
	static const uint64_t at[][2] = {
	    {100, 2u << 20}, /* a big piece: the kernel's copy where it can */
	    {5, 1000},	     /* a small one: through the buffer */
	    {(2u << 20) + 17, SCRATCH - (2u << 20) - 17},
	};
	tl_error err = {{0}};
	for (size_t k = 0; k < G_N_ELEMENTS(at); k++) {
		tl_output_char(out, k == 0 ? '<' : '|');
		g_byte_array_append(want, (const guint8 *)(k == 0 ? "<" : "|"), 1);
		assert_int_equal(tl_output_copy(out, s, at[k][0], at[k][1], &err), 0);
		g_byte_array_append(want, src + at[k][0], (guint)at[k][1]);
	}
	tl_output_char(out, '>');
	g_byte_array_append(want, (const guint8 *)">", 1);
	assert_int_equal(tl_output_tell(out), want->len);
}

/* The pieces copied into a file named `name` in the test's folder (its
 * path in *path, g_free'd by the caller): what was written. */
static GByteArray *copied_to_file(const char *name, char **path)
{
	uint8_t *src = NULL;
	tl_output *s = scratch_of(&src);
	*path = g_build_filename(tmpdir, name, NULL);
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, *path, false, NULL, 0, &err), 0);
	GByteArray *want = g_byte_array_new();
	pieces(out, s, src, want);
	assert_int_equal(tl_output_close(out, &err), 0);
	tl_output_abort(s);
	g_free(src);
	return want;
}

static void test_copy_to_file(void **state)
{
	(void)state;
	char *path = NULL;
	GByteArray *want = copied_to_file("page.html", &path);
	gchar *got = NULL;
	gsize len = 0;
	assert_true(g_file_get_contents(path, &got, &len, NULL));
	assert_int_equal(len, want->len);
	assert_memory_equal(got, want->data, len);
	g_free(got);
	g_byte_array_free(want, TRUE);
	g_free(path);
}

static void test_copy_to_memory(void **state)
{
	(void)state;
	uint8_t *src = NULL;
	tl_output *s = scratch_of(&src);
	tl_output *out = tl_output_new_memory();
	GByteArray *want = g_byte_array_new();
	pieces(out, s, src, want);
	GString *got = tl_output_take(out);
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->str, want->data, got->len);
	g_string_free(got, TRUE);
	g_byte_array_free(want, TRUE);
	tl_output_abort(s);
	g_free(src);
}

static void test_copy_to_gzip(void **state)
{
	(void)state;
	char *path = NULL;
	GByteArray *want = copied_to_file("page.html.gz", &path);
	gzFile gz = gzopen(path, "rb");
	assert_non_null(gz);
	uint8_t *got = g_malloc(want->len + 1);
	assert_int_equal(gzread(gz, got, want->len + 1), (int)want->len);
	gzclose(gz);
	assert_memory_equal(got, want->data, want->len);
	g_free(got);
	g_byte_array_free(want, TRUE);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_copy_to_file),
	    cmocka_unit_test(test_copy_to_memory),
	    cmocka_unit_test(test_copy_to_gzip),
	};
	return cmocka_run_group_tests_name("output", tests, tmpdir_setup, tmpdir_teardown);
}
