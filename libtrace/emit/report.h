/*
 * report: runs as one self-contained HTML page (trace-report): the
 * timeline with its dataflow arrows, the memory curves, trace-summarize's
 * tables, the critical path, idle time per device and graph-render's SVG,
 * all of one run at a time, with a diff table when there are two runs.
 *
 * The page is the template libtrace/emit/report/report.html with its CSS
 * and JS, inlined into the library at build time (scripts/embed.sh), and
 * the runs' data as JSON in a <script type="application/json"> element;
 * what the data holds is the contract with the page's JS, written down in
 * docs/trace-report.md. Nothing on the page refers to the network.
 *
 * The sink reads the runs (which the caller owns) through the analyses
 * every other tool uses: lanes and optrace's names (the rows), dataflow
 * (the arrows), memory (the curves), summary (the tables), critical path,
 * idle, graphdot and dot (the graph). It writes into the caller's output
 * and keeps nothing.
 */
#ifndef TL_EMIT_REPORT_H
#define TL_EMIT_REPORT_H

#include "base/output.h"
#include "base/warn.h"
#include "model/run.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct tl_report_opts {
	const char *title;	   /* page title (NULL: "tftrace report: FIRST INPUT") */
	const char *generator;	   /* "trace-report VERSION" */
	const char *const *inputs; /* the input names, listed on the page */
	size_t n_inputs;
	bool graph;		/* draw the partition graphs (graph-render's SVG) */
	size_t graph_max_nodes; /* collapse scopes above this many nodes (0: never) */
	size_t max_live;	/* buffers listed live at each peak (0: all) */
	size_t table_rows;	/* rows of each table, in its order (0: all) */
} tl_report_opts;

void tl_report_opts_init(tl_report_opts *o);

/* Writes the page of `runs` (at least one) into `out`. Fails (-1, err
 * filled) only when Graphviz cannot lay a graph out; the caller then drops
 * the output. */
int tl_report_write(tl_output *out, tl_run *const *runs, size_t n_runs, const tl_report_opts *o,
		    tl_error *err);

#endif
