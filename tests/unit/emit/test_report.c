/* Unit tests of emit/report_page.c and report_run_data.c, trace-report's page: the
 * JSON strings safe in a script element (exact bytes, and jansson reads
 * back the same string); the table sink (columns, units, its first rows
 * and rows_total); and the page of a hand-built two-device run with a
 * transfer: the markers replaced, the data parsed back with jansson, rows
 * in trace-dataflow's order, slices sorted by row then start, the arrows
 * (data and transfer) between the right slices, the memory curve and its
 * peak, the tables, the graph's SVG with no namespace URL; the runs whose
 * timeline is made when their walls are told ahead, told right and wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/json.h"
#include "emit/report_internal.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"
#include "tmpdir.h"

/* What a writer put into a fresh output file, as a string (g_free). */
typedef void (*writer)(tl_output *out, void *ctx);

static char *written(writer fn, void *ctx)
{
	char *path = g_build_filename(tmpdir, "out", NULL);
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	fn(out, ctx);
	assert_int_equal(tl_output_close(out, &err), 0);
	char *text = NULL;
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_unlink(path);
	g_free(path);
	return text;
}

static void write_script_string(tl_output *out, void *ctx)
{
	tl_report_string(out, ctx);
}

static void test_script_strings(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"a</script>b", "\"a<\\/script>b\""},
	    {"<!-- x -->", "\"\\u003c!-- x -->\""},
	    {"<b>1 < 2</b>", "\"<b>1 < 2<\\/b>\""},
	    {"end<", "\"end<\""},
	    {"</", "\"<\\/\""},
	    {"q\"\\\n", "\"q\\\"\\\\\\n\""},
	    {"", "\"\""},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *text = written(write_script_string, (void *)cases[i].in);
		assert_string_equal(text, cases[i].out);
		assert_null(strstr(text, "</"));
		json_error_t jerr;
		json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);
		assert_non_null(v);
		assert_string_equal(json_string_value(v), cases[i].in);
		json_decref(v);
		g_free(text);
	}
}

/* Three rows through the sink keeping two. */
static void write_three_rows(tl_output *out, void *ctx)
{
	static const tl_table_col cols[] = {
	    {"name", "name", TL_CELL_STR, NULL, NULL},
	    {"total_micros", "t", TL_CELL_AUTO, NULL, NULL},
	    {NULL, NULL, TL_CELL_NUM, NULL, "%6.2f"},
	    {"peak_bytes", "p", TL_CELL_AUTO, NULL, NULL},
	    {"delta", "d", TL_CELL_AUTO, NULL, NULL},
	    {"occurrence", "o", TL_CELL_AUTO, NULL, NULL},
	};
	static const tl_table_spec spec = {cols, G_N_ELEMENTS(cols), NULL};
	static const tl_cell rows[3][6] = {
	    {{"a</b", 0}, {NULL, 1.5}, {NULL, 9}, {NULL, 1024}, {NULL, -2}, {NULL, 3}},
	    {{"b", 0}, {NULL, 1}, {NULL, 9}, {NULL, 0}, {NULL, 0}, {NULL, 1}},
	    {{"c", 0}, {NULL, 0.25}, {NULL, 9}, {NULL, 0}, {NULL, 0}, {NULL, 1}},
	};
	tl_report_sink sink;
	tl_report_sink_init(&sink, 2);
	tl_table t;
	tl_table_begin(&t, &sink.sink, out, &spec, NULL, NULL, NULL, NULL);
	for (int i = 0; i < 3; i++)
		tl_table_row(&t, rows[i]);
	tl_table_end(&t);
}

static void test_table_sink(void **state)
{
	char *text = written(write_three_rows, NULL);
	assert_string_equal(
	    text,
	    "{\"columns\":[\"name\",\"total_micros\",\"peak_bytes\",\"delta\",\"occurrence\"],"
	    "\"units\":[\"\",\"us\",\"bytes\",\"bytes\",\"\"],\"rows\":[\n"
	    "[\"a<\\/b\",1.500,1024,-2,3],\n"
	    "[\"b\",1,0,0,1]],\"rows_total\":3}");
	g_free(text);
}

/* A CPU feeding a GPU through a _Send/_Recv pair: a -> send => recv -> b. */
/* clang-format off */
static const char two_devices[] =
    STEP(DEV(CPU, SOURCE(100) EXEC("a", 110, 10) OUT(0, "cpu", 1024, 1) MEM("cpu", 1024, "") END
		      EXEC("send", 125, 5) END)
	     DEV(GPU, EXEC("recv", 131, 4) OUT(0, "gpu", 512, 7) END
			  EXEC("b", 140, 20) OUT(0, "gpu", 256, 8) END))
	GRAPH(NODE("a", "Const", CPU, "") NODE("send", "_Send", CPU, IN("a") XFER("t", CPU, GPU)))
	    GRAPH(NODE("recv", "_Recv", GPU, XFER("t", CPU, GPU)) NODE("b", "Neg", GPU, IN("recv")));
