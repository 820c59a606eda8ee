/*
 * memtrace: a memory view (analysis/memview.h) as Chrome trace events, for
 * every source: a counter per allocator (allocated bytes; requested and
 * reserved where recorded) and every block's lifetime as an async slice on
 * its allocator's process, or catapult object events (N/O/D) on request;
 * and an input's own op slices where the view's source has no run to draw
 * them from (allocator events).
 *
 * Writes into the caller's Chrome writer and keeps nothing.
 */
#ifndef TL_EMIT_MEMTRACE_H
#define TL_EMIT_MEMTRACE_H

#include "analysis/memview.h"
#include "emit/chrome.h"

/* Chrome events of the memory view; pids from *next_pid on. */
typedef struct tl_memtrace_opts {
	bool objects;	  /* catapult N/O/D object events instead of async slices */
	int64_t shift_ns; /* added to every timestamp (merge alignment) */
} tl_memtrace_opts;

void tl_memtrace_write(tl_chrome *w, const tl_memview *v, const tl_memtrace_opts *o,
		       const char *prefix, int64_t *next_pid, uint64_t *next_id);

/* One op slice of an input of allocator events, drawn after its memory
 * tracks. */
typedef struct tl_memtrace_op {
	int64_t t_ns, dur_ns;
	const char *name;
	const char *thread; /* its track's name */
} tl_memtrace_op;

/* The op slices, a process "Ops" (pid *next_pid) with a thread per
 * track. */
void tl_memtrace_ops(tl_chrome *w, const tl_memtrace_op *ops, size_t n, int64_t *next_pid);

#endif
