/*
 * memory: the buffers of a run and the tensors (references) that alias
 * them, each buffer's birth and death (memory.h says how); then, through
 * memory_recv.c, memory_curve.c and memory_birth.c, the buffers the dump
 * has no stats for, the allocators' curves and the check.
 */
#include "analysis/memory_internal.h"

#include "analysis/dataflow.h"
#include "analysis/opcost.h"
#include "base/runsort.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

const char *tl_memory_kind_name(tl_buffer_kind k)
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

const char *tl_memory_birth_name(tl_birth b)
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

const char *tl_memory_cause_name(tl_free_cause c)
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

struct buf_key {
	const char *allocator;
	int64_t id;
	uint64_t ptr;
};

/* Buffers by key: open addressing, the keys in the slots (a lookup reads
 * one slot, where a GHashTable read its hash, key and value arrays and the
 * key itself). A key's allocator is the builder's copy of the name
 * (tl_memory_allocator_name): its pointer stands for its text. */
struct key_slot {
	const char *allocator;
	int64_t id;
	uint64_t ptr;
	uint32_t value; /* buffer + 1; 0: empty */
};

struct key_table {
	struct key_slot *slots;
	size_t mask; /* slots - 1, a power of two less one */
	size_t n;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static size_t key_hash(const struct buf_key *k)
{
	uint64_t h = mix64((uint64_t)(uintptr_t)k->allocator);
	h = mix64(h ^ (uint64_t)k->id);
	return (size_t)mix64(h ^ k->ptr);
}

static struct key_slot *key_slot_of(struct key_table *t, const struct buf_key *k)
{
	for (size_t i = key_hash(k) & t->mask;; i = (i + 1) & t->mask) {
		struct key_slot *s = &t->slots[i];
		if (s->value == 0 ||
		    (s->id == k->id && s->ptr == k->ptr && s->allocator == k->allocator))
			return s;
	}
}

static struct key_table *key_table_new(size_t expect)
{
	struct key_table *t = g_new0(struct key_table, 1);
	size_t n = 64;
	while (n < expect * 2)
		n *= 2;
	t->slots = g_new0(struct key_slot, n);
	t->mask = n - 1;
	return t;
}

static void key_table_free(struct key_table *t)
{
	if (t == NULL)
		return;
	g_free(t->slots);
	g_free(t);
}

/* The buffer of key k, or -1. */
static int64_t key_find(struct key_table *t, const struct buf_key *k)
{
	const struct key_slot *s = key_slot_of(t, k);
	return s->value != 0 ? (int64_t)s->value - 1 : -1;
}

/* k is buffer `value` from now on. */
static void key_put(struct key_table *t, const struct buf_key *k, uint32_t value)
{
	if ((t->n + 1) * 2 > t->mask + 1) {
		struct key_slot *old = t->slots;
		size_t n_old = t->mask + 1;
		t->slots = g_new0(struct key_slot, n_old * 2);
		t->mask = n_old * 2 - 1;
		for (size_t i = 0; i < n_old; i++)
			if (old[i].value != 0) {
				struct buf_key ok = {old[i].allocator, old[i].id, old[i].ptr};
				*key_slot_of(t, &ok) = old[i];
			}
		g_free(old);
	}
	struct key_slot *s = key_slot_of(t, k);
	if (s->value == 0)
		t->n++;
	*s = (struct key_slot){k->allocator, k->id, k->ptr, value + 1};
}

const char *tl_memory_allocator_name(struct memory_builder *b, const char *s)
{
	if (s == NULL)
		s = "";
	/* runs of buffers name one allocator: the last answer first */
	if (s == b->last_allocator)
		return s;
	/* one of the first copies made: by its address, else by its text (a
	 * dump names a few allocators, each record with a copy of its name) */
	for (unsigned i = 0; i < b->n_names_near; i++)
		if (s == b->names_near[i]) {
			b->last_allocator = s;
			return s;
		}
	if (b->last_allocator != NULL && strcmp(s, b->last_allocator) == 0)
		return b->last_allocator;
	for (unsigned i = 0; i < b->n_names_near; i++)
		if (strcmp(s, b->names_near[i]) == 0) {
			b->last_allocator = b->names_near[i];
			return b->names_near[i];
		}
	const char *own = g_hash_table_lookup(b->allocator_names, s);
	if (own == NULL) {
		own = s;
		g_hash_table_insert(b->allocator_names, (gpointer)s, (gpointer)s);
		if (b->n_names_near < TL_MEMORY_NAMES_NEAR)
			b->names_near[b->n_names_near++] = own;
	}
	b->last_allocator = own;
	return own;
}

/* The free time of a buffer while it is not known: below every time a dump
 * holds (0 and negative times are times: relative and shifted dumps have
 * them). */
#define FREE_UNSET INT64_MIN

static int64_t size_of(int64_t bytes)
{
	if (bytes >= 0 && bytes <= TL_MEMORY_BYTES_LIMIT)
		return bytes;
	tl_warn("memory-size-range", "allocation sizes below 0 or over 1 PiB treated as 0");
	return 0;
}

static bool record_in_range(int64_t bytes, int64_t micros)
{
	if (bytes >= -TL_MEMORY_BYTES_LIMIT && bytes <= TL_MEMORY_BYTES_LIMIT &&
	    micros >= -TL_TIME_LIMIT_US && micros <= TL_TIME_LIMIT_US)
		return true;
	tl_warn("memory-record-range", "allocation records over 1 PiB or beyond 73 years from "
				       "1970 skipped");
	return false;
}

/* ---- the executions' records, copied out ----
 * The buffers are made in allocation order, which jumps about the decoded
 * dump (a 100 MB one spent most of its scan waiting on memory, following
 * pointers from execution to output to description). What the scan reads
 * is copied out first, in the order the records lie, into flat arrays; the
 * scan in allocation order reads only those. */

/* An output of an execution that describes its allocation. */
struct flat_out {
	const char *allocator; /* the builder's copy of the name */
	int64_t id;
	uint64_t ptr;
	int64_t requested; /* as in the dump */
	int64_t allocated; /* as in the dump (0: requested) */
	const Tensorflow__TensorDescription *desc;
	int32_t slot;
	bool persistent; /* a persistent allocation id, or a variable's output */
};

/* An allocation an execution references. */
struct flat_refd {
	const char *allocator;
	int64_t id;
	uint64_t ptr;
	int64_t requested, allocated;
};

/* An AllocatorMemoryUsed: its allocator and its allocation records. */
struct flat_mu {
	const char *allocator;
	uint32_t first_rec, n_rec;
};

struct flat_rec {
	int64_t bytes, micros;
};

struct flat_exec {
	int64_t start, compute_start, compute_end; /* us */
	uint32_t first_out, first_refd, first_mu;
	uint32_t n_out, n_refd, n_mu;
	bool forwarding; /* a forwarding op with a graph node */
};

struct flat {
	struct flat_exec *exec; /* per execution; records for executors' only */
	int64_t *end;		/* per execution, its end (us): the drops read it by link */
	GArray *outs;		/* struct flat_out */
	GArray *refds;		/* struct flat_refd */
	GArray *mus;		/* struct flat_mu */
	GArray *recs;		/* struct flat_rec */
};

/* Element i of a flat array, NULL while the array is empty (an empty
 * GArray has no data, and NULL plus an offset is undefined even when
 * nothing is read). */
#define FLAT_AT(arr, type, i) ((arr)->len > 0 ? &g_array_index(arr, type, i) : (type *)NULL)

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

bool tl_memory_is_forwarding_op(const char *op)
{
	static const char *const ops[] = {"Identity",  "Reshape",     "Switch",
					  "RefSwitch", "RefIdentity", "ApplyGradientDescent",
					  "Snapshot"};
	return tl_opcost_op_in(op, ops, G_N_ELEMENTS(ops));
}

/* The records of execution x, an executor's, appended to f. */
static void flatten_records(struct memory_builder *b, struct flat *f, uint32_t x)
{
	const tl_exec *e = &b->run->execs[x];
	const Tensorflow__NodeExecStats *ns = e->ns;
	struct flat_exec *fx = &f->exec[x];
	fx->forwarding = e->gnode >= 0 && tl_memory_is_forwarding_op(e->op);
	struct id_set ids;
	id_set_init(&ids, ns->memory_stats, ns->n_output);
	int variable = -1; /* whether e's op is a variable, once asked */
	for (size_t k = 0; k < ns->n_output; k++) {
		const Tensorflow__NodeOutput *o = ns->output[k];
		const Tensorflow__TensorDescription *td = o->tensor_description;
		const Tensorflow__AllocationDescription *ad =
		    td != NULL ? td->allocation_description : NULL;
		if (ad == NULL)
			continue;
		bool persistent = in_ids(&ids, ad->allocation_id);
		if (!persistent) {
			if (variable < 0)
				variable = tl_opcost_is_variable(e->op);
			persistent = variable;
		}
		struct flat_out fo = {.allocator = tl_memory_allocator_name(b, ad->allocator_name),
				      .id = ad->allocation_id,
				      .ptr = ad->ptr,
				      .requested = ad->requested_bytes,
				      .allocated = ad->allocated_bytes,
				      .desc = td,
				      .slot = o->slot,
				      .persistent = persistent};
		g_array_append_val(f->outs, fo);
		fx->n_out++;
	}
	if (ids.set != NULL)
		g_hash_table_destroy(ids.set);
	for (size_t k = 0; k < ns->n_referenced_tensor; k++) {
		const Tensorflow__AllocationDescription *ad = ns->referenced_tensor[k];
		struct flat_refd fr = {.allocator = tl_memory_allocator_name(b, ad->allocator_name),
				       .id = ad->allocation_id,
				       .ptr = ad->ptr,
				       .requested = ad->requested_bytes,
				       .allocated = ad->allocated_bytes};
		g_array_append_val(f->refds, fr);
		fx->n_refd++;
	}
	for (size_t m = 0; m < ns->n_memory; m++) {
		const Tensorflow__AllocatorMemoryUsed *mu = ns->memory[m];
		struct flat_mu fm = {.allocator = tl_memory_allocator_name(b, mu->allocator_name),
				     .first_rec = f->recs->len,
				     .n_rec = (uint32_t)mu->n_allocation_records};
		for (size_t r = 0; r < mu->n_allocation_records; r++) {
			const Tensorflow__AllocationRecord *rec = mu->allocation_records[r];
			struct flat_rec fr = {rec->alloc_bytes, rec->alloc_micros};
			g_array_append_val(f->recs, fr);
		}
		g_array_append_val(f->mus, fm);
		fx->n_mu++;
	}
}

/* Every execution's times; the records of the executors' executions. */
static struct flat *flatten(struct memory_builder *b)
{
	const tl_run *run = b->run;
	struct flat *f = g_new0(struct flat, 1);
	f->exec = g_new0(struct flat_exec, run->n_execs ? run->n_execs : 1);
	f->end = g_new(int64_t, run->n_execs ? run->n_execs : 1);
	f->outs = g_array_sized_new(FALSE, FALSE, sizeof(struct flat_out), (guint)run->n_execs);
	f->refds = g_array_new(FALSE, FALSE, sizeof(struct flat_refd));
	f->mus = g_array_sized_new(FALSE, FALSE, sizeof(struct flat_mu), (guint)run->n_execs);
	f->recs = g_array_sized_new(FALSE, FALSE, sizeof(struct flat_rec), (guint)run->n_execs);
	for (uint32_t x = 0; x < run->n_execs; x++) {
		const tl_exec *e = &run->execs[x];
		const Tensorflow__NodeExecStats *ns = e->ns;
		struct flat_exec *fx = &f->exec[x];
		fx->start = exec_start_us(e);
		fx->compute_start = ns->all_start_micros + ns->op_start_rel_micros;
		fx->compute_end = ns->all_start_micros + ns->op_end_rel_micros;
		f->end[x] = exec_end_us(e);
		fx->first_out = f->outs->len;
		fx->first_refd = f->refds->len;
		fx->first_mu = f->mus->len;
		if (run->devices[e->device].kind == TL_DEV_EXECUTOR)
			flatten_records(b, f, x);
	}
	return f;
}

static void flat_free(struct flat *f)
{
	if (f == NULL)
		return;
	g_free(f->exec);
	g_free(f->end);
	g_array_free(f->outs, TRUE);
	g_array_free(f->refds, TRUE);
	g_array_free(f->mus, TRUE);
	g_array_free(f->recs, TRUE);
	g_free(f);
}

static void add_ref(struct memory_builder *b, uint32_t buffer, int32_t exec, int32_t slot)
{
	if (find_ref(b, exec, slot) >= 0)
		return;
	struct ref r = {.r = {.exec = exec, .slot = slot},
			.buffer = buffer,
			.drop_us = INT64_MIN,
			.dropper = -1,
			.next = b->ref_head[exec]};
	g_array_append_val(b->refs, r);
	b->ref_head[exec] = (int32_t)b->refs->len - 1;
}

uint32_t tl_memory_new_buffer(struct memory_builder *b, const tl_buffer *proto,
			      const struct buf_key *key)
{
	g_array_append_val(b->buffers, *proto);
	uint32_t idx = b->buffers->len - 1;
	tl_buffer *nb = &g_array_index(b->buffers, tl_buffer, idx);
	nb->allocator = tl_memory_allocator_name(b, nb->allocator);
	if (key != NULL && (key->id != 0 || key->ptr != 0)) {
		struct buf_key k = *key;
		k.allocator = tl_memory_allocator_name(b, k.allocator);
		key_put(b->by_key, &k, idx);
	}
	return idx;
}

/* Open temporaries of one AllocatorMemoryUsed by size (allocated bytes ->
 * GQueue of buffer + 1, oldest first), so that a free record finds its
 * allocation without a scan of every temporary before it. */
static void open_temp(struct memory_builder *b, GHashTable *open, uint32_t t)
{
	gpointer key = GSIZE_TO_POINTER((gsize)buffer_at(b, t)->allocated);
	GQueue *q = g_hash_table_lookup(open, key);
	if (q == NULL) {
		q = g_queue_new();
		g_hash_table_insert(open, key, q);
	}
	g_queue_push_tail(q, GUINT_TO_POINTER(t + 1));
}

static GHashTable *open_temps(struct memory_builder *b, uint32_t first_temp)
{
	GHashTable *open = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						 (GDestroyNotify)g_queue_free);
	for (uint32_t t = first_temp; t < b->buffers->len; t++)
		if (buffer_at(b, t)->kind == TL_BUF_TEMP && buffer_at(b, t)->free_us == FREE_UNSET)
			open_temp(b, open, t);
	return open;
}

