/*
 * critical_path: the chain of executions that gated a step's end. From the
 * execution that ends last, each step back takes, among the execution's
 * predecessors (data, control and _Send->_Recv edges of the partition
 * graphs, op -> kernel launches, the previous kernel on the same stream),
 * the one that finished last: it released it. Each link carries the wait
 * between the predecessor's end and the execution's start, so the path's
 * gated times and waits add up to its span.
 *
 * Data only: emit/critical_path.h writes it as a table or a Chrome trace.
 *
 * The steps are the caller's (g_free); they index the run's executions.
 */
#ifndef TL_ANALYSIS_CRITICAL_PATH_H
#define TL_ANALYSIS_CRITICAL_PATH_H

#include "model/run.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tl_path_step {
	uint32_t exec;
	int64_t wait_ns;  /* between the predecessor's end and this start */
	int64_t gated_ns; /* its own share of the path: from its predecessor's
			   * end (or its start, if later) to its end */
} tl_path_step;

/* The critical path, first execution first. Returns the number of steps;
 * *steps is g_malloc'd (NULL for a run without executions). */
size_t tl_critical_path(const tl_run *run, tl_path_step **steps);

#endif
