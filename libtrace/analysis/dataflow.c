#include "analysis/dataflow.h"

#include <string.h>

const char *tl_dataflow_link_kind_name(tl_link_kind k)
{
	switch (k) {
	case TL_LINK_DATA:
		return "dataflow";
	case TL_LINK_CONTROL:
		return "control";
	case TL_LINK_TRANSFER:
		return "transfer";
	case TL_LINK_LAUNCH:
		return "launch";
	}
	return "dataflow";
}

int64_t *tl_dataflow_min_ends(const tl_run *run)
{
	size_t total = 0;
	for (size_t n = 0; n < run->n_nodes; n++)
		total += run->nodes[n].n_exec;
	int64_t *min_end = g_new(int64_t, total + 1);
	for (size_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *p = &run->nodes[n];
		int64_t m = INT64_MAX;
		for (uint32_t i = p->n_exec; i-- > 0;) {
			int64_t end = run->execs[run->node_execs[p->first_exec + i]].end;
			if (end < m)
				m = end;
			min_end[p->first_exec + i] = m;
		}
	}
	return min_end;
}

int32_t tl_dataflow_pick(const tl_run *run, const int64_t *min_ends, uint32_t producer, uint32_t k,
			 uint32_t n_cons, int64_t cons_start)
{
	const tl_gnode *p = &run->nodes[producer];
	if (p->n_exec == 0)
		return -1;
	const uint32_t *ex = run->node_execs + p->first_exec;
	if (p->n_exec == n_cons)
		return (int32_t)ex[k];
	if (p->n_exec == 1)
		return (int32_t)ex[0];
	if (n_cons == 1)
		return (int32_t)ex[p->n_exec - 1];
	/* Unequal repeat counts: the latest (in start order) that ended by the
	 * consumer's start, else the first. The earliest end from each
	 * execution on grows with it, so the executions whose earliest end
	 * from there on is by then are a prefix, and the last of the prefix
	 * is the one that ended by then. */
	const int64_t *m = min_ends + p->first_exec;
	uint32_t lo = 0, hi = p->n_exec;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m[mid] <= cons_start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int32_t)ex[lo > 0 ? lo - 1 : 0];
}

static void push(GArray *links, uint32_t src, uint32_t dst, int32_t sp, int32_t dp,
		 tl_link_kind kind, bool guessed)
{
	tl_link l = {.src = src,
		     .dst = dst,
		     .src_port = sp,
		     .dst_port = dp,
		     .kind = kind,
		     .guessed = guessed,
		     .via_recv = -1,
		     .via_send = -1};
	g_array_append_val(links, l);
}

/* ---- iterations --------------------------------------------------------
 *
 * NodeExecStats say nothing of frames or iterations, and a dead execution
 * (a cond branch not taken, the last round of a loop body) leaves no stats
 * at all; neither does a _Recv now and then. What a dump does say: each
 * node's executions in time order, which _Send feeds which _Recv, and the
 * loop structure (Enter, Merge, Switch, NextIteration, Exit) in the graphs.
 * So every node gets an iteration count and each execution an iteration:
 * its rank, except across a _Send/_Recv pair. A pair runs equally often
 * (one rendezvous per iteration), so the side with fewer executions has
 * some unrecorded, and its recorded ones are placed by time among the other
 * side's iterations. An iteration without an execution is read through:
 * from the _Send when the _Recv is missing, from the _Send's producer when
 * the _Send is missing too. */

/* How far the matching scans for a place (a run of this many missing
 * executions in a row is taken as the first free place). */
#define SCAN_LIMIT 64

typedef struct flow {
	const tl_run *run;
	uint32_t *n_iter;     /* per node: iterations, recorded or not */
	uint32_t *slot_first; /* per node: first entry in slots */
	int32_t *slots;	      /* per node and iteration: the execution, or -1 */
	int32_t *slot_of;     /* per execution: its iteration, or -1 */
	int32_t *send_of;     /* per _Recv node: its _Send, or -1 */
	int32_t *recv_of;     /* per _Send node: its _Recv, or -1 */
} flow;

