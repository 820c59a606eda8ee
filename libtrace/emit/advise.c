#include "emit/advise.h"

#include <glib.h>

enum { A_HEAD, A_CHECKER, A_FINDING, A_N };
static const tl_table_col cols[A_N] = {
    [A_HEAD] = {NULL, NULL, TL_CELL_STR, NULL, "%s"},
    [A_CHECKER] = {"checker", "checker", TL_CELL_STR, NULL, NULL},
    [A_FINDING] = {"finding", "finding", TL_CELL_STR, NULL, "%s"},
};
static const tl_table_spec spec = {cols, A_N, "findings"};

static const tl_table_col meta_cols[] = {{NULL, "run", TL_CELL_STR, NULL, NULL}};
static const tl_table_spec meta_spec = {meta_cols, 1, NULL};

/* The findings of one checker, in order; text names the checker above
 * them (alone on its line where it found nothing). */
struct checker {
	tl_table *t;
	const char *name;
	size_t n;
};

static void finding(struct checker *c, char *text)
{
	char *head = c->n == 0 ? g_strdup_printf("  %s:\n    ", c->name) : g_strdup("    ");
	tl_cell cells[A_N] = {{.s = head}, {.s = c->name}, {.s = text}};
	tl_table_row(c->t, cells);
	c->n++;
	g_free(head);
	g_free(text);
}

static void nothing_found(struct checker *c)
{
	if (c->n > 0)
		return;
	char *head = g_strdup_printf("  %s:", c->name);
	tl_cell cells[A_N] = {{.s = head}, {.s = c->name}, {.s = ""}};
	tl_table_row(c->t, cells);
	g_free(head);
}

static void expensive(tl_table *t, const tl_advice *a)
{
	struct checker c = {t, "ExpensiveOperationChecker", 0};
	for (size_t i = 0; i < a->n_top; i++)
		finding(&c,
			g_strdup_printf("top %zu op type %s: %.3f ms, %.1f%% of op time", i + 1,
					a->top[i].op, (double)a->top[i].ns / 1e6, a->top[i].pct));
	nothing_found(&c);
}

static void utilization(tl_table *t, const tl_run *run, const tl_advice *a)
{
	struct checker c = {t, "AcceleratorUtilizationChecker", 0};
	for (size_t i = 0; i < a->n_gpus; i++) {
		const tl_advice_gpu *g = &a->gpus[i];
		finding(&c,
			g_strdup_printf("%s: kernels busy %.1f%% of the step%s",
					run->devices[g->device].name, g->busy_pct,
					!g->has_records
					    ? " (no GPU tracer records: capture with FULL_TRACE)"
					: g->busy_pct < 50
					    ? "; the GPU waits: look at --idle and --critical-path"
					    : ""));
	}
	if (a->n_gpus == 0)
		finding(&c, g_strdup("no GPU in this run"));
}

static void operations(tl_table *t, const tl_advice *a)
{
	struct checker c = {t, "OperationChecker", 0};
	if (a->nhwc > 0)
		finding(&c,
			g_strdup_printf("%zu Conv2D node(s) on a GPU use NHWC (e.g. %s): NCHW is "
					"faster with cuDNN",
					a->nhwc, a->nhwc_example));
	if (a->unfused_bn > 0)
		finding(&c, g_strdup_printf("%zu batch normalization(s) built from separate ops "
					    "(e.g. %s): use fused=True (FusedBatchNorm)",
					    a->unfused_bn, a->bn_example));
	if (a->nhwc == 0 && a->unfused_bn == 0)
		finding(&c,
			g_strdup_printf("nothing to report%s",
					a->has_graphs ? "" : " (no partition graphs in this run)"));
}

void tl_advise_write(const tl_run *run, const tl_advice *a, const tl_table_sink *sink,
		     tl_output *out)
{
	char *head = g_strdup_printf("run %s\n", run->label);
	tl_cell meta[] = {{.s = run->label}};
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, NULL, &meta_spec, meta, head);
	expensive(&t, a);
	utilization(&t, run, a);
	operations(&t, a);
	tl_table_end(&t);
	g_free(head);
}
