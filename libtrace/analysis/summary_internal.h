/*
 * summary_internal: what the files of the summary share and nobody else
 * sees: a row's values per run, and the row lookups.
 */
#ifndef TL_ANALYSIS_SUMMARY_INTERNAL_H
#define TL_ANALYSIS_SUMMARY_INTERNAL_H

#include "analysis/summary.h"
#include "base/arena.h"

typedef struct tl_summary_vals {
	double v[TL_N_COLS];
} tl_summary_vals;

/* The row of a name (made valid UTF-8), made when missing. */
tl_row *tl_summary_row_get(tl_summary *s, const char *name);
/* The values of a run, added where missing. */
tl_summary_vals *tl_summary_row_run(tl_row *r, size_t run);
/* The values of a run, or NULL when the row did not occur in it. */
const tl_summary_vals *tl_summary_row_vals(const tl_row *r, size_t run);
/* Adds v to a run's values (peak: the larger; the others summed). */
void tl_summary_vals_add(tl_summary_vals *dst, const tl_summary_vals *v);
/* Adds v to the row's run, making the row if need be; returns the row. */
tl_row *tl_summary_row_add(tl_summary *s, const char *name, size_t run, const tl_summary_vals *v);
/* A row's op (tl_row.extra) copied into the summary's arena; NULL stays
 * NULL. */
static inline char *tl_summary_arena_dup(tl_summary *s, const char *str)
{
	return str != NULL ? tl_arena_strdup(s->arena, str) : NULL;
}
/* A label kept as valid UTF-8 (bad bytes become U+FFFD), newly allocated. */
char *tl_summary_valid_dup(const char *s);

/* Definitions per row (occurrence "defined"): counts[r] += 1, then each
 * row's defined the larger of its own and its count (a stream, its inputs
 * absorbed apart and their partials all count the same); frees counts. */
void tl_summary_defined_add(GHashTable *counts, tl_row *r);
void tl_summary_defined_set(GHashTable *counts);

/* Run ri of a Chrome trace (tl_run.events): its slices as the file has
 * them (analysis/summary_slices.c). */
void tl_summary_add_slices(tl_summary *s, const tl_run *run, size_t ri);

/* --graph (analysis/summary_graph.c): a run's executions matched to the
 * graph's nodes by name. */
typedef struct tl_summary_graph tl_summary_graph;
tl_summary_graph *tl_summary_graph_new(const tl_summary *s, const tl_run *run,
				       bool (*is_host)(const tl_run *, const tl_exec *));
void tl_summary_graph_free(tl_summary_graph *m);
/* The graph node of an execution, or -1 (kept out). */
int32_t tl_summary_graph_node(const tl_summary_graph *m, uint32_t exec);
/* The row of a graph node in the summary's view (NULL: none, the device
 * view's node that did not run). */
const char *tl_summary_graph_key(const tl_summary *s, const tl_summary_graph *m, uint32_t node);
/* A graph node's op type. */
const char *tl_summary_graph_op(const tl_summary_graph *m, uint32_t node);
/* Float operations of an execution with the graph's shapes beside the
 * records'. */
double tl_summary_graph_float_ops(const tl_summary_graph *m, uint32_t exec);
/* Counts `execs` executions of a node kept out of the tables (not in the
 * graph). */
void tl_summary_graph_keep_out(tl_summary *s, const char *node, size_t execs);
/* Rows for every graph node in run ri, params and definitions. */
void tl_summary_graph_rows(tl_summary *s, const tl_summary_graph *m, size_t ri);

#endif
