/*
 * run_graph: the partition graphs of a run: their nodes (one per name and
 * graph), the data and control edges their inputs name, the _Send -> _Recv
 * transfers matched by tensor_name, send_device and recv_device, and the
 * check for cycles that are not loops.
 */
#include "model/run_internal.h"

#include "base/crew.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static const Tensorflow__AttrValue *node_attr(const Tensorflow__NodeDef *def, const char *key)
{
	for (size_t i = 0; i < def->n_attr; i++)
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, key) == 0)
			return def->attr[i]->value;
	return NULL;
}

static const char *attr_string(tl_arena *arena, const Tensorflow__NodeDef *def, const char *key)
{
	const Tensorflow__AttrValue *v = node_attr(def, key);
	if (v == NULL || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_S)
		return "";
	return tl_arena_strndup(arena, (const char *)v->s.data, v->s.len);
}

static bool client_terminated(const Tensorflow__NodeDef *def)
{
	const Tensorflow__AttrValue *ct = node_attr(def, "client_terminated");
	return ct != NULL && ct->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B && ct->b;
}

/* A string attribute as C code reads it: up to its first NUL. */
static size_t attr_text(const Tensorflow__NodeDef *def, const char *key, const char **text)
{
	const Tensorflow__AttrValue *v = node_attr(def, key);
	if (v == NULL || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_S || v->s.len == 0) {
		*text = "";
		return 0;
	}
	*text = (const char *)v->s.data;
	return strnlen(*text, v->s.len);
}

/* What pairs a _Send with its _Recv: tensor_name, send_device and
 * recv_device (normalized: the two sides may spell devices differently),
 * written into `key`. */
static const char *transfer_key(GString *key, const Tensorflow__NodeDef *def)
{
	const char *t;
	size_t n = attr_text(def, "tensor_name", &t);
	g_string_truncate(key, 0);
	g_string_append_len(key, t, (gssize)n);
	g_string_append_c(key, '\x1f');
	n = attr_text(def, "send_device", &t);
	tl_run_device_normalize_append(key, t, n);
	g_string_append_c(key, '\x1f');
	n = attr_text(def, "recv_device", &t);
	tl_run_device_normalize_append(key, t, n);
	return key->str;
}

static void add_edge(GArray *edges, uint32_t src, uint32_t dst, int32_t sp, int32_t dp,
		     tl_edge_kind kind)
{
	tl_edge e = {.src = src, .dst = dst, .src_port = sp, .dst_port = dp, .kind = kind};
	g_array_append_val(edges, e);
}

static int cmp_edge(const void *a, const void *b)
{
	const tl_edge *x = a, *y = b;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dst_port != y->dst_port)
		return x->dst_port < y->dst_port ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return 0;
}

struct input_edges {
	const struct run_builder *b;
	GArray **parts; /* per crew part: tl_edge */
};

/* The edges into nodes lo..hi-1 that their inputs name. */
static void input_edges_part(void *ctx, size_t part, size_t lo, size_t hi, tl_arena *arena)
{
	struct input_edges *ie = ctx;
	const tl_run *run = ie->b->run;
	GArray *edges = g_array_sized_new(FALSE, FALSE, sizeof(tl_edge), (guint)(hi - lo) * 2 + 1);
	ie->parts[part] = edges;
	for (size_t i = lo; i < hi; i++) {
		const tl_gnode *n = &run->nodes[i];
		int32_t data_pos = 0;
		for (size_t k = 0; k < n->def->n_input; k++) {
			const char *in = n->def->input[k];
			bool control = in[0] == '^';
			const char *nm = control ? in + 1 : in;
			/* "name:port" names the node "name": looked up by its
			 * first bytes, not copied. */
			size_t len = strlen(nm);
			const char *colon = memrchr(nm, ':', len);
			int32_t port = 0;
			if (!control && colon != NULL && colon[1] != '\0' &&
			    strspn(colon + 1, "0123456789") == len - (size_t)(colon + 1 - nm)) {
				port = (int32_t)strtol(colon + 1, NULL, 10);
				len = (size_t)(colon - nm);
			}
			uint32_t hit = tl_nametab_get(ie->b->node_by_name, n->partition,
						      tl_nametab_name(nm, len));
			if (hit == TL_NAMETAB_NONE) {
				tl_warn("missing-input",
					"input '%s' of node '%s' names no node "
					"in its graph; edge dropped",
					in, n->name);
			} else if (control) {
				add_edge(edges, hit, (uint32_t)i, -1, -1, TL_EDGE_CONTROL);
			} else {
				add_edge(edges, hit, (uint32_t)i, port, data_pos, TL_EDGE_DATA);
			}
			if (!control)
				data_pos++;
		}
	}
}