static bool op_is(const char *op, const char *a, const char *b)
{
	return strcmp(op, a) == 0 || strcmp(op, b) == 0;
}

static bool is_recv_op(const char *op)
{
	return op_is(op, "_Recv", "_HostRecv");
}

static bool is_send_op(const char *op)
{
	return op_is(op, "_Send", "_HostSend");
}

static bool is_merge_op(const char *op)
{
	return op_is(op, "Merge", "RefMerge");
}

static int32_t slot_exec(const flow *f, uint32_t node, uint32_t j)
{
	return j < f->n_iter[node] ? f->slots[f->slot_first[node] + j] : -1;
}

static int64_t exec_end(const tl_run *run, uint32_t node, uint32_t i)
{
	return run->execs[run->node_execs[run->nodes[node].first_exec + i]].end;
}

/* Whether execution x produced output `port`: a dead output is never set,
 * so an execution that recorded its outputs without this one (a Switch
 * sending the other way) did not produce it. */
static bool live(const tl_run *run, uint32_t x, int32_t port)
{
	const Tensorflow__NodeExecStats *ns = run->execs[x].ns;
	if (port < 0 || ns->n_output == 0)
		return true;
	for (size_t i = 0; i < ns->n_output; i++)
		if (ns->output[i] != NULL && ns->output[i]->slot == port)
			return true;
	return false;
}

/* Places the `have` recorded executions of `part` among the `n` iterations
 * of its pair `full` (which recorded all n), in order. A _Recv completes
 * after its _Send ended and before its consumers of the same iteration
 * start; when such consumers (`cons`, running n times too) are known, the
 * first place meeting both holds it, else the latest _Send that ended by
 * then. A _Send is placed at the first _Recv ending after it. */
static void place_partial(flow *f, uint32_t part, uint32_t full, bool part_is_recv,
			  const GArray *cons)
{
	const tl_run *run = f->run;
	uint32_t n = f->n_iter[full], have = run->nodes[part].n_exec;
	int32_t *slots = f->slots + f->slot_first[part];
	if (run->nodes[full].n_exec < n) {
		/* the pair is recorded partly too (both counts come from the
		 * _Send's input): nothing to place by, so in order */
		for (uint32_t i = 0; i < have && i < n; i++)
			slots[i] = (int32_t)run->node_execs[run->nodes[part].first_exec + i];
		return;
	}
	uint32_t next = 0; /* first free place */
	for (uint32_t i = 0; i < have; i++) {
		uint32_t x = run->node_execs[run->nodes[part].first_exec + i];
		int64_t end = run->execs[x].end;
		uint32_t hi = n - (have - i); /* leave a place for each one after */
		if (hi > next + SCAN_LIMIT)
			hi = next + SCAN_LIMIT;
		uint32_t j = next;
		bool found = false;
		for (uint32_t c = next; c <= hi && !found; c++) {
			int64_t other = exec_end(run, full, c);
			bool ok = part_is_recv ? other <= end : other >= end;
			guint n_cons = part_is_recv && cons != NULL ? cons->len : 0;
			for (guint k = 0; ok && k < n_cons; k++) {
				uint32_t cn = g_array_index(cons, uint32_t, k);
				uint32_t ce = run->node_execs[run->nodes[cn].first_exec + c];
				ok = run->execs[ce].start >= end;
			}
			if (!ok)
				continue;
			j = c;
			/* without consumers to bound it, a _Recv takes the latest */
			found = !part_is_recv || (cons != NULL && cons->len > 0);
		}
		slots[j] = (int32_t)x;
		next = j + 1;
	}
}

