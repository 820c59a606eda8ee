#include "analysis/memory.h"

#include "analysis/dataflow.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

const char *tl_buffer_kind_name(tl_buffer_kind k)
{
	switch (k) {
	case TL_BUF_OUTPUT:
		return "output";
	case TL_BUF_TEMP:
		return "temp";
	case TL_BUF_PERSISTENT:
		return "persistent";
	}
	return "output";
}

const char *tl_birth_name(tl_birth b)
{
	switch (b) {
	case TL_BIRTH_RECORDED:
		return "recorded";
	case TL_BIRTH_PINNED:
		return "pinned";
	case TL_BIRTH_UNCONSTRAINED:
		return "unconstrained";
	case TL_BIRTH_CONTRADICTED:
		return "contradicted";
	}
	return "recorded";
}

const char *tl_free_cause_name(tl_free_cause c)
{
	switch (c) {
	case TL_FREE_LAST_USE:
		return "last-use";
	case TL_FREE_UNUSED:
		return "unused";
	case TL_FREE_FETCHED:
		return "fetched";
	case TL_FREE_RECORD:
		return "free-record";
	case TL_FREE_OP_END:
		return "op-end";
	case TL_FREE_NEVER:
		return "never";
	}
	return "last-use";
}

/* One reference being built: which buffer, when it is dropped. */
struct ref {
	tl_tensor_ref r;
	uint32_t buffer;
	int64_t drop_us;        /* INT64_MIN until a consumer is seen */
	int32_t dropper;
	bool fetched;
};

struct buf_key {
	const char *allocator;
	int64_t id;
	uint64_t ptr;
};

static guint buf_key_hash(gconstpointer p)
{
	const struct buf_key *k = p;
	guint h = g_str_hash(k->allocator);
	h = h * 31u + (guint)(k->id ^ (k->id >> 32));
	return h * 31u + (guint)(k->ptr ^ (k->ptr >> 32));
}

static gboolean buf_key_equal(gconstpointer a, gconstpointer b)
{
	const struct buf_key *x = a, *y = b;
	return x->id == y->id && x->ptr == y->ptr && strcmp(x->allocator, y->allocator) == 0;
}

struct builder {
	const tl_run *run;
	tl_arena *arena;        /* the run's arena, for names */
	GArray *buffers;        /* tl_buffer */
	GArray *refs;           /* struct ref */
	GHashTable *by_key;     /* struct buf_key -> buffer + 1 */
	GHashTable *by_tensor;  /* (exec << 20 | slot) -> ref + 1 */
	int64_t next_temp_id;
	int64_t *min_ends;      /* tl_dataflow_min_ends, made when first needed */
};

/* Sizes beyond 1 PiB (or negative) are refused, as are allocator samples
 * and records beyond it or beyond the model's time limit; the sums of sizes
 * in the curves saturate instead of overflowing. */
#define BYTES_LIMIT ((int64_t)1 << 50)

static int64_t size_of(int64_t bytes)
{
	if (bytes >= 0 && bytes <= BYTES_LIMIT)
		return bytes;
	tl_warn("memory-size-range", "allocation sizes below 0 or over 1 PiB treated as 0");
	return 0;
}

static bool record_in_range(const Tensorflow__AllocationRecord *rec)
{
	if (rec->alloc_bytes >= -BYTES_LIMIT && rec->alloc_bytes <= BYTES_LIMIT &&
	    rec->alloc_micros >= -TL_TIME_LIMIT_US && rec->alloc_micros <= TL_TIME_LIMIT_US)
		return true;
	tl_warn("memory-record-range", "allocation records over 1 PiB or beyond 73 years from "
		"1970 skipped");
	return false;
}

/* allocator_bytes_in_use, or 0 (not recorded) when out of range. */
static int64_t in_use_of(const Tensorflow__AllocatorMemoryUsed *mu)
{
	int64_t v = mu->allocator_bytes_in_use;
	return v > 0 && v <= BYTES_LIMIT ? v : 0;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t exec_start_us(const tl_exec *e)
{
	return e->ns->all_start_micros;
}

static int64_t exec_end_us(const tl_exec *e)
{
	return e->ns->all_start_micros + e->ns->all_end_rel_micros;
}

static int64_t exec_compute_start_us(const tl_exec *e)
{
	return e->ns->all_start_micros + e->ns->op_start_rel_micros;
}

static int64_t exec_compute_end_us(const tl_exec *e)
{
	return e->ns->all_start_micros + e->ns->op_end_rel_micros;
}

static gpointer tensor_key(int32_t exec, int32_t slot)
{
	return GSIZE_TO_POINTER(((gsize)(uint32_t)exec << 20) | (gsize)(slot & 0xfffff));
}

/* g_direct_hash keeps the low 32 bits of the key, where only 12 bits of
 * the execution are left: every 4096th execution would share a bucket. */
static guint tensor_key_hash(gconstpointer p)
{
	guint64 k = (guint64)GPOINTER_TO_SIZE(p);
	k ^= k >> 29;
	k *= G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);
	return (guint)(k >> 32);
}

static tl_buffer *buffer_at(struct builder *b, uint32_t i)
{
	return &g_array_index(b->buffers, tl_buffer, i);
}

static int32_t find_ref(struct builder *b, int32_t exec, int32_t slot)
{
	gpointer hit = g_hash_table_lookup(b->by_tensor, tensor_key(exec, slot));
	return hit != NULL ? (int32_t)GPOINTER_TO_SIZE(hit) - 1 : -1;
}

static void add_ref(struct builder *b, uint32_t buffer, int32_t exec, int32_t slot)
{
	if (find_ref(b, exec, slot) >= 0)
		return;
	struct ref r = {.r = {.exec = exec, .slot = slot}, .buffer = buffer,
			.drop_us = INT64_MIN, .dropper = -1};
	g_array_append_val(b->refs, r);
	g_hash_table_insert(b->by_tensor, tensor_key(exec, slot), GSIZE_TO_POINTER(b->refs->len));
}

static uint32_t new_buffer(struct builder *b, const tl_buffer *proto,
			   const struct buf_key *key)
{
	g_array_append_val(b->buffers, *proto);
	uint32_t idx = b->buffers->len - 1;
	if (key != NULL && (key->id != 0 || key->ptr != 0)) {
		struct buf_key *k = tl_arena_alloc(b->arena, sizeof *k);
		*k = *key;
		g_hash_table_insert(b->by_key, k, GUINT_TO_POINTER(idx + 1));
	}
	return idx;
}

/* The persistent allocation ids of one execution: a scan when they are
 * few, a hash set when an execution with many outputs lists many. */
struct id_set {
	const Tensorflow__MemoryStats *ms;
	GHashTable *set;
};

static void id_set_init(struct id_set *s, const Tensorflow__MemoryStats *ms, size_t n_outputs)
{
	s->ms = ms;
	s->set = NULL;
	if (ms == NULL || ms->n_persistent_tensor_alloc_ids <= 8 || n_outputs <= 8)
		return;
	s->set = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (size_t i = 0; i < ms->n_persistent_tensor_alloc_ids; i++)
		g_hash_table_add(s->set, &ms->persistent_tensor_alloc_ids[i]);
}

static bool in_ids(const struct id_set *s, int64_t id)
{
	if (s->ms == NULL || id == 0)
		return false;
	if (s->set != NULL)
		return g_hash_table_contains(s->set, &id);
	for (size_t i = 0; i < s->ms->n_persistent_tensor_alloc_ids; i++)
		if (s->ms->persistent_tensor_alloc_ids[i] == id)
			return true;
	return false;
}

static bool is_variable_op(const char *op)
{
	return strcmp(op, "VariableV2") == 0 || strcmp(op, "Variable") == 0 ||
	       strcmp(op, "VarHandleOp") == 0;
}

/* Ops whose outputs always share their data input 0's buffer. */
static bool is_forwarding_op(const char *op)
{
	static const char *const ops[] = {"Identity", "Reshape", "Switch", "RefSwitch",
					  "RefIdentity", "ApplyGradientDescent", "Snapshot"};
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

/* Open temporaries of one AllocatorMemoryUsed by size (allocated bytes ->
 * GQueue of buffer + 1, oldest first), so that a free record finds its
 * allocation without a scan of every temporary before it. */
static void open_temp(struct builder *b, GHashTable *open, uint32_t t)
{
	gpointer key = GSIZE_TO_POINTER((gsize)buffer_at(b, t)->allocated);
	GQueue *q = g_hash_table_lookup(open, key);
	if (q == NULL) {
		q = g_queue_new();
		g_hash_table_insert(open, key, q);
	}
	g_queue_push_tail(q, GUINT_TO_POINTER(t + 1));
}

static GHashTable *open_temps(struct builder *b, uint32_t first_temp)
{
	GHashTable *open = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						 (GDestroyNotify)g_queue_free);
	for (uint32_t t = first_temp; t < b->buffers->len; t++)
		if (buffer_at(b, t)->kind == TL_BUF_TEMP && buffer_at(b, t)->free_us == 0)
			open_temp(b, open, t);
	return open;
}