/* clang-format on */

static void write_page(tl_output *out, void *ctx)
{
	tl_run *run = ctx;
	tl_report_opts o;
	tl_report_opts_init(&o);
	o.generator = "test";
	static const char *const inputs[] = {"two.pbtxt"};
	o.inputs = inputs;
	o.n_inputs = 1;
	tl_error err = {{0}};
	tl_run *const runs[] = {run};
	assert_int_equal(tl_report_write(out, runs, 1, &o, &err), 0);
}

/* The JSON of the page's script element of that id. */
static json_t *page_json(const char *page, const char *id)
{
	char *open = g_strdup_printf("<script type=\"application/json\" id=\"%s\">", id);
	const char *at = strstr(page, open);
	assert_non_null(at);
	at += strlen(open);
	g_free(open);
	const char *end = strstr(at, "</script>");
	assert_non_null(end);
	json_error_t jerr;
	json_t *d = json_loadb(at, (size_t)(end - at), 0, &jerr);
	if (d == NULL)
		fail_msg("%s: %s at %d", id, jerr.text, jerr.position);
	return d;
}

static json_t *page_data(const char *page)
{
	return page_json(page, "tftrace-data");
}

/* The name of slice i of run r (its node's string). */
static const char *node_of(json_t *r, size_t i)
{
	json_t *node = json_object_get(json_object_get(r, "slices"), "node");
	size_t k = (size_t)json_integer_value(json_array_get(node, i));
	return json_string_value(json_array_get(json_object_get(r, "strings"), k));
}

static void test_page(void **state)
{
	tl_run *run = td_run_of_text(two_devices, "two.pbtxt");
	char *page = written(write_page, run);
	assert_null(strstr(page, "<!--tftrace:"));
	assert_null(strstr(page, "http:"));
	assert_non_null(strstr(page, "\ntftrace report: two.pbtxt\n"));
	json_t *d = page_data(page);
	assert_string_equal(json_string_value(json_object_get(d, "format")), "tftrace-report/1");
	assert_true(json_is_null(json_object_get(d, "diff")));
	json_t *r = json_array_get(json_object_get(d, "runs"), 0);
	/* rows: the CPU executor's one thread, then the GPU's */
	json_t *rows = json_object_get(r, "rows");
	assert_int_equal(json_array_size(rows), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "device")),
			    CPU);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 1), "kind")),
			    "executor");
	/* slices by row then start: _SOURCE a send | recv b */
	json_t *sl = json_object_get(r, "slices");
	const char *order[] = {"_SOURCE", "a", "send", "recv", "b"};
	assert_int_equal(json_array_size(json_object_get(sl, "row")), 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(node_of(r, i), order[i]);
	assert_int_equal(json_number_value(json_array_get(json_object_get(sl, "start"), 1)), 10);
	assert_int_equal(json_number_value(json_array_get(json_object_get(sl, "dur"), 4)), 20);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(sl, "bytes"), 1)), 1024);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(sl, "row"), 3)), 1);
	/* arrows: a -> send (data), send -> recv (transfer), recv -> b (data) */
	json_t *ar = json_object_get(r, "arrows");
	size_t n = json_array_size(json_object_get(ar, "from"));
	int seen = 0;
	for (size_t k = 0; k < n; k++) {
		size_t from =
		    (size_t)json_integer_value(json_array_get(json_object_get(ar, "from"), k));
		size_t to =
		    (size_t)json_integer_value(json_array_get(json_object_get(ar, "to"), k));
		json_int_t kind =
		    json_integer_value(json_array_get(json_object_get(ar, "kind"), k));
		if (from == 1 && to == 2 && kind == 0)
			seen |= 1;
		if (from == 2 && to == 3 && kind == 1)
			seen |= 2;
		if (from == 3 && to == 4 && kind == 0)
			seen |= 4;
	}
	assert_int_equal(seen, 7);
	/* memory: a curve per allocator, the cpu one peaking at a's 1024 bytes */
	json_t *mem = json_object_get(r, "memory");
	assert_int_equal(json_array_size(mem), 2);
	json_t *cpu = json_array_get(mem, 0);
	assert_string_equal(json_string_value(json_object_get(cpu, "allocator")), "cpu");
	assert_int_equal(json_integer_value(json_object_get(cpu, "peak_bytes")), 1024);
	assert_int_equal(json_integer_value(json_object_get(cpu, "reported_peak_bytes")), 1024);
	json_t *live = json_array_get(json_object_get(cpu, "live"), 0);
	assert_string_equal(json_string_value(json_object_get(live, "tensor")), "a:0");
	assert_int_equal(json_integer_value(json_object_get(live, "producer")), 1);
	/* tables, critical path, idle, graph */
	json_t *op = json_object_get(json_object_get(r, "tables"), "op");
	assert_string_equal(json_string_value(json_array_get(json_object_get(op, "columns"), 0)),
			    "name");
	assert_int_equal(json_integer_value(json_object_get(op, "rows_total")), 5);
	assert_true(json_is_null(json_object_get(json_object_get(r, "tables"), "kernel")));
	json_t *cp = json_object_get(json_object_get(r, "critical_path"), "slices");
	assert_int_equal(json_integer_value(json_array_get(cp, json_array_size(cp) - 1)), 4);
	assert_int_equal(json_array_size(json_object_get(r, "idle")), 2);
	const char *svg = json_string_value(json_object_get(json_object_get(r, "graph"), "svg"));
	assert_non_null(svg);
	assert_true(g_str_has_prefix(svg, "<svg"));
	assert_non_null(strstr(svg, "<title>b</title>"));
	json_decref(d);
	g_free(page);
	tl_run_free(run);
}

