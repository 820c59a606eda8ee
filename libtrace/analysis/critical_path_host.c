/* The critical path of a run without dataflow, by the rules of Holistic
 * Trace Analysis (analysis/critical_path.h): a graph of start and end
 * instants of host events and kernels, and its longest path.
 *
 * Where it departs from HTA (hta/analyzers/critical_path_analysis.py), and
 * why:
 *   - launch or kernel-kernel edge: HTA reads queue lengths (no kernel
 *     outstanding on the stream at the call); here, the previous kernel on
 *     the stream ended before the call started: the same thing, from the
 *     stream itself;
 *   - device synchronize: HTA needs Kineto's Context Sync event; here the
 *     call's name (cudaDeviceSynchronize, hipDeviceSynchronize,
 *     cuCtxSynchronize) and its end, so older Kineto, HIP and XSpace runs
 *     get it too; stream and event synchronizes and stream waits need the
 *     cuda_sync events (their args name the stream and the record), as in
 *     HTA, and a run without them is told so;
 *   - kernels with no recorded launch (an XSpace without correlation ids):
 *     HTA leaves them out; here those that start in the window stay, with
 *     their stream's order;
 *   - a host event that starts inside another and ends after it is its
 *     sibling, not its child; an edge that runs back in time weighs 0, with
 *     a warning (HTA: -1 us is let pass, worse fails the analysis);
 *     instants on a cycle (clock skew) are left out with a warning (HTA
 *     fails);
 *   - ties: HTA takes networkx's first best predecessor (in the order the
 *     edges were added); here the later instant, then the later node; the
 *     end is, as in networkx, the first of the longest in topological order
 *     (Kahn's here), so a zero-weight sync out of the end is left off;
 *   - an edge HTA attributes to an event off the path (a parent whose
 *     start and end the path skips) counts for the event it enters;
 *   - the annotation window: executions whose name holds the text, by
 *     start (HTA: the symbols that hold it, in its frame's order);
 *   - Kineto's user_annotation and python_function slices are left out by
 *     their cat, as HTA's; inputs without cats (TF2, XSpace) give every
 *     host slice. */
#include "analysis/critical_path_internal.h"

#include "base/group.h"
#include "base/warn.h"
#include "io/format.h"
#include "io/links.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#define NONE UINT32_MAX

enum {
	E_OP = TL_PATH_EDGE_OP,
	E_DEP = TL_PATH_EDGE_DEP,
	E_LAUNCH = TL_PATH_EDGE_LAUNCH,
	E_KERNEL = TL_PATH_EDGE_KERNEL,
	E_SYNC = TL_PATH_EDGE_SYNC
};

typedef struct cedge {
	uint32_t src, dst; /* nodes: 2k is event k's start, 2k + 1 its end */
	int64_t w;
	uint32_t attr; /* E_OP: the event HTA attributes it to */
	uint8_t type;
} cedge;

typedef struct graph {
	const tl_run *run;
	GArray *ev;	 /* uint32_t: the executions in the graph */
	uint32_t *ev_of; /* per execution: its event, or NONE */
	GArray *edges;	 /* cedge */
	size_t negative; /* edges that ran back in time, weighed 0 */
	/* the graph's kernels by stream device, in start order: those of
	 * device d are kern[kfirst[d] .. kfirst[d] + kn[d]) */
	GArray *kern;
	uint32_t *kfirst, *kn;
	uint32_t *ksync; /* per event: the kernel a stream wait makes it wait for */
	/* cuda_sync: each record's execution; per stream device, its
	 * executions by their launch's start (made when asked) */
	uint32_t *exec_of_rec;
	size_t n_recs;
	GPtrArray *by_launch;
	GHashTable *dev_by_name;
} graph;

const char *tl_critical_path_name(const tl_run *run, uint32_t e)
{
	if (run->events != NULL)
		return run->events[run->rec[e]].name;
	return run->execs[e].node != NULL ? run->execs[e].node : "";
}