/* A free: the earliest open temporary of that size allocated by then. */
static void free_temp(struct builder *b, GHashTable *open, const Tensorflow__AllocationRecord *rec)
{
	GQueue *q = g_hash_table_lookup(open, GSIZE_TO_POINTER((gsize)-rec->alloc_bytes));
	for (GList *l = q != NULL ? q->head : NULL; l != NULL; l = l->next) {
		tl_buffer *tb = buffer_at(b, GPOINTER_TO_UINT(l->data) - 1);
		if (tb->alloc_us <= rec->alloc_micros) {
			tb->free_us = rec->alloc_micros;
			tb->cause = TL_FREE_RECORD;
			g_queue_delete_link(q, l);
			return;
		}
	}
}

/* The outputs of one execution, then its temporaries from its allocation
 * records. */
static void scan_outputs(struct builder *b, int32_t x)
{
	const tl_exec *e = &b->run->execs[x];
	const Tensorflow__NodeExecStats *ns = e->ns;
	/* fresh outputs in slot order, per allocator, to pair with records */
	GPtrArray *fresh = g_ptr_array_new();
	struct id_set ids;
	id_set_init(&ids, ns->memory_stats, ns->n_output);
	for (size_t k = 0; k < ns->n_output; k++) {
		const Tensorflow__NodeOutput *o = ns->output[k];
		const Tensorflow__TensorDescription *td = o->tensor_description;
		const Tensorflow__AllocationDescription *ad =
			td != NULL ? td->allocation_description : NULL;
		if (ad == NULL)
			continue;
		struct buf_key key = {.allocator = ad->allocator_name ? ad->allocator_name : "",
				      .id = ad->allocation_id, .ptr = ad->ptr};
		gpointer hit = (key.id != 0 || key.ptr != 0) ? g_hash_table_lookup(b->by_key, &key)
							      : NULL;
		if (hit != NULL) {
			add_ref(b, GPOINTER_TO_UINT(hit) - 1, x, o->slot);
			continue;
		}
		bool persistent = in_ids(&ids, ad->allocation_id) || is_variable_op(e->op);
		tl_buffer nb = {
			.allocator = key.allocator,
			.allocation_id = ad->allocation_id,
			.ptr = ad->ptr,
			.requested = size_of(ad->requested_bytes),
			.allocated = size_of(ad->allocated_bytes ? ad->allocated_bytes
								 : ad->requested_bytes),
			.alloc_us = persistent ? TL_US_BEFORE : exec_compute_start_us(e),
			.free_us = persistent ? TL_US_NEVER : 0,
			.kind = persistent ? TL_BUF_PERSISTENT : TL_BUF_OUTPUT,
			.cause = persistent ? TL_FREE_NEVER : TL_FREE_LAST_USE,
			.producer = x,
			.slot = o->slot,
			.last_user = -1,
			.desc = td,
		};
		uint32_t idx = new_buffer(b, &nb, &key);
		add_ref(b, idx, x, o->slot);
		g_ptr_array_add(fresh, GUINT_TO_POINTER(idx + 1));
	}
	for (size_t k = 0; k < ns->n_referenced_tensor; k++) {
		const Tensorflow__AllocationDescription *ad = ns->referenced_tensor[k];
		struct buf_key key = {.allocator = ad->allocator_name ? ad->allocator_name : "",
				      .id = ad->allocation_id, .ptr = ad->ptr};
		if ((key.id == 0 && key.ptr == 0) || g_hash_table_contains(b->by_key, &key))
			continue;
		/* A variable whose own execution is not in the dump. */
		tl_buffer nb = {.allocator = key.allocator, .allocation_id = key.id, .ptr = key.ptr,
				.requested = size_of(ad->requested_bytes),
				.allocated = size_of(ad->allocated_bytes ? ad->allocated_bytes
									 : ad->requested_bytes),
				.alloc_us = TL_US_BEFORE, .free_us = TL_US_NEVER,
				.kind = TL_BUF_PERSISTENT, .cause = TL_FREE_NEVER, .producer = -1,
				.slot = -1, .last_user = -1};
		new_buffer(b, &nb, &key);
	}

	for (size_t m = 0; m < ns->n_memory; m++) {
		const Tensorflow__AllocatorMemoryUsed *mu = ns->memory[m];
		const char *alloc = mu->allocator_name ? mu->allocator_name : "";
		guint next_fresh = 0;
		uint32_t first_temp = b->buffers->len;
		GHashTable *open = NULL; /* made at the first free */
		for (size_t r = 0; r < mu->n_allocation_records; r++) {
			const Tensorflow__AllocationRecord *rec = mu->allocation_records[r];
			if (!record_in_range(rec))
				continue;
			if (rec->alloc_bytes < 0) {
				if (open == NULL)
					open = open_temps(b, first_temp);
				free_temp(b, open, rec);
				continue;
			}
			/* An allocation: the next fresh output of this allocator
			 * of that size, else a temporary. */
			bool matched = false;
			while (next_fresh < fresh->len) {
				tl_buffer *ob = buffer_at(
					b, GPOINTER_TO_UINT(g_ptr_array_index(fresh, next_fresh)) - 1);
				if (strcmp(ob->allocator, alloc) != 0) {
					next_fresh++;
					continue;
				}
				if (ob->allocated == rec->alloc_bytes) {
					next_fresh++;
					if (ob->kind == TL_BUF_OUTPUT)
						ob->alloc_us = rec->alloc_micros;
					matched = true;
				}
				break;
			}
			if (matched)
				continue;
			tl_buffer tb = {.allocator = alloc, .allocation_id = --b->next_temp_id,
					.requested = rec->alloc_bytes, .allocated = rec->alloc_bytes,
					.alloc_us = rec->alloc_micros, .free_us = 0,
					.kind = TL_BUF_TEMP, .cause = TL_FREE_OP_END, .producer = x,
					.slot = -1, .last_user = x};
			uint32_t t = new_buffer(b, &tb, NULL);
			if (open != NULL)
				open_temp(b, open, t);
		}
		if (open != NULL)
			g_hash_table_destroy(open);
		for (uint32_t t = first_temp; t < b->buffers->len; t++) {
			tl_buffer *tb = buffer_at(b, t);
			if (tb->kind == TL_BUF_TEMP && tb->free_us == 0) {
				int64_t end = exec_compute_end_us(e);
				tb->free_us = end > tb->alloc_us ? end : tb->alloc_us + 1;
			}
		}
	}
	g_ptr_array_free(fresh, TRUE);
	if (ids.set != NULL)
		g_hash_table_destroy(ids.set);
}

/* A forwarding op whose outputs the dump does not describe (a Switch that
 * recorded one slot, an Identity without output records): its outputs are
 * further references to the buffer its data input 0 reads. */
static void forward_missing(struct builder *b, int32_t x)
{
	const tl_run *run = b->run;
	const tl_exec *e = &run->execs[x];
	if (e->gnode < 0 || !is_forwarding_op(e->op))
		return;
	uint32_t n = (uint32_t)e->gnode;
	int32_t src_buf = -1;
	for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++) {
		const tl_edge *edge = &run->edges[k];
		if (edge->kind != TL_EDGE_DATA || edge->dst_port != 0)
			continue;
		if (b->min_ends == NULL)
			b->min_ends = tl_dataflow_min_ends(run);
		int32_t p = tl_dataflow_pick(run, b->min_ends, edge->src, e->iter,
					     run->nodes[n].n_exec, run->execs[x].start);
		int32_t r = p >= 0 ? find_ref(b, p, edge->src_port) : -1;
		if (r >= 0)
			src_buf = (int32_t)g_array_index(b->refs, struct ref, r).buffer;
	}
	if (src_buf < 0)
		return;
	int32_t slots = strcmp(e->op, "Switch") == 0 || strcmp(e->op, "RefSwitch") == 0 ? 2 : 1;
	for (int32_t s = 0; s < slots; s++)
		if (find_ref(b, x, s) < 0)
			add_ref(b, (uint32_t)src_buf, x, s);
}

static int64_t step_bounds(const tl_run *run, int64_t *end_out)
{
	int64_t start = INT64_MAX, end = INT64_MIN, source = INT64_MIN;
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind != TL_DEV_EXECUTOR)
			continue;
		if (exec_start_us(e) < start)
			start = exec_start_us(e);
		if (exec_end_us(e) > end)
			end = exec_end_us(e);
		if (strcmp(e->node, "_SOURCE") == 0 && e->ns->scheduled_micros != 0 &&
		    (source == INT64_MIN || e->ns->scheduled_micros < source))
			source = e->ns->scheduled_micros;
	}
	if (start == INT64_MAX)
		start = end = 0;
	*end_out = end;
	return source != INT64_MIN && source <= start ? source : start;
}

static bool is_fetch_node(const tl_run *run, uint32_t n)
{
	const char *op = run->nodes[n].op;
	if (strcmp(op, "_Retval") == 0)
		return true;
	if (strcmp(op, "_Send") != 0 && strcmp(op, "_HostSend") != 0)
		return false;
	const Tensorflow__NodeDef *def = run->nodes[n].def;
	for (size_t i = 0; i < def->n_attr; i++) {
		const Tensorflow__AttrValue *v = def->attr[i]->value;
		if (def->attr[i]->key != NULL && strcmp(def->attr[i]->key, "client_terminated") == 0)
			return v != NULL && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B && v->b;
	}
	return false;
}

