/* Unit tests of analysis/opcost.c: the float operations of an execution
 * from the shapes its producers' outputs record (MatMul 2mnk, with
 * transpose_a reading k from the other dimension; Conv2D 2 * out * kh *
 * kw * cin from an HWIO filter; element-wise ops one per output element;
 * other ops and unknown shapes 0), shapes so large no tensor could hold
 * them kept finite, a variable's shape from its attr else from its first
 * execution's output, and the shape string. Every expected value is worked
 * out by hand in the comment above its assertion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/opcost.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "runtext.h"
#include "testdata.h"

/* An output of `slot` with a shape (DIMs) and no allocation. */
#define DIM(n) " dim { size: " #n " }"
#define OUT_SHAPE(slot, dims)                                                                      \
	" output { slot: " #slot " tensor_description { dtype: DT_FLOAT shape {" dims " } } }"
#define ATTR_SHAPE(k, dims) " attr { key: \"" k "\" value { shape {" dims " } } }"

/* The execution of `node` on an executor, the first by start. */
static uint32_t exec_of(const tl_run *run, const char *node)
{
	for (size_t i = 0; i < run->n_execs; i++)
		if (run->devices[run->execs[i].device].kind == TL_DEV_EXECUTOR &&
		    strcmp(run->execs[i].node, node) == 0)
			return (uint32_t)i;
	fail_msg("no execution of %s", node);
	return 0;
}

static uint32_t node_of(const tl_run *run, const char *name)
{
	for (size_t n = 0; n < run->n_nodes; n++)
		if (strcmp(run->nodes[n].name, name) == 0)
			return (uint32_t)n;
	fail_msg("no node %s", name);
	return 0;
}

static double flops_of(const tl_run *run, const char *node)
{
	return tl_opcost_float_ops(run, exec_of(run, node));
}

/* a [3x4] x b [4x5] = m [3x5]: 2 * m * n * k = 2 * 15 * 4 = 120. The
 * transposed at [4x3] (transpose_a) gives mt [3x5], k = dim 0 = 4: 120
 * again; read without the attr it would be k = 3, 90. vm reads a variable
 * that never ran: its declared shape [3x4] serves, k = 4, out [3x2]:
 * 2 * 6 * 4 = 48. */
static void test_matmul(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 1) OUT_SHAPE(0, DIM(3) DIM(4)) END
				EXEC("b", 100, 1) OUT_SHAPE(0, DIM(4) DIM(5)) END
				EXEC("at", 100, 1) OUT_SHAPE(0, DIM(4) DIM(3)) END
				EXEC("m", 102, 5) OUT_SHAPE(0, DIM(3) DIM(5)) END
				EXEC("mt", 102, 5) OUT_SHAPE(0, DIM(3) DIM(5)) END
				EXEC("mf", 102, 5) OUT_SHAPE(0, DIM(3) DIM(5)) END
				EXEC("vm", 102, 5) OUT_SHAPE(0, DIM(3) DIM(2)) END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("b", "Const", CPU, "")
			NODE("at", "Const", CPU, "")
			NODE("v", "VariableV2", CPU, ATTR_SHAPE("shape", DIM(3) DIM(4)))
			NODE("m", "MatMul", CPU, IN("a") IN("b"))
			NODE("mt", "MatMul", CPU, IN("at") IN("b") ATTR_B("transpose_a", true))
			NODE("mf", "MatMul", CPU, IN("at") IN("b") ATTR_B("transpose_a", false))
			NODE("vm", "MatMul", CPU, IN("v") IN("b")));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "matmul");
	assert_true(flops_of(run, "m") == 120.0);
	assert_true(flops_of(run, "mt") == 120.0);
	/* transpose_a false: k = dim 1 of [4x3] = 3: 2 * 15 * 3 = 90 */
	assert_true(flops_of(run, "mf") == 90.0);
	assert_true(flops_of(run, "vm") == 48.0);
	/* a Const is none of the costed ops */
	assert_true(flops_of(run, "a") == 0.0);
	tl_run_free(run);
	tl_warn_clear();
}

/* x [1x8x8x3] conv f [3x3x3x16] (HWIO) = c [1x8x8x16]: 1024 output
 * elements, 2 * 1024 * 3 * 3 * 3 = 55296. A filter of rank 3 (c3) is not
 * a Conv2D filter: 0. */
static void test_conv2d(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("x", 100, 1) OUT_SHAPE(0, DIM(1) DIM(8) DIM(8) DIM(3)) END
				EXEC("f", 100, 1) OUT_SHAPE(0, DIM(3) DIM(3) DIM(3) DIM(16)) END
				EXEC("f3", 100, 1) OUT_SHAPE(0, DIM(3) DIM(3) DIM(3)) END
				EXEC("c", 102, 5) OUT_SHAPE(0, DIM(1) DIM(8) DIM(8) DIM(16)) END
				EXEC("c3", 102, 5) OUT_SHAPE(0, DIM(1) DIM(8) DIM(8) DIM(16)) END))
		GRAPH(
			NODE("x", "Const", CPU, "")
			NODE("f", "Const", CPU, "")
			NODE("f3", "Const", CPU, "")
			NODE("c", "Conv2D", CPU, IN("x") IN("f"))
			NODE("c3", "Conv2D", CPU, IN("x") IN("f3")));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "conv");
	assert_true(flops_of(run, "c") == 55296.0);
	assert_true(flops_of(run, "c3") == 0.0);
	tl_run_free(run);
	tl_warn_clear();
}

