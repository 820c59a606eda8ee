/* graphdot_layout: what the layout will cost (dot's time grows with the
 * nodes and the bends of long edges), and from it the depth a run is drawn
 * at: above max_nodes (shared by the runs) scopes collapse level by level,
 * then numbered siblings fold, until the picture fits, with a warning
 * saying so. Big layouts also get their edge labels placed after layout
 * and fewer dot iterations. */
#include "analysis/graphdot_picture.h"

#include <stdlib.h>
#include <string.h>

#define EDGE_LABELS_AUTO 2000 /* auto: edge labels up to this many edges */
#define COST_PER_NODE 40      /* dot's layout budget per --max-nodes node */
#define COST_LABELS 3000      /* edge labels as labels (else xlabels) up to this cost */
#define COST_FAST 8000	      /* from this cost on, dot iterates less, components apart */
/* --max-nodes 0 draws every node unless one connected component (which
 * dot lays out alone, emit/dot_pack.h) costs more than this: on this
 * project's 2-core machine a component of cost 120,000 (a 1,000-node
 * generated training graph) takes dot about 5 s, and the time grows
 * faster than the cost */
#define COST_BUDGET 150000

/* ------------------------------------------------------------------ */
/* Layout cost                                                         */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Depth-first over the graph of nv nodes, without recursion: back edges
 * (in `edges`, sorted (src << 32 | dst) pairs) get reversed, as dot breaks
 * cycles. Returns the nodes in reverse postorder, in which every edge,
 * once reversed, goes forward; the caller frees it. */
static uint32_t *reverse_back_edges(uint32_t nv, uint64_t *edges, size_t ne)
{
	uint32_t *first = g_new0(uint32_t, (size_t)nv + 1);
	uint32_t *dst = g_new(uint32_t, ne + 1);
	for (size_t e = 0; e < ne; e++)
		first[(edges[e] >> 32) + 1]++;
	for (uint32_t v = 0; v < nv; v++)
		first[v + 1] += first[v];
	for (size_t e = 0; e < ne; e++)
		dst[e] = (uint32_t)edges[e];
	uint8_t *state = g_new0(uint8_t, nv); /* 0 new, 1 on the stack, 2 done */
	uint32_t *stack = g_new(uint32_t, nv);
	uint32_t *next = g_new(uint32_t, nv);
	uint32_t *order = g_new(uint32_t, nv); /* reverse postorder, filled from the end */
	uint32_t n_order = nv;
	for (uint32_t root = 0; root < nv; root++) {
		if (state[root] != 0)
			continue;
		uint32_t sp = 0;
		stack[sp++] = root;
		state[root] = 1;
		next[root] = first[root];
		while (sp > 0) {
			uint32_t v = stack[sp - 1];
			if (next[v] < first[v + 1]) {
				uint32_t e = next[v]++;
				uint32_t w = dst[e];
				if (state[w] == 1) {
					edges[e] = (uint64_t)w << 32 | v; /* reversed */
				} else if (state[w] == 0) {
					state[w] = 1;
					next[w] = first[w];
					stack[sp++] = w;
				}
				continue;
			}
			state[v] = 2;
			order[--n_order] = v;
			sp--;
		}
	}
	g_free(next);
	g_free(stack);
	g_free(state);
	g_free(dst);
	g_free(first);
	return order;
}

/* What dot's work grows with: the nodes plus the bends of edges that span
 * several ranks (dot draws each bend as a virtual node). Ranks come from a
 * longest-path layering of the graph with its back edges reversed (as dot
 * breaks cycles), then each node with more edges out than in moved down
 * next to its successors (as dot's ranking shortens such edges). `edges`
 * is sorted and holds (src << 32 | dst) pairs without duplicates. */
static uint32_t find_root(uint32_t *up, uint32_t v)
{
	while (up[v] != v) {
		up[v] = up[up[v]];
		v = up[v];
	}
	return v;
}

