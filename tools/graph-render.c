/* graph-render: the partition graphs of a RunMetadata (or a GraphDef) as
 * DOT, or laid out and rendered in-process by Graphviz, annotated with the
 * costs of the step stats. */
#include "cli/cli.h"
#include "analysis/graphdot.h"
#include "cli/diff_inputs.h"
#include "emit/dot.h"
#include "base/output.h"

#include <getopt.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tl_cli_help help = {
    .synopsis = "[OPTIONS] [INPUT...]",
    .about = "Draw the partition graphs of a TensorFlow RunMetadata (one cluster per "
	     "partition) or a GraphDef (binary, text or gzip), name scopes as nested clusters, "
	     "annotated with the step stats when present: each node's op type, time and output "
	     "bytes; data edges with dtype and shape, wider with bytes; control edges dashed; "
	     "each _Send/_Recv pair as one bold edge across partitions. Writes DOT to stdout "
	     "(for dot, sfdp...) or, with -T, the picture.",
    .notes = "With dot (-T), a big layout (a cost over 8000) has its connected components "
	     "laid out apart and packed in an array, in-process with Graphviz's pack library "
	     "(SVG: each component drawn apart at its place in one picture); from the DOT, Graphviz's tools do the same:\n"
	     "  graph-render run.pb | ccomps -x | dot | gvpack -array_u |\n"
	     "    neato -n2 -Tsvg > graph.svg\n"
	     "Several runs with --max-nodes 0, as DOT: each run is drawn as it is read and let go, "
	     "its part of the DOT waiting in a temporary file ($TMPDIR, else /tmp) until the last "
	     "run is read, since the title counts every run (where none can be made: a warning, "
	     "and every run's picture held in memory until the end).",
    .exit_1 = "bad input, render or write error",
};

struct job {
	tl_cli cli;
	tl_graphdot_opts opts;
	tl_graphdot *gd;
	tl_dot_stream *ds; /* every node as DOT: written run by run */
	const char *render; /* -T format, or NULL for DOT */
	bool diff;	    /* --diff A B */
	tl_graphdot_diff *d;
	GPtrArray *runs_b; /* --diff: B's runs */
};

static void parse_format(tl_cli *cli, void *ctx, const char *value)
{
	if (!tl_dot_format_known(value))
		tl_cli_usage_error(cli,
				   "option '--format' wants svg, png, pdf, ps, eps, svgz, jpg, "
				   "gif, webp, bmp, tiff, json, plain, dot or xdot, not '%s'",
				   value);
	((struct job *)ctx)->render = value;
}

static void parse_engine(tl_cli *cli, void *ctx, const char *value)
{
	if (!tl_dot_engine_known(value))
		tl_cli_usage_error(cli,
				   "option '--engine' wants dot, neato, fdp, sfdp, twopi, "
				   "circo, osage or patchwork, not '%s'",
				   value);
	((struct job *)ctx)->opts.engine = value;
}

static void no_edge_labels(tl_cli *cli, void *ctx, const char *value)
{
	((struct job *)ctx)->opts.edge_labels = TL_EDGE_LABELS_OFF;
}

static void edge_labels(tl_cli *cli, void *ctx, const char *value)
{
	((struct job *)ctx)->opts.edge_labels = TL_EDGE_LABELS_ON;
}

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_HEAD("Picture:"),
    TL_OPT_CALL("format", 'T', parse_format, "FMT",
		"lay out and render in-process: svg, png, pdf, ps, eps, svgz, jpg, gif, webp, "
		"bmp, tiff, json, plain, dot or xdot (laid out DOT); default: DOT, not laid out"),
    TL_OPT_CALL("engine", 'K', parse_engine, "NAME",
		"dot (default), neato, fdp, sfdp, twopi, circo, osage or patchwork; with DOT "
		"output, written as its layout"),
    TL_OPT_CHOICE("color-by", 0, JOB(opts.color_by), tl_color_by_names, "WHAT",
		  "none (default), device, time, memory or op: fill colours with a legend"),
    TL_OPT("diff", 0, TL_ARG_FLAG, JOB(diff), NULL,
	   "exactly two inputs A B: B's graph (its first run with one), each node coloured "
	   "by its change from A in time (trace-summarize's total_micros) or, with "
	   "--color-by memory, output_bytes: the delta of its row in trace-summarize --view "
	   "node --diff A B (each input's runs averaged). Red slower/more, blue faster/less, "
	   "grey unchanged, four steps each way for |change| up to 1/64, 1/16, 1/4 and all "
	   "of the largest; a collapsed scope sums its nodes. Nodes are matched by name, "
	   "then a name found on one side only by op type and scope where that pairs one "
	   "with one. Nodes only in B: green dashed outline, \"new\"; only in A: listed in "
	   "the legend. Both must record a timeline (step_stats), B a graph"),
    TL_OPT_CALL("no-edge-labels", 0, no_edge_labels, NULL, "no dtype and shape on the edges"),
    TL_OPT_CALL("edge-labels", 0, edge_labels, NULL,
		"always label edges (default: up to 2000 edges)"),
    TL_OPT_HEAD("What is drawn:"),
    TL_OPT_MIN("max-depth", 0, TL_ARG_COUNT, JOB(opts.max_depth), 1, "N",
	       "each scope at level N drawn as one node, with its op count, op types and "
	       "summed costs"),
    TL_OPT("fold", 0, TL_ARG_FLAG, JOB(opts.fold), NULL,
	   "numbered sibling scopes (tower_0 ... tower_7) fold into the first plus one node "
	   "for the others"),
    TL_OPT("focus", 0, TL_ARG_REGEX, JOB(opts.focus), "REGEX",
	   "only nodes whose name matches, and their neighbours"),
    TL_OPT_MIN("top", 0, TL_ARG_SIZE, JOB(opts.top), 1, "N",
	       "only the N most expensive nodes (time; memory with --color-by=memory), and "
	       "their neighbours"),
    TL_OPT("hops", 0, TL_ARG_COUNT, JOB(opts.hops), "K",
	   "neighbours of --focus and --top up to K edges away (default 1)"),
    TL_OPT("max-nodes", 0, TL_ARG_SIZE, JOB(opts.max_nodes), "N",
	   "above N nodes collapse scopes by level until the picture fits, and say so "
	   "(default 1500; 6000 for sfdp, osage, patchwork; 0: never, but laid out by dot "
	   "with -T, one connected component of a layout cost (nodes plus bends of edges "
	   "spanning ranks) over 150000 is drawn as the default would, with a warning)"),
    TL_OPT_END,
};

