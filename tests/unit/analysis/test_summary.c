/* Unit tests of analysis/summary.c, summary_tree.c and summary_partial.c:
 * tfprof-style aggregates of runs written here as RunMetadata text.
 *
 * Each view's rows of one run, every column worked out by hand (executor
 * time to op_end_rel, kernel time on stream:all, the streams only where a
 * GPU has no stream:all, occurrences, the AllocatorMemoryUsed bytes summed
 * over allocators as tfprof does (peak too), output bytes,
 * params of variables whether they ran or not, float ops of a MatMul and
 * a Conv2D); the statistics over runs, a run without the row counting 0;
 * the flat table's filters, totals and order, and its first lines alone
 * (opts.keep, the ties at the cut broken by name); a summary of the times
 * alone (times_only, a page's); the scope tree's totals and
 * kids; absorbing summaries equal to adding their runs in order; a
 * partial written and read back equal to the summary it came from, and
 * one of another view refused. Times in the comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/summary.h"
#include "analysis/summary_internal.h"
#include "emit/summary.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"
#include "tmpdir.h"

#define DIM(n) " dim { size: " #n " }"
/* Output `slot` with a shape and `bytes` requested. */
#define OUT_SB(slot, bytes, dims)                                                                  \
	" output { slot: " #slot " tensor_description { dtype: DT_FLOAT shape {" dims " }"         \
	" allocation_description { requested_bytes: " #bytes " allocated_bytes: " #bytes           \
	" allocator_name: \"cpu\" } } }"
/* AllocatorMemoryUsed: total (requested), peak and live (residual) bytes. */
#define MEMU(alloc, total, peak, live)                                                             \
	" memory { allocator_name: \"" alloc "\" total_bytes: " #total " peak_bytes: " #peak       \
	" live_bytes: " #live " }"
#define ATTR_SHAPE(dims) " attr { key: \"shape\" value { shape {" dims " } } }"
#define KERNEL(node, start, dur, label)                                                            \
	EXEC(node, start, dur) " timeline_label: \"" label "@@" node "\"" END

/* Run a, 100..135.
 * CPU: w (VariableV2 [4x5], 80 B out) 100..102; x (Const [3x4], 48 B)
 * 100..101; dense/MatMul x * w -> [3x5] (60 B) 103..113, memory: 60
 * requested, peak 100, 0 live; flops 2 * 15 * 4 = 120; dense/Relu [3x5]
 * (60 B) 114..116, flops 15. unused: a VariableV2 [7] that never ran.
 * GPU: img [1x4x4x2] (128 B) and filt [3x3x2x8] (576 B) 100..101;
 * conv/Conv2D -> [1x4x4x8] (512 B) 102..105, memory gpu 512/1024/256 and
 * cpu 10/20/5 (peak 1024 + 20, tfprof's sum); flops 2 * 128 * 3 * 3 * 2
 * = 4608. Its kernels: winograd 106..126 on stream 7, k2 130..135 on
 * stream 9, both repeated on stream:all (what counts: 25 us, the streams'
 * copies not again). */
/* clang-format off */
static const char text_a[] =
	STEP(
		DEV(CPU,
			EXEC("w", 100, 2) OUT_SB(0, 80, DIM(4) DIM(5)) END
			EXEC("x", 100, 1) OUT_SB(0, 48, DIM(3) DIM(4)) END
			EXEC("dense/MatMul", 103, 10) OUT_SB(0, 60, DIM(3) DIM(5))
				MEMU("cpu", 60, 100, 0) END
			EXEC("dense/Relu", 114, 2) OUT_SB(0, 60, DIM(3) DIM(5)) END)
		DEV(GPU,
			EXEC("img", 100, 1) OUT_SB(0, 128, DIM(1) DIM(4) DIM(4) DIM(2)) END
			EXEC("filt", 100, 1) OUT_SB(0, 576, DIM(3) DIM(3) DIM(2) DIM(8)) END
			EXEC("conv/Conv2D", 102, 3) OUT_SB(0, 512, DIM(1) DIM(4) DIM(4) DIM(8))
				MEMU("gpu", 512, 1024, 256) MEMU("cpu", 10, 20, 5) END)
		DEV("/device:GPU:0/stream:7",
			KERNEL("conv/Conv2D:Conv2D", 106, 20, "winograd"))
		DEV("/device:GPU:0/stream:9",
			KERNEL("conv/Conv2D:Conv2D", 130, 5, "k2"))
		DEV("/device:GPU:0/stream:all",
			KERNEL("conv/Conv2D:Conv2D", 106, 20, "winograd")
			KERNEL("conv/Conv2D:Conv2D", 130, 5, "k2")))
	GRAPH(
		NODE("w", "VariableV2", CPU, ATTR_SHAPE(DIM(4) DIM(5)))
		NODE("unused", "VariableV2", CPU, ATTR_SHAPE(DIM(7)))
		NODE("x", "Const", CPU, "")
		NODE("dense/MatMul", "MatMul", CPU, IN("x") IN("w"))
		NODE("dense/Relu", "Relu", CPU, IN("dense/MatMul")))
	GRAPH(
		NODE("img", "Const", GPU, "")
		NODE("filt", "Const", GPU, "")
		NODE("conv/Conv2D", "Conv2D", GPU, IN("img") IN("filt")));

/* Run b, 200..217: conv/Conv2D 200..204 and extra/Sub 205..206 on the GPU;
 * the conv's kernel 210..217 recorded on stream:all only (no streams, so
 * it counts: 7 us). */
static const char text_b[] =
	STEP(
		DEV(GPU,
			EXEC("conv/Conv2D", 200, 4) END
			EXEC("extra/Sub", 205, 1) END)
		DEV("/device:GPU:0/stream:all",
			KERNEL("conv/Conv2D:Conv2D", 210, 7, "winograd")))
	GRAPH(
		NODE("conv/Conv2D", "Conv2D", GPU, "")
		NODE("extra/Sub", "Sub", GPU, ""));

