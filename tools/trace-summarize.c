/* trace-summarize: tfprof-style tables across steps, by op type, scope,
 * node, device, kernel or step, plus run-to-run diffs and mergeable
 * partial aggregates. */
#include "emit/chrome.h"
#include "cli/cli.h"
#include "base/output.h"
#include "io/source.h"
#include "analysis/summary.h"
#include "emit/summary.h"
#include "emit/summary_diff.h"
#include "emit/svgplot.h"
#include "analysis/advise.h"
#include "analysis/critical_path.h"
#include "analysis/idle.h"
#include "emit/advise.h"
#include "emit/critical_path.h"
#include "emit/idle.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: trace-summarize [OPTIONS] [INPUT...]\n"
	"Tables of where time and memory went, across steps, from TensorFlow RunMetadata\n"
	"(one run, many runs, a TFRecord stream such as trace-merge --format=runmeta) or\n"
	"Chrome trace JSON (timeline.py, TF2 profiler, Kineto). No INPUT, or '-', reads stdin.\n"
	"A folder stands for the TensorBoard events files below it, in path order.\n"
	"\n"
	"View and columns:\n"
	"      --view VIEW          op (default), scope (name-scope tree), node, device,\n"
	"                           kernel (GPU kernels with their op), step (one row per run)\n"
	"      --select COLS        comma list of: total_micros, accelerator_micros,\n"
	"                           cpu_micros, occurrence, requested_bytes, peak_bytes,\n"
	"                           residual_bytes, output_bytes, params, float_ops\n"
	"                           (default: total_micros,accelerator_micros,cpu_micros,\n"
	"                           occurrence)\n"
	"      --stat STAT          across steps: avg (default), first, min, max, p50, p90,\n"
	"                           stddev\n"
	"      --step N             only run N (0-based)\n"
	"      --occurrence MODE    run (executions, default) or defined (graph nodes)\n"
	"\n"
	"tfprof's grammar:\n"
	"      --order-by COL       a column (default total_micros), or name\n"
	"      --min-COL VALUE      hide rows below VALUE in column COL (any column name)\n"
	"      --account-type RE    op view: keep op types matching RE (kernel view: their op)\n"
	"      --show RE            keep rows whose name matches\n"
	"      --hide RE            drop rows whose name matches\n"
	"      --start RE           scope view: start the tree at matching scopes\n"
	"      --trim RE            scope view: do not descend below matching scopes\n"
	"      --max-depth N        scope view: tree depth shown (default 100)\n"
	"      --account-displayed-only  shares count only the rows shown\n"
	"\n"
	"Output:\n"
	"      --format FMT         text (default; aligned, human units; a tree for scope),\n"
	"                           csv (raw numbers: micros and bytes), json, or partial\n"
	"                           (mergeable aggregates for --combine)\n"
	"      --combine            inputs are partials: merge them, then print\n"
	"      --diff               exactly two inputs A B (files of runs): per row, the\n"
	"                           change from A to B, by impact\n"
	"\n"
	"Analyses (per run, RunMetadata inputs):\n"
	"      --idle               per device busy %%, idle gaps, the longest gaps with the\n"
	"                           ops around them\n"
	"      --critical-path      the chain of executions that gated the step's end (data,\n"
	"                           control, Send/Recv, launches, same-stream order), with\n"
	"                           durations, waits and shares\n"
	"      --advise             tfprof's checkers: most expensive op types, accelerator\n"
	"                           utilization, NHWC convolutions on GPU, unfused batch norm\n"
	"      --overlay FILE       with --critical-path: also write the path as a Chrome\n"
	"                           trace overlay (load it beside trace-dataflow's trace)\n"
	"      --plot svg           an SVG: the top 20 rows as bars of the ordering column\n"
	"                           (--view step: each step's wall time, executor and GPU\n"
	"                           busy time)\n"
	"  -o, --output FILE        write FILE (atomically) instead of stdout\n"
	"  -z, --gzip               compress the output with gzip\n"
	"  -q, --quiet              no warnings\n"
	"      --input-format FMT   force the kind of every input (default: sniffed)\n"
	"      --strict             damage is an error (a stream record cut short or\n"
	"                           corrupt, a gzip stream cut short): exit 1, nothing\n"
	"                           written\n"
	"  -h, --help               this help\n"
	"  -V, --version            version\n"
	"\n"
	"Damaged input is read past: a record of a TFRecord stream or events file that is\n"
	"cut short, fails its crc or does not decode is skipped, a gzip stream cut short\n"
	"gives what came before the cut, each with a warning naming record and byte.\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or write error, 2 usage.\n";

