#include "analysis/summary_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_impact(const void *x, const void *y)
{
	const tl_summary_diff_row *p = x, *q = y;
	double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
	if (dp != dq)
		return dp > dq ? -1 : 1;
	return strcmp(p->name, q->name);
}

tl_summary_diff *tl_summary_diff_new(const tl_summary *a, const tl_summary *b,
				     const tl_summary_opts *o)
{
	tl_summary_diff *d = g_new0(tl_summary_diff, 1);
	d->col = o->order_by >= 0 ? o->order_by : TL_COL_TOTAL;
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTableIter it;
	gpointer k, v;
	const tl_summary *both[] = {a, b};
	for (int i = 0; i < 2; i++) {
		g_hash_table_iter_init(&it, both[i]->rows);
		while (g_hash_table_iter_next(&it, &k, &v))
			g_hash_table_add(names, k);
	}
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(tl_summary_diff_row));
	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		tl_summary_diff_row r = {.name = k};
		const tl_row *ra = g_hash_table_lookup(a->rows, k);
		const tl_row *rb = g_hash_table_lookup(b->rows, k);
		r.a = ra ? tl_summary_row_stat(a, ra, d->col, o) : 0;
		r.b = rb ? tl_summary_row_stat(b, rb, d->col, o) : 0;
		r.calls_a = ra ? tl_summary_row_stat(a, ra, TL_COL_OCCURRENCE, o) : 0;
		r.calls_b = rb ? tl_summary_row_stat(b, rb, TL_COL_OCCURRENCE, o) : 0;
		g_array_append_val(rows, r);
	}
	g_hash_table_destroy(names);
	if (rows->len > 1)
		qsort(rows->data, rows->len, sizeof(tl_summary_diff_row), cmp_impact);
	d->n = rows->len;
	d->rows = (tl_summary_diff_row *)(void *)g_array_free(rows, FALSE);
	return d;
}

void tl_summary_diff_free(tl_summary_diff *d)
{
	if (d == NULL)
		return;
	g_free(d->rows);
	g_free(d);
}