static void flow_init(flow *f, const tl_run *run)
{
	size_t nn = run->n_nodes;
	f->run = run;
	f->n_iter = g_new(uint32_t, nn + 1);
	f->slot_first = g_new(uint32_t, nn + 1);
	f->send_of = g_new(int32_t, nn + 1);
	f->recv_of = g_new(int32_t, nn + 1);
	f->slot_of = g_new(int32_t, run->n_execs + 1);
	for (size_t n = 0; n < nn; n++) {
		f->n_iter[n] = run->nodes[n].n_exec;
		f->send_of[n] = f->recv_of[n] = -1;
	}
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind == TL_EDGE_TRANSFER) {
			f->send_of[ed->dst] = (int32_t)ed->src;
			f->recv_of[ed->src] = (int32_t)ed->dst;
		}
	}
	/* a pair runs as often as its busier side, and a pair neither side of
	 * which was recorded as often as the producer its _Send reads (a chain
	 * of such pairs takes a pass each) */
	for (size_t r = 0; r < nn; r++) {
		int32_t s = f->send_of[r];
		if (s < 0)
			continue;
		uint32_t n = MAX(f->n_iter[r], f->n_iter[s]);
		f->n_iter[r] = f->n_iter[s] = n;
	}
	for (int pass = 0, changed = 1; changed && pass < 4; pass++) {
		changed = 0;
		for (size_t r = 0; r < nn; r++) {
			int32_t s = f->send_of[r];
			if (s < 0 || f->n_iter[r] > 0)
				continue;
			for (uint32_t e = run->in_first[s]; e < run->in_first[s + 1]; e++)
				if (run->edges[e].kind == TL_EDGE_DATA &&
				    f->n_iter[run->edges[e].src] > 0) {
					f->n_iter[r] = f->n_iter[s] = f->n_iter[run->edges[e].src];
					changed = 1;
				}
		}
	}
	uint32_t total = 0;
	for (size_t n = 0; n < nn; n++) {
		f->slot_first[n] = total;
		total += f->n_iter[n];
	}
	f->slots = g_new(int32_t, total + 1);
	for (uint32_t i = 0; i < total; i++)
		f->slots[i] = -1;
	/* consumers that run as often as a partly recorded _Recv bound it */
	GHashTable *cons = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						 (GDestroyNotify)g_array_unref);
	for (size_t e = 0; e < run->n_edges; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind != TL_EDGE_DATA || f->send_of[ed->src] < 0 ||
		    run->nodes[ed->src].n_exec == f->n_iter[ed->src] ||
		    run->nodes[ed->dst].n_exec != f->n_iter[ed->src])
			continue;
		GArray *list = g_hash_table_lookup(cons, GUINT_TO_POINTER(ed->src));
		if (list == NULL) {
			list = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_hash_table_insert(cons, GUINT_TO_POINTER(ed->src), list);
		}
		g_array_append_val(list, ed->dst);
	}
	for (size_t n = 0; n < nn; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (g->n_exec == f->n_iter[n]) {
			for (uint32_t i = 0; i < g->n_exec; i++)
				f->slots[f->slot_first[n] + i] =
				    (int32_t)run->node_execs[g->first_exec + i];
			continue;
		}
		if (g->n_exec == 0)
			continue;
		int32_t s = f->send_of[n];
		if (s >= 0) {
			place_partial(f, (uint32_t)n, (uint32_t)s, true,
				      g_hash_table_lookup(cons, GUINT_TO_POINTER(n)));
			continue;
		}
		/* a _Send recorded less often than its _Recv */
		if (f->recv_of[n] >= 0)
			place_partial(f, (uint32_t)n, (uint32_t)f->recv_of[n], false, NULL);
	}
	g_hash_table_destroy(cons);
	for (size_t i = 0; i < run->n_execs; i++)
		f->slot_of[i] = -1;
	for (size_t n = 0; n < nn; n++)
		for (uint32_t j = 0; j < f->n_iter[n]; j++) {
			int32_t x = f->slots[f->slot_first[n] + j];
			if (x >= 0)
				f->slot_of[x] = (int32_t)j;
		}
}

static void flow_free(flow *f)
{
	g_free(f->n_iter);
	g_free(f->slot_first);
	g_free(f->slots);
	g_free(f->slot_of);
	g_free(f->send_of);
	g_free(f->recv_of);
}

int32_t *tl_dataflow_iterations(const tl_run *run)
{
	int32_t *out = g_new(int32_t, run->n_execs + 1);
	if (!run->has_graphs) {
		for (size_t i = 0; i < run->n_execs; i++)
			out[i] = -1;
		return out;
	}
	flow f;
	flow_init(&f, run);
	memcpy(out, f.slot_of, run->n_execs * sizeof *out);
	flow_free(&f);
	return out;
}

