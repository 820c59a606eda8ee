/*
 * memtrace: a run's memory analysis as Chrome trace events: a counter per
 * allocator (allocated and requested bytes) and every buffer's lifetime as
 * an async slice on its allocator's process, or catapult object events
 * (N/O/D) on request.
 *
 * Writes into the caller's Chrome writer and keeps nothing.
 */
#ifndef TL_EMIT_MEMTRACE_H
#define TL_EMIT_MEMTRACE_H

#include "analysis/memory.h"
#include "emit/chrome.h"

/* Chrome events of the memory analysis; pids from *next_pid on. */
typedef struct tl_memtrace_opts {
	bool objects;	  /* catapult N/O/D object events instead of async slices */
	int64_t shift_ns; /* added to every timestamp (merge alignment) */
} tl_memtrace_opts;

void tl_memtrace_write(tl_chrome *w, const tl_memory *mem, const tl_memtrace_opts *o,
		       const char *prefix, int64_t *next_pid, uint64_t *next_id);

#endif
