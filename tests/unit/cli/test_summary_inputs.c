/* Unit tests of cli/summary_inputs.c: inputs read side by side on
 * worker threads give the summary of reading them one by one, run for
 * run and in input order; a bad input is named by its index, the first
 * bad one in input order, with its error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/summary_inputs.h"
#include "io/source.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"

/* The summary of `paths` read one by one, in order, run by run. */
static tl_summary *one_by_one(tl_summary_view view, char **paths, size_t n)
{
	tl_summary *s = tl_summary_new(view);
	for (size_t i = 0; i < n; i++) {
		tl_source *src = NULL;
		tl_error err;
		assert_int_equal(tl_source_open(&src, paths[i], TL_FORMAT_AUTO, &err), 0);
		tl_run *run = NULL;
		while (tl_run_next(src, &run, &err) > 0) {
			tl_summary_add_run(s, run);
			tl_run_free(run);
		}
		tl_source_close(src);
	}
	return s;
}

/* Every row, every run: the same values. */
static void assert_same(const tl_summary *x, const tl_summary *y)
{
	assert_int_equal(x->n_runs, y->n_runs);
	for (guint i = 0; i < x->run_labels->len; i++)
		assert_string_equal(g_ptr_array_index(x->run_labels, i),
				    g_ptr_array_index(y->run_labels, i));
	assert_int_equal(g_hash_table_size(x->rows), g_hash_table_size(y->rows));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, x->rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const tl_row *ry = g_hash_table_lookup(y->rows, k);
		assert_non_null(ry);
		tl_summary_opts o;
		tl_summary_opts_init(&o);
		for (size_t run = 0; run < x->n_runs; run++) {
			o.step = (int)run;
			for (int c = 0; c < TL_N_COLS; c++)
				assert_true(tl_summary_row_stat(x, v, c, &o) ==
					    tl_summary_row_stat(y, ry, c, &o));
		}
	}
}

/* Four inputs (one of them a loop of three iterations, one given twice):
 * side by side equals one by one, in every view. */
static void test_side_by_side(void **state)
{
	(void)state;
	char *paths[] = {td_data("gen-cpu.pbtxt"), td_data("gen-g2-loop.pb"),
			 td_data("mnist.pbtxt"), td_data("gen-cpu.pbtxt")};
	for (int v = TL_VIEW_OP; v <= TL_VIEW_STEP; v++) {
		tl_summary *s = tl_summary_new((tl_summary_view)v);
		tl_summary_inputs_opts o = {.format = TL_FORMAT_AUTO};
		size_t bad = 99;
		tl_error err;
		assert_int_equal(tl_summary_add_inputs(s, (const char *const *)paths, 4, &o, &bad, &err),
				 0);
		assert_int_equal(bad, 99);
		tl_summary *want = one_by_one((tl_summary_view)v, paths, 4);
		assert_same(want, s);
		tl_summary_free(want);
		tl_summary_free(s);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
		g_free(paths[i]);
	tl_warn_clear();
}

/* Inputs 1 and 3 do not exist: the error names input 1, the first in
 * input order, whichever thread failed first. */
static void test_bad_input(void **state)
{
	(void)state;
	char *paths[] = {td_data("gen-cpu.pbtxt"), td_data("no-such-1.pb"),
			 td_data("mnist.pbtxt"), td_data("no-such-3.pb")};
	tl_summary *s = tl_summary_new(TL_VIEW_OP);
	tl_summary_inputs_opts o = {.format = TL_FORMAT_AUTO};
	size_t bad = 99;
	tl_error err = {{0}};
	assert_int_equal(tl_summary_add_inputs(s, (const char *const *)paths, 4, &o, &bad, &err),
			 -1);
	assert_int_equal(bad, 1);
	assert_true(err.msg[0] != '\0');
	tl_summary_free(s);
	for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
		g_free(paths[i]);
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_side_by_side),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests_name("summary_inputs", tests, NULL, NULL);
}
