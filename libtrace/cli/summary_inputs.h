/*
 * summary_inputs: inputs into a summary, read side by side. Each input is
 * read into its own summary on a worker thread (up to 8, one per core),
 * one run at a time, then appended in input order: the table is the same
 * as one by one, and at most one run per core is in memory.
 *
 * The summary is the caller's; the inputs are opened, read and closed here.
 */
#ifndef TL_CLI_SUMMARY_INPUTS_H
#define TL_CLI_SUMMARY_INPUTS_H

#include "analysis/summary.h"
#include "base/progress.h"
#include "io/format.h"

typedef struct tl_summary_inputs_opts {
	tl_format format;	      /* --input-format (TL_FORMAT_AUTO: sniffed) */
	bool combine;		      /* the inputs are partials (read one by one) */
	tl_progress *progress;	      /* runs and bytes read, or NULL */
	const tl_graph_attach *graph; /* --graph (tl_summary_set_graph), or NULL */
} tl_summary_inputs_opts;

/* Adds every input: a RunMetadata input's runs, a Chrome trace as one run,
 * a partial with `combine`. On bad input returns -1 with *bad its index
 * (the first bad one in input order) and err filled; s then holds the
 * inputs before it. With a graph, what it kept out of the tables is
 * warned once at the end (tl_summary_warn_kept_out). */
int tl_summary_add_inputs(tl_summary *s, const char *const *paths, size_t n,
			  const tl_summary_inputs_opts *o, size_t *bad, tl_error *err);

#endif
