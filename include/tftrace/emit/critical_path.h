/*
 * critical_path (sink): the critical path of a run (analysis/critical_path.h)
 * as a table (a row per execution, with its start, duration, gated time,
 * wait and share of the step) or as a Chrome trace overlay.
 *
 * Writes into the caller's output (or Chrome writer) and keeps nothing.
 */
#ifndef TL_EMIT_CRITICAL_PATH_H
#define TL_EMIT_CRITICAL_PATH_H

#include "analysis/critical_path.h"
#include "emit/chrome.h"
#include "emit/table.h"

void tl_critical_path_write(const tl_run *run, const tl_path_step *steps, size_t n,
			    const tl_table_sink *sink, tl_output *out);
/* The path as a Chrome trace overlay: a "Critical path" process with the
 * path's executions and arrows between them. */
void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path_step *steps, size_t n);

#endif
