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
 * idle, graphdot and dot (the graph).
 *
 * Runs come one at a time (tl_report_add), and the caller frees each after
 * the call: its page data goes into an unlinked temporary file, and the page
 * keeps a digest of it (duration, counts, peak, op times). The runs whose
 * timeline the page holds (by default the median and the slowest step,
 * else the picks of --runs) are known only at the end, when
 * tl_report_finish writes the page: their data copied whole, every other
 * run's without its timeline, and a table of every step. A page of one run
 * is what it was before runs came one at a time, byte for byte.
 */
#ifndef TL_EMIT_REPORT_H
#define TL_EMIT_REPORT_H

#include "base/output.h"
#include "base/warn.h"
#include "model/run.h"

#include <stdbool.h>
#include <stddef.h>

/* One item of --runs: runs from..to (run numbers from 0, across the inputs
 * in order), or the median or the slowest step. */
enum { TL_REPORT_MEDIAN = -1, TL_REPORT_SLOWEST = -2 };
typedef struct tl_report_pick {
	int64_t from, to; /* from == to < 0: TL_REPORT_MEDIAN or TL_REPORT_SLOWEST */
} tl_report_pick;

/* "3,7-9,median,slowest" into picks (g_free): 0, or -1 on a bad list. */
int tl_report_picks_parse(const char *list, tl_report_pick **picks, size_t *n);

typedef struct tl_report_opts {
	const char *title;	   /* page title (NULL: "tftrace report: FIRST INPUT") */
	const char *generator;	   /* "trace-report VERSION" */
	const char *const *inputs; /* the input names, listed on the page */
	size_t n_inputs;
	bool graph;		     /* draw the partition graphs (graph-render's SVG) */
	size_t graph_max_nodes;	     /* collapse scopes above this many nodes (0: never) */
	size_t max_live;	     /* buffers listed live at each peak (0: all) */
	size_t table_rows;	     /* rows of each table, in its order (0: all) */
	const tl_report_pick *picks; /* the runs with a timeline (NULL: median, slowest) */
	size_t n_picks;
	const char *prog; /* the command that makes a page ("trace-report") */
} tl_report_opts;

void tl_report_opts_init(tl_report_opts *o);

typedef struct tl_report tl_report;

/* A page to come; `o` (and what it points to) must outlive it. Fails (-1,
 * err) when no temporary file can be made. */
int tl_report_new(tl_report **out, const tl_report_opts *o, tl_error *err);
/* Every run's wall time (ns, t_end - t_begin), told before the first run
 * is added (tl_run_walls_ahead): the page then makes the timeline of only
 * the runs it will hold (--runs, by default the median and the slowest),
 * the others' compact data alone. */
void tl_report_expect(tl_report *r, const int64_t *wall, size_t n);
/* Adds the next run; the caller may free it on return. Fails when Graphviz
 * cannot lay its graph out or the temporary file cannot be written. */
int tl_report_add(tl_report *r, const tl_run *run, tl_error *err);
/* The same, where the page may keep the run (*run set to NULL, the page
 * frees it): the first run is kept until a second comes and the second
 * until a third, so that the two-run page's graph colouring is made only
 * for a page of two runs. */
int tl_report_add_own(tl_report *r, tl_run **run, tl_error *err);
/* The page, into `out`: fails with no run, with a pick past the last run
 * ("--runs 12: the input has 10 runs, numbered 0 to 9"), or when the
 * temporary file cannot be read back; the caller then drops the output. */
int tl_report_finish(tl_report *r, tl_output *out, tl_error *err);
void tl_report_free(tl_report *r);

/* The page of `runs` (at least one): new, add each, finish. */
int tl_report_write(tl_output *out, tl_run *const *runs, size_t n_runs, const tl_report_opts *o,
		    tl_error *err);

#endif