/* Run c: frac (Neg) on the CPU for 1234 ns, 1.234 us: a value a float
 * cannot hold, which a partial must carry exactly. */
static const char text_c[] =
	STEP(DEV(CPU,
		"node_stats { node_name: \"frac\" all_start_micros: 300"
		" all_start_nanos: 300001 all_end_rel_micros: 1 all_end_rel_nanos: 1234 }\n"))
	GRAPH(NODE("frac", "Neg", CPU, ""));
/* clang-format on */

/* ---- helpers ------------------------------------------------------------ */

/* A summary of `view` over the runs (text, label), in order. */
static tl_summary *summary_of(tl_summary_view view, const char *const *texts, size_t n)
{
	tl_summary *s = tl_summary_new(view);
	for (size_t i = 0; i < n; i++) {
		tl_run *run = td_run_of_text(texts[2 * i], texts[2 * i + 1]);
		tl_summary_add_run(s, run);
		tl_run_free(run);
	}
	tl_warn_clear();
	return s;
}

static tl_summary *summary_a(tl_summary_view view)
{
	static const char *const runs[] = {text_a, "a"};
	return summary_of(view, runs, 1);
}

static const tl_row *row_named(const tl_summary *s, const char *name)
{
	const tl_row *r = g_hash_table_lookup(s->rows, name);
	if (r == NULL)
		fail_msg("no row %s", name);
	return r;
}

/* Every column of row `name` (the average over the runs) is `want`. */
static void assert_row(const tl_summary *s, const char *name, const double *want)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	const tl_row *r = row_named(s, name);
	for (int c = 0; c < TL_N_COLS; c++) {
		double got = tl_summary_row_stat(s, r, c, &o);
		if (got != want[c])
			fail_msg("%s %s: %g, expected %g", name, tl_summary_col_name(c), got, want[c]);
	}
}

#define VALS(...) ((const double[TL_N_COLS]){__VA_ARGS__})

static void assert_str_or_null(const char *got, const char *want)
{
	if (want == NULL)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

/* x and y hold the same runs and rows: labels, flags, and per row its
 * defined count, shape, op and every column under every statistic. */
static void assert_same(const tl_summary *x, const tl_summary *y)
{
	assert_int_equal(x->view, y->view);
	assert_int_equal(x->n_runs, y->n_runs);
	assert_int_equal(x->run_labels->len, y->run_labels->len);
	for (guint i = 0; i < x->run_labels->len; i++)
		assert_string_equal(g_ptr_array_index(x->run_labels, i),
				    g_ptr_array_index(y->run_labels, i));
	assert_int_equal(x->have_graph, y->have_graph);
	assert_int_equal(x->have_memory, y->have_memory);
	assert_int_equal(x->from_chrome, y->from_chrome);
	assert_int_equal(x->nested, y->nested);
	assert_int_equal(x->have_device, y->have_device);
	assert_int_equal(g_hash_table_size(x->rows), g_hash_table_size(y->rows));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, x->rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const tl_row *rx = v, *ry = row_named(y, k);
		if (rx->defined != ry->defined)
			fail_msg("%s defined: %" PRId64 " vs %" PRId64, rx->name, rx->defined,
				 ry->defined);
		assert_str_or_null(ry->shape, rx->shape);
		assert_str_or_null(ry->extra, rx->extra);
		tl_summary_opts o;
		tl_summary_opts_init(&o);
		/* each run's own values (--step), then the statistics */
		for (size_t run = 0; run < x->n_runs; run++) {
			o.step = (int)run;
			for (int c = 0; c < TL_N_COLS; c++)
				if (tl_summary_row_stat(x, rx, c, &o) !=
				    tl_summary_row_stat(y, ry, c, &o))
					fail_msg("%s run %zu %s differs", rx->name, run,
						 tl_summary_col_name(c));
		}
		o.step = -1;
		for (int st = TL_STAT_AVG; st <= TL_STAT_STDDEV; st++) {
			o.stat = (tl_stat)st;
			for (int c = 0; c < TL_N_COLS; c++) {
				double a = tl_summary_row_stat(x, rx, c, &o);
				double b = tl_summary_row_stat(y, ry, c, &o);
				if (a != b)
					fail_msg("%s %s %s: %.17g vs %.17g", rx->name,
						 tl_summary_stat_names[st], tl_summary_col_name(c), a, b);
			}
		}
	}
}

/* ---- the views of one run ----------------------------------------------- */

/* Op view of a: one row per op type, every column. Defined nodes per op
 * from the graph: Const 3, VariableV2 2 (unused too). */
static void test_op_view(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_OP);
	assert_int_equal(g_hash_table_size(s->rows), 5);
	assert_true(s->have_graph);
	assert_true(s->have_memory);
	/* total, accelerator, cpu, occurrence, requested, peak, residual,
	 * output, params, float_ops */
	assert_row(s, "Conv2D", VALS(28, 25, 3, 1, 522, 1044, 261, 512, 0, 4608, 28));
	assert_row(s, "MatMul", VALS(10, 0, 10, 1, 60, 100, 0, 60, 0, 120, 10));
	/* x, img, filt: 1 us and 48 + 128 + 576 bytes out */
	assert_row(s, "Const", VALS(3, 0, 3, 3, 0, 0, 0, 752, 0, 0, 3));
	/* w ran (2 us, 80 B); params 4 * 5 + 7 of unused, which never ran */
	assert_row(s, "VariableV2", VALS(2, 0, 2, 1, 0, 0, 0, 80, 27, 0, 2));
	assert_row(s, "Relu", VALS(2, 0, 2, 1, 0, 0, 0, 60, 0, 15, 2));
	assert_int_equal(row_named(s, "Const")->defined, 3);
	assert_int_equal(row_named(s, "VariableV2")->defined, 2);
	assert_int_equal(row_named(s, "Conv2D")->defined, 1);
	tl_summary_free(s);
}

