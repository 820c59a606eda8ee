#include "analysis/summary.h"

#include "io/chrome_reader.h"
#include "emit/chrome.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vals {
	double v[TL_N_COLS];
} vals;

static const char *const col_names[TL_N_COLS] = {
	"total_micros",   "accelerator_micros", "cpu_micros",   "occurrence",
	"requested_bytes", "peak_bytes",        "residual_bytes", "output_bytes",
	"params",         "float_ops",
};

const char *tl_col_name(int col)
{
	return col >= 0 && col < TL_N_COLS ? col_names[col] : "";
}

int tl_col_parse(const char *s)
{
	for (int i = 0; i < TL_N_COLS; i++)
		if (strcmp(s, col_names[i]) == 0)
			return i;
	/* tfprof's short spellings */
	if (strcmp(s, "micros") == 0 || strcmp(s, "exec_micros") == 0)
		return TL_COL_TOTAL;
	if (strcmp(s, "bytes") == 0)
		return TL_COL_REQUESTED;
	if (strcmp(s, "flops") == 0)
		return TL_COL_FLOPS;
	return -1;
}

const char *const tl_view_names[] = {"op", "scope", "node", "device", "kernel", "step", NULL};

const char *tl_view_name(tl_view_kind v)
{
	return tl_view_names[v];
}

const char *const tl_stat_names[] = {"avg", "first", "min", "max", "p50", "p90", "stddev", NULL};

static void row_free(gpointer p)
{
	tl_row *r = p;
	g_free(r->name);
	g_free(r->shape);
	g_free(r->extra);
	g_array_free(r->runs, TRUE);
	g_free(r);
}

tl_summary *tl_summary_new(tl_view_kind view)
{
	tl_summary *s = g_new0(tl_summary, 1);
	s->view = view;
	s->rows = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, row_free);
	s->run_labels = g_ptr_array_new_with_free_func(g_free);
	return s;
}

void tl_summary_free(tl_summary *s)
{
	if (s == NULL)
		return;
	g_hash_table_destroy(s->rows);
	g_ptr_array_free(s->run_labels, TRUE);
	g_free(s);
}

/* Names and labels are kept as valid UTF-8 (bad bytes become U+FFFD), so
 * every table and the partials (JSON, which cannot hold other bytes) carry
 * them, and a combined table equals a direct one. */
static char *valid_dup(const char *s)
{
	return g_utf8_validate(s, -1, NULL) ? g_strdup(s) : g_utf8_make_valid(s, -1);
}

/* The row of a name, or NULL; with `create`, a new one when none. */
static tl_row *row_find(tl_summary *s, const char *name, bool create)
{
	char *valid = g_utf8_validate(name, -1, NULL) ? NULL : g_utf8_make_valid(name, -1);
	if (valid != NULL)
		name = valid;
	tl_row *r = g_hash_table_lookup(s->rows, name);
	if (r == NULL && create) {
		r = g_new0(tl_row, 1);
		r->name = g_strdup(name);
		r->runs = g_array_new(FALSE, TRUE, sizeof(vals));
		g_hash_table_insert(s->rows, r->name, r);
	}
	g_free(valid);
	return r;
}

static tl_row *row_get(tl_summary *s, const char *name)
{
	return row_find(s, name, true);
}

/* The values of a run, added where missing. A row stores the runs from its
 * first on, so a stream of N runs whose rows each hold one (the step view)
 * costs N values, not N squared. */
static vals *row_run(tl_row *r, size_t run)
{
	if (r->runs->len == 0)
		r->first_run = run;
	if (run < r->first_run) {
		guint more = (guint)(r->first_run - run);
		g_array_set_size(r->runs, r->runs->len + more);
		memmove(r->runs->data + (size_t)more * sizeof(vals), r->runs->data,
			(r->runs->len - more) * sizeof(vals));
		memset(r->runs->data, 0, (size_t)more * sizeof(vals));
		r->first_run = run;
	}
	if (r->runs->len <= run - r->first_run)
		g_array_set_size(r->runs, (guint)(run - r->first_run) + 1);
	return &g_array_index(r->runs, vals, run - r->first_run);
}

/* The values of a run, or NULL when the row did not occur in it. */
static const vals *row_vals(const tl_row *r, size_t run)
{
	if (run < r->first_run || run - r->first_run >= r->runs->len)
		return NULL;
	return &g_array_index(r->runs, vals, run - r->first_run);
}

static void vals_add(vals *dst, const vals *v)
{
	for (int c = 0; c < TL_N_COLS; c++) {
		if (c == TL_COL_PEAK)
			dst->v[c] = dst->v[c] > v->v[c] ? dst->v[c] : v->v[c];
		else
			dst->v[c] += v->v[c];
	}
}

/* Adds v to the row's run, making the row if need be; returns the row. */
static tl_row *row_add(tl_summary *s, const char *name, size_t run, const vals *v)
{
	tl_row *r = row_get(s, name);
	vals_add(row_run(r, run), v);
	return r;
}

/* ---- shapes, params, float ops ---------------------------------------- */

static double shape_elems(const Tensorflow__TensorShapeProto *sh)
{
	if (sh == NULL || sh->unknown_rank)
		return 0;
	double n = 1;
	for (size_t i = 0; i < sh->n_dim; i++)
		n *= sh->dim[i]->size > 0 ? (double)sh->dim[i]->size : 0;
	/* no tensor holds more (and the float ops built on it stay finite) */
	return n < 9.2e18 ? n : 9.2e18;
}

static char *shape_string(const Tensorflow__TensorShapeProto *sh)
{
	if (sh == NULL)
		return NULL;
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < sh->n_dim; i++)
		g_string_append_printf(s, "%s%" PRId64, i ? "x" : "", sh->dim[i]->size);
	return g_string_free(s, FALSE);
}

static const Tensorflow__TensorShapeProto *attr_shape(const Tensorflow__NodeDef *def,
						      const char *key)
{
	for (size_t i = 0; def != NULL && i < def->n_attr; i++) {
		const Tensorflow__AttrValue *v = def->attr[i]->value;
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0 && v != NULL &&
		    v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
			return v->shape;
	}
	return NULL;
}