/* Which iteration of `producer` iteration k of n of a consumer starting at
 * `start` reads (its output `port`): the same one when both ran as often,
 * the only one, the last one for a consumer that ran once; else the latest
 * that produced the tensor and ended before the consumer started. -1: none. */
static int32_t pick_iter(const flow *f, uint32_t producer, uint32_t k, uint32_t n_cons,
			 int64_t start, int32_t port)
{
	const tl_run *run = f->run;
	uint32_t np = f->n_iter[producer];
	if (np == 0)
		return -1;
	if (np == n_cons)
		return (int32_t)k;
	if (np == 1)
		return 0;
	if (n_cons == 1)
		return (int32_t)np - 1;
	/* executions are in start order: the last one starting by `start`,
	 * then back to one that ended by then too */
	const tl_gnode *p = &run->nodes[producer];
	const uint32_t *ex = run->node_execs + p->first_exec;
	uint32_t lo = 0, hi = p->n_exec;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (run->execs[ex[mid]].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo, steps = 0; i-- > 0 && steps < SCAN_LIMIT; steps++)
		if (run->execs[ex[i]].end <= start && live(run, ex[i], port))
			return f->slot_of[ex[i]];
	return -1;
}

/* The execution that delivered iteration j of `node`: its own, else, for a
 * _Recv without one, its _Send's, and for a _Send without one, that of the
 * producer it reads. Notes the unrecorded transfer nodes passed. */
static int32_t resolve(const flow *f, uint32_t node, int32_t j, int64_t start, tl_link *via)
{
	const tl_run *run = f->run;
	for (int depth = 0; j >= 0 && depth < 8; depth++) {
		int32_t x = slot_exec(f, node, (uint32_t)j);
		if (x >= 0)
			return x;
		const char *op = run->nodes[node].op;
		if (is_recv_op(op) && f->send_of[node] >= 0) {
			if (via->via_recv < 0)
				via->via_recv = (int32_t)node;
			node = (uint32_t)f->send_of[node];
			continue;
		}
		if (!is_send_op(op))
			return -1;
		const tl_edge *in = NULL;
		for (uint32_t e = run->in_first[node]; e < run->in_first[node + 1]; e++)
			if (run->edges[e].kind == TL_EDGE_DATA)
				in = &run->edges[e];
		if (in == NULL)
			return -1;
		if (via->via_send < 0)
			via->via_send = (int32_t)node;
		j = pick_iter(f, in->src, (uint32_t)j, f->n_iter[node], start, in->src_port);
		node = in->src;
	}
	return -1;
}

static void push_resolved(const flow *f, GArray *links, const tl_edge *edge, uint32_t dst,
			  int32_t j, int64_t start, tl_link_kind kind)
{
	tl_link l = {.src_port = edge->src_port,
		     .dst_port = edge->dst_port,
		     .kind = kind,
		     .via_recv = -1,
		     .via_send = -1};
	int32_t src = resolve(f, edge->src, j, start, &l);
	if (src < 0 || (uint32_t)src == dst)
		return;
	l.src = (uint32_t)src;
	l.dst = dst;
	if (l.via_recv >= 0 || l.via_send >= 0) {
		/* the tensor crossed devices through a transfer not recorded */
		l.kind = TL_LINK_TRANSFER;
		l.src_port = -1;
	}
	g_array_append_val(links, l);
}

