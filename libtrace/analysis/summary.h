/*
 * summary: tfprof-style aggregates of many runs, by op type, name scope,
 * graph node, device, GPU kernel or step, and the sinks that print them.
 *
 * Per row and per run the metrics below are summed; across runs each
 * column is reported as the average (default), first, min, max, p50, p90
 * or stddev over the runs (a run where the row did not occur counts 0).
 *
 *   cpu_micros          executor time of the executions (their own record)
 *   accelerator_micros  GPU kernel time they launched (per-stream records)
 *   total_micros        cpu + accelerator
 *   occurrence          executions in the run (or nodes defined, with
 *                       --occurrence defined)
 *   requested_bytes     AllocatorMemoryUsed.total_bytes
 *   peak_bytes          largest AllocatorMemoryUsed.peak_bytes
 *   residual_bytes      AllocatorMemoryUsed.live_bytes
 *   output_bytes        requested bytes of the outputs (NodeOutput)
 *   params              elements of variables (VariableV2, VarHandleOp)
 *   float_ops           from shapes: MatMul 2mnk, Conv2D 2*out*kh*kw*cin,
 *                       element-wise ops one per output element
 *
 * Rows keep per-run values, so a partial (--format partial) of some runs
 * combines with others into exactly the table of all runs.
 */
#ifndef TL_ANALYSIS_SUMMARY_H
#define TL_ANALYSIS_SUMMARY_H

#include "model/run.h"
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
} tl_view_kind;

/* The view names, indexed by tl_view_kind, NULL-terminated. */
extern const char *const tl_view_names[];
const char *tl_view_name(tl_view_kind v);

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
	TL_N_COLS
};

/* Column names as --select, --order-by and --min-<name> spell them. */
const char *tl_col_name(int col);
int tl_col_parse(const char *s);

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
extern const char *const tl_stat_names[];

typedef struct tl_row {
	char *name;
	GArray *runs;           /* double[TL_N_COLS] per run from first_run on (a row
				 * of one late run, as in the step view, holds one) */
	size_t first_run;
	int64_t defined;        /* graph nodes in the row */
	char *shape;            /* variables: "784x128" */
	char *extra;            /* kernel view: the op; op view: "" */
} tl_row;

typedef struct tl_summary {
	tl_view_kind view;
	GHashTable *rows;       /* name -> tl_row * */
	size_t n_runs;
	GPtrArray *run_labels;  /* char * */
	bool have_graph;        /* some run had partition graphs */
	bool have_memory;
	bool from_chrome;       /* some input was a Chrome trace */
} tl_summary;

tl_summary *tl_summary_new(tl_view_kind view);
void tl_summary_free(tl_summary *s);

/* Adds one RunMetadata run. */
void tl_summary_add_run(tl_summary *s, const tl_run *run);
/* Adds one Chrome trace as a run (X events: name = op, args.name = node,
 * process = device). */
int tl_summary_add_chrome(tl_summary *s, const uint8_t *data, size_t len, const char *label,
			  tl_error *err);

/* Appends src's runs after dst's (the runs of one input summarized on its
 * own, e.g. on another thread). */
void tl_summary_absorb(tl_summary *dst, tl_summary *src);

/* Partial aggregates: write, and read back (combine). */
void tl_summary_write_partial(const tl_summary *s, tl_output *out);
int tl_summary_read_partial(tl_summary *s, const uint8_t *data, size_t len, tl_error *err);

/* What to print. */
typedef struct tl_table_opts {
	int select[TL_N_COLS];
	int n_select;
	tl_stat stat;
	int order_by;           /* a column, or -1 for name */
	double min[TL_N_COLS];  /* --min-<col>; 0 = none */
	GRegex *account_type;   /* op view: op types; device view: devices */
	GRegex *show, *hide, *start, *trim;
	int max_depth;          /* scope view */
	bool displayed_only;    /* --account-displayed-only */
	int step;               /* --step N: only that run (-1: all) */
	bool occurrence_defined; /* occurrence = graph nodes, not executions */
	enum { TL_TABLE_TEXT, TL_TABLE_CSV, TL_TABLE_JSON } format;
} tl_table_opts;

void tl_table_opts_init(tl_table_opts *o);
/* One column of a row as the options' statistic over the runs. */
double tl_summary_row_stat(const tl_summary *s, const tl_row *r, int col, const tl_table_opts *o);
void tl_summary_print(const tl_summary *s, const tl_table_opts *o, tl_output *out);

#endif