static bool is_variable(const char *op)
{
	return strcmp(op, "VariableV2") == 0 || strcmp(op, "Variable") == 0 ||
	       strcmp(op, "VarHandleOp") == 0;
}

/* Output shape of an execution's slot, else NULL. */
static const Tensorflow__TensorShapeProto *exec_shape(const tl_exec *e, int32_t slot)
{
	for (size_t k = 0; k < e->ns->n_output; k++)
		if (e->ns->output[k]->slot == slot && e->ns->output[k]->tensor_description != NULL)
			return e->ns->output[k]->tensor_description->shape;
	return NULL;
}

/* Shape of data input `port` of an execution, from its producer's outputs. */
static const Tensorflow__TensorShapeProto *input_shape(const tl_run *run, uint32_t x, int32_t port)
{
	const tl_exec *e = &run->execs[x];
	if (e->gnode < 0)
		return NULL;
	uint32_t n = (uint32_t)e->gnode;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++) {
		const tl_edge *edge = &run->edges[k];
		if (edge->kind != TL_EDGE_DATA || edge->dst_port != port)
			continue;
		const tl_gnode *src = &run->nodes[edge->src];
		for (uint32_t i = 0; i < src->n_exec; i++) {
			const Tensorflow__TensorShapeProto *sh =
				exec_shape(&run->execs[run->node_execs[src->first_exec + i]],
					   edge->src_port);
			if (sh != NULL)
				return sh;
		}
		/* a variable's declared shape */
		return attr_shape(src->def, "shape");
	}
	return NULL;
}

static bool is_elementwise(const char *op)
{
	static const char *const ops[] = {"Add",     "AddV2",   "Sub",     "Mul",      "Div",
					  "RealDiv", "BiasAdd", "Relu",    "Relu6",    "Tanh",
					  "Sigmoid", "Neg",     "Square",  "Sqrt",     "Rsqrt",
					  "Exp",     "Log",     "Maximum", "Minimum",  "ReluGrad",
					  "TanhGrad", "SigmoidGrad", "AddN", "Softmax", "Pow"};
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

/* Float operations of one execution, from its shapes (0 when unknown). */
static double float_ops(const tl_run *run, uint32_t x)
{
	const tl_exec *e = &run->execs[x];
	const Tensorflow__TensorShapeProto *out = exec_shape(e, 0);
	double out_n = shape_elems(out);
	if (strcmp(e->op, "MatMul") == 0) {
		/* 2 m n k: k is the contracted dimension of input 0 */
		const Tensorflow__TensorShapeProto *a = input_shape(run, x, 0);
		if (a == NULL || a->n_dim != 2 || out_n == 0)
			return 0;
		const Tensorflow__AttrValue *ta = NULL;
		const Tensorflow__NodeDef *def = e->gnode >= 0 ? run->nodes[e->gnode].def : NULL;
		for (size_t i = 0; def != NULL && i < def->n_attr; i++)
			if (strcmp(def->attr[i]->key, "transpose_a") == 0)
				ta = def->attr[i]->value;
		bool trans = ta != NULL && ta->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B && ta->b;
		double k = (double)a->dim[trans ? 0 : 1]->size;
		return k > 0 ? 2.0 * out_n * k : 0;
	}
	if (strcmp(e->op, "Conv2D") == 0) {
		/* 2 * output elements * kh * kw * input channels (filter HWIO) */
		const Tensorflow__TensorShapeProto *f = input_shape(run, x, 1);
		if (f == NULL || f->n_dim != 4 || out_n == 0)
			return 0;
		/* in doubles: int64 products of hostile sizes overflow */
		double kh = (double)f->dim[0]->size, kw = (double)f->dim[1]->size;
		double cin = (double)f->dim[2]->size;
		return kh > 0 && kw > 0 && cin > 0 ? 2.0 * out_n * kh * kw * cin : 0;
	}
	if (is_elementwise(e->op))
		return out_n;
	return 0;
}

/* ---- adding runs ------------------------------------------------------- */

static void exec_vals(const tl_run *run, uint32_t x, const double *accel, vals *v)
{
	const tl_exec *e = &run->execs[x];
	memset(v, 0, sizeof *v);
	v->v[TL_COL_CPU] = (double)(e->end - e->start) / 1000.0;
	v->v[TL_COL_ACCEL] = accel[x];
	v->v[TL_COL_TOTAL] = v->v[TL_COL_CPU] + v->v[TL_COL_ACCEL];
	v->v[TL_COL_OCCURRENCE] = 1;
	for (size_t m = 0; m < e->ns->n_memory; m++) {
		const Tensorflow__AllocatorMemoryUsed *mu = e->ns->memory[m];
		v->v[TL_COL_REQUESTED] += (double)mu->total_bytes;
		v->v[TL_COL_RESIDUAL] += (double)mu->live_bytes;
		if ((double)mu->peak_bytes > v->v[TL_COL_PEAK])
			v->v[TL_COL_PEAK] = (double)mu->peak_bytes;
	}
	for (size_t k = 0; k < e->ns->n_output; k++) {
		const Tensorflow__TensorDescription *td = e->ns->output[k]->tensor_description;
		if (td != NULL && td->allocation_description != NULL)
			v->v[TL_COL_OUTPUT] += (double)td->allocation_description->requested_bytes;
	}
	v->v[TL_COL_FLOPS] = float_ops(run, x);
}

static const char *row_key(const tl_summary *s, const tl_run *run, const tl_exec *e)
{
	switch (s->view) {
	case TL_VIEW_OP:
		return e->op;
	case TL_VIEW_DEVICE:
		return run->devices[e->device].name;
	case TL_VIEW_SCOPE:
	case TL_VIEW_NODE:
	default:
		return e->node;
	}
}

/* Kernel time per launching execution; per-stream records, stream:all
 * when there are none. */
static double *kernel_time(const tl_run *run)
{
	double *accel = g_new0(double, run->n_execs ? run->n_execs : 1);
	bool have_streams = false;
	for (size_t d = 0; d < run->n_devices; d++)
		if (run->devices[d].kind == TL_DEV_STREAM)
			have_streams = true;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *k = &run->execs[i];
		tl_device_kind kind = run->devices[k->device].kind;
		bool use = have_streams ? kind == TL_DEV_STREAM : kind == TL_DEV_STREAM_ALL;
		if (use && k->launcher >= 0)
			accel[k->launcher] += (double)(k->end - k->start) / 1000.0;
	}
	return accel;
}

