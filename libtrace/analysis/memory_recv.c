/*
 * memory_recv: the buffers of _Recv nodes that ran but left no stats (old
 * TensorFlow, or just missing): their size from the tensor their _Send
 * read, their death from their consumers, their birth left to
 * memory_birth.c.
 */
#include "analysis/memory_internal.h"
#include "base/group.h"

#include <glib.h>
#include <string.h>

static int cmp_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : (x > y);
}

static bool is_recv_op(const char *op)
{
	return strcmp(op, "_Recv") == 0 || strcmp(op, "_HostRecv") == 0;
}

/* The buffer a node's output `port` had in its last execution, or -1. */
static int32_t last_buffer_of(struct memory_builder *b, uint32_t node, int32_t port)
{
	const tl_gnode *g = &b->run->nodes[node];
	for (uint32_t i = g->n_exec; i-- > 0;) {
		int32_t r = find_ref(b, (int32_t)b->run->node_execs[g->first_exec + i], port);
		if (r >= 0)
			return (int32_t)g_array_index(b->refs, struct ref, r).buffer;
	}
	return -1;
}

/* Edges by source node: out_edges[out_first[n] .. out_first[n + 1]) are
 * the indices of the edges leaving node n (run->edges is sorted by
 * destination). */
static void index_out_edges(const tl_run *run, uint32_t **first_out, uint32_t **edges_out)
{
	uint32_t *src = g_new(uint32_t, run->n_edges ? run->n_edges : 1);
	for (size_t k = 0; k < run->n_edges; k++)
		src[k] = run->edges[k].src;
	tl_group g;
	tl_group_by(&g, src, run->n_edges, (uint32_t)run->n_nodes);
	g_free(src);
	*first_out = g.first;
	*edges_out = g.members;
}

/* Per device, the allocator most of its outputs went to (ties: the first
 * name) and the first allocator name with "host" in it. */
struct dev_alloc {
	const char *best;
	guint best_n;
	const char *hostly;
	GHashTable *count; /* allocator -> its outputs (a guint of its own) */
	const char *last;  /* the allocator of the last output counted ... */
	guint *last_n;	   /* ... and its count */
};

static void dev_alloc_free(gpointer p)
{
	struct dev_alloc *d = p;
	g_hash_table_destroy(d->count);
	g_free(d);
}

/* Outputs come in runs of one device and one allocator: each device is
 * looked up by name once (run->devices[] holds each name once, but two
 * entries may still spell one), and a run of one allocator is counted
 * without hashing its name again. */
static GHashTable *device_allocators(struct memory_builder *b)
{
	GHashTable *devs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, dev_alloc_free);
	struct dev_alloc **of_dev = g_new0(struct dev_alloc *, b->run->n_devices + 1);
	for (guint i = 0; i < b->buffers->len; i++) {
		const tl_buffer *buf = buffer_at(b, i);
		if (buf->kind != TL_BUF_OUTPUT || buf->producer < 0)
			continue;
		uint32_t dev = b->run->execs[buf->producer].device;
		struct dev_alloc *d = of_dev[dev];
		if (d == NULL) {
			const char *device = b->run->devices[dev].name;
			d = g_hash_table_lookup(devs, device);
			if (d == NULL) {
				d = g_new0(struct dev_alloc, 1);
				d->count =
				    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
				g_hash_table_insert(devs, (gpointer)device, d);
			}
			of_dev[dev] = d;
		}
		if (d->last == NULL || buf->allocator != d->last) {
			guint *c = g_hash_table_lookup(d->count, buf->allocator);
			if (c == NULL) {
				c = g_new0(guint, 1);
				g_hash_table_insert(d->count, (gpointer)buf->allocator, c);
				if (strstr(buf->allocator, "host") != NULL &&
				    (d->hostly == NULL || strcmp(buf->allocator, d->hostly) < 0))
					d->hostly = buf->allocator;
			}
			d->last = buf->allocator;
			d->last_n = c;
		}
		guint n = ++*d->last_n;
		if (n > d->best_n || (n == d->best_n && strcmp(buf->allocator, d->best) < 0)) {
			d->best = buf->allocator;
			d->best_n = n;
		}
	}
	g_free(of_dev);
	return devs;
}

/* Where a receive's buffer went: the allocator most outputs of its device
 * went to; host memory (an allocator whose name says "host", when the
 * device has one) for a _HostRecv, and for an int32 tensor received on a
 * GPU, which TensorFlow keeps in host memory. */
