/* Unit tests of emit/run_analyses.c and the three sinks it drives
 * (emit/idle.c, emit/critical_path.c, emit/advise.c): trace-summarize's
 * --idle, --critical-path and --advise on one run written here as
 * RunMetadata text, each read back from its JSON (parsed with jansson) and
 * its text. The run, in us: a (Const) 100-110, b (Neg, reads a) 120-130,
 * c (Neg, reads b) 145-150, all on the CPU. Worked out by hand:
 *   idle: step 50; busy 25, idle 25, 50.00% busy, 2 gaps; the longest
 *         15 us after b before c at +0.030 ms, then 10 us after a before b;
 *   critical path: a, b, c (each one's only predecessor the one before);
 *         gated (from the later of the predecessor's end and its own start,
 *         to its end) 10, 10, 5; waits (predecessor's end to start) 0, 10,
 *         15, so gated and waits add up to the 50 us path; starts 0, 20, 45
 *         from the step's start; shares of the 50 us step 20%, 20%, 10%;
 *   advise: op types by time: Neg 15 us (60.0%), Const 10 us (40.0%).
 * The critical path's Chrome overlay is parsed too: one slice per step on
 * a "Critical path" process, at the executions' own times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/run_analyses.h"

#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"
#include "tmpdir.h"

/* clang-format off */
static const char text[] =
	STEP(DEV(CPU,
		EXEC("a", 100, 10) END
		EXEC("b", 120, 10) END
		EXEC("c", 145, 5) END))
	GRAPH(
		NODE("a", "Const", CPU, "")
		NODE("b", "Neg", CPU, IN("a"))
		NODE("c", "Neg", CPU, IN("b")));
/* clang-format on */

/* The report of `what` by the backend `sink` (and the overlay into
 * `overlay_path` when not NULL), as a string (g_free it). */
static char *report(const tl_run_analyses *what, const char *sink, const char *overlay_path)
{
	tl_run *run = td_run_of_text(text, "r");
	char *path = g_strdup_printf("%s/report.%s", tmpdir, sink);
	tl_output *out = NULL, *ov = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	tl_chrome w;
	if (overlay_path != NULL) {
		assert_int_equal(tl_output_open(&ov, overlay_path, false, NULL, 0, &err), 0);
		tl_chrome_begin(&w, ov);
	}
	assert_int_equal(tl_run_analyses_write(run, what, tl_table_sink_find(sink), out,
					       overlay_path != NULL ? &w : NULL, &err),
			 0);
	if (overlay_path != NULL) {
		tl_chrome_end(&w, NULL);
		assert_int_equal(tl_output_close(ov, &err), 0);
	}
	assert_int_equal(tl_output_close(out, &err), 0);
	tl_run_free(run);
	tl_warn_clear();
	char *s = NULL;
	assert_true(g_file_get_contents(path, &s, NULL, NULL));
	g_free(path);
	return s;
}

static json_t *parse(const char *s)
{
	json_error_t jerr;
	json_t *root = json_loads(s, 0, &jerr);
	if (root == NULL)
		fail_msg("not JSON (%s): %s", jerr.text, s);
	return root;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		fail_msg("no number %s", key);
	return json_number_value(v);
}

static void test_idle_json(void **state)
{
	(void)state;
	tl_run_analyses what = {.idle = true, .top_gaps = 5};
	char *s = report(&what, "json", NULL);
	json_t *root = parse(s);
	json_t *devs = json_object_get(root, "devices");
	assert_int_equal(json_array_size(devs), 1);
	json_t *d = json_array_get(devs, 0);
	assert_string_equal(json_string_value(json_object_get(d, "device")), CPU);
	assert_true(num(d, "busy_us") == 25);
	assert_true(num(d, "idle_us") == 25);
	assert_true(num(d, "busy_pct") == 50);
	assert_true(num(d, "gaps") == 2);
	json_t *gaps = json_object_get(d, "longest");
	assert_int_equal(json_array_size(gaps), 2);
	assert_true(num(json_array_get(gaps, 0), "us") == 15);
	assert_string_equal(json_string_value(json_object_get(json_array_get(gaps, 0), "after")), "b");
	assert_string_equal(json_string_value(json_object_get(json_array_get(gaps, 0), "before")), "c");
	assert_true(num(json_array_get(gaps, 1), "us") == 10);
	assert_string_equal(json_string_value(json_object_get(json_array_get(gaps, 1), "after")), "a");
	json_decref(root);
	g_free(s);
}

