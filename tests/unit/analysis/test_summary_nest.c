/* Unit tests of analysis/summary_nest.c (self time of nested slices) and
 * of its use on runs (tl_summary_add_run): the nesting of a parent with
 * two children and a grandchild, partial overlaps as siblings (nothing
 * subtracted twice), ties, threads apart, input order not mattering, and
 * executions nested on an XSpace host plane against a TF1 executor's,
 * which never nest. Times are ns in the slices, us in the runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/summary.h"
#include "analysis/summary_nest.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

#define SL(th, s, e) {.thread = (th), .start = (s), .end = (e)}

/* P 0..100 holds A 10..40 (holding G 20..30) and B 50..90: P's self is
 * 100 - 30 - 40 = 30, A's 30 - 10 = 20, B's 40, G's 10; the selves add up
 * to the thread's busy time, 100. */
static void test_tree(void **state)
{
	(void)state;
	tl_summary_slice s[] = {SL(1, 0, 100), SL(1, 10, 40), SL(1, 50, 90), SL(1, 20, 30)};
	assert_int_equal(tl_summary_nest(s, 4), 3);
	assert_int_equal(s[0].self, 30);
	assert_int_equal(s[1].self, 20);
	assert_int_equal(s[2].self, 40);
	assert_int_equal(s[3].self, 10);
	assert_int_equal(s[0].parent, -1);
	assert_int_equal(s[1].parent, 0);
	assert_int_equal(s[2].parent, 0);
	assert_int_equal(s[3].parent, 1);
	assert_int_equal(s[0].self + s[1].self + s[2].self + s[3].self, 100);
}

/* The same slices in any order give the same selves and parents. */
static void test_order(void **state)
{
	(void)state;
	tl_summary_slice s[] = {SL(1, 20, 30), SL(1, 50, 90), SL(1, 10, 40), SL(1, 0, 100)};
	tl_summary_nest(s, 4);
	assert_int_equal(s[3].self, 30);
	assert_int_equal(s[2].self, 20);
	assert_int_equal(s[1].self, 40);
	assert_int_equal(s[0].self, 10);
	assert_int_equal(s[0].parent, 2);
	assert_int_equal(s[2].parent, 3);
}

/* X 0..50 and Y 30..80 overlap in part: siblings, neither a parent, each
 * keeps its whole time. Inside P 0..100, X 10..50 and Y 30..70 are both
 * P's children and P loses their union, 60 (not 40 + 40): self 40. */
static void test_partial_overlap(void **state)
{
	(void)state;
	tl_summary_slice top[] = {SL(1, 0, 50), SL(1, 30, 80)};
	assert_int_equal(tl_summary_nest(top, 2), 0);
	assert_int_equal(top[0].self, 50);
	assert_int_equal(top[1].self, 50);
	assert_int_equal(top[1].parent, -1);
	tl_summary_slice in[] = {SL(1, 0, 100), SL(1, 10, 50), SL(1, 30, 70)};
	assert_int_equal(tl_summary_nest(in, 3), 2);
	assert_int_equal(in[0].self, 40);
	assert_int_equal(in[1].self, 40);
	assert_int_equal(in[2].self, 40);
	assert_int_equal(in[2].parent, 0);
	/* Z 40..120 starts inside P but ends after it: P's sibling */
	tl_summary_slice out[] = {SL(1, 0, 100), SL(1, 10, 20), SL(1, 40, 120)};
	tl_summary_nest(out, 3);
	assert_int_equal(out[2].parent, -1);
	assert_int_equal(out[0].self, 90);
	assert_int_equal(out[2].self, 80);
}

/* Ties: of two slices with one start the longer is the parent (whatever
 * the input order); of two equal ones, the first; an empty slice takes
 * nothing from its parent; a slice that starts where another ends is
 * not inside it. */
static void test_ties(void **state)
{
	(void)state;
	tl_summary_slice s[] = {SL(1, 0, 5), SL(1, 0, 10)};
	tl_summary_nest(s, 2);
	assert_int_equal(s[0].parent, 1);
	assert_int_equal(s[1].self, 5);
	tl_summary_slice eq[] = {SL(1, 0, 10), SL(1, 0, 10)};
	tl_summary_nest(eq, 2);
	assert_int_equal(eq[1].parent, 0);
	assert_int_equal(eq[0].self, 0);
	assert_int_equal(eq[1].self, 10);
	tl_summary_slice empty[] = {SL(1, 0, 10), SL(1, 5, 5), SL(1, 10, 20)};
	assert_int_equal(tl_summary_nest(empty, 3), 1);
	assert_int_equal(empty[0].self, 10);
	assert_int_equal(empty[2].parent, -1);
}

