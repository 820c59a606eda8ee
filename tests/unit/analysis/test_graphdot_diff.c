/* Unit tests of analysis/graphdot_diff.c: per node of B, its value in A
 * and B as trace-summarize --diff's node rows give them (total_micros:
 * here op_end_rel), matched by name, then a name on one side only paired
 * by op type and scope where that pairs one with one; the nodes only in A
 * listed by |value|. Times in the comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/graphdot_diff.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

/* A: s/add 10, s/mul 5, s/neg_1 3, s/sq 6, t/x 4, s/c (graph only).
 * B: s/add 2 + 2, s/mul 11, s/neg_2 7 (renamed: Neg in s/), u/y 1 (Relu in
 * another scope: new), s/sq_1 1 and s/sq_2 1 (two Squares where A has one:
 * not paired), s/c (graph only). */
/* clang-format off */
static const char text_a[] =
	STEP(DEV(CPU,
		EXEC("s/add", 100, 10) OUT(0, "cpu", 1000, 1) END
		EXEC("s/mul", 110, 5) END
		EXEC("s/neg_1", 115, 3) END
		EXEC("s/sq", 118, 6) END
		EXEC("t/x", 124, 4) END))
	GRAPH(
		NODE("s/add", "Add", CPU, "")
		NODE("s/mul", "Mul", CPU, "")
		NODE("s/neg_1", "Neg", CPU, "")
		NODE("s/sq", "Square", CPU, "")
		NODE("s/c", "Const", CPU, "")
		NODE("t/x", "Relu", CPU, ""));
static const char text_b[] =
	STEP(DEV(CPU,
		EXEC("s/add", 100, 2) OUT(0, "cpu", 3000, 1) END
		EXEC("s/add", 102, 2) OUT(0, "cpu", 3000, 2) END
		EXEC("s/mul", 104, 11) END
		EXEC("s/neg_2", 115, 7) END
		EXEC("s/sq_1", 122, 1) END
		EXEC("s/sq_2", 123, 1) END
		EXEC("u/y", 124, 1) END))
	GRAPH(
		NODE("s/add", "Add", CPU, "")
		NODE("s/mul", "Mul", CPU, "")
		NODE("s/neg_2", "Neg", CPU, "")
		NODE("s/sq_1", "Square", CPU, "")
		NODE("s/sq_2", "Square", CPU, "")
		NODE("s/c", "Const", CPU, "")
		NODE("u/y", "Relu", CPU, ""));
/* clang-format on */

static tl_graphdot_diff *diff_of(bool memory, int b_runs)
{
	tl_graphdot_diff *d = tl_graphdot_diff_new(memory);
	tl_run *ra = td_run_of_text(text_a, "a");
	tl_graphdot_diff_add_run(d, 0, ra);
	tl_run_free(ra); /* the diff keeps its own names */
	for (int i = 0; i < b_runs; i++) {
		tl_run *rb = td_run_of_text(text_b, "b");
		tl_graphdot_diff_add_run(d, 1, rb);
		tl_run_free(rb);
	}
	tl_graphdot_diff_finish(d);
	return d;
}

static void assert_change(const tl_graphdot_diff *d, const char *name, double a, double b,
			  const char *a_name)
{
	const tl_graphdot_change *c = tl_graphdot_diff_find(d, name);
	if (c == NULL)
		fail_msg("%s not found", name);
	if (c->a != a || c->b != b)
		fail_msg("%s: a %g b %g, expected %g %g", name, c->a, c->b, a, b);
	assert_true(c->in_b);
	assert_int_equal(c->in_a, a_name != NULL);
	if (a_name == NULL)
		assert_null(c->a_name);
	else
		assert_string_equal(c->a_name, a_name);
}

