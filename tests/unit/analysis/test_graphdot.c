/* Unit tests of analysis/graphdot*.c: what is drawn from a hand-written
 * two-device run (clusters, transfers, costs, collapsing, folding, focus,
 * top, colours), seen through the DOT that emit/dot.c writes of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/graphdot.h"
#include "emit/dot.h"
#include "io/source.h"

#include <cgraph.h>
#include <glib.h>
#include <string.h>

#include "testdata.h"

#define TWO_DEV "tests/cli/data/graph/two-dev.pbtxt"

static tl_graphdot *build(tl_run *run, const tl_graphdot_opts *o)
{
	tl_graphdot *gd = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_graphdot_build(&gd, &run, 1, o, &err), 0);
	return gd;
}

/* The DOT of the picture is read by cgraph with the nodes and edges the
 * stats announce. */
static void check_dot(const tl_graphdot *gd)
{
	GString *dot = tl_dot_string(gd);
	Agraph_t *g = agmemread(dot->str);
	assert_non_null(g);
	const tl_graphdot_stats *st = tl_graphdot_get_stats(gd);
	size_t legend = strstr(dot->str, "shape=plaintext") != NULL ? 1 : 0;
	assert_int_equal((size_t)agnnodes(g), st->vertices + legend);
	assert_int_equal((size_t)agnedges(g), st->edges);
	agclose(g);
	g_string_free(dot, TRUE);
}

/* Two partitions, two _Send/_Recv pairs drawn as edges, costs from the
 * step stats (the MatMul's kernel outlasts the op). */