/* Drop times of every reference, from the data links (graph or labels). */
static void drop_refs(struct builder *b, tl_memory *mem)
{
	const tl_run *run = b->run;
	tl_dataflow_opts fo = {.control = false, .launches = false};
	GArray *links = g_array_new(FALSE, FALSE, sizeof(tl_link));
	tl_dataflow_links(run, &fo, links);
	for (guint j = 0; j < links->len; j++) {
		const tl_link *l = &g_array_index(links, tl_link, j);
		if (l->kind != TL_LINK_DATA)
			continue;
		if (l->guessed)
			mem->from_labels = true;
		int32_t r = find_ref(b, (int32_t)l->src, l->src_port);
		if (r < 0)
			continue;
		struct ref *ref = &g_array_index(b->refs, struct ref, r);
		const tl_exec *dst = &run->execs[l->dst];
		int64_t end = exec_end_us(dst);
		if (end > ref->drop_us) {
			ref->drop_us = end;
			ref->dropper = (int32_t)l->dst;
		}
		if (!run->has_graphs && strcmp(dst->op, "_Retval") == 0)
			ref->fetched = true;
	}
	g_array_free(links, TRUE);
	/* Fetches, from the graph: every execution of a node feeding a _Retval
	 * or a client-terminated _Send, whether or not that consumer ran; each
	 * output once, however many fetches read it. */
	int64_t *keys = g_new(int64_t, run->n_edges + 1);
	GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		if (!is_fetch_node(run, n))
			continue;
		for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++) {
			const tl_edge *edge = &run->edges[k];
			if (edge->kind != TL_EDGE_DATA)
				continue;
			keys[k] = (int64_t)((uint64_t)edge->src << 32 | (uint32_t)edge->src_port);
			if (!g_hash_table_add(seen, &keys[k]))
				continue;
			const tl_gnode *src = &run->nodes[edge->src];
			for (uint32_t i = 0; i < src->n_exec; i++) {
				int32_t r = find_ref(b, (int32_t)run->node_execs[src->first_exec + i],
						     edge->src_port);
				if (r >= 0)
					g_array_index(b->refs, struct ref, r).fetched = true;
			}
		}
	}
	g_hash_table_destroy(seen);
	g_free(keys);
}

static bool is_recv_op(const char *op)
{
	return strcmp(op, "_Recv") == 0 || strcmp(op, "_HostRecv") == 0;
}

/* The buffer a node's output `port` had in its last execution, or -1. */
static int32_t last_buffer_of(struct builder *b, uint32_t node, int32_t port)
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
	uint32_t *first = g_new0(uint32_t, run->n_nodes + 2);
	uint32_t *edges = g_new(uint32_t, run->n_edges ? run->n_edges : 1);
	for (size_t k = 0; k < run->n_edges; k++)
		first[run->edges[k].src + 2]++;
	for (size_t n = 0; n < run->n_nodes; n++)
		first[n + 2] += first[n + 1];
	for (size_t k = 0; k < run->n_edges; k++)
		edges[first[run->edges[k].src + 1]++] = (uint32_t)k;
	*first_out = first;
	*edges_out = edges;
}

/* Per device, the allocator most of its outputs went to (ties: the first
 * name) and the first allocator name with "host" in it. */
struct dev_alloc {
	const char *best;
	guint best_n;
	const char *hostly;
	GHashTable *count; /* allocator -> outputs */
};

static void dev_alloc_free(gpointer p)
{
	struct dev_alloc *d = p;
	g_hash_table_destroy(d->count);
	g_free(d);
}

static GHashTable *device_allocators(struct builder *b)
{
	GHashTable *devs = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, dev_alloc_free);
	for (guint i = 0; i < b->buffers->len; i++) {
		const tl_buffer *buf = buffer_at(b, i);
		if (buf->kind != TL_BUF_OUTPUT || buf->producer < 0)
			continue;
		const char *device = b->run->devices[b->run->execs[buf->producer].device].name;
		struct dev_alloc *d = g_hash_table_lookup(devs, device);
		if (d == NULL) {
			d = g_new0(struct dev_alloc, 1);
			d->count = g_hash_table_new(g_str_hash, g_str_equal);
			g_hash_table_insert(devs, (gpointer)device, d);
		}
		guint n = GPOINTER_TO_UINT(g_hash_table_lookup(d->count, buf->allocator)) + 1;
		g_hash_table_insert(d->count, (gpointer)buf->allocator, GUINT_TO_POINTER(n));
		if (n > d->best_n || (n == d->best_n && strcmp(buf->allocator, d->best) < 0)) {
			d->best = buf->allocator;
			d->best_n = n;
		}
		if (strstr(buf->allocator, "host") != NULL &&
		    (d->hostly == NULL || strcmp(buf->allocator, d->hostly) < 0))
			d->hostly = buf->allocator;
	}
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

/* Buffers of _Recv nodes that ran (their consumers did) but left no stats.
 * Their birth is unknown: it lies between the step start and the start of
 * their first consumer ([birth_lo, birth_hi]); place_estimated() chooses it
 * once the other buffers give a curve to compare with the samples. */
static void add_unrecorded_recvs(struct builder *b, tl_memory *mem)
{
	const tl_run *run = b->run;
	if (!run->has_graphs)
		return;
	uint32_t *out_first, *out_edges;
	index_out_edges(run, &out_first, &out_edges);
	GHashTable *devs = device_allocators(b);
	for (uint32_t n = 0; n < run->n_nodes; n++) {
		const tl_gnode *recv = &run->nodes[n];
		if (recv->n_exec > 0 || !is_recv_op(recv->op))
			continue;
		int64_t free_us = INT64_MIN, first_use = INT64_MAX;
		int32_t last = -1, adopt = -1;
		bool fetched = false;
		for (uint32_t k = out_first[n]; k < out_first[n + 1]; k++) {
			const tl_edge *edge = &run->edges[out_edges[k]];
			if (edge->kind != TL_EDGE_DATA)
				continue;
			if (is_fetch_node(run, edge->dst))
				fetched = true;
			const tl_gnode *cons = &run->nodes[edge->dst];
			for (uint32_t i = 0; i < cons->n_exec; i++) {
				int32_t x = (int32_t)run->node_execs[cons->first_exec + i];
				const tl_exec *e = &run->execs[x];
				if (exec_end_us(e) > free_us) {
					free_us = exec_end_us(e);
					last = x;
				}
				if (exec_start_us(e) < first_use)
					first_use = exec_start_us(e);
				/* a forwarding consumer described the buffer as its own */
				int32_t r = edge->dst_port == 0 && is_forwarding_op(e->op)
						    ? find_ref(b, x, 0)
						    : -1;
				if (r >= 0) {
					uint32_t bi = g_array_index(b->refs, struct ref, r).buffer;
					if (buffer_at(b, bi)->producer == x)
						adopt = (int32_t)bi;
				}
			}
		}
		if (last < 0)
			continue;
		int64_t lo = mem->step_start_us + 1;
		int64_t sent = INT64_MAX;
		for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1]; k++)
			if (run->edges[k].kind == TL_EDGE_TRANSFER)
				sent = sent_at(run, run->edges[k].src, sent);
		if (adopt >= 0) {
			tl_buffer *buf = buffer_at(b, (uint32_t)adopt);
			buf->producer = -1;
			buf->slot = 0;
			buf->name = tl_arena_strdup(b->arena, recv->name);
			buf->estimated = true;
			if (buf->free_us < free_us)
				buf->free_us = free_us;
			buf->birth_lo = lo;
			buf->birth_hi = first_use < buf->free_us ? first_use : buf->free_us;
			buf->sent_us = sent;
			continue;
		}
		/* size and type: the tensor its _Send read */
		int32_t src_buf = -1;
		for (uint32_t k = run->in_first[n]; k < run->in_first[n + 1] && src_buf < 0; k++) {
			const tl_edge *t = &run->edges[k];
			if (t->kind != TL_EDGE_TRANSFER)
				continue;
			for (uint32_t j = run->in_first[t->src]; j < run->in_first[t->src + 1]; j++)
				if (run->edges[j].kind == TL_EDGE_DATA)
					src_buf = last_buffer_of(b, run->edges[j].src,
								 run->edges[j].src_port);
		}
		if (src_buf < 0)
			continue;
		const tl_buffer *like = buffer_at(b, (uint32_t)src_buf);
		const char *alloc = recv_allocator(devs, recv, like);
		if (alloc == NULL)
			continue;
		if (fetched)
			free_us = mem->step_end_us;
		char *name = g_strdup_printf("%s:0", recv->name);
		tl_buffer nb = {.allocator = alloc,
				.allocation_id = --b->next_temp_id,
				.requested = like->requested,
				.allocated = like->allocated,
				.alloc_us = free_us,
				.free_us = free_us,
				.kind = TL_BUF_OUTPUT,
				.cause = fetched ? TL_FREE_FETCHED : TL_FREE_LAST_USE,
				.fetched = fetched,
				.producer = -1,
				.slot = 0,
				.last_user = last,
				.desc = like->desc,
				.name = tl_arena_strdup(b->arena, name),
				.estimated = true,
				.sent_us = sent,
				.birth_lo = lo,
				.birth_hi = first_use < free_us ? first_use : free_us};
		g_free(name);
		new_buffer(b, &nb, NULL);
	}
	g_hash_table_destroy(devs);
	g_free(out_first);
	g_free(out_edges);
}