static gint cmp_by_end(gconstpointer a, gconstpointer b, gpointer data)
{
	const tl_run *run = data;
	const uint32_t *x = a, *y = b;
	int64_t ex = run->execs[x[0]].end, ey = run->execs[y[0]].end;
	if (ex != ey)
		return ex < ey ? -1 : 1;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* A loop's Merge execution forwards one input, whichever arrived first:
 * the Enter in the loop's first iteration, the NextIteration of the one
 * before later on. Each execution of those producers feeds one Merge
 * execution, so the tensors that arrived (by end, dead outputs left out)
 * are handed to the Merge's executions in order, each to the first that
 * started after it arrived. */
static void merge_links(const tl_run *run, uint32_t n, GArray *links)
{
	const tl_gnode *m = &run->nodes[n];
	GArray *cand = g_array_new(FALSE, FALSE, 2 * sizeof(uint32_t)); /* exec, edge */
	for (uint32_t e = run->in_first[n]; e < run->in_first[n + 1]; e++) {
		const tl_edge *ed = &run->edges[e];
		if (ed->kind != TL_EDGE_DATA)
			continue;
		const tl_gnode *p = &run->nodes[ed->src];
		for (uint32_t i = 0; i < p->n_exec; i++) {
			uint32_t c[2] = {run->node_execs[p->first_exec + i], e};
			if (live(run, c[0], ed->src_port))
				g_array_append_val(cand, c);
		}
	}
	g_array_sort_with_data(cand, cmp_by_end, (gpointer)run);
	/* as many arrivals as executions: the k-th took the k-th */
	bool by_count = cand->len == m->n_exec;
	guint next = 0;
	for (uint32_t k = 0; k < m->n_exec && next < cand->len; k++) {
		uint32_t dst = run->node_execs[m->first_exec + k];
		const uint32_t *c = &g_array_index(cand, uint32_t, 2 * next);
		if (!by_count && run->execs[c[0]].end > run->execs[dst].start)
			continue;
		next++;
		if (c[0] == dst)
			continue;
		const tl_edge *ed = &run->edges[c[1]];
		push(links, c[0], dst, ed->src_port, ed->dst_port, TL_LINK_DATA, false);
	}
	g_array_free(cand, TRUE);
}

/* A loop's Merge: one of its data inputs is a NextIteration. A Merge
 * without one is read like any op (every data input), which is what a
 * cond's Merge comes to, its dead branch leaving no stats. */
static bool is_loop_merge(const tl_run *run, uint32_t n)
{
	if (!is_merge_op(run->nodes[n].op))
		return false;
	for (uint32_t e = run->in_first[n]; e < run->in_first[n + 1]; e++)
		if (run->edges[e].kind == TL_EDGE_DATA &&
		    op_is(run->nodes[run->edges[e].src].op, "NextIteration", "RefNextIteration"))
			return true;
	return false;
}

static void graph_links(const tl_run *run, const tl_dataflow_opts *opts, GArray *links)
{
	flow f;
	flow_init(&f, run);
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *cons = &run->nodes[n];
		if (cons->n_exec == 0)
			continue;
		bool merge = is_loop_merge(run, n);
		bool merged = false;
		for (uint32_t e = run->in_first[n]; e < run->in_first[n + 1]; e++) {
			const tl_edge *edge = &run->edges[e];
			if (edge->kind == TL_EDGE_CONTROL && !opts->control)
				continue;
			if (merge && edge->kind == TL_EDGE_DATA) {
				if (!merged)
					merge_links(run, n, links);
				merged = true;
				continue;
			}
			tl_link_kind kind = edge->kind == TL_EDGE_DATA	    ? TL_LINK_DATA
					    : edge->kind == TL_EDGE_CONTROL ? TL_LINK_CONTROL
									    : TL_LINK_TRANSFER;
			for (uint32_t k = 0; k < cons->n_exec; k++) {
				uint32_t dst = run->node_execs[cons->first_exec + k];
				const tl_exec *d = &run->execs[dst];
				uint32_t it = f.slot_of[dst] >= 0 ? (uint32_t)f.slot_of[dst] : k;
				if (edge->kind == TL_EDGE_TRANSFER) {
					/* one rendezvous per iteration; the data is there by
					 * the _Recv's end */
					push_resolved(&f, links, edge, dst, (int32_t)it, d->end,
						      kind);
					continue;
				}
				int32_t j = pick_iter(&f, edge->src, it, f.n_iter[n], d->start,
						      edge->src_port);
				if (edge->kind == TL_EDGE_CONTROL) {
					int32_t src =
					    j >= 0 ? slot_exec(&f, edge->src, (uint32_t)j) : -1;
					if (src >= 0 && (uint32_t)src != dst)
						push(links, (uint32_t)src, dst, -1, -1, kind,
						     false);
					continue;
				}
				push_resolved(&f, links, edge, dst, j, d->start, kind);
			}
		}
	}
	flow_free(&f);
}

