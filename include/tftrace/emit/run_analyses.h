/*
 * run_analyses: the per-run analyses of trace-summarize (--advise, --idle,
 * --critical-path) computed and written one after the other through the
 * table sink, and the critical path optionally as a Chrome overlay.
 *
 * Writes into the caller's output and keeps nothing; the analyses' results
 * are freed before it returns.
 */
#ifndef TL_EMIT_RUN_ANALYSES_H
#define TL_EMIT_RUN_ANALYSES_H

#include "analysis/critical_path.h"
#include "emit/chrome.h"
#include "emit/table.h"
#include "model/run.h"

typedef struct tl_run_analyses {
	bool advise, idle, critical_path;
	size_t top_gaps;   /* idle: the longest gaps listed per device */
	tl_path_opts path; /* critical path: its window */
} tl_run_analyses;

/* `overlay`, when not NULL, also gets the critical path as trace events.
 * -1 with err set where the critical path's window is not in the run. */
int tl_run_analyses_write(const tl_run *run, const tl_run_analyses *what, const tl_table_sink *sink,
			  tl_output *out, tl_chrome *overlay, tl_error *err);

#endif