gint tl_critical_path_cmp_start(gconstpointer a, gconstpointer b, gpointer data)
{
	const tl_run *run = data;
	const tl_exec *x = &run->execs[*(const uint32_t *)a],
		      *y = &run->execs[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

/* Calls that wait for the device: their own span weighs 0 (HTA's
 * BLOCKING_SYNC_CALLS, with their HIP and driver twins). */
static const char *const blocking[] = {"cudaDeviceSynchronize",
				       "cudaStreamSynchronize",
				       "cudaEventQuery",
				       "cudaEventSynchronize",
				       "cudaMemcpy",
				       "cudaMemcpyAsync",
				       "hipDeviceSynchronize",
				       "hipStreamSynchronize",
				       "hipEventQuery",
				       "hipEventSynchronize",
				       "hipMemcpy",
				       "hipMemcpyAsync",
				       "cuCtxSynchronize",
				       "cuStreamSynchronize",
				       "cuEventSynchronize",
				       NULL};
/* Calls that wait for every stream. */
static const char *const device_sync[] = {"cudaDeviceSynchronize", "hipDeviceSynchronize",
					  "cuCtxSynchronize", NULL};

static uint32_t ev_exec(const graph *g, uint32_t k)
{
	return g_array_index(g->ev, uint32_t, k);
}

static int64_t node_ts(const graph *g, uint32_t node)
{
	const tl_exec *e = &g->run->execs[ev_exec(g, node / 2)];
	return node & 1 ? e->end : e->start;
}

static void add_edge(graph *g, uint32_t src, uint32_t dst, uint8_t type, bool zero, uint32_t attr)
{
	int64_t w = 0;
	if (!zero && type != E_DEP && type != E_SYNC) {
		w = node_ts(g, dst) - node_ts(g, src);
		if (w < 0) {
			g->negative++;
			w = 0;
		}
	}
	cedge e = {.src = src, .dst = dst, .w = w, .attr = attr, .type = type};
	g_array_append_val(g->edges, e);
}

static bool is_host_device(const tl_device *d)
{
	return (d->kind == TL_DEV_EXECUTOR || d->kind == TL_DEV_OTHER) &&
	       strstr(d->name, "GPU") == NULL && strstr(d->name, "TPU") == NULL;
}

static bool is_device_device(const tl_device *d)
{
	return d->kind == TL_DEV_STREAM || d->kind == TL_DEV_MEMCPY;
}

/* Host events HTA reads: ops and runtime calls where the input says which
 * slices are (a Kineto trace's cats), else every host slice; never a
 * zero-length one. */
static void pick_host(graph *g, int64_t wb, int64_t we)
{
	const tl_run *run = g->run;
	bool flagged = false;
	for (uint32_t i = 0; run->events != NULL && i < run->n_execs && !flagged; i++)
		flagged = (run->events[run->rec[i]].kind & (TL_SLICE_OP | TL_SLICE_RUNTIME)) != 0;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (!is_host_device(&run->devices[e->device]) || e->end <= e->start ||
		    e->start < wb || e->start > we)
			continue;
		if (run->events != NULL) {
			uint8_t k = run->events[run->rec[i]].kind;
			if ((k & TL_SLICE_KIND) != TL_SLICE_HOST ||
			    (flagged && !(k & (TL_SLICE_OP | TL_SLICE_RUNTIME))))
				continue;
		}
		g->ev_of[i] = g->ev->len;
		g_array_append_val(g->ev, i);
	}
}

/* Kernels, copies and memsets whose launch call is in the graph; those
 * with no launch recorded, where they start in the window. */
static void pick_device(graph *g, int64_t wb, int64_t we)
{
	const tl_run *run = g->run;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (!is_device_device(&run->devices[e->device]))
			continue;
		if (e->launcher >= 0 ? g->ev_of[e->launcher] == NONE
				     : e->start < wb || e->start > we)
			continue;
		g->ev_of[i] = g->ev->len;
		g_array_append_val(g->ev, i);
	}
}