static void settle_buffers(struct builder *b, tl_memory *mem)
{
	const tl_run *run = b->run;
	for (guint i = 0; i < b->refs->len; i++) {
		struct ref *ref = &g_array_index(b->refs, struct ref, i);
		tl_buffer *buf = buffer_at(b, ref->buffer);
		if (buf->kind != TL_BUF_OUTPUT)
			continue;
		if (ref->fetched) {
			buf->fetched = true;
			continue;
		}
		int64_t drop = ref->drop_us;
		int32_t who = ref->dropper;
		tl_free_cause cause = TL_FREE_LAST_USE;
		if (drop == INT64_MIN) {
			drop = exec_end_us(&run->execs[ref->r.exec]);
			who = ref->r.exec;
			cause = TL_FREE_UNUSED;
		}
		if (drop > buf->free_us || buf->last_user < 0) {
			if (drop >= buf->free_us) {
				buf->free_us = drop;
				buf->last_user = who;
				buf->cause = cause;
			}
		}
	}
	for (guint i = 0; i < b->buffers->len; i++) {
		tl_buffer *buf = buffer_at(b, i);
		if (buf->kind == TL_BUF_OUTPUT && buf->fetched) {
			buf->free_us = mem->step_end_us;
			buf->cause = TL_FREE_FETCHED;
		}
		if (buf->kind == TL_BUF_OUTPUT && buf->free_us <= buf->alloc_us)
			buf->free_us = buf->alloc_us; /* born and gone at once */
	}
}

/* ---- curves ------------------------------------------------------------ */

struct event {
	int64_t us;
	int64_t bytes;
	int64_t requested;
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	/* frees before allocations at one instant */
	if ((x->bytes < 0) != (y->bytes < 0))
		return x->bytes < 0 ? -1 : 1;
	return 0;
}

static int cmp_live(const void *a, const void *b, void *ctx)
{
	const tl_memory *mem = ctx;
	const tl_buffer *x = &mem->buffers[*(const uint32_t *)a];
	const tl_buffer *y = &mem->buffers[*(const uint32_t *)b];
	if (x->allocated != y->allocated)
		return x->allocated > y->allocated ? -1 : 1;
	if (x->allocation_id != y->allocation_id)
		return x->allocation_id < y->allocation_id ? -1 : 1;
	return 0;
}

/* Whether a buffer counts in the curves being built: estimated births
 * are left out until they are placed. */
static bool counts(const tl_buffer *buf, bool with_estimated)
{
	return with_estimated || !buf->estimated;
}

static void build_curve(tl_memory *mem, tl_allocator *a, bool with_estimated)
{
	GArray *ev = g_array_new(FALSE, FALSE, sizeof(struct event));
	int64_t start = mem->step_start_us;
	a->persistent_bytes = 0;
	a->persistent_requested = 0;
	for (size_t k = 0; k < a->n_buffers; k++) {
		const tl_buffer *buf = &mem->buffers[a->buffers[k]];
		if (!counts(buf, with_estimated))
			continue;
		if (buf->kind == TL_BUF_PERSISTENT) {
			a->persistent_bytes = add_sat(a->persistent_bytes, buf->allocated);
			a->persistent_requested = add_sat(a->persistent_requested, buf->requested);
			continue;
		}
		if (buf->free_us == buf->alloc_us)
			continue; /* never held across an instant */
		struct event alloc = {buf->alloc_us, buf->allocated, buf->requested};
		g_array_append_val(ev, alloc);
		if (buf->alloc_us < start)
			start = buf->alloc_us;
		if (buf->free_us != TL_US_NEVER) {
			struct event fr = {buf->free_us, -buf->allocated, -buf->requested};
			g_array_append_val(ev, fr);
		}
	}
	if (ev->len > 1)
		qsort(ev->data, ev->len, sizeof(struct event), cmp_event);
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(tl_point));
	tl_point cur = {.us = start, .bytes = a->persistent_bytes,
			.requested = a->persistent_requested};
	g_array_append_val(pts, cur);
	a->peak_bytes = cur.bytes;
	a->peak_requested = cur.requested;
	a->peak_us = cur.us;
	for (guint i = 0; i < ev->len;) {
		int64_t us = g_array_index(ev, struct event, i).us;
		while (i < ev->len && g_array_index(ev, struct event, i).us == us) {
			cur.bytes = add_sat(cur.bytes, g_array_index(ev, struct event, i).bytes);
			cur.requested = add_sat(cur.requested,
						g_array_index(ev, struct event, i).requested);
			i++;
		}
		cur.us = us;
		/* change points of the allocated bytes (requested ride along) */
		tl_point *last = &g_array_index(pts, tl_point, pts->len - 1);
		if (cur.bytes != last->bytes)
			g_array_append_val(pts, cur);
		if (cur.bytes > a->peak_bytes) {
			a->peak_bytes = cur.bytes;
			a->peak_us = us;
		}
		if (cur.requested > a->peak_requested)
			a->peak_requested = cur.requested;
	}
	g_array_free(ev, TRUE);
	a->n_curve = pts->len;
	a->curve = (tl_point *)(void *)g_array_free(pts, FALSE);

	GArray *live = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (size_t k = 0; k < a->n_buffers; k++) {
		uint32_t i = a->buffers[k];
		const tl_buffer *buf = &mem->buffers[i];
		if (!counts(buf, with_estimated))
			continue;
		bool born = buf->kind == TL_BUF_PERSISTENT || buf->alloc_us <= a->peak_us;
		bool alive = buf->free_us == TL_US_NEVER || buf->free_us > a->peak_us;
		if (born && alive && buf->free_us != buf->alloc_us)
			g_array_append_val(live, i);
	}
	if (live->len > 1)
		qsort_r(live->data, live->len, sizeof(uint32_t), cmp_live, mem);
	a->n_live = live->len;
	a->live_at_peak = (uint32_t *)(void *)g_array_free(live, FALSE);
}

/* The last point of the curve at or before `us` (0 when none is), found
 * from *hint, the point a query near it found: samples read in time
 * order walk the curve instead of binary searching a curve far bigger
 * than the caches for each (a 100 MB dump spent 70 ms checking). */
static size_t curve_point(const tl_allocator *a, int64_t us, size_t *hint)
{
	size_t lo = *hint < a->n_curve ? *hint : 0, hi;
	if (a->curve[lo].us <= us) {
		/* gallop forward: [lo, hi) holds it */
		size_t step = 1;
		hi = lo + 1;
		while (hi < a->n_curve && a->curve[hi].us <= us) {
			lo = hi;
			hi = step < a->n_curve - lo ? lo + step : a->n_curve;
			step *= 2;
		}
	} else {
		/* gallop back */
		size_t step = 1;
		hi = lo;
		while (lo > 0 && a->curve[lo].us > us) {
			hi = lo;
			lo = step < lo ? lo - step : 0;
			step *= 2;
		}
		if (a->curve[lo].us > us) {
			*hint = 0;
			return 0;
		}
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->curve[mid].us <= us)
			lo = mid;
		else
			hi = mid;
	}
	*hint = lo;
	return lo;
}

int64_t tl_allocator_in_use_near(const tl_allocator *a, int64_t us, size_t *hint)
{
	if (a->n_curve == 0)
		return 0;
	return a->curve[curve_point(a, us, hint)].bytes;
}

int64_t tl_allocator_in_use(const tl_allocator *a, int64_t us)
{
	size_t hint = 0;
	return tl_allocator_in_use_near(a, us, &hint);
}

static int cmp_allocator(const void *a, const void *b)
{
	return strcmp(((const tl_allocator *)a)->name, ((const tl_allocator *)b)->name);
}

/* Allocator name -> index + 1 into mem->allocators. */
static GHashTable *allocator_index(const tl_memory *mem)
{
	GHashTable *h = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < mem->n_allocators; i++)
		g_hash_table_insert(h, (gpointer)mem->allocators[i].name, GSIZE_TO_POINTER(i + 1));
	return h;
}

/* One allocator_bytes_in_use sample of the dump, read once: the passes
 * over the samples (the placing of unrecorded births, the check) walk
 * these instead of the decoded records again, which on a 100 MB dump lie
 * far beyond the caches. */
struct dump_sample {
	int64_t us;        /* the end of the execution that reported it */
	int64_t in_use;    /* 0: the sample names its allocator, no more */
	const char *name;  /* the allocator set's own copy of the name */
	uint32_t allocator; /* index into mem->allocators */
};

/* The allocators (every allocator a buffer names, and every one the dump
 * samples), sorted by name, each with the list of its buffers; and the
 * samples, in execution and record order. */