static void test_match(void **state)
{
	tl_graphdot_diff *d = diff_of(false, 1);
	assert_false(tl_graphdot_diff_memory(d));
	assert_change(d, "s/add", 10, 4, "s/add");
	assert_change(d, "s/mul", 5, 11, "s/mul");
	assert_change(d, "s/neg_2", 3, 7, "s/neg_1"); /* paired by op and scope */
	assert_change(d, "u/y", 0, 1, NULL);	      /* another scope: new */
	assert_change(d, "s/sq_1", 0, 1, NULL);	      /* two against one: new */
	assert_change(d, "s/sq_2", 0, 1, NULL);
	assert_change(d, "s/c", 0, 0, "s/c");	      /* in both graphs, run in neither */
	assert_null(tl_graphdot_diff_find(d, "t/x")); /* A's alone are no node of B */
	assert_null(tl_graphdot_diff_find(d, "s/neg_1"));
	size_t n = 0;
	const tl_graphdot_gone *gone = tl_graphdot_diff_only_a(d, &n);
	assert_int_equal(n, 2);
	assert_string_equal(gone[0].name, "s/sq");
	assert_true(gone[0].a == 6);
	assert_string_equal(gone[1].name, "t/x");
	assert_true(gone[1].a == 4);
	assert_int_equal(tl_graphdot_diff_common(d), 4); /* add, mul, neg_2, c */
	char *title = tl_graphdot_diff_title(d);
	assert_string_equal(title, "change from a to b");
	g_free(title);
	assert_int_equal(tl_graphdot_diff_units(d, 1.5), 1500); /* us to ns */
	tl_graphdot_diff_free(d);
	tl_warn_clear();
}

/* Several runs of a side are averaged (a run a node is missing from
 * counts 0), as trace-summarize --diff's default --stat avg. */
static void test_runs_averaged(void **state)
{
	tl_graphdot_diff *d = diff_of(false, 3);
	assert_change(d, "s/add", 10, 4, "s/add");
	char *title = tl_graphdot_diff_title(d);
	assert_string_equal(title, "change from a to b (3 runs, averaged)");
	g_free(title);
	tl_graphdot_diff_free(d);
	tl_warn_clear();
}

/* Memory: output_bytes, bytes as they are. */
static void test_memory(void **state)
{
	tl_graphdot_diff *d = diff_of(true, 1);
	assert_change(d, "s/add", 1000, 6000, "s/add");
	assert_change(d, "s/mul", 0, 0, "s/mul");
	assert_int_equal(tl_graphdot_diff_units(d, 6000), 6000);
	tl_graphdot_diff_free(d);
	tl_warn_clear();
}

/* A twin made before the runs come (as the page makes one, after A's
 * run): the other statistic over the same runs, each finished and freed
 * on its own, the twin first or last. */
static void test_twin(void **state)
{
	for (int order = 0; order < 2; order++) {
		tl_graphdot_diff *d = tl_graphdot_diff_new(false);
		tl_run *ra = td_run_of_text(text_a, "a");
		tl_graphdot_diff_add_run(d, 0, ra);
		tl_run_free(ra);
		tl_graphdot_diff *m = tl_graphdot_diff_twin(d);
		assert_true(tl_graphdot_diff_memory(m));
		tl_run *rb = td_run_of_text(text_b, "b");
		tl_graphdot_diff_add_run(order ? m : d, 1, rb); /* a run added to either */
		tl_run_free(rb);
		tl_graphdot_diff_finish(order ? m : d);
		tl_graphdot_diff_finish(order ? d : m);
		assert_change(d, "s/add", 10, 4, "s/add");
		assert_change(d, "s/neg_2", 3, 7, "s/neg_1");
		assert_change(m, "s/add", 1000, 6000, "s/add");
		assert_change(m, "s/neg_2", 0, 0, "s/neg_1");
		assert_change(m, "u/y", 0, 0, NULL);
		assert_int_equal(tl_graphdot_diff_common(m), 4);
		char *title = tl_graphdot_diff_title(m);
		assert_string_equal(title, "change from a to b");
		g_free(title);
		tl_graphdot_diff_free(order ? d : m);
		assert_change(order ? m : d, "s/add", order ? 1000 : 10, order ? 6000 : 4, "s/add");
		tl_graphdot_diff_free(order ? m : d);
	}
	tl_warn_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_runs_averaged),
	    cmocka_unit_test(test_memory),
	    cmocka_unit_test(test_twin),
	};
	return cmocka_run_group_tests_name("graphdot diff", tests, NULL, NULL);
}
