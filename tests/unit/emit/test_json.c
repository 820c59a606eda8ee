/* Unit tests of json.c's number writer: tl_json_number3 against printf's
 * "%.0f" (whole values under 9e15) and "%.3f" (the rest), which the page's
 * tables wrote before, on ties, values that round onto a tie, the ends of
 * the range and a million values of every magnitude. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/output.h"
#include "emit/json.h"

#include <glib.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What the page's writer did before: printf. */
static void by_printf(double v, char *buf, size_t size)
{
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.3f", v);
}

/* Each value written by both, the outputs compared; the number of values. */
static size_t check_all(const double *v, size_t n)
{
	tl_output *o = tl_output_new_memory();
	GString *want = g_string_new(NULL);
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		tl_json_number3(o, v[i]);
		tl_output_char(o, ' ');
		by_printf(v[i], buf, sizeof buf);
		g_string_append(want, buf);
		g_string_append_c(want, ' ');
	}
	GString *got = tl_output_take(o);
	if (strcmp(got->str, want->str) != 0) {
		/* the first value written apart, for the message */
		const char *g = got->str, *w = want->str;
		while (*g == *w) {
			g++;
			w++;
		}
		while (g > got->str && g[-1] != ' ') {
			g--;
			w--;
		}
		fail_msg("got '%.40s', printf wrote '%.40s'", g, w);
	}
	g_string_free(got, TRUE);
	g_string_free(want, TRUE);
	return n;
}

static void test_edges(void **state)
{
	const double v[] = {
	    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.0625, -0.0625, 0.1875, 2.0625,
	    0.0005, 0.0015, 0.0025, 1.0005, 0.9995, 999.9995, 0.99951, 0.99949,
	    0.0004, -0.0004, -0.0005, -0.0006, 0.001, 0.1, 0.123456, 123.4565,
	    /* ties in binary: n/16, n/2048 */
	    1.0 / 16, 3.0 / 16, 5.0 / 2048, 7.0 / 2048, 1023.0 / 2048,
	    /* the ends of the range */
	    8999999999999999.0, -8999999999999999.0, 9e15, -9e15, 8999999999999.9995,
	    4503599627370495.5, 4503599627370496.0, 9007199254740992.0, 1e16, -1e16, 1e300,
	    -1e300, 1e-300, -1e-300, 5e-324, DBL_MAX, -DBL_MAX,
	};
	check_all(v, G_N_ELEMENTS(v));
}

/* Every thousandth and every half thousandth around 0 and 1000, and the
 * doubles on either side of each. */
static void test_near_ties(void **state)
{
	GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
	for (int base = 0; base <= 1000; base += 1000)
		for (int k = -4000; k <= 4000; k++) {
			double x = base + k / 2000.0;
			double around[] = {x, nextafter(x, INFINITY), nextafter(x, -INFINITY)};
			g_array_append_vals(v, around, 3);
		}
	check_all((const double *)(void *)v->data, v->len);
	g_array_free(v, TRUE);
}

/* Random values: uniform bits (every exponent), microseconds of whole
 * nanoseconds (what the tables hold) and their sums. */
static void test_random(void **state)
{
	GRand *rand = g_rand_new_with_seed(28);
	size_t n = 1000000;
	double *v = g_new(double, n);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t bits = (uint64_t)g_rand_int(rand) << 32 | g_rand_int(rand);
		double x;
		switch (i % 4) {
		case 0:
			memcpy(&x, &bits, sizeof x);
			if (!isfinite(x))
				x = 0.25;
			break;
		case 1:
			x = (double)(int64_t)(bits >> (bits % 50)) / 1000.0;
			break;
		case 2:
			sum += (double)(bits % 10000000) / 1000.0;
			x = sum;
			break;
		default:
			x = ldexp((double)(bits >> 11), -(int)(bits % 60));
		}
		v[i] = (bits & 1) && i % 4 != 0 ? -x : x;
	}
	assert_int_equal(check_all(v, n), n);
	g_free(v);
	g_rand_free(rand);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_near_ties),
	    cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