/* Element-wise ops cost one per output element: Add [2x3] 6, Relu [7] 7,
 * Rsqrt of a scalar (no dims) 1; Reshape [6] is not element-wise: 0. */
static void test_elementwise(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("add", 100, 1) OUT_SHAPE(0, DIM(2) DIM(3)) END
				EXEC("relu", 100, 1) OUT_SHAPE(0, DIM(7)) END
				EXEC("rs", 100, 1) OUT_SHAPE(0, "") END
				EXEC("re", 100, 1) OUT_SHAPE(0, DIM(6)) END))
		GRAPH(
			NODE("add", "Add", CPU, "")
			NODE("relu", "Relu", CPU, "")
			NODE("rs", "Rsqrt", CPU, "")
			NODE("re", "Reshape", CPU, ""));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "ew");
	assert_true(flops_of(run, "add") == 6.0);
	assert_true(flops_of(run, "relu") == 7.0);
	assert_true(flops_of(run, "rs") == 1.0);
	assert_true(flops_of(run, "re") == 0.0);
	tl_run_free(run);
	tl_warn_clear();
}

/* Unknown shapes cost 0: a MatMul whose input has no recorded shape (m1),
 * one without its own output shape (m2), an Add with an unknown
 * dimension (-1) (a1) or of unknown rank (a2), and an execution with no
 * graph node (m3: no inputs to read). */
static void test_unknown(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 1) END
				EXEC("b", 100, 1) OUT_SHAPE(0, DIM(4) DIM(5)) END
				EXEC("m1", 102, 5) OUT_SHAPE(0, DIM(3) DIM(5)) END
				EXEC("m2", 102, 5) END
				EXEC("m3", 102, 5) OUT_SHAPE(0, DIM(3) DIM(5)) END
				EXEC("a1", 102, 5) OUT_SHAPE(0, DIM(-1) DIM(5)) END
				EXEC("a2", 102, 5)
					" output { slot: 0 tensor_description { dtype: DT_FLOAT"
					" shape { unknown_rank: true } } }" END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("b", "Const", CPU, "")
			NODE("m1", "MatMul", CPU, IN("a") IN("b"))
			NODE("m2", "MatMul", CPU, IN("b") IN("b"))
			NODE("a1", "Add", CPU, "")
			NODE("a2", "Add", CPU, ""));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "unknown");
	assert_true(flops_of(run, "m1") == 0.0);
	assert_true(flops_of(run, "m2") == 0.0);
	assert_true(flops_of(run, "m3") == 0.0);
	assert_true(flops_of(run, "a1") == 0.0);
	assert_true(flops_of(run, "a2") == 0.0);
	tl_run_free(run);
	tl_warn_clear();
}

/* Sizes no tensor could have: [2^62 x 2^62] has 2^124 elements, capped at
 * 9.2e18; a MatMul over it (k = 2^62) and a Conv2D with a filter of
 * 2^62-sized dimensions stay finite and positive. */
static void test_hostile(void **state)
{
	(void)state;
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("a", 100, 1) OUT_SHAPE(0, DIM(4611686018427387904)
							       DIM(4611686018427387904)) END
				EXEC("f", 100, 1) OUT_SHAPE(0, DIM(4611686018427387904)
							       DIM(4611686018427387904)
							       DIM(4611686018427387904)
							       DIM(4611686018427387904)) END
				EXEC("m", 102, 5) OUT_SHAPE(0, DIM(4611686018427387904)
							       DIM(4611686018427387904)) END
				EXEC("c", 102, 5) OUT_SHAPE(0, DIM(4611686018427387904)
							       DIM(4611686018427387904)
							       DIM(4611686018427387904)
							       DIM(4611686018427387904)) END
				EXEC("n", 102, 5) OUT_SHAPE(0, DIM(4611686018427387904)
							       DIM(4611686018427387904)) END))
		GRAPH(
			NODE("a", "Const", CPU, "")
			NODE("f", "Const", CPU, "")
			NODE("m", "MatMul", CPU, IN("a") IN("a"))
			NODE("c", "Conv2D", CPU, IN("f") IN("f"))
			NODE("n", "Neg", CPU, IN("a")));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "hostile");
	/* Neg: one per element, the capped count */
	assert_true(flops_of(run, "n") == 9.2e18);
	/* 2 * 9.2e18 * 2^62 */
	assert_true(flops_of(run, "m") == 2.0 * 9.2e18 * 4611686018427387904.0);
	double c = flops_of(run, "c");
	assert_true(isfinite(c) && c > 0);
	tl_run_free(run);
	tl_warn_clear();
}

