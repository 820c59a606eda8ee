/*
 * summary: tfprof-style aggregates of many runs, by op type, name scope,
 * graph node, device, GPU kernel or step; the rows a table shows (the flat
 * views) and the scope tree are computed here, written by emit/summary.h.
 *
 * Per row and per run the metrics below are summed; across runs each
 * column is reported as the average (default), first, min, max, p50, p90
 * or stddev over the runs (a run where the row did not occur counts 0).
 * RunMetadata columns are tfprof's (tfprof_node.cc: ExecStep::AddTimeStats,
 * AddMemoryStats), not the timeline's slice durations:
 *
 *   cpu_micros          executor records: from the op's start to its
 *                       op_end_rel (the kernel's end; the record's
 *                       all_end_rel, which trace-dataflow draws, adds the
 *                       executor's post-processing); a record whose
 *                       op_end_rel is 0 counts 1 us, as in tfprof.
 *                       Chrome traces: host slices' durations
 *   accelerator_micros  GPU kernels the execution launched, each from its
 *                       start to its op_end_rel: on the GPU's stream:all
 *                       tracer device, or on its per-stream devices (each
 *                       kernel once) where it has no stream:all.
 *                       Chrome traces: device slices (kernels, copies)
 *   total_micros        accelerator + cpu (tfprof's exec_micros); Chrome
 *                       traces: inclusive time, a slice's children (slices
 *                       inside it on its thread) included
 *   self_micros         exclusive time: total minus the time of its
 *                       children (analysis/summary_nest.h), so the rows'
 *                       self times add up to the busy time and shares of
 *                       it to 100%; where nothing nests (TF1 RunMetadata,
 *                       timeline.py traces) it equals total. The step view:
 *                       the step's wall time, as total.
 *   occurrence          executions on an executor in the run, tfprof's
 *                       "run" (or nodes defined, its "defined", with
 *                       --occurrence defined)
 *   requested_bytes     sum of AllocatorMemoryUsed.total_bytes, plus
 *                       memory_stats' temp and persistent sizes
 *   peak_bytes          sum of AllocatorMemoryUsed.peak_bytes plus temp and
 *                       persistent sizes (per row: the largest execution)
 *   residual_bytes      sum of AllocatorMemoryUsed.live_bytes plus the
 *                       persistent size
 *   output_bytes        outputs' bytes: the larger of allocated and
 *                       requested in their AllocationDescription
 *   params              elements of variables (VariableV2, VarHandleOp)
 *   float_ops           from shapes: MatMul 2mnk, Conv2D 2*out*kh*kw*cin,
 *                       element-wise ops one per output element
 *
 * With a graph (tl_summary_set_graph, --graph) a run that has no
 * partition graphs is read as tfprof reads it with --graph_path: the rows
 * are the graph's nodes, run or not; shapes come from the graph where the
 * records lack them; executions of nodes the graph does not define are
 * kept out and counted (kept_out).
 *
 * Rows keep per-run values, so a partial (--format partial) of some runs
 * combines with others into exactly the table of all runs.
 */
#ifndef TL_ANALYSIS_SUMMARY_H
#define TL_ANALYSIS_SUMMARY_H

#include "model/graph_attach.h"
#include "model/run.h"
#include "base/arena.h"
#include "base/output.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum tl_summary_view {
	TL_VIEW_OP = 0,
	TL_VIEW_SCOPE,
	TL_VIEW_NODE,
	TL_VIEW_DEVICE,
	TL_VIEW_KERNEL,
	TL_VIEW_STEP,
} tl_summary_view;

/* The view names, indexed by tl_summary_view, NULL-terminated. */
extern const char *const tl_summary_view_names[];
const char *tl_summary_view_name(tl_summary_view v);

enum {
	TL_COL_TOTAL = 0,
	TL_COL_ACCEL,
	TL_COL_CPU,
	TL_COL_OCCURRENCE,
	TL_COL_REQUESTED,
	TL_COL_PEAK,
	TL_COL_RESIDUAL,
	TL_COL_OUTPUT,
	TL_COL_PARAMS,
	TL_COL_FLOPS,
	TL_COL_SELF, /* last, so partials written before it read (as 0) */
	TL_N_COLS
};

/* Column names as --select, --order-by and --min-<name> spell them. */
const char *tl_summary_col_name(int col);
int tl_summary_col_parse(const char *s);

typedef enum tl_stat {
	TL_STAT_AVG = 0,
	TL_STAT_FIRST,
	TL_STAT_MIN,
	TL_STAT_MAX,
	TL_STAT_P50,
	TL_STAT_P90,
	TL_STAT_STDDEV,
} tl_stat;

/* The --stat names, indexed by tl_stat, NULL-terminated. */
extern const char *const tl_summary_stat_names[];

typedef struct tl_row {
	char *name;
	/* double[TL_N_COLS] per run from first_run on (a row of one late run,
	 * as in the step view, holds one): n_vals of them, room for cap_vals;
	 * the first run's lie in the row's own block of the arena, more runs
	 * in memory of their own */
	struct tl_summary_vals *vals;
	uint32_t n_vals, cap_vals;
	size_t first_run;
	int64_t defined; /* graph nodes in the row */
	size_t counted;	 /* scratch: the nodes of the run being added (0 after) */
	char *shape;	 /* variables: "784x128" */
	char *extra;	 /* kernel view: the op; op view: "" (in the summary's arena) */
} tl_row;

