#include "analysis/timeuse.h"

#include "analysis/dataflow.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool counts_for_time(const tl_device *d)
{
	return d->kind == TL_DEV_EXECUTOR || d->kind == TL_DEV_STREAM || d->kind == TL_DEV_MEMCPY;
}

struct gap {
	int64_t begin, end;
	uint32_t before, after; /* execs */
};

static int cmp_gap(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	int64_t lx = x->end - x->begin, ly = y->end - y->begin;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->begin < y->begin ? -1 : (x->begin > y->begin);
}

void tl_idle_print(const tl_run *run, size_t top_gaps, tl_timeuse_format f, tl_output *out)
{
	int64_t span = run->t_end - run->t_begin;
	if (f == TL_TIMEUSE_CSV)
		tl_out_str(out, "device,busy_micros,idle_micros,busy_pct,gaps\n");
	if (f == TL_TIMEUSE_JSON)
		tl_out_str(out, "{\"devices\":[");
	if (f == TL_TIMEUSE_TEXT)
		tl_out_printf(out, "run %s: step %.3f ms\n", run->label, (double)span / 1e6);
	bool first = true;
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (!counts_for_time(dev) || dev->n_exec == 0)
			continue;
		/* execs are sorted by start within a device */
		GArray *gaps = g_array_new(FALSE, FALSE, sizeof(struct gap));
		int64_t busy = 0, cs = INT64_MIN, ce = INT64_MIN;
		uint32_t last = dev->first_exec;
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			const tl_exec *e = &run->execs[i];
			if (cs == INT64_MIN) {
				cs = e->start;
				ce = e->end;
				last = i;
			} else if (e->start > ce) {
				busy += ce - cs;
				struct gap g = {ce, e->start, last, i};
				g_array_append_val(gaps, g);
				cs = e->start;
				ce = e->end;
				last = i;
			} else if (e->end > ce) {
				ce = e->end;
				last = i;
			}
		}
		busy += ce - cs;
		int64_t idle = span - busy;
		double pct = span > 0 ? 100.0 * (double)busy / (double)span : 0;
		if (gaps->len > 1)
			qsort(gaps->data, gaps->len, sizeof(struct gap), cmp_gap);
		if (f == TL_TIMEUSE_CSV) {
			tl_out_csv(out, dev->name);
			tl_out_printf(out, ",%.3f,%.3f,%.2f,%u\n", (double)busy / 1e3,
				      (double)idle / 1e3, pct, gaps->len);
		} else if (f == TL_TIMEUSE_JSON) {
			tl_out_str(out, first ? "\n{\"device\":" : ",\n{\"device\":");
			tl_json_string(out, dev->name);
			tl_out_printf(out, ",\"busy_us\":%.3f,\"idle_us\":%.3f,\"busy_pct\":%.2f,"
					   "\"gaps\":%u,\"longest\":[",
				      (double)busy / 1e3, (double)idle / 1e3, pct, gaps->len);
			for (guint k = 0; k < gaps->len && k < top_gaps; k++) {
				const struct gap *g = &g_array_index(gaps, struct gap, k);
				tl_out_printf(out, "%s{\"us\":%.3f,\"after\":", k ? "," : "",
					      (double)(g->end - g->begin) / 1e3);
				tl_json_string(out, run->execs[g->before].node);
				tl_out_str(out, ",\"before\":");
				tl_json_string(out, run->execs[g->after].node);
				tl_out_char(out, '}');
			}
			tl_out_str(out, "]}");
		} else {
			tl_out_printf(out, "  %-56s busy %6.2f%%  %10.3f ms busy, %10.3f ms idle in "
					   "%u gaps\n",
				      dev->name, pct, (double)busy / 1e6, (double)idle / 1e6, gaps->len);
			for (guint k = 0; k < gaps->len && k < top_gaps; k++) {
				const struct gap *g = &g_array_index(gaps, struct gap, k);
				tl_out_printf(out, "      gap %9.3f ms at +%.3f ms: after %s (%s), "
						   "before %s (%s)\n",
					      (double)(g->end - g->begin) / 1e6,
					      (double)(g->begin - run->t_begin) / 1e6,
					      run->execs[g->before].node, run->execs[g->before].op,
					      run->execs[g->after].node, run->execs[g->after].op);
			}
		}
		first = false;
		g_array_free(gaps, TRUE);
	}
	if (f == TL_TIMEUSE_JSON)
		tl_out_str(out, "]}\n");
}