static void make_allocators(tl_memory *mem, GArray *samples)
{
	const tl_run *run = mem->run;
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < mem->n_buffers; i++)
		g_hash_table_add(names, (gpointer)mem->buffers[i].allocator);
	for (size_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		for (size_t m = 0; m < e->ns->n_memory; m++) {
			const Tensorflow__AllocatorMemoryUsed *mu = e->ns->memory[m];
			const char *n = mu->allocator_name;
			if (n == NULL || mu->allocator_bytes_in_use == 0)
				continue;
			gpointer own = NULL;
			if (!g_hash_table_lookup_extended(names, n, &own, NULL)) {
				g_hash_table_add(names, (gpointer)n);
				own = (gpointer)n;
			}
			struct dump_sample smp = {
			    .us = exec_end_us(e), .in_use = in_use_of(mu), .name = own};
			g_array_append_val(samples, smp);
		}
	}
	mem->n_allocators = g_hash_table_size(names);
	mem->allocators = g_new0(tl_allocator, mem->n_allocators ? mem->n_allocators : 1);
	GHashTableIter it;
	gpointer key;
	size_t k = 0;
	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &key, NULL))
		mem->allocators[k++].name = key;
	g_hash_table_destroy(names);
	qsort(mem->allocators, mem->n_allocators, sizeof(tl_allocator), cmp_allocator);

	GHashTable *index = allocator_index(mem);
	uint32_t *of = g_new(uint32_t, mem->n_buffers ? mem->n_buffers : 1);
	for (size_t i = 0; i < mem->n_buffers; i++) {
		of[i] = (uint32_t)GPOINTER_TO_SIZE(
			    g_hash_table_lookup(index, mem->buffers[i].allocator)) -
			1;
		tl_allocator *a = &mem->allocators[of[i]];
		a->n_buffers++;
		if (mem->buffers[i].estimated)
			a->n_estimated++;
	}
	for (size_t i = 0; i < mem->n_allocators; i++) {
		tl_allocator *a = &mem->allocators[i];
		a->buffers = g_new(uint32_t, a->n_buffers ? a->n_buffers : 1);
		a->n_buffers = 0;
	}
	for (size_t i = 0; i < mem->n_buffers; i++) {
		tl_allocator *a = &mem->allocators[of[i]];
		a->buffers[a->n_buffers++] = (uint32_t)i;
	}
	g_free(of);
	g_hash_table_destroy(index);
	/* Each sample holds the set's copy of its name: by address, from the
	 * allocators' own names. */
	GHashTable *by_ptr = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < mem->n_allocators; i++)
		g_hash_table_insert(by_ptr, (gpointer)mem->allocators[i].name, GSIZE_TO_POINTER(i));
	for (guint i = 0; i < samples->len; i++) {
		struct dump_sample *smp = &g_array_index(samples, struct dump_sample, i);
		smp->allocator = (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(by_ptr, smp->name));
	}
	g_hash_table_destroy(by_ptr);
}

static void build_curves(tl_memory *mem, bool with_estimated)
{
	for (size_t i = 0; i < mem->n_allocators; i++) {
		tl_allocator *a = &mem->allocators[i];
		g_free(a->curve);
		g_free(a->live_at_peak);
		build_curve(mem, a, with_estimated);
	}
}

/* Calls `fn` for every allocator_bytes_in_use the dump records at an
 * execution's end, with the allocator it names. */
static void each_sample(tl_memory *mem, const GArray *samples,
			void (*fn)(tl_memory *mem, tl_allocator *a, int64_t us, int64_t in_use,
				   void *ctx),
			void *ctx)
{
	for (guint i = 0; i < samples->len; i++) {
		const struct dump_sample *smp = &g_array_index(samples, struct dump_sample, i);
		if (smp->in_use > 0)
			fn(mem, &mem->allocators[smp->allocator], smp->us, smp->in_use, ctx);
	}
}

struct check_sum {
	double *sum;  /* per allocator */
	size_t *hint; /* per allocator: where its last sample fell */
};

static void check_one(tl_memory *mem, tl_allocator *a, int64_t us, int64_t in_use, void *ctx)
{
	struct check_sum *c = ctx;
	size_t ai = (size_t)(a - mem->allocators);
	int64_t diff = add_sat(tl_allocator_in_use_near(a, us, &c->hint[ai]), -in_use);
	if (diff < 0)
		diff = diff == INT64_MIN ? INT64_MAX : -diff;
	if (diff > a->check_max_abs)
		a->check_max_abs = diff;
	c->sum[ai] += (double)diff;
	a->check_samples++;
}

/* The proof: our curve against the allocator's own in-use bytes at the
 * end of every execution that reported them. */
static void check_allocators(tl_memory *mem, const GArray *samples)
{
	struct check_sum c = {g_new0(double, mem->n_allocators + 1),
			      g_new0(size_t, mem->n_allocators + 1)};
	each_sample(mem, samples, check_one, &c);
	g_free(c.hint);
	for (size_t a = 0; a < mem->n_allocators; a++) {
		tl_allocator *al = &mem->allocators[a];
		al->check_mean_abs = al->check_samples ? c.sum[a] / (double)al->check_samples : 0;
	}
	g_free(c.sum);
}

/* ---- births the dump does not hold --------------------------------------
 *
 * The estimated buffers of an allocator are born together. Buffers of one
 * size are interchangeable for every sum, so what the samples decide is,
 * per size, how many were born by each sample; within a size the earliest
 * deadlines (birth_hi, the latest birth possible) are born first. Every buffer dead by
 * a sample was born by then (a birth is never after its deadline, nor its
 * deadline after its death), so a sample of allocator_bytes_in_use says
 * exactly how many bytes were born by then: the dump's value, less the
 * curve of the other buffers, plus the bytes of the estimated buffers
 * already dead. The samples are walked from the last: at the end of the
 * step every buffer was born; going back, each sample says how many bytes
 * were born after it, and those are unborn there: the fewest buffers whose
 * sizes meet it exactly (at most SET_MAX, in the order of their _Send's
 * start, latest first), else an exact fill of many by dynamic programming,
 * never one whose deadline has passed. Walking back, the uncertain bursts
 * of the step start (many receives before the first sample) come last,
 * where a wrong guess cannot spoil the samples after them. Each buffer
 * keeps the window between the samples around its birth (birth_lo,
 * birth_hi) and is born at its start. A sample that cannot be met sends the
 * choice back to an earlier-walked sample that had another exact set (at
 * most RERUN_MAX walks); the walk that met the most samples stands. A walk
 * is O(S + U log U) for S samples and U estimated buffers, plus searches
 * bounded per walk by a budget linear in S + U (each look at the K sizes
 * costs K) and DP_MAX for the exact fills. */

#define ALT_MAX 4		 /* exact sets one sample may try */
#define RERUN_MAX 16		 /* walks per allocator after the first */
#define SET_MAX 3		 /* buffers in one exact set searched for */
#define SEARCH_STEPS 4096	 /* set-search steps per sample */
#define DP_MAX ((size_t)1 << 22) /* 64-bit words of one exact fill's bitsets */
#define FILL_ORDERS 4		 /* orders an exact fill may try */

struct sample {
	int64_t us;
	int64_t residual; /* the dump's in-use minus the curve without estimates */
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->residual < y->residual ? -1 : (x->residual > y->residual);
}

/* The estimated buffers of one size. */
struct klass {
	int64_t size;
	uint32_t *m; /* members (positions in placer.u), by deadline */
	size_t n;
	size_t born;  /* m[0 .. born) are born by the sample being walked */
	size_t due;   /* m[0 .. due) have their deadline by then */
	size_t used;  /* members the set being built unbears */
	size_t rank;  /* position in the search's order ... */
	size_t stamp; /* ... when this is the search's stamp */
};

struct placer {
	tl_buffer *bufs;
	const struct sample *s; /* one per instant, by time */
	size_t n_s;
	uint32_t *u; /* the estimated buffers */
	size_t n_u;
	int64_t *lo0, *hi0; /* per position in u: the windows before any sample */
	tl_birth *birth0;   /* pinned or unconstrained */
	size_t *step_of;    /* the walk step that unbore it (n_s: born by the first sample) */
	struct klass *k;
	size_t n_k;
	uint32_t *members;    /* the classes' member lists, end to end */
	GHashTable *by_size;  /* size -> class */
	uint32_t *by_free;    /* positions by free time */
	uint32_t *by_due;     /* positions by deadline */
	uint32_t *class_of;   /* per position: its class */
	struct klass **order; /* the classes one search looks at */
	size_t n_order;
	size_t stamp;
	size_t steps;	 /* set-search steps left in this walk */
	size_t dp_steps; /* exact-fill bitset words left in this walk */
	uint8_t *alt;	 /* per walk step: which exact set to take */
	uint8_t *n_alt;	 /* per walk step: exact sets (or fill orders) to try */
	uint8_t *missed; /* per walk step: the sample not met */
	size_t misses;
};

static tl_buffer *member(const struct placer *p, uint32_t pos)
{
	return &p->bufs[p->u[pos]];
}

