#include "emit/idle.h"

#include <glib.h>

enum { D_NAME, D_BUSY, D_IDLE, D_PCT, D_BUSY_MS, D_IDLE_MS, D_GAPS, D_N };
static const tl_table_col device_cols[D_N] = {
    [D_NAME] = {"device", "device", TL_CELL_STR, NULL, "  %-56s"},
    [D_BUSY] = {"busy_micros", "busy_us", TL_CELL_NUM, "%.3f", NULL},
    [D_IDLE] = {"idle_micros", "idle_us", TL_CELL_NUM, "%.3f", NULL},
    [D_PCT] = {"busy_pct", "busy_pct", TL_CELL_NUM, "%.2f", " busy %6.2f%%"},
    [D_BUSY_MS] = {NULL, NULL, TL_CELL_NUM, NULL, "  %10.3f ms busy,"},
    [D_IDLE_MS] = {NULL, NULL, TL_CELL_NUM, NULL, " %10.3f ms idle in"},
    [D_GAPS] = {"gaps", "gaps", TL_CELL_NUM, "%.0f", " %.0f gaps"},
};
static const tl_table_spec device_spec = {device_cols, D_N, "devices"};

enum { G_US, G_MS, G_AT, G_AFTER, G_AFTER_OP, G_BEFORE, G_BEFORE_OP, G_N };
static const tl_table_col gap_cols[G_N] = {
    [G_US] = {NULL, "us", TL_CELL_NUM, "%.3f", NULL},
    [G_MS] = {NULL, NULL, TL_CELL_NUM, NULL, "      gap %9.3f ms"},
    [G_AT] = {NULL, NULL, TL_CELL_NUM, NULL, " at +%.3f ms:"},
    [G_AFTER] = {NULL, "after", TL_CELL_STR, NULL, " after %s"},
    [G_AFTER_OP] = {NULL, NULL, TL_CELL_STR, NULL, " (%s),"},
    [G_BEFORE] = {NULL, "before", TL_CELL_STR, NULL, " before %s"},
    [G_BEFORE_OP] = {NULL, NULL, TL_CELL_STR, NULL, " (%s)"},
};
static const tl_table_spec gap_spec = {gap_cols, G_N, "longest"};

static void write_gaps(tl_table *t, const tl_run *run, const tl_idle_device *d)
{
	for (size_t k = 0; k < d->n_longest; k++) {
		const tl_idle_gap *g = &d->longest[k];
		const tl_exec *before = &run->execs[g->before], *after = &run->execs[g->after];
		tl_cell c[G_N] = {
		    [G_US] = {.v = (double)(g->end - g->begin) / 1e3},
		    [G_MS] = {.v = (double)(g->end - g->begin) / 1e6},
		    [G_AT] = {.v = (double)(g->begin - run->t_begin) / 1e6},
		    [G_AFTER] = {.s = before->node},
		    [G_AFTER_OP] = {.s = before->op},
		    [G_BEFORE] = {.s = after->node},
		    [G_BEFORE_OP] = {.s = after->op},
		};
		tl_table_sub_row(t, c);
	}
}

void tl_idle_write(const tl_run *run, const tl_idle *idle, const tl_table_sink *sink,
		   tl_output *out)
{
	char *head =
	    g_strdup_printf("run %s: step %.3f ms\n", run->label, (double)idle->span_ns / 1e6);
	tl_table t;
	tl_table_begin(&t, sink, out, &device_spec, &gap_spec, NULL, NULL, head);
	for (size_t i = 0; i < idle->n_devices; i++) {
		const tl_idle_device *d = &idle->devices[i];
		tl_cell c[D_N] = {
		    [D_NAME] = {.s = run->devices[d->device].name},
		    [D_BUSY] = {.v = (double)d->busy_ns / 1e3},
		    [D_IDLE] = {.v = (double)d->idle_ns / 1e3},
		    [D_PCT] = {.v = d->busy_pct},
		    [D_BUSY_MS] = {.v = (double)d->busy_ns / 1e6},
		    [D_IDLE_MS] = {.v = (double)d->idle_ns / 1e6},
		    [D_GAPS] = {.v = (double)d->n_gaps},
		};
		tl_table_row(&t, c);
		write_gaps(&t, run, d);
	}
	tl_table_end(&t);
	g_free(head);
}
