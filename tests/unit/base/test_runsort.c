/* Unit tests for runsort.c: arrays of ordered runs (one, a few, many, one
 * item each), keys with many ties, sorted stably: the same as sorting by
 * (key, original place). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/runsort.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
	int key;
	int place;   /* where it was before sorting */
	char pad[9]; /* an odd size */
} item;

static bool key_before(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const item *)a)->key < ((const item *)b)->key;
}

static int cmp_key_place(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->place > y->place) - (x->place < y->place);
}

/* n items in `runs` ordered runs of keys 0..range-1 (ties when range is
 * small). */
static void check(GRand *r, size_t n, size_t runs, int range)
{
	item *a = g_new0(item, n + 1), *want = g_new0(item, n + 1);
	size_t per = runs ? (n + runs - 1) / runs : n;
	for (size_t k = 0; k < n;) {
		int key = 0;
		for (size_t j = 0; j < per && k < n; j++, k++) {
			key += g_rand_int_range(r, 0, range);
			a[k].key = key % (range * 4);
			if (j > 0 && a[k].key < a[k - 1].key)
				a[k].key = a[k - 1].key;
			a[k].place = (int)k;
		}
	}
	memcpy(want, a, n * sizeof *a);
	qsort(want, n, sizeof *want, cmp_key_place);
	size_t found = tl_runsort(a, n, sizeof *a, key_before, NULL);
	assert_true(found >= 1);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(a[k].key, want[k].key);
		assert_int_equal(a[k].place, want[k].place);
	}
	g_free(a);
	g_free(want);
}

static void test_shapes(void **state)
{
	(void)state;
	GRand *r = g_rand_new_with_seed(3);
	static const size_t sizes[] = {0, 1, 2, 3, 17, 1000, 4096};
	static const size_t runs[] = {1, 2, 3, 7, 64, 5000};
	static const int ranges[] = {1, 3, 1000};
	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
		for (size_t j = 0; j < G_N_ELEMENTS(runs); j++)
			for (size_t k = 0; k < G_N_ELEMENTS(ranges); k++)
				check(r, sizes[i], runs[j], ranges[k]);
	g_rand_free(r);
}

/* In order: one run, nothing moved. */
static void test_in_order(void **state)
{
	(void)state;
	item a[5] = {{1, 0, {0}}, {1, 1, {0}}, {2, 2, {0}}, {5, 3, {0}}, {5, 4, {0}}};
	assert_int_equal(tl_runsort(a, 5, sizeof *a, key_before, NULL), 1);
	for (int k = 0; k < 5; k++)
		assert_int_equal(a[k].place, k);
	item b[4] = {{3, 0, {0}}, {1, 1, {0}}, {2, 2, {0}}, {0, 3, {0}}};
	assert_int_equal(tl_runsort(b, 4, sizeof *b, key_before, NULL), 3);
	assert_int_equal(b[0].place, 3);
	assert_int_equal(b[3].place, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shapes),
	    cmocka_unit_test(test_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
