/* Unit tests of analysis/summary_slices.c: Chrome traces (read into runs
 * by io/chrome_run.c, as every tool reads them) in a summary, their slices
 * nested per thread (self time), device slices as accelerator time, and the
 * views on them.
 *
 * A Kineto-like trace, times in us from 0 (the file's are epoch us, past
 * what a double holds in ns): on the host thread ProfilerStep#1 0..100
 * holds aten::linear 10..60 holding aten::addmm 20..50 holding
 * cudaLaunchKernel 30..35; ProfilerStep#2 100..150 holds aten::relu
 * 110..130. On GPU 0's stream: gemm (cat kernel) 40..70 and a copy (cat
 * gpu_memcpy) 75..80, under a gpu_user_annotation 40..80 (a label, left
 * out); the profiler's own span (cat Trace) 0..150 is left out too. The
 * process labels come after the events, as Kineto writes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/summary.h"
#include "emit/summary.h"

#include <glib.h>
#include <string.h>

#include "testdata.h"
#include "tmpdir.h"

#define T0 "1700000000000"
#define XK(cat, name, pid, tid, ts, dur)                                                           \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid   \
	",\"ts\":" T0 #ts ",\"dur\":" #dur "},"

/* clang-format off */
static const char kineto[] = "{\"traceEvents\":["
	XK("user_annotation", "ProfilerStep#1", 100, 100, 000, 100)
	XK("cpu_op", "aten::linear", 100, 100, 010, 50)
	XK("cpu_op", "aten::addmm", 100, 100, 020, 30)
	XK("cuda_runtime", "cudaLaunchKernel", 100, 100, 030, 5)
	XK("user_annotation", "ProfilerStep#2", 100, 100, 100, 50)
	XK("cpu_op", "aten::relu", 100, 100, 110, 20)
	XK("kernel", "gemm", 0, 7, 040, 30)
	XK("gpu_memcpy", "Memcpy HtoD", 0, 7, 075, 5)
	XK("gpu_user_annotation", "ProfilerStep#1", 0, 7, 040, 40)
	XK("Trace", "PyTorch Profiler (0)", "\"Spans\"", 1, 000, 150)
	"{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":100,\"args\":{\"labels\":\"CPU\"}},"
	"{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
	"]}";

/* A TF2 trace-viewer JSON: /host:CPU's python3 thread runs train_function
 * 0..100 holding MatMul 10..20 (long_name dense/MatMul:MatMul);
 * /device:GPU:0's stream runs its kernel 30..60 (annotation
 * dense/MatMul:MatMul). The "TensorFlow Ops" line repeats the kernel as
 * MatMul and is left out; the "Steps" line's step 7 is 0..100. */