/* A free: the earliest open temporary of that size allocated by then. */
static void free_temp(struct memory_builder *b, GHashTable *open, const struct flat_rec *rec)
{
	GQueue *q = g_hash_table_lookup(open, GSIZE_TO_POINTER((gsize)-rec->bytes));
	for (GList *l = q != NULL ? q->head : NULL; l != NULL; l = l->next) {
		tl_buffer *tb = buffer_at(b, GPOINTER_TO_UINT(l->data) - 1);
		if (tb->alloc_us <= rec->micros) {
			tb->free_us = rec->micros;
			tb->cause = TL_FREE_RECORD;
			g_queue_delete_link(q, l);
			return;
		}
	}
}

/* The outputs of execution x: each a reference to the buffer it names, a
 * new buffer when none was seen before, listed in `fresh` (index, in slot
 * order) to be paired with the allocation records. */
static void scan_outputs(struct memory_builder *b, int32_t x, const struct flat_exec *fx,
			 GArray *fresh)
{
	const struct flat_out *outs = FLAT_AT(b->flat->outs, struct flat_out, fx->first_out);
	for (uint32_t k = 0; k < fx->n_out; k++) {
		const struct flat_out *o = &outs[k];
		struct buf_key key = {.allocator = o->allocator, .id = o->id, .ptr = o->ptr};
		int64_t hit = (key.id != 0 || key.ptr != 0) ? key_find(b->by_key, &key) : -1;
		if (hit >= 0) {
			add_ref(b, (uint32_t)hit, x, o->slot);
			continue;
		}
		bool persistent = o->persistent;
		tl_buffer nb = {
		    .allocator = key.allocator,
		    .allocation_id = o->id,
		    .ptr = o->ptr,
		    .requested = size_of(o->requested),
		    .allocated = size_of(o->allocated ? o->allocated : o->requested),
		    .alloc_us = persistent ? TL_US_BEFORE : fx->compute_start,
		    .free_us = persistent ? TL_US_NEVER : FREE_UNSET,
		    .kind = persistent ? TL_BUF_PERSISTENT : TL_BUF_OUTPUT,
		    .cause = persistent ? TL_FREE_NEVER : TL_FREE_LAST_USE,
		    .producer = x,
		    .slot = o->slot,
		    .last_user = -1,
		    .desc = o->desc,
		};
		uint32_t idx = tl_memory_new_buffer(b, &nb, &key);
		add_ref(b, idx, x, o->slot);
		g_array_append_val(fresh, idx);
	}
}

