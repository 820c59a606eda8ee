/* trace-summarize: tfprof-style tables across steps, by op type, scope,
 * node, device, kernel or step, plus run-to-run diffs and mergeable
 * partial aggregates. */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "emit/summary.h"
#include "emit/summary_diff.h"
#include "cli/summary_inputs.h"
#include "emit/svgplot.h"
#include "emit/run_analyses.h"

#include <getopt.h>
#include <stddef.h>
#include <string.h>

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] [INPUT...]",
    .about = "Tables of where time and memory went, across steps, from TensorFlow RunMetadata "
	     "(one run, many runs, a TFRecord stream such as trace-merge --format=runmeta) or "
	     "Chrome trace JSON (timeline.py, TF2 profiler, Kineto).",
};

struct job {
	tl_cli cli;
	int view;
	tl_summary_opts topts;
	enum { F_TEXT, F_CSV, F_JSON, F_PARTIAL } format; /* as `formats` names them */
	const tl_table_sink *sink;
	bool partial, combine, diff, idle, critical_path, advise;
	enum { OCC_RUN, OCC_DEFINED } defined; /* --occurrence */
	enum { PLOT_NONE = -1, PLOT_SVG } plot; /* --plot */
	const char *overlay, *annotation; /* --overlay; --annotation with --instance */
	int instance;
	const char *graph_path; /* --graph */
	tl_graph_attach *graph;
	tl_summary *s, *b; /* the inputs' summary; B of --diff */
};

static void parse_select(tl_cli *cli, void *ctx, const char *value)
{
	if (tl_summary_opts_select(&((struct job *)ctx)->topts, value) < 0)
		tl_cli_usage_error(cli, "option '--select' wants columns of --help, not '%s'",
				   value);
}

static void parse_order_by(tl_cli *cli, void *ctx, const char *value)
{
	if (tl_summary_opts_order(&((struct job *)ctx)->topts, value) < 0)
		tl_cli_usage_error(cli, "option '--order-by' wants a column or name, not '%s'",
				   value);
}

