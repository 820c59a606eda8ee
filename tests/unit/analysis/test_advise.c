/* Unit tests of analysis/advise.c, tfprof's checkers as data, on runs
 * written here as RunMetadata text: the three op types with the most
 * executor time and their shares (kernel records not counted, ties by
 * name), each GPU's busy share as the union of its own streams' kernels
 * (not stream:all's repeat, not another GPU's streams; 0 and no records
 * for a GPU without tracer records), Conv2D nodes on a GPU in NHWC
 * (data_format absent or NHWC; NCHW or on a CPU not), batch norms built
 * from pieces (an Rsqrt under a batchnorm/ or BatchNorm/ scope). Times in
 * the comments are us. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/advise.h"

#include <glib.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

#define GPU1 "/job:localhost/replica:0/task:0/device:GPU:1"
#define GPU2 "/job:localhost/replica:0/task:0/device:GPU:2"

/* The step spans 100..200.
 *
 * Executor time by op: MatMul 30 + 20 = 50, Conv2D 30, Add 10, Relu 10;
 * all 100. Top: MatMul 50 %, Conv2D 30 %, Add 10 % (Relu ties with Add
 * and comes after it by name). The conv kernel (50 us on stream 7) would
 * make Conv2D 80 were kernels counted.
 *
 * GPU:0's kernels: stream 7 100..150, stream 9 140..160: union 60 us of
 * 100, 60 %; its stream:all record 180..200 is a repeat (80 % if
 * counted). GPU:1's stream 3: 100..110, 10 %. GPU:2 has no tracer
 * records: 0 %, has_records false. The CPU is no GPU. */
/* clang-format off */
static const char text[] =
	STEP(
		DEV(CPU,
			EXEC("mm", 100, 30) END
			EXEC("mm", 130, 20) END
			EXEC("add", 150, 10) END)
		DEV(GPU,
			EXEC("conv", 100, 30) END
			EXEC("relu", 130, 10) END)
		DEV(GPU1, "")
		DEV(GPU2, "")
		DEV("/device:GPU:0/stream:7",
			EXEC("conv:Conv2D", 100, 50) END)
		DEV("/device:GPU:0/stream:9",
			EXEC("relu:Relu", 140, 20) END)
		DEV("/device:GPU:0/stream:all",
			EXEC("relu:Relu", 180, 20) END)
		DEV("/device:GPU:1/stream:3",
			EXEC("x:Add", 100, 10) END))
	GRAPH(
		NODE("mm", "MatMul", CPU, "")
		NODE("add", "Add", CPU, "")
		NODE("cpu_conv", "Conv2D", CPU, ATTR_S("data_format", "NHWC")))
	GRAPH(
		NODE("conv", "Conv2D", GPU, "")
		NODE("relu", "Relu", GPU, "")
		NODE("conv_nhwc", "Conv2D", GPU, ATTR_S("data_format", "NHWC"))
		NODE("conv_nchw", "Conv2D", GPU, ATTR_S("data_format", "NCHW"))
		NODE("bn/batchnorm/Rsqrt", "Rsqrt", GPU, "")
		NODE("bn/batchnorm/mul", "Mul", GPU, "")
		NODE("model/BatchNorm/Rsqrt", "Rsqrt", GPU, "")
		NODE("norm/Rsqrt", "Rsqrt", GPU, ""));
/* clang-format on */

static const tl_advice_gpu *gpu_named(const tl_run *run, const tl_advice *a, const char *name)
{
	for (size_t i = 0; i < a->n_gpus; i++)
		if (strcmp(run->devices[a->gpus[i].device].name, name) == 0)
			return &a->gpus[i];
	fail_msg("no GPU %s", name);
	return NULL;
}

/* The top three op types by executor time, with their shares. */
static void test_top_ops(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "advise");
	tl_advice *a = tl_advise_new(run);
	assert_int_equal(a->n_top, 3);
	assert_string_equal(a->top[0].op, "MatMul");
	assert_int_equal(a->top[0].ns, 50000);
	assert_true(a->top[0].pct == 50.0);
	assert_string_equal(a->top[1].op, "Conv2D");
	assert_int_equal(a->top[1].ns, 30000);
	assert_true(a->top[1].pct == 30.0);
	assert_string_equal(a->top[2].op, "Add");
	assert_int_equal(a->top[2].ns, 10000);
	assert_true(a->top[2].pct == 10.0);
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

/* Fewer than three op types: as many as there are. Neg 6 of 8 (75 %),
 * Const 2 (25 %). */
