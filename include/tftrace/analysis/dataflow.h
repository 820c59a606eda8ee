/*
 * dataflow: producer-to-consumer links between executions of one run.
 *
 * With partition graphs (exact): one link per graph edge and execution of
 * its consumer: data edges with ports, control edges, and _Send -> _Recv
 * transfers across devices. A _Recv the dump has no stats for is read
 * through: its consumers get a transfer link from the _Send (or, when the
 * _Send has none either, from the node the _Send read), with via_recv /
 * via_send naming what was skipped.
 * A node executed several times (a loop) is matched by iteration, which no
 * dump records: the k-th consumer execution reads the k-th producer
 * execution when both ran equally often, the only one when the producer ran
 * once, the last one when the consumer ran once, else the latest that
 * produced the tensor and ended before the consumer started (none if none
 * did). A _Send/_Recv pair runs equally often, so the recorded executions
 * of a side with fewer are placed among the other side's iterations by
 * time. A loop's Merge (an input from a NextIteration) reads one input per
 * execution, in arrival order. No link goes from an execution to itself.
 * Without graphs: links from the "name = Op(in0, in1)" labels, with one
 * warning saying so.
 * Also: each GPU kernel or copy linked from the op that launched it.
 *
 * The result is an array in a GLib GArray owned by the caller.
 */
#ifndef TL_ANALYSIS_DATAFLOW_H
#define TL_ANALYSIS_DATAFLOW_H

#include "model/run.h"

#include <glib.h>

typedef enum tl_link_kind {
	TL_LINK_DATA = 0,
	TL_LINK_CONTROL,
	TL_LINK_TRANSFER,
	TL_LINK_LAUNCH,
} tl_link_kind;

typedef struct tl_link {
	uint32_t src, dst; /* execs */
	int32_t src_port;  /* data: output slot; else -1 */
	int32_t dst_port;  /* data: input position; else -1 */
	tl_link_kind kind;
	bool guessed; /* from labels, not graphs */
	/* A tensor that crossed devices through a _Recv (or _Send) the dump has
	 * no stats for: its graph node, else -1. The link then goes from the
	 * _Send (or the node the _Send read) straight to the consumer, kind
	 * TL_LINK_TRANSFER. */
	int32_t via_recv;
	int32_t via_send;
} tl_link;

const char *tl_dataflow_link_kind_name(tl_link_kind k);

typedef struct tl_dataflow_opts {
	bool control;  /* include control edges */
	bool launches; /* include op -> kernel links */
} tl_dataflow_opts;

/* Appends every link of the run to `links` (element type tl_link), in a
 * deterministic order. */
void tl_dataflow_links(const tl_run *run, const tl_dataflow_opts *opts, GArray *links);

/* Every execution's iteration as the links infer it: its rank among its
 * node's executions, except on a partly recorded _Send/_Recv pair, where
 * it is the iteration it was placed at (-1 outside the graphs). An array
 * of run->n_execs entries, g_free'd by the caller. */
int32_t *tl_dataflow_iterations(const tl_run *run);

/* Per entry of run->node_execs, the earliest end among its node's
 * executions from that one on: the index tl_dataflow_pick searches. An
 * array as long as run->node_execs, g_free'd by the caller. */
int64_t *tl_dataflow_min_ends(const tl_run *run);

/* Which execution of `producer` the `k`-th of `n_cons` executions of a
 * consumer (starting at `cons_start`) reads, by counts alone (the rule of
 * the memory truth): the k-th, the only one, the last one, else the latest
 * that ended by then, else the first. `min_ends` is tl_dataflow_min_ends()
 * of the run (a binary search in it, O(log n)). Returns an execution, or
 * -1. The links above refine it (unrecorded executions, Merge, dead
 * outputs). */
int32_t tl_dataflow_pick(const tl_run *run, const int64_t *min_ends, uint32_t producer, uint32_t k,
			 uint32_t n_cons, int64_t cons_start);

#endif
