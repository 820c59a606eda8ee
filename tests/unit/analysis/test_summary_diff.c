/* Unit tests of analysis/summary_diff.c: two op-view summaries written
 * here as RunMetadata text compared row by row. Every name in either
 * appears once, with 0 on the side where it is absent; rows come by
 * absolute change, largest first, ties by name; the column is --order-by
 * (total_micros for order by name); occurrences per side. Times in the
 * comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/summary_diff.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

/* A: Add 10, Mul 5, Neg 3 (A only), Tanh 2. B: Add 2 + 2 (two calls),
 * Mul 11, Sub 6 (B only), Relu 1 (B only), Tanh 2. */
/* clang-format off */
static const char text_a[] =
	STEP(DEV(CPU,
		EXEC("add", 100, 10) END
		EXEC("mul", 110, 5) END
		EXEC("neg", 115, 3) END
		EXEC("tanh", 118, 2) END))
	GRAPH(
		NODE("add", "Add", CPU, "")
		NODE("mul", "Mul", CPU, "")
		NODE("neg", "Neg", CPU, "")
		NODE("tanh", "Tanh", CPU, ""));
static const char text_b[] =
	STEP(DEV(CPU,
		EXEC("add", 100, 2) END
		EXEC("add", 102, 2) END
		EXEC("mul", 104, 11) END
		EXEC("sub", 115, 6) END
		EXEC("relu", 121, 1) END
		EXEC("tanh", 122, 2) END))
	GRAPH(
		NODE("add", "Add", CPU, "")
		NODE("mul", "Mul", CPU, "")
		NODE("sub", "Sub", CPU, "")
		NODE("relu", "Relu", CPU, "")
		NODE("tanh", "Tanh", CPU, ""));
/* clang-format on */

struct want {
	const char *name;
	double a, b, calls_a, calls_b;
};

static void assert_diff(const tl_summary_opts *o, int col, const struct want *want, size_t n)
{
	tl_run *ra = td_run_of_text(text_a, "a");
	tl_run *rb = td_run_of_text(text_b, "b");
	tl_summary *a = tl_summary_new(TL_VIEW_OP), *b = tl_summary_new(TL_VIEW_OP);
	tl_summary_add_run(a, ra);
	tl_summary_add_run(b, rb);
	tl_summary_diff *d = tl_summary_diff_new(a, b, o);
	assert_int_equal(d->col, col);
	for (size_t i = 0; i < d->n && i < n; i++) {
		const tl_summary_diff_row *r = &d->rows[i];
		if (strcmp(r->name, want[i].name) != 0)
			fail_msg("row %zu is %s, expected %s", i, r->name, want[i].name);
		assert_true(r->a == want[i].a);
		assert_true(r->b == want[i].b);
		assert_true(r->calls_a == want[i].calls_a);
		assert_true(r->calls_b == want[i].calls_b);
	}
	assert_int_equal(d->n, n);
	tl_summary_diff_free(d);
	tl_summary_free(a);
	tl_summary_free(b);
	tl_run_free(ra);
	tl_run_free(rb);
	tl_warn_clear();
}

/* By total_micros: |change| 6 for Add (10 -> 4, a fall), Mul (5 -> 11)
 * and Sub (0 -> 6, B only), by name; then Neg 3 (3 -> 0, A only), Relu 1
 * (B only), Tanh 0 (both, unchanged). */
static void test_by_total(void **state)
{
	(void)state;
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	static const struct want want[] = {
	    {"Add", 10, 4, 1, 2}, {"Mul", 5, 11, 1, 1}, {"Sub", 0, 6, 0, 1},
	    {"Neg", 3, 0, 1, 0},  {"Relu", 0, 1, 0, 1}, {"Tanh", 2, 2, 1, 1},
	};
	assert_diff(&o, TL_COL_TOTAL, want, G_N_ELEMENTS(want));
	/* ordering by name compares total_micros too */
	o.order_by = -1;
	assert_diff(&o, TL_COL_TOTAL, want, G_N_ELEMENTS(want));
}

/* By occurrence: Add 1 -> 2, Neg 1 -> 0, Relu 0 -> 1, Sub 0 -> 1 all
 * change by 1 (by name), Mul and Tanh by 0 (by name). */
static void test_by_occurrence(void **state)
{
	(void)state;
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.order_by = TL_COL_OCCURRENCE;
	static const struct want want[] = {
	    {"Add", 1, 2, 1, 2}, {"Neg", 1, 0, 1, 0}, {"Relu", 0, 1, 0, 1},
	    {"Sub", 0, 1, 0, 1}, {"Mul", 1, 1, 1, 1}, {"Tanh", 1, 1, 1, 1},
	};
	assert_diff(&o, TL_COL_OCCURRENCE, want, G_N_ELEMENTS(want));
}

/* Two empty summaries: no rows. */
static void test_empty(void **state)
{
	(void)state;
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary *a = tl_summary_new(TL_VIEW_OP), *b = tl_summary_new(TL_VIEW_OP);
	tl_summary_diff *d = tl_summary_diff_new(a, b, &o);
	assert_int_equal(d->n, 0);
	tl_summary_diff_free(d);
	tl_summary_free(a);
	tl_summary_free(b);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_by_total),
	    cmocka_unit_test(test_by_occurrence),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests_name("summary diff", tests, NULL, NULL);
}