/* The tensors an execution references that no buffer holds yet. */
static void scan_referenced(struct memory_builder *b, const struct flat_exec *fx)
{
	const struct flat_refd *refds = FLAT_AT(b->flat->refds, struct flat_refd, fx->first_refd);
	for (uint32_t k = 0; k < fx->n_refd; k++) {
		const struct flat_refd *ad = &refds[k];
		struct buf_key key = {.allocator = ad->allocator, .id = ad->id, .ptr = ad->ptr};
		if ((key.id == 0 && key.ptr == 0) || key_find(b->by_key, &key) >= 0)
			continue;
		/* A variable whose own execution is not in the dump. */
		tl_buffer nb = {.allocator = key.allocator,
				.allocation_id = key.id,
				.ptr = key.ptr,
				.requested = size_of(ad->requested),
				.allocated = size_of(ad->allocated ? ad->allocated : ad->requested),
				.alloc_us = TL_US_BEFORE,
				.free_us = TL_US_NEVER,
				.kind = TL_BUF_PERSISTENT,
				.cause = TL_FREE_NEVER,
				.producer = -1,
				.slot = -1,
				.last_user = -1};
		tl_memory_new_buffer(b, &nb, &key);
	}
}

/* An allocation record of execution x in allocator `alloc`: the birth of
 * the next fresh output of this allocator (fresh[*next_fresh ..]) of that
 * size, else a temporary, added to `open` when there is one. */