/* Narrows a buffer's window to [lo, hi] and bears it there. */
static void place(struct placer *p, uint32_t pos, int64_t lo, int64_t hi)
{
	tl_buffer *b = member(p, pos);
	if (lo < b->birth_lo)
		lo = b->birth_lo;
	if (hi > b->birth_hi)
		hi = b->birth_hi;
	if (lo > hi)
		lo = hi;
	b->birth_lo = lo;
	b->birth_hi = hi;
	/* no sample says anything: the least it can have lived */
	b->alloc_us = b->birth == TL_BIRTH_UNCONSTRAINED ? hi : lo;
}

/* Members a class can unbear at this sample: born, deadline not passed. */
static size_t spare(const struct klass *c)
{
	return c->born - c->due - c->used;
}

/* Exact sets: multisets of sizes summing to a need, fewest buffers first,
 * then in the search's order. */
struct search {
	struct placer *p;
	size_t steps;
	size_t want; /* the index of the set to keep */
	size_t found;
	size_t depth;
	struct klass *stack[SET_MAX];
	struct klass *keep[SET_MAX];
	size_t n_keep;
};

static void found_set(struct search *s)
{
	if (s->found == s->want || s->found == 0) {
		memcpy(s->keep, s->stack, s->depth * sizeof *s->stack);
		s->n_keep = s->depth;
	}
	s->found++;
}

/* Sets of `left` more buffers from order[from ..] summing to `need`. */
static void sets(struct search *s, size_t from, size_t left, int64_t need)
{
	struct placer *p = s->p;
	if (s->found >= ALT_MAX || s->steps == 0)
		return;
	if (left == 1) {
		s->steps--;
		struct klass *c = g_hash_table_lookup(p->by_size, &need);
		if (c == NULL || c->stamp != p->stamp || c->rank < from || spare(c) == 0)
			return;
		s->stack[s->depth++] = c;
		found_set(s);
		s->depth--;
		return;
	}
	for (size_t i = from; i < p->n_order && s->found < ALT_MAX && s->steps > 0; i++) {
		s->steps--;
		struct klass *c = p->order[i];
		if (spare(c) == 0 || c->size >= need)
			continue;
		c->used++;
		s->stack[s->depth++] = c;
		sets(s, i, left - 1, need - c->size);
		s->depth--;
		c->used--;
	}
}

/* The next member a class would unbear: its born one with the latest
 * deadline. Classes whose next one was sent last come first (data sent
 * late arrives late), then the latest deadline, then the larger size. */
static int cmp_unbear(const void *a, const void *b, void *ctx)
{
	const struct placer *p = ctx;
	const struct klass *x = *(struct klass *const *)a, *y = *(struct klass *const *)b;
	const tl_buffer *bx = member(p, x->m[x->born - 1]), *by = member(p, y->m[y->born - 1]);
	if (bx->sent_us != by->sent_us)
		return bx->sent_us > by->sent_us ? -1 : 1;
	if (bx->birth_hi != by->birth_hi)
		return bx->birth_hi > by->birth_hi ? -1 : 1;
	return x->size > y->size ? -1 : (x->size < y->size);
}

static int cmp_class_size(const void *a, const void *b)
{
	const struct klass *x = *(struct klass *const *)a, *y = *(struct klass *const *)b;
	return x->size > y->size ? -1 : (x->size < y->size);
}

/* The classes a need can draw on, in the order above; false when the
 * walk's search budget cannot pay for looking at every class. */
static bool search_order(struct placer *p, int64_t need)
{
	p->n_order = 0;
	if (p->steps < p->n_k)
		return false;
	p->steps -= p->n_k;
	p->stamp++;
	for (size_t i = 0; i < p->n_k; i++) {
		struct klass *c = &p->k[i];
		if (c->size > 0 && c->size <= need && spare(c) > 0)
			p->order[p->n_order++] = c;
	}
	qsort_r(p->order, p->n_order, sizeof *p->order, cmp_unbear, p);
	for (size_t i = 0; i < p->n_order; i++) {
		p->order[i]->rank = i;
		p->order[i]->stamp = p->stamp;
	}
	return true;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The bitsets of an exact fill, one row per item. */
struct reach {
	uint64_t *bits;
	size_t *top;  /* per row: words written; the words above are 0 */
	size_t words; /* per row */
};

static bool reach_has(const struct reach *r, size_t row, size_t sum)
{
	return sum / 64 < r->top[row] && (r->bits[row * r->words + sum / 64] >> (sum % 64) & 1);
}

/* Many births in one window (a burst at the step start): an exact sum
 * over the classes' spare members, by dynamic programming over the need in
 * units of the sizes' greatest common divisor (each class split into 1, 2,
 * 4... members), the search's order first. Sets c->used; false when there
 * is none or its bitsets would take more than DP_MAX words. */
static bool exact_fill(struct placer *p, int64_t need)
{
	int64_t unit = need;
	size_t n_items = 0;
	for (size_t i = 0; i < p->n_order; i++) {
		unit = gcd64(unit, p->order[i]->size);
		for (size_t c = spare(p->order[i]), piece = 1; c > 0; piece *= 2) {
			c -= piece < c ? piece : c;
			n_items++;
		}
	}
	size_t n = (size_t)(need / unit);
	size_t words = n / 64 + 1;
	if (n_items == 0 || words > DP_MAX / n_items || n_items * words > p->dp_steps)
		return false;
	p->dp_steps -= n_items * words;
	struct item {
		struct klass *c;
		size_t take;
		size_t w;
	} *items = g_new(struct item, n_items);
	size_t m = 0;
	for (size_t i = 0; i < p->n_order; i++) {
		struct klass *k = p->order[i];
		for (size_t c = spare(k), piece = 1; c > 0; piece *= 2) {
			size_t take = piece < c ? piece : c;
			items[m++] = (struct item){k, take, take * (size_t)(k->size / unit)};
			c -= take;
		}
	}
	/* reach[it]: the sums (bits 0..n) items before `it` make, one bitset
	 * per item so that the sum is taken apart again. Row `it` is written
	 * up to word top[it]; its words above are 0 (no sum of the items
	 * before reaches them), so neither written nor read. */
	struct reach r = {g_new(uint64_t, (n_items + 1) * words), g_new(size_t, n_items + 1),
			  words};
	r.bits[0] = 1;
	r.top[0] = 1;
	size_t used = 0; /* items looked at: the first whose bitset holds n */
	while (used < n_items && !reach_has(&r, used, n)) {
		const uint64_t *from = r.bits + used * words;
		uint64_t *to = r.bits + (used + 1) * words;
		size_t w = items[used].w, ws = w / 64, bs = w % 64, top = r.top[used];
		size_t t = top + ws + 1 < words ? top + ws + 1 : words;
		/* to = from | from << w, word by word */
		memcpy(to, from, top * sizeof *to);
		memset(to + top, 0, (t - top) * sizeof *to);
		for (size_t y = 0; y < top && y + ws < t; y++)
			to[y + ws] |= from[y] << bs;
		for (size_t y = 0; bs != 0 && y < top && y + ws + 1 < t; y++)
			to[y + ws + 1] |= from[y] >> (64 - bs);
		r.top[used + 1] = t;
		used++;
	}
	bool met = reach_has(&r, used, n);
	/* the last item needed for v is the first whose bitset holds v */
	for (size_t v = n; met && v > 0;) {
		size_t k = 0;
		while (!reach_has(&r, k + 1, v))
			k++;
		items[k].c->used += items[k].take;
		v -= items[k].w;
	}
	g_free(r.bits);
	g_free(r.top);
	g_free(items);
	return met;
}

static int cmp_class_size_up(const void *a, const void *b)
{
	return -cmp_class_size(a, b);
}

/* The orders an exact fill may take, each a choice a later sample can send
 * back to: the search's (latest _Send first), reversed, larger sizes
 * first, smaller sizes first. */
static void fill_order(struct placer *p, size_t which)
{
	if (which == 1) {
		for (size_t i = 0, j = p->n_order; i + 1 < j; i++, j--) {
			struct klass *x = p->order[i];
			p->order[i] = p->order[j - 1];
			p->order[j - 1] = x;
		}
	} else if (which == 2) {
		qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size);
	} else if (which == 3) {
		qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size_up);
	}
}

/* No exact set found: largest sizes first, each class gives as many as
 * fit, so the bytes come as close below the need as a first fit gets;
 * whether that meets it exactly. */
static bool fill(struct placer *p, int64_t need)
{
	qsort(p->order, p->n_order, sizeof *p->order, cmp_class_size);
	for (size_t i = 0; i < p->n_order && need > 0; i++) {
		struct klass *c = p->order[i];
		size_t m = (size_t)(need / c->size);
		if (m > spare(c))
			m = spare(c);
		c->used += m;
		need -= (int64_t)m * c->size;
	}
	return need == 0;
}

/* Walk step q, at sample time t (the next sample at `next`): `need` bytes
 * were born after t. The exact set alt[q] of a few buffers is unborn (the
 * first if there are fewer); with none, an exact fill of many; else the
 * closest fill, and the sample is missed. */