static const char *recv_allocator(GHashTable *devs, const tl_gnode *recv, const tl_buffer *like)
{
	const struct dev_alloc *d = g_hash_table_lookup(devs, recv->device);
	if (d == NULL)
		return NULL;
	bool host = strcmp(recv->op, "_HostRecv") == 0 ||
		    (like->desc != NULL && like->desc->dtype == TENSORFLOW__DATA_TYPE__DT_INT32 &&
		     strstr(recv->device, "GPU") != NULL);
	return host && d->hostly != NULL ? d->hostly : d->best;
}

/* When a receive's data was sent: the earliest start of its _Send's
 * executions, or `sent` if earlier or the _Send left none. */
static int64_t sent_at(const tl_run *run, uint32_t send, int64_t sent)
{
	const tl_gnode *g = &run->nodes[send];
	for (uint32_t i = 0; i < g->n_exec; i++) {
		int64_t t = exec_start_us(&run->execs[run->node_execs[g->first_exec + i]]);
		if (t < sent)
			sent = t;
	}
	return sent;
}

/* What the consumers of an unrecorded receive, and its _Send, say about
 * its buffer. */
struct recv_info {
	int64_t free_us;   /* the end of its last consumer */
	int64_t first_use; /* the start of its first consumer */
	int32_t last;	   /* the last consumer's execution, -1: none ran */
	int32_t adopt;	   /* the buffer a forwarding consumer made its own, or -1 */
	bool fetched;	   /* a consumer is a fetch */
	int64_t lo;	   /* the earliest birth: just after the step start */
	int64_t sent;	   /* its _Send's start (INT64_MAX: unknown) */
	int64_t guess;	   /* its likeliest birth (INT64_MAX: no hint) */
};

/* Execution x consumes the receive's output through its input `port`. */
static void recv_consumer(struct memory_builder *b, int32_t x, int32_t port, struct recv_info *u)
{
	const tl_exec *e = &b->run->execs[x];
	if (exec_end_us(e) > u->free_us) {
		u->free_us = exec_end_us(e);
		u->last = x;
	}
	if (exec_start_us(e) < u->first_use)
		u->first_use = exec_start_us(e);
	/* a forwarding consumer described the buffer as its own */
	int32_t r = port == 0 && tl_memory_is_forwarding_op(e->op) ? find_ref(b, x, 0) : -1;
	if (r >= 0) {
		uint32_t bi = g_array_index(b->refs, struct ref, r).buffer;
		if (buffer_at(b, bi)->producer == x)
			u->adopt = (int32_t)bi;
	}
}

/* The consumers of receive node n, over its data edges. */
static void recv_uses(struct memory_builder *b, const uint32_t *out_first,
		      const uint32_t *out_edges, uint32_t n, struct recv_info *u)
{
	const tl_run *run = b->run;
	*u = (struct recv_info){
	    .free_us = INT64_MIN, .first_use = INT64_MAX, .last = -1, .adopt = -1};
	for (uint32_t k = out_first[n]; k < out_first[n + 1]; k++) {
		const tl_edge *edge = &run->edges[out_edges[k]];
		if (edge->kind != TL_EDGE_DATA)
			continue;
		if (tl_memory_is_fetch_node(run, edge->dst))
			u->fetched = true;
		const tl_gnode *cons = &run->nodes[edge->dst];
		for (uint32_t i = 0; i < cons->n_exec; i++)
			recv_consumer(b, (int32_t)run->node_execs[cons->first_exec + i],
				      edge->dst_port, u);
	}
}

/* The consumers of iteration k of receive node n, which ran `iters` times
 * in a loop: execution k of a consumer that ran as often, the one
 * execution of a consumer that ran once (it reads the last iteration). */
static void recv_uses_iter(struct memory_builder *b, const uint32_t *out_first,
			   const uint32_t *out_edges, uint32_t n, uint32_t k, uint32_t iters,
			   struct recv_info *u)
{
	const tl_run *run = b->run;
	*u = (struct recv_info){
	    .free_us = INT64_MIN, .first_use = INT64_MAX, .last = -1, .adopt = -1};
	for (uint32_t j = out_first[n]; j < out_first[n + 1]; j++) {
		const tl_edge *edge = &run->edges[out_edges[j]];
		if (edge->kind != TL_EDGE_DATA)
			continue;
		if (tl_memory_is_fetch_node(run, edge->dst))
			u->fetched = true;
		const tl_gnode *cons = &run->nodes[edge->dst];
		uint32_t x = UINT32_MAX;
		if (cons->n_exec == iters)
			x = run->node_execs[cons->first_exec + k];
		else if (cons->n_exec == 1 && k + 1 == iters)
			x = run->node_execs[cons->first_exec];
		if (x != UINT32_MAX)
			recv_consumer(b, (int32_t)x, edge->dst_port, u);
	}
}

