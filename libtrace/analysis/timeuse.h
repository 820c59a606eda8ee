/*
 * timeuse: where a step's wall time went beyond per-op sums.
 *
 *   idle: per device (executors and GPU streams), busy time as the union of
 *   its executions, the idle gaps between them, and the longest gaps with the
 *   executions before and after each;
 *
 *   critical path: the chain of executions that gated the step's end. From
 *   the execution that ends last, each step back takes, among the
 *   execution's predecessors (data, control and _Send->_Recv edges of the
 *   partition graphs, op -> kernel launches, the previous kernel on the same
 *   stream), the one that finished last: it released it. Each link carries
 *   the wait between the predecessor's end and the execution's start, so the
 *   path's durations and waits add up to its span.
 */
#ifndef TL_ANALYSIS_TIMEUSE_H
#define TL_ANALYSIS_TIMEUSE_H

#include "emit/chrome.h"
#include "model/run.h"
#include "base/output.h"

typedef enum { TL_TIMEUSE_TEXT = 0, TL_TIMEUSE_CSV, TL_TIMEUSE_JSON } tl_timeuse_format;

void tl_idle_print(const tl_run *run, size_t top_gaps, tl_timeuse_format f, tl_output *out);

typedef struct tl_path_step {
	uint32_t exec;
	int64_t wait_ns;        /* between the predecessor's end and this start */
} tl_path_step;

/* The critical path, first execution first. Returns the number of steps;
 * *steps is g_malloc'd. */
size_t tl_critical_path(const tl_run *run, tl_path_step **steps);

void tl_critical_path_print(const tl_run *run, const tl_path_step *steps, size_t n,
			    tl_timeuse_format f, tl_output *out);
/* The path as a Chrome trace overlay: a "Critical path" process with the
 * path's executions and arrows between them. */
void tl_critical_path_trace(tl_chrome *w, const tl_run *run, const tl_path_step *steps,
			    size_t n);



/* tfprof's checkers, on one run: the most expensive op types, accelerator
 * utilization per GPU, Conv2D in NHWC on a GPU, batch norm left unfused. */
void tl_advise_print(const tl_run *run, tl_output *out);
#endif