static const char tf2[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
	"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":13,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #13(Compute)\"}},"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":3735928562,\"name\":\"thread_name\",\"args\":{\"name\":\"TensorFlow Ops\"}},"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":3735928559,\"name\":\"thread_name\",\"args\":{\"name\":\"Steps\"}},"
	"{\"ph\":\"M\",\"pid\":501,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
	"{\"ph\":\"X\",\"pid\":501,\"tid\":9,\"ts\":0.0,\"dur\":100.0,\"name\":\"train_function\"},"
	"{\"ph\":\"X\",\"pid\":501,\"tid\":9,\"ts\":10.0,\"dur\":10.0,\"name\":\"MatMul\","
	"\"args\":{\"long_name\":\"dense/MatMul:MatMul\"}},"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":13,\"ts\":30.0,\"dur\":30.0,\"name\":\"volta_sgemm\","
	"\"args\":{\"annotation\":\"dense/MatMul:MatMul\"}},"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":3735928562,\"ts\":30.0,\"dur\":30.0,\"name\":\"MatMul\"},"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":3735928559,\"ts\":0.0,\"dur\":100.0,\"name\":\"7\"},"
	"{}]}";

/* timeline.py's GPU trace: the executor's MatMul 0..20; its kernel 5..15
 * on stream:12 and again on stream:all, a copy 16..18 on stream:12 and
 * again on memcpy: the repeats are left out. */
static const char tf1[] = "{\"traceEvents\":["
	"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/job:localhost/replica:0/task:0/device:GPU:0 Compute\"}},"
	"{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0/stream:all Compute\"}},"
	"{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0/stream:12 Compute\"}},"
	"{\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0/memcpy Compute\"}},"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":20,\"name\":\"MatMul\",\"args\":{\"name\":\"mm\",\"op\":\"MatMul\"}},"
	"{\"ph\":\"X\",\"pid\":2,\"tid\":0,\"ts\":5,\"dur\":10,\"name\":\"MatMul\",\"args\":{\"name\":\"mm\",\"op\":\"MatMul\"}},"
	"{\"ph\":\"X\",\"pid\":3,\"tid\":0,\"ts\":5,\"dur\":10,\"name\":\"MatMul\",\"args\":{\"name\":\"mm\",\"op\":\"MatMul\"}},"
	"{\"ph\":\"X\",\"pid\":3,\"tid\":0,\"ts\":16,\"dur\":2,\"name\":\"MEMCPYDtoH\",\"args\":{\"name\":\"edge_1_mm\",\"op\":\"MEMCPYDtoH\"}},"
	"{\"ph\":\"X\",\"pid\":4,\"tid\":0,\"ts\":16,\"dur\":2,\"name\":\"MEMCPYDtoH\",\"args\":{\"name\":\"edge_1_mm\",\"op\":\"MEMCPYDtoH\"}}"
	"]}";

/* Kernels and the ops that launched them (args "correlation"): on the
 * host thread aten::conv2d 0..40 holds aten::convolution 5..35 holding
 * cudaLaunchKernel 10..15 (correlation 1); aten::relu 50..70 holds
 * cuLaunchKernel 55..58 (2); cudaLaunchKernel 80..83 (3) is in no op. On
 * the GPU: conv_kernel 20..50 (1), relu_kernel 60..64 (2), orphan 70..72
 * (99: no launch carries it), stray 85..90 (3: its launch has no op). */
#define XA(cat, name, pid, tid, ts, dur, corr)                                                      \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid   \
	",\"ts\":" T0 #ts ",\"dur\":" #dur ",\"args\":{\"External id\": 4, \"correlation\": " #corr "}},"
static const char linked[] = "{\"traceEvents\":["
	XK("cpu_op", "aten::conv2d", 100, 100, 000, 40)
	XK("cpu_op", "aten::convolution", 100, 100, 005, 30)
	XA("cuda_runtime", "cudaLaunchKernel", 100, 100, 010, 5, 1)
	XK("cpu_op", "aten::relu", 100, 100, 050, 20)
	XA("cuda_driver", "cuLaunchKernel", 100, 100, 055, 3, 2)
	XA("cuda_runtime", "cudaLaunchKernel", 100, 100, 080, 3, 3)
	XA("kernel", "conv_kernel", 0, 7, 020, 30, 1)
	XA("kernel", "relu_kernel", 0, 7, 060, 4, 2)
	XA("kernel", "orphan", 0, 7, 070, 2, 99)
	XA("gpu_memset", "stray", 0, 7, 085, 5, 3)
	"{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
	"]}";
/* clang-format on */

/* The trace's run (written to k.json and read as the tools read it) added
 * to a new summary. */
static tl_summary *summary_of(tl_summary_view view, const char *trace)
{
	tl_summary *s = tl_summary_new(view);
	tl_error err = {{0}};
	char *path = g_build_filename(tmpdir, "k.json", NULL);
	if (!g_file_set_contents(path, trace, -1, NULL))
		fail_msg("cannot write %s", path);
	tl_source *src = NULL;
	tl_run *run = NULL;
	if (tl_source_open(&src, path, TL_FORMAT_AUTO, &err) < 0 ||
	    tl_run_next(src, &run, &err) != 1)
		fail_msg("%s", err.msg);
	tl_summary_add_run(s, run);
	tl_run_free(run);
	tl_source_close(src);
	g_free(path);
	return s;
}

/* Row `name`'s total, self, accelerator and cpu time and occurrences. */
static void assert_times(const tl_summary *s, const char *name, double total, double self,
			 double accel, double cpu, double occ)
{
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	const tl_row *r = g_hash_table_lookup(s->rows, name);
	if (r == NULL)
		fail_msg("no row %s", name);
	const int cols[] = {TL_COL_TOTAL, TL_COL_SELF, TL_COL_ACCEL, TL_COL_CPU, TL_COL_OCCURRENCE};
	const double want[] = {total, self, accel, cpu, occ};
	for (size_t i = 0; i < G_N_ELEMENTS(cols); i++) {
		double got = tl_summary_row_stat(s, r, cols[i], &o);
		if (got != want[i])
			fail_msg("%s %s: %g, expected %g", name, tl_summary_col_name(cols[i]), got,
				 want[i]);
	}
}

/* The op view: each slice's self time (a parent less its children), the
 * kernel and the copy as accelerator time, not cpu; the annotation and the
 * profiler's span nowhere. The host's selves add up to its busy time, 150,
 * the device's to 35; the table's shares are of self time and add up to
 * 100%, the default order is by self time. */
static void test_kineto_op(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_OP, kineto);
	assert_true(s->nested);
	assert_true(s->have_device);
	assert_int_equal(g_hash_table_size(s->rows), 8);
	assert_times(s, "ProfilerStep#1", 100, 50, 0, 100, 1);
	assert_times(s, "aten::linear", 50, 20, 0, 50, 1);
	assert_times(s, "aten::addmm", 30, 25, 0, 30, 1);
	assert_times(s, "cudaLaunchKernel", 5, 5, 0, 5, 1);
	assert_times(s, "ProfilerStep#2", 50, 30, 0, 50, 1);
	assert_times(s, "aten::relu", 20, 20, 0, 20, 1);
	assert_times(s, "gemm", 30, 30, 30, 0, 1);
	assert_times(s, "Memcpy HtoD", 5, 5, 5, 0, 1);
	assert_null(g_hash_table_lookup(s->rows, "PyTorch Profiler (0)"));
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_opts_fit(&o, s);
	tl_summary_flat *f = tl_summary_flat_new(s, &o);
	assert_int_equal(f->share_col, TL_COL_SELF);
	assert_true(f->total[TL_COL_SELF] == 185);
	assert_true(f->total[TL_COL_TOTAL] == 290);
	assert_string_equal(f->lines[0].row->name, "ProfilerStep#1");
	assert_string_equal(f->lines[1].row->name, "ProfilerStep#2");
	double share = 0;
	for (size_t i = 0; i < f->n; i++)
		share += f->lines[i].v[TL_COL_SELF] / f->total[TL_COL_SELF];
	assert_true(share > 0.999999 && share < 1.000001);
	tl_summary_flat_free(f);
	tl_summary_free(s);
}