static int cmp_interval(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : (x[0] > y[0]);
}

/* Busy time of a set of intervals (their union), in microseconds. */
static double union_us(GArray *iv)
{
	if (iv->len == 0)
		return 0;
	int64_t *p = (int64_t *)(void *)iv->data;
	size_t n = iv->len / 2;
	if (n > 1)
		qsort(p, n, 2 * sizeof(int64_t), cmp_interval);
	int64_t busy = 0, cs = p[0], ce = p[1];
	for (size_t i = 1; i < n; i++) {
		if (p[2 * i] > ce) {
			busy += ce - cs;
			cs = p[2 * i];
			ce = p[2 * i + 1];
		} else if (p[2 * i + 1] > ce) {
			ce = p[2 * i + 1];
		}
	}
	busy += ce - cs;
	return (double)busy / 1000.0;
}

static void add_step_rows(tl_summary *s, const tl_run *run, size_t ri)
{
	vals v = {{0}};
	v.v[TL_COL_TOTAL] = (double)(run->t_end - run->t_begin) / 1000.0;
	v.v[TL_COL_OCCURRENCE] = 1;
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		if (dev->kind == TL_DEV_STREAM_ALL || dev->kind == TL_DEV_SYNC)
			continue;
		GArray *iv = g_array_new(FALSE, FALSE, sizeof(int64_t));
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			g_array_append_val(iv, run->execs[i].start);
			g_array_append_val(iv, run->execs[i].end);
		}
		double busy = union_us(iv);
		g_array_free(iv, TRUE);
		if (dev->kind == TL_DEV_EXECUTOR)
			v.v[TL_COL_CPU] += busy;
		else
			v.v[TL_COL_ACCEL] += busy;
	}
	row_add(s, run->label, ri, &v);
}

void tl_summary_add_run(tl_summary *s, const tl_run *run)
{
	size_t ri = s->n_runs++;
	g_ptr_array_add(s->run_labels, valid_dup(run->label));
	if (run->has_graphs)
		s->have_graph = true;
	if (s->view == TL_VIEW_STEP) {
		add_step_rows(s, run, ri);
		return;
	}
	double *accel = kernel_time(run);
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		tl_device_kind kind = run->devices[e->device].kind;
		if (s->view == TL_VIEW_KERNEL) {
			if (kind != TL_DEV_STREAM)
				continue;
			const char *label = e->ns->timeline_label ? e->ns->timeline_label : "";
			const char *at = strstr(label, "@@");
			char *kname = g_strndup(label, at ? (gsize)(at - label) : strlen(label));
			vals v = {{0}};
			v.v[TL_COL_ACCEL] = v.v[TL_COL_TOTAL] = (double)(e->end - e->start) / 1000.0;
			v.v[TL_COL_OCCURRENCE] = 1;
			tl_row *r = row_add(s, kname, ri, &v);
			if (r->extra == NULL)
				r->extra = g_strdup(e->op);
			g_free(kname);
			continue;
		}
		if (kind != TL_DEV_EXECUTOR)
			continue;
		if (e->ns->n_memory > 0)
			s->have_memory = true;
		vals v;
		exec_vals(run, i, accel, &v);
		const char *key = row_key(s, run, e);
		/* node rows remember their op type, for --account-type */
		tl_row *r = row_add(s, key, ri, &v);
		if (r->extra == NULL && (s->view == TL_VIEW_NODE || s->view == TL_VIEW_SCOPE))
			r->extra = g_strdup(e->op);
	}
	/* params: per variable node of the graphs, whether it ran or not */
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (!is_variable(g->op))
			continue;
		const Tensorflow__TensorShapeProto *sh = attr_shape(g->def, "shape");
		if (sh == NULL && g->n_exec > 0)
			sh = exec_shape(&run->execs[run->node_execs[g->first_exec]], 0);
		vals v = {{0}};
		v.v[TL_COL_PARAMS] = shape_elems(sh);
		const char *key = s->view == TL_VIEW_OP ? g->op
				  : s->view == TL_VIEW_DEVICE ? g->device
							      : g->name;
		if (s->view == TL_VIEW_KERNEL)
			continue;
		tl_row *r = row_add(s, key, ri, &v);
		if (r->shape == NULL && s->view != TL_VIEW_OP && s->view != TL_VIEW_DEVICE)
			r->shape = shape_string(sh);
		if (r->extra == NULL && (s->view == TL_VIEW_NODE || s->view == TL_VIEW_SCOPE))
			r->extra = g_strdup(g->op);
	}
	/* nodes defined per row (occurrence "defined") */
	if (ri == 0)
		for (uint32_t n = 0; n < run->n_nodes; n++) {
			const tl_gnode *g = &run->nodes[n];
			const char *key = s->view == TL_VIEW_OP       ? g->op
					  : s->view == TL_VIEW_DEVICE ? g->device
								      : g->name;
			tl_row *r = s->view != TL_VIEW_KERNEL ? row_find(s, key, false) : NULL;
			if (r != NULL)
				r->defined++;
		}
	g_free(accel);
}

