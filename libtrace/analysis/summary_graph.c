/*
 * summary_graph: a run without partition graphs summarized against the
 * GraphDef given with --graph, as tfprof does with --graph_path: the
 * tables hold the graph's nodes (every one, run or not: "run|defined"
 * 0|1), their shapes, params and float_ops come from the graph where the
 * run's records do not give them, and executions of nodes the graph does
 * not define (the executor's _SOURCE, _retval_*, _arg_*, ...) are kept out
 * and counted.
 */
#include "analysis/summary.h"

#include "analysis/opcost.h"
#include "analysis/summary_internal.h"
#include "base/warn.h"

#include <string.h>

struct tl_summary_graph {
	const tl_graph_attach *g;
	const tl_run *run;
	int32_t *node_of;   /* per exec: its graph node, or -1 */
	uint32_t *first_of; /* per graph node: its first host exec + 1, 0 when none */
	size_t matched;	    /* host executions that name a graph node */
	size_t host;	    /* host executions */
};

/* A record's node as tfprof reads it: the name up to its first ':'. */
static size_t node_name_len(const char *name)
{
	const char *colon = strchr(name, ':');
	return colon != NULL ? (size_t)(colon - name) : strlen(name);
}

tl_summary_graph *tl_summary_graph_new(const tl_summary *s, const tl_run *run,
				       bool (*is_host)(const tl_run *, const tl_exec *))
{
	tl_summary_graph *m = g_new0(tl_summary_graph, 1);
	m->g = s->graph;
	m->run = run;
	m->node_of = g_new(int32_t, run->n_execs ? run->n_execs : 1);
	size_t n = tl_graph_attach_n_nodes(s->graph);
	m->first_of = g_new0(uint32_t, n ? n : 1);
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		m->node_of[i] = tl_graph_attach_find(m->g, e->node, node_name_len(e->node));
		if (!is_host(run, e))
			continue;
		m->host++;
		if (m->node_of[i] < 0)
			continue;
		m->matched++;
		if (m->first_of[m->node_of[i]] == 0)
			m->first_of[m->node_of[i]] = i + 1;
	}
	return m;
}

void tl_summary_graph_free(tl_summary_graph *m)
{
	if (m == NULL)
		return;
	g_free(m->node_of);
	g_free(m->first_of);
	g_free(m);
}

int32_t tl_summary_graph_node(const tl_summary_graph *m, uint32_t exec)
{
	return m->node_of[exec];
}

/* Counts executions of a node the graph does not define. */
void tl_summary_graph_keep_out(tl_summary *s, const char *node, size_t execs)
{
	if (s->kept_out == NULL)
		s->kept_out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char *name = tl_summary_valid_dup(node);
	size_t n = GPOINTER_TO_SIZE(g_hash_table_lookup(s->kept_out, name));
	/* an existing key stays, the new copy is freed */
	g_hash_table_insert(s->kept_out, name, GSIZE_TO_POINTER(n + execs));
	s->kept_out_execs += execs;
}

/* The shape of a node's output `slot`: what its first execution recorded,
 * else what the graph declares. */
static const Tensorflow__TensorShapeProto *node_shape(const tl_summary_graph *m, int32_t node,
						      int32_t slot)
{
	if (node < 0)
		return NULL;
	if (m->first_of[node] > 0) {
		const Tensorflow__TensorShapeProto *sh =
		    tl_opcost_exec_shape(&m->run->execs[m->first_of[node] - 1], slot);
		if (sh != NULL)
			return sh;
	}
	return tl_graph_attach_output_shape(m->g, (uint32_t)node, slot);
}

static const Tensorflow__TensorShapeProto *input_shape(const tl_summary_graph *m, uint32_t node,
						       int32_t port)
{
	int32_t slot = 0;
	int32_t src = tl_graph_attach_input(m->g, node, port, &slot);
	return node_shape(m, src, slot);
}

