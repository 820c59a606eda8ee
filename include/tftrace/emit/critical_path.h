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

/* The path as a table; `o` (NULL: none) names its window. A path by HTA's
 * rules says so in its header (and meta fields), with its instants and
 * edges; its wait column is the launch or kernel-kernel delay. */
void tl_critical_path_write(const tl_run *run, const tl_path *p, const tl_path_opts *o,
			    const tl_table_sink *sink, tl_output *out);
/* The path as a Chrome trace overlay: a "Critical path" process with the
 * path's executions (HTA's rules: on a row per thread or stream). */
void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path *p);

#endif