/* Node view: a row per node with its op (extra) and, for a variable, its
 * shape; unused is a row of params only. The scope view keys the same. */
static void test_node_view(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_NODE);
	assert_int_equal(g_hash_table_size(s->rows), 8);
	assert_row(s, "w", VALS(2, 0, 2, 1, 0, 0, 0, 80, 20, 0, 2));
	assert_string_equal(row_named(s, "w")->shape, "4x5");
	assert_string_equal(row_named(s, "w")->extra, "VariableV2");
	assert_row(s, "unused", VALS(0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0));
	assert_string_equal(row_named(s, "unused")->shape, "7");
	assert_row(s, "conv/Conv2D", VALS(28, 25, 3, 1, 522, 1044, 261, 512, 0, 4608, 28));
	assert_string_equal(row_named(s, "conv/Conv2D")->extra, "Conv2D");
	assert_null(row_named(s, "conv/Conv2D")->shape);
	assert_row(s, "dense/Relu", VALS(2, 0, 2, 1, 0, 0, 0, 60, 0, 15, 2));
	assert_int_equal(row_named(s, "x")->defined, 1);
	tl_summary_free(s);
	s = summary_a(TL_VIEW_SCOPE);
	assert_int_equal(g_hash_table_size(s->rows), 8);
	assert_row(s, "dense/MatMul", VALS(10, 0, 10, 1, 60, 100, 0, 60, 0, 120, 10));
	tl_summary_free(s);
}

/* Device view: executors only (no stream rows). CPU: w, x, MatMul, Relu:
 * 2 + 1 + 10 + 2 = 15 us, 4 runs, out 80 + 48 + 60 + 60 = 248, params of
 * both variables 27, flops 135. GPU: 1 + 1 + 3 = 5 us plus 25 of kernels,
 * out 128 + 576 + 512 = 1216. */
static void test_device_view(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_DEVICE);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	assert_row(s, CPU, VALS(15, 0, 15, 4, 60, 100, 0, 248, 27, 135, 15));
	assert_row(s, GPU, VALS(30, 25, 5, 3, 522, 1044, 261, 1216, 0, 4608, 30));
	tl_summary_free(s);
}

/* Kernel view: a row per kernel name (the label before @@) from the
 * streams, with its op; stream:all records are no kernels, so run b adds
 * none. */
static void test_kernel_view(void **state)
{
	(void)state;
	static const char *const runs[] = {text_a, "a", text_b, "b"};
	tl_summary *s = summary_of(TL_VIEW_KERNEL, runs, 2);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	/* averaged over 2 runs: 20 / 2, 5 / 2 */
	assert_row(s, "winograd", VALS(10, 10, 0, 0.5, 0, 0, 0, 0, 0, 0, 10));
	assert_row(s, "k2", VALS(2.5, 2.5, 0, 0.5, 0, 0, 0, 0, 0, 0, 2.5));
	assert_string_equal(row_named(s, "winograd")->extra, "Conv2D");
	tl_summary_free(s);
}

/* Step view: a row per run, its own values whatever the statistic. a:
 * 100..135, total 35; executors busy CPU [100,102] [103,113] [114,116] 14
 * + GPU [100,101] [102,105] 4 = 18; streams 20 + 5 = 25 (stream:all not
 * counted). b: 200..217, 17; GPU [200,204] [205,206] 5; no stream. */
static void test_step_view(void **state)
{
	(void)state;
	static const char *const runs[] = {text_a, "a", text_b, "b"};
	tl_summary *s = summary_of(TL_VIEW_STEP, runs, 2);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	assert_row(s, "a", VALS(35, 25, 18, 1, 0, 0, 0, 0, 0, 0, 35));
	assert_row(s, "b", VALS(17, 0, 5, 1, 0, 0, 0, 0, 0, 0, 17));
	tl_summary_free(s);
}

/* stream:all counts when a run has no streams: b's conv has 4 us on the
 * GPU and 7 of kernel. */
static void test_stream_all(void **state)
{
	(void)state;
	static const char *const runs[] = {text_b, "b"};
	tl_summary *s = summary_of(TL_VIEW_OP, runs, 1);
	assert_row(s, "Conv2D", VALS(11, 7, 4, 1, 0, 0, 0, 0, 0, 0, 11));
	assert_row(s, "Sub", VALS(1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1));
	assert_false(s->have_memory);
	tl_summary_free(s);
}

/* With --occurrence defined, occurrence is the nodes defined (first
 * run's graph), not executions: Const 3, VariableV2 2 (one ran). */
static void test_occurrence_defined(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_OP);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.occurrence_defined = true;
	assert_true(tl_summary_row_stat(s, row_named(s, "Const"), TL_COL_OCCURRENCE, &o) == 3);
	assert_true(tl_summary_row_stat(s, row_named(s, "VariableV2"), TL_COL_OCCURRENCE, &o) == 2);
	o.occurrence_defined = false;
	assert_true(tl_summary_row_stat(s, row_named(s, "VariableV2"), TL_COL_OCCURRENCE, &o) == 1);
	tl_summary_free(s);
}

/* ---- statistics over runs ----------------------------------------------- */

/* A run with a Const c of 1 us and, when dur > 0, a Neg n of dur us. */
static tl_run *neg_run(int dur, const char *label)
{
	/* clang-format off */
	static const char without[] =
		STEP(DEV(CPU, EXEC("c", 100, 1) END))
		GRAPH(NODE("c", "Const", CPU, "") NODE("n", "Neg", CPU, ""));
	/* clang-format on */
	char *text =
	    dur > 0
		? g_strdup_printf(STEP(DEV(CPU, EXEC("c", 100, 1) END
					   "node_stats { node_name: \"n\" all_start_micros: 101"
					   " op_end_rel_micros: %d all_end_rel_micros: %d }\n"))
				      GRAPH(NODE("c", "Const", CPU, "") NODE("n", "Neg", CPU, "")),
				  dur, dur)
		: g_strdup(without);
	tl_run *run = td_run_of_text(text, label);
	g_free(text);
	return run;
}