typedef struct tl_summary {
	tl_summary_view view;
	GHashTable *rows; /* name -> tl_row * */
	size_t n_runs;
	GPtrArray *run_labels; /* char * */
	bool have_graph;       /* some run had partition graphs */
	bool have_memory;
	bool from_chrome;	      /* some input was a Chrome trace */
	bool nested;		      /* some slice or execution had a parent: self < total */
	bool have_device;	      /* a Chrome trace had device slices (accelerator time) */
	const tl_graph_attach *graph; /* --graph, or NULL; the caller's */
	GHashTable *kept_out;	      /* node name -> executions kept out (not in graph) */
	size_t kept_out_execs;
	tl_arena *arena; /* the rows and their names, freed at once */
	bool times_only; /* set before adding runs: executions' memory and
			  * float_ops are not read (their columns stay 0, params
			  * are still counted): a page's tables, which show the
			  * times and occurrence alone */
} tl_summary;

tl_summary *tl_summary_new(tl_summary_view view);
void tl_summary_free(tl_summary *s);

/* The graph of the runs added after it that have no partition graphs
 * (tfprof's --graph_path); g stays the caller's and must outlive s (s
 * NULL: nothing). */
void tl_summary_set_graph(tl_summary *s, const tl_graph_attach *g);
/* The names kept out of the tables (not in the graph), most executions
 * first, then by name, at most `max` of them joined by ", " (g_malloc'd;
 * "" when none). */
char *tl_summary_kept_out_names(const tl_summary *s, size_t max);

/* --help's words on the columns (trace-summarize), a block written as it
 * stands. */
#define TL_SUMMARY_HELP_COLUMNS                                                                    \
	"Columns (RunMetadata: tfprof's definitions, tfprof_node.cc; see the man page):\n"         \
	"  cpu_micros: each executor record from its start to its op_end_rel (0 counts\n"          \
	"    1us, as tfprof rounds it), not to all_end_rel as the timeline's slices\n"             \
	"    (trace-dataflow), which add the executor's post-processing\n"                         \
	"  accelerator_micros: the kernels the op launched, on its GPU's stream:all\n"             \
	"    tracer device, or on the GPU's streams (each kernel once) without one\n"              \
	"  total_micros: accelerator + cpu (tfprof's exec time), no span of the\n"                 \
	"    timeline: kernels run while the op's own record does\n"                               \
	"  self_micros: total less the slices nested inside (TF2/JAX host planes,\n"               \
	"    Chrome traces); total where nothing nests\n"                                          \
	"  occurrence: executions on an executor (tfprof's run count); as text,\n"                 \
	"    run|defined where a graph defines the nodes\n"                                        \
	"  requested_bytes, peak_bytes, residual_bytes: the allocators' total, peak\n"             \
	"    and live bytes summed, with memory_stats' temp and persistent sizes\n"                \
	"    (residual: persistent only); a row's peak is its largest execution's\n"               \
	"  output_bytes: the outputs' allocated bytes (requested, if larger)\n"                    \
	"  params: elements of the variables; float_ops: from shapes (MatMul 2mnk,\n"              \
	"    Conv2D 2*out*kh*kw*cin, element-wise ops one per output element)\n"                   \
	"  Chrome traces: cpu_micros and accelerator_micros are host and device\n"                 \
	"    slices' durations, total_micros a slice's inclusive time\n"

/* One warning line (tl_warn) for the executions --graph kept out, if any:
 * how many, of how many nodes, and the first names. */
void tl_summary_warn_kept_out(const tl_summary *s);

/* Adds one run. The run of a Chrome trace (io/chrome_run.h, tl_run.events)
 * is counted by its slices (analysis/summary_slices.c): nested per thread,
 * by name (op view; a kernel's TF op where its args name it), args.name
 * (node, scope), device, device slice (kernel) or step (Kineto's
 * ProfilerStep#N, TF2's "Steps" line; the whole trace where none). */
void tl_summary_add_run(tl_summary *s, const tl_run *run);

/* Appends src's runs after dst's (the runs of one input summarized on its
 * own, e.g. on another thread). */
void tl_summary_absorb(tl_summary *dst, tl_summary *src);

/* A partial (--format partial, written by tl_summary_write_partial)
 * read back: its runs are added after those held (combine). */
int tl_summary_read_partial(tl_summary *s, const uint8_t *data, size_t len, tl_error *err);

