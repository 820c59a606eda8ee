#include "emit/critical_path.h"

#include <glib.h>

enum {
	C_RANK,
	C_NODE,
	C_OP,
	C_DEVICE,
	C_START,
	C_START_MS,
	C_DUR,
	C_DUR_MS,
	C_GATED,
	C_GATED_MS,
	C_WAIT,
	C_WAIT_MS,
	C_SHARE,
	C_NODE_T,
	C_OP_T,
	C_DEVICE_T,
	C_N
};
static const tl_table_col cols[C_N] = {
    [C_RANK] = {"rank", NULL, TL_CELL_NUM, "%.0f", "  %-4.0f"},
    [C_NODE] = {"node", "node", TL_CELL_STR, NULL, NULL},
    [C_OP] = {"op", "op", TL_CELL_STR, NULL, NULL},
    [C_DEVICE] = {"device", "device", TL_CELL_STR, NULL, NULL},
    [C_START] = {"start_us", "start_us", TL_CELL_NUM, "%.3f", NULL},
    [C_START_MS] = {NULL, NULL, TL_CELL_NUM, NULL, " %10.3f"},
    [C_DUR] = {"dur_us", "dur_us", TL_CELL_NUM, "%.3f", NULL},
    [C_DUR_MS] = {NULL, NULL, TL_CELL_NUM, NULL, " %10.3f"},
    [C_GATED] = {"gated_us", "gated_us", TL_CELL_NUM, "%.3f", NULL},
    [C_GATED_MS] = {NULL, NULL, TL_CELL_NUM, NULL, " %10.3f"},
    [C_WAIT] = {"wait_us", "wait_us", TL_CELL_NUM, "%.3f", NULL},
    [C_WAIT_MS] = {NULL, NULL, TL_CELL_NUM, NULL, " %10.3f"},
    [C_SHARE] = {"share_pct", "share_pct", TL_CELL_NUM, "%.2f", " %6.2f%%"},
    [C_NODE_T] = {NULL, NULL, TL_CELL_STR, NULL, "  %s"},
    [C_OP_T] = {NULL, NULL, TL_CELL_STR, NULL, " (%s)"},
    [C_DEVICE_T] = {NULL, NULL, TL_CELL_STR, NULL, " on %s"},
};
static const tl_table_spec spec = {cols, C_N, "ops"};

enum { M_RUN, M_PATH, M_STEP, M_N };
static const tl_table_col meta_cols[M_N] = {
    [M_RUN] = {NULL, "run", TL_CELL_STR, NULL, NULL},
    [M_PATH] = {NULL, "path_us", TL_CELL_NUM, "%.3f", NULL},
    [M_STEP] = {NULL, "step_us", TL_CELL_NUM, "%.3f", NULL},
};
static const tl_table_spec meta_spec = {meta_cols, M_N, NULL};

static void write_step(tl_table *t, const tl_run *run, const tl_path_step *st, size_t rank)
{
	const tl_exec *e = &run->execs[st->exec];
	int64_t span = run->t_end - run->t_begin;
	const char *dev = run->devices[e->device].name;
	tl_cell c[C_N] = {
	    [C_RANK] = {.v = (double)rank},
	    [C_NODE] = {.s = e->node},
	    [C_OP] = {.s = e->op},
	    [C_DEVICE] = {.s = dev},
	    [C_START] = {.v = (double)(e->start - run->t_begin) / 1e3},
	    [C_START_MS] = {.v = (double)(e->start - run->t_begin) / 1e6},
	    [C_DUR] = {.v = (double)(e->end - e->start) / 1e3},
	    [C_DUR_MS] = {.v = (double)(e->end - e->start) / 1e6},
	    [C_GATED] = {.v = (double)st->gated_ns / 1e3},
	    [C_GATED_MS] = {.v = (double)st->gated_ns / 1e6},
	    [C_WAIT] = {.v = (double)st->wait_ns / 1e3},
	    [C_WAIT_MS] = {.v = (double)st->wait_ns / 1e6},
	    [C_SHARE] = {.v = span > 0 ? 100.0 * (double)st->gated_ns / (double)span : 0},
	    [C_NODE_T] = {.s = e->node},
	    [C_OP_T] = {.s = e->op},
	    [C_DEVICE_T] = {.s = dev},
	};
	tl_table_row(t, c);
}

void tl_critical_path_write(const tl_run *run, const tl_path_step *steps, size_t n,
			    const tl_table_sink *sink, tl_output *out)
{
	int64_t begin = n ? run->execs[steps[0].exec].start : 0;
	int64_t end = n ? run->execs[steps[n - 1].exec].end : 0;
	int64_t span = run->t_end - run->t_begin;
	int64_t work = 0;
	for (size_t i = 0; i < n; i++)
		work += steps[i].gated_ns;
	char *head = g_strdup_printf(
	    "run %s: critical path of %zu executions, %.3f ms of a %.3f ms step (%.3f ms "
	    "working, %.3f ms waiting)\n  %-4s %10s %10s %10s %10s %7s  %s\n",
	    run->label, n, (double)(end - begin) / 1e6, (double)span / 1e6, (double)work / 1e6,
	    (double)(end - begin - work) / 1e6, "#", "start ms", "dur ms", "gated ms", "wait ms",
	    "share", "node (op) on device");
	tl_cell meta[M_N] = {
	    [M_RUN] = {.s = run->label},
	    [M_PATH] = {.v = (double)(end - begin) / 1e3},
	    [M_STEP] = {.v = (double)span / 1e3},
	};
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, NULL, &meta_spec, meta, head);
	for (size_t i = 0; i < n; i++)
		write_step(&t, run, &steps[i], i + 1);
	tl_table_end(&t);
	g_free(head);
}

void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path_step *steps, size_t n)
{
	tl_chrome_process(w, 1, "Critical path", 0);
	tl_chrome_thread(w, 1, 0, "path", 0);
	tl_chrome_thread(w, 1, 1, "path (overlapping)", 1);
	int64_t prev_end = INT64_MIN;
	int64_t tid = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_exec *e = &run->execs[steps[i].exec];
		/* a step that starts before the previous ends (a kernel inside its
		 * launching op) goes on the other row */
		tid = e->start < prev_end ? 1 - tid : tid;
		prev_end = e->end;
		tl_chrome_complete(w, e->op, "critical", 1, tid, e->start, e->end - e->start);
		tl_chrome_arg_str(w, "name", e->node);
		tl_chrome_arg_str(w, "device", run->devices[e->device].name);
		tl_chrome_arg_micros(w, "wait_us", steps[i].wait_ns);
	}
}