int tl_summary_add_chrome(tl_summary *s, const uint8_t *data, size_t len, const char *label,
			  tl_error *err)
{
	tl_chrome_reader *r = NULL;
	if (tl_chrome_reader_open(&r, data, len, err) < 0)
		return -1;
	size_t ri = s->n_runs++;
	char *base = g_path_get_basename(label);
	g_ptr_array_add(s->run_labels, valid_dup(base));
	g_free(base);
	s->from_chrome = true;
	GHashTable *proc = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	GString *buf = g_string_new(NULL);
	tl_chrome_in_event ev;
	int rc;
	/* The device view sums per pid text, named once the process names are
	 * known (they may come after the events): one vals per pid, as a trace
	 * can hold a million processes. */
	GHashTable *by_pid = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	while ((rc = tl_chrome_reader_next(r, &ev, err)) > 0) {
		/* valid until the next tl_chrome_reader_span_text */
		const char *pid = ev.pid.len ? tl_chrome_reader_span_text(&ev, ev.pid, buf) : "";
		if (ev.ph == 'M' && ev.name.len == 14 &&
		    memcmp(ev.raw + ev.name.off, "\"process_name\"", 14) == 0 && ev.args.len) {
			json_error_t jerr;
			json_t *a = json_loadb(ev.raw + ev.args.off, ev.args.len, 0, &jerr);
			const char *n = json_string_value(json_object_get(a, "name"));
			if (n != NULL) {
				/* timeline.py names processes "<device> Compute" */
				char *dev = g_strdup(n);
				if (g_str_has_suffix(dev, " Compute"))
					dev[strlen(dev) - 8] = '\0';
				g_hash_table_replace(proc, g_strdup(pid), dev);
			}
			json_decref(a);
		}
		if (ev.ph != 'X')
			continue;
		vals v = {{0}};
		v.v[TL_COL_CPU] = v.v[TL_COL_TOTAL] = ev.dur_us;
		v.v[TL_COL_OCCURRENCE] = 1;
		if (s->view == TL_VIEW_DEVICE) {
			vals *sum = g_hash_table_lookup(by_pid, pid);
			if (sum == NULL) {
				sum = g_new0(vals, 1);
				g_hash_table_insert(by_pid, g_strdup(pid), sum);
			}
			vals_add(sum, &v);
			continue;
		}
		if (s->view == TL_VIEW_KERNEL || s->view == TL_VIEW_STEP)
			continue;
		char *op = ev.name.len ? g_strdup(tl_chrome_reader_span_text(&ev, ev.name, buf))
				       : g_strdup("unknown");
		char *node = NULL;
		if (ev.args.len > 0 && s->view != TL_VIEW_OP) {
			json_error_t jerr;
			json_t *a = json_loadb(ev.raw + ev.args.off, ev.args.len, 0, &jerr);
			const char *n = json_string_value(json_object_get(a, "name"));
			node = n != NULL ? g_strdup(n) : NULL;
			json_decref(a);
		}
		row_add(s, s->view == TL_VIEW_OP ? op : node != NULL ? node : op, ri, &v);
		g_free(op);
		g_free(node);
	}
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, by_pid);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		const char *dev = g_hash_table_lookup(proc, k);
		char *name = dev != NULL ? g_strdup(dev) : g_strdup_printf("pid %s", (char *)k);
		row_add(s, name, ri, val);
		g_free(name);
	}
	g_hash_table_destroy(by_pid);
	g_hash_table_destroy(proc);
	g_string_free(buf, TRUE);
	tl_chrome_reader_close(r);
	return rc < 0 ? -1 : 0;
}

/* ---- partial aggregates ------------------------------------------------ */

static int cmp_row_name(const void *a, const void *b)
{
	const tl_row *x = *(tl_row *const *)a, *y = *(tl_row *const *)b;
	return strcmp(x->name, y->name);
}

static GPtrArray *sorted_rows(const tl_summary *s)
{
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->rows);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(rows, v);
	if (rows->len > 1)
		qsort(rows->pdata, rows->len, sizeof(gpointer), cmp_row_name);
	return rows;
}

void tl_summary_write_partial(const tl_summary *s, tl_output *out)
{
	json_t *head = json_pack("{s:i,s:s,s:b,s:b,s:b}", "tftrace_partial", 1, "view",
				 tl_view_name(s->view), "graph", s->have_graph, "memory",
				 s->have_memory, "chrome", s->from_chrome);
	json_t *labels = json_array();
	for (guint i = 0; i < s->run_labels->len; i++)
		json_array_append_new(labels, json_string(g_ptr_array_index(s->run_labels, i)));
	json_object_set_new(head, "runs", labels);
	char *text = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	tl_out_str(out, text);
	tl_out_char(out, '\n');
	free(text);
	json_decref(head);
	GPtrArray *rows = sorted_rows(s);
	for (guint i = 0; i < rows->len; i++) {
		const tl_row *r = g_ptr_array_index(rows, i);
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "defined", json_integer(r->defined));
		if (r->shape != NULL)
			json_object_set_new(o, "shape", json_string(r->shape));
		if (r->extra != NULL)
			json_object_set_new(o, "extra", json_string(r->extra));
		json_t *runs = json_array();
		for (guint k = 0; k < s->n_runs; k++) {
			json_t *vs = json_array();
			for (int c = 0; c < TL_N_COLS; c++) {
				double x = row_vals(r, k) != NULL ? row_vals(r, k)->v[c] : 0;
				json_array_append_new(vs, json_real(x));
			}
			json_array_append_new(runs, vs);
		}
		json_object_set_new(o, "v", runs);
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
					     JSON_REAL_PRECISION(17));
		tl_out_str(out, text);
		tl_out_char(out, '\n');
		free(text);
		json_decref(o);
	}
	g_ptr_array_free(rows, TRUE);
}