/* ---- critical path ----------------------------------------------------- */

size_t tl_critical_path(const tl_run *run, tl_path_step **steps)
{
	*steps = NULL;
	if (run->n_execs == 0)
		return 0;
	bool *used = g_new0(bool, run->n_execs);
	for (size_t i = 0; i < run->n_execs; i++)
		used[i] = counts_for_time(&run->devices[run->execs[i].device]);
	/* predecessors: dataflow links, launches, previous kernel on a stream */
	GArray *pred_src = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *pred_dst = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	tl_dataflow_opts fo = {.control = true, .launches = true};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	for (guint j = 0; j < links->len; j++) {
		const tl_link *l = &g_array_index(links, tl_link, j);
		if (!used[l->src] || !used[l->dst])
			continue;
		g_array_append_val(pred_src, l->src);
		g_array_append_val(pred_dst, l->dst);
	}
	g_array_free(links, TRUE);
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (dev->kind != TL_DEV_STREAM && dev->kind != TL_DEV_MEMCPY)
			continue;
		for (uint32_t i = dev->first_exec + 1; i < dev->first_exec + dev->n_exec; i++) {
			uint32_t p = i - 1;
			g_array_append_val(pred_src, p);
			g_array_append_val(pred_dst, i);
		}
	}
	/* CSR by destination */
	uint32_t *first = g_new0(uint32_t, run->n_execs + 1);
	for (guint k = 0; k < pred_dst->len; k++)
		first[g_array_index(pred_dst, uint32_t, k) + 1]++;
	for (size_t i = 0; i < run->n_execs; i++)
		first[i + 1] += first[i];
	uint32_t *fill = g_memdup2(first, (run->n_execs + 1) * sizeof(uint32_t));
	uint32_t *pred = g_new(uint32_t, pred_dst->len ? pred_dst->len : 1);
	for (guint k = 0; k < pred_dst->len; k++)
		pred[fill[g_array_index(pred_dst, uint32_t, k)]++] =
			g_array_index(pred_src, uint32_t, k);
	g_free(fill);
	g_array_free(pred_src, TRUE);
	g_array_free(pred_dst, TRUE);

	int64_t best_end = INT64_MIN;
	uint32_t cur = 0;
	for (uint32_t i = 0; i < run->n_execs; i++)
		if (used[i] && run->execs[i].end > best_end) {
			best_end = run->execs[i].end;
			cur = i;
		}
	GArray *path = g_array_new(FALSE, FALSE, sizeof(tl_path_step));
	bool *on_path = g_new0(bool, run->n_execs);
	for (;;) {
		on_path[cur] = true;
		int64_t start = run->execs[cur].start;
		int32_t best = -1;
		int64_t best_t = INT64_MIN;
		for (uint32_t k = first[cur]; k < first[cur + 1]; k++) {
			uint32_t p = pred[k];
			int64_t pe = run->execs[p].end;
			/* the predecessor that released it: latest end, not after
			 * this start (clock skew aside), not already on the path */
			int64_t t = pe <= start ? pe : start;
			if (!on_path[p] && t > best_t) {
				best_t = t;
				best = (int32_t)p;
			}
		}
		tl_path_step st = {.exec = cur,
				   .wait_ns = best >= 0 && run->execs[best].end < start
						      ? start - run->execs[best].end
						      : 0};
		g_array_append_val(path, st);
		if (best < 0)
			break;
		cur = (uint32_t)best;
	}
	/* first execution first */
	tl_path_step *p = (tl_path_step *)(void *)path->data;
	for (guint i = 0; i < path->len / 2; i++) {
		tl_path_step t = p[i];
		p[i] = p[path->len - 1 - i];
		p[path->len - 1 - i] = t;
	}
	size_t n = path->len;
	*steps = (tl_path_step *)(void *)g_array_free(path, FALSE);
	g_free(on_path);
	g_free(first);
	g_free(pred);
	g_free(used);
	return n;
}

