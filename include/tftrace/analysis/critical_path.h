/*
 * critical_path: the chain of executions that gated a step's end.
 *
 * Runs with dataflow (a RunMetadata, a StepStats, a TF1 timeline.py
 * trace): from the execution that ends last, each step back takes, among
 * the execution's predecessors (data, control and _Send->_Recv edges of
 * the partition graphs, op -> kernel launches, the previous kernel on the
 * same stream), the one that finished last: it released it. Each link
 * carries the wait between the predecessor's end and the execution's
 * start, so the path's gated times and waits add up to its span.
 *
 * Runs whose input records no dataflow (a Kineto trace, an XSpace, TF2
 * trace JSON, any other Chrome trace): the longest path through a graph of
 * instants built by the rules of Holistic Trace Analysis (HTA,
 * hta/analyzers/critical_path_analysis.py), analysis/critical_path_host.c:
 * each host event and each kernel (copy, memset) is a start and an end
 * node; on a host thread a parent's start leads to its first child's
 * start, a child's end to the next sibling's start or its parent's end,
 * each top-level event's end to the next one's start (weight 0); a launch
 * call's start leads to its kernel's start (the launch delay) when the
 * stream was idle at the call, else the previous kernel's end on the
 * stream does (the kernel-kernel delay); a device synchronize's end waits
 * (weight 0) for the last kernel that started before it on every stream.
 * Edge weights are the time between their instants; the blocking calls'
 * own spans weigh 0 (their time is the device's).
 *
 * Data only: emit/critical_path.h writes it as a table or a Chrome trace.
 *
 * The steps are the caller's (g_free, or tl_path_clear); they index the
 * run's executions.
 */
#ifndef TL_ANALYSIS_CRITICAL_PATH_H
#define TL_ANALYSIS_CRITICAL_PATH_H

#include "base/error.h"
#include "model/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_path_step {
	uint32_t exec;
	int64_t wait_ns;  /* between the predecessor's end and this start
			   * (host rules: the launch or kernel-kernel delay
			   * into it) */
	int64_t gated_ns; /* its own share of the path: from its predecessor's
			   * end (or its start, if later) to its end (host
			   * rules: the weights of the path's edges HTA
			   * attributes to it) */
} tl_path_step;

/* The critical path, first execution first. Returns the number of steps;
 * *steps is g_malloc'd (NULL for a run without executions). */
size_t tl_critical_path(const tl_run *run, tl_path_step **steps);

/* Which rules built a path. */
typedef enum tl_path_rules {
	TL_PATH_DATAFLOW = 0, /* the run's dataflow, launches, stream order */
	TL_PATH_HOST,	      /* HTA's: host threads, launches, streams, syncs */
} tl_path_rules;

typedef struct tl_path_opts {
	/* NULL: the whole run. Else the window of the instance-th (0-based,
	 * by start) execution whose name holds this text, as HTA's
	 * annotation and instance_id: host events that start in it, kernels
	 * whose launch call does. */
	const char *annotation;
	uint32_t instance;
} tl_path_opts;

typedef struct tl_path {
	tl_path_step *steps; /* in the order the path meets them */
	size_t n;
	tl_path_rules rules;
	int64_t begin, end;		  /* the path's first and last instants */
	int64_t span_begin, span_end;	  /* the run's span, or the window */
	size_t n_nodes, n_edges;	  /* host rules: the path's */
	size_t n_launch, n_kernel, n_sync; /* host rules: its launch, kernel-kernel, sync edges */
} tl_path;

/* The critical path of `run` by the rules its input allows. -1 with err
 * set where the annotation is not in the run (or has no such instance). */
int tl_critical_path_find(const tl_run *run, const tl_path_opts *o, tl_path *out,
			  tl_error *err);
void tl_path_clear(tl_path *p);

#endif
