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
		cmocka_unit_test(test_escaping),     cmocka_unit_test(test_micros),
		cmocka_unit_test(test_document),     cmocka_unit_test(test_atomic_abort),
		cmocka_unit_test(test_output_errors), cmocka_unit_test(test_gzip_by_name),
	};
	return cmocka_run_group_tests_name("chrome", tests, tmpdir_setup, tmpdir_teardown);
}