/* The device view by process label and stream; the kernel view holds the device
 * slices only; the step view a row per ProfilerStep#N with the host and
 * device busy time inside it. */
static void test_kineto_views(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_DEVICE, kineto);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	/* the run's devices, named as every tool names them: the GPU's stream
	 * (tid 7) a device of its own, its label over the kernels left out */
	assert_times(s, "/host:CPU", 255, 150, 0, 255, 6);
	assert_times(s, "/device:GPU:0/stream:7", 35, 35, 35, 0, 2);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_KERNEL, kineto);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	assert_times(s, "gemm", 30, 30, 30, 0, 1);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_STEP, kineto);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	assert_times(s, "k.json ProfilerStep#1", 100, 100, 35, 100, 1);
	assert_times(s, "k.json ProfilerStep#2", 50, 50, 0, 50, 1);
	tl_summary_free(s);
}

/* A kernel is accelerator time of the innermost op around its launch
 * (conv_kernel: aten::convolution, not aten::conv2d), added to its total
 * and self and not to its occurrences; a kernel with no launch, or whose
 * launch is in no op, keeps its own row. Every kernel counts once: the
 * accelerator time over the rows is the kernels' 41, the self time the
 * host's busy 63 plus those 41. The node view links the same way; the
 * kernel view still lists kernels by name. */