static bool unbear(struct placer *p, size_t q, int64_t need, int64_t t, int64_t next,
		   int64_t *unborn)
{
	*unborn = 0;
	p->n_alt[q] = 0;
	if (!search_order(p, need))
		return false;
	struct search s = {.p = p, .want = p->alt[q]};
	s.steps = p->steps < SEARCH_STEPS ? p->steps : SEARCH_STEPS;
	size_t budget = s.steps;
	for (size_t size = 1; size <= SET_MAX && s.found < ALT_MAX && s.steps > 0; size++)
		sets(&s, 0, size, need);
	p->steps -= budget - s.steps;
	p->n_alt[q] = (uint8_t)(s.found < ALT_MAX ? s.found : ALT_MAX);
	bool met = true;
	if (s.found > 0) {
		for (size_t i = 0; i < s.n_keep; i++)
			s.keep[i]->used++;
	} else {
		fill_order(p, p->alt[q]);
		if (exact_fill(p, need))
			p->n_alt[q] = FILL_ORDERS;
		else
			met = fill(p, need);
	}
	for (size_t i = 0; i < p->n_order; i++) {
		struct klass *c = p->order[i];
		*unborn += (int64_t)c->used * c->size;
		for (; c->used > 0; c->used--) {
			uint32_t pos = c->m[--c->born];
			place(p, pos, t + 1, next);
			p->step_of[pos] = q;
		}
	}
	return met;
}

/* One walk over the samples, from the last, with the choices in p->alt. */
static void walk(struct placer *p)
{
	int64_t total = 0, dead = 0;
	for (size_t i = 0; i < p->n_u; i++) {
		tl_buffer *b = member(p, (uint32_t)i);
		b->birth_lo = p->lo0[i];
		b->birth_hi = p->hi0[i];
		b->birth = p->birth0[i];
		p->step_of[i] = p->n_s;
		total = add_sat(total, b->allocated);
	}
	dead = total;
	for (size_t i = 0; i < p->n_k; i++)
		p->k[i].born = p->k[i].due = p->k[i].n;
	size_t n_dead = p->n_u, n_due = p->n_u;
	p->misses = 0;
	p->steps = 256 * (p->n_s + p->n_u) + ((size_t)1 << 20);
	p->dp_steps = 4 * DP_MAX;
	for (size_t q = 0; q < p->n_s; q++) {
		size_t j = p->n_s - 1 - q;
		int64_t t = p->s[j].us;
		int64_t next = q > 0 ? p->s[j + 1].us : INT64_MAX;
		for (; n_dead > 0 && member(p, p->by_free[n_dead - 1])->free_us > t; n_dead--)
			dead -= member(p, p->by_free[n_dead - 1])->allocated;
		for (; n_due > 0 && member(p, p->by_due[n_due - 1])->birth_hi > t; n_due--)
			p->k[p->class_of[p->by_due[n_due - 1]]].due--;
		/* bytes born by t, and how many of ours were born since */
		int64_t need = add_sat(total, -add_sat(p->s[j].residual, dead));
		bool met = need == 0;
		p->n_alt[q] = 0;
		if (need > 0) {
			int64_t unborn = 0;
			met = unbear(p, q, need, t, next, &unborn);
			total -= unborn;
		}
		p->missed[q] = !met;
		p->misses += !met;
	}
	int64_t first = p->n_s > 0 ? p->s[0].us : INT64_MAX;
	for (size_t i = 0; i < p->n_k; i++)
		for (size_t m = 0; m < p->k[i].born; m++)
			place(p, p->k[i].m[m], INT64_MIN, first);
}

/* The latest walk step before `miss` (and from `from` on) with an exact set
 * not tried yet, or SIZE_MAX. */
static size_t choice_before(const struct placer *p, size_t from, size_t miss)
{
	for (size_t c = miss; c-- > from;)
		if (p->alt[c] + 1 < p->n_alt[c])
			return c;
	return SIZE_MAX;
}

/* Walks until every sample is met or RERUN_MAX walks more were tried: at
 * the first miss not yet accepted, the latest earlier choice takes its
 * next exact set; a miss no choice before it can mend is accepted. The walk
 * with the fewest misses is the last one made. */
static void search_births(struct placer *p)
{
	walk(p);
	size_t best = p->misses, accepted = 0;
	uint8_t *best_alt = g_memdup2(p->alt, p->n_s + 1);
	for (int r = 0; r < RERUN_MAX && p->misses > 0; r++) {
		size_t c = SIZE_MAX;
		for (size_t q = accepted; q < p->n_s && c == SIZE_MAX; q++) {
			if (!p->missed[q])
				continue;
			c = choice_before(p, accepted, q);
			if (c == SIZE_MAX)
				accepted = q + 1;
		}
		if (c == SIZE_MAX)
			break;
		p->alt[c]++;
		memset(p->alt + c + 1, 0, p->n_s - c - 1);
		walk(p);
		if (p->misses < best) {
			best = p->misses;
			memcpy(best_alt, p->alt, p->n_s);
		}
	}
	if (p->misses > best) {
		memcpy(p->alt, best_alt, p->n_s);
		walk(p);
	}
	g_free(best_alt);
}

/* Births next to a sample that could not be met: the samples contradict
 * them (or something the dump does not show). */
static void mark_contradicted(struct placer *p)
{
	for (size_t i = 0; i < p->n_u; i++) {
		size_t q = p->step_of[i];
		tl_buffer *b = member(p, (uint32_t)i);
		bool near =
		    (q < p->n_s && p->missed[q]) || (q > 0 && q <= p->n_s && p->missed[q - 1]);
		if (near && b->birth == TL_BIRTH_PINNED)
			b->birth = TL_BIRTH_CONTRADICTED;
	}
}

struct by_key {
	const struct placer *p;
	bool free; /* by free time, else by deadline */
};

static int cmp_pos(const void *a, const void *b, void *ctx)
{
	const struct by_key *k = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const tl_buffer *bx = member(k->p, x), *by = member(k->p, y);
	int64_t vx = k->free ? bx->free_us : bx->birth_hi,
		vy = k->free ? by->free_us : by->birth_hi;
	if (vx != vy)
		return vx < vy ? -1 : 1;
	return x < y ? -1 : (x > y);
}

/* Whether some sample falls where the buffer may live, [birth_lo, free). */
static bool sampled(const struct placer *p, const tl_buffer *b)
{
	size_t lo = 0, hi = p->n_s; /* first sample at or after birth_lo */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->s[mid].us < b->birth_lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_s && p->s[lo].us < b->free_us;
}

/* The classes: positions by deadline, cut where the size changes after a
 * stable sort by size. */
static void make_classes(struct placer *p)
{
	struct by_key key = {p, false};
	qsort_r(p->by_due, p->n_u, sizeof *p->by_due, cmp_pos, &key);
	p->by_size = g_hash_table_new(g_int64_hash, g_int64_equal);
	p->k = g_new0(struct klass, p->n_u + 1);
	p->members = g_new(uint32_t, p->n_u + 1);
	for (size_t i = 0; i < p->n_u; i++) {
		uint32_t pos = p->by_due[i];
		struct klass *c = g_hash_table_lookup(p->by_size, &member(p, pos)->allocated);
		if (c == NULL) {
			c = &p->k[p->n_k++];
			c->size = member(p, pos)->allocated;
			g_hash_table_insert(p->by_size, &c->size, c);
		}
		c->n++;
	}
	/* members of each class, in deadline order */
	size_t off = 0;
	for (size_t i = 0; i < p->n_k; i++) {
		p->k[i].m = p->members + off;
		off += p->k[i].n;
		p->k[i].n = 0;
	}
	for (size_t i = 0; i < p->n_u; i++) {
		uint32_t pos = p->by_due[i];
		struct klass *c = g_hash_table_lookup(p->by_size, &member(p, pos)->allocated);
		p->class_of[pos] = (uint32_t)(c - p->k);
		c->m[c->n++] = pos;
	}
	p->order = g_new(struct klass *, p->n_k + 1);
}

