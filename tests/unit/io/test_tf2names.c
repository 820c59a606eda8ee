/* Unit tests for tf2names.c: the TF2 and Kineto naming rules the XSpace and
 * Chrome readers share, on the names real files hold and on lookalikes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/tf2names.h"

#include <string.h>

/* Proves: "Stream #N(...)" lines are streams with their number; a name
 * that only starts like one, or has no number, is none. */
static void test_stream_line(void **state)
{
	(void)state;
	long n = -1;
	assert_true(tl_tf2_stream_line("Stream #13(Compute,MemcpyD2D,MemcpyD2H)", &n));
	assert_int_equal(n, 13);
	assert_true(tl_tf2_stream_line("Stream #7", &n));
	assert_int_equal(n, 7);
	assert_false(tl_tf2_stream_line("Stream #(Compute)", &n));
	assert_false(tl_tf2_stream_line("stream 7 ", &n));
	assert_false(tl_tf2_stream_line("TensorFlow Ops", &n));
	assert_false(tl_tf2_stream_line(NULL, &n));
}

/* Proves: "node:Op" is a TF op (the op one word), in a span that need not
 * end at a NUL; C++ names with "::", a trailing ':' and a spaced op are
 * none; the split stops at the first '#'. */
static void test_tf_op(void **state)
{
	(void)state;
	const char *s = "dense/MatMul:MatMul";
	assert_true(tl_tf2_is_tf_op(s, strlen(s)));
	assert_false(tl_tf2_is_tf_op(s, 12)); /* "dense/MatMul" */
	assert_false(tl_tf2_is_tf_op("aten::mm", 8));
	assert_false(tl_tf2_is_tf_op("x:", 2));
	assert_false(tl_tf2_is_tf_op(":Op", 3));
	assert_false(tl_tf2_is_tf_op("a:b c", 5));
	assert_false(tl_tf2_is_tf_op("", 0));
	size_t nl = 0, ol = 0;
	const char *op = NULL;
	assert_true(tl_tf2_split_tf_op("Adam/add:AddV2#id=3,step=1#", &nl, &op, &ol));
	assert_int_equal(nl, 8);
	assert_int_equal(ol, 5);
	assert_memory_equal(op, "AddV2", 5);
	assert_false(tl_tf2_split_tf_op("void at::native::kernel<float>(int)", &nl, &op, &ol));
	assert_false(tl_tf2_split_tf_op(NULL, &nl, &op, &ol));
}

/* Proves: a device plane's views of its kernels are told from its work;
 * "XLA Ops" is a view only where the plane has streams. */
static void test_derived_lines(void **state)
{
	(void)state;
	assert_true(tl_tf2_is_derived_line("TensorFlow Ops", false));
	assert_true(tl_tf2_is_derived_line("TensorFlow Name Scope", true));
	assert_true(tl_tf2_is_derived_line("XLA Ops", true));
	assert_false(tl_tf2_is_derived_line("XLA Ops", false));
	assert_false(tl_tf2_is_derived_line("Steps", true));
	assert_false(tl_tf2_is_derived_line("Stream #7(Compute)", true));
}

/* Proves: Kineto's cats, new and old spellings, and its GPU processes and
 * stream threads as the real files name them. */
static void test_kineto(void **state)
{
	(void)state;
	assert_int_equal(tl_kineto_cat_of("kernel"), TL_KINETO_DEVICE);
	assert_int_equal(tl_kineto_cat_of("Memcpy"), TL_KINETO_DEVICE);
	assert_int_equal(tl_kineto_cat_of("gpu_memset"), TL_KINETO_DEVICE);
	assert_int_equal(tl_kineto_cat_of("cuda_runtime"), TL_KINETO_LAUNCH);
	assert_int_equal(tl_kineto_cat_of("privateuse1_driver"), TL_KINETO_LAUNCH);
	assert_int_equal(tl_kineto_cat_of("Runtime"), TL_KINETO_LAUNCH);
	assert_int_equal(tl_kineto_cat_of("cpu_op"), TL_KINETO_OP);
	assert_int_equal(tl_kineto_cat_of("gpu_user_annotation"), TL_KINETO_LABEL);
	assert_int_equal(tl_kineto_cat_of("cuda_sync"), TL_KINETO_OTHER);
	assert_int_equal(tl_kineto_cat_of(""), TL_KINETO_OTHER);
	unsigned gpu = 99;
	assert_true(tl_kineto_gpu_process("GPU 3", "python3", &gpu));
	assert_int_equal(gpu, 3);
	assert_true(tl_kineto_gpu_process(NULL, "GPU 1", &gpu));
	assert_int_equal(gpu, 1);
	assert_false(tl_kineto_gpu_process("CPU", "GPU 1", &gpu)); /* labels decide */
	assert_false(tl_kineto_gpu_process("GPU 0 extra", NULL, &gpu));
	long st = -1;
	assert_true(tl_kineto_stream_thread("stream 7", NULL, &st));
	assert_int_equal(st, 7);
	assert_true(tl_kineto_stream_thread("20", "stream 20 ", &st));
	assert_int_equal(st, 20);
	assert_false(tl_kineto_stream_thread("-1", "Device 0", &st));
	assert_false(tl_kineto_stream_thread("7", "stream 7 of 9", &st));
	assert_false(tl_kineto_stream_thread("1441273664", "thread 1 (python)", &st));
	assert_true(tl_kineto_stream_thread("24", NULL, &st));
	assert_int_equal(st, 24);
	assert_false(tl_kineto_stream_thread("-1", NULL, &st));
	assert_false(tl_kineto_stream_thread("7x", NULL, &st));
}

static bool corr(const char *args, int64_t *out)
{
	return tl_names_args_correlation(args, strlen(args), out);
}

/* Proves: the correlation id under either key, a number or a string of
 * digits, with JSON's spaces; a lookalike key, a non-number and a string
 * not closed after its digits are none. */
static void test_correlation(void **state)
{
	(void)state;
	int64_t v = 0;
	assert_true(corr("{\"External id\":14,\"correlation\":14,\"bytes\":9}", &v));
	assert_int_equal(v, 14);
	assert_true(corr("{\"context_id\":\"$$1\",\"correlation_id\":\"5731\"}", &v));
	assert_int_equal(v, 5731);
	assert_true(corr("{ \"correlation\" : 682852 }", &v));
	assert_int_equal(v, 682852);
	assert_true(corr("{\"correlation_id\": 9223372036854775807}", &v));
	assert_int_equal(v, INT64_MAX);
	assert_false(corr("{\"correlation_ids\":\"5\"}", &v));
	assert_false(corr("{\"correlation\":\"x5\"}", &v));
	assert_false(corr("{\"correlation_id\":\"5x\"}", &v));
	assert_false(corr("{\"name\":\"correlation\"}", &v));
	assert_true(corr("{\"name\":\"correlation\",\"correlation\":3}", &v));
	assert_int_equal(v, 3);
	assert_false(corr("{}", &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stream_line),	  cmocka_unit_test(test_tf_op),
	    cmocka_unit_test(test_derived_lines), cmocka_unit_test(test_kineto),
	    cmocka_unit_test(test_correlation),
	};
	return cmocka_run_group_tests_name("tf2names", tests, NULL, NULL);
}