/* How many times receive node n ran: as often as its _Send did (the most
 * executions of a _Send of its transfers; 0 when none ran). */
static uint32_t recv_iters(const tl_run *run, uint32_t n)
{
	uint32_t most = 0;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++)
		if (run->edges[k].kind == TL_EDGE_TRANSFER &&
		    run->nodes[run->edges[k].src].n_exec > most)
			most = run->nodes[run->edges[k].src].n_exec;
	return most;
}

/* The start of execution k of the _Send of receive node n (INT64_MAX:
 * unknown). */
static int64_t recv_sent_iter(const tl_run *run, uint32_t n, uint32_t k)
{
	for (uint32_t j = run->in_first[n]; j < run->in_first[n + 1]; j++) {
		const tl_gnode *g = &run->nodes[run->edges[j].src];
		if (run->edges[j].kind == TL_EDGE_TRANSFER && k < g->n_exec)
			return exec_start_us(&run->execs[run->node_execs[g->first_exec + k]]);
	}
	return INT64_MAX;
}

/* When receive node n's data was sent: the earliest start of the _Send
 * executions of its transfers, INT64_MAX when none ran. */
static int64_t recv_sent(const tl_run *run, uint32_t n)
{
	int64_t sent = INT64_MAX;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++)
		if (run->edges[k].kind == TL_EDGE_TRANSFER)
			sent = sent_at(run, run->edges[k].src, sent);
	return sent;
}

/* The buffer a forwarding consumer described is the receive's own. */
static void adopt_recv(struct memory_builder *b, const tl_gnode *recv, const struct recv_info *u)
{
	tl_buffer *buf = buffer_at(b, (uint32_t)u->adopt);
	buf->producer = -1;
	buf->slot = 0;
	buf->name = tl_arena_strdup(b->arena, recv->name);
	buf->estimated = true;
	if (buf->free_us < u->free_us)
		buf->free_us = u->free_us;
	buf->birth_lo = buf->window_lo = u->lo;
	buf->birth_hi = buf->window_hi = u->first_use < buf->free_us ? u->first_use : buf->free_us;
	buf->sent_us = u->sent;
	buf->guess_us = u->guess;
}

/* The buffer the _Send of receive node n read (its size and type), or -1. */
static int32_t recv_source(struct memory_builder *b, uint32_t n)
{
	const tl_run *run = b->run;
	int32_t src_buf = -1;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1] && src_buf < 0; k++) {
		const tl_edge *t = &run->edges[k];
		if (t->kind != TL_EDGE_TRANSFER)
			continue;
		for (uint32_t j = run->in_first[t->src]; j < run->in_first[t->src + 1]; j++)
			if (run->edges[j].kind == TL_EDGE_DATA)
				src_buf =
				    last_buffer_of(b, run->edges[j].src, run->edges[j].src_port);
	}
	return src_buf;
}

/* A new buffer for the receive in `alloc`, the size and type of `like`. */
static void add_recv_buffer(struct memory_builder *b, tl_memory *mem, const tl_gnode *recv,
			    const tl_buffer *like, const char *alloc, const struct recv_info *u)
{
	int64_t free_us = u->fetched ? mem->step_end_us : u->free_us;
	char *name = g_strdup_printf("%s:0", recv->name);
	tl_buffer nb = {.allocator = alloc,
			.allocation_id = --b->next_temp_id,
			.requested = like->requested,
			.allocated = like->allocated,
			.alloc_us = free_us,
			.free_us = free_us,
			.kind = TL_BUF_OUTPUT,
			.cause = u->fetched ? TL_FREE_FETCHED : TL_FREE_LAST_USE,
			.fetched = u->fetched,
			.producer = -1,
			.slot = 0,
			.last_user = u->last,
			.desc = like->desc,
			.name = tl_arena_strdup(b->arena, name),
			.estimated = true,
			.sent_us = u->sent,
			.guess_us = u->guess,
			.birth_lo = u->lo,
			.birth_hi = u->first_use < free_us ? u->first_use : free_us,
			.window_lo = u->lo,
			.window_hi = u->first_use < free_us ? u->first_use : free_us};
	g_free(name);
	tl_memory_new_buffer(b, &nb, NULL);
}

/* Which iterations of receive node n its recorded executions are: each
 * the first one not taken whose consumers start at or after its end (a
 * consumer waits for the data). */
