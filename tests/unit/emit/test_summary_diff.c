/* Unit tests of emit/summary_diff.c, the table of two summaries compared
 * (trace-summarize --diff). A comparison is built here row by row, so the
 * numbers are known before the writer runs: MatMul 10 us in A (one call)
 * and 4 us in B (two calls), Relu only in B (6 us), Tanh 2 us in both.
 * Worked out by hand: MatMul B - A = -6, -60.0%; Relu +6, "new" (no A to
 * divide by); Tanh 0, +0.0%. Each backend's bytes are read back: text line
 * by line, CSV by its header's keys, JSON parsed with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/summary_diff.h"

#include <glib.h>
#include <jansson.h>
#include <string.h>

#include "tmpdir.h"

static tl_summary_diff_row rows[] = {
    {"MatMul", 10, 4, 1, 2},
    {"Relu", 0, 6, 0, 1},
    {"Tanh", 2, 2, 1, 1},
};

/* The diff written by the backend `name`, as a string (g_free it). */
static char *written(const char *name)
{
	tl_summary_diff d = {.col = TL_COL_TOTAL, .rows = rows, .n = G_N_ELEMENTS(rows)};
	char *path = g_strdup_printf("%s/diff.%s", tmpdir, name);
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	tl_summary_diff_write(&d, tl_table_sink_find(name), out);
	assert_int_equal(tl_output_close(out, &err), 0);
	char *text = NULL;
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_free(path);
	return text;
}

static void test_text(void **state)
{
	(void)state;
	char *text = written("text");
	char **lines = g_strsplit(text, "\n", -1);
	assert_int_equal(g_strv_length(lines), 5); /* head, 3 rows, "" after the last newline */
	/* The head names the columns and the one compared; each row: name, A, B,
	 * B - A (in the column's human units, as the tables'), change, calls A>B. */
	assert_non_null(strstr(lines[0], "name (total_micros)"));
	assert_non_null(strstr(lines[0], "B - A"));
	assert_non_null(strstr(lines[0], "change"));
	const char *want[][6] = {
	    {"MatMul", "10us", "4us", "-6us", "-60.0%", "1>2"},
	    {"Relu", "0us", "6us", "+6us", "new", "0>1"},
	    {"Tanh", "2us", "2us", "+0us", "+0.0%", "1>1"},
	};
	for (int i = 0; i < 3; i++) {
		char **cells = g_strsplit_set(lines[i + 1], " ", -1);
		GPtrArray *words = g_ptr_array_new();
		for (char **c = cells; *c != NULL; c++)
			if (**c != '\0')
				g_ptr_array_add(words, *c);
		assert_int_equal(words->len, 6);
		for (int k = 0; k < 6; k++)
			assert_string_equal(g_ptr_array_index(words, k), want[i][k]);
		g_ptr_array_free(words, TRUE);
		g_strfreev(cells);
	}
	g_strfreev(lines);
	g_free(text);
}

static void test_csv(void **state)
{
	(void)state;
	char *text = written("csv");
	char **lines = g_strsplit(text, "\n", -1);
	assert_int_equal(g_strv_length(lines), 5);
	assert_string_equal(lines[0],
			    "name,a_total_micros,b_total_micros,delta,delta_pct,a_occurrence,b_occurrence");
	assert_string_equal(lines[1], "MatMul,10.000,4.000,-6.000,-60.00,1,2");
	/* A number cell cannot be empty: a row new in B says 0 there (the
	 * text says "new"). */
	assert_string_equal(lines[2], "Relu,0.000,6.000,6.000,0.00,0,1");
	assert_string_equal(lines[3], "Tanh,2.000,2.000,0.000,0.00,1,1");
	g_strfreev(lines);
	g_free(text);
}

static void test_json(void **state)
{
	(void)state;
	char *text = written("json");
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "column")), "total_micros");
	json_t *r = json_object_get(root, "rows");
	assert_int_equal(json_array_size(r), 3);
	const double want[][6] = {
	    {10, 4, -6, -60, 1, 2},
	    {0, 6, 6, 0, 0, 1},
	    {2, 2, 0, 0, 1, 1},
	};
	const char *keys[] = {"a", "b", "delta", NULL, "a_occurrence", "b_occurrence"};
	for (size_t i = 0; i < 3; i++) {
		json_t *row = json_array_get(r, i);
		assert_string_equal(json_string_value(json_object_get(row, "name")), rows[i].name);
		for (int k = 0; k < 6; k++) {
			if (keys[k] == NULL)
				continue;
			json_t *v = json_object_get(row, keys[k]);
			assert_non_null(v);
			assert_true(json_number_value(v) == want[i][k]);
		}
	}
	json_decref(root);
	g_free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests_name("emit/summary_diff", tests, tmpdir_setup, tmpdir_teardown);
}