static const char *const formats[] = {"text", "csv", "json", "partial", NULL};

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt fixed[] = {
    TL_OPT_HEAD("View and columns:"),
    TL_OPT_CHOICE("view", 0, JOB(view), tl_summary_view_names, "VIEW",
		  "op (default), scope (name-scope tree), node, device, kernel (GPU kernels with "
		  "their op), step (one row per run)"),
    TL_OPT_CALL("select", 0, parse_select, "COLS",
		"comma list of the columns below (default: total_micros, accelerator_micros, "
		"cpu_micros, occurrence; self_micros after total_micros where slices nest)"),
    TL_OPT_CHOICE("stat", 0, JOB(topts.stat), tl_summary_stat_names, "STAT",
		  "across steps: avg (default), first, min, max, p50, p90, stddev"),
    TL_OPT("step", 0, TL_ARG_COUNT, JOB(topts.step), "N", "only run N (0-based; must exist)"),
    TL_OPT_CHOICE("occurrence", 0, JOB(defined), ((const char *const[]){"run", "defined", NULL}),
		  "MODE", "run (executions, default) or defined (graph nodes)"),
    TL_OPT("graph", 0, TL_ARG_STRING, JOB(graph_path), "FILE",
	   "GraphDef (binary or text, gzip) of runs without partition graphs, as tfprof's "
	   "--graph_path: the rows are its nodes (run or not) with its shapes, params and "
	   "float_ops; runs of nodes it lacks (_SOURCE, _retval_*) are kept out, counted in "
	   "one line on stderr"),
    TL_OPT_TEXT(TL_SUMMARY_HELP_COLUMNS),
    TL_OPT_HEAD("tfprof's grammar:"),
    TL_OPT_CALL("order-by", 0, parse_order_by, "COL",
		"a column (default total_micros; self_micros where slices nest, as in Kineto "
		"and TF2 traces), or name"),
    /* the --min-<column> options, one per column, are added by parse_args */
    TL_OPT("min-COL", 0, TL_HELP_LINE, 0, "VALUE",
	   "hide rows below VALUE in column COL (any column name)"),
    TL_OPT("account-type", 0, TL_ARG_REGEX, JOB(topts.account_type), "RE",
	   "op view: keep op types matching RE (kernel view: their op)"),
    TL_OPT("show", 0, TL_ARG_REGEX, JOB(topts.show), "RE", "keep rows whose name matches"),
    TL_OPT("hide", 0, TL_ARG_REGEX, JOB(topts.hide), "RE", "drop rows whose name matches"),
    TL_OPT("start", 0, TL_ARG_REGEX, JOB(topts.start), "RE",
	   "scope view: start the tree at matching scopes"),
    TL_OPT("trim", 0, TL_ARG_REGEX, JOB(topts.trim), "RE",
	   "scope view: do not descend below matching scopes"),
    TL_OPT("max-depth", 0, TL_ARG_COUNT, JOB(topts.max_depth), "N",
	   "scope view: tree depth shown (default 100)"),
    TL_OPT("account-displayed-only", 0, TL_ARG_FLAG, JOB(topts.displayed_only), NULL,
	   "shares count only the rows shown"),
    TL_OPT_HEAD("Output:"),
    TL_OPT_CHOICE("format", 0, JOB(format), formats, "FMT",
		  "text (default; aligned, human units; a tree for scope), csv (raw numbers: "
		  "micros and bytes), json, or partial (mergeable aggregates for --combine)"),
    TL_OPT("combine", 0, TL_ARG_FLAG, JOB(combine), NULL,
	   "inputs are partials: merge them, then print"),
    TL_OPT("diff", 0, TL_ARG_FLAG, JOB(diff), NULL,
	   "exactly two inputs A B (files of runs): per row, the change from A to B, by "
	   "impact"),
    TL_OPT_HEAD("Analyses (per run, every input with a timeline):"),
    TL_OPT("idle", 0, TL_ARG_FLAG, JOB(idle), NULL,
	   "per device busy %, idle gaps, the longest gaps with the ops around them"),
    TL_OPT("critical-path", 0, TL_ARG_FLAG, JOB(critical_path), NULL,
	   "what gated the step's end, with durations, waits, shares: by its dataflow where "
	   "the input records one (data, control, Send/Recv, launches, stream order), else "
	   "by HTA's rules (host nesting, launch and kernel-kernel delays, syncs)"),
    TL_OPT("advise", 0, TL_ARG_FLAG, JOB(advise), NULL,
	   "tfprof's checkers: most expensive op types, accelerator utilization, NHWC "
	   "convolutions on GPU, unfused batch norm"),
    TL_OPT("overlay", 0, TL_ARG_STRING, JOB(overlay), "FILE",
	   "with --critical-path: the path as a Chrome trace overlay (load it beside the trace)"),
    TL_OPT("annotation", 0, TL_ARG_STRING, JOB(annotation), "TEXT",
	   "with --critical-path: the window of an execution named with TEXT (HTA's annotation)"),
    TL_OPT("instance", 0, TL_ARG_COUNT, JOB(instance), "N",
	   "with --annotation: its N-th execution by start (0-based, default 0)"),
    TL_OPT_CHOICE("plot", 0, JOB(plot), ((const char *const[]){"svg", NULL}), "svg",
		  "an SVG: the top 20 rows as bars of the ordering column (--view step: each "
		  "step's wall time, executor and GPU busy time)"),
};

/* The fixed options, then --min-<column> for every column. */
static void parse_args(struct job *job, int argc, char **argv)
{
	size_t n = G_N_ELEMENTS(fixed);
	tl_cli_opt *opts = g_new0(tl_cli_opt, n + TL_N_COLS + 1);
	memcpy(opts, fixed, sizeof fixed);
	char *names[TL_N_COLS];
	for (int c = 0; c < TL_N_COLS; c++) {
		names[c] = g_strdup_printf("min-%s", tl_summary_col_name(c));
		/* not listed: the table's --min-COL line stands for them */
		opts[n + (size_t)c] =
		    (tl_cli_opt)TL_OPT(names[c], 0, TL_ARG_NUMBER,
				       JOB(topts.min) + (size_t)c * sizeof(double), "VALUE", NULL);
	}
	tl_cli_parse(&job->cli, argc, argv, opts, job);
	for (int c = 0; c < TL_N_COLS; c++)
		g_free(names[c]);
	g_free(opts);
	job->sink = tl_table_sink_find(job->format == F_PARTIAL ? "text" : formats[job->format]);
	job->partial = job->format == F_PARTIAL;
	job->topts.occurrence_defined = job->defined == OCC_DEFINED;
}

