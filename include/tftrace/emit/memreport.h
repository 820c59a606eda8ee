/*
 * memreport: the report of memory views (analysis/memview.h), one writer
 * for every source: RunMetadata buffers and allocator events alike.
 *
 * The report (--report): per allocator the peak, when, during which op,
 * the check against the allocator's own numbers, the band, and the top N
 * blocks live at the peak; as aligned text or CSV (one row per live block,
 * through the table sink; or, with `curve`, one row per band point), or
 * JSON (a document over the runs, the format below, docs/trace-memory.md).
 * The backend is picked by name from a table of hook
 * structs. The Chrome events of a view are emit/memtrace.h.
 *
 * JSON report:
 *   {"runs":[{"run":LABEL,["source":"allocation events","clock":CLOCK,]
 *      "step_start_us":T,"step_end_us":T,"allocators":[
 *      {"allocator":NAME,"device":DEV,"peak_bytes":B,"peak_requested_bytes":B|null,
 *       "peak_us":T,"peak_op":NODE|null,"persistent_bytes":B,"curve":[[us,bytes],...],
 *       "band":[[us,low,high],...],"peak_range":[B,B],"unattributed":[[us,bytes],...],
 *       "live_at_peak":[BUFFER...],"estimated":N,"unplaced":[BUFFER...],
 *       "check":{"samples":N,"max_abs_error_bytes":B,"mean_abs_error_bytes":X}
 *       and for allocator events: "peak_from":"total_allocated|running_sum",
 *       "peak_reserved_bytes":B|null,"events":N,"blocks":N,
 *       "allocated_before_trace":N,"never_freed":N,"live_bytes":B,
 *       "unattributed_bytes":B}],
 *     "buffers":[BUFFER...]   (with --buffers)}],
 *    "max":[{"allocator":NAME,"peak_bytes":B,"run":LABEL}]}
 *   BUFFER (RunMetadata) = {"tensor":"node:slot","tensors":[...],"allocator":A,
 *     "allocation_id":N,"kind":"output|temp|persistent","producer":NODE,
 *     "op":OP,"slot":N,"dtype":"DT_FLOAT","shape":[..],"allocated_bytes":B,
 *     "requested_bytes":B,"alloc_us":T|null,"free_us":T|null,
 *     "last_consumer":NODE|null,"free_cause":C,"fetched":BOOL,
 *     and where the birth is estimated: "estimated":true,
 *     "birth":"pinned|unconstrained|contradicted","birth_window_us":[T,T]}
 *   BUFFER (allocator events) = {"tensor":"0xADDR","allocator":A,"kind":"block",
 *     "op":OP|null,"allocated_bytes":B,"alloc_us":T|null,"free_us":T|null,
 *     "addr":N,"free_op":OP|null}
 *   Times are microseconds (whole for RunMetadata; up to three decimals,
 *   the events' nanoseconds, for allocator events, from CLOCK).
 *   "estimated" counts an allocator's buffers whose birth the dump does not
 *   hold (a _Recv without stats); "unplaced" lists those the samples could
 *   not place: no sample falls in their possible life ("unconstrained": born
 *   at their first consumer's start) or the samples contradict every birth
 *   ("contradicted"). birth_window_us is the window the samples leave.
 *   CSV rows end in the buffer's birth (recorded, pinned, unconstrained,
 *   contradicted); unplaced buffers not live at the peak follow the ranked
 *   rows with an empty rank. CSV with `curve`: run,allocator,t_us,low,
 *   curve,high, one row per band point (the curve's clock).
 *
 * The tl_memreport is the caller's (on its stack, from begin to end); it
 * keeps the largest peaks over the runs, not the runs.
 */
#ifndef TL_EMIT_MEMREPORT_H
#define TL_EMIT_MEMREPORT_H

#include "analysis/memview.h"
#include "base/output.h"
#include "emit/table.h"

#include <glib.h>

typedef struct tl_memreport_opts {
	const char *format; /* "text" (NULL too), "csv" or "json" */
	size_t top;	    /* live buffers listed per allocator */
	bool buffers;	    /* JSON: every buffer too */
	bool curve;	    /* CSV: the band and curve, a row per point, instead */
} tl_memreport_opts;

/* A report over several runs: begin, one call per run, end. */
typedef struct tl_memreport {
	tl_output *out;
	tl_memreport_opts opts;
	const struct tl_memreport_backend *backend;
	tl_table table; /* CSV: one table over every run */
	size_t runs;
	GPtrArray *max;		 /* per allocator: struct tl_memreport_max */
	GHashTable *max_by_name; /* allocator -> its entry in max */
} tl_memreport;

/* The formats, NULL-terminated: "text", "csv", "json" (another name is
 * taken as text). */
extern const char *const tl_memreport_formats[];

void tl_memreport_begin(tl_memreport *r, tl_output *out, const tl_memreport_opts *opts);
void tl_memreport_run(tl_memreport *r, const tl_memview *v);
void tl_memreport_end(tl_memreport *r);
/* Frees a report begun and not ended (bad input met on the way), writing
 * nothing more; a report never begun, or ended, is left as it is. */
void tl_memreport_abort(tl_memreport *r);

#endif
