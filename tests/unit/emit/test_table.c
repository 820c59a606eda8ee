/* Unit tests of emit/table.c, the table sink: one small table (a meta,
 * string, number and auto cells, a data-only and a text-only column,
 * sub-rows) written by each backend to a file, and the exact bytes each
 * writes: text as the columns' formats after the heading, sub-rows under
 * their row; CSV a header and a line per row, sub-rows left out, a field
 * holding a comma, a quote and a newline quoted as RFC 4180 wants; JSON
 * the meta fields, then the rows with their sub-rows nested, parsed back
 * with jansson. Then an empty table in each backend, and the backends by
 * name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/table.h"

#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "tmpdir.h"

/* name: everywhere; micros: data only (2 decimals); time: text only, the
 * human string of the micros; count: auto in data, one decimal in text. */
static const tl_table_col cols[] = {
    {"name", "name", TL_CELL_STR, NULL, "%-8s"},
    {"micros", "micros", TL_CELL_NUM, "%.2f", NULL},
    {NULL, NULL, TL_CELL_NUM, NULL, "%9s"},
    {"count", "count", TL_CELL_AUTO, NULL, "%6.1f"},
};
static const tl_table_spec spec = {cols, G_N_ELEMENTS(cols), NULL};

/* A gap under a row: where (a number) and what follows (a string). CSV
 * never shows them. */
static const tl_table_col sub_cols[] = {
    {"begin", "begin", TL_CELL_NUM, "%.0f", "    gap at %.0f"},
    {NULL, "after", TL_CELL_STR, NULL, " before %s"},
};
static const tl_table_spec sub_spec = {sub_cols, G_N_ELEMENTS(sub_cols), "gaps"};

/* JSON fields before the rows; the first has no JSON key and is left out. */
static const tl_table_col meta_cols[] = {
    {"m", NULL, TL_CELL_STR, NULL, NULL},
    {NULL, "tool", TL_CELL_STR, NULL, NULL},
    {NULL, "span", TL_CELL_NUM, "%.2f", NULL},
};
static const tl_table_spec meta_spec = {meta_cols, G_N_ELEMENTS(meta_cols), NULL};

static const char head[] = "name         time  count\n";

/* The table: three rows, the first with two gaps, the second none, the
 * third one whose string cell is NULL (written as ""). */
static void write_table(tl_output *out, const tl_table_sink *sink)
{
	static const tl_cell meta[] = {{"hidden", 0}, {"unit", 0}, {NULL, 12.5}};
	static const tl_cell r1[] = {{"plain", 0}, {NULL, 1500.5}, {"1.50ms", 1500.5}, {NULL, 3}};
	static const tl_cell r2[] = {{"a,b \"q\"\nz", 0}, {NULL, 2}, {"2us", 2}, {NULL, 2.5}};
	static const tl_cell r3[] = {{"x", 0}, {NULL, 0.25}, {"0.25us", 0.25}, {NULL, -4}};
	static const tl_cell g1[] = {{NULL, 10}, {"b", 0}};
	static const tl_cell g2[] = {{NULL, 20}, {"c", 0}};
	static const tl_cell g3[] = {{NULL, 1}, {NULL, 0}};
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, &sub_spec, &meta_spec, meta, head);
	tl_table_row(&t, r1);
	tl_table_sub_row(&t, g1);
	tl_table_sub_row(&t, g2);
	tl_table_row(&t, r2);
	tl_table_row(&t, r3);
	tl_table_sub_row(&t, g3);
	assert_int_equal(t.rows, 3);
	assert_int_equal(t.sub_rows, 1);
	tl_table_end(&t);
}

/* No rows, no meta, no sub-rows; rows under "items" in JSON. */
static void write_empty(tl_output *out, const tl_table_sink *sink)
{
	static const tl_table_spec items = {cols, G_N_ELEMENTS(cols), "items"};
	tl_table t;
	tl_table_begin(&t, sink, out, &items, NULL, NULL, NULL, head);
	tl_table_end(&t);
}

/* What `fill` writes with the backend `name`, through a file. */
static char *written(const char *name, void (*fill)(tl_output *, const tl_table_sink *))
{
	const tl_table_sink *sink = tl_table_sink_find(name);
	assert_non_null(sink);
	char *path = g_build_filename(tmpdir, "table.out", NULL);
	tl_output *o = NULL;
	tl_error err;
	assert_int_equal(tl_output_open(&o, path, false, NULL, 0, &err), 0);
	fill(o, sink);
	assert_int_equal(tl_output_close(o, &err), 0);
	char *data = NULL;
	assert_true(g_file_get_contents(path, &data, NULL, NULL));
	g_free(path);
	return data;
}

/* Text: the heading, then per row "%-8s" of the name ("plain" padded to
 * 8; the long name as is, its newline included), "%9s" of the human time,
 * "%6.1f" of the count; the micros column is not shown. Each gap under its
 * row as "    gap at %.0f before %s" (a NULL string as ""). */
static void test_text(void **state)
{
	(void)state;
	char *data = written("text", write_table);
	assert_string_equal(data, "name         time  count\n"
				  "plain      1.50ms   3.0\n"
				  "    gap at 10 before b\n"
				  "    gap at 20 before c\n"
				  "a,b \"q\"\nz      2us   2.5\n"
				  "x          0.25us  -4.0\n"
				  "    gap at 1 before \n");
	g_free(data);
}