static tl_summary *neg_summary(const int *durs, size_t n)
{
	tl_summary *s = tl_summary_new(TL_VIEW_OP);
	for (size_t i = 0; i < n; i++) {
		char label[16];
		g_snprintf(label, sizeof label, "r%zu", i);
		tl_run *run = neg_run(durs[i], label);
		tl_summary_add_run(s, run);
		tl_run_free(run);
	}
	tl_warn_clear();
	return s;
}

static double stat_of(const tl_summary *s, const char *row, tl_stat st, int step)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.stat = st;
	o.step = step;
	return tl_summary_row_stat(s, row_named(s, row), TL_COL_CPU, &o);
}

/* Neg over 4 runs: absent (0), 10, 40, 20. avg 70 / 4 = 17.5; first 0
 * (the row is absent from run 0); min 0; max 40; sorted 0 10 20 40: p50
 * the 2nd (ceil(0.5 * 4)) 10, p90 the 4th (ceil(3.6)) 40; stddev: mean
 * 17.5, squares 306.25 + 56.25 + 506.25 + 6.25 = 875, sqrt(875 / 4).
 * Const is 1 in every run: 1, stddev 0. --step 2: run 2 alone, 40; a
 * step past the runs: 0. */
static void test_stats(void **state)
{
	(void)state;
	static const int durs[] = {0, 10, 40, 20};
	tl_summary *s = neg_summary(durs, G_N_ELEMENTS(durs));
	assert_int_equal(s->n_runs, 4);
	assert_true(stat_of(s, "Neg", TL_STAT_AVG, -1) == 17.5);
	assert_true(stat_of(s, "Neg", TL_STAT_FIRST, -1) == 0);
	assert_true(stat_of(s, "Neg", TL_STAT_MIN, -1) == 0);
	assert_true(stat_of(s, "Neg", TL_STAT_MAX, -1) == 40);
	assert_true(stat_of(s, "Neg", TL_STAT_P50, -1) == 10);
	assert_true(stat_of(s, "Neg", TL_STAT_P90, -1) == 40);
	assert_true(stat_of(s, "Neg", TL_STAT_STDDEV, -1) == sqrt(875.0 / 4));
	assert_true(stat_of(s, "Const", TL_STAT_AVG, -1) == 1);
	assert_true(stat_of(s, "Const", TL_STAT_MIN, -1) == 1);
	assert_true(stat_of(s, "Const", TL_STAT_STDDEV, -1) == 0);
	assert_true(stat_of(s, "Neg", TL_STAT_AVG, 2) == 40);
	assert_true(stat_of(s, "Neg", TL_STAT_AVG, 0) == 0);
	assert_true(stat_of(s, "Neg", TL_STAT_AVG, 4) == 0);
	tl_summary_free(s);
}

/* Neg over 10 runs: 1 2 3 4 5 absent 7 8 9 10. Sorted 0 1 2 3 4 5 7 8 9
 * 10: min 0, p50 the 5th (ceil(5)) 4, p90 the 9th (ceil(9)) 9, max 10;
 * avg 49 / 10; first 1. */
static void test_percentiles(void **state)
{
	(void)state;
	static const int durs[] = {1, 2, 3, 4, 5, 0, 7, 8, 9, 10};
	tl_summary *s = neg_summary(durs, G_N_ELEMENTS(durs));
	assert_true(stat_of(s, "Neg", TL_STAT_MIN, -1) == 0);
	assert_true(stat_of(s, "Neg", TL_STAT_P50, -1) == 4);
	assert_true(stat_of(s, "Neg", TL_STAT_P90, -1) == 9);
	assert_true(stat_of(s, "Neg", TL_STAT_MAX, -1) == 10);
	assert_true(stat_of(s, "Neg", TL_STAT_AVG, -1) == 4.9);
	assert_true(stat_of(s, "Neg", TL_STAT_FIRST, -1) == 1);
	tl_summary_free(s);
}

/* ---- the flat table ----------------------------------------------------- */

/* The names of a flat table's lines, in order, joined by spaces. */
static char *flat_names(const tl_summary *s, const tl_summary_opts *o, tl_summary_flat **out)
{
	tl_summary_flat *f = tl_summary_flat_new(s, o);
	GString *names = g_string_new(NULL);
	for (size_t i = 0; i < f->n; i++)
		g_string_append_printf(names, "%s%s", i ? " " : "", f->lines[i].row->name);
	*out = f;
	return g_string_free(names, FALSE);
}

static void assert_flat(const tl_summary *s, const tl_summary_opts *o, const char *names,
			double total, double total_cpu)
{
	tl_summary_flat *f = NULL;
	char *got = flat_names(s, o, &f);
	assert_string_equal(got, names);
	assert_true(f->total[TL_COL_TOTAL] == total);
	assert_true(f->total[TL_COL_CPU] == total_cpu);
	g_free(got);
	tl_summary_flat_free(f);
}

/* Op view of a, total_micros: Conv2D 28, MatMul 10, Const 3, Relu 2,
 * VariableV2 2 (ties by name); all 45, cpu 3 + 10 + 3 + 2 + 2 = 20.
 * --show keeps Conv2D and MatMul (totals 38, cpu 13); --hide Const
 * leaves 42 (cpu 17); --min-cpu_micros 3 shows Conv2D, MatMul, Const but
 * the totals stay those of every row, unless --account-displayed-only:
 * 41 (cpu 16). */
static void test_flat_filters(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_OP);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	assert_flat(s, &o, "Conv2D MatMul Const Relu VariableV2", 45, 20);
	o.show = g_regex_new("^(Conv|Mat)", 0, 0, NULL);
	assert_flat(s, &o, "Conv2D MatMul", 38, 13);
	g_regex_unref(o.show);
	o.show = NULL;
	o.hide = g_regex_new("^Const$", 0, 0, NULL);
	assert_flat(s, &o, "Conv2D MatMul Relu VariableV2", 42, 17);
	g_regex_unref(o.hide);
	o.hide = NULL;
	o.min[TL_COL_CPU] = 3;
	assert_flat(s, &o, "Conv2D MatMul Const", 45, 20);
	o.displayed_only = true;
	assert_flat(s, &o, "Conv2D MatMul Const", 41, 16);
	tl_summary_free(s);
}

