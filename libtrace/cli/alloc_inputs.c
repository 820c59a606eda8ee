#include "cli/alloc_inputs.h"

#include "io/kineto_memory.h"
#include "io/source.h"
#include "io/tlmem.h"
#include "model/run.h"

#include <string.h>

static void input_free(gpointer p)
{
	tl_alloc_input *in = p;
	tl_arena_free(in->arena);
	g_free(in->label);
	g_free(in);
}

GPtrArray *tl_alloc_inputs_new(void)
{
	return g_ptr_array_new_with_free_func(input_free);
}

void tl_alloc_inputs_add(GPtrArray *allocs, const char *label, tl_arena *arena,
			 const tl_alloc_events *events, tl_memtrace_op *ops, size_t n_ops)
{
	tl_alloc_input *in = g_new0(tl_alloc_input, 1);
	in->label = g_strdup(label);
	in->arena = arena;
	in->events = *events;
	in->ops = ops;
	in->n_ops = n_ops;
	g_ptr_array_add(allocs, in);
}

/* A Chrome trace: the [memory] events of a PyTorch (Kineto) trace, or the
 * tensor objects and allocator counters of a timeline.py trace. */
static int read_chrome(tl_source *src, GPtrArray *allocs, tl_error *err)
{
	const uint8_t *data = NULL;
	size_t len = 0;
	if (tl_source_map(src, &data, &len, err) < 0)
		return -1;
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	if (memmem(data, len, "\"[memory]\"", 10) == NULL) {
		if (tl_tlmem_read(data, len, tl_source_name(src), arena, &ev, err) < 0) {
			tl_arena_free(arena);
			return -1;
		}
		if (ev.n > 0) {
			tl_alloc_inputs_add(allocs, tl_source_name(src), arena, &ev, NULL, 0);
			return 0;
		}
	}
	tl_kineto_ops kops;
	if (tl_kineto_memory_read(data, len, tl_source_name(src), arena, &ev, &kops, err) < 0) {
		tl_arena_free(arena);
		return -1;
	}
	if (ev.n == 0) {
		tl_arena_free(arena);
		const char *kind = tl_format_chrome_kind(data, len);
		if (strcmp(kind, TL_FORMAT_NOT_A_TRACE) == 0)
			return tl_error_set(err, "this is %s", kind);
		if (strstr(kind, "Kineto") == NULL)
			return tl_error_set(
			    err,
			    "this is %s, which records no memory (trace-memory "
			    "reads PyTorch's [memory] events and timeline.py's "
			    "show_memory=True tensors; trace-report, "
			    "trace-dataflow, trace-summarize and trace-merge read it)",
			    kind);
		return tl_error_set(err,
				    "this is %s with no memory events (record with "
				    "torch.profiler.profile(profile_memory=True))",
				    kind);
	}
	tl_memtrace_op *ops = tl_arena_alloc(arena, (kops.n ? kops.n : 1) * sizeof *ops);
	for (size_t i = 0; i < kops.n; i++)
		ops[i] = (tl_memtrace_op){kops.op[i].t_ns, kops.op[i].dur_ns, kops.op[i].name,
					  kops.op[i].thread};
	tl_alloc_inputs_add(allocs, tl_source_name(src), arena, &ev, ops, kops.n);
	return 0;
}

/* An XSpace (known once its first run is asked for): its allocator
 * events, not its runs. */
static int read_xspace(tl_source *src, GPtrArray *allocs, tl_error *err)
{
	tl_arena *arena = tl_arena_new();
	tl_alloc_events ev;
	if (tl_source_xspace_allocs(src, arena, &ev) < 0 || ev.n == 0) {
		tl_arena_free(arena);
		if (tl_source_tf2trace(src))
			return tl_error_set(err, "a TF 2.0 profiler trace (.trace) with no memory "
						 "events (MemoryAllocation and MemoryDeallocation, "
						 "which TF 2.0 and 2.1 do not record)");
		return tl_error_set(err,
				    "an XSpace with no memory events (MemoryAllocation and "
				    "MemoryDeallocation, which TF 2.3 and later and JAX record "
				    "for their GPU allocators)");
	}
	tl_alloc_inputs_add(allocs, tl_source_name(src), arena, &ev, NULL, 0);
	return 0;
}

int tl_alloc_inputs_take(GPtrArray *allocs, tl_source *src, tl_run **first, tl_error *err)
{
	*first = NULL;
	if (tl_source_format(src) == TL_FORMAT_CHROME)
		return read_chrome(src, allocs, err) < 0 ? -1 : 1;
	tl_source_keep_xspace_allocs(src);
	int rc = tl_run_next(src, first, err);
	if (rc < 0)
		return -1;
	if (tl_source_format(src) != TL_FORMAT_XSPACE)
		return 0;
	tl_run_free(*first);
	*first = NULL;
	return read_xspace(src, allocs, err) < 0 ? -1 : 1;
}