static void scan_allocation(struct memory_builder *b, int32_t x, const char *alloc,
			    const struct flat_rec *rec, const GArray *fresh, guint *next_fresh,
			    GHashTable *open)
{
	while (*next_fresh < fresh->len) {
		tl_buffer *ob = buffer_at(b, g_array_index(fresh, uint32_t, *next_fresh));
		if (ob->allocator != alloc) {
			(*next_fresh)++;
			continue;
		}
		if (ob->allocated == rec->bytes) {
			(*next_fresh)++;
			if (ob->kind == TL_BUF_OUTPUT) {
				ob->alloc_us = rec->micros;
				ob->alloc_recorded = true;
			}
			return;
		}
		break;
	}
	tl_buffer tb = {.allocator = alloc,
			.allocation_id = --b->next_temp_id,
			.requested = rec->bytes,
			.allocated = rec->bytes,
			.alloc_us = rec->micros,
			.free_us = FREE_UNSET,
			.kind = TL_BUF_TEMP,
			.cause = TL_FREE_OP_END,
			.producer = x,
			.slot = -1,
			.last_user = x};
	uint32_t t = tl_memory_new_buffer(b, &tb, NULL);
	if (open != NULL)
		open_temp(b, open, t);
}

/* The allocation records of one allocator in execution x: the births of
 * its fresh outputs, its temporaries and their frees; a temporary never
 * freed dies at the op's end. */
