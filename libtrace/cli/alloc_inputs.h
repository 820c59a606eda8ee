/*
 * alloc_inputs: trace-memory's inputs, read one after another: a
 * RunMetadata (any form source.h reads) becomes runs, as for every tool; an
 * input that records allocations by address becomes a tl_alloc_input:
 *   - Chrome trace JSON: a PyTorch profiler (Kineto) trace's "[memory]"
 *     events (io/kineto_memory.h), with its op slices; a TF1 timeline.py
 *     trace's tensor objects and allocator counters (show_memory=True:
 *     io/tlmem.h);
 *   - an XSpace (*.xplane.pb): its MemoryAllocation/MemoryDeallocation
 *     events, once io/xspace.h has tl_xspace_alloc_events (read_xspace
 *     below is where it plugs in).
 * A Chrome trace without either is an error that says how to record
 * them.
 *
 * Each tl_alloc_input owns its arena (events, strings, ops) and its label;
 * the array owns the inputs (tl_alloc_inputs_free).
 */
#ifndef TL_CLI_ALLOC_INPUTS_H
#define TL_CLI_ALLOC_INPUTS_H

#include "base/arena.h"
#include "cli/cli.h"
#include "emit/memtrace.h"
#include "io/alloc_event.h"
#include "model/run.h"

typedef struct tl_alloc_input {
	char *label;
	tl_arena *arena;
	tl_alloc_events events;
	tl_memtrace_op *ops; /* in the arena; may be none */
	size_t n_ops;
} tl_alloc_input;

/* One input, as trace-memory takes it (tl_cli_tool.input): one that
 * records allocations by address into `allocs` (returns 1), else 0 with
 * *first its first run where it has one (read to learn whether it is an
 * XSpace), for the caller to read the rest; -1 with err where it does not
 * read. */
int tl_alloc_inputs_take(GPtrArray *allocs, tl_source *src, tl_run **first, tl_error *err);

/* Takes one input's events (and `arena`, which holds them) into `allocs`:
 * the one call a reader of allocation events needs. */
void tl_alloc_inputs_add(GPtrArray *allocs, const char *label, tl_arena *arena,
			 const tl_alloc_events *events, tl_memtrace_op *ops, size_t n_ops);

/* A new array for tl_alloc_inputs_read, freeing its inputs with it. */
GPtrArray *tl_alloc_inputs_new(void);

#endif
