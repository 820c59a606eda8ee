/* graphdot_select: which graph nodes and edges a run contributes to the
 * picture. A matched _Send/_Recv pair is not two nodes but one edge from
 * the tensor's producer to each consumer of the _Recv; --focus (names
 * matching a regex) and --top (the most expensive nodes) seed a
 * selection that grows by --hops over the edges. */
#include "analysis/graphdot_picture.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* _Send/_Recv pairs become edges                                      */

static bool is_send_op(const char *op)
{
	return strcmp(op, "_Send") == 0 || strcmp(op, "_HostSend") == 0;
}

/* The producer feeding a hidden _Recv, through any chain of transfers. */
static bool transfer_source(const struct rview *rv, const uint32_t *send_of, uint32_t recv,
			    uint32_t *src, int32_t *slot)
{
	const tl_run *run = rv->run;
	uint32_t node = recv;
	for (size_t guard = 0; guard <= run->n_nodes; guard++) {
		uint32_t s = send_of[node];
		if (s == NONE)
			return false;
		bool found = false;
		for (uint32_t e = run->in_first[s]; e < run->in_first[s + 1]; e++) {
			const tl_edge *ed = &run->edges[e];
			if (ed->kind == TL_EDGE_DATA) {
				*src = ed->src;
				*slot = ed->src_port;
				found = true;
				break;
			}
		}
		if (!found)
			return false;
		if (!rv->hidden[*src] || send_of[*src] == NONE)
			return true;
		node = *src;
	}
	return false;
}

void tl_graphdot_select_contract(struct rview *rv)
{
	tl_run *run = rv->run;
	size_t n = run->n_nodes;
	uint32_t *send_of = g_new(uint32_t, n + 1);
	for (size_t i = 0; i < n; i++)
		send_of[i] = NONE;
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind == TL_EDGE_TRANSFER && is_send_op(run->nodes[ed->src].op))
			send_of[ed->dst] = ed->src;
	}
	/* A pair is drawn as an edge when its _Send reads a tensor. */
	for (size_t r = 0; r < n; r++) {
		uint32_t s = send_of[r];
		if (s == NONE)
			continue;
		for (uint32_t e = run->in_first[s]; e < run->in_first[s + 1]; e++) {
			if (run->edges[e].kind == TL_EDGE_DATA) {
				rv->hidden[s] = true;
				rv->hidden[r] = true;
				break;
			}
		}
	}
	rv->edges = g_new(struct cedge, run->n_edges + 1);
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind == TL_EDGE_TRANSFER || rv->hidden[ed->dst])
			continue;
		struct cedge c = {.src = ed->src,
				  .dst = ed->dst,
				  .port = ed->src_port,
				  .kind = ed->kind == TL_EDGE_CONTROL ? EK_CONTROL : EK_DATA};
		if (rv->hidden[ed->src]) {
			if (send_of[ed->src] == NONE)
				continue; /* out of a hidden _Send (control) */
			if (!transfer_source(rv, send_of, ed->src, &c.src, &c.port))
				continue;
			c.kind = ed->kind == TL_EDGE_CONTROL ? EK_TRANSFER_CONTROL : EK_TRANSFER;
		}
		rv->edges[rv->n_edges++] = c;
	}
	g_free(send_of);
}

/* ------------------------------------------------------------------ */
/* Selection: --focus and --top, grown by --hops                       */

static int cmp_cost_desc(const void *a, const void *b, void *ctx)
{
	const int64_t *cost = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (cost[x] != cost[y])
		return cost[x] > cost[y] ? -1 : 1;
	return x < y ? -1 : (x > y ? 1 : 0);
}

void tl_graphdot_select_nodes(const tl_graphdot *gd, struct rview *rv)
{
	const tl_graphdot_opts *o = &gd->opts;
	tl_run *run = rv->run;
	size_t n = run->n_nodes;
	bool seeded = o->focus != NULL || o->top > 0;
	for (size_t i = 0; i < n; i++)
		rv->kept[i] = !rv->hidden[i] && !seeded;
	if (!seeded)
		return;

	uint32_t *queue = g_new(uint32_t, n + 1);
	uint32_t *dist = g_new(uint32_t, n + 1);
	size_t qn = 0;
	for (size_t i = 0; i < n; i++)
		dist[i] = NONE;
	if (o->focus != NULL) {
		for (size_t i = 0; i < n; i++) {
			if (rv->hidden[i] || !g_regex_match(o->focus, run->nodes[i].name, 0, NULL))
				continue;
			dist[i] = 0;
			queue[qn++] = (uint32_t)i;
		}
	}
	if (o->top > 0) {
		const int64_t *cost = o->color_by == TL_COLOR_MEMORY ? rv->bytes : rv->time;
		uint32_t *order = g_new(uint32_t, n + 1);
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (!rv->hidden[i] && cost[i] > 0)
				order[m++] = (uint32_t)i;
		g_qsort_with_data(order, (gint)m, sizeof *order, cmp_cost_desc, (gpointer)cost);
		for (size_t k = 0; k < m && k < o->top; k++) {
			if (dist[order[k]] == 0)
				continue;
			dist[order[k]] = 0;
			queue[qn++] = order[k];
		}
		g_free(order);
	}

	/* undirected adjacency over the drawn edges */
	uint32_t *first = g_new0(uint32_t, n + 2);
	for (size_t e = 0; e < rv->n_edges; e++) {
		first[rv->edges[e].src + 1]++;
		first[rv->edges[e].dst + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	uint32_t *adj = g_new(uint32_t, 2 * rv->n_edges + 1);
	uint32_t *fill = g_new(uint32_t, n + 1);
	memcpy(fill, first, n * sizeof *fill);
	for (size_t e = 0; e < rv->n_edges; e++) {
		adj[fill[rv->edges[e].src]++] = rv->edges[e].dst;
		adj[fill[rv->edges[e].dst]++] = rv->edges[e].src;
	}
	for (size_t q = 0; q < qn; q++) {
		uint32_t v = queue[q];
		if (dist[v] >= (uint32_t)o->hops)
			continue;
		for (uint32_t k = first[v]; k < first[v + 1]; k++) {
			uint32_t w = adj[k];
			if (dist[w] != NONE)
				continue;
			dist[w] = dist[v] + 1;
			queue[qn++] = w;
		}
	}
	for (size_t i = 0; i < n; i++)
		rv->kept[i] = dist[i] != NONE;
	g_free(fill);
	g_free(adj);
	g_free(first);
	g_free(dist);
	g_free(queue);
}
