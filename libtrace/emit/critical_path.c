#include "emit/critical_path.h"

#include <glib.h>
#include <inttypes.h>

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

/* host rules: the meta fields say so, and count the path's instants and
 * edges */
enum { H_RUN, H_RULES, H_PATH, H_STEP, H_NODES, H_EDGES, H_N };
static const tl_table_col host_meta_cols[H_N] = {
    [H_RUN] = {NULL, "run", TL_CELL_STR, NULL, NULL},
    [H_RULES] = {NULL, "rules", TL_CELL_STR, NULL, NULL},
    [H_PATH] = {NULL, "path_us", TL_CELL_NUM, "%.3f", NULL},
    [H_STEP] = {NULL, "window_us", TL_CELL_NUM, "%.3f", NULL},
    [H_NODES] = {NULL, "nodes", TL_CELL_NUM, "%.0f", NULL},
    [H_EDGES] = {NULL, "edges", TL_CELL_NUM, "%.0f", NULL},
};
static const tl_table_spec host_meta_spec = {host_meta_cols, H_N, NULL};

static void write_step(tl_table *t, const tl_run *run, const tl_path *p, const tl_path_step *st,
		       size_t rank)
{
	const tl_exec *e = &run->execs[st->exec];
	int64_t span = p->span_end - p->span_begin;
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

/* The dataflow path's header, as it has always been. */
static char *dataflow_head(const tl_run *run, const tl_path *p, int64_t work)
{
	return g_strdup_printf(
	    "run %s: critical path of %zu executions, %.3f ms of a %.3f ms step (%.3f ms "
	    "working, %.3f ms waiting)\n  %-4s %10s %10s %10s %10s %7s  %s\n",
	    run->label, p->n, (double)(p->end - p->begin) / 1e6,
	    (double)(p->span_end - p->span_begin) / 1e6, (double)work / 1e6,
	    (double)(p->end - p->begin - work) / 1e6, "#", "start ms", "dur ms", "gated ms",
	    "wait ms", "share", "node (op) on device");
}

static char *host_head(const tl_run *run, const tl_path *p, const tl_path_opts *o, int64_t work)
{
	int64_t delay = 0;
	for (size_t i = 0; i < p->n; i++)
		delay += p->steps[i].wait_ns;
	char *window = o != NULL && o->annotation != NULL
			   ? g_strdup_printf("window of '%s' #%" PRIu32, o->annotation, o->instance)
			   : g_strdup("step");
	char *head = g_strdup_printf(
	    "run %s: critical path by host/launch/stream/sync rules (as HTA) of %zu events "
	    "(%zu instants, %zu edges: %zu launch, %zu kernel-kernel, %zu sync), %.3f ms of "
	    "a %.3f ms %s (%.3f ms working, %.3f ms launch and kernel-kernel delays, %.3f ms "
	    "waiting)\n  %-4s %10s %10s %10s %10s %7s  %s\n",
	    run->label, p->n, p->n_nodes, p->n_edges, p->n_launch, p->n_kernel, p->n_sync,
	    (double)(p->end - p->begin) / 1e6, (double)(p->span_end - p->span_begin) / 1e6,
	    window, (double)work / 1e6, (double)delay / 1e6,
	    (double)(p->end - p->begin - work - delay) / 1e6, "#", "start ms", "dur ms",
	    "gated ms", "delay ms", "share", "event on device");
	g_free(window);
	return head;
}

void tl_critical_path_write(const tl_run *run, const tl_path *p, const tl_path_opts *o,
			    const tl_table_sink *sink, tl_output *out)
{
	int64_t work = 0;
	for (size_t i = 0; i < p->n; i++)
		work += p->steps[i].gated_ns;
	bool host = p->rules == TL_PATH_HOST;
	char *head = host ? host_head(run, p, o, work) : dataflow_head(run, p, work);
	tl_cell meta[M_N] = {
	    [M_RUN] = {.s = run->label},
	    [M_PATH] = {.v = (double)(p->end - p->begin) / 1e3},
	    [M_STEP] = {.v = (double)(p->span_end - p->span_begin) / 1e3},
	};
	tl_cell hmeta[H_N] = {
	    [H_RUN] = {.s = run->label},
	    [H_RULES] = {.s = "host/launch/stream/sync (HTA)"},
	    [H_PATH] = {.v = (double)(p->end - p->begin) / 1e3},
	    [H_STEP] = {.v = (double)(p->span_end - p->span_begin) / 1e3},
	    [H_NODES] = {.v = (double)p->n_nodes},
	    [H_EDGES] = {.v = (double)p->n_edges},
	};
	tl_table t;
	tl_table_begin(&t, sink, out, &spec, NULL, host ? &host_meta_spec : &meta_spec,
		       host ? hmeta : meta, head);
	for (size_t i = 0; i < p->n; i++)
		write_step(&t, run, p, &p->steps[i], i + 1);
	tl_table_end(&t);
	g_free(head);
}

/* Host rules: each event on a row of its own thread or stream (rows in
 * the order the path meets them), so that the host's nesting shows. */
static void host_trace(tl_chrome *w, const tl_run *run, const tl_path *p)
{
	tl_chrome_process(w, 1, "Critical path (HTA's rules)", 0);
	GHashTable *rows = g_hash_table_new(g_int64_hash, g_int64_equal);
	int64_t *keys = g_new(int64_t, p->n + 1);
	for (size_t i = 0; i < p->n; i++) {
		const tl_exec *e = &run->execs[p->steps[i].exec];
		keys[i] = (int64_t)e->device << 32 | e->thread;
		gpointer row = g_hash_table_lookup(rows, &keys[i]);
		if (row == NULL) {
			row = GSIZE_TO_POINTER(g_hash_table_size(rows) + 1);
			g_hash_table_insert(rows, &keys[i], row);
			const tl_device *d = &run->devices[e->device];
			char *name = d->kind == TL_DEV_STREAM || d->kind == TL_DEV_MEMCPY
					 ? g_strdup(d->name)
					 : g_strdup_printf("%s thread %" PRIu32, d->name, e->thread);
			int64_t tid = (int64_t)GPOINTER_TO_SIZE(row) - 1;
			tl_chrome_thread(w, 1, tid, name, tid);
			g_free(name);
		}
		int64_t tid = (int64_t)GPOINTER_TO_SIZE(row) - 1;
		tl_chrome_complete(w, e->op, "critical", 1, tid, e->start, e->end - e->start);
		tl_chrome_arg_str(w, "name", e->node);
		tl_chrome_arg_str(w, "device", run->devices[e->device].name);
		tl_chrome_arg_micros(w, "gated_us", p->steps[i].gated_ns);
		tl_chrome_arg_micros(w, "delay_us", p->steps[i].wait_ns);
	}
	g_hash_table_destroy(rows);
	g_free(keys);
}

void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path *p)
{
	const tl_path_step *steps = p->steps;
	size_t n = p->n;
	if (p->rules == TL_PATH_HOST) {
		host_trace(w, run, p);
		return;
	}
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