static void test_kineto_links(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_OP, linked);
	assert_int_equal(g_hash_table_size(s->rows), 7);
	assert_times(s, "aten::conv2d", 40, 10, 0, 40, 1);
	assert_times(s, "aten::convolution", 60, 55, 30, 30, 1);
	assert_times(s, "aten::relu", 24, 21, 4, 20, 1);
	assert_times(s, "cudaLaunchKernel", 8, 8, 0, 8, 2);
	assert_times(s, "cuLaunchKernel", 3, 3, 0, 3, 1);
	assert_times(s, "orphan", 2, 2, 2, 0, 1);
	assert_times(s, "stray", 5, 5, 5, 0, 1);
	assert_null(g_hash_table_lookup(s->rows, "conv_kernel"));
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_opts_fit(&o, s);
	tl_summary_flat *f = tl_summary_flat_new(s, &o);
	assert_true(f->total[TL_COL_ACCEL] == 41);
	assert_true(f->total[TL_COL_SELF] == 104);
	assert_string_equal(f->lines[0].row->name, "aten::convolution");
	tl_summary_flat_free(f);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_NODE, linked);
	assert_times(s, "aten::convolution", 60, 55, 30, 30, 1);
	assert_times(s, "stray", 5, 5, 5, 0, 1);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_KERNEL, linked);
	assert_int_equal(g_hash_table_size(s->rows), 4);
	assert_times(s, "conv_kernel", 30, 30, 30, 0, 1);
	tl_summary_free(s);
}

/* TF2: the kernel is the MatMul op's accelerator time (its annotation
 * names the op), the "TensorFlow Ops" line does not count it again, the
 * host MatMul is inside train_function; the node view by the node the
 * long_name and annotation give; the step from the "Steps" line. */
static void test_tf2(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_OP, tf2);
	assert_int_equal(g_hash_table_size(s->rows), 2);
	assert_times(s, "MatMul", 40, 40, 30, 10, 2);
	assert_times(s, "train_function", 100, 90, 0, 100, 1);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_NODE, tf2);
	assert_times(s, "dense/MatMul", 40, 40, 30, 10, 2);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_KERNEL, tf2);
	assert_int_equal(g_hash_table_size(s->rows), 1);
	const tl_row *k = g_hash_table_lookup(s->rows, "volta_sgemm");
	assert_non_null(k);
	assert_string_equal(k->extra, "MatMul");
	tl_summary_free(s);
	s = summary_of(TL_VIEW_STEP, tf2);
	assert_times(s, "k.json 7", 100, 100, 30, 100, 1);
	tl_summary_free(s);
}

/* timeline.py: the stream's records are accelerator time, their repeats
 * on stream:all and memcpy are not counted; nothing nests, so self is
 * total and the default table is as before. */
static void test_tf1(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_OP, tf1);
	assert_false(s->nested);
	assert_times(s, "MatMul", 30, 30, 10, 20, 2);
	assert_times(s, "MEMCPYDtoH", 2, 2, 2, 0, 1);
	tl_summary_opts o;
	tl_summary_opts_init(&o);
	tl_summary_opts_fit(&o, s);
	assert_int_equal(o.order_by, TL_COL_TOTAL);
	assert_int_equal(o.n_select, 4);
	tl_summary_free(s);
	s = summary_of(TL_VIEW_STEP, tf1);
	assert_times(s, "k.json", 20, 20, 12, 20, 1);
	tl_summary_free(s);
}

/* A partial keeps that the inputs nest and had device slices. */
static void test_partial_flags(void **state)
{
	(void)state;
	tl_summary *s = summary_of(TL_VIEW_OP, kineto);
	char *path = g_build_filename(tmpdir, "k.part", NULL);
	tl_output *out = NULL;
	tl_error err = {{0}};
	assert_int_equal(tl_output_open(&out, path, false, NULL, 0, &err), 0);
	tl_summary_write_partial(s, out);
	assert_int_equal(tl_output_close(out, &err), 0);
	char *data = NULL;
	gsize len = 0;
	assert_true(g_file_get_contents(path, &data, &len, NULL));
	tl_summary *back = tl_summary_new(TL_VIEW_OP);
	assert_int_equal(tl_summary_read_partial(back, (const uint8_t *)data, len, &err), 0);
	assert_true(back->nested);
	assert_true(back->have_device);
	assert_true(back->from_chrome);
	assert_times(back, "aten::addmm", 30, 25, 0, 30, 1);
	tl_summary_free(back);
	g_free(data);
	g_free(path);
	tl_summary_free(s);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kineto_op),	  cmocka_unit_test(test_kineto_views),
	    cmocka_unit_test(test_tf2),		  cmocka_unit_test(test_tf1),
	    cmocka_unit_test(test_partial_flags), cmocka_unit_test(test_kineto_links),
	};
	return cmocka_run_group_tests_name("summary slices", tests, tmpdir_setup, tmpdir_teardown);
}