/* The cost of the dearest connected component, from each node's rank. */
static uint64_t largest_component(uint32_t nv, const uint64_t *edges, size_t ne,
				  const int64_t *rank)
{
	uint32_t *up = g_new(uint32_t, nv);
	uint64_t *cost = g_new0(uint64_t, nv);
	for (uint32_t v = 0; v < nv; v++)
		up[v] = v;
	for (size_t e = 0; e < ne; e++) {
		uint32_t a = find_root(up, (uint32_t)(edges[e] >> 32));
		uint32_t b = find_root(up, (uint32_t)edges[e]);
		if (a != b)
			up[a < b ? b : a] = a < b ? a : b;
	}
	for (uint32_t v = 0; v < nv; v++)
		cost[find_root(up, v)]++;
	for (size_t e = 0; e < ne; e++) {
		int64_t span = rank[(uint32_t)edges[e]] - rank[edges[e] >> 32];
		if (span > 1)
			cost[find_root(up, (uint32_t)edges[e])] += (uint64_t)(span - 1);
	}
	uint64_t most = 0;
	for (uint32_t v = 0; v < nv; v++)
		if (cost[v] > most)
			most = cost[v];
	g_free(cost);
	g_free(up);
	return most;
}

static uint64_t layout_cost(uint32_t nv, uint64_t *edges, size_t ne, uint64_t *largest)
{
	*largest = 0;
	if (nv == 0)
		return 0;
	uint32_t *order = reverse_back_edges(nv, edges, ne);
	/* after reversing, every edge goes forward in `order` */
	qsort(edges, ne, sizeof *edges, cmp_u64);
	int64_t *rank = g_new0(int64_t, nv);
	uint32_t *indeg = g_new0(uint32_t, nv);
	uint32_t *first = g_new0(uint32_t, (size_t)nv + 1);
	for (size_t e = 0; e < ne; e++) {
		first[(edges[e] >> 32) + 1]++;
		indeg[(uint32_t)edges[e]]++;
	}
	for (uint32_t v = 0; v < nv; v++)
		first[v + 1] += first[v];
	for (uint32_t k = 0; k < nv; k++) {
		uint32_t v = order[k];
		for (uint32_t e = first[v]; e < first[v + 1]; e++) {
			uint32_t w = (uint32_t)edges[e];
			if (rank[w] < rank[v] + 1)
				rank[w] = rank[v] + 1;
		}
	}
	for (uint32_t k = nv; k-- > 0;) {
		uint32_t v = order[k];
		uint32_t out = first[v + 1] - first[v];
		if (out == 0 || out <= indeg[v])
			continue;
		int64_t low = INT64_MAX;
		for (uint32_t e = first[v]; e < first[v + 1]; e++)
			if (rank[(uint32_t)edges[e]] < low)
				low = rank[(uint32_t)edges[e]];
		if (low - 1 > rank[v])
			rank[v] = low - 1;
	}
	uint64_t cost = nv;
	for (size_t e = 0; e < ne; e++) {
		int64_t span = rank[(uint32_t)edges[e]] - rank[edges[e] >> 32];
		if (span > 1)
			cost += (uint64_t)(span - 1);
	}
	*largest = largest_component(nv, edges, ne, rank);
	g_free(first);
	g_free(indeg);
	g_free(rank);
	g_free(order);
	return cost;
}

/* Each kept node's vertex at `depth` (in id), and how many vertices. The
 * slots of the scopes (rv->sid, all NONE between calls) are reset after
 * use, so a try costs the nodes, not the scopes. */