/* --account-type matches a node's op in the node view (dense/MatMul 10
 * and dense/Relu 2: 12) and a device's name in the device view (GPU:
 * 30, cpu 5). */
static void test_flat_account_type(void **state)
{
	(void)state;
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.account_type = g_regex_new("^(MatMul|Relu)$", 0, 0, NULL);
	tl_summary *s = summary_a(TL_VIEW_NODE);
	assert_flat(s, &o, "dense/MatMul dense/Relu", 12, 12);
	tl_summary_free(s);
	g_regex_unref(o.account_type);
	o.account_type = g_regex_new("GPU", 0, 0, NULL);
	s = summary_a(TL_VIEW_DEVICE);
	assert_flat(s, &o, GPU, 30, 5);
	tl_summary_free(s);
	g_regex_unref(o.account_type);
}

/* The order: by name with --order-by name (shares of the first selected
 * column), by float_ops (Conv2D 4608, MatMul 120, Relu 15, then the zeros
 * by name), and each line's values are the row's statistics. */
static void test_flat_order(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_OP);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_flat *f = NULL;
	char *names = flat_names(s, &o, &f);
	assert_int_equal(f->share_col, TL_COL_TOTAL);
	assert_true(f->lines[0].v[TL_COL_ACCEL] == 25);
	assert_true(f->lines[0].v[TL_COL_FLOPS] == 4608);
	g_free(names);
	tl_summary_flat_free(f);
	o.order_by = -1;
	o.select[0] = TL_COL_CPU;
	names = flat_names(s, &o, &f);
	assert_string_equal(names, "Const Conv2D MatMul Relu VariableV2");
	assert_int_equal(f->share_col, TL_COL_CPU);
	g_free(names);
	tl_summary_flat_free(f);
	o.order_by = TL_COL_FLOPS;
	names = flat_names(s, &o, &f);
	assert_string_equal(names, "Conv2D MatMul Relu Const VariableV2");
	assert_int_equal(f->share_col, TL_COL_FLOPS);
	g_free(names);
	tl_summary_flat_free(f);
	tl_summary_free(s);
}

/* opts.keep: the first lines of the whole order alone, the ties at the
 * cut (Relu and VariableV2, 2 us each) broken by name as the whole sort
 * breaks them; every line passing counted (n_all) and in the totals
 * (45 us, 20 us of CPU, integers: the same in any order); keep 0, or as
 * many as the rows or more, the whole table. */
