/* Unit tests of emit/allocreport.c and allocreport_trace.c: the JSON report
 * and the Chrome trace stay valid JSON whatever the op names hold (quotes,
 * control characters, invalid UTF-8), carry the analysis' numbers, and say
 * null for a block allocated before the trace or never freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/allocreport.h"
#include "base/warn.h"

#include <glib.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "tmpdir.h"

static const char nasty[] = "op \"quoted\" \\ \x01\n\xff\xfe end";

static tl_allocs *nasty_allocs(tl_alloc_event *e)
{
	e[0] = (tl_alloc_event){.t_ns = 1500,
				.device = "/device:GPU:0",
				.allocator = "cuda:0",
				.addr = 1,
				.bytes = 100,
				.total_allocated = 300,
				.total_reserved = -1,
				.peak = -1,
				.op = nasty};
	e[1] = (tl_alloc_event){.t_ns = 2500,
				.device = "/device:GPU:0",
				.allocator = "cuda:0",
				.addr = 2,
				.bytes = -50,
				.total_allocated = 250,
				.total_reserved = -1,
				.peak = -1,
				.op = NULL};
	tl_alloc_events in = {.ev = e, .n = 2, .clock = "trace start"};
	return tl_allocs_build(&in, nasty);
}

/* Writes with `fill` into a file of the temporary folder; returns it parsed. */
static json_t *written(const tl_allocs *a, bool trace)
{
	char *path = g_build_filename(tmpdir, "out.json", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	if (trace) {
		tl_chrome w;
		int64_t pid = 1;
		uint64_t id = 1;
		tl_allocreport_op op = {0, 3000, nasty, nasty};
		tl_chrome_begin(&w, o);
		tl_allocreport_trace(&w, a, &op, 1, &pid, &id);
		tl_chrome_end(&w, NULL);
	} else {
		tl_allocreport r;
		tl_allocreport_begin(&r, o, "json", SIZE_MAX);
		tl_allocreport_run(&r, a);
		tl_allocreport_end(&r);
	}
	assert_int_equal(tl_output_close(o, &err), 0);
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	if (doc == NULL)
		fail_msg("invalid JSON: %s at %d", jerr.text, jerr.position);
	g_free(path);
	return doc;
}

static void test_json_report(void **state)
{
	tl_alloc_event e[2];
	tl_allocs *a = nasty_allocs(e);
	json_t *doc = written(a, false);
	json_t *al = json_array_get(
	    json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "allocators"), 0);
	assert_int_equal(json_integer_value(json_object_get(al, "peak_bytes")), 300);
	assert_string_equal(json_string_value(json_object_get(al, "peak_from")), "total_allocated");
	assert_true(json_is_null(json_object_get(al, "peak_reserved_bytes")));
	assert_true(fabs(json_number_value(json_object_get(al, "peak_us")) - 1.5) < 1e-9);
	json_t *live = json_object_get(al, "live_at_peak");
	assert_int_equal(json_array_size(live), 2); /* its own block, and the one freed at 2.5 us */
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(live, 0), "allocated_bytes")), 100);
	json_t *b1 = json_array_get(live, 1);
	assert_true(json_is_null(json_object_get(b1, "alloc_us")));
	assert_true(fabs(json_number_value(json_object_get(b1, "free_us")) - 2.5) < 1e-9);
	json_t *b0 = json_array_get(live, 0);
	assert_true(json_is_null(json_object_get(b0, "free_us")));
	assert_non_null(strstr(json_string_value(json_object_get(b0, "op")), "\"quoted\""));
	json_decref(doc);
	tl_allocs_free(a);
	tl_warn_clear();
}

static void test_trace(void **state)
{
	tl_alloc_event e[2];
	tl_allocs *a = nasty_allocs(e);
	json_t *doc = written(a, true);
	size_t counters = 0, begins = 0, ends = 0, slices = 0, i;
	json_t *ev;
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev)
	{
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		counters += strcmp(ph, "C") == 0;
		begins += strcmp(ph, "b") == 0;
		ends += strcmp(ph, "e") == 0;
		slices += strcmp(ph, "X") == 0;
	}
	assert_int_equal(counters, 2);
	assert_int_equal(begins, 2);
	assert_int_equal(ends, 2);
	assert_int_equal(slices, 1);
	json_decref(doc);
	tl_allocs_free(a);
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_report),
	    cmocka_unit_test(test_trace),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