static void recorded_iters(const tl_run *run, uint32_t n, const struct recv_info *u, uint32_t iters,
			   uint8_t *recorded)
{
	const tl_gnode *g = &run->nodes[n];
	uint32_t k = 0;
	for (uint32_t i = 0; i < g->n_exec; i++) {
		int64_t end = exec_end_us(&run->execs[run->node_execs[g->first_exec + i]]);
		while (k < iters && u[k].first_use < end)
			k++;
		if (k == iters)
			k = iters - 1 - (g->n_exec - 1 - i); /* the last ones, in order */
		recorded[k] = 1;
		k++;
	}
}

/* The GPU tracer's copies by name ("<recv>:_Recv" names the copy of a
 * receive), each name's starts in time order; made when first needed. */
static GHashTable *copies_index(const tl_run *run)
{
	GHashTable *h =
	    g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_array_unref);
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		const char *name = e->ns->node_name;
		if (run->devices[e->device].kind != TL_DEV_MEMCPY || name == NULL)
			continue;
		GArray *a = g_hash_table_lookup(h, name);
		if (a == NULL) {
			a = g_array_new(FALSE, FALSE, sizeof(int64_t));
			g_hash_table_insert(h, (gpointer)name, a);
		}
		int64_t t = exec_start_us(e);
		g_array_append_val(a, t);
	}
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, NULL, &v))
		g_array_sort(v, cmp_i64);
	return h;
}

/* The start of the copy of iteration k of `iters` of receive node n, or
 * INT64_MAX: the k-th copy by time when there is one per iteration, else
 * the first. */
static int64_t copy_start(GHashTable **copies, const tl_run *run, uint32_t n, uint32_t k,
			  uint32_t iters)
{
	if (*copies == NULL)
		*copies = copies_index(run);
	char *key = g_strconcat(run->nodes[n].name, ":_Recv", NULL);
	GArray *a = g_hash_table_lookup(*copies, key);
	g_free(key);
	if (a == NULL || a->len == 0)
		return INT64_MAX;
	return g_array_index(a, int64_t, a->len == iters ? k : 0);
}

/* Recorded receives a hint needs before it is trusted. */
#define HINT_MIN 8

/* What the run's recorded receives say of when a receive is born: the
 * median time from its birth to its copy's start, and from its _Send's
 * start to its birth (each known when HINT_MIN recorded receives show it),
 * and which of the two varies less. */
struct hints {
	GHashTable *copies; /* copies_index, made when first needed */
	bool learned;	    /* hints_learn done (when first needed) */
	int64_t step_us;    /* the step's length */
	bool by_copy, by_send;
	bool copy_first; /* the copy predicts births better than the _Send */
	int64_t before_copy, after_send;
};

/* The median of a, and its spread: the distance between its quartiles. */
static int64_t median(GArray *a, int64_t *spread)
{
	g_array_sort(a, cmp_i64);
	*spread = g_array_index(a, int64_t, a->len * 3 / 4) - g_array_index(a, int64_t, a->len / 4);
	return g_array_index(a, int64_t, a->len / 2);
}

static void hints_learn(struct hints *h, const tl_run *run, int64_t step_us)
{
	GArray *dc = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GArray *ds = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *g = &run->nodes[n];
		if (g->n_exec == 0 || !is_recv_op(g->op))
			continue;
		for (uint32_t k = 0; k < g->n_exec; k++) {
			const tl_exec *e = &run->execs[run->node_execs[g->first_exec + k]];
			int64_t born = e->ns->all_start_micros + e->ns->op_start_rel_micros;
			int64_t c = copy_start(&h->copies, run, n, k, g->n_exec);
			int64_t sent = recv_sent_iter(run, n, k);
			if (c != INT64_MAX) {
				int64_t d = c - born;
				g_array_append_val(dc, d);
			}
			if (sent != INT64_MAX) {
				int64_t d = born - sent;
				g_array_append_val(ds, d);
			}
		}
	}
	int64_t spread_c = INT64_MAX, spread_s = INT64_MAX;
	h->by_copy = dc->len >= HINT_MIN;
	h->by_send = ds->len >= HINT_MIN;
	h->before_copy = h->by_copy ? median(dc, &spread_c) : 0;
	h->after_send = h->by_send ? median(ds, &spread_s) : 0;
	/* the closer of the two, where both say something; neither when it
	 * misses the recorded births by more than a fiftieth of the step */
	int64_t step = step_us / 50;
	h->by_copy = h->by_copy && spread_c <= step;
	h->by_send = h->by_send && spread_s <= step;
	h->copy_first = spread_c <= spread_s;
	g_array_free(dc, TRUE);
	g_array_free(ds, TRUE);
}

/* The likeliest birth of iteration k of `iters` of receive node n, whose
 * _Send started at `sent` (INT64_MAX: unknown), or INT64_MAX. */
