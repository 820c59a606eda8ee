#include "analysis/advise.h"
#include "base/group.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void expensive_ops(const tl_run *run, tl_advice *a)
{
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
		g_array_index(ops, struct op_time, GPOINTER_TO_UINT(hit) - 1).ns +=
		    e->end - e->start;
		all += e->end - e->start;
	}
	if (ops->len > 1)
		qsort(ops->data, ops->len, sizeof(struct op_time), cmp_op_time);
	for (guint i = 0; i < ops->len && i < 3; i++) {
		const struct op_time *t = &g_array_index(ops, struct op_time, i);
		a->top[a->n_top++] =
		    (tl_advice_op){t->op, t->ns, all > 0 ? 100.0 * (double)t->ns / (double)all : 0};
	}
	g_array_free(ops, TRUE);
	g_hash_table_destroy(by_op);
}

/* The union of the intervals [p[2i], p[2i+1]), sorted here. */
static int64_t union_ns(int64_t *p, size_t n)
{
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
	return busy;
}

/* Accelerator utilization: the union of each GPU's stream records, its
 * streams found by grouping the devices by executor. */
/* A GPU by the device part of its name ("/device:GPU:0", TF 1.x's "/gpu:0"),
 * not by "GPU" anywhere in it ("/job:GPUworker/.../device:CPU:0" is a CPU). */
static bool is_gpu_device(const char *name)
{
	for (const char *p = strchr(name, '/'); p != NULL; p = strchr(p + 1, '/')) {
		if (g_str_has_prefix(p, "/device:GPU:") || g_str_has_prefix(p, "/gpu:") ||
		    g_str_has_prefix(p, "/device:gpu:"))
			return true;
	}
	return false;
}

/* The convolutions whose data_format matters for the GPU (cuDNN prefers
 * NCHW in TF 1.x). */
static bool is_conv2d(const char *op)
{
	return strcmp(op, "Conv2D") == 0 || strcmp(op, "Conv2DBackpropInput") == 0 ||
	       strcmp(op, "Conv2DBackpropFilter") == 0;
}

static void gpu_utilization(const tl_run *run, tl_advice *a)
{
	int64_t span = run->t_end - run->t_begin;
	size_t nd = run->n_devices;
	uint32_t *executor = g_new(uint32_t, nd ? nd : 1);
	for (size_t s = 0; s < nd; s++)
		executor[s] = run->devices[s].kind == TL_DEV_STREAM && run->devices[s].executor >= 0
				  ? (uint32_t)run->devices[s].executor
				  : TL_GROUP_NONE;
	tl_group streams;
	tl_group_by(&streams, executor, nd, (uint32_t)nd);
	g_free(executor);
	const uint32_t *st_first = streams.first, *st_of = streams.members;
	a->gpus = g_new0(tl_advice_gpu, nd ? nd : 1);
	for (size_t d = 0; d < nd; d++) {
		const tl_device *gpu = &run->devices[d];
		if (gpu->kind != TL_DEV_EXECUTOR || !is_gpu_device(gpu->name))
			continue;
		GArray *iv = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);
		for (uint32_t k = st_first[d]; k < st_first[d + 1]; k++) {
			const tl_device *st = &run->devices[st_of[k]];
			for (uint32_t i = st->first_exec; i < st->first_exec + st->n_exec; i++) {
				int64_t pair[2] = {run->execs[i].start, run->execs[i].end};
				g_array_append_val(iv, pair);
			}
		}
		int64_t busy = union_ns((int64_t *)(void *)iv->data, iv->len);
		a->gpus[a->n_gpus++] = (tl_advice_gpu){
		    (uint32_t)d, span > 0 ? 100.0 * (double)busy / (double)span : 0, iv->len > 0};
		g_array_free(iv, TRUE);
	}
	tl_group_free(&streams);
}

/* Operations: NHWC convolutions on a GPU, batch norm built from pieces. */
static void operations(const tl_run *run, tl_advice *a)
{
	char buf[32];
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (is_gpu_device(g->device) && is_conv2d(g->op)) {
			const char *fmt = node_attr_s(g, "data_format", buf, sizeof buf);
			if (fmt == NULL || strcmp(fmt, "NHWC") == 0) {
				a->nhwc++;
				a->nhwc_example = a->nhwc_example ? a->nhwc_example : g->name;
			}
		}
		bool in_bn =
		    strstr(g->name, "batchnorm/") != NULL || strstr(g->name, "BatchNorm/") != NULL;
		if (in_bn && (strcmp(g->op, "Rsqrt") == 0)) {
			a->unfused_bn++;
			a->bn_example = a->bn_example ? a->bn_example : g->name;
		}
	}
	a->has_graphs = run->has_graphs;
}

tl_advice *tl_advise_new(const tl_run *run)
{
	tl_advice *a = g_new0(tl_advice, 1);
	expensive_ops(run, a);
	gpu_utilization(run, a);
	operations(run, a);
	return a;
}

void tl_advise_free(tl_advice *a)
{
	if (a == NULL)
		return;
	g_free(a->gpus);
	g_free(a);
}