void tl_critical_path_print(const tl_run *run, const tl_path_step *steps, size_t n,
			    tl_timeuse_format f, tl_output *out)
{
	int64_t begin = n ? run->execs[steps[0].exec].start : 0;
	int64_t end = n ? run->execs[steps[n - 1].exec].end : 0;
	int64_t span = run->t_end - run->t_begin;
	/* a step's own share of the path: from when its predecessor released
	 * it (or its start, if later) to its end; with the waits this adds up
	 * to the path's span even where a _Recv started before its _Send */
	int64_t *gated = g_new(int64_t, n ? n : 1);
	int64_t work = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_exec *e = &run->execs[steps[i].exec];
		int64_t from = e->start;
		if (i > 0 && run->execs[steps[i - 1].exec].end > from)
			from = run->execs[steps[i - 1].exec].end;
		gated[i] = e->end > from ? e->end - from : 0;
		work += gated[i];
	}
	if (f == TL_TIMEUSE_CSV) {
		tl_out_str(out, "rank,node,op,device,start_us,dur_us,gated_us,wait_us,share_pct\n");
	} else if (f == TL_TIMEUSE_JSON) {
		tl_out_printf(out, "{\"run\":");
		tl_json_string(out, run->label);
		tl_out_printf(out, ",\"path_us\":%.3f,\"step_us\":%.3f,\"ops\":[",
			      (double)(end - begin) / 1e3, (double)span / 1e3);
	} else {
		tl_out_printf(out, "run %s: critical path of %zu executions, %.3f ms of a %.3f ms "
				   "step (%.3f ms working, %.3f ms waiting)\n",
			      run->label, n, (double)(end - begin) / 1e6, (double)span / 1e6,
			      (double)work / 1e6, (double)(end - begin - work) / 1e6);
		tl_out_printf(out, "  %-4s %10s %10s %10s %10s %7s  %s\n", "#", "start ms", "dur ms",
			      "gated ms", "wait ms", "share", "node (op) on device");
	}
	for (size_t i = 0; i < n; i++) {
		const tl_exec *e = &run->execs[steps[i].exec];
		double share = span > 0 ? 100.0 * (double)gated[i] / (double)span : 0;
		const char *dev = run->devices[e->device].name;
		if (f == TL_TIMEUSE_CSV) {
			tl_out_printf(out, "%zu,", i + 1);
			tl_out_csv(out, e->node);
			tl_out_char(out, ',');
			tl_out_csv(out, e->op);
			tl_out_char(out, ',');
			tl_out_csv(out, dev);
			tl_out_printf(out, ",%.3f,%.3f,%.3f,%.3f,%.2f\n",
				      (double)(e->start - run->t_begin) / 1e3,
				      (double)(e->end - e->start) / 1e3, (double)gated[i] / 1e3,
				      (double)steps[i].wait_ns / 1e3, share);
		} else if (f == TL_TIMEUSE_JSON) {
			tl_out_str(out, i ? ",\n{\"node\":" : "\n{\"node\":");
			tl_json_string(out, e->node);
			tl_out_str(out, ",\"op\":");
			tl_json_string(out, e->op);
			tl_out_str(out, ",\"device\":");
			tl_json_string(out, dev);
			tl_out_printf(out, ",\"start_us\":%.3f,\"dur_us\":%.3f,\"gated_us\":%.3f,"
					   "\"wait_us\":%.3f,\"share_pct\":%.2f}",
				      (double)(e->start - run->t_begin) / 1e3,
				      (double)(e->end - e->start) / 1e3, (double)gated[i] / 1e3,
				      (double)steps[i].wait_ns / 1e3, share);
		} else {
			tl_out_printf(out, "  %-4zu %10.3f %10.3f %10.3f %10.3f %6.2f%%  %s (%s) on %s\n",
				      i + 1, (double)(e->start - run->t_begin) / 1e6,
				      (double)(e->end - e->start) / 1e6, (double)gated[i] / 1e6,
				      (double)steps[i].wait_ns / 1e6, share, e->node, e->op, dev);
		}
	}
	if (f == TL_TIMEUSE_JSON)
		tl_out_str(out, "]}\n");
	g_free(gated);
}