static int64_t guess_birth(struct hints *h, const tl_run *run, uint32_t n, uint32_t k,
			   uint32_t iters, int64_t sent)
{
	if (!h->learned) {
		hints_learn(h, run, h->step_us);
		h->learned = true;
	}
	int64_t copy = copy_start(&h->copies, run, n, k, iters);
	bool by_copy = copy != INT64_MAX && h->by_copy;
	bool by_send = sent != INT64_MAX && h->by_send;
	if (by_copy && (h->copy_first || !by_send))
		return add_sat(copy, -h->before_copy);
	if (by_send)
		return add_sat(sent, h->after_send);
	return INT64_MAX;
}

/* A receive in a loop (its _Send ran several times) that left no stats,
 * or left them for some iterations only: a buffer per iteration without
 * them, each with the consumers of that iteration, when every iteration
 * has some and none is fetched or taken over by a forwarding consumer;
 * false (nothing added) otherwise. */
static bool recv_loop_add(struct memory_builder *b, tl_memory *mem, GHashTable *devs,
			  struct hints *h, const uint32_t *out_first, const uint32_t *out_edges,
			  uint32_t n)
{
	const tl_run *run = b->run;
	uint32_t iters = recv_iters(run, n);
	if (iters < 2 || run->nodes[n].n_exec >= iters)
		return false;
	struct recv_info *u = g_new(struct recv_info, iters);
	bool ok = true;
	for (uint32_t k = 0; k < iters && ok; k++) {
		recv_uses_iter(b, out_first, out_edges, n, k, iters, &u[k]);
		ok = u[k].last >= 0 && !u[k].fetched && u[k].adopt < 0;
	}
	uint8_t *recorded = g_new0(uint8_t, iters);
	if (ok)
		recorded_iters(run, n, u, iters, recorded);
	int32_t src_buf = ok ? recv_source(b, n) : -1;
	const tl_buffer *like = src_buf >= 0 ? buffer_at(b, (uint32_t)src_buf) : NULL;
	const char *alloc = like != NULL ? recv_allocator(devs, &run->nodes[n], like) : NULL;
	if (alloc != NULL) {
		/* `like` moves when the buffers grow: a copy */
		tl_buffer proto = *like;
		for (uint32_t k = 0; k < iters; k++) {
			if (recorded[k])
				continue;
			u[k].lo = mem->step_start_us + 1;
			u[k].sent = recv_sent_iter(run, n, k);
			u[k].guess = guess_birth(h, run, n, k, iters, u[k].sent);
			add_recv_buffer(b, mem, &run->nodes[n], &proto, alloc, &u[k]);
		}
	}
	g_free(u);
	g_free(recorded);
	return alloc != NULL;
}

/* Buffers of _Recv nodes that ran (their consumers did) but left no stats.
 * Their birth is unknown: it lies between the step start and the start of
 * their first consumer ([birth_lo, birth_hi]); tl_memory_birth_place()
 * chooses it once the other buffers give a curve to compare with the
 * samples. */
void tl_memory_recv_add(struct memory_builder *b, tl_memory *mem)
{
	const tl_run *run = b->run;
	if (!run->has_graphs)
		return;
	uint32_t *out_first, *out_edges;
	index_out_edges(run, &out_first, &out_edges);
	GHashTable *devs = device_allocators(b);
	struct hints hints = {.step_us = add_sat(mem->step_end_us, -mem->step_start_us)};
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *recv = &run->nodes[n];
		if (!is_recv_op(recv->op))
			continue;
		if (recv_loop_add(b, mem, devs, &hints, out_first, out_edges, n) ||
		    recv->n_exec > 0)
			continue;
		struct recv_info u;
		recv_uses(b, out_first, out_edges, n, &u);
		if (u.last < 0)
			continue;
		u.lo = mem->step_start_us + 1;
		u.sent = recv_sent(run, n);
		u.guess = guess_birth(&hints, run, n, 0, 1, u.sent);
		if (u.adopt >= 0) {
			adopt_recv(b, recv, &u);
			continue;
		}
		int32_t src_buf = recv_source(b, n);
		if (src_buf < 0)
			continue;
		const tl_buffer *like = buffer_at(b, (uint32_t)src_buf);
		const char *alloc = recv_allocator(devs, recv, like);
		if (alloc == NULL)
			continue;
		add_recv_buffer(b, mem, recv, like, alloc, &u);
	}
	g_hash_table_destroy(devs);
	if (hints.copies != NULL)
		g_hash_table_destroy(hints.copies);
	g_free(out_first);
	g_free(out_edges);
}