static void place_allocator(tl_memory *mem, tl_allocator *a, GArray *samples)
{
	/* one value per instant: the samples of one instant agree, or the dump
	 * contradicts itself and the check says so */
	if (samples->len > 1)
		qsort(samples->data, samples->len, sizeof(struct sample), cmp_sample);
	struct sample *s = (struct sample *)(void *)samples->data;
	size_t n_s = 0;
	for (guint i = 0; i < samples->len; i++)
		if (n_s == 0 || s[i].us != s[n_s - 1].us)
			s[n_s++] = s[i];
	struct placer p = {.bufs = mem->buffers, .s = s, .n_s = n_s};
	size_t n = a->n_estimated + 1;
	p.u = g_new(uint32_t, n);
	for (size_t i = 0; i < a->n_buffers; i++) {
		tl_buffer *b = &mem->buffers[a->buffers[i]];
		if (!b->estimated)
			continue;
		if (b->birth_lo > b->birth_hi)
			b->birth_lo = b->birth_hi;
		p.u[p.n_u++] = a->buffers[i];
	}
	p.lo0 = g_new(int64_t, n);
	p.hi0 = g_new(int64_t, n);
	p.birth0 = g_new(tl_birth, n);
	p.step_of = g_new(size_t, n);
	p.by_free = g_new(uint32_t, n);
	p.by_due = g_new(uint32_t, n);
	p.class_of = g_new(uint32_t, n);
	for (size_t i = 0; i < p.n_u; i++) {
		const tl_buffer *b = member(&p, (uint32_t)i);
		p.lo0[i] = b->birth_lo;
		p.hi0[i] = b->birth_hi;
		p.birth0[i] = sampled(&p, b) ? TL_BIRTH_PINNED : TL_BIRTH_UNCONSTRAINED;
		p.by_free[i] = p.by_due[i] = (uint32_t)i;
	}
	struct by_key key = {&p, true};
	qsort_r(p.by_free, p.n_u, sizeof *p.by_free, cmp_pos, &key);
	make_classes(&p);
	p.alt = g_new0(uint8_t, n_s + 1);
	p.n_alt = g_new0(uint8_t, n_s + 1);
	p.missed = g_new0(uint8_t, n_s + 1);
	search_births(&p);
	mark_contradicted(&p);
	for (size_t i = 0; i < p.n_u; i++)
		if (member(&p, (uint32_t)i)->birth != TL_BIRTH_PINNED)
			a->n_unplaced++;
	g_hash_table_destroy(p.by_size);
	g_free(p.members);
	g_free(p.k);
	g_free(p.order);
	g_free(p.alt);
	g_free(p.n_alt);
	g_free(p.missed);
	g_free(p.lo0);
	g_free(p.hi0);
	g_free(p.birth0);
	g_free(p.step_of);
	g_free(p.by_free);
	g_free(p.by_due);
	g_free(p.class_of);
	g_free(p.u);
}

struct collected {
	GArray **samples; /* per allocator with estimated buffers: struct sample */
	size_t *hint;     /* per allocator: where its last sample fell */
};

static void collect_sample(tl_memory *mem, tl_allocator *a, int64_t us, int64_t in_use, void *ctx)
{
	struct collected *c = ctx;
	size_t k = (size_t)(a - mem->allocators);
	if (c->samples[k] == NULL)
		return;
	int64_t ours = tl_allocator_in_use_near(a, us, &c->hint[k]);
	struct sample s = {us, add_sat(in_use, ours == INT64_MIN ? INT64_MAX : -ours)};
	g_array_append_val(c->samples[k], s);
}

/* Births of the estimated buffers of every allocator that has some, from
 * the curves built without them. */
static void place_estimated(tl_memory *mem, const GArray *all)
{
	GArray **samples = g_new0(GArray *, mem->n_allocators + 1);
	for (size_t a = 0; a < mem->n_allocators; a++)
		if (mem->allocators[a].n_estimated > 0)
			samples[a] = g_array_new(FALSE, FALSE, sizeof(struct sample));
	struct collected c = {samples, g_new0(size_t, mem->n_allocators + 1)};
	each_sample(mem, all, collect_sample, &c);
	g_free(c.hint);
	for (size_t a = 0; a < mem->n_allocators; a++) {
		if (samples[a] == NULL)
			continue;
		place_allocator(mem, &mem->allocators[a], samples[a]);
		g_array_free(samples[a], TRUE);
	}
	g_free(samples);
}

static void free_allocators(tl_memory *mem)
{
	for (size_t i = 0; i < mem->n_allocators; i++) {
		g_free(mem->allocators[i].curve);
		g_free(mem->allocators[i].live_at_peak);
		g_free(mem->allocators[i].buffers);
	}
	g_free(mem->allocators);
	mem->allocators = NULL;
	mem->n_allocators = 0;
}

/* An execution's place in allocation order, its keys copied out of the
 * decoded records once: sorting by them in place reads each record
 * about log n times, all over a 100 MB dump. */
struct alloc_order {
	int64_t compute_start, start;
	uint32_t exec;
};

static int cmp_alloc_order(const void *a, const void *b)
{
	const struct alloc_order *x = a, *y = b;
	if (x->compute_start != y->compute_start)
		return x->compute_start < y->compute_start ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->exec < y->exec ? -1 : x->exec > y->exec;
}

/* The buffers of the run and their references; `full`: the allocators,
 * their curves and the check against the dump's samples too. */
static tl_memory *memory_build(const tl_run *run, bool full)
{
	tl_memory *mem = g_new0(tl_memory, 1);
	mem->run = run;
	mem->step_start_us = step_bounds(run, &mem->step_end_us);
	struct builder b = {.run = run, .arena = run->arena};
	b.buffers = g_array_new(FALSE, FALSE, sizeof(tl_buffer));
	b.refs = g_array_new(FALSE, FALSE, sizeof(struct ref));
	b.by_key = g_hash_table_new(buf_key_hash, buf_key_equal);
	b.by_tensor = g_hash_table_new(tensor_key_hash, g_direct_equal);

	/* Executions in the order their allocations happened, so a buffer
	 * exists before any alias of it is seen. */
	struct alloc_order *by = g_new(struct alloc_order, run->n_execs ? run->n_execs : 1);
	size_t n = 0;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const tl_exec *e = &run->execs[i];
		if (run->devices[e->device].kind == TL_DEV_EXECUTOR)
			by[n++] = (struct alloc_order){.compute_start = exec_compute_start_us(e),
						       .start = exec_start_us(e),
						       .exec = i};
	}
	qsort(by, n, sizeof *by, cmp_alloc_order);
	uint32_t *order = g_new(uint32_t, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		order[i] = by[i].exec;
	g_free(by);
	for (size_t i = 0; i < n; i++) {
		/* The order jumps about a 100 MB dump: what the executions a
		 * few steps ahead will read is fetched meanwhile. */
		if (i + 16 < n)
			__builtin_prefetch(&run->execs[order[i + 16]]);
		if (i + 8 < n) {
			const Tensorflow__NodeExecStats *ahead = run->execs[order[i + 8]].ns;
			__builtin_prefetch(ahead);
			__builtin_prefetch((const char *)ahead + 64);
			__builtin_prefetch((const char *)ahead + 128);
		}
		if (i + 4 < n) {
			const Tensorflow__NodeExecStats *ahead = run->execs[order[i + 4]].ns;
			if (ahead->n_output > 0)
				__builtin_prefetch(ahead->output[0]);
			if (ahead->n_memory > 0)
				__builtin_prefetch(ahead->memory[0]);
		}
		scan_outputs(&b, (int32_t)order[i]);
		forward_missing(&b, (int32_t)order[i]);
	}
	g_free(order);
	g_free(b.min_ends);

	drop_refs(&b, mem);
	settle_buffers(&b, mem);
	add_unrecorded_recvs(&b, mem);

	/* Aliases grouped per buffer. */
	mem->n_refs = b.refs->len;
	mem->refs = g_new(tl_tensor_ref, b.refs->len ? b.refs->len : 1);
	uint32_t *count = g_new0(uint32_t, b.buffers->len + 1);
	for (guint i = 0; i < b.refs->len; i++)
		count[g_array_index(b.refs, struct ref, i).buffer]++;
	uint32_t pos = 0;
	for (guint i = 0; i < b.buffers->len; i++) {
		buffer_at(&b, i)->first_ref = pos;
		pos += count[i];
		count[i] = 0;
	}
	for (guint i = 0; i < b.refs->len; i++) {
		const struct ref *r = &g_array_index(b.refs, struct ref, i);
		tl_buffer *buf = buffer_at(&b, r->buffer);
		mem->refs[buf->first_ref + count[r->buffer]++] = r->r;
		buf->n_refs++;
	}
	g_free(count);
	mem->n_buffers = b.buffers->len;
	mem->buffers = (tl_buffer *)(void *)g_array_free(b.buffers, FALSE);
	g_array_free(b.refs, TRUE);
	g_hash_table_destroy(b.by_key);
	g_hash_table_destroy(b.by_tensor);

	bool any_estimated = false;
	for (size_t i = 0; i < mem->n_buffers; i++) {
		tl_buffer *buf = &mem->buffers[i];
		any_estimated = any_estimated || buf->estimated;
		if (!buf->estimated) {
			buf->birth = TL_BIRTH_RECORDED;
			buf->birth_lo = buf->birth_hi = buf->alloc_us;
		}
	}
	if (!full)
		return mem;
	GArray *samples = g_array_new(FALSE, FALSE, sizeof(struct dump_sample));
	make_allocators(mem, samples);
	build_curves(mem, false);
	if (any_estimated) {
		place_estimated(mem, samples);
		build_curves(mem, true);
	}
	check_allocators(mem, samples);
	g_array_free(samples, TRUE);
	return mem;
}

tl_memory *tl_memory_build(const tl_run *run)
{
	return memory_build(run, true);
}

tl_memory *tl_memory_build_buffers(const tl_run *run)
{
	return memory_build(run, false);
}

void tl_memory_free(tl_memory *mem)
{
	if (mem == NULL)
		return;
	free_allocators(mem);
	g_free(mem->buffers);
	g_free(mem->refs);
	g_free(mem);
}

const char *tl_tensor_ref_name(const tl_memory *mem, const tl_tensor_ref *r)
{
	const tl_exec *e = &mem->run->execs[r->exec];
	char *s = g_strdup_printf("%s:%d", e->node, r->slot);
	const char *out = tl_arena_strdup(mem->run->arena, s);
	g_free(s);
	return out;
}