int tl_summary_read_partial(tl_summary *s, const uint8_t *data, size_t len, tl_error *err)
{
	const char *p = (const char *)data, *end = p + len;
	size_t line = 0, base = s->n_runs, n_runs = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line++;
		json_error_t jerr;
		json_t *o = json_loadb(p, n, 0, &jerr);
		p += n + (nl != NULL);
		if (o == NULL)
			return tl_error_set(err, "line %zu: not a partial aggregate (%s)", line,
					    jerr.text);
		/* A header starts each partial; partials concatenated (as from
		 * `parallel ... | trace-summarize --combine`) add their runs after
		 * those read so far. */
		if (line == 1 || json_object_get(o, "tftrace_partial") != NULL) {
			base = s->n_runs;
			const char *view = json_string_value(json_object_get(o, "view"));
			if (json_integer_value(json_object_get(o, "tftrace_partial")) != 1 ||
			    view == NULL) {
				json_decref(o);
				return tl_error_set(err, "line %zu: not a trace-summarize partial",
						    line);
			}
			if (strcmp(view, tl_view_name(s->view)) != 0) {
				char *msg = g_strdup(view);
				json_decref(o);
				tl_error_set(err, "partial of --view=%s, not %s", msg,
					     tl_view_name(s->view));
				g_free(msg);
				return -1;
			}
			json_t *labels = json_object_get(o, "runs");
			n_runs = json_array_size(labels);
			for (size_t i = 0; i < n_runs; i++)
				g_ptr_array_add(s->run_labels,
						g_strdup(json_string_value(json_array_get(labels, i))));
			s->have_graph |= json_is_true(json_object_get(o, "graph"));
			s->have_memory |= json_is_true(json_object_get(o, "memory"));
			s->from_chrome |= json_is_true(json_object_get(o, "chrome"));
			s->n_runs += n_runs;
			json_decref(o);
			continue;
		}
		const char *name = json_string_value(json_object_get(o, "name"));
		json_t *runs = json_object_get(o, "v");
		if (name == NULL || !json_is_array(runs) || json_array_size(runs) != n_runs) {
			json_decref(o);
			return tl_error_set(err, "line %zu: malformed row", line);
		}
		tl_row *r = row_get(s, name);
		json_int_t def = json_integer_value(json_object_get(o, "defined"));
		if (def > r->defined)
			r->defined = def; /* one graph, defined once however many runs */
		const char *shape = json_string_value(json_object_get(o, "shape"));
		if (shape != NULL && r->shape == NULL)
			r->shape = g_strdup(shape);
		const char *extra = json_string_value(json_object_get(o, "extra"));
		if (extra != NULL && r->extra == NULL)
			r->extra = g_strdup(extra);
		for (size_t k = 0; k < n_runs; k++) {
			json_t *vs = json_array_get(runs, k);
			vals *dst = row_run(r, base + k);
			for (int c = 0; c < TL_N_COLS; c++)
				dst->v[c] = json_number_value(json_array_get(vs, (size_t)c));
		}
		json_decref(o);
	}
	if (line == 0)
		return tl_error_set(err, "empty input");
	return 0;
}

/* ---- printing ---------------------------------------------------------- */

void tl_table_opts_init(tl_table_opts *o)
{
	memset(o, 0, sizeof *o);
	o->select[0] = TL_COL_TOTAL;
	o->select[1] = TL_COL_ACCEL;
	o->select[2] = TL_COL_CPU;
	o->select[3] = TL_COL_OCCURRENCE;
	o->n_select = 4;
	o->order_by = TL_COL_TOTAL;
	o->step = -1;
	o->max_depth = 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : (x > y);
}

/* A column of a row over the runs, as the chosen statistic. */
/* The value of a run's column, 0 when the row did not occur in it. */
static double run_value(const tl_row *r, size_t run, int col)
{
	const vals *v = row_vals(r, run);
	return v != NULL ? v->v[col] : 0;
}

/* The k-th smallest (from 0) of the row's values over n runs, of which
 * the m stored ones are sorted in x (the others count 0). */
static double kth(const double *x, size_t m, size_t n, size_t k)
{
	size_t neg = 0; /* stored values below the zeros of the runs not held */
	while (neg < m && x[neg] < 0)
		neg++;
	if (k < neg)
		return x[k];
	if (k < neg + (n - m))
		return 0;
	return x[k - (n - m)];
}

double tl_summary_row_stat(const tl_summary *s, const tl_row *r, int col, const tl_table_opts *o)
{
	if (col == TL_COL_OCCURRENCE && o->occurrence_defined)
		return (double)r->defined;
	if (s->view == TL_VIEW_STEP) {
		/* a step row is one run: its own values, no statistic */
		for (guint k = 0; k < r->runs->len; k++)
			if (g_array_index(r->runs, vals, k).v[TL_COL_OCCURRENCE] > 0)
				return g_array_index(r->runs, vals, k).v[col];
		return 0;
	}
	size_t first = 0, n = s->n_runs;
	if (o->step >= 0) {
		first = (size_t)o->step;
		n = first < s->n_runs ? 1 : 0;
	}
	if (n == 0)
		return 0;
	/* Only the runs the row holds values for are read (the others are
	 * 0): in a stream of thousands of runs whose rows each occur in a
	 * few, a row costs its own runs, not the stream's. */
	size_t lo = MAX(first, r->first_run);
	size_t hi = MIN(first + n, (size_t)r->first_run + r->runs->len);
	size_t m = hi > lo ? hi - lo : 0;
	double out = 0, sum = 0;
	/* adding the 0 of a run not held leaves a sum as it was, so the sum
	 * is the same as over every run */
	for (size_t k = lo; k < lo + m; k++)
		sum += run_value(r, k, col);
	switch (o->stat) {
	case TL_STAT_AVG:
		out = sum / (double)n;
		break;
	case TL_STAT_FIRST:
		out = run_value(r, first, col);
		break;
	case TL_STAT_MIN:
	case TL_STAT_MAX:
	case TL_STAT_P50:
	case TL_STAT_P90: {
		double *x = g_new(double, m + 1);
		for (size_t i = 0; i < m; i++)
			x[i] = run_value(r, lo + i, col);
		qsort(x, m, sizeof *x, cmp_double);
		size_t k = o->stat == TL_STAT_MIN   ? 0
			   : o->stat == TL_STAT_MAX ? n - 1
			   : o->stat == TL_STAT_P50 ? (size_t)ceil(0.5 * (double)n) - 1
						    : (size_t)ceil(0.9 * (double)n) - 1;
		out = kth(x, m, n, k);
		g_free(x);
		break;
	}
	case TL_STAT_STDDEV: {
		/* every run in order: the sum of squares rounds differently
		 * when the runs not held are added elsewhere */
		double mean = sum / (double)n, ss = 0;
		for (size_t i = 0; i < n; i++) {
			double d = run_value(r, first + i, col) - mean;
			ss += d * d;
		}
		out = sqrt(ss / (double)n);
		break;
	}
	}
	/* params and defined counts do not vary by run */
	if (col == TL_COL_PARAMS && o->stat == TL_STAT_STDDEV)
		out = 0;
	return out;
}

