#include "emit/summary_diff.h"

#include <math.h>
#include <stdio.h>

enum { D_NAME, D_A, D_B, D_DELTA, D_CHANGE, D_PCT, D_CALLS_A, D_CALLS_B, D_N };

void tl_summary_diff_write(const tl_summary_diff *d, const tl_table_sink *sink, tl_output *out)
{
	char *a_key = g_strdup_printf("a_%s", tl_summary_col_name(d->col));
	char *b_key = g_strdup_printf("b_%s", tl_summary_col_name(d->col));
	const tl_table_col cols[D_N] = {
	    [D_NAME] = {"name", "name", TL_CELL_STR, NULL, "%-40.40s"},
	    [D_A] = {a_key, "a", TL_CELL_NUM, "%.3f", "  %14.3f"},
	    [D_B] = {b_key, "b", TL_CELL_NUM, "%.3f", "  %14.3f"},
	    [D_DELTA] = {"delta", "delta", TL_CELL_NUM, "%.3f", "  %+14.3f"},
	    [D_CHANGE] = {NULL, NULL, TL_CELL_STR, NULL, "  %8s"},
	    [D_PCT] = {"delta_pct", NULL, TL_CELL_NUM, "%.2f", NULL},
	    [D_CALLS_A] = {"a_occurrence", "a_occurrence", TL_CELL_NUM, "%.0f", "  %4.0f"},
	    [D_CALLS_B] = {"b_occurrence", "b_occurrence", TL_CELL_NUM, "%.0f", ">%-4.0f"},
	};
	const tl_table_spec spec = {cols, D_N, "rows"};
	static const tl_table_col meta_cols[] = {{NULL, "column", TL_CELL_STR, NULL, NULL}};
	static const tl_table_spec meta = {meta_cols, 1, NULL};
	tl_cell meta_cells[] = {{.s = tl_summary_col_name(d->col)}};
	char *head = g_strdup_printf("%-40s  %14s  %14s  %14s  %8s  %9s\n", "name", "A", "B",
				     "B - A", "change", "calls A>B");
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, NULL, &meta, meta_cells, head);
	for (size_t i = 0; i < d->n; i++) {
		const tl_summary_diff_row *r = &d->rows[i];
		double pct = r->a != 0 ? 100.0 * (r->b - r->a) / r->a : (r->b != 0 ? INFINITY : 0);
		char change[16];
		if (isfinite(pct))
			snprintf(change, sizeof change, "%+.1f%%", pct);
		else
			snprintf(change, sizeof change, "new");
		tl_cell c[D_N] = {
		    [D_NAME] = {.s = r->name},
		    [D_A] = {.v = r->a},
		    [D_B] = {.v = r->b},
		    [D_DELTA] = {.v = r->b - r->a},
		    [D_CHANGE] = {.s = change},
		    [D_PCT] = {.v = isfinite(pct) ? pct : 0.0},
		    [D_CALLS_A] = {.v = r->calls_a},
		    [D_CALLS_B] = {.v = r->calls_b},
		};
		tl_table_row(&t, c);
	}
	tl_table_end(&t);
	g_free(head);
	g_free(a_key);
	g_free(b_key);
}
