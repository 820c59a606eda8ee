/* Unit tests of tfprof's definitions in analysis/summary.c and of --graph
 * (analysis/summary_graph.c, model/graph_attach.c), on runs written here
 * as RunMetadata text, every value worked out by hand (times in us):
 *
 *   - cpu_micros from an op's start to its op_end_rel, not all_end_rel; a
 *     record whose op_end_rel is 0 counts 1 us;
 *   - accelerator_micros on stream:all (its op_end_rel), the streams only
 *     on a GPU without stream:all, each kernel once;
 *   - requested/peak/residual bytes with memory_stats' temp and persistent
 *     sizes, output bytes the larger of allocated and requested;
 *   - with a GraphDef: rows for every graph node (run or not), params and
 *     float ops from the graph's shapes, executor-only executions kept out
 *     and counted, the scope tree's definition counts; a file that is no
 *     GraphDef refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/summary.h"
#include "model/graph_attach.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"
#include "tmpdir.h"

#define DIM(n) " dim { size: " #n " }"
#define GPU1 "/job:localhost/replica:0/task:0/device:GPU:1"
#define KERNEL_OP(node, start, op_end, dur, label)                                                 \
	EXEC_OP(node, start, 0, op_end, dur) " timeline_label: \"" label "@@" node "\"" END

/* slow: 100, op_end_rel 5, all_end_rel 9 (cpu 5), memory cpu total 100,
 * peak 200, live 50, temp 8, persistent 16 (requested 124, peak 224,
 * residual 66), an output of 10 requested and 16 allocated (16).
 * quick: op_end_rel 0, all_end_rel 3: 1 us.
 * mm on GPU:0 (op_end 2): its kernel on stream:all ends (op_end_rel) at
 * 28, all_end_rel 30; the stream's copy of it 30: 28 counts.
 * relu on GPU:1, which has no stream:all: its stream:3 kernel, 6. */
/* clang-format off */
static const char text_times[] =
	STEP(
		DEV(CPU,
			EXEC_OP("slow", 100, 0, 5, 9)
			" memory { allocator_name: \"cpu\" total_bytes: 100 peak_bytes: 200"
			" live_bytes: 50 }"
			" memory_stats { temp_memory_size: 8 persistent_memory_size: 16 }"
			" output { slot: 0 tensor_description { dtype: DT_FLOAT"
			" allocation_description { requested_bytes: 10 allocated_bytes: 16 } } }"
			END
			EXEC_OP("quick", 120, 0, 0, 3) END)
		DEV(GPU, EXEC("mm", 100, 2) END)
		DEV("/device:GPU:0/stream:7", KERNEL_OP("mm:MatMul", 103, 30, 30, "gemm"))
		DEV("/device:GPU:0/stream:all", KERNEL_OP("mm:MatMul", 103, 28, 30, "gemm"))
		DEV(GPU1, EXEC("relu", 100, 1) END)
		DEV("/device:GPU:1/stream:3", KERNEL_OP("relu:Relu", 105, 6, 6, "relu")));

/* No partition graphs: _SOURCE and _retval_y are the executor's own;
 * a/MatMul's output 3x5 recorded, its inputs' shapes only in the graph. */
static const char text_nograph[] =
	STEP(
		DEV(CPU,
			EXEC("_SOURCE", 100, 1) END
			EXEC("x", 101, 1) END
			EXEC("a/MatMul", 102, 4)
			" output { slot: 0 tensor_description { dtype: DT_FLOAT shape {"
			DIM(3) DIM(5) " } } }" END
			EXEC("_retval_y", 107, 1) END
			EXEC("_retval_y", 108, 1) END));

/* x [3x4] (its _output_shapes), w VariableV2 [4x5], a/MatMul x * w, and
 * never (Relu), which did not run. */
static const char graph_text[] =
	"node { name: \"x\" op: \"Const\" attr { key: \"_output_shapes\" value { list {"
	" shape {" DIM(3) DIM(4) " } } } } }\n"
	"node { name: \"w\" op: \"VariableV2\" attr { key: \"shape\" value { shape {"
	DIM(4) DIM(5) " } } } }\n"
	"node { name: \"a/MatMul\" op: \"MatMul\" input: \"x\" input: \"w:0\" }\n"
	"node { name: \"a/never\" op: \"Relu\" input: \"a/MatMul\" }\n";
/* clang-format on */

static const tl_row *row_named(const tl_summary *s, const char *name)
{
	const tl_row *r = g_hash_table_lookup(s->rows, name);
	if (r == NULL)
		fail_msg("no row %s", name);
	return r;
}

static double col(const tl_summary *s, const char *name, int c)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	return tl_summary_row_stat(s, row_named(s, name), c, &o);
}

static tl_summary *summary_of(tl_summary_view view, const char *text, const tl_graph_attach *g)
{
	tl_summary *s = tl_summary_new(view);
	tl_summary_set_graph(s, g);
	tl_run *run = td_run_of_text(text, "run");
	tl_summary_add_run(s, run);
	tl_run_free(run);
	tl_warn_clear();
	return s;
}

static tl_graph_attach *graph_of(const char *text)
{
	char *path = g_build_filename(tmpdir, "graph.pbtxt", NULL);
	assert_true(g_file_set_contents(path, text, -1, NULL));
	tl_graph_attach *g = NULL;
	tl_error err = {0};
	if (tl_graph_attach_read(&g, path, &err) < 0)
		fail_msg("graph: %s", err.msg);
	g_free(path);
	return g;
}