double tl_summary_graph_float_ops(const tl_summary_graph *m, uint32_t exec)
{
	int32_t node = m->node_of[exec];
	if (node < 0)
		return 0;
	const Tensorflow__NodeDef *def = tl_graph_attach_node(m->g, (uint32_t)node);
	const char *op = def->op != NULL ? def->op : "";
	const Tensorflow__TensorShapeProto *out = tl_opcost_exec_shape(&m->run->execs[exec], 0);
	if (out == NULL)
		out = tl_graph_attach_output_shape(m->g, (uint32_t)node, 0);
	bool matmul = strcmp(op, "MatMul") == 0, conv = strcmp(op, "Conv2D") == 0;
	return tl_opcost_float_ops_of(op, out, matmul ? input_shape(m, (uint32_t)node, 0) : NULL,
				      conv ? input_shape(m, (uint32_t)node, 1) : NULL,
				      matmul && tl_opcost_transpose_a(def));
}

const char *tl_summary_graph_op(const tl_summary_graph *m, uint32_t node)
{
	const Tensorflow__NodeDef *def = tl_graph_attach_node(m->g, node);
	return def->op != NULL ? def->op : "";
}

const char *tl_summary_graph_key(const tl_summary *s, const tl_summary_graph *m, uint32_t node)
{
	const Tensorflow__NodeDef *def = tl_graph_attach_node(m->g, node);
	switch (s->view) {
	case TL_VIEW_OP:
		return def->op != NULL ? def->op : "";
	case TL_VIEW_DEVICE:
		/* the device it ran on; a node that did not run has none */
		return m->first_of[node] > 0
			   ? m->run->devices[m->run->execs[m->first_of[node] - 1].device].name
			   : NULL;
	default:
		return def->name != NULL ? def->name : "";
	}
}

/* Every graph node has its row in the run (0 where it did not run), its
 * params (variables: the declared shape, else what it produced) and its
 * definition counted. */
void tl_summary_graph_rows(tl_summary *s, const tl_summary_graph *m, size_t ri)
{
	GHashTable *counts = g_hash_table_new(g_direct_hash, g_direct_equal);
	size_t n = tl_graph_attach_n_nodes(m->g);
	for (uint32_t k = 0; k < n; k++) {
		const char *key = tl_summary_graph_key(s, m, k);
		const Tensorflow__NodeDef *def = tl_graph_attach_node(m->g, k);
		const char *name = def->name != NULL ? def->name : "";
		/* a name defined twice counts once, as its first definition */
		if (key == NULL || tl_graph_attach_find(m->g, name, strlen(name)) != (int32_t)k)
			continue;
		const char *op = def->op != NULL ? def->op : "";
		tl_summary_vals v = {{0}};
		if (tl_opcost_is_variable(op)) {
			const Tensorflow__TensorShapeProto *sh =
			    tl_graph_attach_declared_shape(m->g, k);
			if (sh == NULL)
				sh = node_shape(m, (int32_t)k, 0);
			v.v[TL_COL_PARAMS] = tl_opcost_elements(sh);
			tl_row *r = tl_summary_row_add(s, key, ri, &v);
			if (r->shape == NULL && s->view != TL_VIEW_OP && s->view != TL_VIEW_DEVICE)
				r->shape = tl_opcost_shape_string(sh);
		}
		tl_row *r = tl_summary_row_add(s, key, ri, &(tl_summary_vals){{0}});
		if (r->extra == NULL && (s->view == TL_VIEW_NODE || s->view == TL_VIEW_SCOPE))
			r->extra = tl_summary_arena_dup(s, op);
		tl_summary_defined_add(counts, r);
	}
	tl_summary_defined_set(counts);
	if (m->matched == 0 && m->host > 0)
		tl_warn("graph-no-match",
			"'%s' names none of the --graph nodes: is it a run of that graph?",
			m->run->label);
}