/* Run by run: what the picture needs of each run is copied out of it as
 * it comes (tl_graphdot_add), and the run freed; the picture is made and
 * written at the end, when the runs' share of --max-nodes is known. With
 * every node drawn as DOT there is no share to wait for: each run's part
 * is written aside as it comes and let go (tl_dot_stream). */
static int begin_picture(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	if (tl_graphdot_begin(&job->gd, &job->opts, err) < 0)
		return -1;
	if (!tl_graphdot_streams(&job->opts))
		return 0;
	tl_error scratch = {{0}};
	if (tl_dot_stream_new(&job->ds, job->gd, &scratch) < 0) {
		/* as before streaming: the picture of every run held */
		tl_warn("graph-no-scratch", "%s: every run's picture held in memory", scratch.msg);
		tl_dot_stream_free(job->ds);
		job->ds = NULL;
	}
	return 0;
}

static int add_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out,
		   tl_error *err)
{
	struct job *job = ctx;
	tl_graphdot_add(job->gd, *run, NULL);
	if (job->ds != NULL)
		return tl_dot_stream_run(job->ds, step->several, err);
	return 0;
}

static int draw(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
		tl_error *err);

static int end_picture(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	if (job->ds != NULL)
		return tl_dot_stream_end(job->ds, out, err);
	tl_graphdot_finish(job->gd);
	return draw(ctx, in, NULL, out, err);
}

/* --diff: A and B read apart, B's first run with a graph drawn. */
static int build_diff(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	job->d = tl_graphdot_diff_new(job->opts.color_by == TL_COLOR_MEMORY);
	job->runs_b = g_ptr_array_new();
	if (tl_cli_read_diff(&job->cli, in, job->d, job->runs_b) != TL_EXIT_OK)
		return -1; /* said */
	tl_run *drawn = NULL;
	for (guint r = 0; r < job->runs_b->len && drawn == NULL; r++)
		if (((tl_run *)g_ptr_array_index(job->runs_b, r))->has_graphs)
			drawn = g_ptr_array_index(job->runs_b, r);
	job->opts.diff = job->d;
	return tl_graphdot_build(&job->gd, &drawn, 1, &job->opts, err);
}

static int draw(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	if (job->render == NULL) {
		tl_dot_write(job->gd, out);
		return 0;
	}
	if (!job->cli.quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "graph-render: laying out %zu nodes with %s...\n",
			tl_graphdot_get_stats(job->gd)->vertices,
			job->opts.engine != NULL ? job->opts.engine : "dot");
	return tl_dot_render(job->gd, job->render, out, err);
}

int main(int argc, char **argv)
{
	struct job job = {.cli = {.prog = "graph-render", .help = &help, .needs = TL_NEEDS_GRAPH}};
	tl_graphdot_opts_init(&job.opts);
	job.opts.max_nodes = SIZE_MAX; /* not given */
	tl_cli_parse(&job.cli, argc, argv, options, &job);
	if (job.opts.max_nodes == SIZE_MAX)
		job.opts.max_nodes = tl_graphdot_default_max_nodes(job.opts.engine);
	if (job.diff && argc - optind != 2)
		tl_cli_usage_error(&job.cli, "--diff takes exactly two inputs, A and B");
	if (job.diff && job.opts.color_by != TL_COLOR_NONE && job.opts.color_by != TL_COLOR_TIME &&
	    job.opts.color_by != TL_COLOR_MEMORY)
		tl_cli_usage_error(&job.cli, "--diff colours by time or memory, not by %s",
				   tl_color_by_names[job.opts.color_by]);
	job.opts.laid_out = job.render != NULL;
	tl_cli_tool tool = {.begin = begin_picture, .run = add_run, .end = end_picture};
	if (job.diff)
		tool = (tl_cli_tool){.prepare = build_diff, .write = draw, .stream = true};
	if (job.render != NULL && tl_dot_format_binary(job.render))
		tool.binary = job.render;
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	tl_dot_stream_free(job.ds);
	tl_graphdot_free(job.gd);
	tl_graphdot_diff_free(job.d);
	if (job.runs_b != NULL)
		tl_cli_free_runs(job.runs_b);
	if (job.opts.focus != NULL)
		g_regex_unref((GRegex *)job.opts.focus);
	return status;
}
