#include "emit/allocreport.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The Chrome events of allocation-event inputs (the schema in
 * emit/allocreport.h). */

static void allocator_track(tl_chrome *w, const tl_allocs *a, const tl_allocs_allocator *al,
			    int64_t pid, uint64_t *next_id)
{
	char *pname = g_strdup_printf("Memory: %s (%s)", al->name, al->device);
	tl_chrome_process(w, pid, pname, pid);
	g_free(pname);
	tl_chrome_thread(w, pid, 0, "allocations", 0);
	for (size_t p = 0; p < al->n_curve; p++) {
		tl_chrome_event(w, 'C', al->name, NULL, pid, 0, al->curve[p].t_ns, -1);
		tl_chrome_arg_int(w, "allocated", al->curve[p].bytes);
		if (al->curve[p].reserved >= 0)
			tl_chrome_arg_int(w, "reserved", al->curve[p].reserved);
	}
	for (size_t k = al->first_block; k < al->first_block + al->n_blocks; k++) {
		const tl_alloc_block *b = &a->blocks[k];
		int64_t born = b->alloc_ns == TL_ALLOCS_BEFORE ? a->start_ns : b->alloc_ns;
		int64_t dies = b->free_ns == TL_ALLOCS_NEVER ? a->end_ns : b->free_ns;
		if (dies < born)
			dies = born;
		const char *name = b->op != NULL		     ? b->op
				   : b->alloc_ns == TL_ALLOCS_BEFORE ? "before the trace"
								     : "allocation";
		int64_t id = (int64_t)(*next_id)++;
		tl_chrome_event(w, 'b', name, "allocation", pid, 0, born, id);
		tl_chrome_arg_int(w, "allocated_bytes", b->bytes);
		char addr[24];
		snprintf(addr, sizeof addr, "0x%" PRIx64, b->addr);
		tl_chrome_arg_str(w, "addr", addr);
		if (b->alloc_ns == TL_ALLOCS_BEFORE)
			tl_chrome_arg_str(w, "allocated", "before the trace");
		if (b->free_ns == TL_ALLOCS_NEVER)
			tl_chrome_arg_str(w, "freed", "never");
		else if (b->free_op != NULL)
			tl_chrome_arg_str(w, "free_op", b->free_op);
		tl_chrome_event(w, 'e', name, "allocation", pid, 0, dies, id);
	}
}

/* The op slices, a thread per track of the input. */
static void op_tracks(tl_chrome *w, const tl_allocreport_op *ops, size_t n, int64_t pid)
{
	tl_chrome_process(w, pid, "Ops", pid);
	GHashTable *tids = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < n; i++) {
		const char *th = ops[i].thread != NULL ? ops[i].thread : "";
		gpointer v = g_hash_table_lookup(tids, th);
		if (v == NULL) {
			v = GUINT_TO_POINTER(g_hash_table_size(tids) + 1);
			g_hash_table_insert(tids, (gpointer)th, v);
			tl_chrome_thread(w, pid, GPOINTER_TO_UINT(v), th, GPOINTER_TO_UINT(v));
		}
		tl_chrome_complete(w, ops[i].name, "op", pid, GPOINTER_TO_UINT(v), ops[i].t_ns,
				   ops[i].dur_ns);
	}
	g_hash_table_destroy(tids);
}

void tl_allocreport_trace(tl_chrome *w, const tl_allocs *a, const tl_allocreport_op *ops,
			  size_t n_ops, int64_t *next_pid, uint64_t *next_id)
{
	for (size_t i = 0; i < a->n_allocators; i++)
		allocator_track(w, a, &a->allocators[i], (*next_pid)++, next_id);
	if (n_ops > 0)
		op_tracks(w, ops, n_ops, (*next_pid)++);
}