/* The op types of a run, each string once in the run's arena: the few
 * dozen a graph uses stay in the caches, where each node's own copy lies in
 * the input beside it, one line of a megabytes-long run per node, read again
 * by each pass that asks a node its op (transfers, executions, tables). */
struct op_names {
	tl_nametab *index; /* op -> index in ops */
	GPtrArray *ops;
};

static const char *op_name(struct op_names *o, tl_arena *arena, const char *op)
{
	tl_name nm = tl_nametab_name_str(op);
	uint32_t i = tl_nametab_put(o->index, 0, nm, o->ops->len);
	if (i == o->ops->len)
		g_ptr_array_add(o->ops, tl_arena_strndup(arena, op, nm.len));
	return g_ptr_array_index(o->ops, i);
}

/* The nodes of the partition graphs; a name defined twice in one graph is
 * one node, its first definition. */
static void collect_nodes(struct run_builder *b)
{
	tl_run *run = b->run;
	Tensorflow__RunMetadata *meta = run->meta;
	size_t n_nodes = 0;
	for (size_t p = 0; p < meta->n_partition_graphs; p++)
		n_nodes += meta->partition_graphs[p]->n_node;
	run->nodes = tl_arena_zalloc(run->arena, (n_nodes ? n_nodes : 1) * sizeof *run->nodes);
	b->node_by_name = tl_nametab_new(n_nodes);

	struct op_names ops = {.index = tl_nametab_new(64), .ops = g_ptr_array_new()};
	const char *last_raw = NULL, *last_norm = "";
	for (size_t p = 0; p < meta->n_partition_graphs; p++) {
		const Tensorflow__GraphDef *g = meta->partition_graphs[p];
		for (size_t i = 0; i < g->n_node; i++) {
			const Tensorflow__NodeDef *def = g->node[i];
			tl_gnode *n = &run->nodes[run->n_nodes];
			/* copied, one after the other: the passes and writers that
			 * read a node's or its executions' name then read a few
			 * hundred kilobytes of names, not a line of the input each */
			const char *raw = def->name != NULL ? def->name : "";
			size_t len = strlen(raw);
			char *name = tl_arena_alloc(run->arena, len + 1);
			memcpy(name, raw, len + 1);
			n->name = name;
			n->op = op_name(&ops, run->arena, def->op != NULL ? def->op : "");
			/* nodes of a partition share their device string */
			if (def->device == NULL || last_raw == NULL ||
			    strcmp(def->device, last_raw) != 0) {
				last_raw = def->device;
				last_norm = tl_run_device_normalize(run->arena, def->device);
			}
			n->device = last_norm;
			n->partition = (uint32_t)p;
			n->def = def;
			uint32_t at =
			    tl_nametab_put(b->node_by_name, (uint32_t)p,
					   tl_nametab_name(name, len), (uint32_t)run->n_nodes);
			if (at != run->n_nodes) {
				tl_warn("duplicate-node",
					"node '%s' defined twice in one graph; "
					"the first definition is used",
					n->name);
				continue;
			}
			run->n_nodes++;
		}
	}
	tl_nametab_free(ops.index);
	g_ptr_array_free(ops.ops, TRUE);
	run->has_graphs = run->n_nodes > 0;
}

/* The edges the nodes' inputs name, a part of the nodes per thread, joined
 * in node order. The caller frees the array. */
static GArray *input_edges(const struct run_builder *b)
{
	const tl_run *run = b->run;
	struct input_edges ie = {.b = b, .parts = g_new0(GArray *, tl_crew_parts(run->n_nodes))};
	tl_crew_for(run->n_nodes, input_edges_part, &ie, run->arena);
	GArray *edges = g_array_sized_new(FALSE, FALSE, sizeof(tl_edge), run->n_nodes * 2 + 1);
	for (size_t p = 0; p < tl_crew_parts(run->n_nodes); p++) {
		g_array_append_vals(edges, ie.parts[p]->data, ie.parts[p]->len);
		g_array_free(ie.parts[p], TRUE);
	}
	g_free(ie.parts);
	return edges;
}

/* _Send -> _Recv by (tensor_name, send_device, recv_device), appended to
 * `edges`; what pairs with nothing is said. */
