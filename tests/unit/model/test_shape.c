/* Unit tests of shape.c: one spelling of a tensor's shape, with what rank 0
 * and an unknown size read as chosen by the caller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/shape.h"

#include <glib.h>
#include <inttypes.h>

#include "testdata.h"

/* sh as text with `flags`, compared with `want`. */
static void shape_is(const Tensorflow__TensorShapeProto *sh, unsigned flags, const char *want)
{
	GString *s = g_string_new("<");
	tl_shape_append(s, sh, flags);
	char *expected = g_strconcat("<", want, NULL);
	assert_string_equal(s->str, expected);
	g_free(expected);
	g_string_free(s, TRUE);
}

/* A shape of n dimensions (at most 4) of the given sizes. */
struct shape4 {
	Tensorflow__TensorShapeProto sh;
	Tensorflow__TensorShapeProto__Dim dims[4];
	Tensorflow__TensorShapeProto__Dim *ptrs[4];
};

static void shape4_init(struct shape4 *s, size_t n, const int64_t *sizes)
{
	tensorflow__tensor_shape_proto__init(&s->sh);
	for (size_t i = 0; i < n; i++) {
		tensorflow__tensor_shape_proto__dim__init(&s->dims[i]);
		s->dims[i].size = sizes[i];
		s->ptrs[i] = &s->dims[i];
	}
	s->sh.n_dim = n;
	s->sh.dim = s->ptrs;
}

/* Dimensions joined by 'x', whatever the flags. */
static void test_dims(void **state)
{
	(void)state;
	struct shape4 s;
	shape4_init(&s, 4, (const int64_t[]){32, 56, 56, 128});
	shape_is(&s.sh, 0, "32x56x56x128");
	shape_is(&s.sh, TL_SHAPE_SCALAR | TL_SHAPE_QUERY, "32x56x56x128");
	shape4_init(&s, 1, (const int64_t[]){250000});
	shape_is(&s.sh, 0, "250000");
}

/* Rank 0: "scalar" for the memory report and graph labels, nothing for
 * tfprof's grammar; a NULL shape appends nothing at all. */
static void test_scalar_and_null(void **state)
{
	(void)state;
	struct shape4 s;
	shape4_init(&s, 0, NULL);
	shape_is(&s.sh, TL_SHAPE_SCALAR, "scalar");
	shape_is(&s.sh, 0, "");
	shape_is(NULL, TL_SHAPE_SCALAR | TL_SHAPE_QUERY, "");
}

/* An unknown size is -1 as the dump has it (tfprof, the memory report) or
 * "?" (graph labels); an unknown rank is "?" or, without the flag, rank 0. */
static void test_unknown(void **state)
{
	(void)state;
	struct shape4 s;
	shape4_init(&s, 2, (const int64_t[]){-1, 784});
	shape_is(&s.sh, 0, "-1x784");
	shape_is(&s.sh, TL_SHAPE_QUERY, "?x784");
	shape4_init(&s, 0, NULL);
	s.sh.unknown_rank = true;
	shape_is(&s.sh, TL_SHAPE_SCALAR | TL_SHAPE_QUERY, "?");
	shape_is(&s.sh, TL_SHAPE_SCALAR, "scalar");
	shape_is(&s.sh, 0, "");
}

/* Sizes print as printf's "%lld" prints them, at both ends of int64 and at
 * every number of digits. */
static void test_extremes(void **state)
{
	(void)state;
	struct shape4 s;
	shape4_init(&s, 4, (const int64_t[]){INT64_MIN, INT64_MAX, 0, -7});
	shape_is(&s.sh, 0, "-9223372036854775808x9223372036854775807x0x-7");
	int64_t p = 1;
	for (int d = 0; d < 18; d++) {
		shape4_init(&s, 2, (const int64_t[]){p * 10 - 1, -p});
		char *want = g_strdup_printf("%" PRId64 "x%" PRId64, p * 10 - 1, -p);
		shape_is(&s.sh, 0, want);
		g_free(want);
		p *= 10;
	}
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dims),
	    cmocka_unit_test(test_scalar_and_null),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_extremes),
	};
	return cmocka_run_group_tests_name("shape", tests, NULL, NULL);
}