static void test_two_devices(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	tl_graphdot *gd = build(run, &o);
	const tl_graphdot_stats *st = tl_graphdot_get_stats(gd);
	assert_int_equal(st->nodes, 9);        /* 13 graph nodes, 4 of them the pairs */
	assert_int_equal(st->vertices, 9);
	assert_int_equal(st->collapsed, 0);
	assert_int_equal(st->transfers, 2);
	assert_int_equal(st->edges, 10);
	assert_false(st->auto_collapsed);
	check_dot(gd);
	GString *dot = tl_dot_string(gd);
	assert_non_null(strstr(dot->str, "\"model/dense/MatMul\" [label=\"MatMul\\nMatMul\\n30.0 us, "
					 "8.19KB\"]"));
	assert_non_null(strstr(dot->str, "\"input/x\" -> \"model/dense/MatMul\" [label=\"float "
					 "[32x128]\", penwidth=2.5, style=bold"));
	assert_non_null(strstr(dot->str, "\"model/dense/Relu\" -> \"train/step\" [style=dashed"));
	assert_non_null(strstr(dot->str, "subgraph \"cluster 0/1 /job:localhost/replica:0/task:0/"
					 "device:GPU:0\""));
	assert_null(strstr(dot->str, "_Send"));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* --max-depth 1: one node per top-level scope and partition, edges between
 * them aggregated with their count and bytes. */
static void test_collapse(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	o.max_depth = 1;
	tl_graphdot *gd = build(run, &o);
	const tl_graphdot_stats *st = tl_graphdot_get_stats(gd);
	/* CPU: input/, model/; GPU: model/, train/ */
	assert_int_equal(st->vertices, 4);
	assert_int_equal(st->collapsed, 4);
	check_dot(gd);
	GString *dot = tl_dot_string(gd);
	assert_non_null(strstr(dot->str, "\"model/\" [label=\"model/\\n2 ops: Identity 1, "
					 "VariableV2 1\\n3.00 us\", shape=box3d]"));
	assert_non_null(strstr(dot->str, "\"model/#2\" [label=\"model/\\n5 ops: Mul 2, MatMul 1, "
					 "NoOp 1, +1 types\\n38.0 us, 16.38KB\", shape=box3d]"));
	assert_non_null(strstr(dot->str, "\"model/#2\" -> \"train/\" [label=\"2 control\", "
					 "style=dashed"));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* --fold: tower_1 folds into one node beside tower_0. */
static void test_fold(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	o.fold = true;
	tl_graphdot *gd = build(run, &o);
	const tl_graphdot_stats *st = tl_graphdot_get_stats(gd);
	assert_int_equal(st->vertices, 9);
	assert_int_equal(st->collapsed, 1);
	check_dot(gd);
	GString *dot = tl_dot_string(gd);
	assert_non_null(strstr(dot->str, "\"model/tower_*/\" [label=\"tower_1/ (folded)\\n1 op: "
					 "Mul 1\\n2.00 us\", shape=box3d]"));
	assert_non_null(strstr(dot->str, "\"model/tower_0/mul\" [label=\"tower_0/mul"));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* --focus and --top keep their seeds and the neighbours --hops away. */
static void test_select(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	GRegex *re = g_regex_new("Relu$", 0, 0, NULL);
	o.focus = re;
	tl_graphdot *gd = build(run, &o);
	/* Relu, MatMul, tower_0/mul, tower_1/mul, train/step */
	assert_int_equal(tl_graphdot_get_stats(gd)->kept, 5);
	check_dot(gd);
	tl_graphdot_free(gd);
	o.hops = 0;
	gd = build(run, &o);
	assert_int_equal(tl_graphdot_get_stats(gd)->kept, 1);
	tl_graphdot_free(gd);
	o.focus = NULL;
	o.top = 1;
	gd = build(run, &o);
	GString *dot = tl_dot_string(gd);
	assert_int_equal(tl_graphdot_get_stats(gd)->kept, 1);
	assert_non_null(strstr(dot->str, "\"model/dense/MatMul\""));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	o.hops = 1;
	o.color_by = TL_COLOR_MEMORY; /* rank by output bytes: input/x (16 KB) */
	gd = build(run, &o);
	dot = tl_dot_string(gd);
	assert_int_equal(tl_graphdot_get_stats(gd)->kept, 2);
	assert_non_null(strstr(dot->str, "\"input/x\" -> \"model/dense/MatMul\""));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	g_regex_unref(re);
	tl_run_free(run);
}

/* Colour by time: nine bins of a sequential palette plus "not run", and a
 * legend node. */
static void test_colors(void **state)
{
	(void)state;
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	o.color_by = TL_COLOR_TIME;
	tl_graphdot *gd = build(run, &o);
	GString *dot = tl_dot_string(gd);
	/* the slowest node gets the darkest colour, the fastest the lightest */
	assert_non_null(strstr(dot->str, "30.0 us, 8.19KB\", fillcolor=\"#800026\""));
	assert_non_null(strstr(dot->str, "\"train/step\" [label=\"train/step\\nNoOp\\n1.00 us\", "
					 "fillcolor=\"#ffffcc\"]"));
	assert_non_null(strstr(dot->str, "colspan=\"2\">time</td>"));
	assert_non_null(strstr(dot->str, ">not run</td>"));
	check_dot(gd);
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	o.color_by = TL_COLOR_DEVICE;
	gd = build(run, &o);
	dot = tl_dot_string(gd);
	assert_non_null(strstr(dot->str, ">/job:localhost/replica:0/task:0/device:GPU:0</td>"));
	g_string_free(dot, TRUE);
	tl_graphdot_free(gd);
	tl_run_free(run);
}

/* Above max_nodes the depth is lowered on its own, with a warning. */
static void test_auto_collapse(void **state)
{
	(void)state;
	tl_warn_clear();
	tl_run *run = td_run_of_file(TWO_DEV);
	tl_graphdot_opts o;
	tl_graphdot_opts_init(&o);
	o.max_nodes = 5;
	tl_graphdot *gd = build(run, &o);
	const tl_graphdot_stats *st = tl_graphdot_get_stats(gd);
	assert_true(st->auto_collapsed);
	assert_true(st->vertices <= 5);
	assert_int_equal(st->depth, 1);
	assert_int_equal(tl_warn_count("graph-auto-collapse"), 1);
	check_dot(gd);
	tl_graphdot_free(gd);
	tl_warn_clear();
	tl_run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_devices), cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_fold),        cmocka_unit_test(test_select),
		cmocka_unit_test(test_colors),      cmocka_unit_test(test_auto_collapse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