static bool col_is_time(int c)
{
	return c == TL_COL_TOTAL || c == TL_COL_ACCEL || c == TL_COL_CPU;
}

static bool col_is_bytes(int c)
{
	return c == TL_COL_REQUESTED || c == TL_COL_PEAK || c == TL_COL_RESIDUAL ||
	       c == TL_COL_OUTPUT;
}

/* tfprof's units: 12.35ms, 1.20MB, 100.35k */
static void human(int c, double v, char *buf, size_t size)
{
	if (col_is_time(c)) {
		if (v >= 1e6)
			snprintf(buf, size, "%.2fsec", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.2fms", v / 1e3);
		else
			snprintf(buf, size, "%.0fus", v);
	} else if (col_is_bytes(c)) {
		if (v >= 1e9)
			snprintf(buf, size, "%.2fGB", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, size, "%.2fMB", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.2fKB", v / 1e3);
		else
			snprintf(buf, size, "%.0fB", v);
	} else if (c == TL_COL_OCCURRENCE) {
		snprintf(buf, size, "%.4g", v);
	} else {
		if (v >= 1e9)
			snprintf(buf, size, "%.2fb", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, size, "%.2fm", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, size, "%.2fk", v / 1e3);
		else
			snprintf(buf, size, "%.0f", v);
	}
}

struct shown {
	const tl_row *row;
	double v[TL_N_COLS];
};

static int cmp_shown(const void *a, const void *b, void *ctx)
{
	const struct shown *x = a, *y = b;
	int order_col = *(const int *)ctx;
	if (order_col >= 0 && x->v[order_col] != y->v[order_col])
		return x->v[order_col] > y->v[order_col] ? -1 : 1;
	return strcmp(x->row->name, y->row->name);
}

static bool name_passes(const tl_table_opts *o, const tl_row *r)
{
	if (o->show != NULL && !g_regex_match(o->show, r->name, 0, NULL))
		return false;
	if (o->hide != NULL && g_regex_match(o->hide, r->name, 0, NULL))
		return false;
	if (o->account_type != NULL &&
	    !g_regex_match(o->account_type, r->extra != NULL ? r->extra : r->name, 0, NULL))
		return false;
	return true;
}

static bool values_pass(const tl_table_opts *o, const double *v)
{
	for (int c = 0; c < TL_N_COLS; c++)
		if (o->min[c] > 0 && v[c] < o->min[c])
			return false;
	return true;
}

static void csv_text(tl_output *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		tl_out_str(out, s);
		return;
	}
	tl_out_char(out, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			tl_out_char(out, '"');
		tl_out_char(out, *p);
	}
	tl_out_char(out, '"');
}

static void print_number(tl_output *out, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		tl_out_printf(out, "%.0f", v);
	else
		tl_out_printf(out, "%.3f", v);
}

/* The flat table (every view but the scope tree). */
static void print_flat(const tl_summary *s, const tl_table_opts *o, tl_output *out)
{
	GPtrArray *rows = sorted_rows(s);
	GArray *shown = g_array_new(FALSE, FALSE, sizeof(struct shown));
	double total[TL_N_COLS] = {0};
	for (guint i = 0; i < rows->len; i++) {
		struct shown sh = {.row = g_ptr_array_index(rows, i)};
		for (int c = 0; c < TL_N_COLS; c++)
			sh.v[c] = tl_summary_row_stat(s, sh.row, c, o);
		if (!name_passes(o, sh.row))
			continue;
		if (!o->displayed_only || values_pass(o, sh.v))
			for (int c = 0; c < TL_N_COLS; c++)
				total[c] += sh.v[c];
		if (!values_pass(o, sh.v))
			continue;
		g_array_append_val(shown, sh);
	}
	if (shown->len > 1)
		qsort_r(shown->data, shown->len, sizeof(struct shown), cmp_shown,
			(void *)&o->order_by);
	int share_col = o->order_by >= 0 ? o->order_by : o->select[0];
	if (o->format == TL_TABLE_CSV) {
		tl_out_str(out, "name");
		for (int k = 0; k < o->n_select; k++) {
			tl_out_char(out, ',');
			tl_out_str(out, tl_col_name(o->select[k]));
		}
		tl_out_char(out, '\n');
		for (guint i = 0; i < shown->len; i++) {
			const struct shown *sh = &g_array_index(shown, struct shown, i);
			csv_text(out, sh->row->name);
			for (int k = 0; k < o->n_select; k++) {
				tl_out_char(out, ',');
				print_number(out, sh->v[o->select[k]]);
			}
			tl_out_char(out, '\n');
		}
	} else if (o->format == TL_TABLE_JSON) {
		tl_out_str(out, "{\"view\":");
		tl_json_string(out, tl_view_name(s->view));
		tl_out_printf(out, ",\"runs\":%zu,\"rows\":[", s->n_runs);
		for (guint i = 0; i < shown->len; i++) {
			const struct shown *sh = &g_array_index(shown, struct shown, i);
			tl_out_str(out, i ? ",\n{\"name\":" : "\n{\"name\":");
			tl_json_string(out, sh->row->name);
			for (int k = 0; k < o->n_select; k++) {
				tl_out_str(out, ",\"");
				tl_out_str(out, tl_col_name(o->select[k]));
				tl_out_str(out, "\":");
				print_number(out, sh->v[o->select[k]]);
			}
			tl_out_char(out, '}');
		}
		tl_out_str(out, "]}\n");
	} else {
		/* aligned text: name, the columns, share and cumulative share */
		size_t wname = 4;
		for (guint i = 0; i < shown->len; i++) {
			size_t l = strlen(g_array_index(shown, struct shown, i).row->name);
			if (l > wname)
				wname = l;
		}
		if (wname > 80)
			wname = 80;
		tl_out_printf(out, "%-*s", (int)wname, "name");
		for (int k = 0; k < o->n_select; k++)
			tl_out_printf(out, "  %18s", tl_col_name(o->select[k]));
		tl_out_printf(out, "  %7s  %7s\n", "share", "cum");
		double cum = 0;
		char buf[48];
		for (guint i = 0; i < shown->len; i++) {
			const struct shown *sh = &g_array_index(shown, struct shown, i);
			tl_out_printf(out, "%-*.*s", (int)wname, (int)wname, sh->row->name);
			for (int k = 0; k < o->n_select; k++) {
				human(o->select[k], sh->v[o->select[k]], buf, sizeof buf);
				tl_out_printf(out, "  %18s", buf);
			}
			double share = total[share_col] > 0 ? 100.0 * sh->v[share_col] /
								      total[share_col]
							    : 0;
			cum += share;
			tl_out_printf(out, "  %6.2f%%  %6.2f%%\n", share, cum);
		}
	}
	g_array_free(shown, TRUE);
	g_ptr_array_free(rows, TRUE);
}

/* ---- the scope tree ---------------------------------------------------- */

/* A scope's name is a prefix of the name of the row that made it (the
 * rows outlive the tree), so a tree of D levels over names of length L
 * holds no copy of a path; a node is found by its parent and its last
 * component, so a name costs its length, not L times D. */
struct tnode {
	const char *name;       /* full path: name[0 .. len), not terminated */
	uint32_t len;
	uint32_t comp;          /* where its last component starts in name */
	uint32_t n_kids;
	struct tnode *parent;
	struct tnode *first_kid, *last_kid, *next; /* kids in order of creation */
	const tl_row *row;      /* a real node, or NULL for a scope */
	double *self;           /* a real node's own values; NULL (zeros) for a scope */
	double total[TL_N_COLS];
};

static guint tnode_hash(gconstpointer p)
{
	const struct tnode *t = p;
	guint h = (guint)(gsize)t->parent;
	for (size_t i = t->comp; i < t->len; i++)
		h = h * 33u + (unsigned char)t->name[i];
	return h;
}

static gboolean tnode_equal(gconstpointer a, gconstpointer b)
{
	const struct tnode *x = a, *y = b;
	return x->parent == y->parent && x->len - x->comp == y->len - y->comp &&
	       memcmp(x->name + x->comp, y->name + y->comp, x->len - x->comp) == 0;
}

static void tnode_free(struct tnode *t)
{
	for (struct tnode *c = t->first_kid, *next; c != NULL; c = next) {
		next = c->next;
		tnode_free(c);
	}
	g_free(t->self);
	g_free(t);
}

/* The child of t whose path is name[0 .. len), its last component from
 * `comp` on. */
static struct tnode *child(struct tnode *t, const char *name, size_t comp, size_t len,
			   GHashTable *index)
{
	struct tnode key = {.name = name, .len = (uint32_t)len, .comp = (uint32_t)comp,
			    .parent = t};
	struct tnode *c = g_hash_table_lookup(index, &key);
	if (c == NULL) {
		c = g_new0(struct tnode, 1);
		*c = key;
		if (t->last_kid != NULL)
			t->last_kid->next = c;
		else
			t->first_kid = c;
		t->last_kid = c;
		t->n_kids++;
		g_hash_table_add(index, c);
	}
	return c;
}

/* The node's full path as a C string: the row's name, else a copy in buf. */
static const char *tnode_name(const struct tnode *t, GString *buf)
{
	if (t->row != NULL && t->row->name == t->name && t->name[t->len] == '\0')
		return t->name;
	g_string_truncate(buf, 0);
	g_string_append_len(buf, t->name, (gssize)t->len);
	return buf->str;
}

static void sum_tree(struct tnode *t)
{
	if (t->self != NULL)
		memcpy(t->total, t->self, sizeof t->total);
	for (struct tnode *c = t->first_kid; c != NULL; c = c->next) {
		sum_tree(c);
		for (int k = 0; k < TL_N_COLS; k++)
			t->total[k] += c->total[k];
	}
}

/* By the ordering column, then by name as strcmp orders them. */
static int cmp_tnode(const void *a, const void *b, void *ctx)
{
	const struct tnode *x = *(struct tnode *const *)a, *y = *(struct tnode *const *)b;
	int order_col = *(const int *)ctx;
	if (order_col >= 0 && x->total[order_col] != y->total[order_col])
		return x->total[order_col] > y->total[order_col] ? -1 : 1;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : (x->len > y->len);
}

/* The kids of t in printing order, in an array the caller frees. */
static struct tnode **sorted_kids(const struct tnode *t, const tl_table_opts *o)
{
	struct tnode **kids = g_new(struct tnode *, t->n_kids + 1);
	size_t n = 0;
	for (struct tnode *c = t->first_kid; c != NULL; c = c->next)
		kids[n++] = c;
	if (n > 1)
		qsort_r(kids, n, sizeof *kids, cmp_tnode, (void *)&o->order_by);
	return kids;
}

static bool tnode_match(const GRegex *re, const struct tnode *t)
{
	return g_regex_match_full(re, t->name, (gssize)t->len, 0, 0, NULL, NULL);
}

static const char *col_unit(int c)
{
	switch (c) {
	case TL_COL_PARAMS:
		return "params";
	case TL_COL_FLOPS:
		return "flops";
	case TL_COL_OCCURRENCE:
		return "calls";
	default:
		return "";
	}
}

static void print_tree_node(struct tnode *t, int depth, const tl_table_opts *o, tl_output *out,
			    bool root, GString *buf)
{
	const char *shown_name = root ? "_TFProfRoot" : tnode_name(t, buf);
	if (o->format == TL_TABLE_TEXT) {
		tl_out_printf(out, "%*s%s (", depth * 2, "", shown_name);
		if (t->row != NULL && t->row->shape != NULL)
			tl_out_printf(out, "%s, ", t->row->shape);
		for (int k = 0; k < o->n_select; k++) {
			int c = o->select[k];
			char a[48], b[48];
			human(c, t->self != NULL ? t->self[c] : 0, a, sizeof a);
			human(c, t->total[c], b, sizeof b);
			tl_out_printf(out, "%s%s/%s%s%s", k ? ", " : "",
				      t->row != NULL ? a : "--", b, col_unit(c)[0] ? " " : "",
				      col_unit(c));
		}
		tl_out_str(out, ")\n");
	} else if (o->format == TL_TABLE_CSV) {
		csv_text(out, shown_name);
		for (int k = 0; k < o->n_select; k++) {
			tl_out_char(out, ',');
			print_number(out, t->total[o->select[k]]);
		}
		tl_out_char(out, '\n');
	}
	if (depth >= o->max_depth)
		return;
	if (!root && o->trim != NULL && tnode_match(o->trim, t))
		return;
	struct tnode **kids = sorted_kids(t, o);
	for (uint32_t i = 0; i < t->n_kids; i++) {
		if (!values_pass(o, kids[i]->total))
			continue;
		print_tree_node(kids[i], depth + 1, o, out, false, buf);
	}
	g_free(kids);
}

/* --start: the subtrees whose scope matches, each printed from depth 0
 * (the first match on each path). */
static void print_started(struct tnode *t, const tl_table_opts *o, tl_output *out, GString *buf)
{
	struct tnode **kids = sorted_kids(t, o);
	for (uint32_t i = 0; i < t->n_kids; i++) {
		if (tnode_match(o->start, kids[i]))
			print_tree_node(kids[i], 0, o, out, false, buf);
		else
			print_started(kids[i], o, out, buf);
	}
	g_free(kids);
}

static void json_tree(const struct tnode *t, int depth, const tl_table_opts *o, tl_output *out,
		      bool root, GString *buf)
{
	tl_out_str(out, "{\"name\":");
	tl_json_string(out, root ? "_TFProfRoot" : tnode_name(t, buf));
	for (int k = 0; k < o->n_select; k++) {
		tl_out_str(out, ",\"");
		tl_out_str(out, tl_col_name(o->select[k]));
		tl_out_str(out, "\":");
		print_number(out, t->total[o->select[k]]);
	}
	tl_out_str(out, ",\"children\":[");
	bool first = true;
	if (depth < o->max_depth)
		for (const struct tnode *c = t->first_kid; c != NULL; c = c->next) {
			if (!values_pass(o, c->total))
				continue;
			if (!first)
				tl_out_char(out, ',');
			first = false;
			json_tree(c, depth + 1, o, out, false, buf);
		}
	tl_out_str(out, "]}");
}

static void print_scope(const tl_summary *s, const tl_table_opts *o, tl_output *out)
{
	struct tnode *root = g_new0(struct tnode, 1);
	root->name = "";
	GHashTable *index = g_hash_table_new(tnode_hash, tnode_equal);
	GString *buf = g_string_new(NULL);
	GPtrArray *rows = sorted_rows(s);
	for (guint i = 0; i < rows->len; i++) {
		const tl_row *r = g_ptr_array_index(rows, i);
		if (!name_passes(o, r))
			continue;
		/* walk the scopes of the name: a/b/c -> a, a/b, a/b/c */
		struct tnode *t = root;
		const char *p = r->name;
		for (;;) {
			const char *slash = strchr(p, '/');
			size_t len = slash ? (size_t)(slash - r->name) : strlen(r->name);
			t = child(t, r->name, (size_t)(p - r->name), len, index);
			if (slash == NULL)
				break;
			p = slash + 1;
		}
		if (t->row == NULL)
			t->name = r->name; /* its own name, terminated */
		t->row = r;
		if (t->self == NULL)
			t->self = g_new(double, TL_N_COLS);
		for (int c = 0; c < TL_N_COLS; c++)
			t->self[c] = tl_summary_row_stat(s, r, c, o);
	}
	g_ptr_array_free(rows, TRUE);
	sum_tree(root);
	if (o->format == TL_TABLE_JSON) {
		json_tree(root, 0, o, out, true, buf);
		tl_out_char(out, '\n');
	} else {
		if (o->format == TL_TABLE_CSV) {
			tl_out_str(out, "name");
			for (int k = 0; k < o->n_select; k++) {
				tl_out_char(out, ',');
				tl_out_str(out, tl_col_name(o->select[k]));
			}
			tl_out_char(out, '\n');
		} else {
			/* tfprof's header words */
			tl_out_str(out, "node name |");
			for (int k = 0; k < o->n_select; k++) {
				int c = o->select[k];
				tl_out_printf(out, " %s%s", k ? "| " : "",
					      c == TL_COL_PARAMS ? "# parameters"
					      : c == TL_COL_FLOPS ? "# float_ops"
								  : tl_col_name(c));
			}
			tl_out_char(out, '\n');
		}
		if (o->start != NULL)
			print_started(root, o, out, buf);
		else
			print_tree_node(root, 0, o, out, true, buf);
	}
	g_hash_table_destroy(index);
	g_string_free(buf, TRUE);
	tnode_free(root);
}

void tl_summary_print(const tl_summary *s, const tl_table_opts *o, tl_output *out)
{
	if (s->view == TL_VIEW_SCOPE)
		print_scope(s, o, out);
	else
		print_flat(s, o, out);
}

void tl_summary_absorb(tl_summary *dst, tl_summary *src)
{
	size_t base = dst->n_runs;
	for (guint i = 0; i < src->run_labels->len; i++)
		g_ptr_array_add(dst->run_labels, g_strdup(g_ptr_array_index(src->run_labels, i)));
	dst->n_runs += src->n_runs;
	dst->have_graph |= src->have_graph;
	dst->have_memory |= src->have_memory;
	dst->from_chrome |= src->from_chrome;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, src->rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const tl_row *r = v;
		tl_row *d = row_get(dst, r->name);
		d->defined = d->defined > r->defined ? d->defined : r->defined;
		if (d->shape == NULL && r->shape != NULL)
			d->shape = g_strdup(r->shape);
		if (d->extra == NULL && r->extra != NULL)
			d->extra = g_strdup(r->extra);
		for (guint i = 0; i < r->runs->len; i++)
			*row_run(d, base + r->first_run + i) = g_array_index(r->runs, vals, i);
	}
}