static void scan_records(struct memory_builder *b, int32_t x, const struct flat_exec *fx,
			 const struct flat_mu *mu, const GArray *fresh)
{
	const char *alloc = mu->allocator;
	const struct flat_rec *recs = FLAT_AT(b->flat->recs, struct flat_rec, mu->first_rec);
	guint next_fresh = 0;
	uint32_t first_temp = b->buffers->len;
	GHashTable *open = NULL; /* made at the first free */
	for (uint32_t r = 0; r < mu->n_rec; r++) {
		const struct flat_rec *rec = &recs[r];
		if (!record_in_range(rec->bytes, rec->micros))
			continue;
		if (rec->bytes < 0) {
			if (open == NULL)
				open = open_temps(b, first_temp);
			free_temp(b, open, rec);
			continue;
		}
		scan_allocation(b, x, alloc, rec, fresh, &next_fresh, open);
	}
	if (open != NULL)
		g_hash_table_destroy(open);
	for (uint32_t t = first_temp; t < b->buffers->len; t++) {
		tl_buffer *tb = buffer_at(b, t);
		if (tb->kind == TL_BUF_TEMP && tb->free_us == FREE_UNSET) {
			int64_t end = fx->compute_end;
			tb->free_us = end > tb->alloc_us ? end : tb->alloc_us + 1;
		}
	}
}