/* cpu to op_end_rel (0 counts 1); memory as tfprof's AddMemoryStats. */
static void test_cpu_and_memory(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_NODE, text_times, NULL);
	assert_true(col(s, "slow", TL_COL_CPU) == 5);
	assert_true(col(s, "slow", TL_COL_TOTAL) == 5);
	assert_true(col(s, "quick", TL_COL_CPU) == 1);
	assert_true(col(s, "slow", TL_COL_REQUESTED) == 124);
	assert_true(col(s, "slow", TL_COL_PEAK) == 224);
	assert_true(col(s, "slow", TL_COL_RESIDUAL) == 66);
	assert_true(col(s, "slow", TL_COL_OUTPUT) == 16);
	assert_true(s->have_memory);
	tl_summary_free(s);
}

/* accelerator: stream:all where the GPU has it, its streams where not. */
static void test_accelerator(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_NODE, text_times, NULL);
	assert_true(col(s, "mm", TL_COL_ACCEL) == 28);
	assert_true(col(s, "mm", TL_COL_CPU) == 2);
	assert_true(col(s, "mm", TL_COL_TOTAL) == 30);
	assert_true(col(s, "mm", TL_COL_OCCURRENCE) == 1);
	assert_true(col(s, "relu", TL_COL_ACCEL) == 6);
	assert_true(col(s, "relu", TL_COL_TOTAL) == 7);
	tl_summary_free(s);
}

/* The graph's nodes are the rows; executor-only executions are counted. */
static void test_graph_rows(void **state)
{
	(void)state;
	tl_graph_attach *g = graph_of(graph_text);
	assert_int_equal(tl_graph_attach_n_nodes(g), 4);
	tl_summary *s = summary_of(TL_VIEW_NODE, text_nograph, g);
	assert_int_equal(g_hash_table_size(s->rows), 4);
	assert_true(s->have_graph);
	assert_int_equal(s->kept_out_execs, 3);
	char *names = tl_summary_kept_out_names(s, 5);
	assert_string_equal(names, "_retval_y, _SOURCE");
	g_free(names);
	names = tl_summary_kept_out_names(s, 1);
	assert_string_equal(names, "_retval_y, ...");
	g_free(names);
	/* 2 * 3 * 5 * 4: k from x's _output_shapes */
	assert_true(col(s, "a/MatMul", TL_COL_FLOPS) == 120);
	assert_true(col(s, "a/MatMul", TL_COL_CPU) == 4);
	assert_string_equal(row_named(s, "a/MatMul")->extra, "MatMul");
	/* w did not run: its params and shape from the graph */
	assert_true(col(s, "w", TL_COL_PARAMS) == 20);
	assert_true(col(s, "w", TL_COL_OCCURRENCE) == 0);
	assert_string_equal(row_named(s, "w")->shape, "4x5");
	assert_int_equal(row_named(s, "a/never")->defined, 1);
	assert_true(col(s, "a/never", TL_COL_TOTAL) == 0);
	tl_summary_free(s);

	/* op view: a row per op type of the graph, defined by the graph */
	s = summary_of(TL_VIEW_OP, text_nograph, g);
	assert_int_equal(g_hash_table_size(s->rows), 4);
	assert_true(col(s, "MatMul", TL_COL_FLOPS) == 120);
	assert_true(col(s, "Relu", TL_COL_OCCURRENCE) == 0);
	assert_int_equal(row_named(s, "Relu")->defined, 1);
	tl_summary_free(s);
	tl_graph_attach_free(g);
}

/* The scope tree counts each node, scope parents too, as a definition. */
static void test_graph_tree(void **state)
{
	(void)state;
	tl_graph_attach *g = graph_of(graph_text);
	tl_summary *s = summary_of(TL_VIEW_SCOPE, text_nograph, g);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_tree *t = tl_summary_tree_new(s, &o);
	/* x, w, a/MatMul, a/never and the scope a */
	assert_int_equal(t->root->n_defined, 5);
	assert_true(t->root->total[TL_COL_OCCURRENCE] == 2);
	tl_summary_tree_free(t);
	tl_summary_free(s);
	tl_graph_attach_free(g);
}

/* A run with its own partition graphs keeps them: --graph is not used. */
static void test_graph_unused(void **state)
{
	(void)state;
	tl_graph_attach *g = graph_of(graph_text);
	tl_summary *s =
	    summary_of(TL_VIEW_NODE,
		       STEP(DEV(CPU, EXEC("z", 100, 2) END)) GRAPH(NODE("z", "Neg", CPU, "")), g);
	assert_int_equal(g_hash_table_size(s->rows), 1);
	assert_int_equal(s->kept_out_execs, 0);
	tl_summary_free(s);
	tl_graph_attach_free(g);
}

/* A run is not a graph. */
static void test_not_a_graph(void **state)
{
	(void)state;
	char *path = g_build_filename(tmpdir, "run.pbtxt", NULL);
	assert_true(g_file_set_contents(path, text_times, -1, NULL));
	tl_graph_attach *g = NULL;
	tl_error err = {0};
	assert_int_equal(tl_graph_attach_read(&g, path, &err), -1);
	assert_null(g);
	assert_string_equal(err.msg, "not a GraphDef (it is a run (step_stats))");
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_and_memory), cmocka_unit_test(test_accelerator),
	    cmocka_unit_test(test_graph_rows),	   cmocka_unit_test(test_graph_tree),
	    cmocka_unit_test(test_graph_unused),   cmocka_unit_test(test_not_a_graph),
	};
	return cmocka_run_group_tests_name("summary_graph", tests, tmpdir_setup, tmpdir_teardown);
}