/* Host events by thread, then by start, outer first. */
static gint cmp_thread(gconstpointer a, gconstpointer b, gpointer data)
{
	const tl_run *run = data;
	const tl_exec *x = &run->execs[*(const uint32_t *)a],
		      *y = &run->execs[*(const uint32_t *)b];
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* host (executions in the run's order: a device's by start, then by the
 * dump's order) into cmp_thread's order without comparing them all: each
 * (device, thread) keeps its events' order, the pairs sorted; then a run
 * of one start, outer first (the longest), sorted alone. */
static void order_by_thread(const tl_run *run, GArray *host)
{
	size_t n = host->len;
	if (n < 2)
		return;
	uint32_t *ev = (uint32_t *)(void *)host->data;
	GHashTable *group = g_hash_table_new(g_int64_hash, g_int64_equal);
	GArray *pairs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	uint64_t *key = g_new(uint64_t, n + 1);
	for (size_t i = 0; i < n; i++) {
		const tl_exec *e = &run->execs[ev[i]];
		key[i] = (uint64_t)e->device << 32 | e->thread;
		if (!g_hash_table_contains(group, &key[i])) {
			g_hash_table_add(group, &key[i]);
			g_array_append_val(pairs, key[i]);
		}
	}
	qsort(pairs->data, pairs->len, sizeof(uint64_t), cmp_pair);
	size_t *at = g_new0(size_t, pairs->len + 1);
	for (guint p = 0; p < pairs->len; p++)
		g_hash_table_insert(group, &g_array_index(pairs, uint64_t, p), GSIZE_TO_POINTER(p));
	uint32_t *rank = g_new(uint32_t, n + 1);
	for (size_t i = 0; i < n; i++) {
		rank[i] = GPOINTER_TO_UINT(g_hash_table_lookup(group, &key[i]));
		at[rank[i] + 1]++;
	}
	for (guint p = 1; p < pairs->len; p++)
		at[p] += at[p - 1];
	uint32_t *out = g_new(uint32_t, n + 1);
	for (size_t i = 0; i < n; i++)
		out[at[rank[i]]++] = ev[i];
	memcpy(ev, out, n * sizeof *ev);
	for (size_t i = 0, j; i < n; i = j) {
		const tl_exec *e = &run->execs[ev[i]];
		for (j = i + 1; j < n; j++) {
			const tl_exec *f = &run->execs[ev[j]];
			if (f->device != e->device || f->thread != e->thread || f->start != e->start)
				break;
		}
		if (j - i > 1)
			g_qsort_with_data(ev + i, (gint)(j - i), sizeof *ev, cmp_thread,
					  (gpointer)run);
	}
	g_free(out);
	g_free(rank);
	g_free(at);
	g_free(key);
	g_array_free(pairs, TRUE);
	g_hash_table_destroy(group);
}

/* One host thread's call stacks, as HTA walks them. */
typedef struct walk {
	uint32_t last;	   /* the last node met, NONE at top level */
	uint32_t last_top; /* the end of the last top-level event */
	GArray *stack;	   /* uint32_t events open */
} walk;

static void enter(graph *g, walk *w, uint32_t k)
{
	if (w->stack->len == 0 && w->last_top != NONE)
		add_edge(g, w->last_top, 2 * k, E_DEP, true, NONE);
	if (w->last != NONE) {
		/* from a start: its event's; from an end (a sibling's): the parent's */
		uint32_t attr = (w->last & 1) == 0
				    ? w->last / 2
				    : g_array_index(w->stack, uint32_t, w->stack->len - 1);
		add_edge(g, w->last, 2 * k, E_OP, false, attr);
	}
	w->last = 2 * k;
	g_array_append_val(w->stack, k);
}

static void leave(graph *g, walk *w)
{
	uint32_t k = g_array_index(w->stack, uint32_t, w->stack->len - 1);
	g_array_set_size(w->stack, w->stack->len - 1);
	if (w->last != NONE) {
		bool zero = name_in(tl_critical_path_name(g->run, ev_exec(g, k)), blocking);
		add_edge(g, w->last, 2 * k + 1, E_OP, zero, (w->last & 1) == 0 ? w->last / 2 : k);
	}
	if (w->stack->len == 0) {
		w->last = NONE;
		w->last_top = 2 * k + 1;
	} else {
		w->last = 2 * k + 1;
	}
}

static void host_edges(graph *g)
{
	const tl_run *run = g->run;
	GArray *host = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (uint32_t k = 0; k < g->ev->len; k++)
		if (is_host_device(&run->devices[run->execs[ev_exec(g, k)].device]))
			g_array_append_val(host, g_array_index(g->ev, uint32_t, k));
	order_by_thread(run, host);
	walk w = {
	    .last = NONE, .last_top = NONE, .stack = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
	for (guint i = 0; i < host->len; i++) {
		const tl_exec *e = &run->execs[g_array_index(host, uint32_t, i)];
		if (i > 0) {
			const tl_exec *p = &run->execs[g_array_index(host, uint32_t, i - 1)];
			if (p->device != e->device || p->thread != e->thread) {
				while (w.stack->len > 0)
					leave(g, &w);
				w.last = w.last_top = NONE;
			}
		}
		/* close what ends before it starts, or ends before it ends (a
		 * partial overlap is a sibling, not a child) */
		while (w.stack->len > 0) {
			const tl_exec *top = &run->execs[ev_exec(
			    g, g_array_index(w.stack, uint32_t, w.stack->len - 1))];
			if (top->end > e->start && top->end >= e->end)
				break;
			leave(g, &w);
		}
		enter(g, &w, g->ev_of[g_array_index(host, uint32_t, i)]);
	}
	while (w.stack->len > 0)
		leave(g, &w);
	g_array_free(w.stack, TRUE);
	g_array_free(host, TRUE);
}

/* Kernels on their streams, in start order: each one's span, and the edge
 * that let it start: its launch when the stream was idle at the call (and
 * a stream wait's kernel, if any, ended before it), else the previous
 * kernel's end (where that ended after the awaited kernel). */
static void device_edges(graph *g)
{
	const tl_run *run = g->run;
	for (size_t d = 0; d < run->n_devices; d++) {
		const tl_device *dev = &run->devices[d];
		g->kfirst[d] = g->kern->len;
		if (!is_device_device(dev))
			continue;
		uint32_t prev = NONE;
		for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++) {
			uint32_t k = g->ev_of[i];
			if (k == NONE)
				continue;
			const tl_exec *e = &run->execs[i];
			add_edge(g, 2 * k, 2 * k + 1, E_OP, false, k);
			uint32_t l = e->launcher >= 0 ? g->ev_of[e->launcher] : NONE;
			int64_t prev_end = prev != NONE ? run->execs[ev_exec(g, prev)].end : 0;
			uint32_t ks = g->ksync[k];
			int64_t ks_end = ks != NONE ? run->execs[ev_exec(g, ks)].end : 0;
			if (l != NONE) {
				int64_t call = run->execs[e->launcher].start;
				if ((prev == NONE || prev_end < call) &&
				    (ks == NONE || ks_end < call)) {
					add_edge(g, 2 * l, 2 * k, E_LAUNCH, false, k);
					l = NONE - 1; /* done */
				}
			}
			if (l != NONE - 1 && prev != NONE && (ks == NONE || ks_end < prev_end))
				add_edge(g, 2 * prev + 1, 2 * k, E_KERNEL, false, k);
			prev = k;
			g_array_append_val(g->kern, k);
		}
		g->kn[d] = g->kern->len - g->kfirst[d];
	}
}

/* The last of the graph's kernels on stream device d to start before t,
 * or NONE. */
static uint32_t last_before(const graph *g, uint32_t d, int64_t t)
{
	const uint32_t *ks = (const uint32_t *)(void *)g->kern->data + g->kfirst[d];
	uint32_t lo = 0, hi = g->kn[d];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->run->execs[ev_exec(g, ks[mid])].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? ks[lo - 1] : NONE;
}

/* A device synchronize's end waits for the last kernel to start before it
 * on every stream. */
static void device_syncs(graph *g)
{
	const tl_run *run = g->run;
	uint32_t n_ev = g->ev->len;
	for (uint32_t k = 0; k < n_ev; k++) {
		uint32_t x = ev_exec(g, k);
		if (is_device_device(&run->devices[run->execs[x].device]) ||
		    !name_in(tl_critical_path_name(run, x), device_sync))
			continue;
		for (uint32_t d = 0; d < run->n_devices; d++) {
			uint32_t j = g->kn[d] > 0 ? last_before(g, d, run->execs[x].end) : NONE;
			if (j != NONE)
				add_edge(g, 2 * j + 1, 2 * k + 1, E_SYNC, true, NONE);
		}
	}
}

/* ---- Kineto's cuda_sync events ---------------------------------------- */

/* The execution of record place r, or NONE. */
static uint32_t exec_at(const graph *g, uint32_t r)
{
	return r < g->n_recs ? g->exec_of_rec[r] : NONE;
}

/* The stream device `stream` of the GPU a cuda_sync execution is on, or
 * NONE. */
static uint32_t stream_device(graph *g, uint32_t sync_exec, int64_t stream)
{
	if (stream < 0)
		return NONE;
	const tl_run *run = g->run;
	char *name = g_strdup_printf("%s/stream:%" PRId64,
				     run->devices[run->execs[sync_exec].device].name, stream);
	gpointer d = g_hash_table_lookup(g->dev_by_name, name);
	g_free(name);
	return d != NULL ? (uint32_t)GPOINTER_TO_SIZE(d) - 1 : NONE;
}

static gint cmp_launch(gconstpointer a, gconstpointer b, gpointer data)
{
	const tl_run *run = data;
	const tl_exec *x = &run->execs[run->execs[*(const uint32_t *)a].launcher];
	const tl_exec *y = &run->execs[run->execs[*(const uint32_t *)b].launcher];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Stream device d's launched executions by their launch's start. */
static const GArray *launches(graph *g, uint32_t d)
{
	GArray *a = g_ptr_array_index(g->by_launch, d);
	if (a != NULL)
		return a;
	const tl_device *dev = &g->run->devices[d];
	a = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (uint32_t i = dev->first_exec; i < dev->first_exec + dev->n_exec; i++)
		if (g->run->execs[i].launcher >= 0)
			g_array_append_val(a, i);
	g_array_sort_with_data(a, cmp_launch, (gpointer)g->run);
	g_ptr_array_index(g->by_launch, d) = a;
	return a;
}

/* The first of d's launches whose call starts at or after t. */
static guint launch_at(graph *g, uint32_t d, int64_t t)
{
	const GArray *a = launches(g, d);
	guint lo = 0, hi = a->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		uint32_t x = g_array_index(a, uint32_t, mid);
		if (g->run->execs[g->run->execs[x].launcher].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kernel an event wait waits for: the last launched onto the
 * recorded stream before the cudaEventRecord call (as HTA), as an event
 * of the graph, or NONE. */
static uint32_t recorded_kernel(graph *g, const tl_sync_rec *s, uint32_t sync_exec)
{
	uint32_t rec = exec_at(g, s->record);
	uint32_t d = stream_device(g, sync_exec, s->wait_stream);
	if (rec == NONE || d == NONE)
		return NONE;
	guint i = launch_at(g, d, g->run->execs[rec].start);
	return i > 0 ? g->ev_of[g_array_index(launches(g, d), uint32_t, i - 1)] : NONE;
}

/* Stream waits (cudaStreamWaitEvent): the next kernel the calling thread
 * launches onto the waiting stream waits for the recorded kernel. */
static void stream_waits(graph *g)
{
	const tl_run *run = g->run;
	for (size_t i = 0; i < run->n_syncs; i++) {
		const tl_sync_rec *s = &run->syncs[i];
		uint32_t x = exec_at(g, s->rec), call = exec_at(g, s->call);
		if (s->kind != TL_SYNC_WAIT || x == NONE || call == NONE)
			continue;
		uint32_t src = recorded_kernel(g, s, x);
		uint32_t d = stream_device(g, x, s->stream);
		if (src == NONE || d == NONE)
			continue;
		const GArray *a = launches(g, d);
		const tl_exec *c = &run->execs[call];
		uint32_t dst = NONE;
		for (guint j = launch_at(g, d, c->start + 1); j < a->len && dst == NONE; j++) {
			const tl_exec *l =
			    &run->execs[run->execs[g_array_index(a, uint32_t, j)].launcher];
			if (l->device == c->device && l->thread == c->thread)
				dst = g->ev_of[g_array_index(a, uint32_t, j)];
		}
		if (dst == NONE ||
		    run->execs[ev_exec(g, dst)].device == run->execs[ev_exec(g, src)].device)
			continue;
		add_edge(g, 2 * src + 1, 2 * dst, E_SYNC, true, NONE);
		g->ksync[dst] = src;
	}
}

/* Stream synchronizes: the call's end waits for the last kernel to start
 * on the stream before the sync event's end; event synchronizes: for the
 * recorded kernel. */
static void stream_event_syncs(graph *g)
{
	const tl_run *run = g->run;
	for (size_t i = 0; i < run->n_syncs; i++) {
		const tl_sync_rec *s = &run->syncs[i];
		uint32_t x = exec_at(g, s->rec), call = exec_at(g, s->call);
		uint32_t k = call != NONE ? g->ev_of[call] : NONE;
		if (x == NONE || k == NONE)
			continue;
		uint32_t src = NONE;
		if (s->kind == TL_SYNC_STREAM) {
			uint32_t d = stream_device(g, x, s->stream);
			src =
			    d != NONE && g->kn[d] > 0 ? last_before(g, d, run->execs[x].end) : NONE;
		} else if (s->kind == TL_SYNC_EVENT) {
			src = recorded_kernel(g, s, x);
		}
		if (src != NONE)
			add_edge(g, 2 * src + 1, 2 * k + 1, E_SYNC, true, NONE);
	}
}

/* Each record place's execution (cuda_sync events name records). */
static void index_records(graph *g)
{
	const tl_run *run = g->run;
	if (run->n_syncs == 0 || run->rec == NULL)
		return;
	size_t n = 0;
	for (size_t e = 0; e < run->n_execs; e++)
		n = MAX(n, (size_t)run->rec[e] + 1);
	g->n_recs = n;
	g->exec_of_rec = g_new(uint32_t, n + 1);
	for (size_t r = 0; r < n; r++)
		g->exec_of_rec[r] = NONE;
	for (uint32_t e = 0; e < run->n_execs; e++)
		g->exec_of_rec[run->rec[e]] = e;
	g->by_launch = g_ptr_array_new_full((guint)run->n_devices, NULL);
	g_ptr_array_set_size(g->by_launch, (gint)run->n_devices);
	g->dev_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t d = 0; d < run->n_devices; d++)
		if (is_device_device(&run->devices[d]))
			g_hash_table_insert(g->dev_by_name, (gpointer)run->devices[d].name,
					    GSIZE_TO_POINTER(d + 1));
}

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Whether reaching a node from node u with length d beats its best so far
 * (length best from node p): longer, else from the later instant, else
 * from the later node, as networkx's dag_longest_path breaks ties. */
static bool better(const graph *g, int64_t d, uint32_t u, int64_t best, uint32_t p)
{
	if (d != best)
		return d > best;
	int64_t tu = node_ts(g, u), tp = node_ts(g, p);
	if (tu != tp)
		return tu > tp;
	return u > p;
}

/* The longest path (Kahn's order): its edges, first first, into path. */
static void longest(graph *g, GArray *path)
{
	uint32_t n = 2 * g->ev->len;
	const cedge *es = (const cedge *)(void *)g->edges->data;
	uint32_t ne = g->edges->len;
	uint32_t *src = g_new(uint32_t, ne + 1);
	uint32_t *indeg = g_new0(uint32_t, n + 1);
	for (uint32_t i = 0; i < ne; i++) {
		src[i] = es[i].src;
		indeg[es[i].dst]++;
	}
	tl_group out;
	tl_group_by(&out, src, ne, n);
	g_free(src);
	int64_t *dist = g_new0(int64_t, n + 1);
	uint32_t *pred = g_new(uint32_t, n + 1); /* the edge into it on its path */
	uint32_t *queue = g_new(uint32_t, n + 1);
	uint32_t head = 0, tail = 0;
	for (uint32_t v = 0; v < n; v++) {
		pred[v] = NONE;
		if (indeg[v] == 0)
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t j = out.first[u]; j < out.first[u + 1]; j++) {
			const cedge *e = &es[out.members[j]];
			int64_t d = sat_add(dist[u], e->w);
			if (pred[e->dst] == NONE ||
			    better(g, d, u, dist[e->dst], es[pred[e->dst]].src)) {
				dist[e->dst] = d;
				pred[e->dst] = out.members[j];
			}
			if (--indeg[e->dst] == 0)
				queue[tail++] = e->dst;
		}
	}
	if (tail < n)
		tl_warn("critical-path-cycle",
			"'%s': %u instants of the critical path graph lie on cycles (clock "
			"skew between host and device): they are left out",
			g->run->label, n - tail);
	/* the end: the longest, the first in topological order where several
	 * are (as networkx's: a zero-weight edge out of the end, a sync, is
	 * left off) */
	uint32_t end = NONE;
	for (uint32_t i = 0; i < tail; i++)
		if (end == NONE || dist[queue[i]] > dist[end])
			end = queue[i];
	for (uint32_t v = end; v != NONE && pred[v] != NONE; v = es[pred[v]].src)
		g_array_append_val(path, pred[v]);
	/* an end with no edge in: a path of one instant */
	if (path->len == 0 && end != NONE) {
		cedge self = {.src = end, .dst = end, .type = E_DEP, .attr = NONE};
		g_array_append_val(g->edges, self);
		uint32_t i = g->edges->len - 1;
		g_array_append_val(path, i);
	}
	for (guint i = 0; i < path->len / 2; i++) {
		uint32_t t = g_array_index(path, uint32_t, i);
		g_array_index(path, uint32_t, i) = g_array_index(path, uint32_t, path->len - 1 - i);
		g_array_index(path, uint32_t, path->len - 1 - i) = t;
	}
	tl_group_free(&out);
	g_free(indeg);
	g_free(dist);
	g_free(pred);
	g_free(queue);
}

/* The path's events in the order it meets them, each with the weights of
 * the path's edges attributed to it (to the event it enters where HTA's
 * attribution names one off the path) and the launch or kernel-kernel
 * delay into it. */
static void path_steps(graph *g, const GArray *path, tl_path *out)
{
	const cedge *es = (const cedge *)(void *)g->edges->data;
	uint32_t *step_of = g_new(uint32_t, g->ev->len + 1);
	for (uint32_t k = 0; k < g->ev->len; k++)
		step_of[k] = NONE;
	GArray *steps = g_array_new(FALSE, TRUE, sizeof(tl_path_step));
	bool one = path->len == 1 && es[g_array_index(path, uint32_t, 0)].src ==
					 es[g_array_index(path, uint32_t, 0)].dst;
	for (guint i = 0; i < path->len; i++) {
		const cedge *e = &es[g_array_index(path, uint32_t, i)];
		uint32_t nodes[2] = {e->src, e->dst};
		for (int j = i == 0 ? 0 : 1; j < 2; j++) {
			uint32_t k = nodes[j] / 2;
			if (step_of[k] != NONE)
				continue;
			step_of[k] = steps->len;
			tl_path_step st = {.exec = ev_exec(g, k)};
			g_array_append_val(steps, st);
		}
		uint32_t to = step_of[e->dst / 2];
		tl_path_step *s = (tl_path_step *)(void *)steps->data;
		if (e->type == E_OP)
			s[e->attr != NONE && step_of[e->attr] != NONE ? step_of[e->attr] : to]
			    .gated_ns += e->w;
		else if (e->type == E_LAUNCH || e->type == E_KERNEL)
			s[to].wait_ns += e->w;
		out->n_launch += e->type == E_LAUNCH;
		out->n_kernel += e->type == E_KERNEL;
		out->n_sync += e->type == E_SYNC;
	}
	out->n_edges = one ? 0 : path->len;
	out->n_nodes = one ? 1 : path->len + 1;
	if (path->len > 0) {
		out->begin = node_ts(g, es[g_array_index(path, uint32_t, 0)].src);
		out->end = node_ts(g, es[g_array_index(path, uint32_t, path->len - 1)].dst);
	}
	out->n = steps->len;
	out->steps = (tl_path_step *)(void *)g_array_free(steps, FALSE);
	g_free(step_of);
}

/* HTA's graph of the window's events. */
static void build(graph *g, const tl_run *run, int64_t wb, int64_t we)
{
	*g = (graph){.run = run,
		     .ev = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
		     .ev_of = g_new(uint32_t, run->n_execs + 1),
		     .edges = g_array_new(FALSE, FALSE, sizeof(cedge))};
	for (size_t i = 0; i < run->n_execs; i++)
		g->ev_of[i] = NONE;
	pick_host(g, wb, we);
	pick_device(g, wb, we);
	host_edges(g);
	g->kern = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g->kfirst = g_new0(uint32_t, run->n_devices + 1);
	g->kn = g_new0(uint32_t, run->n_devices + 1);
	g->ksync = g_new(uint32_t, g->ev->len + 1);
	for (uint32_t k = 0; k < g->ev->len; k++)
		g->ksync[k] = NONE;
	index_records(g);
	if (g->exec_of_rec != NULL)
		stream_waits(g);
	device_edges(g);
	device_syncs(g);
	if (g->exec_of_rec != NULL)
		stream_event_syncs(g);
}

static void graph_free(graph *g)
{
	g_array_free(g->ev, TRUE);
	g_array_free(g->edges, TRUE);
	g_free(g->ev_of);
	g_array_free(g->kern, TRUE);
	g_free(g->kfirst);
	g_free(g->kn);
	g_free(g->ksync);
	g_free(g->exec_of_rec);
	if (g->by_launch != NULL) {
		for (guint d = 0; d < g->by_launch->len; d++)
			if (g_ptr_array_index(g->by_launch, d) != NULL)
				g_array_free(g_ptr_array_index(g->by_launch, d), TRUE);
		g_ptr_array_free(g->by_launch, TRUE);
	}
	if (g->dev_by_name != NULL)
		g_hash_table_destroy(g->dev_by_name);
}

GArray *tl_critical_path_host_edges(const tl_run *run, int64_t wb, int64_t we)
{
	graph g;
	build(&g, run, wb, we);
	GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(tl_path_edge), g.edges->len);
	for (guint i = 0; i < g.edges->len; i++) {
		const cedge *e = &g_array_index(g.edges, cedge, i);
		tl_path_edge x = {.src = ev_exec(&g, e->src / 2),
				  .dst = ev_exec(&g, e->dst / 2),
				  .src_end = e->src & 1,
				  .dst_end = e->dst & 1,
				  .w = e->w,
				  .type = e->type};
		g_array_append_val(out, x);
	}
	graph_free(&g);
	return out;
}

void tl_critical_path_host(const tl_run *run, int64_t wb, int64_t we, tl_path *out)
{
	out->rules = TL_PATH_HOST;
	bool kineto =
	    run->input_kind != NULL && strcmp(run->input_kind, TL_FORMAT_KINETO_KIND) == 0;
	if (run->n_execs > 0 && run->n_syncs > 0)
		tl_warn("critical-path-rules",
			"'%s' is %s, which records no dataflow: its critical path follows "
			"HTA's rules (host threads' nesting, launches, kernel order on each "
			"stream, device synchronizes by name; stream and event synchronizes "
			"and stream waits by its cuda_sync events)",
			run->label, run->input_kind != NULL ? run->input_kind : "a profile");
	else if (run->n_execs > 0 && kineto)
		tl_warn("critical-path-rules",
			"'%s' is %s, which records no dataflow: its critical path follows "
			"HTA's rules (host threads' nesting, launches, kernel order on each "
			"stream, device synchronizes by name); it has no cuda_sync events "
			"(PyTorch 2.1 on), so stream and event synchronizes and stream waits "
			"are not drawn",
			run->label, run->input_kind);
	else if (run->n_execs > 0)
		tl_warn("critical-path-rules",
			"'%s' is %s, which records no dataflow: its critical path follows "
			"HTA's rules (host threads' nesting, launches, kernel order on each "
			"stream, device synchronizes by name); what a stream or event "
			"synchronize waited for is not recorded (only PyTorch's cuda_sync "
			"events say), so those waits are not drawn",
			run->label, run->input_kind != NULL ? run->input_kind : "a profile");
	graph g;
	build(&g, run, wb, we);
	if (g.negative > 0)
		tl_warn("critical-path-negative",
			"'%s': %zu edges of the critical path graph run back in time (a child "
			"outliving its parent, a kernel starting before its launch): they "
			"weigh 0",
			run->label, g.negative);
	GArray *path = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	if (g.ev->len > 0)
		longest(&g, path);
	path_steps(&g, path, out);
	g_array_free(path, TRUE);
	graph_free(&g);
}