static uint32_t assign_ids(struct rview *rv, int depth, uint32_t *id)
{
	size_t n = rv->run->n_nodes;
	if (rv->sid == NULL) {
		rv->sid = g_new(uint32_t, 2 * (size_t)rv->scopes->len + 1);
		for (size_t s = 0; s < 2 * (size_t)rv->scopes->len; s++)
			rv->sid[s] = NONE;
	}
	uint32_t *slot_of = g_new(uint32_t, n + 1); /* per node: its slot, or NONE */
	uint32_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		slot_of[i] = NONE;
		if (!rv->kept[i])
			continue;
		bool fold;
		uint32_t t = tl_graphdot_scope_target(rv, (uint32_t)i, depth, &fold);
		if (t == NONE) {
			id[i] = nv++;
			continue;
		}
		slot_of[i] = 2 * t + (fold ? 1 : 0);
		uint32_t *slot = &rv->sid[slot_of[i]];
		if (*slot == NONE)
			*slot = nv++;
		id[i] = *slot;
	}
	for (size_t i = 0; i < n; i++)
		if (slot_of[i] != NONE)
			rv->sid[slot_of[i]] = NONE;
	g_free(slot_of);
	return nv;
}

/* How many vertices the run draws at `depth`, without the layout cost. */
static uint32_t count_at_depth(struct rview *rv, int depth)
{
	uint32_t *id = g_new(uint32_t, rv->run->n_nodes + 1);
	uint32_t nv = assign_ids(rv, depth, id);
	g_free(id);
	return nv;
}

/* How many vertices the run draws at `depth`, and the layout cost (of the
 * dearest connected component in *largest, where not NULL). */
static size_t try_depth_of(struct rview *rv, int depth, uint64_t *cost, uint64_t *largest)
{
	size_t n = rv->run->n_nodes;
	uint32_t *id = g_new(uint32_t, n + 1);
	uint32_t nv = assign_ids(rv, depth, id);
	uint64_t *pairs = g_new(uint64_t, rv->n_edges + 1);
	size_t m = 0;
	for (size_t e = 0; e < rv->n_edges; e++) {
		const struct cedge *c = &rv->edges[e];
		if (!rv->kept[c->src] || !rv->kept[c->dst] || id[c->src] == id[c->dst])
			continue;
		pairs[m++] = (uint64_t)id[c->src] << 32 | id[c->dst];
	}
	qsort(pairs, m, sizeof *pairs, cmp_u64);
	size_t u = 0;
	for (size_t k = 0; k < m; k++)
		if (u == 0 || pairs[k] != pairs[u - 1])
			pairs[u++] = pairs[k];
	uint64_t most;
	*cost = layout_cost(nv, pairs, u, &most);
	if (largest != NULL)
		*largest = most;
	g_free(pairs);
	g_free(id);
	return nv;
}

static size_t try_depth(struct rview *rv, int depth, uint64_t *cost)
{
	return try_depth_of(rv, depth, cost, NULL);
}

/* ------------------------------------------------------------------ */
/* The depth                                                           */

static bool engine_is_dot(const tl_graphdot *gd)
{
	return gd->opts.engine == NULL || strcmp(gd->opts.engine, "dot") == 0;
}

/* Whether a run's picture of nv nodes and this layout cost is within its
 * share of the budget: max_nodes nodes over all runs, and for dot a cost
 * of COST_PER_NODE per node allowed. */
static bool fits(const tl_graphdot *gd, size_t nv, uint64_t cost)
{
	size_t max = gd->run_budget;
	if (max == 0)
		return true;
	return nv <= max && (!engine_is_dot(gd) || cost <= (uint64_t)max * COST_PER_NODE);
}

/* The deepest level at or above `from` at which the run fits (0: none). */
static int fitting_depth(tl_graphdot *gd, struct rview *rv, int from, size_t *count, uint64_t *cost)
{
	for (int d = from; d >= 1; d--) {
		/* over the budget by its vertices alone: no need of the
		 * layout cost to know it does not fit */
		if (gd->run_budget > 0 && count_at_depth(rv, d) > gd->run_budget)
			continue;
		*count = try_depth(rv, d, cost);
		if (fits(gd, *count, *cost))
			return d;
	}
	return 0;
}

/* Whether a run drawn whole (--max-nodes 0) would cost dot more than the
 * budget in one component: then it is drawn as the default --max-nodes
 * would, with a warning saying so and what to use instead. */