static void transfer_edges(tl_run *run, GArray *edges)
{
	GHashTable *sends = g_hash_table_new(g_str_hash, g_str_equal);
	GString *key = g_string_sized_new(256);
	for (uint32_t i = 0; i < run->n_nodes; i++) {
		const tl_gnode *n = &run->nodes[i];
		if (!is_send(n->op))
			continue;
		if (client_terminated(n->def))
			continue;
		transfer_key(key, n->def);
		g_hash_table_insert(sends, tl_arena_strndup(run->arena, key->str, key->len),
				    GUINT_TO_POINTER(i + 1));
	}
	size_t matched = 0;
	for (uint32_t i = 0; i < run->n_nodes; i++) {
		const tl_gnode *n = &run->nodes[i];
		if (!is_recv(n->op))
			continue;
		if (client_terminated(n->def))
			continue;
		gpointer hit = g_hash_table_lookup(sends, transfer_key(key, n->def));
		if (hit == NULL) {
			tl_warn("recv-without-send",
				"_Recv '%s' has no matching _Send in the "
				"partition graphs",
				n->name);
			continue;
		}
		add_edge(edges, GPOINTER_TO_UINT(hit) - 1, i, -1, -1, TL_EDGE_TRANSFER);
		matched++;
	}
	g_string_free(key, TRUE);
	if (matched < g_hash_table_size(sends))
		tl_warn("send-without-recv", "%u _Send node(s) have no matching _Recv",
			g_hash_table_size(sends) - (unsigned)matched);
	g_hash_table_destroy(sends);
}

/* The edges, sorted by destination, into the run's arena, with the first
 * edge into each node. */
static void index_edges(tl_run *run, GArray *edges)
{
	qsort(edges->data, edges->len, sizeof(tl_edge), cmp_edge);
	run->n_edges = edges->len;
	run->edges = tl_arena_alloc(run->arena, (edges->len ? edges->len : 1) * sizeof(tl_edge));
	memcpy(run->edges, edges->data, edges->len * sizeof(tl_edge));
	run->in_first = tl_arena_zalloc(run->arena, (run->n_nodes + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < run->n_edges; e++)
		run->in_first[run->edges[e].dst + 1]++;
	for (size_t i = 0; i < run->n_nodes; i++)
		run->in_first[i + 1] += run->in_first[i];
}

/* The nodes of the partition graphs and their edges: data and control
 * edges from the inputs, transfers from the _Send/_Recv pairs. */
void tl_run_graph_build(struct run_builder *b)
{
	collect_nodes(b);
	GArray *edges = input_edges(b);
	transfer_edges(b->run, edges);
	index_edges(b->run, edges);
	g_array_free(edges, TRUE);
}

static bool is_next_iteration(const char *op)
{
	return strcmp(op, "NextIteration") == 0 || strcmp(op, "RefNextIteration") == 0;
}

/* TensorFlow graphs loop only through NextIteration -> Merge. Any other
 * cycle (a hostile or broken dump) leaves no producer-before-consumer order
 * for its nodes: said once, naming a node on it (Kahn's algorithm, then a
 * walk back along unfinished inputs, which must end on a cycle). */
void tl_run_graph_warn_cycles(const tl_run *run)
{
	size_t n = run->n_nodes;
	if (n == 0)
		return;
	uint32_t *indeg = g_new0(uint32_t, n);
	uint32_t *out_first = g_new0(uint32_t, n + 1);
	uint32_t *out = g_new(uint32_t, run->n_edges ? run->n_edges : 1);
	uint32_t *queue = g_new(uint32_t, n);
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (is_next_iteration(run->nodes[ed->src].op))
			continue;
		indeg[ed->dst]++;
		out_first[ed->src + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		out_first[i + 1] += out_first[i];
	uint32_t *fill = g_memdup2(out_first, (n + 1) * sizeof *fill);
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (!is_next_iteration(run->nodes[ed->src].op))
			out[fill[ed->src]++] = ed->dst;
	}
	g_free(fill);
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < n; i++)
		if (indeg[i] == 0)
			queue[tail++] = (uint32_t)i;
	while (head < tail) {
		uint32_t v = queue[head++];
		for (uint32_t k = out_first[v]; k < out_first[v + 1]; k++)
			if (--indeg[out[k]] == 0)
				queue[tail++] = out[k];
	}
	if (tail < n) {
		uint32_t v = 0;
		while (indeg[v] == 0)
			v++;
		for (size_t step = 0; step < n; step++) {
			for (uint32_t k = run->in_first[v]; k < run->in_first[v + 1]; k++) {
				const tl_edge *ed = &run->edges[k];
				if (indeg[ed->src] > 0 &&
				    !is_next_iteration(run->nodes[ed->src].op)) {
					v = ed->src;
					break;
				}
			}
		}
		tl_warn("graph-cycle",
			"the partition graphs have a cycle through node '%s' (not a "
			"NextIteration loop); arrows on it follow execution order",
			run->nodes[v].name);
	}
	g_free(queue);
	g_free(out);
	g_free(out_first);
	g_free(indeg);
}

const char *tl_run_node_attr_string(const tl_run *run, uint32_t node, const char *key)
{
	return attr_string(run->arena, run->nodes[node].def, key);
}