/* The inputs into summaries: all of them, or A then B for --diff. */
static int read_inputs(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	tl_progress progress;
	tl_progress_begin(&progress, job->cli.prog, job->cli.quiet);
	tl_summary_inputs_opts o = {job->cli.format, job->combine, &progress, job->graph};
	job->s = tl_summary_new((tl_summary_view)job->view);
	job->b = job->diff ? tl_summary_new((tl_summary_view)job->view) : NULL;
	size_t bad = 0;
	int rc = tl_summary_add_inputs(job->s, in->paths, job->diff ? 1 : in->n, &o, &bad, err);
	if (rc == 0 && job->diff) {
		rc = tl_summary_add_inputs(job->b, in->paths + 1, 1, &o, &bad, err);
		bad++;
	}
	tl_progress_end(&progress);
	if (rc < 0) {
		tl_cli_input_error(&job->cli, in->paths[bad], err);
		err->msg[0] = '\0';
		return -1;
	}
	return 0;
}

static int write_tables(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
			tl_error *err)
{
	struct job *job = ctx;
	if (job->partial) {
		tl_summary_write_partial(job->s, out);
		return 0;
	}
	tl_summary_opts_fit(&job->topts, job->s);
	if (tl_summary_step_known(job->s, &job->topts, err) < 0)
		return -1;
	if (job->plot == PLOT_SVG) {
		tl_svgplot_summary(job->s, &job->topts, 20, out);
	} else if (job->diff) {
		tl_summary_diff *d = tl_summary_diff_new(job->s, job->b, &job->topts);
		tl_summary_diff_write(d, job->sink, out);
		tl_summary_diff_free(d);
	} else {
		tl_summary_write(job->s, &job->topts, job->sink, out);
	}
	return 0;
}

static int write_analyses(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
			  tl_error *err)
{
	struct job *job = ctx;
	tl_output *ov = NULL;
	tl_chrome w;
	if (job->overlay != NULL) {
		if (tl_output_open(&ov, job->overlay, false, in->paths, in->n, err) < 0)
			return -1;
		tl_chrome_begin(&w, ov);
	}
	tl_run_analyses what = {job->advise, job->idle, job->critical_path, 3,
				{job->annotation, (uint32_t)job->instance}};
	int rc = 0; /* an annotation a run lacks ends it */
	for (guint r = 0; r < runs->len && rc == 0; r++)
		rc = tl_run_analyses_write(g_ptr_array_index(runs, r), &what, job->sink, out,
					   ov != NULL && r == 0 ? &w : NULL, err);
	if (ov != NULL && rc < 0)
		tl_output_abort(ov);
	if (ov == NULL || rc < 0)
		return rc;
	tl_chrome_end(&w, "{\"tool\":\"trace-summarize " TL_VERSION "\"}");
	return tl_output_close(ov, err);
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-summarize", .help = &help}, .plot = PLOT_NONE};
	tl_summary_opts_init(&job.topts);
	parse_args(&job, argc, argv);
	if (job.diff && argc - optind != 2)
		tl_cli_usage_error(&job.cli, "--diff takes exactly two inputs, A and B");
	if (job.overlay != NULL && !job.critical_path)
		tl_cli_usage_error(&job.cli, "--overlay goes with --critical-path");
	if (job.annotation != NULL && !job.critical_path)
		tl_cli_usage_error(&job.cli, "--annotation goes with --critical-path");
	if (job.instance != 0 && job.annotation == NULL)
		tl_cli_usage_error(&job.cli, "--instance goes with --annotation");
	static const tl_cli_tool tables = {
	    .stream = true, .prepare = read_inputs, .write = write_tables};
	static const tl_cli_tool analyses = {.write = write_analyses};
	tl_error gerr = {0};
	if (job.graph_path != NULL && tl_graph_attach_read(&job.graph, job.graph_path, &gerr) < 0) {
		tl_cli_input_error(&job.cli, job.graph_path, &gerr);
		return 1;
	}
	bool per_run = job.cli.chrome_runs = job.idle || job.critical_path || job.advise;
	int status = tl_cli_run(&job.cli, argc, argv, per_run ? &analyses : &tables, &job);
	tl_summary_free(job.s);
	tl_summary_free(job.b);
	tl_graph_attach_free(job.graph);
	GRegex *res[] = {job.topts.account_type, job.topts.show, job.topts.hide, job.topts.start,
			 job.topts.trim};
	for (size_t i = 0; i < G_N_ELEMENTS(res); i++)
		g_clear_pointer(&res[i], g_regex_unref);
	return status;
}
