#include "base/runsort.h"

#include <glib.h>
#include <string.h>

size_t tl_runsort(void *base, size_t n, size_t size, tl_runsort_before before, void *ctx)
{
	unsigned char *a = base;
	size_t runs = 1;
	for (size_t k = 1; k < n; k++)
		runs += before(a + k * size, a + (k - 1) * size, ctx);
	if (runs == 1)
		return 1;
	/* at[r]: where run r starts; at[m] = n */
	size_t *at = g_new(size_t, runs + 1), m = 0;
	at[m++] = 0;
	for (size_t k = 1; k < n; k++)
		if (before(a + k * size, a + (k - 1) * size, ctx))
			at[m++] = k;
	at[m] = n;
	unsigned char *buf = g_malloc(n * size), *src = a, *dst = buf;
	while (m > 1) {
		size_t out = 0;
		for (size_t r = 0; r < m; r += 2) {
			size_t i = at[r], mid = at[MIN(r + 1, m)], end = at[MIN(r + 2, m)];
			size_t j = mid, o = i;
			/* the right run's item first only when strictly before:
			 * stable */
			while (i < mid && j < end) {
				size_t from =
				    before(src + j * size, src + i * size, ctx) ? j++ : i++;
				memcpy(dst + o++ * size, src + from * size, size);
			}
			memcpy(dst + o * size, src + i * size, (mid - i) * size);
			o += mid - i;
			memcpy(dst + o * size, src + j * size, (end - j) * size);
			at[out++] = at[r];
		}
		at[out] = n;
		m = out;
		unsigned char *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
	g_free(buf);
	g_free(at);
	return runs;
}