/* Without graphs: inputs named in labels, resolved to the latest execution
 * of that name on the same device that started before the consumer, else
 * on any executor device.
 *
 * The executions of a name, in execution order, fall into one segment per
 * device (a device's executions are contiguous and sorted by start), so
 * "the last one that started by t" is a binary search in a segment, and
 * "the last segment holding one" a descent in a tree of the segments'
 * earliest starts: O(log n) per input, not a scan of every execution of
 * the name (a loop's consumer run K times reading a node run K times was
 * K squared). */
struct named {
	GArray *execs;	 /* uint32_t, in execution order */
	GArray *seg;	 /* uint32_t: first position of each device's segment, and the end */
	int64_t *tree;	 /* per segment tree node: the earliest start below it */
	size_t n_leaves; /* segments, rounded up to a power of two */
};

static void named_free(gpointer p)
{
	struct named *nm = p;
	g_array_free(nm->execs, TRUE);
	if (nm->seg != NULL)
		g_array_free(nm->seg, TRUE);
	g_free(nm->tree);
	g_free(nm);
}

static uint32_t named_at(const struct named *nm, size_t k)
{
	return g_array_index(nm->execs, uint32_t, k);
}

/* Segments and the tree over their earliest starts (the first of each). */
static void named_index(const tl_run *run, struct named *nm)
{
	nm->seg = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (guint k = 0; k < nm->execs->len; k++)
		if (k == 0 ||
		    run->execs[named_at(nm, k)].device != run->execs[named_at(nm, k - 1)].device)
			g_array_append_val(nm->seg, k);
	size_t n_seg = nm->seg->len;
	g_array_append_val(nm->seg, nm->execs->len);
	nm->n_leaves = 1;
	while (nm->n_leaves < n_seg)
		nm->n_leaves *= 2;
	nm->tree = g_new(int64_t, 2 * nm->n_leaves);
	for (size_t j = 0; j < nm->n_leaves; j++)
		nm->tree[nm->n_leaves + j] =
		    j < n_seg ? run->execs[named_at(nm, g_array_index(nm->seg, uint32_t, j))].start
			      : INT64_MAX;
	for (size_t x = nm->n_leaves; x-- > 1;)
		nm->tree[x] = MIN(nm->tree[2 * x], nm->tree[2 * x + 1]);
}

/* The last execution of segment j that started by t and is not `self`, or
 * -1. */
static int32_t seg_last(const tl_run *run, const struct named *nm, size_t j, int64_t t,
			uint32_t self)
{
	uint32_t lo = g_array_index(nm->seg, uint32_t, j);
	uint32_t a = lo, b = g_array_index(nm->seg, uint32_t, j + 1);
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (run->execs[named_at(nm, mid)].start <= t)
			a = mid + 1;
		else
			b = mid;
	}
	/* a - 1 is the last that started by t; self appears once */
	if (a > lo && named_at(nm, a - 1) == self)
		a--;
	return a > lo ? (int32_t)named_at(nm, a - 1) : -1;
}

/* The last segment in [lo, hi) whose earliest start is by t, or -1: a
 * descent from tree node x covering segments [nlo, nhi). */
static int64_t seg_rightmost(const struct named *nm, size_t x, size_t nlo, size_t nhi, size_t lo,
			     size_t hi, int64_t t)
{
	if (nhi <= lo || hi <= nlo || nm->tree[x] > t)
		return -1;
	if (nhi - nlo == 1)
		return (int64_t)nlo;
	size_t mid = nlo + (nhi - nlo) / 2;
	int64_t r = seg_rightmost(nm, 2 * x + 1, mid, nhi, lo, hi, t);
	return r >= 0 ? r : seg_rightmost(nm, 2 * x, nlo, mid, lo, hi, t);
}