/* What a table shows. */
typedef struct tl_summary_opts {
	int select[TL_N_COLS];
	int n_select;
	tl_stat stat;
	int order_by;	       /* a column, or -1 for name */
	bool select_given;     /* --select given (tl_summary_opts_fit adds no column) */
	bool order_given;      /* --order-by given (tl_summary_opts_fit keeps it) */
	double min[TL_N_COLS]; /* --min-<col>; 0 = none */
	GRegex *account_type;  /* op view: op types; device view: devices */
	GRegex *show, *hide, *start, *trim;
	int max_depth;		 /* scope view */
	bool displayed_only;	 /* --account-displayed-only */
	int step;		 /* --step N: only that run (-1: all) */
	bool occurrence_defined; /* occurrence = graph nodes, not executions */
	bool fit_quietly;	 /* tl_summary_opts_fit drops columns unwarned (a
				  * report's own tables, no one's choice) */
	size_t keep;		 /* a flat table keeps its first `keep` lines
				  * in its order (0: all): tl_summary_flat */
} tl_summary_opts;

void tl_summary_opts_init(tl_summary_opts *o);
/* --select "a,b": the columns, in order; -1 when one is unknown or none given. */
int tl_summary_opts_select(tl_summary_opts *o, const char *list);
/* --order-by: a column, or "name"; -1 when unknown. */
int tl_summary_opts_order(tl_summary_opts *o, const char *col);
/* Drops the selected columns the summary's inputs cannot fill (a Chrome
 * trace has no memory or graph data, and accelerator time only where it
 * has device slices), with one warning each; total_micros when none is
 * left. Where the inputs nest, the default columns get self_micros after
 * total_micros and the default order is self_micros. */
void tl_summary_opts_fit(tl_summary_opts *o, const tl_summary *s);
/* -1 (err) where --step names a run past the summary's last. */
int tl_summary_step_known(const tl_summary *s, const tl_summary_opts *o, tl_error *err);
/* A row's value of column `col` in run `run`: 0 where the row did not occur
 * in that run. */
double tl_summary_row_value(const tl_row *r, size_t run, int col);
/* The rows by name (strcmp order); the caller frees the array. */
GPtrArray *tl_summary_sorted_rows(const tl_summary *s);
/* One column of a row as the options' statistic over the runs. */
double tl_summary_row_stat(const tl_summary *s, const tl_row *r, int col, const tl_summary_opts *o);
/* Every column of a row at once into v[TL_N_COLS], each as
 * tl_summary_row_stat gives it (the average walks the runs once). */
void tl_summary_row_stats(const tl_summary *s, const tl_row *r, const tl_summary_opts *o,
			  double *v);
/* Whether a row's name passes --show, --hide and --account-type, and its
 * values every --min-<col>. */
bool tl_summary_name_passes(const tl_summary_opts *o, const tl_row *r);
bool tl_summary_values_pass(const tl_summary_opts *o, const double *v);

/* The flat table (every view but the scope tree): the rows shown, in
 * order, with their statistics, and the totals shares are taken of. */
typedef struct tl_summary_line {
	const tl_row *row;
	double v[TL_N_COLS];
} tl_summary_line;

typedef struct tl_summary_flat {
	tl_summary_line *lines;
	size_t n;
	size_t n_all; /* the lines that pass the filters: n, or more where
		       * opts.keep cut them (those past the first n are left
		       * unordered: a page's table keeps its first 2,000) */
	double total[TL_N_COLS]; /* over the rows that pass the name filters (and the
				  * value filters too with --account-displayed-only);
				  * where opts.keep cut the lines, summed in another
				  * order (the last bits may differ) */
	int share_col;		 /* the column shares are of: the order's, but
				  * self_micros for total_micros where the inputs
				  * nest (inclusive times do not add up) */
} tl_summary_flat;

tl_summary_flat *tl_summary_flat_new(const tl_summary *s, const tl_summary_opts *o);
void tl_summary_flat_free(tl_summary_flat *f);

/* The scope tree: a node per name-scope prefix of the rows' names
 * (a/b/c -> a, a/b, a/b/c), each with its own values (rows) and its
 * subtree's totals. A node's name is a prefix of the name of the row that
 * made it, name[0 .. len), not terminated. */
typedef struct tl_summary_scope {
	const char *name;
	uint32_t len;
	uint32_t comp; /* where its last component starts in name */
	uint32_t n_kids;
	struct tl_summary_scope *parent;
	struct tl_summary_scope *first_kid, *last_kid, *next; /* kids in order of creation */
	const tl_row *row;				      /* a real node, or NULL for a scope */
	double *self; /* a real node's own values; NULL (zeros) for a scope */
	double total[TL_N_COLS];
	uint32_t n_defined; /* nodes of its subtree, itself included (root: not):
			     * tfprof's total "defined" count */
} tl_summary_scope;

typedef struct tl_summary_tree {
	tl_summary_scope *root;
	GHashTable *index;
	tl_arena *arena; /* the nodes and their values, freed at once */
} tl_summary_tree;

tl_summary_tree *tl_summary_tree_new(const tl_summary *s, const tl_summary_opts *o);
void tl_summary_tree_free(tl_summary_tree *t);
/* The kids of a node in the options' order, in an array the caller frees. */
tl_summary_scope **tl_summary_tree_kids(const tl_summary_scope *t, const tl_summary_opts *o);
/* A node's full path as a C string: the row's name, else a copy in buf. */
const char *tl_summary_tree_name(const tl_summary_scope *t, GString *buf);
bool tl_summary_tree_match(const GRegex *re, const tl_summary_scope *t);

#endif