static void test_flat_keep(void **state)
{
	(void)state;
	tl_summary *s = summary_a(TL_VIEW_OP);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	static const struct {
		size_t keep;
		int order_by;
		const char *names;
	} cases[] = {
	    {0, TL_COL_TOTAL, "Conv2D MatMul Const Relu VariableV2"},
	    {4, TL_COL_TOTAL, "Conv2D MatMul Const Relu"},
	    {3, TL_COL_TOTAL, "Conv2D MatMul Const"},
	    {1, TL_COL_TOTAL, "Conv2D"},
	    {5, TL_COL_TOTAL, "Conv2D MatMul Const Relu VariableV2"},
	    {9, TL_COL_TOTAL, "Conv2D MatMul Const Relu VariableV2"},
	    {2, -1, "Const Conv2D"},
	    {2, TL_COL_FLOPS, "Conv2D MatMul"},
	    {4, TL_COL_FLOPS, "Conv2D MatMul Relu Const"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		o.keep = cases[i].keep;
		o.order_by = cases[i].order_by;
		tl_summary_flat *f = NULL;
		char *names = flat_names(s, &o, &f);
		assert_string_equal(names, cases[i].names);
		assert_int_equal(f->n_all, 5);
		assert_true(f->total[TL_COL_TOTAL] == 45);
		assert_true(f->total[TL_COL_CPU] == 20);
		/* the lines' values are the rows' statistics */
		for (size_t k = 0; k < f->n; k++) {
			double v[TL_N_COLS];
			tl_summary_row_stats(s, f->lines[k].row, &o, v);
			assert_memory_equal(v, f->lines[k].v, sizeof v);
		}
		g_free(names);
		tl_summary_flat_free(f);
	}
	/* a value filter's lines (cpu 3 us or more: Conv2D, MatMul, Const)
	 * are the ones kept from and counted; the totals take every row,
	 * or with --account-displayed-only the lines that pass (41, 16) */
	o.keep = 2;
	o.order_by = TL_COL_TOTAL;
	o.min[TL_COL_CPU] = 3;
	assert_flat(s, &o, "Conv2D MatMul", 45, 20);
	o.displayed_only = true;
	assert_flat(s, &o, "Conv2D MatMul", 41, 16);
	tl_summary_flat *f = tl_summary_flat_new(s, &o);
	assert_int_equal(f->n_all, 3);
	tl_summary_flat_free(f);
	tl_summary_free(s);
}

/* times_only (a page's tables): the times, occurrence and definitions of
 * test_op_view, the params of the variables too; no memory, no
 * float_ops. */
static void test_times_only(void **state)
{
	(void)state;
	tl_summary *s = tl_summary_new(TL_VIEW_OP);
	s->times_only = true;
	tl_run *run = td_run_of_text(text_a, "a");
	tl_summary_add_run(s, run);
	tl_run_free(run);
	tl_warn_clear();
	assert_int_equal(g_hash_table_size(s->rows), 5);
	assert_row(s, "Conv2D", VALS(28, 25, 3, 1, 0, 0, 0, 0, 0, 0, 28));
	assert_row(s, "MatMul", VALS(10, 0, 10, 1, 0, 0, 0, 0, 0, 0, 10));
	assert_row(s, "Const", VALS(3, 0, 3, 3, 0, 0, 0, 0, 0, 0, 3));
	assert_row(s, "VariableV2", VALS(2, 0, 2, 1, 0, 0, 0, 0, 27, 0, 2));
	assert_row(s, "Relu", VALS(2, 0, 2, 1, 0, 0, 0, 0, 0, 0, 2));
	assert_int_equal(row_named(s, "Const")->defined, 3);
	assert_int_equal(row_named(s, "VariableV2")->defined, 2);
	tl_summary_free(s);
}

/* ---- the scope tree ----------------------------------------------------- */

/* Nodes a 1, a/b 2, a/b/c 4, a/d 8, e 16, s/t/u 32 (Neg, us): the
 * binary values make every sum unique. */
/* clang-format off */
static const char text_tree[] =
	STEP(DEV(CPU,
		EXEC("a", 100, 1) END
		EXEC("a/b", 100, 2) END
		EXEC("a/b/c", 100, 4) END
		EXEC("a/d", 100, 8) END
		EXEC("e", 100, 16) END
		EXEC("s/t/u", 100, 32) END))
	GRAPH(
		NODE("a", "Neg", CPU, "")
		NODE("a/b", "Neg", CPU, "")
		NODE("a/b/c", "Neg", CPU, "")
		NODE("a/d", "Neg", CPU, "")
		NODE("e", "Neg", CPU, "")
		NODE("s/t/u", "Neg", CPU, ""));
/* clang-format on */

static char *kid_names(const tl_summary_scope *t, const tl_summary_opts *o)
{
	tl_summary_scope **kids = tl_summary_tree_kids(t, o);
	GString *names = g_string_new(NULL), *buf = g_string_new(NULL);
	for (uint32_t i = 0; i < t->n_kids; i++)
		g_string_append_printf(names, "%s%s", i ? " " : "",
				       tl_summary_tree_name(kids[i], buf));
	g_free(kids);
	g_string_free(buf, TRUE);
	return g_string_free(names, FALSE);
}

static void assert_kids(const tl_summary_scope *t, const tl_summary_opts *o, const char *want)
{
	char *got = kid_names(t, o);
	assert_string_equal(got, want);
	g_free(got);
}

/* Totals summed up the tree: a = 1 + (2 + 4) + 8 = 15, s = s/t = 32
 * (scopes without a row of their own), root 63. Kids in creation order
 * a, e, s; by total s 32, e 16, a 15; by name a, e, s; a's by total a/d
 * 8, a/b 6. */
static void test_tree(void **state)
{
	(void)state;
	static const char *const runs[] = {text_tree, "tree"};
	tl_summary *s = summary_of(TL_VIEW_SCOPE, runs, 1);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_tree *tree = tl_summary_tree_new(s, &o);
	const tl_summary_scope *root = tree->root;
	assert_true(root->total[TL_COL_TOTAL] == 63);
	assert_int_equal(root->n_kids, 3);
	const tl_summary_scope *a = root->first_kid, *e = a->next, *sc = e->next;
	GString *buf = g_string_new(NULL);
	assert_string_equal(tl_summary_tree_name(a, buf), "a");
	assert_string_equal(tl_summary_tree_name(e, buf), "e");
	assert_string_equal(tl_summary_tree_name(sc, buf), "s");
	assert_true(a->self[TL_COL_TOTAL] == 1);
	assert_true(a->total[TL_COL_TOTAL] == 15);
	assert_true(a->first_kid->total[TL_COL_TOTAL] == 6);
	assert_true(e->total[TL_COL_CPU] == 16);
	assert_null(sc->row);
	assert_null(sc->self);
	assert_true(sc->total[TL_COL_TOTAL] == 32);
	const tl_summary_scope *st = sc->first_kid;
	assert_string_equal(tl_summary_tree_name(st, buf), "s/t");
	assert_null(st->row);
	assert_ptr_equal(st->parent, sc);
	assert_string_equal(tl_summary_tree_name(st->first_kid, buf), "s/t/u");
	assert_non_null(st->first_kid->row);
	GRegex *re = g_regex_new("^s/t$", 0, 0, NULL);
	assert_true(tl_summary_tree_match(re, st));
	assert_false(tl_summary_tree_match(re, sc));
	assert_false(tl_summary_tree_match(re, st->first_kid));
	g_regex_unref(re);
	g_string_free(buf, TRUE);
	assert_kids(root, &o, "s e a");
	assert_kids(a, &o, "a/d a/b");
	o.order_by = -1;
	assert_kids(root, &o, "a e s");
	assert_kids(a, &o, "a/b a/d");
	tl_summary_tree_free(tree);
	tl_summary_free(s);
}

/* Names that share bytes but not scopes, walked in sorted order ("/x",
 * "/y/z", "a/b", "a/b-x", "a/b/c", "a/bc/d"): a/b/c comes after a/b-x,
 * with which it shares "a/b" but not the scope a/b, and goes under a/b
 * (made by the row a/b); a/bc is a scope of its own; "/x" and "/y" are
 * under the empty first component. Values 1, 2, 4, 8, 16, 32 in that
 * order of the names above as given to the summary: a/b 1, a/b-x 2,
 * a/b/c 4, a/bc/d 8, /x 16, /y/z 32. */
static void test_tree_shared_bytes(void **state)
{
	(void)state;
	static const char *const names[] = {"a/b", "a/b-x", "a/b/c", "a/bc/d", "/x", "/y/z"};
	tl_summary *s = tl_summary_new(TL_VIEW_SCOPE);
	s->n_runs = 1;
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		tl_summary_vals v = {{0}};
		v.v[TL_COL_TOTAL] = (double)(1 << i);
		tl_summary_row_add(s, names[i], 0, &v);
	}
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_tree *tree = tl_summary_tree_new(s, &o);
	GString *buf = g_string_new(NULL);
	const tl_summary_scope *root = tree->root;
	assert_true(root->total[TL_COL_TOTAL] == 63);
	assert_int_equal(root->n_kids, 2);
	const tl_summary_scope *empty = root->first_kid, *a = empty->next;
	assert_string_equal(tl_summary_tree_name(empty, buf), "");
	assert_int_equal(empty->n_kids, 2);
	assert_true(empty->total[TL_COL_TOTAL] == 48);
	assert_string_equal(tl_summary_tree_name(empty->first_kid, buf), "/x");
	assert_string_equal(tl_summary_tree_name(empty->first_kid->next, buf), "/y");
	assert_string_equal(tl_summary_tree_name(a, buf), "a");
	assert_int_equal(a->n_kids, 3);
	assert_true(a->total[TL_COL_TOTAL] == 15);
	const tl_summary_scope *ab = a->first_kid, *abx = ab->next, *abc = abx->next;
	assert_string_equal(tl_summary_tree_name(ab, buf), "a/b");
	assert_true(ab->self[TL_COL_TOTAL] == 1);
	assert_true(ab->total[TL_COL_TOTAL] == 5);
	assert_int_equal(ab->n_kids, 1);
	assert_string_equal(tl_summary_tree_name(ab->first_kid, buf), "a/b/c");
	assert_string_equal(tl_summary_tree_name(abx, buf), "a/b-x");
	assert_int_equal(abx->n_kids, 0);
	assert_true(abx->total[TL_COL_TOTAL] == 2);
	assert_string_equal(tl_summary_tree_name(abc, buf), "a/bc");
	assert_null(abc->row);
	assert_true(abc->total[TL_COL_TOTAL] == 8);
	g_string_free(buf, TRUE);
	tl_summary_tree_free(tree);
	tl_summary_free(s);
}

