/*
 * summary (sink): trace-summarize's tables written: the flat views through
 * the table sink (text: aligned, tfprof's human units, share and
 * cumulative share; CSV and JSON: raw micros and bytes), the scope view as
 * tfprof's indented tree (text), a flat list (CSV) or nested objects
 * (JSON), and the partial aggregates --combine reads back.
 *
 * Writes into the caller's output and keeps nothing.
 */
#ifndef TL_EMIT_SUMMARY_H
#define TL_EMIT_SUMMARY_H

#include "analysis/summary.h"
#include "emit/table.h"

void tl_summary_write(const tl_summary *s, const tl_summary_opts *o, const tl_table_sink *sink,
		      tl_output *out);
/* tfprof's units for a column: 12.35ms, 1.20MB, 100.35k. */
void tl_summary_human(int col, double v, char *buf, size_t size);
/* --format partial: JSON lines tl_summary_read_partial reads back. */
void tl_summary_write_partial(const tl_summary *s, tl_output *out);

#endif
