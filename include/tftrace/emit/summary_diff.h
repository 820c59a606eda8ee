/*
 * summary_diff (sink): a comparison of two summaries
 * (analysis/summary_diff.h) as a table: per row A, B, B - A, the change in
 * percent ("new" where A had none) and the occurrences in each.
 *
 * Writes into the caller's output and keeps nothing.
 */
#ifndef TL_EMIT_SUMMARY_DIFF_H
#define TL_EMIT_SUMMARY_DIFF_H

#include "analysis/summary_diff.h"
#include "emit/table.h"

void tl_summary_diff_write(const tl_summary_diff *d, const tl_table_sink *sink, tl_output *out);

#endif