/* A page of three runs of equal wall told their walls ahead
 * (tl_report_expect). Told right (any walls whose order gives the same
 * picks), runs 1 (the median) and 2 (the slowest) carry their timeline and
 * nothing is said. Told wrong ({5, 0, 0} picks 2 and 0), run 1's timeline
 * was never made: the page still holds run 2's, shows run 1 as the others
 * and says so once. */
struct ahead_page {
	tl_run *run;
	int64_t walls[3];
};

static void write_ahead_page(tl_output *out, void *ctx)
{
	const struct ahead_page *a = ctx;
	tl_report_opts o;
	tl_report_opts_init(&o);
	o.generator = "test";
	o.graph = false;
	tl_report *r = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_report_new(&r, &o, &err), 0);
	tl_report_expect(r, a->walls, 3);
	for (int k = 0; k < 3; k++)
		assert_int_equal(tl_report_add(r, a->run, &err), 0);
	assert_int_equal(tl_report_finish(r, out, &err), 0);
	tl_report_free(r);
}

/* Which runs of a page carry a timeline, as bits. */
static unsigned timelines(const char *page)
{
	json_t *d = page_data(page);
	json_t *runs = json_object_get(d, "runs");
	unsigned bits = 0;
	for (size_t k = 0; k < json_array_size(runs); k++)
		if (json_object_get(json_array_get(runs, k), "slices") != NULL)
			bits |= 1u << k;
	json_decref(d);
	json_t *steps = page_json(page, "tftrace-steps");
	assert_int_equal(json_integer_value(json_object_get(steps, "median")), 1);
	assert_int_equal(json_integer_value(json_object_get(steps, "slowest")), 2);
	json_decref(steps);
	return bits;
}

static void test_ahead(void **state)
{
	struct ahead_page a = {.run = td_run_of_text(two_devices, "two.pbtxt"), .walls = {0, 0, 5}};
	tl_warn_clear();
	char *page = written(write_ahead_page, &a);
	assert_int_equal(timelines(page), 6);
	assert_int_equal(tl_warn_count("report-ahead"), 0);
	g_free(page);
	a.walls[0] = 5;
	a.walls[2] = 0;
	page = written(write_ahead_page, &a);
	assert_int_equal(timelines(page), 4);
	assert_int_equal(tl_warn_count("report-ahead"), 1);
	g_free(page);
	tl_warn_clear();
	tl_run_free(a.run);
}

/* --runs: numbers, ranges and words into picks; a list with an empty item,
 * a sign, a reversed range or another word is refused. */
static void test_picks(void **state)
{
	tl_report_pick *p = NULL;
	size_t n = 0;
	assert_int_equal(tl_report_picks_parse("3,7-9,median,slowest,0", &p, &n), 0);
	assert_int_equal(n, 5);
	assert_true(p[0].from == 3 && p[0].to == 3);
	assert_true(p[1].from == 7 && p[1].to == 9);
	assert_true(p[2].from == TL_REPORT_MEDIAN && p[2].to == TL_REPORT_MEDIAN);
	assert_true(p[3].from == TL_REPORT_SLOWEST && p[3].to == TL_REPORT_SLOWEST);
	assert_true(p[4].from == 0 && p[4].to == 0);
	g_free(p);
	static const char *const bad[] = {
	    "", ",", "1,", "-1", "+1", "2-1", "1-", "x", "1 ", "9-x", "99999999999999999999"};
	for (size_t k = 0; k < G_N_ELEMENTS(bad); k++) {
		p = NULL;
		assert_int_equal(tl_report_picks_parse(bad[k], &p, &n), -1);
		assert_null(p);
	}
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_script_strings),
	    cmocka_unit_test(test_table_sink),
	    cmocka_unit_test(test_page),
	    cmocka_unit_test(test_picks),
	    cmocka_unit_test(test_ahead),
	};
	return cmocka_run_group_tests_name("report", tests, tmpdir_setup, tmpdir_teardown);
}