static void test_idle_text(void **state)
{
	(void)state;
	tl_run_analyses what = {.idle = true, .top_gaps = 1};
	char *s = report(&what, "text", NULL);
	assert_non_null(strstr(s, "run r: step 0.050 ms\n"));
	assert_non_null(strstr(s, " 50.00%"));
	/* top_gaps 1: the longest gap alone, in ms, at its offset from the start. */
	assert_non_null(strstr(s, "gap     0.015 ms at +0.030 ms: after b (Neg), before c (Neg)"));
	assert_null(strstr(s, "after a (Const)"));
	g_free(s);
}

static void test_critical_path(void **state)
{
	(void)state;
	tl_run_analyses what = {.critical_path = true};
	char *overlay = g_strdup_printf("%s/overlay.json", tmpdir);
	char *s = report(&what, "json", overlay);
	json_t *root = parse(s);
	assert_true(num(root, "path_us") == 50);
	assert_true(num(root, "step_us") == 50);
	json_t *ops = json_object_get(root, "ops");
	assert_int_equal(json_array_size(ops), 3);
	const char *node[] = {"a", "b", "c"};
	const double start[] = {0, 20, 45}, dur[] = {10, 10, 5}, gated[] = {10, 10, 5},
		     wait[] = {0, 10, 15}, share[] = {20, 20, 10};
	for (size_t i = 0; i < 3; i++) {
		json_t *o = json_array_get(ops, i);
		assert_string_equal(json_string_value(json_object_get(o, "node")), node[i]);
		assert_true(num(o, "start_us") == start[i]);
		assert_true(num(o, "dur_us") == dur[i]);
		assert_true(num(o, "gated_us") == gated[i]);
		assert_true(num(o, "wait_us") == wait[i]);
		assert_true(num(o, "share_pct") == share[i]);
	}
	json_decref(root);
	g_free(s);

	char *t = NULL;
	assert_true(g_file_get_contents(overlay, &t, NULL, NULL));
	json_t *trace = parse(t);
	json_t *events = json_object_get(trace, "traceEvents");
	size_t slices = 0;
	bool named = false;
	for (size_t i = 0; i < json_array_size(events); i++) {
		json_t *e = json_array_get(events, i);
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (ph != NULL && strcmp(ph, "X") == 0) {
			/* a slice at its execution's own time (us of the run) and length */
			const char *n = json_string_value(
			    json_object_get(json_object_get(e, "args"), "name"));
			assert_non_null(n);
			size_t k = (size_t)(n[0] - 'a');
			assert_true(k < 3);
			assert_true(num(e, "dur") == dur[k]);
			slices++;
		}
		const char *meta =
		    json_string_value(json_object_get(json_object_get(e, "args"), "name"));
		if (ph != NULL && strcmp(ph, "M") == 0 && meta != NULL &&
		    strcmp(meta, "Critical path") == 0)
			named = true;
	}
	assert_int_equal(slices, 3);
	assert_true(named);
	json_decref(trace);
	g_free(t);
	g_free(overlay);
}

static void test_advise(void **state)
{
	(void)state;
	tl_run_analyses what = {.advise = true};
	char *s = report(&what, "json", NULL);
	json_t *root = parse(s);
	json_t *f = json_object_get(root, "findings");
	const char *first = NULL, *second = NULL;
	for (size_t i = 0; i < json_array_size(f); i++) {
		json_t *o = json_array_get(f, i);
		if (strcmp(json_string_value(json_object_get(o, "checker")),
			   "ExpensiveOperationChecker") != 0)
			continue;
		const char *text_of = json_string_value(json_object_get(o, "finding"));
		if (first == NULL)
			first = text_of;
		else if (second == NULL)
			second = text_of;
	}
	assert_non_null(first);
	assert_non_null(second);
	assert_string_equal(first, "top 1 op type Neg: 0.015 ms, 60.0% of op time");
	assert_string_equal(second, "top 2 op type Const: 0.010 ms, 40.0% of op time");
	json_decref(root);
	g_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_idle_json),
	    cmocka_unit_test(test_idle_text),
	    cmocka_unit_test(test_critical_path),
	    cmocka_unit_test(test_advise),
	};
	return cmocka_run_group_tests_name("emit/run_analyses", tests, tmpdir_setup, tmpdir_teardown);
}
