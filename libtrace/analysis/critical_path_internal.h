/*
 * critical_path_internal: what analysis/critical_path.c (the dataflow path,
 * the annotation window) and analysis/critical_path_host.c (HTA's rules)
 * share. Only those two include it.
 */
#ifndef TL_ANALYSIS_CRITICAL_PATH_INTERNAL_H
#define TL_ANALYSIS_CRITICAL_PATH_INTERNAL_H

#include "analysis/critical_path.h"

#include <glib.h>

/* An execution's name as its input has it: a Chrome trace's event name,
 * else its node. */
const char *tl_critical_path_name(const tl_run *run, uint32_t e);

/* Executions (uint32_t indices into run, the user data) by start, then
 * by their record's place in the input. */
gint tl_critical_path_cmp_start(gconstpointer a, gconstpointer b, gpointer run);

/* HTA's path among the host events that start in [wb, we] and the kernels
 * they launch; fills everything of *out but span_begin and span_end. */
void tl_critical_path_host(const tl_run *run, int64_t wb, int64_t we, tl_path *out);

/* An edge of HTA's graph: from an execution's start or end to another's,
 * its weight (ns) and kind. */
enum {
	TL_PATH_EDGE_OP,     /* within a host event or a kernel, along a thread's stack */
	TL_PATH_EDGE_DEP,    /* a top-level host event's end to the next one's start */
	TL_PATH_EDGE_LAUNCH, /* a launch call's start to its kernel's start */
	TL_PATH_EDGE_KERNEL, /* a kernel's end to the next one's start on its stream */
	TL_PATH_EDGE_SYNC,   /* a kernel's end to a synchronize's end */
};
typedef struct tl_path_edge {
	uint32_t src, dst; /* executions */
	bool src_end, dst_end;
	int64_t w;
	int type;
} tl_path_edge;

/* Every edge of HTA's graph of [wb, we], in the order it is built
 * (tests read it): a GArray of tl_path_edge, the caller's. */
GArray *tl_critical_path_host_edges(const tl_run *run, int64_t wb, int64_t we);

#endif