enum {
	OPT_VIEW = 256,
	OPT_SELECT,
	OPT_STAT,
	OPT_STEP,
	OPT_OCCURRENCE,
	OPT_ORDER_BY,
	OPT_ACCOUNT_TYPE,
	OPT_SHOW,
	OPT_HIDE,
	OPT_START,
	OPT_TRIM,
	OPT_MAX_DEPTH,
	OPT_DISPLAYED_ONLY,
	OPT_FORMAT,
	OPT_COMBINE,
	OPT_DIFF,
	OPT_IDLE,
	OPT_CRITICAL_PATH,
	OPT_OVERLAY,
	OPT_ADVISE,
	OPT_PLOT,
	OPT_MIN_BASE = 512, /* + column */
};

struct job {
	tl_cli cli;
	tl_view_kind view;
	tl_summary_opts topts;
	const tl_table_sink *sink;
	bool partial;
	bool combine;
	bool diff;
	bool defined;
	bool idle;
	bool critical_path;
	bool advise;
	bool plot;
	const char *overlay;
};

static GRegex *regex_arg(struct job *job, const char *opt, const char *value)
{
	GError *gerr = NULL;
	GRegex *re = g_regex_new(value, G_REGEX_OPTIMIZE, 0, &gerr);
	if (re == NULL) {
		char *msg = g_strdup(gerr->message);
		g_error_free(gerr);
		tl_cli_usage_error(&job->cli, "bad %s regex: %s", opt, msg);
	}
	return re;
}

static void parse_select(struct job *job, const char *value)
{
	char **parts = g_strsplit(value, ",", -1);
	job->topts.n_select = 0;
	for (char **p = parts; *p != NULL; p++) {
		int c = tl_col_parse(g_strstrip(*p));
		if (c < 0) {
			char *bad = g_strdup(*p);
			g_strfreev(parts);
			tl_cli_usage_error(&job->cli, "unknown column '%s' in --select", bad);
		}
		if (job->topts.n_select < TL_N_COLS)
			job->topts.select[job->topts.n_select++] = c;
	}
	g_strfreev(parts);
	if (job->topts.n_select == 0)
		tl_cli_usage_error(&job->cli, "--select names no column");
}