/* CSV: the header of the CSV names (time has none), the micros with two
 * decimals, the count as auto (3 and -4 integral, 2.5 with three
 * decimals); the name with a comma, quotes and a newline in quotes, its
 * quotes doubled; no gaps. */
static void test_csv(void **state)
{
	(void)state;
	char *data = written("csv", write_table);
	assert_string_equal(data, "name,micros,count\n"
				  "plain,1500.50,3\n"
				  "\"a,b \"\"q\"\"\nz\",2.00,2.500\n"
				  "x,0.25,-4\n");
	g_free(data);
}

/* JSON: the meta's JSON fields (not "m"), the rows under "rows" (the
 * spec names none), one per line, each with its gaps under "gaps" ([]
 * for none); the name escaped. */
static void test_json(void **state)
{
	(void)state;
	char *data = written("json", write_table);
	assert_string_equal(
	    data, "{\"tool\":\"unit\",\"span\":12.50,\"rows\":[\n"
		  "{\"name\":\"plain\",\"micros\":1500.50,\"count\":3,"
		  "\"gaps\":[{\"begin\":10,\"after\":\"b\"},{\"begin\":20,\"after\":\"c\"}]},\n"
		  "{\"name\":\"a,b \\\"q\\\"\\nz\",\"micros\":2.00,\"count\":2.500,\"gaps\":[]},\n"
		  "{\"name\":\"x\",\"micros\":0.25,\"count\":-4,"
		  "\"gaps\":[{\"begin\":1,\"after\":\"\"}]}]}\n");
	json_error_t jerr;
	json_t *doc = json_loads(data, 0, &jerr);
	if (doc == NULL)
		fail_msg("not JSON: %s", jerr.text);
	assert_string_equal(json_string_value(json_object_get(doc, "tool")), "unit");
	assert_true(json_number_value(json_object_get(doc, "span")) == 12.5);
	assert_null(json_object_get(doc, "m"));
	json_t *rows = json_object_get(doc, "rows");
	assert_int_equal(json_array_size(rows), 3);
	json_t *r2 = json_array_get(rows, 1);
	assert_string_equal(json_string_value(json_object_get(r2, "name")), "a,b \"q\"\nz");
	assert_true(json_number_value(json_object_get(r2, "count")) == 2.5);
	json_t *gaps = json_object_get(json_array_get(rows, 0), "gaps");
	assert_int_equal(json_array_size(gaps), 2);
	assert_true(json_number_value(json_object_get(json_array_get(gaps, 1), "begin")) == 20);
	assert_int_equal(json_array_size(json_object_get(r2, "gaps")), 0);
	json_decref(doc);
	g_free(data);
}

/* No rows: text is the heading alone, CSV the header alone, JSON an empty
 * array under the spec's key. */
static void test_empty(void **state)
{
	(void)state;
	char *data = written("text", write_empty);
	assert_string_equal(data, head);
	g_free(data);
	data = written("csv", write_empty);
	assert_string_equal(data, "name,micros,count\n");
	g_free(data);
	data = written("json", write_empty);
	assert_string_equal(data, "{\"items\":[]}\n");
	json_t *doc = json_loads(data, 0, NULL);
	assert_non_null(doc);
	json_decref(doc);
	g_free(data);
}

/* JSON stays valid where a meta or a row has no field with a JSON key:
 * no comma is written before the rows or before the sub-rows. */
static const tl_table_col csv_only[] = {{"n", NULL, TL_CELL_STR, NULL, "%s"}};
static const tl_table_spec csv_only_spec = {csv_only, 1, "rows"};

static void write_keyless(tl_output *out, const tl_table_sink *sink)
{
	static const tl_cell meta[] = {{"hidden", 0}};
	static const tl_table_spec meta_only_csv = {csv_only, 1, NULL};
	static const tl_cell row[] = {{"r", 0}};
	static const tl_cell gap[] = {{NULL, 7}, {"z", 0}};
	tl_table t;
	tl_table_begin(&t, sink, out, &csv_only_spec, &sub_spec, &meta_only_csv, meta, NULL);
	tl_table_row(&t, row);
	tl_table_sub_row(&t, gap);
	tl_table_end(&t);
}

static void test_json_keyless(void **state)
{
	(void)state;
	char *data = written("json", write_keyless);
	assert_string_equal(data, "{\"rows\":[\n{\"gaps\":[{\"begin\":7,\"after\":\"z\"}]}]}\n");
	json_t *doc = json_loads(data, 0, NULL);
	assert_non_null(doc);
	json_decref(doc);
	g_free(data);
}

/* The backends by name, in --format order; another name is none. */
static void test_names(void **state)
{
	(void)state;
	assert_string_equal(tl_table_sink_names[0], "text");
	assert_string_equal(tl_table_sink_names[1], "csv");
	assert_string_equal(tl_table_sink_names[2], "json");
	assert_null(tl_table_sink_names[3]);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(tl_table_sink_find(tl_table_sink_names[i])->name,
				    tl_table_sink_names[i]);
	assert_null(tl_table_sink_find("xml"));
	assert_null(tl_table_sink_find(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),  cmocka_unit_test(test_csv),	cmocka_unit_test(test_json),
	    cmocka_unit_test(test_empty), cmocka_unit_test(test_names),
	    cmocka_unit_test(test_json_keyless),
	};
	return cmocka_run_group_tests_name("table", tests, tmpdir_setup, tmpdir_teardown);
}