static void test_top_few(void **state)
{
	(void)state;
	/* clang-format off */
	static const char few[] =
		STEP(DEV(CPU, EXEC("n", 100, 6) END EXEC("c", 106, 2) END))
		GRAPH(NODE("n", "Neg", CPU, "") NODE("c", "Const", CPU, ""));
	/* clang-format on */
	tl_run *run = td_run_of_text(few, "few");
	tl_advice *a = tl_advise_new(run);
	assert_int_equal(a->n_top, 2);
	assert_string_equal(a->top[0].op, "Neg");
	assert_true(a->top[0].pct == 75.0);
	assert_string_equal(a->top[1].op, "Const");
	assert_true(a->top[1].pct == 25.0);
	/* no GPU, no graph finding */
	assert_int_equal(a->n_gpus, 0);
	assert_int_equal(a->nhwc, 0);
	assert_int_equal(a->unfused_bn, 0);
	assert_null(a->nhwc_example);
	assert_null(a->bn_example);
	assert_true(a->has_graphs);
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

/* Each GPU's busy share from its own streams' kernels. */
static void test_gpu_busy(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "advise");
	tl_advice *a = tl_advise_new(run);
	assert_int_equal(a->n_gpus, 3);
	const tl_advice_gpu *g0 = gpu_named(run, a, GPU);
	assert_true(g0->busy_pct == 60.0);
	assert_true(g0->has_records);
	const tl_advice_gpu *g1 = gpu_named(run, a, GPU1);
	assert_true(g1->busy_pct == 10.0);
	assert_true(g1->has_records);
	const tl_advice_gpu *g2 = gpu_named(run, a, GPU2);
	assert_true(g2->busy_pct == 0.0);
	assert_false(g2->has_records);
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

/* NHWC convolutions on a GPU: conv (no data_format) and conv_nhwc, not
 * conv_nchw nor cpu_conv; the example is the first in graph order. An
 * Rsqrt under bn/batchnorm/ and model/BatchNorm/ are unfused batch norms,
 * norm/Rsqrt (no such scope) and bn/batchnorm/mul (not an Rsqrt) not. */
static void test_operations(void **state)
{
	(void)state;
	tl_run *run = td_run_of_text(text, "advise");
	tl_advice *a = tl_advise_new(run);
	assert_true(a->has_graphs);
	assert_int_equal(a->nhwc, 2);
	assert_string_equal(a->nhwc_example, "conv");
	assert_int_equal(a->unfused_bn, 2);
	assert_string_equal(a->bn_example, "bn/batchnorm/Rsqrt");
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

/* Without partition graphs nothing about nodes is known: no findings,
 * has_graphs false; op types come from the labels. A GPU whose kernels
 * cover 50..150 of the step 0..200 (its op 0..200) is 50 % busy. */
static void test_no_graph(void **state)
{
	(void)state;
	/* clang-format off */
	static const char bare[] =
		STEP(
			DEV(GPU,
				EXEC("c", 0, 200) " timeline_label: \"c = Conv2D(x, f)\"" END)
			DEV("/device:GPU:0/stream:1",
				EXEC("c:Conv2D", 50, 60) END
				EXEC("c:Conv2D", 100, 50) END));
	/* clang-format on */
	tl_run *run = td_run_of_text(bare, "bare");
	tl_advice *a = tl_advise_new(run);
	assert_false(a->has_graphs);
	assert_int_equal(a->nhwc, 0);
	assert_int_equal(a->unfused_bn, 0);
	assert_int_equal(a->n_top, 1);
	assert_string_equal(a->top[0].op, "Conv2D");
	assert_true(a->top[0].pct == 100.0);
	assert_int_equal(a->n_gpus, 1);
	assert_true(a->gpus[0].busy_pct == 50.0);
	assert_true(a->gpus[0].has_records);
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

/* A GPU by its device part: a CPU of a job named "GPUworker" is no GPU
 * (no utilization row, its Conv2D no NHWC finding); the convolutions whose
 * layout matters are Conv2D and its two gradients, exactly (a custom
 * "Conv2DLike" op is not one). */
static void test_gpu_by_device_part(void **state)
{
	(void)state;
#define WCPU "/job:GPUworker/replica:0/task:0/device:CPU:0"
	/* clang-format off */
	static const char odd[] =
		STEP(
			DEV(WCPU, EXEC("wconv", 0, 10) END)
			DEV(GPU, EXEC("g", 0, 10) END EXEC("f", 10, 10) END EXEC("l", 20, 10) END))
		GRAPH(NODE("wconv", "Conv2D", WCPU, ""))
		GRAPH(
			NODE("g", "Conv2DBackpropFilter", GPU, ATTR_S("data_format", "NHWC"))
			NODE("f", "Conv2DBackpropInput", GPU, "")
			NODE("l", "Conv2DLike", GPU, ""));
	/* clang-format on */
#undef WCPU
	tl_run *run = td_run_of_text(odd, "odd");
	tl_advice *a = tl_advise_new(run);
	assert_int_equal(a->n_gpus, 1);
	assert_string_equal(run->devices[a->gpus[0].device].name, GPU);
	assert_int_equal(a->nhwc, 2);
	assert_string_equal(a->nhwc_example, "g");
	tl_advise_free(a);
	tl_run_free(run);
	tl_warn_clear();
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_top_ops),  cmocka_unit_test(test_top_few),
	    cmocka_unit_test(test_gpu_busy), cmocka_unit_test(test_operations),
	    cmocka_unit_test(test_no_graph), cmocka_unit_test(test_gpu_by_device_part),
	};
	return cmocka_run_group_tests_name("advise", tests, NULL, NULL);
}