/* The name filters leave rows out of the tree: --hide a/d makes a 7 and
 * the root 55. */
static void test_tree_hide(void **state)
{
	(void)state;
	static const char *const runs[] = {text_tree, "tree"};
	tl_summary *s = summary_of(TL_VIEW_SCOPE, runs, 1);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	o.hide = g_regex_new("^a/d$", 0, 0, NULL);
	tl_summary_tree *tree = tl_summary_tree_new(s, &o);
	assert_true(tree->root->total[TL_COL_TOTAL] == 55);
	assert_true(tree->root->first_kid->total[TL_COL_TOTAL] == 7);
	assert_int_equal(tree->root->first_kid->n_kids, 1);
	tl_summary_tree_free(tree);
	g_regex_unref(o.hide);
	tl_summary_free(s);
}

/* ---- absorbing and partials --------------------------------------------- */

/* [a] absorbing [a2, b, c] holds what adding a, a2, b, c in order does,
 * in every view, run by run (Sub first occurs in the absorbed summary's
 * second run, frac in its third). As with partials, the absorbed summary
 * starts with a run defining every node of a. */
static void test_absorb(void **state)
{
	(void)state;
	static const char *const all[] = {text_a, "a", text_a, "a2", text_b, "b", text_c, "c"};
	for (int v = TL_VIEW_OP; v <= TL_VIEW_STEP; v++) {
		tl_summary *direct = summary_of((tl_summary_view)v, all, 4);
		tl_summary *dst = summary_of((tl_summary_view)v, all, 1);
		tl_summary *src = summary_of((tl_summary_view)v, all + 2, 3);
		tl_summary_absorb(dst, src);
		assert_same(direct, dst);
		tl_summary_free(direct);
		tl_summary_free(dst);
		tl_summary_free(src);
	}
}

/* The defined counts do not depend on how the runs are split: b defines
 * two nodes, a eight (MatMul, 3 Const, Relu, 2 VariableV2, Conv2D); with b
 * first, the stream b, a and the summaries of b and of a absorbed count
 * each row's nodes as the run that defines the most (Const 3, not 0). */
static void test_defined_split(void **state)
{
	(void)state;
	static const char *const ba[] = {text_b, "b", text_a, "a"};
	for (int v = TL_VIEW_OP; v <= TL_VIEW_NODE; v++) {
		tl_summary *direct = summary_of((tl_summary_view)v, ba, 2);
		tl_summary *dst = summary_of((tl_summary_view)v, ba, 1);
		tl_summary *src = summary_of((tl_summary_view)v, ba + 2, 1);
		tl_summary_absorb(dst, src);
		assert_same(direct, dst);
		if (v == TL_VIEW_OP)
			assert_int_equal(row_named(direct, "Const")->defined, 3);
		tl_summary_free(direct);
		tl_summary_free(dst);
		tl_summary_free(src);
	}
}

/* Writes partials of `parts` into one file, reads it into a summary of
 * `view`; returns tl_summary_read_partial's result. */
static int partial_trip(tl_summary *const *parts, size_t n, tl_summary *into, tl_error *err)
{
	char *path = g_build_filename(tmpdir, "partial.jsonl", NULL);
	tl_output *out = NULL;
	tl_error oerr;
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &oerr), 0);
	for (size_t i = 0; i < n; i++)
		tl_summary_write_partial(parts[i], out);
	assert_int_equal(tl_output_close(out, &oerr), 0);
	char *data = NULL;
	gsize len = 0;
	assert_true(g_file_get_contents(path, &data, &len, NULL));
	int rc = tl_summary_read_partial(into, (const uint8_t *)data, len, err);
	g_free(data);
	g_free(path);
	return rc;
}

/* A partial of runs a, a2, b, c read back is the summary it was written
 * from, in every view, run by run (c's 1.234 us too); two partials, of a
 * and of a2, b, c, one after the other, read as one, are the summary of
 * a, a2, b and c. Each part starts
 * with a run that defines every node: the defined counts come from a
 * summary's first run only, so parts starting with b would differ from
 * one stream in them (MatMul defined 1, not 0). */
