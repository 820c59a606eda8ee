/* Unit tests of chrome.c and output.c: escaping, time formatting, and the
 * atomic -o file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/chrome.h"
#include "base/output.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"


static char *write_to_file(void (*fill)(tl_output *), size_t *len)
{
	char *path = g_build_filename(tmpdir, "out.json", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	fill(o);
	assert_int_equal(tl_output_close(o, &err), 0);
	char *data = NULL;
	gsize n = 0;
	assert_true(g_file_get_contents(path, &data, &n, NULL));
	g_free(path);
	*len = n;
	return data;
}

static void fill_strings(tl_output *o)
{
	tl_output_char(o, '[');
	tl_json_string(o, "plain");
	tl_output_char(o, ',');
	tl_json_string(o, "quote\" back\\ nl\n tab\t ctl\x01");
	tl_output_char(o, ',');
	tl_json_string(o, "bad \xff\xfe utf8 \xc3\xa9 ok \xe2\x82");
	tl_output_char(o, ']');
}

/* Every string comes out as valid JSON that decodes to the same text, with
 * invalid UTF-8 replaced by U+FFFD. */
static void test_escaping(void **state)
{
	(void)state;
	size_t len;
	char *data = write_to_file(fill_strings, &len);
	json_error_t jerr;
	json_t *doc = json_loadb(data, len, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_array_get(doc, 1)),
			    "quote\" back\\ nl\n tab\t ctl\x01");
	assert_string_equal(json_string_value(json_array_get(doc, 2)),
			    "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xc3\xa9 ok \xef\xbf\xbd\xef\xbf\xbd");
	json_decref(doc);
	g_free(data);
}

/* The escaping rules, byte by byte, as the README and RFC 8259 give them:
 * the expectation for the word-at-a-time writer. Only the bytes the test
 * strings hold: printable ASCII, the controls, 0xc3 0xa9 (a valid "e"
 * acute, kept) and 0xff (never valid: U+FFFD). */
static void escape_by_rule(GString *out, const char *s, size_t n, bool script)
{
	g_string_append_c(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			g_string_append_c(out, '\\');
			g_string_append_c(out, (char)c);
		} else if (c == '\n') {
			g_string_append(out, "\\n");
		} else if (c == '\t') {
			g_string_append(out, "\\t");
		} else if (c == '\r') {
			g_string_append(out, "\\r");
		} else if (c < 0x20) {
			g_string_append_printf(out, "\\u%04x", c);
		} else if (c == 0xc3 && i + 1 < n && (unsigned char)s[i + 1] == 0xa9) {
			g_string_append(out, "\xc3\xa9");
			i++;
		} else if (c >= 0x80) {
			g_string_append(out, "\xef\xbf\xbd");
		} else if (script && c == '<' && i + 1 < n && s[i + 1] == '/') {
			g_string_append(out, "<\\");
		} else if (script && c == '<' && i + 1 < n && s[i + 1] == '!') {
			g_string_append(out, "\\u003c");
		} else {
			g_string_append_c(out, (char)c);
		}
	}
	g_string_append_c(out, '"');
}

/* Strings of 0 to 40 bytes with one byte (or pair) that needs care at every
 * place, in plain and script mode, written one after the other into one
 * output (past its buffer, so flushes fall everywhere): the writer checks 8
 * bytes at a time and must find each, at any offset in its word. */
