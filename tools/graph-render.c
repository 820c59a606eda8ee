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

static const char usage[] =
    "Usage: graph-render [OPTIONS] [INPUT...]\n"
    "Draw the partition graphs of a TensorFlow RunMetadata (one cluster per\n"
    "partition) or a GraphDef (binary, text or gzip), name scopes as nested\n"
    "clusters, annotated with the step stats when present: each node's op type,\n"
    "time and output bytes; data edges with dtype and shape, wider with bytes;\n"
    "control edges dashed; each _Send/_Recv pair as one bold edge across\n"
    "partitions. Writes DOT to stdout (for dot, sfdp...) or, with -T, the picture.\n"
    "No INPUT, or '-', reads stdin.\n"
    "A folder stands for the TensorBoard events files below it, in path order.\n"
    "\n"
    "Picture:\n"
    "  -T, --format FMT         lay out and render in-process: svg, png, pdf, ps,\n"
    "                           eps, svgz, jpg, gif, webp, bmp, tiff, json, plain,\n"
    "                           dot or xdot (laid out DOT); default: DOT, not laid out\n"
    "  -K, --engine NAME        dot (default), neato, fdp, sfdp, twopi, circo, osage\n"
    "                           or patchwork; with DOT output, written as its layout\n"
    "      --color-by WHAT      none (default), device, time, memory or op: fill\n"
    "                           colours with a legend\n"
    "      --diff               exactly two inputs A B: B's graph (its first run with\n"
    "                           one), each node coloured by its change from A in\n"
    "                           time (trace-summarize's total_micros) or, with\n"
    "                           --color-by memory, output_bytes: the delta of its row\n"
    "                           in trace-summarize --view node --diff A B (each\n"
    "                           input's runs averaged). Red slower/more, blue\n"
    "                           faster/less, grey unchanged, four steps each way for\n"
    "                           |change| up to 1/64, 1/16, 1/4 and all of the largest;\n"
    "                           a collapsed scope sums its nodes. Nodes are matched\n"
    "                           by name, then a name found on one side only by op\n"
    "                           type and scope where that pairs one with one. Nodes\n"
    "                           only in B: green dashed outline, \"new\"; only in A:\n"
    "                           listed in the legend. Both must record a timeline\n"
    "                           (step_stats), B a graph\n"
    "      --no-edge-labels     no dtype and shape on the edges\n"
    "      --edge-labels        always label edges (default: up to 2000 edges)\n"
    "\n"
    "What is drawn:\n"
    "      --max-depth N        each scope at level N drawn as one node, with its\n"
    "                           op count, op types and summed costs\n"
    "      --fold               numbered sibling scopes (tower_0 ... tower_7) fold\n"
    "                           into the first plus one node for the others\n"
    "      --focus REGEX        only nodes whose name matches, and their neighbours\n"
    "      --top N              only the N most expensive nodes (time; memory with\n"
    "                           --color-by=memory), and their neighbours\n"
    "      --hops K             neighbours of --focus and --top up to K edges away\n"
    "                           (default 1)\n"
    "      --max-nodes N        above N nodes collapse scopes by level until the\n"
    "                           picture fits, and say so (default 1500; 6000 for\n"
    "                           sfdp, osage, patchwork; 0: never, but laid out by\n"
    "                           dot with -T, one connected component of a layout\n"
    "                           cost (nodes plus bends of edges spanning ranks)\n"
    "                           over 150000 is drawn as the default would, with a\n"
    "                           warning)\n"
    "\n"
    "With dot (-T), a big layout (a cost over 8000) has its connected components\n"
    "laid out apart and packed in an array, in-process with Graphviz's pack\n"
    "library (SVG: each component drawn apart at its place in one picture);\n"
    "from the DOT, Graphviz's tools do the same: graph-render run.pb |\n"
    "ccomps -x | dot | gvpack -array_u | neato -n2 -Tsvg > graph.svg\n"
    "\n"
    "Output and input:\n"
    "  -o, --output FILE        write FILE (atomically) instead of stdout; .gz compresses\n"
    "  -z, --gzip               compress the output with gzip\n"
    "  -q, --quiet              no warnings\n"
    "      --input-format FMT   auto (default), runmeta, runmeta-text, graphdef,\n"
    "                           graphdef-text, tfrecord, xspace, tf2-trace,\n"
    "                           runmeta-json, graphdef-json (protobuf's JSON)\n" TL_CLI_HELP_STRICT TL_CLI_HELP_END "\n"
    "Exit status: 0 ok, 1 bad input, render or write error, 2 usage.\n";

struct job {
	tl_cli cli;
	tl_graphdot_opts opts;
	tl_graphdot *gd;
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
	((struct job *)ctx)->opts.edge_labels = 0;
}

static void edge_labels(tl_cli *cli, void *ctx, const char *value)
{
	((struct job *)ctx)->opts.edge_labels = 1;
}

#define JOB(field) offsetof(struct job, field)
static const tl_cli_opt options[] = {
    TL_OPT_CALL("format", 'T', parse_format),
    TL_OPT_CALL("engine", 'K', parse_engine),
    TL_OPT_CHOICE("color-by", 0, JOB(opts.color_by), tl_color_by_names),
    TL_OPT("diff", 0, TL_ARG_FLAG, JOB(diff)),
    TL_OPT_CALL("no-edge-labels", 0, no_edge_labels),
    TL_OPT_CALL("edge-labels", 0, edge_labels),
    TL_OPT_MIN("max-depth", 0, TL_ARG_COUNT, JOB(opts.max_depth), 1),
    TL_OPT("fold", 0, TL_ARG_FLAG, JOB(opts.fold)),
    TL_OPT("focus", 0, TL_ARG_REGEX, JOB(opts.focus)),
    TL_OPT_MIN("top", 0, TL_ARG_SIZE, JOB(opts.top), 1),
    TL_OPT("hops", 0, TL_ARG_COUNT, JOB(opts.hops)),
    TL_OPT("max-nodes", 0, TL_ARG_SIZE, JOB(opts.max_nodes)),
    TL_OPT_END,
};

/* Run by run: what the picture needs of each run is copied out of it as
 * it comes (tl_graphdot_add), and the run freed; the picture is made and
 * written at the end, when the runs' share of --max-nodes is known. */
static int begin_picture(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
	return tl_graphdot_begin(&job->gd, &job->opts, err);
}

static int add_run(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out,
		   tl_error *err)
{
	struct job *job = ctx;
	tl_graphdot_add(job->gd, *run, NULL);
	return 0;
}

static int draw(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
		tl_error *err);

static int end_picture(void *ctx, const tl_cli_inputs *in, tl_output *out, tl_error *err)
{
	struct job *job = ctx;
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
	struct job job = {.cli = {.prog = "graph-render", .usage = usage, .needs = TL_NEEDS_GRAPH}};
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
	tl_graphdot_free(job.gd);
	tl_graphdot_diff_free(job.d);
	if (job.runs_b != NULL)
		tl_cli_free_runs(job.runs_b);
	if (job.opts.focus != NULL)
		g_regex_unref((GRegex *)job.opts.focus);
	return status;
}