static void test_partial(void **state)
{
	(void)state;
	static const char *const all[] = {text_a, "a", text_a, "a2", text_b, "b", text_c, "c"};
	for (int v = TL_VIEW_OP; v <= TL_VIEW_STEP; v++) {
		tl_summary *direct = summary_of((tl_summary_view)v, all, 4);
		tl_summary *back = tl_summary_new((tl_summary_view)v);
		tl_error err = {{0}};
		if (partial_trip(&direct, 1, back, &err) != 0)
			fail_msg("%s: %s", tl_summary_view_name((tl_summary_view)v), err.msg);
		assert_same(direct, back);
		tl_summary_free(back);
		tl_summary *parts[] = {summary_of((tl_summary_view)v, all, 1),
				       summary_of((tl_summary_view)v, all + 2, 3)};
		back = tl_summary_new((tl_summary_view)v);
		assert_int_equal(partial_trip(parts, 2, back, &err), 0);
		assert_same(direct, back);
		tl_summary_free(back);
		tl_summary_free(parts[0]);
		tl_summary_free(parts[1]);
		tl_summary_free(direct);
	}
}

/* A partial of the op view read into a node-view summary is refused with
 * the views named; other input is no partial. */
static void test_partial_refused(void **state)
{
	(void)state;
	tl_summary *op = summary_a(TL_VIEW_OP);
	tl_summary *node = tl_summary_new(TL_VIEW_NODE);
	tl_error err = {{0}};
	assert_int_equal(partial_trip(&op, 1, node, &err), -1);
	assert_string_equal(err.msg, "partial of --view=op, not node (--combine takes partials of "
				     "the --view it is given)");
	tl_summary_free(node);
	tl_summary_free(op);
	tl_summary *s = tl_summary_new(TL_VIEW_OP);
	assert_int_equal(tl_summary_read_partial(s, (const uint8_t *)"", 0, &err), -1);
	assert_string_equal(err.msg, "empty input");
	static const char other[] = "{\"tftrace_partial\":2,\"view\":\"op\"}\n";
	assert_int_equal(tl_summary_read_partial(s, (const uint8_t *)other, strlen(other), &err),
			 -1);
	assert_string_equal(err.msg, "line 1: not a trace-summarize partial");
	static const char row[] = "{\"tftrace_partial\":1,\"view\":\"op\",\"runs\":[\"a\"]}\n"
				  "{\"name\":\"Add\",\"v\":[]}\n";
	assert_int_equal(tl_summary_read_partial(s, (const uint8_t *)row, strlen(row), &err), -1);
	assert_string_equal(err.msg, "line 2: malformed row");
	static const char junk[] = "not json\n";
	assert_int_equal(tl_summary_read_partial(s, (const uint8_t *)junk, strlen(junk), &err), -1);
	assert_true(g_str_has_prefix(err.msg, "line 1: not a partial aggregate ("));
	tl_summary_free(s);
}

/* ---- Chrome traces ------------------------------------------------------ */

/* A Chrome trace as a run: X events by name (op view), by args.name
 * (node view), by process, named by its process_name less " Compute", or
 * "pid N" (device view). MatMul 5 on pid 1, Add 3 on pid 2. */
static void test_chrome(void **state)
{
	(void)state;
	static const char trace[] =
	    "{\"traceEvents\":["
	    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
	    "\"args\":{\"name\":\"/device:GPU:0 Compute\"}},"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":5,\"name\":\"MatMul\","
	    "\"args\":{\"name\":\"dense/MatMul\"}},"
	    "{\"ph\":\"X\",\"pid\":2,\"tid\":0,\"ts\":1,\"dur\":3,\"name\":\"Add\","
	    "\"args\":{\"name\":\"add\"}}]}";
	static const struct {
		tl_summary_view view;
		const char *r1, *r2;
	} cases[] = {
	    {TL_VIEW_OP, "MatMul", "Add"},
	    {TL_VIEW_NODE, "dense/MatMul", "add"},
	    {TL_VIEW_DEVICE, "/device:GPU:0", "pid 2"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		tl_summary *s = tl_summary_new(cases[i].view);
		tl_error err = {{0}};
		char *path = g_build_filename(tmpdir, "trace.json", NULL);
		assert_true(g_file_set_contents(path, trace, -1, NULL));
		tl_source *src = NULL;
		tl_run *run = NULL;
		assert_int_equal(tl_source_open(&src, path, TL_FORMAT_AUTO, &err), 0);
		assert_int_equal(tl_run_next(src, &run, &err), 1);
		tl_summary_add_run(s, run);
		tl_run_free(run);
		tl_source_close(src);
		g_free(path);
		assert_true(s->from_chrome);
		assert_string_equal(g_ptr_array_index(s->run_labels, 0), "trace.json");
		assert_int_equal(g_hash_table_size(s->rows), 2);
		assert_row(s, cases[i].r1, VALS(5, 0, 5, 1, 0, 0, 0, 0, 0, 0, 5));
		assert_row(s, cases[i].r2, VALS(3, 0, 3, 1, 0, 0, 0, 0, 0, 0, 3));
		tl_summary_free(s);
	}
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_op_view),
	    cmocka_unit_test(test_node_view),
	    cmocka_unit_test(test_device_view),
	    cmocka_unit_test(test_kernel_view),
	    cmocka_unit_test(test_step_view),
	    cmocka_unit_test(test_stream_all),
	    cmocka_unit_test(test_occurrence_defined),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_percentiles),
	    cmocka_unit_test(test_flat_filters),
	    cmocka_unit_test(test_flat_account_type),
	    cmocka_unit_test(test_flat_order),
	    cmocka_unit_test(test_flat_keep),
	    cmocka_unit_test(test_times_only),
	    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_tree_hide),
	    cmocka_unit_test(test_tree_shared_bytes),
	    cmocka_unit_test(test_absorb),
	    cmocka_unit_test(test_defined_split),
	    cmocka_unit_test(test_partial),
	    cmocka_unit_test(test_partial_refused),
	    cmocka_unit_test(test_chrome),
	};
	return cmocka_run_group_tests_name("summary", tests, tmpdir_setup, tmpdir_teardown);
}