static void parse_args(struct job *job, int argc, char **argv)
{
	GArray *opts = g_array_new(TRUE, TRUE, sizeof(struct option));
	static const struct option fixed[] = {
		{"view", required_argument, NULL, OPT_VIEW},
		{"select", required_argument, NULL, OPT_SELECT},
		{"stat", required_argument, NULL, OPT_STAT},
		{"step", required_argument, NULL, OPT_STEP},
		{"occurrence", required_argument, NULL, OPT_OCCURRENCE},
		{"order-by", required_argument, NULL, OPT_ORDER_BY},
		{"account-type", required_argument, NULL, OPT_ACCOUNT_TYPE},
		{"show", required_argument, NULL, OPT_SHOW},
		{"hide", required_argument, NULL, OPT_HIDE},
		{"start", required_argument, NULL, OPT_START},
		{"trim", required_argument, NULL, OPT_TRIM},
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
		{"account-displayed-only", no_argument, NULL, OPT_DISPLAYED_ONLY},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"combine", no_argument, NULL, OPT_COMBINE},
		{"diff", no_argument, NULL, OPT_DIFF},
		{"idle", no_argument, NULL, OPT_IDLE},
		{"critical-path", no_argument, NULL, OPT_CRITICAL_PATH},
		{"overlay", required_argument, NULL, OPT_OVERLAY},
		{"advise", no_argument, NULL, OPT_ADVISE},
		{"plot", required_argument, NULL, OPT_PLOT},
		TL_CLI_LONG_OPTIONS,
	};
	g_array_append_vals(opts, fixed, G_N_ELEMENTS(fixed));
	char *names[TL_N_COLS];
	char *min_opt[TL_N_COLS]; /* "--min-COLUMN", for messages */
	for (int c = 0; c < TL_N_COLS; c++) {
		names[c] = g_strdup_printf("min-%s", tl_col_name(c));
		min_opt[c] = g_strdup_printf("--%s", names[c]);
		struct option o = {names[c], required_argument, NULL, OPT_MIN_BASE + c};
		g_array_append_val(opts, o);
	}
	int c;
	const struct option *lo = (const struct option *)(void *)opts->data;
	while ((c = getopt_long(argc, argv, "o:zqhV", lo, NULL)) != -1) {
		if (c >= OPT_MIN_BASE && c < OPT_MIN_BASE + TL_N_COLS) {
			job->topts.min[c - OPT_MIN_BASE] =
				tl_cli_number(&job->cli, min_opt[c - OPT_MIN_BASE], optarg);
			continue;
		}
		switch (c) {
		case OPT_VIEW:
			job->view = (tl_view_kind)tl_cli_choice(&job->cli, "--view", optarg,
								tl_view_names);
			break;
		case OPT_SELECT:
			parse_select(job, optarg);
			break;
		case OPT_STAT:
			job->topts.stat = (tl_stat)tl_cli_choice(&job->cli, "--stat", optarg,
								 tl_stat_names);
			break;
		case OPT_STEP:
			job->topts.step = (int)tl_cli_number(&job->cli, "--step", optarg);
			if (job->topts.step < 0)
				tl_cli_usage_error(&job->cli, "option '--step' must not be negative");
			break;
		case OPT_OCCURRENCE:
			job->defined = tl_cli_choice(&job->cli, "--occurrence", optarg,
						     (const char *const[]){"run", "defined", NULL}) == 1;
			break;
		case OPT_ORDER_BY:
			if (strcmp(optarg, "name") == 0)
				job->topts.order_by = -1;
			else if ((job->topts.order_by = tl_col_parse(optarg)) < 0)
				tl_cli_usage_error(&job->cli, "unknown column '%s' in --order-by",
						   optarg);
			break;
		case OPT_ACCOUNT_TYPE:
			job->topts.account_type = regex_arg(job, "--account-type", optarg);
			break;
		case OPT_SHOW:
			job->topts.show = regex_arg(job, "--show", optarg);
			break;
		case OPT_HIDE:
			job->topts.hide = regex_arg(job, "--hide", optarg);
			break;
		case OPT_START:
			job->topts.start = regex_arg(job, "--start", optarg);
			break;
		case OPT_TRIM:
			job->topts.trim = regex_arg(job, "--trim", optarg);
			break;
		case OPT_MAX_DEPTH:
			job->topts.max_depth = (int)tl_cli_number(&job->cli, "--max-depth", optarg);
			break;
		case OPT_DISPLAYED_ONLY:
			job->topts.displayed_only = true;
			break;
		case OPT_FORMAT: {
			static const char *const formats[] = {"text", "csv", "json", "partial", NULL};
			int k = tl_cli_choice(&job->cli, "--format", optarg, formats);
			job->partial = k == 3;
			if (!job->partial)
				job->sink = tl_table_sink_find(formats[k]);
			break;
		}
		case OPT_COMBINE:
			job->combine = true;
			break;
		case OPT_DIFF:
			job->diff = true;
			break;
		case OPT_IDLE:
			job->idle = true;
			break;
		case OPT_CRITICAL_PATH:
			job->critical_path = true;
			break;
		case OPT_OVERLAY:
			job->overlay = optarg;
			break;
		case OPT_ADVISE:
			job->advise = true;
			break;
		case OPT_PLOT:
			tl_cli_choice(&job->cli, "--plot", optarg, (const char *const[]){"svg", NULL});
			job->plot = true;
			break;
		default:
			tl_cli_option(&job->cli, c, optarg);
		}
	}
	for (int k = 0; k < TL_N_COLS; k++) {
		g_free(names[k]);
		g_free(min_opt[k]);
	}
	g_array_free(opts, TRUE);
}

/* One input into the summary: runs one at a time, a Chrome trace, or a
 * partial. */
/* Runs and bytes read so far, over every input (workers add to it). */
static tl_progress progress;

static int add_input(const struct job *job, tl_summary *s, const char *path, tl_error *err)
{
	tl_source *src = NULL;
	if (tl_source_open(&src, path, job->combine ? TL_FORMAT_CHROME : job->cli.format, err) < 0)
		return -1;
	int rc = 0;
	if (job->combine || tl_source_format(src) == TL_FORMAT_CHROME) {
		const uint8_t *data;
		size_t len;
		rc = tl_source_map(src, &data, &len, err);
		if (rc == 0 && job->combine)
			rc = tl_summary_read_partial(s, data, len, err);
		else if (rc == 0)
			rc = tl_summary_add_chrome(s, data, len, path, err);
		if (rc == 0)
			tl_progress_add(&progress, 1, len);
	} else {
		tl_run *run = NULL;
		uint64_t done = 0;
		while ((rc = tl_source_next_run(src, &run, err)) > 0) {
			tl_summary_add_run(s, run);
			tl_run_free(run);
			uint64_t at = tl_source_offset(src);
			tl_progress_add(&progress, 1, at - done);
			done = at;
		}
	}
	tl_source_close(src);
	return rc < 0 ? -1 : 0;
}

