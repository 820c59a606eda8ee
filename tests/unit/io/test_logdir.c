/* Unit tests for logdir.c: a folder given as an input, its events files in
 * path order every level down, and the line that describes a folder with
 * nothing to read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/logdir.h"
#include "tmpdir.h"

#include <string.h>
#include <unistd.h>

static char *make_file(const char *rel, const char *content)
{
	char *path = g_build_filename(tmpdir, rel, NULL);
	char *dir = g_path_get_dirname(path);
	g_mkdir_with_parents(dir, 0700);
	g_free(dir);
	if (!g_file_set_contents(path, content, -1, NULL))
		fail_msg("cannot write '%s'", path);
	return path;
}

static char *sub(const char *rel)
{
	return g_build_filename(tmpdir, rel, NULL);
}

/* Proves: events files (and the profile plugin's XSpaces) are found at every depth, in byte order of their
 * paths (not the order the folder lists them), other files and links to
 * folders are left out, and a name that only starts like one is not one. */
static void test_events_sorted(void **state)
{
	(void)state;
	g_free(make_file("logs/train/events.out.tfevents.2.host", "x"));
	g_free(make_file("logs/train/events.out.tfevents.1.host", "x"));
	g_free(make_file("logs/eval/events.out.tfevents.3.host", "x"));
	g_free(make_file("logs/events.out.tfevents.0.host", "x"));
	g_free(make_file("logs/eval/plugins/profile/2020/h.xplane.pb", "x"));
	g_free(make_file("logs/events.out.tfevents.", "x"));
	char *eval = sub("logs/eval");
	char *link = sub("logs/zz-loop");
	assert_int_equal(symlink(eval, link), 0); /* a loop if followed */
	char *logs = sub("logs");
	GPtrArray *files = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_logdir_events(logs, &files, &err), 0);
	const char *want[] = {
	    "logs/eval/events.out.tfevents.3.host", "logs/eval/plugins/profile/2020/h.xplane.pb",
	    "logs/events.out.tfevents.0.host",
	    "logs/train/events.out.tfevents.1.host", "logs/train/events.out.tfevents.2.host"};
	assert_int_equal(files->len, G_N_ELEMENTS(want));
	for (guint i = 0; i < files->len; i++) {
		char *p = sub(want[i]);
		assert_string_equal(g_ptr_array_index(files, i), p);
		g_free(p);
	}
	g_ptr_array_free(files, TRUE);
	assert_true(tl_logdir_is_folder(logs));
	assert_false(tl_logdir_is_folder("-"));
	assert_true(tl_logdir_is_events_name("events.out.tfevents.1.h"));
	assert_false(tl_logdir_is_events_name("events.out.tfevents."));
	assert_false(tl_logdir_is_events_name("x.events.out.tfevents.1"));
	g_free(logs);
	g_free(link);
	g_free(eval);
}

/* Proves: a folder without events files says what it holds, by kind, and
 * what to pass instead; an empty one says so. */
static void test_describe(void **state)
{
	(void)state;
	g_free(make_file("prof/a/h.trace.json.gz", "x"));
	g_free(make_file("prof/run.pb", "x"));
	g_free(make_file("prof/notes.txt", "x"));
	char *prof = sub("prof");
	GPtrArray *files = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_logdir_events(prof, &files, &err), -1);
	assert_null(files);
	assert_string_equal(err.msg,
			    "a folder with no TensorBoard events files (events.out.tfevents.*) "
			    "below it; it holds 1 *.trace.json (profiler trace JSON, which trace-merge and "
			    "trace-summarize read), 1 *.pb or *.pbtxt (protobuf) and 1 other file; "
			    "pass the files, not the folder");
	g_free(prof);

	/* a .trace is read where its run folder holds no XSpace, as
	 * TensorBoard's profile plugin reads it; beside one, it is left out */
	g_free(make_file("tr/plugins/profile/r1/h.trace", "x"));
	g_free(make_file("tr/plugins/profile/r2/h.trace", "x"));
	g_free(make_file("tr/plugins/profile/r2/h.xplane.pb", "x"));
	g_free(make_file("tr/plugins/profile/r2/sub/g.trace", "x"));
	char *tr = sub("tr");
	assert_int_equal(tl_logdir_events(tr, &files, &err), 0);
	assert_int_equal(files->len, 3);
	assert_true(g_str_has_suffix(g_ptr_array_index(files, 0), "/r1/h.trace"));
	assert_true(g_str_has_suffix(g_ptr_array_index(files, 1), "/r2/h.xplane.pb"));
	assert_true(g_str_has_suffix(g_ptr_array_index(files, 2), "/r2/sub/g.trace"));
	g_ptr_array_free(files, TRUE);
	g_free(tr);

	/* an XSpace alone is a run to read */
	g_free(make_file("xonly/h.xplane.pb", "x"));
	char *xonly = sub("xonly");
	assert_int_equal(tl_logdir_events(xonly, &files, &err), 0);
	assert_int_equal(files->len, 1);
	g_ptr_array_free(files, TRUE);
	g_free(xonly);

	char *empty = sub("empty/deeper");
	g_mkdir_with_parents(empty, 0700);
	g_free(empty);
	empty = sub("empty");
	assert_int_equal(tl_logdir_events(empty, &files, &err), -1);
	assert_string_equal(err.msg,
			    "a folder with no TensorBoard events files (events.out.tfevents.*) "
			    "below it, nor any other file; tftrace reads RunMetadata, their "
			    "TFRecord streams, events files and Chrome trace JSON");
	g_free(empty);
}

/* Proves: the no-run message counts the events files and names the rest. */
static void test_no_runs(void **state)
{
	(void)state;
	g_free(make_file("scalars/events.out.tfevents.1", "x"));
	g_free(make_file("scalars/p/h.trace", "x"));
	char *dir = sub("scalars");
	tl_error err = {{0}};
	assert_int_equal(tl_logdir_no_runs(dir, 1, &err), -1);
	assert_string_equal(err.msg, "a TensorBoard log folder whose 1 events file holds no run "
				     "metadata (tagged_run_metadata, what "
				     "FileWriter.add_run_metadata writes); it also holds 1 *.trace "
				     "(TF 2.0 profiler traces)");
	assert_int_equal(tl_logdir_no_runs(dir, 3, &err), -1);
	assert_non_null(strstr(err.msg, "whose 3 events files hold no run metadata"));
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_events_sorted),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_no_runs),
	};
	return cmocka_run_group_tests_name("logdir", tests, tmpdir_setup, tmpdir_teardown);
}