static void test_escaping_every_offset(void **state)
{
	(void)state;
	static const char *const odd[] = {"\"", "\\", "\n", "\t", "\r", "\x01", "\x1f",
					  "\x7f", "\xff", "\xc3\xa9", "<", "</", "<!", "\xc3",
					  "\x80", " ", "~"};
	tl_output *o = tl_output_new_memory();
	GString *want = g_string_new(NULL);
	char buf[64];
	for (int round = 0; round < 8; round++)
		for (size_t len = 0; len <= 40; len++)
			for (size_t at = 0; at <= len; at++)
				for (size_t k = 0; k < G_N_ELEMENTS(odd); k++)
					for (int script = 0; script < 2; script++) {
						size_t m = strlen(odd[k]);
						for (size_t i = 0; i < len; i++)
							buf[i] = (char)('a' + (i + round) % 26);
						memcpy(buf + at, odd[k], m);
						size_t n = len + m;
						if (script)
							tl_json_string_script(o, buf, n);
						else
							tl_json_string_len(o, buf, n);
						escape_by_rule(want, buf, n, script);
					}
	assert_true(want->len > 4 * TL_OUTPUT_BUF);
	GString *got = tl_output_take(o);
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->str, want->str, want->len);
	g_string_free(got, TRUE);
	g_string_free(want, TRUE);
}

/* Integers as printf prints them, at every number of digits and both ends
 * of the range, many enough to cross the buffer's end. */
static void test_integers(void **state)
{
	(void)state;
	tl_output *o = tl_output_new_memory();
	GString *want = g_string_new(NULL);
	for (int round = 0; round < 2000; round++) {
		uint64_t p = 1;
		for (int d = 0; d < 20; d++) {
			uint64_t vals[] = {p - 1, p, p + (uint64_t)round, p * 9 + 8};
			for (size_t k = 0; k < G_N_ELEMENTS(vals); k++) {
				tl_output_uint(o, vals[k]);
				tl_output_char(o, ' ');
				tl_output_int(o, -(int64_t)(vals[k] >> 1));
				tl_output_char(o, ' ');
				g_string_append_printf(want, "%" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " ",
						       (guint64)vals[k], -(gint64)(vals[k] >> 1));
			}
			if (d < 19)
				p *= 10;
		}
		tl_output_uint(o, UINT64_MAX);
		tl_output_int(o, INT64_MIN);
		tl_output_int(o, INT64_MAX);
		g_string_append_printf(want, "%" G_GUINT64_FORMAT "%" G_GINT64_FORMAT
					     "%" G_GINT64_FORMAT,
				       (guint64)UINT64_MAX, (gint64)INT64_MIN, (gint64)INT64_MAX);
	}
	assert_true(want->len > TL_OUTPUT_BUF);
	GString *got = tl_output_take(o);
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->str, want->str, want->len);
	g_string_free(got, TRUE);
	g_string_free(want, TRUE);
}

static void fill_micros(tl_output *o)
{
	tl_json_micros(o, 1234567);
	tl_output_char(o, ' ');
	tl_json_micros(o, 5000);
	tl_output_char(o, ' ');
	tl_json_micros(o, 1700000721094870530LL);
	tl_output_char(o, ' ');
	tl_json_micros(o, -1500);
	tl_output_char(o, ' ');
	tl_json_micros(o, 0);
	tl_output_char(o, ' ');
	tl_json_micros(o, INT64_MIN);
}

/* Nanoseconds print as microseconds without losing digits. */
static void test_micros(void **state)
{
	(void)state;
	size_t len;
	char *data = write_to_file(fill_micros, &len);
	assert_string_equal(data, "1234.567 5 1700000721094870.53 -1.5 0 -9223372036854775.808");
	g_free(data);
}

static void fill_trace(tl_output *o)
{
	tl_chrome w;
	tl_chrome_begin(&w, o);
	tl_chrome_process(&w, 1, "/device:CPU:0", 1);
	tl_chrome_thread(&w, 1, 0, "thread 7", 0);
	tl_chrome_complete(&w, "MatMul", "Op", 1, 0, 1000, 2500);
	tl_chrome_arg_str(&w, "name", "dense/MatMul");
	tl_chrome_arg_int(&w, "iteration", 2);
	tl_chrome_flow(&w, 's', "x", "dataflow", 1, 1, 0, 3499);
	tl_chrome_flow(&w, 'f', "x", "dataflow", 1, 1, 0, 3600);
	tl_chrome_end(&w, "{\"tool\":\"test\"}");
}

