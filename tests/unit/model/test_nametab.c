/* Unit tests of nametab.c: the name table finds what it was given,
 * prefixes and scopes apart, however large it grows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/nametab.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "testdata.h"

/* Names are found by their bytes, within their scope; "a:1"'s first byte
 * finds "a"; the first value put stays. */
static void test_nametab_basic(void **state)
{
	tl_nametab *t = tl_nametab_new(0);
	const char *a = "tower_0/conv1/Conv2D";
	assert_int_equal(tl_nametab_put(t, 0, tl_nametab_name_str(a), 5), 5);
	assert_int_equal(tl_nametab_put(t, 0, tl_nametab_name_str("tower_0/conv1/Conv2D"), 9), 5);
	assert_int_equal(tl_nametab_put(t, 1, tl_nametab_name_str(a), 6), 6);
	assert_int_equal(tl_nametab_put(t, 0, tl_nametab_name_str(""), 7), 7);
	assert_int_equal(tl_nametab_size(t), 3);
	char copy[64];
	strcpy(copy, a);
	assert_int_equal(tl_nametab_get(t, 0, tl_nametab_name_str(copy)), 5);
	assert_int_equal(tl_nametab_get(t, 1, tl_nametab_name_str(copy)), 6);
	assert_int_equal(tl_nametab_get(t, 2, tl_nametab_name_str(copy)), TL_NAMETAB_NONE);
	assert_int_equal(tl_nametab_get(t, 0, tl_nametab_name_str("")), 7);
	const char *port = "tower_0/conv1/Conv2D:1";
	assert_int_equal(tl_nametab_get(t, 0, tl_nametab_name(port, strlen(a))), 5);
	assert_int_equal(tl_nametab_get(t, 0, tl_nametab_name_str(port)), TL_NAMETAB_NONE);
	assert_int_equal(tl_nametab_get(t, 0, tl_nametab_name(a, strlen(a) - 1)), TL_NAMETAB_NONE);
	tl_nametab_free(t);
}

/* A table grown from nothing to 200,000 names of every length up to 40
 * finds each, and nothing it was not given. */
static void test_nametab_many(void **state)
{
	size_t n = 200000;
	char **names = g_new(char *, n);
	tl_nametab *t = tl_nametab_new(0);
	for (size_t i = 0; i < n; i++) {
		names[i] =
		    g_strdup_printf("%.*s%zu", (int)(i % 30), "scope/scope/scope/scope/scope/", i);
		assert_int_equal(
		    tl_nametab_put(t, (uint32_t)(i % 3), tl_nametab_name_str(names[i]), (uint32_t)i), i);
	}
	assert_int_equal(tl_nametab_size(t), n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tl_nametab_get(t, (uint32_t)(i % 3), tl_nametab_name_str(names[i])), i);
		assert_int_equal(tl_nametab_get(t, (uint32_t)(i % 3 + 1), tl_nametab_name_str(names[i])),
				 TL_NAMETAB_NONE);
	}
	for (size_t i = 0; i < n; i++)
		g_free(names[i]);
	g_free(names);
	tl_nametab_free(t);
}

/* The table keeps copies: names overwritten after they were put are
 * still found by their old bytes, and not by their new ones. */
static void test_nametab_copies(void **state)
{
	tl_nametab *t = tl_nametab_new(4);
	char buf[100][32];
	for (int i = 0; i < 100; i++) {
		snprintf(buf[i], sizeof buf[i], "gradients/node_%d", i);
		tl_nametab_put(t, 7, tl_nametab_name_str(buf[i]), (uint32_t)i);
	}
	for (int i = 0; i < 100; i++)
		snprintf(buf[i], sizeof buf[i], "overwritten_%d", i);
	for (int i = 0; i < 100; i++) {
		char name[32];
		snprintf(name, sizeof name, "gradients/node_%d", i);
		assert_int_equal(tl_nametab_get(t, 7, tl_nametab_name_str(name)), i);
		assert_int_equal(tl_nametab_get(t, 7, tl_nametab_name_str(buf[i])),
				 TL_NAMETAB_NONE);
	}
	tl_nametab_free(t);
}

int main(void)
{
	td_filter();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nametab_basic),
	    cmocka_unit_test(test_nametab_many),
	    cmocka_unit_test(test_nametab_copies),
	};
	return cmocka_run_group_tests_name("nametab", tests, NULL, NULL);
}