/* The segment of a device, or -1. */
static int64_t seg_of(const tl_run *run, const struct named *nm, uint32_t device)
{
	size_t a = 0, b = nm->seg->len - 1;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		uint32_t dev =
		    run->execs[named_at(nm, g_array_index(nm->seg, uint32_t, mid))].device;
		if (dev < device)
			a = mid + 1;
		else
			b = mid;
	}
	if (a < nm->seg->len - 1 &&
	    run->execs[named_at(nm, g_array_index(nm->seg, uint32_t, a))].device == device)
		return (int64_t)a;
	return -1;
}

/* The execution an input names: the last (in execution order) that started
 * by the consumer's start, on its device if one did, else on any. */
static int32_t named_source(const tl_run *run, const struct named *nm, uint32_t consumer)
{
	const tl_exec *e = &run->execs[consumer];
	size_t n_seg = nm->seg->len - 1;
	int64_t own = seg_of(run, nm, e->device);
	if (own >= 0) {
		int32_t best = seg_last(run, nm, (size_t)own, e->start, consumer);
		if (best >= 0)
			return best;
	}
	/* the last segment holding one; its own, now known to hold none but
	 * perhaps the consumer, is passed over */
	size_t hi = n_seg;
	while (hi > 0) {
		int64_t j = seg_rightmost(nm, 1, 0, nm->n_leaves, 0, hi, e->start);
		if (j < 0)
			return -1;
		if (j != own)
			return seg_last(run, nm, (size_t)j, e->start, consumer);
		hi = (size_t)j;
	}
	return -1;
}

static void label_links(const tl_run *run, const tl_dataflow_opts *opts, GArray *links)
{
	/* node -> struct named */
	GHashTable *by_name = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, named_free);
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		struct named *nm = g_hash_table_lookup(by_name, e->node);
		if (nm == NULL) {
			nm = g_new0(struct named, 1);
			nm->execs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_hash_table_insert(by_name, (gpointer)e->node, nm);
		}
		g_array_append_val(nm->execs, i);
	}
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		const char **inputs = NULL;
		size_t n_in = 0;
		if (!tl_run_op_label_parse(run->arena, e->ns->timeline_label, NULL, NULL, &inputs,
					   &n_in))
			continue;
		int32_t data_pos = 0;
		for (size_t k = 0; k < n_in; k++) {
			const char *in = inputs[k];
			bool control = in[0] == '^';
			const char *nm = control ? in + 1 : in;
			int32_t port = 0;
			char *base = g_strdup(nm);
			char *colon = strrchr(base, ':');
			if (colon != NULL && colon[1] != '\0' &&
			    strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
				port = (int32_t)g_ascii_strtoll(colon + 1, NULL, 10);
				*colon = '\0';
			}
			struct named *list = g_hash_table_lookup(by_name, base);
			g_free(base);
			if (!control)
				data_pos++;
			if (list == NULL || (control && !opts->control))
				continue;
			if (list->seg == NULL)
				named_index(run, list);
			int32_t best = named_source(run, list, i);
			if (best < 0)
				continue;
			push(links, (uint32_t)best, i, control ? -1 : port,
			     control ? -1 : data_pos - 1, control ? TL_LINK_CONTROL : TL_LINK_DATA,
			     true);
		}
	}
	g_hash_table_destroy(by_name);
	if (run->n_execs > 0)
		tl_warn_about("no-graphs", run->label,
			      "no partition graphs in '%s': producer-consumer edges are "
			      "guessed from timeline labels",
			      run->label);
}

void tl_dataflow_links(const tl_run *run, const tl_dataflow_opts *opts, GArray *links)
{
	if (run->has_graphs)
		graph_links(run, opts, links);
	else if (!run->no_dataflow)
		label_links(run, opts, links);
	else if (run->n_execs > 0)
		tl_warn_about("no-dataflow", run->label,
			      "'%s' is %s, which records no dataflow: "
			      "the timeline and launch arrows only",
			      run->label,
			      run->input_kind != NULL ? run->input_kind
						      : "a TF2/JAX profile (XSpace)");
	if (!opts->launches)
		return;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (e->launcher >= 0 && run->devices[e->device].kind != TL_DEV_STREAM_ALL)
			push(links, (uint32_t)e->launcher, i, -1, -1, TL_LINK_LAUNCH, false);
	}
}