/* The writer's document parses and holds what was written. */
static void test_document(void **state)
{
	(void)state;
	size_t len;
	char *data = write_to_file(fill_trace, &len);
	json_error_t jerr;
	json_t *doc = json_loadb(data, len, 0, &jerr);
	assert_non_null(doc);
	json_t *events = json_object_get(doc, "traceEvents");
	assert_int_equal(json_array_size(events), 7);
	json_t *x = json_array_get(events, 4);
	assert_string_equal(json_string_value(json_object_get(x, "ph")), "X");
	assert_true(json_number_value(json_object_get(x, "dur")) == 2.5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "args"),
							    "iteration")), 2);
	json_t *f = json_array_get(events, 6);
	assert_string_equal(json_string_value(json_object_get(f, "bp")), "e");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "otherData"),
							      "tool")), "test");
	json_decref(doc);
	g_free(data);
}

/* -o is atomic: an aborted output leaves the old file as it was and no
 * temporary behind. */
static void test_atomic_abort(void **state)
{
	(void)state;
	char *path = g_build_filename(tmpdir, "keep.json", NULL);
	assert_true(g_file_set_contents(path, "old", 3, NULL));
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	tl_output_str(o, "new content that must not appear");
	tl_output_flush(o);
	tl_output_abort(o);
	char *data = NULL;
	assert_true(g_file_get_contents(path, &data, NULL, NULL));
	assert_string_equal(data, "old");
	g_free(data);
	GDir *dir = g_dir_open(tmpdir, 0, NULL);
	const char *name;
	while ((name = g_dir_read_name(dir)) != NULL)
		assert_false(g_str_has_prefix(name, ".keep.json."));
	g_dir_close(dir);
	g_free(path);
}

/* Writing over an input is refused; /dev/full reports the write error. */
static void test_output_errors(void **state)
{
	(void)state;
	char *path = g_build_filename(tmpdir, "in.pb", NULL);
	assert_true(g_file_set_contents(path, "x", 1, NULL));
	const char *inputs[] = {path};
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, inputs, 1, &err), -1);
	assert_non_null(strstr(err.msg, "also an input"));
	g_free(path);
	/* A write error (here a full device) is reported at close. */
	struct stat st;
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
		assert_int_equal(tl_output_open(&o, "/dev/full", false, NULL, 0, &err), 0);
		tl_output_str(o, "data");
		assert_int_equal(tl_output_close(o, &err), -1);
		assert_string_equal(err.msg, "cannot write '/dev/full': No space left on device");
	}
	/* A pipe nobody reads ends the process by SIGPIPE, quietly, even when
	 * SIGPIPE is ignored (the parent's choice): never an error line. */
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	fflush(NULL);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		signal(SIGPIPE, SIG_IGN);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[1]);
		tl_output *c = NULL;
		if (tl_output_open(&c, "-", false, NULL, 0, NULL) == 0) {
			tl_output_str(c, "data");
			tl_output_close(c, NULL);
		}
		_exit(0);
	}
	close(fds[1]);
	int status = 0;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGPIPE);
}

/* A .gz name compresses. */
static void fill_small(tl_output *o)
{
	tl_output_str(o, "hello");
}

static void test_gzip_by_name(void **state)
{
	(void)state;
	char *path = g_build_filename(tmpdir, "x.json.gz", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	fill_small(o);
	assert_int_equal(tl_output_close(o, &err), 0);
	guchar *data = NULL;
	gsize n = 0;
	assert_true(g_file_get_contents(path, (gchar **)&data, &n, NULL));
	assert_true(n > 10);
	assert_int_equal(data[0], 0x1f);
	assert_int_equal(data[1], 0x8b);
	g_free(data);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),     cmocka_unit_test(test_escaping_every_offset),
		cmocka_unit_test(test_integers),     cmocka_unit_test(test_micros),
		cmocka_unit_test(test_document),     cmocka_unit_test(test_atomic_abort),
		cmocka_unit_test(test_output_errors), cmocka_unit_test(test_gzip_by_name),
	};
	return cmocka_run_group_tests_name("chrome", tests, tmpdir_setup, tmpdir_teardown);
}
