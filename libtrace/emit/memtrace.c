#include "emit/memtrace.h"

#include "emit/memreport_impl.h"

#include <jansson.h>

void tl_memtrace_write(tl_chrome *w, const tl_memory *mem, const tl_memtrace_opts *o,
		       const char *prefix, int64_t *next_pid, uint64_t *next_id)
{
	GString *shape = g_string_new(NULL);
	for (size_t i = 0; i < mem->n_allocators; i++) {
		const tl_allocator *a = &mem->allocators[i];
		int64_t pid = (*next_pid)++;
		char *pname = g_strdup_printf("%sMemory: %s", prefix ? prefix : "", a->name);
		tl_chrome_process(w, pid, pname, pid);
		g_free(pname);
		tl_chrome_thread(w, pid, 0, "tensors", 0);
		for (size_t p = 0; p < a->n_curve; p++) {
			tl_chrome_event(w, 'C', a->name, NULL, pid, 0,
					a->curve[p].us * 1000 + o->shift_ns, -1);
			tl_chrome_arg_int(w, "allocated", a->curve[p].bytes);
			tl_chrome_arg_int(w, "requested", a->curve[p].requested);
		}
		for (size_t k = 0; k < a->n_buffers; k++) {
			const tl_buffer *b = &mem->buffers[a->buffers[k]];
			if (b->free_us == b->alloc_us)
				continue;
			int64_t born =
			    b->alloc_us == TL_US_BEFORE ? mem->step_start_us : b->alloc_us;
			int64_t dies = b->free_us == TL_US_NEVER ? mem->step_end_us : b->free_us;
			if (dies < born)
				dies = born;
			const char *name = tl_memreport_tensor(mem, b);
			int64_t id = (int64_t)(*next_id)++;
			tl_memreport_shape(b, shape);
			const char *lc = tl_memreport_last_consumer(mem, b);
			if (o->objects) {
				/* catapult's object model: created, one snapshot, deleted */
				tl_chrome_event(w, 'N', name, "tensor", pid, 0,
						born * 1000 + o->shift_ns, id);
				json_t *snap = json_pack(
				    "{s:s,s:I,s:I,s:s,s:s,s:s,s:s,s:s}", "kind",
				    tl_memory_kind_name(b->kind), "allocated_bytes",
				    (json_int_t)b->allocated, "requested_bytes",
				    (json_int_t)b->requested, "dtype", tl_memreport_dtype(b),
				    "shape", shape->str, "producer", tl_memreport_producer(mem, b),
				    "last_consumer", lc ? lc : "", "free_cause",
				    tl_memory_cause_name(b->cause));
				char *text = json_dumps(snap, JSON_COMPACT | JSON_ENSURE_ASCII);
				tl_chrome_event(w, 'O', name, "tensor", pid, 0,
						born * 1000 + o->shift_ns, id);
				tl_chrome_arg_raw(w, "snapshot", text != NULL ? text : "{}");
				free(text);
				json_decref(snap);
			} else {
				tl_chrome_event(w, 'b', name, "tensor", pid, 0,
						born * 1000 + o->shift_ns, id);
				tl_chrome_arg_str(w, "kind", tl_memory_kind_name(b->kind));
				tl_chrome_arg_int(w, "allocated_bytes", b->allocated);
				tl_chrome_arg_int(w, "requested_bytes", b->requested);
				tl_chrome_arg_str(w, "dtype", tl_memreport_dtype(b));
				tl_chrome_arg_str(w, "shape", shape->str);
				tl_chrome_arg_str(w, "producer", tl_memreport_producer(mem, b));
				tl_chrome_arg_str(w, "last_consumer", lc ? lc : "");
				tl_chrome_arg_str(w, "free_cause", tl_memory_cause_name(b->cause));
				if (b->estimated)
					tl_chrome_arg_str(w, "birth",
							  tl_memory_birth_name(b->birth));
			}
			tl_chrome_event(w, o->objects ? 'D' : 'e', name, "tensor", pid, 0,
					dies * 1000 + o->shift_ns, id);
		}
	}
	g_string_free(shape, TRUE);
}