/* tl_opcost_elements on shapes built here: NULL and unknown rank 0, a
 * scalar 1, [784x128] 100352, a negative dimension 0. */
static void test_elements(void **state)
{
	(void)state;
	Tensorflow__TensorShapeProto__Dim d[3];
	Tensorflow__TensorShapeProto__Dim *dp[3] = {&d[0], &d[1], &d[2]};
	for (int i = 0; i < 3; i++)
		tensorflow__tensor_shape_proto__dim__init(&d[i]);
	Tensorflow__TensorShapeProto sh;
	tensorflow__tensor_shape_proto__init(&sh);
	assert_true(tl_opcost_elements(NULL) == 0.0);
	assert_true(tl_opcost_elements(&sh) == 1.0);
	sh.dim = dp;
	sh.n_dim = 2;
	d[0].size = 784;
	d[1].size = 128;
	assert_true(tl_opcost_elements(&sh) == 100352.0);
	sh.unknown_rank = true;
	assert_true(tl_opcost_elements(&sh) == 0.0);
	sh.unknown_rank = false;
	sh.n_dim = 3;
	d[2].size = -1;
	assert_true(tl_opcost_elements(&sh) == 0.0);
}

/* The shape string: NULL for NULL, "" for a scalar, "784x128", and an
 * unknown dimension as written, "2x-1". */
static void test_shape_string(void **state)
{
	(void)state;
	Tensorflow__TensorShapeProto__Dim d[2];
	Tensorflow__TensorShapeProto__Dim *dp[2] = {&d[0], &d[1]};
	tensorflow__tensor_shape_proto__dim__init(&d[0]);
	tensorflow__tensor_shape_proto__dim__init(&d[1]);
	Tensorflow__TensorShapeProto sh;
	tensorflow__tensor_shape_proto__init(&sh);
	assert_null(tl_opcost_shape_string(NULL));
	char *s = tl_opcost_shape_string(&sh);
	assert_string_equal(s, "");
	g_free(s);
	sh.dim = dp;
	sh.n_dim = 2;
	d[0].size = 784;
	d[1].size = 128;
	s = tl_opcost_shape_string(&sh);
	assert_string_equal(s, "784x128");
	g_free(s);
	d[0].size = 2;
	d[1].size = -1;
	s = tl_opcost_shape_string(&sh);
	assert_string_equal(s, "2x-1");
	g_free(s);
}

/* Which ops are variables, and a variable's shape: v1 declares [784x128]
 * (and its execution says [1]: the attr wins); v2 declares none, and its
 * first execution by start (110, listed second in the dump) says [10],
 * the later one (120) [20]; v3 declares none and never ran: NULL. */
static void test_variable(void **state)
{
	(void)state;
	assert_true(tl_opcost_is_variable("VariableV2"));
	assert_true(tl_opcost_is_variable("Variable"));
	assert_true(tl_opcost_is_variable("VarHandleOp"));
	assert_false(tl_opcost_is_variable("ReadVariableOp"));
	assert_false(tl_opcost_is_variable("Const"));
	/* clang-format off */
	static const char text[] =
		STEP(
			DEV(CPU,
				EXEC("v1", 100, 1) OUT_SHAPE(0, DIM(1)) END
				EXEC("v2", 120, 1) OUT_SHAPE(0, DIM(20)) END
				EXEC("v2", 110, 1) OUT_SHAPE(0, DIM(10)) END))
		GRAPH(
			NODE("v1", "VariableV2", CPU, ATTR_SHAPE("shape", DIM(784) DIM(128)))
			NODE("v2", "VarHandleOp", CPU, "")
			NODE("v3", "VariableV2", CPU, ""));
	/* clang-format on */
	tl_run *run = td_run_of_text(text, "vars");
	char *s = tl_opcost_shape_string(tl_opcost_variable_shape(run, node_of(run, "v1")));
	assert_string_equal(s, "784x128");
	g_free(s);
	assert_true(tl_opcost_elements(tl_opcost_variable_shape(run, node_of(run, "v1"))) ==
		    100352.0);
	s = tl_opcost_shape_string(tl_opcost_variable_shape(run, node_of(run, "v2")));
	assert_string_equal(s, "10");
	g_free(s);
	assert_null(tl_opcost_variable_shape(run, node_of(run, "v3")));
	tl_run_free(run);
	tl_warn_clear();
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matmul),	 cmocka_unit_test(test_conv2d),
	    cmocka_unit_test(test_elementwise),	 cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_hostile),	 cmocka_unit_test(test_elements),
	    cmocka_unit_test(test_shape_string), cmocka_unit_test(test_variable),
	};
	return cmocka_run_group_tests_name("opcost", tests, NULL, NULL);
}
