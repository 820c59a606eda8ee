/*
 * allocreport: trace-memory's report, trace and picture for inputs that
 * record allocations by address (analysis/allocs.h: PyTorch/Kineto
 * "[memory]" events; the XSpace's MemoryAllocation events).
 *
 * The report (--report): per allocator the peak, when, in which op, where
 * it comes from (the allocator's Total Allocated, or the running sum of
 * Bytes), the check of the running sum against the allocator's totals, and
 * the top N blocks live at the peak; as text, CSV (one row per live block)
 * or JSON, the same top-level schema as the RunMetadata report
 * (emit/memreport.h; README "trace-memory"):
 *   {"runs":[{"run":LABEL,"source":"allocation events","clock":CLOCK,
 *      "step_start_us":T,"step_end_us":T,"allocators":[
 *      {"allocator":NAME,"device":DEV,"peak_bytes":B,
 *       "peak_from":"total_allocated|running_sum","peak_us":T,"peak_op":OP,
 *       "peak_reserved_bytes":B|null,"baseline_bytes":B,"events":N,
 *       "blocks":N,"allocated_before_trace":N,"never_freed":N,
 *       "live_bytes":B,"unattributed_bytes":B,"curve":[[us,bytes],...],
 *       "live_at_peak":[BLOCK...],
 *       "check":{"samples":N,"max_abs_error_bytes":B,"mean_abs_error_bytes":X}}]}],
 *    "max":[{"allocator":NAME,"peak_bytes":B,"run":LABEL}]}
 *   BLOCK = {"op":OP|null,"addr":N,"allocated_bytes":B,"alloc_us":T|null,
 *     "free_us":T|null,"free_op":OP|null}
 *   Times are microseconds from CLOCK with up to three decimals (the input's
 *   nanoseconds); alloc_us null: allocated before the trace; free_us null:
 *   never freed in it.
 *
 * The trace: per allocator a process "Memory: NAME" with a counter of bytes
 * in use (and reserved, where recorded) and one async slice per block,
 * named by its op; then, when given, the input's op slices.
 *
 * The reports are written over several inputs: begin, one call per input,
 * end (the caller's tl_allocreport lives on its stack).
 */
#ifndef TL_EMIT_ALLOCREPORT_H
#define TL_EMIT_ALLOCREPORT_H

#include "analysis/allocs.h"
#include "base/output.h"
#include "emit/chrome.h"
#include "emit/table.h"

#include <glib.h>

typedef struct tl_allocreport {
	tl_output *out;
	const char *format; /* "text" (NULL too), "csv" or "json" */
	size_t top;	    /* live blocks listed per allocator */
	size_t runs;
	tl_table table; /* CSV: one table over every input */
	GPtrArray *max; /* JSON and text: the largest peak per allocator */
} tl_allocreport;

void tl_allocreport_begin(tl_allocreport *r, tl_output *out, const char *format, size_t top);
void tl_allocreport_run(tl_allocreport *r, const tl_allocs *a);
void tl_allocreport_end(tl_allocreport *r);

/* One op slice of the input, drawn after the memory tracks. */
typedef struct tl_allocreport_op {
	int64_t t_ns, dur_ns;
	const char *name;
	const char *thread; /* its track's name */
} tl_allocreport_op;

/* The Chrome events of one input's analysis (pids from *next_pid, async
 * ids from *next_id), and its op slices (ops may be NULL). */
void tl_allocreport_trace(tl_chrome *w, const tl_allocs *a, const tl_allocreport_op *ops,
			  size_t n_ops, int64_t *next_pid, uint64_t *next_id);

#endif
