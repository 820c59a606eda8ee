/*
 * run_internal: what the two files that build a tl_run share, and no one else
 * (tftrace.h does not include it; it is not installed): run.c builds the
 * devices and executions and links them to the graphs, run_graph.c builds
 * the nodes and edges of the partition graphs. The builder's tables belong
 * to tl_run_build, which frees them; what it puts in the run lives in the
 * run's arena.
 */
#ifndef TL_MODEL_RUN_INTERNAL_H
#define TL_MODEL_RUN_INTERNAL_H

#include "model/nametab.h"
#include "model/run.h"

#include <glib.h>
#include <string.h>

struct run_builder {
	tl_run *run;
	tl_nametab *node_by_name;  /* (partition, node name) -> node index */
	tl_name *exec_names;	   /* per execution: its node name, hashed once where needed */
	GHashTable *device_index;  /* normalized name -> device index + 1 */
	int32_t *partition_of_dev; /* executor device -> partition index, -1 */
};

static inline bool is_send(const char *op)
{
	return strcmp(op, "_Send") == 0 || strcmp(op, "_HostSend") == 0;
}

static inline bool is_recv(const char *op)
{
	return strcmp(op, "_Recv") == 0 || strcmp(op, "_HostRecv") == 0;
}

/* run.c: appends the normalized spelling of raw[0 .. len) to s. */
void tl_run_device_normalize_append(GString *s, const char *raw, size_t len);

/* run_graph.c: the nodes of the partition graphs (b->node_by_name finds
 * them) and their edges: data and control edges from the inputs,
 * transfers from the _Send/_Recv pairs. */
void tl_run_graph_build(struct run_builder *b);

/* run_graph.c: says once when the graphs have a cycle that is not a
 * NextIteration loop. */
void tl_run_graph_warn_cycles(const tl_run *run);

#endif
