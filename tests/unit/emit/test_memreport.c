/* Unit tests of emit/memreport.c, memreport_json.c and memtrace.c on the
 * view of allocator events: the JSON report and the Chrome trace stay
 * valid JSON whatever the op names hold (quotes, control characters,
 * invalid UTF-8), carry the analysis' numbers and the contract's band keys
 * (zero width: the events are exact), and say null for a block allocated
 * before the trace or never freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/memview.h"
#include "emit/memreport.h"
#include "emit/memtrace.h"
#include "emit/svgplot.h"
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
		tl_memtrace_op op = {0, 3000, nasty, nasty};
		tl_memtrace_opts mo = {0};
		tl_chrome_begin(&w, o);
		tl_memview *v = tl_memview_from_allocs(a);
		tl_memtrace_write(&w, v, &mo, NULL, &pid, &id);
		tl_memtrace_ops(&w, &op, 1, &pid);
		tl_memview_free(v);
		tl_chrome_end(&w, NULL);
	} else {
		tl_memreport r;
		tl_memreport_opts ro = {.format = "json", .top = SIZE_MAX, .buffers = true};
		tl_memreport_begin(&r, o, &ro);
		tl_memview *v = tl_memview_from_allocs(a);
		tl_memreport_run(&r, v);
		tl_memview_free(v);
		tl_memreport_end(&r);
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
	assert_string_equal(json_string_value(json_object_get(b0, "tensor")), "0x1");
	assert_int_equal(json_integer_value(json_object_get(b0, "addr")), 1);
	/* the contract's keys: the band is the curve, the peak exact */
	json_t *curve = json_object_get(al, "curve"), *band = json_object_get(al, "band");
	assert_int_equal(json_array_size(band), json_array_size(curve));
	assert_int_equal(json_array_size(curve), 2);
	for (size_t k = 0; k < json_array_size(band); k++) {
		json_t *c = json_array_get(curve, k), *b = json_array_get(band, k);
		assert_int_equal(json_array_size(b), 3);
		assert_true(json_equal(json_array_get(b, 0), json_array_get(c, 0)));
		assert_true(json_equal(json_array_get(b, 1), json_array_get(c, 1)));
		assert_true(json_equal(json_array_get(b, 2), json_array_get(c, 1)));
	}
	/* the curve: the first total less its Bytes (200) before, +100 at
	 * 1.5 us, -50 at 2.5 us */
	assert_int_equal(json_integer_value(json_array_get(json_array_get(curve, 0), 1)), 300);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(curve, 1), 1)), 250);
	json_t *range = json_object_get(al, "peak_range");
	assert_int_equal(json_integer_value(json_array_get(range, 0)), 300);
	assert_int_equal(json_integer_value(json_array_get(range, 1)), 300);
	assert_int_equal(json_array_size(json_object_get(al, "unattributed")), 0);
	assert_int_equal(json_array_size(json_object_get(
			     json_array_get(json_object_get(doc, "runs"), 0), "buffers")),
			 2);
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

/* The whole of a file as a string (g_free). */
static char *slurp(const char *path)
{
	char *text = NULL;
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	return text;
}

/* What the view gives, written by `what` (0: text, 1: json, 2: csv
 * --curve, 3: svg) into a file; returns its text. */
static char *write_view(const tl_memview *v, int what)
{
	char *path = g_build_filename(tmpdir, "out.txt", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	if (what == 3) {
		tl_svgplot_memory(&v, 1, o);
	} else {
		static const char *const formats[] = {"text", "json", "csv"};
		tl_memreport r;
		tl_memreport_opts ro = {.format = formats[what], .top = SIZE_MAX, .curve = what == 2};
		tl_memreport_begin(&r, o, &ro);
		tl_memreport_run(&r, v);
		tl_memreport_end(&r);
	}
	assert_int_equal(tl_output_close(o, &err), 0);
	char *text = slurp(path);
	g_free(path);
	return text;
}

/* A band with width (as the RunMetadata analysis will give where the dump
 * is silent) reaches every writer: the text line with its widest point,
 * time-weighted share and the peak's range; the JSON points; the CSV rows
 * beside the curve; a shaded area in the plot. The band is set here by
 * hand on the view of the events above: curve 300 at 1.5 us, 250 at 2.5
 * us; band [250, 400] then [250, 250]. */
static void test_wide_band(void **state)
{
	tl_alloc_event e[2];
	tl_allocs *a = nasty_allocs(e);
	tl_memview *v = tl_memview_from_allocs(a);
	tl_memview_allocator *al = &v->allocators[0];
	al->band = g_new(tl_memview_band_point, 2);
	al->band[0] = (tl_memview_band_point){1500, 250, 400};
	al->band[1] = (tl_memview_band_point){2500, 250, 250};
	al->n_band = 2;
	al->peak_low = 300;
	al->peak_high = 400;
	assert_true(tl_memview_band_wide(v, al));
	char *text = write_view(v, 0);
	/* widest 150 B; 150 B for 1 us of the 1 us span (from the first band point to the
	 * last event): 50% of the 300 B peak */
	assert_non_null(strstr(text, "\n  band: up to 150B wide, 50.00% of the peak time-weighted; "
				     "peak between 300B and 400B\n"));
	g_free(text);
	text = write_view(v, 1);
	assert_non_null(strstr(text, "\"band\":[[1.5,250,400],[2.5,250,250]],\"peak_range\":[300,400]"));
	g_free(text);
	text = write_view(v, 2);
	assert_non_null(strstr(text, "run,allocator,t_us,low,curve,high\n"));
	assert_non_null(strstr(text, ",cuda:0,1.5,250,300,400\n"));
	assert_non_null(strstr(text, ",cuda:0,2.5,250,250,250\n"));
	g_free(text);
	text = write_view(v, 3);
	assert_non_null(strstr(text, "<path fill=\"#999\""));
	g_free(text);
	tl_memview_free(v);
	tl_allocs_free(a);
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_report),
	    cmocka_unit_test(test_trace),
	    cmocka_unit_test(test_wide_band),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