/* The outputs of one execution, then its temporaries from its allocation
 * records; `fresh` is scratch. */
static void scan_exec(struct memory_builder *b, int32_t x, GArray *fresh)
{
	const struct flat_exec *fx = &b->flat->exec[x];
	/* fresh outputs in slot order, per allocator, to pair with records */
	g_array_set_size(fresh, 0);
	scan_outputs(b, x, fx, fresh);
	scan_referenced(b, fx);
	const struct flat_mu *mus = FLAT_AT(b->flat->mus, struct flat_mu, fx->first_mu);
	for (uint32_t m = 0; m < fx->n_mu; m++)
		scan_records(b, x, fx, &mus[m], fresh);
}

/* A forwarding op whose outputs the dump does not describe (a Switch that
 * recorded one slot, an Identity without output records): its outputs are
 * further references to the buffer its data input 0 reads. */
static void forward_missing(struct memory_builder *b, int32_t x)
{
	if (!b->flat->exec[x].forwarding)
		return;
	const tl_run *run = b->run;
	const tl_exec *e = &run->execs[x];
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

bool tl_memory_is_fetch_node(const tl_run *run, uint32_t n)
{
	const char *op = run->nodes[n].op;
	if (strcmp(op, "_Retval") == 0)
		return true;
	if (strcmp(op, "_Send") != 0 && strcmp(op, "_HostSend") != 0)
		return false;
	const Tensorflow__NodeDef *def = run->nodes[n].def;
	for (size_t i = 0; i < def->n_attr; i++) {
		const Tensorflow__AttrValue *v = def->attr[i]->value;
		if (def->attr[i]->key != NULL &&
		    strcmp(def->attr[i]->key, "client_terminated") == 0)
			return v != NULL && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B &&
			       v->b;
	}
	return false;
}

/* Drop times of every reference, from the data links (graph or labels). */
static void drop_refs(struct memory_builder *b, tl_memory *mem)
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
		int64_t end = b->flat->end[l->dst];
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
		if (!tl_memory_is_fetch_node(run, n))
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
				int32_t r =
				    find_ref(b, (int32_t)run->node_execs[src->first_exec + i],
					     edge->src_port);
				if (r >= 0)
					g_array_index(b->refs, struct ref, r).fetched = true;
			}
		}
	}
	g_hash_table_destroy(seen);
	g_free(keys);
}