/* Several inputs are summarized on every core, each into its own summary,
 * then appended in input order: the table is the same as one by one. At
 * most one run per core is in memory. */
struct task {
	const struct job *job;
	const char *path;
	tl_summary *s;
	tl_error err;
	int rc;
};

static void run_task(gpointer data, gpointer user)
{
	struct task *t = data;
	(void)user;
	t->rc = add_input(t->job, t->s, t->path, &t->err);
}

static int add_inputs(struct job *job, tl_summary *s, const tl_cli_inputs *in)
{
	struct task *tasks = g_new0(struct task, in->n);
	guint cores = g_get_num_processors();
	bool parallel = in->n > 1 && cores > 1 && !job->combine;
	tl_progress_begin(&progress, job->cli.prog, job->cli.quiet);
	GThreadPool *pool =
		parallel ? g_thread_pool_new(run_task, NULL, (gint)MIN(cores, 8u), TRUE, NULL) : NULL;
	for (size_t i = 0; i < in->n; i++) {
		tasks[i] = (struct task){.job = job, .path = in->paths[i],
					 .s = parallel ? tl_summary_new(s->view) : s};
		if (pool != NULL) {
			g_thread_pool_push(pool, &tasks[i], NULL);
			continue;
		}
		run_task(&tasks[i], NULL);
		if (tasks[i].rc < 0)
			break;
	}
	if (pool != NULL)
		g_thread_pool_free(pool, FALSE, TRUE);
	tl_progress_end(&progress);
	int status = TL_EXIT_OK;
	for (size_t i = 0; i < in->n; i++) {
		if (status == TL_EXIT_OK && tasks[i].rc < 0) {
			tl_cli_input_error(&job->cli, tasks[i].path, &tasks[i].err);
			status = TL_EXIT_INPUT;
		}
		if (parallel) {
			if (status == TL_EXIT_OK)
				tl_summary_absorb(s, tasks[i].s);
			tl_summary_free(tasks[i].s);
		}
	}
	g_free(tasks);
	return status;
}

/* Columns a Chrome trace cannot fill: said once, and dropped. */
static void drop_missing_columns(struct job *job, const tl_summary *s)
{
	int kept = 0;
	for (int k = 0; k < job->topts.n_select; k++) {
		int c = job->topts.select[k];
		bool needs_memory = c == TL_COL_REQUESTED || c == TL_COL_PEAK ||
				    c == TL_COL_RESIDUAL || c == TL_COL_OUTPUT;
		bool needs_graph = c == TL_COL_PARAMS || c == TL_COL_FLOPS;
		bool needs_kernels = c == TL_COL_ACCEL;
		if (s->from_chrome && (needs_memory || needs_graph || needs_kernels)) {
			tl_warn("chrome-missing", "Chrome trace input has no %s data: column %s "
				"left out", needs_memory ? "memory" : needs_graph ? "graph"
							: "kernel-to-op",
				tl_col_name(c));
			continue;
		}
		job->topts.select[kept++] = c;
	}
	if (kept == 0)
		job->topts.select[kept++] = TL_COL_TOTAL;
	job->topts.n_select = kept;
}

static void write_diff(const struct job *job, const tl_summary *a, const tl_summary *b,
		       tl_output *out)
{
	tl_summary_diff *d = tl_summary_diff_new(a, b, &job->topts);
	tl_summary_diff_write(d, job->sink, out);
	tl_summary_diff_free(d);
}

