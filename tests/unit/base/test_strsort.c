/* Unit tests of base/strsort.c: the order strcmp gives, on names that share
 * long prefixes, empty names, bytes above 127, duplicates and a name of a
 * million shared characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/strsort.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
	int tag;
	const char *name;
} item;

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(item *const *)a)->name, (*(item *const *)b)->name);
}

/* n items named from `pick`, sorted both ways: the same names in the same
 * order, every item kept. */
static void check(char **names, size_t n)
{
	item *all = g_new(item, n);
	void **got = g_new(void *, n), **want = g_new(void *, n);
	for (size_t i = 0; i < n; i++) {
		all[i] = (item){.tag = (int)i, .name = names[i]};
		got[i] = want[i] = &all[i];
	}
	tl_strsort(got, n, offsetof(item, name));
	qsort(want, n, sizeof *want, cmp_name);
	int *seen = g_new0(int, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(((item *)got[i])->name, ((item *)want[i])->name);
		seen[((item *)got[i])->tag]++;
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seen[i], 1);
	g_free(seen);
	g_free(got);
	g_free(want);
	g_free(all);
}

static void test_scopes(void **state)
{
	(void)state;
	GRand *r = g_rand_new_with_seed(7);
	size_t n = 5000;
	char **names = g_new(char *, n);
	static const char *const parts[] = {"gradients", "model", "block_3", "conv2d_7",
					    "BiasAdd",	 "",	  "a",	     "\xc3\xa9t\xc3\xa9",
					    "\xff",	 "Z"};
	for (size_t i = 0; i < n; i++) {
		GString *s = g_string_new(NULL);
		int depth = g_rand_int_range(r, 0, 8);
		for (int k = 0; k < depth; k++) {
			if (k > 0)
				g_string_append_c(s, '/');
			g_string_append(s, parts[g_rand_int_range(r, 0, G_N_ELEMENTS(parts))]);
		}
		if (g_rand_boolean(r))
			g_string_append_printf(s, "_%d", g_rand_int_range(r, 0, 50));
		names[i] = g_string_free(s, FALSE);
	}
	check(names, n);
	check(names, 11); /* below the insertion sort's threshold */
	check(names, 1);
	for (size_t i = 0; i < n; i++)
		g_free(names[i]);
	g_free(names);
	g_rand_free(r);
}

static void test_long_shared_prefix(void **state)
{
	(void)state;
	size_t len = 1000000, n = 40;
	char **names = g_new(char *, n);
	for (size_t i = 0; i < n; i++) {
		names[i] = g_malloc(len + 2);
		memset(names[i], 'x', len);
		names[i][len] = (char)('a' + (i * 7) % 26);
		names[i][len + 1] = '\0';
		if (i % 5 == 0)
			names[i][len] = '\0'; /* a prefix of the others */
	}
	check(names, n);
	for (size_t i = 0; i < n; i++)
		g_free(names[i]);
	g_free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scopes),
	    cmocka_unit_test(test_long_shared_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