/* Slices of two threads never nest, however they lie. */
static void test_threads(void **state)
{
	(void)state;
	tl_summary_slice s[] = {SL(1, 0, 100), SL(2, 10, 20), SL(1, 30, 40)};
	assert_int_equal(tl_summary_nest(s, 3), 1);
	assert_int_equal(s[0].self, 90);
	assert_int_equal(s[1].self, 10);
	assert_int_equal(s[1].parent, -1);
	assert_int_equal(tl_summary_nest(NULL, 0), 0);
}

/* clang-format off */
/* An XSpace host plane as a run: on thread 7, train_function 100..200
 * holds EagerExecute 110..150 holding MatMul 120..140; thread 8's Add
 * 120..130 lies inside in time, on another thread. */
static const char host_text[] =
	STEP(DEV("/host:CPU",
		EXEC("train_function", 100, 100) " thread_id: 7" END
		EXEC("EagerExecute", 110, 40) " thread_id: 7" END
		EXEC("MatMul", 120, 20) " thread_id: 7" END
		EXEC("Add", 120, 10) " thread_id: 8" END));
/* A TF1 executor: b 110..120 inside a 100..150 on thread 0 (no
 * thread_id, as old dumps) is not a's child. */
static const char tf1_text[] =
	STEP(DEV(CPU,
		EXEC("a", 100, 50) END
		EXEC("b", 110, 10) END));
/* clang-format on */

static double col(const tl_summary *s, const char *row, int c)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	const tl_row *r = g_hash_table_lookup(s->rows, row);
	if (r == NULL)
		fail_msg("no row %s", row);
	return tl_summary_row_stat(s, r, c, &o);
}

/* Executions nested on one thread of a host plane: self 60, 20, 20, and
 * Add its own 10; cpu and total stay inclusive. The summary says it nests,
 * so shares are of self time and add up to 100%. */
static void test_run_nested(void **state)
{
	(void)state;
	tl_summary *s = tl_summary_new(TL_VIEW_NODE);
	tl_run *run = td_run_of_text(host_text, "h");
	tl_summary_add_run(s, run);
	tl_run_free(run);
	assert_true(s->nested);
	assert_true(col(s, "train_function", TL_COL_SELF) == 60);
	assert_true(col(s, "train_function", TL_COL_CPU) == 100);
	assert_true(col(s, "train_function", TL_COL_TOTAL) == 100);
	assert_true(col(s, "EagerExecute", TL_COL_SELF) == 20);
	assert_true(col(s, "MatMul", TL_COL_SELF) == 20);
	assert_true(col(s, "Add", TL_COL_SELF) == 10);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_opts_fit(&o, s);
	assert_int_equal(o.order_by, TL_COL_SELF);
	assert_int_equal(o.select[1], TL_COL_SELF);
	tl_summary_flat *f = tl_summary_flat_new(s, &o);
	assert_int_equal(f->share_col, TL_COL_SELF);
	assert_true(f->total[TL_COL_SELF] == 110);
	assert_string_equal(f->lines[0].row->name, "train_function");
	tl_summary_flat_free(f);
	tl_summary_free(s);
}

/* A TF1 executor's overlapping ops keep their own time as self, the
 * summary does not nest and the default columns and order are as before. */
static void test_run_tf1(void **state)
{
	(void)state;
	tl_summary *s = tl_summary_new(TL_VIEW_NODE);
	tl_run *run = td_run_of_text(tf1_text, "t");
	tl_summary_add_run(s, run);
	tl_run_free(run);
	assert_false(s->nested);
	assert_true(col(s, "a", TL_COL_SELF) == 50);
	assert_true(col(s, "b", TL_COL_SELF) == 10);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_opts_fit(&o, s);
	assert_int_equal(o.order_by, TL_COL_TOTAL);
	assert_int_equal(o.n_select, 4);
	tl_summary_free(s);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree),	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_partial_overlap), cmocka_unit_test(test_ties),
	    cmocka_unit_test(test_threads),	    cmocka_unit_test(test_run_nested),
	    cmocka_unit_test(test_run_tf1),
	};
	return cmocka_run_group_tests_name("summary nest", tests, NULL, NULL);
}
