/* graph-render: the partition graphs of a RunMetadata (or a GraphDef) as
 * DOT, or laid out and rendered in-process by Graphviz, annotated with the
 * costs of the step stats. */
#include "cli/cli.h"
#include "analysis/graphdot.h"
#include "emit/dot.h"
#include "base/output.h"

#include <getopt.h>
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
	"                           sfdp, osage, patchwork; 0: never)\n"
	"\n"
	"Output and input:\n"
	"  -o, --output FILE        write FILE (atomically) instead of stdout; .gz compresses\n"
	"  -z, --gzip               compress the output with gzip\n"
	"  -q, --quiet              no warnings\n"
	"      --input-format FMT   auto (default), runmeta, runmeta-text, graphdef,\n"
	"                           graphdef-text, tfrecord\n"
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
	"Exit status: 0 ok, 1 bad input, render or write error, 2 usage.\n";

enum {
	OPT_COLOR_BY = 256,
	OPT_NO_EDGE_LABELS,
	OPT_EDGE_LABELS,
	OPT_MAX_DEPTH,
	OPT_FOLD,
	OPT_FOCUS,
	OPT_TOP,
	OPT_HOPS,
	OPT_MAX_NODES,
};

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'T'},
	{"engine", required_argument, NULL, 'K'},
	{"color-by", required_argument, NULL, OPT_COLOR_BY},
	{"no-edge-labels", no_argument, NULL, OPT_NO_EDGE_LABELS},
	{"edge-labels", no_argument, NULL, OPT_EDGE_LABELS},
	{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
	{"fold", no_argument, NULL, OPT_FOLD},
	{"focus", required_argument, NULL, OPT_FOCUS},
	{"top", required_argument, NULL, OPT_TOP},
	{"hops", required_argument, NULL, OPT_HOPS},
	{"max-nodes", required_argument, NULL, OPT_MAX_NODES},
	TL_CLI_LONG_OPTIONS,
	{NULL, 0, NULL, 0},
};

struct job {
	tl_cli cli;
	tl_graphdot_opts opts;
	tl_graphdot *gd;
	GRegex *focus;
	const char *render;     /* -T format, or NULL for DOT */
	bool max_nodes_set;
};

static void parse_args(struct job *job, int argc, char **argv)
{
	int c;
	while ((c = getopt_long(argc, argv, "T:K:o:zqhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (!tl_dot_format_known(optarg))
				tl_cli_usage_error(&job->cli, "unknown format '%s' (svg, png, pdf, ps, "
						   "eps, svgz, jpg, gif, webp, bmp, tiff, json, "
						   "plain, dot or xdot)", optarg);
			job->render = optarg;
			break;
		case 'K':
			if (!tl_dot_engine_known(optarg))
				tl_cli_usage_error(&job->cli, "unknown engine '%s' (dot, neato, fdp, "
						   "sfdp, twopi, circo, osage or patchwork)", optarg);
			job->opts.engine = optarg;
			break;
		case OPT_COLOR_BY:
			job->opts.color_by = (tl_color_by)tl_cli_choice(&job->cli, "--color-by", optarg,
									tl_color_by_names);
			break;
		case OPT_NO_EDGE_LABELS:
			job->opts.edge_labels = 0;
			break;
		case OPT_EDGE_LABELS:
			job->opts.edge_labels = 1;
			break;
		case OPT_MAX_DEPTH:
			job->opts.max_depth = (int)tl_cli_count(&job->cli, "--max-depth", optarg, 1);
			break;
		case OPT_FOLD:
			job->opts.fold = true;
			break;
		case OPT_FOCUS: {
			GError *gerr = NULL;
			if (job->focus != NULL)
				g_regex_unref(job->focus);
			job->focus = g_regex_new(optarg, G_REGEX_OPTIMIZE, 0, &gerr);
			if (job->focus == NULL) {
				char *msg = g_strdup(gerr->message);
				g_error_free(gerr);
				tl_cli_usage_error(&job->cli, "bad --focus regex: %s", msg);
			}
			break;
		}
		case OPT_TOP:
			job->opts.top = (size_t)tl_cli_count(&job->cli, "--top", optarg, 1);
			break;
		case OPT_HOPS:
			job->opts.hops = (int)tl_cli_count(&job->cli, "--hops", optarg, 0);
			break;
		case OPT_MAX_NODES:
			job->opts.max_nodes = (size_t)tl_cli_count(&job->cli, "--max-nodes", optarg, 0);
			job->max_nodes_set = true;
			break;
		default:
			tl_cli_option(&job->cli, c, optarg);
		}
	}
	job->opts.focus = job->focus;
	if (!job->max_nodes_set)
		job->opts.max_nodes = tl_graphdot_default_max_nodes(job->opts.engine);
}

static int build(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err)
{
	struct job *job = ctx;
	return tl_graphdot_build(&job->gd, (tl_run *const *)runs->pdata, runs->len, &job->opts, err);
}

static int draw(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
		tl_error *err)
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
	struct job job = {.cli = {.prog = "graph-render", .usage = usage}};
	tl_graphdot_opts_init(&job.opts);
	parse_args(&job, argc, argv);
	tl_cli_tool tool = {.prepare = build, .write = draw};
	if (job.render != NULL && tl_dot_format_binary(job.render))
		tool.binary = job.render;
	int status = tl_cli_run(&job.cli, argc, argv, &tool, &job);
	tl_graphdot_free(job.gd);
	if (job.focus != NULL)
		g_regex_unref(job.focus);
	return status;
}