static void settle_buffers(struct memory_builder *b, tl_memory *mem)
{
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
			drop = b->flat->end[ref->r.exec];
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

/* For tl_runsort: the executions come device by device, each device's
 * in start order, so a few runs are merged where qsort sorted them all
 * (every key differs, by the execution's index: the same order). */
static bool before_alloc_order(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_alloc_order(a, b) < 0;
}

/* The executions of the executor devices in the order their allocations
 * happened, so a buffer exists before any alias of it is seen; *n_out is
 * their count. The caller frees the array. */
static uint32_t *alloc_order(const struct memory_builder *b, size_t *n_out)
{
	const tl_run *run = b->run;
	struct alloc_order *by = g_new(struct alloc_order, run->n_execs ? run->n_execs : 1);
	size_t n = 0;
	for (uint32_t i = 0; i < run->n_execs; i++) {
		const struct flat_exec *fx = &b->flat->exec[i];
		if (run->devices[run->execs[i].device].kind == TL_DEV_EXECUTOR)
			by[n++] = (struct alloc_order){
			    .compute_start = fx->compute_start, .start = fx->start, .exec = i};
	}
	tl_runsort(by, n, sizeof *by, before_alloc_order, NULL);
	uint32_t *order = g_new(uint32_t, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		order[i] = by[i].exec;
	g_free(by);
	*n_out = n;
	return order;
}

/* The key table's slots the outputs and references of an execution a
 * few steps ahead will look up, fetched meanwhile: the lookups land
 * anywhere in a table that outgrows the caches on a big dump (at 100 MB
 * they were 2.5 times the time per byte they took at 10 MB). */
static void prefetch_keys(const struct memory_builder *b, const struct flat_exec *fx)
{
	const struct key_table *t = b->by_key;
	const struct flat_out *outs = FLAT_AT(b->flat->outs, struct flat_out, fx->first_out);
	for (uint32_t k = 0; k < fx->n_out; k++) {
		struct buf_key key = {outs[k].allocator, outs[k].id, outs[k].ptr};
		__builtin_prefetch(&t->slots[key_hash(&key) & t->mask]);
	}
	const struct flat_refd *refds = FLAT_AT(b->flat->refds, struct flat_refd, fx->first_refd);
	for (uint32_t k = 0; k < fx->n_refd; k++) {
		struct buf_key key = {refds[k].allocator, refds[k].id, refds[k].ptr};
		__builtin_prefetch(&t->slots[key_hash(&key) & t->mask]);
	}
}

/* The buffers and references of the executions order[0 .. n). */
static void scan_execs(struct memory_builder *b, const uint32_t *order, size_t n)
{
	const struct flat *f = b->flat;
	GArray *fresh = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		/* The order jumps about the flat arrays, a few MB on a 100 MB
		 * dump: what the executions a few steps ahead read is fetched
		 * meanwhile. */
		if (i + 8 < n)
			__builtin_prefetch(&f->exec[order[i + 8]]);
		if (i + 4 < n) {
			const struct flat_exec *ahead = &f->exec[order[i + 4]];
			if (ahead->n_out > 0)
				__builtin_prefetch(
				    &g_array_index(f->outs, struct flat_out, ahead->first_out));
			if (ahead->n_mu > 0)
				__builtin_prefetch(
				    &g_array_index(f->mus, struct flat_mu, ahead->first_mu));
		}
		if (i + 2 < n)
			prefetch_keys(b, &f->exec[order[i + 2]]);
		scan_exec(b, (int32_t)order[i], fresh);
		forward_missing(b, (int32_t)order[i]);
	}
	g_array_free(fresh, TRUE);
}

/* Moves the builder's buffers into mem, and its references with them,
 * grouped per buffer (its aliases side by side). */
static void take_buffers(struct memory_builder *b, tl_memory *mem)
{
	mem->n_refs = b->refs->len;
	mem->refs = g_new(tl_tensor_ref, b->refs->len ? b->refs->len : 1);
	uint32_t *count = g_new0(uint32_t, b->buffers->len + 1);
	for (guint i = 0; i < b->refs->len; i++)
		count[g_array_index(b->refs, struct ref, i).buffer]++;
	uint32_t pos = 0;
	for (guint i = 0; i < b->buffers->len; i++) {
		buffer_at(b, i)->first_ref = pos;
		pos += count[i];
		count[i] = 0;
	}
	for (guint i = 0; i < b->refs->len; i++) {
		const struct ref *r = &g_array_index(b->refs, struct ref, i);
		tl_buffer *buf = buffer_at(b, r->buffer);
		mem->refs[buf->first_ref + count[r->buffer]++] = r->r;
		buf->n_refs++;
	}
	g_free(count);
	mem->n_buffers = b->buffers->len;
	mem->buffers = (tl_buffer *)(void *)g_array_free(b->buffers, FALSE);
	b->buffers = NULL;
}

/* A birth in the dump is exact: its window is the birth. Whether some
 * births are estimated. */
static bool mark_recorded(tl_memory *mem)
{
	bool any_estimated = false;
	for (size_t i = 0; i < mem->n_buffers; i++) {
		tl_buffer *buf = &mem->buffers[i];
		any_estimated = any_estimated || buf->estimated;
		if (!buf->estimated) {
			buf->birth = TL_BIRTH_RECORDED;
			buf->birth_lo = buf->birth_hi = buf->alloc_us;
		}
	}
	return any_estimated;
}

/* The allocators and their curves; the estimated births placed by the
 * samples, with the curves built again with them; the curves made to meet
 * the samples, and their bands; then the check. */
static void build_allocators(tl_memory *mem, bool any_estimated)
{
	GArray *samples = g_array_new(FALSE, FALSE, sizeof(struct dump_sample));
	tl_memory_curve_allocators(mem, samples);
	tl_memory_curve_build(mem, false);
	struct id_gaps *gaps = NULL;
	if (any_estimated) {
		gaps = tl_memory_ids_narrow(mem, samples);
		tl_memory_birth_place(mem, samples);
		tl_memory_curve_build(mem, true);
	}
	tl_memory_band_build(mem, samples, gaps);
	tl_memory_id_gaps_free(gaps);
	tl_memory_curve_check(mem, samples);
	g_array_free(samples, TRUE);
}

/* The buffers of the run and their references; `full`: the allocators,
 * their curves and the check against the dump's samples too. */
static tl_memory *memory_build(const tl_run *run, bool full)
{
	tl_memory *mem = g_new0(tl_memory, 1);
	mem->run = run;
	mem->step_start_us = step_bounds(run, &mem->step_end_us);
	struct memory_builder b = {.run = run, .arena = run->arena};
	b.allocator_names = g_hash_table_new(g_str_hash, g_str_equal);
	b.flat = flatten(&b);
	b.buffers = g_array_sized_new(FALSE, FALSE, sizeof(tl_buffer), b.flat->outs->len);
	b.refs = g_array_sized_new(FALSE, FALSE, sizeof(struct ref), b.flat->outs->len);
	b.by_key = key_table_new(b.flat->outs->len + b.flat->refds->len);
	b.ref_head = g_new(int32_t, run->n_execs ? run->n_execs : 1);
	for (size_t i = 0; i < run->n_execs; i++)
		b.ref_head[i] = -1;
	size_t n;
	uint32_t *order = alloc_order(&b, &n);
	scan_execs(&b, order, n);
	g_free(order);
	g_free(b.min_ends);

	drop_refs(&b, mem);
	settle_buffers(&b, mem);
	tl_memory_recv_add(&b, mem);
	take_buffers(&b, mem);
	g_array_free(b.refs, TRUE);
	key_table_free(b.by_key);
	g_hash_table_destroy(b.allocator_names);
	g_free(b.ref_head);
	flat_free(b.flat);

	bool any_estimated = mark_recorded(mem);
	if (full)
		build_allocators(mem, any_estimated);
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
	tl_memory_curve_free(mem);
	g_free(mem->buffers);
	g_free(mem->refs);
	g_free(mem);
}

const char *tl_memory_ref_name(const tl_memory *mem, const tl_tensor_ref *r)
{
	/* "node:slot", straight into the arena (a printf per buffer showed
	 * in trace-memory's profile) */
	const tl_exec *e = &mem->run->execs[r->exec];
	char digits[12];
	size_t k = 0;
	uint32_t mag = r->slot < 0 ? (uint32_t)0 - (uint32_t)r->slot : (uint32_t)r->slot;
	do {
		digits[k++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag != 0);
	if (r->slot < 0)
		digits[k++] = '-';
	size_t n = strlen(e->node);
	char *out = tl_arena_alloc(mem->run->arena, n + 1 + k + 1);
	memcpy(out, e->node, n);
	out[n] = ':';
	for (size_t i = 0; i < k; i++)
		out[n + 1 + i] = digits[k - 1 - i];
	out[n + 1 + k] = '\0';
	return out;
}

const char *tl_memory_peak_op(const tl_memory *mem, const tl_allocator *a)
{
	for (size_t i = 0; i < a->n_live; i++) {
		const tl_buffer *b = &mem->buffers[a->live_at_peak[i]];
		if (b->kind != TL_BUF_PERSISTENT && b->alloc_us == a->peak_us && b->producer >= 0)
			return mem->run->execs[b->producer].node;
	}
	return NULL;
}
