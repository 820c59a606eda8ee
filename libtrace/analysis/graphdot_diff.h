/*
 * graphdot_diff: what graph-render --diff colours B's graph by. Per graph
 * node, a statistic of trace-summarize's node view in the runs of A and
 * in those of B: total_micros (time) or output_bytes (memory), averaged
 * over each side's runs as trace-summarize --diff does (--stat avg). The
 * rows are matched as trace-summarize --diff matches them
 * (analysis/summary_diff.h: by name), so a node's change is the delta of
 * its row in that table. A name one side lacks is then matched by op type
 * and scope: a node of B found in B alone is paired with a node of A found
 * in A alone when they have the same op type and the same scope (the name
 * up to its last '/') and each is the only one of its side so left.
 *
 * A node is in a side when a run of it has it in its partition graphs or
 * in its step stats. The diff owns copies of every name it keeps; the
 * runs given to it may be freed after tl_graphdot_diff_add_run.
 */
#ifndef TL_ANALYSIS_GRAPHDOT_DIFF_H
#define TL_ANALYSIS_GRAPHDOT_DIFF_H

#include "model/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_graphdot_diff tl_graphdot_diff;

/* A diff of time (total_micros, in microseconds) or, with `memory`, of
 * output memory (output_bytes, in bytes). */
tl_graphdot_diff *tl_graphdot_diff_new(bool memory);
/* A diff of the other statistic over the same runs, made before either
 * is finished: a run added to one is added to both, and each runs' summary
 * is made once for the two. Each is finished and freed on its own. */
tl_graphdot_diff *tl_graphdot_diff_twin(tl_graphdot_diff *d);
void tl_graphdot_diff_free(tl_graphdot_diff *d);

/* Adds a run of A (side 0) or B (side 1). */
void tl_graphdot_diff_add_run(tl_graphdot_diff *d, int side, const tl_run *run);
/* Matches the two sides, once every run is added. */
void tl_graphdot_diff_finish(tl_graphdot_diff *d);

bool tl_graphdot_diff_memory(const tl_graphdot_diff *d);
/* A statistic (or change) in the picture's unit: nanoseconds for time
 * (the summary's are microseconds), bytes for memory; saturated. */
int64_t tl_graphdot_diff_units(const tl_graphdot_diff *d, double v);

/* "change from A to B", each side's first run's label, with the count
 * of its runs where it has several (g_malloc'd). */
char *tl_graphdot_diff_title(const tl_graphdot_diff *d);

/* One node's change. */
typedef struct tl_graphdot_change {
	double a, b;	    /* the statistic in A and in B (0 where it did not run) */
	bool in_a, in_b;    /* present in the side */
	const char *a_name; /* the node of A it is matched to (its own name, or
			     * the one paired by op and scope); NULL: only in B */
} tl_graphdot_change;

/* The change of the node of B named `name`; NULL when B lacks it. */
const tl_graphdot_change *tl_graphdot_diff_find(const tl_graphdot_diff *d, const char *name);

/* The nodes only in A (unpaired), by |value in A|, largest first, then by
 * name: *n of them, each with its change (b 0). */
typedef struct tl_graphdot_gone {
	const char *name;
	double a;
} tl_graphdot_gone;
const tl_graphdot_gone *tl_graphdot_diff_only_a(const tl_graphdot_diff *d, size_t *n);

/* How many nodes of B's graphs are in A too (by name or paired). */
size_t tl_graphdot_diff_common(const tl_graphdot_diff *d);

#endif