void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path_step *steps,
			    size_t n)
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

/* ---- advice ------------------------------------------------------------ */

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : (x[0] > y[0]);
}

static const char *node_attr_s(const tl_gnode *g, const char *key, char *buf, size_t size)
{
	for (size_t i = 0; i < g->def->n_attr; i++) {
		const Tensorflow__AttrValue *v = g->def->attr[i]->value;
		if (g->def->attr[i]->key != NULL && strcmp(g->def->attr[i]->key, key) == 0 &&
		    v != NULL && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S) {
			snprintf(buf, size, "%.*s", (int)v->s.len, (const char *)v->s.data);
			return buf;
		}
	}
	return NULL;
}

struct op_time {
	const char *op;
	int64_t ns;
};

static int cmp_op_time(const void *a, const void *b)
{
	const struct op_time *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->op, y->op);
}

void tl_advise_print(const tl_run *run, tl_output *out)
{
	int64_t span = run->t_end - run->t_begin;
	tl_out_printf(out, "run %s\n", run->label);
	/* expensive operations */
	GHashTable *by_op = g_hash_table_new(g_str_hash, g_str_equal);
	GArray *ops = g_array_new(FALSE, FALSE, sizeof(struct op_time));
	int64_t all = 0;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		gpointer hit = g_hash_table_lookup(by_op, e->op);
		if (hit == NULL) {
			struct op_time t = {e->op, 0};
			g_array_append_val(ops, t);
			hit = GUINT_TO_POINTER(ops->len);
			g_hash_table_insert(by_op, (gpointer)e->op, hit);
		}
		g_array_index(ops, struct op_time, GPOINTER_TO_UINT(hit) - 1).ns += e->end - e->start;
		all += e->end - e->start;
	}
	if (ops->len > 1)
		qsort(ops->data, ops->len, sizeof(struct op_time), cmp_op_time);
	tl_out_str(out, "  ExpensiveOperationChecker:\n");
	for (guint i = 0; i < ops->len && i < 3; i++) {
		const struct op_time *t = &g_array_index(ops, struct op_time, i);
		tl_out_printf(out, "    top %u op type %s: %.3f ms, %.1f%% of op time\n", i + 1, t->op,
			      (double)t->ns / 1e6, all > 0 ? 100.0 * (double)t->ns / (double)all : 0);
	}
	g_array_free(ops, TRUE);
	g_hash_table_destroy(by_op);

	/* accelerator utilization: the union of each GPU's stream records */
	tl_out_str(out, "  AcceleratorUtilizationChecker:\n");
	/* each executor's stream devices, in device order (a counting sort:
	 * thousands of GPUs must not cost their number squared) */
	size_t nd = run->n_devices;
	uint32_t *st_first = g_new0(uint32_t, nd + 2);
	uint32_t *st_of = g_new(uint32_t, nd + 1);
	for (size_t s = 0; s < nd; s++)
		if (run->devices[s].kind == TL_DEV_STREAM && run->devices[s].executor >= 0)
			st_first[run->devices[s].executor + 2]++;
	for (size_t d = 0; d < nd; d++)
		st_first[d + 2] += st_first[d + 1];
	for (size_t s = 0; s < nd; s++)
		if (run->devices[s].kind == TL_DEV_STREAM && run->devices[s].executor >= 0)
			st_of[st_first[run->devices[s].executor + 1]++] = (uint32_t)s;
	bool any_gpu = false;
	for (size_t d = 0; d < nd; d++) {
		const tl_device *gpu = &run->devices[d];
		if (gpu->kind != TL_DEV_EXECUTOR || strstr(gpu->name, "GPU") == NULL)
			continue;
		any_gpu = true;
		GArray *iv = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);
		for (uint32_t k = st_first[d]; k < st_first[d + 1]; k++) {
			const tl_device *st = &run->devices[st_of[k]];
			for (uint32_t i = st->first_exec; i < st->first_exec + st->n_exec; i++) {
				int64_t pair[2] = {run->execs[i].start, run->execs[i].end};
				g_array_append_val(iv, pair);
			}
		}
		int64_t *p = (int64_t *)(void *)iv->data;
		size_t n = iv->len;
		if (n > 1)
			qsort(p, n, 2 * sizeof(int64_t), cmp_pair);
		int64_t busy = 0, cs = 0, ce = INT64_MIN;
		for (size_t i = 0; i < n; i++) {
			if (ce == INT64_MIN || p[2 * i] > ce) {
				if (ce != INT64_MIN)
					busy += ce - cs;
				cs = p[2 * i];
				ce = p[2 * i + 1];
			} else if (p[2 * i + 1] > ce) {
				ce = p[2 * i + 1];
			}
		}
		if (ce != INT64_MIN)
			busy += ce - cs;
		double pct = span > 0 ? 100.0 * (double)busy / (double)span : 0;
		tl_out_printf(out, "    %s: kernels busy %.1f%% of the step%s\n", gpu->name, pct,
			      n == 0 ? " (no GPU tracer records: capture with FULL_TRACE)"
			      : pct < 50 ? "; the GPU waits: look at --idle and --critical-path"
					 : "");
		g_array_free(iv, TRUE);
	}
	g_free(st_first);
	g_free(st_of);
	if (!any_gpu)
		tl_out_str(out, "    no GPU in this run\n");

	/* operations: NHWC convolutions on a GPU, batch norm built from pieces */
	tl_out_str(out, "  OperationChecker:\n");
	size_t nhwc = 0, unfused = 0;
	char buf[32];
	const char *example_nhwc = NULL, *example_bn = NULL;
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		bool on_gpu = strstr(g->device, "GPU") != NULL;
		if (on_gpu && g_str_has_prefix(g->op, "Conv2D")) {
			const char *fmt = node_attr_s(g, "data_format", buf, sizeof buf);
			if (fmt == NULL || strcmp(fmt, "NHWC") == 0) {
				nhwc++;
				example_nhwc = example_nhwc ? example_nhwc : g->name;
			}
		}
		bool in_bn = strstr(g->name, "batchnorm/") != NULL || strstr(g->name, "BatchNorm/") != NULL;
		if (in_bn && (strcmp(g->op, "Rsqrt") == 0)) {
			unfused++;
			example_bn = example_bn ? example_bn : g->name;
		}
	}
	if (nhwc > 0)
		tl_out_printf(out, "    %zu Conv2D node(s) on a GPU use NHWC (e.g. %s): NCHW is "
				   "faster with cuDNN\n", nhwc, example_nhwc);
	if (unfused > 0)
		tl_out_printf(out, "    %zu batch normalization(s) built from separate ops (e.g. %s): "
				   "use fused=True (FusedBatchNorm)\n", unfused, example_bn);
	if (nhwc == 0 && unfused == 0)
		tl_out_printf(out, "    nothing to report%s\n",
			      run->has_graphs ? "" : " (no partition graphs in this run)");
}