static bool over_budget(tl_graphdot *gd, struct rview *rv, size_t count, uint64_t largest)
{
	if (gd->run_budget != 0 || !gd->opts.laid_out || !engine_is_dot(gd) ||
	    largest <= COST_BUDGET)
		return false;
	size_t def = tl_graphdot_default_max_nodes(gd->opts.engine);
	gd->run_budget = gd->n_runs > 1 ? MAX(def / gd->n_runs, 1) : def;
	tl_warn("graph-layout-budget",
		"'%s': laying out all %zu nodes with dot would take long (a connected "
		"component of layout cost %" G_GUINT64_FORMAT ", over %d): drawn as with "
		"--max-nodes %zu; -K sfdp lays out every node quickly, --focus or --top draw "
		"a part",
		rv->run->label, count, largest, COST_BUDGET, def);
	return true;
}

/* When even the top level does not fit, numbered siblings fold too. */
int tl_graphdot_layout_depth(tl_graphdot *gd, struct rview *rv, uint64_t *cost)
{
	int depth = gd->opts.max_depth;
	uint64_t largest;
	size_t count = try_depth_of(rv, depth, cost, &largest);
	bool lowered = over_budget(gd, rv, count, largest);
	if (fits(gd, count, *cost)) {
		if (lowered)
			gd->run_budget = 0;
		return depth;
	}
	gd->stats.auto_collapsed = true;
	int from = depth > 0 ? depth - 1 : rv->max_scope_depth;
	int d = fitting_depth(gd, rv, from, &count, cost);
	bool folded_now = false;
	if (d == 0 && !rv->folded) {
		tl_graphdot_scope_fold(rv);
		d = fitting_depth(gd, rv, from, &count, cost);
		folded_now = d > 0;
	}
	if (d == 0) {
		d = 1;
		count = try_depth(rv, d, cost);
		if (lowered)
			gd->run_budget = 0;
		tl_warn("graph-auto-collapse-short",
			"'%s': %zu nodes even with every top-level scope drawn as one node: "
			"the layout may take long; --focus or --top draw a part",
			rv->run->label, count);
		return d;
	}
	if (lowered) {
		gd->run_budget = 0;
		return d; /* said once, by the budget's warning */
	}
	tl_warn(folded_now ? "graph-auto-fold" : "graph-auto-collapse",
		"'%s': %zu nodes are too many to lay out quickly (--max-nodes %zu%s): "
		"%seach scope at level %d drawn as one node (--max-depth %d); "
		"--max-nodes 0 draws every node",
		rv->run->label, rv->n_kept, gd->opts.max_nodes,
		gd->n_runs > 1 ? ", shared by the runs" : "",
		folded_now ? "numbered scopes folded (--fold) and " : "", d, d);
	return d;
}

void tl_graphdot_layout_hints(tl_graphdot *gd)
{
	if (gd->opts.edge_labels == TL_EDGE_LABELS_AUTO)
		gd->edge_labels = gd->stats.edges <= EDGE_LABELS_AUTO;
	else
		gd->edge_labels = gd->opts.edge_labels == TL_EDGE_LABELS_ON;
	/* dot doubles every rank to make room for edge labels */
	gd->edge_xlabels = gd->stats.layout_cost > COST_LABELS;
	gd->fast = engine_is_dot(gd) && gd->stats.layout_cost > COST_FAST;
}

bool tl_graphdot_layout_labels_settled(tl_graphdot *gd)
{
	/* the edges and the layout cost only grow as runs come */
	if (gd->opts.edge_labels == TL_EDGE_LABELS_OFF ||
	    (gd->opts.edge_labels == TL_EDGE_LABELS_AUTO && gd->stats.edges > EDGE_LABELS_AUTO)) {
		gd->edge_labels = false;
		return true;
	}
	if (gd->opts.edge_labels == TL_EDGE_LABELS_ON && gd->stats.layout_cost > COST_LABELS) {
		gd->edge_labels = gd->edge_xlabels = true;
		return true;
	}
	return false;
}