/* --idle and --critical-path: per run, straight from the model. */
static int analyse_runs(struct job *job, const tl_cli_inputs *in)
{
	const tl_table_sink *sink = job->sink;
	GPtrArray *runs = g_ptr_array_new();
	int status = tl_cli_read_runs(&job->cli, in, job->cli.format, runs);
	tl_output *out = NULL, *ov = NULL;
	tl_error err = {{0}};
	if (status == TL_EXIT_OK &&
	    (tl_output_open(&out, job->cli.out_path, job->cli.gzip, in->paths, in->n, &err) < 0 ||
	     (job->overlay != NULL &&
	      tl_output_open(&ov, job->overlay, false, in->paths, in->n, &err) < 0))) {
		tl_cli_error(&job->cli, "%s", err.msg);
		if (out != NULL)
			tl_output_abort(out);
		status = TL_EXIT_INPUT;
	}
	if (status == TL_EXIT_OK) {
		tl_chrome w;
		if (ov != NULL)
			tl_chrome_begin(&w, ov);
		for (guint r = 0; r < runs->len; r++) {
			const tl_run *run = g_ptr_array_index(runs, r);
			if (job->advise) {
				tl_advice *a = tl_advise_new(run);
				tl_advise_write(run, a, sink, out);
				tl_advise_free(a);
			}
			if (job->idle) {
				tl_idle *idle = tl_idle_new(run, 3);
				tl_idle_write(run, idle, sink, out);
				tl_idle_free(idle);
			}
			if (job->critical_path) {
				tl_path_step *steps = NULL;
				size_t n = tl_critical_path(run, &steps);
				tl_critical_path_write(run, steps, n, sink, out);
				if (ov != NULL && r == 0)
					tl_critical_path_trace(&w, run, steps, n);
				g_free(steps);
			}
		}
		if (ov != NULL) {
			tl_chrome_end(&w, "{\"tool\":\"trace-summarize " TL_VERSION "\"}");
			if (tl_output_close(ov, &err) < 0) {
				tl_cli_error(&job->cli, "%s", err.msg);
				status = TL_EXIT_INPUT;
			}
		}
		if (tl_output_close(out, &err) < 0) {
			tl_cli_error(&job->cli, "%s", err.msg);
			status = TL_EXIT_INPUT;
		}
	}
	tl_cli_free_runs(runs);
	return status;
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-summarize", .usage = usage},
			  .sink = tl_table_sink_find("text")};
	tl_summary_opts_init(&job.topts);
	parse_args(&job, argc, argv);
	tl_cli_inputs in = tl_cli_inputs_of(argc, argv, optind);
	if (job.diff && in.n != 2)
		tl_cli_usage_error(&job.cli, "--diff takes exactly two inputs, A and B");
	job.topts.occurrence_defined = job.defined;

	if (job.overlay != NULL && !job.critical_path)
		tl_cli_usage_error(&job.cli, "--overlay goes with --critical-path");
	if (job.idle || job.critical_path || job.advise) {
		int st = analyse_runs(&job, &in);
		tl_cli_finish(&job.cli);
		return st;
	}
	tl_summary *s = tl_summary_new(job.view);
	tl_summary *b = job.diff ? tl_summary_new(job.view) : NULL;
	int status;
	if (job.diff) {
		tl_cli_inputs a_in = {.paths = in.paths, .n = 1};
		tl_cli_inputs b_in = {.paths = in.paths + 1, .n = 1};
		status = add_inputs(&job, s, &a_in);
		if (status == TL_EXIT_OK)
			status = add_inputs(&job, b, &b_in);
	} else {
		status = add_inputs(&job, s, &in);
	}
	tl_output *out = NULL;
	tl_error err = {{0}};
	if (status == TL_EXIT_OK &&
	    tl_output_open(&out, job.cli.out_path, job.cli.gzip, in.paths, in.n, &err) < 0) {
		tl_cli_error(&job.cli, "%s", err.msg);
		status = TL_EXIT_INPUT;
	}
	if (status == TL_EXIT_OK) {
		if (job.partial) {
			tl_summary_write_partial(s, out);
		} else {
			drop_missing_columns(&job, s);
			if (job.plot)
				tl_plot_summary(s, &job.topts, 20, out);
			else if (job.diff)
				write_diff(&job, s, b, out);
			else
				tl_summary_write(s, &job.topts, job.sink, out);
		}
		if (tl_output_close(out, &err) < 0) {
			tl_cli_error(&job.cli, "%s", err.msg);
			status = TL_EXIT_INPUT;
		}
	}
	tl_summary_free(s);
	tl_summary_free(b);
	GRegex *res[] = {job.topts.account_type, job.topts.show, job.topts.hide, job.topts.start,
			 job.topts.trim};
	for (size_t i = 0; i < G_N_ELEMENTS(res); i++)
		if (res[i] != NULL)
			g_regex_unref(res[i]);
	tl_cli_finish(&job.cli);
	return status;
}
