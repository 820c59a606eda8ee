#include "emit/summary_diff.h"

#include "emit/summary.h"

#include <math.h>
#include <stdio.h>

enum { D_NAME, D_A, D_B, D_DELTA, D_CHANGE, D_PCT, D_CALLS_A, D_CALLS_B, D_N };

void tl_summary_diff_write(const tl_summary_diff *d, const tl_table_sink *sink, tl_output *out)
{
	char *a_key = g_strdup_printf("a_%s", tl_summary_col_name(d->col));
	char *b_key = g_strdup_printf("b_%s", tl_summary_col_name(d->col));
	const tl_table_col cols[D_N] = {
	    [D_NAME] = {"name", "name", TL_CELL_STR, NULL, "%-40.40s"},
	    [D_A] = {a_key, "a", TL_CELL_NUM, "%.3f", "  %14s"},
	    [D_B] = {b_key, "b", TL_CELL_NUM, "%.3f", "  %14s"},
	    [D_DELTA] = {"delta", "delta", TL_CELL_NUM, "%.3f", "  %14s"},
	    [D_CHANGE] = {NULL, NULL, TL_CELL_STR, NULL, "  %8s"},
	    [D_PCT] = {"delta_pct", NULL, TL_CELL_NUM, "%.2f", NULL},
	    [D_CALLS_A] = {"a_occurrence", "a_occurrence", TL_CELL_NUM, "%.0f", "  %4.0f"},
	    [D_CALLS_B] = {"b_occurrence", "b_occurrence", TL_CELL_NUM, "%.0f", ">%-4.0f"},
	};
	const tl_table_spec spec = {cols, D_N, "rows"};
	static const tl_table_col meta_cols[] = {{NULL, "column", TL_CELL_STR, NULL, NULL}};
	static const tl_table_spec meta = {meta_cols, 1, NULL};
	tl_cell meta_cells[] = {{.s = tl_summary_col_name(d->col)}};
	/* text: the column named in the head, its values in its human units
	 * (trace-summarize's tables'); CSV and JSON: the numbers */
	char *name = g_strdup_printf("name (%s)", tl_summary_col_name(d->col));
	char *head = g_strdup_printf("%-40s  %14s  %14s  %14s  %8s  %9s\n", name, "A", "B",
				     "B - A", "change", "calls A>B");
	char human[3][48];
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
		double delta = r->b - r->a;
		tl_summary_human(d->col, r->a, human[0], sizeof human[0]);
		tl_summary_human(d->col, r->b, human[1], sizeof human[1]);
		human[2][0] = delta < 0 ? '-' : '+';
		tl_summary_human(d->col, fabs(delta), human[2] + 1, sizeof human[2] - 1);
		tl_cell c[D_N] = {
		    [D_NAME] = {.s = r->name},
		    [D_A] = {.s = human[0], .v = r->a},
		    [D_B] = {.s = human[1], .v = r->b},
		    [D_DELTA] = {.s = human[2], .v = delta},
		    [D_CHANGE] = {.s = change},
		    [D_PCT] = {.v = isfinite(pct) ? pct : 0.0},
		    [D_CALLS_A] = {.v = r->calls_a},
		    [D_CALLS_B] = {.v = r->calls_b},
		};
		tl_table_row(&t, c);
	}
	tl_table_end(&t);
	g_free(head);
	g_free(name);
	g_free(a_key);
	g_free(b_key);
}
