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
#include "analysis/summary_inputs.h"
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
	tl_summary *s, *b;      /* the inputs' summary; B of --diff */
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

/* The inputs into summaries: all of them, or A then B for --diff. */
static int read_inputs(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	tl_progress progress;
	tl_progress_begin(&progress, job->cli.prog, job->cli.quiet);
	tl_summary_inputs_opts o = {job->cli.format, job->combine, &progress};
	job->s = tl_summary_new(job->view);
	job->b = job->diff ? tl_summary_new(job->view) : NULL;
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
	if (job->plot) {
		tl_plot_summary(job->s, &job->topts, 20, out);
	} else if (job->diff) {
		tl_summary_diff *d = tl_summary_diff_new(job->s, job->b, &job->topts);
		tl_summary_diff_write(d, job->sink, out);
		tl_summary_diff_free(d);
	} else {
		tl_summary_write(job->s, &job->topts, job->sink, out);
	}
	return 0;
}

/* --idle, --critical-path and --advise: per run, straight from the model. */
static void analyse_run(const struct job *job, const tl_run *run, tl_output *out, tl_chrome *w)
{
	if (job->advise) {
		tl_advice *a = tl_advise_new(run);
		tl_advise_write(run, a, job->sink, out);
		tl_advise_free(a);
	}
	if (job->idle) {
		tl_idle *idle = tl_idle_new(run, 3);
		tl_idle_write(run, idle, job->sink, out);
		tl_idle_free(idle);
	}
	if (job->critical_path) {
		tl_path_step *steps = NULL;
		size_t n = tl_critical_path(run, &steps);
		tl_critical_path_write(run, steps, n, job->sink, out);
		if (w != NULL)
			tl_critical_path_trace(w, run, steps, n);
		g_free(steps);
	}
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
	for (guint r = 0; r < runs->len; r++)
		analyse_run(job, g_ptr_array_index(runs, r), out, ov != NULL && r == 0 ? &w : NULL);
	if (ov == NULL)
		return 0;
	tl_chrome_end(&w, "{\"tool\":\"trace-summarize " TL_VERSION "\"}");
	return tl_output_close(ov, err);
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-summarize", .usage = usage},
			  .sink = tl_table_sink_find("text")};
	tl_summary_opts_init(&job.topts);
	parse_args(&job, argc, argv);
	if (job.diff && argc - optind != 2)
		tl_cli_usage_error(&job.cli, "--diff takes exactly two inputs, A and B");
	job.topts.occurrence_defined = job.defined;
	if (job.overlay != NULL && !job.critical_path)
		tl_cli_usage_error(&job.cli, "--overlay goes with --critical-path");
	static const tl_cli_tool tables = {.stream = true, .prepare = read_inputs,
					   .write = write_tables};
	static const tl_cli_tool analyses = {.write = write_analyses};
	bool per_run = job.idle || job.critical_path || job.advise;
	int status = tl_cli_run(&job.cli, argc, argv, per_run ? &analyses : &tables, &job);
	tl_summary_free(job.s);
	tl_summary_free(job.b);
	GRegex *res[] = {job.topts.account_type, job.topts.show, job.topts.hide, job.topts.start,
			 job.topts.trim};
	for (size_t i = 0; i < G_N_ELEMENTS(res); i++)
		if (res[i] != NULL)
			g_regex_unref(res[i]);
	return status;
}
