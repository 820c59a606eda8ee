/* trace-report: TensorFlow runs as one HTML page that opens from disk:
 * the timeline with its dataflow arrows, memory, tables, critical path,
 * idle time and the graph, everything inline. */
#include "cli/cli.h"
#include "emit/report.h"

#include <getopt.h>
#include <stddef.h>

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] [INPUT...] -o report.html",
    .about = "Turn TensorFlow RunMetadata (binary, text, gzip, TFRecord or TensorBoard events; "
	     "StepStats too; TF2/JAX XSpace; Chrome trace JSON from timeline.py, the TF2 trace "
	     "viewer or PyTorch Kineto, a run per file) into one HTML page with everything "
	     "inline (data, script, style; no network reference) that opens from disk in any "
	     "browser: the timeline (devices and threads as rows; zoom, pan, search; a click "
	     "on a slice shows it and draws its dataflow arrows in and out), memory (the "
	     "in-use curve per allocator, the peak and what was live at it; an XSpace's or "
	     "Kineto trace's allocator events as trace-memory reads them), trace-summarize's "
	     "op, scope and kernel tables, the critical path, idle time per device, and "
	     "graph-render's SVG (a click on a node shows its executions).\n"
	     "Several runs (several inputs, or a stream) get a run selector and a table of "
	     "every step (its time against the median's, per op too); the page holds the "
	     "timeline of the median and the slowest step (--runs picks others) and, for "
	     "every other run, its op table, idle time and graph, and the command line that "
	     "makes a page with its timeline. Two runs: both, the diff table of "
	     "trace-summarize --diff, and the second run's graph coloured by each node's "
	     "change from the first, as graph-render --diff colours it: in time, or in output "
	     "memory (the graph tab's Colour; graph-render --diff --color-by memory).",
    .notes = "The page's URL may end in #select=NODE to open with NODE's first execution "
	     "selected, its arrows drawn; #graph=SCOPE opens the graph tab's view of SCOPE "
	     "(tower_0/conv1; on a Graphviz picture, frames it), "
	     "#graph-colour=diff|memory|time colours the graph by the change in time, in output "
	     "memory or by time, #graph-fold=0|1 unfolds or folds numbered sibling scopes (the "
	     "page writes these three into its URL as the reader opens scopes and switches, "
	     "each scope opened or closed a history entry, so Back returns to the last view "
	     "and a reload keeps it); keys join with &.\n"
	     "\n"
	     "Runs are read one at a time, each one's page data waiting in a temporary file "
	     "($TMPDIR, else /tmp) until the last is read: the page is written at the end, "
	     "so a bad input leaves no page, on standard output as with -o. One XSpace file of "
	     "several steps tells every step's wall time before the first is built: only the "
	     "picked steps' timelines are made.",
    .exit_1 = "bad input, layout or write error, a --runs number past the last run",
};

struct job {
	tl_cli cli;
	tl_report_opts opts;
	tl_report_pick *picks;
	tl_report *report;
	bool no_graph;
	size_t max_nodes;
	int top;
	int table_rows;
	bool one_input;
	int64_t *walls; /* every run's, where the one input told them ahead */
	size_t n_walls;
};

static void runs_option(tl_cli *cli, void *ctx, const char *value)
{
	struct job *job = ctx;
	g_free(job->picks);
	if (tl_report_picks_parse(value, &job->picks, &job->opts.n_picks) < 0)
		tl_cli_usage_error(cli,
				   "option '--runs' wants run numbers, ranges A-B, median or "
				   "slowest, comma-separated, not '%s'",
				   value);
	job->opts.picks = job->picks;
}

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_HEAD("Page:"),
    TL_OPT("title", 0, TL_ARG_STRING, JOB(opts.title), "TEXT",
	   "the page's title (default: \"tftrace report: INPUT\")"),
    TL_OPT_CALL("runs", 0, runs_option, "LIST",
		"the runs whose timeline the page holds: run numbers (from 0, across the "
		"inputs in order, as trace-summarize --step counts them), ranges A-B, median, "
		"slowest; comma-separated (default: median,slowest)"),
    TL_OPT("no-graph", 0, TL_ARG_FLAG, JOB(no_graph), NULL, "leave the graph out"),
    TL_OPT("max-nodes", 0, TL_ARG_SIZE, JOB(max_nodes), "N",
	   "the graph: laid out by Graphviz when its layout cost is at most N: its nodes, "
	   "plus one for each rank a long edge crosses and one for each device and scope "
	   "cluster (dot's time grows about as the square of that, whatever the nodes "
	   "alone); above N the page lays it out itself, N nodes at most at once: scopes "
	   "collapsed, numbered siblings folded as graph-render --fold folds them, a click "
	   "opens one (default 400; 0: Graphviz draws every node)"),
    TL_OPT("top", 0, TL_ARG_COUNT, JOB(top), "N",
	   "buffers listed live at each memory peak (default 200; 0: all)"),
    TL_OPT("table-rows", 0, TL_ARG_COUNT, JOB(table_rows), "N",
	   "rows of each table, the largest first (default 2000; 0: all)"),
    TL_OPT_END,
};

/* One input whose runs are all known once the first is read (an XSpace
 * of several steps): their wall times, so that the page makes the
 * timelines of only the runs it will hold. The first run read is given
 * as the input's first. */
static int read_ahead(void *ctx, tl_source *src, tl_run **first, tl_error *err)
{
	struct job *job = ctx;
	if (!job->one_input)
		return 0;
	if (tl_cli_source_as_runs(&job->cli, src, err) < 0)
		return -1;
	int rc = tl_run_next(src, first, err);
	if (rc <= 0)
		return rc < 0 ? -1 : 1; /* no run: nothing more to read */
	job->n_walls = tl_run_walls_ahead(src, &job->walls);
	return 0;
}

/* The page's state is made once the inputs are known, before the first run. */
static int begin_report(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	job->opts.inputs = in->paths;
	job->opts.n_inputs = in->n;
	if (tl_report_new(&job->report, &job->opts, err) < 0)
		return -1;
	tl_report_expect(job->report, job->walls, job->n_walls);
	return 0;
}

/* Each run into the page as it is read; the driver frees it after, unless
 * the page keeps it (the second run, until a third comes). */
static int add_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	return tl_report_add_own(job->report, run, err);
}

static int end_report(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	return tl_report_finish(job->report, out, err);
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "trace-report", .help = &help}};
	tl_report_opts_init(&job.opts);
	job.opts.generator = "trace-report " TL_VERSION;
	job.opts.prog = "trace-report";
	job.max_nodes = job.opts.graph_max_nodes;
	job.top = (int)job.opts.max_live;
	job.table_rows = (int)job.opts.table_rows;
	tl_cli_parse(&job.cli, argc, argv, options, &job);
	job.cli.chrome_runs = true;
	job.cli.want_allocs = true;
	job.opts.graph = !job.no_graph;
	job.opts.graph_max_nodes = job.max_nodes;
	job.opts.max_live = (size_t)job.top;
	job.opts.table_rows = (size_t)job.table_rows;
	job.one_input = tl_cli_inputs_of(argc, argv, optind).n <= 1;
	static const tl_cli_tool tool = {
	    .input = read_ahead, .begin = begin_report, .run = add_run, .end = end_report};
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	tl_report_free(job.report);
	g_free(job.picks);
	g_free(job.walls);
	return status;
}
