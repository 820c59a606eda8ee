#include "emit/memtrace.h"

#include "emit/memreport_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>

/* The snapshot of a block (--objects). */
static json_t *block_snapshot(const tl_memview_block *b, GString *shape)
{
	if (b->event != NULL) {
		char addr[24];
		snprintf(addr, sizeof addr, "0x%" PRIx64, b->addr);
		return json_pack("{s:s,s:I,s:s,s:s,s:s}", "kind", b->kind, "allocated_bytes",
				 (json_int_t)b->bytes, "addr", addr, "op", b->op ? b->op : "",
				 "free_op", b->free_op ? b->free_op : "");
	}
	return json_pack("{s:s,s:I,s:I,s:s,s:s,s:s,s:s,s:s}", "kind", b->kind, "allocated_bytes",
			 (json_int_t)b->bytes, "requested_bytes", (json_int_t)b->requested,
			 "dtype", tl_memreport_dtype(b->buffer), "shape", shape->str, "producer",
			 b->op ? b->op : "", "last_consumer", b->free_op ? b->free_op : "",
			 "free_cause", tl_memory_cause_name(b->buffer->cause));
}

/* The arguments of a block's slice. */
static void block_args(tl_chrome *w, const tl_memview_block *b, GString *shape)
{
	if (b->event != NULL) {
		char addr[24];
		tl_chrome_arg_int(w, "allocated_bytes", b->bytes);
		snprintf(addr, sizeof addr, "0x%" PRIx64, b->addr);
		tl_chrome_arg_str(w, "addr", addr);
		if (b->alloc_ns == TL_MEMVIEW_BEFORE)
			tl_chrome_arg_str(w, "allocated", "before the trace");
		if (b->free_ns == TL_MEMVIEW_NEVER)
			tl_chrome_arg_str(w, "freed", "never");
		else if (b->free_op != NULL)
			tl_chrome_arg_str(w, "free_op", b->free_op);
		return;
	}
	tl_chrome_arg_str(w, "kind", b->kind);
	tl_chrome_arg_int(w, "allocated_bytes", b->bytes);
	tl_chrome_arg_int(w, "requested_bytes", b->requested);
	tl_chrome_arg_str(w, "dtype", tl_memreport_dtype(b->buffer));
	tl_chrome_arg_str(w, "shape", shape->str);
	tl_chrome_arg_str(w, "producer", b->op ? b->op : "");
	tl_chrome_arg_str(w, "last_consumer", b->free_op ? b->free_op : "");
	tl_chrome_arg_str(w, "free_cause", tl_memory_cause_name(b->buffer->cause));
	if (b->estimated)
		tl_chrome_arg_str(w, "birth", tl_memory_birth_name(b->buffer->birth));
}

static void block_events(tl_chrome *w, const tl_memview *v, const tl_memview_block *b,
			 const tl_memtrace_opts *o, int64_t pid, uint64_t *next_id, GString *shape)
{
	const char *cat = b->event != NULL ? "allocation" : "tensor";
	int64_t born = b->alloc_ns == TL_MEMVIEW_BEFORE ? v->start_ns : b->alloc_ns;
	int64_t dies = b->free_ns == TL_MEMVIEW_NEVER ? v->end_ns : b->free_ns;
	if (dies < born)
		dies = born;
	int64_t id = (int64_t)(*next_id)++;
	g_string_truncate(shape, 0);
	if (b->buffer != NULL)
		tl_memreport_shape(b->buffer, shape);
	if (o->objects) {
		/* catapult's object model: created, one snapshot, deleted */
		tl_chrome_event(w, 'N', b->name, cat, pid, 0, born + o->shift_ns, id);
		json_t *snap = block_snapshot(b, shape);
		char *text = json_dumps(snap, JSON_COMPACT | JSON_ENSURE_ASCII);
		tl_chrome_event(w, 'O', b->name, cat, pid, 0, born + o->shift_ns, id);
		tl_chrome_arg_raw(w, "snapshot", text != NULL ? text : "{}");
		free(text);
		json_decref(snap);
	} else {
		tl_chrome_event(w, 'b', b->name, cat, pid, 0, born + o->shift_ns, id);
		block_args(w, b, shape);
	}
	tl_chrome_event(w, o->objects ? 'D' : 'e', b->name, cat, pid, 0, dies + o->shift_ns, id);
}

void tl_memtrace_write(tl_chrome *w, const tl_memview *v, const tl_memtrace_opts *o,
		       const char *prefix, int64_t *next_pid, uint64_t *next_id)
{
	GString *shape = g_string_new(NULL);
	bool events = v->source == TL_MEMVIEW_EVENTS;
	tl_memview_block b;
	for (size_t i = 0; i < v->n_allocators; i++) {
		const tl_memview_allocator *a = &v->allocators[i];
		int64_t pid = (*next_pid)++;
		char *pname = events ? g_strdup_printf("%sMemory: %s (%s)", prefix ? prefix : "",
						       a->name, a->device)
				     : g_strdup_printf("%sMemory: %s", prefix ? prefix : "", a->name);
		tl_chrome_process(w, pid, pname, pid);
		g_free(pname);
		tl_chrome_thread(w, pid, 0, events ? "allocations" : "tensors", 0);
		for (size_t p = 0; p < a->n_curve; p++) {
			tl_memview_point pt = tl_memview_curve(v, a, p);
			tl_chrome_event(w, 'C', a->name, NULL, pid, 0, pt.t_ns + o->shift_ns, -1);
			tl_chrome_arg_int(w, "allocated", pt.bytes);
			if (pt.requested >= 0)
				tl_chrome_arg_int(w, "requested", pt.requested);
			if (pt.reserved >= 0)
				tl_chrome_arg_int(w, "reserved", pt.reserved);
		}
		for (size_t k = 0; k < a->n_blocks; k++) {
			tl_memview_block_get(v, a->blocks[k], &b);
			/* a buffer born and freed at once held nothing */
			if (b.buffer != NULL && b.free_ns == b.alloc_ns)
				continue;
			block_events(w, v, &b, o, pid, next_id, shape);
		}
	}
	g_string_free(shape, TRUE);
}

void tl_memtrace_ops(tl_chrome *w, const tl_memtrace_op *ops, size_t n, int64_t *next_pid)
{
	if (n == 0)
		return;
	int64_t pid = (*next_pid)++;
	tl_chrome_process(w, pid, "Ops", pid);
	GHashTable *tids = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < n; i++) {
		const char *th = ops[i].thread != NULL ? ops[i].thread : "";
		gpointer val = g_hash_table_lookup(tids, th);
		if (val == NULL) {
			val = GUINT_TO_POINTER(g_hash_table_size(tids) + 1);
			g_hash_table_insert(tids, (gpointer)th, val);
			tl_chrome_thread(w, pid, GPOINTER_TO_UINT(val), th, GPOINTER_TO_UINT(val));
		}
		tl_chrome_complete(w, ops[i].name, "op", pid, GPOINTER_TO_UINT(val), ops[i].t_ns,
				   ops[i].dur_ns);
	}
	g_hash_table_destroy(tids);
}
